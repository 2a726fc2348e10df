"""compare_models(clusters=): tests that move whole clusters (dartboard.compare._clustered).

Oracles: the cluster-robust difference's CR1 variance equals statsmodels' OLS of the
per-row differences on an intercept, cluster-robust (accuracy, log loss), and its
public standard error Bell and McCaffrey's CR2 from the hat matrix, on the
Satterthwaite degrees of freedom from dense matrices (tests/_cluster_oracles.py);
the clustered DeLong difference's CR1 equals DeLong's test of two correlated AUCs
(dartboard.delong_test) when every cluster holds one row, and a brute-force Obuchowski
covariance otherwise (CR1 and CR2); the cluster-swap permutation and the cluster
bootstrap against plain loops.
"""

import warnings

import numpy as np
import pytest
from _cluster_oracles import bell_mccaffrey_se, satterthwaite_df, statsmodels_se
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from test_clustered_analytic import _obuchowski_brute, _terms

import dartboard as db
from dartboard._kernels._clustered_analytic import PAIRED_WORKING
from dartboard.exceptions import FewClustersWarning
from dartboard.metrics._probabilistic import log_loss_terms


def _pair(seed=0, n_clusters=40, m=6):
    rng = np.random.default_rng(seed)
    cluster = np.repeat(np.arange(n_clusters), m)
    n = cluster.shape[0]
    y = (rng.normal(size=n_clusters)[cluster] + rng.normal(size=n) > 0).astype(int)
    scores = [np.round(1 / (1 + np.exp(-(2 * y - 1) * (1 + rng.normal(size=n_clusters)[cluster]
                                                        + rng.normal(size=n)))), 2)
              for _ in range(2)]
    return cluster, y, scores[0], scores[1]


_ols_cluster_se = statsmodels_se


def _difference_terms(metric, y, a, b, cluster):
    return _terms(metric, y, a, cluster).minus(_terms(metric, y, b, cluster))


def test_accuracy_difference_se_is_statsmodels_cluster_robust():
    cluster, y, sa, sb = _pair(1)
    a, b = (sa >= 0.5).astype(int), (sb >= 0.5).astype(int)
    res = db.compare_models("accuracy", y, a, b, clusters=cluster, method="cluster-robust")
    diff = (a == y).astype(float) - (b == y)
    assert res.difference == pytest.approx(diff.mean(), abs=1e-15)
    assert _difference_terms("accuracy", y, a, b, cluster).variance("CR1") == \
        pytest.approx(_ols_cluster_se(diff, cluster) ** 2, rel=1e-10)
    se = bell_mccaffrey_se(diff, cluster)  # CR1 too with clusters of equal sizes
    assert res.interval.standard_error == pytest.approx(se, rel=1e-10)
    assert satterthwaite_df(cluster) == pytest.approx(39, rel=1e-9)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(diff.mean()) / se, 39), rel=1e-9)
    assert res.method == "wald-clustered paired difference (40 clusters)"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_unequal_clusters_take_the_fitted_working_models_df(seed):
    """With unequal clusters the paired test reads Student's t on the Satterthwaite df
    of a working model fitted to the clusters: the oracle fits ``alpha s + beta s^2``
    to the squared CR2 terms by scipy's NNLS and forms the df with dense N x N
    matrices (tests/_cluster_oracles.py); the SE is Bell and McCaffrey's."""
    from scipy.optimize import nnls

    rng = np.random.default_rng(seed)
    sizes = np.maximum(1, np.round(np.exp(np.log(8) + 1.1 * rng.normal(size=40)))).astype(int)
    cluster = np.repeat(np.arange(40), sizes)
    n = cluster.shape[0]
    y = (rng.normal(size=40)[cluster] + rng.normal(size=n) > 0).astype(int)
    a = np.where(rng.random(n) < 0.8, y, 1 - y)
    b = np.where(rng.random(n) < 0.75 + 0.1 * rng.random(40)[cluster], y, 1 - y)
    res = db.compare_models("accuracy", y, a, b, clusters=cluster, method="cluster-robust")
    d = (a == y).astype(float) - (b == y)
    se = bell_mccaffrey_se(d, cluster)
    assert res.interval.standard_error == pytest.approx(se, rel=1e-10)
    share = sizes / n
    squares = np.bincount(cluster, weights=d - d.mean()) ** 2 / (1 - share)
    design = np.column_stack([sizes, sizes ** 2]).astype(float)
    (alpha, beta), _ = nnls(design, squares)
    df = satterthwaite_df(cluster, alpha, beta)
    assert df < 39  # unequal sizes: fewer than I - 1
    # and not the df of a cluster effect alone, which the intervals take
    assert abs(df - satterthwaite_df(cluster)) > 0.5
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(d.mean()) / se, df), rel=1e-8)


def test_log_loss_difference_is_a_t_test_on_clusters():
    cluster, y, sa, sb = _pair(2)
    res = db.compare_models("log_loss", y, sa, sb, clusters=cluster, method="cluster-robust")
    diff = log_loss_terms(y, sa)[0] - log_loss_terms(y, sb)[0]
    se = bell_mccaffrey_se(diff, cluster)
    assert se == pytest.approx(_ols_cluster_se(diff, cluster), rel=1e-10)  # equal sizes
    assert res.interval.standard_error == pytest.approx(se, rel=1e-10)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(diff.mean()) / se, 39), rel=1e-9)


def test_clustered_delong_difference_with_one_row_per_cluster_is_delong_test():
    _, y, sa, sb = _pair(3, n_clusters=300, m=1)
    res = db.compare_models("roc_auc", y, sa, sb, clusters=np.arange(300),
                            method="cluster-robust")
    plain = db.delong_test(y, sa, sb)
    # CR1 gives DeLong's z; the test takes CR2 (each positive's term over
    # sqrt(1 - 1/M), each negative's over sqrt(1 - 1/N)) on the small-sample df
    assert plain.pvalue == pytest.approx(2 * stats.norm.sf(abs(plain.statistic)), rel=1e-9)
    diff = _difference_terms("roc_auc", y, sa, sb, np.arange(300))
    assert abs(diff.estimate) / np.sqrt(diff.variance("CR1")) == pytest.approx(
        abs(plain.statistic), rel=1e-9)
    sums = _placement_sums(y, sa, np.arange(300)) - _placement_sums(y, sb, np.arange(300))
    se = np.sqrt(_obuchowski_from_sums(sums, y, np.arange(300), "CR2"))
    assert res.interval.standard_error == pytest.approx(se, rel=1e-10)
    assert res.pvalue == pytest.approx(
        2 * stats.t.sf(abs(diff.estimate) / se, diff.degrees_of_freedom(PAIRED_WORKING)),
        rel=1e-9)
    assert res.difference == pytest.approx(
        db.metrics.roc_auc_score(y, sa) - db.metrics.roc_auc_score(y, sb), abs=1e-14)


def test_clustered_delong_difference_is_obuchowski_brute_force():
    cluster, y, sa, sb = _pair(4)
    res = db.compare_models("roc_auc", y, sa, sb, clusters=cluster, method="cluster-robust")
    # Obuchowski's variance of A - B: his formula over the differences of the two
    # models' per-cluster placement sums (var A + var B - 2 cov, written from the pairs)
    sums = _placement_sums(y, sa, cluster) - _placement_sums(y, sb, cluster)
    assert _difference_terms("roc_auc", y, sa, sb, cluster).variance("CR1") == \
        pytest.approx(_obuchowski_from_sums(sums, y, cluster), rel=1e-10)
    var = _obuchowski_from_sums(sums, y, cluster, "CR2")
    assert res.interval.standard_error == pytest.approx(np.sqrt(var), rel=1e-10)
    # and each model alone is the single-AUC brute force
    _, va = _obuchowski_brute(y, sa, cluster)
    assert _obuchowski_from_sums(_placement_sums(y, sa, cluster), y, cluster) == \
        pytest.approx(va, rel=1e-12)


def _placement_sums(y, score, cluster):
    pos, neg = score[y == 1], score[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    theta = psi.mean()
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    ids = np.unique(cluster)
    return np.array([[v10[cluster[y == 1] == c].sum() - theta * np.sum(cluster[y == 1] == c),
                      v01[cluster[y == 0] == c].sum() - theta * np.sum(cluster[y == 0] == c)]
                     for c in ids])


def _obuchowski_from_sums(ab, y, cluster, correction="CR1"):
    m, n = np.sum(y == 1), np.sum(y == 0)
    i10, i01 = np.unique(cluster[y == 1]).shape[0], np.unique(cluster[y == 0]).shape[0]
    i = np.unique(cluster).shape[0]
    a, b = ab[:, 0], ab[:, 1]
    if correction == "CR2":  # each class's sums over sqrt(1 - the cluster's share of it)
        ids = np.unique(cluster)
        m_c = np.array([np.sum(cluster[y == 1] == c) for c in ids])
        n_c = np.array([np.sum(cluster[y == 0] == c) for c in ids])
        return float(np.sum((a / (m * np.sqrt(1 - m_c / m))
                             + b / (n * np.sqrt(1 - n_c / n))) ** 2))
    return (i10 / (i10 - 1) * np.sum(a**2) / m**2 + i01 / (i01 - 1) * np.sum(b**2) / n**2
            + 2 * i / (i - 1) * np.sum(a * b) / (m * n))


@pytest.mark.filterwarnings("ignore::dartboard.exceptions.FewClustersWarning")
def test_cluster_swap_permutation_follows_a_plain_loop():
    cluster, y, sa, sb = _pair(5, n_clusters=12, m=5)
    a, b = (sa >= 0.5).astype(int), (sb >= 0.5).astype(int)
    res = db.compare_models("accuracy", y, a, b, clusters=cluster, n_resamples=2000,
                            random_state=0)
    assert res.method == "cluster-swap permutation (12 clusters)"
    # the null law by enumeration of the 2^12 cluster swaps
    correct_a, correct_b = (a == y), (b == y)
    d = np.array([(correct_a[cluster == c].sum() - correct_b[cluster == c].sum())
                  for c in range(12)]) / y.shape[0]
    signs = 1 - 2 * ((np.arange(4096)[:, None] >> np.arange(12)) & 1)
    exact = signs @ d
    observed = d.sum()
    p_exact = np.mean(np.abs(exact) >= abs(observed) - 1e-12)
    assert res.pvalue == pytest.approx(p_exact, abs=0.03)
    assert np.std(res.null_distribution) == pytest.approx(np.std(exact), rel=0.06)


def test_cluster_bootstrap_of_the_difference_draws_whole_clusters():
    cluster, y, sa, sb = _pair(6, n_clusters=30, m=8)
    res = db.compare_models("roc_auc", y, sa, sb, clusters=cluster, n_resamples=1500,
                            random_state=1)
    robust = db.compare_models("roc_auc", y, sa, sb, clusters=cluster,
                               method="cluster-robust")
    assert res.interval.method == "paired bootstrap percentile (clustered: 30 clusters)"
    assert res.interval.standard_error == pytest.approx(robust.interval.standard_error,
                                                        rel=0.2)
    again = db.compare_models("roc_auc", y, sa, sb, clusters=cluster, n_resamples=1500,
                              random_state=1)
    assert np.array_equal(res.null_distribution, again.null_distribution)


def _unequal_pair(seed=11, n_clusters=32, k=2):
    """Clusters of very unequal sizes (1 to 40 rows) under string labels, and ``k``
    models' probabilities with their own cluster effects: each model's own ranks differ
    from its raw scores' place among the other model's."""
    rng = np.random.default_rng(seed)
    sizes = np.maximum(1, np.round(np.exp(1.5 + 1.2 * rng.normal(size=n_clusters)))
                       ).astype(int).clip(1, 40)
    cluster = np.repeat(np.arange(n_clusters), sizes)
    n = cluster.shape[0]
    y = (0.8 * rng.normal(size=n_clusters)[cluster] + rng.normal(size=n) > 0).astype(int)
    scores = [1 / (1 + np.exp(-(2 * y - 1) * (1 + 1.5 * rng.normal(size=n_clusters)[cluster]
                                               + rng.normal(size=n))))
              for _ in range(k)]
    labels = np.array([f"c{c:02d}" for c in range(n_clusters)])[rng.permutation(n_clusters)]
    return labels[cluster], y, scores


def test_cluster_swap_of_roc_auc_exchanges_the_raw_scores():
    from sklearn.metrics import roc_auc_score

    from dartboard._kernels._clustered import cluster_index
    from dartboard._rng import spawn_generators

    cluster, y, (sa, sb) = _unequal_pair()
    res = db.compare_models("roc_auc", y, sa, sb, clusters=cluster, n_resamples=200,
                            random_state=5)
    assert res.method == "cluster-swap permutation of the raw scores (32 clusters)"
    # the oracle: the same swaps (the permutation stream is the first of two spawned
    # from the seed, one uniform per cluster and replicate), the raw scores exchanged
    # on the rows of each swapped cluster, scikit-learn's AUC
    index = cluster_index(cluster, y.shape[0])
    swaps = spawn_generators(5, 2)[0].random((200, index.n_clusters)) < 0.5
    loop = np.array([roc_auc_score(y, np.where(s[index.codes], sb, sa))
                     - roc_auc_score(y, np.where(s[index.codes], sa, sb)) for s in swaps])
    np.testing.assert_allclose(res.null_distribution, loop, rtol=0, atol=1e-12)
    extreme = np.count_nonzero(np.abs(loop) >= abs(res.difference) * (1 - 1e-13))
    assert res.pvalue == pytest.approx((extreme + 1) / 201, abs=1e-15)
    # the swap of each model's own ranks, the former null, is not this one
    ra, rb = stats.rankdata(sa), stats.rankdata(sb)
    ranks = np.array([roc_auc_score(y, np.where(s[index.codes], rb, ra))
                      - roc_auc_score(y, np.where(s[index.codes], ra, rb)) for s in swaps])
    assert np.abs(ranks - loop).max() > 1e-3


@pytest.mark.parametrize("name, oracle", [("average_precision", "average_precision_score"),
                                          ("pr_auc", None)])
def test_cluster_swap_of_a_precision_area_exchanges_the_raw_scores(name, oracle):
    # average precision swapped each model's own ranks and rejected 7.4% of equally good
    # models at 5% (30 lognormal clusters, ICC 0.5, informative size); the raw-score
    # swap, as for ROC AUC, is the exchange of the models on whole clusters
    import sklearn.metrics as skm

    from dartboard._kernels._clustered import cluster_index
    from dartboard._rng import spawn_generators

    cluster, y, (sa, sb) = _unequal_pair(3)
    res = db.compare_models(name, y, sa, sb, clusters=cluster, n_resamples=150,
                            random_state=6)
    assert res.method == "cluster-swap permutation of the raw scores (32 clusters)"

    def metric(scores):
        if oracle is not None:
            return getattr(skm, oracle)(y, scores)
        precision, recall, _ = skm.precision_recall_curve(y, scores)
        return skm.auc(recall, precision)

    index = cluster_index(cluster, y.shape[0])
    swaps = spawn_generators(6, 2)[0].random((150, index.n_clusters)) < 0.5
    loop = np.array([metric(np.where(s[index.codes], sb, sa))
                     - metric(np.where(s[index.codes], sa, sb)) for s in swaps])
    np.testing.assert_allclose(res.null_distribution, loop, rtol=0, atol=1e-12)
    assert res.difference == pytest.approx(metric(sa) - metric(sb), abs=1e-12)
    ra, rb = stats.rankdata(sa), stats.rankdata(sb)
    ranks = np.array([metric(np.where(s[index.codes], rb, ra))
                      - metric(np.where(s[index.codes], ra, rb)) for s in swaps])
    assert np.abs(ranks - loop).max() > 1e-3


def test_clustered_auc_bootstrap_by_counting_is_the_resampled_rows():
    # sample weights of one send the same draws through the metric on each replicate's
    # rows; without them the replicates only count
    cluster, y, (sa, sb) = _unequal_pair(12)
    counted = db.compare_models("roc_auc", y, sa, sb, clusters=cluster, n_resamples=300,
                                random_state=8)
    called = db.compare_models("roc_auc", y, sa, sb, clusters=cluster, n_resamples=300,
                               random_state=8, sample_weight=np.ones(y.shape[0]))
    np.testing.assert_allclose(counted.null_distribution, called.null_distribution,
                               rtol=0, atol=1e-12)
    for field in ("low", "high", "standard_error"):
        assert getattr(counted.interval, field) == pytest.approx(
            getattr(called.interval, field), abs=1e-12)
    assert counted.interval.standard_error > 0


def test_one_monotone_map_of_both_models_leaves_the_clustered_test_unchanged():
    cluster, y, (sa, sb) = _unequal_pair(13)
    one = db.compare_models("roc_auc", y, sa, sb, clusters=cluster, n_resamples=300,
                            random_state=2)

    def logit(p):
        return np.log(p / (1 - p))

    two = db.compare_models("roc_auc", y, logit(sa), logit(sb), clusters=cluster,
                            n_resamples=300, random_state=2)
    three = db.compare_models("roc_auc", y, np.exp(5 * sa), np.exp(5 * sb),
                              clusters=cluster, n_resamples=300, random_state=2)
    for other in (two, three):
        assert np.array_equal(one.null_distribution, other.null_distribution)
        assert one.pvalue == other.pvalue
        assert one.interval.low == other.interval.low
        assert one.interval.high == other.interval.high
    k = [db.compare_k_models("roc_auc", y, [f(s) for s in (sa, sb, sa ** 2)],
                             clusters=cluster, n_resamples=300, random_state=4)
         for f in (lambda p: p, logit)]
    assert np.array_equal(k[0].pairwise["pvalue"], k[1].pairwise["pvalue"])
    assert np.array_equal(k[0].pairwise["pvalue_adjusted"], k[1].pairwise["pvalue_adjusted"])


def test_clustered_auc_warns_when_probabilities_meet_another_scale():
    cluster, y, (sa, sb, sc) = _unequal_pair(14, k=3)
    logit_b = np.log(sb / (1 - sb))
    with pytest.warns(UserWarning, match=r"pred_a lie in \[0, 1\] and those of pred_b do "
                      r"not.*method='cluster-robust'") as caught:
        db.compare_models("roc_auc", y, sa, logit_b, clusters=cluster, n_resamples=50,
                          random_state=0)
    assert [w.filename for w in caught] == [__file__]
    with pytest.warns(UserWarning, match="'a', 'c' lie in .* those of 'b' do not") as caught:
        db.compare_k_models("roc_auc", y, {"a": sa, "b": logit_b, "c": sc},
                            clusters=cluster, n_resamples=50, random_state=0)
    assert [w.filename for w in caught] == [__file__]
    with pytest.warns(UserWarning, match="those of 'b' do not") as caught:  # once, not per pair
        db.compare_k_models("roc_auc", y, {"a": sa, "b": logit_b, "c": sc},
                            clusters=cluster, n_resamples=50, random_state=0, method="holm")
    assert len(caught) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # both probabilities; or the row swap without clusters (within-model ranks)
        db.compare_models("roc_auc", y, sa, sb, clusters=cluster, n_resamples=50)
        db.compare_k_models("roc_auc", y, [sa, sb, sc], clusters=cluster, n_resamples=50)
        db.compare_models("roc_auc", y, sa, logit_b, n_resamples=50)
        db.compare_models("roc_auc", y, sa, logit_b, clusters=cluster,
                          method="cluster-robust")


def test_k_models_clustered_auc_null_is_the_raw_score_deal():
    from sklearn.metrics import roc_auc_score

    from dartboard._kernels._clustered import cluster_index
    from dartboard._rng import check_random_state
    from dartboard.compare._kmodels_null import generic_kway_null, stepdown_maxt

    cluster, y, scores = _unequal_pair(15, k=3)
    res = db.compare_k_models("roc_auc", y, scores, clusters=cluster, n_resamples=150,
                              random_state=6)
    assert res.sampler.startswith("step-down max-T over k-way permutations of whole "
                                  "clusters (32 clusters; AUC of the raw scores")
    # the oracle: the same deals of whole clusters (the generic sampler's draws from the
    # same seed), scikit-learn's AUC of the dealt raw scores
    codes = cluster_index(cluster, y.shape[0]).codes
    values = generic_kway_null(roc_auc_score, y, scores, None, {}, 150,
                               check_random_state(6), codes)
    null = values[:, [0, 0, 1]] - values[:, [1, 2, 2]]
    observed = res.pairwise["difference"].to_numpy()
    raw = [(np.count_nonzero(np.abs(null[:, p]) >= abs(observed[p]) * (1 - 1e-13)) + 1) / 151
           for p in range(3)]
    np.testing.assert_allclose(res.pairwise["pvalue"], raw, rtol=0, atol=1e-15)
    np.testing.assert_allclose(res.pairwise["pvalue_adjusted"],
                               stepdown_maxt(np.abs(observed), np.abs(null)), rtol=0,
                               atol=1e-15)
    # a deal of each model's own ranks, the former null, differs
    ranked = generic_kway_null(roc_auc_score, y, [stats.rankdata(s) for s in scores], None,
                               {}, 150, check_random_state(6), codes)
    assert np.abs(ranked - values).max() > 1e-3


@pytest.mark.parametrize("kwargs, match", [
    ({"method": "cluster-robust"}, "needs clusters="),
    ({"method": "cluster-robust", "clusters": np.arange(240) // 6,
      "metric": lambda t, p: float(np.mean(t == p))}, "has none here"),
    ({"clusters": np.arange(7)}, "clusters"),
    ({"clusters": np.zeros(240)}, "at least two"),
])
def test_bad_clustered_comparisons_are_refused(kwargs, match):
    _, y, sa, sb = _pair(8)
    metric = kwargs.pop("metric", "accuracy")
    a, b = (sa >= 0.5).astype(int), (sb >= 0.5).astype(int)
    with pytest.raises(ValueError, match=match):
        db.compare_models(metric, y, a, b, n_resamples=50, **kwargs)


# ------------------------------------------------------------------ compare_k_models

def _k_models(seed=9, n_clusters=25, m=6):
    rng = np.random.default_rng(seed)
    cluster = np.repeat(np.arange(n_clusters), m)
    n = cluster.shape[0]
    y = (rng.normal(size=n_clusters)[cluster] + rng.normal(size=n) > 0).astype(int)
    preds = {k: np.where(rng.random(n) < 0.7, y, 1 - y) for k in "abc"}
    return cluster, y, preds


@pytest.mark.filterwarnings("ignore::dartboard.exceptions.FewClustersWarning")
def test_k_models_holm_pairs_are_the_clustered_pairwise_tests():
    from dartboard._rng import spawn

    cluster, y, preds = _k_models()
    res = db.compare_k_models("accuracy", y, preds, clusters=cluster, method="holm",
                              n_resamples=200, random_state=3)
    seeds = spawn(3, 3)
    first = db.compare_models("accuracy", y, preds["a"], preds["b"], clusters=cluster,
                              n_resamples=200, random_state=seeds[0])
    assert res.pairwise["pvalue"].iloc[0] == first.pvalue
    assert res.sampler == "Holm over pairwise cluster-swap permutation tests"


def test_k_models_maxt_with_one_row_per_cluster_is_the_sample_permutation():
    cluster, y, preds = _k_models(10)

    def share_right(t, p):  # a callable: the generic k-way sampler either way
        return float(np.mean(t == p))

    n = y.shape[0]
    plain = db.compare_k_models(share_right, y, preds, n_resamples=200, random_state=4)
    single = db.compare_k_models(share_right, y, preds, n_resamples=200, random_state=4,
                                 clusters=np.arange(n))
    assert np.array_equal(plain.pairwise["pvalue"], single.pairwise["pvalue"])
    whole = db.compare_k_models(share_right, y, preds, n_resamples=200, random_state=4,
                                clusters=cluster)
    assert whole.sampler.endswith("permutations of whole clusters (25 clusters)")


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 10), st.integers(2, 5))
def test_cluster_robust_difference_agrees_with_brute_force(seed, n_clusters, m):
    rng = np.random.default_rng(seed)
    cluster = rng.integers(0, n_clusters, n_clusters * m)
    cluster[:4] = [0, 1, 0, 1]
    y = rng.integers(0, 2, cluster.shape[0])
    y[:4] = [0, 0, 1, 1]  # both classes in two clusters
    sa, sb = (np.round(rng.random((2, cluster.shape[0])), 1))
    a, b = (sa >= 0.5).astype(int), (sb >= 0.5).astype(int)
    with warnings.catch_warnings():  # few clusters: test_clustered_small_sample
        warnings.simplefilter("ignore", FewClustersWarning)
        acc = db.compare_models("accuracy", y, a, b, clusters=cluster,
                                method="cluster-robust")
        auc = db.compare_models("roc_auc", y, sa, sb, clusters=cluster,
                                method="cluster-robust")
    diff = (a == y).astype(float) - (b == y)
    assert acc.interval.standard_error == pytest.approx(bell_mccaffrey_se(diff, cluster),
                                                        rel=1e-9, abs=1e-12)
    sums = _placement_sums(y, sa, cluster) - _placement_sums(y, sb, cluster)
    assert auc.interval.standard_error == pytest.approx(
        np.sqrt(max(_obuchowski_from_sums(sums, y, cluster, "CR2"), 0.0)), rel=1e-9,
        abs=1e-12)
