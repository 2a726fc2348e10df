"""Simulation: the interval of the largest gap between G groups, old and new (not run in CI).

G groups (2, 4, 8, 20) of m rows each (20, 50, 300). In a group the positive class
has prevalence 0.5 and the score is N(mu y, 1); the label is predicted at score
0.85 (the score is handed to ``evaluate`` as a probability, 1 / (1 + exp(-(score -
0.85))), so 0.5 is that threshold). Every group has mu = 1.7 (accuracy 0.80, F1
0.80, ROC AUC 0.885, selection rate 0.5) except, in the "worse" scenarios, the last:

- ``null``: all groups equal; the largest gap's interval should exclude 0 in at most
  5% of data sets;
- ``worse``: the last group has mu = 1.0 (accuracy 0.68, F1 0.64, ROC AUC 0.76,
  selection rate 0.38); the interval should cover the true largest gap (max - min
  of the groups' population values) in 93-97% of data sets;
- ``far``: the last group has mu = 0 (accuracy 0.50, F1 0.28, ROC AUC 0.50,
  selection rate 0.20).

Per data set, ``dartboard.evaluate(...).difference()`` (accuracy, F1, ROC AUC) and
``.fairness()`` (demographic parity difference) give the largest gap and its new
interval; the old figure is the interval of the same pair as if it had been named in
advance, ``.pairwise(simultaneous=False)`` (Newcombe's for accuracy and the selection
rate, the percentile bootstrap for F1 and AUC), which is what ``difference()`` gave
before. Each cell prints old -> new: the share of data sets whose interval excludes
0 (null) or covers the true largest gap (worse, far).

With ``to_overall`` as the fourth argument the gap is the largest |group - overall|
(``difference("to_overall")``, ``fairness("to_overall")``) and its target the true
one; there is no old figure (the group's own interval was not kept).

Usage: python benchmarks/largest_gap_coverage.py [n_sim] [n_resamples] [scenarios]
[between_groups|to_overall] (defaults 1000 1000 null,worse,far between_groups).
"""

from __future__ import annotations

import re
import sys
import time
import warnings

import numpy as np
from _results import Table
from scipy.stats import norm

import dartboard

MU, THRESHOLD, PREVALENCE = 1.7, 0.85, 0.5
SCENARIOS = {"null": MU, "worse": 1.0, "far": 0.0}
METRICS = ("accuracy", "f1", "roc_auc", "demographic_parity")


def _truth(mus: np.ndarray) -> dict[str, float]:
    """Population values of equal-sized groups with score N(mu y, 1) pooled, labels at
    THRESHOLD (one group: that group's values). The negatives' scores do not depend on
    the group, so the pooled AUC is the groups' mean."""
    tpr, fpr, pi = np.mean(norm.sf(THRESHOLD - mus)), norm.sf(THRESHOLD), PREVALENCE
    return {"accuracy": pi * tpr + (1 - pi) * (1 - fpr),
            "f1": 2 * pi * tpr / (pi + pi * tpr + (1 - pi) * fpr),
            "roc_auc": float(np.mean(norm.cdf(mus / np.sqrt(2)))),
            "demographic_parity": pi * tpr + (1 - pi) * fpr}


def _target(mus: np.ndarray, method: str) -> dict[str, float]:
    """The true largest gap: max - min over groups, or the largest |group - overall|."""
    groups = [_truth(mus[g:g + 1]) for g in range(mus.shape[0])]
    if method == "between_groups":
        return {k: max(t[k] for t in groups) - min(t[k] for t in groups) for k in METRICS}
    pooled = _truth(mus)
    return {k: max(abs(t[k] - pooled[k]) for t in groups) for k in METRICS}


def _sample(rng: np.random.Generator, mus: np.ndarray, m: int):
    g = np.repeat(np.arange(mus.shape[0]), m)
    y = (rng.random(g.shape[0]) < PREVALENCE).astype(int)
    score = rng.normal(size=g.shape[0]) + mus[g] * y
    return y, 1 / (1 + np.exp(-(score - THRESHOLD))), np.char.add("g", g.astype(str))


def _rows(ev, method: str):
    """Per metric: the new row (largest gap) and the old one (that pair's own interval;
    None for to_overall)."""
    diff, fair = ev.difference(method), ev.fairness(method)
    pairs = ev.pairwise(["accuracy", "f1", "roc_auc", "selection_rate"], simultaneous=False) \
        if method == "between_groups" else None
    out = {}
    for name in METRICS:
        new = fair.loc["demographic_parity_difference"] if name == "demographic_parity" \
            else diff.loc[name]
        row = "selection_rate" if name == "demographic_parity" else name
        out[name] = (new, None if pairs is None else pairs.loc[(row, new["groups"])])
    return out


def run_cell(scenario: str, g_count: int, m: int, n_sim: int, resamples: int,
             method: str = "between_groups") -> str:
    mus = np.full(g_count, MU)
    mus[-1] = SCENARIOS[scenario]
    target = _target(mus, method)
    rng = np.random.default_rng([g_count, m, list(SCENARIOS).index(scenario)])
    hits = {k: np.zeros(2) for k in METRICS}
    valid = {k: np.zeros(2) for k in METRICS}
    start = time.perf_counter()
    for i in range(n_sim):
        y, proba, groups = _sample(rng, mus, m)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = dartboard.evaluate(y, y_score=proba, groups=groups, n_resamples=resamples,
                                    metrics=["accuracy", "f1", "roc_auc", "selection_rate"],
                                    random_state=i)
            rows = _rows(ev, method)
        for k, pair in rows.items():
            for j, row in enumerate(pair[::-1]):  # old, new
                if row is None:
                    continue
                low, high = float(row["low"]), float(row["high"])
                if not (np.isfinite(low) and np.isfinite(high)):
                    continue
                valid[k][j] += 1
                hits[k][j] += low > 0 if scenario == "null" else low <= target[k] <= high
    cells = " ".join((f"{hits[k][0] / valid[k][0]:>6.3f}" if valid[k][0] else f"{'-':>6}")
                     + f" -> {hits[k][1] / max(valid[k][1], 1):<6.3f}"
                     + ("" if valid[k][1] == n_sim else f"({int(valid[k][1])})")
                     for k in METRICS)
    return (f"{scenario:<6} {g_count:>3} {m:>4}  {cells}   "
            f"({time.perf_counter() - start:.0f} s)")


def main() -> None:
    n_sim = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    resamples = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    scenarios = sys.argv[3].split(",") if len(sys.argv) > 3 else list(SCENARIOS)
    method = sys.argv[4] if len(sys.argv) > 4 else "between_groups"
    print(f"largest gap ({method}), 95% intervals: old (the pair as if named in "
          f"advance) -> new; {n_sim} data sets per cell, {resamples} resamples each")
    print("null: share excluding 0 (at most 0.05); worse, far: share covering the true "
          "largest gap (0.93-0.97)")
    print(f"{'case':<6} {'G':>3} {'m':>4}  " + " ".join(f"{k:^16}" for k in METRICS))
    for scenario in scenarios:
        for g_count in (2, 4, 8, 20):
            for m in (20, 50, 300):
                print(run_cell(scenario, g_count, m, n_sim, resamples, method), flush=True)


_CELL = re.compile(r"(\S+) -> ([\d.]+)(?:\((\d+)\))?")


def render(log: str) -> list[Table]:
    """One table per scenario in a run's log: old -> new for each metric, per cell."""
    method = re.search(r"largest gap \((\w+)\)", log)
    suffix = "" if method is None or method.group(1) == "between_groups" else "_to_overall"
    rows: dict[str, list] = {}
    for line in log.splitlines():
        fields = line.split()
        if not fields or fields[0] not in SCENARIOS or not fields[1].isdigit():
            continue
        cells = [f"{old} → {new}" + (f" ({n} valid)" if n else "")
                 for old, new, n in _CELL.findall(line)]
        rows.setdefault(fields[0], []).append([fields[1], fields[2], *cells])
    what = {"null": "share of data sets whose interval excludes 0 (at most 0.05)",
            "worse": "coverage of the true largest gap, one group worse (0.93-0.97)",
            "far": "coverage of the true largest gap, one group far worse (0.93-0.97)"}
    return [Table(f"largest_gap_{name}{suffix}", f"Largest gap, {what[name]}: old → new",
                  ["groups", "rows per group", *METRICS], cells)
            for name, cells in rows.items()]


if __name__ == "__main__":
    main()
