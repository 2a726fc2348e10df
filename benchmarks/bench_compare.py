"""Benchmark: compare_models (F1, 5000 permutations + 5000 bootstrap) vs mlxtend.

dartboard's type-reduced sampler at n = 1,000,000 against mlxtend's
``permutation_test(x, y, paired=True, method="approximate", num_rounds=R)`` at
n = 100,000 (mlxtend swaps pairs in a Python loop over samples, so its cost is
O(R n) while dartboard's is O(R K^3) after one counting pass). Both test the F1
difference of the same two models' predictions; the ratio is per sample and per
resample. Also checks that both p-values agree on the same 100,000 samples.

Usage: python benchmarks/bench_compare.py [n] [n_mlxtend] [mlxtend_rounds]
(defaults 1000000 100000 5000; env DARTBOARD_BENCH_MLXTEND_ROUNDS also works).
"""

from __future__ import annotations

import os
import sys

import numpy as np
from _results import Table, output_lines
from _timing import best_time

import dartboard as db
from dartboard.metrics import f1_score


def _data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.80, y, 1 - y)
    b = np.where(rng.random(n) < 0.798, y, 1 - y)
    return y, a, b


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    n_mlx = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    rounds_mlx = int(sys.argv[3]) if len(sys.argv) > 3 else int(
        os.environ.get("DARTBOARD_BENCH_MLXTEND_ROUNDS", 5000))
    r = 5000
    y, a, b = _data(n)

    t_db, res = best_time(lambda: db.compare_models(f1_score, y, a, b, n_resamples=r,
                                                   random_state=0), 3)
    print(f"dartboard compare_models(f1_score), n = {n:,}, {r} permutations + {r} "
          f"bootstrap resamples: {t_db:.3f} s (target < 1 s: "
          f"{'met' if t_db < 1 else 'NOT met'})")
    print(f"  difference = {res.difference:.5f}, p = {res.pvalue:.4g}, "
          f"95% CI [{res.interval.low:.5f}, {res.interval.high:.5f}]")

    try:
        from mlxtend.evaluate import permutation_test as mlx_permutation_test
    except ImportError:
        print("mlxtend not installed: peer comparison skipped")
        return
    ys, as_, bs = y[:n_mlx], a[:n_mlx], b[:n_mlx]
    yt = ys == 1

    def f1(pred):  # a fast numpy F1 so that mlxtend's own loop is what is measured
        p = pred == 1
        tp = np.count_nonzero(yt & p)
        return 2 * tp / (np.count_nonzero(yt) + np.count_nonzero(p))

    def mlx():
        return mlx_permutation_test(as_.astype(float), bs.astype(float),
                                    func=lambda x, z: abs(f1(x) - f1(z)), paired=True,
                                    method="approximate", num_rounds=rounds_mlx, seed=0)

    t_mlx, p_mlx = best_time(mlx, 1)
    print(f"mlxtend permutation_test(paired=True, approximate), n = {n_mlx:,}, "
          f"{rounds_mlx} rounds: {t_mlx:.2f} s, p = {p_mlx:.4g}")
    t_db_small, res_small = best_time(lambda: db.compare_models(
        f1_score, ys, as_, bs, n_resamples=rounds_mlx, random_state=0), 3)
    # dartboard's time includes its bootstrap interval (mlxtend has none)
    per_db = t_db / (n * r)
    per_mlx = t_mlx / (n_mlx * rounds_mlx)
    print()
    print(f"{'':34}{'dartboard':>14}{'mlxtend':>14}")
    print(f"{'samples':34}{n:>14,}{n_mlx:>14,}")
    print(f"{'resamples':34}{r:>14,}{rounds_mlx:>14,}")
    print(f"{'seconds':34}{t_db:>14.3f}{t_mlx:>14.2f}")
    print(f"{'ns per sample x resample':34}{per_db * 1e9:>14.5f}{per_mlx * 1e9:>14.2f}")
    ratio = per_mlx / per_db
    print(f"per-sample speed-up: {ratio:,.0f}x (target >= 1000x: "
          f"{'met' if ratio >= 1000 else 'NOT met'})")
    err = np.sqrt(max(p_mlx * (1 - p_mlx), 1 / rounds_mlx) / rounds_mlx)
    agree = abs(res_small.pvalue - p_mlx) <= 4 * err + 2 / rounds_mlx
    print(f"same {n_mlx:,} samples and rounds: dartboard p = {res_small.pvalue:.4g} "
          f"({t_db_small:.3f} s), mlxtend p = {p_mlx:.4g}, Monte-Carlo s.e. ~ {err:.2g}: "
          f"{'agree' if agree else 'DISAGREE'} within 4 s.e.")


def render(log: str) -> list[Table]:
    """The run's output as printed (sentences with their numbers)."""
    return [Table("speed_compare", "compare_models against mlxtend's permutation_test", [], output_lines(log))]


if __name__ == "__main__":
    main()
