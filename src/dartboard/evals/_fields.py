"""Reading one field of a JSON record by a dotted path, with errors that say where."""

from __future__ import annotations

import math
from typing import Any

from dartboard.exceptions import FileFormatError

__all__ = ["MISSING", "as_score", "field", "where_of"]

MISSING = object()

#: Inspect's letter grades, as its ``value_to_float()`` reads them
GRADES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


def where_of(path: str, line: int | str | None) -> str:
    """``file:line`` (or ``file [member]``) for error messages."""
    if line is None:
        return path
    return f"{path}:{line}" if isinstance(line, int) else f"{path} [{line}]"


def field(record: Any, dotted: str, home: str | None = None) -> Any:
    """``record`` at ``dotted`` (``doc.passage_id``: ``record["doc"]["passage_id"]``);
    a path whose first step is not in the record is also looked up under ``home``
    (``passage_id`` in ``doc``). :data:`MISSING` when absent."""
    for start in (record, record.get(home) if home and isinstance(record, dict) else None):
        value = start
        for step in dotted.split("."):
            if isinstance(value, dict) and step in value:
                value = value[step]
            else:
                value = MISSING
                break
        if value is not MISSING:
            return value
    return MISSING


def as_score(value: Any, where: str, name: str) -> float:
    """A score as a float: numbers and bools as they are, Inspect's grades C/I/P/N as
    1/0/0.5/0; anything else is refused naming the place and the field."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        out = float(value)
        if math.isfinite(out):
            return out
    elif isinstance(value, str) and value in GRADES:
        return GRADES[value]
    hint = ""
    if isinstance(value, dict):
        hint = f"; it holds {sorted(value)[:6]}: name one as metric='{name}.<key>'"
    elif isinstance(value, (list, tuple)):
        hint = " (a list: this metric is aggregated over the corpus, not per question)"
    raise FileFormatError(f"{where}: field '{name}' must be a number (or C/I/P/N); got "
                          f"{value!r:.80}{hint}")
