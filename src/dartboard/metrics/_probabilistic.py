"""Probabilistic losses: log loss (cross-entropy) and the Brier score.

Both take predicted probabilities: a 1-D array (probability of the positive
class, binary problems) or an (n_samples, n_classes) array whose columns follow
the sorted class labels (or ``labels``). Values outside [0, 1] are an error, and
so are multiclass rows that do not sum to 1 (within ``1e-8 + sqrt(eps)`` with the
``eps`` of the input's own float dtype, the tolerance at which scikit-learn only
warns: float32 rows, as many models' ``predict_proba`` returns them, sum to 1 +-
a few 1e-8): a row that does not sum to one is not a probability distribution and
its loss has no meaning. Computation is in float64.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._labels import (
    encode_labels,
    indicator_pair,
    is_string_labels,
    positive_index,
)
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
from dartboard.exceptions import InputError, InputTypeError
from dartboard.metrics._docs import documented

__all__ = ["brier_score_loss", "log_loss"]

_EPS = np.finfo(np.float64).eps
# |row sum - 1| above this is an error (scikit-learn's isclose(rtol=sqrt(eps)) bound)
_SUM_TOLERANCE = 1e-8 + math.sqrt(_EPS)


def check_range(p: np.ndarray, name: str) -> None:
    hi, lo = p.max(), p.min()
    if hi > 1:
        raise InputError(f"{name} contains values greater than 1 (maximum {hi!r}); "
                         "probabilities must lie in [0, 1]")
    if lo < 0:
        raise InputError(f"{name} contains values less than 0 (minimum {lo!r}); "
                         "probabilities must lie in [0, 1]")


def _proba_array(y_proba: Any) -> tuple[np.ndarray, float]:
    """``y_proba`` as float64 (a single column as 1-D) and the tolerance of its row
    sums (:func:`proba_tolerance`, from the dtype it came in)."""
    raw = to_numpy(y_proba, name="y_proba")
    p = as_float_array(raw, name="y_proba", ndim=(1, 2))
    return (p[:, 0] if p.ndim == 2 and p.shape[1] == 1 else p), proba_tolerance(raw)


def proba_tolerance(raw: Any) -> float:
    """How far a row sum of probabilities ``raw`` may stray from 1: scikit-learn's
    ``isclose(rtol=sqrt(eps))`` bound with the ``eps`` of a float input's own dtype
    (float16, float32), float64's for every other input."""
    dtype = getattr(raw, "dtype", None)
    if dtype is not None and dtype.kind == "f" and dtype.itemsize < 8:
        return 1e-8 + math.sqrt(float(np.finfo(dtype).eps))
    return _SUM_TOLERANCE


def _encode_with_labels(y_true: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    """(classes, codes): classes are the sorted ``labels`` if given, else of ``y_true``."""
    enc = encode_labels(("y_true", y_true))
    labels = check_labels_argument(labels)
    if labels is None:
        classes, codes = enc.classes, enc.codes[0]
        if classes.shape[0] == 1:
            raise InputError(f"y_true contains only one label ({classes[0]!r}). Please "
                             "provide the list of all expected class labels explicitly "
                             "through the labels argument.")
        return classes, codes
    classes = np.unique(labels)
    if not np.array_equal(classes, labels):
        warnings.warn(f"Labels passed were {labels.tolist()!r}. But this function assumes "
                      "labels are ordered lexicographically. Pass the ordered "
                      f"labels={classes.tolist()!r} and ensure that the columns of "
                      "y_proba correspond to this ordering.", UserWarning, stacklevel=4)
    if is_string_labels(enc.classes) != is_string_labels(classes):
        raise InputTypeError("labels and y_true must both be strings or both be numbers")
    idx = np.clip(np.searchsorted(classes, enc.classes), 0, classes.shape[0] - 1)
    unknown = classes[idx] != enc.classes
    if unknown.any():
        raise InputError(f"y_true contains values {enc.classes[unknown].tolist()!r} not "
                         f"belonging to the passed labels {labels.tolist()!r}.")
    if classes.shape[0] == 1:
        raise InputError(f"The labels array needs to contain at least two labels, got "
                         f"{classes.tolist()!r}.")
    return classes, idx[enc.codes[0]]


def _multiclass_iv(y_true: Any, p: np.ndarray, tolerance: float, sample_weight: Any,
                   labels: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Codes of y_true, probabilities of shape (n, K) (or (n,) if binary) and weights,
    from the probabilities and tolerance of :func:`_proba_array`."""
    t = label_array(y_true, name="y_true")
    n = check_consistent_length(("y_true", t), ("y_proba", p))
    w = check_sample_weight(sample_weight, n, allow_negative=True, scale_free=True)
    check_range(p, "y_proba")
    classes, codes = _encode_with_labels(t, labels)
    k = classes.shape[0]
    n_columns = 2 if p.ndim == 1 else p.shape[1]
    if n_columns != k:
        where = ("labels" if labels is not None else "y_true")
        raise InputError(f"y_proba has {n_columns} probability column(s) but {where} has "
                         f"{k} classes {classes.tolist()!r}; pass one column per class "
                         "(or a 1-D array of positive-class probabilities for two classes)"
                         + ("" if labels is not None else
                            ", or give all classes through the labels argument"))
    if p.ndim == 2:
        check_proba_rows(p, "y_proba", tolerance)
    return codes, p, w


def _is_indicator(y_true: Any) -> bool:
    shape = getattr(y_true, "shape", None)
    if shape is None and isinstance(y_true, (list, tuple)) and y_true \
            and isinstance(y_true[0], (list, tuple)):
        shape = (len(y_true), len(y_true[0]))
    return shape is not None and len(shape) == 2 and shape[1] > 1


def _indicator_iv(y_true: Any, p: np.ndarray, tolerance: float, sample_weight: Any
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """A 2-D indicator ``y_true`` of the shape of ``y_proba``, as float, and weights."""
    pair = indicator_pair(y_true, y_true)
    assert pair is not None  # the caller saw an indicator
    t = pair[0]
    if t.shape != p.shape:
        raise InputError(f"a 2-D y_true must have the shape of y_proba {p.shape}; got "
                         f"{t.shape}")
    w = check_sample_weight(sample_weight, t.shape[0], allow_negative=True, scale_free=True)
    check_range(p, "y_proba")
    try:
        check_proba_rows(p, "y_proba", tolerance)
    except ValueError as exc:
        raise InputError(f"{exc}; with a 2-D y_true each row of y_proba is one "
                         "distribution over its columns. Independent per-label "
                         "probabilities are scored one column at a time (a binary "
                         "metric per label)") from None
    return t.astype(np.float64), p, w


def check_proba_rows(p: np.ndarray, name: str, tolerance: float = _SUM_TOLERANCE) -> None:
    """Rows of an (n, K) probability matrix must sum to 1 (within the tolerance)."""
    deviation = np.abs(_row_sums(p) - 1.0)
    bad = np.flatnonzero(deviation > tolerance)
    if bad.shape[0]:
        i = int(bad[0])
        raise InputError(f"{name} rows must sum to 1; {bad.shape[0]} row(s) do not "
                         f"(e.g. row {i} sums to {float(p[i].sum())!r})")


def _weight_sum(w: np.ndarray) -> float:
    total = float(w.sum(dtype=np.float64))  # an integer sum could wrap around
    if total <= 0:
        raise InputError("sample_weight sums to zero; at least one sample needs a "
                         "positive weight")
    return total


def _row_sums(p: np.ndarray) -> np.ndarray:
    # a reduction along a short contiguous axis is slow in numpy: add columns instead
    if p.shape[1] > 16:
        return p.sum(axis=1)
    total = p[:, 0].copy()
    for c in range(1, p.shape[1]):
        total += p[:, c]
    return total


def _check_base(base: Any) -> float:
    if isinstance(base, bool) or not isinstance(base, numbers.Real) or not float(base) > 0 \
            or base == 1 or not math.isfinite(base):
        raise InputError(f"base must be a positive number other than 1 (e, 2 or 10); "
                         f"got {base!r}")
    return float(base)


@documented(
    returns="float\n    The mean (or, with ``normalize=False``, summed) negative "
            "log-likelihood.",
)
def log_loss(y_true: ArrayLike, y_proba: ArrayLike | None = None, *, normalize: bool = True,
             sample_weight: ArrayLike | None = None, labels: ArrayLike | None = None, y_pred: Any = "deprecated",
             base: float = math.e) -> float:
    """Log loss (cross-entropy) ``-(1/n) sum_i log_b p_i[y_i]``.

    Drop-in for ``sklearn.metrics.log_loss``, plus ``base``. Probabilities are
    clipped to ``[eps, 1 - eps]`` (float64 eps) so the loss stays finite.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels, or a 0/1 indicator array with one column per class (as
        scikit-learn, a sample with several 1s adds ``-log p`` of each).
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities; 1-D means the probability of the larger label
        of a binary problem. Columns follow the sorted classes. Rows sum to 1.
    normalize : bool, default=True
        Mean (True) or sum (False) of the per-sample losses.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each sample; None weighs every sample one.
    labels : array-like, optional
        All class labels, when ``y_true`` lacks some.
    y_pred : array-like, deprecated
        Old name of ``y_proba`` (as in scikit-learn 1.9).
    base : float, default=e
        Base of the logarithm: e (nats), 2 (bits) or 10.

    Examples
    --------
    The base-10 table of y = [1, 1, 0, 0], p = [0.9, 0.6, 0.1, 0.4] has terms
    0.0458, 0.2218, 0.0458, 0.2218, mean 0.1338:

    >>> round(log_loss([1, 1, 0, 0], [0.9, 0.6, 0.1, 0.4], base=10), 4)
    0.1338
    """
    normalize = check_bool(normalize, "normalize")
    y_proba = renamed_y_proba(y_pred, y_proba)
    losses, w = log_loss_terms(y_true, y_proba, sample_weight=sample_weight, labels=labels,
                               base=base)
    if w is None:
        total = losses.sum()
        return float(total / losses.shape[0] if normalize else total)
    total = vdot(losses, w.astype(np.float64, copy=False))
    return float(total / _weight_sum(w) if normalize else total)


def renamed_y_proba(y_pred: ArrayLike, y_proba: ArrayLike | None) -> Any:
    """scikit-learn 1.9's rename of ``y_pred`` to ``y_proba`` (log loss and its D^2): the
    old name still works, with scikit-learn's FutureWarning; both given is an error."""
    if isinstance(y_pred, str) and y_pred == "deprecated":
        return y_proba
    if y_proba is not None:
        raise InputError("Cannot use both `y_pred` and `y_proba`. `y_pred` is "
                         "deprecated, use `y_proba` instead.")
    warnings.warn("`y_pred` was renamed to `y_proba` in version 1.9 and will be "
                  "removed in 1.11. Use `y_proba` instead.", FutureWarning, stacklevel=3)
    return y_pred


def log_loss_terms(y_true: ArrayLike, y_proba: ArrayLike, *, sample_weight: ArrayLike | None = None,
                   labels: ArrayLike | None = None, base: float = math.e
                   ) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-sample log losses ``-log_b p_i[y_i]`` and the checked sample weights.

    The one implementation behind :func:`log_loss`; paired tests between models
    reuse it so that their per-sample terms are the metric's own.
    """
    base = _check_base(base)
    if _is_indicator(y_true):
        return _indicator_log_loss(y_true, y_proba, sample_weight, labels, base)
    codes, p, w = _multiclass_iv(y_true, *_proba_array(y_proba), sample_weight, labels)
    if p.ndim == 1:
        picked = np.where(codes == 1, p, 1.0 - p)
    else:
        picked = p[np.arange(p.shape[0]), codes]
    np.clip(picked, _EPS, 1.0 - _EPS, out=picked)
    losses = np.log(picked, out=picked)
    losses *= -1.0 / math.log(base)
    return losses, w


def _indicator_log_loss(y_true: Any, y_proba: Any, sample_weight: Any, labels: Any,
                        base: float) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-sample ``-sum_c y_ic log_b p_ic`` of a 2-D 0/1 ``y_true``.

    scikit-learn 1.9 takes such a ``y_true`` as one column per class (its
    LabelBinarizer passes it through), so a sample with several labels adds the
    losses of each; ``labels`` are then an error, as there.
    """
    if labels is not None:
        raise InputError("labels cannot be used with a multilabel-indicator y_true: its "
                         "columns are the classes")
    t, p, w = _indicator_iv(y_true, *_proba_array(y_proba), sample_weight)
    clipped = np.clip(p, _EPS, 1.0 - _EPS)
    losses = -np.einsum("ij,ij->i", t, np.log(clipped))
    losses /= math.log(base)
    return losses, w


def _binary_outcome(y_true: np.ndarray, pos_label: Any, refuse_absent: bool = False
                    ) -> np.ndarray:
    """0/1 indicator of the positive class (scikit-learn's backward-compatible rule;
    ``refuse_absent``: dartboard's rule for a ``pos_label`` that is not a class)."""
    enc = encode_labels(("y_true", y_true))
    if enc.n_classes > 2:
        raise InputError(f"y_true has {enc.n_classes} classes but y_proba is 1-D "
                         "(binary); pass an (n_samples, n_classes) array of probabilities")
    code = positive_index(enc.classes, pos_label, infer="numbers", refuse_absent=refuse_absent)
    return (enc.codes[0] == code).astype(np.float64)


@documented(
    returns="float\n    The mean squared difference between probability and outcome.",
)
def brier_score_loss(y_true: ArrayLike, y_proba: ArrayLike, *, sample_weight: ArrayLike | None = None,
                     pos_label: Any = None, labels: ArrayLike | None = None,
                     scale_by_half: Any = "auto") -> float:
    """Brier score: mean squared difference between one-hot outcomes and probabilities.

    ``BS = (1/n) sum_i sum_c (o_ic - p_ic)^2``, multiplied by 1/2 when
    ``scale_by_half`` (``"auto"``: for binary problems, where it then equals the
    classic ``mean (o_i - p_i)^2`` of the positive class). Drop-in for
    ``sklearn.metrics.brier_score_loss`` (1.9).

    Parameters
    ----------
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        1-D: probability of ``pos_label`` (default 1 for {0, 1}/{-1, 1} labels,
        otherwise the larger numeric label). 2-D: one column per sorted class.
    labels : array-like, optional
        All class labels (2-D ``y_proba`` only).
    scale_by_half : bool or "auto", default="auto"
        Whether to multiply the score by 1/2; ``"auto"`` does for binary problems, where
        the score is then the classic ``mean (o_i - p_i)^2``.

    Examples
    --------
    >>> round(brier_score_loss([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]), 4)
    0.0375
    """
    per_sample, w = brier_terms(y_true, y_proba, sample_weight=sample_weight,
                                pos_label=pos_label, labels=labels,
                                scale_by_half=scale_by_half)
    if w is None:
        return float(per_sample.mean())
    return float(vdot(per_sample, w.astype(np.float64, copy=False)) / _weight_sum(w))


def brier_terms(y_true: ArrayLike, y_proba: ArrayLike, *, sample_weight: ArrayLike | None = None,
                pos_label: Any = None, labels: ArrayLike | None = None, scale_by_half: Any = "auto"
                ) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-sample Brier terms (already scaled) and the checked sample weights.

    The one implementation behind :func:`brier_score_loss`; paired tests between
    models reuse it.
    """
    if not (scale_by_half == "auto" or isinstance(scale_by_half, (bool, np.bool_))):
        raise InputError(f"scale_by_half must be 'auto', True or False; got "
                         f"{scale_by_half!r}")
    p, tolerance = _proba_array(y_proba)
    if p.ndim == 1:
        t = label_array(y_true, name="y_true")
        n = check_consistent_length(("y_true", t), ("y_proba", p))
        w = check_sample_weight(sample_weight, n, allow_negative=True, scale_free=True)
        check_range(p, "y_proba")
        outcome = _binary_outcome(t, pos_label)
        outcome -= p
        per_sample = 2.0 * np.square(outcome, out=outcome)
        n_columns = 2
    elif _is_indicator(y_true):
        # a 2-D 0/1 y_true is already one column per class (scikit-learn 1.9 takes it
        # so): the squared distance of each row of y_proba to its row
        t, p, w = _indicator_iv(y_true, p, tolerance, sample_weight)
        diff = p - t
        per_sample = np.einsum("ij,ij->i", diff, diff)
        n_columns = p.shape[1]
    else:
        codes, p, w = _multiclass_iv(y_true, p, tolerance, sample_weight, labels)
        diff = p.copy()
        diff[np.arange(p.shape[0]), codes] -= 1.0
        per_sample = np.einsum("ij,ij->i", diff, diff)
        n_columns = p.shape[1]
    if scale_by_half == "auto":
        scale_by_half = n_columns < 3
    if scale_by_half:
        per_sample *= 0.5
    return per_sample, w
