"""Calibration when rows come in clusters: per-bin cluster-robust intervals and the
calibration error's bootstrap of whole clusters.

Every calibration number is a function of per-bin sums (a
:class:`~dartboard.metrics.CalibrationState`: per class group ``g``, outcome ``o``
and bin ``b`` the weight of the rows and the sum of their confidences). The sums
add over rows, hence over clusters: :func:`cluster_sums` keeps each cluster's sums
as one row of a sparse ``(clusters, 2 x cells)`` matrix, built in one pass over the
rows.

A bin's observed frequency (a reliability diagram's point) is a ratio of per-cluster
sums, ``o_b = sum_c x_cb / sum_c n_cb`` with ``x_cb`` the events and ``n_cb`` the
rows of cluster ``c`` in bin ``b``; its cluster-robust (CR1) variance is

    V_b = I_b / (I_b - 1) * sum_c (x_cb - o_b n_cb)^2 / n_b^2,

``I_b`` the clusters with rows in the bin (Miller 2024, arXiv:2411.00640, eq. 6;
:func:`~dartboard._kernels._clustered_analytic.ratio_terms`), which is the
variance of statsmodels' ``OLS(event, 1).fit(cov_type="cluster")`` on the bin's
rows. Its design effect is ``deff_b = V_b / (o_b (1 - o_b) / n_b)`` (nan where
``o_b`` is 0 or 1). Two intervals:

- ``wald-clustered``: ``o_b +- t_{I_b - 1} sqrt(V_b)``, clipped to [0, 1]. Where a
  bin's rows all agree (``o_b`` is 0 or 1) ``V_b`` is 0 and so is the width;
- ``wilson-clustered``: Wilson's interval at the effective size ``n_b / d_b``,
  ``d_b = max(deff_b, 1)`` (1 where ``o_b`` is 0 or 1), with the ``t_{I_b - 1}``
  quantile for ``z`` (Korn & Graubard 1998, Survey Methodology 24:193-201). It
  keeps Wilson's width where the rows agree.

A bin whose rows lie in fewer than two clusters gets the whole [0, 1] (and a nan
standard error). With one row per cluster ``V_b = o_b (1 - o_b) / (n_b - 1)``:
``deff_b = n_b / (n_b - 1)``, and the Wilson interval is the independent one at
``n_b - 1`` rows with ``t_{n_b - 1}`` for ``z``, a little wider.

The ``bin-pivot`` interval of the calibration error
(:func:`~dartboard._kernels._calibration.pivot_interval`) draws each bin's events
as independent rows. With clusters it runs on an effective state of ``n / D`` rows
(each cell's count divided by ``D`` and rounded, means kept), ``D`` the design effect
of the error's linearization: with ``d_b`` the bin's deviation and ``s_b`` its sign,
a row's term is ``r_i = s_b (y_i - p_i - d_b)``, and

    D = max(1, sum_c (sum_{i in c} r_i)^2 / sum_i r_i^2),

the clustered over the independent variance of ``sum_i r_i`` (terms of one cluster
summed before squaring, across bins too: a cluster effect moves all of its bins the
same way). One row per cluster gives ``D = 1`` and the independent interval.

The calibration error (ECE, RMS, MCE) of a replicate of whole clusters is the error
of the drawn clusters' summed sums, ``drawn @ M``: with equal-width bins exactly the
error of the rows of the drawn clusters (a row's bin does not depend on the other
rows), at O(clusters + cells) per replicate
(:func:`~dartboard._kernels._clustered.cluster_replicates`). Equal-mass bins move
with the rows; their replicates rebuild the rows of the drawn clusters.

Coverage (``benchmarks/clustered_calibration_coverage.py``, 1000 data sets a cell,
ICC 0 to 0.5, 30 and 100 clusters of 10 rows and 100 of one row, 15 bins): per bin
``wilson-clustered`` 94.8-99.0% on average over the bins, 93.7-97.9% in the worst bin;
``wald-clustered`` as low as 16% in an end bin; the clustered bin-pivot 93.6-98.5%;
the bootstrap of whole clusters 75-91% (basic), 0-84% (percentile, BCa). The
independent intervals fall to 85% (Wilson, per bin) and 71% (bin-pivot) where a
cluster's rows share their bins.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special

from dartboard._kernels._clustered_analytic import ratio_terms

__all__ = ["BIN_METHODS", "ClusteredBins", "cluster_sums", "clustered_bin_intervals",
           "deviation_sign", "effective_state", "pivot_design_effect", "state_design_effect"]

#: the per-bin intervals with clusters, and the independent names they answer to
BIN_METHODS = {"wilson": "wilson-clustered", "wilson-clustered": "wilson-clustered",
               "wald": "wald-clustered", "wald-clustered": "wald-clustered"}


def cluster_sums(conf: np.ndarray, hit: np.ndarray, weight: np.ndarray | None, n_bins: int,
                 edges: np.ndarray | None, codes: np.ndarray, n_clusters: int) -> Any:
    """The ``(n_clusters, 2 F)`` sparse matrix of each cluster's calibration sums:
    columns ``0..F-1`` the weights of the ``F = G * 2 * (n_bins + 1)`` cells of a
    :class:`~dartboard.metrics.CalibrationState` (flat ``(g, o, b)``), columns
    ``F..2F-1`` their sums of confidences.

    ``conf`` and ``hit`` are checked (n,) or (n, G) confidences and outcomes,
    ``edges`` the equal-mass edges per group (None: equal width), ``codes`` each
    row's cluster (0..C-1).
    """
    from scipy import sparse

    from dartboard.metrics._calibration import bin_keys

    conf = np.asarray(conf, dtype=np.float64)
    hit = np.asarray(hit, dtype=bool)
    if conf.ndim == 1:
        conf, hit = conf[:, None], hit[:, None]
    groups, slots = conf.shape[1], 2 * (n_bins + 1)
    cells = groups * slots
    w = np.ones(conf.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64)
    keys, data = [], []
    for g in range(groups):
        key = np.array(bin_keys(np.ascontiguousarray(conf[:, g]), hit[:, g], n_bins,
                                None if edges is None else edges[g]), dtype=np.intp)
        keys += [key + g * slots, key + g * slots + cells]
        data += [w, w * conf[:, g]]
    rows = np.tile(codes, 2 * groups)
    return sparse.csr_matrix((np.concatenate(data), (rows, np.concatenate(keys))),
                             shape=(n_clusters, 2 * cells))


class ClusteredBins:
    """Per bin: ``low``, ``high``, ``standard_error``, ``design_effect`` and the
    clusters with rows in it (``n_clusters``); see the module docstring."""

    def __init__(self, low: np.ndarray, high: np.ndarray, se: np.ndarray,
                 deff: np.ndarray, n_clusters: np.ndarray) -> None:
        self.low, self.high, self.standard_error = low, high, se
        self.design_effect, self.n_clusters = deff, n_clusters


def clustered_bin_intervals(events: np.ndarray, count: np.ndarray, level: float,
                            method: str) -> ClusteredBins:
    """The interval of each bin's observed frequency from per-cluster sums.

    Parameters
    ----------
    events, count : ndarray or sparse matrix of shape (n_clusters, n_bins)
        Weight of the events and of all rows of each cluster in each bin.
    level : float
        Confidence level.
    method : {"wald-clustered", "wilson-clustered"}

    Returns
    -------
    ClusteredBins

    Examples
    --------
    One bin, three clusters of two rows with 2, 1 and 0 events: ``o = 0.5``,
    residuals ``1, 0, -1``, ``V = 3/2 * 2 / 36``; the design effect is ``V`` over
    ``0.25 / 6``.

    >>> b = clustered_bin_intervals(np.array([[2.0], [1.0], [0.0]]),
    ...                             np.array([[2.0], [2.0], [2.0]]), 0.95,
    ...                             "wald-clustered")
    >>> round(float(b.standard_error[0]) ** 2, 6), round(1.5 * 2 / 36, 6)
    (0.083333, 0.083333)
    >>> float(b.design_effect[0])
    2.0
    """
    bins = count.shape[1]
    low, high = np.zeros(bins), np.ones(bins)
    se, deff = np.full(bins, np.nan), np.full(bins, np.nan)
    held = np.zeros(bins, dtype=np.int64)
    count, events = _by_column(count), _by_column(events)
    for b in range(bins):
        # the clusters with rows in the bin (the others add nothing to any sum)
        d, x = _column(count, b), _column(events, b)
        rows = np.flatnonzero(d)
        held[b] = rows.shape[0]
        if held[b] < 2:
            continue
        terms = ratio_terms(x[rows], d[rows], method)
        # CR1 on I_b - 1 degrees of freedom, the form the coverage grid measured (module
        # docstring), not the CR2 of the metrics' cluster-robust intervals
        se[b] = float(np.sqrt(terms.variance("CR1")))
        q = float(special.stdtrit(held[b] - 1, 0.5 + level / 2.0))
        p, n = terms.estimate, float(d.sum())
        independent = p * (1.0 - p) / n
        if independent > 0:
            deff[b] = se[b] ** 2 / independent
        if method == "wald-clustered":
            low[b], high[b] = max(p - q * se[b], 0.0), min(p + q * se[b], 1.0)
        else:
            effective = n / max(deff[b], 1.0) if independent > 0 else n
            low[b], high[b] = _wilson(p, effective, q)
    return ClusteredBins(low, high, se, deff, held)


def pivot_design_effect(conf: np.ndarray, hit: np.ndarray, key: np.ndarray, slots: int,
                        codes: np.ndarray, n_clusters: int) -> float:
    """The design effect of the binned error, ``D`` (module docstring): the clustered
    over the independent variance of its linearization, at least 1.

    ``key`` is each row's cell (``o * slots + b``, :func:`~dartboard.metrics.
    _calibration.bin_keys`); ``conf`` and ``hit`` are one group's.
    """
    b = key % slots
    count = np.bincount(b, minlength=slots)
    with np.errstate(invalid="ignore", divide="ignore"):
        deviation = np.where(count > 0, np.bincount(b, weights=hit - conf, minlength=slots)
                             / count, 0.0)
    r = deviation_sign(deviation)[b] * (hit - conf - deviation[b])
    independent = float(np.sum(r * r))
    if _no_spread(independent, float(np.sum((hit - conf) ** 2))):
        return 1.0
    clustered = float(np.sum(np.bincount(codes, weights=r, minlength=n_clusters) ** 2))
    return max(clustered / independent, 1.0)


#: residuals whose sum of squares is below this share of the rows' squared gaps
#: ``sum (hit - conf)^2`` are rounding, not spread: every row of each bin sits at its
#: bin's deviation (scores of 0.9 that are all right, say), and ``D`` is 1
NO_SPREAD = 1e-12


#: a bin's deviation smaller than this is 0: a calibrated bin (2 rows at 0.5, one
#: event) rounds to +-1e-17 or to 0 by the order of its sums, and its sign decides
#: whether the bin's residuals count (D was 1.54 from the rows, 1.12 from the states)
#: and whether the bin-pivot's worlds move it
NO_DEVIATION = 1e-12


def deviation_sign(deviation: np.ndarray) -> np.ndarray:
    """The sign of each bin's deviation, 0 within :data:`NO_DEVIATION` of 0 (the
    error's linearization at a calibrated bin, whichever way its sums rounded)."""
    return np.where(np.abs(deviation) <= NO_DEVIATION, 0.0, np.sign(deviation))


def _no_spread(independent: float, scale: float) -> bool:
    """Whether the residuals' sum of squares ``independent`` is rounding next to
    ``scale``, the rows' squared gaps: a ratio of two rounding errors is no design
    effect (the rows' and the states' sums round differently, so they would even
    disagree)."""
    return not independent > NO_SPREAD * scale


def state_design_effect(state: Any, clusters: list[Any]) -> float:
    """:func:`pivot_design_effect` from states: the merged one-group ``state`` and each
    cluster's (a streamed evaluation keeps no rows). The rows' residuals
    ``s_b (hit - conf - d_b)`` summed over a bin or a cluster need only each cell's
    count and sums of the confidence and its square: over bin ``b``,
    ``sum (hit - conf)^2 = w_1b - 2 sum_p_1b + sum_o sum_p2_ob``, less ``n_b d_b^2``;
    over cluster ``c``, ``sum_b s_b (events_cb - conf_cb - n_cb d_b)``."""
    w, sp, sp2 = state.weight[0], state.sum_p[0], state.sum_p2[0]
    count = w.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        deviation = np.where(count > 0, (w[1] - sp.sum(axis=0)) / count, 0.0)
    sign = deviation_sign(deviation)
    squares = w[1] - 2.0 * sp[1] + sp2.sum(axis=0)
    independent = float(np.sum(sign * sign * (squares - count * deviation * deviation)))
    if _no_spread(independent, float(np.sum(squares))):
        return 1.0
    # every cluster's (2, S) counts and sums stacked: one pass, not one per cluster
    weights = np.stack([c.weight[0] for c in clusters])
    sums = np.stack([c.sum_p[0] for c in clusters])
    totals = np.sum(sign * (weights[:, 1] - sums.sum(axis=1)
                            - weights.sum(axis=1) * deviation), axis=-1)
    return max(float(np.sum(totals * totals)) / independent, 1.0)


def effective_state(state: Any, design: float) -> Any:
    """A one-group state of ``1 / design`` of the rows: each cell's count divided by
    ``design`` and rounded, its mean and spread of confidences kept."""
    from dartboard.metrics._calibration import CalibrationState

    out = CalibrationState(state.n_bins, state.n_groups, edges=state.edges,
                           multiclass=state.multiclass)
    weight = np.round(state.weight / design)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(state.weight > 0, weight / state.weight, 0.0)
    out.weight, out.sum_p, out.sum_p2 = weight, state.sum_p * ratio, state.sum_p2 * ratio
    return out


#: clusters x bins up to which a sparse matrix of per-cluster sums is read dense
_DENSE_SUMS = 4_000_000


def _by_column(a: Any) -> Any:
    """A matrix read a column at a time: dense as it is; sparse, dense when small, else
    by compressed columns (a row-compressed one slices columns slowly)."""
    if isinstance(a, np.ndarray):
        return a
    if a.shape[0] * a.shape[1] <= _DENSE_SUMS:
        return np.asarray(a.toarray())
    return a.tocsc()


def _column(a: Any, b: int) -> np.ndarray:
    """Column ``b`` of a dense or sparse matrix, as a flat array."""
    if isinstance(a, np.ndarray):
        return a[:, b]
    return np.asarray(a[:, [b]].toarray()).ravel()


def _wilson(p: float, n: float, q: float) -> tuple[float, float]:
    """Wilson's interval of a proportion ``p`` of ``n`` rows with quantile ``q``
    (exactly 0 and 1 at the ends, as :func:`~dartboard._kernels._analytic.
    proportion_interval`)."""
    denom = 1.0 + q * q / n
    centre = (p + q * q / (2.0 * n)) / denom
    half = q * np.sqrt(p * (1.0 - p) / n + q * q / (4.0 * n * n)) / denom
    low = 0.0 if p == 0.0 else max(centre - half, 0.0)
    high = 1.0 if p == 1.0 else min(centre + half, 1.0)
    return float(low), float(high)
