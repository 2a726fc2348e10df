"""Seeding and parallel execution: results must not depend on the back-end."""

import functools

import numpy as np
import pytest

from dartboard._parallel import parallel_map, resolve_backend
from dartboard._rng import spawn as spawn_seeds


def _draw(seed: np.random.SeedSequence, size: int = 5) -> np.ndarray:
    return np.random.default_rng(seed).random(size)


def test_spawn_seeds_reproducible_and_independent():
    a = [_draw(s) for s in spawn_seeds(42, 4)]
    b = [_draw(s) for s in spawn_seeds(42, 4)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], a[1])
    assert not np.array_equal(_draw(spawn_seeds(43, 1)[0]), a[0])


def test_same_seed_sequence_gives_the_same_seeds_every_call():
    seed = np.random.SeedSequence(123)
    a = [_draw(s) for s in spawn_seeds(seed, 3)]
    b = [_draw(s) for s in spawn_seeds(seed, 3)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert seed.n_children_spawned == 0  # the caller's object is left as it was


def test_spawn_seeds_from_generator_is_deterministic():
    a = [_draw(s) for s in spawn_seeds(np.random.default_rng(7), 3)]
    b = [_draw(s) for s in spawn_seeds(np.random.default_rng(7), 3)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("bad, exc, match", [
    (-1, ValueError, "non-negative"), ("seed", TypeError, "random_state"),
    (True, TypeError, "random_state")])
def test_spawn_seeds_rejects_bad_random_state(bad, exc, match):
    with pytest.raises(exc, match=match):
        spawn_seeds(bad, 2)


def test_results_identical_across_backends():
    seeds = spawn_seeds(0, 6)
    func = functools.partial(_draw, size=3)
    seq = parallel_map(func, seeds)
    thr = parallel_map(func, seeds, n_jobs=2, backend="threading")
    loky = parallel_map(func, seeds, n_jobs=2, backend="loky")
    for x, y, z in zip(seq, thr, loky):
        np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(x, z)


def test_progress_bar_runs_and_keeps_order():
    assert parallel_map(abs, [-3, 2, -1], progress=True) == [3, 2, 1]


@pytest.mark.parametrize("progress", [None, False])
def test_progress_bar_off_a_terminal_writes_nothing(capfd, progress):
    # automatic bars stay off a pipe or a log (a transient bar cannot be erased there)
    assert parallel_map(abs, [-3, 2], progress=progress) == [3, 2]
    assert capfd.readouterr().err == ""


def test_progress_true_draws_the_bar_even_off_a_terminal(capfd):
    assert parallel_map(abs, [-3, 2], progress=True, description="tasks") == [3, 2]
    err = capfd.readouterr().err
    assert "tasks" in err and "2/2" in err


@pytest.mark.parametrize("n_jobs, backend, exc, match", [
    (0, None, ValueError, "n_jobs"), (1.5, None, TypeError, "n_jobs"),
    (2, "spark", ValueError, "backend")])
def test_resolve_backend_rejects_bad_arguments(n_jobs, backend, exc, match):
    with pytest.raises(exc, match=match):
        resolve_backend(n_jobs, backend)


def test_resolve_backend_defaults():
    assert resolve_backend(None, None)[:2] == (1, "sequential")
    assert resolve_backend(2, None)[:2] == (2, "loky")
