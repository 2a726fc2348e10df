"""The rows family: regression metrics of sums over rows (R^2, explained variance,
weighted MAPE; and the maximum error, which has no interval), resampled as rows.

State (:class:`RowCells`): the rows grouped by (y, y_hat, weight). The value is the
metric of the state's moments (:class:`~dartboard.metrics.RegressionMoments`, the
metric's own formulas and edge cases). A replicate's metric follows from a few
weighted sums of its row counts ``c``: with ``e = y - y_hat`` and ``y`` centred on
its mean (R^2 and the explained variance do not change when ``y`` and ``y_hat``
shift together, and centring keeps the sums of squares accurate),
``R^2 = 1 - sum c w e^2 / (sum c w y^2 - (sum c w y)^2 / sum c w)``; the explained
variance takes the variance of ``e`` in the numerator; WMAPE is
``sum c w |e| / sum c w |y|``. A constant ``y_true`` gives scikit-learn's
``force_finite`` values (1 for a perfect fit, else 0). The BCa jackknife is the
same sums less one row's terms. No analytic interval; a streamed state keeps its
cells up to :data:`~dartboard.families._means.MAX_CELLS` and then its moments only.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dartboard._numeric import vdot
from dartboard.families._base import (
    NO_CLASSES,
    Batch,
    Cells,
    Family,
    Metric,
    State,
    aggregate,
    merged_pool,
)
from dartboard.families._means import MAX_CELLS
from dartboard.metrics._regression import RegressionMoments

__all__ = ["FAMILY", "RowCells", "RowsFamily"]

_EPS = np.finfo(np.float64).eps


@dataclasses.dataclass(frozen=True, eq=False)
class RowCells(State):
    """Rows grouped by (y, y_hat, weight) (None past ``MAX_CELLS``), and their moments."""

    y: np.ndarray | None
    y_hat: np.ndarray | None
    weight: np.ndarray | None
    size: np.ndarray | None
    moments: RegressionMoments

    @classmethod
    def from_rows(cls, y: np.ndarray, y_hat: np.ndarray, weight: np.ndarray | None
                  ) -> RowCells:
        w = np.ones(y.shape[0]) if weight is None else weight.astype(np.float64)
        (a, b, ww), size = aggregate((y.astype(np.float64), y_hat.astype(np.float64), w),
                                     np.ones(y.shape[0], dtype=np.int64))
        return cls(a, b, ww, size, RegressionMoments().update(y, y_hat, sample_weight=weight))

    def merge(self, other: RowCells, *, cap: bool = True) -> RowCells:
        """Both states; past ``MAX_CELLS`` cells (``cap``) the moments only."""
        moments = self.moments.merge(other.moments)
        if self.y is None or other.y is None:
            return RowCells(None, None, None, None, moments)
        mine, theirs = self.kept, other.kept
        (y, y_hat, weight), size = aggregate(
            tuple(np.concatenate([a, b]) for a, b in zip(mine[:3], theirs[:3])),
            np.concatenate([mine[3], theirs[3]]), runs=True)
        if cap and size.shape[0] > MAX_CELLS:
            return RowCells(None, None, None, None, moments)
        return RowCells(y, y_hat, weight, size, moments)

    @property
    def kept(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(y, y_hat, weight, size) of a state that keeps its rows (``y`` not None)."""
        assert self.y is not None and self.y_hat is not None and self.weight is not None \
            and self.size is not None
        return self.y, self.y_hat, self.weight, self.size

    @property
    def keys(self) -> tuple[np.ndarray, ...]:
        return self.kept[:3]


def _features(state: RowCells) -> np.ndarray:
    """(C, 7) per-row terms: w, w y, w y^2, w e, w e^2, w |e|, w |y| (y centred).

    Every metric here is a ratio that does not change when ``y`` and ``y_hat`` (and the
    weights) are scaled: both are divided by a power of two near their largest
    magnitude (exact), so that squares neither overflow at 1e200 nor underflow at
    1e-200.
    """
    y0, y_hat0, weight, size = state.kept
    values = np.concatenate([np.abs(y0), np.abs(y_hat0)])
    top = float(values.max()) if values.size else 0.0
    scale = 2.0 ** -np.round(np.log2(top)) if np.isfinite(top) and top > 0 else 1.0
    wmax = float(np.abs(weight).max()) if weight.size else 0.0
    w = weight * (2.0 ** -np.round(np.log2(wmax)) if wmax > 0 else 1.0)
    y, y_hat = y0 * scale, y_hat0 * scale
    e = y - y_hat
    centre = float(vdot(size * w, y) / vdot(size, w))
    yc = y - centre
    return np.column_stack([w, w * yc, w * yc * yc, w * e, w * e * e, w * np.abs(e),
                            w * np.abs(y)])


def _share_explained(residual: Callable[..., np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """A metric ``1 - residual / (sum of squares of y about its mean)`` of (b, 7) sums
    of :func:`_features`, with scikit-learn's ``force_finite`` values for a constant
    ``y`` (1 for a perfect fit, else 0)."""
    def metric(s: np.ndarray) -> np.ndarray:
        sw, sy, syy, se, see, _, _ = s.T
        with np.errstate(divide="ignore", invalid="ignore"):
            m2_true = np.maximum(syy - sy * sy / sw, 0.0)
            num = residual(sw, se, see)
            out = np.where(m2_true > 0, 1.0 - num / np.where(m2_true > 0, m2_true, 1.0),
                           np.where(num > 0, 0.0, 1.0))
        return np.where(sw > 0, out, np.nan)
    return metric


def _wmape(s: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return s[:, 5] / np.maximum(s[:, 6], _EPS)


#: each metric of the family from (b, 7) sums of :func:`_features`; None: the maximum
#: error, a sample maximum, which no sums give (its replicates take the largest error
#: among the rows drawn, and it has no jackknife)
_FROM_SUMS: dict[str, Callable[[np.ndarray], np.ndarray] | None] = {
    "r2_score": _share_explained(lambda sw, se, see: see),
    "explained_variance_score": _share_explained(
        lambda sw, se, see: np.maximum(see - se * se / sw, 0.0)),
    "weighted_mean_absolute_percentage_error": _wmape,
    "max_error": None,
}


class RowsFamily(Family):
    """Regression metrics of sums over rows (see the module docstring)."""

    key = "rows"

    def supports(self, metric: Metric) -> bool:
        return metric.name in _FROM_SUMS and not metric.kwargs

    def build(self, batch: Batch, metric: Metric) -> RowCells:
        return RowCells.from_rows(batch.y_true, batch.of(metric), batch.weight)

    def n_rows(self, state: RowCells) -> int:
        return int(state.moments.n)

    def bounded(self, state: RowCells) -> bool:
        return True  # cells up to MAX_CELLS, then the moments

    def value(self, state: RowCells, metric: Metric) -> float:
        if state.y is None:  # past MAX_CELLS: the merged moments
            return float(state.moments.compute(metric.name))
        # the metric itself (its edge cases and its care for extreme scales), the cells'
        # repeats as weights (R^2 and the others take weights as frequencies)
        y, y_hat, weight, size = state.kept
        w = size * weight
        if y.shape[0] == 1 and state.moments.n > 1:
            # one distinct row standing for several: two halves of it, so that the
            # metric sees more than one sample (R^2 is undefined on one)
            y, y_hat, w = np.repeat(y, 2), np.repeat(y_hat, 2), np.repeat(w / 2, 2)
        # the repeats as weights, for every metric that takes them (a sample maximum
        # does not: repeats do not change it)
        weighting = {"sample_weight": w} if _takes_weights(metric.spec.function) else {}
        return float(metric.spec.function(y, y_hat, **weighting))

    def no_cells(self, state: RowCells, metric: Metric) -> str:
        return (f"the bootstrap of {metric.name} needs the rows, which a streamed state "
                f"keeps up to {MAX_CELLS:,} distinct rows only")

    def _cells(self, state: RowCells, metric: Metric) -> Cells:
        from_sums = _FROM_SUMS[metric.name]
        y, y_hat, _, size = state.kept
        stratum = np.zeros(size.shape[0], dtype=np.int64)
        if from_sums is None:  # a sample maximum: the largest error among the rows drawn
            abs_error = np.abs(y - y_hat)
            return Cells(size, stratum,
                         lambda counts: np.where(counts > 0, abs_error, -np.inf).max(axis=1),
                         None, 8 * 16, unstratified=NO_CLASSES)
        features = _features(state)
        return Cells(size, stratum, lambda counts: from_sums(counts @ features),
                     lambda: from_sums(size @ features - features), 8 * 16,
                     unstratified=NO_CLASSES)

    def cells(self, state: RowCells, metric: Metric) -> Cells | None:
        return None if state.y is None else self._cells(state, metric)

    def pool(self, states: Sequence[RowCells], metric: Metric
             ) -> tuple[Cells, list[Cells], list[np.ndarray]] | None:
        return merged_pool(self, states, metric, lambda s: s.y is not None)


FAMILY = RowsFamily()


@functools.cache
def _takes_weights(function: Callable[..., Any]) -> bool:
    """Whether a metric function takes ``sample_weight``."""
    return "sample_weight" in inspect.signature(function).parameters
