"""``dartboard report``: the HTML report from a saved results.json."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from dartboard.cli._io import check_output
from dartboard.exceptions import FileFormatError, InputError

_SECTIONS = ("selection", "classification", "regression", "stability", "profile", "k_models")


def report(
    results: str = typer.Argument(
        ..., metavar="RESULTS",
        help=("results.json saved by dartboard demo.")),
    output: Path = typer.Option(Path("report.html"), "-o", "--output",
                                help="HTML file to write."),
) -> None:
    """Render the HTML report from a saved results.json."""
    from dartboard.report import check_results, write_report

    check_output(output, "-o", [results])
    path = Path(results)
    if not path.exists():
        raise InputError(f"RESULTS {results!r} does not exist")
    if path.is_dir():
        raise InputError(f"RESULTS {results!r} is a directory; give a results.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))  # a BOM is fine
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"{results!r} is not valid JSON ({exc.msg}, line "
                              f"{exc.lineno})") from None
    except UnicodeDecodeError as exc:  # binary bytes: not text, so not JSON
        raise FileFormatError(f"{results!r} is not valid JSON (not UTF-8 text: {exc.reason} "
                              f"at byte {exc.start})") from None
    if not isinstance(data, dict) or not any(k in data for k in _SECTIONS):
        raise InputError(f"{results!r} holds no report sections (expected some of: "
                         f"{', '.join(_SECTIONS)}); is it a dartboard results.json?")
    try:
        check_results(data)  # a hand-edited field is named here, not failed on in a figure
    except ValueError as exc:
        raise InputError(f"{results!r}: {exc}") from None
    write_report(data, output, inputs=[results])
    typer.echo(f"report: {output}")
