"""Gaps between groups: never a group against itself, the higher and the better group
named right, every group with a value counted (fairlearn as the oracle), and the
selection-aware and simultaneous intervals against a plain re-computation of their
formulas (evaluation/_simultaneous.py's notes)."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import dartboard
from dartboard.cli import app

fm = pytest.importorskip("fairlearn.metrics")


def _quiet_evaluate(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dartboard.evaluate(*args, **kwargs)


def _tied(n_groups: int):
    """Groups of 20 rows, each at 80% accuracy with 2 false negatives and 2 false
    positives: every metric ties."""
    y = np.tile(np.r_[np.ones(10, int), np.zeros(10, int)], n_groups)
    pred = np.tile(np.r_[np.ones(8, int), np.zeros(2, int), np.ones(2, int),
                         np.zeros(8, int)], n_groups)
    return y, pred, np.repeat(list("abcdefgh"[:n_groups]), 20)


def _pair(text: str) -> list[str]:
    return text.removeprefix("TPR: ").removeprefix("FPR: ").split(" vs ")


# ------------------------------------------------------------------ ties (issue 24.2)

def test_two_tied_groups_are_compared_with_an_interval_of_real_width():
    y, pred, g = _tied(2)
    ev = dartboard.evaluate(y, pred, metrics=["accuracy", "f1"], groups=g, random_state=0)
    diff, ratio = ev.difference(), ev.ratio()
    for table, no_gap in ((diff, 0.0), (ratio, 1.0)):
        assert table["groups"].tolist() == ["a vs b", "a vs b"]
        assert table["estimate"].tolist() == [no_gap, no_gap]
        assert table["higher"].isna().all() and table["better"].isna().all()
        assert (table["low"] < no_gap).all()
    assert (diff["high"] > 0).all()
    # min / max is at most 1: the ratio's interval of t_b / t_a is folded at 1
    assert (ratio["high"] == 1.0).all()
    assert ratio["method"].str.endswith("folded at 1: min / max").all()
    # Newcombe's interval for 16/20 - 16/20 (two Wilson intervals of 16/20)
    lw, uw = 0.5840, 0.9193  # Wilson 95% for 16/20
    assert diff.loc["accuracy", "low"] == pytest.approx(-np.hypot(0.8 - lw, uw - 0.8), abs=1e-4)
    assert diff.loc["accuracy", "method"].startswith("newcombe")


def test_all_tied_groups_show_no_gap_between_two_groups():
    y, pred, g = _tied(4)
    ev = dartboard.evaluate(y, pred, metrics=["accuracy", "f1"], groups=g, random_state=0,
                            n_resamples=500)
    diff = ev.difference()
    assert diff["groups"].tolist() == ["a vs b", "a vs b"]
    assert (diff["estimate"] == 0).all() and (diff["low"] == 0).all()
    assert (diff["high"] > 0.1).all()
    assert diff["method"].str.startswith("max-T, selection-aware (6 pairs)").all()
    pairs = ev.pairwise(["accuracy"])
    assert len(pairs) == 6 and pairs["higher"].isna().all()
    assert (pairs["low"] < 0).all() and (pairs["high"] > 0).all()


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 5), st.integers(3, 9), st.integers(0, 2 ** 16))
def test_a_gap_is_always_between_two_different_groups(n_groups, per_group, seed):
    """Small groups of few labels tie often; no row names a group twice, and the group
    named higher comes first."""
    rng = np.random.default_rng(seed)
    n = n_groups * per_group
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.7, y, 1 - y)
    g = np.repeat([f"g{i}" for i in range(n_groups)], per_group)
    y[:2], pred[:2] = [0, 1], [0, 1]  # both classes overall
    ev = _quiet_evaluate(y, pred, metrics=["accuracy", "f1", "recall", "selection_rate"],
                         groups=g, n_resamples=60, random_state=seed)
    tables = [ev.difference(), ev.ratio(), ev.fairness(), ev.pairwise().reset_index("groups")]
    for table in tables:
        for _, row in table.iterrows():
            if not row["groups"]:
                continue  # undefined in fewer than two groups
            first, second = _pair(row["groups"])
            assert first != second, row
            assert row["higher"] in (None, first) or pd.isna(row["higher"]), row


# ------------------------------------------------- higher and better (issue 25.2)

def _fpr_data():
    """'small' has FPR 2/9 = 0.222 and 'large' 1/18 = 0.056 (a lower-is-better rate)."""
    y = np.r_[np.zeros(9, int), np.ones(9, int), np.zeros(18, int), np.ones(18, int)]
    pred = np.r_[np.r_[np.ones(2, int), np.zeros(7, int)], np.r_[np.ones(7, int), 0, 0],
                 np.r_[1, np.zeros(17, int)], np.r_[np.ones(17, int), 0]]
    g = np.r_[["small"] * 18, ["large"] * 36]
    return y, pred, g


def test_lower_is_better_metric_names_the_lower_group_better():
    y, pred, g = _fpr_data()
    ev = dartboard.evaluate(y, pred, metrics=["false_positive_rate", "accuracy"], groups=g,
                            random_state=0)
    fpr = ev.difference().loc["false_positive_rate"]
    assert fpr["estimate"] == pytest.approx(2 / 9 - 1 / 18)
    assert (fpr["groups"], fpr["higher"], fpr["better"]) == ("small vs large", "small", "large")
    acc = ev.difference().loc["accuracy"]
    assert (acc["groups"], acc["higher"], acc["better"]) == ("large vs small", "large", "large")
    over = ev.difference("to_overall").loc["false_positive_rate"]
    assert (over["groups"], over["higher"], over["better"]) == \
        ("small vs overall", "small", "overall")
    pair = ev.pairwise(["false_positive_rate"]).loc[("false_positive_rate", "small vs large")]
    assert (pair["higher"], pair["better"]) == ("small", "large")
    fair = ev.fairness()
    eo = fair.loc["equalized_odds_difference"]
    assert eo["groups"] == "FPR: small vs large" and eo["better"] == "large"
    # the selection rate's better side depends on what is predicted: none named
    assert pd.isna(fair.loc["demographic_parity_difference", "better"])


def test_selection_rate_names_no_better_group_wherever_it_is_asked():
    # the registry says the selection rate has no better direction; difference() and
    # pairwise() once named one from a default (greater is better)
    y, pred, g = _fpr_data()
    pred = np.where(g == "small", 1, pred)  # 'small' selected more often
    ev = dartboard.evaluate(y, pred, metrics=["selection_rate"], groups=g, random_state=0)
    row = ev.difference().loc["selection_rate"]
    assert row["higher"] == "small" and pd.isna(row["better"])
    pair = ev.pairwise(["selection_rate"]).loc[("selection_rate", "small vs large")]
    assert pair["higher"] == "small" and pd.isna(pair["better"])


def test_notebook_report_and_cli_name_the_higher_and_better_group(tmp_path):
    y, pred, g = _fpr_data()
    ev = dartboard.evaluate(y, pred, metrics=["false_positive_rate"], groups=g,
                            random_state=0)
    assert "higher: small · better: large" in ev._repr_html_()
    ev.to_html(tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text()
    assert re.search(r"<td>false_positive_rate</td><td>small vs large</td><td>small</td>"
                     r"<td>large</td>", page)
    assert "best group minus the worst" not in page
    pd.DataFrame({"y": y, "p": pred, "g": g}).to_csv(tmp_path / "p.csv", index=False)
    res = CliRunner().invoke(app, ["evaluate", str(tmp_path / "p.csv"), "--y-true", "y",
                                   "--y-pred", "p", "--group", "g", "--n-resamples", "200"])
    assert res.exit_code == 0, res.output
    rows = [[c.strip() for c in line.split("│")] for line in res.stdout.splitlines()
            if "│" in line and "small > large" in line]
    assert any(r[0] == "false_positive_rate" and r[4:6] == ["small > large", "large"]
               for r in rows), res.stdout
    payload = json.loads(CliRunner().invoke(app, [
        "evaluate", str(tmp_path / "p.csv"), "--y-true", "y", "--y-pred", "p", "--group", "g",
        "--n-resamples", "200", "--json"]).stdout)
    row = [r for r in payload["difference"] if r["metric"] == "false_positive_rate"][0]
    assert (row["higher"], row["better"]) == ("small", "large")
    pair = [r for r in payload["pairwise"] if r["metric"] == "false_positive_rate"]
    assert [(r["groups"], r["higher"], r["better"]) for r in pair] == \
        [("small vs large", "small", "large")]


# -------------------------------------- undefined rates stay in the gaps (issue 29.2)

def _no_positives_in_c():
    """a: recall 1.0; b: recall 0.6; c: no positive samples (recall 0.0 by zero_division,
    F1 0.0 with no predicted positives either)."""
    y = np.r_[np.ones(5, int), np.zeros(5, int), np.ones(5, int), np.zeros(5, int),
              np.zeros(10, int)]
    pred = np.r_[np.ones(5, int), 1, np.zeros(4, int), np.ones(3, int), np.zeros(7, int),
                 np.zeros(10, int)]
    return y, pred, np.repeat(["a", "b", "c"], 10)


@pytest.mark.parametrize("weighted", [False, True])
def test_a_group_without_positives_counts_in_the_gaps_as_in_fairlearn(weighted):
    y, pred, g = _no_positives_in_c()
    w = np.full(y.shape[0], 0.5) if weighted else None
    metrics = {"recall": skm.recall_score, "f1": skm.f1_score}
    ev = _quiet_evaluate(y, pred, metrics=list(metrics), groups=g, sample_weight=w,
                         random_state=0, n_resamples=300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mf = fm.MetricFrame(metrics=metrics, y_true=y, y_pred=pred, sensitive_features=g,
                            sample_params=None if w is None else
                            {k: {"sample_weight": w} for k in metrics})
        eo = fm.equal_opportunity_difference(y, pred, sensitive_features=g, sample_weight=w)
    np.testing.assert_allclose(ev.estimates_by_group()[list(metrics)], mf.by_group, atol=1e-12)
    diff = ev.difference()
    np.testing.assert_allclose(diff["estimate"], mf.difference()[list(metrics)], atol=1e-12)
    assert diff.loc["recall", "estimate"] == 1.0 and diff.loc["recall", "groups"] == "a vs c"
    np.testing.assert_allclose(ev.ratio()["estimate"], mf.ratio()[list(metrics)], atol=1e-12)
    np.testing.assert_allclose(ev.group_min()["estimate"], mf.group_min()[list(metrics)])
    assert ev.fairness().loc["equal_opportunity_difference", "estimate"] == pytest.approx(eo)
    # c's value is a convention no resample can vary: the interval, not the estimate, is
    # what is undefined
    assert np.isnan(diff.loc["recall", "low"])
    assert diff.loc["recall", "method"].startswith("n/a")
    c_row = ev.by_group.loc[("c", "f1")]
    assert c_row["estimate"] == 0.0 and c_row["method"].startswith("n/a")
    if not weighted:  # whole counts: a and b still have their own pair interval
        ab = ev.pairwise(["recall"]).loc[("recall", "a vs b")]
        assert ab["low"] < 0.4 < ab["high"]


# --------------------------------------- the intervals, against their formulas

def _oracle(values, reps, sizes, level, kind):
    """The module notes' formulas, written out pair by pair (no chunks, no masks)."""
    g_count = sizes.shape[0]
    n = np.append(sizes, sizes.sum()).astype(float)
    dev = (reps - values) * np.sqrt(n / (n - 1))
    v = sum(n[g] ** 2 * np.var(dev[:, g], ddof=1) for g in range(g_count)) / n[:-1].sum()
    if kind == "between_groups":
        pairs = [(i, j) for i in range(g_count) for j in range(g_count) if i != j]
        scale = [np.sqrt(v * (1 / n[i] + 1 / n[j])) for i, j in pairs]
    else:
        pairs = [(i, g_count) for i in range(g_count)] + [(g_count, i) for i in range(g_count)]
        scale = [np.sqrt(v * (1 / n[min(i, j)] - 1 / n[-1])) for i, j in pairs]
    d = np.array([values[i] - values[j] for i, j in pairs])
    s = np.array(scale)
    z = np.column_stack([(dev[:, i] - dev[:, j]) / s[k] for k, (i, j) in enumerate(pairs)])
    alpha = 1 - level
    c = np.quantile(np.abs(z).max(axis=1), level)
    c_b = np.quantile(z.max(axis=1), 1 - alpha / 10)
    reach = max(d[k] - c_b * s[k] for k in range(len(pairs)))
    cand = [k for k in range(len(pairs)) if d[k] + c_b * s[k] >= reach]
    c_low = np.quantile(z[:, cand].max(axis=1), 1 - 0.7 * alpha)
    low = max(0.0, max(d[k] - c_low * s[k] for k in cand))
    high = max(d[k] - np.quantile(z[:, k], 0.2 * alpha) * s[k] for k in cand)
    return pairs, d, d - c * s, d + c * s, low, max(high, d.max())


@pytest.mark.parametrize("kind", ["between_groups", "to_overall"])
def test_largest_gap_and_pairs_follow_their_formulas(kind):
    rng = np.random.default_rng(3)
    sizes = np.array([40, 90, 60, 150])
    g = np.repeat(list("abcd"), sizes)
    y = rng.integers(0, 2, g.shape[0])
    pred = np.where(rng.random(g.shape[0]) < np.where(g == "d", 0.65, 0.8), y, 1 - y)
    ev = dartboard.evaluate(y, pred, metrics=["accuracy", "f1"], groups=g, random_state=1,
                            n_resamples=800)
    for label in ("accuracy", "f1"):
        values = np.append(ev.estimates_by_group()[label].to_numpy(),
                           ev.overall.loc[label, "estimate"])
        reps = ev._gaps.replicates(label)
        pairs, d, lows, highs, low, high = _oracle(values, reps, sizes, 0.95, kind)
        row = ev.difference(kind).loc[label]
        assert row["estimate"] == pytest.approx(d.max(), abs=1e-12)
        assert (row["low"], row["high"]) == pytest.approx((low, high), abs=1e-12)
        assert row["method"] == ("max-T, selection-aware (6 pairs)"
                                 if kind == "between_groups" else
                                 "max-T, selection-aware (4 group-overall gaps)")
        if kind == "between_groups":
            table = ev.pairwise([label]).loc[label]
            names = "abcd"
            for k, (i, j) in enumerate(pairs):
                if d[k] > 0:
                    got = table.loc[f"{names[i]} vs {names[j]}"]
                    assert (got["low"], got["high"]) == pytest.approx((lows[k], highs[k]),
                                                                      abs=1e-12)
                    assert got["method"] == "max-T, simultaneous (6 pairs)"


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 6), st.integers(20, 120), st.integers(1, 50), st.integers(0, 2 ** 16))
def test_chunked_maxima_and_quantiles_equal_the_plain_formulas(g_count, r, chunk, seed):
    """Z* is formed a few columns at a time (bounded memory): the same numbers as all at
    once, whatever the chunk."""
    from dartboard.evaluation import _simultaneous

    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 60, g_count)
    values = np.append(rng.random(g_count), 0.5)
    reps = values + rng.normal(scale=0.1, size=(r, g_count + 1))
    for kind in ("between_groups", "to_overall"):
        pairs, d, lows, highs, low, high = _oracle(values, reps, sizes, 0.9, kind)
        family = _simultaneous.contrasts(values, reps, sizes, kind)
        old = _simultaneous._CHUNK
        try:
            _simultaneous._CHUNK = chunk * r
            found = _simultaneous.largest(family, 0.9)
            got_low, got_high = _simultaneous.simultaneous(family, 0.9)
        finally:
            _simultaneous._CHUNK = old
        assert (found.low, found.high) == pytest.approx((low, high), abs=1e-12)
        np.testing.assert_allclose(got_low, lows, atol=1e-12)
        np.testing.assert_allclose(got_high, highs, atol=1e-12)


def test_ratio_is_the_largest_gap_of_log_values():
    rng = np.random.default_rng(8)
    g = np.repeat(list("abc"), 200)
    y = rng.integers(0, 2, 600)
    pred = np.where(rng.random(600) < np.where(g == "c", 0.7, 0.85), y, 1 - y)
    ev = dartboard.evaluate(y, pred, metrics=["accuracy"], groups=g, random_state=2)
    values = np.append(ev.estimates_by_group()["accuracy"].to_numpy(),
                       ev.overall.loc["accuracy", "estimate"])
    reps = ev._gaps.replicates("accuracy")
    *_, low, high = _oracle(np.log(values), np.log(reps), np.array([200] * 3), 0.95,
                            "between_groups")
    row = ev.ratio().loc["accuracy"]
    assert row["estimate"] == pytest.approx(values[:3].min() / values[:3].max())
    assert (row["low"], row["high"]) == pytest.approx((np.exp(-high), np.exp(-low)), abs=1e-12)


def test_equalized_odds_of_two_groups_picks_one_of_two_gaps_aware_of_it():
    y, pred, g = _fpr_data()
    fair = dartboard.evaluate(y, pred, groups=g, random_state=0).fairness()
    assert fair.loc["equalized_odds_difference", "method"] == \
        "max-T, selection-aware (2 pairs)"
    assert fair.loc["equal_opportunity_difference", "method"].startswith("newcombe")


def test_a_clear_gap_has_a_low_end_above_zero_and_a_small_one_does_not():
    rng = np.random.default_rng(4)
    g = np.repeat(list("abcde"), 400)
    y = rng.integers(0, 2, g.shape[0])
    clear = np.where(rng.random(g.shape[0]) < np.where(g == "e", 0.6, 0.9), y, 1 - y)
    none = np.where(rng.random(g.shape[0]) < 0.8, y, 1 - y)
    for pred, positive in ((clear, True), (none, False)):
        row = dartboard.evaluate(y, pred, metrics=["accuracy"], groups=g,
                                 random_state=0).difference().loc["accuracy"]
        assert bool(row["low"] > 0) is positive
        assert row["low"] <= row["estimate"] <= row["high"]


@pytest.mark.slow
def test_null_data_sets_exclude_zero_rarely():
    """Four groups of equal accuracy: the largest gap's interval excludes 0 in at most
    5% of data sets (binomial margin for 300), the pair-as-named-in-advance one in ~20%."""
    rng = np.random.default_rng(0)
    new = old = 0
    for i in range(300):
        g = np.repeat(list("abcd"), 50)
        y = rng.integers(0, 2, 200)
        pred = np.where(rng.random(200) < 0.8, y, 1 - y)
        ev = dartboard.evaluate(y, pred, metrics=["accuracy"], groups=g, random_state=i,
                                n_resamples=1000)
        row = ev.difference().loc["accuracy"]
        new += row["low"] > 0
        old += ev.pairwise(["accuracy"], simultaneous=False).loc[
            ("accuracy", row["groups"]), "low"] > 0
    assert new / 300 <= 0.075 and old / 300 >= 0.12
