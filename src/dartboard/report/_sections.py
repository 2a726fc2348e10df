"""Turn predictions into the JSON-ready sections a report is drawn from.

``dartboard demo`` and ``dartboard evaluate`` both call these, so a table in the
terminal, the ``--json`` output and the HTML report show the same numbers. Every
number comes from dartboard's public functions (metrics, :func:`dartboard.interval`);
curves are kept as points (thinned to a bounded number for large inputs) so that the
figures can be redrawn from ``results.json`` without the data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dartboard._validation import (
    as_float_array,
    check_consistent_length,
    check_option,
    column_1d,
    label_array,
)

__all__ = ["TASKS", "infer_task", "classification_section", "regression_section",
           "metric_names"]

TASKS = ("auto", "binary", "multiclass", "regression")

# (name, input, keyword arguments): input is "pred" (labels), "score" (positive-class
# score) or "proba" (probability matrix / positive-class probability)
_BINARY = [
    ("accuracy_score", "pred", {}), ("balanced_accuracy_score", "pred", {}),
    ("precision_score", "pred", {}), ("recall_score", "pred", {}),
    ("specificity_score", "pred", {}), ("f1_score", "pred", {}),
    ("matthews_corrcoef", "pred", {}), ("false_positive_rate", "pred", {}),
    ("false_negative_rate", "pred", {}), ("selection_rate", "pred", {}),
    ("roc_auc_score", "score", {}), ("average_precision_score", "score", {}),
    ("pr_auc_score", "score", {}), ("log_loss", "proba", {}),
    ("brier_score_loss", "proba", {}),
]
# binary metrics that take pos_label (the others need none: roc_auc_score and log_loss
# read the score as that of the greater label, which is ``positive``)
_POS_LABEL = {"precision_score", "recall_score", "specificity_score", "f1_score",
              "false_positive_rate", "false_negative_rate", "selection_rate",
              "average_precision_score", "pr_auc_score", "brier_score_loss"}
_MULTICLASS = [
    ("accuracy_score", "pred", {}), ("balanced_accuracy_score", "pred", {}),
    ("precision_score", "pred", {"average": "macro"}),
    ("recall_score", "pred", {"average": "macro"}),
    ("f1_score", "pred", {"average": "macro"}), ("matthews_corrcoef", "pred", {}),
    ("cohen_kappa_score", "pred", {}),
    ("roc_auc_score", "proba", {"multi_class": "ovr"}), ("log_loss", "proba", {}),
]
_REGRESSION = [
    "mean_absolute_error", "mean_squared_error", "root_mean_squared_error", "r2_score",
    "explained_variance_score", "mean_absolute_percentage_error",
    "weighted_mean_absolute_percentage_error", "median_absolute_error",
    "median_absolute_deviation", "max_error",
]
# metrics whose label in tables carries the averaging used
_LABELS = {("precision_score", "macro"): "precision_macro",
           ("recall_score", "macro"): "recall_macro", ("f1_score", "macro"): "f1_macro"}
# analytic interval methods and the metrics they apply to
_PROPORTIONS = {"accuracy_score", "precision_score", "recall_score", "specificity_score",
                "false_positive_rate", "false_negative_rate", "selection_rate"}
_ANALYTIC = {"wald", "wilson", "clopper-pearson", "agresti-coull", "jeffreys"}
_MAX_POINTS = 400
_MAX_ERRORS = 1000


def metric_names(task: str) -> list[str]:
    """Names (as in tables and JSON) of the metrics reported for a task."""
    if task == "regression":
        return list(_REGRESSION)
    specs = _BINARY if task == "binary" else _MULTICLASS
    return [_label(name, kw) for name, _, kw in specs]


def _label(name: str, kwargs: dict[str, Any]) -> str:
    return _LABELS.get((name, kwargs.get("average")), name.removesuffix("_score"))


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


def _method_for(ci: str, name: str) -> str:
    if ci in _ANALYTIC:
        return ci if name in _PROPORTIONS else "auto"
    if ci == "delong":
        return ci if name == "roc_auc_score" else "auto"
    return ci


def _interval_row(label: str, func: Callable[..., Any], y_true: Any, other: Any, *,
                  ci: str, name: str, n_resamples: int, random_state: int,
                  confidence_level: float, kwargs: dict[str, Any]) -> dict[str, Any]:
    from dartboard import interval

    if name == "max_error":  # a sample maximum has no valid bootstrap interval
        return {"metric": label, "estimate": float(func(y_true, other, **kwargs)),
                "low": None, "high": None, "method": "n/a (sample maximum)",
                "confidence_level": confidence_level}
    res = interval(func, y_true, other, method=_method_for(ci, name),
                   confidence_level=confidence_level, n_resamples=n_resamples,
                   random_state=random_state, **kwargs)
    return {"metric": label, "estimate": float(res.estimate), "low": float(res.low),
            "high": float(res.high), "method": str(res.method),
            "confidence_level": float(res.confidence_level)}


def _thin(*arrays: np.ndarray, max_points: int = _MAX_POINTS) -> list[list[float]]:
    """Keep at most ``max_points`` evenly spaced points (the ends always)."""
    n = arrays[0].shape[0]
    if n > max_points:
        keep = np.unique(np.linspace(0, n - 1, max_points).round().astype(np.int64))
        arrays = tuple(a[keep] for a in arrays)
    return [np.round(a.astype(float), 6).tolist() for a in arrays]


def classification_section(y_true: Any, *, y_pred: Any = None, y_score: Any = None,
                           proba: Any = None, task: str = "auto", ci: str = "auto",
                           confidence_level: float = 0.95, n_resamples: int = 2000,
                           random_state: int = 0, groups: Any = None,
                           model: str | None = None) -> dict[str, Any]:
    """Every applicable classification metric with its interval, plus the points of
    the ROC, PR, confusion-matrix and calibration figures.

    Give ``y_pred`` (labels), ``y_score`` (binary scores or probabilities of the
    positive class, the greater label) or ``proba`` (n x K probabilities, columns in
    sorted label order). Labels are derived from scores at 0.5 when they lie in
    [0, 1], at 0 otherwise (decision functions), and from probabilities by argmax.
    """
    from dartboard import metrics
    from dartboard.plots._metrics import calibration_points

    given = [v is not None for v in (y_pred, y_score, proba)]
    if sum(given) != 1:
        raise ValueError("give exactly one of y_pred, y_score or proba")
    y_true = label_array(y_true, name="y_true")
    classes = np.unique(y_true)
    if proba is not None:
        proba = as_float_array(proba, name="proba", ndim=2)
        check_consistent_length(("y_true", y_true), ("proba", proba))
        if proba.shape[1] != classes.size:
            raise ValueError(f"proba must have one column per class of y_true "
                             f"({classes.size}: {classes.tolist()}); got {proba.shape[1]}")
        y_pred = classes[np.argmax(proba, axis=1)]
        if proba.shape[1] == 2:
            y_score = proba[:, 1]
    elif y_score is not None:
        y_score = as_float_array(y_score, name="y_score")
        check_consistent_length(("y_true", y_true), ("y_score", y_score))
        if classes.size != 2:
            raise ValueError(f"y_score needs binary y_true; y_true has {classes.size} "
                             f"classes: {classes.tolist()[:10]}")
        threshold = 0.5 if y_score.min() >= 0 and y_score.max() <= 1 else 0.0
        y_pred = np.where(y_score >= threshold, classes[1], classes[0])
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
    positive = labels[-1]
    is_prob = y_score is not None and y_score.min() >= 0 and y_score.max() <= 1
    inputs = {"pred": y_pred, "score": y_score,
              "proba": (proba if task == "multiclass" else y_score) if is_prob or
              proba is not None else None}

    def rows_for(mask: np.ndarray | None) -> list[dict[str, Any]]:
        rows = []
        yt = y_true if mask is None else y_true[mask]
        for name, kind, kwargs in (_BINARY if task == "binary" else _MULTICLASS):
            other = inputs[kind]
            if other is None:
                continue
            if kind != "pred" and np.unique(yt).size < 2:
                continue  # ranking metrics are undefined with one class
            kw = dict(kwargs)
            if task == "binary" and name in _POS_LABEL:
                kw["pos_label"] = positive  # the score metrics too: labels may be strings
            if name in ("log_loss",) and task == "multiclass":
                kw["labels"] = classes
            rows.append(_interval_row(_label(name, kwargs), getattr(metrics, name), yt,
                                      other if mask is None else other[mask], ci=ci,
                                      name=name, n_resamples=n_resamples,
                                      random_state=random_state,
                                      confidence_level=confidence_level, kwargs=kw))
        return rows

    section: dict[str, Any] = {
        "task": task, "n": int(y_true.shape[0]), "model": model,
        "classes": labels.tolist(), "positive_label": labels.tolist()[-1]
        if task == "binary" else None,
        "metrics": rows_for(None),
        "confusion": {"labels": [str(v) for v in labels.tolist()],
                      "matrix": metrics.confusion_matrix(y_true, y_pred,
                                                         labels=labels).tolist()},
    }
    if task == "binary" and y_score is not None:
        fpr, tpr, _ = metrics.roc_curve(y_true, y_score, pos_label=positive)
        precision, recall, _ = metrics.precision_recall_curve(y_true, y_score,
                                                              pos_label=positive)
        fpr, tpr = _thin(fpr, tpr)
        precision, recall = _thin(precision, recall)
        section["roc"] = {"fpr": fpr, "tpr": tpr}
        section["pr"] = {"precision": precision, "recall": recall,
                         "prevalence": float(np.mean(y_true == positive))}
        if is_prob:
            section["calibration"] = calibration_points(y_true, y_score, pos_label=positive)
    if groups is not None:
        section.update(_group_rows(groups, y_true, rows_for))
    return section


def _group_rows(groups: Any, y_true: np.ndarray,
                rows_for: Callable[[np.ndarray], list[dict[str, Any]]]) -> dict[str, Any]:
    groups = column_1d(groups, name="group")
    check_consistent_length(("y_true", y_true), ("group", groups))
    out = []
    for g in np.unique(groups):
        mask = groups == g
        for row in rows_for(mask):
            out.append({"group": str(g), "n": int(mask.sum()), **row})
    return {"groups": out}


def regression_section(y_true: Any, y_pred: Any, *, ci: str = "auto",
                       confidence_level: float = 0.95, n_resamples: int = 2000,
                       random_state: int = 0, groups: Any = None,
                       model: str | None = None) -> dict[str, Any]:
    """Every regression metric with its (bootstrap) interval, the sorted errors
    (a quantile grid of at most 1000 points for large inputs) and a summary of the
    error distribution."""
    from dartboard import metrics

    y_true = as_float_array(y_true, name="y_true")
    y_pred = as_float_array(y_pred, name="y_pred")
    check_consistent_length(("y_true", y_true), ("y_pred", y_pred))

    def rows_for(mask: np.ndarray | None) -> list[dict[str, Any]]:
        yt = y_true if mask is None else y_true[mask]
        yp = y_pred if mask is None else y_pred[mask]
        return [_interval_row(name.removesuffix("_score"), getattr(metrics, name), yt, yp,
                              ci=ci, name=name, n_resamples=n_resamples,
                              random_state=random_state,
                              confidence_level=confidence_level, kwargs={})
                for name in _REGRESSION]

    dist = metrics.error_distribution(y_true, y_pred)
    errors = dist.errors
    if errors.size > _MAX_ERRORS:
        errors = dist.quantile(np.linspace(0, 1, _MAX_ERRORS))
    abs_q = [0.5, 0.9, 0.95, 0.99]
    section: dict[str, Any] = {
        "task": "regression", "n": int(y_true.shape[0]), "model": model,
        "metrics": rows_for(None),
        "errors": np.round(np.asarray(errors, dtype=float), 6).tolist(),
        "error_summary": [{"quantity": f"error quantile {q:g}",
                           "value": float(dist.quantile(q))}
                          for q in (0.05, 0.25, 0.5, 0.75, 0.95)] + [
            {"quantity": f"{int(q * 100)}% of absolute errors are below",
             "value": float(np.quantile(np.abs(y_true - y_pred), q))} for q in abs_q],
    }
    if groups is not None:
        section.update(_group_rows(groups, y_true, rows_for))
    return section
