"""Power and sample size: the formulas by hand, and against simulated power."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dartboard
from dartboard.compare import (
    auc_power,
    auc_sample_size,
    delong_test,
    mcnemar_power,
    mcnemar_sample_size,
    mcnemar_test,
)


def test_connor_sample_size_by_hand():
    from dartboard.compare._power import connor_sample_size

    # n = (z_{.975} sqrt(psi) + z_{.8} sqrt(psi - delta^2))^2 / delta^2 (Connor 1987)
    z, zb = 1.959963984540054, 0.8416212335729143
    n = (z * math.sqrt(0.1) + zb * math.sqrt(0.1 - 0.02 ** 2)) ** 2 / 0.02 ** 2
    assert math.ceil(connor_sample_size(0.02, 0.1, 0.05, 0.8)) == math.ceil(n) == 1960
    assert mcnemar_sample_size(-0.02, 0.10) == mcnemar_sample_size(0.02, 0.10)
    assert dartboard.mcnemar_sample_size is mcnemar_sample_size


def enumerated_power(n, delta, psi, alpha=0.05, **test_kw):
    """The slow oracle: every table (b, c) of n samples with its trinomial probability,
    judged by mcnemar_test itself (p < alpha)."""
    p10, p01 = (psi + delta) / 2, (psi - delta) / 2
    total = 0.0
    for b in range(n + 1):
        for c in range(n + 1 - b):
            log_p = (math.lgamma(n + 1) - math.lgamma(b + 1) - math.lgamma(c + 1)
                     - math.lgamma(n - b - c + 1) + b * math.log(p10) + c * math.log(p01)
                     + (n - b - c) * math.log1p(-psi))
            if log_p > -60 and mcnemar_test([[0, b], [c, 0]], **test_kw).pvalue < alpha:
                total += math.exp(log_p)
    return total


@pytest.mark.parametrize("n, delta, psi, kw", [
    (40, 0.2, 0.3, {}),                       # mostly the exact test (b + c < 25)
    (90, 0.15, 0.35, {}),                     # both: exact and corrected chi-square
    (90, 0.15, 0.35, {"correction": False}),
    (60, 0.2, 0.4, {"exact": True}),
    (60, 0.2, 0.4, {"exact": False}),
])
def test_power_is_that_of_mcnemar_test_by_enumeration(n, delta, psi, kw):
    assert mcnemar_power(n, delta, psi, **kw) == pytest.approx(
        enumerated_power(n, delta, psi, **kw), abs=1e-9)


def test_sample_size_plans_for_the_corrected_test_it_is_run_with():
    # the old plan (Connor's uncorrected formula, 61 for 0.2 / 0.3) fell short of
    # 80% for mcnemar_test with its continuity correction
    n = mcnemar_sample_size(0.2, 0.3)
    assert enumerated_power(n, 0.2, 0.3) >= 0.8 > enumerated_power(n - 1, 0.2, 0.3)
    assert enumerated_power(57, 0.2, 0.3) < 0.78  # Connor's 56.4, rounded up
    assert mcnemar_sample_size(0.2, 0.3, exact=False, correction=False) < n


@pytest.mark.parametrize("delta, psi, power", [(0.02, 0.1, 0.8), (0.05, 0.3, 0.9),
                                               (0.1, 0.2, 0.8)])
def test_sample_size_is_the_smallest_n_with_the_power(delta, psi, power):
    n = mcnemar_sample_size(delta, psi, power=power)
    assert mcnemar_power(n, delta, psi) >= power
    assert mcnemar_power(n - 1, delta, psi) < power
    m = auc_sample_size(0.5 + delta * 3, 0.5 + delta, power=power)
    assert auc_power(m, 0.5 + delta * 3, 0.5 + delta) >= power
    assert auc_power(m - 1, 0.5 + delta * 3, 0.5 + delta) < power


def test_mcnemar_power_against_simulation():
    # the test set as counts of (a right, b right) types: one multinomial per test set
    rng = np.random.default_rng(15)
    n, probs = 600, [0.75, 0.09, 0.06, 0.10]  # both right, only a, only b, both wrong
    sims = 4000
    tables = rng.multinomial(n, probs, size=sims)
    for kw in ({"exact": False, "correction": False}, {}):
        rejected = sum(mcnemar_test(t.reshape(2, 2), **kw).pvalue < 0.05 for t in tables)
        simulated = rejected / sims
        exact = mcnemar_power(n, 0.03, 0.15, **kw)
        se = math.sqrt(exact * (1 - exact) / sims)
        assert abs(simulated - exact) < 3 * se


def test_auc_power_against_simulated_delong_tests():
    # Hanley and McNeil's variance is exact for exponential scores: negatives Exp(1),
    # positives Exp(rate 1/A - 1) give AUC A; two independent models
    rng = np.random.default_rng(16)
    n, auc_a, auc_b, sims = 200, 0.85, 0.75, 1500
    y = np.repeat([1, 0], n // 2)
    hits = 0
    for _ in range(sims):
        scores = []
        for auc in (auc_a, auc_b):
            s = rng.exponential(1.0, n)
            s[: n // 2] = rng.exponential(1.0 / (1.0 / auc - 1.0), n // 2)
            scores.append(s)
        hits += delong_test(y, scores[0], scores[1]).pvalue < 0.05
    simulated = hits / sims
    formula = auc_power(n, auc_a, auc_b)
    se = math.sqrt(formula * (1 - formula) / sims)
    assert abs(simulated - formula) < 3 * se + 0.02


def test_hanley_mcneil_variance_by_hand():
    from dartboard.compare._power import _auc_variance

    q1, q2 = 0.8 / 1.2, 2 * 0.64 / 1.8
    v = (0.8 * 0.2 + 49 * (q1 - 0.64) + 49 * (q2 - 0.64)) / 2500
    assert _auc_variance(0.80, 50, 50) == pytest.approx(v, rel=1e-12)


def test_power_increases_with_correlation_and_n():
    assert auc_power(300, 0.85, 0.8, correlation=0.6) > auc_power(300, 0.85, 0.8)
    assert auc_power(600, 0.85, 0.8) > auc_power(300, 0.85, 0.8)
    assert mcnemar_power(2000, 0.02, 0.1) > mcnemar_power(1000, 0.02, 0.1)
    z = stats.norm.isf(0.025)
    # at n where the shift equals z sqrt(psi), the main tail of the uncorrected test
    # is one half
    n = (z * math.sqrt(0.1) / 0.02) ** 2
    assert mcnemar_power(round(n), 0.02, 0.1, correction=False) == pytest.approx(0.5,
                                                                                 abs=0.01)


@pytest.mark.parametrize("call, match", [
    (lambda: mcnemar_sample_size(0.2, 0.1), "discordant .* must be at least"),
    (lambda: mcnemar_sample_size(0.0, 0.1), "difference must not be 0"),
    (lambda: mcnemar_sample_size(0.1, 0.1), "never right alone"),
    (lambda: mcnemar_sample_size(0.02, 0.1, power=0.01), "power must be greater than 0.05"),
    (lambda: mcnemar_power(0, 0.02, 0.1), "n must be at least 1"),
    (lambda: mcnemar_sample_size(1e-300, 0.5), "difference 1e-300 is too small"),
    (lambda: mcnemar_sample_size(1e-6, 0.5), "more than 1_000_000_000 test samples"),
    (lambda: auc_sample_size(0.8, 0.8), "must differ"),
    (lambda: auc_sample_size(0.8, 0.4), "auc_b must be at least 0.5"),
    (lambda: auc_power(10, 0.9, 0.8, prevalence=0.01), "fewer than one positive"),
    (lambda: auc_power(10, 0.9, 0.8, alpha=1.5), "alpha must be less than 1"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("call, name", [
    (lambda: mcnemar_sample_size(0.02, 0.1, power=None), "power"),
    (lambda: auc_sample_size(0.85, 0.8, power=None), "power"),
    (lambda: mcnemar_sample_size(0.02, 0.1, alpha=None), "alpha"),
    (lambda: mcnemar_power(100, 0.02, 0.1, correction=None), "correction"),
    (lambda: mcnemar_power(100, 0.02, 0.1, exact="yes"), "exact"),
])
def test_a_missing_plan_argument_is_a_type_error_naming_it(call, name):
    with pytest.raises(TypeError, match=f"^{name} must be"):
        call()
