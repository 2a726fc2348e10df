"""Streaming evaluation of a large Parquet dataset: peak memory and rows per second.

Usage::

    python benchmarks/bench_streaming.py [N_ROWS] [N_FILES] [--modes binned,exact,dask,sklearn]

Generates (once) ``N_ROWS`` rows (default 100M) of a binary label (int8) and a
float32 score in ``N_FILES`` Parquet files (default 20) under
``benchmarks/data/`` (git-ignored), then evaluates ROC AUC and average precision:

* ``binned``: :func:`dartboard.scale.evaluate_parquet` with ``exact=False``
  (100k score bins, constant memory, error bound reported);
* ``exact``: the same with the exact map of distinct scores (memory grows with
  the number of distinct scores; skipped above 20M rows unless asked for);
* ``dask``: :func:`dartboard.scale.evaluate_dask` on a ``LocalCluster`` of 2
  single-threaded worker processes (binned);
* ``sklearn``: the peer, ``sklearn.metrics.roc_auc_score`` and
  ``average_precision_score`` on the whole columns loaded into memory (skipped
  above 20M rows unless asked for).

Each mode runs in a fresh child process; a sampling thread (psutil, every 20 ms)
records the peak resident memory of the child and all its descendants (the Dask
workers included). Rows per second count the evaluation call only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BIG = 20_000_000


def generate(folder: str, n_rows: int, n_files: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    marker = os.path.join(folder, "_COMPLETE")
    if os.path.exists(marker):
        return
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(20261122)
    per_file = -(-n_rows // n_files)
    start = time.perf_counter()
    for i in range(n_files):
        rows = min(per_file, n_rows - i * per_file)
        if rows <= 0:
            break
        writer = None
        for offset in range(0, rows, 1_000_000):
            m = min(1_000_000, rows - offset)
            label = (rng.random(m) < 0.3).astype(np.int8)
            score = np.clip(rng.normal(0.35 + 0.3 * label, 0.2), 0, 1).astype(np.float32)
            table = pa.table({"label": label, "score": score})
            if writer is None:
                writer = pq.ParquetWriter(os.path.join(folder, f"part-{i:03d}.parquet"),
                                          table.schema)
            writer.write_table(table)
        writer.close()
    open(marker, "w").close()
    print(f"generated {n_rows:,} rows in {n_files} files in {time.perf_counter() - start:.1f} s")


def _summary(ev) -> dict:
    """Rows, values and error bounds of an evaluation, by registry metric name."""
    from dartboard.metrics._registry import get_spec

    names = ("roc_auc_score", "average_precision_score")
    labels = {name: get_spec(name).table_label(ev.task) for name in names}
    return {"n_rows": ev.n_rows,
            "metrics": {n: float(ev.overall.loc[labels[n], "estimate"]) for n in names},
            "bounds": {n: ev.error_bounds[labels[n]] for n in names
                       if labels[n] in ev.error_bounds}}


def child(mode: str, folder: str) -> None:
    """Run one mode and print a JSON line (runs in its own process)."""
    files = os.path.join(folder, "*.parquet")
    out: dict = {}
    if mode in ("binned", "exact"):
        from dartboard.scale import evaluate_parquet

        start = time.perf_counter()
        res = evaluate_parquet(files, y_true="label", y_score="score", exact=mode == "exact",
                               confidence_level=None)
        out["seconds"] = time.perf_counter() - start
        out.update(_summary(res))
    elif mode == "dask":
        from distributed import Client, LocalCluster

        from dartboard.scale import evaluate_dask

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=":0") as cluster, Client(cluster) as client:
            start = time.perf_counter()
            res = evaluate_dask(files, y_true="label", y_score="score", exact=False,
                                confidence_level=None, scheduler=client)
            out["seconds"] = time.perf_counter() - start
        out.update(_summary(res))
    elif mode == "sklearn":
        import pyarrow.dataset as ds
        from sklearn.metrics import average_precision_score, roc_auc_score

        start = time.perf_counter()
        table = ds.dataset(folder, format="parquet").to_table(columns=["label", "score"])
        y, s = table["label"].to_numpy(), table["score"].to_numpy()
        out["metrics"] = {"roc_auc_score": float(roc_auc_score(y, s)),
                          "average_precision_score": float(average_precision_score(y, s))}
        out["seconds"] = time.perf_counter() - start
        out["n_rows"] = int(y.shape[0])
        out["bounds"] = {}
    print("RESULT " + json.dumps(out))


def measure(mode: str, folder: str) -> dict:
    """Run a mode in a child process while sampling the RSS of its process tree."""
    import psutil

    proc = subprocess.Popen([sys.executable, __file__, "--child", mode, folder],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        root = psutil.Process(proc.pid)
        while not done.is_set():
            try:
                procs = [root, *root.children(recursive=True)]
                total = 0
                for p in procs:
                    try:
                        total += p.memory_info().rss
                    except psutil.Error:
                        pass
                peak = max(peak, total)
            except psutil.Error:
                pass
            time.sleep(0.02)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    stdout, stderr = proc.communicate()
    done.set()
    thread.join()
    lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"mode {mode} failed:\n{stderr[-2000:]}")
    out = json.loads(lines[-1][len("RESULT "):])
    out["peak_rss_mib"] = peak / 2**20
    return out


def main(argv: list[str]) -> None:
    if argv and argv[0] == "--child":
        child(argv[1], argv[2])
        return
    modes_arg = None
    if "--modes" in argv:
        i = argv.index("--modes")
        modes_arg = argv[i + 1].split(",")
        argv = argv[:i] + argv[i + 2:]
    n_rows = int(float(argv[0])) if argv else int(float(os.environ.get("N_ROWS", 100_000_000)))
    n_files = int(argv[1]) if len(argv) > 1 else 20
    modes = modes_arg or (["binned", "dask"] + (["exact", "sklearn"] if n_rows <= BIG else []))
    folder = os.path.join(HERE, "data", f"stream_{n_rows}_{n_files}")
    generate(folder, n_rows, n_files)
    size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
    print(f"dataset: {n_rows:,} rows, {n_files} files, {size / 2**20:.0f} MiB on disk; "
          f"machine shared, timings are noisy")
    results = {mode: measure(mode, folder) for mode in modes}
    reference = results.get("sklearn") or results.get("exact")
    print(f"\n{'mode':<10}{'seconds':>10}{'rows/s':>14}{'peak RSS MiB':>14}"
          f"{'ROC AUC':>12}{'bound':>10}{'AP':>10}{'bound':>10}{'agrees':>8}")
    for mode, r in results.items():
        m, b = r["metrics"], r["bounds"]
        agrees = ""
        if reference is not None and reference is not r:
            ok = all(abs(m[k] - reference["metrics"][k]) <= b.get(k, 0.0) + 1e-12
                     for k in ("roc_auc_score", "average_precision_score"))
            agrees = "yes" if ok else "NO"
        print(f"{mode:<10}{r['seconds']:>10.2f}{r['n_rows'] / r['seconds']:>14,.0f}"
              f"{r['peak_rss_mib']:>14.0f}{m['roc_auc_score']:>12.6f}"
              f"{b.get('roc_auc_score', 0.0):>10.1e}{m['average_precision_score']:>10.6f}"
              f"{b.get('average_precision_score', 0.0):>10.1e}{agrees:>8}")
    if "sklearn" in results:
        sk = results["sklearn"]["seconds"]
        for mode in ("binned", "exact"):
            if mode in results:
                print(f"speed ratio sklearn (in memory) / dartboard {mode} (streaming): "
                      f"{sk / results[mode]['seconds']:.2f}x")
    if "binned" in results:
        status = "under" if results["binned"]["peak_rss_mib"] < 1024 else "OVER"
        print(f"streaming (binned) peak RSS {results['binned']['peak_rss_mib']:.0f} MiB: "
              f"{status} the 1 GiB target")


if __name__ == "__main__":
    main(sys.argv[1:])
