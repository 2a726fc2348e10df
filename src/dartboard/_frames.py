"""Tables as sources: which kind of data a user handed over, and its named columns.

``dartboard.evaluate(data, y_true="label", y_score="score", groups="region", ...)``
takes a table and the names of its columns. This module says what ``data`` is and
reads the named columns of an in-memory table as numpy arrays:

- a data frame of any library narwhals reads eagerly (pandas, Polars, PyArrow, Modin,
  cuDF) or lazily with a ``collect`` (a Polars ``LazyFrame``, DuckDB): read here,
  only the named columns (a lazy frame is collected on those columns alone);
- a Parquet path, a directory, a glob or a list of them: streamed by
  :func:`dartboard.scale.evaluate_parquet`;
- a Dask DataFrame: :func:`dartboard.scale.evaluate_dask`;
- a Spark DataFrame (classic or Connect): recognised, so that it is refused by name
  rather than mistaken for an array.

Everything after the source sees arrays (or, streamed, batches of them) and does not
know where the rows came from. Missing values are left to the argument checks that
follow, which name the argument (``y_score``) and the count of missing values.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from dartboard._validation import describe
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["ColumnRoles", "SourceKind", "arrays_in_value_order", "read_columns", "rows_in_order",
           "source_kind"]

SourceKind = Literal["table", "parquet", "dask", "spark"]

#: role -> a column name, a list of names (several group columns, probability
#: columns) or a mapping class label -> name (probability columns)
ColumnRoles = Mapping[str, "str | Sequence[str] | Mapping[Any, str] | None"]


def source_kind(data: Any) -> SourceKind | None:
    """What ``data`` is as a source of rows, or None when it is not a table or a path
    (an array of one argument's values: the arrays form).

    A path (``str`` or ``os.PathLike``) or a non-empty list of paths is Parquet; a
    Dask or Spark DataFrame is named as such; a data frame narwhals reads is a table.
    """
    if isinstance(data, (str, os.PathLike)):
        return "parquet"
    if isinstance(data, (list, tuple)) and data and \
            all(isinstance(p, (str, os.PathLike)) for p in data):
        return "parquet"
    import narwhals.dependencies as nwd

    if nwd.is_dask_dataframe(data):
        return "dask"
    if nwd.is_pyspark_dataframe(data) or nwd.is_pyspark_connect_dataframe(data):
        return "spark"
    if nwd.is_into_dataframe(data) or nwd.is_into_lazyframe(data):
        return "table"
    return None


def _names(role: str, value: Any) -> list[str]:
    """The column names a role's value names (checked to be strings)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        values = list(value.values())
    elif isinstance(value, Sequence):
        values = list(value)
    else:
        raise InputTypeError(f"{role} must name a column of data (a string) or a list of "
                             f"them; got {describe(value)}")
    if not values or not all(isinstance(v, str) and v for v in values):
        raise InputTypeError(f"{role} must name columns of data (non-empty strings); got "
                             f"{value!r}")
    return values


def read_columns(data: Any, roles: ColumnRoles) -> dict[str, Any]:
    """The named columns of an in-memory table, per role.

    A role naming one column gives a 1-D numpy array; several columns (a list) give a
    list of arrays; a mapping class -> column gives a dict with the same keys. The
    table is not modified; a lazy table is collected on the named columns only.

    Raises
    ------
    ValueError
        A named column the table does not have (the message lists its columns).
    TypeError
        A role's value that is not a column name or a list of them.
    """
    import narwhals.stable.v2 as nw

    frame = nw.from_native(data)
    wanted = list(dict.fromkeys(n for role, value in roles.items()
                                for n in _names(role, value)))
    _check_names(list(frame.collect_schema().names()), roles)
    selected = frame.select(wanted)
    if isinstance(selected, nw.LazyFrame):
        selected = selected.collect()
    arrays = {name: _column(selected, name) for name in wanted}
    out: dict[str, Any] = {}
    for role, value in roles.items():
        if value is None:
            out[role] = None
        elif isinstance(value, str):
            out[role] = arrays[value]
        elif isinstance(value, Mapping):
            out[role] = {k: arrays[v] for k, v in value.items()}
        else:
            out[role] = [arrays[v] for v in value]
    return out


def _column(frame: Any, name: str) -> np.ndarray:
    """One column as numpy: numbers as numbers, missing values as NaN or None (the
    argument checks that follow refuse them by name), categories as their values."""
    import narwhals.stable.v2 as nw

    series = frame.get_column(name)
    dtype = series.dtype
    if dtype == nw.Categorical or dtype == nw.Enum:
        series = series.cast(nw.String)
    if series.null_count() and (dtype.is_numeric() or dtype == nw.Boolean):
        # a null of a number column is a missing value: NaN says so to the checks
        return np.asarray(series.cast(nw.Float64).to_numpy(), dtype=np.float64)
    values = series.to_numpy()
    return np.asarray(values)


#: the column of a Spark DataFrame's distinct rows that holds how many rows each stands for
_ROWS = "__dartboard_rows__"


def rows_in_order(data: Any, roles: ColumnRoles) -> dict[str, Any]:
    """The named columns of any source, in memory, their rows in one order fixed by
    their values.

    What a paired comparison reads (:func:`dartboard.compare_models` and
    :func:`dartboard.compare_k_models` with ``data=``): its resampling draws one
    number per row, so the rows themselves are needed, and their order must not
    depend on the source. The rows are sorted by the named columns (the first role
    first), so a table, its Parquet files, its Dask partitions and a Spark DataFrame
    of the same rows give the same arrays, whatever their order or partitioning.

    - a table (pandas, Polars, PyArrow, ...): its named columns;
    - Parquet files: the named columns, read with pyarrow;
    - a Dask DataFrame: the named columns, computed;
    - a Spark DataFrame (classic or Connect): reduced where it is to its distinct rows
      and their counts (``groupBy(...).agg(count)``, the DataFrame API only), which
      the driver collects as Arrow and repeats: identical rows cross once.

    Roles and the arrays returned are those of :func:`read_columns`.
    """
    kind = source_kind(data)
    if kind is None:
        raise InputTypeError("data must be a data frame (pandas, Polars, PyArrow, ...), a "
                             "Parquet path or glob, a Dask or a Spark DataFrame; got "
                             f"{describe(data)}")
    wanted = list(dict.fromkeys(n for role, value in roles.items()
                                for n in _names(role, value)))
    if kind == "spark":
        out = _spark_rows(data, roles, wanted)
    elif kind == "dask":
        _check_names(list(data.columns), roles)
        out = read_columns(data[wanted].compute(), roles)
    elif kind == "parquet":
        out = read_columns(_parquet_table(data, roles, wanted), roles)
    else:
        out = read_columns(data, roles)
    return _in_value_order(out)


def _check_names(available: list[str], roles: ColumnRoles) -> None:
    for role, value in roles.items():
        for name in _names(role, value):
            if name not in available:
                shown = ", ".join(map(repr, available[:20])) + \
                    (", ..." if len(available) > 20 else "")
                raise InputError(f"{role}={name!r} names no column of data; its columns are "
                                 f"{shown}")


def _parquet_table(data: Any, roles: ColumnRoles, wanted: list[str]) -> Any:
    import pyarrow.dataset as ds

    from dartboard._files import expand

    try:
        files = expand(data)
    except FileNotFoundError as exc:
        raise InputError(f"data={data!r} matches no file: {exc}") from None
    dataset = ds.dataset(files, format="parquet")
    _check_names(list(dataset.schema.names), roles)
    return dataset.to_table(columns=wanted)


def _spark_rows(data: Any, roles: ColumnRoles, wanted: list[str]) -> dict[str, Any]:
    from pyspark.sql import functions as F

    _check_names(list(data.columns), roles)
    counted = data.groupBy(*wanted).agg(F.count(F.lit(1)).alias(_ROWS))
    table = counted.toArrow()
    counts = np.asarray(table.column(_ROWS).to_numpy(), dtype=np.int64)
    return _each_array(read_columns(table, roles),
                       lambda array: np.repeat(array, counts, axis=0))


def _each_array(columns: dict[str, Any], fn: Any) -> dict[str, Any]:
    """``columns`` (a role's array, list or dict of arrays, or None) with ``fn``
    applied to every array."""

    def apply(value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, np.ndarray):
            return fn(value)
        if isinstance(value, dict):
            return {k: apply(v) for k, v in value.items()}
        return [apply(v) for v in value]

    return {role: apply(value) for role, value in columns.items()}


def _in_value_order(columns: dict[str, Any]) -> dict[str, Any]:
    """The same columns with their rows sorted by their values (the first role's
    column first, ties broken by the next). Values numpy cannot order (a mix of
    types, missing labels) leave the rows as they are: the argument checks that
    follow refuse them by name."""
    arrays: list[np.ndarray] = []
    _each_array(columns, arrays.append)
    order = _value_order(arrays)
    return columns if order is None else _each_array(columns, lambda array: array[order])


def _value_order(arrays: list[np.ndarray]) -> np.ndarray | None:
    """The permutation sorting rows by the arrays' values (the first array first), or
    None when there is nothing to sort or numpy cannot order the values."""
    if not arrays or arrays[0].shape[0] < 2:
        return None
    try:
        keys = [np.unique(a, return_inverse=True)[1].reshape(-1) for a in arrays]
    except TypeError:
        return None
    return np.lexsort(keys[::-1])


def arrays_in_value_order(*arrays: np.ndarray | None) -> tuple[np.ndarray | None, ...]:
    """The arrays of one set of rows (None: not given) with the rows in the order
    :func:`rows_in_order` gives them, so that work which draws one number per row (an
    operating point's bootstrap) gives the same numbers from arrays and from any source.
    Codes that keep their values' order (cluster codes over sorted ids) sort alike.

    Examples
    --------
    >>> y, s, w = arrays_in_value_order(np.array([1, 0, 1]), np.array([0.2, 0.9, 0.1]), None)
    >>> y.tolist(), s.tolist(), w
    ([0, 1, 1], [0.9, 0.1, 0.2], None)
    """
    order = _value_order([a for a in arrays if a is not None])
    if order is None:
        return arrays
    return tuple(None if a is None else a[order] for a in arrays)
