"""What a pipeline costs: fit and predict time, throughput, memory, model size.

Timing and memory are measured in separate runs. ``repeats`` timed runs (each a
fresh clone, fitted then predicting) run without any tracing, so the times are
not slowed down; one extra run then measures memory:

* Python allocations: the peak of :mod:`tracemalloc` (which also sees numpy's
  array buffers) during ``fit`` and, separately, during ``predict``;
* process resident memory (RSS): a background thread samples
  ``psutil.Process().memory_info().rss`` every millisecond; the reported value is
  the highest sample minus the RSS just before the step (never below 0).
  Allocations that live shorter than the sampling interval can be missed, so it
  is a lower bound; native allocations that tracemalloc cannot see (e.g. in
  compiled libraries) show up here.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import pickle
import threading
import time
import tracemalloc
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from dartboard._parallel import parallel_map
from dartboard._results import Result
from dartboard._validation import check_int, check_option
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["Profile", "profile_pipeline"]

_RSS_INTERVAL = 0.001  # seconds between RSS samples


@dataclasses.dataclass(frozen=True, repr=False)
class Profile(Result):
    """Time and memory profile of one estimator.

    Parameters
    ----------
    name : str
        Estimator name.
    fit_time, predict_time : float
        Median wall time in seconds over the timed repeats.
    fit_time_iqr, predict_time_iqr : float
        Spread: interquartile range (numpy's linear quantiles) of those times.
    fit_times, predict_times : numpy.ndarray
        Every timed repeat, in seconds.
    throughput : float
        Prediction throughput in rows per second, ``n_test / predict_time``.
    fit_peak_python, predict_peak_python : int
        Peak bytes allocated through Python (tracemalloc) during the step.
    fit_peak_rss, predict_peak_rss : int
        Peak resident memory during the step minus the RSS before it, bytes.
    model_size : int
        Size of the fitted model in bytes, ``len(pickle.dumps(model))``.
    n_train, n_test, repeats : int
        Sizes of the data and number of timed repeats.
    method : str
        The prediction method timed (``"predict"`` or ``"predict_proba"``).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from dartboard import profile_pipeline
    >>> X, y = load_iris(return_X_y=True)
    >>> prof = profile_pipeline(LogisticRegression(max_iter=500), X, y, X, repeats=3)
    >>> prof.name, prof.method
    ('LogisticRegression', 'predict')
    >>> sorted(prof.summary())[:3]
    ['fit_peak_python', 'fit_peak_rss', 'fit_time']
    """

    name: str
    fit_time: float
    fit_time_iqr: float
    predict_time: float
    predict_time_iqr: float
    throughput: float
    fit_peak_python: int
    predict_peak_python: int
    fit_peak_rss: int
    predict_peak_rss: int
    model_size: int
    n_train: int
    n_test: int
    repeats: int
    method: str
    fit_times: np.ndarray
    predict_times: np.ndarray

    #: the unit of each numeric field, as tables show it
    UNITS: ClassVar[dict[str, str]] = {
        "fit_time": "s", "fit_time_iqr": "s", "predict_time": "s", "predict_time_iqr": "s",
        "fit_times": "s", "predict_times": "s", "throughput": "rows/s",
        "fit_peak_python": "bytes", "predict_peak_python": "bytes", "fit_peak_rss": "bytes",
        "predict_peak_rss": "bytes", "model_size": "bytes", "n_train": "rows",
        "n_test": "rows", "repeats": "runs"}
    _repr_fields = ("name", "fit_time", "predict_time", "throughput", "fit_peak_python",
                    "model_size", "method")

    def summary(self) -> dict[str, Any]:
        """Every scalar field, as one flat dict (a row of the comparison table).

        Returns
        -------
        dict
            Field name -> value, without the per-repeat arrays.
        """
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if not isinstance(getattr(self, f.name), np.ndarray)}


class _RSSSampler:
    """Samples this process's RSS in a thread; ``peak`` is relative to the start."""

    def __init__(self) -> None:
        import psutil

        self._process = psutil.Process()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.baseline = self._process.memory_info().rss
        self._max = self.baseline

    def _run(self) -> None:
        while not self._stop.wait(_RSS_INTERVAL):
            self._max = max(self._max, self._process.memory_info().rss)

    def __enter__(self) -> _RSSSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self._max = max(self._max, self._process.memory_info().rss)

    @property
    def peak(self) -> int:
        return max(0, int(self._max - self.baseline))


def _timed_run(estimator: Any, X_train: Any, y_train: Any, X_test: Any,
               method: str) -> tuple[float, float, Any]:
    from sklearn.base import clone

    model = clone(estimator)
    gc.collect()
    t0 = time.perf_counter()
    model.fit(X_train, y_train)
    t1 = time.perf_counter()
    getattr(model, method)(X_test)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, model


def _memory_run(estimator: Any, X_train: Any, y_train: Any, X_test: Any,
                method: str) -> tuple[int, int, int, int]:
    """(fit python peak, fit RSS peak, predict python peak, predict RSS peak)."""
    from sklearn.base import clone

    model = clone(estimator)
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        with _RSSSampler() as fit_rss:
            model.fit(X_train, y_train)
        fit_py = tracemalloc.get_traced_memory()[1] - base
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        with _RSSSampler() as pred_rss:
            getattr(model, method)(X_test)
        pred_py = tracemalloc.get_traced_memory()[1] - base
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return max(0, fit_py), fit_rss.peak, max(0, pred_py), pred_rss.peak


def _profile_one(item: tuple[str, Any], *, X_train: Any, y_train: Any, X_test: Any,
                 repeats: int, method: str, memory: bool) -> Profile:
    name, estimator = item
    fit_times, predict_times = [], []
    model = None
    for _ in range(repeats):
        fit_t, pred_t, model = _timed_run(estimator, X_train, y_train, X_test, method)
        fit_times.append(fit_t)
        predict_times.append(pred_t)
    if memory:
        fit_py, fit_rss, pred_py, pred_rss = _memory_run(estimator, X_train, y_train,
                                                         X_test, method)
    else:
        fit_py = fit_rss = pred_py = pred_rss = 0
    fit_arr, pred_arr = np.array(fit_times), np.array(predict_times)
    n_test = len(X_test)
    predict_time = float(np.median(pred_arr))
    fq, pq = np.quantile(fit_arr, [0.25, 0.75]), np.quantile(pred_arr, [0.25, 0.75])
    return Profile(
        name=name, fit_time=float(np.median(fit_arr)), fit_time_iqr=float(fq[1] - fq[0]),
        predict_time=predict_time, predict_time_iqr=float(pq[1] - pq[0]),
        throughput=n_test / predict_time if predict_time > 0 else float("inf"),
        fit_peak_python=int(fit_py), predict_peak_python=int(pred_py),
        fit_peak_rss=int(fit_rss), predict_peak_rss=int(pred_rss),
        model_size=len(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)),
        n_train=len(X_train), n_test=n_test, repeats=repeats, method=method,
        fit_times=fit_arr, predict_times=pred_arr)


def _named_estimators(estimator: Any) -> tuple[list[tuple[str, Any]], bool]:
    """[(name, estimator)] and whether several were given."""
    if isinstance(estimator, Mapping):
        items: list[tuple[str, Any]] = [(str(k), v) for k, v in estimator.items()]
        several = True
    elif isinstance(estimator, (list, tuple)):
        items = []
        seen: dict[str, int] = {}
        for est in estimator:
            base = type(est).__name__
            seen[base] = seen.get(base, 0) + 1
            items.append((base if seen[base] == 1 else f"{base}#{seen[base]}", est))
        several = True
    else:
        items, several = [(type(estimator).__name__, estimator)], False
    if not items:
        raise InputError("estimator is an empty collection; give at least one estimator")
    for name, est in items:
        if not hasattr(est, "fit"):
            raise InputTypeError(f"estimator {name!r} ({type(est).__name__}) has no fit method")
    return items, several


def profile_pipeline(estimator: Any, X_train: Any, y_train: Any, X_test: Any, *,
                     repeats: int = 5, method: str = "predict", memory: bool = True,
                     n_jobs: int | None = None, backend: Any = None,
                     progress: bool = False) -> Profile | pd.DataFrame:
    """Fit and predict times, throughput, peak memory and size of an estimator.

    Parameters
    ----------
    estimator : estimator, dict of name -> estimator, or list of estimators
        A scikit-learn estimator (or pipeline); it is cloned for every run. With
        several estimators, each is profiled and a DataFrame is returned (list
        entries are named by their class, ``"#2"``, ``"#3"``... added to
        repeated names).
    X_train, y_train : array-like
        Training data.
    X_test : array-like
        Rows to predict.
    repeats : int, default 5
        Number of timed fit + predict runs (fresh clones, no tracing).
    method : {"predict", "predict_proba"}, default "predict"
        Prediction method timed.
    memory : bool, default True
        Measure peak memory in one extra, untimed run (tracemalloc slows the
        code it traces, which is why it is kept out of the timed runs). False
        skips it and reports 0 bytes.
    n_jobs, backend : optional
        Profile several estimators concurrently through
        :func:`dartboard._parallel.parallel_map`. Default: one after the other,
        which is what clean timings need; concurrent runs compete for cores and
        (with ``backend="threading"``) share the process whose RSS is sampled.
    progress : bool, default False
        Show a progress bar over the estimators.

    Returns
    -------
    Profile or pandas.DataFrame
        One :class:`Profile` for one estimator; for several, a DataFrame with
        one row per estimator (index ``name``) holding :meth:`Profile.summary`.

    Notes
    -----
    Times are medians over ``repeats`` with the interquartile range as spread
    (``fit_times`` and ``predict_times`` keep every run). Memory: see the module
    documentation (tracemalloc peak of Python allocations; RSS peak minus
    baseline sampled every millisecond by a thread using psutil).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = load_iris(return_X_y=True)
    >>> prof = profile_pipeline(LogisticRegression(max_iter=500), X, y, X, repeats=3)
    >>> prof.fit_time > 0 and prof.throughput > 0 and prof.model_size > 0
    True
    """
    items, several = _named_estimators(estimator)
    repeats = check_int(repeats, "repeats", minimum=1)
    check_option(method, "method", ("predict", "predict_proba"))
    if not isinstance(memory, bool):
        raise InputTypeError(f"memory must be True or False; got {memory!r}")
    for name, est in items:
        if not hasattr(est, method):
            raise InputTypeError(f"estimator {name!r} ({type(est).__name__}) has no {method} "
                                 "method")
    for arg, value in (("X_train", X_train), ("y_train", y_train), ("X_test", X_test)):
        if value is None or not hasattr(value, "__len__"):
            raise InputTypeError(f"{arg} must be array-like; got {type(value).__name__}")
        if len(value) == 0:
            raise InputError(f"{arg} is empty; at least one row is required")
    if len(X_train) != len(y_train):
        raise InputError(f"inconsistent numbers of samples: X_train has {len(X_train)}, "
                         f"y_train has {len(y_train)}")
    func = functools.partial(_profile_one, X_train=X_train, y_train=y_train, X_test=X_test,
                             repeats=repeats, method=method, memory=memory)
    profiles = parallel_map(func, items, n_jobs=n_jobs, backend=backend, progress=progress,
                            description="profiling")
    if not several:
        return profiles[0]
    return pd.DataFrame([p.summary() for p in profiles]).set_index("name")
