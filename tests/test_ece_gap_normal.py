"""The ECE's gap replicates from the groups' bins' normal limit
(``_kernels._calibration.grouped_bins_normal``): its first two moments against the
multinomial bootstrap's by hand, its distribution against a brute-force bootstrap of the
rows (each group drawn on its own, all rows their draws together), the states it
serves and refuses, and ``difference()`` through it against the drawn cells."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dartboard
from dartboard._kernels import _calibration as kernel
from dartboard.evaluation import _gaps
from dartboard.families import _calibration as family_module
from dartboard.families._base import Metric
from dartboard.metrics import CalibrationState
from dartboard.metrics._calibration import binned_state
from dartboard.metrics._registry import get_spec

N_BINS = 15


def _rows(seed, n, power=1.25, centre=-0.5):
    rng = np.random.default_rng(seed)
    p = 1 / (1 + np.exp(-rng.normal(centre, 1.2, n)))
    return (rng.random(n) < p**power).astype(int), p


def _ece(y, p):
    """The l1 error of 15 equal-width bins by its formula: sum_b |sum (y - p)| / n
    (the last bin closed at 1)."""
    b = np.minimum((p * N_BINS).astype(int), N_BINS - 1)
    return np.abs(np.bincount(b, weights=y - p, minlength=N_BINS)).sum() / y.shape[0]


def _state(y, p):
    return CalibrationState(N_BINS).update(y, p, pos_label=1)


def test_bin_residuals_are_the_rows_sums():
    y, p = _rows(0, 500)
    count, residual, square = kernel.bin_residuals(_state(y, p))
    b = np.minimum((p * N_BINS).astype(int), N_BINS)
    # the state keeps n_bins + 1 slots (the last holds confidences of exactly 1)
    np.testing.assert_allclose(count, np.bincount(b, minlength=N_BINS + 1))
    np.testing.assert_allclose(residual, np.bincount(b, weights=y - p, minlength=N_BINS + 1),
                               atol=1e-12)
    np.testing.assert_allclose(square, np.bincount(b, weights=(y - p) ** 2,
                                                   minlength=N_BINS + 1), atol=1e-12)
    assert np.abs(residual).sum() / 500 == pytest.approx(_ece(y, p), abs=1e-12)


def test_the_bins_sums_have_the_multinomial_draws_mean_and_covariance():
    """Without the absolute values, S*_b over many replicates has mean S_b, variance
    Q_b - S_b^2 / n and covariance -S_b S_c / n: the moments of sum_i c_i x_i under
    c ~ Multinomial(n, 1/n), by hand."""
    y, p = _rows(1, 400)
    count, residual, square = kernel.bin_residuals(_state(y, p))
    n = count.sum()
    rng = np.random.default_rng(2)
    r = 200_000
    e = rng.standard_normal((2, r, count.shape[0]))
    slope = np.where(count > 0, residual / np.maximum(count, 1), 0.0)
    moved = e[0] * np.sqrt(count)
    drawn = residual + slope * moved + np.sqrt(np.maximum(square - residual * slope, 0)) \
        * e[1] - residual / n * moved.sum(-1)[:, None]
    want = np.diag(square) - np.outer(residual, residual) / n
    np.testing.assert_allclose(drawn.mean(0), residual, atol=4 * np.sqrt(square.max() / r))
    np.testing.assert_allclose(np.cov(drawn.T), want, atol=0.02 * want.max())


@pytest.mark.parametrize("sizes,power", [((1000,), 1.25), ((300, 600, 1200), 1.0),
                                         ((250, 250), 2.0)])
def test_replicates_match_a_brute_force_bootstrap_of_the_rows(sizes, power):
    """Each group's rows drawn with replacement on their own, all rows their draws
    together (as the grouped bootstrap draws them): the mean, sd and 5% and 95%
    quantiles of every column agree with the normal-limit replicates within Monte
    Carlo error and the normal limit's own error at these sizes."""
    groups = [_rows(10 + j, n, power) for j, n in enumerate(sizes)]
    found = [kernel.bin_residuals(_state(y, p)) for y, p in groups]
    normal = kernel.grouped_bins_normal(np.array([f[1] for f in found]),
                                        np.array([f[2] for f in found]),
                                        np.array([f[0] for f in found]), 4000,
                                        np.random.default_rng(3))
    rng = np.random.default_rng(4)
    brute = np.empty((4000, len(sizes) + 1))
    for r in range(4000):
        picked = [(y[i], p[i]) for y, p in groups
                  for i in [rng.integers(0, y.shape[0], y.shape[0])]]
        brute[r, :-1] = [_ece(a, b) for a, b in picked]
        brute[r, -1] = _ece(np.concatenate([a for a, _ in picked]),
                            np.concatenate([b for _, b in picked]))
    sd = brute.std(0)
    np.testing.assert_allclose(normal.mean(0), brute.mean(0), atol=0.15 * sd.max())
    np.testing.assert_allclose(normal.std(0), sd, rtol=0.12)
    for q in (0.05, 0.95):
        np.testing.assert_allclose(np.quantile(normal, q, axis=0),
                                   np.quantile(brute, q, axis=0), atol=0.25 * sd.max())


def test_empty_bins_and_one_bin_groups_move_only_where_rows_are():
    """A group whose rows all sit in one bin: its error is |S*| / n of that bin, and
    bins without rows add nothing (no nan from 0 / 0)."""
    p = np.full(300, 0.55)
    y = (np.arange(300) % 3 == 0).astype(int)  # 100 events: S = 100 - 165 = -65
    count, residual, square = kernel.bin_residuals(_state(y, p))
    out = kernel.grouped_bins_normal(residual[None], square[None], count[None], 2000,
                                     np.random.default_rng(0))
    assert np.isfinite(out).all()
    # one bin: S* = S + Z - S D / n with D the bin's own count move: variance Q - S^2/n
    assert out[:, 0].mean() == pytest.approx(65 / 300, abs=0.01)
    assert out[:, 0].std() == pytest.approx(np.sqrt(square.sum() - 65**2 / 300) / 300,
                                            rel=0.1)
    np.testing.assert_allclose(out[:, 0], out[:, 1])  # one group: all rows are its rows


def test_the_family_serves_plain_ece_of_large_unweighted_groups_only():
    """Groups of 400 rows: normal; a group of 50: drawn; weighted rows, the l2 and max
    norms, the debiased error and equal-mass bins: refused (None), drawn or rows."""
    rows = [_rows(20 + j, 400) for j in range(3)]
    y = np.concatenate([a for a, _ in rows])
    s = np.concatenate([b for _, b in rows])
    g = np.repeat(np.arange(3), 400)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = dartboard.evaluate(y, y_score=s, groups=g, metrics=["ece"], n_resamples=200,
                                random_state=0, progress=False)
        assert "normal" in str(ev.difference().loc["ece", "method"])
        small = dartboard.evaluate(y[:450], y_score=s[:450], groups=g[:450],
                                   metrics=["ece"], n_resamples=200, random_state=0,
                                   progress=False)  # the second group has 50 rows
        assert "normal" not in str(small.difference().loc["ece", "method"])
    family = family_module.FAMILY
    states = [family_module.CalibrationCells(_state(a, b), False) for a, b in rows]
    rng = np.random.default_rng(0)
    ece = Metric(get_spec("calibration_error"))
    assert family.group_normal(states, ece, 10, rng).shape == (10, 4)
    weighted = [family_module.CalibrationCells(c.state, True) for c in states]
    assert family.group_normal(weighted, ece, 10, rng) is None
    for kwargs in ({"norm": "l2"}, {"norm": "max"}, {"norm": "l2", "debiased": True}):
        assert family.group_normal(states, Metric(get_spec("calibration_error"), kwargs),
                                   10, rng) is None
    quantile = [family_module.CalibrationCells(binned_state(
        a, b, N_BINS, "quantile", "top_label", None, 1, second_moment=True), False)
        for a, b in rows]
    assert family.group_normal(quantile, ece, 10, rng) is None


@pytest.mark.parametrize("groups", [3, 30])
def test_difference_agrees_with_the_drawn_cells(monkeypatch, groups):
    """The same data through the normal limit and through the drawn cells (the rows'
    count per group forced past the limit): the largest gap's ends agree within the
    bootstrap's own noise (2000 resamples)."""
    rng = np.random.default_rng(groups)
    n = 600 * groups
    y, s = _rows(groups, n)
    g = rng.integers(0, groups, n)

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = dartboard.evaluate(y, y_score=s, groups=g, metrics=["ece"],
                                    n_resamples=2000, random_state=0, progress=False)
            return ev.difference().loc["ece"], _gaps._metric(ev, "ece").replicates

    normal, normal_reps = run()
    monkeypatch.setattr(family_module, "NORMAL_BINS_MIN_ROWS", float("inf"))
    drawn, drawn_reps = run()
    assert "normal" in str(normal["method"]) and "normal" not in str(drawn["method"])
    assert normal["estimate"] == drawn["estimate"]
    sd = drawn_reps.std(0).max()
    assert normal["high"] == pytest.approx(drawn["high"], abs=0.5 * sd)
    assert normal["low"] == pytest.approx(drawn["low"], abs=0.5 * sd)
    np.testing.assert_allclose(normal_reps.std(0), drawn_reps.std(0), rtol=0.1)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), groups=st.integers(1, 6), rows=st.integers(1, 60),
       kind=st.sampled_from(["spread", "certain", "one_bin", "no_events", "all_events"]))
def test_edges_give_finite_errors_and_certain_forecasts_none(seed, groups, rows, kind):
    """Forecasts of 0 and 1 that come true (no residual in any bin) give replicates of
    exactly 0; one bin, no events and all events give finite, non-negative replicates;
    every column is the error's own range [0, 1]."""
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(groups):
        if kind == "certain":
            p = rng.integers(0, 2, rows).astype(float)
            y = p.astype(int)
        else:
            p = np.full(rows, 0.41) if kind == "one_bin" else rng.random(rows)
            y = {"no_events": np.zeros(rows, int), "all_events": np.ones(rows, int)}.get(
                kind, (rng.random(rows) < p).astype(int))
        states.append(_state(y, p))
    found = [kernel.bin_residuals(s) for s in states]
    out = kernel.grouped_bins_normal(np.array([f[1] for f in found]),
                                     np.array([f[2] for f in found]),
                                     np.array([f[0] for f in found]), 50, rng)
    assert out.shape == (50, groups + 1) and np.isfinite(out).all()
    assert np.all(out >= 0) and np.all(out <= 1 + 1e-12)
    if kind == "certain":
        np.testing.assert_array_equal(out, 0.0)
