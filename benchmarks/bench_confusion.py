"""Count metrics: dartboard against scikit-learn on the same data, in the same run.

Usage: python benchmarks/bench_confusion.py [N_BINARY] [N_MULTICLASS] [REPEATS]
(defaults: 10_000_000 10_000_000 3). Labels are int64 with a fixed seed; the
multiclass task has 10 classes. Each timing is the best of REPEATS runs.
Target (issue 2): every ratio sklearn / dartboard at least 20x, same values.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import sklearn.metrics as skm
from _results import Table
from _timing import best_time

import dartboard.metrics as dm

TARGET = 20.0


def make_data(n, n_classes, seed):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, n_classes, n, dtype=np.int64)
    noise = rng.integers(0, n_classes, n, dtype=np.int64)
    y_pred = np.where(rng.random(n) < 0.8, y_true, noise)
    return y_true, y_pred


def cases(n_classes):
    avg = {} if n_classes == 2 else {"average": "macro"}
    label = "binary" if n_classes == 2 else "macro"
    return [
        ("confusion_matrix", "confusion_matrix", {}),
        ("accuracy_score", "accuracy_score", {}),
        (f"precision ({label})", "precision_score", avg),
        (f"recall ({label})", "recall_score", avg),
        (f"f1 ({label})", "f1_score", avg),
        *([("f1 (macro)", "f1_score", {"average": "macro"})] if n_classes == 2 else []),
        ("matthews_corrcoef", "matthews_corrcoef", {}),
    ]


def run(task, n, n_classes, repeats, seed):
    y_true, y_pred = make_data(n, n_classes, seed)
    rows = []
    for label, name, kw in cases(n_classes):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_db, v_db = best_time(lambda: getattr(dm, name)(y_true, y_pred, **kw), repeats)
            t_sk, v_sk = best_time(lambda: getattr(skm, name)(y_true, y_pred, **kw), repeats)
        same = np.allclose(np.asarray(v_db, float), np.asarray(v_sk, float), rtol=1e-12,
                           atol=1e-12)
        rows.append((task, label, t_db, t_sk, t_sk / t_db, same))
    return rows


def main(argv):
    n_binary = int(float(argv[1])) if len(argv) > 1 else 10_000_000
    n_multi = int(float(argv[2])) if len(argv) > 2 else 10_000_000
    repeats = int(argv[3]) if len(argv) > 3 else 3
    rows = run(f"binary n={n_binary:,}", n_binary, 2, repeats, seed=0)
    rows += run(f"10 classes n={n_multi:,}", n_multi, 10, repeats, seed=1)
    header = f"{'task':<24}{'metric':<22}{'dartboard s':>12}{'sklearn s':>11}" \
             f"{'ratio':>9}{'same':>6}{'>=20x':>7}"
    print(header)
    print("-" * len(header))
    for task, label, t_db, t_sk, ratio, same in rows:
        print(f"{task:<24}{label:<22}{t_db:>12.4f}{t_sk:>11.3f}{ratio:>8.1f}x"
              f"{'yes' if same else 'NO':>6}{'yes' if ratio >= TARGET else 'no':>7}")
    worst = min(r[4] for r in rows)
    print(f"\nbest of {repeats}; smallest ratio {worst:.1f}x (target {TARGET:.0f}x); "
          f"values {'all agree' if all(r[5] for r in rows) else 'DISAGREE'}")
    return 0 if all(r[5] for r in rows) else 1


def render(log: str) -> list[Table]:
    """The timing table of a run's log: one row per task and metric."""
    rows, note = [], []
    for line in log.splitlines():
        if line.startswith(("binary n=", "10 classes n=")):
            rows.append([line[:24].strip(), line[24:46].strip(), *line[46:].split()])
        elif line.startswith("best of"):
            note.append(line)
    return [Table("speed_sklearn", "Count metrics: dartboard against scikit-learn "
                  "(seconds, best of the repeats)", ["task", "metric", "dartboard s",
                  "sklearn s", "ratio", "same values", ">= 20x"], rows, note)]


if __name__ == "__main__":
    sys.exit(main(sys.argv))
