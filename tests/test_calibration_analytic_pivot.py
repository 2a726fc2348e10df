"""The analytic bin-pivot interval of ECE (no Monte Carlo, many groups at once): its
moments by hand, its ends against the Monte Carlo pivot, vectorized against one group
at a time, and its edges (one bin, empty bins, calibrated forecasts, all or no
events, an empty group)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dartboard._kernels import _calibration as fast
from dartboard.metrics import CalibrationState


def state_of(seed, n, power=1.25, n_bins=15, low=0.0, high=1.0):
    rng = np.random.default_rng(seed)
    p = low + (high - low) * rng.random(n)
    y = (rng.random(n) < p**power).astype(int)
    return CalibrationState(n_bins).update(y, p, pos_label=1)


def analytic(states, level=0.95, fit="gamma"):
    found = [fast.state_bins(s) for s in states]
    count, events, mean, sd = (np.array([f[i] for f in found]) for i in range(4))
    est = np.array([s.compute("calibration_error") for s in states])
    return fast.pivot_intervals_analytic(count, events, mean, sd, est, level, fit=fit)


def monte_carlo(state, n_resamples=20_000, seed=0):
    est = state.compute("calibration_error")
    return fast.pivot_interval(state, est, "l1", False, 0.95, n_resamples,
                               np.random.default_rng(seed))


@pytest.mark.parametrize("size,prob", [(1, 0.5), (3, 0.3), (10, 0.05), (50, 0.97),
                                       (150, 0.4), (0, 0.4), (7, 0.0), (7, 1.0)])
def test_binomial_deviation_moments_are_exact(size, prob):
    k = np.arange(size + 1)
    pmf = stats.binom.pmf(k, size, prob)
    y = np.abs(k - size * prob)
    m1 = (pmf * y).sum()
    got = fast._binomial_deviation(np.array([size * 1.0]), np.array([prob]))
    want = (m1, (pmf * (y - m1) ** 2).sum(), (pmf * (y - m1) ** 3).sum())
    assert np.allclose(np.ravel(got), want, atol=1e-10)


@pytest.mark.parametrize("n,count,pi,c,sd", [(50, 3.0, 0.5, 0.5, 0.0),
                                             (200, 9.0, 0.45, 0.3, 0.0),
                                             (40, 11.0, 0.75, 0.9, 0.0),
                                             (200, 9.0, 0.45, 0.3, 0.02),
                                             (40, 11.0, 0.75, 0.9, 0.015)])
def test_enumerated_bin_moments_match_brute_force(n, count, pi, c, sd):
    # (rows, events) of the bin summed by hand, the sums of confidences' normal part
    # by simulation: exact without it; with it, only E D^2 takes it in (1% of the
    # third moment here)
    w = count / n
    m1 = m2 = m3 = sign = 0.0
    z = np.random.default_rng(0).standard_normal(20_000)
    for m in range(n + 1):
        pm = stats.binom.pmf(m, n, w)
        if pm < 1e-14:
            continue
        for k in range(m + 1):
            pr = pm * stats.binom.pmf(k, m, pi)
            x = k - m * c + np.sqrt(m) * sd * z if sd > 0 else np.array([k - m * c])
            m1, m2 = m1 + pr * np.abs(x).mean(), m2 + pr * (x * x).mean()
            m3, sign = m3 + pr * (np.abs(x) ** 3).mean(), sign + pr * np.sign(x).mean()
    top = dict((b, t) for b, t in fast.EXACT_BUCKETS)[next(b for b, _ in fast.EXACT_BUCKETS
                                                           if count <= b)]
    got = fast._enumerated_bins(np.array([n * 1.0]), np.array([count]), np.array([pi]),
                                np.array([c]), np.array([sd]), top)
    want = (m1, m2 - m1 * m1, m3 - 3 * m1 * m2 + 2 * m1**3, sign)
    if sd == 0:
        assert np.allclose(np.ravel(got), want, atol=1e-5)
    else:
        assert np.allclose(np.ravel(got), want, atol=2e-3, rtol=0.02)


# Tolerance against the Monte Carlo pivot at 20,000 resamples, in units of the
# Monte Carlo's own standard error of E* (its third value): over 168 simulated states
# (n = 30 to 100,000; calibrated, over-, under- and crossing miscalibration; uniform
# and top-label-like confidences) the ends differed by at most 0.28 of it at n = 30
# to 100, 0.15 at n = 300 and 0.07 from n = 1,000 (the Monte Carlo's own noise on
# these quantiles is about 0.03); 0.35 (0.5 below 50 rows) leaves room for that
# noise, not for a wrong formula (a world moved by a quarter of a standard error
# moves the ends by about that much).
CASES = [(30, 1.0), (50, 1.25), (50, 2.0), (300, 1.0), (300, 1.25), (2000, 1.083),
         (2000, 2.0), (50_000, 1.25)]


@pytest.mark.parametrize("n,power", CASES)
def test_ends_agree_with_the_monte_carlo_pivot(n, power):
    state = state_of(n + int(power * 100), n, power)
    low, high, se = (v[0] for v in analytic([state]))
    mc_low, mc_high, mc_se, _ = monte_carlo(state)
    tol = (0.5 if n < 50 else 0.35) * mc_se
    assert (low == 0.0) == (mc_low == 0.0)
    assert low == pytest.approx(mc_low, abs=tol)
    assert high == pytest.approx(mc_high, abs=tol)
    assert se == pytest.approx(mc_se, rel=0.35 if n < 50 else 0.1)


def test_top_label_state_agrees_too():
    rng = np.random.default_rng(11)
    logits = rng.normal(size=(1200, 4)) * 2
    proba = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    labels = np.array([rng.choice(4, p=r**1.4 / (r**1.4).sum()) for r in proba])
    from dartboard.metrics._calibration import binned_state

    state = binned_state(labels, proba, 15, "uniform", "top_label", None, None,
                         second_moment=True)
    low, high, _ = (v[0] for v in analytic([state]))
    mc_low, mc_high, mc_se, _ = monte_carlo(state)
    assert low == pytest.approx(mc_low, abs=0.35 * mc_se)
    assert high == pytest.approx(mc_high, abs=0.35 * mc_se)


def test_many_groups_at_once_equal_one_at_a_time():
    states = [state_of(s, n, pw) for s, (n, pw) in enumerate(
        [(30, 1.0), (50, 2.0), (120, 1.25), (400, 1.0), (1000, 1.5), (5000, 1.1),
         (80, 0.5), (2000, 1.25)])]
    together = analytic(states)
    for g, state in enumerate(states):
        alone = analytic([state])
        for t, a in zip(together, alone):
            assert t[g] == pytest.approx(a[0], abs=1e-12)
    low, high, se = together
    assert np.all((0.0 <= low) & (low <= high) & (high <= 1.0)) and np.all(se > 0)


def test_cornish_fisher_quantiles_are_close_to_the_gamma_ones():
    states = [state_of(s, n) for s, n in enumerate([100, 1000, 10_000])]
    a, b = analytic(states), analytic(states, fit="cornish-fisher")
    assert np.allclose(a[0], b[0], atol=0.1 * a[2]) and np.allclose(a[1], b[1], atol=0.1 * a[2])


def test_one_bin():
    state = state_of(3, 2000, 1.5, n_bins=1)
    low, high, _ = (v[0] for v in analytic([state]))
    mc_low, mc_high, mc_se, _ = monte_carlo(state)
    assert 0.0 < low <= high
    assert low == pytest.approx(mc_low, abs=0.35 * mc_se)
    assert high == pytest.approx(mc_high, abs=0.35 * mc_se)


def test_empty_bins():
    # confidences in [0.6, 0.75): three of the 15 bins hold all the rows
    state = state_of(4, 500, 2.0, low=0.6, high=0.75)
    count = fast.state_bins(state)[0]
    assert np.count_nonzero(count) == 3
    low, high, _ = (v[0] for v in analytic([state]))
    mc_low, mc_high, mc_se, _ = monte_carlo(state)
    assert low == pytest.approx(mc_low, abs=0.35 * mc_se)
    assert high == pytest.approx(mc_high, abs=0.35 * mc_se)


def test_calibrated_forecasts_at_the_bin_centres_give_a_one_sided_interval():
    rng = np.random.default_rng(5)
    p = (np.floor(rng.random(3000) * 15) + 0.5) / 15
    y = (rng.random(3000) < p).astype(int)
    state = CalibrationState(15).update(y, p, pos_label=1)
    low, high, _ = (v[0] for v in analytic([state]))
    mc_low, mc_high, mc_se, _ = monte_carlo(state)
    assert low == mc_low == 0.0
    assert high == pytest.approx(mc_high, abs=0.35 * mc_se)
    assert high > state.compute("calibration_error")


@pytest.mark.parametrize("event,prob", [(1, 1.0), (0, 0.0)])
def test_all_or_no_events_at_certain_forecasts_is_exactly_calibrated(event, prob):
    state = CalibrationState(15).update(np.full(60, event), np.full(60, prob), pos_label=1)
    low, high, se = (v[0] for v in analytic([state]))
    mc_low, mc_high, _, _ = monte_carlo(state, 2000)
    assert (low, high, se) == (0.0, 0.0, 0.0) and (mc_low, mc_high) == (0.0, 0.0)


def test_all_events_at_uncertain_forecasts():
    rng = np.random.default_rng(6)
    state = CalibrationState(15).update(np.ones(200, int), 0.5 + 0.45 * rng.random(200),
                                        pos_label=1)
    low, high, _ = (v[0] for v in analytic([state]))
    mc_low, mc_high, mc_se, _ = monte_carlo(state)
    assert 0.0 < low <= state.compute("calibration_error") <= high
    assert low == pytest.approx(mc_low, abs=0.35 * mc_se)
    assert high == pytest.approx(mc_high, abs=0.35 * mc_se)


def test_no_deviation_in_any_bin():
    # certain forecasts, all right: every bin's deviation is 0 and its variance too
    y = np.r_[np.ones(40, int), np.zeros(40, int)]
    p = np.r_[np.ones(40), np.zeros(40)]
    state = CalibrationState(15).update(y, p, pos_label=1)
    low, high, _ = (v[0] for v in analytic([state]))
    assert (low, high) == (0.0, 0.0)


def test_an_empty_group_is_nan_and_leaves_the_others_alone():
    count, events, mean, sd = (np.array([v, np.zeros_like(v)]) for v in
                               fast.state_bins(state_of(1, 300)))
    est = np.array([state_of(1, 300).compute("calibration_error"), 0.0])
    low, high, se = fast.pivot_intervals_analytic(count, events, mean, sd, est, 0.95)
    assert np.isnan([low[1], high[1], se[1]]).all() and np.isfinite([low[0], high[0]]).all()


def test_the_closed_form_serves_50_rows_or_more_and_fewer_rows_draw():
    # below the coverage grid's smallest size the first-order covariance of the bins'
    # counts misstates the spread: 4 rows all wrong at 0 and 1 are [1, 1] by the drawn
    # pivot (every world's error is 1), and were [0.76, 1] in closed form
    import dartboard as db
    from dartboard.metrics import calibration_error

    y, p = np.array([1, 0, 0, 1]), np.array([0.0, 1.0, 1.0, 0.0])
    tiny = db.interval(calibration_error, y, p, n_resamples=500, random_state=0)
    assert (tiny.low, tiny.high, tiny.n_resamples) == (1.0, 1.0, 500)
    assert fast.ANALYTIC_MIN_ROWS == 50
    rng = np.random.default_rng(5)
    for n, drawn in ((49, True), (50, False)):
        p = rng.random(n)
        y = (rng.random(n) < p ** 1.25).astype(int)
        iv = db.interval(calibration_error, y, p, n_resamples=500, random_state=0)
        assert (iv.n_resamples is not None) is drawn and iv.method == "bin-pivot"
