"""Cosine similarity of paired vectors.

Note the difference from ``sklearn.metrics.pairwise.cosine_similarity``: that
function returns the matrix of similarities between EVERY row of ``X`` and EVERY
row of ``Y`` (and maps zero vectors to 0). Here rows are paired: row ``i`` of
``a`` with row ``i`` of ``b`` (the diagonal of scikit-learn's matrix, in O(n d)
instead of O(n^2 d)), and a zero vector is an error because its direction, and
so the cosine, is undefined.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._numeric import vdot
from dartboard._validation import as_float_array, check_option
from dartboard.exceptions import InputError

__all__ = ["cosine_similarity"]


def _check_nonzero(norms_sq: np.ndarray, name: str) -> None:
    zero = np.flatnonzero(norms_sq == 0)
    if zero.shape[0]:
        if norms_sq.ndim == 0:
            raise InputError(f"{name} is a zero vector; the cosine similarity is undefined")
        raise InputError(f"{name} has {zero.shape[0]} zero vector(s) (first at row "
                         f"{int(zero[0])}); the cosine similarity is undefined for them")


def _scaled(v: np.ndarray, name: str) -> np.ndarray:
    """Each vector divided by its largest |component|: the cosine is unchanged, and
    the squares neither overflow (1e200) nor underflow to a false zero (1e-200)."""
    top = np.max(np.abs(v), axis=-1, initial=0.0)
    _check_nonzero(top, name)
    return v / top[..., None] if v.ndim == 2 else v / top


def cosine_similarity(a: ArrayLike, b: ArrayLike, *, reduction: str = "none") -> Any:
    """Cosine similarity ``dot(a, b) / (|a| |b|)`` of two vectors, or of paired rows.

    Not a drop-in for ``sklearn.metrics.pairwise.cosine_similarity``, which
    returns the (n_a, n_b) matrix of every row of ``X`` against every row of ``Y``
    and gives 0 for a zero vector. Here row ``i`` of ``a`` is paired with row ``i``
    of ``b`` (scikit-learn's diagonal, in O(n d) instead of O(n^2 d)), and a zero
    vector raises ``ValueError`` because its cosine is undefined.

    Parameters
    ----------
    a, b : array-like of shape (d,) or (n, d)
        Two vectors, or two matrices compared row by row (same shape).
    reduction : {"none", "mean", "sum"}, default="none"
        For 2-D input: return the n similarities, their mean or their sum.
        Ignored for 1-D input (a single float).

    Returns
    -------
    float, or ndarray of shape (n,) for 2-D input with ``reduction="none"``.
    Values are clipped to [-1, 1] against rounding.

    Raises
    ------
    ValueError
        If a vector (or a row) is zero: its direction is undefined. The message
        names the argument and the first zero row.

    Examples
    --------
    >>> cosine_similarity([2, 0, 2], [0, 1, 0])
    0.0
    >>> cosine_similarity([[1, 0], [0, 1]], [[1, 0], [1, 0]], reduction="mean")
    0.5
    """
    check_option(reduction, "reduction", ("none", "mean", "sum"))
    x = as_float_array(a, name="a", ndim=(1, 2))
    y = as_float_array(b, name="b", ndim=(1, 2))
    if x.shape != y.shape:
        raise InputError(f"a and b must have the same shape (paired vectors); got "
                         f"{x.shape} and {y.shape}")
    x, y = _scaled(x, "a"), _scaled(y, "b")
    if x.ndim == 1:
        nx, ny = vdot(x, x), vdot(y, y)
        value = vdot(x, y) / (np.sqrt(nx) * np.sqrt(ny))
        return float(np.clip(value, -1.0, 1.0))
    nx = np.einsum("ij,ij->i", x, x)
    ny = np.einsum("ij,ij->i", y, y)
    values = np.einsum("ij,ij->i", x, y) / (np.sqrt(nx) * np.sqrt(ny))
    np.clip(values, -1.0, 1.0, out=values)
    if reduction == "mean":
        return float(values.mean())
    if reduction == "sum":
        return float(values.sum())
    return values
