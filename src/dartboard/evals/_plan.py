"""How many questions (in how many clusters, with how many answers each) a paired
comparison of two models needs to detect a difference.

The paired difference of question ``i``'s means, ``d_i = m_ai - m_bi``, varies by
the question (sd ``sigma``, with intra-cluster correlation ``rho`` among the
questions of one cluster) and by the answers (``k`` answers per question per model,
answer-level sd ``omega`` of the difference of one answer of each, given the
question). With ``n`` questions in clusters of ``m``::

    Var(mean d) = (sigma^2 (1 + (m - 1) rho) + omega^2 / k) / n,

and the test of :func:`~dartboard.evals.compare` (Student's t on ``G - 1`` degrees of
freedom, ``G = n / m`` clusters; ``n - 1`` without clusters) has power

    P(|T| > t_{G-1, 1 - alpha/2}),  T ~ noncentral t(G - 1, delta / sqrt(Var)),

the smallest ``G`` (then ``n = G m``) reaching the target is the plan. From a pilot
pair of runs: ``omega^2 = s_wa^2 + s_wb^2`` (each run's pooled within-question
variance; 0 when the pilot has one answer per question, which leaves the effect of
more answers unknown), ``sigma^2 = var(d) - mean(s_wa^2 / k_ai + s_wb^2 / k_bi)``, and
``rho`` from the pilot's clustered variance ``V`` (:func:`compare`'s squared standard
error): ``n V = sigma^2 (1 + (m_e - 1) rho) + mean(...)`` with ``m_e = sum m_c^2 / n``,
clipped to [0, 1] (at 1, ``sigma^2`` is raised to ``(n V - mean(...)) / m_e`` so that
the plan keeps the pilot's measured variance); ``m`` the pilot's mean cluster size
unless given.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import special, stats

from dartboard._results import Result
from dartboard._validation import check_int, check_real, describe
from dartboard.evals._interval import check_run, clustered_se
from dartboard.evals._paired import paired
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["SampleSizePlan", "sample_size", "plan_power"]

#: the most clusters a plan may ask for
MAX_CLUSTERS = 10**8
#: answers per question at which ``alternatives`` shows the plan
ALTERNATIVE_ANSWERS = (1, 2, 3, 5, 10)


@dataclasses.dataclass(frozen=True, repr=False)
class SampleSizePlan(Result):
    """A planned comparison (module docstring).

    Parameters
    ----------
    questions : int
        Questions to ask (``clusters * cluster_size``).
    clusters : int
        Clusters needed (None without clusters).
    answers : int
        Answers per question per model.
    cluster_size : int
        Questions per cluster the plan assumes.
    power : float
        The power of the plan (at least the target).
    target_power, alpha, difference : float
        The power asked for, the test's level and the difference to detect.
    sd : float
        ``sigma``, sd of the question-level paired difference.
    icc : float
        ``rho``.
    within_sd : float
        ``omega``, sd of the difference of one answer per model given the question.
    design_effect : float
        ``1 + (cluster_size - 1) icc``.
    alternatives : pandas.DataFrame
        ``answers``, ``questions``, ``clusters``, ``power``: the plan at other
        numbers of answers per question.
    source : str
        ``"pilot"`` or ``"given"``.

    Examples
    --------
    >>> from dartboard.evals import sample_size
    >>> plan = sample_size(0.05, sd=0.4, icc=0.2, cluster_size=5)
    >>> plan.questions, plan.clusters, round(plan.design_effect, 2)
    (915, 183, 1.8)
    """

    questions: int
    clusters: int
    answers: int
    cluster_size: int
    power: float
    target_power: float
    alpha: float
    difference: float
    sd: float
    icc: float
    within_sd: float
    design_effect: float
    alternatives: pd.DataFrame = dataclasses.field(repr=False)
    source: str = "given"

    _repr_fields = ("questions", "clusters", "answers", "cluster_size", "power",
                    "difference", "sd", "icc", "within_sd", "source")


def plan_power(clusters: int, cluster_size: int, answers: int, difference: float, sd: float,
               icc: float, within_sd: float, alpha: float) -> float:
    """Power of the two-sided paired clustered t-test (module docstring)."""
    n = clusters * cluster_size
    var = (sd ** 2 * (1.0 + (cluster_size - 1) * icc) + within_sd ** 2 / answers) / n
    dof = clusters - 1
    if dof < 1 or var <= 0:
        return float("nan") if dof < 1 else 1.0
    ncp = abs(difference) / math.sqrt(var)
    crit = float(special.stdtrit(dof, 1.0 - alpha / 2.0))
    return float(stats.nct.sf(crit, dof, ncp) + stats.nct.cdf(-crit, dof, ncp))


def _smallest(target: float, *args: Any) -> tuple[int, float]:
    """Smallest number of clusters whose power reaches ``target`` (bisection)."""
    low, high = 2, 4
    while plan_power(high, *args) < target:
        low, high = high, high * 2
        if high > MAX_CLUSTERS:
            raise InputError(f"the plan needs more than {MAX_CLUSTERS:_} clusters: the "
                             "difference is too small to detect")
    while high - low > 1:
        mid = (low + high) // 2
        if plan_power(mid, *args) >= target:
            high = mid
        else:
            low = mid
    if plan_power(low, *args) >= target:
        high = low
    return high, plan_power(high, *args)


def _pilot(pilot: Any) -> dict[str, float]:
    if not isinstance(pilot, (tuple, list)) or len(pilot) != 2:
        raise InputTypeError(f"pilot must be a pair of runs (run_a, run_b); got "
                             f"{describe(pilot)}")
    data = paired([check_run(run, f"pilot[{i}]") for i, run in enumerate(pilot)])
    d = data.means[:, 0] - data.means[:, 1]
    n = d.shape[0]
    within = np.nan_to_num(data.within, nan=0.0)
    noise = float(np.mean(within[0] / data.counts[:, 0] + within[1] / data.counts[:, 1]))
    sigma2 = max(float(np.var(d, ddof=1)) - noise, 0.0)
    sizes = np.bincount(data.cluster, minlength=data.n_clusters).astype(np.float64)
    m_e = float(np.sum(sizes ** 2) / n)
    icc = 0.0
    if data.clustered and sigma2 > 0 and m_e > 1:
        between = n * clustered_se(d, data.cluster, data.n_clusters) ** 2 - noise
        icc = float(np.clip((between / sigma2 - 1.0) / (m_e - 1.0), 0.0, 1.0))
        if icc == 1.0:  # more clustered than the sd allows (noise): keep the measured
            sigma2 = max(between, 0.0) / m_e  # variance at the pilot's own design
    return {"sd": math.sqrt(sigma2), "icc": icc, "within_sd": math.sqrt(float(within.sum())),
            "cluster_size": max(1, round(n / data.n_clusters)) if data.clustered else 1,
            "answers": max(1, round(float(np.mean(data.counts))))}


def sample_size(difference: float, *, pilot: Any = None, sd: float | None = None,
                icc: float | None = None, within_sd: float | None = None,
                cluster_size: int | None = None, answers: int | None = None, power: float = 0.8,
                alpha: float = 0.05) -> SampleSizePlan:
    """Questions, clusters and answers per question to detect a difference at a power.

    Parameters
    ----------
    difference : float
        The smallest difference of mean scores worth detecting (e.g. 0.02).
    pilot : (Run, Run), optional
        Two runs on the same questions, from which ``sd``, ``icc``, ``within_sd`` and
        ``cluster_size`` are measured (module docstring); each given explicitly wins.
    sd : float, optional
        sd of the question-level paired difference (needed without a pilot).
    icc : float, default 0
        Intra-cluster correlation of the question-level differences.
    within_sd : float, default 0
        sd of the difference of one answer per model, given the question.
    cluster_size : int, default 1
        Questions per cluster (passage, template).
    answers : int, optional
        Answers per question per model (default: the pilot's, else 1).
    power : float, default 0.8
        The power the plan aims for, in (0, 1).
    alpha : float, default 0.05
        Two-sided level of the test.

    Returns
    -------
    SampleSizePlan

    Examples
    --------
    A difference of 3 points, question-level sd 0.5, no clusters, one answer:

    >>> from dartboard.evals import sample_size
    >>> plan = sample_size(0.03, sd=0.5)
    >>> plan.questions, round(plan.power, 3)
    (2183, 0.8)
    """
    delta = check_real(difference, "difference")
    if delta == 0.0:
        raise InputError("difference must not be 0: no sample size detects no difference")
    alpha = check_real(alpha, "alpha", minimum=0.0, maximum=1.0, open_minimum=True,
                       open_maximum=True)
    target = check_real(power, "power", minimum=alpha, maximum=1.0, open_minimum=True,
                        open_maximum=True)
    measured = _pilot(pilot) if pilot is not None else {}
    if sd is None and "sd" not in measured:
        raise InputError("give sd (of the question-level paired difference) or a pilot")
    sigma = check_real(sd if sd is not None else measured["sd"], "sd", minimum=0.0)
    rho = check_real(icc if icc is not None else measured.get("icc", 0.0), "icc",
                     minimum=0.0, maximum=1.0)
    omega = check_real(within_sd if within_sd is not None else measured.get("within_sd", 0.0),
                       "within_sd", minimum=0.0)
    m = check_int(cluster_size if cluster_size is not None
                  else measured.get("cluster_size", 1), "cluster_size", minimum=1)
    k = check_int(answers if answers is not None else measured.get("answers", 1), "answers",
                  minimum=1)
    if sigma == 0.0 and omega == 0.0:
        raise InputError("sd and within_sd are both 0: the difference has no variance to "
                         "plan against")
    clusters, achieved = _smallest(target, m, k, delta, sigma, rho, omega, alpha)
    rows = []
    for kk in sorted({*ALTERNATIVE_ANSWERS, k}):
        g, p = _smallest(target, m, kk, delta, sigma, rho, omega, alpha)
        rows.append({"answers": kk, "questions": g * m, "clusters": g, "power": p})
    return SampleSizePlan(clusters * m, clusters, k, m, achieved, target, alpha, delta, sigma,
                          rho, omega, 1.0 + (m - 1) * rho, pd.DataFrame(rows),
                          "pilot" if pilot is not None else "given")
