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
:mod:`dartboard._kernels._analytic`, with ``n`` the bin's count).

The ``bin-pivot`` interval (the default of the calibration error)
-----------------------------------------------------------------
The estimate ``E`` of a binned error is biased upward, and by an amount that
depends on the unknown truth: a bin whose true deviation ``d_b`` is well
beyond its noise contributes no bias, a bin with ``d_b`` near 0 contributes
about ``0.8 se_b`` (``se_b^2 = c_b (1 - c_b) / n_b``). The basic bootstrap takes
the bias of a world whose deviations are the observed ones, which are inflated
by that same noise, and so its interval can lie wholly above a small true error
(true ECE 0.056: 76% coverage at n = 100). ``bin-pivot`` draws the pivot
``E* - E_world`` in two bin-level worlds (bin counts ``Multinomial(n, n_b / n)``,
events ``Binomial(n*_b, pi_b)``, confidence sums as above) whose true
frequencies ``pi_b`` move each observed deviation ``d_b = o_b - c_b``: by
``0.5 se_b`` towards calibration for the lower bound (more bias than the data
show, so the lower bound is not too high), by ``0.75 se_b`` away from it for the
upper bound (less bias, so the upper bound is not too low).
``E_world`` is the world's own binned error (the plain one, also for the
debiased estimator). Then

- if the observed error exceeds the ``1 - alpha`` quantile of the errors that
  calibrated forecasts give in these bins (the consistency resampling of
  :func:`dartboard.calibration_test`: events ``Binomial(n_b, c_b)``), the
  interval is ``[E - q_{1-alpha/2}(pivot_low), E - q_{alpha/2}(pivot_high)]``;
- otherwise calibration is not rejected and the interval is the one-sided
  ``[0, E - q_{alpha}(pivot_high)]``.

Both ends are clipped to [0, 1]; the interval is for the population's binned
error, and it could lie below the (biased) estimate (it did not in 900 data sets
of the table's models). The shifts were chosen by coverage among 0.5, 0.75 and 1
standard errors for each end: larger shifts over-cover (98-99%) where the signal
per bin is small, smaller ones let the crossing model's lower bound and the
smallest error's upper bound miss. It applies to one binary or top-label state of
whole row counts; other cases use the row bootstrap's ``basic`` interval.

Coverage of the 95% interval of the ECE, 15 bins, uniform probabilities, outcomes
``Bernoulli(q(p))``, truth by quadrature over the same bins, 1000 data sets per cell
(``python benchmarks/calibration_simulation_ece.py --tables coverage``); bin-pivot,
with the old default ``basic`` in brackets::

    true ECE, model                  n = 100        n = 1,000      n = 10,000
    0      q = p                     0.955 (0.252)  0.954 (0.420)  0.957 (0.403)
    0.020  q = p^1.083               0.950 (0.513)  0.970 (0.896)  0.954 (0.876)
    0.056  q = p^1.25                0.959 (0.778)  0.973 (0.861)  0.946 (0.937)
    0.056  q = expit(0.68 logit p)   0.921 (0.763)  0.971 (0.899)  0.970 (0.939)
    0.167  q = p^2                   0.962 (0.851)  0.944 (0.935)  0.937 (0.930)

At a true ECE of 0 the interval is ``[0, U]`` in 95.4-95.7% of the data sets.

:func:`pivot_intervals_analytic` gives the same interval (l1, plain estimator)
for many groups at once without Monte Carlo: the worlds' and the consistency
null's errors by their first three moments in closed form (its docstring). On the
same 1000 data sets per cell of the table's models at n = 50 to 10,000 its
coverage is within 0.017 of the Monte Carlo's (crossing, n = 50; elsewhere
0.008), the two agree on the one-sided branch in 98.8-100% of the data sets, and
1000 groups take 0.03-0.3 s instead of 7-19 s
(``python benchmarks/calibration_analytic_pivot_coverage.py``). It is the
calibration family's ``bin-pivot`` of the ECE (l1, not debiased) of at least
:data:`ANALYTIC_MIN_ROWS` rows in every route; :func:`pivot_interval` draws the pivot
of fewer rows, of the ``l2`` and ``max`` norms and of the debiased error, and is the
tests' reference for the closed form.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from dartboard._kernels import _analytic, _bootstrap
from dartboard._kernels._clustered_calibration import (
    BIN_METHODS,
    cluster_sums,
    clustered_bin_intervals,
    deviation_sign,
)
from dartboard._kernels._methods import PIVOT, PROPORTION_METHODS
from dartboard._results import Result
from dartboard._validation import (
    check_confidence_level,
    check_n_resamples,
    check_option,
    rescaled_weights,
)
from dartboard.exceptions import InputError

__all__ = ["CalibrationBins", "PIVOT", "calibration_bins", "consistency_null",
           "pivot_interval", "pivot_intervals_analytic", "state_bins",
           "ANALYTIC_MIN_ROWS"]


@dataclasses.dataclass(frozen=True, repr=False)
class CalibrationBins(Result):
    """Per non-empty bin: what a reliability diagram draws.

    Parameters
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
        Interval of ``observed`` (a binomial proportion with ``n = count``; with
        clusters, the cluster-robust interval of a ratio of per-cluster sums).
    confidence_level : float
        Confidence level of the bins' intervals, in (0, 1).
    method : str
        The interval method of the bins' observed frequencies.
    standard_error : ndarray or None
        With clusters: the cluster-robust standard error of ``observed`` (nan where
        the bin's rows lie in one cluster); None without.
    design_effect : ndarray or None
        With clusters: each bin's clustered variance over the independent one,
        ``o (1 - o) / count`` (nan where ``observed`` is 0 or 1); None without.

    Examples
    --------
    >>> from dartboard.uncertainty import calibration_bins
    >>> y_true = [0, 1, 1, 0, 1, 0, 1, 1]
    >>> y_proba = [0.2, 0.9, 0.6, 0.3, 0.8, 0.55, 0.7, 0.4]
    >>> bins = calibration_bins(y_true, y_proba, n_bins=2)
    >>> bins.count.tolist(), bins.observed.round(3).tolist()
    ([3.0, 5.0], [0.333, 0.8])
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
    standard_error: np.ndarray | None = None
    design_effect: np.ndarray | None = None


def bins_from_state(state: Any, confidence_level: float = 0.95,
                    method: str = "wilson", group: int = 0,
                    clustered: tuple[Any, int] | None = None) -> CalibrationBins:
    """The :class:`CalibrationBins` of a (merged) CalibrationState; ``clustered``:
    the ``(matrix, n_clusters)`` of :func:`~dartboard._kernels._clustered_calibration.
    cluster_sums` of its rows, for the cluster-robust intervals."""
    level = check_confidence_level(confidence_level)
    b = state.bins(group)
    keep = b["count"] > 0
    count, pos = b["count"][keep], b["positives"][keep]
    edges: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] = (
        b["low"][keep], b["high"][keep], count, b["sum_p"][keep] / count, pos / count)
    if clustered is not None:
        return _clustered_bins(edges, state, keep, clustered, level, method)
    if method in BIN_METHODS and method not in PROPORTION_METHODS:
        raise InputError(f"method={method!r} is a cluster-robust interval and needs "
                         "clusters=; without clusters use 'wilson' or 'wald'")
    method = check_option(method, "method", PROPORTION_METHODS)
    bounds = np.array([_analytic.proportion_interval(x, n, level, method)
                       for x, n in zip(pos, count)]).reshape(-1, 2)
    return CalibrationBins(*edges, bounds[:, 0], bounds[:, 1], level, method)


def _clustered_bins(edges: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
                    state: Any, keep: np.ndarray,
                    clustered: tuple[Any, int], level: float, method: str
                    ) -> CalibrationBins:
    """The bins with the cluster-robust intervals of the first group's frequencies."""
    how = BIN_METHODS.get(method) if isinstance(method, str) else None
    if how is None:
        raise InputError(f"with clusters, method must be one of {list(BIN_METHODS)} (the "
                         f"cluster-robust Wilson or Wald interval of each bin); got {method!r}")
    matrix, n_clusters = clustered
    slots = state.n_bins + 1
    # group 0's cells: outcome 0 then outcome 1, each over the bins (kept sparse: a
    # cluster has rows in a few bins)
    bins = np.flatnonzero(keep)
    events = matrix[:, slots + bins].tocsc()
    found = clustered_bin_intervals(events, (matrix[:, bins] + events).tocsc(), level, how)
    return CalibrationBins(*edges, found.low, found.high, level,
                           f"{how} ({n_clusters} clusters)", found.standard_error,
                           found.design_effect)


def calibration_bins(y_true: ArrayLike, y_proba: ArrayLike, *, n_bins: int = 15,
                     strategy: str = "uniform", pos_label: Any = None,
                     sample_weight: ArrayLike | None = None, confidence_level: float = 0.95,
                     method: str = "wilson", clusters: ArrayLike | None = None
                     ) -> CalibrationBins:
    """Reliability-diagram bins of :func:`~dartboard.metrics.calibration_error`, with an
    interval for each bin's observed frequency.

    The bins are those of ``calibration_error`` (left-closed, ``p = 1`` in a bin
    of its own); a 2-D ``y_proba`` is judged top-label.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (of ``pos_label`` when 1-D).
    n_bins : int, default=15
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Bins of equal width or of equal mass.
    pos_label : label, optional
        The positive class of 1-D probabilities.
    sample_weight : array-like of shape (n_samples,), optional
        Sample weights.
    confidence_level : float, default=0.95
        Confidence level of the intervals.
    method : str, default="wilson"
        The proportion interval of each bin's observed frequency. With clusters
        ``"wilson"`` (or ``"wilson-clustered"``) and ``"wald"`` (or
        ``"wald-clustered"``) name their cluster-robust forms (Notes).
    clusters : array-like of shape (n_samples,), optional
        The cluster of each row (a patient, a user, a benchmark passage) when rows
        of one cluster are not independent; each bin's interval then accounts for
        the rows of a cluster moving together, and the result gives each bin's
        cluster-robust standard error and design effect.

    Returns
    -------
    CalibrationBins
        Per non-empty bin: count, mean predicted probability, observed frequency
        and its interval.

    Notes
    -----
    With clusters, bin ``b``'s observed frequency is a ratio of per-cluster sums,
    ``o_b = sum_c x_cb / sum_c n_cb`` (events and rows of cluster ``c`` in the bin),
    with the cluster-robust variance

        V_b = I_b / (I_b - 1) * sum_c (x_cb - o_b n_cb)^2 / n_b^2

    over the ``I_b`` clusters with rows in the bin (Miller 2024, eq. 6; statsmodels'
    ``cov_type="cluster"``), and the design effect ``V_b / (o_b (1 - o_b) / n_b)``.
    ``wald-clustered`` is ``o_b +- t_{I_b - 1} sqrt(V_b)``; ``wilson-clustered`` is
    Wilson's interval at ``n_b / max(deff_b, 1)`` rows with ``t_{I_b - 1}`` for ``z``
    (Korn & Graubard 1998), which keeps a width where a bin's rows all agree. A bin
    whose rows lie in one cluster gets [0, 1].
    :mod:`dartboard._kernels._clustered_calibration` has the details and
    ``benchmarks/clustered_calibration_coverage.py`` their coverage.

    Examples
    --------
    >>> bins = calibration_bins([0, 1, 1, 1], [0.3, 0.3, 0.8, 0.8], n_bins=2)
    >>> bins.count.tolist(), bins.observed.tolist()
    ([2.0, 2.0], [0.5, 1.0])
    >>> bins.low.round(4).tolist(), bins.high.round(4).tolist()
    ([0.0945, 0.3424], [0.9055, 1.0])

    Forty patients, five visits each, a patient effect on the outcome:

    >>> rng = np.random.default_rng(0)
    >>> patient = np.repeat(np.arange(40), 5)
    >>> p = rng.uniform(0.05, 0.95, 200)
    >>> y = rng.uniform(size=200) < np.clip(p + rng.normal(0, 0.2, 40)[patient], 0, 1)
    >>> bins = calibration_bins(y, p, n_bins=5, clusters=patient)
    >>> bins.method
    'wilson-clustered (40 clusters)'
    >>> bins.design_effect.round(2).tolist()
    [1.01, 1.36, 1.31, 1.11, 1.31]
    """
    from dartboard._kernels._clustered import cluster_index
    from dartboard.metrics._calibration import binned_state, confidences

    state = binned_state(y_true, y_proba, n_bins, strategy, "top_label", sample_weight, pos_label,
                   second_moment=False)
    if clusters is None:
        return bins_from_state(state, confidence_level, method)
    conf, hit, w, _ = confidences(y_true, y_proba, sample_weight, pos_label, "top_label")
    index = cluster_index(clusters, conf.shape[0])
    matrix = cluster_sums(conf, hit, None if w is None else rescaled_weights(w), state.n_bins,
                          state.edges, index.codes, index.n_clusters)
    return bins_from_state(state, confidence_level, method,
                           clustered=(matrix, index.n_clusters))


# ---------------------------------------------------------------------- bootstrap

def cell_moments(state: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Non-empty (outcome, bin) cells: flat index, count, mean and sd of confidence."""
    weight, sum_p = state.weight[0].ravel(), state.sum_p[0].ravel()
    cell = np.flatnonzero(weight)
    m = weight[cell]
    mu = sum_p[cell] / m
    var = np.maximum(state.sum_p2[0].ravel()[cell] / m - mu * mu, 0.0)
    return cell, m, mu, np.sqrt(var)


# ---------------------------------------------------------------------- bin-pivot

#: How far the worlds of the bin-pivot interval move each bin's deviation, in
#: standard errors of its frequency under calibration: towards calibration for the
#: lower bound, away from it for the upper one (chosen by coverage, module docstring)
PIVOT_SHIFT = (0.5, 0.75)


def state_bins(state: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per bin of a one-group state: count, events, mean confidence, its sd (ddof 0)."""
    count, events = state.weight[0].sum(0), state.weight[0, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, state.sum_p[0].sum(0) / count, 0.0)
        second = np.where(count > 0, state.sum_p2[0].sum(0) / count, 0.0)
    return count, events, mean, np.sqrt(np.maximum(second - mean * mean, 0.0))


def bin_residuals(state: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bin of a one-group state: rows m_b, the sum S_b of (outcome - confidence)
    over them and Q_b of its squares (the l1 error is ``sum_b |S_b| / n``)."""
    weight, sum_p, sum_p2 = state.weight[0], state.sum_p[0], state.sum_p2[0]
    events = weight[1]
    return (weight.sum(0), events - sum_p.sum(0),
            events - 2.0 * sum_p[1] + sum_p2.sum(0))


#: values of the bins' normal replicates drawn at once
_NORMAL_BINS_VALUES = 1 << 20


def grouped_bins_normal(residual: np.ndarray, square: np.ndarray, count: np.ndarray,
                        n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``(R, G + 1)`` bootstrap replicates of the l1 calibration error (ECE) of G groups
    and of all their rows, in the normal limit of each group's bins.

    ``residual``, ``square``, ``count``: (G, B) per group and bin, S_gb, Q_gb and
    m_gb (:func:`bin_residuals`). A draw of a group's n_g rows moves its bins' sums
    S_gb to S*_gb, jointly normal to first order: a row of bin b adds (1, x) to (its
    count, S_b), so with every row drawn Poisson(1) times (the Poisson bootstrap) the
    bins' count deviations D_gb ~ N(0, m_gb) and sums' deviations Z_gb (variance
    Q_gb, covariance S_gb with D_gb) are independent across bins, and fixing the
    group's total (the multinomial bootstrap: sum_b D_gb = 0) is the Gaussian
    regression ``S*_gb = S_gb + Z_gb - S_gb D_g / n_g``, D_g = sum_b D_gb: variance
    ``Q_gb - S_gb^2 / n_g``, covariance ``-S_gb S_gc / n_g`` between bins, those of
    the multinomial draw. The error of a replicate is ``sum_b |S*_gb| / n_g`` (the
    absolute value is taken of each drawn bin, so the replicates keep the error's
    bias and skew where a bin is near calibrated), and on all rows
    ``sum_b |sum_g S*_gb| / N``: the groups' draws together, as the drawn replicates
    pool them; both cut at 1, the error's largest value.
    """
    used = np.flatnonzero(count.any(axis=0))  # a bin no group has a row in adds nothing
    residual, square, count = residual[:, used], square[:, used], count[:, used]
    g, b = residual.shape
    n = count.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(count > 0, residual / np.where(count > 0, count, 1.0), 0.0)
    rest = np.sqrt(np.maximum(square - residual * slope, 0.0))
    root = np.sqrt(count)
    shift = residual / n[:, None]
    out = np.empty((n_resamples, g + 1))
    batch = max(1, min(n_resamples, _NORMAL_BINS_VALUES // max(g * b, 1)))
    for start in range(0, n_resamples, batch):
        r = min(batch, n_resamples - start)
        e = rng.standard_normal((2, r, g, b))
        moved = np.multiply(e[0], root, out=e[0])
        # residual + slope moved + rest e_1 - shift sum(moved), in that order (each sum
        # the same rounding as written out), in place: five fewer arrays of r g b
        drawn = np.multiply(slope, moved)
        drawn += residual
        drawn += np.multiply(e[1], rest, out=e[1])
        drawn -= shift * moved.sum(-1)[..., None]
        out[start:start + r, g] = np.abs(drawn.sum(-2)).sum(-1) / n.sum()
        out[start:start + r, :g] = np.abs(drawn, out=drawn).sum(-1) / n
    # the normal limit is not bounded; the error is at most 1 (a handful of rows can
    # draw past it, far below the 200 rows a group the family asks for)
    return np.minimum(out, 1.0, out=out)


def bin_error(count: np.ndarray, events: np.ndarray, sum_p: np.ndarray, norm: str,
              debiased: bool, multiclass: str) -> np.ndarray:
    """Calibration error of one group from per-bin (..., S) counts, events and sums of
    confidences; leading axes are replicates."""
    from dartboard.metrics._calibration import error_from_sums

    weight = np.stack([count - events, events], axis=-2)[..., None, :, :]
    sums = np.stack([sum_p, np.zeros_like(sum_p)], axis=-2)[..., None, :, :]
    return error_from_sums(weight, sums, norm, debiased, multiclass)


def check_draws(n_resamples: Any, n_bins: int) -> int:
    """``n_resamples`` checked with the bins it draws per replicate against the one
    budget of resampled values (``dartboard._validation.MAX_DRAWS``)."""
    return check_n_resamples(n_resamples, per_resample=n_bins + 1, per_name="(n_bins + 1)")


def _batch_rows(cells: int, n_resamples: int) -> int:
    """Replicates drawn at once: a few float64 arrays of (rows, cells) within the
    bootstrap's batch budget, whatever the number of bins."""
    return _bootstrap.batch_size(8 * 4 * cells, n_resamples)


def consistency_null(state: Any, norm: str, debiased: bool, n_resamples: int,
                     rng: np.random.Generator) -> np.ndarray:
    """Errors of calibrated forecasts in the bins of a one-group state: each bin's
    events drawn as ``Binomial(n_b, c_b)``, counts and confidences kept
    (:func:`dartboard.calibration_test`'s null distribution)."""
    count, _, mean, _ = state_bins(state)
    size, prob = count.astype(np.int64), np.clip(mean, 0.0, 1.0)
    null = np.empty(n_resamples)
    step = _batch_rows(count.shape[0], n_resamples)
    for start in range(0, n_resamples, step):
        stop = min(start + step, n_resamples)
        draws = rng.binomial(size, prob, size=(stop - start, size.shape[0]))
        null[start:stop] = bin_error(count, draws.astype(np.float64), count * mean, norm,
                                     debiased, state.multiclass)
    return null


def _world_pivots(state: Any, prob: np.ndarray, norm: str, debiased: bool,
                  n_resamples: int, rng: np.random.Generator
                  ) -> tuple[np.ndarray, float]:
    """Errors ``E*`` of the world whose bin frequencies are ``prob``, and that world's
    own (plain) error ``E_world`` (module docstring)."""
    count, _, mean, sd = state_bins(state)
    n = int(count.sum())
    truth = float(bin_error(count, count * prob, count * mean, norm, False, state.multiclass))
    out = np.empty(n_resamples)
    step = _batch_rows(count.shape[0], n_resamples)
    for start in range(0, n_resamples, step):
        b = min(step, n_resamples - start)
        m = rng.multinomial(n, count / n, size=b)
        events = rng.binomial(m, prob).astype(np.float64)
        m = m.astype(np.float64)
        sums = m * mean + rng.standard_normal(m.shape) * np.sqrt(m) * sd
        out[start:start + b] = bin_error(m, events, sums, norm, debiased, state.multiclass)
    return out, truth


def pivot_interval(state: Any, estimate: float, norm: str, debiased: bool, level: float,
                   n_resamples: int, rng: np.random.Generator
                   ) -> tuple[float, float, float, np.ndarray]:
    """(low, high, standard error, replicates of the upper world) of the bin-pivot
    interval of a one-group state (module docstring)."""
    count, events, mean, _ = state_bins(state)
    alpha = 1.0 - level
    null = consistency_null(state, norm, debiased, n_resamples, rng)
    calibrated = (1.0 + np.count_nonzero(null >= estimate)) / (n_resamples + 1.0) > alpha
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.where(count > 0, events / count - mean, 0.0)
        se = np.where(count > 0, np.sqrt(mean * (1.0 - mean) / count), 0.0)
    worlds = [np.clip(mean + deviation_sign(d) * np.maximum(np.abs(d) + s * se, 0.0),
                      0.0, 1.0)
              for s in (-PIVOT_SHIFT[0], PIVOT_SHIFT[1])]
    high_reps, high_truth = _world_pivots(state, worlds[1], norm, debiased, n_resamples, rng)
    if calibrated:
        low, high = 0.0, estimate + high_truth - np.quantile(high_reps, alpha)
    else:
        low_reps, low_truth = _world_pivots(state, worlds[0], norm, debiased, n_resamples,
                                            rng)
        low = estimate + low_truth - np.quantile(low_reps, 1.0 - alpha / 2.0)
        high = estimate + high_truth - np.quantile(high_reps, alpha / 2.0)
    low, high = (float(v) for v in np.clip([low, high], 0.0, 1.0))
    spread = float(np.std(high_reps, ddof=1)) if n_resamples > 1 else 0.0
    return min(low, high), high, spread, high_reps


# ------------------------------------------------------------- bin-pivot, analytic

def _folded_normal(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, variance and third central moment of ``|a + Z|``, ``Z`` standard normal,
    elementwise (only ``|a|`` matters)."""
    a = np.abs(a)
    tail = special.ndtr(-a)
    dens = np.exp(-0.5 * a * a) / np.sqrt(2.0 * np.pi)
    m1 = 2.0 * dens + a * (1.0 - 2.0 * tail)
    m2 = a * a + 1.0
    m3 = (a**3 + 3.0 * a) * (1.0 - 2.0 * tail) + 2.0 * (a * a + 2.0) * dens
    var = m2 - m1 * m1
    mu3 = m3 - 3.0 * m1 * m2 + 2.0 * m1**3
    far = a > 30.0  # |a + Z| = a + Z to double precision
    return (np.where(far, a, m1), np.where(far, 1.0, np.maximum(var, 0.0)),
            np.where(far, 0.0, mu3))


def _binomial_deviation(size: np.ndarray, prob: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, variance and third central moment of ``|X - size prob|``,
    ``X ~ Binomial(size, prob)``, exactly (elementwise; ``size`` whole)."""
    size = np.round(size)
    t = size * prob
    j = np.floor(t)

    def cdf(trials: np.ndarray, k: np.ndarray) -> np.ndarray:
        ok = (k >= 0) & (trials >= 0)
        kk = np.where(ok, np.minimum(k, trials), 0.0)
        return np.where(ok, special.bdtr(kk.astype(np.int64),
                                         np.where(ok, trials, 0.0).astype(np.int64), prob), 0.0)

    # E[(X)_r ; X <= j] = (size)_r prob^r P(Binomial(size - r, prob) <= j - r)
    f0 = cdf(size, j)
    l1 = size * prob * cdf(size - 1.0, j - 1.0)
    l2 = size * (size - 1.0) * prob**2 * cdf(size - 2.0, j - 2.0)
    l3 = size * (size - 1.0) * (size - 2.0) * prob**3 * cdf(size - 3.0, j - 3.0)
    x1, x2, x3 = l1, l2 + l1, l3 + 3.0 * l2 + l1
    below1 = t * f0 - x1  # E[(t - X) ; X <= t]
    below3 = t**3 * f0 - 3.0 * t * t * x1 + 3.0 * t * x2 - x3
    v = t * (1.0 - prob)
    m1 = 2.0 * below1
    m3 = v * (1.0 - 2.0 * prob) + 2.0 * below3
    exact = (m1, np.maximum(v - m1 * m1, 0.0), m3 - 3.0 * m1 * v + 2.0 * m1**3)
    # many events: the normal limit (the sums above lose digits to cancellation)
    large = v > 200.0
    g1, g2, g3 = _folded_normal(np.zeros_like(v))
    s = np.sqrt(v)
    return tuple(np.where(large, g * s**k, e) for k, g, e in zip((1, 2, 3), (g1, g2, g3), exact))


def _moment_quantile(mean: np.ndarray, var: np.ndarray, mu3: np.ndarray, prob: float,
                     fit: str = "gamma") -> np.ndarray:
    """The ``prob`` quantile of a law of this mean, variance and third central moment:
    a shifted gamma of that skewness (``fit="gamma"``, normal when the skewness is
    below 1e-6 in size) or the Cornish-Fisher expansion (``"cornish-fisher"``)."""
    sd = np.sqrt(var)
    with np.errstate(invalid="ignore", divide="ignore"):
        skew = np.where(var > 0.0, mu3 / np.where(var > 0.0, var, 1.0) ** 1.5, 0.0)
    z = special.ndtri(prob)
    if fit == "cornish-fisher":
        return mean + sd * (z + skew / 6.0 * (z * z - 1.0))
    tiny = np.abs(skew) < 1e-6
    safe = np.where(tiny, 1.0, skew)
    shape = 4.0 / (safe * safe)
    # standardized gamma: (Gamma(shape) - shape) / sqrt(shape), mirrored for skew < 0
    up = special.gammaincinv(shape, np.where(safe > 0, prob, 1.0 - prob))
    std = np.sign(safe) * (up - shape) / np.sqrt(shape)
    return mean + sd * np.where(tiny, z, std)


#: rows from which the ECE's bin-pivot takes its quantiles in closed form (the
#: coverage grid's smallest size); below, its first-order covariance of the bins' row
#: counts, which assumes no bin is likely to be empty, misstates the pivot's spread
#: (4 rows, all wrong at 0 and 1: [0.76, 1] where the drawn pivot gives [1, 1]), and
#: the drawn pivot is cheap
ANALYTIC_MIN_ROWS = 50

#: Bins of the analytic pivot's worlds with at most this many rows get their |D_b|
#: moments by enumerating (rows, events) of the bin: (largest bin, most rows
#: enumerated) per bucket (Poisson mass beyond the last row below 1e-5)
EXACT_BUCKETS = ((2.0, 10), (5.0, 16), (12.0, 30))


def _folded_raw(x: np.ndarray, s: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """E|X|, E X^2, E|X|^3 and E sign X of ``X ~ Normal(x, s^2)`` (``s`` may be 0)."""
    pos = s > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        a = np.where(pos, np.abs(x) / np.where(pos, s, 1.0), 0.0)
    tail = special.ndtr(-a)
    dens = np.exp(-0.5 * a * a) * (1.0 / np.sqrt(2.0 * np.pi))
    e1 = np.where(pos, s * (2.0 * dens + a * (1.0 - 2.0 * tail)), np.abs(x))
    e3 = np.where(pos, s**3 * ((a**3 + 3.0 * a) * (1.0 - 2.0 * tail)
                               + 2.0 * (a * a + 2.0) * dens), np.abs(x) ** 3)
    return e1, x * x + s * s, e3, np.sign(x) * (1.0 - 2.0 * tail)


def _enumerated_bins(n: np.ndarray, count: np.ndarray, pi: np.ndarray, c: np.ndarray,
                     sd: np.ndarray, top: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean, variance, third central moment of ``|D_b|`` and ``E[sign D_b]`` for
    (B,) world bins, by summing over the bin's resampled rows ``m <= top`` and
    events ``k <= m``: ``(m, k)`` trinomial with ``n`` rows, ``D_b | m, k`` normal
    of mean ``k - m c_b`` and variance ``m sd_b^2``."""
    mi, ki = np.tril_indices(top + 1)
    m, k = mi.astype(np.float64), ki.astype(np.float64)
    rows = np.arange(top + 1, dtype=np.float64)
    lg = special.gammaln(rows + 1.0)  # log r!
    base = -lg[ki] - lg[mi - ki]
    out = [np.empty(count.shape[0]) for _ in range(4)]
    step = max(1, 400_000 // m.shape[0])
    for start in range(0, count.shape[0], step):
        sl = slice(start, start + step)
        nn, w = n[sl, None], (count[sl] / n[sl])[:, None]
        p, cc, ss = pi[sl, None], c[sl, None], sd[sl, None]
        # log P(m rows) + log m! per (bin, m); log P(k events | m) - log m! per (bin, k, m - k)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            rows_term = np.where(rows <= nn, special.gammaln(nn + 1.0)
                                 - special.gammaln(np.maximum(nn - rows, 0.0) + 1.0)
                                 + special.xlogy(rows, w)
                                 + special.xlog1py(np.maximum(nn - rows, 0.0), -w), -np.inf)
            event_term, miss_term = special.xlogy(rows, p), special.xlog1py(rows, -p)
            prob = np.exp(rows_term[:, mi] + event_term[:, ki] + miss_term[:, mi - ki] + base)
        prob /= prob.sum(-1, keepdims=True)
        # the sums' normal part (sd at most half a bin's width) only in E D^2: in
        # |D| it would cost a normal tail per (bin, m, k) for a change of a few 1e-3
        x = k - m * cc
        e1 = np.abs(x)
        r1 = np.einsum("ij,ij->i", prob, e1)
        r2 = np.einsum("ij,ij->i", prob, x * x) + np.einsum("ij,j->i", prob, m) * ss[:, 0] ** 2
        r3 = np.einsum("ij,ij->i", prob, e1 * e1 * e1)
        out[0][sl], out[1][sl] = r1, np.maximum(r2 - r1 * r1, 0.0)
        out[2][sl] = r3 - 3.0 * r1 * r2 + 2.0 * r1**3
        # E[sign D_b] with the sums' normal part, erf(x / sqrt(2 m sd^2)): continuous in
        # the bin's mean confidence, where a bare sign(x) jumps at k = m c_b and the
        # rounding of c_b (in memory or merged from a stream) moved the variance of E*
        # by 1e-6; without spread (sd 0) the sign, with x within rounding of 0 taken as 0
        spread = np.sqrt(2.0 * m) * ss
        with np.errstate(divide="ignore", invalid="ignore"):
            signs = np.where(spread > 0, special.erf(x / np.where(spread > 0, spread, 1.0)),
                             np.sign(np.where(np.abs(x) <= 1e-9 * (1.0 + m), 0.0, x)))
        out[3][sl] = np.einsum("ij,ij->i", prob, signs)
    return out[0], out[1], out[2], out[3]


def _world_moments(count: np.ndarray, pi: np.ndarray, c: np.ndarray, sd: np.ndarray,
                   size: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, variance and third central moment of ``E* = sum_b |D_b| / n`` in the
    world of bin frequencies ``pi``; ``(G, S)`` bins, ``size`` the (G, 1) rows."""
    delta = pi - c
    w = count / size
    var = count * (pi * (1.0 - pi) + sd * sd) + count * (1.0 - w) * delta**2
    # the third cumulant of D_b, from a row's raw moments in bin b
    r1 = w * delta
    r2 = w * (pi * (1.0 - c) ** 2 + (1.0 - pi) * c * c + sd * sd)
    r3 = w * (pi * (1.0 - c) ** 3 - (1.0 - pi) * c**3 + 3.0 * sd * sd * delta)
    k3 = size * (r3 - 3.0 * r1 * r2 + 2.0 * r1**3)
    s = np.sqrt(var)
    pos = s > 0
    a = np.where(pos, count * delta / np.where(pos, s, 1.0), 0.0)
    f1, f2, f3 = _folded_normal(a)
    sign = np.sign(delta) * np.where(pos, 1.0 - 2.0 * special.ndtr(-np.abs(a)), 1.0)
    mean_abs = np.where(pos, s * f1, np.abs(count * delta))
    var_abs = var * f2
    mu3_abs = s**3 * f3 + sign * k3
    low = 0.0
    n_rows = np.broadcast_to(size, count.shape)
    for high, top in EXACT_BUCKETS:
        pick = (count > low) & (count <= high)
        low = high
        if pick.any():
            e = _enumerated_bins(n_rows[pick], count[pick], pi[pick], c[pick], sd[pick], top)
            mean_abs[pick], var_abs[pick], mu3_abs[pick], sign[pick] = e
    # the bins' covariances through their multinomial rows, Cov(m_a, m_b) =
    # -n_a n_b / n: h_b = n_b dE[|D_b| | m_b]/dm_b, of a folded normal of mean
    # m_b d_b and sd sqrt(m_b) s_b (its mean moves with the rows, and its spread)
    dens = np.exp(-0.5 * a * a) / np.sqrt(2.0 * np.pi)
    h = sign * count * delta + np.sqrt(count * (pi * (1.0 - pi) + sd * sd)) * dens
    total = var_abs.sum(-1) - (h.sum(-1) ** 2 - (h * h).sum(-1)) / size[:, 0]
    m = size[:, 0]
    return mean_abs.sum(-1) / m, np.maximum(total, 0.0) / m**2, mu3_abs.sum(-1) / m**3


def pivot_intervals_analytic(count: ArrayLike, events: ArrayLike, mean: ArrayLike,
                             sd: ArrayLike, estimate: ArrayLike, level: float,
                             fit: str = "gamma"
                             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(low, high, standard error) of the bin-pivot interval of the l1 calibration
    error (ECE, plain) of ``G`` groups at once, with the Monte Carlo of
    :func:`pivot_interval` replaced by moments in closed form.

    Parameters are ``(G, S)`` arrays of per-bin rows, events, mean confidence and
    its sd (ddof 0), as :func:`_bins` gives for one group, and the ``(G,)``
    estimates. The rows of a group must be whole (no weights).

    Each world bin's numerator ``D_b = events_b - sums_b`` is a sum over the ``n``
    rows of ``1{row in b} (y - c_b - e)``; its mean ``n_b (pi_b - c_b)``, variance
    ``n_b (pi_b (1 - pi_b) + sd_b^2) + n_b (1 - w_b) (pi_b - c_b)^2`` and third
    cumulant are exact. ``|D_b|`` is taken as a folded normal of that mean and
    variance (mean, variance and third central moment in closed form), its third
    moment plus ``E[sign D_b]`` times ``D_b``'s own third cumulant; in bins of at
    most 12 rows (:data:`EXACT_BUCKETS`) the moments of ``|D_b|`` are summed over
    the bin's resampled rows and events instead (the normal part of the sums of
    confidences only in ``E D_b^2``). The bins' multinomial covariances,
    ``Cov(m_a, m_b) = -n_a n_b / n``, enter the variance of ``E* = sum_b |D_b| / n``
    through ``h_b = n_b dE[|D_b| | m_b]/dm_b`` (the folded normal's mean moves with
    the rows, and its spread): ``-((sum h)^2 - sum h^2) / n``. The consistency
    null's per-bin ``|Binomial(n_b, c_b) - n_b c_b|`` has exact moments (binomial
    distribution functions; the normal limit past a variance of 200). Quantiles
    come from the three moments (:func:`_moment_quantile`).

    Only the default case: ``norm="l1"``, ``debiased=False``, whole rows, one
    binary or top-label group per row of the arrays; ``"l2"``, ``"max"`` and the
    debiased error stay with the Monte Carlo. A group without rows gets nan. The
    agreement with the Monte Carlo, the coverage and the time are in
    ``benchmarks/calibration_analytic_pivot_coverage.py`` and the tests.
    """
    count, events, mean, sd = (np.atleast_2d(np.asarray(v, dtype=np.float64))
                               for v in (count, events, mean, sd))
    estimate = np.atleast_1d(np.asarray(estimate, dtype=np.float64))
    alpha = 1.0 - level
    n = count.sum(-1)
    size = np.where(n > 0, n, 1.0)[:, None]
    c = np.clip(mean, 0.0, 1.0)
    has = count > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.where(has, events / np.where(has, count, 1.0) - c, 0.0)
        se = np.where(has, np.sqrt(c * (1.0 - c) / np.where(has, count, 1.0)), 0.0)

    # consistency null: is the estimate beyond its 1 - alpha quantile?
    b1, b2, b3 = _binomial_deviation(np.where(has, count, 0.0), c)
    q_null = _moment_quantile(b1.sum(-1) / size[:, 0], b2.sum(-1) / size[:, 0] ** 2,
                              b3.sum(-1) / size[:, 0] ** 3, 1.0 - alpha, fit)
    calibrated = estimate < q_null

    def world(shift: float) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
        pi = np.clip(c + deviation_sign(d) * np.maximum(np.abs(d) + shift * se, 0.0),
                     0.0, 1.0)
        truth = (count * np.abs(pi - c)).sum(-1) / size[:, 0]
        return _world_moments(count, pi, c, sd, size), truth

    moments_low, truth_low = world(-PIVOT_SHIFT[0])
    moments_high, truth_high = world(PIVOT_SHIFT[1])
    q_low = _moment_quantile(*moments_low, 1.0 - alpha / 2.0, fit)
    q_high = _moment_quantile(*moments_high, alpha / 2.0, fit)
    q_one = _moment_quantile(*moments_high, alpha, fit)
    spread = np.sqrt(moments_high[1])
    low = np.where(calibrated, 0.0, estimate + truth_low - q_low)
    high = estimate + truth_high - np.where(calibrated, q_one, q_high)
    low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    empty = n <= 0
    nan = np.full_like(low, np.nan)
    return (np.where(empty, nan, np.minimum(low, high)), np.where(empty, nan, high),
            np.where(empty, nan, spread))
