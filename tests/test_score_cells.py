"""The ROC AUC of resampled score cells (``ScoreCells.auc``, the bootstrap's fast
kernel) against the per-score kernel and scikit-learn on the drawn rows."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from dartboard.families._scores import ScoreCells, _auc


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 80), st.integers(1, 6), st.booleans(), st.integers(0, 2**32 - 1))
def test_cell_auc_equals_the_per_score_kernel(n, distinct, weighted, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(bool)
    score = rng.integers(0, distinct, n) / distinct if distinct < 6 else rng.random(n)
    w = rng.choice([0.5, 1.0, 2.0], n) if weighted else None
    cells = ScoreCells.from_rows(y, score, w)
    counts = rng.integers(0, 3, size=(4, cells.size.shape[0])).astype(np.float64)
    expected = _auc(*cells.per_score(counts))
    np.testing.assert_allclose(cells.auc(counts), expected, rtol=1e-12, equal_nan=True)


def test_cell_auc_equals_scikit_learn_on_the_drawn_rows():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    score = np.round(y * 0.5 + rng.random(300), 1)  # ties within and across classes
    cells = ScoreCells.from_rows(y == 1, score, None)
    counts = rng.integers(0, 4, size=(3, cells.size.shape[0])).astype(np.float64)
    got = cells.auc(counts)
    for r in range(3):
        reps = counts[r].astype(int)
        yy = np.repeat(cells.positive, reps).astype(int)
        ss = np.repeat(cells.score, reps)
        assert got[r] == np.float64(roc_auc_score(yy, ss)) or \
            abs(got[r] - roc_auc_score(yy, ss)) < 1e-14


def test_split_draws_of_one_row_cells_are_a_multinomial_and_follow_the_sizes_given():
    from dartboard._kernels._bootstrap import split_multinomial

    rng = np.random.default_rng(0)
    ones = np.ones(2000, dtype=np.int64)
    counts = split_multinomial(rng, ones, 3000)
    assert np.all(counts.sum(axis=1) == 2000)
    # Multinomial(n, 1/n each): mean 1, variance 1 - 1/n, covariance -1/n
    assert counts.mean() == pytest.approx(1.0)
    assert counts[:, :50].var(axis=0).mean() == pytest.approx(1 - 1 / 2000, rel=0.05)
    # another array of sizes right after (the draws' plan follows the array given)
    mixed = np.concatenate([np.ones(1500, dtype=np.int64), [500]])
    counts = split_multinomial(rng, mixed, 2000)
    assert np.all(counts.sum(axis=1) == 2000)
    assert counts[:, -1].mean() == pytest.approx(500, abs=4 * np.sqrt(500 * 0.75 / 2000))
    again = split_multinomial(np.random.default_rng(5), ones, 3)
    assert np.array_equal(again, split_multinomial(np.random.default_rng(5), ones.copy(), 3))


@pytest.mark.parametrize("sizes", [np.ones(200_000, dtype=np.int64),  # one row a cell
                                   np.arange(200_000, dtype=np.int64) % 7 + 1])
def test_one_counted_replicate_equals_the_batched_draw(sizes):
    # one replicate is counted into a reused buffer in chunks of picks; it must be the
    # same draw, to the bit, as the first row of a batch (one call, one bincount)
    from dartboard._kernels._bootstrap import split_multinomial

    one = split_multinomial(np.random.default_rng(3), sizes, 1)
    batch = split_multinomial(np.random.default_rng(3), sizes, 2)
    assert one.shape == (1, sizes.shape[0])
    assert np.array_equal(one[0], batch[0])
    first = one.copy()  # the buffer is the plan's: the next draw rewrites it
    again = split_multinomial(np.random.default_rng(3), sizes, 1)
    assert np.array_equal(again, first)


@pytest.mark.parametrize("weighted", [False, True])
def test_roc_auc_bootstrap_cells_in_class_order_are_the_same_cells(weighted):
    # one interval's bootstrap draws ROC AUC's cells negatives first, read as two slices:
    # the same replicates as the cells in score order, and the jackknife in that order
    from dartboard.families import Metric, family_of
    from dartboard.metrics._registry import get_spec

    rng = np.random.default_rng(8)
    n = 400
    y = rng.integers(0, 2, n).astype(bool)
    s = np.round(rng.random(n) + 0.3 * y, 2)  # ties within and across the classes
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    state = ScoreCells.from_rows(y, s, w)
    spec = get_spec("roc_auc_score")
    family, metric = family_of(spec), Metric(spec, {})
    plain, fast = family.cells(state, metric), family.bootstrap_cells(state, metric)
    order = state.class_order()
    assert np.array_equal(fast.size, plain.size[order])
    assert np.array_equal(fast.stratum, plain.stratum[order])
    counts = rng.multinomial(n, plain.size / n, size=5)
    np.testing.assert_allclose(fast.evaluate(counts[:, order]), plain.evaluate(counts),
                               rtol=1e-12)
    rows = np.repeat(np.arange(state.size.shape[0]), counts[0])
    assert fast.evaluate(counts[:1, order])[0] == pytest.approx(roc_auc_score(
        state.positive[rows], state.score[rows], sample_weight=state.weight[rows]), rel=1e-12)
    for i in (0, 7, len(order) - 1):  # leave one row of the i-th cell out
        less = fast.size.copy()
        less[i] -= 1
        assert fast.jackknife()[i] == pytest.approx(fast.evaluate(less[None, :])[0], rel=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_streamed_figure_curves_are_the_curve_functions(weighted):
    # the streamed result's curves come from the counts the ranking metrics read
    from sklearn.metrics import precision_recall_curve, roc_curve

    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 3000).astype(bool)
    s = np.round(rng.random(3000) + 0.4 * y, 3)  # ties
    w = rng.integers(1, 4, 3000).astype(float) if weighted else None
    cells = ScoreCells.from_rows(y, s, w)
    cells.pr_points()  # as after the metrics' values
    (fpr, tpr), (precision, recall) = cells.curves()
    f2, t2, _ = roc_curve(y, s, sample_weight=w)
    p2, r2, _ = precision_recall_curve(y, s, sample_weight=w)
    for got, want in ((fpr, f2), (tpr, t2), (precision, p2), (recall, r2)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n, grid", [(3, 0), (40, 5), (3000, 1000), (20000, 0), (20000, 50)])
def test_figure_curves_at_kept_points_are_the_thinned_curves(weighted, n, grid):
    """The points a figure keeps, computed alone, are those of the whole curves thinned:
    few and many distinct scores, ties (a grid of scores), weights."""
    from dartboard.evaluation._points import thin, thin_index

    rng = np.random.default_rng(n + grid)
    y = rng.integers(0, 2, n).astype(bool)
    y[:2] = [False, True]
    s = rng.random(n) + 0.4 * y
    if grid:
        s = np.round(s * grid) / grid
    w = rng.integers(1, 4, n) * 0.7 if weighted else None
    cells = ScoreCells.from_rows(y, s, w)
    (fpr, tpr), (precision, recall) = cells.curves()
    (f2, t2), (p2, r2) = cells.curves(thin_index)
    assert thin(f2, t2) == thin(fpr, tpr)
    assert thin(p2, r2) == thin(precision, recall)
    np.testing.assert_array_equal(f2, fpr[thin_index(fpr.shape[0])])
    np.testing.assert_array_equal(p2, precision[thin_index(precision.shape[0])])


def test_single_precision_scores_give_the_cells_of_their_double_values():
    """float32 scores are sorted as they are and widened once distinct: the same cells,
    in float64, as the widened scores give (ties, -0.0 and 0.0, tiny and huge values)."""
    rng = np.random.default_rng(11)
    s = rng.random(5000).astype(np.float32)
    s[:300] = np.float32(0.25)
    s[300:310] = np.float32(-0.0)
    s[310:320] = np.float32(0.0)
    s[320:330] = np.float32(1e-38)
    s[330:340] = np.float32(3e38)
    y = rng.random(5000) < 0.3
    narrow = ScoreCells.from_rows(y, s, None)
    wide = ScoreCells.from_rows(y, s.astype(np.float64), None)
    assert narrow.score.dtype == np.float64
    for key in ("score", "positive", "weight", "size"):
        np.testing.assert_array_equal(getattr(narrow, key), getattr(wide, key))


def _oracle_counts(cells: ScoreCells) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scores, positive weight, negative weight) per distinct score by brute force."""
    mass = cells.size * (1.0 if cells.unit else cells.weight)
    scores = np.unique(cells.score)
    pos = np.array([mass[(cells.score == s) & cells.positive].sum() for s in scores])
    neg = np.array([mass[(cells.score == s) & ~cells.positive].sum() for s in scores])
    return scores, pos, neg


@pytest.mark.parametrize("n, grid, split", [(3, 0, 1), (40, 5, 2), (3000, 1000, 3),
                                            (20000, 0, 1), (20000, 50, 4)])
def test_kept_points_without_the_running_sums_are_theirs_bit_for_bit(n, grid, split):
    """A figure's points from whole counts, computed before anything forms the sums
    down the scores (from sums of the counts between the points), are the points of
    the whole curves, bit for bit, and form no such sums; merged states included."""
    from dartboard.evaluation._points import thin_index

    rng = np.random.default_rng(n + grid + split)
    y = rng.integers(0, 2, n).astype(bool)
    y[:2] = [False, True]
    s = rng.random(n) + 0.4 * y
    if grid:
        s = np.round(s * grid) / grid

    def cells() -> ScoreCells:
        parts = [ScoreCells.from_rows(y[i::split], s[i::split], None) for i in range(split)]
        return parts[0] if split == 1 else ScoreCells.merged(parts)

    alone = cells()
    (f2, t2), (p2, r2) = alone.curves(thin_index)
    assert "descending" not in alone._memo and "pr_points" not in alone._memo
    (fpr, tpr), (precision, recall) = cells().curves()
    for got, whole in ((f2, fpr), (t2, tpr), (p2, precision), (r2, recall)):
        kept = whole[thin_index(whole.shape[0])]
        assert got.tobytes() == kept.tobytes()


@pytest.mark.parametrize("n", [1, 2, 1000, 65_537, 300_001])
def test_pr_area_a_piece_at_a_time_is_numpys_trapezoid_bit_for_bit(n):
    """The PR area sums its trapezoids in pieces (no arrays of the scores' length):
    ``np.trapezoid`` of the curve from (0, 1), bit for bit, ties and empty scores
    included."""
    from dartboard.metrics._ranking import pr_auc_from_groups, precision_recall_points

    rng = np.random.default_rng(n)
    pos, neg = rng.integers(0, 3, n), rng.integers(0, 3, n)
    pos[-1] += 1
    precision, tps, _, total = precision_recall_points(pos, neg)
    want = np.trapezoid(np.concatenate(([1.0], precision)),
                        np.concatenate(([0.0], tps / total)))
    got = pr_auc_from_groups(pos, neg)
    assert np.float64(got).tobytes() == np.float64(max(0.0, want)).tobytes()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**40), min_size=1, max_size=50), st.data())
def test_tail_sums_are_the_running_sum_down_the_counts_bit_for_bit(counts, data):
    from dartboard.families._scores import _tail_sums

    counts = np.array(counts, dtype=np.int64)
    rows = np.array(data.draw(st.lists(st.integers(0, counts.shape[0] - 1), max_size=20)),
                    dtype=np.intp)
    want = np.cumsum(counts[::-1], dtype=np.float64)[rows]
    got = _tail_sums(counts, rows)
    assert got.dtype == np.float64 and got.tobytes() == want.tobytes()


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60), st.integers(1, 7), st.sampled_from(["none", "ones", "mixed"]),
       st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_score_map_and_its_running_sums_equal_brute_force_and_the_plain_kernels(
        n, distinct, weights, parts, seed):
    """The score map (two gathers when every row weighs one), the running sums the ROC
    area and DeLong's terms share, and the sums down the scores, against brute force
    and against the kernels without the shared sums, bit for bit; one
    class, one score, all tied, weights of one and merged states included."""
    from dartboard._kernels._analytic import delong_terms_grouped
    from dartboard.metrics._ranking import auc_from_groups, descending_counts

    rng = np.random.default_rng(seed)
    states = []
    for _ in range(parts):
        y = rng.integers(0, 2, n).astype(bool) if distinct != 7 else np.ones(n, bool)
        score = rng.integers(0, distinct, n) / distinct
        if rng.random() < 0.2:
            score = -score  # -0.0 and 0.0 are one score
        w = {"none": None, "ones": np.ones(n),
             "mixed": rng.choice([0.5, 1.0, 2.0], n)}[weights]
        states.append(ScoreCells.from_rows(y, score, w))
    cells = states[0] if parts == 1 else ScoreCells.merged(states)
    scores, pos, neg = _oracle_counts(cells)
    state = cells.state()
    np.testing.assert_array_equal(state.scores, scores)
    np.testing.assert_array_equal(state.pos, pos)
    np.testing.assert_array_equal(state.neg, neg)
    up_pos, below = cells.midway()
    np.testing.assert_array_equal(up_pos, np.cumsum(pos) - pos / 2)
    np.testing.assert_array_equal(below, np.cumsum(neg) - neg / 2)
    tps, fps = cells._descending()
    np.testing.assert_array_equal(tps, np.cumsum(pos[::-1]))
    np.testing.assert_array_equal(fps, np.cumsum(neg[::-1]))
    # the same bits as the kernels that form their own sums
    plain = descending_counts(state.pos, state.neg)
    np.testing.assert_array_equal(tps, plain[0])
    np.testing.assert_array_equal(fps, plain[1])
    if pos.sum() > 0 and neg.sum() > 0:
        shared = auc_from_groups(state.pos, state.neg, None, below)
        assert shared == auc_from_groups(state.pos, state.neg)
        assert delong_terms_grouped(state.pos, state.neg, (up_pos, below)) == \
            delong_terms_grouped(state.pos, state.neg)
        # the area and DeLong's terms from one set of sums, which are not kept
        assert cells.roc_area() == (shared, delong_terms_grouped(state.pos, state.neg))
        assert "midway" not in cells._memo
    else:
        with pytest.warns(UserWarning, match="Only one class"):
            assert np.isnan(cells.roc_area()[0])
        assert cells.roc_area()[1] is None
    # the shared sums are left as they were
    np.testing.assert_array_equal(below, np.cumsum(neg) - neg / 2)
    np.testing.assert_array_equal(up_pos, np.cumsum(pos) - pos / 2)


@pytest.mark.parametrize("weighted", [False, True])
def test_roc_area_of_many_scores_shares_its_sums_and_keeps_the_plain_kernels_bits(weighted):
    """Past ``_SHARED_SUMS`` distinct scores the ROC area and DeLong's terms read one set
    of running sums a piece at a time (merged states, ties across classes, float32
    scores); the same bits as the plain kernels, and the sums are not kept."""
    from dartboard._kernels._analytic import delong_terms_grouped
    from dartboard.families._scores import _SHARED_SUMS
    from dartboard.metrics._ranking import auc_from_groups, descending_counts

    rng = np.random.default_rng(11)
    n = 3 * _SHARED_SUMS
    y = rng.random(n) < 0.3
    score = np.round(rng.normal(size=n) + y, 5).astype(np.float32)  # ties
    w = rng.choice([0.5, 1.0, 2.0], n) if weighted else None
    parts = [ScoreCells.from_rows(y[i::3], score[i::3], None if w is None else w[i::3])
             for i in range(3)]
    cells = ScoreCells.merged(parts)
    state = cells.state()
    assert state.pos.shape[0] >= _SHARED_SUMS
    value, terms = cells.roc_area()
    assert value == auc_from_groups(state.pos, state.neg)
    assert terms == delong_terms_grouped(state.pos, state.neg)
    assert "midway" not in cells._memo
    tps, fps = cells._descending()
    plain = descending_counts(state.pos, state.neg)
    np.testing.assert_array_equal(tps, plain[0])
    np.testing.assert_array_equal(fps, plain[1])
