"""Base class for dartboard's result objects.

Every result is a frozen dataclass with named fields. This module gives them a
short ``repr`` (the estimate, interval, p-value and method; long arrays are left
out, not dumped), a notebook view (``_repr_html_``) and ``to_dict()`` that returns
plain JSON-ready Python values.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import os
from typing import Any, ClassVar

import numpy as np

__all__ = ["Result", "to_jsonable"]

_REPR_ARRAY_ITEMS = 6
_REPR_DICT_ITEMS = 8


def to_jsonable(value: Any) -> Any:
    """Convert numpy/pandas values and nested containers to JSON-ready Python.

    Non-finite floats and missing values (``pd.NA``, ``NaT``) become ``None`` (JSON
    has no NaN or infinity), numpy arrays and sets become lists, DataFrames become
    lists of records, dates ISO strings, paths strings, functions their names; any
    other object its ``str``.
    """
    out = _container(value)
    return _scalar(value) if out is _NOT_A_CONTAINER else out


_NOT_A_CONTAINER = object()


def _container(value: Any) -> Any:
    """:func:`to_jsonable` of a result, dataclass, mapping, sequence, set, array or
    pandas frame (their items converted in turn); ``_NOT_A_CONTAINER`` otherwise."""
    if isinstance(value, Result):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        try:
            value = sorted(value)
        except TypeError:
            value = list(value)
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if hasattr(value, "to_dict") and hasattr(value, "columns"):  # pandas DataFrame
        return [to_jsonable(r) for r in value.to_dict(orient="records")]
    if hasattr(value, "to_dict") and hasattr(value, "index"):  # pandas Series
        return to_jsonable(value.to_dict())
    return _NOT_A_CONTAINER


def _scalar(value: Any) -> Any:
    """:func:`to_jsonable` of a value that holds no items."""
    if isinstance(value, np.generic):
        return to_jsonable(value.item())
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas missing values
        return None
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if hasattr(value, "tolist"):  # pandas Index and other array-likes
        return to_jsonable(value.tolist())
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    return str(value)


def _number(value: float) -> str:
    return f"{value:.4g}"


def _is_interval(value: Any) -> bool:
    return isinstance(value, Result) and all(hasattr(value, k) for k in ("low", "high"))


def _bounds(value: Any) -> str:
    return f"[{_number(float(value.low))}, {_number(float(value.high))}]"


def _short(value: Any) -> str | None:
    """A value as the text ``repr`` shows it; None leaves the field out (a long array, a
    missing value: the attribute still holds it)."""
    if value is None:
        return None
    if isinstance(value, np.ndarray):
        if value.size > _REPR_ARRAY_ITEMS:
            return None
        return np.array2string(value, precision=4, separator=", ")
    if isinstance(value, (bool, np.bool_)):
        return repr(bool(value))
    if isinstance(value, (float, np.floating)):
        return _number(float(value))
    if isinstance(value, np.integer):
        return str(int(value))
    if _is_interval(value):
        return _bounds(value)
    if isinstance(value, Result):
        return repr(value)
    if hasattr(value, "shape") and hasattr(value, "columns"):
        return f"DataFrame(shape={value.shape})"
    if hasattr(value, "index") and hasattr(value, "to_dict") and hasattr(value, "dtype"):
        return _short_dict(value.to_dict()) or "Series(length=0)"  # a pandas Series
    if isinstance(value, dict):
        return _short_dict(value)
    return repr(value)


def _short_dict(value: dict[Any, Any]) -> str | None:
    if not value:
        return None
    simple = all(isinstance(v, (int, float, str, bool, np.number)) or _is_interval(v)
                 for v in value.values())
    if len(value) > _REPR_DICT_ITEMS or not simple:
        return f"<dict of {len(value)}>"
    items = [f"{k}: {_number(float(v.estimate)) + ' ' + _bounds(v)}" if _is_interval(v)
             else f"{k}: {_short(v)}" for k, v in value.items()]
    return "{" + ", ".join(items) + "}"


@dataclasses.dataclass(frozen=True, repr=False)
class Result:
    """Mixin for result dataclasses: a short ``repr``, a notebook view and ``to_dict``.

    The ``repr`` names the numbers a reader looks for (estimate, interval, p-value,
    method): the fields listed in ``_repr_fields`` (default: every field declared with
    ``repr=True``), numbers to four significant digits, a nested interval as
    ``[low, high]``; long arrays (bootstrap and null distributions, curve grids) stay
    out of it and are read from the attributes. ``_repr_html_`` shows the same fields
    as a small table in a notebook, and lists the arrays it leaves out with their shape.
    """

    _repr_fields: ClassVar[tuple[str, ...] | None] = None

    def _shown(self) -> list[tuple[str, Any]]:
        names = self._repr_fields or tuple(f.name for f in dataclasses.fields(self) if f.repr)
        return [(name, getattr(self, name)) for name in names]

    def __repr__(self) -> str:
        parts = [f"{name}={text}" for name, value in self._shown()
                 if (text := _short(value)) is not None]
        return f"{type(self).__name__}({', '.join(parts)})"

    def _repr_html_(self) -> str:
        from dartboard._result_html import result_html

        long = {name for name, _ in self._arrays()}
        return result_html(type(self).__name__,
                           [(name, value) for name, value in self._shown() if name not in long],
                           self._arrays())

    def _arrays(self) -> list[tuple[str, tuple[int, ...]]]:
        """The array fields the views leave out, with their shapes."""
        return [(f.name, value.shape) for f in dataclasses.fields(self)
                if isinstance(value := getattr(self, f.name), np.ndarray)
                and value.size > _REPR_ARRAY_ITEMS]

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as plain, JSON-serialisable Python values.

        Returns
        -------
        dict
            Field name -> value; arrays as lists, non-finite floats as None.
        """
        return {f.name: to_jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}
