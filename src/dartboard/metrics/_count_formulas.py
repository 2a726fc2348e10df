"""Every count metric's formula, written once over stacks of confusion matrices.

A stack ``m`` has shape (..., K, K) over sorted ``classes`` (rows true, columns
predicted); ``mask`` (..., K) says which classes are classes of each matrix (None:
those with a sample, found from the counts each formula already has). One
matrix of a :class:`~dartboard.metrics.ConfusionCounts` is the stack of one, every
class of the state a class; a bootstrap or permutation replicate is one matrix of a
stack of R, and a class absent from it (zero row and column) is not one of its
classes unless listed in ``labels`` -- just as counting the labels of the resampled
samples would give.

``single=True`` is the one-matrix case: it warns (scikit-learn's texts) and raises
on data-dependent errors as the metric on samples does. Replicates neither warn nor
raise; with ``undefined="nan"`` (``as_nan``) a replicate on which the metric *as a
whole* is 0/0 under ``zero_division="warn"`` (a binary, micro or one-label ratio)
is nan instead of the stand-in 0.0, and so is an undefined kappa.

Set-wise metrics (those taking ``average``) are a ratio of one-vs-all counts per
class: a proportion declared in the registry (``MetricSpec.proportion``) or the
F-beta formula below; then micro sums the counts, macro and weighted average the
per-class values of the classes present.
"""

from __future__ import annotations

import numbers
import os
import sys
import warnings
from types import FrameType
from typing import Any

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning as _SklearnUndefinedMetricWarning

from dartboard._labels import invalid_pos_label
from dartboard._validation import (
    check_bool,
    check_labels_argument,
    check_option,
    check_zero_division,
)
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["UndefinedMetricWarning", "set_metric", "FORMULAS", "warn_outside"]

AVERAGES = ("binary", "micro", "macro", "weighted", None)
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

# What the samples of a ratio's denominator are called in scikit-learn's warnings.
_SAMPLES = {
    frozenset({"tp", "fp"}): "predicted",
    frozenset({"tp", "fn"}): "true",
    frozenset({"tn", "fp"}): "negative",
    frozenset({"total"}): "",
    frozenset({"tp", "fp", "fn"}): "true or predicted",
}


class UndefinedMetricWarning(_SklearnUndefinedMetricWarning):
    """A metric is undefined (0/0) and was replaced by ``zero_division``.

    A subclass of ``sklearn.exceptions.UndefinedMetricWarning`` (itself a
    ``UserWarning``), so warning filters and ``pytest.warns`` written for
    scikit-learn's metrics catch dartboard's too.

    Examples
    --------
    >>> import warnings
    >>> from dartboard.metrics import precision_score
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     precision_score([0, 1, 1], [0, 0, 0])  # no predicted positive: 0/0
    0.0
    >>> caught[0].category.__name__
    'UndefinedMetricWarning'
    """


def warn_outside(message: str, category: type[Warning] = UndefinedMetricWarning) -> None:
    """Warn at the first frame outside dartboard: the caller's line, however deep the
    call (what Python 3.12's ``skip_file_prefixes`` does)."""
    frame: FrameType | None = sys._getframe(1)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


# ------------------------------------------------------------------ checks

def check_same_label_type(classes: np.ndarray, labels: np.ndarray, *,
                          name: str = "labels") -> None:
    def is_str(a: np.ndarray) -> bool:
        return a.dtype.kind in "US" or (a.dtype.kind == "O" and a.size > 0
                                        and isinstance(a.flat[0], str))
    if classes.size and labels.size and is_str(classes) != is_str(labels):
        kind = "strings" if is_str(labels) else "numbers"
        data = "strings" if is_str(classes) else "numbers"
        raise InputError(f"{name} are {kind} but the class labels in the data are {data}")


def _check_pos_label_kind(classes: np.ndarray, pos_label: Any) -> None:
    """A number ``pos_label`` against string labels (or the reverse): scikit-learn's
    refusal, and what to pass. ``pos_label`` is 1 unless given, so the message says
    so rather than speak of a positive class the caller never named."""
    try:
        check_same_label_type(classes, np.asarray([pos_label]), name="pos_label")
    except InputError:
        unset = " (1 unless given)" if pos_label == 1 and not isinstance(pos_label, bool) else ""
        known = classes.tolist()
        raise InputError(f"{invalid_pos_label(pos_label, classes)}; pos_label{unset} names "
                         f"the positive class of a binary metric: pass one of the labels, "
                         f"e.g. pos_label={known[-1]!r}, or average='macro' (or another "
                         "average) for every class") from None


def check_beta(beta: Any) -> float:
    """F-beta's beta: a non-negative number (inf allowed: recall)."""
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
        raise InputTypeError(f"beta must be a non-negative number; got {beta!r}")
    if np.isnan(float(beta)) or float(beta) < 0:
        raise InputError(f"beta must be a non-negative number; got {beta!r}")
    return float(beta)


#: classes up to which a sum over one class axis is written as additions (numpy
#: reduces a short axis one term after another, in order: the same bits; a reduction
#: over a few values of many matrices costs several times as much)
ADDED_SUMS_MAX = 4


def axis_sum(x: np.ndarray, axis: int) -> np.ndarray:
    """``x.sum(axis=axis)`` (axis -1 or -2), as additions for a short axis."""
    k = x.shape[axis]
    if not 1 <= k <= ADDED_SUMS_MAX:
        return x.sum(axis=axis)
    part = (lambda i: x[..., i]) if axis == -1 else (lambda i: x[..., i, :])
    out = part(0) + part(1) if k > 1 else part(0).copy()
    for i in range(2, k):
        out += part(i)
    return out


def matrix_total(m: np.ndarray) -> np.ndarray:
    """``m.sum(axis=(-2, -1))``, as additions for 2 x 2 matrices (four values are
    reduced in order; more are summed pairwise)."""
    if m.shape[-2:] != (2, 2) or ADDED_SUMS_MAX < 2:
        return m.sum(axis=(-2, -1))
    return ((m[..., 0, 0] + m[..., 0, 1]) + m[..., 1, 0]) + m[..., 1, 1]


def _ratio(num: np.ndarray, den: np.ndarray, fill: float) -> np.ndarray:
    out = np.full(np.broadcast(num, den).shape, fill, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _positions(classes: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each label in ``classes`` and whether it is there at all."""
    if classes.shape[0] == 0:
        return np.zeros(labels.shape[0], dtype=np.intp), np.zeros(labels.shape[0], bool)
    idx = np.clip(np.searchsorted(classes, labels), 0, classes.shape[0] - 1)
    return idx, classes[idx] == labels


# ------------------------------------------------------------------ set-wise metrics

def indicator_labels(labels: Any, n_labels: int) -> np.ndarray:
    """Column indices of a multilabel ``labels`` argument, checked against ``n_labels``."""
    labels = check_labels_argument(labels)
    if labels.dtype.kind not in "iu" and not (labels.dtype.kind == "f"
                                              and np.all(np.mod(labels, 1) == 0)):
        raise InputError(f"labels of multilabel targets are column indices; got "
                         f"{labels.tolist()!r}")
    if labels.max() >= n_labels:
        raise InputError(f"All labels must be in [0, n labels) for multilabel targets. Got "
                         f"{labels.max()} > {n_labels - 1}")
    if labels.min() < 0:
        raise InputError(f"All labels must be in [0, n labels) for multilabel targets. Got "
                         f"{labels.min()} < 0")
    return labels.astype(np.intp)


def _indicator_selection(n_labels: int, average: str | None, labels: Any) -> tuple[str, Any]:
    check_option(average, "average", AVERAGES)
    if average == "binary":
        raise InputError("Target is multilabel-indicator but average='binary'. Please choose "
                         "another average setting, one of [None, 'micro', 'macro', "
                         "'weighted', 'samples'].")
    if labels is None:
        return "present", None
    idx = indicator_labels(labels, n_labels)
    return "labels", (idx, np.ones(idx.shape[0], bool))


def _selection(classes: np.ndarray, average: str | None, labels: Any, pos_label: Any,
               single: bool) -> tuple[str, Any]:
    """Which classes a set-wise metric reports on (scikit-learn's rules)."""
    if average == "samples":
        raise InputError("Sample-based precision, recall, fscore is not meaningful outside "
                         "multilabel classification. See the accuracy_score instead.")
    check_option(average, "average", AVERAGES)
    if average == "binary":
        k = classes.shape[0]
        if k > 2:
            raise InputError(f"Target is multiclass ({k} classes: {classes.tolist()!r}) but "
                             "average='binary'. Please choose another average setting, one "
                             "of [None, 'micro', 'macro', 'weighted'].")
        _check_pos_label_kind(classes, pos_label)
        known = classes.tolist()
        if pos_label in known:
            return "labels", (np.array([known.index(pos_label)]), np.ones(1, bool))
        if k >= 2:
            raise invalid_pos_label(pos_label, classes)
        return "labels", (np.zeros(1, np.intp), np.zeros(1, bool))  # all counts 0
    if single and pos_label not in (None, 1):
        warn_outside(f"Note that pos_label (set to {pos_label!r}) is ignored when average "
                     f"!= 'binary' (got {average!r}). You may use labels=[pos_label] to "
                     "specify a single positive class.", UserWarning)
    if labels is None:
        return "present", None
    labels = check_labels_argument(labels)
    check_same_label_type(classes, labels)
    return "labels", _positions(classes, labels)


def set_counts(m: np.ndarray, mask: np.ndarray | None, classes: np.ndarray,
               average: str | None, labels: Any = None, pos_label: Any = 1,
               single: bool = False, multilabel: bool = False
               ) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """One-vs-all (tp, fp, fn, tn) of the reported classes, shape (..., S), and which
    of them are classes of each matrix. Listed labels absent from the data are
    classes with all-zero counts (TN = total); micro sums the counts.

    ``multilabel``: ``m`` is a stack of per-label matrices (..., L, 2, 2), rows
    ``[[TN, FP], [FN, TP]]``; every label (column of the indicator arrays) is a class,
    and ``labels`` are column indices.
    """
    if multilabel:
        kind, sel = _indicator_selection(m.shape[-3], average, labels)
        tp, fp, fn, tn = m[..., 1, 1], m[..., 0, 1], m[..., 1, 0], m[..., 0, 0]
        total = (tp + fp + fn + tn)[..., :1]
        mask = np.ones(tp.shape, dtype=bool)
    else:
        kind, sel = _selection(classes, average, labels, pos_label, single)
        tp = np.diagonal(m, axis1=-2, axis2=-1)
        fp = axis_sum(m, -2) - tp
        fn = axis_sum(m, -1) - tp
        total = matrix_total(m)[..., None]
        tn = total - tp - fp - fn
    counts = {"tp": tp, "fp": fp, "fn": fn, "tn": tn}
    if kind == "labels":
        idx, known = sel
        # one class (average="binary"): a view of its column, not a copy
        at: Any = slice(int(idx[0]), int(idx[0]) + 1) if idx.shape[0] == 1 else idx
        counts = {k: v[..., at] if known.all() else
                  np.where(known, v[..., idx], total if k == "tn" else 0.0)
                  for k, v in counts.items()}
        mask = np.ones(counts["tp"].shape, dtype=bool)
    elif mask is None:  # a class has a sample when its row or column is nonzero
        mask = (tp + fp + fn) > 0
    if average == "micro":
        # a class absent from a matrix is none of its classes: its TN (the whole
        # total) must not enter the sums
        counts = {k: np.where(mask, v, 0.0).sum(axis=-1, keepdims=True)
                  for k, v in counts.items()}
        mask = np.ones(counts["tp"].shape, dtype=bool)
    counts["sel"] = counts["tp"] + counts["fp"]
    counts["total"] = counts["sel"] + counts["fn"] + counts["tn"]
    return counts, mask


def proportion(terms: tuple[str, tuple[str, ...]], counts: dict[str, np.ndarray]
               ) -> tuple[np.ndarray, np.ndarray]:
    """(numerator, denominator) of a proportion ``(num, (den terms...))``."""
    num, den = terms
    total = 0 + counts[den[0]]  # a new array, as sum() gives
    for d in den[1:]:
        total = total + counts[d]
    return counts[num], total


def fbeta(beta: float, counts: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """F-beta: (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP); beta=inf is recall, 0 precision."""
    tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
    if np.isposinf(beta):
        return tp, tp + fn
    if beta == 0:
        return tp, tp + fp
    b2 = beta * beta
    return (1 + b2) * tp, b2 * (tp + fn) + (tp + fp)


def samples_called(terms: tuple[str, ...]) -> str:
    """What the samples of a denominator are called in a warning; a denominator no
    scikit-learn metric has is named by its counts ("TN + FN")."""
    return _SAMPLES.get(frozenset(terms), " + ".join(t.upper() for t in terms))


def ratio_values(num: np.ndarray, den: np.ndarray, zero_division: Any, *, title: str,
                 samples: str, single: bool, warn: bool = True,
                 samplewise: bool = False) -> np.ndarray:
    """num / den per class (``samplewise``: per sample of a multilabel target); 0/0
    takes ``zero_division`` ("warn": 0.0 and a warning when ``single`` and ``warn``)."""
    values = _ratio(num, den, 0.0 if zero_division == "warn" else zero_division)
    if single and warn and zero_division == "warn" and np.any(den == 0):
        if samplewise:
            where, unit = "in samples with", "labels"
        else:
            where = "due to" if values.shape[-1] == 1 else "in labels with"
            unit = "samples"
        warn_outside(f"{title} is ill-defined and being set to 0.0 {where} no {samples} "
                     f"{unit}. Use `zero_division` parameter to control this behavior.")
    return values


def sample_counts(triples: np.ndarray, n_labels: int) -> dict[str, np.ndarray]:
    """Counts of the distinct per-sample (TP, FP, FN) triples of a multilabel target,
    in the form of :func:`set_counts` (one "class" per triple)."""
    tp, fp, fn = (triples[:, i].astype(np.float64) for i in range(3))
    tn = n_labels - tp - fp - fn
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "sel": tp + fp,
            "total": np.full(tp.shape, float(n_labels))}


def samples_average(values: np.ndarray, den: np.ndarray, weight: np.ndarray,
                    zero_division: Any) -> float:
    """The weighted mean of per-triple values (``average="samples"``); nan values
    (``zero_division=np.nan``) are left out, as scikit-learn's nan-average does."""
    mask = np.ones(values.shape, dtype=bool)
    return float(average_values(values, den, mask, "weighted",
                                weight.astype(np.float64), zero_division, False))


def average_values(values: np.ndarray, den: np.ndarray, mask: np.ndarray,
                   average: str | None, support: np.ndarray, zero_division: Any,
                   as_nan: bool) -> np.ndarray:
    """Combine per-class values (..., S) into one value per matrix (or keep them)."""
    if average is None:
        return values
    if values.shape[-1] == 1:
        out = values[..., 0].copy()
        if as_nan and zero_division == "warn":
            out[den[..., 0] == 0] = np.nan
        return out
    weights = support if average == "weighted" else np.ones_like(values)
    keep = mask & ~np.isnan(values)
    weights = np.where(keep, weights, 0.0)
    # all-zero weights fall back to the plain mean (scikit-learn's nan-average)
    weights = np.where((weights.sum(axis=-1) > 0)[..., None], weights, keep.astype(float))
    return _ratio((np.where(keep, values, 0.0) * weights).sum(axis=-1),
                  weights.sum(axis=-1), np.nan)


def set_metric(m: np.ndarray, mask: np.ndarray | None, classes: np.ndarray, *, formula: Any,
               title: str, samples: str, average: str | None = "binary",
               labels: Any = None, pos_label: Any = 1, zero_division: Any = "warn",
               single: bool = False, as_nan: bool = False,
               multilabel: bool = False) -> np.ndarray:
    """A set-wise count metric whose per-class ratio is ``formula(counts)``."""
    zero_division = check_zero_division(zero_division)
    counts, mask = set_counts(m, mask, classes, average, labels, pos_label, single,
                              multilabel)
    num, den = formula(counts)
    values = ratio_values(num, den, zero_division, title=title, samples=samples,
                          single=single)
    return average_values(values, den, mask, average, counts["tp"] + counts["fn"],
                          zero_division, as_nan)


# ------------------------------------------------------------------ whole-matrix metrics

def accuracy(m: np.ndarray, mask: np.ndarray | None, classes: np.ndarray, *, normalize: bool = True,
             single: bool = False, as_nan: bool = False) -> np.ndarray:
    """(TP + TN) / N: the trace over the total (nan for no samples)."""
    normalize = check_bool(normalize, "normalize")
    correct = axis_sum(np.diagonal(m, axis1=-2, axis2=-1), -1)  # the trace
    if not normalize:
        return correct
    total = matrix_total(m)
    if single and np.any(total == 0):
        warn_outside("accuracy of a state with no samples is undefined; returning nan")
    return _ratio(correct, total, np.nan)


def matthews_corrcoef(m: np.ndarray, mask: np.ndarray | None, classes: np.ndarray, *,
                      single: bool = False, as_nan: bool = False) -> np.ndarray:
    """Gorodkin's R_K (binary: the MCC); a zero denominator gives 0.0."""
    t_sum = axis_sum(m, -1)
    p_sum = axis_sum(m, -2)
    n_correct = axis_sum(np.diagonal(m, axis1=-2, axis2=-1), -1)  # the trace
    n = axis_sum(p_sum, -1)
    cov_ytyp = n_correct * n - axis_sum(t_sum * p_sum, -1)
    cov_ypyp = n * n - axis_sum(p_sum * p_sum, -1)
    cov_ytyt = n * n - axis_sum(t_sum * t_sum, -1)
    den = cov_ytyt * cov_ypyp
    return np.where(den == 0, 0.0, cov_ytyp / np.sqrt(np.where(den == 0, 1.0, den)))


def balanced_accuracy(m: np.ndarray, mask: np.ndarray | None, classes: np.ndarray, *,
                      adjusted: bool = False, single: bool = False,
                      as_nan: bool = False) -> np.ndarray:
    """Mean recall over the classes in y_true; ``adjusted`` rescales chance to 0."""
    adjusted = check_bool(adjusted, "adjusted")
    support = axis_sum(m, -1)
    has = support > 0
    k = has.sum(axis=-1).astype(np.float64)
    if single and not np.all(k):
        warn_outside("balanced accuracy of a state with no samples is undefined; "
                     "returning nan")
    elif single:
        if np.any(~has if mask is None else mask & ~has):
            warn_outside("y_pred contains classes not in y_true", UserWarning)
        if adjusted and np.any(k == 1):
            warn_outside("adjusted balanced accuracy is undefined with a single class in "
                         "y_true (chance level equals the maximum); returning (score - 1) "
                         "/ 0 as scikit-learn does: -inf, or nan for a perfect score")
    recall = _ratio(np.diagonal(m, axis1=-2, axis2=-1), support, 0.0)
    score = _ratio(axis_sum(recall, -1), k, np.nan)
    if adjusted:
        # one class in y_true: chance equals the maximum; scikit-learn divides by zero,
        # giving -inf below a perfect score and nan at it (a replicate: undefined, nan)
        chance = _ratio(np.ones_like(k), k, np.nan)
        one = k == 1
        undefined = np.nan if as_nan else np.where(score < 1.0, -np.inf, np.nan)
        score = np.where(one, undefined,
                         _ratio(score - chance, np.where(one, 1.0, 1.0 - chance), np.nan))
    return score


def cohen_kappa(m: np.ndarray, mask: np.ndarray | None, classes: np.ndarray, *, labels: Any = None,
                weights: str | None = None, replace_undefined_by: float = np.nan,
                single: bool = False, as_nan: bool = False) -> np.ndarray:
    """Cohen's kappa 1 - sum(w C) / sum(w E), E the outer product of the margins over N.

    The distance between two classes (linear or quadratic weights) is that of their
    positions among the classes of the matrix, or in ``labels`` when given.
    """
    check_option(weights, "weights", (None, "linear", "quadratic"))
    if labels is not None:
        labels = check_labels_argument(labels)
        check_same_label_type(classes, labels)
        idx, known = _positions(classes, labels)
        in_y1 = m.sum(axis=-1).reshape(-1, classes.shape[0])[0] > 0 if classes.shape[0] \
            else None
        if single and in_y1 is not None and not np.any(known & in_y1[idx]):
            raise InputError(f"At least one label specified must be in y1; got labels "
                             f"{labels.tolist()!r}")
        both = known[:, None] & known[None, :]
        m = np.where(both, m[..., idx[:, None], idx[None, :]], 0.0)
        mask = np.ones(m.shape[:-1], dtype=bool)
    sum0 = m.sum(axis=-2)
    sum1 = m.sum(axis=-1)
    total = sum0.sum(axis=-1)
    expected = sum0[..., :, None] * sum1[..., None, :] / \
        np.where(total > 0, total, 1.0)[..., None, None]
    if weights is None:
        w = 1.0 - np.eye(m.shape[-1])
    else:
        if mask is None:
            mask = (sum0 + sum1) > 0
        pos = np.cumsum(mask, axis=-1) - 1.0
        dist = np.abs(pos[..., :, None] - pos[..., None, :])
        w = dist if weights == "linear" else dist * dist
    num = (w * m).sum(axis=(-2, -1))
    den = (w * expected).sum(axis=(-2, -1))
    bad = (total == 0) | (den == 0)
    if single and np.any(bad):
        why = "`y2` contains no labels that are present in both `y1` and `labels`" \
            if np.any(total == 0) else "`y1`, `y2` and `labels` have only one label in common"
        warn_outside(f"{why}. `cohen_kappa_score` is undefined and set to the value defined "
                     "by the `replace_undefined_by` param, which is set to "
                     f"{replace_undefined_by}.")
    fill = np.nan if as_nan else replace_undefined_by
    return np.where(bad, fill, 1.0 - num / np.where(bad, 1.0, den))


def error_rate(m: np.ndarray, mask: np.ndarray | None, classes: np.ndarray, *,
               normalize: bool = True, single: bool = False,
               as_nan: bool = False) -> np.ndarray:
    """(FP + FN) / N = 1 - accuracy (the Hamming and zero-one losses of 1-D labels)."""
    normalize = check_bool(normalize, "normalize")
    total = m.sum(axis=(-2, -1))
    if not normalize:
        return total - np.trace(m, axis1=-2, axis2=-1)
    return 1 - accuracy(m, mask, classes, single=single, as_nan=as_nan)


# ------------------------------------------------------------------ multilabel whole-target

def subset_accuracy(triples: np.ndarray, weights: np.ndarray, *,
                    normalize: bool = True) -> np.ndarray:
    """Multilabel accuracy: the weight of samples with every label right (no FP, no FN).

    ``triples`` (T, 3) are the distinct per-sample (TP, FP, FN); ``weights`` (..., T)
    their total weight in each state of a stack (nan for a state with no weight).
    """
    normalize = check_bool(normalize, "normalize")
    exact = (triples[:, 1] == 0) & (triples[:, 2] == 0)
    weights = np.asarray(weights, dtype=np.float64)
    correct = weights[..., exact].sum(axis=-1)
    if not normalize:
        return correct
    return _ratio(correct, weights.sum(axis=-1), np.nan)


def subset_error(triples: np.ndarray, weights: np.ndarray, *,
                 normalize: bool = True) -> np.ndarray:
    """Multilabel zero-one loss: 1 - subset accuracy (``normalize=False``: the weight
    of samples with a wrong label)."""
    if check_bool(normalize, "normalize"):
        return 1 - subset_accuracy(triples, weights)
    weights = np.asarray(weights, dtype=np.float64)
    return weights.sum(axis=-1) - subset_accuracy(triples, weights, normalize=False)


def label_error_rate(m: np.ndarray) -> np.ndarray:
    """Multilabel Hamming loss of per-label stacks (..., L, 2, 2): the (weighted)
    share of wrong (sample, label) cells, sum(FP + FN) / (N L)."""
    wrong = (m[..., 0, 1] + m[..., 1, 0]).sum(axis=-1)
    total = m[..., 0, :, :].sum(axis=(-2, -1)) * m.shape[-3]
    return _ratio(wrong, total, np.nan)


#: the formulas of the count metrics that are not a registry proportion
FORMULAS = {
    "accuracy_score": accuracy,
    "matthews_corrcoef": matthews_corrcoef,
    "balanced_accuracy_score": balanced_accuracy,
    "cohen_kappa_score": cohen_kappa,
    "hamming_loss": error_rate,
    "zero_one_loss": error_rate,
}
