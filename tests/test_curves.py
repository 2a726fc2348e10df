"""The detection error tradeoff curve and the area under any curve against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
from _against_sklearn import SEEDS, both, data

import dartboard.metrics as dm


@pytest.mark.parametrize("seed", SEEDS)
def test_det_curve_equals_sklearn(seed):
    rng, y, _, w = data(seed, 2, n=300)
    s = np.round(rng.random(300), 2)
    for weight in (None, w):
        for drop in (False, True):
            both("det_curve", y, s, sample_weight=weight, drop_intermediate=drop)
    both("det_curve", np.array(["a", "b"])[y], s, pos_label="a")


def test_det_curve_needs_two_classes():
    with pytest.raises(ValueError, match="Only one class"):
        dm.det_curve([1, 1, 1], [0.1, 0.2, 0.3])


@pytest.mark.parametrize("seed", SEEDS)
def test_auc_equals_sklearn(seed):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.random(30))
    y = rng.random(30)
    both("auc", x, y)
    both("auc", x[::-1], y[::-1])
    fpr, tpr, _ = skm.roc_curve(rng.integers(0, 2, 50), rng.random(50))
    both("auc", fpr, tpr)


def test_auc_errors_as_sklearn():
    with pytest.raises(ValueError, match="At least 2 points"):
        dm.auc([0.0], [0.1])
    with pytest.raises(ValueError, match="neither increasing nor decreasing"):
        dm.auc([0, 1, 0.5], [0, 1, 1])
