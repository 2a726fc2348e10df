"""Figures of a regression's predictions: predicted against actual, and the residuals.

Each function takes the data (``y_true``, ``y_pred``) or the points an evaluation
saved (:func:`dartboard.evaluation._points.fit_points`, the ``fit`` section of
``results.json``), so a report redraws them without the data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._figures import new_axes
from dartboard._validation import as_float_array, check_consistent_length
from dartboard.plots._metrics import _points

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_predicted_vs_actual", "plot_residuals"]

# many points overlap: small, translucent markers show where they crowd
_MARKER = {"s": 12, "alpha": 0.55, "lw": 0}


def _fit(given: dict[str, Any], y_true: Any, y_pred: Any) -> dict[str, np.ndarray]:
    """The points: the given ones, or those of the data (``fit_points``)."""
    if not _points(given, (y_true, y_pred), ("y_true", "y_pred")):
        from dartboard.evaluation._points import fit_points

        given = {k: v for k, v in fit_points(y_true, y_pred).items() if k in given}
    arrays = {k: as_float_array(v, name=k) for k, v in given.items()}
    check_consistent_length(*arrays.items())
    return arrays


def plot_predicted_vs_actual(y_true: ArrayLike | None = None, y_pred: ArrayLike | None = None, *,
                             predicted: Any = None, actual: Any = None,
                             name: str | None = None, ax: Any = None) -> Axes:
    """Each prediction against its actual value, with the diagonal of perfect
    predictions: points above it are under-predicted, below it over-predicted.

    Parameters
    ----------
    y_true, y_pred : array-like, optional
        Actual and predicted values.
    predicted, actual : array-like, optional
        Precomputed points (``results.json``'s ``fit``), instead of the data.
    name : str, optional
        Legend name of the points.
    ax : matplotlib Axes, optional
        Axes to draw on.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_predicted_vs_actual([1.0, 2.0, 3.0], [1.1, 2.3, 2.7])
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('Predicted', 'Actual')
    """
    pts = _fit({"predicted": predicted, "actual": actual}, y_true, y_pred)
    x, y = pts["predicted"], pts["actual"]
    ax = new_axes(ax, figsize=(5.0, 4.6))
    ax.scatter(x, y, color="C0", label=name or "predictions", **_MARKER)
    both = np.concatenate([x, y])
    low, high = float(both.min()), float(both.max())
    ax.plot([low, high], [low, high], ls="--", lw=1, color="0.4", label="actual = predicted")
    ax.set(xlabel="Predicted", ylabel="Actual", title="Predicted against actual")
    ax.set_aspect("equal", adjustable="datalim")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    return ax


def plot_residuals(y_true: ArrayLike | None = None, y_pred: ArrayLike | None = None, *, predicted: Any = None,
                   residual: Any = None, name: str | None = None, ax: Any = None) -> Axes:
    """Residuals ``actual - predicted`` against the prediction, with the zero line: a
    trend or a funnel says the errors depend on the prediction.

    Parameters
    ----------
    y_true, y_pred : array-like, optional
        Actual and predicted values.
    predicted, residual : array-like, optional
        Precomputed points (``results.json``'s ``fit``), instead of the data.
    name : str, optional
        Legend name of the points.
    ax : matplotlib Axes, optional
        Axes to draw on.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_residuals(predicted=[1.0, 2.0, 3.0], residual=[0.2, -0.1, 0.3])
    >>> ax.get_ylabel()
    'Residual (actual - predicted)'
    """
    pts = _fit({"predicted": predicted, "residual": residual}, y_true, y_pred)
    ax = new_axes(ax, figsize=(5.0, 4.6))
    ax.scatter(pts["predicted"], pts["residual"], color="C0", label=name or "predictions",
               **_MARKER)
    ax.axhline(0.0, ls="--", lw=1, color="0.4", label="no error")
    ax.set(xlabel="Predicted", ylabel="Residual (actual - predicted)", title="Residuals")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    return ax
