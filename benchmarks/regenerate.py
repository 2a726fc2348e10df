"""Regenerate the result files that the validation pages include.

Usage::

    python benchmarks/regenerate.py [--quick] [--only NAME[,NAME...]] [--from-logs] [--list]

Each entry of :data:`RUNS` runs one script of ``benchmarks/`` with the project's
settings, keeps its standard output as ``benchmarks/results/logs/<name>.txt`` (headed
by the date, the machine, the software, the command and the settings), and renders the
log into ``benchmarks/results/<table>.csv`` and ``.rst`` with the script's own
``render`` function. ``--from-logs`` skips the runs and re-renders the committed logs
(the full simulations take hours on two cores). ``--quick`` runs few data sets per cell
to check the pipeline; its logs and tables go to ``benchmarks/results/quick/``, which
is not committed and not read by the documentation.

The speed entries time dartboard against its peers (scikit-learn, fairlearn, mlxtend,
confidenceinterval, torchmetrics): run them in an environment with the ``bench`` extra
and torch installed. Run the whole thing under ``nice`` on a shared machine.
"""

from __future__ import annotations

import argparse
import importlib
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from _results import HERE, RESULTS, provenance, write_tables


@dataclass(frozen=True)
class Run:
    """One run: ``script`` with ``args`` (full) or ``quick`` (pipeline check).

    A ``part`` is a subset of another run (one setting of it) that fits in less time;
    it runs only when named with ``--only``.
    """

    name: str
    script: str
    args: str
    quick: str
    settings: str
    peers: tuple[str, ...] = ()
    part: bool = False
    owns: str = ""  # the prefix of its tables' names, when not its own name


RUNS = [
    Run("coverage", "coverage_simulation.py", "1000 2000 1000 50,200,1000",
        "20 200 200 50,200",
        "1000 data sets per cell; 2000 bootstrap resamples (1000 for ROC AUC); "
        "n = 50, 200, 1000"),
    Run("group_gap", "group_gap_coverage.py", "1000 1000", "20 200",
        "1000 data sets per cell; 1000 bootstrap resamples; m = 50, 200, 2000 per group"),
    Run("largest_gap_null", "largest_gap_coverage.py", "1000 200 null", "20 100 null",
        "1000 data sets per cell; 200 bootstrap resamples; G = 2, 4, 8, 20; m = 20, 50, 300"),
    Run("largest_gap_worse", "largest_gap_coverage.py", "1000 200 worse", "20 100 worse",
        "1000 data sets per cell; 200 bootstrap resamples; G = 2, 4, 8, 20; m = 20, 50, 300"),
    Run("largest_gap_far", "largest_gap_coverage.py", "1000 200 far", "20 100 far",
        "1000 data sets per cell; 200 bootstrap resamples; G = 2, 4, 8, 20; m = 20, 50, 300"),
    Run("normal_gap_coverage", "normal_gap_coverage.py",
        "1000 1000 null,worse 4x200,4x1000,20x200,20x1000 4x200",
        "20 200 null,worse 4x200 4x200",
        "1000 data sets per cell; 1000 bootstrap resamples; G x m = 4x200, 4x1000, 20x200, "
        "20x1000 on the normal path; the exact path on 4x200", owns="normal_gap"),
    Run("ece_gap", "ece_gap_coverage.py", "1000 1000", "10 200 null,worse,calibrated 2x200,10x200",
        "1000 data sets per cell; 1000 bootstrap resamples; ECE with 15 bins; G = 2, 10, 50; "
        "m = 200, 1000; the groups' bins' normal limit and the drawn replicates on the same "
        "data sets"),
    Run("clustered", "clustered_coverage.py", "2000 200 analytic", "20 100 analytic",
        "2000 data sets per cell; ICC 0, 0.05, 0.2, 0.5; 1, 5, 20, 100 rows per cluster; "
        "10, 30, 100 clusters; independent-rows and cluster-robust intervals and the "
        "studentized bootstrap of whole clusters (999 resamples)"),
    Run("clustered_calibration", "clustered_calibration_coverage.py", "1000 1000 --check",
        "20 200", "1000 data sets per cell; 1000 bootstrap resamples; 15 bins; 30 and 100 "
        "clusters of 10 rows, 100 of 1 row; ICC 0, 0.2, 0.5"),
    Run("clustered_type1", "clustered_type1.py", "1000 1000 200", "20 20 50",
        "1000 data sets per cell, the permutation tests too (200 resamples); 50 clusters "
        "of 10 rows; ICC 0 and 0.3"),
    Run("strata", "strata_coverage.py", "1000 500", "20 100",
        "1000 data sets per cell; 500 resamples; 3 sites in shares 50/30/20%; "
        "n = 50, 200, 1000"),
    Run("clustered_curves", "clustered_curves_coverage.py", "1000 500", "20 100",
        "1000 data sets per cell; 500 draws per band and resamples per threshold; "
        "30 and 100 clusters of 10 rows, 100 of 1, 10 and 20 of 10 (rho 0.5)"),
    Run("threshold", "threshold_simulation.py", "--reps 1000 --resamples 200",
        "--reps 20 --resamples 100 --cells 50/50",
        "1000 data sets per cell; 200 bootstrap resamples"),
    Run("band", "band_simulation.py", "--reps 1000 --resamples 1000",
        "--reps 20 --resamples 200 --cells 50/50",
        "1000 data sets per cell; 1000 draws per band"),
    Run("mcnemar_power", "mcnemar_power_simulation.py", "--reps 4000", "--reps 100",
        "4000 data sets per cell; alpha 0.05"),
    Run("evals", "evals_simulation.py", "2000", "20",
        "2000 simulated benchmarks per cell; passages of 5 questions; ICC 0, 0.1, 0.25, "
        "0.5; 1, 3, 5 answers per question; 30 and 100 passages"),
    Run("kmodels", "kmodels_calibration.py", "1000 300 999", "20 300 199",
        "1000 data sets per cell of 300 rows; 999 resamples; k = 4, 6, 10"),
    Run("kmodels_k4_6", "kmodels_calibration.py", "1000 300 999 --k=4,6", "20 300 199 --k=4,6",
        "1000 data sets per cell of 300 rows; 999 resamples; k = 4, 6 only", part=True,
        owns="kmodels_f1"),
    Run("paired_tests", "calibration_simulation.py", "1000 0", "20 0",
        "1000 data sets per cell; alpha 0.05"),
    Run("rank_auc_tests", "compare_calibration.py", "1000 0", "20 0",
        "1000 data sets per cell; 999 resamples; alpha 0.05"),
    Run("rank_auc_tests_rank", "compare_calibration.py", "1000 0 --rank", "20 0 --rank",
        "1000 tables per cell; alpha 0.05; rank_models only", part=True),
    Run("ece", "calibration_simulation_ece.py", "--reps 1000", "--quick",
        "1000 data sets per cell; 15 bins"),
    Run("ece_analytic", "calibration_analytic_pivot_coverage.py", "--reps 1000",
        "--reps 20 --sizes 50,300", "1000 data sets per cell; 15 bins; 2000 resamples per "
        "world for the drawn pivot"),
    Run("nested_cv", "nested_cv_coverage.py", "500 50", "10 10",
        "500 data sets per setting; 50 nested-CV repetitions; n = 100, K = 10"),
    Run("nested_cv_ols", "nested_cv_coverage.py", "500 50 ols", "10 10 ols",
        "500 data sets; 50 nested-CV repetitions; n = 100, K = 10; least squares only",
        part=True),
    Run("nested_cv_logistic_p10_s1", "nested_cv_coverage.py", "500 50 logistic-p10-s1",
        "10 10 logistic-p10-s1", "500 data sets; 50 nested-CV repetitions; n = 100, K = 10; "
        "logistic regression, p = 10, beta_1 = 1 only", part=True),
    Run("nested_cv_logistic_p10_s2", "nested_cv_coverage.py", "500 50 logistic-p10-s2",
        "10 10 logistic-p10-s2", "500 data sets; 50 nested-CV repetitions; n = 100, K = 10; "
        "logistic regression, p = 10, beta_1 = 2 only", part=True),
    Run("nested_cv_ols_groups", "nested_cv_coverage.py", "500 50 ols-groups",
        "10 10 ols-groups", "500 data sets; 50 nested-CV repetitions; n = 100, K = 10; "
        "least squares in 25 groups of 4 only", part=True),
    Run("nested_cv_auc_p10_s1", "nested_cv_coverage.py", "1000 50 auc-p10-s1 50",
        "10 10 auc-p10-s1", "1000 data sets; 50 nested-CV repetitions; n = 100, K = 10; "
        "logistic regression, p = 10, beta_1 = 1, ROC AUC only", part=True),
    Run("nested_cv_auc_p10_s1_n200", "nested_cv_coverage.py", "1000 50 auc-p10-s1-n200 50",
        "10 10 auc-p10-s1-n200", "1000 data sets; 50 nested-CV repetitions; n = 200, "
        "K = 10; logistic regression, p = 10, beta_1 = 1, ROC AUC only", part=True),
    Run("speed_sklearn", "bench_confusion.py", "1000000 1000000 3", "100000 100000 1",
        "1,000,000 rows; best of 3", ("scikit-learn",)),
    Run("speed_intervals", "bench_intervals.py",
        "--n-large 1000000 --n-peer 100000 --peer-resamples 200",
        "--n-large 100000 --n-peer 10000 --resamples 1000 --peer-resamples 50 "
        "--auc-resamples 200",
        "F1 BCa: 1,000,000 rows, 10,000 resamples; peers: 100,000 rows, 200 resamples; "
        "ROC AUC BCa: 1,000,000 rows, 2000 resamples", ("confidenceinterval", "scikit-learn")),
    Run("speed_groups", "bench_groups.py", "1000000 100000 20", "100000 10000 5",
        "dartboard: 1,000,000 rows, 2000 resamples; fairlearn: 100,000 rows, 20 resamples",
        ("fairlearn",)),
    Run("speed_compare", "bench_compare.py", "1000000 100000 20", "100000 10000 5",
        "dartboard: 1,000,000 rows, 5000 + 5000 resamples; mlxtend: 100,000 rows, 20 rounds",
        ("mlxtend",)),
    Run("speed_calibration", "bench_calibration.py", "--rows 1000000 --repeats 3",
        "--rows 100000 --repeats 1", "1,000,000 rows; best of 3", ("torchmetrics", "torch")),
    Run("speed_virny", "bench_virny.py", "20 5000 3", "5 500 1",
        "20 models x 5,000 points; dartboard best of 3", ("virny",)),
    Run("speed_scores", "bench_scores.py", "1000000 3", "100000 1",
        "1,000,000 rows; best of 3", ("scikit-learn",)),
    Run("speed_kmodels", "bench_kmodels.py", "", "100000",
        "the script's defaults: 1,000,000 rows, k = 10, 5000 resamples; mlxtend one pair",
        ("mlxtend",)),
]


def run_one(run: Run, log: Path, quick: bool) -> None:
    """Run the script with its header and footer written into ``log``."""
    args = run.quick if quick else run.args
    command = f"python benchmarks/{run.script} {args}".strip()
    settings = "quick pipeline check (few data sets)" if quick else run.settings
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with log.open("w") as out:
        out.write(provenance(command, settings, run.peers))
        out.flush()
        done = subprocess.run([sys.executable, str(HERE / run.script), *shlex.split(args)],
                              stdout=out, stderr=subprocess.STDOUT, cwd=HERE.parent,
                              check=False)
        end = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        out.write(f"# finished: {end}, {time.perf_counter() - start:.0f} s, "
                  f"exit {done.returncode}\n")
    if done.returncode != 0:
        raise SystemExit(f"{run.name}: {command} failed (exit {done.returncode}); see {log}")


def render(run: Run, log: Path, out_dir: Path) -> list[Path]:
    """The script's tables of the log; a run owns the tables whose names start with its
    own (a log that holds more, such as a stopped run's first cells of the next
    scenario, leaves those to their own run)."""
    module = importlib.import_module(run.script.removesuffix(".py"))
    owns = run.owns or run.name
    tables = [t for t in module.render(log.read_text()) if t.name.startswith(owns)]
    if not tables:
        raise SystemExit(f"{run.name}: no table found in {log}")
    return write_tables(tables, log, out_dir)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="few data sets: check the pipeline")
    ap.add_argument("--only", default="", help="comma-separated names (see --list)")
    ap.add_argument("--from-logs", action="store_true", help="re-render the saved logs")
    ap.add_argument("--list", action="store_true", help="list the runs and stop")
    opts = ap.parse_args(argv)
    if opts.list:
        for r in RUNS:
            part = "  (part: --only)" if r.part else ""
            print(f"{r.name:<20} python benchmarks/{r.script} {r.args}{part}")
        return
    wanted = set(filter(None, opts.only.split(",")))
    unknown = wanted - {r.name for r in RUNS}
    if unknown:
        ap.error(f"--only: unknown name(s) {', '.join(sorted(unknown))}")
    out_dir = RESULTS / "quick" if opts.quick else RESULTS
    sys.path.insert(0, str(HERE))
    for run in RUNS:
        if run.name not in wanted and (wanted or run.part):
            continue
        log = out_dir / "logs" / f"{run.name}.txt"
        if not opts.from_logs:
            print(f"{run.name}: running ...", flush=True)
            run_one(run, log, opts.quick)
        elif not log.exists():
            print(f"{run.name}: no log {log}, skipped", flush=True)
            continue
        written = render(run, log, out_dir)
        print(f"{run.name}: wrote {', '.join(p.name for p in written)}", flush=True)


if __name__ == "__main__":
    main()
