"""The figure of an evaluation: each metric with its interval, per group when grouped."""

from __future__ import annotations

from typing import Any

import numpy as np

from dartboard.plots._metrics import _new_axes

__all__ = ["plot_evaluation", "plot_group_gaps"]


def plot_evaluation(evaluation: Any, ax: Any = None, *, metrics: Any = None,
                    groups: bool = True) -> Any:
    """Each metric's estimate with its interval bar: a forest plot.

    Parameters
    ----------
    evaluation : Evaluation
        From :func:`dartboard.evaluate`.
    ax : matplotlib Axes, optional
    metrics : list of str, optional
        The rows to draw (default: all).
    groups : bool, default=True
        With groups, draw every group's estimate and interval beside the overall
        one (one colour per group).

    Returns
    -------
    matplotlib.axes.Axes
    """
    overall = evaluation.overall
    names = list(overall.index) if metrics is None else list(metrics)
    unknown = [m for m in names if m not in overall.index]
    if unknown:
        raise ValueError(f"metrics {unknown} are not rows of this evaluation; its rows are "
                         f"{list(overall.index)}")
    by_group = evaluation.by_group if groups else None
    series = [("overall", overall.loc[names])]
    if by_group is not None:
        levels = list(by_group.index.names[:-1])
        for key, frame in by_group.groupby(level=levels, sort=False):
            label = ", ".join(map(str, key if isinstance(key, tuple) else (key,)))
            series.append((label, frame.droplevel(levels).loc[names]))
    ax = _new_axes(ax, figsize=(6.0, 0.45 * len(names) * max(1, len(series) ** 0.5) + 1.2))
    y = np.arange(len(names))[::-1].astype(float)
    step = 0.8 / len(series)
    for i, (label, frame) in enumerate(series):
        offset = ((len(series) - 1) / 2 - i) * step  # overall on top
        est = frame["estimate"].to_numpy(dtype=float)
        low = frame["low"].to_numpy(dtype=float)
        high = frame["high"].to_numpy(dtype=float)
        has = np.isfinite(low) & np.isfinite(high)
        # rounding can put a bound a hair inside the estimate (Wilson at x = n)
        err = np.maximum(np.vstack([np.where(has, est - low, 0.0),
                                    np.where(has, high - est, 0.0)]), 0.0)
        ax.errorbar(est, y + offset, xerr=err, fmt="o", ms=4, capsize=2.5, lw=1.2,
                    color="black" if label == "overall" else None, label=label)
    ax.set_yticks(y, names)
    level = overall.attrs.get("confidence_level", 0.95)
    ax.set_xlabel(f"estimate with its {level:.0%} interval")
    ax.grid(axis="x", alpha=0.3)
    if len(series) > 1:
        ax.legend(fontsize="small", loc="best")
    return ax


def plot_group_gaps(difference: Any, ax: Any = None) -> Any:
    """The largest gap between groups of each metric with its interval bar.

    Parameters
    ----------
    difference : DataFrame or list of dict
        ``Evaluation.difference()`` (index: metric; estimate, low, high, groups), or
        its records (each with a ``metric`` key), as ``results.json`` holds them.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    import pandas as pd

    frame = difference if isinstance(difference, pd.DataFrame) else \
        pd.DataFrame(list(difference)).set_index("metric")
    frame = frame[np.isfinite(frame["estimate"].astype(float))]
    ax = _new_axes(ax, figsize=(6.5, 0.32 * len(frame) + 1.4))
    y = np.arange(len(frame))[::-1].astype(float)
    est = frame["estimate"].to_numpy(dtype=float)
    low = frame["low"].astype(float).to_numpy()
    high = frame["high"].astype(float).to_numpy()
    err = np.maximum(np.vstack([est - low, high - est]), 0.0)
    ax.errorbar(est, y, xerr=err, fmt="o", ms=4, capsize=2.5, lw=1.2, color="black")
    ax.axvline(0.0, ls="--", lw=1, color="grey")
    labels = [f"{m}  ({g})" if g else m for m, g in zip(frame.index, frame.get(
        "groups", pd.Series([""] * len(frame), index=frame.index)))]
    ax.set_yticks(y, labels)
    ax.set_xlabel("largest gap (higher - lower group) with its interval")
    ax.grid(axis="x", alpha=0.3)
    return ax
