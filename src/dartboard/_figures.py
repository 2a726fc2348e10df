"""Where a figure drawn without ``ax`` comes from: one pyplot figure, made the same way
by every drawing function of the package (the plots, and an evaluation's own figure).

matplotlib is imported only when a figure is made.
"""

from __future__ import annotations

from typing import Any

__all__ = ["new_axes", "new_figure"]


def new_figure(figsize: tuple[float, float]) -> Any:
    """A new pyplot figure: the one place a plot without ``ax`` makes its figure, so that
    ``plt.show()`` and a notebook's inline backend see it (as ``plt.subplots()`` in
    scikit-learn's Display objects). Its constrained layout keeps tick labels inside."""
    import matplotlib.pyplot as plt

    return plt.figure(figsize=figsize, layout="constrained")


def new_axes(ax: Any, figsize: tuple[float, float] = (5.0, 4.0), **grid: Any) -> Any:
    """``ax``, or the axes of a new pyplot figure (``grid``: ``Figure.subplots``' nrows,
    ncols, squeeze...)."""
    if ax is not None:
        return ax
    return new_figure(figsize).subplots(**grid)
