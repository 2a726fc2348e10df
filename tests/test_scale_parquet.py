"""Streaming Parquet evaluation equals the in-memory metrics, whatever the split."""

import json
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from _streamed import bounds, intervals, values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dartboard import metrics as dm
from dartboard._delong import delong_auc_covariance
from dartboard._kernels._analytic import delong_variance_grouped
from dartboard.evaluation import Evaluation
from dartboard.metrics import ScoreState
from dartboard.scale import evaluate_parquet

COUNT = ["accuracy_score", "balanced_accuracy_score", "precision_score", "recall_score",
         "f1_score", "specificity_score", "false_positive_rate", "false_negative_rate",
         "selection_rate", "matthews_corrcoef", "cohen_kappa_score"]
RANKING = ["roc_auc_score", "average_precision_score", "pr_auc_score"]
MOMENTS = ["mean_squared_error", "root_mean_squared_error", "mean_absolute_error",
           "r2_score", "explained_variance_score", "max_error"]
MEDIANS = ["median_absolute_error", "median_absolute_deviation"]


def write_parts(folder, columns, cuts):
    """Write ``columns`` split at ``cuts`` into one Parquet file per part (empty ones too)."""
    edges = [0, *sorted(cuts), len(next(iter(columns.values())))]
    for i, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        table = pa.table({k: v[a:b] for k, v in columns.items()})
        pq.write_table(table, os.path.join(folder, f"part-{i:03d}.parquet"))
    return len(edges) - 1


def in_memory(y, pred=None, score=None, w=None):
    out = {}
    if pred is not None:
        for name in COUNT:
            kw = {} if name in ("accuracy_score", "balanced_accuracy_score", "matthews_corrcoef",
                                "cohen_kappa_score") else {"zero_division": "warn"}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[name] = getattr(dm, name)(y, pred, sample_weight=w, **kw)
    if score is not None:
        for name in RANKING:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[name] = getattr(dm, name)(y, score, sample_weight=w)
    return out


def stream(folder, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_parquet(folder, **kw)


classification_rows = st.lists(
    st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 8)), min_size=1, max_size=60)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(classification_rows, st.lists(st.integers(0, 60), max_size=5), st.integers(1, 7))
def test_streamed_classification_equals_in_memory(rows, cuts, batch_size):
    y = np.array([r[0] for r in rows])
    pred = np.array([r[1] for r in rows])
    score = np.array([r[2] for r in rows], dtype=np.float32) / 8  # ties on purpose
    cuts = [min(c, len(rows)) for c in cuts]  # duplicated cuts give empty files
    with tempfile.TemporaryDirectory() as folder:
        n_files = write_parts(folder, {"y": y, "pred": pred, "score": score}, cuts)
        result = stream(folder, y_true="y", y_pred="pred", y_score="score",
                        metrics=COUNT + RANKING, batch_size=batch_size)
    expected = in_memory(y, pred, score.astype(np.float64))
    assert result.n_rows == len(rows) and result.n_files == n_files
    for name, value in expected.items():
        assert values(result)[name] == value or (np.isnan(value) and
                                                 np.isnan(values(result)[name])), name


regression_rows = st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)),
                           min_size=1, max_size=60)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(regression_rows, st.lists(st.integers(0, 60), max_size=5), st.integers(1, 7))
def test_streamed_regression_equals_in_memory(rows, cuts, batch_size):
    y = np.array([r[0] for r in rows])
    pred = np.array([r[1] for r in rows])
    cuts = [min(c, len(rows)) for c in cuts]
    with tempfile.TemporaryDirectory() as folder:
        write_parts(folder, {"y": y, "pred": pred}, cuts)
        # whole numbers may be drawn: task="auto" would refuse to guess then
        result = stream(folder, y_true="y", y_pred="pred", metrics=MOMENTS + MEDIANS,
                        batch_size=batch_size, relative_accuracy=1e-3, task="regression")
    assert result.task == "regression"
    for name in MOMENTS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = getattr(dm, name)(y, pred)
        assert values(result)[name] == pytest.approx(expected, rel=1e-9, abs=1e-9, nan_ok=True), \
            name
    for name in MEDIANS:  # exact: the errors' cells (a sketch only past MAX_CELLS)
        expected = getattr(dm, name)(y, pred)
        assert values(result)[name] == pytest.approx(expected, rel=1e-12, abs=1e-12), name
    assert bounds(result) == {}


def test_single_class_and_empty_files(tmp_path):
    y = np.array([1, 1, 1, 0, 0, 0, 0, 1])
    pred = np.array([1, 0, 1, 0, 1, 0, 0, 1])
    score = np.array([0.9, 0.2, 0.8, 0.1, 0.7, 0.2, 0.3, 0.6])
    # file 0: positives only, file 1: empty, file 2: negatives only, file 3: the rest
    write_parts(tmp_path, {"y": y, "pred": pred, "score": score}, [3, 3, 7])
    result = stream(tmp_path, y_true="y", y_pred="pred", y_score="score",
                    metrics=COUNT + RANKING)
    for name, value in in_memory(y, pred, score).items():
        assert values(result)[name] == value, name
    assert result.n_files == 4


def test_weights_and_string_labels(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.choice(np.array(["cat", "dog", "eel"]), 300)
    pred = np.where(rng.random(300) < 0.7, y, "dog")
    w = rng.integers(1, 4, 300)
    write_parts(tmp_path, {"y": y, "pred": pred, "w": w}, [100, 250])
    result = stream(tmp_path, y_true="y", y_pred="pred", sample_weight="w")
    assert values(result)["f1_score"] == dm.f1_score(y, pred, average="macro", sample_weight=w)
    assert values(result)["accuracy_score"] == dm.accuracy_score(y, pred, sample_weight=w)
    assert result.states["counts"].counts == dm.ConfusionCounts.from_predictions(
        y, pred, sample_weight=w)


@pytest.mark.parametrize("labels", [("cat", "dog"), (1, 2)])
def test_two_labels_other_than_0_1_are_binary_with_pos_label(tmp_path, labels):
    rng = np.random.default_rng(2)
    y = np.array(labels)[rng.integers(0, 2, 300)]
    pred = np.where(rng.random(300) < 0.8, y, np.array(labels)[rng.integers(0, 2, 300)])
    write_parts(tmp_path, {"y": y, "pred": pred}, [100, 200])
    with pytest.raises(ValueError, match="pos_label="):  # not guessed, as in memory
        stream(tmp_path, y_true="y", y_pred="pred")
    result = stream(tmp_path, y_true="y", y_pred="pred", pos_label=labels[1])
    for name in ("precision_score", "recall_score", "f1_score"):
        expected = getattr(dm, name)(y, pred, pos_label=labels[1])
        assert values(result)[name] == expected, name
    result = stream(tmp_path, y_true="y", y_pred="pred", pos_label=labels[0])
    assert values(result)["f1_score"] == dm.f1_score(y, pred, pos_label=labels[0])


def test_weighted_scores_and_regression(tmp_path):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 500)
    score = (rng.random(500) + 0.2 * y) / 1.2
    w = rng.random(500)
    target = rng.normal(size=500)
    pred = target + rng.normal(size=500)
    write_parts(tmp_path, {"y": y, "score": score, "w": w, "t": target, "p": pred}, [123, 400])
    result = stream(tmp_path, y_true="y", y_score="score", sample_weight="w")
    # float weights are summed in another order than in one pass: equal to rounding
    for name in ("roc_auc_score", "average_precision_score"):
        assert values(result)[name] == pytest.approx(
            getattr(dm, name)(y, score, sample_weight=w), rel=1e-12)
    reg = stream(tmp_path, y_true="t", y_pred="p", sample_weight="w")
    # a weighted evaluation leaves out max_error (it takes no weights), as in memory
    assert "max_error" not in values(reg)
    for name in MOMENTS + MEDIANS:
        if name != "max_error":
            assert values(reg)[name] == pytest.approx(
                getattr(dm, name)(target, pred, sample_weight=w), rel=1e-9), name


def test_binned_mode_is_within_its_bound(tmp_path):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 20_000)
    score = ((rng.random(20_000) + 0.3 * y) / 1.3).astype(np.float32)
    write_parts(tmp_path, {"y": y, "score": score}, [5000, 13000])
    exact = stream(tmp_path, y_true="y", y_score="score")
    for n_bins in (50, 5000):
        binned = stream(tmp_path, y_true="y", y_score="score", exact=False, n_bins=n_bins)
        assert binned.result.streamed.mode == "binned" and exact.result.streamed.mode == "exact"
        assert set(bounds(binned)) == {"roc_auc_score", "average_precision_score"}
        for name, bound in bounds(binned).items():
            assert abs(values(binned)[name] - values(exact)[name]) <= bound
    assert bounds(binned)["roc_auc_score"] < 1e-3
    # the range came from the Parquet statistics: the scores' own min and max
    (state,) = binned.states["scores"].states
    assert (state.low, state.high) == (float(score.min()), float(score.max()))


def test_binned_mode_without_statistics_reads_the_range(tmp_path):
    y = np.array([0, 1, 0, 1])
    score = np.array([0.2, 0.8, 0.4, 0.6])
    pq.write_table(pa.table({"y": y, "score": score}), tmp_path / "a.parquet",
                   write_statistics=False)
    result = stream(tmp_path, y_true="y", y_score="score", exact=False, n_bins=10)
    (state,) = result.states["scores"].states
    assert (state.low, state.high) == (0.2, 0.8)
    assert values(result)["roc_auc_score"] == 1.0


def test_results_do_not_depend_on_batch_size_or_file_layout(tmp_path):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 3000)
    score = np.round(rng.random(3000), 3)
    (tmp_path / "one").mkdir()
    (tmp_path / "many").mkdir()
    write_parts(tmp_path / "one", {"y": y, "score": score}, [])
    write_parts(tmp_path / "many", {"y": y, "score": score}, [1, 100, 1000, 2999])
    a = stream(tmp_path / "one", y_true="y", y_score="score", metrics=RANKING)
    b = stream(tmp_path / "many", y_true="y", y_score="score", metrics=RANKING, batch_size=77)
    assert values(a) == values(b)
    assert a.states["scores"] == b.states["scores"]


def test_states_can_be_merged_later(tmp_path):
    rng = np.random.default_rng(4)
    y, pred = rng.integers(0, 3, 400), rng.integers(0, 3, 400)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write_parts(tmp_path / "a", {"y": y[:150], "p": pred[:150]}, [])
    write_parts(tmp_path / "b", {"y": y[150:], "p": pred[150:]}, [])
    a = stream(tmp_path / "a", y_true="y", y_pred="p")
    b = stream(tmp_path / "b", y_true="y", y_pred="p")
    merged = a.states["counts"].merge(b.states["counts"])
    assert merged.compute("f1_score", average="macro") == dm.f1_score(y, pred, average="macro")


def test_file_glob_and_list_inputs(tmp_path):
    y = np.array([0, 1, 1, 0])
    pred = np.array([0, 1, 0, 0])
    write_parts(tmp_path, {"y": y, "p": pred}, [2])
    files = sorted(str(p) for p in tmp_path.glob("*.parquet"))
    by_glob = stream(str(tmp_path / "*.parquet"), y_true="y", y_pred="p")
    by_list = stream(files, y_true="y", y_pred="p")
    by_file = stream(files[0], y_true="y", y_pred="p")
    assert values(by_glob) == values(by_list)
    assert by_glob.n_files == 2 and by_file.n_files == 1 and by_file.n_rows == 2
    recursive = stream(str(tmp_path / "**" / "*.parquet"), y_true="y", y_pred="p")
    assert recursive.n_rows == 4


def test_result_table_dict_and_intervals(tmp_path):
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 400)
    score = np.round(rng.random(400) + 0.3 * y, 2)
    pred = (score > 0.6).astype(int)
    write_parts(tmp_path, {"y": y, "p": pred, "s": score}, [200])
    result = evaluate_parquet(tmp_path, y_true="y", y_pred="p", y_score="s",
                              confidence_level=0.9, progress=True)
    assert isinstance(result, Evaluation)
    table = result.overall
    assert list(table.columns) == ["estimate", "low", "high", "method", "n"]
    assert table.index.tolist() == result.metrics
    payload = json.loads(result.to_json())
    assert "states" not in payload and payload["n"] == 400
    # the stream reports every metric the in-memory evaluation of these columns does
    assert payload["streamed"] == {"source": "parquet", "n_rows": 400, "n_files": 2,
                                   "mode": "exact", "unit": "Parquet file", "left_out": []}
    binned = json.loads(evaluate_parquet(tmp_path, y_true="y", y_pred="p", y_score="s",
                                         exact=False, n_bins=50).to_json())["streamed"]
    assert binned["left_out"] == [{"metric": m, "why": "has no error bound in binned mode: "
                                   "give exact=True"} for m in ("pr_auc",)]
    # Wilson interval of accuracy: statsmodels is the reference
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(int((y == pred).sum()), 400, alpha=0.1, method="wilson")
    acc = intervals(result)["accuracy_score"]
    assert (acc.low, acc.high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
    tp, fp = int(((y == 1) & (pred == 1)).sum()), int(((y == 0) & (pred == 1)).sum())
    low, high = proportion_confint(tp, tp + fp, alpha=0.1, method="wilson")
    assert intervals(result)["precision_score"].low == pytest.approx(low, abs=1e-12)
    auc = intervals(result)["roc_auc_score"]
    assert auc.method == "delong" and auc.low < values(result)["roc_auc_score"] < auc.high


def test_delong_variance_from_score_map_equals_midrank_algorithm():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 700)
    s = np.round(rng.random(700) + 0.2 * y, 2)
    parts = [ScoreState.from_scores(y[a:b], s[a:b]) for a, b in ((0, 300), (300, 700))]
    _, cov = delong_auc_covariance(y, s[None, :])
    merged = parts[0].merge(parts[1])
    _, variance = delong_variance_grouped(merged.pos, merged.neg)
    assert variance == pytest.approx(cov[0, 0], rel=1e-12)


# ------------------------------------------------------------------- intervals

def _interval_data(tmp_path, n=900, seed=13, k=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    score = np.round(rng.random(n) + 0.3 * (y == 1), 2)
    pred = np.where(rng.random(n) < 0.7, y, rng.integers(0, k, n))
    write_parts(tmp_path, {"y": y, "p": pred, "s": score}, [100, 100, 550])  # one empty file
    return y, pred, score


_UNAVERAGED = ("accuracy_score", "balanced_accuracy_score", "matthews_corrcoef",
               "cohen_kappa_score", "roc_auc_score")


def _in_memory_interval(name, y, other, **kw):
    from dartboard import interval

    averaged = name not in _UNAVERAGED
    binary = np.unique(y).shape[0] <= 2
    if averaged:
        kw.update({"average": "binary", "pos_label": 1} if binary else {"average": "macro"})
    return interval(getattr(dm, name), y, other, **kw)


def _identical(a, b):
    """``a``: a streamed evaluation's row, or an Interval; ``b``: the in-memory Interval.
    A row is the interval of the merged state (the function the row came from), which
    must equal ``b`` to the bootstrap distribution."""
    if not hasattr(a, "bootstrap_distribution"):
        assert (a.estimate, a.low, a.high, a.method) == (b.estimate, b.low, b.high, b.method)
        return
    da, db = a.to_dict(), b.to_dict()
    dist_a, dist_b = da.pop("bootstrap_distribution"), db.pop("bootstrap_distribution")
    assert da == db
    assert (dist_a is None) == (dist_b is None)
    if dist_a is not None:
        assert np.array_equal(a.bootstrap_distribution, b.bootstrap_distribution)


@pytest.mark.parametrize("ci", ["auto", "wilson", "clopper-pearson", "percentile", "basic",
                                "bca"])
def test_streamed_count_intervals_equal_interval_in_memory(tmp_path, ci):
    """Same engine, same seed: the very same interval (bootstrap distribution too)."""
    y, pred, _ = _interval_data(tmp_path)
    result = stream(tmp_path, y_true="y", y_pred="p", metrics=COUNT, confidence_level=0.9,
                    ci=ci, n_resamples=300, random_state=4, batch_size=64)
    from dartboard.uncertainty import interval_from_counts

    proportions = {"accuracy_score", "precision_score", "recall_score", "specificity_score",
                   "false_positive_rate", "false_negative_rate", "selection_rate"}
    # a proportion method applies to the proportions; the others keep their default, as
    # dartboard.evaluate(ci=...) has it
    assert set(intervals(result)) == set(COUNT)
    for name, got in intervals(result).items():
        method = ci if ci not in ("wilson", "clopper-pearson") \
            or name in proportions else "auto"
        kw = dict(method=method, confidence_level=0.9, n_resamples=300, random_state=4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = _in_memory_interval(name, y, pred, **kw)
            from_state = interval_from_counts(name, result.states["counts"].counts, **{
                **kw, **({} if name in _UNAVERAGED else {"pos_label": 1})})
        _identical(got, want)
        _identical(from_state, want)
        assert got.estimate == values(result)[name]
    if ci == "auto":
        assert intervals(result)["accuracy_score"].method == "wilson"
        assert intervals(result)["f1_score"].method == "bca"


def test_streamed_multiclass_count_intervals(tmp_path):
    y, pred, _ = _interval_data(tmp_path, k=3, seed=14)
    result = stream(tmp_path, y_true="y", y_pred="p", task="multiclass",
                    metrics=["accuracy_score", "f1_score", "cohen_kappa_score"],
                    confidence_level=0.95, n_resamples=200, random_state=1)
    assert intervals(result)["accuracy_score"].method == "wilson"
    for name, got in intervals(result).items():
        _identical(got, _in_memory_interval(name, y, pred, n_resamples=200, random_state=1))


@pytest.mark.parametrize("ci", ["auto", "delong", "percentile", "bca"])
def test_streamed_auc_interval_equals_interval_in_memory(tmp_path, ci):
    # the same cells, the same draws: the in-memory interval to the last bit
    y, _, score = _interval_data(tmp_path)
    result = stream(tmp_path, y_true="y", y_score="s", metrics=["roc_auc_score"],
                    confidence_level=0.95, ci=ci, n_resamples=2000, random_state=3)
    row = intervals(result)["roc_auc_score"]
    want = _in_memory_interval("roc_auc_score", y, score, method=ci, n_resamples=2000,
                               random_state=3)
    assert (row.estimate, row.method) == (want.estimate, want.method)
    assert (row.low, row.high) == pytest.approx((want.low, want.high), rel=1e-12)


def test_streamed_interval_options_select_metrics(tmp_path):
    _interval_data(tmp_path)
    kw = dict(y_true="y", y_pred="p", y_score="s", confidence_level=0.95, n_resamples=100,
              random_state=0)
    # a method applies where it applies; the other metrics keep their default, as in
    # memory (dartboard.evaluate's ci)
    from dartboard import evaluate

    y, pred, score = _interval_data(tmp_path)
    for ci in ("wilson", "delong"):
        got = stream(tmp_path, ci=ci, **kw)
        memory = evaluate(y, y_pred=pred, y_score=score, ci=ci, n_resamples=100,
                          random_state=0)
        for label in ("recall", "f1", "roc_auc"):
            assert got.overall.loc[label, "method"] == memory.overall.loc[label, "method"]
    assert intervals(stream(tmp_path, ci="wilson", **kw))["recall_score"].method == \
        "wilson"
    full = stream(tmp_path, **kw)  # every metric has its interval, as in memory
    assert set(intervals(full)) == set(values(full))
    assert full.overall.loc["average_precision", "method"] == "influence-logit"
    # binned scores keep no score map: no AUC interval
    binned = stream(tmp_path, exact=False, n_bins=50, **kw)
    assert "roc_auc_score" not in intervals(binned) and "f1_score" in intervals(binned)
    # without confidence_level, no interval at all
    bare = stream(tmp_path, y_true="y", y_pred="p", confidence_level=None)
    assert intervals(bare) == {} and "no intervals" in repr(bare)


def test_streamed_intervals_with_weights(tmp_path):
    rng = np.random.default_rng(15)
    y = rng.integers(0, 2, 300)
    pred = np.where(rng.random(300) < 0.8, y, 1 - y)
    w = rng.integers(0, 4, 300)
    write_parts(tmp_path, {"y": y, "p": pred, "w": w, "wf": w * 0.5 + 0.25}, [120])
    result = stream(tmp_path, y_true="y", y_pred="p", sample_weight="w",
                    metrics=["accuracy_score", "f1_score"], confidence_level=0.95,
                    n_resamples=200, random_state=5)
    # a row keeps its weight when resampled, streamed or in memory (integer weights are
    # not counts of repeated rows)
    for name, got in intervals(result).items():
        _identical(got, _in_memory_interval(name, y, pred, n_resamples=200, random_state=5,
                                            sample_weight=w))
    fractional = evaluate_parquet(tmp_path, y_true="y", y_pred="p", sample_weight="wf",
                                  metrics=["accuracy_score", "f1_score"],
                                  confidence_level=0.95, n_resamples=200, random_state=5)
    for name, got in intervals(fractional).items():
        _identical(got, _in_memory_interval(name, y, pred, n_resamples=200, random_state=5,
                                            sample_weight=w * 0.5 + 0.25))


def test_streamed_interval_undefined_metric_warns(tmp_path):
    # no predicted positive: precision 0/0; its Wilson interval is [0, 1] with a warning,
    # and a bootstrap of it has no defined replicate: a warning and no interval
    write_parts(tmp_path, {"y": np.array([0, 1, 1, 0]), "p": np.array([0, 0, 0, 0])}, [])
    from dartboard.uncertainty import IntervalWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dm.UndefinedMetricWarning)
        with pytest.warns(IntervalWarning, match="denominator is 0"):
            result = evaluate_parquet(tmp_path, y_true="y", y_pred="p",
                                      metrics=["precision_score"], confidence_level=0.95)
    assert (intervals(result)["precision_score"].low,
            intervals(result)["precision_score"].high) == (0.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dm.UndefinedMetricWarning)
        with pytest.warns(IntervalWarning, match="no interval for precision_score"):
            result = evaluate_parquet(tmp_path, y_true="y", y_pred="p",
                                      metrics=["precision_score"], confidence_level=0.95,
                                      ci="bca", n_resamples=50, random_state=0)
    assert intervals(result) == {}


# ------------------------------------------------------------------- bad input

@pytest.fixture
def good_folder(tmp_path):
    write_parts(tmp_path, {"y": np.array([0, 1, 1]), "s": np.array([0.1, 0.5, 0.9])}, [])
    return tmp_path


def test_no_files_matching_the_pattern(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no files match the pattern .*nothing-\*"):
        evaluate_parquet(str(tmp_path / "nothing-*.parquet"), y_true="y", y_score="s")
    with pytest.raises(FileNotFoundError, match="no Parquet files"):
        evaluate_parquet(tmp_path, y_true="y", y_score="s")
    with pytest.raises(FileNotFoundError, match="no such file"):
        evaluate_parquet(tmp_path / "missing.parquet", y_true="y", y_score="s")


def test_missing_column_names_the_file(good_folder):
    pq.write_table(pa.table({"y": [1, 0], "score": [0.2, 0.3]}), good_folder / "z.parquet")
    with pytest.raises(ValueError, match=r"z\.parquet' has no column 's' \(given as y_score\)"):
        evaluate_parquet(good_folder, y_true="y", y_score="s")


def test_different_schema_names_the_file(good_folder):
    pq.write_table(pa.table({"y": ["a", "b"], "s": [0.2, 0.3]}), good_folder / "z.parquet")
    with pytest.raises(TypeError, match=r"z\.parquet'.*column 'y' holds strings"):
        evaluate_parquet(good_folder, y_true="y", y_score="s")


def test_non_numeric_score_names_the_file(good_folder):
    pq.write_table(pa.table({"y": [1, 0], "s": ["0.2", "0.3"]}), good_folder / "z.parquet")
    with pytest.raises(TypeError, match=r"z\.parquet': y_score column 's' must be numeric"):
        evaluate_parquet(good_folder, y_true="y", y_score="s")


def test_nan_scores_name_the_file(good_folder):
    pq.write_table(pa.table({"y": [1, 0], "s": [0.2, np.nan]}), good_folder / "z.parquet")
    with pytest.raises(ValueError, match=r"z\.parquet'.*y_score column 's' contains 1 NaN"):
        evaluate_parquet(good_folder, y_true="y", y_score="s")


def test_null_labels_name_the_file(good_folder):
    pq.write_table(pa.table({"y": pa.array([1, None]), "s": [0.2, 0.3]}),
                   good_folder / "z.parquet")
    with pytest.raises(ValueError, match=r"z\.parquet'.*y_true column 'y' contains 1 missing"):
        evaluate_parquet(good_folder, y_true="y", y_score="s")


def test_not_a_parquet_file(good_folder):
    (good_folder / "z.parquet").write_text("not parquet")
    with pytest.raises(ValueError, match=r"z\.parquet"):
        evaluate_parquet(good_folder, y_true="y", y_score="s")


def test_labels_outside_binary_are_refused_as_in_memory(good_folder):
    # three classes and one score column, whichever file holds the third: the in-memory
    # error (the stream used to take label 2 for a negative)
    pq.write_table(pa.table({"y": [2, 0], "s": [0.2, 0.3]}), good_folder / "z.parquet")
    from dartboard import evaluate

    y, s = [0, 1, 1, 2, 0], [0.1, 0.5, 0.9, 0.2, 0.3]
    with pytest.raises(ValueError, match="y_score needs binary y_true; y_true has 3") \
            as memory:
        evaluate(y, y_score=s, pos_label=1)
    with pytest.raises(ValueError) as streamed:
        evaluate_parquet(good_folder, y_true="y", y_score="s", pos_label=1)
    assert str(streamed.value).endswith(str(memory.value))
    # without pos_label the stream knows the smallest and largest label before reading
    # the rows: 0 and 2 name no positive class, and it says so first
    with pytest.raises(ValueError, match=r"labels are \[0, 2\]: which one is the positive"):
        evaluate_parquet(good_folder, y_true="y", y_score="s")


def test_predicted_labels_beyond_the_two_classes_of_scores_are_refused_as_in_memory(tmp_path):
    # found by the long fuzz profile: y_pred holding a third label beside y_score gave
    # the count metrics undefined, where memory refuses a binary task of three labels
    y, p, s = np.array([0, 1, 1, 0]), np.array([2, 1, 1, 0]), np.array([0.4, 0.6, 0.8, 0.1])
    write_parts(tmp_path, {"y": y, "p": p, "s": s}, [2])
    from dartboard import evaluate

    with pytest.raises(ValueError, match="task='binary' needs two classes; got 3") as memory:
        evaluate(y, p, y_score=s)
    with pytest.raises(ValueError) as streamed:
        evaluate_parquet(tmp_path, y_true="y", y_pred="p", y_score="s")
    assert str(streamed.value).endswith(str(memory.value))


def test_labels_other_than_0_and_1_need_pos_label_as_in_memory(tmp_path):
    rng = np.random.default_rng(16)
    y = rng.choice([3, 7], 200)
    # scores around 0, where labels are derived (positive and negative rows both)
    s = np.round(rng.random(200) - 0.5 + 0.3 * (y == 7), 2)
    write_parts(tmp_path, {"y": y, "s": s}, [50, 150])
    from dartboard import evaluate

    with pytest.raises(ValueError, match="which one is the positive class") as memory:
        evaluate(y, y_score=s)
    with pytest.raises(ValueError) as streamed:
        stream(tmp_path, y_true="y", y_score="s")
    assert str(streamed.value) == str(memory.value)
    got = stream(tmp_path, y_true="y", y_score="s", pos_label=7, random_state=0,
                 n_resamples=100)
    memory = evaluate(y, y_score=s, pos_label=7, random_state=0, n_resamples=100)
    pd.testing.assert_frame_equal(got.overall, memory.overall, rtol=1e-12)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"y_true": "y"}, TypeError, "y_pred .* and/or y_score"),
    ({"y_true": 3, "y_score": "s"}, TypeError, "y_true must name a column"),
    ({"y_true": "y", "y_score": "s", "batch_size": 0}, ValueError, "batch_size"),
    ({"y_true": "y", "y_score": "s", "task": "ranking"}, ValueError, "task"),
    ({"y_true": "y", "y_score": "s", "metrics": ["mean_squared_error"]}, ValueError,
     "mean_squared_error is a regression metric"),
    ({"y_true": "y", "y_pred": "y", "metrics": ["log_loss"]}, ValueError,
     r"log_loss needs probabilities \(y_proba"),
    ({"y_true": "y", "y_pred": "y", "metrics": ["fbeta_score"]}, ValueError,
     "fbeta_score needs beta"),
    ({"y_true": "y", "y_score": "s", "metrics": ["f2"]}, ValueError,
     "unknown metric 'f2' in metrics"),
    ({"y_true": "y", "y_score": "s", "exact": False, "metrics": ["pr_auc_score"]}, ValueError,
     "no error bound in binned mode"),
    ({"y_true": "y", "y_score": "s", "n_bins": 1}, ValueError, "n_bins"),
    ({"y_true": "y", "y_score": "s", "score_range": (1, 0)}, ValueError, "score_range"),
    ({"y_true": "y", "y_score": "s", "confidence_level": 2}, ValueError, "confidence_level"),
    ({"y_true": "y", "y_score": "s", "progress": "yes"}, TypeError, "progress"),
    ({"y_true": "y", "y_score": "s", "ci": "normal"}, ValueError, "ci must be one of"),
    ({"y_true": "y", "y_score": "s", "n_resamples": 0}, ValueError, "n_resamples"),
    ({"y_true": "y", "y_score": "s", "random_state": "seed"}, TypeError, "random_state"),
])
def test_bad_arguments(good_folder, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        evaluate_parquet(good_folder, **kwargs)


def test_bad_path_type():
    with pytest.raises(TypeError, match="path_or_glob"):
        evaluate_parquet(42, y_true="y", y_score="s")


def test_importing_scale_loads_neither_dask_nor_pyarrow_dataset():
    code = ("import sys, dartboard.scale as s; s.evaluate_parquet; s.BinnedScoreState; "
            "print('dask' in sys.modules, 'distributed' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["False", "False"]


# ------------------------------------------------------------------- probabilities

@pytest.mark.parametrize("k", [2, 3])
def test_proba_columns_equal_in_memory(tmp_path, k):
    rng = np.random.default_rng(10 + k)
    y = rng.integers(0, k, 900)
    logits = rng.normal(size=(900, k))
    logits[np.arange(900), y] += 1.0
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    labels = np.array(["a", "b", "c"][:k])
    columns = {"y": labels[y], **{f"p_{c}": proba[:, i] for i, c in enumerate(labels)}}
    write_parts(tmp_path, columns, [0, 300, 301])
    # multiclass AP and Brier are not among the multiclass defaults: ask for them
    result = stream(tmp_path, y_true="y", y_proba={c: f"p_{c}" for c in labels},
                    metrics=["accuracy_score", "f1_score", "log_loss", "roc_auc_score",
                             "average_precision_score", "brier_score_loss"])
    default = stream(tmp_path, y_true="y", y_proba={c: f"p_{c}" for c in labels})
    assert {n: v for n, v in values(default).items() if n in values(result)} == \
        {n: v for n, v in values(result).items() if n in values(default)}
    pred = labels[proba.argmax(axis=1)]
    average = {"average": "binary", "pos_label": "b"} if k == 2 else {"average": "macro"}
    assert values(result)["accuracy_score"] == dm.accuracy_score(labels[y], pred)
    assert values(result)["f1_score"] == dm.f1_score(labels[y], pred, **average)
    assert values(result)["log_loss"] == pytest.approx(dm.log_loss(y, proba), rel=1e-12)
    # sklearn as the oracle for the one-vs-rest macro AUC and AP
    from sklearn.metrics import average_precision_score, brier_score_loss, roc_auc_score

    if k == 2:
        auc, ap = roc_auc_score(y, proba[:, 1]), average_precision_score(y, proba[:, 1])
        brier = brier_score_loss(y, proba[:, 1])
    else:
        auc = roc_auc_score(y, proba, multi_class="ovr")
        ap = average_precision_score(np.eye(k)[y], proba, average="macro")
        brier = brier_score_loss(y, proba)
    assert values(result)["roc_auc_score"] == pytest.approx(auc, rel=1e-12)
    assert values(result)["average_precision_score"] == pytest.approx(ap, rel=1e-12)
    assert values(result)["brier_score_loss"] == pytest.approx(brier, rel=1e-12)
    binned = stream(tmp_path, y_true="y", y_proba={c: f"p_{c}" for c in labels}, exact=False,
                    n_bins=200, metrics=["roc_auc_score", "average_precision_score"])
    assert abs(values(binned)["roc_auc_score"] - auc) <= bounds(binned)["roc_auc_score"]
    assert abs(values(binned)["average_precision_score"] - ap) <= \
        bounds(binned)["average_precision_score"]


def test_proba_bad_input(tmp_path):
    write_parts(tmp_path, {"y": np.array([0, 1, 2]), "p0": np.array([0.2, 0.5, 0.1]),
                           "p1": np.array([0.8, 0.5, 0.9])}, [])
    with pytest.raises(ValueError, match=r"part-000\.parquet'.*labels \[2\] that have no col"):
        evaluate_parquet(tmp_path, y_true="y", y_proba=["p0", "p1"])
    with pytest.raises(TypeError, match="either y_proba or y_score"):
        evaluate_parquet(tmp_path, y_true="y", y_proba=["p0", "p1"], y_score="p1")
    with pytest.raises(ValueError, match="pos_label is not used"):
        evaluate_parquet(tmp_path, y_true="y", y_proba=["p0", "p1"], pos_label=1)
    with pytest.raises(ValueError, match="at least 2"):
        evaluate_parquet(tmp_path, y_true="y", y_proba=["p0"])
    with pytest.raises(ValueError, match=r"has no column 'p2' \(given as y_proba\)"):
        evaluate_parquet(tmp_path, y_true="y", y_proba=["p0", "p1", "p2"])


def test_memory_does_not_grow_with_rows_in_binned_mode(tmp_path):
    import tracemalloc

    rng = np.random.default_rng(12)
    peaks = []
    for n_files in (1, 8):
        folder = tmp_path / str(n_files)
        folder.mkdir()
        for i in range(n_files):
            y = rng.integers(0, 2, 200_000).astype(np.int8)
            s = rng.random(200_000).astype(np.float32)
            pq.write_table(pa.table({"y": y, "s": s}), folder / f"{i}.parquet")
        tracemalloc.start()
        result = evaluate_parquet(folder, y_true="y", y_score="s", exact=False, n_bins=1000,
                                  batch_size=50_000)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert result.n_rows == 200_000 * n_files
    # 8x the rows, same batches: the peak (numpy buffers) stays within a small margin
    assert peaks[1] < 1.5 * peaks[0]


def test_files_without_rows_are_an_error(tmp_path):
    write_parts(tmp_path, {"y": np.array([], dtype=int), "s": np.array([])}, [])
    with pytest.raises(ValueError, match="no rows to evaluate"):
        evaluate_parquet(tmp_path, y_true="y", y_score="s")


def test_pos_label_not_a_label_is_refused_as_in_memory(tmp_path):
    # the in-memory metric refuses pos_label=5 on 0/1 labels; streaming used to fall back
    # to macro averages silently (precision 0.733 instead of an error)
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    pred = np.array([0, 1, 0, 0, 1, 1, 1, 1])
    write_parts(tmp_path, {"y": y, "p": pred}, [4])
    with pytest.raises(ValueError, match="pos_label=5 is not a valid label"):
        dm.precision_score(y, pred, pos_label=5)
    with pytest.raises(ValueError, match="pos_label=5 is not a valid label"):
        stream(tmp_path, y_true="y", y_pred="p", pos_label=5)
    # a pos_label that is a label is used, as in memory
    got = stream(tmp_path, y_true="y", y_pred="p", pos_label=0)
    assert values(got)["precision_score"] == dm.precision_score(y, pred, pos_label=0)


def test_one_class_data_has_positive_class_one(tmp_path):
    # all-negative 0/1 data: the positive class is still 1, as in scikit-learn
    y = np.zeros(6, dtype=int)
    pred = np.array([0, 0, 1, 0, 0, 0])
    write_parts(tmp_path, {"y": y, "p": pred}, [3])
    got = stream(tmp_path, y_true="y", y_pred="p", metrics=["precision_score",
                                                            "specificity_score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert values(got)["precision_score"] == dm.precision_score(y, pred)
        assert values(got)["specificity_score"] == dm.specificity_score(y, pred) == 5 / 6


def test_rows_are_the_engines_rows(tmp_path):
    from dartboard.evaluation import MetricRow
    from dartboard.evaluation._engine import evaluate_predictions

    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 400)
    pred = np.where(rng.random(400) < 0.8, y, 1 - y)
    write_parts(tmp_path, {"y": y, "p": pred}, [150])
    result = stream(tmp_path, y_true="y", y_pred="p", confidence_level=0.9)
    rows = result.result.metrics
    assert all(isinstance(r, MetricRow) for r in rows)
    # the in-memory engine reports the same metrics under the same labels, with the same
    # estimates and the same (Wilson) intervals for the proportions
    memory = {r.metric: r for r in evaluate_predictions(y, y_pred=pred, confidence_level=0.9,
                                                        n_resamples=200).metrics}
    assert [r.metric for r in rows] == list(memory)
    for row in rows:
        assert row.estimate == pytest.approx(memory[row.metric].estimate, rel=1e-12)
        assert row.n == memory[row.metric].n and row.error_bound is None
        if row.metric == "recall":  # its own denominator: the positive rows
            assert row.n == int(y.sum())
        if memory[row.metric].method == "wilson":
            assert row.method == "wilson"
            assert (row.low, row.high) == pytest.approx((memory[row.metric].low,
                                                         memory[row.metric].high), rel=1e-12)
