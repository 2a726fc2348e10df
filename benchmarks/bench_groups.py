"""Benchmark: ``dartboard.evaluate`` with 20 groups against fairlearn's MetricFrame.

dartboard: every binary count metric of the registry, its interval overall and per
group, and the intervals of the gaps (``difference()``, ``ratio()`` and the fairness
summaries), 2000 resamples, 20 groups, 1,000,000 rows (target: under 2 s); the same
streamed from Parquet files by :func:`dartboard.scale.evaluate_parquet` (one state
bundle per group and batch; the same numbers). fairlearn:
``MetricFrame(..., n_boot=100)`` with the same metrics on 100,000 rows (it resamples
every row and recomputes every metric per replicate), timed in the same run. The
ratio is per resample and per row; both also report the same point estimates.

Usage: python benchmarks/bench_groups.py [n] [n_fairlearn] [fairlearn_boot]
(defaults 1000000 100000 100).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
from _results import Table, output_lines
from _timing import best_wall_and_cpu

import dartboard
from dartboard.metrics._registry import specs


def _data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    groups = rng.integers(0, 20, n)
    return y, pred, groups


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    n_fl = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    boot_fl = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    resamples = 2000
    names = [s.name for s in specs(kind="count", task="binary")]
    y, pred, groups = _data(n)

    def ours():
        ev = dartboard.evaluate(y, pred, metrics=names, groups=groups,
                                n_resamples=resamples, random_state=0)
        return ev, ev.difference(), ev.ratio(), ev.fairness()

    ours(),  # warm-up (imports)
    wall, cpu, (ev, diff, _, fair) = best_wall_and_cpu(ours, repeats=3)
    print(f"dartboard.evaluate: {len(names)} count metrics, 20 groups, {resamples} resamples, "
          f"n = {n:,}: {wall:.2f} s wall ({cpu:.2f} s CPU), target < 2 s")

    streamed(y, pred, groups, names, resamples, ev)

    from fairlearn.metrics import MetricFrame

    fl_metrics = {s.label or s.name.removesuffix("_score"): s.function
                  for s in specs(kind="count", task="binary")}
    yf, pf, gf = _data(n_fl, seed=1)

    def theirs():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = MetricFrame(metrics=fl_metrics, y_true=yf, y_pred=pf, sensitive_features=gf,
                                n_boot=boot_fl, ci_quantiles=[0.025, 0.975], random_state=0)
            return frame, frame.difference(), frame.ratio()

    wall_fl, cpu_fl, (frame, _, _) = best_wall_and_cpu(theirs, repeats=1)
    print(f"fairlearn MetricFrame(n_boot={boot_fl}): same metrics, 20 groups, "
          f"n = {n_fl:,}: {wall_fl:.2f} s wall ({cpu_fl:.2f} s CPU)")
    per_ours = wall / (resamples * n)
    per_theirs = wall_fl / (boot_fl * n_fl)
    print(f"per resample and row: dartboard {per_ours:.3e} s, fairlearn {per_theirs:.3e} s, "
          f"ratio {per_theirs / per_ours:,.0f}x (target >= 100x)")
    same = dartboard.evaluate(yf, pf, metrics=names, groups=gf, n_resamples=100,
                              random_state=0)
    got = same.estimates_by_group().to_numpy(float)
    want = frame.by_group[list(fl_metrics)].to_numpy(float)
    print(f"largest |dartboard - fairlearn| over the by-group estimates: "
          f"{np.max(np.abs(got - want)):.1e}")


def streamed(y, pred, groups, names, resamples, memory) -> None:
    """The same evaluation streamed from 4 Parquet files in batches of 250,000 rows."""
    import tempfile

    import pyarrow as pa
    import pyarrow.parquet as pq

    from dartboard.scale import evaluate_parquet

    with tempfile.TemporaryDirectory() as folder:
        for i, part in enumerate(np.array_split(np.arange(y.shape[0]), 4)):
            pq.write_table(pa.table({"y": y[part], "p": pred[part], "g": groups[part]}),
                           f"{folder}/part-{i}.parquet")

        def run():
            ev = evaluate_parquet(folder, y_true="y", y_pred="p", groups="g", metrics=names,
                                  n_resamples=resamples, random_state=0, batch_size=250_000)
            return ev, ev.difference(), ev.ratio(), ev.fairness()

        wall, cpu, (ev, diff, _, _) = best_wall_and_cpu(run, repeats=3)
    same = np.array_equal(ev.by_group["estimate"].to_numpy(),
                          memory.by_group["estimate"].to_numpy()) and \
        diff[["low", "high"]].equals(memory.difference()[["low", "high"]])
    print(f"dartboard.scale.evaluate_parquet: the same, streamed from 4 files in batches of "
          f"250,000 rows: {wall:.2f} s wall ({cpu:.2f} s CPU); by-group estimates and gap "
          f"intervals equal to the in-memory ones: {'yes' if same else 'NO'}")


def render(log: str) -> list[Table]:
    """The run's output as printed (sentences with their numbers)."""
    return [Table("speed_groups", "dartboard.evaluate with 20 groups against fairlearn's MetricFrame",
                  [], output_lines(log))]


if __name__ == "__main__":
    main()
