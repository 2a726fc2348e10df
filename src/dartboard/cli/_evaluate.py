"""``dartboard evaluate``: every applicable metric with its interval, from one file or
streamed from many Parquet files.

Both paths end in the same :class:`~dartboard.Evaluation` (in memory:
:func:`dartboard.evaluate`; streamed: :func:`dartboard.scale.evaluate_parquet`), so
they print the same tables and the same JSON (``to_dict()``), groups included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from dartboard._format import format_number
from dartboard._kernels._methods import METHODS as _CI_METHODS
from dartboard.cli._io import (
    check_output,
    column,
    is_stream_source,
    labels,
    numeric,
    read_table,
)
from dartboard.cli._metrics import label_named
from dartboard.cli._output import (
    GAP_COLUMNS,
    GROUP_COLUMNS,
    METRIC_COLUMNS,
    gap_rows,
    print_json,
    print_table,
)
from dartboard.exceptions import InputError

_CI_HELP = (f"Interval method: {', '.join(_CI_METHODS[:-1])} or {_CI_METHODS[-1]}. A method "
            "applies to the metrics it fits (wilson... to proportions, delong... to ROC "
            "AUC, logit to average precision, t to mean losses); the others keep auto's "
            "choice.")


def evaluate(
    file: str = typer.Argument(
        ..., metavar="FILE",
        help=("CSV or Parquet file; a directory or glob of Parquet files is "
              "streamed.")),
    y_true: str = typer.Option(..., "--y-true", help="Column of true labels or values."),
    y_pred: str | None = typer.Option(
        None, "--y-pred", help=("Column of predicted labels (or values). With --y-score or "
                                "--proba too, the labels give the count metrics and the "
                                "scores the ranking ones.")),
    y_score: str | None = typer.Option(None, "--y-score",
                                       help="Column of positive-class scores (binary)."),
    proba: list[str] | None = typer.Option(None, "--proba",
                                           help="Probability columns, one per class in "
                                                "sorted label order (repeat the option)."),
    threshold: float | None = typer.Option(
        None, "--threshold", help="Binary scores: labels are score >= this (instead of "
                                  "--y-pred, or of 0.5 / 0 chosen from the scores)."),
    pos_label: str | None = typer.Option(
        None, "--pos-label", help=("The positive class of a binary task, as written in the "
                                   "--y-true column (needed unless the labels are 0/1 or "
                                   "-1/1).")),
    task: str = typer.Option("auto", "--task", help="auto, binary, multiclass or regression."),
    ci: str = typer.Option("auto", "--ci", help=_CI_HELP),
    confidence_level: float = typer.Option(0.95, "--confidence-level"),
    n_resamples: int = typer.Option(2000, "--n-resamples", help="Bootstrap resamples."),
    group: list[str] | None = typer.Option(
        None, "--group", help="Column of groups: metrics per group, the gaps between groups "
                              "and (binary) the fairness summaries, each with an interval. "
                              "Repeat for several columns (their combinations)."),
    cluster: str | None = typer.Option(
        None, "--cluster", help=("Column of cluster ids (a patient, a user, a passage) when "
                                 "rows of one cluster are not independent: intervals "
                                 "account for it, and each metric reports its design "
                                 "effect and effective n.")),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
    report: Path | None = typer.Option(None, "--report", help="Also write an HTML report."),
    threshold_criterion: str | None = typer.Option(
        None, "--threshold-criterion",
        help=("Binary scores: choose a threshold (youden, closest_topleft, cost, "
              "min_precision, min_recall, max_fpr) and print the metrics at it with "
              "intervals that cover the chosen threshold's true rates; with --report, "
              "ROC/PR bands too.")),
    threshold_target: float | None = typer.Option(
        None, "--threshold-target",
        help="Bound of min_precision, min_recall or max_fpr."),
) -> None:
    """Every applicable metric with its confidence interval."""
    _check_arguments(file, y_pred, y_score, proba, task, ci, group, cluster, report)
    from dartboard.evaluation import EvaluationOptions  # lazy: --help stays fast

    # the evaluation's options, checked once before the file is read (what every
    # source reads; the positive class is matched to the labels once they are)
    options = EvaluationOptions(
        task=task, ci=ci, confidence_level=confidence_level, n_resamples=n_resamples,
        random_state=seed, threshold=threshold, threshold_criterion=threshold_criterion,
        threshold_target=threshold_target,
        curve_bands=threshold_criterion is not None and report is not None)
    if is_stream_source(file):
        ev = _evaluate_stream(file, y_true, y_pred, y_score, proba, group or None, cluster,
                              json_out, pos_label, options)
        name = file
    else:
        ev = _evaluate_table(file, y_true, y_pred, y_score, proba, group or None, cluster,
                             options, pos_label)
        name = Path(file).name
    payload = ev.to_dict()
    if report is not None:
        ev.to_html(report, title=f"dartboard evaluate: {Path(file).name}", inputs=[file])
    if json_out:
        print_json(payload)
        return
    _print_evaluation(ev, payload, name)
    if report is not None:
        typer.echo(f"report: {report}")


def _check_arguments(file: str, y_pred: str | None, y_score: str | None,
                     proba: list[str] | None, task: str, ci: str, group: list[str] | None,
                     cluster: str | None, report: Path | None) -> None:
    """The command's arguments that are wrong whatever the file holds."""
    from dartboard.metrics._registry import TASKS

    tasks = ("auto", *TASKS)
    if task not in tasks:
        raise InputError(f"--task must be one of {', '.join(tasks)}; got {task!r}")
    if not (y_pred or y_score or proba):
        raise InputError("give --y-pred (labels or values), --y-score (scores of the positive "
                         "class) or --proba (one probability column per class); labels may "
                         "come with scores or probabilities")
    if y_score and proba:
        raise InputError("give --y-score or --proba, not both")
    if report is not None:
        check_output(report, "--report", _input_files(file))
    if group and len(set(group)) != len(group):
        raise InputError(f"--group names a column twice: {group}")
    from dartboard.evaluation._clusters import check_cluster_ci  # lazy: --help stays fast

    check_cluster_ci(ci, cluster is not None, "--cluster", option=f"--ci {ci}")


def _print_evaluation(ev: Any, payload: dict[str, Any], name: str) -> None:
    """The evaluation's tables: the metrics, what was assumed, what a stream left out,
    the groups with their gaps and fairness summaries, the operating point."""
    streamed = payload.get("streamed")
    size = f"n = {payload['n']}" if streamed is None else \
        f"n = {payload['n']}, {streamed['n_files']} file(s), streamed"
    bounded = any("error_bound" in m for m in payload["metrics"])
    design = [("design_effect", "design effect"), ("effective_n", "effective n")] \
        if any("design_effect" in m for m in payload["metrics"]) else []
    print_table(f"{payload['task']} evaluation of {name} ({size})", payload["metrics"],
                METRIC_COLUMNS + ([("error_bound", "error bound")] if bounded else [])
                + design)
    for what, assumed in payload.get("assumptions", {}).items():
        typer.echo(f"assumed {what.replace('_', ' ')}: {assumed['value']} ({assumed['why']})")
    if ev.result.streamed is not None and ev.result.streamed.left_out:
        typer.echo("left out of the streamed evaluation (one file read whole gives them):")
        for line in ev.result.streamed.left_out_lines():
            typer.echo(f"  {line}")
    if payload.get("groups"):
        by = ", ".join(payload["group_columns"])
        print_table(f"by {by}", payload["groups"], GROUP_COLUMNS + design)
        print_table("largest gap between groups (higher - lower; with more than two groups "
                    "the interval allows for the pair being the largest; every pair: --json)",
                    gap_rows(payload["difference"]), GAP_COLUMNS, wrap=("method",))
        _say_why_not(payload["difference"], "gaps")
        if payload.get("fairness"):
            print_table("fairness summaries", gap_rows(payload["fairness"]),
                        [("summary", "summary")] + GAP_COLUMNS[1:], wrap=("method",))
    if payload.get("operating_point"):
        point = payload["operating_point"]
        rows = [{"metric": k, **v} for k, v in point["intervals"].items()]
        print_table(f"operating point ({point['criterion']}): predict positive when score >= "
                    f"{format_number(point['threshold'])} (pROC threshold "
                    f"{format_number(point['midpoint'])})", rows, METRIC_COLUMNS)


def _input_files(file: str) -> list[str]:
    """The files ``FILE`` names: itself, or the Parquet files of a directory or glob
    (none when it names none: reading it fails later, with its own message)."""
    if not is_stream_source(file):
        return [file]
    from dartboard._files import expand

    try:
        return expand(file)
    except (OSError, ValueError):
        return []


def _say_why_not(rows: list[dict[str, Any]], what: str) -> None:
    """Under a table without a method column: why its rows without an interval have
    none (one line per reason)."""
    missing: dict[str, list[str]] = {}
    for row in rows:
        if row.get("low") is None:
            missing.setdefault(str(row.get("method")), []).append(str(row["metric"]))
    for why, metrics in missing.items():
        typer.echo(f"no interval for the {what} of {', '.join(metrics)}: {why}")


def _evaluate_table(file: str, y_true: str, y_pred: str | None, y_score: str | None,
                    proba: list[str] | None, group: list[str] | None, cluster: str | None,
                    options: Any, pos_label: str | None = None) -> Any:
    """The evaluation of one file: its columns handed to :func:`dartboard.evaluate` with
    the command's (checked) ``options``.

    The one place the command line calls the engine (task inference, metrics with
    intervals, curves, groups and the gaps between them).
    """
    import dataclasses

    import numpy as np

    from dartboard.evaluation import evaluate, infer_task

    table = read_table(file)
    truth = labels(column(table, y_true, "--y-true", file), y_true, "--y-true")
    columns: dict[str, Any] = {}
    if cluster is not None:
        columns["clusters"] = labels(column(table, cluster, "--cluster", file), cluster,
                                     "--cluster")
    if group:
        columns["groups"] = {g: labels(column(table, g, "--group", file), g, "--group")
                             for g in group}
    if pos_label is not None:
        options = dataclasses.replace(options, pos_label=label_named(truth, pos_label))
    if y_score is not None:
        columns["y_score"] = numeric(column(table, y_score, "--y-score", file), y_score,
                                     "--y-score")
    if proba:
        columns["y_proba"] = np.column_stack([
            numeric(column(table, c, "--proba", file), c, "--proba") for c in proba])
    if y_pred is None:
        return evaluate(truth, **columns, options=options)
    pred = labels(column(table, y_pred, "--y-pred", file), y_pred, "--y-pred")
    if options.task == "auto" and not (y_score or proba):
        options = dataclasses.replace(options, task=infer_task(truth, y_pred=pred))
    if options.task == "regression":
        truth = numeric(table[y_true], y_true, "--y-true")
        pred = numeric(table[y_pred], y_pred, "--y-pred")
    return evaluate(truth, pred, **columns, options=options)


def _evaluate_stream(source: str, y_true: str, y_pred: str | None, y_score: str | None,
                     proba: list[str] | None, group: list[str] | None, cluster: str | None,
                     json_out: bool, pos_label: str | None, options: Any) -> Any:
    """The evaluation of Parquet files streamed through states (groups, clusters, a
    threshold and an operating point included), with the command's ``options``."""
    import dataclasses

    from dartboard.scale import evaluate_parquet

    if pos_label is not None:
        options = dataclasses.replace(options, pos_label=_stream_label(pos_label))
    return evaluate_parquet(source, y_true=y_true, y_pred=y_pred, y_score=y_score,
                            y_proba=proba or None, groups=group, clusters=cluster,
                            progress=False if json_out else None, options=options)


def _stream_label(text: str | None) -> Any:
    """``--pos-label`` for streamed files, whose labels are not read up front: a number
    when it reads as one (the column's labels are compared by value), else the text."""
    if text is None:
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text
