"""The points figures are drawn from: thinned curves, calibration bins, error summary,
the (predicted, actual, residual) triples of a regression.

Curves keep at most ``max_points`` evenly spaced points (the two ends always), so a
figure can be redrawn from ``results.json`` without the data whatever its size;
values are rounded to 6 decimals, far below what a figure shows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dartboard._labels import encode_labels, positive_index
from dartboard._rng import RandomStateLike
from dartboard._validation import (
    MAX_BINS,
    as_float_array,
    check_consistent_length,
    check_int,
    column_1d,
)
from dartboard.exceptions import InputError
from dartboard.metrics._calibration import DEFAULT_N_BINS

__all__ = ["thin", "thin_index", "calibration_points", "error_points", "fit_points"]

MAX_POINTS = 400
MAX_ERRORS = 1000
MAX_FIT_POINTS = 1000
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
        keep = thin_index(n, max_points)
        arrays = tuple(a[keep] for a in arrays)
    return [np.round(a.astype(float), 6).tolist() for a in arrays]


def thin_index(n: int, max_points: int = MAX_POINTS) -> np.ndarray:
    """The indices of the points :func:`thin` keeps of ``n`` (all when there are at
    most ``max_points``).

    Examples
    --------
    >>> thin_index(10, max_points=4).tolist()
    [0, 3, 6, 9]
    """
    if n <= max_points:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, max_points).round().astype(np.int64))


def calibration_points(y_true: Any, y_prob: Any, *, n_bins: int = DEFAULT_N_BINS, pos_label: Any = 1,
                       confidence_level: float = 0.95, method: str = "wilson",
                       with_ece: bool = False, n_resamples: int = 2000,
                       random_state: RandomStateLike = 0, clusters: Any = None
                       ) -> dict[str, Any]:
    """Reliability-diagram points: per non-empty uniform bin of ``y_prob`` on [0, 1],
    the mean predicted probability, the observed share of positives, the count, the
    interval of that share (``method``: wilson, jeffreys... with ``n`` the count)
    and the bin's edges (``bin_low``, ``bin_high``: the histogram of ``y_prob``).

    The bins are those of the calibration error: bin ``b`` holds
    ``b / n_bins <= p < (b + 1) / n_bins``, and ``p = 1`` exactly is a bin of its
    own (edges ``[1, 1]``), so that the diagram shows the bins the error is
    computed from. ``with_ece``: also the ECE over these bins with its bootstrap
    interval (``ece``, ``ece_low``, ``ece_high``; the bin-level bootstrap of
    :func:`dartboard.uncertainty.interval_from_calibration_state`, with its default
    method). With ``clusters`` the intervals are the cluster-robust ones of
    :func:`dartboard.uncertainty.calibration_bins` (``"wilson"`` names the
    clustered Wilson interval), the result adds each bin's ``design_effect`` and
    the ``method``, and the ECE's interval is the bootstrap of whole clusters.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities of ``pos_label``.
    n_bins : int, default=15
        Number of uniform bins.
    pos_label : label, default=1
        The positive class.
    confidence_level : float, default=0.95
        Confidence level of the intervals.
    method : str, default="wilson"
        The proportion interval of each bin's share of positives.
    with_ece : bool, default=False
        Also the ECE with its interval.
    n_resamples : int, default=2000
        Resamples of the ECE's interval.
    random_state : None, int, SeedSequence or Generator, default=0
        Seed of those resamples.
    clusters : array-like of shape (n_samples,), optional
        The cluster of each row, when rows of one cluster are not independent.

    Returns
    -------
    dict
        ``prob_pred``, ``prob_true``, ``counts``, ``low``, ``high``, ``bin_low``,
        ``bin_high`` (lists, one item per non-empty bin), with clusters also
        ``design_effect`` (one per bin) and ``method``, and with ``with_ece`` the
        ``ece``, ``ece_low`` and ``ece_high``.

    Examples
    --------
    >>> points = calibration_points([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9], n_bins=2)
    >>> [round(p, 3) for p in points["prob_pred"]], points["prob_true"], points["counts"]
    ([0.15, 0.85], [0.0, 1.0], [2, 2])
    >>> [round(v, 3) for v in points["low"]], [round(v, 3) for v in points["high"]]
    ([0.0, 0.342], [0.658, 1.0])
    >>> clustered = calibration_points([0, 0, 1, 1, 0, 1], [0.1, 0.2, 0.8, 0.9, 0.3, 0.7],
    ...                                n_bins=2, clusters=[0, 1, 0, 1, 2, 2])
    >>> clustered["method"], [round(v, 3) for v in clustered["low"]]
    ('wilson-clustered (3 clusters)', [0.0, 0.139])
    """
    from dartboard._kernels._calibration import bins_from_state
    from dartboard._kernels._clustered import cluster_index
    from dartboard._kernels._clustered_calibration import cluster_sums
    from dartboard.metrics import CalibrationState, calibration_error
    from dartboard.uncertainty import interval, interval_from_calibration_state

    n_bins = check_int(n_bins, "n_bins", minimum=1, maximum=MAX_BINS)
    y_true = column_1d(y_true, name="y_true")
    y_prob = as_float_array(y_prob, name="y_prob")
    check_consistent_length(("y_true", y_true), ("y_prob", y_prob))
    if y_prob.min() < 0 or y_prob.max() > 1:
        raise InputError("y_prob must hold probabilities in [0, 1]; got values in "
                         f"[{y_prob.min():.4g}, {y_prob.max():.4g}]")
    enc = encode_labels(("y_true", y_true))
    positive = enc.codes[0] == positive_index(enc.classes, pos_label, refuse_absent=True)
    state = CalibrationState(n_bins).add(y_prob, positive)
    index = None if clusters is None else cluster_index(clusters, y_prob.shape[0])
    bins = bins_from_state(state, confidence_level, method, clustered=None if index is None
                           else (cluster_sums(y_prob, positive, None, n_bins, None,
                                              index.codes, index.n_clusters),
                                 index.n_clusters))
    out: dict[str, Any] = {
        "prob_pred": bins.mean_predicted.tolist(), "prob_true": bins.observed.tolist(),
        "counts": bins.count.astype(np.int64).tolist(), "low": bins.low.tolist(),
        "high": bins.high.tolist(), "bin_low": bins.bin_low.tolist(),
        "bin_high": bins.bin_high.tolist()}
    if index is not None:
        assert bins.design_effect is not None  # clustered bins carry it
        out.update(design_effect=bins.design_effect.tolist(), method=bins.method)
    if with_ece and index is not None:
        iv = interval(calibration_error, positive, y_prob, n_bins=n_bins,
                      confidence_level=confidence_level, n_resamples=n_resamples,
                      random_state=random_state, clusters=index.codes)
        out.update(ece=iv.estimate, ece_low=iv.low, ece_high=iv.high)
    elif with_ece:
        iv = interval_from_calibration_state(state, confidence_level=confidence_level,
                                             n_resamples=n_resamples,
                                             random_state=random_state)
        out.update(ece=iv.estimate, ece_low=iv.low, ece_high=iv.high)
    return out


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


def fit_points(y_true: Any, y_pred: Any, *, max_points: int = MAX_FIT_POINTS
               ) -> dict[str, list[float]]:
    """The points of the predicted-vs-actual and residual figures of a regression:
    ``predicted``, ``actual`` and ``residual = actual - predicted`` (the sign of
    :func:`dartboard.metrics.error_distribution`), in increasing order of prediction.

    Beyond ``max_points`` rows, evenly spaced rows of that order are kept (the
    smallest and largest predictions always): a thinning without randomness that
    follows the whole range of predictions.

    Examples
    --------
    >>> points = fit_points([3.0, 1.0, 2.0], [2.5, 1.5, 2.0])
    >>> points["predicted"], points["actual"], points["residual"]
    ([1.5, 2.0, 2.5], [1.0, 2.0, 3.0], [-0.5, 0.0, 0.5])
    """
    y_true = as_float_array(y_true, name="y_true")
    y_pred = as_float_array(y_pred, name="y_pred")
    check_consistent_length(("y_true", y_true), ("y_pred", y_pred))
    order = np.argsort(y_pred, kind="stable")
    predicted, actual = y_pred[order], y_true[order]
    predicted, actual, residual = thin(predicted, actual, actual - predicted,
                                       max_points=max_points)
    return {"predicted": predicted, "actual": actual, "residual": residual}
