"""``dartboard.evaluate``: rows, groups and gaps against fairlearn's MetricFrame
(a test-only oracle), the grouped bootstrap against a row-resampling one, output
forms and bad input."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm

import dartboard
from dartboard.metrics import false_positive_rate, selection_rate

fm = pytest.importorskip("fairlearn.metrics")

COUNT_METRICS = {"accuracy": skm.accuracy_score, "precision": skm.precision_score,
                 "recall": skm.recall_score, "f1": skm.f1_score,
                 "balanced_accuracy": skm.balanced_accuracy_score,
                 "selection_rate": fm.selection_rate,
                 "false_positive_rate": fm.false_positive_rate}


def _data(seed: int, n: int = 600, n_cols: int = 1, tiny: bool = False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.75, y, 1 - y)
    cols = {f"g{j}": rng.choice(["a", "b", "c"][: 2 + (j % 2)], n).astype(object)
            for j in range(n_cols)}
    if tiny:
        # a group of one sample and a group with one class only
        cols["g0"][0] = "solo"
        one_class = np.flatnonzero(y == 1)[:5]
        cols["g0"][one_class] = "ones"
    return y, pred, pd.DataFrame(cols), rng.integers(1, 4, n)


def _frame(y, pred, groups, w):
    params = None if w is None else {k: {"sample_weight": w} for k in COUNT_METRICS}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fm.MetricFrame(metrics=COUNT_METRICS, y_true=y, y_pred=pred,
                              sensitive_features=groups, sample_params=params)


@pytest.mark.parametrize("n_cols", [1, 2, 3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("tiny", [False, True])
def test_groups_and_gaps_equal_fairlearn(n_cols, weighted, tiny):
    y, pred, groups, w = _data(n_cols * 10 + weighted + 5 * tiny, n_cols=n_cols, tiny=tiny)
    w = w if weighted else None
    if n_cols == 1:
        groups = groups["g0"]  # a Series, one column
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = dartboard.evaluate(y, pred, metrics=list(COUNT_METRICS), groups=groups,
                                sample_weight=w, n_resamples=200, random_state=1)
        mf = _frame(y, pred, groups, w)
        ours = ev.estimates_by_group()
        # fairlearn lists every combination of the columns' values, unobserved ones as
        # all-nan rows; dartboard lists the observed groups (a documented difference)
        theirs = mf.by_group[list(COUNT_METRICS)].dropna(how="all")
        assert list(ours.index) == list(theirs.index)
        np.testing.assert_allclose(ours.to_numpy(float), theirs.to_numpy(float), atol=1e-12)
        np.testing.assert_allclose(ev.overall["estimate"], mf.overall[list(COUNT_METRICS)],
                                   atol=1e-12)
        for method in ("between_groups", "to_overall"):
            np.testing.assert_allclose(ev.difference(method)["estimate"],
                                       mf.difference(method)[list(COUNT_METRICS)], atol=1e-12)
            np.testing.assert_allclose(ev.ratio(method)["estimate"],
                                       mf.ratio(method)[list(COUNT_METRICS)], atol=1e-12)
        np.testing.assert_allclose(ev.group_min()["estimate"],
                                   mf.group_min()[list(COUNT_METRICS)], atol=1e-12)
        np.testing.assert_allclose(ev.group_max()["estimate"],
                                   mf.group_max()[list(COUNT_METRICS)], atol=1e-12)
        fair = ev.fairness()
        for method in ("between_groups", "to_overall"):
            fair = ev.fairness(method)
            kw = dict(sensitive_features=groups, sample_weight=w, method=method)
            for name in ("demographic_parity_difference", "demographic_parity_ratio",
                         "equalized_odds_difference", "equalized_odds_ratio",
                         "equal_opportunity_difference", "equal_opportunity_ratio"):
                assert fair.loc[name, "estimate"] == pytest.approx(
                    getattr(fm, name)(y, pred, **kw), abs=1e-12), (name, method)


def test_every_gap_interval_holds_its_estimate():
    y, pred, groups, _ = _data(3, n=2000)
    ev = dartboard.evaluate(y, pred, groups=groups["g0"], n_resamples=500, random_state=0)
    for table in (ev.difference(), ev.difference("to_overall"), ev.ratio(),
                  ev.ratio("to_overall"), ev.fairness()):
        assert (table["low"] <= table["estimate"] + 1e-12).all()
        assert (table["estimate"] <= table["high"] + 1e-12).all()
        assert (table["high"] > table["low"]).all()


def _plain_f1(y_true, y_pred, sample_weight=None):
    # F1 by its formula in plain numpy (scikit-learn's f1_score gives the same, checked
    # below): the row-resampling oracle calls it 24,000 times, and scikit-learn's
    # argument checks cost a millisecond a call
    w = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight, float)
    tp = np.sum(w * ((y_true == 1) & (y_pred == 1)))
    wrong = np.sum(w * (y_true != y_pred))
    return 0.0 if tp == 0 else float(2 * tp / (2 * tp + wrong))


@pytest.mark.parametrize("weighted", [False, True])
def test_count_gaps_agree_with_row_resampling(weighted):
    """The multinomial-per-group sampler against resampling each group's rows and
    calling scikit-learn (the same bootstrap, another sampler): quantiles agree within
    Monte Carlo error."""
    y, pred, groups, w = _data(11, n=1500)
    for weights in (None, w):
        assert _plain_f1(y, pred, weights) == pytest.approx(
            skm.f1_score(y, pred, sample_weight=weights), abs=1e-12)
    ev = dartboard.evaluate(y, pred, metrics=["f1", _plain_f1],
                            groups=groups["g0"], sample_weight=w if weighted else None,
                            n_resamples=3000, random_state=2)
    for method in ("between_groups", "to_overall"):
        d = ev.difference(method)
        assert d.loc["f1", "estimate"] == pytest.approx(d.loc["_plain_f1", "estimate"],
                                                        abs=1e-12)
        assert d.loc["f1", "groups"] == d.loc["_plain_f1", "groups"]
        assert d.loc["f1", "method"] == d.loc["_plain_f1", "method"] == \
            "percentile (grouped bootstrap)"
        for col in ("low", "high"):
            assert d.loc["f1", col] == pytest.approx(d.loc["_plain_f1", col],
                                                     abs=0.008), (method, col)


# Newcombe (1998), Statistics in Medicine 17:873-890, Table II, method 10 (hybrid
# score interval from Wilson intervals): x1/n1 - x2/n2 -> 95% limits
NEWCOMBE_TABLE_II = [((56, 70, 48, 80), (0.0524, 0.3339)), ((9, 10, 3, 10), (0.1705, 0.8090)),
                     ((6, 7, 2, 7), (0.0582, 0.8062)), ((5, 56, 0, 29), (-0.0381, 0.1926)),
                     ((0, 10, 0, 20), (-0.1611, 0.2775)), ((0, 10, 0, 10), (-0.2775, 0.2775))]


@pytest.mark.parametrize("counts, limits", NEWCOMBE_TABLE_II)
def test_between_group_difference_of_a_proportion_is_newcombes(counts, limits):
    xa, na, xb, nb = counts
    y = np.ones(na + nb, dtype=int)
    pred = np.r_[np.ones(xa, int), np.zeros(na - xa, int), np.ones(xb, int),
                 np.zeros(nb - xb, int)]
    g = np.r_[["a"] * na, ["b"] * nb]
    d = dartboard.evaluate(y, pred, metrics=["accuracy"], groups=g,
                           random_state=0).difference().loc["accuracy"]
    assert d["estimate"] == pytest.approx(xa / na - xb / nb)
    assert (round(d["low"], 4), round(d["high"], 4)) == limits
    assert d["method"].startswith("newcombe")


def test_gap_replicates_equal_a_hand_computed_difference():
    """Two groups: the between-groups interval is the percentile interval of
    acc[a] - acc[b] over replicates; its spread matches the binomial variance."""
    rng = np.random.default_rng(5)
    n = 4000
    g = np.repeat(["x", "y"], n // 2)
    y = rng.integers(0, 2, n)
    correct = rng.random(n) < np.where(g == "x", 0.8, 0.7)
    pred = np.where(correct, y, 1 - y)
    ev = dartboard.evaluate(y, pred, metrics=["accuracy"], groups=g, n_resamples=4000,
                            random_state=3)
    d = ev.difference().loc["accuracy"]
    px, py = (correct[g == "x"].mean(), correct[g == "y"].mean())
    assert d["estimate"] == pytest.approx(px - py)
    se = np.sqrt(px * (1 - px) / (n // 2) + py * (1 - py) / (n // 2))
    assert (d["high"] - d["low"]) / (2 * 1.959964) == pytest.approx(se, rel=0.06)


def test_same_seed_same_numbers_in_any_order():
    y, pred, groups, _ = _data(7)
    a = dartboard.evaluate(y, pred, groups=groups["g0"], n_resamples=300, random_state=9)
    b = dartboard.evaluate(y, pred, groups=groups["g0"], n_resamples=300, random_state=9)
    fair_first = b.fairness()
    pd.testing.assert_frame_equal(a.difference(), b.difference())
    pd.testing.assert_frame_equal(a.fairness(), fair_first)
    pd.testing.assert_frame_equal(a.by_group, b.by_group)


def test_score_and_regression_gaps_use_row_resampling():
    rng = np.random.default_rng(4)
    n = 800
    y = rng.integers(0, 2, n)
    score = np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1)
    g = rng.choice(["p", "q"], n)
    ev = dartboard.evaluate(y, y_score=score, metrics=["roc_auc", "log_loss"], groups=g,
                            n_resamples=200, random_state=0)
    aucs = [skm.roc_auc_score(y[g == k], score[g == k]) for k in ("p", "q")]
    d = ev.difference().loc["roc_auc"]
    assert d["estimate"] == pytest.approx(max(aucs) - min(aucs))
    assert d["low"] < d["estimate"] < d["high"]
    yr = rng.normal(size=n)
    pr = yr + rng.normal(scale=np.where(g == "p", 0.5, 1.0))
    reg = dartboard.evaluate(yr, pr, groups=g, metrics=["mean_absolute_error"],
                             n_resamples=200, random_state=0)
    maes = [skm.mean_absolute_error(yr[g == k], pr[g == k]) for k in ("p", "q")]
    assert reg.difference().loc["mean_absolute_error", "estimate"] == pytest.approx(
        max(maes) - min(maes))
    with pytest.raises(ValueError, match="binary"):
        reg.fairness()


def test_overall_rows_equal_sklearn_and_interval():
    rng = np.random.default_rng(8)
    n = 500
    y = rng.integers(0, 2, n)
    score = np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1)
    ev = dartboard.evaluate(y, y_score=score, random_state=0, n_resamples=300)
    pred = (score >= 0.5).astype(int)
    assert ev.overall.loc["f1", "estimate"] == pytest.approx(skm.f1_score(y, pred))
    assert ev.overall.loc["roc_auc", "estimate"] == pytest.approx(skm.roc_auc_score(y, score))
    assert ev.overall.loc["log_loss", "estimate"] == pytest.approx(skm.log_loss(y, score))
    iv = dartboard.interval(dartboard.metrics.accuracy_score, y, pred)
    assert ev.overall.loc["accuracy", ["low", "high"]].tolist() == pytest.approx(
        [iv.low, iv.high])
    assert set(ev.overall.columns) == {"estimate", "low", "high", "method", "n"}


def test_pos_label_and_string_labels():
    rng = np.random.default_rng(2)
    n = 400
    y = rng.choice(["no", "yes"], n)
    s_yes = np.clip((y == "yes") * 0.3 + 0.7 * rng.random(n), 0, 1)
    ev = dartboard.evaluate(y, y_score=1 - s_yes, pos_label="no",
                            metrics=["recall", "roc_auc", "average_precision"],
                            random_state=0, n_resamples=200)
    pred = np.where(1 - s_yes >= 0.5, "no", "yes")
    assert ev.overall.loc["recall", "estimate"] == pytest.approx(
        skm.recall_score(y, pred, pos_label="no"))
    assert ev.overall.loc["roc_auc", "estimate"] == pytest.approx(
        skm.roc_auc_score(y == "no", 1 - s_yes))
    assert ev.overall.loc["average_precision", "estimate"] == pytest.approx(
        skm.average_precision_score(y, 1 - s_yes, pos_label="no"))
    with pytest.raises(ValueError, match="pos_label"):
        dartboard.evaluate(y, y_score=s_yes, pos_label="maybe")


def test_outputs_tidy_json_and_html():
    y, pred, groups, _ = _data(12, n=300, n_cols=2)
    ev = dartboard.evaluate(y, pred, metrics=["accuracy", "recall"], groups=groups,
                            n_resamples=100, random_state=0)
    tidy = ev.to_frame()
    assert list(tidy.columns) == ["scope", "g0", "g1", "metric", "estimate", "low", "high",
                                  "method", "n", "confidence_level"]
    n_groups = len(ev.result.group_keys)
    assert len(tidy) == 2 + 2 * n_groups
    assert (tidy.loc[tidy.scope == "group"].groupby(["g0", "g1"])["n"].first().sum()
            == len(y))
    data = json.loads(ev.to_json())
    assert data["group_columns"] == ["g0", "g1"]
    assert {d["metric"] for d in data["difference"]} == {"accuracy", "recall"}
    assert {d["summary"] for d in data["fairness"]} >= {"demographic_parity_difference"}
    html = ev._repr_html_()
    assert "accuracy" in html and f"{ev.overall.loc['accuracy', 'estimate']:.3f}" in html
    assert "<script" not in html


@pytest.mark.parametrize("bad, exc, match", [
    (dict(groups=np.array(["a"] * 10)), ValueError, "one value per sample"),
    (dict(groups=np.array(["a", None] * 50, dtype=object)), ValueError, "missing value"),
    (dict(groups=np.array([1.0, np.nan] * 50)), ValueError, "missing value"),
    (dict(groups=pd.DataFrame({"a": ["x"] * 100, "b": [None] * 100})), ValueError, "'b'"),
    (dict(metrics=["acuracy"]), ValueError, "unknown metric 'acuracy'"),
    (dict(metrics=["roc_auc"]), ValueError, "needs y_score or y_proba"),
    (dict(metrics=["mean_absolute_error"]), ValueError, "regression metric"),
    (dict(metrics=[3]), TypeError, "metrics must be a metric name or a callable"),
    (dict(metrics=["confusion_matrix"]), ValueError, "does not return one number"),
    (dict(ci="bootstrap"), ValueError, "ci"),
    (dict(sample_weight=np.ones(3)), ValueError, "sample_weight"),
])
def test_bad_input_is_a_clear_error(bad, exc, match):
    y = np.tile([0, 1], 50)
    pred = np.tile([0, 1, 1, 0], 25)
    with pytest.raises(exc, match=match):
        dartboard.evaluate(y, pred, n_resamples=50, **bad)


def test_y_score_for_a_multiclass_task_is_refused():
    y = np.tile([0, 1, 2], 20)
    with pytest.raises(ValueError, match="y_score"):
        dartboard.evaluate(y, y_score=np.linspace(0, 1, 60), task="multiclass")
    with pytest.raises(ValueError, match="y_score needs binary y_true"):
        dartboard.evaluate(y, y_score=np.linspace(0, 1, 60))


def test_no_groups_gaps_say_so():
    ev = dartboard.evaluate([0, 1, 1, 0], [0, 1, 0, 0], metrics=["accuracy"])
    assert ev.by_group is None
    with pytest.raises(ValueError, match="no groups"):
        ev.difference()


def test_fairlearn_helpers_used_in_oracle_are_what_we_think():
    # the oracle's selection rate and FPR are dartboard's too
    y = np.array([0, 1, 1, 0, 1, 0])
    pred = np.array([1, 1, 0, 0, 1, 1])
    assert fm.selection_rate(y, pred) == selection_rate(y, pred)
    assert fm.false_positive_rate(y, pred) == false_positive_rate(y, pred)


def _plain_auc(y_true, y_score, sample_weight=None):
    return skm.roc_auc_score(y_true, y_score, sample_weight=sample_weight)


def _plain_log_loss(y_true, y_score, sample_weight=None):
    return skm.log_loss(y_true, y_score, sample_weight=sample_weight)


@pytest.mark.parametrize("weighted", [False, True])
def test_score_gaps_on_one_sort_agree_with_row_resampling(weighted, monkeypatch):
    """The gaps of ROC AUC, average precision and log loss drawn from the groups' family
    states agree with the metric called on resampled rows within Monte Carlo error."""
    from dartboard.evaluation._finalize import GroupGaps

    rng = np.random.default_rng(21)
    n = 900
    y = rng.integers(0, 2, n)
    score = np.clip(0.3 * y + 0.7 * rng.random(n), 0.01, 0.99).round(2)  # ties too
    g = rng.choice(["p", "q", "r"], n)
    w = rng.integers(1, 4, n) if weighted else None
    kw = dict(y_score=score, metrics=["roc_auc", "average_precision", "log_loss"], groups=g,
              sample_weight=w, n_resamples=1500, random_state=4)
    fast = dartboard.evaluate(y, **kw)
    monkeypatch.setattr(GroupGaps, "_pooled", lambda self, p: False)
    slow = dartboard.evaluate(y, **kw)
    for method in ("between_groups", "to_overall"):
        a, b = fast.difference(method), slow.difference(method)
        np.testing.assert_allclose(a["estimate"], b["estimate"], atol=1e-12)
        np.testing.assert_allclose(a[["low", "high"]], b[["low", "high"]], atol=0.015)


def test_model_name_is_carried_by_the_evaluation(tmp_path):
    y, pred, groups, _ = _data(21, n=200)
    ev = dartboard.evaluate(y, pred, groups=groups["g0"], model="forest", n_resamples=50,
                            random_state=0)
    assert ev.model == "forest" and ev.result.model == "forest"
    assert json.loads(ev.to_json())["model"] == "forest"
    assert repr(ev).startswith("Evaluation(model 'forest', binary, n = 200")
    assert "model &#x27;forest&#x27;, binary" in ev._repr_html_()
    ev.to_html(tmp_path / "r.html")
    assert "dartboard evaluation: forest" in (tmp_path / "r.html").read_text()
    assert dartboard.evaluate(y, pred, metrics=["accuracy"]).model is None
    with pytest.raises(TypeError, match="model must be a name"):
        dartboard.evaluate(y, pred, model=["forest"])


def test_row_resampled_gaps_run_in_bounded_batches(monkeypatch):
    """Gaps of a metric without a counts or one-sort path resample rows: the indices of
    a batch of replicates are drawn at once, never more than the batch budget allows,
    and the replicates are those of a plain loop over the same draws."""
    from dartboard.evaluation import _groups

    rng = np.random.default_rng(4)
    n = 90
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    index = _groups.encode_groups(rng.choice(["a", "b", "c"], n), n)
    monkeypatch.setattr(_groups, "_BATCH_BYTES", 8 * n * 7)  # 7 replicates a batch
    sizes = []
    real = np.random.Generator.integers

    class Recording:
        def __init__(self, seed):
            self.rng = np.random.default_rng(seed)

        def integers(self, low, high, size):
            sizes.append(int(np.prod(size)))
            return real(self.rng, low, high, size=size)

    def stat(rows):
        return skm.accuracy_score(y[rows], pred[rows])

    got = _groups.generic_group_replicates(stat, index, 30, Recording(0), "accuracy")
    assert max(sizes) <= 7 * n and len(sizes) == 3 * 5  # 5 batches, one draw per group
    # the oracle: the same draws, replicate by replicate, with scikit-learn
    plain = np.random.default_rng(0)
    members = index.members()
    want = np.empty((30, 4))
    for start in range(0, 30, 7):
        b = min(7, 30 - start)
        drawn = [rows[plain.integers(0, rows.shape[0], size=(b, rows.shape[0]))]
                 for rows in members]
        for r in range(b):
            sets = [d[r] for d in drawn]
            for g, rows in enumerate(sets + [np.concatenate(sets)]):
                want[start + r, g] = skm.accuracy_score(y[rows], pred[rows])
    np.testing.assert_array_equal(got, want)
