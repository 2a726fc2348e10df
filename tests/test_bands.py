"""ROC and PR confidence bands against plain-loop oracles and R's pROC.

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
from dartboard.metrics._ranking import binary_positive
from dartboard.uncertainty._bands import _band

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


@pytest.mark.parametrize("axis", list(GRIDS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_estimate_matches_proc_reading(axis, seed):
    y, s = _data(seed)
    band = _call(axis, y, s, GRIDS[axis], n_resamples=10, random_state=0)
    np.testing.assert_allclose(band.estimate, _oracle(axis, y, s, np.ones(len(y)),
                                                      GRIDS[axis]), atol=1e-12)


@pytest.mark.parametrize("axis", list(GRIDS))
def test_integer_weights_equal_repeated_rows(axis):
    y, s = _data(3)
    w = np.random.default_rng(0).integers(1, 4, size=len(y))
    band = _call(axis, y, s, GRIDS[axis], n_resamples=10, random_state=0, sample_weight=w)
    rep = _call(axis, np.repeat(y, w), np.repeat(s, w), GRIDS[axis], n_resamples=10,
                random_state=0)
    np.testing.assert_allclose(band.estimate, rep.estimate, atol=1e-12)
    np.testing.assert_allclose(band.estimate, _oracle(axis, y, s, w.astype(float),
                                                      GRIDS[axis]), atol=1e-12)


def _index_bootstrap(axis, y, s, w, grid, reps, seed):
    """Stratified index resampling, each replicate re-sorted and read by the oracle."""
    rng = np.random.default_rng(seed)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    out = np.empty((reps, len(grid)))
    for r in range(reps):
        idx = np.concatenate([rng.choice(pos, pos.shape[0]), rng.choice(neg, neg.shape[0])])
        out[r] = _oracle(axis, y[idx], s[idx], w[idx], grid)
    return out


@pytest.mark.parametrize("axis", list(GRIDS))
@pytest.mark.parametrize("weighted", [False, True])
def test_bootstrap_matches_index_resampling(axis, weighted):
    y, s = _data(4, n=60)
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y)) if weighted else np.ones(len(y))
    grid = GRIDS[axis]
    ours = _call(axis, y, s, grid, n_resamples=4000, random_state=5,
                 sample_weight=w if weighted else None).bootstrap_distribution
    naive = _index_bootstrap(axis, y, s, w, grid, 1500, 6)
    for j in range(len(grid)):
        # rounded: an atom computed two ways must not split in two
        a, b = np.round(ours[:, j], 10), np.round(naive[:, j], 10)
        if np.ptp(a) == 0 and np.ptp(b) == 0:
            assert a[0] == pytest.approx(b[0])
            continue
        # the asymptotic p-value: the exact one fails on these ties (SciPy warns and
        # falls back to it)
        assert stats.ks_2samp(a, b, method="asymp").pvalue > 1e-3, (axis, grid[j])
        assert abs(a.mean() - b.mean()) < 4 * np.hypot(a.std() / 63, b.std() / 38.7)


@pytest.mark.parametrize("axis", list(GRIDS))
def test_order_statistic_sampler_equals_full_multinomial(axis):
    y, s = _data(5, n=200, ties=True)
    positive, sc, _, _ = binary_positive(y, s, None, None, multiclass_ok=True)
    grid = np.array(GRIDS[axis])
    curve = "pr" if axis == "recall" else "roc"
    lazy = _band(curve, axis, positive, sc, None, grid, "pointwise", 0.95, 4000, 1)
    # unit weights take the sampler that draws every cell's count
    full = _band(curve, axis, positive, sc, np.ones(len(y)), grid, "pointwise", 0.95, 4000, 2)
    np.testing.assert_array_equal(lazy.estimate, full.estimate)
    for j in range(len(grid)):
        a = np.round(lazy.bootstrap_distribution[:, j], 10)
        b = np.round(full.bootstrap_distribution[:, j], 10)
        if np.ptp(a) == 0:
            assert np.ptp(b) == 0 and a[0] == b[0]
        else:
            assert stats.ks_2samp(a, b, method="asymp").pvalue > 1e-3, grid[j]


def test_simultaneous_band_covers_replicate_curves_at_its_level():
    y, s = _data(6, n=300, ties=False)
    band = dartboard.roc_band(y, s, kind="simultaneous", n_resamples=2000, random_state=0)
    pointwise = dartboard.roc_band(y, s, n_resamples=2000, random_state=0)
    assert band.method == "sup-t" and band.critical_value > 1.96
    reps = band.bootstrap_distribution
    inside = np.all((reps >= band.low - 1e-12) & (reps <= band.high + 1e-12), axis=1)
    assert inside.mean() >= 0.95 - 1e-9
    inside_pointwise = np.all((reps >= pointwise.low) & (reps <= pointwise.high), axis=1)
    assert inside_pointwise.mean() < inside.mean()
    assert np.all(band.low <= band.estimate) and np.all(band.estimate <= band.high)


def test_seed_string_labels_and_pos_label():
    y, s = _data(7)
    a = dartboard.roc_band(y, s, specificities=[0.5, 0.9], random_state=3)
    b = dartboard.roc_band(y, s, specificities=[0.5, 0.9], random_state=3)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    labels = np.where(y == 1, "sick", "well")
    c = dartboard.roc_band(labels, s, specificities=[0.5, 0.9], random_state=3,
                           pos_label="sick")
    np.testing.assert_array_equal(a.low, c.low)
    with pytest.raises(ValueError, match="pos_label"):
        dartboard.roc_band(labels, s)


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


# ------------------------------------------------------------------ R's pROC on aSAH

# R 4.x, pROC 1.18.0 (tests/data/aSAH.csv is pROC's data set):
#   d <- read.csv("tests/data/aSAH.csv")
#   r <- roc(d$outcome, d$s100b, levels = c("Good", "Poor"), direction = "<")
#   set.seed(1); ci.se(r, specificities = c(0.5, 0.75, 0.9, 0.95), boot.n = 20000)
#   set.seed(2); ci.sp(r, sensitivities = c(0.3, 0.5, 0.75, 0.9), boot.n = 20000)
#   r2 <- roc(d$outcome, d$ndka, levels = c("Good", "Poor"), direction = "<")
#   set.seed(3); ci.se(r2, specificities = c(0.5, 0.75, 0.9), boot.n = 20000)
PROC_CI = [
    ("s100b", "specificities", [0.5, 0.75, 0.9, 0.95],
     [0.5951220, 0.4634146, 0.2195122, 0.1951220],
     [0.7713415, 0.6341463, 0.3902439, 0.3414634],
     [0.9024390, 0.7804878, 0.6146341, 0.4878049]),
    ("s100b", "sensitivities", [0.3, 0.5, 0.75, 0.9],
     [0.8312326, 0.6909722, 0.3090278, 0.1183333],
     [0.9861111, 0.8402778, 0.5277778, 0.2583333],
     [1.0000000, 0.9444444, 0.8333333, 0.5138889]),
    ("ndka", "specificities", [0.5, 0.75, 0.9],
     [0.48780488, 0.21951220, 0.04878049],
     [0.6829268, 0.4146341, 0.2195122],
     [0.82926829, 0.63414634, 0.41463415]),
]


@pytest.mark.parametrize("column, grid_name, grid, low, median, high", PROC_CI)
def test_ci_se_and_ci_sp_match_proc(column, grid_name, grid, low, median, high):
    d = pd.read_csv(ASAH)
    band = dartboard.roc_band(d.outcome, d[column], **{grid_name: grid}, pos_label="Poor",
                              n_resamples=20000, random_state=0)
    # the replicate values are multiples of 1/41 (cases) or 1/72 (controls) apart from
    # interpolation, so a quantile moves by about one step between seeds
    tol = 1.5 / 41 if grid_name == "specificities" else 1.5 / 72
    np.testing.assert_allclose(band.low, low, atol=tol)
    np.testing.assert_allclose(np.median(band.bootstrap_distribution, axis=0), median,
                               atol=tol)
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


def test_sup_t_band_stays_open_where_every_replicate_is_one():
    # at specificity 0.05 every positive outscores the lowest 5% of negatives: all
    # replicates read sensitivity 1, yet the true curve may lie just below 1
    y = np.r_[np.zeros(100, int), np.ones(100, int)]
    s = np.r_[np.linspace(0, 1, 100), np.linspace(0.2, 1.2, 100)]
    sim = dartboard.roc_band(y, s, specificities=[0.05, 0.5], kind="simultaneous",
                             n_resamples=500, random_state=0)
    pw = dartboard.roc_band(y, s, specificities=[0.05, 0.5], n_resamples=500, random_state=0)
    assert np.ptp(pw.bootstrap_distribution[:, 0]) == 0 and pw.low[0] == 1.0
    p = 100.5 / 101  # the Jeffreys floor: sqrt(p (1 - p) / 100)
    assert sim.high[0] == 1.0
    assert sim.low[0] == pytest.approx(1.0 - sim.critical_value * np.sqrt(p * (1 - p) / 100))
