"""Intervals from states: interval_from_counts and interval_from_score_state.

The oracle is ``interval`` on the rows the state counts: both go through the same
count path (same seed -> the same bootstrap distribution, draw for draw); the
score-map DeLong is checked against the midrank algorithm on the rows, and the
score-map bootstrap against index resampling of the rows (Kolmogorov-Smirnov)
and its per-replicate AUC against roc_auc_score with the draw counts as weights.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import dartboard
from dartboard import interval
from dartboard._delong import delong_auc_covariance
from dartboard._kernels import _bootstrap
from dartboard._kernels._analytic import delong_variance_grouped
from dartboard.families import Metric
from dartboard.families._scores import FAMILY as SCORES
from dartboard.metrics import (
    ConfusionCounts,
    ScoreState,
    accuracy_score,
    balanced_accuracy_score,
    cohen_kappa_score,
    f1_score,
    fbeta_score,
    matthews_corrcoef,
    precision_score,
    recall_score,
    roc_auc_score,
    selection_rate,
    specificity_score,
)
from dartboard.metrics._registry import get_spec
from dartboard.uncertainty import IntervalWarning, interval_from_counts, interval_from_score_state
from dartboard.uncertainty._from_states import _score_cells

PROPORTION_METHODS = ["wald", "wilson", "clopper-pearson", "agresti-coull", "jeffreys"]


def _labels(n, seed, k=2, acc=0.75):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    p = np.where(rng.random(n) < acc, y, rng.integers(0, k, n))
    return y, p


def _same(a, b):
    """Two Interval results are identical, bootstrap distribution included."""
    da, db = a.to_dict(), b.to_dict()
    dist_a, dist_b = da.pop("bootstrap_distribution"), db.pop("bootstrap_distribution")
    assert da == db
    if dist_a is None:
        assert dist_b is None
    else:
        assert np.array_equal(a.bootstrap_distribution, b.bootstrap_distribution)


# ------------------------------------------------------------------ counts = rows

@pytest.mark.parametrize("method", PROPORTION_METHODS + ["auto"])
@pytest.mark.parametrize("metric, kw", [
    (accuracy_score, {}), (precision_score, {}), (recall_score, {"pos_label": 0}),
    (specificity_score, {}), (selection_rate, {}),
])
def test_analytic_equals_interval_on_the_rows(metric, kw, method):
    y, p = _labels(300, 1)
    counts = ConfusionCounts.from_predictions(y, p)
    _same(interval_from_counts(metric, counts, method=method, confidence_level=0.9, **kw),
          interval(metric, y, p, method=method, confidence_level=0.9, **kw))
    # the name works as the function does
    _same(interval_from_counts(metric.__name__, counts, method=method, confidence_level=0.9,
                               **kw),
          interval(metric, y, p, method=method, confidence_level=0.9, **kw))


@pytest.mark.parametrize("method", ["percentile", "basic", "bca", "auto"])
@pytest.mark.parametrize("stratified", [False, True])
@pytest.mark.parametrize("metric, kw, k", [
    (f1_score, {}, 2), (matthews_corrcoef, {}, 2), (cohen_kappa_score, {}, 3),
    (balanced_accuracy_score, {}, 3), (precision_score, {"average": "macro"}, 3),
    (fbeta_score, {"beta": 2.0, "average": "weighted"}, 4), (accuracy_score, {}, 3),
])
def test_bootstrap_equals_interval_on_the_rows_draw_for_draw(metric, kw, k, method,
                                                             stratified):
    y, p = _labels(250, k, k=k)
    counts = ConfusionCounts.from_predictions(y, p)
    a = interval_from_counts(metric, counts, method=method, n_resamples=400,
                             stratified=stratified, random_state=7, **kw)
    b = interval(metric, y, p, method=method, n_resamples=400, stratified=stratified,
                 random_state=7, **kw)
    _same(a, b)
    if a.bootstrap_distribution is not None:
        assert a.bootstrap_distribution.shape == (400,)
        assert a.method == (method if method != "auto" else "bca")


def test_integer_weights_are_frequency_counts():
    """Counts with integer weights equal the counts of the rows repeated."""
    y, p = _labels(120, 3)
    w = np.random.default_rng(3).integers(0, 4, 120)
    weighted = ConfusionCounts.from_predictions(y, p, sample_weight=w)
    as_float = ConfusionCounts.from_predictions(y, p, sample_weight=w.astype(float))
    assert as_float.matrix.dtype.kind == "f"
    y_rep, p_rep = np.repeat(y, w), np.repeat(p, w)
    for method in ("wilson", "bca"):
        expected = interval(f1_score if method == "bca" else accuracy_score, y_rep, p_rep,
                            method=method, n_resamples=300, random_state=2)
        metric = expected.metric
        for state in (weighted, as_float):
            _same(interval_from_counts(metric, state, method=method, n_resamples=300,
                                       random_state=2), expected)


def test_interval_with_weights_still_resamples_weighted_rows():
    """interval(sample_weight=...) keeps row resampling: each row keeps its weight."""
    y, p = _labels(200, 4)
    w = np.random.default_rng(4).integers(1, 5, 200)
    rows = interval(f1_score, y, p, sample_weight=w, method="percentile", n_resamples=3000,
                    random_state=0)
    units = interval_from_counts(f1_score, ConfusionCounts.from_predictions(
        y, p, sample_weight=w), method="percentile", n_resamples=3000, random_state=0)
    assert rows.estimate == pytest.approx(units.estimate, abs=1e-15)
    # sum(w) ~ 2.5 n units spread the replicates less than n weighted rows
    assert units.standard_error < 0.9 * rows.standard_error
    # analytic intervals agree (they only read the weighted counts)
    _same(interval(accuracy_score, y, p, sample_weight=w),
          interval_from_counts(accuracy_score, ConfusionCounts.from_predictions(
              y, p, sample_weight=w)))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(5, 60), st.integers(2, 4),
       st.sampled_from(["percentile", "bca"]), st.booleans())
def test_property_counts_equal_rows(seed, n, k, method, stratified):
    y, p = _labels(n, seed, k=k, acc=0.6)
    counts = ConfusionCounts.from_predictions(y, p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            b = interval(accuracy_score, y, p, method=method, n_resamples=50,
                         stratified=stratified, random_state=seed)
        except ValueError:
            with pytest.raises(ValueError):
                interval_from_counts(accuracy_score, counts, method=method, n_resamples=50,
                                     stratified=stratified, random_state=seed)
            return
        a = interval_from_counts(accuracy_score, counts, method=method, n_resamples=50,
                                 stratified=stratified, random_state=seed)
    _same(a, b)


def test_top_level_exports():
    assert dartboard.interval_from_counts is interval_from_counts
    assert dartboard.IntervalWarning is IntervalWarning
    assert "interval_from_counts" in dir(dartboard)


def test_degenerate_cases_warn():
    counts = ConfusionCounts([0, 1], [[5, 0], [0, 7]])
    with pytest.warns(IntervalWarning, match="zero width"):
        iv = interval_from_counts(f1_score, counts, method="bca", n_resamples=200,
                                  random_state=0)
    assert iv.low == iv.high == 1.0 and iv.method == "percentile"
    # precision with no predicted positive: the whole [0, 1], as interval() does
    counts = ConfusionCounts([0, 1], [[5, 0], [3, 0]])
    with pytest.warns(IntervalWarning, match="denominator is 0"):
        iv = interval_from_counts(precision_score, counts, method="wilson",
                                  zero_division=0.0)
    assert (iv.low, iv.high) == (0.0, 1.0) and np.isnan(iv.standard_error)


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("method", ["bca", "percentile", "wilson", "auto"])
def test_float_weighted_counts_are_refused(method):
    y, p = _labels(50, 5)
    counts = ConfusionCounts.from_predictions(y, p, sample_weight=np.full(50, 0.3))
    with pytest.raises(ValueError, match="counts holds non-integer totals .*interval on the "
                                         "rows with sample_weight"):
        interval_from_counts(f1_score, counts, method=method)


@pytest.mark.parametrize("metric, exc, match", [
    ("f2_score", ValueError, "unknown metric 'f2_score' in metric"),
    ("roc_auc_score", ValueError, "count metric .* got roc_auc"),
    (roc_auc_score, ValueError, "count metric .* got roc_auc"),
    (lambda a, b: 0.5, ValueError, "count metric"),
    (3, TypeError, "metric must be a metric name or a callable"),
])
def test_unknown_or_non_count_metric(metric, exc, match):
    counts = ConfusionCounts([0, 1], [[3, 1], [1, 5]])
    with pytest.raises(exc, match=match):
        interval_from_counts(metric, counts)


@pytest.mark.parametrize("counts, kw, exc, match", [
    (np.array([[3, 1], [1, 5]]), {}, TypeError, "counts must be a dartboard.metrics"),
    (ConfusionCounts([0, 1], [[0, 0], [0, 0]]), {}, ValueError, "no samples"),
    (ConfusionCounts([0, 1], [[3, 1], [1, 5]]), {"method": "delong"}, ValueError,
     "roc_auc_score only"),
    (ConfusionCounts([0, 1], [[3, 1], [1, 5]]), {"method": "normal"}, ValueError, "method"),
    (ConfusionCounts([0, 1], [[3, 1], [1, 5]]), {"confidence_level": 1.5}, ValueError,
     "confidence_level"),
    (ConfusionCounts([0, 1], [[3, 1], [1, 5]]), {"n_resamples": 0}, ValueError,
     "n_resamples"),
    (ConfusionCounts([0, 1], [[3, 1], [1, 5]]), {"stratified": "yes"}, TypeError,
     "stratified"),
])
def test_bad_arguments(counts, kw, exc, match):
    with pytest.raises(exc, match=match):
        interval_from_counts("f1_score", counts, **kw)


def test_analytic_method_of_a_non_proportion():
    counts = ConfusionCounts([0, 1], [[3, 1], [1, 5]])
    with pytest.raises(ValueError, match="applies to accuracy_score.* got metric f1_score"):
        interval_from_counts(f1_score, counts, method="wilson")
    with pytest.raises(ValueError, match="binary case"):
        interval_from_counts(precision_score, ConfusionCounts([0, 1, 2], np.eye(3, dtype=int)
                                                              + 1),
                             method="wilson", average="macro")


def test_metric_undefined_on_the_counts():
    counts = ConfusionCounts([0, 1], [[4, 0], [0, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="undefined on these counts"):
            interval_from_counts(recall_score, counts, method="bca",
                                 zero_division=np.nan)


# ------------------------------------------------------------------ score maps

def _scored(n, seed, decimals=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n) + 0.3 * y, decimals)
    return y, s


def test_score_state_delong_equals_interval_on_the_rows():
    y, s = _scored(600, 8)
    parts = [ScoreState.from_scores(y[a:b], s[a:b]) for a, b in ((0, 250), (250, 600))]
    state = parts[1].merge(parts[0])
    a = interval_from_score_state(state, method="delong", confidence_level=0.9)
    b = interval(roc_auc_score, y, s, method="delong", confidence_level=0.9)
    assert a.method == b.method == "delong"
    assert a.estimate == b.estimate
    for field in ("low", "high", "standard_error"):
        assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-12)


def test_score_state_delong_single_positive_matches_rows():
    y = np.array([0, 0, 1, 0, 0])
    s = np.array([0.1, 0.5, 0.4, 0.4, 0.9])
    a = interval_from_score_state(ScoreState.from_scores(y, s), method="delong")
    b = interval(roc_auc_score, y, s, method="delong")
    assert (a.low, a.high, a.standard_error) == pytest.approx((b.low, b.high,
                                                                b.standard_error), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(4, 80), st.integers(0, 2))
def test_property_grouped_delong_equals_midrank_algorithm(seed, n, decimals):
    y, s = _scored(n, seed, decimals)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    state = ScoreState.from_scores(y, s)
    auc, variance = delong_variance_grouped(state.pos, state.neg)
    aucs, cov = delong_auc_covariance(y.astype(bool), s[None, :])
    assert auc == pytest.approx(aucs[0], rel=1e-12, abs=1e-15)
    assert variance == pytest.approx(cov[0, 0], rel=1e-10, abs=1e-15)


def _auc_cells(state):
    """The scores family's cells of ROC AUC for a score map, with each cell's label and
    score."""
    table = _score_cells(state)
    cells = SCORES.cells(table, Metric(get_spec("roc_auc_score")))
    return cells, table.positive.astype(int), table.score


def test_score_cells_auc_equals_weighted_roc_auc():
    """Per-replicate AUC from cell counts = roc_auc_score with the counts as weights."""
    y, s = _scored(300, 9, decimals=1)
    state = ScoreState.from_scores(y, s)
    cells, labels, scores = _auc_cells(state)
    draws = np.random.default_rng(0).integers(0, 5, (20, cells.size.size)).astype(float)
    expected = [roc_auc_score(labels, scores, sample_weight=d) for d in draws]
    np.testing.assert_allclose(cells.evaluate(draws), expected, rtol=1e-12)


def test_score_cells_closed_form_jackknife_equals_leave_one_out():
    y, s = _scored(200, 10, decimals=1)
    state = ScoreState.from_scores(y, s)
    cells, labels, scores = _auc_cells(state)
    # brute force: evaluate the counts minus one row of each cell
    brute = _bootstrap.multinomial_replicates(cells.evaluate, cells.size, cells.stratum, 0,
                                              5, False, np.random.default_rng(0), True)
    closed = _bootstrap.multinomial_replicates(cells.evaluate, cells.size, cells.stratum, 0,
                                               5, False, np.random.default_rng(0), True,
                                               cells.jackknife)
    np.testing.assert_allclose(closed.jackknife, brute.jackknife, rtol=1e-12)
    np.testing.assert_array_equal(closed.jackknife_weights, cells.size)
    # and the sample-level oracle for one positive cell
    g = int(np.flatnonzero(labels == 1)[0])
    drop = np.flatnonzero((y == 1) & (s == scores[g]))[0]
    assert closed.jackknife[g] == pytest.approx(
        roc_auc_score(np.delete(y, drop), np.delete(s, drop)), rel=1e-12)


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("stratified", [False, True])
def test_score_state_bootstrap_matches_row_resampling(method, stratified):
    """Same distribution as interval()'s row bootstrap (KS test) and the same interval
    within Monte-Carlo error."""
    y, s = _scored(500, 11, decimals=2)
    state = ScoreState.from_scores(y, s)
    a = interval_from_score_state(state, method=method, n_resamples=3000,
                                  stratified=stratified, random_state=1)
    b = interval(roc_auc_score, y, s, method=method, n_resamples=3000,
                 stratified=stratified, random_state=2)
    assert a.method == b.method == method and a.estimate == b.estimate
    assert stats.ks_2samp(a.bootstrap_distribution, b.bootstrap_distribution).pvalue > 1e-3
    # MC error of a 2.5% quantile at R = 3000 is ~0.05 se each: 0.3 se is ~4 sigma
    assert abs(a.low - b.low) < 0.3 * b.standard_error
    assert abs(a.high - b.high) < 0.3 * b.standard_error
    # same seed, same result
    again = interval_from_score_state(state, method=method, n_resamples=3000,
                                      stratified=stratified, random_state=1)
    _same(a, again)


def test_score_state_integer_weights_are_frequency_counts():
    y, s = _scored(150, 12)
    w = np.random.default_rng(12).integers(0, 4, 150)
    a = interval_from_score_state(ScoreState.from_scores(y, s, sample_weight=w), method="delong")
    b = interval(roc_auc_score, np.repeat(y, w), np.repeat(s, w), method="delong")
    assert (a.low, a.high) == pytest.approx((b.low, b.high), rel=1e-12)


@pytest.mark.parametrize("state, kw, exc, match", [
    (ScoreState.from_scores([0, 1, 1], [0.2, 0.3, 0.9], sample_weight=[0.5, 1.0, 1.5]), {},
     ValueError, "score_state.pos holds non-integer totals"),
    (ScoreState.from_scores([1, 1, 1], [0.2, 0.3, 0.9]), {}, ValueError, "only one class"),
    (ScoreState.from_scores([0, 1], [0.2, 0.3]), {"metric": "f1_score"},
     ValueError, "metric"),
    (ScoreState.from_scores([0, 1], [0.2, 0.3]), {"method": "wilson"}, ValueError, "method"),
    (ScoreState.from_scores([0, 1], [0.2, 0.3]), {"confidence_level": 0}, ValueError,
     "confidence_level"),
    (ConfusionCounts([0, 1], [[1, 0], [0, 1]]), {}, TypeError, "score_state must be"),
])
def test_score_state_bad_input(state, kw, exc, match):
    with pytest.raises(exc, match=match):
        interval_from_score_state(state, **kw)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 60), st.integers(0, 2))
def test_property_score_cells_against_rows(seed, n, decimals):
    """Replicate AUC = weighted roc_auc_score; closed-form jackknife = brute leave-one-out."""
    y, s = _scored(n, seed, decimals)
    y[0], y[-1] = 0, 1
    state = ScoreState.from_scores(y, s)
    cells, labels, scores = _auc_cells(state)
    draws = np.random.default_rng(seed).integers(1, 4, (3, cells.size.size)).astype(float)
    np.testing.assert_allclose(cells.evaluate(draws), [roc_auc_score(labels, scores,
                                                                     sample_weight=d)
                                                       for d in draws], rtol=1e-12)
    jack = cells.jackknife()
    brute = cells.evaluate(cells.size - np.eye(cells.size.size))
    np.testing.assert_allclose(jack, brute, rtol=1e-12, atol=1e-15)
