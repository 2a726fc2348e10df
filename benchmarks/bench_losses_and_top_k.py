"""Benchmark: the metrics added for scikit-learn coverage, dartboard vs scikit-learn.

Usage: python benchmarks/bench_losses_and_top_k.py [n_samples] [repeats]
(or env DARTBOARD_BENCH_N / DARTBOARD_BENCH_REPEATS); default 10,000,000 rows.

Targets (issue 14): the count losses (Hamming, zero-one, Jaccard; multilabel on
n x 5 indicators) at least 20x scikit-learn; top-k accuracy and the regression
additions at least as fast as scikit-learn and within 2x of one numpy pass, the
time of ``np.mean(np.abs(y_true - y_pred))`` (printed as the floor). For the
losses built on logarithms and powers the same formula written as one numpy
expression is printed too ("formula"), and the time of one ``np.log1p`` over
y_true: there the transcendental functions, not the memory passes, set the floor
(the squared log error takes two log1p, a Tweedie power two powers). Top-k
accuracy is also given against one pass (a sum) over its n x 4 score matrix. Each timing is the best of ``repeats`` runs
(scikit-learn: fewer when slow); values must agree to 1e-10 (relative).
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import sklearn
import sklearn.metrics as skm
from _timing import best_wall_and_cpu

import dartboard
import dartboard.metrics as dbm


def agree(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.allclose(a, b, rtol=1e-10, atol=1e-12, equal_nan=True))


def _formulas(t, p):
    """Each regression loss as one plain numpy expression (the same arithmetic)."""
    e = None

    def pinball():
        nonlocal e
        e = t - p
        return np.mean(np.maximum(0.3 * e, -0.7 * e))
    return {
        "mean_squared_log_error": lambda: np.mean((np.log1p(t) - np.log1p(p)) ** 2),
        "root_mean_squared_log_error":
            lambda: np.sqrt(np.mean((np.log1p(t) - np.log1p(p)) ** 2)),
        "mean_pinball_loss": pinball,
        "mean_poisson_deviance":
            lambda: np.mean(2 * (t * np.log(t / p) - t + p)),
        "mean_gamma_deviance": lambda: np.mean(2 * (np.log(p / t) + t / p - 1)),
        "mean_tweedie_deviance": lambda: np.mean(2 * (
            t ** 0.5 / 0.25 - t * p ** -0.5 / -0.5 + p ** 0.5 / 0.5)),
    }


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else int(os.environ.get("DARTBOARD_BENCH_N",
                                                                       10_000_000))
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else int(
        os.environ.get("DARTBOARD_BENCH_REPEATS", 3))
    rng = np.random.default_rng(0)
    y5 = rng.integers(0, 5, n)
    p5 = np.where(rng.random(n) < 0.7, y5, rng.integers(0, 5, n))
    yb = (y5 > 2).astype(np.int64)
    pb = (p5 > 2).astype(np.int64)
    ml_true = rng.integers(0, 2, (n, 5), dtype=np.int8)
    ml_pred = np.where(rng.random((n, 5)) < 0.9, ml_true, 1 - ml_true).astype(np.int8)
    score4 = rng.random((n, 4))
    y4 = rng.integers(0, 4, n)
    target = rng.gamma(2.0, 2.0, n) + 0.1  # strictly positive: every deviance applies
    pred = target * np.exp(rng.normal(0.0, 0.3, n))

    print(f"dartboard {dartboard.__version__} vs scikit-learn {sklearn.__version__}, "
          f"n = {n:,}, best of {repeats} (machine may be shared: timings are noisy)\n")
    header = f"{'metric':40s} {'dartboard':>11s} {'sklearn':>11s} {'speed-up':>9s} " \
             f"{'(cpu)':>7s}  {'target':>7s}  values"
    print(header)
    print("-" * len(header))
    cases = [
        ("hamming_loss (5 classes)", (y5, p5), {}, 20),
        ("zero_one_loss (5 classes)", (y5, p5), {}, 20),
        ("jaccard_score (binary)", (yb, pb), {}, 20),
        ("jaccard_score (5 classes, macro)", (y5, p5), {"average": "macro"}, 20),
        ("hamming_loss (multilabel n x 5)", (ml_true, ml_pred), {}, 20),
        ("zero_one_loss (multilabel n x 5)", (ml_true, ml_pred), {}, 20),
        ("top_k_accuracy_score (4 classes, k=2)", (y4, score4), {"k": 2}, 1),
        ("mean_squared_log_error", (target, pred), {}, 1),
        ("root_mean_squared_log_error", (target, pred), {}, 1),
        ("mean_pinball_loss (alpha=0.3)", (target, pred), {"alpha": 0.3}, 1),
        ("mean_poisson_deviance", (target, pred), {}, 1),
        ("mean_gamma_deviance", (target, pred), {}, 1),
        ("mean_tweedie_deviance (power=1.5)", (target, pred), {"power": 1.5}, 1),
        ("d2_tweedie_score (power=1.5)", (target, pred), {"power": 1.5}, 1),
        ("d2_pinball_score (alpha=0.3)", (target, pred), {"alpha": 0.3}, 1),
        ("d2_absolute_error_score", (target, pred), {}, 1),
    ]
    floor, floor_cpu, _ = best_wall_and_cpu(lambda: np.mean(np.abs(target - pred)),
                                            repeats + 2)
    # the floors of the transcendental losses and of top-k: np.log1p of y_true alone,
    # and one numpy pass over the n x 4 score matrix
    scratch = np.empty(n)
    log_floor, log_floor_cpu, _ = best_wall_and_cpu(
        lambda: np.log1p(target, out=scratch), repeats + 2)
    score_pass, score_pass_cpu, _ = best_wall_and_cpu(lambda: score4.sum(), repeats + 2)
    formulas = _formulas(target, pred)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, args, kwargs, goal in cases:
            name = label.split(" ")[0]
            ours_t, ours_c, ours_v = best_wall_and_cpu(
                lambda: getattr(dbm, name)(*args, **kwargs), repeats)
            theirs_t, theirs_c, theirs_v = best_wall_and_cpu(
                lambda: getattr(skm, name)(*args, **kwargs), max(1, repeats - 1))
            ok = agree(ours_v, theirs_v)
            print(f"{label:40s} {ours_t * 1e3:9.1f}ms {theirs_t * 1e3:9.1f}ms "
                  f"{theirs_t / ours_t:8.2f}x {theirs_c / ours_c:6.2f}x  {f'>= {goal}x':>7s}  "
                  f"{'agree' if ok else 'DIFFER'}")
            rows.append((label, name, ours_t, ours_c, goal))

    print(f"\nnumpy one-pass floor np.mean(np.abs(y_true - y_pred)): {floor * 1e3:.1f} ms "
          f"(cpu {floor_cpu * 1e3:.1f} ms)")
    print(f"{'metric':40s} {'/ floor':>8s} {'(cpu)':>7s}  {'formula':>9s} {'/ formula':>10s}")
    for label, name, ours_t, ours_c, goal in rows:
        if goal != 1:
            continue
        same = ""
        if name in formulas:
            f_t, _, _ = best_wall_and_cpu(formulas[name], repeats)
            same = f"{f_t * 1e3:7.1f}ms {ours_t / f_t:9.2f}x"
        print(f"{label:40s} {ours_t / floor:7.2f}x {ours_c / floor_cpu:6.2f}x  {same}")
    print("(top-k accuracy reads n x 4 scores: its floor is four times the data of the "
          "two-column floor; D^2 pinball and absolute error need a quantile of y_true, "
          "a sort)")
    print(f"\nnp.log1p(y_true): {log_floor * 1e3:.1f} ms (cpu {log_floor_cpu * 1e3:.1f} ms); "
          f"one pass over the scores (sum): {score_pass * 1e3:.1f} ms "
          f"(cpu {score_pass_cpu * 1e3:.1f} ms)")
    print(f"{'metric':40s} {'/ log1p':>8s} {'(cpu)':>7s}")
    for label, name, ours_t, ours_c, goal in rows:
        if name.startswith("top_k"):
            print(f"{label:40s} {ours_t / score_pass:7.2f}x {ours_c / score_pass_cpu:6.2f}x"
                  "  (/ one pass over the scores)")
        elif name in formulas and name != "mean_pinball_loss":
            print(f"{label:40s} {ours_t / log_floor:7.2f}x {ours_c / log_floor_cpu:6.2f}x")


if __name__ == "__main__":
    main()
