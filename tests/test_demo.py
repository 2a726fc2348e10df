"""``dartboard demo --quick``: the main job end to end. The saved numbers are
re-derived from the saved inputs with dartboard's public functions, the report has
every figure, and a second run with the same seed gives the same numbers."""

import atexit
import contextvars
import functools
import json
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from dartboard import (
    dart_rank,
    dart_sweep,
    permutation_test,
    rank_models,
    stability_metrics,
)
from dartboard.cli import app
from dartboard.demo import DEFAULT_PRECISION, run_demo
from dartboard.report import FIGURES
from dartboard.report._inputs import (
    rank_from_input,
    stability_from_input,
    sweep_from_input,
)
from dartboard.selection import DEFAULT_PRECISIONS


@functools.lru_cache(maxsize=1)
def quick_demo():
    """Run ``dartboard demo --quick`` once per test process (the browser test reuses it)."""
    out = Path(tempfile.mkdtemp(prefix="dartboard-demo-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    # --no-progress: the demo's own step bar (shown by default, even off a terminal)
    # stays away; in a context of its own, as the command would be its own process
    res = contextvars.Context().run(CliRunner().invoke, app,
                                    ["--no-progress", "demo", "--quick", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "━" not in res.stderr and "done" not in res.stderr
    return out, res, json.loads((out / "results.json").read_text())


@pytest.fixture
def demo():
    return quick_demo()


def test_demo_prints_summary_and_writes_both_files(demo):
    out, res, _ = demo
    assert f"report:  {(out / 'report.html').resolve()}" in res.stdout
    assert "Chosen by DART" in res.stdout
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "results.json"]


def test_report_has_every_figure_and_no_external_resource(demo):
    out, _, results = demo
    html = (out / "report.html").read_text()
    for fig_id in FIGURES:
        assert f'<figure data-figure="{fig_id}"' in html, fig_id
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert results["notes"] == []


def test_selection_numbers_follow_from_the_saved_folds(demo):
    _, _, results = demo
    sel = results["selection"]
    folds = dict(zip(sel["configs"], sel["fold_scores"]))
    assert len(folds) == 5 and all(len(f) == 5 for f in folds.values())
    ranking = dart_rank(folds, DEFAULT_PRECISION)
    assert sel["winner"] == ranking["configuration"].iloc[0]
    np.testing.assert_allclose([r["dart"] for r in sel["ranking"]], ranking["dart"])
    sweep = dart_sweep(folds, sel["sweep_precisions"])
    assert [s["config"] for s in sel["sweep_segments"]] == sweep.winners["configuration"].tolist()
    cmp = sel["comparison"]
    test = permutation_test(folds[cmp["a"]], folds[cmp["b"]])
    assert cmp["pvalue"] == pytest.approx(test.pvalue) and cmp["exact"]
    assert cmp["statistic"] == pytest.approx(np.mean(folds[cmp["a"]]) - np.mean(folds[cmp["b"]]))


def test_held_out_sections_are_consistent(demo):
    _, _, results = demo
    cls = results["classification"]
    assert cls["model"] == results["selection"]["winner"] and cls["n"] == 171
    assert np.sum(cls["confusion"]["matrix"]) == 171
    assert cls["confusion"]["labels"] == ["malignant", "benign"]
    values = {m["metric"]: m for m in cls["metrics"]}
    for row in values.values():
        assert row["low"] <= row["estimate"] <= row["high"], row
    fpr, tpr = np.array(cls["roc"]["fpr"]), np.array(cls["roc"]["tpr"])
    assert np.trapezoid(tpr, fpr) == pytest.approx(values["roc_auc"]["estimate"], abs=1e-5)
    matrix = np.array(cls["confusion"]["matrix"])
    assert values["accuracy"]["estimate"] == pytest.approx(np.trace(matrix) / 171)
    stability = results["stability"]
    assert np.array(stability["probas"]).shape == (10, 171)
    reg = results["regression"]
    errors = np.array(reg["errors"])
    assert errors.size == 133 and np.all(np.diff(errors) >= 0)
    mae = {m["metric"]: m["estimate"] for m in reg["metrics"]}["mean_absolute_error"]
    assert mae == pytest.approx(np.abs(errors).mean(), abs=1e-5)
    assert [r["model"] for r in results["profile"]["rows"]] == \
        [r["configuration"] for r in results["selection"]["ranking"][:3]]


def test_figure_inputs_follow_from_the_saved_data(demo):
    # the report draws these as given; they must be what the saved data imply
    _, _, results = demo
    sel = results["selection"]
    folds = dict(zip(sel["configs"], sel["fold_scores"]))
    np.testing.assert_array_equal(sel["sweep_precisions"], DEFAULT_PRECISIONS)
    sweep = dart_sweep(folds, DEFAULT_PRECISIONS)
    saved = sweep_from_input(sel["sweep"])
    for name in ("configurations", "winners", "crossings"):
        np.testing.assert_array_equal(getattr(saved, name).to_numpy(),
                                      getattr(sweep, name).to_numpy(), err_msg=name)
    ranked = rank_from_input(sel["critical_difference"])
    expected = rank_models(folds)
    assert ranked.groups() == expected.groups()
    assert ranked.critical_difference == pytest.approx(expected.critical_difference)
    st = results["stability"]
    points = stability_from_input(st["figure"], st["probas"]).per_point
    oracle = stability_metrics(np.array(st["probas"]), y_true=np.array(st["y_true"]))
    for column in points.columns:  # the saved probabilities are rounded to 5 decimals
        np.testing.assert_allclose(points[column], oracle.per_point[column], atol=1e-3)


@pytest.mark.slow  # a second demo run (~10 s)
def test_same_seed_same_numbers(demo, tmp_path):
    _, _, first = demo
    run_demo(tmp_path, quick=True, progress=False)
    second = json.loads((tmp_path / "results.json").read_text())
    for key in ("selection", "classification", "stability", "regression", "highlights"):
        assert first[key] == second[key], key


def test_report_command_rerenders_the_saved_results(demo, tmp_path):
    out, _, _ = demo
    target = tmp_path / "again.html"
    res = CliRunner().invoke(app, ["report", str(out / "results.json"), "-o", str(target)])
    assert res.exit_code == 0, res.output
    html = target.read_text()
    assert all(f'data-figure="{fig_id}"' in html for fig_id in FIGURES)


def test_curves_carry_the_evaluations_bands(demo):
    """The ROC and PR bands come from the evaluation (``curve_bands``), and the report
    draws and names them."""
    out, _, results = demo
    cls = results["classification"]
    for key, axis in (("roc_band", "specificity"), ("pr_band", "recall")):
        band = cls[key]
        assert band["axis"] == axis and band["kind"] == "pointwise"
        assert band["confidence_level"] == 0.95 and band["n_resamples"] == 500
        low, est, high = (np.array(band[k]) for k in ("low", "estimate", "high"))
        assert low.shape == est.shape == high.shape == (len(band["grid"]),)
        assert np.all(low <= est + 1e-9) and np.all(est <= high + 1e-9)
        assert np.any(high - low > 0.01)  # a band, not a line
    html = (out / "report.html").read_text()
    for fig_id in ("roc", "pr"):
        caption = re.search(rf'<figure data-figure="{fig_id}".*?<figcaption>(.*?)</figcaption>',
                            html, re.S).group(1)
        assert "95% pointwise confidence band (fiducial, 500 resamples)" in caption


def test_regression_section_has_its_figures(demo):
    out, _, results = demo
    fit = results["regression"]["fit"]
    assert len(fit["predicted"]) == 133 and np.all(np.diff(fit["predicted"]) >= 0)
    np.testing.assert_allclose(np.subtract(fit["actual"], fit["predicted"]), fit["residual"],
                               atol=2e-6)
    # the residuals are the errors of the error distribution, in another order
    np.testing.assert_allclose(np.sort(fit["residual"]), results["regression"]["errors"],
                               atol=2e-6)
    html = (out / "report.html").read_text()
    section = html[html.index('<section id="regression">'):]
    for fig_id in ("predicted-actual", "residuals", "error-distribution"):
        assert f'<figure data-figure="{fig_id}"' in section, fig_id
