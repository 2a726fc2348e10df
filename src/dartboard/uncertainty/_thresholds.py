"""Operating points: a threshold chosen from the data, with honest intervals.

:func:`select_threshold` picks the threshold by a criterion and reports, at it,
TPR (sensitivity), TNR (specificity), precision, NPV, F1 and the expected cost.
Every interval bootstraps the whole choice: in each stratified resample (cases
and controls resampled separately, as pROC) the threshold is chosen again and
the metrics are read at that replicate's own choice, so the intervals carry
the optimism of choosing on the same data. :func:`evaluate_threshold` reads a
threshold chosen elsewhere on new data; its intervals are the plain ones
(Wilson for the four proportions, a bootstrap of the confusion matrix for F1
and the cost).

Candidate thresholds are the distinct scores (a sample is predicted positive
when its score is ``>=`` the threshold) and ``inf`` (nothing positive), the
points of :func:`dartboard.metrics.roc_curve`. pROC reports the midpoint
between the chosen score and the next lower distinct score (``-inf`` below the
lowest); that is :attr:`OperatingPoint.midpoint`, and both classify every
sample alike.

Criteria (with ``TPR``, ``FPR = 1 - TNR``; ties go to the highest threshold):

- ``"youden"``: maximise ``TPR - FPR`` (pROC ``best.method = "youden"``);
- ``"closest_topleft"``: minimise ``(1 - TPR)^2 + FPR^2`` (pROC
  ``"closest.topleft"``);
- ``"cost"``: minimise the expected cost per sample
  ``pi (C_FN (1 - TPR) + C_TP TPR) + (1 - pi) (C_FP FPR + C_TN (1 - FPR))`` with
  ``costs = [[C_TN, C_FP], [C_FN, C_TP]]`` (rows true negative/positive,
  columns predicted, the confusion matrix's layout; default ``[[0, 1], [1, 0]]``,
  the error rate) and ``pi = prevalence`` (default: the data's);
- ``"min_precision"``: the largest TPR with precision ``>= target``;
- ``"min_recall"``: the largest TNR with TPR ``>= target``;
- ``"max_fpr"``: the largest TPR with FPR ``<= target``.

Precision, NPV and F1 are those of the data; ``prevalence`` enters only the
expected cost. A constrained criterion that no threshold meets on the data is
a ``ValueError`` saying the best value reached (only ``"min_precision"`` can
fail: the lowest threshold has TPR 1, ``inf`` has FPR 0); resamples where it
cannot be met are left out of the intervals with a warning giving their number
(:attr:`OperatingPoint.n_unmet`). A metric undefined at the chosen point (precision
with nothing predicted positive) is ``nan`` with an ``IntervalWarning``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from dartboard._results import Result
from dartboard._rng import check_random_state
from dartboard._validation import (
    check_confidence_level,
    check_n_resamples,
    check_option,
    check_real,
)
from dartboard.metrics._count_formulas import fbeta, proportion
from dartboard.metrics._ranking import binary_positive
from dartboard.metrics._registry import get_spec
from dartboard.uncertainty._analytic import proportion_interval
from dartboard.uncertainty._bands import _SortedScores
from dartboard.uncertainty._bootstrap import (
    CountGroups,
    IntervalWarning,
    Replicates,
    bootstrap_interval,
    count_replicates,
    multinomial_replicates,
)
from dartboard.uncertainty._methods import PROPORTION_METHODS
from dartboard.uncertainty._result import Interval

__all__ = ["CRITERIA", "OperatingPoint", "evaluate_threshold", "select_threshold"]

CRITERIA = ("youden", "closest_topleft", "cost", "min_precision", "min_recall", "max_fpr")
METRICS = ("tpr", "tnr", "precision", "npv", "f1", "expected_cost")
_CONSTRAINED = {"min_precision": "precision", "min_recall": "recall", "max_fpr": "FPR"}
_TIE = 1e-12  # criterion values this close count as equal (pROC compares exactly)


@dataclass(frozen=True, repr=False)
class OperatingPoint(Result):
    """A threshold and the metrics at it, each with an interval.

    Attributes
    ----------
    threshold : float
        Predict positive when the score is ``>=`` it (``inf``: nothing positive).
    midpoint : float
        pROC's threshold for the same point: halfway to the next lower score.
    criterion : str or None
        How it was chosen (None: given, :func:`evaluate_threshold`).
    intervals : dict of str to Interval
        ``"tpr"``, ``"tnr"``, ``"precision"``, ``"npv"``, ``"f1"``,
        ``"expected_cost"`` and, when chosen from the data, ``"threshold"``.
    confidence_level : float
    n_resamples : int or None
    n_unmet : int
        Resamples in which the criterion could not be met (left out).
    """

    threshold: float
    midpoint: float
    criterion: str | None
    intervals: dict[str, Interval]
    confidence_level: float
    n_resamples: int | None
    n_unmet: int = 0

    _repr_fields = ("threshold", "criterion", "intervals", "confidence_level")

    def to_frame(self) -> Any:
        """One row per quantity: estimate, low, high, method."""
        import pandas as pd

        return pd.DataFrame({k: {"estimate": v.estimate, "low": v.low, "high": v.high,
                                 "method": v.method} for k, v in self.intervals.items()}).T


# ------------------------------------------------------------------ formulas

def _point_metrics(counts: dict[str, np.ndarray], costs: np.ndarray,
                   prevalence: float | None) -> np.ndarray:
    """(..., 6) metrics of METRICS from stacks of tp, fp, fn, tn."""
    out = []
    for name in ("recall_score", "specificity_score", "precision_score"):
        num, den = proportion(get_spec(name).proportion, counts)
        out.append(_ratio(num, den))
    out.append(_ratio(*proportion(("tn", ("tn", "fn")), counts)))
    num, den = fbeta(1.0, counts)
    out.append(_ratio(num, den))
    out.append(_expected_cost(out[0], 1.0 - out[1], counts, costs, prevalence))
    return np.stack(out, axis=-1)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _expected_cost(tpr: np.ndarray, fpr: np.ndarray, counts: dict[str, np.ndarray],
                   costs: np.ndarray, prevalence: float | None) -> np.ndarray:
    if prevalence is None:
        pos = counts["tp"] + counts["fn"]
        prevalence = pos / (pos + counts["fp"] + counts["tn"])
    (c_tn, c_fp), (c_fn, c_tp) = costs
    return (prevalence * (c_fn * (1.0 - tpr) + c_tp * tpr)
            + (1.0 - prevalence) * (c_fp * fpr + c_tn * (1.0 - fpr)))


def _choose(criterion: str, tp: np.ndarray, fp: np.ndarray, target: float,
            costs: np.ndarray, prevalence: float | None) -> tuple[np.ndarray, np.ndarray]:
    """(b,) chosen candidate index and whether the criterion was met, from (b, G + 1)
    cumulative TP and FP (index 0: nothing positive)."""
    p, n = tp[:, -1:], fp[:, -1:]
    tpr, fpr = tp / p, fp / n
    if criterion == "youden":
        score = tpr - fpr
    elif criterion == "closest_topleft":
        score = -((1.0 - tpr) ** 2 + fpr ** 2)
    elif criterion == "cost":
        counts = {"tp": tp, "fp": fp, "fn": p - tp, "tn": n - fp}
        score = -_expected_cost(tpr, fpr, counts, costs, prevalence)
    else:
        if criterion == "min_precision":
            ok = tp >= target * (tp + fp) * (1 - _TIE)
            ok &= tp + fp > 0
            score = tpr
        elif criterion == "min_recall":
            ok, score = tpr >= target - _TIE, -fpr
        else:
            ok, score = fpr <= target + _TIE, tpr
        score = np.where(ok, score, -np.inf)
    best = score.max(axis=1, keepdims=True)
    met = np.isfinite(best[:, 0])
    index = np.argmax(score >= best - _TIE, axis=1)
    return index, met


def _at(tp: np.ndarray, fp: np.ndarray, index: np.ndarray) -> dict[str, np.ndarray]:
    rows = np.arange(tp.shape[0])
    t, f = tp[rows, index], fp[rows, index]
    return {"tp": t, "fp": f, "fn": tp[:, -1] - t, "tn": fp[:, -1] - f}


# ------------------------------------------------------------------ validation

def _costs_iv(costs: Any) -> np.ndarray:
    if costs is None:
        return np.array([[0.0, 1.0], [1.0, 0.0]])
    c = np.asarray(costs, dtype=np.float64) if not isinstance(costs, str) else None
    if c is None or c.shape != (2, 2):
        shape = "a string" if c is None else f"shape {c.shape}"
        raise ValueError("costs must be a 2 x 2 matrix [[C_TN, C_FP], [C_FN, C_TP]] "
                         f"(rows true negative/positive, columns predicted); got {shape}")
    if not np.all(np.isfinite(c)):
        raise ValueError("costs must be finite numbers")
    return c


def _common_iv(y_true: Any, y_score: Any, confidence_level: Any, sample_weight: Any,
               pos_label: Any, costs: Any, prevalence: Any) -> tuple[Any, ...]:
    level = check_confidence_level(confidence_level)
    positive, s, w, _ = binary_positive(y_true, y_score, pos_label, sample_weight,
                                         refuse_absent=True,
                                         multiclass_ok=True)
    live = np.ones(positive.shape[0], dtype=bool) if w is None else w > 0
    if not (positive & live).any() or not (~positive & live).any():
        raise ValueError("y_true must hold both classes (with positive weight) to choose "
                         "or evaluate a threshold")
    c = _costs_iv(costs)
    if prevalence is not None:
        prevalence = check_real(prevalence, "prevalence", minimum=0.0, maximum=1.0,
                                open_minimum=True, open_maximum=True)
    return positive, s, w, level, c, prevalence


def _select_iv(criterion: Any, target: Any) -> tuple[str, float]:
    criterion = check_option(criterion, "criterion", CRITERIA)
    if criterion in _CONSTRAINED:
        if target is None:
            raise ValueError(f"criterion={criterion!r} needs target (the bound on "
                             f"{_CONSTRAINED[criterion]}, in [0, 1])")
        return criterion, check_real(target, "target", minimum=0.0, maximum=1.0)
    if target is not None:
        raise ValueError(f"target is only used by the criteria {list(_CONSTRAINED)}; "
                         f"got target={target!r} with criterion={criterion!r}")
    return criterion, float("nan")


# ------------------------------------------------------------------ public faces

def _interval(name: str, estimate: float, values: np.ndarray, level: float,
              n_resamples: int) -> Interval:
    if np.isnan(estimate) or np.isnan(values).all():
        # e.g. precision with nothing predicted positive: undefined, not an error
        warnings.warn(f"{name} is undefined (0/0) at this operating point; its interval "
                      "is nan", IntervalWarning, stacklevel=3)
        nan = float("nan")
        return Interval(nan, nan, nan, level, "percentile", nan, None, n_resamples, name)
    with np.errstate(invalid="ignore"):  # quantiles between two inf thresholds are nan
        low, high, se, method, kept = bootstrap_interval(estimate, Replicates(values), level,
                                                         "percentile")
    return Interval(float(estimate), low, high, level, method, se, kept, n_resamples, name)


def _thresholds(scores: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Score and pROC midpoint of candidate indices (0: nothing positive)."""
    padded = np.concatenate([[np.inf], scores, [-np.inf]])
    return padded[index], 0.5 * (padded[index] + padded[index + 1])


def select_threshold(y_true: Any, y_score: Any, *, criterion: str = "youden",
                     target: float | None = None, costs: Any = None,
                     prevalence: float | None = None, confidence_level: float = 0.95,
                     n_resamples: int = 2000, random_state: Any = None,
                     sample_weight: Any = None, pos_label: Any = None) -> OperatingPoint:
    """Choose a threshold by a criterion; metrics at it with bootstrap-of-the-choice intervals.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n_samples,)
        Binary labels (``pos_label`` for others) and scores (higher: more positive).
    criterion : str, default="youden"
        One of ``"youden"``, ``"closest_topleft"``, ``"cost"``,
        ``"min_precision"``, ``"min_recall"``, ``"max_fpr"`` (module docstring).
    target : float, optional
        The bound of the constrained criteria (minimum precision or recall,
        maximum FPR), in [0, 1]; required by them, refused by the others.
    costs : array-like of shape (2, 2), optional
        ``[[C_TN, C_FP], [C_FN, C_TP]]``; default the error rate.
    prevalence : float, optional
        Population share of positives for the expected cost (default the data's).
    confidence_level : float, default=0.95
    n_resamples : int, default=2000
    random_state : None, int, SeedSequence or Generator
    sample_weight : array-like, optional
    pos_label : label, optional
        Rule "strict", as :func:`dartboard.metrics.roc_curve`.

    Returns
    -------
    OperatingPoint

    Raises
    ------
    ValueError
        When no threshold meets a constrained criterion on the data.

    Examples
    --------
    >>> # twelve points: with six, some resamples lack a positive (an IntervalWarning)
    >>> point = select_threshold([0, 0, 1, 1, 0, 1] * 2, [0.1, 0.4, 0.35, 0.8, 0.2, 0.9] * 2,
    ...                          n_resamples=200, random_state=0)
    >>> point.threshold, point.midpoint  # Youden ties 0.8 and 0.35: the higher wins
    (0.8, 0.6000000000000001)
    """
    criterion, target = _select_iv(criterion, target)
    positive, s, w, level, c, prevalence = _common_iv(y_true, y_score, confidence_level,
                                                      sample_weight, pos_label, costs,
                                                      prevalence)
    n_resamples = check_n_resamples(n_resamples)
    path = _SortedScores.build(positive, s, w)

    def evaluate(counts: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        pos, neg = (path.pos[None], path.neg[None]) if counts is None \
            else path.group_sums(counts)
        tp, fp = path.cumulative(pos, neg)
        index, met = _choose(criterion, tp, fp, target, c, prevalence)
        values = np.column_stack([_thresholds(path.scores, index)[0],
                                  _point_metrics(_at(tp, fp, index), c, prevalence)])
        values[~met] = np.nan
        return values, met

    estimate, met = evaluate(None)
    if not met[0]:
        raise ValueError(_unmet_message(criterion, target, path))
    _, positive_cell, _, size = path.resampling_cells()
    rng = check_random_state(random_state)
    reps = multinomial_replicates(lambda counts: evaluate(counts)[0], size,
                                  positive_cell.astype(int), 8 * 8 * path.scores.shape[0],
                                  n_resamples, True, rng, False).values
    names = ("threshold", *METRICS)
    intervals = {name: _interval(name, estimate[0, j], reps[:, j], level, n_resamples)
                 for j, name in enumerate(names)}
    index = np.searchsorted(-path.scores, -estimate[0, 0]) + 1 \
        if np.isfinite(estimate[0, 0]) else 0
    midpoint = float(_thresholds(path.scores, np.array([index]))[1][0])
    return OperatingPoint(float(estimate[0, 0]), midpoint, criterion, intervals, level,
                          n_resamples, int(np.isnan(reps[:, 0]).sum()))


def _unmet_message(criterion: str, target: float, path: _SortedScores) -> str:
    tp, fp = path.cumulative(path.pos[None], path.neg[None])
    tpr, fpr = tp[0] / tp[0, -1], fp[0] / fp[0, -1]
    if criterion == "min_precision":
        with np.errstate(invalid="ignore"):
            reached = np.nanmax(tp[0] / (tp[0] + fp[0]))
        word, best = "precision >=", f"the highest precision is {reached:.6g}"
    elif criterion == "min_recall":
        word, best = "recall >=", f"the highest recall is {tpr.max():.6g}"
    else:
        word, best = "FPR <=", f"the lowest FPR is {fpr.min():.6g}"
    return (f"no threshold reaches {word} {target:g} (criterion={criterion!r}); {best}")


def evaluate_threshold(y_true: Any, y_score: Any, threshold: float, *,
                       costs: Any = None, prevalence: float | None = None,
                       method: str = "wilson", confidence_level: float = 0.95,
                       n_resamples: int = 2000, random_state: Any = None,
                       sample_weight: Any = None, pos_label: Any = None) -> OperatingPoint:
    """Metrics at a threshold chosen elsewhere, on new data, with plain intervals.

    TPR, TNR, precision and NPV get the proportion interval ``method`` (wilson by
    default; with non-integer weights a percentile bootstrap of the confusion
    matrix); F1 and the expected cost a percentile bootstrap of the confusion
    matrix (multinomial, ``n_resamples``). Other arguments as
    :func:`select_threshold`.

    Examples
    --------
    >>> point = evaluate_threshold([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], 0.35,
    ...                            random_state=0)
    >>> point.intervals["tpr"].estimate, point.intervals["tnr"].estimate
    (1.0, 0.5)
    """
    threshold = check_real(threshold, "threshold") if not (
        isinstance(threshold, float) and np.isinf(threshold)) else float(threshold)
    method = check_option(method, "method", PROPORTION_METHODS)
    positive, s, w, level, c, prevalence = _common_iv(y_true, y_score, confidence_level,
                                                      sample_weight, pos_label, costs,
                                                      prevalence)
    n_resamples = check_n_resamples(n_resamples)
    predicted = s >= threshold
    groups = CountGroups.from_codes(positive.astype(np.int64), predicted.astype(np.int64),
                                    2, w)
    matrix = groups.matrices(groups.size[None].astype(np.float64))

    def metrics(m: np.ndarray) -> np.ndarray:
        return _point_metrics({"tp": m[:, 1, 1], "fp": m[:, 0, 1], "fn": m[:, 1, 0],
                               "tn": m[:, 0, 0]}, c, prevalence)

    estimate = metrics(matrix)[0]
    rng = check_random_state(random_state)
    reps = count_replicates(metrics, groups, n_resamples, True, rng, False).values
    integral = w is None or bool(np.all(w == np.round(w)))
    m = matrix[0]
    dens = {"tpr": m[1].sum(), "tnr": m[0].sum(), "precision": m[:, 1].sum(),
            "npv": m[:, 0].sum()}
    intervals = {}
    for j, name in enumerate(METRICS):
        if name in dens and integral and dens[name] > 0:
            low, high = proportion_interval(estimate[j] * dens[name], dens[name], level,
                                            method)
            intervals[name] = Interval(float(estimate[j]), low, high, level, method,
                                       float(np.sqrt(estimate[j] * (1 - estimate[j])
                                                     / dens[name])), None, None, name)
        else:
            intervals[name] = _interval(name, estimate[j], reps[:, j], level, n_resamples)
    scores = np.unique(s)[::-1]
    below = scores[scores < threshold]
    midpoint = 0.5 * (threshold + below[0]) if below.shape[0] else -np.inf
    return OperatingPoint(threshold, float(midpoint), None, intervals, level, n_resamples)
