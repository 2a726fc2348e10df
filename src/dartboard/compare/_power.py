"""Power and sample size of a planned comparison of two models on one test set.

Accuracy, paired (McNemar; Connor 1987). With ``p10`` the share of samples only
model a gets right and ``p01`` only b, the accuracy difference is ``delta = p10 -
p01`` and the discordant share ``psi = p10 + p01``. The two-sided level-alpha
test has power (normal approximation, both tails)::

    Phi((|delta| sqrt(n) - z sqrt(psi)) / sqrt(psi - delta^2))
      + Phi((-|delta| sqrt(n) - z sqrt(psi)) / sqrt(psi - delta^2)),  z = z_{1 - alpha/2}

and the one-tail version solved for n gives Connor's sample size
``n = (z sqrt(psi) + z_power sqrt(psi - delta^2))^2 / delta^2``.
statsmodels has no McNemar power; its ``power_proportions_2indep`` is for
independent samples, which a shared test set is not.

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

from scipy import stats

from dartboard._validation import check_int, check_real

__all__ = ["auc_power", "auc_sample_size", "mcnemar_power", "mcnemar_sample_size"]


def _level(alpha: Any, power: Any = None) -> tuple[float, float | None]:
    alpha = check_real(alpha, "alpha", minimum=0.0, maximum=1.0, open_minimum=True,
                       open_maximum=True)
    if power is not None:
        power = check_real(power, "power", minimum=alpha, maximum=1.0, open_minimum=True,
                           open_maximum=True)
    return alpha, power


def _paired_iv(difference: Any, discordant: Any) -> tuple[float, float]:
    delta = check_real(difference, "difference", minimum=-1.0, maximum=1.0)
    psi = check_real(discordant, "discordant", minimum=0.0, maximum=1.0, open_minimum=True)
    if abs(delta) > psi:
        raise ValueError(f"discordant (the share of samples where exactly one model is "
                         f"right, {psi}) must be at least |difference| ({abs(delta)})")
    if delta == 0.0:
        raise ValueError("difference must not be 0: no sample size detects no difference")
    if abs(delta) == psi:
        raise ValueError("discordant equals |difference|: one model is never right alone, "
                         "the normal approximation has no variance")
    return delta, psi


def mcnemar_power(n: Any, difference: float, discordant: float, *,
                  alpha: float = 0.05) -> float:
    """Power of McNemar's two-sided test of equal accuracy with n test samples.

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

    Examples
    --------
    >>> round(mcnemar_power(1000, 0.02, 0.10), 3)
    0.516
    """
    n = check_int(n, "n", minimum=1)
    delta, psi = _paired_iv(difference, discordant)
    alpha, _ = _level(alpha)
    z = stats.norm.isf(alpha / 2.0)
    sd = math.sqrt(psi - delta * delta)
    shift = abs(delta) * math.sqrt(n)
    return float(stats.norm.cdf((shift - z * math.sqrt(psi)) / sd)
                 + stats.norm.cdf((-shift - z * math.sqrt(psi)) / sd))


def mcnemar_sample_size(difference: float, discordant: float, *, alpha: float = 0.05,
                        power: float = 0.8) -> int:
    """Test samples McNemar's test needs to detect an accuracy difference (Connor 1987).

    Examples
    --------
    A two-point difference when the models disagree on 10% of samples:

    >>> mcnemar_sample_size(0.02, 0.10)
    1960
    """
    delta, psi = _paired_iv(difference, discordant)
    alpha, power = _level(alpha, power)
    z, z_power = stats.norm.isf(alpha / 2.0), stats.norm.ppf(power)
    n = (z * math.sqrt(psi) + z_power * math.sqrt(psi - delta * delta)) ** 2 / delta ** 2
    return int(math.ceil(n - 1e-9))


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
        raise ValueError("auc_a and auc_b must differ: no sample size detects no difference")
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
    correlation : float, default 0
        Correlation of the two AUC estimates (on the same cases usually 0.3-0.6;
        Hanley and McNeil 1983 tabulate it); 0 treats them as independent.
    alpha : float, default 0.05

    Examples
    --------
    >>> round(auc_power(400, 0.85, 0.80, correlation=0.5), 3)
    0.668
    """
    n = check_int(n, "n", minimum=2)
    auc_a, auc_b, prevalence, r = _auc_iv(auc_a, auc_b, prevalence, correlation)
    alpha, _ = _level(alpha)
    if prevalence * n < 1 or (1 - prevalence) * n < 1:
        raise ValueError(f"n = {n} at prevalence {prevalence} holds fewer than one positive "
                         "or negative sample")
    return _auc_power(n, auc_a, auc_b, prevalence, r, stats.norm.isf(alpha / 2.0))


def auc_sample_size(auc_a: float, auc_b: float, *, prevalence: float = 0.5,
                    correlation: float = 0.0, alpha: float = 0.05, power: float = 0.8) -> int:
    """Test samples needed to detect a difference of two ROC AUCs (see :func:`auc_power`).

    Examples
    --------
    >>> auc_sample_size(0.85, 0.80, correlation=0.5)
    548
    """
    auc_a, auc_b, prevalence, r = _auc_iv(auc_a, auc_b, prevalence, correlation)
    alpha, power = _level(alpha, power)
    z = stats.norm.isf(alpha / 2.0)
    low = max(2, int(math.ceil(1.0 / min(prevalence, 1.0 - prevalence))))
    high = low
    while _auc_power(high, auc_a, auc_b, prevalence, r, z) < power:
        high *= 2
        if high > 10 ** 12:
            raise ValueError("the AUC difference is too small to detect with any test set "
                             "of reasonable size")
    while low < high:  # power grows with n: the smallest n reaching the target
        mid = (low + high) // 2
        if _auc_power(mid, auc_a, auc_b, prevalence, r, z) >= power:
            high = mid
        else:
            low = mid + 1
    return int(low)
