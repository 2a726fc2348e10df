"""Matplotlib figures, in the manner of scikit-learn's Display objects.

Every function takes an optional ``ax`` (a new figure is made when omitted) and
returns the ``matplotlib.axes.Axes`` it drew on. matplotlib is imported only when a
plot is drawn.
"""

from __future__ import annotations

import importlib
from typing import Any

_FAMILIES = {
    "dartboard.plots._metrics": [
        "plot_roc_curve", "plot_precision_recall_curve", "plot_confusion_matrix",
        "plot_calibration_curve", "plot_error_distribution",
    ],
    "dartboard.plots._compare": ["plot_critical_difference"],
    "dartboard.plots._selection": ["plot_dart_sweep", "plot_fold_scores"],
    "dartboard.plots._stability": ["plot_stability"],
}

_LAZY = {name: module for module, names in _FAMILIES.items() for name in names}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dartboard.plots' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
