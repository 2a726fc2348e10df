"""Coverage of the ROC bands and of the interval of the sensitivity at a Youden threshold.

Binormal data: negatives N(0, 1), positives N(mu, 1) (mu = 1.5, AUC 0.86), so the
true ROC curve is ``TPR(sp) = Phi(mu - Phi^{-1}(sp))``. Class sizes are fixed
(n * prevalence positives), the design the stratified bootstrap assumes.

For n = 100 and 1000 and 10% / 50% positives, over ``--reps`` data sets:

- pointwise band (percentile, 95%) of the sensitivity at 5 specificities: the
  share of data sets whose interval holds the true sensitivity, per point;
- simultaneous band (sup-t, 95%) over the specificities 0.01, 0.02, ..., 0.99,
  and over 0.10, ..., 0.90: the share whose band holds the true curve at every
  grid point (and the same share for the pointwise band of the same replicates,
  to show why a simultaneous band is needed);
- ``select_threshold(criterion="youden")``: the share whose TPR interval holds
  (a) the true sensitivity of the chosen threshold, ``1 - Phi(t_hat - mu)``, and
  (b) the sensitivity at the true Youden-optimal threshold ``mu / 2``.

Usage: python benchmarks/band_simulation.py [--reps 400] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from dartboard import roc_band, select_threshold

MU = 1.5
POINTS = np.array([0.5, 0.7, 0.8, 0.9, 0.95])
GRIDS = {"0.01-0.99": np.round(np.linspace(0.01, 0.99, 99), 10),
         "0.10-0.90": np.round(np.linspace(0.1, 0.9, 81), 10)}


def true_sensitivity(specificity: np.ndarray) -> np.ndarray:
    return stats.norm.cdf(MU - stats.norm.ppf(specificity))


def _covers(low: np.ndarray, high: np.ndarray, truth: np.ndarray) -> bool:
    return bool(np.all((low <= truth) & (truth <= high)))


def one_cell(n: int, prevalence: float, reps: int, resamples: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n_pos = int(round(n * prevalence))
    y = np.r_[np.zeros(n - n_pos, int), np.ones(n_pos, int)]
    truth_points = true_sensitivity(POINTS)
    youden_truth = 1 - stats.norm.cdf(MU / 2 - MU)
    hits = {"points": np.zeros(POINTS.shape[0]), "youden_conditional": 0,
            "youden_optimal": 0}
    for name in GRIDS:
        hits["sup-t " + name] = hits["pointwise " + name] = 0
    for r in range(reps):
        s = rng.normal(size=n) + MU * y
        point = roc_band(y, s, specificities=POINTS, n_resamples=resamples, random_state=r)
        hits["points"] += (point.low <= truth_points) & (truth_points <= point.high)
        for name, grid in GRIDS.items():
            truth = true_sensitivity(grid)
            band = roc_band(y, s, specificities=grid, kind="simultaneous",
                            n_resamples=resamples, random_state=r)
            hits["sup-t " + name] += _covers(band.low, band.high, truth)
            # the pointwise band of the same replicates
            low, high = np.quantile(band.bootstrap_distribution, [0.025, 0.975], axis=0)
            hits["pointwise " + name] += _covers(low, high, truth)
        op = select_threshold(y, s, n_resamples=resamples, random_state=r)
        tpr = op.intervals["tpr"]
        conditional = 1 - stats.norm.cdf(op.threshold - MU)
        hits["youden_conditional"] += tpr.low <= conditional <= tpr.high
        hits["youden_optimal"] += tpr.low <= youden_truth <= tpr.high
    return {k: v / reps for k, v in hits.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()
    se = 100 * np.sqrt(0.95 * 0.05 / args.reps)
    print(f"{args.reps} data sets per cell, {args.resamples} resamples, nominal 95% "
          f"(Monte Carlo s.e. of a coverage near 95%: {se:.1f} points)\n")
    head = " ".join(f"sp={p:g}" for p in POINTS)
    bands = " | ".join(f"{kind} {name}" for name in GRIDS for kind in ("sup-t", "pointwise"))
    print(f"| n | pos | {head} | {bands} | Youden TPR (chosen t) | Youden TPR (optimal t) "
          "| seconds |")
    print("|" + "---|" * (POINTS.shape[0] + 7 + 2 * len(GRIDS) - 2))
    for n in (100, 1000):
        for prevalence in (0.1, 0.5):
            start = time.perf_counter()
            c = one_cell(n, prevalence, args.reps, args.resamples, seed=n + int(prevalence * 10))
            cells = " | ".join(f"{100 * v:.1f}" for v in c["points"])
            band = " | ".join(f"{100 * c[kind + ' ' + name]:.1f}" for name in GRIDS
                              for kind in ("sup-t", "pointwise"))
            print(f"| {n} | {prevalence:.0%} | {cells} | {band} | "
                  f"{100 * c['youden_conditional']:.1f} | {100 * c['youden_optimal']:.1f} | "
                  f"{time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()
