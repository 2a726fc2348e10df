"""Bayesian decisions with a region of practical equivalence (ROPE).

A difference ``d = a - b`` of scores (higher is better) smaller than ``rope`` in
absolute value is of no practical consequence. Each test returns the posterior
probabilities that a is better (``d > rope``), that the two are practically
equivalent (``|d| <= rope``) and that b is better (``d < -rope``); Benavoli,
Corani, Demsar and Zaffalon (2017, JMLR 18) recommend deciding when one of the
three exceeds 0.95.

* :func:`bayesian_correlated_ttest` (Corani and Benavoli 2015), one data set,
  J cross-validation folds: the posterior of the mean difference is Student with
  J - 1 degrees of freedom, location ``mean(d)`` and squared scale
  ``(1 / J + rho / (1 - rho)) s^2``, where ``rho = n_test / (n_train + n_test)``
  is the correlation the overlapping training sets induce (Nadeau and Bengio);
  without sizes, k-fold cross-validation repeated ``runs`` times has
  ``rho = 1 / k`` with ``k = J / runs``. Probabilities from the Student CDF.
* :func:`bayesian_signed_rank_test` (Benavoli et al. 2014), N data sets: a
  Dirichlet process posterior over the distribution of ``d`` with a
  pseudo-observation at 0 of weight ``prior``. For each of ``n_samples`` Dirichlet
  weight vectors ``w``, ``theta_a = sum_ij w_i w_j H(d_i + d_j - 2 rope)`` (H the
  step with ``H(0) = 1/2``), ``theta_b`` likewise with ``-d``, ``theta_rope = 1 -
  theta_a - theta_b``; each probability is the share of samples in which its theta
  is the largest. Monte Carlo, so it depends on ``random_state``.

Both equal baycomp's ``CorrelatedTTest`` and ``SignedRankTest`` (``x = a``, ``y =
b``; baycomp's "left" is a better).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from dartboard._results import Result
from dartboard._rng import RandomStateLike, check_random_state
from dartboard._validation import (
    as_float_array,
    check_consistent_length,
    check_int,
    check_n_resamples,
    check_real,
)
from dartboard.exceptions import InputError

__all__ = ["BayesResult", "bayesian_correlated_ttest", "bayesian_signed_rank_test",
           "rank_equivalence"]

_BATCH_CELLS = 1 << 22


@dataclass(frozen=True, repr=False)
class BayesResult(Result):
    """Posterior probabilities of a Bayesian comparison with a ROPE.

    Parameters
    ----------
    p_a_better, p_equivalent, p_b_better : float
        Posterior probabilities of ``a - b > rope``, ``|a - b| <= rope`` and
        ``a - b < -rope``; they sum to 1.
    rope : float
        Half-width of the region of practical equivalence.
    estimate : float
        The observed mean difference ``mean(a - b)``.
    method : str
        The test that produced the result.
    details : dict
        Test-specific values (posterior location, scale and df; samples drawn;
        model names).

    Examples
    --------
    >>> from dartboard import bayesian_correlated_ttest
    >>> res = bayesian_correlated_ttest([.81, .79, .84, .80, .83], [.78, .77, .80, .79, .80], rope=0.01)
    >>> round(res.p_a_better, 3), round(res.p_equivalent, 3), round(res.p_b_better, 3)
    (0.948, 0.048, 0.005)
    >>> res.decision()
    'undecided'
    """

    p_a_better: float
    p_equivalent: float
    p_b_better: float
    rope: float
    estimate: float
    method: str
    details: dict[str, Any] = field(default_factory=dict)

    def decision(self, threshold: float = 0.95) -> str:
        """``"a"``, ``"b"``, ``"equivalent"`` when that probability exceeds
        ``threshold``, else ``"undecided"``.

        Parameters
        ----------
        threshold : float, default 0.95
            The posterior probability a decision needs.

        Returns
        -------
        str
            ``"a"``, ``"b"``, ``"equivalent"`` or ``"undecided"``.
        """
        threshold = check_real(threshold, "threshold", minimum=0.5, maximum=1.0,
                               open_maximum=True)
        for name, p in (("a", self.p_a_better), ("equivalent", self.p_equivalent),
                        ("b", self.p_b_better)):
            if p > threshold:
                return name
        return "undecided"


def _pairs_iv(a: Any, b: Any, rope: Any) -> tuple[np.ndarray, float]:
    a = as_float_array(a, name="a")
    b = as_float_array(b, name="b")
    n = check_consistent_length(("a", a), ("b", b))
    if n < 2:
        raise InputError(f"a and b must hold at least 2 paired scores; got {n}")
    return a - b, check_real(rope, "rope", minimum=0.0)


def bayesian_correlated_ttest(a: ArrayLike, b: ArrayLike, *, rope: float = 0.0, n_train: Any = None,
                              n_test: Any = None, runs: int = 1) -> BayesResult:
    """Bayesian correlated t-test of two models' cross-validation fold scores.

    Parameters
    ----------
    a, b : array-like of shape (J,)
        Scores of the two models on the same J folds (all runs concatenated).
    rope : float, default 0
        Half-width of the region of practical equivalence, in score units (>= 0).
    n_train, n_test : float, optional
        Training and test sizes of a fold; give both or neither. Then
        ``rho = n_test / (n_train + n_test)``.
    runs : int, default 1
        Without sizes: the number of repetitions of k-fold cross-validation, so
        ``k = J / runs`` and ``rho = 1 / k``.

    Returns
    -------
    BayesResult
        ``p_a_better``, ``p_equivalent``, ``p_b_better``: the posterior probabilities
        that the mean difference is above ``rope``, within it and below ``-rope``.

    Examples
    --------
    >>> a = [0.81, 0.84, 0.79, 0.86, 0.83, 0.85, 0.80, 0.82, 0.84, 0.83]
    >>> b = [0.80, 0.82, 0.80, 0.83, 0.81, 0.84, 0.79, 0.80, 0.83, 0.81]
    >>> res = bayesian_correlated_ttest(a, b, rope=0.01)
    >>> round(res.p_a_better, 3), round(res.p_equivalent, 3), round(res.p_b_better, 3)
    (0.781, 0.219, 0.0)
    """
    d, rope = _pairs_iv(a, b, rope)
    j = d.shape[0]
    if (n_train is None) != (n_test is None):
        raise InputError("give both n_train and n_test, or neither")
    if n_train is not None:
        n_train = check_real(n_train, "n_train", minimum=0.0, open_minimum=True)
        n_test = check_real(n_test, "n_test", minimum=0.0, open_minimum=True)
        rho = n_test / (n_train + n_test)
    else:
        runs = check_int(runs, "runs", minimum=1)
        if j % runs or j // runs < 2:
            raise InputError(f"runs must divide the {j} folds into runs of at least 2 folds; "
                             f"got runs={runs}")
        rho = runs / j
    mean = float(d.mean())
    scale = float(np.sqrt((1.0 / j + rho / (1.0 - rho)) * d.var(ddof=1)))
    if scale == 0.0:  # every fold gives the same difference: a point mass
        p_a, p_b = float(mean > rope), float(mean < -rope)
        if rope == 0.0 and mean == 0.0:
            p_a = p_b = 0.5
    else:
        p_a = float(stats.t.sf(rope, j - 1, mean, scale))
        p_b = float(stats.t.cdf(-rope, j - 1, mean, scale))
    return BayesResult(p_a_better=p_a, p_equivalent=max(0.0, 1.0 - p_a - p_b), p_b_better=p_b,
                       rope=rope, estimate=mean, method="Bayesian correlated t-test",
                       details={"location": mean, "scale": scale, "df": j - 1, "rho": rho})


def bayesian_signed_rank_test(a: ArrayLike, b: ArrayLike, *, rope: float = 0.0, prior: float = 0.5,
                              n_samples: int = 50_000, random_state: RandomStateLike = None
                              ) -> BayesResult:
    """Bayesian signed-rank test of two models over N data sets.

    Parameters
    ----------
    a, b : array-like of shape (N,)
        Scores of the two models on the same N data sets (e.g. mean CV scores).
    rope : float, default 0
        Half-width of the region of practical equivalence (>= 0).
    prior : float, default 0.5
        Weight of the Dirichlet process's pseudo-observation at 0 (> 0).
    n_samples : int, default 50000
        Dirichlet samples of the posterior; ``n_samples * (N + 1)`` at most 10**9
        (``dartboard._validation.MAX_DRAWS``), refused before any work.
    random_state : None, int, SeedSequence or Generator
        A seed (int), a ``SeedSequence``, a ``Generator``, or None for fresh entropy.
        Seeds the posterior's Monte Carlo samples.

    Returns
    -------
    BayesResult
        The posterior probabilities of a better, practically equivalent, b better.

    Examples
    --------
    >>> a = [0.81, 0.84, 0.79, 0.86, 0.83, 0.85, 0.80, 0.82, 0.84, 0.83]
    >>> b = [0.80, 0.82, 0.80, 0.83, 0.81, 0.84, 0.79, 0.80, 0.83, 0.81]
    >>> res = bayesian_signed_rank_test(a, b, rope=0.01, random_state=0)
    >>> res.decision(), res.p_a_better > 0.5
    ('a', True)
    """
    d, rope = _pairs_iv(a, b, rope)
    prior = check_real(prior, "prior", minimum=0.0, open_minimum=True)
    # each posterior sample draws a Dirichlet weight per data set (and the pseudo-one)
    n_samples = check_n_resamples(n_samples, "n_samples", per_resample=d.shape[0] + 1,
                                  per_name="(data sets + 1)")
    rng = check_random_state(random_state)
    d = np.concatenate([[0.0], d])  # the pseudo-observation
    alphas = np.ones(d.shape[0])
    alphas[0] = prior
    sums = d[:, None] + d[None, :]
    above = (sums > 2 * rope) + 0.5 * (sums == 2 * rope)
    below = (-sums > 2 * rope) + 0.5 * (-sums == 2 * rope)
    wins = np.zeros(3, dtype=np.int64)
    rows = max(1, _BATCH_CELLS // d.shape[0])
    for start in range(0, n_samples, rows):
        w = rng.dirichlet(alphas, size=min(rows, n_samples - start))
        theta = np.empty((w.shape[0], 3))
        theta[:, 0] = ((w @ above) * w).sum(axis=1)
        theta[:, 2] = ((w @ below) * w).sum(axis=1)
        # without a ROPE, equivalence has no mass (as baycomp)
        theta[:, 1] = 1.0 - theta[:, 0] - theta[:, 2] if rope > 0 else 0.0
        wins += np.bincount(np.argmax(theta, axis=1), minlength=3)
    p_a, p_eq, p_b = (wins / n_samples).tolist()
    return BayesResult(p_a_better=p_a, p_equivalent=p_eq, p_b_better=p_b, rope=rope,
                       estimate=float(d[1:].mean()), method="Bayesian signed-rank test",
                       details={"prior": prior, "n_samples": n_samples})


def rank_equivalence(table: Any, rope: float, *, higher_is_better: bool = True,
                     names: Any = None, prior: float = 0.5, n_samples: int = 50_000,
                     random_state: RandomStateLike = None) -> BayesResult:
    """Is the winner of :func:`rank_models` practically equivalent to the runner-up?

    The two models with the best average ranks over the N data sets are compared
    with :func:`bayesian_signed_rank_test` on their scores: ``a`` is the winner,
    ``b`` the runner-up (for ``higher_is_better=False`` the scores are negated, so
    "better" keeps its meaning). ``details`` names them.

    Parameters
    ----------
    table : DataFrame, dict of name -> scores, or 2-D array of shape (N, k)
        Scores of k models (columns) on N data sets (rows).
    rope : float
        Half-width of the region of practical equivalence (>= 0).
    higher_is_better : bool, default True
        Whether a higher score is better.
    names : sequence of str, optional
        Model names of a 2-D array's columns.
    prior : float, default 0.5
        As :func:`bayesian_signed_rank_test`.
    n_samples : int, default 50000
        As :func:`bayesian_signed_rank_test`.
    random_state : None, int, SeedSequence or Generator
        Seed of the posterior samples.

    Returns
    -------
    BayesResult
        The signed-rank test of the winner (``a``) against the runner-up (``b``).

    Examples
    --------
    >>> table = {"a": [.90, .80, .85, .70, .75], "b": [.89, .80, .84, .71, .74],
    ...          "c": [.60, .50, .55, .40, .45]}
    >>> res = rank_equivalence(table, rope=0.02, random_state=0)
    >>> res.details["winner"], res.details["runner_up"], res.decision()
    ('a', 'b', 'equivalent')
    """
    from dartboard.compare._ranking import _table_iv, rank_models

    values, columns = _table_iv(table, names)
    ranked = rank_models(values, names=columns, higher_is_better=higher_is_better)
    winner, runner = ranked.summary["model"].iloc[:2]
    sign = 1.0 if higher_is_better else -1.0
    res = bayesian_signed_rank_test(sign * values[:, columns.index(winner)],
                                    sign * values[:, columns.index(runner)], rope=rope,
                                    prior=prior, n_samples=n_samples,
                                    random_state=random_state)
    return BayesResult(p_a_better=res.p_a_better, p_equivalent=res.p_equivalent,
                       p_b_better=res.p_b_better, rope=res.rope, estimate=sign * res.estimate,
                       method=res.method,
                       details={**res.details, "winner": winner, "runner_up": runner})
