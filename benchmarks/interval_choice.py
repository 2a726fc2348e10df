"""Coverage of each candidate interval per metric, n and class balance (not run in CI).

This is the measurement behind the registry's ``auto_interval`` (what
``method="auto"`` picks by sample size). For each cell, ``sims`` test sets are
drawn from a known population and the script counts how often the 95% interval
contains the population value. Monte-Carlo error of a coverage near 95%:
+-1.4 points (2 SE) with 1000 sets, +-1.9 with 500.

Populations
- ranking metrics: binormal scores, negatives N(0, 1), positives N(d, 1) with
  d = 1.528 (AUC = Phi(d / sqrt 2) = 0.86), 10% and 50% positives (the number
  of positives is Binomial(n, prevalence); the "6 pos" row fixes 6 positives of
  60). Population AP (= limit of the trapezoidal PR AUC) by quadrature. ROC AUC
  also at AUC 0.70 and 0.95 (``auc3``: d = sqrt(2) Phi^-1(AUC)), where the
  candidates include ``delong-logit-tmin``, a variant measured here only: DeLong
  on the logit scale with Student's t at min(m, n) - 1 degrees of freedom (the
  smaller class) instead of the Welch-Satterthwaite ones.
- log loss and Brier: y ~ Bernoulli(prevalence), probability
  expit(logit(prevalence) - 0.8 + d (y - prevalence) + N(0, 1)) (miscalibrated on
  purpose); population values from 4 million draws.
- MAE, MSE, RMSE: errors N(0, 1) and Student t(4) (heavy tails); MAPE with
  targets 5 + N(0, 1); population values from 4 million draws.

- multiclass ROC AUC (one-vs-rest macro): three classes, balanced and
  80/10/10, softmax of N(0, 1) scores with +1.2 on the true class; population
  value from 2 million draws; influence-logit and the percentile bootstrap.

The bootstrap candidates run only at the sizes where auto could choose them
(their per-set cost grows with n; the analytic ones cost one pass).

Usage: python benchmarks/interval_choice.py [sims=1000] [resamples=1000]
       [sections=auc,pr,mean,multiclass; also auc3, auc3edge, auc10, auc6, pr10, mean10, regression]
       [auc methods=delong,delong-logit,bca; auc3: delong,delong-logit,delong-logit-tmin,
       newcombe]
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from scipy import integrate, special, stats

D = 1.528
LEVEL = 0.95


def _scores(rng, n, prevalence, n_pos=None, d=D):
    m = rng.binomial(n, prevalence) if n_pos is None else n_pos
    m = min(max(m, 1), n - 1)  # the metric needs both classes
    y = np.zeros(n, dtype=int)
    y[:m] = 1
    s = rng.normal(size=n) + d * y
    return y, s


def _delong_logit_tmin(y, s, level):
    """DeLong on the logit scale with t at min(m, n) - 1 df (a candidate, not a method)."""
    from dartboard._delong import delong_terms
    from dartboard._kernels._analytic import logit_interval

    auc, term_pos, term_neg, m, n = delong_terms(y == 1, s)
    spread = auc * (1.0 - auc)
    se_logit = np.sqrt(term_pos + term_neg) / spread if spread > 0 else float("nan")
    return logit_interval(auc, se_logit, level, max(min(m, n) - 1, 1))


#: candidates computed here rather than by dartboard.interval
_LOCAL = {"delong-logit-tmin": _delong_logit_tmin}


def _population_ap(prevalence):
    def integrand(t):
        tpr, fpr = special.ndtr(D - t), special.ndtr(-t)
        return prevalence * tpr / (prevalence * tpr + (1 - prevalence) * fpr) * \
            stats.norm.pdf(t - D)
    return integrate.quad(integrand, -12, 12, limit=400)[0]


def _cover(iv, truth):
    return iv.low <= truth <= iv.high, iv.high - iv.low


def _run(label, make, metric, truth, methods, sims, resamples, seed):
    import dartboard as db

    rng = np.random.default_rng(seed)
    hits = dict.fromkeys(methods, 0)
    width = dict.fromkeys(methods, 0.0)
    start = time.perf_counter()
    for i in range(sims):
        y, other = make(rng)
        for m in methods:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if m in _LOCAL:
                    low, high = _LOCAL[m](y, other, LEVEL)
                    h, w = low <= truth <= high, high - low
                    hits[m] += h
                    width[m] += w
                    continue
                iv = db.interval(metric, y, other, method=m, n_resamples=resamples,
                                 random_state=seed * 100_003 + i)
            h, w = _cover(iv, truth)
            hits[m] += h
            width[m] += w
    cells = "  ".join(f"{m:>15} {100 * hits[m] / sims:5.1f}% ({width[m] / sims:.3f})"
                      for m in methods)
    print(f"{label:<34} {cells}   [{time.perf_counter() - start:.0f}s]", flush=True)


def auc_section(sims, resamples, balances=(0.5, 0.1), methods=("delong", "delong-logit", "bca"),
                fixed_only=False):
    from dartboard.metrics import roc_auc_score

    truth = float(special.ndtr(D / np.sqrt(2)))
    print(f"\nROC AUC (population {truth:.4f}); coverage % (mean width)")
    cells = [(0.5, 60, None), (0.5, 200, None), (0.5, 1000, None),
             (0.1, 60, None), (0.1, 200, None), (0.1, 1000, None), (None, 60, 6)]
    for prev, n, fixed in [c for c in cells if (c[0] or 0.1) in balances
                           and (c[2] or not fixed_only)]:
        label = f"n={n:<5} 6 pos (10%)" if fixed else f"n={n:<5} {100 * prev:.0f}% positives"
        _run(label, lambda rng, n=n, prev=prev, fixed=fixed: _scores(rng, n, prev or 0.1, fixed),
             roc_auc_score, truth, methods, sims, resamples, n + int(100 * (prev or 0)))


AUC3_CELLS = [(0.1, 60, None), (0.1, 200, None), (0.1, 1000, None), (0.5, 60, None),
              (0.5, 200, None), (0.5, 1000, None), (None, 60, 6)]
#: where auto's thresholds fall: fixed numbers of positives at 10%, and ~200 positives
EDGE_CELLS = [(None, 100, 10), (None, 200, 20), (None, 300, 30), (None, 500, 50),
              (0.1, 2000, None)]


def auc3_section(sims, methods=("delong", "delong-logit", "delong-logit-tmin", "newcombe"),
                 cells=AUC3_CELLS):
    """ROC AUC at population AUC 0.70, 0.86 and 0.95, 10% and 50% positives."""
    from dartboard.metrics import roc_auc_score

    for auc in (0.70, 0.86, 0.95):
        d = float(np.sqrt(2.0) * special.ndtri(auc))
        print(f"\nROC AUC {auc:.2f} (d = {d:.3f}); coverage % (mean width)")
        for prev, n, fixed in cells:
            label = f"n={n:<5} {fixed} pos (10%)" if fixed else \
                f"n={n:<5} {100 * prev:.0f}% positives"
            _run(label, lambda rng, n=n, prev=prev, fixed=fixed, d=d:
                 _scores(rng, n, prev or 0.1, fixed, d), roc_auc_score, auc, methods, sims, 1,
                 n + int(100 * (prev or 0)) + int(1000 * auc))


def pr_section(sims, resamples, balances=(0.5, 0.1)):
    from dartboard.metrics import average_precision_score, pr_auc_score

    for prev in balances:
        truth = _population_ap(prev)
        print(f"\nAP and PR AUC, {100 * prev:.0f}% positives (population {truth:.4f})")
        for metric in (average_precision_score, pr_auc_score):
            for n in (60, 200, 1000, 5000):
                methods = ("logit", "influence-logit") + (("bca",) if n <= 1000 else ())
                _run(f"{metric.__name__[:17]} n={n}",
                     lambda rng, n=n, prev=prev: _scores(rng, n, prev), metric, truth,
                     methods, sims, resamples, n + int(100 * prev))


def _multiclass(rng, n, weights):
    y = rng.choice(len(weights), size=n, p=weights)
    y[:len(weights)] = np.arange(len(weights))  # every class present
    z = rng.normal(size=(n, len(weights)))
    z[np.arange(n), y] += 1.2
    p = np.exp(z)
    return y, p / p.sum(axis=1, keepdims=True)


def multiclass_section(sims, resamples):
    import dartboard as db
    from dartboard.metrics import roc_auc_score

    def metric(a, b):
        return roc_auc_score(a, b, multi_class="ovr")

    for weights in ((1 / 3, 1 / 3, 1 / 3), (0.8, 0.1, 0.1)):
        y, p = _multiclass(np.random.default_rng(7), 2_000_000, weights)
        truth = float(metric(y, p))
        print(f"\nmulticlass ROC AUC (ovr, macro), classes {weights} (population {truth:.4f})")
        for n in (60, 200, 1000, 5000):
            rng = np.random.default_rng(n)
            methods = ("influence-logit",) + (("percentile",) if n <= 200 else ())
            hits = dict.fromkeys(methods, 0)
            for i in range(sims):
                y, p = _multiclass(rng, n, weights)
                for m in methods:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        iv = db.interval(roc_auc_score, y, p, method=m, multi_class="ovr",
                                         n_resamples=resamples, random_state=i)
                    hits[m] += iv.low <= truth <= iv.high
            print(f"n={n:<6}" + "  ".join(f"{m:>15} {100 * hits[m] / sims:5.1f}%"
                                          for m in methods), flush=True)


def _proba(rng, n, prev):
    y = (rng.random(n) < prev).astype(int)
    y[:2] = [0, 1]  # both classes present
    p = special.expit(np.log(prev / (1 - prev)) - 0.8 + D * (y - prev) + rng.normal(size=n))
    return y, p


def _regression(rng, n, kind):
    if kind == "mape":
        t = 5.0 + rng.normal(size=n)
        return t, t + rng.normal(size=n)
    t = rng.normal(size=n)
    e = rng.normal(size=n) if kind == "normal" else rng.standard_t(4, size=n)
    return t, t + e


def mean_section(sims, resamples, balances=(0.5, 0.1), regression=True):
    from dartboard.metrics import (
        brier_score_loss,
        log_loss,
        mean_absolute_error,
        mean_absolute_percentage_error,
        mean_squared_error,
        root_mean_squared_error,
    )

    big = np.random.default_rng(7)
    methods = ("t", "bca")
    for prev in balances:
        y, p = _proba(big, 4_000_000, prev)
        for metric in (log_loss, brier_score_loss):
            truth = float(metric(y, p))
            print(f"\n{metric.__name__}, {100 * prev:.0f}% positives (population {truth:.4f})")
            for n in (60, 200, 1000, 5000):
                _run(f"n={n}", lambda rng, n=n, prev=prev: _proba(rng, n, prev), metric,
                     truth, methods if n <= 200 else ("t",), sims, resamples, n)
    for kind in ("normal", "t4", "mape") if regression else ():
        t, q = _regression(big, 4_000_000, kind)
        metrics = (mean_absolute_percentage_error,) if kind == "mape" else \
            (mean_absolute_error, mean_squared_error) + \
            ((root_mean_squared_error,) if kind == "normal" else ())
        for metric in metrics:
            truth = float(metric(t, q))
            print(f"\n{metric.__name__}, errors {kind} (population {truth:.4f})")
            for n in (60, 200, 1000, 5000):
                _run(f"n={n}", lambda rng, n=n, kind=kind: _regression(rng, n, kind), metric,
                     truth, methods if n <= 200 else ("t",), sims, resamples, n)


def main() -> None:
    sims = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    resamples = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    sections = sys.argv[3].split(",") if len(sys.argv) > 3 else ["auc", "pr", "mean",
                                                                  "multiclass"]
    # a fourth argument limits the ROC AUC methods (e.g. delong,delong-logit: seconds)
    auc_methods = tuple(sys.argv[4].split(",")) if len(sys.argv) > 4 else \
        ("delong", "delong-logit", "bca")
    print(f"coverage of 95% intervals: {sims} simulated test sets per cell, "
          f"{resamples} bootstrap resamples")
    for name in sections:
        {"auc": lambda *a: auc_section(*a, methods=auc_methods),
         "auc3": lambda s, r: auc3_section(s, *((auc_methods,) if len(sys.argv) > 4 else ())),
         "auc3edge": lambda s, r: auc3_section(
             s, auc_methods if len(sys.argv) > 4 else ("delong", "delong-logit", "newcombe"),
             EDGE_CELLS),
         "auc6": lambda *a: auc_section(*a, balances=(0.1,), methods=auc_methods,
                                        fixed_only=True), "pr": pr_section, "mean": mean_section,
         "multiclass": multiclass_section,
         "auc10": lambda *a: auc_section(*a, balances=(0.1,), methods=auc_methods),
         "pr10": lambda *a: pr_section(*a, balances=(0.1,)),
         "mean10": lambda *a: mean_section(*a, balances=(0.1,), regression=False),
         "regression": lambda *a: mean_section(*a, balances=())}[name](sims, resamples)


if __name__ == "__main__":
    main()
