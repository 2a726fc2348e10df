"""Power and sample size of a planned comparison of two models on one test set.

Accuracy, paired (McNemar). With ``p10`` the share of samples only model a gets
right and ``p01`` only b, the accuracy difference is ``delta = p10 - p01`` and the
discordant share ``psi = p10 + p01``. The power is that of
:func:`~dartboard.mcnemar_test` as it is applied (by default the exact
binomial test below 25 discordant pairs, else the chi-square test with continuity
correction), computed exactly: the discordant count is ``m ~ Binomial(n, psi)``,
given ``m`` the count where only a is right is ``b ~ Binomial(m, p10 / psi)``, and::

    power = sum_m P(M = m) P(the test rejects at level alpha | m),

the second factor a sum over the ``b`` the test rejects (``p < alpha``): for the
corrected chi-square test ``|2b - m| > 1 + sqrt(m chi2_{1, 1-alpha})``, for the
exact test ``min(b, m - b) <= k_m``, ``k_m`` the largest ``k`` with ``2 P(Bin(m,
1/2) <= k) <= alpha``. The sum runs over ``m`` within 9 standard deviations of
``n psi`` (the mass left out is below 1e-18). The sample size is the smallest ``n``
whose power reaches the target, found by bisection from Connor's (1987) normal
approximation of the uncorrected test, ``n = (z sqrt(psi) + z_power sqrt(psi -
delta^2))^2 / delta^2``, which plans too few samples for the corrected test (76-79%
power instead of 80%). statsmodels has no McNemar power; its
``power_proportions_2indep`` is for independent samples, which a shared test set
is not.

ROC AUC (Hanley and McNeil 1982, 1983). With n1 positives and n0 negatives, the
variance of an AUC A is ``(A (1 - A) + (n1 - 1)(Q1 - A^2) + (n0 - 1)(Q2 - A^2)) /
(n1 n0)``, ``Q1 = A / (2 - A)``, ``Q2 = 2 A^2 / (1 + A)``, and two AUCs of the same
cases whose estimates correlate with ``r`` have ``Var(A_a - A_b) = V_a + V_b - 2 r
sqrt(V_a V_b)``. Under the null both AUCs equal their mean (Obuchowski and
McClish 1997 use the null variance in the critical value and the alternative's
in the power)::

    power = Phi((|A_a - A_b| - z sd_0) / sd_1) + Phi((-|A_a - A_b| - z sd_0) / sd_1),

and the sample size is the smallest n (positives ``prevalence n``) reaching the
target power.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from dartboard._validation import check_int, check_real
from dartboard.compare._analytic import MCNEMAR_EXACT_BELOW
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["auc_power", "auc_sample_size", "mcnemar_power", "mcnemar_sample_size"]

#: The largest test set a plan may ask for: beyond it the difference is not one a
#: test set can detect (and the exact power sums would be long)
MAX_PLANNED = 10**9


def _alpha(alpha: Any) -> float:
    return check_real(alpha, "alpha", minimum=0.0, maximum=1.0, open_minimum=True,
                      open_maximum=True)


def _target(power: Any, alpha: float) -> float:
    return check_real(power, "power", minimum=alpha, maximum=1.0, open_minimum=True,
                      open_maximum=True)


def _paired_iv(difference: Any, discordant: Any) -> tuple[float, float]:
    delta = check_real(difference, "difference", minimum=-1.0, maximum=1.0)
    psi = check_real(discordant, "discordant", minimum=0.0, maximum=1.0, open_minimum=True)
    if abs(delta) > psi:
        raise InputError(f"discordant (the share of samples where exactly one model is "
                         f"right, {psi}) must be at least |difference| ({abs(delta)})")
    if delta == 0.0:
        raise InputError("difference must not be 0: no sample size detects no difference")
    if abs(delta) == psi:
        raise InputError("discordant equals |difference|: one model is never right alone, "
                         "the normal approximation has no variance")
    return delta, psi


def _test_iv(exact: Any, correction: Any) -> tuple[bool | None, bool]:
    if exact is not None and not isinstance(exact, (bool, np.bool_)):
        raise InputTypeError(f"exact must be None, True or False; got {exact!r}")
    if not isinstance(correction, (bool, np.bool_)):
        raise InputTypeError(f"correction must be True or False; got {correction!r}")
    return (None if exact is None else bool(exact)), bool(correction)


def _rejecting(m: np.ndarray, alpha: float, exact: bool | None, correction: bool
               ) -> np.ndarray:
    """Per discordant count ``m``: the largest ``min(b, m - b)`` that mcnemar_test
    rejects at level alpha (-1: none). ``b = m - b`` is never rejected."""
    exact_m = m < MCNEMAR_EXACT_BELOW if exact is None else np.full(m.shape, exact)
    # chi-square: reject iff |2b - m| > t, i.e. min(b, m - b) < (m - t) / 2
    t = (1.0 if correction else 0.0) + np.sqrt(m * stats.chi2.isf(alpha, 1))
    k = np.ceil((m - t) / 2.0) - 1.0
    if np.any(exact_m):
        # exact: the largest k with 2 P(Bin(m, 1/2) <= k) <= alpha (ppf: the smallest
        # with P >= alpha / 2, one too many unless P is exactly alpha / 2)
        me = m[exact_m]
        ke = stats.binom.ppf(alpha / 2.0, me, 0.5)
        k[exact_m] = np.where(2.0 * stats.binom.cdf(ke, me, 0.5) <= alpha, ke, ke - 1.0)
    return np.minimum(k, np.ceil(m / 2.0) - 1.0)


def _mcnemar_power(n: int, delta: float, psi: float, alpha: float, exact: bool | None,
                   correction: bool) -> float:
    """Exact power of mcnemar_test at n samples (module docstring)."""
    sd = math.sqrt(n * psi * (1.0 - psi))
    low, high = max(0, math.floor(n * psi - 9 * sd)), min(n, math.ceil(n * psi + 9 * sd))
    m = np.arange(low, high + 1, dtype=np.float64)
    k = _rejecting(m, alpha, exact, correction)
    q = (psi + delta) / (2.0 * psi)  # P(only a is right | exactly one is)
    # min(b, m - b) <= k: b <= k or b >= m - k
    reject = stats.binom.cdf(k, m, q) + stats.binom.sf(m - k - 1.0, m, q)
    reject = np.where(k >= 0, reject, 0.0)
    return float(np.clip(np.sum(stats.binom.pmf(m, n, psi) * reject), 0.0, 1.0))


def mcnemar_power(n: Any, difference: float, discordant: float, *, alpha: float = 0.05,
                  exact: bool | None = None, correction: bool = True) -> float:
    """Power of McNemar's two-sided test of equal accuracy with n test samples.

    The exact power of :func:`~dartboard.mcnemar_test` with the same
    ``exact`` and ``correction`` (see the module docstring).

    Parameters
    ----------
    n : int
        Test samples (scored by both models).
    difference : float
        The accuracy difference to detect, ``acc_a - acc_b = p10 - p01``.
    discordant : float
        The expected share of samples where exactly one model is right,
        ``p10 + p01``; at least ``|difference|``.
    alpha : float, default 0.05
        Significance level of the test.
    exact, correction
        As :func:`~dartboard.mcnemar_test`: by default the exact binomial
        test below 25 discordant pairs, else the corrected chi-square test.

    Returns
    -------
    float
        The probability that the test rejects at level ``alpha``.

    Examples
    --------
    >>> round(mcnemar_power(1000, 0.02, 0.10), 3)
    0.476
    """
    n = check_int(n, "n", minimum=1, maximum=MAX_PLANNED)
    delta, psi = _paired_iv(difference, discordant)
    alpha = _alpha(alpha)
    exact, correction = _test_iv(exact, correction)
    return _mcnemar_power(n, delta, psi, alpha, exact, correction)


def connor_sample_size(delta: float, psi: float, alpha: float, power: float) -> float:
    """Connor's (1987) normal approximation for the uncorrected test (not rounded)."""
    z, z_power = stats.norm.isf(alpha / 2.0), stats.norm.ppf(power)
    root = float(z * math.sqrt(psi) + z_power * math.sqrt(psi - delta * delta)) / abs(delta)
    return root * root  # inf, not an OverflowError, for a vanishing difference


def mcnemar_sample_size(difference: float, discordant: float, *, alpha: float = 0.05,
                        power: float = 0.8, exact: bool | None = None,
                        correction: bool = True) -> int:
    """Test samples McNemar's test needs to detect an accuracy difference.

    The smallest n whose exact power (:func:`mcnemar_power`, the test as
    :func:`~dartboard.mcnemar_test` applies it) reaches ``power``; at most
    10**9.

    Parameters
    ----------
    difference : float
        The accuracy difference to detect, ``acc_a - acc_b``.
    discordant : float
        The expected share of samples where exactly one model is right; at least
        ``|difference|``.
    alpha : float, default 0.05
        The test's level.
    power : float, default 0.8
        The power to reach.
    exact, correction
        As :func:`~dartboard.mcnemar_test`.

    Returns
    -------
    int
        The number of test samples.

    Examples
    --------
    A two-point difference when the models disagree on 10% of samples (Connor's
    approximation of the uncorrected test says 1960):

    >>> mcnemar_sample_size(0.02, 0.10)
    2046
    """
    delta, psi = _paired_iv(difference, discordant)
    alpha = _alpha(alpha)
    power = _target(power, alpha)
    exact, correction = _test_iv(exact, correction)
    guess = connor_sample_size(delta, psi, alpha, power)
    if not guess <= MAX_PLANNED:
        raise InputError(f"difference {delta!r} is too small to detect with discordant "
                         f"{psi!r}: it needs more than {MAX_PLANNED:_} test samples")
    low, high = 1, max(1, math.ceil(guess))
    while _mcnemar_power(high, delta, psi, alpha, exact, correction) < power:
        low, high = high + 1, 2 * high
        if high > MAX_PLANNED:
            raise InputError(f"difference {delta!r} is too small to detect with discordant "
                             f"{psi!r}: it needs more than {MAX_PLANNED:_} test samples")
    while low < high:  # power grows with n (up to the test's discreteness)
        mid = (low + high) // 2
        if _mcnemar_power(mid, delta, psi, alpha, exact, correction) >= power:
            high = mid
        else:
            low = mid + 1
    return int(low)


def _auc_variance(auc: float, n_pos: float, n_neg: float) -> float:
    q1, q2 = auc / (2.0 - auc), 2.0 * auc * auc / (1.0 + auc)
    return (auc * (1.0 - auc) + (n_pos - 1.0) * (q1 - auc * auc)
            + (n_neg - 1.0) * (q2 - auc * auc)) / (n_pos * n_neg)


def _difference_sd(auc_a: float, auc_b: float, n_pos: float, n_neg: float, r: float) -> float:
    va, vb = _auc_variance(auc_a, n_pos, n_neg), _auc_variance(auc_b, n_pos, n_neg)
    return math.sqrt(max(va + vb - 2.0 * r * math.sqrt(va * vb), 0.0))


def _auc_iv(auc_a: Any, auc_b: Any, prevalence: Any, correlation: Any) -> tuple:
    auc_a = check_real(auc_a, "auc_a", minimum=0.5, maximum=1.0, open_maximum=True)
    auc_b = check_real(auc_b, "auc_b", minimum=0.5, maximum=1.0, open_maximum=True)
    if auc_a == auc_b:
        raise InputError("auc_a and auc_b must differ: no sample size detects no difference")
    prevalence = check_real(prevalence, "prevalence", minimum=0.0, maximum=1.0,
                            open_minimum=True, open_maximum=True)
    correlation = check_real(correlation, "correlation", minimum=-1.0, maximum=1.0,
                             open_maximum=True)
    return auc_a, auc_b, prevalence, correlation


def _auc_power(n: float, auc_a: float, auc_b: float, prevalence: float, r: float,
               z: float) -> float:
    n_pos, n_neg = prevalence * n, (1.0 - prevalence) * n
    mean = 0.5 * (auc_a + auc_b)
    sd0 = _difference_sd(mean, mean, n_pos, n_neg, r)
    sd1 = _difference_sd(auc_a, auc_b, n_pos, n_neg, r)
    delta = abs(auc_a - auc_b)
    return float(stats.norm.cdf((delta - z * sd0) / sd1)
                 + stats.norm.cdf((-delta - z * sd0) / sd1))


def auc_power(n: Any, auc_a: float, auc_b: float, *, prevalence: float = 0.5,
              correlation: float = 0.0, alpha: float = 0.05) -> float:
    """Power of a two-sided test of two ROC AUCs on n test samples (Hanley-McNeil variance).

    Parameters
    ----------
    n : int
        Test samples, ``prevalence * n`` of them positive (at least one of each).
    auc_a, auc_b : float
        The two models' AUCs, in [0.5, 1).
    prevalence : float, default 0.5
        Share of positives among the test samples, in (0, 1).
    correlation : float, default 0
        Correlation of the two AUC estimates (on the same cases usually 0.3-0.6;
        Hanley and McNeil 1983 tabulate it); 0 treats them as independent.
    alpha : float, default 0.05
        Significance level of the (two-sided) test.

    Returns
    -------
    float
        The probability that the test rejects at level ``alpha``.

    Examples
    --------
    >>> round(auc_power(400, 0.85, 0.80, correlation=0.5), 3)
    0.668
    """
    n = check_int(n, "n", minimum=2)
    auc_a, auc_b, prevalence, r = _auc_iv(auc_a, auc_b, prevalence, correlation)
    alpha = _alpha(alpha)
    if prevalence * n < 1 or (1 - prevalence) * n < 1:
        raise InputError(f"n = {n} at prevalence {prevalence} holds fewer than one positive "
                         "or negative sample")
    return _auc_power(n, auc_a, auc_b, prevalence, r, stats.norm.isf(alpha / 2.0))


def auc_sample_size(auc_a: float, auc_b: float, *, prevalence: float = 0.5,
                    correlation: float = 0.0, alpha: float = 0.05, power: float = 0.8) -> int:
    """Test samples needed to detect a difference of two ROC AUCs (see :func:`auc_power`).

    Parameters
    ----------
    auc_a, auc_b : float
        The two models' AUCs, in [0.5, 1).
    prevalence : float, default 0.5
        Share of positives among the test samples.
    correlation : float, default 0
        Correlation of the two AUC estimates (see :func:`auc_power`).
    alpha : float, default 0.05
        The test's level.
    power : float, default 0.8
        The power to reach.

    Returns
    -------
    int
        The number of test samples.

    Examples
    --------
    >>> auc_sample_size(0.85, 0.80, correlation=0.5)
    548
    """
    auc_a, auc_b, prevalence, r = _auc_iv(auc_a, auc_b, prevalence, correlation)
    alpha = _alpha(alpha)
    power = _target(power, alpha)
    z = stats.norm.isf(alpha / 2.0)
    low = max(2, int(math.ceil(1.0 / min(prevalence, 1.0 - prevalence))))
    high = low
    while _auc_power(high, auc_a, auc_b, prevalence, r, z) < power:
        high *= 2
        if high > 10 ** 12:
            raise InputError("the AUC difference is too small to detect with any test set "
                             "of reasonable size")
    while low < high:  # power grows with n: the smallest n reaching the target
        mid = (low + high) // 2
        if _auc_power(mid, auc_a, auc_b, prevalence, r, z) >= power:
            high = mid
        else:
            low = mid + 1
    return int(low)
