"""Tests over folds or data sets against scipy, statsmodels, mlxtend and Demsar (2006)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dartboard.compare._folds import (
    combined_ftest_5x2cv,
    compare_with_control,
    friedman_test,
    iman_davenport,
    paired_ttest_5x2cv,
    wilcoxon_test,
)

# Demsar (2006, JMLR 7), Table 6: AUC of four C4.5 variants on 14 UCI data sets
NAMES = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR = np.array([
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569],
    [0.954, 0.971, 0.968, 0.967], [0.628, 0.661, 0.654, 0.657],
    [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625],
    [0.775, 0.838, 0.866, 0.875], [1.000, 1.000, 1.000, 1.000],
    [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970]])


def test_iman_davenport_demsar_example():
    # Demsar, section 3.2.4: chi2_F = 9.28 -> F_F = 3.69, F(3, 39)
    f_stat, p = iman_davenport(9.28, 14, 4)
    assert f_stat == pytest.approx(13 * 9.28 / (14 * 3 - 9.28))
    assert round(f_stat, 2) == 3.69
    assert p == pytest.approx(stats.f.sf(f_stat, 3, 39))
    assert stats.f.isf(0.05, 3, 39) == pytest.approx(2.85, abs=5e-3)  # his critical value


def test_friedman_equals_scipy():
    rng = np.random.default_rng(1)
    for table in (DEMSAR, rng.random((10, 5)), np.round(rng.random((8, 3)), 1)):
        res = friedman_test(table)
        chi2, p = stats.friedmanchisquare(*table.T)
        assert res.details["chi2"] == pytest.approx(chi2, rel=1e-12)
        assert res.details["chi2_pvalue"] == pytest.approx(p, rel=1e-12)
        n, k = table.shape
        assert res.statistic == pytest.approx((n - 1) * chi2 / (n * (k - 1) - chi2))
        assert res.pvalue == pytest.approx(stats.f.sf(res.statistic, k - 1,
                                                      (k - 1) * (n - 1)))
    # lower is better: the same as ranking the negated scores
    a = friedman_test(DEMSAR, higher_is_better=False)
    b = friedman_test(-DEMSAR)
    assert a.statistic == pytest.approx(b.statistic)


@pytest.mark.parametrize("method, theirs", [("holm", "holm"), ("bonferroni-dunn", "bonferroni"),
                                            ("hochberg", "simes-hochberg")])
def test_control_by_hand_and_statsmodels(method, theirs):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    res = compare_with_control(DEMSAR, "C4.5", method=method, names=NAMES)
    ranks = stats.rankdata(-DEMSAR, axis=1).mean(axis=0)
    se = np.sqrt(4 * 5 / (6 * 14))
    z = (ranks[1:] - ranks[0]) / se
    p = 2 * stats.norm.sf(np.abs(z))
    np.testing.assert_allclose(res.summary["z"], z)
    np.testing.assert_allclose(res.summary["pvalue"], p)
    np.testing.assert_allclose(res.summary["pvalue_adjusted"],
                               multitest.multipletests(p, method=theirs)[1])
    assert res.control == "C4.5" and res.control_rank == pytest.approx(ranks[0])


@pytest.mark.parametrize("k, q05, q10", [(2, 1.960, 1.645), (3, 2.241, 1.960), (4, 2.394, 2.128),
                                         (5, 2.498, 2.241), (6, 2.576, 2.326),
                                         (10, 2.773, 2.539)])
def test_bonferroni_dunn_critical_values_demsar_table_5b(k, q05, q10):
    table = np.random.default_rng(k).random((12, k))
    se = np.sqrt(k * (k + 1) / (6 * 12))
    for alpha, q in ((0.05, q05), (0.10, q10)):
        res = compare_with_control(table, 0, method="bonferroni-dunn", alpha=alpha)
        assert res.critical_difference / se == pytest.approx(q, abs=1e-3)


def test_control_errors():
    with pytest.raises(ValueError, match="control must be one of the models"):
        compare_with_control(DEMSAR, "C5.0", names=NAMES)
    with pytest.raises(ValueError, match="method"):
        compare_with_control(DEMSAR, 0, method="nemenyi")
    with pytest.raises(ValueError, match="at least 2 models"):
        compare_with_control(DEMSAR[:, :1], 0)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_wilcoxon_equals_scipy(alternative, zero_method):
    a, b = DEMSAR[:, 3], DEMSAR[:, 0]  # C4.5+m+cf against C4.5, one tie (mushroom)
    res = wilcoxon_test(a, b, alternative=alternative, zero_method=zero_method)
    ref = stats.wilcoxon(a, b, alternative=alternative, zero_method=zero_method)
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.pvalue == pytest.approx(ref.pvalue)


def test_wilcoxon_demsar_example():
    # Demsar, section 3.1.3, C4.5+m against C4.5: R+ = 93, R- = 12 (zsplit), T = 12,
    # which is at most the critical 21 of N = 14 at alpha = 0.05
    res = wilcoxon_test(DEMSAR[:, 1], DEMSAR[:, 0], zero_method="zsplit")
    assert res.statistic == pytest.approx(12.0)
    assert res.pvalue < 0.05
    assert wilcoxon_test([1, 2, 3], [1, 2, 3]).pvalue == 1.0


def _splits_like_mlxtend(x, y, seed, est_a, est_b):
    """The 5 x 2 table of accuracy differences, with mlxtend's own split procedure."""
    from sklearn.model_selection import train_test_split

    rng = np.random.RandomState(seed)
    table = np.empty((5, 2))
    for i in range(5):
        x1, x2, y1, y2 = train_test_split(x, y, test_size=0.5,
                                          random_state=rng.randint(low=0, high=32767))
        for j, (xa, ya, xb, yb) in enumerate(((x1, y1, x2, y2), (x2, y2, x1, y1))):
            table[i, j] = (est_a.fit(xa, ya).score(xb, yb) - est_b.fit(xa, ya).score(xb, yb))
    return table


def test_5x2cv_equal_mlxtend_given_the_same_splits():
    evaluate = pytest.importorskip("mlxtend.evaluate")
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    x, y = load_breast_cancer(return_X_y=True)
    x = x[:, :5]
    est_a, est_b = LogisticRegression(max_iter=2000), DecisionTreeClassifier(random_state=0)
    table = _splits_like_mlxtend(x, y, 3, est_a, est_b)
    t, p = evaluate.paired_ttest_5x2cv(est_a, est_b, x, y, random_seed=3)
    res = paired_ttest_5x2cv(table)
    assert (res.statistic, res.pvalue) == pytest.approx((t, p), rel=1e-10)
    f, p = evaluate.combined_ftest_5x2cv(est_a, est_b, x, y, random_seed=3)
    res = combined_ftest_5x2cv(table)
    assert (res.statistic, res.pvalue) == pytest.approx((f, p), rel=1e-10)


def test_5x2cv_by_hand():
    d = np.array([[.02, .01], [.03, .00], [.01, .02], [.02, .03], [.00, .01]])
    s2 = [2 * .005 ** 2, 2 * .015 ** 2, 2 * .005 ** 2, 2 * .005 ** 2, 2 * .005 ** 2]
    t = .02 / np.sqrt(sum(s2) / 5)
    assert paired_ttest_5x2cv(d).statistic == pytest.approx(t)
    assert paired_ttest_5x2cv(d).pvalue == pytest.approx(2 * stats.t.sf(t, 5))
    f = (d ** 2).sum() / (2 * sum(s2))
    assert combined_ftest_5x2cv(d).statistic == pytest.approx(f)
    assert combined_ftest_5x2cv(d).pvalue == pytest.approx(stats.f.sf(f, 10, 5))


def test_5x2cv_errors():
    with pytest.raises(ValueError, match=r"differences must be the 5 x 2 table.*\(4, 2\)"):
        paired_ttest_5x2cv(np.ones((4, 2)))
    with pytest.raises(ValueError, match="variance estimate is 0"):
        combined_ftest_5x2cv(np.ones((5, 2)))
