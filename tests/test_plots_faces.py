"""What a reader sees in the figures: metrics of different units on separate panels,
fold scores that stay inside their range with their labels inside the figure, and the
regression figures (predicted against actual, residuals) drawn from the data or from
saved points alike."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from matplotlib.figure import Figure

import dartboard
from dartboard import dart_rank
from dartboard.evaluation._points import fit_points
from dartboard.plots import (
    plot_evaluation,
    plot_fold_scores,
    plot_predicted_vs_actual,
    plot_residuals,
)


@pytest.fixture(scope="module")
def regression():
    rng = np.random.default_rng(0)
    y = rng.normal(150.0, 75.0, 300)
    pred = 0.6 * y + 60.0 + rng.normal(0.0, 50.0, 300)
    groups = rng.choice(["a", "b"], 300)
    return y, pred, dartboard.evaluate(y, pred, groups=groups, n_resamples=200,
                                       random_state=0)


def _row_values(ax):
    """The estimate x-positions of the overall series (black) on an Axes, top first."""
    container = ax.containers[0]
    return sorted(zip(container.lines[0].get_ydata(), container.lines[0].get_xdata()),
                  reverse=True)


def test_regression_metrics_get_one_panel_per_unit(regression):
    _, _, ev = regression
    axes = plot_evaluation(ev)
    assert isinstance(axes, np.ndarray) and len(axes) == 3
    titles = [ax.get_title(loc="left") for ax in axes]
    labels = {t: [x.get_text() for x in ax.get_yticklabels()] for t, ax in zip(titles, axes)}
    assert labels["in the unit of y"] == ["mean_absolute_error", "root_mean_squared_error",
                                          "median_absolute_error",
                                          "median_absolute_deviation", "max_error"]
    assert labels["in the unit of y squared"] == ["mean_squared_error"]
    assert labels["without a unit"] == ["r2", "explained_variance",
                                        "mean_absolute_percentage_error",
                                        "weighted_mean_absolute_percentage_error"]
    # each panel's axis spans its own numbers: R^2's interval is not a dot beside an MSE
    unitless = axes[titles.index("without a unit")]
    low, high = unitless.get_xlim()
    assert high - low < 2.0
    row = ev.overall.loc["r2"]
    assert (row.high - row.low) / (high - low) > 0.05
    squared = axes[titles.index("in the unit of y squared")]
    assert squared.get_xlim()[0] > 100.0
    assert axes[0].figure is axes[-1].figure
    for ax, title in zip(axes, titles):
        values = dict((label, ev.overall.loc[label, "estimate"]) for label in labels[title])
        drawn = [x for _, x in _row_values(ax)]
        np.testing.assert_allclose(drawn, list(values.values()))


def test_one_unit_is_one_axes_and_given_axes_are_used(regression):
    _, _, ev = regression
    ax = plot_evaluation(ev, metrics=["r2", "explained_variance"])
    assert isinstance(ax, matplotlib.axes.Axes) and ax.get_title(loc="left") == ""
    given = Figure().subplots(3)
    assert list(plot_evaluation(ev, ax=given)) == list(given)
    with pytest.raises(ValueError, match="3 scales and need one Axes each; got 1"):
        plot_evaluation(ev, ax=Figure().subplots())


def test_a_metric_of_your_own_gets_its_own_panel():
    def total_cost(y_true, y_pred, sample_weight=None):
        return float(np.sum(np.abs(np.asarray(y_true) - np.asarray(y_pred))) * 1000)

    rng = np.random.default_rng(1)
    y = rng.normal(size=100)
    ev = dartboard.evaluate(y, y + rng.normal(size=100), n_resamples=100, random_state=0,
                            metrics=["r2", total_cost])
    axes = plot_evaluation(ev)
    assert [ax.get_title(loc="left") for ax in axes] == ["without a unit",
                                                         "own scale: total_cost"]


def test_classification_keeps_one_axis():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 200)
    ev = dartboard.evaluate(y, y_score=np.clip(0.3 * y + 0.7 * rng.random(200), 0, 1),
                            n_resamples=100, random_state=0)
    ax = plot_evaluation(ev)
    assert isinstance(ax, matplotlib.axes.Axes)
    assert len(ax.get_yticklabels()) == len(ev.metrics)


def test_fold_scores_stay_within_zero_and_one():
    folds = {"tight": [0.99, 1.0, 1.0, 0.97], "wide": [0.9, 1.0, 0.7, 1.0],
             "low": [0.02, 0.0, 0.1, 0.0]}
    frame = dart_rank(folds, 1.0)
    ax = plot_fold_scores(frame)
    bars = ax.containers[0].lines[2][0].get_segments()
    ends = np.array([[seg[0][0], seg[1][0]] for seg in bars])
    assert ends.min() >= 0.0 and ends.max() <= 1.0
    # where the range does not cut them, the bars are the mean +- one std
    mean = frame.set_index("configuration").loc["wide", "mean"]
    std = frame.set_index("configuration").loc["wide", "std"]
    row = list(frame["configuration"]).index("wide")
    assert ends[row][0] == pytest.approx(mean - std) and ends[row][1] == pytest.approx(1.0)
    assert mean + std > 1.0  # the case the clipping is for


def test_fold_score_labels_fit_inside_the_figure():
    folds = {f"random forest, max_depth={d}, n_estimators=500": [0.8, 0.82, 0.85]
             for d in range(6)}
    ax = plot_fold_scores(folds)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = ax.figure
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    figure_box = fig.bbox
    for label in ax.get_yticklabels():
        box = label.get_window_extent(renderer)
        assert box.x0 >= figure_box.x0 - 1 and box.x1 <= figure_box.x1 + 1, label.get_text()


def test_predicted_vs_actual_and_residuals_from_data_or_points(regression):
    y, pred, _ = regression
    ax = plot_predicted_vs_actual(y, pred)
    points = ax.collections[0].get_offsets()
    order = np.argsort(pred, kind="stable")
    np.testing.assert_allclose(points[:, 0], pred[order], atol=1e-6)
    np.testing.assert_allclose(points[:, 1], y[order], atol=1e-6)
    diagonal = ax.get_lines()[0]
    np.testing.assert_allclose(diagonal.get_xdata(), diagonal.get_ydata())
    saved = fit_points(y, pred)
    again = plot_predicted_vs_actual(predicted=saved["predicted"], actual=saved["actual"])
    np.testing.assert_array_equal(again.collections[0].get_offsets(), points)
    res = plot_residuals(y, pred)
    np.testing.assert_allclose(res.collections[0].get_offsets()[:, 1],
                               (y - pred)[order], atol=1e-6)
    assert list(res.get_lines()[0].get_ydata()) == [0.0, 0.0]
    with pytest.raises(ValueError, match="give either y_true and y_pred"):
        plot_residuals(y, pred, predicted=saved["predicted"], residual=saved["residual"])


def test_fit_points_thin_large_data_evenly_without_randomness():
    rng = np.random.default_rng(3)
    y = rng.normal(size=50_000)
    pred = y + rng.normal(size=50_000)
    points = fit_points(y, pred)
    assert len(points["predicted"]) == 1000
    assert points["predicted"][0] == pytest.approx(pred.min())
    assert points["predicted"][-1] == pytest.approx(pred.max())
    assert np.all(np.diff(points["predicted"]) >= 0)
    np.testing.assert_allclose(np.subtract(points["actual"], points["predicted"]),
                               points["residual"], atol=2e-6)
    assert fit_points(y, pred) == points
