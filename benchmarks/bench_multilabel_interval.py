"""Bootstrap interval of a multilabel count metric: per-sample label patterns against
row resampling, in the same run.

Usage: python benchmarks/bench_multilabel_interval.py [N] [N_LABELS] [RESAMPLES] [ROW_RESAMPLES]
(defaults: 1_000_000 20 2000 20). Labels are sparse, as in tagging data: label l
has prevalence between 1 % and 30 % (geometric in l), and each (sample, label)
prediction is wrong with probability 3 %; the number of distinct per-sample
patterns G is printed, since the pattern bootstrap costs O(G L) per resample and
row resampling O(n L).

dartboard's path: ``dartboard.interval(f1_score, ..., average="macro")`` with
RESAMPLES percentile resamples. Row resampling: the same metric passed as a user
callable (index resampling in memory-bounded batches), timed over ROW_RESAMPLES
resamples and scaled linearly to RESAMPLES (its cost per resample is constant);
both as wall clock, CPU seconds beside them.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
from _timing import best_wall_and_cpu

import dartboard
from dartboard._kernels._multilabel import IndicatorPatterns
from dartboard.metrics import f1_score


def make_data(n, n_labels, seed):
    rng = np.random.default_rng(seed)
    prevalence = np.geomspace(0.01, 0.3, n_labels)
    y_true = rng.random((n, n_labels)) < prevalence
    wrong = rng.random((n, n_labels)) < 0.03
    return y_true, y_true ^ wrong


def by_rows(y_true, y_pred, **kw):  # a user callable: dartboard resamples its rows
    return f1_score(y_true, y_pred, **kw)


def main(argv):
    n = int(float(argv[1])) if len(argv) > 1 else 1_000_000
    n_labels = int(argv[2]) if len(argv) > 2 else 20
    resamples = int(argv[3]) if len(argv) > 3 else 2000
    row_resamples = int(argv[4]) if len(argv) > 4 else 20
    y_true, y_pred = make_data(n, n_labels, 0)
    groups = IndicatorPatterns.build(y_true, y_pred, None).size.shape[0]
    print(f"{n:_} samples x {n_labels} labels, {groups:_} distinct patterns; macro F1, "
          f"percentile interval")
    kw = dict(average="macro", method="percentile", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_fast, c_fast, iv = best_wall_and_cpu(
            lambda: dartboard.interval(f1_score, y_true, y_pred, n_resamples=resamples, **kw))
        t_rows, c_rows, iv_rows = best_wall_and_cpu(
            lambda: dartboard.interval(by_rows, y_true, y_pred, n_resamples=row_resamples,
                                       **kw))
    scale = resamples / row_resamples
    print(f"patterns:      {t_fast:8.2f} s (cpu {c_fast:.2f}) for {resamples} resamples, "
          f"[{iv.low:.5f}, {iv.high:.5f}], se {iv.standard_error:.2e}")
    print(f"row resampling: {t_rows * scale:8.2f} s (cpu {c_rows * scale:.2f}) for "
          f"{resamples} resamples (measured {t_rows:.2f} s over {row_resamples}), se "
          f"{iv_rows.standard_error:.2e}")
    print(f"ratio: {t_rows * scale / t_fast:.1f}x (cpu {c_rows * scale / c_fast:.1f}x)")


if __name__ == "__main__":
    main(sys.argv)
