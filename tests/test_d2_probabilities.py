"""D^2 of the log loss and the Brier score against scikit-learn (binary, multiclass,
multilabel), and their edge cases.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
from _against_sklearn import SEEDS, both, data
from _quiet import quiet

import dartboard.metrics as dm


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_d2_log_loss_and_brier_equal_sklearn(seed, n_classes):
    rng, y, _, w = data(seed, n_classes)
    proba = rng.dirichlet(np.ones(n_classes), y.shape[0])
    for name in ("d2_log_loss_score", "d2_brier_score"):
        for weight in (None, w):
            both(name, y, proba, sample_weight=weight)
            if n_classes == 2:
                both(name, y, proba[:, 1], sample_weight=weight)
        extra = rng.dirichlet(np.ones(n_classes + 1), y.shape[0])  # a class never seen
        both(name, y, extra, labels=np.arange(n_classes + 1))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_labels", [2, 4, 10])
def test_d2_log_loss_and_brier_of_multilabel_equal_sklearn(seed, n_labels):
    # a 2-D 0/1 y_true is one column per class, as log_loss and brier_score_loss take it
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, (120, n_labels))
    y[:, 0] = 0  # a label no sample holds
    proba = rng.dirichlet(np.ones(n_labels), 120)
    w = rng.random(120) * 3
    for name in ("d2_log_loss_score", "d2_brier_score"):
        for weight in (None, w, np.round(w)):
            both(name, y, proba, sample_weight=weight)
        both(name, y.astype(bool), proba)


def test_d2_of_a_row_against_a_column_raises_as_sklearn():
    # scikit-learn's test_format_invariance_with_1d_vectors: not one sample, an error
    y, p = np.array([0, 1, 1, 0]), np.array([0.2, 0.7, 0.6, 0.4])
    for name in ("d2_log_loss_score", "d2_brier_score"):
        for a, b in ((y, p.reshape(1, -1)), (y.reshape(-1, 1), p.reshape(1, -1)),
                     (y.reshape(1, -1), p)):
            with pytest.raises(ValueError):
                quiet(getattr(skm, name), a, b)
            with pytest.raises(ValueError):
                quiet(getattr(dm, name), a, b)


def test_d2_of_fewer_than_two_samples_is_nan():
    for name, other in (("d2_log_loss_score", [[0.3, 0.7]]), ("d2_brier_score", [0.3]),
                        ("d2_tweedie_score", [1.0]), ("d2_pinball_score", [1.0]),
                        ("d2_absolute_error_score", [1.0])):
        with pytest.warns(dm.UndefinedMetricWarning, match="less than two samples"):
            assert np.isnan(getattr(dm, name)([1], other))
