"""dartboard: how good a model really is, and which one to pick.

Fast drop-in metrics (:mod:`dartboard.metrics`), confidence intervals for each of
them, significance tests between models, DART ranking of hyper-parameter
configurations, stability audits of bootstrap ensembles, pipeline profiles and
streaming evaluation.

Public names are imported lazily, so ``import dartboard`` (and the command line)
stays fast and heavy modules load only when used.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it
_LAZY = {
    "interval": "dartboard.uncertainty",
    "cv_interval": "dartboard.uncertainty",
    "Interval": "dartboard.uncertainty",
    "interval_from_counts": "dartboard.uncertainty",
    "IntervalWarning": "dartboard.uncertainty",
    "permutation_test": "dartboard.compare",
    "compare_models": "dartboard.compare",
    "mcnemar_test": "dartboard.compare",
    "delong_test": "dartboard.compare",
    "corrected_ttest": "dartboard.compare",
    "rank_models": "dartboard.compare",
    "TestResult": "dartboard.compare",
    "Comparison": "dartboard.compare",
    "RankResult": "dartboard.compare",
    "dart_score": "dartboard.selection",
    "dart_rank": "dartboard.selection",
    "dart_sweep": "dartboard.selection",
    "dart_refit": "dartboard.selection",
    "stability_metrics": "dartboard.stability",
    "stability_audit": "dartboard.stability",
    "StabilityResult": "dartboard.stability",
    "profile_pipeline": "dartboard.profiling",
    "Profile": "dartboard.profiling",
}

_SUBMODULES = {"metrics", "scale", "plots", "report"}

__all__ = ["__version__", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"dartboard.{name}")
    raise AttributeError(f"module 'dartboard' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | _SUBMODULES)
