"""The statistical kernels every interval is built from: proportion, DeLong, logit and
influence-function formulas (``_analytic``, ``_analytic_rows``), multinomial and
Poisson bootstrap draws and their intervals (``_bootstrap``), cluster-robust terms and
their small-sample variances (``_clustered_analytic``, ``_clustered``), the calibration
bins' pivot (``_calibration``, ``_clustered_calibration``), multilabel patterns
(``_multilabel``), the method names (``_methods``) and the result type (``_result``).

They sit below the metric families (:mod:`dartboard.families`), which build their
replicates and analytic intervals from them, and below :mod:`dartboard.uncertainty`,
whose interval functions ask the families. Nothing here imports a family. The public
names defined here (:class:`~dartboard.uncertainty.Interval`,
:class:`~dartboard.uncertainty.IntervalWarning`,
:func:`~dartboard.uncertainty.calibration_bins`) are used through
:mod:`dartboard.uncertainty` and the top-level package.
"""
