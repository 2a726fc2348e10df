"""Classification losses: Hamming, zero-one and hinge losses; class likelihood ratios.

* Hamming loss: the fraction of wrong labels; for 1-D labels ``1 - accuracy``
  (``(N - trace C) / N``), for multilabel indicators the fraction of wrong
  (sample, label) cells ``sum_i w_i #wrong_i / (n L mean(w))``.
* zero-one loss: ``1 - accuracy`` (multilabel: subset accuracy, a sample is right
  only when all its labels are); ``normalize=False`` gives the (weighted) number
  of wrong samples.
* class likelihood ratios ``LR+ = TPR / FPR`` and ``LR- = FNR / TNR`` of a binary
  confusion matrix; an undefined ratio is ``replace_undefined_by`` (nan by
  default) with an :class:`UndefinedMetricWarning`.
* hinge loss ``mean_i max(0, 1 - margin_i)``: binary margins ``y_i s_i`` with
  ``y`` in {-1, +1} (the greater label is +1); multiclass (Crammer-Singer) margins
  ``s_i[y_i] - max_{c != y_i} s_i[c]``.

Speed: 1-D labels take the accuracy path (for integer labels a single comparison
of the arrays, else one count of label pairs), so no confusion matrix is sorted
into existence; a multilabel indicator is compared cell by cell in one pass.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._labels import encode_labels
from dartboard._numeric import vdot
from dartboard._validation import (
    as_float_array,
    check_bool,
    check_consistent_length,
    check_labels_argument,
    check_sample_weight,
    label_array,
    to_numpy,
)
from dartboard.exceptions import InputError
from dartboard.metrics._confusion import accuracy_score, confusion_matrix
from dartboard.metrics._count_formulas import warn_outside
from dartboard.metrics._docs import documented
from dartboard.metrics._probabilistic import _encode_with_labels

__all__ = ["class_likelihood_ratios", "hamming_loss", "hinge_loss", "zero_one_loss"]


# ------------------------------------------------------------------ multilabel indicators

def _dense(y: Any, name: str) -> np.ndarray:
    if hasattr(y, "toarray") and hasattr(y, "nnz"):  # a scipy sparse matrix or array
        y = y.toarray()
    return to_numpy(y, name=name)


def _target_kind(y: np.ndarray) -> str:
    """scikit-learn's name of a 2-D target: multilabel-indicator or a multioutput one."""
    if y.dtype.kind == "b":
        return "multilabel-indicator"
    if y.dtype.kind in "iu" and y.size and int(y.max()) - int(y.min()) <= 1:
        return "multilabel-indicator"  # at most two values, without sorting them
    values = np.unique(y)
    integral = y.dtype.kind in "biu" or (y.dtype.kind == "f" and np.all(values == values // 1))
    if values.shape[0] < 3 and integral:
        return "multilabel-indicator"
    return "multiclass-multioutput" if integral else "continuous-multioutput"


def multilabel_pair(y_true: ArrayLike, y_pred: ArrayLike, sample_weight: ArrayLike | None, *, scale_free: bool = False
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
    """Both indicators and the weights when either argument is a 2-D indicator
    (with more than one column), None for 1-D labels; a mix is an error, as in
    scikit-learn. ``scale_free``: the caller takes a ratio of weighted sums
    (:func:`~dartboard._validation.check_sample_weight`)."""
    t, p = _dense(y_true, "y_true"), _dense(y_pred, "y_pred")
    two_d = [a.ndim == 2 and a.shape[1] > 1 for a in (t, p)]
    if not any(two_d):
        return None
    kinds = [_target_kind(a) if d else ("binary" if np.unique(a).shape[0] <= 2
                                        else "multiclass")
             for a, d in zip((t, p), two_d)]
    if kinds[0] != kinds[1]:
        raise InputError(f"Classification metrics can't handle a mix of {kinds[0]} (y_true) "
                         f"and {kinds[1]} (y_pred) targets")
    if kinds[0] != "multilabel-indicator":
        raise InputError(f"{kinds[0]} targets are not supported; y_true and y_pred must be "
                         "1-D labels or 2-D 0/1 label indicators")
    if t.shape[1] != p.shape[1]:
        raise InputError(f"Multi-label binary indicator input with different numbers of "
                         f"labels: y_true has {t.shape[1]}, y_pred has {p.shape[1]}")
    n = check_consistent_length(("y_true", t), ("y_pred", p))
    if n == 0:
        raise InputError("y_true is empty; at least one sample is required")
    return t, p, check_sample_weight(sample_weight, n, scale_free=scale_free)


def _rows_differ(t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Whether each sample has a wrong label (column by column: a reduction along a
    short row is slow in numpy)."""
    wrong = t[:, 0] != p[:, 0]
    for c in range(1, t.shape[1]):
        wrong |= t[:, c] != p[:, c]
    return wrong


def _weight_total(w: np.ndarray | None, n: int) -> float:
    return float(n) if w is None else float(w.sum(dtype=np.float64))


def _correct_and_total(y_true: Any, y_pred: Any, sample_weight: Any, scale_free: bool
                       ) -> tuple[float, float]:
    """(Weighted) number of right 1-D labels, by the accuracy path, and the total."""
    t = label_array(y_true, name="y_true")
    p = label_array(y_pred, name="y_pred")
    n = check_consistent_length(("y_true", t), ("y_pred", p))
    w = check_sample_weight(sample_weight, n, scale_free=scale_free)
    correct = accuracy_score(t, p, normalize=False, sample_weight=w)
    return correct, _weight_total(w, n)


# ------------------------------------------------------------------ losses

@documented(
    returns="float\n    The fraction of wrong labels.",
)
def hamming_loss(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None) -> float:
    """Fraction of wrong labels (module docstring).

    Drop-in for ``sklearn.metrics.hamming_loss``, multilabel indicators
    included.

    Examples
    --------
    >>> hamming_loss([1, 2, 3, 4], [2, 2, 3, 4])
    0.25
    >>> hamming_loss([[0, 1], [1, 1]], [[0, 0], [1, 1]])
    0.25
    """
    pair = multilabel_pair(y_true, y_pred, sample_weight, scale_free=True)
    if pair is None:
        correct, total = _correct_and_total(y_true, y_pred, sample_weight, True)
        return (total - correct) / total
    t, p, w = pair
    n, n_labels = t.shape
    if w is None:
        return float(np.count_nonzero(t != p)) / (n * n_labels)
    per_row = (t != p).sum(axis=1)
    if not np.any(w):
        raise InputError("sample_weight must contain at least one positive weight; got "
                         "all zeros")
    return float(vdot(per_row, w)) / (n * n_labels * float(np.mean(w)))


@documented(
    returns="float\n    The fraction (or number) of misclassified samples.",
)
def zero_one_loss(y_true: ArrayLike, y_pred: ArrayLike, *, normalize: bool = True,
                  sample_weight: ArrayLike | None = None) -> float:
    """Fraction (``normalize=False``: weighted number) of wrongly classified samples.

    Drop-in for ``sklearn.metrics.zero_one_loss``; a multilabel sample counts
    as right only when all its labels are.

    Examples
    --------
    >>> zero_one_loss([1, 2, 3, 4], [2, 2, 3, 4])
    0.25
    >>> zero_one_loss([[0, 1], [1, 1]], [[0, 0], [1, 1]], normalize=False)
    1.0
    """
    normalize = check_bool(normalize, "normalize")
    pair = multilabel_pair(y_true, y_pred, sample_weight, scale_free=normalize)
    if pair is None:
        correct, total = _correct_and_total(y_true, y_pred, sample_weight, normalize)
        # scikit-learn's rounding: one minus the accuracy
        return 1 - correct / total if normalize else total - correct
    t, p, w = pair
    right = ~_rows_differ(t, p)
    if w is None:
        correct = float(np.count_nonzero(right))
    else:
        if not np.any(w):
            raise InputError("sample_weight must contain at least one positive weight; got "
                             "all zeros")
        correct = float(vdot(right, w.astype(np.float64)))
    total = _weight_total(w, t.shape[0])
    return 1 - correct / total if normalize else total - correct


# ------------------------------------------------------------------ likelihood ratios

def _check_replacement(replace: Any) -> dict[str, float] | None:
    """None for nan (the default), else ``{"LR+": ..., "LR-": ...}``."""
    if isinstance(replace, numbers.Real) and not isinstance(replace, bool):
        if math.isnan(replace):
            return None
        if replace == 1.0:
            return {"LR+": 1.0, "LR-": 1.0}
    message = ("replace_undefined_by must be np.nan, 1.0 or a dict {'LR+': value_1, "
               "'LR-': value_2} with LR+ in [1, inf] or nan and LR- in [0, 1] or nan; got "
               f"{replace!r}")
    if not isinstance(replace, dict) or set(replace) != {"LR+", "LR-"}:
        raise InputError(message)
    pos, neg = replace["LR+"], replace["LR-"]
    for value, low, high in ((pos, 1.0, math.inf), (neg, 0.0, 1.0)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) \
                or not (math.isnan(value) or low <= float(value) <= high):
            raise InputError(message)
    return {"LR+": float(pos), "LR-": float(neg)}


@documented(
    returns="tuple of (float, float)\n    ``(LR+, LR-)``: ``TPR / FPR`` and ``FNR / TNR``.",
    labels=("array-like of shape (2,)",
            "The two classes, negative then positive; None: the sorted labels present."),
    replace_undefined_by=("float or dict",
                          "Value of a ratio with a zero denominator (with a warning)."),
)
def class_likelihood_ratios(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                            sample_weight: ArrayLike | None = None,
                            replace_undefined_by: Any = np.nan) -> tuple[float, float]:
    """Positive and negative likelihood ratios ``(LR+, LR-)`` of a binary problem.

    ``LR+ = TPR / FPR = TP (TN + FP) / (FP (TP + FN))`` and
    ``LR- = FNR / TNR = FN (TN + FP) / (TN (TP + FN))``; the positive class is
    the second of the sorted labels (or of ``labels``). Drop-in for
    ``sklearn.metrics.class_likelihood_ratios``.

    Examples
    --------
    >>> class_likelihood_ratios([0, 1, 0, 1, 0], [1, 1, 0, 0, 0])
    (1.5, 0.75)
    """
    replacement = _check_replacement(replace_undefined_by)
    t = label_array(y_true, name="y_true")
    p = label_array(y_pred, name="y_pred")
    check_consistent_length(("y_true", t), ("y_pred", p))
    n_classes = encode_labels(("y_true", t), ("y_pred", p)).n_classes
    if n_classes > 2:
        raise InputError("class_likelihood_ratios only supports binary classification "
                         f"problems; y_true and y_pred hold {n_classes} classes")
    labels = check_labels_argument(labels)
    cm = confusion_matrix(t, p, labels=labels, sample_weight=sample_weight)
    if cm.shape != (2, 2):
        raise InputError("class_likelihood_ratios needs two classes; y_true and y_pred "
                         "hold one: pass both through the labels argument")
    (tn, fp), (fn, tp) = cm.astype(np.float64)
    support_pos, support_neg = tp + fn, tn + fp
    tail = (" Use the `replace_undefined_by` param to control this behavior. To suppress "
            "this warning or turn it into an error, see Python's `warnings` module and "
            "`warnings.catch_warnings()`.")
    if support_pos == 0:
        warn_outside("No samples of the positive class are present in `y_true`. "
                     "`positive_likelihood_ratio` and `negative_likelihood_ratio` are both "
                     "set to `np.nan`." + tail)
        positive = negative = math.nan
    if fp == 0:
        begin = ("No samples were predicted for the positive class and "
                 "`positive_likelihood_ratio` is " if tp == 0 else
                 "`positive_likelihood_ratio` is ill-defined and ")
        warn_outside(begin + "set to `np.nan`." + tail)
        positive = math.nan if replacement is None else replacement["LR+"]
    else:
        positive = tp * support_neg / (fp * support_pos)
    if tn == 0:
        warn_outside("`negative_likelihood_ratio` is ill-defined and set to `np.nan`."
                     + tail)
        negative = math.nan if replacement is None else replacement["LR-"]
    else:
        negative = fn * support_neg / (tn * support_pos)
    return float(positive), float(negative)


# ------------------------------------------------------------------ hinge loss

@documented(
    returns="float\n    The mean hinge loss.",
    pred_decision=("array-like of shape (n_samples,) or (n_samples, n_classes)",
                   "Decision function values."),
    labels=("array-like of shape (n_classes,)",
            "All the classes of multiclass data; None: the sorted labels present."),
)
def hinge_loss(y_true: ArrayLike, pred_decision: ArrayLike, *, labels: ArrayLike | None = None,
               sample_weight: ArrayLike | None = None) -> float:
    """Average hinge loss ``mean_i max(0, 1 - margin_i)`` (module docstring).

    ``pred_decision`` is a decision function: 1-D (or one column) for two classes
    (positive means the greater label), (n_samples, n_classes) for more, columns in the order of
    the sorted ``labels`` (or classes of ``y_true``). Drop-in for
    ``sklearn.metrics.hinge_loss``.

    Examples
    --------
    >>> round(hinge_loss([-1, 1, 1], [-2.18, 2.36, 0.09]), 6)
    0.303333
    """
    s = as_float_array(pred_decision, name="pred_decision", ndim=(1, 2))
    t = label_array(y_true, name="y_true")
    n = check_consistent_length(("y_true", t), ("pred_decision", s))
    w = check_sample_weight(sample_weight, n, scale_free=True)
    labels = check_labels_argument(labels)
    if labels is None:
        enc = encode_labels(("y_true", t))
        codes, n_classes = enc.codes[0], enc.n_classes
    else:  # columns follow the sorted labels, as scikit-learn's LabelEncoder
        classes, codes = _encode_with_labels(t, np.unique(labels))
        n_classes = classes.shape[0]
    if n_classes > 2:
        if s.ndim == 1:
            raise InputError(f"pred_decision must be of shape (n_samples, n_classes) = "
                             f"({n}, {n_classes}) with a multiclass target; got {s.shape}")
        if s.shape[1] != n_classes:
            raise InputError(
                "pred_decision has {} columns but there are {} classes; {}".format(
                    s.shape[1], n_classes, "include all labels in y_true or pass them as "
                    "labels" if labels is None else "one column per label is needed"))
        rows = np.arange(n)
        true_score = s[rows, codes]
        others = s.copy()
        others[rows, codes] = -np.inf
        margin = true_score - others.max(axis=1)
    else:
        if s.ndim == 2 and s.shape[1] == 1:  # a column is one score per sample too
            s = s[:, 0]
        if s.ndim != 1:
            raise InputError(f"pred_decision must be 1-D for a binary target; got shape "
                             f"{s.shape}")
        sign = np.where(codes == 1, 1.0, -1.0) if n_classes == 2 else -np.ones(n)
        margin = sign * s
    return _average(np.maximum(1.0 - margin, 0.0), w)


def _average(values: np.ndarray, w: np.ndarray | None) -> float:
    """The (weighted) mean of per-sample values: hinge loss and the label rankings."""
    if w is None:
        return float(values.mean())
    w = w.astype(np.float64)
    if not np.any(w):
        raise InputError("sample_weight must contain at least one positive weight; got "
                         "all zeros")
    return float(vdot(values, w) / w.sum())
