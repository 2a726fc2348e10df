"""The evaluation engine: predictions in, every applicable metric with its interval out.

``dartboard evaluate`` and ``dartboard demo`` call :func:`evaluate_predictions`, so a
table in the terminal, the ``--json`` output and the HTML report show the same
numbers. Which metrics a task reports, the keywords they take, which input feeds
them and which interval methods apply are the registry's facts
(:mod:`dartboard.metrics._registry`); what the inputs are, and what the evaluation
decides when not told (the task, the positive class, where labels are cut from
scores), is :mod:`dartboard.evaluation._inputs`. The rows are one batch of family
states (:mod:`dartboard.evaluation._bundle`, with per-cluster states when rows come
in clusters) finalized by :mod:`dartboard.evaluation._finalize`, as a streamed
evaluation's are; only a metric no family computes takes the rows themselves and
:func:`dartboard.interval`.
"""

from __future__ import annotations

import dataclasses
import inspect
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from dartboard._frames import arrays_in_value_order
from dartboard._labels import positive_label
from dartboard._progress import track
from dartboard._rng import RandomStateLike, seed_sequence
from dartboard._validation import (
    as_float_array,
    check_confidence_level,
    check_consistent_length,
    check_sample_weight,
)
from dartboard.evaluation._bundle import Bundle, Planned, build_bundle, plan_metrics
from dartboard.evaluation._clusters import ClusteredStates
from dartboard.evaluation._finalize import (
    NO_INTERVAL,
    GroupGaps,
    all_group_rows,
    method_for,
    metric_rows,
)
from dartboard.evaluation._groups import (
    GroupIndex,
    encode_groups,
    generic_group_replicates,
)
from dartboard.evaluation._inputs import (
    Labelled,
    check_given,
    classification_inputs,
    infer_from_values,
)
from dartboard.evaluation._operating import operating_extras
from dartboard.evaluation._options import (
    TASKS,
    EvaluationOptions,
    metrics_list,
    options_from,
)
from dartboard.evaluation._points import (
    calibration_points,
    error_points,
    fit_points,
    thin,
)
from dartboard.evaluation._result import (
    Assumption,
    CalibrationPoints,
    Confusion,
    ErrorPoints,
    EvaluationResult,
    FitPoints,
    MetricRow,
    PrPoints,
    RocPoints,
)
from dartboard.exceptions import FewClustersWarning, InputError
from dartboard.families import Batch, Metric, family_of
from dartboard.metrics._registry import MetricSpec, resolve_metric, specs

__all__ = ["TASKS", "infer_task", "evaluate_predictions", "prepare", "build_result", "Plan",
           "choose_metrics",
           "Chosen", "metric_keywords",
           "metrics_list", "check_metric_applies", "label_of"]

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

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels or values.
    y_pred : array-like of shape (n_samples,), optional
        Predicted labels or values.
    y_score : array-like of shape (n_samples,), optional
        Scores of one class.
    proba : array-like of shape (n_samples, n_classes), optional
        Class probabilities.

    Returns
    -------
    str
        ``"binary"``, ``"multiclass"`` or ``"regression"``.

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
                         random_state: RandomStateLike = 0, groups: Any = None,
                         model: str | None = None, metrics: Any = None,
                         sample_weight: Any = None, pos_label: Any = None,
                         threshold_criterion: str | None = None,
                         threshold_target: float | None = None,
                         curve_bands: bool = False) -> EvaluationResult:
    """Every metric the registry reports for the task, with its interval, and the
    points of the ROC, PR, confusion-matrix, calibration or error figures.

    Internal: the engine's entry for the command line, the demo and the report, which
    seed it (``random_state=0``) so that their files are reproducible. Users call
    :func:`dartboard.evaluate`, whose ``result`` is this function's value.

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

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels, or true values of a regression.
    y_pred : array-like of shape (n_samples,), optional
        Predicted labels, or predicted values of a regression.
    y_score : array-like of shape (n_samples,), optional
        Binary scores or probabilities of the positive class.
    y_proba : array-like of shape (n_samples, n_classes), optional
        Class probabilities, columns in sorted label order.
    threshold : float, optional
        Labels are ``y_score >= threshold`` when ``y_pred`` is not given.
    task : {"auto", "binary", "multiclass", "regression"}, default="auto"
        The task; ``auto`` infers it (:func:`infer_task`).
    ci : str, default="auto"
        The interval method (see above).
    confidence_level : float, default=0.95
        The intervals' confidence level.
    n_resamples : int, default=2000
        Resamples of the bootstrap intervals.
    random_state : None, int, SeedSequence or Generator, default=0
        Seed of the resamples.
    groups : array-like or DataFrame, optional
        One group column or several (their intersections).
    model : str, optional
        The model's name, in tables and the report.
    metrics : sequence of str or callable, optional
        The rows (see above); None: every metric the registry reports for the task.
    sample_weight : array-like of shape (n_samples,), optional
        Sample weights.
    pos_label : label, optional
        The positive class of a binary task.
    threshold_criterion : str, optional
        Add the operating point that :func:`dartboard.select_threshold` chooses by it.
    threshold_target : float, optional
        The target of a constrained ``threshold_criterion``.
    curve_bands : bool, default=False
        Add pointwise ROC and PR bands (binary scores).

    Returns
    -------
    EvaluationResult
        The rows, the groups, the points of the figures and the assumptions made.

    Examples
    --------
    >>> res = evaluate_predictions([0, 1] * 20, y_pred=[0, 1] * 15 + [1, 1] * 5,
    ...                            n_resamples=500)
    >>> res.task, res.metrics[0].metric, res.metrics[0].estimate, res.metrics[0].method
    ('binary', 'accuracy', 0.875, 'wilson')
    >>> res.confusion.matrix
    ((15, 5), (0, 20))
    """
    options = options_from(locals(), None)
    return build_result(prepare(y_true, y_pred=y_pred, y_score=y_score, y_proba=y_proba,
                                groups=groups, sample_weight=sample_weight, options=options),
                        options.model)[0]


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
    opts: EvaluationOptions
    labelled: Labelled | None = None
    positive: Any = None
    #: what was decided without being told (:mod:`dartboard.evaluation._inputs`)
    assumptions: tuple[Assumption, ...] = ()
    #: the cluster of each row (codes 0..C-1) when rows are not independent
    clusters: np.ndarray | None = None
    #: values computed once and shared (label codes)
    cache: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    def feed(self, kind: str) -> np.ndarray:
        """The array that feeds input ``kind``; the planner chose only metrics whose
        input the data gives."""
        array = self.inputs[kind]
        assert array is not None, kind
        return array

    @property
    def y_pred(self) -> np.ndarray:
        return self.feed("labels" if self.task != "regression" else "values")


def _level(opts: EvaluationOptions) -> float:
    """The confidence level of an in-memory evaluation (never None: :func:`prepare`)."""
    assert opts.confidence_level is not None
    return opts.confidence_level


def zero_weight_error(name: str, n_rows: int) -> ValueError:
    """The one refusal of weights that are all zero (every metric is a weighted mean
    over no weight), in memory and streamed."""
    return InputError(f"{name} sums to zero over all {n_rows} rows; at least one row needs "
                      "a positive weight")


def _some_weight(w: np.ndarray | None) -> np.ndarray | None:
    if w is not None and w.shape[0] and not np.any(w):
        raise zero_weight_error("sample_weight", w.shape[0])
    return w


def prepare(y_true: Any, *, y_pred: Any = None, y_score: Any = None, y_proba: Any = None,
            groups: Any = None, sample_weight: Any = None, clusters: Any = None,
            options: EvaluationOptions) -> Plan:
    """Check the inputs against the (checked) options and choose the metrics:
    everything before any number."""
    opts = options
    task: str = opts.task
    metrics, pos_label = opts.metrics, opts.pos_label
    threshold = check_given(y_pred, y_score, y_proba, opts.threshold)
    if opts.confidence_level is None:  # the rows' intervals, figures and gaps need one
        check_confidence_level(opts.confidence_level)
    notes: tuple[Assumption, ...] = ()
    if task == "auto" and y_score is None and y_proba is None:
        task, why = infer_from_values(y_true, y_pred)
        notes = (Assumption("task", task, why),)
    if task == "regression":
        plan = _regression_plan(y_true, y_pred, y_score, y_proba, threshold, opts, groups,
                                metrics, sample_weight, pos_label, notes)
        return _with_clusters(plan, clusters)
    d = classification_inputs(y_true, y_pred, y_score, y_proba, task, pos_label, threshold)
    if (opts.threshold_criterion is not None or opts.curve_bands) and not (
            d.task == "binary" and d.y_score is not None):
        raise operating_error(d.task, d.y_score is not None)
    n = d.y_true.shape[0]
    inputs = _inputs(d)
    w = _some_weight(check_sample_weight(sample_weight, n, scale_free=True))
    chosen = _choose(metrics, d.task, inputs, d, d.positive, weighted=w is not None)
    if d.no_positive is not None and any(c.spec is not None and c.spec.pos_label
                                         for c in chosen):
        raise InputError(d.no_positive)
    return _with_clusters(Plan(d.task, d.y_true, inputs, chosen, w,
                               None if groups is None else encode_groups(groups, n), opts, d,
                               d.positive, assumptions=notes + d.assumptions), clusters)


def _with_clusters(plan: Plan, clusters: Any) -> Plan:
    """The plan with each row's cluster checked (one per row, none missing, two or more
    clusters); the analytic methods that assume independent rows are refused with
    clusters (the cluster-robust ones and the cluster bootstrap are taken)."""
    from dartboard.evaluation._clusters import check_cluster_ci

    check_cluster_ci(plan.opts.ci, clusters is not None)
    if clusters is None:
        return plan
    from dartboard._kernels._clustered import cluster_index
    from dartboard._kernels._clustered_analytic import (
        few_clusters,
        uneven_clusters,
        warn_few_clusters,
    )

    index = cluster_index(clusters, plan.y_true.shape[0])
    notes = plan.assumptions
    if few_clusters(index.n_clusters) is not None:
        warn_few_clusters(index.n_clusters, stacklevel=5)
        notes += (Assumption("clusters", index.n_clusters, str(few_clusters(index.n_clusters))),)
    rows = np.bincount(index.codes, minlength=index.n_clusters)
    uneven = uneven_clusters(rows) if any(
        getattr(family_of(c.spec), "mean_of_terms", False) for c in plan.chosen) else None
    if uneven is not None:
        notes += (Assumption("cluster_sizes", f"largest {rows.max() / rows.sum():.0%} of "
                             "rows", uneven),)
    return dataclasses.replace(plan, clusters=index.codes, assumptions=notes)


def _regression_plan(y_true: Any, y_pred: Any, y_score: Any, y_proba: Any,
                     threshold: float | None, opts: EvaluationOptions, groups: Any, metrics: Any,
                     sample_weight: Any, pos_label: Any,
                     notes: tuple[Assumption, ...]) -> Plan:
    if y_pred is None or y_score is not None or y_proba is not None:
        raise InputError("task='regression' needs y_pred (predicted values) only, not "
                         "y_score or y_proba")
    if pos_label is not None:
        raise InputError("pos_label applies to a binary task, not to regression")
    if threshold is not None:
        raise InputError("threshold cuts scores into labels (a binary task); this one is "
                         "regression")
    if opts.threshold_criterion is not None or opts.curve_bands:
        raise InputError("threshold_criterion and curve_bands need binary scores "
                         "(y_score); got a regression task")
    yt = as_float_array(y_true, name="y_true")
    yp = as_float_array(y_pred, name="y_pred")
    n = check_consistent_length(("y_true", yt), ("y_pred", yp))
    inputs: dict[str, np.ndarray | None] = {"values": yp}
    w = _some_weight(check_sample_weight(sample_weight, n, scale_free=True))
    chosen = _choose(metrics, "regression", inputs, None, weighted=w is not None)
    return Plan("regression", yt, inputs, chosen, w,
                None if groups is None else encode_groups(groups, n), opts,
                assumptions=notes)


def operating_error(task: str, scores: bool) -> InputError:
    """Why an operating point or curve bands cannot be had: they need binary scores."""
    return InputError("threshold_criterion and curve_bands need binary scores (y_score); "
                      f"got a {task} task" + (" with scores" if scores else " without scores"))


def build_result(plan: Plan, model: str | None = None,
                 seed: np.random.SeedSequence | None = None
                 ) -> tuple[EvaluationResult, GroupGaps | None]:
    """The rows (overall and per group), the figures' points and the gaps of a plan.

    The rows are one batch of the streaming path: a bundle of family states
    (:mod:`dartboard.evaluation._bundle`) finalized by
    :mod:`dartboard.evaluation._finalize`; only metrics no family computes use the
    rows themselves.
    """
    batch = _batch(plan)
    planned = plan_metrics([(c.label, c.spec, c.kwargs) for c in plan.chosen], batch)
    bundle = build_bundle(batch, planned, plan.groups, clusters=plan.clusters, shown=True)
    opts = plan.opts
    by_label = {p.label: p for p in planned}
    if plan.groups is not None:
        by_label.update(fairness_rates(plan.positive, bundle))
    # rows in clusters: the clusters' states give the intervals, as streamed
    clusters: _ClusteredRows | None = None
    generic: _GenericRows | _ClusteredRows
    if plan.clusters is None:
        generic = _GenericRows(plan)
        rows = tuple(metric_rows(bundle, planned, opts, generic.row))
    else:  # seconds with many clusters: a bar, metric by metric
        clusters = generic = _ClusteredRows(plan, bundle, by_label)
        rows = tuple(row for p in track(planned, "metrics")
                     for row in metric_rows(bundle, (p,), opts, generic.row, clusters=clusters))
    group_rows = gaps = None
    extra: dict[str, Any] = {}
    if plan.groups is not None:
        keys = plan.groups.keys
        by_key = bundle.groups
        assert by_key is not None  # a grouped batch has a bundle per group
        labels = [plan.groups.label(g) for g in range(len(keys))]
        if clusters is None:
            group_rows = tuple(all_group_rows(
                [by_key[k] for k in keys], labels, planned, opts, generic.row,
                list(plan.groups.members()),
                progress=track(range(len(keys)), "metrics by group")))
        else:
            group_rows = tuple(row for g, members in track(
                                   enumerate(plan.groups.members()), "metrics by group",
                                   total=len(keys))
                               for row in metric_rows(by_key[keys[g]], planned, opts,
                                                      generic.row, labels[g], members,
                                                      clusters=clusters))
        extra.update(group_columns=plan.groups.names, group_keys=keys)
        gaps = GroupGaps(bundle, by_label, keys,
                         seed if seed is not None else seed_sequence(plan.opts.random_state),
                         plan.opts.n_resamples, _level(plan.opts), generic)
    if plan.clusters is not None:
        extra["n_clusters"] = int(plan.clusters.max()) + 1
    if plan.task == "regression":
        errors, summary = error_points(plan.y_true, plan.y_pred)
        fit = fit_points(plan.y_true, plan.y_pred)
        return EvaluationResult(task="regression", n=int(plan.y_true.shape[0]), model=model,
                                metrics=rows, groups=group_rows,
                                errors=ErrorPoints(tuple(errors), tuple(summary)),
                                fit=FitPoints(*(tuple(fit[k]) for k in
                                                ("predicted", "actual", "residual"))),
                                assumptions=plan.assumptions, **extra), gaps
    return EvaluationResult(task=plan.task, n=int(plan.y_true.shape[0]), model=model,
                            metrics=rows, groups=group_rows, **_figures(plan),
                            assumptions=plan.assumptions, **extra), gaps


def fairness_rates(positive: Any, bundle: Bundle) -> dict[str, Planned]:
    """The rates the fairness summaries compare (the registry's ``rate`` facts), as
    metrics of the confusion counts, when the evaluation has them (binary labels)."""
    if positive is None:
        return {}
    out = {}
    for spec in specs(scalar=True):
        if spec.rate is None:
            continue
        (planned,) = plan_metrics([(f"__{spec.rate}", spec, {"pos_label": positive})])
        if planned.key in bundle.states:
            out[planned.label] = planned
    return out


def _batch(plan: Plan) -> Batch:
    """The plan's rows as one batch of the families."""
    classes = None if plan.labelled is None else plan.labelled.classes
    return Batch(plan.y_true, dict(plan.inputs), plan.weights, plan.positive, classes)


class _GenericRows:
    """Rows and group replicates of metrics no family computes, from the plan's rows."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.chosen: Any = {c.label: c for c in plan.chosen}
        self.by_label = {c.label: c for c in plan.chosen}
        #: how the replicates of a label were formed, where not by evaluating each draw
        self.notes: dict[str, str] = {}

    def row(self, p: Planned, members: np.ndarray | None, group: str | None) -> MetricRow:
        plan, c = self.plan, self.chosen[p.label]
        y_true = plan.y_true if members is None else plan.y_true[members]
        w = plan.weights if plan.weights is None or members is None else \
            plan.weights[members]
        other = plan.feed(c.input)
        other = other if members is None else other[members]
        try:
            return _row(c, plan.task, y_true, -other if c.negate else other, w, plan.opts,
                        group)
        except ValueError as exc:
            if group is None:
                raise
            # a group on which the metric is undefined (one class for a ranking metric,
            # say) gets a row that says so; the overall row raised above instead
            return MetricRow(c.label, float("nan"), None, None,
                             f"undefined: {exc}".split(";")[0][:120],
                             _level(plan.opts), int(y_true.shape[0]), group)

    def replicates(self, p: Planned, rng: np.random.Generator) -> np.ndarray:
        plan, c = self.plan, self.chosen[p.label]
        assert plan.groups is not None  # replicates are drawn for the gaps between groups
        other = plan.feed(c.input)
        other = -other if c.negate else other
        w = plan.weights

        def statistic(rows: np.ndarray) -> float:
            kw = dict(c.kwargs)
            if w is not None:
                kw["sample_weight"] = w[rows]
            return float(c.function(plan.y_true[rows], other[rows], **kw))

        return generic_group_replicates(statistic, plan.groups, plan.opts.n_resamples, rng,
                                        p.label)


class _ClusteredRows(ClusteredStates):
    """Rows in clusters (``clusters=``) in memory, as streamed: the bundle holds one set
    of family states per cluster (overall and per group), and every metric a family
    computes takes its interval, design effect and gap replicates from them
    (:class:`~dartboard.evaluation._clusters.ClusteredStates`), so both give the same
    numbers by one route. The rows give only what those states cannot: a metric no
    family computes (the public :func:`dartboard.interval` with ``clusters``), and the
    bootstrap of whole clusters of a metric whose cells do not pool (its value on the
    rows of each replicate's clusters). The groups' replicates come from one draw of
    clusters shared by all groups (a patient's visits may fall in several groups), so
    the gaps account for the clustering too."""

    def __init__(self, plan: Plan, bundle: Bundle, planned: dict[str, Planned]) -> None:
        assert plan.clusters is not None  # already 0..C-1 (_with_clusters encoded them)
        n_clusters = int(plan.clusters.max()) + 1
        keys = () if plan.groups is None else plan.groups.keys
        super().__init__(bundle, {c: c for c in range(n_clusters)}, plan.opts, keys,
                         planned)
        self.plan = plan
        self.by_label = {c.label: c for c in plan.chosen}
        self.chosen = _Everything()
        #: the rows of each bundle by its identity: all rows (None) or a group's
        self._members: dict[int, np.ndarray | None] = {id(bundle): None}
        if plan.groups is not None and bundle.groups is not None:
            for g, rows in enumerate(plan.groups.members()):
                self._members[id(bundle.groups[keys[g]])] = rows

    def _source(self, p: Planned) -> tuple[Callable[..., Any], np.ndarray, dict[str, Any]]:
        """(function, other input, keywords) of a row's metric or a fairness rate."""
        plan = self.plan
        c = self.by_label.get(p.label)
        if c is not None:
            other = plan.feed(c.input)
            return c.function, -other if c.negate else other, self._keywords(c.spec,
                                                                             c.kwargs)
        assert p.metric is not None  # a fairness rate, planned from the registry
        spec = p.metric.spec
        return spec.function, plan.feed(spec.input), self._keywords(spec, p.metric.kwargs)

    def _keywords(self, spec: MetricSpec | None, kwargs: dict[str, Any]) -> dict[str, Any]:
        """A metric's keywords with the evaluation's classes where its family reads them
        from the rows (log loss's ``labels``): a group or a resample of clusters may
        lack a class, as the family's states of the unclustered rows allow."""
        family = family_of(spec)
        if spec is None or family is None or not family.supports(Metric(spec, kwargs)):
            return dict(kwargs)
        classes = None if self.plan.labelled is None else self.plan.labelled.classes
        return family.with_classes(Metric(spec, kwargs), classes)

    def _inputs(self, p: Planned, rows: np.ndarray | None
                ) -> tuple[Callable[..., Any], dict[str, Any], np.ndarray, np.ndarray,
                           np.ndarray | None, np.ndarray]:
        """(function, keywords, y, other input, weights, clusters) of ``p`` on ``rows``
        (None: all rows)."""
        plan = self.plan
        function, other, kwargs = self._source(p)
        y, w, cl = plan.y_true, plan.weights, plan.clusters
        assert cl is not None  # these rows exist only when clusters are given
        if rows is not None:
            y, other, cl = y[rows], other[rows], cl[rows]
            w = None if w is None else w[rows]
        return function, kwargs, y, other, w, cl

    def _statistic(self, p: Planned, rows: np.ndarray | None
                   ) -> tuple[Callable[[np.ndarray], float], np.ndarray]:
        """The metric of ``p`` on some of ``rows`` (their positions; nan where it is
        undefined), and the cluster of each of ``rows``."""
        function, kwargs, y, other, w, cl = self._inputs(p, rows)

        def value(at: np.ndarray) -> float:
            extra = {} if w is None else {"sample_weight": w[at]}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return float(function(y[at], other[at], **kwargs, **extra))
            except (ValueError, ZeroDivisionError):
                return float("nan")

        return value, cl

    def rows(self, p: Planned, bundle: Bundle,
             rng: np.random.Generator | Callable[[], np.random.Generator]
             ) -> Callable[[bool], Any] | None:
        from dartboard._kernels._clustered import ClusterIndex, generic_cluster_replicates
        from dartboard._labels import encode_ids

        members = self._members.get(id(bundle))

        def drawn(jackknife: bool) -> Any:
            # the rows and their clusters found only when an interval draws them (a
            # metric whose clusters' cells do not pool)
            value, cl = self._statistic(p, members)
            index = ClusterIndex(*encode_ids(cl, "clusters"))
            return generic_cluster_replicates(value, index, self.plan.opts.n_resamples,
                                              rng() if callable(rng) else rng, jackknife)

        return drawn

    def row(self, p: Planned, members: np.ndarray | None, group: str | None) -> MetricRow:
        """The row of a metric no family computes: :func:`dartboard.interval` with the
        clusters of ``members`` (None: all rows)."""
        from dartboard._kernels._clustered import CLUSTER_METHODS
        from dartboard._kernels._methods import CLUSTERED_ANALYTIC_METHODS
        from dartboard.evaluation._design import design_effect, zero_width
        from dartboard.uncertainty import interval

        opts = self.plan.opts
        function, kwargs, y, other, w, cl = self._inputs(p, members)
        weights = {} if w is None else {"sample_weight": w}
        n = int(y.shape[0])
        try:
            estimate = float(function(y, other, **kwargs, **weights))
        except ValueError as exc:
            if group is None:
                raise
            return MetricRow(p.label, float("nan"), None, None,
                             f"undefined: {exc}".split(";")[0][:120], _level(opts),
                             n, group)
        try:
            with warnings.catch_warnings():  # said once, by the plan (_with_clusters)
                warnings.simplefilter("ignore", FewClustersWarning)
                iv = interval(function, y, other, method=opts.ci if opts.ci in CLUSTER_METHODS
                              or opts.ci in CLUSTERED_ANALYTIC_METHODS else "auto",
                              confidence_level=_level(opts),
                              n_resamples=opts.n_resamples, random_state=opts.random_state,
                              sample_weight=w, clusters=cl, **kwargs)
            degenerate = zero_width(iv)
            if degenerate is not None:
                raise InputError(degenerate)
        except ValueError as exc:
            reason = str(exc).split(";")[0][:120]
            if group is None:
                from dartboard.uncertainty import IntervalWarning

                warnings.warn(f"no interval for {p.label}: {reason}", IntervalWarning,
                              stacklevel=5)
            return MetricRow(p.label, estimate, None, None, f"n/a ({reason})",
                             _level(opts), n, group)
        deff = design_effect(iv, function, y, other, w, kwargs, opts.n_resamples,
                             opts.random_state)
        return MetricRow(p.label, float(iv.estimate), float(iv.low), float(iv.high),
                         str(iv.method), float(iv.confidence_level), n, group,
                         design_effect=deff)

    def replicates(self, p: Planned, rng: np.random.Generator) -> np.ndarray:
        """(R, G + 1) replicates of ``p`` on each group and on all rows from one draw of
        clusters per replicate: from the clusters' cells where they pool, else from the
        rows of the drawn clusters."""
        if p.family is not None and self.parts(p) is not None:
            return super().replicates(p, rng)
        plan = self.plan
        assert plan.groups is not None and plan.clusters is not None
        from dartboard._kernels._clustered import ClusterIndex

        value, codes = self._statistic(p, None)
        members = ClusterIndex(codes, len(self.order)).members
        group_of = np.empty(plan.y_true.shape[0], dtype=np.intp)
        for g, rows in enumerate(plan.groups.members()):
            group_of[rows] = g
        g_count = len(plan.groups.keys)
        out = np.full((plan.opts.n_resamples, g_count + 1), np.nan)
        c = len(members)
        for r in track(range(plan.opts.n_resamples), f"resampling clusters for {p.label}"):
            idx = np.concatenate([members[k] for k in rng.integers(0, c, c)])
            for g in range(g_count):
                rows = idx[group_of[idx] == g]
                if rows.size:
                    out[r, g] = value(rows)
            out[r, g_count] = value(idx)
        return out


class _Everything:
    """A container that holds every label (the clustered rows draw any metric)."""

    def __contains__(self, label: object) -> bool:
        return True


def label_of(spec: MetricSpec | None, function: Any, task: str,
              kwargs: dict[str, Any]) -> str:
    if spec is None:
        return getattr(function, "__name__", None) or type(function).__name__
    base = spec.label or spec.name.removesuffix("_score")
    return f"{base}_{kwargs['average']}" if task == "multiclass" and "average" in kwargs \
        else base


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
    """The rows of an in-memory evaluation (:func:`choose_metrics` on its inputs)."""
    if d is not None and d.no_labels is not None and needs_labels(metrics):
        raise InputError(d.no_labels)
    given = {k for k, v in inputs.items() if v is not None}
    classes = None if d is None else d.classes
    negate = d is not None and d.task == "binary" and \
        d.positive != positive_label(d.labels, infer="greater")
    return choose_metrics(metrics, task, given, classes, positive, weighted=weighted,
                          negate=negate)


def needs_labels(metrics: Any) -> bool:
    """Whether the metrics asked for (None: the defaults, count metrics among them)
    need labels."""
    if metrics is None:
        return True
    resolved = (resolve_metric(m, argument="metrics").spec for m in metrics_list(metrics))
    return any(spec is None or spec.takes_labels for spec in resolved)


def choose_metrics(metrics: Any, task: str, given: set[str], classes: np.ndarray | None,
                   positive: Any = None, *, weighted: bool = False,
                   negate: bool = False) -> tuple[Chosen, ...]:
    """The rows of an evaluation (in memory or streamed): the registry's defaults for
    the task that the given input kinds feed, or the metrics asked for (each checked
    to apply), with their keywords and labels.

    With sample weights, a default metric that takes none (a sample maximum) is left
    out, and one asked for by name is refused: a weighted evaluation never mixes in
    unweighted numbers. ``negate``: binary scores whose positive class is the lesser
    label feed the score metrics that take no ``pos_label`` negated (the generic rows).
    """
    regression = task == "regression"

    def keywords(spec: MetricSpec) -> dict[str, Any]:
        return {} if regression else metric_keywords(spec, task, positive, classes)

    def flip(spec: MetricSpec) -> bool:
        return negate and spec.takes_scores and not spec.takes_probabilities \
            and not spec.pos_label

    spec: MetricSpec | None
    if metrics is None:
        out = []
        for spec in specs(task=task):
            if spec.input not in given or (weighted and not takes_weights(spec.function)):
                continue
            kw = keywords(spec)
            out.append(Chosen(label_of(spec, None, task, kw), spec.function, spec,
                              spec.input, kw, flip(spec)))
        return tuple(out)
    out = []
    for metric in metrics_list(metrics):
        resolved = resolve_metric(metric, argument="metrics")
        spec, function = resolved.spec, resolved.function
        if weighted and not takes_weights(function):
            name = getattr(function, "__name__", None) or type(function).__name__
            raise InputError(f"metrics: {name} takes no sample_weight; leave it out of a "
                             "weighted evaluation")
        if spec is None:
            kind = "values" if regression else "labels"
            out.append(Chosen(label_of(None, function, task, {}), function, None, kind, {}))
            continue
        check_metric_applies(spec, task, given, resolved.kwargs)
        kw = keywords(spec)
        # keywords the name carries ("f1_macro") override the task's defaults
        label = resolved.label if resolved.kwargs else label_of(spec, function, task, kw)
        kw.update(resolved.kwargs)
        out.append(Chosen(label, function, spec, spec.input, kw, flip(spec)))
    labels = [c.label for c in out]
    if len(set(labels)) != len(labels):
        raise InputError(f"metrics lists a metric twice: {labels}")
    return tuple(out)


def check_metric_applies(spec: MetricSpec, task: str, given: set[str],
                         bound: Iterable[str] = ()) -> None:
    """A metric asked for by name fits the task and is fed by the input kinds given
    (the in-memory and the streamed evaluations ask here); ``bound``: the keywords its
    name or ``functools.partial`` gives."""
    regression = task == "regression"
    if not spec.scalar:
        raise InputError(f"metrics: {spec.name} does not return one number (it returns "
                         "a curve, a matrix or a table); choose scalar metrics")
    if spec.regression != regression or spec.classification == regression:
        raise InputError(f"metrics: {spec.name} is a "
                         f"{'classification' if spec.classification else 'regression'}"
                         f" metric; this evaluation is "
                         f"{'regression' if regression else 'classification'}")
    if spec.input not in given:
        raise InputError(f"metrics: {spec.name} needs {_FEEDS[spec.input]}, which was "
                         "not given")
    required = [name for name, p in inspect.signature(spec.function).parameters.items()
                if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is p.empty
                and name not in bound]
    if required:
        raise InputError(f"metrics: {spec.name} needs {', '.join(required)}; name it with "
                         f"its value, e.g. '{spec.name}({required[0]}=...)', or bind it with "
                         f"functools.partial({spec.name}, {required[0]}=...)")


def _row(c: Chosen, task: str, y_true: np.ndarray, other: np.ndarray,
         w: np.ndarray | None, opts: EvaluationOptions, group: str | None) -> MetricRow:
    from dartboard.uncertainty import interval

    n = int(y_true.shape[0])
    weights = {} if w is None else {"sample_weight": w}
    if c.spec is not None and c.spec.default_interval is None:
        estimate = float(c.function(y_true, other, **c.kwargs, **weights))
        return MetricRow(c.label, estimate, None, None, NO_INTERVAL, _level(opts),
                         n, group)
    method = method_for(opts.ci, c.spec, c.kwargs) if c.spec is not None else \
        (opts.ci if opts.ci in ("percentile", "basic", "bca") else "auto")
    if w is not None and method not in ("percentile", "basic", "bca"):
        method = "auto"  # analytic intervals take no weights; auto then bootstraps
    try:
        res = interval(c.function, y_true, other, method=method,
                       confidence_level=_level(opts), n_resamples=opts.n_resamples,
                       random_state=opts.random_state, sample_weight=w, **c.kwargs)
    except ValueError as exc:
        # a metric that refuses the data fails the evaluation (its group's row); one
        # that gives a number keeps it, even nan or inf, and its method says why there
        # is no interval
        estimate = float(c.function(y_true, other, **c.kwargs, **weights))
        reason = str(exc).split(";")[0][:120]
        if group is None:
            import warnings

            from dartboard.uncertainty import IntervalWarning

            warnings.warn(f"no interval for {c.label}: {reason}", IntervalWarning,
                          stacklevel=5)
        return MetricRow(c.label, estimate, None, None, f"n/a ({reason})",
                         _level(opts), n, group)
    return MetricRow(c.label, float(res.estimate), float(res.low), float(res.high),
                     str(res.method), float(res.confidence_level), n, group)


# ------------------------------------------------------------------ classification

def _inputs(d: Labelled) -> dict[str, np.ndarray | None]:
    """What feeds each registry input kind; None when the data does not give it."""
    probabilities = (d.proba if d.task == "multiclass" else d.y_score) \
        if d.is_prob or d.proba is not None else None
    return {"labels": d.y_pred, "probabilities": probabilities,
            "scores": d.y_score if d.task == "binary" else probabilities}


def metric_keywords(spec: MetricSpec, task: str, positive: Any,
                    classes: np.ndarray | None = None) -> dict[str, Any]:
    """The keywords a metric gets in an evaluation (in memory or streamed): the
    positive class of a binary task, the average of a multiclass one."""
    if task == "binary":
        # the score metrics too: labels may be strings, and their default is 1
        return {"pos_label": positive} if spec.pos_label else {}
    kw = dict(spec.multiclass)
    if spec.set_wise and "average" not in kw:
        kw["average"] = "macro"
    if spec.takes_probabilities:
        kw["labels"] = classes  # the probability columns, in sorted label order
    return kw


def _figures(plan: Plan) -> dict[str, Any]:
    """Classes, confusion matrix and curve points of a classification plan."""
    from dartboard.metrics import confusion_matrix, precision_recall_curve, roc_curve

    d, positive, w = plan.labelled, plan.positive, plan.weights
    assert d is not None  # figures are drawn for classification plans
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
        pr_precision, pr_recall = thin(precision, recall)
        out["pr"] = PrPoints(tuple(pr_precision), tuple(pr_recall), prevalence=prevalence)
        opts = plan.opts
        if opts.threshold_criterion is not None or opts.curve_bands:
            # the rows in the order of their values, as every source reads them
            # (rows_in_order): the same operating point from arrays, tables and files
            y, s, ws, cl = arrays_in_value_order(d.y_true, d.y_score, w, plan.clusters)
            assert y is not None and s is not None  # binary scores (checked above)
            out.update(operating_extras(
                y, s, positive, criterion=opts.threshold_criterion,
                target=opts.threshold_target, bands=opts.curve_bands,
                confidence_level=_level(opts), n_resamples=opts.n_resamples,
                random_state=opts.random_state, sample_weight=ws, clusters=cl))
        if d.is_prob:
            points: dict[str, Any] = {
                k: v if isinstance(v, str) else tuple(v) for k, v in calibration_points(
                    d.y_true, d.y_score, pos_label=positive,
                    confidence_level=_level(plan.opts),
                    clusters=plan.clusters).items()}
            out["calibration"] = CalibrationPoints(**points)
    return out
