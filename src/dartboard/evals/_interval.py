"""The mean score of a run with its interval, naive and clustered side by side.

Each question is one unit: its answers (epochs, repeats) are averaged first, ``m_i``
over ``k_i`` answers, and the estimate is ``theta = mean_i m_i`` over the ``n``
questions (the mean of the file's scores when every question has as many answers).

* naive standard error: ``sd(m) / sqrt(n)`` (ddof 1), what lm-evaluation-harness
  reports as ``acc_stderr`` (``lm_eval.api.metrics.mean_stderr``) and Inspect as
  ``stderr()``;
* clustered: the cluster-robust sandwich over the ``G`` clusters of questions
  (Miller 2024, "Adding error bars to evals", arXiv:2411.00640, eq. 6; Cameron &
  Miller 2015) with Bell and McCaffrey's CR2 correction, each cluster's sum
  ``sum_{i in c} (m_i - theta) / n`` divided by ``sqrt(1 - n_c / n)``: ``V = sum_c
  (sum_{i in c} (m_i - theta))^2 / ((1 - n_c / n) n^2)``, computed by dartboard's
  cluster-robust ratio (:func:`dartboard._kernels._clustered_analytic.ratio_terms`),
  the variance of the core's ``t-clustered`` interval. With passages of equal sizes it
  is the CR1 variance ``G / (G - 1) sum_c (...)^2 / n^2`` of statsmodels'
  ``OLS(m, 1).fit(cov_type="cluster")`` and of Inspect's ``stderr(cluster=...)``. The
  interval is ``theta +- t_df sqrt(V)`` on the small-sample degrees of freedom of
  :func:`~dartboard._kernels._clustered_analytic.small_sample_df` (a cluster effect,
  the working model of the core's intervals): ``G - 1`` with passages of equal sizes,
  the reference that kept the clustered intervals' coverage
  (benchmarks/evals_simulation.py), fewer when some passages hold many more questions
  than others (CR1 on ``G - 1`` then covers too little: ``benchmarks/
  robust_test_df.py``). Without clusters each question is its own and ``V = sd(m)^2 /
  n`` with ``t_{n-1}``.
* design effect ``V / (sd(m)^2 / n)``: how many times the naive variance the
  clusters make it.
* within-question variance: ``s_w^2``, the pooled variance of a question's answers
  around their mean (over questions with two or more answers). It adds
  ``s_w^2 mean(1/k_i) / n`` to ``V`` (answers of different questions are
  independent), its ``within_share`` of ``sd(m)^2``; with ``K`` answers per question
  the variance would be ``V - s_w^2 (mean(1/k_i) - 1/K) / n`` (``more_answers``).

Scores all in [0, 1] give an interval clipped to [0, 1].
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from dartboard._kernels._clustered_analytic import WORKING, ClusterTerms, ratio_terms
from dartboard._results import Result
from dartboard._validation import check_confidence_level, describe
from dartboard.evals._run import Run, Units, units
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["EvalInterval", "interval", "within_variance"]

#: answers per question at which ``more_answers`` projects the interval
PROJECTED_ANSWERS = (1, 2, 3, 5, 10, 20)


@dataclasses.dataclass(frozen=True, repr=False)
class EvalInterval(Result):
    """A run's mean score with its interval (module docstring).

    Parameters
    ----------
    estimate, low, high : float
        The mean over questions and its interval (clustered when the run has clusters).
    confidence_level : float
        The confidence level of the interval(s), in (0, 1).
    method : str
        ``t-clustered (CR2, G clusters)`` or ``t`` (one question one unit).
    standard_error : float
        The standard error the interval uses (clustered when the run has clusters).
    naive_standard_error : float
        ``sd(m) / sqrt(n)`` over question means: lm-eval's ``acc_stderr``.
    design_effect : float
        ``(standard_error / naive_standard_error) ** 2``.
    degrees_of_freedom : float
        The small-sample degrees of freedom: ``G - 1`` with clusters of equal sizes,
        fewer when they are unequal (``n - 1`` without clusters).
    n_questions, n_answers : int
        Questions, and answers in all (several per question when runs repeat).
    n_clusters : int or None
        Clusters of questions (None without clusters).
    within_sd : float
        Pooled sd of a question's answers around their mean; nan with one answer each.
    within_share : float
        Share of the variance of question means due to answer-to-answer noise.
    more_answers : pandas.DataFrame
        With ``answers`` per question: the projected ``standard_error``,
        ``half_width`` and ``relative`` half width (1 = today's).
    reported : dict or None
        The tool's own numbers (``Run.reported``), shown beside.
    metric, name : str
        The score's name and the run's name.

    Examples
    --------
    >>> import pandas as pd
    >>> from dartboard.evals import interval, load
    >>> run = load(pd.DataFrame({"question": [0, 0, 1, 1, 2, 2], "epoch": [0, 1] * 3,
    ...                          "score": [1, 1, 0, 1, 0, 0]}))
    >>> res = interval(run)  # question means 1, 0.5, 0; within variance (0.5 / 3)
    >>> res.estimate, res.n_questions, res.n_answers, round(res.within_share, 3)
    (0.5, 3, 6, 0.333)
    """

    estimate: float
    low: float
    high: float
    confidence_level: float
    method: str
    standard_error: float
    naive_standard_error: float
    design_effect: float
    degrees_of_freedom: float
    n_questions: int
    n_answers: int
    n_clusters: int | None
    within_sd: float
    within_share: float
    more_answers: pd.DataFrame = dataclasses.field(repr=False)
    reported: dict[str, Any] | None = None
    metric: str = ""
    name: str = ""

    _repr_fields = ("name", "metric", "estimate", "low", "high", "standard_error",
                    "naive_standard_error", "design_effect", "n_questions", "n_clusters",
                    "within_share", "method")


def check_run(run: Any, name: str) -> Run:
    if not isinstance(run, Run):
        raise InputTypeError(f"{name} must be a Run (from dartboard.evals.load); got "
                             f"{describe(run)}")
    return run


def _interval_iv(run: Any, confidence_level: Any) -> tuple[Run, float]:
    return check_run(run, "run"), check_confidence_level(confidence_level)


def within_variance(u: Units) -> float:
    """Pooled within-question variance ``s_w^2`` (nan when no question has 2 answers)."""
    dof = float(np.sum(u.count - 1.0))
    return float(np.sum(u.within_ss) / dof) if dof > 0 else float("nan")


def clustered_terms(values: np.ndarray, cluster: np.ndarray, n_clusters: int) -> ClusterTerms:
    """The cluster-robust terms of ``mean(values)`` over clusters ``cluster``: its CR2
    variance and small-sample degrees of freedom (module docstring)."""
    x = np.bincount(cluster, weights=values, minlength=n_clusters)
    d = np.bincount(cluster, minlength=n_clusters).astype(np.float64)
    return ratio_terms(x, d, "t-clustered")


def clustered_se(values: np.ndarray, cluster: np.ndarray, n_clusters: int) -> float:
    """The CR2 standard error of ``mean(values)`` over clusters ``cluster``."""
    return float(np.sqrt(clustered_terms(values, cluster, n_clusters).variance()))


def small_sample_dof(terms: ClusterTerms, working: str = WORKING) -> float:
    """The t reference's degrees of freedom of ``terms`` (``G - 1`` with clusters of
    equal sizes), rounded to 1e-9 so that equal sizes give ``G - 1`` exactly."""
    return float(round(terms.degrees_of_freedom(working), 9))


def interval(run: Run, confidence_level: float = 0.95) -> EvalInterval:
    """The mean score of a run with its interval, clustered when the run has clusters.

    Parameters
    ----------
    run : Run
        From :func:`dartboard.evals.load`.
    confidence_level : float, default 0.95
        The confidence level of the interval(s), in (0, 1).

    Returns
    -------
    EvalInterval

    Examples
    --------
    Four passages of two questions, one answer each:

    >>> import pandas as pd
    >>> from dartboard.evals import interval, load
    >>> run = load(pd.DataFrame({"question": range(8), "score": [1, 1, 0, 0, 1, 1, 1, 0],
    ...                          "passage": [0, 0, 1, 1, 2, 2, 3, 3]}), cluster="passage")
    >>> res = interval(run)
    >>> res.estimate, round(res.naive_standard_error, 4), round(res.standard_error, 4)
    (0.625, 0.183, 0.2394)
    """
    run, level = _interval_iv(run, confidence_level)
    u = units(run)
    n = u.mean.shape[0]
    if u.n_clusters < 2:
        raise InputError(f"run {run.name!r}: an interval needs at least two "
                         f"{'clusters' if u.clustered else 'questions'}; got {u.n_clusters}")
    theta = float(u.mean.mean())
    naive = float(np.std(u.mean, ddof=1) / np.sqrt(n))
    terms = clustered_terms(u.mean, u.cluster, u.n_clusters)
    se = float(np.sqrt(terms.variance()))
    dof = small_sample_dof(terms)
    q = float(special.stdtrit(dof, 0.5 + level / 2.0))
    low, high = theta - q * se, theta + q * se
    score = run.table["score"].to_numpy()
    if score.min() >= 0.0 and score.max() <= 1.0:
        low, high = max(low, 0.0), min(high, 1.0)
    s_w2 = within_variance(u)
    inv_k = float(np.mean(1.0 / u.count))
    var_m = naive ** 2 * n
    share = float(np.clip(s_w2 * inv_k / var_m, 0.0, 1.0)) if var_m > 0 else float("nan")
    more = _more_answers(se, s_w2, inv_k, n, q)
    method = f"t-clustered (CR2, {u.n_clusters} clusters)" if u.clustered else "t"
    return EvalInterval(theta, float(low), float(high), level, method, se, naive,
                        float(se ** 2 / naive ** 2) if naive > 0 else float("nan"), dof, n,
                        run.n_answers, u.n_clusters if u.clustered else None,
                        float(np.sqrt(s_w2)), share, more, run.reported, run.metric, run.name)


def _more_answers(se: float, s_w2: float, inv_k: float, n: int, q: float) -> pd.DataFrame:
    answers = np.asarray(PROJECTED_ANSWERS, dtype=np.float64)
    if np.isnan(s_w2):
        projected = np.full(answers.shape, np.nan)
    else:
        projected = np.sqrt(np.maximum(se ** 2 - s_w2 * (inv_k - 1.0 / answers) / n, 0.0))
    return pd.DataFrame({"answers": answers.astype(int), "standard_error": projected,
                         "half_width": q * projected,
                         "relative": projected / se if se > 0 else np.nan})
