"""Regression metrics: scikit-learn oracle, RegressionMoments merges, error distribution."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import gaussian_kde

import dartboard.metrics as dm
from dartboard.metrics import (
    ErrorDistribution,
    RegressionMoments,
    UndefinedMetricWarning,
    _regression,
    error_distribution,
    explained_variance_score,
    max_error,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    median_absolute_deviation,
    median_absolute_error,
    r2_score,
    root_mean_squared_error,
    weighted_mean_absolute_percentage_error,
)

TOL = 1e-10
SK_NAMES = ["mean_squared_error", "root_mean_squared_error", "mean_absolute_error",
            "mean_absolute_percentage_error", "median_absolute_error"]
OURS = {f.__name__: f for f in (
    mean_squared_error, root_mean_squared_error, mean_absolute_error,
    mean_absolute_percentage_error, median_absolute_error, r2_score,
    explained_variance_score, max_error)}


def close(a, b):
    return np.allclose(a, b, rtol=TOL, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name", sorted(OURS))
def test_signature_matches_sklearn(name):
    ours = inspect.signature(OURS[name]).parameters
    theirs = inspect.signature(getattr(skm, name)).parameters
    assert list(ours) == list(theirs)
    for p in theirs.values():
        assert ours[p.name].kind == p.kind and ours[p.name].default == p.default


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    # small blocks and dot chunks so that the tests cross many boundaries of the kernel
    monkeypatch.setattr(_regression, "_BLOCK", 64)
    monkeypatch.setattr(_regression, "_DOT_CHUNK", 16)


def random_targets(rng, trial):
    n = int(rng.integers(1, 500))
    k = int(rng.integers(2, 4))
    shape = (n,) if trial % 2 else (n, k)
    t = rng.normal(5, 3, shape)
    p = t + rng.normal(0, 1, shape)
    if trial % 5 == 0:  # integer targets with ties (medians hit midpoints)
        t, p = np.round(t), np.round(p)
    if trial % 11 == 0:
        p = t.copy()
    w = None
    if trial % 3 == 0:
        w = rng.random(n) * (rng.random(n) > 0.3)
        w[0] = 1.0
    if trial % 7 == 0 and w is None:
        t[...] = 2.0  # constant y_true: the force_finite conventions
    return t, p, w, shape


@pytest.mark.filterwarnings("ignore::RuntimeWarning:sklearn")
@pytest.mark.filterwarnings("ignore:R\\^2 score is not well-defined")
def test_equal_sklearn_random():
    rng = np.random.default_rng(0)
    for trial in range(120):
        t, p, w, shape = random_targets(rng, trial)
        outputs = ["raw_values", "uniform_average"]
        if len(shape) == 2:
            outputs.append(rng.random(shape[1]))
        for mo in outputs:
            for name in SK_NAMES:
                ours = OURS[name](t, p, sample_weight=w, multioutput=mo)
                theirs = getattr(skm, name)(t, p, sample_weight=w, multioutput=mo)
                assert close(ours, theirs), (name, mo, ours, theirs)
            for name in ("r2_score", "explained_variance_score"):
                for ff in (True, False):
                    for m in (mo, "variance_weighted"):
                        ours = OURS[name](t, p, sample_weight=w, multioutput=m,
                                          force_finite=ff)
                        theirs = getattr(skm, name)(t, p, sample_weight=w, multioutput=m,
                                                    force_finite=ff)
                        if t.shape[0] >= 2:
                            assert close(ours, theirs), (name, m, ff, ours, theirs)
        if len(shape) == 1:
            assert max_error(t, p) == skm.max_error(t, p)


def test_large_offset_is_numerically_stable():
    # R^2 around a huge mean: per-block two-pass moments + Chan keep full precision
    rng = np.random.default_rng(1)
    t = 1e9 + rng.normal(size=5000)
    p = t + 0.1 * rng.normal(size=5000)
    assert r2_score(t, p) == pytest.approx(skm.r2_score(t, p), rel=1e-9)
    assert explained_variance_score(t, p) == pytest.approx(
        skm.explained_variance_score(t, p), rel=1e-9)


def test_conventions():
    with pytest.warns(UndefinedMetricWarning, match="less than two samples"):
        assert np.isnan(r2_score([1.0], [2.0]))
    assert r2_score([2.0, 2.0], [2.0, 2.0]) == 1.0
    assert r2_score([2.0, 2.0], [2.0, 3.0]) == 0.0
    assert r2_score([2.0, 2.0], [2.0, 3.0], force_finite=False) == -np.inf


def test_wmape_and_mad_definitions():
    t = np.array([3.0, -0.5, 2.0, 7.0])
    p = np.array([2.5, 0.0, 2.0, 8.0])
    e = t - p
    assert weighted_mean_absolute_percentage_error(t, p) == pytest.approx(
        np.abs(e).sum() / np.abs(t).sum())
    w = np.array([1.0, 2.0, 0.5, 1.0])
    assert weighted_mean_absolute_percentage_error(t, p, sample_weight=w) == pytest.approx(
        (w * np.abs(e)).sum() / (w * np.abs(t)).sum())
    assert median_absolute_deviation(t, p) == np.median(np.abs(e - np.median(e)))
    with pytest.warns(UndefinedMetricWarning, match="sum \\|y_true\\| is 0"):
        assert weighted_mean_absolute_percentage_error([0.0, 0.0], [0.0, 0.0]) == 0.0
    with pytest.warns(UndefinedMetricWarning):
        assert weighted_mean_absolute_percentage_error([0.0, 0.0], [1.0, 0.0]) > 1e15
    y2 = np.column_stack([t, 2 * t])
    p2 = np.column_stack([p, p])
    np.testing.assert_allclose(
        median_absolute_deviation(y2, p2, multioutput="raw_values"),
        [np.median(np.abs(c - np.median(c))) for c in (y2 - p2).T])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3), st.floats(0, 5)),
                min_size=2, max_size=300))
def test_block_kernel_equals_plain_numpy(rows):
    t, p, w = (np.array(c) for c in zip(*rows))
    if w.sum() == 0:
        w[0] = 1.0
    e = t - p
    r = _regression._block_moments(t, p, w, _regression._ALL)
    W = w.sum()
    mt, me = np.sum(w * t) / W, np.sum(w * e) / W
    expected = {"weight": W, "sse": np.sum(w * e * e), "sae": np.sum(w * np.abs(e)),
                "sat": np.sum(w * np.abs(t)), "max": np.abs(e).max(),
                "sape": np.sum(w * np.abs(e) / np.maximum(np.abs(t), np.finfo(float).eps)),
                "mean_true": mt, "m2_true": np.sum(w * (t - mt) ** 2),
                "mean_error": me, "m2_error": np.sum(w * (e - me) ** 2)}
    for key, value in expected.items():
        assert r[key] == pytest.approx(value, rel=1e-9, abs=1e-6), key


# ---------------------------------------------------------------- RegressionMoments

def test_moments_errors():
    with pytest.raises(ValueError, match="empty"):
        RegressionMoments().compute("mean_squared_error")
    state = RegressionMoments.from_predictions([1.0, 2.0], [1.5, 2.0])
    with pytest.raises(ValueError, match="metric must be one of"):
        state.compute("median_absolute_error")
    with pytest.raises(ValueError, match="1-D targets"):
        RegressionMoments.from_predictions(np.ones((3, 2)), np.ones((3, 2)))
    with pytest.raises(TypeError, match="can only merge"):
        state.merge(3)
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(RegressionMoments.from_predictions([1.0], [2.0]).compute("r2_score"))


# ---------------------------------------------------------------- bad input

def test_bad_inputs():
    with pytest.raises(ValueError, match="y_true contains 1 NaN"):
        mean_squared_error([1.0, np.nan], [1.0, 2.0])
    with pytest.raises(ValueError, match="y_pred contains 1 infinite"):
        r2_score([1.0, 2.0, 3.0], [1.0, np.inf, 2.0])
    with pytest.raises(ValueError, match="y_pred contains 1 NaN"):
        median_absolute_error([1.0, 2.0], [np.nan, 2.0])
    with pytest.raises(ValueError, match="y_true contains 1 NaN"):
        error_distribution([1.0, np.nan], [1.0, 2.0])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        mean_absolute_error([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="different numbers of outputs"):
        mean_squared_error(np.ones((4, 2)), np.ones((4, 3)))
    with pytest.raises(ValueError, match="one weight per output"):
        mean_squared_error(np.ones((4, 2)), np.ones((4, 2)), multioutput=[1, 2, 3])
    with pytest.raises(ValueError, match="only with several outputs"):
        mean_squared_error([1.0, 2.0], [1.0, 2.0], multioutput=[1.0])
    with pytest.raises(ValueError, match="multioutput must be one of"):
        r2_score([1.0, 2.0], [1.0, 2.0], multioutput="mean")
    with pytest.raises(ValueError, match="variance_weighted"):
        mean_squared_error(np.ones((4, 2)), np.ones((4, 2)), multioutput="variance_weighted")
    with pytest.raises(ValueError, match="does not support multioutput"):
        max_error(np.ones((4, 2)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="sums to zero"):
        mean_squared_error([1.0, 2.0], [1.0, 3.0], sample_weight=[0.0, 0.0])
    # every weighted metric, as scikit-learn (R^2 gave 1.0 and the medians nan silently)
    for metric in (r2_score, explained_variance_score, median_absolute_error,
                   median_absolute_deviation, weighted_mean_absolute_percentage_error):
        with pytest.raises(ValueError, match="sample_weight sums to zero"):
            metric([1.0, 2.0, 3.0], [1.1, 2.2, 2.7], sample_weight=[0.0, 0.0, 0.0])
    with pytest.raises(TypeError, match="y_true must be numeric"):
        mean_squared_error(["a", "b"], [1.0, 2.0])


# ---------------------------------------------------------------- error distribution

def test_error_distribution_queries():
    rng = np.random.default_rng(9)
    t = rng.normal(size=2000)
    p = t + rng.standard_t(3, size=2000)
    d = error_distribution(t, p)
    e = np.sort(t - p)  # sign: e = y_true - y_pred
    np.testing.assert_array_equal(d.errors, e)
    x = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(d.cdf(x), [(e <= v).mean() for v in x])
    q = np.linspace(0, 1, 21)
    np.testing.assert_allclose(d.quantile(q), np.quantile(e, q), rtol=1e-12, atol=1e-12)
    tol = np.array([0.0, 0.1, 1.0, 5.0])
    np.testing.assert_allclose(d.fraction_within(tol), [(np.abs(e) <= v).mean() for v in tol])
    assert isinstance(d.fraction_within(0.1), float)
    values, edges = d.histogram(bins=20)
    ref_values, ref_edges = np.histogram(e, bins=20, density=True)
    np.testing.assert_allclose(values, ref_values)
    summary = d.to_dict()
    assert summary["n"] == 2000 and summary["quantiles"]["0.5"] == pytest.approx(np.median(e))
    assert repr(d) == "ErrorDistribution(n=2000)"
    assert d == error_distribution(t, p) and d != error_distribution(t, t + 1.0)


def test_error_distribution_sign_and_errors():
    d = error_distribution([1.0, 2.0, 3.0], [0.0, 2.0, 5.0])
    assert d.errors.tolist() == [-2.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="q must lie in"):
        d.quantile(1.5)
    with pytest.raises(ValueError, match="t must be non-negative"):
        d.fraction_within(-1.0)
    with pytest.raises(ValueError, match="all errors are equal"):
        ErrorDistribution(np.zeros(5)).kde()
    with pytest.raises(ValueError, match="1-D targets"):
        error_distribution(np.ones((3, 2)), np.ones((3, 2)))


@pytest.mark.parametrize("bandwidth", ["scott", "silverman"])
def test_kde_matches_scipy(bandwidth):
    rng = np.random.default_rng(2)
    e = np.concatenate([rng.normal(0, 1, 3000), rng.normal(4, 0.5, 1000)])
    d = ErrorDistribution(np.sort(e))
    x, density = d.kde(300, bandwidth=bandwidth)
    reference = gaussian_kde(e, bw_method=bandwidth)(x)
    assert np.max(np.abs(density - reference)) < 1e-3 * reference.max()
    grid = np.array([-1.0, 0.0, 4.0])
    x2, density2 = d.kde(grid, bandwidth=0.3)
    np.testing.assert_allclose(density2, gaussian_kde(e, bw_method=0.3 / e.std(ddof=1))(grid),
                               rtol=2e-3)


def test_error_distribution_on_millions_of_points():
    rng = np.random.default_rng(3)
    n = 2_000_000
    t = rng.normal(size=n)
    p = t + rng.normal(size=n)
    d = error_distribution(t, p)  # e = t - p ~ N(0, 1)
    density, edges = d.histogram(bins=100)
    assert np.sum(density * np.diff(edges)) == pytest.approx(1.0)
    within = d.fraction_within([0.1, 1.0])
    np.testing.assert_allclose(within, [0.0797, 0.6827], atol=2e-3)  # P(|Z| <= t)
    x, density = d.kde([0.0])
    assert density[0] == pytest.approx(1 / np.sqrt(2 * np.pi), rel=1e-2)


# ------------------------------------------------------------------ negative weights

def _sklearn_regression_metrics():
    from dartboard.metrics._registry import specs

    return [s.name for s in specs(kind="regression")
            if hasattr(skm, s.name) and "sample_weight" in
            inspect.signature(getattr(skm, s.name)).parameters]


@pytest.mark.parametrize("name", _sklearn_regression_metrics())
@pytest.mark.parametrize("seed", range(4))
def test_negative_weights_give_sklearns_values(name, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 3000))  # past one block of the kernels
    t = rng.gamma(2.0, 2.0, n) + 0.1
    p = t * np.exp(rng.normal(0.0, 0.3, n))
    w = rng.normal(size=n) + 0.8  # about a fifth negative, positive total
    w[0] = -1.0
    kw = {"power": 1.5} if "tweedie" in name else {}
    ours = getattr(dm, name)(t, p, sample_weight=w, **kw)
    theirs = getattr(skm, name)(t, p, sample_weight=w, **kw)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    if name in ("mean_squared_error", "r2_score", "explained_variance_score",
                "mean_absolute_error"):  # several outputs too
        t2, p2 = np.column_stack([t, t[::-1]]), np.column_stack([p, p[::-1] + 1])
        np.testing.assert_allclose(
            getattr(dm, name)(t2, p2, sample_weight=w, multioutput="raw_values"),
            getattr(skm, name)(t2, p2, sample_weight=w, multioutput="raw_values"),
            rtol=1e-9, atol=1e-12)


def test_negative_weights_are_refused_by_intervals_comparisons_and_states():
    import dartboard

    t, p, w = np.arange(1.0, 9.0), np.arange(1.0, 9.0) + 0.5, np.ones(8)
    w[2] = -1.0
    assert dm.mean_squared_error(t, p, sample_weight=w) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        dartboard.interval(dm.mean_squared_error, t, p, sample_weight=w)
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        dartboard.compare_models(dm.mean_squared_error, t, p, p + 1, sample_weight=w)
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        dm.RegressionMoments.from_predictions(t, p, sample_weight=w)
    # weights that cancel out are a clear error, not a division by zero
    with pytest.raises(ValueError, match="sample_weight sums to zero"):
        dm.r2_score(t[:2], p[:2], sample_weight=[1.0, -1.0])


# ------------------------------------------------------------------ extreme scales

def _exact_fractions(t, p, w):
    """R^2 and explained variance of the float inputs in exact rational arithmetic."""
    from fractions import Fraction

    t, p = [Fraction(float(v)) for v in t], [Fraction(float(v)) for v in p]
    w = [Fraction(1)] * len(t) if w is None else [Fraction(float(v)) for v in w]
    total = sum(w)

    def m2(x):
        mean = sum(wi * xi for wi, xi in zip(w, x)) / total
        return sum(wi * (xi - mean) ** 2 for wi, xi in zip(w, x))

    e = [a - b for a, b in zip(t, p)]
    sse = sum(wi * ei * ei for wi, ei in zip(w, e))
    return float(1 - sse / m2(t)), float(1 - m2(e) / m2(t))


@pytest.mark.parametrize("scale", [1e300, 1e200, 1e160, 1e-160, 1e-200, 1e-300, 1.0])
@pytest.mark.parametrize("weights", [None, "float", "huge"])
def test_r2_and_explained_variance_at_extreme_scales_equal_exact_arithmetic(scale, weights):
    rng = np.random.default_rng(7)
    t = rng.normal(size=15) * scale
    p = t + 0.3 * rng.normal(size=15) * scale
    w = {None: None, "float": rng.random(15) + 0.5,
         "huge": (rng.random(15) + 0.5) * 1e300}[weights]
    r2, ev = _exact_fractions(t, p, w)
    assert dm.r2_score(t, p, sample_weight=w) == pytest.approx(r2, rel=1e-12)
    assert dm.explained_variance_score(t, p, sample_weight=w) == pytest.approx(ev, rel=1e-12)


def test_outputs_at_opposite_extremes_each_keep_their_score():
    rng = np.random.default_rng(8)
    t = rng.normal(size=(15, 2)) * [1e300, 1e-300]
    p = t + 0.3 * rng.normal(size=(15, 2)) * [1e300, 1e-300]
    exact = [_exact_fractions(t[:, j], p[:, j], None) for j in range(2)]
    np.testing.assert_allclose(dm.r2_score(t, p, multioutput="raw_values"),
                               [r for r, _ in exact], rtol=1e-12)
    np.testing.assert_allclose(dm.explained_variance_score(t, p, multioutput="raw_values"),
                               [e for _, e in exact], rtol=1e-12)
    # the variance weights differ by 10^1200: the second output weighs nothing
    assert dm.r2_score(t, p, multioutput="variance_weighted") == pytest.approx(
        exact[0][0], rel=1e-12)
    # a constant y_true stays constant at any scale (scikit-learn's convention)
    assert dm.r2_score(np.full(4, 1e-300), np.full(4, 1e-300)) == 1.0
    assert dm.r2_score(np.full(4, 1e300), np.full(4, 2e300)) == 0.0
