"""ROC and PR confidence bands against plain-loop oracles, closed forms and R's pROC.

tests/data/aSAH.csv is pROC's aSAH data set (Turck et al. 2010, shipped with R's
pROC), written by ``write.csv(aSAH, row.names = FALSE)`` from pROC 1.18.0.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import dartboard
import dartboard._validation
from dartboard.uncertainty._bands import _simultaneous_limits

ASAH = Path(__file__).parent / "data" / "aSAH.csv"


# ------------------------------------------------------------------ oracles

def _proc_points(y: np.ndarray, s: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sensitivity and specificity at every threshold, ascending threshold (pROC's order)."""
    thresholds = np.concatenate([[-np.inf], np.unique(s), [np.inf]])
    se, sp = [], []
    for t in thresholds:
        pred = s >= t
        se.append(w[(y == 1) & pred].sum() / w[y == 1].sum())
        sp.append(w[(y == 0) & ~pred].sum() / w[y == 0].sum())
    return np.array(se), np.array(sp)


def _proc_coords(value: float, inputs: np.ndarray, other: np.ndarray, decreasing: bool) -> float:
    """pROC 1.18 ``coords.roc(input=...)`` on the points, as its R code reads them."""
    idx = np.flatnonzero(np.isclose(inputs, value, rtol=0, atol=1e-12))
    if idx.shape[0]:
        return other[idx[-1] if decreasing else idx[0]]
    nxt = np.flatnonzero(inputs < value if decreasing else inputs > value)[0]
    prop = (value - inputs[nxt]) / (inputs[nxt - 1] - inputs[nxt])
    return other[nxt] + prop * (other[nxt - 1] - other[nxt])


def _oracle(axis: str, y: np.ndarray, s: np.ndarray, w: np.ndarray, grid) -> np.ndarray:
    se, sp = _proc_points(y, s, w)
    if axis == "specificity":
        return np.array([_proc_coords(g, sp, se, False) for g in grid])
    spec = np.array([_proc_coords(g, se, sp, True) for g in grid])
    if axis == "sensitivity":
        return spec
    p, n = w[y == 1].sum(), w[y == 0].sum()
    tp = np.asarray(grid) * p
    return tp / (tp + (1 - spec) * n)


def _path_reader(crossing: np.ndarray, s: np.ndarray):
    """The other class's count above the point where the crossing class reaches ``t``
    rows, walking the tie groups from the top score: linear within a group, the
    lowest point of a vertical step."""
    points = [(0.0, 0.0)]
    for v in np.unique(s)[::-1]:
        at = s == v
        points.append((points[-1][0] + np.sum(at & crossing),
                       points[-1][1] + np.sum(at & ~crossing)))

    def other(t: float) -> float:
        if t <= 0:
            return 0.0
        for (x0, y0), (x1, y1) in zip(points[:-1], points[1:]):
            if x0 < t <= x1:
                return y0 + (t - x0) / (x1 - x0) * (y1 - y0)
        return points[-1][1]

    return other


def _definition_draws(axis: str, y: np.ndarray, s: np.ndarray, grid, reps: int, seed: int
                      ) -> np.ndarray:
    """(2, reps, k) draws from the construction as the module notes state it, by plain
    loops: sorted uniforms for the crossing class, the path walked group by group,
    one Beta draw per point (the marginal law only: the points are not coupled)."""
    rng = np.random.default_rng(seed)
    crossing = y == (0 if axis == "specificity" else 1)
    n_x, n_y = int(crossing.sum()), int((~crossing).sum())
    other = _path_reader(crossing, s)
    out = np.empty((2, reps, len(grid)))
    for r in range(reps):
        v = np.concatenate([[0.0], np.sort(rng.random(n_x)), [1.0]])
        for j, g in enumerate(grid):
            u = 1 - g if axis == "specificity" else g
            k = int(np.sum(v[1:-1] < u))
            f = (u - v[k]) / (v[k + 1] - v[k])
            at, after = other(k), other(k + 1) if k < n_x else float(n_y)
            chord = at + f * (after - at)
            end, concave = k in (0, n_x), axis == "specificity"
            low_read = at if end and not concave else chord
            high_read = after if end and concave else chord
            r_lo = 0.0 if low_read == 0 else rng.beta(low_read + .5, n_y - low_read + .5)
            r_hi = 1.0 if high_read == n_y else rng.beta(high_read + .5, n_y - high_read + .5)
            if axis == "specificity":
                value = (r_lo, r_hi)
            elif axis == "sensitivity":
                value = (1 - r_hi, 1 - r_lo)
            else:
                tp = g * n_x
                value = (tp / (tp + r_hi * n_y), tp / (tp + r_lo * n_y))
            out[:, r, j] = (1.0, 1.0) if axis != "recall" and g == 0 else value
    return out


def _data(seed: int, n: int = 80, ties: bool = True):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    y[:2] = [0, 1]
    s = y + rng.normal(size=n)
    return y, (np.round(s, 1) if ties else s)


GRIDS = {"specificity": [0.0, 0.1, 0.5, 0.75, 0.9, 1.0],
         "sensitivity": [0.0, 0.2, 0.5, 0.8, 1.0],
         "recall": [0.1, 0.5, 0.75, 1.0]}


def _call(axis, y, s, grid, **kw):
    if axis == "recall":
        return dartboard.pr_band(y, s, recalls=grid, **kw)
    key = "specificities" if axis == "specificity" else "sensitivities"
    return dartboard.roc_band(y, s, **{key: grid}, **kw)


# ------------------------------------------------------------------ the estimate

@pytest.mark.parametrize("axis", list(GRIDS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_estimate_matches_proc_reading(axis, seed):
    y, s = _data(seed)
    band = _call(axis, y, s, GRIDS[axis], n_resamples=10, random_state=0)
    np.testing.assert_allclose(band.estimate, _oracle(axis, y, s, np.ones(len(y)),
                                                      GRIDS[axis]), atol=1e-12)
    assert np.all(band.low <= band.estimate) and np.all(band.estimate <= band.high)


@pytest.mark.parametrize("axis", list(GRIDS))
def test_integer_weights_give_the_estimate_of_repeated_rows(axis):
    # the estimate only: the band treats weights as masses (Kish's effective counts),
    # so a row of weight 3 is not three independent rows there
    y, s = _data(3)
    w = np.random.default_rng(0).integers(1, 4, size=len(y))
    band = _call(axis, y, s, GRIDS[axis], n_resamples=10, random_state=0, sample_weight=w)
    rep = _call(axis, np.repeat(y, w), np.repeat(s, w), GRIDS[axis], n_resamples=10,
                random_state=0)
    np.testing.assert_allclose(band.estimate, rep.estimate, atol=1e-12)
    np.testing.assert_allclose(band.estimate, _oracle(axis, y, s, w.astype(float),
                                                      GRIDS[axis]), atol=1e-12)


# ------------------------------------------------------------------ the draws

@pytest.mark.parametrize("axis", list(GRIDS))
@pytest.mark.parametrize("ties", [True, False])
def test_draws_follow_the_definition(axis, ties):
    y, s = _data(4, n=60, ties=ties)
    grid = GRIDS[axis]
    ours = _call(axis, y, s, grid, n_resamples=4000, random_state=5).draws
    slow = _definition_draws(axis, y, s, grid, 1500, 6)
    for side in (0, 1):
        for j in range(len(grid)):
            a, b = np.round(ours[side, :, j], 10), np.round(slow[side, :, j], 10)
            if np.ptp(a) == 0 and np.ptp(b) == 0:
                assert a[0] == pytest.approx(b[0])
                continue
            assert stats.ks_2samp(a, b).pvalue > 1e-3, (axis, side, grid[j])


@pytest.mark.parametrize("axis", list(GRIDS))
def test_each_drawn_curve_is_monotone(axis):
    # one multinomial and one gamma process per draw: independent draws per point
    # would cross each other
    y, s = _data(5, n=200)
    grid = np.linspace(0.01, 1, 40)
    draws = _call(axis, y, s, grid, n_resamples=500, random_state=0).draws
    steps = np.diff(draws, axis=2)
    if axis == "specificity":   # sensitivity falls as the specificity rises
        assert np.all(steps <= 1e-12)
    elif axis == "sensitivity":
        assert np.all(steps <= 1e-12)
    else:  # precision is not monotone in recall, but the drawn FPR is
        fpr = grid * 1.0 / draws - grid  # proportional to FP / P at each recall
        assert np.all(np.diff(fpr, axis=2) >= -1e-9)


def test_unit_and_scaled_weights_give_the_unweighted_band():
    y, s = _data(6)
    plain = dartboard.roc_band(y, s, n_resamples=300, random_state=1)
    ones = dartboard.roc_band(y, s, n_resamples=300, random_state=1,
                              sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(ones.draws, plain.draws)
    scaled = dartboard.roc_band(y, s, n_resamples=300, random_state=1,
                                sample_weight=np.full(len(y), 2.5))
    np.testing.assert_allclose(scaled.draws, plain.draws, rtol=0, atol=1e-12)


def test_weights_enter_through_kish_effective_counts():
    # at specificity 1 the upper limit is the Jeffreys limit of the positives' weight
    # share above the first effective negative (the top W / floor(n_eff) of negative
    # weight), counted in the positives' effective size (sum w)^2 / sum w^2
    y = np.r_[np.zeros(60, int), np.ones(40, int)]
    s = np.r_[np.linspace(0, 1, 60), np.linspace(0.3, 1.3, 40)]
    w = np.where(np.arange(100) % 4 == 0, 7.0, 1.0)
    kish = {c: w[y == c].sum() ** 2 / np.sum(w[y == c] ** 2) for c in (0, 1)}
    order = np.argsort(-s[y == 0])
    cum = np.cumsum(w[y == 0][order])
    first = s[y == 0][order][np.argmax(cum >= cum[-1] / np.floor(kish[0]))]
    x = w[(y == 1) & (s > first)].sum() / w[y == 1].sum() * kish[1]
    band = dartboard.roc_band(y, s, specificities=[1.0], n_resamples=20000, random_state=0,
                              sample_weight=w)
    assert band.high[0] == pytest.approx(stats.beta.ppf(0.975, x + .5, kish[1] - x + .5),
                                         abs=3e-3)


# ------------------------------------------------------------------ the ends

def test_sensitivity_read_as_one_keeps_an_interval_below_it():
    # every positive outscores the lowest 20% of negatives: the bootstrap's band was
    # [1, 1] there; the true sensitivity lies below 1
    y = np.r_[np.zeros(50, int), np.ones(50, int)]
    s = np.r_[np.linspace(0, 1, 50), np.linspace(0.2, 1.2, 50)]
    band = dartboard.roc_band(y, s, specificities=[0.05], n_resamples=20000, random_state=0)
    assert band.estimate[0] == 1.0 and band.high[0] == 1.0
    # all draws read x = 50 of 50: the Jeffreys limit Beta(50.5, 0.5)
    assert band.low[0] == pytest.approx(stats.beta.ppf(0.025, 50.5, 0.5), abs=2e-3)
    sim = dartboard.roc_band(y, s, specificities=[0.05, 0.5], kind="simultaneous",
                             n_resamples=2000, random_state=0)
    assert sim.low[0] < band.low[0]


def test_specificity_one_spans_zero_to_the_limit_above_the_top_negative():
    # no negative above the true threshold: the sensitivity there lies between 0 and
    # that of the highest negative, c = 12 of the 40 positives above it
    y = np.r_[np.zeros(60, int), np.ones(40, int)]
    s = np.r_[np.linspace(0, 1, 60), np.linspace(0.3, 1.3, 40)]
    c = int(np.sum(s[y == 1] > s[y == 0].max()))
    band = dartboard.roc_band(y, s, specificities=[1.0], n_resamples=20000, random_state=0)
    assert band.estimate[0] == c / 40 and band.low[0] == 0.0
    assert band.high[0] == pytest.approx(stats.beta.ppf(0.975, c + .5, 40 - c + .5), abs=3e-3)
    # specificity 0 is sensitivity 1 by the reading rule: nothing to estimate
    zero = dartboard.roc_band(y, s, specificities=[0.0], n_resamples=100, random_state=0)
    assert (zero.low[0], zero.estimate[0], zero.high[0]) == (1.0, 1.0, 1.0)


def test_recall_one_spans_the_prevalence_to_the_limit_of_the_lowest_positive():
    y = np.r_[np.zeros(60, int), np.ones(40, int)]
    s = np.r_[np.linspace(0, 1, 60), np.linspace(0.3, 1.3, 40)]
    d = int(np.sum(s[y == 0] > s[y == 1].min()))  # negatives above the lowest positive
    band = dartboard.pr_band(y, s, recalls=[1.0], n_resamples=20000, random_state=0)
    assert band.low[0] == pytest.approx(40 / 100)
    fpr = stats.beta.ppf(0.025, d + .5, 60 - d + .5)
    assert band.high[0] == pytest.approx(40 / (40 + 60 * fpr), abs=3e-3)
    spec = dartboard.roc_band(y, s, sensitivities=[0.0, 1.0], n_resamples=20000,
                              random_state=0)
    assert (spec.low[0], spec.high[0], spec.low[1]) == (1.0, 1.0, 0.0)
    assert spec.high[1] == pytest.approx(1 - fpr, abs=3e-3)


@pytest.mark.slow
def test_bands_cover_the_ends_of_the_default_grid():
    # 300 binormal data sets, 50 positives and 50 negatives (the full table is
    # benchmarks/band_simulation.py): the bootstrap bands covered 0-60% at these ends
    rng = np.random.default_rng(0)
    y = np.r_[np.zeros(50, int), np.ones(50, int)]
    sp = np.array([0.05, 0.5, 0.99, 1.0])
    recalls = np.array([0.05, 0.5, 1.0])
    roc_truth = stats.norm.cdf(1.5 - stats.norm.ppf(sp))
    pr_truth = recalls / (recalls + stats.norm.cdf(stats.norm.ppf(recalls) - 1.5))
    hits, whole = np.zeros(sp.shape[0] + recalls.shape[0]), 0
    for r in range(300):
        s = rng.normal(size=100) + 1.5 * y
        roc = dartboard.roc_band(y, s, specificities=sp, n_resamples=1000, random_state=r)
        pr = dartboard.pr_band(y, s, recalls=recalls, n_resamples=1000, random_state=r)
        hits += np.r_[(roc.low <= roc_truth) & (roc_truth <= roc.high),
                      (pr.low <= pr_truth + 1e-12) & (pr_truth <= pr.high + 1e-12)]
        sim = dartboard.roc_band(y, s, kind="simultaneous", n_resamples=1000, random_state=r)
        truth = stats.norm.cdf(1.5 - stats.norm.ppf(sim.grid))
        whole += np.all((sim.low <= truth + 1e-12) & (truth <= sim.high + 1e-12))
    assert np.all(hits / 300 >= 0.91), hits / 300
    assert whole / 300 >= 0.92


# ------------------------------------------------------------------ the bands

def _simultaneous_by_ranks(draws: np.ndarray, level: float) -> int:
    """The largest m whose band holds the level share of draws whole, by counting."""
    r = draws.shape[1]
    best = 0
    for m in range(r):
        low = np.sort(draws[0], axis=0)[m]
        high = np.sort(draws[1], axis=0)[r - 1 - m]
        inside = np.all((draws[0] >= low) & (draws[1] <= high), axis=1).mean()
        if inside < level:
            break
        best = m
    return best


@pytest.mark.parametrize("axis", list(GRIDS))
def test_simultaneous_band_is_the_calibrated_envelope(axis):
    y, s = _data(8, n=150, ties=False)
    band = _call(axis, y, s, GRIDS[axis], kind="simultaneous", n_resamples=600,
                 random_state=0)
    m = _simultaneous_by_ranks(band.draws, 0.95)
    assert band.pointwise_level == pytest.approx(1 - 2 * m / 600)
    low, high, m_fast = _simultaneous_limits(band.draws, 0.95)
    assert m_fast == m
    np.testing.assert_array_equal(band.low, np.minimum(low, band.estimate))
    pointwise = _call(axis, y, s, GRIDS[axis], n_resamples=600, random_state=0)
    assert np.all(band.low <= pointwise.low + 1e-12)
    assert np.all(band.high >= pointwise.high - 1e-12)
    inside = np.all((band.draws[0] >= band.low) & (band.draws[1] <= band.high), axis=1)
    assert inside.mean() >= 0.95


def test_pointwise_band_is_the_quantiles_of_the_draws():
    y, s = _data(9)
    band = dartboard.roc_band(y, s, n_resamples=500, random_state=3)
    np.testing.assert_allclose(band.low, np.minimum(np.quantile(band.draws[0], 0.025, axis=0),
                                                    band.estimate))
    np.testing.assert_allclose(band.high, np.maximum(np.quantile(band.draws[1], 0.975, axis=0),
                                                     band.estimate))
    assert band.method == "fiducial" and band.pointwise_level == 0.95


def test_seed_string_labels_and_pos_label():
    y, s = _data(7)
    a = dartboard.roc_band(y, s, specificities=[0.5, 0.9], random_state=3)
    b = dartboard.roc_band(y, s, specificities=[0.5, 0.9], random_state=3)
    np.testing.assert_array_equal(a.draws, b.draws)
    labels = np.where(y == 1, "sick", "well")
    c = dartboard.roc_band(labels, s, specificities=[0.5, 0.9], random_state=3,
                           pos_label="sick")
    np.testing.assert_array_equal(a.low, c.low)
    with pytest.raises(ValueError, match="pos_label"):
        dartboard.roc_band(labels, s)


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("kwargs, match", [
    ({"specificities": [0.5], "sensitivities": [0.5]}, "not both"),
    ({"specificities": [1.5]}, r"specificities must lie in \[0, 1\]"),
    ({"specificities": []}, "specificities is empty"),
    ({"kind": "bonferroni"}, "kind must be one of"),
    ({"confidence_level": 1.0}, "confidence_level"),
    ({"n_resamples": 0}, "n_resamples"),
])
def test_bad_arguments(kwargs, match):
    y, s = _data(8)
    with pytest.raises(ValueError, match=match):
        dartboard.roc_band(y, s, **kwargs)


def test_bad_data():
    with pytest.raises(ValueError, match="both classes"):
        dartboard.roc_band([1, 1, 1], [0.1, 0.2, 0.3], pos_label=1)
    with pytest.raises(ValueError, match=r"recalls must lie in \(0, 1\]"):
        dartboard.pr_band([0, 1, 1], [0.1, 0.2, 0.3], recalls=[0.0])


@pytest.mark.parametrize("band", [dartboard.roc_band, dartboard.pr_band])
def test_negative_weights_are_refused(band):
    y, s = _data(10)
    w = np.ones(len(y))
    w[3] = -0.5
    with pytest.raises(ValueError, match="sample_weight must be non-negative; got a "
                                         "minimum of -0.5"):
        band(y, s, sample_weight=w)


def test_grid_times_resamples_is_held_to_the_resample_budget(monkeypatch):
    y, s = _data(11)
    monkeypatch.setattr(dartboard._validation, "MAX_RESAMPLES", 1000)
    with pytest.raises(ValueError, match=r"n_resamples x 3 x len\(specificities\) must be "
                                         r"at most 1_000 .*got 4 x 303 = 1_212"):
        dartboard.roc_band(y, s, n_resamples=4)
    with pytest.raises(ValueError, match=r"n_resamples x 3 x len\(recalls\)"):
        dartboard.pr_band(y, s, recalls=np.linspace(0.1, 1, 200), n_resamples=2)
    dartboard.roc_band(y, s, specificities=[0.5], n_resamples=333)  # 999: within it
    monkeypatch.undo()
    with pytest.raises(ValueError, match=r"got 200 x 600_003 = 120_000_600"):
        dartboard.roc_band(y, s, specificities=np.linspace(0, 1, 200_001), n_resamples=200)


# ------------------------------------------------------------------ R's pROC on aSAH

# R 4.x, pROC 1.18.0 (tests/data/aSAH.csv is pROC's data set):
#   d <- read.csv("tests/data/aSAH.csv")
#   r <- roc(d$outcome, d$s100b, levels = c("Good", "Poor"), direction = "<")
#   set.seed(1); ci.se(r, specificities = c(0.5, 0.75, 0.9, 0.95), boot.n = 20000)
#   set.seed(2); ci.sp(r, sensitivities = c(0.3, 0.5), boot.n = 20000)
#   r2 <- roc(d$outcome, d$ndka, levels = c("Good", "Poor"), direction = "<")
#   set.seed(3); ci.se(r2, specificities = c(0.5, 0.75, 0.9), boot.n = 20000)
# pROC's percentile bootstrap and the drawn band estimate the same interval where the
# bootstrap is sound, away from the ends of the curve: they agree to about one step
# of the value (1/41 cases, 1/72 controls) there.
PROC_CI = [
    ("s100b", "specificities", [0.5, 0.75, 0.9, 0.95],
     [0.5951220, 0.4634146, 0.2195122, 0.1951220],
     [0.9024390, 0.7804878, 0.6146341, 0.4878049]),
    ("s100b", "sensitivities", [0.3, 0.5], [0.8312326, 0.6909722], [1.0000000, 0.9444444]),
    ("ndka", "specificities", [0.5, 0.75, 0.9],
     [0.48780488, 0.21951220, 0.04878049],
     [0.82926829, 0.63414634, 0.41463415]),
]


@pytest.mark.parametrize("column, grid_name, grid, low, high", PROC_CI)
def test_agrees_with_proc_ci_se_away_from_the_ends(column, grid_name, grid, low, high):
    d = pd.read_csv(ASAH)
    band = dartboard.roc_band(d.outcome, d[column], **{grid_name: grid}, pos_label="Poor",
                              n_resamples=20000, random_state=0)
    tol = 1.25 / 41 if grid_name == "specificities" else 2.5 / 72
    np.testing.assert_allclose(band.low, low, atol=tol)
    np.testing.assert_allclose(band.high, high, atol=tol)


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs Rscript with pROC")
def test_ci_se_live_against_proc():
    script = (f'suppressMessages(library(pROC)); d <- read.csv("{ASAH}"); '
              'r <- roc(d$outcome, d$s100b, levels = c("Good", "Poor"), direction = "<", '
              'quiet = TRUE); set.seed(11); '
              'x <- ci.se(r, specificities = c(0.6, 0.8), boot.n = 5000, progress = "none"); '
              'cat(x[, 1], x[, 3])')
    run = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True,
                         timeout=600)
    if run.returncode != 0:
        pytest.skip("pROC is not available: " + run.stderr[-200:])
    low0, low1, high0, high1 = map(float, run.stdout.split())
    d = pd.read_csv(ASAH)
    band = dartboard.roc_band(d.outcome, d.s100b, specificities=[0.6, 0.8], pos_label="Poor",
                              n_resamples=5000, random_state=0)
    np.testing.assert_allclose(band.low, [low0, low1], atol=2 / 41)
    np.testing.assert_allclose(band.high, [high0, high1], atol=2 / 41)
