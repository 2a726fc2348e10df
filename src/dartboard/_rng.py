"""Seeds: the one place where ``random_state`` becomes randomness.

Every random step of dartboard takes ``random_state`` (None, an int, a
``numpy.random.SeedSequence``, a ``numpy.random.Generator`` or a legacy
``RandomState``) and asks this module for a generator or for child seeds:

- :func:`check_random_state` gives one Generator;
- :func:`spawn` gives ``n`` independent child SeedSequences, and
  :func:`spawn_generators` Generators made from them, so parallel work does not
  depend on the back-end or on the order in which it runs;
- :func:`child` gives the ``k``-th fixed child of a SeedSequence.

A SeedSequence is a seed, not a stream: spawning from the caller's object would
advance it and give other children on the next call, so it is copied first. The
same seed therefore gives the same bits every time. A Generator is a stream: it
contributes 128 bits drawn from it, so the same Generator state gives the same
children, and the generator moves on.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np

from dartboard.exceptions import InputError, InputTypeError

__all__ = ["RandomStateLike", "check_random_state", "child", "fresh_each_call", "seed_sequence", "spawn",
           "spawn_generators"]

#: what ``random_state`` accepts: None (fresh entropy), an integer seed, a SeedSequence,
#: a Generator or a legacy RandomState
RandomStateLike: TypeAlias = (int | np.integer | np.random.SeedSequence | np.random.Generator
                              | np.random.RandomState | None)

_ACCEPTED = "random_state must be None, an int, a SeedSequence or a numpy Generator"


def _check_int_seed(random_state: Any) -> None:
    if isinstance(random_state, (bool, np.bool_)):
        raise InputTypeError(f"{_ACCEPTED}; got a bool")
    if isinstance(random_state, numbers.Integral) and int(random_state) < 0:
        raise InputError(f"random_state must be non-negative; got {random_state}")


def _describe(x: Any) -> str:
    from dartboard._validation import describe

    return describe(x)


def check_random_state(random_state: Any) -> np.random.Generator:
    """Turn ``None``, an int, a SeedSequence or a Generator into a Generator.

    A Generator is returned as it is (the caller's stream goes on); a legacy
    ``RandomState`` is accepted and wrapped (its next draws seed a new Generator),
    so scikit-learn-style states work.

    Examples
    --------
    >>> bool(check_random_state(0).integers(100) == check_random_state(0).integers(100))
    True
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (numbers.Integral,
                                                         np.random.SeedSequence)):
        _check_int_seed(random_state)
        return np.random.default_rng(random_state)  # type: ignore[arg-type]  # an Integral is an int to numpy
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1, size=4))
    raise InputTypeError(f"{_ACCEPTED}; got {_describe(random_state)}")


def fresh_each_call(random_state: Any) -> bool:
    """Whether :func:`check_random_state` gives a new generator in the same state on
    every call (an int, a SeedSequence; None: fresh entropy, no promise to keep), so
    that draws from it do not depend on the order of the calls; not a caller's
    Generator or RandomState, one stream that the calls share in turn."""
    return not isinstance(random_state, (np.random.Generator, np.random.RandomState))


def generator_when_drawn(random_state: Any
                         ) -> np.random.Generator | Callable[[], np.random.Generator]:
    """:func:`check_random_state` of ``random_state``, made only when first asked for
    (a function that returns the same generator every time) where each call gives a
    fresh one in the same state (:func:`fresh_each_call`): an analytic interval then
    seeds none. A caller's Generator or RandomState is taken now, as before: a
    RandomState is drawn from to seed it, which later draws see."""
    if not fresh_each_call(random_state):
        return check_random_state(random_state)
    made: list[np.random.Generator] = []

    def generator() -> np.random.Generator:
        if not made:
            made.append(check_random_state(random_state))
        return made[0]

    return generator


def seed_sequence(random_state: Any) -> np.random.SeedSequence:
    """A root SeedSequence for ``random_state`` that the caller's object does not share.

    ``None`` draws fresh entropy; an int seeds it; a SeedSequence is copied (so
    spawning from the root never advances the caller's); a Generator or
    RandomState contributes 128 bits drawn from it.
    """
    if isinstance(random_state, np.random.SeedSequence):
        return np.random.SeedSequence(random_state.entropy, spawn_key=random_state.spawn_key,
                                      pool_size=random_state.pool_size)
    if random_state is None or isinstance(random_state, numbers.Integral):
        _check_int_seed(random_state)
        return np.random.SeedSequence(random_state)  # type: ignore[arg-type]  # an Integral is an int to numpy
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(random_state.integers(0, 2**32, size=4).tolist())
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(random_state.randint(0, 2**31 - 1, size=4).tolist())
    raise InputTypeError(f"{_ACCEPTED}; got {_describe(random_state)}")


def spawn(random_state: Any, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent child seeds derived from ``random_state``.

    Examples
    --------
    >>> a, b = spawn(0, 3), spawn(0, 3)
    >>> [s.generate_state(1)[0] for s in a] == [s.generate_state(1)[0] for s in b]
    True
    """
    from dartboard._validation import check_int

    return seed_sequence(random_state).spawn(check_int(n, "n", minimum=0))


def spawn_generators(random_state: Any, n: int) -> list[np.random.Generator]:
    """``n`` independent Generators, one per child of :func:`spawn`."""
    return [np.random.default_rng(s) for s in spawn(random_state, n)]


def child(seed: np.random.SeedSequence, k: int) -> np.random.SeedSequence:
    """The ``k``-th child of ``seed``, without advancing ``seed`` (``spawn()`` counts calls).

    Examples
    --------
    >>> root = np.random.SeedSequence(7)
    >>> child(root, 1).generate_state(1) == child(root, 1).generate_state(1)
    array([ True])
    """
    return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, k),
                                  pool_size=seed.pool_size)
