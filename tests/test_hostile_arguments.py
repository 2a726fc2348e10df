"""Hostile arguments: a positive class that is not a label, sizes beyond the budget,
plans without a power. Each is refused before any work with the argument's name.

The positive class. Every public function with a ``pos_label`` parameter is found
by introspection and must appear in exactly one table: functions that refuse a
``pos_label`` absent from two present classes with scikit-learn's
``precision_score`` message (the rule of :mod:`dartboard._labels`), and drop-ins
whose scikit-learn counterpart accepts it, which must then return scikit-learn's
value.
"""

from __future__ import annotations

import importlib
import inspect
import warnings

import numpy as np
import pytest
import sklearn.calibration as skc
from sklearn import metrics as skm

import dartboard as db
import dartboard.metrics as dm
from dartboard.evaluation import calibration_points
from dartboard.metrics._registry import specs
from dartboard.uncertainty import calibration_bins

RNG = np.random.default_rng(29)
Y = RNG.integers(0, 2, 60)
Y[:2] = [0, 1]
S = RNG.random(60)
S_B = RNG.random(60)
PRED = (S > 0.5).astype(int)
PROBA = np.c_[1 - S, S]

REFUSED = {
    "precision_score": lambda f: f(Y, PRED, pos_label=5),
    "recall_score": lambda f: f(Y, PRED, pos_label=5),
    "f1_score": lambda f: f(Y, PRED, pos_label=5),
    "fbeta_score": lambda f: f(Y, PRED, beta=2.0, pos_label=5),
    "jaccard_score": lambda f: f(Y, PRED, pos_label=5),
    "precision_recall_fscore_support": lambda f: f(Y, PRED, pos_label=5, average="binary"),
    "specificity_score": lambda f: f(Y, PRED, pos_label=5),
    "false_positive_rate": lambda f: f(Y, PRED, pos_label=5),
    "false_negative_rate": lambda f: f(Y, PRED, pos_label=5),
    "selection_rate": lambda f: f(Y, PRED, pos_label=5),
    "negative_predictive_value": lambda f: f(Y, PRED, pos_label=5),
    "average_precision_score": lambda f: f(Y, S, pos_label=5),
    "pr_auc_score": lambda f: f(Y, S, pos_label=5),
    "calibration_error": lambda f: f(Y, S, pos_label=5),
    "brier_decomposition": lambda f: f(Y, S, pos_label=5),
    "calibration_bins": lambda f: f(Y, S, pos_label=5),
    "calibration_test": lambda f: f(Y, S, pos_label=5, n_resamples=9),
    "delong_test": lambda f: f(Y, S, S_B, pos_label=5),
    "evaluate": lambda f: f(Y, y_proba=PROBA, pos_label=5),
    "evaluate_threshold": lambda f: f(Y, S, 0.5, pos_label=5, n_resamples=20),
    "select_threshold": lambda f: f(Y, S, pos_label=5, n_resamples=20),
    "roc_band": lambda f: f(Y, S, pos_label=5, n_resamples=20),
    "pr_band": lambda f: f(Y, S, pos_label=5, n_resamples=20),
    "calibration_points": lambda f: f(Y, S, pos_label=5),
    "plot_calibration_curve": lambda f: f(Y, S, pos_label=5),
    "plot_reliability_diagram": lambda f: f(Y, S, pos_label=5),
    "plot_roc_curve": lambda f: f(Y, S, pos_label=5),
    "plot_precision_recall_curve": lambda f: f(Y, S, pos_label=5),
    "det_curve": lambda f: f(Y, S, pos_label=5),
    "evaluate_parquet": None,  # the engine's check_positive: test_scale_parquet.py
    "evaluate_dask": None,
    "evaluate_spark": None,  # the same check_positive, on the driver: test_spark.py
}
# scikit-learn answers these with every sample negative; the drop-ins give its answer
AS_SCIKIT_LEARN = {
    "brier_score_loss": (skm.brier_score_loss, lambda f: f(Y, S, pos_label=5)),
    "d2_brier_score": (skm.d2_brier_score, lambda f: f(Y, S, pos_label=5)),
    "roc_curve": (skm.roc_curve, lambda f: f(Y, S, pos_label=5)),
    "precision_recall_curve": (skm.precision_recall_curve, lambda f: f(Y, S, pos_label=5)),
    "calibration_curve": (skc.calibration_curve, lambda f: f(Y, S, pos_label=5)),
}
# not calls on data: a mergeable state (its batch may lack the positive class of the
# stream), and the options an evaluation reads (their pos_label is refused by the
# evaluation, as evaluate's own is: test_evaluation_options.py)
NOT_A_CALL = {"ScoreState", "EvaluationOptions"}
# every other scalar registry metric with a pos_label refuses it too, called with the
# keywords it needs: a metric added by its registry line is checked without a line here
_INPUT = {"labels": PRED, "scores": S, "probabilities": S}
REGISTRY = {s.name: (lambda f, s=s: f(Y, _INPUT[s.input], pos_label=5, **s.needs))
            for s in specs(scalar=True) if s.pos_label}
for _name in set(REGISTRY) - set(REFUSED) - set(AS_SCIKIT_LEARN):
    REFUSED[_name] = REGISTRY[_name]
MODULES = ("dartboard", "dartboard.metrics", "dartboard.uncertainty", "dartboard.compare",
           "dartboard.evaluation", "dartboard.plots", "dartboard.scale")


def _public_with_pos_label() -> dict[str, object]:
    found = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr, None)
            try:
                if callable(obj) and "pos_label" in inspect.signature(obj).parameters:
                    found[attr] = obj
            except (TypeError, ValueError):
                continue
    return found


def test_every_function_with_a_pos_label_is_in_one_table():
    found = set(_public_with_pos_label())
    tables = set(REFUSED) | set(AS_SCIKIT_LEARN) | NOT_A_CALL
    assert found == tables, (found - tables, tables - found)
    assert not set(REFUSED) & set(AS_SCIKIT_LEARN)


@pytest.mark.parametrize("name", sorted(k for k, v in REFUSED.items() if v is not None))
def test_a_pos_label_that_is_not_a_class_is_refused(name):
    import matplotlib

    matplotlib.use("Agg")
    function = _public_with_pos_label()[name]
    with pytest.raises(ValueError) as sk_error:
        skm.precision_score(Y, PRED, pos_label=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(type(sk_error.value),
                           match=r"pos_label=5 is not a valid label. It should be one of "
                                 r"\[0, 1\]"):
            REFUSED[name](function)


@pytest.mark.parametrize("name", sorted(AS_SCIKIT_LEARN))
def test_drop_ins_give_scikit_learns_answer_for_an_absent_pos_label(name):
    reference, call = AS_SCIKIT_LEARN[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = call(_public_with_pos_label()[name]), call(reference)
    for a, b in zip(np.atleast_1d(np.asarray(ours, dtype=object)),
                    np.atleast_1d(np.asarray(theirs, dtype=object))):
        np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12)


def test_one_present_class_is_data_without_positives_not_a_mistake():
    # a stream's batch or a group may hold negatives only: precision_score accepts it too
    zeros = np.zeros(60, dtype=int)
    assert dm.calibration_error(zeros, S, pos_label=5) == pytest.approx(
        dm.calibration_error(zeros, S, pos_label=1))
    assert calibration_bins(zeros, S, pos_label=5).observed.max() == 0.0
    assert calibration_points(zeros, S, pos_label=5)["prob_true"] == \
        calibration_points(zeros, S, pos_label=1)["prob_true"]


def test_string_labels_need_a_pos_label_that_is_one_of_them():
    labels = np.array(["no", "yes"])[Y]
    with pytest.raises(ValueError, match="pos_label=1 is not a valid label"):
        calibration_points(labels, S)  # the default pos_label=1 is not "yes"
    assert dm.calibration_error(labels, S, pos_label="yes") == pytest.approx(
        dm.calibration_error(Y, S))
    with pytest.raises(ValueError, match="pos_label='maybe' is not a valid label"):
        db.calibration_test(labels, S, pos_label="maybe")


# ---------------------------------------------------------------------- sizes

def test_a_bayesian_signed_rank_test_beyond_the_budget_is_refused_before_work():
    from dartboard._validation import MAX_DRAWS

    a, b = RNG.random(10), RNG.random(10)
    with pytest.raises(ValueError, match=r"n_samples must be at most 100_000_000"):
        db.bayesian_signed_rank_test(a, b, n_samples=10**12)
    # below the count's own bound, but 10**8 samples x 11 weights is over the budget
    with pytest.raises(ValueError, match=rf"n_samples x \(data sets \+ 1\) must be at most "
                                         rf"{MAX_DRAWS:_} values drawn; got 100_000_000 x "
                                         r"11 = 1_100_000_000: lower n_samples"):
        db.bayesian_signed_rank_test(a, b, n_samples=10**8)
    with pytest.raises(ValueError, match=r"n_samples x \(data sets \+ 1\)"):
        db.rank_equivalence(np.c_[a, b], rope=0.01, n_samples=10**8)


def test_calibration_sizes_beyond_the_budget_are_refused_before_work(monkeypatch):
    import dartboard.metrics._calibration as cal
    from dartboard.metrics import CalibrationState
    from dartboard.uncertainty import interval_from_calibration_state

    monkeypatch.setattr(cal, "binned_state", lambda *a, **k: pytest.fail("work started"))
    with pytest.raises(ValueError, match=r"n_resamples x \(n_bins \+ 1\) must be at most "
                                         r"1_000_000_000 values drawn; got 9_999 x "
                                         r"1_000_001 = 9_999_009_999: lower n_resamples "
                                         r"or \(n_bins \+ 1\)"):
        db.calibration_test(Y, S, n_bins=10**6)
    monkeypatch.undo()
    state = CalibrationState(10**5).update(Y, S)
    with pytest.raises(ValueError, match=r"n_resamples x \(n_bins \+ 1\)"):
        interval_from_calibration_state(state)
    with pytest.raises(ValueError, match=r"n_resamples x \(n_bins \+ 1\)"):
        db.interval(dm.calibration_error, Y, S, n_bins=10**5)
    # within the budget the same sizes run
    assert 0.0 <= db.calibration_test(Y, S, n_bins=10**5, n_resamples=99).pvalue <= 1.0
