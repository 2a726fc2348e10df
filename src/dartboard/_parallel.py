"""Parallel execution and seeding shared by every layer that trains many models.

Each task gets its own ``numpy.random.SeedSequence``, spawned from the user's
``random_state`` before any work starts, so a result never depends on how tasks
are scheduled: sequential, joblib's loky processes or a Dask cluster give the same
numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from dartboard._progress import Bar
from dartboard._validation import check_int
from dartboard.exceptions import InputError

__all__ = ["parallel_map", "resolve_backend"]

T = TypeVar("T")
R = TypeVar("R")

_BACKENDS = ("sequential", "loky", "threading", "multiprocessing", "dask")


def resolve_backend(n_jobs: Any, backend: Any) -> tuple[int, str, Any]:
    """Normalise ``n_jobs`` and ``backend`` to ``(n_jobs, backend name, client)``.

    ``backend`` is ``None`` (loky when ``n_jobs`` asks for more than one worker,
    otherwise sequential), one of ``"sequential"``, ``"loky"``, ``"threading"``,
    ``"multiprocessing"``, ``"dask"``, or a ``distributed.Client`` (meaning dask).
    """
    if n_jobs is None:
        n_jobs = 1
    n_jobs = check_int(n_jobs, "n_jobs")
    if n_jobs == 0:
        raise InputError("n_jobs must be a positive integer or -1 (all cores); got 0")
    client = None
    if backend is not None and type(backend).__name__ == "Client" \
            and type(backend).__module__.startswith("distributed"):
        client, backend = backend, "dask"
    if backend is None:
        backend = "sequential" if n_jobs == 1 else "loky"
    if backend not in _BACKENDS:
        raise InputError(f"backend must be one of {list(_BACKENDS)} or a distributed.Client; "
                         f"got {backend!r}")
    return n_jobs, backend, client


def parallel_map(func: Callable[[T], R], items: Sequence[T] | Iterable[T], *,
                 n_jobs: int | None = None, backend: Any = None, progress: bool | None = None,
                 description: str = "working") -> list[R]:
    """``[func(item) for item in items]``, possibly in parallel, results in order.

    Parameters
    ----------
    func : callable
        Must be picklable for process back-ends (a module-level function or a
        ``functools.partial`` of one).
    items : sequence
        One task each.
    n_jobs : int, optional
        Number of workers; ``None`` or 1 runs in this process, -1 uses all cores.
    backend : str or distributed.Client, optional
        See :func:`resolve_backend`. ``"dask"`` needs a running
        ``distributed.Client`` (the one passed, or the current default client).
    progress : bool, optional
        A progress bar over the tasks on standard error (:mod:`dartboard._progress`):
        None shows it on a terminal once the work has run for a second, True always,
        False never.
    description : str
        Label of the progress bar.
    """
    items = list(items)
    n_jobs, backend, client = resolve_backend(n_jobs, backend)
    bar = Bar(len(items), description, progress=progress)
    try:
        if backend == "sequential":
            out = []
            for item in items:
                out.append(func(item))
                bar.advance()
            return out
        import joblib

        if backend == "dask":
            try:
                import distributed  # noqa: F401
            except ImportError:
                raise ImportError("backend='dask' needs the optional Dask extra: "
                                  'pip install ".[dask]" in a clone of dartboard') from None
            if client is None:
                from distributed import get_client
                try:
                    client = get_client()
                except ValueError:
                    raise InputError("backend='dask' needs a running distributed.Client; "
                                     "create one or pass it as backend=client") from None
        with joblib.parallel_config(backend=backend, n_jobs=n_jobs):
            runner = joblib.Parallel(return_as="generator")
            out = []
            for result in runner(joblib.delayed(func)(item) for item in items):
                out.append(result)
                bar.advance()
            return out
    finally:
        bar.close()
