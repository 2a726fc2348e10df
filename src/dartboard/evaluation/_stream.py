"""What streaming and Dask evaluation share: the options, the columns of a batch, the plan.

A batch (a Parquet record batch or a Dask partition) becomes the
:class:`~dartboard.families.Batch` the in-memory evaluation makes of its rows --
the same labels, scores, probabilities, values and weights -- and from it a bundle
of family states (:func:`dartboard.evaluation._bundle.build_bundle`), one per group
key with group columns. Bundles merge, and
:func:`dartboard.evaluation._stream_finalize.finalize` turns the merged bundle into the
:class:`~dartboard.Evaluation` by the in-memory evaluation's own
finalize: every metric and interval that :func:`dartboard.evaluate` gives, with the
same numbers for the same seed.

What the whole data decide (the positive class of scores, whether scores are
probabilities, the labels derived from them) is found before streaming, from the
files' statistics or one pass over a column (:class:`Setup`).
"""

from __future__ import annotations

import dataclasses
import inspect
import numbers
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from dartboard._validation import (
    MAX_BINS,
    WEIGHT_RANGE,
    as_float_array,
    check_int,
    check_sample_weight,
    describe,
    label_array,
)
from dartboard.evaluation._bundle import Bundle, Planned, build_bundle, plan_metrics
from dartboard.evaluation._engine import choose_metrics, needs_labels
from dartboard.evaluation._inputs import check_score_labels, usual_threshold
from dartboard.evaluation._options import EvaluationOptions, options_from
from dartboard.exceptions import InputError, InputTypeError
from dartboard.families import Batch

__all__ = ["Setup", "Spec", "bundle_from_columns", "make_spec", "named_columns",
           "renamed_clusters", "setup",
           "spec_options"]


@dataclasses.dataclass(frozen=True)
class Spec:
    """Checked options of one streamed evaluation (picklable: it travels to workers).

    The evaluation options are :func:`dartboard.evaluate`'s, with column names for
    the arrays; ``y_proba`` lists the probability columns in sorted class order.
    """

    y_true: str
    y_pred: str | None
    y_score: str | None
    sample_weight: str | None
    task: str
    exact: bool
    n_bins: int
    score_range: tuple[float, float] | None
    relative_accuracy: float
    #: the evaluation's options (checked), as every source reads them
    options: EvaluationOptions
    y_proba: tuple[str, ...] | None = None
    classes: tuple[Any, ...] | None = None
    groups: tuple[str, ...] | None = None
    #: ``task="auto"``: what the task was decided from, checked against the values at
    #: the end (``"labels"``, ``"floats"``, ``"scores"``); None when it was given
    auto: str | None = None
    #: the column of cluster ids (rows of one cluster are not independent)
    cluster: str | None = None

    # the options, as the stream's code reads them
    metrics = property(lambda self: self.options.metrics)
    pos_label = property(lambda self: self.options.pos_label)
    confidence_level = property(lambda self: self.options.confidence_level)
    ci = property(lambda self: self.options.ci)
    n_resamples = property(lambda self: self.options.n_resamples)
    random_state = property(lambda self: self.options.random_state)
    model = property(lambda self: self.options.model)
    #: labels are ``y_score >= threshold`` (None: the usual cut, 0.5 or 0)
    threshold = property(lambda self: self.options.threshold)
    #: the operating point to choose (``select_threshold``'s criterion) and its bound
    threshold_criterion = property(lambda self: self.options.threshold_criterion)
    threshold_target = property(lambda self: self.options.threshold_target)
    #: pointwise ROC and precision-recall bands
    curve_bands = property(lambda self: self.options.curve_bands)

    @property
    def operating(self) -> bool:
        """Whether an operating point or curve bands are asked for: they read the
        binary scores' rows (:func:`dartboard._frames.rows_in_order`)."""
        return self.threshold_criterion is not None or self.curve_bands

    @property
    def row_roles(self) -> dict[str, str]:
        """The columns the operating point and the bands read, by role."""
        roles = {"y_true": self.y_true, "y_score": self.y_score,
                 "sample_weight": self.sample_weight, "clusters": self.cluster}
        return {role: name for role, name in roles.items() if name is not None}

    @property
    def columns(self) -> list[str]:
        """Columns to read, each once."""
        cols = [self.y_true, self.y_pred, self.y_score, self.sample_weight,
                *(self.y_proba or ()), *(self.groups or ()), self.cluster]
        return list(dict.fromkeys(c for c in cols if c is not None))

    def group_only(self, column: str) -> bool:
        """A group or cluster column that is no other input: read as is (missing values
        included), then checked by the group encoder or :func:`bundle_from_columns`."""
        return column in (*(self.groups or ()), self.cluster) and column not in (
            self.y_true, self.y_pred, self.y_score, self.sample_weight, *(self.y_proba or ()))

    def role_of(self, column: str) -> str:
        """How a column is used, for error messages ("y_score column 's'")."""
        for role in ("y_true", "y_pred", "y_score", "sample_weight"):
            if getattr(self, role) == column:
                return f"{role} column {column!r}"
        if column in (self.y_proba or ()):
            return f"y_proba column {column!r}"
        if column == self.cluster and column not in (self.groups or ()):
            return f"cluster column {column!r}"
        return f"group column {column!r}"

    def describe_column(self, role: str) -> str:
        return f"{role} column {getattr(self, role)!r}"


def _column_name(value: Any, name: str, *, required: bool = False) -> str | None:
    if value is None:
        if required:
            raise InputTypeError(f"{name} must name a column (a string); got None")
        return None
    if not isinstance(value, str) or not value:
        raise InputTypeError(f"{name} must name a column (a non-empty string); got {describe(value)}")
    return value


def make_spec(*, y_true: Any, y_pred: Any, y_score: Any, y_proba: Any, exact: bool,
              n_bins: Any, score_range: Any, relative_accuracy: Any, sample_weight: Any,
              groups: Any, clusters: Any = None, options: EvaluationOptions,
              column_kinds: dict[str, str]) -> Spec:
    """Check the columns and the streaming options against the (checked) evaluation
    ``options``; ``column_kinds`` maps column names to numpy dtype kinds.

    ``task="auto"``: with ``y_score`` or ``y_proba`` a classification; with
    ``y_pred`` only, regression when either column holds floating-point numbers and
    classification otherwise (integers, booleans, strings), checked against the values
    once all are read as the in-memory evaluation decides
    (:mod:`dartboard.evaluation._inputs`): whole numbers in both columns (labels stored
    as floats) or non-integer predictions of at most ten distinct whole numbers (scores
    passed as ``y_pred``) are refused then, naming ``task=``.
    """
    y_true = _column_name(y_true, "y_true", required=True)
    y_pred = _column_name(y_pred, "y_pred")
    y_score = _column_name(y_score, "y_score")
    sample_weight = _column_name(sample_weight, "sample_weight")
    proba, classes = _check_proba(y_proba, y_pred, y_score)
    if options.threshold is not None:  # the in-memory rule: with y_score only
        from dartboard.evaluation._inputs import check_given

        check_given(y_pred, y_score, proba, options.threshold)
    if (options.threshold_criterion is not None or options.curve_bands) and y_score is None:
        raise InputError("threshold_criterion and curve_bands need binary scores: name "
                         "their column as y_score")
    if y_pred is None and y_score is None and proba is None:
        raise InputTypeError("give y_pred (predicted labels or values) and/or y_score (scores "
                             "of the positive class), or y_proba (one probability column per "
                             "class): the name of a column")
    task, auto = _stream_task(options.task, proba is not None or y_score is not None,
                              options.pos_label,
                              {column_kinds.get(y_true), column_kinds.get(y_pred)})
    if not isinstance(exact, (bool, np.bool_)):
        raise InputTypeError(f"exact must be True or False; got {describe(exact)}")
    n_bins = check_int(n_bins, "n_bins", minimum=2, maximum=MAX_BINS)
    score_range = _check_score_range(score_range)
    if isinstance(relative_accuracy, bool) or not isinstance(relative_accuracy, numbers.Real) \
            or not 0.0 < float(relative_accuracy) < 0.5:
        raise InputError(f"relative_accuracy must be a number in (0, 0.5); got "
                         f"{relative_accuracy!r}")
    cluster = _stream_cluster(clusters, options.ci, bool(exact))
    if proba is not None and options.pos_label is not None:
        raise InputError("with y_proba the positive class is the greater of the two classes "
                         "(the second column); pos_label is not used")
    return Spec(y_true, y_pred, y_score, sample_weight, task, bool(exact), n_bins,
                score_range, float(relative_accuracy), options, proba, classes,
                _check_groups(groups), auto, cluster)


def _stream_task(task: Any, scores: bool, pos_label: Any, kinds: set[Any]
                 ) -> tuple[str, str | None]:
    """The task checked, and with ``task="auto"`` what the columns' types say
    (``"scores"``, ``"floats"``: regression, ``"labels"``), checked against the values
    once read; ``scores``: ``y_score`` or ``y_proba`` is given; ``kinds``: the numpy
    dtype kinds of ``y_true`` and ``y_pred``."""
    if task == "regression" and scores:
        raise InputError("task='regression' needs y_pred (predicted values), not y_score or "
                         "y_proba")
    auto = None
    if task == "auto":
        # decided from the columns' types; checked against the values at the end
        auto = "scores" if scores else "floats" if "f" in kinds else "labels"
        task = "regression" if auto == "floats" else "auto"
    if task == "regression" and pos_label is not None:
        raise InputError("pos_label applies to a binary task, not to regression")
    return task, auto


def _stream_cluster(clusters: Any, ci: Any, exact: bool) -> str | None:
    """The clusters' column name, checked with ``ci`` and ``exact`` (the clustered
    intervals come from exact states)."""
    from dartboard.evaluation._clusters import check_cluster_ci

    cluster = _column_name(clusters, "clusters")
    check_cluster_ci(ci, cluster is not None, "clusters")
    if cluster is not None and not exact:
        raise InputError("clusters: the clustered intervals come from exact states; "
                         "exact=False bins the scores (a bound, no interval): leave "
                         "exact=True")
    return cluster


def _check_score_range(score_range: Any) -> tuple[float, float] | None:
    if score_range is None:
        return None
    try:
        low, high = (float(v) for v in score_range)
    except (TypeError, ValueError):
        raise InputTypeError(f"score_range must be a pair (low, high) of numbers; got "
                             f"{describe(score_range)}") from None
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise InputError(f"score_range must be finite with low < high; got {score_range!r}")
    return low, high


def _check_groups(groups: Any) -> tuple[str, ...] | None:
    """Group column names: one name or a non-empty list of distinct names."""
    if groups is None:
        return None
    names = [groups] if isinstance(groups, str) else groups
    if not isinstance(names, (list, tuple)) or not names:
        raise InputTypeError(f"groups must name a column or a list of columns; got "
                             f"{describe(groups)}")
    for name in names:
        _column_name(name, "each groups entry")
    if len(set(names)) != len(names):
        raise InputError(f"group column names must be distinct; got {list(names)}")
    return tuple(names)


def _check_proba(proba: Any, y_pred: Any, y_score: Any
                 ) -> tuple[tuple[str, ...] | None, tuple[Any, ...] | None]:
    """Probability columns in sorted class order, and the classes (a list of columns:
    classes 0..K-1; a dict: class label -> column)."""
    if proba is None:
        return None, None
    if y_score is not None:
        raise InputTypeError("give either y_proba or y_score: the scores come from the class "
                             "columns (y_pred may come with either, for the count metrics)")
    if isinstance(proba, dict):
        pairs = list(proba.items())
    elif isinstance(proba, (list, tuple)):
        pairs = list(enumerate(proba))
    else:
        raise InputTypeError(f"y_proba must be a list of column names (classes 0..K-1) or a dict "
                             f"class label -> column name; got {describe(proba)}")
    if len(pairs) < 2:
        raise InputError(f"y_proba needs one column per class, at least 2; got {len(pairs)}")
    for _, c in pairs:
        _column_name(c, "each y_proba entry")
    columns = [c for _, c in pairs]
    if len(set(columns)) != len(columns):
        raise InputError(f"y_proba names a column twice: {columns}")
    try:
        pairs.sort(key=lambda pair: pair[0])
    except TypeError:
        raise InputTypeError("the y_proba classes cannot be ordered (mixed types); use one type "
                             "of label") from None
    return tuple(c for _, c in pairs), tuple(k for k, _ in pairs)


_SPEC_OPTIONS = tuple(name for name in inspect.signature(make_spec).parameters
                      if name not in ("column_kinds", "options"))


def named_columns(*singles: Any, groups: Any = None, y_proba: Any = None) -> list[str]:
    """The column names a streamed evaluation's options name, before they are checked
    (a value that is no string is left to :func:`make_spec`, which names it)."""
    wanted = [c for c in singles if isinstance(c, str)]
    wanted += [groups] if isinstance(groups, str) else \
        [c for c in groups if isinstance(c, str)] if isinstance(groups, (list, tuple)) else []
    if isinstance(y_proba, Mapping):
        wanted += [c for c in y_proba.values() if isinstance(c, str)]
    elif isinstance(y_proba, (list, tuple)):
        wanted += [c for c in y_proba if isinstance(c, str)]
    return wanted


def renamed_clusters(clusters: Any, cluster: Any) -> Any:
    """``clusters``, also when given by its former streamed name ``cluster`` (with a
    FutureWarning): every source spells it as :func:`dartboard.evaluate` does."""
    if cluster is None:
        return clusters
    if clusters is not None:
        raise InputTypeError("clusters is given twice: as clusters= and as its former "
                             "name cluster=; pass clusters= alone")
    warnings.warn("cluster= is now spelled clusters=, as in dartboard.evaluate; cluster= "
                  "will be removed", FutureWarning, stacklevel=3)
    return cluster


def spec_options(arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments of :func:`make_spec` among a public function's arguments, the
    evaluation options as one checked :class:`EvaluationOptions` (``options=`` when
    given, else built from the option keywords).

    The streamed evaluations take the same options as :func:`dartboard.evaluate`;
    each passes its ``locals()`` (taken first thing) so that they are listed once.
    """
    out = {name: arguments[name] for name in _SPEC_OPTIONS}
    out["options"] = options_from(arguments, arguments.get("options"))
    return out


# ---------------------------------------------------------------------- setup

@dataclasses.dataclass(frozen=True)
class Setup:
    """What the whole data decide, found before streaming, and the metrics planned.

    Attributes
    ----------
    spec : Spec
    task : str
        ``regression``, ``binary``, ``multiclass``, or ``auto`` when predicted labels
        only are given (binary or multiclass is decided by the classes found).
    classes : ndarray or None
        The classes of a probability matrix, or the two labels of ``y_true`` with
        scores.
    positive : object
        The positive class of scores or of two probability columns.
    negative : object
        The other class: scores below ``threshold`` predict it.
    probabilities : bool
        Whether the scores are probabilities (all in [0, 1]): then they feed the
        probability metrics, and labels are derived at 0.5 (else at 0).
    score_bins : (int, float, float) or None
        Binned scores (``exact=False``): the bins.
    planned : tuple of Planned
        The metrics whose states each batch builds.
    """

    spec: Spec
    task: str
    classes: np.ndarray | None
    positive: Any
    negative: Any
    probabilities: bool
    score_bins: tuple[int, float, float] | None
    planned: tuple[Planned, ...]

    @property
    def threshold(self) -> float:
        if self.spec.threshold is not None:
            return self.spec.threshold
        return 0.5 if self.probabilities else 0.0

    def given(self) -> set[str]:
        """The registry input kinds the columns feed."""
        return _given(self.spec, self.task, self.probabilities, self.negative)


def setup(spec: Spec, *, scores: tuple[float, float] | None = None,
          labels: tuple[Any, Any] | None = None) -> Setup:
    """The plan of a streamed evaluation from the range of the scores and of ``y_true``
    (found by the caller from the files' statistics or a pass over the columns)."""

    task, classes, positive, negative = spec.task, None, None, None
    probabilities = False
    if spec.y_proba is not None:
        classes = np.asarray(spec.classes)
        task = "binary" if classes.shape[0] == 2 else "multiclass"
        positive = classes[1] if classes.shape[0] == 2 else None
        probabilities = True
    elif spec.y_score is not None:
        task, probabilities, classes, positive, negative = _score_task(spec, scores, labels)
    bins = None
    if not spec.exact and (spec.y_score is not None or spec.y_proba is not None):
        low, high = spec.score_range or scores or (0.0, 1.0)
        bins = (spec.n_bins, float(low), float(high) if high > low else float(low) + 1.0)
    provisional = "binary" if task == "auto" else task
    planned = _planned(spec, provisional, _given(spec, provisional, probabilities, negative),
                       classes, positive, binned=bins is not None)
    return Setup(spec, task, classes, positive, negative, probabilities, bins, planned)


def _score_task(spec: Spec, scores: tuple[float, float] | None,
                labels: tuple[Any, Any] | None) -> tuple[str, bool, Any, Any, Any]:
    """(task, probabilities, classes, positive, negative) of a binary task with
    ``y_score``: probabilities when the scores lie in [0, 1]; without ``y_pred`` or a
    threshold, scores with no usual cut are refused unless only ranking metrics are
    asked (and then no labels are derived: ``negative`` None)."""
    if spec.task == "multiclass":
        raise InputError("y_score holds the scores of one class (a binary task); a "
                         "multiclass task needs y_proba (one column per class) or y_pred")
    low, high = scores if scores is not None else (0.0, 1.0)
    probabilities = low >= 0.0 and high <= 1.0
    classes, positive, negative = _score_classes(spec, labels)
    if spec.y_pred is None and spec.threshold is None and not probabilities \
            and not low < 0.0 < high:
        # no usual cut: the in-memory refusal, unless only ranking metrics are asked
        if spec.metrics is None or needs_labels(spec.metrics):
            raise InputError(usual_threshold(low, high)[1])
        negative = None  # no labels are derived
    return "binary", probabilities, classes, positive, negative


def _score_classes(spec: Spec, labels: tuple[Any, Any] | None
                   ) -> tuple[np.ndarray | None, Any, Any]:
    """(the two classes, the positive one, the negative one) of ``y_true`` with scores,
    from the smallest and largest label; with one class only, the positive class is
    ``pos_label`` or 1 of {0, 1} and {-1, 1} labels (scikit-learn's rule)."""
    from dartboard._labels import positive_label
    from dartboard.evaluation._inputs import check_positive

    found = np.unique(np.asarray(labels if labels is not None else ()))
    if found.shape[0] == 2 and (spec.pos_label is None or spec.pos_label in found.tolist()):
        positive = check_positive(found, spec.pos_label)
        return found, positive, found[found != positive][0]
    # a pos_label among neither the smallest nor the largest label: the labels seen
    # decide at the end (more than two classes, or pos_label not a label: the errors of
    # the in-memory evaluation)
    if spec.pos_label is not None:
        return None, spec.pos_label, None
    try:
        return None, positive_label(found, infer="strict"), None
    except ValueError:
        raise InputError(f"{spec.describe_column('y_true')} holds one label "
                         f"{found.tolist()!r}; ranking metrics need labels in {{0, 1}} or "
                         "{-1, 1}, or pos_label naming the positive class") from None


def _given(spec: Spec, task: str, probabilities: bool, negative: Any) -> set[str]:
    """The registry input kinds the columns feed (labels from scores need both classes)."""
    if task == "regression":
        return {"values"}
    out = set() if spec.y_pred is None and spec.y_proba is None and negative is None \
        else {"labels"}
    if spec.y_score is not None or spec.y_proba is not None:
        out.add("scores")
    if spec.y_proba is not None or (spec.y_score is not None and probabilities):
        out.add("probabilities")
    return out


def _planned(spec: Spec, task: str, given: set[str], classes: np.ndarray | None,
             positive: Any, *, binned: bool = False) -> tuple[Planned, ...]:
    """The metrics of the evaluation with their families; a metric no family computes
    cannot stream, and binned scores give only the metrics they bound."""
    chosen = choose_metrics(spec.metrics, task, given, classes, positive,
                            weighted=spec.sample_weight is not None)
    planned = plan_metrics([(c.label, c.spec, c.kwargs) for c in chosen])
    if binned:
        unbounded = [p.label for p in planned
                     if p.family is not None and not p.family.binnable(p.computed[1])]
        if spec.metrics is not None and unbounded:
            raise InputError(f"metrics: {', '.join(unbounded)} has no error bound in binned "
                             "mode; use exact=True")
        planned = tuple(p for p in planned if p.label not in unbounded)
    generic = [p.label for p in planned if p.family is None]
    if spec.metrics is not None and generic:
        raise InputError(f"metrics: {', '.join(generic)} cannot be computed here: a streamed "
                         "evaluation keeps the states of dartboard's metric families, not the "
                         "rows a callable (or keywords no family takes) would need")
    return tuple(p for p in planned if p.family is not None)


# ---------------------------------------------------------------------- batches

def bundle_from_columns(plan: Setup, columns: dict[str, Any], source: str,
                        earlier: frozenset[Any] = frozenset()) -> Bundle:
    """The states of one batch; errors are prefixed with ``source`` (the file or partition).

    ``earlier``: the labels of the batches read before (a third label across batches is
    the in-memory error at the batch that brings it).
    """
    spec = plan.spec
    n = len(columns[spec.y_true])
    if n == 0:
        return Bundle()
    try:
        batch, labels = _batch(plan, columns, n, earlier)
        groups = None
        if spec.groups:
            from dartboard.evaluation._groups import encode_groups

            groups = encode_groups({g: columns[g] for g in spec.groups}, n)
        clusters = None if spec.cluster is None else _cluster_ids(columns[spec.cluster], spec)
        bundle = build_bundle(batch, plan.planned, groups, clusters)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{source}: {exc}") from None
    bundle.labels = labels
    return bundle


def _batch(plan: Setup, columns: dict[str, Any], n: int, earlier: frozenset[Any] = frozenset()
           ) -> tuple[Batch, frozenset[Any]]:
    """The batch the in-memory evaluation makes of these rows, and the labels of y_true."""
    spec = plan.spec
    w = None
    if spec.sample_weight is not None:
        checked = check_sample_weight(np.asarray(columns[spec.sample_weight]), n,
                                      name=spec.describe_column("sample_weight"))
        assert checked is not None  # a column of weights was given
        w = _streamable_weights(checked, spec)
    approximate: dict[str, Any] = {"relative_accuracy": spec.relative_accuracy}
    if plan.score_bins is not None:
        approximate["score_bins"] = plan.score_bins
    true_name = spec.describe_column("y_true")
    if plan.task == "regression":
        assert spec.y_pred is not None  # regression is evaluated from predictions
        yt = as_float_array(columns[spec.y_true], name=true_name)
        yp = as_float_array(columns[spec.y_pred], name=spec.describe_column("y_pred"))
        facts: frozenset[Any] = frozenset()
        if spec.auto == "floats":  # what decides the task in memory, checked at the end
            facts = value_facts(yt, yp)
        return Batch(yt, {"values": yp}, w, approximate=approximate), facts
    yt = label_array(columns[spec.y_true], name=true_name)
    seen = _distinct(yt)
    inputs: dict[str, np.ndarray | None] = {}
    if spec.y_proba is not None:
        classes = plan.classes
        assert classes is not None  # the probability columns' classes
        proba = np.column_stack([as_float_array(columns[c], name=spec.role_of(c))
                                 for c in spec.y_proba])
        _check_labels(yt, classes, true_name)
        inputs["labels"] = classes[np.argmax(proba, axis=1)] if spec.y_pred is None else \
            label_array(columns[spec.y_pred], name=spec.describe_column("y_pred"))
        column = proba[:, 1] if classes.shape[0] == 2 else proba
        inputs["scores"] = inputs["probabilities"] = column
    elif spec.y_score is not None:
        known = seen | earlier | set(() if plan.classes is None else plan.classes.tolist())
        check_score_labels(np.array(sorted(known)))  # the in-memory error, in any batch
        score = as_float_array(columns[spec.y_score], name=spec.describe_column("y_score"))
        inputs["scores"] = score
        inputs["probabilities"] = score if plan.probabilities else None
        if spec.y_pred is not None:
            labels = label_array(columns[spec.y_pred], name=spec.describe_column("y_pred"))
            inputs["labels"] = labels
            both = known | _distinct(labels)
            if len(both) > 2:  # the in-memory refusal of a binary task's labels
                shown = sorted(both, key=str)
                raise InputError(f"task='binary' needs two classes; got {len(both)}: "
                                 f"{shown[:10]}")
        elif plan.negative is not None:
            inputs["labels"] = np.where(score >= plan.threshold, plan.positive, plan.negative)
    else:
        assert spec.y_pred is not None  # labels come from y_pred when no scores are given
        inputs["labels"] = label_array(columns[spec.y_pred],
                                       name=spec.describe_column("y_pred"))
    return Batch(yt, inputs, w, plan.positive, plan.classes, approximate), seen


def _cluster_ids(ids: Any, spec: Spec) -> np.ndarray:
    """A batch's cluster ids, as read (their raw values key the clusters' states),
    checked: none missing."""
    import pandas as pd

    ids = np.asarray(ids)
    missing = int(np.count_nonzero(pd.isna(ids))) if ids.dtype.kind in "fOUSmM" else 0
    if missing:
        raise InputError(f"clusters: {spec.role_of(spec.cluster or '')} holds {missing} "
                         "missing id(s) (null or NaN); every row needs its cluster")
    return ids


def value_facts(y_true: np.ndarray, y_pred: np.ndarray) -> frozenset[Any]:
    """What the in-memory rule decides a task from, for numbers streamed as a
    regression: ``("true", x)`` / ``("pred", x)`` a value that is no class label, and
    up to ``FEW_LABELS + 1`` distinct whole values of ``y_true`` (merged as sets)."""
    from dartboard.evaluation._inputs import FEW_LABELS, could_be_labels

    out: set[Any] = set()
    for name, values in (("true", y_true), ("pred", y_pred)):
        if values.size and not could_be_labels(values):
            out.add((name, "fraction"))
    if ("true", "fraction") not in out:
        out.update(float(v) for v in np.unique(y_true)[:FEW_LABELS + 1])
    return frozenset(out)


def _streamable_weights(w: np.ndarray, spec: Spec) -> np.ndarray:
    """Weights whose sums keep their precision in every state. In memory, weights of
    any scale are multiplied by one power of two first (a ratio cannot notice); a
    stream has no one scale to bring them to, and denormal weights (1e-320) lose
    their digits in the states' products while weights near 1e300 overflow them, so
    a batch whose largest weight lies outside ``WEIGHT_RANGE`` is refused."""
    largest = float(np.max(np.abs(w))) if w.size else 0.0
    if largest and not WEIGHT_RANGE[0] <= largest <= WEIGHT_RANGE[1]:
        raise InputError(f"{spec.describe_column('sample_weight')} holds weights of "
                         f"{largest:g}, beyond what streamed sums keep exact (2**-100 to "
                         "2**100); multiply the column by one constant first (the metrics "
                         "are ratios of weighted sums and do not change)")
    return w


def _distinct(y: np.ndarray) -> frozenset[Any]:
    import pandas as pd

    return frozenset(v.item() if isinstance(v, np.generic) else v for v in pd.unique(y))


def _check_labels(y: np.ndarray, classes: np.ndarray, name: str) -> None:
    """Every label is one of ``classes`` (the probability columns', or the two labels
    found before streaming)."""
    try:
        pos = np.clip(np.searchsorted(classes, y), 0, classes.shape[0] - 1)
        bad = classes[pos] != y
    except TypeError:
        raise InputTypeError(f"{name} labels and the classes {classes.tolist()!r} are of "
                             "different types") from None
    if np.any(bad):
        raise InputError(f"{name} holds labels {np.unique(y[bad])[:5].tolist()!r} that have no "
                         f"column among the classes {classes.tolist()!r}")
