"""``dartboard evaluate --cluster COLUMN``: clustered intervals from the command line."""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import dartboard as db
from dartboard.cli import app

runner = CliRunner()


@pytest.fixture
def clustered_csv(tmp_path):
    rng = np.random.default_rng(0)
    cluster = np.repeat(np.arange(40), 6)
    n = cluster.shape[0]
    y = (rng.normal(size=40)[cluster] + rng.normal(size=n) > 0).astype(int)
    score = 1 / (1 + np.exp(-(2 * y - 1) * (1 + rng.normal(size=40)[cluster]
                                           + rng.normal(size=n))))
    path = tmp_path / "rows.csv"
    pd.DataFrame({"y": y, "s": score, "passage": [f"p{c}" for c in cluster]}).to_csv(
        path, index=False)
    return path, y, score, cluster


def test_cluster_column_gives_the_clustered_evaluation(clustered_csv):
    path, y, score, cluster = clustered_csv
    out = runner.invoke(app, ["evaluate", str(path), "--y-true", "y", "--y-score", "s",
                              "--cluster", "passage", "--n-resamples", "100", "--json"])
    assert out.exit_code == 0, out.output
    rows = {m["metric"]: m for m in json.loads(out.output)["metrics"]}
    # the same ids as the file's (their order decides which cluster each draw takes)
    ev = db.evaluate(y, y_score=score, clusters=[f"p{c}" for c in cluster], n_resamples=100,
                     random_state=0, metrics=["accuracy", "roc_auc"])
    for name in ("accuracy", "roc_auc"):
        assert rows[name]["low"] == pytest.approx(ev.overall.loc[name, "low"], abs=1e-12)
        assert rows[name]["design_effect"] == pytest.approx(
            ev.overall.loc[name, "design_effect"], rel=1e-12)
    assert rows["accuracy"]["method"] == "wilson-clustered (40 clusters)"
    table = runner.invoke(app, ["evaluate", str(path), "--y-true", "y", "--y-score", "s",
                                "--cluster", "passage", "--n-resamples", "100"])
    assert table.exit_code == 0 and "design effect" in table.output


@pytest.mark.parametrize("extra, match", [
    (["--cluster", "nope"], "column 'nope' (--cluster) not found"),
    (["--cluster", "passage", "--ci", "wilson"], "assumes independent rows"),
])
def test_bad_cluster_options_exit_2_with_one_line(clustered_csv, extra, match):
    path = clustered_csv[0]
    out = runner.invoke(app, ["evaluate", str(path), "--y-true", "y", "--y-score", "s",
                              *extra])
    assert out.exit_code == 2
    assert match in out.output and "Traceback" not in out.output


def test_a_cluster_robust_ci_without_clusters_is_refused(clustered_csv, tmp_path):
    # it applies to no row: the rows would silently get auto's independent intervals
    path, y, score, _ = clustered_csv
    out = runner.invoke(app, ["evaluate", str(path), "--y-true", "y", "--y-score", "s",
                              "--ci", "bootstrap-t-clustered"])
    assert out.exit_code == 2
    assert "--ci bootstrap-t-clustered is a cluster-robust interval; give --cluster" in \
        out.output
    with pytest.raises(ValueError, match="ci='wald-clustered' is a cluster-robust interval; "
                                         "give clusters"):
        db.evaluate(y, y_score=score, ci="wald-clustered")
    folder = tmp_path / "parts"
    folder.mkdir()
    pd.DataFrame({"y": y, "s": score}).to_parquet(folder / "part0.parquet")
    from dartboard.scale import evaluate_parquet

    with pytest.raises(ValueError, match="give clusters "):
        evaluate_parquet(folder, y_true="y", y_score="s", ci="t-clustered")
