"""Count metrics evaluated on a stack of confusion matrices at once.

``batch_count_metric(name, template, mats, kwargs)`` returns, for an (R, K, K)
stack of matrices over the classes of ``template`` (a
:class:`~dartboard.metrics.ConfusionCounts`), the R values
``ConfusionCounts(template.classes, mats[r]).compute(name, **kwargs)`` without a
Python loop over replicates, with one difference that the bootstrap needs:

A replicate on which the metric *as a whole* is undefined (a 0/0 binary or
micro ratio, an undefined kappa) is ``nan`` when ``zero_division="warn"`` (the
default), so that the bootstrap drops it and says so instead of counting a
made-up 0.0. A numeric ``zero_division`` is used as the metric uses it.
Per-class 0/0 inside a macro or weighted average follow the metric exactly.

Metrics or keywords without a vectorised form (``cohen_kappa_score`` with
``labels``) are computed replicate by replicate through ``ConfusionCounts.compute``
with the same nan convention.
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
    _select_labels,
)

_RATIOS = {
    # name: (numerator, denominator terms)
    "specificity_score": ("tn", ("tn", "fp")),
    "false_positive_rate": ("fp", ("fp", "tn")),
    "false_negative_rate": ("fn", ("fn", "tp")),
    "selection_rate": ("sel", ("tp", "fp", "fn", "tn")),
}

SCALAR_COUNT_METRICS = ("accuracy_score", "precision_score", "recall_score", "f1_score",
                        "fbeta_score", "specificity_score", "false_positive_rate",
                        "false_negative_rate", "selection_rate", "matthews_corrcoef",
                        "balanced_accuracy_score", "cohen_kappa_score")


def batch_count_metric(name: str, template: ConfusionCounts, mats: np.ndarray,
                       kwargs: dict[str, Any]) -> np.ndarray:
    """Values of count metric ``name`` on each matrix of an (R, K, K) stack."""
    mats = np.asarray(mats, dtype=np.float64)
    if name == "accuracy_score":
        trace = np.trace(mats, axis1=1, axis2=2)
        if not kwargs.get("normalize", True):
            return trace
        total = mats.sum(axis=(1, 2))
        return _safe_ratio(trace, total)
    if name in ("precision_score", "recall_score", "f1_score", "fbeta_score") \
            or name in _RATIOS:
        return _set_metric(name, template, mats, **kwargs)
    if name == "matthews_corrcoef":
        return _mcc(mats)
    if name == "balanced_accuracy_score":
        return _balanced_accuracy(mats, **kwargs)
    if name == "cohen_kappa_score" and kwargs.get("labels") is None:
        return _kappa(mats, **{k: v for k, v in kwargs.items() if k != "labels"})
    return _loop(name, template, mats, kwargs)


def _safe_ratio(num: np.ndarray, den: np.ndarray, fill: float = np.nan) -> np.ndarray:
    out = np.full(np.broadcast(num, den).shape, fill, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _set_metric(name: str, template: ConfusionCounts, mats: np.ndarray, *,
                labels: Any = None, pos_label: Any = 1, average: str | None = "binary",
                zero_division: Any = "warn", beta: float = 1.0) -> np.ndarray:
    check_option(average, "average", _AVERAGES)
    zero_division = check_zero_division(zero_division)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # pos_label ignored: warned once already
        idx = _select_labels(template, average, labels, pos_label)
    diag = np.diagonal(mats, axis1=1, axis2=2)
    col = mats.sum(axis=1)
    row = mats.sum(axis=2)
    total = mats.sum(axis=(1, 2))[:, None]
    if idx.shape == (1,) and idx[0] == -1:
        zero = np.zeros((mats.shape[0], 1))
        tp = fp = fn = zero
        tn = total
    else:
        tp = diag[:, idx]
        fp = col[:, idx] - tp
        fn = row[:, idx] - tp
        tn = total - tp - fp - fn
    if average == "micro":
        tp, fp, fn, tn = (c.sum(axis=1, keepdims=True) for c in (tp, fp, fn, tn))
    support = tp + fn
    if name == "precision_score":
        num, den = tp, tp + fp
    elif name == "recall_score":
        num, den = tp, tp + fn
    elif name in ("f1_score", "fbeta_score"):
        beta = 1.0 if name == "f1_score" else float(beta)
        if not np.isfinite(beta) and beta != np.inf or beta < 0:
            raise ValueError(f"beta must be a non-negative number; got {beta!r}")
        if np.isposinf(beta):
            num, den = tp, tp + fn
        else:
            b2 = beta * beta
            num, den = (1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp
            if beta == 0:
                num, den = tp, tp + fp
    else:
        numerator, terms = _RATIOS[name]
        parts = {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "sel": tp + fp}
        num, den = parts[numerator], sum(parts[t] for t in terms)
    fill = 0.0 if zero_division == "warn" else float(zero_division)
    values = _safe_ratio(num, den, fill)
    if average in ("binary", "micro"):
        out = values[:, 0]
        if zero_division == "warn":
            out[den[:, 0] == 0] = np.nan
        return out
    return _nanaverage_rows(values, support if average == "weighted" else None)


def _nanaverage_rows(values: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Row-wise version of ``_confusion._nanaverage`` (NaN ignored)."""
    keep = ~np.isnan(values)
    v = np.where(keep, values, 0.0)
    plain = _safe_ratio(v.sum(axis=1), keep.sum(axis=1).astype(np.float64))
    if weights is None:
        return plain
    w = np.where(keep, weights, 0.0)
    wsum = w.sum(axis=1)
    weighted = _safe_ratio((v * w).sum(axis=1), wsum)
    return np.where(wsum > 0, weighted, plain)


def _mcc(mats: np.ndarray) -> np.ndarray:
    t_sum = mats.sum(axis=2)
    p_sum = mats.sum(axis=1)
    correct = np.trace(mats, axis1=1, axis2=2)
    n = p_sum.sum(axis=1)
    cov_ytyp = correct * n - np.einsum("rk,rk->r", t_sum, p_sum)
    cov_ypyp = n * n - np.einsum("rk,rk->r", p_sum, p_sum)
    cov_ytyt = n * n - np.einsum("rk,rk->r", t_sum, t_sum)
    den = cov_ytyt * cov_ypyp
    out = np.zeros(mats.shape[0])
    ok = den != 0
    out[ok] = cov_ytyp[ok] / np.sqrt(den[ok])
    return out


def _balanced_accuracy(mats: np.ndarray, *, adjusted: bool = False) -> np.ndarray:
    support = mats.sum(axis=2)
    present = support > 0
    recall = _safe_ratio(np.diagonal(mats, axis1=1, axis2=2), support, 0.0)
    n_present = present.sum(axis=1).astype(np.float64)
    score = _safe_ratio(recall.sum(axis=1), n_present)
    if adjusted:
        chance = _safe_ratio(np.ones_like(n_present), n_present)
        score = _safe_ratio(score - chance, 1.0 - chance)
    return score


def _kappa(mats: np.ndarray, *, weights: str | None = None,
           replace_undefined_by: float = np.nan) -> np.ndarray:
    check_option(weights, "weights", (None, "linear", "quadratic"))
    k = mats.shape[1]
    sum0, sum1 = mats.sum(axis=1), mats.sum(axis=2)
    total = sum0.sum(axis=1)
    safe_total = np.where(total > 0, total, 1.0)
    expected = sum0[:, :, None] * sum1[:, None, :] / safe_total[:, None, None]
    grid = np.arange(k, dtype=np.float64)
    if weights is None:
        w = 1.0 - np.eye(k)
    elif weights == "linear":
        w = np.abs(grid[:, None] - grid[None, :])
    else:
        w = (grid[:, None] - grid[None, :]) ** 2
    den = np.einsum("ij,rij->r", w, expected)
    num = np.einsum("ij,rij->r", w, mats)
    out = 1.0 - _safe_ratio(num, np.where(total > 0, den, 0.0))
    out[(den == 0) | (total == 0)] = replace_undefined_by
    return out


def _loop(name: str, template: ConfusionCounts, mats: np.ndarray,
          kwargs: dict[str, Any]) -> np.ndarray:
    """Replicate-by-replicate fallback through ``ConfusionCounts.compute``."""
    integral = template.matrix.dtype.kind in "iu"
    out = np.empty(mats.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        for r in range(mats.shape[0]):
            m = mats[r].astype(np.int64) if integral else mats[r]
            try:
                value = ConfusionCounts(template.classes, m).compute(name, **kwargs)
            except UndefinedMetricWarning:
                value = np.nan
            if np.ndim(value) != 0:
                raise TypeError(f"{name} with these arguments returns an array; an interval "
                                "needs a scalar metric")
            out[r] = value
    return out
