"""Multilabel-indicator input (2-D 0/1 arrays) across the count family, against
scikit-learn on random data, weights and label subsets; classification_report's text
and dict; the per-label state."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
from _quiet import quiet
from scipy import sparse

import dartboard.metrics as dm
from dartboard.metrics import ConfusionCounts

SET_WISE = ("precision_score", "recall_score", "f1_score", "jaccard_score")
AVERAGES = ("micro", "macro", "weighted", "samples", None)


def case(seed, weights):
    rng = np.random.default_rng(seed)
    n, n_labels = int(rng.integers(1, 40)), int(rng.integers(2, 6))
    t = rng.integers(0, 2, (n, n_labels))
    p = rng.integers(0, 2, (n, n_labels))
    # float weights are multiples of 1/4: every sum is exact, in any order
    w = {"none": None, "int": rng.integers(1, 4, n),
         "float": rng.integers(1, 17, n) / 4}[weights]
    return t, p, w




@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weights", ["none", "int", "float"])
def test_set_wise_metrics_equal_sklearn(seed, weights):
    t, p, w = case(seed, weights)
    for average in AVERAGES:
        for zero_division in ("warn", 0.0, 1.0):
            for name in SET_WISE:
                kw = dict(average=average, sample_weight=w, zero_division=zero_division)
                np.testing.assert_allclose(quiet(getattr(dm, name), t, p, **kw),
                                           quiet(getattr(skm, name), t, p, **kw))
            kw = dict(beta=0.5, average=average, sample_weight=w, labels=[1, 0])
            np.testing.assert_allclose(quiet(dm.fbeta_score, t, p, **kw),
                                       quiet(skm.fbeta_score, t, p, **kw))
        ours = quiet(dm.precision_recall_fscore_support, t, p, average=average,
                     sample_weight=w)
        theirs = quiet(skm.precision_recall_fscore_support, t, p, average=average,
                       sample_weight=w)
        for a, b in zip(ours, theirs):
            assert (a is None) == (b is None)
            if b is not None:
                np.testing.assert_allclose(a, b)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weights", ["none", "int", "float"])
def test_subset_accuracy_and_confusion_matrices_equal_sklearn(seed, weights):
    t, p, w = case(seed, weights)
    for normalize in (True, False):
        np.testing.assert_allclose(dm.accuracy_score(t, p, sample_weight=w, normalize=normalize),
                                   skm.accuracy_score(t, p, sample_weight=w,
                                                      normalize=normalize))
    for kw in ({}, {"labels": [1, 0]}, {"samplewise": True}, {"samplewise": True,
                                                              "labels": [0]}):
        np.testing.assert_allclose(dm.multilabel_confusion_matrix(t, p, sample_weight=w, **kw),
                                   skm.multilabel_confusion_matrix(t, p, sample_weight=w, **kw))
    rng = np.random.default_rng(seed)
    y, q = rng.integers(0, 4, len(t)), rng.integers(0, 4, len(t))
    for labels in (None, [3, 1, 7]):
        np.testing.assert_allclose(
            dm.multilabel_confusion_matrix(y, q, sample_weight=w, labels=labels),
            skm.multilabel_confusion_matrix(y, q, sample_weight=w, labels=labels))


def test_sparse_and_boolean_indicators():
    t, p, _ = case(3, "none")
    for a, b in ((sparse.csr_matrix(t), sparse.csr_matrix(p)), (t.astype(bool), p == 1)):
        assert dm.f1_score(a, b, average="micro") == skm.f1_score(t, p, average="micro")


def test_multilabel_errors_have_sklearns_class():
    t = np.array([[1, 0], [0, 1]])
    for call in (lambda: dm.f1_score(t, t),  # average="binary"
                 lambda: dm.f1_score(t, [0, 1], average="macro"),  # a mix
                 lambda: dm.f1_score(t, t, average="macro", labels=[2]),
                 lambda: dm.f1_score([0, 1], [0, 1], average="samples"),
                 lambda: dm.confusion_matrix(t, t),
                 lambda: dm.matthews_corrcoef(t, t),
                 lambda: dm.multilabel_confusion_matrix([0, 1], [0, 1], samplewise=True),
                 lambda: dm.accuracy_score(np.array([[0, 2], [1, 1]]), t)):
        with pytest.raises(ValueError):
            call()
    with pytest.raises(ValueError, match="multilabel-indicator but average='binary'"):
        skm.f1_score(t, t)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", ["multiclass", "multilabel"])
def test_classification_report_equals_sklearn(seed, kind):
    rng = np.random.default_rng(seed)
    if kind == "multilabel":
        t, p = rng.integers(0, 2, (50, 3)), rng.integers(0, 2, (50, 3))
        subsets = (None, [2, 0])
    else:
        names = np.array(["ant", "bee", "cat", "a-long-label"])
        t, p = names[rng.integers(0, 4, 50)], names[rng.integers(0, 4, 50)]
        subsets = (None, ["bee", "ant", "zebra"])
    w = None if seed % 2 else rng.integers(1, 3, 50)
    for labels in subsets:
        kw = dict(labels=labels, sample_weight=w, digits=3)
        ours, theirs = (quiet(f.classification_report, t, p, output_dict=True, **kw)
                        for f in (dm, skm))
        assert ours.keys() == theirs.keys()
        for key, value in theirs.items():
            if isinstance(value, dict):
                for column in value:
                    np.testing.assert_allclose(ours[key][column], value[column])
            else:
                np.testing.assert_allclose(ours[key], value)
        if kind == "multiclass":
            assert quiet(dm.classification_report, t, p, **kw) == \
                quiet(skm.classification_report, t, p, **kw)


def test_classification_report_target_names_as_sklearn():
    text = dm.classification_report([0, 1, 1], [0, 1, 0], target_names=["no", "yes"])
    assert text == skm.classification_report([0, 1, 1], [0, 1, 0], target_names=["no", "yes"])
    with pytest.raises(ValueError, match="Number of classes, 2, does not match size of "
                                         "target_names, 1"):
        dm.classification_report([0, 1, 1], [0, 1, 0], target_names=["only one"])
    with pytest.warns(UserWarning, match="labels size, 1, does not match size of target_names"):
        dm.classification_report([0, 1, 1], [0, 1, 0], labels=[1], target_names=["a", "b"])


@pytest.mark.parametrize("seed", range(5))
def test_per_label_state_merges_and_computes_as_one_pass(seed):
    t, p, w = case(seed, ["none", "int", "float"][seed % 3])
    whole = ConfusionCounts.from_predictions(t, p, sample_weight=w)
    pieces = [slice(0, len(t) // 3), slice(len(t) // 3, len(t))]
    states = [ConfusionCounts.from_predictions(t[s], p[s],
                                               sample_weight=None if w is None else w[s])
              for s in pieces if s.stop > s.start]
    merged = ConfusionCounts()
    streamed = ConfusionCounts()
    for state, s in zip(states, [s for s in pieces if s.stop > s.start]):
        merged = merged.merge(state)
        assert streamed.update(t[s], p[s], None if w is None else w[s]) is streamed
    assert merged == whole
    assert streamed == whole
    np.testing.assert_allclose(whole.compute("multilabel_confusion_matrix"),
                               skm.multilabel_confusion_matrix(t, p, sample_weight=w))
    for average in ("micro", "macro", "samples"):
        np.testing.assert_allclose(
            quiet(whole.compute, "f1_score", average=average),
            quiet(skm.f1_score, t, p, average=average, sample_weight=w))
    np.testing.assert_allclose(whole.compute("accuracy_score"),
                               skm.accuracy_score(t, p, sample_weight=w))
    with pytest.raises(ValueError, match="single-label"):
        whole.merge(ConfusionCounts.from_predictions([0, 1], [1, 1]))


@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_brier_of_an_indicator_y_true_equals_sklearn(n_classes):
    # scikit-learn 1.9 reads a 2-D 0/1 y_true as one column per class
    rng = np.random.default_rng(n_classes)
    t = np.eye(n_classes, dtype=int)[rng.integers(0, n_classes, 30)]
    p = rng.dirichlet(np.ones(n_classes), 30)
    w = rng.integers(1, 5, 30)
    for kw in ({}, {"sample_weight": w}, {"scale_by_half": True}):
        np.testing.assert_allclose(dm.brier_score_loss(t, p, **kw),
                                   skm.brier_score_loss(t, p, **kw))
    with pytest.raises(ValueError, match="shape of y_proba"):
        dm.brier_score_loss(t[:, :1].repeat(n_classes + 1, axis=1), p)


def test_interval_of_a_multilabel_metric_resamples_rows():
    import dartboard

    rng = np.random.default_rng(0)
    t = rng.integers(0, 2, (200, 3))
    p = np.where(rng.random((200, 3)) < 0.8, t, 1 - t)
    iv = dartboard.interval(dm.f1_score, t, p, average="samples", zero_division=0.0,
                            n_resamples=300,
                            method="percentile", random_state=0)
    assert iv.estimate == pytest.approx(skm.f1_score(t, p, average="samples",
                                                     zero_division=0.0))
    assert iv.low < iv.estimate < iv.high
    # every replicate is the metric of some resample of whole rows: a value the
    # per-row F1 scores can average to, within [0, 1]
    assert np.all((iv.bootstrap_distribution >= 0) & (iv.bootstrap_distribution <= 1))
