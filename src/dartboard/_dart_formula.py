"""DART's formula (DESIGN.md): the chance-scaled numerator of a mean score and the
score itself, shared by the ranking (:mod:`dartboard.selection`) and its intervals
(:mod:`dartboard._dart_uncertainty`)."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["dart_values", "numerator"]


def numerator(mean: np.ndarray, chance_level: float) -> np.ndarray:
    with np.errstate(divide="ignore"):  # A = 0 -> -inf, the documented convention
        return 1.0 - np.log(mean) / math.log(chance_level)


def dart_values(numerator: np.ndarray, std: np.ndarray,
                 precision: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(exp(p D), DART)``; variance always lowers DART (see module doc)."""
    with np.errstate(over="ignore", invalid="ignore"):
        denominator = np.exp(precision * std)
        dart = np.where(numerator >= 0, numerator / denominator, numerator * denominator)
    return denominator, dart
