"""What streaming and Dask evaluation share: the options, the state bundle, the metrics.

A batch (a Parquet record batch or a Dask partition) becomes a :class:`StateBundle`
(:func:`bundle_from_columns`); bundles merge; :func:`finalize` turns the merged
bundle into a :class:`~dartboard.scale.ScaleResult`. Streaming and Dask differ only
in how they produce and reduce bundles, so they give the same numbers.
"""

from __future__ import annotations

import dataclasses
import inspect
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from dartboard._labels import positive_index, positive_label
from dartboard._rng import check_random_state
from dartboard._validation import (
    MAX_BINS,
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
from dartboard.scale._result import ScaleResult
from dartboard.scale._states import BinnedScoreState, QuantileSketch
from dartboard.uncertainty._analytic import PROPORTION_METHODS
from dartboard.uncertainty._interval import METHODS as INTERVAL_METHODS

__all__ = ["Spec", "StateBundle", "bundle_from_columns", "finalize", "make_spec",
           "spec_options", "with_score_range",
           "MergeStack"]

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
    n_resamples: int = 10_000
    random_state: Any = None
    default_metrics: bool = False

    @property
    def columns(self) -> list[str]:
        """Columns to read, each once."""
        cols = [self.y_true, self.y_pred, self.y_score, self.sample_weight, *(self.proba or ())]
        return list(dict.fromkeys(c for c in cols if c is not None))

    def needs(self, state: str) -> bool:
        """Whether a metric of this evaluation is computed from ``state`` (a registry fact)."""
        return any(get_spec(m).state == state for m in self.metrics)

    def role_of(self, column: str) -> str:
        """How a column is used, for error messages ("y_score column 's'")."""
        for role in ("y_true", "y_pred", "y_score", "sample_weight"):
            if getattr(self, role) == column:
                return f"{role} column {column!r}"
        return f"proba column {column!r}"

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
              n_resamples: Any = 10_000, random_state: Any = None) -> Spec:
    """Check every option; ``column_kinds`` maps column names to numpy dtype kinds.

    ``task="auto"``: with ``y_score`` the task is classification (ranking
    metrics, plus count metrics when ``y_pred`` is also given); with ``y_pred``
    only it is regression when either column holds floating-point numbers and
    classification otherwise (integers, booleans, strings). Labels stored as
    floats (0.0, 1.0) therefore need ``task="classification"``.
    """
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
    if task == "auto":
        if y_score is not None or proba is not None:
            task = "classification"
        else:
            floats = {column_kinds.get(y_true), column_kinds.get(y_pred)} & {"f"}
            task = "regression" if floats else "classification"
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
    default_metrics = metrics is None
    metrics = _check_metrics(metrics, task, y_pred, y_score, exact, proba is not None)
    if proba is not None and pos_label is not None:
        raise ValueError("with proba the positive class is the one of the second column; "
                         "pos_label is not used")
    if proba is not None and score_range is None:
        score_range = (0.0, 1.0)
    return Spec(y_true, y_pred, y_score, sample_weight, task, metrics, bool(exact), n_bins,
                score_range, float(relative_accuracy), pos_label, confidence_level, proba,
                classes, ci_method, n_resamples, random_state, default_metrics)


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
    if y_pred is not None or y_score is not None:
        raise TypeError("give either proba or y_pred/y_score: the predicted labels come from "
                        "the most probable class and the scores from the class columns")
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
    (the binary or multiclass ones are picked once the classes are known)."""
    allowed = _streaming(task, y_pred, y_score, exact, has_proba)
    if metrics is None:
        tasks = ("regression",) if task == "regression" else ("binary", "multiclass")
        return tuple(s.name for s in allowed if set(s.tasks) & set(tasks))
    if isinstance(metrics, str):
        metrics = [metrics]
    if not isinstance(metrics, Sequence) or not metrics:
        raise TypeError(f"metrics must be a non-empty list of metric names; got "
                        f"{describe(metrics)}")
    names = [s.name for s in allowed]
    exact_only = {s.name for s in _streaming(task, y_pred, y_score, True, has_proba)} - \
        set(names)
    for m in metrics:
        if m in exact_only:
            raise ValueError(f"metrics: {m!r} has no error bound in binned mode; use "
                             "exact=True or a metric the binned state bounds "
                             f"({', '.join(names)})")
        if not isinstance(m, str) or m not in names:
            raise ValueError(f"metrics: {m!r} cannot be computed here; with these columns "
                             f"({task}{'' if exact else ', binned'}) the streaming metrics "
                             f"are {names}")
    return tuple(dict.fromkeys(metrics))


_SPEC_OPTIONS = tuple(name for name in inspect.signature(make_spec).parameters
                      if name != "column_kinds")


# ---------------------------------------------------------------------- states

@dataclasses.dataclass
class StateBundle:
    """The states of one batch, partition or merged whole; ``None`` = not needed yet.

    A mergeable state itself (:mod:`dartboard.metrics._state`): a metric is
    computed by the state the registry names for it (``MetricSpec.state``).
    """

    n_rows: int = 0
    counts: Any = None
    scores: Any = None
    moments: Any = None
    errors: Any = None
    losses: Any = None
    calibration: Any = None

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

        return StateBundle(self.n_rows + other.n_rows, **{
            f.name: join(getattr(self, f.name), getattr(other, f.name))
            for f in dataclasses.fields(self) if f.name != "n_rows"})

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


def _binary_targets(y: np.ndarray, pos_label: Any, name: str) -> np.ndarray:
    """0/1 targets (1 = positive class) of one batch.

    Without ``pos_label`` the rule is scikit-learn's ("strict" in ``_labels``): a
    batch may hold one class only, so "the greater label" cannot be decided here.
    """
    if pos_label is None:
        import pandas as pd

        classes = np.sort(pd.unique(y))
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
        return _bundle(spec, columns, n)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{source}: {exc}") from None


def _bundle(spec: Spec, columns: dict[str, Any], n: int) -> StateBundle:
    from dartboard.metrics import ConfusionCounts

    w = None
    if spec.sample_weight is not None:
        w = check_sample_weight(np.asarray(columns[spec.sample_weight]), n,
                                name=spec.describe_column("sample_weight"))
    out = StateBundle(n_rows=n)
    true_name = spec.describe_column("y_true")
    if spec.task == "regression":
        yt = as_float_array(columns[spec.y_true], name=true_name)
        yp = as_float_array(columns[spec.y_pred], name=spec.describe_column("y_pred"))
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
        y01 = _binary_targets(yt, spec.pos_label, true_name)
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
        out.counts = ConfusionCounts.from_predictions(
            yt, classes[np.argmax(proba, axis=1)], sample_weight=w).with_classes(classes)
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


# ---------------------------------------------------------------------- results

def _count_kwargs(spec: Spec, counts: Any) -> dict[str, Any]:
    """binary with the positive label when there are two classes, else macro.

    The positive label is ``pos_label`` when given, else the greater of the two
    labels (1 for {0, 1} and {-1, 1}; the evaluation's rule, see ``_labels``); with
    ``proba`` the class of the second column. A ``pos_label`` that is not a label of
    two-class data is an error, as in the in-memory metrics.
    """
    classes = counts.classes
    if spec.proba is not None and len(spec.classes) == 2:
        return {"average": "binary", "pos_label": spec.classes[1]}
    if classes.shape[0] > 2:
        return {"average": "macro"}
    if spec.pos_label is not None and classes.shape[0] == 2 \
            and positive_index(classes, spec.pos_label) < 0:
        raise ValueError(f"pos_label={spec.pos_label!r} is not a valid label. It should be "
                         f"one of {classes.tolist()!r}")
    return {"average": "binary",
            "pos_label": positive_label(classes, spec.pos_label, infer="greater")}


def _task_found(spec: Spec, bundle: StateBundle) -> str:
    """``regression``, or ``binary``/``multiclass`` from the classes in the data."""
    if spec.task == "regression":
        return "regression"
    n_classes = bundle.counts.n_classes if bundle.counts is not None else \
        len(spec.classes) if spec.classes is not None else 2
    return "binary" if n_classes <= 2 else "multiclass"


def _reported(spec: Spec, task: str) -> list[MetricSpec]:
    """The metrics to report: all asked for, or the registry defaults of the task found."""
    metrics = [get_spec(name) for name in spec.metrics]
    if not spec.default_metrics:
        return metrics
    return [m for m in metrics if task in m.tasks]


def finalize(spec: Spec, bundle: StateBundle, n_files: int) -> ScaleResult:
    """Metric values, error bounds and intervals of the merged states."""
    if bundle.n_rows == 0:
        raise ValueError("no rows to evaluate: the input holds no data")
    values: dict[str, float] = {}
    bounds: dict[str, float] = {}
    intervals: dict[str, Any] = {}
    kwargs = _count_kwargs(spec, bundle.counts) if bundle.counts is not None else {}
    task = _task_found(spec, bundle)
    reported = _reported(spec, task)
    for metric in reported:
        name = metric.name
        kw = kwargs if metric.state == "counts" and metric.average else {}
        values[name] = float(bundle.compute(name, **kw))
        # approximate states: the quantile sketch, and scores binned in constant memory
        if metric.state == "errors" or (metric.state == "scores" and not spec.exact):
            bounds[name] = bundle.error_bound(name)
    if spec.confidence_level is not None:
        intervals = _intervals(spec, bundle, reported, values, kwargs)
    states = {f.name: getattr(bundle, f.name) for f in dataclasses.fields(bundle)
              if f.name != "n_rows" and getattr(bundle, f.name) is not None}
    return ScaleResult(metrics=values, n_rows=int(bundle.n_rows), n_files=n_files,
                       mode="exact" if spec.exact else "binned", task=task,
                       error_bounds=bounds, intervals=intervals,
                       confidence_level=spec.confidence_level, states=states)


def _intervals(spec: Spec, bundle: StateBundle, reported: list[MetricSpec],
               values: dict[str, float], kwargs: dict[str, Any]) -> dict[str, Any]:
    """Intervals that need only the merged states, from the public state functions.

    Count metrics: :func:`dartboard.uncertainty.interval_from_counts` on the merged
    counts with ``spec.ci_method`` (``"auto"``: Wilson for the proportion metrics,
    accuracy and the binary ones, BCa of the multinomial bootstrap otherwise; a
    proportion method applies to the proportion metrics only, ``"delong"`` to
    none). ROC AUC (exact mode, binary): from the score map by
    :func:`dartboard.uncertainty.interval_from_score_state` (DeLong for
    ``"auto"`` and ``"delong"``, else the multinomial bootstrap of its cells).
    A state built with non-integer ``sample_weight`` gives no interval (with a
    warning): its cells are not counts of rows.
    """
    import warnings

    from dartboard.uncertainty import (
        IntervalWarning,
        interval_from_counts,
        interval_from_score_state,
    )

    level, method = spec.confidence_level, spec.ci_method
    out: dict[str, Any] = {}
    wanted = []
    if bundle.counts is not None and method != "delong":
        wanted = [m for m in reported if m.state == "counts"
                  and (method not in PROPORTION_METHODS or m.proportion is not None
                       and (not m.average or kwargs.get("average") == "binary"))]
    # the score map's interval is DeLong's (or its bootstrap): the metric that defaults to it
    delong = [m.name for m in reported if m.state == "scores" and m.default_interval == "delong"]
    auc = bool(delong) and spec.exact and method not in PROPORTION_METHODS \
        and np.isfinite(values[delong[0]]) and not isinstance(bundle.scores, MacroScores)
    states = ([bundle.counts] if wanted else []) + ([bundle.scores] if auc else [])
    if any(_weights_not_counts(s) for s in states):
        warnings.warn("intervals need counts; sample_weight has non-integer values, so no "
                      "interval is given", IntervalWarning, stacklevel=3)
        return out
    for metric in wanted:
        name = metric.name
        kw = kwargs if metric.average else {}
        try:
            out[name] = interval_from_counts(
                name, bundle.counts, method=method, confidence_level=level,
                n_resamples=spec.n_resamples, random_state=spec.random_state, **kw)
        except ValueError as exc:
            warnings.warn(f"no interval for {name}: {exc}", IntervalWarning, stacklevel=3)
    calibration = [m.name for m in reported if m.state == "calibration"]
    if calibration and method not in (*PROPORTION_METHODS, "delong"):
        out.update(_calibration_interval(bundle.calibration, calibration[0], spec))
    if auc:
        out[delong[0]] = interval_from_score_state(
            bundle.scores, metric=delong[0], method=method, confidence_level=level, n_resamples=spec.n_resamples,
            random_state=spec.random_state)
    return out


def _calibration_interval(state: Any, name: str, spec: Spec) -> dict[str, Any]:
    """The bin-level bootstrap interval of the calibration error, when the bins hold
    counts of rows (no interval, with a warning, for fractional weights)."""
    import warnings

    from dartboard.uncertainty import IntervalWarning, interval_from_calibration_state

    if not np.all(state.weight == np.round(state.weight)):
        warnings.warn(f"no interval for {name}: sample_weight has non-integer values",
                      IntervalWarning, stacklevel=4)
        return {}
    return {name: interval_from_calibration_state(
        state, method=spec.ci_method, confidence_level=spec.confidence_level,
        n_resamples=spec.n_resamples, random_state=spec.random_state)}


def _weights_not_counts(state: Any) -> bool:
    arrays = [state.matrix] if hasattr(state, "matrix") else [state.pos, state.neg]
    return any(a.dtype.kind == "f" and not np.all(a == np.round(a)) for a in arrays)
