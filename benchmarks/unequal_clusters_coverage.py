"""Clustered intervals and paired tests when clusters are unequal, few, or at the boundary.

Three grids (``part`` argument), each cell ``n_sim`` data sets from its own
``numpy.random.SeedSequence`` child:

``unequal``: ``C`` (30, 50) clusters of lognormal sizes (mean 20, sigma 1.5:
``m = max(1, round(exp(mu + 1.5 z)))``, ``mu = log 20 - 1.125``; about 16% of the
clusters hold one row, the largest some hundreds to thousands). With intra-cluster
correlation ``rho`` (0.2, 0.5) of the latent variables a row's label is
``y = [sqrt(rho) a_c + sqrt(1 - rho) e_i > 0]`` and its score
``p = sigmoid((2y - 1) + 1.5 (sqrt(rho) b_c + sqrt(1 - rho) f_i))`` (the data of
``benchmarks/clustered_coverage.py``). With informative size ``b_c = -0.6 z_c + 0.8
u_c``: large clusters are harder. The truth of each metric is its value on 4,000,000
independent rows of the population of rows (a cluster drawn with probability
proportional to its size, one row of it). Each data set gets, per metric, the old
``auto`` choice (CR1 and ``t_{C-1}``; the studentized bootstrap of clusters for ROC AUC
and log loss, 999 resamples), the CR2 variance with Student's t on the
small-sample degrees of freedom of three working models
(:func:`dartboard._kernels._clustered_analytic.small_sample_df`: ``independent``,
Bell-McCaffrey; ``cluster``; ``fitted``, Imbens-Kolesar style), and for accuracy
``wilson-clustered``. Paired tests: two equally good models (each with its own
cluster effects, as ``benchmarks/clustered_type1.py``) on the same data law, the
cluster-robust test with CR1 and ``t_{C-1}`` and with CR2 and the small-sample df.

``few``: 2 to 30 clusters of 20 rows, ``rho`` 0, 0.2, 0.5: the coverage of the
interval ``auto`` takes (``dartboard.interval(..., clusters=)``) for accuracy, F1,
ROC AUC and log loss; the bootstrap-t draws 500 resamples unless ``--resamples=N``
(the public default is 10,000), and ``--clusters=10,20`` and ``--icc=0.5`` restrict
the grid to some of its cluster counts and ICC values.

``boundary``: accuracy near 1 (true 0.99, 0.995, 0.999), 30 clusters of 20 rows or of
lognormal sizes, ``rho`` 0 and 0.2: ``wald-clustered`` (CR2) and ``wilson-clustered``,
with the share of zero-width intervals.

Usage: python benchmarks/unequal_clusters_coverage.py [part] [n_sim] [--quick]
[--resamples=N] [--clusters=C,...] [--icc=R,...]
(part: unequal, few, boundary or all; n_sim default 1000; ``--quick``: 50 data sets
and 200 000 truth rows, a smoke test).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from _results import Table, markdown_tables
from clustered_coverage import terms
from scipy import special, stats

import dartboard as db
from dartboard._kernels._clustered import ClusterIndex, studentized_interval
from dartboard._kernels._clustered_analytic import WORKING, wilson_clustered
from dartboard.uncertainty._interval import cluster_terms_of

MU = np.log(20.0) - 1.5 ** 2 / 2
BT_RESAMPLES = 999
LEVEL = 0.95
WORKINGS = ("independent", "cluster", "fitted")
SCORES = {"accuracy": False, "f1": False, "roc_auc": True, "log_loss": True}


def sizes(rng: np.random.Generator, n_clusters: int) -> tuple[np.ndarray, np.ndarray]:
    z = rng.normal(size=n_clusters)
    return np.maximum(1, np.round(np.exp(MU + 1.5 * z))).astype(int), z


def rows(rng, m, z, rho, informative, shift=0.0):
    """Rows of clusters of sizes ``m`` (``z`` their size normals)."""
    n_clusters = m.shape[0]
    cluster = np.repeat(np.arange(n_clusters), m)
    n = cluster.shape[0]
    a, u = rng.normal(size=(2, n_clusters))
    b = -0.6 * z + 0.8 * u if informative else u
    y = (np.sqrt(rho) * a[cluster] + np.sqrt(1 - rho) * rng.normal(size=n) > shift).astype(int)
    t = (2 * y - 1) + 1.5 * (np.sqrt(rho) * b[cluster] + np.sqrt(1 - rho) * rng.normal(size=n))
    score = special.expit(t)
    return cluster, y, score, (score >= 0.5).astype(int)


def truth(rho, informative, n_rows, seed=12345):
    """Metrics of the population of rows: size-biased clusters, one row each."""
    rng = np.random.default_rng(seed)
    m, z = sizes(rng, 4 * n_rows)
    pick = rng.choice(m.shape[0], size=n_rows, p=m / m.sum())
    _, y, score, pred = rows(rng, np.ones(n_rows, dtype=int), z[pick], rho, informative)
    return {"accuracy": float(np.mean(y == pred)), "f1": float(db.metrics.f1_score(y, pred)),
            "roc_auc": float(db.metrics.roc_auc_score(y, score)),
            "log_loss": float(db.metrics.log_loss(y, score))}


def all_terms(name, y, score, pred, cluster, n_clusters):
    other = score if SCORES[name] else pred
    if name == "f1":
        return cluster_terms_of("f1", y, pred, None, {},
                                ClusterIndex(cluster.astype(np.intp), n_clusters))
    return terms(name, y, other, cluster, n_clusters)


def analytic(t, correction, working, logit=False, bounds=(0.0, 1.0), wilson=False):
    """``estimate +- t_df se`` (CR1 with ``I - 1``, or CR2 with a working model's df)."""
    se = np.sqrt(t.variance(correction))
    df = t.n_clusters - 1 if correction == "CR1" else t.degrees_of_freedom(working)
    q = stats.t.ppf(0.5 + LEVEL / 2, df)
    if wilson:
        return wilson_clustered(t, q)
    theta = t.estimate
    if logit and 0 < theta < 1:
        c, h = np.log(theta / (1 - theta)), q * se / (theta * (1 - theta))
        return special.expit(c - h), special.expit(c + h)
    low, high = theta - q * se, theta + q * se
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return low, high


def unequal_intervals(name, y, score, pred, cluster, n_clusters, seed):
    t = all_terms(name, y, score, pred, cluster, n_clusters)
    if t is None or not t.defined:
        return {}
    logit = name == "roc_auc"
    bounds = None if name == "log_loss" else (0.0, 1.0)
    out = {"CR1, t(C-1)": analytic(t, "CR1", None, logit, bounds)}
    for w in WORKINGS:
        out[f"CR2, df {w}"] = analytic(t, "CR2", w, logit, bounds)
    if name == "accuracy":
        out["wilson-clustered"] = analytic(t, "CR2", WORKING, wilson=True)
    if name != "f1":
        try:
            out["bootstrap-t"] = studentized_interval(t, LEVEL, bounds, BT_RESAMPLES,
                                                      np.random.default_rng(seed))[:2]
        except ValueError:
            pass
    return out


def paired_pvalues(y, sa, sb, cluster, n_clusters):
    pa, pb = (sa >= 0.5).astype(int), (sb >= 0.5).astype(int)
    out = {}
    for name, a, b in (("accuracy", pa, pb), ("roc_auc", sa, sb)):
        d = terms(name, y, a, cluster, n_clusters).minus(terms(name, y, b, cluster, n_clusters))
        if not d.defined:
            continue
        for label, corr, df in (("CR1, t(C-1)", "CR1", d.n_clusters - 1),
                                ("CR2, df independent", "CR2", d.degrees_of_freedom("independent")),
                                ("CR2, df fitted", "CR2", d.degrees_of_freedom("fitted")),
                                ("CR2, df cluster", "CR2", d.degrees_of_freedom("cluster"))):
            se = np.sqrt(d.variance(corr))
            out[(name, label)] = 2 * stats.t.sf(abs(d.estimate) / se, df) if se > 0 else 1.0
    return out


def models(rng, m, z, rho, informative, k=2):
    """``k`` equally good models on the rows of clusters of sizes ``m``: each has its
    own cluster effects (informative: the large clusters harder)."""
    n_clusters = m.shape[0]
    cluster = np.repeat(np.arange(n_clusters), m)
    n = cluster.shape[0]
    a = rng.normal(size=n_clusters)
    y = (np.sqrt(rho) * a[cluster] + np.sqrt(1 - rho) * rng.normal(size=n) > 0).astype(int)
    scores = []
    for _ in range(k):
        v = rng.normal(size=n_clusters)
        v = -0.6 * z + 0.8 * v if informative else v
        margin = 1 + 1.5 * (np.sqrt(rho) * v[cluster] + np.sqrt(1 - rho) * rng.normal(size=n))
        scores.append(special.expit((2 * y - 1) * margin))
    return cluster, y, scores


def two_models(rng, m, z, rho, informative):
    cluster, y, scores = models(rng, m, z, rho, informative)
    return cluster, y, scores[0], scores[1]


def check_public(y, score, pred, cluster, n_clusters):
    """The public path's ``auto`` equals this script's CR2 route (on a cell's first data
    set): wilson-clustered for accuracy, delta-clustered for F1."""
    t = all_terms("accuracy", y, score, pred, cluster, n_clusters)
    iv = db.interval("accuracy", y, pred, clusters=cluster)
    low, high = analytic(t, "CR2", WORKING, wilson=True)
    assert iv.method.startswith("wilson-clustered"), iv.method
    assert abs(iv.low - low) < 1e-10 and abs(iv.high - high) < 1e-10, (iv, low, high)
    t = all_terms("f1", y, score, pred, cluster, n_clusters)
    iv = db.interval("f1", y, pred, clusters=cluster, method="delta-clustered")
    low, high = analytic(t, "CR2", WORKING)
    assert abs(iv.low - low) < 1e-10 and abs(iv.high - high) < 1e-10, (iv, low, high)


def tally(store, key, bounds, true):
    if bounds is None or not np.all(np.isfinite(bounds)):
        return
    hit, width, count = store.get(key, (0, 0.0, 0))
    store[key] = (hit + (bounds[0] <= true <= bounds[1]), width + bounds[1] - bounds[0],
                  count + 1)


def run_unequal(n_sim, truth_rows, seeds):
    print("## unequal clusters: coverage % of 95% intervals (mean width) [data sets]")
    print("| clusters | ICC | informative | metric | interval | coverage % | mean width | "
          "data sets |")
    print("|---|---|---|---|---|---|---|---|")
    tests = {}
    for n_clusters in (30, 50):
        for rho in (0.2, 0.5):
            for informative in (False, True):
                start = time.perf_counter()
                true = truth(rho, informative, truth_rows)
                rng = np.random.default_rng(seeds.spawn(1)[0])
                store: dict = {}
                rejected: dict = {}
                for i in range(n_sim):
                    m, z = sizes(rng, n_clusters)
                    cluster, y, score, pred = rows(rng, m, z, rho, informative)
                    if y.min() == y.max():
                        continue
                    with warnings.catch_warnings(), np.errstate(all="ignore"):
                        warnings.simplefilter("ignore")
                        if i == 0:
                            check_public(y, score, pred, cluster, n_clusters)
                        for name in SCORES:
                            for key, b in unequal_intervals(name, y, score, pred, cluster,
                                                            n_clusters, i).items():
                                tally(store, (name, key), b, true[name])
                        cl2, y2, sa, sb = two_models(rng, m, z, rho, informative)
                        if y2.min() != y2.max():
                            for key, p in paired_pvalues(y2, sa, sb, cl2, n_clusters).items():
                                r, c = rejected.get(key, (0, 0))
                                rejected[key] = (r + (p < 0.05), c + 1)
                for (name, key), (hit, width, count) in store.items():
                    print(f"| {n_clusters} | {rho:g} | {'yes' if informative else 'no'} | "
                          f"{name} | {key} | {100 * hit / count:.1f} | {width / count:.4f} "
                          f"| {count} |", flush=True)
                tests[(n_clusters, rho, informative)] = rejected
                print(f"<!-- {n_clusters}/{rho}/{informative}: "
                      f"{time.perf_counter() - start:.0f} s -->", flush=True)
    print()
    print("## unequal clusters: paired cluster-robust test of two equal models, "
          "Type I error at 5%")
    print("| clusters | ICC | informative | metric | test | rejected % | SE | data sets |")
    print("|---|---|---|---|---|---|---|---|")
    for (n_clusters, rho, informative), rejected in tests.items():
        for (name, label), (r, c) in sorted(rejected.items()):
            rate = r / c
            print(f"| {n_clusters} | {rho:g} | {'yes' if informative else 'no'} | {name} | "
                  f"{label} | {100 * rate:.1f} | {100 * np.sqrt(rate * (1 - rate) / c):.1f} "
                  f"| {c} |", flush=True)
    print()


FEW_COUNTS = (2, 3, 4, 5, 6, 8, 10, 15, 20, 30)
FEW_ICC = (0.0, 0.2, 0.5)


def run_few(n_sim, truth_rows, seeds, resamples=500, counts=FEW_COUNTS, iccs=FEW_ICC):
    """A cell's seed is its place in the whole grid, so a restricted run draws the
    data sets of the same cells as the whole one."""
    print(f"## few clusters of 20 rows: coverage % of auto's 95% interval "
          f"(bootstrap-t: {resamples} resamples)")
    print("| clusters | ICC | metric | auto's method | coverage % | mean width | "
          "data sets |")
    print("|---|---|---|---|---|---|---|")
    true = truth(0.0, False, truth_rows)  # a row's law does not depend on rho
    for n_clusters in FEW_COUNTS:
        for rho in FEW_ICC:
            child = seeds.spawn(1)[0]
            if n_clusters not in counts or rho not in iccs:
                continue
            rng = np.random.default_rng(child)
            store: dict = {}
            m = np.full(n_clusters, 20)
            for i in range(n_sim):
                cluster, y, score, pred = rows(rng, m, np.zeros(n_clusters), rho, False)
                if y.min() == y.max():
                    continue
                for name in SCORES:
                    other = score if SCORES[name] else pred
                    with warnings.catch_warnings(), np.errstate(all="ignore"):
                        warnings.simplefilter("ignore")
                        try:
                            iv = db.interval(name, y, other, clusters=cluster,
                                             n_resamples=resamples, random_state=i)
                        except ValueError:
                            continue
                    tally(store, (name, iv.method.split(" (")[0]), (iv.low, iv.high),
                          true[name])
            for (name, method), (hit, width, count) in sorted(store.items()):
                print(f"| {n_clusters} | {rho:g} | {name} | {method} | "
                      f"{100 * hit / count:.1f} | {width / count:.4f} | {count} |", flush=True)
    print()


def run_boundary(n_sim, seeds):
    print("## accuracy near 1: 30 clusters; coverage % (mean width), zero-width share")
    print("| sizes | ICC | true accuracy | interval | coverage % | mean width | "
          "zero width % | data sets |")
    print("|---|---|---|---|---|---|---|---|")
    for ragged in (False, True):
        for rho in (0.0, 0.2):
            for p in (0.99, 0.995, 0.999):
                shift = stats.norm.ppf(p)
                rng = np.random.default_rng(seeds.spawn(1)[0])
                store: dict = {}
                zero: dict = {}
                for _ in range(n_sim):
                    m = sizes(rng, 30)[0] if ragged else np.full(30, 20)
                    cluster = np.repeat(np.arange(30), m)
                    a = rng.normal(size=30)
                    right = (np.sqrt(rho) * a[cluster] + np.sqrt(1 - rho)
                             * rng.normal(size=cluster.shape[0]) < shift).astype(int)
                    ones = np.ones_like(right)
                    for method in ("wald-clustered", "wilson-clustered"):
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            iv = db.interval("accuracy", ones, right, clusters=cluster,
                                             method=method)
                        tally(store, method, (iv.low, iv.high), p)
                        zero[method] = zero.get(method, 0) + (iv.high - iv.low == 0)
                for method, (hit, width, count) in store.items():
                    print(f"| {'lognormal' if ragged else '20 each'} | {rho:g} | {p:g} | "
                          f"{method} | {100 * hit / count:.1f} | {width / count:.4f} | "
                          f"{100 * zero[method] / count:.1f} | {count} |", flush=True)
    print()


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    opts = dict(a[2:].split("=", 1) for a in argv[1:] if a.startswith("--") and "=" in a)
    args = [a for a in argv[1:] if not a.startswith("--")]
    resamples = int(opts.get("resamples", 500))
    counts = tuple(int(c) for c in opts["clusters"].split(",")) if "clusters" in opts \
        else FEW_COUNTS
    iccs = tuple(float(r) for r in opts["icc"].split(",")) if "icc" in opts else FEW_ICC
    part = args[0] if args else "all"
    n_sim = 50 if quick else int(args[1]) if len(args) > 1 else 1000
    truth_rows = 200_000 if quick else 4_000_000
    seeds = np.random.SeedSequence(20240936)
    print(f"# {n_sim} data sets per cell; truth on {truth_rows} population rows")
    if part in ("unequal", "all"):
        run_unequal(n_sim, truth_rows, seeds)
    if part in ("few", "all"):
        run_few(n_sim, truth_rows, seeds, resamples, counts, iccs)
    if part in ("boundary", "all"):
        run_boundary(n_sim, seeds)


def render(log: str) -> list[Table]:
    """The tables of a run's log (printed as Markdown tables)."""
    names = ("unequal_clusters", "unequal_clusters_type1", "few_clusters",
             "boundary_clusters")
    titles = ("Coverage of 95% intervals with unequal clusters",
              "Type I error of the paired cluster-robust test with unequal clusters",
              "Coverage of auto's 95% interval with few clusters",
              "Accuracy near 1 with clusters")
    return [Table(n, t, header, body) for n, t, (header, *body)
            in zip(names, titles, markdown_tables(log))]


if __name__ == "__main__":
    main(sys.argv)
