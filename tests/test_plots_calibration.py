"""The reliability diagram draws the bins, their intervals, the histogram and the ECE."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from dartboard.evaluation import calibration_points
from dartboard.evaluation._engine import evaluate_predictions
from dartboard.metrics import calibration_error
from dartboard.plots import plot_reliability_diagram


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(31)
    p = rng.beta(2, 3, 800)
    p[:5] = 1.0
    y = (rng.random(800) < p**0.8).astype(int)
    return y, p


def test_diagram_draws_bins_intervals_and_histogram(data):
    y, p = data
    ax, hist = plot_reliability_diagram(y, p, n_bins=10)
    # bins of calibration_error: [b/10, (b+1)/10), p == 1 alone
    keys = np.floor(p * 10).astype(int)
    present = np.unique(keys)
    counts = np.array([np.sum(keys == k) for k in present])
    heights = [patch.get_height() for patch in hist.patches]
    np.testing.assert_array_equal(heights, counts)
    line = ax.get_lines()[1]
    np.testing.assert_allclose(line.get_xdata(), [p[keys == k].mean() for k in present])
    share = np.array([y[keys == k].mean() for k in present])
    np.testing.assert_allclose(line.get_ydata(), share)
    # the error bars are Wilson intervals of each bin's share
    bars = ax.collections[0].get_segments()
    want = [proportion_confint(y[keys == k].sum(), np.sum(keys == k), method="wilson")
            for k in present]
    np.testing.assert_allclose([b[0][1] for b in bars], [w[0] for w in want], atol=1e-9)
    np.testing.assert_allclose([b[1][1] for b in bars], [w[1] for w in want], atol=1e-9)
    ece = calibration_error(y, p, n_bins=10)
    assert f"ECE = {ece:.3f} [" in ax.get_title()


def test_diagram_quotes_the_ece_of_calibration_error_with_its_default_bins(data):
    y, p = data
    ax, hist = plot_reliability_diagram(y, p)
    assert f"ECE = {calibration_error(y, p):.3f} [" in ax.get_title()
    assert len(hist.patches) == len(np.unique(np.floor(p * 15)))


def test_diagram_from_engine_points(data):
    y, p = data
    res = evaluate_predictions(y, y_score=p, n_resamples=200)
    points = res.calibration.to_dict()
    ax, hist = plot_reliability_diagram(points=points, ece=0.05, interval=(0.03, 0.07))
    assert ax.get_title() == "Reliability diagram (ECE = 0.050 [0.030, 0.070])"
    assert sum(patch.get_height() for patch in hist.patches) == len(y)
    assert points == calibration_points(y, p)


def test_diagram_misuse():
    with pytest.raises(ValueError, match="give either y_true and y_prob, or points"):
        plot_reliability_diagram()
    with pytest.raises(ValueError, match="points lacks"):
        plot_reliability_diagram(points={"prob_pred": [0.5], "prob_true": [0.5]})
    with pytest.raises(ValueError, match="y_prob must hold probabilities"):
        plot_reliability_diagram([0, 1], [0.2, 1.4])
