"""Every group's states built in one pass (``Family.build_groups``) are the states of
each group's rows built on their own (``Family.build`` of ``batch.take(rows)``), field
for field, so an evaluation's rows and gaps are the same bits either way."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dartboard
from dartboard.families import _base


def _one_at_a_time(monkeypatch):
    """Every family builds each group's state from the group's rows alone."""
    for family in {type(f) for f in _families()}:
        monkeypatch.setattr(family, "build_groups", _base.Family.build_groups)


def _families():
    from dartboard.families._calibration import FAMILY as calibration
    from dartboard.families._counts import FAMILY as counts
    from dartboard.families._means import FAMILY as means
    from dartboard.families._scores import FAMILY as scores

    return [calibration, counts, means, scores]


def _same(a, b, where="state"):
    """Exact equality of two states: their classes, fields and arrays (values, dtype)."""
    assert type(a) is type(b), where
    if dataclasses.is_dataclass(a):
        for field in dataclasses.fields(a):
            if field.name.startswith("_"):
                continue
            _same(getattr(a, field.name), getattr(b, field.name), f"{where}.{field.name}")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"), where
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, float):
        assert a == b or (np.isnan(a) and np.isnan(b)), where
    elif hasattr(a, "__dict__") and not callable(a):
        _same(vars(a), vars(b), where)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
    else:
        assert a == b, where


def _cases():
    rng = np.random.default_rng(7)
    n = 600
    y = rng.integers(0, 2, n)
    s = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + (2 * y - 1)))), 3)  # ties
    g = rng.integers(0, 7, n)
    g[:5] = 9  # a group of 5 rows
    y1 = y.copy()
    y1[g == 3] = 1  # a group of one class
    w = rng.integers(1, 4, n).astype(float)
    k3 = rng.integers(0, 3, n)
    proba = rng.dirichlet(np.ones(3), n)
    values = rng.normal(size=n)
    return {
        "scores": dict(y_true=y1, y_score=s, groups=g),
        "weights": dict(y_true=y, y_score=s, groups=g, sample_weight=w),
        "labels": dict(y_true=np.array(["a", "b"])[y1], y_pred=np.array(["a", "b"])[
            (s > 0.5).astype(int)], groups=g, pos_label="b"),
        "multiclass": dict(y_true=k3, y_proba=proba, groups=g),
        "regression": dict(y_true=values, y_pred=values + rng.normal(size=n), groups=g),
        "two_columns": dict(y_true=y, y_score=s, groups=pd.DataFrame({"a": g % 2, "b": g % 3})),
    }


@pytest.mark.parametrize("case", list(_cases()))
def test_states_of_all_groups_at_once_are_each_groups_own(case, monkeypatch):
    from dartboard.evaluation import _bundle

    captured = []
    real = _bundle._group_states

    def both(batch, planned, members):
        fast = real(batch, planned, members)
        with monkeypatch.context() as m:
            _one_at_a_time(m)
            plain = real(batch, planned, members)
        captured.append((fast, plain))
        return fast

    monkeypatch.setattr(_bundle, "_group_states", both)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dartboard.evaluate(**_cases()[case], n_resamples=50, random_state=0)
    assert captured
    for fast, plain in captured:
        assert fast.keys() == plain.keys()
        for key in fast:
            assert len(fast[key]) == len(plain[key])
            for g, (a, b) in enumerate(zip(fast[key], plain[key])):
                _same(a, b, f"{key} group {g}")


@pytest.mark.parametrize("case", ["scores", "weights", "multiclass"])
def test_rows_and_gaps_are_those_of_each_groups_own_states(case, monkeypatch):
    kw = dict(_cases()[case], n_resamples=200, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = dartboard.evaluate(**kw)
        fast = (ev.to_frame(), ev.difference())
        _one_at_a_time(monkeypatch)
        ev = dartboard.evaluate(**kw)
        plain = (ev.to_frame(), ev.difference())
    pd.testing.assert_frame_equal(fast[0], plain[0])
    pd.testing.assert_frame_equal(fast[1], plain[1])


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 300), st.integers(1, 12), st.booleans(), st.booleans(),
       st.integers(0, 2**31))
def test_counted_runs_of_every_member_at_once_are_each_members(n, count, strata, narrow,
                                                               seed):
    """:func:`counted_runs_of` equals :func:`counted_runs` of each member's rows, bit
    for bit (ties, signed zeros, empty members, one stratum or several)."""
    from dartboard.families._base import counted_runs, counted_runs_of

    rng = np.random.default_rng(seed)
    values = rng.choice(np.array([0.0, -0.0, 0.25, 0.5, 1.0, 3.0]), n) \
        if seed % 2 else rng.normal(size=n)
    values = values.astype(np.float32 if narrow else np.float64)
    stratum = rng.integers(0, 3, n).astype(np.uint8) if strata else None
    owner = rng.integers(0, count, n)
    members = [np.flatnonzero(owner == c) for c in range(count)]
    for got, rows in zip(counted_runs_of(values, stratum, members), members):
        want = counted_runs(values[rows], None if stratum is None else stratum[rows])
        for a, b in zip(got, want):
            if b is None:
                assert a is None
                continue
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
            if a.dtype.kind == "f":
                np.testing.assert_array_equal(np.signbit(a), np.signbit(b))
