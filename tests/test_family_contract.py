"""The family protocol (dartboard.families), once for every metric a family computes.

For random rows cut into random pieces, with and without weights:

* the value of the state of all rows is the metric function on the rows;
* the pieces' states merged in any order give that value, and the same interval for
  the same seed (so a streamed evaluation equals the in-memory one);
* the fast replicate -- the metric of cell counts -- is the metric function on the rows
  those counts repeat (the slow oracle of every bootstrap, grouped gaps included);
* pooled groups place each group's cells among the pooled ones.

A metric is added to a family by its function, a registry line and a family kernel;
the tests here then cover it without new test code (the registry's ``needs`` gives the
keywords a metric cannot go without).
"""

from __future__ import annotations

import warnings
from functools import reduce

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dartboard.evaluation._engine import takes_weights
from dartboard.families import Batch, Metric, family_of
from dartboard.families._base import interval_of
from dartboard.metrics import UndefinedMetricWarning
from dartboard.metrics._registry import specs

FAMILY_SPECS = [s for s in specs(scalar=True) if s.family is not None]


def _rows(spec, rng, n, weighted):
    """(y_true, the metric's input, weights, keywords, batch fields) of n random rows."""
    weighted = weighted and takes_weights(spec.function)  # a sample maximum takes none
    w = rng.integers(1, 4, n).astype(float) * 0.5 if weighted else None
    kw = dict(spec.needs)
    if not spec.classification:
        # positive values (the deviances and log errors need them), with ties
        y = np.round(rng.gamma(4.0, 2.5, n), 1) + 0.1
        yhat = np.round(y * np.exp(rng.normal(0, 0.3, n)), 1) + 0.1
        return y, yhat, w, kw, {}
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]  # both classes
    if spec.takes_labels:
        other = np.where(rng.random(n) < 0.7, y, 1 - y)
        if spec.pos_label:
            kw["pos_label"] = 1
    else:
        other = np.round(np.clip(0.35 * y + 0.65 * rng.random(n), 0.01, 0.99), 2)  # ties
        if spec.pos_label:
            kw["pos_label"] = 1
    return y, other, w, kw, {"positive": 1, "classes": np.array([0, 1])}


def _batch(spec, y, other, w, fields, rows=None):
    rows = slice(None) if rows is None else rows
    return Batch(y[rows], {spec.input: other[rows]}, None if w is None else w[rows],
                 **fields)


def _value(spec, y, other, w, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(spec.function(y, other, **kw, **({} if w is None else
                                                         {"sample_weight": w})))


@pytest.mark.parametrize("spec", FAMILY_SPECS, ids=[s.name for s in FAMILY_SPECS])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(8, 60), weighted=st.booleans(),
       cuts=st.lists(st.integers(1, 59), max_size=3))
def test_states_merge_value_and_interval(spec, seed, n, weighted, cuts):
    rng = np.random.default_rng(seed)
    y, other, w, kw, fields = _rows(spec, rng, n, weighted)
    family, metric = family_of(spec), Metric(spec, kw)
    if not family.supports(metric):
        pytest.skip("keywords outside the family")
    whole = family.build(_batch(spec, y, other, w, fields), metric)
    expected = _value(spec, y, other, w, kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = family.value(whole, metric)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    bounds = [0, *sorted({c for c in cuts if c < n}), n]
    parts = [family.build(_batch(spec, y, other, w, fields, slice(a, b)), metric)
             for a, b in zip(bounds[:-1], bounds[1:])]
    order = rng.permutation(len(parts))
    merged = reduce(family.merge, [parts[i] for i in order])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(family.value(merged, metric), expected, rtol=1e-9,
                                   atol=1e-12)
    if not np.isfinite(expected) or spec.default_interval is None:
        return
    outcomes = []
    for state in (whole, merged):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                iv = interval_of(family, state, metric, method="percentile", level=0.9,
                                 n_resamples=40, stratified=False,
                                 rng=np.random.default_rng(seed))
                outcomes.append((iv.low, iv.high))
            except ValueError as exc:  # undefined on every resample: the same for both
                outcomes.append(str(exc))
    if isinstance(outcomes[0], tuple):
        assert outcomes[0] == pytest.approx(outcomes[1], rel=1e-9, abs=1e-12)
    else:
        assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("spec", FAMILY_SPECS, ids=[s.name for s in FAMILY_SPECS])
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(8, 40), weighted=st.booleans())
def test_replicate_is_the_metric_of_the_repeated_rows(spec, seed, n, weighted):
    """The fast path of every bootstrap against its slow oracle: the cells' value for
    drawn counts equals the metric function on the rows drawn."""
    rng = np.random.default_rng(seed)
    y, other, w, kw, fields = _rows(spec, rng, n, weighted)
    family, metric = family_of(spec), Metric(spec, kw)
    if not family.supports(metric):
        pytest.skip("keywords outside the family")
    whole = family.build(_batch(spec, y, other, w, fields), metric)
    cells = family.cells(whole, metric)
    if cells is None:
        pytest.skip("this state has no cells (weighted calibration)")
    for _ in range(3):
        drawn = rng.integers(0, n, n)
        drawn[:2] = [0, 1]  # both classes
        rows = np.sort(drawn)
        resampled = family.build(_batch(spec, y, other, w, fields, rows), metric)
        pooled = family.pool([whole, resampled], metric)
        counts = np.zeros(cells.size.shape[0])
        # the pooled cells are the whole data's (the resample's are among them)
        np.add.at(counts, pooled[2][1], pooled[1][1].size)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fast = cells.replicate(np.random.default_rng(seed))(counts[None, :])[0]
            slow = spec.function(y[rows], other[rows], **kw,
                                 **({} if w is None else {"sample_weight": w[rows]}))
        if cells.extra is not None:  # drawn sums of confidences: equal in law only
            continue
        if np.isnan(fast) and not np.isnan(slow):
            # a replicate on which the metric is 0/0 is undefined (dropped from the
            # interval); the function gives zero_division's stand-in, with a warning
            assert any(issubclass(c.category, UndefinedMetricWarning) for c in caught)
            continue
        np.testing.assert_allclose(fast, slow, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["f1_score", "matthews_corrcoef", "balanced_accuracy_score"])
def test_bca_jackknife_of_few_cells_is_exact_leave_one_out(name):
    """Above JACKKNIFE_MAX rows, cells of identical rows still give BCa the exact
    leave-one-row-out jackknife (one value per cell, weighted by its rows), as the
    interval's docstring promises for count metrics: the slow oracle is the metric
    function without each row in turn."""
    from dartboard._kernels._bootstrap import JACKKNIFE_MAX
    from dartboard.families._base import replicates
    from dartboard.metrics._registry import get_spec

    spec = get_spec(name)
    n = JACKKNIFE_MAX + 200
    y, other, w, kw, fields = _rows(spec, np.random.default_rng(5), n, False)
    family, metric = family_of(spec), Metric(spec, kw)
    cells = family.cells(family.build(_batch(spec, y, other, w, fields), metric), metric)
    reps = replicates(cells, 10, False, np.random.default_rng(0), True)
    assert reps.jackknife_weights is not None
    fast = np.repeat(reps.jackknife, reps.jackknife_weights.astype(np.int64))
    keep = np.ones(n, dtype=bool)
    slow = []
    for i in range(n):
        keep[i] = False
        slow.append(_value(spec, y[keep], other[keep], None, kw))
        keep[i] = True
    np.testing.assert_allclose(np.sort(fast), np.sort(slow), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("dealt_by", ["hypergeometric", "permutation"])
def test_dealt_jackknife_groups_cut_the_rows_as_a_permutation(dealt_by, monkeypatch):
    """The delete-a-group jackknife's groups: without a row-sized array (multivariate
    hypergeometric draws from the rows not yet dealt) they have the law of cutting a
    random permutation of the rows; every row is dealt once, in np.array_split's
    group sizes. The last group, the remainder, is checked against the hypergeometric
    law of its size (scipy), for both ways of dealing (20 groups here, for speed)."""
    from scipy import stats

    from dartboard._kernels import _bootstrap
    from dartboard.families import _base

    monkeypatch.setattr(_bootstrap, "JACKKNIFE_MAX", 20)
    if dealt_by == "permutation":
        monkeypatch.setattr(_base, "_HYPERGEOMETRIC_MAX", 0)
    size = np.array([38, 18, 4])  # 3 cells x 20 groups <= 60 rows
    rare = []
    for seed in range(2000):
        groups = np.stack(list(_base._dealt_groups(size, np.random.default_rng(seed))))
        assert groups.shape == (20, 3)
        np.testing.assert_array_equal(groups.sum(axis=0), size)
        np.testing.assert_array_equal(groups.sum(axis=1), 3)
        rare.append(groups[-1, 2])
    observed = np.bincount(rare, minlength=4)
    expected = stats.hypergeom(60, 4, 3).pmf(np.arange(4)) * len(rare)
    # 2 and 3 rare rows are pooled: their expected counts are below 5
    observed = np.r_[observed[:2], observed[2:].sum()]
    expected = np.r_[expected[:2], expected[2:].sum()]
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_bca_of_many_cells_agrees_with_the_rows_jackknife():
    """More cells than JACKKNIFE_MAX (distinct scores): the cells' delete-a-group
    jackknife, evaluated a stack of groups at a time, gives a BCa interval within
    Monte-Carlo error of the row-resampling path (a callable, its own jackknife)."""
    from dartboard import interval
    from dartboard.metrics import average_precision_score

    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 3000)
    s = np.round(rng.normal(size=3000) + y, 3)  # about 1,500 distinct scores
    fast = interval(average_precision_score, y, s, method="bca", n_resamples=2000,
                    random_state=0)
    slow = interval(lambda a, b: average_precision_score(a, b), y, s, method="bca",
                    n_resamples=2000, random_state=1)
    assert np.unique(s).shape[0] > 1000
    assert abs(fast.low - slow.low) < 0.3 * fast.standard_error
    assert abs(fast.high - slow.high) < 0.3 * fast.standard_error


@pytest.mark.parametrize("spec", FAMILY_SPECS, ids=[s.name for s in FAMILY_SPECS])
@pytest.mark.parametrize("weighted", [False, True])
def test_paired_kind_names_the_class_paired_builds(spec, weighted):
    # compare_k_models asks the kind without building the sampler: they must agree
    rng = np.random.default_rng(3)
    y, a, w, kw, _ = _rows(spec, rng, 60, weighted)
    _, b, _, _, _ = _rows(spec, np.random.default_rng(4), 60, weighted)
    family, metric = family_of(spec), Metric(spec, kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        built = family.paired(y, a, b, w, metric)
    assert family.paired_kind(y, a, w, metric) is (None if built is None else type(built))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([-0.0, 0.0, 0.1, 0.5, 0.5000000001, 1.0, 3.0]),
                          st.booleans()), max_size=60))
def test_unweighted_score_cells_by_class_runs_equal_the_lexicographic_cells(rows):
    # the fast build of unweighted score cells (each class sorted, then merged) gives
    # the cells, order and sizes of the one way every family's cells are formed
    from dartboard.families._base import aggregate
    from dartboard.families._scores import _class_runs

    score = np.array([r[0] for r in rows], dtype=np.float64)
    positive = np.array([r[1] for r in rows], dtype=bool)
    s, p, size = _class_runs(score, positive)
    (s2, p2), size2 = aggregate((score, positive), np.ones(score.shape[0], dtype=np.int64))
    np.testing.assert_array_equal(s, s2)
    np.testing.assert_array_equal(p, p2)
    np.testing.assert_array_equal(size, size2)
    assert size.dtype == np.int64 and int(size.sum()) == len(rows)
