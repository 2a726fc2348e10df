"""Log loss and Brier score: scikit-learn as oracle, a worked table, strict input checks."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from dartboard.metrics import brier_score_loss, log_loss

TOL = 1e-10


@pytest.mark.parametrize("name", ["log_loss", "brier_score_loss"])
def test_signature_extends_sklearn(name):
    ours = list(inspect.signature(globals()[name]).parameters.values())
    theirs = list(inspect.signature(getattr(skm, name)).parameters.values())
    assert [p.name for p in ours[:len(theirs)]] == [p.name for p in theirs]
    for a, b in zip(ours, theirs):
        assert a.kind == b.kind and a.default == b.default


def test_log_loss_base10_worked_table():
    # The seed's table: y = [1, 1, 0, 0], p = [0.9, 0.6, 0.1, 0.4] has base-10 terms
    # -log10(0.9) = 0.0458, -log10(0.6) = 0.2218, -log10(1 - 0.1), -log10(1 - 0.4).
    y, p = [1, 1, 0, 0], [0.9, 0.6, 0.1, 0.4]
    terms = [log_loss([yi], [pi], labels=[0, 1], base=10) for yi, pi in zip(y, p)]
    np.testing.assert_allclose(terms, [0.0458, 0.2218, 0.0458, 0.2218], atol=5e-5)
    assert log_loss(y, p, base=10, normalize=False) == pytest.approx(sum(terms), abs=1e-12)
    assert log_loss(y, p, base=10) == pytest.approx(np.mean(terms), abs=1e-12)
    assert log_loss(y, p, base=2) == pytest.approx(log_loss(y, p) / math.log(2), abs=1e-12)


def random_case(rng, k, one_d):
    n = int(rng.integers(3, 200))
    y = rng.integers(0, k, n)
    y[:2] = [0, k - 1]
    if one_d:
        p = rng.random(n)
        p[rng.random(n) < 0.1] = rng.integers(0, 2)  # exact 0 and 1: clipping
        return y, p
    return y, rng.dirichlet(np.ones(k), n)


@pytest.mark.parametrize("k,one_d", [(2, True), (2, False), (3, False), (5, False)])
@pytest.mark.parametrize("weighted", [False, True])
def test_equal_sklearn(k, one_d, weighted):
    rng = np.random.default_rng(k * 10 + one_d + 2 * weighted)
    for _ in range(20):
        y, p = random_case(rng, k, one_d)
        w = rng.random(len(y)) if weighted else None
        labels = np.arange(k) if len(np.unique(y)) < k else None
        for normalize in (True, False):
            ours = log_loss(y, p, sample_weight=w, labels=labels, normalize=normalize)
            theirs = skm.log_loss(y, p, sample_weight=w, labels=labels, normalize=normalize)
            assert abs(ours - theirs) < TOL * max(1.0, abs(theirs))
        for scale in ("auto", True, False):
            assert abs(brier_score_loss(y, p, sample_weight=w, labels=labels,
                                        scale_by_half=scale)
                       - skm.brier_score_loss(y, p, sample_weight=w, labels=labels,
                                              scale_by_half=scale)) < TOL


def test_string_labels_and_pos_label():
    y = np.array(["no", "yes", "yes", "no", "yes"])
    p = np.array([0.2, 0.7, 0.6, 0.4, 0.99])
    assert log_loss(y, p) == pytest.approx(skm.log_loss(y, p), abs=TOL)
    assert brier_score_loss(y, p, pos_label="yes") == pytest.approx(
        skm.brier_score_loss(y, p, pos_label="yes"), abs=TOL)
    # numeric labels outside {0, 1}: the larger label is positive (as sklearn)
    assert brier_score_loss([2, 3, 3], [0.1, 0.8, 0.9]) == pytest.approx(
        skm.brier_score_loss([2, 3, 3], [0.1, 0.8, 0.9]), abs=TOL)
    # a column vector is the same as a 1-D array
    assert log_loss(y, p[:, None]) == pytest.approx(log_loss(y, p), abs=1e-15)


def test_deprecated_y_pred():
    with pytest.warns(FutureWarning, match="renamed to `y_proba`"):
        assert log_loss([0, 1], y_pred=[0.2, 0.7]) == pytest.approx(
            log_loss([0, 1], [0.2, 0.7]))
    with pytest.raises(ValueError, match="Cannot use both"):
        log_loss([0, 1], [0.2, 0.7], y_pred=[0.2, 0.7])


def test_unsorted_labels_warn_as_sklearn():
    with pytest.warns(UserWarning, match="ordered lexicographically"):
        log_loss([0, 1], [[0.8, 0.2], [0.3, 0.7]], labels=[1, 0])


def test_bad_inputs():
    with pytest.raises(ValueError, match="greater than 1"):
        log_loss([0, 1], [0.2, 1.2])
    with pytest.raises(ValueError, match="less than 0"):
        brier_score_loss([0, 1], [-0.1, 0.7])
    with pytest.raises(ValueError, match="y_proba contains 1 NaN"):
        log_loss([0, 1], [np.nan, 0.7])
    with pytest.raises(ValueError, match="3 probability column"):
        log_loss([0, 1, 1], np.full((3, 3), 1 / 3))
    with pytest.raises(ValueError, match="2 probability column"):
        log_loss([0, 1, 2], [0.2, 0.5, 0.3])
    with pytest.raises(ValueError, match="rows must sum to 1.*row 1"):
        log_loss([0, 1, 2], [[0.2, 0.5, 0.3], [0.2, 0.5, 0.2], [0.1, 0.1, 0.8]])
    with pytest.raises(ValueError, match="rows must sum to 1"):
        brier_score_loss([0, 1, 2], [[0.2, 0.5, 0.3], [0.6, 0.5, 0.2], [0.1, 0.1, 0.8]])
    with pytest.raises(ValueError, match="only one label"):
        log_loss([1, 1], [0.2, 0.7])
    with pytest.raises(ValueError, match="not belonging to the passed labels"):
        log_loss([0, 3], [0.2, 0.7], labels=[0, 1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        log_loss([0, 1, 1], [0.2, 0.7])
    with pytest.raises(ValueError, match="sample_weight sums to zero"):
        log_loss([0, 1], [0.2, 0.7], sample_weight=[0, 0])
    with pytest.raises(ValueError, match="sample_weight sums to zero"):
        brier_score_loss([0, 1], [0.2, 0.7], sample_weight=[0.0, 0.0])
    with pytest.raises(ValueError, match="base must be"):
        log_loss([0, 1], [0.2, 0.7], base=1)
    with pytest.raises(ValueError, match="pos_label is not specified"):
        brier_score_loss(["a", "b"], [0.2, 0.7])
    with pytest.raises(ValueError, match="y_proba is 1-D"):
        brier_score_loss([0, 1, 2], [0.2, 0.7, 0.1])
    with pytest.raises(ValueError, match="scale_by_half"):
        brier_score_loss([0, 1], [0.2, 0.7], scale_by_half="yes")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.floats(0.0, 1.0), st.floats(0.0, 1.0),
                          st.floats(0.0, 1.0)), min_size=3, max_size=30))
def test_log_loss_equals_plain_definition(rows):
    y = np.array([r[0] for r in rows])
    raw = np.array([r[1:] for r in rows]) + 1e-3
    p = raw / raw.sum(axis=1, keepdims=True)
    eps = np.finfo(float).eps
    picked = np.clip(p[np.arange(len(y)), y], eps, 1 - eps)
    expected = -np.mean(np.log(picked))
    assert log_loss(y, p, labels=[0, 1, 2]) == pytest.approx(expected, rel=1e-12)
    onehot = np.eye(3)[y]
    assert brier_score_loss(y, p, labels=[0, 1, 2]) == pytest.approx(
        np.mean(np.sum((onehot - p) ** 2, axis=1)), rel=1e-12, abs=1e-15)


# ------------------------------------------------------------------ multilabel y_true

@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("weights", [None, "float", "negative"])
@pytest.mark.parametrize("normalize", [True, False])
def test_log_loss_of_indicator_y_true_equals_sklearn(seed, weights, normalize):
    # scikit-learn 1.9.1 takes a 2-D 0/1 y_true as one column per class: the loss of a
    # sample is -sum of log p over its labels (none: 0)
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(2, 30)), int(rng.integers(2, 6))
    y = rng.integers(0, 2, (n, k))
    p = rng.dirichlet(np.ones(k), n)
    p[0] = np.eye(k)[0]  # exact 0 and 1 entries are clipped as in scikit-learn
    w = {None: None, "float": rng.random(n) + 0.1,
         "negative": rng.normal(size=n) + 3.0}[weights]
    kw = dict(sample_weight=w, normalize=normalize)
    assert log_loss(y, p, **kw) == pytest.approx(skm.log_loss(y, p, **kw), rel=1e-12,
                                                 abs=1e-12)
    assert log_loss(y, p, base=2, **kw) == pytest.approx(
        skm.log_loss(y, p, **kw) / np.log(2), rel=1e-12, abs=1e-12)


def test_log_loss_of_indicator_y_true_errors_as_sklearn():
    y = np.array([[1, 0, 1], [0, 1, 0]])
    p = np.array([[0.5, 0.2, 0.3], [0.1, 0.8, 0.1]])
    cases = [((y, p), {"labels": [0, 1, 2]}),       # not fitted with multilabel input
             ((y, p[:, 0]), {}),                    # 1-D probabilities: 2 vs 3 classes
             ((y, p[:, :2] / p[:, :2].sum(1, keepdims=True)), {}),  # 2 columns, 3 labels
             (([[0, 2], [1, 0]], [[0.5, 0.5], [0.5, 0.5]]), {})]   # not 0/1
    for args, kw in cases:
        with pytest.raises(ValueError):
            skm.log_loss(*args, **kw)
        with pytest.raises(ValueError):
            log_loss(*args, **kw)
