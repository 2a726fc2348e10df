"""The names of the interval methods, in one place.

The functions that take a ``method`` check it against these tuples, and the command
line lists them in its help; this module imports only ``typing``, so that ``dartboard
evaluate --help`` shows every method without loading numpy or SciPy.
"""

from typing import Literal, TypeAlias, get_args

__all__ = ["CLUSTERED_ANALYTIC_METHODS", "LOGIT_CLUSTERED", "STUDENTIZED", "PROPORTION_METHODS", "ROC_AUC_METHODS",
           "ASYMPTOTIC_METHODS", "BOOTSTRAP_METHODS", "PIVOT", "METHODS", "IntervalMethod",
           "ProportionMethod", "AsymptoticMethod", "BootstrapMethod", "ClusteredMethod"]

#: binomial proportion intervals (:mod:`dartboard._kernels._analytic`)
ProportionMethod: TypeAlias = Literal["wald", "wilson", "clopper-pearson", "agresti-coull",
                                      "jeffreys"]
#: large-sample intervals (:mod:`dartboard._kernels._analytic`)
AsymptoticMethod: TypeAlias = Literal["delong-logit", "newcombe", "logit", "influence-logit",
                                      "t"]
BootstrapMethod: TypeAlias = Literal["percentile", "basic", "bca"]
ClusteredMethod: TypeAlias = Literal["wald-clustered", "wilson-clustered", "t-clustered",
                                     "delong-clustered",
                                     "delong-logit-clustered",
                                     "delta-clustered", "jackknife-logit-clustered",
                                     "influence-logit-clustered",
                                     "bootstrap-t-clustered"]
#: every ``method`` of :func:`dartboard.interval` (and ``ci`` of :func:`dartboard.evaluate`);
#: ``"bin-pivot"`` is the calibration error's bias-aware bootstrap
#: (:mod:`dartboard._kernels._calibration`)
IntervalMethod: TypeAlias = Literal["auto", ProportionMethod, "delong", AsymptoticMethod,
                                    BootstrapMethod, "bin-pivot", ClusteredMethod]

PROPORTION_METHODS: tuple[str, ...] = get_args(ProportionMethod)
ASYMPTOTIC_METHODS: tuple[str, ...] = get_args(AsymptoticMethod)
#: the intervals of a binary ROC AUC (DeLong's, also on the logit scale, and Newcombe's)
ROC_AUC_METHODS = ("delong", "delong-logit", "newcombe")
BOOTSTRAP_METHODS: tuple[str, ...] = get_args(BootstrapMethod)
#: cluster-robust intervals of rows in clusters (:mod:`dartboard._kernels._clustered_analytic`):
#: ratios of counts, mean losses, ROC AUC, other count metrics (the delta method; and
#: ``jackknife-logit-clustered``, a count metric in [0, 1] on the logit scale with the
#: CR3 jackknife variance,
#: ``logit(theta) +- t_df sqrt((I-1)/I sum_c (t_c / (1 - h_c))^2) / (theta (1 - theta))``,
#: :func:`dartboard._kernels._clustered_analytic.clustered_interval`), and the
#: studentized bootstrap of whole clusters of a ratio's cluster-robust statistic
CLUSTERED_ANALYTIC_METHODS: tuple[str, ...] = get_args(ClusteredMethod)
#: the symmetric bootstrap-t of whole clusters (:func:`dartboard._kernels._clustered.
#: studentized_interval`): the one cluster-robust method that draws resamples
STUDENTIZED = "bootstrap-t-clustered"
#: the cluster-robust intervals formed on the logit scale and carried back
LOGIT_CLUSTERED = ("delong-logit-clustered", "influence-logit-clustered",
                   "jackknife-logit-clustered")
PIVOT = "bin-pivot"
METHODS: tuple[str, ...] = get_args(IntervalMethod)
