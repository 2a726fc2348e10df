"""Seeds: one module turns random_state into generators and child seeds."""

from __future__ import annotations

import numpy as np
import pytest

from dartboard import _rng


def draw(seed):
    return np.random.default_rng(seed).integers(0, 2**62, 4)


def test_same_seed_same_bits():
    for seed in (0, 7, np.random.SeedSequence(11)):
        a = _rng.check_random_state(seed).integers(0, 2**62, 4)
        b = _rng.check_random_state(seed).integers(0, 2**62, 4)
        assert np.array_equal(a, b)
        assert [s.entropy for s in _rng.spawn(seed, 3)] == [s.entropy for s in _rng.spawn(seed, 3)]
        assert np.array_equal(draw(_rng.spawn(seed, 3)[2]), draw(_rng.spawn(seed, 3)[2]))


def test_spawning_does_not_advance_the_callers_seed_sequence():
    seq = np.random.SeedSequence(5)
    first = [draw(s) for s in _rng.spawn(seq, 2)]
    second = [draw(s) for s in _rng.spawn(seq, 2)]
    assert all(np.array_equal(a, b) for a, b in zip(first, second))
    assert seq.n_children_spawned == 0
    # numpy's own spawn would have moved on
    assert not np.array_equal(draw(seq.spawn(1)[0]), draw(seq.spawn(1)[0]))


def test_children_are_independent_streams():
    kids = [draw(s) for s in _rng.spawn(0, 4)]
    assert len({tuple(k) for k in kids}) == 4
    gens = _rng.spawn_generators(0, 2)
    assert np.array_equal(gens[0].integers(0, 2**62, 4), draw(_rng.spawn(0, 2)[0]))


def test_generator_is_a_stream():
    g = np.random.default_rng(3)
    assert _rng.check_random_state(g) is g
    a = [draw(s) for s in _rng.spawn(np.random.default_rng(3), 2)]
    b = [draw(s) for s in _rng.spawn(np.random.default_rng(3), 2)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    g = np.random.default_rng(3)
    first = draw(_rng.spawn(g, 1)[0])
    assert not np.array_equal(first, draw(_rng.spawn(g, 1)[0]))  # the stream moved on


def test_child_is_fixed_and_leaves_the_parent_alone():
    root = np.random.SeedSequence(9)
    assert np.array_equal(draw(_rng.child(root, 1)), draw(_rng.child(root, 1)))
    assert not np.array_equal(draw(_rng.child(root, 0)), draw(_rng.child(root, 1)))
    assert root.n_children_spawned == 0
    # the k-th child is numpy's k-th spawned child
    assert np.array_equal(draw(_rng.child(root, 1)), draw(np.random.SeedSequence(9).spawn(2)[1]))


def test_legacy_random_state_accepted():
    assert isinstance(_rng.check_random_state(np.random.RandomState(0)), np.random.Generator)
    assert len(_rng.spawn(np.random.RandomState(0), 2)) == 2


@pytest.mark.parametrize("bad, exc, match", [
    ("seed", TypeError, "random_state must be None, an int"),
    (1.5, TypeError, "random_state must be None, an int"),
    (True, TypeError, "got a bool"),
    (-1, ValueError, "non-negative"),
])
def test_bad_seeds(bad, exc, match):
    with pytest.raises(exc, match=match):
        _rng.check_random_state(bad)
    with pytest.raises(exc, match=match):
        _rng.spawn(bad, 2)


@pytest.mark.parametrize("make", [lambda: 7, lambda: np.random.SeedSequence(7),
                                  lambda: np.random.default_rng(7),
                                  lambda: np.random.RandomState(7)])
def test_fresh_each_call_says_whether_two_calls_draw_the_same(make):
    state = make()
    first = _rng.check_random_state(state).random(3)
    second = _rng.check_random_state(state).random(3)
    assert _rng.fresh_each_call(state) == bool(np.array_equal(first, second))


def test_a_generator_when_drawn_is_made_once_and_only_when_asked_for():
    """An int or a SeedSequence: a function that makes the generator the first time
    (the same draws as one made at once) and then hands back the same one; a caller's
    Generator is returned as it is, and a RandomState is drawn from at once, as
    check_random_state does (its later draws see that)."""
    made = _rng.generator_when_drawn(7)
    assert callable(made)
    first = made()
    assert made() is first
    np.testing.assert_array_equal(first.random(5), _rng.check_random_state(7).random(5))
    stream = np.random.default_rng(3)
    assert _rng.generator_when_drawn(stream) is stream
    legacy, twin = np.random.RandomState(5), np.random.RandomState(5)
    taken = _rng.generator_when_drawn(legacy)
    assert isinstance(taken, np.random.Generator)
    _rng.check_random_state(twin)
    assert legacy.randint(0, 1000) == twin.randint(0, 1000)  # advanced alike
