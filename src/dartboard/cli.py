"""The ``dartboard`` command line.

Subcommands: ``demo``, ``evaluate``, ``compare``, ``select``, ``audit``, ``profile``
and ``report``. Tables go to standard output (``--json`` prints the same numbers as
JSON instead), progress bars and warnings to standard error. Bad input (a missing
file or column, an unreadable file, a bad option value) ends with exit code 2 and
one line ``error: ...`` on standard error, never a traceback, and no output file:
every file is written atomically at the very end.

Estimators are named by import path (``sklearn.linear_model.LogisticRegression``)
with JSON parameters; nothing given on the command line is ever unpickled.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from dartboard import __version__

# Exceptions that mean "the input is wrong", reported in one line with exit code 2.
# (json, pandas and pyarrow parse errors are ValueErrors; unreadable files OSErrors.)
_USER_ERRORS = (ValueError, TypeError, OSError, KeyError)
_EXIT_BAD_INPUT = 2


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


class _Group(TyperGroup):
    """Runs a subcommand and turns bad input into ``error: ...`` and exit code 2.

    The one place where errors are reported: subcommands raise ordinary
    ``ValueError``/``TypeError``/``OSError`` and never catch them themselves.
    """

    def main(self, args: Any = None, prog_name: Any = None, complete_var: Any = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        def show_warning(message: Any, category: Any, *_: Any, **__: Any) -> None:
            typer.echo(f"warning: {_one_line(str(message))}", err=True)

        try:
            with warnings.catch_warnings():
                warnings.showwarning = show_warning
                rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var,
                                  standalone_mode=False, **extra)
        except typer.Abort:
            self._fail("aborted", standalone_mode, 1)
        except typer.TyperException as exc:  # usage errors: unknown option, missing value
            if type(exc).__name__ == "NoArgsIsHelpError":
                typer.echo(exc.ctx.get_help())
                rv = 0
            else:
                self._fail(exc.format_message(), standalone_mode, exc.exit_code)
        except _USER_ERRORS as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            self._fail(_one_line(str(message)) or type(exc).__name__, standalone_mode,
                       _EXIT_BAD_INPUT)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)

    @staticmethod
    def _fail(message: str, standalone_mode: bool, code: int) -> None:
        typer.echo(f"error: {_one_line(message)}", err=True)
        if standalone_mode:
            sys.exit(code)
        raise typer.Exit(code)


app = typer.Typer(name="dartboard", cls=_Group, no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False, rich_markup_mode=None,
                  help="How good is a model really, and which one to pick.")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"dartboard {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """dartboard: metrics with intervals, model comparison, DART selection, audits."""


# ------------------------------------------------------------------ input helpers

_PARQUET = {".parquet", ".pq", ".parq"}


def _is_stream_source(path: str) -> bool:
    return Path(path).is_dir() or any(ch in path for ch in "*?[")


def _read_table(path: str, what: str = "FILE") -> Any:
    """A DataFrame from a CSV, Parquet or (for results) JSON file, with rows."""
    table = _read_file(path, what)
    if len(table) == 0:
        raise ValueError(f"{what} {path!r} has no rows (columns: "
                         f"{', '.join(map(str, list(table.columns)[:12]))})")
    return table


def _read_file(path: str, what: str) -> Any:
    import pandas as pd

    p = Path(path)
    if not p.exists():
        raise ValueError(f"{what} {path!r} does not exist")
    if p.is_dir():
        raise ValueError(f"{what} {path!r} is a directory; give a CSV or Parquet file")
    with open(p, "rb") as handle:
        magic = handle.read(4)
    suffix = p.suffix.lower()
    if suffix in _PARQUET or magic == b"PAR1":
        try:
            return pd.read_parquet(p)
        except Exception as exc:  # pyarrow raises several types for a damaged file
            raise ValueError(f"cannot read Parquet file {path!r}: {_one_line(str(exc))}") \
                from None
    if suffix == ".json":
        try:
            return pd.read_json(p)
        except ValueError as exc:
            raise ValueError(f"cannot read JSON table {path!r}: {_one_line(str(exc))}") \
                from None
    try:
        sep = _csv_separator(p)
        return pd.read_csv(p, sep=sep, index_col=0 if _blank_first_header(p, sep) else None)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read CSV file {path!r}: {_one_line(str(exc))}") from None


def _csv_separator(path: Path) -> str:
    """',' unless the header has none and a ';' (European locales), tab or '|'."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        header = handle.readline()
    if "," in header:
        return ","
    return next((sep for sep in ";\t|" if sep in header), ",")


def _blank_first_header(path: Path, sep: str) -> bool:
    """DataFrame.to_csv writes its index under a blank header: read it as the index
    (row numbers are not a feature, a fold score or a label)."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.readline().startswith(sep)


def _column(table: Any, name: str, option: str, path: str) -> Any:
    if name not in table.columns:
        shown = ", ".join(map(str, list(table.columns)[:12]))
        raise ValueError(f"column {name!r} ({option}) not found in {path!r}; its columns "
                         f"are: {shown}")
    return table[name]


def _numeric(column: Any, name: str, option: str) -> Any:
    import pandas as pd

    if not pd.api.types.is_numeric_dtype(column):
        bad = column[pd.to_numeric(column, errors="coerce").isna()]
        example = bad.iloc[0] if len(bad) else column.iloc[0]
        raise ValueError(f"column {name!r} ({option}) must be numeric; got values such as "
                         f"{example!r}")
    if column.isna().any():
        raise ValueError(f"column {name!r} ({option}) has {int(column.isna().sum())} "
                         "missing value(s)")
    return column.to_numpy()


def _labels(column: Any, name: str, option: str) -> Any:
    if column.isna().any():
        raise ValueError(f"column {name!r} ({option}) has {int(column.isna().sum())} "
                         "missing value(s)")
    return column.to_numpy()


def _metric_function(name: str) -> tuple[str, Any]:
    from dartboard import metrics

    candidates = [name, f"{name}_score"]
    for candidate in candidates:
        if candidate in metrics.__all__ and candidate[0].islower() \
                and candidate not in _NOT_SCALAR_METRICS:
            return candidate, getattr(metrics, candidate)
    choices = sorted(n.removesuffix("_score") for n in metrics.__all__
                     if n[0].islower() and n not in _NOT_SCALAR_METRICS)
    raise ValueError(f"unknown metric {name!r}; choose one of: {', '.join(choices)}")


_NOT_SCALAR_METRICS = {"confusion_matrix", "classification_report", "roc_curve",
                       "precision_recall_curve", "precision_recall_fscore_support",
                       "error_distribution", "cosine_similarity", "fbeta_score"}
_SCORE_METRICS = {"roc_auc_score", "average_precision_score", "pr_auc_score", "log_loss",
                  "brier_score_loss"}
_REGRESSION_METRICS = {"mean_squared_error", "root_mean_squared_error", "mean_absolute_error",
                       "mean_absolute_percentage_error",
                       "weighted_mean_absolute_percentage_error", "median_absolute_error",
                       "median_absolute_deviation", "max_error", "r2_score",
                       "explained_variance_score"}
_LOWER_IS_BETTER = {"log_loss", "brier_score_loss", "mean_squared_error",
                    "root_mean_squared_error", "mean_absolute_error",
                    "mean_absolute_percentage_error", "weighted_mean_absolute_percentage_error",
                    "median_absolute_error", "median_absolute_deviation", "max_error",
                    "false_positive_rate", "false_negative_rate"}


def _estimator(dotted: str, params: str | None) -> Any:
    """An estimator from its import path and JSON parameters (no unpickling)."""
    module_name, _, class_name = dotted.rpartition(".")
    if not module_name or not class_name:
        raise ValueError(f"--model must be an import path such as "
                         f"sklearn.linear_model.LogisticRegression; got {dotted!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"--model {dotted!r}: cannot import module {module_name!r} "
                         f"({_one_line(str(exc))})") from None
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ValueError(f"--model {dotted!r}: module {module_name!r} has no "
                         f"{class_name!r}")
    if not inspect.isclass(cls) or not callable(getattr(cls, "fit", None)):
        raise ValueError(f"--model {dotted!r} must name an estimator class with a fit "
                         "method")
    kwargs: Any = {}
    if params:
        try:
            kwargs = json.loads(params)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--params is not valid JSON ({exc.msg} at character "
                             f"{exc.pos}); got {params!r}") from None
        if not isinstance(kwargs, dict):
            raise ValueError(f"--params must be a JSON object such as '{{\"C\": 0.5}}'; "
                             f"got {params!r}")
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ValueError(f"--params do not fit {class_name}: {_one_line(str(exc))}") \
            from None


def _training_data(path: str, target: str, group: str | None) -> tuple[Any, Any, Any]:
    table = _read_table(path, "DATA")
    y = _labels(_column(table, target, "--target", path), target, "--target")
    groups = None
    if group is not None:
        groups = _labels(_column(table, group, "--group", path), group, "--group")
    features = table.drop(columns=[c for c in (target, group) if c is not None])
    if features.shape[1] == 0:
        raise ValueError(f"DATA {path!r} has no feature columns besides the target")
    bad = [c for c in features.columns if not _is_numeric(features[c])]
    if bad:
        raise ValueError(f"feature columns must be numeric; not numeric in {path!r}: "
                         f"{', '.join(map(str, bad[:8]))}")
    X = features.to_numpy(dtype=float)
    if not (X == X).all():
        raise ValueError(f"feature columns of {path!r} contain missing values")
    return X, y, groups


def _is_numeric(column: Any) -> bool:
    import pandas as pd

    return bool(pd.api.types.is_numeric_dtype(column))


def _split(X: Any, y: Any, groups: Any, test_size: float, seed: int) -> tuple[Any, ...]:
    import numpy as np
    from sklearn.model_selection import train_test_split

    if not 0 < test_size < 1:
        raise ValueError(f"--test-size must be between 0 and 1; got {test_size}")
    _, counts = np.unique(y, return_counts=True)
    stratify = y if counts.size <= max(2, len(y) // 10) and counts.min() >= 2 else None
    parts = [X, y] + ([groups] if groups is not None else [])
    out = train_test_split(*parts, test_size=test_size, random_state=seed, stratify=stratify)
    return tuple(out) + ((None, None) if groups is None else ())


# ------------------------------------------------------------------ output helpers

def _fmt(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "n/a"
        return f"{value:.4f}"
    return str(value)


def _print_table(title: str | None, rows: list[dict[str, Any]], columns: list[tuple[str, str]],
                 *, show_header: bool = True) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False, show_header=show_header)
    for i, (_, label) in enumerate(columns):
        table.add_column(label, justify="left" if i == 0 else "right", no_wrap=i > 0,
                         overflow="fold")
    for row in rows:
        table.add_row(*(_fmt(row.get(key)) for key, _ in columns))
    console = Console(width=max(100, Console().width), soft_wrap=False)
    if title:
        console.print(title, style="bold", markup=False, highlight=False)
    console.print(table)


def _print_json(payload: Any) -> None:
    from dartboard._results import to_jsonable

    typer.echo(json.dumps(to_jsonable(payload), indent=2, allow_nan=False))


_METRIC_COLUMNS = [("metric", "metric"), ("estimate", "estimate"), ("low", "low"),
                   ("high", "high"), ("method", "interval")]
_GROUP_COLUMNS = [("group", "group"), ("n", "n")] + _METRIC_COLUMNS


# ------------------------------------------------------------------ commands

@app.command()
def demo(out: Path = typer.Option(Path("dartboard-demo"), "--out",
                                  help="Directory for report.html and results.json."),
         quick: bool = typer.Option(False, "--quick",
                                    help="A smaller grid and fewer resamples (seconds)."),
         ) -> None:
    """The main job: select, test, audit, profile and evaluate models on data that
    ships with scikit-learn; write report.html and results.json."""
    from dartboard.demo import run_demo

    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} is a file; give a directory (created if "
                         "missing)")
    results = run_demo(out, quick=quick, progress=True)
    rows = [{"item": h["label"], "value": h["value"], "detail": h.get("detail", "")}
            for h in results["highlights"]]
    _print_table("dartboard demo", rows, [("item", ""), ("value", ""), ("detail", "")],
                 show_header=False)
    for note in results.get("notes", []):
        typer.echo(f"note: {note}")
    total = sum(results["timings"].values())
    typer.echo(f"report:  {Path(results['paths']['report']).resolve()}")
    typer.echo(f"results: {Path(results['paths']['results']).resolve()}")
    typer.echo(f"done in {total:.1f} s")


@app.command()
def evaluate(
    file: str = typer.Argument(
        ..., metavar="FILE",
        help=("CSV or Parquet file; a directory or glob of Parquet files is "
              "streamed.")),
    y_true: str = typer.Option(..., "--y-true", help="Column of true labels or values."),
    y_pred: str | None = typer.Option(None, "--y-pred", help="Column of predictions."),
    y_score: str | None = typer.Option(None, "--y-score",
                                       help="Column of positive-class scores (binary)."),
    proba: list[str] | None = typer.Option(None, "--proba",
                                           help="Probability columns, one per class in "
                                                "sorted label order (repeat the option)."),
    task: str = typer.Option("auto", "--task", help="auto, binary, multiclass or regression."),
    ci: str = typer.Option("auto", "--ci", help="Interval method: auto, wilson, wald, "
                                                "clopper-pearson, agresti-coull, jeffreys, "
                                                "delong, percentile, basic or bca."),
    confidence_level: float = typer.Option(0.95, "--confidence-level"),
    n_resamples: int = typer.Option(2000, "--n-resamples", help="Bootstrap resamples."),
    group: str | None = typer.Option(None, "--group", help="Column of groups: metrics "
                                                           "per group too."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
    report: Path | None = typer.Option(None, "--report", help="Also write an HTML report."),
) -> None:
    """Every applicable metric with its confidence interval."""
    from dartboard.evaluation import TASKS

    if task not in TASKS:
        raise ValueError(f"--task must be one of {', '.join(TASKS)}; got {task!r}")
    given = [opt for opt, v in (("--y-pred", y_pred), ("--y-score", y_score),
                                ("--proba", proba)) if v]
    if len(given) != 1:
        raise ValueError("give exactly one of --y-pred, --y-score or --proba"
                         + (f"; got {', '.join(given)}" if given else ""))
    if report is not None:
        _check_output(report, "--report")
    if _is_stream_source(file):
        if group or report:
            raise ValueError("--group and --report need a single file; a directory or glob "
                             "of Parquet files is streamed without them")
        return _evaluate_stream(file, y_true, y_pred, y_score, proba, task, ci,
                                confidence_level, n_resamples, seed, json_out)
    payload = _evaluate_table(file, y_true, y_pred, y_score, proba, task, ci,
                              confidence_level, n_resamples, group, seed)
    if report is not None:
        from dartboard.report import write_report

        key = "regression" if payload["task"] == "regression" else "classification"
        section = dict(payload, heading=f"Evaluation of {Path(file).name}",
                       group_column=group)
        write_report({"title": f"dartboard evaluate: {Path(file).name}",
                      "dartboard_version": __version__, key: section}, report)
    if json_out:
        _print_json({k: v for k, v in payload.items()
                     if k in ("task", "n", "metrics", "groups", "classes")})
        return
    _print_table(f"{payload['task']} evaluation of {Path(file).name} (n = {payload['n']})",
                 payload["metrics"], _METRIC_COLUMNS)
    if payload.get("groups"):
        _print_table(f"by {group}", payload["groups"], _GROUP_COLUMNS)
    if report is not None:
        typer.echo(f"report: {report}")


def _evaluate_table(file: str, y_true: str, y_pred: str | None, y_score: str | None,
                    proba: list[str] | None, task: str, ci: str, confidence_level: float,
                    n_resamples: int, group: str | None, seed: int) -> dict[str, Any]:
    import numpy as np

    from dartboard.evaluation import evaluate_predictions, infer_task

    table = _read_table(file)
    truth = _labels(_column(table, y_true, "--y-true", file), y_true, "--y-true")
    groups = None if group is None else \
        _labels(_column(table, group, "--group", file), group, "--group")
    common = {"confidence_level": confidence_level, "n_resamples": n_resamples,
              "random_state": seed, "groups": groups}
    if y_score is not None:
        score = _numeric(_column(table, y_score, "--y-score", file), y_score, "--y-score")
        return evaluate_predictions(truth, y_score=score, task=task, ci=ci, **common).to_dict()
    if proba:
        matrix = np.column_stack([_numeric(_column(table, c, "--proba", file), c, "--proba")
                                  for c in proba])
        return evaluate_predictions(truth, proba=matrix, task=task, ci=ci, **common).to_dict()
    pred = _labels(_column(table, y_pred, "--y-pred", file), y_pred, "--y-pred")
    if task == "auto":
        task = infer_task(truth, y_pred=pred)
    if task == "regression":
        truth = _numeric(table[y_true], y_true, "--y-true")
        pred = _numeric(table[y_pred], y_pred, "--y-pred")
    return evaluate_predictions(truth, y_pred=pred, task=task, ci=ci, **common).to_dict()


def _evaluate_stream(source: str, y_true: str, y_pred: str | None, y_score: str | None,
                     proba: list[str] | None, task: str, ci: str, confidence_level: float,
                     n_resamples: int, seed: int, json_out: bool) -> None:
    from dartboard.scale import evaluate_parquet

    kind = {"binary": "classification", "multiclass": "classification"}.get(task, task)
    result = evaluate_parquet(source, y_true=y_true, y_pred=y_pred, y_score=y_score,
                              proba=proba or None, task=kind,
                              confidence_level=confidence_level, ci_method=ci,
                              n_resamples=n_resamples, random_state=seed,
                              progress=not json_out)
    rows = []
    for name, value in result.metrics.items():
        iv = result.intervals.get(name)
        rows.append({"metric": name.removesuffix("_score"), "estimate": value,
                     "low": None if iv is None else float(iv.low),
                     "high": None if iv is None else float(iv.high),
                     "method": "n/a" if iv is None else iv.method,
                     "error_bound": result.error_bounds.get(name)})
    payload = {"task": result.task, "n": result.n_rows, "files": result.n_files,
               "mode": result.mode, "metrics": rows}
    if json_out:
        _print_json(payload)
        return
    _print_table(f"{result.task} evaluation of {source} (n = {result.n_rows}, "
                 f"{result.n_files} file(s), streamed)", rows,
                 _METRIC_COLUMNS + [("error_bound", "error bound")])


@app.command()
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
) -> None:
    """Is model A really better than model B on this test set? A paired
    permutation test and a paired bootstrap interval of the difference."""
    from dartboard import compare_models

    name, func = _metric_function(metric)
    table = _read_table(file)
    truth = _labels(_column(table, y_true, "--y-true", file), y_true, "--y-true")
    col_a, col_b = _column(table, a, "--a", file), _column(table, b, "--b", file)
    if name in _SCORE_METRICS | _REGRESSION_METRICS:
        pred_a, pred_b = _numeric(col_a, a, "--a"), _numeric(col_b, b, "--b")
        if name in _REGRESSION_METRICS:
            truth = _numeric(table[y_true], y_true, "--y-true")
    else:
        pred_a, pred_b = _labels(col_a, a, "--a"), _labels(col_b, b, "--b")
    res = compare_models(func, truth, pred_a, pred_b, n_resamples=n_resamples,
                         random_state=seed, **_positive_label(func, truth, pred_a, pred_b,
                                                              scores=name in _SCORE_METRICS))
    lower = name in _LOWER_IS_BETTER
    better_a = res.difference < 0 if lower else res.difference > 0
    label = name.removesuffix("_score")
    if res.significant(alpha):
        winner, loser = (a, b) if better_a else (b, a)
        verdict = (f"{winner} is better than {loser} on {label} (difference "
                   f"{res.difference:+.4f}, p = {res.pvalue:.4g} < {alpha:g}).")
    else:
        verdict = (f"No significant difference between {a} and {b} on {label} "
                   f"(difference {res.difference:+.4f}, p = {res.pvalue:.4g} >= {alpha:g}).")
    payload = {"metric": label, "a": a, "b": b, "estimate_a": res.estimate_a,
               "estimate_b": res.estimate_b, "difference": res.difference,
               "low": res.interval.low, "high": res.interval.high,
               "confidence_level": res.interval.confidence_level, "pvalue": res.pvalue,
               "method": res.method, "n_resamples": res.n_resamples,
               "lower_is_better": lower, "verdict": verdict}
    if json_out:
        _print_json(payload)
        return
    level = f"{payload['confidence_level']:.0%}"
    rows = [{"q": f"{label}, {a}", "v": res.estimate_a},
            {"q": f"{label}, {b}", "v": res.estimate_b},
            {"q": "difference (a - b)", "v": res.difference},
            {"q": f"{level} interval, low", "v": res.interval.low},
            {"q": f"{level} interval, high", "v": res.interval.high},
            {"q": "p-value", "v": res.pvalue}]
    _print_table(f"{a} vs {b} on {Path(file).name}", rows, [("q", "quantity"),
                                                           ("v", "value")])
    typer.echo(verdict)


def _positive_label(func: Any, truth: Any, pred_a: Any, pred_b: Any, *,
                    scores: bool) -> dict[str, Any]:
    """``pos_label`` for a binary metric that takes one: the greater of the two labels,
    as ``evaluate`` reports (sklearn's default 1 fails on string labels)."""
    import numpy as np

    if "pos_label" not in inspect.signature(func).parameters:
        return {}
    labels = np.unique(truth if scores else np.concatenate([truth, pred_a, pred_b]))
    return {"pos_label": labels.tolist()[-1]} if labels.size == 2 else {}


_RANK_COLUMNS = [("configuration", "configuration"), ("mean", "mean"), ("std", "std"),
                 ("dart", "dart"), ("rank", "rank"), ("rank_by_mean", "rank by mean")]


@app.command()
def select(
    results: str = typer.Argument(
        ..., metavar="RESULTS",
        help=("cv_results_ table (CSV, JSON or Parquet, as saved from "
              "pd.DataFrame(search.cv_results_)) or a wide table: one row per "
              "configuration, one column per fold.")),
    precision: float = typer.Option(2.0, "--precision", help="DART precision p >= 0 "
                                                             "(weight of stability)."),
    sweep: bool = typer.Option(False, "--sweep", help="Also show where the winner "
                                                      "changes with p."),
    metric: str | None = typer.Option(None, "--metric", help="Metric of a multi-metric "
                                                             "cv_results_."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
    chance_level: float = typer.Option(0.5, "--chance-level",
                                       help="Score of chance, where DART's numerator is 0 "
                                            "(e.g. 1/n_classes for multiclass accuracy)."),
) -> None:
    """Rank hyper-parameter configurations by DART: accuracy and fold-to-fold stability."""
    from dartboard import dart_rank, dart_sweep

    table = _fold_table(results)
    ranking = dart_rank(table, precision, metric=metric, chance_level=chance_level)
    rows = [{"index": int(r.Index), "configuration": str(r.configuration),
              "mean": float(r.mean), "std": float(r.std),
              "dart": float(r.dart), "rank": int(r.rank), "rank_by_mean": int(r.rank_by_mean)}
            for r in ranking.itertuples()]
    payload: dict[str, Any] = {"precision": precision, "metric": metric,
                               "chance_level": chance_level, "ranking": rows}
    if sweep:
        res = dart_sweep(table, metric=metric, chance_level=chance_level)
        payload["winners"] = [{"configuration": str(w.configuration), "p_start": w.p_start,
                               "p_end": w.p_end} for w in res.winners.itertuples()]
        payload["crossings"] = [{"p": c.p, "from": str(c.from_configuration),
                                 "to": str(c.to_configuration)}
                                for c in res.crossings.itertuples()]
    if json_out:
        _print_json(payload)
        return
    _print_table(f"DART ranking at p = {precision:g}", rows, _RANK_COLUMNS)
    if sweep:
        _print_table("winner by precision", payload["winners"],
                     [("configuration", "winner"), ("p_start", "from p"), ("p_end", "to p")])


def _fold_table(path: str) -> Any:
    """cv_results_ as read, or a wide fold table indexed by configuration name."""
    from dartboard.selection import _SPLIT_RE

    table = _read_table(path, "RESULTS")
    if "params" in table.columns or any(_SPLIT_RE.match(str(c)) for c in table.columns):
        if "params" in table.columns and table["params"].map(type).eq(str).all():
            table["params"] = _literal_params(table["params"])
        return table
    first = table.columns[0]
    if not _is_numeric(table[first]):
        table = table.set_index(first)
    bad = [c for c in table.columns if not _is_numeric(table[c])]
    if bad:
        raise ValueError(f"RESULTS {path!r} is neither cv_results_ (no split<k>_test_* "
                         f"columns) nor a table of numeric fold scores; non-numeric "
                         f"columns: {', '.join(map(str, bad[:8]))}")
    return table


def _literal_params(column: Any) -> Any:
    """``params`` saved to CSV arrive as their repr; read them back as dicts when they
    are plain literals (``ast.literal_eval`` evaluates no code), else keep the text."""
    import ast

    try:
        parsed = [ast.literal_eval(_NUMPY_SCALAR_RE.sub(r"\1\2", text)) for text in column]
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return column
    return parsed if all(isinstance(p, dict) for p in parsed) else column


# numpy >= 2 prints scalars in a dict as np.float64(0.5); read them back as 0.5
_NUMPY_SCALAR_RE = re.compile(r"\bnp\.(?:float|int|uint|bool_|str_)\w*\(([^()]*)\)"
                              r"|\bnp\.(True|False)_\b")


@app.command()
def audit(
    data: str = typer.Argument(
        ..., metavar="DATA",
        help=("CSV or Parquet file: feature columns and the target.")),
    target: str = typer.Option(..., "--target", help="Target column."),
    model: str = typer.Option(..., "--model", help="Estimator class by import path, e.g. "
                                                   "sklearn.linear_model.LogisticRegression."),
    params: str | None = typer.Option(None, "--params", help="Constructor parameters as a "
                                                             "JSON object."),
    n_estimators: int = typer.Option(30, "--n-estimators", help="Bootstrap models."),
    group: str | None = typer.Option(None, "--group", help="Column of groups (not a "
                                                           "feature): metrics per group."),
    test_size: float = typer.Option(0.3, "--test-size", help="Held-out share."),
    seed: int = typer.Option(0, "--seed"),
    n_jobs: int = typer.Option(1, "--n-jobs"),
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """Stability and uncertainty of a model trained on bootstrap samples."""
    from dartboard import stability_audit

    estimator = _estimator(model, params)
    X, y, groups = _training_data(data, target, group)
    X_tr, X_te, y_tr, y_te, _, g_te = _split(X, y, groups, test_size, seed)
    res = stability_audit(estimator, X_tr, y_tr, X_te, y_te, n_estimators=n_estimators,
                          groups=g_te, random_state=seed, n_jobs=n_jobs,
                          progress=not json_out)
    summary = [{"quantity": k, "value": v} for k, v in res.summary.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool)]
    by_group = None if res.by_group is None else res.by_group.to_dict(orient="records")
    if json_out:
        _print_json({"model": model, "n_estimators": n_estimators, "summary": summary,
                     "by_group": by_group})
        return
    _print_table(f"stability of {model.rpartition('.')[2]} ({n_estimators} bootstrap "
                 f"models, {len(y_te)} held-out rows)", summary,
                 [("quantity", "quantity"), ("value", "value")])
    if by_group:
        _print_table(f"by {group}", by_group,
                     [(k, k) for k in ("attribute", "group", "n", "metric", "value",
                                       "difference", "ratio") if k in by_group[0]])


_PROFILE_ROWS = ["fit_time", "fit_time_iqr", "predict_time", "predict_time_iqr", "throughput",
                 "fit_peak_python", "predict_peak_python", "fit_peak_rss", "predict_peak_rss",
                 "model_size", "n_train", "n_test", "repeats"]


@app.command()
def profile(
    data: str = typer.Argument(
        ..., metavar="DATA",
        help=("CSV or Parquet file: feature columns and the target.")),
    target: str = typer.Option(..., "--target", help="Target column."),
    model: str = typer.Option(..., "--model", help="Estimator class by import path."),
    params: str | None = typer.Option(None, "--params", help="Constructor parameters as a "
                                                             "JSON object."),
    repeats: int = typer.Option(5, "--repeats", help="Timed fit + predict runs."),
    test_size: float = typer.Option(0.3, "--test-size", help="Share of rows predicted."),
    seed: int = typer.Option(0, "--seed"),
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Fit and predict time, throughput, peak memory and model size."""
    from dartboard import profile_pipeline

    estimator = _estimator(model, params)
    X, y, _ = _training_data(data, target, None)
    X_tr, X_te, y_tr, _, _, _ = _split(X, y, None, test_size, seed)
    prof = profile_pipeline(estimator, X_tr, y_tr, X_te, repeats=repeats)
    summary = prof.summary()
    rows = [{"quantity": k, "value": summary[k]} for k in _PROFILE_ROWS if k in summary]
    if json_out:
        _print_json({"model": model, **{r["quantity"]: r["value"] for r in rows}})
        return
    _print_table(f"profile of {model.rpartition('.')[2]}", rows,
                 [("quantity", "quantity"), ("value", "value")])


@app.command()
def report(
    results: str = typer.Argument(
        ..., metavar="RESULTS",
        help=("results.json saved by dartboard demo.")),
    output: Path = typer.Option(Path("report.html"), "-o", "--output",
                                help="HTML file to write."),
) -> None:
    """Render the HTML report from a saved results.json."""
    from dartboard.report import write_report

    _check_output(output, "-o")
    path = Path(results)
    if not path.is_file():
        raise ValueError(f"RESULTS {results!r} does not exist")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{results!r} is not valid JSON ({exc.msg}, line {exc.lineno})") \
            from None
    sections = ("selection", "classification", "regression", "stability", "profile")
    if not isinstance(data, dict) or not any(k in data for k in sections):
        raise ValueError(f"{results!r} holds no report sections (expected some of: "
                         f"{', '.join(sections)}); is it a dartboard results.json?")
    write_report(data, output)
    typer.echo(f"report: {output}")


def _check_output(path: Path, option: str) -> None:
    """Fail before any work when an output file cannot be written where asked."""
    if not Path(path).parent.is_dir():
        raise ValueError(f"{option} {str(path)!r}: directory {str(Path(path).parent)!r} does "
                         "not exist")


def main() -> None:
    app()
