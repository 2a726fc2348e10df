"""The rates at an operating point, and intervals that cover them at a chosen threshold.

A threshold chosen on the data is random through the choice, and what a user who
deploys it needs is the true rate *of that threshold*: ``TPR(t_hat) = P(score >=
t_hat | positive)``, and likewise TNR, precision (at the data's class mix), NPV,
F1 and the expected cost. Three things stand between the data's rates at
``t_hat`` and that truth:

1. Sampling at a fixed threshold: ``TP ~ Binomial(P, TPR(t))`` and ``FP ~
   Binomial(N, FPR(t))``, independent (cases and controls as two samples). TPR
   and TNR get Jeffreys intervals; precision, NPV, F1 and the cost, functions of
   the two rates, the quantiles of their values over draws of the two Jeffreys
   posteriors ``Beta(TP + 1/2, FN + 1/2)`` and ``Beta(FP + 1/2, TN + 1/2)``.
2. The threshold sits on a data point: at the ``j``-th highest of ``P``
   positive scores, ``TPR(t_hat) ~ Beta(j, P - j + 1)`` exactly (an order
   statistic), which is the Jeffreys posterior of ``j - 1/2`` successes. So the
   samples tied at the threshold count one half in the intervals (not in the
   estimates). A constrained choice (``min_recall``) is exactly this case.
3. The choice looks best on the data, so the data's rates at it are optimistic
   (Youden's ``TPR - FPR`` most). The bootstrap measures this: in each
   resample the threshold is chosen again and the resample's rates at its
   choice are compared with the data's rates at that same choice (Efron's
   optimism, 1983), less the same comparison at ``t_hat`` held fixed. The
   interval is the union of the interval of (1-2) and that interval moved by
   the mean optimism ``delta``: ``[min(L, L - delta), max(U, U - delta)]``. The
   bootstrap overstates the optimism where the counts are tiny (a resample has
   fewer distinct scores to choose among): moved by it alone, the TNR interval
   of a cost-optimal threshold with 10 positives in 100 fell far below 95%, so
   the move only widens.

Why not the two simpler constructions: re-choosing the threshold in each
resample and reading the percentiles of the rates there describes the rates
*at each resample's own choice* (a ``min_recall`` choice always has recall
near the target), not the rates of the threshold chosen; a percentile
bootstrap with the threshold held fixed aims at the right quantity (the rates
of the deployed threshold, conditional on the choice) but is a percentile
interval of a small binomial count and ignores (2) and (3).

Measured (``benchmarks/threshold_simulation.py``, binormal, 1000 data sets per
cell at 10/90, 50/50, 100/900 and 500/500 positives/negatives): 93.6-97.4%
coverage of the true rates over all six criteria and rates; re-choosing in each
resample 9.0-100% (the recall of a ``min_recall`` threshold 9-34%), the fixed
threshold's percentile bootstrap 34-95%, (1-2) without the widening 90.1-96.3%.

Nothing predicted positive (``t_hat = inf``): the rates are known exactly (TPR
0, TNR 1, NPV and the cost at the class mix), so the interval is the point.
Non-integer weights are not counts: then the base interval (1-2) is the
percentile bootstrap of the rates at ``t_hat`` held fixed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dartboard._kernels._analytic import proportion_interval
from dartboard.metrics._count_formulas import fbeta, proportion
from dartboard.metrics._registry import get_spec
from dartboard.uncertainty._guarantee import guaranteed

__all__ = ["DRAWS", "METRICS", "choose", "counts_at", "expected_cost", "point_metrics", "rate_bounds",
           "rate_methods", "widen"]

METRICS = ("tpr", "tnr", "precision", "npv", "f1", "expected_cost")
#: posterior draws for the composite rates: their quantiles' Monte Carlo error is a
#: small share of the interval whatever ``n_resamples`` is, at a millisecond's cost
DRAWS = 10_000
_TIE = 1e-12  # criterion values this close count as equal (pROC compares exactly)


def point_metrics(counts: dict[str, np.ndarray], costs: np.ndarray,
                  prevalence: float | None) -> np.ndarray:
    """(..., 6) metrics of METRICS from stacks of tp, fp, fn, tn."""
    out = []
    for name in ("recall_score", "specificity_score", "precision_score"):
        terms = get_spec(name).proportion
        assert terms is not None  # the three are proportions in the registry
        num, den = proportion(terms, counts)
        out.append(_ratio(num, den))
    out.append(_ratio(*proportion(("tn", ("tn", "fn")), counts)))
    num, den = fbeta(1.0, counts)
    out.append(_ratio(num, den))
    out.append(expected_cost(out[0], 1.0 - out[1], counts, costs, prevalence))
    return np.stack(out, axis=-1)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def expected_cost(tpr: np.ndarray, fpr: np.ndarray, counts: dict[str, np.ndarray],
                  costs: np.ndarray, prevalence: float | None) -> np.ndarray:
    """Expected cost per sample at the prevalence (default: the counts' own)."""
    if prevalence is None:
        pos = counts["tp"] + counts["fn"]
        prevalence = pos / (pos + counts["fp"] + counts["tn"])
    (c_tn, c_fp), (c_fn, c_tp) = costs
    return (prevalence * (c_fn * (1.0 - tpr) + c_tp * tpr)
            + (1.0 - prevalence) * (c_fp * fpr + c_tn * (1.0 - fpr)))


def choose(criterion: str, tp: np.ndarray, fp: np.ndarray, target: float,
           costs: np.ndarray, prevalence: float | None,
           critical: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """(b,) chosen candidate index and whether the criterion was met, from (b, G + 1)
    cumulative TP and FP (index 0: nothing positive). ``critical``: the guarantee's
    tests (:func:`~dartboard.uncertainty._guarantee.guaranteed`)."""
    p, n = tp[:, -1:], fp[:, -1:]
    tpr, fpr = tp / p, fp / n
    if criterion == "youden":
        score = tpr - fpr
    elif criterion == "closest_topleft":
        score = -((1.0 - tpr) ** 2 + fpr ** 2)
    elif criterion == "cost":
        counts = {"tp": tp, "fp": fp, "fn": p - tp, "tn": n - fp}
        score = -expected_cost(tpr, fpr, counts, costs, prevalence)
    else:
        if criterion == "min_precision":
            ok = tp >= target * (tp + fp) * (1 - _TIE)
            ok &= tp + fp > 0
            score = tpr
        elif criterion == "min_recall":
            ok, score = tpr >= target - _TIE, -fpr
        else:
            ok, score = fpr <= target + _TIE, tpr
        if critical is not None:
            ok = guaranteed(criterion, tp, fp, critical)
        score = np.where(ok, score, -np.inf)
    best = score.max(axis=1, keepdims=True)
    met = np.isfinite(best[:, 0])
    index = np.argmax(score >= best - _TIE, axis=1)
    return index, met


def counts_at(tp: np.ndarray, fp: np.ndarray, index: np.ndarray, pos: np.ndarray,
              neg: np.ndarray, mid: bool) -> dict[str, np.ndarray]:
    """tp, fp, fn, tn of each row at its candidate ``index`` from (b, G + 1) cumulative
    counts; ``mid``: the (b, G) ``pos``/``neg`` tied at the threshold count one half."""
    rows = np.arange(tp.shape[0])
    t, f = tp[rows, index], fp[rows, index]
    if mid:
        group, on = np.maximum(index - 1, 0), index > 0
        shape = (tp.shape[0], pos.shape[-1])
        t = t - np.where(on, np.broadcast_to(pos, shape)[rows, group], 0.0) / 2.0
        f = f - np.where(on, np.broadcast_to(neg, shape)[rows, group], 0.0) / 2.0
    return {"tp": t, "fp": f, "fn": tp[:, -1] - t, "tn": fp[:, -1] - f}


def rate_bounds(counts: dict[str, float], level: float, costs: np.ndarray,
                prevalence: float | None, rng: np.random.Generator, n_draws: int = DRAWS,
                design_effect: tuple[float, float] = (1.0, 1.0)
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(6,) low, high and standard error of METRICS at a fixed threshold from its
    (mid) counts: Jeffreys intervals of TPR and TNR, Jeffreys posterior draws for
    the rest. ``design_effect``: the positives' and the negatives' (with clusters),
    which divide each class's counts in the posteriors, not the class mix."""
    n_pos, n_neg = counts["tp"] + counts["fn"], counts["fp"] + counts["tn"]
    d_pos, d_neg = design_effect
    tpr = rng.beta(counts["tp"] / d_pos + 0.5, counts["fn"] / d_pos + 0.5, size=n_draws)
    fpr = rng.beta(counts["fp"] / d_neg + 0.5, counts["tn"] / d_neg + 0.5, size=n_draws)
    drawn = point_metrics({"tp": tpr * n_pos, "fn": (1.0 - tpr) * n_pos,
                           "fp": fpr * n_neg, "tn": (1.0 - fpr) * n_neg}, costs, prevalence)
    alpha = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore"):
        low, high = np.nanquantile(drawn, [alpha, 1.0 - alpha], axis=0)
        se = np.nanstd(drawn, axis=0, ddof=1)
    for j, (x, n) in enumerate(((counts["tp"] / d_pos, n_pos / d_pos),
                                (counts["tn"] / d_neg, n_neg / d_neg))):
        low[j], high[j] = proportion_interval(x, n, level, "jeffreys")
        se[j] = np.sqrt(x / n * (1.0 - x / n) / n)
    return low, high, se


def widen(low: np.ndarray, high: np.ndarray, delta: np.ndarray, estimate: np.ndarray,
          costs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union of ``[low, high]`` and ``[low - delta, high - delta]``, holding the
    estimate, within each metric's range."""
    delta = np.nan_to_num(delta)
    low = np.fmin(np.minimum(low, low - delta), estimate)
    high = np.fmax(np.maximum(high, high - delta), estimate)
    floor = np.array([0.0] * 5 + [float(np.min(costs))])
    ceiling = np.array([1.0] * 5 + [float(np.max(costs))])
    return np.clip(low, floor, ceiling), np.clip(high, floor, ceiling)


def rate_methods(integral: bool) -> tuple[str, ...]:
    """The method label of each of METRICS' intervals."""
    base = ("jeffreys",) * 2 + ("jeffreys posterior",) * 4 if integral \
        else ("percentile at the threshold",) * 6
    return tuple(f"{b}, selection-widened" for b in base)
