"""Peak memory of a streamed evaluation as the rows grow (1M to 20M by default).

Usage::

    python benchmarks/stream_memory.py [--data DIR] [--sizes 1,2,5,10,20] [--modes ...]
                                       [--tracemalloc]

Writes (once) files of 1,000,000 rows each under ``DIR`` (default
``benchmarks/data/stream_memory``, git-ignored): a 0/1 label (int8), a continuous
score (float32), the same score rounded to 3 decimals (float32, 1,001 distinct
values, as a calibrated model's stored probabilities often are) and a group
column of 20 groups (int8). A size of m million rows reads the first m files.
Each (mode, size) runs in a fresh process; its peak resident memory is
``getrusage`` ``ru_maxrss`` (of the process itself for the library modes, of the
``dartboard`` command for ``cli``), printed beside the resident memory after the
imports (``base``) so that the growth is what the evaluation added.
``--tracemalloc`` adds a second run per cell with the peak of Python-traced
allocations (numpy's included), which excludes the interpreter and libraries.

Modes (every one with ``groups="g"``, the default metrics and intervals, seed 0):

* ``rounded``: ``evaluate_parquet(y_score="s3")``, the exact path (default);
* ``binned``: ``evaluate_parquet(y_score="s", exact=False)``: constant memory by
  design (100k bins, no intervals for the binned metrics);
* ``exact``: ``evaluate_parquet(y_score="s")``: the exact map of distinct scores,
  which grows with the distinct scores (documented), shown for contrast;
* ``cli``: ``dartboard evaluate 'DIR/*.parquet' --y-true y --y-score s3 --group g``.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS_PER_FILE = 1_000_000
MODES = ("rounded", "binned", "exact", "cli")


def generate(folder: str, n_files: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    os.makedirs(folder, exist_ok=True)
    for i in range(n_files):
        path = os.path.join(folder, f"part-{i:03d}.parquet")
        if os.path.exists(path):
            continue
        rng = np.random.default_rng([20261126, i])
        y = (rng.random(ROWS_PER_FILE) < 0.3).astype(np.int8)
        s = 1.0 / (1.0 + np.exp(-(rng.normal(size=ROWS_PER_FILE) + 1.5 * y - 1.0)))
        g = rng.integers(0, 20, ROWS_PER_FILE).astype(np.int8)
        table = pa.table({"y": y, "s": s.astype(np.float32),
                          "s3": np.round(s, 3).astype(np.float32), "g": g})
        pq.write_table(table, path + ".tmp")
        os.replace(path + ".tmp", path)


def _rss_mb() -> float:
    # ru_maxrss is in KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _current_rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def child(mode: str, files: list[str], trace: bool) -> None:
    """One library evaluation; prints a RESULT line (runs in its own process)."""
    import tracemalloc

    from dartboard.scale import evaluate_parquet

    base = _current_rss_mb()
    kw = {"rounded": {"y_score": "s3"}, "binned": {"y_score": "s", "exact": False},
          "exact": {"y_score": "s"}}[mode]
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    ev = evaluate_parquet(files, y_true="y", groups="g", random_state=0, **kw)
    seconds = time.perf_counter() - start
    traced = tracemalloc.get_traced_memory()[1] / 2**20 if trace else None
    print("RESULT " + json.dumps({"rows": ev.n_rows, "base": base, "peak": _rss_mb(),
                                  "traced": traced, "seconds": seconds,
                                  "auc": float(ev.overall.loc["roc_auc", "estimate"])}))


def run_cli(folder: str, m: int) -> dict:
    """``dartboard evaluate`` over a glob of the first ``m`` files, in its own process."""
    link = os.path.join(folder, f"first-{m}")
    os.makedirs(link, exist_ok=True)
    for i in range(m):  # a glob of exactly m files: links in a folder of their own
        name = f"part-{i:03d}.parquet"
        if not os.path.lexists(os.path.join(link, name)):
            os.symlink(os.path.join("..", name), os.path.join(link, name))
    cmd = [sys.executable, "-m", "dartboard", "evaluate", os.path.join(link, "*.parquet"),
           "--y-true", "y", "--y-score", "s3", "--group", "g", "--json"]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    seconds = time.perf_counter() - start
    # the child's own rusage: its peak, not that of this process or earlier children
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        return {"error": err.strip().splitlines()[-1] if err.strip() else "failed"}
    return {"rows": m * ROWS_PER_FILE, "base": None, "peak": usage.ru_maxrss / 1024, "traced": None,
            "seconds": seconds}


def measure(mode: str, folder: str, m: int, trace: bool) -> dict:
    if mode == "cli":
        # a fresh process per size, so that RUSAGE_CHILDREN holds this one command only
        code = (f"import json, sys; sys.path.insert(0, {HERE!r}); import stream_memory as s; "
                f"print('RESULT ' + json.dumps(s.run_cli({folder!r}, {m})))")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    else:
        files = sorted(glob.glob(os.path.join(folder, "part-*.parquet")))[:m]
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", mode,
                               *(["--tracemalloc"] if trace else []), "--files",
                               json.dumps(files)], capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(HERE, "data", "stream_memory"))
    ap.add_argument("--sizes", default="1,2,5,10,20", help="millions of rows")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--tracemalloc", action="store_true")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--files", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, json.loads(args.files), args.tracemalloc)
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    modes = args.modes.split(",")
    generate(args.data, max(sizes))
    import dartboard

    print(f"dartboard {dartboard.__version__}: streamed evaluation, 20 groups, default "
          f"metrics and intervals, batch 1,000,000 rows; data {args.data}\n")
    header = f"{'mode':<9}{'rows':>12}{'base MB':>9}{'peak MB':>9}{'growth':>8}" + \
        (f"{'traced MB':>10}" if args.tracemalloc else "") + f"{'seconds':>9}"
    print(header)
    print("-" * len(header))
    for mode in modes:
        for m in sizes:
            res = measure(mode, args.data, m, False)
            if "error" in res:
                print(f"{mode:<9}{m * ROWS_PER_FILE:>12,} failed: {res['error']}")
                continue
            traced = measure(mode, args.data, m, True).get("traced") \
                if args.tracemalloc and mode != "cli" else None
            base = f"{res['base']:9.0f}" if res["base"] is not None else f"{'-':>9}"
            growth = f"{res['peak'] - res['base']:8.0f}" if res["base"] is not None \
                else f"{'-':>8}"
            print(f"{mode:<9}{res['rows']:>12,}{base}{res['peak']:9.0f}{growth}" +
                  ((f"{traced:10.0f}" if traced is not None else f"{'-':>10}")
                   if args.tracemalloc else "") + f"{res['seconds']:9.1f}", flush=True)
    print("\npeak MB: ru_maxrss of the evaluating process (for cli: of the dartboard "
          "command); base: resident after the imports; growth = peak - base.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
