"""Simulation: the ECE's largest gap between groups from its bins' normal limit beside
the drawn replicates, on the same data sets (not run in CI).

``difference()`` builds the selection-aware (max-T) interval of the largest gap from
bootstrap replicates of every group's metric (``dartboard/evaluation/_simultaneous.py``).
For the ECE (l1, 15 equal-width bins) those replicates come, when every group has at
least ``NORMAL_BINS_MIN_ROWS`` (200) rows, from each group's bins' sums
S_gb = sum (outcome - confidence) in their joint normal limit under the multinomial
bootstrap, with |.| taken per drawn bin
(:func:`dartboard._kernels._calibration.grouped_bins_normal`); otherwise each group's
(outcome, bin) cells are drawn per replicate (a multinomial, plus normal sums of
confidences). This script checks that the normal path keeps the interval's promise
where the drawn one does.

Data. G groups of m rows. Scores p = expit(z), z ~ N(-0.5, sd 1.2) (the upper bins are
sparse: the top one holds about 0.5% of the rows); outcomes y ~ Bernoulli(q(p)):

- ``null``: every group q(p) = p ** 1.25; the groups' population ECEs are equal, the
  true largest gap D is 0; the interval should exclude 0 in at most 5% of data sets;
- ``worse``: as ``null`` but the last group has q(p) = p ** 2 (more miscalibrated);
  D = ECE_pop(p ** 2) - ECE_pop(p ** 1.25); the interval should cover D in about 95%;
- ``calibrated``: every group q(p) = p (population ECE 0, D = 0); as ``null``.

The truth. The estimand of the sample ECE with 15 equal-width bins
[b/15, (b+1)/15) is the binned ECE of the population,
ECE_pop = sum_b | E[(q(p) - p) 1{p in bin b}] | (= sum_b P(b) |E[q(p) | b] - E[p | b]|;
the sample ECE sum_b |sum_{i in b} (y_i - p_i)| / n is its plug-in). Each bin's
expectation is an integral over the logit z: of (q(expit z) - expit z) times the
N(-0.5, 1.2) density between logit(b/15) and logit((b+1)/15) (infinite ends for the
first and last bins), by ``scipy.integrate.quad``. The truth is that of the binned
error, not of the (smaller) binning-free calibration error.

Per data set, ``dartboard.evaluate(y, y_score=p, groups=g, metrics=["ece"],
n_resamples=1000, random_state=i).difference()`` is run twice on the same data with the
same ``random_state``: first as the library does (every group has >= 200 rows: the
normal bins), then with ``dartboard.families._calibration.NORMAL_BINS_MIN_ROWS`` set to
infinity (the drawn replicates). Each run's method text is checked: "replicates normal"
in the first, not in the second. 1000 resamples (not the default) to save time; the
max-T quantiles at 95% are stable enough at that size for coverage.

Per cell and method the tables give: ``cover`` (worse: the share of intervals with
low <= D <= high) or ``excl 0`` (null, calibrated: the share with low > 0, which there
is the share wholly above D = 0), ``below`` (high < D), ``above`` (low > D), the mean
width; then, paired on the same data sets, the mean |low_normal - low_drawn| and
|high_normal - high_drawn|, and ``disagree``: the share of data sets on which one
method's interval covers D (or excludes 0) and the other's does not (the paired
difference of the two shares has Monte Carlo s.e. about sqrt(disagree / n)). The
Monte Carlo s.e. of one share near 0.95 (or 0.05) is 0.007 with 1000 data sets.

Data set i of a cell is drawn from ``default_rng([G, m, scenario, i])``: every number
can be reproduced on its own.

Usage: python benchmarks/ece_gap_coverage.py [n_sim] [n_resamples] [scenarios] [cells]
[large n_sim] (defaults 1000 1000 null,worse,calibrated
2x200,2x1000,10x200,10x1000,50x200,50x1000, and n_sim data sets in every cell; the
fifth argument sets the data sets of the cells of 50 groups).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from _results import Table, markdown_tables
from scipy import integrate, special, stats

import dartboard
from dartboard.evaluation import _gaps as gaps_module
from dartboard.families import _calibration as calibration_family

MU, SD, N_BINS = -0.5, 1.2, 15
SCENARIOS = ("null", "worse", "calibrated")
POWER = {"calibrated": 1.0, "mild": 1.25, "strong": 2.0}  # q(p) = p ** power
CELLS = "2x200,2x1000,10x200,10x1000,50x200,50x1000"
METHODS = ("normal", "drawn")


def population_ece(power: float) -> float:
    """The binned ECE of q(p) = p ** power under p = expit(N(MU, SD)) (module doc)."""
    edges = special.logit(np.linspace(0.0, 1.0, N_BINS + 1))  # -inf ... +inf

    def gap(z: float) -> float:
        p = special.expit(z)
        return (p**power - p) * stats.norm.pdf(z, MU, SD)

    return float(sum(abs(integrate.quad(gap, lo, hi, epsabs=1e-13, limit=200)[0])
                     for lo, hi in zip(edges[:-1], edges[1:], strict=True)))


def powers(scenario: str, g_count: int) -> np.ndarray:
    if scenario == "calibrated":
        return np.full(g_count, POWER["calibrated"])
    out = np.full(g_count, POWER["mild"])
    if scenario == "worse":
        out[-1] = POWER["strong"]
    return out


def target(scenario: str) -> float:
    """The true largest gap D (max - min of the groups' population ECEs)."""
    values = [population_ece(a) for a in set(powers(scenario, 2))]
    return max(values) - min(values)


def sample(rng: np.random.Generator, exponents: np.ndarray, m: int):
    g = np.repeat(np.arange(exponents.shape[0]), m)
    p = special.expit(rng.normal(MU, SD, size=g.shape[0]))
    y = (rng.random(g.shape[0]) < p ** exponents[g]).astype(int)
    return y, p, np.char.add("g", g.astype(str))


def ece_gap(y, p, groups, resamples: int, seed: int, method: str) -> tuple[float, ...]:
    """(estimate, low, high) of the ECE row of difference() by ``method``."""
    saved = calibration_family.NORMAL_BINS_MIN_ROWS
    pair = gaps_module._pivot_pair
    if method == "drawn":
        calibration_family.NORMAL_BINS_MIN_ROWS = float("inf")
    # two groups' gap now combines their bin-pivot intervals (benchmarks/
    # ece_pair_coverage.py); this script measures the replicates' interval, so it
    # keeps the interval of the replicates' differences there
    gaps_module._pivot_pair = lambda *args: None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            row = dartboard.evaluate(y, y_score=p, groups=groups, metrics=["ece"],
                                     n_resamples=resamples, random_state=seed,
                                     progress=False).difference().loc["ece"]
    finally:
        calibration_family.NORMAL_BINS_MIN_ROWS = saved
        gaps_module._pivot_pair = pair
    normal = "replicates normal" in str(row["method"])
    assert normal == (method == "normal"), (method, row["method"])
    return float(row["estimate"]), float(row["low"]), float(row["high"])


def run_cell(scenario: str, g_count: int, m: int, n_sim: int, resamples: int) -> str:
    exponents = powers(scenario, g_count)
    truth = target(scenario)
    found = np.full((len(METHODS), n_sim, 3), np.nan)
    seconds = np.zeros(len(METHODS))
    for i in range(n_sim):
        rng = np.random.default_rng([g_count, m, SCENARIOS.index(scenario), i])
        y, p, groups = sample(rng, exponents, m)
        for k, method in enumerate(METHODS):
            start = time.perf_counter()
            found[k, i] = ece_gap(y, p, groups, resamples, i, method)
            seconds[k] += time.perf_counter() - start
    low, high = found[..., 1], found[..., 2]
    valid = np.isfinite(low) & np.isfinite(high)
    below, above = high < truth, low > truth
    hit = above if truth == 0.0 else ~below & ~above
    cells = []
    for k in range(len(METHODS)):
        v = valid[k]
        cells += [f"{hit[k][v].mean():.3f}", f"{below[k][v].mean():.3f}",
                  f"{above[k][v].mean():.3f}", f"{(high[k] - low[k])[v].mean():.4f}"]
    both = valid.all(axis=0)
    cells += [f"{np.abs(low[0] - low[1])[both].mean():.4f}",
              f"{np.abs(high[0] - high[1])[both].mean():.4f}",
              f"{(hit[0] != hit[1])[both].mean():.3f}",
              f"{np.nanmean(found[0, :, 0]):.4f}",
              f"{int(valid[0].sum())}/{int(valid[1].sum())}",
              f"{seconds[0]:.0f}/{seconds[1]:.0f}"]
    return "| " + " | ".join([str(g_count), str(m), str(n_sim), *cells]) + " |"


COLUMNS = ["G", "m", "data sets",
           *(f"{c} {k}" for k in METHODS for c in ("{hit}", "below", "above", "width")),
           "mean abs d low", "mean abs d high", "disagree", "mean estimate",
           "valid normal/drawn", "seconds normal/drawn"]


def main() -> None:
    n_sim = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    resamples = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    scenarios = sys.argv[3].split(",") if len(sys.argv) > 3 else list(SCENARIOS)
    cells = [tuple(int(x) for x in c.split("x"))
             for c in (sys.argv[4] if len(sys.argv) > 4 else CELLS).split(",")]
    large = int(sys.argv[5]) if len(sys.argv) > 5 else n_sim
    begin = time.perf_counter()
    print(f"ECE (l1, {N_BINS} equal-width bins), largest gap between groups, 95% max-T "
          f"intervals of difference(): the groups' bins' normal limit (normal) and drawn "
          f"cells (drawn, NORMAL_BINS_MIN_ROWS = inf) on the same data sets and "
          f"random_state; {n_sim} data sets per cell ({large} with 50 groups), "
          f"{resamples} resamples each")
    print(f"scores expit(N({MU}, sd {SD})); population binned ECE: "
          + ", ".join(f"q = p^{a}: {population_ece(a):.5f}" for a in POWER.values()))
    print("Monte Carlo s.e. of a share near 0.95 or 0.05: "
          f"{np.sqrt(0.05 * 0.95 / n_sim):.4f} ({n_sim} data sets)"
          + (f", {np.sqrt(0.05 * 0.95 / large):.4f} ({large})" if large != n_sim else ""))
    what = {"null": "every group q = p^1.25; excl 0: share with low > 0 (at most 0.05)",
            "worse": "last group q = p^2, the others p^1.25; cover: share with "
                     "low <= D <= high (about 0.95)",
            "calibrated": "every group q = p; excl 0: share with low > 0 (at most 0.05)"}
    for scenario in scenarios:
        hit = "excl 0" if target(scenario) == 0.0 else "cover"
        print()
        print(f"{scenario}: {what[scenario]}; true largest gap D = {target(scenario):.5f}")
        columns = [c.replace("{hit}", hit) for c in COLUMNS]
        print("| " + " | ".join(columns) + " |")
        print("|" + "|".join("---" for _ in columns) + "|")
        for g_count, m in cells:
            n = large if g_count >= 50 else n_sim
            print(run_cell(scenario, g_count, m, n, resamples), flush=True)
    print(f"\ntotal {time.perf_counter() - begin:.0f} s")


def render(log: str) -> list[Table]:
    """One table per scenario of a run's log (printed as Markdown tables)."""
    names = [line.split(":", 1)[0] for line in log.splitlines()
             if line.split(":", 1)[0] in SCENARIOS]
    return [Table(f"ece_gap_{name}", f"ECE's largest gap between groups, normal bins and "
                  f"drawn replicates on the same data sets ({name})", header, rows)
            for name, (header, *rows) in zip(names, markdown_tables(log), strict=True)]


if __name__ == "__main__":
    main()
