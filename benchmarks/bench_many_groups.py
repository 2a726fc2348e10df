"""Benchmark: many groups with scores, ``evaluate`` and ``difference()``, against the
previous version of dartboard (and fairlearn's bootstrap, per resample and row).

Each cell: binary labels, continuous scores (a distinct score per row), G groups of
equal expected size, the default metrics (16) with 2000 resamples, ``random_state=0``;
``evaluate(y, y_score=s, groups=g)`` then ``ev.difference()`` (every metric's largest
gap between groups with its selection-aware interval). Cells: 10, 100 and 1,000
groups on 1,000,000 rows, and 100 groups on 100,000 rows (targets: 1,000 groups x 1M
rows under 10 s; 100 x 100k under 1 s, both with ``difference()``).

Every cell runs in a fresh process (imports excluded from the times: a warm-up
evaluation of 1,000 rows first). With ``--old-src DIR`` (the ``src`` folder of a
checkout of an earlier commit) the same cells run on that version too, each cut at
``--timeout`` seconds; the ratio is old / new. fairlearn's ``MetricFrame`` with
``n_boot`` bootstrap replicates resamples every row and recomputes every metric per
replicate and group (here ROC AUC, average precision, log loss and Brier, which
scikit-learn computes from scores), on 100 groups x 100,000 rows: its time per resample
and row against dartboard's for the whole evaluation and difference().

Usage: python benchmarks/bench_many_groups.py [--old-src DIR] [--timeout S]
[--cells 10x1000000,...] [--fairlearn-boot B] [--repeats K] (K runs of each cell per
version, the versions taking turns, the fastest of each); ``--breakdown 1000x1000000`` prints
where one cell's time goes (evaluate, then each metric's gap replicates and interval).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
NEW_SRC = HERE.parent / "src"
CELLS = ((10, 1_000_000), (100, 1_000_000), (1000, 1_000_000), (100, 100_000))
RESAMPLES = 2000


def _data(n: int, groups: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = 1 / (1 + np.exp(-(rng.normal(size=n) + 1.2 * (2 * y - 1))))
    return y, s, rng.integers(0, groups, n)


def cell(groups: int, n: int) -> dict:
    """Time one cell in this process (the dartboard on ``sys.path``)."""
    import dartboard

    warnings.simplefilter("ignore")
    y, s, g = _data(1000, 3)
    dartboard.evaluate(y, y_score=s, groups=g, n_resamples=20, random_state=0).difference()
    y, s, g = _data(n, groups)
    kw = {"progress": False} if "progress" in dartboard.evaluate.__doc__ else {}
    start = time.perf_counter()
    ev = dartboard.evaluate(y, y_score=s, groups=g, n_resamples=RESAMPLES, random_state=0,
                            **kw)
    mid = time.perf_counter()
    table = ev.difference()
    end = time.perf_counter()
    auc = table.loc["roc_auc"]
    return {"evaluate": mid - start, "difference": end - mid, "metrics": len(ev.metrics),
            "roc_auc_gap": [float(auc["estimate"]), float(auc["low"]), float(auc["high"])],
            "roc_auc_method": str(auc["method"])}


def breakdown(groups: int, n: int) -> None:
    """Where one cell's time goes: ``evaluate``, then per metric the gap replicates
    (``reps``) and the largest gap's selection-aware interval (``maxT``)."""
    import dartboard
    from dartboard.evaluation import _gaps, _simultaneous

    warnings.simplefilter("ignore")
    y, s, g = _data(n, groups)
    start = time.perf_counter()
    ev = dartboard.evaluate(y, y_score=s, groups=g, n_resamples=RESAMPLES, random_state=0,
                            progress=False)
    print(f"evaluate {time.perf_counter() - start:.2f}s", flush=True)
    total = 0.0
    for label in ev.metrics:
        start = time.perf_counter()
        metric = _gaps._metric(ev, label)
        mid = time.perf_counter()
        family = _simultaneous.contrasts(metric.values, metric.replicates, _gaps._sizes(ev),
                                         "between_groups")
        found = _simultaneous.largest(family, 0.95)
        end = time.perf_counter()
        print(f"{label:22s} reps {mid - start:6.2f}  maxT {end - mid:6.2f}  "
              f"[{found.low:.4f},{found.high:.4f}]", flush=True)
        total += end - start
    print("total", round(total, 2))


def _run(src: Path, groups: int, n: int, timeout: float) -> dict | None:
    env = {**os.environ, "PYTHONPATH": str(src)}
    try:
        out = subprocess.run([sys.executable, __file__, "--cell", f"{groups}x{n}"], env=env,
                             capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def _fastest(args: argparse.Namespace, groups: int, n: int) -> tuple[dict, dict | None]:
    """The fastest of ``--repeats`` runs of the cell on each version, the two versions
    taking turns (new first, then old first, ...): the first process of a run is often
    the slowest, whichever version it holds."""
    runs: dict[str, list[dict]] = {"new": [], "old": []}
    timed_out = False
    for repeat in range(args.repeats):
        order = ["new", "old"] if repeat % 2 == 0 else ["old", "new"]
        for side in order:
            if side == "old" and (not args.old_src or timed_out):
                continue
            found = _run(NEW_SRC if side == "new" else Path(args.old_src), groups, n,
                         args.timeout)
            if found is None:
                assert side == "old", "the current version timed out"
                timed_out = True
                continue
            runs[side].append(found)

    def best(side: str) -> dict | None:
        if not runs[side] or (side == "old" and timed_out):
            return None
        return min(runs[side], key=lambda r: r["evaluate"] + r["difference"])

    found_new = best("new")
    assert found_new is not None
    return found_new, best("old")


def fairlearn_per_row(n_boot: int) -> float:
    """fairlearn's MetricFrame bootstrap: seconds per resample and row (100 groups x
    100k rows, the four score metrics)."""
    from fairlearn.metrics import MetricFrame
    from sklearn.metrics import average_precision_score, brier_score_loss, log_loss, roc_auc_score

    y, s, g = _data(100_000, 100)
    metrics = {"roc_auc": roc_auc_score, "average_precision": average_precision_score,
               "log_loss": log_loss, "brier_score_loss": brier_score_loss}
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = MetricFrame(metrics=metrics, y_true=y, y_pred=s, sensitive_features=g,
                            n_boot=n_boot, ci_quantiles=[0.025, 0.975], random_state=0)
        frame.difference()
    wall = time.perf_counter() - start
    print(f"fairlearn MetricFrame(n_boot={n_boot}), 4 score metrics, 100 groups x 100,000 "
          f"rows: {wall:.1f} s")
    return wall / (n_boot * 100_000)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cell")
    parser.add_argument("--breakdown", help="GROUPSxROWS: where one cell's time goes")
    parser.add_argument("--old-src")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--cells")
    parser.add_argument("--fairlearn-boot", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=1,
                        help="runs of each cell per version, taking turns; the fastest")
    args = parser.parse_args()
    if args.cell:
        groups, n = (int(x) for x in args.cell.split("x"))
        print(json.dumps(cell(groups, n)))
        return
    if args.breakdown:
        breakdown(*(int(x) for x in args.breakdown.split("x")))
        return
    cells = CELLS if not args.cells else tuple(
        tuple(int(x) for x in c.split("x")) for c in args.cells.split(","))
    print(f"scores, default metrics, {RESAMPLES} resamples; seconds (a fresh process per "
          "cell, imports excluded)")
    header = f"{'groups':>6} {'rows':>10} {'evaluate':>9} {'difference':>10} {'total':>8}"
    if args.old_src:
        header += f" {'previous total':>15} {'ratio':>7}"
    print(header)
    per_row = None
    for groups, n in cells:
        new, old = _fastest(args, groups, n)
        total = new["evaluate"] + new["difference"]
        line = f"{groups:>6} {n:>10,} {new['evaluate']:>9.2f} {new['difference']:>10.2f} " \
               f"{total:>8.2f}"
        if args.old_src:
            if old is None:
                cut = f"> {args.timeout:.0f}"
                line += f" {cut:>15} {'> ' + format(args.timeout / total, '.0f') + 'x':>7}"
            else:
                old_total = old["evaluate"] + old["difference"]
                line += f" {old_total:>15.2f} {old_total / total:>6.1f}x"
        print(line, flush=True)
        low, high = new["roc_auc_gap"][1:]
        print(f"       roc_auc gap {new['roc_auc_gap'][0]:.4f} [{low:.4f}, {high:.4f}]: "
              f"{new['roc_auc_method']}", flush=True)
        if (groups, n) == (100, 100_000):
            per_row = total / (RESAMPLES * n)
    if per_row is not None and args.fairlearn_boot:
        theirs = fairlearn_per_row(args.fairlearn_boot)
        print(f"per resample and row: dartboard {per_row:.2e} s (16 metrics, with "
              f"difference()), fairlearn {theirs:.2e} s (4 metrics): {theirs / per_row:,.0f}x")


if __name__ == "__main__":
    main()
