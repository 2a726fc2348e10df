"""Reductions of vectors that stay in this thread.

``np.dot`` of two vectors calls the BLAS library, which splits long vectors over its
worker threads. On a machine whose cores are busy (a cross-validation in the next
process, a notebook's kernels) each call then waits for a thread to be scheduled:
a 12,500-row dot product measured 5-12 ms with two BLAS threads under load against
4 microseconds here. The metrics reduce many such vectors per call, so they use
:func:`vdot`, which never waits: float vectors go to BLAS in pieces short enough
that OpenBLAS keeps them in the calling thread (it splits a dot product of more than
10,000 elements), anything else to a numpy loop.
"""

from __future__ import annotations

import numpy as np

__all__ = ["vdot"]

#: the longest float vectors handed to BLAS at once (single-threaded there)
_PIECE = 8192


def vdot(a: np.ndarray, b: np.ndarray) -> float:
    """``sum(a * b)`` of two 1-D arrays as a float, without BLAS threads.

    Examples
    --------
    >>> vdot(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    11.0
    """
    if a.dtype == np.float64 and b.dtype == np.float64 and a.ndim == b.ndim == 1:
        n = a.shape[0]
        if n <= _PIECE:
            return float(np.dot(a, b))
        total = 0.0
        for start in range(0, n, _PIECE):
            total += float(np.dot(a[start:start + _PIECE], b[start:start + _PIECE]))
        return total
    return float(np.einsum("i,i->", a, b))
