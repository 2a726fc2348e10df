"""Beyond memory and beyond one machine: streaming Parquet, Dask and parallel grids.

* :func:`evaluate_parquet` streams Parquet record batches through mergeable metric
  states in bounded memory.
* :func:`evaluate_dask` computes one state per partition of a Dask DataFrame and
  reduces them in a tree, on any Dask scheduler (Dask is the optional extra
  ``pip install "dartboard[dask]"``, imported only when used).
* :func:`cross_validate_grid` runs a cross-validated hyper-parameter grid through
  :func:`dartboard._parallel.parallel_map` (sequential, loky or a Dask cluster,
  same numbers) and returns scikit-learn's ``cv_results_`` layout for DART.

Both evaluators return a :class:`ScaleResult`. The bounded-memory states
:class:`BinnedScoreState` and :class:`QuantileSketch` report their own error bounds.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "evaluate_parquet": "dartboard.scale._parquet",
    "evaluate_dask": "dartboard.scale._dask",
    "cross_validate_grid": "dartboard.scale._grid",
    "ScaleResult": "dartboard.scale._result",
    "BinnedScoreState": "dartboard.scale._states",
    "QuantileSketch": "dartboard.scale._states",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dartboard.scale' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
