"""Analytic intervals when rows come in clusters: cluster-robust (sandwich) variances.

A metric that is a ratio of sums, ``theta = sum_i x_i / sum_i d_i`` (a proportion
of counts: accuracy ``x`` = correct, ``d`` = 1; precision ``x`` = TP, ``d`` = predicted
positive; a mean loss ``x`` = ``w t``, ``d`` = ``w``), is linearized by its residuals
``e_i = x_i - theta d_i``; rows of one cluster are summed before squaring:

    V = I / (I - 1) * sum_c (sum_{i in c} e_i)^2 / (sum_i d_i)^2

with ``I`` the clusters that hold any of the denominator's rows (Miller 2024, "Adding
error bars to evals", arXiv:2411.00640, eq. 6; the CR1 variance of Cameron & Miller
2015, J. Human Resources 50:317). Where every ``d_i`` is 0 or 1 it is the variance
of statsmodels' ``OLS(x, ones)`` on the rows with ``d_i = 1``, ``fit(cov_type=
"cluster")``: statsmodels' small-sample factor ``G / (G - 1) * (N - 1) / (N - K)`` is
``G / (G - 1)`` with the one regressor (``K = 1``). With one row per cluster a
proportion's variance is ``p (1 - p) / (n - 1)``, the Wald variance times
``n / (n - 1)``.

ROC AUC (Obuchowski 1997, Biometrics 53:567-578, eqs. 3-5): a positive's placement
value ``V10`` is the share of all negatives below its score (ties one half), a
negative's ``V01`` the share of positives above; per cluster ``a_c = sum (V10 -
theta)`` over its ``m_c`` positives and ``b_c = sum (V01 - theta)`` over its ``n_c``
negatives; with ``M``, ``N`` the positives and negatives and ``I10``, ``I01``, ``I``
the clusters with a positive, with a negative, and all clusters,

    V = I10/(I10-1) sum a_c^2 / M^2 + I01/(I01-1) sum b_c^2 / N^2
        + 2 I/(I-1) sum a_c b_c / (M N),

which is DeLong's variance when each cluster holds one row.

Other count metrics (F-scores, MCC, balanced accuracy, kappa): the delta method
(:func:`delta_terms`), cluster ``c``'s term the metric's gradient at the summed
confusion matrix times the cluster's matrix less its share of the total
(``delta-clustered``); for a ratio of counts it is the ratio's own term.

Each is ``sum_{j,l} f_jl sum_c t_cj t_cl`` over per-cluster terms ``t_c`` (one
column for a ratio, two for AUC) with factors ``I_j/(I_j - 1)`` on the diagonal
and ``I/(I-1)`` off it: :class:`ClusterTerms` holds the terms, and the difference of
two models on the same rows is the difference of their terms (paired tests).
Intervals: ``theta +- t_{I-1} sqrt(V)`` with ``I`` the clusters, clipped to the
metric's range (``wald-clustered`` for ratios of counts, ``t-clustered`` for mean
losses, ``delong-clustered`` for ROC AUC; ``delong-logit-clustered`` is
``logit(theta) +- t_{I-1} sqrt(V) / (theta (1 - theta))`` carried back, ``auto``'s
choice for ROC AUC beyond ``PAIR_WINS_MAX_CLUSTERS`` clusters: at intra-cluster
correlation 0.5 with 30 clusters it covered 93.6-94.4% where the symmetric form
covered 91.5-91.9%, 1000 data sets each; up to that many clusters ``auto`` takes the
studentized bootstrap of whole clusters of the same statistic,
:func:`dartboard.uncertainty._clustered.studentized_interval`). The
``t`` quantile on ``I - 1`` degrees of
freedom is Cameron & Miller's (2015, section VI) small-sample reference for CR1: with
the normal one, the paired tests rejected 6.7% of equal models at 5% with 50 clusters
(benchmarks/clustered_type1.py) and the intervals covered 90-92% with 10 clusters
(benchmarks/clustered_coverage.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from dartboard.exceptions import InputError
from dartboard.uncertainty._methods import CLUSTERED_ANALYTIC_METHODS

__all__ = ["AUTO_METHODS", "AUTO_MIN_CLUSTERS", "AUTO_MIN_ROWS", "CLUSTERED_ANALYTIC_METHODS",
           "PAIR_WINS_MAX_CLUSTERS", "ClusterTerms", "auc_terms", "clustered_interval",
           "delta_terms", "inflation", "pair_wins", "pair_wins_fit", "ratio_terms"]

#: ``method="auto"`` with clusters takes a metric's cluster-robust interval from this
#: many clusters on, BCa over whole clusters below. benchmarks/clustered_coverage.py
#: (1000 data sets a cell) measured the cluster-robust interval at or above BCa's
#: coverage in every cell where both ran, with 10 and with 30 clusters (BCa 85-89%
#: with 10 clusters of 20 rows, 91.7-92.9% with 30 clusters); below 10 nothing was
#: measured.
AUTO_MIN_CLUSTERS = 10
#: the cluster-robust methods ``auto`` takes (those the coverage grid measured)
AUTO_METHODS = ("wald-clustered", "t-clustered", "delong-logit-clustered", "delta-clustered",
                "bootstrap-t-clustered")
#: ... and the rows (``ClusterTerms.smallest``) ``delong-clustered`` and
#: ``delta-clustered`` need for it: with 30 clusters of one row ROC AUC's covered
#: 91.3% (15 rows of a class) and F1's 92.9% against BCa's 95.7% for both; with 30
#: clusters of 5 rows (75 of a class, 150 rows) 92.9% and 95.4% against BCa's 92.0%
#: and 92.7%
AUTO_MIN_ROWS = 50


@dataclasses.dataclass(frozen=True)
class ClusterTerms:
    """A metric's estimate and its per-cluster linearized terms.

    Attributes
    ----------
    estimate : float
    terms : ndarray of shape (C, k)
        ``t_cj``: cluster ``c``'s summed residuals of part ``j`` divided by the part's
        total (k = 1 for a ratio; positives and negatives for ROC AUC).
    present : ndarray of bool, shape (C, k)
        Whether cluster ``c`` holds rows of part ``j`` (which clusters count in
        ``I_j``).
    method : str
        The interval's name (``wald-clustered``, ``t-clustered``,
        ``delong-clustered``, ``delta-clustered``).
    smallest : float
        Rows that ``auto`` compares with :data:`AUTO_MIN_ROWS`: the smaller class of
        ROC AUC, all rows for the delta method, inf for a ratio or a mean.
    sums : ndarray of shape (C, 2) or None
        A ratio's per-cluster numerator and denominator sums (``x_c``, ``d_c``), which
        the studentized bootstrap of whole clusters resamples; None for other terms.
    pair_wins : callable or None
        ROC AUC's ``(W, m, n)``: ``W[c, c']`` the wins of cluster ``c``'s positives over
        cluster ``c'``'s negatives (ties one half), ``m``, ``n`` each cluster's
        positives and negatives (:func:`pair_wins`), computed when asked; what the
        studentized bootstrap of whole clusters resamples. None for other terms or more
        than :data:`PAIR_WINS_MAX_CLUSTERS` clusters.
    """

    estimate: float
    terms: np.ndarray
    present: np.ndarray
    method: str
    smallest: float = float("inf")
    sums: np.ndarray | None = None
    pair_wins: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None

    @property
    def n_clusters(self) -> int:
        return int(np.count_nonzero(self.present.any(axis=1)))

    @property
    def defined(self) -> bool:
        """Whether every part has rows in two clusters (else ``I_j / (I_j - 1)`` is not)."""
        return bool(np.all(np.count_nonzero(self.present, axis=0) >= 2))

    def variance(self) -> float:
        """The cluster-robust variance (module docstring)."""
        cross = self.terms.T @ self.terms
        k = cross.shape[0]
        factor = np.full((k, k), inflation(self.n_clusters))
        for j in range(k):
            factor[j, j] = inflation(int(np.count_nonzero(self.present[:, j])))
        return float(max(np.sum(factor * cross), 0.0))

    def minus(self, other: ClusterTerms) -> ClusterTerms:
        """The terms of ``self - other`` on the same clusters (two models, one test set)."""
        return ClusterTerms(self.estimate - other.estimate, self.terms - other.terms,
                            self.present | other.present, self.method,
                            min(self.smallest, other.smallest))


def inflation(i: Any) -> Any:
    """CR1's small-sample factor ``I / (I - 1)`` of ``I`` clusters (an array of counts
    too); nan where ``I <= 1``, which leaves no variance to form."""
    i = np.asarray(i, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(i > 1, i / (i - 1.0), np.nan)


def ratio_terms(numerator: np.ndarray, denominator: np.ndarray, method: str
                ) -> ClusterTerms:
    """Terms of ``sum x / sum d`` from per-cluster sums ``x_c`` and ``d_c``.

    Examples
    --------
    Four clusters of four rows, 3, 1, 4 and 2 right: ``theta = 10/16``, residuals
    ``x_c - theta d_c = 0.5, -1.5, 1.5, -0.5``, ``V = 4/3 * 5 / 16^2``.

    >>> t = ratio_terms(np.array([3.0, 1, 4, 2]), np.array([4.0, 4, 4, 4]),
    ...                 "wald-clustered")
    >>> t.estimate, round(t.variance(), 6), round(4 / 3 * 5 / 256, 6)
    (0.625, 0.026042, 0.026042)
    >>> [round(v, 4) for v in clustered_interval(t, 0.95, (0.0, 1.0))]  # t on 3 df
    [0.1114, 1.0, 0.1614]
    """
    x = np.asarray(numerator, dtype=np.float64)
    d = np.asarray(denominator, dtype=np.float64)
    total = float(d.sum())
    theta = float(x.sum() / total) if total else float("nan")
    return ClusterTerms(theta, ((x - theta * d) / total)[:, None], (d != 0)[:, None], method,
                        sums=np.column_stack([x, d]))


def auc_terms(v10: np.ndarray, v01: np.ndarray, m: np.ndarray, n: np.ndarray,
              wins: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
              ) -> ClusterTerms:
    """Obuchowski's terms from per-cluster sums of placement values (``v10`` over a
    cluster's ``m`` positives, ``v01`` over its ``n`` negatives); ``wins`` the clusters'
    :func:`pair_wins`, when they are few enough to hold."""
    m_all, n_all = float(np.sum(m)), float(np.sum(n))
    theta = float(np.sum(v10) / m_all)
    terms = np.column_stack([(v10 - theta * m) / m_all, (v01 - theta * n) / n_all])
    return ClusterTerms(theta, terms, np.column_stack([m > 0, n > 0]), "delong-clustered",
                        min(m_all, n_all), pair_wins=wins)


#: the most clusters whose pairwise wins (a C x C matrix, filled one cluster's negatives
#: at a time) ROC AUC's studentized bootstrap takes; beyond, with at least this many
#: clusters, ``delong-logit-clustered`` covered 94.0-95.0% in every measured cell
PAIR_WINS_MAX_CLUSTERS = 200
#: ... and cells times clusters that :func:`pair_wins` visits
PAIR_WINS_MAX_WORK = 100_000_000


def pair_wins(owner: np.ndarray, score: np.ndarray, positive: np.ndarray,
              size: np.ndarray, n_clusters: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(W, m, n)`` of rows (or cells of ``size`` identical rows) in clusters ``owner``:
    ``W[c, c']`` the rows of pairs (a positive of ``c`` above a negative of ``c'``, ties
    one half), ``m[c]``, ``n[c]`` the positives and negatives of cluster ``c``.

    ``sum W / (sum m sum n)`` is ROC AUC, ``W.sum(axis=1) / sum n`` each cluster's
    placement sum ``v10`` and ``W.sum(axis=0) / sum m`` its ``v01``; a resample that
    takes cluster ``c`` ``w_c`` times has ``w' W w`` wins. One column per cluster: its
    negatives counted per distinct score, summed up the scores and read at each
    positive's score (O(clusters x (distinct scores + positives))).
    """
    size = np.asarray(size, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    distinct, at = np.unique(score, return_inverse=True)
    pos_at = np.flatnonzero(positive)
    k_pos, o_pos, w_pos = at[pos_at], owner[pos_at], size[pos_at]
    neg_at = np.flatnonzero(~positive)
    # the negatives grouped by cluster once (not a pass over them per cluster)
    neg_at = neg_at[np.argsort(owner[neg_at], kind="stable")]
    clusters, starts = np.unique(owner[neg_at], return_index=True)
    wins = np.zeros((n_clusters, n_clusters))
    below = np.empty(distinct.shape[0])
    for c, mine in zip(clusters, np.split(neg_at, starts[1:])):
        count = np.bincount(at[mine], weights=size[mine], minlength=distinct.shape[0])
        np.cumsum(count, out=below)
        below -= 0.5 * count  # the negatives strictly below, and half of those tied
        wins[:, c] = np.bincount(o_pos, weights=w_pos * below[k_pos], minlength=n_clusters)
    m = np.bincount(o_pos, weights=w_pos, minlength=n_clusters)
    n = np.bincount(owner[neg_at], weights=size[neg_at], minlength=n_clusters)
    return wins, m, n


def pair_wins_fit(n_clusters: int, n_cells: int) -> bool:
    """Whether :func:`pair_wins` of ``n_cells`` cells in ``n_clusters`` clusters is kept:
    at most :data:`PAIR_WINS_MAX_CLUSTERS` clusters and ``PAIR_WINS_MAX_WORK`` cell
    visits (a second or so)."""
    return n_clusters <= PAIR_WINS_MAX_CLUSTERS and \
        n_clusters * n_cells <= PAIR_WINS_MAX_WORK


def delta_terms(evaluate: Callable[[np.ndarray], np.ndarray], parts: np.ndarray
                ) -> ClusterTerms | None:
    """The delta method's terms of any smooth function of summed counts.

    ``parts`` holds each cluster's counts (``(C, ...)``, a confusion matrix per
    cluster) and ``evaluate`` maps a stack of summed counts to the metric. With the
    gradient ``g`` of the metric at the total ``M`` (central differences, step
    ``1e-6`` of the total), cluster ``c``'s term is ``g . (M_c - (N_c / N) M)``: for a
    ratio of counts exactly the ratio's residual sum over ``sum d``
    (:func:`ratio_terms`), and for F-scores, MCC or kappa their linearization. None
    where the metric is undefined at a step (an empty class).
    """
    parts = np.asarray(parts, dtype=np.float64)
    total = parts.sum(axis=0)
    n = float(total.sum())
    flat = total.ravel()
    step = 1e-6 * n
    basis = np.eye(flat.size) * step
    with np.errstate(all="ignore"):
        values = evaluate(np.concatenate([flat[None], flat + basis, flat - basis]).reshape(
            (2 * flat.size + 1, *total.shape)))
    if not np.all(np.isfinite(values)):
        return None
    gradient = (values[1:flat.size + 1] - values[flat.size + 1:]) / (2.0 * step)
    sizes = parts.reshape(parts.shape[0], -1).sum(axis=1)
    centred = parts.reshape(parts.shape[0], -1) - np.outer(sizes / n, flat)
    return ClusterTerms(float(values[0]), (centred @ gradient)[:, None], (sizes > 0)[:, None],
                        "delta-clustered", n)


def clustered_interval(terms: ClusterTerms, level: float,
                       bounds: tuple[float, float] | None, logit: bool = False
                       ) -> tuple[float, float, float]:
    """``(low, high, se)``: ``estimate +- t_{I-1} se``; ``logit``: the same on the logit
    scale, ``logit(theta) +- t_{I-1} se / (theta (1 - theta))`` carried back
    (``delong-logit-clustered``: an AUC near 1 with few effective rows has a skewed
    sampling distribution, as ``delong-logit`` allows for without clusters)."""
    if not terms.defined:
        raise InputError(f"{terms.method} needs the rows of each part of the metric (its "
                         "denominator; the positives and the negatives of ROC AUC) in at "
                         "least two clusters")
    se = float(np.sqrt(terms.variance()))
    q = float(special.stdtrit(terms.n_clusters - 1, 0.5 + level / 2.0))
    theta = terms.estimate
    if logit and 0.0 < theta < 1.0:
        centre, half = np.log(theta / (1.0 - theta)), q * se / (theta * (1.0 - theta))
        low, high = special.expit(centre - half), special.expit(centre + half)
        return float(low), float(high), se
    low, high = theta - q * se, theta + q * se
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return float(low), float(high), se
