"""Where the t-interval of a mean loss keeps 95%: the size rule of ``ci="auto"``.

A mean of per-row terms (log loss, Brier, MAE, MSE) takes Student's t-interval from
500 rows on under ``ci="auto"`` (``_MEAN_AUTO`` in the registry; 1000 until the n = 500
row of this grid showed t within the promise there) and BCa below; BCa costs a
bootstrap, which with many small groups is most of an evaluation's time. This script
measures both on the same data sets, by size, where a mean is weakest: skewed terms
(rare events' log loss, heavy-tailed errors).

Laws (truth from 4,000,000 rows of the law):

* log loss and Brier of probabilities ``expit(logit(prev) - 0.8 + 1.6 (y - prev) +
  N(0, 1))`` with prevalence 0.5, 0.1 and 0.02 (``benchmarks/interval_choice.py``'s
  law; at 2% the log loss of a missed positive is a rare, large term);
* MAE and MSE of errors ``N(0, 1)`` and Student's ``t_4``.

Cells: n = 30, 60, 100, 200, 500, 1000; ``n_sim`` data sets each (1000 by default),
every one with at least one row of each class; the public ``dartboard.interval(metric,
y, p, method=...)`` with ``method="t"`` and ``"bca"`` (``n_resamples`` 2000, the
default of ``evaluate``). Printed: coverage and mean width per method.

``--rare``: log loss and Brier with 2% and 1% positives only (the t-interval alone
above 2000 rows, where BCa's bootstrap would take hours).

Usage: python benchmarks/mean_loss_coverage.py [n_sim] [sizes, e.g. 30,60,100] [--rare]
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from scipy import special

import dartboard as db
from dartboard.metrics import brier_score_loss, log_loss, mean_absolute_error, mean_squared_error

SIZES = (30, 60, 100, 200, 500, 1000)


def proba(rng: np.random.Generator, n: int, prev: float) -> tuple[np.ndarray, np.ndarray]:
    y = (rng.random(n) < prev).astype(int)
    p = special.expit(np.log(prev / (1 - prev)) - 0.8 + 1.6 * (y - prev) + rng.normal(size=n))
    return y, p


def regression(rng: np.random.Generator, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    t = rng.normal(size=n)
    e = rng.normal(size=n) if kind == "normal" else rng.standard_t(4, size=n)
    return t, t + e


def laws(prevalences=(0.5, 0.1, 0.02), regression_laws=True):
    for prev in prevalences:
        for metric in (log_loss, brier_score_loss):
            yield (f"{metric.__name__}, {100 * prev:g}% positives", metric,
                   lambda rng, n, prev=prev: proba(rng, n, prev))
    for kind in ("normal", "t4") if regression_laws else ():
        for metric in (mean_absolute_error, mean_squared_error):
            yield (f"{metric.__name__}, errors {kind}", metric,
                   lambda rng, n, kind=kind: regression(rng, n, kind))


def run(n_sim: int, sizes: tuple[int, ...], rare: bool = False) -> None:
    print(f"coverage of 95% intervals of mean losses; {n_sim} data sets per cell; "
          "BCa with 2000 resamples")
    print("| law | n | t coverage | t width | BCa coverage | BCa width |")
    print("|---|---|---|---|---|---|")
    big = np.random.default_rng(7)
    seeds = iter(np.random.SeedSequence(20261208).spawn(100))
    for name, metric, draw in (laws((0.02, 0.01), False) if rare else laws()):
        y, p = draw(big, 4_000_000)
        truth = float(metric(y, p))
        for n in sizes:
            start = time.perf_counter()
            rng = np.random.default_rng(next(seeds))
            hits = {"t": 0, "bca": 0}
            widths: dict[str, list[float]] = {"t": [], "bca": []}
            done = 0
            while done < n_sim:
                y, p = draw(rng, n)
                if "positives" in name and y.min() == y.max():
                    continue
                done += 1
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for method in ("t",) if rare and n > 2000 else ("t", "bca"):
                        iv = db.interval(metric, y, p, method=method, n_resamples=2000,
                                         random_state=done)
                        hits[method] += iv.low <= truth <= iv.high
                        widths[method].append(iv.high - iv.low)
            bca = (f"{100 * hits['bca'] / n_sim:.1f}% | {np.mean(widths['bca']):.4f}"
                   if widths["bca"] else "not run | ")
            print(f"| {name} | {n} | {100 * hits['t'] / n_sim:.1f}% | "
                  f"{np.mean(widths['t']):.4f} | {bca} |", flush=True)
            print(f"<!-- {name} n={n}: {time.perf_counter() - start:.0f} s -->", flush=True)


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 1000,
        tuple(int(v) for v in sys.argv[2].split(",")) if len(sys.argv) > 2 else SIZES,
        "--rare" in sys.argv)
