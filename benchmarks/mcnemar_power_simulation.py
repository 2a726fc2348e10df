"""Simulation (not in CI): does a test set of the planned size give McNemar's test the
power it was planned for?

For each setting (accuracy difference ``delta = p10 - p01``, discordant share ``psi =
p10 + p01``, target power 0.8 unless stated), ``mcnemar_sample_size`` plans n; then
``--reps`` test sets of n rows are drawn (each row's true label 0/1 with probability
1/2; the two models right or wrong on it with the four probabilities both right,
only a, only b, both wrong = ``1 - psi - 0.05``, ``p10``, ``p01``, ``0.05``), and
``mcnemar_test(y_true, pred_a, pred_b)`` with its defaults (exact binomial below 25
discordant pairs, else chi-square with continuity correction) is run on the rows.
The share with ``p < 0.05`` is the simulated power. Beside it: Connor's (1987)
normal-approximation n for the uncorrected test (the old plan) and the power the
same simulation gives at that n.

Run: ``python benchmarks/mcnemar_power_simulation.py [--reps N]`` (default 4000
data sets per cell; Monte-Carlo s.e. 0.6 points at 80%).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from _results import Table

from dartboard.compare import mcnemar_power, mcnemar_sample_size, mcnemar_test
from dartboard.compare._power import connor_sample_size

SETTINGS = [  # (delta, psi, power)
    (0.20, 0.30, 0.8),
    (0.10, 0.20, 0.8),
    (0.05, 0.30, 0.8),
    (0.03, 0.06, 0.8),
    (0.02, 0.10, 0.8),
    (0.05, 0.50, 0.8),
    (0.05, 0.30, 0.9),
]


def simulated_power(rng, n, delta, psi, reps, alpha=0.05):
    p10, p01 = (psi + delta) / 2, (psi - delta) / 2
    probs = [1 - psi - 0.05, p10, p01, 0.05]  # both right, only a, only b, both wrong
    rejected = 0
    for _ in range(reps):
        y = rng.integers(0, 2, n)
        kind = rng.choice(4, size=n, p=probs)
        a_right = (kind == 0) | (kind == 1)
        b_right = (kind == 0) | (kind == 2)
        pred_a = np.where(a_right, y, 1 - y)
        pred_b = np.where(b_right, y, 1 - y)
        rejected += mcnemar_test(y, pred_a, pred_b).pvalue < alpha
    return rejected / reps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=4000)
    args = parser.parse_args()
    rng = np.random.default_rng(2024)
    start = time.perf_counter()
    print(f"McNemar power at the planned n ({args.reps} data sets per cell; alpha 0.05, "
          "two-sided; mcnemar_test's defaults)")
    print(f"{'delta':>6}{'psi':>6}{'target':>8}{'old n':>8}{'sim. power':>12}"
          f"{'new n':>8}{'exact power':>13}{'sim. power':>12}{'+- 2 s.e.':>11}")
    for delta, psi, target in SETTINGS:
        old_n = math.ceil(connor_sample_size(delta, psi, 0.05, target) - 1e-9)
        new_n = mcnemar_sample_size(delta, psi, power=target)
        old = simulated_power(rng, old_n, delta, psi, args.reps)
        new = simulated_power(rng, new_n, delta, psi, args.reps)
        se = math.sqrt(new * (1 - new) / args.reps)
        print(f"{delta:>6.2f}{psi:>6.2f}{target:>8.2f}{old_n:>8}{old:>12.3f}{new_n:>8}"
              f"{mcnemar_power(new_n, delta, psi):>13.3f}{new:>12.3f}{2 * se:>11.3f}",
              flush=True)
    print(f"\n(total {time.perf_counter() - start:.1f} s, under load)")


def render(log: str) -> list[Table]:
    """The power table of a run's log: one row per planned setting."""
    columns = ["delta", "psi", "target power", "old n (Connor)", "simulated power at old n",
               "new n", "exact power at new n", "simulated power at new n", "+- 2 s.e."]
    rows = []
    for line in log.splitlines():
        fields = line.split()
        if len(fields) == len(columns) and all(f.replace(".", "", 1).isdigit() for f in fields):
            rows.append(fields)
    return [Table("mcnemar_power", "Power of McNemar's test at the planned test-set size",
                  columns, rows)]


if __name__ == "__main__":
    main()
