"""Calibration (not in CI): family-wise error of compare_k_models under the null.

Complete null: the k models are exchangeable. Each sample has a difficulty shared
by all models, and given it each model is right independently with the same
probability. The family-wise error is the share of simulated test sets on which at
least one of the k (k - 1) / 2 pairs is declared significant at alpha = 0.05.
Target: 5% +- 1.5 points for k = 4, 6, 10 (Monte-Carlo standard error with 2000
simulations about 0.5 points). Step-down max-T uses the joint law of the
comparisons and should sit at 5%; Holm ignores their positive correlation and is
conservative, more so as k grows.

Metrics: F1 and accuracy of binary predictions (the type-reduced samplers), and
ROC AUC of scores ``d y + 0.8 u + e_j`` with ``d = 1``, a shared difficulty
``u ~ N(0, 1)`` and each model's own noise ``e_j ~ N(0, 1)`` (the k-way rank
sampler of max-T, compare_models' rank swap for Holm).

Partial null (``--partial``): k - 1 equal models and one worse; the error counted
is a significant pair among the equal ones only (label metrics only).

Usage: python benchmarks/kmodels_calibration.py [n_simulations] [n_rows] [n_resamples]
       [--partial] [--metric=f1|accuracy|auc] [--k=4,6,10]
       (defaults 2000 300 999, F1, k = 4, 6, 10).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _results import Table

import dartboard as db
from dartboard.metrics import accuracy_score, f1_score, roc_auc_score

METRICS = {"f1": f1_score, "accuracy": accuracy_score, "auc": roc_auc_score}


def _models(n: int, k: int, rng: np.random.Generator, worse: float = 0.0):
    y = rng.integers(0, 2, n)
    p_right = np.where(rng.random(n) < 0.2, 0.5, 0.9)  # a shared hard fifth of the data
    right = rng.random((k, n)) < p_right - np.r_[np.zeros(k - 1), worse][:, None]
    return y, [np.where(r, y, 1 - y) for r in right]


def _scores(n: int, k: int, rng: np.random.Generator):
    y = rng.integers(0, 2, n)
    shared = 0.8 * rng.normal(size=n)
    return y, [y + shared + rng.normal(size=n) for _ in range(k)]


def _option(name: str, default: str) -> str:
    for a in sys.argv[1:]:
        if a.startswith(f"--{name}="):
            return a.split("=", 1)[1]
    return default


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    partial = "--partial" in sys.argv
    sims = int(args[0]) if len(args) > 0 else 2000
    n = int(args[1]) if len(args) > 1 else 300
    r = int(args[2]) if len(args) > 2 else 999
    metric_name = _option("metric", "f1")
    metric = METRICS[metric_name]
    ks = [int(k) for k in _option("k", "4,6,10").split(",")]
    worse = 0.15 if partial else 0.0
    print(f"family-wise error of {metric_name} comparisons at alpha = 0.05 under the "
          f"{'partial (one model 15 points worse)' if partial else 'complete'} null; "
          f"{sims} simulated test sets of {n} rows, {r} resamples each")
    print(f"{'k':>3} {'method':>6} {'FWER':>7} {'MC s.e.':>8} {'within 5+-1.5':>14} "
          f"{'seconds':>8}")
    for k in ks:
        for method in ("maxt", "holm"):
            rng = np.random.default_rng([k, len(method), 15, int(partial)])
            start = time.perf_counter()
            hits = 0
            for _ in range(sims):
                y, preds = _scores(n, k, rng) if metric_name == "auc" else \
                    _models(n, k, rng, worse)
                res = db.compare_k_models(metric, y, preds, method=method, n_resamples=r,
                                          random_state=rng)
                pw = res.pairwise
                nulls = (pw["model_a"] != f"model {k - 1}") & (pw["model_b"] != f"model {k - 1}") \
                    if partial else np.ones(len(pw), dtype=bool)
                hits += bool(pw["significant"][nulls].any())
            rate = hits / sims
            se = np.sqrt(rate * (1 - rate) / sims)
            print(f"{k:>3} {method:>6} {rate:>7.2%} {se:>8.2%} "
                  f"{'yes' if abs(rate - 0.05) <= 0.015 else 'NO':>14} "
                  f"{time.perf_counter() - start:>8.1f}", flush=True)



def render(log: str) -> list[Table]:
    """The family-wise error table of a run's log: one row per k and method."""
    first = log.splitlines()[[line.startswith("family-wise") for line in
                              log.splitlines()].index(True)]
    metric = first.split()[3]
    partial = "_partial" if "partial" in first else ""
    rows = []
    for line in log.splitlines():
        fields = line.split()
        if len(fields) == 6 and fields[0].isdigit() and fields[1] in ("maxt", "holm"):
            rows.append(fields)
    return [Table(f"kmodels_{metric}{partial}", f"Family-wise error of compare_k_models "
                  f"({metric}) under the {'partial' if partial else 'complete'} null, "
                  "alpha 0.05", ["k", "method", "FWER", "Monte Carlo s.e.",
                                 "within 5 +- 1.5 points", "seconds"], rows)]


if __name__ == "__main__":
    main()
