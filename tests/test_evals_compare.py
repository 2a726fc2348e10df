"""dartboard.evals.compare and sample_size against independent references:
statsmodels' cluster-robust OLS of the paired differences, scipy's paired t-test,
scipy's multivariate t sampler for max-T, statsmodels' t-test power."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dartboard.evals import (
    EvalComparison,
    EvalKComparison,
    compare,
    interval,
    load,
    sample_size,
)
from dartboard.evals._plan import plan_power
from dartboard.exceptions import InputError, InputTypeError

DATA = Path(__file__).parent / "data" / "evals"
LM_A = next((DATA / "lm_eval" / "model_a").glob("samples_*.jsonl"))
LM_B = next((DATA / "lm_eval" / "model_b").glob("samples_*.jsonl"))


def _benchmark(seed, n_passages=40, per=5, answers=3, models=2, icc=0.3, own_icc=0.0):
    """A synthetic benchmark: passages of questions, several answers, correlated models."""
    rng = np.random.default_rng(seed)
    passage = rng.normal(0, np.sqrt(icc), n_passages).repeat(per)
    question = rng.normal(0, np.sqrt(1 - icc), n_passages * per)
    runs = []
    for j in range(models):
        own = rng.normal(0, 0.5 * np.sqrt(1 - own_icc), n_passages * per) + rng.normal(
            0, 0.5 * np.sqrt(own_icc), n_passages).repeat(per)
        p = stats.norm.cdf(0.2 * j + passage + question + own)
        scores = rng.random((answers, p.shape[0])) < p
        frame = pd.DataFrame({"question": np.tile(np.arange(p.shape[0]), answers),
                              "epoch": np.arange(answers).repeat(p.shape[0]),
                              "passage": np.tile(np.arange(p.shape[0]) // per, answers),
                              "score": scores.ravel().astype(float)})
        runs.append(load(frame, cluster="passage", name=f"m{j}"))
    return runs


def _cluster_se(values, groups):
    sm = pytest.importorskip("statsmodels.api")
    fit = sm.OLS(values, np.ones((len(values), 1))).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(groups)[0]})
    return float(fit.bse[0])


def _question_means(run):
    return run.table.groupby("question", sort=True).agg(score=("score", "mean"),
                                                        cluster=("cluster", "first"))


def test_paired_clustered_difference_equals_statsmodels():
    a, b = _benchmark(0)
    res = compare(a, b)
    ma, mb = _question_means(a), _question_means(b)
    d = (ma["score"] - mb["score"]).to_numpy()
    assert isinstance(res, EvalComparison)
    assert res.difference == pytest.approx(d.mean(), abs=1e-14)
    assert res.difference == pytest.approx(interval(a).estimate - interval(b).estimate)
    assert res.standard_error == pytest.approx(_cluster_se(d, ma["cluster"].to_numpy()),
                                               rel=1e-10)
    t = res.difference / res.standard_error
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 39), rel=1e-10)
    q = stats.t.ppf(0.975, 39)
    assert (res.low, res.high) == pytest.approx((res.difference - q * res.standard_error,
                                                 res.difference + q * res.standard_error))
    assert res.unpaired_standard_error == pytest.approx(np.hypot(
        interval(a).naive_standard_error, interval(b).naive_standard_error))
    assert res.correlation == pytest.approx(np.corrcoef(ma["score"], mb["score"])[0, 1])


def test_paired_without_clusters_is_scipys_paired_t_test():
    a = load(LM_A, name="a")
    b = load(LM_B, name="b")
    res = compare(a, b)
    xa = [json.loads(line)["acc"] for line in LM_A.read_text().splitlines()]
    xb = [json.loads(line)["acc"] for line in LM_B.read_text().splitlines()]
    ref = stats.ttest_rel(xa, xb)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.standard_error == pytest.approx(res.naive_standard_error)
    assert res.n_clusters is None and res.method == "paired t"


def test_questions_are_paired_by_id_not_by_row_order():
    a, b = _benchmark(1)
    shuffled = b.table.sample(frac=1.0, random_state=0)
    b2 = load(shuffled, cluster="cluster", name="m1")
    assert compare(a, b2).difference == pytest.approx(compare(a, b).difference, abs=1e-15)


def test_runs_on_other_questions_or_hashes_are_refused(tmp_path):
    a = load(LM_A, name="a")
    lines = LM_B.read_text().splitlines()
    fewer = tmp_path / LM_B.name
    fewer.write_text("\n".join(lines[:-2]) + "\n")
    with pytest.raises(InputError, match=r"runs 'a' and 'b' are not on the same questions: "
                                         r"2 only in 'a' \(28, 29\), 0 only in 'b'"):
        compare(a, load(fewer, name="b"))
    changed = json.loads(lines[4])
    changed["doc_hash"] = "0" * 64
    edited = tmp_path / "edited" / LM_B.name
    edited.parent.mkdir()
    edited.write_text("\n".join(lines[:4] + [json.dumps(changed)] + lines[5:]) + "\n")
    with pytest.raises(InputError, match=r"question 4 has doc_hash .* in 'a' and '0000.* "
                                         r"in 'b' \(1 questions differ\)"):
        compare(a, load(edited, name="b"))
    other = {i: i % 3 for i in range(30)}
    with pytest.raises(InputError, match="put the questions in different clusters"):
        compare(load(LM_A, cluster="doc.passage_id"), load(LM_B, cluster=other))
    with pytest.raises(InputError, match="at least two runs; got 1"):
        compare(a)
    with pytest.raises(InputTypeError, match=r"runs\[1\] must be a Run"):
        compare(a, "b.jsonl")


def test_clusters_of_one_run_serve_both():
    a = load(LM_A, cluster="doc.passage_id", name="a")
    b = load(LM_B, name="b")
    assert compare(a, b).n_clusters == 6 and compare(b, a).n_clusters == 6


def test_k_runs_pairs_and_max_t():
    runs = _benchmark(2, models=4)
    res = compare(*runs, random_state=0, n_draws=200_000)
    assert isinstance(res, EvalKComparison)
    assert len(res.pairwise) == 6
    means = [_question_means(r)["score"].to_numpy() for r in runs]
    clusters = _question_means(runs[0])["cluster"].to_numpy()
    for row in res.pairwise.itertuples():
        i, j = int(row.a[1:]), int(row.b[1:])
        d = means[i] - means[j]
        assert row.difference == pytest.approx(d.mean(), abs=1e-14)
        assert row.standard_error == pytest.approx(_cluster_se(d, clusters), rel=1e-10)
        # each pair equals the two-run comparison
        two = compare(runs[i], runs[j])
        assert row.pvalue == pytest.approx(two.pvalue, rel=1e-10)
    p, adj = res.pairwise["pvalue"], res.pairwise["pvalue_adjusted"]
    assert np.all(adj >= p - 1e-12) and np.all(adj <= np.minimum(6 * p, 1) + 0.01)
    dof = res.degrees_of_freedom
    assert stats.t.ppf(0.975, dof) < res.critical_value < stats.t.ppf(1 - 0.025 / 6, dof)


def test_max_t_critical_value_matches_scipys_multivariate_t():
    """The same law drawn by scipy's sampler: the quantile of max |t| over the pairs."""
    runs = _benchmark(3, models=3)
    res = compare(*runs, random_state=1, n_draws=200_000)
    from dartboard.evals._compare import covariance
    from dartboard.evals._paired import paired

    s = covariance(paired(runs))
    dof = res.degrees_of_freedom
    draws = stats.multivariate_t(loc=np.zeros(3), shape=s, df=dof).rvs(
        size=200_000, random_state=np.random.default_rng(7))
    i, j = np.triu_indices(3, 1)
    se = np.sqrt(s[i, i] + s[j, j] - 2 * s[i, j])
    max_t = np.max(np.abs(draws[:, i] - draws[:, j]) / se, axis=1)
    assert res.critical_value == pytest.approx(np.quantile(max_t, 0.95), rel=0.01)
    first = res.pairwise.iloc[0]
    assert first["pvalue_adjusted"] == pytest.approx(
        np.mean(max_t >= abs(first["statistic"])), abs=0.005)


def test_k_runs_seeded_and_simultaneous():
    runs = _benchmark(4, models=3)
    one = compare(*runs, random_state=5, n_draws=20_000)
    two = compare(*runs, random_state=5, n_draws=20_000)
    pd.testing.assert_frame_equal(one.pairwise, two.pairwise)
    rows = one.pairwise
    half = rows["high"] - rows["difference"]
    assert np.allclose(half, one.critical_value * rows["standard_error"])


# ------------------------------------------------------------------------- sample size

def test_power_equals_statsmodels_t_test_power():
    power_mod = pytest.importorskip("statsmodels.stats.power")
    # without clusters: the paired t-test of effect size difference / sd
    plan = sample_size(0.03, sd=0.5)
    ref = power_mod.TTestPower().solve_power(effect_size=0.06, alpha=0.05, power=0.8)
    assert plan.questions == int(np.ceil(ref))
    # clusters of 5 with icc 0.2 and 3 answers: a one-sample t on G cluster means
    g, m, k, sd, rho, omega = 60, 5, 3, 0.4, 0.2, 0.6
    var_cluster_mean = (sd ** 2 * (1 + (m - 1) * rho) + omega ** 2 / k) / m
    es = 0.05 / np.sqrt(var_cluster_mean)
    assert plan_power(g, m, k, 0.05, sd, rho, omega, 0.05) == pytest.approx(
        power_mod.TTestPower().power(effect_size=es, nobs=g, alpha=0.05), rel=1e-8)


def test_plan_is_the_smallest_reaching_the_target():
    plan = sample_size(0.04, sd=0.45, icc=0.3, within_sd=0.5, cluster_size=4, answers=2)
    args = (4, 2, 0.04, 0.45, 0.3, 0.5, 0.05)
    assert plan.power >= 0.8 > plan_power(plan.clusters - 1, *args)
    assert plan.questions == plan.clusters * 4
    assert plan.design_effect == pytest.approx(1 + 3 * 0.3)
    alt = plan.alternatives.set_index("answers")
    # more answers per question: fewer questions, never more
    assert alt["questions"].is_monotonic_decreasing
    assert alt.loc[2, "questions"] == plan.questions


def test_plan_from_a_pilot_measures_its_variance_parts():
    a, b = _benchmark(5, n_passages=400, per=5, answers=4, own_icc=0.5)
    plan = sample_size(0.05, pilot=(a, b))
    assert plan.source == "pilot" and plan.cluster_size == 5 and plan.answers == 4
    # the measured parts reproduce the pilot's own clustered variance
    res = compare(a, b)
    n = res.n_questions
    var = (plan.sd ** 2 * plan.design_effect + plan.within_sd ** 2 / 4) / n
    assert np.sqrt(var) == pytest.approx(res.standard_error, rel=0.02)
    wa = interval(a).within_sd ** 2
    wb = interval(b).within_sd ** 2
    assert plan.within_sd == pytest.approx(np.sqrt(wa + wb), rel=1e-12)
    assert 0.0 < plan.icc < 1.0
    # explicit values win over the pilot's
    assert sample_size(0.05, pilot=(a, b), icc=0.0).icc == 0.0


def test_sample_size_arguments():
    with pytest.raises(InputError, match="give sd"):
        sample_size(0.02)
    with pytest.raises(InputError, match="difference must not be 0"):
        sample_size(0.0, sd=0.5)
    with pytest.raises(InputError, match="icc must be at most 1"):
        sample_size(0.02, sd=0.5, icc=2)
    with pytest.raises(InputTypeError, match="pilot must be a pair of runs"):
        sample_size(0.02, pilot="runs")
    with pytest.raises(InputError, match="power must be greater than 0.05"):
        sample_size(0.02, sd=0.5, power=0.01)
    with pytest.raises(InputError, match="more than 100_000_000 clusters"):
        sample_size(1e-7, sd=0.5)


def test_pilot_whose_icc_reaches_its_bound_keeps_its_variance():
    """A small question-level sd under much answer noise: the ICC estimate passes 1,
    is clipped, and sd is raised so the plan reproduces the pilot's clustered variance."""
    rng = np.random.default_rng(3)
    passage = np.repeat(np.arange(150), 5)
    difficulty = 1.2 * rng.normal(size=150)[passage] + rng.normal(size=750)
    runs = []
    for name, skill in (("a", 0.6), ("b", 0.35)):
        own = 0.5 * rng.normal(size=150)[passage] + 0.5 * rng.normal(size=750)
        p = 1 / (1 + np.exp(-(skill + own - difficulty)))
        right = rng.random((3, 750)) < p
        runs.append(load(pd.DataFrame({"question": np.tile(np.arange(750), 3),
                                       "epoch": np.repeat(np.arange(3), 750),
                                       "passage": np.tile(passage, 3),
                                       "score": right.ravel() * 1.0}),
                         cluster="passage", name=name))
    plan = sample_size(0.03, pilot=tuple(runs))
    assert plan.icc == 1.0
    res = compare(*runs)
    var = (plan.sd ** 2 * plan.design_effect + plan.within_sd ** 2 / 3) / 750
    assert np.sqrt(var) == pytest.approx(res.standard_error, rel=1e-9)


def _unequal_passages(seed: int):
    rng = np.random.default_rng(seed)
    sizes = np.array([1, 2, 2, 3, 5, 8, 13, 40, 2, 6, 3, 25, 4, 1, 9, 30, 2, 7, 3, 11, 5, 2,
                      60, 4, 3, 2, 1, 18, 6, 2, 3, 44, 5, 2])
    passage = np.repeat(np.arange(sizes.shape[0]), sizes)
    n = passage.shape[0]
    effect = rng.normal(size=sizes.shape[0])[passage]
    scores = [(effect + rng.normal(size=n) > 0.2 * j).astype(float) for j in range(3)]
    runs = [load(pd.DataFrame({"question": np.arange(n), "passage": passage, "score": s}),
                 cluster="passage", name=f"m{j}") for j, s in enumerate(scores)]
    return passage, scores, runs


@pytest.mark.parametrize("seed", [0, 1])
def test_unequal_passages_take_cr2_and_small_sample_df(seed):
    """With passages of unequal sizes the interval is CR2 (Bell and McCaffrey from the
    hat matrix) on the Satterthwaite df of a cluster effect, and compare(a, b) the CR2
    difference on the df of a working model fitted by NNLS; both oracles with dense
    matrices (tests/_cluster_oracles.py). k runs take the fewest of the pairs' df."""
    from _cluster_oracles import bell_mccaffrey_se, satterthwaite_df
    from scipy.optimize import nnls

    passage, scores, runs = _unequal_passages(seed)
    n = passage.shape[0]
    res = interval(runs[0])
    se = bell_mccaffrey_se(scores[0], passage)
    df = satterthwaite_df(passage)
    assert res.standard_error == pytest.approx(se, rel=1e-10)
    assert res.degrees_of_freedom == pytest.approx(df, rel=1e-8)
    assert df < 33  # fewer than G - 1
    q = stats.t.ppf(0.975, df)
    assert res.low == pytest.approx(max(scores[0].mean() - q * se, 0.0), rel=1e-9)
    assert res.method == f"t-clustered (CR2, {passage.max() + 1} clusters)"

    def paired_df(d):
        sizes = np.bincount(passage).astype(float)
        squares = np.bincount(passage, weights=d - d.mean()) ** 2 / (1 - sizes / n)
        (alpha, beta), _ = nnls(np.column_stack([sizes, sizes ** 2]), squares)
        return satterthwaite_df(passage, alpha, beta)

    d = scores[0] - scores[1]
    two = compare(runs[0], runs[1])
    se_d = bell_mccaffrey_se(d, passage)
    assert two.standard_error == pytest.approx(se_d, rel=1e-10)
    assert two.degrees_of_freedom == pytest.approx(paired_df(d), rel=1e-8)
    assert two.pvalue == pytest.approx(
        2 * stats.t.sf(abs(d.mean()) / se_d, paired_df(d)), rel=1e-8)
    many = compare(*runs, random_state=0, n_draws=2000)
    fewest = min(paired_df(scores[a] - scores[b]) for a, b in ((0, 1), (0, 2), (1, 2)))
    assert many.degrees_of_freedom == pytest.approx(fewest, rel=1e-8)
    assert many.pairwise["standard_error"].iloc[0] == pytest.approx(se_d, rel=1e-10)
