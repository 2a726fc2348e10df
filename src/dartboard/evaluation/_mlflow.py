"""Logging an :class:`~dartboard.evaluation.Evaluation` to MLflow (an optional extra)."""

from __future__ import annotations

import math
import re
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["log_evaluation"]

# MLflow metric names: alphanumerics, underscores, dashes, periods, spaces, slashes
_UNSAFE = re.compile(r"[^0-9A-Za-z_\-. /]")


def _mlflow() -> Any:
    try:
        import mlflow
    except ImportError:
        raise ImportError("log_mlflow needs MLflow: pip install 'dartboard[mlflow]' "
                          "(or mlflow / mlflow-skinny)") from None
    return mlflow


def metric_name(*parts: str) -> str:
    """An MLflow-safe metric name from its parts (unsafe characters become ``_``)."""
    return _UNSAFE.sub("_", "/".join(p for p in parts if p))


def log_evaluation(evaluation: Any, *, prefix: str = "", report: bool = True) -> None:
    """Each metric with its bounds, per group too, and the report as an artifact."""
    mlflow = _mlflow()
    values: dict[str, float] = {}

    def add(name: str, row: Any) -> None:
        for suffix, value in (("", row.estimate), ("_low", row.low), ("_high", row.high)):
            if value is not None and math.isfinite(value):
                values[metric_name(prefix, name) + suffix] = float(value)

    for row in evaluation.result.metrics:
        add(row.metric, row)
    for row in evaluation.result.groups or ():
        add(f"by_group/{row.group}/{row.metric}", row)
    started = mlflow.active_run() is None
    if started:
        mlflow.start_run(run_name=evaluation.model)
    try:
        mlflow.log_metrics(values)
        params = {"dartboard_task": evaluation.task, "dartboard_n": evaluation.result.n}
        if evaluation.model is not None:
            params["dartboard_model"] = evaluation.model
        if evaluation.n_files is not None:
            params["dartboard_n_files"] = evaluation.n_files
        if evaluation.result.metrics:
            params["dartboard_confidence_level"] = evaluation.result.metrics[0].confidence_level
        mlflow.log_params(params)
        if report:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "dartboard_evaluation.html"
                evaluation.to_html(path)
                mlflow.log_artifact(str(path))
    finally:
        if started:
            mlflow.end_run()
