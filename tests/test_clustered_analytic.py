"""Cluster-robust intervals (dartboard._kernels._clustered_analytic).

Oracles: statsmodels' OLS on an intercept with ``cov_type="cluster"`` (its default
small-sample factor G/(G-1) * (N-1)/(N-K) is G/(G-1) with K = 1) for the CR1
variance of proportions and mean losses (``ClusterTerms.variance("CR1")``); Bell and
McCaffrey's CR2 from the hat matrix and the Satterthwaite degrees of freedom from
dense matrices (tests/_cluster_oracles.py) for the public intervals, which take CR2 on
those degrees of freedom; a brute-force O(n^2) Obuchowski (1997) variance for ROC AUC,
and DeLong's variance (dartboard._delong) when every cluster holds one row.
"""

import warnings

import numpy as np
import pytest
from _cluster_oracles import bell_mccaffrey_se, satterthwaite_df, statsmodels_se
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

import dartboard as db
from dartboard._delong import delong_auc_covariance
from dartboard._kernels._clustered_analytic import WORKING
from dartboard.exceptions import FewClustersWarning
from dartboard.metrics._probabilistic import log_loss_terms


def _data(seed=0, n_clusters=40, m=6, ragged=False):
    rng = np.random.default_rng(seed)
    size = rng.integers(1, 2 * m, n_clusters) if ragged else np.full(n_clusters, m)
    cluster = np.repeat(np.arange(n_clusters), size)
    u = rng.normal(size=n_clusters)[cluster]
    y = (rng.random(cluster.shape[0]) < 1 / (1 + np.exp(-u))).astype(int)
    score = np.round(1 / (1 + np.exp(-(0.8 * u + 0.7 * rng.normal(size=cluster.shape[0])))), 2)
    return cluster, y, score, (score >= 0.5).astype(int)


_statsmodels_se = statsmodels_se


def _terms(metric, y, other, cluster):
    """The metric's per-cluster terms, as the public interval forms them."""
    from dartboard._kernels._clustered import cluster_index
    from dartboard.uncertainty._interval import cluster_terms_of

    return cluster_terms_of(metric, np.asarray(y), np.asarray(other), None, {},
                            cluster_index(cluster, len(y)))


@pytest.mark.parametrize("metric, rows", [
    ("accuracy", lambda y, p: np.ones(y.shape[0], dtype=bool)),
    ("recall", lambda y, p: y == 1),
    ("precision", lambda y, p: p == 1),
    ("specificity", lambda y, p: y == 0),
    ("negative_predictive_value", lambda y, p: p == 0),
])
@pytest.mark.parametrize("ragged", [False, True])
def test_proportion_se_is_statsmodels_cluster_robust_ols(metric, rows, ragged):
    cluster, y, _, pred = _data(1, ragged=ragged)
    iv = db.interval(metric, y, pred, method="wald-clustered", clusters=cluster)
    keep = rows(y, pred)
    right = (y == pred)[keep]
    assert _terms(metric, y, pred, cluster).variance("CR1") == pytest.approx(
        _statsmodels_se(right, cluster[keep]) ** 2, rel=1e-10, abs=0)
    oracle = bell_mccaffrey_se(right, cluster[keep])
    assert iv.standard_error == pytest.approx(oracle, rel=1e-10, abs=0)
    assert iv.method == f"wald-clustered ({np.unique(cluster).shape[0]} clusters)"
    from scipy import stats
    # Student's t on the Satterthwaite df of a cluster effect over the clusters holding
    # the denominator's rows (I - 1 with equal sizes)
    df = satterthwaite_df(cluster[keep])
    if not ragged and metric == "accuracy":
        assert df == pytest.approx(np.unique(cluster).shape[0] - 1, rel=1e-9)
    q = stats.t.ppf(0.975, df)
    assert iv.low == pytest.approx(max(iv.estimate - q * oracle, 0.0), abs=1e-10)


@pytest.mark.parametrize("metric, terms", [
    ("log_loss", lambda y, s: log_loss_terms(y, s)[0]),
    ("brier_score_loss", lambda y, s: (s - y) ** 2),
    ("mean_absolute_error", lambda y, s: np.abs(s - y)),
    ("mean_squared_error", lambda y, s: (s - y) ** 2),
])
def test_mean_loss_se_is_statsmodels_cluster_robust_ols(metric, terms):
    cluster, y, score, _ = _data(2, ragged=True)
    iv = db.interval(metric, y, score, method="t-clustered", clusters=cluster)
    values = np.asarray(terms(y, score), dtype=float)
    assert iv.estimate == pytest.approx(values.mean(), rel=1e-12)
    assert _terms(metric, y, score, cluster).variance("CR1") == pytest.approx(
        _statsmodels_se(values, cluster) ** 2, rel=1e-10, abs=0)
    oracle = bell_mccaffrey_se(values, cluster)
    assert iv.standard_error == pytest.approx(oracle, rel=1e-10, abs=0)
    from scipy import stats
    q = stats.t.ppf(0.975, satterthwaite_df(cluster))
    assert iv.high == pytest.approx(iv.estimate + q * oracle, rel=1e-9)


def _obuchowski_brute(y, score, cluster, correction="CR1"):
    """Obuchowski (1997, Biometrics 53:567, eqs. 3-5) written from the pairs, O(n^2);
    ``"CR2"``: each cluster's sums over its positives and its negatives divided by
    ``sqrt(1 - h)``, ``h`` its share of the positives or of the negatives (the
    leverage of an intercept over that class), in place of the ``I / (I - 1)`` factors."""
    pos, neg = score[y == 1], score[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    m, n = pos.shape[0], neg.shape[0]
    theta = psi.mean()
    v10 = psi.mean(axis=1)   # each positive's placement among all negatives
    v01 = psi.mean(axis=0)   # each negative's among all positives
    ids = np.unique(cluster)
    a = np.array([v10[cluster[y == 1] == c].sum() - theta * np.sum(cluster[y == 1] == c)
                  for c in ids])
    b = np.array([v01[cluster[y == 0] == c].sum() - theta * np.sum(cluster[y == 0] == c)
                  for c in ids])
    i10 = np.unique(cluster[y == 1]).shape[0]
    i01 = np.unique(cluster[y == 0]).shape[0]
    i = ids.shape[0]
    if correction == "CR2":
        m_c = np.array([np.sum(cluster[y == 1] == c) for c in ids])
        n_c = np.array([np.sum(cluster[y == 0] == c) for c in ids])
        adjusted = a / (m * np.sqrt(1 - m_c / m)) + b / (n * np.sqrt(1 - n_c / n))
        return theta, float(np.sum(adjusted**2))
    s10 = i10 / ((i10 - 1) * m) * np.sum(a**2)
    s01 = i01 / ((i01 - 1) * n) * np.sum(b**2)
    s11 = i / (i - 1) * np.sum(a * b)
    return theta, s10 / m + s01 / n + 2 * s11 / (m * n)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_clustered_delong_is_obuchowski_brute_force(seed):
    cluster, y, score, _ = _data(seed, ragged=True)
    iv = db.interval("roc_auc", y, score, method="delong-clustered", clusters=cluster)
    theta, variance = _obuchowski_brute(y, score, cluster)
    assert iv.estimate == pytest.approx(theta, abs=1e-14)
    assert _terms("roc_auc", y, score, cluster).variance("CR1") == pytest.approx(
        variance, rel=1e-10)
    _, cr2 = _obuchowski_brute(y, score, cluster, "CR2")
    assert iv.standard_error == pytest.approx(np.sqrt(cr2), rel=1e-10)


def test_clustered_delong_with_one_row_per_cluster_is_delong():
    _, y, score, _ = _data(6, n_clusters=300, m=1)
    iv = db.interval("roc_auc", y, score, method="delong-clustered", clusters=np.arange(300))
    plain = db.interval("roc_auc", y, score, method="delong")
    _, cov = delong_auc_covariance(y == 1, score)
    assert iv.standard_error == pytest.approx(np.sqrt(cov[0, 0]), rel=1e-10)
    assert iv.standard_error == pytest.approx(plain.standard_error, rel=1e-10)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 12), st.integers(1, 6))
def test_fast_paths_agree_with_brute_force(seed, n_clusters, m):
    rng = np.random.default_rng(seed)
    cluster = rng.integers(0, n_clusters, n_clusters * m)
    cluster[:2] = [0, 1]  # at least two clusters
    y = rng.integers(0, 2, cluster.shape[0])
    y[:2] = [0, 1]
    score = np.round(rng.random(cluster.shape[0]), 1)  # ties
    pred = (score >= 0.5).astype(int)
    with warnings.catch_warnings():  # 3 to 12 clusters: tested in test_clustered_small_sample
        warnings.simplefilter("ignore", FewClustersWarning)
        _fast_paths_agree(y, score, pred, cluster)


def _fast_paths_agree(y, score, pred, cluster):
    if min(np.unique(cluster[y == c]).shape[0] for c in (0, 1)) >= 2:
        _, variance = _obuchowski_brute(y, score, cluster, "CR2")
        auc = db.interval("roc_auc", y, score, method="delong-clustered", clusters=cluster)
        assert auc.standard_error == pytest.approx(np.sqrt(max(variance, 0)), rel=1e-9,
                                                   abs=1e-12)
        _, variance = _obuchowski_brute(y, score, cluster)
        assert _terms("roc_auc", y, score, cluster).variance("CR1") == pytest.approx(
            max(variance, 0), rel=1e-9, abs=1e-14)
    else:  # a class in one cluster: its variance term has no spread to measure
        with pytest.raises(ValueError, match="at least two"):
            db.interval("roc_auc", y, score, method="delong-clustered", clusters=cluster)
    acc = db.interval("accuracy", y, pred, method="wald-clustered", clusters=cluster)
    assert acc.standard_error == pytest.approx(
        bell_mccaffrey_se((y == pred).astype(float), cluster), rel=1e-9, abs=1e-12)
    assert _terms("accuracy", y, pred, cluster).variance("CR1") == pytest.approx(
        _statsmodels_se((y == pred).astype(float), cluster) ** 2, rel=1e-9, abs=1e-14)


@pytest.mark.filterwarnings("ignore::dartboard.exceptions.FewClustersWarning")
def test_auto_takes_the_cluster_robust_interval():
    cluster, y, score, pred = _data(7, n_clusters=10, m=20)
    assert db.interval("accuracy", y, pred, clusters=cluster).method == \
        "wilson-clustered (10 clusters)"
    assert db.interval("roc_auc", y, score, clusters=cluster).method == \
        "bootstrap-t-clustered (10 clusters)"
    auto = db.interval("roc_auc", y, score, clusters=cluster, method="delong-logit-clustered")
    # the same variance as delong-clustered, carried to the logit scale and back, on
    # the small-sample df (checked against dense matrices in test_clustered_small_sample)
    plain = db.interval("roc_auc", y, score, clusters=cluster, method="delong-clustered")
    a, se = plain.estimate, plain.standard_error
    df = _terms("roc_auc", y, score, cluster).degrees_of_freedom(WORKING)
    assert 1 <= df <= 9
    q = special.stdtrit(df, 0.975)
    centre, half = np.log(a / (1 - a)), q * se / (a * (1 - a))
    assert auto.standard_error == pytest.approx(se, rel=1e-12)
    assert (auto.low, auto.high) == pytest.approx(
        (special.expit(centre - half), special.expit(centre + half)), rel=1e-12)
    assert plain.high - a == pytest.approx(a - plain.low, rel=1e-9)  # symmetric
    assert db.interval("log_loss", y, score, clusters=cluster).method == \
        "bootstrap-t-clustered (10 clusters)"
    assert db.interval("f1", y, pred, clusters=cluster, n_resamples=200).method == \
        "delta-clustered (10 clusters)"
    # ROC AUC with fewer than 50 rows of a class, F1 of fewer than 50 rows: BCa (which
    # covered better there with 30 clusters)
    small = _data(7, n_clusters=30, m=1)
    for metric, other in (("roc_auc", small[2]), ("f1", small[3])):
        assert db.interval(metric, small[1], other, clusters=small[0],
                           n_resamples=200).method == "bca (clustered: 30 clusters)"


@pytest.mark.parametrize("n_clusters", [2, 3, 9])
def test_few_clusters_take_the_analytic_forms_not_the_bootstrap(n_clusters):
    # BCa over 2 to 5 clusters covered 31-85% for ROC AUC and 50% for F1 with 2
    # (benchmarks/unequal_clusters_coverage.py, few); the analytic forms 92-99%
    cluster, y, score, pred = _data(7, n_clusters=n_clusters, m=20)
    expected = {"accuracy": "wilson-clustered", "roc_auc": "delong-logit-clustered",
                "log_loss": "t-clustered", "f1": "delta-clustered",
                "average_precision": "influence-logit-clustered"}
    for name, method in expected.items():
        other = pred if name in ("accuracy", "f1") else score
        with pytest.warns(FewClustersWarning, match=f"{n_clusters} clusters"):
            iv = db.interval(name, y, other, clusters=cluster, n_resamples=200,
                             random_state=0)
            asked = db.interval(name, y, other, clusters=cluster, method=method)
        # an interval past the metric's range is cut there, and its method says so
        assert iv.method.split(", clipped to")[0] == f"{method} ({n_clusters} clusters)"
        assert (iv.low, iv.high) == (asked.low, asked.high)
    # a metric without a cluster-robust form (a callable) says its coverage is not known
    def mean_positive_score(y_true, score):
        return float(np.mean(score[y_true == 1]))

    with pytest.warns(FewClustersWarning):
        own = db.interval(mean_positive_score, y, score, clusters=cluster, n_resamples=200,
                          random_state=0)
    assert own.method == (f"bca (clustered: {n_clusters} clusters; coverage not known with "
                          "fewer than 10 clusters)")


@pytest.mark.parametrize("metric, method, match", [
    ("f1", "wald-clustered", "not a cluster-robust interval of f1_score"),
    ("accuracy", "delong-clustered", "its own: 'wald-clustered'"),
])
def test_a_cluster_robust_method_the_metric_has_not_is_refused(metric, method, match):
    cluster, y, _, pred = _data(8)
    with pytest.raises(ValueError, match=match):
        db.interval(metric, y, pred, method=method, clusters=cluster)


def test_a_cluster_robust_method_without_clusters_is_refused():
    _, y, _, pred = _data(9)
    with pytest.raises(ValueError, match="needs clusters="):
        db.interval("accuracy", y, pred, method="wald-clustered")


# ------------------------------------------------------------------ evaluate's design effect

def test_evaluate_reports_design_effect_and_effective_n():
    cluster, y, score, pred = _data(10, n_clusters=50, m=8)
    ev = db.evaluate(y, y_score=score, clusters=cluster,
                     metrics=["accuracy", "roc_auc", "f1", "average_precision"],
                     n_resamples=400, random_state=0)
    row = ev.overall.loc["accuracy"]
    clustered = db.interval("accuracy", y, pred, clusters=cluster)
    wald = db.interval("accuracy", y, pred, method="wald")
    assert row["design_effect"] == pytest.approx(
        (clustered.standard_error / wald.standard_error) ** 2, rel=1e-12)
    assert row["effective_n"] == pytest.approx(y.shape[0] / row["design_effect"], rel=1e-12)
    auc = ev.overall.loc["roc_auc"]
    plain = db.interval("roc_auc", y, score, method="delong")
    robust = db.interval("roc_auc", y, score, clusters=cluster)
    assert auc["design_effect"] == pytest.approx(
        (robust.standard_error / plain.standard_error) ** 2, rel=1e-12)
    # F1: the delta method over the delta method with each row its own cluster
    f1 = ev.overall.loc["f1"]
    alone = db.interval("f1", y, pred, method="delta-clustered", clusters=np.arange(y.size))
    delta = db.interval("f1", y, pred, clusters=cluster)
    assert f1["design_effect"] == pytest.approx(
        (delta.standard_error / alone.standard_error) ** 2, rel=1e-12)
    # average precision: its cluster-robust interval over influence-logit's
    ap = ev.overall.loc["average_precision"]
    assert ap["method"].startswith("influence-logit-clustered")
    robust = db.interval("average_precision", y, score, clusters=cluster)
    plain = db.interval("average_precision", y, score, method="influence-logit")
    assert ap["design_effect"] == pytest.approx(
        (robust.standard_error / plain.standard_error) ** 2, rel=1e-12)
    assert 0.5 < ap["design_effect"] < 10
    assert ev.to_dict()["metrics"][0]["effective_n"] == pytest.approx(row["effective_n"])


def test_design_effect_follows_kish_for_equal_clusters():
    # correct/incorrect with intra-cluster correlation rho: deff ~ 1 + (m - 1) rho
    rng = np.random.default_rng(11)
    n_clusters, m, rho = 400, 10, 0.2
    cluster = np.repeat(np.arange(n_clusters), m)
    shared = rng.random(n_clusters) < 0.7
    own = rng.random(cluster.shape[0]) < 0.7
    # two rows share the cluster's value with probability sqrt(rho)^2 = rho
    correct = np.where(rng.random(cluster.shape[0]) < np.sqrt(rho), shared[cluster], own)
    y = np.ones(cluster.shape[0], dtype=int)
    ev = db.evaluate(y, correct.astype(int), clusters=cluster, metrics=["accuracy"],
                     n_resamples=200, random_state=0)
    assert ev.overall.loc["accuracy", "design_effect"] == pytest.approx(1 + (m - 1) * rho,
                                                                        abs=0.35)


def test_one_row_per_cluster_has_design_effect_n_over_n_minus_one():
    _, y, _, pred = _data(12, n_clusters=200, m=1)
    ev = db.evaluate(y, pred, clusters=np.arange(200), metrics=["accuracy"], random_state=0,
                     n_resamples=200)
    assert ev.overall.loc["accuracy", "design_effect"] == pytest.approx(200 / 199, rel=1e-12)


def test_without_clusters_the_frame_keeps_its_columns():
    _, y, _, pred = _data(13)
    ev = db.evaluate(y, pred, metrics=["accuracy"])
    assert list(ev.overall.columns) == ["estimate", "low", "high", "method", "n"]


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("call", ["interval", "compare", "compare_k", "evaluate"])
@pytest.mark.parametrize("clusters, match", [
    ("none", "clusters contains 1 missing value"),
    ("short", "clusters has 239"),
    ("nan", r"clusters contains 6 missing value\(s\) \(None or NaN\)"),
    ("one", "clusters holds 1 cluster"),
])
def test_bad_cluster_ids_are_refused_by_every_entry_point(call, clusters, match):
    cluster, y, score, pred = _data(14, n_clusters=40, m=6)
    ids = {"none": np.array([None, *cluster[1:].tolist()], dtype=object),
           "short": cluster[:-1], "nan": np.where(cluster == 1, np.nan, cluster),
           "one": np.zeros(cluster.shape[0])}[clusters]
    with pytest.raises(ValueError, match=match):
        if call == "interval":
            db.interval("accuracy", y, pred, clusters=ids)
        elif call == "compare":
            db.compare_models("accuracy", y, pred, 1 - pred, clusters=ids,
                              method="cluster-robust")
        elif call == "compare_k":
            db.compare_k_models("accuracy", y, {"a": pred, "b": 1 - pred}, clusters=ids,
                                n_resamples=20)
        else:
            db.evaluate(y, pred, clusters=ids, n_resamples=20)


def test_a_group_holding_one_cluster_gets_no_clustered_interval():
    # clusters nested in groups: the lone group's interval would rest on one cluster
    cluster, y, _, pred = _data(15, n_clusters=40, m=6)
    group = np.where(cluster < 39, "many", "lone")
    ev = db.evaluate(y, pred, groups=group, clusters=cluster, metrics=["accuracy"],
                     n_resamples=100, random_state=0)
    lone = ev.by_group.loc[("lone", "accuracy")]
    assert np.isnan(lone["low"]) and lone["method"] == "n/a (clusters holds 1 cluster)"
    assert ev.by_group.loc[("many", "accuracy"), "method"] == "wilson-clustered (39 clusters)"


def test_clusters_crossing_groups_count_each_groups_own_clusters():
    cluster, y, _, pred = _data(16, n_clusters=40, m=6)
    group = np.where(np.arange(y.shape[0]) % 3 == 0, "a", "b")  # every cluster in both
    ev = db.evaluate(y, pred, groups=group, clusters=cluster, metrics=["accuracy"],
                     n_resamples=100, random_state=0)
    rows = group == "a"
    iv = db.interval("accuracy", y[rows], pred[rows], clusters=cluster[rows])
    assert ev.by_group.loc[("a", "accuracy"), "high"] == iv.high
    assert iv.method == "wilson-clustered (40 clusters)"
    # the group's CR2 rests on its own rows of each cluster (their leverages)
    wald = db.interval("accuracy", y[rows], pred[rows], clusters=cluster[rows],
                       method="wald-clustered")
    assert wald.standard_error == pytest.approx(
        bell_mccaffrey_se((y == pred)[rows], cluster[rows]), rel=1e-10)


def test_faces_show_the_design_effect():
    cluster, y, _, pred = _data(17, n_clusters=40, m=6)
    ev = db.evaluate(y, pred, clusters=cluster, metrics=["accuracy"], n_resamples=100,
                     random_state=0)
    deff = ev.overall.loc["accuracy", "design_effect"]
    shown = f"design effect {deff:.2f}, effective n {y.shape[0] / deff:,.0f}"
    assert shown in repr(ev) and shown in ev._repr_html_()


# ------------------------------------------------------------------ the delta method

def test_delta_clustered_f1_is_the_ratio_of_its_row_sums():
    # F1 = sum 2 tp_i / sum (2 tp_i + fp_i + fn_i): a ratio of row sums, whose
    # cluster-robust variance is ratio_terms' (over all clusters, as the delta method)
    from dartboard._kernels._clustered_analytic import ClusterTerms, ratio_terms

    cluster, y, _, pred = _data(3, ragged=True)
    iv = db.interval("f1", y, pred, method="delta-clustered", clusters=cluster)
    tp, fp, fn = ((y == a) & (pred == b) for a, b in ((1, 1), (0, 1), (1, 0)))
    c = cluster.max() + 1
    ratio = ratio_terms(np.bincount(cluster, 2.0 * tp, c),
                        np.bincount(cluster, 2.0 * tp + fp + fn, c), "x")
    every = ClusterTerms(ratio.estimate, ratio.terms, np.ones_like(ratio.present), "x")
    assert iv.estimate == pytest.approx(ratio.estimate, abs=1e-15)
    assert _terms("f1", y, pred, cluster).variance("CR1") == pytest.approx(
        every.variance("CR1"), rel=1e-7)
    # CR2: each cluster's term over sqrt(1 - h), h its share of all rows (the delta
    # method's leverage)
    share = np.bincount(cluster, minlength=c) / cluster.shape[0]
    cr2 = np.sum((ratio.terms[:, 0] / np.sqrt(1 - share)) ** 2)
    assert iv.standard_error == pytest.approx(np.sqrt(cr2), rel=1e-7)
    assert iv.method == "delta-clustered (40 clusters)"


def test_delta_terms_of_a_ratio_are_the_ratio_terms():
    from dartboard._kernels._clustered_analytic import delta_terms, ratio_terms

    rng = np.random.default_rng(18)
    parts = rng.integers(0, 9, (25, 2, 2)).astype(float)
    delta = delta_terms(lambda m: np.trace(m, axis1=1, axis2=2) / m.sum(axis=(1, 2)), parts)
    ratio = ratio_terms(np.trace(parts, axis1=1, axis2=2), parts.sum(axis=(1, 2)), "x")
    np.testing.assert_allclose(delta.terms, ratio.terms, rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("metric", ["f1", "matthews_corrcoef", "balanced_accuracy",
                                    "cohen_kappa"])
def test_delta_clustered_with_one_row_per_cluster_is_near_the_row_bootstrap(metric):
    _, y, _, pred = _data(19, n_clusters=400, m=1)
    delta = db.interval(metric, y, pred, method="delta-clustered", clusters=np.arange(400))
    rows = db.interval(metric, y, pred, method="percentile", n_resamples=4000,
                       random_state=0)
    assert delta.standard_error == pytest.approx(rows.standard_error, rel=0.08)
    assert db.interval(metric, y, pred, clusters=np.arange(400),
                       n_resamples=100).method == "delta-clustered (400 clusters)"


# --------------------------------------------------- the studentized bootstrap of clusters

def _bootstrap_t_by_hand(metric, y, other, cluster, level, n_resamples, seed, log):
    """The symmetric bootstrap-t of whole clusters, resample by resample: the drawn
    clusters' rows (each copy its own cluster), the metric from scikit-learn, each
    replicate's standard error from statsmodels' cluster-robust OLS, the same draws."""
    from sklearn import metrics as skm

    from dartboard._kernels._clustered import draw_clusters

    per_row = {"log_loss": lambda t, p: -(t * np.log(p) + (1 - t) * np.log1p(-p)),
               "accuracy": lambda t, p: (t == p).astype(float)}[metric]
    value = {"log_loss": lambda t, p: skm.log_loss(t, p, labels=[0, 1]),
             "accuracy": skm.accuracy_score}[metric]
    theta = value(y, other)
    se = _statsmodels_se(per_row(y, other), cluster)
    weights = draw_clusters(np.random.default_rng(seed), int(cluster.max()) + 1, n_resamples)
    members = [np.flatnonzero(cluster == c) for c in range(int(cluster.max()) + 1)]
    stats = []
    for w in weights.astype(int):
        copies = [members[c] for c in np.repeat(np.arange(w.shape[0]), w)]
        rows = np.concatenate(copies)
        copy_id = np.repeat(np.arange(len(copies)), [len(c) for c in copies])
        star = value(y[rows], other[rows])
        se_star = _statsmodels_se(per_row(y[rows], other[rows]), copy_id)
        if se_star > 0:
            stats.append((np.log(star) - np.log(theta)) * star / se_star if log
                         else (star - theta) / se_star)
    q = np.quantile(np.abs(stats), level)
    if log:
        return theta * np.exp(-q * se / theta), theta * np.exp(q * se / theta), se
    return max(theta - q * se, 0.0), min(theta + q * se, 1.0), se


@pytest.mark.parametrize("metric, log", [("log_loss", True), ("accuracy", False)])
@pytest.mark.parametrize("ragged", [False, True])
@pytest.mark.filterwarnings("ignore::dartboard.exceptions.FewClustersWarning")
def test_bootstrap_t_of_clusters_equals_resampling_by_hand(metric, log, ragged):
    cluster, y, score, pred = _data(3, n_clusters=12, m=5, ragged=ragged)
    score = np.clip(score, 0.01, 0.99)
    other = score if metric == "log_loss" else pred
    found = db.interval(metric, y, other, method="bootstrap-t-clustered", clusters=cluster,
                        n_resamples=60, random_state=11, confidence_level=0.9)
    low, high, se = _bootstrap_t_by_hand(metric, y, other, cluster, 0.9, 60, 11, log)
    assert found.standard_error == pytest.approx(se, rel=1e-9)
    assert (found.low, found.high) == pytest.approx((low, high), rel=1e-9)
    assert found.method == "bootstrap-t-clustered (12 clusters)"
    again = db.interval(metric, y, other, method="bootstrap-t-clustered", clusters=cluster,
                        n_resamples=60, random_state=11, confidence_level=0.9)
    assert (again.low, again.high) == (found.low, found.high)  # the same seed, the same bits


def test_bootstrap_t_of_clusters_is_auto_for_mean_losses_only():
    cluster, y, score, pred = _data(5, n_clusters=30, m=8)
    for name in ("log_loss", "brier_score_loss"):
        iv = db.interval(name, y, score, clusters=cluster, random_state=0)
        assert iv.method == "bootstrap-t-clustered (30 clusters)"
        assert iv.low < iv.estimate < iv.high
    residual = y - score
    mae = db.interval("mean_absolute_error", y.astype(float), score, clusters=cluster,
                      random_state=0)
    assert mae.method == "bootstrap-t-clustered (30 clusters)"
    # studentized by CR1 at the data as in each replicate
    assert mae.standard_error == pytest.approx(_statsmodels_se(np.abs(residual), cluster),
                                               rel=1e-9)
    assert db.interval("accuracy", y, pred, clusters=cluster).method == \
        "wilson-clustered (30 clusters)"
    # asked for, a proportion takes it on its own scale, inside [0, 1]
    acc = db.interval("accuracy", y, pred, clusters=cluster, random_state=0,
                      method="bootstrap-t-clustered")
    assert 0.0 <= acc.low < acc.estimate < acc.high <= 1.0


def test_bootstrap_t_of_clusters_refuses_what_is_not_a_ratio():
    cluster, y, score, pred = _data(5, n_clusters=30, m=8)
    for name, other in (("f1", pred),):
        with pytest.raises(ValueError, match="not a cluster-robust interval of"):
            db.interval(name, y, other, clusters=cluster, method="bootstrap-t-clustered")
    with pytest.raises(ValueError, match="clusters"):
        db.interval("log_loss", y, score, method="bootstrap-t-clustered")


def test_pair_wins_count_every_pair_of_two_clusters_by_hand():
    from dartboard._kernels._clustered_analytic import pair_wins

    cluster, y, score, _ = _data(9, n_clusters=7, m=6, ragged=True)
    wins, m, n = pair_wins(cluster, score, y == 1, np.ones(y.shape[0]), 7)
    by_hand = np.zeros((7, 7))
    for i in np.flatnonzero(y == 1):
        for j in np.flatnonzero(y == 0):
            by_hand[cluster[i], cluster[j]] += (score[i] > score[j]) + 0.5 * (score[i] == score[j])
    np.testing.assert_allclose(wins, by_hand, rtol=1e-12)
    assert np.array_equal(m, np.bincount(cluster[y == 1], minlength=7))
    assert wins.sum() / (m.sum() * n.sum()) == pytest.approx(db.metrics.roc_auc_score(y, score),
                                                             rel=1e-12)


@pytest.mark.parametrize("ragged", [False, True])
@pytest.mark.filterwarnings("ignore::dartboard.exceptions.FewClustersWarning")
def test_auc_bootstrap_t_of_clusters_equals_resampling_by_hand(ragged):
    from sklearn.metrics import roc_auc_score

    from dartboard._kernels._clustered import draw_clusters

    cluster, y, score, _ = _data(4, n_clusters=12, m=8, ragged=ragged)
    found = db.interval("roc_auc", y, score, method="bootstrap-t-clustered", clusters=cluster,
                        n_resamples=50, random_state=3)
    # studentized by the CR1 variance at the data and in each replicate alike
    theta, variance = _obuchowski_brute(y, score, cluster)
    se = np.sqrt(variance)
    members = [np.flatnonzero(cluster == c) for c in range(12)]
    stats = []
    for w in draw_clusters(np.random.default_rng(3), 12, 50).astype(int):
        copies = [members[c] for c in np.repeat(np.arange(12), w)]
        rows = np.concatenate(copies)
        copy_id = np.repeat(np.arange(len(copies)), [len(c) for c in copies])
        if np.unique(y[rows]).shape[0] < 2:
            continue
        star = roc_auc_score(y[rows], score[rows])
        if min(np.unique(copy_id[y[rows] == c]).shape[0] for c in (0, 1)) < 2:
            continue  # a class in one drawn cluster: no variance
        # the same clustered variance, on the drawn rows with each copy a cluster
        se_star = np.sqrt(max(_obuchowski_brute(y[rows], score[rows], copy_id)[1], 0.0))
        if se_star > 0 and 0 < star < 1:
            stats.append((special.logit(star) - special.logit(theta))
                         * star * (1 - star) / se_star)
    q = np.quantile(np.abs(stats), 0.95)
    half = q * se / (theta * (1 - theta))
    assert found.standard_error == pytest.approx(se, rel=1e-9)
    assert (found.low, found.high) == pytest.approx(
        (special.expit(special.logit(theta) - half), special.expit(special.logit(theta) + half)),
        rel=1e-9)


def test_auc_auto_takes_the_bootstrap_t_up_to_its_cluster_limit():
    from dartboard._kernels._clustered_analytic import PAIR_WINS_MAX_CLUSTERS

    cluster, y, score, _ = _data(2, n_clusters=40, m=10)
    assert db.interval("roc_auc", y, score, clusters=cluster, random_state=0).method == \
        "bootstrap-t-clustered (40 clusters)"
    many = _data(2, n_clusters=PAIR_WINS_MAX_CLUSTERS + 1, m=2)
    assert db.interval("roc_auc", many[1], many[2], clusters=many[0]).method == \
        f"delong-logit-clustered ({PAIR_WINS_MAX_CLUSTERS + 1} clusters)"
    with pytest.raises(ValueError, match="bootstrap-t-clustered is not|not a cluster-robust"):
        db.interval("roc_auc", many[1], many[2], clusters=many[0],
                    method="bootstrap-t-clustered")


# --------------------------------------------- AP and the PR area: influence values

def _ap_rows(seed=3, n=400, n_clusters=40, weighted=False):
    rng = np.random.default_rng(seed)
    cluster = rng.integers(0, n_clusters, n)
    y = rng.integers(0, 2, n)
    score = np.round(np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1), 2)  # ties
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    return cluster, y, score, w


@pytest.mark.parametrize("weighted", [False, True])
def test_ap_cluster_terms_are_the_rows_influence_values_summed(weighted):
    # each row's term is AP's change per row added at its score and class (checked on
    # the metric recomputed with that row repeated a little more), summed per cluster
    from sklearn.metrics import average_precision_score

    from dartboard._kernels._clustered import ClusterIndex
    from dartboard.uncertainty._interval import cluster_terms_of

    cluster, y, score, w = _ap_rows(weighted=weighted)
    mass = np.ones(y.shape[0]) if w is None else w
    ap = average_precision_score(y, score, sample_weight=w)
    eps = 1e-6
    psi = np.empty(y.shape[0])
    for i in range(y.shape[0]):  # brute force: row i's weight grown by eps
        bumped = mass.copy()
        bumped[i] += eps
        psi[i] = mass[i] * (average_precision_score(y, score, sample_weight=bumped) - ap) / eps
    want = np.bincount(cluster, weights=psi, minlength=40)
    terms = cluster_terms_of("average_precision", y, score, w, {},
                             ClusterIndex(cluster.astype(np.intp), 40))
    assert terms.method == "influence-logit-clustered"
    assert terms.estimate == pytest.approx(ap, abs=1e-12)
    np.testing.assert_allclose(terms.terms[:, 0], want, atol=1e-6)
    assert abs(terms.terms.sum()) < 1e-12  # AP is unchanged when every weight scales
    np.testing.assert_allclose(terms.sizes[:, 0], np.bincount(cluster, weights=mass,
                                                              minlength=40))


def test_ap_cluster_robust_interval_with_singleton_clusters_is_the_influence_interval():
    # each row its own cluster: the CR2 variance of the terms is AP's influence-function
    # variance up to the leverages (1 - 1/n each), so the interval is influence-logit's
    cluster, y, score, _ = _ap_rows(n=600)
    rows = np.arange(y.shape[0])
    clustered = db.interval("average_precision", y, score, clusters=rows,
                            method="influence-logit-clustered")
    plain = db.interval("average_precision", y, score, method="influence-logit")
    assert clustered.standard_error == pytest.approx(plain.standard_error, rel=1e-2)
    assert clustered.low == pytest.approx(plain.low, abs=2e-3)
    assert clustered.high == pytest.approx(plain.high, abs=2e-3)


@pytest.mark.parametrize("metric", ["average_precision", "pr_auc"])
def test_ap_clustered_interval_from_states_equals_the_rows(tmp_path, metric):
    # a streamed evaluation's per-cluster states give the terms of the rows
    import pandas as pd

    cluster, y, score, w = _ap_rows(seed=5, n=500, weighted=True)
    frame = pd.DataFrame({"y": y, "s": score, "c": cluster, "w": w})
    frame.iloc[:250].to_parquet(tmp_path / "a.parquet")
    frame.iloc[250:].to_parquet(tmp_path / "b.parquet")
    options = dict(metrics=[metric], ci="influence-logit-clustered")
    memory = db.evaluate(y, y_score=score, clusters=cluster, sample_weight=w, **options)
    streamed = db.evaluate(str(tmp_path), y_true="y", y_score="s", clusters="c",
                           sample_weight="w", **options)
    a, b = memory.overall.iloc[0], streamed.overall.iloc[0]
    assert a["method"] == b["method"] == "influence-logit-clustered (40 clusters)"
    for key in ("estimate", "low", "high"):
        assert float(a[key]) == pytest.approx(float(b[key]), abs=1e-12)
    assert 0 < float(a["low"]) < float(a["estimate"]) < float(a["high"]) < 1


def test_many_clusters_take_the_analytic_form_of_mean_losses_and_roc_auc():
    # from STUDENTIZED_BELOW_CLUSTERS equal clusters on auto takes t-clustered (and
    # delong-logit-clustered): at 100 and 200 clusters the two covered alike, and the
    # studentized bootstrap's draws grow with the clusters
    from dartboard._kernels._clustered_analytic import STUDENTIZED_BELOW_CLUSTERS

    n = STUDENTIZED_BELOW_CLUSTERS
    cluster, y, score, _ = _data(7, n_clusters=n, m=3)
    for name in ("log_loss", "brier_score_loss"):
        auto = db.interval(name, y, score, clusters=cluster, random_state=0)
        assert auto.method == f"t-clustered ({n} clusters)"
        t = db.interval(name, y, score, clusters=cluster, method="t-clustered")
        assert (auto.low, auto.high) == (t.low, t.high)
    assert db.interval("roc_auc", y, score, clusters=cluster).method == \
        f"delong-logit-clustered ({n} clusters)"
    few = _data(7, n_clusters=n - 1, m=3)
    assert db.interval("log_loss", few[1], few[2], clusters=few[0],
                       random_state=0).method.startswith("bootstrap-t-clustered")


def test_ap_with_its_positives_in_one_cluster_has_no_cluster_robust_form():
    # how the clusters' positives vary is not seen: no influence-logit-clustered (asked
    # for, it is refused by name; auto takes the bootstrap of whole clusters)
    from dartboard._kernels._clustered import ClusterIndex
    from dartboard.uncertainty._interval import cluster_terms_of

    rng = np.random.default_rng(2)
    cluster = np.repeat(np.arange(40), 10)
    y = np.zeros(400, dtype=int)
    y[:60] = 1  # clusters 0-5 ...
    score = rng.random(400) + 0.2 * y
    index = ClusterIndex(cluster.astype(np.intp), 40)
    assert cluster_terms_of("average_precision", y, score, None, {}, index) is not None
    y[:] = 0
    y[:10] = 1  # ... then cluster 0 alone
    assert cluster_terms_of("average_precision", y, score, None, {}, index) is None
    with pytest.raises(ValueError, match="not a cluster-robust interval of "
                                         "average_precision_score"):
        db.interval("average_precision", y, score, clusters=cluster,
                    method="influence-logit-clustered")
