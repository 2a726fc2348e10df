"""Analytic paired tests: McNemar, DeLong and the Nadeau-Bengio corrected t-test."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from dartboard._delong import delong_auc_covariance
from dartboard._labels import encode_labels, positive_index
from dartboard._typing import Alternative
from dartboard._validation import (
    as_float_array,
    check_confidence_level,
    check_consistent_length,
    check_option,
    label_array,
    to_numpy,
)
from dartboard.compare._permutation import ALTERNATIVES
from dartboard.compare._results import TestResult
from dartboard.exceptions import InputError, InputTypeError
from dartboard.uncertainty import Interval
from dartboard.uncertainty._interval import check_sample_size

__all__ = ["corrected_ttest", "delong_test", "mcnemar_test", "MCNEMAR_EXACT_BELOW"]

#: McNemar's test is exact (binomial) when the discordant count b + c is below this.
MCNEMAR_EXACT_BELOW = 25


def _z_pvalue(z: float, alternative: str) -> float:
    if alternative == "greater":
        return float(stats.norm.sf(z))
    if alternative == "less":
        return float(stats.norm.cdf(z))
    return float(min(1.0, 2.0 * stats.norm.sf(abs(z))))


def _mcnemar_table(y_true: Any, pred_a: Any, pred_b: Any) -> np.ndarray:
    if pred_a is None and pred_b is None:
        table = to_numpy(y_true, name="table")
        if table.shape != (2, 2):
            raise InputError("mcnemar_test takes (y_true, pred_a, pred_b) or one 2x2 table; "
                             f"got a single argument of shape {table.shape}")
        table = as_float_array(table, name="table", ndim=2)
        if (table < 0).any() or np.any(np.mod(table, 1)):
            raise InputError(f"table must hold non-negative counts; got {table.tolist()!r}")
        return table
    if pred_a is None or pred_b is None:
        raise InputError("mcnemar_test needs both pred_a and pred_b (or a single 2x2 table)")
    y = label_array(y_true, name="y_true")
    a = label_array(pred_a, name="pred_a")
    b = label_array(pred_b, name="pred_b")
    check_consistent_length(("y_true", y), ("pred_a", a), ("pred_b", b))
    enc = encode_labels(("y_true", y), ("pred_a", a), ("pred_b", b))
    t, pa, pb = enc.codes
    ok_a = pa == t
    ok_b = pb == t
    both = int(np.count_nonzero(ok_a & ok_b))
    only_a = int(np.count_nonzero(ok_a)) - both
    only_b = int(np.count_nonzero(ok_b)) - both
    return np.array([[both, only_a], [only_b, t.shape[0] - both - only_a - only_b]],
                    dtype=np.float64)


def mcnemar_test(y_true: ArrayLike, pred_a: ArrayLike | None = None, pred_b: ArrayLike | None = None, *,
                 exact: bool | None = None, correction: bool = True) -> TestResult:
    """McNemar's test of equal error rates of two classifiers on the same samples.

    With ``b`` = samples only model a classifies correctly and ``c`` = samples
    only model b classifies correctly, under the null hypothesis ``b ~
    Binomial(b + c, 1/2)``. The exact test reports ``statistic = min(b, c)`` and
    ``p = min(1, 2 P(Binomial(b + c, 1/2) <= min(b, c)))``; the asymptotic test
    reports ``statistic = (|b - c| - 1)^2 / (b + c)`` (without the ``- 1`` when
    ``correction=False``) and its chi-square (1 df) upper tail. As
    ``statsmodels.stats.contingency_tables.mcnemar``, except at ``b = c``:
    there the continuity correction would turn no difference at all into
    ``1 / (b + c)`` (p = 0.855 at b = c = 15), so, as R's ``mcnemar.test``
    (which corrects only when ``b != c``), the statistic is 0 and p = 1.

    Parameters
    ----------
    y_true, pred_a, pred_b : array-like of shape (n,)
        True labels and the labels predicted by the two models. Alternatively
        pass a single 2x2 table ``[[both correct, only a correct], [only b
        correct, both wrong]]`` (only the off-diagonal counts matter).
    exact : bool or None
        None uses the exact binomial test when ``b + c < 25``
        (``MCNEMAR_EXACT_BELOW``) and the chi-square test otherwise.
    correction : bool, default True
        Continuity correction of the chi-square statistic.

    Returns
    -------
    TestResult
        ``estimate`` is ``(b - c) / n``, the difference in accuracy; ``details``
        holds ``b``, ``c`` and the table. With no discordant pair (b + c = 0)
        there is no evidence of a difference: statistic 0 and p-value 1.

    See Also
    --------
    dartboard.compare_models : Any metric, with an interval of the difference.
    dartboard.mcnemar_sample_size : The test rows this test needs.

    Examples
    --------
    Agresti (2002, Categorical Data Analysis, Table 10.1: presidential approval
    in two surveys) reports McNemar's z^2 = 17.36 without continuity correction:

    >>> res = mcnemar_test([[794, 150], [86, 570]], correction=False)
    >>> round(res.statistic, 2), res.exact, res.pvalue < 1e-4
    (17.36, False, True)
    """
    table = _mcnemar_table(y_true, pred_a, pred_b)
    if exact is not None and not isinstance(exact, (bool, np.bool_)):
        raise InputTypeError(f"exact must be None, True or False; got {exact!r}")
    if not isinstance(correction, (bool, np.bool_)):
        raise InputTypeError(f"correction must be True or False; got {correction!r}")
    b, c = float(table[0, 1]), float(table[1, 0])
    n_disc = b + c
    exact = bool(n_disc < MCNEMAR_EXACT_BELOW) if exact is None else bool(exact)
    if exact:
        statistic = min(b, c)
        pvalue = min(1.0, 2.0 * float(stats.binom.cdf(statistic, n_disc, 0.5)))
        method = "McNemar exact binomial test"
    elif n_disc == 0:
        statistic, pvalue = 0.0, 1.0
        method = "McNemar chi-square test"
    else:
        # R corrects only a non-zero difference: |0| - 1 would add evidence of one
        diff = abs(b - c) - (1.0 if correction and b != c else 0.0)
        statistic = diff * diff / n_disc
        pvalue = float(stats.chi2.sf(statistic, 1))
        method = ("McNemar chi-square test with continuity correction" if correction
                  else "McNemar chi-square test")
    total = table.sum()
    return TestResult(statistic=float(statistic), pvalue=float(pvalue),
                      alternative="two-sided", method=method,
                      estimate=float((b - c) / total) if total else 0.0, exact=exact,
                      df=None if exact else 1.0,
                      details={"b": b, "c": c, "table": table})


def delong_test(y_true: ArrayLike, scores_a: ArrayLike, scores_b: ArrayLike, *, pos_label: Any = None,
                alternative: Alternative = "two-sided",
                confidence_level: float = 0.95) -> TestResult:
    """DeLong's test of two correlated ROC AUCs measured on the same samples.

    ``z = (AUC_a - AUC_b) / sqrt(var_a + var_b - 2 cov_ab)`` with DeLong's
    covariance of the two AUC estimates (fast midrank algorithm, see
    :mod:`dartboard._delong`); the p-value is from the standard normal. The
    interval of the difference is ``AUC_a - AUC_b +- z_{1 - alpha/2} sqrt(var)``
    (two-sided whatever ``alternative`` is), as the "95 percent confidence
    interval" printed by pROC's ``roc.test``.

    Binary only. For multiclass AUC (one-vs-rest or one-vs-one) use
    ``compare_models(roc_auc_score, y, proba_a, proba_b, multi_class="ovr")``: a
    permutation test on per-class score ranks with a paired bootstrap interval.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels.
    scores_a, scores_b : array-like of shape (n,)
        Scores of the two models (higher = more likely positive). Finite.
    pos_label : label, optional
        The positive class; by default the larger of the two labels.
    alternative : {"two-sided", "greater", "less"}
        "greater": AUC_a > AUC_b.
    confidence_level : float, default 0.95
        Level of the interval of the difference.

    Returns
    -------
    TestResult
        ``statistic`` z, ``estimate`` AUC_a - AUC_b, ``interval`` (an
        :class:`~dartboard.Interval` of the difference, method ``"delong"``),
        ``details`` with both AUCs and the variance of the difference. When that
        variance is 0 and the AUCs are equal (e.g. identical scores) z is 0 with
        p = 1 and the interval is the point 0.

    Raises
    ------
    ValueError
        When that variance is 0 but the AUCs differ (e.g. two samples, or every
        score of one model above or below every other): the normal approximation
        would claim certainty (z = +-inf, p = 0) that so little spread cannot
        support. :func:`~dartboard.compare_models` with ``roc_auc_score`` (a
        permutation test) gives an exact or resampled p-value instead.

    See Also
    --------
    dartboard.compare_models : Any metric, with an interval of the difference.
    dartboard.auc_sample_size : The test rows this test needs.

    Examples
    --------
    >>> y = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> res = delong_test(y, [.1, .4, .35, .8, .2, .7, .3, .9], [.2, .3, .4, .6, .5, .45, .1, .7])
    >>> round(res.details["auc_a"], 4), round(res.details["auc_b"], 4)
    (0.9375, 0.875)
    >>> round(res.interval.low, 4), round(res.interval.high, 4)
    (-0.2692, 0.3942)
    """
    check_option(alternative, "alternative", ALTERNATIVES)
    level = check_confidence_level(confidence_level)
    y = label_array(y_true, name="y_true")
    a = as_float_array(scores_a, name="scores_a")
    b = as_float_array(scores_b, name="scores_b")
    n = check_consistent_length(("y_true", y), ("scores_a", a), ("scores_b", b))
    if n < 2:
        raise InputError(f"y_true, scores_a and scores_b must hold at least 2 samples; got {n}")
    enc = encode_labels(("y_true", y))
    if enc.n_classes != 2:
        raise InputError(f"y_true must hold exactly 2 classes for a ROC AUC; got "
                         f"{enc.n_classes}: {enc.classes.tolist()!r}. DeLong's test is "
                         "binary; for a multiclass AUC use compare_models(roc_auc_score, "
                         "y_true, proba_a, proba_b, multi_class='ovr')")
    if pos_label is None:
        positive = enc.codes[0] == 1
    else:
        positive = enc.codes[0] == positive_index(enc.classes, pos_label, refuse_absent=True)
    aucs, cov = delong_auc_covariance(positive, np.vstack([a, b]))
    diff = float(aucs[0] - aucs[1])
    var = float(cov[0, 0] + cov[1, 1] - 2.0 * cov[0, 1])
    if var <= 0.0 and diff != 0.0:
        raise InputError(
            f"delong_test: the AUCs differ ({aucs[0]:.6g} vs {aucs[1]:.6g}) but DeLong's "
            f"variance of the difference is 0 ({int(positive.sum())} positive and "
            f"{int(n - positive.sum())} negative samples): the asymptotic test is "
            "undefined. Use compare_models(roc_auc_score, ...), a permutation test.")
    se = float(np.sqrt(max(var, 0.0)))
    z = 0.0 if var <= 0.0 else diff / se
    pvalue = _z_pvalue(z, alternative)
    half = float(stats.norm.ppf(0.5 + level / 2.0)) * se
    interval = Interval(estimate=diff, low=diff - half, high=diff + half,
                        confidence_level=level, method="delong", standard_error=se,
                        metric="difference in roc_auc_score")
    return TestResult(statistic=float(z), pvalue=pvalue, alternative=alternative,
                      method="DeLong test of two correlated ROC AUCs", estimate=diff,
                      details={"auc_a": float(aucs[0]), "auc_b": float(aucs[1]),
                               "variance": max(var, 0.0), "covariance": cov},
                      interval=interval)


def corrected_ttest(scores_a: ArrayLike, scores_b: ArrayLike, *, n_train: float, n_test: float,
                    alternative: Alternative = "two-sided") -> TestResult:
    """Nadeau and Bengio's corrected resampled t-test for repeated train/test splits.

    The J paired scores of two models on the same resampled splits are not
    independent (the training sets overlap), so the plain paired t-test rejects far
    too often. Nadeau & Bengio (2003, Machine Learning 52) inflate the variance:
    ``t = mean(d) / sqrt((1/J + n_test/n_train) s^2)`` with ``d = a - b``, ``s^2``
    the sample variance (ddof = 1), compared to Student's t with J - 1 df.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (J,)
        Paired scores (e.g. per fold of repeated cross-validation), J >= 2, finite.
    n_train, n_test : float
        Sizes of each training and test set: positive and finite, not
        necessarily whole (e.g. the mean size over unequal splits), as in
        :func:`~dartboard.cv_interval`.
    alternative : {"two-sided", "greater", "less"}
        The alternative hypothesis about the difference ``a - b``: ``"two-sided"`` (they
        differ), ``"greater"`` or ``"less"``.

    Returns
    -------
    TestResult
        ``statistic`` t, ``df`` J - 1, ``estimate`` mean(d). When all differences
        are 0, t is 0 with p = 1.

    Raises
    ------
    ValueError
        When all differences are equal but not 0 (s = 0): the t statistic would be
        +-inf with p = 0, a certainty J scores cannot give.
        :func:`~dartboard.permutation_test` of the paired scores gives an exact
        p-value instead.

    Examples
    --------
    >>> a = [0.84, 0.86, 0.83, 0.85, 0.87, 0.84, 0.86, 0.85, 0.83, 0.86]
    >>> b = [0.82, 0.85, 0.83, 0.83, 0.85, 0.83, 0.84, 0.85, 0.82, 0.84]
    >>> res = corrected_ttest(a, b, n_train=900, n_test=100)
    >>> round(res.statistic, 3), res.df
    (3.437, 9.0)
    """
    check_option(alternative, "alternative", ALTERNATIVES)
    a = as_float_array(scores_a, name="scores_a")
    b = as_float_array(scores_b, name="scores_b")
    j = check_consistent_length(("scores_a", a), ("scores_b", b))
    if j < 2:
        raise InputError(f"scores_a and scores_b must hold at least 2 paired scores; got {j}")
    # the same rule as cv_interval's: averaged split sizes need not be whole
    n_train, n_test = check_sample_size(n_train, "n_train"), check_sample_size(n_test, "n_test")
    d = a - b
    mean = float(d.mean())
    # equal differences have variance 0 exactly (np.var of [0.3] * 10 is 3e-33)
    var = 0.0 if d.min() == d.max() else float(d.var(ddof=1))
    scale = (1.0 / j + n_test / n_train) * var
    if scale <= 0.0 and mean != 0.0:
        raise InputError(
            f"corrected_ttest: every paired difference equals {mean:.6g}, so their "
            "variance is 0 and the t statistic is undefined (it would claim p = 0). "
            "Use permutation_test(scores_a, scores_b), an exact test.")
    t = 0.0 if scale <= 0.0 else mean / np.sqrt(scale)
    df = j - 1
    if alternative == "greater":
        pvalue = float(stats.t.sf(t, df))
    elif alternative == "less":
        pvalue = float(stats.t.cdf(t, df))
    else:
        pvalue = float(min(1.0, 2.0 * stats.t.sf(abs(t), df)))
    if j < 5:
        warnings.warn(f"only {j} paired scores: the corrected t-test has little power",
                      UserWarning, stacklevel=2)
    return TestResult(statistic=float(t), pvalue=pvalue, alternative=alternative,
                      method="Nadeau-Bengio corrected resampled t-test", estimate=mean,
                      df=float(df), details={"variance_factor": 1.0 / j + n_test / n_train})
