"""The notebook view of an :class:`~dartboard.evaluation.Evaluation`: a compact HTML table.

No colours are set: text and borders inherit the notebook's theme (JupyterLab's light
and dark themes both read it), numbers use tabular figures, and a wide grouped table
scrolls sideways on a narrow screen instead of overflowing.
"""

from __future__ import annotations

import html
import math
from typing import Any

from dartboard._format import format_number

__all__ = ["evaluation_html"]

_MAX_GROUP_COLUMNS = 12
_STYLE = """<style>
.dartboard-ev { overflow-x: auto; max-width: 100%; }
.dartboard-ev table { border-collapse: collapse; font-variant-numeric: tabular-nums;
  color: inherit; background: transparent; margin: 0.25em 0 0.75em; }
.dartboard-ev caption { text-align: left; font-weight: 600; padding: 0.2em 0; }
.dartboard-ev th, .dartboard-ev td { padding: 0.2em 0.7em; text-align: right;
  border-bottom: 1px solid rgba(128, 128, 128, 0.35); white-space: nowrap;
  color: inherit; background: transparent; }
.dartboard-ev th:first-child, .dartboard-ev td:first-child { text-align: left; }
.dartboard-ev .ci { opacity: 0.75; }
.dartboard-ev .note { opacity: 0.75; font-size: 0.85em; }
</style>"""


def _num(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return format_number(float(value), 3)


def _ci(low: Any, high: Any) -> str:
    if low is None or (isinstance(low, float) and math.isnan(low)):
        return ""
    return f'<span class="ci">[{_num(low)}, {_num(high)}]</span>'


def _overall_table(ev: Any) -> str:
    level = ev.result.metrics[0].confidence_level if ev.result.metrics else math.nan
    level = f"{level:.0%}" if math.isfinite(level) else "no"
    head = (f"<caption>{html.escape(ev.describe())} · {level} intervals</caption><thead>"
            f"<tr><th>metric</th><th>estimate</th><th>{level} interval</th><th>method</th>"
            "</tr></thead>")
    body = "".join(
        f"<tr><td>{html.escape(r.metric)}</td><td>{_num(r.estimate)}</td>"
        f"<td>{_ci(r.low, r.high)}</td><td>{html.escape(r.method)}</td></tr>"
        for r in ev.result.metrics)
    return f"<table>{head}<tbody>{body}</tbody></table>"


def _cheap_gaps(ev: Any) -> Any:
    """The between-group differences when they cost little (count metrics, or already
    drawn); None otherwise."""
    gaps = ev._gaps
    if gaps is None:
        return None
    cheap = [c.label for c in gaps.chosen
             if c.label in gaps._drawn or (c.spec is not None and c.spec.interval_fast ==
                                          "counts" and c.spec.scalar)]
    rows = [r.metric for r in ev.result.metrics if r.metric in cheap and r.low is not None]
    return ev.difference(metrics=rows) if rows else None


def _group_table(ev: Any) -> str:
    res = ev.result
    labels = [", ".join(str(v) for v in k) for k in res.group_keys]
    shown = labels[:_MAX_GROUP_COLUMNS]
    frame = ev.by_group
    gaps = _cheap_gaps(ev)
    cols = "".join(f"<th>{html.escape(g)}</th>" for g in shown)
    gap_head = "<th>max − min</th>" if gaps is not None else ""
    head = (f"<caption>by {html.escape(', '.join(res.group_columns))}</caption>"
            f"<thead><tr><th>metric</th>{cols}{gap_head}</tr></thead>")
    rows = []
    for metric in ev.metrics:
        part = frame.xs(metric, level="metric")
        cells = "".join(f"<td>{_num(row.estimate)} {_ci(row.low, row.high)}</td>"
                        for row in part.iloc[:len(shown)].itertuples())
        gap = ""
        if gaps is not None:
            gap = "<td></td>"
            if metric in gaps.index:
                g = gaps.loc[metric]
                gap = f"<td>{_num(g['estimate'])} {_ci(g['low'], g['high'])}</td>"
        rows.append(f"<tr><td>{html.escape(metric)}</td>{cells}{gap}</tr>")
    note = ""
    if len(labels) > len(shown):
        note = (f'<p class="note">{len(labels) - len(shown)} more groups: see '
                "<code>.by_group</code>.</p>")
    return f"<table>{head}<tbody>{''.join(rows)}</tbody></table>{note}"


def _assumptions(ev: Any) -> str:
    """What the evaluation decided without being told, one line each."""
    items = "".join(f"<li>assumed {html.escape(a.what.replace('_', ' '))}: "
                    f"{html.escape(str(a.value))} ({html.escape(a.why)})</li>"
                    for a in ev.result.assumptions)
    return f'<ul class="note">{items}</ul>' if items else ""


def evaluation_html(ev: Any) -> str:
    """The compact HTML table of an evaluation (its assumptions, overall, then by
    group)."""
    parts = [_STYLE, '<div class="dartboard-ev">', _overall_table(ev), _assumptions(ev)]
    if ev.result.groups is not None:
        parts.append(_group_table(ev))
    parts.append("</div>")
    return "".join(parts)
