"""Large-sample intervals: delong-logit, logit / influence-logit (AP, PR AUC), t for means.

Each against a slow oracle: the formula in a loop over pairs or samples, a
numerical influence function from scikit-learn's weighted metric, scipy's t
interval, and the plain row bootstrap within Monte Carlo error.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats
from sklearn import metrics as skm

from dartboard import interval
from dartboard._kernels._analytic import ap_influence
from dartboard.metrics import (
    accuracy_score,
    average_precision_score,
    brier_score_loss,
    log_loss,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    pr_auc_score,
    roc_auc_score,
    root_mean_squared_error,
)
from dartboard.metrics._ranking import group_scores

Z = stats.norm.ppf(0.975)


def _scores(n, prevalence, seed, ties=False):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(int)
    y[:2] = [0, 1]
    s = rng.normal(size=n) + 1.3 * y
    return y, np.round(s, 1) if ties else s


def _delong_terms_by_pairs(y, s):
    """DeLong et al. (1988) with the structural components summed pair by pair."""
    x, z = s[y == 1], s[y == 0]
    psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    return psi.mean(), v10.var(ddof=1) / x.size, v01.var(ddof=1) / z.size, x.size, z.size


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("prevalence", [0.04, 0.1, 0.5])
def test_delong_logit_is_the_logit_of_delong_by_pairs(ties, prevalence):
    y, s = _scores(150, prevalence, 1, ties)
    auc, a, b, m, n = _delong_terms_by_pairs(y, s)
    tau = np.sqrt(a + b) / (auc * (1 - auc))
    # Welch-Satterthwaite degrees of freedom of the two variance terms
    df = (a + b) ** 2 / (a ** 2 / (m - 1) + b ** 2 / (n - 1))
    q = stats.t.ppf(0.975, df)
    iv = interval(roc_auc_score, y, s, method="delong-logit")
    assert iv.method == "delong-logit"
    assert iv.estimate == pytest.approx(auc, abs=1e-12)
    assert iv.low == pytest.approx(special.expit(special.logit(auc) - q * tau), abs=1e-12)
    assert iv.high == pytest.approx(special.expit(special.logit(auc) + q * tau), abs=1e-12)
    assert iv.standard_error == pytest.approx(np.sqrt(a + b), abs=1e-12)
    plain = interval(roc_auc_score, y, s, method="delong")
    assert plain.standard_error == pytest.approx(iv.standard_error, abs=1e-15)


def test_delong_logit_at_perfect_separation_is_the_point_with_a_warning():
    y = np.array([0, 0, 0, 1, 1])
    with pytest.warns(UserWarning, match="strictly between 0 and 1"):
        iv = interval(roc_auc_score, y, [0.1, 0.2, 0.3, 0.8, 0.9], method="delong-logit")
    assert (iv.low, iv.high) == (1.0, 1.0)


def _numerical_influence(y, s):
    """Empirical influence of each sample on AP, from sklearn's weighted AP.

    Moving weight eps onto sample i is, after rescaling, weight 1 + h for it and 1
    for the rest with h = n eps / (1 - eps): IF_i = n dAP/dh at h = 0.
    """
    n, h = y.size, 1e-6
    out = np.empty(n)
    for i in range(n):
        w_up, w_down = np.ones(n), np.ones(n)
        w_up[i] += h
        w_down[i] -= h
        out[i] = n * (skm.average_precision_score(y, s, sample_weight=w_up)
                      - skm.average_precision_score(y, s, sample_weight=w_down)) / (2 * h)
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(10, 60), st.floats(0.1, 0.6), st.integers(0, 10**6), st.booleans())
def test_ap_influence_equals_numerical_influence(n, prevalence, seed, ties):
    y, s = _scores(n, prevalence, seed, ties)
    _, pos, neg = group_scores(y.astype(bool), s, None)
    ap, variance = ap_influence(pos, neg)
    assert ap == pytest.approx(skm.average_precision_score(y, s), abs=1e-12)
    influence = _numerical_influence(y, s)
    assert influence.sum() == pytest.approx(0.0, abs=1e-5 * n)
    assert variance == pytest.approx(np.sum(influence ** 2) / n ** 2, rel=1e-5)


@pytest.mark.parametrize("metric", [average_precision_score, pr_auc_score])
def test_influence_logit_interval_by_hand(metric):
    y, s = _scores(200, 0.2, 3, ties=True)
    estimate = float(metric(y, s))
    se = np.sqrt(np.sum(_numerical_influence(y, s) ** 2)) / y.size
    tau = se / (estimate * (1 - estimate))
    iv = interval(metric, y, s, method="influence-logit")
    assert iv.low == pytest.approx(special.expit(special.logit(estimate) - Z * tau), rel=1e-5)
    assert iv.high == pytest.approx(special.expit(special.logit(estimate) + Z * tau), rel=1e-5)


@pytest.mark.parametrize("metric", [average_precision_score, pr_auc_score])
def test_boyd_logit_interval(metric):
    # Boyd, Eng & Page (2013), section 4.2: eta = logit(theta), tau = (m theta (1 - theta))^-1/2
    y, s = _scores(300, 0.3, 4)
    theta, m = float(metric(y, s)), int(y.sum())
    tau = 1 / np.sqrt(m * theta * (1 - theta))
    iv = interval(metric, y, s, method="logit", confidence_level=0.9)
    z = stats.norm.ppf(0.95)
    assert iv.low == pytest.approx(special.expit(special.logit(theta) - z * tau), abs=1e-12)
    assert iv.high == pytest.approx(special.expit(special.logit(theta) + z * tau), abs=1e-12)


@pytest.mark.parametrize("metric", [average_precision_score, pr_auc_score])
@pytest.mark.parametrize("method", ["logit", "influence-logit", "auto"])
def test_a_perfect_ranking_gets_the_binomial_models_wilson_interval(metric, method):
    # AP and PR AUC of 1 have no logit: the interval was the point (AP) or [0, 1] (PR
    # AUC's float sum lands an ulp below 1); Boyd's binomial model gives Wilson's score
    # interval for 110 of 110 positives there, 110 / (110 + z^2) by hand
    y = np.r_[np.zeros(4, int), np.ones(110, int)]
    s = np.r_[np.linspace(0, 0.1, 4), np.linspace(0.5, 1, 110)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        iv = interval(metric, y, s, method=method)
    assert iv.estimate == pytest.approx(1.0, abs=1e-12)
    assert iv.low == pytest.approx(110 / (110 + Z ** 2), rel=1e-12)
    assert iv.high == pytest.approx(1.0, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("metric", [average_precision_score, pr_auc_score])
def test_influence_se_agrees_with_the_row_bootstrap(metric):
    y, s = _scores(1500, 0.15, 5)
    analytic = interval(metric, y, s, method="influence-logit")
    plain = interval(lambda a, b: metric(a, b), y, s, method="percentile", n_resamples=2000,
                     random_state=0)
    # the SD of 2000 replicates is within about 3% of the truth (2 SE)
    assert analytic.standard_error == pytest.approx(plain.standard_error, rel=0.08)


def _terms_oracles():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 500)
    p = np.clip(rng.beta(2, 2, 500) * 0.6 + 0.35 * y, 1e-3, 1 - 1e-3)
    t = 3.0 + rng.normal(size=500)
    q = t + rng.standard_t(5, 500)
    return [
        (log_loss, y, p, -np.log(np.where(y == 1, p, 1 - p))),
        (brier_score_loss, y, p, (y - p) ** 2),
        (mean_absolute_error, t, q, np.abs(q - t)),
        (mean_squared_error, t, q, (q - t) ** 2),
        (mean_absolute_percentage_error, t, q, np.abs(q - t) / np.abs(t)),
    ]


@pytest.mark.parametrize("metric, a, b, terms", _terms_oracles(),
                         ids=lambda v: getattr(v, "__name__", ""))
def test_t_interval_equals_scipy(metric, a, b, terms):
    iv = interval(metric, a, b, method="t")
    ref = stats.ttest_1samp(terms, 0.0).confidence_interval(0.95)
    assert iv.estimate == pytest.approx(terms.mean(), rel=1e-12)
    assert (iv.low, iv.high) == pytest.approx((ref.low, ref.high), rel=1e-10)
    assert iv.standard_error == pytest.approx(stats.sem(terms), rel=1e-10)


def test_t_interval_of_rmse_is_the_root_of_mse():
    _, t, q, terms = _terms_oracles()[3]
    ref = stats.ttest_1samp(terms, 0.0).confidence_interval(0.9)
    iv = interval(root_mean_squared_error, t, q, method="t", confidence_level=0.9)
    assert (iv.low, iv.high) == pytest.approx((np.sqrt(ref.low), np.sqrt(ref.high)),
                                              rel=1e-10)


def test_multiclass_log_loss_t_interval():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, 400)
    proba = rng.dirichlet(np.ones(3) * 2, 400)
    terms = -np.log(proba[np.arange(400), y])
    iv = interval(log_loss, y, proba, method="t", labels=[0, 1, 2])
    ref = stats.ttest_1samp(terms, 0.0).confidence_interval(0.95)
    assert (iv.low, iv.high) == pytest.approx((ref.low, ref.high), rel=1e-10)


@pytest.mark.parametrize("metric, method", [
    (accuracy_score, "t"), (log_loss, "logit"), (roc_auc_score, "logit"),
    (mean_absolute_error, "delong-logit")])
def test_method_that_does_not_apply_names_it(metric, method):
    y = np.array([0, 1, 1, 0, 1, 0])
    other = np.array([0.2, 0.7, 0.6, 0.3, 0.9, 0.4])
    if metric is accuracy_score:
        other = (other > 0.5).astype(int)
    with pytest.raises(ValueError, match=f"method='{method}' applies to"):
        interval(metric, y, other, method=method)


def test_t_refuses_weights_and_unknown_keywords():
    t = np.arange(10.0)
    with pytest.raises(ValueError, match="method='t' does not take sample_weight"):
        interval(mean_absolute_error, t, t + 1, method="t", sample_weight=np.ones(10))
    with pytest.raises(ValueError, match=r"does not support the keyword\(s\) \['multioutput'\]"):
        interval(mean_absolute_error, t, t + 1, method="t", multioutput="uniform_average")


def test_score_state_delong_logit_equals_interval_on_the_rows():
    from dartboard.metrics import ScoreState
    from dartboard.uncertainty import interval_from_score_state

    y, s = _scores(300, 0.1, 9, ties=True)
    a = interval_from_score_state(ScoreState.from_scores(y, s), method="delong-logit")
    b = interval(roc_auc_score, y, s, method="delong-logit")
    assert (a.low, a.high, a.standard_error) == pytest.approx((b.low, b.high, b.standard_error),
                                                              rel=1e-12)
    # about 30 positives: auto takes delong-logit from 30 and newcombe below
    expected = "delong-logit" if int(y.sum()) >= 30 else "newcombe"
    assert interval_from_score_state(ScoreState.from_scores(y, s)).method == \
        interval(roc_auc_score, y, s).method == expected


def test_auto_follows_the_registry_by_size():
    from dartboard.metrics._registry import spec_for

    y, s = _scores(3000, 0.3, 8)
    p = special.expit(s - 1)
    for metric, other in [(roc_auc_score, s), (average_precision_score, s),
                          (pr_auc_score, s), (log_loss, p), (brier_score_loss, p)]:
        spec = spec_for(metric)
        size = min(y.sum(), y.size - y.sum()) if spec.kind == "ranking" else y.size
        reached = [m for minimum, m in spec.auto_interval if size >= minimum]
        # binary scores: the last reached that is not the multiclass AUC's method
        expected = [m for m in reached if not (metric is roc_auc_score
                                               and m == "influence-logit")][-1]
        assert interval(metric, y, other, n_resamples=200, random_state=0).method == expected
    # a small class: DeLong on the logit scale from 30 samples in it, Newcombe's below
    y_small = np.r_[np.ones(30, int), np.zeros(600, int)]
    s_small = np.random.default_rng(0).normal(size=630) + y_small
    assert interval(roc_auc_score, y_small, s_small).method == "delong-logit"
    assert interval(roc_auc_score, y_small[1:], s_small[1:]).method == "newcombe"
    ym, pm = _multiclass(900, 3)
    assert interval(roc_auc_score, ym, pm, multi_class="ovr").method == "influence-logit"
    # weights: the analytic paths do not take them, auto bootstraps
    iv = interval(log_loss, y, p, sample_weight=np.ones(y.size), n_resamples=200,
                  random_state=0)
    assert iv.method == "bca"


def _multiclass(n, seed, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    z = rng.normal(size=(n, k))
    z[np.arange(n), y] += 1.0
    p = np.exp(np.round(z, 1))  # ties within a class column
    return y, p / p.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("k", [3, 4])
def test_multiclass_auc_influence_equals_numerical_influence(k):
    y, p = _multiclass(45, k, k)
    n, h = y.size, 1e-6
    influence = np.empty(n)
    for i in range(n):
        w_up, w_down = np.ones(n), np.ones(n)
        w_up[i] += h
        w_down[i] -= h
        influence[i] = n * (skm.roc_auc_score(y, p, multi_class="ovr", sample_weight=w_up)
                            - skm.roc_auc_score(y, p, multi_class="ovr",
                                                sample_weight=w_down)) / (2 * h)
    iv = interval(roc_auc_score, y, p, method="influence-logit", multi_class="ovr")
    assert iv.estimate == pytest.approx(skm.roc_auc_score(y, p, multi_class="ovr"), abs=1e-12)
    assert iv.standard_error == pytest.approx(np.sqrt(np.sum(influence ** 2)) / n, rel=1e-5)
    tau = iv.standard_error / (iv.estimate * (1 - iv.estimate))
    assert iv.low == pytest.approx(special.expit(special.logit(iv.estimate) - Z * tau))


def test_multiclass_auc_influence_needs_ovr_macro():
    y, p = _multiclass(60, 1)
    for kw in ({"multi_class": "ovo"}, {"multi_class": "ovr", "average": "weighted"}):
        with pytest.raises(ValueError, match="one-vs-rest macro AUC"):
            interval(roc_auc_score, y, p, method="influence-logit", **kw)
    yb, s = _scores(60, 0.5, 1)
    with pytest.raises(ValueError, match="binary scores take 'delong' or 'delong-logit'"):
        interval(roc_auc_score, yb, s, method="influence-logit")


@pytest.mark.slow
def test_multiclass_auc_influence_se_agrees_with_the_row_bootstrap():
    y, p = _multiclass(1500, 2)
    analytic = interval(roc_auc_score, y, p, method="influence-logit", multi_class="ovr")
    plain = interval(lambda a, b: skm.roc_auc_score(a, b, multi_class="ovr"), y, p,
                     method="percentile", n_resamples=2000, random_state=0)
    assert analytic.standard_error == pytest.approx(plain.standard_error, rel=0.08)


def test_evaluate_defaults_resample_no_rows_at_large_n():
    """Every default binary interval at n = 5000 is a formula or a count bootstrap."""
    from dartboard.evaluation._engine import evaluate_predictions
    from dartboard.metrics._registry import specs

    y, s = _scores(5000, 0.3, 11)
    res = evaluate_predictions(y, y_score=special.expit(s - 1), n_resamples=200)
    by_label = {sp.table_label("binary"): sp for sp in specs(task="binary")}
    for row in res.metrics:
        spec = by_label[row.metric]
        if spec.family == "counts":
            assert row.method in {"wilson", "bca"}, row
        elif spec.family == "calibration":
            # a bootstrap of bin-level counts, not of rows
            assert row.method == spec.default_interval, row
        else:
            assert row.method in {"delong", "influence-logit", "t"}, row


@pytest.mark.parametrize("n, grid, counts", [(10, 0, False), (1000, 0, True),
                                             (1000, 20, False), (50000, 0, True)])
def test_ap_variance_in_place_equals_the_derivatives(n, grid, counts):
    """AP's influence variance, computed in place, is ``sum pos dpos^2 + sum neg
    dneg^2`` of :func:`ap_derivatives` (ties, integer and float counts)."""
    from dartboard._kernels._analytic import ap_derivatives

    rng = np.random.default_rng(n + grid)
    y = rng.random(n) < 0.3
    y[:2] = [True, False]
    s = rng.random(n) + 0.3 * y
    if grid:
        s = np.round(s * grid) / grid
    distinct, at = np.unique(s, return_inverse=True)
    pos = np.bincount(at, weights=y, minlength=distinct.size)
    neg = np.bincount(at, weights=~y, minlength=distinct.size)
    if counts:
        pos, neg = pos.astype(np.int64), neg.astype(np.int64)
    ap, d_pos, d_neg = ap_derivatives(pos, neg)
    got_ap, got_var = ap_influence(pos, neg)
    assert got_ap == pytest.approx(ap, rel=1e-14)
    assert got_var == pytest.approx(float(pos @ (d_pos * d_pos) + neg @ (d_neg * d_neg)),
                                    rel=1e-12)


@pytest.mark.parametrize("positives, method", [(20, "bca"), (39, "bca"), (40, "t"),
                                               (500, "t")])
def test_auto_takes_t_for_a_classification_loss_with_enough_of_each_class(positives, method):
    """ci='auto' takes the t-interval of a classification loss from 1000 rows and 40
    rows of its rarest class: with 10 or 20 it covered 92.2-93.3% where BCa covered
    94.1-95.9% (benchmarks/mean_loss_coverage.py); a regression loss needs the rows
    only."""
    rng = np.random.default_rng(positives)
    y = np.zeros(1000, dtype=int)
    y[:positives] = 1
    p = np.clip(rng.random(1000), 0.01, 0.99)
    for name in ("log_loss", "brier_score_loss"):
        assert interval(name, y, p, n_resamples=200, random_state=0).method == method
    minority = np.zeros(1000)
    minority[:positives] = 5.0  # skewed regression errors: rows alone decide
    assert interval("mean_squared_error", minority, np.zeros(1000)).method == "t"
