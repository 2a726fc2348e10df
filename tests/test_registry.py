"""The metric registry: every public metric has one spec, and the specs tell the truth."""

from __future__ import annotations

import importlib
import inspect
import pathlib
import re

import numpy as np
import pytest

import dartboard.metrics as dm
from dartboard.metrics._registry import (
    FAMILIES,
    INPUTS,
    KINDS,
    TASKS,
    get_spec,
    spec_for,
    specs,
)

FAMILY_MODULES = ["_confusion", "_ranking", "_probabilistic", "_calibration", "_regression",
                  "_similarity", "_classification_losses", "_label_ranking", "_curves", "_regression_losses",
                  "_d2_probabilities"]
SRC = pathlib.Path(dm.__file__).resolve().parents[1]


def public_functions():
    for mod in FAMILY_MODULES:
        module = importlib.import_module(f"dartboard.metrics.{mod}")
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield name, obj


@pytest.mark.parametrize("name, func", list(public_functions()))
def test_every_public_metric_has_a_spec(name, func):
    spec = spec_for(func)
    assert spec is not None, f"{name} has no registry spec"
    assert spec.name == name == func.__name__
    assert spec.function is func and get_spec(name) is spec
    assert getattr(dm, name) is func


@pytest.mark.parametrize("spec", specs(), ids=lambda s: s.name)
def test_spec_facts_match_the_function(spec):
    params = inspect.signature(spec.function).parameters
    assert spec.kind in KINDS and spec.input in INPUTS
    assert spec.family is None or spec.family in FAMILIES
    assert set(spec.tasks) <= set(TASKS)
    # the keywords the spec says it takes are the function's own
    assert spec.pos_label == ("pos_label" in params), spec.name
    assert spec.average == ("average" in params), spec.name
    for key in spec.multiclass:
        assert key in params, (spec.name, key)
    if spec.family is not None:  # the family it names computes it
        from dartboard.families import Metric, family_of

        assert family_of(spec).supports(Metric(spec, {})), spec.name
    if spec.tasks:
        assert spec.scalar
    if spec.proportion is not None:
        assert spec.kind == "count" and spec.default_interval == "wilson"


def test_a_user_callable_has_no_spec():
    def accuracy_score(y_true, y_pred):  # same name, not dartboard's function
        return 0.0

    assert spec_for(accuracy_score) is None
    assert spec_for(lambda a, b: 0.0) is None
    assert spec_for("accuracy_score") is None
    with pytest.raises(ValueError, match="unknown metric 'accuracy'"):
        get_spec("accuracy")


def _one_vs_all(y, p, positive):
    tp = sum(1 for a, b in zip(y, p) if a == positive and b == positive)
    fp = sum(1 for a, b in zip(y, p) if a != positive and b == positive)
    fn = sum(1 for a, b in zip(y, p) if a == positive and b != positive)
    tn = len(y) - tp - fp - fn
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "sel": tp + fp, "total": len(y),
            "correct": tp + tn}


@pytest.mark.parametrize("spec", [s for s in specs() if s.proportion is not None],
                         ids=lambda s: s.name)
def test_proportion_fact_is_the_metric(spec):
    # the (numerator, denominator) the intervals use, counted by a plain loop
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    p = np.where(rng.random(200) < 0.7, y, 1 - y)
    counts = _one_vs_all(y.tolist(), p.tolist(), 1)
    numerator, denominator = spec.proportion
    expected = counts[numerator] / sum(counts[d] for d in denominator)
    assert spec.function(y, p) == pytest.approx(expected, rel=1e-15)


def _inputs(spec, rng):
    """(y_true, perfect prediction, poor prediction) of the kind the metric takes."""
    y = rng.integers(0, 2, 300)
    noisy = np.where(rng.random(300) < 0.6, y, 1 - y)
    if spec.input == "labels":
        return y, y, noisy
    if spec.input == "scores":
        return y, y + 0.1 * rng.random(300), rng.random(300)
    if spec.input == "probabilities":
        return y, np.clip(y, 0.02, 0.98), np.full(300, 0.5)
    target = rng.normal(size=300) + 3.0
    return target, target * 1.001, target + rng.normal(size=300)


# error rates and the selection rate measure no accuracy on their own (a model that
# predicts nothing positive has FPR 0): their direction is checked below; neither does
# calibration (a constant base-rate forecast is calibrated)
_NOT_ACCURACY = ("false_positive_rate", "false_negative_rate", "selection_rate",
                 "calibration_error")


@pytest.mark.parametrize("spec", [s for s in specs() if s.scalar and s.tasks
                                  and s.name not in _NOT_ACCURACY], ids=lambda s: s.name)
def test_direction_fact(spec):
    # a near-perfect prediction must score better than a poor one in the declared direction
    y, good, poor = _inputs(spec, np.random.default_rng(5))
    better, worse = spec.function(y, good), spec.function(y, poor)
    assert (better > worse) == spec.greater_is_better, (spec.name, better, worse)


def test_calibration_error_points_down():
    y = np.random.default_rng(5).integers(0, 2, 300)
    base_rate, overconfident = np.full(300, y.mean()), np.full(300, 0.95)
    assert dm.calibration_error(y, base_rate) < dm.calibration_error(y, overconfident)
    assert not get_spec("calibration_error").greater_is_better


def test_error_rates_point_down():
    y = np.array([0, 0, 1, 1])
    assert dm.false_positive_rate(y, y) < dm.false_positive_rate(y, 1 - y)
    assert not get_spec("false_positive_rate").greater_is_better
    assert not get_spec("false_negative_rate").greater_is_better


def test_specs_filters():
    binary = [s.name for s in specs(task="binary")]
    assert binary[0] == "accuracy_score" and "cohen_kappa_score" not in binary
    assert all(s.kind == "count" for s in specs(kind="count"))
    assert {s.name for s in specs(family="errors")} == {"median_absolute_error",
                                                      "median_absolute_deviation"}
    assert get_spec("precision_score").table_label("multiclass") == "precision_macro"
    assert get_spec("roc_auc_score").table_label("multiclass") == "roc_auc"


def test_no_dispatch_on_module_names():
    # a fact lives in the registry: nothing compares or rewrites metric.__module__
    offenders = [f"{path.relative_to(SRC)}:{i}"
                 for path in SRC.rglob("*.py") if path.name != "_registry.py"
                 for i, line in enumerate(path.read_text().splitlines(), 1)
                 # type(x).__module__ tells containers apart (pandas, polars), not metrics
                 if re.search(r"__module__", line) and "type(" not in line]
    assert offenders == []


@pytest.mark.parametrize("spec", specs(), ids=lambda s: s.name)
def test_data_arguments_are_typed_array_like(spec):
    # the two data arguments say what they take (numpy.typing.ArrayLike), not Any
    params = list(inspect.signature(spec.function).parameters.values())[:2]
    assert all("ArrayLike" in str(p.annotation) for p in params), \
        [(p.name, p.annotation) for p in params]
