"""Calling a function with its warnings silenced, for tests of values (the warnings
have tests of their own)."""

from __future__ import annotations

import warnings


def quiet(fn, *args, **kwargs):
    """Call ``fn`` with warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)
