"""Bounded-memory states of dartboard.scale: oracles, error bounds and merge laws."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from dartboard.metrics import UndefinedMetricWarning
from dartboard.scale import BinnedScoreState, QuantileSketch

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


def _sketch(values, weights=None, alpha=0.01):
    return QuantileSketch(alpha).update(np.asarray(values, dtype=float), weights)


def _brute_auc(y, s, w=None):
    """O(n^2) pairwise P(s+ > s-) + P(tie)/2: the obviously-right oracle."""
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    pos, neg = y == 1, y == 0
    sp, sn = s[pos][:, None], s[neg][None, :]
    wp, wn = w[pos][:, None], w[neg][None, :]
    num = ((sp > sn) * wp * wn).sum() + 0.5 * ((sp == sn) * wp * wn).sum()
    return num / (w[pos].sum() * w[neg].sum())


# --------------------------------------------------------------- quantile sketch

@pytest.mark.parametrize("alpha", [0.1, 0.01, 1e-3])
def test_sketch_median_within_relative_accuracy(alpha):
    rng = np.random.default_rng(1)
    for x in (rng.lognormal(0, 3, 2001), rng.standard_t(2, 5000) * 7, rng.integers(-5, 5, 999)):
        sketch = _sketch(x, alpha=alpha)
        for q in (0.01, 0.25, 0.5, 0.9, 1.0):
            exact = np.quantile(x, q, method="averaged_inverted_cdf")
            lo, hi = sketch.quantile_interval(q)
            assert lo <= exact <= hi
        exact_abs = np.median(np.abs(x))
        est = sketch.quantile(0.5, absolute=True)
        assert abs(est - exact_abs) <= alpha * exact_abs * (1 + 1e-9)


def test_sketch_median_matches_numpy_median_definition():
    # even count: numpy averages the two middle values; the sketch interval holds it
    x = np.array([1.0, 2.0, 100.0, 200.0])
    lo, hi = _sketch(x, alpha=1e-3).quantile_interval(0.5)
    assert lo <= 51.0 <= hi and hi - lo < 0.2


def test_sketch_zeros_and_signs_are_exact_buckets():
    sketch = _sketch([0.0, 0.0, 0.0, -5.0, 7.0])
    assert sketch.quantile(0.5) == 0.0
    assert sketch.quantile_interval(0.5) == (0.0, 0.0)
    assert sketch.quantile(0.0) < 0 < sketch.quantile(1.0)


@pytest.mark.parametrize("seed", range(5))
def test_sketch_mad_within_reported_bound(seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_t(3, 3001) * 10 + 4
    exact = np.median(np.abs(x - np.median(x)))
    est, bound = _sketch(x, alpha=1e-3).median_abs_deviation()
    assert abs(est - exact) <= bound
    assert bound <= 3e-3 * exact  # the bound is tight, not vacuous


def test_sketch_weighted_median_is_averaged_inverted_cdf():
    rng = np.random.default_rng(3)
    x = rng.normal(size=500)
    w = rng.integers(0, 4, 500).astype(float)
    lo, hi = _sketch(x, w, alpha=1e-3).quantile_interval(0.5)
    # repeating each value w times gives the same weighted median (integer weights)
    exact = np.median(np.repeat(x, w.astype(int)))
    assert lo <= exact <= hi


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=1, max_size=60))
def test_sketch_interval_always_holds_the_exact_quantiles(values):
    x = np.asarray(values)
    sketch = _sketch(x, alpha=0.05)
    lo, hi = sketch.quantile_interval(0.5)
    assert lo <= np.median(x) <= hi
    lo, hi = sketch.quantile_interval(0.5, absolute=True)
    assert lo <= np.median(np.abs(x)) <= hi
    est, bound = sketch.median_abs_deviation()
    assert abs(est - np.median(np.abs(x - np.median(x)))) <= bound + 1e-9


def test_sketch_memory_grows_with_range_not_rows():
    rng = np.random.default_rng(0)
    sketch = QuantileSketch(1e-3)
    for _ in range(5):
        sketch.update(rng.uniform(1, 1000, 200_000))
    # ln(1000) / (2 * 1e-3) ~ 3454 buckets whatever the number of rows
    assert sketch.n_buckets <= 3500
    assert sketch.total_weight == 1_000_000


@pytest.mark.parametrize("bad, exc, match", [
    (0.0, ValueError, "relative_accuracy"), (0.5, ValueError, "relative_accuracy")])
def test_sketch_rejects_bad_accuracy(bad, exc, match):
    with pytest.raises(exc, match=match):
        QuantileSketch(bad)


def test_sketch_merge_and_quantile_errors():
    with pytest.raises(ValueError, match="different relative accuracy"):
        QuantileSketch(0.01).merge(QuantileSketch(0.02))
    with pytest.raises(TypeError, match="QuantileSketch"):
        QuantileSketch().merge([1.0])
    with pytest.raises(ValueError, match="empty"):
        QuantileSketch().quantile(0.5)
    with pytest.raises(ValueError, match=r"q must be in \[0, 1\]"):
        _sketch([1.0]).quantile(1.5)


# --------------------------------------------------------------- binned scores

def _binary_data(seed, n=3000, ties=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = rng.random(n) + 0.4 * y
    if ties:
        s = np.round(s, 1)
    return y, s


def _group_index(state, s):
    """Oracle order of the binned state: per bin its minimum, inside, maximum."""
    idx = state.bin_index(s)
    lo = np.full(state.n_bins, np.inf)
    hi = np.full(state.n_bins, -np.inf)
    np.minimum.at(lo, idx, s)
    np.maximum.at(hi, idx, s)
    part = np.where(s == hi[idx], 2, np.where(s == lo[idx], 0, 1))
    return 3 * idx + part


@pytest.mark.parametrize("n_bins", [3, 10, 100, 10_000])
@pytest.mark.parametrize("seed", [0, 1])
def test_binned_values_equal_sklearn_on_group_indices(n_bins, seed):
    y, s = _binary_data(seed)
    s[::7] = s.max()  # a point mass at the top
    state = BinnedScoreState(n_bins, s.min(), s.max()).update(y, s)
    groups = _group_index(state, s)
    assert state.compute("roc_auc_score") == pytest.approx(roc_auc_score(y, groups), abs=1e-12)
    assert state.compute("average_precision_score") == pytest.approx(
        average_precision_score(y, groups), abs=1e-12)


@pytest.mark.parametrize("n_bins", [2, 5, 50, 1000])
@pytest.mark.parametrize("ties", [False, True])
def test_binned_error_within_bound(n_bins, ties):
    for seed in range(4):
        y, s = _binary_data(seed, n=800, ties=ties)
        w = np.random.default_rng(seed).random(800)
        state = BinnedScoreState(n_bins, s.min(), s.max()).update(y, s, w)
        auc = _brute_auc(y, s, w)
        ap = average_precision_score(y, s, sample_weight=w)
        assert abs(state.compute("roc_auc_score") - auc) <= state.error_bound("roc_auc_score") \
            + 1e-12
        assert abs(state.compute("average_precision_score") - ap) <= \
            state.error_bound("average_precision_score") + 1e-12


def test_binned_bound_shrinks_with_finer_bins():
    y, s = _binary_data(0, n=5000)
    bounds = [BinnedScoreState(b, 0, 1.4).update(y, s).error_bound("roc_auc_score")
              for b in (10, 100, 1000)]
    assert bounds[0] > bounds[1] > bounds[2]
    assert bounds[2] < 1e-3


def test_binned_bound_is_zero_when_bins_separate_classes():
    state = BinnedScoreState(4, 0.0, 1.0).update([0, 0, 1, 1], [0.1, 0.3, 0.6, 0.9])
    assert state.compute("roc_auc_score") == 1.0
    assert state.error_bound("roc_auc_score") == 0.0
    assert state.error_bound("average_precision_score") == 0.0


def test_binned_undefined_metric_warns():
    state = BinnedScoreState(4, 0.0, 1.0).update([1, 1], [0.2, 0.7])
    with pytest.warns(UndefinedMetricWarning, match="roc_auc_score is undefined"):
        assert np.isnan(state.compute("roc_auc_score"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert state.compute("average_precision_score") == 1.0


def test_binned_rejects_bad_arguments():
    with pytest.raises(ValueError, match="low < high"):
        BinnedScoreState(10, 1.0, 1.0)
    with pytest.raises(ValueError, match="different bins"):
        BinnedScoreState(10, 0, 1).merge(BinnedScoreState(11, 0, 1))
    with pytest.raises(ValueError, match="roc_auc_score"):
        BinnedScoreState(10, 0, 1).update([0, 1], [0.1, 0.2]).compute("f1_score")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 20), st.integers(1, 3)),
                min_size=2, max_size=40),
       st.integers(2, 12))
def test_binned_bounds_hold_for_any_data(rows, n_bins):
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows], dtype=float) / 20
    w = np.array([r[2] for r in rows], dtype=float)
    state = BinnedScoreState(n_bins, 0.0, 1.0).update(y, s, w)
    if 0 < y.sum() < len(y):
        assert abs(state.compute("roc_auc_score") - _brute_auc(y, s, w)) <= \
            state.error_bound("roc_auc_score") + 1e-12
        assert abs(state.compute("average_precision_score")
                   - average_precision_score(y, s, sample_weight=w)) <= \
            state.error_bound("average_precision_score") + 1e-12


def test_bins_of_exact_ties_add_nothing_to_the_bounds():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 2000)
    s = np.clip(rng.normal(0.4 + 0.3 * y, 0.4), 0, 1)  # heavy ties at exactly 0 and 1
    inner = (s > 0) & (s < 1)
    s[inner] = (1 + s[inner]) / 3  # unclipped scores all fall in the middle bin
    coarse = BinnedScoreState(3, 0.0, 1.0).update(y, s)
    ties_only = BinnedScoreState(3, 0.0, 1.0).update(y, np.round(s))  # scores 0 or 1 only
    assert ties_only.error_bound("roc_auc_score") == 0.0
    assert ties_only.error_bound("average_precision_score") == 0.0
    assert ties_only.compute("roc_auc_score") == roc_auc_score(y, np.round(s))
    assert ties_only.compute("average_precision_score") == pytest.approx(
        average_precision_score(y, np.round(s)), abs=1e-15)
    # only the middle bin mixes scores, and only strictly inside its own min and max
    mid = (s > 0) & (s < 1)
    inside = mid & (s > s[mid].min()) & (s < s[mid].max())
    expected = (y[inside] == 1).sum() * (y[inside] == 0).sum() / (
        2 * (y == 1).sum() * (y == 0).sum())
    assert coarse.error_bound("roc_auc_score") == pytest.approx(expected, rel=1e-12)
