"""Calibration through streaming Parquet and Dask: the merged bins equal one pass."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _streamed import intervals, values

from dartboard import interval
from dartboard.metrics import CalibrationState, calibration_error
from dartboard.scale import evaluate_dask, evaluate_parquet

dd = pytest.importorskip("dask.dataframe")


def _write(folder, frames):
    for i, frame in enumerate(frames):
        frame.to_parquet(folder / f"part{i:02d}.parquet")
    return str(folder)


@pytest.fixture(scope="module")
def binary_files(tmp_path_factory):
    rng = np.random.default_rng(21)
    n = 6000
    p = rng.random(n)
    p[:50] = 1.0
    y = (rng.random(n) < p**1.4).astype(int)
    frames = [pd.DataFrame({"y": y[i], "p0": 1 - p[i], "p1": p[i]})
              for i in np.array_split(np.arange(n), 7)]
    return _write(tmp_path_factory.mktemp("binary"), frames), y, p


@pytest.fixture(scope="module")
def multiclass_files(tmp_path_factory):
    rng = np.random.default_rng(22)
    n = 5000
    proba = rng.dirichlet([2, 1, 1, 0.5], n)
    y = rng.integers(0, 4, n)
    # sorted by label: early files lack the later classes
    order = np.argsort(y, kind="stable")
    y, proba = y[order], proba[order]
    frames = [pd.DataFrame({"y": y[i], **{f"c{k}": proba[i, k] for k in range(4)}})
              for i in np.array_split(np.arange(n), 5)]
    return _write(tmp_path_factory.mktemp("multi"), frames), y, proba


def test_parquet_binary_equals_in_memory(binary_files):
    folder, y, p = binary_files
    res = evaluate_parquet(folder, y_true="y", y_proba=["p0", "p1"], batch_size=500,
                           confidence_level=0.9, n_resamples=400, random_state=3)
    assert values(res)["calibration_error"] == pytest.approx(calibration_error(y, p),
                                                             abs=1e-12)
    state = res.states["calibration"].state
    # constant memory: two outcomes x 16 bins, whatever the number of rows
    assert isinstance(state, CalibrationState) and state.weight.shape == (1, 2, 16)
    assert state.weight.sum() == len(y)
    # the interval is the in-memory one (same bins, same draws for the same seed)
    iv = interval(calibration_error, y, p, confidence_level=0.9, n_resamples=400,
                  random_state=3)
    got = intervals(res)["calibration_error"]
    assert (got.low, got.high, got.method) == pytest.approx((iv.low, iv.high, iv.method))


def test_parquet_and_dask_multiclass_equal_in_memory(multiclass_files):
    folder, y, proba = multiclass_files
    columns = [f"c{k}" for k in range(4)]
    want = calibration_error(y, proba)
    streamed = evaluate_parquet(folder, y_true="y", y_proba=columns, batch_size=400,
                                metrics=["calibration_error"])
    assert values(streamed) == {"calibration_error": pytest.approx(want, abs=1e-12)}
    frame = dd.read_parquet(folder)
    distributed = evaluate_dask(frame, y_true="y", y_proba=columns)
    assert values(distributed)["calibration_error"] == pytest.approx(want, abs=1e-12)
    a, b = distributed.states["calibration"].state, streamed.states["calibration"].state
    np.testing.assert_array_equal(a.weight, b.weight)
    np.testing.assert_allclose(a.sum_p, b.sum_p, rtol=1e-12)


def test_calibration_of_scores_that_are_probabilities(binary_files):
    # scores in [0, 1] are probabilities, streamed as in memory; others are no calibration
    folder, y, p = binary_files
    res = evaluate_parquet(folder, y_true="y", y_score="p1", metrics=["calibration_error"],
                           n_resamples=200, random_state=1)
    iv = interval(calibration_error, y, p, n_resamples=200, random_state=1)
    got = intervals(res)["calibration_error"]
    assert got.method == iv.method
    assert (got.estimate, got.low, got.high) == pytest.approx((iv.estimate, iv.low, iv.high),
                                                              rel=1e-12)
    with pytest.raises(ValueError, match="calibration_error needs probabilities"):
        evaluate_parquet(folder, y_true="y", y_pred="p1", task="binary",
                         metrics=["calibration_error"])


def test_cli_reports_ece_in_tables_and_json(tmp_path, binary_files):
    import json

    from typer.testing import CliRunner

    from dartboard.cli import app

    _, y, p = binary_files
    path = tmp_path / "scored.csv"
    pd.DataFrame({"y": y[:800], "p": p[:800]}).to_csv(path, index=False)
    runner = CliRunner()
    table = runner.invoke(app, ["evaluate", str(path), "--y-true", "y", "--y-score", "p",
                                "--n-resamples", "200"])
    assert table.exit_code == 0 and "ece" in table.output
    out = runner.invoke(app, ["evaluate", str(path), "--y-true", "y", "--y-score", "p",
                              "--n-resamples", "200", "--json"])
    rows = {r["metric"]: r for r in json.loads(out.output)["metrics"]}
    assert rows["ece"]["estimate"] == pytest.approx(calibration_error(y[:800], p[:800]),
                                                    abs=1e-12)
    assert rows["ece"]["method"] == "bin-pivot" and rows["ece"]["low"] <= rows["ece"]["high"]
