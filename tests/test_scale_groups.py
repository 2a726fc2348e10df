"""Streamed evaluations with group columns: the Evaluation of ``dartboard.evaluate``.

evaluate_parquet and evaluate_dask keep one set of states per group; the per-group
rows, the gaps and the fairness summaries must equal the in-memory evaluation of the
same rows (estimates to 1e-12; count-metric intervals and gap intervals exactly, since
the same bootstrap runs on the same matrices with the same seed), and fairlearn's
MetricFrame as an independent oracle. Options are refused with the in-memory errors.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sklearn.metrics as skm
from test_evaluate import COUNT_METRICS  # the same oracles as in memory

import dartboard
from dartboard.scale import evaluate_dask, evaluate_parquet

fm = pytest.importorskip("fairlearn.metrics")
dd = pytest.importorskip("dask.dataframe")

ROW = ["estimate", "low", "high"]


def _data(seed, n=1500, n_cols=1):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = np.round(np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1), 3)
    pred = np.where(rng.random(n) < 0.75, y, 1 - y)
    frame = pd.DataFrame({"y": y, "p": pred, "s": score, "w": rng.integers(1, 4, n)})
    for j in range(n_cols):
        frame[f"g{j}"] = rng.choice(["a", "b", "c"][: 2 + (j % 2)], n)
    return frame


def _write(folder, frame, cuts=(0, 400, 401, 1100)):
    """Parquet files at ``cuts`` (an empty file and a one-row file among them)."""
    edges = [0, *cuts, len(frame)]
    for i, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        part = frame.iloc[a:b]
        pq.write_table(pa.Table.from_pandas(part, preserve_index=False),
                       folder / f"part-{i}.parquet")
    return folder


def _streamed(how, folder, frame, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if how == "parquet":
            return evaluate_parquet(folder, batch_size=97, **kw)
        parts = dd.from_pandas(frame, npartitions=4)
        return evaluate_dask(parts, scheduler="synchronous", split_every=2, **kw)


def _same_frame(a, b):
    pd.testing.assert_index_equal(a.index, b.index)
    np.testing.assert_allclose(a[ROW].to_numpy(float), b[ROW].to_numpy(float), atol=1e-12,
                               equal_nan=True)
    assert a["method"].tolist() == b["method"].tolist()


@pytest.mark.parametrize("how", ["parquet", "dask"])
@pytest.mark.parametrize("n_cols", [1, 2])
def test_by_group_and_gaps_equal_the_in_memory_evaluation(tmp_path, how, n_cols):
    frame = _data(n_cols, n_cols=n_cols)
    names = [f"g{j}" for j in range(n_cols)]
    _write(tmp_path, frame)
    ev = _streamed(how, tmp_path, frame, y_true="y", y_pred="p",
                   groups=names[0] if n_cols == 1 else names, random_state=3,
                   n_resamples=300)
    memory = dartboard.evaluate(frame["y"], frame["p"], groups=frame[names], random_state=3,
                                n_resamples=300)
    assert ev.metrics == memory.metrics and ev.result.group_keys == memory.result.group_keys
    _same_frame(ev.overall, memory.overall)
    # per group: the same estimates, the same count intervals (the same bootstrap of
    # the same confusion matrices, same seed), the same n
    _same_frame(ev.by_group, memory.by_group)
    assert ev.by_group["n"].tolist() == memory.by_group["n"].tolist()
    for method in ("between_groups", "to_overall"):
        _same_frame(ev.difference(method), memory.difference(method))
        _same_frame(ev.ratio(method), memory.ratio(method))
        _same_frame(ev.fairness(method), memory.fairness(method))
    # every pair, its simultaneous interval and which group is higher and better
    _same_frame(ev.pairwise(), memory.pairwise())
    assert ev.pairwise()[["higher", "better"]].equals(memory.pairwise()[["higher", "better"]])
    _same_frame(ev.group_min(), memory.group_min())
    assert ev.n_rows == len(frame) and ev.n_files == (5 if how == "parquet" else 4)


@pytest.mark.parametrize("how", ["parquet", "dask"])
@pytest.mark.parametrize("n_cols", [1, 2])
def test_by_group_equals_fairlearn(tmp_path, how, n_cols):
    frame = _data(10 + n_cols, n_cols=n_cols)
    names = [f"g{j}" for j in range(n_cols)]
    _write(tmp_path, frame)
    ev = _streamed(how, tmp_path, frame, y_true="y", y_pred="p", groups=names,
                   metrics=list(COUNT_METRICS), n_resamples=100, random_state=0)
    sensitive = frame[names[0]] if n_cols == 1 else frame[names]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mf = fm.MetricFrame(metrics=COUNT_METRICS, y_true=frame["y"], y_pred=frame["p"],
                            sensitive_features=sensitive)
    theirs = mf.by_group[list(COUNT_METRICS)].dropna(how="all")
    ours = ev.estimates_by_group()
    assert list(ours.index) == list(theirs.index)
    np.testing.assert_allclose(ours.to_numpy(float), theirs.to_numpy(float), atol=1e-12)
    for method in ("between_groups", "to_overall"):
        np.testing.assert_allclose(ev.difference(method)["estimate"],
                                   mf.difference(method)[list(COUNT_METRICS)], atol=1e-12)
        np.testing.assert_allclose(ev.ratio(method)["estimate"],
                                   mf.ratio(method)[list(COUNT_METRICS)], atol=1e-12)
        fair = ev.fairness(method)
        for name in ("demographic_parity_difference", "equalized_odds_difference",
                     "equalized_odds_ratio"):
            assert fair.loc[name, "estimate"] == pytest.approx(
                getattr(fm, name)(frame["y"], frame["p"], sensitive_features=sensitive,
                                  method=method), abs=1e-12)


def test_scores_by_group_and_gaps_equal_in_memory(tmp_path):
    # the streamed score map gives the intervals and the gaps of every score metric,
    # equal to the in-memory ones for the same seed
    frame = _data(4)
    _write(tmp_path, frame)
    metrics = ["roc_auc", "average_precision", "pr_auc", "accuracy"]
    ev = evaluate_parquet(tmp_path, y_true="y", y_score="s", groups="g0",
                          metrics=metrics, random_state=1, n_resamples=200)
    memory = dartboard.evaluate(frame["y"], y_score=frame["s"], groups=frame["g0"],
                                metrics=metrics, random_state=1, n_resamples=200)
    _same_frame(ev.overall, memory.overall)
    _same_frame(ev.by_group, memory.by_group)
    assert (ev.by_group.xs("roc_auc", level="metric")["method"] == "delong").all()
    for method in ("between_groups", "to_overall"):
        _same_frame(ev.difference(method), memory.difference(method))
    assert not ev.difference()[["low", "high"]].isna().any().any()


def test_weighted_groups_equal_the_weighted_in_memory_evaluation(tmp_path):
    # a weight travels with its row: streamed or in memory, the bootstrap resamples rows
    # each keeping its weight (integer weights are not counts of repeated rows)
    frame = _data(5)
    _write(tmp_path, frame)
    ev = evaluate_parquet(tmp_path, y_true="y", y_pred="p", sample_weight="w", groups="g0",
                          metrics=["accuracy", "f1"], random_state=2, n_resamples=200)
    memory = dartboard.evaluate(frame["y"], frame["p"], groups=frame["g0"],
                                sample_weight=frame["w"], metrics=["accuracy", "f1"],
                                random_state=2, n_resamples=200)
    _same_frame(ev.by_group, memory.by_group)
    _same_frame(ev.difference(), memory.difference())


def test_missing_group_values_are_refused_as_in_memory(tmp_path):
    frame = _data(6, n=50)
    groups = frame["g0"].astype(object)
    groups.iloc[7] = None
    frame["g0"] = groups
    _write(tmp_path, frame, cuts=(20,))
    with pytest.raises(ValueError, match="missing value") as memory:
        dartboard.evaluate(frame["y"], frame["p"], groups=frame[["g0"]])
    with pytest.raises(ValueError) as streamed:
        evaluate_parquet(tmp_path, y_true="y", y_pred="p", groups="g0")
    assert str(streamed.value).endswith(str(memory.value))
    assert "part-0.parquet" in str(streamed.value)
    with pytest.raises(ValueError) as dasked:
        evaluate_dask(dd.from_pandas(frame, npartitions=2), y_true="y", y_pred="p",
                      groups="g0", scheduler="synchronous")
    assert str(dasked.value).endswith(str(memory.value))


def test_group_states_are_kept_not_rows(tmp_path):
    # constant memory: what a streamed evaluation holds are small states, one per group,
    # whatever the number of rows; no per-row array survives a batch
    import tracemalloc

    rng = np.random.default_rng(7)
    peaks = []
    for n_files in (1, 6):
        folder = tmp_path / str(n_files)
        folder.mkdir()
        for i in range(n_files):
            n = 100_000
            y = rng.integers(0, 2, n).astype(np.int8)
            pq.write_table(pa.table({"y": y, "p": np.where(rng.random(n) < 0.8, y, 1 - y),
                                     "g": rng.integers(0, 20, n).astype(np.int16)}),
                           folder / f"{i}.parquet")
        tracemalloc.start()
        ev = evaluate_parquet(folder, y_true="y", y_pred="p", groups="g", batch_size=25_000,
                              n_resamples=50, metrics=["accuracy"])
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert ev.n_rows == 100_000 * n_files and len(ev.result.group_keys) == 20
        states = ev.states["groups"]
        assert all(s["counts"].counts.matrix.shape == (2, 2) for s in states.values())
    assert peaks[1] < 1.5 * peaks[0]


# ------------------------------------------------------------------ the same errors

def _errors(tmp_path, frame, memory_call, **kw):
    """The in-memory error, then the streamed and Dask ones for the same misuse."""
    _write(tmp_path, frame, cuts=(10,))
    with pytest.raises((ValueError, TypeError)) as memory:
        memory_call()
    for call in (lambda: evaluate_parquet(tmp_path, **kw),
                 lambda: evaluate_dask(dd.from_pandas(frame, npartitions=2),
                                       scheduler="synchronous", **kw)):
        with pytest.raises(type(memory.value)) as streamed:
            call()
        # the same message, after the file or partition it came from when one did
        assert str(streamed.value).endswith(str(memory.value))
    return memory.value


def test_pos_label_not_a_label_is_the_metrics_error(tmp_path):
    frame = _data(8, n=40)
    err = _errors(tmp_path, frame, lambda: dartboard.metrics.precision_score(
        frame["y"], frame["p"], pos_label=5), y_true="y", y_pred="p", pos_label=5)
    # scikit-learn's words (it prints the labels as a numpy array)
    with pytest.raises(ValueError, match=r"pos_label=5 is not a valid label. It should be "
                                         r"one of \[0,? 1\]"):
        skm.precision_score(frame["y"], frame["p"], pos_label=5)
    # dartboard.evaluate says the same
    for call in (lambda: dartboard.evaluate(frame["y"], frame["p"], pos_label=5),):
        with pytest.raises(ValueError) as other:
            call()
        assert str(other.value) == str(err)


def test_pos_label_on_scores_and_on_regression(tmp_path):
    frame = _data(9, n=40)
    _errors(tmp_path, frame, lambda: dartboard.evaluate(frame["y"], y_score=frame["s"],
                                                        pos_label=7),
            y_true="y", y_score="s", pos_label=7)
    reg = pd.DataFrame({"y": np.linspace(0, 1, 40), "p": np.linspace(0.1, 1.2, 40)})
    _errors(tmp_path, reg, lambda: dartboard.evaluate(reg["y"], reg["p"], pos_label=1),
            y_true="y", y_pred="p", pos_label=1)


def test_pos_label_on_multiclass(tmp_path):
    frame = pd.DataFrame({"y": np.arange(30) % 3, "p": (np.arange(30) + 1) % 3})
    _errors(tmp_path, frame, lambda: dartboard.evaluate(frame["y"], frame["p"], pos_label=1),
            y_true="y", y_pred="p", pos_label=1)


@pytest.mark.parametrize("metric, given", [
    ("f2", {"y_pred": "p"}),                       # not a metric
    ("mean_squared_error", {"y_pred": "p"}),       # another task's metric
    ("roc_auc", {"y_pred": "p"}),                  # needs scores
])
def test_metric_names_are_checked_as_in_memory(tmp_path, metric, given):
    frame = _data(12, n=40)
    _errors(tmp_path, frame, lambda: dartboard.evaluate(frame["y"], frame["p"],
                                                        metrics=[metric]),
            y_true="y", metrics=[metric], **given)


def test_multiclass_labels_with_one_score_column(tmp_path):
    frame = pd.DataFrame({"y": np.arange(30) % 3, "s": np.linspace(0, 1, 30)})
    _errors(tmp_path, frame, lambda: dartboard.evaluate(frame["y"], y_score=frame["s"],
                                                        pos_label=1),
            y_true="y", y_score="s", pos_label=1)


def test_bad_group_arguments(tmp_path):
    frame = _data(13, n=20)
    _write(tmp_path, frame, cuts=())
    with pytest.raises(TypeError, match="groups must name a column"):
        evaluate_parquet(tmp_path, y_true="y", y_pred="p", groups=3)
    with pytest.raises(ValueError, match="group column names must be distinct"):
        evaluate_parquet(tmp_path, y_true="y", y_pred="p", groups=["g0", "g0"])
    with pytest.raises(ValueError, match=r"has no column 'zz' \(given as groups\)"):
        evaluate_parquet(tmp_path, y_true="y", y_pred="p", groups="zz")
    with pytest.raises(TypeError, match="model must be a name"):
        evaluate_parquet(tmp_path, y_true="y", y_pred="p", model=3)


def test_model_name_is_carried(tmp_path):
    frame = _data(14, n=200)
    _write(tmp_path, frame, cuts=(50,))
    ev = evaluate_parquet(tmp_path, y_true="y", y_pred="p", model="lr v2", groups="g0",
                          n_resamples=50)
    assert ev.model == "lr v2" and ev.to_dict()["model"] == "lr v2"
    assert "model 'lr v2'" in repr(ev) and "streamed from 2 Parquet files" in repr(ev)
    assert "lr v2" in ev._repr_html_()
    ev.to_html(tmp_path / "report.html")
    assert "lr v2" in (tmp_path / "report.html").read_text()


def test_fractional_weights_give_the_in_memory_intervals(tmp_path):
    frame = _data(15, n=300)
    frame["wf"] = frame["w"] * 0.5 + 0.25
    _write(tmp_path, frame, cuts=(100,))
    kw = dict(metrics=["accuracy", "recall"], random_state=5, n_resamples=200)
    ev = evaluate_parquet(tmp_path, y_true="y", y_pred="p", sample_weight="wf", groups="g0",
                          **kw)
    memory = dartboard.evaluate(frame["y"], frame["p"], sample_weight=frame["wf"],
                                groups=frame["g0"], **kw)
    a = frame[frame.g0 == "a"]
    assert ev.by_group.loc[("a", "accuracy"), "estimate"] == pytest.approx(
        skm.accuracy_score(a.y, a.p, sample_weight=a.wf), rel=1e-12)
    _same_frame(ev.by_group, memory.by_group)
    assert not ev.by_group["low"].isna().any()
    _same_frame(ev.difference(), memory.difference())
    _same_frame(ev.fairness(), memory.fairness())
