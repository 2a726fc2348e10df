"""Confidence bands of ROC and precision-recall curves.

A band is a grid of points on one axis of the curve and, at each, the other
coordinate with an interval:

- :func:`roc_band` with ``specificities``: sensitivity at those specificities
  (R pROC's ``ci.se``); with ``sensitivities``: specificity at those
  sensitivities (pROC's ``ci.sp``);
- :func:`pr_band`: precision at given recalls.

The curve between its points is read as pROC reads it: at a coordinate hit
exactly by several points, the best of them (the highest sensitivity, the
highest specificity); otherwise linear interpolation between the two points
around it (in ROC space; precision at recall ``r`` is the precision of that
interpolated ROC point, which is the Davis-Goadrich interpolation in PR space).

Resampling is the stratified bootstrap of pROC (cases and controls resampled
separately, each to its own size). The scores are sorted once; a replicate is
a draw of how many positives and negatives fall in each tie group of that
sort, never a re-sort. Without weights these counts are multinomial, and a
band point reads only four of them: in the group where the crossing class's
cumulative count passes the target, the counts before and within it, of both
classes. Those are drawn from their exact joint law without drawing the rest:
the rank-``m`` draw of ``N`` uniform draws sits at ``N U_(m)`` with ``U_(m)``
from gamma spacings, the draws between consecutive order statistics are
uniform there (binomial splits give the counts below each group boundary), and
the other class's counts below the boundaries are sequential binomials. A
replicate costs O(points), not O(n). With weights the row counts per (tie
group, class, weight) are drawn in full by the multinomial sampler of
:func:`dartboard.uncertainty._bootstrap.multinomial_replicates`, O(groups) per
replicate. The two samplers give the same distribution (a test checks this).

Bands:

- ``kind="pointwise"``: the ``alpha/2`` and ``1 - alpha/2`` quantiles of the
  replicates at each point (``numpy.quantile``'s default, R's type 7 as pROC).
- ``kind="simultaneous"``: the sup-t band (Montiel Olea & Plagborg-Moller 2019):
  ``estimate +- c * se`` with ``se`` the bootstrap standard deviation at each
  point and ``c`` the ``1 - alpha`` quantile over replicates of
  ``max_j |theta*_j - theta_hat_j| / se_j``, clipped to [0, 1]. Where the curve
  reaches 1 the bootstrap has no spread although the true curve may lie just
  below, so ``se`` is at least the binomial standard error of the value with a
  half count added (Jeffreys), ``sqrt(p (1 - p) / m)``, ``p = (x + 1/2) / (m + 1)``,
  ``m`` the value's denominator (positives for a sensitivity, negatives for a
  specificity, predicted positives for a precision). Its coverage of the whole
  curve is measured in ``benchmarks/band_simulation.py``: near the ends of the
  curve (sensitivity or specificity near 1 with few cases) every bootstrap band
  undercovers; a grid away from the ends is the honest choice there.

Replicates whose curve is undefined at a point cannot occur: stratification
keeps both classes in every replicate.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from dartboard._results import Result
from dartboard._rng import check_random_state
from dartboard._validation import (
    as_float_array,
    check_confidence_level,
    check_n_resamples,
    check_option,
)
from dartboard.metrics._ranking import binary_positive, group_scores
from dartboard.uncertainty._bootstrap import _batch_size, multinomial_replicates

__all__ = ["CurveBand", "pr_band", "roc_band"]

KINDS = ("pointwise", "simultaneous")
# a target within this (relative) distance of a whole count hits that point exactly,
# as pROC's equality test does for e.g. specificity 0.75 with 72 controls
_SNAP = 1e-9


@dataclass(frozen=True, repr=False)
class CurveBand(Result):
    """A curve's coordinate at grid points, with a confidence band.

    Attributes
    ----------
    curve : str
        ``"roc"`` or ``"pr"``.
    axis : str
        What ``grid`` holds: ``"specificity"`` (then the values are
        sensitivities), ``"sensitivity"`` (values are specificities) or
        ``"recall"`` (values are precisions).
    grid : ndarray
        The points, as given.
    estimate : ndarray
        The curve's value at each point on the data.
    low, high : ndarray
        The band.
    confidence_level : float
    kind : str
        ``"pointwise"`` or ``"simultaneous"``.
    method : str
        ``"percentile"`` (pointwise) or ``"sup-t"`` (simultaneous).
    n_resamples : int
    critical_value : float or None
        The sup-t multiplier ``c`` (simultaneous bands).
    bootstrap_distribution : ndarray
        (n_resamples, len(grid)) replicate values.
    """

    curve: str
    axis: str
    grid: np.ndarray
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    confidence_level: float
    kind: str
    method: str
    n_resamples: int
    critical_value: float | None = None
    bootstrap_distribution: np.ndarray | None = None


# ------------------------------------------------------------------ the one sort

@dataclass(frozen=True)
class _SortedScores:
    """Tie groups in decreasing score order with each class's count (or weight)."""

    scores: np.ndarray      # (G,) distinct, descending
    pos: np.ndarray         # (G,) positive count or weight per group
    neg: np.ndarray
    cells: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None
    # with weights: (group, is_positive, weight, row count) per resampling cell

    @classmethod
    def build(cls, positive: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> _SortedScores:
        scores, pos, neg = group_scores(positive, s, w)
        scores, pos, neg = scores[::-1], pos[::-1].astype(np.float64), neg[::-1].astype(np.float64)
        if w is None:
            return cls(scores, pos, neg, None)
        keep = w != 0
        positive, s, w = positive[keep], s[keep], w[keep].astype(np.float64)
        group = scores.shape[0] - 1 - np.searchsorted(scores[::-1], s)
        order = np.lexsort((w, group, ~positive))  # by class, then group, then weight
        key = np.stack([~positive[order], group[order], w[order]])
        new = np.ones(order.shape[0], dtype=bool)
        new[1:] = np.any(key[:, 1:] != key[:, :-1], axis=0)
        starts = np.flatnonzero(new)
        size = np.diff(np.append(starts, order.shape[0]))
        return cls(scores, pos, neg, (group[order][starts], positive[order][starts],
                                      w[order][starts], size))

    def cumulative(self, pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(b, G + 1) cumulative positive and negative weight before each group."""
        zero = np.zeros(pos.shape[:-1] + (1,))
        return (np.concatenate([zero, np.cumsum(pos, axis=-1)], axis=-1),
                np.concatenate([zero, np.cumsum(neg, axis=-1)], axis=-1))

    def resampling_cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(group, is_positive, weight, rows) of the cells a resample draws counts of,
        positives first, each class by group."""
        if self.cells is not None:
            return self.cells
        cells = []
        for is_pos, counts in ((True, self.pos), (False, self.neg)):
            g = np.flatnonzero(counts)
            cells.append((g, np.full(g.shape[0], is_pos), np.ones(g.shape[0]), counts[g]))
        return tuple(np.concatenate(parts) for parts in zip(*cells))

    def group_sums(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(b, G) positive and negative weight per group from (b, cells) row counts."""
        group, positive, weight, _ = self.resampling_cells()
        new = np.ones(group.shape[0], dtype=bool)
        new[1:] = (group[1:] != group[:-1]) | (positive[1:] != positive[:-1])
        starts = np.flatnonzero(new)
        sums = np.add.reduceat(counts * weight, starts, axis=1)
        per = np.zeros((2, counts.shape[0], self.scores.shape[0]))
        per[positive[starts].astype(int), :, group[starts]] = sums.T
        return per[1], per[0]


# ------------------------------------------------------------------ reading the curve

def _target(grid: np.ndarray, axis: str, total: np.ndarray) -> np.ndarray:
    """Target cumulative weight of the crossing class (negatives for a specificity)."""
    share = 1.0 - grid if axis == "specificity" else grid
    t = share * total
    near = np.round(t)
    return np.where(np.abs(t - near) <= _SNAP * np.maximum(total, 1.0), near, t)


def _read(axis: str, target: np.ndarray, before: np.ndarray, within: np.ndarray,
          other_before: np.ndarray, other_within: np.ndarray, totals: tuple[Any, Any]
          ) -> np.ndarray:
    """The curve's value at each target from the counts around the crossing group.

    ``before``/``within``: the crossing class's weight before and inside the group
    where its cumulative weight passes ``target``; ``other_*`` the other class's.
    """
    frac = np.clip((target - before) / np.where(within > 0, within, 1.0), 0.0, 1.0)
    other = other_before + other_within * frac
    x_total, y_total = totals
    if axis == "specificity":   # crossing class negatives, read the sensitivity
        return np.where(target >= x_total, 1.0, other / y_total)
    if axis == "sensitivity":   # crossing class positives, read the specificity
        return np.where(target <= 0, 1.0, 1.0 - other / y_total)
    with np.errstate(invalid="ignore", divide="ignore"):
        return target / (target + other)  # precision at the recall


def _read_cumulative(axis: str, grid: np.ndarray, cx: np.ndarray, cy: np.ndarray
                     ) -> np.ndarray:
    """(b, k) values from (b, G + 1) cumulative weights of the crossing and other class."""
    b, g1 = cx.shape
    x_total, y_total = cx[:, -1:], cy[:, -1:]
    target = _target(grid[None, :], axis, x_total)
    # crossing group: first with cumulative weight > target (specificity: the last
    # point at the target is the best), or >= target (the first point reaching it)
    tol = _SNAP * np.maximum(x_total, 1.0)
    probe = target + tol if axis == "specificity" else target - tol
    scale = 2.0 * (float(x_total.max()) + 1.0)  # one offset per row keeps rows apart
    flat = (cx[:, 1:] + np.arange(b)[:, None] * scale).ravel()
    where = np.searchsorted(flat, (probe + np.arange(b)[:, None] * scale).ravel(), "right")
    c = np.clip(where.reshape(b, -1) - np.arange(b)[:, None] * (g1 - 1), 0, g1 - 2)
    take = np.take_along_axis
    before, other_before = take(cx, c, 1), take(cy, c, 1)
    return _read(axis, target, before, take(cx, c + 1, 1) - before, other_before,
                 take(cy, c + 1, 1) - other_before, (x_total, y_total))


# ------------------------------------------------------------------ samplers

def _weighted_replicates(path: _SortedScores, axis: str, grid: np.ndarray,
                         n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Every cell's row count drawn (multinomial per class): O(groups) per replicate."""
    _, positive, _, size = path.resampling_cells()

    def evaluate(counts: np.ndarray) -> np.ndarray:
        cp, cn = path.cumulative(*path.group_sums(counts))
        cx, cy = (cn, cp) if axis == "specificity" else (cp, cn)
        return _read_cumulative(axis, grid, cx, cy)

    return multinomial_replicates(evaluate, size, positive.astype(int),
                                  8 * 6 * path.scores.shape[0], n_resamples, True, rng,
                                  False).values


def _order_statistic_counts(rng: np.random.Generator, b: int, counts: np.ndarray,
                            ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group of the rank-``m`` draw among ``N`` resampled rows, and the draws before
    and through that group, for nondecreasing ranks ``m`` in 1..N; each (b, k).

    Rows are numbered in the groups' order; a resampled row is ``floor(N v)``
    for v uniform on (0, 1), so the rank-m row is ``floor(N U_(m))``.
    """
    n = int(counts.sum())
    edges = np.concatenate([[0.0], np.cumsum(counts)])
    k = ranks.shape[0]
    spacing = np.diff(np.concatenate([[0], ranks, [n + 1]])).astype(np.float64)
    s = np.cumsum(rng.standard_gamma(spacing, size=(b, k + 1)), axis=1)
    u = s[:, :k] / s[:, k:]
    row = np.minimum(np.floor(n * u), n - 1)
    group = np.searchsorted(edges, row, "right") - 1
    lo_edge, hi_edge = edges[group] / n, edges[group + 1] / n
    before = np.empty((b, k))
    through = np.empty((b, k))
    before[:, 0] = rng.binomial(ranks[0] - 1, np.clip(lo_edge[:, 0] / u[:, 0], 0.0, 1.0))
    same = group[:, 1:] == group[:, :-1]
    for j in range(k - 1):
        # the free draws between consecutive order statistics are uniform there; split
        # them at the end of group j and the start of group j + 1
        free = max(int(ranks[j + 1] - ranks[j] - 1), 0)
        lo, hi, e = u[:, j], u[:, j + 1], hi_edge[:, j]
        p1 = np.where(same[:, j], 0.0, np.clip((e - lo) / np.maximum(hi - lo, 1e-300), 0, 1))
        x = rng.binomial(free, p1)
        p2 = np.where(same[:, j], 0.0,
                      np.clip((lo_edge[:, j + 1] - e) / np.maximum(hi - e, 1e-300), 0, 1))
        y = x + rng.binomial(free - x, p2)
        through[:, j] = ranks[j] + x
        before[:, j + 1] = np.where(same[:, j], before[:, j], ranks[j] + y)
    last = np.clip((hi_edge[:, -1] - u[:, -1]) / np.maximum(1.0 - u[:, -1], 1e-300), 0, 1)
    through[:, -1] = ranks[-1] + rng.binomial(n - int(ranks[-1]), last)
    for j in range(k - 2, -1, -1):
        through[:, j] = np.where(same[:, j], through[:, j + 1], through[:, j])
    return group, before, through


def _counts_below(rng: np.random.Generator, counts: np.ndarray, bounds: np.ndarray
                  ) -> np.ndarray:
    """Resampled rows of one class in groups before each of (b, m) group bounds."""
    n = int(counts.sum())
    share = np.concatenate([[0.0], np.cumsum(counts)]) / n
    order = np.argsort(bounds, axis=1, kind="stable")
    q = share[np.take_along_axis(bounds, order, 1)]
    out = np.empty(bounds.shape)
    drawn = np.zeros(bounds.shape[0])
    q_prev = np.zeros(bounds.shape[0])
    for i in range(bounds.shape[1]):  # sequential binomials: a multinomial in pieces
        p = np.clip((q[:, i] - q_prev) / np.maximum(1.0 - q_prev, 1e-300), 0.0, 1.0)
        drawn = drawn + rng.binomial((n - drawn).astype(np.int64), p)
        out[:, i] = drawn
        q_prev = q[:, i]
    result = np.empty(bounds.shape)
    np.put_along_axis(result, order, out, 1)
    return result


def _unweighted_replicates(path: _SortedScores, axis: str, grid: np.ndarray,
                           n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Only the counts each band point reads: O(points) per replicate."""
    x, y = (path.neg, path.pos) if axis == "specificity" else (path.pos, path.neg)
    x_total, y_total = float(x.sum()), float(y.sum())
    order = np.argsort(grid, kind="stable")
    if axis == "specificity":
        order = order[::-1]  # increasing target count
    target = _target(grid[order], axis, np.float64(x_total))
    # specificity: the first draw past the target; otherwise the draw reaching it
    ranks = np.floor(target) + 1 if axis == "specificity" else np.ceil(target)
    ranks = np.clip(ranks, 1, x_total).astype(np.int64)
    k = grid.shape[0]
    values = np.empty((n_resamples, k))
    batch = _batch_size(8 * 16 * k, n_resamples)
    for start in range(0, n_resamples, batch):
        b = min(batch, n_resamples - start)
        group, before, through = _order_statistic_counts(rng, b, x, ranks)
        below = _counts_below(rng, y, np.concatenate([group, group + 1], axis=1))
        sub = _read(axis, np.broadcast_to(target, (b, k)), before, through - before,
                    below[:, :k], below[:, k:] - below[:, :k], (x_total, y_total))
        values[start:start + b, order] = sub
    return values


# ------------------------------------------------------------------ public faces

def _band_iv(y_true: Any, y_score: Any, grid: Any, grid_name: str, kind: Any,
             confidence_level: Any, n_resamples: Any, sample_weight: Any, pos_label: Any,
             open_zero: bool = False) -> tuple[Any, ...]:
    kind = check_option(kind, "kind", KINDS)
    level = check_confidence_level(confidence_level)
    n_resamples = check_n_resamples(n_resamples)
    positive, s, w, _ = binary_positive(y_true, y_score, pos_label, sample_weight,
                                         refuse_absent=True,
                                         multiclass_ok=True)
    g = as_float_array(grid, name=grid_name, ndim=1)
    if np.any(g < 0) or np.any(g > 1) or (open_zero and np.any(g == 0)):
        bound = "(0, 1]" if open_zero else "[0, 1]"
        raise ValueError(f"{grid_name} must lie in {bound}; got values from {g.min()!r} "
                         f"to {g.max()!r}")
    wpos = positive if w is None else positive & (w > 0)
    wneg = ~positive if w is None else ~positive & (w > 0)
    if not wpos.any() or not wneg.any():
        raise ValueError("y_true must hold both classes (with positive weight) for a "
                         "curve band; got only "
                         + ("negatives" if not wpos.any() else "positives"))
    return positive, s, w, g, kind, level, n_resamples


def _band(curve: str, axis: str, positive: np.ndarray, s: np.ndarray, w: np.ndarray | None,
          grid: np.ndarray, kind: str, level: float, n_resamples: int, random_state: Any,
          weighted_path: bool = False) -> CurveBand:
    path = _SortedScores.build(positive, s, w)
    rng = check_random_state(random_state)
    cp, cn = path.cumulative(path.pos[None, :], path.neg[None, :])
    cx, cy = (cn, cp) if axis == "specificity" else (cp, cn)
    estimate = _read_cumulative(axis, grid, cx, cy)[0]
    if path.cells is None and not weighted_path:
        values = _unweighted_replicates(path, axis, grid, n_resamples, rng)
    else:
        values = _weighted_replicates(path, axis, grid, n_resamples, rng)
    alpha = 1.0 - level
    critical = None
    if kind == "pointwise":
        low, high = np.quantile(values, [alpha / 2, 1 - alpha / 2], axis=0)
        method = "percentile"
    else:
        se = np.std(values, axis=0, ddof=1) if n_resamples > 1 else np.zeros(grid.shape[0])
        se = np.maximum(se, _binomial_floor(axis, grid, estimate, positive, w))
        varies = se > 0
        t = np.abs(values[:, varies] - estimate[varies]) / se[varies]
        critical = float(np.quantile(t.max(axis=1), level)) if varies.any() else 0.0
        low = np.clip(estimate - critical * se, 0.0, 1.0)
        high = np.clip(estimate + critical * se, 0.0, 1.0)
        method = "sup-t"
    return CurveBand(curve, axis, grid, estimate, low, high, level, kind, method,
                     n_resamples, critical, values)


def _binomial_floor(axis: str, grid: np.ndarray, estimate: np.ndarray,
                    positive: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """The binomial standard error of each value with a half count added (Jeffreys).

    Where the curve reaches 1 (or 0) every replicate is 1 too and the bootstrap
    standard error is 0, although the true curve may lie just below: the floor
    keeps the sup-t band open there.
    """
    live = np.ones(positive.shape[0], dtype=bool) if w is None else w > 0
    n_pos, n_neg = float(np.sum(positive & live)), float(np.sum(~positive & live))
    if axis == "specificity":
        n = np.full(grid.shape[0], n_pos)
    elif axis == "sensitivity":
        n = np.full(grid.shape[0], n_neg)
    else:  # precision: of the predicted positives, about recall * P / precision
        n = np.maximum(grid * n_pos / np.maximum(estimate, 1e-12), 1.0)
    p = (estimate * n + 0.5) / (n + 1.0)
    return np.sqrt(p * (1.0 - p) / n)


def roc_band(y_true: Any, y_score: Any, *, specificities: Any = None,
             sensitivities: Any = None, kind: str = "pointwise",
             confidence_level: float = 0.95, n_resamples: int = 2000,
             random_state: Any = None, sample_weight: Any = None,
             pos_label: Any = None) -> CurveBand:
    """Confidence band of a ROC curve: sensitivity at specificities, or the reverse.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (with other labels than {0, 1} or {-1, 1}, ``pos_label``).
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive.
    specificities, sensitivities : array-like, optional
        Give one: sensitivity is read at the specificities (pROC's ``ci.se``) or
        specificity at the sensitivities (``ci.sp``). Default: specificities
        ``0, 0.01, ..., 1``. Values in [0, 1].
    kind : {"pointwise", "simultaneous"}, default="pointwise"
        Percentile interval at each point, or the sup-t band over all points.
    confidence_level : float, default=0.95
    n_resamples : int, default=2000
        Stratified bootstrap resamples (pROC's default ``boot.n``).
    random_state : None, int, SeedSequence or Generator
    sample_weight : array-like, optional
        Row weights; a resampled row keeps its weight.
    pos_label : label, optional
        The positive class (rule "strict", as :func:`dartboard.metrics.roc_curve`).

    Returns
    -------
    CurveBand

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.zeros(200), np.ones(200)]
    >>> s = y + rng.normal(size=400)
    >>> band = roc_band(y, s, specificities=[0.9], random_state=0)
    >>> bool(band.low[0] < band.estimate[0] < band.high[0])
    True
    """
    if specificities is not None and sensitivities is not None:
        raise ValueError("give specificities or sensitivities, not both")
    axis = "sensitivity" if sensitivities is not None else "specificity"
    grid = sensitivities if sensitivities is not None else specificities
    if grid is None:
        grid = np.linspace(0.0, 1.0, 101)
    if isinstance(grid, numbers.Real):
        grid = [grid]
    name = "sensitivities" if axis == "sensitivity" else "specificities"
    positive, s, w, g, kind, level, n = _band_iv(y_true, y_score, grid, name, kind,
                                                 confidence_level, n_resamples,
                                                 sample_weight, pos_label)
    return _band("roc", axis, positive, s, w, g, kind, level, n, random_state)


def pr_band(y_true: Any, y_score: Any, *, recalls: Any = None, kind: str = "pointwise",
            confidence_level: float = 0.95, n_resamples: int = 2000,
            random_state: Any = None, sample_weight: Any = None,
            pos_label: Any = None) -> CurveBand:
    """Confidence band of a precision-recall curve: precision at given recalls.

    Precision at recall ``r`` is read on the ROC curve interpolated as pROC does
    (the first point reaching sensitivity ``r``, or the straight line into it),
    which in PR space is the Davis-Goadrich interpolation. Arguments as
    :func:`roc_band`; ``recalls`` in (0, 1], default ``0.01, 0.02, ..., 1``.

    Returns
    -------
    CurveBand

    Examples
    --------
    >>> band = pr_band([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9],
    ...                recalls=[1.0], n_resamples=200, random_state=0)
    >>> float(band.estimate[0])
    0.75
    """
    grid = np.linspace(0.01, 1.0, 100) if recalls is None else recalls
    if isinstance(grid, numbers.Real):
        grid = [grid]
    positive, s, w, g, kind, level, n = _band_iv(y_true, y_score, grid, "recalls", kind,
                                                 confidence_level, n_resamples,
                                                 sample_weight, pos_label, open_zero=True)
    return _band("pr", "recall", positive, s, w, g, kind, level, n, random_state)
