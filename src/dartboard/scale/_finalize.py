"""From merged states to the :class:`~dartboard.evaluation.Evaluation` of
:func:`dartboard.evaluate`: rows overall and per group, and the gaps between groups.

A streamed evaluation keeps states, not rows, so every number comes from a state:

* count metrics: the value and the interval from the confusion counts, through the
  one count-interval path (:func:`dartboard.uncertainty.interval_from_counts`; the
  interval method per metric is the in-memory engine's choice), so the same seed
  gives the interval :func:`dartboard.evaluate` gives on the same rows;
* ROC AUC (exact scores, binary): DeLong's interval (or the bootstrap of its
  cells) from the map of distinct scores;
* the calibration error: the bootstrap of its bins;
* every other metric: its value only; the ``method`` column says why there is no
  interval, none is invented.

Per group the same, from each group's states. The gaps between groups come from
each group's confusion matrix through the grouped multinomial bootstrap of
:mod:`dartboard.evaluation._groups` (a matrix of whole counts is drawn exactly as
the rows it counts, so the gaps equal the in-memory ones for the same seed); gaps
of other metrics carry their estimate and say that they have no interval.
Integer weights count as repeated rows; with fractional weights no interval is
formed (with a warning).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from dartboard.metrics._registry import MetricSpec, get_spec
from dartboard.scale._evaluate import MacroScores, Spec, StateBundle

__all__ = ["finalize"]

_NO_STATE = "n/a (not from a streamed state)"
_NO_LEVEL = "n/a (confidence_level=None)"
_FRACTIONAL = "n/a (sample_weight has non-integer values)"


def finalize(spec: Spec, bundle: StateBundle, n_files: int, *, source: str = "parquet",
             unit: str = "Parquet file") -> Any:
    """The evaluation of the merged ``bundle`` (an :class:`Evaluation`)."""
    from dartboard._rng import child, seed_sequence
    from dartboard.evaluation._evaluation import Evaluation, _Gaps
    from dartboard.evaluation._result import EvaluationResult, Streamed

    if bundle.n_rows == 0:
        raise ValueError("no rows to evaluate: the input holds no data")
    task = _task_found(spec, bundle)
    labels = _labels(spec, bundle)
    positive = _positive(spec, task, labels, bundle)
    assumptions = _assumptions(spec, bundle, task, labels, positive)
    chosen = tuple(_chosen(m, task, positive, labels) for m in _reported(spec, task))
    whole = _whole(bundle)
    if not whole and spec.confidence_level is not None:
        from dartboard.uncertainty import IntervalWarning

        warnings.warn("intervals need counts; sample_weight has non-integer values, so no "
                      "interval is given", IntervalWarning, stacklevel=3)
    rows = tuple(_rows(spec, bundle, chosen, task, whole))
    group_rows = keys = None
    if spec.groups:
        keys = tuple(_sorted_keys(bundle.groups or {}, spec.groups))
        group_rows = tuple(row for key in keys for row in _rows(
            spec, bundle.groups[key], chosen, task, whole, ", ".join(str(v) for v in key)))
    result = EvaluationResult(
        task=task, n=int(bundle.n_rows), model=spec.model, metrics=rows, groups=group_rows,
        group_columns=spec.groups, group_keys=keys,
        streamed=Streamed(source, int(bundle.n_rows), int(n_files),
                          "exact" if spec.exact else "binned", unit),
        assumptions=assumptions, **_figures(bundle, labels, positive, task))
    gaps = None
    if spec.groups:
        classes = matrices = None
        if bundle.counts is not None:
            classes = bundle.counts.classes
            matrices = [np.asarray(bundle.groups[k].counts.with_classes(classes).matrix,
                                   dtype=np.float64) for k in keys]
        # fractional weights make the matrices fractional: from_counts then draws none
        gaps = _Gaps.from_counts(matrices, classes, positive, chosen,
                                 child(seed_sequence(spec.random_state), 1), spec.n_resamples,
                                 spec.confidence_level)
    states = _states(bundle)
    if spec.groups:
        states["groups"] = {k: _states(bundle.groups[k]) for k in keys}
    return Evaluation(result, gaps, states)


# ------------------------------------------------------------------ what was found

def _task_found(spec: Spec, bundle: StateBundle) -> str:
    """``regression``, or ``binary``/``multiclass`` from the classes in the data."""
    if spec.task == "regression":
        return "regression"
    if bundle.counts is not None:
        n_classes = bundle.counts.n_classes
    elif spec.classes is not None:
        n_classes = len(spec.classes)
    else:
        n_classes = len(bundle.labels or ())
    return "binary" if n_classes <= 2 else "multiclass"


def _labels(spec: Spec, bundle: StateBundle) -> np.ndarray | None:
    """The sorted labels of the data (true and predicted); None for regression."""
    if spec.task == "regression":
        return None
    if bundle.counts is not None:
        return np.asarray(bundle.counts.classes)
    if spec.classes is not None:
        return np.sort(np.asarray(spec.classes))
    return np.sort(np.array(sorted(bundle.labels or ())))


def _positive(spec: Spec, task: str, labels: np.ndarray | None, bundle: StateBundle) -> Any:
    """The positive class, checked as in memory (the same errors)."""
    from dartboard.evaluation._inputs import check_positive, check_score_labels

    if spec.y_score is not None and bundle.labels is not None:
        check_score_labels(np.array(sorted(bundle.labels)))
    if task != "binary":
        if spec.pos_label is not None:
            raise ValueError(f"pos_label applies to a binary task; this one is {task}")
        return None
    if spec.proba is not None:
        return spec.classes[1] if len(spec.classes) == 2 else None
    return check_positive(labels, spec.pos_label)


def _assumptions(spec: Spec, bundle: StateBundle, task: str, labels: np.ndarray | None,
                 positive: Any) -> tuple[Any, ...]:
    """What was decided without being told, as in memory: the task (``task="auto"``,
    checked against the values read), the positive class, labels from ``proba``."""
    from dartboard.evaluation._inputs import positive_class
    from dartboard.evaluation._result import Assumption

    notes = []
    if spec.auto is not None:
        notes.append(Assumption("task", task, _task_why(spec, bundle, labels)))
    if task == "binary" and spec.pos_label is None and spec.proba is None \
            and positive is not None:
        note = positive_class(labels, None)[1]
        notes += [note] if note is not None else []
    if spec.proba is not None and spec.y_pred is None and bundle.counts is not None:
        notes.append(Assumption("labels", "argmax of proba",
                                "the most probable class (ties: the first column)"))
    return tuple(notes)


def _task_why(spec: Spec, bundle: StateBundle, labels: np.ndarray | None) -> str:
    """Why ``task="auto"`` found its task; a ``ValueError`` where the values read leave
    it in doubt (float columns: the in-memory rules of
    :mod:`dartboard.evaluation._inputs`)."""
    from dartboard.evaluation._inputs import FEW_LABELS

    if spec.auto == "scores":
        return "y_score holds the scores of one class" if spec.proba is None else \
            f"proba has {len(spec.proba)} columns, one per class"
    if spec.auto == "labels":
        return f"y_true and y_pred hold {len(labels)} distinct labels (no float column)"
    whole = bundle.whole
    if not whole.true_whole:
        return "y_true holds non-integer values"
    if whole.pred_whole:
        raise ValueError("task='auto' cannot tell what the columns hold: y_true and y_pred "
                         "hold whole numbers only, stored as floats (class labels, or a "
                         "regression's rounded predictions?); pass task='classification' "
                         "or task='regression'")
    if len(whole.true_values) <= FEW_LABELS:
        shown = ", ".join(f"{v:g}" for v in sorted(whole.true_values)[:5])
        raise ValueError(f"task='auto' cannot tell what y_pred is: y_true holds "
                         f"{len(whole.true_values)} distinct whole number(s) ({shown}), as "
                         "class labels do, and y_pred non-integer values, as scores do. "
                         "Pass scores of the positive class as y_score=, or "
                         "task='regression' if y_pred predicts a numeric target")
    return (f"y_pred holds non-integer values and y_true more than {FEW_LABELS} distinct "
            "numbers")


def _reported(spec: Spec, task: str) -> list[MetricSpec]:
    """The metrics to report: all asked for, or the registry defaults of the task found."""
    metrics = [get_spec(name) for name in spec.metrics]
    if not spec.default_metrics:
        return metrics
    return [m for m in metrics if task in m.tasks]


def _chosen(metric: MetricSpec, task: str, positive: Any, labels: np.ndarray | None) -> Any:
    """The engine's row of a metric: its label and keywords as in memory."""
    from dartboard.evaluation._engine import Chosen, label_of, metric_keywords

    kw = metric_keywords(metric, task, positive, labels) if task != "regression" else {}
    return Chosen(label_of(metric, None, task, kw), metric.function, metric, metric.input, kw)


def _whole(bundle: StateBundle) -> bool:
    """Whether the states hold counts of rows (integer or no weights)."""
    for state in (bundle.counts, bundle.scores):
        if state is None or isinstance(state, MacroScores):
            continue
        arrays = [state.matrix] if hasattr(state, "matrix") else \
            [getattr(state, "pos", None), getattr(state, "neg", None)]
        for a in arrays:
            if a is not None and np.asarray(a).dtype.kind == "f" \
                    and not np.all(a == np.round(a)):
                return False
    if bundle.calibration is not None:
        return bool(np.all(bundle.calibration.weight == np.round(bundle.calibration.weight)))
    return True


def _sorted_keys(groups: dict[tuple[Any, ...], Any], names: tuple[str, ...]) -> list[Any]:
    try:
        return sorted(groups)
    except TypeError:
        raise TypeError(f"group columns {list(names)} hold values that cannot be ordered "
                        "(mixed types across files or partitions); use one type") from None


# ------------------------------------------------------------------ rows

def _rows(spec: Spec, bundle: StateBundle, chosen: tuple[Any, ...], task: str, whole: bool,
          group: str | None = None) -> list[Any]:
    """One row per metric of the states in ``bundle`` (all rows, or one group's)."""
    from dartboard.evaluation._result import MetricRow

    level = spec.confidence_level
    out = []
    for c in chosen:
        m = c.spec
        kw = c.kwargs if m.state == "counts" else {}
        with warnings.catch_warnings():
            if group is not None:
                warnings.simplefilter("ignore")
            estimate = float(bundle.compute(m.name, **kw))
        bound = bundle.error_bound(m.name) if m.state == "errors" or (
            m.state == "scores" and not spec.exact) else None
        n = int(bundle.n_rows)
        if group is not None and not np.isfinite(estimate):
            out.append(MetricRow(c.label, float("nan"), None, None,
                                 f"undefined: {m.name} is undefined on this group",
                                 float("nan") if level is None else level, n, group, bound))
            continue
        interval, why = _interval(spec, bundle, c, estimate, whole, group is None)
        if interval is None:
            out.append(MetricRow(c.label, estimate, None, None, why,
                                 float("nan") if level is None else level, n, group, bound))
        else:
            out.append(MetricRow(c.label, estimate, float(interval.low), float(interval.high),
                                 str(interval.method), float(interval.confidence_level), n,
                                 group, bound))
    return out


def _interval(spec: Spec, bundle: StateBundle, c: Any, estimate: float, whole: bool,
              overall: bool) -> tuple[Any, str]:
    """(interval, "") from the states, or (None, why there is none)."""
    from dartboard.evaluation._engine import _NO_INTERVAL, _method_for

    m = c.spec
    if spec.confidence_level is None:
        return None, _NO_LEVEL
    if m.default_interval is None:
        return None, _NO_INTERVAL
    if not whole and m.state in ("counts", "scores", "calibration"):
        return None, _FRACTIONAL
    method = _method_for(spec.ci_method, m, c.kwargs)
    common = {"method": method, "confidence_level": spec.confidence_level,
              "n_resamples": spec.n_resamples, "random_state": spec.random_state}
    try:
        if m.state == "counts" and m.interval_fast == "counts":
            from dartboard.uncertainty import interval_from_counts

            return interval_from_counts(m.name, bundle.counts, **common, **c.kwargs), ""
        if m.state == "scores" and m.default_interval == "delong" and spec.exact \
                and not isinstance(bundle.scores, MacroScores) and np.isfinite(estimate):
            from dartboard.uncertainty import interval_from_score_state

            return interval_from_score_state(bundle.scores, metric=m.name, **common), ""
        if m.state == "calibration":
            from dartboard.uncertainty import interval_from_calibration_state

            return interval_from_calibration_state(bundle.calibration, **common), ""
    except ValueError as exc:
        if overall:
            from dartboard.uncertainty import IntervalWarning

            warnings.warn(f"no interval for {m.name}: {exc}", IntervalWarning, stacklevel=5)
        return None, f"n/a ({str(exc).split(';')[0][:100]})"
    return None, _NO_STATE


# ------------------------------------------------------------------ the rest

def _figures(bundle: StateBundle, labels: np.ndarray | None, positive: Any,
             task: str) -> dict[str, Any]:
    """Classes, positive class and the confusion matrix (what the states give)."""
    if task == "regression":
        return {}
    from dartboard.evaluation._result import Confusion

    out: dict[str, Any] = {"classes": tuple(labels.tolist()), "positive_label": positive}
    if bundle.counts is not None:
        counts = bundle.counts
        cells = tuple(tuple(int(v) if float(v).is_integer() else round(float(v), 6) for v in r)
                      for r in np.asarray(counts.matrix).tolist())
        out["confusion"] = Confusion(tuple(str(v) for v in counts.classes.tolist()), cells)
    return out


def _states(bundle: StateBundle) -> dict[str, Any]:
    return {name: getattr(bundle, name) for name in
            ("counts", "scores", "moments", "errors", "losses", "calibration")
            if getattr(bundle, name) is not None}
