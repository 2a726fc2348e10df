"""The names of the interval methods, in one place.

The functions that take a ``method`` check it against these tuples, and the command
line lists them in its help; this module imports nothing, so that ``dartboard
evaluate --help`` shows every method without loading numpy or SciPy.
"""

__all__ = ["CLUSTERED_ANALYTIC_METHODS", "PROPORTION_METHODS", "ROC_AUC_METHODS", "ASYMPTOTIC_METHODS",
           "BOOTSTRAP_METHODS", "PIVOT", "METHODS"]

#: binomial proportion intervals (:mod:`dartboard.uncertainty._analytic`)
PROPORTION_METHODS = ("wald", "wilson", "clopper-pearson", "agresti-coull", "jeffreys")
#: large-sample intervals (:mod:`dartboard.uncertainty._asymptotic`)
ASYMPTOTIC_METHODS = ("delong-logit", "newcombe", "logit", "influence-logit", "t")
#: the intervals of a binary ROC AUC (DeLong's, also on the logit scale, and Newcombe's)
ROC_AUC_METHODS = ("delong", "delong-logit", "newcombe")
BOOTSTRAP_METHODS = ("percentile", "basic", "bca")
#: cluster-robust intervals of rows in clusters (:mod:`dartboard.uncertainty._clustered_analytic`):
#: ratios of counts, mean losses, ROC AUC, other count metrics (the delta method)
CLUSTERED_ANALYTIC_METHODS = ("wald-clustered", "t-clustered", "delong-clustered",
                              "delta-clustered")
#: the calibration error's bias-aware bootstrap (:mod:`dartboard.uncertainty._calibration`)
PIVOT = "bin-pivot"
#: every ``method`` of :func:`dartboard.interval` (and ``ci`` of :func:`dartboard.evaluate`)
METHODS = ("auto", *PROPORTION_METHODS, "delong", *ASYMPTOTIC_METHODS, *BOOTSTRAP_METHODS,
           PIVOT, *CLUSTERED_ANALYTIC_METHODS)
