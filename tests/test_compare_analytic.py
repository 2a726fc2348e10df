"""McNemar, DeLong, corrected t-test, Friedman/Nemenyi/Holm ranking and the CD diagram."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import dartboard as db
from dartboard.compare._analytic import MCNEMAR_EXACT_BELOW
from dartboard.compare._ranking import nemenyi_q

# ---------------------------------------------------------------- McNemar


def _statsmodels_mcnemar(table, exact, correction=True):
    from statsmodels.stats.contingency_tables import mcnemar

    return mcnemar(np.asarray(table), exact=exact, correction=correction)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 60), min_size=4, max_size=4), st.booleans(), st.booleans())
def test_mcnemar_equals_statsmodels(cells, exact, correction):
    table = np.array(cells).reshape(2, 2)
    if not exact and table[0, 1] + table[1, 0] == 0:
        return  # statsmodels gives nan; our convention is covered below
    if not exact and correction and table[0, 1] == table[1, 0]:
        return  # statsmodels corrects b = c too; R's rule is pinned below
    ours = db.mcnemar_test(table, exact=exact, correction=correction)
    ref = _statsmodels_mcnemar(table, exact, correction)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-10)


def test_mcnemar_from_predictions_equals_table():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 500)
    a = np.where(rng.random(500) < 0.8, y, (y + 1) % 3)
    b = np.where(rng.random(500) < 0.7, y, (y + 2) % 3)
    ok_a, ok_b = a == y, b == y
    table = [[np.sum(ok_a & ok_b), np.sum(ok_a & ~ok_b)],
             [np.sum(~ok_a & ok_b), np.sum(~ok_a & ~ok_b)]]
    res = db.mcnemar_test(y, a, b)
    ref = _statsmodels_mcnemar(table, exact=False)
    assert not res.exact
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.pvalue == pytest.approx(ref.pvalue)
    assert res.estimate == pytest.approx(ok_a.mean() - ok_b.mean())


def test_mcnemar_exact_threshold():
    below = db.mcnemar_test([[10, MCNEMAR_EXACT_BELOW - 1 - 5], [5, 10]])
    at = db.mcnemar_test([[10, MCNEMAR_EXACT_BELOW - 5], [5, 10]])
    assert below.exact and below.method == "McNemar exact binomial test"
    assert not at.exact and at.df == 1.0


def test_mcnemar_agresti_worked_example():
    # Agresti (2002), Categorical Data Analysis, Table 10.1: z^2 = 17.36 (no correction)
    res = db.mcnemar_test([[794, 150], [86, 570]], correction=False)
    assert res.statistic == pytest.approx(17.36, abs=0.005)


def test_mcnemar_equal_discordant_counts_give_p_one_as_r():
    # R 4.2.2, stats::mcnemar.test corrects only when b != c:
    #   mcnemar.test(matrix(c(10, 15, 15, 10), 2))
    #   McNemar's chi-squared = 0, df = 1, p-value = 1
    #   mcnemar.test(matrix(c(10, 15, 16, 10), 2))   # |b - c| = 1
    #   McNemar's chi-squared = 0, df = 1, p-value = 1
    for table in ([[10, 15], [15, 10]], [[10, 16], [15, 10]]):
        res = db.mcnemar_test(table)
        assert not res.exact
        assert res.statistic == 0.0 and res.pvalue == 1.0
    # without the correction b = c is a statistic of 0 anyway
    assert db.mcnemar_test([[10, 15], [15, 10]], correction=False).pvalue == 1.0


def test_mcnemar_no_discordant_pairs():
    for exact in (None, True, False):
        res = db.mcnemar_test([[5, 0], [0, 3]], exact=exact)
        assert res.pvalue == 1.0 and res.statistic == 0.0


@pytest.mark.parametrize("args, kwargs, exc, match", [
    (([[1, 2, 3], [4, 5, 6]],), {}, ValueError, "one 2x2 table"),
    (([[1, -2], [3, 4]],), {}, ValueError, "non-negative counts"),
    (([0, 1, 1], [0, 1]), {}, ValueError, "needs both pred_a and pred_b"),
    (([0, 1, 1], [0, 1], [1, 1, 0]), {}, ValueError, "inconsistent numbers of samples"),
    (([[1, 2], [3, 4]],), {"exact": "auto"}, TypeError, "exact must be None"),
])
def test_mcnemar_bad_input(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        db.mcnemar_test(*args, **kwargs)


# ---------------------------------------------------------------- DeLong

def _slow_delong(y, a, b):
    """O(m n) DeLong (1988): structural components from the full psi matrix."""
    y = np.asarray(y, bool)
    comps = []
    aucs = []
    for s in (a, b):
        x, z = s[y][:, None], s[~y][None, :]
        psi = (x > z) + 0.5 * (x == z)
        aucs.append(psi.mean())
        comps.append((psi.mean(axis=1), psi.mean(axis=0)))
    v10 = np.vstack([c[0] for c in comps])
    v01 = np.vstack([c[1] for c in comps])
    cov = np.cov(v10) / y.sum() + np.cov(v01) / (~y).sum()
    diff = aucs[0] - aucs[1]
    z = diff / np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    return aucs, z


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_delong_equals_slow_oracle(seed, ties):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 120)
    a = y + rng.normal(0, 1.0, 120)
    b = y * 0.5 + rng.normal(0, 1.0, 120)
    if ties:
        a, b = np.round(a), np.round(b * 2) / 2
    (auc_a, auc_b), z = _slow_delong(y, a, b)
    res = db.delong_test(y, a, b)
    assert res.details["auc_a"] == pytest.approx(auc_a)
    assert res.details["auc_b"] == pytest.approx(auc_b)
    assert res.statistic == pytest.approx(z, rel=1e-10)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-10)
    assert db.delong_test(y, a, b, alternative="greater").pvalue == pytest.approx(
        stats.norm.sf(z), rel=1e-10)
    assert db.delong_test(y, a, b, alternative="less").pvalue == pytest.approx(
        stats.norm.cdf(z), rel=1e-10)


def test_delong_aucs_equal_sklearn_and_pos_label():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(5)
    y = np.array(["no", "yes"])[rng.integers(0, 2, 80)]
    a, b = rng.normal(size=80), rng.normal(size=80)
    res = db.delong_test(y, a, b)
    assert res.details["auc_a"] == pytest.approx(roc_auc_score(y == "yes", a))
    flipped = db.delong_test(y, a, b, pos_label="no")
    assert flipped.details["auc_a"] == pytest.approx(roc_auc_score(y == "no", a))


def test_delong_identical_scores():
    res = db.delong_test([0, 1, 0, 1, 1], [.1, .8, .3, .7, .2], [.1, .8, .3, .7, .2])
    assert res.statistic == 0.0 and res.pvalue == 1.0


@pytest.mark.parametrize("args, kwargs, match", [
    (([0, 1, 1], [0.1, np.nan, 0.3], [0.2, 0.3, 0.4]), {}, "scores_a contains 1 NaN"),
    (([0, 1, 2], [0.1, 0.2, 0.3], [0.2, 0.3, 0.4]), {}, "exactly 2 classes"),
    (([0, 1, 1], [0.1, 0.2], [0.2, 0.3, 0.4]), {}, "inconsistent numbers of samples"),
    (([0, 1, 1], [0.1, 0.2, 0.3], [0.2, 0.3, 0.4]), {"alternative": "two"},
     "alternative must be one of"),
    (([0, 1, 1], [0.1, 0.2, 0.3], [0.2, 0.3, 0.4]), {"pos_label": 5}, "pos_label=5"),
])
def test_delong_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        db.delong_test(*args, **kwargs)


# ---------------------------------------------------------------- corrected t-test

def test_corrected_ttest_formula():
    rng = np.random.default_rng(0)
    a = rng.normal(0.80, 0.02, 10)
    b = rng.normal(0.79, 0.02, 10)
    d = a - b
    t = d.mean() / np.sqrt((1 / 10 + 20 / 80) * d.var(ddof=1))
    res = db.corrected_ttest(a, b, n_train=80, n_test=20)
    assert res.statistic == pytest.approx(t)
    assert res.df == 9
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 9))
    assert db.corrected_ttest(a, b, n_train=80, n_test=20, alternative="greater").pvalue \
        == pytest.approx(stats.t.sf(t, 9))


def test_corrected_ttest_tends_to_paired_ttest():
    # n_test / n_train -> 0 removes the correction: the plain paired t-test
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=12), rng.normal(size=12)
    res = db.corrected_ttest(a, b, n_train=10**15, n_test=1)
    ref = stats.ttest_rel(a, b)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-9)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    # the correction always makes the test more conservative
    assert db.corrected_ttest(a, b, n_train=9, n_test=1).pvalue > ref.pvalue


def test_corrected_ttest_takes_float_split_sizes_as_cv_interval():
    # 10-fold CV of 1005 samples: test folds of 100 or 101, so the mean sizes are
    # fractional; the variance factor is the one cv_interval uses
    a = np.array([0.84, 0.86, 0.83, 0.85, 0.87, 0.84, 0.86, 0.85, 0.83, 0.86])
    b = np.array([0.82, 0.85, 0.83, 0.83, 0.85, 0.83, 0.84, 0.85, 0.82, 0.84])
    n_train, n_test = 904.5, 100.5
    res = db.corrected_ttest(a, b, n_train=n_train, n_test=n_test)
    d = a - b
    factor = 1 / 10 + n_test / n_train
    t = d.mean() / np.sqrt(factor * d.var(ddof=1))
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 9), rel=1e-10)
    iv = db.cv_interval(d, n_train=n_train, n_test=n_test)
    assert iv.standard_error == pytest.approx(abs(d.mean() / res.statistic), rel=1e-12)


def test_corrected_ttest_constant_differences():
    assert db.corrected_ttest([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], n_train=4, n_test=1).pvalue == 1.0
    # equal non-zero differences: variance 0, no t statistic (never p = 0; issue 16)
    with pytest.raises(ValueError, match="variance is 0"):
        db.corrected_ttest([2, 3, 4, 5, 6], [1, 2, 3, 4, 5], n_train=4, n_test=1)
    # equal float differences: np.var([0.3] * 10, ddof=1) is 3e-33, not 0 (was t = 3e15)
    with pytest.raises(ValueError, match="variance is 0"):
        db.corrected_ttest(np.full(10, 0.8), np.full(10, 0.5), n_train=9, n_test=1)


@pytest.mark.parametrize("args, kwargs, exc, match", [
    (([1.0, 2.0], [1.0]), {}, ValueError, "inconsistent numbers of samples"),
    (([1.0], [1.0]), {}, ValueError, "at least 2 paired scores"),
    (([1.0, np.nan], [1.0, 2.0]), {}, ValueError, "scores_a contains 1 NaN"),
    (([1.0, 2.0], [1.0, 3.0]), {"alternative": "greater than"}, ValueError,
     "alternative must be one of"),
    (([1.0, 2.0], [1.0, 3.0]), {"n_train": 0}, ValueError,
     "n_train must be a positive, finite number"),
    (([1.0, 2.0], [1.0, 3.0]), {"n_test": np.inf}, ValueError,
     "n_test must be a positive, finite number"),
    (([1.0, 2.0], [1.0, 3.0]), {"n_test": "10"}, TypeError,
     "n_test must be a positive number of samples"),
    (([1.0, 2.0], [1.0, 3.0]), {"n_train": True}, TypeError,
     "n_train must be a positive number of samples"),
])
def test_corrected_ttest_bad_input(args, kwargs, exc, match):
    kw = {"n_train": 90, "n_test": 10, **kwargs}
    with pytest.raises(exc, match=match):
        db.corrected_ttest(*args, **kw)


# ---------------------------------------------------------------- ranking

@settings(max_examples=40, deadline=None)
@given(st.integers(3, 7), st.integers(2, 12), st.integers(0, 2**32 - 1), st.booleans())
def test_friedman_equals_scipy(k, n, seed, discrete):
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 4, (n, k)).astype(float) if discrete else rng.normal(size=(n, k))
    if np.all(table == table[:, :1]):
        return  # every row tied: scipy divides by zero
    res = db.rank_models(table)
    ref = stats.friedmanchisquare(*table.T)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-8, abs=1e-300)


@pytest.mark.parametrize("k, q", [(2, 1.960), (3, 2.343), (4, 2.569), (5, 2.728),
                                  (6, 2.850), (7, 2.949), (8, 3.031), (9, 3.102),
                                  (10, 3.164)])
def test_nemenyi_q_equals_demsar_table(k, q):
    # Demsar (2006, JMLR 7), Table 5(a), alpha = 0.05 (printed to 3 decimals)
    assert nemenyi_q(k) == pytest.approx(q, abs=1.5e-3)


def test_nemenyi_q_alpha_010_demsar_table():
    # Demsar (2006), Table 5(a), alpha = 0.10: k = 3 -> 2.052, k = 10 -> 2.920
    assert nemenyi_q(3, 0.10) == pytest.approx(2.052, abs=1.5e-3)
    assert nemenyi_q(10, 0.10) == pytest.approx(2.920, abs=1.5e-3)


def test_critical_difference_formula_and_demsar_example():
    rng = np.random.default_rng(0)
    res = db.rank_models(rng.normal(size=(14, 4)))
    assert res.critical_difference == pytest.approx(res.q_alpha * np.sqrt(4 * 5 / (6 * 14)))
    # Demsar (2006), Section 3.2.4: four classifiers on 14 data sets, CD = 1.25
    assert res.critical_difference == pytest.approx(1.25, abs=0.005)


def test_average_ranks_ties_holm_by_hand():
    table = pd.DataFrame({"a": [0.9, 0.8, 0.7, 0.9], "b": [0.9, 0.6, 0.6, 0.5],
                          "c": [0.5, 0.7, 0.8, 0.4]})
    res = db.rank_models(table)
    # ranks per row (1 = best): (1.5,1.5,3), (1,3,2), (2,3,1), (1,2,3)
    expected = {"a": (1.5 + 1 + 2 + 1) / 4, "b": (1.5 + 3 + 3 + 2) / 4, "c": (3 + 2 + 1 + 3) / 4}
    got = dict(zip(res.summary["model"], res.summary["average_rank"]))
    assert got == pytest.approx(expected)
    assert res.summary["model"].tolist() == ["a", "c", "b"]
    se = np.sqrt(3 * 4 / (6 * 4))
    p = {m: 2 * stats.norm.sf((expected[m] - expected["a"]) / se) for m in ("b", "c")}
    from statsmodels.stats.multitest import multipletests
    holm = multipletests([p["c"], p["b"]], method="holm")[1]
    row = res.summary.set_index("model")
    assert row.loc["c", "pvalue_vs_best"] == pytest.approx(p["c"])
    assert row.loc["c", "pvalue_holm"] == pytest.approx(holm[0])
    assert row.loc["b", "pvalue_holm"] == pytest.approx(holm[1])
    assert np.isnan(row.loc["a", "pvalue_holm"])
    # the decision: a step-down of Studentized-range tests, first the range of all
    # three models (b - a), then of the best two (c - a); no omnibus gate
    step_b = stats.studentized_range.sf(np.sqrt(2) * (expected["b"] - expected["a"]) / se,
                                        3, np.inf)
    step_c = 2 * stats.norm.sf((expected["c"] - expected["a"]) / se)  # range of two
    adj_b = step_b
    adj_c = max(adj_b, step_c)
    assert row.loc["b", "pvalue_adjusted"] == pytest.approx(adj_b, rel=1e-4)
    assert row.loc["c", "pvalue_adjusted"] == pytest.approx(adj_c, rel=1e-4)
    assert row["significantly_worse"].tolist() == [False, bool(adj_c < .05), bool(adj_b < .05)]


def test_rank_models_worse_than_best_accounts_for_the_best_chosen_after_looking():
    # Five models over 12 data sets: model e is worst in 9, the other four shuffle.
    # Holm against the observed best flags e; the range of all five average ranks,
    # whose critical value covers whichever pair came out the extremes, does not.
    rng = np.random.default_rng(12)
    table = rng.normal(size=(12, 5))
    table[:9, 4] = table[:9].min(axis=1) - 0.1
    res = db.rank_models(table, names=list("abcde"))
    row = res.summary.set_index("model")
    assert row.loc["e", "pvalue_holm"] < 0.05
    assert not row["significantly_worse"].any()
    ranks = stats.rankdata(-table, axis=1).mean(axis=0)
    q = np.sqrt(2) * (ranks.max() - ranks.min()) / np.sqrt(5 * 6 / (6 * 12))
    assert row.loc["e", "pvalue_adjusted"] == pytest.approx(
        stats.studentized_range.sf(q, 5, np.inf), rel=1e-4)
    # the omnibus tests are reported beside the decision: Friedman (scipy) and
    # Iman-Davenport's F = (N - 1) chi2 / (N (k - 1) - chi2) with (k - 1, (k - 1)(N - 1)) df
    chi2 = stats.friedmanchisquare(*table.T).statistic
    f = 11 * chi2 / (12 * 4 - chi2)
    assert res.pvalue == pytest.approx(stats.chi2.sf(chi2, 4), rel=1e-10)
    assert res.f_statistic == pytest.approx(f, rel=1e-10)
    assert res.f_pvalue == pytest.approx(stats.f.sf(f, 4, 44), rel=1e-10)


def test_rank_models_family_wise_error_under_the_global_null():
    # k = 10 equivalent models over N = 30 data sets: Holm against the observed best
    # flagged some model in 13.8% of tables; the decision must stay near alpha
    # (benchmarks/compare_calibration.py: 4.4% with 4000 tables)
    rng = np.random.default_rng(2024)
    sims = 300
    flagged = sum(db.rank_models(rng.normal(size=(30, 10))).summary["significantly_worse"].any()
                  for _ in range(sims))
    # 0.05 + 3 binomial standard errors at 300 tables
    assert flagged / sims < 0.05 + 3 * np.sqrt(0.05 * 0.95 / sims)


def test_rank_models_step_down_finds_every_clearly_worse_model():
    rng = np.random.default_rng(4)
    table = rng.normal(size=(30, 5)) * 0.1 + np.array([3.0, 3.0, 2.0, 1.0, 0.0])
    res = db.rank_models(table, names=list("abcde"))
    flags = dict(zip(res.summary["model"], res.summary["significantly_worse"]))
    assert flags == {"a": False, "b": False, "c": True, "d": True, "e": True} \
        or flags == {"b": False, "a": False, "c": True, "d": True, "e": True}


def test_rank_models_input_forms_and_direction():
    arr = np.array([[0.1, 0.3, 0.2], [0.2, 0.5, 0.1], [0.3, 0.6, 0.4]])
    from_array = db.rank_models(arr, names=["x", "y", "z"])
    from_dict = db.rank_models({"x": arr[:, 0], "y": arr[:, 1], "z": arr[:, 2]})
    from_frame = db.rank_models(pd.DataFrame(arr, columns=["x", "y", "z"]))
    import polars as pl
    import pyarrow as pa
    from_polars = db.rank_models(pl.DataFrame(arr, schema=["x", "y", "z"], orient="row"))
    # a pyarrow Table's .columns are its arrays: its names were lost ("model 0"...)
    from_arrow = db.rank_models(pa.table({"x": arr[:, 0], "y": arr[:, 1], "z": arr[:, 2]}))
    for res in (from_dict, from_frame, from_polars, from_arrow):
        pd.testing.assert_frame_equal(res.summary, from_array.summary)
    assert from_array.summary["model"].iloc[0] == "y"
    losses = db.rank_models(arr, names=["x", "y", "z"], higher_is_better=False)
    assert losses.summary["model"].iloc[-1] == "y"
    assert db.rank_models(arr).summary["model"].iloc[0] == "model 1"


def test_groups_are_maximal_runs_within_cd():
    rng = np.random.default_rng(0)
    res = db.rank_models(rng.normal(size=(14, 7)) + np.linspace(0, 1.5, 7))
    ranks = dict(zip(res.summary["model"], res.summary["average_rank"]))
    groups = res.groups()
    assert groups
    for g in groups:
        spread = ranks[g[-1]] - ranks[g[0]]
        assert spread < res.critical_difference
    for g1 in groups:
        for g2 in groups:
            assert g1 is g2 or not set(g1) <= set(g2)


@pytest.mark.parametrize("table, kwargs, exc, match", [
    (np.ones((3, 1)), {}, ValueError, "at least 2 models"),
    (np.ones((1, 3)), {}, ValueError, "at least 2 folds"),
    ([[1.0, np.nan], [1.0, 2.0]], {}, ValueError, "table contains 1 NaN"),
    (np.ones((3, 2)), {"names": ["a"]}, ValueError, "one name per column"),
    (np.ones((3, 2)), {"alpha": 1.5}, ValueError, "alpha must be strictly between"),
    (np.ones((3, 2)), {"higher_is_better": "yes"}, TypeError, "higher_is_better must be"),
    ({"a": [1, 2, 3], "b": [1, 2]}, {}, ValueError, "one score per fold"),
])
def test_rank_models_bad_input(table, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        db.rank_models(table, **kwargs)


# ---------------------------------------------------------------- CD diagram

def test_plot_critical_difference():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dartboard.plots import plot_critical_difference

    rng = np.random.default_rng(0)
    res = db.rank_models(rng.normal(size=(14, 6)) + np.linspace(0, 2, 6),
                         names=list("ABCDEF"))
    fig, ax = plt.subplots()
    out = plot_critical_difference(res, ax=ax)
    assert out is ax
    texts = [t.get_text() for t in ax.texts]
    assert set("ABCDEF") <= set(texts)
    assert any(t.startswith("CD = ") for t in texts)
    thick = [line for line in ax.lines if line.get_linewidth() > 3]
    assert len(thick) == len(res.groups())
    # each model's line starts on the axis at its average rank
    ranks = sorted(res.summary["average_rank"])
    starts = sorted(line.get_xdata()[0] for line in ax.lines
                    if len(line.get_xdata()) == 3)
    assert starts == pytest.approx(ranks)
    plt.close(fig)
    with pytest.raises(TypeError, match="rank_result must be"):
        plot_critical_difference({"a": 1})
