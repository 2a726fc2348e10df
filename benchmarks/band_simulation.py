"""Coverage of the ROC and PR bands on their default grids, ends included.

Each cell draws ``--reps`` data sets of fixed class sizes (positives/negatives: 10/90,
50/50, 100/900, 500/500), scores from one of two models:

- ``binormal``: negatives N(0, 1), positives N(1.5, 1) (AUC 0.86). The true ROC
  curve is ``TPR(sp) = Phi(1.5 - Phi^{-1}(sp))``, 0 at specificity 1 and 1 at 0;
- ``rating``: the same scores rounded to a five-point scale, ``clip(round(x), -1, 3)``
  (ties everywhere). The true curve joins the five population points by straight
  lines, as the bands read the data.

The true PR curve is the precision at each recall for the cell's class sizes,
``r P / (r P + N FPR(r))``, with ``FPR(r)`` read on the true ROC curve the same way.

Every data set gets the four bands on the default grids (``roc_band`` at the
specificities 0, 0.01, ..., 1; ``pr_band`` at the recalls 0.01, ..., 1), pointwise and
simultaneous, 95% nominal, ``--resamples`` draws each. Printed per band:

- per-point coverage: the share of data sets whose band holds the true value, its
  minimum and median over the grid, and at the ends;
- whole-curve coverage: the share whose band holds the true curve at every grid point
  (the promise of the simultaneous band; the pointwise band's figure shows why one is
  needed);
- the mean width.

The script runs against whatever ``dartboard`` is importable, so the figures of an
older version come from the same code (``PYTHONPATH=<old>/src``).

``--youden`` adds the coverage of ``select_threshold(criterion="youden")``'s TPR
interval on the binormal cells: of the true sensitivity of the chosen threshold and of
the sensitivity at the true Youden-optimal threshold ``mu / 2``.

Usage: python benchmarks/band_simulation.py [--reps 1000] [--resamples 2000]
       [--cells 10/90,50/50,100/900,500/500] [--models binormal,rating] [--youden]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _results import Table, markdown_tables
from scipy import stats

from dartboard import pr_band, roc_band, select_threshold

MU = 1.5
LEVEL = 0.95
SPECIFICITIES = np.linspace(0.0, 1.0, 101)
RECALLS = np.linspace(0.01, 1.0, 100)
ROC_ENDS = (0.0, 0.01, 0.05, 0.5, 0.95, 0.99, 1.0)
PR_ENDS = (0.01, 0.05, 0.5, 0.95, 1.0)
RATINGS = np.arange(-1, 4)
TABLES = (("ROC", ROC_ENDS, SPECIFICITIES), ("PR", PR_ENDS, RECALLS))


def rating_points() -> tuple[np.ndarray, np.ndarray]:
    """(FPR, TPR) of the rating model's population ROC points, from (0, 0) to (1, 1):
    rating t or above is x >= t - 1/2, and the lowest rating takes everything."""
    c = np.concatenate([[np.inf], RATINGS[::-1] - 0.5])
    c[-1] = -np.inf
    return stats.norm.sf(c), stats.norm.sf(c - MU)


def true_curves(model: str, n_pos: int, n_neg: int) -> tuple[np.ndarray, np.ndarray]:
    """True sensitivity at SPECIFICITIES and precision at RECALLS."""
    if model == "binormal":
        roc = stats.norm.cdf(MU - stats.norm.ppf(SPECIFICITIES))
        at = stats.norm.cdf(stats.norm.ppf(RECALLS) - MU)
    else:
        # at an FPR hit by several points the best (highest TPR); else the straight line
        fpr, tpr = rating_points()
        u = 1.0 - SPECIFICITIES
        roc = np.interp(u, fpr, tpr)
        roc[u == 0] = tpr[fpr == 0].max()
        at = np.interp(RECALLS, tpr, fpr)  # first point reaching the recall
    return roc, RECALLS * n_pos / (RECALLS * n_pos + n_neg * at)


def scores(model: str, rng: np.random.Generator, y: np.ndarray) -> np.ndarray:
    s = rng.normal(size=y.shape[0]) + MU * y
    return s if model == "binormal" else np.clip(np.round(s), RATINGS[0], RATINGS[-1])


class Tally:
    """Coverage counts of one band over the data sets of a cell."""

    def __init__(self, k: int) -> None:
        self.hit = np.zeros(k)
        self.whole = 0
        self.width = 0.0
        self.n = 0

    def add(self, band, truth: np.ndarray) -> None:
        ok = (band.low <= truth + 1e-12) & (truth <= band.high + 1e-12)
        self.hit += ok
        self.whole += bool(np.all(ok))
        self.width += float(np.mean(band.high - band.low))
        self.n += 1

    def row(self, grid: np.ndarray, ends: tuple[float, ...]) -> list[str]:
        cover = 100 * self.hit / self.n
        at = [cover[np.argmin(np.abs(grid - e))] for e in ends]
        return ([f"{cover.min():.1f} (at {grid[cover.argmin()]:.2f})",
                 f"{np.median(cover):.1f}"] + [f"{c:.1f}" for c in at]
                + [f"{100 * self.whole / self.n:.1f}", f"{self.width / self.n:.3f}"])


def one_cell(model: str, n_pos: int, n_neg: int, reps: int, resamples: int,
             seed: int) -> dict:
    rng = np.random.default_rng(seed)
    y = np.r_[np.zeros(n_neg, int), np.ones(n_pos, int)]
    roc_truth, pr_truth = true_curves(model, n_pos, n_neg)
    tallies = {(c, k): Tally(101 if c == "ROC" else 100)
               for c in ("ROC", "PR") for k in ("pointwise", "simultaneous")}
    for r in range(reps):
        s = scores(model, rng, y)
        for kind in ("pointwise", "simultaneous"):
            common = {"kind": kind, "n_resamples": resamples, "random_state": r}
            tallies["ROC", kind].add(roc_band(y, s, **common), roc_truth)
            tallies["PR", kind].add(pr_band(y, s, **common), pr_truth)
    return tallies


def youden_cell(n_pos: int, n_neg: int, reps: int, resamples: int, seed: int
                ) -> tuple[float, float]:
    """Share of binormal data sets whose Youden TPR interval holds (a) the true
    sensitivity of the chosen threshold, ``1 - Phi(t_hat - mu)``, and (b) the
    sensitivity at the true Youden-optimal threshold ``mu / 2``."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.zeros(n_neg, int), np.ones(n_pos, int)]
    optimal = stats.norm.sf(MU / 2 - MU)
    hits = np.zeros(2)
    for r in range(reps):
        op = select_threshold(y, scores("binormal", rng, y), n_resamples=resamples,
                              random_state=r)
        tpr = op.intervals["tpr"]
        chosen = stats.norm.sf(op.threshold - MU)
        hits += [tpr.low <= chosen <= tpr.high, tpr.low <= optimal <= tpr.high]
    return tuple(100 * hits / reps)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--cells", default="10/90,50/50,100/900,500/500")
    ap.add_argument("--models", default="binormal,rating")
    ap.add_argument("--youden", action="store_true",
                    help="also the Youden operating point's TPR interval")
    args = ap.parse_args()
    se = 100 * np.sqrt(LEVEL * (1 - LEVEL) / args.reps)
    print(f"{args.reps} data sets per cell, {args.resamples} draws per band, nominal "
          f"{LEVEL:.0%} (Monte Carlo s.e. of a coverage near 95%: {se:.1f} points)\n")
    results = {}
    for model in args.models.split(","):
        for i, cell in enumerate(args.cells.split(",")):
            n_pos, n_neg = map(int, cell.split("/"))
            start = time.perf_counter()
            tallies = results[model, cell] = one_cell(model, n_pos, n_neg, args.reps,
                                                      args.resamples, seed=1000 * i + len(model))
            print(f"[{model} {cell}: {time.perf_counter() - start:.0f} s]", flush=True)
            for curve, ends, grid in TABLES:
                for kind in ("pointwise", "simultaneous"):
                    print(f"  {curve} {kind}: "
                          + " | ".join(tallies[curve, kind].row(grid, ends)), flush=True)
    for curve, ends, grid in TABLES:
        axis = "specificity" if curve == "ROC" else "recall"
        print(f"\n| model | pos/neg | {curve} band | min (at) | median | "
              + " | ".join(f"{axis} {e:g}" for e in ends)
              + " | whole curve | mean width |")
        print("|" + "---|" * (len(ends) + 7))
        for (model, cell), tallies in results.items():
            for kind in ("pointwise", "simultaneous"):
                print(f"| {model} | {cell} | {kind} | "
                      + " | ".join(tallies[curve, kind].row(grid, ends)) + " |")
    if args.youden:
        print("\n| pos/neg | Youden TPR: chosen threshold | optimal threshold |")
        print("|---|---|---|")
        for i, cell in enumerate(args.cells.split(",")):
            n_pos, n_neg = map(int, cell.split("/"))
            chosen, optimal = youden_cell(n_pos, n_neg, args.reps, args.resamples, i)
            print(f"| {cell} | {chosen:.1f} | {optimal:.1f} |", flush=True)


def render(log: str) -> list[Table]:
    """The ROC and PR band tables of a run's log (and the Youden table if run)."""
    tables = []
    for header, *rows in markdown_tables(log):
        if "ROC band" in header or "PR band" in header:
            curve = "roc" if "ROC band" in header else "pr"
            tables.append(Table(f"band_{curve}", f"Coverage (%) of the 95% {curve.upper()} "
                                "bands on the default grid", header, rows))
        elif header[0] == "pos/neg":
            tables.append(Table("band_youden", "Coverage (%) of the Youden threshold's TPR "
                                "interval", header, rows))
    return tables


if __name__ == "__main__":
    main()
