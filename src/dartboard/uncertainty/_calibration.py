"""Calibration with uncertainty: a bin-level bootstrap of the error, intervals per bin.

The fast bootstrap (the calibration family, :mod:`dartboard.families._calibration`,
behind ``interval(calibration_error, ...)``, evaluations and
:func:`interval_from_calibration_state` for merged streaming states) never touches
rows. The rows are grouped into cells of (bin, outcome) of a
:class:`~dartboard.metrics.CalibrationState`: ``m_c`` rows with mean confidence
``mu_c`` and confidence variance ``v_c`` (ddof = 0) in cell ``c``. A replicate

1. draws the cell counts ``m*`` as ``Multinomial(n, m / n)`` (stratified, binary
   only: one multinomial per outcome, i.e. per class of ``y_true``);
2. draws each cell's sum of confidences as ``Normal(m*_c mu_c, m*_c v_c)``.

What is exact. With equal-width bins a row's bin and outcome travel with it, so
step 1 is exactly the law of the (bin, outcome) counts under row resampling;
every bin's observed frequency, count and share of rows are therefore exact.
Step 2 matches the conditional mean and variance of the resampled sum of
confidences given the counts (drawing ``m*_c`` rows of the cell with
replacement); only its shape is the normal limit instead of the discrete law
(the within-bin spread of confidences is at most a bin width, so this term is
small next to the binomial noise of the frequencies). The tests check the
replicates against row resampling within Monte Carlo error. With equal-mass
bins the edges stay at the quantiles of the full data, whereas row resampling
would recompute them on each resample: a documented approximation (the
replicates are those of the binning fixed in advance).

Applies to binary and top-label calibration without sample weights; weights,
``classwise`` and ``marginal`` (whose classes share rows) and stratified
top-label resampling fall back to row resampling. The BCa jackknife is exact
per cell in closed form (leave one row out: ``m_c - 1`` rows, sum less
``mu_c``).

:func:`calibration_bins` gives the reliability diagram's numbers: per
non-empty bin its count, mean confidence, observed frequency and that
frequency's interval (``wilson`` or ``jeffreys``... any proportion method of
:mod:`dartboard.uncertainty._analytic`, with ``n`` the bin's count).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from dartboard._results import Result
from dartboard._rng import check_random_state
from dartboard._validation import check_confidence_level, check_option
from dartboard.metrics._registry import get_spec
from dartboard.uncertainty import _analytic

__all__ = ["CalibrationBins", "calibration_bins", "interval_from_calibration_state"]


@dataclasses.dataclass(frozen=True, repr=False)
class CalibrationBins(Result):
    """Per non-empty bin: what a reliability diagram draws.

    Attributes
    ----------
    bin_low, bin_high : ndarray
        The bin's edges (the bin of ``p = 1`` exactly is ``[1, 1]``).
    count : ndarray
        Rows (sum of weights) in the bin.
    mean_predicted : ndarray
        Mean confidence of the bin.
    observed : ndarray
        Observed frequency of the event (share of positives, or of correct
        top-label predictions).
    low, high : ndarray
        Interval of ``observed`` (a binomial proportion with ``n = count``).
    confidence_level : float
    method : str
    """

    bin_low: np.ndarray
    bin_high: np.ndarray
    count: np.ndarray
    mean_predicted: np.ndarray
    observed: np.ndarray
    low: np.ndarray
    high: np.ndarray
    confidence_level: float
    method: str


def bins_from_state(state: Any, confidence_level: float = 0.95,
                    method: str = "wilson", group: int = 0) -> CalibrationBins:
    """The :class:`CalibrationBins` of a (merged) CalibrationState."""
    level = check_confidence_level(confidence_level)
    method = check_option(method, "method", _analytic.PROPORTION_METHODS)
    b = state.bins(group)
    keep = b["count"] > 0
    count, pos = b["count"][keep], b["positives"][keep]
    bounds = np.array([_analytic.proportion_interval(x, n, level, method)
                       for x, n in zip(pos, count)]).reshape(-1, 2)
    return CalibrationBins(b["low"][keep], b["high"][keep], count, b["sum_p"][keep] / count,
                           pos / count, bounds[:, 0], bounds[:, 1], level, method)


def calibration_bins(y_true: Any, y_proba: Any, *, n_bins: int = 15,
                     strategy: str = "uniform", pos_label: Any = None,
                     sample_weight: Any = None, confidence_level: float = 0.95,
                     method: str = "wilson") -> CalibrationBins:
    """Reliability-diagram bins of :func:`~dartboard.metrics.calibration_error`, with an
    interval for each bin's observed frequency.

    The bins are those of ``calibration_error`` (left-closed, ``p = 1`` in a bin
    of its own); a 2-D ``y_proba`` is judged top-label.

    Examples
    --------
    >>> bins = calibration_bins([0, 1, 1, 1], [0.3, 0.3, 0.8, 0.8], n_bins=2)
    >>> bins.count.tolist(), bins.observed.tolist()
    ([2.0, 2.0], [0.5, 1.0])
    >>> bins.low.round(4).tolist(), bins.high.round(4).tolist()
    ([0.0945, 0.3424], [0.9055, 1.0])
    """
    from dartboard.metrics._calibration import _state

    state = _state(y_true, y_proba, n_bins, strategy, "top_label", sample_weight, pos_label,
                   second_moment=False)
    return bins_from_state(state, confidence_level, method)


# ---------------------------------------------------------------------- bootstrap

def _cells(state: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Non-empty (outcome, bin) cells: flat index, count, mean and sd of confidence."""
    weight, sum_p = state.weight[0].ravel(), state.sum_p[0].ravel()
    cell = np.flatnonzero(weight)
    m = weight[cell]
    mu = sum_p[cell] / m
    var = np.maximum(state.sum_p2[0].ravel()[cell] / m - mu * mu, 0.0)
    return cell, m, mu, np.sqrt(var)


def interval_from_calibration_state(state: Any, *, norm: str = "l1", debiased: bool = False,
                                    method: str = "auto", confidence_level: float = 0.95,
                                    n_resamples: int = 10_000, stratified: bool = False,
                                    random_state: Any = None) -> Any:
    """Bootstrap interval of the calibration error from a (merged) CalibrationState.

    The same replicates as ``interval(calibration_error, ...)`` on the rows the
    state counts (see the module docstring); ``method`` is ``percentile``,
    ``basic`` or ``bca`` (``auto``: the registry's default, basic: near a true
    error of 0 the estimate is biased upward and BCa's correction can leave it
    outside its own interval). Every interval is widened to contain the
    estimate (the registry's ``covers_estimate``): near 0 all replicates can lie
    above it, and the basic interval then ends below it. Whether the error is
    more than noise is a test, :func:`dartboard.calibration_test`. The state
    must hold one group (binary or top-label) and counts of rows (no fractional
    weights).
    """
    from dartboard.families import Metric, family_of
    from dartboard.families._base import interval_of
    from dartboard.families._calibration import CalibrationCells
    from dartboard.metrics._calibration import norm_iv
    from dartboard.uncertainty._interval import _interval_iv

    iv = _interval_iv(None, method, confidence_level, n_resamples, stratified,
                      check_metric=False)
    if iv["method"] not in ("auto", "percentile", "basic", "bca"):
        raise ValueError(f"method must be 'percentile', 'basic', 'bca' or 'auto' for the "
                         f"calibration error; got {iv['method']!r}")
    norm, debiased = norm_iv(norm, debiased)
    if state.n_groups != 1 or not np.all(state.weight == np.round(state.weight)):
        raise ValueError("a bin-level bootstrap needs a binary or top-label state of whole "
                         "row counts (no classwise groups, no fractional sample weights)")
    spec = get_spec("calibration_error")
    return interval_of(family_of(spec), CalibrationCells(state, False),
                       Metric(spec, {"norm": norm, "debiased": debiased}), method=iv["method"],
                       level=iv["confidence_level"], n_resamples=iv["n_resamples"],
                       stratified=iv["stratified"], rng=check_random_state(random_state))
