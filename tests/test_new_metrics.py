"""The metrics added for scikit-learn coverage, each against scikit-learn itself.

Randomised inputs (binary, multiclass, multilabel indicators, relevances, positive
targets; with and without sample weights), then the edge cases scikit-learn's own
tests pin (sklearn/metrics/tests/test_classification.py, test_ranking.py,
test_regression.py), then the engines that reach the new metrics through the
registry (confusion counts, streaming means, paired comparisons).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from _quiet import quiet

import dartboard as db
import dartboard.metrics as dm

SEEDS = range(6)




def same(ours, theirs):
    if isinstance(theirs, tuple):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            same(a, b)
        return
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12, equal_nan=True)


def both(name, *args, **kw):
    same(quiet(getattr(dm, name), *args, **kw), quiet(getattr(skm, name), *args, **kw))


def data(seed, n_classes, n=400):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    pred = np.where(rng.random(n) < 0.6, y, rng.integers(0, n_classes, n))
    w = rng.random(n) * 3
    return rng, y, pred, w


# ------------------------------------------------------------------ counts

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


# ------------------------------------------------------------------ ranking

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


@pytest.mark.parametrize("seed", SEEDS)
def test_det_curve_equals_sklearn(seed):
    rng, y, _, w = data(seed, 2, n=300)
    s = np.round(rng.random(300), 2)
    for weight in (None, w):
        for drop in (False, True):
            both("det_curve", y, s, sample_weight=weight, drop_intermediate=drop)
    both("det_curve", np.array(["a", "b"])[y], s, pos_label="a")


def test_det_curve_needs_two_classes():
    with pytest.raises(ValueError, match="Only one class"):
        dm.det_curve([1, 1, 1], [0.1, 0.2, 0.3])


@pytest.mark.parametrize("seed", SEEDS)
def test_auc_equals_sklearn(seed):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.random(30))
    y = rng.random(30)
    both("auc", x, y)
    both("auc", x[::-1], y[::-1])
    fpr, tpr, _ = skm.roc_curve(rng.integers(0, 2, 50), rng.random(50))
    both("auc", fpr, tpr)


def test_auc_errors_as_sklearn():
    with pytest.raises(ValueError, match="At least 2 points"):
        dm.auc([0.0], [0.1])
    with pytest.raises(ValueError, match="neither increasing nor decreasing"):
        dm.auc([0, 1, 0.5], [0, 1, 1])


# ------------------------------------------------------------------ probabilities

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_d2_log_loss_and_brier_equal_sklearn(seed, n_classes):
    rng, y, _, w = data(seed, n_classes)
    proba = rng.dirichlet(np.ones(n_classes), y.shape[0])
    for name in ("d2_log_loss_score", "d2_brier_score"):
        for weight in (None, w):
            both(name, y, proba, sample_weight=weight)
            if n_classes == 2:
                both(name, y, proba[:, 1], sample_weight=weight)
        extra = rng.dirichlet(np.ones(n_classes + 1), y.shape[0])  # a class never seen
        both(name, y, extra, labels=np.arange(n_classes + 1))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_labels", [2, 4, 10])
def test_d2_log_loss_and_brier_of_multilabel_equal_sklearn(seed, n_labels):
    # a 2-D 0/1 y_true is one column per class, as log_loss and brier_score_loss take it
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, (120, n_labels))
    y[:, 0] = 0  # a label no sample holds
    proba = rng.dirichlet(np.ones(n_labels), 120)
    w = rng.random(120) * 3
    for name in ("d2_log_loss_score", "d2_brier_score"):
        for weight in (None, w, np.round(w)):
            both(name, y, proba, sample_weight=weight)
        both(name, y.astype(bool), proba)


def test_d2_of_a_row_against_a_column_raises_as_sklearn():
    # scikit-learn's test_format_invariance_with_1d_vectors: not one sample, an error
    y, p = np.array([0, 1, 1, 0]), np.array([0.2, 0.7, 0.6, 0.4])
    for name in ("d2_log_loss_score", "d2_brier_score"):
        for a, b in ((y, p.reshape(1, -1)), (y.reshape(-1, 1), p.reshape(1, -1)),
                     (y.reshape(1, -1), p)):
            with pytest.raises(ValueError):
                quiet(getattr(skm, name), a, b)
            with pytest.raises(ValueError):
                quiet(getattr(dm, name), a, b)


def test_d2_of_fewer_than_two_samples_is_nan():
    for name, other in (("d2_log_loss_score", [[0.3, 0.7]]), ("d2_brier_score", [0.3]),
                        ("d2_tweedie_score", [1.0]), ("d2_pinball_score", [1.0]),
                        ("d2_absolute_error_score", [1.0])):
        with pytest.warns(dm.UndefinedMetricWarning, match="less than two samples"):
            assert np.isnan(getattr(dm, name)([1], other))


# ------------------------------------------------------------------ regression

def _targets(seed, n=500, outputs=1):
    rng = np.random.default_rng(seed)
    shape = (n,) if outputs == 1 else (n, outputs)
    return rng, rng.gamma(2.0, size=shape), rng.gamma(2.0, size=shape), rng.random(n)


@pytest.mark.parametrize("seed", SEEDS)
def test_regression_additions_equal_sklearn(seed):
    _, t, p, w = _targets(seed)
    t[:10] = 0.0  # zeros are in the domain of the log and Poisson losses
    for weight in (None, w):
        both("mean_squared_log_error", t, p, sample_weight=weight)
        both("root_mean_squared_log_error", t, p, sample_weight=weight)
        both("mean_poisson_deviance", t, p, sample_weight=weight)
        both("d2_absolute_error_score", t, p, sample_weight=weight)
        for alpha in (0.0, 0.1, 0.5, 0.9, 1.0):
            both("mean_pinball_loss", t, p, alpha=alpha, sample_weight=weight)
            both("d2_pinball_score", t, p, alpha=alpha, sample_weight=weight)
        for power in (-1.5, 0, 1, 1.2, 1.5):
            both("mean_tweedie_deviance", t, p, power=power, sample_weight=weight)
            both("d2_tweedie_score", t, p, power=power, sample_weight=weight)
    t[:10] = 0.5  # strictly positive for the gamma and power >= 2 deviances
    for weight in (None, w):
        both("mean_gamma_deviance", t, p, sample_weight=weight)
        for power in (2, 3, 2.5):
            both("mean_tweedie_deviance", t, p, power=power, sample_weight=weight)
            both("d2_tweedie_score", t, p, power=power, sample_weight=weight)


@pytest.mark.parametrize("seed", SEEDS)
def test_multioutput_regression_additions_equal_sklearn(seed):
    _, t, p, w = _targets(seed, outputs=3)
    for mo in ("raw_values", "uniform_average", [0.2, 0.5, 0.3]):
        for weight in (None, w):
            both("mean_squared_log_error", t, p, multioutput=mo, sample_weight=weight)
            both("root_mean_squared_log_error", t, p, multioutput=mo, sample_weight=weight)
            both("mean_pinball_loss", t, p, alpha=0.3, multioutput=mo, sample_weight=weight)
            both("d2_pinball_score", t, p, alpha=0.7, multioutput=mo, sample_weight=weight)
            both("d2_absolute_error_score", t, p, multioutput=mo, sample_weight=weight)


def test_more_blocks_than_one_equal_sklearn():
    # the block kernel's boundaries (2^15 samples) must not change the sums
    _, t, p, w = _targets(0, n=100_003)
    for weight in (None, w):
        both("mean_squared_log_error", t, p, sample_weight=weight)
        both("mean_tweedie_deviance", t, p, power=1.5, sample_weight=weight)
        both("mean_pinball_loss", t, p, alpha=0.2, sample_weight=weight)


def test_log_domain_error_holds_sklearn_sentence():
    # test_score_objects.py::test_multimetric_scorer_exception_handling looks for
    # scikit-learn's sentence in the text a failing scorer leaves in its result
    for name in ("mean_squared_log_error", "root_mean_squared_log_error"):
        for y, p in (([-1.0, 2.0], [1.0, 2.0]), ([0.0, 2.0], [-3.0, 2.0])):
            with pytest.raises(ValueError) as theirs:
                getattr(skm, name)(y, p)
            with pytest.raises(ValueError) as ours:
                getattr(dm, name)(y, p)
            assert str(theirs.value) in str(ours.value)
            assert "y_true" in str(ours.value)


def test_regression_domains_and_options_as_sklearn():
    with pytest.raises(ValueError, match="less than or equal to -1"):
        dm.mean_squared_log_error([-1.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="strictly positive y_pred"):
        dm.mean_poisson_deviance([1.0, 2.0], [0.0, 2.0])
    with pytest.raises(ValueError, match="non-negative y_true"):
        dm.mean_poisson_deviance([-1.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="strictly positive y_true"):
        dm.mean_gamma_deviance([0.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="strictly positive y_pred"):
        dm.mean_tweedie_deviance([1.0, 2.0], [-1.0, 2.0], power=-1)
    for bad in (0.5, "a", np.nan):
        with pytest.raises(ValueError, match="power"):
            dm.mean_tweedie_deviance([1.0, 2.0], [1.0, 2.0], power=bad)
    with pytest.raises(ValueError, match="alpha"):
        dm.mean_pinball_loss([1.0, 2.0], [1.0, 2.0], alpha=1.5)
    with pytest.raises(ValueError, match="Multioutput"):
        dm.mean_tweedie_deviance(np.ones((3, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="y_pred"):
        dm.mean_pinball_loss([1.0, 2.0], [1.0, np.nan])


def test_d2_tweedie_of_a_constant_target_follows_the_d2_convention():
    # deliberate deviation: scikit-learn raises ZeroDivisionError here; dartboard gives
    # D^2 pinball's answer (1.0 for perfect predictions, else 0.0)
    with pytest.raises(ZeroDivisionError):
        skm.d2_tweedie_score([1.0, 1.0], [1.0, 2.0])
    assert dm.d2_tweedie_score([1.0, 1.0], [1.0, 2.0]) == 0.0
    assert dm.d2_tweedie_score([1.0, 1.0], [1.0, 1.0]) == 1.0
    assert skm.d2_pinball_score([1.0, 1.0], [1.0, 2.0]) == \
        dm.d2_pinball_score([1.0, 1.0], [1.0, 2.0]) == 0.0


# ------------------------------------------------------------------ engines

def test_regression_losses_stream_and_compare_through_their_terms(tmp_path):
    import pandas as pd

    from dartboard.scale import evaluate_parquet

    _, t, p, _ = _targets(3, n=3000)
    for i in range(3):
        pd.DataFrame({"y": t[i::3], "p": p[i::3]}).to_parquet(tmp_path / f"{i}.parquet")
    names = ["mean_squared_log_error", "mean_pinball_loss", "mean_poisson_deviance",
             "mean_gamma_deviance"]
    from _streamed import values

    got = values(evaluate_parquet(tmp_path, y_true="y", y_pred="p", metrics=names))
    for name in names:
        assert got[name] == pytest.approx(getattr(skm, name)(t, p), rel=1e-12)
    result = db.compare_models(dm.mean_poisson_deviance, t, p, p * 1.1, n_resamples=200,
                               random_state=0)
    assert "per-sample loss" in result.method
    assert result.estimate_a == pytest.approx(skm.mean_poisson_deviance(t, p), rel=1e-12)


def test_count_losses_get_intervals_and_comparisons_from_counts():
    _, y, p, _ = data(2, 3)
    iv = db.interval(dm.hamming_loss, y, p, n_resamples=500, random_state=0)
    assert iv.low < skm.hamming_loss(y, p) < iv.high
    result = db.compare_models(dm.zero_one_loss, y, p, y, n_resamples=200, random_state=0)
    assert result.difference == pytest.approx(skm.zero_one_loss(y, p), rel=1e-12)
