"""Calibration and power of dartboard's paired tests by simulation (not run in CI).

Two settings:

1. Two fixed classifiers scored on the same test set of n = 500 samples. Each
   sample's (a correct, b correct) pair is drawn from the joint table
   both = 0.70, only a = 0.10 + delta/2, only b = 0.10 - delta/2, neither = 0.10,
   so the accuracies are 0.80 + delta/2 and 0.80 - delta/2 (equal under the null,
   delta = 0). Tested with ``compare_models(accuracy_score)`` (sample-swap
   permutation), ``mcnemar_test`` and ``permutation_test`` on the accuracies of
   10 disjoint folds of the test set (exact, 2^10 flips).
2. Two learners evaluated by J = 15 random 90/10 train/test splits of a data set of
   N = 200 (Nadeau & Bengio's setting, where the training sets overlap): nearest-
   centroid threshold classifiers on feature x1 (model a) and x2 (model b), two
   classes at -+mu_a and -+mu_b with unit variance, so the expected accuracies
   are Phi(mu_a) and Phi(mu_b) (equal under the null). Tested with
   ``corrected_ttest``, and the uncorrected paired t-test shown for contrast.

Prints the rejection rate at alpha = 0.05 under the null (target 0.05 +- 0.015)
and the power as the true accuracy difference grows.

Usage: python benchmarks/calibration_simulation.py [n_simulations=2000] [seed=0]
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _results import Table
from scipy import stats

import dartboard as db
from dartboard.metrics import accuracy_score

ALPHA = 0.05
N_TEST = 500
N_FOLDS = 10
DELTAS = (0.0, 0.02, 0.04, 0.06, 0.08)
N_DATA, J_SPLITS, N_TEST_SPLIT = 200, 15, 20
MU_B = 0.85
MU_DELTAS = (0.0, 0.15, 0.3, 0.45, 0.6)


def _fixed_models(delta: float, rng: np.random.Generator):
    probs = [0.70, 0.10 + delta / 2, 0.10 - delta / 2, 0.10]
    kind = rng.choice(4, size=N_TEST, p=probs)
    ok_a = (kind == 0) | (kind == 1)
    ok_b = (kind == 0) | (kind == 2)
    y = rng.integers(0, 2, N_TEST)
    return y, np.where(ok_a, y, 1 - y), np.where(ok_b, y, 1 - y)


def setting_one(delta: float, n_sims: int, seed: int, n_resamples: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    rejected = {"compare_models": 0, "mcnemar_test": 0, "permutation_test (folds)": 0}
    fold = np.arange(N_TEST) % N_FOLDS
    for i in range(n_sims):
        y, a, b = _fixed_models(delta, rng)
        res = db.compare_models(accuracy_score, y, a, b, n_resamples=n_resamples,
                                random_state=seed * 100_003 + i)
        rejected["compare_models"] += res.pvalue < ALPHA
        rejected["mcnemar_test"] += db.mcnemar_test(y, a, b).pvalue < ALPHA
        acc_a = np.bincount(fold, weights=a == y) / np.bincount(fold)
        acc_b = np.bincount(fold, weights=b == y) / np.bincount(fold)
        rejected["permutation_test (folds)"] += db.permutation_test(acc_a, acc_b).pvalue < ALPHA
    return {k: v / n_sims for k, v in rejected.items()}


def _split_scores(mu_a: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Accuracies of the two nearest-centroid learners on J random 90/10 splits."""
    y = rng.integers(0, 2, N_DATA)
    sign = 2.0 * y - 1.0
    x = np.column_stack([sign * mu_a, sign * MU_B]) + rng.normal(size=(N_DATA, 2))
    test = np.zeros((J_SPLITS, N_DATA), dtype=bool)
    order = np.argsort(rng.random((J_SPLITS, N_DATA)), axis=1)[:, :N_TEST_SPLIT]
    np.put_along_axis(test, order, True, axis=1)
    train = ~test
    pos, neg = train & (y == 1), train & (y == 0)
    scores = []
    for f in range(2):
        mean_pos = (pos * x[:, f]).sum(1) / pos.sum(1)
        mean_neg = (neg * x[:, f]).sum(1) / neg.sum(1)
        threshold = (mean_pos + mean_neg) / 2
        correct = (x[None, :, f] > threshold[:, None]) == (y[None, :] == 1)
        scores.append((correct & test).sum(1) / N_TEST_SPLIT)
    return scores[0], scores[1]


def setting_two(mu_a: float, n_sims: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    rejected = {"corrected_ttest": 0, "paired t-test (uncorrected)": 0}
    for _ in range(n_sims):
        a, b = _split_scores(mu_a, rng)
        if np.all(a == b):
            continue  # no difference on any split: neither test rejects
        res = db.corrected_ttest(a, b, n_train=N_DATA - N_TEST_SPLIT, n_test=N_TEST_SPLIT)
        rejected["corrected_ttest"] += res.pvalue < ALPHA
        rejected["paired t-test (uncorrected)"] += stats.ttest_rel(a, b).pvalue < ALPHA
    return {k: v / n_sims for k, v in rejected.items()}


def main() -> None:
    n_sims = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    n_resamples = 999
    t0 = time.perf_counter()
    band = 1.5 * 0.01
    print(f"{n_sims} simulated pairs per cell, alpha = {ALPHA}, compare_models with "
          f"{n_resamples} permutations; Monte-Carlo s.e. of a rate near 0.05 = "
          f"{np.sqrt(0.05 * 0.95 / n_sims):.4f}\n")
    one = {d: setting_one(d, n_sims, seed + k, n_resamples) for k, d in enumerate(DELTAS)}
    print(f"Setting 1: two fixed classifiers, n = {N_TEST} test samples "
          f"(accuracies 0.80 +- delta/2)")
    print("test".ljust(28) + "".join(f"delta={d:<6.2f}" for d in DELTAS)
          + "  null in 0.05+-0.015?")
    for name in one[0.0]:
        rates = "".join(f"{one[d][name]:<12.4f}" for d in DELTAS)
        ok = abs(one[0.0][name] - ALPHA) <= band
        print(f"{name:<28}{rates}  {'yes' if ok else 'NO'}")
    print(f"\nSetting 2: two learners, {J_SPLITS} random {N_DATA - N_TEST_SPLIT}/"
          f"{N_TEST_SPLIT} splits of N = {N_DATA} (overlapping training sets)")
    gaps = [stats.norm.cdf(MU_B + m) - stats.norm.cdf(MU_B) for m in MU_DELTAS]
    two = {m: setting_two(MU_B + m, n_sims, seed + 50 + k) for k, m in enumerate(MU_DELTAS)}
    print("test".ljust(28) + "".join(f"dacc={g:<7.3f}" for g in gaps) + "  null in 0.05+-0.015?")
    for name in two[0.0]:
        rates = "".join(f"{two[m][name]:<12.4f}" for m in MU_DELTAS)
        ok = abs(two[0.0][name] - ALPHA) <= band
        print(f"{name:<28}{rates}  {'yes' if ok else 'NO'}")
    print(f"\n({time.perf_counter() - t0:.0f} s)")



def render(log: str) -> list[Table]:
    """The two settings' tables of a run's log: rejection rate per test and effect."""
    names = {"Setting 1": ("paired_tests_fixed", "Two fixed classifiers on one test set "
                           "of 500 rows: rejection rate at alpha 0.05"),
             "Setting 2": ("paired_tests_learners", "Two learners, 15 random 180/20 splits "
                           "of 200 rows: rejection rate at alpha 0.05")}
    tables, lines = [], log.splitlines()
    for i, line in enumerate(lines):
        if line[:9] not in names:
            continue
        head = lines[i + 1][28:].split()
        columns = ["test", *head[:-3], " ".join(head[-3:])]
        rows = []
        for row in lines[i + 2:]:
            if not row.strip():
                break
            rows.append([row[:28].strip(), *row[28:].split()])
        tables.append(Table(*names[line[:9]], columns, rows))
    return tables


if __name__ == "__main__":
    main()
