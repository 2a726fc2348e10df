"""Models compared over folds or data sets: Friedman and Iman-Davenport, comparisons
with a control, Wilcoxon's signed-rank test, and the 5x2cv tests.

Following Demsar (2006, JMLR 7), with k models on N data sets and ``R_j`` the
average rank of model j (1 = best):

* Iman and Davenport's ``F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F)`` beside
  Friedman's ``chi2_F`` (taken from :func:`rank_models`), F-distributed with
  ``k - 1`` and ``(k - 1)(N - 1)`` degrees of freedom; less conservative than the
  chi-square.
* Comparisons with a control chosen before looking at the results (section
  3.2.2): ``z = (R_i - R_control) / sqrt(k (k + 1) / (6 N))``, two-sided normal
  p-values adjusted over the k - 1 comparisons (Holm by default; Bonferroni is
  the Bonferroni-Dunn test, whose critical difference of average ranks is
  ``z_{1 - alpha / (2 (k - 1))} sqrt(k (k + 1) / (6 N))``).
* Dietterich's (1998) 5x2cv paired t-test and Alpaydin's (1999) combined 5x2cv F
  test, from the 5 x 2 table of score differences ``p_ij`` (replication i, fold j)
  with ``s_i^2 = sum_j (p_ij - mean_j p_ij)^2``: ``t = p_11 / sqrt(sum_i s_i^2 / 5)``
  with 5 df, and ``F = sum_ij p_ij^2 / (2 sum_i s_i^2)`` with (10, 5) df.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from dartboard._results import Result
from dartboard._typing import Alternative
from dartboard._validation import (
    as_float_array,
    check_consistent_length,
    check_option,
    describe,
)
from dartboard.compare._adjust import ADJUST_METHODS, adjust_pvalues
from dartboard.compare._permutation import ALTERNATIVES
from dartboard.compare._ranking import _table_iv, iman_davenport, rank_models
from dartboard.compare._results import TestResult, _check_alpha
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["ControlResult", "compare_with_control", "combined_ftest_5x2cv", "friedman_test",
           "paired_ttest_5x2cv", "wilcoxon_test"]

_ZERO_METHODS = ("wilcox", "pratt", "zsplit")


def _direction(higher_is_better: Any) -> bool:
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise InputTypeError("higher_is_better must be True or False; got "
                             f"{describe(higher_is_better)}")
    return bool(higher_is_better)


def friedman_test(table: Any, *, higher_is_better: bool = True, names: Any = None
                  ) -> TestResult:
    """Friedman's test that k models are equivalent over N data sets, with Iman-Davenport's F.

    Parameters
    ----------
    table : DataFrame, dict of name -> scores, or 2-D array of shape (N, k)
        Rows are folds or data sets, columns are models.
    higher_is_better : bool, default True
        False for losses and errors, so that the lowest score ranks first.
    names : sequence of str, optional
        Model names for an array table (default ``"model 0"``, ...).

    Returns
    -------
    TestResult
        ``statistic`` and ``pvalue``: Iman and Davenport's F and its p-value
        (``df`` is ``k - 1``; the second degrees of freedom are in ``details``).
        ``details`` also holds Friedman's ``chi2`` and ``chi2_pvalue`` (tie-corrected,
        as ``scipy.stats.friedmanchisquare``) and the ``average_ranks``.

    Examples
    --------
    >>> res = friedman_test({"a": [.9, .8, .85, .7], "b": [.8, .7, .8, .6],
    ...                      "c": [.85, .75, .9, .65]})
    >>> round(res.details["chi2"], 3), round(res.statistic, 3)
    (6.5, 13.0)
    """
    higher_is_better = _direction(higher_is_better)
    values, columns = _table_iv(table, names)
    n, k = values.shape
    ranked = rank_models(values, names=columns, higher_is_better=higher_is_better)
    chi2 = ranked.statistic
    df2 = (k - 1) * (n - 1)
    f_stat, pvalue = iman_davenport(chi2, n, k)
    avg = ranked.average_ranks
    return TestResult(statistic=float(f_stat), pvalue=pvalue, alternative="two-sided",
                      method="Friedman test, Iman-Davenport F", df=float(k - 1),
                      details={"chi2": chi2, "chi2_pvalue": ranked.pvalue, "df2": float(df2),
                               "average_ranks": {c: float(avg[c]) for c in columns},
                               "n_datasets": n, "n_models": k})


@dataclass(frozen=True, repr=False)
class ControlResult(Result):
    """k - 1 models compared with a control chosen in advance (Demsar 2006, 3.2.2).

    Parameters
    ----------
    summary : pandas.DataFrame
        One row per other model, in the order given: ``model``, ``average_rank``,
        ``z`` (positive: worse than the control), ``pvalue``, ``pvalue_adjusted``,
        ``significant``.
    control : str
        The name of the control model.
    control_rank : float
        The control's average rank.
    method : str
        The adjustment (``"holm"``, ``"bonferroni"`` = Bonferroni-Dunn, ...).
    alpha : float
        The family-wise significance level used.
    critical_difference : float
        Bonferroni-Dunn's critical difference of average ranks at ``alpha``.
    friedman : TestResult
        The omnibus test (:func:`friedman_test`) of the same table.

    Examples
    --------
    >>> from dartboard import compare_with_control
    >>> scores = {'new': [.90, .80, .95, .70, .85], 'a': [.60, .50, .55, .40, .45],
    ...           'b': [.85, .75, .90, .65, .82]}
    >>> res = compare_with_control(scores, 'new')
    >>> res.control, res.method
    ('new', 'holm')
    """

    summary: Any
    control: str
    control_rank: float
    method: str
    alpha: float
    critical_difference: float
    friedman: Any


def compare_with_control(table: Any, control: Any, *, method: str = "holm",
                         alpha: float = 0.05, higher_is_better: bool = True,
                         names: Any = None) -> ControlResult:
    """Compare each model with a control chosen before the results were seen.

    The k - 1 hypotheses "model i ranks like the control" are tested with
    ``z = (R_i - R_control) / sqrt(k (k + 1) / (6 N))`` and adjusted together, so
    the family-wise error is at most alpha whatever the omnibus test says. The
    control must be chosen in advance (a new method against the existing ones):
    the best model chosen after looking is not a control.

    Parameters
    ----------
    table : DataFrame, dict of name -> scores, or 2-D array of shape (N, k)
        Rows are folds or data sets, columns are models.
    control : str or int
        The control's name, or its column index.
    method : str, default "holm"
        Any method of :func:`adjust_pvalues`; ``"bonferroni-dunn"`` is
        ``"bonferroni"``.
    alpha : float, default 0.05
        Family-wise significance level of the comparisons with the control.
    higher_is_better : bool, default True
        False for losses and errors, so that the lowest score ranks first.
    names : sequence of str, optional
        Model names for an array table (default ``"model 0"``, ...).

    Returns
    -------
    ControlResult
        Per model: its rank difference with the control, the adjusted p-value and
        whether it differs (``summary``).

    Examples
    --------
    >>> res = compare_with_control({"new": [.9, .8, .85, .7, .8], "a": [.8, .7, .8, .6, .7],
    ...                             "b": [.85, .75, .9, .65, .82]}, "new")
    >>> res.summary[["model", "significant"]].values.tolist()
    [['a', True], ['b', False]]
    """
    import pandas as pd

    alpha = _check_alpha(alpha)
    higher_is_better = _direction(higher_is_better)
    adjust = "bonferroni" if method == "bonferroni-dunn" else method
    check_option(adjust, "method", (*ADJUST_METHODS, "bonferroni-dunn"))
    values, columns = _table_iv(table, names)
    if isinstance(control, (int, np.integer)) and not isinstance(control, bool) \
            and 0 <= control < len(columns):
        c = int(control)
    elif str(control) in columns:
        c = columns.index(str(control))
    else:
        raise InputError(f"control must be one of the models {columns!r} or a column index; "
                         f"got {control!r}")
    n, k = values.shape
    friedman = friedman_test(values, higher_is_better=higher_is_better, names=columns)
    avg = np.array([friedman.details["average_ranks"][name] for name in columns])
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    others = [i for i in range(k) if i != c]
    z = (avg[others] - avg[c]) / se
    pvalues = np.minimum(1.0, 2.0 * stats.norm.sf(np.abs(z)))
    adjusted = adjust_pvalues(pvalues, adjust)
    summary = pd.DataFrame({"model": [columns[i] for i in others],
                            "average_rank": avg[others], "z": z, "pvalue": pvalues,
                            "pvalue_adjusted": adjusted, "significant": adjusted < alpha})
    q = float(stats.norm.isf(alpha / (2 * (k - 1))))
    return ControlResult(summary=summary, control=columns[c], control_rank=float(avg[c]),
                         method=adjust, alpha=alpha, critical_difference=q * se,
                         friedman=friedman)


def wilcoxon_test(a: ArrayLike, b: ArrayLike, *, alternative: Alternative = "two-sided",
                  zero_method: str = "wilcox") -> TestResult:
    """Wilcoxon's signed-rank test of two models over N data sets (Demsar 2006, 3.1.3).

    The differences ``a_i - b_i`` are ranked by absolute value and the ranks of
    the positive and negative ones summed; the test is ``scipy.stats.wilcoxon``
    (exact for small N without ties, normal approximation otherwise).

    Parameters
    ----------
    a, b : array-like of shape (N,)
        Scores of the two models on the same data sets.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: a scores higher.
    zero_method : {"wilcox", "pratt", "zsplit"}
        How zero differences count (``"zsplit"`` splits their ranks, as Demsar).

    Returns
    -------
    TestResult
        The signed-rank ``statistic``, its ``pvalue`` and the ``method`` used.

    Examples
    --------
    >>> res = wilcoxon_test([.9, .8, .85, .7, .75, .8], [.8, .7, .8, .6, .78, .7])
    >>> round(res.statistic, 1), round(res.pvalue, 4)
    (1.0, 0.0625)
    """
    a = as_float_array(a, name="a")
    b = as_float_array(b, name="b")
    n = check_consistent_length(("a", a), ("b", b))
    if n < 2:
        raise InputError(f"a and b must hold at least 2 pairs; got {n}")
    check_option(alternative, "alternative", ALTERNATIVES)
    check_option(zero_method, "zero_method", _ZERO_METHODS)
    d = a - b
    if not d.any():
        return TestResult(statistic=0.0, pvalue=1.0, alternative=alternative,
                          method="Wilcoxon signed-rank test", estimate=0.0)
    res = stats.wilcoxon(a, b, alternative=alternative, zero_method=zero_method)
    return TestResult(statistic=float(res.statistic), pvalue=float(res.pvalue),
                      alternative=alternative, method="Wilcoxon signed-rank test",
                      estimate=float(np.median(d)))


def _five_by_two(differences: Any) -> tuple[np.ndarray, float]:
    p = as_float_array(differences, name="differences", ndim=2)
    if p.shape != (5, 2):
        raise InputError("differences must be the 5 x 2 table of score differences "
                         f"(replication, fold); got shape {p.shape}")
    variance_sum = float(((p - p.mean(axis=1, keepdims=True)) ** 2).sum())
    if variance_sum == 0.0:
        raise InputError("differences: every replication has equal differences in its two "
                         "folds, so the 5x2cv variance estimate is 0 and the test undefined")
    return p, variance_sum


def paired_ttest_5x2cv(differences: Any) -> TestResult:
    """Dietterich's 5x2cv paired t-test from a 5 x 2 table of score differences.

    ``differences[i, j]`` is score(a) - score(b) on fold j of replication i (five
    replications of 2-fold cross-validation: each half trains once and tests once).

    Parameters
    ----------
    differences : array-like of shape (5, 2)
        Score of model a minus score of model b, per replication (rows) and fold.

    Returns
    -------
    TestResult
        ``statistic`` t with 5 degrees of freedom, two-sided ``pvalue``, ``estimate``
        the mean difference.

    Examples
    --------
    >>> d = [[.02, .01], [.03, .00], [.01, .02], [.02, .03], [.00, .01]]
    >>> res = paired_ttest_5x2cv(d)
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (1.7541, 0.1398)
    """
    p, variance_sum = _five_by_two(differences)
    t = p[0, 0] / np.sqrt(variance_sum / 5.0)
    return TestResult(statistic=float(t), pvalue=float(2.0 * stats.t.sf(abs(t), 5)),
                      alternative="two-sided", method="5x2cv paired t-test", df=5.0,
                      estimate=float(p.mean()))


def combined_ftest_5x2cv(differences: Any) -> TestResult:
    """Alpaydin's combined 5x2cv F test from a 5 x 2 table of score differences.

    Uses all ten differences, where Dietterich's t uses one in its numerator.

    Parameters
    ----------
    differences : array-like of shape (5, 2)
        Score of model a minus score of model b, per replication (rows) and fold.

    Returns
    -------
    TestResult
        ``statistic`` F with (10, 5) degrees of freedom, its ``pvalue``, ``estimate``
        the mean difference.

    Examples
    --------
    >>> d = [[.02, .01], [.03, .00], [.01, .02], [.02, .03], [.00, .01]]
    >>> res = combined_ftest_5x2cv(d)
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (2.5385, 0.1578)
    """
    p, variance_sum = _five_by_two(differences)
    f_stat = float((p ** 2).sum() / (2.0 * variance_sum))
    return TestResult(statistic=f_stat, pvalue=float(stats.f.sf(f_stat, 10, 5)),
                      alternative="two-sided", method="combined 5x2cv F test", df=10.0,
                      estimate=float(p.mean()), details={"df2": 5.0})
