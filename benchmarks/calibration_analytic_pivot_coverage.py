"""Simulation (not in CI): the analytic bin-pivot interval of ECE
(:func:`dartboard._kernels._calibration.pivot_intervals_analytic`, no Monte Carlo)
beside the Monte Carlo bin-pivot (:func:`~dartboard._kernels._calibration.pivot_interval`)
on the same data sets: coverage of the 95% interval, misses below and above, the
share of one-sided ``[0, U]`` intervals, mean widths, and how far apart the two
intervals' ends are; then the time of both on many groups.

Models and truth are those of ``calibration_simulation_ece.py`` (uniform
confidences, 15 equal-width bins, outcomes ``Bernoulli(q(p))``, the population's
binned ECE by quadrature): calibrated (ECE 0), ``p ** a`` (0.020), ``p ** 1.25``
(0.056), the crossing ``expit(k logit p)`` (0.056) and ``p ** 2`` (0.167), at
n = 50, 100, 300, 1,000 and 10,000 rows.

Run: ``python benchmarks/calibration_analytic_pivot_coverage.py [--reps N]
[--resamples R] [--sizes 50,100,...] [--tables coverage,timing]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _results import Table, output_lines
from calibration_simulation_ece import COVERAGE_MODELS, N_BINS, draw, population

from dartboard._kernels import _calibration as kernel
from dartboard.metrics import CalibrationState


def bins_of(states):
    """(G, S) per-bin rows, events, mean confidence and its sd of one-group states."""
    found = [kernel.state_bins(s) for s in states]
    return tuple(np.array([f[i] for f in found]) for i in range(4))


def coverage_table(sizes, reps, n_resamples, seed):
    print(f"\nCoverage of the 95% interval of ECE (l1, {N_BINS} bins, {reps} data sets per "
          f"cell, the same data sets for both; Monte Carlo with {n_resamples} resamples per "
          f"world; Monte-Carlo s.e. near 0.95: {np.sqrt(0.05 * 0.95 / reps):.3f})")
    print("cover/below/above: share of intervals containing the truth, wholly below it, "
          "wholly above it; [0,U]: share one-sided; width: mean width; |dlo|, |dhi|: mean "
          "absolute difference of the ends (analytic - Monte Carlo), p99 its 99th percentile")
    print(f"{'model':<17}{'n':>7}{'true ECE':>9} | {'analytic':^31} | {'Monte Carlo':^31} | "
          f"{'|dlo|':>7}{'|dhi|':>7}{'p99 lo':>7}{'p99 hi':>7}{'[0,U] differ':>13}")
    print(f"{'':<33}| " + f"{'cover':>6}{'below':>6}{'above':>6}{'[0,U]':>6}{'width':>7} | " * 2)
    for m_index, (name, q) in enumerate(COVERAGE_MODELS.items()):
        truth = population(q)[0]
        for n in sizes:
            rng = np.random.default_rng([2024, m_index, n])
            states = []
            for _ in range(reps):
                y, p = draw(rng, n, q)
                states.append(CalibrationState(N_BINS).update(y, p, pos_label=1))
            est = np.array([s.compute("calibration_error") for s in states])
            count, events, mean, sd = bins_of(states)
            a_low, a_high, _ = kernel.pivot_intervals_analytic(count, events, mean, sd, est,
                                                               0.95)
            mc = np.empty((reps, 2))
            mc_rng = np.random.default_rng([7, m_index, n])
            for r, state in enumerate(states):
                mc[r] = kernel.pivot_interval(state, est[r], "l1", False, 0.95,
                                              n_resamples, mc_rng)[:2]
            cells = []
            for low, high in ((a_low, a_high), (mc[:, 0], mc[:, 1])):
                cells.append(f"{np.mean((low <= truth) & (truth <= high)):>6.3f}"
                             f"{np.mean(high < truth):>6.3f}{np.mean(low > truth):>6.3f}"
                             f"{np.mean(low == 0.0):>6.3f}{np.mean(high - low):>7.4f}")
            d_low, d_high = np.abs(a_low - mc[:, 0]), np.abs(a_high - mc[:, 1])
            differ = np.mean((a_low == 0.0) != (mc[:, 0] == 0.0))
            print(f"{name:<17}{n:>7}{truth:>9.4f} | {cells[0]} | {cells[1]} | "
                  f"{d_low.mean():>7.4f}{d_high.mean():>7.4f}{np.quantile(d_low, 0.99):>7.4f}"
                  f"{np.quantile(d_high, 0.99):>7.4f}{differ:>13.3f}", flush=True)


def timing_table(n_groups, n_rows, n_resamples, seed):
    rng = np.random.default_rng(seed)
    states = []
    for g in range(n_groups):
        y, p = draw(rng, n_rows, COVERAGE_MODELS["q = p^1.25"])
        states.append(CalibrationState(N_BINS).update(y, p, pos_label=1))
    est = np.array([s.compute("calibration_error") for s in states])
    start = time.perf_counter()
    count, events, mean, sd = bins_of(states)
    bins_time = time.perf_counter() - start
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        kernel.pivot_intervals_analytic(count, events, mean, sd, est, 0.95)
        best = min(best, time.perf_counter() - start)
    start = time.perf_counter()
    for g, state in enumerate(states):
        kernel.pivot_interval(state, est[g], "l1", False, 0.95, n_resamples, rng)
    mc_time = time.perf_counter() - start
    print(f"\nTime for {n_groups} groups of {n_rows} rows ({N_BINS} bins, q = p^1.25; under "
          "load, one process):")
    print(f"  analytic, all groups at once: {best:.3f} s (best of 3; gathering the bins "
          f"from the states: {bins_time:.3f} s)")
    print(f"  Monte Carlo, one call per group, {n_resamples} resamples: {mc_time:.2f} s "
          f"({mc_time / n_groups * 1000:.1f} ms per group)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--sizes", default="50,100,300,1000,10000")
    parser.add_argument("--tables", default="coverage,timing")
    args = parser.parse_args()
    tables = set(args.tables.split(","))
    import warnings

    warnings.simplefilter("ignore")
    start = time.perf_counter()
    if "coverage" in tables:
        coverage_table([int(s) for s in args.sizes.split(",")], args.reps, args.resamples,
                       2024)
    if "timing" in tables:
        for n_rows in (1000, 300, 50):
            timing_table(1000, n_rows, args.resamples, 5)
    print(f"\n(total {time.perf_counter() - start:.1f} s, under load)")


def render(log: str) -> list[Table]:
    """The run's tables as printed (coverage of both pivots on the same data, time)."""
    return [Table("ece_analytic", "Calibration error: the bin-pivot in closed form beside "
                  "the drawn one, on the same data sets", [], output_lines(log))]


if __name__ == "__main__":
    main()
