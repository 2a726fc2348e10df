"""What ``dartboard.evaluate`` and the functions around it do with inputs that are
wrong, ambiguous or merely unusual: no silent guesses, a clear error naming the
argument, the number scikit-learn (or a plain loop) gives otherwise.

Each test pins one item of the second fuzzing campaign or of the first-hour report;
the oracle is named in it.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from _quiet import quiet
from sklearn import metrics as skm

import dartboard as db
import dartboard.metrics as dm

RNG = np.random.default_rng(29)
N = 120
Y = RNG.integers(0, 2, N)
Y[:2] = [0, 1]
SCORE = np.round(np.clip(0.3 * Y + 0.7 * RNG.random(N), 0, 1), 3)
FAST = {"n_resamples": 60, "random_state": 0}


# ------------------------------------------------ scores passed as labels (the task)

@pytest.mark.parametrize("k", [2, 3, 10])
def test_scores_passed_as_y_pred_are_refused_not_a_regression(k):
    # evaluate(y, model.predict_proba(X)[:, 1]) was a regression with MAPE 1e14
    y = RNG.integers(0, k, N)
    with pytest.raises(ValueError, match=r"y_score=.*task='regression'"):
        db.evaluate(y, SCORE, **FAST)


def test_regression_asked_for_on_integer_targets_is_a_regression():
    # the refusal above names the way out, and it works: scikit-learn's numbers
    ev = quiet(db.evaluate, Y, SCORE, task="regression", **FAST)
    assert ev.task == "regression" and "task" not in ev.assumptions
    assert ev.overall.loc["mean_absolute_error", "estimate"] == pytest.approx(
        skm.mean_absolute_error(Y, SCORE), rel=1e-12)


def test_many_integer_targets_with_continuous_predictions_are_a_regression():
    # its own generator: the module's one gave values that depended on which tests ran
    # before in the same worker (an example value of 60.267 once failed the check)
    rng = np.random.default_rng(61)
    y = rng.integers(0, 60, N)
    p = y + rng.normal(size=N)
    ev = db.evaluate(y, p, **FAST)
    assert ev.task == "regression"
    # the reason is not a count of 60 classes
    assert ev.assumptions["task"][0] == "regression"
    assert not re.search(r"\b60 classes", ev.assumptions["task"][1])
    assert ev.overall.loc["r2", "estimate"] == pytest.approx(skm.r2_score(y, p), rel=1e-12)


@pytest.mark.parametrize("true_dtype, pred_dtype", [(np.int64, np.float64),
                                                    (np.uint64, np.int64),
                                                    (np.int32, np.uint8)])
def test_task_counts_the_labels_of_both_columns_whatever_their_dtypes(true_dtype, pred_dtype):
    # int against float, uint64 against int64: the labels of y_pred were not counted,
    # and the error spoke of average='binary', which nobody passed
    y = np.array([0, 1, 0, 1, 0, 1] * 5, dtype=true_dtype)
    p = np.array([0, 1, 2, 1, 0, 1] * 5, dtype=pred_dtype)
    ev = quiet(db.evaluate, y, p, **FAST)
    same = quiet(db.evaluate, y.astype(np.int64), p.astype(np.int64), **FAST)
    assert ev.task == same.task == "multiclass"
    y64, p64 = y.astype(np.int64), p.astype(np.int64)
    assert ev.overall.loc["f1_macro", "estimate"] == pytest.approx(
        quiet(skm.f1_score, y64, p64, average="macro"))


@pytest.mark.parametrize("bad", [
    np.array([0, 1, None, 1] * 6, dtype=object),
    pd.Series([0, 1, pd.NA, 1] * 6, dtype=object),
    np.array([0, "a", 1, "a"] * 6, dtype=object),
], ids=["None", "pd.NA", "str and int"])
def test_object_labels_with_missing_or_mixed_values_name_y_true(bad):
    # numpy's TypeError ("'<' not supported", "boolean value of NA is ambiguous") came
    # out of the task inference; the metric functions say ValueError naming y_true
    pred = np.array([0, 1, 1, 1] * 6)
    with pytest.raises(ValueError, match="y_true"):
        db.evaluate(bad, pred, **FAST)
    with pytest.raises(ValueError, match="y_true"):
        dm.accuracy_score(bad, pred)


# ------------------------------------------------ the threshold of scores

def test_scores_with_no_usual_cut_are_refused_for_labels_only():
    # scores in [3, 97] were cut at 0: every sample positive, precision = prevalence
    risk = 3 + 94 * SCORE
    with pytest.raises(ValueError, match="threshold=.*y_pred="):
        db.evaluate(Y, y_score=risk, **FAST)
    ranking = db.evaluate(Y, y_score=risk, metrics=["roc_auc", "average_precision"], **FAST)
    assert ranking.overall.loc["roc_auc", "estimate"] == pytest.approx(
        skm.roc_auc_score(Y, risk))
    cut = db.evaluate(Y, y_score=risk, threshold=50, **FAST)
    assert cut.overall.loc["precision", "estimate"] == pytest.approx(
        skm.precision_score(Y, risk >= 50))
    assert "threshold" not in cut.assumptions


@pytest.mark.parametrize("scores, cut", [(SCORE, 0.5), (SCORE - 0.5, 0.0)],
                         ids=["probabilities", "decision values"])
def test_the_usual_cut_of_scores_is_stated(scores, cut):
    ev = db.evaluate(Y, y_score=scores, **FAST)
    assert ev.assumptions["threshold"][0] == cut
    assert ev.overall.loc["recall", "estimate"] == pytest.approx(
        skm.recall_score(Y, scores >= cut))


# ------------------------------------------------ the positive class

@pytest.mark.parametrize("labels", [("cat", "dog"), (1, 2), ("yes", "no")])
def test_labels_other_than_0_1_need_pos_label(labels):
    y = np.array(labels)[Y]
    p = np.array(labels)[(SCORE >= 0.5).astype(int)]
    with pytest.raises(ValueError, match="pos_label="):
        db.evaluate(y, p, **FAST)
    with pytest.raises(ValueError, match="pos_label="):
        db.evaluate(y, y_score=SCORE, **FAST)
    # numbers that do not depend on it are given without it
    ev = db.evaluate(y, p, metrics=["accuracy", "matthews_corrcoef"], **FAST)
    assert ev.overall.loc["accuracy", "estimate"] == pytest.approx(skm.accuracy_score(y, p))
    given = db.evaluate(y, p, pos_label=labels[1], **FAST)
    assert given.overall.loc["precision", "estimate"] == pytest.approx(
        skm.precision_score(y, p, pos_label=labels[1]))
    assert "positive_class" not in given.assumptions


def test_fairness_without_a_positive_class_is_a_clear_error():
    y = np.array(["no", "yes"])[Y]
    p = np.array(["no", "yes"])[(SCORE >= 0.5).astype(int)]
    ev = db.evaluate(y, p, metrics=["accuracy"], groups=RNG.choice(["a", "b"], N), **FAST)
    with pytest.raises(ValueError, match="pos_label"):
        ev.fairness()
    assert "fairness" not in ev.to_dict()


# ------------------------------------------------ groups given as a list of columns

@pytest.mark.parametrize("n", [6, 2])
def test_groups_as_a_list_of_columns_are_columns(n):
    # read as an (n, k) matrix: an error for most n, and for n == k silently the wrong
    # groups (sample 0 got its keys from two different samples)
    sex = np.array(["f", "m"] * (n // 2))
    age = np.array(["old"] * (n // 2) + ["young"] * (n // 2))
    y = np.array([0, 1] * (n // 2))
    p = np.array([0, 1, 1, 0, 0, 1][:n])
    ev = db.evaluate(y, p, groups=[sex, age], metrics=["accuracy"], **FAST)
    frame = ev.by_group.xs("accuracy", level="metric")
    for (s, a), row in frame.iterrows():  # a plain loop over the samples
        rows = (sex == s) & (age == a)
        assert row["n"] == rows.sum()
        assert row["estimate"] == pytest.approx(np.mean(y[rows] == p[rows]))
    assert len(frame) == len(set(zip(sex, age)))


def test_groups_as_a_list_of_named_series_keep_their_names():
    sex = pd.Series(RNG.choice(["f", "m"], N), name="sex")
    age = pd.Series(RNG.choice(["old", "young"], N), name="age")
    ev = db.evaluate(Y, (SCORE >= 0.5).astype(int), groups=[sex, age],
                     metrics=["accuracy"], **FAST)
    assert ev.by_group.index.names == ["sex", "age", "metric"]


# ------------------------------------------------ weights

@pytest.mark.parametrize("scale", [1e-320, 1e-300, 1e300])
def test_denormal_and_huge_weights_give_the_unweighted_ranking_metrics(scale):
    # AUC is scale-invariant; 1e-320 gave nan (scikit-learn gives the unweighted AUC)
    w = np.full(N, scale)
    for name in ("roc_auc_score", "average_precision_score"):
        assert getattr(dm, name)(Y, SCORE, sample_weight=w) == pytest.approx(
            getattr(skm, name)(Y, SCORE), rel=1e-9)


@pytest.mark.parametrize("scale", [1e-320, 1e300])
def test_every_weighted_ratio_metric_is_scale_free(scale):
    # equal weights are no weights: the oracle is scikit-learn without weights
    pred = (SCORE >= 0.5).astype(int)
    w = np.full(N, scale)
    for name in ("accuracy_score", "precision_score", "matthews_corrcoef",
                 "cohen_kappa_score", "balanced_accuracy_score", "f1_score"):
        assert getattr(dm, name)(Y, pred, sample_weight=w) == pytest.approx(
            getattr(skm, name)(Y, pred), rel=1e-9), name
    for name in ("log_loss", "brier_score_loss"):
        assert getattr(dm, name)(Y, SCORE, sample_weight=w) == pytest.approx(
            getattr(skm, name)(Y, SCORE), rel=1e-9), name
    y_reg = SCORE * 10
    assert dm.mean_absolute_error(y_reg, y_reg + SCORE, sample_weight=w) == pytest.approx(
        skm.mean_absolute_error(y_reg, y_reg + SCORE), rel=1e-9)


def test_evaluation_with_denormal_weights_gives_the_unweighted_numbers():
    ev = quiet(db.evaluate, Y, y_score=SCORE, sample_weight=np.full(N, 1e-320), **FAST)
    plain = quiet(db.evaluate, Y, y_score=SCORE, sample_weight=np.full(N, 0.5), **FAST)
    np.testing.assert_allclose(ev.overall["estimate"], plain.overall["estimate"], rtol=1e-9)
    # every interval too, but the ECE's: its bin-level draws need whole row counts
    bounded = ev.overall.drop(index="ece")
    assert np.isfinite(bounded[["low", "high"]].to_numpy(dtype=float)).all()
    np.testing.assert_allclose(bounded[["low", "high"]].to_numpy(dtype=float),
                               plain.overall.drop(index="ece")[["low", "high"]]
                               .to_numpy(dtype=float), rtol=1e-6)
    assert ev.overall.loc["ece", "method"].startswith("n/a (a bin-level bootstrap")


def test_confusion_matrix_keeps_the_scale_of_its_weights():
    # counts are not ratios: they are the weights' sums, as scikit-learn gives them
    pred = (SCORE >= 0.5).astype(int)
    w = np.full(N, 1e-300)
    np.testing.assert_allclose(dm.confusion_matrix(Y, pred, sample_weight=w),
                               skm.confusion_matrix(Y, pred, sample_weight=w), rtol=1e-12)
    assert dm.accuracy_score(Y, pred, normalize=False, sample_weight=w) == pytest.approx(
        skm.accuracy_score(Y, pred, normalize=False, sample_weight=w), rel=1e-12)


def test_one_undefined_interval_does_not_fail_the_evaluation():
    # fractional weights and one class: specificity's bootstrap is undefined on every
    # resample, and the whole evaluation failed with a message naming no metric
    y = np.ones(20, dtype=int)
    p = np.array([1, 0] * 10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = db.evaluate(y, p, sample_weight=np.full(20, 0.5), **FAST)
    assert any(issubclass(w.category, db.uncertainty.IntervalWarning)
               and str(w.message).startswith("no interval for specificity") for w in caught)
    row = ev.overall.loc["specificity"]
    assert row["estimate"] == 0.0  # zero_division, as scikit-learn's recall of class 0
    assert np.isnan(row["low"]) and np.isnan(row["high"])
    assert row["method"].startswith("n/a (") and "bootstrap" in row["method"]
    assert ev.overall.loc["accuracy", "estimate"] == pytest.approx(0.5)


# ------------------------------------------------ probabilities and methods

def test_float32_probabilities_are_probabilities():
    # float32 rows sum to 1 +- 3e-8 and were checked with float64's tolerance
    proba = RNG.dirichlet([1, 1, 1], N).astype(np.float32)
    y3 = RNG.integers(0, 3, N)
    y3[:3] = [0, 1, 2]
    assert dm.log_loss(y3, proba) == pytest.approx(quiet(skm.log_loss, y3, proba), rel=1e-6)
    assert dm.brier_score_loss(y3, proba) == pytest.approx(
        quiet(skm.brier_score_loss, y3, proba), rel=1e-6)
    ev = db.evaluate(y3, y_proba=proba, **FAST)
    assert ev.overall.loc["log_loss", "estimate"] == pytest.approx(
        quiet(skm.log_loss, y3, proba.astype(np.float64)), rel=1e-9)
    with pytest.raises(ValueError, match="sum to 1"):  # a row off by 1e-3 still is not
        dm.log_loss(y3, proba + np.float32(1e-3))


def test_delong_on_a_multiclass_evaluation_leaves_the_auc_on_its_default():
    proba = RNG.dirichlet([1, 1, 1], N)
    y3 = RNG.integers(0, 3, N)
    y3[:3] = [0, 1, 2]
    ev = db.evaluate(y3, y_proba=proba, ci="delong", **FAST)
    default = db.evaluate(y3, y_proba=proba, **FAST)
    assert ev.overall.loc["roc_auc", "method"] == default.overall.loc["roc_auc", "method"]
    assert ev.overall.loc["roc_auc", "estimate"] == pytest.approx(
        skm.roc_auc_score(y3, proba, multi_class="ovr"))


@pytest.mark.parametrize("name", ["hamming_loss", "zero_one_loss"])
def test_empty_multilabel_indicators_say_empty(name):
    empty = np.zeros((0, 3), dtype=int)
    with pytest.raises(ValueError, match="y_true is empty"):
        getattr(dm, name)(empty, empty)


# ------------------------------------------------ a user's callable

def _object(values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


@pytest.mark.parametrize("y_true, y_other, name", [
    (_object([0, 1, pd.NA, 1, 0, 1]), np.array([0, 1, 1, 1, 0, 0]), "y_true"),
    (np.array([0, 1, 0, 1, 0, 1]), _object([0, 1, None, 1, 0, 0]), "y_other"),
    (np.zeros((6, 2, 2)), np.array([0, 1, 1, 1, 0, 0]), "y_true"),
    (np.array([0, 1, 0, 1, 0, 1]), np.array([0.0, 1, np.nan, 1, 0, 0]), "y_other"),
])
def test_a_users_callable_is_handed_checked_rows(y_true, y_other, name):
    seen = []

    def share_equal(a, b):
        seen.append((a, b))
        return float(np.mean(np.asarray(a) == np.asarray(b)))

    with pytest.raises(ValueError, match=name):
        db.interval(share_equal, y_true, y_other, n_resamples=20)
    other = name.replace("y_other", "pred_a")
    with pytest.raises(ValueError, match=other):
        db.compare_models(share_equal, y_true, y_other, np.array([0, 1] * 3), n_resamples=20)
    assert not seen


def test_a_users_callable_gets_a_column_not_a_matrix():
    got = []

    def share_equal(a, b):
        got.append((np.ndim(a), np.ndim(b)))
        return float(np.mean(np.asarray(a) == np.asarray(b)))

    y = Y[:, None]
    p = (SCORE >= 0.5).astype(int)[:, None]
    iv = db.interval(share_equal, y, p, n_resamples=20, random_state=0)
    assert iv.estimate == pytest.approx(skm.accuracy_score(Y, p[:, 0]))
    assert set(got) == {(1, 1)}


# ------------------------------------------------ stability audits

@pytest.mark.parametrize("argument", ["groups", "y_true", "classes", "reference_group"])
def test_stability_metrics_refuse_lists_by_name(argument):
    probas = np.array([[0.1, 0.9, 0.4], [0.2, 0.8, 0.6]])
    kwargs = {"groups": _object([[1], [2], [1]]), "y_true": _object([[1], [0], [1]]),
              "classes": _object([[0], [1]])}
    if argument == "reference_group":
        kwargs = {"groups": np.array(["x", "y", "x"]), "reference_group": ["x"]}
    else:
        kwargs = {argument: kwargs[argument]}
    with pytest.raises((ValueError, TypeError), match=argument):
        db.stability_metrics(probas, **kwargs)


@pytest.mark.parametrize("scale", [1e-320, 1e300])
def test_streamed_weights_beyond_a_common_scale_are_refused_by_name(tmp_path, scale):
    # MCC came out 0.0 (1e-320) or nan (1e300) and WMAPE 0.0: the states' sums and
    # products lost the weights; in memory they are rescaled, a stream has no one scale
    from dartboard.scale import evaluate_parquet

    pred = (SCORE >= 0.5).astype(int)
    pd.DataFrame({"y": Y, "p": pred, "w": np.full(N, scale)}).to_parquet(tmp_path / "w.parquet")
    with pytest.raises(ValueError, match="sample_weight column 'w' holds weights"):
        evaluate_parquet(tmp_path / "w.parquet", y_true="y", y_pred="p", sample_weight="w")
    ev = quiet(db.evaluate, Y, pred, sample_weight=np.full(N, scale), **FAST)
    assert ev.overall.loc["matthews_corrcoef", "estimate"] == pytest.approx(
        skm.matthews_corrcoef(Y, pred))


def test_python_ints_beyond_int64_are_labels_not_a_regression():
    # an object array of Python ints was read as floats: beyond 2**53 every label became
    # the same float, the task a regression and every error 0 (found by the long fuzz)
    y = np.array([0, 1, 2, 2, 0, 2, 1, 0], dtype=np.uint64) + np.uint64(2**63)
    p = np.array([0, 1, 2, 2, 0, 0, 1, 1], dtype=np.uint64) + np.uint64(2**63)
    as_objects = quiet(db.evaluate, y.astype(object), p.astype(object), **FAST)
    as_uint64 = quiet(db.evaluate, y, p, **FAST)
    assert as_objects.task == as_uint64.task == "multiclass"
    pd.testing.assert_frame_equal(as_objects.overall, as_uint64.overall)
    assert as_objects.overall.loc["accuracy", "estimate"] == pytest.approx(0.75)


def test_one_metric_beyond_float64_does_not_fail_the_evaluation():
    # MSE of values near 1e200 is inf (scikit-learn's too): the whole regression was
    # refused as "undefined"; the other metrics are numbers (found by the long fuzz)
    y = np.array([1.5, 2.5, 3.5, 4.0]) * 1e200
    p = np.array([1.4, 2.5, 3.7, 4.2]) * 1e200
    ev = quiet(db.evaluate, y, p, **FAST)
    row = ev.overall.loc["mean_squared_error"]
    assert row["estimate"] == np.inf and np.isnan(row["low"]) and row["method"].startswith("n/a")
    assert ev.overall.loc["mean_absolute_error", "estimate"] == pytest.approx(
        skm.mean_absolute_error(y, p))
    assert ev.overall.loc["r2", "estimate"] == pytest.approx(
        skm.r2_score(y / 1e200, p / 1e200))
