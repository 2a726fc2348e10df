"""The bootstrap of multilabel count metrics by per-sample label patterns, against
the row-resampling bootstrap: the same replicate values for the same draws, the same
distribution within Monte Carlo error, and the closed-form jackknife against
leave-one-row-out on the rows."""

from __future__ import annotations

import numpy as np
import pytest
from _quiet import quiet

import dartboard
import dartboard.metrics as dm
from dartboard._kernels._multilabel import IndicatorPatterns
from dartboard.metrics._batched import batch_multilabel_metric
from dartboard.uncertainty import interval_from_counts

CASES = [
    ("f1_score", {"average": "micro"}),
    ("f1_score", {"average": "macro"}),
    ("f1_score", {"average": "weighted"}),
    ("f1_score", {"average": "samples"}),
    ("f1_score", {"average": "macro", "labels": [0, 2]}),
    ("precision_score", {"average": "samples", "zero_division": 1.0}),
    ("recall_score", {"average": "weighted"}),
    ("jaccard_score", {"average": "samples"}),
    ("fbeta_score", {"average": "macro", "beta": 2.0}),
    ("accuracy_score", {}),
    ("accuracy_score", {"normalize": False}),
    ("hamming_loss", {}),
    ("zero_one_loss", {}),
    ("zero_one_loss", {"normalize": False}),
]


def data(seed, n=60, n_labels=4, weights=None):
    rng = np.random.default_rng(seed)
    t = rng.random((n, n_labels)) < 0.3
    flip = rng.random((n, n_labels)) < 0.25
    p = t ^ flip
    w = {None: None, "int": rng.integers(1, 4, n),
         "float": rng.integers(1, 17, n) / 4}[weights]
    return t, p, w




def on_rows(name, t, p, w, kw):
    f = getattr(dm, name)
    return quiet(f, t, p, **kw) if w is None else quiet(f, t, p, sample_weight=w, **kw)


@pytest.mark.parametrize("name,kw", CASES)
@pytest.mark.parametrize("weights", [None, "int", "float"])
def test_replicates_equal_the_metric_on_the_same_rows(name, kw, weights):
    t, p, w = data(1, weights=weights)
    patterns = IndicatorPatterns.build(t, p, w)
    rng = np.random.default_rng(2)
    draws = rng.integers(0, t.shape[0], (25, t.shape[0]))
    g = patterns.size.shape[0]
    counts = np.stack([np.bincount(patterns.row_group[idx], minlength=g) for idx in draws])
    matrices, triple_weights = patterns.states(counts.astype(float))
    ours = batch_multilabel_metric(name, matrices, patterns.triples, triple_weights, kw)
    rows = [on_rows(name, t[idx], p[idx], None if w is None else w[idx], kw) for idx in draws]
    np.testing.assert_allclose(ours, rows, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n_labels", [3, 40])  # 40 labels: keys of packed bytes
def test_groups_count_every_row_once(n_labels):
    t, p, w = data(3, n=80, n_labels=n_labels, weights="int")
    patterns = IndicatorPatterns.build(t, p, w)
    assert patterns.size.sum() == t.shape[0]
    # every row of a group has the group's cells and weight
    cells = 2 * t.astype(int) + p
    np.testing.assert_array_equal(cells, patterns.cells[patterns.row_group])
    np.testing.assert_array_equal(w, patterns.weight[patterns.row_group])
    matrices, triple_weights = patterns.states(patterns.size[None, :].astype(float))
    np.testing.assert_array_equal(matrices[0], dm.multilabel_confusion_matrix(
        t, p, sample_weight=w))


@pytest.mark.parametrize("name,kw", [c for c in CASES if "labels" not in c[1]])
def test_closed_form_jackknife_equals_leaving_out_a_row(name, kw):
    t, p, w = data(4, n=40, weights="float")
    patterns = IndicatorPatterns.build(t, p, w)
    g = patterns.size.shape[0]
    matrices, triple_weights = patterns.leave_one_out(0, g)
    ours = batch_multilabel_metric(name, matrices, patterns.triples, triple_weights, kw)
    first_row = np.array([np.flatnonzero(patterns.row_group == k)[0] for k in range(g)])
    keep = [np.delete(np.arange(t.shape[0]), r) for r in first_row]
    rows = [on_rows(name, t[k], p[k], w[k], kw) for k in keep]
    np.testing.assert_allclose(ours, rows, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,kw", [("f1_score", {"average": "macro"}),
                                     ("f1_score", {"average": "samples"}),
                                     ("hamming_loss", {}),
                                     ("jaccard_score", {"average": "micro"})])
@pytest.mark.parametrize("weights", [None, "float"])
def test_interval_agrees_with_row_resampling(name, kw, weights):
    t, p, w = data(5, n=300, n_labels=5, weights=weights)
    f = getattr(dm, name)

    def by_rows(a, b, **k):  # a user callable: the row-resampling bootstrap
        return f(a, b, **k)

    common = dict(method="percentile", n_resamples=2000, sample_weight=w, **kw)
    fast = quiet(dartboard.interval, f, t, p, random_state=0, **common)
    slow = quiet(dartboard.interval, by_rows, t, p, random_state=1, **common)
    assert fast.estimate == pytest.approx(slow.estimate, rel=1e-12)
    # the standard error of a bootstrap SE over R resamples is about SE / sqrt(2 R)
    assert fast.standard_error == pytest.approx(slow.standard_error, rel=0.08)
    for a, b in ((fast.low, slow.low), (fast.high, slow.high)):
        assert abs(a - b) < 0.25 * slow.standard_error
    np.testing.assert_allclose(fast.bootstrap_distribution.mean(),
                               slow.bootstrap_distribution.mean(),
                               atol=4 * slow.standard_error / np.sqrt(2000) * np.sqrt(2))


def test_bca_interval_and_seed():
    t, p, _ = data(6, n=200)
    a = dartboard.interval(dm.f1_score, t, p, average="macro", n_resamples=500,
                           random_state=3)
    b = dartboard.interval(dm.f1_score, t, p, average="macro", n_resamples=500,
                           random_state=3)
    assert a.method == "bca" and a.low < a.estimate < a.high
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)


def test_multilabel_intervals_refuse_what_does_not_apply():
    t, p, _ = data(7)
    with pytest.raises(ValueError, match="stratified=True"):
        dartboard.interval(dm.f1_score, t, p, average="macro", stratified=True)
    with pytest.raises(ValueError, match="method='wilson' does not apply"):
        dartboard.interval(dm.precision_score, t, p, average="micro", method="wilson")
    with pytest.raises(ValueError, match="binary"):
        dartboard.interval(dm.f1_score, t, p, n_resamples=50)
    with pytest.raises(ValueError, match="sample_weight"):
        dartboard.interval(dm.f1_score, t, p, average="macro",
                           sample_weight=-np.ones(t.shape[0]))
    state = dm.ConfusionCounts.from_predictions(t, p)
    with pytest.raises(ValueError, match="pattern of labels"):
        interval_from_counts("f1_score", state, average="macro")


def test_split_multinomial_has_the_multinomial_moments():
    from dartboard._kernels._bootstrap import split_multinomial

    size = np.concatenate([np.ones(3000, dtype=np.int64), np.full(40, 50), [7, 8, 3000]])
    n, p = size.sum(), size / size.sum()
    counts = split_multinomial(np.random.default_rng(0), size, 4000)
    assert np.all(counts.sum(axis=1) == n)
    # mean n p and covariance n (diag(p) - p p^T) of every group and a block's total
    blocks = {"singletons": size == 1, "fifty": size == 50, "last": size == 3000,
              "seven": size == 7}
    for name, members in blocks.items():
        share = p[members].sum()
        total = counts[:, members].sum(axis=1)
        assert total.mean() == pytest.approx(n * share, abs=4 * np.sqrt(n * share / 4000)), name
        assert total.var() == pytest.approx(n * share * (1 - share), rel=0.1), name
    one, two = counts[:, 0], counts[:, 1]
    assert np.mean(one * two) - one.mean() * two.mean() == pytest.approx(
        -n * p[0] * p[1], abs=0.07)  # the sample covariance has SE ~ 1 / sqrt(4000)


def test_many_patterns_take_the_split_draws_and_agree_with_rows():
    t, p, _ = data(8, n=3000, n_labels=14)
    p = p ^ (np.random.default_rng(9).random(p.shape) < 0.3)  # noisy: mostly singletons
    assert np.sum(IndicatorPatterns.build(t, p, None).size < 8) >= 1024

    def by_rows(a, b, **k):
        return dm.f1_score(a, b, **k)

    common = dict(method="percentile", n_resamples=1500, average="macro")
    fast = quiet(dartboard.interval, dm.f1_score, t, p, random_state=0, **common)
    slow = quiet(dartboard.interval, by_rows, t, p, random_state=1, **common)
    assert fast.standard_error == pytest.approx(slow.standard_error, rel=0.1)
    assert abs(fast.low - slow.low) < 0.3 * slow.standard_error
    assert abs(fast.high - slow.high) < 0.3 * slow.standard_error
