"""Two or more runs on the same questions: paired, clustered differences.

Two runs (:class:`EvalComparison`): per question the difference of the two question
means, ``d_i = m_ai - m_bi``; the difference of the runs is ``mean(d)``, its standard
error the CR2 cluster-robust one of ``mean(d)`` over the ``G`` clusters (each question
its own without clusters: then ``sd(d) / sqrt(n)``, the paired t-test), ``t =
mean(d) / se`` on the small-sample degrees of freedom of a working model fitted to the
clusters' terms (Imbens and Kolesar; ``_clustered_analytic.PAIRED_WORKING``, as
``compare_models(..., method="cluster-robust")``), ``G - 1`` with clusters of equal
sizes; the interval ``mean(d) +- t_df se``. With clusters of unequal sizes CR1 on
``G - 1`` rejected up to 16% of equally good runs at 5% (benchmarks/robust_test_df.py).
Beside it the unpaired standard error ``sqrt(se_a^2 + se_b^2)`` of the two naive
ones, which is what comparing two reported ``acc_stderr`` (or overlapping intervals)
uses: with positively correlated models it is the larger, and a paired test has more
power (Miller 2024, section 4).

k runs (:class:`EvalKComparison`): every pair, family-wise. The k estimates have the
cluster-robust covariance ``S = sum_c t_c t_c'``, ``t_c[j] = sum_{i in c} (m_ij -
theta_j) / (n sqrt(1 - n_c / n))`` (CR2; ``G / (G - 1) T' T`` with clusters of equal
sizes); pair ``(i, j)`` has ``se^2 = S_ii + S_jj - 2 S_ij`` and ``t_ij``. The
single-step max-T adjustment (Hothorn, Bretz & Westfall 2008) takes the law of ``max
|t|`` over all pairs as that of the pairs' statistics drawn from the multivariate t
with correlation from ``S`` and the fewest degrees of freedom of the pairs (each the
two runs' own, as above; ``G - 1`` with clusters of equal sizes) (Monte Carlo,
``n_draws``): the adjusted p-value of a pair is ``P(max |T| >= |t_ij|)`` and the
simultaneous intervals ``diff +- c se`` with ``c`` the ``confidence_level`` quantile
of ``max |T|``, so all pairs' intervals hold together.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from dartboard._kernels._clustered_analytic import PAIRED_WORKING
from dartboard._results import Result
from dartboard._rng import check_random_state
from dartboard._validation import check_confidence_level, check_n_resamples, check_real
from dartboard.evals._interval import check_run, clustered_terms, small_sample_dof
from dartboard.evals._paired import Paired, paired
from dartboard.evals._run import Run
from dartboard.exceptions import InputError

__all__ = ["EvalComparison", "EvalKComparison", "compare"]


@dataclasses.dataclass(frozen=True, repr=False)
class EvalComparison(Result):
    """Two runs compared question by question (module docstring).

    Parameters
    ----------
    name_a, name_b : str
        The runs' names.
    estimate_a, estimate_b : float
        Each run's mean over the shared questions.
    difference : float
        ``estimate_a - estimate_b``.
    low, high : float
        The interval of the difference.
    confidence_level : float
        The confidence level of the interval(s), in (0, 1).
    standard_error : float
        Paired and cluster-robust (what the interval and the test use).
    naive_standard_error : float
        Paired without clusters, ``sd(d) / sqrt(n)``.
    unpaired_standard_error : float
        ``sqrt(se_a^2 + se_b^2)`` of the two naive standard errors.
    design_effect : float
        ``(standard_error / naive_standard_error) ** 2``.
    correlation : float
        Pearson correlation of the two runs' question means.
    statistic : float
        ``difference / standard_error``.
    degrees_of_freedom : float
        Degrees of freedom of the t reference: clusters (or questions) less one with
        clusters of equal sizes, fewer when they are unequal.
    pvalue : float
        Two-sided, Student's t on ``degrees_of_freedom``.
    method : str
        How the interval and test were formed.
    n_questions : int
        Questions the numbers come from.
    n_clusters : int or None
        Clusters of questions (None without clusters).

    Examples
    --------
    >>> import pandas as pd
    >>> from dartboard.evals import compare, load
    >>> a = load(pd.DataFrame({"question": range(4), "score": [1, 1, 1, 0]}), name="a")
    >>> b = load(pd.DataFrame({"question": range(4), "score": [1, 0, 1, 0]}), name="b")
    >>> res = compare(a, b)
    >>> res.difference, res.degrees_of_freedom, res.significant(0.05)
    (0.25, 3.0, False)
    """

    name_a: str
    name_b: str
    estimate_a: float
    estimate_b: float
    difference: float
    low: float
    high: float
    confidence_level: float
    standard_error: float
    naive_standard_error: float
    unpaired_standard_error: float
    design_effect: float
    correlation: float
    statistic: float
    degrees_of_freedom: float
    pvalue: float
    method: str
    n_questions: int
    n_clusters: int | None

    _repr_fields = ("name_a", "name_b", "difference", "low", "high", "pvalue",
                    "standard_error", "naive_standard_error", "unpaired_standard_error",
                    "correlation", "n_questions", "n_clusters", "method")

    def significant(self, alpha: float = 0.05) -> bool:
        """Whether the two-sided p-value is below ``alpha``.

        Parameters
        ----------
        alpha : float, default 0.05
            The level of the test (and of the plan's power).

        Returns
        -------
        bool
        """
        return bool(self.pvalue < alpha)


@dataclasses.dataclass(frozen=True, repr=False)
class EvalKComparison(Result):
    """k runs compared pair by pair with max-T family-wise control (module docstring).

    Parameters
    ----------
    estimates : pandas.Series
        Each run's mean, by name.
    pairwise : pandas.DataFrame
        One row per pair (in the order given): ``a``, ``b``, ``difference``,
        ``standard_error``, ``low``, ``high`` (simultaneous), ``statistic``, ``pvalue``
        (the pair's own), ``pvalue_adjusted`` (max-T), ``significant``.
    confidence_level : float
        The confidence level of the interval(s), in (0, 1).
    alpha : float
        The level of the test (and of the plan's power).
    critical_value : float
        The ``confidence_level`` quantile of ``max |T|``.
    degrees_of_freedom : float
        Degrees of freedom of the multivariate t: clusters (or questions) less one with
        clusters of equal sizes, the fewest of the pairs' when they are unequal.
    n_questions : int
        Questions the numbers come from.
    n_clusters : int or None
        Clusters of questions (None without clusters).
    n_draws : int
        Monte Carlo draws of the multivariate t behind the max-T critical value.
    method : str
        How the interval and test were formed.

    Examples
    --------
    >>> import pandas as pd
    >>> from dartboard.evals import compare, load
    >>> runs = [load(pd.DataFrame({"question": range(6), "score": s}), name=n)
    ...         for n, s in [("a", [1, 1, 1, 0, 1, 1]), ("b", [1, 0, 1, 0, 0, 1]),
    ...                      ("c", [0, 0, 1, 0, 0, 1])]]
    >>> res = compare(*runs, random_state=0, n_draws=10_000)
    >>> res.pairwise[["a", "b", "difference"]].round(3)
       a  b  difference
    0  a  b       0.333
    1  a  c       0.500
    2  b  c       0.167
    """

    estimates: pd.Series
    pairwise: pd.DataFrame
    confidence_level: float
    alpha: float
    critical_value: float
    degrees_of_freedom: float
    n_questions: int
    n_clusters: int | None
    n_draws: int
    method: str

    _repr_fields = ("estimates", "pairwise", "critical_value", "n_questions", "n_clusters",
                    "method")


def _compare_iv(runs: tuple[Any, ...], confidence_level: Any, alpha: Any,
                n_draws: Any) -> tuple[list[Run], float, float, int]:
    if len(runs) < 2:
        raise InputError(f"compare needs at least two runs; got {len(runs)}")
    checked = [check_run(run, f"runs[{i}]") for i, run in enumerate(runs)]
    level = check_confidence_level(confidence_level)
    alpha = check_real(alpha, "alpha", minimum=0.0, maximum=1.0, open_minimum=True,
                       open_maximum=True)
    return checked, level, alpha, check_n_resamples(n_draws, "n_draws")


def compare(*runs: Run, confidence_level: float = 0.95, alpha: float = 0.05,
            n_draws: int = 100_000, random_state: Any = None
            ) -> EvalComparison | EvalKComparison:
    """Compare runs on the same questions: paired, clustered, max-T for more than two.

    Parameters
    ----------
    *runs : Run
        Two runs (:class:`EvalComparison`) or more (:class:`EvalKComparison`), from
        :func:`dartboard.evals.load`, on the same questions.
    confidence_level : float, default 0.95
        The confidence level of the interval(s), in (0, 1).
    alpha : float, default 0.05
        Family-wise level of ``significant`` (k runs).
    n_draws : int, default 100_000
        Monte Carlo draws of ``max |T|`` (k runs).
    random_state : None, int or numpy.random.Generator
        Seed of those draws.

    Returns
    -------
    EvalComparison or EvalKComparison

    Raises
    ------
    InputError
        Runs on different questions, the same question id with different hashes, or
        runs that put questions in different clusters.

    Examples
    --------
    >>> import pandas as pd
    >>> from dartboard.evals import compare, load
    >>> a = load(pd.DataFrame({"question": range(6), "score": [1, 1, 1, 0, 1, 1]}),
    ...          name="a")
    >>> b = load(pd.DataFrame({"question": range(6), "score": [1, 0, 1, 0, 0, 1]}),
    ...          name="b")
    >>> res = compare(a, b)
    >>> round(res.difference, 4), round(res.standard_error, 4), round(res.pvalue, 4)
    (0.3333, 0.2108, 0.1747)
    """
    checked, level, alpha, n_draws = _compare_iv(runs, confidence_level, alpha, n_draws)
    data = paired(checked)
    if data.n_clusters < 2:
        raise InputError("a comparison needs at least two clusters; got 1")
    if len(checked) == 2:
        return _two(data, level)
    return _many(data, level, alpha, n_draws, check_random_state(random_state))


def _two(data: Paired, level: float) -> EvalComparison:
    a, b = data.means[:, 0], data.means[:, 1]
    d = a - b
    n = d.shape[0]
    diff = float(d.mean())
    terms = clustered_terms(d, data.cluster, data.n_clusters)
    se = float(np.sqrt(terms.variance()))
    naive = float(np.std(d, ddof=1) / np.sqrt(n))
    unpaired = float(np.sqrt((np.var(a, ddof=1) + np.var(b, ddof=1)) / n))
    dof = small_sample_dof(terms, PAIRED_WORKING)
    stat = _ratio(diff, se)
    pvalue = float(min(1.0, 2.0 * special.stdtr(dof, -abs(stat))))
    q = float(special.stdtrit(dof, 0.5 + level / 2.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = float(np.corrcoef(a, b)[0, 1]) if np.std(a) > 0 and np.std(b) > 0 \
            else float("nan")
    method = (f"paired t-clustered (CR2, {data.n_clusters} clusters)" if data.clustered
              else "paired t")
    return EvalComparison(data.names[0], data.names[1], float(a.mean()), float(b.mean()),
                          diff, diff - q * se, diff + q * se, level, se, naive, unpaired,
                          float(se ** 2 / naive ** 2) if naive > 0 else float("nan"), corr,
                          stat, dof, pvalue, method, n,
                          data.n_clusters if data.clustered else None)


def _ratio(diff: float, se: float) -> float:
    if se > 0:
        return diff / se
    return 0.0 if diff == 0 else float(np.sign(diff) * np.inf)


def covariance(data: Paired) -> np.ndarray:
    """CR2 covariance ``S`` of the k runs' means (module docstring)."""
    means = data.means
    n, k = means.shape
    resid = means - means.mean(axis=0)
    sums = np.zeros((data.n_clusters, k))
    np.add.at(sums, data.cluster, resid)
    sizes = np.bincount(data.cluster, minlength=data.n_clusters).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        sums = np.where(sizes[:, None] < n, sums / np.sqrt(1.0 - sizes / n)[:, None], 0.0)
    return (sums.T @ sums) / n ** 2


def _pairs_dof(data: Paired, i: np.ndarray, j: np.ndarray) -> float:
    """The fewest degrees of freedom of the pairs' differences (each pair's own, as two
    runs compared). With passages of lognormal sizes the max-T on the fewest kept a
    family-wise error of 2.5-3.0% (on their mean, 5.0-7.2%; benchmarks/
    evals_unequal_passages.py): conservative, where one df for all pairs must err."""
    return min(small_sample_dof(clustered_terms(data.means[:, a] - data.means[:, b],
                                                data.cluster, data.n_clusters),
                                PAIRED_WORKING) for a, b in zip(i, j))


def _many(data: Paired, level: float, alpha: float, n_draws: int,
          rng: np.random.Generator) -> EvalKComparison:
    k = data.means.shape[1]
    theta = data.means.mean(axis=0)
    s = covariance(data)
    i, j = np.triu_indices(k, 1)
    diff = theta[i] - theta[j]
    se = np.sqrt(np.maximum(s[i, i] + s[j, j] - 2.0 * s[i, j], 0.0))
    stat = np.array([_ratio(float(x), float(y)) for x, y in zip(diff, se)])
    dof = _pairs_dof(data, i, j)
    max_t = _max_abs_t(s, i, j, se, dof, n_draws, rng)
    crit = float(np.quantile(max_t, level))
    adjusted = np.array([(np.count_nonzero(max_t >= abs(t)) + 1) / (n_draws + 1)
                         for t in stat])
    pvalue = np.minimum(1.0, 2.0 * special.stdtr(dof, -np.abs(stat)))
    pairs = pd.DataFrame({"a": [data.names[x] for x in i], "b": [data.names[x] for x in j],
                          "difference": diff, "standard_error": se,
                          "low": diff - crit * se, "high": diff + crit * se,
                          "statistic": stat, "pvalue": pvalue,
                          "pvalue_adjusted": np.minimum(adjusted, 1.0)})
    pairs["significant"] = pairs["pvalue_adjusted"] < alpha
    how = (f"cluster-robust (CR2, {data.n_clusters} clusters)" if data.clustered
           else "paired")
    return EvalKComparison(pd.Series(theta, index=data.names), pairs, level, alpha, crit,
                           dof, data.means.shape[0],
                           data.n_clusters if data.clustered else None, n_draws,
                           f"single-step max-T over {len(diff)} pairs, {how}, multivariate "
                           f"t on {dof:g} df")


def _max_abs_t(s: np.ndarray, i: np.ndarray, j: np.ndarray, se: np.ndarray, dof: float,
               n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """``max |T|`` over the pairs of draws from the multivariate t (module docstring);
    pairs without variance take no part."""
    values, vectors = np.linalg.eigh(s)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))
    keep = se > 0
    i, j, se = i[keep], j[keep], se[keep]
    out = np.zeros(n_draws)
    if not keep.any():
        return out
    batch = max(1, 2_000_000 // max(len(se), 1))
    for start in range(0, n_draws, batch):
        m = min(batch, n_draws - start)
        z = rng.standard_normal((m, s.shape[0])) @ root.T
        scale = np.sqrt(rng.chisquare(dof, m) / dof)
        out[start:start + m] = np.max(np.abs(z[:, i] - z[:, j]) / se, axis=1) / scale
    return out
