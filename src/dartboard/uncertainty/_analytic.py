"""Analytic intervals: binomial proportions and DeLong's interval of ROC AUC.

A proportion metric is ``x / n`` with ``n`` its own denominator, read from the
confusion counts (binary with ``pos_label``):

=====================  ==============  =======================
metric                 x               n
=====================  ==============  =======================
accuracy_score         TP + TN (trace) N (binary or multiclass)
precision_score        TP              TP + FP
recall_score           TP              TP + FN
specificity_score      TN              TN + FP
false_positive_rate    FP              FP + TN
false_negative_rate    FN              FN + TP
selection_rate         TP + FP         N
=====================  ==============  =======================

With ``z = Phi^{-1}(1 - alpha/2)`` and ``p = x / n``:

- ``wald``: ``p +- z sqrt(p (1 - p) / n)``, clipped to [0, 1] (zero width at
  ``p = 0`` or 1, with an :class:`IntervalWarning`).
- ``wilson``: ``(p + z^2/(2n) +- z sqrt(p(1-p)/n + z^2/(4n^2))) / (1 + z^2/n)``.
- ``agresti-coull``: Wald around ``(x + z^2/2) / (n + z^2)`` with ``n + z^2``
  trials, clipped to [0, 1].
- ``clopper-pearson``: Beta quantiles ``B(alpha/2; x, n-x+1)`` and
  ``B(1-alpha/2; x+1, n-x)``, with 0 at ``x = 0`` and 1 at ``x = n``.
- ``jeffreys``: Beta(x + 1/2, n - x + 1/2) quantiles, with 0 at ``x = 0`` and
  1 at ``x = n`` (Brown, Cai & DasGupta 2001).

These are the formulas of ``statsmodels.stats.proportion.proportion_confint``
(which keeps the Beta quantiles of ``jeffreys`` at ``x = 0`` and ``x = n``).

DeLong's variance of ROC AUC from samples is :func:`dartboard._delong.delong_auc_covariance`;
:func:`delong_variance_grouped` gives the same variance from the distinct scores
with their positive and negative counts (a :class:`~dartboard.metrics.ScoreState`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy import special

from dartboard.uncertainty._bootstrap import IntervalWarning


def normal_quantile(confidence_level: float) -> float:
    """``z`` with ``P(|Z| <= z) = confidence_level`` for a standard normal ``Z``."""
    return float(-special.ndtri((1.0 - confidence_level) / 2.0))


def proportion_interval(x: float, n: float, confidence_level: float,
                        method: str) -> tuple[float, float]:
    """Two-sided interval for a binomial proportion ``x / n`` (``n > 0``)."""
    alpha = 1.0 - confidence_level
    z = normal_quantile(confidence_level)
    p = x / n
    if method == "wald":
        half = z * np.sqrt(p * (1.0 - p) / n)
        low, high = p - half, p + half
        if half == 0.0:
            warnings.warn(f"the Wald interval of a proportion of {p:g} ({x:g} of {n:g}) has "
                          "zero width, which understates the uncertainty; use 'wilson'",
                          IntervalWarning, stacklevel=5)
    elif method == "wilson":
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
        low, high = centre - half, centre + half
        # exactly 0 at x = 0 and 1 at x = n, where rounding left the bound a hair
        # inside the estimate (6.9e-18 for 0 of 50)
        low = 0.0 if x == 0 else low
        high = 1.0 if x == n else high
    elif method == "agresti-coull":
        n_c = n + z * z
        p_c = (x + z * z / 2.0) / n_c
        half = z * np.sqrt(p_c * (1.0 - p_c) / n_c)
        low, high = p_c - half, p_c + half
    elif method == "clopper-pearson":
        low = 0.0 if x == 0 else special.betaincinv(x, n - x + 1.0, alpha / 2.0)
        high = 1.0 if x == n else special.betaincinv(x + 1.0, n - x, 1.0 - alpha / 2.0)
    elif method == "jeffreys":
        # Brown, Cai & DasGupta (2001, Statist. Sci. 16:101-133, section 4.1.3) set
        # the bounds to 0 at x = 0 and 1 at x = n, as Clopper-Pearson has them
        low = 0.0 if x == 0 else special.betaincinv(x + 0.5, n - x + 0.5, alpha / 2.0)
        high = 1.0 if x == n else special.betaincinv(x + 0.5, n - x + 0.5, 1.0 - alpha / 2.0)
    else:  # pragma: no cover - guarded by the caller
        raise ValueError(f"unknown proportion method {method!r}")
    if method in ("clopper-pearson", "jeffreys") and n > 2.0**53:
        # counts beyond 2**53 (huge integer weights) are past betaincinv's accuracy:
        # its bounds came out up to 2e-9 on the wrong side of the estimate, low above
        # high; the interval then is the estimate within rounding, so it holds it
        low, high = min(low, p), max(high, p)
    return float(np.clip(low, 0.0, 1.0)), float(np.clip(high, 0.0, 1.0))


def proportion_counts(proportion: tuple[str, tuple[str, ...]], matrix: np.ndarray,
                      pos_index: int | None) -> tuple[Any, Any]:
    """``(x, n)`` of a proportion from its confusion matrix (or a stack of them,
    shape ``(..., K, K)``: then arrays of shape ``(...)``).

    ``proportion`` is the metric's registry fact ``(numerator, denominator terms)``
    over the one-vs-all counts ``tp``, ``fp``, ``fn``, ``tn`` of the positive
    class (``sel = tp + fp``), or ``("correct", ("total",))`` for accuracy.
    ``pos_index`` is the row of the positive class in a 2 x 2 (or 1 x 1) matrix,
    ``None`` when the metric is multiclass accuracy. ``pos_index == -1`` means the
    positive class is absent from the data (all its counts are zero).
    """
    m = np.asarray(matrix, dtype=np.float64)
    total = m.sum(axis=(-2, -1))
    counts = {"total": total, "correct": np.trace(m, axis1=-2, axis2=-1)}
    if pos_index is not None:
        tp = fp = fn = np.zeros_like(total)
        if pos_index >= 0:
            tp = m[..., pos_index, pos_index]
            fp = m[..., :, pos_index].sum(axis=-1) - tp
            fn = m[..., pos_index, :].sum(axis=-1) - tp
        counts.update(tp=tp, fp=fp, fn=fn, tn=total - tp - fp - fn, sel=tp + fp)
    numerator, denominator = proportion
    x, n = counts[numerator], sum(counts[d] for d in denominator)
    return (float(x), float(n)) if m.ndim == 2 else (x, n)


def delong_interval(auc: float, variance: float, confidence_level: float
                    ) -> tuple[float, float, float]:
    """``auc +- z sqrt(variance)`` clipped to [0, 1]; returns (low, high, se).

    A zero variance (perfect separation, or one sample per class) gives a
    zero-width interval, with an :class:`IntervalWarning`.
    """
    se = float(np.sqrt(max(variance, 0.0)))
    if se == 0.0:
        warnings.warn(f"DeLong's variance of this ROC AUC ({auc:g}) is 0 (the scores "
                      "separate the classes perfectly, or a class has a single sample): "
                      "the interval has zero width, which understates the uncertainty",
                      IntervalWarning, stacklevel=4)
    z = normal_quantile(confidence_level)
    return float(max(auc - z * se, 0.0)), float(min(auc + z * se, 1.0)), se


def delong_variance_grouped(pos: np.ndarray, neg: np.ndarray) -> tuple[float, float]:
    """(AUC, DeLong's variance) from counts per distinct score (see delong_terms_grouped)."""
    auc, term_pos, term_neg, _, _ = delong_terms_grouped(pos, neg)
    return auc, term_pos + term_neg


def delong_terms_grouped(pos: np.ndarray, neg: np.ndarray
                         ) -> tuple[float, float, float, float, float]:
    """(AUC, S10 / m, S01 / n, m, n) from counts of positives and negatives per score:
    DeLong's variance is the sum of the two terms.

    ``pos[g]`` and ``neg[g]`` count the positive and negative samples at the
    g-th distinct score, scores increasing. DeLong's structural components are
    constant within a tie group (grouped midranks): a positive at score ``s``
    has ``V10 = (neg below s + neg at s / 2) / n`` and a negative
    ``V01 = (pos above s + pos at s / 2) / m``; the variance is
    ``S10 / m + S01 / n`` with the sample variances (ddof = 1) over the ``m``
    positives and ``n`` negatives, so no raw score is needed. As in
    :func:`dartboard._delong.delong_auc_covariance`, a class with a single
    sample contributes 0. The caller checks ``m > 0`` and ``n > 0``.
    """
    pos = np.asarray(pos, dtype=np.float64)
    neg = np.asarray(neg, dtype=np.float64)
    m, n = float(pos.sum()), float(neg.sum())
    neg_below = np.cumsum(neg) - neg
    pos_above = m - np.cumsum(pos)
    v10 = (neg_below + 0.5 * neg) / n
    v01 = (pos_above + 0.5 * pos) / m
    auc = float(np.dot(pos, v10) / m)
    s10 = float(np.dot(pos, (v10 - auc) ** 2) / (m - 1)) if m > 1 else 0.0
    s01 = float(np.dot(neg, (v01 - auc) ** 2) / (n - 1)) if n > 1 else 0.0
    return auc, s10 / m, s01 / n, m, n
