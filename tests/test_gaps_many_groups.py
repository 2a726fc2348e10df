"""Gaps of many groups at the speed of one evaluation: the pruned maxima and high ends
of ``_simultaneous`` against the plain formulas (``test_gaps._oracle``); each cell's
influence values against a numerical derivative and scikit-learn; the normal
replicates of large groups of continuous scores against the grouped bootstrap they
stand in for (families/_base.py, ``grouped_replicates``)."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from test_gaps import _oracle

import dartboard
from dartboard._kernels._analytic import ap_derivatives, ap_influence
from dartboard.evaluation import _simultaneous
from dartboard.families import _base


@pytest.fixture
def prune_always(monkeypatch):
    """Every maximum and high end through the pruned path."""
    monkeypatch.setattr(_simultaneous, "_PRUNE_WORK", 0)


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 40), st.integers(20, 200), st.floats(0.0, 0.3),
       st.sampled_from([1.0, 3.0, 30.0]), st.integers(0, 2 ** 16))
def test_pruned_maxima_and_high_end_equal_the_plain_formulas(g_count, r, nan_share, spread,
                                                            seed):
    """Groups of unequal sizes (up to ``spread`` times apart), replicates with nan:
    the largest gap's interval and the simultaneous ones are the formulas' numbers."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(20, int(20 * spread) + 21, g_count)
    values = np.append(rng.normal(0.7, 0.02, g_count), 0.7)
    n = np.append(sizes, sizes.sum())
    reps = values + rng.normal(size=(r, g_count + 1)) * 0.4 / np.sqrt(n)
    reps[rng.random(reps.shape) < nan_share] = np.nan
    reps[:, :g_count][:, ~np.isfinite(reps[:, :g_count]).any(axis=0)] = values[0]
    family = _simultaneous.contrasts(values, reps, sizes, "between_groups")
    cols = np.flatnonzero(family.usable)
    old = _simultaneous._PRUNE_WORK
    try:
        _simultaneous._PRUNE_WORK = 0
        for absolute in (False, True):
            np.testing.assert_array_equal(_simultaneous._max_z(family, cols, absolute),
                                          _simultaneous._max_z_full(family, cols, absolute))
        some = cols[rng.random(cols.shape[0]) < 0.4]
        if some.size:
            np.testing.assert_array_equal(_simultaneous._max_z(family, some),
                                          _simultaneous._max_z_full(family, some))
            assert _simultaneous._high_end(family, some, 0.01) == \
                _simultaneous._exact_high(family, some, 0.01)
        if nan_share == 0:
            *_, lows, highs, low, high = _oracle(values, reps, sizes, 0.95, "between_groups")
            found = _simultaneous.largest(family, 0.95)
            got_low, got_high = _simultaneous.simultaneous(family, 0.95)
            assert (found.low, found.high) == pytest.approx((low, high), abs=1e-12)
            np.testing.assert_allclose(got_low, lows, atol=1e-12)
            np.testing.assert_allclose(got_high, highs, atol=1e-12)
    finally:
        _simultaneous._PRUNE_WORK = old


def test_many_groups_take_the_pruned_path_with_the_plain_numbers():
    """200 groups x 500 replicates (39,800 contrasts): the pruned path is taken and
    gives the chunked path's maxima."""
    rng = np.random.default_rng(0)
    sizes = rng.integers(50, 500, 200)
    values = np.append(rng.normal(0.8, 0.01, 200), 0.8)
    reps = values + rng.normal(size=(500, 201)) * 0.4 / np.sqrt(np.append(sizes, 1e5))
    family = _simultaneous.contrasts(values, reps, sizes, "between_groups")
    cols = np.flatnonzero(family.usable)
    assert cols.shape[0] * 500 > _simultaneous._PRUNE_WORK
    np.testing.assert_array_equal(_simultaneous._max_z(family, cols, True),
                                  _simultaneous._max_z_full(family, cols, True))



@pytest.mark.parametrize(("top", "again"), [(1, 2), (2, 4), (16, 128)])
@pytest.mark.parametrize("nan_share", [0.0, 0.2])
def test_each_stage_of_the_pruned_maxima_gives_the_plain_maxima(monkeypatch, top, again,
                                                                nan_share):
    """Few entries per stage leave replicates unsettled for the second stage and for the
    visit of every contrast: every stage's maxima are the plain ones, and a second call
    with the same contrasts (kept) or others (computed) too."""
    monkeypatch.setattr(_simultaneous, "_PRUNE_WORK", 0)
    monkeypatch.setattr(_simultaneous, "_TOP", top)
    monkeypatch.setattr(_simultaneous, "_TOP_AGAIN", again)
    rng = np.random.default_rng(7)
    sizes = rng.integers(20, 400, 60)
    values = np.append(rng.normal(0.7, 0.02, 60), 0.7)
    reps = values + rng.normal(size=(300, 61)) * 0.4 / np.sqrt(np.append(sizes, 1e4))
    reps[rng.random(reps.shape) < nan_share] = np.nan
    family = _simultaneous.contrasts(values, reps, sizes, "between_groups")
    cols = np.flatnonzero(family.usable)
    some = cols[rng.random(cols.shape[0]) < 0.3]
    for chosen, absolute in ((cols, False), (cols, False), (some, False), (cols, True)):
        np.testing.assert_array_equal(_simultaneous._max_z(family, chosen, absolute),
                                      _simultaneous._max_z_full(family, chosen, absolute))
    assert _simultaneous._high_end(family, some, 0.01) == \
        _simultaneous._exact_high(family, some, 0.01)

# ------------------------------------------------------------ influence values

def _ap(pos, neg):
    """Average precision of counts per distinct score (increasing), by its formula."""
    y = np.r_[np.ones(int(pos.sum())), np.zeros(int(neg.sum()))]
    s = np.r_[np.repeat(np.arange(pos.shape[0]), pos.astype(int)),
              np.repeat(np.arange(neg.shape[0]), neg.astype(int))]
    return skm.average_precision_score(y, s)


@pytest.mark.parametrize("seed", range(4))
def test_ap_derivatives_are_the_change_per_row_added(seed):
    """dAP/dcount at each score against adding one row there (scikit-learn's AP of the
    rows before and after): the same to first order, the error O(1 / n^2)."""
    rng = np.random.default_rng(seed)
    pos = rng.integers(0, 40, 30).astype(float)
    neg = rng.integers(0, 40, 30).astype(float)
    pos[-1] += 1
    ap, d_pos, d_neg = ap_derivatives(pos, neg)
    assert ap == pytest.approx(_ap(pos, neg), abs=1e-12)
    n = pos.sum() + neg.sum()
    for k in rng.choice(30, 6, replace=False):
        for counts, deriv in ((pos, d_pos), (neg, d_neg)):
            more = counts.copy()
            more[k] += 1
            moved = _ap(more, neg) - ap if counts is pos else _ap(pos, more) - ap
            assert moved == pytest.approx(deriv[k], abs=30 / n ** 2)
    # AP does not move when every count is scaled: the derivatives sum to 0
    assert float(pos @ d_pos + neg @ d_neg) == pytest.approx(0.0, abs=1e-12)
    assert ap_influence(pos, neg)[1] == pytest.approx(float(pos @ d_pos ** 2 + neg @ d_neg ** 2))


def _states(y, s, groups, metric):
    ev = dartboard.evaluate(y, y_score=s, groups=groups, metrics=[metric], n_resamples=10,
                            random_state=0, progress=False)
    p = ev._gaps.planned[metric]
    return p.computed[0], ev._gaps._states(p), p.computed[1]


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision", "log_loss",
                                    "brier_score_loss", "accuracy", "f1"])
def test_cell_influence_is_the_change_of_the_metric_per_row(metric):
    """Each cell's influence value against the metric recomputed with one more row in
    that cell (the cells' own evaluate): equal to first order."""
    rng = np.random.default_rng(1)
    n = 600
    y = rng.integers(0, 2, n)
    s = np.round(np.clip(0.3 * y + 0.7 * rng.random(n), 0.001, 0.999), 2)
    family, states, m = _states(y, s, np.zeros(n, int), metric)
    cells = family.pool(states, m)[0]
    value = float(cells.evaluate(cells.size[None, :].astype(float))[0])
    psi = _base.cell_influence(cells, value)
    assert psi is not None and np.all(np.isfinite(psi))
    plus = np.broadcast_to(cells.size.astype(float), (cells.size.shape[0],) * 2).copy()
    plus[np.diag_indices_from(plus)] += 1
    added = cells.evaluate(plus) - value
    np.testing.assert_allclose(psi, added, atol=20 / n ** 2, rtol=0.05)


def _scores(n_groups, rows, seed=0, worse=None):
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(n_groups), rows)
    y = rng.integers(0, 2, g.shape[0])
    mu = np.where(g == worse, 0.5, 1.2) if worse is not None else 1.2
    s = 1 / (1 + np.exp(-(rng.normal(size=g.shape[0]) + mu * (2 * y - 1))))
    return y, s, g


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision", "log_loss",
                                    "brier_score_loss"])
def test_normal_replicates_have_the_grouped_bootstraps_spread(metric, monkeypatch):
    """Four groups of 400 rows of continuous scores: the normal replicates' standard
    deviation per group and on all rows, and their correlations with all rows, are
    those of the drawn ones (2000 replicates each: within 8% and 0.08)."""
    y, s, g = _scores(4, 400)
    family, states, m = _states(y, s, g, metric)
    monkeypatch.setattr(_base, "EXACT_WORK", 0)
    normal, note = _base.grouped_replicates(family, states, m, 2000,
                                            np.random.default_rng(1))
    # a mean loss's normal replicates come from its groups' sums, without pooling cells
    source = "sums" if metric in ("log_loss", "brier_score_loss") else "influence values"
    assert note == f"4 of 4 groups' replicates normal, from their {source}"
    monkeypatch.setattr(_base, "EXACT_WORK", 10 ** 18)
    drawn, none = _base.grouped_replicates(family, states, m, 2000, np.random.default_rng(1))
    assert none is None
    np.testing.assert_allclose(normal.std(axis=0), drawn.std(axis=0), rtol=0.08)
    corr = [np.corrcoef(r[:, j], r[:, -1])[0, 1] for r in (normal, drawn) for j in range(4)]
    np.testing.assert_allclose(corr[:4], corr[4:], atol=0.08)
    # centred on the estimates
    values = [family.value(st_, m) for st_ in states]
    np.testing.assert_allclose(normal[:, :4].mean(axis=0), values,
                               atol=4 * float(normal.std(axis=0).max()) / np.sqrt(2000))


def test_small_groups_keep_their_draws_beside_normal_ones(monkeypatch):
    """A group under NORMAL_MIN_ROWS rows is drawn; its replicates are those of a
    bootstrap of its cells (not one normal value), and the note counts the others."""
    y, s, g = _scores(3, 400)
    keep = (g != 2) | (np.arange(g.shape[0]) % 400 < 60)  # group 2: 60 rows
    family, states, m = _states(y[keep], s[keep], g[keep], "roc_auc")
    monkeypatch.setattr(_base, "EXACT_WORK", 0)
    reps, note = _base.grouped_replicates(family, states, m, 2000, np.random.default_rng(0))
    assert note == "2 of 3 groups' replicates normal, from their influence values"
    # a drawn AUC of 60 rows takes few distinct values per tie pattern; normal ones do not
    assert np.unique(reps[:, 2]).shape[0] < np.unique(reps[:, 0]).shape[0]
    assert np.all(np.isfinite(reps))


def test_difference_says_when_replicates_are_normal():
    """Large groups of continuous scores: the gap's method names the normal replicates;
    confusion counts (few cells) keep the grouped bootstrap."""
    y, s, g = _scores(5, 2500, worse=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = dartboard.evaluate(y, y_score=s, groups=g, n_resamples=2000, random_state=0,
                                metrics=["roc_auc", "accuracy"], progress=False)
    table = ev.difference()
    assert table.loc["roc_auc", "method"] == (
        "max-T, selection-aware (10 pairs); 5 of 5 groups' replicates normal, from their "
        "influence values")
    assert table.loc["accuracy", "method"] == "max-T, selection-aware (10 pairs)"
    assert table.loc["roc_auc", "groups"].endswith("vs 4")
    assert table.loc["roc_auc", "low"] > 0


def test_streamed_mean_losses_past_their_cells_take_normal_gaps(tmp_path, monkeypatch):
    """A streamed log loss keeps its sums only past MAX_CELLS distinct terms: its gaps
    are normal replicates from the sums (said in the method), near the in-memory ones
    from the cells; with weights they are refused (the sums keep no squared weights)."""
    import pandas as pd

    from dartboard.families import _means

    y, s, g = _scores(3, 600, worse=2)
    pd.DataFrame({"y": y, "s": s, "g": g}).iloc[:900].to_parquet(tmp_path / "a.parquet")
    pd.DataFrame({"y": y, "s": s, "g": g}).iloc[900:].to_parquet(tmp_path / "b.parquet")
    monkeypatch.setattr(_means, "MAX_CELLS", 100)
    metrics = ["log_loss", "brier_score_loss"]
    streamed = dartboard.evaluate(str(tmp_path / "*.parquet"), y_true="y", y_score="s",
                                  groups="g", metrics=metrics, random_state=0,
                                  progress=False)
    memory = dartboard.evaluate(y, y_score=s, groups=g, metrics=metrics, random_state=0,
                                progress=False)
    got, want = streamed.difference(), memory.difference()
    for label in metrics:
        assert got.loc[label, "method"] == ("max-T, selection-aware (3 pairs); 3 of 3 "
                                            "groups' replicates normal, from their sums")
        assert got.loc[label, "estimate"] == pytest.approx(want.loc[label, "estimate"],
                                                           rel=1e-9)
        width = want.loc[label, "high"] - want.loc[label, "low"]
        assert got.loc[label, "high"] - got.loc[label, "low"] == pytest.approx(width,
                                                                                rel=0.15)
        assert got.loc[label, "low"] > 0  # the worse group shows
    frame = pd.DataFrame({"y": y, "s": s, "g": g, "w": np.ones(y.shape[0])})
    frame.iloc[:900].to_parquet(tmp_path / "a.parquet")
    frame.iloc[900:].to_parquet(tmp_path / "b.parquet")
    weighted = dartboard.evaluate(str(tmp_path / "*.parquet"), y_true="y", y_score="s",
                                  groups="g", sample_weight="w", metrics=metrics,
                                  random_state=0, progress=False)
    assert weighted.difference()["method"].str.startswith("n/a (the bootstrap").all()


def test_clustered_gaps_linear_in_the_clusters_influence_values(monkeypatch):
    """Clustered rows in three groups: past LINEAR_WORK each replicate of a score metric
    is linear in the drawn clusters' influence sums, with the same cluster draws; its
    spread per group is that of the evaluated replicates (within 10%), and the gap's
    method says so."""
    from dartboard._kernels import _clustered

    y, s, g = _scores(3, 500, worse=2)
    clusters = np.arange(y.shape[0]) // 10
    rng = np.random.default_rng(3)
    clusters = rng.permutation(clusters.max() + 1)[clusters]

    def gaps(work):
        monkeypatch.setattr(_clustered, "LINEAR_WORK", work)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = dartboard.evaluate(y, y_score=s, groups=g, clusters=clusters,
                                    metrics=["roc_auc", "average_precision"],
                                    n_resamples=600, random_state=0, progress=False)
        return ev, ev.difference()

    linear, table = gaps(0)
    drawn, exact = gaps(10 ** 18)
    for label in ("roc_auc", "average_precision"):
        assert table.loc[label, "method"] == ("max-T, selection-aware (3 pairs), clustered; "
                                              "replicates linear in the clusters' influence "
                                              "values")
        assert exact.loc[label, "method"] == "max-T, selection-aware (3 pairs), clustered"
        np.testing.assert_allclose(linear._gaps.replicates(label).std(axis=0),
                                   drawn._gaps.replicates(label).std(axis=0), rtol=0.1)
        assert table.loc[label, "low"] > 0


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_stacked_count_draws_give_each_groups_own_numbers(task, monkeypatch):
    """Twelve groups, one without predicted positives and one without a class: the
    count metrics' replicates evaluated for all groups in one call, and the draws kept
    for the next metric of the same table, are bit for bit those of drawing and
    evaluating group by group."""
    rng = np.random.default_rng(5)
    k = 2 if task == "binary" else 3
    g = np.repeat(np.arange(12), 60)
    y = rng.integers(0, k, g.shape[0])
    pred = np.where(rng.random(g.shape[0]) < 0.7, y, rng.integers(0, k, g.shape[0]))
    pred[g == 3] = 0  # no predicted positives
    y[g == 5] = np.where(y[g == 5] == k - 1, 0, y[g == 5])  # a class missing
    metrics = ["accuracy", "f1", "matthews_corrcoef"] if task == "binary" else \
        ["accuracy", "f1_macro", "balanced_accuracy"]

    def replicates():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = dartboard.evaluate(y, pred, groups=g, metrics=metrics, n_resamples=300,
                                    random_state=0, progress=False)
        return [ev._gaps.replicates(m) for m in ev.metrics]

    stacked = replicates()
    monkeypatch.setattr(_base, "_STACKED_GROUPS", 10 ** 9)  # group by group
    for got, want in zip(stacked, replicates()):
        np.testing.assert_array_equal(got, want)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 300), st.integers(1, 50), st.floats(0.0, 0.2), st.booleans(),
       st.integers(0, 2 ** 16))
def test_column_quantiles_equal_numpys_quantile(r, cols, nan_share, transposed, seed):
    """The partition (every value finite, either memory order) and the sort (with nan)
    give numpy's linear-interpolation quantile of each column's finite values."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(cols, r)).T if transposed else rng.normal(size=(r, cols))
    z[rng.random(z.shape) < nan_share] = np.nan
    for q in (0.0, 0.013, 0.5, 0.975, 1.0):
        found = _simultaneous._column_quantiles(z, q)
        expected = [np.quantile(c[np.isfinite(c)], q) if np.isfinite(c).any() else np.nan
                    for c in z.T]
        np.testing.assert_allclose(found, expected, rtol=0, atol=1e-12)


def test_kept_row_draws_are_the_fresh_draws(monkeypatch):
    """Kept counts are returned only for the same generator state, batch and cell
    sizes, and leave the generator where a fresh draw would: the bits of drawing anew."""
    from dartboard._kernels import _bootstrap as boot

    monkeypatch.setattr(boot, "_KEPT_DRAWS", __import__("threading").local())
    size = np.ones(300, dtype=np.int64)
    size[::7] = 2
    fresh = np.random.default_rng(5)
    first = boot.row_multinomial(fresh, size, 40)
    second = boot.row_multinomial(fresh, size, 40)
    one, two = np.random.default_rng(5), np.random.default_rng(5)
    a = [boot.kept_row_multinomial(one, size, 40) for _ in range(2)]
    b = [boot.kept_row_multinomial(two, size, 40) for _ in range(2)]
    for got in (a, b):
        np.testing.assert_array_equal(got[0], first)
        np.testing.assert_array_equal(got[1], second)
    assert b[0] is a[0] and not b[0].flags.writeable  # the second series was kept
    assert one.random() == two.random() == fresh.random()
    # other sizes or another batch: drawn, not taken
    other = size.copy()
    other[0] = 3
    three = np.random.default_rng(5)
    np.testing.assert_array_equal(boot.kept_row_multinomial(three, other, 40),
                                  boot.row_multinomial(np.random.default_rng(5), other, 40))
    assert boot.kept_row_multinomial(np.random.default_rng(5), size, 39).shape == (39, 300)


def test_a_groups_mean_losses_share_their_draws_with_the_same_numbers(monkeypatch):
    """Log loss and Brier of small groups (BCa from the rows) with the draws kept equal
    them drawn afresh per metric."""
    from dartboard._kernels import _bootstrap as boot

    rng = np.random.default_rng(3)
    n = 1200
    y = rng.integers(0, 2, n)
    s = 1 / (1 + np.exp(-(rng.normal(size=n) + (2 * y - 1))))
    g = rng.integers(0, 4, n)
    kw = dict(y_score=s, groups=g, metrics=["log_loss", "brier_score_loss"],
              n_resamples=300, random_state=1, progress=False)
    kept = dartboard.evaluate(y, **kw).to_frame()
    assert (kept["method"] == "bca").sum() >= 8  # the groups' BCa
    from dartboard.families import _means

    monkeypatch.setattr(_means, "kept_row_multinomial", boot.row_multinomial)
    fresh = dartboard.evaluate(y, **kw).to_frame()
    pd.testing.assert_frame_equal(kept, fresh)


def test_kept_multinomial_draws_give_the_numbers_of_drawing_again(monkeypatch):
    """The count metrics of each group start from the same seed: the second and third
    take the first's kept draws, and every row equals the row of drawing them again
    (nothing kept), bit for bit, with the generator left where drawing leaves it."""
    from dartboard._kernels import _bootstrap

    rng = np.random.default_rng(5)
    n = 3000
    y = rng.integers(0, 2, n)
    s = 1 / (1 + np.exp(-(rng.normal(size=n) + (2 * y - 1))))
    g = rng.integers(0, 6, n)
    kw = dict(y_score=s, groups=g, n_resamples=300, random_state=3, progress=False,
              metrics=["balanced_accuracy", "f1", "matthews_corrcoef", "roc_auc"])
    hits = []
    kept_draws = _bootstrap._kept_draws

    def counted(key, generator):
        found = kept_draws(key, generator)
        hits.append(found is not None)
        return found

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        monkeypatch.setattr(_bootstrap, "_kept_draws", counted)
        kept = dartboard.evaluate(y, **kw).by_group
        assert sum(hits) >= 2 * 6  # F1 and MCC of each group take balanced accuracy's
        monkeypatch.setattr(_bootstrap, "_KEPT_DRAW_VALUES", 0)
        monkeypatch.setattr(_bootstrap._LAST_DRAWS, "found", None, raising=False)
        again = dartboard.evaluate(y, **kw).by_group
    pd.testing.assert_frame_equal(kept, again)
    assert (kept["method"].str.contains("bca|percentile|basic")).any()


# ---------------------------------------------------- a row per group, fast and plain

_PROPORTIONS = ["accuracy_score", "precision_score", "recall_score", "specificity_score",
                "negative_predictive_value", "false_positive_rate", "false_negative_rate",
                "selection_rate", "jaccard_score"]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(1, 40), st.sampled_from([[0, 1, 2], ["a", "b", "c"],
                                                                [-1, 1, 3]]),
       st.booleans(), st.integers(0, 2**31))
def test_a_proportions_value_from_its_counts_is_the_metric_functions(k, n, labels, weighted,
                                                                     seed):
    """``CountsFamily.value`` divides a proportion's whole counts where the metric
    function would take them as they are; it equals ``ConfusionCounts.compute`` (the
    slow path) bit for bit, raising where that raises, for every proportion of the
    registry, any classes, positive labels present or absent, weights."""
    from dartboard.families._base import Metric
    from dartboard.families._counts import FAMILY, counts_state
    from dartboard.metrics._registry import get_spec

    rng = np.random.default_rng(seed)
    pool = np.array(labels)
    y = pool[rng.integers(0, k, n)]
    p = np.where(rng.random(n) < 0.5, y, pool[rng.integers(0, k, n)])
    w = rng.integers(1, 3, n).astype(float) if weighted else None
    state = counts_state(y, p, w)
    for name in _PROPORTIONS:
        spec = get_spec(name)
        options = [{"normalize": True}, {}] if not spec.average else \
            [{}, {"pos_label": labels[0]}, {"pos_label": labels[2]}, {"zero_division": 1}]
        for kw in options:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    slow = float(state.counts.compute(name, **kw))
                except ValueError as exc:
                    with pytest.raises(type(exc)):
                        FAMILY.value(state, Metric(spec, dict(kw)))
                    continue
                fast = FAMILY.value(state, Metric(spec, dict(kw)))
            assert fast == slow or (np.isnan(fast) and np.isnan(slow)), (name, kw)


@pytest.mark.parametrize("groups", [2, 9])
def test_leave_one_out_counts_with_the_last_batch_are_the_separate_ones(groups):
    """The jackknife's leave-one-row-out counts evaluated with the last batch of draws
    give the values of evaluating them on their own, bit for bit."""
    from dartboard._kernels import _bootstrap

    size = np.random.default_rng(groups).integers(1, 50, groups)
    stratum = np.zeros(groups, dtype=np.int64)

    def statistic(counts):
        return np.log1p(counts @ np.arange(1.0, groups + 1)) / np.sqrt(counts.sum(axis=1))

    joined = _bootstrap.multinomial_replicates(statistic, size, stratum, 8, 500, False,
                                               np.random.default_rng(0), True)
    alone = _bootstrap.multinomial_replicates(statistic, size, stratum, 8, 500, False,
                                              np.random.default_rng(0), True,
                                              jackknife_values=lambda: np.array([
                                                  statistic(_bootstrap._left_out(size))[j]
                                                  for j in range(groups)]))
    np.testing.assert_array_equal(joined.values, alone.values)
    np.testing.assert_array_equal(joined.jackknife, alone.jackknife)
    np.testing.assert_array_equal(joined.jackknife_weights, alone.jackknife_weights)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.floats(allow_nan=True), st.sampled_from([0.0, -0.0, 1.0, -1.0])),
       st.one_of(st.floats(allow_nan=True), st.sampled_from([0.0, -0.0, 1.0])),
       st.sampled_from([(0.0, 1.0), (-1.0, 1.0), (0.0, np.inf), (-np.inf, np.inf)]))
def test_clipping_to_a_range_is_numpys_clip(low, high, bounds):
    """``clip_to_range``'s comparisons give ``np.clip``'s values (nan and the sign of
    zero included)."""
    from dartboard._kernels._result import clip_to_range

    got_low, got_high, _ = clip_to_range(low, high, bounds, "t")
    for got, x in ((got_low, low), (got_high, high)):
        want = float(np.clip(x, *bounds))
        assert (got == want and np.signbit(got) == np.signbit(want)) or \
            (np.isnan(got) and np.isnan(want))


@pytest.mark.parametrize("cores", [2, 3, 16])
def test_gap_rows_on_worker_threads_are_those_of_one_thread(monkeypatch, cores):
    """``difference()``, ``ratio()`` and ``fairness()`` run their selection-aware
    intervals on worker threads while the next metrics' replicates are drawn, and the
    calibration error's replicates (closed form from its bins) on a worker from the
    start: the tables are those of one thread, bit for bit, with groups undefined for some
    metrics (a one-class group) and metrics with two gaps (equalized odds)."""
    from dartboard.evaluation import _gaps
    from dartboard.evaluation._finalize import GroupGaps

    rng = np.random.default_rng(8)
    n = 3000
    y = rng.integers(0, 2, n)
    s = 1 / (1 + np.exp(-(rng.normal(size=n) + (2 * y - 1))))
    g = rng.integers(0, 12, n)
    y[g == 3] = 1  # a group of one class: its specificity and AUC are undefined
    ev = dartboard.evaluate(y, y_score=s, y_pred=(s > 0.5).astype(int), groups=g,
                            n_resamples=300, random_state=2)

    def tables():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [ev.difference(), ev.difference(method="to_overall"), ev.ratio(),
                    ev.fairness()]

    monkeypatch.setattr(_gaps, "available_cores", lambda: 1)
    one = tables()
    monkeypatch.setattr(_gaps, "available_cores", lambda: cores)
    seen = []
    largest = _gaps.largest

    def watched(*args):
        seen.append(threading.current_thread().name)
        return largest(*args)

    monkeypatch.setattr(_gaps, "largest", watched)
    drawn = []  # the calibration error's replicates, from its bins' moments: drawn ahead
    replicates = GroupGaps._replicates

    def watched_replicates(self, label):
        drawn.append((label, threading.current_thread().name))
        return replicates(self, label)

    monkeypatch.setattr(GroupGaps, "_replicates", watched_replicates)
    ev._gaps._drawn.clear()
    for a, b in zip(one, tables()):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert seen and all(name != "MainThread" for name in seen)
    assert [label for label, name in drawn if name != "MainThread"] == ["ece"]
    assert np.isfinite(one[0]["low"]).sum() >= 10
