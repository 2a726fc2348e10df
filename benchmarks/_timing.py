"""Timing shared by the benchmark scripts (run as ``python benchmarks/<script>.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_time(fn: Callable[[], Any], repeats: int = 1) -> tuple[float, Any]:
    """Best wall-clock seconds over ``repeats`` calls of ``fn``, and its last value."""
    best, value = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def best_wall_and_cpu(fn: Callable[[], Any], repeats: int = 1) -> tuple[float, float, Any]:
    """Best wall-clock and best CPU (process) seconds, and the last value.

    CPU time is reported too because on a shared machine it is far less noisy.
    """
    best, best_cpu, value = float("inf"), float("inf"), None
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        value = fn()
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    return best, best_cpu, value
