"""Reductions of vectors that stay in this thread.

``np.dot`` of two vectors calls the BLAS library, which splits long vectors over its
worker threads. On a machine whose cores are busy (a cross-validation in the next
process, a notebook's kernels) each call then waits for a thread to be scheduled:
a 12,500-row dot product measured 5-12 ms with two BLAS threads under load against
4 microseconds here. The metrics reduce many such vectors per call, so they use
:func:`vdot`, a numpy loop that never waits.
"""

from __future__ import annotations

import numpy as np

__all__ = ["vdot"]


def vdot(a: np.ndarray, b: np.ndarray) -> float:
    """``sum(a * b)`` of two 1-D arrays as a float, without BLAS threads.

    Examples
    --------
    >>> vdot(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    11.0
    """
    return float(np.einsum("i,i->", a, b))
