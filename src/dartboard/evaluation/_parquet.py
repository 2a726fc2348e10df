"""Streaming evaluation of Parquet files, batch by batch, in bounded memory."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dartboard._files import expand
from dartboard._kernels._methods import IntervalMethod
from dartboard._progress import Bar, asked, check_progress
from dartboard._rng import RandomStateLike
from dartboard._typing import Task
from dartboard._validation import check_int, to_numpy
from dartboard.evaluation._bundle import MergeStack
from dartboard.evaluation._options import EvaluationOptions
from dartboard.evaluation._stream import (
    Setup,
    Spec,
    bundle_from_columns,
    make_spec,
    renamed_clusters,
    setup,
    spec_options,
)
from dartboard.evaluation._stream_finalize import finalize
from dartboard.exceptions import FileFormatError, InputError, InputTypeError

if TYPE_CHECKING:
    from dartboard.evaluation._evaluation import Evaluation

__all__ = ["evaluate_parquet"]

#: pyarrow's largest batch size (a C int); a larger one asks for no more than this
#: does: each row group in one batch
_MAX_BATCH = 2**31 - 1


def evaluate_parquet(path_or_glob: Any, *, y_true: str, y_pred: str | None = None,
                     y_score: str | None = None, y_proba: Sequence[str] | Mapping[Any, str] | None = None,
                     task: Task = "auto",
                     metrics: Any = None, groups: str | Sequence[str] | None = None,
                     sample_weight: str | None = None, ci: IntervalMethod = "auto",
                     confidence_level: float | None = 0.95, n_resamples: int = 2000,
                     random_state: RandomStateLike = None, pos_label: Any = None,
                     model: str | None = None, batch_size: int = 1_000_000,
                     exact: bool = True, n_bins: int = 100_000,
                     score_range: tuple[float, float] | None = None,
                     relative_accuracy: float = 1e-3, progress: bool | None = None,
                     clusters: str | None = None, threshold: float | None = None,
                     threshold_criterion: str | None = None,
                     threshold_target: float | None = None, curve_bands: bool = False,
                     cluster: str | None = None,
                     options: EvaluationOptions | None = None) -> Evaluation:
    """Evaluate predictions stored in Parquet files without loading them into memory.

    :func:`dartboard.evaluate` on the rows of the files, streamed: record batches of
    only the needed columns become the family states of the in-memory evaluation
    (``dartboard.families``), which merge; the rows, intervals, group rows, gaps
    and fairness summaries come from the merged states by the in-memory
    evaluation's own finalize. The same metrics, estimates and intervals as
    ``dartboard.evaluate`` on the concatenated rows for the same ``random_state``,
    whatever ``batch_size`` and however the rows are spread over files.

    Memory: the confusion counts and calibration bins are small; the exact map of
    distinct scores grows with the distinct scores; the cells of per-sample losses,
    regression rows and errors are kept up to
    :data:`~dartboard.families._means.MAX_CELLS` distinct values, beyond which only
    their sums (the ``t`` interval of a mean, no bootstrap) or a quantile sketch (the
    median errors, with a bound) remain. ``exact=False`` bins the scores instead
    (constant memory, estimates with a guaranteed bound in ``error_bounds``, no
    interval).

    Rows in clusters (``clusters``, a column of ids: a patient, a user, a passage):
    each group's states are kept per cluster too, keyed by the id's value, so rows of
    one cluster in several files or batches meet; the intervals are
    :func:`dartboard.evaluate`'s with ``clusters=`` (``ci="auto"``: the cluster-robust
    interval from 2 clusters on, else BCa over whole clusters; a
    ``FewClustersWarning`` below 30), with the
    ``design_effect`` and ``effective_n`` columns, and the gaps between groups draw
    the clusters once for all groups -- the same numbers for the same seed. Memory
    is then one state per (group, cluster): O(clusters x K^2) for labels, not the
    rows; for continuous scores each cluster's distinct (score, label) cells, and for
    mean losses and regression each cluster's distinct values (so, for continuous
    values, up to the rows: the exact bootstrap of whole clusters draws them). The
    calibration error takes its clustered bin-pivot, the design effect read from the
    clusters' bin sums; its bootstrap of whole clusters (``ci="bca"``, and the gaps
    between groups) needs the rows, so there it keeps its estimate without interval.

    Parameters
    ----------
    path_or_glob : str, os.PathLike or list of them
        A Parquet file, a directory (all Parquet files below it) or a glob
        pattern (``"preds/*.parquet"``, ``"**"`` allowed). Each file is read
        once, however many names reach it (links, a list naming it twice); a
        directory link back to a directory above it is refused.
    y_true, y_pred, y_score, sample_weight : str
        Columns of true labels or values, of predicted labels or values, of scores of
        the positive class, of sample weights (as :func:`dartboard.evaluate`'s
        arrays). ``y_pred`` and ``y_score`` together: labels feed the count metrics,
        scores the ranking and probability metrics.
    y_proba : list of str or dict, optional
        One probability column per class, instead of ``y_pred``/``y_score``: a list
        (classes 0..K-1 in column order) or a dict class label -> column.
    task, metrics, groups, ci, confidence_level, n_resamples, random_state, pos_label, \
model
        As in :func:`dartboard.evaluate` (``groups``: column names);
        ``confidence_level=None`` gives estimates only.
    batch_size : int
        Rows per record batch (memory is proportional to it); at most pyarrow's
        2**31 - 1 is used (a larger one reads each row group whole, as that does).
    exact : bool
        ``False`` bins the scores (constant memory, bounded error).
    n_bins : int
        Number of score bins in binned mode.
    score_range : (float, float), optional
        Range of the bins in binned mode (default: the scores' range).
    relative_accuracy : float
        Accuracy of the quantile sketch of the errors past ``MAX_CELLS``.
    progress : bool, optional
        A progress bar over the rows read, on standard error. None (the default)
        shows it when standard error is a terminal and the read lasts more than a
        second; True always; False never.
    clusters : str, optional
        Column of cluster ids (any orderable values, none missing, at least two
        clusters): :func:`dartboard.evaluate`'s ``clusters``, as a column name.
    threshold : float, optional
        Binary scores without ``y_pred``: labels are ``y_score >= threshold``
        (:func:`dartboard.evaluate`'s ``threshold``). By default 0.5 for
        probabilities and 0 for scores around 0, a guess the result's assumptions
        state.
    threshold_criterion, threshold_target, curve_bands : optional
        :func:`dartboard.evaluate`'s operating point and curve bands (binary scores
        named by ``y_score``). They draw one number per row, so after the streamed
        pass the columns of labels, scores, weights and clusters are read once more,
        in the order of their values: the in-memory evaluation's numbers, from any
        source and row order (that pass holds those columns in memory).
    cluster : str, optional
        The former name of ``clusters`` (a FutureWarning; it will be removed).
    options : EvaluationOptions, optional
        :func:`dartboard.evaluate`'s ``options``: the evaluation options as one
        checked object, the option keywords then left at their defaults.

    Returns
    -------
    Evaluation
        The object :func:`dartboard.evaluate` returns; ``n_rows``, ``n_files``,
        ``error_bounds`` (per approximate metric), ``states`` (the merged states, to
        merge more data into later) and ``result.streamed`` say where it came from.

    Raises
    ------
    FileNotFoundError
        No file at the path, or no file matching the pattern (named).
    ValueError, TypeError
        A file without a needed column, with a column of another type than the
        first file, NaN or missing values, non-numeric scores, a page that cannot
        be read: the message names the file and the column. A directory link that
        loops (named); weights that sum to zero over all rows. A ``clusters`` column
        missing from a file, with a missing id, or of one cluster; with
        ``exact=False``.

    See Also
    --------
    dartboard.scale.evaluate_dask : The same on a Dask DataFrame.
    dartboard.evaluate : The same in memory.

    Examples
    --------
    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq
    >>> folder = tempfile.mkdtemp()
    >>> for i in range(2):
    ...     table = pa.table({"label": [0, 1, 1, 0], "score": [0.1, 0.9, 0.4 + 0.3 * i, 0.6]})
    ...     pq.write_table(table, os.path.join(folder, f"part{i}.parquet"))
    >>> ev = evaluate_parquet(folder, y_true="label", y_score="score", random_state=0)
    >>> ev.n_rows, ev.n_files, float(ev.overall.loc["roc_auc", "estimate"])
    (8, 2, 0.875)

    Rows in clusters, one cluster's rows in both files:

    >>> for i in range(2):
    ...     table = pa.table({"label": [0, 1, 1, 0] * 3, "pred": [0, 1, i, 0] * 3,
    ...                       "patient": [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]})
    ...     pq.write_table(table, os.path.join(folder, f"part{i}.parquet"))
    >>> import warnings
    >>> from dartboard.exceptions import FewClustersWarning
    >>> with warnings.catch_warnings(record=True) as caught:  # 6 clusters are few
    ...     warnings.simplefilter("always")
    ...     ev = evaluate_parquet(folder, y_true="label", y_pred="pred", clusters="patient",
    ...                           metrics=["accuracy"], random_state=0)
    >>> any(issubclass(w.category, FewClustersWarning) for w in caught)
    True
    >>> row = ev.overall.loc["accuracy"]
    >>> row["method"], round(float(row["estimate"]), 4), round(float(row["low"]), 4)
    ('wilson-clustered (6 clusters)', 0.875, 0.6204)
    """
    args = spec_options(locals())
    args["clusters"] = cluster = renamed_clusters(clusters, cluster)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    progress = check_progress(progress)
    fragments, kinds = _open(path_or_glob, [c for c in (y_true, y_pred, y_score, sample_weight)
                                            if isinstance(c, str)])
    spec = make_spec(column_kinds=kinds, **args)
    _check_schemas(fragments, spec)
    plan = setup(spec, **_ranges(spec, fragments, batch_size))
    total = sum(f.metadata.num_rows for f in fragments)
    with Bar(total, f"reading {len(fragments)} Parquet file{'s' if len(fragments) != 1 else ''}",
             progress=progress) as bar:
        bundle = stream_fragments(fragments, plan, batch_size, bar)
    with asked(progress):
        return finalize(plan, bundle, len(fragments), source="parquet", unit="Parquet file",
                        files=tuple(str(f.path) for f in fragments), data=path_or_glob)


def stream_fragments(fragments: list[Any], plan: Setup, batch_size: int,
                     bar: Any = None) -> Any:
    """Merged states of all record batches of the files (errors name the file)."""
    spec = plan.spec
    stack = MergeStack(plan.planned)
    seen: frozenset[Any] = frozenset()
    for fragment in fragments:
        source = f"file {fragment.path!r}"
        for batch in _batches(fragment, spec.columns, batch_size):
            columns = {name: _column(batch, name, spec, source) for name in spec.columns}
            bundle = bundle_from_columns(plan, columns, source, seen)
            seen = seen | (bundle.labels or frozenset())
            stack.push(bundle)
            if bar:
                bar.advance(batch.num_rows)
    return stack.result()


def _batches(fragment: Any, columns: list[str], batch_size: int) -> Any:
    """The record batches of one file; a page that cannot be read (damaged, cut
    short) is a ``ValueError`` naming the file, as an unreadable footer is."""
    import pyarrow as pa

    batches = fragment.to_batches(columns=columns, batch_size=min(batch_size, _MAX_BATCH))
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except (OSError, pa.ArrowException) as exc:
            raise FileFormatError(f"file {fragment.path!r} could not be read: "
                                  f"{' '.join(str(exc).split())}") from None
        yield batch


# ------------------------------------------------------------------ files

def _open(path_or_glob: Any, wanted: list[str]) -> tuple[list[Any], dict[str, str]]:
    """Fragments of the files and the numpy dtype kind of the wanted columns (first file)."""
    import pyarrow.dataset as ds

    files = expand(path_or_glob)
    try:
        dataset = ds.dataset(files, format="parquet")
    except Exception as exc:  # pyarrow raises ArrowInvalid for files that are not Parquet
        raise FileFormatError(f"could not open the Parquet files: {exc}") from None
    fragments = list(dataset.get_fragments())
    for fragment in fragments:
        try:
            fragment.physical_schema  # noqa: B018 - reads the footer: fails on non-Parquet
        except Exception as exc:
            raise FileFormatError(f"file {fragment.path!r} is not a readable Parquet file: "
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
             if getattr(spec, r) is not None] + [("y_proba", c) for c in spec.y_proba or ()] + \
        [("groups", c) for c in spec.groups or ()] + \
        [("clusters", c) for c in (spec.cluster,) if c is not None]
    numeric = {"y_score", "sample_weight", "y_proba"} | ({"y_true", "y_pred"}
                                                       if spec.task == "regression" else set())
    first: dict[str, tuple[str, str]] = {}
    for fragment in fragments:
        schema = fragment.physical_schema
        for role, name in roles:
            if schema.get_field_index(name) < 0:
                raise InputError(f"file {fragment.path!r} has no column {name!r} (given as "
                                 f"{role}); its columns are {schema.names}")
            arrow_type = schema.field(name).type
            kind = _kind(arrow_type)
            if role in numeric and kind not in "bif":
                raise InputTypeError(f"file {fragment.path!r}: {role} column {name!r} must be "
                                     f"numeric; got {arrow_type}")
            if kind == "O":
                raise InputTypeError(f"file {fragment.path!r}: {role} column {name!r} has the "
                                     f"unsupported type {arrow_type}")
            label_kind = "string" if kind == "U" else "number"
            if name not in first:
                first[name] = (label_kind, fragment.path)
            elif first[name][0] != label_kind:
                raise InputTypeError(f"file {fragment.path!r}: column {name!r} holds {label_kind}s "
                                     f"({arrow_type}) but holds {first[name][0]}s in file "
                                     f"{first[name][1]!r}; every file needs the same schema")


def _column(batch: Any, name: str, spec: Spec, source: str) -> np.ndarray:
    if spec.group_only(name):  # nulls included: the group encoder refuses them as in memory
        return batch.column(name).to_pandas().to_numpy()
    return to_numpy(batch.column(name), name=f"{source}: {spec.role_of(name)}")


def _ranges(spec: Spec, fragments: list[Any], batch_size: int) -> dict[str, Any]:
    """What :func:`~dartboard.evaluation._stream.setup` needs of the whole data: the range
    of the scores (are they probabilities? the bins) and the smallest and largest
    label (the two classes of scores), from the Parquet statistics, else one pass
    over the column."""
    if spec.y_score is None:
        return {}
    return {"scores": _range(fragments, spec.y_score, batch_size, float),
            "labels": _range(fragments, spec.y_true, batch_size, None)}


def _range(fragments: list[Any], column: str, batch_size: int, cast: Any) -> Any:
    import pyarrow.compute as pc

    lows, highs = [], []
    for fragment in fragments:
        bounds = _statistics_range(fragment, column, cast)
        if bounds is None:
            for batch in _batches(fragment, [column], batch_size):
                mm = pc.min_max(batch.column(column))
                if mm["min"].is_valid:
                    lows.append(mm["min"].as_py())
                    highs.append(mm["max"].as_py())
        elif bounds:
            lows.append(bounds[0])
            highs.append(bounds[1])
    if not lows:
        return None
    low, high = min(lows), max(highs)
    return (float(low), float(high)) if cast is float else (low, high)


def _statistics_range(fragment: Any, column: str, cast: Any = float
                      ) -> tuple[Any, Any] | tuple[()] | None:
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
        lows.append(stats.min if cast is None else cast(stats.min))
        highs.append(stats.max if cast is None else cast(stats.max))
    return (min(lows), max(highs)) if lows else ()
