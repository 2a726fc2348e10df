"""Benchmark: clusters crossed with groups and scores, against the same call without
clusters (the one-route targets).

Cells, 2000 resamples, ``random_state=0``, scores with a cluster effect:

1. 20,000 rows in 200 clusters and 2 groups, the default metrics, ``evaluate`` and
   ``difference()``: with ``clusters=`` against without (target: within 1.5x), the
   fastest and the median of 15 rounds that take turns (one call lasts a tenth of a
   second, where the machine's noise is of the order of the difference);
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

#: rounds of cell 1 (each call with and without clusters once per round)
ROUNDS = 15


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
        # calls of a tenth of a second: ROUNDS of each, taking turns, so that the two
        # see the same machine; the fastest and the median round of each are reported
        c, y, s, g = _data(20_000, 200)
        out: dict = {"without": [], "with": []}
        for _ in range(ROUNDS):
            for name, extra in (("without", {}), ("with", {"clusters": c})):
                t_ev, ev = _time(lambda: dartboard.evaluate(y, y_score=s, groups=g,
                                                            n_resamples=2000, random_state=0,
                                                            progress=False, **extra))
                t_diff, table = _time(ev.difference)
                out[name].append((t_ev, t_diff))
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
            def summary(rounds: list) -> tuple[float, float, float, float]:
                totals = sorted(e + d for e, d in rounds)
                best = min(rounds, key=lambda r: r[0] + r[1])
                return totals[0], totals[len(totals) // 2], best[0], best[1]

            a, b = summary(found["without"]), summary(found["with"])
            print(f"20,000 rows, 2 groups, default metrics of scores, evaluate + difference(), "
                  f"fastest (median) of {ROUNDS} rounds taking turns: without clusters "
                  f"{a[0] * 1e3:.0f} ms ({a[1] * 1e3:.0f}; {a[2] * 1e3:.0f} + "
                  f"{a[3] * 1e3:.0f}), in 200 clusters {b[0] * 1e3:.0f} ms ({b[1] * 1e3:.0f}; "
                  f"{b[2] * 1e3:.0f} + {b[3] * 1e3:.0f}): {b[0] / a[0]:.2f}x "
                  f"({b[1] / a[1]:.2f}x of the medians; target <= 1.5x)")
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
