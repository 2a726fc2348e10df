"""Calibration error on 10M rows against torchmetrics (CPU), and a 2000-resample interval.

Run: ``python benchmarks/bench_calibration.py [--rows N]``. torchmetrics and torch are
optional here (``pip install torch torchmetrics``); without them only dartboard's
timings are printed. Both libraries get the same data: float32 probabilities (what a
network emits; torchmetrics computes in the input dtype, dartboard in float64) and
int64 labels; torchmetrics runs with its default argument validation, as a user
calls it, and once more with ``validate_args=False``. Targets: at least 5x
torchmetrics; the interval of ECE on 1M rows with 2000 resamples under 1 s.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _results import Table, output_lines  # noqa: E402
from _timing import best_wall_and_cpu  # noqa: E402

import dartboard  # noqa: E402
from dartboard.metrics import calibration_error  # noqa: E402


def data(n: int, k: int, rng: np.random.Generator):
    if k == 2:
        p = rng.random(n, dtype=np.float32)
        y = (rng.random(n, dtype=np.float32) < p**1.3).astype(np.int64)
        return y, p
    logits = rng.standard_normal((n, k), dtype=np.float32) * 2
    proba = np.exp(logits)
    proba /= proba.sum(1, keepdims=True)
    y = rng.integers(0, k, n)
    return y, proba


def torchmetrics_call(y, p, k, validate):
    import torch
    from torchmetrics.functional.classification import (
        binary_calibration_error,
        multiclass_calibration_error,
    )

    preds, target = torch.from_numpy(p), torch.from_numpy(y)
    if k == 2:
        return lambda: float(binary_calibration_error(preds, target, n_bins=15,
                                                      validate_args=validate))
    return lambda: float(multiclass_calibration_error(preds, target, num_classes=k, n_bins=15,
                                                      validate_args=validate))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    try:
        import torch

        torch.set_num_threads(1)  # the machine is shared; numpy is single-threaded too
        have_torch = True
    except ImportError:
        have_torch = False
    print(f"ECE (l1, 15 bins) on {args.rows:,} rows; best of {args.repeats}; wall / CPU s "
          "(under load)")
    print(f"{'case':<12}{'dartboard':>18}{'torchmetrics':>18}{'tm no-validate':>18}"
          f"{'ratio':>8}{'ratio nv':>10}{'|diff|':>10}")
    for k in (2, 10):
        y, p = data(args.rows, k, rng)
        wall, cpu, ours = best_wall_and_cpu(lambda: calibration_error(y, p), args.repeats)
        line = f"{'binary' if k == 2 else f'{k} classes':<12}{wall:>9.3f}/{cpu:<8.3f}"
        if have_torch:
            t_wall, t_cpu, theirs = best_wall_and_cpu(torchmetrics_call(y, p, k, True),
                                                      args.repeats)
            n_wall, n_cpu, _ = best_wall_and_cpu(torchmetrics_call(y, p, k, False),
                                                 args.repeats)
            line += (f"{t_wall:>9.3f}/{t_cpu:<8.3f}{n_wall:>9.3f}/{n_cpu:<8.3f}"
                     f"{t_wall / wall:>7.1f}x{n_wall / wall:>9.1f}x{abs(ours - theirs):>10.1e}")
        print(line)
        del y, p
    n = 1_000_000
    y, p = data(n, 2, rng)
    p64 = p.astype(np.float64)
    dartboard.interval(calibration_error, y, p64, n_resamples=50, random_state=0)  # warm up
    wall, cpu, iv = best_wall_and_cpu(lambda: dartboard.interval(
        calibration_error, y, p64, n_resamples=2000, random_state=0), args.repeats)
    print(f"\ninterval(calibration_error) on {n:,} rows, 2000 resamples ({iv.method}): "
          f"{wall:.3f} s wall / {cpu:.3f} s CPU (target < 1 s); "
          f"ECE {iv.estimate:.5f} [{iv.low:.5f}, {iv.high:.5f}]")


def render(log: str) -> list[Table]:
    """The run's output as printed (sentences with their numbers)."""
    return [Table("speed_calibration", "Calibration error against torchmetrics", [], output_lines(log))]


if __name__ == "__main__":
    main()
