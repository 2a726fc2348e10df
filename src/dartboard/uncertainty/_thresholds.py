"""Operating points: a threshold chosen from the data, with intervals that cover its rates.

:func:`select_threshold` picks the threshold by a criterion and reports, at it,
TPR (sensitivity), TNR (specificity), precision, NPV, F1 and the expected cost,
each with an interval that covers the true rate *of the threshold chosen*
(``._threshold_rates``: Jeffreys intervals at the threshold, the samples tied
at it counted half, widened by the bootstrap's estimate of the optimism of
choosing on the same data). With ``guarantee=g`` a constrained criterion returns
a threshold whose true recall, FPR or precision meets the target with
probability ``g`` (``._guarantee``). :func:`evaluate_threshold` reads a
threshold chosen elsewhere on new data; its intervals are the plain ones (Wilson
for the four proportions, a bootstrap of the confusion matrix for F1 and the
cost).

Candidate thresholds are the distinct scores (a sample is predicted positive
when its score is ``>=`` the threshold) and ``inf`` (nothing positive), the
points of :func:`dartboard.metrics.roc_curve`. The threshold and its interval
are on the scale of the scores: the reported threshold is a score of the data,
and the interval's ends are percentiles of the scores chosen in stratified
resamples (cases and controls resampled separately, as pROC). pROC reports the
midpoint between the chosen score and the next lower distinct score (``-inf``
below the lowest); that is :attr:`OperatingPoint.midpoint`, and both classify
every sample alike. pROC's bootstrap of the threshold (``ci.coords(...,
"best", ret = "threshold")``) takes the midpoints of each resample's own
scores, so each of its replicates lies half a gap below the score dartboard
records for the same choice, and its interval ends are at or below dartboard's.

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

Precision, NPV and F1 are those of the data's class mix; ``prevalence`` enters
only the expected cost. A constrained criterion that no threshold meets on the
data (or, with ``guarantee``, that no threshold can be guaranteed to meet) is a
``ValueError`` saying the best value reached; resamples where it cannot be met
are left out of the threshold's interval with a warning giving their number
(:attr:`OperatingPoint.n_unmet`). A metric undefined at the chosen point
(precision with nothing predicted positive) is ``nan`` with an
``IntervalWarning``. Sample weights must be non-negative (resampling treats them
as masses).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_args

import numpy as np
from numpy.typing import ArrayLike

from dartboard._kernels._analytic import proportion_interval
from dartboard._kernels._bootstrap import (
    CountGroups,
    IntervalWarning,
    Replicates,
    bootstrap_interval,
    count_replicates,
    multinomial_replicates,
)
from dartboard._kernels._methods import PROPORTION_METHODS
from dartboard._kernels._result import Interval
from dartboard._results import Result
from dartboard._rng import RandomStateLike, check_random_state
from dartboard._typing import ThresholdCriterion
from dartboard._validation import (
    check_confidence_level,
    check_n_resamples,
    check_option,
    check_real,
    check_sample_weight,
)
from dartboard.exceptions import InputError
from dartboard.metrics._ranking import binary_positive
from dartboard.uncertainty._clustered_curves import (
    cell_replicates,
    confusion_design_effects,
    curve_clusters,
    row_cells,
    threshold_design_effects,
)
from dartboard.uncertainty._guarantee import (
    best_guaranteed,
    critical_counts,
    one_sided_bound,
    precision_sequences,
)
from dartboard.uncertainty._sorted_scores import SortedScores
from dartboard.uncertainty._threshold_rates import (
    METRICS,
    choose,
    counts_at,
    point_metrics,
    rate_bounds,
    rate_methods,
    widen,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CRITERIA", "CONSTRAINED", "Constraint", "OperatingPoint", "check_criterion",
           "evaluate_threshold", "select_threshold"]

CRITERIA: tuple[str, ...] = get_args(ThresholdCriterion)
#: the constrained criteria and the rate their ``target`` bounds
CONSTRAINED = {"min_precision": "precision", "min_recall": "recall", "max_fpr": "FPR"}
_THRESHOLD_METHOD = "percentile (threshold re-chosen in each resample)"
_EXACT = "exact (nothing predicted positive)"


#: the constrained rate's name in the constraint, the interval it is read from, the side
#: its bound is on and the comparison with the target
_CONSTRAINED_RATE = {"max_fpr": ("fpr", "tnr", "upper", "<="),
                     "min_recall": ("recall", "tpr", "lower", ">="),
                     "min_precision": ("precision", "precision", "lower", ">=")}


@dataclass(frozen=True, repr=False)
class Constraint(Result):
    """What a constrained criterion asked and what the chosen threshold gives.

    Attributes
    ----------
    rate : str
        ``"fpr"``, ``"recall"`` or ``"precision"``.
    target : float
        Its bound (``max_fpr``: at most; the others: at least).
    estimate : float
        The rate on the data at the threshold.
    interval : Interval
        Its two-sided interval (for reading: as the other rates').
    guarantee : float or None
        The probability with which the true rate meets ``target`` (None: none asked;
        the rate on the data meets it, the true rate may not).
    bound : float or None
        With ``guarantee``: the exact one-sided Clopper-Pearson bound of the rate at
        the threshold (upper for FPR, lower for recall and precision) that the
        guarantee's test compares with ``target`` (:mod:`dartboard.uncertainty._guarantee`).
    bound_level : float or None
        Its confidence level: ``guarantee``, or for precision the higher level of
        the fixed sequence that reached the threshold.
    side : str
        ``"upper"`` or ``"lower"``.
    """

    rate: str
    target: float
    estimate: float
    interval: Interval
    guarantee: float | None
    bound: float | None
    bound_level: float | None
    side: str

    @property
    def statement(self) -> str:
        """One line: the rate, the bound the guarantee is about and the target."""
        sign = "<=" if self.side == "upper" else ">="
        head = f"{self.rate} {self.estimate:.4g}"
        if self.guarantee is None or self.bound is None or self.bound_level is None:
            return (f"{head} {sign} target {self.target:g} on the data (no guarantee: the "
                    f"true {self.rate} may not meet it; pass guarantee= for one)")
        level = f"{100 * self.bound_level:.4g}%"
        tail = "guaranteed" if self.bound_level == self.guarantee else \
            f"guaranteed at {100 * self.guarantee:.4g}%: the tests over the thresholds " \
            "share its alpha"
        if self.bound_level == 1.0:
            return (f"{head} (nothing predicted positive: exactly 0) {sign} target "
                    f"{self.target:g} (guaranteed)")
        return (f"{head}, {self.side} {level} bound {self.bound:.4g} {sign} target "
                f"{self.target:g} ({tail})")

    @property
    def note(self) -> str:
        """How to read the two kinds of interval side by side."""
        if self.guarantee is None:
            return ("the intervals are two-sided, for reading the rates at the threshold; "
                    "none of them is a guarantee")
        return (f"the intervals are two-sided, for reading the rates; the guarantee is the "
                f"one-sided bound: the true {self.rate} {'<=' if self.side == 'upper' else '>='}"
                f" {self.target:g} with probability {self.guarantee:g}")

    def __repr__(self) -> str:
        return f"Constraint({self.statement})"

    def _repr_html_(self) -> str:
        import html

        return (f"{html.escape(self.statement)}<br><span class=\"note\">"
                f"{html.escape(self.note)}</span>")

    def to_dict(self) -> dict[str, Any]:
        """The fields, the ``statement`` and the ``note`` as JSON-ready values."""
        return {**super().to_dict(), "statement": self.statement, "note": self.note}


@dataclass(frozen=True, repr=False)
class OperatingPoint(Result):
    """A threshold and the metrics at it, each with an interval.

    Parameters
    ----------
    threshold : float
        Predict positive when the score is ``>=`` it (``inf``: nothing positive).
    midpoint : float
        pROC's threshold for the same point: halfway to the next lower score.
    criterion : str or None
        How it was chosen (None: given, :func:`evaluate_threshold`).
    intervals : dict of str to Interval
        ``"tpr"``, ``"tnr"``, ``"precision"``, ``"npv"``, ``"f1"``,
        ``"expected_cost"`` and, when chosen from the data, ``"threshold"`` (on the
        scale of the scores; see the module notes for pROC's midpoints).
    confidence_level : float
        Confidence level of the intervals, in (0, 1).
    n_resamples : int or None
        Bootstrap replicates behind the intervals, or None where none were drawn.
    n_unmet : int
        Resamples in which the criterion could not be met (left out).
    target : float or None
        The bound of a constrained criterion.
    guarantee : float or None
        The probability with which the threshold's true rate meets ``target``.
    constraint : Constraint or None
        A constrained criterion's rate at the threshold with, under ``guarantee``,
        the one-sided bound the guarantee is about ("fpr 0.0873, upper 95% bound
        0.0998 <= target 0.1 (guaranteed)"); the views show it beside the two-sided
        intervals, which are for reading the rates.

    Examples
    --------
    >>> from dartboard import select_threshold
    >>> y_true = [0, 1, 1, 0, 1, 0, 1, 1]
    >>> y_score = [0.2, 0.9, 0.6, 0.3, 0.8, 0.55, 0.7, 0.4]
    >>> point = select_threshold(y_true, y_score, n_resamples=200, random_state=0)
    >>> point.criterion, point.threshold
    ('youden', 0.6)
    """

    threshold: float
    midpoint: float
    criterion: str | None
    intervals: dict[str, Interval]
    confidence_level: float
    n_resamples: int | None
    n_unmet: int = 0
    target: float | None = None
    guarantee: float | None = None
    constraint: Constraint | None = None

    _repr_fields = ("threshold", "criterion", "target", "guarantee", "constraint",
                    "intervals", "confidence_level")

    def _shown(self) -> list[tuple[str, Any]]:
        shown = super()._shown()
        if self.constraint is None:
            return shown
        return [*shown, ("note", self.constraint.note)]

    def to_frame(self) -> pd.DataFrame:
        """One row per quantity: estimate, low, high, method.

        Returns
        -------
        pandas.DataFrame
            Indexed by quantity (``recall``, ``fpr``, ...).
        """
        import pandas as pd

        names = list(self.intervals)
        return pd.DataFrame(
            {"estimate": [float(self.intervals[k].estimate) for k in names],
             "low": [float(self.intervals[k].low) for k in names],
             "high": [float(self.intervals[k].high) for k in names],
             "method": [str(self.intervals[k].method) for k in names]}, index=names)


# ------------------------------------------------------------------ validation

def _costs_iv(costs: Any) -> np.ndarray:
    if costs is None:
        return np.array([[0.0, 1.0], [1.0, 0.0]])
    c = np.asarray(costs, dtype=np.float64) if not isinstance(costs, str) else None
    if c is None or c.shape != (2, 2):
        shape = "a string" if c is None else f"shape {c.shape}"
        raise InputError("costs must be a 2 x 2 matrix [[C_TN, C_FP], [C_FN, C_TP]] "
                         f"(rows true negative/positive, columns predicted); got {shape}")
    if not np.all(np.isfinite(c)):
        raise InputError("costs must be finite numbers")
    return c


def _common_iv(y_true: Any, y_score: Any, confidence_level: Any, sample_weight: Any,
               pos_label: Any, costs: Any, prevalence: Any) -> tuple[Any, ...]:
    level = check_confidence_level(confidence_level)
    positive, s, w, _ = binary_positive(y_true, y_score, pos_label, sample_weight,
                                         refuse_absent=True,
                                         multiclass_ok=True)
    if w is not None:
        w = check_sample_weight(w, w.shape[0])  # resampled weights are masses: refuse < 0
    live = np.ones(positive.shape[0], dtype=bool) if w is None else w > 0
    if not (positive & live).any() or not (~positive & live).any():
        raise InputError("y_true must hold both classes (with positive weight) to choose "
                         "or evaluate a threshold")
    c = _costs_iv(costs)
    if prevalence is not None:
        prevalence = check_real(prevalence, "prevalence", minimum=0.0, maximum=1.0,
                                open_minimum=True, open_maximum=True)
    return positive, s, w, level, c, prevalence


def check_criterion(criterion: Any, target: Any, guarantee: Any = None, *,
                    names: tuple[str, str] = ("criterion", "target"),
                    ) -> tuple[str, float, float | None]:
    """``criterion``, ``target`` (nan for the unconstrained criteria) and ``guarantee``,
    checked: a target only with a constrained criterion and always with one, a
    guarantee only with a target. ``names``: the two arguments' names in messages."""
    crit_name, target_name = names
    criterion = check_option(criterion, crit_name, CRITERIA)
    if guarantee is not None:
        guarantee = check_real(guarantee, "guarantee", minimum=0.0, maximum=1.0,
                               open_minimum=True, open_maximum=True)
        if criterion not in CONSTRAINED:
            raise InputError(f"guarantee applies to the constrained criteria "
                             f"{list(CONSTRAINED)}; got {crit_name}={criterion!r}")
    if criterion in CONSTRAINED:
        if target is None:
            raise InputError(f"{crit_name}={criterion!r} needs {target_name} (the bound on "
                             f"{CONSTRAINED[criterion]}, in [0, 1])")
        return (criterion, check_real(target, target_name, minimum=0.0, maximum=1.0),
                guarantee)
    if target is not None:
        raise InputError(f"{target_name} is only used by the criteria {list(CONSTRAINED)}; "
                         f"got {target_name}={target!r} with {crit_name}={criterion!r}")
    return criterion, float("nan"), None


def _whole_weights(w: np.ndarray | None) -> bool:
    return w is None or bool(np.all(w == np.round(w)))


# ------------------------------------------------------------------ intervals

def _interval(name: str, estimate: float, values: np.ndarray, level: float,
              n_resamples: int, label: str | None = None) -> Interval:
    """Percentile interval of bootstrap ``values`` (``label``: the method's name)."""
    if np.isnan(estimate) or np.isnan(values).all():
        _warn_undefined(name)
        nan = float("nan")
        return Interval(nan, nan, nan, level, "percentile", nan, None, n_resamples, name)
    with np.errstate(invalid="ignore"):  # quantiles between two inf thresholds are nan
        low, high, se, method, kept = bootstrap_interval(estimate, Replicates(values), level,
                                                         "percentile")
    return Interval(float(estimate), low, high, level, label or method, se, kept,
                    n_resamples, name)


def _warn_undefined(name: str) -> None:
    # e.g. precision with nothing predicted positive: undefined, not an error
    warnings.warn(f"{name} is undefined (0/0) at this operating point; its interval is nan",
                  IntervalWarning, stacklevel=4)


def _rate_intervals(index: int, path: SortedScores, reps: np.ndarray, integral: bool,
                    c: np.ndarray, prevalence: float | None, level: float,
                    n_resamples: int, rng: np.random.Generator,
                    clustered: tuple[tuple[float, float], str] | None = None
                    ) -> dict[str, Interval]:
    """The six rates at the chosen candidate ``index`` (see ``._threshold_rates``);
    ``reps``: (R, 19) replicates of [threshold, optimism at the resample's choice (6),
    at ``index`` (6), rates at ``index`` (6)]. ``clustered``: the two classes' design
    effects at ``index`` and the methods' suffix, with clusters."""
    tp, fp = path.cumulative(path.pos[None], path.neg[None])
    at = np.array([index])
    estimate = point_metrics(counts_at(tp, fp, at, path.pos[None], path.neg[None], False),
                             c, prevalence)[0]
    if index == 0:
        methods: tuple[str, ...] = (_EXACT,) * 6
        low, high, se = estimate, estimate, np.zeros(6)
    else:
        methods = rate_methods(integral)
        if clustered is not None:
            methods = tuple(m + clustered[1] for m in methods)
        if integral:
            mid = counts_at(tp, fp, at, path.pos[None], path.neg[None], True)
            low, high, se = rate_bounds({k: float(v[0]) for k, v in mid.items()}, level, c,
                                        prevalence, rng, design_effect=(
                                            (1.0, 1.0) if clustered is None else clustered[0]))
        else:
            alpha = (1.0 - level) / 2.0
            with np.errstate(invalid="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-nan columns
                low, high = np.nanquantile(reps[:, 13:], [alpha, 1.0 - alpha], axis=0)
                se = np.nanstd(reps[:, 13:], axis=0, ddof=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a rate undefined everywhere
            delta = np.nanmean(reps[:, 1:7], axis=0) - np.nanmean(reps[:, 7:13], axis=0)
        low, high = widen(low, high, delta, estimate, c)
    out = {}
    for j, name in enumerate(METRICS):
        if np.isnan(estimate[j]):
            _warn_undefined(name)
            out[name] = Interval(float("nan"), float("nan"), float("nan"), level,
                                 methods[j], float("nan"), None, None, name)
        else:
            out[name] = Interval(float(estimate[j]), float(low[j]), float(high[j]), level,
                                 methods[j], float(se[j]), None, n_resamples, name)
    return out


# ------------------------------------------------------------------ public faces

def _thresholds(scores: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Score and pROC midpoint of candidate indices (0: nothing positive)."""
    padded = np.concatenate([[np.inf], scores, [-np.inf]])
    return padded[index], 0.5 * (padded[index] + padded[index + 1])


def _replicate(path: SortedScores, index: int, criterion: str, target: float,
               c: np.ndarray, prevalence: float | None, critical: Any) -> Any:
    """The statistic of one batch of resamples: (b, 19) values, see _rate_intervals."""
    tp0, fp0 = path.cumulative(path.pos[None], path.neg[None])

    def rates(tp: np.ndarray, fp: np.ndarray, at: np.ndarray, pos: np.ndarray,
              neg: np.ndarray) -> np.ndarray:
        return point_metrics(counts_at(tp, fp, at, pos, neg, True), c, prevalence)

    def evaluate(counts: np.ndarray) -> np.ndarray:
        pos, neg = path.group_sums(counts)
        tp, fp = path.cumulative(pos, neg)
        chosen, met = choose(criterion, tp, fp, target, c, prevalence, critical)
        fixed = np.full(tp.shape[0], index)
        base = (path.pos[None], path.neg[None])
        origin = np.broadcast_to(tp0, tp.shape), np.broadcast_to(fp0, fp.shape)
        at_fixed = rates(tp, fp, fixed, pos, neg)
        with np.errstate(invalid="ignore"):
            optimism = rates(tp, fp, chosen, pos, neg) - rates(*origin, chosen, *base)
            held = at_fixed - rates(*origin, fixed, *base)
        values = np.column_stack([_thresholds(path.scores, chosen)[0], optimism, held,
                                  at_fixed])
        values[~met, :13] = np.nan
        return values

    return evaluate


def select_threshold(y_true: ArrayLike, y_score: ArrayLike, *, criterion: ThresholdCriterion = "youden",
                     target: float | None = None, guarantee: float | None = None,
                     costs: Any = None, prevalence: float | None = None,
                     confidence_level: float = 0.95, n_resamples: int = 2000,
                     random_state: RandomStateLike = None, sample_weight: ArrayLike | None = None,
                     pos_label: Any = None, clusters: ArrayLike | None = None) -> OperatingPoint:
    """Choose a threshold by a criterion; the metrics at it with intervals that cover
    the true rates of the threshold chosen.

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
    guarantee : float in (0, 1), optional
        Constrained criteria: choose a threshold whose *true* rate meets
        ``target`` with this probability (exact binomial tests over the ordered
        thresholds, :mod:`dartboard.uncertainty._guarantee`), not only the rate on
        the data. Not with ``sample_weight`` (the tests count rows; for frequency
        weights, repeat the rows).
    costs : array-like of shape (2, 2), optional
        ``[[C_TN, C_FP], [C_FN, C_TP]]``; default the error rate.
    prevalence : float, optional
        Population share of positives for the expected cost (default the data's).
    confidence_level : float, default=0.95
        Confidence level of the interval, in (0, 1).
    n_resamples : int, default=2000
        Resamples of the threshold's interval and of the optimism.
    random_state : None, int, SeedSequence or Generator
        A seed (int), a ``SeedSequence``, a ``Generator``, or None for fresh entropy.
    sample_weight : array-like, optional
        Non-negative.
    pos_label : label, optional
        Rule "strict", as :func:`dartboard.metrics.roc_curve`.
    clusters : array-like of shape (n_samples,), optional
        The cluster of each row (a patient, a user) when rows are not independent
        (see Notes). At least two clusters, none missing. Not with ``guarantee``.

    Returns
    -------
    OperatingPoint

    Raises
    ------
    ValueError
        When no threshold meets (or, with ``guarantee``, can be guaranteed to meet)
        a constrained criterion on the data; ``guarantee`` with ``clusters``.

    Notes
    -----
    With ``clusters`` each resample draws ``C`` of the ``C`` clusters with
    replacement and keeps their rows whole (not stratified by class: a cluster
    holds both), for the threshold's interval and the optimism; the Jeffreys
    parts count each class's rows at the chosen threshold over the class's design
    effect there, ``deff = V_clusters / V_rows`` of its share above the threshold
    (cluster-robust over independent-rows variance) times ``(t_{C-1} / t_{N-1})^2``,
    at least 1 (:mod:`dartboard.uncertainty._clustered_curves`). With one row per
    cluster the design effects are 1 and the Jeffreys parts are the independent
    ones; the optimism and the threshold's interval then come from unstratified
    resamples of rows. The guarantee's exact binomial tests assume independent
    rows and are refused. Measured (``benchmarks/clustered_curves_coverage.py``,
    1000 data sets per cell, 30 and 100 clusters of 10 rows, intra-cluster
    correlation 0, 0.2 and 0.5): at Youden's threshold the TPR and FPR intervals
    covered the true rates of the chosen threshold in 95.0-97.5% of data sets
    (independent rows 77.7-79.1% with correlation 0.5); at ``min_recall`` 0.8 the TPR
    interval covered 94.4-97.0%, a little short at correlation 0.2 and 0.5 with 100
    clusters (94.7%, 94.4%). With fewer clusters they fall short: 93.8% (TPR) and
    94.8% (FPR) at Youden's threshold with 20 clusters, 93.5% and 92.3% with 10;
    94.7% and 94.9% for ``min_recall`` (correlation 0.5).

    Examples
    --------
    >>> # twelve points: with six, some resamples lack a positive (an IntervalWarning)
    >>> point = select_threshold([0, 0, 1, 1, 0, 1] * 2, [0.1, 0.4, 0.35, 0.8, 0.2, 0.9] * 2,
    ...                          n_resamples=200, random_state=0)
    >>> point.threshold, point.midpoint  # Youden ties 0.8 and 0.35: the higher wins
    (0.8, 0.6000000000000001)
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 200)
    >>> score = y + rng.normal(size=400)
    >>> plain = select_threshold(y, score, criterion="min_recall", target=0.8,
    ...                          random_state=0)
    >>> safe = select_threshold(y, score, criterion="min_recall", target=0.8,
    ...                         guarantee=0.95, random_state=0)
    >>> bool(safe.threshold < plain.threshold), safe.intervals["tpr"].estimate
    (True, 0.85)

    Forty patients of ten rows, who share how well the model does on them: the
    rates' intervals widen with the design effect.

    >>> patient = np.repeat(np.arange(40), 10)
    >>> y = rng.integers(0, 2, size=400)
    >>> score = y + rng.normal(size=40)[patient] + rng.normal(size=400)
    >>> point = select_threshold(y, score, clusters=patient, n_resamples=500,
    ...                          random_state=0)
    >>> point.intervals["tpr"].method
    'jeffreys, selection-widened (clustered: 40 clusters)'
    """
    crit, target, guarantee = check_criterion(criterion, target, guarantee)
    positive, s, w, level, c, prevalence = _common_iv(y_true, y_score, confidence_level,
                                                      sample_weight, pos_label, costs,
                                                      prevalence)
    n_resamples = check_n_resamples(n_resamples)
    integral = _whole_weights(w)
    if guarantee is not None and w is not None and not np.all(w == 1.0):
        # sampling weights are not repeated rows: 100 rows of weight 3 support the
        # successes of 100 rows, not of 300 (counted as rows, 9% of guarantees failed)
        raise InputError("guarantee rests on exact binomial tests of unweighted rows; "
                         "sample_weight is refused with it (a row of weight 3 is one "
                         "sampled row, not three). For frequency weights (each row stands "
                         "for w identical rows) repeat the rows: np.repeat(y_true, w), "
                         "np.repeat(y_score, w)")
    cl = None if clusters is None else curve_clusters(clusters, positive, w)
    if guarantee is not None and cl is not None:
        raise InputError("guarantee rests on exact binomial tests of independent rows; "
                         "it is not available with clusters (leave out guarantee or "
                         "clusters)")
    path = SortedScores.build(positive, s, w)
    critical = None if guarantee is None else _boundaries(
        crit, target, 1.0 - guarantee, path.pos.sum(), path.neg.sum())
    tp, fp = path.cumulative(path.pos[None], path.neg[None])
    chosen, met = choose(crit, tp, fp, target, c, prevalence, critical)
    if not met[0]:
        raise InputError(_unmet_message(crit, target, guarantee, path))
    index = int(chosen[0])
    rng = check_random_state(random_state)
    evaluate = _replicate(path, index, crit, target, c, prevalence, critical)
    if cl is None:
        _, positive_cell, _, size = path.resampling_cells()
        reps = multinomial_replicates(evaluate, size, positive_cell.astype(int),
                                      8 * 16 * path.scores.shape[0], n_resamples, True,
                                      rng, False).values
    else:
        reps = cell_replicates(evaluate, row_cells(path, positive, s, w),
                               path.resampling_cells()[0].shape[0], cl, n_resamples, rng,
                               8 * 16 * path.scores.shape[0])
    unmet = np.isnan(reps[:, 1])
    if unmet.all():
        raise InputError(f"criterion={crit!r} cannot be met in any of the "
                         f"{n_resamples} resamples; no interval can be formed")
    if unmet.any():
        warnings.warn(f"criterion={crit!r} cannot be met in {int(unmet.sum())} of "
                      f"{n_resamples} resamples; they are left out of the intervals "
                      "(OperatingPoint.n_unmet)", IntervalWarning, stacklevel=2)
    threshold, midpoint = (float(v[0]) for v in _thresholds(path.scores, np.array([index])))
    suffix = "" if cl is None else f" (clustered: {cl.n_clusters} clusters)"
    intervals = {"threshold": _interval("threshold", threshold, reps[~unmet, 0], level,
                                        n_resamples, _THRESHOLD_METHOD + suffix)}
    clustered = None if cl is None or index == 0 else (
        threshold_design_effects(path, positive, s, w, cl, index, level), suffix)
    intervals.update(_rate_intervals(index, path, reps, integral, c, prevalence, level,
                                     n_resamples, rng, clustered))
    constraint = None if crit not in CONSTRAINED else _constraint(
        crit, target, guarantee, intervals, critical, path, index)
    return OperatingPoint(threshold, midpoint, crit, intervals, level, n_resamples,
                          int(unmet.sum()), None if np.isnan(target) else target,
                          guarantee, constraint)


def _constraint(criterion: str, target: float, guarantee: float | None,
                intervals: dict[str, Interval], critical: Any, path: SortedScores,
                index: int) -> Constraint:
    """The constrained rate at the chosen candidate, its two-sided interval and, under a
    guarantee, the one-sided bound its test used."""
    rate, source, side, _ = _CONSTRAINED_RATE[criterion]
    iv = intervals[source]
    if source == "tnr":  # FPR = 1 - TNR, the interval's ends swapped
        iv = Interval(1.0 - iv.estimate, 1.0 - iv.high, 1.0 - iv.low, iv.confidence_level,
                      iv.method, iv.standard_error, None, iv.n_resamples, rate)
    bound = level = None
    if guarantee is not None:
        tp, fp = path.cumulative(path.pos[None], path.neg[None])
        bound, level = one_sided_bound(criterion, float(tp[0, index]), float(fp[0, index]),
                                       float(tp[0, -1]), 1.0 - guarantee, critical, (tp, fp),
                                       index)
    return Constraint(rate, target, float(iv.estimate), iv, guarantee, bound, level, side)


def _boundaries(criterion: str, target: float, alpha: float, n_pos: float,
                n_neg: float) -> Any:
    if criterion == "min_precision":
        return precision_sequences(target, alpha, n_pos + n_neg)
    return critical_counts(criterion, target, alpha, n_pos, n_neg)


def _unmet_message(criterion: str, target: float, guarantee: float | None,
                   path: SortedScores) -> str:
    tp, fp = path.cumulative(path.pos[None], path.neg[None])
    tpr, fpr = tp[0] / tp[0, -1], fp[0] / fp[0, -1]
    if guarantee is not None:
        word = {"min_precision": "precision >=", "min_recall": "recall >="}[criterion]
        return (f"no threshold can be guaranteed to reach {word} {target:g} with "
                f"probability {guarantee:g} (criterion={criterion!r}): "
                f"{best_guaranteed(criterion, tp[0], fp[0], 1.0 - guarantee)}")
    if criterion == "min_precision":
        with np.errstate(invalid="ignore"):
            reached = np.nanmax(tp[0] / (tp[0] + fp[0]))
        word, best = "precision >=", f"the highest precision is {reached:.6g}"
    elif criterion == "min_recall":
        word, best = "recall >=", f"the highest recall is {tpr.max():.6g}"
    else:
        word, best = "FPR <=", f"the lowest FPR is {fpr.min():.6g}"
    return (f"no threshold reaches {word} {target:g} (criterion={criterion!r}); {best}")


def evaluate_threshold(y_true: ArrayLike, y_score: ArrayLike, threshold: float, *,
                       costs: Any = None, prevalence: float | None = None,
                       method: str = "wilson", confidence_level: float = 0.95,
                       n_resamples: int = 2000, random_state: RandomStateLike = None,
                       sample_weight: ArrayLike | None = None, pos_label: Any = None,
                       clusters: ArrayLike | None = None) -> OperatingPoint:
    """Metrics at a threshold chosen elsewhere, on new data, with plain intervals.

    TPR, TNR, precision and NPV get the proportion interval ``method`` (wilson by
    default; with non-integer weights a percentile bootstrap of the confusion
    matrix); F1 and the expected cost a percentile bootstrap of the confusion
    matrix (multinomial, ``n_resamples``). Other arguments as
    :func:`select_threshold`; weights must be non-negative.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n_samples,)
        Binary labels (``pos_label`` for others) and scores (higher: more positive).
    threshold : float
        Scores at or above it are predicted positive.
    costs : array-like of shape (2, 2), optional
        ``[[C_TN, C_FP], [C_FN, C_TP]]`` of the expected cost; default the error rate.
    prevalence : float, optional
        Population share of positives for the expected cost (default the data's).
    method : str, default="wilson"
        The proportion interval of TPR, TNR, precision and NPV.
    confidence_level : float, default=0.95
        The intervals' confidence level.
    n_resamples : int, default=2000
        Resamples of the bootstrap intervals (F1, expected cost).
    random_state : None, int, SeedSequence or Generator
        Seed of the resamples.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights.
    pos_label : label, optional
        The positive class (rule "strict", as :func:`dartboard.metrics.roc_curve`).
    clusters : array-like of shape (n_samples,), optional
        The cluster of each row when rows are not independent: TPR, TNR, precision
        and NPV get ``method`` on their counts over the design effect of each
        proportion (its cluster-robust over independent-rows variance, times
        ``(t_{C-1} / t_{N-1})^2``, at least 1; :mod:`dartboard.uncertainty._clustered_curves`),
        F1 and the cost the percentile bootstrap of whole clusters.

    Returns
    -------
    OperatingPoint
        The threshold with its metrics and their intervals (``intervals``).

    Examples
    --------
    >>> point = evaluate_threshold([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], 0.35,
    ...                            random_state=0)
    >>> point.intervals["tpr"].estimate, point.intervals["tnr"].estimate
    (1.0, 0.5)

    Rows in clusters of three (each holds a positive, so every resample has one):

    >>> point = evaluate_threshold([0, 0, 1, 1, 0, 1] * 4,
    ...                            [0.1, 0.4, 0.35, 0.8, 0.2, 0.9] * 4, 0.35,
    ...                            clusters=np.repeat(np.arange(8), 3), random_state=0)
    >>> point.intervals["f1"].method
    'percentile (clustered: 8 clusters)'
    """
    threshold = check_real(threshold, "threshold") if not (
        isinstance(threshold, float) and np.isinf(threshold)) else float(threshold)
    method = check_option(method, "method", PROPORTION_METHODS)
    positive, s, w, level, c, prevalence = _common_iv(y_true, y_score, confidence_level,
                                                      sample_weight, pos_label, costs,
                                                      prevalence)
    n_resamples = check_n_resamples(n_resamples)
    cl = None if clusters is None else curve_clusters(clusters, positive, w)
    predicted = s >= threshold
    groups = CountGroups.from_codes(positive.astype(np.int64), predicted.astype(np.int64),
                                    2, w)
    matrix = groups.matrices(groups.size[None].astype(np.float64))

    def metrics(m: np.ndarray) -> np.ndarray:
        return point_metrics({"tp": m[:, 1, 1], "fp": m[:, 0, 1], "fn": m[:, 1, 0],
                              "tn": m[:, 0, 0]}, c, prevalence)

    estimate = metrics(matrix)[0]
    rng = check_random_state(random_state)
    integral = _whole_weights(w)
    m = matrix[0]
    dens = {"tpr": m[1].sum(), "tnr": m[0].sum(), "precision": m[:, 1].sum(),
            "npv": m[:, 0].sum()}
    if cl is None:
        reps = count_replicates(metrics, groups, n_resamples, True, rng, False).values
        deff, suffix = np.ones(4), ""
    else:
        reps = cell_replicates(lambda k: metrics(k.reshape(-1, 2, 2)),
                               2 * positive.astype(np.intp) + predicted, 4, cl, n_resamples,
                               rng, 8 * 16, w)
        deff = confusion_design_effects(cl, positive, predicted, w, level)
        suffix = f" (clustered: {cl.n_clusters} clusters)"
    intervals = {}
    for j, name in enumerate(METRICS):
        if name in dens and integral and dens[name] > 0:
            n_eff = dens[name] / deff[j]
            low, high = proportion_interval(estimate[j] * n_eff, n_eff, level, method)
            intervals[name] = Interval(float(estimate[j]), low, high, level, method + suffix,
                                       float(np.sqrt(estimate[j] * (1 - estimate[j])
                                                     / n_eff)), None, None, name)
        else:
            intervals[name] = _interval(name, estimate[j], reps[:, j], level, n_resamples,
                                        None if cl is None else "percentile" + suffix)
    scores = np.unique(s)[::-1]
    below = scores[scores < threshold]
    midpoint = 0.5 * (threshold + below[0]) if below.shape[0] else -np.inf
    return OperatingPoint(threshold, float(midpoint), None, intervals, level, n_resamples)
