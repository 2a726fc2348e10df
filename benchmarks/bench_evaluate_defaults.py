"""Benchmark: the evaluation engine with its defaults on a million rows (not run in CI).

``evaluate_predictions`` on binary labels with probabilities of the positive
class (every default binary metric with its interval, ``ci="auto"``,
``n_resamples=2000``), 1,000,000 rows. Target: under 10 s on a quiet machine.
Prints the total, then each default metric with the interval ``auto`` chose and
the time of that interval (measured by wrapping ``dartboard.interval`` during a
second run), so a slow interval shows where it is.

Usage: python benchmarks/bench_evaluate_defaults.py [n=1000000] [resamples=2000]
       [prevalence=0.3]
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _timing import best_wall_and_cpu


def data(n, prevalence, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(np.int64)
    p = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + 1.5 * y - 1.0)))
    return y, p


def per_metric(y, p, resamples):
    """(metric, method, seconds) of every interval the engine asks for."""
    import dartboard.uncertainty as unc
    from dartboard.evaluation._engine import evaluate_predictions
    from dartboard.uncertainty import _interval

    original = _interval.interval
    rows = []

    def timed(metric, *args, **kwargs):
        start = time.perf_counter()
        res = original(metric, *args, **kwargs)
        rows.append((res.metric, res.method, time.perf_counter() - start))
        return res

    unc.interval = timed
    try:
        evaluate_predictions(y, y_score=p, n_resamples=resamples, random_state=0)
    finally:
        del unc.interval
    return rows


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    resamples = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    prevalence = float(sys.argv[3]) if len(sys.argv) > 3 else 0.3
    from dartboard.evaluation._engine import evaluate_predictions

    y, p = data(n, prevalence)
    evaluate_predictions(y[:1000], y_score=p[:1000], n_resamples=50)  # imports, caches
    wall, cpu, res = best_wall_and_cpu(
        lambda: evaluate_predictions(y, y_score=p, n_resamples=resamples, random_state=0))
    print(f"evaluate_predictions, binary probabilities, n = {n:,}, {100 * prevalence:.0f}% "
          f"positives, n_resamples = {resamples}: {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"(target < 10 s on a quiet machine)")
    print(f"{len(res.metrics)} metrics; per interval (second run, wrapped):")
    print(f"  {'metric':<34} {'method':<16} seconds")
    for metric, method, seconds in per_metric(y, p, resamples):
        print(f"  {metric:<34} {method:<16} {seconds:7.3f}")


if __name__ == "__main__":
    main()
