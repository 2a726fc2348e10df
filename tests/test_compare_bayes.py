"""Bayesian ROPE decisions against baycomp, and their errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import dartboard
from dartboard.compare import (
    bayesian_correlated_ttest,
    bayesian_signed_rank_test,
    rank_equivalence,
    rank_models,
)

baycomp = pytest.importorskip("baycomp")


def _pairs(n, shift, seed):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.6, 0.9, n)
    return b + shift + rng.normal(scale=0.01, size=n), b


@pytest.mark.parametrize("n, shift, rope, runs", [(10, 0.01, 0.01, 1), (10, 0.0, 0.005, 1),
                                                  (30, -0.004, 0.01, 3), (10, 0.02, 0.0, 1),
                                                  (20, 0.005, 0.002, 2)])
def test_correlated_ttest_equals_baycomp(n, shift, rope, runs):
    a, b = _pairs(n, shift, n)
    res = bayesian_correlated_ttest(a, b, rope=rope, runs=runs)
    theirs = baycomp.CorrelatedTTest.probs(a, b, rope=rope, runs=runs)
    if rope == 0:  # baycomp returns (left, right) only
        theirs = (theirs[0], 0.0, theirs[1])
    np.testing.assert_allclose((res.p_a_better, res.p_equivalent, res.p_b_better), theirs,
                               rtol=1e-10, atol=1e-14)


def test_correlated_ttest_with_sizes_is_the_nadeau_bengio_posterior():
    a, b = _pairs(10, 0.01, 1)
    d = a - b
    res = bayesian_correlated_ttest(a, b, rope=0.01, n_train=900, n_test=100)
    scale = np.sqrt((1 / 10 + 100 / 900) * d.var(ddof=1))
    assert res.details["rho"] == pytest.approx(0.1)
    assert res.p_a_better == pytest.approx(stats.t.sf(0.01, 9, d.mean(), scale))
    assert res.p_b_better == pytest.approx(stats.t.cdf(-0.01, 9, d.mean(), scale))
    # 10-fold CV of 1000 rows is the same correlation as runs=1
    other = bayesian_correlated_ttest(a, b, rope=0.01)
    assert other.p_a_better == pytest.approx(res.p_a_better)


def test_correlated_ttest_constant_differences():
    a = np.array([0.8, 0.9, 0.85])
    assert bayesian_correlated_ttest(a + 0.02, a, rope=0.01).p_a_better == 1.0
    assert bayesian_correlated_ttest(a + 0.005, a, rope=0.01).p_equivalent == 1.0
    res = bayesian_correlated_ttest(a, a)
    assert (res.p_a_better, res.p_b_better) == (0.5, 0.5)


@pytest.mark.parametrize("n, shift, rope", [(10, 0.01, 0.01), (15, 0.0, 0.005),
                                            (25, -0.003, 0.002), (12, 0.01, 0.0)])
def test_signed_rank_equals_baycomp_within_monte_carlo_error(n, shift, rope):
    a, b = _pairs(n, shift, n + 1)
    res = bayesian_signed_rank_test(a, b, rope=rope, n_samples=50_000, random_state=1)
    theirs = baycomp.SignedRankTest.probs(a, b, rope=rope, nsamples=50_000, random_state=2)
    if rope == 0:
        theirs = (theirs[0], 0.0, theirs[1])
    # two independent samples of 50,000: standard error of a difference <= 0.0032
    np.testing.assert_allclose((res.p_a_better, res.p_equivalent, res.p_b_better), theirs,
                               atol=0.015)
    assert res.p_a_better + res.p_equivalent + res.p_b_better == pytest.approx(1.0)


def test_signed_rank_is_reproducible_and_seeded():
    a, b = _pairs(10, 0.005, 3)
    one = bayesian_signed_rank_test(a, b, rope=0.005, n_samples=2000, random_state=7)
    two = bayesian_signed_rank_test(a, b, rope=0.005, n_samples=2000, random_state=7)
    assert one.p_a_better == two.p_a_better


def test_rank_equivalence_compares_the_first_two_of_rank_models():
    rng = np.random.default_rng(5)
    table = {"x": rng.uniform(.7, .8, 12), "y": rng.uniform(.7, .8, 12),
             "z": rng.uniform(.5, .6, 12)}
    ranked = rank_models(table)
    res = rank_equivalence(table, rope=0.01, n_samples=20_000, random_state=0)
    first, second = ranked.summary["model"].iloc[:2]
    assert (res.details["winner"], res.details["runner_up"]) == (first, second)
    ref = bayesian_signed_rank_test(table[first], table[second], rope=0.01, n_samples=20_000,
                                    random_state=0)
    assert res.p_a_better == ref.p_a_better
    # a loss table: the smaller is better, and a is still the winner
    loss = {k: 1 - v for k, v in table.items()}
    low = rank_equivalence(loss, rope=0.01, higher_is_better=False, n_samples=20_000,
                           random_state=0)
    assert low.details["winner"] == first and low.p_a_better == pytest.approx(res.p_a_better)


def test_dart_equivalence_uses_the_first_two_of_dart_rank():
    folds = {"deep": [0.95, 0.80, 0.97, 0.84, 0.9], "shallow": [0.88, 0.87, 0.89, 0.88, 0.87],
             "stump": [0.6, 0.62, 0.61, 0.6, 0.63]}
    for p in (0, 5):
        order = dartboard.dart_rank(folds, precision=p)["configuration"].tolist()
        res = dartboard.dart_equivalence(folds, precision=p, rope=0.01)
        assert [res.details["winner"], res.details["runner_up"]] == order[:2]
        ref = bayesian_correlated_ttest(folds[order[0]], folds[order[1]], rope=0.01)
        assert res.p_a_better == ref.p_a_better
    with pytest.raises(ValueError, match="at least 2 configurations"):
        dartboard.dart_equivalence({"one": [0.9, 0.8, 0.85]}, precision=1, rope=0.01)


@pytest.mark.parametrize("test", [bayesian_correlated_ttest, bayesian_signed_rank_test])
def test_negative_rope_and_bad_pairs(test):
    with pytest.raises(ValueError, match="rope must be at least 0.0; got -0.01"):
        test([0.8, 0.9, 0.7], [0.7, 0.8, 0.7], rope=-0.01)
    with pytest.raises(TypeError, match="rope must be a real number"):
        test([0.8, 0.9, 0.7], [0.7, 0.8, 0.7], rope="wide")
    with pytest.raises(ValueError, match="at least 2 paired scores"):
        test([0.8], [0.7])
    with pytest.raises(ValueError, match="inconsistent|length"):
        test([0.8, 0.9], [0.7, 0.8, 0.9])


def test_negative_rope_in_the_ranking_helpers():
    with pytest.raises(ValueError, match="rope must be at least 0.0"):
        rank_equivalence({"a": [.8, .9], "b": [.7, .8]}, rope=-1)
    with pytest.raises(ValueError, match="rope must be at least 0.0"):
        dartboard.dart_equivalence({"a": [.8, .9], "b": [.7, .8]}, precision=0, rope=-1)


def test_correlated_ttest_argument_errors():
    a, b = _pairs(10, 0.01, 2)
    with pytest.raises(ValueError, match="both n_train and n_test"):
        bayesian_correlated_ttest(a, b, n_train=90)
    with pytest.raises(ValueError, match="runs must divide"):
        bayesian_correlated_ttest(a, b, runs=3)
    with pytest.raises(ValueError, match="n_test must be greater than 0"):
        bayesian_correlated_ttest(a, b, n_train=90, n_test=0)
    res = bayesian_correlated_ttest(a, b, rope=0.01)
    with pytest.raises(ValueError, match="threshold"):
        res.decision(1.5)
