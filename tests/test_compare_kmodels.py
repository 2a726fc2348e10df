"""k models on one test set: Cochran's Q and compare_k_models against outside oracles."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

import dartboard
from dartboard._rng import spawn
from dartboard.compare import cochran_q, compare_k_models, compare_models, mcnemar_test
from dartboard.compare._kmodels_null import JointTypes, dealt_count_null, stepdown_maxt
from dartboard.metrics import accuracy_score, f1_score, roc_auc_score


def _models(n, k, n_classes=2, seed=0, quality=0.75):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    preds = [np.where(rng.random(n) < quality + 0.03 * j, y, rng.integers(0, n_classes, n))
             for j in range(k)]
    return y, preds


# ---------------------------------------------------------------- Cochran's Q

@pytest.mark.parametrize("k, n_classes, seed", [(2, 2, 0), (3, 2, 1), (5, 3, 2), (8, 2, 3)])
def test_cochran_q_equals_mlxtend(k, n_classes, seed):
    evaluate = pytest.importorskip("mlxtend.evaluate")
    y, preds = _models(300, k, n_classes, seed)
    q, p = evaluate.cochrans_q(y, *preds)
    res = cochran_q(y, preds)
    assert res.statistic == pytest.approx(q, rel=1e-12)
    assert res.pvalue == pytest.approx(p, rel=1e-12)
    assert res.df == k - 1
    assert list(res.details["n_correct"].values()) == [float((pr == y).sum()) for pr in preds]


def test_cochran_q_two_models_is_mcnemar_without_correction():
    y, (a, b) = _models(500, 2, seed=7)
    mc = mcnemar_test(y, a, b, exact=False, correction=False)
    res = cochran_q(y, {"a": a, "b": b})
    assert res.statistic == pytest.approx(mc.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(mc.pvalue, rel=1e-12)


def test_cochran_q_no_discordant_rows():
    y = np.array([0, 1, 1, 0])
    res = cochran_q(y, [y, y.copy(), 1 - y])  # every row: two right, one wrong
    assert res.statistic > 0
    res = cochran_q(y, [y, y.copy(), y.copy()])
    assert (res.statistic, res.pvalue) == (0.0, 1.0)


# ---------------------------------------------------------------- the dealt sampler

@pytest.mark.parametrize("n_classes", [2, 3])
def test_dealt_sampler_matches_enumerated_permutations(n_classes):
    # three samples, three models: all (3!)^3 = 216 permutations are equally likely;
    # the exact law of the accuracy vector against the sampler's frequencies
    y = np.array([0, 1, n_classes - 1])
    preds = [np.array([0, 1, 0]), np.array([1, 1, n_classes - 1]), np.array([0, 0, 1])]
    stacked = np.stack(preds, axis=1)
    exact = Counter()
    for perms in itertools.product(itertools.permutations(range(3)), repeat=3):
        dealt = np.array([stacked[i, list(perm)] for i, perm in enumerate(perms)])
        exact[tuple((dealt == y[:, None]).sum(axis=0))] += 1
    joint = JointTypes(y, preds, ["a", "b", "c"])
    r = 20_000
    values = dealt_count_null(joint, "accuracy_score", {}, r, np.random.default_rng(3))
    seen = Counter(tuple(np.rint(v * 3).astype(int)) for v in values)
    assert set(seen) <= set(exact)
    keys = sorted(exact)
    observed = np.array([seen[key] for key in keys])
    expected = np.array([exact[key] / 216 * r for key in keys])
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_stepdown_maxt_by_loops():
    rng = np.random.default_rng(4)
    obs = np.array([2.0, 0.5, 1.2, 3.0])
    null = np.abs(rng.normal(size=(500, 4))) * np.array([1.0, 1.5, 0.8, 1.0])
    order = sorted(range(4), key=lambda i: -obs[i])
    expected, running = np.empty(4), 0.0
    for r, i in enumerate(order):
        tail = null[:, order[r:]].max(axis=1)
        running = max(running, (np.sum(tail >= obs[i]) + 1) / 501)
        expected[i] = running
    np.testing.assert_allclose(stepdown_maxt(obs, null), expected)


# ---------------------------------------------------------------- compare_k_models

def test_estimates_are_the_metric_of_each_model():
    y, preds = _models(400, 4, 3, seed=5)
    res = compare_k_models(f1_score, y, preds, average="macro", n_resamples=200,
                           random_state=0)
    expected = [skm.f1_score(y, p, average="macro") for p in preds]
    np.testing.assert_allclose(res.estimates.to_numpy(), expected, rtol=1e-12)
    pw = res.pairwise
    assert len(pw) == 6
    np.testing.assert_allclose(pw["difference"], [expected[i] - expected[j]
                                                  for i, j in itertools.combinations(range(4), 2)])
    assert (pw["pvalue_adjusted"] >= pw["pvalue"] - 1e-12).all()
    assert dartboard.compare_k_models is compare_k_models


def test_holm_is_holm_over_compare_models():
    y, preds = _models(300, 4, seed=6)
    res = compare_k_models(accuracy_score, y, preds, method="holm", n_resamples=999,
                           random_state=11)
    seeds = spawn(11, 6)
    raw = [compare_models(accuracy_score, y, preds[i], preds[j], n_resamples=999,
                          random_state=seeds[p]).pvalue
           for p, (i, j) in enumerate(itertools.combinations(range(4), 2))]
    np.testing.assert_allclose(res.pairwise["pvalue"], raw, rtol=1e-12)
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    np.testing.assert_allclose(res.pairwise["pvalue_adjusted"],
                               multitest.multipletests(raw, method="holm")[1], rtol=1e-12)


def test_maxt_counts_agree_with_generic_permutations():
    # a plain callable takes the O(n)-per-replicate path: same law, within MC error
    y, preds = _models(200, 3, seed=8, quality=0.7)
    fast = compare_k_models(accuracy_score, y, preds, n_resamples=2000, random_state=1)
    slow = compare_k_models(lambda t, p: float(np.mean(t == p)), y, preds, n_resamples=2000,
                            random_state=2)
    np.testing.assert_allclose(fast.pairwise["difference"], slow.pairwise["difference"])
    se = np.sqrt(0.25 / 2000)
    assert np.abs(fast.pairwise["pvalue_adjusted"] - slow.pairwise["pvalue_adjusted"]).max() \
        < 5 * se


def test_auc_does_not_depend_on_each_models_scale():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 150)
    scores = [y + rng.normal(scale=s, size=150) for s in (0.8, 1.0, 1.5)]
    rescaled = [scores[0] * 10, np.exp(scores[1]), scores[2] / 100 + 3]
    a = compare_k_models(roc_auc_score, y, scores, n_resamples=300, random_state=0)
    b = compare_k_models(roc_auc_score, y, rescaled, n_resamples=300, random_state=0)
    np.testing.assert_allclose(a.estimates, [skm.roc_auc_score(y, s) for s in scores])
    np.testing.assert_allclose(a.estimates, b.estimates)
    np.testing.assert_allclose(a.pairwise["pvalue_adjusted"], b.pairwise["pvalue_adjusted"])


def test_input_forms_and_names():
    y, preds = _models(100, 3, seed=10)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"x": preds[0], "y": preds[1], "z": preds[2]})
    a = compare_k_models(accuracy_score, y, frame, n_resamples=100, random_state=0)
    b = compare_k_models(accuracy_score, y, np.column_stack(preds), names=["x", "y", "z"],
                         n_resamples=100, random_state=0)
    assert a.estimates.index.tolist() == ["x", "y", "z"]
    assert a.pairwise.equals(b.pairwise)


@pytest.mark.parametrize("predictions, match", [
    ([[0, 1, 1]], "predictions must hold at least 2 models; got 1"),
    ({"a": [0, 1, 1]}, "predictions must hold at least 2 models; got 1"),
    ([[0, 1, 1], [0, 1]], "inconsistent|length"),
    (np.array([0, 1, 1]), "must be 2-D"),
])
def test_bad_predictions(predictions, match):
    with pytest.raises(ValueError, match=match):
        compare_k_models(accuracy_score, [0, 1, 1], predictions)
    with pytest.raises(ValueError, match=match):
        cochran_q([0, 1, 1], predictions)


def test_bad_arguments():
    y, preds = [0, 1, 1, 0], [[0, 1, 1, 1], [0, 0, 1, 0]]
    with pytest.raises(ValueError, match="method"):
        compare_k_models(accuracy_score, y, preds, method="tukey")
    with pytest.raises(ValueError, match="names must give one name per model"):
        compare_k_models(accuracy_score, y, preds, names=["a"])
    with pytest.raises(ValueError, match="model names must be distinct"):
        compare_k_models(accuracy_score, y, preds, names=["a", "a"])
    with pytest.raises(TypeError, match="metric must be"):
        compare_k_models(None, y, preds)


def test_batched_auc_null_has_the_law_of_sample_permutations():
    from dartboard.compare._kmodels_null import auc_kway_null, generic_kway_null

    rng = np.random.default_rng(12)
    y = rng.integers(0, 2, 40)
    preds = [stats.rankdata(y + rng.normal(scale=s, size=40)) / 40 for s in (0.7, 1.0, 2.0)]
    fast = auc_kway_null(y == 1, preds, 1500, np.random.default_rng(1))
    slow = generic_kway_null(roc_auc_score, y, preds, None, {}, 1500, np.random.default_rng(2))
    for i, j in ((0, 1), (0, 2), (1, 2)):
        assert stats.ks_2samp(fast[:, i] - fast[:, j], slow[:, i] - slow[:, j]).pvalue > 1e-3
    # every replicate's AUC is an AUC of the dealt scores: a multiple of 1 / (2 n1 n0)
    n1 = int(y.sum())
    units = fast * 2 * n1 * (40 - n1)
    np.testing.assert_allclose(units, np.rint(units), atol=1e-6)
    res = compare_k_models(roc_auc_score, y, preds, n_resamples=200, random_state=0)
    assert "counting score ranks" in res.sampler
