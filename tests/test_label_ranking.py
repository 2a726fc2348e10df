"""Top-k accuracy, DCG/NDCG and the multilabel ranking metrics against scikit-learn:
randomised inputs and the edge cases of sklearn/metrics/tests/test_ranking.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
from _against_sklearn import SEEDS, both, data
from _quiet import quiet

import dartboard.metrics as dm


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_classes", [3, 4, 7])
def test_top_k_accuracy_equals_sklearn(seed, n_classes):
    rng, y, _, w = data(seed, n_classes)
    # coarse scores: many ties, broken as scikit-learn breaks them
    s = np.round(rng.random((y.shape[0], n_classes)), 1)
    for k in range(1, n_classes + 1):
        for weight in (None, w):
            for normalize in (True, False):
                both("top_k_accuracy_score", y, s, k=k, normalize=normalize,
                     sample_weight=weight)
    keep = y != 0  # a class missing from y_true, given through labels
    both("top_k_accuracy_score", y[keep], s[keep], k=2, labels=np.arange(n_classes))


def test_top_k_accuracy_binary_and_errors():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 100)
    for s in (rng.random(100), rng.normal(size=100)):  # thresholds 0.5 and 0
        for k in (1, 2):
            both("top_k_accuracy_score", y, s, k=k)
    with pytest.warns(dm.UndefinedMetricWarning, match="perfect score"):
        dm.top_k_accuracy_score([0, 1, 2], np.eye(3), k=3)
    with pytest.raises(ValueError, match="labels"):
        dm.top_k_accuracy_score([0, 1, 2], np.eye(3), labels=[2, 1, 0])
    with pytest.raises(ValueError, match="classes"):
        dm.top_k_accuracy_score([0, 1, 2], np.ones((3, 4)))
    with pytest.raises(ValueError, match="y_score"):
        dm.top_k_accuracy_score([0, 1], np.ones((2, 3)))
    with pytest.raises(ValueError, match="k"):
        dm.top_k_accuracy_score([0, 1, 2], np.eye(3), k=0)


@pytest.mark.parametrize("seed", SEEDS)
def test_dcg_and_ndcg_equal_sklearn(seed):
    rng = np.random.default_rng(seed)
    relevance = rng.integers(0, 4, (80, 6)).astype(float)
    relevance[:5] = 0  # no relevant document: NDCG 0
    tied = np.round(rng.random((80, 6)), 1)
    distinct = rng.random((80, 6))
    w = rng.random(80)
    for k in (None, 1, 3, 6):
        for weight in (None, w):
            both("ndcg_score", relevance, tied, k=k, sample_weight=weight)
            both("dcg_score", relevance, tied, k=k, sample_weight=weight)
            both("ndcg_score", relevance, distinct, k=k, ignore_ties=True)
            both("dcg_score", relevance, distinct, k=k, log_base=10, ignore_ties=True)
    both("ndcg_score", rng.integers(0, 2, (50, 4)), tied[:50, :4])


def test_ndcg_errors_as_sklearn():
    with pytest.raises(ValueError, match="negative"):
        dm.ndcg_score([[-1, 1, 2]], [[0.1, 0.2, 0.3]])
    with pytest.raises(ValueError, match="more than 1 document"):
        dm.ndcg_score([[1], [2]], [[0.1], [0.2]])
    with pytest.raises(ValueError, match="y_true"):
        dm.dcg_score([1, 2, 3], [0.1, 0.2, 0.3])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_labels", [2, 4, 9])
def test_label_ranking_metrics_equal_sklearn(seed, n_labels):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 2, (150, n_labels))
    t[:3] = 0  # no relevant label
    t[3:6] = 1  # all relevant
    s = np.round(rng.random((150, n_labels)), 1)  # ties
    w = rng.random(150)
    for name in ("label_ranking_average_precision_score", "label_ranking_loss",
                 "coverage_error"):
        for weight in (None, w):
            both(name, t, s, sample_weight=weight)


def test_label_ranking_cases_of_sklearn_tests():
    # test_ranking.py: check_lrap_toy, test_coverage_1d_error_message, ranking loss toys
    assert dm.label_ranking_average_precision_score([[1, 0, 0]], [[0.25, 0.5, 0.75]]) == \
        pytest.approx(1 / 3)
    assert dm.label_ranking_average_precision_score([[0, 1, 1]], [[0.5, 0.5, 0.5]]) == \
        pytest.approx(2 / 3)
    assert dm.coverage_error([[0, 1]], [[0.25, 0.75]]) == 1
    assert dm.coverage_error([[0, 0, 0]], [[0.25, 0.5, 0.75]]) == 0
    for y in ([[0, 1, 1]], [[1, 0, 1]], [[1, 1, 0]]):  # a tie counts as a wrong order
        assert dm.label_ranking_loss(y, [[0.25, 0.5, 0.5]]) == \
            skm.label_ranking_loss(y, [[0.25, 0.5, 0.5]])
    for name in ("coverage_error", "label_ranking_loss",
                 "label_ranking_average_precision_score"):
        with pytest.raises(ValueError, match="y_true"):
            getattr(dm, name)([0, 1, 1], [0.2, 0.5, 0.6])
        with pytest.raises(ValueError, match="shape"):
            getattr(dm, name)([[0, 1], [1, 0]], [[0.2, 0.5, 0.1], [0.3, 0.2, 0.1]])


_PER_SAMPLE_RANKING = ("coverage_error", "dcg_score", "ndcg_score",
                       "label_ranking_average_precision_score", "label_ranking_loss")


def _error_class(fn, *args):
    try:
        quiet(fn, *args)
    except Exception as error:  # noqa: BLE001 - the class is what is compared
        return type(error)
    return None


@pytest.mark.parametrize("name", _PER_SAMPLE_RANKING)
def test_label_ranking_text_input_raises_what_sklearn_raises(name):
    # scikit-learn's test_continuous_classification_invariance_string_vs_numbers_labels
    rng = np.random.default_rng(0)
    words = np.array(["eggs", "spam"])[rng.integers(0, 2, 20)]
    indicator, scores = rng.integers(0, 2, (20, 3)), rng.random((20, 3))
    cases = [(words, rng.integers(0, 2, 20)), (words.astype(object), rng.integers(0, 2, 20)),
             (indicator.astype(str), scores), (indicator, scores.astype(str)),
             (indicator, np.array([["a", 1.0, 2.0]] * 20, dtype=object))]
    for y_true, y_score in cases:
        expected = _error_class(getattr(skm, name), y_true, y_score)
        assert expected is ValueError
        with pytest.raises(ValueError, match="y_true|y_score"):
            getattr(dm, name)(y_true, y_score)
