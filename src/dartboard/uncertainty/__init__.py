"""Confidence intervals for every metric: analytic where theory is exact, else bootstrap.

- :func:`interval` (metric, y_true, y_other, ...): proportion intervals (wald,
  wilson, clopper-pearson, agresti-coull, jeffreys), DeLong's interval of ROC AUC,
  and percentile / basic / BCa bootstrap intervals of any metric or callable, with
  fast paths for count metrics (multinomial confusion matrices) and binary AUC /
  average precision (one sort).
- :func:`interval_from_counts` (metric, ConfusionCounts): the same intervals of a
  count metric from its confusion counts alone (streaming, merged states);
  :func:`interval_from_score_state`: DeLong's interval of ROC AUC from a ScoreState.
- :func:`cv_interval` (fold scores): t-interval, with the Nadeau-Bengio correction.
- :class:`Interval`: the result.

Names load lazily, so importing this package costs nothing until it is used.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Interval", "IntervalWarning", "cv_interval", "interval", "interval_from_counts",
           "interval_from_score_state"]

_LAZY = {"interval": "_interval", "cv_interval": "_interval", "Interval": "_interval",
         "IntervalWarning": "_bootstrap", "interval_from_counts": "_state",
         "interval_from_score_state": "_state"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
