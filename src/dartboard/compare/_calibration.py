"""Is the model calibrated? A test by consistency resampling.

The calibration error is biased upward: a perfectly calibrated model on a
finite test set still shows a positive ECE (each bin's observed frequency is
noisy and the error takes its absolute value), so no ordinary bootstrap
interval of the ECE covers a true ECE of 0 (the ``bin-pivot`` interval starts
at 0 exactly when this test does not reject). The question "is this ECE more than noise?" is
a test: under the null hypothesis H0 that the model is calibrated, each
row's outcome is a draw from the model's own probability, and the observed
ECE is compared with the ECEs of such surrogate outcomes (consistency
resampling, Broecker and Smith 2007, "Increasing the reliability of reliability
diagrams", Weather and Forecasting 22:651-661).

Conditional on the forecasts (the bins, their counts ``n_b`` and mean
confidences ``c_b`` stay those of the data), a replicate draws each bin's number
of events and recomputes the error with the same norm and bins:

- binary: the outcome "row is positive" is ``Bernoulli(p_i)``;
- top-label: the outcome "the arg-max class is right" is ``Bernoulli(max_k p_ik)``
  (H0: top-label calibration).

The number of events in a bin is a sum of Bernoulli draws. Where the forecasts
of a bin are all equal (the bin's within-bin variance is 0, e.g. rounded or
tree-model probabilities) it is ``Binomial(n_b, c_b)``, which is exact. Where
they differ its law is Poisson-binomial; the test then draws
``Binomial(n_b, c_b)`` too, whose spread is at least that of the exact law
(Hoeffding 1956: ``E g(S) <= E g(Binomial(n_b, c_b))`` for every convex ``g``,
and a bin's error is convex in its count), so the test errs on the
conservative side; the excess variance is ``sum_i (p_i - c_b)^2``, small for
bins of width ``1/n_bins`` (``benchmarks/calibration_simulation_ece.py``
measures the type I error). A replicate costs O(bins), not O(rows).

The p-value is ``(1 + #{ECE* >= ECE}) / (1 + R)`` over R replicates ``ECE*``
(ties within rounding count, as in :func:`~dartboard.permutation_test`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._rng import RandomStateLike, check_random_state
from dartboard._validation import MAX_BINS, check_int
from dartboard.compare._permutation import count_extreme
from dartboard.compare._results import TestResult
from dartboard.exceptions import InputError

__all__ = ["calibration_test"]

def calibration_test(y_true: ArrayLike, y_proba: ArrayLike, *, n_bins: int = 15,
                     strategy: str = "uniform", norm: str = "l1",
                     multiclass: str = "top_label", debiased: bool = False,
                     pos_label: Any = None, labels: ArrayLike | None = None,
                     n_resamples: int = 9999, random_state: RandomStateLike = None,
                     clusters: ArrayLike | None = None) -> TestResult:
    """Test H0 "the probabilities are calibrated" by consistency resampling.

    See the module docstring. The statistic is
    :func:`~dartboard.metrics.calibration_error` with the same keywords; a small
    p-value says the observed error is larger than calibrated probabilities
    would give on this many rows in these bins.

    Parameters
    ----------
    y_true, y_proba, n_bins, strategy, norm, debiased, pos_label, labels
        As :func:`~dartboard.metrics.calibration_error` (no sample weights).
    multiclass : {"top_label"}, default="top_label"
        A 2-D ``y_proba`` is tested for top-label calibration.
    n_resamples : int, default=9999
        At most 10**8, and ``n_resamples * (n_bins + 1)`` at most 10**9
        (``dartboard._validation.MAX_DRAWS``), refused before any work.
    random_state : None, int, SeedSequence or Generator
        A seed (int), a ``SeedSequence``, a ``Generator``, or None for fresh entropy.
    clusters : None
        Refused when given: the null draws each row's outcome on its own
        (``Bernoulli(p_i)``), which rows of one cluster (a patient, a user) do not
        follow; a test of calibration with clusters is not implemented. Judge the
        error with ``dartboard.interval("calibration_error", ..., clusters=)``
        instead (the bootstrap of whole clusters).

    Returns
    -------
    TestResult
        ``statistic`` and ``estimate``: the observed error; ``alternative``:
        ``"greater"``; ``null_distribution``: the replicates;
        ``details``: ``null_mean`` (the error calibrated probabilities show on
        average: its bias at this size), ``exact_bins`` (whether every bin's
        forecasts are equal, so that the draws are exact).

    Examples
    --------
    Calibrated probabilities give a large p-value, miscalibrated ones a small one:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(5000)
    >>> y = rng.random(5000) < p
    >>> calibration_test(y, p, random_state=0).pvalue > 0.05
    True
    >>> calibration_test(y, p ** 0.5, random_state=0).pvalue < 0.001
    True
    """
    from dartboard._kernels._calibration import (
        bin_error,
        check_draws,
        consistency_null,
    )
    from dartboard.metrics._calibration import binned_state, norm_iv

    if clusters is not None:
        raise InputError("calibration_test does not take clusters: its null draws each "
                         "row's outcome independently, which rows of one cluster do not "
                         "follow; use dartboard.interval('calibration_error', ..., "
                         "clusters=) for an interval over whole clusters")
    norm, debiased = norm_iv(norm, debiased)
    n_bins = check_int(n_bins, "n_bins", minimum=1, maximum=MAX_BINS)
    n_resamples = check_draws(n_resamples, n_bins)
    rng = check_random_state(random_state)
    if multiclass != "top_label":
        raise InputError(f"calibration_test tests binary or top-label calibration; got "
                         f"multiclass={multiclass!r} (classwise outcomes of one row are not "
                         "independent draws per class)")
    state = binned_state(y_true, y_proba, n_bins, strategy, multiclass, None, pos_label,
                   second_moment=True, labels=labels)
    count, events = state.weight[0].sum(0), state.weight[0, 1]
    sum_p = state.sum_p[0].sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = state.sum_p2[0].sum(0) - np.where(count > 0, sum_p**2 / count, 0.0)
    observed = float(bin_error(count, events, sum_p, norm, debiased, state.multiclass))
    null = consistency_null(state, norm, debiased, n_resamples, rng)
    extreme = count_extreme(null, observed, "greater")
    exact_bins = bool(np.all(spread[count > 0] <= 1e-12 * np.maximum(count[count > 0], 1.0)))
    return TestResult(observed, (extreme + 1.0) / (n_resamples + 1.0), "greater",
                      "consistency resampling", observed, False, n_resamples, null,
                      details={"null_mean": float(null.mean()), "exact_bins": exact_bins,
                               "n_bins": state.n_bins, "norm": norm})
