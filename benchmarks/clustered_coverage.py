"""Coverage of intervals when rows come in clusters: independent rows vs clustered.

Data: ``C`` clusters of ``m`` rows (a patient's visits, a passage's questions). With
intra-cluster correlation ``rho`` of the latent variables, a row's label is
``y = [sqrt(rho) a_c + sqrt(1 - rho) e_i > 0]`` and its score ``p = sigmoid(
(2y - 1) + 1.5 (sqrt(rho) b_c + sqrt(1 - rho) f_i))`` with ``a_c``, ``b_c``, ``e_i``,
``f_i`` standard normal: rows of one cluster share what they are (``a_c``) and how
well the model does on them (``b_c``). A row's law is the same for every ``rho``, so
the truth of each metric (accuracy and F1 of ``p >= 0.5``, ROC AUC, log loss, MAE of
``p``) is its value on 4,000,000 independent rows.

Per cell (``rho`` x ``m`` x ``C``) and data set, 95% intervals: with independent rows
(Wilson for accuracy, the percentile bootstrap of rows for F1, DeLong for ROC AUC, t
for the mean losses), the
cluster-robust one (``wald-clustered``, ``delong-logit-clustered``, ``t-clustered``,
``delta-clustered`` for F1), the symmetric studentized bootstrap of whole clusters
(``bootstrap-t-clustered``, 999 resamples: accuracy, ROC AUC, log loss, MAE) and the
bootstrap of whole clusters (BCa, ``dartboard.interval(..., clusters=)``). The analytic
and bootstrap-t columns use dartboard's formulas
(:mod:`dartboard._kernels._clustered_analytic`) on per-cluster sums written here
with ``np.bincount`` (``terms``, ``placements``) without the public path's input
checks, so that the grid fits a shared machine; the public path
(``dartboard.interval(..., method=..., clusters=)``) is asserted to give the same
bounds to 1e-10 on each cell's first data set. Printed: the share of data sets whose interval
holds the truth, and the mean width (data sets with one class are skipped).

Usage: python benchmarks/clustered_coverage.py [n_sim] [n_resamples] [columns]
(defaults 1000 500 all; columns ``analytic`` runs the independent, cluster-robust and
bootstrap-t columns only, ``bootstrap`` the bootstrap of whole clusters only). ``CLUSTERS``,
``SIZES`` and ``RHOS`` set the grid.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np
from _results import Table, markdown_tables
from scipy import stats

import dartboard as db
from dartboard import metrics as dm
from dartboard._kernels._analytic import normal_quantile, proportion_interval
from dartboard._kernels._clustered import studentized_interval
from dartboard._kernels._clustered_analytic import (
    auc_terms,
    clustered_interval,
    pair_wins,
    ratio_terms,
)

ONLY = os.environ.get("METRICS")
RHOS = tuple(float(x) for x in os.environ.get("RHOS", "0,0.05,0.2,0.5").split(","))
SIZES = tuple(int(x) for x in os.environ.get("SIZES", "1,5,20,100").split(","))
CLUSTERS = tuple(int(x) for x in os.environ.get("CLUSTERS", "10,30,100").split(","))
METRICS = {"accuracy": ("labels", dm.accuracy_score, "wald-clustered"),
           "f1": ("labels", dm.f1_score, "delta-clustered"),
           "roc_auc": ("scores", dm.roc_auc_score, "delong-logit-clustered"),
           "log_loss": ("scores", dm.log_loss, "t-clustered"),
           "mean_absolute_error": ("scores", dm.mean_absolute_error, "t-clustered")}
#: the metrics the studentized bootstrap of clusters takes (ratios of sums, ROC AUC)
STUDENTIZED = ("accuracy", "roc_auc", "log_loss", "mean_absolute_error")
#: resamples of the studentized bootstrap (the analytic run's other columns draw none)
BT_RESAMPLES = 999
if ONLY:  # METRICS=f1,roc_auc runs those only
    METRICS = {k: v for k, v in METRICS.items() if k in ONLY.split(",")}


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


def placements(y, score):
    """Each positive's share of negatives below it and each negative's of positives
    above it (ties one half): DeLong's and Obuchowski's placement values, per row."""
    pos, neg = np.sort(score[y == 1]), np.sort(score[y == 0])
    value = np.empty(score.shape[0])
    s = score[y == 1]
    value[y == 1] = (np.searchsorted(neg, s) + 0.5 * (np.searchsorted(neg, s, "right")
                                                      - np.searchsorted(neg, s))) / neg.size
    s = score[y == 0]
    value[y == 0] = (pos.size - np.searchsorted(pos, s, "right") + 0.5 * (
        np.searchsorted(pos, s, "right") - np.searchsorted(pos, s))) / pos.size
    return value


def terms(name, y, other, cluster, n_clusters):
    """dartboard's per-cluster terms of ``name`` (ClusterTerms) from per-cluster sums
    taken here with bincount: the numbers of ``interval(..., clusters=)`` (checked on
    each cell's first data set)."""
    def per(values, rows=None):
        keep = slice(None) if rows is None else rows
        return np.bincount(cluster[keep], weights=values, minlength=n_clusters)

    if name == "accuracy":
        return ratio_terms(per((y == other).astype(float)), per(np.ones(y.shape[0])),
                           "wald-clustered")
    if name == "roc_auc":
        v = placements(y, other)
        pos = y == 1
        return auc_terms(per(v[pos], pos), per(v[~pos], ~pos), per(np.ones(pos.sum()), pos),
                         per(np.ones((~pos).sum()), ~pos),
                         lambda: pair_wins(cluster, other, pos, np.ones(y.shape[0]),
                                           n_clusters))
    loss = LOSSES[name](y, other)
    return ratio_terms(per(loss), per(np.ones(y.shape[0])), "t-clustered")


LOSSES = {"log_loss": lambda y, p: -(y * np.log(p) + (1 - y) * np.log1p(-p)),
          "mean_absolute_error": lambda y, p: np.abs(y - p)}


def independent(name, y, other, resamples, seed, level=0.95):
    """The independent-rows interval: Wilson (accuracy), DeLong (ROC AUC), t (the mean
    losses), from dartboard's formulas; F1's percentile bootstrap from
    ``dartboard.interval``."""
    if name == "accuracy":
        x, n = float(np.sum(y == other)), float(y.shape[0])
        return proportion_interval(x, n, level, "wilson")
    if name == "roc_auc":
        v = placements(y, other)
        pos = y == 1
        auc = float(v[pos].mean())
        var = v[pos].var(ddof=1) / pos.sum() + v[~pos].var(ddof=1) / (~pos).sum()
        z = normal_quantile(level)
        return auc - z * np.sqrt(var), auc + z * np.sqrt(var)
    if name == "f1":
        # percentile: BCa's jackknife of a count metric beyond 1000 rows evaluates 1000
        # leave-a-group-out matrices one by one (0.5 s a data set at 3000 rows)
        iv = _one("f1", y, other, resamples, seed, method="percentile")
        return None if iv is None else (iv.low, iv.high)
    loss = LOSSES[name](y, other)
    half = stats.t.ppf(0.5 + level / 2, loss.size - 1) * loss.std(ddof=1) / np.sqrt(loss.size)
    return loss.mean() - half, loss.mean() + half


def check(name, y, other, cluster, n_clusters, analytic):
    """The fast route equals the public one (to 1e-10)."""
    found = terms(name, y, other, cluster, n_clusters)
    if not found.defined:
        return
    public = db.interval(name, y, other, method=analytic, clusters=cluster)
    low, high, _ = clustered_interval(found, 0.95, (0.0, 1.0) if name == "roc_auc" or
                                      name == "accuracy" else None,
                                      logit=analytic == "delong-logit-clustered")
    assert abs(low - public.low) < 1e-10 and abs(high - public.high) < 1e-10, (name, low,
                                                                              public)
    if name in STUDENTIZED:
        try:
            public = db.interval(name, y, other, method="bootstrap-t-clustered",
                                 clusters=cluster, n_resamples=BT_RESAMPLES, random_state=0)
        except ValueError:  # no resample has a standard error (a perfect AUC, say)
            public = None
        try:
            low, high, _ = studentized_interval(found, 0.95, _bounds(name), BT_RESAMPLES,
                                                np.random.default_rng(0))
        except ValueError:
            assert public is None, (name, public)
            return
        assert public is not None and abs(low - public.low) < 1e-10 and \
            abs(high - public.high) < 1e-10, (name, low, public)


def _bounds(name):
    return (0.0, 1.0) if name in ("accuracy", "roc_auc") else None


def cell(rng, n_sim, resamples, columns, rho, m, n_clusters, true):
    hits = {k: np.zeros(4) for k in METRICS}
    width = {k: np.zeros(4) for k in METRICS}
    valid = {k: np.zeros(4) for k in METRICS}
    for i in range(n_sim):
        cluster, y, score, pred = draw(rng, n_clusters, m, rho)
        if y.min() == y.max():
            continue
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # DeLong of a class of one row: no interval
            _cell_rows(i, cluster, y, score, pred, resamples, columns, n_clusters, true,
                       hits, width, valid)
    return hits, width, valid


def _cell_rows(i, cluster, y, score, pred, resamples, columns, n_clusters, true, hits,
               width, valid):
    """One data set's intervals of every metric, counted into the cell's tallies."""
    for name, (kind, _, analytic) in METRICS.items():
        other = score if kind == "scores" else pred
        found = []
        if columns in ("all", "analytic"):
            found.append((0, independent(name, y, other, resamples, i)))
            if name == "f1":  # the delta method, by the public path
                iv = _one(name, y, other, resamples, i, method=analytic, clusters=cluster)
                found.append((1, None if iv is None else (iv.low, iv.high)))
            elif analytic is not None:
                if i == 0:
                    check(name, y, other, cluster, n_clusters, analytic)
                t = terms(name, y, other, cluster, n_clusters)
                bounds = _bounds(name)
                found.append((1, clustered_interval(
                    t, 0.95, bounds, logit=analytic == "delong-logit-clustered")[:2]
                    if t.defined else None))
                if name in STUDENTIZED and t.defined:
                    try:
                        found.append((3, studentized_interval(
                            t, 0.95, bounds, BT_RESAMPLES, np.random.default_rng(i))[:2]))
                    except ValueError:  # too few clusters with rows in the resamples
                        pass
        if columns in ("all", "bootstrap"):
            iv = _one(name, y, other, resamples, i, method="bca", clusters=cluster)
            found.append((2, None if iv is None else (iv.low, iv.high)))
        for j, bounds in found:
            if bounds is None or not np.all(np.isfinite(bounds)):
                continue
            valid[name][j] += 1
            hits[name][j] += bounds[0] <= true[name] <= bounds[1]
            width[name][j] += bounds[1] - bounds[0]


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
          "cluster bootstrap-t | cluster bootstrap (BCa) |")
    print("|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for rho in RHOS:
        for m in SIZES:
            for n_clusters in CLUSTERS:
                start = time.perf_counter()
                hits, width, valid = cell(rng, n_sim, resamples, columns, rho, m, n_clusters,
                                          true)
                for name in METRICS:
                    shown = []
                    for j in (0, 1, 3, 2):
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


def render(log: str) -> list[Table]:
    """The coverage table of a run's log (printed as a Markdown table)."""
    header, *rows = markdown_tables(log)[0]
    return [Table("clustered", "Coverage of 95% intervals with clustered rows", header, rows)]


if __name__ == "__main__":
    main(sys.argv)
