"""``dartboard report``: the HTML report from a saved results.json."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from dartboard.cli._io import check_output

_SECTIONS = ("selection", "classification", "regression", "stability", "profile")
# the fields the report shows as tables: each a list of rows (JSON objects)
_TABLES = {"selection": ("ranking", "sweep_segments"), "classification": ("metrics", "groups"),
           "regression": ("metrics", "groups", "error_summary"), "stability": ("summary",),
           "profile": ("rows",), None: ("highlights",)}
# the fields the report draws figures from: each a JSON object of named arrays
_FIGURES = {"classification": ("roc", "pr", "confusion", "calibration")}


def report(
    results: str = typer.Argument(
        ..., metavar="RESULTS",
        help=("results.json saved by dartboard demo.")),
    output: Path = typer.Option(Path("report.html"), "-o", "--output",
                                help="HTML file to write."),
) -> None:
    """Render the HTML report from a saved results.json."""
    from dartboard.report import write_report

    check_output(output, "-o")
    path = Path(results)
    if not path.is_file():
        raise ValueError(f"RESULTS {results!r} does not exist")
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))  # a BOM is fine
    except json.JSONDecodeError as exc:
        raise ValueError(f"{results!r} is not valid JSON ({exc.msg}, line {exc.lineno})") \
            from None
    if not isinstance(data, dict) or not any(k in data for k in _SECTIONS):
        raise ValueError(f"{results!r} holds no report sections (expected some of: "
                         f"{', '.join(_SECTIONS)}); is it a dartboard results.json?")
    _check_structure(data, results)
    write_report(data, output)
    typer.echo(f"report: {output}")


def _check_structure(data: dict, results: str) -> None:
    """A hand-edited results.json fails here, naming the field, rather than deep in
    the report: sections are JSON objects and tables are lists of objects."""
    for name in _SECTIONS:
        if data.get(name) is not None and not isinstance(data[name], dict):
            raise ValueError(f"{results!r}: section {name!r} must be a JSON object; got "
                             f"{type(data[name]).__name__}")
    for name, fields in _TABLES.items():
        section = data if name is None else data.get(name) or {}
        for field in fields:
            if field not in section:
                continue
            rows = section[field]
            where = field if name is None else f"{name}.{field}"
            if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                raise ValueError(f"{results!r}: {where!r} must be a list of JSON objects "
                                 f"(table rows); got {_shape(rows)}")
    for name, fields in _FIGURES.items():
        section = data.get(name) or {}
        for field in fields:
            if section.get(field) is not None and not isinstance(section[field], dict):
                raise ValueError(f"{results!r}: '{name}.{field}' must be a JSON object (the "
                                 f"figure's arrays by name); got {_shape(section[field])}")


def _shape(value: object) -> str:
    if isinstance(value, list):
        odd = next(v for v in value if not isinstance(v, dict))
        return f"a list holding {'null' if odd is None else type(odd).__name__}"
    return "null" if value is None else type(value).__name__
