"""Count metrics evaluated on a batch of confusion matrices at once.

The permutation and bootstrap samplers of :func:`dartboard.compare_models` produce
R confusion matrices (an array of shape (R, K, K)); this module turns them into R
metric values with array operations, following the conventions of
:mod:`dartboard.metrics._confusion` exactly: a class absent from both the truth
and the predictions of a replicate is left out (as it would be when counting the
labels of the resampled predictions), 0/0 takes ``zero_division`` ("warn" gives 0.0;
replicates do not warn).
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
    _check_same_label_type,
)

__all__ = ["batch_count_metric", "SCALAR_COUNT_METRICS"]

_RATIOS = {
    # name: (numerator, denominator terms) over one-vs-all counts
    "precision_score": ("tp", ("tp", "fp")),
    "recall_score": ("tp", ("tp", "fn")),
    "specificity_score": ("tn", ("tn", "fp")),
    "false_positive_rate": ("fp", ("fp", "tn")),
    "false_negative_rate": ("fn", ("fn", "tp")),
    "selection_rate": ("sel", ("tp", "fp", "fn", "tn")),
}
_SET_METRICS = {*_RATIOS, "f1_score", "fbeta_score"}
SCALAR_COUNT_METRICS = frozenset({*_SET_METRICS, "accuracy_score", "matthews_corrcoef",
                                  "balanced_accuracy_score", "cohen_kappa_score"})


def batch_count_metric(name: str, matrices: np.ndarray, classes: np.ndarray,
                       kwargs: dict[str, Any]) -> np.ndarray:
    """Metric ``name`` of each confusion matrix in ``matrices`` (shape (R, K, K)).

    Keywords the vectorised code does not handle fall back to
    :meth:`ConfusionCounts.compute` per replicate (still O(K^2) each).
    """
    m = np.asarray(matrices, dtype=np.float64)
    kw = dict(kwargs)
    if name in _SET_METRICS:
        return _set_metric(name, m, classes, kw)
    if name == "accuracy_score" and set(kw) <= {"normalize"}:
        correct = np.trace(m, axis1=1, axis2=2)
        return correct / m.sum(axis=(1, 2)) if kw.get("normalize", True) else correct
    if name == "matthews_corrcoef" and not kw:
        return _mcc(m)
    if name == "balanced_accuracy_score" and set(kw) <= {"adjusted"}:
        return _balanced_accuracy(m, bool(kw.get("adjusted", False)))
    if name == "cohen_kappa_score" and set(kw) <= {"replace_undefined_by", "weights"} \
            and kw.get("weights") is None:
        return _kappa(m, kw.get("replace_undefined_by", np.nan))
    return _per_replicate(name, m, classes, kw)


def _per_replicate(name: str, m: np.ndarray, classes: np.ndarray,
                   kw: dict[str, Any]) -> np.ndarray:
    out = np.empty(m.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for r in range(m.shape[0]):
            present = (m[r].sum(axis=0) + m[r].sum(axis=1)) > 0
            state = ConfusionCounts(classes[present], m[r][np.ix_(present, present)])
            out[r] = float(state.compute(name, **kw))
    return out


def _one_vs_all(m: np.ndarray) -> dict[str, np.ndarray]:
    tp = np.diagonal(m, axis1=1, axis2=2)
    pred = m.sum(axis=1)
    true = m.sum(axis=2)
    fp = pred - tp
    fn = true - tp
    tn = m.sum(axis=(1, 2))[:, None] - tp - fp - fn
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "sel": tp + fp}


def _safe_ratio(num: np.ndarray, den: np.ndarray, zero_division: Any) -> np.ndarray:
    zero = den == 0
    out = num / np.where(zero, 1.0, den)
    out[zero] = 0.0 if zero_division == "warn" else zero_division
    return out


def _set_metric(name: str, m: np.ndarray, classes: np.ndarray,
                kw: dict[str, Any]) -> np.ndarray:
    average = kw.pop("average", "binary")
    labels = kw.pop("labels", None)
    pos_label = kw.pop("pos_label", 1)
    zero_division = check_zero_division(kw.pop("zero_division", "warn"))
    beta = kw.pop("beta", 1.0) if name == "fbeta_score" else 1.0
    if kw:
        raise TypeError(f"{name} got unexpected keyword argument(s) {sorted(kw)}")
    check_option(average, "average", _AVERAGES)
    if average is None:
        raise ValueError(f"{name} with average=None returns one value per class; "
                         "compare_models needs a single number (choose an average)")
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
            counts = {"tp": zero, "fp": zero, "fn": zero, "tn": m.sum(axis=(1, 2))[:, None]}
            counts["sel"] = zero
        else:
            counts = {k: v[:, hit] for k, v in counts.items()}
        present = np.ones((m.shape[0], 1), dtype=bool)
    elif labels is not None:
        # listed labels absent from the data count as all-zero classes (as the metrics do)
        labels = np.asarray(labels)
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
        num, den = _RATIOS[name]
        values = _safe_ratio(counts[num], sum(counts[d] for d in den), zero_division)
    elif np.isposinf(beta):
        values = _safe_ratio(tp, tp + fn, zero_division)
    elif beta == 0:
        values = _safe_ratio(tp, tp + fp, zero_division)
    else:
        b2 = beta * beta
        values = _safe_ratio((1 + b2) * tp, b2 * (tp + fn) + tp + fp, zero_division)
    if values.shape[1] == 1:
        return values[:, 0]
    weights = (tp + fn) if average == "weighted" else np.ones_like(values)
    keep = present & ~np.isnan(values)
    weights = np.where(keep, weights, 0.0)
    plain = keep.astype(np.float64)
    wsum = weights.sum(axis=1)
    # all-zero weights fall back to the plain mean, as _nanaverage does
    weights = np.where((wsum > 0)[:, None], weights, plain)
    wsum = weights.sum(axis=1)
    out = np.full(m.shape[0], np.nan)
    ok = wsum > 0
    out[ok] = (np.where(keep, values, 0.0) * weights).sum(axis=1)[ok] / wsum[ok]
    return out


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
    recall = np.diagonal(m, axis1=1, axis2=2) / np.where(has, support, 1.0)
    k = has.sum(axis=1)
    score = np.where(has, recall, 0.0).sum(axis=1) / k
    if adjusted:
        # one class in y_true: chance equals the maximum, adjusted score undefined (nan)
        chance = 1.0 / k
        single = k == 1
        score = np.where(single, np.nan,
                         (score - chance) / np.where(single, 1.0, 1.0 - chance))
    return score


def _kappa(m: np.ndarray, replace_undefined_by: float) -> np.ndarray:
    sum0 = m.sum(axis=1)
    sum1 = m.sum(axis=2)
    total = sum0.sum(axis=1)
    safe_total = np.where(total == 0, 1.0, total)
    agree = np.trace(m, axis1=1, axis2=2)
    expected_agree = (sum0 * sum1).sum(axis=1) / safe_total
    den = total - expected_agree  # sum of (1 - eye) * expected
    num = total - agree           # sum of (1 - eye) * observed
    bad = (total == 0) | (den == 0)
    return np.where(bad, replace_undefined_by, 1.0 - num / np.where(bad, 1.0, den))
