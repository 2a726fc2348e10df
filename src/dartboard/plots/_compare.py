"""Critical-difference diagram of a model ranking (Demsar 2006, Figure 1)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dartboard._figures import new_axes
from dartboard.compare._results import RankResult
from dartboard.exceptions import InputTypeError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_critical_difference"]


def plot_critical_difference(rank_result: RankResult, ax: Any = None) -> Axes:
    """Draw Demsar's critical-difference diagram of a :func:`dartboard.rank_models` result.

    A horizontal axis of average ranks (1 = best, on the left); each model hangs
    from its average rank, the better half labelled on the left and the rest on
    the right; thick bars join groups of models whose average ranks differ by
    less than Nemenyi's critical difference (not significantly different at
    ``rank_result.alpha``); a bar of length CD is drawn above the axis.

    Parameters
    ----------
    rank_result : RankResult
        The result of :func:`dartboard.rank_models`.
    ax : matplotlib Axes, optional
        Drawn on a new pyplot figure when omitted (``plt.show()`` shows it).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import dartboard
    >>> res = dartboard.rank_models({"a": [.9, .8, .85, .7], "b": [.8, .7, .8, .6],
    ...                              "c": [.85, .75, .9, .65]})
    >>> ax = plot_critical_difference(res)
    >>> sorted(t.get_text() for t in ax.texts if t.get_text() in "abc")
    ['a', 'b', 'c']
    """
    if not isinstance(rank_result, RankResult):
        raise InputTypeError("rank_result must be the result of dartboard.rank_models; got "
                             f"{type(rank_result).__name__}")
    names = rank_result.summary["model"].tolist()
    ranks = rank_result.summary["average_rank"].to_numpy(dtype=np.float64)
    k = rank_result.n_models
    cd = rank_result.critical_difference
    groups = rank_result.groups()
    half = (k + 1) // 2
    step = 0.55
    bar_gap = 0.22
    n_rows_left = half
    n_rows_right = k - half
    depth = (max(n_rows_left, n_rows_right) + 1) * step + len(groups) * bar_gap
    ax = new_axes(ax, figsize=(max(6.0, 1.0 + 0.9 * k), 1.4 + 0.35 * depth / step))
    left_x, right_x = 1.0 - 0.35 * max(1, k - 1) / 2, k + 0.35 * max(1, k - 1) / 2

    # axis of average ranks with integer ticks
    ax.plot([1, k], [0, 0], color="black", lw=1.2)
    minor = np.arange(1.0, k + 0.01, 0.5)
    for x in minor:
        major = float(x).is_integer()
        ax.plot([x, x], [0, -0.12 if major else -0.06], color="black", lw=1.0)
        if major:
            ax.text(x, -0.2, f"{int(x)}", ha="center", va="bottom", fontsize=9)
    # the critical difference, to scale, above the axis
    cd_y = -0.75
    ax.plot([1, 1 + cd], [cd_y, cd_y], color="black", lw=1.5)
    for x in (1, 1 + cd):
        ax.plot([x, x], [cd_y - 0.07, cd_y + 0.07], color="black", lw=1.5)
    ax.text(1 + cd / 2, cd_y - 0.1, f"CD = {cd:.3g}", ha="center", va="bottom", fontsize=9)

    # bars joining models not significantly different, just below the axis
    for j, group in enumerate(groups):
        members = [names.index(g) for g in group]
        y = 0.18 + j * bar_gap
        ax.plot([ranks[min(members)] - 0.03, ranks[max(members)] + 0.03], [y, y],
                color="black", lw=3.5, solid_capstyle="round")
    top = 0.18 + len(groups) * bar_gap + 0.15

    # models: better half to the left, the rest to the right
    for i, (name, rank) in enumerate(zip(names, ranks)):
        if i < half:
            y = top + i * step
            x_end, align = left_x, "right"
        else:
            y = top + (k - 1 - i) * step
            x_end, align = right_x, "left"
        ax.plot([rank, rank, x_end], [0, y, y], color="black", lw=0.9)
        pad = -0.05 if align == "right" else 0.05
        ax.text(x_end + pad, y, name, ha=align, va="center", fontsize=10)
        ax.text(x_end - pad * 0.2 + (0.02 if align == "right" else -0.02), y - 0.05,
                f"{rank:.2f}", ha="left" if align == "right" else "right", va="bottom",
                fontsize=7, color="0.35")

    bottom = top + max(n_rows_left, n_rows_right) * step
    ax.set_xlim(left_x - 0.15 * k, right_x + 0.15 * k)
    ax.set_ylim(bottom, cd_y - 0.35)
    ax.set_axis_off()
    ax.set_title(f"Critical difference (Nemenyi, alpha = {rank_result.alpha:g})",
                 fontsize=10)
    return ax
