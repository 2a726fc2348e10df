"""Bootstrap engines and the percentile, basic and BCa intervals.

Three engines produce the bootstrap distribution; each resamples the n rows
(samples) with replacement, the weight of a row travelling with it:

- counts (:func:`count_replicates`): for a count metric only the confusion
  matrix matters. Rows are grouped by (true, predicted, weight); the number of
  draws from each group is Multinomial(n, size/n) (stratified: one multinomial
  per true class), so a replicate costs O(groups), at most K^2 without weights.
  The jackknife has one distinct leave-one-out value per group, weighted by
  the group's size.
- generic (:func:`generic_replicates`): index resampling for any callable, in
  batches whose index array stays under ``BATCH_BYTES``.

(Ranking metrics draw over their family's cells: :mod:`dartboard.families._scores`.)

For the generic engine the jackknife (needed by BCa) is exact leave-one-out up to
``JACKKNIFE_MAX`` rows; beyond that it is a delete-a-group jackknife over
``JACKKNIFE_MAX`` random groups of near-equal size (Efron & Tibshirani 1993,
section 11.5), which estimates the acceleration at a bounded cost.

Intervals from a distribution ``theta*`` of R replicates (Efron & Tibshirani
1993, ch. 13-14, the definitions of ``scipy.stats.bootstrap``):

- percentile: the ``alpha/2`` and ``1 - alpha/2`` quantiles of ``theta*``;
- basic: ``2 theta_hat - q(1 - alpha/2)``, ``2 theta_hat - q(alpha/2)``,
  clipped to the metric's range (its registry ``bounds``);
- BCa: quantiles at ``Phi(z0 + (z0 + z)/(1 - a (z0 + z)))`` for
  ``z = z_{alpha/2}, z_{1-alpha/2}``, with ``z0 = Phi^{-1}(share of theta* below
  theta_hat, ties counted half)`` and the acceleration
  ``a = sum d^3 / (6 (sum d^2)^{3/2})``, ``d`` the jackknife deviations.

Degenerate cases: replicates on which the metric is undefined (nan) are dropped
with a warning giving their number; if all replicates are equal the interval
is degenerate (zero width) with a warning; BCa falls back to the percentile
interval, with a warning, when ``z0`` is infinite (theta_hat outside the
distribution) or the jackknife values are all equal (no acceleration).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from dartboard._kernels._result import clip_to_range
from dartboard.exceptions import InputError, InputTypeError

BATCH_BYTES = 64 * 2**20
JACKKNIFE_MAX = 1000


class IntervalWarning(UserWarning):
    """An interval needed a documented fallback or is degenerate (see the docstrings).

    Examples
    --------
    Recall without a positive sample is undefined (0/0); its interval warns:

    >>> import warnings
    >>> from dartboard import interval
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = interval("recall_score", [0, 0, 0, 0], [0, 1, 0, 0], method="wilson")
    >>> sorted({w.category.__name__ for w in caught})
    ['IntervalWarning', 'UndefinedMetricWarning']
    """


@dataclass(frozen=True)
class Replicates:
    values: np.ndarray
    jackknife: np.ndarray | None = None
    jackknife_weights: np.ndarray | None = None


# --------------------------------------------------------------------- intervals

def _std(values: np.ndarray) -> float:
    """The sample standard deviation (ddof = 1), computed at unit scale: the squares of
    replicates near 1e200 overflow (inf) and those near 1e-200 underflow (0)."""
    largest = float(np.max(np.abs(values)))
    if largest == 0.0 or not np.isfinite(largest):
        return float(np.std(values, ddof=1))
    exponent = int(np.frexp(largest)[1])
    with np.errstate(under="ignore"):  # replicates 2**-1074 below the largest: 0
        return float(np.ldexp(np.std(np.ldexp(values, -exponent), ddof=1), exponent))


def bootstrap_interval(estimate: float, reps: Replicates, confidence_level: float,
                       method: str, bounds: tuple[float, float] | None = None
                       ) -> tuple[float, float, float, str, np.ndarray]:
    """(low, high, standard_error, method used, distribution) from replicates.

    ``bounds`` is the metric's range (a registry fact): the basic interval
    reflects quantiles around the estimate and can leave it (F1 up to 1.03), so
    the bounds are clipped to it, and the method says so ("basic, clipped to [0, 1]").
    """
    values = reps.values
    bad = np.isnan(values)
    if bad.any():
        n_bad = int(bad.sum())
        if n_bad == values.shape[0]:
            raise InputError(f"the metric is undefined (nan) on all {n_bad} bootstrap "
                             "resamples; no interval can be formed (is a class missing, "
                             "or is the metric undefined on this data?)")
        warnings.warn(f"the metric is undefined on {n_bad} of {values.shape[0]} bootstrap "
                      "resamples (e.g. a resample without positive samples); those "
                      "replicates are dropped. Consider stratified=True.",
                      IntervalWarning, stacklevel=4)
        values = values[~bad]
    alpha = (1.0 - confidence_level) / 2.0
    se = _std(values) if values.shape[0] > 1 else 0.0
    if values.min() == values.max():
        warnings.warn(f"all {values.shape[0]} bootstrap replicates equal {float(values[0])!r}: the "
                      "interval is degenerate (zero width)", IntervalWarning, stacklevel=4)
        if method == "bca":
            method = "percentile"
    levels = np.array([alpha, 1.0 - alpha])
    if method == "bca":
        bca = _bca_levels(estimate, values, reps, alpha)
        if bca is None:
            method = "percentile"
        else:
            levels = bca
    low, high = np.quantile(values, levels)
    if method == "basic":
        low, high = 2.0 * estimate - high, 2.0 * estimate - low
    low, high, method = clip_to_range(float(low), float(high), bounds, method)
    return low, high, se, method, values


def bca_intervals(estimates: np.ndarray, values: np.ndarray, jack: np.ndarray,
                  weights: np.ndarray, confidence_level: float,
                  bounds: tuple[float, float] | None
                  ) -> list[tuple[float, float, float, str] | None]:
    """:func:`bootstrap_interval` with ``method="bca"`` of many statistics at once:
    ``(low, high, standard_error, method)`` of row g of ``values`` (G, R) with the
    jackknife ``jack`` and its weights (G, C), each the numbers the one-row function
    gives, bit for bit (the same operations on each row; numpy's linear quantile on the
    sorted row). None for a row that function would treat otherwise (a nan replicate,
    equal replicates, an estimate outside the replicates, a jackknife with a nan, a
    weight of 0 or equal values: each warns and may fall back), to be formed one by
    one."""
    g, r = values.shape
    out: list[tuple[float, float, float, str] | None] = [None] * g
    if g == 0 or r < 2:
        return out
    est = np.asarray(estimates, dtype=np.float64)
    low_value, high_value = values.min(axis=1), values.max(axis=1)
    largest = np.maximum(np.abs(low_value), np.abs(high_value))
    clean = ~np.isnan(values).any(axis=1) & (low_value != high_value) & \
        np.isfinite(largest) & (largest > 0)
    clean &= ~np.isnan(jack).any(axis=1) & (weights > 0).all(axis=1)
    if jack.shape[1] < 2:
        return out
    clean &= jack.min(axis=1) != jack.max(axis=1)
    scale = np.maximum(np.abs(est), largest)
    tie = (_TIE_ULPS * np.finfo(np.float64).eps * scale)[:, None]
    share = (np.count_nonzero(values < est[:, None] - tie, axis=1)
             + np.count_nonzero(values <= est[:, None] + tie, axis=1)) / (2.0 * r)
    clean &= (share > 0.0) & (share < 1.0)
    rows = np.flatnonzero(clean)
    if rows.size == 0:
        return out
    v = values[rows]
    # the standard error at unit scale (_std)
    exponent = np.frexp(largest[rows])[1]
    with np.errstate(under="ignore"):
        se = np.ldexp(np.std(np.ldexp(v, -exponent[:, None]), ddof=1, axis=1), exponent)
    z0 = special.ndtri(share[rows])
    jk, w = jack[rows], np.asarray(weights[rows], dtype=np.float64)
    d = (np.multiply(jk, w).sum(axis=1) / w.sum(axis=1))[:, None] - jk
    d = d / np.max(np.abs(d), axis=1)[:, None]
    # the power 1.5 of each row's scalar, as the one-row function takes it: numpy's
    # power of an array can round otherwise than that of a scalar
    spread = np.array([x ** 1.5 for x in np.sum(w * d**2, axis=1)])
    a = np.sum(w * d**3, axis=1) / (6.0 * spread)
    alpha = (1.0 - confidence_level) / 2.0
    z = special.ndtri(np.array([alpha, 1.0 - alpha]))
    zz = z0[:, None] + z
    levels = special.ndtr(z0[:, None] + zz / (1.0 - a[:, None] * zz))
    found = sorted_quantiles(_sorted_ends(v, levels), levels)
    # np.quantile refuses a level outside [0, 1] (nan): that row's own route says so
    fine = (levels >= 0.0).all(axis=1) & (levels <= 1.0).all(axis=1)
    for i, row in enumerate(rows):
        if not fine[i]:
            continue
        low, high, method = clip_to_range(float(found[i, 0]), float(found[i, 1]), bounds,
                                          "bca")
        out[row] = (low, high, float(se[i]), method)
    return out


def _sorted_ends(rows: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """``rows`` sorted wherever :func:`sorted_quantiles` reads them at ``levels`` (G, 2):
    each row partitioned past the highest position the low quantiles read and before
    the lowest the high ones read, and those two ends sorted (the order statistics of
    a full sort, for less work)."""
    n = rows.shape[1]
    virtual = (n - 1) * np.clip(np.nan_to_num(levels), 0.0, 1.0)
    left = int(min(np.floor(virtual[:, 0]).max() + 1, n - 1))
    right = int(max(np.floor(virtual[:, 1]).min(), 0))
    if left >= right:
        return np.sort(rows, axis=1)
    part = np.partition(rows, (left, right), axis=1)
    part[:, :left + 1].sort(axis=1)
    part[:, right:].sort(axis=1)
    return part


def sorted_quantiles(sorted_rows: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """``np.quantile(row, levels[g])`` of each sorted row g (numpy's default linear
    method, the same operations: ``(n - 1) q``, its floor, and the lerp that counts
    from the upper neighbour past half), without a call per row."""
    n = sorted_rows.shape[1]
    virtual = (n - 1) * levels
    previous = np.floor(virtual)
    nxt = previous + 1
    above = virtual >= n - 1
    previous[above] = n - 1
    nxt[above] = n - 1
    below = virtual < 0
    previous[below] = 0
    nxt[below] = 0
    lo, hi = previous.astype(np.intp), nxt.astype(np.intp)
    # numpy's gamma reads the index it moved to -1 above the last value: the weight of
    # two equal neighbours, so any weight gives the value
    gamma = virtual - np.where(above, -1, lo)
    at = np.arange(sorted_rows.shape[0])[:, None]
    a, b = sorted_rows[at, lo], sorted_rows[at, hi]
    diff = b - a
    out = a + diff * gamma
    upper = gamma >= 0.5
    out[upper] = (b - diff * (1 - gamma))[upper]
    return out


#: replicates within this many units of the last place of the estimate tie with it
_TIE_ULPS = 64


def _bca_levels(estimate: float, values: np.ndarray, reps: Replicates,
                alpha: float) -> np.ndarray | None:
    # replicates equal to the estimate count half; "equal" within rounding, as the
    # estimate and the replicates may be sums taken in another order
    scale = max(abs(estimate), float(np.max(np.abs(values))))
    tie = _TIE_ULPS * np.finfo(np.float64).eps * scale
    share = (np.count_nonzero(values < estimate - tie)
             + np.count_nonzero(values <= estimate + tie)) / (2.0 * values.shape[0])
    if share <= 0.0 or share >= 1.0:
        warnings.warn("BCa is undefined because the estimate lies outside the bootstrap "
                      "distribution (bias correction z0 is infinite); the percentile "
                      "interval is returned instead", IntervalWarning, stacklevel=5)
        return None
    z0 = special.ndtri(share)
    jack, w = reps.jackknife, reps.jackknife_weights
    if jack is None:  # pragma: no cover - every engine supplies it for BCa
        raise RuntimeError("BCa needs jackknife values")
    w = np.ones_like(jack) if w is None else np.asarray(w, dtype=np.float64)
    keep = ~np.isnan(jack) & (w > 0)
    if np.isnan(jack).any():
        warnings.warn(f"BCa's acceleration leaves out {int(np.isnan(jack).sum())} "
                      "leave-one-out value(s) on which the metric is undefined (a class "
                      "that only one row holds, say)", IntervalWarning, stacklevel=5)
    jack, w = jack[keep], w[keep]
    if jack.shape[0] < 2 or jack.min() == jack.max():
        warnings.warn("BCa acceleration is undefined because the jackknife values are all "
                      "equal; the percentile interval is returned instead",
                      IntervalWarning, stacklevel=5)
        return None
    d = np.average(jack, weights=w) - jack
    # a is scale-free: scaling d to a largest value of 1 keeps its cube and the
    # power 1.5 from under- or overflowing on metrics of 1e-200 or 1e200
    d = d / np.max(np.abs(d))
    a = float(np.sum(w * d**3) / (6.0 * np.sum(w * d**2) ** 1.5))
    z = special.ndtri(np.array([alpha, 1.0 - alpha]))
    return special.ndtr(z0 + (z0 + z) / (1.0 - a * (z0 + z)))


# --------------------------------------------------------------------- draws

def batch_size(bytes_per_replicate: int, n_resamples: int, fraction: int = 1) -> int:
    budget = BATCH_BYTES // fraction
    return int(max(1, min(n_resamples, budget // max(bytes_per_replicate, 1))))


def draw_indices(rng: np.random.Generator, size: int, strata: np.ndarray) -> np.ndarray:
    """(size, n) positions into data whose strata are contiguous blocks.

    ``strata`` holds the block lengths; one block is plain resampling, several
    blocks resample within each block (stratified bootstrap).
    """
    if strata.shape[0] == 1:
        return rng.integers(0, int(strata[0]), size=(size, int(strata[0])))
    starts = np.concatenate([[0], np.cumsum(strata)[:-1]])
    return np.concatenate([start + rng.integers(0, int(length), size=(size, int(length)))
                           for start, length in zip(starts, strata)], axis=1)


def _jackknife_groups(n: int, rng: np.random.Generator) -> list[np.ndarray] | None:
    """None for exact leave-one-out, else random near-equal groups to delete."""
    if n <= JACKKNIFE_MAX:
        return None
    return np.array_split(rng.permutation(n), JACKKNIFE_MAX)


# --------------------------------------------------------------------- counts

@dataclass(frozen=True)
class CountGroups:
    """Rows grouped by (confusion cell, weight): the only thing a count metric sees."""

    n_classes: int
    cell: np.ndarray     # (G,) cell index true * K + pred, non-decreasing
    weight: np.ndarray   # (G,) weight of each row of the group
    size: np.ndarray     # (G,) number of rows

    @classmethod
    def from_codes(cls, t: np.ndarray, p: np.ndarray, k: int,
                   w: np.ndarray | None) -> CountGroups:
        cells = t.astype(np.int64) * k + p
        if w is None:
            size = np.bincount(cells, minlength=k * k)
            present = np.flatnonzero(size)
            return cls(k, present, np.ones(present.shape[0]), size[present])
        w = np.asarray(w, dtype=np.float64)
        order = np.lexsort((w, cells))
        c, ww = cells[order], w[order]
        new = np.ones(c.shape[0], dtype=bool)
        new[1:] = (c[1:] != c[:-1]) | (ww[1:] != ww[:-1])
        starts = np.flatnonzero(new)
        size = np.diff(np.append(starts, c.shape[0]))
        return cls(k, c[starts], ww[starts], size)

    @classmethod
    def from_matrix(cls, matrix: np.ndarray) -> CountGroups:
        """Groups of a (K, K) matrix of frequency counts: one group per non-empty cell.

        Equal to :meth:`from_codes` without weights on the rows the matrix counts
        (whole numbers only; the caller checks).
        """
        k = matrix.shape[0]
        flat = np.asarray(matrix).ravel()
        present = np.flatnonzero(flat)
        return cls(k, present, np.ones(present.shape[0]), flat[present].astype(np.int64))

    def matrices(self, counts: np.ndarray) -> np.ndarray:
        """(b, K, K) weighted confusion matrices from (b, G) group draw counts."""
        k = self.n_classes
        # rows of weight 1 (no sample_weight): the counts themselves
        weighted = counts.astype(np.float64, copy=False) if np.all(self.weight == 1.0) \
            else counts * self.weight
        starts = np.flatnonzero(np.diff(self.cell, prepend=-1))
        if self.cell.shape[0] == starts.shape[0] == k * k:
            # every cell once, in order: the matrices as laid out
            return weighted.reshape(-1, k, k)
        out = np.zeros((counts.shape[0], k * k))
        if starts.shape[0] == self.cell.shape[0]:
            out[:, self.cell] = weighted
        else:
            out[:, self.cell[starts]] = np.add.reduceat(weighted, starts, axis=1)
        return out.reshape(-1, k, k)


def count_replicates(evaluate: Callable[[np.ndarray], np.ndarray], groups: CountGroups,
                     n_resamples: int, stratified: bool, rng: np.random.Generator,
                     jackknife: bool) -> Replicates:
    """Bootstrap distribution of a count metric by multinomial draws of the groups."""
    k = groups.n_classes
    return multinomial_replicates(lambda counts: evaluate(groups.matrices(counts)),
                                  groups.size, groups.cell // k, 8 * 2 * k * k, n_resamples,
                                  stratified, rng, jackknife, keep=True)


def multinomial_replicates(evaluate: Callable[[np.ndarray], np.ndarray], size: np.ndarray,
                           stratum: np.ndarray, bytes_per_value: int, n_resamples: int,
                           stratified: bool, rng: np.random.Generator, jackknife: bool,
                           jackknife_values: Callable[[], np.ndarray] | None = None,
                           draw: Callable[..., np.ndarray] | None = None,
                           keep: bool = False) -> Replicates:
    """Bootstrap of a statistic of G groups of identical rows, by multinomial draws.

    A resample of the n rows draws ``Multinomial(n, size / n)`` rows from the
    groups (stratified: one multinomial per ``stratum`` value, of that
    stratum's rows). ``evaluate`` maps a (b, G) array of draw counts to the b
    values (or to (b, ...) vectors, without the jackknife);
    ``bytes_per_value`` is its working memory per value beyond the
    counts. The jackknife has one leave-one-out value per group (weighted by
    the group's size): ``evaluate`` of the counts minus one row of the group,
    or ``jackknife_values()`` when the caller has them in closed form.
    ``draw(rng, size, b)``, when given, draws the (b, G) counts of an unstratified
    resample instead of ``rng.multinomial`` (e.g. :func:`split_multinomial`).
    ``keep``: ``evaluate`` draws nothing from ``rng``, so the counts may be kept for the
    next call from the same generator state (:func:`_kept_draws`); a statistic that
    draws (a cell's sum given its count) must not share them, as its own draws sit
    between the batches' counts in the stream.
    """
    g = size.shape[0]
    batch = batch_size(8 * 3 * g + bytes_per_value, n_resamples)
    values = None
    joined = jackknife and jackknife_values is None and g <= _JOINED_JACKKNIFE
    jack = None
    strata = [np.flatnonzero(stratum == r) for r in np.unique(stratum)] if stratified \
        else [np.arange(g)]
    keep = keep and n_resamples * g <= _KEPT_DRAW_VALUES
    key = draw_key(rng, size.dtype.str, size.tobytes(), stratum.tobytes(), stratified,
                   n_resamples, batch, draw) if keep else ()
    kept = _kept_draws(key, rng) if keep else None
    drawn = []
    for number, start in enumerate(range(0, n_resamples, batch)):
        b = min(batch, n_resamples - start)
        if kept is not None:
            counts = kept[number]
        elif draw is not None and not stratified:
            counts = draw(rng, size, b)
        else:
            counts = np.zeros((b, g))
            for members in strata:
                sizes = size[members]
                total = int(sizes.sum())
                counts[:, members] = rng.multinomial(total, sizes / total, size=b)
        if keep and kept is None:
            drawn.append(counts.copy())
        if joined and start + b == n_resamples and counts.dtype == np.float64:
            # the last batch carries the leave-one-out counts: one call, not two
            out = evaluate(np.concatenate([counts, _left_out(size)]))
            jack, out = out[b:], out[:b]
        else:
            out = evaluate(counts)
        if values is None:  # a statistic may be a vector (a curve band): (b, ...) values
            values = np.empty((n_resamples,) + np.shape(out)[1:])
        values[start:start + b] = out
    assert values is not None  # n_resamples >= 1
    if kept is None and drawn:
        keep_draws(_LAST_DRAWS, key, drawn, rng)
    if not jackknife:
        return Replicates(values)
    full = size.astype(np.float64)
    if jackknife_values is not None:
        return Replicates(values, jackknife_values(), full)
    if jack is not None:
        return Replicates(values, jack, full)
    jack = np.empty(g)
    batch = batch_size(8 * g + bytes_per_value, g)
    for start in range(0, g, batch):
        stop = min(start + batch, g)
        jack[start:stop] = evaluate(_left_out(size, start, stop))
    return Replicates(values, jack, full)


#: groups up to which the leave-one-row-out counts ride with the last batch of draws
_JOINED_JACKKNIFE = 64


def _left_out(size: np.ndarray, start: int = 0, stop: int | None = None) -> np.ndarray:
    """``(stop - start, G)`` float counts: all rows, less one row of group ``start`` in
    the first, of group ``start + 1`` in the second, and so on (the jackknife's)."""
    g = size.shape[0]
    stop = g if stop is None else stop
    counts = np.broadcast_to(size.astype(np.float64), (stop - start, g)).copy()
    counts[np.arange(stop - start), np.arange(start, stop)] -= 1.0
    return counts


# Kept draws. An evaluation asks for each metric's interval from a generator seeded the
# same way, so the metrics of one state (the count metrics of one confusion table) draw
# the same counts. A store (one per kind of draw, per thread) holds the last call's
# draws under its key, which starts with the generator's state before drawing; the next
# call with the same key takes them and moves its generator to the state after them:
# the same bits as drawing again.

def draw_key(rng: np.random.Generator, *what: Any) -> tuple[Any, ...]:
    """The key of draws from ``rng``'s present state of ``what`` (sizes, batches...)."""
    return (repr(rng.bit_generator.state), *what)


def kept_draws(store: threading.local, key: tuple[Any, ...], rng: np.random.Generator
               ) -> list[Any] | None:
    """The draws ``store`` holds under ``key`` (``rng`` then moved past them), else None."""
    found = getattr(store, "found", None)
    if found is None or found[0] != key:
        return None
    rng.bit_generator.state = found[2]
    return list(found[1])


def keep_draws(store: threading.local, key: tuple[Any, ...], draws: list[Any] | None,
               rng: np.random.Generator) -> None:
    """Hold ``draws`` under ``key`` with ``rng``'s state after them (None: hold nothing)."""
    store.found = None if draws is None else (key, draws, rng.bit_generator.state)


#: the last multinomial draws (:func:`multinomial_replicates`), kept while at most this
#: many values
_KEPT_DRAW_VALUES = 10**6
_LAST_DRAWS = threading.local()


def _kept_draws(key: tuple[Any, ...], rng: np.random.Generator) -> list[np.ndarray] | None:
    """:func:`kept_draws` of the multinomial draws, copied (a statistic may write to
    its counts)."""
    found = kept_draws(_LAST_DRAWS, key, rng)
    return None if found is None else [counts.copy() for counts in found]


class _SplitPlan:
    """What :func:`split_multinomial` reads of the group sizes, found once per sizes
    (a bootstrap of a million one-row cells draws one replicate per call; finding the
    small groups again each time cost more than the draw)."""

    def __init__(self, size: np.ndarray, small: int) -> None:
        self.size = size
        self.small = small
        self.total = int(size.sum())
        is_small = size < small
        self.small_at, self.big_at = np.flatnonzero(is_small), np.flatnonzero(~is_small)
        self.local = np.repeat(np.arange(self.small_at.shape[0]), size[self.small_at])
        self.top = np.append(size[self.big_at], self.local.shape[0]) / self.total
        self.singletons = self.local.shape[0] == self.small_at.shape[0]
        self.every = self.small_at.shape[0] == size.shape[0]
        #: the counts of one replicate, rewritten by each call
        self.counts: np.ndarray | None = None


#: per thread, the plan of the last sizes drawn from (held, so the identity check cannot
#: be fooled by a new array at a freed one's address)
_LAST_PLAN = threading.local()


def _split_plan(size: np.ndarray, small: int) -> _SplitPlan:
    last = getattr(_LAST_PLAN, "plan", None)
    if last is not None and last.size is size and last.small == small:
        return last
    plan = _SplitPlan(size, small)
    _LAST_PLAN.plan = plan
    return plan


#: rows drawn per call of ``integers`` when counting into a buffer: small enough to be
#: reused from the heap (a fresh array of a million rows costs more in page faults
#: than the draw), and the same random numbers as one call
_PICKS = 1 << 16


def split_multinomial(rng: np.random.Generator, size: np.ndarray, b: int,
                      small: int = 8) -> np.ndarray:
    """b draws of Multinomial(n, size / n) over G groups, exact, faster for many groups.

    numpy draws a multinomial as one binomial per group, O(G). Here the groups
    of at least ``small`` rows take one multinomial together with the block of
    all smaller groups' rows; the k rows drawn from that block are k uniform
    draws among its rows (the multinomial conditional on k), O(rows in small
    groups). Data with many singleton groups then cost a few draws per row of
    them rather than a binomial per group. One replicate (``b = 1``) of small groups
    only is counted into a buffer of the sizes' plan, which the next draw from the same
    sizes in this thread rewrites: read the counts before drawing again.
    """
    size = np.asarray(size)
    if int(np.count_nonzero(size < small)) < 1024:
        total = int(size.sum())
        return rng.multinomial(total, size / total, size=b).astype(np.float64)
    plan = _split_plan(size, small)
    # every row in the block of small groups: its count is the total, drawn or not
    top = rng.multinomial(plan.total, plan.top, size=b) if plan.big_at.shape[0] \
        else np.full((b, 1), plan.total)
    if plan.every and b == 1:  # one replicate of small groups: counted in place
        if plan.counts is None:
            plan.counts = np.empty((1, size.shape[0]), dtype=np.int64)
        plan.counts.fill(0)
        rows = int(top[0, -1])
        for start in range(0, rows, _PICKS):
            picks = rng.integers(0, plan.local.shape[0], min(_PICKS, rows - start))
            np.add.at(plan.counts[0], picks if plan.singletons else plan.local[picks], 1)
        return plan.counts
    counts: np.ndarray | None = None
    for r in range(b):  # one vectorised draw per replicate
        picks = rng.integers(0, plan.local.shape[0], int(top[r, -1]))
        drawn = np.bincount(picks if plan.singletons else plan.local[picks],
                            minlength=plan.small_at.shape[0])
        if counts is None:  # whole numbers
            counts = np.empty((b, size.shape[0]), dtype=np.int64) if plan.every \
                else np.zeros((b, size.shape[0]), dtype=np.int64)
            counts[:, plan.big_at] = top[:, :-1]
        if plan.every:
            counts[r] = drawn
        else:
            counts[r, plan.small_at] = drawn
    assert counts is not None  # b >= 1
    return counts


def row_multinomial(rng: np.random.Generator, size: np.ndarray, b: int) -> np.ndarray:
    """b draws of Multinomial(n, size / n) over C cells, exact, as the rows themselves
    are drawn where the cells are mostly of one row (the terms of a mean loss):
    ``n`` uniform picks among the rows per replicate, all replicates in one call,
    counted per cell. Cells of many rows each (fewer than 64 cells, or more than four
    rows a cell): one binomial per cell, ``rng.multinomial``."""
    size = np.asarray(size)
    c, n = size.shape[0], int(size.sum())
    if c < 64 or n > 4 * c:
        return rng.multinomial(n, size / n, size=b).astype(np.float64)
    owner = np.repeat(np.arange(c), size)
    picks = rng.integers(0, n, size=(b, n))
    cells = owner[picks] if c < n else picks
    cells += (np.arange(b) * c)[:, None]
    return np.bincount(cells.ravel(), minlength=b * c).reshape(b, c).astype(np.float64)


#: per thread, the last draws of :func:`kept_row_multinomial` (generator state before,
#: b, cell sizes, counts, generator state after), at most ``_KEPT_VALUES`` counts in all
_KEPT_DRAWS = threading.local()
_KEPT_VALUES = 4 * 10**6


def kept_row_multinomial(rng: np.random.Generator, size: np.ndarray, b: int) -> np.ndarray:
    """:func:`row_multinomial`, with its last draws kept: a call from the same generator
    state with the same ``b`` and cell sizes returns the kept counts (read-only) and
    moves the generator on as drawing them would have, so the counts and every later
    draw are the ones a fresh draw gives. The mean losses of one group (log loss and
    Brier score, a cell per row each) are seeded alike and so draw the same rows: the
    second takes the first's counts instead of drawing them again."""
    state = rng.bit_generator.state
    kept = getattr(_KEPT_DRAWS, "entries", None)
    if kept is None:
        kept = _KEPT_DRAWS.entries = []
    for before, width, sizes, counts, after in kept:
        if width == b and before == state and np.array_equal(sizes, size):
            rng.bit_generator.state = after
            return counts
    counts = row_multinomial(rng, size, b)
    counts.flags.writeable = False
    kept.append((state, b, np.array(size, copy=True), counts, rng.bit_generator.state))
    while sum(entry[3].size for entry in kept) > _KEPT_VALUES:
        kept.pop(0)  # the oldest first (the newest too, when it alone is past the cap)
    return counts


def generic_replicates(statistic: Callable[[np.ndarray], float], n: int,
                       strata_order: np.ndarray | None, strata: np.ndarray,
                       n_resamples: int, rng: np.random.Generator,
                       jackknife: bool) -> Replicates:
    """Index-resampling bootstrap of ``statistic(indices)`` in memory-bounded batches.

    ``strata_order`` lists the row indices grouped by stratum (None: no strata);
    ``statistic(None)`` is not used here.
    """
    batch = batch_size(8 * n, n_resamples)
    values = np.empty(n_resamples)
    for start in range(0, n_resamples, batch):
        b = min(batch, n_resamples - start)
        idx = draw_indices(rng, b, strata)
        if strata_order is not None:
            idx = strata_order[idx]
        for r in range(b):
            values[start + r] = statistic(idx[r])
    if not jackknife:
        return Replicates(values)
    groups = _jackknife_groups(n, rng)
    if groups is None:
        everything = np.arange(n)
        jack = np.array([statistic(np.delete(everything, i)) for i in range(n)])
    else:
        jack = np.empty(len(groups))
        keep = np.ones(n, dtype=bool)
        for j, members in enumerate(groups):
            keep[members] = False
            jack[j] = statistic(np.flatnonzero(keep))
            keep[members] = True
    return Replicates(values, jack)


def as_float(value: Any, name: str) -> float:
    """A metric's return value as a float; arrays are an error."""
    if np.ndim(value) != 0:
        raise InputTypeError(f"{name} must return a single number for an interval; it returned "
                             f"an array of shape {np.shape(value)}")
    return float(value)
