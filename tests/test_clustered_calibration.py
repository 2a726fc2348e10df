"""Calibration with clusters: per-bin cluster-robust intervals and the calibration
error's bootstrap of whole clusters.

Oracles: statsmodels' OLS (WLS with weights) on an intercept with
``cov_type="cluster"`` restricted to a bin's rows (its small-sample factor
G/(G-1) * (N-1)/(N-K) is G/(G-1) with K = 1, as here) for each bin's standard
error; a slow loop that rebuilds the rows of each replicate's drawn clusters and
calls ``calibration_error`` for the fast bootstrap of whole clusters.
"""

import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

import dartboard as db
from dartboard._kernels._clustered import draw_clusters
from dartboard._rng import check_random_state
from dartboard.exceptions import FewClustersWarning, InputError
from dartboard.metrics import calibration_error
from dartboard.uncertainty import calibration_bins


def _data(seed=0, n_clusters=40, m=8, ragged=False, effect=0.8):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 2 * m, n_clusters) if ragged else np.full(n_clusters, m)
    cluster = np.repeat(np.arange(n_clusters), sizes)
    n = cluster.shape[0]
    p = rng.uniform(size=n)
    u = rng.normal(0.0, effect, n_clusters)[cluster]
    y = (rng.uniform(size=n) < special.expit(special.logit(p ** 1.25) + u)).astype(int)
    # ids that are neither sorted nor 0..C-1
    return np.array([f"c{k * 7 % 101}" for k in cluster]), y, p


def _statsmodels_se(values, cluster, weight=None):
    x = np.ones((values.shape[0], 1))
    model = sm.OLS(values.astype(float), x) if weight is None else \
        sm.WLS(values.astype(float), x, weights=weight)
    return float(model.fit(cov_type="cluster", cov_kwds={"groups": cluster}).bse[0])


def _bin_of(p, n_bins):
    return np.minimum((p * n_bins).astype(np.int64), n_bins)


@pytest.mark.parametrize("ragged", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_bin_se_is_statsmodels_cluster_robust_ols(ragged, weighted):
    cluster, y, p = _data(1, ragged=ragged)
    w = np.random.default_rng(2).uniform(0.5, 2.0, y.shape[0]) if weighted else None
    bins = calibration_bins(y, p, n_bins=8, clusters=cluster, sample_weight=w)
    codes = np.unique(cluster, return_inverse=True)[1]
    at = _bin_of(p, 8)
    checked = 0
    for k, low in enumerate(bins.bin_low):
        rows = at == int(round(low * 8))
        if np.unique(codes[rows]).shape[0] < 2:
            assert np.isnan(bins.standard_error[k])
            continue
        oracle = _statsmodels_se(y[rows], codes[rows], None if w is None else w[rows])
        assert bins.standard_error[k] == pytest.approx(oracle, rel=1e-10, abs=1e-15)
        checked += 1
    assert checked >= 7
    assert bins.method == f"wilson-clustered ({np.unique(cluster).shape[0]} clusters)"


def test_wald_clustered_bounds_and_design_effect():
    from scipy import stats

    cluster, y, p = _data(3)
    bins = calibration_bins(y, p, n_bins=5, clusters=cluster, method="wald")
    assert bins.method.startswith("wald-clustered (")
    codes = np.unique(cluster, return_inverse=True)[1]
    at = _bin_of(p, 5)
    for k in range(bins.count.shape[0]):
        rows = at == int(round(bins.bin_low[k] * 5))
        held = np.unique(codes[rows]).shape[0]
        q = stats.t.ppf(0.975, held - 1)
        o, se = bins.observed[k], bins.standard_error[k]
        assert bins.low[k] == pytest.approx(max(o - q * se, 0.0), abs=1e-12)
        assert bins.high[k] == pytest.approx(min(o + q * se, 1.0), abs=1e-12)
        assert bins.design_effect[k] == pytest.approx(se ** 2 / (o * (1 - o) / rows.sum()))


def test_wilson_clustered_is_wilson_at_the_effective_size():
    from scipy import stats

    cluster, y, p = _data(4, effect=1.5)
    bins = calibration_bins(y, p, n_bins=4, clusters=cluster)
    codes = np.unique(cluster, return_inverse=True)[1]
    at = _bin_of(p, 4)
    for k in range(bins.count.shape[0]):
        rows = at == int(round(bins.bin_low[k] * 4))
        q = stats.t.ppf(0.975, np.unique(codes[rows]).shape[0] - 1)
        o = bins.observed[k]
        n = bins.count[k] / max(bins.design_effect[k], 1.0)
        centre = (o + q * q / (2 * n)) / (1 + q * q / n)
        half = q * np.sqrt(o * (1 - o) / n + q * q / (4 * n * n)) / (1 + q * q / n)
        assert (bins.low[k], bins.high[k]) == pytest.approx((centre - half, centre + half),
                                                            abs=1e-12)
    # clusters that share the outcome widen the bins beyond the independent Wilson's
    alone = calibration_bins(y, p, n_bins=4)
    assert np.all(bins.high - bins.low > alone.high - alone.low)
    assert np.mean(bins.design_effect) > 1.2


def test_one_row_per_cluster_against_independent_rows():
    """With one row per cluster ``V = o (1 - o) / (n - 1)``: the Wald variance times
    ``n / (n - 1)``, so the design effect is ``n / (n - 1)``, and the clustered Wilson
    interval is the independent one at ``n - 1`` rows with ``t_{n-1}`` for ``z``."""
    from scipy import stats

    _, y, p = _data(5, n_clusters=300, m=1)
    bins = calibration_bins(y, p, n_bins=5, clusters=np.arange(300))
    alone = calibration_bins(y, p, n_bins=5)
    n, o = bins.count, bins.observed
    np.testing.assert_allclose(bins.standard_error ** 2, o * (1 - o) / (n - 1), rtol=1e-12)
    np.testing.assert_allclose(bins.design_effect, n / (n - 1), rtol=1e-12)
    np.testing.assert_allclose(bins.observed, alone.observed)
    for k in range(n.shape[0]):
        q = stats.t.ppf(0.975, n[k] - 1)
        m = n[k] - 1
        centre = (o[k] + q * q / (2 * m)) / (1 + q * q / m)
        half = q * np.sqrt(o[k] * (1 - o[k]) / m + q * q / (4 * m * m)) / (1 + q * q / m)
        assert (bins.low[k], bins.high[k]) == pytest.approx((centre - half, centre + half))
    # a little wider than the independent Wilson, never narrower
    assert np.all(bins.low <= alone.low) and np.all(bins.high >= alone.high)
    assert np.max((bins.high - bins.low) / (alone.high - alone.low)) < 1.05


def test_bin_in_one_cluster_gets_the_whole_range():
    y = np.array([1, 0, 1, 1, 0, 0, 1, 0])
    p = np.array([0.1, 0.2, 0.6, 0.7, 0.65, 0.9, 0.8, 0.55])
    bins = calibration_bins(y, p, n_bins=2, clusters=[0, 0, 1, 2, 1, 2, 1, 2])
    assert (bins.low[0], bins.high[0]) == (0.0, 1.0)
    assert np.isnan(bins.standard_error[0]) and np.isnan(bins.design_effect[0])
    assert np.isfinite(bins.standard_error[1])


def _slow_replicates(y, p, cluster, seed, n_resamples, **kwargs):
    """The rows of each replicate's clusters, rebuilt, and calibration_error called."""
    ids, codes = np.unique(cluster, return_inverse=True)
    members = [np.flatnonzero(codes == c) for c in range(ids.shape[0])]
    drawn = draw_clusters(check_random_state(seed), ids.shape[0], n_resamples)
    weight = kwargs.pop("sample_weight", None)
    out = []
    for counts in drawn.astype(np.int64):
        rows = np.concatenate([np.tile(members[c], k) for c, k in enumerate(counts) if k])
        extra = {} if weight is None else {"sample_weight": weight[rows]}
        out.append(calibration_error(y[rows], p[rows], **kwargs, **extra))
    return np.array(out)


@pytest.mark.parametrize("kwargs", [{}, {"norm": "l2", "debiased": True}, {"norm": "max"},
                                    {"n_bins": 7}])
def test_fast_cluster_bootstrap_equals_rebuilt_rows(kwargs):
    cluster, y, p = _data(6, ragged=True)
    iv = db.interval("calibration_error", y, p, method="percentile", n_resamples=150,
                     random_state=11, clusters=cluster, **kwargs)
    slow = _slow_replicates(y, p, cluster, 11, 150, **kwargs)
    np.testing.assert_allclose(iv.bootstrap_distribution, slow, rtol=1e-10, atol=1e-13)
    assert iv.method == f"percentile (clustered: {np.unique(cluster).shape[0]} clusters)"


def test_fast_cluster_bootstrap_multiclass_and_weights():
    rng = np.random.default_rng(8)
    cluster = np.repeat(np.arange(30), 6)
    proba = rng.dirichlet(np.ones(3), 180)
    y = np.array([rng.choice(3, p=r) for r in proba])
    for kwargs in ({}, {"multiclass": "classwise"}, {"multiclass": "marginal", "norm": "l2"}):
        iv = db.interval("calibration_error", y, proba, method="basic", n_resamples=60,
                         random_state=3, clusters=cluster, **kwargs)
        slow = _slow_replicates(y, proba, cluster, 3, 60, **kwargs)
        np.testing.assert_allclose(iv.bootstrap_distribution, slow, rtol=1e-10, atol=1e-13)
    c2, y2, p2 = _data(9)
    w = rng.uniform(0.2, 3.0, y2.shape[0])
    iv = db.interval("calibration_error", y2, p2, method="percentile", n_resamples=60,
                     random_state=4, clusters=c2, sample_weight=w)
    slow = _slow_replicates(y2, p2, c2, 4, 60, sample_weight=w)
    np.testing.assert_allclose(iv.bootstrap_distribution, slow, rtol=1e-10, atol=1e-13)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_clusters=st.integers(2, 25),
       m=st.integers(1, 6), n_bins=st.integers(1, 12))
def test_fast_cluster_bootstrap_property(seed, n_clusters, m, n_bins):
    cluster, y, p = _data(seed, n_clusters=n_clusters, m=m, ragged=True)
    with warnings.catch_warnings():  # below 10 clusters: test_clustered_small_sample
        warnings.simplefilter("ignore", FewClustersWarning)
        iv = db.interval("calibration_error", y, p, method="basic", n_resamples=25,
                         random_state=seed, clusters=cluster, n_bins=n_bins)
    slow = _slow_replicates(y, p, cluster, seed, 25, n_bins=n_bins)
    np.testing.assert_allclose(iv.bootstrap_distribution, slow, rtol=1e-10, atol=1e-13)


def test_auto_is_the_clustered_pivot_and_equal_mass_bins_rebuild_rows():
    cluster, y, p = _data(10)
    iv = db.interval("calibration_error", y, p, random_state=0, n_resamples=300,
                     clusters=cluster)
    assert iv.method.startswith("bin-pivot (clustered: 40 clusters, design effect ")
    assert 0.0 <= iv.low <= iv.high <= 1.0
    # weights: the pivot does not apply, auto takes the basic bootstrap of clusters
    w = np.linspace(0.5, 2.0, y.shape[0])
    weighted = db.interval("calibration_error", y, p, random_state=0, n_resamples=100,
                           clusters=cluster, sample_weight=w)
    assert weighted.method == "basic (clustered: 40 clusters)"
    # equal-mass edges move with the rows: the replicates rebuild them (generic path)
    q = db.interval("calibration_error", y, p, method="percentile", random_state=0,
                    n_resamples=30, clusters=cluster, strategy="quantile")
    assert q.method == "percentile (clustered: 40 clusters)"
    rng = check_random_state(0)
    ids, codes = np.unique(cluster, return_inverse=True)
    members = [np.flatnonzero(codes == c) for c in range(ids.shape[0])]
    slow = [calibration_error(y[r], p[r], strategy="quantile") for r in
            (np.concatenate([members[k] for k in rng.integers(0, 40, size=40)])
             for _ in range(30))]
    np.testing.assert_allclose(q.bootstrap_distribution, slow, rtol=1e-12)


def test_bad_input():
    cluster, y, p = _data(12)
    with pytest.raises(InputError, match="clusters"):
        calibration_bins(y, p, clusters=cluster[:-1])
    with pytest.raises(InputError, match="at least two"):
        calibration_bins(y, p, clusters=np.zeros(y.shape[0]))
    with pytest.raises(InputError, match="clusters"):
        calibration_bins(y, p, clusters=np.where(np.arange(y.shape[0]) == 3, np.nan, 1.0))
    with pytest.raises(InputError, match="with clusters, method must be one of"):
        calibration_bins(y, p, clusters=cluster, method="jeffreys")
    with pytest.raises(InputError, match="needs clusters="):
        calibration_bins(y, p, method="wald-clustered")
    with pytest.raises(InputError, match="'bin-pivot' with clusters needs unweighted rows"):
        db.interval("calibration_error", y, p, method="bin-pivot", clusters=cluster,
                    sample_weight=np.linspace(1, 2, y.shape[0]))
    with pytest.raises(InputError, match="'wilson' assumes independent rows"):
        db.interval("calibration_error", y, p, method="wilson", clusters=cluster)
    with pytest.raises(InputError, match="calibration_test does not take clusters"):
        db.calibration_test(y, p, clusters=cluster)
    with pytest.raises(InputError, match="clusters"):
        db.interval("calibration_error", y, p, clusters=cluster[:10])
    y_copy, p_copy, c_copy = y.copy(), p.copy(), cluster.copy()
    calibration_bins(y, p, clusters=cluster)
    db.interval("calibration_error", y, p, clusters=cluster, n_resamples=50, random_state=0)
    assert np.array_equal(y, y_copy) and np.array_equal(p, p_copy)
    assert np.array_equal(cluster, c_copy)


def test_evaluate_with_clusters_and_groups_gives_clustered_calibration():
    cluster, y, p = _data(13, n_clusters=30)
    groups = np.where(np.random.default_rng(0).uniform(size=y.shape[0]) < 0.5, "a", "b")
    ev = db.evaluate(y, y_score=p, groups=groups, clusters=cluster, random_state=0,
                     n_resamples=200)
    d = ev.to_dict()
    points = d["calibration"]
    bins = calibration_bins(y, p, clusters=cluster)
    assert points["method"] == "wilson-clustered (30 clusters)"
    np.testing.assert_allclose(points["low"], bins.low, atol=1e-12)
    np.testing.assert_allclose(points["high"], bins.high, atol=1e-12)
    assert len(points["design_effect"]) == len(points["low"])
    alone = calibration_bins(y, p)
    assert not np.allclose(points["low"], alone.low)
    ece = [r for r in d["metrics"] if r["metric"] == "ece"][0]
    assert ece["method"].startswith("bin-pivot (clustered: 30 clusters, design effect")
    by_group = [r for r in d["groups"] if r["metric"] == "ece"]
    assert len(by_group) == 2 and all("(clustered:" in r["method"] for r in by_group)
    gap = [r for r in d["difference"] if r["metric"] == "ece"][0]
    assert gap["method"].endswith("clustered")


def test_calibration_points_with_clusters_and_ece():
    from dartboard.evaluation import calibration_points

    cluster, y, p = _data(14)
    points = calibration_points(y, p, n_bins=10, clusters=cluster, with_ece=True,
                                n_resamples=200, random_state=1)
    iv = db.interval("calibration_error", y, p, n_bins=10, clusters=cluster,
                     n_resamples=200, random_state=1)
    assert (points["ece_low"], points["ece_high"]) == (iv.low, iv.high)
    assert points["method"].startswith("wilson-clustered")


def _slow_design_effect(y, p, cluster, n_bins):
    """D by loops: each row's signed, bin-centred residual, summed per cluster."""
    b = _bin_of(p, n_bins)
    r = np.empty(y.shape[0])
    for k in np.unique(b):
        rows = b == k
        d = np.mean(y[rows] - p[rows])
        r[rows] = np.sign(d) * (y[rows] - p[rows] - d)
    clustered = sum(np.sum(r[cluster == c]) ** 2 for c in np.unique(cluster))
    return max(clustered / np.sum(r ** 2), 1.0)


@pytest.mark.parametrize("effect", [0.0, 1.5])
def test_pivot_design_effect_against_loops(effect):
    from dartboard._kernels._clustered_calibration import pivot_design_effect
    from dartboard.metrics._calibration import bin_keys

    cluster, y, p = _data(15, ragged=True, effect=effect)
    codes = np.unique(cluster, return_inverse=True)[1]
    key = np.array(bin_keys(p, y.astype(bool), 10, None))
    fast = pivot_design_effect(p, y.astype(float), key, 11, codes, codes.max() + 1)
    assert fast == pytest.approx(_slow_design_effect(y, p, codes, 10), rel=1e-12)
    if effect:
        assert fast > 1.15
    iv = db.interval("calibration_error", y, p, n_bins=10, clusters=cluster,
                     method="bin-pivot", n_resamples=200, random_state=0)
    assert iv.method.endswith(f"design effect {fast:.2f})")


def test_pivot_with_one_row_per_cluster_is_the_independent_pivot():
    _, y, p = _data(16, n_clusters=300, m=1)
    alone = db.interval("calibration_error", y, p, method="bin-pivot", n_resamples=400,
                        random_state=5)
    clustered = db.interval("calibration_error", y, p, clusters=np.arange(300),
                            n_resamples=400, random_state=5)
    assert clustered.method == "bin-pivot (clustered: 300 clusters, design effect 1.00)"
    assert (clustered.low, clustered.high) == (alone.low, alone.high)


def test_clustered_pivot_is_the_pivot_of_the_effective_state():
    from dartboard._kernels._calibration import pivot_intervals_analytic, state_bins
    from dartboard._kernels._clustered_calibration import effective_state
    from dartboard.metrics._calibration import binned_state

    cluster, y, p = _data(17, effect=2.0)
    codes = np.unique(cluster, return_inverse=True)[1]
    design = _slow_design_effect(y, p, codes, 15)
    state = binned_state(y, p, 15, "uniform", "top_label", None, None, second_moment=True)
    small = effective_state(state, design)
    np.testing.assert_array_equal(small.weight, np.round(state.weight / design))
    keep = small.weight > 0
    np.testing.assert_allclose(small.sum_p[keep] / small.weight[keep],
                               state.sum_p[keep] / state.weight[keep])
    estimate = calibration_error(y, p)
    # the ECE's pivot (l1, plain) in closed form, on the effective state's bins
    low, high, _ = (float(v[0]) for v in pivot_intervals_analytic(*state_bins(small),
                                                                   estimate, 0.95))
    iv = db.interval("calibration_error", y, p, clusters=cluster, n_resamples=300,
                     random_state=9)
    assert (iv.low, iv.high) == pytest.approx((low, high), abs=1e-12)
    wide = db.interval("calibration_error", y, p, n_resamples=300, random_state=9)
    assert iv.high - iv.low > wide.high - wide.low


@pytest.mark.filterwarnings("ignore::dartboard.exceptions.FewClustersWarning")
def test_report_of_a_clustered_evaluation_names_the_clustered_bars(tmp_path):
    import json

    from dartboard.report import check_results

    cluster, y, p = _data(18, n_clusters=20)
    ev = db.evaluate(y, y_score=p, clusters=cluster, metrics=["accuracy", "ece"],
                     random_state=0, n_resamples=100)
    ev.to_html(tmp_path / "report.html")
    html = (tmp_path / "report.html").read_text()
    assert "wilson-clustered (20 clusters) intervals" in html
    section = json.loads(json.dumps(ev.to_dict()))
    check_results({"classification": section})
    assert section["calibration"]["method"] == "wilson-clustered (20 clusters)"
    # without clusters the points keep their former keys
    plain = db.evaluate(y, y_score=p, metrics=["accuracy"], random_state=0,
                        n_resamples=100).to_dict()["calibration"]
    assert "method" not in plain and "design_effect" not in plain


def test_top_label_and_equal_mass_bins_se_is_statsmodels():
    rng = np.random.default_rng(19)
    cluster = np.repeat(np.arange(30), 6)
    proba = rng.dirichlet(np.ones(3), 180)
    y = np.array([rng.choice(3, p=r) for r in proba])
    hit = (proba.argmax(1) == y).astype(float)
    conf = proba.max(1)
    for strategy in ("uniform", "quantile"):
        bins = calibration_bins(y, proba, n_bins=4, strategy=strategy, clusters=cluster)
        edges = np.append(bins.bin_low, bins.bin_high[-1])
        at = np.clip(np.searchsorted(edges[1:-1], conf, side="right"), 0, len(bins.count) - 1)
        for k in range(bins.count.shape[0]):
            rows = at == k
            assert rows.sum() == bins.count[k]
            oracle = _statsmodels_se(hit[rows], cluster[rows])
            assert bins.standard_error[k] == pytest.approx(oracle, rel=1e-10)


def test_pivot_design_effect_from_states_equals_the_rows():
    # the streamed evaluation's design effect (per-cell sums of each cluster's state)
    # against the in-memory one (each row's residual)
    from dartboard._kernels._clustered_calibration import (
        pivot_design_effect,
        state_design_effect,
    )
    from dartboard.metrics._calibration import bin_keys, binned_state, confidences

    for seed in range(6):
        rng = np.random.default_rng(seed)
        n, c = 400, 25
        cluster = rng.integers(0, c, n)
        u = rng.normal(size=c)[cluster]
        p = rng.random(n)
        y = (rng.random(n) < 1 / (1 + np.exp(-(np.log(p / (1 - p)) + u)))).astype(int)
        state = binned_state(y, p, 10, "uniform", "top_label", None, None,
                             second_moment=True)
        conf, hit, _, _ = confidences(y, p, None, None, "top_label")
        conf = np.asarray(conf, dtype=np.float64)
        key = np.array(bin_keys(conf, hit, state.n_bins, None))
        rows = pivot_design_effect(conf, np.asarray(hit, dtype=np.float64), key,
                                   state.n_bins + 1, cluster, c)
        states = [binned_state(y[cluster == k], p[cluster == k], 10, "uniform", "top_label",
                               None, None, second_moment=True) for k in range(c)]
        assert state_design_effect(state, states) == pytest.approx(rows, rel=1e-10)
