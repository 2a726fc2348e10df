"""Progress bars on long work: the one place that decides whether one is shown, and how.

A public entry point that can run for more than a few seconds takes ``progress`` and
opens ``asked(progress)`` around its work; the engines below wrap their long loops in
``track(items, description)`` (or open ``bar(total, description)`` and ``advance``).
The engines never carry the flag through their signatures: a context variable holds
the caller's choice for the length of the call, and an inner entry point whose
``progress`` is left at None inherits the outer choice (so ``progress=False`` on
``evaluate`` also quiets the gaps it computes).

When a bar is shown, on standard error:

- ``progress=False``: never.
- ``progress=True``: at once, even when standard error is not a terminal.
- ``progress=None`` (the default): only when standard error is a terminal (never in a
  log, a pipe, a notebook or a test's captured output), and only for work that lasts:
  the bar appears once the work has run for more than ``DELAY`` seconds (a bar that
  flashes for a fraction of a second is noise), or at once when the caller expects the
  work to pass ``EXPECTED`` seconds.

Bars opened while another is shown join its display as one more line (rich allows one
live display at a time), and leave it when done; the display is transient, so nothing
is left on the terminal afterwards. rich is imported only when a bar is shown.
"""

from __future__ import annotations

import contextvars
import functools
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from dartboard.exceptions import InputTypeError

__all__ = ["DELAY", "EXPECTED", "Bar", "asked", "bar", "check_progress", "current",
           "set_default", "takes_progress", "track"]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

DELAY = 1.0  # seconds of work before an automatic bar appears
EXPECTED = 2.0  # work expected to last this long shows its automatic bar at once

_ASKED: contextvars.ContextVar[bool | None] = contextvars.ContextVar(
    "dartboard_progress", default=None)


def check_progress(progress: Any, name: str = "progress") -> bool | None:
    """``progress`` checked: True, False or None (numpy booleans accepted)."""
    if progress is None or isinstance(progress, bool):
        return progress
    if type(progress).__module__ == "numpy" and type(progress).__name__ in ("bool", "bool_"):
        return bool(progress)  # a numpy boolean, without importing numpy
    raise InputTypeError(f"{name} must be True, False or None (automatic: shown on a "
                         f"terminal when the work lasts); got {type(progress).__name__} "
                         f"{progress!r}")


def current() -> bool | None:
    """The choice in force: True, False, or None (automatic)."""
    return _ASKED.get()


def set_default(progress: bool | None) -> None:
    """The choice of a whole run (the command line's ``--progress/--no-progress``):
    every entry point whose ``progress`` is left at None takes it."""
    _ASKED.set(check_progress(progress))


@contextmanager
def asked(progress: Any) -> Iterator[bool | None]:
    """The caller's choice for the work inside the block (None keeps the outer one)."""
    choice = check_progress(progress)
    if choice is None:
        yield _ASKED.get()
        return
    token = _ASKED.set(choice)
    try:
        yield choice
    finally:
        _ASKED.reset(token)


def takes_progress(function: F) -> F:
    """Run a public entry point inside ``asked(progress)``: its ``progress`` keyword
    then reaches every bar of the work it calls, without a body to re-indent."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with asked(kwargs.get("progress")):
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _stderr_is_terminal() -> bool:
    stream = sys.stderr
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):  # a closed or a minimal stream
        return False


class _Display:
    """The one rich live display shared by every bar shown at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._progress: Any = None
        self._users = 0

    def add(self, description: str, total: int | None, completed: int, forced: bool) -> Any:
        with self._lock:
            if self._progress is None:
                self._progress = _new_progress(forced)
                self._progress.start()
            self._users += 1
            return self._progress, self._progress.add_task(description, total=total,
                                                           completed=completed)

    def remove(self, task: Any) -> None:
        with self._lock:
            if self._progress is None:
                return
            self._progress.refresh()  # its last count, e.g. when forced into a log
            self._progress.remove_task(task)
            self._users -= 1
            if self._users == 0:
                self._progress.stop()
                self._progress = None


def _new_progress(forced: bool) -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    # forced off a terminal: rich still draws (and erases) the bar, as asked
    console = Console(file=sys.stderr, force_terminal=True if forced else None)
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                    MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                    console=console, transient=True)


_DISPLAY = _Display()


class Bar:
    """One piece of work: ``advance`` it as parts finish, ``close`` it at the end.

    Shown as ``asked`` decided (see the module's docstring); when not shown, ``advance``
    costs a counter update and a clock read.
    """

    def __init__(self, total: int | None, description: str, *,
                 expected_seconds: float | None = None, progress: Any = None) -> None:
        choice = check_progress(progress)
        choice = _ASKED.get() if choice is None else choice
        self.total = None if total is None else int(total)
        self.description = description
        self.completed = 0
        self._forced = choice is True
        self._task: Any = None
        self._progress: Any = None
        self._timer: threading.Timer | None = None
        self._closed = False
        self._lock = threading.Lock()
        self._wanted = choice is True or (choice is None and _stderr_is_terminal())
        if not self._wanted:
            return
        if self._forced or (expected_seconds is not None and expected_seconds >= EXPECTED):
            self._show()
        else:
            # a long first step shows the bar too, not only the next advance
            self._timer = threading.Timer(DELAY, self._show)
            self._timer.daemon = True
            self._timer.start()

    @property
    def shown(self) -> bool:
        """Whether the bar is on the display now."""
        return self._task is not None

    def _show(self) -> None:
        with self._lock:
            if self._closed or self._task is not None:
                return
            self._progress, self._task = _DISPLAY.add(self.description, self.total,
                                                      self.completed, self._forced)

    def advance(self, amount: int = 1) -> None:
        self.completed += amount
        if self._task is not None:
            self._progress.update(self._task, completed=self.completed)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            task, self._task = self._task, None
        if self._timer is not None:
            self._timer.cancel()
        if task is not None:
            _DISPLAY.remove(task)

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def bar(total: int | None, description: str, *, expected_seconds: float | None = None,
        progress: Any = None) -> Bar:
    """A :class:`Bar` over ``total`` parts (None: unknown); use it in a ``with`` block.

    ``expected_seconds``: the caller's cheap estimate of the work; at ``EXPECTED``
    seconds or more an automatic bar appears at once. ``progress`` overrides the choice
    of ``asked`` for this bar alone.
    """
    return Bar(total, description, expected_seconds=expected_seconds, progress=progress)


def track(items: Iterable[T], description: str, *, total: int | None = None,
          expected_seconds: float | None = None, progress: Any = None) -> Iterator[T]:
    """``items``, advancing a bar by one per item (``total``: ``len(items)`` if it has one)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with Bar(total, description, expected_seconds=expected_seconds,
             progress=progress) as work:
        for item in items:
            yield item
            work.advance()
