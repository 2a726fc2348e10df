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

``between``: sizes between equal and the ``unequal`` grid's, where the cutoff of
:func:`dartboard._kernels._clustered_analytic.unequal_sizes` falls: lognormal sizes
of mean 20 and sigma 0.25, 0.5, 0.75 and 1.0 (``m = max(1, round(exp(mu + sigma z)))``,
``mu = log 20 - sigma^2 / 2``), 30 and 50 clusters, ``rho`` 0.2 and 0.5, informative
size or not (the ``unequal`` grid's law, its truth on the population of rows of each
sigma). On the public path (``dartboard.interval(..., clusters=)``, the default 10,000
resamples): the coverage and mean width of ``auto``'s interval for accuracy, F1, ROC
AUC and log loss with the share of each method ``auto`` took, and F1's two candidates
forced (``delta-clustered``, ``jackknife-logit-clustered``) on the same data sets. The
script asserts on every data set that ``auto`` took ``jackknife-logit-clustered`` for
F1 exactly where ``unequal_sizes`` held on its terms. Per cell: the share where it
held, the median effective clusters (``small_sample_df`` of the rows' sizes,
``working="cluster"``, plus one; ``I`` with equal sizes), the share of data sets with
fewer than ``FEW_CLUSTERS`` effective clusters, the median coefficient of variation of
the sizes and largest cluster's share of the rows, the share of data sets where every
call warned of few clusters, whether ``evaluate`` on the first data set records the
clusters in its ``assumptions``; and ``auto``'s coverage split by the effective
clusters (below 30 or not), a candidate few-clusters rule. ``--sigma=0.5,1`` restricts
the grid (each cell keeps its seed).

``few-unequal``: 3, 5, 7 and 9 clusters of the ``unequal`` grid's sizes (sigma 1.5),
``rho`` 0, 0.2, 0.5, size not informative: the same tables as ``between``.

Usage: python benchmarks/unequal_clusters_coverage.py [part] [n_sim] [--quick]
[--resamples=N] [--clusters=C,...] [--icc=R,...] [--sigma=S,...]
(part: unequal, few, boundary, between, few-unequal or all; n_sim default 1000;
``--quick``: 50 data sets and 200 000 truth rows, a smoke test).
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
from dartboard._kernels._clustered_analytic import (
    FEW_CLUSTERS,
    JACKKNIFE_LOGIT,
    WORKING,
    small_sample_df,
    unequal_sizes,
    wilson_clustered,
)
from dartboard.exceptions import FewClustersWarning
from dartboard.uncertainty._interval import cluster_terms_of

SIGMA = 1.5
MU = np.log(20.0) - SIGMA ** 2 / 2
BT_RESAMPLES = 999
LEVEL = 0.95
WORKINGS = ("independent", "cluster", "fitted")
SCORES = {"accuracy": False, "f1": False, "roc_auc": True, "log_loss": True}


def sizes(rng: np.random.Generator, n_clusters: int,
          sigma: float = SIGMA) -> tuple[np.ndarray, np.ndarray]:
    """Lognormal sizes of mean 20 (before rounding) and their normals ``z``."""
    z = rng.normal(size=n_clusters)
    mu = MU if sigma == SIGMA else np.log(20.0) - sigma ** 2 / 2
    return np.maximum(1, np.round(np.exp(mu + sigma * z))).astype(int), z


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


def truth(rho, informative, n_rows, seed=12345, sigma=SIGMA):
    """Metrics of the population of rows: size-biased clusters, one row each."""
    rng = np.random.default_rng(seed)
    m, z = sizes(rng, 4 * n_rows, sigma)
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
FEW_UNEQUAL = (3, 5, 7, 9)


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


BETWEEN_SIGMAS = (0.25, 0.5, 0.75, 1.0)
F1_FORMS = ("delta-clustered", JACKKNIFE_LOGIT)


def public_intervals(y, score, pred, cluster, seed):
    """``auto``'s interval of each metric on the public path and F1's two candidates
    forced; per call whether it warned of few clusters (FewClustersWarning)."""
    found, warned = {}, {}
    for name, method in [(name, "auto") for name in SCORES] + [("f1", f) for f in F1_FORMS]:
        other = score if SCORES[name] else pred
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
            warnings.simplefilter("always")
            try:
                found[(name, method)] = db.interval(name, y, other, clusters=cluster,
                                                    method=method, random_state=seed)
            except ValueError:
                continue
        warned[(name, method)] = any(issubclass(w.category, FewClustersWarning)
                                     for w in caught)
    return found, warned


def sized_cell(rng, n_sim, n_clusters, sigma, rho, informative, true):
    """One cell of lognormal sizes: per (metric, interval) the hits and widths, auto's
    methods, per data set the rule's facts (F1's ``unequal_sizes``, the cluster-effect
    df of the rows' sizes, the sizes' CV and largest share, whether every call warned of
    few clusters) and auto's hits; the first data set's ``evaluate`` assumptions."""
    store: dict = {}
    chosen: dict = {}
    per_set = []
    noted = None
    for i in range(n_sim):
        m, z = sizes(rng, n_clusters, sigma)
        cluster, y, score, pred = rows(rng, m, z, rho, informative)
        if y.min() == y.max():
            continue
        found, warned = public_intervals(y, score, pred, cluster, i)
        t = all_terms("f1", y, score, pred, cluster, n_clusters)
        fires = t is not None and t.defined and unequal_sizes(t)
        if ("f1", "auto") in found:
            want = JACKKNIFE_LOGIT if fires else "delta-clustered"
            assert found[("f1", "auto")].method.startswith(want), (found[("f1", "auto")], want)
        hits = {}
        for (name, method), iv in found.items():
            tally(store, (name, method), (iv.low, iv.high), true[name])
            hits[name, method] = iv.low <= true[name] <= iv.high
            if method == "auto":
                key = iv.method.split(" (")[0].split(";")[0]
                chosen.setdefault(name, {})
                chosen[name][key] = chosen[name].get(key, 0) + 1
        held = m[m > 0].astype(float)
        per_set.append((fires, small_sample_df(held, working="cluster"), held.std() / held.mean(),
                        held.max() / held.sum(), all(warned.values()), hits))
        if i == 0:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                ev = db.evaluate(y_true=y, y_score=score, clusters=cluster,
                                 metrics=list(SCORES), n_resamples=200, random_state=0)
            noted = "clusters" in ev.assumptions
    return store, chosen, per_set, noted


def shares(counts):
    total = sum(counts.values())
    return "; ".join(f"{k} {100 * v / total:.1f}%" for k, v in
                     sorted(counts.items(), key=lambda kv: -kv[1]))


def print_cell(label, store, chosen):
    for (name, method), (hit, width, count) in sorted(store.items()):
        picked = shares(chosen.get(name, {})) if method == "auto" else ""
        print(f"| {label} | {name} | {method} | {100 * hit / count:.1f} | "
              f"{width / count:.4f} | {count} | {picked} |", flush=True)


def split_by_rule(label, per_set, flag, keys):
    """Coverage of the intervals ``keys`` where ``flag`` holds of a data set's facts and
    where it does not."""
    on = np.array([flag(s) for s in per_set], dtype=bool)
    for key in keys:
        cells = []
        for part in (on, ~on):
            hits = [s[-1][key] for s, keep in zip(per_set, part, strict=True)
                    if keep and key in s[-1]]
            cells.append(f"{100 * np.mean(hits):.1f} | {len(hits)}" if hits else "| 0")
        print(f"| {label} | {' | '.join(key)} | {cells[0]} | {cells[1]} |", flush=True)


def facts(label, per_set, noted):
    a = np.array([row[:5] for row in per_set], dtype=float)
    print(f"| {label} | {100 * a[:, 0].mean():.1f} | {np.median(a[:, 1]) + 1:.1f} | "
          f"{100 * np.mean(a[:, 1] + 1 < FEW_CLUSTERS):.1f} | {np.median(a[:, 2]):.2f} | "
          f"{np.median(a[:, 3]):.3f} | {100 * a[:, 4].mean():.1f} | "
          f"{'yes' if noted else 'no'} | {a.shape[0]} |", flush=True)


def run_sized(title, grid, n_sim, truth_rows, seeds, keep):
    """The cells of ``grid`` (``(sigma, clusters, rho, informative)``) that ``keep``
    holds; a cell's seed is its place in ``grid``, so a restricted run draws the same
    data sets. Three tables: coverage, the sizes and the rule, the candidate rule."""
    print(f"## {title}: coverage % of 95% intervals (public path; auto and F1's two "
          f"candidates)")
    print("| sigma | clusters | ICC | informative | metric | interval | coverage % | "
          "mean width | data sets | auto's method |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    truths: dict = {}
    results = []
    children = seeds.spawn(len(grid))
    for child, (sigma, n_clusters, rho, informative) in zip(children, grid, strict=True):
        if not keep(sigma, n_clusters, rho):
            continue
        start = time.perf_counter()
        key = (sigma, rho, informative)
        if key not in truths:
            truths[key] = truth(rho, informative, truth_rows, sigma=sigma)
        label = f"{sigma:g} | {n_clusters} | {rho:g} | {'yes' if informative else 'no'}"
        store, chosen, per_set, noted = sized_cell(np.random.default_rng(child), n_sim,
                                                   n_clusters, sigma, rho, informative,
                                                   truths[key])
        print_cell(label, store, chosen)
        print(f"<!-- {label}: {time.perf_counter() - start:.0f} s -->", flush=True)
        results.append((label, per_set, noted))
    print()
    print(f"## {title}: the sizes and the rules (medians over data sets)")
    print("| sigma | clusters | ICC | informative | unequal_sizes % | effective clusters | "
          "effective below 30 % | CV of sizes | largest share | warned % | "
          "evaluate notes clusters | data sets |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, per_set, noted in results:
        facts(label, per_set, noted)
    print()
    print(f"## {title}: auto's coverage % where the effective clusters are below 30 "
          f"and where not")
    print("| sigma | clusters | ICC | informative | metric | interval | coverage % below | "
          "data sets | coverage % from 30 | data sets |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, per_set, _ in results:
        split_by_rule(label, per_set, lambda s: s[1] + 1 < FEW_CLUSTERS,
                      [(name, "auto") for name in SCORES])
    print()
    print(f"## {title}: F1's candidates where unequal_sizes holds and where not")
    print("| sigma | clusters | ICC | informative | metric | interval | coverage % where "
          "it holds | data sets | coverage % where not | data sets |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, per_set, _ in results:
        split_by_rule(label, per_set, lambda s: s[0], [("f1", f) for f in F1_FORMS])
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
    sigmas = tuple(float(v) for v in opts["sigma"].split(",")) if "sigma" in opts \
        else BETWEEN_SIGMAS
    if part in ("between", "all"):
        grid = [(g, c, r, i) for g in BETWEEN_SIGMAS for c in (30, 50) for r in (0.2, 0.5)
                for i in (False, True)]
        run_sized("sizes between equal and sigma 1.5", grid, n_sim, truth_rows,
                  np.random.SeedSequence(20261205),
                  lambda g, c, r: g in sigmas and ("clusters" not in opts or c in counts)
                  and r in iccs)
    if part in ("few-unequal", "all"):
        grid = [(SIGMA, c, r, False) for c in FEW_UNEQUAL for r in FEW_ICC]
        run_sized("few clusters of lognormal sizes (sigma 1.5)", grid, n_sim, truth_rows,
                  np.random.SeedSequence(20261206),
                  lambda g, c, r: ("clusters" not in opts or c in counts) and r in iccs)


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
