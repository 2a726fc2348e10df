"""Calibration (not in CI): family-wise error of compare_k_models under the null.

Under the null the k models are exchangeable: each sample has a difficulty shared
by all models, and given it each model is right independently with the same
probability. The family-wise error is the share of simulated test sets on which
at least one of the k (k - 1) / 2 pairs is declared significant at alpha = 0.05.
Target: 5% +- 1.5 points for k = 4, 6, 10 (the Monte-Carlo standard error with
2000 simulations is about 0.5 points).

Usage: python benchmarks/kmodels_calibration.py [n_simulations] [n_rows] [n_resamples]
(defaults 2000 300 999).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import dartboard as db
from dartboard.metrics import accuracy_score, f1_score


def _null_models(n: int, k: int, rng: np.random.Generator):
    y = rng.integers(0, 2, n)
    p_right = np.where(rng.random(n) < 0.2, 0.5, 0.9)  # a shared hard fifth of the data
    right = rng.random((k, n)) < p_right
    return y, [np.where(r, y, 1 - y) for r in right]


def main() -> None:
    sims = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    r = int(sys.argv[3]) if len(sys.argv) > 3 else 999
    print(f"family-wise error at alpha = 0.05 under the null; {sims} simulated test sets of "
          f"{n} rows, {r} resamples each")
    print(f"{'metric':>9} {'k':>3} {'method':>6} {'FWER':>7} {'MC s.e.':>8} {'within 5+-1.5':>14}"
          f" {'seconds':>8}")
    for metric in (f1_score, accuracy_score):
        for k in (4, 6, 10):
            for method in ("maxt", "holm"):
                rng = np.random.default_rng([k, len(method), 15])
                start = time.perf_counter()
                hits = 0
                for _ in range(sims):
                    y, preds = _null_models(n, k, rng)
                    res = db.compare_k_models(metric, y, preds, method=method, n_resamples=r,
                                              random_state=rng)
                    hits += bool(res.pairwise["significant"].any())
                rate = hits / sims
                se = np.sqrt(rate * (1 - rate) / sims)
                print(f"{metric.__name__:>9} {k:>3} {method:>6} {rate:>7.2%} {se:>8.2%} "
                      f"{'yes' if abs(rate - 0.05) <= 0.015 else 'NO':>14} "
                      f"{time.perf_counter() - start:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
