"""Simulation: the largest gap's interval from normal replicates against drawn ones (not
run in CI).

When a grouped bootstrap would draw more than ``EXACT_WORK`` row counts (R x cells;
continuous scores have about a cell per row), the groups of at least
``NORMAL_MIN_ROWS`` (200) rows take normal replicates from their cells' influence
values (a Gaussian multiplier bootstrap) instead of drawing their cells. This script
checks that the max-T interval of ``difference()`` keeps its coverage on that path, for
the metrics of continuous scores whose gaps are most often wanted on many rows: ROC AUC,
average precision, log loss and the Brier score.

The data-generating model is that of ``largest_gap_coverage.py``: G groups of m rows;
in a group the positive class has prevalence 0.5 and the score is N(mu y, 1), handed to
``evaluate`` as a probability, 1 / (1 + exp(-(score - 0.85))). Every group has mu = 1.7
except, in ``worse``, the last:

- ``null``: all groups equal; the interval should exclude 0 in at most 5% of data sets;
- ``worse``: the last group has mu = 1.0; the interval should cover the true largest
  gap (max - min of the groups' population values) in 93-97% of data sets.

The population values of the four metrics at a given mu come from one large Monte
Carlo sample (2 million rows per distinct mu, a fixed seed, computed once per run by
scikit-learn), not from formulas: average precision and the two losses of these
probabilities have none at hand. The ROC AUC's is printed beside it as a check.

Each data set is evaluated twice with the same ``random_state``: once with
``EXACT_WORK = 0`` (normal replicates for every group, all having >= 200 rows) and once
with ``EXACT_WORK = 10**18`` (every group's cells drawn: the exact grouped bootstrap).
Per cell (G, m) and path the table gives, per metric, the share of data sets excluding
0 (null) or covering the true gap (worse), with the mean interval width in
parentheses, then the path's wall time. ``normal`` counts the (data set, metric) rows
whose method said the replicates were normal (all of them, if the path was taken).
With 1000 data sets the Monte Carlo standard error of a share near 0.95 is 0.007, of
one near 0.05 also 0.007.

Data set i of a cell is drawn from ``default_rng([G, m, scenario, i])`` and evaluated
with ``random_state=i``: every number can be reproduced on its own.

Cost on one core (per data set, 1000 resamples): the normal path 0.1-0.7 s, the exact
one 0.75 s (4x200), about 2 s (4x1000, 20x200) and 8 s (20x1000). The committed log
(``results/logs/normal_gap_coverage.log``) therefore runs the exact path on 4x200 only,
to stay within 100 minutes; the other cells' exact figures need the fifth argument.

Usage: python benchmarks/normal_gap_coverage.py [n_sim] [n_resamples] [scenarios]
[cells] [exact cells] (defaults 1000 1000 null,worse 4x200,4x1000,20x200,20x1000 and
the exact path on the same cells; a cell GxM is G groups of M rows; ``none``: no exact
cells).
"""

from __future__ import annotations

import functools
import re
import sys
import time
import warnings

import numpy as np
from _results import Table
from scipy.stats import norm
from sklearn.metrics import average_precision_score, brier_score_loss, log_loss, roc_auc_score

import dartboard
from dartboard.families import _base

MU, THRESHOLD, PREVALENCE = 1.7, 0.85, 0.5
SCENARIOS = {"null": MU, "worse": 1.0}
METRICS = ("roc_auc", "average_precision", "log_loss", "brier_score_loss")
PATHS = {"normal": 0, "exact": 10**18}  # EXACT_WORK: normal replicates always / never
TRUTH_ROWS, TRUTH_SEED = 2_000_000, 20260
CELLS = "4x200,4x1000,20x200,20x1000"


def _proba(score: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-(score - THRESHOLD)))


@functools.cache
def _truth(mu: float) -> dict[str, float]:
    """Population values of one group with score N(mu y, 1): one Monte Carlo sample of
    TRUTH_ROWS rows (standard errors of a few 1e-4, small beside the intervals' widths
    of 0.03 and more)."""
    rng = np.random.default_rng([TRUTH_SEED, round(mu * 1000)])
    y = (rng.random(TRUTH_ROWS) < PREVALENCE).astype(int)
    proba = _proba(rng.normal(size=TRUTH_ROWS) + mu * y)
    return {"roc_auc": float(roc_auc_score(y, proba)),
            "average_precision": float(average_precision_score(y, proba)),
            "log_loss": float(log_loss(y, proba)),
            "brier_score_loss": float(brier_score_loss(y, proba))}


def _target(mus: np.ndarray) -> dict[str, float]:
    """The true largest gap: max - min of the groups' population values."""
    groups = [_truth(float(mu)) for mu in mus]
    return {k: max(t[k] for t in groups) - min(t[k] for t in groups) for k in METRICS}


def _sample(rng: np.random.Generator, mus: np.ndarray, m: int):
    g = np.repeat(np.arange(mus.shape[0]), m)
    y = (rng.random(g.shape[0]) < PREVALENCE).astype(int)
    score = rng.normal(size=g.shape[0]) + mus[g] * y
    return y, _proba(score), np.char.add("g", g.astype(str))


def _gaps(y, proba, groups, resamples: int, seed: int, exact_work: int):
    """difference() of one data set with the given EXACT_WORK."""
    saved = _base.EXACT_WORK
    _base.EXACT_WORK = exact_work
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = dartboard.evaluate(y, y_score=proba, groups=groups, metrics=list(METRICS),
                                    n_resamples=resamples, random_state=seed, progress=False)
            return ev.difference()
    finally:
        _base.EXACT_WORK = saved


def run_cell(scenario: str, g_count: int, m: int, n_sim: int, resamples: int,
             paths: tuple[str, ...]) -> str:
    mus = np.full(g_count, MU)
    mus[-1] = SCENARIOS[scenario]
    target = _target(mus)
    hits = {p: dict.fromkeys(METRICS, 0) for p in paths}
    valid = {p: dict.fromkeys(METRICS, 0) for p in paths}
    width = {p: dict.fromkeys(METRICS, 0.0) for p in paths}
    normal = dict.fromkeys(paths, 0)
    seconds = dict.fromkeys(paths, 0.0)
    for i in range(n_sim):
        rng = np.random.default_rng([g_count, m, list(SCENARIOS).index(scenario), i])
        y, proba, groups = _sample(rng, mus, m)
        for p in paths:
            start = time.perf_counter()
            diff = _gaps(y, proba, groups, resamples, i, PATHS[p])
            seconds[p] += time.perf_counter() - start
            for k in METRICS:
                row = diff.loc[k]
                normal[p] += "replicates normal" in str(row["method"])
                low, high = float(row["low"]), float(row["high"])
                if not (np.isfinite(low) and np.isfinite(high)):
                    continue
                valid[p][k] += 1
                width[p][k] += high - low
                hits[p][k] += (low > 0 or high < 0) if scenario == "null" \
                    else low <= target[k] <= high
    cells = []
    for k in METRICS:
        for p in PATHS:
            if p not in paths:
                cells.append(f"{'-':^14}")
                continue
            n = valid[p][k]
            share = f"{hits[p][k] / n:.3f}" if n else "-"
            mean = f"{width[p][k] / n:.3f}".lstrip("0") if n else "-"
            entry = f"{share:>5} ({mean:>4})" + ("" if n == n_sim else f"[{n}]")
            cells.append(f"{entry:<14}")
    times = " ".join(f"{seconds[p]:>6.0f} s" if p in paths else f"{'-':>8}" for p in PATHS)
    taken = " ".join(f"{normal[p]:>5}/{len(METRICS) * n_sim}" if p in paths else f"{'-':>10}"
                     for p in PATHS)
    return f"{scenario:<6} {g_count:>3} {m:>4}  {' '.join(cells)}  {times}  {taken}"


def _cells(text: str) -> list[tuple[int, int]]:
    if text == "none":
        return []
    return [(int(g), int(m)) for g, m in (c.split("x") for c in text.split(","))]


def main() -> None:
    n_sim = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    resamples = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    scenarios = sys.argv[3].split(",") if len(sys.argv) > 3 else list(SCENARIOS)
    cells = _cells(sys.argv[4] if len(sys.argv) > 4 else CELLS)
    exact = set(_cells(sys.argv[5])) if len(sys.argv) > 5 else set(cells)
    begin = time.perf_counter()
    print(f"largest gap (between_groups), 95% max-T intervals: normal replicates "
          f"(EXACT_WORK = 0) and exact grouped bootstrap (EXACT_WORK = 10**18) on the same "
          f"data sets; {n_sim} data sets per cell, {resamples} resamples each")
    print(f"cells: {', '.join(f'{g}x{m}' for g, m in cells)}; exact path on "
          f"{', '.join(f'{g}x{m}' for g, m in cells if (g, m) in exact) or 'none'}")
    print(f"population values ({TRUTH_ROWS} Monte Carlo rows per mu; ROC AUC by its "
          "formula Phi(mu / sqrt 2) beside it):")
    for mu in sorted(set(SCENARIOS.values()), reverse=True):
        t = _truth(mu)
        print(f"  mu = {mu}: " + ", ".join(f"{k} {v:.4f}" for k, v in t.items())
              + f" (formula ROC AUC {norm.cdf(mu / np.sqrt(2)):.4f})")
    what = {"null": "share excluding 0 (at most 0.05)",
            "worse": "share covering the true largest gap (0.93-0.97)"}
    for scenario in scenarios:
        mus = np.array([MU, SCENARIOS[scenario]])
        gap = _target(mus)
        print()
        print(f"{scenario}: {what[scenario]}; in parentheses the mean width; true gaps "
              + ", ".join(f"{k} {v:.4f}" for k, v in gap.items()))
        print(f"{'case':<6} {'G':>3} {'m':>4}  "
              + " ".join(f"{k:^29}" for k in METRICS)
              + f"  {'time normal, exact':>17}  {'normal rows: normal, exact':>21}")
        print(f"{'':<16}" + " ".join(f"{p:^14}" for _ in METRICS for p in PATHS))
        for g_count, m in cells:
            paths = tuple(p for p in PATHS if p == "normal" or (g_count, m) in exact)
            print(run_cell(scenario, g_count, m, n_sim, resamples, paths), flush=True)
    print(f"\ntotal {time.perf_counter() - begin:.0f} s")


_TOKEN = re.compile(r"(\S+) \(\s*(\S+)\)(?:\[(\d+)\])?|(\d+) s\b|(\d+/\d+)|(-)")


def render(log: str) -> list[Table]:
    """One table per scenario in a run's log: per cell, each metric's share on the
    normal and the exact path (mean width in parentheses), and each path's time."""
    rows: dict[str, list] = {}
    for line in log.splitlines():
        fields = line.split(None, 3)
        if len(fields) < 4 or fields[0] not in SCENARIOS or not fields[1].isdigit():
            continue
        tokens = []
        for share, width, n, seconds, _, dash in _TOKEN.findall(fields[3]):
            if share:
                tokens.append(f"{share} ({width}" + (f", {n} valid)" if n else ")"))
            elif seconds or dash:
                tokens.append(seconds or dash)
        rows.setdefault(fields[0], []).append([fields[1], fields[2], *tokens[:2 * len(METRICS)
                                                                             + len(PATHS)]])
    what = {"null": "share of data sets whose interval excludes 0 (at most 0.05)",
            "worse": "coverage of the true largest gap, one group worse (0.93-0.97)"}
    columns = ["groups", "rows per group", *(f"{k} {p}" for k in METRICS for p in PATHS),
               *(f"seconds {p}" for p in PATHS)]
    return [Table(f"normal_gap_{name}", f"Largest gap, normal and exact replicates: "
                  f"{what[name]} (mean width)", columns, cells)
            for name, cells in rows.items()]


if __name__ == "__main__":
    main()
