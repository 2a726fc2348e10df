"""The cells every family forms and merges (``families._base.aggregate``): its fast
orders against ``np.lexsort`` and against a dictionary of the rows."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dartboard._numeric import vdot
from dartboard.families._base import aggregate, lexicographic_order

KINDS = ("small", "large", "float", "bool", "constant", "ids")


def _key(rng: np.random.Generator, kind: str, n: int) -> np.ndarray:
    if kind == "small":
        return rng.integers(-3, 4, n)
    if kind == "large":  # integers past the radix sort's 16 bits
        return rng.integers(0, 3, n) * 100_000
    if kind == "float":  # few distinct values: ties everywhere
        return rng.choice([0.1, 0.25, -0.0, 0.0, 2.5], n)
    if kind == "bool":
        return rng.random(n) < 0.5
    if kind == "ids":  # cluster numbers: fewer values than half the rows
        return rng.integers(0, max(1, n // 3), n)
    return np.full(n, 7.0)


def _brute(keys: list[np.ndarray], size: np.ndarray):
    cells: dict[tuple, int] = {}
    for row in range(size.shape[0]):
        key = tuple(k[row].item() for k in keys)
        cells[key] = cells.get(key, 0) + int(size[row])
    ordered = sorted(cells)
    return ordered, [cells[k] for k in ordered]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4), st.integers(0, 60),
       st.integers(0, 2**32 - 1))
def test_aggregate_equals_a_dictionary_of_the_rows(kinds, n, seed):
    rng = np.random.default_rng(seed)
    keys = [_key(rng, kind, n) for kind in kinds]
    size = rng.integers(1, 5, n)
    got, sums = aggregate(keys, size)
    cells, expected = _brute(keys, size)
    assert [tuple(k[i].item() for k in got) for i in range(sums.shape[0])] == cells
    assert sums.tolist() == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4), st.integers(1, 60),
       st.integers(0, 2**32 - 1))
def test_lexicographic_order_sorts_as_lexsort(kinds, n, seed):
    rng = np.random.default_rng(seed)
    keys = [k for k in (_key(rng, kind, n) for kind in kinds) if not np.all(k == k[0])]
    order = lexicographic_order(keys, n)
    reference = np.lexsort(tuple(reversed(keys))) if keys else np.arange(n)
    for k in keys:  # the same sequence of keys (rows with equal keys in any order)
        np.testing.assert_array_equal(k[order], k[reference])
    assert sorted(order.tolist()) == list(range(n))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4), st.integers(1, 60),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_cells_keys_are_their_first_rows_bit_for_bit(kinds, n, runs, seed):
    """The sorted first key handed on by the order, and each cell's keys read from the
    keys in order, are the keys of each cell's first row in the order, bit for bit
    (-0.0 and 0.0 are one cell, kept as its first row has it)."""
    from dartboard.families._base import _aggregate, _lexicographic

    rng = np.random.default_rng(seed)
    keys = [_key(rng, kind, n) for kind in kinds]
    if runs:  # sorted runs, as merged states are
        keys = [k[np.lexsort(tuple(reversed(keys)))] for k in keys]
    varying = [k for k in keys if not np.all(k == k[0])]
    order, first = _lexicographic(varying, n, runs)
    if first is not None:
        assert first.tobytes() == varying[0][order].tobytes()
    found, sizes, (order, new) = _aggregate(keys, rng.integers(1, 5, n), runs)
    for got, k in zip(found, keys):
        assert got.dtype == k.dtype
        assert got.tobytes() == k[order[new]].tobytes()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4), st.integers(0, 60),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_aggregate_over_arrays_handed_over_equals_aggregate_bit_for_bit(kinds, n, runs,
                                                                       seed):
    """``aggregate_owned``, which writes the cells over the arrays handed to it, gives
    :func:`aggregate`'s cells bit for bit (dtypes, -0.0 and 0.0, keys of one value,
    every key distinct or all tied), and leaves the caller's other arrays alone."""
    from unittest import mock

    from dartboard.families import _base

    rng = np.random.default_rng(seed)
    keys = [_key(rng, kind, n) for kind in kinds]
    if runs:
        keys = [k[np.lexsort(tuple(reversed(keys)))] for k in keys]
    size = rng.integers(1, 5, n)
    want, want_sizes = aggregate(keys, size, runs=runs)
    before = [k.copy() for k in keys[1:]]
    with mock.patch.object(_base, "_OWNED_MIN_CELLS", 0):
        got, got_sizes = _base.aggregate_owned([k.copy() for k in keys[:1]] + keys[1:],
                                               size.copy(), runs=runs)
    assert got_sizes.dtype == want_sizes.dtype
    assert got_sizes.tobytes() == want_sizes.tobytes()
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.tobytes() == w.tobytes()
    for k, b in zip(keys[1:], before):
        assert k.tobytes() == b.tobytes()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=3), st.integers(0, 40),
       st.integers(0, 40), st.integers(0, 2**32 - 1))
def test_merging_sorted_runs_equals_aggregating_the_rows(kinds, n_a, n_b, seed):
    rng = np.random.default_rng(seed)
    rows = [_key(rng, kind, n_a + n_b) for kind in kinds]
    size = rng.integers(1, 5, n_a + n_b)
    a = aggregate([k[:n_a] for k in rows], size[:n_a])
    b = aggregate([k[n_a:] for k in rows], size[n_a:])
    merged = aggregate([np.concatenate([x, y]) for x, y in zip(a[0], b[0])],
                       np.concatenate([a[1], b[1]]), runs=True)
    whole = aggregate(rows, size)
    for x, y in zip(merged[0], whole[0]):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(merged[1], whole[1])


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 3000), st.sampled_from([8, 128, 129, 200, 1000]),
       st.integers(0, 2**32 - 1))
def test_sum_of_pieces_is_numpys_pairwise_sum_bit_for_bit(n, piece, seed):
    """``sum_of`` follows numpy's pairwise splits down to its pieces (made short here
    to reach many splits): the sum of the whole vector, bit for bit."""
    from unittest import mock

    from dartboard import _numeric

    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * 10.0 ** rng.uniform(-8, 8, n)
    with mock.patch.object(_numeric, "_SUM_PIECE", piece):
        got = _numeric.sum_of(n, lambda lo, hi: x[lo:hi] * 3.0)
    assert np.float64(got).tobytes() == np.add.reduce(x * 3.0).tobytes()


def test_sum_of_holds_nothing_once_it_returns():
    """Nothing ``sum_of`` read outlives the call without the cycle collector (a closure
    calling itself is a cycle: it held a stream's arrays, 66 MiB a call)."""
    import gc
    import weakref

    from dartboard import _numeric

    x = np.arange(300_000, dtype=np.float64)
    gone = weakref.ref(x)
    enabled = gc.isenabled()
    gc.disable()
    try:
        terms = (lambda a: lambda lo, hi: a[lo:hi])(x)  # holds the array itself
        assert _numeric.sum_of(x.shape[0], terms) == float(x.sum())
        del x, terms
        assert gone() is None
    finally:
        if enabled:
            gc.enable()


def test_vdot_equals_numpy_dot():
    rng = np.random.default_rng(0)
    for n in (0, 1, 7, 20_000):
        a, b = rng.normal(size=n), rng.normal(size=n)
        assert np.isclose(vdot(a, b), float(np.dot(a, b)), rtol=1e-12, atol=1e-12)
    assert vdot(np.arange(4), np.arange(4)) == 14.0


@pytest.mark.parametrize("n, classes, grid", [(0, 2, 0), (1, 2, 0), (1000, 2, 0), (1000, 3, 10),
                                              (5000, 1, 5), (3000, 40, 4)])
@pytest.mark.parametrize("stratified", [False, True])
def test_unweighted_mean_cells_are_the_lexicographic_cells(n, classes, grid, stratified):
    """Unweighted mean-loss cells (sorted per stratum, counted per distinct term) are
    ``aggregate``'s cells of (stratum, term, weight 1): ties, one stratum, many, none."""
    from dartboard.families._means import MeanCells

    rng = np.random.default_rng(n + classes)
    terms = rng.random(n)
    if grid:
        terms = np.round(terms * grid) / grid
    stratum = rng.integers(0, classes, n) if stratified else None
    keys = (terms, np.ones(n)) if stratum is None else (stratum, terms, np.ones(n))
    want, size = aggregate(keys, np.ones(n, dtype=np.int64))
    cells = MeanCells.from_terms(terms, None, stratum)
    np.testing.assert_array_equal(cells.term, want[-2])
    np.testing.assert_array_equal(cells.weight, want[-1])
    np.testing.assert_array_equal(cells.size, size)
    if stratified:
        np.testing.assert_array_equal(cells.stratum, want[0])
    assert cells.sums[3] == n and cells.mean() == pytest.approx(
        terms.mean() if n else float("nan"), nan_ok=True, rel=1e-12)


@pytest.mark.parametrize("weighted, stratified", [(False, False), (False, True),
                                                  (True, False), (True, True)])
def test_mean_cells_merged_at_once_equal_merged_in_turn(weighted, stratified):
    """Many clusters' mean-loss cells pooled in one sort are the cells of merging them
    two at a time (ties across states, empty states), and their sums add up."""
    from dartboard.families._means import MeanCells

    rng = np.random.default_rng(int(weighted) * 2 + int(stratified))
    states = []
    for k in range(40):
        n = 0 if k == 7 else int(rng.integers(1, 60))
        terms = np.round(rng.random(n) * 8) / 8
        w = rng.random(n) * 2 if weighted else None
        st = rng.integers(0, 3, n) if stratified else None
        states.append(MeanCells.from_terms(terms, w, st))
    at_once = MeanCells.merged(states)
    in_turn = states[0]
    for s in states[1:]:
        in_turn = in_turn.merge(s, cap=False)
    for key in ("term", "weight", "size", "stratum"):
        got, want = getattr(at_once, key), getattr(in_turn, key)
        if want is None:
            assert got is None
        else:
            np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(at_once.sums, in_turn.sums, rtol=1e-12)
    assert at_once.weighted is in_turn.weighted


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=3), st.integers(1, 300),
       st.floats(0.05, 1.0), st.integers(0, 2**16))
def test_place_finds_each_cell_as_a_search_of_records(kinds, n, share, seed):
    """``place`` (a first key of few integer values searched block by block, a float
    first key searched alone, ties stepped over) gives each cell of a part its position
    among the pooled cells: the position a search of (key, ...) records gives."""
    from dartboard.families._base import place

    rng = np.random.default_rng(seed)
    keys = [_key(rng, kind, n) for kind in kinds]
    pooled, _ = aggregate(keys, np.ones(n, dtype=np.int64))
    pick = np.flatnonzero(rng.random(pooled[0].shape[0]) < share)
    part = [k[pick] for k in pooled]
    np.testing.assert_array_equal(place(part, pooled), pick)
    records = np.rec.fromarrays([np.asarray(k) for k in pooled])
    np.testing.assert_array_equal(np.searchsorted(records, np.rec.fromarrays(part)), pick)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4), st.integers(1, 60),
       st.integers(0, 2**32 - 1))
def test_32_bit_codes_sort_and_aggregate_as_the_rows(kinds, n, seed):
    """Integer keys of fewer values than half the rows (cluster numbers) sorted as
    32-bit codes, reached here with few rows by lowering the 16-bit codes' limit."""
    from dartboard.families import _base

    rng = np.random.default_rng(seed)
    keys = [k for k in (_key(rng, kind, n) for kind in kinds) if not np.all(k == k[0])]
    size = rng.integers(1, 5, n)
    old = _base._SHORT_CODES
    try:
        _base._SHORT_CODES = 2
        codes = [_base._small_codes(k) for k in keys]
        order = lexicographic_order(keys, n)
        got, sums = aggregate(keys, size) if keys else ((), None)
    finally:
        _base._SHORT_CODES = old
    if any(c is not None and c.dtype == np.uint32 for c in codes[:-1]):
        reference = np.lexsort(tuple(reversed(keys)))
        for k in keys:
            np.testing.assert_array_equal(k[order], k[reference])
        cells, expected = _brute(keys, size)
        assert [tuple(k[i].item() for k in got) for i in range(sums.shape[0])] == cells
        assert sums.tolist() == expected


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["int64", "int32", "int8", "uint8", "uint16", "bool"]),
       st.integers(0, 300), st.integers(-50, 50), st.integers(1, 400), st.integers(0, 2**32 - 1))
def test_unique_inverse_of_small_codes_equals_numpys(dtype, n, low, span, seed):
    """Class codes are counted, not sorted: the same distinct values (and dtype) and
    the same inverse as ``np.unique``; other values fall back to it."""
    from dartboard.families._base import _unique_inverse

    rng = np.random.default_rng(seed)
    if dtype == "bool":
        values = rng.integers(0, 2, n).astype(bool)
    else:
        info = np.iinfo(dtype)
        lo = max(low, int(info.min))
        values = rng.integers(lo, min(lo + span, int(info.max) + 1), n).astype(dtype)
    found, at = _unique_inverse(values)
    want, inverse = np.unique(values, return_inverse=True)
    assert found.dtype == want.dtype
    np.testing.assert_array_equal(found, want)
    np.testing.assert_array_equal(at, inverse.reshape(-1))
    wide = rng.integers(0, 2**40, n)  # beyond a small range: np.unique itself
    np.testing.assert_array_equal(_unique_inverse(wide)[1],
                                  np.unique(wide, return_inverse=True)[1].reshape(-1))
