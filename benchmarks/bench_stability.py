"""Stability metrics: O(m n) label counting against the pairwise jitter, same run.

Usage: python benchmarks/bench_stability.py [M] [N] [REPEATS] [AUDIT_MODELS] [N_JOBS]
(defaults: 200 100_000 3 50 2).

1. Probabilities of M models on N points (a shared per-point logit plus model
   noise, fixed seed). The peer is the straightforward pairwise jitter: labels
   thresholded once, then a loop over the M (M - 1) / 2 model pairs, each pair
   vectorised over the points, accumulating per-point disagreements. dartboard
   computes the same per-point jitter from per-point label counts; the table
   gives that step alone and the whole ``stability_metrics`` call (which adds
   label stability, std, IQR, variance and three entropies per point).
   Target (issue 7): peer / dartboard at least 50x, per-point values equal.
2. Wall time of a full ``stability_audit`` of AUDIT_MODELS standardised
   LogisticRegression models on scikit-learn's breast-cancer data (70/30
   split), N_JOBS workers.
Timings are the best of REPEATS runs (the pairwise peer runs once: it is slow).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _timing import best_time

from dartboard import stability_audit, stability_metrics
from dartboard.stability import _label_counts

TARGET = 50.0


def make_probas(m, n, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.normal(0.0, 2.0, n)
    logits = base + rng.normal(0.0, 0.7, (m, n))
    return 1.0 / (1.0 + np.exp(-logits))


def pairwise_jitter(probas, threshold=0.5):
    """Per-point jitter by looping over every pair of models."""
    labels = probas >= threshold
    m, n = labels.shape
    disagree = np.zeros(n, dtype=np.int64)
    for a in range(m):
        for b in range(a + 1, m):
            disagree += labels[a] != labels[b]
    return disagree / (m * (m - 1) / 2)


def counted_jitter(probas, threshold=0.5):
    """dartboard's step: per-point label counts, (m^2 - sum_c k_c^2) / (m (m - 1))."""
    m = probas.shape[0]
    k = _label_counts(probas, threshold)
    return (m * m - np.einsum("ij,ij->i", k, k)) / (m * (m - 1))


def main(argv):
    m = int(argv[1]) if len(argv) > 1 else 200
    n = int(argv[2]) if len(argv) > 2 else 100_000
    repeats = int(argv[3]) if len(argv) > 3 else 3
    audit_models = int(argv[4]) if len(argv) > 4 else 50
    n_jobs = int(argv[5]) if len(argv) > 5 else 2

    probas = make_probas(m, n)
    t_peer, j_peer = best_time(lambda: pairwise_jitter(probas), 1)
    t_count, j_count = best_time(lambda: counted_jitter(probas), repeats)
    t_full, res = best_time(lambda: stability_metrics(probas), repeats)
    j_full = res.per_point["jitter"].to_numpy()

    print(f"stability metrics, m = {m} models, n = {n:,} points "
          f"({m * (m - 1) // 2:,} model pairs)")
    print(f"{'what':<44}{'seconds':>10}{'peer/this':>11}  {'max |diff| per point':>21}")
    print(f"{'pairwise jitter (peer, loop over pairs)':<44}{t_peer:>10.4f}{'1.0':>11}")
    ok = True
    for label, t, values in (("dartboard jitter from label counts", t_count, j_count),
                             ("dartboard stability_metrics (all metrics)", t_full, j_full)):
        diff = float(np.max(np.abs(values - j_peer)))
        ok &= diff < 1e-12
        print(f"{label:<44}{t:>10.4f}{t_peer / t:>10.1f}x  {diff:>21.2e}")
    print(f"mean jitter: peer {j_peer.mean():.6f}, dartboard {res.summary['jitter']:.6f}; "
          f"values agree: {ok}")
    ratio = t_peer / t_count
    print(f"target >= {TARGET:.0f}x for the jitter: {ratio:.1f}x "
          f"({'met' if ratio >= TARGET else 'NOT met'}); whole stability_metrics: "
          f"{t_peer / t_full:.1f}x")

    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0,
                                              stratify=y)
    pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    start = time.perf_counter()
    audit = stability_audit(pipe, X_tr, y_tr, X_te, y_te, n_estimators=audit_models,
                            random_state=0, n_jobs=n_jobs)
    t_audit = time.perf_counter() - start
    s = audit.summary
    print()
    print(f"stability_audit: {audit_models} x StandardScaler+LogisticRegression on breast "
          f"cancer ({len(y_tr)} train / {len(y_te)} test rows), n_jobs={n_jobs}: "
          f"{t_audit:.2f} s wall")
    print(f"  label stability {s['label_stability']:.4f}, jitter {s['jitter']:.4f}, "
          f"accuracy {s['accuracy']:.4f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
