"""Count metrics of a whole stack of confusion matrices at once.

Bootstrap intervals and permutation tests produce R resampled confusion matrices
(an array of shape (R, K, K) over the classes of the full data). This module turns
them into R metric values with array operations. Each value equals the metric
computed on the resampled samples themselves, which means:

- a class absent from a replicate (zero row and column) is not one of its classes,
  as it would not be when the labels of the resampled data are counted; classes
  listed in ``labels`` always are (with zero counts when absent);
- 0/0 takes ``zero_division`` ("warn" gives 0.0; replicates never warn).

With ``undefined="nan"`` a replicate on which the metric *as a whole* is undefined
under ``zero_division="warn"`` (a 0/0 binary or micro ratio, an empty matrix) is
``nan`` instead of the stand-in 0.0, so a bootstrap can drop it and say so rather
than count a made-up value. Per-class 0/0 inside a macro or weighted average still
follow the metric exactly.

Keywords without a vectorised form fall back to :meth:`ConfusionCounts.compute`
replicate by replicate (O(K^2) each, still independent of the number of samples).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from dartboard._validation import check_option, check_zero_division
from dartboard.metrics._confusion import (
    _AVERAGES,
    ConfusionCounts,
    UndefinedMetricWarning,
    _check_beta,
    _check_same_label_type,
)

__all__ = ["SCALAR_COUNT_METRICS", "batch_count_metric"]

_RATIOS = {
    # name: (numerator, denominator terms) over one-vs-all counts
    "precision_score": ("tp", ("tp", "fp")),
    "recall_score": ("tp", ("tp", "fn")),
    "specificity_score": ("tn", ("tn", "fp")),
    "false_positive_rate": ("fp", ("fp", "tn")),
    "false_negative_rate": ("fn", ("fn", "tp")),
    "selection_rate": ("sel", ("tp", "fp", "fn", "tn")),
}
_SET_METRICS = frozenset({*_RATIOS, "f1_score", "fbeta_score"})

#: Count metrics that return one number (with a non-None ``average``).
SCALAR_COUNT_METRICS = frozenset({*_SET_METRICS, "accuracy_score", "matthews_corrcoef",
                                  "balanced_accuracy_score", "cohen_kappa_score"})

_UNDEFINED = ("zero_division", "nan")


def batch_count_metric(name: str, classes: np.ndarray, matrices: np.ndarray,
                       kwargs: dict[str, Any], *,
                       undefined: str = "zero_division") -> np.ndarray:
    """Metric ``name`` of each confusion matrix of an (R, K, K) stack.

    Parameters
    ----------
    name : str
        A scalar count metric (see ``SCALAR_COUNT_METRICS``).
    classes : ndarray of shape (K,)
        Sorted labels indexing the matrices.
    matrices : array of shape (R, K, K)
        Counts (or weight sums), rows true, columns predicted.
    kwargs : dict
        Keywords of the metric (``average``, ``pos_label``, ``labels``, ...).
    undefined : {"zero_division", "nan"}
        What a replicate on which the metric is undefined gets (module docstring).

    Returns
    -------
    ndarray of shape (R,)
    """
    check_option(undefined, "undefined", _UNDEFINED)
    m = np.asarray(matrices, dtype=np.float64)
    kw = dict(kwargs)
    as_nan = undefined == "nan"
    if name in _SET_METRICS:
        return _set_metric(name, m, classes, kw, as_nan)
    if name == "accuracy_score" and set(kw) <= {"normalize"}:
        correct = np.trace(m, axis1=1, axis2=2)
        if not kw.get("normalize", True):
            return correct
        total = m.sum(axis=(1, 2))
        return _safe_ratio(correct, total, np.nan)
    if name == "matthews_corrcoef" and not kw:
        return _mcc(m)
    if name == "balanced_accuracy_score" and set(kw) <= {"adjusted"}:
        return _balanced_accuracy(m, bool(kw.get("adjusted", False)))
    if name == "cohen_kappa_score" and set(kw) <= {"replace_undefined_by", "weights"}:
        check_option(kw.get("weights"), "weights", (None, "linear", "quadratic"))
        return _kappa(m, kw.get("weights"), kw.get("replace_undefined_by", np.nan))
    return _per_replicate(name, m, classes, kw, as_nan)


def _per_replicate(name: str, m: np.ndarray, classes: np.ndarray, kw: dict[str, Any],
                   as_nan: bool) -> np.ndarray:
    out = np.empty(m.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error" if as_nan else "ignore", UndefinedMetricWarning)
        for r in range(m.shape[0]):
            present = (m[r].sum(axis=0) + m[r].sum(axis=1)) > 0
            state = ConfusionCounts(classes[present], m[r][np.ix_(present, present)])
            try:
                value = state.compute(name, **kw)
            except UndefinedMetricWarning:
                value = np.nan
            if np.ndim(value) != 0:
                raise ValueError(f"{name} with these arguments returns one value per class; "
                                 "a resampled statistic needs a single number")
            out[r] = value
    return out


def _safe_ratio(num: np.ndarray, den: np.ndarray, fill: float) -> np.ndarray:
    out = np.full(np.broadcast(num, den).shape, fill, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _one_vs_all(m: np.ndarray) -> dict[str, np.ndarray]:
    tp = np.diagonal(m, axis1=1, axis2=2)
    fp = m.sum(axis=1) - tp
    fn = m.sum(axis=2) - tp
    tn = m.sum(axis=(1, 2))[:, None] - tp - fp - fn
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "sel": tp + fp}


def _set_metric(name: str, m: np.ndarray, classes: np.ndarray, kw: dict[str, Any],
                as_nan: bool) -> np.ndarray:
    average = kw.pop("average", "binary")
    labels = kw.pop("labels", None)
    pos_label = kw.pop("pos_label", 1)
    zero_division = check_zero_division(kw.pop("zero_division", "warn"))
    beta = _check_beta(kw.pop("beta", 1.0)) if name == "fbeta_score" else 1.0
    if kw:
        raise TypeError(f"{name} got unexpected keyword argument(s) {sorted(kw)}")
    check_option(average, "average", _AVERAGES)
    if average is None:
        raise ValueError(f"{name} with average=None returns one value per class; a "
                         "resampled statistic needs a single number (choose an average)")
    counts = _one_vs_all(m)
    present = (counts["tp"] + counts["fp"] + counts["fn"]) > 0
    if average == "binary":
        if classes.shape[0] > 2:
            raise ValueError(f"Target is multiclass ({classes.shape[0]} classes) but "
                             "average='binary'. Choose 'micro', 'macro' or 'weighted'")
        _check_same_label_type(classes, np.asarray([pos_label]), name="pos_label")
        hit = np.flatnonzero(classes == pos_label)
        if hit.shape[0] == 0:
            zero = np.zeros((m.shape[0], 1))
            counts = {"tp": zero, "fp": zero, "fn": zero, "sel": zero,
                      "tn": m.sum(axis=(1, 2))[:, None]}
        else:
            counts = {k: v[:, hit] for k, v in counts.items()}
        present = np.ones((m.shape[0], 1), dtype=bool)
    elif labels is not None:
        # listed labels absent from the data count as all-zero classes (as the metrics do)
        labels = np.asarray(labels)
        _check_same_label_type(classes, labels)
        idx = np.clip(np.searchsorted(classes, labels), 0, classes.shape[0] - 1)
        known = classes[idx] == labels
        total = m.sum(axis=(1, 2))[:, None]
        counts = {k: np.where(known, v[:, idx], total if k == "tn" else 0.0)
                  for k, v in counts.items()}
        present = np.ones((m.shape[0], idx.shape[0]), dtype=bool)
    if average == "micro":
        # classes absent from a replicate are not among its classes: their TN (the
        # whole total) must not enter the sums
        counts = {k: np.where(present, v, 0.0).sum(axis=1, keepdims=True)
                  for k, v in counts.items()}
        present = np.ones((m.shape[0], 1), dtype=bool)
    tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
    if name in _RATIOS:
        num_key, den_keys = _RATIOS[name]
        num, den = counts[num_key], sum(counts[d] for d in den_keys)
    elif np.isposinf(beta):
        num, den = tp, tp + fn
    elif beta == 0:
        num, den = tp, tp + fp
    else:
        b2 = beta * beta
        num, den = (1 + b2) * tp, b2 * (tp + fn) + tp + fp
    fill = 0.0 if zero_division == "warn" else zero_division
    values = _safe_ratio(num, den, fill)
    if values.shape[1] == 1:
        out = values[:, 0]
        if as_nan and zero_division == "warn":
            out[den[:, 0] == 0] = np.nan
        return out
    weights = (tp + fn) if average == "weighted" else np.ones_like(values)
    keep = present & ~np.isnan(values)
    weights = np.where(keep, weights, 0.0)
    wsum = weights.sum(axis=1)
    # all-zero weights fall back to the plain mean, as the metrics' nan-average does
    weights = np.where((wsum > 0)[:, None], weights, keep.astype(np.float64))
    return _safe_ratio((np.where(keep, values, 0.0) * weights).sum(axis=1),
                       weights.sum(axis=1), np.nan)


def _mcc(m: np.ndarray) -> np.ndarray:
    t_sum = m.sum(axis=2)
    p_sum = m.sum(axis=1)
    n_correct = np.trace(m, axis1=1, axis2=2)
    n = p_sum.sum(axis=1)
    cov_ytyp = n_correct * n - (t_sum * p_sum).sum(axis=1)
    cov_ypyp = n * n - (p_sum * p_sum).sum(axis=1)
    cov_ytyt = n * n - (t_sum * t_sum).sum(axis=1)
    den = cov_ytyt * cov_ypyp
    zero = den == 0
    return np.where(zero, 0.0, cov_ytyp / np.sqrt(np.where(zero, 1.0, den)))


def _balanced_accuracy(m: np.ndarray, adjusted: bool) -> np.ndarray:
    support = m.sum(axis=2)
    has = support > 0
    recall = _safe_ratio(np.diagonal(m, axis1=1, axis2=2), support, 0.0)
    k = has.sum(axis=1).astype(np.float64)
    score = _safe_ratio(recall.sum(axis=1), k, np.nan)
    if adjusted:
        # one class in y_true: chance equals the maximum, adjusted score undefined (nan)
        chance = _safe_ratio(np.ones_like(k), k, np.nan)
        score = _safe_ratio(score - chance, np.where(k == 1, 0.0, 1.0 - chance), np.nan)
    return score


def _kappa(m: np.ndarray, weights: str | None, replace_undefined_by: float) -> np.ndarray:
    sum0 = m.sum(axis=1)
    sum1 = m.sum(axis=2)
    total = sum0.sum(axis=1)
    expected = sum0[:, :, None] * sum1[:, None, :] / np.where(total > 0, total, 1.0)[:, None,
                                                                                      None]
    if weights is None:
        w = 1.0 - np.eye(m.shape[1])
        num = np.einsum("ij,rij->r", w, m)
        den = np.einsum("ij,rij->r", w, expected)
    else:
        # the distance between two classes is that of their positions among the
        # classes present in the replicate (as the labels of the resampled data are)
        present = (sum0 + sum1) > 0
        pos = np.cumsum(present, axis=1) - 1.0
        dist = np.abs(pos[:, :, None] - pos[:, None, :])
        w = dist if weights == "linear" else dist * dist
        num = (w * m).sum(axis=(1, 2))
        den = (w * expected).sum(axis=(1, 2))
    bad = (total == 0) | (den == 0)
    return np.where(bad, replace_undefined_by, 1.0 - num / np.where(bad, 1.0, den))
