"""The evaluation engine: predictions in, every applicable metric with its interval out.

``dartboard evaluate`` and ``dartboard demo`` call :func:`evaluate_predictions`, so a
table in the terminal, the ``--json`` output and the HTML report show the same
numbers. Which metrics a task reports, the keywords they take, which input feeds
them and which interval methods apply are the registry's facts
(:mod:`dartboard.metrics._registry`); the positive class is :mod:`dartboard._labels`'
``"greater"`` rule, so any two labels work (0/1, -1/1, strings). Every number comes
from dartboard's public functions (the metrics, :func:`dartboard.interval`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from dartboard._labels import positive_index, positive_label
from dartboard._validation import (
    as_float_array,
    check_consistent_length,
    check_n_resamples,
    check_option,
    column_1d,
    group_array,
    label_array,
)
from dartboard.evaluation._operating import operating_extras
from dartboard.evaluation._points import calibration_points, error_points, thin
from dartboard.evaluation._result import (
    CalibrationPoints,
    Confusion,
    ErrorPoints,
    EvaluationResult,
    MetricRow,
    PrPoints,
    RocPoints,
)
from dartboard.metrics._probabilistic import _check_range, check_proba_rows
from dartboard.metrics._registry import TASKS as REGISTRY_TASKS
from dartboard.metrics._registry import MetricSpec, specs

__all__ = ["TASKS", "infer_task", "evaluate_predictions"]

#: ``task`` values: "auto" or one of the registry's tasks
TASKS = ("auto", *REGISTRY_TASKS)
# the registry's default_interval None means no interval is valid: a sample maximum
_NO_INTERVAL = "n/a (sample maximum)"


@dataclasses.dataclass(frozen=True)
class _Options:
    ci: str
    confidence_level: float
    n_resamples: int
    random_state: Any
    threshold_criterion: str | None = None
    threshold_target: float | None = None
    curve_bands: bool = False


def infer_task(y_true: Any, *, y_pred: Any = None, y_score: Any = None,
               proba: Any = None) -> str:
    """``binary``, ``multiclass`` or ``regression`` from the columns given.

    Scores mean a binary task; a probability matrix with two columns too, with more
    a multiclass one. With predictions only: float targets with a non-integer value
    mean regression; otherwise two distinct labels are binary, more multiclass.

    Examples
    --------
    >>> infer_task([0, 1, 1], y_pred=[1, 1, 0]), infer_task([1.5, 2.0], y_pred=[1.2, 2.1])
    ('binary', 'regression')
    """
    if y_score is not None:
        return "binary"
    if proba is not None:
        return "binary" if np.asarray(proba).shape[1] == 2 else "multiclass"
    y = np.asarray(y_true)
    p = np.asarray(y_pred)
    if y.dtype.kind == "f" or p.dtype.kind == "f":
        both = np.concatenate([y.astype(float, copy=False).ravel(),
                               p.astype(float, copy=False).ravel()]) \
            if y.dtype.kind in "biuf" and p.dtype.kind in "biuf" else None
        if both is not None and not np.all(np.mod(both[np.isfinite(both)], 1) == 0):
            return "regression"
    n_labels = np.unique(np.concatenate([np.unique(y), np.unique(p)])).size \
        if y.dtype.kind == p.dtype.kind else np.unique(y).size
    return "binary" if n_labels <= 2 else "multiclass"


def evaluate_predictions(y_true: Any, *, y_pred: Any = None, y_score: Any = None,
                         proba: Any = None, task: str = "auto", ci: str = "auto",
                         confidence_level: float = 0.95, n_resamples: int = 2000,
                         random_state: Any = 0, groups: Any = None,
                         model: str | None = None, threshold_criterion: str | None = None,
                         threshold_target: float | None = None,
                         curve_bands: bool = False) -> EvaluationResult:
    """Every metric the registry reports for the task, with its interval, and the
    points of the ROC, PR, confusion-matrix, calibration or error figures.

    Give ``y_pred`` (labels, or values for regression), ``y_score`` (binary scores
    or probabilities of the positive class, the greater label) or ``proba`` (n x K
    probabilities, columns in sorted label order). Labels are derived from scores at
    0.5 when they lie in [0, 1], at 0 otherwise (decision functions), and from
    probabilities by argmax. ``task="auto"`` infers the task (:func:`infer_task`).

    ``ci`` is the interval method: ``auto`` (the registry's default per metric), a
    proportion method (``wilson``, ``wald``, ...; other metrics then get their
    default), ``delong`` (ROC AUC; likewise) or a bootstrap method. Metrics
    without a valid interval (a sample maximum) get none. With ``groups``, every
    row is computed on each group too. Binary scores only: ``threshold_criterion``
    (and ``threshold_target``) add the operating point of
    :func:`dartboard.select_threshold`, ``curve_bands=True`` pointwise ROC and PR
    bands.

    Examples
    --------
    >>> res = evaluate_predictions([0, 1] * 20, y_pred=[0, 1] * 15 + [1, 1] * 5,
    ...                            n_resamples=500)
    >>> res.task, res.metrics[0].metric, res.metrics[0].estimate, res.metrics[0].method
    ('binary', 'accuracy', 0.875, 'wilson')
    >>> res.confusion.matrix
    ((15, 5), (0, 20))
    """
    task = check_option(task, "task", TASKS)
    if sum(v is not None for v in (y_pred, y_score, proba)) != 1:
        raise ValueError("give exactly one of y_pred, y_score or proba")
    opts = _Options(ci, float(confidence_level), check_n_resamples(n_resamples), random_state,
                    threshold_criterion, threshold_target, bool(curve_bands))
    if task == "auto" and y_pred is not None:
        task = infer_task(column_1d(y_true, name="y_true"),
                          y_pred=column_1d(y_pred, name="y_pred"))
    if task == "regression":
        if y_pred is None:
            raise ValueError("task='regression' needs y_pred (predicted values), not "
                             "y_score or proba")
        if threshold_criterion is not None or curve_bands:
            raise ValueError("threshold_criterion and curve_bands need binary scores "
                             "(y_score); got a regression task")
        return _regression(y_true, y_pred, opts, groups, model)
    return _classification(y_true, y_pred, y_score, proba, task, opts, groups, model)


def _method_for(ci: str, spec: MetricSpec, kwargs: dict[str, Any]) -> str:
    """The method asked for where it applies to the metric, else its default.

    A proportion averaged over classes (macro precision) is no longer a proportion:
    the analytic methods apply to the binary and unaveraged ones only.
    """
    from dartboard.uncertainty._analytic import PROPORTION_METHODS

    if ci in PROPORTION_METHODS:
        return ci if spec.proportion and "average" not in kwargs else "auto"
    if ci == "delong":
        return ci if spec.default_interval == "delong" else "auto"
    return ci


def _row(spec: MetricSpec, task: str, y_true: np.ndarray, other: np.ndarray,
         kwargs: dict[str, Any], opts: _Options, group: str | None) -> MetricRow:
    from dartboard.uncertainty import interval

    label, n = spec.table_label(task), int(y_true.shape[0])
    if spec.default_interval is None:
        estimate = float(spec.function(y_true, other, **kwargs))
        return MetricRow(label, estimate, None, None, _NO_INTERVAL, opts.confidence_level,
                         n, group)
    res = interval(spec.function, y_true, other, method=_method_for(opts.ci, spec, kwargs),
                   confidence_level=opts.confidence_level, n_resamples=opts.n_resamples,
                   random_state=opts.random_state, **kwargs)
    return MetricRow(label, float(res.estimate), float(res.low), float(res.high),
                     str(res.method), float(res.confidence_level), n, group)


def _by_group(groups: Any, y_true: np.ndarray,
              rows_for: Callable[[np.ndarray, str], list[MetricRow]]) -> tuple[MetricRow, ...]:
    groups = group_array(groups, name="group")
    check_consistent_length(("y_true", y_true), ("group", groups))
    return tuple(row for g in np.unique(groups) for row in rows_for(groups == g, str(g)))


# ------------------------------------------------------------------ regression

def _regression(y_true: Any, y_pred: Any, opts: _Options, groups: Any,
                model: str | None) -> EvaluationResult:
    y_true = as_float_array(y_true, name="y_true")
    y_pred = as_float_array(y_pred, name="y_pred")
    check_consistent_length(("y_true", y_true), ("y_pred", y_pred))

    def rows_for(mask: np.ndarray | None, group: str | None = None) -> list[MetricRow]:
        yt = y_true if mask is None else y_true[mask]
        yp = y_pred if mask is None else y_pred[mask]
        return [_row(spec, "regression", yt, yp, {}, opts, group)
                for spec in specs(task="regression")]

    errors, summary = error_points(y_true, y_pred)
    return EvaluationResult(
        task="regression", n=int(y_true.shape[0]), model=model, metrics=tuple(rows_for(None)),
        groups=None if groups is None else _by_group(groups, y_true, rows_for),
        errors=ErrorPoints(tuple(errors), tuple(summary)))


# ------------------------------------------------------------------ classification

@dataclasses.dataclass(frozen=True)
class _Labelled:
    """Checked classification inputs: labels, and scores/probabilities when given."""

    task: str
    y_true: np.ndarray
    classes: np.ndarray   # of y_true
    labels: np.ndarray    # of y_true and y_pred
    y_pred: np.ndarray
    y_score: np.ndarray | None
    proba: np.ndarray | None

    @property
    def is_prob(self) -> bool:
        """Whether the scores are probabilities (all in [0, 1])."""
        return self.y_score is not None and self.y_score.min() >= 0 \
            and self.y_score.max() <= 1


def _classification_iv(y_true: Any, y_pred: Any, y_score: Any, proba: Any,
                       task: str) -> _Labelled:
    y_true = label_array(y_true, name="y_true")
    classes = np.unique(y_true)
    if proba is not None:
        proba = as_float_array(proba, name="proba", ndim=2)
        check_consistent_length(("y_true", y_true), ("proba", proba))
        if proba.shape[1] != classes.size:
            raise ValueError(f"proba must have one column per class of y_true "
                             f"({classes.size}: {classes.tolist()}); got {proba.shape[1]}")
        # the same check as log_loss: a matrix that is not probabilities gives no AUC
        _check_range(proba, "proba")
        check_proba_rows(proba, "proba")
        y_pred = classes[np.argmax(proba, axis=1)]
        if proba.shape[1] == 2:
            y_score = proba[:, positive_index(classes, infer="greater")]
    elif y_score is not None:
        y_score = as_float_array(y_score, name="y_score")
        check_consistent_length(("y_true", y_true), ("y_score", y_score))
        if classes.size != 2:
            raise ValueError(f"y_score needs binary y_true; y_true has {classes.size} "
                             f"classes: {classes.tolist()[:10]}")
        pos = positive_index(classes, infer="greater")
        threshold = 0.5 if y_score.min() >= 0 and y_score.max() <= 1 else 0.0
        y_pred = np.where(y_score >= threshold, classes[pos], classes[1 - pos])
    else:
        y_pred = label_array(y_pred, name="y_pred")
        check_consistent_length(("y_true", y_true), ("y_pred", y_pred))
    if task == "auto":
        task = infer_task(y_true, y_pred=y_pred, y_score=y_score, proba=proba)
    task = check_option(task, "task", ["binary", "multiclass"])
    labels = np.unique(np.concatenate([classes, np.unique(y_pred)])) \
        if y_pred.dtype.kind == classes.dtype.kind else classes
    if task == "binary" and labels.size > 2:
        raise ValueError(f"task='binary' needs two classes; got {labels.size}: "
                         f"{labels.tolist()[:10]}")
    return _Labelled(task, y_true, classes, labels, y_pred, y_score, proba)


def _inputs(d: _Labelled) -> dict[str, np.ndarray | None]:
    """What feeds each registry input kind; None when the data does not give it."""
    probabilities = (d.proba if d.task == "multiclass" else d.y_score) \
        if d.is_prob or d.proba is not None else None
    return {"labels": d.y_pred, "probabilities": probabilities,
            "scores": d.y_score if d.task == "binary" else probabilities}


def _keywords(spec: MetricSpec, d: _Labelled, positive: Any) -> dict[str, Any]:
    if d.task == "binary":
        # the score metrics too: labels may be strings, and their default is 1
        return {"pos_label": positive} if spec.pos_label else {}
    kw = dict(spec.multiclass)
    if spec.input == "probabilities":
        kw["labels"] = d.classes  # the probability columns, in sorted label order
    return kw


def _classification(y_true: Any, y_pred: Any, y_score: Any, proba: Any, task: str,
                    opts: _Options, groups: Any, model: str | None) -> EvaluationResult:
    from dartboard.metrics import confusion_matrix, precision_recall_curve, roc_curve

    d = _classification_iv(y_true, y_pred, y_score, proba, task)
    if (opts.threshold_criterion is not None or opts.curve_bands) and not (
            d.task == "binary" and d.y_score is not None):
        raise ValueError("threshold_criterion and curve_bands need binary scores (y_score); "
                         f"got a {d.task} task"
                         + (" with scores" if d.y_score is not None else " without scores"))
    positive = positive_label(d.labels, infer="greater") if d.task == "binary" else None
    inputs = _inputs(d)
    chosen = [(spec, _keywords(spec, d, positive)) for spec in specs(task=d.task)]

    def rows_for(mask: np.ndarray | None, group: str | None = None) -> list[MetricRow]:
        yt = d.y_true if mask is None else d.y_true[mask]
        rows = []
        for spec, kw in chosen:
            other = inputs[spec.input]
            if other is None:
                continue
            if spec.input != "labels" and np.unique(yt).size < 2:
                continue  # ranking and probability metrics need both classes
            rows.append(_row(spec, d.task, yt, other if mask is None else other[mask], kw,
                             opts, group))
        return rows

    matrix = confusion_matrix(d.y_true, d.y_pred, labels=d.labels)
    out: dict[str, Any] = {}
    if d.task == "binary" and d.y_score is not None:
        fpr, tpr, _ = roc_curve(d.y_true, d.y_score, pos_label=positive)
        precision, recall, _ = precision_recall_curve(d.y_true, d.y_score, pos_label=positive)
        out["roc"] = RocPoints(*map(tuple, thin(fpr, tpr)))
        out["pr"] = PrPoints(*map(tuple, thin(precision, recall)),
                             prevalence=float(np.mean(d.y_true == positive)))
        out.update(operating_extras(
            d.y_true, d.y_score, positive, criterion=opts.threshold_criterion,
            target=opts.threshold_target, bands=opts.curve_bands,
            confidence_level=opts.confidence_level, n_resamples=opts.n_resamples,
            random_state=opts.random_state))
        if d.is_prob:
            out["calibration"] = CalibrationPoints(
                **{k: tuple(v) for k, v in calibration_points(
                    d.y_true, d.y_score, pos_label=positive).items()})
    return EvaluationResult(
        task=d.task, n=int(d.y_true.shape[0]), model=model, metrics=tuple(rows_for(None)),
        groups=None if groups is None else _by_group(groups, d.y_true, rows_for),
        classes=tuple(d.labels.tolist()), positive_label=positive,
        confusion=Confusion(tuple(str(v) for v in d.labels.tolist()),
                            tuple(tuple(int(c) for c in r) for r in matrix.tolist())),
        **out)
