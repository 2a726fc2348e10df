"""Benchmark: clustered rows streamed from Parquet against the same rows in memory.

1,000,000 rows in 10,000 clusters written to 4 Parquet files (every cluster's rows
spread over all four), then, each in its own process so that its peak memory is its
own: ``evaluate_parquet(..., clusters="cluster")`` and ``dartboard.evaluate(...,
clusters=)`` on the rows read into memory, with (a) ten count metrics and BCa over
whole clusters, 2000 resamples, and (b) ROC AUC with ``ci="auto"`` (DeLong-clustered).
Printed: wall time, peak resident memory (and the memory before the evaluation: the
in-memory run holds the rows), and the largest difference between the two runs'
estimates, bounds and design effects (the same seed draws the same clusters).

Usage: python benchmarks/bench_clustered_stream.py [n] [n_clusters] (defaults 1000000
10000).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

COUNT_METRICS = ["accuracy", "balanced_accuracy", "precision", "recall", "specificity", "f1",
                 "negative_predictive_value", "matthews_corrcoef", "jaccard", "cohen_kappa"]
RESAMPLES = 2000


def _write(folder: str, n: int, n_clusters: int, seed: int = 0) -> None:
    """Labels, scores and predictions sharing a cluster effect, shuffled over 4 files."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    cluster = rng.integers(0, n_clusters, n)
    effect = rng.normal(0, 1, n_clusters)[cluster]
    y = (rng.random(n) < 1 / (1 + np.exp(-effect))).astype(np.int64)
    score = np.round(effect + rng.normal(0, 1, n) + y, 3)
    pred = (score > 0.5).astype(np.int64)
    for i, rows in enumerate(np.array_split(rng.permutation(n), 4)):
        pq.write_table(pa.table({"y": y[rows], "pred": pred[rows], "score": score[rows],
                                 "cluster": cluster[rows]}),
                       os.path.join(folder, f"part{i}.parquet"))


def _rss_mb() -> float:
    """Peak resident memory of this process so far (Linux: kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _current_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _child(mode: str, folder: str) -> None:
    """One evaluation (``stream`` or ``memory``), timed; JSON on standard output."""
    import dartboard
    from dartboard.scale import evaluate_parquet

    runs = {"counts": {"metrics": COUNT_METRICS, "ci": "bca", "n_resamples": RESAMPLES},
            "roc_auc": {"metrics": ["roc_auc"], "ci": "auto"}}
    out: dict = {}
    if mode == "memory":
        import pyarrow.dataset as ds

        table = ds.dataset(folder, format="parquet").to_table()
        cols = {c: table.column(c).to_numpy() for c in table.column_names}
    out["before_mb"] = _current_mb()
    for name, options in runs.items():
        start = time.perf_counter()
        if mode == "stream":
            feed = {"y_pred": "pred"} if name == "counts" else {"y_score": "score"}
            ev = evaluate_parquet(folder, y_true="y", clusters="cluster", random_state=0,
                                  **feed, **options)
        else:
            feed = {"y_pred": cols["pred"]} if name == "counts" else \
                {"y_score": cols["score"]}
            ev = dartboard.evaluate(cols["y"], clusters=cols["cluster"], random_state=0,
                                    **feed, **options)
        out[name] = {"seconds": time.perf_counter() - start,
                     "frame": ev.overall[["estimate", "low", "high", "design_effect",
                                          "method"]].to_dict()}
    out["peak_mb"] = _rss_mb()
    print(json.dumps(out))


def _largest_difference(a: dict, b: dict) -> float:
    worst = 0.0
    for column in ("estimate", "low", "high", "design_effect"):
        for metric, value in a[column].items():
            worst = max(worst, abs(float(value) - float(b[column][metric])))
    return worst


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] in ("stream", "memory"):
        _child(sys.argv[1], sys.argv[2])
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    n_clusters = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    with tempfile.TemporaryDirectory() as folder:
        _write(folder, n, n_clusters)
        found = {}
        for mode in ("stream", "memory"):
            done = subprocess.run([sys.executable, __file__, mode, folder], check=True,
                                  capture_output=True, text=True)
            found[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    stream, memory = found["stream"], found["memory"]
    print(f"{n:,} rows in {n_clusters:,} clusters over 4 Parquet files")
    print(f"{'':34s} {'streamed':>10s} {'in memory':>10s}")
    for name, what in (("counts", f"10 count metrics, BCa, {RESAMPLES} resamples"),
                       ("roc_auc", "ROC AUC, ci='auto'")):
        print(f"{what:34s} {stream[name]['seconds']:9.2f}s {memory[name]['seconds']:9.2f}s")
    print(f"{'memory before the evaluation':34s} {stream['before_mb']:8.0f}MB "
          f"{memory['before_mb']:8.0f}MB")
    print(f"{'peak resident memory':34s} {stream['peak_mb']:8.0f}MB "
          f"{memory['peak_mb']:8.0f}MB")
    for name in ("counts", "roc_auc"):
        print(f"largest |streamed - in memory| ({name}): "
              f"{_largest_difference(stream[name]['frame'], memory[name]['frame']):.2e}")
    methods = sorted(set(stream["counts"]["frame"]["method"].values())
                     | set(stream["roc_auc"]["frame"]["method"].values()))
    print("methods:", "; ".join(methods))


if __name__ == "__main__":
    main()
