"""Reliability diagram: per-bin observed frequency with its interval, and the histogram
of predicted probabilities beneath it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._figures import new_figure
from dartboard._rng import RandomStateLike
from dartboard.evaluation._points import calibration_points
from dartboard.exceptions import InputError
from dartboard.metrics._calibration import DEFAULT_N_BINS
from dartboard.plots._metrics import _bounds, _label

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_reliability_diagram"]

_KEYS = ("prob_pred", "prob_true", "counts", "low", "high", "bin_low", "bin_high")


def plot_reliability_diagram(y_true: ArrayLike | None = None, y_prob: ArrayLike | None = None, *,
                             n_bins: int = DEFAULT_N_BINS,
                             pos_label: Any = 1, points: dict[str, Any] | None = None,
                             ece: float | None = None, interval: Any = None,
                             confidence_level: float = 0.95, method: str = "wilson",
                             random_state: RandomStateLike = 0, name: str | None = None,
                             fig: Any = None) -> tuple[Axes, Axes]:
    """Reliability diagram with per-bin intervals, and a histogram of the probabilities.

    Top: the observed share of positives against the mean predicted probability
    of each non-empty bin, with the interval of that share as an error bar (a bin
    of few rows has a long bar: noise, not necessarily miscalibration); the title
    gives the ECE with its interval. Bottom: how many predictions fall in each
    bin. The bins are those of :func:`dartboard.metrics.calibration_error`, and
    ``n_bins`` is its default (15), so that the ECE in the title is the one
    ``calibration_error`` gives.

    Parameters
    ----------
    y_true, y_prob : array-like, optional
        Binary labels and predicted probabilities of ``pos_label``; binned (and
        the ECE with its interval computed) by
        :func:`dartboard.evaluation.calibration_points`.
    points : dict, optional
        Precomputed points instead (``calibration_points``' keys), e.g. from
        ``results.json``.
    ece, interval : float and Interval or (low, high), optional
        The ECE to print and its interval (with data: the bins' own ECE).
    confidence_level, method, random_state
        Of the per-bin intervals (``method``: wilson, jeffreys, ...) and the
        ECE's bootstrap, when data are given.
    fig : matplotlib.figure.Figure, optional
        Drawn on (two axes are added); a new pyplot figure when omitted.
    n_bins : int, default=15
        Number of bins (``calibration_error``'s default).
    pos_label : int, float, bool or str, default=1
        The positive class.
    name : str, optional
        The model's name, in the legend (default "model").

    Returns
    -------
    (matplotlib.axes.Axes, matplotlib.axes.Axes)
        The diagram and the histogram.

    Examples
    --------
    >>> ax, hist = plot_reliability_diagram([0, 0, 1, 1, 1, 0], [0.1, 0.2, 0.8, 0.9, 0.7, 0.6],
    ...                                     n_bins=2)
    >>> ax.get_title().startswith("Reliability diagram"), hist.get_ylabel()
    (True, 'Count')
    """
    if (points is None) == (y_true is None or y_prob is None):
        raise InputError("give either y_true and y_prob, or points")
    if points is None:
        points = calibration_points(y_true, y_prob, n_bins=n_bins, pos_label=pos_label,
                                    confidence_level=confidence_level, method=method,
                                    with_ece=True, random_state=random_state)
        if ece is None:
            ece, interval = points["ece"], (points["ece_low"], points["ece_high"])
    missing = [k for k in _KEYS if k not in points]
    if missing:
        raise InputError(f"points lacks {missing}; see dartboard.evaluation.calibration_points")
    pred, true, low, high, left, right, counts = (
        np.asarray(points[k], dtype=float) for k in
        ("prob_pred", "prob_true", "low", "high", "bin_low", "bin_high", "counts"))
    if fig is None:
        fig = new_figure((5.0, 5.6))
    ax, hist = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    ax.plot([0, 1], [0, 1], ls="--", lw=1, color="0.6", label="perfectly calibrated")
    ax.errorbar(pred, true, yerr=[np.maximum(true - low, 0), np.maximum(high - true, 0)],
                fmt="o-", lw=1.5, capsize=3, label=name or "model")
    title = "Reliability diagram"
    if ece is not None:
        title += " (" + _label(None, "ECE", float(ece), _bounds(interval)) + ")"
    ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), ylabel="Observed share of positives",
           title=title)
    ax.legend(loc="upper left", fontsize="small")
    # the bin of p = 1 exactly has no width: draw it as a thin bar at 1
    widths = np.where(right > left, right - left, 0.01)
    hist.bar(np.where(right > left, left, 1.0 - 0.01), counts, width=widths, align="edge",
             color="C0", alpha=0.6, edgecolor="white")
    hist.set(xlabel="Mean predicted probability (bins of predicted probability)",
             ylabel="Count")
    return ax, hist
