"""Confidence bands of ROC and precision-recall curves.

A band is a grid of points on one axis of the curve and, at each, the other
coordinate with an interval:

- :func:`roc_band` with ``specificities``: sensitivity at those specificities
  (what R pROC's ``ci.se`` estimates); with ``sensitivities``: specificity at
  those sensitivities (``ci.sp``);
- :func:`pr_band`: precision at given recalls.

The curve between its points is read as pROC reads it: at a coordinate hit
exactly by several points, the best of them (the highest sensitivity, the
highest specificity); otherwise linear interpolation between the two points
around it (in ROC space; precision at recall ``r`` is the precision of that
interpolated ROC point, which is the Davis-Goadrich interpolation in PR space).

Draws. At a grid point one class fixes the threshold (the crossing class: the
negatives for a specificity, the positives for a sensitivity or a recall) and the
other is read there. With ``u`` the crossing class's rate above the true threshold
(one minus the specificity, or the sensitivity), the number ``K`` of the ``n_x``
crossing rows above that threshold is Binomial(``n_x``, ``u``) whatever the scores'
distribution: the rows' own rates are uniform order statistics, the fact behind
the distribution-free confidence interval of a quantile (Thompson 1936). A draw
takes ``K`` from that law and where the threshold falls between the ``K``-th and
the ``K + 1``-th crossing row from the exact law of the uniform order statistics
around ``u``; reads the other class's weight ``x`` above that position on the one
sorted path (on the chord between the two rows, linear within ties); and draws
the other class's rate from the Jeffreys posterior Beta(``x + 1/2``,
``n - x + 1/2``) (Brown, Cai & DasGupta 2001), 0 when ``x = 0`` and 1 when
``x = n``. The points of one draw share one multinomial of the crossing rows over
the gaps between the grid's rates and one gamma process for the other class, so
each drawn curve is monotone and whole. Before the first and after the last
crossing row the curve can rise steeply: there the upper limit reads the step's
far end, which assumes nothing, and the lower limit the chord, which holds for a
concave ROC curve (a score whose likelihood ratio rises with it, as a calibrated
probability). At specificity 0, and at sensitivity 0, the value is 1 by the
reading rule. This is the construction of Hilgers (1991), an order-statistic
interval for the threshold joined with binomial limits for the other class, with
the two parts drawn jointly instead of splitting the level between them; close in
spirit to the Bayesian bootstrap of the ROC curve (Gu, Ghosal & Roy 2008). The
draws are fiducial draws of the curve in Fisher's sense (the pivot is the crossing
class's uniform order statistics; for the other class the Jeffreys posterior sits
between the binomial's two fiducial limits), hence the method's name.

Bands:

- ``kind="pointwise"``: at each point the ``alpha/2`` quantile of the draws for
  the lower limit and the ``1 - alpha/2`` quantile of those for the upper limit.
- ``kind="simultaneous"``: the same with the level of each point raised until
  the band holds ``1 - alpha`` of the drawn curves whole (Mandel & Betensky 2008).

Both contain the estimate. Weights enter through the weighted path and Kish's
effective counts ``(sum w)^2 / sum w^2`` of each class (``n_x`` rounded down),
which equal the row counts without weights. A draw costs O(points), not O(rows):
the scores are sorted once and the path is read at the drawn counts.

Why not the bootstrap: the percentile band of the stratified bootstrap (pROC's
``ci.se``) reads 1 in every resample where every positive outscores the
negatives below the threshold, so its interval is [1, 1] while the true
sensitivity lies below; and no resample reaches beyond the sample's highest
negatives, where the threshold of a high specificity lies (Macskassy, Provost &
Rosset 2005 find bootstrap bands break down at the extremes). On the default grid
its pointwise band covered 4-64% at specificities 0.05-0.5 and its sup-t band the
whole curve in 77-81% of data sets; ``benchmarks/band_simulation.py`` measures both
constructions at the ends of the default grids.

References: Thompson, W. R. (1936) Ann. Math. Statist. 7:122-128; Hilgers, R. A.
(1991) Distribution-free confidence bounds for ROC curves, Methods Inf. Med.
30:96-101; Brown, L. D., Cai, T. T. & DasGupta, A. (2001) Interval estimation for a
binomial proportion, Statist. Sci. 16:101-133; Gu, J., Ghosal, S. & Roy, A. (2008)
Bayesian bootstrap estimation of ROC curve, Stat. Med. 27:5407-5420; Mandel, M. &
Betensky, R. A. (2008) Simultaneous confidence intervals based on the percentile
bootstrap approach, Comput. Stat. Data Anal. 52:2158-2165; Macskassy, S. A.,
Provost, F. & Rosset, S. (2005) ROC confidence bands: an empirical evaluation,
ICML; Kish, L. (1965) Survey Sampling.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._kernels._bootstrap import batch_size
from dartboard._kernels._clustered import ClusterIndex
from dartboard._progress import takes_progress, track
from dartboard._results import Result
from dartboard._rng import RandomStateLike, check_random_state
from dartboard._typing import BandKind
from dartboard._validation import (
    as_float_array,
    check_confidence_level,
    check_n_resamples,
    check_option,
    check_sample_weight,
)
from dartboard.exceptions import InputError
from dartboard.metrics._ranking import binary_positive
from dartboard.uncertainty._clustered_curves import curve_clusters
from dartboard.uncertainty._sorted_scores import SortedScores

__all__ = ["CurveBand", "pr_band", "roc_band"]

KINDS = ("pointwise", "simultaneous")
METHODS = {"pointwise": "fiducial", "simultaneous": "fiducial, calibrated"}
#: float64 arrays of (n_resamples, len(grid)) a band holds at once: its two kinds of
#: draws and a partitioned copy of one (the budget :func:`check_n_resamples` checks)
HELD = 3
# a target within this (relative) distance of a whole count hits that point exactly,
# as pROC's equality test does for e.g. specificity 0.75 with 72 controls
_SNAP = 1e-9
#: positive (bool), scores, weights and the clusters of the rows (or None)
_Rows = tuple[np.ndarray, np.ndarray, "np.ndarray | None", "ClusterIndex | None"]


@dataclass(frozen=True, repr=False)
class CurveBand(Result):
    """A curve's coordinate at grid points, with a confidence band.

    Parameters
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
        Confidence level of the band, in (0, 1).
    kind : str
        ``"pointwise"`` or ``"simultaneous"``.
    method : str
        ``"fiducial"`` (pointwise) or ``"fiducial, calibrated"`` (simultaneous).
    n_resamples : int
        The number of draws.
    pointwise_level : float
        The level of each point's interval: ``confidence_level`` for a pointwise
        band; for a simultaneous band the level calibrated so that the band holds
        ``confidence_level`` of the drawn curves whole.
    draws : ndarray
        (2, n_resamples, len(grid)): the drawn curves whose quantiles give the
        lower (``draws[0]``) and the upper limits (``draws[1]``). The two differ only
        in the steps before the first and after the last row of the class that sets
        the grid.

    Examples
    --------
    >>> from dartboard import roc_band
    >>> y_true = [0, 1, 1, 0, 1, 0, 1, 1]
    >>> y_score = [0.2, 0.9, 0.6, 0.3, 0.8, 0.55, 0.7, 0.4]
    >>> band = roc_band(y_true, y_score, specificities=[0.25, 0.5, 0.75], n_resamples=200,
    ...                 random_state=0)
    >>> band.kind, band.axis, band.grid.tolist()
    ('pointwise', 'specificity', [0.25, 0.5, 0.75])
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
    pointwise_level: float
    draws: np.ndarray


# ------------------------------------------------------------------ the one sort

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


def _locate(axis: str, grid: np.ndarray, cx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(b, k) targets and the group each falls in, from (b, G + 1) cumulative weights
    of the crossing class."""
    b, g1 = cx.shape
    x_total = cx[:, -1:]
    target = _target(grid[None, :], axis, x_total)
    # crossing group: first with cumulative weight > target (specificity: the last
    # point at the target is the best), or >= target (the first point reaching it)
    tol = _SNAP * np.maximum(x_total, 1.0)
    probe = target + tol if axis == "specificity" else target - tol
    scale = 2.0 * (float(x_total.max()) + 1.0)  # one offset per row keeps rows apart
    flat = (cx[:, 1:] + np.arange(b)[:, None] * scale).ravel()
    where = np.searchsorted(flat, (probe + np.arange(b)[:, None] * scale).ravel(), "right")
    return target, np.clip(where.reshape(b, -1) - np.arange(b)[:, None] * (g1 - 1), 0, g1 - 2)


def _read_cumulative(axis: str, grid: np.ndarray, cx: np.ndarray, cy: np.ndarray
                     ) -> np.ndarray:
    """(b, k) values from (b, G + 1) cumulative weights of the crossing and other class."""
    x_total, y_total = cx[:, -1:], cy[:, -1:]
    target, c = _locate(axis, grid, cx)
    take = np.take_along_axis
    before, other_before = take(cx, c, 1), take(cy, c, 1)
    return _read(axis, target, before, take(cx, c + 1, 1) - before, other_before,
                 take(cy, c + 1, 1) - other_before, (x_total, y_total))


# ------------------------------------------------------------------ draws

@dataclass(frozen=True)
class _Crossing:
    """The sorted path seen from the class whose share the grid fixes (the crossing
    class: negatives for a specificity, positives for a sensitivity or recall).

    ``other[k]`` is the other class's weight above the point where the crossing class
    reaches ``k`` effective rows (``k = 0 .. n_x + 1``; the last is all of it):
    linear within a tie group, the lowest point of a vertical step. ``n_x`` and
    ``n_y`` are the effective counts (Kish), ``x_total``/``y_total`` the weights.
    """

    other: np.ndarray
    n_x: int
    n_y: float
    x_total: float
    y_total: float

    @classmethod
    def of(cls, path: SortedScores, axis: str, positive: np.ndarray,
           w: np.ndarray | None, deff: tuple[float, float] = (1.0, 1.0)) -> _Crossing:
        """``deff``: the design effects of the crossing and the other class's counts
        (with clusters, :mod:`._clustered_curves`)."""
        x, y = (path.neg, path.pos) if axis == "specificity" else (path.pos, path.neg)
        cx, cy = (c[0] for c in path.cumulative(x[None, :], y[None, :]))
        is_x = ~positive if axis == "specificity" else positive
        # at least one effective row, or the crossing class carries no information
        n_x = max(int(np.floor(_effective_count(is_x, w) / deff[0] + 1e-9)), 1)
        target = np.arange(n_x + 2) * (cx[-1] / n_x)
        g = np.minimum(np.searchsorted(cx[1:], target - _SNAP * max(cx[-1], 1.0), "left"),
                       cx.shape[0] - 2)
        within = cx[g + 1] - cx[g]
        frac = np.clip((target - cx[g]) / np.where(within > 0, within, 1.0), 0.0, 1.0)
        return cls(cy[g] + frac * (cy[g + 1] - cy[g]), n_x,
                   _effective_count(~is_x, w) / deff[1], float(cx[-1]), float(cy[-1]))


def _effective_count(mask: np.ndarray, w: np.ndarray | None) -> float:
    """Kish's effective sample size (sum w)^2 / sum w^2 of the rows in ``mask``."""
    if w is None:
        return float(np.count_nonzero(mask))
    wm = w[mask].astype(np.float64)
    return float(wm.sum() ** 2 / np.sum(wm * wm))


def _step_fractions(rng: np.random.Generator, gaps: np.ndarray, shares: np.ndarray
                    ) -> np.ndarray:
    """Where each share falls between the uniform draws around it, ``(u - V_below) /
    (V_above - V_below)``, given how many of the uniform draws fall in each gap
    between consecutive shares: the exact joint law, from the smallest and largest
    draw of each gap (``V_below = 0``, ``V_above = 1`` past the ends)."""
    b, k1 = gaps.shape
    edges = np.concatenate([[0.0], shares, [1.0]])
    start, width = edges[:-1], np.diff(edges)
    lowest = start + width * -np.expm1(np.log1p(-rng.random((b, k1))) / np.maximum(gaps, 1))
    spread = rng.random((b, k1)) ** (1.0 / np.maximum(gaps - 1, 1))
    highest = np.where(gaps >= 2, lowest + (start + width - lowest) * spread, lowest)
    index = np.arange(k1)
    below = np.maximum.accumulate(np.where(gaps > 0, index, -1), axis=1)[:, :-1]
    above = np.minimum.accumulate(np.where(gaps > 0, index, k1)[:, ::-1], axis=1)[:, ::-1][:, 1:]
    rows = np.arange(b)[:, None]
    v_below = np.where(below >= 0, highest[rows, np.maximum(below, 0)], 0.0)
    v_above = np.where(above < k1, lowest[rows, np.minimum(above, k1 - 1)], 1.0)
    return np.clip((shares - v_below) / np.maximum(v_above - v_below, 1e-300), 0.0, 1.0)


def _jeffreys_rates(rng: np.random.Generator, low: np.ndarray, high: np.ndarray,
                    total: float, n: float) -> tuple[np.ndarray, np.ndarray]:
    """Rates of the other class above the threshold from its weights ``low`` and
    ``high`` above it: one draw of the Jeffreys posterior Beta(x + 1/2, n - x + 1/2)
    per value, ``x`` the effective count, all values of a row read on one gamma
    process (so they move together); 0 where nothing lies above, 1 where all does."""
    b, k = low.shape
    at = np.concatenate([low, high], axis=1) * (n / total) + 0.5
    order = np.argsort(at, axis=1, kind="stable")
    sorted_at = np.take_along_axis(at, order, 1)
    steps = rng.standard_gamma(np.diff(sorted_at, axis=1, prepend=0.0))
    path = np.cumsum(steps, axis=1)
    path /= path[:, -1:] + rng.standard_gamma(n + 1.0 - sorted_at[:, -1:])
    rates = np.empty_like(path)
    np.put_along_axis(rates, order, path, 1)
    tol = _SNAP * max(total, 1.0)
    return (np.where(low <= tol, 0.0, rates[:, :k]),
            np.where(high >= total - tol, 1.0, rates[:, k:]))


def _other_rates(cross: _Crossing, shares: np.ndarray, concave: bool, n_resamples: int,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(n_resamples, k) draws of the other class's rate above the threshold at which
    the crossing class's rate is ``shares``: the read for the lower and the upper limit.

    A draw takes how many crossing rows lie above that threshold, ``K``, from its
    exact law (the multinomial of the uniform draws over the gaps between the
    shares), and where the threshold falls between the ``K``-th and ``K + 1``-th of
    them; reads the other class's weight there on the chord between the two (in the
    step before the first and after the last crossing row, one limit reads the
    step's far end instead); and draws its rate from the Jeffreys posterior.
    """
    order = np.argsort(shares, kind="stable")
    u = shares[order]
    k = u.shape[0]
    gap_p = np.diff(np.concatenate([[0.0], u, [1.0]]))
    low, high = np.empty((n_resamples, k)), np.empty((n_resamples, k))
    batch = batch_size(8 * 24 * (k + 1), n_resamples)
    for start in track(range(0, n_resamples, batch), "curve band draws (batches)"):
        b = min(batch, n_resamples - start)
        gaps = rng.multinomial(cross.n_x, gap_p, size=b)
        count = np.cumsum(gaps[:, :-1], axis=1)
        frac = _step_fractions(rng, gaps, u)
        at, after = cross.other[count], cross.other[count + 1]
        chord = at + frac * (after - at)
        # a concave ROC curve lies above its chords: in the first and last step, where
        # it may rise steeply, the chord bounds the value below and the step's far end
        # above (the other class's rate is concave in a specificity's share, convex in
        # a sensitivity's)
        end = (count == 0) | (count == cross.n_x)
        low_read = np.where(end & ~concave, at, chord)
        high_read = np.where(end & concave, after, chord)
        lo, hi = _jeffreys_rates(rng, low_read, high_read, cross.y_total, cross.n_y)
        low[start:start + b, order], high[start:start + b, order] = lo, hi
    return low, high


def _draws(axis: str, grid: np.ndarray, cross: _Crossing, n_resamples: int,
           rng: np.random.Generator) -> np.ndarray:
    """(2, n_resamples, k) draws of the curve's value: for the lower, for the upper limit."""
    shares = 1.0 - grid if axis == "specificity" else grid
    low, high = _other_rates(cross, shares, axis == "specificity", n_resamples, rng)
    if axis == "specificity":
        out = np.stack([low, high])
    elif axis == "sensitivity":
        out = np.stack([1.0 - high, 1.0 - low])
    else:  # precision at the recall: recall * P / (recall * P + rate * N)
        tp = grid * cross.x_total
        out = np.stack([tp / (tp + high * cross.y_total), tp / (tp + low * cross.y_total)])
    if axis != "recall":
        out[:, :, grid == 0] = 1.0  # the best point: sensitivity 1 at specificity 0, and back
    return out


def _clustered_draws(path: SortedScores, axis: str, grid: np.ndarray, rows: _Rows,
                     kind: str, level: float, n_resamples: int, rng: np.random.Generator
                     ) -> np.ndarray:
    """The draws of :func:`_draws` with each class's effective count divided by its
    design effect at the grid's thresholds (:mod:`._clustered_curves`): at each
    point its own (pointwise; points with equal counts drawn together), or the
    largest over the grid for every point (simultaneous: whole drawn curves)."""
    from dartboard.uncertainty._clustered_curves import (
        decile_fallback,
        path_design_effects,
        small_sample,
    )

    positive, s, w, index = rows
    assert index is not None  # the draws of clustered rows
    weight = np.ones(s.shape[0]) if w is None else w.astype(np.float64)
    live = weight > 0
    group = path.scores.shape[0] - 1 - np.searchsorted(path.scores[::-1], s[live])
    x, y = (path.neg, path.pos) if axis == "specificity" else (path.pos, path.neg)
    cx = path.cumulative(x[None, :], y[None, :])[0]
    target, c = (v[0] for v in _locate(axis, grid, cx))
    within = cx[0, c + 1] - cx[0, c]
    frac = np.clip((target - cx[0, c]) / np.where(within > 0, within, 1.0), 0.0, 1.0)
    is_x = (~positive if axis == "specificity" else positive)[live]
    codes, n_rows = index.codes[live], int(np.count_nonzero(live))
    deffs = []
    for mask in (is_x, ~is_x):
        args = (codes[mask], index.n_clusters, group[mask], weight[live][mask])
        raw = path_design_effects(*args, c, frac)
        fallback = decile_fallback(*args, path.scores.shape[0])
        deffs.append(small_sample(raw, fallback, index.n_clusters, n_rows, level))
    pairs = np.stack(deffs, axis=1)
    if kind == "simultaneous":
        pairs[:] = pairs.max(axis=0)
    out = np.empty((2, n_resamples, grid.shape[0]))
    unique, which = np.unique(pairs, axis=0, return_inverse=True)
    for j, (d_x, d_y) in enumerate(unique):
        at = np.flatnonzero(which.ravel() == j)
        cross = _Crossing.of(path, axis, positive, w, (float(d_x), float(d_y)))
        out[:, :, at] = _draws(axis, grid[at], cross, n_resamples, rng)
    return out


def _simultaneous_limits(draws: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, int]:
    """The band from the ``m``-th lowest lower draw to the ``m``-th highest upper draw
    at each point, ``m`` the largest for which it holds a ``level`` share of the drawn
    curves whole (Mandel & Betensky 2008), with ``m`` itself (0-based)."""
    _, r, _ = draws.shape
    top = min(r - 1, int(np.ceil((1.0 - level) * r)))  # no simultaneous m beyond it
    lows = np.sort(np.partition(draws[0], top, axis=0)[:top + 1], axis=0)
    highs = np.sort(np.partition(draws[1], r - 1 - top, axis=0)[r - 1 - top:], axis=0)[::-1]

    def holds(m: int) -> bool:
        inside = np.all((draws[0] >= lows[m]) & (draws[1] <= highs[m]), axis=1)
        return np.count_nonzero(inside) >= level * r - 1e-9

    lo, hi = 0, top  # holds(0): every draw lies within the envelope
    while lo < hi:   # inside shares fall as m grows: the largest m that holds
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if holds(mid) else (lo, mid - 1)
    return lows[lo], highs[lo], lo


# ------------------------------------------------------------------ public faces

def _band_iv(y_true: Any, y_score: Any, grid: Any, grid_name: str, kind: Any,
             confidence_level: Any, n_resamples: Any, sample_weight: Any, pos_label: Any,
             clusters: Any, open_zero: bool = False) -> tuple[Any, ...]:
    kind = check_option(kind, "kind", KINDS)
    level = check_confidence_level(confidence_level)
    n_resamples = check_n_resamples(n_resamples)
    g = as_float_array(grid, name=grid_name, ndim=1)
    if np.any(g < 0) or np.any(g > 1) or (open_zero and np.any(g == 0)):
        bound = "(0, 1]" if open_zero else "[0, 1]"
        raise InputError(f"{grid_name} must lie in {bound}; got values from {float(g.min()):g} "
                         f"to {float(g.max()):g}")
    check_n_resamples(n_resamples, per_resample=HELD * g.shape[0],
                      held=f"{HELD} x len({grid_name})")
    positive, s, w, _ = binary_positive(y_true, y_score, pos_label, sample_weight,
                                        refuse_absent=True, multiclass_ok=True)
    # the draws treat weights as masses (Kish's effective counts), as intervals do
    check_sample_weight(sample_weight, s.shape[0])
    wpos = positive if w is None else positive & (w > 0)
    wneg = ~positive if w is None else ~positive & (w > 0)
    if not wpos.any() or not wneg.any():
        raise InputError("y_true must hold both classes (with positive weight) for a "
                         "curve band; got only "
                         + ("negatives" if not wpos.any() else "positives"))
    index = None if clusters is None else curve_clusters(clusters, positive, w)
    return (positive, s, w, index), g, kind, level, n_resamples


def _band(curve: str, axis: str, rows: _Rows, grid: np.ndarray, kind: str, level: float,
          n_resamples: int, random_state: Any) -> CurveBand:
    positive, s, w, index = rows
    path = SortedScores.build(positive, s, w)
    cp, cn = path.cumulative(path.pos[None, :], path.neg[None, :])
    cx, cy = (cn, cp) if axis == "specificity" else (cp, cn)
    estimate = _read_cumulative(axis, grid, cx, cy)[0]
    rng = check_random_state(random_state)
    if index is None:
        draws = _draws(axis, grid, _Crossing.of(path, axis, positive, w), n_resamples, rng)
        method = METHODS[kind]
    else:
        draws = _clustered_draws(path, axis, grid, rows, kind, level, n_resamples, rng)
        method = f"{METHODS[kind]} (clustered: {index.n_clusters} clusters)"
    if kind == "pointwise":
        tail = (1.0 - level) / 2
        low = np.quantile(draws[0], tail, axis=0)
        high = np.quantile(draws[1], 1.0 - tail, axis=0)
        pointwise = level
    else:
        low, high, m = _simultaneous_limits(draws, level)
        pointwise = 1.0 - 2.0 * m / n_resamples
    return CurveBand(curve, axis, grid, estimate, np.minimum(low, estimate),
                     np.maximum(high, estimate), level, kind, method, n_resamples,
                     pointwise, draws)


@takes_progress
def roc_band(y_true: ArrayLike, y_score: ArrayLike, *, specificities: Any = None,
             sensitivities: Any = None, kind: BandKind = "pointwise",
             confidence_level: float = 0.95, n_resamples: int = 2000,
             random_state: RandomStateLike = None, sample_weight: ArrayLike | None = None,
             pos_label: Any = None, clusters: ArrayLike | None = None,
             progress: bool | None = None) -> CurveBand:
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
        An interval at each point, or a band that holds the whole curve over the
        grid at ``confidence_level``.
    confidence_level : float, default=0.95
        Confidence level of the interval, in (0, 1).
    n_resamples : int, default=2000
        Drawn curves (see the module notes). ``n_resamples * 3 * len(grid)`` may
        not pass ``dartboard._validation.MAX_RESAMPLES`` (the draws are held in
        memory).
    random_state : None, int, SeedSequence or Generator
        A seed (int), a ``SeedSequence``, a ``Generator``, or None for fresh entropy.
    sample_weight : array-like, optional
        Non-negative row weights (masses; each class's effective count is Kish's).
    pos_label : label, optional
        The positive class (rule "strict", as :func:`dartboard.metrics.roc_curve`).
    clusters : array-like of shape (n_samples,), optional
        The cluster of each row (a patient, a user) when rows are not independent:
        each class's effective count is divided by its design effect at the
        threshold of each point (see Notes). At least two clusters, none missing.
    progress : bool, optional
        A progress bar over the draws on standard error: None (the default) shows it
        when standard error is a terminal and the work lasts more than a second;
        True always; False never.

    Returns
    -------
    CurveBand

    See Also
    --------
    dartboard.pr_band : The precision-recall curve's band.
    dartboard.select_threshold : A threshold with its rates' intervals.
    dartboard.plots.plot_roc_curve : Draws the curve with its band.

    Notes
    -----
    With ``clusters`` the draws are those of independent rows (module notes) with
    each class's effective count ``n`` replaced by ``n / deff``: ``deff`` is the
    cluster-robust variance of the class's share above the point's threshold over
    its variance as independent rows, times ``(t_{C-1} / t_{N-1})^2`` for ``C``
    clusters and ``N`` rows, at least 1 (:mod:`dartboard.uncertainty._clustered_curves`).
    A pointwise band takes each point's own design effects (its draws are then
    whole curves only among points of equal effective counts); a simultaneous band
    the largest over the grid, for every point. One row per cluster gives the
    independent band, bit for bit. Measured (``benchmarks/clustered_curves_coverage.py``,
    1000 data sets per cell, 30 and 100 clusters of 10 rows, intra-cluster
    correlation 0, 0.2 and 0.5 of the latent label and score): the clustered
    pointwise band covered 95.6-99.5% at specificities 0.1, 0.5 and 0.9 (independent
    rows 83.7-84.9% at 0.5 and 0.9 with correlation 0.5), the simultaneous band
    98.1-99.9% (independent rows 76.1-84.4%). It falls short nowhere measured, and
    it errs wide: the design effects of the two classes ignore that a cluster's
    positives and negatives move together (which lowers the variance of the value
    read), the floor at 1 and the t correction widen it a little with no
    correlation (97.0% against 95.9% at specificity 0.5, 30 clusters), and the
    simultaneous band takes the largest design effect over the grid. With 10 and 20
    clusters (correlation 0.5) it covered 97.1-100%.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.zeros(200), np.ones(200)]
    >>> s = y + rng.normal(size=400)
    >>> band = roc_band(y, s, specificities=[0.9], random_state=0)
    >>> bool(band.low[0] < band.estimate[0] < band.high[0])
    True

    Where every positive outscores the negatives at the threshold the sensitivity
    reads 1, yet the interval stays open below it:

    >>> y = np.r_[np.zeros(50), np.ones(50)]
    >>> s = np.r_[np.linspace(0, 1, 50), np.linspace(0.2, 1.2, 50)]
    >>> band = roc_band(y, s, specificities=[0.1], random_state=0)
    >>> float(band.estimate[0]), bool(0.9 < band.low[0] < 1.0)
    (1.0, True)

    Twenty patients of ten rows each, who share how well the model does on them:

    >>> patient = np.repeat(np.arange(20), 10)
    >>> y = rng.integers(0, 2, size=200)
    >>> s = y + rng.normal(size=20)[patient] + rng.normal(size=200)
    >>> band = roc_band(y, s, specificities=[0.5], clusters=patient, random_state=0)
    >>> band.method
    'fiducial (clustered: 20 clusters)'
    """
    if specificities is not None and sensitivities is not None:
        raise InputError("give specificities or sensitivities, not both")
    axis = "sensitivity" if sensitivities is not None else "specificity"
    grid = sensitivities if sensitivities is not None else specificities
    if grid is None:
        grid = np.linspace(0.0, 1.0, 101)
    if isinstance(grid, numbers.Real):
        grid = [grid]
    name = "sensitivities" if axis == "sensitivity" else "specificities"
    rows, g, kind, level, n = _band_iv(y_true, y_score, grid, name, kind, confidence_level,
                                       n_resamples, sample_weight, pos_label, clusters)
    return _band("roc", axis, rows, g, kind, level, n, random_state)


@takes_progress
def pr_band(y_true: ArrayLike, y_score: ArrayLike, *, recalls: Any = None, kind: BandKind = "pointwise",
            confidence_level: float = 0.95, n_resamples: int = 2000,
            random_state: RandomStateLike = None, sample_weight: ArrayLike | None = None,
            pos_label: Any = None, clusters: ArrayLike | None = None,
            progress: bool | None = None) -> CurveBand:
    """Confidence band of a precision-recall curve: precision at given recalls.

    Precision at recall ``r`` is read on the ROC curve interpolated as pROC does
    (the first point reaching sensitivity ``r``, or the straight line into it),
    which in PR space is the Davis-Goadrich interpolation. Arguments as
    :func:`roc_band`; ``recalls`` in (0, 1], default ``0.01, 0.02, ..., 1``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (with other labels than {0, 1} or {-1, 1}, ``pos_label``).
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive.
    recalls : array-like, optional
        Recalls in (0, 1] at which precision is read; default ``0.01, 0.02, ..., 1``.
    kind : {"pointwise", "simultaneous"}, default="pointwise"
        An interval at each recall, or a band that holds the whole curve over the
        grid at ``confidence_level``.
    confidence_level : float, default=0.95
        The intervals' confidence level.
    n_resamples : int, default=2000
        Drawn curves, as :func:`roc_band`.
    random_state : None, int, SeedSequence or Generator
        Seed of the resamples.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights.
    pos_label : label, optional
        The positive class (rule "strict", as :func:`dartboard.metrics.roc_curve`).
    clusters : array-like of shape (n_samples,), optional
        The cluster of each row: each class's effective count divided by its design
        effect, as :func:`roc_band`.
    progress : bool, optional
        A progress bar over the draws on standard error: None (the default) shows it
        when standard error is a terminal and the work lasts more than a second;
        True always; False never.

    Returns
    -------
    CurveBand

    See Also
    --------
    dartboard.roc_band : The ROC curve's band.
    dartboard.plots.plot_precision_recall_curve : Draws the curve with its band.

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
    rows, g, kind, level, n = _band_iv(y_true, y_score, grid, "recalls", kind,
                                       confidence_level, n_resamples, sample_weight,
                                       pos_label, clusters, open_zero=True)
    return _band("pr", "recall", rows, g, kind, level, n, random_state)
