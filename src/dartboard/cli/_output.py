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
    """``rows`` as a table of ``columns`` (key, heading); the first column left-aligned.
    Columns of text named in ``wrap`` (an interval method) wrap onto more lines rather
    than squeeze the numbers."""
    from rich.console import Console
    from rich.table import Table

    from dartboard._format import format_number

    table = Table(show_edge=False, pad_edge=False, show_header=show_header)
    # a wrapping column gives way first; the first column keeps names up to 32 whole
    first = min(32, max([len(format_number(r.get(columns[0][0]))) for r in rows] + [1])) \
        if wrap else None
    for i, (key, label) in enumerate(columns):
        table.add_column(label, justify="left" if i == 0 or key in wrap else "right",
                         no_wrap=i > 0 and key not in wrap, overflow="fold",
                         ratio=1 if key in wrap else None, min_width=first if i == 0 else None)
    for row in rows:
        table.add_row(*(format_number(row.get(key)) for key, _ in columns))
    console = Console(width=max(100, Console().width), soft_wrap=False)
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
