"""Coverage of the ROC band and of the operating point's rates with clustered rows.

Data as ``benchmarks/clustered_coverage.py``: ``C`` clusters of ``m`` rows; with
intra-cluster correlation ``rho`` of the latent variables a row's label is
``y = [sqrt(rho) a_c + sqrt(1 - rho) e_i > 0]`` and its score ``p = sigmoid((2y - 1)
+ 1.5 (sqrt(rho) b_c + sqrt(1 - rho) f_i))``, all four standard normal. A row's law
is the same for every ``rho`` (binormal: ``logit p`` is N(-1, 1.5^2) for a negative,
N(1, 1.5^2) for a positive, half the rows positive).

Per cell (``rho`` x ``C`` x ``m``) and data set, 95% intervals from independent rows
(``clusters=None``) and from ``clusters=`` on the same data and seed:

- ``roc_band`` pointwise on the default grid (specificities 0, 0.01, ..., 1), read at
  specificities 0.1, 0.5 and 0.9; truth: the sensitivity at those specificities on
  4,000,000 independent rows (checked against the closed form
  ``Phi((2 - 1.5 Phi^-1(spec)) / 1.5)``, printed);
- ``roc_band`` simultaneous on the same grid: covered when every point is;
- ``select_threshold`` (Youden): the TPR and FPR intervals (FPR = 1 - TNR) at the
  chosen threshold ``t``; truth: the true rates of ``t``, ``1 - Phi((logit t - 1) /
  1.5)`` and ``1 - Phi((logit t + 1) / 1.5)`` (closed form of the law above);
- ``select_threshold`` with ``criterion="min_recall", target=0.8``: the TPR interval
  at its threshold (the order-statistic case), truth as above.

Printed: the share of data sets whose interval holds the truth (Monte Carlo standard
error about 0.7 points at 95% with 1000 data sets) and the mean width of the
pointwise band at specificity 0.5. Data sets with a class in fewer than two
clusters are skipped (counted; ``clusters=`` refuses them).

Usage: python benchmarks/clustered_curves_coverage.py [n_sim] [n_resamples]
(defaults 1000 500). ``CELLS`` (e.g. ``0:30:10,0.5:100:10``) sets the cells
``rho:C:m``.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np
from _results import Table, markdown_tables
from clustered_coverage import draw  # the same data model, the same draws
from scipy import special, stats

import dartboard as db

DEFAULT_CELLS = ("0:30:10,0.2:30:10,0.5:30:10,0:100:10,0.2:100:10,0.5:100:10,0.5:100:1,"
                 "0.5:10:10,0.5:20:10")
CELLS = [tuple(float(v) if i == 0 else int(v) for i, v in enumerate(c.split(":")))
         for c in os.environ.get("CELLS", DEFAULT_CELLS).split(",")]
GRID = np.linspace(0.0, 1.0, 101)
READ = {0.1: 10, 0.5: 50, 0.9: 90}


def truth_curve() -> np.ndarray:
    """Sensitivity at GRID's specificities on 4,000,000 independent rows."""
    _, y, score, _ = draw(np.random.default_rng(12345), 4_000_000, 1, 0.0)
    neg, pos = np.sort(score[y == 0]), np.sort(score[y == 1])
    cut = np.quantile(neg, GRID)
    sens = 1.0 - np.searchsorted(pos, cut, "right") / pos.size
    sens[0] = 1.0  # specificity 0: every row positive
    closed = stats.norm.cdf((2.0 - 1.5 * stats.norm.ppf(GRID)) / 1.5)
    print(f"# truth: 4M-row sensitivities vs the closed form, largest difference "
          f"{np.max(np.abs(sens - closed)):.2e}")
    return sens


def true_rates(threshold: float) -> tuple[float, float]:
    if not np.isfinite(threshold) or threshold >= 1.0:
        return 0.0, 0.0
    t = special.logit(threshold)
    return float(stats.norm.sf((t - 1) / 1.5)), float(stats.norm.sf((t + 1) / 1.5))


def one(y, score, cluster, truth, n_resamples: int, seed: int) -> list[float]:
    """[pointwise at 0.1, 0.5, 0.9; simultaneous; Youden tpr; fpr; min_recall tpr;
    width at 0.5]."""
    kw = {"n_resamples": n_resamples, "random_state": seed, "clusters": cluster}
    band = db.roc_band(y, score, **kw)
    whole = db.roc_band(y, score, kind="simultaneous", **kw)
    point = db.select_threshold(y, score, **kw)
    tpr, fpr = true_rates(point.threshold)
    iv_tpr, iv_tnr = point.intervals["tpr"], point.intervals["tnr"]
    out = [float(band.low[j] <= truth[j] <= band.high[j]) for j in READ.values()]
    out.append(float(np.all((whole.low <= truth + 1e-12) & (truth <= whole.high + 1e-12))))
    out.append(float(iv_tpr.low <= tpr <= iv_tpr.high))
    out.append(float(1 - iv_tnr.high <= fpr <= 1 - iv_tnr.low))
    recall = db.select_threshold(y, score, criterion="min_recall", target=0.8, **kw)
    iv = recall.intervals["tpr"]
    out.append(float(iv.low <= true_rates(recall.threshold)[0] <= iv.high))
    out.append(float(band.high[READ[0.5]] - band.low[READ[0.5]]))
    return out


def run_cell(rho: float, n_clusters: int, m: int, truth, n_sim: int,
             n_resamples: int) -> tuple[np.ndarray, np.ndarray, int]:
    rng = np.random.default_rng([int(rho * 100), n_clusters, m])
    plain, clustered, skipped = [], [], 0
    while len(plain) < n_sim:
        cluster, y, score, _ = draw(rng, n_clusters, m, rho)
        # a class in fewer than two clusters: no clustered band (refused), nor a band
        if min(np.unique(cluster[y == k]).shape[0] for k in (0, 1)) < 2:
            skipped += 1
            continue
        seed = int(rng.integers(2**31))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain.append(one(y, score, None, truth, n_resamples, seed))
            clustered.append(one(y, score, cluster, truth, n_resamples, seed))
    return np.array(plain), np.array(clustered), skipped


def render(log: str) -> list[Table]:
    """The log's table (``benchmarks/regenerate.py``)."""
    # one table per cell (the cells' timing lines part them); only the first has a header
    (header, *rows), *more = markdown_tables(log)
    rows += [row for table in more for row in table]
    return [Table("clustered_curves", "Coverage (%) of 95% ROC bands and operating-point "
                  "rates with clustered rows", header, rows)]


def main() -> None:
    n_sim = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    n_resamples = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    truth = truth_curve()
    print(f"# {n_sim} data sets per cell, {n_resamples} resamples, 95% intervals")
    print("| rho | clusters | rows/cluster | rows | intervals | spec 0.1 | spec 0.5 "
          "| spec 0.9 | simultaneous | Youden TPR | Youden FPR | min_recall TPR "
          "| width at 0.5 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for rho, n_clusters, m in CELLS:
        start = time.perf_counter()
        plain, clustered, skipped = run_cell(rho, n_clusters, m, truth, n_sim, n_resamples)
        for name, res in (("independent", plain), ("clustered", clustered)):
            cov = " | ".join(f"{100 * v:.1f}" for v in res[:, :7].mean(axis=0))
            print(f"| {rho:g} | {n_clusters} | {m} | {n_clusters * m} | {name} | {cov} "
                  f"| {res[:, 7].mean():.3f} |", flush=True)
        print(f"# cell rho={rho:g} C={n_clusters} m={m}: {len(plain)} data sets "
              f"({skipped} with a class in fewer than two clusters skipped), "
              f"{time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
