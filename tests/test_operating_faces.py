"""The operating point and curve bands through the engine, the command line and the report."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import dartboard
from dartboard.cli import app
from dartboard.evaluation import evaluate_predictions


@pytest.fixture(scope="module")
def scored():
    rng = np.random.default_rng(3)
    y = (rng.random(250) < 0.4).astype(int)
    return y, np.clip(0.3 + 0.35 * y + 0.25 * rng.normal(size=250), 0, 1)


def test_engine_reports_what_the_library_functions_give(scored):
    y, s = scored
    res = evaluate_predictions(y, y_score=s, threshold_criterion="min_recall",
                               threshold_target=0.8, curve_bands=True, n_resamples=300,
                               random_state=7).to_dict()
    point = dartboard.select_threshold(y, s, criterion="min_recall", target=0.8,
                                       n_resamples=300, random_state=7, pos_label=1)
    op = res["operating_point"]
    assert op["threshold"] == point.threshold and op["criterion"] == "min_recall"
    for name, iv in point.intervals.items():
        assert (op["intervals"][name]["low"], op["intervals"][name]["high"]) == (iv.low, iv.high)
    band = dartboard.roc_band(y, s, n_resamples=300, random_state=7)
    np.testing.assert_allclose(res["roc_band"]["low"], band.low, atol=1e-6)
    assert res["pr_band"]["axis"] == "recall" and len(res["pr_band"]["grid"]) == 100
    assert "operating_point" not in evaluate_predictions(y, y_score=s,
                                                         n_resamples=50).to_dict()


def test_engine_refuses_an_operating_point_without_binary_scores(scored):
    y, s = scored
    with pytest.raises(ValueError, match="threshold_criterion and curve_bands need binary "
                                         "scores"):
        evaluate_predictions(y, y_pred=(s > 0.5).astype(int), threshold_criterion="youden")
    with pytest.raises(ValueError, match="regression"):
        evaluate_predictions(s, y_pred=s, task="regression", threshold_criterion="youden")


def test_cli_prints_the_operating_point_and_the_report_shows_it(tmp_path, scored):
    y, s = scored
    csv = tmp_path / "scores.csv"
    pd.DataFrame({"y": y, "s": s}).to_csv(csv, index=False)
    runner = CliRunner()
    base = ["evaluate", str(csv), "--y-true", "y", "--y-score", "s", "--n-resamples", "300",
            "--threshold-criterion", "youden"]
    out = runner.invoke(app, [*base, "--json"])
    assert out.exit_code == 0, out.output
    op = json.loads(out.stdout)["operating_point"]
    point = dartboard.select_threshold(y, s, n_resamples=300, random_state=0)
    assert op["threshold"] == point.threshold
    assert op["intervals"]["tpr"]["low"] == point.intervals["tpr"].low
    report = tmp_path / "r.html"
    out = runner.invoke(app, [*base, "--report", str(report)])
    assert out.exit_code == 0, out.output
    assert "operating point (youden)" in out.stdout
    assert f"{point.threshold:.4f}" in out.stdout
    html = report.read_text()
    assert "Operating point (youden)" in html and "95% pointwise band" in html
    bad = runner.invoke(app, ["evaluate", str(csv), "--y-true", "y", "--y-score", "s",
                              "--threshold-criterion", "min_precision",
                              "--threshold-target", "1.5"])
    assert bad.exit_code == 2 and "target must be at most 1" in bad.output
