"""Newcombe's (2006) method 5 interval of ROC AUC against oracles written from the paper.

Newcombe, Stat. Med. 25:559-573 (2006), method 5: the Hanley-McNeil variance
with both m - 1 and n - 1 replaced by N* = (m + n) / 2 - 1, and the bounds the
theta with (AUC - theta)^2 = z^2 V(theta). The oracles below write V in Hanley
and McNeil's own form (Q1 = theta / (2 - theta), Q2 = 2 theta^2 / (1 + theta)),
count the AUC pair by pair, and find the bounds by scanning a grid of theta, so
they share neither algebra nor root finding with the library.
"""

import numpy as np
import pytest
from scipy import stats

from dartboard import interval
from dartboard.metrics import ScoreState, roc_auc_score
from dartboard.uncertainty import interval_from_score_state

Z = stats.norm.ppf(0.975)
GRID = np.linspace(0.0, 1.0, 1_000_001)


def _hanley_mcneil_star(theta, m, n):
    star = (m + n) / 2 - 1
    q1, q2 = theta / (2 - theta), 2 * theta ** 2 / (1 + theta)
    return (theta * (1 - theta) + star * (q1 - theta ** 2) + star * (q2 - theta ** 2)) / (m * n)


def _grid_bounds(auc, m, n):
    """Smallest and largest theta on a 1e-6 grid inside the score interval."""
    inside = (auc - GRID) ** 2 <= Z ** 2 * _hanley_mcneil_star(GRID, m, n)
    inside |= np.isclose(GRID, auc, atol=5e-7)
    return GRID[inside].min(), GRID[inside].max()


def _auc_by_pairs(y, s):
    x, z = s[y == 1], s[y == 0]
    return float(np.mean((x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])))


@pytest.mark.parametrize("auc, m, n", [(0.8, 10, 10), (1.0, 3, 57), (0.95, 6, 54),
                                       (0.5, 30, 30), (0.25, 7, 13), (0.0, 5, 5),
                                       (0.86, 500, 500), (0.5, 1, 1)])
def test_bounds_equal_the_grid_scan_of_the_score_equation(auc, m, n):
    from dartboard._kernels._analytic import newcombe_interval

    low, high, se = newcombe_interval(auc, m, n, 0.95)
    ref_low, ref_high = _grid_bounds(auc, m, n)
    assert low == pytest.approx(ref_low, abs=2e-6)
    assert high == pytest.approx(ref_high, abs=2e-6)
    assert se == pytest.approx(np.sqrt(_hanley_mcneil_star(auc, m, n)), rel=1e-12)


# R 4.x, the score equation solved with uniroot (tol = 1e-14) from the paper's formula:
#   V <- function(t, m, n) { s <- (m + n) / 2 - 1
#     (t * (1 - t) + s * (t / (2 - t) - t^2) + s * (2 * t^2 / (1 + t) - t^2)) / (m * n) }
#   lo <- uniroot(function(t) th - t - qnorm(.975) * sqrt(V(t, m, n)), c(0, th))$root
#   hi <- uniroot(function(t) th - t + qnorm(.975) * sqrt(V(t, m, n)), c(th, 1))$root
@pytest.mark.parametrize("auc, m, n, low, high", [
    (0.8, 10, 10, 0.5418009873, 0.9255198159),
    (0.95, 6, 54, 0.7401162774, 0.9909194323),
    (0.5, 30, 30, 0.3597995663, 0.6402004337),
    (0.25, 7, 13, 0.0988495558, 0.5214989064)])
def test_bounds_equal_r_uniroot(auc, m, n, low, high):
    from dartboard._kernels._analytic import newcombe_interval

    got = newcombe_interval(auc, m, n, 0.95)[:2]
    assert got == pytest.approx((low, high), abs=1e-9)


@pytest.mark.parametrize("seed, n, prevalence, ties", [(0, 60, 0.1, False), (1, 200, 0.5, True),
                                                        (2, 40, 0.2, True)])
def test_interval_on_rows_is_the_formula_at_the_pairwise_auc(seed, n, prevalence, ties):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(int)
    y[:2] = [0, 1]
    s = rng.normal(size=n) + 1.2 * y
    if ties:
        s = np.round(s, 1)
    iv = interval(roc_auc_score, y, s, method="newcombe")
    auc, m = _auc_by_pairs(y, s), int(y.sum())
    assert iv.method == "newcombe"
    assert iv.estimate == pytest.approx(auc, abs=1e-12)
    assert (iv.low, iv.high) == pytest.approx(_grid_bounds(auc, m, n - m), abs=2e-6)
    state = interval_from_score_state(ScoreState.from_scores(y, s), method="newcombe")
    assert (state.low, state.high, state.standard_error) == \
        pytest.approx((iv.low, iv.high, iv.standard_error), rel=1e-12)


def test_perfect_separation_with_three_positives_still_has_a_lower_bound():
    # DeLong's variance is 0 here, so its intervals collapse to the point
    y = np.r_[np.ones(3, int), np.zeros(57, int)]
    s = np.r_[[5.0, 6.0, 7.0], np.arange(57.0) / 57]
    iv = interval(roc_auc_score, y, s, method="newcombe")
    assert iv.estimate == 1.0 and iv.high == 1.0
    assert iv.low == pytest.approx(_grid_bounds(1.0, 3, 57)[0], abs=2e-6)
    assert 0.6 < iv.low < 0.8


def test_newcombe_is_for_binary_roc_auc_only():
    from dartboard.metrics import accuracy_score, average_precision_score

    y = np.array([0, 1, 1, 0, 1, 0])
    s = np.array([0.2, 0.7, 0.6, 0.3, 0.9, 0.4])
    with pytest.raises(ValueError, match="method='newcombe' applies to"):
        interval(average_precision_score, y, s, method="newcombe")
    with pytest.raises(ValueError, match="method='newcombe' applies to"):
        interval(accuracy_score, y, (s > 0.5).astype(int), method="newcombe")
    with pytest.raises(ValueError, match="method='newcombe' does not take sample_weight"):
        interval(roc_auc_score, y, s, method="newcombe", sample_weight=np.ones(6))
    y3 = np.array([0, 1, 2, 0, 1, 2])
    p3 = np.full((6, 3), 1 / 3)
    with pytest.raises(ValueError, match="binary ROC AUC"):
        interval(roc_auc_score, y3, p3, method="newcombe", multi_class="ovr")
