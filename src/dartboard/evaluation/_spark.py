"""Evaluation of a Spark DataFrame: the family states of each partition, merged.

The Spark source of :func:`dartboard.evaluate`. Only the DataFrame API is used
(``select``, ``agg``, ``mapInArrow``, ``repartition``, ``collect``), never an RDD, so
a Spark Connect session (Databricks serverless, ``SparkSession.builder.remote``)
works as a classic one does.

1. What the whole data decide (the range of the scores and of the labels) comes
   from one aggregation.
2. Each partition folds its Arrow record batches into one bundle of family states
   (:func:`dartboard.evaluation._stream.bundle_from_columns`, the states of every
   other source), pickled into a binary column: one row per partition. An input
   error in a partition travels back as text with its class, and is raised on the
   driver as the same class, naming the partition.
3. The partitions' states stay where they were computed (persisted, one row a
   partition, pickled and LZ4-compressed). When there are more than
   ``max_partial_states`` of them, a second stage merges them in that many tasks,
   so the driver never holds more than that many partial states; the driver
   collects them as Arrow, merges them and finalizes them as every streamed source
   does.

Merging does not depend on the order of the rows, so the numbers are those of the
in-memory evaluation on the same rows for the same seed, however the DataFrame is
partitioned.
"""

from __future__ import annotations

import pickle
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from dartboard._kernels._methods import IntervalMethod
from dartboard._typing import Task
from dartboard._validation import check_int, describe
from dartboard.evaluation._bundle import MergeStack
from dartboard.evaluation._options import EvaluationOptions
from dartboard.evaluation._parquet import _column
from dartboard.evaluation._result import Assumption
from dartboard.evaluation._stream import (
    Setup,
    bundle_from_columns,
    make_spec,
    named_columns,
    setup,
    spec_options,
)
from dartboard.evaluation._stream_finalize import finalize
from dartboard.exceptions import InputError, InputTypeError

if TYPE_CHECKING:
    from dartboard.evaluation._evaluation import Evaluation

__all__ = ["evaluate_spark", "is_spark_dataframe"]

_STATE_SCHEMA = "state binary, error string, kind string"
#: the size rule of ``exact="auto"``: more distinct (score, label, group) cells than
#: this (about 24 bytes each on the driver, ~0.5 GB) and the scores are binned
MAX_EXACT_CELLS = 20_000_000
#: values (rows x columns) of a partition made into one bundle at a time (Spark sends
#: Arrow batches of 10,000 rows): a partition of a million rows is one or two pieces,
#: not a hundred batches to build and merge, and a piece holds about 32 MB of values
FOLD_VALUES = 4_000_000
_PANDAS_WARNING = "PySpark does not yet fully support pandas >= 3.0.0"
#: exception classes a partition may send back (by name): input errors keep their class
_KINDS: dict[str, type[Exception]] = {"ValueError": InputError, "TypeError": InputTypeError}


def is_spark_dataframe(data: Any) -> bool:
    """Whether ``data`` is a classic or a Spark Connect DataFrame."""
    import narwhals.dependencies as nwd

    return bool(nwd.is_pyspark_dataframe(data) or nwd.is_pyspark_connect_dataframe(data))


def evaluate_spark(df: Any, *, y_true: str, y_pred: str | None = None,
                   y_score: str | None = None,
                   y_proba: Sequence[str] | Mapping[Any, str] | None = None,
                   task: Task = "auto", metrics: Any = None,
                   groups: str | Sequence[str] | None = None,
                   sample_weight: str | None = None, ci: IntervalMethod = "auto",
                   confidence_level: float | None = 0.95, n_resamples: int = 2000,
                   random_state: Any = None, pos_label: Any = None,
                   model: str | None = None, exact: bool | Literal["auto"] = "auto",
                   n_bins: int = 100_000,
                   score_range: tuple[float, float] | None = None,
                   relative_accuracy: float = 1e-3, clusters: str | None = None,
                   threshold: float | None = None, threshold_criterion: str | None = None,
                   threshold_target: float | None = None, curve_bands: bool = False,
                   max_partial_states: int = 16,
                   options: EvaluationOptions | None = None) -> Evaluation:
    """Evaluate the rows of a Spark DataFrame where they are, exactly.

    ``dartboard.evaluate(df, y_true="label", y_score="score", ...)`` with a Spark
    DataFrame calls this. Each partition becomes the family states every source
    builds (via ``mapInArrow``); the states travel to the driver as binary rows,
    merge, and are finalized once: the rows, intervals, group rows, gaps, design
    effects and curves of :func:`dartboard.evaluate` on the same rows, for the same
    seed, whatever the partitioning. Classic sessions and Spark Connect alike (no
    RDD is used).

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        The predictions, classic or Spark Connect.
    y_true, y_pred, y_score, y_proba, task, metrics, groups, sample_weight, ci, \
confidence_level, n_resamples, random_state, pos_label, model, n_bins, \
score_range, relative_accuracy, clusters, threshold, threshold_criterion, \
threshold_target, curve_bands, options
        As in :func:`dartboard.scale.evaluate_parquet` (column names).
    exact : bool or "auto", default="auto"
        ``True`` keeps exact states: a cell per distinct (score, label, group), about
        24 bytes each on the driver. ``False`` bins the scores: constant memory per
        partition, estimates with a guaranteed bound in ``error_bounds`` and no
        interval. ``"auto"`` (the size rule): exact states keep at most one cell per
        row, so up to ``MAX_EXACT_CELLS`` rows (counted in the pass that finds the
        score range) they stay exact; beyond, one more pass counts the distinct
        (scores, label, groups) cells approximately (``approx_count_distinct``, 5%
        relative error), and the scores are binned when the cells exceed
        ``MAX_EXACT_CELLS`` (20 million, about 0.5 GB of states); the result's
        ``assumptions`` then say so with the count. With ``clusters`` the states
        stay exact (the clustered intervals need them).
    max_partial_states : int, default=16
        The most partial states the driver collects: with more partitions than
        that, their states are merged in that many Spark tasks first.

    Returns
    -------
    Evaluation
        With ``result.streamed`` saying it came from Spark partitions.

    Raises
    ------
    ImportError
        pyspark is not installed (the ``spark`` extra).
    ValueError, TypeError
        A named column the DataFrame lacks, a column of an unusable type, and every
        error of the in-memory evaluation, naming the partition it came from.

    See Also
    --------
    dartboard.evaluate : The front door, which calls this for a Spark DataFrame.
    dartboard.scale.evaluate_parquet : The same from Parquet files.

    Examples
    --------
    With a Spark session ``spark`` (a local one here; a Spark Connect session works
    the same):

    >>> import pandas as pd
    >>> import dartboard
    >>> rows = pd.DataFrame({"label": [0, 1, 1, 0, 1, 0], "score": [.1, .8, .6, .3, .9, .7]})
    >>> df = spark.createDataFrame(rows)  # doctest: +SKIP
    >>> ev = dartboard.evaluate(df, y_true="label", y_score="score",
    ...                         metrics=["roc_auc"])  # doctest: +SKIP
    >>> float(ev.overall.loc["roc_auc", "estimate"])  # doctest: +SKIP
    0.8888888888888888
    """
    args = spec_options(locals())
    _import_spark()
    max_partial_states = check_int(max_partial_states, "max_partial_states", minimum=1)
    if not is_spark_dataframe(df):
        raise InputTypeError(f"df must be a Spark DataFrame; got {describe(df)}")
    kinds = _column_kinds(df)
    wanted = named_columns(y_true, y_pred, y_score, sample_weight, clusters, groups=groups,
                           y_proba=y_proba)
    missing = [c for c in dict.fromkeys(wanted) if c not in kinds]
    if missing:
        raise InputError(f"the Spark DataFrame has no column(s) {missing}; its columns are "
                         f"{list(kinds)}")
    rule = exact == "auto"
    if rule:
        args["exact"] = True
    elif not isinstance(exact, (bool, np.bool_)):
        raise InputTypeError(f"exact must be True, False or 'auto'; got {describe(exact)}")
    spec = make_spec(column_kinds=kinds, **args)
    notes: tuple[Assumption, ...] = ()
    with warnings.catch_warnings():
        # pyspark warns about pandas 3 whenever mapInArrow is set up, though only Arrow
        # crosses here: that one warning, by its text, is not the user's concern
        warnings.filterwarnings("ignore", message=_PANDAS_WARNING, category=FutureWarning)
        ranges = _ranges(df, spec, count_cells=rule and spec.cluster is None)
        cells = ranges.pop("cells", None)
        if cells is not None and cells > MAX_EXACT_CELLS:  # more rows than the limit:
            cells = _distinct_cells(df, spec)  # are there as many distinct cells?
        if cells is not None and cells > MAX_EXACT_CELLS:
            args["exact"] = False
            spec = make_spec(column_kinds=kinds, **args)
            notes = (Assumption("exact", False, (
                f"exact='auto': about {cells:,} distinct (score, label, group) cells "
                f"(approx_count_distinct) exceed {MAX_EXACT_CELLS:,}, so the scores are "
                f"binned ({spec.n_bins:,} bins): estimates carry a bound in "
                "error_bounds and no interval; exact=True keeps them exact")),)
        try:
            plan = setup(spec, **ranges)
        except InputError as exc:
            if not notes:
                raise
            raise InputError(f"{exc} ({notes[0].why})") from None
        # the partitions' states are kept where they are computed (one row each), so
        # that their number decides whether a second merge stage is needed at all
        kept = states = df.select(*spec.columns).mapInArrow(_folder(plan),
                                                            _STATE_SCHEMA).persist()
        try:
            if states.count() > max_partial_states:
                states = states.repartition(max_partial_states).mapInArrow(
                    _merger(plan), _STATE_SCHEMA)
            # as Arrow: the states' bytes cross as one buffer (collect() would pickle
            # them row by row through the JVM, seconds per hundred MB)
            table = states.toArrow()
        except Exception as exc:  # a worker's failure, as pyspark's own exception
            absent = missing_on_workers(exc)
            if absent is None:
                raise
            raise absent from exc
        finally:
            kept.unpersist()
    stack = MergeStack(plan.planned)
    parts = 0
    errors, kinds = table.column("error").to_pylist(), table.column("kind").to_pylist()
    for at, (error, kind) in enumerate(zip(errors, kinds)):
        if error is not None:
            raise _KINDS.get(kind, InputError)(error)
        state = table.column("state")[at]
        if state.is_valid:
            bundle, count = _unpack(state.as_buffer())
            stack.push(bundle)
            parts += count
    return finalize(plan, stack.result(), parts, source="spark", unit="Spark partition",
                    notes=notes, data=df)


def missing_on_workers(exc: BaseException) -> ImportError | None:
    """The error to raise when a Spark job failed because a worker's Python lacks
    dartboard (or a library it needs): pyspark reports the worker's
    ``ModuleNotFoundError`` inside its own exception's text, classic or Connect. None
    for any other failure."""
    found = re.search(r"No module named '([\w.]+)'", str(exc))
    if found is None:
        return None
    name = found.group(1)
    what = "dartboard is" if name.split(".")[0] == "dartboard" else f"{name!r} is"
    return ImportError(
        f"{what} not installed on the Spark workers (the Python that runs each partition "
        f"could not import {name!r}); install dartboard there as on the driver (a cluster "
        "library, or pip install from a clone on every node) and set PYSPARK_PYTHON to "
        "that interpreter")


def _import_spark() -> Any:
    try:
        import pyspark
    except ImportError:
        raise ImportError('evaluating a Spark DataFrame needs pyspark: from a clone, pip install '
                          '".[spark]" (and a Java runtime)') from None
    return pyspark


def _column_kinds(df: Any) -> dict[str, str]:
    """numpy dtype kinds of the DataFrame's columns, from its schema (no data read)."""
    out = {}
    for field in df.schema.fields:
        name = field.dataType.typeName()
        if name in ("byte", "short", "integer", "long"):
            out[field.name] = "i"
        elif name in ("float", "double", "decimal"):
            out[field.name] = "f"
        elif name == "boolean":
            out[field.name] = "b"
        elif name in ("string", "varchar", "char"):
            out[field.name] = "U"
        else:
            out[field.name] = "O"
    return out


def _ranges(df: Any, spec: Any, *, count_cells: bool = False) -> dict[str, Any]:
    """The range of the scores and of the labels, in one aggregation (see
    :func:`dartboard.evaluation._parquet._ranges`); with ``count_cells`` also the
    number of rows (``"cells"``: exact states keep at most one cell per row, so only
    beyond the size rule's limit are the distinct cells counted)."""
    from pyspark.sql import functions as F

    scored = [spec.y_score] if spec.y_score is not None else list(spec.y_proba or ())
    wanted = []
    if spec.y_score is not None:
        wanted += [F.min(spec.y_score), F.max(spec.y_score), F.min(spec.y_true),
                   F.max(spec.y_true)]
    if count_cells and scored:  # the rows bound the cells; counted only beyond the limit
        wanted.append(F.count(F.lit(1)))
    if not wanted:
        return {}
    row = list(df.agg(*wanted).collect()[0])
    out: dict[str, Any] = {}
    if count_cells and scored:
        out["cells"] = int(row.pop())
    if spec.y_score is not None:
        low, high, first, last = row[0], row[1], row[2], row[3]
        out["scores"] = None if low is None or low != low else (float(low), float(high))
        out["labels"] = None if first is None or first != first else (first, last)
    return out


def _chunks(batches: Iterator[Any], rows: int) -> Iterator[Any]:
    """Spark's Arrow batches (10,000 rows by default) joined into record batches of
    at least ``rows`` rows (the last may hold fewer): each becomes one bundle, so a
    partition builds and merges tens of bundles, not hundreds, and per group."""
    import pyarrow as pa

    pending: list[Any] = []
    held = 0
    for batch in batches:
        pending.append(batch)
        held += batch.num_rows
        if held >= rows:
            yield _joined(pa, pending)
            pending, held = [], 0
    if pending:
        yield _joined(pa, pending)


def _joined(pa: Any, batches: list[Any]) -> Any:
    if len(batches) == 1:
        return batches[0]
    return pa.Table.from_batches(batches).combine_chunks().to_batches()[0]


def _distinct_cells(df: Any, spec: Any) -> int:
    """The approximate number of distinct (scores, label, groups) cells exact states
    keep (HyperLogLog, 5% relative error): the size rule's count."""
    from pyspark.sql import functions as F

    scored = [spec.y_score] if spec.y_score is not None else list(spec.y_proba or ())
    keys = [*scored, spec.y_true, *(spec.groups or ())]
    return int(df.agg(F.approx_count_distinct(F.xxhash64(*keys), rsd=0.05)).collect()[0][0])


def _folder(plan: Setup) -> Any:
    """The function each partition runs: its record batches folded into one bundle."""

    def fold(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        spec = plan.spec
        stack = MergeStack(plan.planned)
        seen: frozenset[Any] = frozenset()
        source = "a Spark partition"
        try:
            for batch in _chunks(batches, FOLD_VALUES // len(spec.columns)):
                columns = {name: _column(batch, name, spec, source) for name in spec.columns}
                bundle = bundle_from_columns(plan, columns, source, seen)
                seen = seen | (bundle.labels or frozenset())
                stack.push(bundle)
        except (ValueError, TypeError) as exc:
            kind = "TypeError" if isinstance(exc, TypeError) else "ValueError"
            yield pa.RecordBatch.from_pydict({"state": [None], "error": [str(exc)],
                                              "kind": [kind]}, schema=_arrow_schema())
            return
        yield pa.RecordBatch.from_pydict(
            {"state": [_pack((stack.result(), 1))],
             "error": [None], "kind": [None]}, schema=_arrow_schema())

    return fold


def _merger(plan: Setup) -> Any:
    """The second stage: several partitions' bundles merged into one row (errors pass)."""

    def merge(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        stack = MergeStack(plan.planned)
        parts = 0
        for batch in batches:
            for state, error, kind in zip(*(batch.column(c).to_pylist()
                                            for c in ("state", "error", "kind"))):
                if error is not None:
                    yield pa.RecordBatch.from_pydict({"state": [None], "error": [error],
                                                      "kind": [kind]}, schema=_arrow_schema())
                    return
                bundle, count = _unpack(state)
                stack.push(bundle)
                parts += count
        if parts:
            yield pa.RecordBatch.from_pydict(
                {"state": [_pack((stack.result(), parts))],
                 "error": [None], "kind": [None]}, schema=_arrow_schema())

    return merge


def _pack(value: Any) -> bytes:
    """A partial state as the bytes that travel: pickled, then LZ4-compressed (exact
    states hold long runs of ones and small integers: about a third of the bytes to
    shuffle and collect, for about 0.5 ms per MB), the pickle's length first."""
    import pyarrow as pa

    raw = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return len(raw).to_bytes(8, "little") + pa.compress(raw, codec="lz4", asbytes=True)


def _unpack(data: Any) -> Any:
    import pyarrow as pa

    view = memoryview(data)
    size = int.from_bytes(view[:8], "little")
    return pickle.loads(pa.decompress(view[8:], decompressed_size=size, codec="lz4",
                                      asbytes=True))


def _arrow_schema() -> Any:
    import pyarrow as pa

    return pa.schema([("state", pa.binary()), ("error", pa.string()), ("kind", pa.string())])
