"""Fuzz the surfaces that touch files and stores (issue 29): the streamed evaluations
over hostile folders (links that loop or repeat a file, damaged pages, weights that
are all zero, files without rows), the writers over hostile targets (FIFOs, links,
directories), MLflow keys of hostile group labels, and ``dartboard report`` over
hand-edited results (tests/_fuzz_files.py holds the cases and their oracles).

The default profile runs a few seeded cases per surface;
``DARTBOARD_FUZZ_EXAMPLES=200 pytest -m slow tests/test_fuzz_files.py`` (or
``python benchmarks/fuzz_long.py``) runs many more.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from _fuzz_files import SURFACES, run_surface

LONG = int(os.environ.get("DARTBOARD_FUZZ_EXAMPLES", "100"))
#: cases per surface in the default suite (rendering a report costs the most)
SHORT = {"dartboard report (edited)": 3, "evaluate_dask (files)": 4}

posix = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and links are POSIX")


def check(name, seed):
    if "dask" in name:
        pytest.importorskip("dask.dataframe")
    if "mlflow" in name:
        pytest.importorskip("mlflow")
    outcome, where = run_surface(name, np.random.default_rng(seed))
    assert outcome in ("ok", "refused"), f"{outcome}: {where}"


@posix
@pytest.mark.parametrize("name, seed", [(name, seed) for name in sorted(SURFACES)
                                        for seed in range(SHORT.get(name, 8))])
def test_fuzz_surface(name, seed):
    check(name, seed)


@posix
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SURFACES))
def test_fuzz_surface_long(name):
    for seed in range(1000, 1000 + LONG):
        check(name, seed)
