"""Fixtures shared by several test files."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def binary_data():
    """300 binary labels and probabilities of the positive class (fixed seed)."""
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 300)
    proba = np.clip(0.3 * y + 0.7 * rng.random(300), 0, 1)
    return y, proba
