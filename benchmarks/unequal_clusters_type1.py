"""Type I error of the public paired tests when clusters are unequal in size.

Data (the ``unequal`` grid of ``benchmarks/unequal_clusters_coverage.py``): ``C``
(30, 50) clusters of lognormal sizes (mean 20, sigma 1.5:
``m = max(1, round(exp(mu + 1.5 z)))``, ``mu = log 20 - 1.125``; about 16% of the
clusters hold one row, the largest some hundreds to thousands). With intra-cluster
correlation ``rho`` (0.2, 0.5) of the latent variables a row's label is
``y = [sqrt(rho) a_c + sqrt(1 - rho) e_i > 0]`` and model ``k``'s score
``sigmoid((2y - 1) (1 + 1.5 (sqrt(rho) v_kc + sqrt(1 - rho) f_ki)))``, each model with
its own cluster effects ``v_kc`` (``two_models`` of that script, for ``k`` models). With
informative size ``v_kc = -0.6 z_c + 0.8 u_kc``: large clusters are harder for every
model. The models are equally good (the same law), so every rejection is a Type I
error.

Per cell (clusters x ICC x informative, 8 cells) and data set, two-sided tests at 5%
through the public API, models a and b the first two of three:

* ``robust``: ``compare_models(metric, y, a, b, clusters=, method="cluster-robust")``
  for accuracy (labels ``score >= 0.5``) and ROC AUC;
* ``perm``: ``compare_models(metric, y, a, b, clusters=)`` (the default method with
  clusters: the cluster-swap permutation), accuracy and ROC AUC, ``n_resamples`` each;
  and, as a reference that is not public, the cluster-swap permutation of the raw
  scores for ROC AUC (each replicate re-ranks the swapped scores: the exact test for
  models of one law), written here apart from the library. It draws its swaps from the
  stream ``compare_models`` draws from for the same seed (the first of two spawned:
  one uniform per cluster and replicate), so since the library swaps raw scores too
  (its joint ranks) the two p-values agree data set by data set (before that the
  library swapped each model's own ranks, and the reference drew its own swaps);
* ``perm_auc``: ``perm`` for ROC AUC alone (and its reference);
* ``perm_ap``: ``perm`` for average precision, and the raw-score cluster swap of it
  (average precision recomputed on each replicate's swapped scores) as its reference;
* ``kmodels``: ``compare_k_models("roc_auc", y, [a, b, c], clusters=)`` (the default
  step-down max-T over permutations of whole clusters), ``n_resamples``; a data set
  counts as rejecting if any pair is significant (family-wise error).

The permutations draw few resamples (200 in the committed log, against the public
default of 5000) to fit the time: ``(S + 1) / (R + 1)`` is a valid p-value for any
``R``, so fewer resamples cost power, not level (the cluster bootstrap that
``compare_models`` draws for its interval takes as many). Each cell draws its data sets
from its own ``numpy.random.SeedSequence`` child, and the parts draw the same data
sets, so parts run apart see the same data. Data sets with
one class only are skipped; a test that raises counts in ``errors``. Printed: the share
of data sets rejecting with its binomial standard error, and after each cell how many
data sets' public ROC AUC p-value differs from the reference's.

Usage: python benchmarks/unequal_clusters_type1.py [part] [n_sim] [n_resamples]
[--cells=30/0.2/no,...] (part: robust, perm, perm_auc, perm_ap, kmodels, or several joined by commas;
defaults robust 2000 500).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from _results import Table, markdown_tables
from unequal_clusters_coverage import models, sizes

import dartboard as db
from dartboard._rng import spawn_generators
from dartboard.families._paired import batch_auc

PUBLIC = ("roc_auc", "cluster permutation")
REFERENCE = ("roc_auc", "raw-score cluster swap (reference)")
AP_PUBLIC = ("average_precision", "cluster permutation")
AP_REFERENCE = ("average_precision", "raw-score cluster swap (reference)")
CELLS = [(c, rho, inf) for c in (30, 50) for rho in (0.2, 0.5) for inf in (False, True)]
ALPHA = 0.05


def raw_swap_auc(y, sa, sb, cluster, n_clusters, resamples, seed):
    """Reference (not public): swap the raw scores on whole clusters and re-rank; the
    two-sided p-value ``(S + 1) / (R + 1)``."""
    uniq, inverse = np.unique(np.concatenate([sa, sb]), return_inverse=True)
    n = sa.shape[0]
    ca, cb = inverse[:n], inverse[n:]
    observed = batch_auc(y, ca[None], uniq.shape[0])[0] - batch_auc(y, cb[None],
                                                                     uniq.shape[0])[0]
    rng = spawn_generators(seed, 2)[0]  # compare_models' permutation stream
    swap = (rng.random((resamples, n_clusters)) < 0.5)[:, cluster]
    null = (batch_auc(y, np.where(swap, cb, ca), uniq.shape[0])
            - batch_auc(y, np.where(swap, ca, cb), uniq.shape[0]))
    gamma = 100 * np.finfo(float).eps * abs(observed)
    extreme = np.count_nonzero(np.abs(null) >= abs(observed) - gamma)
    return (extreme + 1) / (resamples + 1)


def raw_swap_metric(metric, y, sa, sb, cluster, n_clusters, resamples, seed):
    """:func:`raw_swap_auc` for any metric of scores, recomputed on each replicate's
    swapped raw scores."""
    observed = metric(y, sa) - metric(y, sb)
    rng = spawn_generators(seed, 2)[0]  # compare_models' permutation stream
    swap = (rng.random((resamples, n_clusters)) < 0.5)[:, cluster]
    null = np.array([metric(y, np.where(s, sb, sa)) - metric(y, np.where(s, sa, sb))
                     for s in swap])
    gamma = 100 * np.finfo(float).eps * abs(observed)
    extreme = np.count_nonzero(np.abs(null) >= abs(observed) - gamma)
    return (extreme + 1) / (resamples + 1)


def tests(part, y, scores, cluster, n_clusters, resamples, seed):
    sa, sb = scores[0], scores[1]
    pa, pb = (sa >= 0.5).astype(int), (sb >= 0.5).astype(int)
    out = {}
    if part == "robust":
        for name, a, b in (("accuracy", pa, pb), ("roc_auc", sa, sb)):
            out[(name, "cluster-robust")] = db.compare_models(
                name, y, a, b, clusters=cluster, method="cluster-robust").pvalue
    elif part in ("perm", "perm_auc"):
        pairs = (("accuracy", pa, pb), ("roc_auc", sa, sb))
        for name, a, b in pairs if part == "perm" else pairs[1:]:
            out[(name, PUBLIC[1])] = db.compare_models(
                name, y, a, b, clusters=cluster, n_resamples=resamples,
                random_state=seed).pvalue
        out[REFERENCE] = raw_swap_auc(
            y, sa, sb, cluster, n_clusters, resamples, seed)
    elif part == "perm_ap":
        out[AP_PUBLIC] = db.compare_models(
            "average_precision", y, sa, sb, clusters=cluster, n_resamples=resamples,
            random_state=seed).pvalue
        out[AP_REFERENCE] = raw_swap_metric(
            db.metrics.average_precision_score, y, sa, sb, cluster, n_clusters, resamples,
            seed)
    elif part == "kmodels":
        res = db.compare_k_models("roc_auc", y, scores, clusters=cluster,
                                  n_resamples=resamples, random_state=seed, progress=False)
        out[("roc_auc", "compare_k_models max-T, 3 models (FWER)")] = \
            0.0 if bool(res.pairwise["significant"].any()) else 1.0
    return out


def run(parts, n_sim, resamples, cells):
    print(f"Type I error at 5%, two-sided, of equally good models on unequal clusters; "
          f"{n_sim} data sets per cell; permutations: {resamples} resamples")
    print("| clusters | ICC | informative | metric | test | data sets | errors | "
          "Type I error | SE |")
    print("|---|---|---|---|---|---|---|---|---|")
    seeds = np.random.SeedSequence(20261205).spawn(len(CELLS))
    for cell, seed in zip(CELLS, seeds):
        if cell not in cells:
            continue
        n_clusters, rho, informative = cell
        start = time.perf_counter()
        rng = np.random.default_rng(seed)
        rejected: dict = {}
        counted: dict = {}
        errors: dict = {}
        differ = differ_ap = 0
        for i in range(n_sim):
            m, z = sizes(rng, n_clusters)
            cluster, y, scores = models(rng, m, z, rho, informative, k=3)
            if y.min() == y.max():
                continue
            for part in parts:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    try:
                        found = tests(part, y, scores, cluster, n_clusters, resamples, i)
                    except ValueError as exc:
                        errors[(part, type(exc).__name__)] = \
                            errors.get((part, type(exc).__name__), 0) + 1
                        continue
                for key, p in found.items():
                    rejected[key] = rejected.get(key, 0) + (p < ALPHA)
                    counted[key] = counted.get(key, 0) + 1
                if REFERENCE in found and PUBLIC in found:
                    differ += abs(found[REFERENCE] - found[PUBLIC]) > 1e-12
                if AP_REFERENCE in found and AP_PUBLIC in found:
                    differ_ap += abs(found[AP_REFERENCE] - found[AP_PUBLIC]) > 1e-12
        lost = sum(errors.values())
        for key in sorted(rejected):
            rate = rejected[key] / counted[key]
            se = np.sqrt(rate * (1 - rate) / counted[key])
            print(f"| {n_clusters} | {rho:g} | {'yes' if informative else 'no'} | {key[0]} | "
                  f"{key[1]} | {counted[key]} | {lost} | {rate:.4f} | {se:.4f} |", flush=True)
        compared = (f"; ROC AUC p-values unlike the reference's: {differ} of "
                    f"{counted[REFERENCE]}" if REFERENCE in counted else "")
        if AP_REFERENCE in counted:
            compared += (f"; average precision p-values unlike the reference's: "
                         f"{differ_ap} of {counted[AP_REFERENCE]}")
        print(f"<!-- {n_clusters}/{rho:g}/{'yes' if informative else 'no'} "
              f"{','.join(parts)}: {time.perf_counter() - start:.0f} s; errors {errors}"
              f"{compared} -->", flush=True)


def main(argv: list[str]) -> None:
    opts = dict(a[2:].split("=", 1) for a in argv[1:] if a.startswith("--") and "=" in a)
    args = [a for a in argv[1:] if not a.startswith("--")]
    parts = (args[0] if args else "robust").split(",")
    n_sim = int(args[1]) if len(args) > 1 else 2000
    resamples = int(args[2]) if len(args) > 2 else 500
    cells = CELLS
    if "cells" in opts:
        cells = []
        for text in opts["cells"].split(","):
            c, rho, inf = text.split("/")
            cells.append((int(c), float(rho), inf == "yes"))
    run(parts, n_sim, resamples, cells)


def render(log: str) -> list[Table]:
    """The rows of a run's log (one Markdown table per part run; one header)."""
    tables = markdown_tables(log)
    header = tables[0][0]
    rows = [row for table in tables for row in table[1:]]
    return [Table("unequal_clusters_type1_public",
                  "Type I error of the public paired tests with unequal clusters", header,
                  rows)]


if __name__ == "__main__":
    main(sys.argv)
