"""Confidence intervals for every metric: analytic where theory is exact, else bootstrap.

- :func:`interval` (metric, y_true, y_other, ...): proportion intervals (wald,
  wilson, clopper-pearson, agresti-coull, jeffreys), DeLong's interval of ROC AUC
  (also on the logit scale) and Newcombe's (2006) for a small class, large-sample intervals that cost one pass (logit
  intervals of AP and PR AUC, influence-function intervals, t for mean losses:
  ``_analytic``), and percentile / basic / BCa bootstrap intervals of any metric
  or callable, with fast paths for count metrics (multinomial confusion matrices)
  and binary AUC / average precision / PR AUC (one sort).
- :func:`interval_from_counts` (metric, ConfusionCounts): the same intervals of a
  count metric from its confusion counts alone (streaming, merged states);
  :func:`interval_from_score_state`: DeLong's interval of ROC AUC from a ScoreState.
- :func:`calibration_bins`, :func:`interval_from_calibration_state`: per-bin
  intervals of a reliability diagram; the calibration error's interval from a
  merged calibration state (the bin-level bootstrap ``interval`` uses).
- :func:`cv_interval` (fold scores): t-interval, with the Nadeau-Bengio correction
  (it undercovers: the folds are correlated).
- :func:`nested_cv_interval` (estimator, X, y): Bates, Hastie and Tibshirani's
  nested cross-validation interval for the error of the model fit on the data,
  with the naive interval beside it (:class:`CVInterval`).
- :func:`roc_band`, :func:`pr_band`: pointwise and simultaneous confidence bands
  of ROC and precision-recall curves (:class:`CurveBand`).
- :func:`select_threshold`, :func:`evaluate_threshold`: an operating point with
  the metrics at it and their intervals (:class:`OperatingPoint`); with
  ``guarantee=``, a threshold whose true recall, FPR or precision meets a target
  with a stated probability.
- :class:`Interval`: the result.

Names load lazily, so importing this package costs nothing until it is used.
"""

from dartboard._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(
    "dartboard.uncertainty",
    {"._interval": ["interval", "cv_interval", "interval_from_calibration_state"],
     "dartboard._kernels._result": ["Interval"],
     "dartboard._kernels._bootstrap": ["IntervalWarning"],
     "._from_states": ["interval_from_counts", "interval_from_score_state"],
     "dartboard._kernels._calibration": ["calibration_bins", "CalibrationBins"],
     "._bands": ["roc_band", "pr_band", "CurveBand"],
     "._thresholds": ["select_threshold", "evaluate_threshold", "OperatingPoint"],
     "._nested": ["nested_cv_interval", "CVInterval"]},
    namespace=globals())
