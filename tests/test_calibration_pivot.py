"""The bin-pivot interval of the calibration error: its worlds against row-level
draws, its world truth by hand, its gate against calibration_test, its refusals, and
(slow) its coverage where the basic interval lay above a small true error."""

from __future__ import annotations

import numpy as np
import pytest

import dartboard
from dartboard import calibration_test
from dartboard._kernels import _calibration as fast
from dartboard.metrics import CalibrationState, calibration_error
from dartboard.uncertainty import interval_from_calibration_state


def mild(seed, n, power=1.25):
    """Uniform confidences, outcomes Bernoulli(p ** power): true ECE 0.056 at 1.25."""
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return (rng.random(n) < p**power).astype(int), p


def world_rows(y, p, prob, n_resamples, seed, n_bins=15, **kw):
    """The slow oracle of a world: resample rows, draw each row's outcome from its
    bin's world frequency, recompute the metric on the rows."""
    rng = np.random.default_rng(seed)
    bins = np.minimum((p * n_bins).astype(int), n_bins)
    out = np.empty(n_resamples)
    for r in range(n_resamples):
        idx = rng.integers(0, p.shape[0], p.shape[0])
        event = rng.random(idx.shape[0]) < prob[bins[idx]]
        out[r] = calibration_error(event.astype(int), p[idx], n_bins=n_bins, **kw)
    return out


@pytest.mark.parametrize("kw", [{}, {"norm": "l2"}, {"norm": "l2", "debiased": True}])
def test_world_draws_match_row_level_draws(kw):
    y, p = mild(0, 600)
    state = CalibrationState(15).update(y, p)
    count, events, mean, _ = fast.state_bins(state)
    prob = np.clip(mean + 0.5 * (events / np.maximum(count, 1) - mean), 0.0, 1.0)
    norm, debiased = kw.get("norm", "l1"), kw.get("debiased", False)
    reps, _ = fast._world_pivots(state, prob, norm, debiased, 4000,
                                 np.random.default_rng(1))
    slow = world_rows(y, p, prob, 800, 2, **kw)
    # means within Monte-Carlo error of the two samples; spreads and tails close
    assert abs(reps.mean() - slow.mean()) < 4 * slow.std() * np.sqrt(1 / 800 + 1 / 4000)
    assert reps.std() == pytest.approx(slow.std(), rel=0.12)
    assert np.quantile(reps, 0.9) == pytest.approx(np.quantile(slow, 0.9), rel=0.08)


def test_world_truth_is_the_worlds_binned_error_by_hand():
    y, p = mild(1, 500)
    state = CalibrationState(15).update(y, p)
    count, _, mean, _ = fast.state_bins(state)
    prob = np.clip(mean + np.linspace(-0.1, 0.1, mean.shape[0]), 0.0, 1.0)
    _, truth = fast._world_pivots(state, prob, "l1", False, 10, np.random.default_rng(0))
    by_hand = sum(c / 500 * abs(pi - mu) for c, pi, mu in zip(count, prob, mean) if c)
    assert truth == pytest.approx(by_hand, abs=1e-12)
    # the debiased estimator's world truth is the plain error it estimates
    _, rms = fast._world_pivots(state, prob, "l2", True, 10, np.random.default_rng(0))
    assert rms == pytest.approx(np.sqrt(sum(c / 500 * (pi - mu) ** 2 for c, pi, mu
                                            in zip(count, prob, mean) if c)), abs=1e-12)


def test_it_starts_at_zero_exactly_when_calibration_test_does_not_reject():
    outcomes = set()
    for seed in range(16):
        y, p = mild(seed, 400, power=1.0 + 0.04 * seed)
        iv = dartboard.interval(calibration_error, y, p, n_resamples=300, random_state=seed)
        test = calibration_test(y, p, n_resamples=300, random_state=seed)
        assert iv.method == "bin-pivot"
        assert (iv.low == 0.0) == (test.pvalue > 0.05), (seed, iv, test.pvalue)
        assert 0.0 <= iv.low <= iv.high <= 1.0
        outcomes.add(iv.low == 0.0)
    assert outcomes == {True, False}  # both branches were taken


def test_same_seed_same_bits_from_rows_and_from_a_merged_state():
    y, p = mild(3, 3000)
    a = dartboard.interval(calibration_error, y, p, n_resamples=500, random_state=9)
    b = dartboard.interval(calibration_error, y, p, n_resamples=500, random_state=9)
    state = CalibrationState(15)
    for idx in np.array_split(np.arange(3000), 4):
        state = state.merge(CalibrationState(15).update(y[idx], p[idx]))
    c = interval_from_calibration_state(state, n_resamples=500, random_state=9)
    assert (a.low, a.high) == (b.low, b.high)
    # the merged sums of confidences differ from one pass in the last bits only
    assert (c.low, c.high) == pytest.approx((a.low, a.high), abs=1e-12)
    assert a.method == c.method == "bin-pivot"


def test_top_label_and_the_debiased_estimator_take_it():
    rng = np.random.default_rng(4)
    logits = rng.normal(size=(1500, 3)) * 2
    proba = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    labels = np.array([rng.choice(3, p=row ** 1.5 / (row ** 1.5).sum()) for row in proba])
    iv = dartboard.interval(calibration_error, labels, proba, n_resamples=400,
                            random_state=0)
    assert iv.method == "bin-pivot" and 0.0 <= iv.low <= iv.high <= 1.0
    y, p = mild(5, 2000, power=2.0)
    iv = dartboard.interval(calibration_error, y, p, norm="l2", debiased=True,
                            n_resamples=400, random_state=0)
    assert iv.method == "bin-pivot" and 0.0 < iv.low <= iv.estimate <= iv.high


def test_where_it_does_not_apply_auto_is_basic_and_asking_for_it_is_an_error():
    y, p = mild(6, 400)
    w = np.random.default_rng(6).integers(1, 3, 400)
    assert dartboard.interval(calibration_error, y, p, sample_weight=w, n_resamples=100,
                              random_state=0).method == "basic"
    assert dartboard.interval(calibration_error, y, p, stratified=True, n_resamples=100,
                              random_state=0).method == "basic"
    with pytest.raises(ValueError, match="needs unweighted rows"):
        dartboard.interval(calibration_error, y, p, sample_weight=w, method="bin-pivot")
    with pytest.raises(ValueError, match="stratified=False"):
        dartboard.interval(calibration_error, y, p, stratified=True, method="bin-pivot")
    with pytest.raises(ValueError, match="stratified=False"):
        interval_from_calibration_state(CalibrationState(15).update(y, p),
                                        stratified=True, method="bin-pivot")
    with pytest.raises(ValueError, match="calibration_error only"):
        dartboard.interval(dartboard.metrics.accuracy_score, y, y, method="bin-pivot")
    proba = np.c_[1 - p, p]
    with pytest.raises(ValueError, match="needs unweighted rows"):
        dartboard.interval(calibration_error, y, proba, multiclass="classwise",
                           method="bin-pivot")


def test_the_evaluation_engine_reports_it():
    y, p = mild(7, 1500, power=2.0)
    rows = dartboard.evaluate(y, y_proba=np.c_[1 - p, p], n_resamples=300,
                              random_state=0).overall
    ece = rows.loc[[i for i in rows.index if "ece" in str(i).lower()]]
    assert list(ece["method"]) == ["bin-pivot"]


@pytest.mark.slow
def test_coverage_where_the_basic_interval_lay_above_the_truth():
    # benchmarks/calibration_simulation_ece.py has the full table; true ECE 0.0556
    truth = 0.05556
    hits = {"bin-pivot": 0, "basic": 0}
    for seed in range(300):
        y, p = mild(seed, 1000)
        state = CalibrationState(15).update(y, p)
        for method in hits:
            iv = interval_from_calibration_state(state, method=method, n_resamples=500,
                                                 random_state=seed)
            hits[method] += iv.low <= truth <= iv.high
    assert 0.92 <= hits["bin-pivot"] / 300 <= 0.98
    assert hits["basic"] / 300 < 0.9
