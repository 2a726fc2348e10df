"""One check for "the same evaluation from another source": rows, intervals and methods
of ``overall`` and ``by_group`` equal to 1e-9 (used by the front-door and Spark tests)."""

from __future__ import annotations

import numpy as np

COLUMNS = ["estimate", "low", "high"]


def same_rows(ev, expected) -> None:
    for table in ("overall", "by_group"):
        got, want = getattr(ev, table), getattr(expected, table)
        if want is None:
            assert got is None
            continue
        assert list(got.index) == list(want.index)
        np.testing.assert_allclose(got[COLUMNS].to_numpy(float), want[COLUMNS].to_numpy(float),
                                   rtol=0, atol=1e-9, equal_nan=True)
        assert list(got["method"]) == list(want["method"])
