"""One way to name a metric, everywhere: a name, an alias, a dartboard function, the
same-named scikit-learn function or a callable, resolved in one place
(``dartboard.metrics._registry.resolve_metric``)."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm

import dartboard as db
from dartboard.metrics import ConfusionCounts, accuracy_score, f1_score, roc_auc_score
from dartboard.metrics._registry import resolve_metric, specs


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 200)
    a = np.where(rng.random(200) < 0.7, y, rng.integers(0, 3, 200))
    b = np.where(rng.random(200) < 0.6, y, rng.integers(0, 3, 200))
    return y, a, b


@pytest.mark.parametrize("name, function, kwargs", [
    ("f1", f1_score, {}), ("f1_score", f1_score, {}), ("f1_macro", f1_score,
                                                       {"average": "macro"}),
    ("f1_weighted", f1_score, {"average": "weighted"}), ("accuracy", accuracy_score, {}),
    (skm.accuracy_score, accuracy_score, {}), (accuracy_score, accuracy_score, {}),
])
def test_interval_takes_a_name_alias_or_function(data, name, function, kwargs):
    y, a, _ = data
    if function is f1_score and not kwargs:  # binary F1: two classes
        y, a = y % 2, a % 2
    got = db.interval(name, y, a, random_state=0, n_resamples=300)
    want = db.interval(function, y, a, random_state=0, n_resamples=300, **kwargs)
    assert (got.estimate, got.low, got.high, got.method) == \
        (want.estimate, want.low, want.high, want.method)


def test_compare_models_takes_a_name(data):
    y, a, b = data
    got = db.compare_models("f1_macro", y, a, b, random_state=0, n_resamples=500)
    want = db.compare_models(f1_score, y, a, b, random_state=0, n_resamples=500,
                             average="macro")
    assert got.difference == want.difference and got.pvalue == want.pvalue
    assert got.interval.low == want.interval.low


def test_compare_k_models_takes_a_name(data):
    y, a, b = data
    preds = {"a": a, "b": b, "c": np.roll(a, 1)}
    got = db.compare_k_models("accuracy", y, preds, random_state=0, n_resamples=300)
    want = db.compare_k_models(accuracy_score, y, preds, random_state=0, n_resamples=300)
    assert got.pairwise.equals(want.pairwise)


def test_interval_from_counts_takes_an_alias(data):
    y, a, _ = data
    counts = ConfusionCounts.from_predictions(y, a)
    got = db.interval_from_counts("recall_macro", counts, random_state=0, n_resamples=300)
    want = db.interval_from_counts(db.metrics.recall_score, counts, random_state=0,
                                   n_resamples=300, average="macro")
    assert (got.low, got.high) == (want.low, want.high)


def test_every_label_an_evaluation_prints_is_accepted_back(data):
    y, a, _ = data
    proba = np.eye(3)[a] * 0.7 + 0.1
    ev = db.evaluate(y, y_proba=proba, random_state=0, n_resamples=100)
    for label in ev.metrics:
        resolved = resolve_metric(label)
        assert resolved.label == label
        again = db.evaluate(y, y_proba=proba, metrics=[label], random_state=0,
                            n_resamples=100)
        assert again.metrics == [label]
        assert again.overall.loc[label, "estimate"] == ev.overall.loc[label, "estimate"]


def test_every_registered_name_and_label_resolves():
    for spec in specs():
        assert resolve_metric(spec.name).spec is spec
        short = spec.label or spec.name.removesuffix("_score")
        assert resolve_metric(short).spec is spec


def test_sklearn_multiclass_auc_names(data):
    y, a, _ = data
    proba = np.eye(3)[a] * 0.7 + 0.1
    resolved = resolve_metric("roc_auc_ovo_weighted")
    assert resolved.kwargs == {"multi_class": "ovo", "average": "weighted"}
    got = db.interval("roc_auc_ovo", y, proba, random_state=0, n_resamples=200)
    assert got.estimate == pytest.approx(skm.roc_auc_score(y, proba, multi_class="ovo"))


@pytest.mark.parametrize("bad, exc, match", [
    ("f2", ValueError, "unknown metric 'f2' in metric"),
    ("neg_log_loss", ValueError, "name it 'log_loss'"),
    (3, TypeError, "metric must be a metric name or a callable"),
    (None, TypeError, "metric must be a metric name or a callable"),
])
def test_bad_names_are_clear_errors(bad, exc, match):
    with pytest.raises(exc, match=match):
        db.interval(bad, [0, 1, 1], [0, 1, 0])
    with pytest.raises(exc, match=match):
        db.compare_models(bad, [0, 1, 1, 0], [0, 1, 0, 0], [1, 1, 0, 0])


def test_scikit_learn_function_takes_the_fast_path():
    y = np.tile([0, 1], 50)
    p = np.tile([0, 1, 1, 0], 25)
    iv = db.interval(skm.accuracy_score, y, p)
    assert iv.method == "wilson" and iv.metric == "accuracy_score"
    auc = db.interval(skm.roc_auc_score, y, np.linspace(0, 1, 100))
    assert auc.metric == "roc_auc_score" and auc.estimate == pytest.approx(
        roc_auc_score(y, np.linspace(0, 1, 100)))
