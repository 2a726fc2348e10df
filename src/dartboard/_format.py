"""Numbers as people read them: the one formatter of the command line and the report.

Both faces show the same number the same way:

- a float with ``digits`` decimals (4 by default): ``0.8123``;
- a float too small or too large for that in scientific notation with four
  significant digits: below one unit of the last decimal (``0 < |x| < 10**-digits``,
  so a p-value of 2e-5 does not read as ``0.0000``) and from ``1e5`` up (a squared
  error in the millions keeps the column's width): ``2.000e-05``, ``1.235e+06``;
- zero as ``0.0000`` (negative zero too: the sign of an exact zero means nothing to
  a reader);
- an integer with thousands separators: ``12,345``;
- NaN and None (an undefined value) as ``n/a``, infinities as ``inf`` / ``-inf``;
- a bool as ``yes`` / ``no``; anything else (a name, a method) as its ``str``.

numpy scalars follow the Python type they stand for. ``--json`` and results.json
keep the full numbers; this is only how a table shows them.

:func:`format_row` shows numbers that belong together (an estimate and its interval's
ends) with one shared number of decimals, chosen from the largest of them, so that a
regression row reads ``3,254 [2,916, 3,613]`` beside ``0.4512 [0.4026, 0.4968]``: no
scientific notation next to fixed decimals, and no column of ragged digits.
:func:`format_cells` is the one rule for a table row: its estimate, low and high
together, every other cell on its own.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = ["format_number", "format_row", "format_cells"]

#: columns a table shows together: an estimate and its interval
TOGETHER = ("estimate", "low", "high")

_HUGE = 1e5
# format_row: beyond this magnitude (or below one unit of the last decimal) a row is
# scientific
_ROW_HUGE = 1e15


def format_number(value: Any, digits: int = 4) -> str:
    """The text of one table cell (module docstring for the rules).

    Examples
    --------
    >>> [format_number(v) for v in (0.81234, 2e-5, 1234567.0, -0.0, 12345, None)]
    ['0.8123', '2.000e-05', '1.235e+06', '0.0000', '12,345', 'n/a']
    >>> format_number(float("nan")), format_number(float("-inf")), format_number(2.5, 2)
    ('n/a', '-inf', '2.50')
    """
    if value is None:
        return "n/a"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        return _float(float(value), digits)
    return str(value)


def _float(x: float, digits: int) -> str:
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return f"{0.0:.{digits}f}"
    if abs(x) < 10.0 ** -digits or abs(x) >= _HUGE:
        return f"{x:.3e}"
    return f"{x:.{digits}f}"


def format_row(values: Any, digits: int = 4) -> list[str]:
    """The texts of numbers shown side by side, with one number of decimals.

    The largest finite magnitude ``m`` of the row sets it: ``digits`` decimals while
    ``m < 10``, then one fewer per digit before the point (about ``digits``
    significant digits, none below zero), with thousands separators; a value that
rounds to zero reads as zero, unsigned. A row whose
    numbers are all below one unit of the last decimal (but not zero), or that
    reaches ``1e15``, is scientific with four significant digits, as
    :func:`format_number` shows such numbers. NaN and None read ``n/a``.

    Examples
    --------
    >>> format_row([0.45123, 0.40261, 0.49684])
    ['0.4512', '0.4026', '0.4968']
    >>> format_row([3254.12, 2916.5, 3613.49])
    ['3,254', '2,916', '3,613']
    >>> format_row([47.612, 44.65, 50.58]), format_row([1.0, None, 0.5])
    (['47.61', '44.65', '50.58'], ['1.0000', 'n/a', '0.5000'])
    >>> format_row([2e-5, 1e-6])
    ['2.000e-05', '1.000e-06']
    """
    floats = [math.nan if v is None else float(v) for v in values]
    finite = [abs(x) for x in floats if math.isfinite(x)]
    largest = max(finite, default=0.0)
    if largest >= _ROW_HUGE or 0 < largest < 10.0 ** -digits:
        return [f"{x:.3e}" if math.isfinite(x) else _float(x, digits) for x in floats]
    magnitude = int(math.floor(math.log10(largest))) if largest > 0 else 0
    decimals = digits if magnitude < 1 else max(0, digits - 1 - magnitude)
    return [_fixed(x, decimals) if math.isfinite(x) else _float(x, digits) for x in floats]


def _fixed(x: float, decimals: int) -> str:
    text = f"{x:,.{decimals}f}"
    # a value that rounds to zero reads as zero, without a sign that means nothing
    return text[1:] if text.startswith("-") and not text.strip("-0.,") else text


def format_cells(row: Any, keys: Any) -> list[str]:
    """The texts of a table row's cells ``keys``: the estimate and its interval's ends
    (:data:`TOGETHER`) by :func:`format_row` when the table shows all three and
    the estimate is a number, every other cell by :func:`format_number`.

    Examples
    --------
    >>> row = {"metric": "mse", "estimate": 3254.1, "low": 2916.5, "high": 3613.4}
    >>> format_cells(row, ["metric", "estimate", "low", "high"])
    ['mse', '3,254', '2,916', '3,613']
    """
    keys = list(keys)
    texts = {key: format_number(row.get(key)) for key in keys}
    estimate = row.get("estimate")
    if set(TOGETHER) <= set(keys) and isinstance(estimate, numbers.Real) \
            and not isinstance(estimate, (bool, np.bool_)):
        texts.update(zip(TOGETHER, format_row([row.get(k) for k in TOGETHER])))
    return [texts[key] for key in keys]
