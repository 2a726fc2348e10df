"""What streaming and Dask evaluation share: the options, the state bundle, the metrics.

A batch (a Parquet record batch or a Dask partition) becomes a :class:`StateBundle`
(:func:`bundle_from_columns`), with one bundle per group of the batch when group
columns are given; bundles merge; :func:`dartboard.scale._finalize.finalize` turns the
merged bundle into the :class:`~dartboard.evaluation.Evaluation` that
:func:`dartboard.evaluate` returns. Streaming and Dask differ only in how they
produce and reduce bundles, so they give the same numbers.

Options are checked by the in-memory evaluation's own checks where they mean the
same (metric names, the positive class, the labels; :mod:`dartboard.evaluation._engine`),
so a misuse gets the same error in memory, streamed or on Dask.
"""

from __future__ import annotations

import dataclasses
import inspect
import numbers
from typing import Any

import numpy as np

from dartboard._labels import positive_label
from dartboard._rng import check_random_state
from dartboard._validation import (
    MAX_BINS,
    WEIGHT_RANGE,
    as_float_array,
    check_confidence_level,
    check_int,
    check_n_resamples,
    check_option,
    check_sample_weight,
    describe,
    label_array,
)
from dartboard.metrics._registry import MetricSpec, get_spec, specs
from dartboard.metrics._state import check_same_kind
from dartboard.scale._states import BinnedScoreState, QuantileSketch
from dartboard.uncertainty._interval import METHODS as INTERVAL_METHODS

__all__ = ["Spec", "StateBundle", "bundle_from_columns", "make_spec", "spec_options",
           "with_score_range", "MergeStack"]

_AVAILABLE = {
    # what a streaming state needs among the columns given: (y_pred, y_score, proba)
    "counts": lambda pred, score, proba: pred or proba,
    "scores": lambda pred, score, proba: score or proba,
    "losses": lambda pred, score, proba: proba,
    "calibration": lambda pred, score, proba: proba,
}


@dataclasses.dataclass(frozen=True)
class Spec:
    """Checked options of one evaluation (picklable: it travels to Dask workers)."""

    y_true: str
    y_pred: str | None
    y_score: str | None
    sample_weight: str | None
    task: str
    metrics: tuple[str, ...]
    exact: bool
    n_bins: int
    score_range: tuple[float, float] | None
    relative_accuracy: float
    pos_label: Any
    confidence_level: float | None
    proba: tuple[str, ...] | None = None
    classes: tuple[Any, ...] | None = None
    ci_method: str = "auto"
    n_resamples: int = 2000
    random_state: Any = None
    default_metrics: bool = False
    groups: tuple[str, ...] | None = None
    model: str | None = None
    #: ``task="auto"``: what the task was decided from, checked against the values at
    #: the end (``"labels"``, ``"floats"``, ``"scores"``); None when it was given
    auto: str | None = None

    @property
    def columns(self) -> list[str]:
        """Columns to read, each once."""
        cols = [self.y_true, self.y_pred, self.y_score, self.sample_weight, *(self.proba or ()),
                *(self.groups or ())]
        return list(dict.fromkeys(c for c in cols if c is not None))

    def group_only(self, column: str) -> bool:
        """A group column that is no other input: read as is (missing values included),
        then checked by the group encoder."""
        return column in (self.groups or ()) and column not in (
            self.y_true, self.y_pred, self.y_score, self.sample_weight, *(self.proba or ()))

    def needs(self, state: str) -> bool:
        """Whether a metric of this evaluation is computed from ``state`` (a registry fact)."""
        return any(get_spec(m).state == state for m in self.metrics)

    def role_of(self, column: str) -> str:
        """How a column is used, for error messages ("y_score column 's'")."""
        for role in ("y_true", "y_pred", "y_score", "sample_weight"):
            if getattr(self, role) == column:
                return f"{role} column {column!r}"
        if column in (self.proba or ()):
            return f"proba column {column!r}"
        return f"group column {column!r}"

    def describe_column(self, role: str) -> str:
        return f"{role} column {getattr(self, role)!r}"


def _column_name(value: Any, name: str, *, required: bool = False) -> str | None:
    if value is None:
        if required:
            raise TypeError(f"{name} must name a column (a string); got None")
        return None
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must name a column (a non-empty string); got {describe(value)}")
    return value


def make_spec(*, y_true: Any, y_pred: Any, y_score: Any, metrics: Any, task: str,
              exact: bool, n_bins: Any, score_range: Any, relative_accuracy: Any,
              sample_weight: Any, pos_label: Any, confidence_level: Any,
              column_kinds: dict[str, str], proba: Any = None, ci_method: Any = "auto",
              n_resamples: Any = 2000, random_state: Any = None, groups: Any = None,
              model: Any = None) -> Spec:
    """Check every option; ``column_kinds`` maps column names to numpy dtype kinds.

    ``task="auto"``: with ``y_score`` or ``proba`` the task is classification
    (ranking metrics, plus count metrics when ``y_pred`` is also given); with
    ``y_pred`` only it is classification when neither column holds floating-point
    numbers (integers, booleans, strings), and otherwise regression, checked
    against the values once all are read as the in-memory evaluation decides
    (:mod:`dartboard.evaluation._inputs`): whole numbers in both columns (labels
    stored as floats) or non-integer predictions of at most ten distinct whole
    numbers (scores passed as ``y_pred``) are refused then, naming ``task=``.
    ``groups``: one column name or a list of them (their combinations are the
    groups).
    """
    from dartboard.evaluation._evaluation import check_model_name

    y_true = _column_name(y_true, "y_true", required=True)
    y_pred = _column_name(y_pred, "y_pred")
    y_score = _column_name(y_score, "y_score")
    sample_weight = _column_name(sample_weight, "sample_weight")
    proba, classes = _check_proba(proba, y_pred, y_score)
    if y_pred is None and y_score is None and proba is None:
        raise TypeError("give y_pred (predicted labels or values) and/or y_score (scores "
                        "of the positive class), or proba (one probability column per "
                        "class): the name of a column")
    check_option(task, "task", ("auto", "classification", "regression"))
    if proba is not None and task == "regression":
        raise ValueError("task='regression' does not take proba (class probabilities)")
    auto = None
    if task == "auto":
        if y_score is not None or proba is not None:
            task, auto = "classification", "scores"
        else:
            floats = {column_kinds.get(y_true), column_kinds.get(y_pred)} & {"f"}
            task, auto = ("regression", "floats") if floats else ("classification", "labels")
    if task == "regression" and pos_label is not None:
        raise ValueError("pos_label applies to a binary task, not to regression")
    if task == "regression" and y_pred is None:
        raise TypeError("task='regression' needs y_pred (the predicted values)")
    if not isinstance(exact, (bool, np.bool_)):
        raise TypeError(f"exact must be True or False; got {describe(exact)}")
    n_bins = check_int(n_bins, "n_bins", minimum=2, maximum=MAX_BINS)
    if score_range is not None:
        try:
            low, high = (float(v) for v in score_range)
        except (TypeError, ValueError):
            raise TypeError(f"score_range must be a pair (low, high) of numbers; got "
                            f"{describe(score_range)}") from None
        if not (np.isfinite(low) and np.isfinite(high) and low < high):
            raise ValueError(f"score_range must be finite with low < high; got {score_range!r}")
        score_range = (low, high)
    if isinstance(relative_accuracy, bool) or not isinstance(relative_accuracy, numbers.Real) \
            or not 0.0 < float(relative_accuracy) < 0.5:
        raise ValueError(f"relative_accuracy must be a number in (0, 0.5); got "
                         f"{relative_accuracy!r}")
    if confidence_level is not None:
        confidence_level = check_confidence_level(confidence_level)
    check_option(ci_method, "ci_method", INTERVAL_METHODS)
    n_resamples = check_n_resamples(n_resamples)
    check_random_state(random_state)  # raises on a bad seed; the seed itself is kept
    groups = _check_groups(groups)
    model = check_model_name(model)
    default_metrics = metrics is None
    metrics = _check_metrics(metrics, task, y_pred, y_score, exact, proba is not None)
    if proba is not None and pos_label is not None:
        raise ValueError("with proba the positive class is the one of the second column; "
                         "pos_label is not used")
    if proba is not None and score_range is None:
        score_range = (0.0, 1.0)
    return Spec(y_true, y_pred, y_score, sample_weight, task, metrics, bool(exact), n_bins,
                score_range, float(relative_accuracy), pos_label, confidence_level, proba,
                classes, ci_method, n_resamples, random_state, default_metrics, groups, model,
                auto)


def _check_groups(groups: Any) -> tuple[str, ...] | None:
    """Group column names: one name or a non-empty list of distinct names."""
    if groups is None:
        return None
    names = [groups] if isinstance(groups, str) else groups
    if not isinstance(names, (list, tuple)) or not names:
        raise TypeError(f"groups must name a column or a list of columns; got "
                        f"{describe(groups)}")
    for name in names:
        _column_name(name, "each groups entry")
    if len(set(names)) != len(names):
        raise ValueError(f"group column names must be distinct; got {list(names)}")
    return tuple(names)


def with_score_range(spec: Spec, low: float | None, high: float | None) -> Spec:
    """``spec`` with the binned score range ``[low, high]`` found in the data.

    No scores at all (None) give [0, 1]; one distinct score a range of width 1.
    """
    low, high = (0.0, 1.0) if low is None or high is None else (low, high)
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError(f"y_score column {spec.y_score!r} holds infinite values; scores "
                         "must be finite")
    if high <= low:
        high = low + 1.0
    return dataclasses.replace(spec, score_range=(float(low), float(high)))


def spec_options(arguments: dict[str, Any]) -> dict[str, Any]:
    """The options of :func:`make_spec` among a public function's arguments.

    ``evaluate_parquet`` and ``evaluate_dask`` take the same evaluation options;
    each passes its ``locals()`` (taken first thing) so that the options are listed
    once, in :func:`make_spec`'s signature.
    """
    return {name: arguments[name] for name in _SPEC_OPTIONS}


def _check_proba(proba: Any, y_pred: Any, y_score: Any
                 ) -> tuple[tuple[str, ...] | None, tuple[Any, ...] | None]:
    """Probability columns and their classes (a list: classes 0..K-1; a dict: its keys)."""
    if proba is None:
        return None, None
    if y_score is not None:
        raise TypeError("give either proba or y_score: the scores come from the class "
                        "columns (with y_pred too, the labels come from y_pred)")
    if isinstance(proba, dict):
        classes, columns = tuple(proba), tuple(proba.values())
    elif isinstance(proba, (list, tuple)):
        columns = tuple(proba)
        classes = tuple(range(len(columns)))
    else:
        raise TypeError(f"proba must be a list of column names (classes 0..K-1) or a dict "
                        f"class label -> column name; got {describe(proba)}")
    if len(columns) < 2:
        raise ValueError(f"proba needs one column per class, at least 2; got {len(columns)}")
    for c in columns:
        _column_name(c, "each proba entry")
    if len(set(columns)) != len(columns):
        raise ValueError(f"proba names a column twice: {list(columns)}")
    return columns, classes


def _streaming(task: str, y_pred: str | None, y_score: str | None, exact: bool,
               has_proba: bool) -> list[MetricSpec]:
    """Registry metrics that stream from the columns given (in declaration order)."""
    if task == "regression":
        return [s for s in specs(family="regression") if s.state is not None]
    given = (y_pred is not None, y_score is not None, has_proba)
    return [s for s in specs() if s.state in _AVAILABLE and _AVAILABLE[s.state](*given)
            and s.family != "regression" and (exact or s.state != "scores" or s.binned)]


def _check_metrics(metrics: Any, task: str, y_pred: str | None, y_score: str | None,
                   exact: bool, has_proba: bool = False) -> tuple[str, ...]:
    """Metric names to compute; the default is every registry default that streams here
    (the binary or multiclass ones are picked once the classes are known).

    Names (``"f1"``, ``"f1_score"``, ``"roc_auc"``...) and metric functions are
    resolved, and checked to fit the task and the columns, by the in-memory
    evaluation's checks (the same errors); then a metric must have a streaming state.
    """
    from dartboard.evaluation._engine import (
        check_metric_applies,
        metrics_list,
        resolve_metric,
    )

    allowed = _streaming(task, y_pred, y_score, exact, has_proba)
    if metrics is None:
        tasks = ("regression",) if task == "regression" else ("binary", "multiclass")
        return tuple(s.name for s in allowed if set(s.tasks) & set(tasks))
    regression = task == "regression"
    given = {"values"} if regression else \
        {kind for kind, fed in (("labels", y_pred or has_proba), ("scores", y_score or has_proba),
                                ("probabilities", has_proba)) if fed}
    names = [s.name for s in allowed]
    exact_only = {s.name for s in _streaming(task, y_pred, y_score, True, has_proba)} - \
        set(names)
    out = []
    for metric in metrics_list(metrics):
        spec, function = resolve_metric(metric, "regression" if regression else "multiclass")
        if spec is None:
            raise ValueError(f"metrics: {getattr(function, '__name__', 'a callable')} is not "
                             "a dartboard metric; a streamed evaluation keeps states, not "
                             "rows, so it computes the registry's streaming metrics only "
                             f"({', '.join(names)})")
        check_metric_applies(spec, "regression" if regression else "classification", given)
        if spec.name in exact_only:
            raise ValueError(f"metrics: {spec.name!r} has no error bound in binned mode; use "
                             "exact=True or a metric the binned state bounds "
                             f"({', '.join(names)})")
        if spec.name not in names:
            raise ValueError(f"metrics: {spec.name!r} cannot be computed here; with these "
                             f"columns ({task}{'' if exact else ', binned'}) the streaming "
                             f"metrics are {names}")
        out.append(spec.name)
    if len(set(out)) != len(out):
        raise ValueError(f"metrics lists a metric twice: {out}")
    return tuple(out)


_SPEC_OPTIONS = tuple(name for name in inspect.signature(make_spec).parameters
                      if name != "column_kinds")


# ---------------------------------------------------------------------- states

@dataclasses.dataclass
class StateBundle:
    """The states of one batch, partition or merged whole; ``None`` = not needed yet.

    A mergeable state itself (:mod:`dartboard.metrics._state`): a metric is
    computed by the state the registry names for it (``MetricSpec.state``).
    ``labels`` holds the distinct true labels seen by the score states (whose
    0/1 targets forget them), so that the positive class and the labels are
    checked at the end as in memory; ``groups`` one bundle per group key (a tuple
    of the group columns' values) when the evaluation has group columns.
    """

    n_rows: int = 0
    counts: Any = None
    scores: Any = None
    moments: Any = None
    errors: Any = None
    losses: Any = None
    calibration: Any = None
    whole: WholeNumbers | None = None
    labels: frozenset[Any] | None = None
    groups: dict[tuple[Any, ...], StateBundle] | None = None

    def update(self, spec: Spec, columns: dict[str, Any], source: str = "batch"
               ) -> StateBundle:
        """Add the states of one batch of ``columns`` in place; return ``self``."""
        merged = self.merge(bundle_from_columns(spec, columns, source))
        for field in dataclasses.fields(self):
            setattr(self, field.name, getattr(merged, field.name))
        return self

    def merge(self, other: StateBundle) -> StateBundle:
        check_same_kind(self, other)

        def join(a: Any, b: Any) -> Any:
            if a is None:
                return b
            if b is None:
                return a
            return a.merge(b)

        def union(a: Any, b: Any) -> Any:
            return b if a is None else a if b is None else a | b

        groups = None
        if self.groups is not None or other.groups is not None:
            groups = dict(self.groups or {})
            for key, bundle in (other.groups or {}).items():
                groups[key] = groups[key].merge(bundle) if key in groups else bundle
        return StateBundle(self.n_rows + other.n_rows, **{
            f.name: join(getattr(self, f.name), getattr(other, f.name))
            for f in dataclasses.fields(self) if f.name not in ("n_rows", "labels", "groups")},
            labels=union(self.labels, other.labels), groups=groups)

    def _state_of(self, metric: str) -> Any:
        family = get_spec(metric).state
        state = getattr(self, family) if family is not None else None
        if state is None:
            raise ValueError(f"metric {metric!r} has no state in this bundle")
        return state

    def compute(self, metric: str, **kwargs: Any) -> Any:
        return self._state_of(metric).compute(metric, **kwargs)

    def error_bound(self, metric: str) -> float:
        return self._state_of(metric).error_bound(metric)


@dataclasses.dataclass(frozen=True)
class WholeNumbers:
    """What ``task="auto"`` decided from float columns is checked against at the end:
    whether ``y_true`` holds whole numbers only (and which, up to ``FEW_LABELS + 1``
    of them) and whether ``y_pred`` does. Merges by and, union and and."""

    true_whole: bool
    true_values: frozenset[float]
    pred_whole: bool

    @classmethod
    def of(cls, y_true: np.ndarray, y_pred: np.ndarray) -> WholeNumbers:
        from dartboard.evaluation._inputs import FEW_LABELS, could_be_labels

        true_whole = could_be_labels(y_true)
        values = frozenset(np.unique(y_true)[:FEW_LABELS + 1].tolist()) if true_whole \
            else frozenset()
        return cls(true_whole, values, could_be_labels(y_pred))

    def merge(self, other: WholeNumbers) -> WholeNumbers:
        from dartboard.evaluation._inputs import FEW_LABELS

        check_same_kind(self, other)
        values = frozenset(sorted(self.true_values | other.true_values)[:FEW_LABELS + 1])
        return WholeNumbers(self.true_whole and other.true_whole, values,
                            self.pred_whole and other.pred_whole)


class MergeStack:
    """Merge many bundles in a balanced tree while they arrive (a binary counter).

    Folding bundles one by one into an accumulator costs O(size of the
    accumulator) per batch, quadratic overall for states that grow (the exact
    map of distinct scores); merging equal-rank pairs keeps it O(total log n).
    """

    def __init__(self) -> None:
        self._stack: list[tuple[int, StateBundle]] = []

    def push(self, bundle: StateBundle) -> None:
        rank = 0
        while self._stack and self._stack[-1][0] == rank:
            _, top = self._stack.pop()
            bundle = top.merge(bundle)
            rank += 1
        self._stack.append((rank, bundle))

    def result(self) -> StateBundle:
        out = StateBundle()
        for _, bundle in self._stack:
            out = out.merge(bundle)
        return out


def _distinct(y: np.ndarray) -> frozenset[Any]:
    import pandas as pd

    return frozenset(v.item() if isinstance(v, np.generic) else v for v in pd.unique(y))


def _binary_targets(y: np.ndarray, pos_label: Any, name: str,
                    labels: frozenset[Any]) -> np.ndarray:
    """0/1 targets (1 = positive class) of one batch.

    Without ``pos_label`` the rule is scikit-learn's ("strict" in ``_labels``): a
    batch may hold one class only, so "the greater label" cannot be decided here.
    """
    if pos_label is None:
        classes = np.sort(np.array(list(labels)))
        try:
            pos_label = positive_label(classes, infer="strict")
        except ValueError:
            raise ValueError(f"{name} holds labels {classes[:5].tolist()!r}...; ranking "
                             "metrics need labels in {0, 1} or {-1, 1}, or pos_label naming "
                             "the positive class") from None
    return (y == pos_label).astype(np.int8)


def bundle_from_columns(spec: Spec, columns: dict[str, Any], source: str) -> StateBundle:
    """The states of one batch; errors are prefixed with ``source`` (the file or partition)."""
    n = len(columns[spec.y_true])
    if n == 0:
        return StateBundle()
    try:
        return _grouped(spec, columns, n) if spec.groups else _bundle(spec, columns, n)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{source}: {exc}") from None


def _grouped(spec: Spec, columns: dict[str, Any], n: int) -> StateBundle:
    """The states of a batch and of each of its groups (the in-memory group encoder:
    intersections of the group columns, missing values refused)."""
    from dartboard.evaluation._groups import encode_groups

    out = _bundle(spec, columns, n)
    index = encode_groups({g: columns[g] for g in spec.groups}, n)
    out.groups = {}
    for g, rows in enumerate(index.members()):
        part = {name: columns[name][rows] for name in spec.columns
                if not spec.group_only(name)}
        out.groups[index.keys[g]] = _bundle(spec, part, rows.shape[0])
    return out


def _streamable_weights(w: np.ndarray, spec: Spec) -> np.ndarray:
    """Weights whose sums keep their precision in every state. In memory, weights of
    any scale are multiplied by one power of two first (a ratio cannot notice); a
    stream has no one scale to bring them to, and denormal weights (1e-320) lose
    their digits in the states' products while weights near 1e300 overflow them, so
    a batch whose largest weight lies outside ``WEIGHT_RANGE`` is refused."""
    largest = float(np.max(np.abs(w))) if w.size else 0.0
    if largest and not WEIGHT_RANGE[0] <= largest <= WEIGHT_RANGE[1]:
        raise ValueError(f"{spec.describe_column('sample_weight')} holds weights of "
                         f"{largest:g}, beyond what streamed sums keep exact (2**-100 to "
                         "2**100); multiply the column by one constant first (the metrics "
                         "are ratios of weighted sums and do not change)")
    return w


def _bundle(spec: Spec, columns: dict[str, Any], n: int) -> StateBundle:
    from dartboard.metrics import ConfusionCounts

    w = None
    if spec.sample_weight is not None:
        w = _streamable_weights(check_sample_weight(
            np.asarray(columns[spec.sample_weight]), n,
            name=spec.describe_column("sample_weight")), spec)
    out = StateBundle(n_rows=n)
    true_name = spec.describe_column("y_true")
    if spec.task == "regression":
        yt = as_float_array(columns[spec.y_true], name=true_name)
        yp = as_float_array(columns[spec.y_pred], name=spec.describe_column("y_pred"))
        if spec.auto == "floats":
            out.whole = WholeNumbers.of(yt, yp)
        if spec.needs("moments"):
            from dartboard.metrics import RegressionMoments

            out.moments = RegressionMoments().update(yt, yp, sample_weight=w)
        if spec.needs("errors"):
            out.errors = QuantileSketch(spec.relative_accuracy).update(yt - yp, w)
        if spec.needs("losses"):  # means of per-sample losses, from each metric's terms
            sums = {}
            for name in spec.metrics:
                if get_spec(name).state == "losses":
                    terms = _loss_terms(get_spec(name))(yt, yp)[0]
                    sums[name] = float(terms.sum() if w is None else np.dot(terms, w))
            out.losses = MeanState(sums, float(n if w is None else np.sum(w, dtype=np.float64)))
        return out
    yt = label_array(columns[spec.y_true], name=true_name)
    if spec.proba is not None:
        return _proba_bundle(spec, columns, yt, w, out)
    if spec.needs("counts"):
        out.counts = ConfusionCounts.from_predictions(
            yt, columns[spec.y_pred], sample_weight=w,
            names=(true_name, spec.describe_column("y_pred")))
    if spec.needs("scores"):
        score = as_float_array(columns[spec.y_score], name=spec.describe_column("y_score"))
        out.labels = _distinct(yt)
        y01 = _binary_targets(yt, spec.pos_label, true_name, out.labels)
        if spec.exact:
            from dartboard.metrics import ScoreState

            out.scores = ScoreState.from_scores(y01, score, pos_label=1, sample_weight=w)
        else:
            out.scores = BinnedScoreState(spec.n_bins, *spec.score_range).update(y01, score, w)
    return out


def _proba_bundle(spec: Spec, columns: dict[str, Any], yt: np.ndarray, w: np.ndarray | None,
                  out: StateBundle) -> StateBundle:
    """States of a batch of class probabilities (one column per class)."""
    from dartboard.metrics import ConfusionCounts

    proba = np.column_stack([as_float_array(columns[c], name=spec.role_of(c))
                             for c in spec.proba])
    classes = np.asarray(spec.classes)
    codes = _class_codes(yt, classes, spec.describe_column("y_true"))
    k = classes.shape[0]
    if spec.needs("counts"):
        # the labels given, or the most probable class
        predicted = classes[np.argmax(proba, axis=1)] if spec.y_pred is None \
            else columns[spec.y_pred]
        out.counts = ConfusionCounts.from_predictions(
            yt, predicted, sample_weight=w,
            names=(spec.describe_column("y_true"), "y_pred" if spec.y_pred is None
                   else spec.describe_column("y_pred"))).with_classes(classes)
    if spec.needs("scores"):
        per_class = [_score_state(spec, codes == c, proba[:, c], w) for c in range(k)]
        out.scores = per_class[1] if k == 2 else MacroScores(per_class)
    if spec.needs("losses"):
        weight = float(proba.shape[0] if w is None else np.sum(w, dtype=np.float64))
        sums = {}
        for name in spec.metrics:
            metric = get_spec(name)
            if metric.state == "losses":
                # a binary metric with a positive class reads that class's column
                given = proba[:, 1] if k == 2 and metric.pos_label else proba
                terms = _loss_terms(metric)(codes, given, labels=list(range(k)))[0]
                sums[name] = float(terms.sum() if w is None else np.dot(terms, w))
        out.losses = MeanState(sums, weight)
    if spec.needs("calibration"):
        out.calibration = _calibration_state(proba, codes, w)
    return out


def _calibration_state(proba: np.ndarray, codes: np.ndarray, w: np.ndarray | None) -> Any:
    """Binary (the second column, as the scores) or top-label bins of one batch."""
    from dartboard.metrics import CalibrationState

    if proba.shape[1] == 2:
        return CalibrationState().add(proba[:, 1], codes == 1, w)
    pred = np.argmax(proba, axis=1)
    return CalibrationState(multiclass="top_label").add(
        proba[np.arange(proba.shape[0]), pred], pred == codes, w)


def _loss_terms(metric: MetricSpec) -> Any:
    import importlib

    return getattr(importlib.import_module(metric.module), metric.loss_terms[0])


def _class_codes(y: np.ndarray, classes: np.ndarray, name: str) -> np.ndarray:
    """Index of each label in ``classes`` (the order of the proba columns)."""
    order = np.argsort(classes, kind="stable")
    ordered = classes[order]
    try:
        pos = np.clip(np.searchsorted(ordered, y), 0, ordered.shape[0] - 1)
        bad = ordered[pos] != y
    except TypeError:
        raise TypeError(f"{name} labels and the proba classes {classes.tolist()!r} are of "
                        "different types") from None
    if np.any(bad):
        raise ValueError(f"{name} holds labels {np.unique(y[bad])[:5].tolist()!r} that have no "
                         f"proba column (classes {classes.tolist()!r})")
    return order[pos]


def _score_state(spec: Spec, positive: np.ndarray, score: np.ndarray,
                 w: np.ndarray | None) -> Any:
    y01 = positive.astype(np.int8)
    if spec.exact:
        from dartboard.metrics import ScoreState

        return ScoreState.from_scores(y01, score, pos_label=1, sample_weight=w)
    return BinnedScoreState(spec.n_bins, *spec.score_range).update(y01, score, w)


class MacroScores:
    """One score state per class (one-vs-rest); metrics are their unweighted mean.

    This is scikit-learn's ``multi_class="ovr"``, ``average="macro"``; the error
    bound of a mean is at most the mean of the per-class bounds. The empty state
    is one empty state per class.
    """

    def __init__(self, states: list[Any]) -> None:
        self.states = states

    def update(self, y_true: Any, proba: Any, sample_weight: Any = None) -> MacroScores:
        """Add a batch of class codes (0..K-1) and their (n, K) probabilities; return ``self``."""
        codes, proba = np.asarray(y_true), np.asarray(proba, dtype=np.float64)
        for c, state in enumerate(self.states):
            state.update((codes == c).astype(np.int8), proba[:, c], sample_weight)
        return self

    def merge(self, other: MacroScores) -> MacroScores:
        check_same_kind(self, other)
        if len(other.states) != len(self.states):
            raise ValueError(f"cannot merge score states of {len(self.states)} and "
                             f"{len(other.states)} classes")
        return MacroScores([a.merge(b) for a, b in zip(self.states, other.states)])

    def compute(self, metric: str) -> float:
        return float(np.mean([s.compute(metric) for s in self.states]))

    def error_bound(self, metric: str) -> float:
        return float(np.mean([s.error_bound(metric) for s in self.states]))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MacroScores) and self.states == other.states

    __hash__ = None  # type: ignore[assignment]


class MeanState:
    """Weighted sums of per-sample losses and the total weight: means that merge exactly."""

    def __init__(self, sums: dict[str, float] | None = None, weight: float = 0.0) -> None:
        self.sums = {k: float(v) for k, v in (sums or {}).items()}
        self.weight = float(weight)

    def update(self, sums: dict[str, float], weight: float) -> MeanState:
        """Add one batch's summed losses and its total weight in place; return ``self``."""
        merged = self.merge(MeanState(sums, weight))
        self.sums, self.weight = merged.sums, merged.weight
        return self

    def merge(self, other: MeanState) -> MeanState:
        check_same_kind(self, other)
        names = dict.fromkeys([*self.sums, *other.sums])
        return MeanState({k: self.sums.get(k, 0.0) + other.sums.get(k, 0.0) for k in names},
                         self.weight + other.weight)

    def compute(self, metric: str) -> float:
        if metric not in self.sums:
            raise ValueError(f"metric must be one of {sorted(self.sums)}; got {metric!r}")
        if self.weight == 0:
            raise ValueError("MeanState is empty; update it with data first")
        return self.sums[metric] / self.weight

    def error_bound(self, metric: str) -> float:
        """0.0: sums and weights are exact (up to rounding)."""
        return 0.0

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, MeanState) and self.sums == other.sums
                and self.weight == other.weight)

    __hash__ = None  # type: ignore[assignment]
