"""The options of an evaluation: one object, checked once, read by every source.

:class:`EvaluationOptions` holds what an evaluation is asked to do, whatever the data
(arrays, a data frame, Parquet files, a Dask or a Spark DataFrame): the task, the
metrics, the interval method, level, resamples and seed, the positive class, the
threshold that cuts scores into labels, the operating point and its bound, the curve
bands and the model's name. Its constructor checks each value on its own (the
checks that need the data, such as a threshold given with predicted labels, come
when the data do), so every entry point refuses a bad option with the same message
before it reads a row. :func:`dartboard.evaluate`, the streamed evaluations of
:mod:`dartboard.scale`, the command line and the report read this object; each entry
point also takes the options as keywords (:func:`options_from`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from dartboard._kernels._methods import IntervalMethod
from dartboard._rng import RandomStateLike, check_random_state
from dartboard._typing import Task, ThresholdCriterion
from dartboard._validation import (
    check_confidence_level,
    check_n_resamples,
    check_option,
    check_real,
    describe,
)
from dartboard.exceptions import InputError, InputTypeError
from dartboard.metrics._registry import TASKS as REGISTRY_TASKS
from dartboard.uncertainty._interval import METHODS
from dartboard.uncertainty._thresholds import CONSTRAINED, check_criterion

__all__ = ["EvaluationOptions", "OPTION_NAMES", "metrics_list", "options_from",
           "threshold_options"]

#: ``task`` values: "auto" or one of the registry's tasks
TASKS = ("auto", *REGISTRY_TASKS)


@dataclasses.dataclass(frozen=True)
class EvaluationOptions:
    """What an evaluation is asked to do, whatever its data: checked on construction.

    Pass it as ``options=`` to :func:`dartboard.evaluate` or to any streamed
    evaluation (:func:`dartboard.scale.evaluate_parquet`, ``evaluate_dask``,
    ``evaluate_spark``) to ask every source the same; the same values may be given
    as keywords instead (not both). ``dataclasses.replace(options, ci="bca")``
    gives a changed copy, checked again.

    Parameters
    ----------
    task : {"auto", "binary", "multiclass", "regression"}, default="auto"
        The task; ``auto`` infers it from the data (:func:`dartboard.evaluation.infer_task`).
    metrics : str, callable or list of them, optional
        Metric names (``"f1"``, ``"roc_auc"``...), dartboard metric functions or
        callables ``f(y_true, y_pred, sample_weight=None)``; None: every metric the
        registry reports for the task that the data feed. Kept as a tuple.
    ci : str, default="auto"
        The interval method: ``auto`` (each metric's default), a proportion method
        (``wilson``, ...), an analytic method (``delong``, ``t``, ...), or a bootstrap
        method (``percentile``, ``basic``, ``bca``).
    confidence_level : float or None, default=0.95
        The intervals' level, in (0, 1); None: estimates without intervals (the
        streamed evaluations).
    n_resamples : int, default=2000
        Resamples of the bootstrap intervals.
    random_state : None, int, SeedSequence or Generator, default=None
        Seed of every resample; the same seed gives the same numbers.
    pos_label : label, optional
        The positive class of a binary task.
    threshold : float, optional
        Labels are ``y_score >= threshold`` where no predicted labels are given.
    threshold_criterion : str, optional
        Binary scores: the operating point to choose (:func:`dartboard.select_threshold`'s
        criterion), with its metrics and intervals.
    threshold_target : float, optional
        The bound of a constrained criterion (``min_precision``, ``min_recall``,
        ``max_fpr``).
    curve_bands : bool, default=False
        Binary scores: pointwise ROC and precision-recall bands.
    model : str, optional
        The model's name, shown in tables, reports and comparisons.

    Examples
    --------
    >>> import dartboard
    >>> opts = dartboard.EvaluationOptions(ci="wilson", metrics=["accuracy", "f1"],
    ...                                    random_state=0)
    >>> ev = dartboard.evaluate([0, 1, 1, 0] * 10, [0, 1, 0, 0] * 10, options=opts)
    >>> str(ev.overall.loc["accuracy", "method"])
    'wilson'
    >>> dartboard.evaluate([0, 1] * 5, [0, 1] * 5, options=opts, ci="bca")
    Traceback (most recent call last):
    ...
    dartboard.exceptions.InputTypeError: ci is given twice: as ci= and in options; give it in one place
    >>> dartboard.EvaluationOptions(confidence_level=95)
    Traceback (most recent call last):
    ...
    dartboard.exceptions.InputError: confidence_level must be strictly between 0 and 1; got 95.0
    """

    task: Task = "auto"
    metrics: Any = None
    ci: IntervalMethod = "auto"
    confidence_level: float | None = 0.95
    n_resamples: int = 2000
    random_state: RandomStateLike = None
    pos_label: Any = None
    threshold: float | None = None
    threshold_criterion: ThresholdCriterion | None = None
    threshold_target: float | None = None
    curve_bands: bool = False
    model: str | None = None

    def __post_init__(self) -> None:
        checked = {
            "task": check_option(self.task, "task", TASKS),
            "metrics": None if self.metrics is None else tuple(metrics_list(self.metrics)),
            "ci": check_option(self.ci, "ci", METHODS),
            "confidence_level": None if self.confidence_level is None
            else check_confidence_level(self.confidence_level),
            "n_resamples": check_n_resamples(self.n_resamples),
            "threshold": None if self.threshold is None
            else check_real(self.threshold, "threshold"),
            "model": _model_name(self.model),
        }
        check_random_state(self.random_state)  # raises on a bad seed; the seed is kept
        criterion, target = threshold_options(self.threshold_criterion,
                                              self.threshold_target)
        if not isinstance(self.curve_bands, (bool, np.bool_)):
            raise InputTypeError(f"curve_bands must be True or False; got "
                                 f"{describe(self.curve_bands)}")
        checked.update(threshold_criterion=criterion, threshold_target=target,
                       curve_bands=bool(self.curve_bands))
        for name, value in checked.items():
            object.__setattr__(self, name, value)


#: the options' names, in order
OPTION_NAMES = tuple(f.name for f in dataclasses.fields(EvaluationOptions))
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(EvaluationOptions)}


def options_from(arguments: Mapping[str, Any], options: Any) -> EvaluationOptions:
    """An entry point's options: ``options`` when given (its option keywords then left
    at their defaults: a value given both ways is refused, naming it), else built from
    the keywords in ``arguments`` (the entry point's ``locals()``)."""
    if options is None:
        return EvaluationOptions(**{k: arguments[k] for k in OPTION_NAMES if k in arguments})
    if not isinstance(options, EvaluationOptions):
        raise InputTypeError(f"options must be a dartboard.EvaluationOptions; got "
                             f"{describe(options)}")
    for name in OPTION_NAMES:
        if name in arguments and not _is_default(arguments[name], _DEFAULTS[name]):
            raise InputTypeError(f"{name} is given twice: as {name}= and in options; give "
                                 "it in one place")
    return options


def _is_default(value: Any, default: Any) -> bool:
    if value is default:
        return True
    try:
        return bool(type(value) is type(default) and value == default)
    except (TypeError, ValueError):  # an array compared
        return False


def _model_name(model: Any) -> str | None:
    """``model``: None or a non-empty string."""
    if model is not None and (not isinstance(model, str) or not model):
        raise InputTypeError(f"model must be a name (a non-empty string) or None; got "
                             f"{describe(model)}")
    return model


def metrics_list(metrics: Any) -> list[Any]:
    """``metrics`` (a name, a callable or a list of them) as a non-empty list."""
    if isinstance(metrics, (str, bytes)) or callable(metrics):
        metrics = [metrics]
    try:
        metrics = list(metrics)
    except TypeError:
        raise InputTypeError(f"metrics must be None, a name, a callable or a list of them; got "
                             f"{type(metrics).__name__}") from None
    if not metrics:
        raise InputError("metrics is empty; give None for every applicable metric")
    return metrics


def threshold_options(criterion: Any, target: Any) -> tuple[str | None, float | None]:
    """``threshold_criterion`` and ``threshold_target``, checked before any number: a
    target needs a constrained criterion (``select_threshold``'s rule)."""
    if criterion is None:
        if target is not None:
            raise InputError(f"threshold_target needs threshold_criterion (one of "
                             f"{list(CONSTRAINED)}, whose bound it is); got "
                             f"threshold_target={target!r} without a criterion")
        return None, None
    criterion, target, _ = check_criterion(criterion, target, names=(
        "threshold_criterion", "threshold_target"))
    return criterion, None if np.isnan(target) else target
