"""The errors family: medians of the errors (median absolute error, median absolute
deviation).

State (:class:`ErrorCells`): the errors ``e = y_true - y_pred`` grouped by (error,
weight). The value is the metric itself on the errors (its own median or weighted
percentile; both metrics depend on the errors only). A replicate calls it on the
cells with the drawn row counts as repeats (without weights) or as multiplied
weights (with weights: a weighted percentile does not change when a row is split
into repeats of it), O(rows) per replicate, as resampling the rows is. No analytic
interval. A merged streamed state keeps its cells up to
:data:`~dartboard.families._means.MAX_CELLS`; beyond, the errors go into a
:class:`~dartboard.metrics.QuantileSketch` (relative accuracy ``relative_accuracy``),
whose estimates carry a guaranteed error bound and no interval.
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
    State,
    aggregate,
    place,
)
from dartboard.families._means import MAX_CELLS
from dartboard.metrics._sketches import QuantileSketch

__all__ = ["ErrorCells", "ErrorsFamily", "FAMILY"]

_NAMES = ("median_absolute_error", "median_absolute_deviation")


@dataclasses.dataclass(frozen=True, eq=False)
class ErrorCells(State):
    """Errors grouped by (error, weight), or past ``MAX_CELLS`` their quantile sketch.

    ``weighted`` whether rows carried weights; ``rows`` the rows counted.
    """

    error: np.ndarray | None
    weight: np.ndarray | None
    size: np.ndarray | None
    weighted: bool
    rows: int
    relative_accuracy: float = 1e-3
    sketch: QuantileSketch | None = None

    @classmethod
    def from_rows(cls, y: np.ndarray, y_hat: np.ndarray, weight: np.ndarray | None,
                  relative_accuracy: float = 1e-3) -> ErrorCells:
        e = np.asarray(y, dtype=np.float64) - np.asarray(y_hat, dtype=np.float64)
        w = np.ones(e.shape[0]) if weight is None else weight.astype(np.float64)
        (ee, ww), size = aggregate((e, w), np.ones(e.shape[0], dtype=np.int64))
        return cls(ee, ww, size, weight is not None, int(e.shape[0]), relative_accuracy)

    def as_sketch(self) -> QuantileSketch:
        if self.sketch is not None:
            return self.sketch
        error, weight, size = self.kept
        return QuantileSketch(self.relative_accuracy).update(error, size * weight)

    def merge(self, other: ErrorCells) -> ErrorCells:
        weighted, rows = self.weighted or other.weighted, self.rows + other.rows
        if self.error is not None and other.error is not None:
            mine, theirs = self.kept, other.kept
            (e, w), size = aggregate((np.concatenate([mine[0], theirs[0]]),
                                      np.concatenate([mine[1], theirs[1]])),
                                     np.concatenate([mine[2], theirs[2]]), runs=True)
            if size.shape[0] <= MAX_CELLS:
                return ErrorCells(e, w, size, weighted, rows, self.relative_accuracy)
        return ErrorCells(None, None, None, weighted, rows, self.relative_accuracy,
                          self.as_sketch().merge(other.as_sketch()))

    @property
    def kept(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(error, weight, size) of a state that keeps its cells (no sketch)."""
        assert self.error is not None and self.weight is not None and self.size is not None
        return self.error, self.weight, self.size

    @property
    def keys(self) -> tuple[np.ndarray, np.ndarray]:
        return self.kept[:2]

    def metric(self, metric: Metric, counts: np.ndarray) -> float:
        """The metric on the errors repeated ``counts`` times (weights multiplied)."""
        function = metric.spec.function
        error, weight, _ = self.kept
        if self.weighted:
            keep = counts > 0
            if not keep.any():
                return float("nan")
            e = error[keep]
            return float(function(e, np.zeros_like(e),
                                  sample_weight=counts[keep] * weight[keep]))
        e = np.repeat(error, counts.astype(np.int64))
        return float(function(e, np.zeros_like(e))) if e.shape[0] else float("nan")


class ErrorsFamily(Family):
    """Median-based regression metrics (see the module docstring)."""

    key = "errors"

    def supports(self, metric: Metric) -> bool:
        return metric.name in _NAMES and not metric.kwargs

    def build(self, batch: Batch, metric: Metric) -> ErrorCells:
        return ErrorCells.from_rows(batch.y_true, batch.of(metric), batch.weight,
                                    batch.approximate.get("relative_accuracy", 1e-3))

    def n_rows(self, state: ErrorCells) -> int:
        return state.rows

    def bounded(self, state: ErrorCells) -> bool:
        return True  # cells up to MAX_CELLS, then the quantile sketch

    def value(self, state: ErrorCells, metric: Metric) -> float:
        if state.sketch is not None:
            return float(state.sketch.compute(metric.name))
        return state.metric(metric, state.kept[2])

    def error_bound(self, state: ErrorCells, metric: Metric) -> float | None:
        return None if state.sketch is None else float(state.sketch.error_bound(metric.name))

    def no_cells(self, state: ErrorCells, metric: Metric) -> str:
        return (f"the bootstrap of {metric.name} needs the errors, which a streamed state "
                f"keeps up to {MAX_CELLS:,} distinct values only")

    def _cells(self, state: ErrorCells, metric: Metric) -> Cells:
        def evaluate(counts: np.ndarray) -> np.ndarray:
            return np.array([state.metric(metric, c) for c in counts])

        size = state.kept[2]
        return Cells(size, np.zeros(size.shape[0], dtype=np.int64), evaluate,
                     None, 8 * 4 * int(size.sum()), unstratified=NO_CLASSES)

    def cells(self, state: ErrorCells, metric: Metric) -> Cells | None:
        return None if state.error is None else self._cells(state, metric)

    def pool(self, states: Sequence[ErrorCells], metric: Metric
             ) -> tuple[Cells, list[Cells], list[np.ndarray]] | None:
        if any(s.error is None for s in states):
            return None
        (e, w), size = aggregate((np.concatenate([s.error for s in states]),
                                  np.concatenate([s.weight for s in states])),
                                 np.concatenate([s.size for s in states]), runs=True)
        pooled = ErrorCells(e, w, size, any(s.weighted for s in states),
                            sum(s.rows for s in states))
        return (self._cells(pooled, metric), [self._cells(s, metric) for s in states],
                [place(s.keys, pooled.keys) for s in states])


FAMILY = ErrorsFamily()
