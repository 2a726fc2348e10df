"""Evaluation of a Dask DataFrame: one state per partition, reduced in a tree."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dartboard._kernels._methods import IntervalMethod
from dartboard._progress import Bar, asked, check_progress
from dartboard._typing import Task
from dartboard._validation import describe, to_numpy
from dartboard.evaluation._bundle import Bundle, merge_bundles
from dartboard.evaluation._options import EvaluationOptions
from dartboard.evaluation._parquet import _check_schemas, _open, stream_fragments
from dartboard.evaluation._parquet import _ranges as files_ranges
from dartboard.evaluation._stream import (
    Setup,
    Spec,
    bundle_from_columns,
    make_spec,
    named_columns,
    renamed_clusters,
    setup,
    spec_options,
)
from dartboard.evaluation._stream_finalize import finalize
from dartboard.exceptions import InputError, InputTypeError

if TYPE_CHECKING:
    from dartboard.evaluation._evaluation import Evaluation

__all__ = ["evaluate_dask"]


def _import_dask() -> tuple[Any, Any]:
    try:
        import dask
        import dask.dataframe as dd
    except ImportError:
        raise ImportError('evaluate_dask needs the optional Dask extra: pip install '
                          '".[dask]" in a clone of dartboard') from None
    return dask, dd


def evaluate_dask(ddf_or_path: Any, *, y_true: str, y_pred: str | None = None,
                  y_score: str | None = None, y_proba: Sequence[str] | Mapping[Any, str] | None = None,
                  task: Task = "auto",
                  metrics: Any = None, groups: str | Sequence[str] | None = None,
                  sample_weight: str | None = None, ci: IntervalMethod = "auto",
                  confidence_level: float | None = 0.95, n_resamples: int = 2000,
                  random_state: Any = None, pos_label: Any = None,
                  model: str | None = None, exact: bool = True, n_bins: int = 100_000,
                  score_range: tuple[float, float] | None = None,
                  relative_accuracy: float = 1e-3, split_every: int = 8,
                  scheduler: Any = None, clusters: str | None = None,
                  threshold: float | None = None, threshold_criterion: str | None = None,
                  threshold_target: float | None = None, curve_bands: bool = False,
                  cluster: str | None = None, progress: bool | None = None,
                  options: EvaluationOptions | None = None) -> Evaluation:
    """Evaluate a Dask DataFrame (or Parquet files read with Dask) partition by partition.

    Each partition becomes one set of mergeable states on a worker; the states
    are merged in a tree of fan-in ``split_every`` and the metrics computed from
    the root, exactly as :func:`evaluate_parquet` computes them from its batches:
    the same keywords, the same :class:`~dartboard.Evaluation` (the one
    :func:`dartboard.evaluate` returns), the same numbers (exact for counts and
    exact AUC, to rounding for moments, within the reported bounds for the binned
    and sketched metrics). With ``groups``, each partition keeps one set of states
    per group it holds; the groups' states merge in the same tree. With ``clusters``,
    one set per (group, cluster), keyed by the cluster id, so a cluster's rows in
    several partitions meet: the clustered intervals, design effects and gaps of
    :func:`evaluate_parquet` (memory as there: per cluster, not per row).

    Parameters
    ----------
    ddf_or_path : dask.dataframe.DataFrame, str, os.PathLike or list of them
        A Dask DataFrame, or Parquet files (a file, a directory, a glob) read with
        ``dask.dataframe.read_parquet`` (columns checked file by file first;
        a value error in a partition, such as NaN scores, is traced back to its
        file, which the error then names).
    y_true, y_pred, y_score, y_proba, task, metrics, groups, sample_weight, ci, \
confidence_level, n_resamples, random_state, pos_label, model, exact, n_bins, \
score_range, relative_accuracy, clusters, cluster, threshold, threshold_criterion, \
threshold_target, curve_bands, options
        As in :func:`evaluate_parquet`. With ``y_score``, the range of the scores and
        of the labels is computed by Dask first (one extra pass over two columns).
    split_every : int
        Fan-in of the reduction tree.
    scheduler : str or distributed.Client, optional
        ``None`` uses Dask's default (the current ``distributed.Client`` if one
        exists); a scheduler name ("threads", "processes", "synchronous") or a
        ``distributed.Client`` to run on.
    progress : bool, optional
        A progress bar over the partitions, on standard error (with Dask's local
        schedulers; a ``distributed.Client`` has its own dashboard). None (the
        default) shows it when standard error is a terminal and the work lasts more
        than a second; True always; False never.

    Returns
    -------
    Evaluation
        As :func:`evaluate_parquet`; ``n_files`` is the number of files for path
        input, the number of partitions for a DataFrame.

    Raises
    ------
    ImportError
        Dask is not installed (``pip install ".[dask]"`` in a clone of dartboard).

    See Also
    --------
    dartboard.scale.evaluate_parquet : The same from Parquet files.
    dartboard.evaluate : The same in memory.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> frame = pd.DataFrame({"label": [0, 1, 1, 0, 1, 0], "pred": [0, 1, 0, 0, 1, 1]})
    >>> ev = evaluate_dask(dd.from_pandas(frame, npartitions=3), y_true="label",
    ...                    y_pred="pred", metrics=["accuracy"])
    >>> float(ev.overall.loc["accuracy", "estimate"]), ev.n_files
    (0.6666666666666666, 3)
    >>> import warnings
    >>> from dartboard.exceptions import FewClustersWarning
    >>> frame["user"] = [1, 2, 3, 1, 2, 3]
    >>> with warnings.catch_warnings(record=True) as caught:  # 3 clusters are few
    ...     warnings.simplefilter("always")
    ...     ev = evaluate_dask(dd.from_pandas(frame, npartitions=3), y_true="label",
    ...                        y_pred="pred", metrics=["accuracy"], clusters="user",
    ...                        random_state=0)
    >>> any(issubclass(w.category, FewClustersWarning) for w in caught)
    True
    >>> ev.overall.loc["accuracy", "method"]
    'wilson-clustered (3 clusters)'
    """
    args = spec_options(locals())
    args["clusters"] = cluster = renamed_clusters(clusters, cluster)
    progress = check_progress(progress)
    dask, dd = _import_dask()
    from dartboard._validation import check_int

    split_every = check_int(split_every, "split_every", minimum=2)
    if scheduler is not None and not isinstance(scheduler, str) \
            and type(scheduler).__name__ != "Client":
        raise InputTypeError(f"scheduler must be None, a scheduler name or a distributed.Client; "
                             f"got {describe(scheduler)}")
    wanted = named_columns(y_true, y_pred, y_score, sample_weight, cluster, groups=groups,
                           y_proba=y_proba)
    path_input = isinstance(ddf_or_path, (str, os.PathLike, list, tuple))
    fragments, kinds = _source_kinds(ddf_or_path, wanted, cluster, dd, path_input)
    spec = make_spec(column_kinds=kinds, **args)
    if fragments is not None:
        _check_schemas(fragments, spec)
        ddf = dd.read_parquet([f.path for f in fragments], columns=spec.columns)
        n_files = len(fragments)
        # the Parquet statistics usually give the ranges without a pass
        plan = setup(spec, **files_ranges(spec, fragments, 1_000_000))
    else:
        ddf = ddf_or_path[spec.columns]
        n_files = ddf.npartitions
        plan = setup(spec, **_ranges(spec, ddf, dask, scheduler))
    bundle = _tree_bundle(plan, ddf, dask, scheduler, split_every, progress, fragments)
    unit = "Parquet file" if path_input else "Dask partition"
    with asked(progress):
        return finalize(plan, bundle, n_files, source="dask", unit=unit, data=ddf_or_path)


def _source_kinds(ddf_or_path: Any, wanted: list[str], cluster: str | None, dd: Any,
                  path_input: bool) -> tuple[list[Any] | None, dict[str, str]]:
    """(the Parquet fragments, or None for a Dask DataFrame; each wanted column's numpy
    dtype kind), the columns checked to exist."""
    if path_input:
        return _open(ddf_or_path, wanted)
    if not isinstance(ddf_or_path, dd.DataFrame):
        raise InputTypeError(f"ddf_or_path must be a dask DataFrame or a path/glob of "
                             f"Parquet files; got {describe(ddf_or_path)}")
    missing = [c for c in wanted if c not in ddf_or_path.columns]
    if missing:
        given = "" if cluster not in missing else f" (clusters={cluster!r})"
        raise InputError(f"the Dask DataFrame has no column(s) {missing}{given}; its "
                         f"columns are {list(ddf_or_path.columns)}")
    return None, {c: ddf_or_path.dtypes[c].kind if hasattr(ddf_or_path.dtypes[c], "kind")
                  else "O" for c in wanted}


def _tree_bundle(plan: Setup, ddf: Any, dask: Any, scheduler: Any, split_every: int,
                 progress: Any, fragments: list[Any] | None) -> Bundle:
    """The partitions' states merged in a tree of fan-in ``split_every``. A value
    error in a partition of Parquet ``fragments`` is raised again naming its file."""
    parts = ddf.to_delayed()
    bundle_of = dask.delayed(_partition_bundle, pure=True)
    level = [bundle_of(plan, part, i) for i, part in enumerate(parts)]
    merge = dask.delayed(_merge_all, pure=True)
    while len(level) > 1:
        level = [merge(plan, level[i:i + split_every])
                 for i in range(0, len(level), split_every)]
    root = level[0] if level else dask.delayed(Bundle)()
    try:
        with Bar(len(parts), f"reading {len(parts)} partitions", progress=progress) as bar:
            (bundle,) = _compute(dask, [root], scheduler, bar)
    except (ValueError, TypeError, OSError):
        if fragments is None:
            raise
        # A partition does not know its file: find the file by streaming, which
        # raises the same error naming it (only on this failure path; a page that
        # cannot be read is an OSError from pyarrow there, a ValueError naming the
        # file here).
        try:
            stream_fragments(fragments, plan, 1_000_000)
        except (ValueError, TypeError) as named:
            raise named from None
        raise
    return bundle


def _compute(dask: Any, objs: list[Any], scheduler: Any, bar: Bar | None = None) -> list[Any]:
    if scheduler is not None and type(scheduler).__name__ == "Client":
        return scheduler.gather(scheduler.compute(objs))
    if bar is None:
        return list(dask.compute(*objs, scheduler=scheduler))
    from dask.callbacks import Callback

    def finished(key: Any, *_: Any) -> None:  # a partition's states are ready
        name = key[0] if isinstance(key, tuple) else key
        if str(name).startswith(_partition_bundle.__name__):
            bar.advance()

    with Callback(posttask=finished):
        return list(dask.compute(*objs, scheduler=scheduler))


def _ranges(spec: Spec, ddf: Any, dask: Any, scheduler: Any) -> dict[str, Any]:
    """The range of the scores and of the labels (see ``_parquet._ranges``)."""
    if spec.y_score is None:
        return {}
    score, label = ddf[spec.y_score], ddf[spec.y_true]
    low, high, first, last = _compute(dask, [score.min(), score.max(), label.min(),
                                             label.max()], scheduler)
    scores = None if low != low else (float(low), float(high))
    labels = None if first is None or first != first else (first, last)
    return {"scores": scores, "labels": labels}


def _partition_bundle(plan: Setup, frame: Any, index: int) -> Bundle:
    """States of one pandas partition (runs on a worker)."""
    spec = plan.spec
    source = f"partition {index}"
    try:
        # a group column is read as is: the group encoder refuses missing values as in memory
        columns = {name: frame[name].to_numpy() if spec.group_only(name)
                   else to_numpy(frame[name], name=spec.role_of(name)) for name in spec.columns}
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{source}: {exc}") from None
    return bundle_from_columns(plan, columns, source)


def _merge_all(plan: Setup, bundles: list[Bundle]) -> Bundle:
    return merge_bundles(bundles, plan.planned)
