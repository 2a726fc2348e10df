"""Thresholds that guarantee a constraint: exact binomial tests over ordered thresholds.

``select_threshold(..., target=r, guarantee=g)`` returns a threshold whose *true*
rate meets the target with probability at least ``g`` (over the data the threshold
is chosen on), not only the rate on the data. At each candidate threshold ``t``
the null hypothesis "the constraint fails at ``t``" is tested with an exact
binomial test at level ``alpha = 1 - g`` (the one-sided Clopper-Pearson bound at
``t`` clears the target); the search over thresholds is what needs care.

- ``min_recall``: ``TP(t) ~ Binomial(P, TPR(t))`` for the ``P`` positives, and
  ``TPR(t)`` falls as ``t`` rises. Reject "TPR(t) < r" when
  ``P(Binomial(P, r) >= TP(t)) <= alpha``, i.e. ``TP(t) >= k`` for one critical
  count ``k``; the highest threshold rejected is returned. No share of ``alpha``
  is spent on the search: if ``t0`` is the highest threshold with
  ``TPR >= r``, every threshold above it counts at most the positives above
  ``t0``, ``Binomial(P, q)`` with ``q <= r``, so the event "some threshold above
  ``t0`` is rejected" is the single event ``#(positives above t0) >= k``, of
  probability at most ``alpha``. (The counts are nested; a fixed-sequence test
  from the lowest threshold upwards stops at the same place.)
- ``max_fpr``: the same with the ``N`` negatives: reject "FPR(t) > r" when
  ``P(Binomial(N, r) <= FP(t)) <= alpha``; the lowest threshold rejected is
  returned. ``inf`` (nothing positive) has FPR 0 exactly and is always allowed.
- ``min_precision``: given the ``m(t)`` samples at or above ``t``, ``TP(t)`` is
  ``Binomial(m(t), PPV(t))`` (the data's class mix taken as the population's);
  reject "PPV(t) < r" when ``P(Binomial(m, r) >= TP(t)) <= level``. Precision is
  not monotone in ``t`` and its counts are not nested, so testing every
  threshold and keeping the lowest rejected would spend ``alpha`` once per
  threshold (measured: 0.59 everywhere against a target of 0.6 returned a
  threshold in over 15% of samples of 400 at ``alpha = 0.05``). Instead fixed
  sequences (Angelopoulos et al. 2021, "Learn then Test") walk down the
  thresholds in order of ``m`` and stop at their first threshold not rejected; a
  wrong threshold is then returned only if a sequence rejects the first
  threshold on its way with ``PPV < r``. One sequence starting at the top stops
  early whenever a negative sits among the few highest scores, so there are
  several: half of ``alpha`` goes to the sequence starting at the smallest
  ``m0`` where a rejection is possible at all (``r^m0 <= alpha / 2``: all
  ``m0`` positive), the other half is split evenly over sequences starting at
  ``2 m0, 4 m0, ...`` (up to the number of samples), and by Bonferroni the
  family-wise error is at most ``alpha``. The lowest threshold any sequence
  rejects is returned. The starts depend on ``m`` only, not on the labels.

Counts are rows (no weights: a sampling weight is not a number of repeated rows, and
:func:`~dartboard.select_threshold` refuses weights with a guarantee): the tests are
exact binomial tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

__all__ = ["Sequences", "best_guaranteed", "critical_counts", "guaranteed",
           "one_sided_bound", "precision_sequences"]

_EPS = 1e-9  # counts are whole numbers held in floats


def _at_least(n: np.ndarray, p: float, alpha: float) -> np.ndarray:
    """Smallest k with ``P(Binomial(n, p) >= k) <= alpha`` (``n + 1``: none)."""
    n = np.asarray(n, dtype=np.float64)
    k = stats.binom.isf(alpha, n, p) + 1.0
    # isf is a float search: step to the exact boundary with the survival function
    k = np.where(stats.binom.sf(k - 1.0, n, p) > alpha, k + 1.0, k)
    k = np.where((k > 1.0) & (stats.binom.sf(k - 2.0, n, p) <= alpha), k - 1.0, k)
    return np.minimum(k, n + 1.0)


def _at_most(n: float, p: float, alpha: float) -> float:
    """Largest f with ``P(Binomial(n, p) <= f) <= alpha`` (-1: none)."""
    f = float(stats.binom.ppf(alpha, n, p))
    while f >= 0 and stats.binom.cdf(f, n, p) > alpha:
        f -= 1.0
    while f + 1.0 <= n and stats.binom.cdf(f + 1.0, n, p) <= alpha:
        f += 1.0
    return f


def critical_counts(criterion: str, target: float, alpha: float, n_pos: float,
                    n_neg: float) -> np.ndarray:
    """The rejection boundary of each candidate's exact binomial test at level ``alpha``.

    ``min_recall``: ``[k]``, reject when ``TP >= k``; ``max_fpr``: ``[f]``, reject
    when ``FP <= f``; ``min_precision``: ``k[m]`` for ``m = 0 .. n_pos + n_neg``
    samples predicted positive, reject when ``TP >= k[m]``.

    Examples
    --------
    >>> critical_counts("min_recall", 0.8, 0.05, 20, 30)  # 19 of 20: P = 0.069 > 0.05
    array([20.])
    >>> critical_counts("min_recall", 0.8, 0.05, 100, 30)
    array([87.])
    """
    if criterion == "min_recall":
        return np.array([_at_least(np.array(n_pos), target, alpha)]).ravel()
    if criterion == "max_fpr":
        return np.array([_at_most(n_neg, target, alpha)])
    return _at_least(np.arange(n_pos + n_neg + 1.0), target, alpha)


@dataclass(frozen=True)
class Sequences:
    """The precision guarantee's fixed sequences: where each starts (samples predicted
    positive) and the row of ``counts`` (the boundaries ``k[m]`` at its level) it
    tests with."""

    starts: np.ndarray
    rows: np.ndarray
    counts: np.ndarray


def precision_sequences(target: float, alpha: float, n_total: float) -> Sequences:
    """The sequences of the precision guarantee (module notes): half of ``alpha`` to
    the one starting at the smallest ``m0`` with ``target^m0 <= alpha / 2``, half
    split over those starting at ``2 m0, 4 m0, ...`` up to ``n_total``.

    Examples
    --------
    >>> seq = precision_sequences(0.8, 0.05, 100)
    >>> seq.starts.tolist(), seq.rows.tolist()  # 0.8^17 = 0.0225 <= 0.025
    ([17, 34, 68], [0, 1, 1])
    """
    half = alpha / 2.0
    first = 1 if target <= 0.0 else int(np.ceil(np.log(half) / np.log(target))) \
        if target < 1.0 else int(n_total) + 1  # precision 1 is never shown by a count
    while first > 1 and target ** (first - 1) <= half:  # np.log rounding
        first -= 1
    while first <= n_total and target ** first > half:
        first += 1
    starts = [first]
    while starts[-1] * 2 <= n_total:
        starts.append(starts[-1] * 2)
    levels = [alpha] if len(starts) == 1 else [half, half / (len(starts) - 1)]
    counts = np.stack([critical_counts("min_precision", target, a, 0.0, n_total)
                       for a in levels])
    rows = np.minimum(np.arange(len(starts)), len(levels) - 1)
    return Sequences(np.array(starts), rows, counts)


def guaranteed(criterion: str, tp: np.ndarray, fp: np.ndarray, critical: Any
               ) -> np.ndarray:
    """(b, G + 1) mask of the candidates a guarantee allows, from cumulative TP and FP
    (index 0: nothing positive, then thresholds in decreasing order). ``critical``:
    :func:`critical_counts` (recall, FPR) or :func:`precision_sequences`."""
    if criterion == "min_recall":
        return tp >= critical[0] - _EPS
    if criterion == "max_fpr":
        ok = fp <= critical[0] + _EPS
        ok[:, 0] = True  # nothing positive: FPR is 0, not estimated
        return ok
    m = np.rint(tp + fp).astype(np.int64)
    ok = np.zeros(tp.shape, dtype=bool)
    for start, row in zip(critical.starts, critical.rows):
        need = critical.counts[row][np.minimum(m, critical.counts.shape[1] - 1)]
        rejected = tp >= need - _EPS
        # a sequence begins at the first threshold with at least `start` samples above
        # it, and stops at its first threshold not rejected
        started = m >= start
        failed = np.cumsum(started & ~rejected, axis=1) > 0
        ok |= started & rejected & ~failed
    ok[:, 0] = False  # nothing positive: precision undefined
    return ok


def best_guaranteed(criterion: str, tp: np.ndarray, fp: np.ndarray, alpha: float) -> str:
    """Why no threshold can be guaranteed, from the data's (G + 1,) cumulative counts:
    the best exact one-sided bound reached, for the error message."""
    level = 1.0 - alpha
    if criterion == "min_recall":
        n_pos = tp[-1]
        bound = alpha ** (1.0 / n_pos)  # all positives at or above the lowest score
        return (f"even the lowest threshold, with all {n_pos:g} positives above it, only "
                f"guarantees recall >= {bound:.4g} at {level:g}")
    m = tp[1:] + fp[1:]
    bound = np.where(tp[1:] > 0, stats.beta.ppf(alpha, np.maximum(tp[1:], 1.0),
                                                 m - tp[1:] + 1.0), 0.0)
    return (f"the highest exact one-sided {level:g} lower bound of precision at any single "
            f"threshold is {bound.max():.4g}, and the tests over the thresholds share "
            f"alpha = {alpha:g} (see dartboard.uncertainty._guarantee)")


def one_sided_bound(criterion: str, tp: float, fp: float, n_pos: float, alpha: float,
                    critical: Any, cumulative: tuple[np.ndarray, np.ndarray], index: int
                    ) -> tuple[float, float]:
    """``(bound, level)``: the exact one-sided Clopper-Pearson bound of the constrained
    rate at the chosen candidate ``index`` that its test compares with the target, and
    that bound's confidence level.

    The tests of the module notes are these bounds: ``max_fpr`` rejects "FPR > r" when
    the upper ``1 - alpha`` bound of FPR from ``FP`` of the ``N`` negatives is at most
    ``r``; ``min_recall`` "TPR < r" when the lower bound from ``TP`` of the ``P``
    positives is at least ``r``; ``min_precision`` "PPV < r" when the lower bound from
    ``TP`` of the ``m`` samples above the threshold, at the level of a sequence that
    reached it, is at least ``r`` (the sequences share ``alpha``, so that level is
    higher than ``1 - alpha``; the least strict of them is reported). ``inf`` (nothing
    positive) has FPR 0 exactly, not estimated: its bound is 0.
    """
    if criterion == "max_fpr":
        n_neg = float(cumulative[1][0, -1])
        if index == 0:
            return 0.0, 1.0
        bound = 1.0 if fp >= n_neg else float(stats.beta.ppf(1.0 - alpha, fp + 1.0, n_neg - fp))
        return bound, 1.0 - alpha
    if criterion == "min_recall":
        bound = 0.0 if tp <= 0 else float(stats.beta.ppf(alpha, tp, n_pos - tp + 1.0))
        return bound, 1.0 - alpha
    seq: Sequences = critical
    half = alpha if seq.starts.shape[0] == 1 else alpha / 2.0
    levels = [half if row == 0 else half / (seq.starts.shape[0] - 1) for row in seq.rows]
    reached = [a for i, a in enumerate(levels) if guaranteed(
        criterion, *cumulative, Sequences(seq.starts[i:i + 1], seq.rows[i:i + 1],
                                          seq.counts))[0, index]]
    level = max(reached) if reached else alpha
    m = tp + fp
    bound = 0.0 if tp <= 0 else float(stats.beta.ppf(level, tp, m - tp + 1.0))
    return bound, 1.0 - level
