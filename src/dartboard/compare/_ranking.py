"""Ranking several models over folds or datasets: Friedman, Nemenyi and Holm.

Which models are significantly worse than the best? The best is the model with
the best average rank *on these data*, so comparing each model with it as with a
control chosen in advance (Holm over the k - 1 z-tests, Demsar 2006, Section
3.2.2) lets chance pick the comparisons: under the global null it flags some model
in 6-9% (k = 4) to 13-14% (k = 10) of tables at alpha = 5% (table below). The decision here is
a step-down range procedure:

With the models sorted by average rank, step s = 1, 2, ... looks at the set of
the k - s + 1 best-looking models and tests the largest gap in it, that of its
worst member to the best, against the Studentized range of that many means
(Nemenyi's statistic: ``q = sqrt(2) (R_worst - R_best) / sqrt(k (k + 1) / (6 N))``).
A rejection declares that member worse than the best, and the next step drops
it; the first non-rejection stops.

The range of a set of models is the largest of *all* their pairwise gaps, so its
critical value already accounts for which pair turned out the extremes: the best
chosen after looking is covered (at step 1 this is the Nemenyi critical
difference). Stepping down is the usual closed-testing argument: before the first
false claim every dropped model was truly worse than the best, so the set still
holds every model truly tied with the best, and the false claim needs that set's
range to exceed its own Studentized-range quantile (probability at most alpha;
the variance of rank gaps is largest when all models are tied, which is the
``se`` used). The adjusted p-value of each model is the running maximum of the
step p-values up to its step, so ``significantly_worse`` is
``pvalue_adjusted < alpha``.

The procedure controls the family-wise error by itself, so it is *not* gated by
an omnibus test. Under the global null its first step already is a level-alpha
test of "all k models are equivalent"; requiring Friedman's test to reject as
well only discards rejections of that same hypothesis, and the error falls
below alpha: measured under the global null at alpha = 5% (4000 tables per
cell, Monte-Carlo s.e. 0.34 points; ``benchmarks/compare_calibration.py``):

=====  ====  ===========  ==============  ======================  ============
k      N     range alone  Friedman gate   Iman-Davenport F gate   Holm vs best
=====  ====  ===========  ==============  ======================  ============
4      14    4.73%        3.93%           4.18%                   6.28%
4      30    5.60%        4.47%           4.65%                   9.02%
6      14    4.45%        3.40%           3.57%                   9.95%
6      30    4.28%        3.28%           3.45%                   9.07%
10     14    4.47%        2.55%           2.93%                   13.63%
10     30    4.37%        2.67%           2.78%                   12.68%
=====  ====  ===========  ==============  ======================  ============

Only the range alone stays within 5 +- 1.5 points everywhere. Friedman's
chi-square and Iman and Davenport's F are still reported (``statistic``,
``pvalue``, ``f_statistic``, ``f_pvalue``): they answer the omnibus question.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from dartboard._validation import as_float_array, describe
from dartboard.compare._adjust import adjust_pvalues
from dartboard.compare._results import RankResult, _check_alpha
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["iman_davenport", "nemenyi_q", "rank_models"]


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """Critical value q_alpha of the Nemenyi test for k models.

    The upper alpha quantile of the Studentized range of k means with infinite
    degrees of freedom, divided by sqrt(2) (Demsar 2006, Table 5a: 2.343 for
    k = 3, 2.728 for k = 5, 3.164 for k = 10 at alpha = 0.05).

    Examples
    --------
    >>> round(nemenyi_q(3), 3)  # Demsar prints 2.343, the quantile is 2.3437
    2.344
    """
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def iman_davenport(chi2: float, n: int, k: int) -> tuple[float, float]:
    """Iman-Davenport's F and its p-value from Friedman's chi-square (N data sets, k models).

    Examples
    --------
    Demsar (2006, section 3.2.4): chi2_F = 9.28 with N = 14 and k = 4 gives F_F = 3.69.

    >>> round(iman_davenport(9.28, 14, 4)[0], 2)
    3.69
    """
    denominator = n * (k - 1) - chi2
    if denominator <= 0.0:  # every data set ranks the models the same way
        return np.inf, 0.0
    f_stat = (n - 1) * chi2 / denominator
    return float(f_stat), float(stats.f.sf(f_stat, k - 1, (k - 1) * (n - 1)))


def _table_iv(table: Any, names: Any) -> tuple[np.ndarray, list[str]]:
    columns = None
    if isinstance(table, dict):
        columns = [str(c) for c in table]
        try:
            values = np.column_stack([as_float_array(v, name=f"table[{c!r}]")
                                      for c, v in table.items()])
        except ValueError as exc:
            if "inconsistent" in str(exc) or "dimension" in str(exc):
                raise InputError("table: every model must have one score per fold or "
                                 "dataset (the dict values differ in length)") from None
            raise
    else:
        if hasattr(table, "column_names"):  # pyarrow Table: .columns are its arrays
            columns = [str(c) for c in table.column_names]
        elif hasattr(table, "columns") and hasattr(table, "to_numpy"):
            columns = [str(c) for c in table.columns]
        values = as_float_array(table, name="table", ndim=2)
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != values.shape[1]:
            raise InputError(f"names must give one name per column ({values.shape[1]}); "
                             f"got {len(names)}")
        columns = names
    if columns is None:
        columns = [f"model {i}" for i in range(values.shape[1])]
    if len(set(columns)) != len(columns):
        raise InputError(f"model names must be distinct; got {columns!r}")
    n, k = values.shape
    if k < 2:
        raise InputError(f"table must have at least 2 models (columns); got {k}")
    if n < 2:
        raise InputError(f"table must have at least 2 folds or datasets (rows); got {n}")
    return values, columns


def _step_down_vs_best(avg: np.ndarray, order: np.ndarray, se: float) -> np.ndarray:
    """Adjusted p-values of "worse than the best" (see the module docstring); nan for
    the best."""
    k = order.shape[0]
    best = order[0]
    out = np.full(k, np.nan)
    running = 0.0
    for size in range(k, 1, -1):  # the `size` best-looking models
        worst = order[size - 1]
        q = np.sqrt(2.0) * (avg[worst] - avg[best]) / se
        running = max(running, float(stats.studentized_range.sf(q, size, np.inf)))
        out[worst] = min(running, 1.0)
    return out


def rank_models(table: Any, *, alpha: float = 0.05, higher_is_better: bool = True,
                names: Any = None) -> RankResult:
    """Rank k models over N folds or datasets, with Friedman, Nemenyi and Holm tests.

    Following Demsar (2006, JMLR 7): in each row the models are ranked (1 = best,
    ties get the average rank) and the ranks averaged over rows, ``R_j``.

    * Friedman's test of "all models are equivalent":
      ``chi2 = [12 / (N k (k + 1)) sum_j (N R_j)^2 - 3 N (k + 1)] / C`` with the tie
      correction ``C = 1 - sum(t^3 - t) / (N k (k^2 - 1))`` over tie groups of
      size t, chi-square with k - 1 df (as ``scipy.stats.friedmanchisquare``).
    * Nemenyi's critical difference ``CD = q_alpha sqrt(k (k + 1) / (6 N))``:
      two models whose average ranks differ by at least CD differ significantly.
    * Each model against the best: ``z = (R_i - R_best) / sqrt(k (k + 1) / (6 N))``,
      two-sided normal p-value (``pvalue_vs_best``), and Holm's adjustment over the
      k - 1 comparisons (``pvalue_holm``, Demsar's comparison with a control: valid
      only for a control chosen in advance, shown for comparison with other tools).
    * Iman and Davenport's ``F_F = (N - 1) chi2 / (N (k - 1) - chi2)`` with
      ``k - 1`` and ``(k - 1)(N - 1)`` df, less conservative than the chi-square.
    * ``significantly_worse``: the step-down range procedure of the module
      docstring, valid for a best chosen after looking and not gated by the
      omnibus tests (it controls the family-wise error by itself; a gate only
      pushed the error below alpha: 2.6-3.4% at k = 6 and 10 with
      Friedman's chi-square, 2.8-3.6% with Iman-Davenport's F); its adjusted
      p-value is ``pvalue_adjusted``.

    Parameters
    ----------
    table : DataFrame, dict of name -> scores, or 2-D array of shape (N, k)
        Rows are folds or datasets, columns are models. Finite scores.
    alpha : float, default 0.05
        Significance level of the critical difference and of the adjusted comparisons.
    higher_is_better : bool, default True
        False for losses and errors.
    names : sequence of str, optional
        Model names for an array table (default ``"model 0"``, ...).

    Returns
    -------
    RankResult
        ``summary`` DataFrame (model, average_rank, pvalue_vs_best, pvalue_holm,
        pvalue_adjusted, significantly_worse), Friedman ``statistic``/``pvalue``,
        Iman-Davenport ``f_statistic``/``f_pvalue``, ``critical_difference`` and
        per-row ``ranks``.

    Examples
    --------
    >>> res = rank_models({"a": [.9, .8, .85, .7], "b": [.8, .7, .8, .6], "c": [.85, .75, .9, .65]})
    >>> res.summary["model"].tolist(), round(res.critical_difference, 3)
    (['a', 'c', 'b'], 1.657)
    """
    import pandas as pd

    alpha = _check_alpha(alpha)
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise InputTypeError(f"higher_is_better must be True or False; got {describe(higher_is_better)}")
    values, columns = _table_iv(table, names)
    n, k = values.shape
    ranks = stats.rankdata(-values if higher_is_better else values, axis=1)
    avg = ranks.mean(axis=0)
    tie_sum = 0.0
    for row in ranks:
        _, sizes = np.unique(row, return_counts=True)
        tie_sum += float((sizes ** 3 - sizes).sum())
    correction = 1.0 - tie_sum / (n * k * (k * k - 1))
    if correction <= 0.0:  # every row entirely tied: no evidence of any difference
        statistic, pvalue = 0.0, 1.0
    else:
        ssbn = float(((ranks.sum(axis=0)) ** 2).sum())
        statistic = (12.0 / (n * k * (k + 1)) * ssbn - 3.0 * n * (k + 1)) / correction
        pvalue = float(stats.chi2.sf(statistic, k - 1))
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    q = nemenyi_q(k, alpha)
    cd = q * se
    order = np.argsort(avg, kind="stable")
    best = order[0]
    z = (avg - avg[best]) / se
    p_vs_best = np.minimum(1.0, 2.0 * stats.norm.sf(np.abs(z)))
    others = order[1:]
    holm = np.full(k, np.nan)
    holm[others] = adjust_pvalues(p_vs_best[others], "holm")
    p_vs_best[best] = np.nan
    adjusted = _step_down_vs_best(avg, order, se)
    f_statistic, f_pvalue = iman_davenport(statistic, n, k)
    summary = pd.DataFrame({
        "model": [columns[i] for i in order],
        "average_rank": avg[order],
        "pvalue_vs_best": p_vs_best[order],
        "pvalue_holm": holm[order],
        "pvalue_adjusted": adjusted[order],
        "significantly_worse": [bool(adjusted[i] < alpha) if i != best else False
                                for i in order],
    })
    rank_frame = pd.DataFrame(ranks, columns=columns)
    return RankResult(summary=summary, statistic=float(statistic), pvalue=float(pvalue),
                      critical_difference=float(cd), q_alpha=q, alpha=alpha,
                      n_datasets=n, n_models=k, ranks=rank_frame,
                      higher_is_better=bool(higher_is_better), f_statistic=f_statistic,
                      f_pvalue=f_pvalue)
