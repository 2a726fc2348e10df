"""The points figures are drawn from: thinned curves, calibration bins, error summary.

Curves keep at most ``max_points`` evenly spaced points (the two ends always), so a
figure can be redrawn from ``results.json`` without the data whatever its size;
values are rounded to 6 decimals, far below what a figure shows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dartboard._validation import (
    MAX_BINS,
    as_float_array,
    check_consistent_length,
    check_int,
    column_1d,
)

__all__ = ["thin", "calibration_points", "error_points"]

MAX_POINTS = 400
MAX_ERRORS = 1000
_ERROR_QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
_ABS_ERROR_QUANTILES = (0.5, 0.9, 0.95, 0.99)


def thin(*arrays: np.ndarray, max_points: int = MAX_POINTS) -> list[list[float]]:
    """Keep at most ``max_points`` evenly spaced points of aligned arrays (the ends always).

    Examples
    --------
    >>> thin(np.arange(10.0), max_points=4)
    [[0.0, 3.0, 6.0, 9.0]]
    """
    n = arrays[0].shape[0]
    if n > max_points:
        keep = np.unique(np.linspace(0, n - 1, max_points).round().astype(np.int64))
        arrays = tuple(a[keep] for a in arrays)
    return [np.round(a.astype(float), 6).tolist() for a in arrays]


def calibration_points(y_true: Any, y_prob: Any, *, n_bins: int = 10,
                       pos_label: Any = 1) -> dict[str, list[float]]:
    """Reliability-diagram points: per non-empty uniform bin of ``y_prob`` on [0, 1],
    the mean predicted probability, the observed share of positives and the count.

    Bin ``b`` holds ``b / n_bins <= p < (b + 1) / n_bins``; ``p = 1`` falls in the
    last bin.

    Examples
    --------
    >>> points = calibration_points([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9], n_bins=2)
    >>> [round(p, 3) for p in points["prob_pred"]], points["prob_true"], points["counts"]
    ([0.15, 0.85], [0.0, 1.0], [2, 2])
    """
    n_bins = check_int(n_bins, "n_bins", minimum=1, maximum=MAX_BINS)
    y_true = column_1d(y_true, name="y_true")
    y_prob = as_float_array(y_prob, name="y_prob")
    check_consistent_length(("y_true", y_true), ("y_prob", y_prob))
    if y_prob.min() < 0 or y_prob.max() > 1:
        raise ValueError("y_prob must hold probabilities in [0, 1]; got values in "
                         f"[{y_prob.min():.4g}, {y_prob.max():.4g}]")
    positive = (y_true == pos_label).astype(np.float64)
    bins = np.minimum((y_prob * n_bins).astype(np.int64), n_bins - 1)
    counts = np.bincount(bins, minlength=n_bins)
    sum_prob = np.bincount(bins, weights=y_prob, minlength=n_bins)
    sum_pos = np.bincount(bins, weights=positive, minlength=n_bins)
    keep = counts > 0
    return {"prob_pred": (sum_prob[keep] / counts[keep]).tolist(),
            "prob_true": (sum_pos[keep] / counts[keep]).tolist(),
            "counts": counts[keep].tolist()}


def error_points(y_true: np.ndarray, y_pred: np.ndarray
                 ) -> tuple[list[float], list[tuple[str, float]]]:
    """Sorted errors ``y_true - y_pred`` (a quantile grid of ``MAX_ERRORS`` points for
    larger inputs) and the summary rows: error quantiles, absolute-error quantiles."""
    from dartboard.metrics import error_distribution

    dist = error_distribution(y_true, y_pred)
    errors = dist.errors
    if errors.size > MAX_ERRORS:
        errors = dist.quantile(np.linspace(0, 1, MAX_ERRORS))
    summary = [(f"error quantile {q:g}", float(dist.quantile(q))) for q in _ERROR_QUANTILES]
    summary += [(f"{int(q * 100)}% of absolute errors are below",
                 float(np.quantile(np.abs(y_true - y_pred), q))) for q in _ABS_ERROR_QUANTILES]
    return np.round(np.asarray(errors, dtype=float), 6).tolist(), summary
