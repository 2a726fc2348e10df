"""Design effects of the rates along a curve, for bands and thresholds with clusters.

The bands (:mod:`._bands`) and the operating points (:mod:`._thresholds`) draw each
class's rate above a threshold from laws of independent rows: Binomial order
statistics and Jeffreys posteriors of ``n`` rows. When rows come in clusters, the
rows of a cluster fall above or below a threshold together and a class's ``n`` rows
carry the information of fewer. The laws keep their form with each class's count
replaced by its effective count ``n / deff`` (Kish 1965, the design effect): at a
threshold ``t`` and for the rows of one class with weights ``w_i`` and ``a_i`` their
share above ``t`` (1 above, 0 below, the interpolation's fraction in the tie group
at ``t``), ``p = sum w a / sum w`` and

    deff(t) = V_clusters / V_rows,
    V_clusters = C / (C - 1) sum_c (sum_{i in c} w_i (a_i - p))^2,
    V_rows     = N / (N - 1) sum_i w_i^2 (a_i - p)^2,

the cluster-robust (sandwich) variance of ``p`` over the one that treats the ``N``
rows as independent (``C`` and ``N``: the clusters and rows holding the class; same
scale, so with one row per cluster ``deff = 1`` exactly). With ``C`` clusters and
``N`` rows in the data the variance has ``C - 1`` degrees of freedom, not ``N - 1``:
the design effect used is ``max(1, deff (t_{C-1} / t_{N-1})^2)`` with ``t_d`` the
Student quantile at the two-sided level (Cameron & Miller 2015, small-``C``
correction). Where a class's rows are all on one side of ``t`` (``V_rows = 0``,
the curve ends) the design effect cannot be read there; the class's largest design
effect at the thresholds of its deciles stands in (1 if that is undefined too).

References: Kish, L. (1965) Survey Sampling, Wiley; Cameron, A. C. & Miller, D. L.
(2015) A practitioner's guide to cluster-robust inference, J. Human Resources
50:317-372.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from dartboard._kernels._bootstrap import batch_size
from dartboard._kernels._clustered import ClusterIndex, cluster_index, draw_clusters
from dartboard.exceptions import InputError
from dartboard.uncertainty._sorted_scores import SortedScores

__all__ = ["cell_replicates", "class_design_effect", "confusion_design_effects",
           "curve_clusters", "decile_fallback", "design_effects", "path_design_effects",
           "ratio_design_effects", "row_cells", "row_groups", "small_sample",
           "threshold_design_effects"]

_UNIT = 1e-9  # a design effect this close to 1 is 1 (one row per cluster)


def curve_clusters(clusters: Any, positive: np.ndarray, w: np.ndarray | None) -> ClusterIndex:
    """:func:`cluster_index` of the rows, each class (with weight) in two clusters or
    more: the variance of a class's share is read across its clusters."""
    index = cluster_index(clusters, positive.shape[0])
    live = np.ones(positive.shape[0], dtype=bool) if w is None else w > 0
    for name, rows in (("positives", positive & live), ("negatives", ~positive & live)):
        held = np.unique(index.codes[rows]).shape[0]
        if held < 2:
            raise InputError(f"clusters: the {name} lie in {held} cluster; a clustered band "
                             "or threshold reads each class's variance across its clusters "
                             "and needs each class in at least two")
    return index


def design_effects(x_c: np.ndarray, n_c: np.ndarray, row_ss: np.ndarray, p: np.ndarray,
                   n_rows: int) -> np.ndarray:
    """(k,) design effects of ``p = sum x / sum n`` at k thresholds from the (C, k)
    per-cluster weight above (``x_c``), the (C,) class weight per cluster (``n_c``)
    and the (k,) row sums ``sum w^2 (a - p)^2`` of the ``n_rows`` rows with weight;
    nan where the rows do not vary. ``C`` counts the clusters holding weight."""
    c = int(np.count_nonzero(n_c > 0))
    if c < 2:  # one cluster: no variance across clusters to read
        return np.full(x_c.shape[1], np.nan)
    v_cl = c / (c - 1.0) * np.sum((x_c - p[None, :] * n_c[:, None]) ** 2, axis=0)
    v_row = n_rows / (n_rows - 1.0) * row_ss
    tol = 1e-12 * np.sum(n_c) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        deff = np.where(v_row > tol, v_cl / np.where(v_row > tol, v_row, 1.0), np.nan)
    return np.where(np.abs(deff - 1.0) <= _UNIT, 1.0, deff)


def path_design_effects(codes: np.ndarray, n_clusters: int, group: np.ndarray,
                        w: np.ndarray, crossing: np.ndarray, frac: np.ndarray
                        ) -> np.ndarray:
    """(k,) design effects of one class's share above k points of the sorted path.

    ``group``: each row's tie group (0 = highest scores), ``w`` its weight, ``codes``
    its cluster; point ``j`` lies in group ``crossing[j]``, a share ``frac[j]`` of
    that group above it (rows of earlier groups are above, of later ones below).
    O(rows + clusters x points)."""
    k = crossing.shape[0]
    order = np.argsort(crossing, kind="stable")
    cs, fs = crossing[order], frac[order]
    # rows wholly above point jj (sorted): those whose group precedes cs[jj]
    first = np.searchsorted(cs, group, "right")  # the first sorted point they are above
    full = np.cumsum(_bins(codes, first, w, n_clusters, k + 1), axis=1)[:, :k]
    full2 = np.cumsum(np.bincount(first, weights=w * w, minlength=k + 1))[:k]
    crossed, which = np.unique(cs, return_inverse=True)
    at = np.searchsorted(crossed, group)
    inside = (at < crossed.shape[0]) & (crossed[np.minimum(at, crossed.shape[0] - 1)] == group)
    part = _bins(codes[inside], at[inside], w[inside], n_clusters, crossed.shape[0])[:, which]
    part2 = np.bincount(at[inside], weights=w[inside] ** 2,
                        minlength=crossed.shape[0])[which]
    x_c = full + fs[None, :] * part
    n_c = np.bincount(codes, weights=w, minlength=n_clusters)
    p = x_c.sum(axis=0) / n_c.sum()
    rest2 = np.sum(w * w) - full2 - part2
    row_ss = full2 * (1 - p) ** 2 + part2 * (fs - p) ** 2 + rest2 * p ** 2
    out = np.empty(k)
    out[order] = design_effects(x_c, n_c, row_ss, p, int(np.count_nonzero(w)))
    return out


def _bins(codes: np.ndarray, column: np.ndarray, w: np.ndarray, n_clusters: int,
          width: int) -> np.ndarray:
    """(C, width) sums of ``w`` per cluster and column."""
    flat = np.bincount(codes * width + column, weights=w, minlength=n_clusters * width)
    return flat.reshape(n_clusters, width)


def small_sample(deff: np.ndarray, fallback: float, n_clusters: int, n_rows: int,
                 level: float) -> np.ndarray:
    """The design effects used: undefined ones replaced by ``fallback``, scaled by
    ``(t_{C-1} / t_{N-1})^2`` at the two-sided ``level``, at least 1."""
    q = 0.5 + level / 2.0
    ratio = (special.stdtrit(n_clusters - 1, q) / special.stdtrit(n_rows - 1, q)) ** 2 \
        if n_clusters < n_rows else 1.0
    filled = np.where(np.isnan(deff), fallback, deff)
    return np.maximum(filled * ratio, 1.0)


def decile_fallback(codes: np.ndarray, n_clusters: int, group: np.ndarray,
                    w: np.ndarray, n_groups: int) -> float:
    """The largest design effect of a class at the thresholds of its deciles (1 if
    none is defined): what stands in where the class's rows do not vary."""
    per_group = np.bincount(group, weights=w, minlength=n_groups)
    cum = np.concatenate([[0.0], np.cumsum(per_group)])
    target = np.arange(1, 10) / 10.0 * cum[-1]
    crossing = np.clip(np.searchsorted(cum[1:], target, "left"), 0, n_groups - 1)
    within = per_group[crossing]
    frac = np.clip((target - cum[crossing]) / np.where(within > 0, within, 1.0), 0.0, 1.0)
    deff = path_design_effects(codes, n_clusters, group, w, crossing, frac)
    return float(np.nanmax(deff)) if np.any(~np.isnan(deff)) else 1.0


def cell_replicates(evaluate: Callable[[np.ndarray], np.ndarray], cell: np.ndarray,
                    n_cells: int, index: ClusterIndex, n_resamples: int,
                    rng: np.random.Generator, bytes_per_value: int,
                    weight: np.ndarray | None = None) -> np.ndarray:
    """``(n_resamples, ...)`` values of ``evaluate`` on the cell counts of resamples of
    whole clusters: ``cell`` gives each row's cell (-1: a row left out, weight 0), a
    replicate's counts are ``drawn @ M`` with ``M`` the (C, cells) rows (or their
    ``weight``) of each cluster in each cell and ``drawn`` :func:`draw_clusters`'
    counts, O(clusters + cells) per replicate."""
    from scipy import sparse

    keep = cell >= 0
    data = np.ones(int(keep.sum())) if weight is None else weight[keep].astype(np.float64)
    matrix = sparse.csr_matrix((data, (index.codes[keep], cell[keep])),
                               shape=(index.n_clusters, n_cells))
    batch = batch_size(8 * (index.n_clusters + 3 * n_cells) + bytes_per_value, n_resamples)
    values = None
    for start in range(0, n_resamples, batch):
        drawn = draw_clusters(rng, index.n_clusters, min(batch, n_resamples - start))
        out = evaluate(np.asarray((matrix.T @ drawn.T).T))
        if values is None:
            values = np.empty((n_resamples,) + np.shape(out)[1:])
        values[start:start + drawn.shape[0]] = out
    assert values is not None  # n_resamples >= 1
    return values


def class_design_effect(index: ClusterIndex, member: np.ndarray, group: np.ndarray,
                        w: np.ndarray, crossing: int, frac: float, n_groups: int,
                        level: float) -> float:
    """The design effect used for one class (``member`` rows) at one point of the
    sorted path (:func:`small_sample` of :func:`path_design_effects`), on the scale
    of the class's weight: times ``sum w / Kish's effective count``, so that the
    class's weight over it is its effective count."""
    args = (index.codes[member], index.n_clusters, group[member], w[member])
    raw = path_design_effects(*args, np.array([crossing]), np.array([frac]))
    deff = small_sample(raw, decile_fallback(*args, n_groups), index.n_clusters,
                        int(np.count_nonzero(w)), level)[0]
    wm = w[member]
    return float(deff * wm.sum() * np.sum(wm * wm) / wm.sum() ** 2)


def ratio_design_effects(index: ClusterIndex, a: np.ndarray, member: np.ndarray,
                         w: np.ndarray, level: float) -> np.ndarray:
    """(k,) design effects used for k proportions ``sum w a / sum w`` over the rows of
    ``member`` ((k, n) booleans; ``a`` (k, n) in [0, 1]), on the scale of the weight as
    :func:`class_design_effect`; an undefined one (all rows alike) takes the largest
    defined one, or 1."""
    n_rows = int(np.count_nonzero(w))
    raw = np.empty(a.shape[0])
    for j in range(a.shape[0]):
        wm = np.where(member[j], w, 0.0)
        n_c = np.bincount(index.codes, weights=wm, minlength=index.n_clusters)
        x_c = np.bincount(index.codes, weights=wm * a[j], minlength=index.n_clusters)
        p = np.array([x_c.sum() / max(n_c.sum(), 1e-300)])
        row_ss = np.array([np.sum(wm * wm * (a[j] - p[0]) ** 2)])
        raw[j] = design_effects(x_c[:, None], n_c, row_ss, p, int(np.count_nonzero(wm)))[0]
    fallback = float(np.nanmax(raw)) if np.any(~np.isnan(raw)) else 1.0
    deff = small_sample(raw, fallback, index.n_clusters, n_rows, level)
    kish = np.array([np.sum(np.where(m, w * w, 0.0)) / max(np.sum(np.where(m, w, 0.0)), 1e-300)
                     for m in member])
    return deff * kish


def row_groups(path: SortedScores, s: np.ndarray, w: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray]:
    """Each row's tie group on the sorted path (0: the highest score) and its weight
    (0 for rows the path leaves out)."""
    g = path.scores.shape[0]
    group = np.clip(g - 1 - np.searchsorted(path.scores[::-1], s), 0, g - 1)
    return group, np.ones(s.shape[0]) if w is None else w.astype(np.float64)


def row_cells(path: SortedScores, positive: np.ndarray, s: np.ndarray,
               w: np.ndarray | None) -> np.ndarray:
    """Each row's resampling cell of ``path`` (-1 for a row of weight 0): the cells are
    sorted by class (positives first), group and weight, and so are these keys."""
    group_c, positive_c, weight_c, _ = path.resampling_cells()
    group, weight = row_groups(path, s, w)
    values = np.unique(weight_c)
    width = values.shape[0]

    def key(pos: np.ndarray, grp: np.ndarray, wt: np.ndarray) -> np.ndarray:
        rank = np.minimum(np.searchsorted(values, wt), width - 1)
        return ((~pos).astype(np.int64) * path.scores.shape[0] + grp) * width + rank

    cell = np.searchsorted(key(positive_c.astype(bool), group_c, weight_c),
                           key(positive, group, weight))
    return np.where(weight > 0, cell, -1)


def threshold_design_effects(path: SortedScores, positive: np.ndarray, s: np.ndarray,
                             w: np.ndarray | None, cl: ClusterIndex, index: int,
                             level: float) -> tuple[float, float]:
    """The positives' and negatives' design effects at candidate ``index`` (its tie
    group counted one half, as the intervals count it)."""
    group, weight = row_groups(path, s, w)
    g = path.scores.shape[0]
    return (class_design_effect(cl, positive, group, weight, index - 1, 0.5, g, level),
            class_design_effect(cl, ~positive, group, weight, index - 1, 0.5, g, level))


def confusion_design_effects(cl: ClusterIndex, positive: np.ndarray, predicted: np.ndarray,
                              w: np.ndarray | None, level: float) -> np.ndarray:
    """The design effects of TPR, TNR, precision and NPV at a fixed threshold."""
    weight = np.ones(positive.shape[0]) if w is None else w.astype(np.float64)
    member = np.stack([positive, ~positive, predicted, ~predicted])
    a = np.stack([predicted, ~predicted, positive, ~positive]).astype(np.float64)
    return ratio_design_effects(cl, a, member, weight, level)
