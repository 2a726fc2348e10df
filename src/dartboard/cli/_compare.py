"""``dartboard compare``: two models, or k models pair by pair, on one test set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from dartboard.cli._io import check_output, column, labels, numeric, read_table
from dartboard.cli._metrics import (
    command_line_metric,
    lower_is_better,
    positive_label_kwargs,
    takes_numbers,
    takes_values,
)
from dartboard.cli._output import print_json, print_table
from dartboard.exceptions import InputError


def compare(
    file: str = typer.Argument(
        ..., metavar="FILE",
        help=("CSV or Parquet file with both models' outputs.")),
    y_true: str = typer.Option(..., "--y-true", help="Column of true labels or values."),
    a: str = typer.Option(..., "--a", help="Column of model A's predictions or scores."),
    b: str = typer.Option(..., "--b", help="Column of model B's predictions or scores."),
    metric: str = typer.Option("accuracy", "--metric", help="Metric name, e.g. accuracy, "
                                                            "f1, roc_auc, log_loss."),
    n_resamples: int = typer.Option(5000, "--n-resamples",
                                    help="Permutation and bootstrap resamples."),
    seed: int = typer.Option(0, "--seed"),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level of the verdict."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    model: list[str] = typer.Option(
        [], "--model", help=("A further model's column (repeat for each). With more than "
                             "two models every pair is compared, with family-wise control.")),
    method: str = typer.Option("maxt", "--method",
                               help="Family-wise control of k models: maxt or holm."),
    report: Path | None = typer.Option(None, "--report",
                                       help="With --model: also write an HTML report."),
    pos_label: str | None = typer.Option(
        None, "--pos-label", help=("The positive class of a binary metric, as written in the "
                                   "--y-true column (needed unless the labels are 0/1 or "
                                   "-1/1).")),
) -> None:
    """Is model A really better than model B on this test set? A paired
    permutation test and a paired bootstrap interval of the difference; with
    --model, every pair of the k models with adjusted p-values."""
    from dartboard import compare_models

    resolved = command_line_metric(metric)
    spec = resolved.spec
    if report is not None:
        if not model:
            raise InputError("--report needs more than two models (--model); a comparison of "
                             "two is printed only")
        check_output(report, "--report", [file])
    table = read_table(file)
    truth = labels(column(table, y_true, "--y-true", file), y_true, "--y-true")
    if model:
        _compare_k(resolved, table, truth, y_true, [a, b, *model], file, n_resamples, seed,
                   alpha, method, json_out, report, pos_label)
        return
    col_a, col_b = column(table, a, "--a", file), column(table, b, "--b", file)
    if takes_numbers(spec):
        pred_a, pred_b = numeric(col_a, a, "--a"), numeric(col_b, b, "--b")
        if takes_values(spec):
            truth = numeric(table[y_true], y_true, "--y-true")
    else:
        pred_a, pred_b = labels(col_a, a, "--a"), labels(col_b, b, "--b")
    res = compare_models(spec.function, truth, pred_a, pred_b, n_resamples=n_resamples,
                         random_state=seed, **resolved.kwargs,
                         **positive_label_kwargs(spec, truth, pred_a, pred_b,
                                                 kwargs=resolved.kwargs, pos_label=pos_label))
    lower = lower_is_better(spec)
    label = resolved.label
    payload = _payload(res, label, a, b, alpha, lower)
    if json_out:
        print_json(payload)
        return
    level = f"{payload['confidence_level']:.0%}"
    rows = [{"q": f"{label}, {a}", "v": res.estimate_a},
            {"q": f"{label}, {b}", "v": res.estimate_b},
            {"q": "difference (a - b)", "v": res.difference},
            {"q": f"{level} interval, low", "v": res.interval.low},
            {"q": f"{level} interval, high", "v": res.interval.high},
            {"q": "p-value", "v": res.pvalue}]
    print_table(f"{a} vs {b} on {Path(file).name}", rows, [("q", "quantity"),
                                                          ("v", "value")])
    if res.pvalue_floor is not None:
        typer.echo(f"p <= 1/{res.n_resamples + 1} is the smallest p-value {res.n_resamples} "
                   "permutations can give (none was as extreme as the data): the true "
                   "p-value may be smaller; more --n-resamples lower the floor")
    typer.echo(payload["verdict"])


def _payload(res: Any, label: str, a: str, b: str, alpha: float,
             lower: bool) -> dict[str, Any]:
    """The comparison's numbers and its verdict in words."""
    better_a = res.difference < 0 if lower else res.difference > 0
    if res.significant(alpha):
        winner, loser = (a, b) if better_a else (b, a)
        verdict = (f"{winner} is better than {loser} on {label} (difference "
                   f"{res.difference:+.4f}, p = {res.pvalue:.4g} < {alpha:g}).")
    else:
        verdict = (f"No significant difference between {a} and {b} on {label} "
                   f"(difference {res.difference:+.4f}, p = {res.pvalue:.4g} >= {alpha:g}).")
    return {"metric": label, "a": a, "b": b, "estimate_a": res.estimate_a,
            "estimate_b": res.estimate_b, "difference": res.difference,
            "low": res.interval.low, "high": res.interval.high,
            "confidence_level": res.interval.confidence_level, "pvalue": res.pvalue,
            "method": res.method, "n_resamples": res.n_resamples,
            "pvalue_floor": res.pvalue_floor, "lower_is_better": lower, "verdict": verdict}


def _compare_k(resolved: Any, table: Any, truth: Any, y_true: str, names: list[str],
               file: str, n_resamples: int, seed: int, alpha: float, method: str,
               json_out: bool, report: Path | None, pos_label: str | None = None) -> None:
    """Every pair of k models (the columns ``names``), with family-wise adjusted p-values."""
    from dartboard import __version__, compare_k_models

    spec = resolved.spec
    if len(set(names)) != len(names):
        raise InputError(f"--a, --b and --model must name different columns; got {names}")
    options = ["--a", "--b", *["--model"] * (len(names) - 2)]
    reader = numeric if takes_numbers(spec) else labels
    preds = {name: reader(column(table, name, opt, file), name, opt)
             for name, opt in zip(names, options)}
    if takes_values(spec):
        truth = numeric(table[y_true], y_true, "--y-true")

    res = compare_k_models(spec.function, truth, preds, method=method,
                           n_resamples=n_resamples, alpha=alpha, random_state=seed,
                           **resolved.kwargs,
                           **positive_label_kwargs(spec, truth, *preds.values(),
                                                   kwargs=resolved.kwargs, pos_label=pos_label))
    label = resolved.label
    pairs = res.pairwise.to_dict(orient="records")
    if report is not None:
        from dartboard.report import write_report
        from dartboard.report._inputs import k_models_input

        write_report({"title": f"dartboard compare: {Path(file).name}",
                      "dartboard_version": __version__, "k_models": k_models_input(res)},
                     report, inputs=[file])
    if json_out:
        print_json({"metric": label, "models": res.estimates.to_dict(), "method": res.method,
                    "sampler": res.sampler, "alpha": res.alpha,
                    "n_resamples": res.n_resamples, "lower_is_better": lower_is_better(spec),
                    "pairwise": pairs})
        return
    print_table(f"{len(preds)} models on {Path(file).name}",
                [{"m": name, "v": value} for name, value in res.estimates.items()],
                [("m", "model"), ("v", label)])
    for row in pairs:
        row["verdict"] = "significant" if row["significant"] else ""
    print_table(f"pairs ({res.sampler}; alpha = {res.alpha:g})", pairs,
                [("model_a", "a"), ("model_b", "b"), ("difference", "a - b"),
                 ("pvalue", "p-value"), ("pvalue_adjusted", "adjusted p"),
                 ("verdict", "family-wise")])
    if report is not None:
        typer.echo(f"report: {report}")
