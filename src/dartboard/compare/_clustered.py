"""Two models compared on rows that come in clusters (``compare_models(clusters=)``).

Rows of one cluster (a passage's questions, a patient's visits) are not independent,
so a test that swaps or resamples rows one by one is too sure of itself: with an
intra-cluster correlation its Type I error exceeds its level
(benchmarks/clustered_type1.py). Both of the tests here move whole clusters:

* ``permutation``: under the null the two models are exchangeable within each
  cluster, so each replicate swaps the two models' predictions on all rows of a
  cluster together, with probability 1/2 per cluster; ``p = (S + 1) / (R + 1)``. The
  interval is the percentile interval of the paired bootstrap of whole clusters
  (both models' rows of a drawn cluster together). Binary ROC AUC swaps the raw
  scores: every score is coded by its midrank among both models' scores together
  (:func:`~dartboard.families._paired.joint_score_codes`), one increasing map for
  both models that keeps each AUC, so a replicate that swaps codes is one that swaps
  raw scores, and its AUC is a counting pass (the bootstrap counts too, each row
  weighted by how often its cluster was drawn). That is the exact test when the
  models are exchangeable within clusters, and a monotone map applied to both
  models' scores changes nothing. A map of one model alone does change the test, so
  the two models' scores must share a scale: ``compare_models`` (and
  ``compare_k_models``) warn when one model's scores all lie in [0, 1] and another's
  do not (probabilities against logits or decision values). Without clusters the
  row swap exchanges each model's own ranks instead (validated there). On whole
  clusters that swap is not an exchange of the models: each model's ranks, taken once
  over all rows, read a swapped cluster against the other model's distribution of
  scores. With 30 or 50 clusters of lognormal sizes (mean 20 rows, sigma 1.5) and
  intra-cluster correlation 0.5 it rejected 6.5-7.0% of equally good models at 5%,
  and ``compare_k_models``' max-T over whole clusters, which dealt the same ranks, had
  a family-wise error of 6.8-8.1%. The raw-score swap rejects 4.5-6.4% of them at 0.5
  (5.6% pooled over the four cells, SE 0.4) and 4.6-5.2% at 0.2 (4.8% pooled); the
  max-T's family-wise error is 4.2-5.6% at 0.5 (5.0% pooled) and 3.9-4.8% at 0.2
  (1000 data sets per cell, binomial SE 0.6-0.8 points; 200 resamples, whose exact
  level is 10/201 = 4.98%;
  benchmarks/unequal_clusters_type1.py, log
  results/logs/unequal_clusters_type1_perm_auc.txt). On every one of those 8000
  data sets the p-value equals that of a raw-score swap written apart in the script
  on the same swaps. Average precision, the PR area and the fixed-point rates swap
  the raw scores the same way (by their joint ranks, recomputing the metric on each
  replicate). With each model's own ranks, average precision rejected 7.4% and 7.0%
  of equal models at ICC 0.5 where the large clusters were harder (30 and 50
  clusters), the raw-score swap 4.9% and 4.5%; 6.5% and 6.1% (own ranks 6.2%, 5.5%)
  where size did not inform, and 5.1% (5.3%) at ICC 0.2 (1000 data sets a cell, SE
  0.7-0.8; log results/logs/unequal_clusters_type1_perm_ap.txt). Multiclass ROC AUC
  swaps the raw probability rows. The ``cluster-robust`` test below held its level in those
  cells too, and depends only on each model's order of scores.
* ``cluster-robust``: the difference of the two estimates over its cluster-robust
  standard error, ``z = (theta_a - theta_b) / se``, its p-value and the interval
  ``diff +- q se`` from Student's t: the CR2 (Bell-McCaffrey) standard error on the
  small-sample degrees of freedom of a working model fitted to the clusters' terms
  (:func:`~dartboard._kernels._clustered_analytic.small_sample_df`, ``"fitted"``, as
  Imbens and Kolesar; ``I - 1`` with ``I`` clusters of equal sizes). With 30 or 50
  clusters of lognormal sizes (benchmarks/robust_test_df.py, 4000 data sets per cell:
  accuracy and ROC AUC, correlation 0.2 and 0.5, informative size or not) it rejects
  3.7-5.8% of equally good models at 5%, and 1.8-5.9% with 5, 10 or 20 clusters. CR1
  on ``I - 1`` rejected 11.6-16.1% there; CR2 on the degrees of freedom of a cluster
  effect alone (the working model of the intervals) 0.9-1.9%, a test that keeps its
  level by rejecting too little. The
  standard error is that of the metric's cluster-robust interval
  (:mod:`dartboard._kernels._clustered_analytic`) applied to the difference of the
  two models' per-cluster terms: a ratio of counts or a mean loss
  (``wald-clustered``, ``t-clustered``) or Obuchowski's clustered DeLong for ROC AUC
  (``delong-clustered``), which with one row per cluster is DeLong's test of two
  correlated AUCs.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import stats

from dartboard._kernels._clustered import ClusterIndex
from dartboard._kernels._clustered_analytic import PAIRED_WORKING, warn_few_clusters
from dartboard._kernels._result import Interval
from dartboard._rng import spawn_generators
from dartboard.compare._permutation import count_extreme
from dartboard.compare._results import Comparison
from dartboard.exceptions import InputError
from dartboard.families._paired import (
    batch_auc,
    batches,
    binary_truth,
    joint_score_codes,
    within_model_ranks,
)

__all__ = ["MIXED_SCALES", "cluster_swap_auc", "clustered_comparison", "warn_mixed_scales"]


def clustered_comparison(metric: Callable[..., Any], name: str, y: np.ndarray, a: np.ndarray,
                         b: np.ndarray, w: np.ndarray | None, kwargs: dict[str, Any],
                         index: ClusterIndex, estimates: tuple[float, float], method: str,
                         n_resamples: int, alternative: str, level: float, random_state: Any,
                         swap: str) -> Comparison:
    """``compare_models`` with clusters (module docstring). ``swap`` says what a
    permutation exchanges: ``"values"`` (the predictions as given), ``"ranks"`` (each
    model's within-model ranks) or ``"scores"`` (a binary ranking metric: the raw
    scores, by their joint ranks; ``"auc"``: ROC AUC's, counted)."""
    warn_few_clusters(index.n_clusters, stacklevel=4)
    observed = estimates[0] - estimates[1]
    common: dict[str, Any] = dict(metric=name, estimate_a=estimates[0],
                                  estimate_b=estimates[1], difference=observed,
                                  alternative=alternative)
    if method == "cluster-robust":
        return _cluster_robust(metric, name, y, a, b, w, kwargs, index, level, common)
    perm_rng, boot_rng = spawn_generators(random_state, 2)
    if swap in ("scores", "auc"):
        warn_mixed_scales([("pred_a", a), ("pred_b", b)], "compare_models",
                          "method='cluster-robust'", stacklevel=4)
        (a, b), n_codes = joint_score_codes(a, b)
        if swap == "auc" and w is None and not kwargs:
            yt = binary_truth(y)
            null = np.empty(n_resamples)
            for start, size in batches(n_resamples, max(a.shape[0], n_codes,
                                                        index.n_clusters)):
                null[start:start + size] = cluster_swap_auc(
                    yt, a, b, n_codes, index.codes, _swap_draws(index.n_clusters, size,
                                                                perm_rng))
            boot = _cluster_bootstrap_auc(yt, a, b, n_codes, index, n_resamples, boot_rng)
        else:  # the other ranking metrics, weights or keywords: the metric on the
            # joint ranks (an increasing map of both models' scores, which keeps each)
            a, b = a / 2.0, b / 2.0
            null = _cluster_swaps(metric, y, a, b, w, kwargs, index, n_resamples, perm_rng)
            boot = _cluster_bootstrap(metric, y, a, b, w, kwargs, index, n_resamples,
                                      boot_rng)
    else:
        if swap == "ranks":
            a, b = within_model_ranks(a), within_model_ranks(b)
        null = _cluster_swaps(metric, y, a, b, w, kwargs, index, n_resamples, perm_rng)
        boot = _cluster_bootstrap(metric, y, a, b, w, kwargs, index, n_resamples, boot_rng)
    undefined = int(np.count_nonzero(~np.isfinite(null)))
    if undefined:
        warnings.warn(f"{name} was undefined in {undefined} of {n_resamples} permutation "
                      "replicates; they count as not extreme", UserWarning, stacklevel=3)
    pvalue = (count_extreme(null, observed, alternative) + 1) / (n_resamples + 1)
    from dartboard._kernels._bootstrap import Replicates, bootstrap_interval

    kept = boot[np.isfinite(boot)]
    if kept.shape[0] < n_resamples:
        warnings.warn(f"{name} was undefined in {n_resamples - kept.shape[0]} of "
                      f"{n_resamples} cluster bootstrap replicates; they are left out",
                      UserWarning, stacklevel=3)
    low, high, se, _, dist = bootstrap_interval(observed, Replicates(kept), level,
                                                "percentile")
    c = index.n_clusters
    interval = Interval(observed, low, high, level,
                        f"paired bootstrap percentile (clustered: {c} clusters)", se, dist,
                        n_resamples, f"difference in {name}")
    how = ("cluster-swap permutation" + {"values": "", "ranks": " of within-model score ranks",
                                         "scores": " of the raw scores",
                                         "auc": " of the raw scores"}[swap]
           + f" ({c} clusters)")
    return Comparison(**common, interval=interval, pvalue=float(min(pvalue, 1.0)), method=how,
                      n_resamples=n_resamples, null_distribution=null)


#: the start of the warning below (compare_k_models' Holm pairs silence their own)
MIXED_SCALES = "the scores of"


def warn_mixed_scales(named: list[tuple[str, np.ndarray]], caller: str, instead: str,
                      stacklevel: int) -> None:
    """Warn when some models' scores all lie in [0, 1] and others' do not: the cluster
    permutation of ROC AUC exchanges raw scores, which then mix two scales."""
    inside = [n for n, s in named if s.size and np.nanmin(s) >= 0.0 and np.nanmax(s) <= 1.0]
    outside = [n for n, _ in named if n not in inside]
    if inside and outside:
        warnings.warn(
            f"{MIXED_SCALES} {', '.join(inside)} lie in [0, 1] and those of "
            f"{', '.join(outside)} do not: the cluster permutation of {caller} exchanges "
            "the models' raw scores on whole clusters, a fair exchange only for scores on "
            "one scale (probabilities against logits or decision values mix two scales); "
            f"put the scores on one scale (probabilities for every model, say) or use "
            f"{instead}", UserWarning, stacklevel=stacklevel + 1)


def _cluster_robust(metric: Callable[..., Any], name: str, y: np.ndarray, a: np.ndarray,
                    b: np.ndarray, w: np.ndarray | None, kwargs: dict[str, Any],
                    index: ClusterIndex, level: float, common: dict[str, Any]) -> Comparison:
    from dartboard.uncertainty._interval import cluster_terms_of

    terms_a = cluster_terms_of(metric, y, a, w, kwargs, index)
    terms_b = cluster_terms_of(metric, y, b, w, kwargs, index)
    if terms_a is None or terms_b is None:
        raise InputError(f"method='cluster-robust' needs a metric with a cluster-robust "
                         f"interval (a ratio of counts, a mean loss, binary ROC AUC); "
                         f"{name} has none here; use method='permutation'")
    diff = terms_a.minus(terms_b)
    if not diff.defined:
        raise InputError(f"method='cluster-robust' needs the rows of each part of {name} "
                         "in at least two clusters")
    se = float(np.sqrt(diff.variance()))
    observed = common["difference"]
    z = observed / se if se > 0 else (0.0 if observed == 0 else np.sign(observed) * np.inf)
    # the CR2 variance on the small-sample degrees of freedom of the fitted working
    # model (I - 1 with clusters of equal sizes)
    law = stats.t(diff.degrees_of_freedom(PAIRED_WORKING))
    alternative = common["alternative"]
    if alternative == "greater":
        pvalue = float(law.sf(z))
    elif alternative == "less":
        pvalue = float(law.cdf(z))
    else:
        pvalue = float(min(1.0, 2.0 * law.sf(abs(z))))
    q = float(law.ppf(0.5 + level / 2.0))
    how = f"{terms_a.method} paired difference ({index.n_clusters} clusters)"
    interval = Interval(observed, observed - q * se, observed + q * se, level, how, se, None,
                        None, f"difference in {name}")
    return Comparison(**common, interval=interval, pvalue=pvalue, method=how, n_resamples=0)


def _difference(metric: Callable[..., Any], y: np.ndarray, a: np.ndarray, b: np.ndarray,
                w: np.ndarray | None, kwargs: dict[str, Any]) -> float:
    extra = {} if w is None else {"sample_weight": w}
    try:
        return float(metric(y, a, **kwargs, **extra)) - float(metric(y, b, **kwargs, **extra))
    except (ValueError, ZeroDivisionError):  # a resample without a class, say
        return float("nan")


def _cluster_swaps(metric: Callable[..., Any], y: np.ndarray, a: np.ndarray, b: np.ndarray,
                   w: np.ndarray | None, kwargs: dict[str, Any], index: ClusterIndex,
                   n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Differences with the two models swapped on all rows of each cluster drawn (1/2)."""
    shape = (a.shape[0],) + (1,) * (a.ndim - 1)
    out = np.empty(n_resamples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for r in range(n_resamples):
            swap = (rng.random(index.n_clusters) < 0.5)[index.codes].reshape(shape)
            out[r] = _difference(metric, y, np.where(swap, b, a), np.where(swap, a, b), w,
                                 kwargs)
    return out


def _swap_draws(n_clusters: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Which clusters each replicate swaps (R, clusters): the draws of
    :func:`_cluster_swaps`, one replicate after the other from the same stream."""
    return rng.random((n_resamples, n_clusters)) < 0.5


def cluster_swap_auc(yt: np.ndarray, ca: np.ndarray, cb: np.ndarray, n_codes: int,
                     codes: np.ndarray, swaps: np.ndarray) -> np.ndarray:
    """AUC of a minus b (R,) when replicate r swaps the two models' score codes on every
    row of the clusters marked in ``swaps[r]`` (R, clusters); ``codes``: each row's
    cluster. By counting (:func:`~dartboard.families._paired.batch_auc`), in batches."""
    n = ca.shape[0]
    out = np.empty(swaps.shape[0])
    for start, size in batches(swaps.shape[0], max(n, n_codes)):
        swap = swaps[start:start + size][:, codes]
        out[start:start + size] = (batch_auc(yt, np.where(swap, cb, ca), n_codes)
                                   - batch_auc(yt, np.where(swap, ca, cb), n_codes))
    return out


def _cluster_bootstrap_auc(yt: np.ndarray, ca: np.ndarray, cb: np.ndarray, n_codes: int,
                           index: ClusterIndex, n_resamples: int,
                           rng: np.random.Generator) -> np.ndarray:
    """:func:`_cluster_bootstrap` of the AUC difference by counting: a replicate's
    clusters (the same draws) weight each row by how often its cluster was drawn."""
    c, n = index.n_clusters, ca.shape[0]
    out = np.empty(n_resamples)
    for start, size in batches(n_resamples, max(n, n_codes, c)):
        drawn = rng.integers(0, c, (size, c))
        times = np.bincount((np.arange(size)[:, None] * c + drawn).ravel(),
                            minlength=size * c).reshape(size, c)[:, index.codes]
        out[start:start + size] = (
            batch_auc(yt, np.broadcast_to(ca, (size, n)), n_codes, times)
            - batch_auc(yt, np.broadcast_to(cb, (size, n)), n_codes, times))
    return out


def _cluster_bootstrap(metric: Callable[..., Any], y: np.ndarray, a: np.ndarray,
                       b: np.ndarray, w: np.ndarray | None, kwargs: dict[str, Any],
                       index: ClusterIndex, n_resamples: int,
                       rng: np.random.Generator) -> np.ndarray:
    """Differences on whole clusters drawn with replacement (both models' rows)."""
    c = index.n_clusters
    out = np.empty(n_resamples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for r in range(n_resamples):
            rows = np.concatenate([index.members[k] for k in rng.integers(0, c, c)])
            out[r] = _difference(metric, y[rows], a[rows], b[rows],
                                 None if w is None else w[rows], kwargs)
    return out
