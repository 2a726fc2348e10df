"""compare_models on score metrics: invariance to a monotone transform of one model's
scores, pROC's aSAH data, and the multiclass (one-vs-rest, one-vs-one) AUC path."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score as sk_auc

import dartboard as db
from dartboard.metrics import average_precision_score, pr_auc_score, roc_auc_score

KS_LEVEL = 0.001
DATA = Path(__file__).parent / "data"


def asah():
    """pROC's aSAH data (Robin et al. 2011, pROC 1.18.0), written by
    ``library(pROC); data(aSAH); write.csv(aSAH, "aSAH.csv", row.names = FALSE)``:
    113 patients after aneurysmal subarachnoid haemorrhage, outcome Good/Poor, the
    WFNS grade (1-5) and the S100B and NDKA concentrations."""
    frame = pd.read_csv(DATA / "aSAH.csv")
    return ((frame["outcome"] == "Poor").to_numpy().astype(int),
            frame["wfns"].to_numpy(float), frame["s100b"].to_numpy(float),
            frame["ndka"].to_numpy(float))


def test_asah_wfns_vs_s100b_as_delong():
    # Raw scores swapped between a 1-5 grade and a 0-2 concentration gave p = 0.36;
    # pROC 1.18.0's roc.test(roc(outcome, wfns), roc(outcome, s100b)) (DeLong) gives
    # Z = 2.209, p = 0.02718, and the paired bootstrap interval excludes 0.
    y, wfns, s100b, _ = asah()
    res = db.compare_models(roc_auc_score, y, wfns, s100b, n_resamples=5000,
                            random_state=0)
    assert res.estimate_a == pytest.approx(0.823678861788618, abs=1e-12)
    assert res.estimate_b == pytest.approx(0.731368563685637, abs=1e-12)
    assert res.interval.low > 0
    # about 0.032 (+- 0.0025 Monte-Carlo standard error at 5000 resamples)
    assert 0.02 < res.pvalue < 0.045
    # the scale of either model is irrelevant: the same p-value on a log scale or x10
    for a, b in ((wfns * 10, np.log(s100b)), (np.exp(wfns), s100b ** 3)):
        other = db.compare_models(roc_auc_score, y, a, b, n_resamples=5000, random_state=0)
        assert other.pvalue == res.pvalue
        np.testing.assert_array_equal(other.null_distribution, res.null_distribution)
        np.testing.assert_array_equal(other.interval.bootstrap_distribution,
                                      res.interval.bootstrap_distribution)


_TRANSFORMS = {
    "x10": lambda s: 10.0 * s,
    "exp": np.exp,
    "cube+5": lambda s: s ** 3 + 5.0,
    "logistic": lambda s: 1.0 / (1.0 + np.exp(-s)),
}


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(sorted(_TRANSFORMS)),
       st.sampled_from(["auc", "ap", "pr_auc", "auc_weighted", "auc_max_fpr"]))
def test_monotone_transform_of_one_model_leaves_the_test_unchanged(seed, name, case):
    rng = np.random.default_rng(seed)
    n = 40
    y = rng.integers(0, 2, n)
    y[:2] = (0, 1)
    a = np.round(y + rng.normal(0, 1.0, n), 1)  # ties within a model
    b = y + rng.normal(0, 1.5, n)
    metric, kw = {"auc": (roc_auc_score, {}), "ap": (average_precision_score, {}),
                  "pr_auc": (pr_auc_score, {}),
                  "auc_weighted": (roc_auc_score, {"sample_weight": rng.integers(1, 4, n)}),
                  "auc_max_fpr": (roc_auc_score, {"max_fpr": 0.5})}[case]
    base = db.compare_models(metric, y, a, b, n_resamples=200, random_state=seed, **kw)
    moved = db.compare_models(metric, y, _TRANSFORMS[name](a), b, n_resamples=200,
                              random_state=seed, **kw)
    assert moved.estimate_a == pytest.approx(base.estimate_a, abs=1e-12)
    assert moved.pvalue == base.pvalue
    np.testing.assert_allclose(moved.null_distribution, base.null_distribution,
                               atol=1e-12)


def _rank_swap_null(metric, y, a, b, n_resamples, seed, **kw):
    """Slow oracle: swap each model's own midranks sample by sample, call the metric."""
    ra, rb = stats.rankdata(a), stats.rankdata(b)
    rng = np.random.default_rng(seed)
    out = np.empty(n_resamples)
    for r in range(n_resamples):
        swap = rng.random(y.shape[0]) < 0.5
        out[r] = metric(y, np.where(swap, rb, ra), **kw) - metric(y, np.where(swap, ra, rb), **kw)
    return out


def test_generic_score_path_matches_rank_swap_oracle():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 120)
    a = y + rng.normal(0, 0.8, 120)
    b = 100 * (y + rng.normal(0, 1.0, 120))
    res = db.compare_models(average_precision_score, y, a, b, n_resamples=600,
                            random_state=0)
    assert res.method == "sample-swap permutation of within-model score ranks"
    slow = _rank_swap_null(average_precision_score, y, a, b, 600, seed=3)
    assert stats.ks_2samp(res.null_distribution, slow).pvalue > KS_LEVEL


# ---------------------------------------------------------------- multiclass AUC

def _probabilities(y, k, noise, rng, scale=1.0):
    z = scale * (np.eye(k)[y] + rng.normal(0, noise, (y.shape[0], k)))
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _class_auc_oracle(y, ra, rb, multi_class, average):
    """Multiclass AUC of a minus b from sklearn's binary AUC on each class column
    (valid on ranks, which are not probabilities), with sklearn's averaging."""
    classes = np.unique(y)

    def macro(r):
        if multi_class == "ovr":
            scores = [sk_auc(y == c, r[:, i]) for i, c in enumerate(classes)]
            weights = [np.mean(y == c) for c in classes]
        else:
            scores, weights = [], []
            for i in range(len(classes)):
                for j in range(i + 1, len(classes)):
                    m = (y == classes[i]) | (y == classes[j])
                    scores.append((sk_auc(y[m] == classes[i], r[m, i])
                                   + sk_auc(y[m] == classes[j], r[m, j])) / 2)
                    weights.append(m.mean())
        return np.average(scores, weights=weights if average == "weighted" else None)
    return macro(ra) - macro(rb)


@pytest.mark.parametrize("multi_class, average", [
    ("ovr", "macro"), ("ovr", "weighted"), ("ovo", "macro"), ("ovo", "weighted")])
def test_multiclass_auc_path_matches_oracles(multi_class, average):
    rng = np.random.default_rng(11)
    y = rng.choice(3, 150, p=[0.5, 0.3, 0.2])
    pa = _probabilities(y, 3, 1.0, rng)
    pb = _probabilities(y, 3, 1.4, rng, scale=3.0)  # sharper: another scale
    kw = {"multi_class": multi_class, "average": average}
    res = db.compare_models(roc_auc_score, y, pa, pb, n_resamples=1000, random_state=0, **kw)
    assert res.method.endswith("per class")
    assert res.difference == pytest.approx(sk_auc(y, pa, **kw) - sk_auc(y, pb, **kw),
                                           abs=1e-12)
    ra, rb = stats.rankdata(pa, axis=0), stats.rankdata(pb, axis=0)
    oracle = np.empty(500)
    perm = np.random.default_rng(1)
    for r in range(500):
        swap = (perm.random(150) < 0.5)[:, None]
        oracle[r] = _class_auc_oracle(y, np.where(swap, rb, ra), np.where(swap, ra, rb),
                                      multi_class, average)
    assert stats.ks_2samp(res.null_distribution, oracle).pvalue > KS_LEVEL
    boot = np.empty(500)
    draw = np.random.default_rng(2)
    for r in range(500):
        i = draw.integers(0, 150, 150)
        boot[r] = sk_auc(y[i], pa[i], **kw) - sk_auc(y[i], pb[i], **kw)
    assert stats.ks_2samp(res.interval.bootstrap_distribution, boot).pvalue > KS_LEVEL


def test_multiclass_auc_other_keywords_swap_probability_rows():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 90)
    pa, pb = _probabilities(y, 3, 1.0, rng), _probabilities(y, 3, 1.2, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = db.compare_models(roc_auc_score, y, pa, pb, multi_class="ovr",
                                average="micro", n_resamples=50, random_state=0)
    # rows summing to 1 are what the metric demands, so they move whole and unranked
    assert res.method == "sample-swap permutation"
    assert res.difference == pytest.approx(
        sk_auc(y, pa, multi_class="ovr", average="micro")
        - sk_auc(y, pb, multi_class="ovr", average="micro"), abs=1e-12)


# ---------------------------------------------------------------- DeLong vs pROC

# pROC 1.18.0 (R 4.2.2) on the same CSV:
#   library(pROC); d <- read.csv("tests/data/aSAH.csv")
#   r <- function(x) roc(d$outcome, x, levels = c("Good", "Poor"), direction = "<")
#   t1 <- roc.test(r(d$wfns), r(d$s100b), method = "delong")
#   t2 <- roc.test(r(d$s100b), r(d$ndka), method = "delong", conf.level = 0.9)
#   print(c(t1$statistic, t1$p.value, t1$conf.int), digits = 15)  # same for t2
PROC_ROC_TEST = [
    ("wfns", "s100b", 0.95, 2.20898359144091, 0.0271757822291882,
     0.0104061769564846, 0.1742144192494776),
    ("s100b", "ndka", 0.90, 1.39077002573558, 0.164295175223054,
     -0.0218154453002152, 0.2606365835115973),
]


@pytest.mark.parametrize("a, b, level, z, p, low, high", PROC_ROC_TEST)
def test_delong_interval_of_difference_equals_proc_roc_test(a, b, level, z, p, low, high):
    frame = pd.read_csv(DATA / "aSAH.csv")
    res = db.delong_test(frame["outcome"], frame[a], frame[b], pos_label="Poor",
                         confidence_level=level)
    assert res.statistic == pytest.approx(z, rel=1e-10)
    assert res.pvalue == pytest.approx(p, rel=1e-10)
    assert res.interval.low == pytest.approx(low, rel=1e-10)
    assert res.interval.high == pytest.approx(high, rel=1e-10)
    assert res.interval.confidence_level == level and res.interval.method == "delong"
    assert res.interval.standard_error == pytest.approx(np.sqrt(res.details["variance"]))


def test_delong_interval_live_against_proc():
    import shutil
    import subprocess

    if shutil.which("Rscript") is None:
        pytest.skip("Rscript is not installed")
    code = ('suppressMessages(library(pROC)); d <- read.csv(commandArgs(TRUE)[1]); '
            'r <- function(x) roc(d$outcome, x, levels = c("Good", "Poor"), '
            'direction = "<", quiet = TRUE); '
            't <- roc.test(r(d$wfns), r(d$ndka), method = "delong", conf.level = 0.8); '
            'cat(format(c(t$p.value, t$conf.int), digits = 15))')
    run = subprocess.run(["Rscript", "-e", code, str(DATA / "aSAH.csv")],
                         capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        pytest.skip(f"pROC is not available: {run.stderr.strip()[-200:]}")
    p, low, high = (float(v) for v in run.stdout.split())
    frame = pd.read_csv(DATA / "aSAH.csv")
    res = db.delong_test(frame["outcome"], frame["wfns"], frame["ndka"], pos_label="Poor",
                         confidence_level=0.8)
    assert (res.pvalue, res.interval.low, res.interval.high) == pytest.approx(
        (p, low, high), rel=1e-10)


def test_delong_multiclass_input_points_to_the_multiclass_comparison():
    with pytest.raises(ValueError, match="DeLong's test is binary.*multi_class='ovr'"):
        db.delong_test([0, 1, 2, 1], [0.1, 0.2, 0.3, 0.4], [0.2, 0.3, 0.1, 0.4])
