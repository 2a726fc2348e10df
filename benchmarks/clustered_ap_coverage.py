"""Coverage of clustered intervals of average precision and the PR area.

Two intervals of each metric on rows in clusters, through the public
``dartboard.interval(..., clusters=)``:

* ``bca``: the bootstrap of whole clusters (BCa, ``n_resamples`` resamples), what
  ``auto`` took for both metrics before;
* ``influence-logit-clustered``: AP's influence values per row summed per cluster,
  their CR2 variance with the small-sample degrees of freedom of a cluster effect, on
  the logit scale (one pass, no resampling).

Cells, ``n_sim`` data sets each (every cell from its own ``SeedSequence`` child):

* ``equal``: ``C`` (10, 30, 100) clusters of 20 rows, ICC ``rho`` (0, 0.2, 0.5) of
  the latent variables: the data of ``benchmarks/clustered_coverage.py``
  (about half the rows positive);
* ``unequal``: 30 and 50 clusters of lognormal sizes (mean 20, sigma 1.5), ICC 0.2
  and 0.5, with and without informative size: the data of
  ``benchmarks/unequal_clusters_coverage.py``;
* ``rare``: 30 and 100 clusters of 20 rows, ICC 0.2, about 16% of the rows
  positive (the labels' threshold moved by 1).

The truth is each metric on 4,000,000 independent rows of the population of rows (a
cluster drawn with probability proportional to its size, one row of it). Printed: the
share of data sets whose interval holds the truth and the mean width (data sets
with one class are skipped).

Usage: python benchmarks/clustered_ap_coverage.py [n_sim] [n_resamples] [--cells=...]
(defaults 1000 and 1000; ``--cells=equal,unequal,rare``).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from clustered_coverage import draw
from unequal_clusters_coverage import rows, sizes

import dartboard as db

METRICS = ("average_precision", "pr_auc")
METHODS = ("influence-logit-clustered", "bca")
TRUTH_ROWS = int(__import__("os").environ.get("TRUTH_ROWS", 4_000_000))


def _truth_equal(rho: float) -> dict[str, float]:
    _, y, score, _ = draw(np.random.default_rng(12345), TRUTH_ROWS, 1, 0.0)
    return _metrics(y, score)


def _truth_unequal(rho: float, informative: bool, shift: float = 0.0) -> dict[str, float]:
    rng = np.random.default_rng(12345)
    m, z = sizes(rng, 4 * TRUTH_ROWS)
    pick = rng.choice(m.shape[0], size=TRUTH_ROWS, p=m / m.sum())
    _, y, score, _ = rows(rng, np.ones(TRUTH_ROWS, dtype=int), z[pick], rho, informative,
                          shift)
    return _metrics(y, score)


def _metrics(y: np.ndarray, score: np.ndarray) -> dict[str, float]:
    return {"average_precision": float(db.metrics.average_precision_score(y, score)),
            "pr_auc": float(db.metrics.pr_auc_score(y, score))}


def _rare(rng, n_clusters, m, rho):
    """Clusters of ``m`` rows with about 16% positives (the labels' cut moved by 1)."""
    z = np.zeros(n_clusters)
    cluster, y, score, pred = rows(rng, np.full(n_clusters, m), z, rho, False, shift=1.0)
    return cluster, y, score, pred


def cells(which: list[str]) -> list[tuple[str, dict, object, dict[str, float]]]:
    out = []
    if "equal" in which:
        for rho in (0.0, 0.2, 0.5):
            truth = _truth_equal(rho)  # a row's law does not depend on rho
            for c in (10, 30, 100):
                out.append((f"equal C={c} m=20 rho={rho}", dict(c=c, rho=rho),
                            lambda rng, c=c, rho=rho: draw(rng, c, 20, rho), truth))
    if "unequal" in which:
        for rho in (0.2, 0.5):
            for informative in (False, True):
                truth = _truth_unequal(rho, informative)
                for c in (30, 50):
                    out.append((f"unequal C={c} rho={rho} informative={informative}",
                                dict(c=c, rho=rho, informative=informative),
                                lambda rng, c=c, rho=rho, inf=informative: rows(
                                    rng, *sizes(rng, c), rho, inf), truth))
    if "rare" in which:
        rng = np.random.default_rng(12345)
        _, y, score, _ = rows(rng, np.ones(TRUTH_ROWS, dtype=int), np.zeros(TRUTH_ROWS), 0.2,
                              False, shift=1.0)
        truth = _metrics(y, score)
        for c in (30, 100):
            out.append((f"rare C={c} m=20 rho=0.2", dict(c=c, rho=0.2),
                        lambda rng, c=c: _rare(rng, c, 20, 0.2), truth))
    return out


def run_cell(make, truth, n_sim: int, n_resamples: int, seed: np.random.SeedSequence):
    hits = {(m, k): 0 for m in METRICS for k in METHODS}
    width = {(m, k): 0.0 for m in METRICS for k in METHODS}
    valid = {(m, k): 0 for m in METRICS for k in METHODS}
    for child in seed.spawn(n_sim):
        rng = np.random.default_rng(child)
        cluster, y, score, _ = make(rng)
        if y.min() == y.max():
            continue
        for metric in METRICS:
            for method in METHODS:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        iv = db.interval(metric, y, score, clusters=cluster, method=method,
                                         n_resamples=n_resamples, random_state=rng)
                    except ValueError:
                        continue
                if not (np.isfinite(iv.low) and np.isfinite(iv.high)):
                    continue
                valid[metric, method] += 1
                hits[metric, method] += iv.low <= truth[metric] <= iv.high
                width[metric, method] += iv.high - iv.low
    return hits, width, valid


def main(argv: list[str]) -> None:
    args = [a for a in argv if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    n_sim = int(args[0]) if args else 1000
    n_resamples = int(args[1]) if len(args) > 1 else 1000
    which = opts.get("cells", "equal,unequal,rare").split(",")
    print(f"# clustered AP and PR-area intervals; {n_sim} data sets a cell; BCa with "
          f"{n_resamples} resamples of whole clusters; truth on {TRUTH_ROWS:,} rows")
    print("| cell | metric | interval | coverage % | mean width | data sets |")
    print("|---|---|---|---|---|---|")
    root = np.random.SeedSequence(20261205)
    for (name, _, make, truth), seed in zip(cells(which), root.spawn(64)):
        start = time.time()
        hits, width, valid = run_cell(make, truth, n_sim, n_resamples, seed)
        for metric in METRICS:
            for method in METHODS:
                v = valid[metric, method]
                if v:
                    print(f"| {name} | {metric} | {method} | {100 * hits[metric, method] / v:.1f}"
                          f" | {width[metric, method] / v:.4f} | {v} |", flush=True)
        print(f"<!-- {name}: {time.time() - start:.0f} s -->", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
