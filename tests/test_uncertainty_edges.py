"""Interval edges: bounds of a metric's range, Jeffreys at 0 and n, DeLong's binary scope."""

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from dartboard import interval
from dartboard._kernels._analytic import proportion_interval
from dartboard.metrics import (
    ConfusionCounts,
    f1_score,
    matthews_corrcoef,
    r2_score,
    recall_score,
    roc_auc_score,
)
from dartboard.metrics._registry import spec_for
from dartboard.uncertainty import interval_from_counts


def _near_perfect(n=40, seed=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    pred = y.copy()
    pred[rng.choice(n, 2, replace=False)] ^= 1
    return y, pred


def _basic_by_hand(iv, level=0.95):
    """The unclipped basic interval from the kept replicates (Efron & Tibshirani 13.4)."""
    alpha = (1 - level) / 2
    q_low, q_high = np.quantile(iv.bootstrap_distribution, [alpha, 1 - alpha])
    return 2 * iv.estimate - q_high, 2 * iv.estimate - q_low


@pytest.mark.parametrize("metric, make", [
    (f1_score, lambda: _near_perfect()),
    (matthews_corrcoef, lambda: _near_perfect()),
    (roc_auc_score, lambda: (lambda y: (y, y + np.random.default_rng(1).normal(0, 0.45, 40)))(
        np.random.default_rng(2).integers(0, 2, 40))),
    # heavy-tailed errors: a few resamples lose the outliers
    (r2_score, lambda: (lambda y: (y, y + 0.1 * np.random.default_rng(1).standard_t(2, 20)))(
        np.random.default_rng(0).normal(size=20))),
])
def test_basic_interval_stays_in_the_metric_range(metric, make):
    y, other = make()
    iv = interval(metric, y, other, method="basic", n_resamples=2000, random_state=0)
    low_range, high_range = spec_for(metric).bounds
    low, high = _basic_by_hand(iv)
    # the data are chosen so that the reflected quantile leaves the range
    assert high > high_range
    assert iv.high == pytest.approx(min(high, high_range))
    assert iv.low == pytest.approx(max(low, low_range))
    assert low_range <= iv.low <= iv.high <= high_range


def test_basic_interval_from_counts_is_clipped():
    counts = ConfusionCounts([0, 1], [[20, 0], [1, 19]])
    iv = interval_from_counts("f1_score", counts, method="basic", n_resamples=2000,
                              random_state=0)
    assert _basic_by_hand(iv)[1] > 1.0
    assert iv.high == 1.0


def test_accuracy_as_a_count_is_not_clipped_to_one():
    y, pred = _near_perfect()
    from dartboard.metrics import accuracy_score

    iv = interval(accuracy_score, y, pred, method="basic", normalize=False,
                  n_resamples=500, random_state=0)
    assert iv.high == pytest.approx(_basic_by_hand(iv)[1])
    assert iv.high > 1.0


@pytest.mark.parametrize("n", [1, 5, 17, 200])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_jeffreys_ends_follow_brown_cai_dasgupta(n, level):
    alpha = 1 - level
    assert proportion_interval(0.0, float(n), level, "jeffreys")[0] == 0.0
    assert proportion_interval(float(n), float(n), level, "jeffreys")[1] == 1.0
    # the other end at x = 0 and n is still the Beta(x + 1/2, n - x + 1/2) quantile
    assert proportion_interval(0.0, float(n), level, "jeffreys")[1] == pytest.approx(
        stats.beta.ppf(1 - alpha / 2, 0.5, n + 0.5), rel=1e-10)
    assert proportion_interval(float(n), float(n), level, "jeffreys")[0] == pytest.approx(
        stats.beta.ppf(alpha / 2, n + 0.5, 0.5), rel=1e-10)
    for x in range(1, n):
        got = proportion_interval(float(x), float(n), level, "jeffreys")
        ref = proportion_confint(x, n, alpha=alpha, method="jeffreys")
        assert got == pytest.approx(ref, abs=1e-12)


def test_jeffreys_at_zero_through_interval():
    y = np.array([1] * 12 + [0] * 8)
    pred = np.array([0] * 12 + [1] * 8)   # no true positive: recall 0 of 12
    iv = interval(recall_score, y, pred, method="jeffreys")
    assert iv.low == 0.0
    assert iv.high == pytest.approx(stats.beta.ppf(0.975, 0.5, 12.5))


def test_delong_on_multiclass_says_it_is_binary():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 60)
    proba = rng.dirichlet(np.ones(3), 60)
    with pytest.raises(ValueError, match=r"method='delong' is DeLong's interval of a "
                                         r"binary ROC AUC; got 3 classes"):
        interval(roc_auc_score, y, proba, method="delong", multi_class="ovr")
