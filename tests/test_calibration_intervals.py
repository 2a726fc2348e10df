"""Calibration with uncertainty: the bin-level bootstrap against row resampling, per-bin
intervals against statsmodels, and the paired comparison of two models."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

import dartboard
from dartboard.families._calibration import CalibrationFamily
from dartboard.metrics import CalibrationState, calibration_error
from dartboard.uncertainty import (
    calibration_bins,
    interval_from_calibration_state,
)


def miscalibrated(seed, n):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    y = (rng.random(n) < p**1.3).astype(int)
    return y, p


def row_resampled(y, p, n_resamples, seed, **kw):
    """The slow oracle: resample rows, recompute the metric."""
    rng = np.random.default_rng(seed)
    n = y.shape[0]
    out = np.empty(n_resamples)
    for r in range(n_resamples):
        idx = rng.integers(0, n, n)
        out[r] = calibration_error(y[idx], p[idx], **kw)
    return out


@pytest.mark.parametrize("kw", [{}, {"norm": "l2"}, {"norm": "max", "n_bins": 8},
                                {"strategy": "quantile", "n_bins": 10}])
def test_bin_level_replicates_match_row_resampling(kw):
    y, p = miscalibrated(0, 1500)
    r = 1500
    iv = dartboard.interval(calibration_error, y, p, method="percentile", n_resamples=r,
                            random_state=1, **kw)
    assert iv.bootstrap_distribution.shape == (r,)
    slow = row_resampled(y, p, r, 2, **kw)
    quick = iv.bootstrap_distribution
    sd = slow.std(ddof=1)
    # means within 4 Monte Carlo standard errors; spreads within 12 % (sd of a
    # sample sd is about sd / sqrt(2 r) = 1.8 % here); quantiles within a third of sd
    assert abs(quick.mean() - slow.mean()) < 4 * sd * np.sqrt(2 / r)
    assert quick.std(ddof=1) == pytest.approx(sd, rel=0.12)
    for q in (0.025, 0.5, 0.975):
        assert abs(np.quantile(quick, q) - np.quantile(slow, q)) < sd / 3


def test_the_fast_path_runs_and_the_slow_one_does_not(monkeypatch):
    y, p = miscalibrated(1, 400)
    calls = []

    def counting(*args, **kwargs):
        calls.append(1)
        return calibration_error(*args, **kwargs)

    monkeypatch.setattr(CalibrationFamily, "cells",
                        lambda *a, **k: pytest.fail("slow path expected"), raising=True)
    # a user callable has no spec: rows are resampled
    dartboard.interval(counting, y, p, n_resamples=50, random_state=0, method="percentile")
    assert len(calls) > 50
    monkeypatch.undo()
    seen = []
    original = CalibrationFamily.cells
    monkeypatch.setattr(CalibrationFamily, "cells",
                        lambda *a, **k: seen.append(1) or original(*a, **k))
    dartboard.interval(calibration_error, y, p, n_resamples=50, random_state=0,
                       method="basic")
    assert seen


def test_fallbacks_to_row_resampling_give_intervals():
    y, p = miscalibrated(2, 300)
    w = np.random.default_rng(2).integers(1, 3, 300)
    iv = dartboard.interval(calibration_error, y, p, sample_weight=w, n_resamples=200,
                            random_state=0, method="percentile")
    assert iv.low <= iv.estimate <= iv.high + 1e-12
    rng = np.random.default_rng(3)
    proba = rng.dirichlet([1, 1, 1], 300)
    labels = rng.integers(0, 3, 300)
    for multiclass in ("classwise", "marginal"):
        iv = dartboard.interval(calibration_error, labels, proba, multiclass=multiclass,
                                n_resamples=100, random_state=0, method="percentile")
        assert iv.estimate == calibration_error(labels, proba, multiclass=multiclass)


def test_top_label_fast_path_matches_row_resampling():
    rng = np.random.default_rng(4)
    proba = rng.dirichlet([2, 1, 1, 0.5], 1200)
    labels = np.array([rng.choice(4, p=row) for row in proba ** 1.5 / (proba ** 1.5).sum(1,
                       keepdims=True)])
    iv = dartboard.interval(calibration_error, labels, proba, method="percentile",
                            n_resamples=1000, random_state=5)
    slow = np.array([calibration_error(labels[i], proba[i]) for i in
                     np.random.default_rng(6).integers(0, 1200, (1000, 1200))])
    assert abs(iv.bootstrap_distribution.mean() - slow.mean()) < 4 * slow.std() * np.sqrt(2e-3)
    assert iv.bootstrap_distribution.std() == pytest.approx(slow.std(), rel=0.12)


def test_stratified_keeps_each_class_count():
    y, p = miscalibrated(7, 500)
    from dartboard.families import Metric
    from dartboard.families._base import replicates
    from dartboard.families._calibration import FAMILY, CalibrationCells
    from dartboard.metrics._registry import get_spec

    state = CalibrationCells(CalibrationState(15).update(y, p), False)
    cells = FAMILY.cells(state, Metric(get_spec("calibration_error")))
    reps = replicates(cells, 30, True, np.random.default_rng(0), False)
    assert np.isfinite(reps.values).all()
    # each resample keeps each outcome's number of rows
    assert set(np.unique(cells.stratum)) == {0, 1}
    iv = dartboard.interval(calibration_error, y, p, stratified=True, n_resamples=300,
                            random_state=0)
    assert iv.method == "basic" and iv.low <= iv.high


def test_state_interval_equals_the_row_interval():
    y, p = miscalibrated(8, 2000)
    state = CalibrationState(15)
    for idx in np.array_split(np.arange(2000), 5):
        state = state.merge(CalibrationState(15).update(y[idx], p[idx]))
    for method, used in (("auto", "bin-pivot"), ("basic", "basic")):
        a = interval_from_calibration_state(state, n_resamples=500, random_state=3,
                                            method=method)
        b = dartboard.interval(calibration_error, y, p, n_resamples=500, random_state=3,
                               method=method)
        assert a.estimate == pytest.approx(b.estimate, abs=1e-12)
        assert (a.low, a.high) == pytest.approx((b.low, b.high), abs=1e-9)
        assert a.method == b.method == used


def test_state_interval_refuses_what_it_cannot_do():
    y, p = miscalibrated(9, 100)
    with pytest.raises(ValueError, match="method must be"):
        interval_from_calibration_state(CalibrationState(5).update(y, p), method="wilson")
    weighted = CalibrationState(5).update(y, p, sample_weight=np.full(100, 0.5))
    with pytest.raises(ValueError, match="whole row counts"):
        interval_from_calibration_state(weighted)


def test_debiased_interval_is_formed():
    y, p = miscalibrated(10, 800)
    iv = dartboard.interval(calibration_error, y, p, norm="l2", debiased=True,
                            n_resamples=400, random_state=0)
    assert iv.estimate == calibration_error(y, p, norm="l2", debiased=True)
    assert iv.low <= iv.high


# ---------------------------------------------------------------------- per-bin intervals

@pytest.mark.parametrize("method", ["wilson", "jeffreys"])
def test_calibration_bins_equal_a_loop_and_statsmodels(method):
    y, p = miscalibrated(11, 300)
    p[:4] = 1.0
    bins = calibration_bins(y, p, n_bins=10, method=method, confidence_level=0.9)
    # plain loop over the left-closed bins (p == 1 alone)
    groups = {}
    for yi, pi in zip(y, p):
        groups.setdefault(int(np.floor(pi * 10)), []).append((yi, pi))
    keys = sorted(groups)
    assert bins.count.tolist() == [len(groups[k]) for k in keys]
    np.testing.assert_allclose(bins.mean_predicted,
                               [np.mean([q for _, q in groups[k]]) for k in keys], rtol=1e-12)
    positives = [sum(t for t, _ in groups[k]) for k in keys]
    np.testing.assert_allclose(bins.observed, np.array(positives) / bins.count)
    want = [proportion_confint(x, len(groups[k]), alpha=0.1, method=method)
            for x, k in zip(positives, keys)]
    if method == "jeffreys":
        # Brown, Cai and DasGupta (2001): the Jeffreys interval ends at 0 when x = 0 and
        # at 1 when x = n (statsmodels keeps the beta quantiles there)
        want = [(0.0 if x == 0 else lo, 1.0 if x == len(groups[k]) else hi)
                for (lo, hi), x, k in zip(want, positives, keys)]
    np.testing.assert_allclose(bins.low, [w[0] for w in want], atol=1e-10)
    np.testing.assert_allclose(bins.high, [w[1] for w in want], atol=1e-10)
    assert bins.bin_low[-1] == bins.bin_high[-1] == 1.0
    assert bins.bin_low[0] == 0.0 and bins.bin_high[0] == 0.1


# ---------------------------------------------------------------------- comparisons

def test_compare_models_of_two_calibrations():
    y, p = miscalibrated(12, 600)
    calibrated = np.clip(p**1.3, 0, 1)  # the true event probability
    overconfident = np.clip(1.6 * (p - 0.5) + 0.5, 0, 1)
    result = dartboard.compare_models(calibration_error, y, calibrated, overconfident,
                                      n_resamples=300, random_state=0)
    assert result.estimate_a == calibration_error(y, calibrated)
    assert result.estimate_b == calibration_error(y, overconfident)
    assert result.difference < 0 and result.pvalue < 0.05
    assert result.interval.high < 0


def test_basic_interval_of_ece_stays_in_its_range():
    # the basic interval reflects the replicates around the estimate; for an ECE near 0
    # its low end went below 0 (-0.0025 in the demo's 'large' group) before the
    # registry gave the calibration error its range
    # (rare events, 60 rows: unclipped, the low ends were -0.026, -0.023, -0.016, -0.029)
    for seed in range(5):
        rng = np.random.default_rng(seed)
        p = np.clip(rng.normal(0.05, 0.03, 60), 0.001, 0.999)
        y = (rng.random(60) < p).astype(int)
        iv = dartboard.interval(calibration_error, y, p, method="basic", n_resamples=400,
                                random_state=0)
        assert 0.0 <= iv.low <= iv.high <= 1.0
