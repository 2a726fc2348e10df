"""Type I error of paired tests when rows come in clusters: independent vs clustered.

Data: ``C`` clusters of ``m`` rows. A cluster has effects ``a_c`` (what its rows
are) and, per model ``k``, ``v_kc`` (how well model ``k`` does on it), all standard
normal; with intra-cluster correlation ``rho`` of the latent variables a row's label
is ``y = [sqrt(rho) a_c + sqrt(1 - rho) e_i > 0]`` and model ``k``'s score is
``sigmoid((2y - 1) (1 + 1.5 (sqrt(rho) v_kc + sqrt(1 - rho) f_ki)))``. The two
models are equally good (the same law), but each is better on some clusters and
worse on others, so the rows' differences are correlated within a cluster.

Per cell and data set, two-sided tests at 5% of "model a = model b":

* accuracy: McNemar's test (independent rows), the cluster-robust test
  (``compare_models(..., clusters=, method="cluster-robust")``) and, with
  ``[perm_sims]`` > 0, the cluster-swap permutation and the sample-swap
  permutation (independent rows), ``n_resamples`` each;
* ROC AUC: DeLong's test (independent rows), the clustered DeLong test, and the
  two permutations likewise.

The cluster-robust p-values come from dartboard's per-cluster terms on sums taken
with ``np.bincount`` (the numbers of ``compare_models(..., method="cluster-robust")``:
the CR2 variance on the small-sample degrees of freedom, asserted to 1e-10 on each
cell's first data set). The committed table was measured with the CR1 variance on
``I - 1`` degrees of freedom, the test's form before. Printed: the share of data sets
rejecting (Type I error) with its binomial standard error.

Usage: python benchmarks/clustered_type1.py [n_sim] [perm_sims] [n_resamples]
(defaults 1000 0 200); ``CLUSTERS``, ``SIZE`` and ``RHOS`` set the cells.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np
from _results import Table, markdown_tables
from clustered_coverage import terms
from scipy import stats

import dartboard as db
from dartboard._kernels._clustered_analytic import WORKING

RHOS = tuple(float(x) for x in os.environ.get("RHOS", "0,0.3").split(","))
CLUSTERS = int(os.environ.get("CLUSTERS", "50"))
SIZE = int(os.environ.get("SIZE", "10"))


def draw(rng: np.random.Generator, n_clusters: int, m: int, rho: float):
    cluster = np.repeat(np.arange(n_clusters), m)
    n = cluster.shape[0]
    a = rng.normal(size=n_clusters)
    y = (np.sqrt(rho) * a[cluster] + np.sqrt(1 - rho) * rng.normal(size=n) > 0).astype(int)
    scores = []
    for _ in range(2):
        v = rng.normal(size=n_clusters)
        margin = 1 + 1.5 * (np.sqrt(rho) * v[cluster] + np.sqrt(1 - rho) * rng.normal(size=n))
        scores.append(1 / (1 + np.exp(-(2 * y - 1) * margin)))
    return cluster, y, scores[0], scores[1]


def _pvalue(diff) -> float:
    """The public test's p-value: the CR2 variance on the small-sample df of a cluster
    effect (``I - 1`` for accuracy with clusters of equal sizes; fewer for ROC AUC,
    whose clusters hold unequal shares of the positives and negatives)."""
    z = diff.estimate / np.sqrt(diff.variance("CR2"))
    return float(2 * stats.t.sf(abs(z), diff.degrees_of_freedom(WORKING)))


def fast_tests(y, sa, sb, cluster, n_clusters) -> dict:
    """McNemar and DeLong (``dartboard``) for independent rows; the cluster-robust tests
    from dartboard's per-cluster terms (``clustered_coverage.terms``: per-cluster sums
    with bincount, the numbers of ``compare_models(..., method="cluster-robust")``,
    asserted on each cell's first data set)."""
    pa, pb = (sa >= 0.5).astype(int), (sb >= 0.5).astype(int)
    out = {("accuracy", "independent (McNemar)"): db.mcnemar_test(y, pa, pb).pvalue,
           ("roc_auc", "independent (DeLong)"): db.delong_test(y, sa, sb).pvalue}
    for name, a, b in (("accuracy", pa, pb), ("roc_auc", sa, sb)):
        diff = terms(name, y, a, cluster, n_clusters).minus(
            terms(name, y, b, cluster, n_clusters))
        out[(name, "cluster-robust")] = _pvalue(diff)
    return out


def permutation_tests(y, sa, sb, cluster, resamples: int, seed: int) -> dict:
    pa, pb = (sa >= 0.5).astype(int), (sb >= 0.5).astype(int)
    out = {}
    for name, a, b in (("accuracy", pa, pb), ("roc_auc", sa, sb)):
        out[(name, "sample-swap permutation")] = db.compare_models(
            name, y, a, b, n_resamples=resamples, random_state=seed).pvalue
        out[(name, "cluster-swap permutation")] = db.compare_models(
            name, y, a, b, clusters=cluster, n_resamples=resamples, random_state=seed).pvalue
    return out


def check(y, sa, sb, cluster, found) -> None:
    pa, pb = (sa >= 0.5).astype(int), (sb >= 0.5).astype(int)
    for name, a, b in (("accuracy", pa, pb), ("roc_auc", sa, sb)):
        public = db.compare_models(name, y, a, b, clusters=cluster, method="cluster-robust")
        assert abs(public.pvalue - found[(name, "cluster-robust")]) < 1e-10


def main(argv: list[str]) -> None:
    n_sim = int(argv[1]) if len(argv) > 1 else 1000
    perm_sims = int(argv[2]) if len(argv) > 2 else 0
    resamples = int(argv[3]) if len(argv) > 3 else 200
    print(f"Type I error at 5%, two-sided; {CLUSTERS} clusters of {SIZE} rows; {n_sim} data "
          f"sets per cell ({perm_sims} for the permutation tests, {resamples} resamples)")
    print("| ICC | metric | test | data sets | Type I error | SE |")
    print("|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for rho in RHOS:
        start = time.perf_counter()
        rejected: dict = {}
        counted: dict = {}
        for i in range(n_sim):
            cluster, y, sa, sb = draw(rng, CLUSTERS, SIZE, rho)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    found = fast_tests(y, sa, sb, cluster, CLUSTERS)
                    if i == 0:
                        check(y, sa, sb, cluster, found)
                    if i < perm_sims:
                        found.update(permutation_tests(y, sa, sb, cluster, resamples, i))
                except ValueError:
                    continue
            for key, p in found.items():
                rejected[key] = rejected.get(key, 0) + (p < 0.05)
                counted[key] = counted.get(key, 0) + 1
        for key in sorted(rejected):
            rate = rejected[key] / counted[key]
            se = np.sqrt(rate * (1 - rate) / counted[key])
            print(f"| {rho:g} | {key[0]} | {key[1]} | {counted[key]} | {rate:.3f} | {se:.3f} |",
                  flush=True)
        print(f"<!-- ICC {rho:g}: {time.perf_counter() - start:.0f} s -->", flush=True)


def render(log: str) -> list[Table]:
    """The table of a run's log (printed as a Markdown table)."""
    header, *rows = markdown_tables(log)[0]
    return [Table("clustered_type1",
                  "Type I error of paired tests with clustered rows (two equally good models)",
                  header, rows)]


if __name__ == "__main__":
    main(sys.argv)
