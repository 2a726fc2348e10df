"""Coverage of intervals when rows come in clusters: independent-rows vs clustered.

Data: ``C`` clusters of ``m`` rows (a patient's visits, a passage's questions). A
cluster has a random effect ``u ~ N(0, 1)``; a row's label is positive with
probability ``1 / (1 + exp(-u))`` and its score is ``1 / (1 + exp(-(0.8 u + 0.5 e)))``
with ``e ~ N(0, 1)``, the label predicted at 0.5. Rows of one cluster share ``u``,
so both what they are and how well the model does on them go together. The truth of
each metric (accuracy, ROC AUC, F1) is its value on 4,000,000 rows of 400,000 fresh
clusters.

Per cell (``C`` in 20, 50, 200; ``m`` = 10) and data set, ``dartboard.interval`` with
its default (independent rows: Wilson, DeLong, BCa) and with ``clusters=`` (the
bootstrap of whole clusters, BCa), 95% nominal. Printed: the share of data sets whose
interval holds the truth, and the mean width.

Usage: python benchmarks/clustered_coverage.py [n_sim] [n_resamples] (defaults 1000 500)
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from _results import Table, markdown_tables

import dartboard as db
from dartboard import metrics as dm

M = 10
CELLS = (20, 50, 200)
METRICS = {"accuracy": ("labels", dm.accuracy_score), "roc_auc": ("scores", dm.roc_auc_score),
           "f1": ("labels", dm.f1_score)}


def draw(rng: np.random.Generator, n_clusters: int, m: int = M):
    cluster = np.repeat(np.arange(n_clusters), m)
    u = rng.normal(size=n_clusters)[cluster]
    y = (rng.random(cluster.shape[0]) < 1 / (1 + np.exp(-u))).astype(int)
    score = 1 / (1 + np.exp(-(0.8 * u + 0.5 * rng.normal(size=cluster.shape[0]))))
    return cluster, y, score, (score >= 0.5).astype(int)


def truth() -> dict[str, float]:
    _, y, score, pred = draw(np.random.default_rng(12345), 400_000)
    return {name: float(f(y, score if kind == "scores" else pred))
            for name, (kind, f) in METRICS.items()}


def main(argv: list[str]) -> None:
    n_sim = int(argv[1]) if len(argv) > 1 else 1000
    resamples = int(argv[2]) if len(argv) > 2 else 500
    true = truth()
    print(f"clustered rows, {M} per cluster; 95% intervals; {n_sim} data sets per cell, "
          f"{resamples} resamples; truth {', '.join(f'{k} {v:.4f}' for k, v in true.items())}")
    print("| clusters | metric | independent rows: coverage | width | clustered: coverage | "
          "width |")
    print("|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for n_clusters in CELLS:
        start = time.perf_counter()
        hits = {k: np.zeros(2) for k in METRICS}
        width = {k: np.zeros(2) for k in METRICS}
        valid = {k: np.zeros(2) for k in METRICS}
        for i in range(n_sim):
            cluster, y, score, pred = draw(rng, n_clusters)
            for name, (kind, _) in METRICS.items():
                other = score if kind == "scores" else pred
                for j, clusters in enumerate((None, cluster)):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        try:
                            iv = db.interval(name, y, other, n_resamples=resamples,
                                             random_state=i, clusters=clusters)
                        except ValueError:
                            continue
                    valid[name][j] += 1
                    hits[name][j] += iv.low <= true[name] <= iv.high
                    width[name][j] += iv.high - iv.low
        for name in METRICS:
            cov = 100 * hits[name] / np.maximum(valid[name], 1)
            w = width[name] / np.maximum(valid[name], 1)
            print(f"| {n_clusters} | {name} | {cov[0]:.1f}% | {w[0]:.3f} | {cov[1]:.1f}% | "
                  f"{w[1]:.3f} |", flush=True)
        print(f"<!-- {n_clusters} clusters: {time.perf_counter() - start:.0f} s -->", flush=True)


def render(log: str) -> list[Table]:
    """The coverage table of a run's log (printed as a Markdown table)."""
    header, *rows = markdown_tables(log)[0]
    return [Table("clustered", "Coverage of 95% intervals with clustered rows", header, rows)]


if __name__ == "__main__":
    main(sys.argv)
