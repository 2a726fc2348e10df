"""Calibration of rank_models and of compare_models for AUC by simulation (not run in CI).

1. ``rank_models`` under the global null: k equivalent models over N data sets
   (independent standard normal scores, so every row's ranking is a uniform
   permutation). The family-wise error is the share of tables in which some model
   is declared ``significantly_worse`` than the best (target 0.05 +- 0.015). Shown
   beside it: the omnibus tests' rejection rates (Friedman's chi-square and
   Iman-Davenport's F), the step-down range procedure alone (under the global null
   a claim needs its first step: the range of average ranks reaches Nemenyi's
   critical difference), the same gated by Friedman's chi-square and by
   Iman-Davenport's F, and the first rule (Holm against the observed best,
   ``pvalue_holm < alpha``).
2. ``compare_models(roc_auc_score)`` on one test set of n samples with prevalence
   1/2: both models score ``y * d + e`` with correlated normal noise
   (corr(e_a, e_b) = 0.5), model b's scores then mapped by ``exp(3 s)`` (another
   scale, the same order). Under the null d_a = d_b (type I error, target 0.05 +-
   0.015); under the alternative d_a > d_b the power of the permutation test is
   compared with DeLong's (``delong_test``) on the same data sets (target: within
   3 points). The raw-score swap that compare_models used before (a callable
   wrapper has no registry spec, so its raw values are swapped) is shown for
   contrast on fewer data sets.

Usage: python benchmarks/compare_calibration.py [n_simulations=2000] [seed=0] [--rank]
(``--rank``: the rank_models table only)
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _results import Table

import dartboard as db
from dartboard._rng import spawn_generators
from dartboard.compare._folds import iman_davenport
from dartboard.metrics import roc_auc_score

ALPHA = 0.05
KS = (4, 6, 10)
NS = (14, 30)
N_TEST = 200
N_RESAMPLES = 999
NULL_D = 1.0
ALT_D = (1.0, 0.6)  # d_a, d_b: AUC about 0.76 vs 0.66
RAW_SIMS = 200
RANK_HEADS = ("FWER (rank_models)", "Friedman chi2", "Iman-Davenport F", "range alone",
              "range | chi2 gate", "range | F gate", "Holm vs observed best")


def rank_table(n_sims: int, seed: int) -> list[tuple]:
    rows = []
    gens = spawn_generators(seed, len(KS) * len(NS))
    for (k, n), rng in zip(((k, n) for k in KS for n in NS), gens):
        counts = np.zeros(7)
        for _ in range(n_sims):
            res = db.rank_models(rng.normal(size=(n, k)), alpha=ALPHA)
            summary = res.summary
            ranks = summary["average_rank"].to_numpy()
            ungated = ranks[-1] - ranks[0] >= res.critical_difference
            chi2_gate = res.pvalue < ALPHA
            f_gate = iman_davenport(res.statistic, n, k)[1] < ALPHA
            counts += (bool(summary["significantly_worse"].any()), chi2_gate, f_gate,
                       ungated, ungated and chi2_gate, ungated and f_gate,
                       bool((summary["pvalue_holm"] < ALPHA).any()))
        rows.append((k, n, *(counts / n_sims)))
    return rows


def print_rank_table(n_sims: int, seed: int) -> None:
    print(f"rank_models under the global null, alpha = {ALPHA}, {n_sims} tables per cell "
          f"(Monte-Carlo s.e. at 5%: {np.sqrt(ALPHA * (1 - ALPHA) / n_sims):.4f})")
    heads = RANK_HEADS
    print(f"{'k':>3} {'N':>3}  " + "  ".join(f"{h:>{max(len(h), 8)}}" for h in heads))
    for k, n, *rates in rank_table(n_sims, seed):
        print(f"{k:>3} {n:>3}  " + "  ".join(f"{r:>{max(len(h), 8)}.4f}"
                                            for h, r in zip(heads, rates)))


def _scores(d_a: float, d_b: float, rng: np.random.Generator):
    y = rng.integers(0, 2, N_TEST)
    e = rng.multivariate_normal([0.0, 0.0], [[1.0, 0.5], [0.5, 1.0]], size=N_TEST)
    return y, y * d_a + e[:, 0], np.exp(3.0 * (y * d_b + e[:, 1]))


def _raw_auc(y, s):  # a plain callable: compare_models swaps its raw values
    return roc_auc_score(y, s)


def auc_table(n_sims: int, seed: int) -> list[tuple]:
    rows = []
    for label, (d_a, d_b), rng in zip(("null (d_a = d_b)", "alternative (d_a > d_b)"),
                                      ((NULL_D, NULL_D), ALT_D),
                                      spawn_generators(seed + 1, 2)):
        perm = delong = raw = 0
        for i in range(n_sims):
            y, a, b = _scores(d_a, d_b, rng)
            perm += db.compare_models(roc_auc_score, y, a, b, n_resamples=N_RESAMPLES,
                                      random_state=i).pvalue < ALPHA
            delong += db.delong_test(y, a, b).pvalue < ALPHA
            if i < RAW_SIMS:
                raw += db.compare_models(_raw_auc, y, a, b, n_resamples=N_RESAMPLES,
                                         random_state=i).pvalue < ALPHA
        rows.append((label, perm / n_sims, delong / n_sims, raw / min(n_sims, RAW_SIMS)))
    return rows


def main(n_sims: int = 2000, seed: int = 0, rank_only: bool = False) -> None:
    start = time.perf_counter()
    print_rank_table(n_sims, seed)
    if not rank_only:
        print()
        print(f"compare_models(roc_auc_score), n = {N_TEST}, model b's scores mapped by "
              f"exp(3 s), {N_RESAMPLES} resamples, {n_sims} data sets "
              f"(raw-score swap: first {RAW_SIMS})")
        print(f"{'setting':<24} {'rank swap (now)':>15} {'DeLong':>8} "
              f"{'raw swap (before)':>18}")
        for label, perm, delong, raw in auc_table(n_sims, seed):
            print(f"{label:<24} {perm:>15.4f} {delong:>8.4f} {raw:>18.4f}")
    print(f"\n{time.perf_counter() - start:.0f} s")


def render(log: str) -> list[Table]:
    """The rank_models table and, if run, the compare_models(AUC) table of a log."""
    rank, auc = [], []
    for line in log.splitlines():
        fields = line.split()
        if len(fields) == 2 + len(RANK_HEADS) and fields[0].isdigit():
            rank.append(fields)
        elif line.startswith(("null (", "alternative (")):
            auc.append([line[:24].strip(), *line[24:].split()])
    tables = [Table("rank_auc_tests_rank", "rank_models under the global null: rejection "
                    "rates at alpha 0.05", ["k", "N", *RANK_HEADS], rank)]
    if auc:
        tables.append(Table("rank_auc_tests_auc", "compare_models(roc_auc_score): "
                            "rejection rate at alpha 0.05", ["setting", "rank swap (now)",
                            "DeLong", "raw swap (before)"], auc))
    return tables


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:] if not a.startswith("--")][:2]
    main(*args, rank_only="--rank" in sys.argv)
