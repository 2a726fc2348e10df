"""nested_cv_interval: Bates, Hastie and Tibshirani's (2024) nested cross-validation.

Oracles: a plain-loop transcription of their Algorithm 1 (every inner model fit
on its own, nothing shared or vectorised), scikit-learn's cross_val_score on the
same folds for the point estimate, statsmodels' cluster-robust variance for the
grouped fold variance, and (with Rscript and data.table) the aggregation of
mlr3inferr's MeasureCiNestedCV re-typed in R.
"""

from __future__ import annotations

import shutil
import subprocess
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special
from sklearn.base import BaseEstimator
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import KFold, PredefinedSplit, cross_val_score
from sklearn.tree import DecisionTreeClassifier

import dartboard
from dartboard import CVInterval, nested_cv_interval
from dartboard._kernels._bootstrap import IntervalWarning
from dartboard.uncertainty import _nested


def _regression(n=24, p=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    return X, X @ np.linspace(1, -1, p) + rng.normal(size=n)


def _classification(n=40, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, (X[:, 0] + rng.normal(size=n) > 0).astype(int)


def _squared(model, X, y):
    return (y - model.predict(X)) ** 2


def _log_loss(model, X, y):
    p = np.clip(model.predict_proba(X)[np.arange(y.shape[0]), y], 1e-15, 1)
    return -np.log(p)


def _correct(model, X, y):
    return (model.predict(X) == y).astype(float)


def _algorithm_1(estimator, X, y, fold_ids, loss, level, bounds=(0.0, np.inf)):
    """Bates et al.'s Algorithm 1 and interval, loop by loop, on the given folds; the
    ends clipped to the loss's range, as mlr3inferr does (``within_range``)."""
    from sklearn.base import clone

    n, k = y.shape[0], int(fold_ids.max()) + 1
    a_list, b_list, es, outer_all = [], [], [], []
    for ids in fold_ids:
        for out in range(k):
            e_in = []
            for inn in range(k):
                if inn == out:
                    continue
                train = (ids != out) & (ids != inn)
                model = clone(estimator).fit(X[train], y[train])
                e_in.extend(loss(model, X[ids == inn], y[ids == inn]))
            model = clone(estimator).fit(X[ids != out], y[ids != out])
            e_out = loss(model, X[ids == out], y[ids == out])
            a_list.append((np.mean(e_in) - np.mean(e_out)) ** 2)
            b_list.append(np.var(e_out, ddof=1) / len(e_out))
            es.extend(e_in)
            outer_all.extend(e_out)
    mse = np.mean(a_list) - np.mean(b_list)
    err_ncv, err_cv = np.mean(es), np.mean(outer_all)
    centre = err_ncv - (1 + (k - 2) / k) * (err_ncv - err_cv)
    sd = np.std(es, ddof=1)
    lowest = sd / np.sqrt(n)
    se = max(lowest, min(np.sqrt(max(0.0, (k - 1) / k * mse)), np.sqrt(k) * lowest))
    z = special.ndtri(0.5 + level / 2)
    naive_se = np.std(outer_all, ddof=1) / np.sqrt(n)
    low, high, naive_low, naive_high = np.clip(
        [centre - z * se, centre + z * se, err_cv - z * naive_se, err_cv + z * naive_se],
        *bounds)
    return {"estimate": err_cv, "low": low, "high": high, "standard_error": se, "mse": mse,
            "nested_estimate": err_ncv, "bias": err_cv - centre,
            "naive_standard_error": naive_se, "naive_low": naive_low, "naive_high": naive_high}


def _assert_matches(res, expected, sign=1.0):
    for name, value in expected.items():
        got = getattr(res, name)
        if name in ("mse", "standard_error", "naive_standard_error"):
            want = value
        elif name in ("low", "high", "naive_low", "naive_high"):
            # the loop works on losses; a negated scorer swaps the ends
            other = {"low": "high", "high": "low", "naive_low": "naive_high",
                     "naive_high": "naive_low"}[name]
            want = sign * (value if sign > 0 else expected[other])
        else:
            want = sign * value
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.parametrize(("scoring", "sign"), [("neg_mean_squared_error", -1.0),
                                               ("mean_squared_error", 1.0)])
def test_regression_matches_algorithm_1_loops(scoring, sign):
    X, y = _regression()
    res = nested_cv_interval(LinearRegression(), X, y, scoring=scoring, cv=4, n_repeats=3,
                             random_state=5, confidence_level=0.9)
    expected = _algorithm_1(LinearRegression(), X, y, res.fold_ids, _squared, 0.9)
    _assert_matches(res, expected, sign)
    assert (res.n_splits, res.n_repeats, res.n_samples) == (4, 3, 24)
    assert res.scoring == scoring and res.method == "nested-cv"


@pytest.mark.parametrize(("scoring", "loss", "sign"), [("neg_log_loss", _log_loss, -1.0),
                                                       ("accuracy", _correct, 1.0)])
def test_classification_matches_algorithm_1_loops(scoring, loss, sign):
    X, y = _classification()
    model = LogisticRegression()
    res = nested_cv_interval(model, X, y, scoring=scoring, cv=5, n_repeats=2, random_state=3)
    bounds = (0.0, 1.0) if scoring == "accuracy" else (0.0, np.inf)
    _assert_matches(res, _algorithm_1(model, X, y, res.fold_ids, loss, 0.95, bounds), sign)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(12, 30), k=st.integers(3, 5), repeats=st.integers(1, 3),
       seed=st.integers(0, 2**16))
def test_shared_pair_fits_match_the_loops(n, k, repeats, seed):
    X, y = _regression(n=n, p=2, seed=seed)
    res = nested_cv_interval(LinearRegression(), X, y, scoring="mean_squared_error", cv=k,
                             n_repeats=repeats, random_state=seed)
    _assert_matches(res, _algorithm_1(LinearRegression(), X, y, res.fold_ids, _squared, 0.95))


@pytest.mark.parametrize("n", [40, 43])
def test_estimate_is_plain_repeated_cv(n):
    X, y = _regression(n=n)
    res = nested_cv_interval(LinearRegression(), X, y, scoring="neg_mean_squared_error", cv=4,
                             n_repeats=3, random_state=0)
    per_fold = np.array([cross_val_score(LinearRegression(), X, y, cv=PredefinedSplit(ids),
                                         scoring="neg_mean_squared_error")
                         for ids in res.fold_ids])
    np.testing.assert_allclose(res.fold_scores, per_fold, rtol=1e-12)
    sizes = np.array([np.bincount(ids) for ids in res.fold_ids])
    np.testing.assert_allclose(res.estimate, np.mean(np.sum(per_fold * sizes, 1) / n),
                               rtol=1e-12)
    if n % 4 == 0:  # equal folds: the mean of cross_val_score's fold scores itself
        np.testing.assert_allclose(res.estimate, per_fold.mean(), rtol=1e-12)


def test_folds_are_shuffled_kfold_from_spawned_seeds():
    X, y = _regression(n=30)
    res = nested_cv_interval(LinearRegression(), X, y, scoring="mean_squared_error", cv=3,
                             n_repeats=2, random_state=11)
    for ids, seed in zip(res.fold_ids, dartboard._rng.spawn(11, 2)):
        folds = KFold(3, shuffle=True, random_state=int(seed.generate_state(1)[0]))
        for fold, (_, test) in enumerate(folds.split(X)):
            assert np.all(ids[test] == fold)


def test_classifier_folds_are_stratified():
    X, y = _classification(n=60)
    res = nested_cv_interval(LogisticRegression(), X, y, scoring="accuracy", cv=3,
                             n_repeats=2, random_state=0)
    counts = [np.bincount(ids[y == 1]) for ids in res.fold_ids]
    assert all(c.max() - c.min() <= 1 for c in counts)


def test_same_bits_for_any_n_jobs_and_seed():
    X, y = _classification(n=30)
    kw = dict(scoring="neg_brier_score", cv=3, n_repeats=4, random_state=7)
    one = nested_cv_interval(LogisticRegression(), X, y, n_jobs=1, **kw)
    two = nested_cv_interval(LogisticRegression(), X, y, n_jobs=2, **kw)
    again = nested_cv_interval(LogisticRegression(), X, y, **kw)
    other = nested_cv_interval(LogisticRegression(), X, y, **{**kw, "random_state": 8})
    for res in (two, again):
        for name in ("estimate", "low", "high", "standard_error", "mse", "nested_estimate"):
            assert getattr(res, name) == getattr(one, name), name
        assert np.array_equal(res.fold_ids, one.fold_ids)
        assert np.array_equal(res.fold_scores, one.fold_scores)
    assert not np.array_equal(other.fold_ids, one.fold_ids)


def test_result_and_exports():
    assert dartboard.nested_cv_interval is nested_cv_interval
    assert dartboard.uncertainty.CVInterval is CVInterval
    X, y = _regression(n=30)
    res = nested_cv_interval(LinearRegression(), X, y, scoring="mean_absolute_error", cv=3,
                             n_repeats=2, random_state=0)
    assert isinstance(res, CVInterval)
    assert res.fold_scores.shape == (2, 3) and res.fold_ids.shape == (2, 30)
    assert res.low < res.estimate - res.bias < res.high
    assert res.inflation == res.standard_error / res.naive_standard_error
    d = res.to_dict()
    assert d["scoring"] == "mean_absolute_error" and len(d["fold_scores"]) == 2


def test_metric_names_functions_and_scorers_agree():
    from sklearn.metrics import make_scorer, mean_squared_error

    from dartboard.metrics import mean_squared_error as ours

    X, y = _regression(n=30)
    kw = dict(cv=3, n_repeats=2, random_state=1)
    ref = nested_cv_interval(LinearRegression(), X, y, scoring="mean_squared_error", **kw)
    for scoring in (ours, mean_squared_error, make_scorer(ours), make_scorer(mean_squared_error)):
        res = nested_cv_interval(LinearRegression(), X, y, scoring=scoring, **kw)
        assert (res.estimate, res.low, res.high) == (ref.estimate, ref.low, ref.high)
    neg = nested_cv_interval(LinearRegression(), X, y,
                             scoring=make_scorer(ours, greater_is_better=False), **kw)
    assert (neg.estimate, neg.low, neg.high) == (-ref.estimate, -ref.high, -ref.low)


def test_zero_one_loss_mirrors_accuracy():
    X, y = _classification()
    kw = dict(cv=4, n_repeats=2, random_state=0)
    acc = nested_cv_interval(LogisticRegression(), X, y, scoring="accuracy", **kw)
    err = nested_cv_interval(LogisticRegression(), X, y, scoring="zero_one_loss", **kw)
    np.testing.assert_allclose(err.estimate, 1 - acc.estimate, rtol=1e-12)
    np.testing.assert_allclose(err.standard_error, acc.standard_error, rtol=1e-12)
    np.testing.assert_allclose(err.bias, -acc.bias, rtol=1e-12, atol=1e-15)


def test_a_class_missing_from_a_training_set_gets_probability_zero():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.array([0] * 14 + [1] * 14 + [2] * 2)  # class 2 in two folds at most
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the rare class in stratified folds
        res = nested_cv_interval(DecisionTreeClassifier(random_state=0), X, y,
                                 scoring="neg_brier_score", cv=3, n_repeats=2, random_state=0)
    assert np.isfinite(res.estimate) and res.low < res.high


def test_groups_keep_groups_whole_and_use_cluster_variance():
    import statsmodels.api as sm

    X, y = _regression(n=48, seed=2)
    groups = np.repeat(np.arange(16), 3)
    res = nested_cv_interval(LinearRegression(), X, y, scoring="mean_squared_error", cv=4,
                             n_repeats=3, groups=groups, random_state=0)
    for ids in res.fold_ids:
        assert all(np.unique(ids[groups == g]).size == 1 for g in range(16))
    values = np.random.default_rng(0).normal(size=12)
    codes = np.repeat([5, 9, 2, 7], 3)
    fit = sm.OLS(values, np.ones(12)).fit(cov_type="cluster", cov_kwds={"groups": codes})
    np.testing.assert_allclose(_nested._mean_variance(values, codes), fit.cov_params()[0, 0],
                               rtol=1e-12)
    np.testing.assert_allclose(_nested._mean_variance(values, np.arange(12)),
                               np.var(values, ddof=1) / 12, rtol=1e-12)


def test_a_group_splitter_is_used_as_given():
    from sklearn.model_selection import GroupKFold

    X, y = _regression(n=36)
    groups = np.repeat(np.arange(12), 3)
    res = nested_cv_interval(LinearRegression(), X, y, scoring="mean_squared_error",
                             cv=GroupKFold(3, shuffle=True), n_repeats=2, groups=groups,
                             random_state=0)
    assert res.n_splits == 3
    for ids in res.fold_ids:
        assert all(np.unique(ids[groups == g]).size == 1 for g in range(12))


def test_perfect_predictions_give_a_zero_width_interval_with_a_warning():
    X = np.r_[np.linspace(-2, -1, 10), np.linspace(1, 2, 10)][:, None]
    y = (X[:, 0] > 0).astype(int)
    with pytest.warns(IntervalWarning, match="zero width"):
        res = nested_cv_interval(DecisionTreeClassifier(), X, y, scoring="accuracy", cv=4,
                                 n_repeats=2, random_state=0)
    assert res.low == res.high == res.estimate == 1.0


@pytest.mark.parametrize(("scoring", "match"), [
    ("no_such_metric", "neither a scorer name"),
    ("adjusted_rand_score", "is not a metric dartboard knows"),
])
def test_unknown_scorings_are_refused(scoring, match):
    X, y = _classification()
    with pytest.raises(ValueError, match=match):
        nested_cv_interval(LogisticRegression(), X, y, scoring=scoring, cv=3, n_repeats=1)


def test_user_callable_without_spec_is_refused():
    def my_loss(y_true, y_pred):
        return float(np.mean(np.abs(y_true - y_pred)))

    X, y = _regression()
    with pytest.raises(ValueError, match="'my_loss' is not a metric dartboard knows"):
        nested_cv_interval(LinearRegression(), X, y, scoring=my_loss, cv=3, n_repeats=1)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    (dict(cv=2), ValueError, "cv must be at least 3"),
    (dict(cv=KFold(4)), ValueError, "cv must shuffle"),
    (dict(cv="five"), TypeError, "cv must be a number of folds"),
    (dict(n_repeats=0), ValueError, "n_repeats must be at least 1"),
    (dict(confidence_level=1.0), ValueError, "confidence_level"),
    (dict(groups=[1, 2]), ValueError, "groups must be one label per sample"),
    (dict(cv=20), ValueError, "cv=20 folds need at least 40 samples"),
    (dict(groups=np.repeat(np.arange(5), 6)), ValueError, "need at least 6 groups"),
    (dict(scoring="neg_log_loss"), TypeError, "needs the estimator's predict_proba"),
])
def test_bad_input(kwargs, error, match):
    X, y = _regression(n=30)
    args = {"scoring": "mean_squared_error", "cv": 3, "n_repeats": 1, **kwargs}
    with pytest.raises(error, match=match):
        nested_cv_interval(LinearRegression(), X, y, **args)


def test_bad_estimator_and_targets():
    X, y = _regression(n=30)
    with pytest.raises(TypeError, match="estimator must be a scikit-learn estimator"):
        nested_cv_interval(object(), X, y, scoring="mean_squared_error")
    with pytest.raises(ValueError, match="y must be one-dimensional"):
        nested_cv_interval(LinearRegression(), X, np.c_[y, y], scoring="mean_squared_error")
    with pytest.raises(ValueError, match="passes \\['normalize'\\]"):
        from dartboard.metrics import make_scorer, zero_one_loss

        Xc, yc = _classification()
        nested_cv_interval(LogisticRegression(), Xc, yc, cv=3, n_repeats=1,
                           scoring=make_scorer(zero_one_loss, normalize=False))


def test_inputs_are_not_modified():
    X, y = _regression(n=30)
    X0, y0 = X.copy(), y.copy()
    nested_cv_interval(LinearRegression(), X, y, scoring="mean_squared_error", cv=3,
                       n_repeats=1, random_state=0)
    assert np.array_equal(X, X0) and np.array_equal(y, y0)


def test_dataframe_input_equals_array_input():
    import pandas as pd

    X, y = _regression(n=30)
    kw = dict(scoring="mean_squared_error", cv=3, n_repeats=2, random_state=0)
    a = nested_cv_interval(LinearRegression(), X, y, **kw)
    b = nested_cv_interval(LinearRegression(), pd.DataFrame(X), pd.Series(y), **kw)
    # a DataFrame reaches LAPACK in column order: equal up to the last bits of the fits
    np.testing.assert_allclose([a.estimate, a.low, a.high], [b.estimate, b.low, b.high],
                               rtol=1e-10)
    assert np.array_equal(a.fold_ids, b.fold_ids)


def test_cv_interval_says_when_it_undercovers():
    doc = " ".join(dartboard.cv_interval.__doc__.split())
    assert "When it undercovers" in doc and "correlated" in doc
    assert "nested_cv_interval" in doc and "benchmarks/nested_cv_coverage.py" in doc


# mlr3inferr's MeasureCiNestedCV (R/MeasureCiNestedCV.R, private .ci) aggregates the
# per-point losses of its ResamplingNestedCV, re-typed here with data.table: b by outer
# fold, a from the inner and outer means, mse rescaled by (K-1)/K, the bounds from the
# inner losses' sd, the (1 + (K-2)/K) bias correction and qnorm.
_MLR3INFERR_CI = r"""
suppressMessages(library(data.table))
args <- commandArgs(trailingOnly = TRUE)
tbl <- fread(args[1])
folds <- as.integer(args[2]); n <- as.integer(args[3]); alpha <- as.numeric(args[4])
tbl_outer <- tbl[is.na(inner)]
tbl_inner <- tbl[!is.na(inner)]
b_list <- tbl_outer[, list(b = var(loss) / .N), by = c("rep", "outer")][["b"]]
m_out <- tbl_outer[, list(avg_outer = mean(loss)), by = c("rep", "outer")]
m_in <- tbl_inner[, list(avg_inner = mean(loss)), by = c("rep", "outer")]
j <- merge(m_out, m_in, by = c("rep", "outer"))
a_list <- j[, list(a = (avg_inner - avg_outer)^2)][["a"]]
err_ncv <- mean(tbl_inner$loss)
mse <- mean(a_list - b_list)
err_cv <- mean(tbl_outer$loss)
mse <- (folds - 1) / folds * mse
se_low <- sd(tbl_inner$loss) / sqrt(n)
se <- max(se_low, min(sqrt(max(0, mse)), se_low * sqrt(folds)))
s <- qnorm(1 - alpha / 2) * se
bias <- (1 + (folds - 2) / folds) * (err_ncv - err_cv)
cat(sprintf("%.17g", c(err_ncv - bias, err_ncv - bias - s, err_ncv - bias + s)), sep = "\n")
"""


def test_aggregation_matches_mlr3inferr_in_r(tmp_path):
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript is not installed")
    probe = subprocess.run(["Rscript", "-e", "library(data.table)"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("R's data.table is not installed")
    X, y = _regression(n=30, seed=9)
    res = nested_cv_interval(LinearRegression(), X, y, scoring="mean_squared_error", cv=5,
                             n_repeats=3, random_state=4, confidence_level=0.9)
    rows = []
    plan_loss = _nested._loss_iv("mean_squared_error", y)
    for r, ids in enumerate(res.fold_ids):
        outer, inner, *_ = _nested._repeat_losses(ids, estimator=LinearRegression(), X=X, y=y,
                                              y_arr=y, loss=plan_loss, n_splits=5)
        for i in range(30):
            rows.append((r, ids[i], "NA", outer[i]))
            for k in range(5):
                if k != ids[i]:
                    rows.append((r, k, ids[i], inner[i, k]))
    path = tmp_path / "losses.csv"
    path.write_text("rep,outer,inner,loss\n" + "".join(
        f"{r},{o},{i},{float(v)!r}\n" for r, o, i, v in rows))
    run = subprocess.run(["Rscript", "-e", _MLR3INFERR_CI, str(path), "5", "30", "0.1"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    centre, low, high = (float(v) for v in run.stdout.split())
    np.testing.assert_allclose([res.estimate - res.bias, res.low, res.high],
                               [centre, low, high], rtol=1e-12)


# ------------------------------------------------------------ any scorer of the registry

def _binary(n=40, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] + rng.normal(size=n) > 0).astype(int)


@pytest.mark.parametrize("scoring", ["roc_auc", "average_precision", "f1", "neg_log_loss",
                                     "neg_brier_score", "matthews_corrcoef", "roc_auc_ovr"])
def test_fold_scores_are_scikit_learns_scorer_on_the_same_folds(scoring):
    X, y = _binary()
    res = nested_cv_interval(LogisticRegression(), X, y, scoring=scoring, cv=4, n_repeats=2,
                             random_state=0)
    for r, ids in enumerate(res.fold_ids):
        ref = cross_val_score(LogisticRegression(), X, y, cv=PredefinedSplit(ids),
                              scoring=scoring)
        np.testing.assert_allclose(res.fold_scores[r], ref, rtol=1e-12, atol=1e-15)
    sizes = np.stack([np.bincount(ids) for ids in res.fold_ids])
    assert np.isclose(res.estimate, np.sum(sizes * res.fold_scores) / sizes.sum())
    assert res.low < res.high and res.scoring == scoring


@pytest.mark.parametrize("scoring", ["r2", "neg_root_mean_squared_error",
                                     "neg_median_absolute_error"])
def test_regression_scores_that_are_not_means(scoring):
    X, y = _regression(n=30)
    res = nested_cv_interval(LinearRegression(), X, y, scoring=scoring, cv=3, n_repeats=2,
                             random_state=1)
    for r, ids in enumerate(res.fold_ids):
        ref = cross_val_score(LinearRegression(), X, y, cv=PredefinedSplit(ids),
                              scoring=scoring)
        np.testing.assert_allclose(res.fold_scores[r], ref, rtol=1e-12)
    assert res.low <= res.high


def _slow_auc_variance(y, scores):
    """The unbiased variance of the AUC of a fold, pair of pairs by pair of pairs:
    theta^2 minus the mean of psi_ij psi_kl over positives i != k, negatives j != l."""
    pos, neg = scores[y == 1], scores[y == 0]

    def psi(a, b):
        return 1.0 if a > b else 0.5 if a == b else 0.0

    theta = np.mean([psi(a, b) for a in pos for b in neg])
    products = [psi(pos[i], neg[j]) * psi(pos[k], neg[h])
                for i in range(len(pos)) for k in range(len(pos)) if k != i
                for j in range(len(neg)) for h in range(len(neg)) if h != j]
    return theta * theta - np.mean(products)


def _jackknife_algorithm(estimator, X, y, fold_ids, metric, level, auc=False):
    """The nested CV interval of a metric that is not a mean, loop by loop: fold values
    by the metric, each outer fold's variance by the jackknife (the metric recomputed
    without each point), the inner estimate the size-weighted mean of the inner folds'
    values, sigma from the outer pseudo-values; the ends clipped to [0, 1]. With
    ``auc`` (a binary ROC AUC): each outer fold's variance the unbiased one of
    :func:`_slow_auc_variance`, the lower bound sqrt(mean b / K), the ends
    expit(logit(centre) -+ z se / (centre (1 - centre)))."""
    from sklearn.base import clone

    n, k = y.shape[0], int(fold_ids.max()) + 1

    def score(train, test):
        model = clone(estimator).fit(X[train], y[train])
        return metric(y[test], model.predict_proba(X[test])[:, 1]), \
            model.predict_proba(X[test])[:, 1]

    a_list, b_list, pseudo, inner_sum, inner_w, err_cv = [], [], [], 0.0, 0.0, []
    for ids in fold_ids:
        rep_sum = 0.0
        for out in range(k):
            test = ids == out
            m = int(test.sum())
            value, pred = score(~test, test)
            left = np.array([metric(np.delete(y[test], i), np.delete(pred, i))
                             for i in range(m)])
            psi = m * value - (m - 1) * left
            b_list.append(_slow_auc_variance(y[test], pred) if auc
                          else np.var(psi, ddof=1) / m)
            pseudo.extend(psi)
            rep_sum += m * value
            num = den = 0.0
            for inn in range(k):
                if inn != out:
                    v, _ = score((ids != out) & (ids != inn), ids == inn)
                    num += (ids == inn).sum() * v
                    den += (ids == inn).sum()
            a_list.append((num / den - value) ** 2)
            inner_sum += num
            inner_w += den
        err_cv.append(rep_sum / n)
    mse = np.mean(a_list) - np.mean(b_list)
    err_ncv, err_cv = inner_sum / inner_w, np.mean(err_cv)
    se_low = np.sqrt(np.mean(b_list) / k) if auc else np.std(pseudo, ddof=1) / np.sqrt(n)
    se = max(se_low, min(np.sqrt(max(0.0, (k - 1) / k * mse)), np.sqrt(k) * se_low))
    centre = err_ncv - (1 + (k - 2) / k) * (err_ncv - err_cv)
    z = special.ndtri(0.5 + level / 2)
    if auc:
        logit, half = np.log(centre / (1 - centre)), z * se / (centre * (1 - centre))
        return err_cv, centre, 1 / (1 + np.exp(-(logit - half))), \
            1 / (1 + np.exp(-(logit + half))), se
    return err_cv, centre, max(0.0, centre - z * se), min(1.0, centre + z * se), se


@pytest.mark.parametrize("scoring", ["roc_auc", "average_precision"])
def test_roc_auc_matches_a_plain_loop_with_scikit_learns_metric(scoring):
    from sklearn import metrics

    X, y = _binary(n=32, seed=5)
    res = nested_cv_interval(LogisticRegression(), X, y, scoring=scoring, cv=4, n_repeats=2,
                             random_state=2, confidence_level=0.9)
    metric = {"roc_auc": metrics.roc_auc_score,
              "average_precision": metrics.average_precision_score}[scoring]
    est, centre, low, high, se = _jackknife_algorithm(LogisticRegression(), X, y,
                                                      res.fold_ids, metric, 0.9,
                                                      auc=scoring == "roc_auc")
    np.testing.assert_allclose([res.estimate, res.estimate - res.bias, res.low, res.high,
                                res.standard_error], [est, centre, low, high, se],
                               rtol=1e-10)


@pytest.mark.parametrize(("name", "kind"), [
    ("roc_auc_score", "score"), ("average_precision_score", "score"),
    ("f1_score", "label"), ("matthews_corrcoef", "label"), ("balanced_accuracy_score", "label"),
    ("r2_score", "value"), ("median_absolute_error", "value")])
def test_leave_one_out_values_equal_a_loop_of_scikit_learns_metric(name, kind):
    from sklearn import metrics

    from dartboard.metrics._registry import get_spec

    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 15) if kind != "value" else rng.normal(size=15)
    other = {"score": rng.random(15).round(1), "label": rng.integers(0, 2, 15),
             "value": rng.normal(size=15)}[kind]
    got = _nested._leave_one_out(get_spec(name), y, other, {})
    ref = [getattr(metrics, name)(np.delete(y, i), np.delete(other, i)) for i in range(15)]
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)


def test_roc_auc_with_groups_keeps_groups_whole():
    X, y = _binary(n=48, seed=4)
    groups = np.repeat(np.arange(16), 3)
    res = nested_cv_interval(LogisticRegression(), X, y, scoring="roc_auc", cv=4,
                             n_repeats=2, groups=groups, random_state=0)
    for ids, scores in zip(res.fold_ids, res.fold_scores):
        assert all(np.unique(ids[groups == g]).size == 1 for g in range(16))
        ref = cross_val_score(LogisticRegression(), X, y, cv=PredefinedSplit(ids),
                              scoring="roc_auc")
        np.testing.assert_allclose(scores, ref, rtol=1e-12)
    assert 0.0 <= res.low < res.high <= 1.0


def test_a_fold_where_the_jackknife_is_undefined_is_refused():
    # one positive per fold: without it the fold's AUC is undefined
    X, y = _binary(n=40, seed=1)
    y = np.zeros(40, dtype=int)
    y[:4] = 1
    with pytest.raises(ValueError, match="undefined on a test fold of 10 samples without one"):
        nested_cv_interval(LogisticRegression(), X, y, scoring="roc_auc", cv=4, n_repeats=1,
                           random_state=0)


@pytest.mark.parametrize("seed", range(6))
def test_auc_variance_equals_the_pair_of_pairs_loop(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(4, 16))
    y = np.r_[1, 1, 0, 0, rng.integers(0, 2, m)]
    scores = rng.random(y.shape[0]).round(int(rng.integers(1, 3)))  # ties within and across
    from sklearn.metrics import roc_auc_score

    theta, variance = _nested._auc_variance(y == 1, scores)
    assert theta == pytest.approx(roc_auc_score(y, scores), abs=1e-14)
    assert variance == pytest.approx(_slow_auc_variance(y, scores), abs=1e-14)


def test_auc_variance_is_unbiased_by_exact_enumeration():
    # 3 positives and 2 negatives drawn from small discrete score laws (ties included):
    # the mean of V over every sample, weighted by its probability, is Var(theta_hat)
    import itertools

    pos_values, pos_probs = np.array([0.0, 1.0, 2.0]), np.array([0.2, 0.5, 0.3])
    neg_values, neg_probs = np.array([0.0, 1.0]), np.array([0.6, 0.4])
    thetas, variances, weights = [], [], []
    for pi in itertools.product(range(3), repeat=3):
        for ni in itertools.product(range(2), repeat=2):
            scores = np.r_[pos_values[list(pi)], neg_values[list(ni)]]
            theta, v = _nested._auc_variance(np.r_[True, True, True, False, False], scores)
            thetas.append(theta)
            variances.append(v)
            weights.append(np.prod(pos_probs[list(pi)]) * np.prod(neg_probs[list(ni)]))
    w, t = np.array(weights), np.array(thetas)
    assert w.sum() == pytest.approx(1.0)
    exact = float(np.dot(w, t ** 2) - np.dot(w, t) ** 2)
    assert float(np.dot(w, variances)) == pytest.approx(exact, rel=1e-12)
    # the jackknife variance of the same folds runs above it (Efron-Stein)
    def auc(y, scores):
        return np.mean([(a > b) + 0.5 * (a == b) for a in scores[y == 1] for b in scores[y == 0]])

    y = np.r_[1, 1, 1, 0, 0]
    jack = []
    for pi in itertools.product(range(3), repeat=3):
        for ni in itertools.product(range(2), repeat=2):
            scores = np.r_[pos_values[list(pi)], neg_values[list(ni)]]
            left = np.array([auc(np.delete(y, i), np.delete(scores, i)) for i in range(5)])
            jack.append(np.var(5 * auc(y, scores) - 4 * left, ddof=1) / 5)
    assert float(np.dot(w, jack)) > 1.1 * exact


def test_auc_variance_needs_two_of_each_class():
    assert np.isnan(_nested._auc_variance(np.array([True, False, False]),
                                          np.array([0.3, 0.1, 0.2]))[1])


def test_roc_auc_interval_is_on_the_logit_scale_and_inside_0_1():
    X, y = _binary(n=40, seed=3)
    res = nested_cv_interval(LogisticRegression(), X, y, scoring="roc_auc", cv=4,
                             n_repeats=3, random_state=1, confidence_level=0.95)
    centre = res.estimate - res.bias
    assert res.scale == "logit"
    half = special.ndtri(0.975) * res.standard_error / (centre * (1 - centre))
    np.testing.assert_allclose([res.low, res.high],
                               special.expit(special.logit(centre) + np.array([-half, half])),
                               rtol=1e-12)
    assert 0.0 < res.low < centre < res.high < 1.0
    # a very wide one stays inside too (no clipping needed)
    wide = nested_cv_interval(LogisticRegression(), X, y, scoring="roc_auc", cv=4,
                              n_repeats=3, random_state=1, confidence_level=0.9999999)
    assert 0.0 < wide.low < res.low and res.high < wide.high < 1.0


def test_roc_auc_of_perfect_scores_is_a_zero_width_interval_at_1():
    X = np.r_[np.linspace(-2, -1, 12), np.linspace(1, 2, 12)][:, None]
    y = (X[:, 0] > 0).astype(int)
    with pytest.warns(IntervalWarning, match="zero width"):
        res = nested_cv_interval(LogisticRegression(), X, y, scoring="roc_auc", cv=3,
                                 n_repeats=2, random_state=0)
    assert res.low == res.high == res.estimate == 1.0 and res.scale == "linear"


def test_roc_auc_same_seed_same_bits():
    X, y = _binary(n=40, seed=2)
    kw = dict(scoring="roc_auc", cv=4, n_repeats=3, random_state=5)
    one = nested_cv_interval(LogisticRegression(), X, y, **kw)
    again = nested_cv_interval(LogisticRegression(), X, y, **kw)
    for name in ("estimate", "low", "high", "standard_error", "mse", "nested_estimate",
                 "bias", "naive_low", "naive_high"):
        assert getattr(again, name) == getattr(one, name), name
    assert np.array_equal(again.fold_scores, one.fold_scores)


@pytest.mark.parametrize("scoring", ["average_precision", "neg_log_loss", "accuracy"])
def test_other_scorings_stay_on_the_linear_scale(scoring):
    X, y = _binary(n=40, seed=3)
    res = nested_cv_interval(LogisticRegression(), X, y, scoring=scoring, cv=4,
                             n_repeats=2, random_state=1)
    assert res.scale == "linear"


def test_roc_auc_with_groups_keeps_the_cluster_jackknife():
    X, y = _binary(n=48, seed=4)
    groups = np.repeat(np.arange(16), 3)
    res = nested_cv_interval(LogisticRegression(), X, y, scoring="roc_auc", cv=4,
                             n_repeats=2, groups=groups, random_state=0, confidence_level=0.9)
    centre = res.estimate - res.bias
    z = special.ndtri(0.95)
    assert res.scale == "linear"
    assert res.low == pytest.approx(max(0.0, centre - z * res.standard_error), abs=1e-12)


# ------------------------------------------------------------ predictions the metric refuses

class _Fixed(BaseEstimator):
    """An estimator whose predictions are given: ``kind`` 'strings' (labels as text),
    'nan-one' (a NaN for the first test point), 'nan-all'."""

    def __init__(self, kind="strings"):
        self.kind = kind

    def fit(self, X, y):
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        n = len(X)
        if self.kind == "strings":
            return np.array(["0", "1"])[(np.asarray(X)[:, 0] > 0).astype(int)]
        out = np.full(n, self.mean_)
        if self.kind == "nan-one":
            out[0] = np.nan
        else:
            out[:] = np.nan
        return out


def test_accuracy_of_a_regressor_is_refused_with_the_metrics_error():
    X, y = _classification()
    with pytest.raises(ValueError, match="scoring='accuracy' refuses the estimator's "
                                         "predictions.*continuous values"):
        nested_cv_interval(LinearRegression(), X, y, scoring="accuracy", cv=3, n_repeats=1)


def test_string_predictions_against_number_labels_are_refused():
    X, y = _classification()
    with pytest.raises(ValueError, match="refuses the estimator's predictions.*Mix of label"):
        nested_cv_interval(_Fixed("strings"), X, y, scoring="accuracy", cv=3, n_repeats=1)


@pytest.mark.parametrize("kind", ["nan-one", "nan-all"])
@pytest.mark.parametrize("scoring", ["mean_squared_error", "r2"])
def test_nan_predictions_are_refused(kind, scoring):
    X, y = _regression(n=30)
    with pytest.raises(ValueError, match="refuses the estimator's predictions.*NaN"):
        nested_cv_interval(_Fixed(kind), X, y, scoring=scoring, cv=3, n_repeats=1)


def test_nan_terms_of_an_inner_fold_are_refused():
    X, y = _regression(n=30)
    loss = _nested._loss_iv("mean_squared_error", y)
    model = _Fixed("nan-one").fit(X, y)
    with pytest.raises(ValueError, match="1 non-finite per-sample score"):
        loss.values(model, X[:10], y[:10])


@pytest.mark.parametrize("groups", [
    np.r_[np.nan, np.repeat(np.arange(7), 4)[1:]],
    np.array([None] + list(np.repeat(np.arange(7), 4)[1:]), dtype=object),
    np.array([None] + [f"g{g}" for g in np.repeat(np.arange(7), 4)[1:]], dtype=object)])
def test_missing_group_ids_are_refused(groups):
    X, y = _regression(n=28)
    with pytest.raises(ValueError, match=r"groups contains 1 missing value\(s\)"):
        nested_cv_interval(LinearRegression(), X, y, scoring="mean_squared_error", cv=3,
                           n_repeats=1, groups=groups)


@pytest.mark.parametrize(("n_repeats", "match"), [
    (10**9, r"n_repeats must be at most 100_000_000 .*got 1_000_000_000"),
    (10**7, r"n_repeats x n_samples \(30; the fold of each sample in each repetition is "
            r"kept\) must be at most 100_000_000 .*got 10_000_000 x 30 = 300_000_000")])
def test_absurd_n_repeats_is_refused_up_front_with_the_bound(n_repeats, match):
    import time

    X, y = _regression(n=30)
    start = time.perf_counter()
    with pytest.raises(ValueError, match=match):
        nested_cv_interval(LinearRegression(), X, y, scoring="mean_squared_error",
                           n_repeats=n_repeats)
    assert time.perf_counter() - start < 5  # refused before any fold is drawn
