"""Operating points against brute force, scikit-learn, dartboard's intervals and pROC."""

from __future__ import annotations

import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import confusion_matrix

import dartboard
from dartboard.metrics import precision_score, recall_score, specificity_score

ASAH = Path(__file__).parent / "data" / "aSAH.csv"


def _data(seed: int, n: int = 120):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    y[:2] = [0, 1]
    return y, np.round(y * 0.8 + rng.normal(size=n), 1)


def _brute(y, s, w, criterion, target=None, costs=((0, 1), (1, 0)), prevalence=None):
    """Every candidate threshold by a plain loop; ties to the highest threshold."""
    best, best_t = None, None
    c = np.asarray(costs, dtype=float)
    for t in np.concatenate([[np.inf], np.unique(s)[::-1]]):
        (tn, fp), (fn, tp) = confusion_matrix(y, s >= t, labels=[0, 1], sample_weight=w)
        tpr, fpr = tp / (tp + fn), fp / (fp + tn)
        prec = tp / (tp + fp) if tp + fp else np.nan
        pi = (tp + fn) / (tp + fn + fp + tn) if prevalence is None else prevalence
        cost = pi * (c[1, 0] * (1 - tpr) + c[1, 1] * tpr) + (1 - pi) * (
            c[0, 1] * fpr + c[0, 0] * (1 - fpr))
        value = {"youden": lambda: tpr - fpr,
                 "closest_topleft": lambda: -((1 - tpr) ** 2 + fpr ** 2),
                 "cost": lambda: -cost,
                 "min_precision": lambda: tpr if prec >= target else -np.inf,
                 "min_recall": lambda: -fpr if tpr >= target else -np.inf,
                 "max_fpr": lambda: tpr if fpr <= target else -np.inf}[criterion]()
        if best is None or value > best + 1e-12:
            best, best_t = value, t
    return best_t


CASES = [("youden", None), ("closest_topleft", None), ("cost", None),
         ("min_precision", 0.6), ("min_recall", 0.8), ("max_fpr", 0.1)]


@pytest.mark.parametrize("criterion, target", CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_choice_and_metrics_match_brute_force(criterion, target, seed):
    y, s = _data(seed)
    costs = [[0, 1], [4, 0]] if criterion == "cost" else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dartboard.IntervalWarning)  # unmet resamples
        point = dartboard.select_threshold(y, s, criterion=criterion, target=target,
                                           costs=costs, n_resamples=50, random_state=0)
    expected = _brute(y, s, None, criterion, target, costs or ((0, 1), (1, 0)))
    assert point.threshold == expected
    pred = (s >= point.threshold).astype(int)
    iv = point.intervals
    assert iv["tpr"].estimate == pytest.approx(recall_score(y, pred))
    assert iv["tnr"].estimate == pytest.approx(specificity_score(y, pred))
    assert iv["precision"].estimate == pytest.approx(precision_score(y, pred))
    assert iv["npv"].estimate == pytest.approx(precision_score(y, pred, pos_label=0))


def test_weights_prevalence_and_strings():
    y, s = _data(2)
    w = np.random.default_rng(0).integers(1, 4, size=len(y))
    a = dartboard.select_threshold(y, s, criterion="cost", costs=[[0, 1], [3, 0]],
                                   prevalence=0.2, sample_weight=w, n_resamples=50,
                                   random_state=0)
    assert a.threshold == _brute(y, s, w, "cost", costs=((0, 1), (3, 0)), prevalence=0.2)
    rep = dartboard.select_threshold(np.repeat(y, w), np.repeat(s, w), criterion="cost",
                                     costs=[[0, 1], [3, 0]], prevalence=0.2, n_resamples=50,
                                     random_state=0)
    assert rep.threshold == a.threshold
    assert rep.intervals["expected_cost"].estimate == pytest.approx(
        a.intervals["expected_cost"].estimate)
    labels = np.where(y == 1, "yes", "no")
    b = dartboard.select_threshold(labels, s, pos_label="yes", n_resamples=200, random_state=4)
    c = dartboard.select_threshold(y, s, n_resamples=200, random_state=4)
    assert b.threshold == c.threshold
    assert b.intervals["tpr"].low == c.intervals["tpr"].low


def _naive_choice_bootstrap(y, s, reps, seed):
    """Stratified index resampling; Youden's threshold re-chosen by brute force."""
    rng = np.random.default_rng(seed)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    out = np.empty(reps)
    for r in range(reps):
        idx = np.concatenate([rng.choice(pos, pos.size), rng.choice(neg, neg.size)])
        yy, ss = y[idx], s[idx]
        cand = np.concatenate([[np.inf], np.unique(ss)[::-1]])
        pred = ss[None, :] >= cand[:, None]  # every threshold at once, by brute force
        j = pred[:, yy == 1].mean(axis=1) - pred[:, yy == 0].mean(axis=1)
        out[r] = cand[np.flatnonzero(j >= j.max() - 1e-12)[0]]
    return out


def test_bootstrap_of_the_choice_matches_index_resampling():
    # the threshold's interval re-chooses it in each resample, on the one sort
    y, s = _data(3, n=60)
    ours = dartboard.select_threshold(y, s, n_resamples=3000, random_state=1)
    got = ours.intervals["threshold"].bootstrap_distribution
    naive = _naive_choice_bootstrap(y, s, 400, 2)
    assert abs(got.mean() - naive.mean()) < 4 * np.hypot(got.std() / 54.8, naive.std() / 20)
    assert abs(got.std() - naive.std()) < 0.25 * naive.std()


def test_evaluate_threshold_uses_plain_intervals():
    y, s = _data(4)
    point = dartboard.evaluate_threshold(y, s, 0.5, random_state=0)
    pred = (s >= 0.5).astype(int)
    for name, metric, kw in [("tpr", recall_score, {}), ("tnr", specificity_score, {}),
                             ("precision", precision_score, {}),
                             ("npv", precision_score, {"pos_label": 0})]:
        ref = dartboard.interval(metric, y, pred, method="wilson", **kw)
        got = point.intervals[name]
        assert (got.estimate, got.low, got.high) == pytest.approx((ref.estimate, ref.low,
                                                                   ref.high))
    assert point.intervals["f1"].low < point.intervals["f1"].estimate
    assert point.midpoint == pytest.approx((0.5 + 0.4) / 2)
    assert point.criterion is None and "threshold" not in point.intervals


def test_cannot_meet_criterion_is_a_clear_error():
    y = np.array([0, 0, 1, 1, 0, 1])
    s = np.array([0.9, 0.4, 0.35, 0.8, 0.2, 0.1])  # the top score is a negative
    with pytest.raises(ValueError, match=r"no threshold reaches precision >= 0\.9 "
                                         r".*the highest precision is 0\.5"):
        dartboard.select_threshold(y, s, criterion="min_precision", target=0.9)
    # FPR <= 0 is always met by predicting nothing positive; precision is then 0/0
    with pytest.warns(dartboard.IntervalWarning) as record:  # the threshold's is degenerate
        point = dartboard.select_threshold(y, np.ones(6), criterion="max_fpr", target=0.0,
                                           n_resamples=50)
    assert any("precision is undefined" in str(r.message) for r in record)
    assert point.threshold == np.inf and np.isnan(point.intervals["precision"].estimate)
    assert point.intervals["tnr"].estimate == 1.0


def test_unmet_resamples_are_counted_and_left_out():
    y = np.array([1, 0, 1, 0, 0, 1, 0, 0, 1, 0] * 4)
    s = -np.arange(40.0)  # precision 1 only above the first negative
    with pytest.warns(dartboard.IntervalWarning, match=r"cannot be met in \d+ of 400 "):
        point = dartboard.select_threshold(y, s, criterion="min_precision", target=1.0,
                                           n_resamples=400, random_state=0)
    assert 0 < point.n_unmet < 400
    assert point.intervals["threshold"].bootstrap_distribution.shape[0] == 400 - point.n_unmet


@pytest.mark.parametrize("kwargs, match", [
    ({"costs": [1, 2, 3]}, r"costs must be a 2 x 2 matrix .* got shape \(3,\)"),
    ({"costs": [[0, 1, 2], [1, 0, 2]]}, r"got shape \(2, 3\)"),
    ({"costs": [[0, np.nan], [1, 0]]}, "costs must be finite"),
    ({"criterion": "min_precision"}, "needs target"),
    ({"target": 0.5}, "target is only used by"),
    ({"criterion": "f1"}, "criterion must be one of"),
    ({"criterion": "max_fpr", "target": 1.5}, "target must be at most 1"),
    ({"prevalence": 0.0}, "prevalence must be greater than 0"),
])
def test_bad_arguments(kwargs, match):
    y, s = _data(6, n=30)
    with pytest.raises(ValueError, match=match):
        dartboard.select_threshold(y, s, **kwargs)


def test_bad_data():
    with pytest.raises(ValueError, match="both classes"):
        dartboard.select_threshold([1, 1], [0.2, 0.3], pos_label=1)
    with pytest.raises(ValueError, match="costs must be a 2 x 2"):
        dartboard.evaluate_threshold([0, 1], [0.2, 0.3], 0.25, costs=np.eye(3))


# ------------------------------------------------------------------ R's pROC on aSAH

# R 4.x, pROC 1.18.0:
#   d <- read.csv("tests/data/aSAH.csv")
#   r <- roc(d$outcome, d$s100b, levels = c("Good", "Poor"), direction = "<")
#   print(coords(r, "best", best.method = "youden",
#                ret = c("threshold", "specificity", "sensitivity")), digits = 17)
#   (and best.method = "closest.topleft"; and the same for d$ndka)
PROC_BEST = [
    ("s100b", "youden", 0.20500000000000002, 0.80555555555555558, 0.63414634146341464),
    ("s100b", "closest_topleft", 0.20500000000000002, 0.80555555555555558,
     0.63414634146341464),
    ("ndka", "youden", 11.08, 0.51388888888888884, 0.70731707317073167),
    ("ndka", "closest_topleft", 12.73, 0.625, 0.58536585365853655),
]


@pytest.mark.parametrize("column, criterion, threshold, specificity, sensitivity", PROC_BEST)
def test_best_coords_equal_proc(column, criterion, threshold, specificity, sensitivity):
    d = pd.read_csv(ASAH)
    point = dartboard.select_threshold(d.outcome, d[column], criterion=criterion,
                                       pos_label="Poor", n_resamples=20, random_state=0)
    # pROC's threshold is the midpoint to the next lower score; ours is the score itself
    assert point.midpoint == pytest.approx(threshold, rel=1e-15)
    assert point.intervals["tnr"].estimate == specificity
    assert point.intervals["tpr"].estimate == sensitivity
    below = np.sort(d[column].unique())
    assert point.threshold == below[below > threshold][0]


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs Rscript with pROC")
def test_best_coords_live_against_proc():
    script = (f'suppressMessages(library(pROC)); d <- read.csv("{ASAH}"); '
              'r <- roc(d$outcome, d$age, levels = c("Good", "Poor"), direction = "<", '
              'quiet = TRUE); for (m in c("youden", "closest.topleft")) '
              '{x <- coords(r, "best", best.method = m, ret = c("threshold", "specificity", '
              '"sensitivity")); cat(sprintf("%.17g", unlist(x[1, ])), "\\n")}')
    run = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True,
                         timeout=300)
    if run.returncode != 0:
        pytest.skip("pROC is not available: " + run.stderr[-200:])
    d = pd.read_csv(ASAH)
    for line, criterion in zip(run.stdout.strip().splitlines(), ("youden", "closest_topleft")):
        threshold, specificity, sensitivity = map(float, line.split())
        point = dartboard.select_threshold(d.outcome, d.age, criterion=criterion,
                                           pos_label="Poor", n_resamples=20, random_state=0)
        assert point.midpoint == pytest.approx(threshold, rel=1e-15)
        assert point.intervals["tnr"].estimate == pytest.approx(specificity, rel=1e-15)
        assert point.intervals["tpr"].estimate == pytest.approx(sensitivity, rel=1e-15)


# ------------------------------------------------------------------ the rates' intervals

def test_negative_weights_are_refused_as_interval_refuses_them():
    y, s = _data(7, n=40)
    w = np.ones(40)
    w[3] = -1.0
    with pytest.raises(ValueError) as ref:
        dartboard.interval(recall_score, y, (s > 0).astype(int), sample_weight=w)
    for call in (lambda: dartboard.select_threshold(y, s, sample_weight=w),
                 lambda: dartboard.evaluate_threshold(y, s, 0.0, sample_weight=w)):
        with pytest.raises(ValueError, match="^sample_weight must be non-negative") as got:
            call()
        assert str(got.value) == str(ref.value)


def test_min_recall_interval_is_the_order_statistic_law():
    # no ties: the chosen threshold is the 16th highest of 20 positive scores, whose
    # true TPR is Beta(16, 5) exactly; counting it half gives that Beta's quantiles
    rng = np.random.default_rng(2)
    y = np.r_[np.ones(20, int), np.zeros(30, int)]
    s = rng.normal(size=50) + y
    from dartboard.uncertainty._threshold_rates import rate_bounds

    mid = {"tp": 15.5, "fn": 4.5, "fp": 10.0, "tn": 20.0}
    low, high, _ = rate_bounds(mid, 0.95, np.array([[0, 1], [1, 0]]), None,
                               np.random.default_rng(0), 10)
    assert (low[0], high[0]) == pytest.approx(stats.beta.ppf([0.025, 0.975], 16, 5))
    assert (low[1], high[1]) == pytest.approx(stats.beta.ppf([0.025, 0.975], 20.5, 10.5))
    point = dartboard.select_threshold(y, s, criterion="min_recall", target=0.8,
                                       n_resamples=400, random_state=0)
    tpr = point.intervals["tpr"]
    assert tpr.estimate == 0.8 and tpr.method == "jeffreys, selection-widened"
    # the widening only adds to the order-statistic interval, and holds the estimate
    base = stats.beta.ppf([0.025, 0.975], 16, 5)
    assert tpr.low <= base[0] and tpr.high >= max(base[1], 0.8)


def test_composite_intervals_are_quantiles_of_the_two_posteriors():
    # precision at the data's class mix from independent Jeffreys posteriors of TPR and
    # FPR, against SciPy's beta draws and the formula
    from dartboard.uncertainty._threshold_rates import rate_bounds

    mid = {"tp": 30.5, "fn": 9.5, "fp": 12.0, "tn": 48.0}
    low, high, _ = rate_bounds(mid, 0.9, np.array([[0, 1], [1, 0]]), None,
                               np.random.default_rng(1), 200_000)
    rng = np.random.default_rng(2)
    tpr = stats.beta.rvs(31.0, 10.0, size=200_000, random_state=rng)
    fpr = stats.beta.rvs(12.5, 48.5, size=200_000, random_state=rng)
    precision = 40 * tpr / (40 * tpr + 60 * fpr)
    cost = 0.4 * (1 - tpr) + 0.6 * fpr
    assert (low[2], high[2]) == pytest.approx(np.quantile(precision, [0.05, 0.95]), abs=2e-3)
    assert (low[5], high[5]) == pytest.approx(np.quantile(cost, [0.05, 0.95]), abs=2e-3)


def test_widening_is_the_union_with_the_moved_interval():
    from dartboard.uncertainty._threshold_rates import widen

    low, high = np.array([0.2] * 6), np.array([0.4] * 6)
    delta = np.array([0.05, -0.05, 0.0, np.nan, 0.3, 0.1])
    estimate = np.array([0.3, 0.3, 0.3, 0.3, 0.3, 0.45])
    got_low, got_high = widen(low, high, delta, estimate, np.array([[0, 1], [1, 0]]))
    np.testing.assert_allclose(got_low, [0.15, 0.2, 0.2, 0.2, 0.0, 0.1])
    np.testing.assert_allclose(got_high, [0.4, 0.45, 0.4, 0.4, 0.4, 0.45])


def test_nothing_positive_has_exact_rates():
    # 40-odd negatives cannot show FPR <= 0.01 with 95% confidence: only predicting
    # nothing positive is safe, and there the rates are known
    y, s = _data(8, n=60)
    with pytest.warns(dartboard.IntervalWarning) as record:
        point = dartboard.select_threshold(y, s, criterion="max_fpr", target=0.01,
                                           guarantee=0.95, n_resamples=100, random_state=0)
    assert any("precision is undefined" in str(r.message) for r in record)
    assert point.threshold == np.inf
    iv = point.intervals
    assert (iv["tpr"].low, iv["tpr"].high, iv["tnr"].low, iv["tnr"].high) == (0, 0, 1, 1)
    assert iv["npv"].low == iv["npv"].high == pytest.approx(np.mean(y == 0))
    assert iv["tpr"].method == "exact (nothing predicted positive)"


def test_fractional_weights_use_the_bootstrap_at_the_threshold():
    y, s = _data(9, n=80)
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=80)
    point = dartboard.select_threshold(y, s, sample_weight=w, n_resamples=300,
                                       random_state=0)
    for name in ("tpr", "tnr", "precision", "npv", "f1", "expected_cost"):
        iv = point.intervals[name]
        assert iv.method == "percentile at the threshold, selection-widened"
        assert iv.low <= iv.estimate <= iv.high


@pytest.mark.slow
def test_coverage_of_the_chosen_thresholds_true_rates():
    # the benchmark's claim in small: Youden at 50/50, binormal; 300 data sets
    rng = np.random.default_rng(3)
    y = np.repeat([1, 0], 50)
    hits, reps = np.zeros(2), 300
    for r in range(reps):
        s = rng.normal(size=100) + 1.5 * y
        point = dartboard.select_threshold(y, s, n_resamples=500, random_state=r)
        truth = [stats.norm.sf(point.threshold - 1.5), stats.norm.cdf(point.threshold)]
        for j, name in enumerate(("tpr", "tnr")):
            iv = point.intervals[name]
            hits[j] += iv.low <= truth[j] <= iv.high
    assert np.all(hits / reps >= 0.92)
