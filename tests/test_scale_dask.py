"""Dask evaluation and the parallel back-ends: same numbers on every scheduler."""

import functools
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from _quiet import quiet
from _streamed import bounds, intervals, values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dartboard import metrics as dm
from dartboard._parallel import parallel_map
from dartboard._rng import spawn as spawn_seeds
from dartboard.scale import cross_validate_grid, evaluate_dask, evaluate_parquet

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

RANKING = ["roc_auc_score", "average_precision_score", "pr_auc_score"]
COUNT = ["accuracy_score", "balanced_accuracy_score", "precision_score", "recall_score",
         "f1_score", "specificity_score", "matthews_corrcoef", "cohen_kappa_score"]
MOMENTS = ["mean_squared_error", "mean_absolute_error", "r2_score", "explained_variance_score",
           "max_error"]
MEDIANS = ["median_absolute_error", "median_absolute_deviation"]


@pytest.fixture(scope="module")
def client():
    """Two single-threaded worker processes: catches anything that does not pickle."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def _identity(frame):
    return frame


def from_parts(frame, cuts):
    """A Dask DataFrame with exactly the given partitions (empty ones included)."""
    edges = [0, *sorted(cuts), len(frame)]
    parts = [frame.iloc[a:b].reset_index(drop=True) for a, b in zip(edges[:-1], edges[1:])]
    return dd.from_map(_identity, parts, meta=frame.iloc[:0])




def write_files(folder, frame, cuts):
    edges = [0, *sorted(cuts), len(frame)]
    for i, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        # numpy columns keep NaN as NaN (from_pandas would turn it into null)
        pq.write_table(pa.table({c: frame[c].to_numpy()[a:b] for c in frame.columns}),
                       folder / f"part-{i:02d}.parquet")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 6)),
                min_size=1, max_size=50),
       st.lists(st.integers(0, 50), max_size=4))
def test_dask_classification_equals_in_memory(rows, cuts):
    frame = pd.DataFrame(rows, columns=["y", "p", "s"])
    frame["s"] = frame["s"] / 6
    cuts = [min(c, len(rows)) for c in cuts]
    result = quiet(evaluate_dask, from_parts(frame, cuts), y_true="y", y_pred="p", y_score="s",
                   metrics=COUNT + RANKING, split_every=2, scheduler="synchronous")
    assert result.n_files == len(cuts) + 1 and result.n_rows == len(rows)
    for name in COUNT + RANKING:
        other = "s" if name in RANKING else "p"
        expected = quiet(getattr(dm, name), frame["y"].to_numpy(), frame[other].to_numpy())
        assert values(result)[name] == expected or (np.isnan(expected)
                                                    and np.isnan(values(result)[name])), name


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.floats(-100, 100), st.floats(-100, 100)), min_size=1,
                max_size=50),
       st.lists(st.integers(0, 50), max_size=4))
def test_dask_regression_equals_in_memory(rows, cuts):
    frame = pd.DataFrame(rows, columns=["y", "p"])
    cuts = [min(c, len(rows)) for c in cuts]
    result = quiet(evaluate_dask, from_parts(frame, cuts), y_true="y", y_pred="p",
                   metrics=MOMENTS + MEDIANS, scheduler="synchronous", task="regression")
    y, p = frame["y"].to_numpy(), frame["p"].to_numpy()
    for name in MOMENTS:
        assert values(result)[name] == pytest.approx(quiet(getattr(dm, name), y, p), rel=1e-9,
                                                     abs=1e-9, nan_ok=True), name
    for name in MEDIANS:  # exact: the errors' cells
        assert values(result)[name] == pytest.approx(getattr(dm, name)(y, p), rel=1e-12,
                                                     abs=1e-12), name


@pytest.fixture(scope="module")
def scored_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scored")
    rng = np.random.default_rng(0)
    n = 6000
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n) + 0.3 * y, 3)
    frame = pd.DataFrame({"y": y, "p": (s > 0.6).astype(int), "s": s.astype(np.float32)})
    write_files(folder, frame, [1000, 1000, 4500])  # one empty file
    return folder, frame


@pytest.mark.parametrize("exact", [True, False])
def test_dask_from_path_equals_streaming(scored_files, exact):
    folder, _ = scored_files
    kw = dict(y_true="y", y_pred="p", y_score="s", exact=exact, n_bins=500,
              confidence_level=0.95, n_resamples=500, random_state=0)
    streamed = evaluate_parquet(folder, **kw)
    dasked = evaluate_dask(str(folder), **kw)
    assert values(dasked) == values(streamed)
    assert bounds(dasked) == bounds(streamed)
    assert dasked.n_files == streamed.n_files == 4
    assert {k: (v.low, v.high) for k, v in intervals(dasked).items()} == \
        {k: (v.low, v.high) for k, v in intervals(streamed).items()}


def test_dask_on_a_process_cluster(client, scored_files):
    folder, frame = scored_files
    streamed = evaluate_parquet(folder, y_true="y", y_pred="p", y_score="s")
    on_cluster = evaluate_dask(str(folder / "*.parquet"), y_true="y", y_pred="p", y_score="s",
                               scheduler=client)
    assert values(on_cluster) == values(streamed)
    assert on_cluster.states["scores"] == streamed.states["scores"]
    # scores reach 1.3: no usual cut into labels, so the ranking metrics only
    binned = evaluate_dask(dd.from_pandas(frame, npartitions=5), y_true="y", y_score="s",
                           exact=False, n_bins=100, scheduler=client,
                           metrics=["roc_auc", "average_precision"])
    assert abs(values(binned)["roc_auc_score"] - values(streamed)["roc_auc_score"]) <= \
        bounds(binned)["roc_auc_score"]


def test_nan_in_a_partition_names_the_file(tmp_path):
    frame = pd.DataFrame({"y": [0, 1, 1, 0], "s": [0.1, 0.4, np.nan, 0.3]})
    write_files(tmp_path, frame, [2])
    with pytest.raises(ValueError, match=r"part-01\.parquet'.*y_score column 's' contains 1 NaN"):
        evaluate_dask(str(tmp_path), y_true="y", y_score="s", scheduler="synchronous")
    with pytest.raises(ValueError, match=r"partition 1: y_score column 's' contains 1 NaN"):
        evaluate_dask(from_parts(frame, [2]), y_true="y", y_score="s", scheduler="synchronous")


def test_dask_bad_input(tmp_path):
    frame = dd.from_pandas(pd.DataFrame({"y": [0, 1], "s": [0.2, 0.4]}), npartitions=1)
    with pytest.raises(ValueError, match=r"no column\(s\) \['score'\]"):
        evaluate_dask(frame, y_true="y", y_score="score")
    with pytest.raises(TypeError, match="ddf_or_path"):
        evaluate_dask(pd.DataFrame({"y": [0]}), y_true="y", y_score="s")
    with pytest.raises(TypeError, match="scheduler"):
        evaluate_dask(frame, y_true="y", y_score="s", scheduler=3)
    with pytest.raises(FileNotFoundError, match="no files match"):
        evaluate_dask(str(tmp_path / "*.parquet"), y_true="y", y_score="s")
    pq.write_table(pa.table({"y": [0, 1]}), tmp_path / "a.parquet")
    with pytest.raises(ValueError, match=r"a\.parquet' has no column 's'"):
        evaluate_dask(str(tmp_path), y_true="y", y_score="s")


def test_missing_dask_gives_a_clear_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)
    with pytest.raises(ImportError, match=r'pip install "\.\[dask\]" in a clone of dartboard'):
        evaluate_dask("anything.parquet", y_true="y", y_score="s")


# ------------------------------------------------------------- parallel back-ends

def _draw(seed, size=4):
    return np.random.default_rng(seed).random(size)


def test_parallel_map_identical_on_sequential_loky_and_dask(client):
    seeds = spawn_seeds(11, 7)
    func = functools.partial(_draw, size=4)
    seq = parallel_map(func, seeds)
    loky = parallel_map(func, seeds, n_jobs=2, backend="loky")
    on_client = parallel_map(func, seeds, backend=client)
    by_name = parallel_map(func, seeds, n_jobs=2, backend="dask")  # the current client
    for a, b, c, d in zip(seq, loky, on_client, by_name):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(a, d)


def test_cross_validate_grid_identical_across_backends(client):
    from sklearn.datasets import load_breast_cancer
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:300], y[:300]
    grid = {"max_depth": [2, None]}
    kw = dict(cv=3, scoring=["accuracy", "roc_auc"], random_state=3)
    est = DecisionTreeClassifier(max_features=0.5)  # random feature draws: seeds matter
    seq = cross_validate_grid(est, grid, X, y, **kw)
    loky = cross_validate_grid(est, grid, X, y, n_jobs=2, backend="loky", **kw)
    dask = cross_validate_grid(est, grid, X, y, backend=client, **kw)
    keys = [k for k in seq if "_test_" in k]
    assert "split2_test_roc_auc" in keys
    for k in keys:
        np.testing.assert_array_equal(seq[k], loky[k])
        np.testing.assert_array_equal(seq[k], dask[k])


def test_stability_audit_identical_across_backends(client):
    from sklearn.datasets import load_breast_cancer
    from sklearn.tree import DecisionTreeClassifier

    from dartboard.stability import stability_audit

    X, y = load_breast_cancer(return_X_y=True)
    args = (DecisionTreeClassifier(max_depth=3), X[:300], y[:300], X[300:400], y[300:400])
    kw = dict(n_estimators=6, random_state=7)
    seq = stability_audit(*args, **kw)
    loky = stability_audit(*args, n_jobs=2, backend="loky", **kw)
    dask = stability_audit(*args, backend=client, **kw)
    np.testing.assert_array_equal(seq.probas, loky.probas)
    np.testing.assert_array_equal(seq.probas, dask.probas)
    assert seq.summary == loky.summary == dask.summary
