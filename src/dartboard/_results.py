"""Base class for dartboard's result objects.

Every result is a frozen dataclass with named fields. This module gives them a
readable ``repr`` (long arrays are summarised, not dumped) and ``to_dict()`` that
returns plain JSON-ready Python values.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import os
from typing import Any

import numpy as np

__all__ = ["Result", "to_jsonable"]

_REPR_ARRAY_ITEMS = 6


def to_jsonable(value: Any) -> Any:
    """Convert numpy/pandas values and nested containers to JSON-ready Python.

    Non-finite floats and missing values (``pd.NA``, ``NaT``) become ``None`` (JSON
    has no NaN or infinity), numpy arrays and sets become lists, DataFrames become
    lists of records, dates ISO strings, paths strings, functions their names; any
    other object its ``str``.
    """
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
    if isinstance(value, np.generic):
        return to_jsonable(value.item())
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if hasattr(value, "to_dict") and hasattr(value, "columns"):  # pandas DataFrame
        return [to_jsonable(r) for r in value.to_dict(orient="records")]
    if hasattr(value, "to_dict") and hasattr(value, "index"):  # pandas Series
        return to_jsonable(value.to_dict())
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


def _short(value: Any) -> str:
    if isinstance(value, np.ndarray):
        if value.size <= _REPR_ARRAY_ITEMS:
            return np.array2string(value, precision=4, separator=", ")
        head = ", ".join(f"{v:.4g}" if isinstance(v, float) else str(v)
                         for v in value.ravel()[:3].tolist())
        return f"array(shape={value.shape}, [{head}, ...])"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    if hasattr(value, "shape") and hasattr(value, "columns"):
        return f"DataFrame(shape={value.shape})"
    return repr(value)


@dataclasses.dataclass(frozen=True, repr=False)
class Result:
    """Mixin for result dataclasses: compact ``repr`` and ``to_dict``."""

    def __repr__(self) -> str:
        parts = [f"{f.name}={_short(getattr(self, f.name))}"
                 for f in dataclasses.fields(self) if f.repr]
        return f"{type(self).__name__}({', '.join(parts)})"

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as plain, JSON-serialisable Python values."""
        return {f.name: to_jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}
