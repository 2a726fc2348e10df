"""Coverage of the bootstrap with ``strata=`` when the test set is drawn stratum by stratum.

Data: three strata (sites) with fixed shares 50 / 30 / 20% of ``n`` rows, as a test
set assembled by design (so many rows from each site). Site ``s`` has prevalence
``pi_s`` (0.1, 0.5, 0.9) and the model's score is ``y + N(0, 1)`` shifted by
``d_s`` (-1, 0.5, 1.5); the label is predicted at score 0.5. The truth of each
metric is its value on 3,000,000 rows in the same fixed shares: what the design
estimates. Each data set gets the BCa interval resampling all rows (the default)
and resampling within the sites (``strata=``), both from ``dartboard.interval``.
Resampling all rows lets each site's share vary, which the design fixes, so its
interval is too wide where the sites differ; ``strata=`` keeps the shares.

Usage: python benchmarks/strata_coverage.py [n_sim] [n_resamples] (defaults 1000 500).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from _results import Table, markdown_tables

import dartboard as db

SHARES = np.array([0.5, 0.3, 0.2])
PREVALENCE = np.array([0.1, 0.5, 0.9])
SHIFT = np.array([-1.0, 0.5, 1.5])
SIZES = (50, 200, 1000)
METRICS = {"accuracy": "labels", "roc_auc": "scores"}


def draw(rng: np.random.Generator, n: int):
    counts = np.round(SHARES * n).astype(int)
    counts[0] += n - counts.sum()
    site = np.repeat(np.arange(3), counts)
    y = (rng.random(n) < PREVALENCE[site]).astype(int)
    score = y + rng.normal(size=n) + SHIFT[site]
    return site, y, score, (score >= 0.5).astype(int)


def truth() -> dict[str, float]:
    site, y, score, pred = draw(np.random.default_rng(12345), 3_000_000)
    return {"accuracy": float(np.mean(y == pred)),
            "roc_auc": float(db.metrics.roc_auc_score(y, score))}


def main(argv: list[str]) -> None:
    n_sim = int(argv[1]) if len(argv) > 1 else 1000
    resamples = int(argv[2]) if len(argv) > 2 else 500
    true = truth()
    print(f"strata: 3 sites in fixed shares {SHARES.tolist()}; 95% BCa; {n_sim} data sets "
          f"per cell, {resamples} resamples; truth "
          + ", ".join(f"{k} {v:.4f}" for k, v in true.items()))
    print("coverage % (mean width)")
    print("| n | metric | all rows | within sites (strata=) |")
    print("|---|---|---|---|")
    rng = np.random.default_rng(0)
    for n in SIZES:
        start = time.perf_counter()
        hits = {k: np.zeros(2) for k in METRICS}
        width = {k: np.zeros(2) for k in METRICS}
        valid = {k: np.zeros(2) for k in METRICS}
        for i in range(n_sim):
            site, y, score, pred = draw(rng, n)
            for name, kind in METRICS.items():
                other = score if kind == "scores" else pred
                for j, strata in enumerate((None, site)):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        try:
                            iv = db.interval(name, y, other, method="bca", strata=strata,
                                             n_resamples=resamples, random_state=i)
                        except ValueError:
                            continue
                    valid[name][j] += 1
                    hits[name][j] += iv.low <= true[name] <= iv.high
                    width[name][j] += iv.high - iv.low
        for name in METRICS:
            cells = [f"{100 * hits[name][j] / valid[name][j]:.1f}% "
                     f"({width[name][j] / valid[name][j]:.3f})" for j in range(2)]
            print(f"| {n} | {name} | {' | '.join(cells)} |", flush=True)
        print(f"<!-- n = {n}: {time.perf_counter() - start:.0f} s -->", flush=True)


def render(log: str) -> list[Table]:
    """The table of a run's log (printed as a Markdown table)."""
    header, *rows = markdown_tables(log)[0]
    return [Table("strata", "Coverage of 95% BCa intervals of a test set drawn site by site", header, rows)]


if __name__ == "__main__":
    main(sys.argv)
