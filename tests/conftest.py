"""Fixtures shared by several test files."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

# figures made through pyplot must never open a window during the tests; set before any
# test imports matplotlib, and inherited by the subprocesses the tests start
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(autouse=True)
def _close_pyplot_figures():
    """Close the pyplot figures a test made (plots without ``ax`` go through pyplot), so
    that none outlives its test and pyplot never warns of too many open figures."""
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


@pytest.fixture(scope="module")
def binary_data():
    """300 binary labels and probabilities of the positive class (fixed seed)."""
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 300)
    proba = np.clip(0.3 * y + 0.7 * rng.random(300), 0, 1)
    return y, proba
