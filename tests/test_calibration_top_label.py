"""The blocked top-label kernel against the plain oracle: ``max`` and ``argmax`` per row."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_calibration import loop_error

from dartboard.metrics import (
    CalibrationState,
    _calibration,
    _probabilistic,
    _top_label,
    calibration_error,
)


def small_blocks(mp: pytest.MonkeyPatch) -> None:
    """Blocks of 64 rows, so that a few hundred rows cross several blocks."""
    mp.setattr(_top_label, "BLOCK_BYTES", 1)


def tied_matrix(counts: np.ndarray, dtype: type) -> np.ndarray:
    """Rows of small integers over their sum: equal integers give exactly equal
    probabilities, so ties at the maximum are common."""
    counts = counts.astype(np.float64)
    counts[counts.sum(1) == 0, 0] = 1.0
    return (counts / counts.sum(1, keepdims=True)).astype(dtype)


def oracle(proba: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return proba.max(1), np.argmax(proba, axis=1) == y


@st.composite
def tied_problems(draw):
    # past 24 (float32) and 53 (float64) columns the ties fall back to argmax
    k = draw(st.sampled_from([2, 3, 4, 5, 10, 12, 24, 25, 53, 54, 60]))
    n = draw(st.integers(1, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    top = draw(st.integers(1, 4))  # few distinct values: many ties
    rng = np.random.default_rng(seed)
    proba = tied_matrix(rng.integers(0, top + 1, (n, k)), dtype)
    y = rng.integers(0, k, n)
    return proba, y


@settings(max_examples=150, deadline=None)
@given(tied_problems())
def test_kernel_equals_max_and_argmax_with_ties(problem):
    proba, y = problem
    with pytest.MonkeyPatch.context() as mp:
        small_blocks(mp)
        conf, hit = _top_label.top_label(proba, y, _probabilistic.proba_tolerance(proba),
                                         "range")
    want_conf, want_hit = oracle(proba, y)
    assert conf.dtype == proba.dtype
    np.testing.assert_array_equal(conf, want_conf)
    np.testing.assert_array_equal(hit, want_hit)


@settings(max_examples=100, deadline=None)
@given(tied_problems(), st.sampled_from(["l1", "l2", "max"]), st.integers(1, 20))
def test_calibration_error_equals_the_argmax_loop(problem, norm, n_bins):
    proba, y = problem
    k = proba.shape[1]
    labels = np.arange(k)  # y may lack a class
    want_conf, want_hit = oracle(proba, y)
    want = loop_error(want_conf.astype(np.float64), want_hit, n_bins, norm)
    with pytest.MonkeyPatch.context() as mp:
        small_blocks(mp)
        got = calibration_error(y, proba, norm=norm, n_bins=n_bins, labels=labels)
        if np.unique(y).shape[0] == k:  # labels read as column indices, no encoding
            assert calibration_error(y, proba, norm=norm, n_bins=n_bins) == got
    assert got == pytest.approx(want, abs=1e-12)


def test_ties_take_the_first_column_as_argmax():
    proba = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.25, 0.375, 0.375],
                      [0.25, 0.375, 0.375], [0.6, 0.2, 0.2]], dtype=np.float32)
    y = np.array([1, 0, 2, 1, 0])
    conf, hit = _top_label.top_label(proba, y, 1e-6, "range")
    assert hit.tolist() == [False, True, False, True, True]
    np.testing.assert_array_equal(conf, proba.max(1))


def test_labels_of_any_integer_type_or_not_column_indices():
    rng = np.random.default_rng(3)
    proba = rng.dirichlet([1, 2, 3, 4], 500).astype(np.float32)
    y = rng.integers(0, 4, 500)
    conf, hit = oracle(proba, y)
    want = loop_error(conf.astype(np.float64), hit, 15, "l1")
    for labels in (y.astype(np.uint8), y.astype(np.uint64), y + 1, y * 10 - 7,
                   np.array(["a", "b", "c", "d"])[y]):
        assert calibration_error(labels, proba) == pytest.approx(want, abs=1e-12)
    with pytest.raises(ValueError, match="y_proba has 4 probability columns but y_true has 3"):
        calibration_error(np.minimum(y, 2), proba)


def test_negative_zero_is_a_valid_probability():
    proba = np.array([[-0.0, 1.0], [0.3, 0.7], [1.0, -0.0]], dtype=np.float32)
    y = np.array([1, 0, 0])
    assert calibration_error(y, proba, n_bins=2) == pytest.approx(
        loop_error([1.0, float(np.float32(0.7)), 1.0], [True, False, True], 2, "l1"), abs=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_errors_name_the_first_failed_check_of_the_whole_matrix(dtype):
    # blocks of 64 rows: a bad row sum in the first block, a value above 1 in a later
    # one; the range is checked first over the whole matrix, as before the blocks
    rng = np.random.default_rng(4)
    proba = rng.dirichlet([1, 1, 1, 1], 1000).astype(dtype)
    y = rng.integers(0, 4, 1000)
    with pytest.MonkeyPatch.context() as mp:
        small_blocks(mp)
        off = proba.copy()
        off[3, 0] += dtype(0.01)
        with pytest.raises(ValueError, match=r"1 row\(s\) do not \(e.g. row 3 sums to"):
            calibration_error(y, off)
        off[900] = [1.5, -0.5, 0.0, 0.0]
        with pytest.raises(ValueError, match="greater than 1"):
            calibration_error(y, off)
        off[950, 1] = np.nan
        with pytest.raises(ValueError, match="NaN or infinite"):
            calibration_error(y, off)
        with pytest.raises(ValueError, match="NaN or infinite"):
            calibration_error(np.full(1000, 7), off)  # bad labels too: the matrix first


def test_float32_state_batches_equal_one_pass():
    rng = np.random.default_rng(5)
    proba = rng.dirichlet(np.ones(10), 3000).astype(np.float32)
    y = rng.integers(0, 10, 3000)
    state = CalibrationState(15, multiclass="top_label")
    for part in np.array_split(np.arange(3000), 7):
        state.update(y[part], proba[part])
    conf, hit = oracle(proba, y)
    for norm in ("l1", "l2", "max"):
        assert state.compute(norm=norm) == pytest.approx(
            loop_error(conf.astype(np.float64), hit, 15, norm), abs=1e-12)


def test_the_blocked_kernel_is_what_runs(monkeypatch):
    calls = []
    real = _calibration.top_label_blocks

    def spy(*args, **kwargs):
        calls.append(args[0].dtype)
        return real(*args, **kwargs)

    monkeypatch.setattr(_calibration, "top_label_blocks", spy)
    proba = np.random.default_rng(6).dirichlet(np.ones(10), 200).astype(np.float32)
    calibration_error(np.arange(200) % 10, proba)
    assert calls == [np.float32]  # one pass, on the float32 input as it is
