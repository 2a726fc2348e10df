"""Bootstrap intervals: fast paths against slow oracles and against scipy.stats.bootstrap."""

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

from dartboard import interval
from dartboard._kernels import _bootstrap
from dartboard._kernels._bootstrap import (
    CountGroups,
    Replicates,
    bootstrap_interval,
    count_replicates,
    generic_replicates,
)
from dartboard.metrics import (
    accuracy_score,
    average_precision_score,
    f1_score,
    mean_squared_error,
    pr_auc_score,
    precision_score,
    roc_auc_score,
)
from dartboard.metrics._batched import batch_count_metric
from dartboard.uncertainty import IntervalWarning


def _labels(n, seed, k=2, acc=0.8):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    p = np.where(rng.random(n) < acc, y, rng.integers(0, k, n))
    return y, p


def _scores(n, seed, ties=False):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    s = rng.normal(size=n) + y
    return y, np.round(s, 1) if ties else s


# ------------------------------------------------------------- count fast path vs index

@pytest.mark.parametrize("kwargs, k, weighted", [
    ({}, 2, False), ({"average": "macro"}, 3, False), ({}, 2, True)])
def test_multinomial_path_matches_index_resampling(kwargs, k, weighted):
    y, p = _labels(400, 1, k)
    w = np.random.default_rng(2).choice([0.5, 1.0, 2.0], 400) if weighted else None
    fast = interval(f1_score, y, p, method="bca", n_resamples=3000, random_state=3,
                    sample_weight=w, **kwargs)

    def slow_metric(a, b, **kw):  # a plain callable: forces index resampling
        return f1_score(a, b, **kw)
    slow = interval(slow_metric, y, p, method="bca", n_resamples=3000, random_state=4,
                    sample_weight=w, **kwargs)
    assert fast.estimate == slow.estimate
    ks = stats.ks_2samp(fast.bootstrap_distribution, slow.bootstrap_distribution)
    assert ks.pvalue > 0.01
    assert fast.standard_error == pytest.approx(slow.standard_error, rel=0.1)
    # BCa endpoints agree within Monte-Carlo error (a few percent of a standard error
    # per 1000 resamples; 0.3 se is a wide but meaningful bound)
    assert abs(fast.low - slow.low) < 0.3 * fast.standard_error
    assert abs(fast.high - slow.high) < 0.3 * fast.standard_error


def test_count_jackknife_equals_leave_one_out():
    y, p = _labels(120, 5, 3)
    w = np.random.default_rng(0).choice([1.0, 3.0], 120)
    groups = CountGroups.from_codes(y, p, 3, w)
    kw = {"average": "weighted"}
    fast = count_replicates(lambda m: batch_count_metric("f1_score", np.arange(3), m, kw),
                            groups, 5, False, np.random.default_rng(0), True)
    slow = generic_replicates(lambda i: f1_score(y[i], p[i], sample_weight=w[i], **kw),
                              120, None, np.array([120]), 5, np.random.default_rng(0), True)
    expanded = np.repeat(fast.jackknife, fast.jackknife_weights.astype(int))
    np.testing.assert_allclose(np.sort(expanded), np.sort(slow.jackknife), atol=1e-12)


def test_count_matrices_are_the_resampled_confusion_matrices():
    y, p = _labels(50, 7, 3)
    w = np.random.default_rng(1).choice([1.0, 2.5], 50)
    groups = CountGroups.from_codes(y, p, 3, w)
    full = groups.matrices(groups.size[None, :].astype(float))[0]
    np.testing.assert_allclose(full, skm.confusion_matrix(y, p, sample_weight=w))


def test_stratified_keeps_every_class():
    y = np.array([1] * 3 + [0] * 57)
    p = y.copy()
    p[:1] = 0
    seen = []

    def rows(mats):
        seen.append(mats.sum(axis=2))
        return batch_count_metric("recall_score", np.arange(2), mats, {})
    groups = CountGroups.from_codes(y, p, 2, None)
    count_replicates(rows, groups, 500, True, np.random.default_rng(0), False)
    assert np.all(np.concatenate(seen) == [57, 3])
    # generic path: every resample holds both classes
    minima = []
    with pytest.warns(IntervalWarning, match="degenerate"):
            interval(lambda a, b: minima.append(np.bincount(a, minlength=2).min()) or 0.5, y, p,
                 method="percentile", n_resamples=300, stratified=True, random_state=0)
    assert min(minima) > 0
    # without stratification some resamples lose the 3 positives: dropped with a warning
    with pytest.warns(IntervalWarning, match="undefined on [0-9]+ of 2000"):
        interval(recall_score_plain, y, p, method="percentile", n_resamples=2000,
                 random_state=0)
    iv = interval(recall_score_plain, y, p, method="percentile", n_resamples=2000,
                  random_state=0, stratified=True)
    assert iv.bootstrap_distribution.shape == (2000,)


def recall_score_plain(a, b):
    tp = np.sum((a == 1) & (b == 1))
    pos = np.sum(a == 1)
    return tp / pos if pos else np.nan


# ------------------------------------------------------------- ranking fast path

def _brute_auc(y, s, w=None):
    w = np.ones(len(y)) if w is None else w
    pos, neg = y == 1, y == 0
    x, z = s[pos][:, None], s[neg][None, :]
    pair = w[pos][:, None] * w[neg][None, :]
    return float(np.sum(pair * ((x > z) + 0.5 * (x == z))) / pair.sum())


@pytest.mark.parametrize("metric, oracle", [
    (roc_auc_score, lambda a, b: _brute_auc(a, b)),
    (average_precision_score, lambda a, b: skm.average_precision_score(a, b)),
    (pr_auc_score, lambda a, b: skm.auc(*skm.precision_recall_curve(a, b)[1::-1]))])
def test_ranking_path_matches_index_resampling(metric, oracle):
    y, s = _scores(300, 2, ties=True)
    fast = interval(metric, y, s, method="bca", n_resamples=1500, random_state=10)
    slow = interval(oracle, y, s, method="bca", n_resamples=1500, random_state=11)
    assert fast.estimate == pytest.approx(slow.estimate, abs=1e-12)
    assert stats.ks_2samp(fast.bootstrap_distribution,
                          slow.bootstrap_distribution).pvalue > 0.01
    assert abs(fast.low - slow.low) < 0.3 * fast.standard_error
    assert abs(fast.high - slow.high) < 0.3 * fast.standard_error


def test_ranking_stratified_keeps_both_classes():
    y = np.array([1, 1] + [0] * 28)
    s = np.random.default_rng(0).random(30) + 0.3 * y
    with pytest.warns(IntervalWarning, match="undefined on"):
        interval(roc_auc_score, y, s, method="percentile", n_resamples=2000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IntervalWarning)
        iv = interval(roc_auc_score, y, s, method="percentile", n_resamples=500,
                      stratified=True, random_state=0)
    assert iv.bootstrap_distribution.shape == (500,)


# ------------------------------------------------------------- against scipy.stats.bootstrap

def _acc(a, b):
    return float(np.mean(a == b))


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_same_formulas_as_scipy_on_the_same_distribution(method):
    y, p = _labels(150, 11, 3, acc=0.7)
    res = stats.bootstrap((y, p), _acc, paired=True, vectorized=False, n_resamples=999,
                          method=method, random_state=0)
    jack = generic_replicates(lambda i: _acc(y[i], p[i]), 150, None, np.array([150]), 1,
                              np.random.default_rng(0), True).jackknife
    low, high, se, used, _ = bootstrap_interval(
        _acc(y, p), Replicates(res.bootstrap_distribution, jack), 0.95, method)
    assert used == method
    assert (low, high) == pytest.approx(tuple(res.confidence_interval), abs=1e-12)
    assert se == pytest.approx(res.standard_error, rel=1e-12)


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_agrees_with_scipy_within_monte_carlo_error(method):
    y, p = _labels(200, 12, 2, acc=0.75)
    def f1_vectorised(a, b, axis=-1):  # scipy's batched form of F1 = 2TP / (2TP + FP + FN)
        tp = np.sum((a == 1) & (b == 1), axis=axis)
        wrong = np.sum(a != b, axis=axis)
        return 2 * tp / (2 * tp + wrong)
    assert f1_vectorised(y, p) == pytest.approx(skm.f1_score(y, p))
    ref = stats.bootstrap((y, p), f1_vectorised, paired=True, n_resamples=2000,
                          method=method, random_state=0)
    iv = interval(f1_score, y, p, method=method, n_resamples=2000, random_state=1)
    assert iv.method == method
    tol = 0.3 * ref.standard_error
    assert abs(iv.low - ref.confidence_interval.low) < tol
    assert abs(iv.high - ref.confidence_interval.high) < tol
    assert iv.standard_error == pytest.approx(ref.standard_error, rel=0.1)


# ------------------------------------------------------------- degenerate cases

def test_all_replicates_equal():
    y = np.array([0, 1, 1, 0, 1] * 10)
    with pytest.warns(IntervalWarning, match="degenerate"):
        iv = interval(accuracy_score, y, y, method="bca", n_resamples=200, random_state=0)
    assert iv.low == iv.high == iv.estimate == 1.0 and iv.method == "percentile"


def test_bca_falls_back_when_jackknife_is_flat():
    b = np.array([0] * 45 + [1] * 55)

    def above_half(a, o):
        return float(np.mean(o) > 0.5)
    with pytest.warns(IntervalWarning, match="jackknife values are all equal"):
        iv = interval(above_half, b, b, method="bca", n_resamples=500, random_state=0)
    assert iv.method == "percentile" and (iv.low, iv.high) == (0.0, 1.0)


def test_all_nan_replicates_raise_and_warnings_are_summarised():
    y, p = _labels(30, 0)
    with pytest.raises(ValueError, match="undefined"):
        interval(lambda a, b: np.nan, y, p, method="percentile", n_resamples=10)

    def noisy(a, b):
        warnings.warn("careful", UserWarning, stacklevel=2)
        return _acc(a, b)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        interval(noisy, y, p, method="percentile", n_resamples=20, random_state=0)
    summaries = [r for r in rec if issubclass(r.category, IntervalWarning)]
    assert len(summaries) == 1  # one summary, not 20 repeats
    assert "warned on 20 bootstrap or jackknife evaluations" in str(summaries[0].message)
    assert "UserWarning: careful" in str(summaries[0].message)


def test_metric_raising_on_a_subset_drops_it_like_an_undefined_one():
    # One sample of class 2: resamples without it (and its leave-one-out jackknife
    # value) make multiclass ROC AUC raise ValueError; they are undefined, not fatal.
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 40)
    y[0] = 2
    proba = rng.dirichlet([1, 1, 1], 40)
    for stratified in (False, True):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            iv = interval(roc_auc_score, y, proba, multi_class="ovr", method="bca",
                          n_resamples=200, random_state=0, stratified=stratified)
        messages = " | ".join(str(r.message) for r in rec)
        assert "raised ValueError on" in messages or "leave-one-out" in messages
        # stratified resamples keep the class: only its leave-one-out value is dropped
        assert ("undefined on" in messages) is not stratified
        assert iv.estimate == pytest.approx(skm.roc_auc_score(y, proba, multi_class="ovr"))
        assert iv.low < iv.estimate < iv.high
    # one sample: every replicate is that sample, BCa falls back to percentile
    with pytest.warns(IntervalWarning, match="degenerate"):
        iv = interval(mean_squared_error, [1.0], [0.8], n_resamples=20, random_state=0)
    assert iv.method == "percentile" and iv.low == iv.high == pytest.approx(0.04)

def test_undefined_replicates_use_numeric_zero_division():
    y = np.array([1] + [0] * 19)
    p = np.array([1, 1] + [0] * 18)
    with pytest.warns(IntervalWarning, match="undefined on"):
        interval(precision_score, y, p, method="percentile", n_resamples=500, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IntervalWarning)
        iv = interval(precision_score, y, p, method="percentile", n_resamples=500,
                      random_state=0, zero_division=0.0)
    assert iv.bootstrap_distribution.shape == (500,) and iv.low == 0.0


# ------------------------------------------------------------- determinism and memory

@pytest.mark.parametrize("metric", [f1_score, roc_auc_score, _acc])
def test_same_seed_same_interval(metric):
    y, s = _scores(200, 3)
    other = s if metric is roc_auc_score else (s > 0.5).astype(int)
    a = interval(metric, y, other, method="bca", n_resamples=300, random_state=42)
    b = interval(metric, y, other, method="bca", n_resamples=300,
                 random_state=np.random.default_rng(42))
    c = interval(metric, y, other, method="bca", n_resamples=300, random_state=43)
    assert (a.low, a.high) == (b.low, b.high)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    assert not np.array_equal(a.bootstrap_distribution, c.bootstrap_distribution)


def test_index_batches_stay_within_budget(monkeypatch):
    y, p = _labels(1000, 0)
    shapes = []
    real = _bootstrap.draw_indices

    def spy(rng, size, strata):
        out = real(rng, size, strata)
        shapes.append(out.nbytes)
        return out
    monkeypatch.setattr(_bootstrap, "BATCH_BYTES", 8 * 1000 * 7)
    monkeypatch.setattr(_bootstrap, "draw_indices", spy)
    iv = interval(_acc, y, p, method="percentile", n_resamples=50, random_state=0)
    assert max(shapes) <= 8 * 1000 * 7 and len(shapes) == 8
    assert iv.bootstrap_distribution.shape == (50,)


# ------------------------------------------------------------- bad input

def test_bad_input():
    y, p = _labels(20, 0)
    with pytest.raises(ValueError, match="confidence_level must be strictly between"):
        interval(f1_score, y, p, confidence_level=1.0)
    with pytest.raises(ValueError, match="confidence_level must be strictly between"):
        interval(f1_score, y, p, confidence_level=0)
    with pytest.raises(ValueError, match="n_resamples must be at least 1"):
        interval(f1_score, y, p, n_resamples=0)
    with pytest.raises(TypeError, match="n_resamples must be an integer"):
        interval(f1_score, y, p, n_resamples=10.5)
    with pytest.raises(ValueError, match="method must be one of"):
        interval(f1_score, y, p, method="studentized")
    with pytest.raises(TypeError, match="metric must be a metric name or a callable"):
        interval(3, y, p)
    with pytest.raises(TypeError, match="stratified must be True or False"):
        interval(f1_score, y, p, stratified="yes")
    with pytest.raises(TypeError, match="must return a single number"):
        interval(lambda a, b: np.array([1.0, 2.0]), y, p, method="percentile")
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        interval(f1_score, y, p[:-1])
    with pytest.raises(TypeError, match="f1_score must return a single number"):
        interval(f1_score, y, p, average=None, method="percentile", n_resamples=5)
