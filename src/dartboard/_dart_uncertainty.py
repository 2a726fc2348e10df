"""How uncertain a DART ranking is: intervals for each configuration's mean and DART
score, and the probability that each configuration is the best.

Fold resampling (the default). The configurations were scored on the same ``k``
folds, so the folds are resampled together: a replicate draws ``k`` fold indices
with replacement, the same for every configuration, and recomputes each
configuration's mean ``A*``, standard deviation ``D*`` (ddof = 1 over the ``k``
drawn scores) and ``DART* = N(A*) / exp(p D*)``. Intervals are the
``alpha/2`` and ``1 - alpha/2`` quantiles of the replicates (percentile), and
``p_best`` is the share of replicates in which a configuration ranks first (by
DART, ties by higher mean, then lower standard deviation; a tie in all three
shares the replicate equally), so the ``p_best`` column sums to 1.

What fold resampling assumes: that the ``k`` fold scores are independent draws
from one distribution. They are not independent (the folds share training data,
which is why :func:`dartboard.cv_interval` undercovers), and with ``k`` folds
there are only ``C(2k - 1, k)`` distinct resamples (126 for k = 5). The intervals
describe how much the ranking rests on particular folds; they are too narrow as
intervals for the error of a deployed model, and ``p_best`` is a statement about
these folds, not a posterior probability.

Nested CV (where the estimator and data are given). Each configuration's mean gets
:func:`dartboard.nested_cv_interval` (on ``k`` folds, the results' own number),
which covers the error of the configuration refit on all the data. DART's interval
and ``p_best`` then come from the fold replicates with each configuration's
resampled mean deviations ``A* - A`` scaled by ``se_nested / sd(A*)``: the pairing
of the configurations (the same folds drawn) is kept, and each mean varies as much
as nested CV says it does. The bias correction of nested CV is not applied to the
replicates (the ranking itself uses the plain means).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dartboard._rng import spawn
from dartboard._validation import check_confidence_level, check_int, describe
from dartboard.exceptions import InputError, InputTypeError

#: replicates x configurations x folds held in memory at once
_BATCH_CELLS = 2**22


def fold_replicates(scores: np.ndarray, n_resamples: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(A*, D*)``, each (n_resamples, G): paired fold-bootstrap means and sample
    standard deviations of the (G, k) fold scores."""
    g, k = scores.shape
    means = np.empty((n_resamples, g))
    stds = np.empty((n_resamples, g))
    step = max(1, _BATCH_CELLS // (g * k))
    for start in range(0, n_resamples, step):
        stop = min(start + step, n_resamples)
        counts = rng.multinomial(k, np.full(k, 1.0 / k), size=stop - start)  # (b, k)
        mean = counts @ scores.T / k                                            # (b, G)
        dev = scores[None, :, :] - mean[:, :, None]                             # (b, G, k)
        var = np.einsum("bj,bgj->bg", counts, dev * dev) / (k - 1)
        means[start:stop] = mean
        stds[start:stop] = np.sqrt(np.maximum(var, 0.0))
    return means, stds


def best_shares(dart: np.ndarray, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
    """Per configuration, the share of replicates (rows) it wins: highest DART, ties
    by higher mean, then lower std; a full tie splits the replicate equally."""
    win = dart == dart.max(axis=1, keepdims=True)
    top_mean = np.where(win, mean, -np.inf)
    win &= top_mean == top_mean.max(axis=1, keepdims=True)
    low_std = np.where(win, std, np.inf)
    win &= low_std == low_std.min(axis=1, keepdims=True)
    return (win / win.sum(axis=1, keepdims=True)).mean(axis=0)


def uncertainty_columns(scores: np.ndarray, mean: np.ndarray, precision: float,
                        chance: float, level: float, n_resamples: int,
                        seed: np.random.SeedSequence,
                        nested: list[Any] | None = None) -> dict[str, np.ndarray]:
    """``mean_low``, ``mean_high``, ``dart_low``, ``dart_high``, ``p_best`` per
    configuration (rows of ``scores``), from fold resampling or nested CV."""
    from dartboard._dart_formula import dart_values as _dart_values
    from dartboard._dart_formula import numerator as _numerator

    means, stds = fold_replicates(scores, n_resamples, np.random.default_rng(seed))
    alpha = (1.0 - level) / 2.0
    if nested is None:
        mean_low, mean_high = np.quantile(means, [alpha, 1.0 - alpha], axis=0)
    else:
        spread = means.std(axis=0, ddof=1)
        se = np.array([res.standard_error for res in nested])
        scale = np.divide(se, spread, out=np.ones_like(se), where=spread > 0)
        means = mean + (means - mean) * scale
        mean_low = np.array([res.low for res in nested])
        mean_high = np.array([res.high for res in nested])
    # a scaled replicate may leave [0, 1]; the logarithm of the numerator needs A* > 0
    means = np.clip(means, 0.0, 1.0)
    _, darts = _dart_values(_numerator(means, chance), stds, precision)
    with np.errstate(invalid="ignore"):  # -inf (a mean of 0) minus -inf between replicates
        dart_low, dart_high = np.quantile(darts, [alpha, 1.0 - alpha], axis=0)
    # DART is never NaN; a quantile at or next to -inf replicates is -inf
    dart_low[np.isnan(dart_low)] = -np.inf
    dart_high[np.isnan(dart_high)] = -np.inf
    return {"mean_low": mean_low, "mean_high": mean_high, "dart_low": dart_low,
            "dart_high": dart_high, "p_best": best_shares(darts, means, stds)}


def check_uncertainty(confidence_level: Any, n_resamples: Any) -> tuple[float, int]:
    level = check_confidence_level(confidence_level)
    return level, check_int(n_resamples, "n_resamples", minimum=100)


def nested_intervals(grid: Any, estimator: Any, X: Any, y: Any, scoring: Any, groups: Any,
                     n_repeats: int, level: float, seed: np.random.SeedSequence,
                     n_jobs: Any) -> list[Any]:
    """:func:`nested_cv_interval` of every configuration of ``grid``, on its ``k`` folds."""
    from sklearn.base import clone

    from dartboard.metrics._scorers import scoring_facts
    from dartboard.uncertainty import nested_cv_interval

    if X is None or y is None or scoring is None:
        raise InputError("with an estimator, dart_rank runs nested cross-validation and "
                         "needs X, y and scoring (the scorer of the results, e.g. "
                         "'accuracy')")
    facts = scoring_facts(scoring)
    spec = facts.spec
    if spec is not None and not (facts.sign > 0 and spec.greater_is_better
                                 and spec.bounds is not None
                                 and 0.0 <= spec.bounds[0] <= spec.bounds[1] <= 1.0):
        raise InputError(f"scoring={facts.name!r} is a loss or not in [0, 1]; DART ranks "
                         "accuracy-like scores in [0, 1], higher is better "
                         "(e.g. scoring='accuracy')")
    models = _models(grid, estimator)
    seeds = spawn(seed, len(models))
    k = grid.scores.shape[1]
    return [nested_cv_interval(clone(m), X, y, scoring=scoring, cv=k, n_repeats=n_repeats,
                               groups=groups, confidence_level=level, random_state=s,
                               n_jobs=n_jobs) for m, s in zip(models, seeds)]


def _models(grid: Any, estimator: Any) -> list[Any]:
    """One estimator per configuration: ``estimator`` with each ``cv_results_``
    ``params``, or ``estimator[name]`` from a mapping of configuration names."""
    if isinstance(estimator, Mapping):
        missing = [n for n in grid.names if n not in estimator]
        if missing:
            raise InputError(f"estimator has no model for the configuration(s) "
                             f"{missing[:5]}; give one per configuration name")
        return [estimator[n] for n in grid.names]
    if not hasattr(estimator, "set_params"):
        raise InputTypeError(f"estimator must be a scikit-learn estimator or a dict of them by "
                             f"configuration name; got {describe(estimator)}")
    if grid.params is None:
        raise InputError("estimator needs cv_results_ with 'params' to set each "
                         "configuration; for other results give a dict name -> estimator")
    from sklearn.base import clone

    return [clone(estimator).set_params(**params) for params in grid.params]
