"""permutation_test and compare_models: hand-checked p-values, scipy equality, sampler oracles."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import dartboard as db
from dartboard.compare._permutation import MAX_EXACT_PAIRS
from dartboard.families._paired import PairedCounts, batch_auc
from dartboard.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    cohen_kappa_score,
    f1_score,
    matthews_corrcoef,
    precision_score,
    recall_score,
)
from dartboard.metrics._confusion import UndefinedMetricWarning
from dartboard.uncertainty import IntervalWarning

ALTS = ("two-sided", "greater", "less")
# Level of the two-sample KS checks of sampler against oracle (fixed seeds, so the
# outcome is deterministic; with a dozen such checks a family-wise false alarm
# rate of about 1% if the samplers agree).
KS_LEVEL = 0.001


def _scipy_exact(a, b, alternative):
    return stats.permutation_test(
        (np.asarray(a, float), np.asarray(b, float)),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples", alternative=alternative, n_resamples=np.inf).pvalue


# ---------------------------------------------------------------- exact, by hand

def test_exact_n3_by_hand():
    # d = a - b = (1, 2, 4); observed mean 7/3. All 2^3 sign flips:
    a, b = [1.0, 2.0, 4.0], [0.0, 0.0, 0.0]
    flips = [(+1, +1, +1), (-1, +1, +1), (+1, -1, +1), (-1, -1, +1),
             (+1, +1, -1), (-1, +1, -1), (+1, -1, -1), (-1, -1, -1)]
    means = sorted((s1 * 1 + s2 * 2 + s3 * 4) / 3 for s1, s2, s3 in flips)
    assert means == pytest.approx([-7 / 3, -5 / 3, -1, -1 / 3, 1 / 3, 1, 5 / 3, 7 / 3])
    res = db.permutation_test(a, b)
    assert res.exact and res.n_resamples == 8
    assert np.sort(res.null_distribution) == pytest.approx(means)
    assert res.statistic == pytest.approx(7 / 3)
    assert res.pvalue == pytest.approx(2 / 8)          # +-7/3
    assert db.permutation_test(a, b, alternative="greater").pvalue == pytest.approx(1 / 8)
    assert db.permutation_test(a, b, alternative="less").pvalue == pytest.approx(8 / 8)
    assert not res.significant(0.05) and res.significant(0.3)


def test_exact_n4_by_hand_with_ties():
    # d = (1, 1, 2, -1): observed mean 3/4. All 16 flips listed with their sums.
    a, b = [3.0, 2.0, 5.0, 0.0], [2.0, 1.0, 3.0, 1.0]
    d = (1, 1, 2, -1)
    flips = [(s1, s2, s3, s4) for s1 in (1, -1) for s2 in (1, -1)
             for s3 in (1, -1) for s4 in (1, -1)]
    assert len(flips) == 16
    sums = [sum(s * x for s, x in zip(f, d)) for f in flips]
    # sums: 3,5,-1,1,1,3,-3,-1,1,3,-3,-1,-1,1,-5,-3 -> |sum| >= 3: 3,5,3,-3,3,-3,-5,-3
    assert sorted(sums) == [-5, -3, -3, -3, -1, -1, -1, -1, 1, 1, 1, 1, 3, 3, 3, 5]
    res = db.permutation_test(a, b)
    assert res.statistic == pytest.approx(0.75)
    assert res.pvalue == pytest.approx(8 / 16)
    assert db.permutation_test(a, b, alternative="greater").pvalue == pytest.approx(4 / 16)
    assert db.permutation_test(a, b, alternative="less").pvalue == pytest.approx(15 / 16)
    assert np.sort(res.null_distribution) == pytest.approx(np.sort(sums) / 4)


@pytest.mark.parametrize("alternative", ALTS)
@pytest.mark.parametrize("n", [2, 5, 9, 12])
def test_exact_equals_scipy(n, alternative):
    rng = np.random.default_rng(n)
    a = rng.normal(size=n)
    b = a + rng.normal(0.3, 1.0, size=n)
    res = db.permutation_test(a, b, alternative=alternative)
    assert res.exact
    assert res.pvalue == pytest.approx(_scipy_exact(a, b, alternative), rel=1e-12)


def test_exact_float_ties_use_tolerance():
    # 0.1 + 0.2 vs 0.3 differ in the last bit; as in scipy they are ties.
    a, b = [0.1, 0.2, 0.3], [0.0, 0.0, 0.0]
    for alt in ALTS:
        assert db.permutation_test(a, b, alternative=alt).pvalue == pytest.approx(
            _scipy_exact(a, b, alt))


def test_exact_chunked_enumeration_equals_scipy():
    # 2^17 flips span several chunks of the bit matrix
    rng = np.random.default_rng(7)
    a, b = rng.normal(size=17), rng.normal(size=17)
    res = db.permutation_test(a, b)
    assert res.n_resamples == 2 ** 17
    assert res.pvalue == pytest.approx(_scipy_exact(a, b, "two-sided"), rel=1e-12)


def test_exact_bound_switches_to_monte_carlo():
    rng = np.random.default_rng(1)
    n = MAX_EXACT_PAIRS + 1
    res = db.permutation_test(rng.normal(size=n), rng.normal(size=n), random_state=0,
                              n_resamples=999)
    assert not res.exact and res.n_resamples == 999
    assert db.permutation_test(rng.normal(size=MAX_EXACT_PAIRS),
                               rng.normal(size=MAX_EXACT_PAIRS)).exact


# ---------------------------------------------------------------- Monte Carlo

@pytest.mark.parametrize("alternative", ALTS)
def test_monte_carlo_within_error_of_exact(alternative):
    rng = np.random.default_rng(3)
    a = rng.normal(size=14)
    b = a - rng.normal(0.4, 1.0, size=14)
    exact = db.permutation_test(a, b, alternative=alternative).pvalue
    r = 20000
    mc = db.permutation_test(a, b, alternative=alternative, exact=False, n_resamples=r,
                             random_state=11)
    assert not mc.exact
    err = np.sqrt(exact * (1 - exact) / r)
    assert abs(mc.pvalue - exact) <= 4 * err + 2 / r


def test_monte_carlo_p_never_zero_and_is_s_plus_one():
    a = np.arange(30, dtype=float) + 10
    b = np.zeros(30)
    res = db.permutation_test(a, b, exact=False, n_resamples=500, random_state=0)
    assert res.pvalue == pytest.approx(1 / 501)
    assert res.pvalue > 0


def test_same_seed_same_result_and_generator_accepted():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=40), rng.normal(size=40)
    r1 = db.permutation_test(a, b, random_state=42)
    r2 = db.permutation_test(a, b, random_state=42)
    assert r1.pvalue == r2.pvalue
    np.testing.assert_array_equal(r1.null_distribution, r2.null_distribution)
    r3 = db.permutation_test(a, b, random_state=np.random.default_rng(42))
    assert 0 < r3.pvalue <= 1


def test_all_zero_differences_give_p_one():
    res = db.permutation_test([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert res.statistic == 0.0 and res.pvalue == 1.0


def test_result_to_dict_and_repr():
    res = db.permutation_test([1.0, 2.0, 4.0], [0.0, 0.5, 1.0])
    d = res.to_dict()
    assert d["pvalue"] == res.pvalue and d["exact"] is True
    assert "TestResult(" in repr(res)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(a=[1, 2, 3], b=[1, 2]), ValueError, "inconsistent numbers of samples"),
    (dict(a=[1.0], b=[2.0]), ValueError, "at least 2 pairs"),
    (dict(a=[1.0, np.nan], b=[2.0, 1.0]), ValueError, "a contains 1 NaN"),
    (dict(a=[1.0, 2.0], b=[2.0, 1.0], alternative="two_sided"), ValueError,
     "alternative must be one of"),
    (dict(a=[1.0, 2.0], b=[2.0, 1.0], n_resamples=0), ValueError, "n_resamples must be at least 1"),
    (dict(a=np.zeros(30), b=np.ones(30), exact=True), ValueError, "supports at most 24"),
    (dict(a=[1.0, 2.0], b=[2.0, 1.0], exact="yes"), TypeError, "exact must be None"),
    (dict(a="abc", b=[2.0, 1.0]), TypeError, "a must be array-like"),
])
def test_permutation_test_bad_input(kwargs, exc, match):
    a, b = kwargs.pop("a"), kwargs.pop("b")
    with pytest.raises(exc, match=match):
        db.permutation_test(a, b, **kwargs)


# ---------------------------------------------------------------- compare_models

def _swap_null(metric, y, a, b, n_resamples, seed, **kw):
    """Slow oracle: swap predictions sample by sample, call the metric on the arrays."""
    rng = np.random.default_rng(seed)
    out = np.empty(n_resamples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for r in range(n_resamples):
            swap = rng.random(y.shape[0]) < 0.5
            swap = swap[:, None] if a.ndim == 2 else swap
            out[r] = (metric(y, np.where(swap, b, a), **kw)
                      - metric(y, np.where(swap, a, b), **kw))
    return out


def _index_bootstrap(metric, y, a, b, n_resamples, seed, **kw):
    rng = np.random.default_rng(seed)
    out = np.empty(n_resamples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for r in range(n_resamples):
            i = rng.integers(0, y.shape[0], y.shape[0])
            out[r] = metric(y[i], a[i], **kw) - metric(y[i], b[i], **kw)
    return out


def _models(n, k, seed, acc_a=0.75, acc_b=0.7):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < acc_a, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < acc_b, y, rng.integers(0, k, n))
    return y, a, b


@pytest.mark.parametrize("metric, k, kw", [
    (accuracy_score, 2, {}),
    (f1_score, 2, {}),
    (matthews_corrcoef, 2, {}),
    (f1_score, 3, {"average": "macro"}),
])
def test_type_reduced_null_matches_sample_swap(metric, k, kw):
    y, a, b = _models(300, k, seed=k)
    res = db.compare_models(metric, y, a, b, n_resamples=2000, random_state=1, **kw)
    assert res.method.startswith("type-reduced")
    slow = _swap_null(metric, y, a, b, 1000, seed=2, **kw)
    assert stats.ks_2samp(res.null_distribution, slow).pvalue > KS_LEVEL
    boot = _index_bootstrap(metric, y, a, b, 1000, seed=3, **kw)
    assert stats.ks_2samp(res.interval.bootstrap_distribution, boot).pvalue > KS_LEVEL


def test_compare_models_estimates_equal_sklearn():
    from sklearn.metrics import f1_score as sk_f1

    y, a, b = _models(500, 3, seed=9)
    res = db.compare_models(f1_score, y, a, b, average="weighted", random_state=0,
                            n_resamples=200)
    assert res.estimate_a == pytest.approx(sk_f1(y, a, average="weighted"))
    assert res.estimate_b == pytest.approx(sk_f1(y, b, average="weighted"))
    assert res.difference == pytest.approx(res.estimate_a - res.estimate_b)
    assert res.interval.low <= res.difference <= res.interval.high
    assert isinstance(res.interval, db.Interval)
    assert res.interval.n_resamples == 200 and res.interval.confidence_level == 0.95
    import json
    assert json.loads(json.dumps(res.to_dict()))["interval"]["low"] == res.interval.low


def test_compare_models_detects_a_clear_difference_and_not_a_null_one():
    y, a, b = _models(2000, 2, seed=4, acc_a=0.9, acc_b=0.6)
    res = db.compare_models(accuracy_score, y, a, b, n_resamples=999, random_state=0)
    assert res.pvalue == pytest.approx(1 / 1000) and res.significant()
    assert res.interval.low > 0
    # identical models: the paired bootstrap of the difference is all zeros, and says so
    with pytest.warns(IntervalWarning, match="degenerate"):
        same = db.compare_models(accuracy_score, y, a, a, n_resamples=999, random_state=0)
    assert same.difference == 0 and same.pvalue == 1.0
    assert same.interval.low == same.interval.high == 0.0


def test_compare_models_pvalue_is_s_plus_one_over_r_plus_one():
    y, a, b = _models(200, 2, seed=5)
    res = db.compare_models(f1_score, y, a, b, n_resamples=499, random_state=3)
    s = np.count_nonzero(np.abs(res.null_distribution) >= abs(res.difference) * (1 - 1e-12))
    assert res.pvalue == pytest.approx((s + 1) / 500)
    for alt, cmp in (("greater", np.greater_equal), ("less", np.less_equal)):
        one = db.compare_models(f1_score, y, a, b, n_resamples=499, random_state=3,
                                alternative=alt)
        s = np.count_nonzero(cmp(one.null_distribution, one.difference))
        assert one.pvalue == pytest.approx((s + 1) / 500)


def test_compare_models_same_seed_same_result():
    y, a, b = _models(300, 2, seed=6)
    r1 = db.compare_models(f1_score, y, a, b, n_resamples=300, random_state=8)
    r2 = db.compare_models(f1_score, y, a, b, n_resamples=300, random_state=8)
    assert r1.pvalue == r2.pvalue and r1.interval.low == r2.interval.low
    # a SeedSequence is a seed too (it was spawned from, so each call advanced it)
    seq = np.random.SeedSequence(8)
    s1, s2 = (db.compare_models(f1_score, y, a, b, n_resamples=300, random_state=seq)
              for _ in range(2))
    np.testing.assert_array_equal(s1.null_distribution, s2.null_distribution)
    np.testing.assert_array_equal(s1.interval.bootstrap_distribution,
                                  s2.interval.bootstrap_distribution)


def test_compare_models_string_labels_and_pos_label():
    y, a, b = _models(300, 2, seed=12)
    names = np.array(["neg", "pos"])
    res = db.compare_models(precision_score, names[y], names[a], names[b],
                            pos_label="pos", n_resamples=300, random_state=0)
    ref = db.compare_models(precision_score, y, a, b, n_resamples=300, random_state=0)
    assert res.difference == pytest.approx(ref.difference)
    np.testing.assert_allclose(res.null_distribution, ref.null_distribution)


def test_generic_callable_and_sample_weight_paths():
    rng = np.random.default_rng(0)
    y = rng.normal(size=200)
    a = y + rng.normal(0, 0.5, 200)
    b = y + rng.normal(0, 1.0, 200)

    def mae(t, p, sample_weight=None):
        return float(np.average(np.abs(t - p), weights=sample_weight))

    res = db.compare_models(mae, y, a, b, n_resamples=300, random_state=0)
    assert res.method == "sample-swap permutation"
    assert res.difference < 0 and res.pvalue < 0.01
    ya, aa, ba = _models(200, 2, seed=1)
    w = rng.integers(1, 3, 200)
    weighted = db.compare_models(recall_score, ya, aa, ba, sample_weight=w,
                                 n_resamples=200, random_state=0)
    assert weighted.method == "sample-swap permutation"
    from sklearn.metrics import recall_score as sk_recall
    assert weighted.estimate_a == pytest.approx(sk_recall(ya, aa, sample_weight=w))


def test_auc_batched_path_matches_sample_swap():
    from dartboard.metrics import roc_auc_score

    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 150)
    a = y + rng.normal(0, 0.8, 150)
    b = y + rng.normal(0, 1.0, 150)
    res = db.compare_models(roc_auc_score, y, a, b, n_resamples=1000, random_state=0)
    assert res.method.startswith("batched")
    assert res.estimate_a == pytest.approx(roc_auc_score(y, a))
    # what is swapped is each model's own midranks (a monotone transform of one
    # model's scores must not change the test)
    slow = _swap_null(roc_auc_score, y, stats.rankdata(a), stats.rankdata(b), 600, seed=5)
    assert stats.ks_2samp(res.null_distribution, slow).pvalue > KS_LEVEL
    boot = _index_bootstrap(roc_auc_score, y, a, b, 600, seed=6)
    assert stats.ks_2samp(res.interval.bootstrap_distribution, boot).pvalue > KS_LEVEL


def test_one_column_inputs_pair_with_1d_ones():
    import pandas as pd

    from dartboard.metrics import roc_auc_score

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 80)
    a = y + rng.normal(0, 0.8, 80)
    b = y + rng.normal(0, 1.0, 80)
    flat = db.compare_models(roc_auc_score, y, a, b, n_resamples=200, random_state=0)
    frame = pd.DataFrame({"y": y, "a": a, "b": b})
    # df[["a"]] is (n, 1): it was "must have the same shape" against a Series, and a
    # pair of columns lost the batched AUC path
    for pa, pb in ((frame[["a"]], frame["b"]), (frame[["a"]], frame[["b"]])):
        res = db.compare_models(roc_auc_score, frame[["y"]], pa, pb, n_resamples=200,
                                random_state=0)
        assert res.method == flat.method and res.pvalue == flat.pvalue
        assert res.difference == flat.difference


def test_batch_auc_equals_sklearn_with_ties():
    from sklearn.metrics import roc_auc_score as sk_auc

    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 60).astype(bool)
    scores = rng.integers(0, 5, (7, 60)).astype(float)
    _, codes = np.unique(scores, return_inverse=True)
    got = batch_auc(y, codes.reshape(scores.shape), int(codes.max()) + 1)
    np.testing.assert_allclose(got, [sk_auc(y, s) for s in scores])
    one_class = batch_auc(np.ones(60, bool), codes.reshape(scores.shape)[:2], 5)
    assert np.isnan(one_class).all()


@pytest.mark.parametrize("args, kwargs, exc, match", [
    (([0, 1, 1], [0, 1], [1, 1, 0]), {}, ValueError, "inconsistent numbers of samples"),
    (([1], [1], [0]), {}, ValueError, "at least 2 samples"),
    (([0, 1, 1], [0.1, np.nan, 0.3], [0.2, 0.3, 0.4]), {}, ValueError,
     r"pred_a contains 1 NaN value\(s\)"),
    (([0, 1, 1], [0, 1, 1], [1, 1, 0]), {"alternative": "bigger"}, ValueError,
     "alternative must be one of"),
    (([0, 1, 2], [0, 1, 1], [1, 1, 0]), {"average": None}, ValueError, "one number"),
    (([0, 1, 1], [0, 1, 1], [1, 1, 0]), {"method": "bootstrap"}, ValueError,
     "method must be one of"),
    (([0, 1, 1], [0, 1, 1], [1, 1, 0]), {"confidence_level": 1.5}, ValueError,
     "confidence_level must be strictly between"),
])
def test_compare_models_bad_input(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        db.compare_models(f1_score, *args, n_resamples=50, **kwargs)


def test_compare_models_undefined_metric_is_an_error():
    # kappa of two constant label vectors is undefined (nan)
    with pytest.raises(ValueError, match="cohen_kappa_score is undefined"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            db.compare_models(cohen_kappa_score, [1, 1, 1], [1, 1, 1], [1, 1, 1],
                              n_resamples=10)


def test_compare_models_metric_must_be_a_name_or_callable():
    with pytest.raises(TypeError, match="metric must be a metric name or a callable"):
        db.compare_models(3, [0, 1], [0, 1], [1, 0])


def test_kappa_and_balanced_accuracy_compare_models_agree_with_sklearn():
    from sklearn.metrics import balanced_accuracy_score as sk_bal
    from sklearn.metrics import cohen_kappa_score as sk_kappa

    y, a, b = _models(400, 3, seed=21)
    res = db.compare_models(cohen_kappa_score, y, a, b, n_resamples=200, random_state=0)
    assert res.difference == pytest.approx(sk_kappa(y, a) - sk_kappa(y, b))
    res = db.compare_models(balanced_accuracy_score, y, a, b, n_resamples=200, random_state=0)
    assert res.difference == pytest.approx(sk_bal(y, a) - sk_bal(y, b))


# ---------------------------------------------------------------- exact oracle of the type sampler

class _GivenSwaps:
    """Stands in for a Generator: 'draws' a given matrix of per-type swap counts."""

    def __init__(self, swaps):
        self.swaps = swaps

    def binomial(self, n, p, size):
        assert size == self.swaps.shape and p == 0.5
        assert np.all(self.swaps <= n)
        return self.swaps


def _distribution(values, probs):
    keys = np.round(np.asarray(values, float), 10)
    out = {}
    for v, p in zip(["nan" if np.isnan(x) else x for x in keys.tolist()], probs):
        out[v] = out.get(v, 0.0) + p
    return out


_SAMPLER_METRICS = [(accuracy_score, {}), (f1_score, {"average": "macro"}),
                    (matthews_corrcoef, {}), (recall_score, {"average": "weighted"}),
                    (cohen_kappa_score, {})]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 8), st.integers(2, 3), st.integers(0, 2**32 - 1),
       st.sampled_from(range(len(_SAMPLER_METRICS))))
def test_type_sampler_exact_distribution_equals_all_sample_swaps(n, k, seed, which):
    """Binomial swap counts per (true, a, b) type give exactly the null of all 2^n swaps."""
    from itertools import product

    metric, kw = _SAMPLER_METRICS[which]
    rng = np.random.default_rng(seed)
    y, a, b = (rng.integers(0, k, n) for _ in range(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slow = [metric(y, np.where(m, b, a), **kw) - metric(y, np.where(m, a, b), **kw)
                for m in (np.array(bits, bool) for bits in product([0, 1], repeat=n))]
    want = _distribution(slow, np.full(len(slow), 0.5 ** n))
    sampler = PairedCounts(metric.__name__, y, a, b, kw)
    sizes = sampler.counts[sampler.moving]
    listed = list(product(*[range(s + 1) for s in sizes]))
    combos = np.array(listed, dtype=np.int64).reshape(len(listed), sizes.shape[0])
    probs = np.prod(stats.binom.pmf(combos, sizes, 0.5), axis=1)
    fast = sampler.permutation(combos.shape[0], _GivenSwaps(combos))
    got = _distribution(fast, probs)
    assert got.keys() == want.keys()
    for v in want:
        assert got[v] == pytest.approx(want[v])


def test_type_sampler_many_classes_uses_occurring_types():
    y, a, b = _models(150, 30, seed=14)   # 30^3 types > 4 n: only occurring types kept
    res = db.compare_models(accuracy_score, y, a, b, n_resamples=1500, random_state=0)
    assert res.estimate_a == pytest.approx(np.mean(a == y))
    slow = _swap_null(accuracy_score, y, a, b, 800, seed=1)
    assert stats.ks_2samp(res.null_distribution, slow).pvalue > KS_LEVEL


# ---------------------------------------------------------------- mean losses

def _proba_models(n, k, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    if k == 2:
        a = np.clip(0.35 * y + 0.65 * rng.random(n), 0.0, 1.0)
        b = np.clip(0.25 * y + 0.75 * rng.random(n), 0.0, 1.0)
        return y, a, b
    def proba(strength):
        logits = rng.normal(size=(n, k)) + strength * np.eye(k)[y]
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)
    return y, proba(1.0), proba(0.7)


@pytest.mark.parametrize("metric_name, k, kw", [("log_loss", 2, {}), ("log_loss", 3, {}),
                                                ("log_loss", 2, {"base": 2}),
                                                ("brier_score_loss", 2, {})])
def test_mean_loss_path_matches_sample_swap(metric_name, k, kw):
    from dartboard import metrics

    metric = getattr(metrics, metric_name)
    y, a, b = _proba_models(200, k, seed=k)
    res = db.compare_models(metric, y, a, b, n_resamples=1500, random_state=0, **kw)
    assert res.method.startswith("sign-flip permutation of per-sample loss")
    assert res.estimate_a == pytest.approx(metric(y, a, **kw))
    slow = _swap_null(metric, y, a, b, 800, seed=1, **kw)
    assert stats.ks_2samp(res.null_distribution, slow).pvalue > KS_LEVEL
    boot = _index_bootstrap(metric, y, a, b, 800, seed=2, **kw)
    assert stats.ks_2samp(res.interval.bootstrap_distribution, boot).pvalue > KS_LEVEL


def test_mean_loss_weighted_and_per_sample_terms():
    from dartboard.families import Metric
    from dartboard.families._means import FAMILY as MEANS
    from dartboard.metrics import log_loss
    from dartboard.metrics._registry import get_spec

    y, a, b = _proba_models(300, 2, seed=7)
    w = np.random.default_rng(0).integers(1, 4, 300)
    res = db.compare_models(log_loss, y, a, b, sample_weight=w, n_resamples=400,
                            random_state=0)
    assert res.method.startswith("sign-flip")
    assert res.difference == pytest.approx(log_loss(y, a, sample_weight=w)
                                           - log_loss(y, b, sample_weight=w))
    slow = np.empty(400)
    rng = np.random.default_rng(3)
    for r in range(400):
        s = rng.random(300) < 0.5
        slow[r] = (log_loss(y, np.where(s, b, a), sample_weight=w)
                   - log_loss(y, np.where(s, a, b), sample_weight=w))
    assert stats.ks_2samp(res.null_distribution, slow).pvalue > KS_LEVEL
    # the per-sample differences average to the difference of the metric values
    d = MEANS.paired(y, a, b, None, Metric(get_spec("log_loss"), {"base": 2})).d
    assert np.average(d, weights=w) == pytest.approx(
        log_loss(y, a, sample_weight=w, base=2) - log_loss(y, b, sample_weight=w, base=2),
        rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_batch_auc_equals_pairwise_count(n, seed, levels):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, (3, n)).astype(bool)
    codes = rng.integers(0, levels, (3, n))
    got = batch_auc(y, codes, levels)
    for r in range(3):
        pos, neg = codes[r][y[r]], codes[r][~y[r]]
        if pos.size == 0 or neg.size == 0:
            assert np.isnan(got[r])
            continue
        pairs = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
        assert got[r] == pytest.approx(pairs.mean())


@pytest.mark.slow
def test_null_rejection_rate_near_alpha():
    """Under the null (equal accuracies) both tests reject about 5% of the time."""
    rng = np.random.default_rng(2024)
    sims = 1000
    rejected_models = rejected_folds = 0
    fold = np.arange(400) % 10
    for i in range(sims):
        kind = rng.choice(4, size=400, p=[0.7, 0.1, 0.1, 0.1])
        y = rng.integers(0, 2, 400)
        a = np.where((kind == 0) | (kind == 1), y, 1 - y)
        b = np.where((kind == 0) | (kind == 2), y, 1 - y)
        rejected_models += db.compare_models(accuracy_score, y, a, b, n_resamples=499,
                                             random_state=i).pvalue < 0.05
        acc_a = np.bincount(fold, weights=a == y) / 40
        acc_b = np.bincount(fold, weights=b == y) / 40
        rejected_folds += db.permutation_test(acc_a, acc_b).pvalue < 0.05
    # 0.05 +- 0.02 is about 3 Monte-Carlo standard errors at 1000 simulations
    assert abs(rejected_models / sims - 0.05) < 0.02
    assert abs(rejected_folds / sims - 0.05) < 0.02
