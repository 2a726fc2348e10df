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

from collections.abc import Callable

import numpy as np

__all__ = ["sum_of", "vdot", "vdot_of"]

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


def vdot_of(a: np.ndarray, b: np.ndarray,
            f: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> float:
    """``vdot(a.astype(float), f(b, out))`` bit for bit, a piece at a time: neither the
    float copy of ``a`` nor ``f`` of all of ``b`` is formed (two arrays of the length
    of a stream's distinct scores, fresh pages each call). ``f(piece, out)`` is an
    elementwise map of a piece of ``b`` written into ``out`` (and returned), so a
    piece's values are those of the whole array's.

    Examples
    --------
    >>> a, b = np.arange(20_000), np.linspace(0.0, 1.0, 20_000)
    >>> vdot_of(a, b, lambda piece, out: np.multiply(piece, 2.0, out=out)) == \\
    ...     vdot(a.astype(float), b * 2.0)
    True
    """
    n = a.shape[0]
    if n <= _PIECE:
        return vdot(np.asarray(a, dtype=np.float64), f(b, np.empty(n)))
    left, right = np.empty(_PIECE), np.empty(_PIECE)
    total = 0.0
    for start in range(0, n, _PIECE):
        stop = min(start + _PIECE, n)
        x = left[:stop - start]
        x[...] = a[start:stop]
        total += float(np.dot(x, f(b[start:stop], right[:stop - start])))
    return total


#: the longest piece :func:`sum_of` forms at once
_SUM_PIECE = 1 << 16

#: the terms numpy's pairwise sum adds in one block, without splitting them
_PAIRWISE_BLOCK = 128


def sum_of(n: int, terms: Callable[[int, int], np.ndarray]) -> float:
    """``np.add.reduce(terms(0, n))`` bit for bit, a piece at a time: the terms of a
    long vector are never formed at once. ``terms(lo, hi)`` gives the terms
    ``lo`` to ``hi`` (each the same whichever piece it is formed in).

    numpy sums a float vector pairwise: a vector of more than 128 terms is split
    after ``n // 2`` rounded down to a multiple of 8, and the halves' sums added. So
    the pieces follow the same splits down to ``_SUM_PIECE`` terms, whose sums numpy
    forms as it would inside the whole vector.

    Examples
    --------
    >>> x = np.linspace(0.0, 1.0, 200_001)
    >>> sum_of(x.shape[0], lambda lo, hi: x[lo:hi] ** 2) == float(np.add.reduce(x ** 2))
    True
    """
    # numpy sums up to 128 terms in one block, unsplit: no piece is shorter
    return _pairwise(terms, 0, n, max(_SUM_PIECE, _PAIRWISE_BLOCK))


def _pairwise(terms: Callable[[int, int], np.ndarray], lo: int, size: int,
              piece: int) -> float:
    """The pairwise sum of ``terms(lo, lo + size)`` (:func:`sum_of`). A function of the
    module, not a closure that calls itself: such a closure is a reference cycle, which
    would hold ``terms`` (and the arrays it reads) until the cycle collector runs."""
    if size <= piece:
        return float(np.add.reduce(terms(lo, lo + size)))
    half = size // 2
    half -= half % 8
    return _pairwise(terms, lo, half, piece) + _pairwise(terms, lo + half, size - half, piece)
