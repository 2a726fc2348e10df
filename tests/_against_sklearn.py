"""Comparing a dartboard metric with the scikit-learn function of the same name."""

from __future__ import annotations

import numpy as np
import sklearn.metrics as skm
from _quiet import quiet

import dartboard.metrics as dm

SEEDS = range(6)


def same(ours, theirs):
    if isinstance(theirs, tuple):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            same(a, b)
        return
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12, equal_nan=True)


def both(name, *args, **kw):
    same(quiet(getattr(dm, name), *args, **kw), quiet(getattr(skm, name), *args, **kw))


def data(seed, n_classes, n=400):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    pred = np.where(rng.random(n) < 0.6, y, rng.integers(0, n_classes, n))
    w = rng.random(n) * 3
    return rng, y, pred, w
