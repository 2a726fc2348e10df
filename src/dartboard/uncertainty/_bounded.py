"""A t interval that stays inside a metric's range: the interval on a scale that
maps the range onto the whole line, carried back.

For a mean ``m`` of values in a range with standard error ``se`` and critical value
``q``, the interval is ``g^-1(g(m) +- q se g'(m))`` (the delta method on the scale
``g``), with ``g`` by the range [a, b]:

- both ends finite: ``g(x) = logit((x - a) / (b - a))`` (an AUC, an accuracy, a
  correlation in [-1, 1]);
- only ``a`` finite: ``g(x) = log(x - a)`` (a loss in [0, inf));
- only ``b`` finite: ``g(x) = -log(b - x)`` (R^2 in (-inf, 1]).

Near the middle of the range the interval is the plain t interval's (``g`` is close
to linear there); near an end it is shorter on that side and longer on the other,
as the values of a bounded metric spread, and it never reaches the end: the fold
AUCs 0.985, 1, 0.995, 1, 0.995 (mean 0.995, ``se`` 0.00274, 4 degrees of freedom)
give [0.9774, 0.9989] where the plain interval is [0.9874, 1.0026].
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = ["bounded_t_interval", "scale_name"]


def scale_name(bounds: tuple[float, float]) -> str:
    """``"logit"`` for a range with two finite ends, else ``"log"``."""
    return "logit" if np.isfinite(bounds[0]) and np.isfinite(bounds[1]) else "log"


def bounded_t_interval(mean: float, half: float, bounds: tuple[float, float]
                       ) -> tuple[float, float]:
    """``g^-1(g(mean) +- half g'(mean))`` for the range ``bounds`` (module notes);
    ``half = q se``. A mean at an end of the range (every value there) gives
    ``(mean, mean)``."""
    a, b = bounds
    if half == 0.0 or mean <= a or mean >= b:
        return mean, mean
    if np.isfinite(a) and np.isfinite(b):
        u = (mean - a) / (b - a)
        centre, step = special.logit(u), half / ((b - a) * u * (1.0 - u))
        lo, hi = special.expit(centre - step), special.expit(centre + step)
        return float(a + (b - a) * lo), float(a + (b - a) * hi)
    if np.isfinite(a):
        d = mean - a
        return float(a + d * np.exp(-half / d)), float(a + d * np.exp(half / d))
    d = b - mean
    return float(b - d * np.exp(half / d)), float(b - d * np.exp(-half / d))
