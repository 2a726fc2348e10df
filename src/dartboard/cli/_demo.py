"""``dartboard demo``: the main job, end to end, on data that ships with scikit-learn."""

from __future__ import annotations

from pathlib import Path

import typer

from dartboard.cli._io import check_output_dir
from dartboard.cli._output import print_table


def demo(out: Path = typer.Option(Path("dartboard-demo"), "--out",
                                  help="Directory for report.html and results.json."),
         quick: bool = typer.Option(False, "--quick",
                                    help="A smaller grid and fewer resamples (seconds)."),
         ) -> None:
    """The main job: select, test, audit, profile and evaluate models on data that
    ships with scikit-learn; write report.html and results.json."""
    from dartboard._progress import current
    from dartboard.demo import run_demo

    check_output_dir(out, "--out", ("report.html", "results.json"))
    # the demo's steps show unless the command was asked to be quiet (--no-progress)
    results = run_demo(out, quick=quick, progress=current() is not False)
    rows = [{"item": h["label"], "value": h["value"], "detail": h.get("detail", "")}
            for h in results["highlights"]]
    print_table("dartboard demo", rows, [("item", ""), ("value", ""), ("detail", "")],
                show_header=False)
    for note in results.get("notes", []):
        typer.echo(f"note: {note}")
    total = sum(results["timings"].values())
    typer.echo(f"report:  {Path(results['paths']['report']).resolve()}")
    typer.echo(f"results: {Path(results['paths']['results']).resolve()}")
    typer.echo(f"done in {total:.1f} s")
