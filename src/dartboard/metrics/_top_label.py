"""Top-label confidence and correctness of an (n, K) probability matrix, fast.

For row ``i`` the confidence is ``max_j P[i, j]`` and the outcome is
``argmax_j P[i, j] == y_i`` with numpy's rule for ties (the first column that
reaches the maximum wins), together with the checks of a probability matrix:
finite, in [0, 1], rows summing to 1 within ``tolerance``.

Why not ``P.max(axis=1)`` and ``P.argmax(axis=1)``: numpy reduces a short inner
axis (K = 10) row by row at several nanoseconds per element, which made ECE on
10M rows slower than its peers. Here the rows go in blocks (``BLOCK_BYTES``);
each block is transposed once into a buffer where every class is a contiguous
run (a float32 matrix with an even K moves as pairs of columns, one 8-byte word
each, which halves the cost of the transpose), and then each of the following
is one vectorised pass over contiguous memory, in the input's dtype (a float32
matrix is never widened to float64 nor copied whole):

- the row maximum as the maximum of the bit patterns: non-negative floats order
  as their patterns, and every value outside [0, 1] (negative, NaN, infinite,
  above 1) has a pattern above that of 1.0, so the same pass is the range check
  (a block that fails it is checked again as floats: -0.0 is a valid 0);
- the row sums (in a fixed order, so ``tolerance`` must allow for their
  rounding: ``_probabilistic.proba_tolerance``);
- correctness as ``P[i, y_i] == max_i`` (one gather);
- ties: ``argmax`` could pick an earlier column only where two entries equal the
  maximum, so where ``2 max_i <= sum_i``, i.e. ``max_i <= 0.5 + tolerance``. Those
  correct-looking rows alone are checked for an earlier column at the maximum
  (numpy's first-index rule of ``argmax``, exactly).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from dartboard.exceptions import InputError
from dartboard.metrics._probabilistic import check_range

__all__ = ["NotColumnIndices", "matrix_error", "top_label", "top_label_blocks"]

#: bytes of one block of the matrix: the block stays in the shared cache, its per-row
#: arrays (about 400 kB of float64) in a core's own, and numpy's per-call cost is
#: spread over enough rows (measured: 2**18 to 2**22 within 15%, this the fastest)
BLOCK_BYTES = 2**21


class NotColumnIndices(Exception):
    """The labels given as column indices are not (all of) 0 .. K-1."""


def top_label(p: np.ndarray, codes: np.ndarray, tolerance: float, verify: str | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
    """(confidence in ``p``'s dtype, correct) of every row of a C-contiguous float
    matrix ``p``; ``codes`` is each row's true column (see :func:`top_label_blocks`)."""
    n = p.shape[0]
    conf = np.empty(n, dtype=p.dtype)
    hit = np.empty(n, dtype=bool)
    for start, block_conf, block_hit in top_label_blocks(p, codes, tolerance, verify):
        stop = start + block_conf.shape[0]
        conf[start:stop] = block_conf
        hit[start:stop] = block_hit
    return conf, hit


def top_label_blocks(p: np.ndarray, codes: np.ndarray, tolerance: float,
                     verify: str | None = None
                     ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """(first row, confidences, correct) per block; a block's arrays are overwritten
    by the next block's (copy them to keep them).

    ``codes`` is each row's true column. ``verify``: None when they are known to
    lie in 0 .. K-1; ``"range"`` to check that block by block (integer labels
    taken as column indices without a pass of their own), ``"all"`` to check also
    that every column occurs; :class:`NotColumnIndices` if not.
    """
    n, k = p.shape
    seen = np.zeros(k, dtype=bool)
    group = 2 if p.itemsize == 4 and k % 2 == 0 else 1
    words = p.view(np.uint64) if group == 2 else p
    bits = np.dtype(f"u{p.itemsize}")
    one = np.array(1.0, dtype=p.dtype).view(bits)
    # a tie at the maximum needs two entries equal to it: impossible above half the
    # row sum, which is at most 1 + tolerance (and its rounding, within tolerance)
    tie_possible = 0.5 + tolerance
    rows = _block_rows(n, k, p.itemsize)
    cols = np.empty(k * rows, dtype=p.dtype)
    offsets = np.arange(rows) * k
    # every per-row array of a block lives in a buffer of its own, reused block after
    # block: a fresh array of a few hundred kB per block costs page faults, and they
    # cost more than the arithmetic on it
    lane_top = np.empty(group * rows, dtype=bits)
    lane_sum = np.empty(group * rows, dtype=p.dtype)
    top_buf = lane_top if group == 1 else np.empty(rows, dtype=bits)
    total_buf = lane_sum if group == 1 else np.empty(rows, dtype=p.dtype)
    index = np.empty(rows, dtype=np.intp)
    picked = np.empty(rows, dtype=p.dtype)
    hit_buf = np.empty(rows, dtype=bool)
    low_buf = np.empty(rows, dtype=bool)
    for start in range(0, n, rows):
        block = p[start:start + rows]
        c = block.shape[0]
        # (k / group, group * c): row j holds columns group*j .. group*j + group-1,
        # interleaved, of every row of the block
        packed = cols[:k * c].view(words.dtype).reshape(k // group, c)
        np.copyto(packed, words[start:start + c].T)
        runs = cols[:k * c].reshape(k // group, group * c)
        # non-negative floats order as their bit patterns, and every value outside
        # [0, 1] (negative, NaN, inf, > 1) has a pattern above that of 1.0: one
        # reduction gives the row maxima and the range check
        top = _fold(np.maximum.reduce(runs.view(bits), axis=0, out=lane_top[:group * c]),
                    np.maximum, group, top_buf[:c])
        total = _fold(np.add.reduce(runs, axis=0, out=lane_sum[:group * c]), np.add, group,
                      total_buf[:c])
        if top.max() > one or float(total.max()) - 1.0 > tolerance \
                or 1.0 - float(total.min()) > tolerance:
            top = _checked_block(p, runs, group, tolerance).view(bits)
        conf = top.view(p.dtype)
        y = codes[start:start + c].astype(np.intp, copy=False)  # uint64 + intp is float
        if verify is not None:
            if y.min() < 0 or y.max() >= k:
                raise NotColumnIndices
            if not seen.all():  # usually settled by the first block
                seen |= np.bincount(y, minlength=k) > 0
        np.add(offsets[:c], y, out=index[:c])
        np.take(block.reshape(-1), index[:c], out=picked[:c])
        hit = np.equal(picked[:c], conf, out=hit_buf[:c])
        low = np.less_equal(conf, tie_possible, out=low_buf[:c])
        tie = np.flatnonzero(np.logical_and(hit, low, out=low))
        if tie.shape[0]:
            hit[tie] = _first_at_max(block, tie, conf[tie], y[tie])
        yield start, conf, hit
    if verify == "all" and not seen.all():
        raise NotColumnIndices


def _first_at_max(block: np.ndarray, rows: np.ndarray, top: np.ndarray, y: np.ndarray
                  ) -> np.ndarray:
    """Whether column ``y`` is the first of each of the ``rows`` of ``block`` to reach
    the row's maximum ``top``: ``argmax(block[rows], axis=1) == y``, without numpy's
    slow row-by-row reduction of a short axis. The columns at the maximum become the
    bits of one number (a sum of distinct powers of two, exact in the block's float
    type up to its mantissa's width), none of them below bit ``y``."""
    k = block.shape[1]
    sub = np.take(block, rows, axis=0)  # a contiguous copy, much faster than block[rows]
    if k > np.finfo(block.dtype).nmant + 1:
        return np.argmax(sub, axis=1) == y
    np.equal(sub, top[:, None], out=sub)  # 1.0 where a column is at the maximum
    mask = (sub @ (2 ** np.arange(k, dtype=block.dtype))).astype(np.int64)
    return mask & ((np.int64(1) << y) - 1) == 0


def _checked_block(p: np.ndarray, runs: np.ndarray, group: int, tolerance: float
                   ) -> np.ndarray:
    """Row maxima of a block that failed the quick checks, or the matrix's error.

    The quick range check also refuses -0.0, a valid probability (whose bits are
    those of a negative number)."""
    if not (runs.min() >= 0 and runs.max() <= 1):
        raise matrix_error(p, tolerance) or InputError("y_proba is not a probability matrix")
    total = _fold(np.add.reduce(runs, axis=0), np.add, group)
    if float(total.max()) - 1.0 > tolerance or 1.0 - float(total.min()) > tolerance:
        raise matrix_error(p, tolerance) or InputError("y_proba is not a probability matrix")
    return _fold(np.maximum.reduce(runs, axis=0), np.maximum, group)


def _block_rows(n: int, k: int, itemsize: int) -> int:
    """Rows per block: ``BLOCK_BYTES`` of the matrix, at least 64 rows (many classes)
    and at most all of them (the buffers never outgrow the input)."""
    return max(1, min(n, max(64, BLOCK_BYTES // (k * itemsize))))


def _fold(lanes: np.ndarray, ufunc: np.ufunc, group: int, out: np.ndarray | None = None
          ) -> np.ndarray:
    """Per-row value from the per-lane values of an interleaved block."""
    return lanes if group == 1 else ufunc(lanes[0::2], lanes[1::2], out=out)


def _row_sums(p: np.ndarray) -> np.ndarray:
    """Row sums as the blocks compute them (same order, same dtype)."""
    n, k = p.shape
    group = 2 if p.itemsize == 4 and k % 2 == 0 else 1
    out = np.empty(n, dtype=p.dtype)
    rows = _block_rows(n, k, p.itemsize)
    for start in range(0, n, rows):
        block = np.ascontiguousarray(p[start:start + rows].reshape(-1, k // group, group)
                                     .transpose(1, 0, 2)).reshape(k // group, -1)
        total = _fold(np.add.reduce(block, axis=0), np.add, group)
        out[start:start + total.shape[0]] = total
    return out


def matrix_error(p: np.ndarray, tolerance: float) -> ValueError | None:
    """The error of an invalid probability matrix (None if it is valid): the first
    failed check of the whole matrix, non-finite values, values outside [0, 1],
    then row sums."""
    lo, hi = p.min(), p.max()
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return InputError("y_proba contains NaN or infinite values; all values must be "
                          "finite")
    try:
        check_range(p, "y_proba")
    except ValueError as exc:
        return exc
    total = _row_sums(p)
    bad = np.flatnonzero(np.abs(total.astype(np.float64) - 1.0) > tolerance)
    if not bad.shape[0]:
        return None
    return InputError(f"y_proba rows must sum to 1; {bad.shape[0]} row(s) do not (e.g. "
                      f"row {int(bad[0])} sums to {float(total[bad[0]])!r})")
