"""The evaluation engine: predictions in, every applicable metric with its interval out.

``dartboard evaluate`` and ``dartboard demo`` call :func:`evaluate_predictions`, so a
table in the terminal, the ``--json`` output and the HTML report show the same
numbers. Which metrics a task reports, the keywords they take, which input feeds
them and which interval methods apply are the registry's facts
(:mod:`dartboard.metrics._registry`); what the inputs are, and what the evaluation
decides when not told (the task, the positive class, where labels are cut from
scores), is :mod:`dartboard.evaluation._inputs`. Every number comes from
dartboard's public functions (the metrics, :func:`dartboard.interval`).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from dartboard._labels import integer_counts_fit, positive_label
from dartboard._validation import (
    as_float_array,
    check_confidence_level,
    check_consistent_length,
    check_n_resamples,
    check_option,
    check_sample_weight,
)
from dartboard.evaluation._groups import GroupIndex, encode_groups
from dartboard.evaluation._inputs import (
    Labelled,
    check_given,
    classification_inputs,
    infer_from_values,
)
from dartboard.evaluation._operating import operating_extras
from dartboard.evaluation._points import calibration_points, error_points, thin
from dartboard.evaluation._result import (
    Assumption,
    CalibrationPoints,
    Confusion,
    ErrorPoints,
    EvaluationResult,
    MetricRow,
    PrPoints,
    RocPoints,
)
from dartboard.metrics._registry import TASKS as REGISTRY_TASKS
from dartboard.metrics._registry import MetricSpec, spec_for, specs

__all__ = ["TASKS", "infer_task", "evaluate_predictions", "prepare", "build_result", "Plan",
           "Chosen", "metric_keywords",
           "resolve_metric", "metrics_list", "check_metric_applies", "label_of"]

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
    """``binary``, ``multiclass`` or ``regression`` from the columns given, or a
    ``ValueError`` where they leave it in doubt (the rules of
    :mod:`dartboard.evaluation._inputs`).

    Scores of one class mean a binary task; a probability matrix with two columns
    too, with more a multiclass one. With labels only: non-integer targets mean a
    regression; non-integer predictions of a target with at most ten distinct
    integers are refused (scores passed as labels?); otherwise two distinct labels
    are binary, more multiclass.

    Examples
    --------
    >>> infer_task([0, 1, 1], y_pred=[1, 1, 0]), infer_task([1.5, 2.0], y_pred=[1.2, 2.1])
    ('binary', 'regression')
    """
    if y_score is not None:
        return "binary"
    if proba is not None:
        k = as_float_array(proba, name="y_proba", ndim=2).shape[1]
        return "binary" if k == 2 else "multiclass"
    return infer_from_values(y_true, y_pred)[0]


def evaluate_predictions(y_true: Any, *, y_pred: Any = None, y_score: Any = None,
                         y_proba: Any = None, threshold: float | None = None,
                         task: str = "auto", ci: str = "auto",
                         confidence_level: float = 0.95, n_resamples: int = 2000,
                         random_state: Any = 0, groups: Any = None,
                         model: str | None = None, metrics: Any = None,
                         sample_weight: Any = None, pos_label: Any = None,
                         threshold_criterion: str | None = None,
                         threshold_target: float | None = None,
                         curve_bands: bool = False) -> EvaluationResult:
    """Every metric the registry reports for the task, with its interval, and the
    points of the ROC, PR, confusion-matrix, calibration or error figures.

    Give ``y_pred`` (labels, or values for regression), ``y_score`` (binary scores
    or probabilities of the positive class) or ``y_proba`` (n x K probabilities,
    columns in sorted label order), or labels with scores or probabilities (the
    labels feed the count metrics). Without labels, they are ``y_score >=
    threshold``, or derived by the rules of :mod:`dartboard.evaluation._inputs`
    (0.5 for scores in [0, 1], 0 for scores on both sides of it, the most probable
    class of probabilities); so are the task (``task="auto"``, :func:`infer_task`)
    and the positive class. What was so decided is in ``assumptions``.

    ``metrics`` selects rows (names such as ``"f1"`` or ``"f1_score"``, dartboard
    metric functions, or callables ``f(y_true, y_pred, sample_weight=None)``);
    None means every metric the registry reports for the task that the given
    columns feed. ``pos_label`` is the positive class of a binary task (default:
    1 for labels among {0, 1} or {-1, 1}; other labels need it). ``ci`` is the
    interval method: ``auto`` (the registry's default per metric), a proportion
    method (``wilson``, ``wald``, ...; other metrics then get their default),
    ``delong`` (ROC AUC; likewise) or a bootstrap method. Metrics without a valid
    interval (a sample maximum) get none; one whose interval cannot be formed
    keeps its estimate, with a nan interval and ``n/a (why)`` as its method. With
    ``groups`` (one column or several: their intersections), every row is
    computed on each group too. Binary scores only: ``threshold_criterion`` (and
    ``threshold_target``) add the operating point of :func:`dartboard.select_threshold`,
    ``curve_bands=True`` pointwise ROC and PR bands.

    Examples
    --------
    >>> res = evaluate_predictions([0, 1] * 20, y_pred=[0, 1] * 15 + [1, 1] * 5,
    ...                            n_resamples=500)
    >>> res.task, res.metrics[0].metric, res.metrics[0].estimate, res.metrics[0].method
    ('binary', 'accuracy', 0.875, 'wilson')
    >>> res.confusion.matrix
    ((15, 5), (0, 20))
    """
    return build_result(prepare(y_true, y_pred=y_pred, y_score=y_score, y_proba=y_proba,
                                threshold=threshold, task=task, ci=ci,
                                confidence_level=confidence_level, n_resamples=n_resamples,
                                random_state=random_state, groups=groups, metrics=metrics,
                                sample_weight=sample_weight,
                                pos_label=pos_label, threshold_criterion=threshold_criterion,
                                threshold_target=threshold_target, curve_bands=curve_bands),
                        model)


@dataclasses.dataclass(frozen=True)
class Chosen:
    """One metric row of an evaluation: the function, what feeds it, its keywords."""

    label: str
    function: Callable[..., Any]
    spec: MetricSpec | None
    input: str
    kwargs: dict[str, Any]
    #: feed minus the scores: a binary metric whose positive class is always the greater
    #: label (ROC AUC) when the positive class is the lesser one
    negate: bool = False


@dataclasses.dataclass(frozen=True)
class Plan:
    """Checked inputs of an evaluation and the metrics chosen for them.

    ``inputs`` maps a registry input kind to the array that feeds it (None when
    the data does not give it); ``labelled`` holds the classification inputs.
    """

    task: str
    y_true: np.ndarray
    inputs: dict[str, np.ndarray | None]
    chosen: tuple[Chosen, ...]
    weights: np.ndarray | None
    groups: GroupIndex | None
    opts: _Options
    labelled: Labelled | None = None
    positive: Any = None
    #: what was decided without being told (:mod:`dartboard.evaluation._inputs`)
    assumptions: tuple[Assumption, ...] = ()
    #: values computed once and shared (label codes)
    cache: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    @property
    def y_pred(self) -> np.ndarray:
        return self.inputs["labels" if self.task != "regression" else "values"]


def prepare(y_true: Any, *, y_pred: Any = None, y_score: Any = None, y_proba: Any = None,
            threshold: float | None = None, task: str = "auto", ci: str = "auto",
            confidence_level: float = 0.95, n_resamples: int = 2000, random_state: Any = 0,
            groups: Any = None, metrics: Any = None, sample_weight: Any = None,
            pos_label: Any = None, threshold_criterion: str | None = None,
            threshold_target: float | None = None, curve_bands: bool = False) -> Plan:
    """Check the inputs and choose the metrics: everything before any number."""
    from dartboard.uncertainty._interval import METHODS

    task = check_option(task, "task", TASKS)
    threshold = check_given(y_pred, y_score, y_proba, threshold)
    opts = _Options(check_option(ci, "ci", METHODS), check_confidence_level(confidence_level),
                    check_n_resamples(n_resamples), random_state,
                    threshold_criterion, threshold_target, bool(curve_bands))
    notes: tuple[Assumption, ...] = ()
    if task == "auto" and y_score is None and y_proba is None:
        task, why = infer_from_values(y_true, y_pred)
        notes = (Assumption("task", task, why),)
    if task == "regression":
        return _regression_plan(y_true, y_pred, y_score, y_proba, threshold, opts, groups,
                                metrics, sample_weight, pos_label, notes)
    d = classification_inputs(y_true, y_pred, y_score, y_proba, task, pos_label, threshold)
    if (threshold_criterion is not None or curve_bands) and not (
            d.task == "binary" and d.y_score is not None):
        raise ValueError("threshold_criterion and curve_bands need binary scores (y_score); "
                         f"got a {d.task} task"
                         + (" with scores" if d.y_score is not None else " without scores"))
    n = d.y_true.shape[0]
    inputs = _inputs(d)
    w = check_sample_weight(sample_weight, n, scale_free=True)
    chosen = _choose(metrics, d.task, inputs, d, d.positive, weighted=w is not None)
    if d.no_positive is not None and any(c.spec is not None and c.spec.pos_label
                                         for c in chosen):
        raise ValueError(d.no_positive)
    return Plan(d.task, d.y_true, inputs, chosen, w,
                None if groups is None else encode_groups(groups, n), opts, d, d.positive,
                assumptions=notes + d.assumptions)


def _regression_plan(y_true: Any, y_pred: Any, y_score: Any, y_proba: Any,
                     threshold: float | None, opts: _Options, groups: Any, metrics: Any,
                     sample_weight: Any, pos_label: Any,
                     notes: tuple[Assumption, ...]) -> Plan:
    if y_pred is None or y_score is not None or y_proba is not None:
        raise ValueError("task='regression' needs y_pred (predicted values) only, not "
                         "y_score or y_proba")
    if pos_label is not None:
        raise ValueError("pos_label applies to a binary task, not to regression")
    if threshold is not None:
        raise ValueError("threshold cuts scores into labels (a binary task); this one is "
                         "regression")
    if opts.threshold_criterion is not None or opts.curve_bands:
        raise ValueError("threshold_criterion and curve_bands need binary scores "
                         "(y_score); got a regression task")
    yt = as_float_array(y_true, name="y_true")
    yp = as_float_array(y_pred, name="y_pred")
    n = check_consistent_length(("y_true", yt), ("y_pred", yp))
    inputs: dict[str, np.ndarray | None] = {"values": yp}
    w = check_sample_weight(sample_weight, n, scale_free=True)
    chosen = _choose(metrics, "regression", inputs, None, weighted=w is not None)
    return Plan("regression", yt, inputs, chosen, w,
                None if groups is None else encode_groups(groups, n), opts,
                assumptions=notes)


def build_result(plan: Plan, model: str | None = None) -> EvaluationResult:
    """The rows (overall and per group) and the figures' points of a plan."""
    rows = tuple(_rows(plan, None))
    group_rows = None
    if plan.groups is not None:
        group_rows = tuple(row for g, members in enumerate(plan.groups.members())
                           for row in _rows(plan, members, plan.groups.label(g)))
    extra: dict[str, Any] = {}
    if plan.groups is not None:
        extra.update(group_columns=plan.groups.names, group_keys=plan.groups.keys)
    if plan.task == "regression":
        errors, summary = error_points(plan.y_true, plan.y_pred)
        return EvaluationResult(task="regression", n=int(plan.y_true.shape[0]), model=model,
                                metrics=rows, groups=group_rows,
                                errors=ErrorPoints(tuple(errors), tuple(summary)),
                                assumptions=plan.assumptions, **extra)
    return EvaluationResult(task=plan.task, n=int(plan.y_true.shape[0]), model=model,
                            metrics=rows, groups=group_rows, assumptions=plan.assumptions,
                            **_figures(plan), **extra)


def _method_for(ci: str, spec: MetricSpec, kwargs: dict[str, Any]) -> str:
    """The method asked for where it applies to the metric, else its default.

    A proportion averaged over classes (macro precision) is no longer a proportion:
    the analytic methods apply to the binary and unaveraged ones only.
    """
    from dartboard.uncertainty._analytic import PROPORTION_METHODS

    if ci in PROPORTION_METHODS:
        return ci if spec.proportion and "average" not in kwargs else "auto"
    if ci in ("percentile", "basic", "bca", "auto"):
        return ci
    # an analytic method (delong, delong-logit, logit, influence-logit, t) where the
    # registry says it applies to the metric, else the metric's own choice
    return ci if ci == spec.default_interval or ci in spec.asymptotic else "auto"


def label_of(spec: MetricSpec | None, function: Any, task: str,
              kwargs: dict[str, Any]) -> str:
    if spec is None:
        return getattr(function, "__name__", None) or type(function).__name__
    base = spec.label or spec.name.removesuffix("_score")
    return f"{base}_{kwargs['average']}" if task == "multiclass" and "average" in kwargs \
        else base


def resolve_metric(metric: Any, task: str) -> tuple[MetricSpec | None, Callable[..., Any]]:
    """A metric given by name (registry name or table label) or as a function."""
    if isinstance(metric, str):
        for spec in specs():
            if metric in (spec.name, spec.label or spec.name.removesuffix("_score"),
                          spec.table_label(task)):
                return spec, spec.function
        known = sorted({s.label or s.name.removesuffix("_score") for s in specs(scalar=True)})
        raise ValueError(f"unknown metric {metric!r} in metrics; dartboard's metrics are "
                         f"{', '.join(known)} (or the function names ending in _score), or "
                         "pass a callable")
    if not callable(metric):
        raise TypeError(f"metrics must hold metric names or callables; got "
                        f"{type(metric).__name__} ({metric!r:.40})")
    return spec_for(metric), metric


_FEEDS = {"labels": "y_pred (or y_score / y_proba, from which labels are derived)",
          "scores": "y_score or y_proba", "probabilities": "probabilities (y_proba, or a "
          "binary y_score in [0, 1])", "values": "y_pred (predicted values)"}


def takes_weights(function: Callable[..., Any]) -> bool:
    """Whether a metric function has a ``sample_weight`` parameter (max_error has none)."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):  # a builtin without a signature: let the call decide
        return True
    return "sample_weight" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def _choose(metrics: Any, task: str, inputs: dict[str, np.ndarray | None],
            d: Labelled | None, positive: Any = None, *,
            weighted: bool = False) -> tuple[Chosen, ...]:
    """The rows of the evaluation: the registry's defaults for the task that the given
    columns feed, or the metrics asked for (each checked to apply).

    With sample weights, a default metric that takes none (a sample maximum) is left
    out, and one asked for by name is refused: a weighted evaluation never mixes in
    unweighted numbers.
    """
    regression = task == "regression"
    if d is not None and d.no_labels is not None and _needs_labels(metrics, task):
        raise ValueError(d.no_labels)
    if metrics is None:
        out = []
        for spec in specs(task=task):
            if inputs.get(spec.input) is None:
                continue
            if weighted and not takes_weights(spec.function):
                continue
            kw = _keywords(spec, d, positive) if d is not None else {}
            out.append(Chosen(label_of(spec, None, task, kw), spec.function, spec,
                              spec.input, kw, _negate(spec, d)))
        return tuple(out)
    out = []
    for metric in metrics_list(metrics):
        spec, function = resolve_metric(metric, task)
        if weighted and not takes_weights(function):
            name = getattr(function, "__name__", None) or type(function).__name__
            raise ValueError(f"metrics: {name} takes no sample_weight; leave it out of a "
                             "weighted evaluation")
        if spec is None:
            kind = "values" if regression else "labels"
            out.append(Chosen(label_of(None, function, task, {}), function, None, kind, {}))
            continue
        check_metric_applies(spec, task, {k for k, v in inputs.items() if v is not None})
        kw = _keywords(spec, d, positive) if d is not None else {}
        out.append(Chosen(label_of(spec, function, task, kw), function, spec, spec.input, kw,
                          _negate(spec, d)))
    labels = [c.label for c in out]
    if len(set(labels)) != len(labels):
        raise ValueError(f"metrics lists a metric twice: {labels}")
    return tuple(out)


def _needs_labels(metrics: Any, task: str) -> bool:
    """Whether the metrics asked for (None: the defaults, count metrics among them)
    need labels."""
    if metrics is None:
        return True
    resolved = (resolve_metric(m, task)[0] for m in metrics_list(metrics))
    return any(spec is None or spec.input == "labels" for spec in resolved)


def metrics_list(metrics: Any) -> list[Any]:
    """``metrics`` (a name, a callable or a list of them) as a non-empty list."""
    if isinstance(metrics, (str, bytes)) or callable(metrics):
        metrics = [metrics]
    try:
        metrics = list(metrics)
    except TypeError:
        raise TypeError(f"metrics must be None, a name, a callable or a list of them; got "
                        f"{type(metrics).__name__}") from None
    if not metrics:
        raise ValueError("metrics is empty; give None for every applicable metric")
    return metrics


def check_metric_applies(spec: MetricSpec, task: str, given: set[str]) -> None:
    """A metric asked for by name fits the task and is fed by the input kinds given
    (the in-memory and the streamed evaluations ask here)."""
    regression = task == "regression"
    if not spec.scalar:
        raise ValueError(f"metrics: {spec.name} does not return one number (it returns "
                         "a curve, a matrix or a table); choose scalar metrics")
    if (spec.family == "regression") != regression \
            or (spec.input == "values") != regression:
        raise ValueError(f"metrics: {spec.name} is a "
                         f"{'regression' if spec.input == 'values' else 'classification'}"
                         f" metric; this evaluation is "
                         f"{'regression' if regression else 'classification'}")
    if spec.input not in given:
        raise ValueError(f"metrics: {spec.name} needs {_FEEDS[spec.input]}, which was "
                         "not given")


def _negate(spec: MetricSpec, d: Labelled | None) -> bool:
    return d is not None and d.task == "binary" and spec.input == "scores" \
        and not spec.pos_label and d.positive != positive_label(d.labels, infer="greater")


def _rows(plan: Plan, members: np.ndarray | None, group: str | None = None) -> list[MetricRow]:
    """The rows of every chosen metric, on all samples or on a group's ``members``."""
    counted = _GroupCounts.of(plan, members)
    y_true = plan.y_true if members is None else plan.y_true[members]
    w = plan.weights if plan.weights is None or members is None else plan.weights[members]
    rows = []
    for c in plan.chosen:
        try:
            if counted is not None and _is_count(c):
                rows.append(counted.row(c, plan.task, plan.opts, group))
                continue
            other = plan.inputs[c.input]
            other = other if members is None else other[members]
            rows.append(_row(c, plan.task, y_true, -other if c.negate else other, w,
                             plan.opts, group))
        except ValueError as exc:
            if group is None:
                raise
            # a group on which the metric is undefined (one class for a ranking metric,
            # say) gets a row that says so; the overall row raised above instead
            rows.append(MetricRow(c.label, float("nan"), None, None,
                                  f"undefined: {exc}".split(";")[0][:120],
                                  plan.opts.confidence_level, int(y_true.shape[0]), group))
    return rows


def _is_count(c: Chosen) -> bool:
    return c.spec is not None and c.spec.interval_fast == "counts" and c.spec.scalar \
        and c.spec.default_interval is not None


@dataclasses.dataclass(frozen=True)
class _GroupCounts:
    """The confusion counts of one set of rows, for every count metric's row.

    The same state and bootstrap groups :func:`dartboard.interval` builds from the
    rows (classes present in the rows; rows grouped by (cell, weight) when weighted),
    counted once from label codes shared by all groups instead of once per metric.
    """

    state: Any
    groups: Any
    integral: bool

    @classmethod
    def of(cls, plan: Plan, members: np.ndarray | None) -> _GroupCounts | None:
        codes = _label_codes(plan)
        if codes is None:
            return None
        t, p, classes = codes
        w = plan.weights
        if members is not None:
            t, p = t[members], p[members]
            w = None if w is None else w[members]
        if w is not None and (w.dtype.kind not in "iuf" or not integer_counts_fit(
                np.abs(w, dtype=np.float64).sum())):
            return None  # exactness of the weighted sums is not assured: the slow path
        from dartboard.metrics._confusion import ConfusionCounts
        from dartboard.uncertainty._bootstrap import CountGroups

        k = classes.shape[0]
        cells = t * k + p
        unweighted = np.bincount(cells, minlength=k * k).reshape(k, k)
        present = (unweighted.sum(axis=0) + unweighted.sum(axis=1)) > 0
        if w is None:
            matrix = unweighted
        else:
            matrix = np.bincount(cells, weights=w, minlength=k * k).reshape(k, k)
            if w.dtype.kind in "iu":
                matrix = matrix.astype(np.int64)
        lut = np.cumsum(present) - 1
        kept = int(present.sum())
        state = ConfusionCounts(classes[present], matrix[np.ix_(present, present)])
        groups = None if w is None else CountGroups.from_codes(lut[t], lut[p], kept, w)
        integral = w is None or w.dtype.kind in "iu" or bool(np.all(np.mod(w, 1) == 0))
        return cls(state, groups, integral)

    def row(self, c: Chosen, task: str, opts: _Options, group: str | None) -> MetricRow:
        from dartboard.uncertainty._interval import _count_interval

        n = int(self.state.matrix.sum()) if self.groups is None else int(self.groups.size.sum())
        estimate = float(self.state.compute(c.spec.name, **c.kwargs))
        if not np.isfinite(estimate):
            return _no_interval(c, estimate, ValueError(
                f"{c.spec.name} is undefined on this data (it is {estimate})"), opts, n, group)
        try:
            res = _count_interval(c.spec, self.state, estimate,
                                  _method_for(opts.ci, c.spec, c.kwargs), opts.confidence_level,
                                  opts.n_resamples, False, opts.random_state, c.kwargs,
                                  groups=self.groups, integral=self.integral)
        except ValueError as exc:
            return _no_interval(c, estimate, exc, opts, n, group)
        return MetricRow(c.label, float(res.estimate), float(res.low), float(res.high),
                         str(res.method), float(res.confidence_level), n, group)


def _no_interval(c: Chosen, estimate: float, exc: ValueError, opts: _Options, n: int,
                 group: str | None) -> MetricRow:
    """The row of a metric whose interval cannot be formed (a bootstrap undefined on
    every resample; an estimate that is itself nan, or inf beyond float64's range):
    the estimate, a nan interval and why. One such metric does not fail the
    evaluation; the overall row also warns."""
    why = str(exc).split(";")[0][:100]
    if group is None:
        import warnings

        from dartboard.uncertainty import IntervalWarning

        warnings.warn(f"{c.label}: no interval: {why}", IntervalWarning, stacklevel=5)
    return MetricRow(c.label, estimate, float("nan"), float("nan"), f"n/a ({why})",
                     opts.confidence_level, n, group)


def _label_codes(plan: Plan) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(true codes, predicted codes, classes) of a classification plan with labels,
    computed once."""
    if plan.labelled is None or plan.labelled.y_pred is None:
        return None
    cache = plan.cache
    if "codes" not in cache:
        from dartboard._labels import encode_labels

        enc = encode_labels(("y_true", plan.y_true), ("y_pred", plan.labelled.y_pred))
        t, p = enc.codes
        cache["codes"] = (t.astype(np.int64), p.astype(np.int64), enc.classes)
    return cache["codes"]


def _row(c: Chosen, task: str, y_true: np.ndarray, other: np.ndarray,
         w: np.ndarray | None, opts: _Options, group: str | None) -> MetricRow:
    from dartboard.uncertainty import interval

    n = int(y_true.shape[0])
    weights = {} if w is None else {"sample_weight": w}
    if c.spec is not None and c.spec.default_interval is None:
        estimate = float(c.function(y_true, other, **c.kwargs, **weights))
        return MetricRow(c.label, estimate, None, None, _NO_INTERVAL, opts.confidence_level,
                         n, group)
    method = _method_for(opts.ci, c.spec, c.kwargs) if c.spec is not None else \
        (opts.ci if opts.ci in ("percentile", "basic", "bca") else "auto")
    if w is not None and method not in ("percentile", "basic", "bca"):
        method = "auto"  # analytic intervals take no weights; auto then bootstraps
    elif method not in ("auto", "percentile", "basic", "bca"):
        from dartboard.uncertainty._large import applicable

        if not applicable(c.spec, method, y_true, other, w, c.kwargs):
            method = "auto"  # DeLong of a multiclass AUC, say: the metric's default
    try:
        res = interval(c.function, y_true, other, method=method,
                       confidence_level=opts.confidence_level, n_resamples=opts.n_resamples,
                       random_state=opts.random_state, sample_weight=w, **c.kwargs)
    except ValueError as exc:
        # a metric that refuses the data fails the evaluation (its group's row); one
        # that gives a number keeps it, even nan or inf, and its interval says why not
        estimate = float(c.function(y_true, other, **c.kwargs, **weights))
        return _no_interval(c, estimate, exc, opts, n, group)
    return MetricRow(c.label, float(res.estimate), float(res.low), float(res.high),
                     str(res.method), float(res.confidence_level), n, group)


# ------------------------------------------------------------------ classification

def _inputs(d: Labelled) -> dict[str, np.ndarray | None]:
    """What feeds each registry input kind; None when the data does not give it."""
    probabilities = (d.proba if d.task == "multiclass" else d.y_score) \
        if d.is_prob or d.proba is not None else None
    return {"labels": d.y_pred, "probabilities": probabilities,
            "scores": d.y_score if d.task == "binary" else probabilities}


def _keywords(spec: MetricSpec, d: Labelled, positive: Any) -> dict[str, Any]:
    return metric_keywords(spec, d.task, positive, d.classes)


def metric_keywords(spec: MetricSpec, task: str, positive: Any,
                    classes: np.ndarray | None = None) -> dict[str, Any]:
    """The keywords a metric gets in an evaluation (in memory or streamed): the
    positive class of a binary task, the average of a multiclass one."""
    if task == "binary":
        # the score metrics too: labels may be strings, and their default is 1
        return {"pos_label": positive} if spec.pos_label else {}
    kw = dict(spec.multiclass)
    if spec.average and spec.family == "count" and "average" not in kw:
        kw["average"] = "macro"
    if spec.input == "probabilities":
        kw["labels"] = classes  # the probability columns, in sorted label order
    return kw


def _figures(plan: Plan) -> dict[str, Any]:
    """Classes, confusion matrix and curve points of a classification plan."""
    from dartboard.metrics import confusion_matrix, precision_recall_curve, roc_curve

    d, positive, w = plan.labelled, plan.positive, plan.weights
    out: dict[str, Any] = {"classes": tuple(d.labels.tolist()), "positive_label": positive}
    if d.y_pred is not None:
        matrix = confusion_matrix(d.y_true, d.y_pred, labels=d.labels, sample_weight=w)
        cells = tuple(tuple(int(c) if float(c).is_integer() else round(float(c), 6)
                            for c in r) for r in matrix.tolist())
        out["confusion"] = Confusion(tuple(str(v) for v in d.labels.tolist()), cells)
    if d.task == "binary" and d.y_score is not None and np.unique(d.y_true).size == 2:
        fpr, tpr, _ = roc_curve(d.y_true, d.y_score, pos_label=positive, sample_weight=w)
        precision, recall, _ = precision_recall_curve(d.y_true, d.y_score, pos_label=positive,
                                                      sample_weight=w)
        out["roc"] = RocPoints(*map(tuple, thin(fpr, tpr)))
        prevalence = float(np.average(d.y_true == positive, weights=w))
        out["pr"] = PrPoints(*map(tuple, thin(precision, recall)), prevalence=prevalence)
        opts = plan.opts
        out.update(operating_extras(
            d.y_true, d.y_score, positive, criterion=opts.threshold_criterion,
            target=opts.threshold_target, bands=opts.curve_bands,
            confidence_level=opts.confidence_level, n_resamples=opts.n_resamples,
            random_state=opts.random_state))
        if d.is_prob:
            out["calibration"] = CalibrationPoints(
                **{k: tuple(v) for k, v in calibration_points(
                    d.y_true, d.y_score, pos_label=positive,
                    confidence_level=plan.opts.confidence_level).items()})
    return out
