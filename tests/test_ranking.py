"""Ranking metrics: scikit-learn as oracle, a brute-force pairwise AUC, ScoreState merges."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from dartboard.metrics import (
    ScoreState,
    UndefinedMetricWarning,
    average_precision_score,
    pr_auc_score,
    precision_recall_curve,
    roc_auc_score,
    roc_curve,
)

TOL = 1e-10


def brute_force_auc(y, s, w=None):
    """O(n^2) oracle: weighted P(s+ > s-) + 0.5 P(s+ = s-) over all pairs."""
    y = np.asarray(y).astype(bool)
    s = np.asarray(s, dtype=float)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    sp, sn = s[y], s[~y]
    wp, wn = w[y], w[~y]
    pair_w = np.outer(wp, wn)
    wins = (sp[:, None] > sn[None, :]) + 0.5 * (sp[:, None] == sn[None, :])
    return float((pair_w * wins).sum() / pair_w.sum())


def random_binary(rng, n, kind):
    y = rng.integers(0, 2, n)
    if kind == "ties":
        s = rng.integers(0, 4, n).astype(float)  # heavy ties
    elif kind == "int":
        s = rng.integers(-50, 50, n)  # integer scores
    else:
        s = rng.normal(size=n) + y
    return y, s


def ensure_two_classes(y):
    y[0], y[1] = 0, 1
    return y


# ---------------------------------------------------------------- signatures

@pytest.mark.parametrize("name", ["roc_curve", "roc_auc_score", "precision_recall_curve",
                                  "average_precision_score"])
def test_signature_matches_sklearn(name):
    ours = inspect.signature(globals()[name]).parameters
    theirs = inspect.signature(getattr(skm, name)).parameters
    assert list(ours) == list(theirs)
    for p in theirs.values():
        assert ours[p.name].kind == p.kind and ours[p.name].default == p.default


# ---------------------------------------------------------------- binary vs sklearn

@pytest.mark.parametrize("kind", ["ties", "int", "continuous"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_scores_equal_sklearn(kind, weighted):
    rng = np.random.default_rng(["ties", "int", "continuous"].index(kind) * 2 + weighted)
    for _ in range(25):
        n = int(rng.integers(2, 300))
        y, s = random_binary(rng, n, kind)
        y = ensure_two_classes(y)
        w = rng.random(n) * (rng.random(n) > 0.2) if weighted else None
        if w is not None:
            w[:2] = 1.0
        assert abs(roc_auc_score(y, s, sample_weight=w)
                   - skm.roc_auc_score(y, s, sample_weight=w)) < TOL
        assert abs(roc_auc_score(y, s, sample_weight=w) - brute_force_auc(y, s, w)) < TOL
        assert abs(average_precision_score(y, s, sample_weight=w)
                   - skm.average_precision_score(y, s, sample_weight=w)) < TOL
        p, r, _ = skm.precision_recall_curve(y, s, sample_weight=w)
        assert abs(pr_auc_score(y, s, sample_weight=w) - skm.auc(r, p)) < TOL
        max_fpr = float(rng.uniform(0.05, 1.0))
        assert abs(roc_auc_score(y, s, sample_weight=w, max_fpr=max_fpr)
                   - skm.roc_auc_score(y, s, sample_weight=w, max_fpr=max_fpr)) < TOL


@pytest.mark.parametrize("drop", [True, False])
@pytest.mark.parametrize("kind", ["ties", "continuous"])
def test_curves_equal_sklearn(drop, kind):
    rng = np.random.default_rng(7)
    for _ in range(20):
        n = int(rng.integers(2, 200))
        y, s = random_binary(rng, n, kind)
        y = ensure_two_classes(y)
        w = rng.random(n) if rng.random() < 0.5 else None
        for ours, theirs in (
                (roc_curve(y, s, sample_weight=w, drop_intermediate=drop),
                 skm.roc_curve(y, s, sample_weight=w, drop_intermediate=drop)),
                (precision_recall_curve(y, s, sample_weight=w, drop_intermediate=drop),
                 skm.precision_recall_curve(y, s, sample_weight=w, drop_intermediate=drop))):
            for a, b in zip(ours, theirs):
                assert a.shape == b.shape
                np.testing.assert_allclose(a, b, rtol=0, atol=TOL)


def test_pos_label_and_string_labels():
    y = np.array(["spam", "ham", "spam", "ham", "ham"])
    s = np.array([0.9, 0.2, 0.4, 0.4, 0.1])
    for a, b in zip(roc_curve(y, s, pos_label="spam"), skm.roc_curve(y, s, pos_label="spam")):
        np.testing.assert_allclose(a, b)
    assert average_precision_score(y, s, pos_label="spam") == pytest.approx(
        skm.average_precision_score(y, s, pos_label="spam"), abs=TOL)
    # roc_auc_score takes the larger label ("spam") as positive, as sklearn
    assert roc_auc_score(y, s) == pytest.approx(skm.roc_auc_score(y, s), abs=TOL)
    # multiclass y_true with pos_label: the other classes are negative
    y3 = np.array([0, 1, 2, 2, 1, 0])
    s3 = np.array([0.1, 0.5, 0.9, 0.7, 0.5, 0.3])
    for a, b in zip(roc_curve(y3, s3, pos_label=2), skm.roc_curve(y3, s3, pos_label=2)):
        np.testing.assert_allclose(a, b)


def test_containers_give_the_same_value():
    rng = np.random.default_rng(3)
    y, s = random_binary(rng, 100, "ties")
    expected = roc_auc_score(y, s)
    assert roc_auc_score(list(y), list(s)) == expected
    assert roc_auc_score(pd.Series(y), pd.Series(s)) == expected
    assert roc_auc_score(y.astype(bool), s) == expected
    assert roc_auc_score(y, s[:, None]) == expected  # a score column, as sklearn accepts


# ---------------------------------------------------------------- multiclass, multilabel

@pytest.mark.parametrize("rounded", [False, True])
def test_multiclass_equals_sklearn(rounded):
    rng = np.random.default_rng(11)
    for _ in range(15):
        n, k = int(rng.integers(12, 150)), int(rng.integers(3, 6))
        y = rng.integers(0, k, n)
        y[:k] = np.arange(k)
        proba = rng.dirichlet(np.ones(k), n)
        if rounded:  # heavy ties
            proba = np.round(proba, 1) + 1e-3
            proba /= proba.sum(axis=1, keepdims=True)
        w = rng.random(n)
        for average in ("macro", "weighted", "micro", None):
            np.testing.assert_allclose(
                roc_auc_score(y, proba, multi_class="ovr", average=average, sample_weight=w),
                skm.roc_auc_score(y, proba, multi_class="ovr", average=average,
                                  sample_weight=w), atol=TOL)
            np.testing.assert_allclose(
                average_precision_score(y, proba, average=average, sample_weight=w),
                skm.average_precision_score(y, proba, average=average, sample_weight=w),
                atol=TOL)
        for average in ("macro", "weighted"):
            assert roc_auc_score(y, proba, multi_class="ovo", average=average) == \
                pytest.approx(skm.roc_auc_score(y, proba, multi_class="ovo",
                                                average=average), abs=TOL)


def test_multiclass_labels_argument():
    rng = np.random.default_rng(5)
    y = rng.choice(["a", "b", "d"], 60)
    proba = rng.dirichlet(np.ones(4), 60)
    labels = ["a", "b", "c", "d"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = roc_auc_score(y, proba, multi_class="ovr", labels=labels, average=None)
        theirs = skm.roc_auc_score(y, proba, multi_class="ovr", labels=labels, average=None)
    np.testing.assert_allclose(ours, theirs, atol=TOL)  # nan for the absent class "c"
    assert roc_auc_score(y, proba, multi_class="ovo", labels=labels) == pytest.approx(
        skm.roc_auc_score(y, proba, multi_class="ovo", labels=labels), abs=TOL)


def test_samples_average_equals_sklearn():
    rng = np.random.default_rng(14)
    for trial in range(30):
        n, k = int(rng.integers(2, 60)), int(rng.integers(2, 7))
        y = rng.integers(0, 2, (n, k))
        s = rng.integers(0, 4, (n, k)).astype(float) if trial % 2 else rng.random((n, k))
        w = rng.random(n) if trial % 3 == 0 else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # rows without positives warn in both
            assert average_precision_score(y, s, average="samples", sample_weight=w) == \
                pytest.approx(skm.average_precision_score(y, s, average="samples",
                                                          sample_weight=w), abs=TOL)
        defined = (y.sum(axis=1) > 0) & (y.sum(axis=1) < k)
        if defined.any():
            wd = None if w is None else w[defined]
            assert roc_auc_score(y[defined], s[defined], average="samples",
                                 sample_weight=wd) == pytest.approx(
                skm.roc_auc_score(y[defined], s[defined], average="samples",
                                  sample_weight=wd), abs=TOL)
    y3 = rng.integers(0, 3, 50)
    y3[:3] = [0, 1, 2]
    p3 = rng.dirichlet(np.ones(3), 50)
    assert average_precision_score(y3, p3, average="samples") == pytest.approx(
        skm.average_precision_score(y3, p3, average="samples"), abs=TOL)
    with pytest.warns(UndefinedMetricWarning, match="1 row"):
        assert np.isnan(roc_auc_score([[1, 1], [0, 1]], [[0.1, 0.2], [0.3, 0.4]],
                                      average="samples"))
    with pytest.raises(ValueError, match="'samples' is not available"):
        pr_auc_score([[1, 0], [0, 1]], [[0.1, 0.2], [0.3, 0.4]], average="samples")


def test_multilabel_equals_sklearn():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, (80, 3))
    s = rng.integers(0, 5, (80, 3)).astype(float)
    for average in ("macro", "weighted", "micro", None):
        np.testing.assert_allclose(roc_auc_score(y, s, average=average),
                                   skm.roc_auc_score(y, s, average=average), atol=TOL)
        np.testing.assert_allclose(average_precision_score(y, s, average=average),
                                   skm.average_precision_score(y, s, average=average),
                                   atol=TOL)


# ---------------------------------------------------------------- undefined cases

def test_one_class_gives_nan_with_warning():
    with pytest.warns(UndefinedMetricWarning, match="Only one class"):
        assert np.isnan(roc_auc_score([1, 1, 1], [0.2, 0.3, 0.4]))
    with pytest.warns(UndefinedMetricWarning, match="No negative samples"):
        fpr, tpr, _ = roc_curve([1, 1], [0.2, 0.3])
    assert np.isnan(fpr).all() and not np.isnan(tpr).any()
    with pytest.warns(UserWarning, match="No positive class"):
        assert average_precision_score([0, 0, 0], [0.2, 0.3, 0.4]) == 0.0
    with pytest.warns(UserWarning, match="No positive class"):
        assert pr_auc_score([0, 0], [0.2, 0.3]) == 0.0


def test_ties_worked_example():
    # one positive tied with the negative: 0.5 pair; the other positive wins
    assert roc_auc_score([0, 1, 1], [0.5, 0.5, 0.9]) == 0.75
    assert roc_auc_score([0, 1], [0.3, 0.3]) == 0.5


# ---------------------------------------------------------------- bad input

def test_bad_inputs():
    with pytest.raises(ValueError, match="y_score contains 1 NaN"):
        roc_auc_score([0, 1, 1], [0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match="y_score contains 1 NaN"):
        roc_curve([0, 1, 1], [0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        average_precision_score([0, 1, 1], [0.1, 0.3])
    with pytest.raises(ValueError, match="sample_weight must have one weight per sample"):
        roc_auc_score([0, 1], [0.1, 0.3], sample_weight=[1.0])
    with pytest.raises(ValueError, match="pos_label is not specified"):
        roc_curve(["a", "b"], [0.1, 0.3])
    with pytest.raises(ValueError, match="multi_class must be in"):
        roc_auc_score([0, 1, 2], np.eye(3))
    with pytest.raises(ValueError, match="sum up to 1.0"):
        roc_auc_score([0, 1, 2], np.eye(3) * 0.5, multi_class="ovr")
    with pytest.raises(ValueError, match="not equal to the number of columns"):
        roc_auc_score([0, 1, 2], np.full((3, 4), 0.25), multi_class="ovr")
    with pytest.raises(ValueError, match="Partial AUC"):
        roc_auc_score([0, 1, 2], np.eye(3), multi_class="ovr", max_fpr=0.5)
    with pytest.raises(ValueError, match="max_fpr"):
        roc_auc_score([0, 1], [0.1, 0.3], max_fpr=1.5)
    with pytest.raises(ValueError, match="average must be one of"):
        roc_auc_score([0, 1], [0.1, 0.3], average="mean")
    with pytest.raises(ValueError, match="sample_weight is not supported"):
        roc_auc_score([0, 1, 2], np.eye(3), multi_class="ovo", sample_weight=[1, 1, 1])
    with pytest.raises(ValueError, match="must be 1-D for binary"):
        roc_auc_score([0, 1, 1], np.full((3, 2), 0.5))
    with pytest.raises(ValueError, match="pos_label=2 is not a valid label"):
        average_precision_score([0, 1, 1], [0.1, 0.2, 0.3], pos_label=2)
    with pytest.raises(ValueError, match="continuous values"):
        roc_auc_score([0.5, 1.0], [0.1, 0.2])
    # all-zero weights: an error, as in scikit-learn (was nan or 0.0 with a warning
    # about a missing class); a streaming state's batch may still carry them
    zero = [0.0, 0.0, 0.0, 0.0]
    for metric in (roc_auc_score, average_precision_score, pr_auc_score, roc_curve,
                   precision_recall_curve):
        with pytest.raises(ValueError, match="sample_weight sums to zero"):
            metric([0, 1, 1, 0], [0.2, 0.8, 0.4, 0.5], sample_weight=zero)
    with pytest.raises(ValueError, match="sample_weight sums to zero"):
        average_precision_score(np.eye(4)[:, :2], np.full((4, 2), 0.5), sample_weight=zero)
    assert ScoreState.from_scores([0, 1], [0.2, 0.8], sample_weight=[0.0, 0.0]).pos.sum() == 0


# ---------------------------------------------------------------- ScoreState

def test_state_map_equals_plain_unique_and_bincount():
    # slow oracle for the split-sort-and-merge construction of the score map
    rng = np.random.default_rng(12)
    for weighted in (False, True):
        y, s = random_binary(rng, 400, "ties")
        w = rng.random(400) if weighted else None
        state = ScoreState.from_scores(y, s, sample_weight=w)
        uniq, inverse = np.unique(s, return_inverse=True)
        ww = np.ones(400) if w is None else w
        np.testing.assert_array_equal(state.scores, uniq)
        np.testing.assert_allclose(state.pos, np.bincount(inverse, ww * (y == 1)), rtol=1e-13)
        np.testing.assert_allclose(state.neg, np.bincount(inverse, ww * (y == 0)), rtol=1e-13)
        assert state.pos.dtype == (np.float64 if weighted else np.int64)


def test_state_equals_functions():
    rng = np.random.default_rng(21)
    y, s = random_binary(rng, 500, "ties")
    w = rng.random(500)
    state = ScoreState.from_scores(y, s, sample_weight=w)
    assert state.compute("roc_auc_score") == pytest.approx(
        roc_auc_score(y, s, sample_weight=w), abs=1e-15)
    assert state.compute(average_precision_score) == pytest.approx(
        average_precision_score(y, s, sample_weight=w), abs=1e-15)
    for a, b in zip(state.compute("roc_curve", drop_intermediate=False),
                    roc_curve(y, s, sample_weight=w, drop_intermediate=False)):
        np.testing.assert_allclose(a, b, atol=1e-15)
    for a, b in zip(state.compute("precision_recall_curve"),
                    precision_recall_curve(y, s, sample_weight=w)):
        np.testing.assert_allclose(a, b, atol=1e-15)


def test_state_errors():
    state = ScoreState.from_scores([0, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match="metric must be one of"):
        state.compute("f1_score")
    with pytest.raises(TypeError, match="can only merge with a ScoreState"):
        state.merge(object())
    with pytest.raises(ValueError, match="different pos_label"):
        state.merge(ScoreState(pos_label="yes"))
    with pytest.raises(ValueError, match="strictly increasing"):
        ScoreState([0.3, 0.1], [1, 1], [0, 0])


# ---------------------------------------------------------------- property tests

@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5), st.integers(0, 3)),
                min_size=2, max_size=40))
def test_auc_equals_pairwise_count(rows):
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows], dtype=float)
    w = np.array([r[2] for r in rows], dtype=float)
    keep = w > 0
    if not (y[keep].any() and (~y[keep]).any()):
        return
    assert abs(roc_auc_score(y, s, sample_weight=w) - brute_force_auc(y, s, w)) < TOL
    assert abs(roc_auc_score(y, s) - brute_force_auc(y, s)) < TOL


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 6), st.integers(2, 7), st.integers(0, 2**32 - 1),
       st.sampled_from([0.05, 0.2, 0.5, 0.8, 0.999]), st.booleans())
def test_samples_partial_auc_equals_each_rows_binary_partial_auc(n, k, seed, max_fpr, ties):
    """The vectorised per-row partial AUC (one sort per row) against a loop of the
    binary partial AUC over the rows (its slow oracle) and scikit-learn."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, (n, k))
    y[:, 0], y[:, 1] = 1, 0  # every row holds both labels
    s = rng.integers(0, 3, (n, k)) / 2.0 if ties else rng.random((n, k))
    w = rng.random(n)
    rows = [roc_auc_score(y[i], s[i], max_fpr=max_fpr) for i in range(n)]
    ours = roc_auc_score(y, s, average="samples", max_fpr=max_fpr, sample_weight=w)
    assert ours == pytest.approx(np.average(rows, weights=w), abs=TOL)
    assert ours == pytest.approx(skm.roc_auc_score(y, s, average="samples", max_fpr=max_fpr,
                                                   sample_weight=w), abs=TOL)
