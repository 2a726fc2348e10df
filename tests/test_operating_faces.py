"""The operating point and curve bands through the engine, the command line and the report."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import dartboard
from dartboard.cli import app
from dartboard.evaluation._engine import evaluate_predictions


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


@pytest.mark.parametrize("kwargs, match", [
    ({"threshold_target": float("nan")}, r"threshold_target needs threshold_criterion .* "
                                         r"got threshold_target=nan without a criterion"),
    ({"threshold_target": 2}, "threshold_target needs threshold_criterion"),
    ({"threshold_criterion": "youden", "threshold_target": 0.5},
     "threshold_target is only used by the criteria"),
    ({"threshold_criterion": "max_fpr", "threshold_target": float("nan")},
     "threshold_target must be finite"),
    ({"threshold_criterion": "min_recall", "threshold_target": 2},
     "threshold_target must be at most 1"),
    ({"threshold_criterion": "min_recall"}, "threshold_criterion='min_recall' needs "
                                            "threshold_target"),
])
def test_threshold_target_is_checked_before_any_number(scored, kwargs, match):
    y, s = scored
    with pytest.raises(ValueError, match=match):
        dartboard.evaluate(y, y_score=s, n_resamples=50, **kwargs)


def test_the_operating_point_is_shown(scored):
    y, s = scored
    ev = dartboard.evaluate(y, y_score=s, threshold_criterion="youden", n_resamples=300,
                            random_state=5, metrics=["accuracy", "recall"])
    point = dartboard.select_threshold(y, s, n_resamples=300, random_state=5, pos_label=1)
    frame = ev.operating_point
    assert list(frame.index) == list(point.intervals)
    assert list(frame.columns) == ["estimate", "low", "high", "method"]
    for name, iv in point.intervals.items():
        assert tuple(frame.loc[name, ["estimate", "low", "high"]]) == (iv.estimate, iv.low,
                                                                       iv.high)
        assert frame.loc[name, "method"] == iv.method
    assert frame.attrs["threshold"] == point.threshold
    assert frame.attrs["criterion"] == "youden" and frame.attrs["midpoint"] == point.midpoint
    text = repr(ev)
    title = f"operating point (youden): predict positive when score >= {point.threshold:.4g}"
    assert title in text
    tpr = point.intervals["tpr"]
    assert "tpr" in text and f"[{tpr.low:.4g}, {tpr.high:.4g}]" in text
    html = ev._repr_html_()
    assert title.replace(">=", "&gt;=") in html and "<td>expected_cost</td>" in html
    assert dartboard.evaluate(y, y_score=s, n_resamples=50).operating_point is None
    assert "operating point" not in repr(dartboard.evaluate(y, y_score=s, n_resamples=50))


def test_the_operating_point_uses_the_weights(scored):
    y, s = scored
    # the lowest-scoring fifth of the positives weighs 5: recall 0.9 needs a lower threshold
    w = np.where((y == 1) & (s < np.quantile(s[y == 1], 0.2)), 5, 1)
    ev = dartboard.evaluate(y, y_score=s, sample_weight=w, threshold_criterion="min_recall",
                            threshold_target=0.9, n_resamples=200, random_state=1)
    point = dartboard.select_threshold(y, s, criterion="min_recall", target=0.9,
                                       sample_weight=w, n_resamples=200, random_state=1,
                                       pos_label=1)
    assert ev.operating_point.attrs["threshold"] == point.threshold
    assert ev.operating_point.loc["tnr", "low"] == point.intervals["tnr"].low
    unweighted = dartboard.select_threshold(y, s, criterion="min_recall", target=0.9,
                                            n_resamples=50, random_state=1)
    assert unweighted.threshold != point.threshold
