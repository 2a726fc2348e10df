"""Histograms of a stability audit: per-point label stability and uncertainty."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dartboard._figures import new_axes
from dartboard.exceptions import InputError, InputTypeError
from dartboard.stability import StabilityResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_stability"]

_PANELS = ("stability", "uncertainty")
_UNCERTAINTY = (("total", "total H(mean)"), ("aleatoric", "aleatoric E[H]"),
                ("mutual_information", "mutual information"))


def plot_stability(result: StabilityResult, ax: Any = None, *,
                   panels: str | tuple[str, ...] = _PANELS, bins: int = 20) -> Axes | np.ndarray:
    """Histograms of the per-point label stability and uncertainty of an ensemble.

    The ``"stability"`` panel shows the distribution over test points of label
    stability (1 = every model gives the same label) with the mean jitter in the
    title; the ``"uncertainty"`` panel overlays the per-point total, aleatoric
    and mutual-information entropies (bits) as step histograms on one scale.

    Parameters
    ----------
    result : StabilityResult
        From :func:`dartboard.stability_metrics` or :func:`dartboard.stability_audit`.
    ax : matplotlib Axes or sequence of Axes, optional
        One Axes per panel; a new pyplot figure with the panels side by side is made
        when omitted.
    panels : "stability", "uncertainty" or a tuple of both, default both
        Which histograms to draw, in order.
    bins : int, default 20
        Number of bins of each histogram.

    Returns
    -------
    matplotlib.axes.Axes or numpy.ndarray of Axes
        The single Axes when one panel is drawn, otherwise an array with one Axes
        per panel.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> import dartboard
    >>> res = dartboard.stability_metrics(np.random.default_rng(0).random((5, 100)))
    >>> axes = plot_stability(res)
    >>> [a.get_xlabel() for a in axes]
    ['label stability', 'entropy (bits)']
    >>> plot_stability(res, panels="uncertainty").get_xlabel()
    'entropy (bits)'
    """
    if not isinstance(result, StabilityResult):
        raise InputTypeError("result must be a StabilityResult (from stability_metrics or "
                             f"stability_audit); got {type(result).__name__}")
    single = isinstance(panels, str)
    names = (panels,) if single else tuple(panels)
    if not names or any(p not in _PANELS for p in names):
        raise InputError(f"panels must be one of {list(_PANELS)} or a tuple of them; got "
                         f"{panels!r}")
    if ax is None:
        axes = new_axes(None, figsize=(4.5 * len(names), 3.4), ncols=len(names),
                         squeeze=False)[0]
    else:
        axes = np.atleast_1d(np.asarray(ax, dtype=object))
        if axes.shape[0] != len(names):
            raise InputError(f"ax must hold one Axes per panel ({len(names)}); got "
                             f"{axes.shape[0]}")
    point = result.per_point
    for axis, name in zip(axes, names):
        if name == "stability":
            axis.hist(point["label_stability"], bins=bins, range=(0.0, 1.0),
                      color="#4c72b0", edgecolor="white")
            axis.set_xlabel("label stability")
            axis.set_title(f"{result.n_models} models, mean jitter "
                           f"{result.summary['jitter']:.3f}", fontsize=10)
        else:
            top = max(1e-12, float(point["total"].max()))
            for column, label in _UNCERTAINTY:
                axis.hist(point[column], bins=bins, range=(0.0, top), histtype="step",
                          lw=1.6, label=label)
            axis.set_xlabel("entropy (bits)")
            axis.set_title("per-point uncertainty", fontsize=10)
            axis.legend(fontsize=8, frameon=False)
        axis.set_ylabel("test points")
    return axes[0] if single else np.asarray(axes, dtype=object)
