"""The typed result of the evaluation engine.

Frozen dataclasses holding what a face shows: one row per metric (estimate,
interval, method), the points of the curves (already thinned), the confusion
matrix, the calibration bins and the error distribution. ``to_dict()`` gives plain
JSON values, the shape ``results.json`` and ``dartboard evaluate --json`` use.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

__all__ = ["Assumption", "MetricRow", "RocPoints", "PrPoints", "Confusion",
           "CalibrationPoints", "ErrorPoints", "FitPoints", "Streamed", "EvaluationResult"]


@dataclasses.dataclass(frozen=True)
class Assumption:
    """One decision the evaluation made because it was not told (``task="auto"``, no
    ``pos_label``, scores without labels): what was decided, its value and why.

    Parameters
    ----------
    what : str
        ``"task"``, ``"positive_class"``, ``"threshold"``, ``"labels"``,
        ``"scores"``, ``"exact"`` (a Spark evaluation's size rule binned the
        scores), ``"clusters"`` (too few for the clustered intervals' level) or
        ``"cluster_sizes"`` (clusters so unequal that a mean loss's interval may fall
        short).
    value : object
        The task, the positive class, the threshold, ...
    why : str
        The rule and the fact of the data it rests on.

    Examples
    --------
    >>> from dartboard import evaluate
    >>> result = evaluate([0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1, 1, 1],
    ...                   random_state=0).result
    >>> print(result.assumptions[0])
    task = 'binary' (y_true and y_pred hold 2 distinct labels)
    """

    what: str
    value: Any
    why: str

    def __str__(self) -> str:
        return f"{self.what} = {self.value!r} ({self.why})"


@dataclasses.dataclass(frozen=True)
class MetricRow:
    """One metric with its interval.

    Parameters
    ----------
    metric : str
        The metric's table label (``accuracy``, ``f1_macro``, ``r2``).
    estimate : float
        The metric's value on the rows.
    low, high : float or None
        The interval's ends; None when no interval is valid (a sample maximum).
    method : str
        The interval method used (``wilson``, ``delong``, ``bca``, ...).
    confidence_level : float
        Confidence level of the interval, in (0, 1).
    n : int
        The metric's own denominator where it is a proportion of whole counts
        (recall: the positive rows, precision: the predicted positives, accuracy: all
        rows), else the number of rows it was computed from.
    group : str or None
        The group of a per-group row; None for the overall rows.
    error_bound : float or None
        ``|estimate - exact| <=`` this bound when the estimate is approximate
        (streaming from binned scores or a quantile sketch); None when exact.
    design_effect : float or None
        With clusters: the clustered interval's variance over the independent-rows
        one's (:mod:`dartboard.evaluation._design`); None without clusters.

    Examples
    --------
    >>> from dartboard import evaluate
    >>> result = evaluate([0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1, 1, 1],
    ...                   random_state=0).result
    >>> row = result.metrics[0]
    >>> row.metric, row.estimate, row.method
    ('accuracy', 0.75, 'wilson')
    """

    metric: str
    estimate: float
    low: float | None
    high: float | None
    method: str
    confidence_level: float
    n: int
    group: str | None = None
    error_bound: float | None = None
    design_effect: float | None = None

    @property
    def effective_n(self) -> float | None:
        """``n / design_effect``, at most ``n``: the independent rows worth as much as
        these (a design effect below 1, the clusters' noise or a negative intra-cluster
        correlation, is not taken as rows worth more than themselves); None without a
        positive, finite design effect."""
        d = self.design_effect
        if d is None or not math.isfinite(d) or d <= 0:
            return None
        return self.n / max(d, 1.0)

    def to_dict(self) -> dict[str, Any]:
        """Return the row as JSON-ready values (group and n only for a group's row).

        Returns
        -------
        dict
            ``metric``, ``estimate``, ``low``, ``high``, ``method``, ``confidence_level``
            (and ``error_bound``, ``group``, ``n`` when set).
        """
        row = {"metric": self.metric, "estimate": self.estimate, "low": self.low,
               "high": self.high, "method": self.method,
               "confidence_level": self.confidence_level}
        if self.error_bound is not None:
            row["error_bound"] = self.error_bound
        if self.design_effect is not None:
            row.update(design_effect=self.design_effect, effective_n=self.effective_n)
        return row if self.group is None else {"group": self.group, "n": self.n, **row}


@dataclasses.dataclass(frozen=True)
class RocPoints:
    """Points of the ROC curve (at most a few hundred, the ends kept).

    Parameters
    ----------
    fpr, tpr : tuple of float
        False and true positive rates, from (0, 0) to (1, 1).

    Examples
    --------
    >>> RocPoints(fpr=(0.0, 0.5, 1.0), tpr=(0.0, 1.0, 1.0)).to_dict()
    {'fpr': [0.0, 0.5, 1.0], 'tpr': [0.0, 1.0, 1.0]}
    """

    fpr: tuple[float, ...]
    tpr: tuple[float, ...]

    def to_dict(self) -> dict[str, Any]:
        """Return the points as JSON-ready lists.

        Returns
        -------
        dict
            ``fpr`` and ``tpr`` as lists.
        """
        return {"fpr": list(self.fpr), "tpr": list(self.tpr)}


@dataclasses.dataclass(frozen=True)
class PrPoints:
    """Points of the precision-recall curve and the share of positives (its baseline).

    Parameters
    ----------
    precision, recall : tuple of float
        The curve's points.
    prevalence : float
        The share of positives: the precision of a classifier without skill.

    Examples
    --------
    >>> PrPoints(precision=(0.5, 1.0), recall=(1.0, 0.5), prevalence=0.5).to_dict()
    {'precision': [0.5, 1.0], 'recall': [1.0, 0.5], 'prevalence': 0.5}
    """

    precision: tuple[float, ...]
    recall: tuple[float, ...]
    prevalence: float

    def to_dict(self) -> dict[str, Any]:
        """Return the points as JSON-ready lists.

        Returns
        -------
        dict
            ``precision`` and ``recall`` as lists, and ``prevalence``.
        """
        return {"precision": list(self.precision), "recall": list(self.recall),
                "prevalence": self.prevalence}


@dataclasses.dataclass(frozen=True)
class Confusion:
    """The confusion matrix (rows true, columns predicted) and its labels as text.

    Parameters
    ----------
    labels : tuple of str
        The classes, as text, in the order of the rows and columns.
    matrix : tuple of tuple of int
        ``matrix[i][j]``: samples of class ``labels[i]`` predicted as ``labels[j]``.

    Examples
    --------
    >>> Confusion(labels=("0", "1"), matrix=((3, 1), (0, 4))).to_dict()
    {'labels': ['0', '1'], 'matrix': [[3, 1], [0, 4]]}
    """

    labels: tuple[str, ...]
    matrix: tuple[tuple[float, ...], ...]  # integers unless weighted

    def to_dict(self) -> dict[str, Any]:
        """Return the labels and the matrix as JSON-ready lists.

        Returns
        -------
        dict
            ``labels`` and ``matrix`` (a list of rows).
        """
        return {"labels": list(self.labels), "matrix": [list(r) for r in self.matrix]}


@dataclasses.dataclass(frozen=True)
class CalibrationPoints:
    """Per non-empty bin of predicted probability: its mean, the observed share of
    positives, the count, the interval of the share (``low``, ``high``) and the bin's
    edges (``bin_low``, ``bin_high``; the histogram of the predicted probabilities).
    See :func:`dartboard.evaluation.calibration_points`.

    Parameters
    ----------
    prob_pred, prob_true : tuple of float
        Mean predicted probability and observed share of positives per bin.
    counts : tuple of int
        Rows per bin.
    low, high : tuple of float
        Interval of the observed share (empty when not computed).
    bin_low, bin_high : tuple of float
        The bins' edges (empty when not computed).
    design_effect : tuple of float
        With clusters: each bin's clustered variance over the independent one (nan
        where a bin's share is 0 or 1); empty without.
    method : str
        With clusters: the interval's name (``"wilson-clustered (40 clusters)"``);
        empty without (Wilson).

    Examples
    --------
    >>> CalibrationPoints(prob_pred=(0.2, 0.8), prob_true=(0.25, 0.75),
    ...                   counts=(4, 4)).to_dict()["counts"]
    [4, 4]
    """

    prob_pred: tuple[float, ...]
    prob_true: tuple[float, ...]
    counts: tuple[int, ...]
    low: tuple[float, ...] = ()
    high: tuple[float, ...] = ()
    bin_low: tuple[float, ...] = ()
    bin_high: tuple[float, ...] = ()
    design_effect: tuple[float, ...] = ()
    method: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as JSON-ready lists (and ``method``, with clusters).

        Returns
        -------
        dict
            Field name -> list of values; ``design_effect`` and ``method`` only with
            clusters.
        """
        out: dict[str, Any] = {f.name: list(getattr(self, f.name))
                               for f in dataclasses.fields(self)
                               if f.name not in ("design_effect", "method")}
        if self.method:
            out.update(design_effect=[None if math.isnan(v) else v
                                      for v in self.design_effect], method=self.method)
        return out


@dataclasses.dataclass(frozen=True)
class ErrorPoints:
    """Sorted regression errors (a quantile grid for large inputs) and a summary:
    ``(quantity, value)`` pairs of error quantiles and absolute-error quantiles.

    Parameters
    ----------
    errors : tuple of float
        Sorted errors ``y_true - y_pred``.
    summary : tuple of (str, float)
        Named quantiles of the errors and of the absolute errors.

    Examples
    --------
    >>> ErrorPoints(errors=(-1.0, 0.0, 2.0), summary=(("median", 0.0),)).errors
    (-1.0, 0.0, 2.0)
    """

    errors: tuple[float, ...]
    summary: tuple[tuple[str, float], ...]


@dataclasses.dataclass(frozen=True)
class FitPoints:
    """The predicted-vs-actual and residual figures' points of a regression, in
    increasing order of prediction (at most a thousand, evenly spaced in that order;
    ``dartboard.evaluation._points.fit_points``).

    Parameters
    ----------
    predicted, actual : tuple of float
        Predictions and true values, in increasing order of prediction.
    residual : tuple of float
        ``actual - predicted``.

    Examples
    --------
    >>> FitPoints(predicted=(1.0, 2.0), actual=(1.5, 1.5), residual=(0.5, -0.5)).to_dict()
    {'predicted': [1.0, 2.0], 'actual': [1.5, 1.5], 'residual': [0.5, -0.5]}
    """

    predicted: tuple[float, ...]
    actual: tuple[float, ...]
    residual: tuple[float, ...]

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as JSON-ready lists.

        Returns
        -------
        dict
            Field name -> list of values.
        """
        return {f.name: list(getattr(self, f.name)) for f in dataclasses.fields(self)}


@dataclasses.dataclass(frozen=True)
class Streamed:
    """Where the rows of a streamed evaluation came from
    (:func:`dartboard.scale.evaluate_parquet`, :func:`dartboard.scale.evaluate_dask`).

    Attributes
    ----------
    source : {"parquet", "dask", "spark"}
    n_rows : int
        Rows read.
    n_files : int
        Parquet files read, or partitions reduced (a Dask DataFrame).
    mode : {"exact", "binned"}
        ``"binned"``: ROC AUC and AP come from fixed score bins (``exact=False``),
        each within the ``error_bound`` of its row.
    unit : {"Parquet file", "Dask partition"}
        What ``n_files`` counts.
    left_out : tuple of (str, str)
        ``(metric, why)``: each metric :func:`dartboard.evaluate` reports by default
        for the same columns that the streamed evaluation does not (a state that
        needs other columns, or the rows), and what would give it.
    """

    source: str
    n_rows: int
    n_files: int
    mode: str
    unit: str = "Parquet file"
    left_out: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["left_out"] = [{"metric": m, "why": why} for m, why in self.left_out]
        return out

    def left_out_lines(self) -> list[str]:
        """One line per reason: ``"accuracy, f1: needs predicted labels: ..."``."""
        by_why: dict[str, list[str]] = {}
        for metric, why in self.left_out:
            by_why.setdefault(why, []).append(metric)
        return [f"{', '.join(metrics)}: {why}" for why, metrics in by_why.items()]


@dataclasses.dataclass(frozen=True)
class EvaluationResult:
    """Every applicable metric with its interval, and the points of the figures.

    Parameters
    ----------
    task : str
        ``binary``, ``multiclass`` or ``regression``.
    n : int
        Number of rows evaluated.
    model : str or None
        A name for the predictions, shown in tables and legends.
    metrics : tuple of MetricRow
        One row per metric, over all rows.
    groups : tuple of MetricRow or None
        The rows of every group (``group`` set), when groups were given.
    classes : tuple or None
        The labels (classification), sorted.
    positive_label : object or None
        The positive class (binary).
    confusion : Confusion or None
        The confusion matrix (classification), or None.
    roc, pr : RocPoints, PrPoints or None
        Binary tasks given scores or probabilities.
    calibration : CalibrationPoints or None
        Binary tasks given probabilities.
    errors : ErrorPoints or None
        Regression.
    fit : FitPoints or None
        Regression: the points of the predicted-vs-actual and residual figures.
    group_columns : tuple of str or None
        The names of the group columns, when groups were given.
    group_keys : tuple of tuple or None
        Per group (in the order of ``groups``' rows), its value in each group column.
    operating_point, roc_band, pr_band : dict or None
        Binary tasks given scores, when asked for: the threshold chosen by a
        criterion with its metrics and intervals (:func:`dartboard.select_threshold`),
        and pointwise confidence bands of the two curves.
    streamed : Streamed or None
        A streamed evaluation: its source, rows, files and score mode. Streamed
        evaluations keep states, not rows: their curves come from the states' distinct
        scores, and they have no calibration or error points.
    assumptions : tuple of Assumption
        What the evaluation decided without being told (the task, the positive
        class, where labels were cut from scores), each with its reason; empty when
        everything was given.
    n_clusters : int or None
        The clusters the rows came in (``clusters=``, a streamed ``cluster`` column):
        every interval is then clustered; None for independent rows.

    Examples
    --------
    >>> from dartboard import evaluate
    >>> result = evaluate([0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1, 1, 1],
    ...                   random_state=0).result
    >>> result.task, result.n, [row.metric for row in result.metrics][:3]
    ('binary', 8, ['accuracy', 'balanced_accuracy', 'precision'])
    """

    task: str
    n: int
    model: str | None
    metrics: tuple[MetricRow, ...]
    groups: tuple[MetricRow, ...] | None = None
    classes: tuple[Any, ...] | None = None
    positive_label: Any = None
    confusion: Confusion | None = None
    roc: RocPoints | None = None
    pr: PrPoints | None = None
    calibration: CalibrationPoints | None = None
    errors: ErrorPoints | None = None
    group_columns: tuple[str, ...] | None = None
    group_keys: tuple[tuple[Any, ...], ...] | None = None
    operating_point: dict[str, Any] | None = None

    @property
    def grouping(self) -> tuple[tuple[MetricRow, ...], tuple[str, ...], tuple[tuple[Any, ...], ...]]:
        """(groups, group_columns, group_keys) of a grouped evaluation."""
        assert self.groups is not None and self.group_columns is not None \
            and self.group_keys is not None, "a grouped evaluation"
        return self.groups, self.group_columns, self.group_keys
    roc_band: dict[str, Any] | None = None
    pr_band: dict[str, Any] | None = None
    streamed: Streamed | None = None
    fit: FitPoints | None = None
    assumptions: tuple[Assumption, ...] = ()
    n_clusters: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON section of ``results.json`` and ``dartboard evaluate --json``.

        Returns
        -------
        dict
            Task, size, model, metric rows, groups and the points of the figures.
        """
        out: dict[str, Any] = {"task": self.task, "n": self.n, "model": self.model}
        if self.n_clusters is not None:
            out["n_clusters"] = self.n_clusters
        if self.assumptions:
            out["assumptions"] = {a.what: {"value": a.value, "why": a.why}
                                  for a in self.assumptions}
        if self.streamed is not None:
            out["streamed"] = self.streamed.to_dict()
        if self.task == "regression":
            out["metrics"] = [r.to_dict() for r in self.metrics]
            if self.errors is not None:
                out["errors"] = list(self.errors.errors)
                out["error_summary"] = [{"quantity": q, "value": v}
                                        for q, v in self.errors.summary]
            if self.fit is not None:
                out["fit"] = self.fit.to_dict()
        else:
            out.update(classes=None if self.classes is None else list(self.classes),
                       positive_label=self.positive_label,
                       metrics=[r.to_dict() for r in self.metrics])
            if self.confusion is not None:
                out["confusion"] = self.confusion.to_dict()
            for key in ("roc", "pr", "calibration"):
                if getattr(self, key) is not None:
                    out[key] = getattr(self, key).to_dict()
            for key in ("operating_point", "roc_band", "pr_band"):
                if getattr(self, key) is not None:
                    out[key] = getattr(self, key)
        if self.groups is not None:
            out["group_columns"] = list(self.group_columns or ("group",))
            out["groups"] = [r.to_dict() for r in self.groups]
        return out
