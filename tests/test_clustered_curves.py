"""Bands and operating points with clusters (dartboard.uncertainty._clustered_curves).

The construction: resamples of whole clusters for what the independent path bootstraps
(the threshold's interval, the optimism, F1 and the cost at a given threshold), and the
smoothed draws (fiducial bands, Jeffreys rates) with each class's count over its
design effect. Oracles: the design effects written as plain loops over rows and
clusters, and the clustered replicates rebuilt row by row from the same draws of
clusters. One row per cluster gives the independent answer (bit for bit where the
draws are the same ones).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special
from sklearn.metrics import f1_score

import dartboard as db
from dartboard._kernels._clustered import cluster_index, draw_clusters
from dartboard.uncertainty import _bands, _thresholds
from dartboard.uncertainty._clustered_curves import (
    confusion_design_effects,
    path_design_effects,
    small_sample,
    threshold_design_effects,
)
from dartboard.uncertainty._sorted_scores import SortedScores


def _data(seed=0, n_clusters=40, m=10, rho=0.5):
    """The clustered_coverage data model: clusters share the latent label and score."""
    rng = np.random.default_rng(seed)
    cluster = np.repeat(np.arange(n_clusters), m)
    n = cluster.shape[0]
    a, b = rng.normal(size=(2, n_clusters))
    y = (np.sqrt(rho) * a[cluster] + np.sqrt(1 - rho) * rng.normal(size=n) > 0).astype(int)
    t = (2 * y - 1) + 1.5 * (np.sqrt(rho) * b[cluster] + np.sqrt(1 - rho) * rng.normal(size=n))
    return cluster, y, np.round(1 / (1 + np.exp(-t)), 2)  # rounded: ties


# ------------------------------------------------------------------ design effects

def _plain_design_effect(cluster, group, w, crossing, frac):
    """Cluster-robust over independent-rows variance of the weighted share above one
    point, row by row and cluster by cluster."""
    a = np.array([1.0 if g < crossing else frac if g == crossing else 0.0 for g in group])
    p = np.sum(w * a) / np.sum(w)
    ids = np.unique(cluster[w > 0])  # the clusters and rows holding weight
    c, n = ids.shape[0], int(np.count_nonzero(w))
    if c < 2:  # no variance across clusters to read
        return np.nan
    v_cl = sum(np.sum((w * (a - p))[cluster == k]) ** 2 for k in ids) * c / (c - 1)
    v_row = sum(wi * wi * (ai - p) ** 2 for wi, ai in zip(w, a)) * n / (n - 1)
    return v_cl / v_row if v_row > 1e-12 * np.sum(w) ** 2 else np.nan


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_path_design_effects_equal_the_plain_loops(data):
    n = data.draw(st.integers(4, 40))
    n_clusters = data.draw(st.integers(2, n))
    cluster = np.array(data.draw(st.lists(st.integers(0, n_clusters - 1), min_size=n,
                                          max_size=n)))
    cluster = np.unique(cluster, return_inverse=True)[1]
    if cluster.max() < 1:
        cluster[0] = 1 - cluster[0] if n > 1 else 0
        cluster = np.unique(cluster, return_inverse=True)[1]
    groups = data.draw(st.integers(1, 8))
    group = np.array(data.draw(st.lists(st.integers(0, groups - 1), min_size=n, max_size=n)))
    w = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=n,
                                    max_size=n)))
    w[0] = 1.0  # at least two live rows
    w[1] = max(w[1], 1.0)
    k = data.draw(st.integers(1, 5))
    crossing = np.array(data.draw(st.lists(st.integers(0, groups - 1), min_size=k, max_size=k)))
    frac = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=k,
                                       max_size=k)))
    fast = path_design_effects(cluster, int(cluster.max()) + 1, group, w, crossing, frac)
    for j in range(k):
        plain = _plain_design_effect(cluster, group, w, crossing[j], frac[j])
        if np.isnan(plain):
            assert np.isnan(fast[j])
        else:
            assert fast[j] == pytest.approx(plain, rel=1e-9, abs=1e-9)


def test_design_effect_of_clusters_of_copies():
    # m copies of one row per cluster: V_clusters / V_rows = m (C/(C-1)) / (N/(N-1))
    rng = np.random.default_rng(3)
    c, m = 25, 4
    cluster = np.repeat(np.arange(c), m)
    group = np.repeat(rng.integers(0, 10, size=c), m)
    deff = path_design_effects(cluster, c, group, np.ones(c * m), np.array([4]),
                               np.array([0.5]))[0]
    n = c * m
    assert deff == pytest.approx(m * (c / (c - 1)) / (n / (n - 1)), rel=1e-12)
    # the small-sample factor (t_{C-1} / t_{N-1})^2 and the floor at 1
    used = small_sample(np.array([deff, 0.5, np.nan]), 2.0, c, n, 0.95)
    ratio = (special.stdtrit(c - 1, 0.975) / special.stdtrit(n - 1, 0.975)) ** 2
    np.testing.assert_allclose(used, [deff * ratio, 1.0, 2.0 * ratio], rtol=1e-12)


# ------------------------------------------------------------------ bands

@pytest.mark.parametrize("kind", ["pointwise", "simultaneous"])
@pytest.mark.parametrize("curve", ["specificities", "sensitivities", "recalls"])
def test_band_with_one_row_per_cluster_is_the_independent_band(kind, curve):
    _, y, s = _data(1, n_clusters=30, m=10)
    w = np.random.default_rng(2).integers(1, 4, size=y.shape[0]).astype(float)
    f = db.pr_band if curve == "recalls" else db.roc_band
    grid = {curve: [0.1, 0.5, 0.9, 1.0]}
    for weight in (None, w):
        plain = f(y, s, **grid, kind=kind, n_resamples=300, random_state=4,
                  sample_weight=weight)
        one = f(y, s, **grid, kind=kind, n_resamples=300, random_state=4,
                sample_weight=weight, clusters=np.arange(y.shape[0]))
        np.testing.assert_array_equal(one.draws, plain.draws)
        np.testing.assert_array_equal(one.low, plain.low)
        np.testing.assert_array_equal(one.high, plain.high)
        assert one.method == plain.method + f" (clustered: {y.shape[0]} clusters)"


def test_band_point_draws_with_the_plain_design_effects():
    """A pointwise band's draws at one point are the independent draws with each
    class's count over its design effect, taken from the plain loops."""
    cluster, y, s = _data(5)
    positive = y == 1
    grid = np.array([0.7])
    band = db.roc_band(y, s, specificities=grid, clusters=cluster, n_resamples=400,
                       random_state=9)
    path = SortedScores.build(positive, s, None)
    group = path.scores.shape[0] - 1 - np.searchsorted(path.scores[::-1], s)
    cn = np.concatenate([[0.0], np.cumsum(path.neg)])
    target = (1 - grid[0]) * cn[-1]  # the negatives' weight above the threshold
    crossing = int(np.searchsorted(cn[1:], target + 1e-9, "right"))
    frac = (target - cn[crossing]) / path.neg[crossing]
    deff = []
    for rows in (~positive, positive):  # crossing class (negatives), then the other
        raw = _plain_design_effect(cluster[rows], group[rows], np.ones(rows.sum()),
                                   crossing, frac)
        deff.append(float(small_sample(np.array([raw]), np.nan, 40, 400, 0.95)[0]))
    assert deff[0] > 1.2 and deff[1] > 1.2  # the data are clustered
    cross = _bands._Crossing.of(path, "specificity", positive, None, tuple(deff))
    plain = _bands._draws("specificity", grid, cross, 400, np.random.default_rng(9))
    # the same draws; the design effects' sums run in another order (last bits)
    np.testing.assert_allclose(band.draws, plain, rtol=1e-12, atol=1e-14)


def test_clustered_band_widens_with_the_correlation():
    for rho, wider in ((0.7, 1.3), (0.0, None)):
        cluster, y, s = _data(7, rho=rho)
        kw = {"specificities": [0.2, 0.5, 0.8], "n_resamples": 1000, "random_state": 0}
        plain, clustered = db.roc_band(y, s, **kw), db.roc_band(y, s, clusters=cluster, **kw)
        ratio = (clustered.high - clustered.low) / (plain.high - plain.low)
        assert np.all(ratio >= 0.97)  # design effects are at least 1 (Monte Carlo aside)
        if wider:  # at 0.2 most positives lie above the threshold: a smaller effect
            assert np.all(ratio[1:] > wider)
        else:
            assert np.all(ratio < 1.35)
        np.testing.assert_array_equal(clustered.estimate, plain.estimate)


# ------------------------------------------------------------------ operating points

def _plain_youden(y, s, w, candidates):
    """Youden's threshold among the data's candidate scores (inf first), the highest of
    ties; nan without both classes."""
    pos, neg = w[y == 1].sum(), w[y == 0].sum()
    if pos == 0 or neg == 0:
        return np.nan
    best, chosen = -np.inf, np.inf
    for t in np.concatenate([[np.inf], candidates]):
        j = w[(y == 1) & (s >= t)].sum() / pos - w[(y == 0) & (s >= t)].sum() / neg
        if j > best + 1e-12:
            best, chosen = j, t
    return chosen


def test_threshold_replicates_follow_the_rows_of_the_drawn_clusters():
    cluster, y, s = _data(2, n_clusters=15, m=6)
    n_resamples = 150
    point = db.select_threshold(y, s, clusters=cluster, n_resamples=n_resamples,
                                random_state=11)
    drawn = draw_clusters(np.random.default_rng(11), 15, n_resamples)
    members = [np.flatnonzero(cluster == k) for k in range(15)]
    candidates = np.unique(s)[::-1]
    values = []
    for counts in drawn:
        rows = np.concatenate([np.repeat(members[k], int(counts[k])) for k in range(15)])
        values.append(_plain_youden(y[rows], s[rows], np.ones(rows.shape[0]), candidates))
    values = np.array(values)
    expected = _thresholds._interval("threshold", point.threshold, values[~np.isnan(values)],
                                     0.95, n_resamples, "x")
    iv = point.intervals["threshold"]
    assert (iv.low, iv.high) == (expected.low, expected.high)
    assert iv.method == "percentile (threshold re-chosen in each resample) (clustered: 15 clusters)"
    assert point.n_unmet == int(np.isnan(values).sum())


def test_evaluate_threshold_f1_follows_the_rows_of_the_drawn_clusters():
    cluster, y, s = _data(3, n_clusters=20, m=8)
    point = db.evaluate_threshold(y, s, 0.5, clusters=cluster, n_resamples=200,
                                  random_state=5)
    drawn = draw_clusters(np.random.default_rng(5), 20, 200)
    members = [np.flatnonzero(cluster == k) for k in range(20)]
    values = []
    for counts in drawn:
        rows = np.concatenate([np.repeat(members[k], int(counts[k])) for k in range(20)])
        values.append(f1_score(y[rows], s[rows] >= 0.5))
    expected = _thresholds._interval("f1", point.intervals["f1"].estimate, np.array(values),
                                     0.95, 200)
    assert (point.intervals["f1"].low, point.intervals["f1"].high) == (expected.low,
                                                                        expected.high)


def test_operating_point_design_effects_equal_the_plain_loops():
    cluster, y, s = _data(4)
    positive = y == 1
    point = db.select_threshold(y, s, n_resamples=50, random_state=0)
    path = SortedScores.build(positive, s, None)
    index = int(np.flatnonzero(np.r_[np.inf, path.scores] == point.threshold)[0])
    index_ = cluster_index(cluster, y.shape[0])
    fast = threshold_design_effects(path, positive, s, None, index_, index, 0.95)
    group = path.scores.shape[0] - 1 - np.searchsorted(path.scores[::-1], s)
    for rows, d in zip((positive, ~positive), fast):
        raw = _plain_design_effect(cluster[rows], group[rows], np.ones(rows.sum()),
                                   index - 1, 0.5)
        assert d == pytest.approx(small_sample(np.array([raw]), np.nan, 40, 400, 0.95)[0],
                                  rel=1e-9)
    # evaluate_threshold: each proportion's design effect over its own denominator rows
    predicted = s >= 0.5
    fast = confusion_design_effects(index_, positive, predicted, None, 0.95)
    for j, (rows, a) in enumerate(((positive, predicted), (~positive, ~predicted),
                                   (predicted, positive), (~predicted, ~positive))):
        # the share as rows above a point: group 0 above it, group 2 below
        raw = _plain_design_effect(cluster[rows], np.where(a[rows], 0, 2),
                                   np.ones(rows.sum()), 1, 0.0)
        assert fast[j] == pytest.approx(small_sample(np.array([raw]), np.nan, 40, 400,
                                                     0.95)[0], rel=1e-9)


def test_operating_points_with_one_row_per_cluster():
    _, y, s = _data(6, n_clusters=300, m=1)
    one = np.arange(y.shape[0])
    plain = db.evaluate_threshold(y, s, 0.5, random_state=0)
    clustered = db.evaluate_threshold(y, s, 0.5, clusters=one, random_state=0)
    for name in ("tpr", "tnr", "precision", "npv"):  # design effect 1: the same Wilson
        assert (clustered.intervals[name].low, clustered.intervals[name].high) == \
            (plain.intervals[name].low, plain.intervals[name].high)
    path = SortedScores.build(y == 1, s, None)
    index_ = cluster_index(one, y.shape[0])
    assert threshold_design_effects(path, y == 1, s, None, index_, 40, 0.95) == (1.0, 1.0)
    # the selection's resamples are unstratified draws of rows: the same law, not the
    # same draws, as the independent path's stratified ones
    a = db.select_threshold(y, s, n_resamples=1000, random_state=0)
    b = db.select_threshold(y, s, clusters=one, n_resamples=1000, random_state=0)
    assert a.threshold == b.threshold
    for name in ("tpr", "tnr"):
        assert b.intervals[name].low == pytest.approx(a.intervals[name].low, abs=0.02)
        assert b.intervals[name].high == pytest.approx(a.intervals[name].high, abs=0.02)


def test_clustered_operating_point_widens():
    cluster, y, s = _data(8, rho=0.7)
    a = db.select_threshold(y, s, n_resamples=300, random_state=0)
    b = db.select_threshold(y, s, clusters=cluster, n_resamples=300, random_state=0)
    assert a.threshold == b.threshold
    for name in ("tpr", "tnr"):
        wa = a.intervals[name].high - a.intervals[name].low
        wb = b.intervals[name].high - b.intervals[name].low
        assert wb > 1.2 * wa
        assert b.intervals[name].method.endswith("(clustered: 40 clusters)")


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("call", [
    lambda y, s, cl: db.roc_band(y, s, clusters=cl, n_resamples=20),
    lambda y, s, cl: db.pr_band(y, s, clusters=cl, n_resamples=20),
    lambda y, s, cl: db.select_threshold(y, s, clusters=cl, n_resamples=20),
    lambda y, s, cl: db.evaluate_threshold(y, s, 0.5, clusters=cl, n_resamples=20),
])
@pytest.mark.parametrize("clusters, match", [
    ([1, 2], "clusters has 2"),
    ([1, None, 2, 2, 3, 3], "clusters contains 1 missing"),
    ([7] * 6, "clusters holds 1 cluster"),
    ([1, 2, 1, 3, 1, 3], "clusters: the negatives lie in 1 cluster"),
])
def test_bad_clusters(call, clusters, match):
    y, s = [0, 1, 0, 1, 0, 1], [0.1, 0.9, 0.3, 0.6, 0.5, 0.4]
    with pytest.raises(ValueError, match=match):
        call(y, s, clusters)


def test_guarantee_is_refused_with_clusters():
    cluster, y, s = _data(0)
    with pytest.raises(ValueError, match="guarantee rests on exact binomial tests of "
                                         "independent rows; it is not available with clusters"):
        db.select_threshold(y, s, criterion="min_recall", target=0.8, guarantee=0.9,
                            clusters=cluster)


# ------------------------------------------------------------------ evaluate

def test_evaluate_with_clusters_groups_threshold_and_bands():
    cluster, y, s = _data(9)
    groups = np.where(np.arange(y.shape[0]) % 3 == 0, "a", "b")
    ev = db.evaluate(y, y_score=s, clusters=cluster, groups=groups,
                     threshold_criterion="youden", curve_bands=True, n_resamples=200,
                     random_state=3)
    out = ev.to_dict()
    direct = db.select_threshold(y, s, clusters=cluster, n_resamples=200, random_state=3)
    point = out["operating_point"]
    assert point["threshold"] == direct.threshold
    for name, iv in direct.intervals.items():
        assert (point["intervals"][name]["low"], point["intervals"][name]["high"]) == (
            iv.low, iv.high)
        assert point["intervals"][name]["method"].endswith("(clustered: 40 clusters)")
    band = db.roc_band(y, s, clusters=cluster, n_resamples=200, random_state=3)
    np.testing.assert_allclose(out["roc_band"]["low"], band.low, atol=1e-6)
    assert out["roc_band"]["method"] == out["pr_band"]["method"] == \
        "fiducial (clustered: 40 clusters)"
    # the groups' rows are clustered too
    assert {g["group"] for g in out["groups"]} == {"a", "b"}
    assert all("clusters" in g["method"] for g in out["groups"] if g["low"] == g["low"])


def test_command_line_cluster_with_threshold_criterion(tmp_path):
    import json

    import pandas as pd
    from typer.testing import CliRunner

    from dartboard.cli import app

    cluster, y, s = _data(10, n_clusters=30)
    path = tmp_path / "rows.csv"
    ids = np.array([f"p{c}" for c in cluster])  # the draws follow the ids' sorted order
    pd.DataFrame({"y": y, "s": s, "patient": ids}).to_csv(path, index=False)
    out = CliRunner().invoke(app, ["evaluate", str(path), "--y-true", "y", "--y-score", "s",
                                   "--cluster", "patient", "--threshold-criterion", "youden",
                                   "--n-resamples", "100", "--json"])
    assert out.exit_code == 0, out.output
    point = json.loads(out.output)["operating_point"]
    direct = db.select_threshold(y, s, clusters=ids, n_resamples=100, random_state=0)
    assert point["threshold"] == direct.threshold
    assert point["intervals"]["tpr"]["low"] == direct.intervals["tpr"].low
    assert point["intervals"]["tpr"]["method"].endswith("(clustered: 30 clusters)")
