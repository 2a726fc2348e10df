"""ROC and PR figures draw a curve band and an operating point they are given."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402

import dartboard  # noqa: E402
from dartboard.plots import plot_precision_recall_curve, plot_roc_curve  # noqa: E402


@pytest.fixture(scope="module")
def scored():
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.4).astype(int)
    return y, y + rng.normal(size=300)


def _band_vertices(ax):
    polys = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(polys) == 1
    return polys[0].get_paths()[0].vertices


@pytest.mark.parametrize("as_dict", [False, True])
def test_roc_band_and_point_are_drawn_where_the_results_say(scored, as_dict):
    y, s = scored
    band = dartboard.roc_band(y, s, specificities=np.linspace(0, 1, 11), n_resamples=200,
                              random_state=0)
    point = dartboard.select_threshold(y, s, n_resamples=200, random_state=0)
    ax = plot_roc_curve(y, s, band=band.to_dict() if as_dict else band,
                        operating_point=point.to_dict() if as_dict else point)
    v = _band_vertices(ax)
    for x, low, high in zip(1 - band.grid, band.low, band.high):
        at = v[np.isclose(v[:, 0], x)][:, 1]
        assert np.isclose(at.min(), low) and np.isclose(at.max(), high)
    marker = [line for line in ax.lines if line.get_marker() == "o"][0]
    x, yv = marker.get_xydata()[0]
    assert x == pytest.approx(1 - point.intervals["tnr"].estimate)
    assert yv == pytest.approx(point.intervals["tpr"].estimate)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "95% pointwise band" in texts
    assert any(t.startswith("threshold") and "youden" in t for t in texts)


def test_roc_band_over_sensitivities_is_horizontal(scored):
    y, s = scored
    band = dartboard.roc_band(y, s, sensitivities=[0.2, 0.5, 0.8], n_resamples=100,
                              random_state=0)
    v = _band_vertices(plot_roc_curve(y, s, band=band))
    for g, low, high in zip(band.grid, band.low, band.high):
        at = v[np.isclose(v[:, 1], g)][:, 0]
        assert np.isclose(at.min(), 1 - high) and np.isclose(at.max(), 1 - low)


def test_pr_band_and_point(scored):
    y, s = scored
    band = dartboard.pr_band(y, s, recalls=[0.25, 0.5, 0.75], kind="simultaneous",
                             n_resamples=200, random_state=0)
    point = dartboard.select_threshold(y, s, criterion="min_recall", target=0.8,
                                       n_resamples=100, random_state=0)
    ax = plot_precision_recall_curve(y, s, band=band, operating_point=point)
    v = _band_vertices(ax)
    for x, low, high in zip(band.grid, band.low, band.high):
        at = v[np.isclose(v[:, 0], x)][:, 1]
        assert np.isclose(at.min(), low) and np.isclose(at.max(), high)
    marker = [line for line in ax.lines if line.get_marker() == "o"][0]
    assert tuple(marker.get_xydata()[0]) == pytest.approx(
        (point.intervals["tpr"].estimate, point.intervals["precision"].estimate))
