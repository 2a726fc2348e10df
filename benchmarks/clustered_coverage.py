"""Coverage of intervals when rows come in clusters: independent rows vs clustered.

Data: ``C`` clusters of ``m`` rows (a patient's visits, a passage's questions). With
intra-cluster correlation ``rho`` of the latent variables, a row's label is
``y = [sqrt(rho) a_c + sqrt(1 - rho) e_i > 0]`` and its score ``p = sigmoid(
(2y - 1) + 1.5 (sqrt(rho) b_c + sqrt(1 - rho) f_i))`` with ``a_c``, ``b_c``, ``e_i``,
``f_i`` standard normal: rows of one cluster share what they are (``a_c``) and how
well the model does on them (``b_c``). A row's law is the same for every ``rho``, so
the truth of each metric (accuracy and F1 of ``p >= 0.5``, ROC AUC, log loss, MAE of
``p``) is its value on 4,000,000 independent rows.

Per cell (``rho`` x ``m`` x ``C``) and data set, 95% intervals from
``dartboard.interval``: its default with independent rows (Wilson, BCa, DeLong, t),
the cluster-robust one (``wald-clustered``, ``delong-clustered``, ``t-clustered``;
F1 has none) and the bootstrap of whole clusters (BCa). Printed: the share of data
sets whose interval holds the truth, and the mean width.

Usage: python benchmarks/clustered_coverage.py [n_sim] [n_resamples] [columns]
(defaults 1000 500 all; columns ``analytic`` runs the independent and cluster-robust
columns only, ``bootstrap`` the bootstrap of whole clusters only). ``CLUSTERS``,
``SIZES`` and ``RHOS`` set the grid.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np

import dartboard as db
from dartboard import metrics as dm

RHOS = tuple(float(x) for x in os.environ.get("RHOS", "0,0.05,0.2,0.5").split(","))
SIZES = tuple(int(x) for x in os.environ.get("SIZES", "1,5,20,100").split(","))
CLUSTERS = tuple(int(x) for x in os.environ.get("CLUSTERS", "10,30,100").split(","))
METRICS = {"accuracy": ("labels", dm.accuracy_score, "wald-clustered"),
           "f1": ("labels", dm.f1_score, None),
           "roc_auc": ("scores", dm.roc_auc_score, "delong-clustered"),
           "log_loss": ("scores", dm.log_loss, "t-clustered"),
           "mean_absolute_error": ("scores", dm.mean_absolute_error, "t-clustered")}


def draw(rng: np.random.Generator, n_clusters: int, m: int, rho: float):
    cluster = np.repeat(np.arange(n_clusters), m)
    n = cluster.shape[0]
    a, b = rng.normal(size=(2, n_clusters))
    y = (np.sqrt(rho) * a[cluster] + np.sqrt(1 - rho) * rng.normal(size=n) > 0).astype(int)
    t = (2 * y - 1) + 1.5 * (np.sqrt(rho) * b[cluster] + np.sqrt(1 - rho) * rng.normal(size=n))
    score = 1 / (1 + np.exp(-t))
    return cluster, y, score, (score >= 0.5).astype(int)


def truth() -> dict[str, float]:
    _, y, score, pred = draw(np.random.default_rng(12345), 4_000_000, 1, 0.0)
    return {name: float(f(y, score if kind == "scores" else pred))
            for name, (kind, f, _) in METRICS.items()}


def _one(name: str, y, other, resamples: int, seed: int, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return db.interval(name, y, other, n_resamples=resamples, random_state=seed, **kw)
        except ValueError:
            return None


def cell(rng, n_sim, resamples, columns, rho, m, n_clusters, true):
    hits = {k: np.zeros(3) for k in METRICS}
    width = {k: np.zeros(3) for k in METRICS}
    valid = {k: np.zeros(3) for k in METRICS}
    for i in range(n_sim):
        cluster, y, score, pred = draw(rng, n_clusters, m, rho)
        for name, (kind, _, analytic) in METRICS.items():
            other = score if kind == "scores" else pred
            runs = []
            if columns in ("all", "analytic"):
                runs.append((0, {}))
                if analytic is not None:
                    runs.append((1, {"method": analytic, "clusters": cluster}))
            if columns in ("all", "bootstrap"):
                runs.append((2, {"method": "bca", "clusters": cluster}))
            for j, kw in runs:
                iv = _one(name, y, other, resamples, i, **kw)
                if iv is None:
                    continue
                valid[name][j] += 1
                hits[name][j] += iv.low <= true[name] <= iv.high
                width[name][j] += iv.high - iv.low
    return hits, width, valid


def main(argv: list[str]) -> None:
    n_sim = int(argv[1]) if len(argv) > 1 else 1000
    resamples = int(argv[2]) if len(argv) > 2 else 500
    columns = argv[3] if len(argv) > 3 else "all"
    true = truth()
    print(f"clustered rows; 95% intervals; {n_sim} data sets per cell, {resamples} resamples "
          f"(bootstrap columns); truth {', '.join(f'{k} {v:.4f}' for k, v in true.items())}")
    print("coverage % (mean width); n/a: no such interval; share of data sets where an "
          "interval could be formed in brackets when below 100%")
    print("| ICC | rows/cluster | clusters | metric | independent rows | cluster-robust | "
          "cluster bootstrap (BCa) |")
    print("|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for rho in RHOS:
        for m in SIZES:
            for n_clusters in CLUSTERS:
                start = time.perf_counter()
                hits, width, valid = cell(rng, n_sim, resamples, columns, rho, m, n_clusters,
                                          true)
                for name in METRICS:
                    shown = []
                    for j in range(3):
                        if valid[name][j] == 0:
                            shown.append("n/a")
                            continue
                        text = f"{100 * hits[name][j] / valid[name][j]:.1f}% " \
                               f"({width[name][j] / valid[name][j]:.3f})"
                        if valid[name][j] < n_sim:
                            text += f" [{100 * valid[name][j] / n_sim:.1f}%]"
                        shown.append(text)
                    print(f"| {rho:g} | {m} | {n_clusters} | {name} | {' | '.join(shown)} |",
                          flush=True)
                print(f"<!-- {rho:g}/{m}/{n_clusters}: {time.perf_counter() - start:.0f} s -->",
                      flush=True)


if __name__ == "__main__":
    main(sys.argv)
