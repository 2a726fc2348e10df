"""Analytic intervals: proportions equal statsmodels, DeLong equals O(mn), cv_interval."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from dartboard import cv_interval, interval
from dartboard._kernels._analytic import proportion_interval
from dartboard.metrics import (
    accuracy_score,
    f1_score,
    false_negative_rate,
    false_positive_rate,
    precision_score,
    recall_score,
    roc_auc_score,
    selection_rate,
    specificity_score,
)
from dartboard.uncertainty import IntervalWarning

SM_NAMES = {"wald": "normal", "wilson": "wilson", "clopper-pearson": "beta",
            "agresti-coull": "agresti_coull", "jeffreys": "jeffreys"}


# the formulas at x = 0 or n, where Wald's zero width warns
WALD_ZERO_WIDTH = "ignore:the Wald interval:dartboard.uncertainty.IntervalWarning"


@pytest.mark.filterwarnings(WALD_ZERO_WIDTH)
@pytest.mark.parametrize("method", list(SM_NAMES))
@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.999])
def test_proportion_equals_statsmodels(method, level):
    for n in (1, 2, 7, 30, 1000, 123457):
        for x in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            low, high = proportion_interval(float(x), float(n), level, method)
            ref = proportion_confint(x, n, alpha=1 - level, method=SM_NAMES[method])
            # statsmodels clips wald/wilson/agresti-coull; jeffreys and beta lie in [0, 1]
            ref = np.clip(ref, 0, 1)
            if method == "jeffreys":
                # statsmodels keeps the Beta quantiles at the ends; Brown, Cai and
                # DasGupta (2001) set 0 at x = 0 and 1 at x = n
                ref = (0.0 if x == 0 else ref[0], 1.0 if x == n else ref[1])
            assert low == pytest.approx(ref[0], abs=1e-10), (x, n)
            assert high == pytest.approx(ref[1], abs=1e-10), (x, n)


def _binary_data(n=500, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.75, y, 1 - y)
    return y, p


@pytest.mark.parametrize("metric, x_n", [
    (accuracy_score, lambda tp, fp, fn, tn: (tp + tn, tp + fp + fn + tn)),
    (precision_score, lambda tp, fp, fn, tn: (tp, tp + fp)),
    (recall_score, lambda tp, fp, fn, tn: (tp, tp + fn)),
    (specificity_score, lambda tp, fp, fn, tn: (tn, tn + fp)),
    (false_positive_rate, lambda tp, fp, fn, tn: (fp, fp + tn)),
    (false_negative_rate, lambda tp, fp, fn, tn: (fn, fn + tp)),
    (selection_rate, lambda tp, fp, fn, tn: (tp + fp, tp + fp + fn + tn)),
])
@pytest.mark.parametrize("method", list(SM_NAMES))
def test_metric_denominators(metric, x_n, method):
    y, p = _binary_data()
    tp = int(np.sum((y == 1) & (p == 1)))
    fp = int(np.sum((y == 0) & (p == 1)))
    fn = int(np.sum((y == 1) & (p == 0)))
    tn = int(np.sum((y == 0) & (p == 0)))
    x, n = x_n(tp, fp, fn, tn)
    iv = interval(metric, y, p, method=method, confidence_level=0.9)
    ref = np.clip(proportion_confint(x, n, alpha=0.1, method=SM_NAMES[method]), 0, 1)
    assert (iv.low, iv.high) == pytest.approx(tuple(ref), abs=1e-10)
    assert iv.estimate == pytest.approx(x / n)
    assert iv.standard_error == pytest.approx(np.sqrt(x / n * (1 - x / n) / n))
    assert iv.method == method and iv.bootstrap_distribution is None


def test_pos_label_and_strings():
    y = np.array(["a", "b", "b", "a", "b", "b"])
    p = np.array(["a", "b", "a", "a", "b", "a"])
    iv = interval(recall_score, y, p, pos_label="b", method="clopper-pearson")
    ref = proportion_confint(2, 4, alpha=0.05, method="beta")
    assert (iv.low, iv.high) == pytest.approx(ref, abs=1e-10)
    iv = interval(recall_score, y, p, pos_label="a", method="wilson")
    assert iv.estimate == 1.0


def test_auto_picks_wilson_and_multiclass_accuracy():
    y = np.array([0, 1, 2, 2, 1, 0, 2, 1])
    p = np.array([0, 1, 2, 1, 1, 0, 2, 0])
    iv = interval(accuracy_score, y, p)
    assert iv.method == "wilson"
    assert (iv.low, iv.high) == pytest.approx(proportion_confint(6, 8, method="wilson"))
    with pytest.raises(ValueError, match="binary case.*bootstrap"):
        interval(precision_score, y, p, average="micro", method="wilson")
    # auto falls back to BCa where no analytic interval applies
    iv = interval(precision_score, y, p, average="macro", n_resamples=200, random_state=0)
    assert iv.method in ("bca", "percentile")


def test_integer_weights_are_frequencies_and_float_weights_raise():
    y, p = _binary_data(60)
    w = np.arange(60) % 3
    expanded = interval(accuracy_score, np.repeat(y, w), np.repeat(p, w), method="wilson")
    weighted = interval(accuracy_score, y, p, sample_weight=w, method="wilson")
    assert (weighted.low, weighted.high) == pytest.approx((expanded.low, expanded.high))
    with pytest.raises(ValueError, match="non-integer"):
        interval(accuracy_score, y, p, sample_weight=w + 0.5, method="wilson")
    iv = interval(accuracy_score, y, p, sample_weight=w + 0.5, n_resamples=300,
                  random_state=0)
    assert iv.method == "bca"


def test_zero_denominator_gives_whole_range_with_warning():
    y = np.array([0, 0, 1, 1])
    p = np.zeros(4, dtype=int)  # no predicted positive: precision is 0/0
    with pytest.warns(IntervalWarning, match="denominator is 0"), \
            pytest.warns(UserWarning, match="ill-defined"):
        iv = interval(precision_score, y, p, method="wilson")
    assert (iv.low, iv.high) == (0.0, 1.0) and np.isnan(iv.standard_error)


def test_analytic_method_for_wrong_metric():
    y, p = _binary_data(50)
    with pytest.raises(ValueError, match="applies to accuracy_score.*f1_score"):
        interval(f1_score, y, p, method="wilson")
    with pytest.raises(ValueError, match="user callable"):
        interval(lambda a, b: 0.5, y, p, method="jeffreys")
    with pytest.raises(ValueError, match="delong.*roc_auc_score only"):
        interval(accuracy_score, y, p, method="delong")
    with pytest.raises(ValueError, match="binary case"):
        interval(recall_score, y, p, average="macro", method="wald")


def _slow_delong_var(y, s):
    x, z = s[y], s[~y]
    psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
    return psi.mean(), np.var(psi.mean(axis=1), ddof=1) / len(x) \
        + np.var(psi.mean(axis=0), ddof=1) / len(z)


def test_delong_interval_of_roc_auc():
    rng = np.random.default_rng(3)
    y = rng.random(400) < 0.4
    s = np.round(rng.normal(size=400) + 0.8 * y, 1)
    iv = interval(roc_auc_score, y.astype(int), s)
    auc, var = _slow_delong_var(y, s)
    z = stats.norm.ppf(0.975)
    assert iv.method == "delong"
    assert iv.estimate == pytest.approx(auc, abs=1e-12)
    assert iv.standard_error == pytest.approx(np.sqrt(var), rel=1e-10)
    assert (iv.low, iv.high) == pytest.approx((auc - z * np.sqrt(var), auc + z * np.sqrt(var)))
    # clipped to [0, 1]: a near-perfect separation
    y2 = np.array([0] * 5 + [1] * 5)
    s2 = np.array([0.1, 0.2, 0.3, 0.4, 0.75, 0.7, 0.8, 0.9, 0.95, 0.99])
    iv2 = interval(roc_auc_score, y2, s2, method="delong")
    assert iv2.high == 1.0 and iv2.low < iv2.estimate < 1.0
    with pytest.raises(ValueError, match="sample_weight"):
        interval(roc_auc_score, y2, s2, method="delong", sample_weight=np.ones(10))
    # a partial AUC is not what DeLong's variance describes: its interval of the full
    # AUC did not contain the (partial) estimate
    with pytest.raises(ValueError, match="max_fpr=0.1 .*bootstrap"):
        interval(roc_auc_score, y, s, method="delong", max_fpr=0.1)
    assert interval(roc_auc_score, y, s, method="delong", max_fpr=None).low == iv.low


def test_zero_width_analytic_intervals_warn():
    # perfect separation: DeLong's variance is 0; a proportion of 1: Wald's half-width
    # is 0. Both gave [1, 1] silently, unlike the bootstrap's zero-width warning.
    y = [0, 1, 1, 0, 1, 1, 0, 1]
    with pytest.warns(IntervalWarning, match="DeLong's variance .* is 0"):
        iv = interval(roc_auc_score, y, [0, .9, .8, .1, .7, .6, .2, .9], method="delong")
    assert iv.method == "delong" and iv.low == iv.high == 1.0
    with pytest.warns(IntervalWarning, match="Wald interval .* zero width"):
        iv = interval(accuracy_score, y, y, method="wald")
    assert iv.low == iv.high == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", IntervalWarning)
        assert interval(accuracy_score, y, y).high == 1.0 > interval(accuracy_score, y, y).low


def test_cv_interval_t_and_nadeau_bengio():
    scores = np.array([0.81, 0.84, 0.79, 0.83, 0.80, 0.86])
    k = scores.size
    iv = cv_interval(scores, confidence_level=0.9)
    ref = stats.t.interval(0.9, k - 1, loc=scores.mean(), scale=stats.sem(scores))
    assert (iv.low, iv.high) == pytest.approx(ref, rel=1e-12)
    assert iv.method == "t" and iv.estimate == pytest.approx(scores.mean())
    nb = cv_interval(scores, n_train=500, n_test=100)
    se = scores.std(ddof=1) * np.sqrt(1 / k + 100 / 500)  # Nadeau & Bengio (2003), eq. 9
    half = stats.t.ppf(0.975, k - 1) * se
    assert nb.method == "nadeau-bengio" and nb.standard_error == pytest.approx(se)
    assert (nb.low, nb.high) == pytest.approx((scores.mean() - half, scores.mean() + half))
    with pytest.warns(IntervalWarning, match="zero width"):
        flat = cv_interval([0.9, 0.9, 0.9])
    assert flat.low == flat.high == pytest.approx(0.9)
    # np.std([0.8] * 3, ddof=1) is 1.4e-16, not 0: still equal scores, zero width
    with pytest.warns(IntervalWarning, match="zero width"):
        flat = cv_interval([0.8, 0.8, 0.8])
    assert flat.standard_error == 0.0 and flat.low == flat.high == 0.8


def test_cv_interval_bad_input():
    with pytest.raises(ValueError, match="at least 2 folds"):
        cv_interval([0.5])
    with pytest.raises(ValueError, match="both n_train and n_test"):
        cv_interval([0.5, 0.6], n_train=10)
    with pytest.raises(ValueError, match="n_test must be a positive"):
        cv_interval([0.5, 0.6], n_train=10, n_test=0)
    with pytest.raises(ValueError, match="confidence_level must be strictly between"):
        cv_interval([0.5, 0.6], confidence_level=1.0)
    with pytest.raises(ValueError, match="fold_scores contains 1 NaN"):
        cv_interval([0.5, np.nan])


@pytest.mark.filterwarnings(WALD_ZERO_WIDTH)
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10**6), st.floats(0, 1), st.floats(0.01, 0.999),
       st.sampled_from(list(SM_NAMES)))
def test_property_proportion_equals_statsmodels(n, frac, level, method):
    x = int(round(frac * n))
    low, high = proportion_interval(float(x), float(n), level, method)
    ref = np.clip(proportion_confint(x, n, alpha=1 - level, method=SM_NAMES[method]), 0, 1)
    if method == "jeffreys":  # Brown, Cai and DasGupta's ends (see above)
        ref = (0.0 if x == 0 else ref[0], 1.0 if x == n else ref[1])
    assert (low, high) == pytest.approx(tuple(ref), abs=1e-10)


@pytest.mark.parametrize("n", [1, 7, 50, 114, 1000])
def test_wilson_holds_its_estimate_at_the_ends(n):
    # at x = 0 and x = n the Wilson bounds are 0 and 1 exactly; rounding once put them
    # a hair inside the estimate (low 6.9e-18 > 0 for 0 of 50), outside their own point
    from dartboard._kernels._analytic import proportion_interval

    assert proportion_interval(0, n, 0.95, "wilson")[0] == 0.0
    assert proportion_interval(n, n, 0.95, "wilson")[1] == 1.0
    low, high = proportion_interval(1, n, 0.95, "wilson")
    assert 0.0 < low <= 1 / n <= high
