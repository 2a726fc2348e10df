"""Type I error of the paired cluster-robust test by its variance and degrees of freedom.

``compare_models(metric, y, a, b, clusters=, method="cluster-robust")`` divides the
difference of two models' estimates by the cluster-robust standard error of the
difference of their per-cluster terms and reads the p-value from Student's t. Which
variance (CR1, CR2) and which degrees of freedom keep a 5% test at 5% when clusters
are unequal? Candidates, all on the same data sets:

* ``CR2 df-cluster``: CR2 on the Satterthwaite df of a working model with a cluster
  effect alone (what the intervals take, ``_clustered_analytic.WORKING``);
* ``CR2 df-indep``: Bell and McCaffrey's df (independent rows);
* ``CR2 df-fitted``: the df of a working model fitted to the clusters' squared terms
  (Imbens and Kolesar), what the test takes (``PAIRED_WORKING``);
* ``CR2 G-1``, ``CR1 G-1``: Student's t on ``G - 1`` df; ``CR2 z``: the normal.

Data: ``benchmarks/unequal_clusters_type1.py``'s equally good models (the first two of
three, each with its own cluster effects; labels ``score >= 0.5`` for accuracy), on

* ``unequal``: 30 or 50 clusters of lognormal sizes (mean 20, sigma 1.5), ICC 0.2 and
  0.5, the size informative of the models' accuracy or not;
* ``few``: 5, 10 or 20 such clusters, ICC 0 and 0.5.

Every data set also runs the public test, and the script checks that its p-value is
the ``CR2 df-fitted`` one (to 1e-9). Printed: the share of data sets rejecting at 5%
(two-sided) per candidate; the binomial SE is about 0.35 points at 4000 data sets.

Usage: python benchmarks/robust_test_df.py [unequal|few] [n_sim]
(defaults: unequal 4000).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from scipy import stats
from unequal_clusters_coverage import models, sizes
from unequal_clusters_type1 import CELLS

import dartboard as db
from dartboard._kernels._clustered import cluster_index
from dartboard.metrics import accuracy_score, roc_auc_score
from dartboard.uncertainty._interval import cluster_terms_of

VARIANTS = {"CR2 df-cluster": ("CR2", "cluster"), "CR2 df-indep": ("CR2", "independent"),
            "CR2 df-fitted": ("CR2", "fitted"), "CR2 G-1": ("CR2", None),
            "CR1 G-1": ("CR1", None), "CR2 z": ("CR2", "normal")}
FEW = [(c, rho, inf) for c in (5, 10, 20) for rho in (0.0, 0.5) for inf in (False, True)]


def pvalues(metric, y, a, b, index) -> dict[str, float] | None:
    terms_a = cluster_terms_of(metric, y, a, None, {}, index)
    terms_b = cluster_terms_of(metric, y, b, None, {}, index)
    if terms_a is None or terms_b is None:
        return None
    diff = terms_a.minus(terms_b)
    if not diff.defined:
        return None
    out = {}
    for name, (correction, working) in VARIANTS.items():
        se = float(np.sqrt(diff.variance(correction)))
        z = diff.estimate / se if se > 0 else 0.0
        if working == "normal":
            out[name] = float(2 * stats.norm.sf(abs(z)))
            continue
        df = diff.n_clusters - 1 if working is None else diff.degrees_of_freedom(working)
        out[name] = float(2 * stats.t.sf(abs(z), df))
    return out


def run(part: str, n_sim: int) -> None:
    cells = CELLS if part == "unequal" else FEW
    seeds = np.random.SeedSequence(20261205 if part == "unequal" else 20261206).spawn(
        len(cells))
    print(f"Type I error at 5% (two-sided) of the paired cluster-robust test, equally good "
          f"models, {n_sim} data sets per cell ({part} grid)")
    print("| clusters | ICC | informative | metric | data sets | "
          + " | ".join(VARIANTS) + " |")
    print("|---" * (5 + len(VARIANTS)) + "|")
    for (n_clusters, rho, informative), seed in zip(cells, seeds):
        start = time.perf_counter()
        rng = np.random.default_rng(seed)
        rejected: dict = {}
        counted: dict = {}
        for _ in range(n_sim):
            m, z = sizes(rng, n_clusters)
            cluster, y, scores = models(rng, m, z, rho, informative, k=3)
            if y.min() == y.max():
                continue
            index = cluster_index(cluster, cluster.shape[0])
            sa, sb = scores[0], scores[1]
            pairs = (("accuracy", accuracy_score, (sa >= 0.5).astype(int),
                      (sb >= 0.5).astype(int)), ("roc_auc", roc_auc_score, sa, sb))
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                for name, metric, a, b in pairs:
                    found = pvalues(metric, y, a, b, index)
                    if found is None:
                        continue
                    public = db.compare_models(name, y, a, b, clusters=cluster,
                                               method="cluster-robust").pvalue
                    assert abs(public - found["CR2 df-fitted"]) <= 1e-9, (public, found)
                    counted[name] = counted.get(name, 0) + 1
                    for key, p in found.items():
                        rejected[(name, key)] = rejected.get((name, key), 0) + (p < 0.05)
        for name in ("accuracy", "roc_auc"):
            rates = " | ".join(f"{100 * rejected[(name, key)] / counted[name]:.1f}%"
                               for key in VARIANTS)
            print(f"| {n_clusters} | {rho:g} | {'yes' if informative else 'no'} | {name} | "
                  f"{counted[name]} | {rates} |", flush=True)
        print(f"<!-- {n_clusters}/{rho:g}/{'yes' if informative else 'no'}: "
              f"{time.perf_counter() - start:.0f} s -->", flush=True)


if __name__ == "__main__":
    run(sys.argv[1] if len(sys.argv) > 1 else "unequal",
        int(sys.argv[2]) if len(sys.argv) > 2 else 4000)
