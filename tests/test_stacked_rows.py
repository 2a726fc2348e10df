"""Many groups' bootstrap rows at once (``_finalize.StackedRows``): each
metric's values of every group's draws from one formula call
(``Family.stack``), BCa from one array operation per metric
(``_bootstrap.bca_intervals``, numpy's linear quantile by
``_bootstrap.sorted_quantiles``). Their oracle is the route they replace, one group
and one row at a time (``metric_rows`` with nothing ready), which draws from the same
seeds: the rows must be the same, bit for bit, where the groups' draws are
degenerate (tiny groups, one class, all right), weighted, multiclass, with every
bootstrap method."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dartboard
from dartboard._kernels import _bootstrap
from dartboard.evaluation import _finalize


def _frames(stacked, *args, **kwargs):
    """The rows by the stacked route, or one group and one row at a time."""
    with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not stacked:  # no row planned at once: each group's own route
            patch.setattr(_finalize, "_stacked_job", lambda *args: None)
        return dartboard.evaluate(*args, **kwargs).to_frame()


def _data(seed, n, n_groups, classes, edge):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    pred = np.where(rng.random(n) < 0.7, y, rng.integers(0, classes, n))
    g = rng.integers(0, n_groups, n)
    if edge == "one_class_group":
        y[g == 0] = 0
    elif edge == "all_right_group":
        pred[g == 0] = y[g == 0]
    elif edge == "tiny_group":
        g[:3] = n_groups  # a group of three rows
    return y, pred, g


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**16), st.integers(30, 600), st.integers(2, 12), st.sampled_from([2, 3]),
       st.sampled_from(["none", "one_class_group", "all_right_group", "tiny_group"]),
       st.sampled_from(["auto", "bca", "percentile", "basic"]),
       st.sampled_from([None, "whole", "fractional"]), st.sampled_from([20, 200]))
def test_stacked_rows_are_each_groups_own(seed, n, n_groups, classes, edge, ci,
                                          weights, n_resamples):
    y, pred, g = _data(seed, n, n_groups, classes, edge)
    rng = np.random.default_rng(seed + 1)
    w = None if weights is None else (rng.integers(1, 4, n).astype(float) if weights == "whole"
                                      else rng.uniform(0.5, 2.0, n))
    kw = dict(y_pred=pred, groups=g, sample_weight=w, ci=ci, n_resamples=n_resamples,
              random_state=seed)
    if classes == 2:
        kw["pos_label"] = 1
    one = _frames(False, y, **kw)
    stacked = _frames(True, y, **kw)
    pd.testing.assert_frame_equal(one, stacked, check_exact=True)


def test_many_groups_with_scores_take_the_stacked_route_with_the_same_rows(monkeypatch):
    """1,000 rows in 40 groups, labels and scores (BCa rows of three count metrics per
    group): the stacked route forms them, and they are each group's own."""
    rng = np.random.default_rng(3)
    n = 4000
    y = rng.integers(0, 2, n)
    s = 1 / (1 + np.exp(-(rng.normal(size=n) + (2 * y - 1))))
    g = rng.integers(0, 40, n)
    formed = []
    run = _finalize.StackedRows.run

    def counted(self):
        found = run(self)
        formed.append(sum(row is not None for rows in found for row in rows.values()))
        return found

    one = _frames(False, y, y_score=s, groups=g, n_resamples=400, random_state=1)
    monkeypatch.setattr(_finalize.StackedRows, "run", counted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stacked = dartboard.evaluate(y, y_score=s, groups=g, n_resamples=400,
                                     random_state=1).to_frame()
    pd.testing.assert_frame_equal(one, stacked, check_exact=True)
    assert formed == [3 * 40]
    assert set(stacked.query("group.notna() and metric == 'f1'")["method"]) == {"bca"}


def _replicates(seed, g, n, ties):
    """A generator and g rows of n replicates (rounded to one decimal: ties)."""
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(g, n))
    return rng, np.round(rows, 1) if ties else rows


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**16), st.integers(2, 50), st.booleans())
def test_sorted_quantiles_are_numpys(seed, n, ties):
    rng, rows = _replicates(seed, 6, n, ties)
    levels = np.column_stack([rng.random(6), rng.random(6)])
    levels[0] = [0.0, 1.0]
    levels[1] = [0.5, 0.5 + 1e-12]
    found = _bootstrap.sorted_quantiles(np.sort(rows, axis=1), levels)
    for g in range(6):
        expected = np.quantile(rows[g], levels[g])
        assert np.array_equal(found[g], expected), (g, found[g], expected)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**16), st.integers(2, 300), st.sampled_from([0.8, 0.95, 0.99]),
       st.sampled_from(["normal", "skewed", "degenerate", "tiny", "scaled"]))
def test_bca_of_many_rows_is_bootstrap_interval_of_each(seed, r, level, kind):
    rng = np.random.default_rng(seed)
    g, c = 8, 4
    values = rng.normal(0.6, 0.05, (g, r))
    if kind == "skewed":
        values = np.exp(values * 3)
    elif kind == "scaled":
        values = values * 1e-200
    estimates = np.median(values, axis=1) + rng.normal(0, 0.01, g) * values.std(axis=1)
    jack = estimates[:, None] + rng.normal(0, 0.01, (g, c)) * np.abs(estimates[:, None])
    weights = rng.integers(1, 50, (g, c)).astype(float)
    if kind == "degenerate":
        values[0] = values[0, 0]  # equal replicates
        values[1, -1] = np.nan  # a nan replicate
        jack[2] = jack[2, 0]  # equal jackknife values
        estimates[3] = values[3].max() + 1  # outside the replicates
        weights[4, 0] = 0.0
    if kind == "tiny":
        values = np.round(values, 2)
    found = _bootstrap.bca_intervals(estimates, values, jack, weights, level, (0.0, 1.0)
                                     if kind != "skewed" else None)
    formed = 0
    for i in range(g):
        if found[i] is None:
            continue
        formed += 1
        reps = _bootstrap.Replicates(values[i], jack[i], weights[i])
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a row formed at once is one that warns of nothing
            low, high, se, method, _ = _bootstrap.bootstrap_interval(
                estimates[i], reps, level, "bca", (0.0, 1.0) if kind != "skewed" else None)
        assert (low, high, se, method) == found[i], i
    if kind != "degenerate":
        assert formed >= 6
    else:
        assert all(found[i] is None for i in range(5))


@pytest.mark.parametrize("cut", [1, 3])
def test_a_state_whose_family_cannot_stack_keeps_its_own_route(cut):
    """Classes that differ between groups (a group of one class) cannot share one
    formula call; those groups' rows take their own route, the same numbers."""
    rng = np.random.default_rng(cut)
    n = 600
    y = rng.integers(0, 3, n)
    pred = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
    g = rng.integers(0, 6, n)
    y[g < cut], pred[g < cut] = 1, 1  # groups of one class
    one = _frames(False, y, y_pred=pred, groups=g, n_resamples=100, random_state=0)
    stacked = _frames(True, y, y_pred=pred, groups=g, n_resamples=100,
                      random_state=0)
    pd.testing.assert_frame_equal(one, stacked, check_exact=True)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**16), st.integers(2, 400), st.booleans())
def test_rows_sorted_at_their_ends_give_the_full_sorts_quantiles(seed, n, ties):
    rng, rows = _replicates(seed, 5, n, ties)
    levels = np.column_stack([rng.uniform(0, 0.2, 5), rng.uniform(0.8, 1.0, 5)])
    levels[0] = [0.0, 1.0]
    levels[1] = [0.45, 0.55]
    ends = _bootstrap._sorted_ends(rows, levels)
    assert np.array_equal(_bootstrap.sorted_quantiles(ends, levels),
                          _bootstrap.sorted_quantiles(np.sort(rows, axis=1), levels))


@pytest.mark.parametrize("make", [np.random.default_rng, np.random.RandomState])
def test_a_callers_generator_keeps_the_row_by_row_order_of_draws(make):
    """A Generator (or RandomState) of the caller's is one stream the rows draw from in
    turn, so its rows are formed one by one in their order: the numbers of that route."""
    rng = np.random.default_rng(4)
    n = 800
    y = rng.integers(0, 2, n)
    s = 1 / (1 + np.exp(-(rng.normal(size=n) + (2 * y - 1))))
    g = rng.integers(0, 8, n)
    one = _frames(False, y, y_score=s, groups=g, n_resamples=200, random_state=make(9))
    stacked = _frames(True, y, y_score=s, groups=g, n_resamples=200, random_state=make(9))
    pd.testing.assert_frame_equal(one, stacked, check_exact=True)


def test_stacked_rows_on_a_worker_thread_are_those_of_one_thread(monkeypatch):
    """The stacked rows are drawn on a worker thread while the calling one forms the
    others, inside one warnings filter: the rows are those of one thread, and the
    caller's warnings filters are as they were."""
    rng = np.random.default_rng(6)
    n = 3000
    y = rng.integers(0, 2, n)
    s = 1 / (1 + np.exp(-(rng.normal(size=n) + (2 * y - 1))))
    g = rng.integers(0, 30, n)
    y[g == 2] = 1  # a group of one class
    threads = []
    run = _finalize.StackedRows.run

    def watched(self):
        threads.append(__import__("threading").current_thread().name)
        return run(self)

    monkeypatch.setattr(_finalize.StackedRows, "run", watched)
    frames = {}
    for spare in (False, True):
        monkeypatch.setattr(_finalize, "available_cores", lambda spare=spare: 1 + spare)
        before = list(warnings.filters)
        frames[spare] = dartboard.evaluate(y, y_score=s, groups=g, n_resamples=300,
                                           random_state=4).to_frame()
        assert warnings.filters == before
    pd.testing.assert_frame_equal(frames[False], frames[True], check_exact=True)
    assert threads[0] == "MainThread" and threads[1] != "MainThread"
