"""The result of every interval of dartboard: :class:`Interval`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dartboard._results import Result

__all__ = ["Interval", "clip_to_range"]


@dataclass(frozen=True, repr=False)
class Interval(Result):
    """A point estimate with its confidence interval.

    Parameters
    ----------
    estimate : float
        The metric on the data (or the mean fold score for :func:`cv_interval`).
    low, high : float
        Interval bounds.
    confidence_level : float
        Confidence level of the interval, in (0, 1).
    method : str
        The method actually used (``method="auto"`` resolved; ``"percentile"``
        when BCa fell back, see :mod:`dartboard.uncertainty`).
    standard_error : float
        Bootstrap: standard deviation of the replicates (ddof = 1). Proportions:
        ``sqrt(p (1 - p) / n)``. DeLong: ``sqrt(var)``; Newcombe: the square root of
        its variance at the estimate. ``cv_interval``: the
        (corrected) standard error of the mean. ``nan`` (with a warning) when the
        metric is undefined.
    bootstrap_distribution : ndarray or None
        The replicates kept (bootstrap methods only).
    n_resamples : int or None
        Resamples drawn (bootstrap methods only).
    metric : str
        Name of the metric.

    Examples
    --------
    >>> from dartboard import interval
    >>> res = interval('accuracy_score', [0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 1, 0, 1, 1, 1, 1])
    >>> res.method, res.estimate, round(res.low, 3), round(res.high, 3)
    ('wilson', 0.875, 0.529, 0.978)
    """

    estimate: float
    low: float
    high: float
    confidence_level: float
    method: str
    standard_error: float
    bootstrap_distribution: np.ndarray | None = None
    n_resamples: int | None = None
    metric: str = ""

    _repr_fields = ("estimate", "low", "high", "confidence_level", "method", "metric")


#: a bound moved by less than this (relative) is rounding, not a clip worth a note
_ROUNDING = 1e-12


def _end(x: float) -> str:
    return "inf" if x == np.inf else "-inf" if x == -np.inf else f"{x:g}"


def clip_to_range(low: float, high: float, bounds: tuple[float, float] | None, method: str
                  ) -> tuple[float, float, str]:
    """``(low, high, method)`` inside the metric's range ``bounds`` (a registry fact).

    The metric cannot lie outside its range, so intersecting an interval with it
    keeps its coverage; an interval that reached beyond it (a ``t`` or ``basic``
    interval near a bound) says so in ``method`` ("t, clipped to [0, inf)").
    """
    if bounds is None:
        return float(low), float(high), method
    lo, hi = bounds
    # np.clip's values (its maximum keeps x where x >= lo, nan and -0.0 included), by
    # comparisons: a row's interval calls this once per metric and group
    new_low, new_high = (float(hi if x > hi else (lo if x < lo else x)) for x in (low, high))
    moved = [abs(a - b) > _ROUNDING * max(1.0, abs(b)) for a, b in
             ((low, new_low), (high, new_high)) if not np.isnan(a)]
    if any(moved):
        left = "(" if lo == -np.inf else "["
        right = ")" if hi == np.inf else "]"
        method = f"{method}, clipped to {left}{_end(lo)}, {_end(hi)}{right}"
    return new_low, new_high, method
