"""The batched count-metric evaluator against ConfusionCounts.compute replicate by replicate.

The oracle of each replicate is the metric computed on the classes present in that
replicate (its nonzero rows or columns), which is what computing the metric on the
resampled samples gives.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dartboard.metrics import ConfusionCounts, UndefinedMetricWarning
from dartboard.metrics._batched import SCALAR_COUNT_METRICS, batch_count_metric
from dartboard.metrics._confusion import _FROM_COUNTS

CASES = [
    ("accuracy_score", {}), ("accuracy_score", {"normalize": False}),
    ("matthews_corrcoef", {}), ("balanced_accuracy_score", {}),
    ("balanced_accuracy_score", {"adjusted": True}), ("cohen_kappa_score", {}),
    ("cohen_kappa_score", {"weights": "linear"}), ("cohen_kappa_score", {"weights": "quadratic"}),
    ("f1_score", {"average": "macro"}), ("f1_score", {"average": "micro"}),
    ("f1_score", {"average": "weighted"}), ("precision_score", {"average": "macro"}),
    ("recall_score", {"average": "weighted", "zero_division": 1.0}),
    ("specificity_score", {"average": "macro"}), ("false_positive_rate", {"average": "micro"}),
    ("false_negative_rate", {"average": "macro", "zero_division": np.nan}),
    ("selection_rate", {"average": "weighted"}),
    ("fbeta_score", {"beta": 2.0, "average": "macro"}),
    ("fbeta_score", {"beta": 0.5, "average": "macro", "labels": [0, 2, 7]}),
    ("precision_score", {"average": "micro", "labels": [1, 3]}),
    ("selection_rate", {"average": "micro"}), ("specificity_score", {"average": "weighted"}),
    ("fbeta_score", {"beta": np.inf, "average": "macro"}),
    ("fbeta_score", {"beta": 0.0, "average": "weighted"}),
    ("precision_score", {"average": "micro", "zero_division": np.nan}),
]

BINARY = ["precision_score", "recall_score", "f1_score", "specificity_score",
          "false_positive_rate", "false_negative_rate", "selection_rate"]


def _present_state(classes, m):
    present = (m.sum(0) + m.sum(1)) > 0
    return ConfusionCounts(classes[present], m[np.ix_(present, present)])


def _oracle(name, classes, m, kw, undefined):
    """The metric on the replicate's own classes; with undefined="nan", a 0/0 binary or
    micro ratio under zero_division="warn" (it warns) is nan."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        value = float(_present_state(classes, m).compute(name, **kw))
    warned = any(issubclass(r.category, UndefinedMetricWarning) for r in rec)
    whole = kw.get("average", "binary") in ("binary", "micro") or name not in BINARY + [
        "fbeta_score"]
    if undefined == "nan" and warned and whole and kw.get("zero_division", "warn") == "warn":
        return np.nan
    return value


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 4), st.integers(0, 2**32 - 1), st.sampled_from(CASES),
       st.floats(0.0, 0.9), st.sampled_from(["zero_division", "nan"]))
def test_batch_equals_compute_on_each_replicate(k, seed, case, sparsity, undefined):
    name, kw = case
    rng = np.random.default_rng(seed)
    m = rng.integers(0, 6, (5, k, k)) * (rng.random((5, k, k)) > sparsity)
    m[:, 0, 0] += 1  # at least one sample
    m[0] = 0
    m[0, 0, 0] = 3  # one class only: many ratios are 0/0
    classes = np.arange(k)
    got = batch_count_metric(name, classes, m, kw, undefined=undefined)
    want = [_oracle(name, classes, m[r], kw, undefined) for r in range(m.shape[0])]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15, equal_nan=True)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0, 1]), st.sampled_from(BINARY),
       st.sampled_from(["zero_division", "nan"]))
def test_binary_metrics_equal_compute(seed, pos_label, name, undefined):
    rng = np.random.default_rng(seed)
    m = rng.integers(0, 4, (6, 2, 2))
    m[:, 1, 0] += 1
    m[0] = [[0, 0], [2, 0]]  # nothing predicted: precision 0/0
    classes = np.array([0, 1])
    kw = {"pos_label": pos_label}
    got = batch_count_metric(name, classes, m, kw, undefined=undefined)
    want = [_oracle(name, classes, m[r], kw, undefined) for r in range(6)]
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


def test_kappa_with_labels_takes_the_per_replicate_path():
    mats = np.array([[[3, 1], [2, 4]], [[0, 0], [0, 5]]])
    classes = np.arange(2)
    got = batch_count_metric("cohen_kappa_score", classes, mats, {"labels": [0, 1]},
                             undefined="nan")
    assert got[0] == pytest.approx(ConfusionCounts(classes, mats[0]).compute(
        "cohen_kappa_score"))
    assert np.isnan(got[1])


def test_every_scalar_count_metric_is_known_to_the_state():
    assert SCALAR_COUNT_METRICS <= set(_FROM_COUNTS)


@pytest.mark.parametrize("kw, exc, match", [
    ({"average": None}, ValueError, "single number"),
    ({"average": "sideways"}, ValueError, "average"),
    ({"beta": -1.0}, ValueError, "beta"),
    ({"colour": "red"}, TypeError, "unexpected keyword"),
])
def test_bad_keywords(kw, exc, match):
    name = "fbeta_score" if "beta" in kw else "f1_score"
    with pytest.raises(exc, match=match):
        batch_count_metric(name, np.arange(3), np.ones((2, 3, 3)), kw)


def test_binary_average_on_three_classes_is_refused():
    with pytest.raises(ValueError, match="multiclass"):
        batch_count_metric("recall_score", np.arange(3), np.ones((2, 3, 3)), {})


def test_unknown_undefined_mode():
    with pytest.raises(ValueError, match="undefined"):
        batch_count_metric("accuracy_score", np.arange(2), np.ones((1, 2, 2)), {},
                           undefined="zero")
