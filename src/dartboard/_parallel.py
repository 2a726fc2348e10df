"""Parallel execution and seeding shared by every layer that trains many models.

Each task gets its own ``numpy.random.SeedSequence``, spawned from the user's
``random_state`` before any work starts, so a result never depends on how tasks
are scheduled: sequential, joblib's loky processes or a Dask cluster give the same
numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

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
                 n_jobs: int | None = None, backend: Any = None, progress: bool = False,
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
    progress : bool
        Show a progress bar (rich) on standard error.
    description : str
        Label of the progress bar.
    """
    items = list(items)
    n_jobs, backend, client = resolve_backend(n_jobs, backend)
    bar = ProgressBar(len(items), description) if progress else None
    try:
        if backend == "sequential":
            out = []
            for item in items:
                out.append(func(item))
                if bar:
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
                if bar:
                    bar.advance()
            return out
    finally:
        if bar:
            bar.close()


class ProgressBar:
    """A minimal rich progress bar on stderr that can be advanced and closed."""

    def __init__(self, total: int, description: str) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        console = Console(stderr=True)
        # off a terminal (stderr piped or logged) rich cannot erase the bar and leaves a
        # blank line, e.g. before a command's one-line error; show nothing there
        self._progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                  MofNCompleteColumn(), TimeElapsedColumn(),
                                  console=console, transient=True) \
            if console.is_terminal else None
        if self._progress is not None:
            self._progress.start()
            self._task = self._progress.add_task(description, total=total)

    def advance(self, amount: int = 1) -> None:
        if self._progress is not None:
            self._progress.advance(self._task, amount)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
