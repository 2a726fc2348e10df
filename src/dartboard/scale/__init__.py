"""Beyond memory and beyond one machine: streaming Parquet, Dask and parallel grids.

* :func:`evaluate_parquet` streams Parquet record batches through mergeable metric
  states in bounded memory.
* :func:`evaluate_dask` computes one state per partition of a Dask DataFrame and
  reduces them in a tree, on any Dask scheduler (Dask is the optional extra
  ``pip install ".[dask]"`` from a clone, imported only when used).
* :func:`evaluate_spark` does the same on the partitions of a Spark DataFrame
  through the DataFrame API only (``mapInArrow``), so Spark Connect works too
  (pyspark is the optional extra ``pip install ".[spark]"`` from a clone).
* :func:`cross_validate_grid` runs a cross-validated hyper-parameter grid through
  :func:`dartboard._parallel.parallel_map` (sequential, loky or a Dask cluster,
  same numbers) and returns scikit-learn's ``cv_results_`` layout for DART.

Both are sources of :func:`dartboard.evaluate` (``evaluate("preds/*.parquet",
y_true="label", ...)``, ``evaluate(dask_frame, ...)``, ``evaluate(spark_frame, ...)``), kept here under
their own names. All return the :class:`~dartboard.Evaluation` that
:func:`dartboard.evaluate` returns (overall, by group with ``groups=``, gaps and
fairness summaries), built from merged states; it says how many rows and files it
came from. The bounded-memory states :class:`BinnedScoreState` and
:class:`QuantileSketch` report their own error bounds.
"""

from dartboard._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach("dartboard.scale", {
    "dartboard.evaluation._parquet": ["evaluate_parquet"],
    "dartboard.evaluation._dask": ["evaluate_dask"],
    "dartboard.evaluation._spark": ["evaluate_spark"],
    "._grid": ["cross_validate_grid"],
    "dartboard.metrics._sketches": ["BinnedScoreState", "QuantileSketch"],
}, namespace=globals())
