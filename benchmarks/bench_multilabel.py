"""multilabel_confusion_matrix (and the multilabel count metrics): dartboard against
scikit-learn on the same data, in the same run.

Usage: python benchmarks/bench_multilabel.py [N] [N_LABELS] [REPEATS]
(defaults: 10_000_000 5 3). Indicator arrays are int64 0/1 with a fixed seed, about
80 % of the entries predicted right. Each timing is the best of REPEATS runs (wall
clock; CPU seconds beside it, less noisy on a shared machine).
Target (issue 14): multilabel_confusion_matrix at least 20x scikit-learn, same values.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import sklearn.metrics as skm
from _timing import best_wall_and_cpu

import dartboard.metrics as dm

TARGET = 20.0
CASES = [
    ("multilabel_confusion_matrix", "multilabel_confusion_matrix", {}),
    ("f1 (micro)", "f1_score", {"average": "micro"}),
    ("f1 (macro)", "f1_score", {"average": "macro"}),
    ("precision (samples)", "precision_score", {"average": "samples"}),
    ("jaccard (samples)", "jaccard_score", {"average": "samples"}),
    ("accuracy (subset)", "accuracy_score", {}),
]


def make_data(n, n_labels, seed):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 2, (n, n_labels), dtype=np.int64)
    flip = rng.random((n, n_labels)) < 0.2
    return y_true, np.where(flip, 1 - y_true, y_true)


def main(argv):
    n = int(float(argv[1])) if len(argv) > 1 else 10_000_000
    n_labels = int(argv[2]) if len(argv) > 2 else 5
    repeats = int(argv[3]) if len(argv) > 3 else 3
    y_true, y_pred = make_data(n, n_labels, 0)
    print(f"{n:_} samples x {n_labels} labels, best of {repeats}")
    print(f"{'metric':28s} {'dartboard s':>12s} {'(cpu)':>7s} {'sklearn s':>10s} {'(cpu)':>7s} "
          f"{'ratio':>7s} {'cpu ratio':>9s}  same")
    ok = True
    for label, name, kw in CASES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_db, c_db, v_db = best_wall_and_cpu(
                lambda: getattr(dm, name)(y_true, y_pred, **kw), repeats)
            t_sk, c_sk, v_sk = best_wall_and_cpu(
                lambda: getattr(skm, name)(y_true, y_pred, **kw), repeats)
        same = np.allclose(np.asarray(v_db, float), np.asarray(v_sk, float), rtol=1e-12,
                           atol=1e-12)
        ratio = t_sk / t_db
        print(f"{label:28s} {t_db:12.3f} {c_db:7.3f} {t_sk:10.3f} {c_sk:7.3f} {ratio:6.1f}x "
              f"{c_sk / c_db:8.1f}x  {same}")
        ok &= same
        if name == "multilabel_confusion_matrix":
            ok &= ratio >= TARGET
    print(f"target {TARGET:.0f}x on multilabel_confusion_matrix, same values: "
          f"{'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main(sys.argv)
