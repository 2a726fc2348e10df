"""Simulation: coverage of the 95% intervals of between-group gaps (not run in CI).

Two groups of equal size m (50, 200, 2000) with known rates: prevalence 0.40 / 0.50,
true positive rate 0.85 / 0.75, false positive rate 0.10 / 0.20, so accuracy,
TPR and selection rate differ between the groups by known amounts; a second
scenario has identical groups (every gap 0). For each of ``n_sim`` data sets,
``dartboard.evaluate(...).difference()`` gives the gap between the groups that are
higher and lower in the data, with its interval; it covers when the interval holds
the true difference between those two groups (in that order). Target: 93-97%.
(More than two groups, where the pair is picked by looking: largest_gap_coverage.py.)

Usage: python benchmarks/group_gap_coverage.py [n_sim] [n_resamples] (defaults 2000 1000).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from _results import Table

import dartboard

METRICS = {"accuracy": "accuracy", "recall": "TPR", "selection_rate": "selection rate"}
SCENARIOS = {
    "groups differ": {"prev": (0.40, 0.50), "tpr": (0.85, 0.75), "fpr": (0.10, 0.20)},
    "groups equal": {"prev": (0.45, 0.45), "tpr": (0.80, 0.80), "fpr": (0.15, 0.15)},
}


def _truth(p: dict, g: int) -> dict[str, float]:
    prev, tpr, fpr = p["prev"][g], p["tpr"][g], p["fpr"][g]
    return {"accuracy": prev * tpr + (1 - prev) * (1 - fpr), "recall": tpr,
            "selection_rate": prev * tpr + (1 - prev) * fpr}


def _sample(rng: np.random.Generator, p: dict, m: int):
    ys, preds = [], []
    for g in (0, 1):
        y = rng.random(m) < p["prev"][g]
        hit = np.where(y, rng.random(m) < p["tpr"][g], rng.random(m) < p["fpr"][g])
        ys.append(y.astype(int))
        preds.append(hit.astype(int))
    return np.concatenate(ys), np.concatenate(preds), np.repeat(["g0", "g1"], m)


def main() -> None:
    n_sim = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    resamples = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    print(f"coverage of 95% intervals of the between-group difference, {n_sim} data sets, "
          f"{resamples} resamples each")
    print(f"{'scenario':<15} {'m per group':>11} " + " ".join(f"{v:>15}" for v in
                                                               METRICS.values()))
    for name, p in SCENARIOS.items():
        truth = [_truth(p, 0), _truth(p, 1)]
        for m in (50, 200, 2000):
            rng = np.random.default_rng([m, len(name)])
            hits = {k: 0 for k in METRICS}
            valid = {k: 0 for k in METRICS}
            start = time.perf_counter()
            for i in range(n_sim):
                y, pred, groups = _sample(rng, p, m)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ev = dartboard.evaluate(y, pred, metrics=list(METRICS), groups=groups,
                                            n_resamples=resamples, random_state=i)
                    diff = ev.difference()
                for k in METRICS:
                    row = diff.loc[k]
                    if not np.isfinite(row["low"]):
                        continue
                    hi, lo = (0, 1) if row["groups"].startswith("g0 vs") else (1, 0)
                    target = truth[hi][k] - truth[lo][k]
                    valid[k] += 1
                    hits[k] += row["low"] <= target <= row["high"]
            cells = " ".join(f"{hits[k] / max(valid[k], 1):>15.3f}" for k in METRICS)
            print(f"{name:<15} {m:>11} {cells}   ({time.perf_counter() - start:.0f} s)",
                  flush=True)


def render(log: str) -> list[Table]:
    """The coverage table of a run's log: one row per scenario and group size."""
    rows = []
    for line in log.splitlines():
        name = line[:15].strip()
        if name in SCENARIOS:
            fields = line[15:].split()
            rows.append([name, fields[0], *fields[1:1 + len(METRICS)]])
    return [Table("group_gap", "Coverage of the 95% interval of the gap between two groups",
                  ["scenario", "rows per group", *METRICS.values()], rows)]


if __name__ == "__main__":
    main()
