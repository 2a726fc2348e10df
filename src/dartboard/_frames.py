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

__all__ = ["SourceKind", "source_kind", "read_columns", "ColumnRoles"]

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
    available = list(frame.collect_schema().names())
    for role, value in roles.items():
        for name in _names(role, value):
            if name not in available:
                shown = ", ".join(map(repr, available[:20])) + \
                    (", ..." if len(available) > 20 else "")
                raise InputError(f"{role}={name!r} names no column of data; its columns are "
                                 f"{shown}")
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
