"""Candidate cluster-robust intervals where the clusters' sizes inform the metric.

The data of ``benchmarks/unequal_clusters_coverage.py unequal`` (lognormal sizes of
mean 20 and sigma 1.5; ICC ``rho`` of the latent variables; with informative size the
large clusters are harder), the same seeds and draws (each data set's paired-test rows
are drawn and dropped, so data set ``i`` of a cell is that script's data set ``i``),
and the same truth (the metric on 4,000,000 rows of the population of rows). Cells
are ``clusters/ICC/informative`` triples (``--cells=30/0.5/1,50/0.2/1``); the cells of
that script's grid keep their seeds whichever are run. ``equal/C/ICC``: ``C`` clusters
of 20 rows (no size effect), its own seed.

Per data set and metric, with ``G`` the clusters holding the metric's denominator,
``h_g`` their share of it, ``t_g`` the linearized terms
(:class:`dartboard._kernels._clustered_analytic.ClusterTerms`) and ``df_C`` the
cluster-effect degrees of freedom (``small_sample_df(..., "cluster")``):

- ``auto before``: what ``dartboard.interval(..., clusters=)`` took before
  ``jackknife-logit-clustered`` for unequal sizes (accuracy ``wilson-clustered``, F1
  ``delta-clustered``, log loss ``t-clustered``, ROC AUC ``delong-logit-clustered``;
  CR2 on ``df_C``); with equal sizes the same analytic forms (there ``auto`` takes the
  studentized bootstrap for ROC AUC and log loss instead).
- ``auto``: F1's interval from the public path, ``dartboard.interval("f1", ...,
  clusters=)`` (``jackknife-logit-clustered`` where :func:`~dartboard._kernels.
  _clustered_analytic.unequal_sizes` says the sizes are unequal, else
  ``delta-clustered``); the script asserts on every data set that it equals ``CR3-g
  dfC`` or ``auto before`` by that rule, and on a cell's first data set that the other
  metrics' public ``auto`` equals ``auto before``. Printed per cell: the share of data
  sets whose sizes the rule calls unequal, the median largest cluster's share of the
  rows and the median coefficient of variation of the sizes.
- ``CR2 dfC``: ``theta +- t_{df_C} sqrt(V_CR2)``.
- ``CR3 dfC`` / ``CR3 t(G-1)``: the CR3 variance ``(G-1)/G sum (t_g / (1 - h_g))^2``.
- ``JK dfC`` / ``JK t(G-1)``: the delete-one-cluster jackknife of the metric itself
  (recomputed without each cluster), ``(G-1)/G sum (theta_-g - mean)^2``.
- ``JK-g t(G-1)`` / ``JK-g dfC``: the same on the logit scale (log scale for log
  loss), carried back; ``CR2-g dfC``, ``CR3-g dfC``: the CR2 and CR3 standard errors on
  that scale (delta method: ``se / (theta (1 - theta))``, ``se / theta``).
- ``JKbc dfC``: ``JK dfC`` about the jackknife's bias-corrected estimate
  ``G theta - (G - 1) mean(theta_-g)``.
- ``WCR-R`` / ``WCR-W6`` (``--webb``): the restricted wild cluster bootstrap-t of the ratio's
  estimating equation (Rademacher or Webb's six-point weights, 999 draws), CR2
  studentized, inverted as a test (the values ``theta0`` whose symmetric p-value is
  at least 5%); ``WCU-R``: the unrestricted one, ``theta +- q |t*| se``.

Usage: python benchmarks/informative_size_coverage.py n_sim [--cells=...] [--no-wild]
[--webb]
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from clustered_coverage import LOSSES
from scipy import special, stats
from unequal_clusters_coverage import rows, sizes, truth, two_models

import dartboard as db
from dartboard._kernels._clustered import ClusterIndex
from dartboard._kernels._clustered_analytic import (
    ratio_terms,
    unequal_sizes,
    wilson_clustered,
)
from dartboard.uncertainty._interval import cluster_terms_of

LEVEL = 0.95
B = 999
NO_WILD = "--no-wild" in sys.argv
#: the wild bootstrap's weights: Rademacher; Webb's six points with ``--webb``
WEIGHTS = ("R", "W6") if "--webb" in sys.argv else ("R",)
GRID = [(c, r, i) for c in (30, 50) for r in (0.2, 0.5) for i in (False, True)]
METRICS = ("accuracy", "f1", "roc_auc", "log_loss")
WEBB = np.array([-np.sqrt(1.5), -1.0, -np.sqrt(0.5), np.sqrt(0.5), 1.0, np.sqrt(1.5)])


def q_t(df):
    return float(stats.t.ppf(0.5 + LEVEL / 2, df))


def ratio_sums(name, y, score, pred, cluster, n_clusters):
    """Per-cluster numerator and denominator sums of the metric as a ratio."""
    def per(v):
        return np.bincount(cluster, weights=v.astype(float), minlength=n_clusters)

    if name == "accuracy":
        return per(y == pred), per(np.ones_like(y))
    if name == "f1":
        tp, fp, fn = per((y == 1) & (pred == 1)), per((y == 0) & (pred == 1)), \
            per((y == 1) & (pred == 0))
        return 2 * tp, 2 * tp + fp + fn
    return per(LOSSES[name](y, score)), per(np.ones_like(y))


def sym(theta, half, bounds):
    low, high = theta - half, theta + half
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return low, high


def scaled(theta, half_g, scale):
    """``g^-1(g(theta) +- half_g)`` on the logit or log scale."""
    if scale == "logit" and 0 < theta < 1:
        c = np.log(theta / (1 - theta))
        return special.expit(c - half_g), special.expit(c + half_g)
    if scale == "log" and theta > 0:
        return theta * np.exp(-half_g), theta * np.exp(half_g)
    return None


def hall(theta, terms, se, q, bounds):
    """Hall's (1992) skewness-removing transformation of the studentized estimate.

    ``kappa = sum t^3 / (sum t^2)^(3/2)`` estimates the estimate's own skewness from the
    cluster terms ``t``; ``g(T) = T + a T^2 + a^2 T^3 / 3 + b`` with ``a = kappa / 3``,
    ``b = kappa / 6`` is nearly standard normal (Hall 1992, JRSS B 54:221-228), and the
    interval inverts ``-q <= g(T) <= q`` for ``T = (theta_hat - theta) / se``.
    """
    kappa = float(np.sum(terms ** 3) / np.sum(terms ** 2) ** 1.5)
    a, b = kappa / 3, kappa / 6
    if abs(a) < 1e-12:
        return sym(theta, q * se, bounds)

    def inverse(x):
        return (np.cbrt(1 + 3 * a * (x - b)) - 1) / a

    low, high = theta - se * inverse(q), theta - se * inverse(-q)
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return low, high


def adjusted_terms(t, correction):
    """The clusters' terms summed over parts, scaled as CR2 or CR3 scale them."""
    room = 1.0 - t.leverage()
    a = t.terms / (np.sqrt(room) if correction == "CR2" else room)
    return np.where(t.present, a, 0.0).sum(axis=1)


def jackknife(x, d):
    """Leave-one-cluster-out values of ``sum x / sum d`` over the clusters with rows."""
    keep = d != 0
    x, d = x[keep], d[keep]
    return (x.sum() - x) / (d.sum() - d)


def wild_draws(rng, kind, g):
    if kind == "R":
        return rng.choice(np.array([-1.0, 1.0]), size=(B, g))
    return rng.choice(WEBB, size=(B, g))


def wild_t(u, dd, h, w, theta0):
    """Bootstrap t of ``theta* - theta0`` with data ``theta0 d + w u`` (CR2)."""
    total = dd.sum()
    shift = (w @ u) / total                       # theta* - theta0
    resid = w * u[None, :] - shift[:, None] * dd[None, :]
    se = np.sqrt(np.sum((resid / np.sqrt(1 - h)) ** 2, axis=1)) / total
    return shift / se


def wcr_interval(x, d, w, theta, se, bounds):
    """Test inversion of the restricted wild cluster bootstrap-t."""
    keep = d != 0
    x, dd, w = x[keep], d[keep], w[:, keep]
    h = dd / dd.sum()

    def pvalue(theta0):
        stat = abs(theta - theta0) / se
        tt = np.abs(wild_t(x - theta0 * dd, dd, h, w, theta0))
        return np.mean(tt >= stat - 1e-12)

    out = []
    for sign in (-1, 1):
        inside, step = theta, 2 * se
        outside = theta + sign * step
        k = 0
        while pvalue(outside) >= 0.05 and k < 40:
            inside, outside = outside, outside + sign * step
            step *= 2
            k += 1
            if bounds is not None and not bounds[0] <= outside <= bounds[1]:
                break
        for _ in range(30):
            mid = (inside + outside) / 2
            if pvalue(mid) >= 0.05:
                inside = mid
            else:
                outside = mid
        out.append(inside)
    return sym((out[0] + out[1]) / 2, (out[1] - out[0]) / 2, bounds)


def wcu_interval(t, x, d, w, bounds):
    keep = d != 0
    x, dd, w = x[keep], d[keep], w[:, keep]
    h = dd / dd.sum()
    theta = t.estimate
    tt = np.abs(wild_t(x - theta * dd, dd, h, w, theta))
    q = float(np.quantile(tt, LEVEL))
    return sym(theta, q * np.sqrt(t.variance("CR2")), bounds)


def candidates(name, y, score, pred, cluster, n_clusters, rng):
    index = ClusterIndex(cluster.astype(np.intp), n_clusters)
    other = score if name in ("roc_auc", "log_loss") else pred
    t = cluster_terms_of(name, y, other, None, {}, index)
    if t is None or not t.defined:
        return {}
    bounds = (0.0, np.inf) if name == "log_loss" else (0.0, 1.0)
    scale = {"log_loss": "log"}.get(name, "logit")
    theta = t.estimate
    df_c = t.degrees_of_freedom("cluster")
    se2, se3 = np.sqrt(t.variance("CR2")), np.sqrt(t.variance("CR3"))
    g = t.n_clusters
    out = {}
    if name == "accuracy":
        out["auto before"] = wilson_clustered(t, q_t(df_c))
    elif name == "roc_auc":
        out["auto before"] = scaled(theta, q_t(df_c) * se2 / (theta * (1 - theta)), "logit")
    else:
        out["auto before"] = sym(theta, q_t(df_c) * se2, bounds)
    out["CR2 dfC"] = sym(theta, q_t(df_c) * se2, bounds)
    out["CR3 dfC"] = sym(theta, q_t(df_c) * se3, bounds)
    out["CR3 t(G-1)"] = sym(theta, q_t(g - 1) * se3, bounds)
    slope = 1 / (theta * (1 - theta)) if scale == "logit" else 1 / theta
    out["CR2-g dfC"] = scaled(theta, q_t(df_c) * se2 * slope, scale)
    out["CR3-g dfC"] = scaled(theta, q_t(df_c) * se3 * slope, scale)
    if name == "log_loss":
        df_f, df_i = t.degrees_of_freedom("fitted"), t.degrees_of_freedom("independent")
        for label, df in (("fit", df_f), ("ind", df_i), ("G-1", g - 1)):
            out[f"CR2 {label}"] = sym(theta, q_t(df) * se2, bounds)
            out[f"CR3 {label}"] = sym(theta, q_t(df) * se3, bounds)
            out[f"CR3-g {label}"] = scaled(theta, q_t(df) * se3 * slope, scale)
        a2, a3 = adjusted_terms(t, "CR2"), adjusted_terms(t, "CR3")
        for label, df in (("dfC", df_c), ("fit", df_f)):
            out[f"Hall CR2 {label}"] = hall(theta, a2, se2, q_t(df), bounds)
            out[f"Hall CR3 {label}"] = hall(theta, a3, se3, q_t(df), bounds)
        out["Hall CR3 z"] = hall(theta, a3, se3, float(stats.norm.ppf(0.975)), bounds)
    if name == "roc_auc":
        return out
    x, d = ratio_sums(name, y, score, pred, cluster, n_clusters)
    jk = jackknife(x, d)
    gj = jk.shape[0]
    vj = (gj - 1) / gj * np.sum((jk - jk.mean()) ** 2)
    out["JK dfC"] = sym(theta, q_t(df_c) * np.sqrt(vj), bounds)
    out["JKbc dfC"] = sym(gj * theta - (gj - 1) * jk.mean(), q_t(df_c) * np.sqrt(vj), bounds)
    out["JK t(G-1)"] = sym(theta, q_t(gj - 1) * np.sqrt(vj), bounds)
    with np.errstate(all="ignore"):
        gjk = np.log(jk / (1 - jk)) if scale == "logit" else np.log(jk)
        gth = np.log(theta / (1 - theta)) if scale == "logit" else np.log(theta)
    if np.all(np.isfinite(gjk)) and np.isfinite(gth):
        vg = (gj - 1) / gj * np.sum((gjk - gjk.mean()) ** 2)
        out["JK-g t(G-1)"] = scaled(theta, q_t(gj - 1) * np.sqrt(vg), scale)
        out["JK-g dfC"] = scaled(theta, q_t(df_c) * np.sqrt(vg), scale)
    rt = ratio_terms(x, d, "wald-clustered")
    se_r = np.sqrt(rt.variance("CR2"))
    keep = d != 0
    for kind in () if NO_WILD else WEIGHTS:
        w = np.zeros((B, n_clusters))
        w[:, keep] = wild_draws(rng, kind, int(keep.sum()))
        out[f"WCR-{kind}"] = wcr_interval(x, d, w, theta, se_r, bounds)
        if kind == "R":
            out["WCU-R"] = wcu_interval(rt, x, d, w, bounds)
    return out


def check_public(y, score, pred, cluster, found):
    """``auto before`` is the public path's auto interval of accuracy, ROC AUC and log
    loss (first data set of a cell)."""
    for name in [n for n in ("accuracy", "roc_auc", "log_loss") if n in found]:
        other = score if name in ("roc_auc", "log_loss") else pred
        iv = db.interval(name, y, other, clusters=cluster)
        low, high = found[name]
        assert abs(iv.low - low) < 1e-9 and abs(iv.high - high) < 1e-9, (name, iv, low, high)


def run(cells, n_sim):
    print(f"# {n_sim} data sets per cell; truth on 4000000 population rows; wild "
          f"bootstrap {B} draws")
    print("| cell | metric | interval | coverage % | mean width | median width | "
          "data sets |")
    print("|---|---|---|---|---|---|---|")
    seeds = np.random.SeedSequence(20240936)
    children = seeds.spawn(len(GRID))
    for cell in cells:
        start = time.perf_counter()
        parts = cell.split("/")
        if parts[0] == "equal":
            n_clusters, rho, informative = int(parts[1]), float(parts[2]), False
            rng = np.random.default_rng([20261205, n_clusters, int(100 * rho)])
        else:
            n_clusters, rho, informative = int(parts[0]), float(parts[1]), parts[2] == "1"
            rng = np.random.default_rng(children[GRID.index((n_clusters, rho, informative))])
        true = truth(rho, informative, 4_000_000)
        wild_rng = np.random.default_rng(7)
        store: dict = {}
        rule: list = []
        for i in range(n_sim):
            if parts[0] == "equal":
                m, z = np.full(n_clusters, 20), np.zeros(n_clusters)
            else:
                m, z = sizes(rng, n_clusters)
            cluster, y, score, pred = rows(rng, m, z, rho, informative)
            if y.min() == y.max():
                continue
            if parts[0] != "equal":
                two_models(rng, m, z, rho, informative)  # the other script's draws
            first = {}
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                for name in METRICS:
                    found = candidates(name, y, score, pred, cluster, n_clusters, wild_rng)
                    for key, b in found.items():
                        if b is None or not np.all(np.isfinite(b)):
                            continue
                        hit = b[0] <= true[name] <= b[1]
                        store.setdefault((name, key), []).append((hit, b[1] - b[0]))
                    if "auto before" in found:
                        first[name] = found["auto before"]
                    if name == "f1" and found:
                        index = ClusterIndex(cluster.astype(np.intp), n_clusters)
                        terms = cluster_terms_of("f1", y, pred, None, {}, index)
                        fires = unequal_sizes(terms)
                        iv = db.interval("f1", y, pred, clusters=cluster)
                        want = found["CR3-g dfC" if fires else "auto before"]
                        assert abs(iv.low - want[0]) < 1e-9 and \
                            abs(iv.high - want[1]) < 1e-9, (iv, want)
                        store.setdefault((name, "auto"), []).append(
                            (iv.low <= true[name] <= iv.high, iv.high - iv.low))
                        rows_of = np.bincount(cluster, minlength=n_clusters)
                        rule.append((fires, rows_of.max() / rows_of.sum(),
                                     rows_of.std() / rows_of.mean()))
                if i == 0 and parts[0] != "equal":
                    check_public(y, score, pred, cluster, first)
        for (name, key), vals in store.items():
            a = np.array(vals, dtype=float)
            print(f"| {cell} | {name} | {key} | {100 * a[:, 0].mean():.1f} | "
                  f"{a[:, 1].mean():.4f} | {np.median(a[:, 1]):.4f} | {a.shape[0]} |",
                  flush=True)
        r = np.array(rule, dtype=float)
        if r.size:
            print(f"<!-- {cell}: rule fires in {100 * r[:, 0].mean():.1f}% of data sets; "
                  f"median largest share {np.median(r[:, 1]):.3f}; median CV of sizes "
                  f"{np.median(r[:, 2]):.2f}; {time.perf_counter() - start:.0f} s -->",
                  flush=True)


def main(argv):
    opts = dict(a[2:].split("=", 1) for a in argv[1:] if a.startswith("--") and "=" in a)
    args = [a for a in argv[1:] if not a.startswith("--")]
    n_sim = int(args[0]) if args else 300
    cells = opts.get("cells", "30/0.5/1,50/0.2/1").split(",")
    global METRICS
    METRICS = tuple(opts.get("metrics", ",".join(METRICS)).split(","))
    run(cells, n_sim)


if __name__ == "__main__":
    main(sys.argv)
