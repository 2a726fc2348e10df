"""Hamming and zero-one losses, class likelihood ratios and the hinge loss against
scikit-learn: randomised inputs, the edge cases scikit-learn's own tests pin
(sklearn/metrics/tests/test_classification.py), and the intervals and comparisons
the count losses get from confusion counts.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from _against_sklearn import SEEDS, both, data, same

import dartboard as db
import dartboard.metrics as dm


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_classes", [2, 3, 6])
def test_hamming_and_zero_one_equal_sklearn(seed, n_classes):
    _, y, p, w = data(seed, n_classes)
    for weight in (None, w, np.rint(w)):
        both("hamming_loss", y, p, sample_weight=weight)
        for normalize in (True, False):
            both("zero_one_loss", y, p, normalize=normalize, sample_weight=weight)
    labels = np.array(["ant", "bee", "cat", "dog", "eel", "fox"])
    both("hamming_loss", labels[y], labels[p], sample_weight=w)
    both("zero_one_loss", labels[y].tolist(), labels[p].tolist())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_labels", [2, 5])
def test_multilabel_hamming_and_zero_one_equal_sklearn(seed, n_labels):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 2, (300, n_labels))
    p = np.where(rng.random((300, n_labels)) < 0.8, t, 1 - t)
    w = rng.random(300)
    for weight in (None, w):
        both("hamming_loss", t, p, sample_weight=weight)
        for normalize in (True, False):
            both("zero_one_loss", t, p, normalize=normalize, sample_weight=weight)
    import scipy.sparse as sp

    both("hamming_loss", sp.csr_matrix(t), sp.csr_matrix(p))


def test_multilabel_cases_of_sklearn_tests():
    # test_classification.py::test_multilabel_hamming_loss and _zero_one_loss_subset
    y1 = np.array([[0, 1, 1], [1, 0, 1]])
    y2 = np.array([[0, 0, 1], [1, 0, 1]])
    w = np.array([1, 3])
    assert dm.hamming_loss(y1, y2) == 1 / 6
    assert dm.hamming_loss(y1, y1) == 0
    assert dm.hamming_loss(y2, 1 - y2) == 1
    assert dm.hamming_loss(y1, np.zeros(y1.shape)) == 4 / 6
    assert dm.hamming_loss(y1, y2, sample_weight=w) == 1.0 / 12
    assert dm.hamming_loss(y1, 1 - y2, sample_weight=w) == 11.0 / 12
    assert dm.zero_one_loss(y1, y2) == 0.5
    assert dm.zero_one_loss(y1, y1) == 0
    assert dm.zero_one_loss(y2, np.logical_not(y2)) == 1
    assert dm.zero_one_loss(y1, np.zeros(y1.shape)) == 1


def test_multilabel_mixes_are_value_errors_as_in_sklearn():
    t = np.array([[0, 1], [1, 1]])
    for ours, theirs in ((t, [0, 1]), ([0, 1], t), (t, np.array([[0, 1, 0], [1, 1, 0]])),
                         (t, np.array([[0, 2], [1, 3]]))):
        for name in ("hamming_loss", "zero_one_loss"):
            with pytest.raises(ValueError):
                getattr(skm, name)(ours, theirs)
            with pytest.raises(ValueError, match="y_true|y_pred|labels"):
                getattr(dm, name)(ours, theirs)


def test_hamming_and_zero_one_from_confusion_counts():
    _, y, p, _ = data(1, 4)
    counts = dm.ConfusionCounts.from_predictions(y, p)
    assert counts.compute("hamming_loss") == pytest.approx(skm.hamming_loss(y, p), rel=1e-15)
    assert counts.compute("zero_one_loss", normalize=False) == skm.zero_one_loss(
        y, p, normalize=False)


@pytest.mark.parametrize("seed", SEEDS)
def test_class_likelihood_ratios_equal_sklearn(seed):
    _, y, p, w = data(seed, 2)
    for weight in (None, w):
        both("class_likelihood_ratios", y, p, sample_weight=weight)
    both("class_likelihood_ratios", np.array(["n", "y"])[y], np.array(["n", "y"])[p],
         labels=["n", "y"])


@pytest.mark.parametrize("y, p", [([0, 0, 1, 1], [0, 0, 0, 0]),   # no positive predicted
                                  ([0, 0, 1, 1], [1, 1, 1, 1]),   # no negative predicted
                                  ([0, 0, 1, 1], [0, 1, 1, 1]),   # FP > 0, TN > 0
                                  ([0, 1, 1, 1], [0, 1, 1, 1])])  # perfect: FP = 0
@pytest.mark.parametrize("replace", [np.nan, 1.0, {"LR+": 2.0, "LR-": 0.5},
                                     {"LR+": np.inf, "LR-": np.nan}])
def test_class_likelihood_ratios_undefined_as_sklearn(y, p, replace):
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        got = dm.class_likelihood_ratios(y, p, replace_undefined_by=replace)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        expected = skm.class_likelihood_ratios(y, p, replace_undefined_by=replace)
    same(got, expected)
    from sklearn.exceptions import UndefinedMetricWarning

    assert len([x for x in ours if issubclass(x.category, dm.UndefinedMetricWarning)]) == \
        len([x for x in theirs if issubclass(x.category, UndefinedMetricWarning)])


def test_class_likelihood_ratios_bad_input():
    with pytest.raises(ValueError, match="binary"):
        dm.class_likelihood_ratios([0, 1, 2], [0, 1, 2])
    with pytest.raises(ValueError, match="replace_undefined_by"):
        dm.class_likelihood_ratios([0, 1], [0, 1], replace_undefined_by={"LR+": 0.5,
                                                                          "LR-": 0.5})
    with pytest.raises(ValueError, match="replace_undefined_by"):
        dm.class_likelihood_ratios([0, 1], [0, 1], replace_undefined_by=2.0)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_hinge_loss_equals_sklearn(seed, n_classes):
    rng, y, _, w = data(seed, n_classes)
    s = rng.normal(size=(y.shape[0], n_classes)) if n_classes > 2 else rng.normal(size=400)
    for weight in (None, w):
        both("hinge_loss", y, s, sample_weight=weight)
    if n_classes == 2:
        both("hinge_loss", np.where(y == 1, 1, -1), s)
        both("hinge_loss", np.array(["no", "yes"])[y], s)
    else:  # a class missing from y_true, given through labels
        keep = y != 1
        both("hinge_loss", y[keep], s[keep], labels=np.arange(n_classes))


def test_hinge_loss_of_a_column_of_decisions_equals_sklearn():
    # scikit-learn's test_format_invariance_with_1d_vectors: an (n, 1) pred_decision
    rng, y, _, w = data(0, 2)
    s = rng.normal(size=(y.shape[0], 1))
    for weight in (None, w):
        both("hinge_loss", y, s, sample_weight=weight)
        both("hinge_loss", y.reshape(-1, 1), s, sample_weight=weight)
    with pytest.raises(ValueError):
        skm.hinge_loss(y, np.column_stack([s, -s]))
    with pytest.raises(ValueError, match="pred_decision"):
        dm.hinge_loss(y, np.column_stack([s, -s]))


def test_hinge_loss_bad_shapes():
    with pytest.raises(ValueError, match="pred_decision"):
        dm.hinge_loss([0, 1, 2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="labels"):
        dm.hinge_loss([0, 1, 2], np.zeros((3, 4)))
    with pytest.raises(TypeError, match="pred_decision"):
        dm.hinge_loss([0, 1], ["a", "b"])


def test_count_losses_get_intervals_and_comparisons_from_counts():
    _, y, p, _ = data(2, 3)
    iv = db.interval(dm.hamming_loss, y, p, n_resamples=500, random_state=0)
    assert iv.low < skm.hamming_loss(y, p) < iv.high
    result = db.compare_models(dm.zero_one_loss, y, p, y, n_resamples=200, random_state=0)
    assert result.difference == pytest.approx(skm.zero_one_loss(y, p), rel=1e-12)
