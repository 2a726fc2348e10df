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
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = ["format_number"]

_HUGE = 1e5


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
