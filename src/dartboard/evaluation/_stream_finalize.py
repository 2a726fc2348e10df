"""From the merged bundle of a streamed evaluation to the
:class:`~dartboard.Evaluation` of :func:`dartboard.evaluate`.

What the states say at the end (the classes seen, so binary or multiclass and the
positive class, checked as in memory) decides the metrics' keywords; then the
in-memory evaluation's finalize (:mod:`dartboard.evaluation._finalize`) gives every
row, interval, group row and gap from the states, with the same numbers as in memory
for the same seed. The figures come from the states too: the confusion matrix, the
ROC and PR curves of a map of distinct scores, the reliability diagram's bins.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from dartboard._frames import rows_in_order
from dartboard._rng import child, seed_sequence
from dartboard.evaluation._bundle import Bundle, Planned, plan_metrics
from dartboard.evaluation._clusters import ClusteredStates, cluster_order
from dartboard.evaluation._engine import (
    choose_metrics,
    fairness_rates,
    zero_weight_error,
)
from dartboard.evaluation._finalize import GroupGaps, metric_rows
from dartboard.evaluation._inputs import check_positive, check_score_labels
from dartboard.evaluation._operating import operating_extras
from dartboard.evaluation._options import EvaluationOptions
from dartboard.evaluation._result import (
    Assumption,
    Confusion,
    EvaluationResult,
    MetricRow,
    PrPoints,
    RocPoints,
    Streamed,
)
from dartboard.evaluation._stream import Setup
from dartboard.exceptions import InputError, InputTypeError
from dartboard.families._counts import CountsState
from dartboard.families._scores import ScoreCells

__all__ = ["finalize"]


def finalize(plan: Setup, bundle: Bundle, n_files: int, *, source: str = "parquet",
             unit: str = "Parquet file", files: tuple[str, ...] = (),
             notes: tuple[Any, ...] = (), data: Any = None) -> Any:
    """The evaluation of the merged ``bundle`` (read from ``files``, when known: its
    report must never replace one of them); ``notes`` are assumptions the source made
    (a size rule), added to those of the columns. ``data`` is the source itself: an
    operating point or curve bands read its binary scores' rows from it."""
    from dartboard.evaluation._evaluation import Evaluation

    spec = plan.spec
    if bundle.n_rows == 0:
        raise InputError("no rows to evaluate: the input holds no data")
    if not bundle.weighted_rows:  # as in memory
        raise zero_weight_error(spec.describe_column("sample_weight"), bundle.n_rows)
    task, classes, positive = _found(plan, bundle)
    chosen = choose_metrics(spec.metrics, task, plan.given(), classes, positive,
                            weighted=spec.sample_weight is not None)
    planned, left_out = _planned(plan, bundle, chosen)
    opts = spec.options
    by_key = bundle.groups or {}
    keys = tuple(_sorted_keys(by_key, spec.groups)) if spec.groups else None
    by_label = {p.label: p for p in planned}
    by_label.update(fairness_rates(positive, bundle))
    clusters = None
    if spec.cluster is not None:  # the rows' and the gaps' intervals from the clusters
        order = cluster_order(bundle.clusters or {}, spec.describe_column("cluster"))
        clusters = ClusteredStates(bundle, order, opts, keys or (), by_label)
    rows = _bounded(metric_rows(bundle, planned, opts, None, clusters=clusters), planned,
                    bundle)
    group_rows = gaps = None
    if keys is not None:
        group_rows = _group_rows(by_key, keys, planned, opts, clusters)
        gaps = GroupGaps(bundle, by_label, keys, child(seed_sequence(spec.random_state), 1),
                         spec.n_resamples, spec.confidence_level, clusters)
    result = EvaluationResult(
        task=task, n=int(bundle.n_rows), model=spec.model, metrics=tuple(rows),
        groups=group_rows, group_columns=spec.groups, group_keys=keys,
        streamed=Streamed(source, int(bundle.n_rows), int(n_files),
                          "exact" if spec.exact else "binned", unit, left_out),
        assumptions=_assumptions(plan, task, classes, positive) + tuple(notes),
        n_clusters=None if clusters is None else len(clusters.order),
        **_figures(bundle, classes, positive, task))
    if spec.operating:
        result = dataclasses.replace(result, **_operating(plan, task, positive, data))
    states = _named(bundle.states)
    if keys is not None:
        states["groups"] = {k: _named(by_key[k].states) for k in keys}
    return Evaluation(result, gaps, states, sources=files, options=spec.options)


def _operating(plan: Setup, task: str, positive: Any, data: Any) -> dict[str, Any]:
    """The operating point and curve bands, from the source's rows of labels, scores,
    weights and clusters in the order of their values: the numbers of the in-memory
    evaluation, which orders its rows the same way."""
    spec = plan.spec
    assert task == "binary"  # y_score (make_spec) of two labels (_found)
    rows = rows_in_order(data, spec.row_roles)
    return operating_extras(
        rows["y_true"], np.asarray(rows["y_score"], dtype=float), positive,
        criterion=spec.threshold_criterion, target=spec.threshold_target,
        bands=spec.curve_bands, confidence_level=spec.confidence_level or 0.95,
        n_resamples=spec.n_resamples, random_state=spec.random_state,
        sample_weight=rows.get("sample_weight"), clusters=rows.get("clusters"))


def _named(states: dict[str, Any]) -> dict[str, Any]:
    """The states by readable name: a state's key without the keywords that made it
    (``"calibration"`` for ``"calibration:[('pos_label', '1')]"``), unless two share it."""
    names = [key.split(":")[0] for key in states]
    return {name if names.count(name) == 1 else key: state
            for name, (key, state) in zip(names, states.items())}


def _found(plan: Setup, bundle: Bundle) -> tuple[str, np.ndarray | None, Any]:
    """(task, classes, positive class) from what the states hold, checked as in memory."""
    spec = plan.spec
    if plan.task == "regression":
        if spec.auto == "floats":
            _check_regression(bundle.labels)
        return "regression", None, None
    seen = np.array(sorted(bundle.labels))
    counts = bundle.states.get("counts")
    labels = np.asarray(counts.classes) if isinstance(counts, CountsState) else \
        (plan.classes if plan.classes is not None else seen)
    if spec.y_score is not None:
        check_score_labels(seen)
    task = plan.task
    if task == "auto":
        task = "binary" if labels.shape[0] <= 2 else "multiclass"
    if task != "binary":
        if spec.pos_label is not None:
            raise InputError(f"pos_label applies to a binary task; this one is {task}")
        return task, plan.classes if plan.classes is not None else labels, None
    if spec.pos_label is not None and labels.shape[0]:
        check_positive(labels, spec.pos_label)  # the error precision_score raises
    positive = plan.positive if plan.positive is not None else \
        check_positive(labels, spec.pos_label)
    return task, labels, positive


def _check_regression(facts: frozenset[Any]) -> None:
    """A regression decided from float columns is refused where the in-memory rule
    (:func:`~dartboard.evaluation._inputs.infer_from_values`) would not take it:
    whole numbers in both columns (labels stored as floats), or non-integer
    predictions beside at most ``FEW_LABELS`` distinct whole numbers (scores passed
    as ``y_pred``)."""
    from dartboard.evaluation._inputs import FEW_LABELS

    if ("true", "fraction") in facts:
        return
    distinct = sorted(v for v in facts if not isinstance(v, tuple))
    shown = ", ".join(f"{v:g}" for v in distinct[:5])
    if ("pred", "fraction") not in facts:
        raise InputError(f"task='auto' read float columns as a regression, but y_true and "
                         f"y_pred hold whole numbers only ({shown}...), as class labels "
                         "stored as floats do; pass task='binary' or 'multiclass' for labels, "
                         "or task='regression'")
    if len(distinct) <= FEW_LABELS:
        raise InputError(f"task='auto' cannot tell what y_pred is: y_true holds "
                         f"{len(distinct)} distinct integer(s) ({shown}), as class labels "
                         "do, and y_pred non-integer values, as scores do. Pass scores of "
                         "the positive class as y_score= (probabilities of every class as "
                         "y_proba=), or task='regression' if y_pred predicts a numeric target")


def _assumptions(plan: Setup, task: str, classes: np.ndarray | None, positive: Any
                 ) -> tuple[Assumption, ...]:
    """What was decided without being told, by the in-memory rules
    (:mod:`dartboard.evaluation._inputs`): the task, the positive class, where labels
    are cut from scores."""
    from dartboard.evaluation._inputs import (
        LABELS_FROM_PROBABILITIES,
        SCORES_AS_PROBABILITIES,
        positive_class,
        usual_threshold,
    )

    spec, notes = plan.spec, []
    if spec.auto is not None:
        why = ("y_score holds the scores of one class" if spec.y_score is not None else
               f"y_proba has {len(spec.y_proba)} columns, one per class"
               if spec.y_proba is not None else
               f"y_true and y_pred hold {len(classes) if classes is not None else 0} "
               "distinct labels" if task != "regression" else
               "y_true holds non-integer values")
        notes.append(Assumption("task", task, why))
    if task == "binary" and spec.pos_label is None and classes is not None \
            and spec.y_proba is None:
        note = positive_class(np.asarray(classes), None)[1]
        notes += [note] if note is not None else []
    if spec.y_score is not None and plan.probabilities:
        notes.append(SCORES_AS_PROBABILITIES)
    if spec.y_score is not None and spec.y_pred is None and plan.negative is not None \
            and spec.threshold is None:
        low_high = (0.0, 1.0) if plan.probabilities else (-1.0, 1.0)
        notes.append(Assumption("threshold", plan.threshold, usual_threshold(*low_high)[1]))
    if spec.y_proba is not None:
        notes.append(LABELS_FROM_PROBABILITIES)
    return tuple(notes)


def _bounded(rows: list[MetricRow], planned: list[Any], bundle: Bundle) -> list[MetricRow]:
    """The rows with the error bound of each approximate estimate (binned scores, a
    quantile sketch)."""
    import dataclasses

    out = []
    for row, p in zip(rows, planned):
        bound = p.family.error_bound(bundle.states[p.key], p.metric)
        out.append(row if bound is None else dataclasses.replace(row, error_bound=bound))
    return out


def _planned(plan: Setup, bundle: Bundle, chosen: Sequence[Any]
             ) -> tuple[list[Planned], tuple[tuple[str, str], ...]]:
    """The metrics the states give, and those left out with the reason. The task
    found may add metrics of the states built (cohen_kappa of multiclass counts);
    binned scores leave out those they do not bound (what the in-memory evaluation of
    these columns reports and this one does not; named metrics were refused before)."""
    built = {p.label for p in plan.planned}
    every = plan_metrics([(c.label, c.spec, c.kwargs) for c in chosen])
    planned = [p for p in every if p.key in bundle.states and (
        p.label in built or p.family is None or p.family.binnable(p.computed[1])
        or plan.score_bins is None)]
    left_out = tuple((p.label, "has no error bound in binned mode: give exact=True")
                     for p in every if plan.score_bins is not None and p.family is not None
                     and not p.family.binnable(p.computed[1]))
    return planned, left_out


def _group_rows(by_key: dict[Any, Bundle], keys: Sequence[Any], planned: list[Planned],
                opts: EvaluationOptions, clusters: Any) -> tuple[Any, ...]:
    """Every group's rows, in the order of ``keys``."""
    return tuple(row for key in keys for row in _bounded(
        metric_rows(by_key[key], planned, opts, None, ", ".join(str(v) for v in key),
                    clusters=clusters), planned, by_key[key]))


def _sorted_keys(groups: dict[tuple[Any, ...], Any], names: tuple[str, ...]) -> list[Any]:
    try:
        return sorted(groups)
    except TypeError:
        raise InputTypeError(f"group columns {list(names)} hold values that cannot be ordered "
                             "(mixed types across files or partitions); use one type") from None


def _figures(bundle: Bundle, labels: np.ndarray | None, positive: Any,
             task: str) -> dict[str, Any]:
    """Classes, positive class, confusion matrix and curves (what the states give)."""
    if task == "regression":
        return {}
    from dartboard.evaluation._points import thin, thin_index

    out: dict[str, Any] = {"classes": tuple(np.asarray(labels).tolist()),
                           "positive_label": positive}
    counts = bundle.states.get("counts")
    if isinstance(counts, CountsState):
        cells = tuple(tuple(int(v) if float(v).is_integer() else round(float(v), 6) for v in r)
                      for r in np.asarray(counts.counts.matrix).tolist())
        out["confusion"] = Confusion(tuple(str(v) for v in counts.classes.tolist()), cells)
    scores = bundle.states.get("scores")
    if isinstance(scores, ScoreCells) and task == "binary":
        state = scores.state()
        if state.n_positive > 0 and state.n_negative > 0:
            # both curves from the counts the ranking metrics read, at only the points
            # the figure keeps
            (fpr, tpr), (precision, recall) = scores.curves(thin_index)
            out["roc"] = RocPoints(*map(tuple, thin(fpr, tpr)))
            prevalence = float(state.n_positive / (state.n_positive + state.n_negative))
            pr_precision, pr_recall = thin(precision, recall)
            out["pr"] = PrPoints(tuple(pr_precision), tuple(pr_recall), prevalence=prevalence)
    return out
