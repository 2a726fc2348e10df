"""Paired cosine similarity: worked example, sklearn's pairwise diagonal, zero vectors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import cosine_similarity as sk_pairwise

from dartboard.metrics import cosine_similarity


def test_worked_example_orthogonal():
    # [2, 0, 2] and [0, 1, 0] are orthogonal: A.B = 0
    assert cosine_similarity([2, 0, 2], [0, 1, 0]) == 0.0
    assert cosine_similarity([1, 1], [2, 2]) == pytest.approx(1.0)
    assert cosine_similarity([1, 0], [-3, 0]) == -1.0


def test_rows_equal_sklearn_pairwise_diagonal():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(50, 7))
    b = rng.normal(size=(50, 7))
    expected = np.diag(sk_pairwise(a, b))
    np.testing.assert_allclose(cosine_similarity(a, b), expected, rtol=1e-12)
    assert cosine_similarity(a, b, reduction="mean") == pytest.approx(expected.mean())
    assert cosine_similarity(a, b, reduction="sum") == pytest.approx(expected.sum())
    assert isinstance(cosine_similarity(a[0], b[0], reduction="mean"), float)


def test_zero_vectors_are_errors():
    with pytest.raises(ValueError, match="a is a zero vector"):
        cosine_similarity([0, 0, 0], [1, 2, 3])
    with pytest.raises(ValueError, match="b is a zero vector"):
        cosine_similarity([1, 2, 3], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"b has 2 zero vector\(s\) \(first at row 1\)"):
        cosine_similarity(np.ones((4, 2)), [[1, 1], [0, 0], [2, 1], [0, 0]])


def test_other_bad_inputs():
    with pytest.raises(ValueError, match="same shape"):
        cosine_similarity([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="same shape"):
        cosine_similarity(np.ones((3, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="reduction must be one of"):
        cosine_similarity([1, 2], [1, 2], reduction="max")
    with pytest.raises(ValueError, match="a contains 1 NaN"):
        cosine_similarity([1, np.nan], [1, 2])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(-100, 100), st.floats(-100, 100)), min_size=1,
                max_size=20))
def test_cosine_is_bounded_and_scale_invariant(pairs):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    if not (np.dot(a, a) > 1e-100 and np.dot(b, b) > 1e-100):
        return
    value = cosine_similarity(a, b)
    assert -1.0 <= value <= 1.0
    assert cosine_similarity(3.0 * a, b) == pytest.approx(value, abs=1e-12)
    assert cosine_similarity(a, b) == pytest.approx(cosine_similarity(b, a), abs=1e-15)
