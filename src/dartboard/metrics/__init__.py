"""Metrics: drop-ins for the same-named ``sklearn.metrics`` functions, and more.

Same positional arguments, same keywords and same values as scikit-learn, computed
from small mergeable states (:class:`ConfusionCounts`, :class:`ScoreState`,
:class:`RegressionMoments`) so that intervals, tests, streaming and Dask reuse them.

Families live in their own private modules: ``_confusion`` (count metrics),
``_classification_report``, ``_ranking`` (curves and AUC), ``_probabilistic`` (log
loss, Brier), ``_calibration`` (calibration error, Brier decomposition, calibration
curve), ``_regression`` (errors, R^2, error distribution) and ``_similarity``.
"""

from dartboard._lazy import attach as _attach
from dartboard.metrics import (
    _calibration,
    _classification_losses,
    _classification_report,
    _confusion,
    _curves,
    _d2_probabilities,
    _label_ranking,
    _operating_points,
    _probabilistic,
    _ranking,
    _regression,
    _regression_losses,
    _similarity,
)
from dartboard.metrics._registry import register_functions as _register_functions
from dartboard.metrics._registry import specs as _specs

# the registry names each metric's module; the functions come from the modules
# themselves, imported here, so that nothing loads a module by the string of its name
_register_functions([_calibration, _classification_losses, _classification_report, _confusion,
                     _curves, _d2_probabilities, _label_ranking, _operating_points, _probabilistic, _ranking,
                     _regression, _regression_losses, _similarity])

# the metric functions are the registry's; beside them each family module exports its
# mergeable state and result classes
_CLASSES = {
    "dartboard.metrics._confusion": ["ConfusionCounts", "UndefinedMetricWarning"],
    "dartboard.metrics._ranking": ["ScoreState"],
    "dartboard.metrics._regression": ["RegressionMoments", "ErrorDistribution"],
    "dartboard.metrics._scorers": ["get_scorer", "get_scorer_names", "make_scorer"],
    "dartboard.metrics._calibration": ["CalibrationState", "BrierDecomposition"],
}
_FAMILIES: dict[str, list[str]] = {}
for _spec in _specs():
    _FAMILIES.setdefault(_spec.module, []).append(_spec.name)
for _module, _names in _CLASSES.items():
    _FAMILIES.setdefault(_module, []).extend(_names)

__getattr__, __dir__, __all__ = _attach("dartboard.metrics", _FAMILIES, namespace=globals())
