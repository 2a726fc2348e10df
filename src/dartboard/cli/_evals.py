"""``dartboard evals show`` and ``dartboard evals compare``: error bars for LLM
benchmark runs, read from the files lm-evaluation-harness, Inspect and HELM write
(:mod:`dartboard.evals`). Tables print the naive and the clustered standard errors
side by side with the design effect; ``--report`` writes the same tables as one small
self-contained HTML page (atomically, by the report's writer)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import typer

from dartboard.cli._io import check_output
from dartboard.cli._output import print_json, print_table

evals_app = typer.Typer(name="evals", no_args_is_help=True, add_completion=False,
                        rich_markup_mode=None,
                        help="Error bars for LLM benchmarks: lm-evaluation-harness "
                             "samples, Inspect logs, HELM per-instance stats.")

_CLUSTER = typer.Option(None, "--cluster", help=(
    "Where each question's cluster is: a dotted path into the lm-eval line "
    "(doc.passage_id), an Inspect metadata key, a table column."))
_METRIC = typer.Option(None, "--metric", help=(
    "The score: an lm-eval metric key (acc, acc_norm, exact_match), an Inspect scorer, "
    "a HELM stat, a table column."))
_FILTER = typer.Option(None, "--filter", help="lm-eval's filter, when the file has several.")
_LEVEL = typer.Option(0.95, "--confidence-level", help="Confidence level of the intervals.")
_JSON = typer.Option(False, "--json", help="Print JSON instead of tables.")
_REPORT = typer.Option(None, "--report", help="Also write the tables as an HTML page.")

_SHOW_COLUMNS = [("run", "run"), ("metric", "metric"), ("questions", "questions"),
                 ("answers", "answers"), ("clusters", "clusters"), ("estimate", "mean"),
                 ("naive_se", "naive se"), ("clustered_se", "clustered se"),
                 ("design_effect", "design effect"), ("low", "low"), ("high", "high"),
                 ("reported", "tool's mean"), ("reported_se", "tool's se"),
                 ("errored", "errored")]


def _load(paths: list[str], metric: str | None, cluster: str | None,
          filter_name: str | None) -> list[Any]:
    from dartboard.evals import load

    return [load(path, metric=metric, cluster=cluster, filter=filter_name) for path in paths]


def _show_row(run: Any, res: Any) -> dict[str, Any]:
    reported = run.reported or {}
    return {"run": run.name, "metric": run.metric, "questions": res.n_questions,
            "answers": res.n_answers, "clusters": res.n_clusters or "", "estimate": res.estimate,
            "naive_se": res.naive_standard_error, "clustered_se": res.standard_error
            if res.n_clusters else "", "design_effect": res.design_effect,
            "low": res.low, "high": res.high, "reported": reported.get("estimate", ""),
            "reported_se": reported.get("standard_error") or "", "errored": run.n_errored,
            "within_share": res.within_share, "method": res.method, "file": run.path}


@evals_app.command("show")
def show(runs: list[str] = typer.Argument(..., metavar="RUN...", help=(
             "Files: lm-eval samples_<task>_<date>.jsonl, Inspect .eval/.json logs, HELM "
             "per_instance_stats.json, CSV/JSONL/Parquet with question and score.")),
         cluster: str | None = _CLUSTER, metric: str | None = _METRIC,
         filter_name: str | None = _FILTER, confidence_level: float = _LEVEL,
         json_out: bool = _JSON, report: Path | None = _REPORT) -> None:
    """How sure is each run's benchmark score? The mean with its naive and clustered
    standard errors, the design effect and the tool's own number beside."""
    from dartboard.evals import interval

    if report is not None:
        check_output(report, "--report")
    loaded = _load(runs, metric, cluster, filter_name)
    results = [interval(run, confidence_level=confidence_level) for run in loaded]
    rows = [_show_row(run, res) for run, res in zip(loaded, results)]
    level = f"{confidence_level:.0%}"
    if report is not None:
        _write_html(report, "dartboard evals show",
                    [(f"runs ({level} intervals)", rows, _SHOW_COLUMNS)]
                    + [(f"{res.name}: more answers per question", res.more_answers, None)
                       for res in results if res.n_answers > res.n_questions])
    if json_out:
        print_json({"runs": [dict(r, more_answers=res.more_answers) for r, res
                             in zip(rows, results)]})
        return
    print_table(f"{len(rows)} run(s), {level} intervals", rows, _SHOW_COLUMNS)
    for res in results:
        if res.n_answers > res.n_questions:
            print_table(f"{res.name}: {res.within_share:.0%} of the variance of question "
                        "means is answer-to-answer noise; with more answers per question",
                        res.more_answers.to_dict(orient="records"),
                        [("answers", "answers"), ("standard_error", "se"),
                         ("half_width", "half width"), ("relative", "relative")])
    if report is not None:
        typer.echo(f"report: {report}")


@evals_app.command("compare")
def compare(runs: list[str] = typer.Argument(..., metavar="RUN_A RUN_B [RUN...]", help=(
                "Two or more runs of the same questions (files as for show).")),
            cluster: str | None = _CLUSTER, metric: str | None = _METRIC,
            filter_name: str | None = _FILTER, confidence_level: float = _LEVEL,
            alpha: float = typer.Option(0.05, "--alpha", help="Level of the verdict."),
            seed: int = typer.Option(0, "--seed", help="Seed of max-T's draws (k runs)."),
            json_out: bool = _JSON, report: Path | None = _REPORT) -> None:
    """Is run A really better than run B on this benchmark? A paired, clustered test on
    the questions both answered; with more runs every pair, max-T adjusted."""
    from dartboard.evals import compare as compare_runs
    from dartboard.exceptions import InputError

    if len(runs) < 2:
        raise InputError(f"evals compare needs at least two runs; got {len(runs)}")
    if report is not None:
        check_output(report, "--report")
    loaded = _load(runs, metric, cluster, filter_name)
    res: Any = compare_runs(*loaded, confidence_level=confidence_level, alpha=alpha,
                       random_state=seed)
    if len(loaded) > 2:
        _compare_k(res, json_out, report)
        return
    rows = _pair_rows(res, confidence_level)
    verdict = _verdict(res, alpha)
    if report is not None:
        _write_html(report, "dartboard evals compare",
                    [(f"{res.name_a} vs {res.name_b}", rows, [("q", "quantity"),
                                                             ("v", "value")])], verdict)
    if json_out:
        print_json(dict(res.to_dict(), verdict=verdict))
        return
    print_table(f"{res.name_a} vs {res.name_b} ({res.method})", rows,
                [("q", "quantity"), ("v", "value")])
    typer.echo(verdict)
    if report is not None:
        typer.echo(f"report: {report}")


def _pair_rows(res: Any, level: float) -> list[dict[str, Any]]:
    return [{"q": f"mean, {res.name_a}", "v": res.estimate_a},
            {"q": f"mean, {res.name_b}", "v": res.estimate_b},
            {"q": "difference (a - b)", "v": res.difference},
            {"q": f"{level:.0%} interval, low", "v": res.low},
            {"q": f"{level:.0%} interval, high", "v": res.high},
            {"q": "p-value", "v": res.pvalue},
            {"q": "se, paired and clustered", "v": res.standard_error},
            {"q": "se, paired", "v": res.naive_standard_error},
            {"q": "se, unpaired (from the two naive)", "v": res.unpaired_standard_error},
            {"q": "design effect", "v": res.design_effect},
            {"q": "correlation of the runs", "v": res.correlation},
            {"q": "questions", "v": res.n_questions},
            {"q": "clusters", "v": res.n_clusters or ""}]


def _verdict(res: Any, alpha: float) -> str:
    if res.significant(alpha):
        winner, loser = (res.name_a, res.name_b) if res.difference > 0 else \
            (res.name_b, res.name_a)
        return (f"{winner} scores higher than {loser} (difference {res.difference:+.4f}, "
                f"p = {res.pvalue:.4g} < {alpha:g}).")
    return (f"No significant difference between {res.name_a} and {res.name_b} (difference "
            f"{res.difference:+.4f}, p = {res.pvalue:.4g} >= {alpha:g}).")


def _compare_k(res: Any, json_out: bool, report: Path | None) -> None:
    pairs = res.pairwise.to_dict(orient="records")
    for row in pairs:
        row["verdict"] = "significant" if row["significant"] else ""
    columns = [("a", "a"), ("b", "b"), ("difference", "a - b"), ("low", "low"),
               ("high", "high"), ("pvalue", "p-value"), ("pvalue_adjusted", "adjusted p"),
               ("verdict", "family-wise")]
    means = [{"run": name, "mean": value} for name, value in res.estimates.items()]
    if report is not None:
        _write_html(report, "dartboard evals compare",
                    [("runs", means, [("run", "run"), ("mean", "mean")]),
                     (f"pairs ({res.method})", pairs, columns)])
    if json_out:
        print_json(res.to_dict())
        return
    print_table(f"{len(means)} runs on {res.n_questions} questions", means,
                [("run", "run"), ("mean", "mean")])
    print_table(f"pairs ({res.method}; simultaneous {res.confidence_level:.0%} "
                f"intervals, alpha = {res.alpha:g})", pairs, columns)
    if report is not None:
        typer.echo(f"report: {report}")


def _write_html(path: Path, title: str, sections: list[tuple[str, Any, Any]],
                note: str = "") -> None:
    """The tables as one self-contained page (no script, no network)."""
    import pandas as pd

    from dartboard import __version__
    from dartboard._format import format_number
    from dartboard.report import write_text_atomic

    parts = []
    for heading, rows, columns in sections:
        frame = pd.DataFrame(rows)
        if columns is not None:
            frame = frame[[key for key, _ in columns]].rename(columns=dict(columns))
        table = frame.to_html(index=False, border=0, na_rep="",
                              float_format=format_number)
        parts.append(f"<h2>{html.escape(heading)}</h2>\n{table}")
    body = "\n".join(parts) + (f"\n<p>{html.escape(note)}</p>" if note else "")
    page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>body{{font-family:sans-serif;"
            "margin:2em}table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
            "th,td{padding:.2em .7em;border-bottom:1px solid #ccc;text-align:right}"
            "th:first-child,td:first-child{text-align:left}</style></head><body>"
            f"<h1>{html.escape(title)}</h1>\n{body}\n<p><small>dartboard {__version__}"
            "</small></p></body></html>\n")
    write_text_atomic(path, page)
