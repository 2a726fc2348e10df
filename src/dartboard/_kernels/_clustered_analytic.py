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
(``delta-clustered``); for a ratio of counts it is the ratio's own term. For a metric in
[0, 1] (the F-scores) the same terms give ``jackknife-logit-clustered``, the logit
scale with the CR3 variance (:func:`clustered_interval`), ``auto``'s choice where the
clusters' sizes are unequal.

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
:func:`dartboard._kernels._clustered.studentized_interval`). The
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

from dartboard._kernels._methods import CLUSTERED_ANALYTIC_METHODS
from dartboard.exceptions import InputError

__all__ = ["AUTO_METHODS", "AUTO_MIN_CLUSTERS", "STUDENTIZED_MIN_CLUSTERS", "UNEQUAL_DF_SHARE",
           "ANALYTIC_BELOW_CLUSTERS", "FEW_CLUSTERS", "PAIRED_WORKING", "few_clusters",
           "unequal_sizes", "warn_few_clusters",
           "AUTO_MIN_ROWS", "CLUSTERED_ANALYTIC_METHODS", "JACKKNIFE_LOGIT",
           "PAIR_WINS_MAX_CLUSTERS", "ClusterTerms", "auc_terms", "clustered_interval",
           "delta_terms", "inflation", "pair_wins", "pair_wins_fit", "ratio_terms",
           "small_sample_df", "uneven_clusters", "wilson_clustered"]

#: ``method="auto"`` with clusters takes a metric's cluster-robust interval (CR2 with
#: the small-sample degrees of freedom) from this many clusters on; with fewer clusters
#: than :data:`FEW_CLUSTERS` the result says that the interval may fall short
#: (benchmarks/unequal_clusters_coverage.py, ``few``).
AUTO_MIN_CLUSTERS = 2
#: below this many clusters a result says that its interval may fall short
#: (:func:`few_clusters`): the smallest number of clusters from which ``auto``'s
#: interval kept at least 93% of nominal 95% for accuracy, F1, ROC AUC and log loss at
#: every ICC measured (benchmarks/unequal_clusters_coverage.py, ``few``: 2, 3, 4, 5,
#: 6, 8, 10, 15, 20 and 30 clusters of 20 rows, ICC 0, 0.2 and 0.5, 4000 data sets a
#: cell). At ICC 0.5 every count but 15 and 30 had a metric below 93%: 90.9-92.3%
#: from 2 to 8 clusters (F1, log loss), 92.9% at 10 (F1), 92.8% at 20 (log loss's
#: bootstrap-t; 92.7% with 10,000 resamples); 30 kept 93.6-94.3%. At ICC 0 and 0.2
#: every cell kept 93.9% or more from 2 clusters on, so the warning is conservative
#: there
FEW_CLUSTERS = 30
#: below this many clusters ``auto`` takes a metric's analytic cluster-robust form
#: whatever its rows (the rows rule, :data:`AUTO_MIN_ROWS`, was measured with 30
#: clusters): BCa over whole clusters covered 31-85% for ROC AUC with 2 to 5 clusters
#: and 50-53% for F1 with 2, the analytic forms 90.9-100%
#: (benchmarks/unequal_clusters_coverage.py, ``few``)
ANALYTIC_BELOW_CLUSTERS = 10
#: ... and the studentized bootstrap of ROC AUC and mean losses from this many (below,
#: the analytic forms; benchmarks/clustered_coverage.py measured it from 10 on)
STUDENTIZED_MIN_CLUSTERS = 10
#: ... below this many: from it on, the analytic form (``t-clustered`` of a mean loss,
#: ``delong-logit-clustered`` of ROC AUC). With 200 clusters of 1 to 100 rows the two
#: covered alike in every cell of benchmarks/clustered_coverage.py (ICC 0 to 0.5, 2000
#: data sets a cell: ROC AUC, log loss and MAE, log clustered_200.txt: analytic
#: 94.0-96.0%, bootstrap-t 93.8-95.8%), as at 100
#: clusters (log loss 93.5-95.7% against 93.7-95.3%); the studentized bootstrap costs
#: resamples x clusters draws and, for ROC AUC, a clusters x clusters table of wins
#: (56 ms for 20,000 rows in 200 clusters, against 4 ms for the analytic form), where
#: the t reference only gains with more clusters
STUDENTIZED_BELOW_CLUSTERS = 200
#: the share of ``I - 1`` below which the degrees of freedom of a cluster effect
#: (:func:`small_sample_df`, ``working="cluster"``) call the clusters' sizes unequal
UNEQUAL_DF_SHARE = 0.5
#: the cluster-robust methods ``auto`` takes (those the coverage grids measured; for
#: average precision and the PR area ``influence-logit-clustered`` covered more than the
#: bootstrap of whole clusters in every cell of benchmarks/clustered_ap_coverage.py,
#: which ``auto`` took for them before)
AUTO_METHODS = ("wald-clustered", "wilson-clustered", "t-clustered", "delong-logit-clustered",
                "delta-clustered", "jackknife-logit-clustered", "influence-logit-clustered",
                "bootstrap-t-clustered")
#: the delta method's terms of a metric in [0, 1] (F-scores) on the logit scale with the
#: CR3 variance: ``auto``'s choice for them where the clusters' sizes are unequal
#: (:func:`unequal_sizes`). With 30 and 50 lognormal clusters at ICC 0.5 where the
#: large clusters are harder (benchmarks/informative_size_coverage.py, 1000 data sets a
#: cell) ``delta-clustered`` covered F1 89.0% and 90.8%, this interval 92.9% and 93.7%,
#: with a mean width 1-2% narrower
JACKKNIFE_LOGIT = "jackknife-logit-clustered"
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
    sizes : ndarray of shape (C, k) or None
        ``s_cj``: cluster ``c``'s share of part ``j``'s denominator (``d_c`` of a ratio,
        the positives ``m_c`` and negatives ``n_c`` of ROC AUC, the rows of the delta
        method), whose leverages ``h_cj = s_cj / sum_c s_cj`` the small-sample
        corrections take; None: CR1 only.
    """

    estimate: float
    terms: np.ndarray
    present: np.ndarray
    method: str
    smallest: float = float("inf")
    sums: np.ndarray | None = None
    pair_wins: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
    sizes: np.ndarray | None = None
    #: what an interval asks of the terms several times (the clusters, the variance,
    #: the degrees of freedom: ``auto``'s choice and the interval read them both),
    #: found once; the arrays are not changed after the terms are formed
    _memo: dict[Any, Any] = dataclasses.field(default_factory=dict, init=False, repr=False,
                                              compare=False)

    @property
    def n_clusters(self) -> int:
        if "n_clusters" not in self._memo:
            self._memo["n_clusters"] = int(np.count_nonzero(self.present.any(axis=1)))
        return int(self._memo["n_clusters"])

    @property
    def defined(self) -> bool:
        """Whether every part has rows in two clusters (else ``I_j / (I_j - 1)`` is not)."""
        if "defined" not in self._memo:
            self._memo["defined"] = bool(np.all(np.count_nonzero(self.present, axis=0) >= 2))
        return bool(self._memo["defined"])

    def variance(self, correction: str = "CR2") -> float:
        """The cluster-robust variance (module docstring): ``"CR2"`` (Bell-McCaffrey's,
        the default where ``sizes`` are known), ``"CR3"`` (the leave-one-cluster-out
        jackknife) or ``"CR1"`` (``I / (I - 1)``, statsmodels' ``cov_type="cluster"``)."""
        if correction not in ("CR1", "CR2", "CR3"):
            raise InputError(f"correction must be 'CR1', 'CR2' or 'CR3'; got {correction!r}")
        key = ("variance", correction)
        if key not in self._memo:
            self._memo[key] = self._variance(correction)
        return float(self._memo[key])

    def _variance(self, correction: str) -> float:
        if correction == "CR1" or self.sizes is None:
            cross = self.terms.T @ self.terms
            k = cross.shape[0]
            factor = np.full((k, k), inflation(self.n_clusters))
            for j in range(k):
                factor[j, j] = inflation(int(np.count_nonzero(self.present[:, j])))
            return float(max(np.sum(factor * cross), 0.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            room = 1.0 - self.leverage()
            adjusted = self.terms / (np.sqrt(room) if correction == "CR2" else room)
        adjusted = np.where(self.present, adjusted, 0.0)
        total = float(np.sum(adjusted.sum(axis=1) ** 2))
        if correction == "CR3":
            total *= (self.n_clusters - 1) / self.n_clusters
        return total if np.isfinite(total) else float("nan")

    def leverage(self) -> np.ndarray:
        """``h_cj = s_cj / sum_c s_cj``: the diagonal block of the hat matrix of an
        intercept (weighted by the denominator's rows) that cluster ``c`` holds, per part."""
        if self.sizes is None:
            raise InputError("these cluster terms carry no cluster sizes")
        sizes = np.asarray(self.sizes, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return sizes / sizes.sum(axis=0)

    def degrees_of_freedom(self, working: str | tuple[float, float] = "fitted") -> float:
        """The t reference's degrees of freedom for the CR2 variance
        (:func:`small_sample_df`); ``I - 1`` without ``sizes``."""
        try:
            key = ("df", working)
            hash(key)
        except TypeError:  # an unhashable working model: not kept
            return self._degrees_of_freedom(working)
        if key not in self._memo:
            self._memo[key] = self._degrees_of_freedom(working)
        return float(self._memo[key])

    def _degrees_of_freedom(self, working: str | tuple[float, float]) -> float:
        if self.sizes is None:
            return float(self.n_clusters - 1)
        sizes = np.asarray(self.sizes, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(sizes > 0, sizes / sizes.sum(axis=0), 0.0)
            adjusted = np.where(self.present, self.terms / np.sqrt(1.0 - share), 0.0)
        s = share.sum(axis=1) if sizes.shape[1] > 1 else sizes[:, 0]
        held = s > 0
        return small_sample_df(s[held], adjusted.sum(axis=1)[held] ** 2, working)

    def minus(self, other: ClusterTerms) -> ClusterTerms:
        """The terms of ``self - other`` on the same clusters (two models, one test set);
        their sizes the mean of the two (equal where the denominators are)."""
        sizes = None if self.sizes is None or other.sizes is None else \
            (np.asarray(self.sizes) + np.asarray(other.sizes)) / 2.0
        return ClusterTerms(self.estimate - other.estimate, self.terms - other.terms,
                            self.present | other.present, self.method,
                            min(self.smallest, other.smallest), sizes=sizes)


def inflation(i: Any) -> Any:
    """CR1's small-sample factor ``I / (I - 1)`` of ``I`` clusters (an array of counts
    too); nan where ``I <= 1``, which leaves no variance to form."""
    i = np.asarray(i, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(i > 1, i / (i - 1.0), np.nan)


def few_clusters(n_clusters: int) -> str | None:
    """Why ``n_clusters`` clusters are too few for the clustered intervals to keep their
    level (None from :data:`FEW_CLUSTERS` on)."""
    if n_clusters >= FEW_CLUSTERS:
        return None
    return (f"the rows come in {n_clusters} clusters, fewer than the {FEW_CLUSTERS} from "
            "which the clustered 95% intervals of accuracy, F1, ROC AUC and log loss kept "
            "at least 93% coverage at every intra-cluster correlation simulated (0 to 0.5; "
            "benchmarks/unequal_clusters_coverage.py); with fewer clusters their coverage "
            "fell below 93% (at correlation 0.5 to 90.9% with clusters of equal sizes, "
            "to 88.4% with 3 clusters of unequal sizes), so an interval may hold the "
            "truth less often than its level says")


def warn_few_clusters(n_clusters: int, stacklevel: int = 3) -> None:
    """A :class:`~dartboard.exceptions.FewClustersWarning` where :func:`few_clusters`
    finds too few."""
    why = few_clusters(n_clusters)
    if why is not None:
        import warnings

        from dartboard.exceptions import FewClustersWarning

        warnings.warn(why, FewClustersWarning, stacklevel=stacklevel + 1)


def uneven_clusters(rows: np.ndarray) -> str | None:
    """Why a mean loss's clustered interval may hold less than its level with clusters
    of these row counts (their cluster-effect degrees of freedom below
    :data:`UNEQUAL_DF_SHARE` of ``I - 1``, the rule of :func:`unequal_sizes`), or None.

    Examples
    --------
    >>> uneven_clusters(np.full(30, 20)) is None
    True
    >>> print(uneven_clusters(np.array([1] * 29 + [600])).split(";")[0])
    the clusters' sizes are very unequal (the largest holds 95% of the rows)
    """
    s = np.asarray(rows, dtype=np.float64)
    s = s[s > 0]
    if s.shape[0] <= 2 or \
            small_sample_df(s, working="cluster") >= UNEQUAL_DF_SHARE * (s.shape[0] - 1):
        return None
    return (f"the clusters' sizes are very unequal (the largest holds "
            f"{s.max() / s.sum():.0%} of the rows); where a cluster's size goes with how "
            "well the model does on it, the clustered intervals of the mean losses (log "
            "loss, Brier score, the regression errors) covered as little as 85.8% at 95% "
            "(30 or 50 lognormal clusters, ICC 0.5), as no interval formed from the sample "
            "sees the largest clusters it lacks; accuracy, F1 and ROC AUC kept 92.9% or more "
            "(benchmarks/informative_size_coverage.py)")


def unequal_sizes(terms: ClusterTerms) -> bool:
    """Whether the clusters' sizes are unequal enough that ``auto`` takes the analytic
    form over the studentized bootstrap (:data:`UNEQUAL_DF_SHARE`)."""
    return terms.sizes is not None and terms.n_clusters > 2 and \
        terms.degrees_of_freedom("cluster") < UNEQUAL_DF_SHARE * (terms.n_clusters - 1)


def small_sample_df(sizes: np.ndarray, squares: np.ndarray | None = None,
                    working: str | tuple[float, float] = "fitted") -> float:
    """Degrees of freedom of the CR2 variance of a weighted mean over clusters.

    Clusters of sizes ``s_c`` (``S = sum s_c``, leverages ``h_c = s_c / S``); the CR2
    variance of the intercept is ``Q' y y' Q`` up to a constant, ``Q`` the clusters'
    columns of the residual maker times ``(1 - h_c)^-1/2``. If the rows follow the
    working model ``Omega = alpha I + beta (one block of ones per cluster)`` (rows
    independent, plus a random effect per cluster), the variance is a weighted sum of
    chi-squares with weights the eigenvalues of ``C = Q' Omega Q``; Satterthwaite's
    ``df = tr(C)^2 / tr(C^2)`` (Bell & McCaffrey 2002, Survey Methodology 28:169-181,
    with ``beta = 0``; Imbens & Kolesar 2016, Rev. Econ. Stat. 98:701-712, with the
    random effect). Here

        C = diag((alpha s + beta s^2) / (1 - h)) + U K U',  U = [w, w h],
        w = s / sqrt(1 - h),  K = [[beta sum h^2 - alpha / S, -beta], [-beta, 0]],

    so the traces take O(C) work. With equal sizes ``df = I - 1`` for any working
    model. ``working``: ``"independent"`` (``beta = 0``, Bell-McCaffrey),
    ``"cluster"`` (``alpha = 0``, a cluster effect alone) or ``"fitted"`` (``alpha``
    and ``beta`` the nonnegative least squares fit of the clusters' squared CR2 terms,
    ``squares``, on ``s`` and ``s^2``, as Imbens and Kolesar estimate theirs), or a pair
    ``(alpha, beta)``.

    Examples
    --------
    >>> small_sample_df(np.full(30, 20.0), working="independent")
    29.0
    >>> round(small_sample_df(np.array([1.0, 1, 1, 1, 100]), working="independent"), 3)
    1.061
    """
    s = np.asarray(sizes, dtype=np.float64)
    if s.shape[0] < 2:
        return float("nan")
    total = float(s.sum())
    h = s / total
    alpha, beta = 1.0, 0.0
    if isinstance(working, tuple):
        alpha, beta = float(working[0]), float(working[1])
    elif working == "cluster":
        alpha, beta = 0.0, 1.0
    elif working == "fitted" and squares is not None:
        alpha, beta = _working_model(s, np.asarray(squares, dtype=np.float64))
    elif working not in ("independent", "fitted"):
        raise InputError(f"working must be 'independent', 'cluster' or 'fitted'; got "
                         f"{working!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        diag = (alpha * s + beta * s * s) / (1.0 - h)
        w = s / np.sqrt(1.0 - h)
    u = np.column_stack([w, w * h])
    k = np.array([[beta * float(np.sum(h * h)) - alpha / total, -beta], [-beta, 0.0]])
    uu = u.T @ u
    ku = k @ uu
    trace = float(diag.sum() + np.trace(ku))
    square = float(np.sum(diag * diag) + 2.0 * np.trace(k @ (u.T @ (diag[:, None] * u)))
                   + np.trace(ku @ ku))
    df = trace * trace / square if square > 0 else float("nan")
    # rounding can leave the df a hair above I - 1, which equal sizes give exactly
    return float(min(df, s.shape[0] - 1)) if np.isfinite(df) else float(s.shape[0] - 1)


def _working_model(s: np.ndarray, squares: np.ndarray) -> tuple[float, float]:
    """``(alpha, beta) >= 0`` minimizing ``sum (squares - alpha s - beta s^2)^2``; the
    independent model (1, 0) where the squares are all 0."""
    design = np.column_stack([s, s * s])
    if not np.any(squares > 0) or not np.all(np.isfinite(squares)):
        return 1.0, 0.0
    fits = []
    both = np.linalg.lstsq(design, squares, rcond=None)[0]
    if np.all(both >= 0):
        fits.append(both)
    for j in range(2):
        coef = np.zeros(2)
        coef[j] = max(float(design[:, j] @ squares / (design[:, j] @ design[:, j])), 0.0)
        fits.append(coef)
    best = min(fits, key=lambda c: float(np.sum((squares - design @ c) ** 2)))
    return (1.0, 0.0) if not np.any(best > 0) else (float(best[0]), float(best[1]))


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
                        sums=np.column_stack([x, d]), sizes=np.abs(d)[:, None])


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
                        min(m_all, n_all), pair_wins=wins,
                        sizes=np.column_stack([m, n]).astype(np.float64))


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
                        "delta-clustered", n, sizes=sizes[:, None])


def single_rows_se(terms: ClusterTerms, rows: np.ndarray) -> float:
    """The CR2 standard error with each row its own cluster, from the terms of groups
    of alike rows: group ``j`` sums the terms of ``rows[j]`` rows, each ``T_j / m_j``
    with leverage ``h_j / m_j`` (``h_j`` the group's, :meth:`ClusterTerms.leverage`),
    so ``V = sum_j m_j (T_j / m_j)^2 / (1 - h_j / m_j)``: the variance of the terms of
    the rows themselves, at the cost of the groups (a design effect's base, the
    independent-rows form of ``delta-clustered``)."""
    m = np.asarray(rows, dtype=np.float64)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        each = terms.terms / m
        total = np.sum(np.where(terms.present, m * each * each / (1.0 - terms.leverage() / m),
                                0.0))
    return float(np.sqrt(total)) if np.isfinite(total) else float("nan")


def clustered_interval(terms: ClusterTerms, level: float,
                       bounds: tuple[float, float] | None, logit: bool = False,
                       wilson: bool = False, correction: str = "CR2"
                       ) -> tuple[float, float, float]:
    """``(low, high, se)``: ``estimate +- t_df se`` with the CR2 standard error and the
    small-sample degrees of freedom (:meth:`ClusterTerms.degrees_of_freedom`; CR1 and
    ``I - 1`` for terms without sizes); ``logit``: the same on the logit scale,
    ``logit(theta) +- t_df se / (theta (1 - theta))`` carried back
    (``delong-logit-clustered``: an AUC near 1 with few effective rows has a skewed
    sampling distribution, as ``delong-logit`` allows for without clusters); ``wilson``:
    :func:`wilson_clustered` (a proportion); ``correction``: the variance
    (:meth:`ClusterTerms.variance`).

    ``jackknife-logit-clustered`` is ``logit=True`` with ``correction="CR3"``:

        logit(theta) +- t_df sqrt(V3) / (theta (1 - theta)),
        V3 = (I - 1) / I * sum_c (t_c / (1 - h_c))^2,

    ``t_c`` cluster ``c``'s term and ``h_c`` its share of the rows: the CR3 variance,
    the leave-one-cluster-out jackknife's (for a ratio of sums exactly ``(I - 1) / I
    sum_c (theta_-c - theta)^2``, since ``theta_-c - theta = -t_c / (1 - h_c)``; Bell &
    McCaffrey 2002, Survey Methodology 28:169-181; MacKinnon, Nielsen & Webb 2023,
    J. Econometrics 232:272-299, "CV3"), on the cluster-effect degrees of freedom. Where
    a cluster's size tells how well the model does on it, a large cluster carries both
    the estimate and its error: CR3 divides its term by ``1 - h_c`` where CR2 divides by
    ``sqrt(1 - h_c)``, and on the logit scale the interval reaches further on the side
    of 1/2 (where the truth of F1 lay when a sample missed the largest, hardest
    clusters, benchmarks/informative_size_coverage.py).
    At 0 or 1 the logit form falls back to the symmetric one, clipped."""
    if not terms.defined:
        raise InputError(f"{terms.method} needs the rows of each part of the metric (its "
                         "denominator; the positives and the negatives of ROC AUC) in at "
                         "least two clusters")
    se = float(np.sqrt(terms.variance(correction)))
    df = terms.degrees_of_freedom(WORKING)
    q = float(special.stdtrit(df, 0.5 + level / 2.0))
    theta = terms.estimate
    if wilson:
        low, high = wilson_clustered(terms, q)
        return low, high, se
    if logit and 0.0 < theta < 1.0:
        centre, half = np.log(theta / (1.0 - theta)), q * se / (theta * (1.0 - theta))
        low, high = special.expit(centre - half), special.expit(centre + half)
        return float(low), float(high), se
    low, high = theta - q * se, theta + q * se
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return float(low), float(high), se


def wilson_clustered(terms: ClusterTerms, q: float) -> tuple[float, float]:
    """Wilson's interval of a proportion at its effective size (``wilson-clustered``).

    The effective size is ``n* = p (1 - p) / V`` (``V`` the CR2 variance), at most
    the ``n = sum d_c`` rows of the denominator: ``n`` over the design effect, taken
    as at least 1 (Korn & Graubard 1998, Survey Methodology 24:193-201, with the CR2
    variance and ``q`` the small-sample t quantile for ``z``). Where every row agrees
    (``p`` is 0 or 1) the clusters give no variance to measure the design effect by,
    so ``n*`` is the fewest rows the clusters can be worth, Kish's ``n^2 / sum d_c^2``
    (each cluster's rows all alike): the interval keeps a positive width that grows
    as the rows gather in fewer clusters, where ``wald-clustered`` has width 0.
    """
    assert terms.sums is not None  # a ratio's terms
    d = terms.sums[:, 1]
    n = float(d.sum())
    p = min(max(terms.estimate, 0.0), 1.0)
    variance = terms.variance()
    if 0.0 < p < 1.0 and variance > 0:
        size = min(p * (1.0 - p) / variance, n)
    else:
        size = n * n / float(np.sum(d * d))
    z2 = q * q / size
    centre = (p + z2 / 2.0) / (1.0 + z2)
    half = q * np.sqrt(p * (1.0 - p) / size + z2 / (4.0 * size)) / (1.0 + z2)
    # rounding can leave an end a hair inside the estimate at 0 and 1: Wilson's holds it
    return float(max(min(centre - half, p), 0.0)), float(min(max(centre + half, p), 1.0))


#: the working model of the degrees of freedom (:func:`small_sample_df`) the intervals
#: and the paired tests take: a cluster effect alone. With 30 and 50 clusters of
#: lognormal sizes at ICC 0.2 and 0.5 (benchmarks/unequal_clusters_coverage.py, 1000
#: data sets a cell) it was the one that kept 93% where the size does not inform the
#: metric (95.0-99.0%, against 90.1-95.9% for Bell-McCaffrey's independent rows and
#: 91.6-95.9% for the fitted model); with equal sizes every working model gives I - 1
WORKING = "cluster"

#: the working model of the paired cluster-robust test's degrees of freedom (the
#: difference of two models' terms): the fitted one (Imbens and Kolesar). The two
#: models' cluster effects largely cancel in the difference, so a cluster effect alone
#: (:data:`WORKING`) gave too few degrees of freedom and a conservative test: 0.9-1.9%
#: of equally good models rejected at 5% with 30 or 50 clusters of lognormal sizes,
#: ICC 0.2 and 0.5, informative size or not, where the fitted model rejected 3.7-5.8%
#: (accuracy and ROC AUC, 4000 data sets a cell) and 1.8-5.9% with 5 to 20 clusters
#: (benchmarks/robust_test_df.py); with equal sizes both give I - 1
PAIRED_WORKING = "fitted"
