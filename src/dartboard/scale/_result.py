"""The result of a streaming or Dask evaluation."""

from __future__ import annotations

import dataclasses
from typing import Any

from dartboard._results import Result, to_jsonable

__all__ = ["ScaleResult"]


@dataclasses.dataclass(frozen=True, repr=False)
class ScaleResult(Result):
    """Metrics of a dataset evaluated batch by batch (streaming) or partition by partition (Dask).

    Everything needed to print a metrics table is here: ``metrics`` maps each
    metric name to its value (in the order requested), ``error_bounds`` gives the
    largest possible distance to the exact value for the metrics computed from a
    bounded-memory state (binned scores, quantile sketch; absent means exact), and
    ``intervals`` the confidence interval of each metric that has one.
    :meth:`table` lays them out as a DataFrame (columns ``metric``, ``value``,
    ``error_bound``, ``low``, ``high``).

    Attributes
    ----------
    metrics : dict of str to float
        Metric values.
    n_rows : int
        Rows read.
    n_files : int
        Files read (Parquet input) or partitions reduced (Dask DataFrame input).
    mode : {"exact", "binned"}
        ``"binned"`` when ROC AUC and AP come from fixed score bins (``exact=False``).
    task : {"binary", "multiclass", "regression"}
        What the columns were evaluated as (classification is binary with at most
        two classes in the data, else multiclass, as in ``dartboard evaluate``).
    error_bounds : dict of str to float
        ``|reported - exact| <= bound`` for each approximated metric.
    intervals : dict of str to Interval
        Confidence intervals (``confidence_level`` given), computed from the states.
    confidence_level : float or None
    states : dict of str to state
        The merged states (``"counts"``: :class:`~dartboard.metrics.ConfusionCounts`,
        ``"scores"``: :class:`~dartboard.metrics.ScoreState` or
        :class:`BinnedScoreState` (one per class, averaged, for multiclass
        ``proba``), ``"moments"``: :class:`~dartboard.metrics.RegressionMoments`,
        ``"errors"``: :class:`QuantileSketch`, ``"losses"``: summed log loss and
        Brier terms with their total weight, ``"calibration"``:
        :class:`~dartboard.metrics.CalibrationState`). Merge more data into them later
        and call ``compute`` again. Left out of ``repr`` and ``to_dict``.
    """

    metrics: dict[str, float]
    n_rows: int
    n_files: int
    mode: str
    task: str
    error_bounds: dict[str, float] = dataclasses.field(default_factory=dict)
    intervals: dict[str, Any] = dataclasses.field(default_factory=dict)
    confidence_level: float | None = None
    states: dict[str, Any] = dataclasses.field(default_factory=dict, repr=False)

    def rows(self) -> tuple[Any, ...]:
        """The evaluation engine's rows (:class:`dartboard.evaluation.MetricRow`), one per
        metric, labelled for this task; ``method`` is ``"n/a"`` without an interval."""
        from dartboard.evaluation import MetricRow
        from dartboard.metrics._registry import get_spec

        rows = []
        for name, value in self.metrics.items():
            iv = self.intervals.get(name)
            rows.append(MetricRow(
                get_spec(name).table_label(self.task), float(value),
                None if iv is None else float(iv.low), None if iv is None else float(iv.high),
                "n/a" if iv is None else iv.method,
                self.confidence_level if iv is None else float(iv.confidence_level),
                self.n_rows, error_bound=self.error_bounds.get(name)))
        return tuple(rows)

    def table(self) -> Any:
        """One row per metric: ``metric``, ``value``, ``error_bound``, ``low``, ``high``."""
        import pandas as pd

        rows = []
        for name, value in self.metrics.items():
            interval = self.intervals.get(name)
            rows.append({"metric": name, "value": value,
                         "error_bound": self.error_bounds.get(name, 0.0),
                         "low": getattr(interval, "low", float("nan")),
                         "high": getattr(interval, "high", float("nan"))})
        return pd.DataFrame(rows, columns=["metric", "value", "error_bound", "low", "high"])

    def to_dict(self) -> dict[str, Any]:
        """The fields as JSON-ready values, without the states."""
        return {f.name: to_jsonable(getattr(self, f.name))
                for f in dataclasses.fields(self) if f.name != "states"}
