"""The cores an evaluation may spread its array work over: the gap tables' selection-aware
intervals and the groups' stacked bootstrap rows run on worker threads where the
process has more than one (``._gaps``, ``._finalize``)."""

from __future__ import annotations

import os

__all__ = ["available_cores"]


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
