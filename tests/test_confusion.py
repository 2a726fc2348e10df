"""The count family against scikit-learn, hand computations and slow oracles.

scikit-learn is the oracle for every metric it has (values to 1e-12, warnings,
``zero_division``); the dartboard-only metrics (specificity, FPR, FNR, selection
rate) are checked against ``sklearn.metrics.multilabel_confusion_matrix`` with the
averaging written out by hand, and against worked examples.
"""

from __future__ import annotations

import warnings
from unittest import mock

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from _quiet import quiet
from hypothesis import given, settings
from hypothesis import strategies as st

import dartboard._labels as validation
import dartboard.metrics as dm
from dartboard.metrics import ConfusionCounts, UndefinedMetricWarning
from dartboard.metrics._classification_report import _classification_table

TOL = dict(rtol=1e-12, atol=1e-12)
AVERAGES = ["binary", "micro", "macro", "weighted", None]
ZERO_DIVISIONS = ["warn", 0.0, 1.0, np.nan]




def assert_same(actual, expected):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64),
                               np.asarray(expected, dtype=np.float64), equal_nan=True, **TOL)


def assert_same_confusion(y_true, y_pred, **kwargs):
    """dartboard's confusion matrix equals scikit-learn's, and warns as it does (its
    UserWarning on a single label, same message), nothing else."""
    recorded = []
    for module in (dm, skm):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            matrix = module.confusion_matrix(y_true, y_pred, **kwargs)
        recorded.append((matrix, [(w.category, str(w.message)) for w in caught]))
    (ours, our_warnings), (theirs, their_warnings) = recorded
    assert_same(ours, theirs)
    assert our_warnings == their_warnings


# ------------------------------------------------------------------ random cases

LABEL_SETS = {
    "binary01": np.array([0, 1]),
    "binary_pm1": np.array([-1, 1]),
    "binary_bool": np.array([False, True]),
    "binary_str": np.array(["neg", "pos"]),
    "multi_int": np.array([-2, 3, 7, 11]),
    "multi_wide": np.array([0, 5, 10**9]),
    "multi_str": np.array(["ant", "bee", "cat", "dog", "eel"]),
    "multi_float": np.array([0.0, 1.0, 2.0]),
}
POS_LABEL = {"binary01": 1, "binary_pm1": 1, "binary_bool": True, "binary_str": "pos"}


def random_case(seed, kind, n=None, weights=None):
    """Labels with ~65 % agreement, optionally weighted (float or int)."""
    rng = np.random.default_rng(seed)
    classes = LABEL_SETS[kind]
    n = int(rng.integers(5, 60)) if n is None else n
    p = rng.dirichlet(np.ones(len(classes)))
    y_true = rng.choice(classes, n, p=p)
    y_pred = np.where(rng.random(n) < 0.65, y_true, rng.choice(classes, n))
    if weights == "float":
        w = rng.uniform(0.1, 3.0, n)
    elif weights == "int":
        w = rng.integers(1, 5, n)
    else:
        w = None
    return y_true, y_pred, w


CASES = [(seed, kind, weights) for seed in range(2) for kind in LABEL_SETS
         for weights in (None, "float", "int")]


def case_id(case):
    return f"{case[1]}-{case[2]}-{case[0]}"


@pytest.fixture(params=CASES, ids=[case_id(c) for c in CASES])
def case(request):
    seed, kind, weights = request.param
    y_true, y_pred, w = random_case(seed, kind, weights=weights)
    return kind, y_true, y_pred, w


def averages_for(kind):
    return AVERAGES if kind in POS_LABEL else [a for a in AVERAGES if a != "binary"]


# ------------------------------------------------------------------ sklearn equality

def test_confusion_matrix_equals_sklearn(case):
    kind, y_true, y_pred, w = case
    for normalize in (None, "true", "pred", "all"):
        expected = skm.confusion_matrix(y_true, y_pred, sample_weight=w, normalize=normalize)
        actual = dm.confusion_matrix(y_true, y_pred, sample_weight=w, normalize=normalize)
        assert actual.shape == expected.shape
        assert_same(actual, expected)
        if normalize is None:
            # integer counts stay integers (also with integer weights), as sklearn
            assert actual.dtype.kind == expected.dtype.kind


def test_scalar_metrics_equal_sklearn(case):
    kind, y_true, y_pred, w = case
    for normalize in (True, False):
        assert_same(dm.accuracy_score(y_true, y_pred, sample_weight=w, normalize=normalize),
                    skm.accuracy_score(y_true, y_pred, sample_weight=w, normalize=normalize))
    assert_same(dm.matthews_corrcoef(y_true, y_pred, sample_weight=w),
                quiet(skm.matthews_corrcoef, y_true, y_pred, sample_weight=w))
    for adjusted in (False, True):
        assert_same(quiet(dm.balanced_accuracy_score, y_true, y_pred, sample_weight=w,
                          adjusted=adjusted),
                    quiet(skm.balanced_accuracy_score, y_true, y_pred, sample_weight=w,
                          adjusted=adjusted))
    for weights in (None, "linear", "quadratic"):
        assert_same(quiet(dm.cohen_kappa_score, y_true, y_pred, weights=weights,
                          sample_weight=w),
                    quiet(skm.cohen_kappa_score, y_true, y_pred, weights=weights,
                          sample_weight=w))


def test_ratio_metrics_equal_sklearn(case):
    kind, y_true, y_pred, w = case
    pos = POS_LABEL.get(kind, 1)
    for average in averages_for(kind):
        # 0.0 is "warn" without the warning; 1.0 is covered by the edge cases
        for zd in ("warn", np.nan):
            kw = dict(average=average, sample_weight=w, zero_division=zd, pos_label=pos)
            if average != "binary":
                kw.pop("pos_label")
            for name in ("precision_score", "recall_score", "f1_score"):
                assert_same(quiet(getattr(dm, name), y_true, y_pred, **kw),
                            quiet(getattr(skm, name), y_true, y_pred, **kw))
            for beta in (0.5, 2.0):
                assert_same(quiet(dm.fbeta_score, y_true, y_pred, beta=beta, **kw),
                            quiet(skm.fbeta_score, y_true, y_pred, beta=beta, **kw))
            actual = quiet(dm.precision_recall_fscore_support, y_true, y_pred, **kw)
            expected = quiet(skm.precision_recall_fscore_support, y_true, y_pred, **kw)
            for a, e in zip(actual, expected):
                if e is None:
                    assert a is None
                else:
                    assert_same(a, e)


def test_ratio_metrics_with_labels_equal_sklearn(case):
    """Subsets, reordered lists and labels absent from the data."""
    kind, y_true, y_pred, w = case
    classes = LABEL_SETS[kind]
    extra = {"binary_str": "zzz", "multi_str": "zzz", "binary_bool": None}.get(kind, 99)
    choices = [classes[::-1], classes[:1], classes[[-1, 0]]]
    if extra is not None:
        choices.append(np.append(classes, extra))
        choices.append(np.array([extra, classes[0]], dtype=np.append(classes, extra).dtype))
    for labels in choices:
        for average in (None, "micro", "macro", "weighted"):
            kw = dict(labels=labels, average=average, sample_weight=w, zero_division=0.0)
            for name in ("precision_score", "recall_score", "f1_score"):
                assert_same(quiet(getattr(dm, name), y_true, y_pred, **kw),
                            quiet(getattr(skm, name), y_true, y_pred, **kw))
        present = np.isin(labels, np.union1d(y_true, y_pred))
        if np.isin(labels, y_true).any():
            assert_same_confusion(y_true, y_pred, labels=labels, sample_weight=w)
        if present.any() and np.isin(labels, y_true).any():
            assert_same(quiet(dm.cohen_kappa_score, y_true, y_pred, labels=labels,
                              sample_weight=w),
                        quiet(skm.cohen_kappa_score, y_true, y_pred, labels=labels,
                              sample_weight=w))


# ---------------------------------------------------- dartboard-only ratio metrics

def ova_oracle(rate, y_true, y_pred, *, labels=None, average="binary", pos_label=1,
               sample_weight=None, zero_division=0.0):
    """Specificity/FPR/FNR/selection rate from sklearn's per-class 2x2 matrices."""
    if average == "binary":
        labels = [pos_label]
    elif labels is None:
        labels = np.union1d(y_true, y_pred)
    mcm = skm.multilabel_confusion_matrix(y_true, y_pred, labels=labels,
                                          sample_weight=sample_weight).astype(float)
    tn, fp, fn, tp = mcm[:, 0, 0], mcm[:, 0, 1], mcm[:, 1, 0], mcm[:, 1, 1]
    num, den = {"specificity_score": (tn, tn + fp), "false_positive_rate": (fp, fp + tn),
                "false_negative_rate": (fn, fn + tp),
                "selection_rate": (tp + fp, tp + fp + fn + tn)}[rate]
    support = tp + fn
    if average == "micro":
        num, den = np.array([num.sum()]), np.array([den.sum()])
    zd = 0.0 if zero_division == "warn" else zero_division
    values = np.array([n / d if d else zd for n, d in zip(num, den)])
    if average is None:
        return values
    keep = ~np.isnan(values)
    if not keep.any():
        return np.nan
    if average == "weighted" and support[keep].sum() > 0:
        return float(np.sum(values[keep] * support[keep]) / support[keep].sum())
    return float(values[keep].mean())


DARTBOARD_RATES = ["specificity_score", "false_positive_rate", "false_negative_rate",
                   "selection_rate"]


@pytest.mark.parametrize("rate", DARTBOARD_RATES)
def test_dartboard_rates_equal_oracle(case, rate):
    kind, y_true, y_pred, w = case
    pos = POS_LABEL.get(kind, 1)
    for average in averages_for(kind):
        for zd in ZERO_DIVISIONS:
            kw = dict(average=average, sample_weight=w, zero_division=zd)
            if average == "binary":
                kw["pos_label"] = pos
            assert_same(quiet(getattr(dm, rate), y_true, y_pred, **kw),
                        ova_oracle(rate, y_true, y_pred, **kw))
    labels = LABEL_SETS[kind][::-1][:2]
    assert_same(quiet(getattr(dm, rate), y_true, y_pred, labels=labels, average=None,
                      sample_weight=w),
                ova_oracle(rate, y_true, y_pred, labels=labels, average=None,
                           sample_weight=w))


@pytest.mark.parametrize("kind", sorted(POS_LABEL))
@pytest.mark.parametrize("weights", [None, "float"])
def test_binary_specificity_is_recall_of_negative_class(kind, weights):
    y_true, y_pred, w = random_case(11, kind, weights=weights)
    neg, pos = LABEL_SETS[kind]
    assert_same(quiet(dm.specificity_score, y_true, y_pred, pos_label=pos, sample_weight=w),
                quiet(skm.recall_score, y_true, y_pred, pos_label=neg, sample_weight=w))
    assert_same(quiet(dm.false_negative_rate, y_true, y_pred, pos_label=pos, sample_weight=w),
                1 - quiet(skm.recall_score, y_true, y_pred, pos_label=pos, sample_weight=w))


# ------------------------------------------------------------------ zero_division

def test_zero_division_warn_gives_zero_and_warns():
    y_true, y_pred = [0, 0, 1, 1], [0, 0, 0, 0]  # no predicted positives
    for name in ("precision_score",):
        with pytest.warns(UndefinedMetricWarning, match="Precision is ill-defined"):
            assert getattr(dm, name)(y_true, y_pred) == 0.0
        with pytest.warns(skm._classification.UndefinedMetricWarning):
            assert getattr(skm, name)(y_true, y_pred) == 0.0
    with pytest.warns(UndefinedMetricWarning, match="Recall is ill-defined"):
        assert dm.recall_score([0, 0], [0, 1]) == 0.0
    with pytest.warns(UndefinedMetricWarning, match="F-score is ill-defined"):
        assert dm.f1_score([0, 0], [0, 0]) == 0.0
    with pytest.warns(UndefinedMetricWarning, match="Specificity is ill-defined"):
        assert dm.specificity_score([1, 1], [1, 0]) == 0.0
    assert issubclass(UndefinedMetricWarning, UserWarning)


@pytest.mark.parametrize("zd", [0.0, 1.0, np.nan])
def test_explicit_zero_division_is_silent_and_used(zd):
    y_true, y_pred = [0, 0, 1, 1], [0, 0, 0, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = dm.precision_score(y_true, y_pred, zero_division=zd)
        macro = dm.precision_score(y_true, y_pred, zero_division=zd, average="macro")
        spec = dm.specificity_score([1, 1], [1, 0], zero_division=zd)
    assert_same(got, zd)
    assert_same(macro, skm.precision_score(y_true, y_pred, zero_division=zd, average="macro"))
    assert_same(spec, zd)


def test_zero_division_nan_is_ignored_in_macro_average():
    # class 2 is never predicted: its precision is nan and drops out of the mean
    y_true, y_pred = [0, 1, 2, 2], [0, 1, 1, 1]
    got = dm.precision_score(y_true, y_pred, average="macro", zero_division=np.nan)
    assert_same(got, (1.0 + 1 / 3) / 2)
    assert_same(got, skm.precision_score(y_true, y_pred, average="macro",
                                         zero_division=np.nan))


# ------------------------------------------------------------------ edge cases

EDGE_CASES = {
    "one_class_only": ([1, 1, 1, 1], [1, 1, 1, 1]),
    "one_class_negative_only": ([0, 0, 0], [0, 0, 0]),
    "no_predicted_positives": ([0, 1, 1, 0, 1], [0, 0, 0, 0, 0]),
    "all_correct": ([0, 1, 1, 0, 1], [0, 1, 1, 0, 1]),
    "all_wrong": ([0, 1, 1, 0, 1], [1, 0, 0, 1, 0]),
    "pos_label_absent": ([3, 3, 3], [3, 3, 3]),
    "all_correct_multiclass": ([0, 1, 2, 2], [0, 1, 2, 2]),
    "all_wrong_multiclass": ([0, 1, 2, 2], [1, 2, 0, 1]),
    "single_sample": ([1], [0]),
}


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
@pytest.mark.parametrize("zd", ZERO_DIVISIONS)
def test_edge_cases_equal_sklearn(name, zd):
    y_true, y_pred = map(np.asarray, EDGE_CASES[name])
    binary = len(np.union1d(y_true, y_pred)) <= 2
    for average in AVERAGES if binary else AVERAGES[1:]:
        for metric in ("precision_score", "recall_score", "f1_score"):
            assert_same(quiet(getattr(dm, metric), y_true, y_pred, average=average,
                              zero_division=zd),
                        quiet(getattr(skm, metric), y_true, y_pred, average=average,
                              zero_division=zd))
        for rate in DARTBOARD_RATES:
            assert_same(quiet(getattr(dm, rate), y_true, y_pred, average=average,
                              zero_division=zd),
                        ova_oracle(rate, y_true, y_pred, average=average, zero_division=zd))
    assert_same_confusion(y_true, y_pred)
    assert_same(dm.accuracy_score(y_true, y_pred), skm.accuracy_score(y_true, y_pred))
    assert_same(dm.matthews_corrcoef(y_true, y_pred),
                quiet(skm.matthews_corrcoef, y_true, y_pred))
    assert_same(quiet(dm.balanced_accuracy_score, y_true, y_pred),
                quiet(skm.balanced_accuracy_score, y_true, y_pred))
    assert_same(quiet(dm.cohen_kappa_score, y_true, y_pred),
                quiet(skm.cohen_kappa_score, y_true, y_pred))


def test_edge_case_values_by_hand():
    # all correct: every ratio is 1 (except the error rates), MCC 1
    y = [0, 1, 1, 0, 1]
    assert dm.accuracy_score(y, y) == 1.0
    assert dm.matthews_corrcoef(y, y) == 1.0
    assert dm.false_positive_rate(y, y) == 0.0
    # all wrong on a binary task: MCC -1, accuracy 0
    wrong = [1 - v for v in y]
    assert dm.accuracy_score(y, wrong) == 0.0
    assert_same(dm.matthews_corrcoef(y, wrong), -1.0)
    # constant prediction: MCC's denominator is 0 -> 0.0 (documented convention)
    assert dm.matthews_corrcoef(y, [0] * 5) == 0.0
    # pos_label absent from single-class data: all counts are 0 -> zero_division
    assert dm.recall_score([3, 3], [3, 3], zero_division=1.0) == 1.0
    assert dm.selection_rate([3, 3], [3, 3]) == 0.0


def test_balanced_accuracy_adjusted_single_class_warns_nan():
    with pytest.warns(UndefinedMetricWarning, match="single class"):
        assert np.isnan(dm.balanced_accuracy_score([0, 0, 0], [0, 0, 0], adjusted=True))


def test_balanced_accuracy_warns_for_predicted_only_class():
    with pytest.warns(UserWarning, match="y_pred contains classes not in y_true"):
        assert_same(dm.balanced_accuracy_score([0, 0, 1], [0, 2, 1]), 0.75)


def test_pos_label_ignored_warning_when_not_binary():
    with pytest.warns(UserWarning, match="pos_label"):
        dm.precision_score([0, 1, 1], [0, 1, 0], average="macro", pos_label=0)


def test_kappa_undefined_gives_replace_undefined_by():
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(dm.cohen_kappa_score([0, 0, 0], [0, 0, 0]))
    with pytest.warns(UndefinedMetricWarning):
        assert dm.cohen_kappa_score([0, 0], [0, 0], replace_undefined_by=-1.0) == -1.0


# ------------------------------------------------------------------ worked examples

def test_screening_worked_example():
    """900 negatives and 100 positives with TN = 850, FN = 6, FP = 50, TP = 94.

    The numbers are the worked example quoted in issue 2 (a standard
    sensitivity/specificity illustration): TPR = 94/100 = 0.94,
    TNR = 850/900 = 0.9444, FPR = 50/900 = 0.0556, FNR = 6/100 = 0.06.
    """
    y_true = np.r_[np.zeros(900, int), np.ones(100, int)]
    y_pred = np.r_[np.zeros(850, int), np.ones(50, int), np.zeros(6, int), np.ones(94, int)]
    rng = np.random.default_rng(0)
    order = rng.permutation(1000)  # sample order must not matter
    y_true, y_pred = y_true[order], y_pred[order]
    assert dm.confusion_matrix(y_true, y_pred).tolist() == [[850, 50], [6, 94]]
    assert dm.recall_score(y_true, y_pred) == pytest.approx(0.94, abs=1e-12)
    assert dm.specificity_score(y_true, y_pred) == pytest.approx(850 / 900, abs=1e-12)
    assert round(dm.specificity_score(y_true, y_pred), 4) == 0.9444
    assert round(dm.false_positive_rate(y_true, y_pred), 4) == 0.0556
    assert dm.false_negative_rate(y_true, y_pred) == pytest.approx(0.06, abs=1e-12)
    assert dm.precision_score(y_true, y_pred) == pytest.approx(94 / 144, abs=1e-12)
    assert dm.accuracy_score(y_true, y_pred) == pytest.approx(944 / 1000, abs=1e-12)
    assert dm.selection_rate(y_true, y_pred) == pytest.approx(144 / 1000, abs=1e-12)

    all_negative = np.zeros(1000, int)
    assert dm.recall_score(y_true, all_negative, zero_division=0.0) == 0.0
    assert dm.specificity_score(y_true, all_negative) == 1.0


def test_mcc_sign_hand_example():
    # TP = 1, TN = 1, FP = 3, FN = 3: TP*TN - FP*FN = 1 - 9 = -8 < 0, and the
    # denominator is sqrt(4 * 4 * 4 * 4) = 16, so MCC = -0.5 (a "+" would give +0.625)
    y_true = [1, 0, 0, 0, 0, 1, 1, 1]
    y_pred = [1, 0, 1, 1, 1, 0, 0, 0]
    tp, tn, fp, fn = 1, 1, 3, 3
    formula = (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    assert formula == -0.5
    assert dm.matthews_corrcoef(y_true, y_pred) == pytest.approx(formula, abs=1e-15)
    assert_same(dm.matthews_corrcoef(y_true, y_pred), skm.matthews_corrcoef(y_true, y_pred))


def test_multiclass_mcc_is_gorodkin_rk():
    # R_K = (c s - sum_k p_k t_k) / sqrt((s^2 - sum p_k^2)(s^2 - sum t_k^2))
    y_true = [0, 0, 1, 1, 2, 2, 2]
    y_pred = [0, 1, 1, 2, 2, 2, 0]
    c = np.array(dm.confusion_matrix(y_true, y_pred), dtype=float)
    s, correct = c.sum(), np.trace(c)
    t, p = c.sum(axis=1), c.sum(axis=0)
    rk = (correct * s - p @ t) / np.sqrt((s**2 - p @ p) * (s**2 - t @ t))
    assert_same(dm.matthews_corrcoef(y_true, y_pred), rk)


# ------------------------------------------------------------------ classification_report

@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weights", [None, "float"])
def test_classification_report_equals_sklearn(seed, weights):
    y_true, y_pred, w = random_case(seed, "multi_str", n=80, weights=weights)
    ours = _classification_table(y_true, y_pred, sample_weight=w, zero_division=0.0)
    theirs = skm.classification_report(y_true, y_pred, sample_weight=w, output_dict=True,
                                       zero_division=0.0)
    classes = [str(c) for c in np.union1d(y_true, y_pred)]
    assert list(ours.index) == classes + ["micro avg", "macro avg", "weighted avg"]
    for row in classes + ["macro avg", "weighted avg"]:
        for col in ("precision", "recall", "f1-score", "support"):
            assert_same(ours.loc[row, col], theirs[row][col])
    for col in ("precision", "recall", "f1-score"):
        # sklearn names the micro row "accuracy" when every class is reported
        assert_same(ours.loc["micro avg", col], theirs["accuracy"])
        assert_same(ours.loc["micro avg", col],
                    skm.precision_recall_fscore_support(y_true, y_pred, average="micro",
                                                        sample_weight=w)[
                        ["precision", "recall", "f1-score"].index(col)])


def test_classification_report_with_label_subset_equals_sklearn():
    y_true, y_pred, _ = random_case(7, "multi_int", n=60)
    labels = [11, -2, 99]
    ours = _classification_table(y_true, y_pred, labels=labels, zero_division=0.0)
    theirs = skm.classification_report(y_true, y_pred, labels=labels, output_dict=True,
                                       zero_division=0.0)
    for row in ["11", "-2", "99", "micro avg", "macro avg", "weighted avg"]:
        for col in ("precision", "recall", "f1-score", "support"):
            assert_same(ours.loc[row, col], theirs[row][col])


def test_classification_report_specificity_by_hand():
    y_true = ["a", "a", "a", "b", "b", "c"]
    y_pred = ["a", "b", "c", "b", "a", "c"]
    report = _classification_table(y_true, y_pred)
    # class a: negatives are the 3 samples of b and c; one of them (b -> a) is
    # predicted a, so TN = 2, FP = 1 and specificity 2/3.
    # class b: negatives a,a,a,c; a -> b once: TN = 3, FP = 1 -> 3/4.
    # class c: negatives a,a,a,b,b; a -> c once: TN = 4, FP = 1 -> 4/5.
    per_class = np.array([2 / 3, 3 / 4, 4 / 5])
    assert_same(report.loc[["a", "b", "c"], "specificity"], per_class)
    assert_same(report.loc["macro avg", "specificity"], per_class.mean())
    assert_same(report.loc["weighted avg", "specificity"],
                np.average(per_class, weights=[3, 2, 1]))
    assert_same(report.loc["micro avg", "specificity"], (2 + 3 + 4) / (3 + 4 + 5))
    assert report["support"].tolist() == [3, 2, 1, 6, 6, 6]


def test_classification_report_target_names_and_digits():
    report = _classification_table([0, 1, 1], [0, 1, 0], target_names=["no", "yes"],
                                      digits=2)
    assert list(report.index[:2]) == ["no", "yes"]
    assert report.loc["yes", "recall"] == 0.5
    assert report.loc["no", "precision"] == 0.5
    with pytest.raises(ValueError, match="target_names"):
        _classification_table([0, 1, 1], [0, 1, 0], target_names=["only one"])


# ------------------------------------------------------------------ ConfusionCounts

def brute_force_counts(y_true, y_pred, w=None):
    """Slow oracle: sorted classes, then one np.add.at per sample."""
    classes = np.unique(np.concatenate([np.asarray(y_true), np.asarray(y_pred)]))
    t, p = np.searchsorted(classes, y_true), np.searchsorted(classes, y_pred)
    m = np.zeros((len(classes), len(classes)), dtype=float)
    np.add.at(m, (t, p), 1.0 if w is None else np.asarray(w, dtype=float))
    return classes, m


def test_counts_state_basics():
    state = ConfusionCounts.from_predictions(["b", "a", "b"], ["b", "b", "a"])
    assert state.classes.tolist() == ["a", "b"]
    assert state.matrix.tolist() == [[0, 1], [1, 1]]
    assert state.total == 3
    tp, fp, fn, tn = state.one_vs_all()
    assert tp.tolist() == [0, 1] and fp.tolist() == [1, 1]
    assert fn.tolist() == [1, 1] and tn.tolist() == [1, 0]
    assert "ConfusionCounts(classes=['a', 'b']" in repr(state)
    assert state.compute("accuracy_score") == pytest.approx(1 / 3)
    assert state.compute(dm.f1_score, pos_label="b") == pytest.approx(0.5)
    with pytest.raises(ValueError, match="metric must be one of"):
        state.compute("roc_auc_score")
    with pytest.raises(TypeError, match="merge with a ConfusionCounts"):
        state.merge("not a state")
    with pytest.raises(ValueError, match="matrix must have shape"):
        ConfusionCounts([0, 1], np.zeros((3, 3)))
    with pytest.raises(ValueError, match="sorted and distinct"):
        ConfusionCounts([1, 0], np.zeros((2, 2)))


@pytest.mark.parametrize("name", ["accuracy_score", "precision_score", "recall_score",
                                  "f1_score", "specificity_score", "false_positive_rate",
                                  "false_negative_rate", "selection_rate",
                                  "matthews_corrcoef", "balanced_accuracy_score",
                                  "cohen_kappa_score", "confusion_matrix"])
def test_compute_equals_function(name):
    y_true, y_pred, w = random_case(3, "multi_int", n=50, weights="float")
    state = ConfusionCounts.from_predictions(y_true, y_pred, sample_weight=w)
    kw = {"average": "macro"} if name in DARTBOARD_RATES + ["precision_score",
                                                            "recall_score",
                                                            "f1_score"] else {}
    fn = getattr(dm, name)
    if name == "cohen_kappa_score":
        expected = fn(y_true, y_pred, sample_weight=w)
    else:
        expected = fn(y_true, y_pred, sample_weight=w, **kw)
    assert_same(state.compute(name, **kw), expected)


label_values = st.sampled_from([np.array([0, 1]), np.array([3, 7, 9]),
                                np.array([0, 10**9]), np.array(["x", "y", "z"]),
                                np.array([-5, 0, 5, 6])])


@st.composite
def labelled_data(draw, weighted=None):
    values = draw(label_values)
    n = draw(st.integers(1, 40))
    t = draw(st.lists(st.integers(0, len(values) - 1), min_size=n, max_size=n))
    p = draw(st.lists(st.integers(0, len(values) - 1), min_size=n, max_size=n))
    if weighted is None:
        weighted = draw(st.booleans())
    w = None
    if weighted:
        if draw(st.booleans()):
            w = np.array(draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)))
        else:
            w = np.array(draw(st.lists(st.floats(0.125, 4.0), min_size=n, max_size=n)))
    return values[t], values[p], w


def test_merge_of_string_and_number_labels_is_an_error():
    # the merge laws themselves are in test_state_contract.py
    strings = ConfusionCounts.from_predictions(["x", "y"], ["y", "y"])
    numbers = ConfusionCounts.from_predictions([0, 1], [1, 1])
    for a, b in ((strings, numbers), (numbers, strings)):
        with pytest.raises(ValueError, match="labels are"):
            a.merge(b)


def forced(path_name):
    """Spy on one counting path of _validation so a test proves it ran."""
    return mock.patch.object(validation, path_name,
                             wraps=getattr(validation, path_name))


@settings(max_examples=60, deadline=None)
@given(codes=st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1,
                      max_size=50))
def test_binary_paths_agree(codes):
    # one (0, 1) pair makes both values present, so the span decides the path
    t, p = np.array([(0, 1), *codes]).T
    with forced("_count_binary01") as spy:
        c01, m01 = validation.count_label_pairs(t, p)
    assert spy.called
    with forced("_count_direct") as spy:
        cd, md = validation.count_label_pairs(t * 4 + 3, p * 4 + 3)  # labels {3, 7}
    assert spy.called
    with forced("_count_hashed") as spy:
        ch, mh = validation.count_label_pairs(t * 10**9, p * 10**9)
    assert spy.called
    with forced("_count_hashed") as spy:
        cs, ms = validation.count_label_pairs(np.array(["a", "b"])[t], np.array(["a", "b"])[p])
    assert spy.called
    with forced("_count_direct") as spy:  # weights take the bincount path
        cw, mw = validation.count_label_pairs(t, p, np.ones(len(t)))
    assert spy.called
    oracle = brute_force_counts(t, p)[1]
    for m in (m01, md, mh, ms, mw):
        assert_same(m, oracle)
    assert c01.tolist() == np.unique(np.r_[t, p]).tolist()
    assert cd.tolist() == (np.unique(np.r_[t, p]) * 4 + 3).tolist()


@settings(max_examples=60, deadline=None)
@given(codes=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1,
                      max_size=50), weighted=st.booleans())
def test_multiclass_paths_agree(codes, weighted):
    t, p = np.array([(0, 2), *codes]).T
    w = np.arange(1.0, len(t) + 1) / 7 if weighted else None
    direct = np.array([3, 7, 9])
    wide = np.array([0, 10**5, 10**9])
    text = np.array(["a", "b", "c"])
    with forced("_count_direct") as spy:
        _, md = validation.count_label_pairs(direct[t], direct[p], w)
    assert spy.called
    with forced("_count_hashed") as spy:
        _, mh = validation.count_label_pairs(wide[t], wide[p], w)
        _, ms = validation.count_label_pairs(text[t], text[p], w)
    assert spy.call_count == 2
    with mock.patch.object(validation, "_COUNT_BLOCK", 3):  # many small blocks
        _, mb = validation.count_label_pairs(direct[t], direct[p], w)
        _, mn = validation.count_label_pairs((direct - 8)[t].astype(np.int8),
                                             (direct - 8)[p].astype(np.int16), w)
    oracle = brute_force_counts(t, p, w)[1]
    for m in (md, mh, ms, mb, mn):
        assert_same(m, oracle)


def test_bool_and_float_labels_keep_their_type():
    state = ConfusionCounts.from_predictions(np.array([True, False]), np.array([True, True]))
    assert state.classes.dtype == bool
    state = ConfusionCounts.from_predictions(np.array([0.0, 2.0]), np.array([2.0, 2.0]))
    assert state.classes.dtype.kind == "f" and state.classes.tolist() == [0.0, 2.0]


# ------------------------------------------------------------------ hypothesis vs sklearn

@settings(max_examples=80, deadline=None)
@given(data=labelled_data(), average=st.sampled_from(AVERAGES),
       zd=st.sampled_from([0.0, 1.0, np.nan]), beta=st.sampled_from([0.0, 0.5, 2.0, np.inf]))
def test_hypothesis_equals_sklearn(data, average, zd, beta):
    y_true, y_pred, w = data
    classes = np.union1d(y_true, y_pred)
    if average == "binary":
        if len(classes) > 2:
            average = "macro"
        pos = classes[-1]
    kw = dict(average=average, sample_weight=w, zero_division=zd)
    if average == "binary":
        kw["pos_label"] = pos
    for name in ("precision_score", "recall_score", "f1_score"):
        assert_same(quiet(getattr(dm, name), y_true, y_pred, **kw),
                    quiet(getattr(skm, name), y_true, y_pred, **kw))
    # beta = 0 is precision and beta = inf recall, in both libraries
    assert_same(quiet(dm.fbeta_score, y_true, y_pred, beta=beta, **kw),
                quiet(skm.fbeta_score, y_true, y_pred, beta=beta, **kw))
    for rate in DARTBOARD_RATES:
        assert_same(quiet(getattr(dm, rate), y_true, y_pred, **kw),
                    ova_oracle(rate, y_true, y_pred, **kw))
    assert_same_confusion(y_true, y_pred, sample_weight=w)
    assert_same(dm.accuracy_score(y_true, y_pred, sample_weight=w),
                skm.accuracy_score(y_true, y_pred, sample_weight=w))
    assert_same(dm.matthews_corrcoef(y_true, y_pred, sample_weight=w),
                quiet(skm.matthews_corrcoef, y_true, y_pred, sample_weight=w))
    assert_same(quiet(dm.balanced_accuracy_score, y_true, y_pred, sample_weight=w),
                quiet(skm.balanced_accuracy_score, y_true, y_pred, sample_weight=w))
    assert_same(quiet(dm.cohen_kappa_score, y_true, y_pred, sample_weight=w,
                      weights="quadratic"),
                quiet(skm.cohen_kappa_score, y_true, y_pred, sample_weight=w,
                      weights="quadratic"))


def test_large_input_takes_fast_paths_and_matches_sklearn():
    rng = np.random.default_rng(1)
    y_true = rng.integers(0, 10, 200_000)
    y_pred = np.where(rng.random(200_000) < 0.7, y_true, rng.integers(0, 10, 200_000))
    with forced("_count_direct") as spy:
        assert_same_confusion(y_true, y_pred)
        assert_same(dm.f1_score(y_true, y_pred, average="macro"),
                    skm.f1_score(y_true, y_pred, average="macro"))
    assert spy.call_count == 2
    b_true, b_pred = y_true % 2, y_pred % 2
    with forced("_count_binary01") as spy:
        assert_same(dm.matthews_corrcoef(b_true, b_pred), skm.matthews_corrcoef(b_true, b_pred))
        assert_same(dm.f1_score(b_true, b_pred), skm.f1_score(b_true, b_pred))
    assert spy.call_count == 2
    assert_same(pd.Series(y_true).pipe(dm.accuracy_score, y_pred),
                skm.accuracy_score(y_true, y_pred))


def test_empty_state_is_undefined_not_silent():
    empty = ConfusionCounts()
    with pytest.warns(UndefinedMetricWarning, match="no samples"):
        assert np.isnan(empty.compute("accuracy_score"))
    with pytest.warns(UndefinedMetricWarning, match="no samples"):
        assert np.isnan(empty.compute("balanced_accuracy_score"))
    assert empty.compute("accuracy_score", normalize=False) == 0.0
    assert empty.compute("confusion_matrix").shape == (0, 0)


def test_zero_weight_samples_still_define_classes():
    # as sklearn: a class seen only with weight 0 is a row/column of zeros
    assert_same(dm.confusion_matrix([0, 1, 2], [0, 1, 2], sample_weight=[1, 0, 2]),
                skm.confusion_matrix([0, 1, 2], [0, 1, 2], sample_weight=[1, 0, 2]))


def test_uint64_ids_beyond_int64_are_counted_exactly():
    big = np.array([2**63 + 5, 2**63 + 9], dtype=np.uint64)
    state = ConfusionCounts.from_predictions(big, big[[0, 0]])
    assert state.classes.tolist() == [2**63 + 5, 2**63 + 9]
    assert state.matrix.tolist() == [[1, 0], [1, 0]]
    # int64 and uint64 neighbours at 2**63 stay distinct (a float cast would merge them)
    cm = dm.confusion_matrix(np.array([0, 2**63 - 1]), np.array([2**63, 0], dtype=np.uint64))
    assert cm.tolist() == [[0, 0, 1], [1, 0, 0], [0, 0, 0]]
    enc = validation.encode_labels(("a", big), ("b", big[::-1]))
    assert [c.tolist() for c in enc.codes] == [[0, 1], [1, 0]]


@settings(max_examples=40, deadline=None)
@given(data=labelled_data(weighted=False), cut=st.integers(0, 40),
       weights=st.lists(st.integers(1, 4), min_size=40, max_size=40))
def test_merge_of_count_and_weight_states(data, cut, weights):
    """Unweighted (int) and float-weighted states merge into float totals."""
    y_true, y_pred, _ = data
    n = len(y_true)
    cut %= n + 1
    w = np.asarray(weights[:n], dtype=np.float64)
    w[:cut] = 1.0
    head = ConfusionCounts.from_predictions(y_true[:cut], y_pred[:cut]) if cut else \
        ConfusionCounts()
    tail = ConfusionCounts.from_predictions(y_true[cut:], y_pred[cut:],
                                            sample_weight=w[cut:]) if cut < n else \
        ConfusionCounts()
    whole = ConfusionCounts.from_predictions(y_true, y_pred, sample_weight=w)
    for merged in (head.merge(tail), tail.merge(head)):
        assert np.array_equal(merged.classes, whole.classes)
        assert_same(merged.matrix, whole.matrix)
    if n > 1:
        state = ConfusionCounts.from_predictions(y_true[:1], y_pred[:1])
        state.update(y_true[1:], y_pred[1:], w[1:] * 0.5 + 0.5)
        assert state.matrix.dtype == np.float64
        assert_same(state.total, 1 + np.sum(w[1:] * 0.5 + 0.5))


@pytest.mark.parametrize("dtype", [np.uint64, np.uint8, np.int8, np.int32, np.uint32])
def test_every_integer_dtype_counts_like_int64(dtype):
    y_true, y_pred, w = random_case(5, "multi_int", n=200, weights="int")
    y_true, y_pred = y_true + 2, y_pred + 2  # 0..13 fits every dtype
    expected = skm.confusion_matrix(y_true, y_pred, sample_weight=w)
    assert_same(dm.confusion_matrix(y_true.astype(dtype), y_pred.astype(dtype),
                                    sample_weight=w), expected)
    assert_same(dm.confusion_matrix(y_true.astype(dtype), y_pred, sample_weight=w), expected)


@settings(max_examples=60, deadline=None)
@given(data=labelled_data(), average=st.sampled_from([None, "micro", "macro", "weighted"]),
       picks=st.lists(st.integers(0, 5), min_size=1, max_size=6, unique=True))
def test_hypothesis_labels_argument_equals_sklearn(data, average, picks):
    """Subsets, reorderings and labels absent from the data, as sklearn."""
    y_true, y_pred, w = data
    pool = np.union1d(y_true, y_pred)
    extra = np.array(["zz1", "zz2"]) if pool.dtype.kind == "U" else np.array([10**10, -8])
    candidates = np.concatenate([pool, extra.astype(pool.dtype)])
    labels = candidates[[i % len(candidates) for i in picks]]
    labels = labels[np.sort(np.unique(labels, return_index=True)[1])]  # keep first-seen order
    kw = dict(labels=labels, average=average, sample_weight=w, zero_division=0.0)
    for name in ("precision_score", "recall_score", "f1_score"):
        assert_same(quiet(getattr(dm, name), y_true, y_pred, **kw),
                    quiet(getattr(skm, name), y_true, y_pred, **kw))
    for rate in DARTBOARD_RATES:
        assert_same(quiet(getattr(dm, rate), y_true, y_pred, **kw),
                    ova_oracle(rate, y_true, y_pred, **kw))
    if np.isin(labels, y_true).any():
        assert_same_confusion(y_true, y_pred, labels=labels, sample_weight=w)


@pytest.mark.parametrize("call", [
    lambda: dm.precision_score([0, 0], [0, 0]),
    lambda: dm.f1_score([0, 1], [0, 0], labels=[0, 1, 2], average="macro"),
    lambda: dm.specificity_score([1, 1], [1, 1]),
    lambda: dm.recall_score([0, 1, 2], [0, 1, 1], average="macro", pos_label=2),
    lambda: dm.cohen_kappa_score([0, 0], [0, 0]),
    lambda: dm.balanced_accuracy_score([0, 0], [0, 1], adjusted=True),
    lambda: ConfusionCounts([0, 1], [[0, 0], [0, 0]]).compute("accuracy_score"),
])
def test_warnings_point_at_the_callers_line(call):
    # however deep the formula that warns, the warning names the line that called
    # dartboard (the set-wise metrics used to name a line inside _confusion.py)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        call()
    assert rec and {r.filename for r in rec} == {__file__}
