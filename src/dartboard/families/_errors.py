"""The errors family: medians of the errors (median absolute error, median absolute
deviation).

State (:class:`ErrorCells`): the errors ``e = y_true - y_pred`` grouped by (error,
weight). The value is the metric itself on the errors (its own median or weighted
percentile; both metrics depend on the errors only). A replicate calls it on the
cells with the drawn row counts as repeats (without weights) or as multiplied
weights (with weights: a weighted percentile does not change when a row is split
into repeats of it), O(rows) per replicate, as resampling the rows is. No analytic
interval; a streamed state keeps its cells up to
:data:`~dartboard.families._means.MAX_CELLS`, beyond which streaming uses a
quantile sketch for the estimate and gives no interval.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from dartboard.families._base import (
    NO_CLASSES,
    Batch,
    Cells,
    Family,
    Metric,
    aggregate,
    place,
)

__all__ = ["ErrorCells", "ErrorsFamily", "FAMILY"]

_NAMES = ("median_absolute_error", "median_absolute_deviation")


@dataclasses.dataclass(frozen=True)
class ErrorCells:
    """Errors grouped by (error, weight); ``weighted`` whether rows carried weights."""

    error: np.ndarray
    weight: np.ndarray
    size: np.ndarray
    weighted: bool

    @classmethod
    def from_rows(cls, y: np.ndarray, y_hat: np.ndarray, weight: np.ndarray | None
                  ) -> ErrorCells:
        e = np.asarray(y, dtype=np.float64) - np.asarray(y_hat, dtype=np.float64)
        w = np.ones(e.shape[0]) if weight is None else weight.astype(np.float64)
        (ee, ww), size = aggregate((e, w), np.ones(e.shape[0], dtype=np.int64))
        return cls(ee, ww, size, weight is not None)

    def merge(self, other: ErrorCells) -> ErrorCells:
        (e, w), size = aggregate((np.concatenate([self.error, other.error]),
                                  np.concatenate([self.weight, other.weight])),
                                 np.concatenate([self.size, other.size]))
        return ErrorCells(e, w, size, self.weighted or other.weighted)

    @property
    def keys(self) -> tuple[np.ndarray, np.ndarray]:
        return self.error, self.weight

    def metric(self, metric: Metric, counts: np.ndarray) -> float:
        """The metric on the errors repeated ``counts`` times (weights multiplied)."""
        function = metric.spec.function
        if self.weighted:
            keep = counts > 0
            if not keep.any():
                return float("nan")
            e = self.error[keep]
            return float(function(e, np.zeros_like(e),
                                  sample_weight=counts[keep] * self.weight[keep]))
        e = np.repeat(self.error, counts.astype(np.int64))
        return float(function(e, np.zeros_like(e))) if e.shape[0] else float("nan")


class ErrorsFamily(Family):
    """Median-based regression metrics (see the module docstring)."""

    key = "errors"

    def supports(self, metric: Metric) -> bool:
        return metric.name in _NAMES and not metric.kwargs

    def build(self, batch: Batch, metric: Metric) -> ErrorCells:
        return ErrorCells.from_rows(batch.y_true, batch.of(metric), batch.weight)

    def n_rows(self, state: ErrorCells) -> int:
        return int(state.size.sum())

    def value(self, state: ErrorCells, metric: Metric) -> float:
        return state.metric(metric, state.size)

    def _cells(self, state: ErrorCells, metric: Metric) -> Cells:
        def evaluate(counts: np.ndarray) -> np.ndarray:
            return np.array([state.metric(metric, c) for c in counts])

        return Cells(state.size, np.zeros(state.size.shape[0], dtype=np.int64), evaluate,
                     None, 8 * 4 * int(state.size.sum()), unstratified=NO_CLASSES)

    def cells(self, state: ErrorCells, metric: Metric) -> Cells:
        return self._cells(state, metric)

    def pool(self, states: Sequence[ErrorCells], metric: Metric
             ) -> tuple[Cells, list[Cells], list[np.ndarray]]:
        pooled = states[0]
        for s in states[1:]:
            pooled = pooled.merge(s)
        return (self._cells(pooled, metric), [self._cells(s, metric) for s in states],
                [place(s.keys, pooled.keys) for s in states])


FAMILY = ErrorsFamily()
