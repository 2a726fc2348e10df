"""The mergeable-state contract (dartboard.metrics._mergeable), once for every state.

For random data cut into random pieces: merging the pieces' states equals the
state of one pass over all the data; the metrics of the merged state equal the
metric functions of scikit-learn (or a plain numpy oracle) on all the rows, within
the state's declared ``error_bound`` (0 for the exact states, so up to rounding);
merge is associative and commutative, returns a new state, mutates neither
operand, and has the empty state as identity; ``update`` returns ``self`` and a
state updated batch by batch equals the merged one.
"""

from __future__ import annotations

import copy
import dataclasses
import warnings
from collections.abc import Callable
from functools import reduce
from typing import Any

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from dartboard.metrics import (
    CalibrationState,
    ConfusionCounts,
    RegressionMoments,
    ScoreState,
)
from dartboard.metrics._mergeable import MergeableState
from dartboard.scale import BinnedScoreState, QuantileSketch

LABEL_SETS = [np.array([0, 1]), np.array([3, 7, 9]), np.array([0, 10**9]),
              np.array(["x", "y", "z"]), np.array([-5, 0, 5, 6])]


# ------------------------------------------------------------------ data

@st.composite
def datasets(draw):
    """One random data set with a column for every kind of state, and cut points.

    Hypothesis draws the size, the cuts, the labels, the weighting and the seed;
    the columns come from that seed (small integer ranges, so many ties).
    """
    n = draw(st.integers(2, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    labels = draw(st.sampled_from(LABEL_SETS))
    weights = draw(st.sampled_from(["none", "int", "quarter"]))
    # weights are integers or multiples of 1/4: sums are exact in any order
    w = None if weights == "none" else rng.integers(1, 4, n) if weights == "int" \
        else rng.integers(1, 17, n) / 4
    grid = rng.random(n) < draw(st.sampled_from([0.0, 0.5, 1.0]))
    proba = rng.integers(1, 10, (n, 3)).astype(float)
    # errors of any sign and magnitude, with exact zeros
    x = rng.choice([-1.0, 0.0, 1.0], n) * 10.0 ** rng.uniform(-6, 6, n)
    data = {
        "t": labels[rng.integers(0, len(labels), n)], "p": labels[rng.integers(0, len(labels), n)],
        "y01": rng.integers(0, 2, n), "p01": rng.integers(0, 2, n),
        "s": np.where(grid, rng.integers(0, 11, n) / 10, rng.random(n)),
        "yt": rng.integers(-40, 41, n) / 4, "yp": rng.integers(-40, 41, n) / 4, "x": x,
        "codes": rng.integers(0, 3, n), "proba": proba / proba.sum(axis=1, keepdims=True),
        "w": w,
        # multilabel indicators (drawn last: the columns above stay as they were)
        "mt": rng.integers(0, 2, (n, 3)), "mp": rng.integers(0, 2, (n, 3)),
    }
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=4)))
    return data, cuts


def take(data: dict[str, Any], a: int, b: int) -> dict[str, Any]:
    return {k: None if v is None else v[a:b] for k, v in data.items()}


def ones(d: dict[str, Any]) -> np.ndarray:
    return np.ones(len(d["y01"])) if d["w"] is None else d["w"]


def repeated(values: np.ndarray, d: dict[str, Any]) -> np.ndarray:
    """Each value repeated by its weight (weights scaled to integers): a plain weighted sample."""
    return np.repeat(values, np.round(4 * ones(d)).astype(int))


# ------------------------------------------------------------------ the states

@dataclasses.dataclass
class Case:
    name: str
    empty: Callable[[], Any]
    feed: Callable[[Any, dict[str, Any]], Any]  # state.update(<its columns>)
    metrics: list[tuple[str, dict[str, Any]]]
    oracle: Callable[[dict[str, Any], str, dict[str, Any]], Any]
    valid: Callable[[dict[str, Any]], bool] = lambda d: True  # are all metrics defined?
    rounding: bool = False  # merge re-associates floating-point sums (compare with a tolerance)

    def __repr__(self) -> str:
        return self.name


def _counts_oracle(d, name, kw):
    if name == "confusion_matrix":
        return skm.confusion_matrix(d["t"], d["p"], sample_weight=d["w"],
                                    labels=np.union1d(d["t"], d["p"]))
    return getattr(skm, name)(d["t"], d["p"], sample_weight=d["w"], **kw)


def _ranking_oracle(y, s, w, name, kw):
    if name == "pr_auc_score":
        precision, recall, _ = skm.precision_recall_curve(y, s, sample_weight=w)
        return skm.auc(recall, precision)
    return getattr(skm, name)(y, s, sample_weight=w, **kw)


def _moments_oracle(d, name, kw):
    t, p, w = d["yt"], d["yp"], d["w"]
    if name == "weighted_mean_absolute_percentage_error":
        return np.sum(ones(d) * np.abs(t - p)) / np.sum(ones(d) * np.abs(t))
    if name == "max_error":
        return skm.max_error(t, p)
    return getattr(skm, name)(t, p, sample_weight=w, **kw)


def _median_oracle(e, d, name):
    x = repeated(e, d)
    return np.median(np.abs(x)) if name == "median_absolute_error" else \
        np.median(np.abs(x - np.median(x)))


def _both_classes(d):
    return 0 < d["y01"].sum() < len(d["y01"])


RANKING = [("roc_auc_score", {}), ("average_precision_score", {}), ("pr_auc_score", {}),
           ("roc_auc_score", {"max_fpr": 0.3})]
MOMENTS = ["mean_squared_error", "root_mean_squared_error", "mean_absolute_error", "r2_score",
           "explained_variance_score", "mean_absolute_percentage_error",
           "weighted_mean_absolute_percentage_error", "max_error"]
SKETCH = [("median_absolute_error", {}), ("median_absolute_deviation", {})]

def _calibration_oracle(d, name, kw, n_bins=15):
    """Weighted binned calibration error as a loop (bins [b/15, (b+1)/15), p == 1 alone)."""
    bins: dict[int, list[tuple[float, float, float]]] = {}
    for y, p, w in zip(d["y01"], d["s"], ones(d)):
        bins.setdefault(int(np.floor(p * n_bins)), []).append((y, p, w))
    total = ones(d).sum()
    gaps = [(sum(w for *_, w in rows) / total,
             sum(y * w for y, _, w in rows) / sum(w for *_, w in rows)
             - sum(p * w for _, p, w in rows) / sum(w for *_, w in rows))
            for rows in bins.values()]
    norm = kw.get("norm", "l1")
    if norm == "max":
        return max(abs(g) for _, g in gaps)
    if norm == "l2":
        return np.sqrt(sum(share * g * g for share, g in gaps))
    return sum(share * abs(g) for share, g in gaps)


CASES = [
    Case("CalibrationState", CalibrationState,
         lambda st_, d: st_.update(d["y01"], d["s"], d["w"], pos_label=1),
         [("calibration_error", {}), ("calibration_error", {"norm": "l2"}),
          ("calibration_error", {"norm": "max"})], _calibration_oracle, rounding=True),
    Case("ConfusionCounts", ConfusionCounts,
         lambda st_, d: st_.update(d["t"], d["p"], d["w"]),
         [("accuracy_score", {}), ("f1_score", {"average": "macro", "zero_division": 0.0}),
          ("matthews_corrcoef", {}), ("confusion_matrix", {})],
         _counts_oracle),
    Case("ConfusionCounts(multilabel)", ConfusionCounts,
         lambda st_, d: st_.update(d["mt"], d["mp"], d["w"]),
         [("accuracy_score", {}), ("f1_score", {"average": "samples", "zero_division": 0.0}),
          ("jaccard_score", {"average": "macro", "zero_division": 0.0}),
          ("precision_score", {"average": "micro", "zero_division": 0.0}),
          ("multilabel_confusion_matrix", {})],
         lambda d, name, kw: getattr(skm, name)(d["mt"], d["mp"], sample_weight=d["w"], **kw)),
    Case("ScoreState", ScoreState,
         lambda st_, d: st_.update(d["y01"], d["s"], d["w"]),
         RANKING, lambda d, name, kw: _ranking_oracle(d["y01"], d["s"], d["w"], name, kw),
         _both_classes),
    Case("RegressionMoments", RegressionMoments,
         lambda st_, d: st_.update(d["yt"], d["yp"], d["w"]),
         [(name, {}) for name in MOMENTS], _moments_oracle,
         lambda d: np.abs(d["yt"]).sum() > 0, rounding=True),
    Case("BinnedScoreState", lambda: BinnedScoreState(7, 0.0, 1.0),
         lambda st_, d: st_.update(d["y01"], d["s"], d["w"]),
         RANKING[:2], lambda d, name, kw: _ranking_oracle(d["y01"], d["s"], d["w"], name, kw),
         _both_classes),
    Case("QuantileSketch", lambda: QuantileSketch(0.01),
         lambda st_, d: st_.update(d["x"], d["w"]),
         SKETCH, lambda d, name, kw: _median_oracle(d["x"], d, name)),
]


# ------------------------------------------------------------------ helpers

def build(case: Case, d: dict[str, Any]) -> Any:
    state = case.empty()
    out = case.feed(state, d)
    assert out is state  # update returns self
    return state


def pieces(case: Case, d: dict[str, Any], cuts: list[int]) -> list[Any]:
    """States of the pieces between consecutive cuts; an empty piece is the empty state."""
    bounds = [0, *cuts, len(d["y01"])]
    return [build(case, take(d, a, b)) if b > a else case.empty()
            for a, b in zip(bounds[:-1], bounds[1:])]


def readings(case: Case, state: Any) -> list[Any]:
    """(value, error bound) of each metric; nan where the state cannot give it (empty)."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined metrics are compared as nan
        for name, kw in case.metrics:
            try:
                out.append((state.compute(name, **kw), state.error_bound(name)))
            except ValueError:
                out.append((np.nan, np.nan))
    return out


def assert_same(case: Case, a: Any, b: Any) -> None:
    """The same state: equal, or (where merging re-associates float sums) equal readings."""
    if not case.rounding:
        assert a == b
    elif isinstance(a, RegressionMoments):  # every statistic, n and weight included
        np.testing.assert_allclose(list(a.to_dict().values()), list(b.to_dict().values()),
                                   rtol=1e-10, atol=1e-9)
    for (va, ba), (vb, bb) in zip(readings(case, a), readings(case, b)):
        np.testing.assert_allclose(va, vb, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(ba, bb, rtol=1e-9, atol=1e-12)


def merge_all(states: list[Any]) -> Any:
    return reduce(lambda a, b: a.merge(b), states)


# ------------------------------------------------------------------ the contract

@pytest.mark.parametrize("case", CASES, ids=repr)
def test_follows_the_protocol(case):
    state = case.empty()
    assert isinstance(state, MergeableState)
    with pytest.raises(TypeError, match=f"can only merge with a {type(state).__name__}; "
                                        "got object"):
        state.merge(object())


@pytest.mark.parametrize("case", CASES, ids=repr)
@settings(max_examples=60, deadline=None)
@given(sample=datasets())
def test_merged_pieces_equal_one_pass(case, sample):
    d, cuts = sample
    whole = build(case, d)
    parts = pieces(case, d, cuts)
    merged = merge_all(parts)
    assert_same(case, merged, whole)
    sequential = case.empty()
    for a, b in zip([0, *cuts], [*cuts, len(d["y01"])]):
        if b > a:
            assert case.feed(sequential, take(d, a, b)) is sequential
    assert_same(case, sequential, whole)
    if not case.valid(d):
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for (value, bound), (name, kw) in zip(readings(case, merged), case.metrics):
            expected = case.oracle(d, name, kw)
            # exact states declare 0: equal up to the rounding of sums
            assert np.all(np.abs(np.asarray(value) - expected)
                          <= bound + 1e-9 * (1 + np.abs(expected))), (name, kw)


@pytest.mark.parametrize("case", CASES, ids=repr)
@settings(max_examples=40, deadline=None)
@given(sample=datasets())
def test_merge_laws(case, sample):
    d, cuts = sample
    n = len(d["y01"])
    first, second = (cuts + [n, n])[:2]
    a, b, c = pieces(case, d, [first, max(first, second)])
    before = [copy.deepcopy(s) for s in (a, b, c)]
    assert_same(case, a.merge(b).merge(c), a.merge(b.merge(c)))
    assert_same(case, a.merge(b), b.merge(a))
    for state, snapshot in zip((a, b, c), before):  # merging mutates neither operand
        assert state == snapshot
    for state, snapshot in zip((a, b, c), before):  # the empty state is the identity
        for merged in (state.merge(case.empty()), case.empty().merge(state)):
            assert merged is not state
            assert_same(case, merged, state)
        assert state == snapshot
