"""Speed of two revisions of dartboard side by side, in one run, on the same data.

Usage::

    python benchmarks/compare_versions.py --old REV [--rounds 3] [--cases a,b,...]

``REV`` (any git revision) is checked out into a temporary detached worktree; the
working tree this script sits in is the new code. Every case runs in a fresh
subprocess per side, with ``PYTHONPATH`` at that tree's ``src``; the two sides of a
case alternate (old then new in odd rounds, new then old in even ones) so that both
see the same load on a shared machine. Each subprocess makes the case's data with a
fixed seed (the generators of the ``bench_*.py`` scripts), warms up once, and times
``repeats`` calls (one when the warm-up took over ``SLOW`` seconds); a side's time is
its best over all rounds (the median of the rounds' bests is printed too, as a
measure of the noise). Where a ``bench_*.py``
script has a scikit-learn peer, the peer runs in its own subprocess in the same
rounds, and ``sklearn/old`` and ``sklearn/new`` are the speed ratios of the two
revisions. ``same`` says whether both revisions returned the same numbers (to 1e-9
relative). A case whose call differs between revisions (a renamed keyword) adapts
to the signature it finds.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
NEW_SRC = os.path.join(os.path.dirname(HERE), "src")
N = 1_000_000
N_EVAL = 100_000
SLOW = 5.0  # seconds of the warm-up call beyond which a side times one call per round


# --- data (the generators of the bench_*.py scripts) ----------------------------------

def _labels(n_classes=2):
    from bench_confusion import make_data

    return make_data(N, n_classes, seed=0 if n_classes == 2 else 1)


def _scores():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, N)
    score = rng.normal(size=N) + y
    return y, score, 1.0 / (1.0 + np.exp(-score))


def _regression():
    rng = np.random.default_rng(0)
    target = rng.normal(10.0, 3.0, N)
    return target, target + rng.normal(0.0, 1.0, N)


def _grouped(n):
    from bench_evaluate_defaults import data

    y, p = data(n, 0.3)
    return y, p, np.random.default_rng(1).integers(0, 20, n)


# --- cases: each returns (setup() -> args, {side: call(args)}) ------------------------

def _metric_case(name, make, **kw):
    def setup():
        return make()

    def ours(args):
        import dartboard.metrics as dbm

        return getattr(dbm, name)(*args[:2], **kw)

    def peer(args):
        import sklearn.metrics as skm

        return getattr(skm, name)(*args[:2], **kw)

    return setup, ours, peer


def _score_args(column):
    def make():
        y, score, proba = _scores()
        return y, score if column == "score" else proba
    return make


def _interval_case(metric, make, method, resamples=None):
    def ours(args):
        import dartboard
        import dartboard.metrics as dbm

        kw = {} if resamples is None else {"n_resamples": resamples}
        iv = dartboard.interval(getattr(dbm, metric), *args, method=method, random_state=0,
                                **kw)
        return [iv.estimate, iv.low, iv.high]

    return make, ours, None


def _evaluate(args, groups=False):
    import dartboard

    y, p, g = args
    ev = dartboard.evaluate(y, y_score=p, groups=g if groups else None, random_state=0)
    values = ev.overall["estimate"].to_list()
    if groups:  # the gaps and their intervals too, as bench_groups.py times them
        for table in (ev.difference(), ev.ratio(), ev.fairness()):
            values += table[["estimate", "low", "high"]].to_numpy(float).ravel().tolist()
    return values


def _parquet_setup():
    folder = os.environ["DARTBOARD_COMPARE_PARQUET"]
    return (folder,)


#: what evaluate_parquet gave for scores before the one evaluation path: three metrics,
#: one interval (ROC AUC's); the same work on both sides is this set
_OLD_SCORE_METRICS = ["roc_auc", "average_precision", "pr_auc"]


def _parquet(args, column, metrics=None, intervals=True):
    from dartboard.scale import evaluate_parquet

    params = inspect.signature(evaluate_parquet).parameters
    kw = {column: {"y_pred": "pred", "y_score": "s"}[column]}
    if metrics is not None:
        kw["metrics"] = metrics
    if not intervals:
        kw["confidence_level"] = None
    # before the one evaluation path the interval keyword was ci_method
    kw["ci" if "ci" in params else "ci_method"] = "auto"
    ev = evaluate_parquet(args[0], y_true="y", groups="g", random_state=0,
                          batch_size=250_000, **kw)
    return ev.overall["estimate"].to_list() + ev.by_group["estimate"].to_list()


def _compare(args):
    import dartboard
    from dartboard.metrics import f1_score

    res = dartboard.compare_models(f1_score, *args, n_resamples=5000, random_state=0)
    return [res.difference, res.pvalue, res.interval.low, res.interval.high]


def _compare_k(args, method):
    import dartboard
    from dartboard.metrics import f1_score

    res = dartboard.compare_k_models(f1_score, *args, method=method, n_resamples=5000,
                                     random_state=0)
    return res.pairwise.select_dtypes("number").to_numpy(float).ravel().tolist()


def _compare_data():
    from bench_compare import _data

    return _data(N)


def _kmodel_data():
    from bench_kmodels import _data

    return _data(N, 10)


CASES = {
    "confusion_matrix": _metric_case("confusion_matrix", _labels),
    "accuracy_score": _metric_case("accuracy_score", _labels),
    "f1_score": _metric_case("f1_score", _labels),
    "f1_score macro (10 classes)": _metric_case("f1_score", lambda: _labels(10),
                                                 average="macro"),
    "roc_auc_score": _metric_case("roc_auc_score", _score_args("score")),
    "average_precision_score": _metric_case("average_precision_score", _score_args("score")),
    "log_loss": _metric_case("log_loss", _score_args("proba")),
    "mean_squared_error": _metric_case("mean_squared_error", _regression),
    "r2_score": _metric_case("r2_score", _regression),
    "median_absolute_error": _metric_case("median_absolute_error", _regression),
    "interval f1 bca R=10000": _interval_case("f1_score", _labels, "bca", 10_000),
    "interval accuracy wilson": _interval_case("accuracy_score", _labels, "wilson"),
    "interval roc_auc bca R=2000": _interval_case("roc_auc_score", _score_args("score"), "bca",
                                                  2_000),
    "interval roc_auc delong": _interval_case("roc_auc_score", _score_args("score"), "delong"),
    "evaluate 100k defaults": (lambda: _grouped(N_EVAL), _evaluate, None),
    "evaluate 100k 20 groups + gaps": (lambda: _grouped(N_EVAL), lambda a: _evaluate(a, True),
                                       None),
    "evaluate_parquet 1M labels 20 groups": (_parquet_setup, lambda a: _parquet(a, "y_pred"),
                                             None),
    "evaluate_parquet 1M scores 20 groups": (_parquet_setup, lambda a: _parquet(a, "y_score"),
                                             None),
    # the old code's three score metrics on both sides, without and with intervals (the
    # new side adds AP's and the PR area's, which the old had not)
    "evaluate_parquet 1M scores 3 metrics no intervals": (
        _parquet_setup, lambda a: _parquet(a, "y_score", _OLD_SCORE_METRICS, False), None),
    "evaluate_parquet 1M scores 3 metrics": (
        _parquet_setup, lambda a: _parquet(a, "y_score", _OLD_SCORE_METRICS), None),
    "compare_models f1 R=5000": (_compare_data, _compare, None),
    "compare_k_models maxt k=10": (_kmodel_data, lambda a: _compare_k(a, "maxt"), None),
    "compare_k_models holm k=10": (_kmodel_data, lambda a: _compare_k(a, "holm"), None),
}


def write_parquet(folder: str) -> None:
    """1,000,000 rows in 4 files: label, predicted label, probability, 20 groups."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    y, p, g = _grouped(N)
    pred = (p >= 0.5).astype(np.int64)
    for i, part in enumerate(np.array_split(np.arange(N), 4)):
        pq.write_table(pa.table({"y": y[part], "pred": pred[part], "s": p[part],
                                 "g": g[part]}), os.path.join(folder, f"part-{i}.parquet"))


# --- one side of one case, in its own process ------------------------------------------

def child(case: str, side: str, repeats: int) -> None:
    import warnings

    from _timing import best_wall_and_cpu

    setup, ours, peer = CASES[case]
    fn = peer if side == "peer" else ours
    args = setup()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        fn(args)  # warm-up: imports, caches
        if time.perf_counter() - start > SLOW:  # a slow case: its rounds are its repeats
            repeats = 1
        wall, cpu, value = best_wall_and_cpu(lambda: fn(args), repeats)
    value = np.asarray(value, dtype=float).ravel().tolist()
    print("RESULT " + json.dumps({"wall": wall, "cpu": cpu, "value": value}))


def run_side(case: str, side: str, src: str, repeats: int) -> dict:
    env = dict(os.environ, PYTHONPATH=src)
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", case,
                           "--side", side, "--repeats", str(repeats)], env=env, cwd=HERE,
                          capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1]}


# --- the parent: worktree, interleaved rounds, table ------------------------------------

def _same(a, b) -> bool:
    return len(a) == len(b) and bool(np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True))


def measure(cases, old_src, rounds, repeats):
    results = {case: {"old": [], "new": [], "peer": [], "value": {}} for case in cases}
    for r in range(rounds):
        for case in cases:
            sides = ["old", "new"] if r % 2 == 0 else ["new", "old"]
            if CASES[case][2] is not None:
                sides.append("peer")
            for side in sides:
                src = old_src if side == "old" else NEW_SRC
                out = run_side(case, side, src, repeats)
                if "error" in out:
                    results[case].setdefault("error", {})[side] = out["error"]
                    continue
                results[case][side].append((out["wall"], out["cpu"]))
                results[case]["value"][side] = out["value"]
        print(f"after round {r + 1} of {rounds} ({time.strftime('%H:%M:%S')}, load average "
              f"{os.getloadavg()[0]:.1f}):", flush=True)
        table(results, r + 1, repeats)
    return results


def _fmt(seconds):
    return f"{seconds:9.4f}" if seconds is not None else f"{'-':>9}"


def table(results, rounds, repeats) -> None:
    header = (f"{'case':<38}{'old s':>9}{'new s':>9}{'old/new':>8}{'(cpu)':>7}"
              f"{'med old':>9}{'med new':>9}{'sklearn':>9}{'sk/old':>8}{'sk/new':>8}"
              f"{'same':>6}")
    print(header)
    print("-" * len(header))
    for case, res in results.items():
        if not (res["old"] and res["new"]) and not res.get("error"):
            continue
        if res.get("error"):
            print(f"{case:<38} failed: {res['error']}")
            continue
        best = {s: min(t[0] for t in res[s]) if res[s] else None for s in ("old", "new", "peer")}
        cpu = {s: min(t[1] for t in res[s]) for s in ("old", "new")}
        med = {s: statistics.median(t[0] for t in res[s]) for s in ("old", "new")}
        peer = best["peer"]
        ratios = (f"{peer / best['old']:7.1f}x{peer / best['new']:7.1f}x" if peer
                  else f"{'-':>8}{'-':>8}")
        same = _same(res["value"]["old"], res["value"]["new"])
        print(f"{case:<38}{_fmt(best['old'])}{_fmt(best['new'])}"
              f"{best['old'] / best['new']:7.2f}x{cpu['old'] / cpu['new']:6.2f}x"
              f"{_fmt(med['old'])}{_fmt(med['new'])}{_fmt(peer)}{ratios}"
              f"{'yes' if same else 'NO':>6}")
    print(f"seconds: best over {rounds} interleaved rounds of {repeats} timed calls each "
          "(one warm-up call first); med = median of the rounds' bests; old/new > 1 means "
          "the new code is faster; (cpu) is the same ratio of process CPU time.\n", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", help="git revision to compare against")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--cases", help="comma-separated case names (default: all)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--side", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.side, args.repeats)
        return 0
    if not args.old:
        ap.error("--old REV is required")
    cases = args.cases.split(",") if args.cases else list(CASES)
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        ap.error(f"unknown case(s) {unknown}; known: {list(CASES)}")
    repo = os.path.dirname(HERE)
    old_commit = subprocess.run(["git", "-C", repo, "rev-parse", "--short", args.old],
                                capture_output=True, text=True, check=True).stdout.strip()
    new_commit = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
    # a terminated run still removes its worktree (the finally clause below)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "old")
        subprocess.run(["git", "-C", repo, "worktree", "add", "--detach", tree, args.old],
                       check=True, capture_output=True)
        try:
            parquet = os.path.join(tmp, "parquet")
            os.makedirs(parquet)
            write_parquet(parquet)
            os.environ["DARTBOARD_COMPARE_PARQUET"] = parquet
            print(f"old: {args.old} ({old_commit}); new: this tree (HEAD {new_commit}, "
                  f"with its uncommitted edits); {len(cases)} cases, n = {N:,} "
                  f"(evaluate: {N_EVAL:,}); {os.cpu_count()} cores, "
                  f"load average {os.getloadavg()[0]:.1f} at start\n", flush=True)
            measure(cases, os.path.join(tree, "src"), args.rounds, args.repeats)
        finally:
            subprocess.run(["git", "-C", repo, "worktree", "remove", "--force", tree],
                           check=True, capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
