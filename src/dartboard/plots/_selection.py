"""Figures for DART model selection: DART against precision, and fold scores."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from dartboard._dart_formula import dart_values as _dart_values
from dartboard._figures import new_axes
from dartboard.exceptions import InputTypeError
from dartboard.selection import DartSweepResult, dart_rank

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_dart_sweep", "plot_fold_scores"]

_CURVE_POINTS = 400
# fold scores of DART lie in [0, 1] (dart_rank refuses others)
_SCORE_RANGE = (0.0, 1.0)


def plot_dart_sweep(sweep_result: DartSweepResult, ax: Any = None) -> Axes:
    """DART against precision for every configuration, with the winner of each range.

    One line per configuration (configurations that win somewhere in colour and in
    the legend, the others thin and grey), one shaded band per interval of
    ``sweep_result.winners`` in the colour of its winner, and the exact crossing
    points of ``sweep_result.crossings`` marked. Curves are drawn from the formula
    on a fine grid that includes the crossings, not only at the sweep's precisions.

    Parameters
    ----------
    sweep_result : DartSweepResult
        The result of :func:`dartboard.dart_sweep`.
    ax : matplotlib Axes, optional
        Drawn on a new pyplot figure when omitted (``plt.show()`` shows it).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from dartboard import dart_sweep
    >>> folds = {'deep': [0.95, 0.80, 0.97, 0.84], 'shallow': [0.88, 0.87, 0.89, 0.88]}
    >>> ax = plot_dart_sweep(dart_sweep(folds, [0, 1, 2, 5]))
    >>> ax.get_xlabel()
    'precision p (weight of fold-to-fold stability)'
    """
    if not isinstance(sweep_result, DartSweepResult):
        raise InputTypeError("sweep_result must be the result of dartboard.dart_sweep; got "
                             f"{type(sweep_result).__name__}")
    ax = new_axes(ax, figsize=(7.0, 4.5))
    import matplotlib as mpl

    conf = sweep_result.configurations
    p_lo, p_hi = float(sweep_result.precisions[0]), float(sweep_result.precisions[-1])
    p = np.union1d(np.linspace(p_lo, p_hi, _CURVE_POINTS), sweep_result.crossings["p"])
    _, curves = _dart_values(conf["numerator"].to_numpy()[None, :],
                             conf["std"].to_numpy()[None, :], p[:, None])

    palette = mpl.colormaps["tab10"].colors  # type: ignore[attr-defined]  # a ListedColormap
    winner_ids = list(dict.fromkeys(sweep_result.winners["index"].tolist()))
    colour = {idx: palette[i % len(palette)] for i, idx in enumerate(winner_ids)}
    for row in sweep_result.winners.itertuples(index=False):
        ax.axvspan(row.p_start, row.p_end, color=colour[row.index], alpha=0.12, lw=0)
    column = {idx: j for j, idx in enumerate(conf.index)}
    for idx in conf.index:
        if idx not in colour:
            ax.plot(p, curves[:, column[idx]], color="0.6", lw=0.8, alpha=0.7, zorder=2)
    for idx in winner_ids:  # legend in the order the configurations win
        ax.plot(p, curves[:, column[idx]], color=colour[idx], lw=2, zorder=3,
                label=conf.loc[idx, "configuration"])
    cross = sweep_result.crossings
    if len(cross):
        ax.scatter(cross["p"], cross["dart"], s=36, facecolor="white", edgecolor="black",
                   zorder=4, label="winner changes")
        for pc, value in zip(cross["p"], cross["dart"]):
            ax.annotate(f"p={pc:.3g}", (pc, value), textcoords="offset points",
                        xytext=(4, 6), fontsize=8)
    ax.set_xlim(p_lo, p_hi if p_hi > p_lo else p_lo + 1.0)
    ax.set_xlabel("precision p (weight of fold-to-fold stability)")
    ax.set_ylabel("DART")
    ax.set_title("DART against precision; shaded: winner")
    ax.legend(fontsize=8, loc="best")
    return ax


def plot_fold_scores(rank_frame_or_results: Any, ax: Any = None) -> Axes:
    """Mean fold score +- one standard deviation (ddof = 1) per configuration.

    The bars stop at the ends of the scores' range [0, 1]: a mean of 0.98 with a
    standard deviation of 0.03 is drawn from 0.95 to 1, not past a score no fold can
    reach.

    Parameters
    ----------
    rank_frame_or_results : DataFrame or results
        A :func:`dartboard.dart_rank` table (drawn in its rank order, best at the
        top), or anything ``dart_rank`` accepts (drawn best mean at the top).
    ax : matplotlib Axes, optional
        Drawn on a new pyplot figure when omitted (``plt.show()`` shows it).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> folds = {'deep': [0.95, 0.80, 0.97, 0.84], 'shallow': [0.88, 0.87, 0.89, 0.88]}
    >>> ax = plot_fold_scores(folds)
    >>> [label.get_text() for label in ax.get_yticklabels()]
    ['deep', 'shallow']
    """
    frame = rank_frame_or_results
    if not (isinstance(frame, pd.DataFrame)
            and {"configuration", "mean", "std"} <= set(frame.columns)):
        frame = dart_rank(frame, 0.0)
    ax = new_axes(ax, figsize=(7.0, 1.2 + 0.4 * len(frame)))
    y = np.arange(len(frame))
    mean, std = frame["mean"].to_numpy(dtype=float), frame["std"].to_numpy(dtype=float)
    low, high = _SCORE_RANGE
    err = np.vstack([np.minimum(std, mean - low), np.minimum(std, high - mean)])
    ax.errorbar(mean, y, xerr=err, fmt="o", capsize=3, color="C0", ecolor="C0")
    ax.set_yticks(y, frame["configuration"].astype(str).tolist())
    ax.invert_yaxis()
    ax.set_xlabel("fold score: mean +- std (ddof = 1), within [0, 1]")
    ax.set_title("Fold scores per configuration")
    return ax
