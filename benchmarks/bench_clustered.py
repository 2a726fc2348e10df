"""Benchmark: the bootstrap of whole clusters at a million rows.

dartboard: :func:`dartboard.evaluate` with ``clusters=`` and ten count metrics, 2000
resamples, 1,000,000 rows in 10,000 clusters (target: under 2 s), and the clustered
interval of ROC AUC on the same rows (target: under 5 s; ``auto`` picks the clustered
analytic interval where there is one, else the bootstrap of whole clusters). Peer:
the cluster bootstrap users write by hand (draw clusters, gather their rows, call
scikit-learn's metric), timed in the same run on fewer resamples and given per
resample. Both report the same point estimates.

Usage: python benchmarks/bench_clustered.py [n] [n_clusters] [peer_resamples]
(defaults 1000000 10000 10).
"""

from __future__ import annotations

import sys

import numpy as np
from _timing import best_wall_and_cpu
from sklearn import metrics as skm

import dartboard

COUNT_METRICS = ["accuracy", "balanced_accuracy", "precision", "recall", "specificity", "f1",
                 "negative_predictive_value", "matthews_corrcoef", "jaccard", "cohen_kappa"]


def _data(n: int, n_clusters: int, seed: int = 0):
    """Binary labels and scores sharing a cluster effect (intra-cluster correlation)."""
    rng = np.random.default_rng(seed)
    cluster = rng.integers(0, n_clusters, n)
    effect = rng.normal(0, 1, n_clusters)[cluster]
    y = (rng.random(n) < 1 / (1 + np.exp(-effect))).astype(int)
    score = effect + rng.normal(0, 1, n) + y
    return cluster, y, score, (score > 0.5).astype(int)


def _by_hand(y, other, cluster, metric, n_resamples, seed=0):
    """The usual hand-written cluster bootstrap: gather each replicate's rows."""
    rng = np.random.default_rng(seed)
    order = np.argsort(cluster, kind="stable")
    bounds = np.searchsorted(cluster[order], np.arange(cluster.max() + 2))
    members = [order[bounds[c]:bounds[c + 1]] for c in range(cluster.max() + 1)]
    values = []
    for _ in range(n_resamples):
        rows = np.concatenate([members[k] for k in rng.integers(0, len(members), len(members))])
        values.append(metric(y[rows], other[rows]))
    return np.percentile(values, [2.5, 97.5])


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    n_clusters = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    peer_resamples = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    resamples = 2000
    cluster, y, score, pred = _data(n, n_clusters)
    dartboard.evaluate(y[:2000], y_pred=pred[:2000], clusters=cluster[:2000],
                       n_resamples=50, random_state=0)  # imports and first calls

    wall, cpu, result = best_wall_and_cpu(lambda: dartboard.evaluate(
        y, y_pred=pred, metrics=COUNT_METRICS, clusters=cluster, ci="bca",
        n_resamples=resamples, random_state=0), repeats=3)
    auto_wall, auto_cpu, auto = best_wall_and_cpu(lambda: dartboard.evaluate(
        y, y_pred=pred, metrics=COUNT_METRICS, clusters=cluster, random_state=0), repeats=3)
    peer_wall, peer_cpu, _ = best_wall_and_cpu(lambda: [
        _by_hand(y, pred, cluster, skm.accuracy_score, peer_resamples) for _ in range(1)])
    per_peer = peer_wall / peer_resamples * len(COUNT_METRICS)
    frame = result.to_frame()
    print(f"{n:,} rows in {n_clusters:,} clusters; {resamples} resamples")
    print(f"evaluate, {len(COUNT_METRICS)} count metrics, BCa over whole clusters: "
          f"{wall:.2f} s wall ({cpu:.2f} s CPU); target < 2 s")
    print(f"  by hand (scikit-learn per replicate): {per_peer * 1000:.1f} ms per resample "
          f"for the {len(COUNT_METRICS)} metrics (timed on {peer_resamples}, accuracy only, "
          f"times {len(COUNT_METRICS)}); {per_peer * resamples:.0f} s for {resamples}: "
          f"ratio {per_peer * resamples / wall:.0f}x")
    print(frame[["metric", "estimate", "low", "high", "method"]].to_string(index=False))
    print(f"evaluate, the same metrics, ci='auto' (cluster-robust where it applies): "
          f"{auto_wall:.2f} s wall ({auto_cpu:.2f} s CPU)")
    print(auto.overall[["low", "high", "method", "design_effect"]].to_string())

    for method in ("auto", "bca"):  # auto: Obuchowski's clustered DeLong
        n_res = resamples if method == "auto" else 200
        wall, cpu, iv = best_wall_and_cpu(lambda m=method, r=n_res: dartboard.interval(
            "roc_auc", y, score, clusters=cluster, method=m, n_resamples=r, random_state=0))
        print(f"ROC AUC, method={method!r} ({n_res} resamples where it resamples): "
              f"{wall:.2f} s wall ({cpu:.2f} s CPU); {iv.method}: {iv.estimate:.4f} "
              f"[{iv.low:.4f}, {iv.high:.4f}]"
              + ("; target < 5 s" if method == "auto" else "; O(rows) per resample"))
    print(f"  scikit-learn's roc_auc_score: {skm.roc_auc_score(y, score):.4f}")


if __name__ == "__main__":
    main()
