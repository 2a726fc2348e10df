"""Paired sign-flip permutation test on n paired results (e.g. fold scores)."""

from __future__ import annotations

from typing import Any, get_args

import numpy as np
from numpy.typing import ArrayLike

from dartboard._rng import RandomStateLike, check_random_state
from dartboard._typing import Alternative
from dartboard._validation import (
    as_float_array,
    check_consistent_length,
    check_n_resamples,
    check_option,
)
from dartboard.compare._results import TestResult
from dartboard.exceptions import InputError, InputTypeError
from dartboard.families._paired import sign_flip_null

__all__ = ["permutation_test", "MAX_EXACT_PAIRS", "ALTERNATIVES"]

ALTERNATIVES: tuple[str, ...] = get_args(Alternative)

#: Exact enumeration of the 2**n sign flips is used up to this many pairs
#: (2**20 = 1,048,576 flips, about 8 MB of null distribution).
MAX_EXACT_PAIRS = 20
# Hard ceiling for exact=True: beyond it the null distribution no longer fits in memory.
_MAX_FORCED_EXACT_PAIRS = 24
# Rows of the flip matrix handled at once, so memory stays bounded.
_CHUNK = 1 << 16
# Relative tolerance under which two statistics count as tied (as scipy does:
# sums of the same floats in another order differ in the last bits).
_TIE_RTOL = 100 * np.finfo(np.float64).eps


def _permutation_test_iv(a: Any, b: Any, n_resamples: Any, alternative: Any,
                         exact: Any, random_state: Any
                         ) -> tuple[np.ndarray, int, str, bool, np.random.Generator | None]:
    a = as_float_array(a, name="a")
    b = as_float_array(b, name="b")
    n = check_consistent_length(("a", a), ("b", b))
    if n < 2:
        raise InputError(f"a and b must hold at least 2 pairs; got {n}")
    n_resamples = check_n_resamples(n_resamples)
    check_option(alternative, "alternative", ALTERNATIVES)
    if exact is None:
        exact = n <= MAX_EXACT_PAIRS
    elif not isinstance(exact, (bool, np.bool_)):
        raise InputTypeError(f"exact must be None, True or False; got {exact!r}")
    elif exact and n > _MAX_FORCED_EXACT_PAIRS:
        raise InputError(f"exact=True enumerates 2**n sign flips and supports at most "
                         f"{_MAX_FORCED_EXACT_PAIRS} pairs; got {n}. Use exact=None or False")
    # checked even when the exact test draws nothing: a bad seed is a mistake either
    # way (a legacy RandomState is valid, and is not drawn from unless needed)
    rng = None if exact and isinstance(random_state, np.random.RandomState) \
        else check_random_state(random_state)
    return a - b, n_resamples, alternative, bool(exact), rng


def count_extreme(null: np.ndarray, observed: float, alternative: str,
                  scale: float = 0.0) -> int:
    """How many null statistics are at least as extreme as ``observed``.

    Ties are judged within ``100 eps`` of ``max(|observed|, scale)``: a mean of
    terms of size ``scale`` carries their rounding error, however close to zero
    the mean itself is (``observed`` alone would make the tolerance vanish there).
    """
    gamma = max(abs(observed), scale) * _TIE_RTOL
    if alternative == "greater":
        return int(np.count_nonzero(null >= observed - gamma))
    if alternative == "less":
        return int(np.count_nonzero(null <= observed + gamma))
    return int(np.count_nonzero(np.abs(null) >= abs(observed) - gamma))


def _exact_null(d: np.ndarray) -> np.ndarray:
    """Mean of s * d for every sign vector s in {-1, 1}^n, flip j given by j's bits."""
    n = d.shape[0]
    total = 1 << n
    bits = np.arange(n, dtype=np.int64)
    out = np.empty(total, dtype=np.float64)
    dsum = d.sum()
    for start in range(0, total, _CHUNK):
        rows = np.arange(start, min(start + _CHUNK, total), dtype=np.int64)
        flips = ((rows[:, None] >> bits) & 1).astype(np.float64)
        # bit 1 = swap the pair: sum(s d) = sum(d) - 2 sum(d over swapped pairs)
        out[start:start + rows.shape[0]] = (dsum - 2.0 * (flips @ d)) / n
    return out


def permutation_test(a: ArrayLike, b: ArrayLike, *, n_resamples: int = 5000,
                     alternative: Alternative = "two-sided", random_state: RandomStateLike = None,
                     exact: bool | None = None) -> TestResult:
    """Paired sign-flip permutation test of ``mean(a - b) = 0``.

    Under the null hypothesis the two results of each pair are exchangeable, so
    each pair's difference ``d_i = a_i - b_i`` keeps or flips its sign with
    probability 1/2. The statistic is ``mean(d)``.

    With n pairs, all ``2**n`` sign flips are enumerated when
    ``n <= MAX_EXACT_PAIRS`` (20, i.e. about one million flips), giving the exact
    p-value ``S / 2**n``, where S counts the flips at least as extreme as the
    observed statistic (the observed one included). Otherwise ``n_resamples``
    random flips give ``p = (S + 1) / (R + 1)``, which is never 0 and is a valid
    p-value for any R. "At least as extreme" means ``|t*| >= |t|`` for
    ``alternative="two-sided"``, ``t* >= t`` for ``"greater"`` (a better than
    b) and ``t* <= t`` for ``"less"``; statistics within ``100 eps`` of the
    observed one count as ties, relative to ``max(|t|, mean |d_i|)``: SciPy's
    ``scipy.stats.permutation_test`` takes ``|t|`` alone, which misses ties
    whose rounding error comes from the terms when their mean is near 0.

    Parameters
    ----------
    a, b : array-like of shape (n,)
        Paired results of two systems (e.g. the scores of two models on the same
        cross-validation folds). At least 2 pairs, all finite.
    n_resamples : int, default 5000
        Random flips in Monte-Carlo mode (ignored when exact), at most 10**8
        (``dartboard._validation.MAX_RESAMPLES``).
    alternative : {"two-sided", "greater", "less"}
        The alternative hypothesis about the difference ``a - b``: ``"two-sided"`` (they
        differ), ``"greater"`` or ``"less"``.
    random_state : None, int, SeedSequence or Generator
        Seed of the random flips.
    exact : bool or None
        None chooses by n; True forces enumeration (n <= 24); False forces
        Monte-Carlo.

    Returns
    -------
    TestResult
        ``statistic`` (mean difference), ``pvalue``, ``null_distribution``,
        ``exact``, ``n_resamples`` (2**n when exact) and ``significant(alpha)``.

    Examples
    --------
    >>> res = permutation_test([0.81, 0.84, 0.79, 0.86], [0.78, 0.80, 0.80, 0.83])
    >>> round(res.statistic, 4), res.pvalue, res.exact
    (0.0225, 0.25, True)
    >>> res.significant()
    False
    """
    d, n_resamples, alt, exact, rng = _permutation_test_iv(
        a, b, n_resamples, alternative, exact, random_state)
    observed = float(d.mean())
    scale = float(np.mean(np.abs(d)))
    if exact:
        null = _exact_null(d)
        pvalue = count_extreme(null, observed, alt, scale) / null.shape[0]
        method = "exact sign-flip permutation test"
    else:
        assert rng is not None  # only the exact test goes without a generator
        null = sign_flip_null(d, n_resamples, rng)
        pvalue = (count_extreme(null, observed, alt, scale) + 1) / (n_resamples + 1)
        method = "Monte-Carlo sign-flip permutation test"
    return TestResult(statistic=observed, pvalue=float(min(pvalue, 1.0)),
                      alternative=alt, method=method, estimate=observed,
                      exact=exact, n_resamples=int(null.shape[0]), null_distribution=null)
