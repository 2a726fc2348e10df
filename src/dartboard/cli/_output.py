"""Output: rich tables on standard output (numbers as the report shows them), or the
same numbers as JSON with ``--json``."""

from __future__ import annotations

import json
from typing import Any

import typer

METRIC_COLUMNS = [("metric", "metric"), ("estimate", "estimate"), ("low", "low"),
                  ("high", "high"), ("method", "interval")]
GROUP_COLUMNS = [("group", "group"), ("n", "n")] + METRIC_COLUMNS
GAP_COLUMNS = [("metric", "metric"), ("estimate", "gap"), ("low", "low"), ("high", "high"),
               ("between", "higher > lower"), ("better", "better"), ("method", "interval")]


def print_table(title: str | None, rows: list[dict[str, Any]], columns: list[tuple[str, str]],
                *, show_header: bool = True, wrap: tuple[str, ...] = ()) -> None:
    """``rows`` as a table of ``columns`` (key, heading): numbers right-aligned, text (the
    first column, names, methods, units) left-aligned. Columns of text named in ``wrap``
    (an interval method) wrap onto more lines rather than squeeze the numbers."""
    import numbers

    from rich.console import Console
    from rich.table import Table

    from dartboard._format import format_cells

    table = Table(show_edge=False, pad_edge=False, show_header=show_header)
    # a wrapping column gives way first; the first column keeps names up to 32 whole
    first = min(32, max([len(str(r.get(columns[0][0]))) for r in rows] + [1])) \
        if wrap else None
    for i, (key, label) in enumerate(columns):
        numeric = i > 0 and any(isinstance(row.get(key), numbers.Number) for row in rows)
        table.add_column(label, justify="right" if numeric and key not in wrap else "left",
                         no_wrap=i > 0 and key not in wrap, overflow="fold",
                         ratio=1 if key in wrap else None, min_width=first if i == 0 else None)
    keys = [key for key, _ in columns]
    for row in rows:
        table.add_row(*format_cells(row, keys))
    # as wide as the table needs: a narrower console squeezes the first column (the
    # groups of a grouped table) to nothing rather than wrap the numbers
    terminal = Console()
    natural = terminal.measure(table, options=terminal.options.update(max_width=10_000))
    width = max(100, terminal.width, natural.maximum)
    console = Console(width=width, soft_wrap=False)
    if title:
        console.print(title, style="bold", markup=False, highlight=False)
    console.print(table)


def gap_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Gap records with ``between``: "a > b" (a the higher group), "a = b" for a tie."""
    return [dict(r, between=(r.get("groups") or "").replace(
        " vs ", " > " if r.get("higher") is not None else " = ", 1)) for r in rows]


def print_json(payload: Any) -> None:
    from dartboard._results import to_jsonable

    typer.echo(json.dumps(to_jsonable(payload), indent=2, allow_nan=False))
