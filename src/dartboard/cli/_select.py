"""``dartboard select``: rank hyper-parameter configurations by DART."""

from __future__ import annotations

import re
from typing import Any

import typer

from dartboard.cli._io import is_numeric, read_table
from dartboard.cli._output import print_json, print_table
from dartboard.exceptions import InputError

_RANK_COLUMNS = [("configuration", "configuration"), ("mean", "mean"), ("std", "std"),
                 ("dart", "dart"), ("p_best", "P(best)"), ("rank", "rank"),
                 ("rank_by_mean", "rank by mean")]
_INTERVAL_COLUMNS = [("configuration", "configuration"), ("mean_interval", "mean"),
                     ("dart_interval", "dart")]
_UNCERTAINTY = ("mean_low", "mean_high", "dart_low", "dart_high", "p_best")

# numpy >= 2 prints scalars in a dict as np.float64(0.5); read them back as 0.5
_NUMPY_SCALAR_RE = re.compile(r"\bnp\.(?:float|int|uint|bool_|str_)\w*\(([^()]*)\)"
                              r"|\bnp\.(True|False)_\b")


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
    confidence_level: float = typer.Option(0.95, "--confidence-level",
                                           help="Of the intervals of the mean and of DART."),
    n_resamples: int = typer.Option(2000, "--n-resamples",
                                    help="Fold-bootstrap replicates (the folds are resampled "
                                         "together for every configuration)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the fold bootstrap."),
) -> None:
    """Rank hyper-parameter configurations by DART: accuracy and fold-to-fold stability.

    Each configuration's mean and DART score get a fold-bootstrap interval, and P(best)
    is the share of replicates in which it ranks first. The fold scores are treated as
    independent draws, which they are not: these intervals show how much the ranking
    rests on particular folds, not the error of a deployed model.
    """
    from dartboard import dart_rank, dart_sweep

    table = _fold_table(results)
    ranking = dart_rank(table, precision, metric=metric, chance_level=chance_level,
                        confidence_level=confidence_level, n_resamples=n_resamples,
                        random_state=seed)
    rows: list[dict[str, Any]] = [
        {"index": int(r.Index), "configuration": str(r.configuration),
         "mean": float(r.mean), "std": float(r.std),
         "dart": float(r.dart), "rank": int(r.rank), "rank_by_mean": int(r.rank_by_mean),
         **{key: float(getattr(r, key)) for key in _UNCERTAINTY}}
        for r in ranking.itertuples()]
    payload: dict[str, Any] = {"precision": precision, "metric": metric,
                               "chance_level": chance_level,
                               "confidence_level": confidence_level,
                               "n_resamples": n_resamples, "seed": seed, "ranking": rows}
    if sweep:
        res = dart_sweep(table, metric=metric, chance_level=chance_level)
        payload["winners"] = [{"configuration": str(w.configuration), "p_start": w.p_start,
                               "p_end": w.p_end} for w in res.winners.itertuples()]
        payload["crossings"] = [{"p": c.p, "from": str(c.from_configuration),
                                 "to": str(c.to_configuration)}
                                for c in res.crossings.itertuples()]
    if json_out:
        print_json(payload)
        return
    print_table(f"DART ranking at p = {precision:g}", rows, _RANK_COLUMNS)
    shown = [{**r, "mean_interval": _interval(r["mean_low"], r["mean_high"]),
              "dart_interval": _interval(r["dart_low"], r["dart_high"])} for r in rows]
    print_table(f"{confidence_level:.0%} fold-bootstrap intervals ({n_resamples} replicates; "
                "the folds resampled together, as if independent)", shown, _INTERVAL_COLUMNS)
    if sweep:
        print_table("winner by precision", payload["winners"],
                    [("configuration", "winner"), ("p_start", "from p"), ("p_end", "to p")])


def _interval(low: float, high: float) -> str:
    from dartboard._format import format_number

    return f"[{format_number(low)}, {format_number(high)}]"


def _fold_table(path: str) -> Any:
    """cv_results_ as read, or a wide fold table indexed by configuration name."""
    from dartboard.selection import SPLIT_RE

    table = read_table(path, "RESULTS")
    if "params" in table.columns or any(SPLIT_RE.match(str(c)) for c in table.columns):
        if "params" in table.columns and table["params"].map(type).eq(str).all():
            table["params"] = _literal_params(table["params"])
        return table
    first = table.columns[0]
    if not is_numeric(table[first]):
        table = table.set_index(first)
    bad = [c for c in table.columns if not is_numeric(table[c])]
    if bad:
        raise InputError(f"RESULTS {path!r} is neither cv_results_ (no split<k>_test_* "
                         f"columns) nor a table of numeric fold scores; non-numeric "
                         f"columns: {', '.join(map(str, bad[:8]))}")
    return table


def _literal_params(params: Any) -> Any:
    """``params`` saved to CSV arrive as their repr; read them back as dicts when they
    are plain literals (``ast.literal_eval`` evaluates no code), else keep the text."""
    import ast

    try:
        parsed = [ast.literal_eval(_NUMPY_SCALAR_RE.sub(r"\1\2", text)) for text in params]
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return params
    return parsed if all(isinstance(p, dict) for p in parsed) else params
