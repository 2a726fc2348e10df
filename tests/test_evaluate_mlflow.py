"""``Evaluation.log_mlflow`` against a real local MLflow tracking store."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dartboard

mlflow = pytest.importorskip("mlflow")


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A local file tracking store in a temporary directory (MLflow 3 asks for an
    explicit opt-in to file stores), restored afterwards."""
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    before = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    # the active experiment is process-wide state: make it one of this store
    mlflow.set_experiment("dartboard-test")
    yield tmp_path
    mlflow.set_tracking_uri(before)


def test_log_mlflow_round_trip(store):
    tmp_path = store
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    pred = np.where(rng.random(300) < 0.8, y, 1 - y)
    groups = rng.choice(["a", "b"], 300)
    ev = dartboard.evaluate(y, pred, metrics=["accuracy", "f1"], groups=groups,
                            n_resamples=200, random_state=0)
    with mlflow.start_run() as run:
        ev.log_mlflow(prefix="test")
    client = mlflow.tracking.MlflowClient()
    data = client.get_run(run.info.run_id).data
    for row in ev.result.metrics:
        assert data.metrics[f"test/{row.metric}"] == pytest.approx(row.estimate)
        assert data.metrics[f"test/{row.metric}_low"] == pytest.approx(row.low)
        assert data.metrics[f"test/{row.metric}_high"] == pytest.approx(row.high)
    group_row = next(r for r in ev.result.groups if r.group == "a" and r.metric == "f1")
    assert data.metrics["test/by_group/a/f1_high"] == pytest.approx(group_row.high)
    assert data.params["dartboard_task"] == "binary"
    artifacts = [a.path for a in client.list_artifacts(run.info.run_id)]
    assert "dartboard_evaluation.html" in artifacts
    local = client.download_artifacts(run.info.run_id, "dartboard_evaluation.html",
                                      str(tmp_path))
    text = Path(local).read_text(encoding="utf-8")
    assert "<html" in text and "accuracy" in text


def test_log_mlflow_starts_and_ends_a_run_when_none_is_active(store):
    ev = dartboard.evaluate([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], metrics=["accuracy"],
                            random_state=0)
    assert mlflow.active_run() is None
    ev.log_mlflow(report=False)
    assert mlflow.active_run() is None
    runs = mlflow.search_runs(search_all_experiments=True)
    assert len(runs) == 1 and runs["metrics.accuracy"].iloc[0] == pytest.approx(0.8)


def test_model_name_names_the_run_and_a_streamed_evaluation_logs_its_files(store):
    import pandas as pd

    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    frame = pd.DataFrame({"y": y, "p": np.where(rng.random(200) < 0.8, y, 1 - y)})
    folder = store / "parts"
    folder.mkdir()
    frame.iloc[:80].to_parquet(folder / "a.parquet")
    frame.iloc[80:].to_parquet(folder / "b.parquet")
    from dartboard.scale import evaluate_parquet

    ev = evaluate_parquet(folder, y_true="y", y_pred="p", metrics=["accuracy"],
                          model="gbm v3", n_resamples=50)
    ev.log_mlflow(report=False)
    run = mlflow.search_runs(search_all_experiments=True).iloc[0]
    assert run["tags.mlflow.runName"] == "gbm v3"
    assert run["params.dartboard_model"] == "gbm v3"
    assert run["params.dartboard_n_files"] == "2" and run["params.dartboard_n"] == "200"
    assert run["metrics.accuracy"] == pytest.approx((frame.y == frame.p).mean())


# the example of docs/user_guide/mlflow.rst, which the guide's own test does not run
# (creating MLflow's database takes about 20 s)
_GUIDE_EXAMPLE = """
import json, sys
import dartboard

ev = dartboard.evaluate([0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1, 1, 1],
                        metrics=["accuracy"], n_resamples=50, random_state=0)
run_id = ev.log_mlflow()

import mlflow

client = mlflow.tracking.MlflowClient()
json.dump({"run_id": run_id, "uri": mlflow.get_tracking_uri(),
           "metrics": client.get_run(run_id).data.metrics,
           "artifacts": [a.path for a in client.list_artifacts(run_id)],
           "estimate": ev.overall.loc["accuracy", "estimate"]}, sys.stdout)
"""


def test_log_mlflow_works_out_of_the_box(tmp_path):
    # issue 25.6: with the extra installed, MLflow 3's default store (sqlite:///mlflow.db)
    # could not be opened by mlflow-skinny, and its file store needs an opt-in variable.
    # A fresh process with nothing of MLflow's set (no MLFLOW_* variable, no tracking
    # URI, a new working directory): what a user has after pip install "dartboard[mlflow]"
    import json
    import os
    import subprocess
    import sys

    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", _GUIDE_EXAMPLE], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert out["uri"] == f"sqlite:///{tmp_path / 'mlflow.db'}"  # MLflow's own default
    assert (tmp_path / "mlflow.db").is_file()
    assert out["metrics"]["accuracy"] == pytest.approx(out["estimate"]) == 0.75
    assert out["artifacts"] == ["dartboard_evaluation.html"]
    assert len(out["run_id"]) == 32
