"""The deliberate differences from scikit-learn listed in the user guide
(``docs/user_guide/metrics.rst``, "Differences from scikit-learn"), each asserted against
scikit-learn itself; and the drop-in behaviours that replaced former differences
(exception and warning classes)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.exceptions
import sklearn.metrics as skm
from sklearn.linear_model import LogisticRegression
from sklearn.metrics.pairwise import cosine_similarity as pairwise_cosine

import dartboard.metrics as dm

PROBA = np.array([[0.2, 0.2, 0.2], [0.6, 0.3, 0.1]])  # rows sum to 0.6 and 1.0


def test_proba_rows_not_summing_to_one_are_an_error_not_a_warning():
    with pytest.warns(UserWarning, match="do not sum to one"):
        skm.log_loss([0, 1], PROBA, labels=[0, 1, 2])
    with pytest.raises(ValueError, match="y_proba rows must sum to 1"):
        dm.log_loss([0, 1], PROBA, labels=[0, 1, 2])
    with pytest.raises(ValueError, match="y_proba rows must sum to 1"):
        dm.brier_score_loss([0, 1], PROBA, labels=[0, 1, 2])
    # with a multilabel-indicator y_true as well (per-label probabilities)
    indicator = np.array([[1, 0, 1], [0, 1, 0]])
    with pytest.warns(UserWarning, match="do not sum to one"):
        skm.log_loss(indicator, PROBA)
    for metric in (dm.log_loss, dm.brier_score_loss):
        with pytest.raises(ValueError, match="rows must sum to 1.*one column at a time"):
            metric(indicator, PROBA)
    # scikit-learn's test_log_loss_not_probabilities_warning: two columns, in every dtype
    y_true = np.array([0, 1, 1, 0])
    for dtype in (np.float64, np.float32, np.float16):
        rows = np.array([[0.2, 0.7], [0.6, 0.3], [0.4, 0.7], [0.8, 0.3]], dtype=dtype)
        with pytest.warns(UserWarning, match="The y_prob values do not sum to one"):
            assert skm.log_loss(y_true, rows) == pytest.approx(0.848, abs=1e-3)
        with pytest.raises(ValueError, match="y_proba rows must sum to 1; 4 row"):
            dm.log_loss(y_true, rows)


def test_huge_integer_weights_give_float_counts_instead_of_wrapping():
    # scikit-learn's own test: int64 weights of 2**63 - 1 wrap around to -2
    y = [0, 1, 1]
    w = np.full(3, np.iinfo(np.int64).max, dtype=np.int64)
    assert skm.confusion_matrix(y, y, sample_weight=w)[1, 1] == -2
    ours = dm.confusion_matrix(y, y, sample_weight=w)
    assert ours.dtype == np.float64
    assert ours[1, 1] == 2.0 * np.iinfo(np.int64).max


def test_integer_weights_keep_integer_counts_in_per_class_outputs():
    y, q, w = [0, 1, 1, 2], [0, 1, 2, 2], np.array([1, 2, 3, 4])
    ours = dm.multilabel_confusion_matrix(y, q, sample_weight=w)
    theirs = skm.multilabel_confusion_matrix(y, q, sample_weight=w)
    assert ours.dtype == np.int64 and theirs.dtype == np.float64
    np.testing.assert_array_equal(ours, theirs)
    support = dm.precision_recall_fscore_support(y, q, sample_weight=w)[3]
    assert support.dtype == np.int64
    np.testing.assert_array_equal(support,
                                  skm.precision_recall_fscore_support(y, q, sample_weight=w)[3])
    # confusion_matrix is int64 in both
    assert skm.confusion_matrix(y, q, sample_weight=w).dtype == \
        dm.confusion_matrix(y, q, sample_weight=w).dtype == np.int64


def test_check_scoring_cannot_recognise_a_dartboard_metric():
    with pytest.raises(ValueError, match="make_scorer"):
        skm.check_scoring(LogisticRegression(), scoring=skm.f1_score)
    assert skm.check_scoring(LogisticRegression(), scoring=dm.f1_score) is dm.f1_score
    scorer = skm.check_scoring(LogisticRegression(), scoring=skm.make_scorer(dm.f1_score))
    assert scorer._score_func is dm.f1_score


def test_cosine_similarity_is_paired():
    a = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
    b = np.array([[1.0, 1.0], [0.0, 1.0], [3.0, 0.0]])
    np.testing.assert_allclose(dm.cosine_similarity(a, b), np.diag(pairwise_cosine(a, b)))
    assert pairwise_cosine(a, b).shape == (3, 3)
    assert pairwise_cosine([[0.0, 0.0]], [[1.0, 0.0]])[0, 0] == 0.0
    with pytest.raises(ValueError, match="zero vector"):
        dm.cosine_similarity([0.0, 0.0], [1.0, 0.0])


# ------------------------------------------------------------------ no longer different

def test_clustering_scorers_are_sklearns_own():
    # scikit-learn's test_supervised_cluster_scorers asks get_scorer for these; dartboard
    # computes no clustering score and hands scikit-learn's scorer
    assert dm.get_scorer_names() == skm.get_scorer_names()
    for name in ("adjusted_rand_score", "v_measure_score", "normalized_mutual_info_score"):
        ours, theirs = dm.get_scorer(name), skm.get_scorer(name)
        assert ours._score_func is theirs._score_func
        assert ours is not dm.get_scorer(name)  # a new copy each time, as scikit-learn
        X = np.array([[0.0], [0.1], [5.0], [5.2]])
        from sklearn.cluster import KMeans

        model = KMeans(n_clusters=2, n_init=2, random_state=0).fit(X)
        assert ours(model, X, [0, 0, 1, 1]) == theirs(model, X, [0, 0, 1, 1]) == 1.0
    with pytest.raises(ValueError, match="not a valid scoring value"):
        dm.get_scorer("no_such_score")


@pytest.mark.parametrize("max_fpr", [0.1, 0.5, 0.999, 1.0])
def test_samples_average_with_max_fpr_as_sklearn(max_fpr):
    rng = np.random.default_rng(0)
    # every row holds both a positive and a negative label; scores with ties
    t = np.tile([[0, 1, 1, 0, 1], [1, 0, 0, 1, 0]], (6, 1))
    s = rng.integers(0, 4, t.shape) / 4.0
    w = rng.random(t.shape[0])
    for weights in (None, w):
        np.testing.assert_allclose(
            dm.roc_auc_score(t, s, average="samples", max_fpr=max_fpr, sample_weight=weights),
            skm.roc_auc_score(t, s, average="samples", max_fpr=max_fpr,
                              sample_weight=weights), rtol=1e-12)


def test_samples_average_with_max_fpr_of_a_one_class_row_is_nan_as_sklearn():
    t = np.array([[0, 1, 1], [1, 1, 1]])
    s = np.array([[0.1, 0.5, 0.7], [0.2, 0.3, 0.4]])
    with pytest.warns(sklearn.exceptions.UndefinedMetricWarning):
        theirs = skm.roc_auc_score(t, s, average="samples", max_fpr=0.5)
    with pytest.warns(sklearn.exceptions.UndefinedMetricWarning, match="one class"):
        ours = dm.roc_auc_score(t, s, average="samples", max_fpr=0.5)
    assert np.isnan(ours) and np.isnan(theirs)



@pytest.mark.parametrize("call", [
    lambda m: m.f1_score(["a", "b"], [0, 1], average="macro"),  # mixed label types
    lambda m: m.recall_score(["a", "b"], ["a", "b"]),  # pos_label=1 with strings
    lambda m: m.confusion_matrix([0, 1], [0, 1], labels=["a"]),
    lambda m: m.accuracy_score([0, 1, 1], [0, 1, 1], sample_weight=[1j, 1, 1]),
    lambda m: m.accuracy_score(np.array([[1], [2, 3]], dtype=object), [0, 1]),
    lambda m: m.f1_score(np.array([[0, 1], [1, 1]]), np.array([[0, 1], [1, 1]])),
], ids=["mixed", "pos_label", "labels", "complex-weights", "lists", "multilabel-binary"])
def test_value_errors_where_sklearn_raises_value_error(call):
    with pytest.raises(ValueError):
        call(skm)
    with pytest.raises(ValueError):
        call(dm)


def test_undefined_metric_warning_is_caught_by_sklearns_filters():
    assert issubclass(dm.UndefinedMetricWarning, sklearn.exceptions.UndefinedMetricWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", sklearn.exceptions.UndefinedMetricWarning)
        assert dm.precision_score([0, 0], [0, 0]) == 0.0
    with pytest.warns(sklearn.exceptions.UndefinedMetricWarning):
        dm.recall_score([0, 0], [1, 1])


def test_labels_of_the_wrong_type_are_an_error_not_zeros():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sklearn.exceptions.UndefinedMetricWarning)
        assert skm.f1_score([0, 1], [0, 1], labels=["a"], average="macro") == 0.0
    with pytest.raises(ValueError, match="labels are strings but the class labels in the "
                                         "data are numbers"):
        dm.f1_score([0, 1], [0, 1], labels=["a"], average="macro")


def test_negative_and_object_weights_as_sklearn():
    y, q = [0, 1, 1, 0, 1], [0, 1, 0, 0, 1]
    for name in ("accuracy_score", "f1_score", "precision_score", "recall_score",
                 "confusion_matrix", "matthews_corrcoef"):
        w = [1, -0.5, 2, 1, 1]
        np.testing.assert_allclose(getattr(dm, name)(y, q, sample_weight=w),
                                   getattr(skm, name)(y, q, sample_weight=w))
    w = np.array([1, 2, 1, 3, 1], dtype=object)  # scikit-learn's f1 refuses these
    for name in ("accuracy_score", "confusion_matrix", "matthews_corrcoef",
                 "balanced_accuracy_score"):
        np.testing.assert_allclose(getattr(dm, name)(y, q, sample_weight=w),
                                   getattr(skm, name)(y, q, sample_weight=w))


def test_single_label_warning_and_adjusted_balanced_accuracy_of_one_class():
    with pytest.warns(UserWarning, match="A single label was found"):
        dm.confusion_matrix([0, 0], [0, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = dm.balanced_accuracy_score([0, 0, 0], [0, 1, 0], adjusted=True)
        theirs = skm.balanced_accuracy_score([0, 0, 0], [0, 1, 0], adjusted=True)
    assert ours == theirs == -np.inf


def test_float32_regression_inputs_are_computed_in_float64():
    rng = np.random.default_rng(0)
    t = (rng.gamma(2.0, 2.0, 5000) + 0.1).astype(np.float32)
    p = (t * np.exp(rng.normal(0.0, 0.3, 5000))).astype(np.float32)
    for name in ("mean_squared_error", "r2_score", "mean_squared_log_error",
                 "mean_gamma_deviance"):
        ours = getattr(dm, name)(t, p)
        assert ours == pytest.approx(getattr(skm, name)(t.astype(np.float64),
                                                        p.astype(np.float64)), rel=1e-12)
        assert ours != getattr(skm, name)(t, p)  # scikit-learn's float32 arithmetic


def test_r2_at_extreme_scales_is_not_nan_or_one():
    rng = np.random.default_rng(1)
    t = rng.normal(size=20)
    p = t + 0.3 * rng.normal(size=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(skm.r2_score(t * 1e200, p * 1e200))
        assert skm.r2_score(t * 1e-200, p * 1e-200) == 1.0
    for scale in (1e200, 1e-200):
        assert dm.r2_score(t * scale, p * scale) == pytest.approx(skm.r2_score(t, p),
                                                                  rel=1e-12)
