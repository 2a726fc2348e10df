"""Clustered rows streamed: ``evaluate_parquet(..., clusters=)``, ``evaluate_dask(...,
clusters=)`` and ``dartboard evaluate DIR --cluster COL`` give the numbers of
``dartboard.evaluate(..., clusters=)`` on the concatenated rows, from per-cluster
family states."""

import json
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import dartboard as db
from dartboard.cli import app
from dartboard.evaluation._bundle import build_bundle, plan_metrics
from dartboard.exceptions import InputError, InputTypeError
from dartboard.families import Batch, Metric, family_of
from dartboard.metrics._registry import get_spec
from dartboard.scale import evaluate_parquet

runner = CliRunner()
COLUMNS = ["estimate", "low", "high", "design_effect"]
#: ECE's clustered bin-pivot (``ci="auto"``) streams: its design effect comes from the
#: clusters' states as in memory from the rows. Its bootstrap of whole clusters (an
#: explicit ``ci="bca"``, and the gaps between groups) draws from per-cluster bin sums
#: in memory only: streamed it keeps the estimate without an interval
def _data(kind, n=720, n_clusters=36, seed=0):
    rng = np.random.default_rng(seed)
    cluster = rng.integers(0, n_clusters, n)
    effect = rng.normal(size=n_clusters)[cluster]
    group = np.array(["a", "b", "c"])[rng.integers(0, 3, n)]
    if kind == "regression":
        y = np.round(effect + rng.normal(size=n), 3)
        return {"y": y, "p": np.round(y + 0.5 * effect + rng.normal(size=n), 3),
                "c": cluster, "g": group}
    y = (effect + rng.normal(size=n) > 0).astype(int)
    score = np.round(1 / (1 + np.exp(-(2 * y - 1) * (0.8 + effect + rng.normal(size=n)))), 2)
    if kind == "labels":
        return {"y": y, "p": (score >= 0.5).astype(int), "c": cluster, "g": group}
    return {"y": y, "s": score, "c": cluster, "g": group}


def _files(tmp_path, data, n_files=3, seed=1):
    """The rows shuffled over ``n_files`` files (every cluster's rows split among
    them), and the row order of the files read one after another."""
    order = np.random.default_rng(seed).permutation(len(data["y"]))
    parts = np.array_split(order, n_files)
    for i, rows in enumerate(parts):
        pq.write_table(pa.table({k: v[rows] for k, v in data.items()}),
                       tmp_path / f"part{i}.parquet")
    return np.concatenate(parts)


def _inputs(kind, data, rows):
    if kind == "scores":
        return (data["y"][rows],), {"y_score": data["s"][rows]}, {"y_score": "s"}
    return (data["y"][rows], data["p"][rows]), {}, {"y_pred": "p"}


def _same(memory, streamed, what):
    """Equal frames of metric rows: the same index, estimates, intervals, design
    effects (to 1e-9) and methods; the calibration error's bootstrap of whole clusters
    too (its clusters' states hold their bin sums whole)."""
    assert list(memory.index) == list(streamed.index), what
    for key in memory.index:
        a, b = memory.loc[key], streamed.loc[key]
        assert b["method"] == a["method"], (what, key)
        for c in COLUMNS:
            assert np.isclose(b[c], a[c], rtol=1e-9, atol=1e-12, equal_nan=True), \
                (what, key, c, a[c], b[c])


def _compare(memory, streamed, grouped):
    _same(memory.overall, streamed.overall, "overall")
    if grouped:
        _same(memory.by_group, streamed.by_group, "by group")
        gaps_a, gaps_b = memory.difference(), streamed.difference()
        assert list(gaps_a.index) == list(gaps_b.index)
        for c in ("estimate", "low", "high"):
            np.testing.assert_allclose(gaps_b[c].astype(float), gaps_a[c].astype(float),
                                       rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kind", ["labels", "scores", "regression"])
@pytest.mark.parametrize("ci", ["auto", "bca"])
@pytest.mark.parametrize("group", [None, "g"])
def test_parquet_directory_equals_in_memory(tmp_path, kind, ci, group):
    # the median errors' replicates cost their rows each: fewer rows for regression
    data = _data(kind, n=360 if kind == "regression" else 720)
    rows = _files(tmp_path, data)
    args, arrays, columns = _inputs(kind, data, rows)
    options = {"ci": ci, "n_resamples": 300, "random_state": 7}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # resamples without a class, in both
        memory = db.evaluate(*args, **arrays, clusters=data["c"][rows],
                             groups=None if group is None else data["g"][rows],
                             task="regression" if kind == "regression" else "auto",
                             **options)
        streamed = evaluate_parquet(tmp_path, y_true="y", **columns, clusters="c",
                                    groups=group, batch_size=101, **options)
    _compare(memory, streamed, group is not None)
    if kind == "scores" and ci == "auto":  # the calibration error's clustered pivot
        method = streamed.overall.loc["ece", "method"]
        assert method.startswith("bin-pivot (clustered: 36 clusters, design effect ")
        assert method == memory.overall.loc["ece", "method"]
        assert streamed.overall.loc["ece", "low"] == pytest.approx(
            memory.overall.loc["ece", "low"], rel=1e-9, abs=1e-12)
    methods = " ".join(streamed.overall["method"])
    assert "clustered" in methods
    assert streamed.n_files == 3 and streamed.n_rows == len(rows)
    if kind == "labels" and group is not None:  # the fairness rates draw clusters too
        fair_a, fair_b = memory.fairness(), streamed.fairness()
        for c in ("estimate", "low", "high"):
            np.testing.assert_allclose(fair_b[c].astype(float), fair_a[c].astype(float),
                                       rtol=1e-9, atol=1e-12)


def test_weighted_rows_equal_in_memory(tmp_path):
    data = _data("scores", n=600, n_clusters=30, seed=12)
    data["w"] = np.random.default_rng(0).integers(1, 4, 600).astype(float)
    rows = _files(tmp_path, data, n_files=2)
    options = {"n_resamples": 200, "random_state": 4}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        memory = db.evaluate(data["y"][rows], y_score=data["s"][rows], groups=data["g"][rows],
                             clusters=data["c"][rows], sample_weight=data["w"][rows],
                             **options)
        streamed = evaluate_parquet(tmp_path, y_true="y", y_score="s", clusters="c",
                                    groups="g", sample_weight="w", **options)
    _compare(memory, streamed, True)
    # weighted scores have no Obuchowski terms: their bootstrap draws whole clusters
    assert streamed.overall.loc["roc_auc", "method"] == "bca (clustered: 30 clusters)"


@pytest.mark.parametrize("kind", ["labels", "scores", "regression"])
def test_dask_equals_in_memory(kind):
    dd = pytest.importorskip("dask.dataframe")
    data = _data(kind, n=480, n_clusters=24, seed=3)
    frame = pd.DataFrame(data).sample(frac=1.0, random_state=2)
    rows = frame.index.to_numpy()
    args, arrays, columns = _inputs(kind, data, rows)
    options = {"n_resamples": 200, "random_state": 11}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        memory = db.evaluate(*args, **arrays, clusters=data["c"][rows], groups=data["g"][rows],
                             task="regression" if kind == "regression" else "auto",
                             **options)
        streamed = db.scale.evaluate_dask(dd.from_pandas(frame, npartitions=5), y_true="y",
                                          **columns, clusters="c", groups="g",
                                          scheduler="synchronous", **options)
    _compare(memory, streamed, True)


@pytest.mark.filterwarnings("ignore::dartboard.exceptions.FewClustersWarning")
def test_dask_reads_parquet_files_with_cluster(tmp_path):
    pytest.importorskip("dask.dataframe")
    data = _data("labels", n=400, n_clusters=20, seed=4)
    rows = _files(tmp_path, data, n_files=3)
    options = {"n_resamples": 200, "random_state": 5, "ci": "bca"}
    memory = db.evaluate(data["y"][rows], data["p"][rows], clusters=data["c"][rows], **options)
    streamed = db.scale.evaluate_dask(str(tmp_path), y_true="y", y_pred="p", clusters="c",
                                      scheduler="synchronous", **options)
    _compare(memory, streamed, False)
    assert streamed.n_files == 3


@pytest.mark.filterwarnings("ignore::dartboard.exceptions.FewClustersWarning")
def test_string_cluster_ids_sort_as_in_memory(tmp_path):
    """Ids of another type: the clusters are ordered as the in-memory encoding orders
    them, so the same seed draws the same clusters."""
    data = _data("labels", n=300, n_clusters=15, seed=5)
    data["c"] = np.array([f"patient-{c}" for c in data["c"]])
    rows = _files(tmp_path, data, n_files=2)
    options = {"ci": "bca", "n_resamples": 200, "random_state": 2,
               "metrics": ["accuracy", "f1"]}
    memory = db.evaluate(data["y"][rows], data["p"][rows], clusters=data["c"][rows], **options)
    streamed = evaluate_parquet(tmp_path, y_true="y", y_pred="p", clusters="c", **options)
    _same(memory.overall, streamed.overall, "string ids")


@pytest.mark.filterwarnings("ignore::dartboard.exceptions.FewClustersWarning")
def test_group_of_one_cluster_keeps_its_estimate_without_interval(tmp_path):
    rng = np.random.default_rng(5)
    cluster = rng.integers(0, 20, 400)
    group = np.where(cluster == 0, "lone", "many")
    y = rng.integers(0, 2, 400)
    pred = np.where(rng.random(400) < 0.7, y, 1 - y)
    pq.write_table(pa.table({"y": y, "p": pred, "c": cluster, "g": group}),
                   tmp_path / "a.parquet")
    options = {"metrics": ["accuracy", "f1"], "random_state": 0, "n_resamples": 100}
    memory = db.evaluate(y, pred, clusters=cluster, groups=group, **options)
    streamed = evaluate_parquet(tmp_path, y_true="y", y_pred="p", clusters="c", groups="g",
                                **options)
    _same(memory.by_group, streamed.by_group, "one cluster in a group")
    assert streamed.by_group.loc[("lone", "f1"), "method"] == "n/a (clusters holds 1 cluster)"


def test_gaps_of_a_cluster_absent_from_a_group_in_memory():
    """In memory, a group's clusters are indexed among all clusters for the gaps'
    shared draws: a cluster without rows in the group has no state to pool (an empty
    regression state once divided 0 by 0)."""
    rng = np.random.default_rng(0)
    cluster = rng.integers(0, 36, 360)
    group = np.array(list("abc"))[rng.integers(0, 3, 360)]
    assert any(np.setdiff1d(cluster, cluster[group == g]).size for g in "abc")
    y = rng.normal(size=360)
    ev = db.evaluate(y, y + rng.normal(size=360), clusters=cluster, groups=group,
                     task="regression", n_resamples=100, random_state=0)
    gaps = ev.difference()
    assert np.isfinite(gaps.loc["mean_absolute_error", ["low", "high"]].astype(float)).all()


# ------------------------------------------------------------------ terms from states

def _cluster_states(batch, metric, codes, n_clusters):
    (planned,) = plan_metrics([(metric.name, metric.spec, metric.kwargs)])
    family, m, key = planned.computed
    bundle = build_bundle(batch, [planned], clusters=codes)
    return family, [bundle.clusters[c][key] for c in range(n_clusters)]


@pytest.mark.parametrize("name, kwargs, kind", [
    ("accuracy_score", {}, "labels"),
    ("precision_score", {"pos_label": 1}, "labels"),
    ("f1_score", {"pos_label": 1}, "labels"),
    ("matthews_corrcoef", {}, "labels"),
    ("log_loss", {}, "probabilities"),
    ("brier_score_loss", {}, "probabilities"),
    ("mean_absolute_error", {}, "values"),
    ("roc_auc_score", {}, "scores"),
])
def test_state_terms_equal_row_terms(name, kwargs, kind):
    """The cluster-robust terms from per-cluster states equal those of the rows."""
    rng = np.random.default_rng(4)
    n, c = 400, 25
    codes = rng.integers(0, c, n)
    y = rng.integers(0, 2, n)
    score = np.round(np.clip(0.3 * y + 0.7 * rng.random(n), 0.01, 0.99), 2)
    other = {"labels": (score >= 0.5).astype(int), "probabilities": score, "scores": score,
             "values": score * 3}[kind]
    truth = y * 2.0 if kind == "values" else y
    batch = Batch(truth, {kind: other}, None, 1 if kind != "values" else None,
                  np.array([0, 1]) if kind != "values" else None)
    if kind == "scores":
        batch = Batch(y == 1, {kind: other}, None, True)
    metric = Metric(get_spec(name), kwargs)
    family, states = _cluster_states(batch, metric, codes, c)
    from_rows = family.cluster_terms(batch, metric, codes, c)
    from_states = family.state_cluster_terms(states, metric)
    assert from_rows is not None and from_states is not None
    assert from_states.method == from_rows.method
    assert from_states.estimate == pytest.approx(from_rows.estimate, rel=1e-12)
    np.testing.assert_allclose(from_states.terms, from_rows.terms, rtol=1e-9, atol=1e-15)
    np.testing.assert_array_equal(from_states.present, from_rows.present)
    assert from_states.variance() == pytest.approx(from_rows.variance(), rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 4), st.booleans()),
                min_size=4, max_size=60))
def test_auc_terms_from_score_cells_property(rows):
    """ROC AUC's placement sums from each cluster's (score, label) cells equal the
    rows' (ties within and across clusters, clusters of one class)."""
    cluster, score, positive = (np.array(v) for v in zip(*rows))
    if positive.all() or not positive.any():
        return
    codes = np.unique(cluster, return_inverse=True)[1]
    c = int(codes.max()) + 1
    batch = Batch(positive, {"scores": score.astype(float)}, None, True)
    metric = Metric(get_spec("roc_auc_score"))
    family, states = _cluster_states(batch, metric, codes, c)
    expected = family.cluster_terms(batch, metric, codes, c)
    found = family.state_cluster_terms(states, metric)
    np.testing.assert_allclose(found.terms, expected.terms, rtol=1e-12, atol=1e-15)
    assert found.smallest == expected.smallest


@pytest.mark.parametrize("labels", [[0, 1], ["cat", "dog", "emu"], [-1, 1, 5, 9]])
def test_counts_built_per_cluster_in_one_pass_equal_each_clusters_own(labels):
    """The counts family's one-pass per-cluster states equal the state of each
    cluster's rows (over the classes those rows hold: some clusters lack a class)."""
    from dartboard.families._base import Family

    rng = np.random.default_rng(2)
    n = 300
    labels = np.array(labels)
    y = labels[rng.integers(0, labels.shape[0], n)]
    p = np.where(rng.random(n) < 0.6, y, labels[rng.integers(0, labels.shape[0], n)])
    codes = rng.integers(0, 40, n)
    members = [np.flatnonzero(codes == c) for c in range(40)]
    metric = Metric(get_spec("accuracy_score"))
    family = family_of(metric.spec)
    batch = Batch(y, {"labels": p})
    fast = family.build_clusters(batch, metric, members)
    slow = Family.build_clusters(family, batch, metric, members)
    assert any(s.classes.shape[0] < labels.shape[0] for s in slow)
    assert fast == slow


@pytest.mark.parametrize("weighted", [False, True])
def test_scores_built_per_cluster_in_one_pass_equal_each_clusters_own(weighted):
    from dartboard.families._base import Family

    rng = np.random.default_rng(3)
    n = 300
    y = rng.integers(0, 2, n)
    score = np.round(rng.random(n), 1)  # ties within and across clusters
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    codes = rng.integers(0, 30, n)
    members = [np.flatnonzero(codes == c) for c in range(30)]
    metric = Metric(get_spec("roc_auc_score"))
    family = family_of(metric.spec)
    batch = Batch(y == 1, {"scores": score}, w, True)
    fast = family.build_clusters(batch, metric, members)
    assert fast == Family.build_clusters(family, batch, metric, members)


@pytest.mark.parametrize("name", ["log_loss", "brier_score_loss", "mean_absolute_error"])
@pytest.mark.parametrize("weighted", [False, True])
def test_mean_losses_built_per_cluster_in_one_pass_equal_each_clusters_own(name, weighted):
    # the terms of all rows at once, summed per cluster: each cluster's sums are those
    # of its own build (log loss over the classes of all rows: a cluster may hold one
    # class); a cluster's state keeps no cells, which nothing clustered reads
    from dartboard.families._base import Family

    rng = np.random.default_rng(4)
    n = 300
    y = rng.integers(0, 2, n)
    score = np.round(np.clip(0.3 * y + 0.7 * rng.random(n), 0.01, 0.99), 2)
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    codes = rng.integers(0, 30, n)
    codes[codes == 3] = 4  # a cluster id with no rows between others
    members = [np.flatnonzero(codes == c) for c in np.unique(codes)]
    members[0] = members[0][y[members[0]] == 1][:3]  # a cluster of one class, rows left out
    metric = Metric(get_spec(name))
    family = family_of(metric.spec)
    regression = name == "mean_absolute_error"
    batch = Batch(y.astype(float) if regression else y, {"values" if regression else
                                                         "probabilities": score}, w,
                  None if regression else 1, None if regression else np.array([0, 1]))
    fast = family.build_clusters(batch, metric, members)
    slow = Family.build_clusters(family, batch, metric, members)
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):  # the sums within rounding; a cluster keeps no cells
        assert a.term is None and b.term is not None
        assert a.weighted == b.weighted and a.sums[3] == b.sums[3]
        np.testing.assert_allclose(a.sums[:3], b.sums[:3], rtol=1e-13, atol=0)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 400), st.integers(1, 40), st.sampled_from(["int", "str"]),
       st.booleans(), st.integers(1, 20), st.integers(0, 2**16))
def test_calibration_built_per_cluster_in_one_pass_equals_each_clusters_own(
        n, n_clusters, labels, single, n_bins, seed):
    """The calibration family's one-pass per-cluster states hold each cluster's own
    build's counts and sums, bit for bit: clusters of one class, scores of 0 and 1
    exactly (the last bin), single-precision scores, string labels."""
    from dartboard.families._base import Family

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    codes = rng.integers(0, n_clusters, n)
    y[codes == 0] = 1  # a cluster of one class
    score = rng.random(n)
    score[rng.random(n) < 0.1] = 1.0
    score[rng.random(n) < 0.1] = 0.0
    score = score.astype(np.float32 if single else np.float64)
    truth = np.where(y == 1, "yes", "no") if labels == "str" else y
    positive = "yes" if labels == "str" else 1
    members = [np.flatnonzero(codes == c) for c in np.unique(codes)]
    metric = Metric(get_spec("calibration_error"), {"pos_label": positive, "n_bins": n_bins})
    family = family_of(metric.spec)
    batch = Batch(truth, {"probabilities": score}, None, positive)
    fast = family.build_clusters(batch, metric, members)
    slow = Family.build_clusters(family, batch, metric, members)
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        assert (a.weighted, a.state.n_bins, a.state.n_groups, a.state.multiclass, a.state.edges) \
            == (b.weighted, b.state.n_bins, b.state.n_groups, b.state.multiclass, b.state.edges)
        for name in ("weight", "sum_p", "sum_p2"):
            np.testing.assert_array_equal(getattr(a.state, name), getattr(b.state, name))
        assert family.value(a, metric) == family.value(b, metric)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3), st.integers(0, 3),
                          st.integers(0, 4)), min_size=1, max_size=50),
       st.booleans())
def test_one_pass_cluster_states_property(rows, weighted):
    """Counts and score cells built for every cluster at once equal each cluster's own
    build (classes missing from clusters, ties; weighted scores: weighted counts are
    built cluster by cluster)."""
    from dartboard.families._base import Family

    cluster, y, p, score = (np.array(v) for v in zip(*rows))
    members = [np.flatnonzero(cluster == c) for c in np.unique(cluster)]
    w = (score + 1.0) if weighted else None
    for name, batch in (("accuracy_score", Batch(y, {"labels": p})),
                        ("roc_auc_score", Batch(y == 1, {"scores": score / 4.0}, w, True))):
        metric = Metric(get_spec(name))
        family = family_of(metric.spec)
        assert family.build_clusters(batch, metric, members) == \
            Family.build_clusters(family, batch, metric, members)


def test_score_cells_merged_at_once_equal_pairwise_merges():
    from dartboard.families._base import Family

    rng = np.random.default_rng(6)
    metric = Metric(get_spec("roc_auc_score"))
    family = family_of(metric.spec)

    def state(n, weighted):
        w = rng.integers(1, 3, n).astype(float) if weighted else None
        return family.build(Batch(rng.random(n) < 0.4, {"scores": np.round(rng.random(n), 1)},
                                  w, True), metric)

    pairs = [(state(n, n % 2 == 0), state(m, False)) for n, m in [(5, 9), (1, 1), (12, 3)]]
    assert family.merge_many(pairs) == Family.merge_many(family, pairs)


@pytest.mark.parametrize("name", ["f1_score", "matthews_corrcoef", "cohen_kappa_score"])
@pytest.mark.parametrize("weighted", [False, True])
def test_row_terms_are_the_delta_terms_of_single_row_clusters(name, weighted):
    """The independent-rows form of ``delta-clustered`` (a design effect's base) from
    the merged counts' groups of alike rows equals the CR2 variance of the terms of
    each row its own cluster, written out row by row."""
    from dartboard._kernels._clustered_analytic import single_rows_se

    rng = np.random.default_rng(8)
    y, p = rng.integers(0, 2, 200), rng.integers(0, 2, 200)
    w = rng.integers(1, 4, 200).astype(float) if weighted else None
    metric = Metric(get_spec(name), {"pos_label": 1} if name == "f1_score" else {})
    family = family_of(metric.spec)
    batch = Batch(y, {"labels": p}, w)
    state = family.build(batch, metric)
    rows = family.cluster_terms(batch, metric, np.arange(200), 200)
    # each row its own cluster: sum_i t_i^2 / (1 - h_i), h_i = w_i / sum w
    h = rows.sizes[:, 0] / rows.sizes[:, 0].sum()
    by_hand = np.sqrt(np.sum(rows.terms[:, 0] ** 2 / (1 - h)))
    assert by_hand == pytest.approx(np.sqrt(rows.variance()), rel=1e-12)
    terms, size = family.row_terms(state, metric)
    assert terms.terms.shape[0] <= 12 and size.sum() == 200  # (cell, weight) groups
    assert single_rows_se(terms, size) == pytest.approx(by_hand, rel=1e-9)


# ------------------------------------------------------------------ bad input

@pytest.fixture
def folder(tmp_path):
    data = _data("labels", n=120, n_clusters=12, seed=9)
    _files(tmp_path, data, n_files=2)
    return tmp_path


@pytest.mark.parametrize("options, error, match", [
    ({"clusters": "nope"}, InputError, r"has no column 'nope' \(given as clusters\)"),
    ({"clusters": 3}, InputTypeError, "clusters must name a column"),
    ({"clusters": "c", "ci": "wilson"}, InputError, "assumes independent rows"),
    ({"clusters": "c", "exact": False}, InputError, "clusters: the clustered intervals come"),
    ({"clusters": "c", "metrics": [lambda t, p: 0.5]}, InputError,
     "<lambda> cannot be computed here: a streamed evaluation keeps the states"),
])
def test_bad_cluster_options(folder, options, error, match):
    with pytest.raises(error, match=match):
        evaluate_parquet(folder, y_true="y", y_pred="p", **options)


def test_missing_cluster_ids_are_refused(tmp_path):
    pq.write_table(pa.table({"y": [0, 1, 1, 0], "p": [0, 1, 0, 0],
                             "c": pa.array([1, None, 2, 2], pa.int64())}),
                   tmp_path / "a.parquet")
    with pytest.raises(InputError, match="clusters: cluster column 'c' holds 1 missing id"):
        evaluate_parquet(tmp_path, y_true="y", y_pred="p", clusters="c")


def test_one_cluster_is_refused(tmp_path):
    pq.write_table(pa.table({"y": [0, 1, 1, 0], "p": [0, 1, 0, 0], "c": ["x"] * 4}),
                   tmp_path / "a.parquet")
    pq.write_table(pa.table({"y": [1, 1], "p": [0, 1], "c": ["x"] * 2}),
                   tmp_path / "b.parquet")
    with pytest.raises(InputError, match="cluster column 'c': holds 1 cluster"):
        evaluate_parquet(tmp_path, y_true="y", y_pred="p", clusters="c")


def test_dask_missing_cluster_column_names_the_argument():
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame({"y": [0, 1, 1, 0], "p": [0, 1, 0, 0]})
    with pytest.raises(InputError, match=r"\['nope'\] \(clusters='nope'\)"):
        db.scale.evaluate_dask(dd.from_pandas(frame, npartitions=2), y_true="y",
                               y_pred="p", clusters="nope")


# ------------------------------------------------------------------ command line

def test_cli_streams_a_directory_with_cluster(tmp_path):
    data = _data("scores", n=360, n_clusters=30, seed=6)
    _files(tmp_path, data, n_files=3)
    base = ["evaluate", str(tmp_path), "--y-true", "y", "--y-score", "s", "--cluster", "c",
            "--n-resamples", "200"]
    out = runner.invoke(app, [*base, "--json"])
    assert out.exit_code == 0, out.output
    rows = {m["metric"]: m for m in json.loads(out.output)["metrics"]}
    expected = evaluate_parquet(tmp_path, y_true="y", y_score="s", clusters="c",
                                n_resamples=200, random_state=0).overall
    for name in ("accuracy", "roc_auc", "log_loss"):
        assert rows[name]["method"] == expected.loc[name, "method"]
        assert rows[name]["low"] == pytest.approx(expected.loc[name, "low"], rel=1e-12)
        assert rows[name]["design_effect"] == pytest.approx(
            expected.loc[name, "design_effect"], rel=1e-12)
    assert rows["roc_auc"]["method"] == "bootstrap-t-clustered (30 clusters)"
    table = runner.invoke(app, base)
    assert table.exit_code == 0, table.output
    assert "design effect" in table.output and "effective n" in table.output


def test_cli_missing_cluster_column_exits_2_with_one_line(tmp_path):
    data = _data("labels", n=60, n_clusters=6, seed=1)
    _files(tmp_path, data, n_files=2)
    out = runner.invoke(app, ["evaluate", str(tmp_path / "*.parquet"), "--y-true", "y",
                              "--y-pred", "p", "--cluster", "nope"])
    assert out.exit_code == 2
    assert "has no column 'nope' (given as clusters)" in out.output
    assert "Traceback" not in out.output and len(out.output.strip().splitlines()) == 1


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 300), st.integers(2, 30), st.booleans(), st.integers(1, 20),
       st.sampled_from(["l1", "l2", "max"]), st.integers(0, 2**16))
def test_calibration_cluster_sums_from_states_equal_the_drawn_rows(
        n, n_clusters, weighted, n_bins, norm, seed):
    """A replicate of whole clusters from the clusters' calibration states (each
    cluster's bin weights and sums of confidences, drawn w_c times) equals the metric
    on the rows of the drawn clusters, each cluster's rows repeated w_c times (brute
    force, the public metric); and the states' matrix, with a group's clusters placed
    among all of them, equals the rows' one-pass matrix."""
    from dartboard.metrics import calibration_error

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    codes = np.sort(rng.integers(0, n_clusters, n))
    y[codes == codes[0]] = 1  # a cluster of one class
    score = rng.random(n)
    score[rng.random(n) < 0.1] = 1.0
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    held = np.unique(codes)
    members = [np.flatnonzero(codes == c) for c in held]
    metric = Metric(get_spec("calibration_error"), {"pos_label": 1, "n_bins": n_bins,
                                                    "norm": norm})
    family = family_of(metric.spec)
    batch = Batch(y, {"probabilities": score}, w, 1)
    states = family.build_clusters(batch, metric, members)
    cells, matrix = family.state_cluster_cells(states, metric, None, None)
    draws = rng.integers(0, 3, size=(6, len(members)))
    draws[0] = 1  # the rows themselves
    got = cells.evaluate(np.asarray(matrix.T @ draws.T).T.astype(np.float64))
    for r, drawn in enumerate(draws):
        rows = np.concatenate([np.repeat(m, k) for m, k in zip(members, drawn)])
        if not rows.size or (w is not None and not w[rows].sum() > 0):
            continue
        expected = calibration_error(y[rows], score[rows], n_bins=n_bins, norm=norm,
                                     sample_weight=None if w is None else w[rows])
        assert got[r] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    # placed among all clusters (a group's rows for the gaps' shared draws)
    at = held
    _, placed = family.state_cluster_cells(states, metric, at, int(codes.max()) + 1)
    _, rows_matrix = family.cluster_cells(batch, metric, codes, int(codes.max()) + 1)
    np.testing.assert_allclose(placed.toarray(), rows_matrix.toarray(), rtol=1e-12,
                               atol=1e-12)
