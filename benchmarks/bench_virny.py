"""Stability and uncertainty metrics: dartboard against Virny on the same predictions.

Usage: python benchmarks/bench_virny.py [M] [N] [REPEATS] (defaults: 20 5_000 3).

Probabilities of M models on N points (a shared per-point logit plus model noise,
fixed seed), labels at 0.5. Virny's metric functions (``virny.metrics``: ``std``,
``iqr``, ``jitter``, ``label_stability``, ``aleatoric_uncertainty``,
``overall_uncertainty``) take a DataFrame with one row per model and one column per
point; ``dartboard.stability_metrics`` computes all of them (and more) in one call,
so the table times each Virny function, their sum, and the one dartboard call, and
checks that every value agrees (relative tolerance 1e-9). Virny's jitter loops over
the M (M - 1) / 2 model pairs in Python; it dominates its time. dartboard's call is
the best of REPEATS runs; each Virny function runs once (they are slow). Times are CPU
seconds of this process (on a shared machine far less noisy than wall time).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import pandas as pd
from _results import Table, markdown_tables
from _timing import best_wall_and_cpu

from dartboard import stability_metrics

# Virny's name -> dartboard's summary key
PAIRS = {"std": "std", "iqr": "iqr", "jitter": "jitter", "label_stability": "label_stability",
         "aleatoric_uncertainty": "aleatoric", "overall_uncertainty": "total"}


def make_probas(m: int, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    logits = rng.normal(0.0, 2.0, n) + rng.normal(0.0, 0.7, (m, n))
    return 1.0 / (1.0 + np.exp(-logits))


def main(argv: list[str]) -> int:
    m = int(argv[1]) if len(argv) > 1 else 20
    n = int(float(argv[2])) if len(argv) > 2 else 5_000
    repeats = int(argv[3]) if len(argv) > 3 else 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from virny.metrics import stability_metrics as vs
        from virny.metrics import uncertainty_metrics as vu
    probas = make_probas(m, n)
    frame = pd.DataFrame(probas)
    labels = pd.DataFrame((probas >= 0.5).astype(int))
    y_true = pd.DataFrame(np.zeros(n, dtype=int))
    functions = {"std": (vs.std, frame), "iqr": (vs.iqr, frame),
                 "jitter": (vs.jitter, labels), "label_stability": (vs.label_stability, labels),
                 "aleatoric_uncertainty": (vu.aleatoric_uncertainty, frame),
                 "overall_uncertainty": (vu.overall_uncertainty, frame)}
    _, t_db, result = best_wall_and_cpu(lambda: stability_metrics(probas), repeats)
    print(f"{m} models x {n:,} points; dartboard: best of {repeats}, Virny: one run\n")
    print("| metric | Virny CPU s | dartboard value | Virny value | same |")
    print("|---|---|---|---|---|")
    total, agree = 0.0, True
    for name, (fn, data) in functions.items():
        start = time.process_time()
        value = float(fn(y_true, data))
        seconds = time.process_time() - start
        total += seconds
        ours = float(result.summary[PAIRS[name]])
        same = bool(np.isclose(ours, value, rtol=1e-9, atol=1e-12))
        agree &= same
        print(f"| {name} | {seconds:.3f} | {ours:.10g} | {value:.10g} | "
              f"{'yes' if same else 'NO'} |", flush=True)
    print(f"\n| Virny, all six: CPU s | dartboard stability_metrics: CPU s | ratio |\n|---|---|---|\n"
          f"| {total:.3f} | {t_db:.4f} | {total / t_db:.0f}x |")
    return 0 if agree else 1


def render(log: str) -> list[Table]:
    """The per-metric table and the total of a run's log."""
    (head, *rows), (total_head, *total) = markdown_tables(log)[:2]
    size = log.split("\n# finished")[0].splitlines()
    setting = next(line for line in size if "models x" in line)
    return [Table("speed_virny", f"dartboard against Virny: {setting}",
                  total_head, total),
            Table("speed_virny_values", "dartboard against Virny: the values", head, rows)]


if __name__ == "__main__":
    sys.exit(main(sys.argv))
