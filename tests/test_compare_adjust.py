"""adjust_pvalues against statsmodels' multipletests, and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import dartboard
from dartboard.compare import adjust_pvalues

multitest = pytest.importorskip("statsmodels.stats.multitest")

_PAIRS = [("bonferroni", "bonferroni"), ("holm", "holm"), ("hochberg", "simes-hochberg"),
          ("fdr_bh", "fdr_bh"), ("benjamini-hochberg", "fdr_bh"), ("fdr_by", "fdr_by"),
          ("benjamini-yekutieli", "fdr_by")]


def _inputs():
    rng = np.random.default_rng(15)
    for m in (1, 2, 3, 5, 10, 50):
        yield rng.random(m)
        yield rng.random(m) ** 4  # many small
        # ties, and the ends of the range
        yield rng.choice([0.0, 0.01, 0.01, 0.04, 0.3, 0.3, 1.0], size=m)


@pytest.mark.parametrize("ours, theirs", _PAIRS)
def test_equals_statsmodels(ours, theirs):
    for p in _inputs():
        expected = multitest.multipletests(p, alpha=0.05, method=theirs)[1]
        np.testing.assert_allclose(adjust_pvalues(p, ours), expected, rtol=1e-12, atol=0)


def test_holm_by_definition():
    # the step-down maximum written out with plain loops
    p = np.array([0.02, 0.001, 0.04, 0.02, 0.5])
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    expected = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (m - rank) * p[i])
        expected[i] = min(1.0, running)
    np.testing.assert_allclose(adjust_pvalues(p), expected)


def test_shapes_and_namespace():
    assert dartboard.adjust_pvalues is adjust_pvalues
    assert adjust_pvalues([], "holm").shape == (0,)
    assert adjust_pvalues([0.5], "fdr_by").tolist() == [0.5]


@pytest.mark.parametrize("bad, match", [([0.1, 1.2], r"pvalues must lie in \[0, 1\]; got 1.2"),
                                        ([-0.1], r"pvalues must lie in \[0, 1\]"),
                                        ([0.1, np.nan], "pvalues contains NaN"),
                                        ([np.inf], r"pvalues must lie in \[0, 1\]"),
                                        ([[0.1, 0.2]], "pvalues must be")])
def test_bad_pvalues(bad, match):
    with pytest.raises(ValueError, match=match):
        adjust_pvalues(bad)


def test_bad_method():
    with pytest.raises(ValueError, match="method must be one of .*'holm'.*got 'sidak'"):
        adjust_pvalues([0.1], "sidak")
    with pytest.raises(ValueError, match="method must be one of"):
        adjust_pvalues([0.1], None)
