"""Coverage of the intervals of a fixed ROC point (not run in CI).

``sensitivity_at_specificity`` and ``specificity_at_sensitivity`` take the
registry's percentile bootstrap, as pROC's ``ci.coords`` does. This script
measures how often the 95% interval covers the population value where such an
interval is weakest: few rows in a class, a target near the curve's end (a
specificity of 0.95 leaves few negatives above the cut), and tied scores.

Population: binormal scores, negatives N(0, 1), positives N(d, 1), d = 1.528
(AUC 0.86), half the rows positive (each set draws its own count). Population
sensitivity at specificity x: 1 - Phi(Phi^-1(x) - d); specificity at sensitivity
x: Phi(d + Phi^-1(1 - x)). "ties" rounds the scores to one decimal, which leaves
the population curve piecewise linear between the rounded cuts: its value is the
pROC interpolation of the population ROC points at the rounded cuts (by
quadrature of the normal cdf). Monte-Carlo error of a coverage near 95% with
1000 sets: +-1.4 points (2 SE).

Usage: python benchmarks/fixed_point_coverage.py [sims=1000] [resamples=1000]
       [methods=percentile,bca,stratified] [sizes=40,100,400] [targets=0.8,0.95]
       [ties=both|no|yes]
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from scipy.stats import norm

import dartboard as db
from dartboard.metrics._operating_points import at_fixed_point

D = 1.528


def population(name: str, x: float, ties: bool) -> float:
    if not ties:
        if name == "sensitivity_at_specificity":
            return float(1 - norm.cdf(norm.ppf(x) - D))
        return float(norm.cdf(D + norm.ppf(1 - x)))
    # rounded scores: the population's score map at the rounded values
    edges = np.arange(-6.05, 8.0, 0.1)
    pos, neg = np.diff(norm.cdf(edges - D)), np.diff(norm.cdf(edges))
    key = "specificity" if name == "sensitivity_at_specificity" else "sensitivity"
    return float(at_fixed_point(pos[None], neg[None], **{key: x})[0])


def draw(rng: np.random.Generator, n: int, ties: bool) -> tuple[np.ndarray, np.ndarray]:
    while True:
        y = rng.integers(0, 2, n)
        if 2 <= y.sum() <= n - 2:
            break
    s = rng.normal(D * y, 1.0)
    return y, np.round(s, 1) if ties else s


def main() -> None:
    sims = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    resamples = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    methods = (sys.argv[3] if len(sys.argv) > 3 else "percentile,bca,stratified").split(",")
    sizes = [int(v) for v in (sys.argv[4] if len(sys.argv) > 4 else "40,100,400").split(",")]
    targets = [float(v) for v in (sys.argv[5] if len(sys.argv) > 5 else "0.8,0.95").split(",")]
    tie_cases = {"both": (False, True), "no": (False,), "yes": (True,)}[
        sys.argv[6] if len(sys.argv) > 6 else "both"]
    warnings.simplefilter("ignore")  # degenerate replicates at the curve's end are counted
    print(f"{sims} sets per cell, {resamples} resamples, binormal d={D} (AUC 0.86)")
    print(f"{'metric':28s} {'x':>5s} {'ties':>5s} {'n':>5s}  " + "  ".join(methods))
    started = time.perf_counter()
    for name, key in (("sensitivity_at_specificity", "specificity"),
                      ("specificity_at_sensitivity", "sensitivity")):
        for x in targets:
            for ties in tie_cases:
                truth = population(name, x, ties)
                for n in sizes:
                    rng = np.random.default_rng([n, int(100 * x), ties, len(name)])
                    hits = dict.fromkeys(methods, 0)
                    done = 0
                    for _ in range(sims):
                        y, s = draw(rng, n, ties)
                        kw = {key: x, "n_resamples": resamples, "random_state": rng}
                        try:
                            for label in methods:
                                strat = label == "stratified"
                                iv = db.interval(name, y, s, stratified=strat, **kw,
                                                 method="percentile" if strat else label)
                                hits[label] += iv.low <= truth <= iv.high
                            done += 1
                        except ValueError:
                            continue
                    cover = "  ".join(f"{hits[k] / max(done, 1):.3f}" for k in hits)
                    print(f"{name:28s} {x:5.2f} {str(ties):>5s} {n:5d}  {cover}"
                          f"  (truth {truth:.3f}, {done} sets)", flush=True)
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
