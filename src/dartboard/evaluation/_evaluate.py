"""``dartboard.evaluate()``: the front door.

Every kind of data comes in here: arrays (scikit-learn's form), a data frame of
any library narwhals reads, Parquet files, a Dask DataFrame. A table and its
column names is read by :mod:`dartboard._frames`; the in-memory columns take the
arrays' route (:func:`dartboard.evaluation._engine.prepare`, then the family
states and the one finalize); Parquet files and Dask partitions become the same
family states batch by batch (:mod:`dartboard.evaluation._parquet`,
:mod:`dartboard.evaluation._dask`) and meet the same finalize. So a table gives the
numbers its arrays give, for the same seed, whatever the source.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dartboard._frames import read_columns, source_kind
from dartboard._kernels._methods import IntervalMethod
from dartboard._progress import takes_progress
from dartboard._rng import RandomStateLike, child, seed_sequence
from dartboard._typing import Task
from dartboard._validation import describe
from dartboard.evaluation._engine import build_result, prepare
from dartboard.evaluation._evaluation import Evaluation
from dartboard.evaluation._options import EvaluationOptions, options_from
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["evaluate"]


@takes_progress
def evaluate(data: Any = None, y_pred: Any = None, *,
             y_true: Any = None,
             y_score: Any = None, y_proba: Any = None,
             threshold: float | None = None, task: Task = "auto", metrics: Any = None,
             groups: Any = None, sample_weight: Any = None, ci: IntervalMethod = "auto",
             confidence_level: float = 0.95,
             n_resamples: int = 2000, random_state: RandomStateLike = None,
             pos_label: Any = None, threshold_criterion: str | None = None,
             threshold_target: float | None = None, curve_bands: bool = False,
             model: str | None = None, clusters: Any = None,
             options: EvaluationOptions | None = None,
             progress: bool | None = None) -> Evaluation:
    """How good are these predictions: every applicable metric with its confidence
    interval, overall, per group and between groups.

    Two forms, one result. Arrays: ``evaluate(y_true, y_pred, y_score=...,
    groups=...)``, as scikit-learn's metrics take them. A table and its column
    names: ``evaluate(data, y_true="label", y_score="score", groups="region",
    clusters="patient", sample_weight="w")``, where ``data`` is a data frame of any
    library narwhals reads (pandas, Polars, PyArrow, Modin, cuDF; a lazy Polars
    frame is collected on the named columns only), Parquet files (a path, a
    directory, a glob or a list of them: streamed in bounded memory by
    :func:`dartboard.scale.evaluate_parquet`), a Dask DataFrame (partition by
    partition, :func:`dartboard.scale.evaluate_dask`) or a Spark DataFrame, classic
    or Spark Connect (partition by partition on the cluster,
    :func:`dartboard.scale.evaluate_spark`). Every source gives the same
    rows, intervals and gaps for the same seed: the columns become the same family
    states, finalized once.

    Parameters
    ----------
    data : array-like of shape (n_samples,), data frame, path, Dask or Spark DataFrame
        The true labels or values (the arrays form; ``y_true`` may be given by
        keyword instead), or, when ``y_true`` names a column, the table that holds
        the columns named by ``y_true``, ``y_pred``, ``y_score``, ``y_proba``,
        ``groups``, ``clusters`` and ``sample_weight``. Streamed sources (Parquet,
        Dask, Spark) take the evaluation options of :func:`dartboard.scale.evaluate_parquet`,
        ``threshold`` included; a threshold criterion or target and curve bands need
        an in-memory table.
    y_true : array-like of shape (n_samples,) or str, optional
        True labels (classification) or values (regression), when not given as
        ``data``; with a table as ``data``, the name of its column.
    y_pred : array-like of shape (n_samples,) or str, optional
        Predicted labels, or predicted values for regression. With ``y_score`` or
        ``y_proba`` too, the labels feed the count metrics (accuracy, precision,
        ...) and the scores the ranking and probability metrics: a tuned threshold
        or a cost-based cut, and the AUC of the scores, in one evaluation.
    y_score : array-like of shape (n_samples,) or str, optional
        Binary tasks: scores or probabilities of the positive class. Without
        ``y_pred``, labels are ``y_score >= threshold``; without a threshold, 0.5
        for scores in [0, 1] and 0 for scores on both sides of 0 (other scores
        need ``threshold`` or ``y_pred`` for the count metrics). Scores passed as
        ``y_pred`` (``evaluate(y, model.predict_proba(X)[:, 1])``) are refused.
    y_proba : array-like of shape (n_samples, n_classes), optional
        Probabilities, one column per class in sorted label order (float32 rows
        checked in float32's tolerance); labels are the most probable class
        unless ``y_pred`` (or, binary, ``threshold``) gives them. Give ``y_score``
        or ``y_proba``, not both. With a table as ``data``: a list of column names
        (classes in sorted order) or a dict class label -> column name.
    threshold : float, optional
        Binary scores (``y_score``, or the positive column of ``y_proba``): the
        labels are ``score >= threshold``. Not with ``y_pred``.
    task : {"auto", "binary", "multiclass", "regression"}, default="auto"
        ``"auto"`` decides from the columns and refuses where they leave it in
        doubt: non-integer ``y_pred`` beside a ``y_true`` of at most ten distinct
        integers is refused (pass ``y_score=``, or ``task="regression"``).
    metrics : None, str, callable or list of them
        None: every metric the registry reports for the task that the given columns
        feed (ranking metrics need scores, log loss probabilities). Names are
        dartboard's (``"f1"``, ``"f1_score"``, ``"roc_auc"``...); a callable
        ``f(y_true, y_pred, sample_weight=None)`` of your own gets the labels (or
        values) and a bootstrap interval.
    groups : array-like, Series, DataFrame, dict or list of columns, optional
        One group column, or several: their observed combinations are the groups
        (fairlearn's multiple sensitive features). A list of arrays or Series is a
        list of columns (a 2-D array is one row per sample). Missing values are an
        error. With a table as ``data``: a column name or a list of them.
    sample_weight : array-like of shape (n_samples,) or str, optional
        A non-negative weight per row (a column name with a table as ``data``):
        every metric, interval and gap weighs the rows by it, as scikit-learn's
        ``sample_weight`` does.
    ci : str, default="auto"
        Interval method: ``"auto"`` (the registry's choice per metric), a proportion
        method (``"wilson"``, ``"wald"``, ``"clopper-pearson"``, ``"agresti-coull"``,
        ``"jeffreys"``), ``"delong"``, ``"bin-pivot"`` (the calibration error, its
        default) or a bootstrap method (``"percentile"``, ``"basic"``, ``"bca"``);
        a method that does not apply to a metric leaves that metric on its default.
    confidence_level : float, default=0.95
        The confidence level of every interval (between 0 and 1).
    n_resamples : int, default=2000
        Bootstrap resamples, for the rows and for the gaps between groups.
    random_state : None, int, SeedSequence or Generator
        The same seed gives the same numbers.
    pos_label : label, optional
        The positive class of a binary task. Default: 1 for labels among {0, 1} or
        {-1, 1} (scikit-learn's rule); other labels (strings, {1, 2}) need it for
        every number that depends on it (precision, recall, F1, the rates, the
        ranking and probability metrics, scores of one class).
    threshold_criterion, threshold_target : optional
        Binary scores: the operating point chosen by this criterion of
        :func:`dartboard.select_threshold` (``"youden"``, ``"closest_topleft"``,
        ``"cost"``, ``"min_precision"``, ``"min_recall"``, ``"max_fpr"``), with
        intervals that cover the chosen threshold's true rates; shown in the
        evaluation's repr, notebook view and report, and as the table
        :attr:`Evaluation.operating_point`. ``threshold_target`` is the bound of
        the three constrained criteria and needs one of them.
    curve_bands : bool, default=False
        Binary scores: pointwise confidence bands of the ROC and PR curves.
    model : str, optional
        A name for the predictions, carried by the evaluation: shown in its table,
        notebook view and report, in its JSON, and the MLflow run's name.
    clusters : array-like of shape (n_samples,) or str, optional
        The cluster of each row (a patient, a user, a benchmark passage) when rows of
        one cluster are not independent. Every interval is then clustered
        (``dartboard.interval(..., clusters=)``: ``ci="auto"`` takes the metric's
        cluster-robust interval, CR2 on small-sample degrees of freedom, from 2
        clusters on (``wilson-clustered`` for proportions), BCa over whole clusters
        for a metric without one, the clustered ``bin-pivot`` for the calibration
        error; ``"percentile"``, ``"basic"``, ``"bca"``, ``"wald-clustered"``,
        ``"wilson-clustered"``, ``"t-clustered"``, ``"delong-clustered"``,
        ``"delong-logit-clustered"``, ``"delta-clustered"`` and
        ``"jackknife-logit-clustered"`` may be asked for; below 30 clusters a
        :class:`~dartboard.exceptions.FewClustersWarning`, recorded in
        ``assumptions``), per group too, and each row reports its ``design_effect``
        (the clustered interval's variance over the independent-rows one's) and
        ``effective_n`` (``n`` over it, at most ``n``);
        a metric whose rows (its denominator; ROC AUC's positives or negatives) lie
        in one cluster, or whose clustered interval has zero width, keeps its
        estimate with an ``n/a`` method that says why. Cluster ids are identifiers:
        any hashable value (an integer, a string, 0.5, a tuple). The
        reliability diagram's points take the cluster-robust Wilson interval of
        each bin (``calibration.method``, ``calibration.design_effect``). The gaps
        between groups draw clusters once for all groups (a cluster may span
        groups). The operating point of ``threshold_criterion`` and the
        ``curve_bands`` are clustered too (:func:`dartboard.select_threshold`,
        :func:`dartboard.roc_band` and :func:`dartboard.pr_band` with
        ``clusters``). With a table as ``data``: the name of its column of cluster
        ids, for every source (``evaluate(path, clusters="patient", ...)``).
    options : EvaluationOptions, optional
        The evaluation options as one checked object
        (:class:`~dartboard.EvaluationOptions`), to ask every source the same; the
        option keywords (``task`` to ``model``, above) are then left at their
        defaults (a value given both ways is a ``TypeError`` naming it).
    progress : bool, optional
        A progress bar on standard error over long work (the rows of many groups or
        clusters, their resampling, the rows of streamed files). None (the default)
        shows it only when standard error is a terminal and the work lasts more than a
        second; True always; False never. Methods that resample again
        (:meth:`Evaluation.difference`, ...) take their own ``progress``.

    Returns
    -------
    Evaluation
        With ``assumptions``: what was decided without being told (the task, the
        positive class, where labels were cut from scores), each with its reason.

    See Also
    --------
    dartboard.Evaluation : The result: tables, plots, report, MLflow.
    dartboard.interval : One metric's interval.
    dartboard.compare_models : Is model A better than model B?
    dartboard.scale.evaluate_parquet : The same from Parquet files that do not fit in memory.
    dartboard.scale.evaluate_spark : The same from a Spark DataFrame.

    Examples
    --------
    >>> import dartboard
    >>> ev = dartboard.evaluate([0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1, 1, 1],
    ...                         metrics=["accuracy", "recall"], random_state=0)
    >>> row = ev.overall.loc["accuracy"]
    >>> float(row.estimate), round(float(row.low), 3), round(float(row.high), 3), row.method
    (0.75, 0.409, 0.929, 'wilson')
    >>> ev.metrics
    ['accuracy', 'recall']
    >>> ev.assumptions["task"]
    ('binary', 'y_true and y_pred hold 2 distinct labels')

    A table and its column names (here pandas; Polars, PyArrow, Parquet files and
    Dask give the same numbers):

    >>> import pandas as pd
    >>> df = pd.DataFrame({"label": [0, 1, 1, 0, 1, 0, 1, 1],
    ...                    "pred": [0, 1, 0, 0, 1, 1, 1, 1]})
    >>> ev = dartboard.evaluate(df, y_true="label", y_pred="pred",
    ...                         metrics=["accuracy", "recall"], random_state=0)
    >>> float(ev.overall.loc["accuracy", "low"]) == float(row.low)
    True
    """
    opts = options_from(locals(), options)  # every option checked, before any row
    if isinstance(y_true, str):  # column names: data is a source of rows
        kind = source_kind(data)
        if kind in ("parquet", "dask", "spark"):
            return _streamed(kind, data, locals(), opts)
        if kind != "table":
            raise _not_a_source(data, kind)
        columns = _table_columns(data, y_true=y_true, y_pred=y_pred, y_score=y_score,
                                 y_proba=y_proba, groups=groups, clusters=clusters,
                                 sample_weight=sample_weight)
        y_true, y_pred, y_score, y_proba, groups, clusters, sample_weight = (
            columns[k] for k in ("y_true", "y_pred", "y_score", "y_proba", "groups",
                                 "clusters", "sample_weight"))
    elif data is None:
        if y_true is None:
            raise InputTypeError("evaluate() needs the true labels or values: "
                                 "evaluate(y_true, y_pred, ...) or evaluate(data, "
                                 "y_true='column', ...)")
    elif y_true is not None:
        raise InputTypeError(f"y_true is given twice: as data ({describe(data)}) and as "
                             f"y_true={describe(y_true)}; with a table as data, y_true names "
                             "its column (a string)")
    else:
        y_true = data
    # the gaps' seed is taken first, so that rows given a Generator draw the same after it;
    # an int seed gives every row the numbers dartboard.interval gives with that seed
    root = seed_sequence(opts.random_state)
    plan = prepare(y_true, y_pred=y_pred, y_score=y_score, y_proba=y_proba, groups=groups,
                   sample_weight=sample_weight, clusters=clusters, options=opts)
    return Evaluation(*build_result(plan, opts.model, child(root, 1)), options=opts)


#: evaluate()'s columns that the streamed sources take under the same name (all)
_STREAMED = ("y_true", "y_pred", "y_score", "y_proba", "groups", "sample_weight",
             "clusters")


def _streamed(kind: str, data: Any, arguments: dict[str, Any],
              options: EvaluationOptions) -> Evaluation:
    """A Parquet, Dask or Spark source: its own streamed evaluation, the same options."""
    columns = {k: arguments[k] for k in _STREAMED}
    if kind != "spark":  # Spark shows its own progress, stage by stage
        columns["progress"] = arguments["progress"]
    if kind == "parquet":
        from dartboard.evaluation._parquet import evaluate_parquet

        return evaluate_parquet(data, **columns, options=options)
    if kind == "spark":
        from dartboard.evaluation._spark import evaluate_spark

        return evaluate_spark(data, **columns, options=options)
    from dartboard.evaluation._dask import evaluate_dask

    return evaluate_dask(data, **columns, options=options)


def _not_a_source(data: Any, kind: str | None) -> InputTypeError:
    return InputTypeError("y_true names a column, so data must be a table: a data frame "
                          "(pandas, Polars, PyArrow, ...), Parquet files (a path, a glob "
                          "or a list of them), a Dask or a Spark DataFrame; got "
                          f"{describe(data)}")


def _table_columns(data: Any, **roles: Any) -> dict[str, Any]:
    """The named columns of an in-memory table as the arrays form's arguments."""
    for role, value in roles.items():
        if value is not None and not isinstance(value, str) and \
                not (role in ("groups", "y_proba") and isinstance(value, (list, tuple, dict))):
            raise InputTypeError(f"{role} must name a column of data (a string) when y_true "
                                 f"does; got {describe(value)}")
    out = read_columns(data, roles)
    if isinstance(roles["groups"], str):  # keep the column's name for the group rows
        out["groups"] = {roles["groups"]: out["groups"]}
    elif isinstance(out["groups"], list):
        out["groups"] = dict(zip(roles["groups"], out["groups"]))
    proba = out["y_proba"]
    if isinstance(proba, dict):
        out["y_proba"] = _stacked_by_class(proba, out["y_true"])
    elif isinstance(proba, list):
        out["y_proba"] = np.column_stack(proba)
    return out


def _stacked_by_class(proba: dict[Any, np.ndarray], y_true: np.ndarray) -> np.ndarray:
    """Probability columns given per class label, in sorted label order; the labels
    must be those of ``y_true`` (a column per class, none left out)."""
    try:
        classes = sorted(proba)
    except TypeError:
        raise InputTypeError("y_proba's class labels must be of one orderable kind; got "
                             f"{list(proba)!r}") from None
    seen = set(np.unique(y_true).tolist()) if y_true.dtype.kind != "f" or \
        not np.isnan(y_true).any() else set()
    if seen - set(classes):
        raise InputError(f"y_proba names a column for the classes {classes!r}, but y_true "
                         f"also holds {sorted(seen - set(classes), key=str)!r}")
    return np.column_stack([proba[c] for c in classes])
