"""Memory layouts for the no-mutation tests: every public function must leave its
inputs as they were and give the plain array's answer in any of these layouts."""

from __future__ import annotations

import numpy as np


def read_only(a):
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


def strided(a):
    """A non-contiguous view with the same values."""
    a = np.asarray(a)
    wide = np.repeat(a[np.newaxis], 2, axis=0)
    return wide[0][::1] if a.ndim > 1 else np.repeat(a, 2)[::2]


LAYOUTS = {"read_only": read_only, "fortran": np.asfortranarray, "strided": strided,
           "fortran_read_only": lambda a: read_only(np.asfortranarray(a))}


def held(layout, *arrays):
    """The arrays in ``layout`` and independent copies of them (layout kept)."""
    out = [LAYOUTS[layout](a) for a in arrays]
    return out, [a.copy(order="K") for a in out]


def assert_untouched(arrays, copies):
    for a, c in zip(arrays, copies):
        assert a.dtype == c.dtype and a.shape == c.shape
        np.testing.assert_array_equal(a, c)
