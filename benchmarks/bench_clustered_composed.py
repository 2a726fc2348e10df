"""Benchmark: clusters crossed with groups and scores, against the same call without
clusters (the one-route targets).

Cells, 2000 resamples, ``random_state=0``, scores with a cluster effect:

1. 20,000 rows in 200 clusters and 2 groups, the default metrics, ``evaluate`` and
   ``difference()``: with ``clusters=`` against without (target: within 1.5x);
2. 1,000,000 rows in 10,000 clusters, the ten count metrics of
   ``benchmarks/bench_clustered.py`` (target: under 2 s);
3. 1,000,000 rows in 100,000 clusters, the default metrics of scores, average
   precision included (target: under 10 s);
4. the same rows streamed from a Parquet file (``evaluate(path, clusters="cluster")``,
   one state per cluster), against cell 3's numbers: the same intervals, and the time.

Every cell runs in a fresh process (a warm-up call of 1,000 rows first; imports are
not timed), so one cell's memory does not slow the next.

Usage: python benchmarks/bench_clustered_composed.py [cells] (default 1,2,3,4)
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import warnings

import numpy as np
from bench_clustered import COUNT_METRICS


def _data(n: int, n_clusters: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    cluster = rng.integers(0, n_clusters, n)
    effect = rng.normal(0, 1, n_clusters)[cluster]
    y = (rng.random(n) < 1 / (1 + np.exp(-effect))).astype(int)
    score = 1 / (1 + np.exp(-(effect + rng.normal(0, 1, n) + y - 0.5)))
    return cluster, y, score, rng.integers(0, 2, n)


def _time(call) -> tuple[float, object]:
    start = time.perf_counter()
    out = call()
    return time.perf_counter() - start, out


def cell(which: int) -> dict:
    import dartboard

    warnings.simplefilter("ignore")
    c, y, s, g = _data(1000, 50)
    dartboard.evaluate(y, y_score=s, groups=g, clusters=c, n_resamples=20,
                       random_state=0).difference()
    if which == 1:
        c, y, s, g = _data(20_000, 200)
        out = {}
        for name, extra in (("without", {}), ("with", {"clusters": c})):
            t_ev, ev = _time(lambda: dartboard.evaluate(y, y_score=s, groups=g,
                                                        n_resamples=2000, random_state=0,
                                                        progress=False, **extra))
            t_diff, table = _time(ev.difference)
            out[name] = {"evaluate": t_ev, "difference": t_diff,
                         "methods": sorted(set(ev.overall["method"]))}
        return out
    if which == 2:
        c, y, s, _ = _data(1_000_000, 10_000)
        t, ev = _time(lambda: dartboard.evaluate(y, (s > 0.5).astype(int), clusters=c,
                                                 metrics=COUNT_METRICS, n_resamples=2000,
                                                 random_state=0, progress=False))
        return {"evaluate": t, "methods": sorted(set(ev.overall["method"]))}
    c, y, s, _ = _data(1_000_000, 100_000)
    if which == 4:
        import tempfile

        import pandas as pd

        with tempfile.TemporaryDirectory() as folder:
            path = f"{folder}/rows.parquet"
            pd.DataFrame({"label": y, "score": s, "cluster": c}).to_parquet(path)
            t, ev = _time(lambda: dartboard.evaluate(path, y_true="label", y_score="score",
                                                     clusters="cluster", n_resamples=2000,
                                                     random_state=0, progress=False))
        memory = dartboard.evaluate(y, y_score=s, clusters=c, n_resamples=2000,
                                    random_state=0, progress=False).overall
        cols = ["estimate", "low", "high"]
        gap = float((ev.overall[cols] - memory.loc[ev.overall.index, cols]).abs().max().max())
        return {"evaluate": t, "metrics": len(ev.metrics), "largest_difference": gap,
                "same_methods": bool((ev.overall["method"]
                                      == memory.loc[ev.overall.index, "method"]).all())}
    t, ev = _time(lambda: dartboard.evaluate(y, y_score=s, clusters=c, n_resamples=2000,
                                             random_state=0, progress=False))
    slow = {m: str(ev.overall.loc[m, "method"]) for m in ("average_precision", "pr_auc",
                                                          "roc_auc", "log_loss", "ece")}
    return {"evaluate": t, "metrics": len(ev.metrics), "methods": slow}


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--cell":
        print(json.dumps(cell(int(sys.argv[2]))))
        return
    cells = [int(x) for x in (sys.argv[1] if len(sys.argv) > 1 else "1,2,3,4").split(",")]
    for which in cells:
        out = subprocess.run([sys.executable, __file__, "--cell", str(which)],
                             capture_output=True, text=True, check=True)
        found = json.loads(out.stdout.strip().splitlines()[-1])
        if which == 1:
            a, b = found["without"], found["with"]
            total_a = a["evaluate"] + a["difference"]
            total_b = b["evaluate"] + b["difference"]
            print(f"20,000 rows, 2 groups, default metrics of scores, evaluate + difference(): "
                  f"without clusters {total_a:.2f} s ({a['evaluate']:.2f} + "
                  f"{a['difference']:.2f}), in 200 clusters {total_b:.2f} s "
                  f"({b['evaluate']:.2f} + {b['difference']:.2f}): {total_b / total_a:.1f}x "
                  "(target <= 1.5x)")
        elif which == 2:
            print(f"1,000,000 rows in 10,000 clusters, 10 count metrics: {found['evaluate']:.2f}"
                  f" s (target < 2 s); methods {found['methods']}")
        elif which == 3:
            print(f"1,000,000 rows in 100,000 clusters, {found['metrics']} default metrics of "
                  f"scores: {found['evaluate']:.2f} s (target < 10 s); {found['methods']}")
        else:
            print(f"the same streamed from Parquet (a state per cluster): "
                  f"{found['evaluate']:.2f} s; largest difference from in memory "
                  f"{found['largest_difference']:.1e}, same methods: {found['same_methods']}")


if __name__ == "__main__":
    main()
