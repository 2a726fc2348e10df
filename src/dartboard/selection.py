"""DART model selection: rank configurations by mean accuracy AND fold-to-fold stability.

For a configuration with k cross-validation fold scores (accuracy-like, in [0, 1]),
with mean ``A`` and sample standard deviation ``D`` (ddof = 1), the DART measure
(Definitely-Agnostic Ranked Trade-off) at precision ``p >= 0`` is::

    DART = N / exp(p D),   N = 1 - ln(A) / ln(chance) = 1 + log2(A)  (chance = 0.5)

The numerator is the published ``1 + 1.4427 ln A``; 1.4427 is the rounding of
``1 / ln 2 = 1.4426950408889634``, and dartboard uses the exact value. ``N`` is 1 at
``A = 1``, 0 at chance and negative below it; ``p`` says how much stability weighs.

Conventions (deliberate, documented):

* ``A = 0`` gives ``N = -inf`` and ``DART = -inf``, ranked last. Exactly at chance
  ``N = 0`` and DART is 0 whatever ``D``; the tie-break still ranks the steadier first.
* Below chance (``N < 0``) the plain formula ``N / exp(pD)`` would move a bad model
  *towards* zero as its variance grows, i.e. reward instability. dartboard instead
  uses ``N * exp(pD)`` there, so that for every model a larger standard deviation
  lowers DART. Both forms agree at ``N = 0`` and for ``N >= 0``, so the value is
  continuous in ``A``; only below-chance configurations deviate from the plain formula.
* Ties rank by higher mean, then lower standard deviation; configurations equal in
  all three share the best rank of the tie.
* Fold scores are sorted within each configuration before the moments are taken, so
  DART does not depend on fold order down to the last bit.
* scikit-learn's ``std_test_score`` is the population standard deviation (ddof = 0);
  dartboard always recomputes ``D`` from the ``split{k}_test_<metric>`` columns.

What the precision means: for small changes, ``d ln DART = dA / (A ln(A/chance))
- p dD`` (for ``N > 0``), so one unit of standard deviation costs as much as
``p * A * ln(A/chance)`` units of mean accuracy. At ``A = 0.9`` and chance 0.5
(``A ln(2A) = 0.529``), 0.01 of standard deviation is worth 0.0053 of mean accuracy
at p = 1, 0.026 at p = 5 and 0.053 at p = 10; ``p = 1 / (A ln(A/chance))`` (about
1.9 at A = 0.9) trades them one for one. :func:`dart_sweep` shows over which range of
``p`` each configuration wins.
"""

from __future__ import annotations

import numbers
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from dartboard._dart_formula import dart_values as _dart_values
from dartboard._dart_formula import numerator as _numerator
from dartboard._results import Result
from dartboard._rng import RandomStateLike
from dartboard._validation import as_float_array, check_real, column_1d, describe
from dartboard.exceptions import InputError, InputTypeError

if TYPE_CHECKING:
    from dartboard.compare._bayes import BayesResult

__all__ = ["DartSweepResult", "dart_equivalence", "dart_rank", "dart_refit", "dart_score",
           "dart_sweep"]

SPLIT_RE = re.compile(r"^split(\d+)_test_(.+)$")

#: Default precision grid of :func:`dart_sweep`: at A = 0.9, p = 20 prices one point
#: of standard deviation at about ten points of mean accuracy, beyond any sensible use.
DEFAULT_PRECISIONS = np.linspace(0.0, 20.0, 201)
DEFAULT_PRECISIONS.flags.writeable = False  # shared by dart_sweep and the demo


# --------------------------------------------------------------------------- core

def _check_precision(precision: Any) -> float:
    return check_real(precision, "precision", minimum=0.0)


def _check_chance_level(chance_level: Any) -> float:
    return check_real(chance_level, "chance_level", minimum=0.0, maximum=1.0,
                      open_minimum=True, open_maximum=True)


def _check_score_range(scores: np.ndarray, name: str) -> None:
    lo, hi = float(scores.min()), float(scores.max())
    if lo < 0.0 or hi > 1.0:
        raise InputError(f"{name} must lie in [0, 1] (accuracy-like fold scores, higher is "
                         f"better); got values from {lo:.6g} to {hi:.6g}")


def _check_n_folds(k: int, name: str) -> None:
    if k < 2:
        raise InputError(f"{name} must hold at least 2 fold scores per configuration (the "
                         f"standard deviation needs k >= 2); got k = {k}")


def _moments(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and sample std (ddof = 1) of each row of a (G, k) array."""
    # Sorting makes the result bit-identical under any permutation of the folds.
    s = np.sort(scores, axis=1)
    mean = s.mean(axis=1)
    std = s.std(axis=1, ddof=1)
    std[s[:, 0] == s[:, -1]] = 0.0  # constant rows: exactly 0, not a rounding residue
    return mean, std


def _tie_rank(primary: np.ndarray, mean: np.ndarray, std: np.ndarray) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """Order (best first) and 1-based ranks by primary desc, mean desc, std asc.

    Rows equal in all three keys share the smallest rank of their group.
    """
    order = np.lexsort((std, -mean, -primary))
    keys = np.column_stack([primary, mean, std])[order]
    new_group = np.ones(order.shape[0], dtype=bool)
    new_group[1:] = np.any(keys[1:] != keys[:-1], axis=1)
    positions = np.arange(1, order.shape[0] + 1)
    group_rank = np.maximum.accumulate(np.where(new_group, positions, 0))
    ranks = np.empty(order.shape[0], dtype=np.int64)
    ranks[order] = group_rank
    return order, ranks


def dart_score(scores: ArrayLike, precision: float, chance_level: float = 0.5) -> float | np.ndarray:
    """DART score of one configuration (k fold scores) or of a grid (G, k).

    ``DART = N / exp(p D)`` with ``N = 1 - ln(A) / ln(chance_level)``, ``A`` the mean
    and ``D`` the sample standard deviation (ddof = 1) of the fold scores. With the
    default ``chance_level = 0.5`` the numerator is ``1 + log2(A) = 1 + 1.4427 ln A``
    (1.4427 is the rounding of 1/ln 2; the exact value is used).

    Parameters
    ----------
    scores : array-like of shape (k,) or (G, k)
        Fold scores in [0, 1] (accuracy-like, higher is better), k >= 2.
    precision : float
        ``p >= 0``, the weight of stability. ``p = 0`` ranks by mean accuracy alone.
        One unit of standard deviation costs ``p * A * ln(A / chance_level)`` units of
        mean accuracy (for ``A`` above chance); at A = 0.9, p = 5 prices 0.01 of
        standard deviation at 0.026 of mean accuracy.
    chance_level : float, default 0.5
        Accuracy of guessing, in (0, 1): ``N`` is 0 there (0.5 for a balanced binary
        task; ``1 / n_classes`` for a balanced multiclass one).

    Returns
    -------
    float or ndarray of shape (G,)

    Notes
    -----
    Edge cases: ``A = 0`` gives ``-inf`` (ranked last). ``D = 0`` gives a denominator
    of 1. Below chance (``N < 0``) dartboard returns ``N * exp(p D)`` instead of the
    plain ``N / exp(p D)``, which would make a more variable bad model score *higher*
    (closer to 0); with this deliberate deviation a larger standard deviation lowers
    DART for every model. Values agree with the plain formula whenever ``N >= 0``.

    Examples
    --------
    >>> from dartboard import dart_score
    >>> round(dart_score([0.9, 0.92, 0.88, 0.9], precision=5.0), 6)
    0.78151
    >>> dart_score([[1.0, 1.0], [0.5, 0.5]], precision=1.0)
    array([1., 0.])
    """
    p = _check_precision(precision)
    chance = _check_chance_level(chance_level)
    arr = as_float_array(scores, name="scores", ndim=(1, 2))
    _check_score_range(arr, "scores")
    grid = arr if arr.ndim == 2 else arr[None, :]
    _check_n_folds(grid.shape[1], "scores")
    mean, std = _moments(grid)
    _, dart = _dart_values(_numerator(mean, chance), std, p)
    return float(dart[0]) if arr.ndim == 1 else dart


# --------------------------------------------------------------------------- inputs

@dataclass(frozen=True)
class _Grid:
    names: list[str]
    params: list[dict] | None
    index: np.ndarray          # row of each configuration in the input
    scores: np.ndarray         # (G, k), NaN where a fit failed


def _params_label(params: Any) -> str:
    if isinstance(params, Mapping):
        # numpy scalars (RandomizedSearchCV with scipy distributions) print as their
        # value, not as np.float64(...)
        return ", ".join(f"{k}={v.item() if isinstance(v, np.generic) else v!r}"
                         for k, v in params.items()) or "(defaults)"
    return str(params)


def _is_cv_results(results: Any) -> bool:
    if isinstance(results, pd.DataFrame):
        keys = results.columns
    elif isinstance(results, Mapping):
        keys = results.keys()
    else:
        return False
    keys = [k for k in keys if isinstance(k, str)]
    return "params" in keys or any(SPLIT_RE.match(k) or k.startswith("mean_test_")
                                   for k in keys)


def _fold_columns(cv: Mapping[str, Any], columns: list[str],
                  n_params: int | None) -> np.ndarray:
    """The (configurations x folds) scores: one number per configuration in each
    split column (NaN for a failed fit), every column as long as ``params``."""
    cols = [as_float_array(cv[c], name=f"results[{c!r}]", allow_nan=True,
                           allow_empty=True) for c in columns]
    lengths = {c: col.shape[0] for c, col in zip(columns, cols)}
    if n_params is not None:
        lengths = {"params": n_params, **lengths}
    if len(set(lengths.values())) > 1:
        listing = ", ".join(f"{c}: {k}" for c, k in lengths.items())
        raise InputError("results: every split column must hold one score per "
                         f"configuration; the lengths differ ({listing})")
    return np.column_stack(cols)


def _from_cv_results(cv: Any, metric: str | None, iteration: Any) -> _Grid:
    if isinstance(cv, pd.DataFrame):
        cv = {c: cv[c].to_numpy() for c in cv.columns}
    folds = _metric_folds(cv, metric)
    columns = [folds[i] for i in sorted(folds)]
    params = list(cv["params"]) if "params" in cv else None
    scores = _fold_columns(cv, columns, None if params is None else len(params))
    rows = _iteration_rows(cv, iteration, scores.shape[0])
    names = ([_params_label(params[i]) for i in rows] if params is not None
             else [str(i) for i in rows])
    return _Grid(names, [params[i] for i in rows] if params is not None else None,
                 rows, scores[rows])


def _metric_folds(cv: Any, metric: str | None) -> dict[int, str]:
    """The ``split{k}_test_<metric>`` columns of the chosen metric, by fold ``k`` (the
    only metric when ``metric`` is None)."""
    found: dict[str, dict[int, str]] = {}
    for key in cv:
        m = SPLIT_RE.match(key) if isinstance(key, str) else None
        if m:
            found.setdefault(m.group(2), {})[int(m.group(1))] = key
    if not found:
        raise InputError("results looks like scikit-learn cv_results_ but has no "
                         "'split{k}_test_<metric>' columns; DART needs the per-fold test "
                         "scores (std_test_score uses ddof = 0 and cannot be converted)")
    available = sorted(found)
    if metric is None:
        if len(available) > 1:
            raise InputError(f"results holds several metrics {available}; choose one with "
                             "metric=<name>")
        metric = available[0]
    elif not isinstance(metric, str):
        raise InputTypeError(f"metric must be a metric name (str); got {describe(metric)}")
    elif metric not in found:
        raise InputError(f"metric {metric!r} is not in results; available metrics: "
                         f"{available}")
    return found[metric]


def _iteration_rows(cv: Any, iteration: Any, n: int) -> np.ndarray:
    """The rows of ``iteration`` of successive-halving results (their ``iter`` column;
    ``"last"``: the last), or every row of results without one."""
    if "iter" not in cv:
        if not (isinstance(iteration, str) and iteration == "last"):
            raise InputError(f"iteration={iteration!r} needs successive-halving results "
                             "with an 'iter' column; these results have none")
        return np.arange(n)
    # successive halving: the same candidates appear once per iteration
    iters = np.asarray(cv["iter"])
    if isinstance(iteration, str) and iteration == "last":
        wanted = iters.max()
    elif isinstance(iteration, numbers.Integral) and not isinstance(iteration, bool):
        wanted = int(iteration)
        if not np.any(iters == wanted):
            raise InputError(f"iteration must be 'last' or one of "
                             f"{sorted(set(iters.tolist()))}; got {iteration}")
    else:
        raise InputError(f"iteration must be 'last' or an integer; got {iteration!r}")
    return np.flatnonzero(iters == wanted)


def _parse_results(results: Any, metric: str | None, iteration: Any) -> _Grid:
    if _is_cv_results(results):
        return _from_cv_results(results, metric, iteration)
    if metric is not None:
        raise InputError("metric selects a metric of scikit-learn cv_results_; these "
                         f"results ({describe(results)}) hold one score table only")
    if isinstance(results, pd.DataFrame):
        scores = as_float_array(results, name="results", ndim=2, allow_nan=True)
        names = [str(i) for i in results.index]
    elif isinstance(results, Mapping):
        if not results:
            raise InputError("results is an empty dict; give at least one configuration")
        names = [str(k) for k in results]
        rows = [as_float_array(column_1d(v, name=f"results[{k!r}]"), name=f"results[{k!r}]",
                               allow_nan=True) for k, v in results.items()]
        lengths = {r.shape[0] for r in rows}
        if len(lengths) > 1:
            listing = ", ".join(f"{n!r}: {r.shape[0]}" for n, r in zip(names, rows))
            raise InputError(f"results must give every configuration the same number of "
                             f"fold scores; got {listing}")
        scores = np.vstack(rows)
    else:
        scores = as_float_array(results, name="results", ndim=2, allow_nan=True)
        names = [str(i) for i in range(scores.shape[0])]
    return _Grid(names, None, np.arange(scores.shape[0]), scores)


def _clean_grid(grid: _Grid) -> _Grid:
    """Drop configurations with failed folds (NaN) with a warning; check the rest."""
    _check_n_folds(grid.scores.shape[1], "results")
    if np.isinf(grid.scores).any():
        raise InputError("results contains infinite fold scores; scores must lie in [0, 1]")
    failed = np.isnan(grid.scores).any(axis=1)
    if failed.all():
        raise InputError("every configuration in results has a NaN fold score (failed "
                         "fits); nothing to rank")
    if failed.any():
        dropped = [grid.names[i] for i in np.flatnonzero(failed)]
        shown = "; ".join(dropped[:5]) + ("; ..." if len(dropped) > 5 else "")
        warnings.warn(f"{len(dropped)} configuration(s) with NaN fold scores (failed fits) "
                      f"were left out of the DART ranking: {shown}", UserWarning,
                      stacklevel=3)
        keep = ~failed
        grid = _Grid([n for n, k in zip(grid.names, keep) if k],
                     [q for q, k in zip(grid.params, keep) if k] if grid.params is not None
                     else None, grid.index[keep], grid.scores[keep])
    _check_score_range(grid.scores, "results")
    return grid


# --------------------------------------------------------------------------- ranking

def dart_rank(results: Any, precision: float, *, metric: str | None = None,
              chance_level: float = 0.5, iteration: int | str = "last",
              confidence_level: float = 0.95, n_resamples: int = 2000,
              random_state: RandomStateLike = None, estimator: Any = None, X: Any = None, y: Any = None,
              scoring: Any = None, groups: Any = None, n_repeats: int = 50,
              n_jobs: int | None = None) -> pd.DataFrame:
    """Rank configurations by DART at one precision, with how uncertain the ranking is.

    Parameters
    ----------
    results : dict, DataFrame or 2-D array
        * scikit-learn ``cv_results_`` (``GridSearchCV``, ``RandomizedSearchCV``,
          ``HalvingGridSearchCV``/``HalvingRandomSearchCV``), as a dict or a
          DataFrame: the fold scores are read from ``split{k}_test_<metric>`` and
          the standard deviation recomputed with ddof = 1 (``std_test_score`` is
          ddof = 0).
        * a DataFrame with configurations as rows (named by the index) and fold
          scores as columns;
        * a dict ``name -> fold scores``;
        * a 2-D array, configurations as rows.
    precision : float
        ``p >= 0``; see :func:`dart_score` for its meaning.
    metric : str, optional
        Which metric of a (multi-metric) ``cv_results_`` to rank: the key of
        ``scoring`` (single-metric results use ``"score"``, chosen by default).
        Multi-metric results without ``metric`` raise an error listing the names.
    chance_level : float, default 0.5
        Where the numerator is 0; see :func:`dart_score`.
    iteration : int or "last", default "last"
        Successive-halving results list each candidate once per iteration, on
        growing resources; by default only the last iteration's candidates (the
        survivors, on the most resources) are ranked.
    confidence_level : float, default 0.95
        Of the intervals of the mean and of DART.
    n_resamples : int, default 2000
        Fold-bootstrap replicates (at least 100), drawn in memory-bounded batches.
    random_state : None, int, SeedSequence or Generator
        Seeds the replicates (and the nested CV folds); the same seed gives the
        same table.
    estimator : scikit-learn estimator or dict, optional
        Given with ``X``, ``y`` and ``scoring``, each configuration's mean gets
        :func:`dartboard.nested_cv_interval` on the results' number of folds:
        ``estimator`` with each ``cv_results_`` ``params``, or
        ``estimator[name]`` for a dict keyed by configuration name. It costs
        ``n_repeats k (k + 1) / 2`` fits per configuration.
    X, y, scoring, groups, n_repeats, n_jobs :
        Passed to :func:`dartboard.nested_cv_interval`; ``scoring`` must be the
        results' accuracy-like score (``"accuracy"``, ...).

    Returns
    -------
    DataFrame
        One row per configuration, best first, indexed by the configuration's row
        in ``results`` (for ``cv_results_`` that is the candidate index, as
        ``best_index_``). Columns: ``configuration`` (readable parameters or name),
        ``params`` (dicts, ``cv_results_`` only), ``mean``, ``std`` (ddof = 1),
        ``numerator``, ``denominator`` (``exp(p * std)``), ``dart``, ``rank`` (ties:
        higher mean, then lower std) and ``rank_by_mean`` (mean alone, ties by lower
        std) for contrast; then ``mean_low``, ``mean_high``, ``dart_low``,
        ``dart_high`` (the intervals) and ``p_best`` (the probability of ranking
        first; the column sums to 1).

    See Also
    --------
    dartboard.dart_score : The score of one configuration.
    dartboard.dart_refit : ``refit`` for GridSearchCV.
    dartboard.dart_sweep : Where the winner changes with the precision.

    Notes
    -----
    Configurations with a NaN fold score (a failed fit under scikit-learn's
    ``error_score=np.nan``) are left out with a ``UserWarning`` naming them; if all
    are NaN a ``ValueError`` is raised. Scores must lie in [0, 1]: rank error-type
    metrics (``neg_log_loss``...) with another tool. Below chance the variance
    penalty multiplies instead of divides (see :func:`dart_score`).

    The one-standard-error rule picks the simplest configuration whose mean is
    within one standard error (``D / sqrt(k)``) of the best; it buys simplicity
    with a mean deficit and ignores each candidate's own variance. DART buys
    stability instead: configuration i beats the best-by-mean j iff
    ``ln(N_j / N_i) < p (D_j - D_i)``, i.e. (to first order) when its mean deficit
    is below ``p A ln(A / chance)`` times its reduction in standard deviation.

    Uncertainty (:mod:`dartboard._dart_uncertainty`): by default the folds are
    resampled together (the configurations share them) and the intervals and
    ``p_best`` come from the replicates. This treats the fold scores as
    independent draws, which they are not (folds share training data): the
    intervals show how much the ranking rests on particular folds and are too
    narrow for the error of a deployed model, for which the nested CV of
    ``estimator=`` gives honest intervals of the mean (and widens DART's).

    Examples
    --------
    >>> from dartboard import dart_rank
    >>> folds = {"deep": [0.95, 0.80, 0.97, 0.84], "shallow": [0.88, 0.87, 0.89, 0.88]}
    >>> dart_rank(folds, precision=0)["configuration"].tolist()
    ['deep', 'shallow']
    >>> ranked = dart_rank(folds, precision=5, random_state=0)
    >>> ranked[["configuration", "dart", "dart_low", "dart_high", "p_best"]].round(3)
          configuration   dart  dart_low  dart_high  p_best
    index
    1           shallow  0.783     0.770      0.816   0.937
    0              deep  0.550     0.504      0.902   0.063
    """
    from dartboard import _dart_uncertainty as du
    from dartboard._rng import child, seed_sequence

    p = _check_precision(precision)
    chance = _check_chance_level(chance_level)
    level, n_resamples = du.check_uncertainty(confidence_level, n_resamples)
    grid = _clean_grid(_parse_results(results, metric, iteration))
    root = seed_sequence(random_state)
    nested = None if estimator is None else du.nested_intervals(
        grid, estimator, X, y, scoring, groups, n_repeats, level, child(root, 1), n_jobs)
    mean, _ = _moments(grid.scores)
    return _rank_frame(grid, p, chance, du.uncertainty_columns(
        grid.scores, mean, p, chance, level, n_resamples, child(root, 0), nested))


def dart_equivalence(results: Any, precision: float, rope: float, *,
                     metric: str | None = None, chance_level: float = 0.5,
                     iteration: int | str = "last", n_train: Any = None,
                     n_test: Any = None, runs: int = 1) -> BayesResult:
    """Is the DART winner practically equivalent to the runner-up?

    The first two configurations of :func:`dart_rank` are compared with
    :func:`dartboard.bayesian_correlated_ttest` on their fold scores (the
    same folds for both, as in a grid search): ``a`` is the winner, ``b`` the
    runner-up, ``rope`` in score units; ``n_train``/``n_test`` or ``runs`` set the
    fold correlation. Returns a ``BayesResult`` whose ``details`` name the two.

    Parameters
    ----------
    results : dict, DataFrame or 2-D array
        Fold scores per configuration, as :func:`dart_rank` takes them.
    precision : float
        The precision p (>= 0) of the ranking.
    rope : float
        Half-width of the region of practical equivalence, in score units.
    metric : str, optional
        As :func:`dart_rank`.
    chance_level : float, default=0.5
        As :func:`dart_score`.
    iteration : int or "last", default="last"
        As :func:`dart_rank`.
    n_train, n_test : float, optional
        Training and test sizes of a fold (the fold correlation).
    runs : int, default=1
        Repetitions of k-fold cross-validation, without sizes.

    Returns
    -------
    BayesResult
        ``a`` the winner, ``b`` the runner-up; ``details`` names them.

    Examples
    --------
    >>> folds = {"deep": [0.95, 0.80, 0.97, 0.84], "shallow": [0.88, 0.87, 0.89, 0.88]}
    >>> res = dart_equivalence(folds, precision=0, rope=0.05)
    >>> res.details["winner"], res.decision()
    ('deep', 'undecided')
    """
    from dartboard.compare._bayes import BayesResult, bayesian_correlated_ttest

    p = _check_precision(precision)
    chance = _check_chance_level(chance_level)
    grid = _clean_grid(_parse_results(results, metric, iteration))
    if grid.scores.shape[0] < 2:
        raise InputError("results must hold at least 2 configurations to compare the "
                         f"winner with the runner-up; got {grid.scores.shape[0]}")
    frame = _rank_frame(grid, p, chance)
    rows = [int(np.flatnonzero(grid.index == i)[0]) for i in frame.index[:2]]
    res = bayesian_correlated_ttest(grid.scores[rows[0]], grid.scores[rows[1]], rope=rope,
                                    n_train=n_train, n_test=n_test, runs=runs)
    named = {"winner": grid.names[rows[0]], "runner_up": grid.names[rows[1]]}
    return BayesResult(**{**res.__dict__, "details": {**res.details, **named}})


def _rank_frame(grid: _Grid, p: float, chance: float,
                extra: dict[str, np.ndarray] | None = None) -> pd.DataFrame:
    """The ranking table, best first; ``extra`` columns are in the grid's row order."""
    mean, std = _moments(grid.scores)
    numerator = _numerator(mean, chance)
    denominator, dart = _dart_values(numerator, std, p)
    order, rank = _tie_rank(dart, mean, std)
    _, rank_by_mean = _tie_rank(mean, mean, std)
    columns: dict[str, Any] = {"configuration": grid.names}
    if grid.params is not None:
        columns["params"] = grid.params
    columns.update(mean=mean, std=std, numerator=numerator, denominator=denominator,
                   dart=dart, rank=rank, rank_by_mean=rank_by_mean, **(extra or {}))
    frame = pd.DataFrame(columns, index=pd.Index(grid.index, name="index"))
    return frame.iloc[order]


# --------------------------------------------------------------------------- sweep

@dataclass(frozen=True, repr=False)
class DartSweepResult(Result):
    """DART rankings over a range of precisions, with the exact winner changes.

    Parameters
    ----------
    precisions : ndarray
        The sorted, distinct precision grid.
    configurations : DataFrame
        One row per configuration in input order (indexed like :func:`dart_rank`):
        ``configuration``, ``mean``, ``std``, ``numerator``.
    rankings : DataFrame
        Long table with one row per (precision, configuration): ``p``, ``index``,
        ``configuration``, ``dart``, ``rank``; sorted by ``p`` then ``rank``.
    winners : DataFrame
        The exact upper envelope over ``[min(precisions), max(precisions)]``: rows
        ``p_start``, ``p_end``, ``index``, ``configuration``; the configuration wins
        for every ``p`` strictly inside the interval. At an inner ``p_start`` it
        ties with the previous winner, which keeps rank 1 there by the tie-break
        (the previous winner has the higher mean).
    crossings : DataFrame
        One row per change of winner: ``p`` (solved analytically), ``from_index``,
        ``from_configuration``, ``to_index``, ``to_configuration`` and the common
        ``dart`` value of the two there.
    chance_level : float
        The chance level of the DART numerator (see :func:`dart_score`).

    Examples
    --------
    >>> folds = {'deep': [0.95, 0.80, 0.97, 0.84], 'shallow': [0.88, 0.87, 0.89, 0.88]}
    >>> sweep = dart_sweep(folds, [0, 1, 2, 5])
    >>> sweep.configurations['configuration'].tolist()
    ['deep', 'shallow']
    >>> sweep.crossings[['p', 'from_configuration', 'to_configuration']].round(4)
            p from_configuration to_configuration
    0  0.2649               deep          shallow
    """

    precisions: np.ndarray
    configurations: pd.DataFrame
    rankings: pd.DataFrame
    winners: pd.DataFrame
    crossings: pd.DataFrame
    chance_level: float


def _envelope(numerator: np.ndarray, std: np.ndarray, mean: np.ndarray, p_lo: float,
              p_hi: float) -> tuple[list[tuple[float, float, int]], list[tuple[float, int, int]]]:
    """Exact winner of DART over p in [p_lo, p_hi]: segments and crossing points.

    Every curve is monotone in ``ln |DART|``: above chance ``ln DART = ln N - p D``;
    below chance ranking by DART = -|N| e^{pD} means maximising ``-ln|N| - p D``. In
    both cases each configuration is a line ``b - D p`` and the winner is the upper
    envelope of the lines within the best sign class (positive > zero > negative >
    -inf, which does not depend on p). The walk moves from one winner to the line of
    smaller slope that overtakes it first: at most G steps.
    """
    cls = np.select([numerator > 0, numerator == 0, np.isfinite(numerator)], [3, 2, 1], 0)
    top = cls.max()
    members = np.flatnonzero(cls == top)
    if top == 3:
        b, m = np.log(numerator[members]), std[members]
    elif top == 1:
        b, m = -np.log(-numerator[members]), std[members]
    else:  # DART is 0 (or -inf) for all p: the tie-break alone decides
        b = m = np.zeros(members.shape[0])
    mu, sd = mean[members], std[members]
    values = b - m * p_lo
    w = np.lexsort((members, sd, -mu, m, -values))[0]
    segments, crossings = [], []
    p = p_lo
    while True:
        cand = np.flatnonzero(m < m[w])
        if cand.size == 0:
            break
        pc = np.maximum((b[w] - b[cand]) / (m[w] - m[cand]), p)
        p_next = float(pc.min())
        if p_next >= p_hi:
            break
        near = cand[pc <= p_next + 1e-12 * max(1.0, p_next)]
        new = near[np.lexsort((members[near], sd[near], -mu[near], m[near]))[0]]
        segments.append((p, p_next, int(members[w])))
        crossings.append((p_next, int(members[w]), int(members[new])))
        p, w = p_next, new
    segments.append((p, p_hi, int(members[w])))
    return segments, crossings


def dart_sweep(results: Any, precisions: Any = None, *, metric: str | None = None,
               chance_level: float = 0.5, iteration: int | str = "last") -> DartSweepResult:
    """DART rankings over a grid of precisions and the exact points where the winner changes.

    Parameters
    ----------
    results :
        Anything :func:`dart_rank` accepts.
    precisions : array-like of float, optional
        Precisions ``p >= 0`` to rank at; default ``DEFAULT_PRECISIONS``,
        ``np.linspace(0, 20, 201)`` (at A = 0.9, p = 20 makes 0.01 of standard
        deviation worth 0.106 of mean accuracy). Sorted and de-duplicated.
    metric, chance_level, iteration :
        As in :func:`dart_rank`.

    Returns
    -------
    DartSweepResult
        ``rankings`` on the grid; ``winners`` and ``crossings`` exactly, over
        ``[min(precisions), max(precisions)]``, not only at grid points. Between two
        winners the crossing solves ``N_i e^{-p D_i} = N_j e^{-p D_j}``, i.e.
        ``p* = ln(N_i / N_j) / (D_i - D_j)`` above chance (below chance the sign of
        the exponent flips, see :func:`dart_score`).

    Examples
    --------
    >>> from dartboard import dart_sweep
    >>> folds = {"deep": [0.95, 0.80, 0.97, 0.84], "shallow": [0.88, 0.87, 0.89, 0.88]}
    >>> sweep = dart_sweep(folds, [0, 1, 2, 5])
    >>> sweep.winners[["p_start", "p_end", "configuration"]].round(4)
       p_start   p_end configuration
    0   0.0000  0.2649          deep
    1   0.2649  5.0000       shallow
    """
    chance = _check_chance_level(chance_level)
    if precisions is None:
        grid_p = DEFAULT_PRECISIONS.copy()
    else:
        grid_p = as_float_array(precisions, name="precisions")
        if grid_p.min() < 0:
            raise InputError(f"precisions must be >= 0; got a minimum of {grid_p.min()}")
        grid_p = np.unique(grid_p)
    grid = _clean_grid(_parse_results(results, metric, iteration))
    mean, std = _moments(grid.scores)
    numerator = _numerator(mean, chance)
    configurations = pd.DataFrame({"configuration": grid.names, "mean": mean, "std": std,
                                   "numerator": numerator},
                                  index=pd.Index(grid.index, name="index"))

    n_conf = mean.shape[0]
    _, darts = _dart_values(numerator[None, :], std[None, :], grid_p[:, None])
    ranks = np.empty_like(darts, dtype=np.int64)
    orders = np.empty_like(ranks)
    for i in range(grid_p.shape[0]):  # one vectorised ranking per precision
        orders[i], ranks[i] = _tie_rank(darts[i], mean, std)
    flat = (orders + np.arange(grid_p.shape[0])[:, None] * n_conf).ravel()
    pos = np.tile(np.arange(n_conf), grid_p.shape[0])
    rankings = pd.DataFrame({
        "p": np.repeat(grid_p, n_conf),
        "index": grid.index[pos],
        "configuration": np.asarray(grid.names, dtype=object)[pos],
        "dart": darts.ravel(),
        "rank": ranks.ravel(),
    }).iloc[flat].reset_index(drop=True)

    segments, cross = _envelope(numerator, std, mean, float(grid_p[0]), float(grid_p[-1]))
    winners = pd.DataFrame({
        "p_start": [s[0] for s in segments],
        "p_end": [s[1] for s in segments],
        "index": [int(grid.index[s[2]]) for s in segments],
        "configuration": [grid.names[s[2]] for s in segments],
    })
    cross_p = np.array([c[0] for c in cross], dtype=np.float64)
    to = np.array([c[2] for c in cross], dtype=np.intp)
    _, cross_dart = _dart_values(numerator[to], std[to], cross_p)
    crossings = pd.DataFrame({
        "p": cross_p,
        "from_index": [int(grid.index[c[1]]) for c in cross],
        "from_configuration": [grid.names[c[1]] for c in cross],
        "to_index": [int(grid.index[c[2]]) for c in cross],
        "to_configuration": [grid.names[c[2]] for c in cross],
        "dart": cross_dart,
    })
    return DartSweepResult(grid_p, configurations, rankings, winners, crossings, chance)


# --------------------------------------------------------------------------- refit

class _DartRefit:
    """``refit`` callable for scikit-learn searches (a class, so searches pickle)."""

    def __init__(self, precision: float, metric: str | None, chance_level: float,
                 iteration: int | str) -> None:
        self.precision = _check_precision(precision)
        if metric is not None and not isinstance(metric, str):
            raise InputTypeError(f"metric must be a metric name (str) or None; got "
                                 f"{describe(metric)}")
        self.metric = metric
        self.chance_level = _check_chance_level(chance_level)
        self.iteration = iteration

    def __call__(self, cv_results: Mapping[str, Any]) -> int:
        if not _is_cv_results(cv_results):
            raise InputTypeError("dart_refit expects scikit-learn cv_results_; got "
                                 f"{describe(cv_results)}")
        grid = _clean_grid(_parse_results(cv_results, self.metric, self.iteration))
        return int(_rank_frame(grid, self.precision, self.chance_level).index[0])

    def __repr__(self) -> str:
        return (f"dart_refit(precision={self.precision!r}, metric={self.metric!r}, "
                f"chance_level={self.chance_level!r})")


def dart_refit(precision: float, metric: str | None = None, chance_level: float = 0.5,
               *, iteration: int | str = "last") -> _DartRefit:
    """A ``refit`` callable that makes a scikit-learn search keep the DART winner.

    ``GridSearchCV(..., refit=dart_refit(p))`` sets ``best_index_``,
    ``best_params_`` and ``best_estimator_`` to the configuration ranked first by
    :func:`dart_rank` at precision ``p`` (``best_score_`` is not set, as for any
    callable refit). With multi-metric ``scoring`` pass ``metric`` (a key of
    ``scoring``); without it the search raises an error listing the metric names.
    scikit-learn's successive-halving searches never call a callable ``refit``
    (they keep the best mean of the last iteration); rank their ``cv_results_``
    with :func:`dart_rank` (last iteration by default) and refit its winner.

    Parameters
    ----------
    precision : float
        The precision p (>= 0) at which configurations are ranked.
    metric : str, optional
        The key of a multi-metric ``scoring``.
    chance_level : float, default=0.5
        As :func:`dart_score`.
    iteration : int or "last", default="last"
        The successive-halving iteration whose scores are ranked.

    Returns
    -------
    callable
        ``refit(cv_results) -> best_index``, for scikit-learn's searches.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from dartboard import dart_refit
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> search = GridSearchCV(DecisionTreeClassifier(random_state=0),
    ...                       {"max_depth": [1, 2, 4, 8]}, cv=5,
    ...                       refit=dart_refit(5.0)).fit(X, y)
    >>> search.best_params_ in [{"max_depth": d} for d in (1, 2, 4, 8)]
    True
    """
    return _DartRefit(precision, metric, chance_level, iteration)
