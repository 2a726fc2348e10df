"""Labels: encoding and counting against a plain oracle (np.unique, then np.add.at
one sample at a time)."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dartboard import _labels as lab

# ------------------------------------------------------------------ encoding and counting

def test_encode_labels():
    enc = lab.encode_labels(("a", [3, 7, 3]), ("b", [7, 9, 9]))
    assert enc.classes.tolist() == [3, 7, 9]
    assert [c.tolist() for c in enc.codes] == [[0, 1, 0], [1, 2, 2]]
    enc = lab.encode_labels(("a", ["y", "x"]), ("b", ["z", "x"]), ("c", ["x", "x"]))
    assert enc.classes.tolist() == ["x", "y", "z"]
    assert [c.tolist() for c in enc.codes] == [[1, 0], [2, 0], [0, 0]]
    enc = lab.encode_labels(("a", [0, 10**9]), ("b", [10**9, 5]))
    assert enc.classes.tolist() == [0, 5, 10**9] and enc.n_classes == 3
    assert [c.tolist() for c in enc.codes] == [[0, 2], [2, 1]]
    with pytest.raises(ValueError, match="inconsistent numbers of samples: a has 2, b has 1"):
        lab.encode_labels(("a", [0, 1]), ("b", [0]))
    with pytest.raises(ValueError, match="missing values"):
        lab.encode_labels(("a", np.array([0, None], dtype=object)), ("b", [0, 1]))


def test_encode_and_count_name_the_arrays_in_errors():
    with pytest.raises(ValueError, match="^y_true contains missing values"):
        lab.encode_labels(("y_true", np.array(["a", None], dtype=object)))
    with pytest.raises(TypeError, match="y_true and pred_b mixes string and number labels"):
        lab.encode_labels(("y_true", np.array(["a", "b"], dtype=object)),
                          ("pred_b", np.array([1, 2], dtype=object)))
    with pytest.raises(TypeError, match="pred_a mixes string and number labels"):
        lab.encode_labels(("y_true", ["a", "b"]), ("pred_a", np.array(["a", 1], dtype=object)))
    with pytest.raises(TypeError, match="y_true has string labels, y_pred has number labels"):
        lab.count_label_pairs(np.array(["a"]), np.array([1]))


@settings(max_examples=60, deadline=None)
@given(values=st.sampled_from([np.array([0, 1]), np.array([-3, 4, 9]),
                               np.array([0, 10**12]), np.array(["p", "q", "r"]),
                               np.array([False, True])]),
       picks=st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=20),
                      min_size=1, max_size=3))
def test_encode_labels_equals_sorted_unique_oracle(values, picks):
    arrays = [values[np.array(p) % len(values)] for p in picks]
    n = min(len(a) for a in arrays)
    arrays = [a[:n] for a in arrays]
    enc = lab.encode_labels(*[(f"y{i}", a) for i, a in enumerate(arrays)])
    classes = np.unique(np.concatenate(arrays))
    assert enc.classes.tolist() == classes.tolist()
    assert enc.classes.dtype.kind == values.dtype.kind
    for a, codes in zip(arrays, enc.codes):
        assert codes.tolist() == np.searchsorted(classes, a).tolist()


# Each universe of labels with the counting kernel it must take without weights
# (weights move {0, 1} labels to the direct kernel) and whether encoding hashes.
UNIVERSES = {
    "binary01": (np.array([0, 1]), "_count_binary01", False),
    "direct": (np.array([-3, 4, 9]), "_count_direct", False),
    "int8": (np.array([-7, 0, 20], dtype=np.int8), "_count_direct", False),
    "wide": (np.array([-5, 0, 10**12]), "_count_hashed", True),
    "strings": (np.array(["p", "q", "r"]), "_count_hashed", True),
    "floats": (np.array([-1.0, 0.0, 2.0]), "_count_direct", False),
    "bools": (np.array([False, True]), "_count_binary01", False),
    "uint64 small": (np.array([1, 5, 6], dtype=np.uint64), "_count_direct", False),
    "uint64 ids": (np.array([3, 2**63 + 5, 2**64 - 1], dtype=np.uint64), "_count_hashed",
                   True),
}


def oracle_counts(t, p, w):
    classes = np.unique(np.concatenate([t, p]))
    m = np.zeros((classes.shape[0],) * 2, dtype=np.float64)
    np.add.at(m, (np.searchsorted(classes, t), np.searchsorted(classes, p)),
              1.0 if w is None else w.astype(np.float64))
    return classes, m


@settings(max_examples=150, deadline=None)
@given(universe=st.sampled_from(list(UNIVERSES)),
       pairs=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1,
                      max_size=60),
       weights=st.sampled_from([None, "int", "float"]), data=st.data())
def test_count_and_encode_equal_plain_oracle(universe, pairs, weights, data):
    values, kernel, hashed = UNIVERSES[universe]
    # a (first, last) pair makes the universe's range decide the kernel
    ti, pi = (np.array(c) % values.shape[0]
              for c in zip((0, values.shape[0] - 1), *pairs))
    t, p = values[ti], values[pi]
    n = t.shape[0]
    w = None
    if weights is not None:
        draw = data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
        w = np.array(draw, dtype=np.int64) if weights == "int" else np.array(draw) / 3.0
        kernel = "_count_direct" if kernel == "_count_binary01" else kernel
    classes, expected = oracle_counts(t, p, w)

    with mock.patch.object(lab, kernel, wraps=getattr(lab, kernel)) as spy:
        got_classes, matrix = lab.count_label_pairs(t, p, w)
    assert spy.called
    assert got_classes.tolist() == classes.tolist()
    assert got_classes.dtype.kind == values.dtype.kind or values.dtype.kind == "u"
    np.testing.assert_allclose(matrix, expected, rtol=1e-13)  # float sums may reorder
    assert matrix.dtype.kind == ("f" if weights == "float" else "i")

    with mock.patch.object(lab, "_factorize", wraps=lab._factorize) as spy:
        enc = lab.encode_labels(("y_true", t), ("y_pred", p))
    assert spy.called == hashed
    assert enc.classes.tolist() == classes.tolist()
    for a, codes in zip((t, p), enc.codes):
        assert codes.tolist() == np.searchsorted(classes, a).tolist()


def test_wide_integer_counts_stay_exact_across_blocks():
    # many blocks of the direct kernel equal one pass of the oracle
    rng = np.random.default_rng(0)
    t, p = rng.integers(-50, 50, 10_000), rng.integers(-50, 50, 10_000)
    with mock.patch.object(lab, "_COUNT_BLOCK", 1000):
        classes, matrix = lab.count_label_pairs(t, p)
    expected_classes, expected = oracle_counts(t, p, None)
    assert classes.tolist() == expected_classes.tolist()
    np.testing.assert_array_equal(matrix, expected)
