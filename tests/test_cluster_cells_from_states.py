"""The clusters' pooled cells and cluster matrix taken straight from their states
(``state_cluster_cells`` of the scores and counts families) against the route they
replace: ``Family.pool`` of the states, then ``cluster_matrix`` of the parts. The
bootstrap of clusters reads both through the same sparse product, so they must be
the same cells, the same matrix (entry for entry, in the same layout) and the same
values of every metric on drawn counts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dartboard._kernels._clustered import cluster_matrix
from dartboard.families import family_of
from dartboard.families._base import (
    Batch,
    Family,
    Metric,
    aggregate,
    aggregate_placed,
    kept_for_states,
    place,
)
from dartboard.metrics._registry import get_spec


def _pool_route(family, states, metric, at, n_clusters):
    pooled = family.pool(states, metric)
    matrix = cluster_matrix(pooled[1], pooled[2], pooled[0].size.shape[0], at, n_clusters)
    return pooled[0], matrix


def _same(family, states, metric, at, n_clusters, rng):
    fast = family.state_cluster_cells(states, metric, at, n_clusters)
    assert fast is not None
    cells, matrix = fast
    want_cells, want = _pool_route(family, states, metric, at, n_clusters)
    np.testing.assert_array_equal(cells.size, want_cells.size)
    np.testing.assert_array_equal(cells.stratum, want_cells.stratum)
    assert matrix.shape == want.shape
    for name in ("data", "indices", "indptr"):
        np.testing.assert_array_equal(getattr(matrix, name), getattr(want, name))
    drawn = rng.integers(0, 3, size=(7, matrix.shape[0])).astype(np.float64)
    counts = np.asarray((matrix.T @ drawn.T).T)
    np.testing.assert_array_equal(_values(cells, counts), _values(want_cells, counts))
    # the matrix is kept: a second metric of the same states takes the same object
    again = family.state_cluster_cells(states, metric, at, n_clusters)
    assert again[1] is matrix


def _values(cells, counts):
    """The metric on drawn counts, or the error it raises (the same either way)."""
    try:
        with np.errstate(all="ignore"):
            return cells.evaluate(counts)
    except ValueError as exc:
        return np.array([type(exc).__name__])


def _clusters_of(rng, n_clusters, n):
    """(rows, each row's cluster): every cluster has a row."""
    n = max(n, n_clusters)
    return n, np.concatenate([np.arange(n_clusters),
                              rng.integers(0, n_clusters, n - n_clusters)])


def _placement(rng, n_states, n_clusters):
    """None (one row per state) or the states' rows among more clusters."""
    if rng.random() < 0.5:
        return None, None
    total = n_clusters + int(rng.integers(0, 5))
    return np.sort(rng.choice(total, n_states, replace=False)), total


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 25), st.integers(1, 400), st.booleans(),
       st.sampled_from(["roc_auc_score", "average_precision_score", "pr_auc_score"]),
       st.sampled_from(["ties", "distinct", "one_class_cluster", "one_class"]),
       st.integers(0, 2**16))
def test_score_cells_from_the_clusters_states_equal_their_pooling(
        n_clusters, n, weighted, name, edge, seed):
    rng = np.random.default_rng(seed)
    n, codes = _clusters_of(rng, n_clusters, n)
    y = rng.integers(0, 2, n).astype(bool)
    if edge == "one_class_cluster":
        y[codes == 0] = True
    elif edge == "one_class":
        y[:] = False
    score = np.round(rng.random(n), 1) if edge != "distinct" else rng.random(n)
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    members = [np.flatnonzero(codes == c) for c in range(n_clusters)]
    metric = Metric(get_spec(name))
    family = family_of(metric.spec)
    states = family.build_clusters(Batch(y, {"scores": score}, w, True), metric, members)
    at, total = _placement(rng, len(states), n_clusters)
    _same(family, states, metric, at, total, rng)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 25), st.integers(1, 400), st.sampled_from([2, 3, 4]),
       st.sampled_from(["accuracy_score", "f1_score", "matthews_corrcoef",
                        "balanced_accuracy_score", "cohen_kappa_score"]),
       st.sampled_from(["mixed", "missing_class", "all_right", "one_class"]),
       st.integers(0, 2**16))
def test_count_cells_from_the_clusters_states_equal_their_pooling(
        n_clusters, n, k, name, edge, seed):
    rng = np.random.default_rng(seed)
    n, codes = _clusters_of(rng, n_clusters, n)
    labels = np.arange(k) * 3 - 1  # -1, 2, 5, 8: codes are not the labels
    y = labels[rng.integers(0, k, n)]
    p = np.where(rng.random(n) < 0.6, y, labels[rng.integers(0, k, n)])
    if edge == "missing_class":  # cluster 0 holds one class only: its matrix is smaller
        y[codes == 0] = p[codes == 0] = labels[0]
    elif edge == "all_right":
        p = y.copy()
    elif edge == "one_class":
        y[:] = p[:] = labels[-1]
    kwargs = {"average": "macro"} if name == "f1_score" else {}
    metric = Metric(get_spec(name), kwargs)
    family = family_of(metric.spec)
    members = [np.flatnonzero(codes == c) for c in range(n_clusters)]
    states = family.build_clusters(Batch(y, {"labels": p}), metric, members)
    at, total = _placement(rng, len(states), n_clusters)
    _same(family, states, metric, at, total, rng)


def test_weighted_counts_take_the_pooling_route():
    """Rows of unequal weights are grouped by (cell, weight) in each state: the counts
    family leaves them to ``pool``."""
    rng = np.random.default_rng(0)
    y, p = rng.integers(0, 2, 100), rng.integers(0, 2, 100)
    codes = rng.integers(0, 5, 100)
    metric = Metric(get_spec("accuracy_score"))
    family = family_of(metric.spec)
    members = [np.flatnonzero(codes == c) for c in range(5)]
    states = family.build_clusters(Batch(y, {"labels": p}, rng.random(100) + 0.5), metric,
                                   members)
    assert family.state_cluster_cells(states, metric, None, None) is None
    assert Family.state_cluster_cells(family, states, metric, None, None) is None


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 300), st.integers(1, 3), st.booleans(), st.integers(0, 2**16))
def test_aggregate_placed_gives_each_rows_cell(n, n_keys, runs, seed):
    rng = np.random.default_rng(seed)
    keys = [rng.integers(0, 4, n), np.round(rng.random(n), 1), rng.integers(0, 2, n)][:n_keys]
    if runs and n:  # sorted runs, as a merge of states hands them over
        cut = int(rng.integers(0, n + 1))
        first = aggregate([k[:cut] for k in keys], np.ones(cut, dtype=np.int64))[0]
        second = aggregate([k[cut:] for k in keys], np.ones(n - cut, dtype=np.int64))[0]
        keys = [np.concatenate([a, b]) for a, b in zip(first, second)]
    size = rng.integers(1, 5, len(keys[0]))
    found, sizes, where = aggregate_placed(keys, size, runs=runs)
    want, want_sizes = aggregate(keys, size, runs=runs)
    for a, b in zip(found, want):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(sizes, want_sizes)
    if keys[0].shape[0]:
        np.testing.assert_array_equal(where, place(keys, found))
    np.testing.assert_array_equal(np.bincount(where, weights=size, minlength=len(sizes)),
                                  sizes)


def test_kept_for_states_keeps_the_last_few_lists():
    import threading

    cache = threading.local()
    lists = [[object(), object()] for _ in range(4)]
    built = []

    def build(i):
        def go():
            built.append(i)
            return i
        return go

    for _ in range(2):  # the second round finds every list
        for i, states in enumerate(lists[:3]):
            assert kept_for_states(cache, states, build(i), slots=3) == i
    assert built == [0, 1, 2]
    kept_for_states(cache, lists[3], build(3), slots=3)  # pushes out the oldest (list 0)
    kept_for_states(cache, lists[0], build(0), slots=3)
    assert built == [0, 1, 2, 3, 0]
    # one slot: only the last list
    single = threading.local()
    kept_for_states(single, lists[0], build(10))
    kept_for_states(single, lists[1], build(11))
    kept_for_states(single, lists[0], build(12))
    assert built[-3:] == [10, 11, 12]


@pytest.mark.parametrize("name", ["roc_auc_score", "accuracy_score"])
def test_one_state_is_its_own_pooling(name):
    rng = np.random.default_rng(1)
    y, s = rng.integers(0, 2, 50), np.round(rng.random(50), 1)
    metric = Metric(get_spec(name))
    family = family_of(metric.spec)
    batch = Batch(y == 1, {"scores": s}, None, True) if name == "roc_auc_score" \
        else Batch(y, {"labels": (s > 0.5).astype(int)})
    states = family.build_clusters(batch, metric, [np.arange(50)])
    _same(family, states, metric, None, None, rng)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.integers(1, 50), st.sampled_from(["all", "some", "shuffled"]),
       st.integers(0, 2**16))
def test_draws_picked_by_a_selection_matrix_equal_its_sparse_product(n_clusters, b, kind,
                                                                    seed):
    """A matrix of one 1 per column (each cell a whole cluster: a mean's clusters as
    cells) is applied by picking the draws' columns; the counts are those of the
    sparse product, in the same (column-major) layout, so a mean of them gives the
    same bits. Matrices that are not selections keep the product."""
    from scipy import sparse

    from dartboard._kernels import _clustered

    rng = np.random.default_rng(seed)
    held = np.arange(n_clusters)
    if kind == "some":
        held = np.sort(rng.choice(n_clusters, max(1, n_clusters // 2), replace=False))
    cells = np.arange(held.shape[0]) if kind != "shuffled" else rng.permutation(held.shape[0])
    matrix = sparse.csr_matrix((np.ones(held.shape[0]), (held, cells)),
                               shape=(n_clusters, held.shape[0]))
    drawn = rng.integers(0, 4, size=(b, n_clusters)).astype(np.float64)
    laid = np.ascontiguousarray(drawn.T)
    want = np.asarray((matrix.T @ laid).T)
    picked = _clustered._selection(matrix)
    assert picked is not None
    got = _clustered._picked(laid, picked)
    np.testing.assert_array_equal(got, want)
    assert got.flags.f_contiguous == want.flags.f_contiguous
    wt, w = rng.random(held.shape[0]), rng.random(held.shape[0]) + 0.5
    with np.errstate(invalid="ignore"):  # a replicate that drew none of the clusters
        np.testing.assert_array_equal((got @ wt) / (got @ w), (want @ wt) / (want @ w))
    if kind == "all":  # the draws themselves, read-only
        assert not got.flags.writeable
    # a weight other than 1, or two clusters in one cell: not a selection
    other = matrix.copy()
    other.data[0] = 2.0
    assert _clustered._selection(other) is None
    if n_clusters > held.shape[0]:
        spare = int(np.setdiff1d(np.arange(n_clusters), held)[0])
        two = sparse.csr_matrix(matrix + sparse.csr_matrix(
            ([1.0], ([spare], [0])), shape=matrix.shape))
        assert _clustered._selection(two) is None


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 60), st.integers(1, 40), st.integers(1, 30),
       st.floats(0.05, 1.0), st.booleans(), st.integers(0, 2**16))
def test_a_dense_product_of_drawn_clusters_equals_the_sparse_one(n_clusters, width, b,
                                                                 density, whole, seed):
    """Filled cluster matrices are multiplied dense: whole entries (rows in cells)
    give the sparse product's numbers exactly, sums of confidences to rounding; the
    layout is the sparse product's either way."""
    from scipy import sparse

    from dartboard._kernels import _clustered

    rng = np.random.default_rng(seed)
    values = rng.integers(1, 50, (n_clusters, width)).astype(np.float64) if whole \
        else rng.random((n_clusters, width)) * 30
    matrix = sparse.csr_matrix(values * (rng.random((n_clusters, width)) < density))
    laid = np.ascontiguousarray(rng.integers(0, 4, (b, n_clusters)).astype(np.float64).T)
    want = np.asarray((matrix.T @ laid).T)
    got = _clustered._product(matrix, laid)
    assert got.flags.f_contiguous == want.flags.f_contiguous
    if whole:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 25), st.integers(1, 300), st.booleans(),
       st.sampled_from(["ties", "distinct", "one_class", "few_scores"]), st.integers(0, 2**16))
def test_placements_and_distinct_scores_from_the_pooled_cells_equal_a_sort_of_each(
        n_clusters, n, weighted, edge, seed):
    """ROC AUC's placement values and AP's distinct scores of the clusters' cells end
    to end, read from their pooled cells, equal those of sorting the cells (the
    route they replace), bit for bit."""
    from dartboard.families import _scores

    rng = np.random.default_rng(seed)
    n, codes = _clusters_of(rng, n_clusters, n)
    y = rng.integers(0, 2, n).astype(bool)
    if edge == "one_class":
        y[:] = True
    score = {"ties": np.round(rng.random(n), 1), "distinct": rng.random(n),
             "one_class": np.round(rng.random(n), 2),
             "few_scores": rng.integers(0, 3, n) / 2}[edge]
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    metric = Metric(get_spec("roc_auc_score"))
    family = family_of(metric.spec)
    members = [np.flatnonzero(codes == c) for c in range(n_clusters)]
    states = family.build_clusters(Batch(y, {"scores": score}, w, True), metric, members)
    _, cell_score, positive, size, _ = _scores._cluster_cells(states)
    want = _scores._cell_placements(cell_score, positive, size)
    got = _scores._pooled_placements(states)
    if want is None:
        assert got is None
    else:
        np.testing.assert_array_equal(got, want)
    values, inverse = np.unique(cell_score, return_inverse=True)
    at, k = _scores._distinct_scores(states)
    assert k == values.shape[0]
    np.testing.assert_array_equal(at, inverse.reshape(-1))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 25), st.integers(2, 300), st.booleans(),
       st.sampled_from(["ties", "distinct", "one_class", "equal_weights"]), st.integers(0, 2**16))
def test_pooled_cells_kept_by_the_clusters_build_equal_pooling_their_states(
        n_clusters, n, weighted, edge, seed):
    """Building the clusters' score cells keeps their pooled cells (from the same sort
    of the rows); they equal merging the clusters' states and placing each one's
    cells, array for array."""
    import threading

    from dartboard.families import _scores

    rng = np.random.default_rng(seed)
    n, codes = _clusters_of(rng, n_clusters, n)
    y = rng.integers(0, 2, n).astype(bool)
    if edge == "one_class":
        y[:] = False
    score = np.round(rng.random(n), 1) if edge != "distinct" else rng.random(n)
    w = None
    if weighted:
        w = np.full(n, 2.0) if edge == "equal_weights" else rng.integers(1, 4, n).astype(float)
    metric = Metric(get_spec("roc_auc_score"))
    family = family_of(metric.spec)
    members = [np.flatnonzero(codes == c) for c in range(n_clusters)]
    _scores._LAST_POOLED = threading.local()
    states = family.build_clusters(Batch(y, {"scores": score}, w, True), metric, members)
    held = _scores._LAST_POOLED.kept[0]  # kept by the build, not formed on asking
    assert all(a is b for a, b in zip(held[0], states))
    kept = _scores._pooled(states)
    assert kept is held[1]
    fresh = _scores._pooled_in_one_sort(states)
    for name in ("score", "positive", "weight", "size"):
        a, b = getattr(kept[0], name), getattr(fresh[0], name)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b)
    assert kept[0].weighted == fresh[0].weighted
    for a, b in zip(kept[1:4], fresh[1:4]):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
