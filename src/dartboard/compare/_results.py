"""Result objects of the comparison tests."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from dartboard._results import Result
from dartboard.exceptions import InputError, InputTypeError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Comparison", "RankResult", "TestResult"]


class _Text(str):
    """Text a result's ``repr`` shows as it is (not quoted)."""

    def __repr__(self) -> str:
        return str(self)


class _Significance:
    """``significant(alpha)`` of a result with a ``pvalue``, and the word on a p-value
    at the floor of its resampling."""

    pvalue: float

    @property
    def pvalue_floor(self) -> float | None:
        """``1 / (R + 1)`` when the p-value is the smallest that a resampling test of
        ``R`` random resamples can give (``(S + 1) / (R + 1)`` with ``S = 0``: no
        resample was as extreme as the data), else None. The true p-value may be much
        smaller: only more resamples tell how much."""
        n = getattr(self, "n_resamples", None)
        if getattr(self, "exact", False) or getattr(self, "null_distribution", None) is None \
                or not n:
            return None
        floor = 1 / (int(n) + 1)
        return floor if math.isclose(self.pvalue, floor, rel_tol=1e-9) else None

    def _shown(self) -> list[tuple[str, Any]]:
        shown = super()._shown()  # type: ignore[misc]  # Result's, beside it in the MRO
        floor = self.pvalue_floor
        if floor is None:
            return shown
        n = round(1 / floor) - 1  # R, from the floor 1 / (R + 1)
        kind = "permutation" if "permutation" in str(getattr(self, "method", "")) \
            else "resampling"
        note = _Text(f"{self.pvalue:.4g} (p <= 1/{n + 1}, the smallest a {kind} test of "
                     f"{n} resamples can give)")
        return [(name, note if name == "pvalue" else value) for name, value in shown]

    def significant(self, alpha: float = 0.05) -> bool:
        """True when ``pvalue < alpha``.

        Parameters
        ----------
        alpha : float, default 0.05
            The significance level.

        Returns
        -------
        bool
            Whether ``pvalue < alpha``.
        """
        return bool(self.pvalue < _check_alpha(alpha))


@dataclass(frozen=True, repr=False)
class TestResult(_Significance, Result):
    """Outcome of a significance test.

    Parameters
    ----------
    statistic : float
        The test statistic (mean difference, z, chi-square, t, ...).
    pvalue : float
        The p-value under the null hypothesis of no difference.
    alternative : str
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    method : str
        Name of the test.
    estimate : float or None
        The effect being tested (mean difference, AUC difference, ...).
    exact : bool
        True when the p-value is exact (full enumeration, exact binomial).
    n_resamples : int or None
        Number of null resamples (``2**n`` when exact), None for analytic tests.
    null_distribution : ndarray or None
        The resampled statistics, when the test has them.
    df : float or None
        Degrees of freedom of the reference distribution, when it has them.
    details : dict
        Test-specific extra values (e.g. the two AUCs of a DeLong test).
    interval : dartboard.Interval or None
        Confidence interval of ``estimate``, when the test gives one (DeLong's
        interval of the AUC difference).

    Examples
    --------
    >>> from dartboard import permutation_test
    >>> res = permutation_test([0.81, 0.79, 0.84, 0.80, 0.83], [0.78, 0.77, 0.80, 0.79, 0.80])
    >>> round(res.statistic, 3), res.pvalue, res.exact
    (0.026, 0.0625, True)
    """

    __test__ = False  # not a pytest test class

    statistic: float
    pvalue: float
    alternative: str
    method: str
    estimate: float | None = None
    exact: bool = False
    n_resamples: int | None = None
    null_distribution: np.ndarray | None = None
    df: float | None = None
    details: dict[str, Any] = field(default_factory=dict)
    interval: Any = None

    _repr_fields = ("method", "statistic", "pvalue", "estimate", "interval", "alternative")


@dataclass(frozen=True, repr=False)
class Comparison(_Significance, Result):
    """Two models compared on one test set with one metric.

    Parameters
    ----------
    metric : str
        Name of the metric.
    estimate_a, estimate_b : float
        The metric of each model on the test set.
    difference : float
        ``estimate_a - estimate_b``.
    interval : dartboard.Interval
        Paired bootstrap (percentile) interval of the difference, with its
        bootstrap distribution.
    pvalue : float
        p-value of the sample-swap permutation test, ``(S + 1) / (R + 1)``.
    method : str
        How the null distribution was drawn.
    alternative : str
        ``"two-sided"``, ``"greater"`` (a is better) or ``"less"``.
    n_resamples : int
        Number of permutation (and bootstrap) resamples.
    null_distribution : ndarray
        The permutation differences.

    Examples
    --------
    >>> from dartboard import compare_models
    >>> res = compare_models('accuracy_score', [0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 1, 0, 1, 1, 1, 1],
    ...                      [0, 1, 0, 0, 0, 1, 1, 0], random_state=0)
    >>> res.estimate_a, res.estimate_b, res.difference
    (0.875, 0.5, 0.375)
    >>> res.significant()
    False
    """

    metric: str
    estimate_a: float
    estimate_b: float
    difference: float
    interval: Any
    pvalue: float
    method: str
    alternative: str
    n_resamples: int
    null_distribution: np.ndarray | None = None

    _repr_fields = ("metric", "estimate_a", "estimate_b", "difference", "interval", "pvalue",
                    "method")


@dataclass(frozen=True, repr=False)
class RankResult(Result):
    """Several models ranked over folds or datasets (Friedman + Nemenyi + Holm).

    Parameters
    ----------
    summary : pandas.DataFrame
        One row per model, best first: ``model``, ``average_rank``,
        ``pvalue_vs_best`` (z-test against the best, unadjusted), ``pvalue_holm``
        (Holm over the k - 1 comparisons, as for a control chosen in advance),
        ``pvalue_adjusted`` (step-down range procedure, valid for the best
        chosen after looking) and ``significantly_worse``
        (``pvalue_adjusted < alpha``).
    statistic : float
        Friedman's chi-square (tie-corrected, as ``scipy.stats.friedmanchisquare``).
    pvalue : float
        Friedman's p-value (chi-square with k - 1 degrees of freedom).
    critical_difference : float
        Nemenyi's critical difference ``q_alpha sqrt(k (k + 1) / (6 N))``.
    q_alpha : float
        The Studentized-range quantile divided by sqrt(2).
    alpha : float
        Significance level.
    n_datasets, n_models : int
        N (rows) and k (columns).
    ranks : pandas.DataFrame
        Per-row ranks (1 = best, ties averaged).
    higher_is_better : bool
        Direction of the scores.
    f_statistic, f_pvalue : float
        Iman and Davenport's F from Friedman's chi-square and its p-value (F with
        k - 1 and (k - 1)(N - 1) degrees of freedom).

    Examples
    --------
    >>> from dartboard import rank_models
    >>> scores = {'a': [.90, .80, .95, .70, .85], 'b': [.85, .75, .90, .65, .82],
    ...           'c': [.60, .50, .55, .40, .45]}
    >>> res = rank_models(scores)
    >>> res.average_ranks.round(2).to_dict()
    {'a': 1.0, 'b': 2.0, 'c': 3.0}
    """

    summary: Any
    statistic: float
    pvalue: float
    critical_difference: float
    q_alpha: float
    alpha: float
    n_datasets: int
    n_models: int
    ranks: Any = field(repr=False)
    higher_is_better: bool = True
    f_statistic: float = float("nan")
    f_pvalue: float = float("nan")

    @property
    def average_ranks(self) -> pd.Series:
        """Average rank per model (a pandas Series, best first)."""
        return self.summary.set_index("model")["average_rank"]

    def groups(self) -> list[list[str]]:
        """Maximal groups of models whose average ranks differ by less than the CD.

        Models are taken best first; each group is a run of consecutive models
        that Nemenyi's test cannot tell apart, and no group is inside another.

        Returns
        -------
        list of list of str
            The groups, best first.
        """
        names = self.summary["model"].tolist()
        ranks = self.summary["average_rank"].to_numpy()
        out: list[list[str]] = []
        last_end = -1
        for i in range(len(names)):
            j = int(np.searchsorted(ranks, ranks[i] + self.critical_difference, side="left"))
            # ranks[j-1] - ranks[i] < CD: models i..j-1 are not significantly different
            if j - 1 > i and j - 1 > last_end:
                out.append(names[i:j])
                last_end = j - 1
        return out


def _check_alpha(alpha: Any) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)):
        raise InputTypeError(f"alpha must be a number in (0, 1); got {alpha!r}")
    if not 0.0 < float(alpha) < 1.0:
        raise InputError(f"alpha must be strictly between 0 and 1; got {alpha}")
    return float(alpha)
