"""Nested cross-validation: an interval for the error of the model fit on the data at hand.

Bates, Hastie and Tibshirani (2024, JASA 119:1434-1445, "Cross-validation: what does
it estimate and how well does it do it?", arXiv:2104.00673) show that the naive
interval ``Err_CV +- z sigma / sqrt(n)`` (and the t-interval over fold scores of
:func:`dartboard.cv_interval`) covers far below its level: the per-point errors of
one cross-validation are correlated, since every point trains the models that test
the others. Their nested cross-validation (Algorithm 1) estimates the mean squared
error of the CV estimate directly. For each of ``R`` repetitions the data are cut
into ``K`` folds ``I_1..I_K``; for each outer fold ``k``

- ``e_out`` are the per-point losses on ``I_k`` of the model fit on ``I \\ I_k``;
- ``e_in`` are those of an inner (K - 1)-fold CV of the outer training set: for
  each ``j != k`` the losses on ``I_j`` of the model fit on ``I \\ (I_j u I_k)``;
- ``a_rk = (mean(e_in) - mean(e_out))^2`` and ``b_rk = var(e_out) / |I_k|``.

Then (Algorithm 1)::

    MSE_hat = mean(a) - mean(b)          Err_NCV = mean of all e_in values

and ``Err_CV`` is the plain K-fold CV estimate, the mean of all ``e_out`` values (the
outer folds are a plain repeated K-fold CV, so no extra fits are needed; Bates et
al.'s code draws ``R / 5`` separate CV runs for it). With a learning curve ``a +
b / m`` in the training size ``m``, ``Err_NCV`` (models on ``(K-2)n/K`` points) and
``Err_CV`` (on ``(K-1)n/K``) extrapolate to ``n``::

    centre = Err_NCV - (1 + (K - 2) / K) (Err_NCV - Err_CV)
           = Err_CV - bias,   bias = ((K - 2) / K) (Err_NCV - Err_CV)

``MSE_hat`` is for a CV on ``(K-1)n/K`` points; rescaled to ``n`` and kept between
the naive standard error and ``sqrt(K)`` times it (perfectly independent and
perfectly dependent folds)::

    se = clip(sqrt(max(0, (K - 1) / K * MSE_hat)), sigma_in / sqrt(n),
              sqrt(K) sigma_in / sqrt(n))
    interval = centre -+ z_{1 - alpha/2} se

with ``sigma_in`` the standard deviation (ddof = 1) of all ``e_in`` values. These
are the formulas of mlr3inferr's ``MeasureCiNestedCV`` (R, mlr-org/mlr3inferr) and
of the paper; Bates et al.'s own R code (stephenbates19/nestedcv) raises the
bias factor's ``(K - 2) / K`` to the power 1.5, which the paper does not. The naive
interval ``Err_CV -+ z sigma_out / sqrt(n)`` (``sigma_out`` the standard deviation
of the ``e_out`` values) is returned beside it for contrast.

What is covered: ``Err_XY``, the expected loss of the model fit on all ``n``
points, on new data (not the average ``Err`` over training sets, which CV
estimates better; Bates et al., Section 2). The bias correction moves the centre
away from ``Err_CV``, so the interval need not contain the point estimate.

Any scorer of the registry: for a mean of per-sample losses (the means family's
per-sample terms: log loss, Brier, the deviances, squared, absolute and absolute
percentage errors, accuracy, the 0-1 loss) the ``e`` above are the losses. For any
other metric (ROC AUC, average precision, F1, MCC, R^2, RMSE, ...) a fold's mean of
``e`` is replaced by the metric on the fold (what scikit-learn's scorer of the fold
gives, from ``predict``, ``predict_proba`` or ``decision_function`` as the scorer
reads it), a mean over folds weights each fold by its size, and the ``e`` of an
outer fold are the jackknife pseudo-values of the metric on it, ``m theta - (m - 1)
theta_(-i)`` (``theta_(-i)`` the metric without point ``i``; from the family's cells
in one call where it has them): their variance over ``m`` is the jackknife variance
of the fold's metric, and for a mean they are the losses themselves. The inner
folds give their values only (their pseudo-values would cost ``K - 1`` times the
outer folds'), so ``sigma_in`` is the standard deviation of the outer pseudo-values
for such a metric. A fold on which the metric, or the metric without one point, is
undefined (one sample of a class) is refused.

ROC AUC of a binary target (``roc_auc``, without ``groups``): the jackknife variance
of a small fold's AUC runs above the fold's variance (Efron-Stein; by a quarter on
average for the folds of 10 points of ``benchmarks/nested_cv_coverage.py``), and
that excess is larger than ``mean(a) - mean(b)`` itself, so ``MSE_hat`` sat at its
lower bound and the interval under-covered. So, for this metric, ``b_rk`` is the
unbiased estimate of the fold AUC's variance given its class counts (the AUC is a
two-sample U-statistic), ``theta^2`` minus the U-statistic of ``theta^2`` over pairs
of pairs without a shared point (:func:`_auc_variance`). The lower bound is the
standard error of the mean of ``K`` independent fold AUCs, ``sqrt(mean(b) / K)``
(the analogue of ``sigma_in / sqrt(n)``); the upper stays ``sqrt(K)`` times it. And
the interval is formed on the logit scale by the delta method::

    interval = expit(logit(centre) -+ z se / (centre (1 - centre)))

which stays inside (0, 1) and reaches further on the side away from the nearer
bound, where an AUC's error spreads further (``scale = "logit"``; a centre at 0 or 1
keeps the linear form). The naive interval keeps the jackknife pseudo-values, so
``inflation`` can fall below 1 for ROC AUC. With ``groups`` a fold's ROC AUC keeps
the cluster-robust jackknife and the linear interval.

Scores are kept on the scorer's scale
(``accuracy`` gives correct-indicators, ``neg_mean_squared_error`` negated squared
errors); the algorithm is the same for any such values, as only differences and
variances of them enter it. Predictions the metric refuses (a regressor's numbers
for ``accuracy``, string labels against number labels, NaN) raise its error.

Groups (dartboard's extension, not the paper's): with ``groups`` the folds keep
each group whole, ``b_rk`` is the cluster-robust variance of the fold mean
``m/(m-1) sum_g (sum_{i in g} (e_i - mean e))^2 / |I_k|^2`` over its ``m`` groups,
and ``sigma_in``, ``sigma_out`` are multiplied by the square root of the design
effect ``mean_r(n V_g(e_out)) / mean_r(var(e_out))``. Without groups every point is
its own group and the formulas above hold exactly.

The fits are the cost: ``R K (K + 1) / 2`` of them (the model fit without folds
``j`` and ``k`` serves both inner CVs). Each repetition is one task of
:func:`dartboard._parallel.parallel_map`, in one process unless ``n_jobs`` asks for
more; its folds come from a child seed of ``random_state`` spawned before any task
runs, so the result does not depend on ``n_jobs``. ``n_repeats`` is held to the
bootstraps' memory budget (:func:`dartboard._validation.check_n_resamples`): the fold
of each sample in each repetition is kept.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from scipy import special

from dartboard._kernels._bootstrap import IntervalWarning
from dartboard._numeric import vdot
from dartboard._parallel import parallel_map
from dartboard._results import Result
from dartboard._rng import RandomStateLike, spawn
from dartboard._validation import check_confidence_level, check_int, check_n_resamples, describe, group_array
from dartboard.exceptions import InputError, InputTypeError
from dartboard.families._means import TERMS, has_row_terms, row_terms
from dartboard.metrics._registry import MetricSpec

__all__ = ["CVInterval", "nested_cv_interval"]


@dataclass(frozen=True, repr=False)
class CVInterval(Result):
    """A nested cross-validation interval, with the naive interval beside it.

    Parameters
    ----------
    estimate : float
        ``Err_CV``: the plain repeated K-fold CV estimate, the mean of the
        per-point scores of the outer folds over all repetitions (equal to the
        mean of ``fold_scores`` weighted by fold size; to their plain mean when
        ``K`` divides ``n``).
    low, high : float
        The nested CV interval, centred at ``estimate - bias`` (clipped to the
        metric's range; for a binary ROC AUC on the logit scale, see ``scale``).
    confidence_level : float
        Confidence level of the interval, in (0, 1).
    standard_error : float
        The nested CV standard error, after the bounds (module docstring).
    bias : float
        Estimated bias of ``estimate`` for the model fit on all ``n`` points,
        ``((K - 2) / K) (nested_estimate - estimate)``.
    naive_low, naive_high, naive_standard_error : float
        The naive interval ``estimate -+ z sigma_out / sqrt(n)``, which treats
        the per-point errors as independent.
    mse : float
        Algorithm 1's ``MSE_hat = mean(a) - mean(b)`` (may be negative), for a CV
        on ``(K - 1) n / K`` points.
    nested_estimate : float
        ``Err_NCV``, the mean of the inner-CV scores (models on ``(K-2)/K`` of the data).
    inflation : float
        ``standard_error / naive_standard_error``: how much wider than the naive
        interval the nested one is (the paper's "NCV width"; near 1 to ``sqrt(K)``,
        the bounds being set with the inner losses' spread, the naive interval with
        the outer ones'; for ROC AUC the bounds come from the unbiased fold
        variances and the naive interval from the jackknife, so it can be below 1).
    fold_scores : ndarray of shape (n_repeats, n_splits)
        Mean score of each outer fold: a plain repeated K-fold CV.
    fold_ids : ndarray of shape (n_repeats, n_samples)
        The fold of each point in each repetition.
    n_splits, n_repeats, n_samples : int
        Folds per repetition, repetitions of the cross-validation, and rows.
    scoring : str
        The scorer or metric, on whose scale every number is.
    scale : str
        ``"linear"``: the interval is ``centre -+ z standard_error``; ``"logit"`` (ROC
        AUC of a binary target without groups): ``expit(logit(centre) -+ z
        standard_error / (centre (1 - centre)))``, inside (0, 1).
    method : str
        ``"nested-cv"``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from dartboard import nested_cv_interval
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = X @ [1.0, -1.0, 0.5] + rng.normal(size=60)
    >>> res = nested_cv_interval(LinearRegression(), X, y, scoring="mean_squared_error",
    ...                          cv=5, n_repeats=10, random_state=0)
    >>> res.method, round(res.low, 3) < round(res.estimate, 3) < round(res.high, 3)
    ('nested-cv', True)
    """

    estimate: float
    low: float
    high: float
    confidence_level: float
    standard_error: float
    bias: float
    naive_low: float
    naive_high: float
    naive_standard_error: float
    mse: float
    nested_estimate: float
    inflation: float
    fold_scores: np.ndarray
    fold_ids: np.ndarray
    n_splits: int
    n_repeats: int
    n_samples: int
    scoring: str
    scale: str = "linear"
    method: str = "nested-cv"


# --------------------------------------------------------------------------- inputs

@dataclass(frozen=True)
class _Loss:
    """How a scoring scores one test fold: its value and per-sample terms.

    For a mean of per-sample losses (``mean``) the terms are the losses and the
    value their mean; for any other metric the value is the metric on the fold and
    the terms its jackknife pseudo-values (module docstring)."""

    name: str
    spec: MetricSpec
    kwargs: dict[str, Any]
    response: str | tuple[str, ...]
    sign: float
    classes: np.ndarray | None   # the labels of y, for probability columns
    mean: bool                   # per-sample terms (else jackknife pseudo-values)
    pos_label: Any               # the class whose column or sign a binary score is
    auc_positive: Any = None     # binary ROC AUC: the positive label (else None)

    def response_of(self, model: Any, X_test: Any) -> np.ndarray:
        """The estimator's output the metric reads, as scikit-learn's scorers take it
        (the positive class's column or sign of a binary score); a probability matrix
        with a column for every class of ``y`` (a model fit without a class gives it 0)."""
        if self.response == "predict":
            return np.asarray(model.predict(X_test))
        if self.response == "predict_proba" and self.classes is not None:
            out = np.asarray(model.predict_proba(X_test), dtype=np.float64)
            full = np.zeros((out.shape[0], self.classes.shape[0]))
            full[:, np.searchsorted(self.classes, model.classes_)] = out
            return full
        from sklearn.utils._response import _get_response_values

        return np.asarray(_get_response_values(model, X_test, self.response,
                                               pos_label=self.pos_label)[0])

    def values(self, model: Any, X_test: Any, y_test: np.ndarray, *, outer: bool = False
               ) -> tuple[float, np.ndarray, float]:
        """``(value, terms, variance)`` of the fold, on the scorer's scale. An ``outer``
        fold's predictions are judged by the metric function itself (a mean's terms do
        not check them); an inner fold of a metric that is not a mean gives no terms
        (NaN: only the outer folds' pseudo-values are used). ``variance`` is the unbiased
        variance of a binary ROC AUC on an outer fold (:func:`_auc_variance`), else NaN."""
        predicted = self.response_of(model, X_test)
        kwargs = {**self.kwargs, "labels": self.classes} \
            if self.spec.takes_probabilities and self.classes is not None else self.kwargs
        if self.mean:
            if outer:
                self._metric(y_test, predicted, kwargs)
            terms = row_terms(self.spec, y_test, predicted, kwargs)
            if not np.all(np.isfinite(terms)):
                raise InputError(f"scoring={self.name!r}: the estimator's predictions give "
                                 f"{int(np.sum(~np.isfinite(terms)))} non-finite per-sample "
                                 f"score(s) on a test fold of {terms.shape[0]} samples (NaN "
                                 "or infinite predictions); the estimator must predict a "
                                 "finite value for every sample")
            return self.sign * float(terms.mean()), self.sign * terms, float("nan")
        value = self._metric(y_test, predicted, kwargs)
        if not outer:
            return self.sign * value, np.full(y_test.shape[0], np.nan), float("nan")
        left_out = _leave_one_out(self.spec, y_test, predicted, kwargs)
        if not np.all(np.isfinite(left_out)):
            raise InputError(f"scoring={self.name!r} is undefined on a test fold of "
                             f"{y_test.shape[0]} samples without one of them (a class "
                             "with one sample in the fold?), which the fold's variance "
                             "needs; use fewer folds (cv) or more data")
        m = y_test.shape[0]
        variance = float("nan")
        if self.auc_positive is not None and predicted.ndim == 1:
            theta, variance = _auc_variance(y_test == self.auc_positive, predicted)
            if not np.isclose(theta, value, rtol=0.0, atol=1e-12):  # not the plain AUC
                variance = float("nan")
        return self.sign * value, self.sign * (m * value - (m - 1) * left_out), variance

    def _metric(self, y_test: np.ndarray, predicted: np.ndarray, kwargs: dict[str, Any]
                ) -> float:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                value = float(self.spec.function(y_test, predicted, **kwargs))
        except (ValueError, Warning) as exc:
            raise InputError(f"scoring={self.name!r} refuses the estimator's predictions "
                             f"on a test fold of {y_test.shape[0]} samples: {exc}") from exc
        if not np.isfinite(value):
            raise InputError(f"scoring={self.name!r} is {value} on a test fold of "
                             f"{y_test.shape[0]} samples; the estimator's predictions "
                             "must give a finite score on every fold")
        return value


def _auc_variance(positive: np.ndarray, scores: np.ndarray) -> tuple[float, float]:
    """``(theta, V)``: the ROC AUC ``theta = S / (p q)`` of the scores (the Mann-Whitney
    statistic, ties counted one half: ``S = sum_ij psi_ij`` over the ``p`` positives
    ``i`` and ``q`` negatives ``j``) and the unbiased estimate of its variance given
    the fold's ``p`` and ``q``, ``V = theta^2 - theta2``, where ``theta2`` is the
    U-statistic of ``theta^2`` over pairs of pairs without a shared point::

        theta2 = (S^2 - sum_i R_i^2 - sum_j C_j^2 + sum_ij psi_ij^2) / (p (p-1) q (q-1))

    (``R_i``, ``C_j`` the row and column sums of ``psi``). ``E[theta^2] = Var +
    theta_true^2`` and ``E[theta2] = theta_true^2``, so ``V`` is unbiased (it may be
    negative), where the jackknife variance of a small fold is biased upward
    (Efron-Stein). NaN when ``p < 2`` or ``q < 2``."""
    pos = np.asarray(scores[positive], dtype=np.float64)
    neg = np.asarray(scores[~positive], dtype=np.float64)
    p, q = pos.shape[0], neg.shape[0]
    if p < 2 or q < 2:
        return float("nan"), float("nan")
    # psi_ij = 1(pos_i > neg_j) + 1/2 1(pos_i = neg_j), by ranks: O((p + q) log(p + q))
    below = np.sort(neg)
    rows = np.searchsorted(below, pos, side="left") + 0.5 * (
        np.searchsorted(below, pos, side="right") - np.searchsorted(below, pos, side="left"))
    above = np.sort(pos)
    cols = (p - np.searchsorted(above, neg, side="right")) + 0.5 * (
        np.searchsorted(above, neg, side="right") - np.searchsorted(above, neg, side="left"))
    total = float(rows.sum())
    # sum_ij psi_ij^2 = S - (1/4) (number of tied pairs)
    values, counts_pos = np.unique(pos, return_counts=True)
    counts_neg = (np.searchsorted(below, values, side="right")
                  - np.searchsorted(below, values, side="left"))
    ties = float(np.dot(counts_pos, counts_neg))
    squares = total - 0.25 * ties
    theta = total / (p * q)
    theta2 = (total * total - float(np.dot(rows, rows)) - float(np.dot(cols, cols)) + squares) \
        / (p * (p - 1) * q * (q - 1))
    return theta, theta * theta - theta2


def _leave_one_out(spec: MetricSpec, y: np.ndarray, predicted: np.ndarray,
                   kwargs: dict[str, Any]) -> np.ndarray:
    """The metric without each sample in turn (NaN where it is undefined): from its
    family's cells in one vectorised call (each sample its own cluster), else by
    calling the metric ``m`` times."""
    from dartboard._kernels._clustered import ClusterIndex
    from dartboard.uncertainty._interval import clustered_cells

    m = y.shape[0]
    found = clustered_cells(spec, y, predicted, None, kwargs, ClusterIndex(np.arange(m), m))
    if found is not None:
        cells, matrix = found
        with np.errstate(all="ignore"):
            if cells.jackknife is not None:  # closed form per cell; a row's cell is its column
                return np.asarray(cells.jackknife(), dtype=np.float64)[matrix.tocsr().indices]
            full = np.asarray(matrix.sum(axis=0)).ravel()
            return np.asarray(cells.evaluate(full - matrix.toarray()), dtype=np.float64)
    out = np.empty(m)
    keep = np.ones(m, dtype=bool)
    for i in range(m):
        keep[i] = False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[i] = float(spec.function(y[keep], predicted[keep], **kwargs))
        except ValueError:
            out[i] = np.nan
        keep[i] = True
    return out


def _loss_iv(scoring: Any, y: np.ndarray) -> _Loss:
    from dartboard.metrics._scorers import scoring_facts

    facts = scoring_facts(scoring)
    spec = facts.spec
    if spec is None:
        raise InputError(f"scoring={facts.name!r} is not a metric dartboard knows; the nested "
                         "CV interval takes a scorer name (dartboard.metrics."
                         "get_scorer_names()), a dartboard metric or a scorer made from one")
    mean = has_row_terms(spec)
    allowed = set(TERMS[spec.name][1]) if spec.name in TERMS else set()
    extra = set(facts.kwargs) - allowed
    if mean and extra:  # normalize=False, say: a sum, whose value grows with the fold
        raise InputError(f"scoring={facts.name!r} passes {sorted(extra)} to {spec.name}; the "
                         f"per-sample losses of {spec.name} take only {sorted(allowed)}")
    response = facts.response_method
    methods = (response,) if isinstance(response, str) else tuple(response)
    if not set(methods) <= {"predict", "predict_proba", "decision_function"}:
        raise InputError(f"scoring={facts.name!r} reads {response!r}; the nested CV interval "
                         "takes scores of predict, predict_proba or decision_function")
    kwargs = {k: v for k, v in facts.kwargs.items() if k != "labels"}
    classes = np.unique(y) if spec.takes_probabilities else None
    pos_label = facts.kwargs.get("pos_label", 1) if spec.pos_label else None
    labels = np.unique(y)
    # a binary ROC AUC (the larger label positive, as roc_auc_score takes it), plain
    auc_positive = labels[-1] if spec.name == "roc_auc_score" and not kwargs \
        and labels.shape[0] == 2 else None
    return _Loss(facts.name, spec, kwargs, response, float(facts.sign), classes, mean,
                 pos_label, auc_positive)


@dataclass(frozen=True)
class _Plan:
    n: int
    n_splits: int
    n_repeats: int
    level: float
    loss: _Loss
    groups: np.ndarray | None   # group codes 0..m-1
    splitter: Any               # None: dartboard's group folds


def _splitter(cv: Any, estimator: Any, y: np.ndarray, groups: np.ndarray | None
              ) -> tuple[int, Any]:
    """``(K, splitter)``; the splitter's ``random_state`` is set per repetition."""
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        k = check_int(cv, "cv", minimum=3)
        if groups is not None:
            return k, None
        from sklearn.base import is_classifier
        from sklearn.model_selection import KFold, StratifiedKFold
        from sklearn.utils.multiclass import type_of_target

        stratify = is_classifier(estimator) and type_of_target(y) in ("binary", "multiclass")
        return k, (StratifiedKFold if stratify else KFold)(k, shuffle=True)
    if not all(hasattr(cv, a) for a in ("n_splits", "shuffle", "random_state")):
        raise InputTypeError("cv must be a number of folds (int >= 3) or a splitter with "
                             "n_splits, shuffle and random_state (KFold, StratifiedKFold, "
                             f"GroupKFold, StratifiedGroupKFold); got {describe(cv)}")
    if not cv.shuffle:
        raise InputError(f"cv must shuffle (shuffle=True) so that each repetition draws new "
                         f"folds; got {cv!r}")
    return check_int(cv.n_splits, "cv.n_splits", minimum=3), cv


def _nested_iv(estimator: Any, X: Any, y: Any, scoring: Any, cv: Any, n_repeats: Any,
               groups: Any, confidence_level: Any) -> tuple[Any, Any, np.ndarray, _Plan]:
    from sklearn.utils.validation import indexable

    level = check_confidence_level(confidence_level)
    if not hasattr(estimator, "fit"):
        raise InputTypeError(f"estimator must be a scikit-learn estimator (with fit); got "
                             f"{describe(estimator)}")
    X, y_in = indexable(X, y)
    y = np.asarray(y_in)
    if y.ndim != 1:
        raise InputError(f"y must be one-dimensional; got shape {y.shape}")
    n = y.shape[0]
    # the fold of every sample in every repetition is kept: the bootstraps' memory budget
    n_repeats = check_n_resamples(n_repeats, "n_repeats", per_resample=n,
                                  held=f"n_samples ({n}; the fold of each sample in each "
                                       "repetition is kept)")
    codes = None
    if groups is not None:
        from dartboard._labels import encode_labels

        g = group_array(groups, name="groups")
        if g.shape[0] != n:
            raise InputError(f"groups must be one label per sample ({n}); got {g.shape[0]}")
        codes = encode_labels(("groups", g)).codes[0].astype(np.intp)
    loss = _loss_iv(scoring, y)
    methods = (loss.response,) if isinstance(loss.response, str) else loss.response
    if not any(hasattr(estimator, m) for m in methods):
        raise InputTypeError(f"scoring={loss.name!r} needs the estimator's "
                             f"{' or '.join(methods)}; {type(estimator).__name__} has none")
    k, splitter = _splitter(cv, estimator, y, codes)
    units = n if codes is None else int(codes.max()) + 1
    if units < 2 * k:
        what = "samples" if codes is None else "groups"
        raise InputError(f"cv={k} folds need at least {2 * k} {what} (two per fold for the "
                         f"fold variance); got {units}")
    return X, y_in, y, _Plan(n, k, n_repeats, level, loss, codes, splitter)


# --------------------------------------------------------------------------- folds

def _group_folds(codes: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Whole groups in a random order, each to the fold with the fewest samples so far."""
    sizes = np.bincount(codes)
    order = rng.permutation(sizes.shape[0])
    fold_of_group = np.empty(sizes.shape[0], dtype=np.intp)
    load = np.zeros(k, dtype=np.int64)
    for g in order:
        f = int(np.argmin(load))
        fold_of_group[g] = f
        load[f] += sizes[g]
    return fold_of_group[codes]


def _fold_ids(plan: _Plan, y: np.ndarray, seed: np.random.SeedSequence) -> np.ndarray:
    """The fold of each point in one repetition, checked to be a partition."""
    import copy

    if plan.splitter is None:
        assert plan.groups is not None  # the splitter is built unless groups are given
        ids = _group_folds(plan.groups, plan.n_splits, np.random.default_rng(seed))
    else:
        splitter = copy.copy(plan.splitter)
        splitter.random_state = int(seed.generate_state(1)[0])
        ids = np.full(plan.n, -1, dtype=np.intp)
        dummy = np.zeros((plan.n, 1))
        for fold, (_, test) in enumerate(splitter.split(dummy, y, plan.groups)):
            if np.any(ids[test] >= 0):
                raise InputError("cv must partition the samples: its test folds overlap")
            ids[test] = fold
        if np.any(ids < 0):
            raise InputError("cv must partition the samples: some are in no test fold")
    sizes = np.bincount(ids, minlength=plan.n_splits)
    if sizes.shape[0] != plan.n_splits or sizes.min() < 2:
        raise InputError(f"every fold needs at least 2 samples (for its variance); the folds "
                         f"of one repetition have sizes {sizes.tolist()}")
    return ids


# --------------------------------------------------------------------------- fits

def _rows(data: Any, index: np.ndarray) -> Any:
    """Rows of an array, DataFrame, sparse matrix or list; numpy arrays directly
    (scikit-learn's general indexing costs more than a small model's fit)."""
    if type(data) is np.ndarray:
        return data[index]
    from sklearn.utils import _safe_indexing

    return _safe_indexing(data, index)


def _repeat_losses(fold_id: np.ndarray, *, estimator: Any, X: Any, y: Any, y_arr: np.ndarray,
                   loss: _Loss, n_splits: int) -> tuple[np.ndarray, ...]:
    """One repetition's per-point terms and per-fold values: ``outer`` (n,) and
    ``inner`` (n, K), where ``inner[i, k]`` is point i's term from the model fit
    without its fold and fold k (NaN at k = its own fold); ``outer_value`` (K,) and
    ``inner_value`` (K, K), ``inner_value[j, k]`` the value on fold j of the model
    fit without folds j and k (NaN on the diagonal); ``outer_variance`` (K,) the
    unbiased variance of a binary ROC AUC on each outer fold (else NaN)."""
    from sklearn.base import clone

    def fit_and_score(held_out: np.ndarray, *tests: np.ndarray, outer: bool = False
                      ) -> list[tuple[float, np.ndarray, float]]:
        train = np.flatnonzero(~held_out)
        model = clone(estimator).fit(_rows(X, train), _rows(y, train))
        return [loss.values(model, _rows(X, t), y_arr[t], outer=outer) for t in tests]

    folds = [np.flatnonzero(fold_id == k) for k in range(n_splits)]
    outer = np.empty(fold_id.shape[0])
    inner = np.full((fold_id.shape[0], n_splits), np.nan)
    outer_value = np.empty(n_splits)
    outer_variance = np.empty(n_splits)
    inner_value = np.full((n_splits, n_splits), np.nan)
    for k in range(n_splits):
        outer_value[k], outer[folds[k]], outer_variance[k] = \
            fit_and_score(fold_id == k, folds[k], outer=True)[0]
    for j in range(n_splits):
        for k in range(j + 1, n_splits):
            (inner_value[j, k], inner[folds[j], k], _), \
                (inner_value[k, j], inner[folds[k], j], _) = \
                fit_and_score((fold_id == j) | (fold_id == k), folds[j], folds[k])
    return outer, inner, outer_value, inner_value, outer_variance


def _mean_variance(values: np.ndarray, codes: np.ndarray | None) -> float:
    """Variance of the mean of ``values``: ``var / n`` (ddof = 1), or the cluster-robust
    ``m/(m-1) sum_g (sum_{i in g} (v_i - mean))^2 / n^2`` over ``m`` groups."""
    n = values.shape[0]
    if codes is None:
        return float(np.var(values, ddof=1)) / n
    _, local = np.unique(codes, return_inverse=True)
    sums = np.bincount(local, weights=values - values.mean())
    m = sums.shape[0]
    return m / (m - 1) * float(vdot(sums, sums)) / (n * n) if m > 1 else float("nan")


@dataclass(frozen=True)
class _RepeatSummary:
    outer: np.ndarray          # (n,) per-point terms
    outer_value: np.ndarray    # (K,) the value on each outer fold
    a: np.ndarray              # (K,)
    b: np.ndarray              # (K,)
    inner_value: tuple[float, float]          # sum of m_j v_jk, sum of m_j over j != k
    inner_moments: tuple[int, float, float]   # count, mean, sum of squared deviations
    design: tuple[float, float]               # n V_g(outer), var(outer)
    unbiased: bool = False     # b is the unbiased variance of a binary ROC AUC


def _summarise(fold_id: np.ndarray, outer: np.ndarray, inner: np.ndarray,
               outer_value: np.ndarray, inner_value: np.ndarray,
               codes: np.ndarray | None, n_splits: int, inner_terms: bool,
               outer_variance: np.ndarray | None = None) -> _RepeatSummary:
    """``a_rk`` and ``b_rk`` of a repetition; a fold's inner estimate is the mean of
    the inner folds' values weighted by their sizes (for a mean of per-sample losses,
    the mean of its inner losses). ``b_rk`` is the fold's ``outer_variance`` where
    that is given (a binary ROC AUC without groups), else the variance of the mean of
    its terms."""
    unbiased = codes is None and outer_variance is not None \
        and bool(np.all(np.isfinite(outer_variance)))
    sizes = np.bincount(fold_id, minlength=n_splits).astype(np.float64)
    a, b = np.empty(n_splits), np.empty(n_splits)
    for k in range(n_splits):
        in_fold = fold_id == k
        others = np.arange(n_splits) != k
        e_in = float(np.dot(sizes[others], inner_value[others, k]) / sizes[others].sum())
        a[k] = (e_in - outer_value[k]) ** 2
        if unbiased and outer_variance is not None:
            b[k] = outer_variance[k]
        else:
            b[k] = _mean_variance(outer[in_fold], None if codes is None else codes[in_fold])
    off = ~np.eye(n_splits, dtype=bool)
    weights = np.broadcast_to(sizes[:, None], off.shape)[off]
    inner_sum = (float(np.dot(weights, inner_value[off])), float(weights.sum()))
    # sigma_in's terms; the outer pseudo-values of a metric that is not a mean
    terms = inner[~np.isnan(inner)] if inner_terms else outer
    mean = float(terms.mean())
    moments = (terms.shape[0], mean, float(np.sum((terms - mean) ** 2)))
    var_out = float(np.var(outer, ddof=1))
    clustered = var_out if codes is None else outer.shape[0] * _mean_variance(outer, codes)
    return _RepeatSummary(outer, outer_value, a, b, inner_sum, moments, (clustered, var_out),
                          unbiased)


def _one_repeat(fold_id: np.ndarray, *, plan: _Plan, estimator: Any, X: Any, y: Any,
                y_arr: np.ndarray) -> _RepeatSummary:
    outer, inner, outer_value, inner_value, outer_variance = _repeat_losses(
        fold_id, estimator=estimator, X=X, y=y, y_arr=y_arr, loss=plan.loss,
        n_splits=plan.n_splits)
    return _summarise(fold_id, outer, inner, outer_value, inner_value, plan.groups,
                      plan.n_splits, plan.loss.mean, outer_variance)


# --------------------------------------------------------------------------- interval

def _merge_moments(parts: list[tuple[int, float, float]]) -> tuple[int, float, float]:
    """Chan et al.'s pairwise merge of (count, mean, M2), in the order given."""
    n, mean, m2 = parts[0]
    for n_b, mean_b, m2_b in parts[1:]:
        total = n + n_b
        delta = mean_b - mean
        mean += delta * n_b / total
        m2 += m2_b + delta * delta * n * n_b / total
        n = total
    return n, mean, m2


def _clip(low: float, high: float, loss: _Loss) -> tuple[float, float]:
    bounds = loss.spec.bounds
    if bounds is None:
        return low, high
    lo, hi = sorted((loss.sign * bounds[0], loss.sign * bounds[1]))
    return float(np.clip(low, lo, hi)), float(np.clip(high, lo, hi))


def _metric_value(value: float, loss: _Loss) -> float:
    """A value on the scorer's scale back on the metric's own (the sign undone)."""
    return loss.sign * value


def _logit_bounds(auc: float, se: float, z: float, loss: _Loss) -> tuple[float, float]:
    """``expit(logit(auc) -+ z se / (auc (1 - auc)))`` (the delta method's standard
    error on the logit scale), on the scorer's scale: inside (0, 1) and longer on the
    side away from the nearer bound."""
    half = z * se / (auc * (1.0 - auc))
    lo, hi = special.expit(special.logit(auc) - half), special.expit(special.logit(auc) + half)
    return tuple(sorted((loss.sign * float(lo), loss.sign * float(hi))))  # type: ignore[return-value]


def _interval(plan: _Plan, ids: np.ndarray, parts: list[_RepeatSummary]) -> CVInterval:
    n, k = plan.n, plan.n_splits
    outer = np.stack([p.outer for p in parts])
    a = np.concatenate([p.a for p in parts])
    b = np.concatenate([p.b for p in parts])
    mse = float(a.mean() - b.mean())
    count, _, m2_in = _merge_moments([p.inner_moments for p in parts])
    err_ncv = sum(p.inner_value[0] for p in parts) / sum(p.inner_value[1] for p in parts)
    sizes = np.stack([np.bincount(r, minlength=k) for r in ids])
    fold_scores = np.stack([p.outer_value for p in parts])
    err_cv = float(np.sum(sizes * fold_scores) / (n * len(parts)))
    design = 1.0 if plan.groups is None else \
        float(np.mean([p.design[0] for p in parts]) / np.mean([p.design[1] for p in parts]))
    sigma_in = float(np.sqrt(m2_in / (count - 1) * design))
    se_low = sigma_in / np.sqrt(n)
    auc = all(p.unbiased for p in parts)
    if auc:  # the K fold AUCs as if independent: mean_k V_k / K, with the unbiased V_k
        se_low = float(np.sqrt(max(0.0, float(b.mean())) / k))
    se = float(max(se_low, min(np.sqrt(max(0.0, (k - 1) / k * mse)), np.sqrt(k) * se_low)))
    centre = err_ncv - (1.0 + (k - 2) / k) * (err_ncv - err_cv)
    z = float(special.ndtri(0.5 + plan.level / 2.0))
    naive_se = float(np.std(outer, ddof=1) * np.sqrt(design / n))
    if se == 0.0:
        warnings.warn("every per-point score is equal; the interval has zero width",
                      IntervalWarning, stacklevel=3)
    scale = "logit" if auc and 0.0 < _metric_value(centre, plan.loss) < 1.0 else "linear"
    if scale == "logit":
        low, high = _logit_bounds(_metric_value(centre, plan.loss), se, z, plan.loss)
    else:
        low, high = _clip(centre - z * se, centre + z * se, plan.loss)
    naive_low, naive_high = _clip(err_cv - z * naive_se, err_cv + z * naive_se, plan.loss)
    return CVInterval(err_cv, low, high, plan.level, se, err_cv - centre, naive_low,
                      naive_high, naive_se, mse, float(err_ncv),
                      se / naive_se if naive_se > 0 else float("nan"), fold_scores, ids,
                      k, plan.n_repeats, n, plan.loss.name, scale)


def nested_cv_interval(estimator: Any, X: Any, y: Any, *, scoring: Any, cv: Any = 10,
                       n_repeats: int = 50, groups: Any = None, confidence_level: float = 0.95,
                       random_state: RandomStateLike = None, n_jobs: int | None = None,
                       progress: bool | None = None) -> CVInterval:
    """Confidence interval for the error of the model fit on all the data, by nested CV.

    Bates, Hastie and Tibshirani's (2024) Algorithm 1 with its bias correction (the
    formulas are in :mod:`dartboard.uncertainty._nested`). The naive interval,
    which covers far below its level, is returned beside it.

    Parameters
    ----------
    estimator : scikit-learn estimator
        Cloned for every fit; fix its ``random_state`` if it is random, for
        results that repeat.
    X, y : array-like
        Data; ``y`` one-dimensional.
    scoring : str, scorer or metric function
        Any scorer name (``"roc_auc"``, ``"average_precision"``, ``"f1"``,
        ``"neg_log_loss"``, ``"neg_brier_score"``, ``"accuracy"``,
        ``"neg_mean_squared_error"``, ``"r2"``...), dartboard metric name or function
        (``"zero_one_loss"``, ``mean_squared_error``...) or a scorer made from one;
        the estimator's ``predict``, ``predict_proba`` or ``decision_function`` feeds
        it as scikit-learn's scorer of that name reads it. Numbers are on its scale (a
        ``neg_`` scorer gives negative losses). A mean of per-sample losses is Bates et
        al.'s algorithm exactly; another metric's fold variance is its jackknife
        variance, a binary ROC AUC's the unbiased variance of the Mann-Whitney
        statistic, with the interval on the logit scale (module docstring). A callable dartboard does not know, and
        predictions the metric refuses, raise ``ValueError``.
    cv : int or splitter, default=10
        ``K >= 3`` folds: stratified for a classifier, groups kept whole with
        ``groups``; or a shuffling ``KFold``-like splitter, whose ``random_state``
        is set for each repetition. Bates et al. use ``K = 10``.
    n_repeats : int, default=50
        Repetitions ``R``; the estimate of the MSE is noisy, so take many (Bates et
        al. use 200). Fits: ``R K (K + 1) / 2``.
    groups : array-like of shape (n_samples,), optional
        Group (cluster) labels: folds keep groups whole and variances are
        cluster-robust (module docstring).
    confidence_level : float, default=0.95
        Confidence level of the interval, in (0, 1).
    random_state : None, int, SeedSequence or Generator
        Seeds the folds of every repetition.
    n_jobs : int, optional
        Processes that run the repetitions (joblib). The default (None) runs them
        all in one process, one after another: ``n_jobs=-1`` uses every core. The
        result does not depend on it.
    progress : bool, optional
        A progress bar over the repetitions on standard error: None (the default)
        shows it when standard error is a terminal and the work lasts more than a
        second; True always; False never.

    Returns
    -------
    CVInterval

    Notes
    -----
    The interval covers ``Err_XY``, the expected loss on new data of the model fit
    on these ``n`` points. Its centre is the bias-corrected ``estimate - bias``; the
    ``estimate`` itself is the plain repeated CV estimate. Every per-point score
    equal gives a zero-width interval with an ``IntervalWarning``. The fits take the
    time, ``n_repeats * K * (K + 1) / 2`` of them (2,750 with the defaults), in one
    process unless ``n_jobs`` says otherwise. Coverage, ROC AUC included, was
    measured by ``benchmarks/nested_cv_coverage.py`` (the validation pages).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from dartboard import nested_cv_interval
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = X @ [1.0, -1.0, 0.5] + rng.normal(size=60)
    >>> res = nested_cv_interval(LinearRegression(), X, y, scoring="mean_squared_error",
    ...                          cv=5, n_repeats=10, random_state=0)
    >>> round(res.estimate, 3), round(res.low, 3), round(res.high, 3)
    (1.238, 0.763, 1.669)
    >>> round(res.naive_low, 3), round(res.naive_high, 3)
    (0.798, 1.677)
    >>> bool(np.isclose(res.estimate, res.fold_scores.mean()))  # 5 equal folds of 12
    True
    """
    X, y, y_arr, plan = _nested_iv(estimator, X, y, scoring, cv, n_repeats, groups,
                                   confidence_level)
    ids = np.stack([_fold_ids(plan, y_arr, s) for s in spawn(random_state, plan.n_repeats)])
    work = partial(_one_repeat, plan=plan, estimator=estimator, X=X, y=y, y_arr=y_arr)
    parts = parallel_map(work, list(ids), n_jobs=n_jobs, progress=progress,
                         description=f"nested CV: repeats of {plan.n_splits * (plan.n_splits + 1) // 2} fits")
    return _interval(plan, ids, parts)
