"""Benchmark: ranking, probabilistic and regression metrics, dartboard vs scikit-learn.

Usage: python benchmarks/bench_scores.py [n_samples] [repeats]
(or env DARTBOARD_BENCH_N / DARTBOARD_BENCH_REPEATS); default 10,000,000 rows.

Targets (DESIGN.md section 4): AUC and AP at least 3x scikit-learn, log loss at
least 5x; regression metrics no slower than scikit-learn and within 1.5x of one
numpy pass over the data (``np.subtract(y_true, y_pred)``, printed as the floor).
Each timing is the best of ``repeats`` runs (scikit-learn: best of fewer runs when
it is slow); values must agree to 1e-10 (relative).
"""

from __future__ import annotations

import os
import re
import sys
import warnings

import numpy as np
import sklearn
import sklearn.metrics as skm
from _results import Table
from _timing import best_wall_and_cpu

import dartboard
import dartboard.metrics as dbm


def agree(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.allclose(a, b, rtol=1e-10, atol=1e-12, equal_nan=True))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else int(os.environ.get("DARTBOARD_BENCH_N",
                                                                       10_000_000))
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else int(
        os.environ.get("DARTBOARD_BENCH_REPEATS", 3))
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    score = rng.normal(size=n) + y  # continuous: every score distinct (worst sort case)
    score_ties = np.round(score, 2)  # heavy ties
    proba = 1.0 / (1.0 + np.exp(-score))
    y3 = rng.integers(0, 3, n)
    proba3 = rng.dirichlet(np.ones(3), n)
    target = rng.normal(10.0, 3.0, n)
    pred = target + rng.normal(0.0, 1.0, n)

    print(f"dartboard {dartboard.__version__} vs scikit-learn {sklearn.__version__}, "
          f"n = {n:,}, best of {repeats} (machine may be shared: timings are noisy)\n")
    header = f"{'metric':34s} {'dartboard':>11s} {'sklearn':>11s} {'speed-up':>9s} " \
             f"{'(cpu)':>7s}  {'target':>7s}  values"
    print(header)
    print("-" * len(header))

    cases = [
        ("roc_auc_score", (y, score), {}, 3),
        ("roc_auc_score (ties)", (y, score_ties), {}, 3),
        ("average_precision_score", (y, score), {}, 3),
        ("average_precision_score (ties)", (y, score_ties), {}, 3),
        ("log_loss", (y, proba), {}, 5),
        ("log_loss (3 classes)", (y3, proba3), {}, 5),
        ("brier_score_loss", (y, proba), {}, None),
    ]
    regression = ["mean_squared_error", "root_mean_squared_error", "mean_absolute_error",
                  "r2_score", "explained_variance_score", "mean_absolute_percentage_error",
                  "max_error", "median_absolute_error"]
    cases += [(name, (target, pred), {}, 1) for name in regression]

    floor, floor_cpu, _ = best_wall_and_cpu(lambda: np.subtract(target, pred), repeats + 2)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, args, kwargs, goal in cases:
            name = label.split(" ")[0]
            ours_t, ours_c, ours_v = best_wall_and_cpu(
                lambda: getattr(dbm, name)(*args, **kwargs), repeats + 2 if goal == 1
                else repeats)
            theirs_t, theirs_c, theirs_v = best_wall_and_cpu(
                lambda: getattr(skm, name)(*args, **kwargs), max(1, repeats - 1))
            goal_text = "-" if goal is None else (">= 1x" if goal == 1 else f">= {goal}x")
            ok = agree(ours_v, theirs_v)
            print(f"{label:34s} {ours_t * 1e3:9.1f}ms {theirs_t * 1e3:9.1f}ms "
                  f"{theirs_t / ours_t:8.2f}x {theirs_c / ours_c:6.2f}x  {goal_text:>7s}  "
                  f"{'agree' if ok else 'DIFFER'}")
            rows.append((label, ours_t, ours_c, goal))

    print(f"\nnumpy one-pass floor np.subtract(y_true, y_pred): {floor * 1e3:.1f} ms "
          f"(cpu {floor_cpu * 1e3:.1f} ms)")
    print(f"{'regression metric':34s} {'dartboard / floor':>18s} {'(cpu)':>7s}  "
          "target <= 1.5x for MSE, MAE, R^2")
    for label, ours_t, ours_c, goal in rows:
        if goal == 1 and "median" not in label:
            print(f"{label:34s} {ours_t / floor:17.2f}x {ours_c / floor_cpu:6.2f}x")
    print("(median_absolute_error needs a selection, O(n) but several passes: no floor "
          "target)")


_ROW = re.compile(r"^(.*?)\s+(\S+s)\s+(\S+s)\s+(\S+x)\s+(\S+x)\s+(>= \S+|-)\s+(\w+)$")
_FLOOR = re.compile(r"^(\w+)\s+(\S+x)\s+(\S+x)$")


def render(log: str) -> list[Table]:
    """The speed-up table and the one-pass floor table of a run's log."""
    lines = log.splitlines()
    setting = next(line for line in lines if line.startswith("dartboard ") and " vs " in line)
    rows = [list(m.groups()) for m in map(_ROW.match, lines) if m]
    floor = [list(m.groups()) for m in map(_FLOOR.match, lines) if m]
    return [Table("speed_scores", f"Ranking, probabilistic and regression metrics: {setting}",
                  ["metric", "dartboard", "sklearn", "speed-up", "speed-up (CPU)", "target",
                   "values"], rows),
            Table("speed_scores_floor", "Regression metrics against one numpy pass over "
                  "the data (np.subtract)", ["metric", "dartboard / floor",
                                             "dartboard / floor (CPU)"], floor)]


if __name__ == "__main__":
    main()
