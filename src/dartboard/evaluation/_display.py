"""The views of an :class:`~dartboard.Evaluation`: the text a terminal shows
(``repr``) and the compact HTML table of a notebook.

Both show each row's estimate and interval with one number of decimals
(:func:`dartboard._format.format_row`); the text view aligns its columns and lists
the rows overall and then per group (the first groups, as the notebook view). In HTML
no colours are set: text and borders inherit the notebook's theme (JupyterLab's light
and dark themes both read it), numbers use tabular figures, and a wide grouped table
scrolls sideways on a narrow screen instead of overflowing.
"""

from __future__ import annotations

import html
import math
from typing import Any

from dartboard._format import format_row
from dartboard.evaluation._operating import operating_lines

__all__ = ["evaluation_html", "evaluation_text"]

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


def _row_cells(estimate: Any, low: Any, high: Any) -> tuple[str, str]:
    """The estimate and its interval with one number of decimals (``format_row``)."""
    bounded = not (low is None or (isinstance(low, float) and math.isnan(low)))
    est, lo, hi = format_row([estimate, low if bounded else None, high if bounded else None],
                             3)
    interval = f'<span class="ci">[{lo}, {hi}]</span>' if bounded else ""
    return est, interval


def _method_cell(r: Any) -> str:
    """The method, with the design effect and effective n of a clustered row."""
    if getattr(r, "design_effect", None) is None:
        return str(r.method)
    return (f"{r.method}; design effect {r.design_effect:.2f}, effective n "
            f"{r.effective_n:,.0f}")


def _overall_table(ev: Any) -> str:
    level = ev.result.metrics[0].confidence_level if ev.result.metrics else math.nan
    level = f"{level:.0%}" if math.isfinite(level) else "no"
    head = (f"<caption>{html.escape(ev.describe())} · {level} intervals</caption><thead>"
            f"<tr><th>metric</th><th>estimate</th><th>{level} interval</th><th>method</th>"
            "</tr></thead>")
    body = "".join(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
            html.escape(r.metric), *_row_cells(r.estimate, r.low, r.high),
            html.escape(_method_cell(r)))
        for r in ev.result.metrics)
    return f"<table>{head}<tbody>{body}</tbody></table>"


def _cheap_gaps(ev: Any) -> Any:
    """The between-group differences when they cost little (count metrics, or already
    drawn); None otherwise."""
    gaps = ev._gaps
    if gaps is None:
        return None
    rows = [r.metric for r in ev.result.metrics if r.low is not None and gaps.cheap(r.metric)]
    return ev.difference(metrics=rows) if rows else None


def _sides(gap: Any) -> str:
    """Which group is higher and which is better, under a gap (a tie names neither)."""
    if not isinstance(gap["higher"], str):
        return '<br><span class="note">tie</span>' if gap["groups"] else ""
    better = f" · better: {html.escape(gap['better'])}" if isinstance(gap["better"], str) \
        else ""
    return f'<br><span class="note">higher: {html.escape(gap["higher"])}{better}</span>'


def _group_table(ev: Any) -> str:
    res = ev.result
    labels = [", ".join(str(v) for v in k) for k in res.group_keys]
    shown = labels[:_MAX_GROUP_COLUMNS]
    frame = ev.by_group
    gaps = _cheap_gaps(ev)
    cols = "".join(f"<th>{html.escape(g)}</th>" for g in shown)
    gap_head = "<th>largest gap</th>" if gaps is not None else ""
    head = (f"<caption>by {html.escape(', '.join(res.group_columns))}</caption>"
            f"<thead><tr><th>metric</th>{cols}{gap_head}</tr></thead>")
    rows = []
    for metric in ev.metrics:
        part = frame.xs(metric, level="metric")
        cells = "".join("<td>{} {}</td>".format(*_row_cells(row.estimate, row.low, row.high))
                        for row in part.iloc[:len(shown)].itertuples())
        gap = ""
        if gaps is not None:
            gap = "<td></td>"
            if metric in gaps.index:
                g = gaps.loc[metric]
                gap = "<td>{} {}{}</td>".format(*_row_cells(g["estimate"], g["low"], g["high"]),
                                                _sides(g))
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


def _operating_table(point: dict[str, Any]) -> str:
    from dartboard.evaluation._operating import operating_title

    head = (f"<caption>{html.escape(operating_title(point))}</caption><thead><tr>"
            "<th>quantity</th><th>estimate</th><th>interval</th><th>method</th></tr></thead>")
    body = "".join(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
            html.escape(name), *_row_cells(iv["estimate"], iv["low"], iv["high"]),
            html.escape(iv["method"]))
        for name, iv in point["intervals"].items())
    return f"<table>{head}<tbody>{body}</tbody></table>"


def evaluation_html(ev: Any) -> str:
    """The compact HTML table of an evaluation (overall, its assumptions, the operating
    point, then by group)."""
    parts = [_STYLE, '<div class="dartboard-ev">', _overall_table(ev), _assumptions(ev)]
    if ev.result.operating_point is not None:
        parts.append(_operating_table(ev.result.operating_point))
    streamed = ev.result.streamed
    if streamed is not None and streamed.left_out:
        parts.append('<p class="note">Left out of the streamed evaluation: ' + "; ".join(
            html.escape(line) for line in streamed.left_out_lines()) + ".</p>")
    if ev.result.groups is not None:
        parts.append(_group_table(ev))
    parts.append("</div>")
    return "".join(parts)


def _text_rows(rows: Any, grouped: bool) -> list[list[str]]:
    """Cells of the text view: metric, (group, n,) estimate, interval, method."""
    out = []
    previous = None
    for r in rows:
        bounded = r.low is not None and r.high is not None
        est, low, high = format_row([r.estimate, r.low, r.high] if bounded
                                    else [r.estimate, None, None])
        interval = f"[{low}, {high}]" if bounded else ""
        cells = [r.metric if r.metric != previous else ""]
        if grouped:
            cells += [str(r.group), f"{r.n:,}"]
            previous = r.metric
        out.append(cells + [est, interval, _method_cell(r)])
    return out


def _gap_lines(ev: Any, label: str) -> list[str]:
    """The largest gap between groups of each metric whose gaps cost little (as the
    notebook view), and where the others are."""
    gaps = _cheap_gaps(ev)
    rows = []
    for metric, gap in ([] if gaps is None else gaps.iterrows()):
        bounded = isinstance(gap["low"], float) and not math.isnan(gap["low"])
        est, low, high = format_row([gap["estimate"], gap["low"] if bounded else None,
                                     gap["high"] if bounded else None])
        between = str(gap["groups"] or "").replace(
            " vs ", " > " if isinstance(gap["higher"], str) else " = ", 1)
        rows.append([str(metric), between, est, f"[{low}, {high}]" if bounded else "",
                     str(gap["method"])])
    how = "every metric's gap and ratio: .difference() and .ratio()"
    if not rows:
        return [f"largest gaps between groups, with intervals: {how}"]
    lines = ["largest gap between groups (higher - lower):"]
    lines += _align(["metric", "groups", "gap", label, "method"], rows, left=2)
    left_out = len(ev.result.metrics) - len(rows)
    lines.append(f"  ({left_out} more metrics drawn on request; {how})" if left_out > 0
                 else f"  ({how})")
    return lines


def _align(header: list[str], rows: list[list[str]], left: int) -> list[str]:
    """Lines of a table: the first ``left`` columns left-aligned, the rest right-aligned
    but the last (the method)."""
    table = [header, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = []
    for row in table:
        cells = [c.ljust(w) if i < left or i == len(row) - 1 else c.rjust(w)
                 for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def evaluation_text(ev: Any) -> str:
    """The text of ``repr(evaluation)``: a summary line, the overall rows and the rows
    of the first groups, in aligned columns."""
    res = ev.result
    level = ev._level
    label = f"{level:.0%} interval" if math.isfinite(level) else "interval"
    intervals = f"{label}s" if math.isfinite(level) else "no intervals"
    count = f"{len(ev.metrics)} metric{'s' if len(ev.metrics) != 1 else ''}"
    lines = [f"Evaluation({ev.describe()}, {count}, {intervals})"]
    lines += _align(["metric", "estimate", label, "method"],
                    _text_rows(res.metrics, grouped=False), left=1)
    lines += [f"assumed {a}" for a in res.assumptions]
    if res.groups is not None:
        shown = {", ".join(str(v) for v in key) for key in res.group_keys[:_MAX_GROUP_COLUMNS]}
        rows = sorted((r for r in res.groups if r.group in shown),
                      key=lambda r: ev.metrics.index(r.metric))
        lines.append(f"by {', '.join(res.group_columns)}:")
        lines += _align(["metric", "group", "n", "estimate", label, "method"],
                        _text_rows(rows, grouped=True), left=2)
        more = len(res.group_keys) - len(shown)
        if more > 0:
            lines.append(f"  ... {more} more groups: see .by_group")
        lines += _gap_lines(ev, label)
    if res.streamed is not None and res.streamed.left_out:
        lines.append("  left out of the streamed evaluation:")
        lines += [f"    {line}" for line in res.streamed.left_out_lines()]
    return "\n".join(lines + operating_lines(res.operating_point))
