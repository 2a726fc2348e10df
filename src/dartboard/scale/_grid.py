"""A cross-validated hyper-parameter grid run through the shared parallel back-ends."""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from dartboard._parallel import parallel_map
from dartboard._rng import RandomStateLike, spawn
from dartboard._validation import describe
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["cross_validate_grid"]


def _scorers(estimator: Any, scoring: Any) -> dict[str, Any]:
    """Metric name -> scorer, named as ``GridSearchCV`` names them."""
    from sklearn.metrics import check_scoring, get_scorer

    if scoring is None or isinstance(scoring, str) or callable(scoring):
        return {"score": check_scoring(estimator, scoring=scoring)}
    if isinstance(scoring, Mapping):
        if not scoring:
            raise InputError("scoring is an empty dict; name at least one metric")
        return {str(k): get_scorer(v) if isinstance(v, str) else v for k, v in scoring.items()}
    if isinstance(scoring, (list, tuple, set)):
        names = list(scoring)
        if not names or not all(isinstance(n, str) for n in names):
            raise InputError(f"scoring as a list must hold metric names (strings); got {names!r}")
        return {n: get_scorer(n) for n in names}
    raise InputTypeError(f"scoring must be None, a metric name, a callable, a list or a dict; got "
                         f"{describe(scoring)}")


def _fit_and_score(task: tuple[int, int, dict[str, Any], np.ndarray, np.ndarray, int | None],
                   *, estimator: Any, X: Any, y: Any, scorers: dict[str, Any]
                   ) -> tuple[int, int, dict[str, float], float, float]:
    """Fit one configuration on one training fold; score it on the test fold."""
    from sklearn.base import clone
    from sklearn.utils import _safe_indexing

    config, fold, params, train, test, seed = task
    model = clone(estimator).set_params(**params)
    if seed is not None:
        model.set_params(random_state=seed)
    start = time.perf_counter()
    model.fit(_safe_indexing(X, train), _safe_indexing(y, train))
    fit_time = time.perf_counter() - start
    X_test, y_test = _safe_indexing(X, test), _safe_indexing(y, test)
    start = time.perf_counter()
    scores = {name: float(scorer(model, X_test, y_test)) for name, scorer in scorers.items()}
    return config, fold, scores, fit_time, time.perf_counter() - start


def cross_validate_grid(estimator: Any, param_grid: Any, X: Any, y: Any, *, cv: Any = 5,
                        scoring: Any = None, n_jobs: int | None = None, backend: Any = None,
                        random_state: RandomStateLike = None, progress: bool | None = None) -> dict[str, Any]:
    """Cross-validate every configuration of a grid; return ``cv_results_``.

    Each (configuration, fold) pair is one task of
    :func:`dartboard._parallel.parallel_map`, so the grid runs sequentially, on
    joblib's loky processes or on a Dask cluster (``backend=client``) with the
    same scores. The folds are computed once, before any task runs, with
    scikit-learn's rules (stratified k-fold for a classifier and an int ``cv``);
    the fold scores equal those of ``sklearn.model_selection.GridSearchCV``
    with the same ``cv`` and ``scoring``.

    Parameters
    ----------
    estimator : scikit-learn estimator
        Cloned for each task.
    param_grid : dict or list of dicts
        As for ``GridSearchCV``.
    X, y : array-like
        Data.
    cv : int, splitter or iterable of (train, test) index pairs
        Folds (``sklearn.model_selection.check_cv`` rules).
    scoring : str, callable, list or dict, optional
        As for ``GridSearchCV``: ``None`` uses ``estimator.score`` and the key
        ``"score"``; a list or dict gives one set of keys per metric.
    n_jobs : int, optional
        Workers (``-1``: all cores).
    backend : str or distributed.Client, optional
        ``"loky"`` (default when ``n_jobs > 1``), ``"threading"``, ``"dask"`` or a
        ``distributed.Client``.
    random_state : None, int, SeedSequence or Generator
        When given and the estimator has a ``random_state`` parameter, each
        configuration gets its own seed spawned from it (the same for all its
        folds), so results do not depend on the back-end.
    progress : bool, optional
        A progress bar over the fits on standard error: None (the default) shows it when standard
        error is a terminal and the work lasts more than a second; True always;
        False never.

    Returns
    -------
    dict
        scikit-learn's ``cv_results_`` layout: ``params``, ``param_<name>``,
        ``split{k}_test_<metric>``, ``mean_test_<metric>``, ``std_test_<metric>``
        (ddof = 0, as scikit-learn), ``rank_test_<metric>``, ``mean_fit_time``,
        ``std_fit_time``, ``mean_score_time``, ``std_score_time``. Pass it to
        :func:`dartboard.dart_rank`.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> res = cross_validate_grid(KNeighborsClassifier(), {"n_neighbors": [1, 15]}, X, y, cv=3)
    >>> [round(float(s), 3) for s in res["mean_test_score"]]
    [0.96, 0.953]
    """
    from sklearn.base import is_classifier
    from sklearn.model_selection import ParameterGrid, check_cv

    if not hasattr(estimator, "fit") or not hasattr(estimator, "get_params"):
        raise InputTypeError(f"estimator must be a scikit-learn estimator (fit, get_params); got "
                             f"{describe(estimator)}")
    try:
        configs = list(ParameterGrid(param_grid))
    except (TypeError, ValueError) as exc:  # scikit-learn's refusal of the grid
        raise (InputTypeError if isinstance(exc, TypeError) else InputError)(
            f"param_grid: {exc}") from None
    if not configs:
        raise InputError("param_grid holds no configuration")
    splitter = check_cv(cv, y, classifier=is_classifier(estimator))
    splits = list(splitter.split(X, y))
    scorers = _scorers(estimator, scoring)
    seeds: list[int | None] = [None] * len(configs)
    if random_state is not None:
        if "random_state" not in estimator.get_params():
            raise InputError("random_state is given but the estimator has no random_state "
                             "parameter to seed")
        seeds = [int(s.generate_state(1)[0]) for s in spawn(random_state, len(configs))]
    tasks = [(i, k, params, train, test, seeds[i])
             for i, params in enumerate(configs) for k, (train, test) in enumerate(splits)]
    func = functools.partial(_fit_and_score, estimator=estimator, X=X, y=y, scorers=scorers)
    out = parallel_map(func, tasks, n_jobs=n_jobs, backend=backend, progress=progress,
                       description="cross-validating")
    return _cv_results(configs, len(splits), list(scorers), out)


def _cv_results(configs: list[dict[str, Any]], n_splits: int, names: list[str],
                out: list[tuple[int, int, dict[str, float], float, float]]) -> dict[str, Any]:
    from scipy.stats import rankdata

    n = len(configs)
    scores = {m: np.full((n, n_splits), np.nan) for m in names}
    fit = np.zeros((n, n_splits))
    score_time = np.zeros((n, n_splits))
    for config, fold, values, fit_time, s_time in out:
        for m in names:
            scores[m][config, fold] = values[m]
        fit[config, fold] = fit_time
        score_time[config, fold] = s_time
    results: dict[str, Any] = {
        "mean_fit_time": fit.mean(axis=1), "std_fit_time": fit.std(axis=1),
        "mean_score_time": score_time.mean(axis=1), "std_score_time": score_time.std(axis=1),
    }
    keys = sorted({k for c in configs for k in c})
    for key in keys:
        column = np.ma.masked_all(n, dtype=object)
        for i, c in enumerate(configs):
            if key in c:
                column[i] = c[key]
        results[f"param_{key}"] = column
    results["params"] = configs
    for m in names:
        for k in range(n_splits):
            results[f"split{k}_test_{m}"] = scores[m][:, k]
        mean = scores[m].mean(axis=1)
        results[f"mean_test_{m}"] = mean
        results[f"std_test_{m}"] = scores[m].std(axis=1)
        # scikit-learn's rank: 1 = best, ties share the lowest rank
        results[f"rank_test_{m}"] = rankdata(-mean, method="min").astype(np.int32)
    return results
