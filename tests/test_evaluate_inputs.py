"""Labels and scores in one evaluation, ``threshold=``, and the record of what the
evaluation decided without being told (``Evaluation.assumptions``).

A user with a tuned threshold (scikit-learn's ``TunedThresholdClassifierCV``, a
cost-based cut) gives the labels at that threshold and the scores: the count metrics
come from the labels, AUC, AP and log loss from the scores. Oracles: scikit-learn on
the same labels or scores, per group a plain loop over the rows of the group; the
streamed and command-line paths against the in-memory one.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from _quiet import quiet
from sklearn import metrics as skm
from typer.testing import CliRunner

import dartboard as db
from dartboard.cli import app

RNG = np.random.default_rng(253)
N = 300
Y = RNG.integers(0, 2, N)
SCORE = np.round(np.clip(0.35 * Y + 0.65 * RNG.random(N), 0, 1), 3)
TUNED = (SCORE >= 0.37).astype(int)  # labels at a tuned threshold, not at 0.5
FAST = {"n_resamples": 100, "random_state": 0}

COUNTS = {"accuracy": skm.accuracy_score, "precision": skm.precision_score,
          "recall": skm.recall_score, "f1": skm.f1_score,
          "matthews_corrcoef": skm.matthews_corrcoef}
SCORES = {"roc_auc": skm.roc_auc_score, "average_precision": skm.average_precision_score,
          "log_loss": skm.log_loss, "brier_score_loss": skm.brier_score_loss}


def _check_binary(frame, y, labels, scores):
    for name, oracle in COUNTS.items():
        assert frame.loc[name, "estimate"] == pytest.approx(oracle(y, labels), abs=1e-12), name
    for name, oracle in SCORES.items():
        assert frame.loc[name, "estimate"] == pytest.approx(oracle(y, scores), abs=1e-12), name


def test_labels_and_scores_together():
    ev = db.evaluate(Y, y_pred=TUNED, y_score=SCORE, **FAST)
    _check_binary(ev.overall, Y, TUNED, SCORE)
    assert "threshold" not in ev.assumptions  # the labels were given
    np.testing.assert_array_equal(ev.result.confusion.matrix, skm.confusion_matrix(Y, TUNED))
    # the curves are those of the scores
    fpr, tpr, _ = skm.roc_curve(Y, SCORE)
    assert ev.result.roc.fpr[-1] == fpr[-1] and len(ev.result.roc.fpr) <= len(fpr)


def test_threshold_is_the_other_way_to_give_the_labels():
    by_threshold = db.evaluate(Y, y_score=SCORE, threshold=0.37, **FAST)
    by_labels = db.evaluate(Y, y_pred=TUNED, y_score=SCORE, **FAST)
    pd.testing.assert_frame_equal(by_threshold.overall, by_labels.overall)
    assert "threshold" not in by_threshold.assumptions


def test_multiclass_labels_with_probabilities():
    proba = RNG.dirichlet([1, 1, 1], N)
    y = RNG.integers(0, 3, N)
    y[:3] = [0, 1, 2]
    labels = np.where(RNG.random(N) < 0.6, y, RNG.integers(0, 3, N))  # not the argmax
    ev = db.evaluate(y, y_pred=labels, y_proba=proba, **FAST)
    o = ev.overall
    assert o.loc["f1_macro", "estimate"] == pytest.approx(
        skm.f1_score(y, labels, average="macro"))
    assert o.loc["accuracy", "estimate"] == pytest.approx(skm.accuracy_score(y, labels))
    assert o.loc["log_loss", "estimate"] == pytest.approx(skm.log_loss(y, proba))
    assert o.loc["roc_auc", "estimate"] == pytest.approx(
        skm.roc_auc_score(y, proba, multi_class="ovr"))
    assert "labels" not in ev.assumptions


def test_binary_labels_with_probabilities_and_threshold():
    proba = np.column_stack([1 - SCORE, SCORE])
    ev = db.evaluate(Y, y_pred=TUNED, y_proba=proba, **FAST)
    _check_binary(ev.overall, Y, TUNED, SCORE)
    cut = db.evaluate(Y, y_proba=proba, threshold=0.37, **FAST)
    _check_binary(cut.overall, Y, TUNED, SCORE)


def test_groups_with_labels_and_scores():
    groups = RNG.choice(["a", "b", "c"], N)
    ev = quiet(db.evaluate, Y, y_pred=TUNED, y_score=SCORE, groups=groups, **FAST)
    for g in ("a", "b", "c"):  # a plain loop over each group's rows
        rows = groups == g
        frame = ev.by_group.xs(g, level=0)
        _check_binary(frame, Y[rows], TUNED[rows], SCORE[rows])
    gaps = ev.difference()
    recall = [skm.recall_score(Y[groups == g], TUNED[groups == g]) for g in "abc"]
    assert gaps.loc["recall", "estimate"] == pytest.approx(max(recall) - min(recall))
    assert gaps.loc["roc_auc", "low"] <= gaps.loc["roc_auc", "estimate"]
    selection = [TUNED[groups == g].mean() for g in "abc"]
    assert ev.fairness().loc["demographic_parity_difference", "estimate"] == pytest.approx(
        max(selection) - min(selection))


@pytest.mark.parametrize("kwargs, match", [
    ({"y_pred": TUNED, "y_score": SCORE, "threshold": 0.3}, "y_pred .* or threshold"),
    ({"y_score": SCORE, "y_proba": np.column_stack([1 - SCORE, SCORE])}, "not both"),
    ({"y_pred": TUNED, "threshold": 0.3}, "y_pred .* or threshold"),
    ({"y_score": SCORE, "threshold": float("nan")}, "threshold must be finite"),
    ({"y_score": SCORE, "threshold": "0.5"}, "threshold must be a real number"),
    ({"y_pred": SCORE, "task": "regression", "threshold": 0.5}, "y_pred .* or threshold"),
])
def test_where_the_labels_come_from_is_said_once(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        db.evaluate(Y, **kwargs, **FAST)


def test_threshold_of_a_multiclass_task_is_refused():
    proba = RNG.dirichlet([1, 1, 1], N)
    y = RNG.integers(0, 3, N)
    with pytest.raises(ValueError, match="threshold .* binary"):
        db.evaluate(y, y_proba=proba, threshold=0.5, **FAST)


# ---------------------------------------------------------------- what was assumed

def test_assumptions_are_stated_in_every_view(tmp_path):
    ev = db.evaluate(Y, y_score=SCORE, **FAST)
    assert ev.assumptions == {
        "task": ("binary", "y_score holds the scores of one class"),
        "positive_class": (1, "labels [0, 1]: scikit-learn's rule for {0, 1} and {-1, 1}"),
        "threshold": (0.5, "y_score lies in [0, 1]: probabilities; labels are "
                           "y_score >= 0.5"),
        "scores": ("probabilities", "y_score lies in [0, 1]: log loss, Brier score and "
                                    "calibration read it as the positive class's "
                                    "probability")}
    assert "assumed threshold = 0.5" in repr(ev)
    assert "assumed threshold: 0.5" in ev._repr_html_()
    saved = json.loads(ev.to_json())["assumptions"]
    assert saved["threshold"] == {"value": 0.5, "why": ev.assumptions["threshold"][1]}
    report = ev.to_html(tmp_path / "r.html").read_text()
    assert "Assumed threshold: 0.5" in report and "Assumed positive class: 1" in report


def test_nothing_is_assumed_when_everything_is_given():
    ev = db.evaluate(Y, y_pred=TUNED, task="binary", pos_label=1, **FAST)
    assert ev.assumptions == {} and "assumed" not in repr(ev)
    assert "assumptions" not in ev.to_dict()


# ---------------------------------------------------------------- streamed and CLI

def _frame():
    proba = np.column_stack([1 - SCORE, SCORE])
    return pd.DataFrame({"y": Y, "p": TUNED, "s": SCORE, "p0": proba[:, 0],
                         "p1": proba[:, 1], "g": RNG.choice(["a", "b"], N)})


def test_streamed_labels_with_scores_and_with_probabilities(tmp_path):
    from dartboard.scale import evaluate_parquet

    frame = _frame()
    frame.iloc[:150].to_parquet(tmp_path / "a.parquet")
    frame.iloc[150:].to_parquet(tmp_path / "b.parquet")
    memory = db.evaluate(Y, y_pred=TUNED, y_score=SCORE, **FAST).overall
    for kwargs in ({"y_score": "s"}, {"y_proba": ["p0", "p1"]}):
        streamed = quiet(evaluate_parquet, str(tmp_path), y_true="y", y_pred="p",
                         random_state=0, n_resamples=100, **kwargs).overall
        for name in ("accuracy", "precision", "recall", "roc_auc"):
            assert streamed.loc[name, "estimate"] == pytest.approx(
                memory.loc[name, "estimate"], abs=1e-12), (kwargs, name)
        assert streamed.loc["precision", "estimate"] == pytest.approx(
            skm.precision_score(Y, TUNED))


def test_streamed_auto_task_is_checked_against_the_values(tmp_path):
    from dartboard.scale import evaluate_parquet

    pd.DataFrame({"y": Y.astype(float), "s": SCORE}).to_parquet(tmp_path / "f.parquet")
    with pytest.raises(ValueError, match="y_score=.*task='regression'"):
        evaluate_parquet(tmp_path / "f.parquet", y_true="y", y_pred="s")
    pd.DataFrame({"y": Y.astype(float), "p": TUNED.astype(float)}).to_parquet(
        tmp_path / "g.parquet")
    with pytest.raises(ValueError, match="task='binary' or 'multiclass'"):
        evaluate_parquet(tmp_path / "g.parquet", y_true="y", y_pred="p")
    ev = quiet(evaluate_parquet, tmp_path / "f.parquet", y_true="y", y_pred="s",
               task="regression")
    assert ev.overall.loc["mean_absolute_error", "estimate"] == pytest.approx(
        skm.mean_absolute_error(Y, SCORE))
    y = RNG.normal(size=N)
    pd.DataFrame({"y": y, "p": y + 0.5}).to_parquet(tmp_path / "r.parquet")
    assumed = quiet(evaluate_parquet, tmp_path / "r.parquet", y_true="y",
                    y_pred="p").assumptions
    assert assumed["task"] == ("regression", "y_true holds non-integer values")


def test_cli_labels_with_scores_threshold_and_pos_label(tmp_path):
    frame = _frame()
    frame["label"] = np.where(Y == 1, "yes", "no")
    frame.to_csv(tmp_path / "p.csv", index=False)
    runner = CliRunner()

    def run(*args):
        res = runner.invoke(app, ["evaluate", str(tmp_path / "p.csv"), "--n-resamples", "100",
                                  "--json", *args])
        assert res.exit_code == 0, res.output
        return {m["metric"]: m["estimate"] for m in json.loads(res.stdout)["metrics"]}

    both = run("--y-true", "y", "--y-pred", "p", "--y-score", "s")
    cut = run("--y-true", "y", "--y-score", "s", "--threshold", "0.37")
    for values in (both, cut):
        assert values["precision"] == pytest.approx(skm.precision_score(Y, TUNED))
        assert values["roc_auc"] == pytest.approx(skm.roc_auc_score(Y, SCORE))
    named = run("--y-true", "label", "--y-score", "s", "--pos-label", "yes")
    assert named["roc_auc"] == pytest.approx(skm.roc_auc_score(Y, SCORE))
    res = runner.invoke(app, ["evaluate", str(tmp_path / "p.csv"), "--y-true", "label",
                              "--y-score", "s"])
    assert res.exit_code == 2 and "pos_label" in res.output
    res = runner.invoke(app, ["evaluate", str(tmp_path / "p.csv"), "--y-true", "y",
                              "--y-pred", "s"])
    assert res.exit_code == 2 and "y_score" in res.output
