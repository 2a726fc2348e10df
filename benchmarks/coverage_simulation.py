"""Coverage of dartboard's 95% intervals on simulated test sets (not run in CI).

For each n, draws ``sims`` independent test sets from a known population and
counts how often the interval contains the population value:

- accuracy: y ~ Bernoulli(0.4), each prediction correct with probability 0.85
  (true accuracy 0.85); wilson, wald and bca.
- F1: same population; true F1 = 2 pi se / (2 pi se + pi (1 - se) + (1 - pi)(1 - sp))
  with prevalence pi = 0.4 and sensitivity = specificity = 0.85; bca.
- ROC AUC: binormal scores, negatives N(0, 1), positives N(1, 1), prevalence 0.4;
  true AUC = Phi(1 / sqrt 2); delong and bca.

Monte-Carlo error of a coverage estimate near 95% with 2000 sets: +-1.0 point (2 SE).

Usage: python benchmarks/coverage_simulation.py [sims=2000] [resamples=2000]
       [auc_resamples=1000] [sizes=50,200,1000,10000]
"""

from __future__ import annotations

import re
import sys
import time
import warnings

import numpy as np
from _results import Table
from scipy.special import ndtr


def main() -> None:
    sims = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    resamples = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    auc_resamples = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    sizes = [int(s) for s in sys.argv[4].split(",")] if len(sys.argv) > 4 \
        else [50, 200, 1000, 10000]

    import dartboard as db
    from dartboard.metrics import accuracy_score, f1_score, roc_auc_score

    prevalence, se, sp = 0.4, 0.85, 0.85
    true_acc = prevalence * se + (1 - prevalence) * sp
    tp, fn, fp = prevalence * se, prevalence * (1 - se), (1 - prevalence) * (1 - sp)
    true_f1 = 2 * tp / (2 * tp + fn + fp)
    true_auc = float(ndtr(1 / np.sqrt(2)))
    cases = [("accuracy", "wilson", true_acc), ("accuracy", "wald", true_acc),
             ("accuracy", "bca", true_acc), ("F1", "bca", true_f1),
             ("ROC AUC", "delong", true_auc), ("ROC AUC", "bca", true_auc)]
    metrics = {"accuracy": accuracy_score, "F1": f1_score, "ROC AUC": roc_auc_score}
    print(f"coverage of 95% intervals: {sims} simulated test sets per cell, "
          f"{resamples} bootstrap resamples ({auc_resamples} for AUC)")
    print(f"true accuracy {true_acc:.4f}, F1 {true_f1:.4f}, AUC {true_auc:.4f}\n")
    rng = np.random.default_rng(20261122)
    table = {}
    for n in sizes:
        start = time.perf_counter()
        hits = {c[:2]: 0 for c in cases}
        widths = {c[:2]: 0.0 for c in cases}
        seeds = np.random.SeedSequence(n).spawn(sims)
        for i in range(sims):
            y = (rng.random(n) < prevalence).astype(int)
            correct = rng.random(n) < np.where(y == 1, se, sp)
            pred = np.where(correct, y, 1 - y)
            score = rng.normal(size=n) + y
            for name, method, truth in cases:
                other = score if name == "ROC AUC" else pred
                r = auc_resamples if name == "ROC AUC" else resamples
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    iv = db.interval(metrics[name], y, other, method=method, n_resamples=r,
                                     random_state=seeds[i])
                hits[name, method] += iv.low <= truth <= iv.high
                widths[name, method] += iv.high - iv.low
        table[n] = {k: (hits[k] / sims, widths[k] / sims) for k in hits}
        print(f"n = {n}: {time.perf_counter() - start:.1f} s", flush=True)
    print()
    print(f"{'metric':<10}{'method':<9}" + "".join(f"{'n=' + str(n):>20}" for n in sizes))
    for name, method, _ in cases:
        cells = "".join(f"{100 * table[n][name, method][0]:>9.1f}% (w {table[n][name, method][1]:.3f})"
                        for n in sizes)
        print(f"{name:<10}{method:<9}{cells}")
    print("\n(w = mean interval width)")


def render(log: str) -> list[Table]:
    """The coverage table of a run's log (its printed table, one row per interval)."""
    lines = log.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("metric    method"))
    sizes = re.findall(r"n=(\d+)", lines[head])
    rows = []
    for line in lines[head + 1:]:
        if not line.strip():
            break
        name, method = line[:10].strip(), line[10:19].strip()
        cells = re.findall(r"([\d.]+)% \(w ([\d.]+)\)", line[19:])
        rows.append([name, method, *[f"{c}% ({w})" for c, w in cells]])
    return [Table("coverage", "Coverage of 95% intervals (mean width in brackets)",
                  ["metric", "method", *[f"n = {n}" for n in sizes]], rows)]


if __name__ == "__main__":
    main()
