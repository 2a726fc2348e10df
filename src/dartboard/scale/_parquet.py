"""Streaming evaluation of Parquet files, batch by batch, in bounded memory."""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from dartboard._validation import check_int, describe, to_numpy
from dartboard.scale._evaluate import (
    MergeStack,
    Spec,
    bundle_from_columns,
    make_spec,
    spec_options,
    with_score_range,
)
from dartboard.scale._finalize import finalize

__all__ = ["evaluate_parquet"]

_GLOB_CHARS = set("*?[")


def evaluate_parquet(path_or_glob: Any, *, y_true: str, y_pred: str | None = None,
                     y_score: str | None = None, proba: Any = None,
                     metrics: Sequence[str] | None = None, batch_size: int = 1_000_000,
                     task: str = "auto", exact: bool = True,
                     n_bins: int = 100_000, score_range: tuple[float, float] | None = None,
                     relative_accuracy: float = 1e-3, sample_weight: str | None = None,
                     pos_label: Any = None, groups: str | Sequence[str] | None = None,
                     confidence_level: float | None = 0.95, ci_method: str = "auto",
                     n_resamples: int = 2000, random_state: Any = None,
                     model: str | None = None, progress: bool = False) -> Any:
    """Evaluate predictions stored in Parquet files without loading them into memory.

    Record batches of only the needed columns are streamed through mergeable
    states (:class:`~dartboard.metrics.ConfusionCounts`,
    :class:`~dartboard.metrics.ScoreState` or :class:`BinnedScoreState`,
    :class:`~dartboard.metrics.RegressionMoments`, :class:`QuantileSketch`);
    the metrics are computed from the merged states at the end. Merging the
    states of any split of the data equals one pass over all of it, so the
    values do not depend on ``batch_size`` or on how rows are spread over files.

    What is exact and what is bounded:

    * count metrics (accuracy, precision, ...): exact;
    * ROC AUC, average precision, PR AUC with ``exact=True``: exact, from the
      merged map of distinct scores (memory grows with the number of distinct
      scores, at most the number of rows);
    * ROC AUC and average precision with ``exact=False``: from ``n_bins`` fixed
      bins over ``score_range`` (default: the scores' range from the Parquet
      statistics, or one extra pass over the score column); memory is constant
      and ``error_bounds`` holds a guaranteed bound on ``|binned - exact|``
      (see :class:`BinnedScoreState`);
    * MSE, RMSE, MAE, R^2, explained variance, max error: exact (moments merged
      with Chan's formulas, so to rounding, about 1e-12 relative);
    * median absolute error and median absolute deviation: from a
      :class:`QuantileSketch` of the errors ``y_true - y_pred``; relative error
      at most ``relative_accuracy`` for the median absolute error, and a
      guaranteed bound for both in ``error_bounds``.

    Parameters
    ----------
    path_or_glob : str, os.PathLike or list of them
        A Parquet file, a directory (all Parquet files below it) or a glob
        pattern (``"preds/*.parquet"``, ``"**"`` allowed).
    y_true : str
        Column of true labels (classification) or values (regression).
    y_pred : str, optional
        Column of predicted labels or values.
    y_score : str, optional
        Column of scores of the positive class (binary ranking metrics).
    proba : list of str or dict, optional
        One probability column per class, instead of ``y_score``: a list
        (classes 0..K-1 in column order) or a dict class label -> column.
        Count metrics use the labels of ``y_pred`` when it is given too, else the
        most probable class; ROC AUC and average
        precision use the second column when K = 2 (its class is the positive
        one) and are one-vs-rest macro averages when K > 2 (binned mode on
        [0, 1] unless ``score_range`` is given; the bound is the mean of the
        per-class bounds); ``log_loss`` and ``brier_score_loss`` are exact.
    metrics : list of str, optional
        Metric names; default: every streaming metric of the task.
    batch_size : int
        Rows per record batch (memory is proportional to it).
    task : {"auto", "classification", "regression"}
        ``"auto"``: classification when ``y_score`` is given or the label columns
        are not floating point, regression otherwise; float columns of whole
        numbers only, or non-integer ``y_pred`` beside at most ten distinct whole
        numbers in ``y_true``, are refused once read (as :func:`dartboard.evaluate`
        refuses them).
    exact : bool
        ``False`` bins the scores (constant memory, bounded error).
    n_bins : int
        Number of score bins in binned mode.
    score_range : (float, float), optional
        Range of the bins in binned mode.
    relative_accuracy : float
        Accuracy ``alpha`` of the error sketch.
    sample_weight : str, optional
        Column of non-negative sample weights.
    pos_label : optional
        Positive class of a binary task, checked as in memory (a ``pos_label``
        that is not a label is the error ``precision_score`` raises). Default:
        1 for labels among {0, 1} and {-1, 1}; other labels need ``pos_label``,
        as in memory.
    groups : str or list of str, optional
        Group column(s): every metric per group too (intersections of several
        columns, as :func:`dartboard.evaluate`), with the gaps between groups and
        the fairness summaries. One set of states per group is kept (memory grows
        with the number of groups, not of rows). A missing value in a group
        column is an error, as in memory.
    confidence_level : float or None, default=0.95
        Intervals that need only the merged states (None: none). Count metrics:
        :func:`dartboard.uncertainty.interval_from_counts` on the merged counts,
        the method per metric chosen as :func:`dartboard.evaluate` chooses it
        (Wilson for proportions, BCa of the multinomial bootstrap otherwise), so
        the interval equals the in-memory one for the same seed (the same
        bootstrap distribution). ROC AUC (exact mode, binary): DeLong's interval
        from the score map by :func:`dartboard.uncertainty.interval_from_score_state`
        (to rounding as in memory). Calibration error: the bootstrap of its bins.
        Other metrics (AP, PR AUC, losses, regression metrics) keep no state an
        interval can come from: their ``method`` says so. The states are read as
        frequency counts: with non-integer ``sample_weight`` no interval is
        formed (with a warning); binned scores and multiclass ``proba`` give no
        AUC interval.
    ci_method : str, default="auto"
        As ``ci`` of :func:`dartboard.evaluate`: ``"auto"`` (the registry's
        choice per metric), a proportion method (``"wald"``, ``"wilson"``,
        ``"clopper-pearson"``, ``"agresti-coull"``, ``"jeffreys"``: the
        proportion metrics; the others keep their default), ``"delong"`` (ROC
        AUC) or a bootstrap method (``"percentile"``, ``"basic"``, ``"bca"``; ROC
        AUC then draws a multinomial over its distinct (score, class) cells).
    n_resamples : int, default=2000
        Bootstrap resamples, for the rows and for the gaps between groups
        (multinomial draws of confusion matrices, O(K^2) each per group, and of
        the score map; neither depends on the number of rows).
    random_state : None, int, SeedSequence or Generator
        Seed of the bootstrap: an int seed gives the intervals and the gaps'
        intervals :func:`dartboard.evaluate` gives with that seed.
    model : str, optional
        A name for the predictions, carried by the evaluation.
    progress : bool
        Show a progress bar over rows on standard error.

    Returns
    -------
    Evaluation
        The same object :func:`dartboard.evaluate` returns (``overall``,
        ``by_group``, ``difference()``, ``fairness()``, ``to_dict()``...), built
        from states: ``n_rows``, ``n_files``, ``error_bounds`` (per approximate
        metric, the bound on ``|estimate - exact|``; also each row's
        ``error_bound``), ``states`` (the merged states, to merge more data into
        later) and ``result.streamed`` (source, rows, files, score mode). No
        curve points (the report shows tables and the confusion matrix).

    Raises
    ------
    FileNotFoundError
        No file at the path, or no file matching the pattern (named).
    ValueError, TypeError
        A file without a needed column, with a column of another type than the
        first file, NaN or missing values, non-numeric scores: the message names
        the file and the column.

    Examples
    --------
    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq
    >>> folder = tempfile.mkdtemp()
    >>> for i in range(2):
    ...     table = pa.table({"label": [0, 1, 1, 0], "score": [0.1, 0.9, 0.4 + i, 0.6]})
    ...     pq.write_table(table, os.path.join(folder, f"part{i}.parquet"))
    >>> ev = evaluate_parquet(folder, y_true="label", y_score="score")
    >>> ev.n_rows, ev.n_files, float(ev.overall.loc["roc_auc", "estimate"])
    (8, 2, 0.875)
    """
    options = spec_options(locals())
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False; got {describe(progress)}")
    fragments, kinds = _open(path_or_glob, [c for c in (y_true, y_pred, y_score, sample_weight)
                                            if isinstance(c, str)])
    spec = make_spec(column_kinds=kinds, **options)
    _check_schemas(fragments, spec)
    if not spec.exact and spec.needs("scores") and spec.score_range is None:
        spec = _with_score_range(spec, fragments, batch_size)
    bar = None
    if progress:
        from dartboard._parallel import _Progress

        total = sum(f.metadata.num_rows for f in fragments)
        bar = _Progress(total, "evaluating")
    try:
        bundle = stream_fragments(fragments, spec, batch_size, bar)
    finally:
        if bar:
            bar.close()
    return finalize(spec, bundle, len(fragments), source="parquet", unit="Parquet file")


def stream_fragments(fragments: list[Any], spec: Spec, batch_size: int,
                     bar: Any = None) -> Any:
    """Merged states of all record batches of the files (errors name the file)."""
    stack = MergeStack()
    for fragment in fragments:
        source = f"file {fragment.path!r}"
        for batch in fragment.to_batches(columns=spec.columns, batch_size=batch_size):
            columns = {name: _column(batch, name, spec, source) for name in spec.columns}
            stack.push(bundle_from_columns(spec, columns, source))
            if bar:
                bar.advance(batch.num_rows)
    return stack.result()


# ------------------------------------------------------------------ files

def _expand(path_or_glob: Any) -> list[str]:
    """Parquet files named by a path, a directory, a glob or a list of them (sorted)."""
    if isinstance(path_or_glob, (list, tuple)):
        if not path_or_glob:
            raise ValueError("path_or_glob is an empty list; give at least one file")
        files: list[str] = []
        for item in path_or_glob:
            files.extend(_expand(item))
        return list(dict.fromkeys(files))
    if not isinstance(path_or_glob, (str, os.PathLike)):
        raise TypeError(f"path_or_glob must be a path, a glob pattern or a list of them; got "
                        f"{describe(path_or_glob)}")
    path = os.fspath(path_or_glob)
    if _GLOB_CHARS & set(path) and not os.path.exists(path):
        files = sorted(f for f in glob.glob(path, recursive=True) if os.path.isfile(f))
        if not files:
            raise FileNotFoundError(f"no files match the pattern {path!r}")
        return files
    if os.path.isdir(path):
        files = sorted(f for f in glob.glob(os.path.join(path, "**", "*"), recursive=True)
                       if os.path.isfile(f) and not os.path.basename(f).startswith(("_", "."))
                       and f.endswith((".parquet", ".parq", ".pq")))
        if not files:
            raise FileNotFoundError(f"no Parquet files (*.parquet, *.parq, *.pq) in the "
                                    f"directory {path!r}")
        return files
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file or directory: {path!r}")
    return [path]


def _open(path_or_glob: Any, wanted: list[str]) -> tuple[list[Any], dict[str, str]]:
    """Fragments of the files and the numpy dtype kind of the wanted columns (first file)."""
    import pyarrow.dataset as ds

    files = _expand(path_or_glob)
    try:
        dataset = ds.dataset(files, format="parquet")
    except Exception as exc:  # pyarrow raises ArrowInvalid for files that are not Parquet
        raise ValueError(f"could not open the Parquet files: {exc}") from None
    fragments = list(dataset.get_fragments())
    for fragment in fragments:
        try:
            fragment.physical_schema  # noqa: B018 - reads the footer: fails on non-Parquet
        except Exception as exc:
            raise ValueError(f"file {fragment.path!r} is not a readable Parquet file: "
                             f"{exc}") from None
    schema = fragments[0].physical_schema
    kinds = {name: _kind(schema.field(name).type) for name in wanted
             if schema.get_field_index(name) >= 0}
    return fragments, kinds


def _kind(arrow_type: Any) -> str:
    import pyarrow as pa

    if pa.types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    if pa.types.is_boolean(arrow_type):
        return "b"
    if pa.types.is_integer(arrow_type):
        return "i"
    if pa.types.is_floating(arrow_type) or pa.types.is_decimal(arrow_type):
        return "f"
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "U"
    return "O"


def _check_schemas(fragments: list[Any], spec: Spec) -> None:
    """Every file has every needed column, of a usable type, of the first file's kind."""
    roles = [(r, getattr(spec, r)) for r in ("y_true", "y_pred", "y_score", "sample_weight")
             if getattr(spec, r) is not None] + [("proba", c) for c in spec.proba or ()] + \
        [("groups", c) for c in spec.groups or ()]
    numeric = {"y_score", "sample_weight", "proba"} | ({"y_true", "y_pred"}
                                                       if spec.task == "regression" else set())
    first: dict[str, tuple[str, str]] = {}
    for fragment in fragments:
        schema = fragment.physical_schema
        for role, name in roles:
            if schema.get_field_index(name) < 0:
                raise ValueError(f"file {fragment.path!r} has no column {name!r} (given as "
                                 f"{role}); its columns are {schema.names}")
            arrow_type = schema.field(name).type
            kind = _kind(arrow_type)
            if role in numeric and kind not in "bif":
                raise TypeError(f"file {fragment.path!r}: {role} column {name!r} must be "
                                f"numeric; got {arrow_type}")
            if kind == "O":
                raise TypeError(f"file {fragment.path!r}: {role} column {name!r} has the "
                                f"unsupported type {arrow_type}")
            label_kind = "string" if kind == "U" else "number"
            if name not in first:
                first[name] = (label_kind, fragment.path)
            elif first[name][0] != label_kind:
                raise TypeError(f"file {fragment.path!r}: column {name!r} holds {label_kind}s "
                                f"({arrow_type}) but holds {first[name][0]}s in file "
                                f"{first[name][1]!r}; every file needs the same schema")


def _column(batch: Any, name: str, spec: Spec, source: str) -> np.ndarray:
    if spec.group_only(name):  # nulls included: the group encoder refuses them as in memory
        return batch.column(name).to_pandas().to_numpy()
    return to_numpy(batch.column(name), name=f"{source}: {spec.role_of(name)}")


def _with_score_range(spec: Spec, fragments: list[Any], batch_size: int) -> Spec:
    """The scores' range from the Parquet statistics, else from one pass over the column."""
    import pyarrow.compute as pc

    lows, highs = [], []
    for fragment in fragments:
        bounds = _statistics_range(fragment, spec.y_score)
        if bounds is None:
            for batch in fragment.to_batches(columns=[spec.y_score], batch_size=batch_size):
                mm = pc.min_max(batch.column(spec.y_score))
                if mm["min"].is_valid:
                    lows.append(float(mm["min"].as_py()))
                    highs.append(float(mm["max"].as_py()))
        elif bounds:
            lows.append(bounds[0])
            highs.append(bounds[1])
    return with_score_range(spec, min(lows) if lows else None, max(highs) if highs else None)


def _statistics_range(fragment: Any, column: str) -> tuple[float, float] | tuple[()] | None:
    """(min, max) of a column from the row-group statistics; () if empty; None if unknown."""
    metadata = fragment.metadata
    lows, highs = [], []
    for i in range(metadata.num_row_groups):
        row_group = metadata.row_group(i)
        if row_group.num_rows == 0:
            continue
        stats = next((row_group.column(j).statistics for j in range(row_group.num_columns)
                      if row_group.column(j).path_in_schema == column), None)
        if stats is None or not stats.has_min_max:
            return None
        lows.append(float(stats.min))
        highs.append(float(stats.max))
    return (min(lows), max(highs)) if lows else ()
