"""Figures without ``ax`` go through pyplot (``plt.show()`` shows them, as scikit-learn's
Display objects), figures with ``ax`` leave pyplot alone, and the HTML report keeps its
figures out of pyplot however often it is rendered."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from _report_results import every_section  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import dartboard  # noqa: E402
from dartboard import plots  # noqa: E402
from dartboard.report import render_report  # noqa: E402

RNG = np.random.default_rng(3)
Y = RNG.integers(0, 2, 200)
PROBA = np.clip(0.35 * Y + 0.65 * RNG.random(200), 0.0, 1.0)
PRED = (PROBA > 0.5).astype(int)
Y_REG = RNG.normal(10.0, 2.0, 200)
PRED_REG = Y_REG + RNG.normal(0.0, 1.0, 200)
GROUPS = np.where(RNG.random(200) < 0.5, "a", "b")
FOLDS = {"a": [0.9, 0.8, 0.85, 0.87], "b": [0.7, 0.75, 0.72, 0.74], "c": [0.88, 0.86, 0.87, 0.9]}


@pytest.fixture(scope="module")
def evaluation():
    return dartboard.evaluate(Y, PRED, groups=GROUPS, metrics=["accuracy", "recall"],
                              n_resamples=200, random_state=0)


def _one(ax):
    return {} if ax is None else {"ax": ax}


# name -> (how many Axes it draws on, the call with ax=None or the given Axes)
CALLS = {
    "plot_roc_curve": (1, lambda ev, ax: plots.plot_roc_curve(Y, PROBA, **_one(ax))),
    "plot_precision_recall_curve": (
        1, lambda ev, ax: plots.plot_precision_recall_curve(Y, PROBA, **_one(ax))),
    "plot_confusion_matrix": (1, lambda ev, ax: plots.plot_confusion_matrix(Y, PRED, **_one(ax))),
    "plot_calibration_curve": (
        1, lambda ev, ax: plots.plot_calibration_curve(Y, PROBA, **_one(ax))),
    "plot_error_distribution": (
        1, lambda ev, ax: plots.plot_error_distribution(Y_REG, PRED_REG, **_one(ax))),
    "plot_predicted_vs_actual": (
        1, lambda ev, ax: plots.plot_predicted_vs_actual(Y_REG, PRED_REG, **_one(ax))),
    "plot_residuals": (1, lambda ev, ax: plots.plot_residuals(Y_REG, PRED_REG, **_one(ax))),
    "plot_evaluation": (1, lambda ev, ax: plots.plot_evaluation(ev, **_one(ax))),
    "plot_group_gaps": (1, lambda ev, ax: plots.plot_group_gaps(ev.difference(), **_one(ax))),
    "plot_critical_difference": (
        1, lambda ev, ax: plots.plot_critical_difference(dartboard.rank_models(FOLDS),
                                                         **_one(ax))),
    "plot_dart_sweep": (
        1, lambda ev, ax: plots.plot_dart_sweep(dartboard.dart_sweep(FOLDS, [0.0, 1.0, 5.0]),
                                                **_one(ax))),
    "plot_fold_scores": (1, lambda ev, ax: plots.plot_fold_scores(FOLDS, **_one(ax))),
    "plot_stability": (
        2, lambda ev, ax: plots.plot_stability(
            dartboard.stability_metrics(np.random.default_rng(0).random((5, 50))),
            **_one(ax))),
    "plot_reliability_diagram": (
        0, lambda ev, fig: plots.plot_reliability_diagram(
            Y, PROBA, n_bins=5, random_state=0, **({} if fig is None else {"fig": fig}))),
    "Evaluation.plot": (1, lambda ev, ax: ev.plot(**_one(ax))),
}


def test_every_public_plot_is_covered():
    assert {n for n in plots.__all__} == {n for n in CALLS if not n.startswith("Evaluation.")}
    assert [n for n in dir(dartboard.Evaluation) if n.startswith("plot")] == ["plot"]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_without_ax_one_pyplot_figure_is_made(name, evaluation):
    _, call = CALLS[name]
    before = plt.get_fignums()
    out = call(evaluation, None)
    assert len(plt.get_fignums()) == len(before) + 1
    first = np.ravel(np.asarray(out, dtype=object))[0]
    # the figure drawn on is pyplot's current one: what plt.show() / plt.savefig() use
    assert first.figure is plt.gcf()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_with_ax_pyplot_is_left_alone(name, evaluation):
    n_axes, call = CALLS[name]
    fig = Figure()
    given = fig if n_axes == 0 else (fig.subplots() if n_axes == 1 else fig.subplots(1, n_axes))
    before = plt.get_fignums()
    out = call(evaluation, given)
    assert plt.get_fignums() == before
    assert all(ax.figure is fig for ax in np.ravel(np.asarray(out, dtype=object)))


def test_a_pyplot_axes_given_is_drawn_on_without_a_new_figure():
    fig, ax = plt.subplots()
    assert plots.plot_roc_curve(Y, PROBA, ax=ax) is ax
    assert plt.get_fignums() == [fig.number]


def test_the_report_leaves_pyplot_alone(binary_data):
    results = every_section(*binary_data)
    before = plt.get_fignums()
    html = render_report(results)  # none left open, so a loop of reports accumulates none
    assert html.count("<svg") >= 10
    assert plt.get_fignums() == before
