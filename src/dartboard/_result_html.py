"""The notebook view of a result object: a small two-column table.

One row per field the text ``repr`` shows, numbers by
:func:`dartboard._format.format_number` (as the command line and the report show
them), a nested interval as ``estimate [low, high] (method)``, a dict of intervals or
numbers as one row per entry, a DataFrame as its first rows. Arrays too long to show
are named with their shape under the table. As the evaluation's view
(:mod:`dartboard.evaluation._display`), no colours are set: text and borders inherit
the notebook's theme.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np

from dartboard._format import format_number

__all__ = ["result_html"]

_MAX_FRAME_ROWS = 10
_STYLE = """<style>
.dartboard-result table { border-collapse: collapse; font-variant-numeric: tabular-nums;
  color: inherit; background: transparent; margin: 0.25em 0 0.5em; }
.dartboard-result caption { text-align: left; font-weight: 600; padding: 0.2em 0; }
.dartboard-result th, .dartboard-result td { padding: 0.2em 0.7em; text-align: left;
  border-bottom: 1px solid rgba(128, 128, 128, 0.35); color: inherit;
  background: transparent; vertical-align: top; }
.dartboard-result .note { opacity: 0.75; font-size: 0.85em; }
</style>"""


def _interval_text(value: Any) -> str:
    text = f"{format_number(value.estimate)} [{format_number(value.low)}, " \
           f"{format_number(value.high)}]"
    method = getattr(value, "method", None)
    return f"{text} ({method})" if method else text


def _cell(value: Any) -> str:
    """One value as escaped HTML."""
    if all(hasattr(value, k) for k in ("estimate", "low", "high")) \
            and not isinstance(value, np.ndarray):
        return html.escape(_interval_text(value))
    if hasattr(value, "columns") and hasattr(value, "to_html"):
        more = len(value) - _MAX_FRAME_ROWS
        table = value.head(_MAX_FRAME_ROWS).to_html(float_format=format_number, border=0)
        note = f'<div class="note">{more:,} more rows</div>' if more > 0 else ""
        return table + note
    if isinstance(value, np.ndarray):
        return html.escape(np.array2string(value, precision=4, separator=", "))
    if hasattr(value, "_repr_html_") and not isinstance(value, type):
        return value._repr_html_()
    return html.escape(format_number(value))


def _rows(shown: list[tuple[str, Any]]) -> list[str]:
    rows = []
    for name, value in shown:
        if value is None or (isinstance(value, dict) and not value):
            continue
        if isinstance(value, dict):
            rows += [f"<tr><th>{html.escape(f'{name}: {key}')}</th><td>{_cell(v)}</td></tr>"
                     for key, v in value.items()]
        else:
            rows.append(f"<tr><th>{html.escape(name)}</th><td>{_cell(value)}</td></tr>")
    return rows


def result_html(title: str, shown: list[tuple[str, Any]],
                arrays: list[tuple[str, tuple[int, ...]]]) -> str:
    """The view of a result called ``title``: ``shown`` (name, value) rows, and a note
    naming the ``arrays`` left out with their shapes.

    Examples
    --------
    >>> text = result_html("Interval", [("estimate", 0.8125), ("method", "wilson")],
    ...                    [("bootstrap_distribution", (2000,))])
    >>> "<td>0.8125</td>" in text, "bootstrap_distribution (2000,)" in text
    (True, True)
    """
    note = ""
    if arrays:
        listed = ", ".join(f"{name} {shape}" for name, shape in arrays)
        note = f'<div class="note">arrays: {html.escape(listed)}</div>'
    return (f'{_STYLE}<div class="dartboard-result"><table><caption>{html.escape(title)}'
            f"</caption><tbody>{''.join(_rows(shown))}</tbody></table>{note}</div>")
