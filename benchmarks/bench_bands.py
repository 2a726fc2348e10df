"""Benchmark: ROC/PR confidence bands of dartboard against R's pROC ``ci.se``.

1. Pointwise band of the sensitivity at 100 specificities, 2,000 stratified
   draws, n = 1,000,000 continuous scores (target: under 10 s); the same for
   the precision at 100 recalls, and the simultaneous ROC band (best of three).
2. pROC's ``ci.se`` at the same 100 specificities with ``boot.n = 2000`` on
   n = 100,000 rows, through ``Rscript`` (pROC 1.18 from Debian's r-cran-proc),
   timed in the same run beside dartboard on the same 100,000 rows; the ratio of
   the two times, and the largest difference of their band limits (different
   constructions, pROC's a percentile bootstrap: they agree away from the ends of
   the curve and part at them, where the bootstrap band does not cover; see
   ``band_simulation.py``).

Usage: python benchmarks/bench_bands.py [--n-large 1000000] [--n-peer 100000]
       [--resamples 2000] [--points 100] [--skip-r]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from _timing import best_time

from dartboard import pr_band, roc_band


def binormal(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    return y, rng.normal(size=n) + 1.2 * y


R_SCRIPT = """
suppressMessages(library(pROC))
d <- read.csv("{csv}")
sp <- seq(0, 1, length.out = {points})
r <- roc(d$y, d$s, levels = c(0, 1), direction = "<", quiet = TRUE)
set.seed(1)
t0 <- proc.time()[["elapsed"]]
ci <- ci.se(r, specificities = sp, boot.n = {resamples}, progress = "none")
t1 <- proc.time()[["elapsed"]]
cat("SECONDS", t1 - t0, "\\n")
cat("LOW", ci[, 1], "\\n")
cat("HIGH", ci[, 3], "\\n")
"""


def run_proc(y: np.ndarray, s: np.ndarray, points: int, resamples: int) -> dict | None:
    if shutil.which("Rscript") is None:
        print("Rscript not found: pROC not timed")
        return None
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "data.csv"
        np.savetxt(csv, np.column_stack([y, s]), delimiter=",", header="y,s", comments="",
                   fmt=["%d", "%.17g"])
        script = Path(tmp) / "bench.R"
        script.write_text(R_SCRIPT.format(csv=csv, points=points, resamples=resamples))
        start = time.perf_counter()
        run = subprocess.run(["Rscript", str(script)], capture_output=True, text=True)
        wall = time.perf_counter() - start
    if run.returncode != 0:
        print("pROC failed:", run.stderr[-500:])
        return None
    out = {line.split()[0]: np.array(line.split()[1:], dtype=float)
           for line in run.stdout.splitlines() if line.split()}
    return {"seconds": float(out["SECONDS"][0]), "wall": wall, "low": out["LOW"],
            "high": out["HIGH"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-large", type=int, default=1_000_000)
    ap.add_argument("--n-peer", type=int, default=100_000)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--points", type=int, default=100)
    ap.add_argument("--skip-r", action="store_true")
    args = ap.parse_args()
    grid = np.linspace(0.0, 1.0, args.points)

    y, s = binormal(args.n_large)
    print(f"n = {args.n_large:,}, {args.points} points, {args.resamples} resamples")
    for label, fn in [
        ("roc_band pointwise (sensitivity at specificities)",
         lambda: roc_band(y, s, specificities=grid, n_resamples=args.resamples,
                          random_state=0)),
        ("roc_band simultaneous",
         lambda: roc_band(y, s, specificities=grid, kind="simultaneous",
                          n_resamples=args.resamples, random_state=0)),
        ("pr_band pointwise (precision at recalls)",
         lambda: pr_band(y, s, recalls=np.linspace(0.01, 1, args.points),
                         n_resamples=args.resamples, random_state=0)),
    ]:
        seconds, _ = best_time(fn, repeats=3)
        verdict = "meets" if seconds < 10 else "MISSES"
        print(f"  {label:52s} {seconds:7.2f} s  ({verdict} the 10 s target)")

    y, s = binormal(args.n_peer, seed=1)
    ours_s, band = best_time(lambda: roc_band(y, s, specificities=grid,
                                              n_resamples=args.resamples, random_state=0),
                             repeats=3)
    print(f"\nn = {args.n_peer:,}: dartboard roc_band {ours_s:.3f} s")
    if args.skip_r:
        return
    proc = run_proc(y, s, args.points, args.resamples)
    if proc is None:
        return
    print(f"  pROC ci.se (boot.n = {args.resamples}) {proc['seconds']:.1f} s inside R "
          f"({proc['wall']:.1f} s with start-up and reading the CSV)")
    print(f"  ratio pROC / dartboard: {proc['seconds'] / ours_s:,.0f}x")
    print(f"  largest |difference| of the band limits: low "
          f"{np.max(np.abs(band.low - proc['low'])):.4f}, high "
          f"{np.max(np.abs(band.high - proc['high'])):.4f}")


if __name__ == "__main__":
    main()
