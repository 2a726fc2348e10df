"""jaccard_score against sklearn.metrics.jaccard_score, and through the count machinery.

jaccard_score is declared as a registry proportion TP / (TP + FP + FN) and nothing
else: these tests show that the metric, its batched replicates, its bootstrap
interval and its paired comparison all follow from that declaration.
"""

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning as SkUndefined

import dartboard as db
import dartboard.families._counts as counts_family
import dartboard.families._paired as paired_module
import dartboard.metrics as dm
import dartboard.metrics._batched as batched
from dartboard.metrics import ConfusionCounts, UndefinedMetricWarning
from dartboard.metrics._registry import spec_for

AVERAGES = ["binary", "micro", "macro", "weighted", None]


def _both(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dm.jaccard_score(*args, **kw), skm.jaccard_score(*args, **kw)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), k=st.integers(1, 4),
       average=st.sampled_from(AVERAGES), zero_division=st.sampled_from(["warn", 0.0, 1.0]),
       weighted=st.sampled_from([None, "int", "float"]), labels=st.booleans(),
       strings=st.booleans())
def test_equals_sklearn(seed, n, k, average, zero_division, weighted, labels, strings):
    rng = np.random.default_rng(seed)
    names = np.array(["ant", "bee", "cat", "dog", "eel"]) if strings else np.arange(5) * 3
    y = names[rng.integers(0, k, n)]
    p = names[rng.integers(0, k, n)]
    kw = {"average": average, "zero_division": zero_division}
    if weighted == "int":
        kw["sample_weight"] = rng.integers(1, 4, n)
    elif weighted == "float":
        kw["sample_weight"] = rng.random(n) + 0.1
    if average == "binary":
        present = np.unique(np.r_[y, p])
        if present.shape[0] > 2:
            with pytest.raises(ValueError, match="multiclass"):
                dm.jaccard_score(y, p, **kw)
            return
        kw["pos_label"] = present[-1]
    elif labels:
        kw["labels"] = list(names[[k, 0]])  # one label absent from the data, one maybe
    got, want = _both(y, p, **kw)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("average, where", [("binary", "due to"),
                                            ("macro", "in labels with")])
def test_undefined_warns_as_sklearn(average, where):
    kw = {"average": average, "labels": [0, 1, 7]} if average != "binary" else {}
    with pytest.warns(UndefinedMetricWarning) as ours:
        got = dm.jaccard_score([0, 0], [0, 0], **kw)
    with pytest.warns(SkUndefined) as theirs:
        want = skm.jaccard_score([0, 0], [0, 0], **kw)
    assert got == want
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert f"Jaccard is ill-defined and being set to 0.0 {where} no true or predicted" \
        in str(ours[0].message)


def test_zero_division_nan_is_a_plain_nan():
    # sklearn's jaccard_score takes zero_division in {"warn", 0, 1}; dartboard also
    # takes nan, as its other ratios do: 0/0 is then nan, and nan leaves the average
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(dm.jaccard_score([0, 0], [0, 0], zero_division=np.nan))
        got = dm.jaccard_score([0, 1, 1], [0, 1, 0], labels=[0, 1, 5], average="macro",
                               zero_division=np.nan)
    assert got == pytest.approx(np.mean([skm.jaccard_score([0, 1, 1], [0, 1, 0], pos_label=0),
                                         skm.jaccard_score([0, 1, 1], [0, 1, 0])]))


def test_state_and_registry():
    spec = spec_for(dm.jaccard_score)
    assert spec.kind == "count" and spec.proportion == ("tp", ("tp", "fp", "fn"))
    assert "jaccard_score" in batched.SCALAR_COUNT_METRICS
    y, p = [0, 1, 2, 2, 1], [0, 2, 2, 1, 1]
    state = ConfusionCounts.from_predictions(y, p)
    assert state.compute("jaccard_score", average="macro") == pytest.approx(
        skm.jaccard_score(y, p, average="macro"))


def _spy(monkeypatch, module):
    """Record every (name, classes, matrices, values) the count machinery computes."""
    calls = []
    real = batched.batch_count_metric

    def spy(name, classes, matrices, kwargs, **kw):
        values = real(name, classes, matrices, kwargs, **kw)
        calls.append((name, classes, np.asarray(matrices), kwargs, values))
        return values

    monkeypatch.setattr(module, "batch_count_metric", spy)
    return calls


def _check_replicates(calls):
    name, classes, mats, kwargs, values = calls[0]
    assert name == "jaccard_score"
    for r in range(0, mats.shape[0], max(1, mats.shape[0] // 25)):
        t, q = np.nonzero(mats[r])
        want = skm.jaccard_score(classes[t], classes[q], sample_weight=mats[r][t, q],
                                 **kwargs)
        assert values[r] == pytest.approx(want, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("average", ["binary", "macro"])
def test_interval_takes_the_count_path(monkeypatch, average):
    rng = np.random.default_rng(3)
    k = 2 if average == "binary" else 3
    y = rng.integers(0, k, 400)
    p = np.where(rng.random(400) < 0.7, y, rng.integers(0, k, 400))
    kw = {} if average == "binary" else {"average": "macro"}
    calls = _spy(monkeypatch, counts_family)
    iv = db.interval(dm.jaccard_score, y, p, method="percentile", n_resamples=500,
                     random_state=0, **kw)
    assert calls, "the bootstrap did not draw confusion matrices"
    _check_replicates(calls)
    assert iv.estimate == pytest.approx(skm.jaccard_score(y, p, **kw))
    assert iv.low < iv.estimate < iv.high


def test_compare_models_takes_the_count_path(monkeypatch):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 300)
    a = np.where(rng.random(300) < 0.8, y, 1 - y)
    b = np.where(rng.random(300) < 0.7, y, 1 - y)
    calls = _spy(monkeypatch, paired_module)
    res = db.compare_models(dm.jaccard_score, y, a, b, n_resamples=300, random_state=0)
    assert calls, "the comparison did not use confusion matrices"
    _check_replicates(calls)
    assert res.difference == pytest.approx(skm.jaccard_score(y, a) - skm.jaccard_score(y, b))
