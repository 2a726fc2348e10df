"""``interval`` and ``cv_interval``: the public face of dartboard's intervals."""

from __future__ import annotations

import numbers
import reprlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from dartboard._labels import encode_labels, indicator_pair, positive_index
from dartboard._results import Result
from dartboard._rng import check_random_state
from dartboard._validation import (
    as_float_array,
    check_confidence_level,
    check_consistent_length,
    check_n_resamples,
    check_option,
    check_sample_weight,
    column_1d,
    describe,
    rows_array,
)
from dartboard.metrics._registry import MetricSpec, spec_for, specs
from dartboard.uncertainty import _analytic, _asymptotic, _bootstrap
from dartboard.uncertainty._bootstrap import IntervalWarning

__all__ = ["Interval", "IntervalWarning", "cv_interval", "interval"]

_BOOTSTRAP_METHODS = ("percentile", "basic", "bca")
#: every ``method`` of :func:`interval`
METHODS = ("auto", *_analytic.PROPORTION_METHODS, "delong", *_asymptotic.METHODS,
           *_BOOTSTRAP_METHODS)


@dataclass(frozen=True, repr=False)
class Interval(Result):
    """A point estimate with its confidence interval.

    Attributes
    ----------
    estimate : float
        The metric on the data (or the mean fold score for :func:`cv_interval`).
    low, high : float
        Interval bounds.
    confidence_level : float
    method : str
        The method actually used (``method="auto"`` resolved; ``"percentile"``
        when BCa fell back, see :mod:`dartboard.uncertainty`).
    standard_error : float
        Bootstrap: standard deviation of the replicates (ddof = 1). Proportions:
        ``sqrt(p (1 - p) / n)``. DeLong: ``sqrt(var)``; Newcombe: the square root of
        its variance at the estimate. ``cv_interval``: the
        (corrected) standard error of the mean. ``nan`` (with a warning) when the
        metric is undefined.
    bootstrap_distribution : ndarray or None
        The replicates kept (bootstrap methods only).
    n_resamples : int or None
        Resamples drawn (bootstrap methods only).
    metric : str
        Name of the metric.
    """

    estimate: float
    low: float
    high: float
    confidence_level: float
    method: str
    standard_error: float
    bootstrap_distribution: np.ndarray | None = None
    n_resamples: int | None = None
    metric: str = ""


def interval(metric: Callable[..., Any], y_true: Any, y_other: Any, *, method: str = "auto",
             confidence_level: float = 0.95, n_resamples: int = 10_000,
             stratified: bool = False, random_state: Any = None, sample_weight: Any = None,
             **metric_kwargs: Any) -> Interval:
    """Confidence interval of any metric: analytic where exact theory exists, else bootstrap.

    Parameters
    ----------
    metric : callable
        A dartboard metric (``dartboard.metrics.f1_score``...) or any callable
        ``f(y_true, y_other, **metric_kwargs) -> float`` (it must accept
        ``sample_weight=`` when weights are given).
    y_true, y_other : array-like of shape (n_samples,) or (n_samples, k)
        True values and predictions (labels or scores, as ``metric`` expects).
    method : str, default="auto"
        ``"wald"``, ``"wilson"``, ``"clopper-pearson"``, ``"agresti-coull"``,
        ``"jeffreys"`` (proportion metrics), ``"delong"``, ``"delong-logit"`` and
        ``"newcombe"`` (binary ROC AUC), ``"logit"`` (Boyd et al. 2013) and
        ``"influence-logit"`` (binary average precision and PR AUC), ``"t"`` (a mean of per-sample
        losses: log loss, Brier, MAE, MSE, RMSE, MAPE; see
        :mod:`dartboard.uncertainty._asymptotic`), ``"percentile"``, ``"basic"``,
        ``"bca"`` (bootstrap, any metric). ``"auto"`` picks wilson for
        proportions, bca for other count metrics and generic callables, and for
        the rest the registry's choice by sample size (``auto_interval``,
        measured by coverage in ``benchmarks/interval_choice.py``): binary ROC
        AUC newcombe below 30 samples in the smaller class, delong-logit from 30
        and delong from 100, multiclass (ovr macro) AUC influence-logit, AP and PR AUC logit
        below 100 in the smaller class and influence-logit from 100, mean
        losses t from 1000 samples and bca below, the registry's bootstrap method
        where it names one (basic for calibration_error). Analytic methods take no
        ``sample_weight``; with weights ``auto`` uses bca.
    confidence_level : float, default=0.95
        Strictly between 0 and 1.
    n_resamples : int, default=10_000
        Bootstrap resamples (bootstrap methods only), at most
        ``dartboard._validation.MAX_RESAMPLES`` (10**8); drawn in memory-bounded
        batches.
    stratified : bool, default=False
        Resample within each class of ``y_true`` so that every resample keeps
        every class (bootstrap methods only; analytic methods ignore it).
    random_state : None, int, SeedSequence or Generator
        Seed of the bootstrap; the same seed gives the same interval.
    sample_weight : array-like of shape (n_samples,), optional
        Row weights. The bootstrap resamples rows, each keeping its weight.
        Analytic proportion intervals accept integer weights only (as frequency
        counts); DeLong does not take weights. ``"auto"`` then uses BCa. Float
        weights whose largest magnitude lies outside [2**-100, 2**100] are first
        multiplied by a power of two (exact; a metric that is a weighted average
        does not notice, and denormal or huge weights no longer under- or
        overflow), and ``metric`` receives them so.
    **metric_kwargs
        Passed to ``metric`` (``pos_label``, ``average``, ``beta``...).

    Returns
    -------
    Interval

    Notes
    -----
    Proportion metrics are ``x / n`` with ``n`` the metric's own denominator:
    accuracy ``N``, precision ``TP + FP``, recall ``TP + FN``, specificity and
    FPR ``TN + FP``, FNR ``FN + TP``, selection rate ``N`` (binary, with
    ``pos_label``; multiclass only for accuracy). When ``n = 0`` the metric is
    undefined: the interval is the whole [0, 1], with a warning and a ``nan``
    standard error. DeLong's interval is ``AUC +- z sqrt(var)`` clipped to
    [0, 1] (no transform); ``delong-logit`` carries the same variance to the
    logit scale, which keeps coverage when one class is small.

    Bootstrap: rows are resampled with replacement (``stratified``: within each
    class of ``y_true``). Count metrics draw the resampled confusion matrix as a
    multinomial (O(K^2) per resample), binary ROC AUC and average precision reuse
    one sort, other metrics resample indices in batches of at most 64 MB. A
    resample on which the metric is undefined (a 0/0 ratio with
    ``zero_division="warn"``, no positive sample for AUC, a callable returning
    nan or raising ``ValueError``, e.g. a multiclass AUC or log loss missing a
    class) is dropped, with an :class:`IntervalWarning` giving how many; if all are
    undefined a ``ValueError`` is raised. All replicates equal gives a zero-width
    interval with a warning. BCa returns the percentile interval, with a warning,
    when its bias correction is infinite or the jackknife values are all equal.
    The BCa jackknife is exact leave-one-out up to 1000 rows and a
    delete-a-group jackknife over 1000 random groups beyond (count metrics and
    ROC AUC: always exact, in closed form). Warnings raised by a callable during
    resampling are summarised in one warning.

    ``max_error`` gets its bootstrap interval with an :class:`IntervalWarning`: the
    bootstrap of a sample maximum is inconsistent (no resample exceeds the observed
    maximum, so the upper end is the estimate).

    Examples
    --------
    >>> from dartboard.metrics import accuracy_score
    >>> y_true = [0, 1, 1, 0, 1, 1, 0, 1, 0, 1]
    >>> y_pred = [0, 1, 0, 0, 1, 1, 1, 1, 0, 1]
    >>> iv = interval(accuracy_score, y_true, y_pred)
    >>> iv.method, round(iv.estimate, 2), round(iv.low, 4), round(iv.high, 4)
    ('wilson', 0.8, 0.4902, 0.9433)
    """
    iv = _interval_iv(metric, method, confidence_level, n_resamples, stratified)
    spec = spec_for(metric)
    name = "" if spec is None else spec.name
    if spec is not None and spec.scalar and spec.default_interval is None:
        warnings.warn(f"a bootstrap interval of {name} is not reliable: it is a sample "
                      "maximum, which no resample can exceed, so the interval's upper end is "
                      "the estimate itself and the true maximum error is under-covered",
                      IntervalWarning, stacklevel=2)
    y_t = rows_array(y_true, name="y_true")
    y_o = rows_array(y_other, name="y_other")
    n = check_consistent_length(("y_true", y_t), ("y_other", y_o))
    w = check_sample_weight(sample_weight, n, scale_free=True)
    kwargs = dict(metric_kwargs)
    if w is not None:
        kwargs["sample_weight"] = w
    estimate = _bootstrap.as_float(metric(y_t, y_o, **kwargs), name or "metric")
    kwargs.pop("sample_weight", None)
    if not np.isfinite(estimate):
        raise ValueError(f"{name or 'the metric'} is undefined on this data (it returned "
                         f"{estimate}); no interval can be formed")
    method = iv["method"]
    level = iv["confidence_level"]
    if _is_count(spec) and y_t.ndim == 2:
        pair = indicator_pair(y_t, y_o, names=("y_true", "y_other"))
        if pair is not None:  # rows resampled as per-sample label patterns
            from dartboard.uncertainty._multilabel import multilabel_count_interval

            return multilabel_count_interval(spec, *pair, w, estimate, method, level,
                                             iv["n_resamples"], stratified, random_state,
                                             metric_kwargs)
    if _is_count(spec) and y_t.ndim == 1:
        return _count_interval(spec, _rows_state(y_t, y_o, w), estimate, method, level,
                               iv["n_resamples"], stratified, random_state, metric_kwargs,
                               groups=None if w is None else _row_groups(y_t, y_o, w),
                               integral=_integral_weights(w))
    if method == "auto":
        method = _auto_method(spec, y_t, y_o, w, metric_kwargs)
    if method in _analytic.PROPORTION_METHODS:
        raise _not_a_proportion(method, name)
    if method in _asymptotic.ROC_AUC_METHODS:
        return _delong(spec, estimate, y_t, y_o, w, level, metric_kwargs, method)
    if method in _asymptotic.METHODS:
        from dartboard.uncertainty._large import asymptotic_interval

        return asymptotic_interval(spec, method, estimate, y_t, y_o, w, level, metric_kwargs)
    rng = check_random_state(random_state)
    reps = _replicates(metric, spec, y_t, y_o, w, metric_kwargs, iv["n_resamples"],
                       stratified, rng, method == "bca")
    low, high, se, used, dist = _bootstrap.bootstrap_interval(
        estimate, reps, level, method, None if spec is None else spec.bounds)
    if spec is not None and spec.covers_estimate:
        low, high = min(low, estimate), max(high, estimate)
    return Interval(estimate, low, high, level, used, se, dist, iv["n_resamples"],
                    name or getattr(metric, "__name__", "metric"))


def _interval_iv(metric: Any, method: Any, confidence_level: Any, n_resamples: Any,
                 stratified: Any, *, check_metric: bool = True) -> dict[str, Any]:
    if check_metric and not callable(metric):
        raise TypeError(f"metric must be a callable f(y_true, y_other, **kwargs) -> float; "
                        f"got {type(metric).__name__}")
    check_option(method, "method", METHODS)
    if not isinstance(stratified, (bool, np.bool_)):
        raise TypeError(f"stratified must be True or False; got {stratified!r}")
    return {"method": method, "confidence_level": check_confidence_level(confidence_level),
            "n_resamples": check_n_resamples(n_resamples),
            "stratified": bool(stratified)}


def _is_count(spec: MetricSpec | None) -> bool:
    """Whether a metric's interval takes the confusion-count path (a scalar count metric)."""
    return spec is not None and spec.interval_fast == "counts" and spec.scalar


def _integral_weights(w: np.ndarray | None) -> bool:
    return w is None or w.dtype.kind in "iu" or bool(np.all(np.mod(w, 1) == 0))


def _auto_method(spec: MetricSpec | None, y_t: np.ndarray, y_o: np.ndarray,
                 w: np.ndarray | None, kwargs: dict[str, Any]) -> str:
    """``method="auto"`` for ranking and generic metrics (count metrics: _count_interval).

    The registry's ``auto_interval`` by sample size, else its ``default_interval``;
    BCa when the analytic method chosen does not apply to these inputs (weights,
    keywords, multiclass scores).
    """
    if spec is None:
        return "bca"
    from dartboard.uncertainty._large import applicable, sample_size

    size = sample_size(spec, y_t) if spec.auto_interval else 0
    candidates = [spec.default_interval or "bca"] + \
        [choice for minimum, choice in spec.auto_interval if size >= minimum]
    for method in reversed(candidates):
        if method in _BOOTSTRAP_METHODS or applicable(spec, method, y_t, y_o, w, kwargs):
            return method
    return "bca"


# --------------------------------------------------------------------- analytic

def _proportion_setup(spec: MetricSpec, state: Any, integral: bool, kwargs: dict[str, Any]
                      ) -> tuple[float, float]:
    """``(x, n)`` of proportion metric ``spec`` from a ConfusionCounts ``state``."""
    name = spec.name
    hint = "; use a bootstrap method (percentile, basic or bca) instead"
    allowed = {"pos_label", "average", "zero_division", "labels"} if spec.average \
        else {"normalize"}
    extra = set(kwargs) - allowed
    if extra:
        raise ValueError(f"analytic proportion intervals do not support the keyword(s) "
                         f"{sorted(extra)} of {name}{hint}")
    if not kwargs.get("normalize", True):
        raise ValueError(f"accuracy_score with normalize=False is a count, not a "
                         f"proportion{hint}")
    if not integral:
        raise ValueError("analytic proportion intervals need counts; sample_weight has "
                         f"non-integer values{hint}")
    pos_index = None
    if spec.average:
        if kwargs.get("average", "binary") != "binary" or kwargs.get("labels") is not None:
            raise ValueError(f"analytic intervals of {name} are defined for the binary case "
                             f"(average='binary', one pos_label) only{hint}")
        pos_index = positive_index(state.classes, kwargs.get("pos_label", 1))
    return _analytic.proportion_counts(spec.proportion, state.matrix, pos_index)


def _not_a_proportion(method: str, name: str) -> ValueError:
    proportions = ", ".join(s.name for s in specs() if s.proportion is not None)
    return ValueError(f"method={method!r} is an interval for a proportion and applies to "
                      f"{proportions} only; got metric "
                      f"{name or 'a user callable'}; use 'percentile', 'basic' or 'bca'")


def _proportion(spec: MetricSpec, method: str, estimate: float, state: Any, integral: bool,
                level: float, kwargs: dict[str, Any]) -> Interval:
    name = spec.name
    if spec.proportion is None:
        raise _not_a_proportion(method, name)
    x, n = _proportion_setup(spec, state, integral, kwargs)
    if n == 0:
        warnings.warn(f"{name} is undefined here (its denominator is 0); the interval is the "
                      "whole range [0, 1]", IntervalWarning, stacklevel=4)
        return Interval(estimate, 0.0, 1.0, level, method, float("nan"), None, None, name)
    low, high = _analytic.proportion_interval(x, n, level, method)
    p = x / n
    return Interval(estimate, low, high, level, method, float(np.sqrt(p * (1 - p) / n)),
                    None, None, name)


# --------------------------------------------------------------------- counts

def _rows_state(y_t: np.ndarray, y_o: np.ndarray, w: np.ndarray | None) -> Any:
    from dartboard.metrics._confusion import ConfusionCounts

    return ConfusionCounts.from_predictions(y_t, y_o, sample_weight=w,
                                            names=("y_true", "y_other"))


def _row_groups(y_t: np.ndarray, y_o: np.ndarray, w: np.ndarray) -> _bootstrap.CountGroups:
    """Weighted rows grouped by (cell, weight): the bootstrap resamples rows, not units."""
    enc = encode_labels(("y_true", y_t), ("y_pred", y_o))
    t, p = enc.codes
    return _bootstrap.CountGroups.from_codes(t, p, enc.n_classes, w)


def _count_interval(spec: MetricSpec, state: Any, estimate: float, method: str, level: float,
                    n_resamples: int, stratified: bool, random_state: Any,
                    kwargs: dict[str, Any], *, groups: _bootstrap.CountGroups | None = None,
                    integral: bool = True) -> Interval:
    """The one interval path of a count metric, from its confusion counts.

    ``state`` is the ConfusionCounts of the data; ``groups`` the rows grouped by
    (cell, weight) when rows carry weights (each resampled row keeps its
    weight), else the bootstrap draws the frequency counts of ``state``'s cells.
    ``integral``: the weights (or counts) are whole numbers, as analytic
    proportion intervals need.
    """
    name = spec.name
    if method == "auto":
        method = "bca"
        if spec.proportion is not None and integral:
            try:
                _proportion_setup(spec, state, integral, kwargs)
                method = spec.default_interval
            except ValueError:
                pass
    if method in _analytic.PROPORTION_METHODS:
        return _proportion(spec, method, estimate, state, integral, level, kwargs)
    if method in _asymptotic.ROC_AUC_METHODS:
        raise _not_delong(name, method)
    if method in _asymptotic.METHODS:
        from dartboard.uncertainty._large import asymptotic_interval

        asymptotic_interval(spec, method, estimate, None, None, None, level, kwargs)
    from dartboard.metrics._batched import batch_count_metric

    if groups is None:
        groups = _bootstrap.CountGroups.from_matrix(state.matrix)
    reps = _bootstrap.count_replicates(
        lambda mats: batch_count_metric(spec.name, state.classes, mats, kwargs, undefined="nan"),
        groups, n_resamples, stratified, check_random_state(random_state), method == "bca")
    # normalize=False turns accuracy into a count, outside the proportion's range
    bounds = spec.bounds if kwargs.get("normalize", True) else None
    low, high, se, used, dist = _bootstrap.bootstrap_interval(estimate, reps, level, method,
                                                              bounds)
    return Interval(estimate, low, high, level, used, se, dist, n_resamples, name)


# --------------------------------------------------------------------- ranking

def _not_delong(name: str, method: str = "delong") -> ValueError:
    delong = ", ".join(f"dartboard.metrics.{s.name}" for s in specs()
                       if s.default_interval == "delong")
    return ValueError(f"method={method!r} applies to {delong} only; got "
                      f"{name or 'a user callable'}; use 'percentile', 'basic' or 'bca'")


def _binary_scores(y_t: np.ndarray, y_o: np.ndarray, pos_label: Any = None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(bool positives, float scores) for a binary ranking metric.

    The positive class is ``pos_label``, or the greater of the two labels.
    """
    scores = as_float_array(y_o, name="y_score")
    labels = column_1d(y_t, name="y_true")
    classes = np.unique(labels)
    if classes.shape[0] != 2:
        raise ValueError(f"a binary y_true (two classes) is needed; got {classes.shape[0]} "
                         f"class(es) {classes.tolist()!r}")
    code = positive_index(classes, pos_label, infer="greater")
    return labels == (classes[code] if code >= 0 else pos_label), scores


def _delong(spec: MetricSpec | None, estimate: float, y_t: np.ndarray, y_o: np.ndarray,
            w: np.ndarray | None, level: float, kwargs: dict[str, Any],
            method: str = "delong") -> Interval:
    from dartboard._delong import delong_auc_covariance, delong_terms

    name = "" if spec is None else spec.name
    if spec is None or spec.default_interval != "delong":
        raise _not_delong(name, method)
    if w is not None:
        raise ValueError(f"method={method!r} does not take sample_weight; use a bootstrap "
                         "method (percentile, basic or bca)")
    if kwargs.get("max_fpr") not in (None, 1, 1.0):
        # the estimate is then the standardised partial AUC, which DeLong's variance
        # of the full AUC does not describe (the interval missed the estimate)
        raise ValueError(f"method={method!r} is the interval of the full ROC AUC; "
                         f"max_fpr={kwargs['max_fpr']!r} (a partial AUC) needs a bootstrap "
                         "method (percentile, basic or bca)")
    n_classes = np.unique(column_1d(y_t, name="y_true")).shape[0]
    if np.ndim(y_o) != 1 or n_classes > 2:
        author = "Newcombe" if method == "newcombe" else "DeLong"
        raise ValueError(f"method={method!r} is {author}'s interval of a binary ROC AUC; got "
                         f"{n_classes} classes in y_true and y_score of shape "
                         f"{np.shape(y_o)}; use a bootstrap method (percentile, basic or bca) "
                         "for a multiclass AUC")
    y, scores = _binary_scores(y_t, y_o)
    if method == "delong-logit":
        low, high, se = _asymptotic.delong_logit(*delong_terms(y, scores), level)
    elif method == "newcombe":
        m = float(np.count_nonzero(y))
        low, high, se = _asymptotic.newcombe_interval(estimate, m, y.shape[0] - m, level)
    else:
        aucs, cov = delong_auc_covariance(y, scores[None, :])
        low, high, se = _analytic.delong_interval(float(aucs[0]), float(cov[0, 0]), level)
    return Interval(estimate, low, high, level, method, se, None, None, name)


# --------------------------------------------------------------------- bootstrap

def _replicates(metric: Callable[..., Any], spec: MetricSpec | None, y_t: np.ndarray,
                y_o: np.ndarray, w: np.ndarray | None, kwargs: dict[str, Any],
                n_resamples: int, stratified: bool, rng: np.random.Generator,
                jackknife: bool) -> _bootstrap.Replicates:
    name = "" if spec is None else spec.name
    if spec is not None and spec.interval_fast == "calibration":
        from dartboard.uncertainty._calibration import calibration_replicates

        reps = calibration_replicates(y_t, y_o, w, kwargs, n_resamples, stratified, rng,
                                      jackknife)
        if reps is not None:
            return reps
    if spec is not None and spec.interval_fast in ("roc", "ap", "pr") \
            and set(kwargs) <= {"pos_label"} and np.ndim(y_o) == 1:
        # the metric's own pos_label default (1) where it takes one; else the greater label
        pos_label = kwargs.get("pos_label", 1) if spec.pos_label else None
        y, scores = _binary_scores(y_t, y_o, pos_label)
        ranked = _bootstrap.RankedScores.build(y, scores, w)
        # RankedScores counts over [positives, negatives]; y is only used for order.
        return _bootstrap.ranking_replicates(spec.interval_fast, ranked, n_resamples,
                                             stratified, rng, jackknife)
    return _generic(metric, name, y_t, y_o, w, kwargs, n_resamples, stratified, rng,
                    jackknife)


def _generic(metric: Callable[..., Any], name: str, y_t: np.ndarray, y_o: np.ndarray,
             w: np.ndarray | None, kwargs: dict[str, Any], n_resamples: int,
             stratified: bool, rng: np.random.Generator,
             jackknife: bool) -> _bootstrap.Replicates:
    n = y_t.shape[0]
    if stratified:
        try:
            codes = encode_labels(("y_true", y_t)).codes[0]
        except (TypeError, ValueError) as exc:
            raise ValueError("stratified=True resamples within each class of y_true and needs "
                             f"class labels there: {exc}") from None
        order = np.argsort(codes, kind="stable")
        strata = np.bincount(codes)
        strata = strata[strata > 0]
    else:
        order, strata = None, np.array([n])
    label = name or getattr(metric, "__name__", "metric")
    caught: list[warnings.WarningMessage] = []
    refused: list[ValueError] = []

    def statistic(idx: np.ndarray) -> float:
        kw = kwargs if w is None else {**kwargs, "sample_weight": w[idx]}
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            try:
                value = metric(y_t[idx], y_o[idx], **kw)
            except ValueError as exc:
                # the metric accepted the full data, so a resample or leave-one-out
                # subset it rejects (e.g. a class missing) is one where it is undefined
                refused.append(exc)
                value = np.nan
        if record:
            caught.append(record[0])
        return _bootstrap.as_float(value, label)

    reps = _bootstrap.generic_replicates(statistic, n, order, strata, n_resamples, rng,
                                         jackknife)
    if caught:
        warnings.warn(f"{label} warned on {len(caught)} bootstrap or jackknife evaluations; "
                      f"the first: {caught[0].category.__name__}: {caught[0].message}",
                      IntervalWarning, stacklevel=4)
    if refused:
        warnings.warn(f"{label} raised ValueError on {len(refused)} bootstrap or jackknife "
                      f"evaluations, which count as undefined; the first: {refused[0]}",
                      IntervalWarning, stacklevel=4)
    return reps


# --------------------------------------------------------------------- folds

def _sample_size(value: Any, name: str) -> float:
    """A positive, finite number of samples as a float (huge Python ints included:
    numpy's ufuncs cannot take an int beyond int64)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive number of samples; got "
                        f"{describe(value)}")
    try:
        size = float(value)
    except OverflowError:
        size = np.inf
    if not 0.0 < size < np.inf:
        raise ValueError(f"{name} must be a positive, finite number of samples; got "
                         f"{reprlib.repr(value)}")
    return size


def cv_interval(fold_scores: Any, *, n_train: Any = None, n_test: Any = None,
                confidence_level: float = 0.95) -> Interval:
    """t-interval of the mean score over k cross-validation folds.

    ``mean +- t_{k-1, 1-alpha/2} s sqrt(c)`` with ``s`` the sample standard
    deviation (ddof = 1) of the fold scores and ``c = 1/k``. Fold training sets
    overlap, so the scores are correlated and ``1/k`` understates the variance;
    given ``n_train`` and ``n_test`` (samples per training and test split), the
    Nadeau-Bengio correction ``c = 1/k + n_test/n_train`` is used (Nadeau &
    Bengio 2003, Machine Learning 52:239-281).

    All fold scores equal gives a zero-width interval with a warning.

    Parameters
    ----------
    fold_scores : array-like of shape (k,), k >= 2
    n_train, n_test : int, optional
        Both or neither.
    confidence_level : float, default=0.95

    Returns
    -------
    Interval
        ``method`` is ``"t"`` or ``"nadeau-bengio"``.

    Examples
    --------
    >>> iv = cv_interval([0.81, 0.84, 0.79, 0.83, 0.80])
    >>> round(iv.estimate, 3), round(iv.low, 4), round(iv.high, 4)
    (0.814, 0.7883, 0.8397)
    >>> cv_interval([0.81, 0.84, 0.79, 0.83, 0.80], n_train=800, n_test=200).method
    'nadeau-bengio'
    """
    level = check_confidence_level(confidence_level)
    scores = as_float_array(fold_scores, name="fold_scores")
    k = scores.shape[0]
    if k < 2:
        raise ValueError(f"fold_scores needs at least 2 folds for a t-interval; got {k}")
    if (n_train is None) != (n_test is None):
        raise ValueError("give both n_train and n_test (the Nadeau-Bengio correction), or "
                         f"neither; got n_train={n_train!r}, n_test={n_test!r}")
    factor, method = 1.0 / k, "t"
    if n_train is not None:
        n_train, n_test = _sample_size(n_train, "n_train"), _sample_size(n_test, "n_test")
        factor, method = 1.0 / k + n_test / n_train, "nadeau-bengio"
    # equal scores: mean and sd exactly (np.std of [0.8] * 3 is 1.4e-16: the mean rounds)
    flat = bool(scores.min() == scores.max())
    mean = float(scores[0]) if flat else float(scores.mean())
    sd = 0.0 if flat else float(scores.std(ddof=1))
    se = sd * float(np.sqrt(factor))
    if sd == 0.0:
        warnings.warn(f"all {k} fold scores are equal; the interval has zero width",
                      IntervalWarning, stacklevel=2)
    half = float(special.stdtrit(k - 1, 0.5 + level / 2.0)) * se
    return Interval(mean, mean - half, mean + half, level, method, se, None, None,
                    "cv_interval")
