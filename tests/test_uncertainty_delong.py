"""DeLong's fast midrank covariance against the O(m n) structural components."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dartboard._delong import delong_auc_covariance


def _slow_delong(y, scores):
    """DeLong et al. (1988) directly: psi over all (positive, negative) pairs."""
    k = scores.shape[0]
    x, z = scores[:, y], scores[:, ~y]
    m, n = x.shape[1], z.shape[1]
    psi = (x[:, :, None] > z[:, None, :]) + 0.5 * (x[:, :, None] == z[:, None, :])
    aucs = psi.mean(axis=(1, 2))
    v10 = psi.mean(axis=2)  # (k, m)
    v01 = psi.mean(axis=1)  # (k, n)
    s10 = np.cov(v10) if m > 1 else np.zeros((k, k))
    s01 = np.cov(v01) if n > 1 else np.zeros((k, k))
    return aucs, np.atleast_2d(s10) / m + np.atleast_2d(s01) / n


def _brute_auc(y, s):
    pos, neg = s[y], s[~y]
    total = 0.0
    for a in pos:
        for b in neg:
            total += 1.0 if a > b else 0.5 if a == b else 0.0
    return total / (len(pos) * len(neg))


def test_matches_slow_with_ties():
    rng = np.random.default_rng(0)
    y = rng.random(300) < 0.3
    scores = np.round(rng.normal(size=(3, 300)) + y, 1)  # rounding makes many ties
    aucs, cov = delong_auc_covariance(y, scores)
    ref_aucs, ref_cov = _slow_delong(y, scores)
    np.testing.assert_allclose(aucs, ref_aucs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cov, ref_cov, rtol=1e-10, atol=1e-15)
    for j in range(3):
        assert aucs[j] == pytest.approx(_brute_auc(y, scores[j]), abs=1e-12)
    assert cov.shape == (3, 3) and np.allclose(cov, cov.T)


def test_known_auc_and_hanley_mcneil_scale():
    # Perfect separation: AUC 1 and zero variance.
    y = np.array([True, True, False, False, True])
    aucs, cov = delong_auc_covariance(y, np.array([[0.9, 0.4, 0.35, 0.1, 0.8]]))
    assert aucs[0] == 1.0 and cov[0, 0] == 0.0
    # All scores tied: AUC 1/2, every component is 1/2, variance 0.
    aucs, cov = delong_auc_covariance(y, np.zeros((1, 5)))
    assert aucs[0] == 0.5 and cov[0, 0] == 0.0


def test_single_sample_class_and_errors():
    y = np.array([True, False, False, False])
    s = np.array([[0.2, 0.1, 0.5, 0.3]])
    aucs, cov = delong_auc_covariance(y, s)
    ref_aucs, ref_cov = _slow_delong(y, s)
    assert aucs[0] == pytest.approx(ref_aucs[0]) and cov[0, 0] == pytest.approx(ref_cov[0, 0])
    with pytest.raises(ValueError, match="only one class"):
        delong_auc_covariance(np.ones(3, bool), np.zeros((1, 3)))
    with pytest.raises(ValueError, match="scores must have shape"):
        delong_auc_covariance(np.array([True, False]), np.zeros((1, 3)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 6), st.integers(0, 6)),
                min_size=2, max_size=40))
def test_property_fast_equals_slow(rows):
    y = np.array([r[0] for r in rows])
    if y.all() or not y.any():
        return
    scores = np.array([[r[1] for r in rows], [r[2] for r in rows]], dtype=float)
    aucs, cov = delong_auc_covariance(y, scores)
    ref_aucs, ref_cov = _slow_delong(y, scores)
    np.testing.assert_allclose(aucs, ref_aucs, atol=1e-12)
    np.testing.assert_allclose(cov, ref_cov, atol=1e-12)
