"""The evaluation engine, below the faces (command line, demo, report).

- :func:`evaluate` (``dartboard.evaluate``) and :class:`Evaluation`: every metric
  with its interval, overall, per group and between groups; tables, JSON, a
  notebook view, a figure, the HTML report and MLflow logging.
- :class:`EvaluationOptions`: the options of an evaluation as one checked object,
  read by every source (arrays, tables, Parquet, Dask, Spark), the command line and
  the report.

- :class:`EvaluationResult` (``Evaluation.result``) and its parts (:class:`MetricRow`, :class:`RocPoints`,
  :class:`PrPoints`, :class:`Confusion`, :class:`CalibrationPoints`,
  :class:`ErrorPoints`, :class:`FitPoints`, :class:`Assumption`): frozen, typed; ``to_dict()`` gives the
  JSON section.
- :func:`infer_task`, :data:`TASKS`; :func:`calibration_points`.

Names load lazily, so importing this package costs nothing until it is used.
"""

from dartboard._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(
    "dartboard.evaluation",
    {"._evaluate": ["evaluate"],
     "._options": ["EvaluationOptions"],
     "._evaluation": ["Evaluation"],
     "._engine": ["infer_task", "TASKS"],
     "._points": ["calibration_points"],
     "._result": ["EvaluationResult", "MetricRow", "RocPoints", "PrPoints", "Confusion",
                  "CalibrationPoints", "ErrorPoints", "FitPoints", "Assumption"]},
    namespace=globals())
