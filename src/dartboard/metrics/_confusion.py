"""The count family: every metric that is a function of the confusion matrix.

All of them are computed from one :class:`ConfusionCounts` state, built with a
single counting pass over the (true, predicted) label pairs (see
:func:`dartboard._labels.count_label_pairs`). The state is mergeable, so
bootstrap intervals, permutation tests, streaming and Dask evaluation reuse it.

Conventions (as scikit-learn): rows of the confusion matrix are true classes,
columns predicted classes. One-vs-all counts for class ``i`` are
``TP_i = C[i, i]``, ``FP_i = sum_j C[j, i] - TP_i``, ``FN_i = sum_j C[i, j] - TP_i``
and ``TN_i = N - TP_i - FP_i - FN_i``. ``average`` is ``"binary"`` (the
``pos_label`` class only), ``"micro"`` (the ratio of the summed counts),
``"macro"`` (unweighted mean over classes), ``"weighted"`` (mean weighted by the
number of true samples of each class) or ``None`` (one value per class).
A ratio whose denominator is zero takes ``zero_division`` (``"warn"`` gives 0.0
and an :class:`UndefinedMetricWarning`).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from dartboard._labels import count_label_pairs
from dartboard._validation import (
    check_consistent_length,
    check_labels_argument,
    check_option,
    check_sample_weight,
    check_zero_division,
    label_array,
)
from dartboard.metrics._state import check_same_kind, resolve_metric

__all__ = [
    "ConfusionCounts",
    "UndefinedMetricWarning",
    "accuracy_score",
    "balanced_accuracy_score",
    "classification_report",
    "cohen_kappa_score",
    "confusion_matrix",
    "f1_score",
    "false_negative_rate",
    "false_positive_rate",
    "fbeta_score",
    "matthews_corrcoef",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "selection_rate",
    "specificity_score",
]

_AVERAGES = ("binary", "micro", "macro", "weighted", None)


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined (0/0) and was replaced by ``zero_division``."""


class ConfusionCounts:
    """Mergeable confusion-count state: sorted ``classes`` and a K x K ``matrix``.

    ``matrix[i, j]`` is the number (or total sample weight) of samples whose true
    class is ``classes[i]`` and whose predicted class is ``classes[j]``.

    Parameters
    ----------
    classes : array-like of shape (K,), optional
        Sorted distinct labels. Empty when omitted.
    matrix : array-like of shape (K, K), optional
        Counts; zeros when omitted.

    Examples
    --------
    >>> state = ConfusionCounts.from_predictions([0, 1, 1, 0], [0, 1, 0, 0])
    >>> state.matrix
    array([[2, 0],
           [1, 1]])
    >>> state.update([1], [1]).compute("recall_score")
    0.6666666666666666
    """

    __slots__ = ("classes", "matrix")

    def __init__(self, classes: Any = None, matrix: Any = None) -> None:
        classes = np.asarray([] if classes is None else classes)
        k = classes.shape[0]
        matrix = np.zeros((k, k), dtype=np.int64) if matrix is None else np.asarray(matrix)
        if matrix.shape != (k, k):
            raise ValueError(f"matrix must have shape ({k}, {k}) to match classes; got "
                             f"{matrix.shape}")
        if k > 1 and not np.all(classes[1:] > classes[:-1]):
            raise ValueError("classes must be sorted and distinct")
        self.classes = classes
        self.matrix = matrix

    # ---------------------------------------------------------------- building
    @classmethod
    def from_predictions(cls, y_true: Any, y_pred: Any, *, labels: Any = None,
                         sample_weight: Any = None,
                         names: tuple[str, str] = ("y_true", "y_pred")) -> ConfusionCounts:
        """Count the label pairs of ``y_true`` and ``y_pred``.

        ``labels`` adds classes absent from the data (with zero counts); it does
        not drop samples (the metric functions select classes afterwards).
        ``names`` are the argument names used in error messages.
        """
        t = label_array(y_true, name=names[0])
        p = label_array(y_pred, name=names[1])
        n = check_consistent_length((names[0], t), (names[1], p))
        w = check_sample_weight(sample_weight, n)
        classes, matrix = count_label_pairs(t, p, w, names=names)
        state = cls(classes, matrix)
        labels = check_labels_argument(labels)
        return state if labels is None else state.with_classes(labels)

    def update(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> ConfusionCounts:
        """Add a batch of predictions in place and return ``self``."""
        merged = self.merge(ConfusionCounts.from_predictions(y_true, y_pred,
                                                             sample_weight=sample_weight))
        self.classes, self.matrix = merged.classes, merged.matrix
        return self

    def merge(self, other: ConfusionCounts) -> ConfusionCounts:
        """Return a new state holding the counts of both (classes are united)."""
        check_same_kind(self, other)
        if other.classes.shape[0] == 0:
            return ConfusionCounts(self.classes, self.matrix.copy())
        if self.classes.shape[0] == 0:
            return ConfusionCounts(other.classes, other.matrix.copy())
        out = self.with_classes(other.classes)
        dtype = np.result_type(out.matrix, other.matrix)  # counts + weights -> float
        if out.matrix.dtype != dtype:
            out.matrix = out.matrix.astype(dtype)
        idx = np.searchsorted(out.classes, other.classes)
        out.matrix[np.ix_(idx, idx)] += other.matrix
        return out

    def with_classes(self, labels: Any) -> ConfusionCounts:
        """Return a copy whose classes include ``labels`` (new ones with zero counts)."""
        labels = np.asarray(labels)
        if labels.shape[0] and self.classes.shape[0]:
            _check_same_label_type(self.classes, labels)
        classes = np.union1d(self.classes, labels) if self.classes.shape[0] else np.unique(labels)
        if self.classes.dtype.kind in "biuf" and classes.dtype.kind == "f" \
                and self.classes.dtype.kind != "f":
            classes = classes.astype(self.classes.dtype) if np.all(np.mod(classes, 1) == 0) \
                else classes
        k = classes.shape[0]
        dtype = self.matrix.dtype if self.matrix.size else np.int64
        matrix = np.zeros((k, k), dtype=dtype)
        if self.classes.shape[0]:
            idx = np.searchsorted(classes, self.classes)
            matrix[np.ix_(idx, idx)] = self.matrix
        return ConfusionCounts(classes, matrix)

    # ---------------------------------------------------------------- reading
    @property
    def n_classes(self) -> int:
        return int(self.classes.shape[0])

    @property
    def total(self) -> float:
        """Number of samples (or total sample weight)."""
        return self.matrix.sum()

    def index_of(self, labels: Any, *, name: str = "labels") -> np.ndarray:
        """Positions of ``labels`` in ``classes``; unknown labels raise."""
        labels = np.asarray(labels)
        _check_same_label_type(self.classes, labels, name=name)
        idx = np.searchsorted(self.classes, labels)
        idx = np.clip(idx, 0, max(self.n_classes - 1, 0))
        bad = self.classes[idx] != labels if self.n_classes else np.ones(labels.shape, bool)
        if np.any(bad):
            raise ValueError(f"{name} {labels[bad].tolist()!r} not among the classes "
                             f"{self.classes.tolist()!r}")
        return idx

    def one_vs_all(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per-class (TP, FP, FN, TN) arrays, each of shape (K,)."""
        m = self.matrix
        tp = np.diagonal(m).copy()
        fp = m.sum(axis=0) - tp
        fn = m.sum(axis=1) - tp
        tn = m.sum() - tp - fp - fn
        return tp, fp, fn, tn

    def compute(self, metric: str | Callable[..., Any], **kwargs: Any) -> Any:
        """Compute a count metric from this state, e.g. ``compute("f1_score", average="macro")``.

        ``metric`` is the name (or the function) of any dartboard count metric;
        keywords are those of the metric function, without the data arguments.
        """
        return resolve_metric(_FROM_COUNTS, metric)(self, **kwargs)

    def error_bound(self, metric: str | Callable[..., Any]) -> float:
        """0.0: counts are exact, so is every metric computed from them."""
        resolve_metric(_FROM_COUNTS, metric)
        return 0.0

    def __repr__(self) -> str:
        return (f"ConfusionCounts(classes={self.classes.tolist()!r}, "
                f"matrix={self.matrix.tolist()!r})")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ConfusionCounts)
                and np.array_equal(self.classes, other.classes)
                and np.array_equal(self.matrix, other.matrix))

    __hash__ = None  # type: ignore[assignment]  # mutable state


def _check_same_label_type(classes: np.ndarray, labels: np.ndarray, *,
                           name: str = "labels") -> None:
    def is_str(a: np.ndarray) -> bool:
        return a.dtype.kind in "US" or (a.dtype.kind == "O" and a.size > 0
                                        and isinstance(a.flat[0], str))
    if classes.size and labels.size and is_str(classes) != is_str(labels):
        kind = "strings" if is_str(labels) else "numbers"
        data = "strings" if is_str(classes) else "numbers"
        raise TypeError(f"{name} are {kind} but the class labels in the data are {data}")


def _counts(y_true: Any, y_pred: Any, sample_weight: Any, labels: Any = None,
            names: tuple[str, str] = ("y_true", "y_pred")) -> ConfusionCounts:
    state = ConfusionCounts.from_predictions(y_true, y_pred, labels=labels,
                                             sample_weight=sample_weight, names=names)
    if sample_weight is not None and not state.total:
        _all_zero_weights()
    return state


def _all_zero_weights() -> None:
    # a metric of no weighted samples is meaningless; scikit-learn raises too
    raise ValueError("sample_weight must contain at least one positive weight; got all "
                     "zeros")


# ------------------------------------------------------------------ helpers

def _divide(num: np.ndarray, den: np.ndarray, metric: str, modifier: str,
            average: str | None, zero_division: Any, warn: bool) -> np.ndarray:
    """num / den with den == 0 replaced by ``zero_division`` (and a warning)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    mask = den == 0
    out = num / np.where(mask, 1.0, den)
    if not mask.any():
        return out
    out[mask] = 0.0 if zero_division == "warn" else zero_division
    if zero_division == "warn" and warn:
        where = "due to" if out.shape[0] == 1 else "in labels with"
        warnings.warn(f"{metric} is ill-defined and being set to 0.0 {where} no {modifier} "
                      "samples. Use `zero_division` parameter to control this behavior.",
                      UndefinedMetricWarning, stacklevel=4)
    return out


def _nanaverage(values: np.ndarray, weights: np.ndarray | None) -> float:
    """Weighted mean ignoring NaN; all-zero weights fall back to the plain mean."""
    if values.shape[0] == 0:
        return float("nan")
    keep = ~np.isnan(values)
    if not keep.any():
        return float("nan")
    values = values[keep]
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64)[keep]
        if weights.sum() > 0:
            return float(np.average(values, weights=weights))
    return float(values.mean())


def _select_labels(state: ConfusionCounts, average: str | None, labels: Any,
                   pos_label: Any) -> ConfusionCounts | np.ndarray:
    """Class positions a set-wise metric reports on (scikit-learn's rules)."""
    check_option(average, "average", _AVERAGES)
    if average == "binary":
        if state.n_classes > 2:
            raise ValueError(f"Target is multiclass ({state.n_classes} classes: "
                             f"{state.classes.tolist()!r}) but average='binary'. Please "
                             "choose another average setting, one of "
                             "[None, 'micro', 'macro', 'weighted'].")
        present = state.classes
        _check_same_label_type(present, np.asarray([pos_label]), name="pos_label")
        if pos_label not in present.tolist():
            if state.n_classes >= 2:
                raise ValueError(f"pos_label={pos_label!r} is not a valid label. It should "
                                 f"be one of {present.tolist()!r}")
            return np.array([-1])  # pos_label absent from the data: all counts are 0
        return state.index_of([pos_label], name="pos_label")
    if pos_label not in (None, 1):
        warnings.warn(f"Note that pos_label (set to {pos_label!r}) is ignored when average "
                      f"!= 'binary' (got {average!r}). You may use labels=[pos_label] to "
                      "specify a single positive class.", UserWarning, stacklevel=4)
    if labels is None:
        return np.arange(state.n_classes)
    return state.index_of(labels)


def _set_counts(state: ConfusionCounts, average: str | None, labels: Any,
                pos_label: Any) -> tuple[np.ndarray, ...]:
    """(TP, FP, FN, TN) of the selected classes, summed when ``average='micro'``.

    Listed ``labels`` absent from the data count as classes with all-zero counts
    (as scikit-learn).
    """
    if labels is not None and average != "binary":
        labels = check_labels_argument(labels)
        missing = ~np.isin(labels, state.classes) if state.n_classes else \
            np.ones(labels.shape[0], dtype=bool)
        if missing.any():
            state = state.with_classes(labels[missing])
    idx = _select_labels(state, average, labels, pos_label)
    tp, fp, fn, tn = state.one_vs_all()
    if idx.shape == (1,) and idx[0] == -1:
        zero = np.zeros(1, dtype=tp.dtype)
        counts = (zero, zero, zero, np.asarray([state.total]))
    else:
        counts = (tp[idx], fp[idx], fn[idx], tn[idx])
    if average == "micro":
        counts = tuple(np.asarray([c.sum()]) for c in counts)
    return counts


def _average(values: np.ndarray, average: str | None, support: np.ndarray) -> Any:
    if average is None:
        return values
    return _nanaverage(values, support if average == "weighted" else None)


def _check_beta(beta: Any) -> float:
    """F-beta's beta: a non-negative number (inf allowed: recall)."""
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
        raise TypeError(f"beta must be a non-negative number; got {beta!r}")
    if np.isnan(beta) or beta < 0:
        raise ValueError(f"beta must be a non-negative number; got {beta!r}")
    return float(beta)


def _prfs(state: ConfusionCounts, *, beta: float = 1.0, labels: Any = None,
          pos_label: Any = 1, average: str | None = None,
          warn_for: tuple[str, ...] = ("precision", "recall", "f-score"),
          zero_division: Any = "warn") -> tuple[Any, Any, Any, Any]:
    zero_division = check_zero_division(zero_division)
    beta = _check_beta(beta)
    tp, fp, fn, _ = _set_counts(state, average, labels, pos_label)
    pred_sum, true_sum = tp + fp, tp + fn
    precision = _divide(tp, pred_sum, "Precision", "predicted", average, zero_division,
                        "precision" in warn_for)
    recall = _divide(tp, true_sum, "Recall", "true", average, zero_division,
                     "recall" in warn_for)
    if np.isposinf(beta):
        f_score = recall
    elif beta == 0:
        f_score = precision
    else:
        beta2 = beta * beta
        f_score = _divide((1 + beta2) * tp.astype(np.float64),
                          beta2 * true_sum.astype(np.float64) + pred_sum, "F-score",
                          "true nor predicted", average, zero_division, "f-score" in warn_for)
    if average is None:
        return precision, recall, f_score, true_sum
    return (_average(precision, average, true_sum), _average(recall, average, true_sum),
            _average(f_score, average, true_sum), None)


def _ratio(state: ConfusionCounts, numerator: str, denominator: tuple[str, ...],
           metric: str, modifier: str, *, labels: Any = None, pos_label: Any = 1,
           average: str | None = "binary", zero_division: Any = "warn") -> Any:
    """A one-vs-all ratio count[numerator] / sum(count[d] for d in denominator)."""
    zero_division = check_zero_division(zero_division)
    tp, fp, fn, tn = _set_counts(state, average, labels, pos_label)
    counts = {"tp": tp, "fp": fp, "fn": fn, "tn": tn}
    num = counts[numerator]
    den = sum(counts[d] for d in denominator)
    values = _divide(num, den, metric, modifier, average, zero_division, True)
    return _average(values, average, tp + fn)


# ------------------------------------------------------------------ from counts

def _confusion_matrix_from(state: ConfusionCounts, *, labels: Any = None,
                           normalize: str | None = None,
                           true_name: str = "y_true") -> np.ndarray:
    check_option(normalize, "normalize", ("true", "pred", "all", None))
    if labels is None:
        cm = state.matrix
    else:
        labels = check_labels_argument(labels)
        _check_same_label_type(state.classes, labels)
        known = np.isin(labels, state.classes)
        in_true = state.classes[state.matrix.sum(axis=1) > 0]
        if state.n_classes and not np.isin(labels, in_true).any():
            raise ValueError(f"At least one label specified must be in {true_name}; "
                             f"got labels {labels.tolist()!r}")
        state = state.with_classes(labels[~known]) if (~known).any() else state
        idx = state.index_of(labels)
        cm = state.matrix[np.ix_(idx, idx)]
    if normalize is None:
        return cm.copy()
    cm = cm.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        if normalize == "true":
            cm = cm / cm.sum(axis=1, keepdims=True)
        elif normalize == "pred":
            cm = cm / cm.sum(axis=0, keepdims=True)
        else:
            cm = cm / cm.sum()
    return np.nan_to_num(cm)


def _accuracy_from(state: ConfusionCounts, *, normalize: bool = True) -> float:
    correct = np.trace(state.matrix)
    if not normalize:
        return float(correct)
    if not state.total:
        warnings.warn("accuracy of a state with no samples is undefined; returning nan",
                      UndefinedMetricWarning, stacklevel=3)
        return float("nan")
    return float(correct / state.total)


def _precision_from(state: ConfusionCounts, *, labels: Any = None, pos_label: Any = 1,
                    average: str | None = "binary", zero_division: Any = "warn") -> Any:
    return _prfs(state, labels=labels, pos_label=pos_label, average=average,
                 warn_for=("precision",), zero_division=zero_division)[0]


def _recall_from(state: ConfusionCounts, *, labels: Any = None, pos_label: Any = 1,
                 average: str | None = "binary", zero_division: Any = "warn") -> Any:
    return _prfs(state, labels=labels, pos_label=pos_label, average=average,
                 warn_for=("recall",), zero_division=zero_division)[1]


def _fbeta_from(state: ConfusionCounts, *, beta: float, labels: Any = None,
                pos_label: Any = 1, average: str | None = "binary",
                zero_division: Any = "warn") -> Any:
    return _prfs(state, beta=beta, labels=labels, pos_label=pos_label, average=average,
                 warn_for=("f-score",), zero_division=zero_division)[2]


def _f1_from(state: ConfusionCounts, **kwargs: Any) -> Any:
    return _fbeta_from(state, beta=1.0, **kwargs)


def _specificity_from(state: ConfusionCounts, **kwargs: Any) -> Any:
    return _ratio(state, "tn", ("tn", "fp"), "Specificity", "negative", **kwargs)


def _fpr_from(state: ConfusionCounts, **kwargs: Any) -> Any:
    return _ratio(state, "fp", ("fp", "tn"), "False positive rate", "negative", **kwargs)


def _fnr_from(state: ConfusionCounts, **kwargs: Any) -> Any:
    return _ratio(state, "fn", ("fn", "tp"), "False negative rate", "true", **kwargs)


def _selection(state: ConfusionCounts, *, labels: Any = None, pos_label: Any = 1,
               average: str | None = "binary", zero_division: Any = "warn") -> Any:
    zero_division = check_zero_division(zero_division)
    tp, fp, fn, tn = _set_counts(state, average, labels, pos_label)
    values = _divide(tp + fp, tp + fp + fn + tn, "Selection rate", "", average,
                     zero_division, True)
    return _average(values, average, tp + fn)


def _mcc_from(state: ConfusionCounts) -> float:
    c = state.matrix
    t_sum = c.sum(axis=1, dtype=np.float64)
    p_sum = c.sum(axis=0, dtype=np.float64)
    n_correct = np.trace(c, dtype=np.float64)
    n = p_sum.sum()
    cov_ytyp = n_correct * n - np.dot(t_sum, p_sum)
    cov_ypyp = n * n - np.dot(p_sum, p_sum)
    cov_ytyt = n * n - np.dot(t_sum, t_sum)
    if cov_ypyp * cov_ytyt == 0:
        return 0.0
    return float(cov_ytyp / np.sqrt(cov_ytyt * cov_ypyp))


def _balanced_accuracy_from(state: ConfusionCounts, *, adjusted: bool = False) -> float:
    c = state.matrix
    support = c.sum(axis=1)
    present = support > 0
    if not present.any():
        warnings.warn("balanced accuracy of a state with no samples is undefined; "
                      "returning nan", UndefinedMetricWarning, stacklevel=3)
        return float("nan")
    if not present.all():
        warnings.warn("y_pred contains classes not in y_true", UserWarning, stacklevel=3)
    per_class = np.diagonal(c)[present] / support[present]
    score = float(per_class.mean())
    if adjusted:
        if per_class.shape[0] == 1:
            warnings.warn("adjusted balanced accuracy is undefined with a single class in "
                          "y_true (chance level equals the maximum); returning nan",
                          UndefinedMetricWarning, stacklevel=3)
            return float("nan")
        chance = 1.0 / per_class.shape[0]
        score = (score - chance) / (1.0 - chance)
    return score


def _cohen_kappa_from(state: ConfusionCounts, *, labels: Any = None, weights: str | None = None,
                      replace_undefined_by: float = np.nan) -> float:
    check_option(weights, "weights", (None, "linear", "quadratic"))
    c = _confusion_matrix_from(state, labels=labels, true_name="y1").astype(np.float64)
    k = c.shape[0]
    sum0, sum1 = c.sum(axis=0), c.sum(axis=1)
    total = sum0.sum()
    if total == 0:
        warnings.warn("`y2` contains no labels that are present in both `y1` and `labels`. "
                      "`cohen_kappa_score` is undefined and set to the value defined by the "
                      f"`replace_undefined_by` param, which is set to {replace_undefined_by}.",
                      UndefinedMetricWarning, stacklevel=3)
        return replace_undefined_by
    expected = np.outer(sum0, sum1) / total
    grid = np.arange(k, dtype=np.float64)
    if weights is None:
        w = 1.0 - np.eye(k)
    elif weights == "linear":
        w = np.abs(grid[:, None] - grid[None, :])
    else:
        w = (grid[:, None] - grid[None, :]) ** 2
    den = np.sum(w * expected)
    if den == 0:
        warnings.warn("`y1`, `y2` and `labels` have only one label in common. "
                      "`cohen_kappa_score` is undefined and set to the value defined by the "
                      f"`replace_undefined_by` param, which is set to {replace_undefined_by}.",
                      UndefinedMetricWarning, stacklevel=3)
        return replace_undefined_by
    return float(1.0 - np.sum(w * c) / den)


_FROM_COUNTS: dict[str, Callable[..., Any]] = {
    "confusion_matrix": _confusion_matrix_from,
    "accuracy_score": _accuracy_from,
    "precision_score": _precision_from,
    "recall_score": _recall_from,
    "f1_score": _f1_from,
    "fbeta_score": _fbeta_from,
    "specificity_score": _specificity_from,
    "false_positive_rate": _fpr_from,
    "false_negative_rate": _fnr_from,
    "selection_rate": _selection,
    "matthews_corrcoef": _mcc_from,
    "balanced_accuracy_score": _balanced_accuracy_from,
    "cohen_kappa_score": _cohen_kappa_from,
}


# ------------------------------------------------------------------ public functions

def confusion_matrix(y_true: Any, y_pred: Any, *, labels: Any = None,
                     sample_weight: Any = None, normalize: str | None = None) -> np.ndarray:
    """Confusion matrix ``C[i, j]``: samples of true class i predicted as class j.

    Drop-in for :func:`sklearn.metrics.confusion_matrix`.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted class labels.
    labels : array-like of shape (n_classes,), optional
        Classes to index the matrix by, in this order; samples whose true or
        predicted label is not listed are left out. Default: the sorted labels
        present in either array.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; the matrix then holds weight sums.
    normalize : {"true", "pred", "all"}, optional
        Divide by row sums, column sums or the total (0/0 gives 0).

    Returns
    -------
    ndarray of shape (n_classes, n_classes)
        int64 counts (float64 with float weights or ``normalize``).

    Examples
    --------
    >>> confusion_matrix(["cat", "dog", "dog"], ["cat", "cat", "dog"])
    array([[1, 0],
           [1, 1]])
    """
    return _confusion_matrix_from(_counts(y_true, y_pred, sample_weight), labels=labels,
                                  normalize=normalize)


def accuracy_score(y_true: Any, y_pred: Any, *, normalize: bool = True,
                   sample_weight: Any = None) -> float:
    """Fraction (or, with ``normalize=False``, number) of correctly classified samples.

    ``accuracy = (TP + TN) / N``, the trace of the confusion matrix over its total.
    Drop-in for :func:`sklearn.metrics.accuracy_score`.

    Examples
    --------
    >>> accuracy_score([0, 1, 2, 3], [0, 2, 1, 3])
    0.5
    """
    t = label_array(y_true, name="y_true")
    p = label_array(y_pred, name="y_pred")
    n = check_consistent_length(("y_true", t), ("y_pred", p))
    w = check_sample_weight(sample_weight, n)
    if w is not None and not w.sum():
        _all_zero_weights()
    if t.dtype.kind in "biu" and p.dtype.kind in "biu":
        # Accuracy needs only the trace of C: for integer labels, counting the
        # matches directly equals trace(C) / N and skips building C.
        if w is None:
            correct = np.count_nonzero(t == p)
            return float(correct / n) if normalize else float(correct)
        correct = w[t == p].sum()
        return float(correct / w.sum()) if normalize else float(correct)
    # other labels: count the pairs of the arrays checked above (no second validation)
    state = ConfusionCounts(*count_label_pairs(t, p, w))
    return _accuracy_from(state, normalize=normalize)


_AVERAGE_DOC = """
    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted class labels (numbers, booleans or strings).
    labels : array-like, optional
        Classes to report on (and their order when ``average=None``). Counts are
        still taken over all samples.
    pos_label : label, default=1
        The positive class when ``average="binary"``.
    average : {"binary", "micro", "macro", "weighted"} or None, default="binary"
        How per-class values are combined (see the module docstring).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative sample weights.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of a 0/0 ratio; "warn" gives 0.0 and an UndefinedMetricWarning.

    Returns
    -------
    float, or ndarray of shape (n_classes,) when ``average=None``.
"""


def _count_metric(name: str, formula: str, example: str) -> Callable[..., Any]:
    impl = _FROM_COUNTS[name]

    def metric(y_true: Any, y_pred: Any, *, labels: Any = None, pos_label: Any = 1,
               average: str | None = "binary", sample_weight: Any = None,
               zero_division: Any = "warn") -> Any:
        state = _counts(y_true, y_pred, sample_weight)
        return impl(state, labels=labels, pos_label=pos_label, average=average,
                    zero_division=zero_division)

    metric.__name__ = metric.__qualname__ = name
    metric.__doc__ = f"{formula}\n{_AVERAGE_DOC}\n    Examples\n    --------\n{example}"
    return metric


precision_score = _count_metric(
    "precision_score",
    "Precision TP / (TP + FP): the fraction of predicted positives that are positive.\n\n"
    "    Drop-in for :func:`sklearn.metrics.precision_score`.\n",
    "    >>> precision_score([0, 1, 1, 0], [1, 1, 1, 0])\n    0.6666666666666666\n")
recall_score = _count_metric(
    "recall_score",
    "Recall (sensitivity, TPR) TP / (TP + FN): the fraction of positives found.\n\n"
    "    Drop-in for :func:`sklearn.metrics.recall_score`.\n",
    "    >>> recall_score([0, 1, 1, 0], [1, 1, 0, 0])\n    0.5\n")
specificity_score = _count_metric(
    "specificity_score",
    "Specificity (TNR) TN / (TN + FP): the fraction of negatives recognised.\n",
    "    >>> specificity_score([0, 0, 0, 1], [0, 1, 0, 1])\n    0.6666666666666666\n")
false_positive_rate = _count_metric(
    "false_positive_rate",
    "False positive rate FP / (FP + TN) = 1 - specificity.\n",
    "    >>> false_positive_rate([0, 0, 0, 1], [0, 1, 0, 1])\n    0.3333333333333333\n")
false_negative_rate = _count_metric(
    "false_negative_rate",
    "False negative rate FN / (FN + TP) = 1 - recall.\n",
    "    >>> false_negative_rate([1, 1, 1, 0], [1, 0, 0, 0])\n    0.6666666666666666\n")
selection_rate = _count_metric(
    "selection_rate",
    "Selection rate (TP + FP) / N: the fraction of samples predicted positive.\n\n"
    "    With ``average='micro'`` over K classes this is 1/K by construction.\n",
    "    >>> selection_rate([0, 1, 1, 0], [1, 1, 0, 0])\n    0.5\n")


def f1_score(y_true: Any, y_pred: Any, *, labels: Any = None, pos_label: Any = 1,
             average: str | None = "binary", sample_weight: Any = None,
             zero_division: Any = "warn") -> Any:
    return _f1_from(_counts(y_true, y_pred, sample_weight), labels=labels,
                    pos_label=pos_label, average=average, zero_division=zero_division)


f1_score.__doc__ = (
    "F1 score 2 TP / (2 TP + FP + FN), the harmonic mean of precision and recall.\n\n"
    "    Drop-in for :func:`sklearn.metrics.f1_score`. With no TP, FP or FN it is\n"
    "    undefined and takes ``zero_division``.\n" + _AVERAGE_DOC +
    "\n    Examples\n    --------\n    >>> f1_score([0, 1, 1, 0], [1, 1, 0, 0])\n    0.5\n")


def fbeta_score(y_true: Any, y_pred: Any, *, beta: float, labels: Any = None,
                pos_label: Any = 1, average: str | None = "binary",
                sample_weight: Any = None, zero_division: Any = "warn") -> Any:
    return _fbeta_from(_counts(y_true, y_pred, sample_weight), beta=beta, labels=labels,
                       pos_label=pos_label, average=average, zero_division=zero_division)


fbeta_score.__doc__ = (
    "F-beta score (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP).\n\n"
    "    ``beta`` weighs recall beta times as much as precision (beta=0 gives\n"
    "    precision, beta=inf recall). Drop-in for :func:`sklearn.metrics.fbeta_score`.\n"
    + _AVERAGE_DOC.replace("    Parameters\n    ----------\n",
                           "    Parameters\n    ----------\n    beta : float\n"
                           "        Non-negative weight of recall.\n") +
    "\n    Examples\n    --------\n    >>> fbeta_score([0, 1, 1, 0], [1, 1, 0, 0], beta=2)\n"
    "    0.5\n")


def precision_recall_fscore_support(y_true: Any, y_pred: Any, *, beta: float = 1.0,
                                    labels: Any = None, pos_label: Any = 1,
                                    average: str | None = None,
                                    warn_for: tuple[str, ...] = ("precision", "recall",
                                                                 "f-score"),
                                    sample_weight: Any = None,
                                    zero_division: Any = "warn") -> tuple[Any, Any, Any, Any]:
    """Precision, recall, F-beta and support in one call (support is None if averaged).

    Drop-in for :func:`sklearn.metrics.precision_recall_fscore_support`.

    Examples
    --------
    >>> p, r, f, s = precision_recall_fscore_support([0, 1, 1], [0, 1, 0])
    >>> s
    array([1, 2])
    """
    return _prfs(_counts(y_true, y_pred, sample_weight), beta=beta, labels=labels,
                 pos_label=pos_label, average=average, warn_for=warn_for,
                 zero_division=zero_division)


def matthews_corrcoef(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """Matthews correlation coefficient; Gorodkin's R_K for several classes.

    Binary: ``(TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN))``. A zero
    denominator gives 0.0. Drop-in for :func:`sklearn.metrics.matthews_corrcoef`.

    Examples
    --------
    >>> round(matthews_corrcoef([1, 1, 1, 0], [1, 0, 1, 0]), 4)
    0.5774
    """
    return _mcc_from(_counts(y_true, y_pred, sample_weight))


def balanced_accuracy_score(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                            adjusted: bool = False) -> float:
    """Mean per-class recall; ``adjusted=True`` rescales so that chance is 0.

    Classes present only in ``y_pred`` are left out, with a warning.
    Drop-in for :func:`sklearn.metrics.balanced_accuracy_score`.

    Examples
    --------
    >>> balanced_accuracy_score([0, 1, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1])
    0.625
    """
    return _balanced_accuracy_from(_counts(y_true, y_pred, sample_weight), adjusted=adjusted)


def cohen_kappa_score(y1: Any, y2: Any, *, labels: Any = None, weights: str | None = None,
                      sample_weight: Any = None,
                      replace_undefined_by: float = np.nan) -> float:
    """Cohen's kappa (p_o - p_e) / (1 - p_e), optionally linear/quadratic weighted.

    Undefined kappa (no shared label) gives ``replace_undefined_by`` with an
    :class:`UndefinedMetricWarning`. Drop-in for :func:`sklearn.metrics.cohen_kappa_score`.

    Examples
    --------
    >>> round(cohen_kappa_score([0, 1, 1, 0], [0, 1, 0, 0]), 4)
    0.5
    """
    state = _counts(y1, y2, sample_weight, names=("y1", "y2"))
    return _cohen_kappa_from(state, labels=labels, weights=weights,
                             replace_undefined_by=replace_undefined_by)


def classification_report(y_true: Any, y_pred: Any, *, labels: Any = None,
                          target_names: Any = None, sample_weight: Any = None,
                          digits: int | None = None, zero_division: Any = "warn"):
    """Per-class precision, recall, specificity, F1 and support as a DataFrame.

    Rows: one per class (named by ``target_names`` when given), then ``micro avg``,
    ``macro avg`` and ``weighted avg``. The ``support`` column holds the number
    (or weight) of true samples. ``digits`` rounds the values when given.

    Examples
    --------
    >>> report = classification_report([0, 1, 1, 2], [0, 1, 2, 2], zero_division=0.0)
    >>> report.round(3)  # doctest: +NORMALIZE_WHITESPACE
                  precision  recall  specificity  f1-score  support
    class
    0                 1.000   1.000        1.000     1.000        1
    1                 1.000   0.500        1.000     0.667        2
    2                 0.500   1.000        0.667     0.667        1
    micro avg         0.750   0.750        0.875     0.750        4
    macro avg         0.833   0.833        0.889     0.778        4
    weighted avg      0.875   0.750        0.917     0.750        4
    """
    import pandas as pd

    state = _counts(y_true, y_pred, sample_weight)
    if labels is None:
        labels = state.classes
    else:
        labels = check_labels_argument(labels)
        missing = ~np.isin(labels, state.classes)
        if missing.any():
            state = state.with_classes(labels[missing])
    if target_names is not None:
        target_names = [str(t) for t in target_names]
        if len(target_names) != len(labels):
            raise ValueError(f"target_names must name each of the {len(labels)} labels; got "
                             f"{len(target_names)} names")
    names = target_names if target_names is not None else [str(c) for c in labels]
    kw = dict(labels=labels, zero_division=zero_division)
    p, r, f, support = _prfs(state, average=None, **kw)
    spec = _specificity_from(state, average=None, **kw)
    rows = {"precision": p, "recall": r, "specificity": spec, "f1-score": f}
    frame = pd.DataFrame(rows, index=pd.Index(names, name="class"))
    frame["support"] = support
    for avg in ("micro", "macro", "weighted"):
        pa, ra, fa, _ = _prfs(state, average=avg, **kw)
        sa = _specificity_from(state, average=avg, **kw)
        frame.loc[f"{avg} avg"] = [pa, ra, sa, fa, support.sum()]
    frame["support"] = frame["support"].astype(support.dtype)
    if digits is not None:
        frame[["precision", "recall", "specificity", "f1-score"]] = \
            frame[["precision", "recall", "specificity", "f1-score"]].round(digits)
    return frame
