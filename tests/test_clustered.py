"""Clustered intervals: the bootstrap of whole clusters (dartboard._kernels._clustered).

Oracle: the same bootstrap written plainly (draw clusters with replacement, call the
metric on their rows); the fast path from the clusters' family cells must agree with
it within Monte Carlo error, and with one row per cluster it is the row bootstrap.
"""

import numpy as np
import pandas as pd
import pytest

import dartboard as db
from dartboard import metrics as dm
from dartboard.uncertainty import _interval


def _clustered(seed=0, n_clusters=60, m=8):
    rng = np.random.default_rng(seed)
    cluster = np.repeat(np.arange(n_clusters), m)
    u = rng.normal(size=n_clusters)[cluster]
    y = (rng.random(cluster.shape[0]) < 1 / (1 + np.exp(-u))).astype(int)
    score = np.round(1 / (1 + np.exp(-(0.8 * u + 0.5 * rng.normal(size=cluster.shape[0])))), 2)
    return cluster, y, score, (score >= 0.5).astype(int)


def _plain_cluster_bootstrap(f, y, other, cluster, n_resamples, seed):
    """Whole clusters drawn with replacement, the metric called on their rows."""
    rng = np.random.default_rng(seed)
    ids = np.unique(cluster)
    rows = [np.flatnonzero(cluster == c) for c in ids]
    out = []
    for _ in range(n_resamples):
        idx = np.concatenate([rows[k] for k in rng.integers(0, ids.shape[0], ids.shape[0])])
        try:
            out.append(f(y[idx], other[idx]))
        except ValueError:
            continue
    return np.array(out)


@pytest.mark.parametrize("name, kind", [("accuracy", "labels"), ("f1", "labels"),
                                        ("roc_auc", "scores"), ("average_precision", "scores"),
                                        ("brier_score_loss", "scores")])
def test_fast_path_follows_the_plain_cluster_bootstrap(name, kind):
    cluster, y, score, pred = _clustered()
    other = score if kind == "scores" else pred
    f = {"accuracy": dm.accuracy_score, "f1": dm.f1_score, "roc_auc": dm.roc_auc_score,
         "average_precision": dm.average_precision_score,
         "brier_score_loss": dm.brier_score_loss}[name]
    iv = db.interval(name, y, other, method="percentile", n_resamples=4000, random_state=1,
                     clusters=cluster)
    assert iv.method == "percentile (clustered: 60 clusters)"
    assert iv.estimate == pytest.approx(f(y, other), abs=1e-12)
    plain = _plain_cluster_bootstrap(f, y, other, cluster, 1500, 2)
    ours = iv.bootstrap_distribution
    # the same law: means and spreads agree within Monte Carlo error
    assert abs(ours.mean() - plain.mean()) < 4 * np.hypot(ours.std() / 63, plain.std() / 38.7)
    assert ours.std() == pytest.approx(plain.std(), rel=0.12)


def test_fast_path_equals_the_generic_path_in_law(monkeypatch):
    cluster, y, score, _ = _clustered(3)
    fast = db.interval("roc_auc", y, score, method="bca", n_resamples=4000, random_state=0,
                       clusters=cluster)
    monkeypatch.setattr(_interval, "cluster_replicates", lambda *a, **k: None)
    monkeypatch.setattr(_interval, "_family_state", lambda *a, **k: None)
    slow = db.interval("roc_auc", y, score, method="bca", n_resamples=4000, random_state=0,
                       clusters=cluster)
    assert fast.estimate == slow.estimate
    assert fast.low == pytest.approx(slow.low, abs=0.012)
    assert fast.high == pytest.approx(slow.high, abs=0.012)


@pytest.mark.parametrize("name, kind, weighted", [
    ("accuracy", "labels", False), ("f1", "labels", True), ("cohen_kappa", "labels", False),
    ("roc_auc", "scores", False), ("average_precision", "scores", True)])
def test_one_pass_cells_equal_the_clusters_states_pooled(name, kind, weighted, monkeypatch):
    # the families' one pass over the rows must give the same cells and cluster matrix
    # as building a state per cluster and pooling them: the same replicates, bit for bit
    cluster, y, score, pred = _clustered(5, n_clusters=40, m=6)
    rng = np.random.default_rng(5)
    cluster = rng.permutation(cluster)  # clusters' rows interleaved, ids not sorted
    for c in range(40):  # both classes in every cluster: each has a state alone
        rows = np.flatnonzero(cluster == c)
        y[rows[0]], y[rows[1]] = 1, 0
    other = score if kind == "scores" else pred
    w = rng.integers(1, 4, size=y.shape[0]).astype(float) if weighted else None
    kw = dict(method="bca", n_resamples=300, random_state=3, clusters=cluster * 7 + 1,
              sample_weight=w)
    fast = db.interval(name, y, other, **kw)
    from dartboard.families import _counts, _scores

    monkeypatch.setattr(_counts.CountsFamily, "cluster_cells", lambda *a, **k: None)
    monkeypatch.setattr(_scores.ScoresFamily, "cluster_cells", lambda *a, **k: None)
    pooled = db.interval(name, y, other, **kw)
    np.testing.assert_array_equal(fast.bootstrap_distribution, pooled.bootstrap_distribution)
    assert (fast.low, fast.high) == (pooled.low, pooled.high)


@pytest.mark.parametrize("name, weighted", [("log_loss", False), ("brier_score_loss", True),
                                            ("mean_absolute_error", True)])
def test_mean_loss_cluster_cells_equal_its_rows_cells_pooled(name, weighted, monkeypatch):
    # a mean loss's cells are one per cluster (its sums); the replicates must be those
    # of the clusters' per-row cells pooled, to rounding, and so the interval
    cluster, y, score, _ = _clustered(7, n_clusters=40, m=6)
    rng = np.random.default_rng(7)
    cluster = rng.permutation(cluster)
    w = rng.integers(1, 4, size=y.shape[0]).astype(float) if weighted else None
    target = score if name != "mean_absolute_error" else rng.normal(size=y.shape[0])
    kw = dict(method="percentile", n_resamples=400, random_state=3, clusters=cluster * 3 + 2,
              sample_weight=w)
    fast = db.interval(name, y if name != "mean_absolute_error" else score, target, **kw)
    from dartboard.families import _means

    monkeypatch.setattr(_means.MeansFamily, "cluster_cells", lambda *a, **k: None)
    pooled = db.interval(name, y if name != "mean_absolute_error" else score, target, **kw)
    np.testing.assert_allclose(fast.bootstrap_distribution, pooled.bootstrap_distribution,
                               rtol=1e-12)
    assert fast.low == pytest.approx(pooled.low, rel=1e-12)
    assert fast.high == pytest.approx(pooled.high, rel=1e-12)


def test_one_draw_of_clusters_serves_every_metric_of_a_seed():
    # the cached resampling of clusters gives the bits a fresh draw gives
    from dartboard._kernels import _clustered as cl

    cluster, y, _, pred = _clustered(6)
    first = db.interval("precision", y, pred, method="percentile", n_resamples=500, random_state=9,
                        clusters=cluster)
    db.interval("recall", y, pred, method="percentile", n_resamples=500, random_state=9, clusters=cluster)
    cached = db.interval("precision", y, pred, method="percentile", n_resamples=500, random_state=9,
                         clusters=cluster)
    cl._LAST.forget()
    fresh = db.interval("precision", y, pred, method="percentile", n_resamples=500, random_state=9,
                        clusters=cluster)
    np.testing.assert_array_equal(first.bootstrap_distribution, fresh.bootstrap_distribution)
    np.testing.assert_array_equal(cached.bootstrap_distribution, fresh.bootstrap_distribution)
    other = db.interval("precision", y, pred, method="percentile", n_resamples=500, random_state=10,
                        clusters=cluster)
    assert not np.array_equal(other.bootstrap_distribution, fresh.bootstrap_distribution)


def test_the_clustered_gaps_share_one_draw_with_the_bits_of_fresh_draws(monkeypatch):
    # every metric's gap replicates take the same kept draws of clusters; drawing
    # afresh for each metric must give the same table, bit for bit
    from dartboard._kernels import _clustered as cl

    cluster, y, score, _ = _clustered(8, n_clusters=60, m=8)
    groups = np.random.default_rng(8).integers(0, 3, size=y.shape[0])

    def table():
        cl._LAST.forget()
        ev = db.evaluate(y, y_score=score, groups=groups, clusters=cluster,
                         metrics=["accuracy", "recall", "log_loss", "roc_auc"],
                         n_resamples=300, random_state=4)
        return ev.difference()

    kept = table()
    fresh_draws = cl._LastDraw.take

    def never_kept(self, rng, n_clusters, sizes):
        self.forget()
        return fresh_draws(self, rng, n_clusters, sizes)

    monkeypatch.setattr(cl._LastDraw, "take", never_kept)
    fresh = table()
    pd.testing.assert_frame_equal(kept, fresh)
    assert np.isfinite(kept["high"].to_numpy(dtype=float)).all()


def test_one_row_per_cluster_is_the_row_bootstrap():
    _, y, score, pred = _clustered(4, n_clusters=400, m=1)
    rows = db.interval("accuracy", y, pred, method="percentile", n_resamples=4000,
                       random_state=0)
    clustered = db.interval("accuracy", y, pred, method="percentile", n_resamples=4000,
                            random_state=0, clusters=np.arange(400))
    assert clustered.standard_error == pytest.approx(rows.standard_error, rel=0.08)


def test_clusters_widen_the_interval_where_rows_share_a_cluster():
    cluster, y, score, pred = _clustered(5, n_clusters=100, m=10)
    naive = db.interval("accuracy", y, pred, method="bca", n_resamples=2000, random_state=0)
    clustered = db.interval("accuracy", y, pred, method="bca", n_resamples=2000,
                            random_state=0, clusters=cluster)
    assert clustered.method == "bca (clustered: 100 clusters)"
    assert clustered.high - clustered.low > 1.15 * (naive.high - naive.low)


def test_same_seed_same_bits_and_a_callable_of_ones_own():
    cluster, y, _, pred = _clustered(6)

    def share_right(a, b):
        return float(np.mean(a == b))

    a = db.interval(share_right, y, pred, n_resamples=300, random_state=7, clusters=cluster)
    b = db.interval(share_right, y, pred, n_resamples=300, random_state=7, clusters=cluster)
    assert (a.low, a.high) == (b.low, b.high)
    assert np.array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    assert a.estimate == dm.accuracy_score(y, pred)


def test_weights_ride_along_with_their_rows():
    cluster, y, _, pred = _clustered(8)
    w = np.random.default_rng(0).integers(1, 4, y.shape[0])
    iv = db.interval("accuracy", y, pred, n_resamples=500, random_state=0, clusters=cluster,
                     sample_weight=w)
    assert iv.estimate == pytest.approx(dm.accuracy_score(y, pred, sample_weight=w))
    assert iv.low < iv.estimate < iv.high


@pytest.mark.parametrize("clusters, kwargs, exc, match", [
    (np.arange(5), {}, ValueError, "clusters"),                      # another length
    (np.array([0.0, np.nan] * 40), {}, ValueError, "clusters"),     # a missing id
    (np.zeros(80), {}, ValueError, "1 cluster"),                    # one cluster
    (np.arange(80) // 8, {"method": "wilson"}, ValueError, "independent rows"),
    (np.arange(80) // 8, {"stratified": True}, ValueError, "whole clusters"),
])
@pytest.mark.filterwarnings("ignore::dartboard.exceptions.FewClustersWarning")
def test_bad_clusters_are_refused_by_name(clusters, kwargs, exc, match):
    _, y, _, pred = _clustered(9, n_clusters=10, m=8)
    with pytest.raises(exc, match=match):
        db.interval("accuracy", y, pred, n_resamples=100, clusters=clusters, **kwargs)


# ------------------------------------------------------------------ evaluate(clusters=)

def test_evaluate_rows_are_the_clustered_intervals():
    cluster, y, score, _ = _clustered(10, n_clusters=40, m=6)
    ev = db.evaluate(y, y_score=score, clusters=cluster, metrics=["accuracy", "roc_auc"],
                     n_resamples=300, random_state=3)
    for label, f, other in (("accuracy", "accuracy", (score >= 0.5).astype(int)),
                            ("roc_auc", "roc_auc", score)):
        iv = db.interval(f, y, other, n_resamples=300, random_state=3, clusters=cluster)
        row = ev.overall.loc[label]
        assert (row["estimate"], row["low"], row["high"]) == (iv.estimate, iv.low, iv.high)
        assert row["method"] == iv.method
    assert ev.overall.loc["accuracy", "method"] == "wilson-clustered (40 clusters)"
    assert ev.overall.loc["roc_auc", "method"] == "bootstrap-t-clustered (40 clusters)"


def test_evaluate_groups_and_gaps_with_clusters_spanning_groups():
    cluster, y, score, _ = _clustered(11, n_clusters=50, m=6)
    group = np.where(np.arange(y.shape[0]) % 2 == 0, "even", "odd")  # clusters span both
    ev = db.evaluate(y, y_score=score, groups=group, clusters=cluster,
                     metrics=["accuracy", "recall"], n_resamples=300, random_state=0)
    assert set(ev.by_group["method"]) == {"wilson-clustered (50 clusters)"}
    gap = ev.difference().loc["accuracy"]
    # Newcombe's interval assumes independent rows: the clustered gap is a bootstrap one
    assert gap["method"] == "percentile (grouped bootstrap), clustered"
    assert gap["low"] <= gap["estimate"] <= gap["high"]
    assert ev.fairness().loc["demographic_parity_difference", "method"].endswith("clustered")


@pytest.mark.parametrize("kwargs, match", [
    ({"ci": "wilson"}, "assumes independent rows"),
])
def test_evaluate_refuses_what_is_not_clustered(kwargs, match):
    cluster, y, score, _ = _clustered(12, n_clusters=10, m=4)
    with pytest.raises(ValueError, match=match):
        db.evaluate(y, y_score=score, clusters=cluster, n_resamples=50, **kwargs)


def test_evaluate_refuses_clusters_of_another_length():
    _, y, score, _ = _clustered(13, n_clusters=10, m=4)
    with pytest.raises(ValueError, match="clusters"):
        db.evaluate(y, y_score=score, clusters=np.arange(7), n_resamples=50)


@pytest.mark.filterwarnings("ignore::dartboard.exceptions.FewClustersWarning")
def test_bca_with_undefined_resamples_and_leave_outs_still_forms_an_interval():
    # one positive among ten clusters of one row: most resamples and one leave-one-out
    # lack it; BCa's acceleration leaves that leave-out out (was a RuntimeError)
    y = np.array([0, 0, 0, 0, 0, 0, 1, 0, 0, 0])
    score = np.array([0.337, 0.019, 0.053, 0.152, 0.05, 0.766, 0.556, 0.715, 0.216, 0.542])
    from sklearn.metrics import roc_auc_score

    def auc(y_true, score):  # a user's callable: no cluster terms, rows resampled
        return roc_auc_score(y_true, score) if np.unique(y_true).size == 2 else np.nan

    with pytest.warns(db.IntervalWarning):
        iv = db.interval(auc, y, score, method="bca", n_resamples=100,
                         random_state=24, clusters=np.arange(10))
    assert iv.method.endswith("(clustered: 10 clusters)")
    assert iv.low <= iv.estimate <= iv.high
    # the registry's ROC AUC knows its positives lie in one cluster: no clustered interval
    with pytest.raises(ValueError, match=r"the positives are in 1 cluster \(a clustered "
                                         r"interval needs at least two\)"):
        db.interval("roc_auc", y, score, method="bca", n_resamples=100, random_state=24,
                    clusters=np.arange(10))


def test_very_unequal_clusters_are_named_beside_a_mean_loss():
    # lognormal sizes (sigma 1.5) leave a mean loss's interval short where size goes
    # with difficulty: the result says so; equal sizes, or no mean loss, say nothing
    from dartboard._kernels._clustered_analytic import small_sample_df

    rng = np.random.default_rng(11)
    m = np.maximum(1, np.round(np.exp(np.log(20) - 1.125 + 1.5 * rng.normal(size=40))))
    cluster = np.repeat(np.arange(40), m.astype(int))
    y = rng.integers(0, 2, cluster.shape[0])
    score = rng.random(cluster.shape[0])
    # the rule's own figure, computed here from the sizes
    assert small_sample_df(np.bincount(cluster).astype(float), working="cluster") < 19.5
    ev = db.evaluate(y, y_score=score, clusters=cluster, n_resamples=100, random_state=0)
    found = [a for a in ev.result.assumptions if a.what == "cluster_sizes"]
    assert len(found) == 1
    share = np.bincount(cluster).max() / cluster.shape[0]
    assert found[0].value == f"largest {share:.0%} of rows"
    assert "as little as 85.8%" in found[0].why
    labels = db.evaluate(y, (score > 0.5).astype(int), clusters=cluster, n_resamples=100,
                         random_state=0)
    assert "cluster_sizes" not in [a.what for a in labels.result.assumptions]
    even = np.repeat(np.arange(40), 20)
    y2, s2 = rng.integers(0, 2, 800), rng.random(800)
    ev2 = db.evaluate(y2, y_score=s2, clusters=even, n_resamples=100, random_state=0)
    assert "cluster_sizes" not in [a.what for a in ev2.result.assumptions]
