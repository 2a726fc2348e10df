"""Intervals from mergeable states alone: confusion counts and score maps.

Streaming and distributed evaluation keep only the merged states
(:class:`~dartboard.metrics.ConfusionCounts`, :class:`~dartboard.metrics.ScoreState`),
never the rows. These functions form the intervals those states determine, through
the same engines as :func:`dartboard.interval`:

- :func:`interval_from_counts`: every interval of a count metric. The cells of
  the confusion matrix are read as frequency counts of rows, so the proportion
  intervals use them directly and the bootstrap draws the resampled matrix as
  a multinomial over the cells (one per true-class row when stratified); the
  BCa jackknife is exact in closed form (one leave-one-out value per non-empty
  cell). ``interval(metric, y_true, y_pred, ...)`` computes the counts and
  takes this same path, so both give the same interval, with the same
  bootstrap distribution for the same seed.
- :func:`interval_from_score_state`: DeLong's interval of ROC AUC from the
  distinct scores with their positive and negative counts, or a bootstrap
  drawn as a multinomial over the (score, class) cells by the same engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dartboard._kernels import _bootstrap
from dartboard._kernels._methods import IntervalMethod
from dartboard._kernels._result import Interval
from dartboard._rng import RandomStateLike, check_random_state
from dartboard._validation import check_option, describe
from dartboard.exceptions import InputError, InputTypeError
from dartboard.families import Metric, family_of
from dartboard.families._base import interval_of
from dartboard.families._counts import CountsState
from dartboard.families._scores import KERNELS, ScoreCells
from dartboard.metrics._registry import get_spec, resolve_metric, specs
from dartboard.uncertainty._interval import _interval_iv

__all__ = ["interval_from_counts", "interval_from_score_state"]


def interval_from_counts(metric: str | Callable[..., Any], counts: Any, *,
                         method: IntervalMethod = "auto", confidence_level: float = 0.95,
                         n_resamples: int = 10_000, stratified: bool = False,
                         random_state: RandomStateLike = None, **metric_kwargs: Any) -> Interval:
    """Confidence interval of a count metric from its confusion counts alone.

    Parameters
    ----------
    metric : str or callable
        A dartboard count metric (``dartboard.metrics.f1_score``...) or its name
        (``"f1_score"``): accuracy, precision, recall, F1, F-beta, specificity,
        FPR, FNR, selection rate, MCC, balanced accuracy, Cohen's kappa.
    counts : ConfusionCounts
        The confusion counts of the data, e.g. merged over batches. Each cell
        is read as a number of rows (frequency counts).
    method : str, default="auto"
        As in :func:`dartboard.interval` (``"delong"`` excepted): ``"wald"``,
        ``"wilson"``, ``"clopper-pearson"``, ``"agresti-coull"``,
        ``"jeffreys"`` for the proportion metrics, ``"percentile"``,
        ``"basic"``, ``"bca"`` for any count metric; ``"auto"`` picks wilson for
        proportions and bca otherwise.
    confidence_level : float, default=0.95
        Confidence level of the interval, in (0, 1).
    n_resamples : int, default=10_000
        Bootstrap resamples, at most 10**8 (``MAX_RESAMPLES``).
    stratified : bool, default=False
        Resample within each true class (one multinomial per row of the matrix).
    random_state : None, int, SeedSequence or Generator
        Seed of the bootstrap.
    **metric_kwargs
        Passed to the metric (``pos_label``, ``average``, ``beta``...).

    Returns
    -------
    Interval

    Raises
    ------
    ValueError
        ``counts`` has a cell that is not a whole number: it was built with
        non-integer ``sample_weight``, and then neither a multinomial over the
        cells nor a binomial proportion describes the data (the state does not
        keep the individual weights). Use :func:`dartboard.interval` on the
        rows with ``sample_weight`` instead. Also: no samples, an unknown or
        non-count metric, a method that does not apply.
    TypeError
        ``counts`` is not a ConfusionCounts.

    Notes
    -----
    Integer sample weights are frequency weights here: a row of weight 3 counts
    as 3 rows. :func:`dartboard.interval` with ``sample_weight`` resamples rows
    instead, each keeping its weight, which gives a different bootstrap (its
    analytic intervals agree). Whole-valued float cells (a float weight column
    holding 1.0, 2.0...) are taken as counts; fractional weights that happen
    to add up to whole numbers cannot be told apart from them.

    Examples
    --------
    >>> from dartboard.metrics import ConfusionCounts
    >>> counts = ConfusionCounts([0, 1], [[3, 1], [1, 5]])
    >>> iv = interval_from_counts("accuracy_score", counts)
    >>> iv.method, round(iv.estimate, 2), round(iv.low, 4), round(iv.high, 4)
    ('wilson', 0.8, 0.4902, 0.9433)
    >>> interval_from_counts("f1_score", counts, random_state=0, n_resamples=2000).method
    'bca'
    """
    from dartboard.metrics._confusion import ConfusionCounts

    iv = _interval_iv(metric, method, confidence_level, n_resamples, stratified,
                      check_metric=False)
    counting = sorted(s.name for s in specs() if s.counted)
    resolved = resolve_metric(metric)
    spec, metric_kwargs = resolved.spec, {**resolved.kwargs, **metric_kwargs}
    if spec is None or not spec.counted:
        raise InputError(f"metric must be a dartboard count metric (one of "
                         f"{', '.join(counting)}); got {resolved.label}: an interval from "
                         "counts needs a metric of the confusion matrix; use "
                         "dartboard.interval on the data for other metrics")
    if not isinstance(counts, ConfusionCounts):
        raise InputTypeError(f"counts must be a dartboard.metrics.ConfusionCounts; got "
                             f"{describe(counts)}")
    if counts.multilabel:
        # the per-label matrices and per-sample triples do not say which labels of a
        # row go together, and a resample moves a row's labels together
        raise InputError("counts holds multilabel-indicator counts (the per-label form), "
                         "which do not keep each sample's pattern of labels that a bootstrap "
                         "resamples; use dartboard.interval on the indicator arrays instead")
    check_frequency_counts(counts.matrix, "counts")
    if not counts.total:
        raise InputError("counts holds no samples (all cells are 0); no interval can be formed")
    name = spec.name
    estimate = _bootstrap.as_float(counts.compute(name, **metric_kwargs), name)
    if not np.isfinite(estimate):
        raise InputError(f"{name} is undefined on these counts (it is {estimate}); no "
                         "interval can be formed")
    family = family_of(spec)
    assert family is not None  # a count metric, of the counts family
    return interval_of(family, CountsState(counts), Metric(spec, dict(metric_kwargs)),
                       method=iv["method"], level=iv["confidence_level"],
                       n_resamples=iv["n_resamples"], stratified=iv["stratified"],
                       rng=check_random_state(random_state), estimate=estimate)


def check_frequency_counts(values: np.ndarray, name: str) -> None:
    """Raise unless every value is a whole number (frequency counts of rows)."""
    values = np.asarray(values)
    if values.dtype.kind in "biu":
        return
    whole = np.isfinite(values) & (np.mod(values, 1) == 0) if values.dtype.kind == "f" \
        else np.zeros(values.shape, bool)
    if not np.all(whole):
        bad = values[~whole].ravel()[:3].tolist()
        raise InputError(f"{name} holds non-integer totals such as {bad!r} (a state built "
                         "with non-integer sample_weight); an interval from a state reads "
                         "its cells as frequency counts of rows, which these are not, and "
                         "the state does not keep the individual weights. Use "
                         "dartboard.interval on the rows with sample_weight instead")


def interval_from_score_state(score_state: Any, *, metric: str = "roc_auc_score",
                              method: IntervalMethod = "auto", confidence_level: float = 0.95,
                              n_resamples: int = 10_000, stratified: bool = False,
                              random_state: RandomStateLike = None,
                              **metric_kwargs: Any) -> Interval:
    """Interval of ROC AUC from a score map (distinct scores with class counts) alone.

    - ``"auto"``: as :func:`dartboard.interval` chooses for ROC AUC (the
      registry's ``auto_interval`` by the smaller class).
    - ``"delong"``: ``AUC +- z sqrt(var)`` clipped to [0, 1],
      with DeLong's variance from the tie groups (grouped midranks, see
      :func:`dartboard._kernels._analytic.delong_variance_grouped`); equal to
      ``dartboard.interval(roc_auc_score, y_true, y_score, method="delong")`` on
      the rows the state was built from. A class with a single sample
      contributes 0 to the variance, as there. ``"delong-logit"``: the same
      variance on the logit scale. ``"newcombe"``: Newcombe's (2006) method 5,
      which needs only the AUC and the class sizes.
    - ``"percentile"``, ``"basic"``, ``"bca"``: bootstrap of the rows, drawn as
      a multinomial over the non-empty (score, class) cells (stratified: one
      per class), the AUC of each replicate from cumulative sums over the
      scores, O(distinct scores) per resample; the BCa jackknife is exact in
      closed form (removing one positive at score ``s`` takes
      ``neg below s + neg at s / 2`` from the sum of pair wins). The same
      distribution as ``dartboard.interval``'s row bootstrap on those rows (not
      draw for draw: that one draws row indices). Resamples without a positive
      or a negative are dropped with a warning (``stratified=True`` avoids them).

    Parameters
    ----------
    score_state : ScoreState
        A :class:`~dartboard.metrics.ScoreState` (exact), e.g. merged over batches.
        Its counts are read as frequency counts of rows.
    metric : {"roc_auc_score"}
        The metric of the state; ROC AUC is the one a score state supports.
    method : {"auto", "delong", "delong-logit", "newcombe", "percentile", "basic", "bca"}
        Interval method; ``"auto"`` chooses by the smaller class's size, as
        :func:`~dartboard.interval` does.
    confidence_level : float, default=0.95
        Confidence level of the interval, in (0, 1).
    n_resamples : int, default=10_000
        Number of bootstrap replicates (bootstrap methods only).
    stratified : bool, default=False
        Draw the positives and the negatives separately, keeping each class's count.
    random_state : None, int, SeedSequence or Generator
        A seed (int), a ``SeedSequence``, a ``Generator``, or None for fresh entropy.
    **metric_kwargs
        Keywords of ``metric`` (the target of ``sensitivity_at_specificity``).

    Returns
    -------
    Interval

    Raises
    ------
    ValueError
        No positive or no negative sample (AUC undefined), non-integer counts
        (a state built with non-integer ``sample_weight``: the state does not
        keep the individual weights), another metric or method.
    TypeError
        ``score_state`` is not a ScoreState.

    Examples
    --------
    >>> from dartboard.metrics import ScoreState
    >>> state = ScoreState.from_scores([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
    >>> iv = interval_from_score_state(state, method="delong")
    >>> iv.method, round(iv.estimate, 4), round(iv.low, 4), round(iv.high, 4)
    ('delong', 0.8889, 0.5809, 1.0)
    >>> iv = interval_from_score_state(state)  # 3 per class: Newcombe's interval
    >>> iv.method, round(iv.low, 4), round(iv.high, 4)
    ('newcombe', 0.401, 0.9884)
    >>> interval_from_score_state(state, method="percentile", stratified=True,
    ...                           random_state=0).method
    'percentile'
    """
    from dartboard.metrics import ScoreState

    check_option(metric, "metric", sorted(KERNELS))
    iv = _interval_iv(metric, method, confidence_level, n_resamples, stratified,
                      check_metric=False)
    if not isinstance(score_state, ScoreState):
        raise InputTypeError(f"score_state must be a dartboard.metrics.ScoreState; got "
                             f"{describe(score_state)}")
    check_frequency_counts(score_state.pos, "score_state.pos")
    check_frequency_counts(score_state.neg, "score_state.neg")
    m, n = float(score_state.n_positive), float(score_state.n_negative)
    if m == 0 or n == 0:
        raise InputError(f"{metric} is undefined when the state holds only one class "
                         f"({m:g} positive and {n:g} negative samples)")
    spec = get_spec(metric)
    family = family_of(spec)
    assert family is not None  # a ranking metric, of the scores family
    return interval_of(family, _score_cells(score_state), Metric(spec, metric_kwargs),
                       method=iv["method"], level=iv["confidence_level"],
                       n_resamples=iv["n_resamples"], stratified=iv["stratified"],
                       rng=check_random_state(random_state))


def _score_cells(state: Any) -> ScoreCells:
    """The (score, class) cells of a map of whole counts, rows of weight one."""
    pos, neg = np.asarray(state.pos), np.asarray(state.neg)
    at_pos, at_neg = np.flatnonzero(pos), np.flatnonzero(neg)
    score = np.concatenate([state.scores[at_neg], state.scores[at_pos]])
    positive = np.repeat([False, True], [at_neg.shape[0], at_pos.shape[0]])
    size = np.concatenate([neg[at_neg], pos[at_pos]]).astype(np.int64)
    order = np.lexsort((positive, score))
    return ScoreCells(score[order], positive[order], np.ones(order.shape[0]), size[order])
