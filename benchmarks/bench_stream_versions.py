"""Streaming from Parquet, like for like: this checkout against an earlier commit.

Usage::

    python benchmarks/bench_stream_versions.py [N_ROWS] [N_FILES] [--old=COMMIT] [--repeats=R]
        [--rounds=K]

Writes (once) ``N_ROWS`` rows (default 5M) of a binary label (int8) and a float32
score in ``N_FILES`` Parquet files (default 5) under ``benchmarks/data/``
(git-ignored), with ``benchmarks/bench_streaming.py``'s generator. Then, for the
earlier commit (default ``7da99ed``, the last before
the one-route redesign; its ``src/`` is exported with ``git archive`` to a temporary
folder) and for this checkout, one fresh child process each:

* ``roc_auc``: ``evaluate_parquet(folder, y_true="label", y_score="score",
  metrics=["roc_auc"])``;
* ``defaults``: the same without ``metrics``, so each version's default metrics
  with their intervals (the earlier commit computed 3, this one 16).

Everything runs on one thread (pyarrow's CPU and I/O pools, BLAS and OpenMP set to
1). Each call is timed ``R`` times after a first warm-up call in the same process;
the fastest is printed with rows per second, the child's peak resident memory, and
the ratio old/new (above 1: this checkout is faster). The numbers of both versions
are printed too, so a change in what is computed shows beside the time.

``--rounds=K`` (default 1) runs the two children ``K`` times each, old and new in
turn (the first of the pair alternating), so that a slower spell of a shared machine
falls on both: the table then gives the fastest of all ``K x R`` calls of each version
and, beside it, the median. The median user and system time of a call and its minor
page faults are printed too (as comments).

``--huge-pages=off`` runs both children with ``NUMPY_MADVISE_HUGEPAGE=0`` (numpy's
own switch). By default numpy advises the kernel to back its large arrays with
transparent huge pages; where the kernel is set to compact memory for them on demand
(``defrag`` set to ``madvise``), a call that needs fresh pages can stall for half a
second or more in the kernel, at random, whichever version runs. Without the advice
every fresh page is an ordinary 4 KiB fault: the calls are slower but repeat to within
a few per cent, and the system time measures the memory each version touches.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

from bench_streaming import generate

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CHILD = r"""
import json, os, resource, sys, time, warnings
import pyarrow as pa
pa.set_cpu_count(1)
pa.set_io_thread_count(1)
warnings.simplefilter("ignore")
import dartboard
from dartboard.scale import evaluate_parquet
folder, mode, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
kw = dict(y_true="label", y_score="score", random_state=0)
if mode == "roc_auc":
    kw["metrics"] = ["roc_auc"]
ev = evaluate_parquet(folder, **kw)
times, cpu = [], []
for _ in range(repeats):
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t = time.perf_counter()
    ev = evaluate_parquet(folder, **kw)
    times.append(time.perf_counter() - t)
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu.append([r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime,
                r1.ru_minflt - r0.ru_minflt])
frame = ev.overall
values = {str(k): [float(frame.loc[k, "estimate"]), float(frame.loc[k, "low"]),
                   float(frame.loc[k, "high"])] for k in frame.index}
print(json.dumps({"seconds": min(times), "all": times, "cpu": cpu, "values": values,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "file": dartboard.__file__}))
"""


def export(commit: str, into: str) -> str:
    """``src/`` of ``commit`` under ``into`` (``git archive``): its import path."""
    archive = os.path.join(into, "src.tar")
    subprocess.run(["git", "-C", ROOT, "archive", "-o", archive, commit, "src"], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return os.path.join(into, "src")


def run(src: str, folder: str, mode: str, repeats: int, huge_pages: bool = True) -> dict:
    env = dict(os.environ, PYTHONPATH=src, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    if not huge_pages:  # numpy's own switch: no huge-page advice for its arrays
        env["NUMPY_MADVISE_HUGEPAGE"] = "0"
    out = subprocess.run([sys.executable, "-c", CHILD, folder, mode, str(repeats)], env=env,
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["file"].startswith(src), (result["file"], src)  # the version asked for
    return result


def main(argv: list[str]) -> None:
    args = [a for a in argv if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    n_rows = int(float(args[0])) if args else 5_000_000
    n_files = int(args[1]) if len(args) > 1 else 5
    old = opts.get("old", "7da99ed")
    repeats = int(opts.get("repeats", 3))
    rounds = int(opts.get("rounds", 1))
    huge_pages = opts.get("huge-pages", "on") != "off"
    folder = os.path.join(HERE, "data", f"stream_versions_{n_rows}_{n_files}_v2")
    generate(folder, n_rows, n_files)
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    print(f"# {n_rows:,} rows in {n_files} Parquet files (int8 label, float32 score); "
          f"one thread; fastest of {repeats} after a warm-up, in {rounds} round(s) of a "
          f"fresh child each; old = {old}, new = {head} (working tree); numpy's huge-page "
          f"advice {'on' if huge_pages else 'off'}")
    with tempfile.TemporaryDirectory() as tmp:
        old_src = export(old, tmp)
        new_src = os.path.join(ROOT, "src")
        print("| metrics | version | seconds | rows/s | peak MiB | metrics computed | median |")
        print("|---|---|---|---|---|---|---|")
        for mode in ("roc_auc", "defaults"):
            res: dict[str, dict] = {}
            for k in range(rounds):
                pair = (("old", old_src), ("new", new_src))
                for name, src in pair if k % 2 == 0 else pair[::-1]:
                    t = time.perf_counter()
                    r = run(src, folder, mode, repeats, huge_pages)
                    print(f"<!-- {mode} {name} round {k + 1}: "
                          f"{', '.join(f'{x:.3f}' for x in r['all'])}; "
                          f"child {time.perf_counter() - t:.1f} s -->", flush=True)
                    if name in res:
                        r["all"] = res[name]["all"] + r["all"]
                        r["cpu"] = res[name]["cpu"] + r["cpu"]
                        r["seconds"] = min(r["seconds"], res[name]["seconds"])
                        r["peak_mib"] = max(r["peak_mib"], res[name]["peak_mib"])
                    res[name] = r
            for name in ("old", "new"):
                r = res[name]
                print(f"| {mode} | {name} | {r['seconds']:.3f} | "
                      f"{n_rows / r['seconds'] / 1e6:.2f}M | {r['peak_mib']:.0f} | "
                      f"{len(r['values'])} | {statistics.median(r['all']):.3f} |", flush=True)
            for name in ("old", "new"):
                user, system, faults = (statistics.median(c[i] for c in res[name]["cpu"])
                                        for i in range(3))
                print(f"<!-- {mode} {name}: median of a call's user time {user:.3f} s, "
                      f"system time {system:.3f} s, minor page faults {faults:,.0f} -->")
            ratio = res["old"]["seconds"] / res["new"]["seconds"]
            median = statistics.median(res["old"]["all"]) / statistics.median(res["new"]["all"])
            print(f"| {mode} | old/new | {ratio:.2f}x | | | | {median:.2f}x |")
            for name in ("old", "new"):
                shown = {k: [round(x, 6) for x in v] for k, v in res[name]["values"].items()
                         if "roc" in k or "accuracy" == k or "average_precision" in k}
                print(f"<!-- {mode} {name}: {json.dumps(shown)} -->")


if __name__ == "__main__":
    main(sys.argv[1:])
