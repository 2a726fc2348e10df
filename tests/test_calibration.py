"""Calibration metrics against plain loops, torchmetrics' numbers and scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve as sk_calibration_curve

from dartboard.metrics import (
    CalibrationState,
    brier_decomposition,
    brier_score_loss,
    calibration_curve,
    calibration_error,
)
from dartboard.metrics._calibration import Scratch

# ---------------------------------------------------------------------- plain oracles


def loop_bins(conf, hit, n_bins, edges=None):
    """torchmetrics' _binning_bucketize re-derived: bucketize(right=True) - 1 over
    linspace(0, 1, n_bins + 1), so [e_b, e_b+1) and p == 1 in an extra bin n_bins."""
    bins = {}
    for c, h in zip(conf, hit):
        if edges is None:
            b = int(math.floor(c * n_bins))
        else:
            b = sum(1 for e in edges[1:-1] if c >= e)
        bins.setdefault(b, []).append((c, float(h)))
    return bins


def loop_error(conf, hit, n_bins, norm, debiased=False, edges=None):
    """torchmetrics' _ce_compute as a loop; debiased: Kumar et al.'s unbiased_l2_ce."""
    n = len(conf)
    total, worst = 0.0, 0.0
    for rows in loop_bins(conf, hit, n_bins, edges).values():
        m = len(rows)
        acc = sum(h for _, h in rows) / m
        mean_conf = sum(c for c, _ in rows) / m
        gap = acc - mean_conf
        worst = max(worst, abs(gap))
        if norm == "l1":
            total += m / n * abs(gap)
        elif debiased:
            total += 0.0 if m < 2 else m / n * (gap * gap - acc * (1 - acc) / (m - 1))
        else:
            total += m / n * gap * gap
    if norm == "max":
        return worst
    return total if norm == "l1" else math.sqrt(max(total, 0.0))


def binary_data(seed, n=300):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    p[:3] = 1.0
    p[3:5] = 0.0
    y = (rng.random(n) < p**1.5).astype(int)
    return y, p


def multiclass_data(seed, n=300, k=4):
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.linspace(0.5, 2.0, k), size=n)
    return rng.integers(0, k, n), proba


# ---------------------------------------------------------------------- torchmetrics

@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
@pytest.mark.parametrize("n_bins", [1, 7, 15])
def test_binary_equals_the_torchmetrics_loop(seed, norm, n_bins):
    y, p = binary_data(seed)
    want = loop_error(p, y == 1, n_bins, norm)
    assert calibration_error(y, p, n_bins=n_bins, norm=norm) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("n_bins", [254, 255, 256, 300, 65_535, 70_000])
def test_many_bins_equal_the_loop(n_bins):
    # the outcome's offset n_bins + 1 is added as an 8-, 16- or 32-bit product
    y, p = binary_data(5, n=2000)
    for norm in ("l1", "l2", "max"):
        want = loop_error(p, y == 1, n_bins, norm)
        got = calibration_error(y, p, n_bins=n_bins, norm=norm)
        assert got == pytest.approx(want, abs=1e-12)
    state = CalibrationState(n_bins).add(p, y == 1)
    for b, rows in loop_bins(p, y == 1, n_bins).items():
        assert state.weight[0, :, b].sum() == len(rows)
        assert state.weight[0, 1, b] == sum(h for _, h in rows)


def test_reused_scratch_buffers_give_the_fresh_state():
    # one Scratch across batches of different lengths, float32 and float64 confidences
    rng = np.random.default_rng(8)
    scratch = Scratch(100)
    shared, fresh = CalibrationState(15), CalibrationState(15)
    for n, dtype in ((100, np.float64), (37, np.float32), (250, np.float32), (1, np.float64)):
        conf, hit = rng.random(n).astype(dtype), rng.random(n) < 0.5
        shared.add(conf, hit, scratch=scratch)
        fresh.add(conf, hit)
    assert shared == fresh
    np.testing.assert_array_equal(shared.sum_p2, fresh.sum_p2)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
def test_top_label_equals_the_torchmetrics_loop(seed, norm):
    y, proba = multiclass_data(seed)
    pred = proba.argmax(1)
    want = loop_error(proba.max(1), pred == y, 15, norm)
    assert calibration_error(y, proba, norm=norm) == pytest.approx(want, abs=1e-12)


# torchmetrics 1.9.0 on CPU (torch 2.13.0), recorded from:
#   rng = np.random.default_rng(17); n = 400
#   p = rng.random(n).astype(np.float32).astype(np.float64); p[:7] = 1.0; p[7:10] = 0.0
#   y = (rng.random(n) < p ** 1.5).astype(np.int64)
#   binary_calibration_error(torch.from_numpy(p), torch.from_numpy(y), n_bins=nb, norm=norm)
#   P = rng.dirichlet([0.5, 1.0, 2.0, 1.0], size=n); Y = rng.integers(0, 4, n)
#   multiclass_calibration_error(torch.from_numpy(P), torch.from_numpy(Y), num_classes=4,
#                                n_bins=nb, norm=norm)
# The multiclass confidences are float32 in torchmetrics, hence the 1e-6 tolerance there.
TORCHMETRICS = {
    ("binary", 15, "l1"): 0.13369226530619926, ("binary", 15, "l2"): 0.16480852413171085,
    ("binary", 15, "max"): 0.3621412998643415, ("binary", 7, "l1"): 0.12548423842021295,
    ("binary", 7, "l2"): 0.14859225077393332, ("binary", 7, "max"): 0.26325194703208077,
    ("multiclass", 15, "l1"): 0.26656797528266907, ("multiclass", 15, "l2"): 0.30219003558158875,
    ("multiclass", 15, "max"): 0.944573163986206, ("multiclass", 5, "l1"): 0.25572627782821655,
    ("multiclass", 5, "l2"): 0.2853896915912628, ("multiclass", 5, "max"): 0.6113190054893494,
}


@pytest.mark.parametrize("key", sorted(TORCHMETRICS))
def test_recorded_torchmetrics_values(key):
    rng = np.random.default_rng(17)
    n = 400
    p = rng.random(n).astype(np.float32).astype(np.float64)
    p[:7], p[7:10] = 1.0, 0.0
    y = (rng.random(n) < p**1.5).astype(np.int64)
    proba = rng.dirichlet([0.5, 1.0, 2.0, 1.0], size=n)
    labels = rng.integers(0, 4, n)
    kind, n_bins, norm = key
    if kind == "binary":
        got, tol = calibration_error(y, p, n_bins=n_bins, norm=norm), 1e-12
    else:
        got, tol = calibration_error(labels, proba, n_bins=n_bins, norm=norm), 1e-6
    assert got == pytest.approx(TORCHMETRICS[key], abs=tol)


def test_a_probability_of_one_is_a_bin_of_its_own():
    # torchmetrics' convention: p == 1 is not pooled with [14/15, 1)
    y, p = [1, 0], [1.0, 0.95]
    assert calibration_error(y, p) == pytest.approx(0.5 * 0.0 + 0.5 * 0.95)
    assert calibration_error(y, p, norm="max") == pytest.approx(0.95)


def test_a_probability_just_below_one_stays_in_the_last_bin():
    # n p + offset must not round into the next bin (p = 1 - 2**-53)
    p = [1.0, 0.9999999999999999]
    assert calibration_error([0, 1], p, n_bins=1, norm="l2", pos_label=1) == \
        pytest.approx(math.sqrt(0.5 * 1.0 + 0.5 * (1 - p[1]) ** 2))


def test_an_edge_value_opens_its_bin():
    # left-closed bins: 0.6 with 5 bins lies in [0.6, 0.8), alone with 0.7
    assert calibration_error([1, 0, 1], [0.6, 0.7, 0.2], n_bins=5) == \
        pytest.approx((2 * abs(0.5 - 0.65) + abs(1 - 0.2)) / 3)


# ---------------------------------------------------------------------- variants

@pytest.mark.parametrize("seed", [3, 4])
def test_debiased_l2_equals_kumar_loop(seed):
    y, p = binary_data(seed, n=200)
    got = calibration_error(y, p, norm="l2", debiased=True, n_bins=10)
    assert got == pytest.approx(loop_error(p, y == 1, 10, "l2", debiased=True), abs=1e-12)
    # the correction only removes variance: never above the plain estimate
    assert got <= calibration_error(y, p, norm="l2", n_bins=10)


@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
def test_classwise_and_marginal_loops(norm):
    y, proba = multiclass_data(5, k=3)
    per_class = [loop_error(proba[:, k], y == k, 15, norm) for k in range(3)]
    assert calibration_error(y, proba, multiclass="classwise", norm=norm) == \
        pytest.approx(np.mean(per_class), abs=1e-12)
    if norm == "l1":
        marginal = np.mean(per_class)
    elif norm == "max":
        marginal = max(per_class)
    else:
        marginal = math.sqrt(np.mean([v * v for v in per_class]))
    assert calibration_error(y, proba, multiclass="marginal", norm=norm) == \
        pytest.approx(marginal, abs=1e-12)


def test_quantile_bins_equal_a_loop_over_numpy_quantiles():
    y, p = binary_data(6, n=250)
    edges = np.quantile(p, np.linspace(0, 1, 9))
    for norm in ("l1", "l2", "max"):
        assert calibration_error(y, p, n_bins=8, strategy="quantile", norm=norm) == \
            pytest.approx(loop_error(p, y == 1, 8, norm, edges=edges), abs=1e-12)


def test_integer_weights_equal_repeated_rows():
    y, p = binary_data(7, n=120)
    w = np.random.default_rng(7).integers(0, 4, 120)
    for norm in ("l1", "l2", "max"):
        assert calibration_error(y, p, sample_weight=w, norm=norm) == pytest.approx(
            calibration_error(np.repeat(y, w), np.repeat(p, w), norm=norm), abs=1e-12)


def test_pos_label_follows_the_brier_rule():
    y, p = binary_data(8, n=100)
    words = np.where(y == 1, "yes", "no")
    assert calibration_error(words, p, pos_label="yes") == calibration_error(y, p)
    # the other class as positive: its probability is 1 - p
    assert calibration_error(y, 1 - p, pos_label=0) == pytest.approx(
        calibration_error(1 - y, 1 - p), abs=1e-15)
    with pytest.raises(ValueError, match="pos_label"):
        calibration_error(words, p)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=1, max_size=60),
       st.integers(1, 20))
def test_property_equals_the_loop(rows, n_bins):
    p = np.array([r[0] for r in rows])
    y = np.array([int(r[1]) for r in rows])
    for norm in ("l1", "l2", "max"):
        assert calibration_error(y, p, n_bins=n_bins, norm=norm, pos_label=1) == \
            pytest.approx(loop_error(p, y == 1, n_bins, norm), abs=1e-12)


# ---------------------------------------------------------------------- calibration_curve

@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [1, 5, 10])
def test_calibration_curve_equals_sklearn(strategy, n_bins):
    y, p = binary_data(9, n=200)
    p[10:20] = 0.4  # values on an edge: right-closed, as scikit-learn
    got = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    want = sk_calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    np.testing.assert_allclose(got[0], want[0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(got[1], want[1], rtol=0, atol=1e-15)


def test_calibration_curve_pos_label_and_errors_as_sklearn():
    y = np.array(["a", "b", "b", "a"])
    p = np.array([0.1, 0.7, 0.8, 0.3])
    for got, want in zip(calibration_curve(y, p, pos_label="b", n_bins=2),
                         sk_calibration_curve(y, p, pos_label="b", n_bins=2)):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="pos_label"):
        calibration_curve(y, p)
    with pytest.raises(ValueError, match="Only binary"):
        calibration_curve([0, 1, 2], [0.1, 0.2, 0.3])


# ---------------------------------------------------------------------- Brier decomposition

def test_murphy_worked_example():
    # Murphy (1973) stratifies by the issued probability. Forecasts (issued, times,
    # events): (0.1, 10, 1), (0.5, 4, 3), (0.9, 6, 6); n = 20, base rate 10/20 = 0.5.
    # REL = (10 * (0.1 - 0.1)^2 + 4 * (0.5 - 0.75)^2 + 6 * (0.9 - 1.0)^2) / 20
    #     = (0 + 0.25 + 0.06) / 20 = 0.0155
    # RES = (10 * (0.1 - 0.5)^2 + 4 * (0.75 - 0.5)^2 + 6 * (1.0 - 0.5)^2) / 20
    #     = (1.6 + 0.25 + 1.5) / 20 = 0.1675
    # UNC = 0.5 * 0.5 = 0.25;  BS = 0.0155 - 0.1675 + 0.25 = 0.098
    # (direct: (9 * 0.01 + 0.81 + 3 * 0.25 + 0.25 + 6 * 0.01) / 20 = 1.96 / 20 = 0.098)
    p = [0.1] * 10 + [0.5] * 4 + [0.9] * 6
    y = [1] + [0] * 9 + [1, 1, 1, 0] + [1] * 6
    d = brier_decomposition(y, p, n_bins=10)
    assert (d.brier, d.reliability, d.resolution, d.uncertainty) == pytest.approx(
        (0.098, 0.0155, 0.1675, 0.25), abs=1e-12)
    assert d.within_bin_variance == pytest.approx(0.0, abs=1e-15)
    assert d.within_bin_covariance == pytest.approx(0.0, abs=1e-15)


def _sums(d):
    return (d.reliability - d.resolution + d.uncertainty + d.within_bin_variance
            - d.within_bin_covariance)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 30), st.sampled_from(["uniform", "quantile"]))
def test_decomposition_sums_to_brier(seed, n_bins, strategy):
    y, p = binary_data(seed, n=80)
    w = np.random.default_rng(seed).random(80)
    for weights in (None, w):
        d = brier_decomposition(y, p, n_bins=n_bins, strategy=strategy, sample_weight=weights)
        want = brier_score_loss(y, p, sample_weight=weights)
        assert d.brier == pytest.approx(want, abs=1e-12)
        assert _sums(d) == pytest.approx(want, abs=1e-12)
        assert d.reliability >= 0 and d.resolution >= 0 and d.within_bin_variance >= 0


@pytest.mark.parametrize("k", [2, 3, 5])
def test_multiclass_decomposition_sums_to_brier(k):
    y, proba = multiclass_data(11, k=k)
    d = brier_decomposition(y, proba)
    assert d.brier == pytest.approx(brier_score_loss(y, proba), abs=1e-12)
    assert _sums(d) == pytest.approx(d.brier, abs=1e-12)


# ---------------------------------------------------------------------- the state

def test_state_merge_equals_one_pass_and_keeps_the_contract():
    y, p = binary_data(12, n=400)
    whole = CalibrationState(15).update(y, p)
    parts = [CalibrationState(15) for _ in range(3)]
    for part, idx in zip(parts, np.array_split(np.arange(400), 3)):
        assert part.update(y[idx], p[idx]) is part
    merged = parts[0].merge(parts[1]).merge(parts[2])
    assert merged is not parts[0]
    np.testing.assert_allclose(merged.weight, whole.weight)
    np.testing.assert_allclose(merged.sum_p, whole.sum_p, rtol=1e-12)
    assert parts[0].weight.sum() == len(np.array_split(np.arange(400), 3)[0])
    for norm in ("l1", "l2", "max"):
        assert merged.compute("calibration_error", norm=norm) == pytest.approx(
            calibration_error(y, p, norm=norm), abs=1e-12)
    assert merged.compute(brier_decomposition).brier == pytest.approx(
        brier_score_loss(y, p), abs=1e-12)
    assert merged.error_bound("calibration_error") == 0.0
    assert CalibrationState(15).merge(whole) == whole


def test_state_of_multiclass_batches_with_missing_classes():
    y, proba = multiclass_data(13, n=200)
    state = CalibrationState(15, multiclass="top_label")
    for idx in np.array_split(np.argsort(y, kind="stable"), 4):  # batches lack classes
        state.update(y[idx], proba[idx])
    assert state.compute("calibration_error") == pytest.approx(
        calibration_error(y, proba), abs=1e-12)
    classwise = CalibrationState(15, 4, multiclass="classwise")
    for idx in np.array_split(np.arange(200), 3):
        classwise.update(y[idx] + 10, proba[idx], labels=[10, 11, 12, 13])
    assert classwise.compute("calibration_error", norm="l2") == pytest.approx(
        calibration_error(y, proba, norm="l2", multiclass="classwise"), abs=1e-12)


def test_state_refuses_what_does_not_merge():
    a = CalibrationState(15)
    with pytest.raises(TypeError, match="CalibrationState"):
        a.merge(object())
    with pytest.raises(ValueError, match="different bins"):
        a.merge(CalibrationState(10))
    with pytest.raises(ValueError, match="empty"):
        a.compute("calibration_error")
    with pytest.raises(ValueError, match="holds binary"):
        a.update([0, 1], [[0.5, 0.5], [0.2, 0.8]])
    with pytest.raises(ValueError, match="metric must be one of"):
        a.update([0, 1], [0.2, 0.7]).compute("log_loss")


# ---------------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, match", [
    ({"n_bins": 0}, "n_bins must be at least 1"),
    ({"n_bins": 2.5}, "n_bins must be an integer"),
    ({"strategy": "kmeans"}, "strategy must be one of"),
    ({"norm": "l3"}, "norm must be one of"),
    ({"multiclass": "ovr"}, "multiclass must be one of"),
    ({"debiased": True}, "debiased=True .* needs norm='l2'"),
    ({"debiased": "yes"}, "debiased must be True or False"),
])
def test_bad_options(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        calibration_error([0, 1, 1], [0.2, 0.6, 0.9], **kwargs)


def test_bad_probabilities():
    with pytest.raises(ValueError, match="y_proba contains values greater than 1"):
        calibration_error([0, 1], [0.2, 1.2])
    with pytest.raises(ValueError, match="y_proba contains values less than 0"):
        calibration_error([0, 1], [-0.1, 0.5])
    with pytest.raises(ValueError, match="y_proba rows must sum to 1"):
        calibration_error([0, 1, 2], [[0.2, 0.3, 0.4], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])
    with pytest.raises(ValueError, match="3 probability columns but y_true has 2"):
        calibration_error([0, 1], [[0.2, 0.4, 0.4], [0.1, 0.1, 0.8]])
    with pytest.raises(ValueError, match="pos_label applies to a 1-D y_proba"):
        calibration_error([0, 1], [[0.2, 0.8], [0.1, 0.9]], pos_label=1)
    with pytest.raises(ValueError, match="y_prob contains values greater than 1"):
        calibration_curve([0, 1], [0.2, 1.5])
    with pytest.raises(ValueError, match="strategy must be one of"):
        brier_decomposition([0, 1], [0.2, 0.5], strategy="kmeans")


def test_float32_rows_sum_to_one_within_their_rounding():
    # a float32 softmax: rows sum to 1 within float32 rounding, not float64's tolerance
    rng = np.random.default_rng(14)
    logits = rng.standard_normal((500, 10)).astype(np.float32)
    proba = np.exp(logits)
    proba /= proba.sum(1, keepdims=True)
    y = rng.integers(0, 10, 500)
    assert np.abs(proba.astype(np.float64).sum(1) - 1).max() > 1.5e-8
    want = loop_error(proba.max(1).astype(np.float64), proba.argmax(1) == y, 15, "l1")
    assert calibration_error(y, proba) == pytest.approx(want, abs=1e-12)
    off = proba.copy()
    off[0, 0] += np.float32(1e-3)
    with pytest.raises(ValueError, match="y_proba rows must sum to 1"):
        calibration_error(y, off)


def test_top_label_across_blocks_equals_argmax():
    # more rows than one block of the top-label pass; ties take the first column
    rng = np.random.default_rng(15)
    proba = rng.dirichlet([1, 1, 1], 70_000)
    proba[:100] = [0.4, 0.4, 0.2]
    y = rng.integers(0, 3, 70_000)
    pred = proba.argmax(1)
    for norm in ("l1", "max"):
        assert calibration_error(y, proba, norm=norm) == pytest.approx(
            loop_error(proba.max(1), pred == y, 15, norm), abs=1e-12)
    bad = proba.copy()
    bad[69_000, 1] = np.nan
    with pytest.raises(ValueError, match="y_proba contains NaN"):
        calibration_error(y, bad)
    bad[69_000] = [1.2, -0.1, -0.1]
    with pytest.raises(ValueError, match="y_proba contains values greater than 1"):
        calibration_error(y, bad)
