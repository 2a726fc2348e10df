"""Selection-aware intervals of the gaps between groups, from one grouped bootstrap.

The groups g = 1..G have n_g rows (N in all), estimates t_g and replicates t*_rg
(r = 1..R) from the grouped bootstrap of ``._groups``, which draws every group on
its own; the overall value t_0 and its replicates pool the same draws. A *contrast*
is a difference of two of these entries, d_k = t_i - t_j: two groups (between
groups) or a group and the overall value (to overall); ratios are the same contrasts
of log values. A family of contrasts holds both signs of each.

Scale. Each replicate's deviation is widened by the usual small-sample factor,
e*_rg = (t*_rg - t_g) sqrt(n_g / (n_g - 1)) (a bootstrap variance is (n - 1)/n of
the unbiased one), and the per-row variance is pooled over the groups,
v = sum_g n_g^2 var_r(e*_g) / N. A contrast's scale is s_k = sqrt(v (1/n_i + 1/n_j))
between two groups and sqrt(v (1/n_g - 1/N)) between a group and the overall value
(which holds the group), as in Tukey and Kramer's intervals. A per-pair bootstrap
standard error would be noisy with few rows and tied to the estimate (a proportion
near 0 or 1 has a small one), so the pair farthest apart would also tend to be the one
whose scale is too small, and the maximum over pairs would exclude 0 too often.
Z*_rk = (e*_ri - e*_rj) / s_k.

Simultaneous intervals (every pair at once; Tukey's studentized range with the
bootstrap's critical value, Westfall and Young's max-T): with c the
``confidence_level`` quantile of max_k |Z*_rk|, every true gap lies in
d_k +- c s_k at once with probability ``confidence_level``, so these intervals also
hold for whichever pair the data show to be the largest.

The largest gap. Its target is D = max_k delta_k, the true max - min (or the true
largest |group - overall|). The observed largest gap is the largest of several noisy
ones and overstates D when groups are close, so an interval for the pair it names
"as if that pair had been named in advance" is too short: with four groups of equal
accuracy such an interval excluded 0 in 19-26% of data sets. Its interval, with
alpha = 1 - confidence_level (Romano, Shaikh and Wolf 2014's two steps; Chernozhukov,
Lee and Rosen 2013's selection of the contrasts that can be the largest):

1. c_b = the 1 - alpha/10 quantile of max_k Z*_rk over the family; the contrasts
   that can be the largest are K = {k : d_k + c_b s_k >= max_j (d_j - c_b s_j)}.
2. low = max(0, max_{k in K} (d_k - c_L s_k)), c_L the 1 - (0.8 - 0.1) alpha
   quantile of max_{k in K} Z*_rk;
3. high = max_{k in K} (d_k - q_k s_k), q_k the 0.2 alpha quantile of Z*_rk.

When all the step-1 intervals hold (probability 1 - alpha/10), a contrast outside K
cannot reach ``low`` and the truly largest ones are in K, so P(D < low) <= 0.8 alpha
and P(D > high) <= 0.2 alpha. The error is split 4:1 because the high end is the
largest of per-contrast bounds: it is conservative by construction when several
contrasts tie for the largest (one group behind all the others), and an even split
would leave the interval covering 97.5% there instead of 95%. Both ends are moved,
if need be, to hold the estimate; ``low`` is 0 when the data do not show a gap.
``benchmarks/largest_gap_coverage.py`` measures it: conservative where groups are
close (the contrasts that cannot be told apart from the largest all stay in K), near
the nominal level where one group is far from the rest.

A contrast with an entry undefined on every replicate (recall of a group without
positives: its estimate is the metric's ``zero_division`` value) has no interval;
the estimate keeps it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

__all__ = ["Contrasts", "contrasts", "combine", "simultaneous", "largest", "Largest",
           "unusable_reason"]

#: share of alpha spent below the largest gap's low end (the rest above it)
_LOW_SHARE = 0.8
#: share of alpha spent on step 1 (which contrasts can be the largest)
_STEP_SHARE = 0.1
#: values of Z* held in memory at once
_CHUNK = 1 << 22
#: contrasts x replicates past which the maxima are found among the entries farthest
#: apart first (:func:`_max_z_pruned`), and the per-contrast quantiles of the largest
#: gap's high end only where they can matter (:func:`_high_end`)
_PRUNE_WORK = 1 << 20
#: ... for at most this many entries (a square lookup of the contrasts' scales)
_PRUNE_ENTRIES = 4096
#: the highest and lowest deviations per replicate whose contrasts are computed
_TOP = 16
#: ... and, for the replicates those do not settle, before every contrast is visited
_TOP_AGAIN = 128


@dataclasses.dataclass(frozen=True)
class Contrasts:
    """A family of contrasts d_k = t[plus_k] - t[minus_k] of entries t.

    Attributes
    ----------
    estimate, scale : ndarray of shape (K,)
        d_k and s_k (nan where the scale cannot be formed).
    plus, minus : ndarray of shape (K,)
        Entry indices.
    deviations : ndarray of shape (R, E)
        e*_r of every entry (nan where a replicate is undefined).
    usable : ndarray of shape (K,)
        Whether the contrast has an interval: a finite scale and both entries
        defined on some replicate.
    entry_scale : ndarray of shape (E,) or None
        sigma_g with s_k = sqrt(sigma_plus^2 + sigma_minus^2) (between groups:
        sqrt(v / n_g)); None where the scales have no such form (to overall).
    """

    estimate: np.ndarray
    plus: np.ndarray
    minus: np.ndarray
    scale: np.ndarray
    deviations: np.ndarray
    usable: np.ndarray
    entry_scale: np.ndarray | None = None
    #: what the largest gap's steps share, found once: the replicates ranked per row,
    #: the last set of contrasts' maxima, the deviations laid out by entry
    _memo: dict[Any, Any] = dataclasses.field(default_factory=dict, init=False, repr=False,
                                              compare=False)

    def z(self, cols: np.ndarray) -> np.ndarray:
        """(R, len(cols)) standardized replicates Z* of the contrasts ``cols``."""
        dev = self.deviations
        with np.errstate(invalid="ignore"):
            return (dev[:, self.plus[cols]] - dev[:, self.minus[cols]]) / self.scale[cols]


def contrasts(values: np.ndarray, replicates: np.ndarray, sizes: np.ndarray, kind: str,
              *, log: bool = False) -> Contrasts:
    """The contrasts of one metric: ordered pairs of groups (``kind="between_groups"``)
    or each group against the overall value, both signs (``"to_overall"``).

    ``values`` holds the G groups' estimates and then the overall one, ``replicates``
    their (R, G + 1) replicates, ``sizes`` the groups' rows; groups with a nan
    estimate take no part. ``log``: contrasts of log values (ratios; non-positive
    replicates are undefined).
    """
    g_count = sizes.shape[0]
    values = np.asarray(values, dtype=float)
    reps = np.asarray(replicates, dtype=float)
    if log:
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(values > 0, np.log(np.where(values > 0, values, 1.0)), np.nan)
            reps = np.where(reps > 0, np.log(np.where(reps > 0, reps, 1.0)), np.nan)
    n = np.append(sizes, sizes.sum()).astype(float)
    inflate = np.sqrt(np.where(n > 1, n / np.maximum(n - 1, 1), 1.0))
    dev = reps - values
    dev *= inflate
    defined = np.flatnonzero(np.isfinite(values[:g_count]))
    plus, minus, factor = _pairs(kind, defined, n)
    v = _pooled_variance(dev[:, :g_count], n[:g_count])
    with np.errstate(invalid="ignore"):
        scale = np.sqrt(v * factor)
    seen = np.isfinite(dev).any(axis=0)
    usable = np.isfinite(scale) & (scale > 0) & seen[plus] & seen[minus]
    entry_scale = None
    if kind == "between_groups":
        with np.errstate(invalid="ignore"):
            entry_scale = np.sqrt(v / n)
    return Contrasts(values[plus] - values[minus], plus, minus, scale, dev, usable,
                     entry_scale)


#: the last pairs laid out (key, arrays), for every thread: every metric of an
#: evaluation's gaps has the same groups and sizes, so the same million pairs of a
#: thousand groups, and a gap table forms its metrics' contrasts on worker threads.
#: Replaced whole, and the arrays are read-only, so a thread reads one layout or the
#: other, never half of each.
_LAST_PAIRS: list[Any] = [None]


def _pairs(kind: str, defined: np.ndarray, n: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(plus, minus, factor) of the contrasts between the ``defined`` groups (or of
    each against the overall value, the last of ``n``), with s_k^2 = v factor_k."""
    key = (kind, defined.tobytes(), n.tobytes())
    last = _LAST_PAIRS[0]
    if last is not None and last[0] == key:
        return last[1]
    g_count = n.shape[0] - 1
    if kind == "between_groups":
        i, j = np.meshgrid(defined, defined, indexing="ij")
        off = i != j
        plus, minus = i[off], j[off]
        factor = 1 / n[plus] + 1 / n[minus]
    else:
        plus = np.concatenate([defined, np.full(defined.shape[0], g_count)])
        minus = np.concatenate([np.full(defined.shape[0], g_count), defined])
        group = np.concatenate([defined, defined])
        factor = 1 / n[group] - 1 / n[g_count]
    for array in (plus, minus, factor):
        array.flags.writeable = False  # shared by the metrics' families
    _LAST_PAIRS[0] = (key, (plus, minus, factor))
    return plus, minus, factor


def _pooled_variance(dev: np.ndarray, n: np.ndarray) -> float:
    """v = sum_g n_g^2 var_r(e*_g) / sum_g n_g over the groups with a variance."""
    finite = np.isfinite(dev)
    whole = bool(finite.all())  # then the masked copies are dev itself: skipped
    count = finite.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (dev if whole else np.where(finite, dev, 0.0)).sum(axis=0) / count
        spread = dev - mean
        if whole:
            np.square(spread, out=spread)  # spread ** 2, in place
        else:
            spread = np.where(finite, spread, 0.0) ** 2
        var = spread.sum(axis=0) / (count - 1)
    ok = (count > 1) & np.isfinite(var)
    if not ok.any():
        return float("nan")
    return float(np.sum(n[ok] ** 2 * var[ok]) / np.sum(n[ok]))


def combine(parts: list[Contrasts]) -> Contrasts:
    """One family of several metrics' contrasts (equalized odds: the TPR and the FPR
    gaps), each keeping its own pooled scale."""
    if len(parts) == 1:
        return parts[0]
    offsets = np.cumsum([0] + [p.deviations.shape[1] for p in parts[:-1]])
    return Contrasts(np.concatenate([p.estimate for p in parts]),
                     np.concatenate([p.plus + o for p, o in zip(parts, offsets)]),
                     np.concatenate([p.minus + o for p, o in zip(parts, offsets)]),
                     np.concatenate([p.scale for p in parts]),
                     np.hstack([p.deviations for p in parts]),
                     np.concatenate([p.usable for p in parts]),
                     None if any(p.entry_scale is None for p in parts)
                     else np.concatenate([p.entry_scale for p in parts]))


def unusable_reason(family: Contrasts, k: int) -> str:
    """Why contrast ``k`` has no interval."""
    seen = np.isfinite(family.deviations).any(axis=0)
    if not (seen[family.plus[k]] and seen[family.minus[k]]):
        return "a group it compares is undefined on every resample"
    return "the resamples do not vary (every group's value is the same on all of them)"


def _max_z(family: Contrasts, cols: np.ndarray, absolute: bool = False) -> np.ndarray:
    """max over ``cols`` of Z*_rk (or |Z*_rk|) per replicate, nan-aware: among the
    entries farthest apart first (:func:`_max_z_pruned`) where the contrasts are many,
    else in chunks. The last set's maxima are kept (the largest gap's two steps often
    ask for the same contrasts: where no group stands out, every one can be the
    largest)."""
    kept = family._memo.get("max_z")
    if kept is not None and kept[0] == absolute and np.array_equal(kept[1], cols):
        return kept[2].copy()
    r = family.deviations.shape[0]
    if cols.shape[0] * r > _PRUNE_WORK and family.entry_scale is not None and \
            family.deviations.shape[1] <= _PRUNE_ENTRIES:
        found = _max_z_pruned(family, cols, absolute)
    else:
        found = _max_z_full(family, cols, absolute)
    family._memo["max_z"] = (absolute, cols.copy(), found.copy())
    return found


def _max_z_full(family: Contrasts, cols: np.ndarray, absolute: bool = False,
                rows: np.ndarray | None = None) -> np.ndarray:
    """max over ``cols`` of Z*_rk (or |Z*_rk|) for the replicates ``rows`` (all when
    None), in chunks."""
    dev = family.deviations if rows is None else family.deviations[rows]
    part = family if rows is None else dataclasses.replace(family, deviations=dev)
    r = dev.shape[0]
    out = np.full(r, np.nan)
    step = max(1, _CHUNK // max(r, 1))
    for s in range(0, cols.shape[0], step):
        z = part.z(cols[s:s + step])
        np.fmax(out, np.fmax.reduce(np.abs(z) if absolute else z, axis=1), out=out)
    return out


def _max_z_pruned(family: Contrasts, cols: np.ndarray, absolute: bool) -> np.ndarray:
    """:func:`_max_z_full`, exactly, without visiting every contrast of every replicate.

    Between groups, s_k = sqrt(sigma_i^2 + sigma_j^2) with sigma_g^2 = v / n_g, so with
    u*_g = e*_g / sigma_g, Z*_k = (sigma_i u*_i - sigma_j u*_j) / s_k, at most
    sqrt(max(u*_i, 0)^2 + max(-u*_j, 0)^2) (Cauchy-Schwarz). Per replicate, the
    contrasts between its ``_TOP`` highest and lowest u* are computed; any other
    contrast has an entry outside them, so its Z* is at most that bound with u*_(TOP+1)
    for u*_i, or u*_(-TOP-1) for u*_j. Where the best found reaches both bounds it is
    the maximum; the other replicates (rare) try again among their ``_TOP_AGAIN``
    highest and lowest, and those still unsettled visit every contrast."""
    dev = family.deviations
    r, e = dev.shape
    plus, minus, scale = (family.plus, family.minus, family.scale) \
        if cols.shape[0] == family.plus.shape[0] else \
        (family.plus[cols], family.minus[cols], family.scale[cols])  # cols: ascending
    if absolute:  # |Z| of k is Z of the contrast with the entries swapped
        plus, minus = np.concatenate([plus, minus]), np.concatenate([minus, plus])
        scale = np.concatenate([scale, scale])
    lookup = np.full((e, e), np.nan)
    lookup[plus, minus] = scale
    m = min(_TOP, e - 1)
    best, unsure = _pruned_best(dev, lookup, _ranked(family, m), m)
    unsure = np.flatnonzero(unsure)
    again = min(_TOP_AGAIN, e - 1)
    if unsure.size and again > m:
        step = max(1, _CHUNK // (again * again))
        settled = []
        for start in range(0, unsure.shape[0], step):
            rows = unsure[start:start + step]
            found, still = _pruned_best(dev[rows], lookup, _ranked(family, again, rows), again)
            best[rows] = found
            settled.append(rows[still])
        unsure = np.concatenate(settled)
    if unsure.size:
        best[unsure] = _max_z_full(family, cols, absolute, rows=unsure)
    return best


def _ranked(family: Contrasts, m: int, rows: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per replicate (of ``rows``; all kept on the family), the entries of the m + 1
    highest u*, highest first, and of the m + 1 lowest, lowest first, with max(u*, 0)
    of the first and max(-u*, 0) of the second (nan u* neither high nor low)."""
    if rows is None and ("ranked", m) in family._memo:
        return family._memo[("ranked", m)]
    sigma = family.entry_scale
    assert sigma is not None  # _max_z checks
    dev = family.deviations if rows is None else family.deviations[rows]
    with np.errstate(invalid="ignore", divide="ignore"):
        u = dev / sigma
    missing = np.isnan(u)
    high, low = (np.where(missing, -np.inf, u), np.where(missing, np.inf, u)) \
        if missing.any() else (u, u)
    e = u.shape[1]
    at = np.arange(u.shape[0])[:, None]
    if high is low and e - m - 1 > m:
        # one partition at both ends (the maxima found are exact whichever of tied
        # entries each end holds: the bounds read values, not entries)
        both = np.argpartition(u, (m, e - m - 1), axis=1)
        top, bottom = both[:, e - m - 1:], both[:, :m + 1]
    else:
        top = np.argpartition(high, e - m - 1, axis=1)[:, e - m - 1:]
        bottom = np.argpartition(low, m, axis=1)[:, :m + 1]
    top = np.take_along_axis(top, np.argsort(-high[at, top], axis=1), 1)
    bottom = np.take_along_axis(bottom, np.argsort(low[at, bottom], axis=1), 1)
    found = (top, bottom, np.maximum(high[at, top], 0.0), np.maximum(-low[at, bottom], 0.0))
    if rows is None:
        family._memo[("ranked", m)] = found
    return found


def _pruned_best(dev: np.ndarray, lookup: np.ndarray,
                 ranked: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], m: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The largest Z* among the contrasts between each replicate's m highest and m
    lowest entries (:func:`_ranked`), and whether it may be short of the maximum."""
    top, bottom, up, down = ranked
    keep_top, keep_bottom = top[:, :m], bottom[:, :m]
    at = np.arange(dev.shape[0])[:, None]
    with np.errstate(invalid="ignore"):
        z = (dev[at, keep_top][:, :, None] - dev[at, keep_bottom][:, None, :]) \
            / lookup[keep_top[:, :, None], keep_bottom[:, None, :]]
        best = np.fmax.reduce(z.reshape(dev.shape[0], -1), axis=1)
        bound = np.fmax(np.hypot(up[:, m], down[:, 0]), np.hypot(up[:, 0], down[:, m]))
    return best, ~(best >= bound)


def _high_end(family: Contrasts, cand: np.ndarray, q: float) -> float:
    """max over ``cand`` of d_k - q_k s_k, q_k the ``q`` quantile of Z*_k.

    With many contrasts, a bound first: the q quantile of e*_i - e*_j is at least the
    q / 2 quantile of e*_i less the 1 - q / 2 quantile of e*_j (the union of the two
    events has probability at most q), so d_k - q_k s_k <= d_k + Q_j(1 - q/2) -
    Q_i(q/2). The quantiles are computed exactly for the contrasts of the highest
    bounds, and then for every contrast whose bound passes the largest value found."""
    d = family.estimate
    r = family.deviations.shape[0]
    if cand.shape[0] * r <= _PRUNE_WORK:
        return _exact_high(family, cand, q)
    # two replicates' room each way for the empirical quantiles' interpolation, and the
    # order statistics on either side of each (one partition at two places)
    entry_low, entry_high = _order_statistics(
        _by_entry(family), (max(q / 2 - 2 / r, 0.0), min(1 - q / 2 + 2 / r, 1.0)))
    whole = cand.shape[0] == d.shape[0]  # cand ascending: then every contrast
    with np.errstate(invalid="ignore"):
        bound = d.copy() if whole else d[cand]
        bound += entry_high[family.minus if whole else family.minus[cand]]
        bound -= entry_low[family.plus if whole else family.plus[cand]]
    bound[np.isnan(bound)] = np.inf  # unknown: computed
    # the highest bounds first (any such set: the rest is then taken by its bound)
    first = min(max(1, _PRUNE_WORK // (4 * r)), bound.shape[0])
    # the bounds at or past the first-th highest (a value partition; ties add a few)
    order = np.flatnonzero(bound >= np.partition(bound, bound.shape[0] - first)[-first])
    high = _exact_high(family, cand[order], q)
    rest = bound > high
    rest[order] = False
    if rest.any():
        high = max(high, _exact_high(family, cand[rest], q))
    return high


def _order_statistics(rows: np.ndarray, levels: tuple[float, float]
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Per row over its finite values, the order statistic at or below the ``levels[0]``
    quantile and the one at or above the ``levels[1]`` quantile (numpy's linear
    interpolation lies between the two order statistics around its position): bounds
    of the quantiles from one partition at two places, where every value is finite."""
    n = rows.shape[1]
    if not n or not np.isfinite(rows).all():
        found = _column_quantiles(rows.T, levels)
        return found[0], found[1]
    low = int(np.floor(levels[0] * (n - 1)))
    high = min(int(np.ceil(levels[1] * (n - 1))), n - 1)
    part = np.partition(rows, sorted({low, high}), axis=1)
    return part[:, low], part[:, high]


def _by_entry(family: Contrasts) -> np.ndarray:
    """(E, R): an entry's replicates along a row (its quantiles read contiguous memory)."""
    rows = family._memo.get("rows")
    if rows is None:
        rows = family._memo["rows"] = np.ascontiguousarray(family.deviations.T)
    return rows


#: contrasts whose replicates :func:`_exact_high` holds at once (a few MiB, reused:
#: fresh pages for each chunk cost more than the arithmetic)
_EXACT_ROWS = 256


def _exact_high(family: Contrasts, cand: np.ndarray, q: float) -> float:
    d, s = family.estimate, family.scale
    high = -np.inf
    rows = _by_entry(family)
    r = rows.shape[1]
    step = max(1, min(_EXACT_ROWS, _CHUNK // max(r, 1)))
    buffers = (np.empty((min(step, cand.shape[0]), r)), np.empty((min(step, cand.shape[0]), r)))
    for start in range(0, cand.shape[0], step):
        part = cand[start:start + step]
        z, other = (b[:part.shape[0]] for b in buffers)
        np.take(rows, family.plus[part], axis=0, out=z)
        np.take(rows, family.minus[part], axis=0, out=other)
        with np.errstate(invalid="ignore"):
            np.subtract(z, other, out=z)
            np.divide(z, s[part][:, None], out=z)
        quantiles = _column_quantiles(z.T, q)
        seen = np.isfinite(quantiles)
        if seen.any():
            high = max(high, float(np.max(d[part][seen] - quantiles[seen] * s[part][seen])))
    return high


def _quantile(x: np.ndarray, q: float) -> float:
    x = x[np.isfinite(x)]
    return float(np.quantile(x, q)) if x.size else float("nan")


def _column_quantiles(z: np.ndarray, q: Any) -> Any:
    """The q quantile of each column over its finite values (numpy's default linear
    interpolation), nan for a column without any; one sort, no per-column loop (where
    every value is finite, a partition at the order statistics it reads). ``q`` a
    tuple: a tuple of the quantiles, from the same partition or sort."""
    qs = q if isinstance(q, tuple) else (q,)
    if z.shape[0] and np.isfinite(z).all():
        last = z.shape[0] - 1
        at = [(p * last, int(np.floor(p * last))) for p in qs]
        kth = sorted({k for _, lo in at for k in (lo, min(lo + 1, last))})
        # along the axis whose values are contiguous (z may be a transposed view)
        rows = z.T if z.flags.f_contiguous and not z.flags.c_contiguous else None
        part = np.partition(rows, kth, axis=1).T if rows is not None \
            else np.partition(z, kth, axis=0)
        out = tuple(part[lo] + (pos - lo) * (part[min(lo + 1, last)] - part[lo])
                    for pos, lo in at)
    else:
        z = np.sort(np.where(np.isfinite(z), z, np.nan), axis=0)  # nan sorts last
        count = np.isfinite(z).sum(axis=0)
        cols = np.arange(z.shape[1])
        found = []
        for p in qs:
            pos = p * np.maximum(count - 1, 0)
            lo = np.floor(pos).astype(np.int64)
            hi = np.minimum(lo + 1, np.maximum(count - 1, 0))
            value = z[lo, cols] + (pos - lo) * (z[hi, cols] - z[lo, cols])
            found.append(np.where(count > 0, value, np.nan))
        out = tuple(found)
    return out if isinstance(q, tuple) else out[0]


def simultaneous(family: Contrasts, confidence_level: float) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of every contrast, all holding at once: d_k +- c s_k with c the
    ``confidence_level`` quantile of max_k |Z*_rk| (nan where not usable)."""
    cols = np.flatnonzero(family.usable)
    low = np.full(family.estimate.shape[0], np.nan)
    high = low.copy()
    if cols.size:
        c = _quantile(_max_z(family, cols, absolute=True), confidence_level)
        low[cols] = family.estimate[cols] - c * family.scale[cols]
        high[cols] = family.estimate[cols] + c * family.scale[cols]
    return low, high


@dataclasses.dataclass(frozen=True)
class Largest:
    """The largest contrast and its selection-aware interval.

    Attributes
    ----------
    index : int
        The contrast with the largest estimate.
    low, high : float
        Its interval (nan with ``why`` when none can be formed).
    why : str or None
    """

    index: int
    low: float
    high: float
    why: str | None = None


def largest(family: Contrasts, confidence_level: float) -> Largest:
    """The interval of the largest contrast (the module notes' three steps)."""
    k = int(np.argmax(family.estimate))
    if not family.usable[k]:
        return Largest(k, float("nan"), float("nan"), unusable_reason(family, k))
    alpha = 1.0 - confidence_level
    d, s = family.estimate, family.scale
    cols = np.flatnonzero(family.usable)
    c_b = _quantile(_max_z(family, cols), 1 - _STEP_SHARE * alpha)
    if not np.isfinite(c_b):
        return Largest(k, float("nan"), float("nan"), "undefined on every resample")
    whole = cols.shape[0] == d.shape[0]  # then no gathers: d and s as they stand
    d_cols, reach_of = (d, c_b * s) if whole else (d[cols], c_b * s[cols])
    reach = np.max(d_cols - reach_of)
    reach_of += d_cols  # d_k + c_b s_k, in place
    cand = cols[reach_of >= reach]
    del d_cols, reach_of
    c_low = _quantile(_max_z(family, cand), 1 - (_LOW_SHARE - _STEP_SHARE) * alpha)
    low = max(0.0, float(np.max(d[cand] - c_low * s[cand])))
    high = _high_end(family, cand, (1 - _LOW_SHARE) * alpha)
    low = min(low, float(d[k]))
    return Largest(k, low, max(high, float(d[k])))
