"""The figure of an evaluation: each metric with its interval, per group when grouped."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dartboard._figures import new_axes
from dartboard.exceptions import InputError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_evaluation", "plot_group_gaps"]


# a panel's title by the registry's unit of its metrics
_UNIT_TITLES = {"none": "without a unit", "target": "in the unit of y",
                "target^2": "in the unit of y squared"}


def _panels(evaluation: Any, names: list[str]) -> list[tuple[str, list[str]]]:
    """The metrics grouped by unit (the registry's ``unit``), in the evaluation's order:
    one panel per unit; a metric of no known unit (your own callable, a unit that
    depends on a keyword) gets a panel of its own."""
    from dartboard.metrics._registry import resolve_metric

    panels: dict[str, list[str]] = {}
    for name in names:
        try:
            spec = resolve_metric(name).spec
        except ValueError:  # a callable of your own, named by its function
            spec = None
        unit = spec.unit if spec is not None else "depends"
        key = unit if unit in _UNIT_TITLES else f"own scale: {name}"
        panels.setdefault(key, []).append(name)
    return [(_UNIT_TITLES.get(key, key), members) for key, members in panels.items()]


def _series(evaluation: Any, names: list[str], groups: bool) -> list[tuple[str, Any]]:
    """(label, frame of estimate/low/high for ``names``): overall, then each group."""
    overall = evaluation.overall
    series = [("overall", overall.loc[names])]
    by_group = evaluation.by_group if groups else None
    if by_group is not None:
        levels = list(by_group.index.names[:-1])
        for key, frame in by_group.groupby(level=levels, sort=False):
            label = ", ".join(map(str, key if isinstance(key, tuple) else (key,)))
            series.append((label, frame.droplevel(levels).loc[names]))
    return series


def _forest(ax: Any, names: list[str], series: list[tuple[str, Any]]) -> None:
    """One row per metric: each series' estimate with its interval bar."""
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
    ax.set_ylim(-0.6, len(names) - 0.4)
    ax.grid(axis="x", alpha=0.3)


def _panel_axes(ax: Any, heights: list[int], height: float) -> list[Any]:
    """One Axes per panel: a new figure's (heights in rows of metrics), or the given."""
    if ax is None:
        return list(new_axes(None, figsize=(6.0, height), nrows=len(heights), squeeze=False,
                              gridspec_kw={"height_ratios": heights})[:, 0])
    axes = list(np.atleast_1d(np.asarray(ax, dtype=object)))
    if len(axes) != len(heights):
        raise InputError(f"these metrics have {len(heights)} scales and need one Axes each; "
                         f"got {len(axes)} (or choose metrics of one scale with metrics=)")
    return axes


def plot_evaluation(evaluation: Any, ax: Any = None, *, metrics: Any = None,
                    groups: bool = True) -> Axes | np.ndarray:
    """Each metric's estimate with its interval bar: a forest plot, one panel per unit.

    Metrics of different units never share an axis (a mean squared error of 3000
    beside an R^2 of 0.3 would squeeze every interval to a dot): the metrics without
    a unit (proportions, scores, R^2...) share one panel, those in the unit of ``y``
    (MAE, RMSE, ...) another, the squared error a third (the registry's ``unit``),
    and a metric of your own has a panel of its own.

    Parameters
    ----------
    evaluation : Evaluation
        From :func:`dartboard.evaluate`.
    ax : matplotlib Axes or sequence of Axes, optional
        One Axes per panel (a new pyplot figure when omitted).
    metrics : list of str, optional
        The rows to draw (default: all).
    groups : bool, default=True
        With groups, draw every group's estimate and interval beside the overall
        one (one colour per group).

    Returns
    -------
    matplotlib.axes.Axes or ndarray of Axes
        The Axes when the metrics have one unit (a classification), else one per
        panel, top to bottom.

    Examples
    --------
    >>> import dartboard
    >>> ev = dartboard.evaluate([1.0, 2.0, 3.5, 4.0, 6.0], [1.2, 1.9, 3.0, 4.4, 5.1],
    ...                         metrics=["r2", "mean_absolute_error", "mean_squared_error"],
    ...                         n_resamples=200, random_state=0)
    >>> [a.get_title(loc="left") for a in plot_evaluation(ev)]
    ['without a unit', 'in the unit of y', 'in the unit of y squared']
    """
    overall = evaluation.overall
    names = list(overall.index) if metrics is None else list(metrics)
    unknown = [m for m in names if m not in overall.index]
    if unknown:
        raise InputError(f"metrics {unknown} are not rows of this evaluation; its rows are "
                         f"{list(overall.index)}")
    panels = _panels(evaluation, names)
    series = _series(evaluation, names, groups)
    per_row = 0.45 * max(1, len(series) ** 0.5)
    axes = _panel_axes(ax, [len(members) for _, members in panels],
                       per_row * len(names) + 1.0 + 0.5 * len(panels))
    level = overall.attrs.get("confidence_level", 0.95)
    for axis, (title, members) in zip(axes, panels):
        _forest(axis, members, [(label, frame.loc[members]) for label, frame in series])
        if len(panels) > 1:
            axis.set_title(title, fontsize="medium", loc="left")
    axes[-1].set_xlabel(f"estimate with its {level:.0%} interval")
    if len(series) > 1:
        axes[0].legend(fontsize="small", loc="best")
    return axes[0] if len(axes) == 1 else np.asarray(axes, dtype=object)


def plot_group_gaps(difference: Any, ax: Any = None) -> Axes | np.ndarray:
    """The largest gap between groups of each metric with its interval bar.

    Parameters
    ----------
    difference : DataFrame or list of dict
        ``Evaluation.difference()`` (index: metric; estimate, low, high, groups), or
        its records (each with a ``metric`` key), as ``results.json`` holds them.
    ax : matplotlib Axes, optional
        Axes to draw on.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from dartboard import evaluate
    >>> ev = evaluate([0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1, 1, 1],
    ...               groups=['a', 'a', 'a', 'a', 'b', 'b', 'b', 'b'], random_state=0)
    >>> ax = plot_group_gaps(ev.difference())
    >>> len(ax.get_yticklabels()) == len(ev.difference())
    True
    """
    import pandas as pd

    frame = difference if isinstance(difference, pd.DataFrame) else \
        pd.DataFrame(list(difference)).set_index("metric")
    frame = frame[np.isfinite(frame["estimate"].astype(float))]
    ax = new_axes(ax, figsize=(6.5, 0.32 * len(frame) + 1.4))
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
