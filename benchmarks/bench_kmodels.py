"""Benchmark: k = 10 models compared pair by pair on F1, 5000 resamples, 1,000,000 rows.

Both family-wise methods of ``compare_k_models``: step-down max-T (one joint null
of k-way permutations, dealt by type counts) and Holm over the 45 pairwise
sample-swap tests (the type-reduced sampler per pair). Neither touches the rows
after one counting pass, so the cost is the counting pass plus O(types) per
replicate. Target: under 2 s each. For scale: one mlxtend ``permutation_test`` of
one pair at 10,000 rows and 200 rounds, extrapolated to the whole job.

Usage: python benchmarks/bench_kmodels.py [n] [k] [n_resamples]
"""

from __future__ import annotations

import sys

import numpy as np
from _results import Table, output_lines
from _timing import best_wall_and_cpu

import dartboard as db
from dartboard.metrics import f1_score


def _data(n: int, k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    # correlated models: a shared hard part of the data, then each model's own errors
    hard = rng.random(n) < 0.15
    preds = {}
    for j in range(k):
        wrong = np.where(hard, rng.random(n) < 0.5, rng.random(n) < 0.05 + 0.002 * j)
        preds[f"m{j}"] = np.where(wrong, 1 - y, y)
    return y, preds


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    r = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
    y, preds = _data(n, k)
    for method in ("maxt", "holm"):
        wall, cpu, res = best_wall_and_cpu(
            lambda: db.compare_k_models(f1_score, y, preds, method=method, n_resamples=r,
                                        random_state=0), 3)
        print(f"compare_k_models(f1_score, method={method!r}), n = {n:,}, k = {k}, "
              f"{r} resamples: {wall:.3f} s wall, {cpu:.3f} s CPU (target < 2 s: "
              f"{'met' if wall < 2 else 'NOT met'})")
        print(f"  {int(res.pairwise['significant'].sum())} of {len(res.pairwise)} pairs "
              f"significant at {res.alpha}")
    try:
        from mlxtend.evaluate import permutation_test as mlx_permutation_test
    except ImportError:
        print("mlxtend not installed: peer comparison skipped")
        return
    n_mlx, rounds = 10_000, 200
    ys = y[:n_mlx]
    # each value carries its sample's truth (2 y + prediction), so a swap keeps the pairs
    xa, xb = 2 * ys + preds["m0"][:n_mlx], 2 * ys + preds["m1"][:n_mlx]
    wall, _, _ = best_wall_and_cpu(lambda: mlx_permutation_test(
        xa, xb, func=lambda u, v: f1_score(u // 2, u % 2) - f1_score(v // 2, v % 2),
        paired=True, method="approximate", num_rounds=rounds, seed=0))
    pairs = k * (k - 1) // 2
    print(f"mlxtend permutation_test, one pair, n = {n_mlx:,}, {rounds} rounds: {wall:.2f} s; "
          f"extrapolated to {pairs} pairs x {r} rounds x {n:,} rows: "
          f"{wall * pairs * r / rounds * n / n_mlx:,.0f} s")


def render(log: str) -> list[Table]:
    """The run's output as printed (sentences with their numbers)."""
    return [Table("speed_kmodels", "compare_k_models (k = 10) against mlxtend's permutation_test",
                  [], output_lines(log))]


if __name__ == "__main__":
    main()
