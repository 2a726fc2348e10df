"""Metric figures: the drawn data equal scikit-learn's (test-only oracle) curves and
counts, precomputed points draw the same figure, and misuse is a clear error."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from matplotlib.figure import Figure
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve

from dartboard.evaluation import calibration_points
from dartboard.metrics import error_distribution
from dartboard.plots import (
    plot_calibration_curve,
    plot_confusion_matrix,
    plot_error_distribution,
    plot_precision_recall_curve,
    plot_roc_curve,
)


@pytest.fixture
def binary():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    score = np.clip(0.35 * y + 0.65 * rng.random(400), 0, 1).round(2)  # ties on purpose
    return y, score


def test_roc_curve_draws_sklearn_points_and_auc_with_interval(binary):
    y, score = binary
    ax = plot_roc_curve(y, score, interval=(0.7, 0.9), name="m")
    fpr, tpr, _ = skm.roc_curve(y, score)
    line = ax.get_lines()[0]
    np.testing.assert_allclose(line.get_xdata(), fpr)
    np.testing.assert_allclose(line.get_ydata(), tpr)
    auc = skm.roc_auc_score(y, score)
    assert ax.get_legend().get_texts()[0].get_text() == f"m (AUC = {auc:.3f} [0.700, 0.900])"


def test_interval_objects_are_accepted(binary):
    from dartboard import interval
    from dartboard.metrics import roc_auc_score

    y, score = binary
    iv = interval(roc_auc_score, y, score)
    text = plot_roc_curve(y, score, interval=iv).get_legend().get_texts()[0].get_text()
    assert text == f"AUC = {iv.estimate:.3f} [{iv.low:.3f}, {iv.high:.3f}]"


def test_roc_curve_from_points_equals_from_data(binary):
    y, score = binary
    fpr, tpr, _ = skm.roc_curve(y, score)
    a = plot_roc_curve(y, score)
    b = plot_roc_curve(fpr=fpr, tpr=tpr)
    assert a.get_legend().get_texts()[0].get_text() == b.get_legend().get_texts()[0].get_text()


def test_precision_recall_curve_and_average_precision_match_sklearn(binary):
    y, score = binary
    ax = plot_precision_recall_curve(y, score, interval={"low": 0.6, "high": 0.8})
    precision, recall, _ = skm.precision_recall_curve(y, score)
    line = ax.get_lines()[0]
    np.testing.assert_allclose(line.get_xdata(), recall)
    np.testing.assert_allclose(line.get_ydata(), precision)
    ap = skm.average_precision_score(y, score)
    assert ax.get_legend().get_texts()[0].get_text() == f"AP = {ap:.3f} [0.600, 0.800]"
    # the no-skill line sits at the prevalence
    assert ax.get_lines()[1].get_ydata()[0] == pytest.approx(y.mean())


def test_confusion_matrix_texts_are_sklearn_counts():
    rng = np.random.default_rng(1)
    y = rng.choice(["cat", "dog", "eel"], 200)
    pred = np.where(rng.random(200) < 0.7, y, rng.choice(["cat", "dog", "eel"], 200))
    ax = plot_confusion_matrix(y, pred)
    expected = skm.confusion_matrix(y, pred)
    assert [t.get_text() for t in ax.texts] == [str(v) for v in expected.ravel()]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["cat", "dog", "eel"]
    shares = plot_confusion_matrix(matrix=expected, normalize="true")
    values = np.array([float(t.get_text()) for t in shares.texts]).reshape(3, 3)
    np.testing.assert_allclose(values, expected / expected.sum(1, keepdims=True), atol=0.005)


def test_calibration_points_equal_sklearn_uniform_bins():
    rng = np.random.default_rng(7)
    prob = rng.random(1000)
    y = (rng.random(1000) < prob).astype(int)
    points = calibration_points(y, prob, n_bins=8)
    prob_true, prob_pred = calibration_curve(y, prob, n_bins=8, strategy="uniform")
    np.testing.assert_allclose(points["prob_true"], prob_true, rtol=1e-12)
    np.testing.assert_allclose(points["prob_pred"], prob_pred, rtol=1e-12)
    assert sum(points["counts"]) == 1000
    ax = plot_calibration_curve(y, prob, n_bins=8)
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), prob_true, rtol=1e-12)


def test_error_distribution_pdf_integrates_to_one_and_cdf_ends_at_one():
    rng = np.random.default_rng(0)
    y = rng.normal(size=500)
    pred = y + rng.normal(scale=0.3, size=500)
    ax = plot_error_distribution(y, pred, bins=20)
    hist = ax.patches[0]  # the filled stairs of the histogram
    density, edges = np.histogram(y - pred, bins=20, density=True)
    np.testing.assert_allclose(hist.get_data().values, density)
    assert np.sum(density * np.diff(edges)) == pytest.approx(1.0)
    kde_x, kde_y = ax.get_lines()[0].get_data()
    assert np.sum(kde_y[:-1] * np.diff(kde_x)) == pytest.approx(1.0, abs=1e-3)
    cdf_ax = [a for a in ax.figure.axes if a is not ax][0]
    cdf = cdf_ax.get_lines()[0]
    np.testing.assert_allclose(cdf.get_xdata(), np.sort(y - pred))
    assert cdf.get_ydata()[-1] == 1.0
    same = plot_error_distribution(errors=y - pred, bins=20)
    np.testing.assert_allclose(same.patches[0].get_data().values, density)
    result = plot_error_distribution(errors=error_distribution(y, pred), bins=20)
    np.testing.assert_allclose(result.patches[0].get_data().values, density)


def test_error_distribution_of_equal_errors_has_no_kde():
    ax = plot_error_distribution(errors=[0.5, 0.5, 0.5])
    assert ax.get_legend_handles_labels()[1] == ["PDF (histogram)"]


def test_given_ax_is_used_and_returned(binary):
    y, score = binary
    ax = Figure().subplots()
    assert plot_roc_curve(y, score, ax=ax) is ax
    assert plot_confusion_matrix(matrix=[[1, 2], [3, 4]], ax=Figure().subplots()).texts


@pytest.mark.parametrize("call, message", [
    (lambda: plot_roc_curve(), "give either y_true and y_score, or fpr and tpr; got neither"),
    (lambda: plot_roc_curve([0, 1], [0.1, 0.9], fpr=[0, 1], tpr=[0, 1]), "got both"),
    (lambda: plot_roc_curve(fpr=[0, 1]), "give all of fpr, tpr together"),
    (lambda: plot_confusion_matrix(matrix=[[1, 2, 3], [4, 5, 6]]), "matrix must be square"),
    (lambda: plot_confusion_matrix(matrix=[[1, 2], [3, 4]], labels=["a"]),
     "labels must name the 2 classes"),
    (lambda: plot_confusion_matrix(matrix=[[1]], normalize="rows"), "normalize"),
    (lambda: calibration_points([0, 1], [0.2, 1.5]), r"y_prob must hold probabilities"),
    (lambda: plot_error_distribution([1.0, 2.0]), "give either y_true and y_pred, or errors"),
])
def test_misuse_is_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
