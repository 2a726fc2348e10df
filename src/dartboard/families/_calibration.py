"""The calibration family: the calibration error (ECE, RMS, MCE) from binned sums.

State: a :class:`~dartboard.metrics.CalibrationState` (per bin and outcome: weight,
sum of confidences and of their squares), mergeable. The value is the metric's own
formula over the sums. A replicate draws the (bin, outcome) cell counts as a
multinomial and each cell's sum of confidences from its mean and variance
(:mod:`dartboard._kernels._calibration` says what is exact and what is the
normal limit); the BCa jackknife is exact per cell. The bin-level bootstrap applies
to one group of whole row counts (binary or top-label, no weights); otherwise the
state has no cells (in memory the rows are resampled instead).

With clusters (:mod:`dartboard._kernels._clustered_calibration`) the cells are each
cluster's bin sums, any weights and kinds, equal-width bins (a replicate of whole
clusters is exactly the error of their rows), and the bin-pivot runs on ``n / D`` rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from dartboard._kernels._calibration import (
    ANALYTIC_MIN_ROWS,
    bin_residuals,
    cell_moments,
    check_draws,
    grouped_bins_normal,
    pivot_interval,
    pivot_intervals_analytic,
    state_bins,
)
from dartboard._kernels._clustered_calibration import (
    cluster_sums,
    effective_state,
    pivot_design_effect,
    state_design_effect,
)
from dartboard._kernels._methods import PIVOT
from dartboard._validation import rescaled_weights
from dartboard.families._base import (
    NORMAL_MIN_ROWS,
    Batch,
    Cells,
    Family,
    Metric,
    State,
    one_pass,
    owners,
)
from dartboard.metrics._calibration import (
    DEFAULT_N_BINS,
    CalibrationState,
    bin_keys,
    binned_state,
    confidences,
    error_from_sums,
    norm_iv,
)

__all__ = ["CalibrationFamily", "FAMILY"]

_STATE_KEYWORDS = ("n_bins", "strategy", "multiclass", "pos_label", "labels")
#: rows every group needs for the ECE's gap replicates from its bins' normal limit
#: (fewer, in any group: every group's cells are drawn)
NORMAL_BINS_MIN_ROWS: float = NORMAL_MIN_ROWS
_KEYWORDS = frozenset({*_STATE_KEYWORDS, "norm", "debiased"})


@dataclasses.dataclass(frozen=True, eq=False)
class CalibrationCells(State):
    """A calibration state and whether its rows carried weights (then its bins hold
    weights, not row counts, and the bin-level bootstrap does not apply)."""

    state: CalibrationState
    weighted: bool

    def merge(self, other: CalibrationCells) -> CalibrationCells:
        return CalibrationCells(self.state.merge(other.state),
                                self.weighted or other.weighted)


class CalibrationFamily(Family):
    """The calibration error (see the module docstring)."""

    key = "calibration"

    def state_key(self, metric: Metric) -> str:
        kw = {k: metric.kwargs[k] for k in _STATE_KEYWORDS if k in metric.kwargs}
        return self.key if not kw else \
            f"{self.key}:{sorted((k, str(v)) for k, v in kw.items())}"

    def supports(self, metric: Metric) -> bool:
        return set(metric.kwargs) <= _KEYWORDS

    def takes(self, y_true: np.ndarray, other: np.ndarray, metric: Metric) -> bool:
        return True

    def build(self, batch: Batch, metric: Metric) -> CalibrationCells:
        kw = metric.kwargs
        return CalibrationCells(binned_state(batch.y_true, batch.of(metric), kw.get("n_bins", 15),
                                       kw.get("strategy", "uniform"),
                                       kw.get("multiclass", "top_label"), batch.weight,
                                       kw.get("pos_label"), second_moment=True,
                                       labels=kw.get("labels")),
                                batch.weight is not None)

    def build_groups(self, batch: Batch, metric: Metric, members: Sequence[np.ndarray]
                     ) -> list[Any]:
        # a cluster's state is built as its rows' own (tests/test_build_groups.py)
        if not one_pass(members):
            return super().build_groups(batch, metric, members)
        return self.build_clusters(batch, metric, members)

    def build_clusters(self, batch: Batch, metric: Metric, members: Sequence[np.ndarray]
                       ) -> list[Any]:
        """Every cluster's state from one pass over the rows: binary scores in
        equal-width bins, without weights, of a named positive class (a streamed
        evaluation's), their confidences and outcomes checked once, then each
        (cluster, outcome, bin)'s count and sums of confidences in one ``bincount``;
        each cluster's state holds :meth:`build`'s numbers of its rows. Other kinds
        (weights, equal-mass bins, probability matrices) build each cluster's state
        from its rows."""
        kw = metric.kwargs
        proba = batch.of(metric)
        if batch.weight is not None or kw.get("strategy", "uniform") != "uniform" or \
                kw.get("pos_label") is None or kw.get("labels") is not None or \
                np.ndim(proba) != 1 or not members:
            return super().build_clusters(batch, metric, members)
        first = np.asarray(members[0])  # its build checks the keywords, as each would
        one = binned_state(batch.y_true[first], np.asarray(proba)[first],
                           kw.get("n_bins", DEFAULT_N_BINS), "uniform",
                           kw.get("multiclass", "top_label"), None, kw["pos_label"],
                           second_moment=True)
        conf, hit, _, kind = confidences(batch.y_true, proba, None, kw["pos_label"],
                                         kw.get("multiclass", "top_label"))
        slots = 2 * (one.n_bins + 1)
        c = len(members)
        owner = owners(members, conf.shape[0])
        conf64 = np.asarray(conf, dtype=np.float64)
        key = owner * slots + bin_keys(conf64, hit, one.n_bins, None)
        shape = (c, 1, 2, one.n_bins + 1)
        weight = np.bincount(key, minlength=c * slots).astype(np.float64).reshape(shape)
        sum_p = np.bincount(key, weights=conf64, minlength=c * slots).reshape(shape)
        sum_p2 = np.bincount(key, weights=conf64 * conf64,
                             minlength=c * slots).reshape(shape)
        n_bins, of = one.n_bins, CalibrationState._of
        return [CalibrationCells(of(n_bins, kind, a, b, d), False)
                for a, b, d in zip(weight, sum_p, sum_p2)]

    def n_rows(self, cells: CalibrationCells) -> int:
        return int(round(float(cells.state.weight[0].sum())))

    def bounded(self, cells: CalibrationCells) -> bool:
        return True  # its bins

    def value(self, cells: CalibrationCells, metric: Metric) -> float:
        state = cells.state
        norm, debiased = norm_iv(metric.kwargs.get("norm", "l1"),
                                 metric.kwargs.get("debiased", False))
        return float(error_from_sums(state.weight, state.sum_p, norm, debiased,
                                     state.multiclass))

    simulated = (PIVOT,)
    # where the bin-pivot interval does not apply (weights, classwise errors) the basic
    # bootstrap, which covers the error better than BCa near zero
    fallback = "basic"

    def methods(self, cells: CalibrationCells, metric: Metric) -> tuple[str, ...]:
        return (PIVOT,) if self._one_group(cells) else ()

    def why_not(self, cells: CalibrationCells, metric: Metric, method: str) -> str:
        return (f"method={method!r} needs unweighted rows and a binary or top-label error "
                "(no sample_weight, no classwise or marginal errors)")

    def simulate(self, cells: CalibrationCells, metric: Metric, method: str, level: float,
                 n_resamples: int, rng: np.random.Generator, estimate: float
                 ) -> tuple[float, float, float, np.ndarray | None]:
        # the plain l1 error (ECE) of 50 rows or more takes the pivot's quantiles from
        # its moments in closed form (no draws: None); fewer rows, the other norms and
        # the debiased error draw them
        check_draws(n_resamples, cells.state.n_bins)
        if _plain_ece(metric) and float(cells.state.weight.sum()) >= ANALYTIC_MIN_ROWS:
            count, events, mean, sd = state_bins(cells.state)
            low, high, se = pivot_intervals_analytic(count, events, mean, sd, estimate, level)
            return float(low[0]), float(high[0]), float(se[0]), None
        norm, debiased = norm_iv(metric.kwargs.get("norm", "l1"),
                                 metric.kwargs.get("debiased", False))
        return pivot_interval(cells.state, estimate, norm, debiased, level, n_resamples, rng)

    def cluster_simulate(self, batch: Batch, metric: Metric, method: str, codes: np.ndarray,
                         n_clusters: int, level: float, n_resamples: int,
                         rng: np.random.Generator, estimate: float
                         ) -> tuple[float, float, float, np.ndarray | None, str, float] | None:
        # the bin-pivot on n / D rows, D the design effect of the error's linearization
        # (dartboard._kernels._clustered_calibration)
        cells = self.build(batch, metric)
        if not self._one_group(cells):
            return None
        kw = metric.kwargs
        state = cells.state
        conf, hit, _, _ = confidences(batch.y_true, batch.of(metric), None, kw.get("pos_label"),
                                      kw.get("multiclass", "top_label"), labels=kw.get("labels"))
        conf = np.asarray(conf, dtype=np.float64)
        key = np.array(bin_keys(conf, hit, state.n_bins,
                                None if state.edges is None else state.edges[0]))
        design = pivot_design_effect(conf, np.asarray(hit, dtype=np.float64), key,
                                     state.n_bins + 1, codes, n_clusters)
        return self._effective_pivot(state, design, metric, method, level, n_resamples, rng,
                                     estimate)

    def cluster_simulate_states(self, merged: CalibrationCells,
                                clusters: list[CalibrationCells], metric: Metric, method: str,
                                level: float, n_resamples: int, rng: np.random.Generator,
                                estimate: float
                                ) -> tuple[float, float, float, np.ndarray | None, str, float] | None:
        """:meth:`cluster_simulate` from the merged state and each cluster's (a streamed
        evaluation): the same design effect from per-cell sums, then the same pivot."""
        if not self._one_group(merged) or merged.state.sum_p2 is None:
            return None
        design = state_design_effect(merged.state, [c.state for c in clusters])
        return self._effective_pivot(merged.state, design, metric, method, level,
                                     n_resamples, rng, estimate)

    def _effective_pivot(self, state: Any, design: float, metric: Metric, method: str,
                         level: float, n_resamples: int, rng: np.random.Generator,
                         estimate: float
                         ) -> tuple[float, float, float, np.ndarray | None, str, float] | None:
        effective = effective_state(state, design)
        if effective.weight.sum() < 2:
            return None
        low, high, se, draws = self.simulate(CalibrationCells(effective, False), metric, method,
                                             level, n_resamples, rng, estimate)
        return low, high, se, draws, f"design effect {design:.2f}", design

    @staticmethod
    def _one_group(calibration: CalibrationCells) -> bool:
        state = calibration.state
        return not calibration.weighted and state.n_groups == 1 and bool(
            np.all(state.weight == np.round(state.weight)))

    #: the ECE's gap replicates come from the groups' bins whenever they can
    moments_first = True

    def group_normal(self, states: Sequence[CalibrationCells], metric: Metric,
                     n_resamples: int, rng: np.random.Generator) -> np.ndarray | None:
        """The ECE's replicates on each group and on all rows from every group's bins'
        normal limit (:func:`~dartboard._kernels._calibration.grouped_bins_normal`): the
        plain l1 error, unweighted binary or top-label states of shared equal-width bins,
        every group of at least :data:`NORMAL_BINS_MIN_ROWS` rows; else None (the cells
        are drawn)."""
        if not _plain_ece(metric) or not states or any(
                not self._one_group(s) or s.state.edges is not None or s.state.sum_p2 is None
                for s in states):
            return None
        found = [bin_residuals(s.state) for s in states]
        count = np.array([f[0] for f in found])
        if np.any(count.sum(axis=1) < NORMAL_BINS_MIN_ROWS):
            return None
        return grouped_bins_normal(np.array([f[1] for f in found]),
                                   np.array([f[2] for f in found]), count, n_resamples, rng)

    def no_cells(self, cells: CalibrationCells, metric: Metric) -> str:
        return ("a bin-level bootstrap of the calibration error needs one group of whole row "
                "counts (binary or top-label, no fractional sample weights)")

    def cells(self, calibration: CalibrationCells, metric: Metric) -> Cells | None:
        state = calibration.state
        if not self._one_group(calibration):
            return None
        norm, debiased = norm_iv(metric.kwargs.get("norm", "l1"),
                                 metric.kwargs.get("debiased", False))
        cell, m, mu, sd = cell_moments(state)
        slots = state.n_bins + 1
        full = 2 * slots

        def error(counts: np.ndarray, sums: np.ndarray) -> np.ndarray:
            weight = np.zeros((counts.shape[0], full))
            sum_p = np.zeros((counts.shape[0], full))
            weight[:, cell], sum_p[:, cell] = counts, sums
            shape = (-1, 1, 2, slots)
            return error_from_sums(weight.reshape(shape), sum_p.reshape(shape), norm,
                                   debiased, state.multiclass)

        def sums(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
            return counts * mu + rng.standard_normal(counts.shape) * np.sqrt(counts) * sd

        def leave_one_out() -> np.ndarray:
            counts = np.broadcast_to(m, (m.shape[0], m.shape[0])).copy()
            counts[np.diag_indices_from(counts)] -= 1.0
            return error(counts, counts * mu)

        # a top-label state does not record the class: stratified draws are per outcome
        # of a binary one only
        why = None if state.multiclass == "binary" else (
            "stratified=True resamples within each class of y_true, which a top-label state "
            "does not record; use stratified=False")
        return Cells(m.astype(np.int64), cell // slots, lambda c: error(c, c * mu),
                     leave_one_out, 8 * 6 * full, (sums, error), unstratified=why)

    def cluster_cells(self, batch: Batch, metric: Metric, clusters: np.ndarray,
                      n_clusters: int) -> tuple[Cells, Any] | None:
        # the error of a replicate of whole clusters is the error of its summed sums,
        # exact for equal-width bins; equal-mass edges are quantiles of the rows, which
        # a resample moves (those replicates rebuild the drawn clusters' rows)
        kw = metric.kwargs
        if kw.get("strategy", "uniform") != "uniform":
            return None
        conf, hit, w, kind = confidences(batch.y_true, batch.of(metric), batch.weight,
                                         kw.get("pos_label"),
                                         kw.get("multiclass", "top_label"),
                                         labels=kw.get("labels"))
        n_bins = int(kw.get("n_bins", DEFAULT_N_BINS))
        shape = (1 if conf.ndim == 1 else conf.shape[1], 2, n_bins + 1)
        matrix = cluster_sums(conf, hit, None if w is None else rescaled_weights(w), n_bins,
                              None, clusters, n_clusters)
        return _summed_cells(matrix, shape, metric, kind), matrix

    def state_cluster_cells(self, states: Sequence[CalibrationCells], metric: Metric,
                            at: np.ndarray | None, n_clusters: int | None
                            ) -> tuple[Cells, Any] | None:
        # each cluster's bin weights and sums of confidences are :meth:`cluster_cells`'s
        # row of the matrix, whole in its state (equal-width bins: equal-mass edges are
        # each state's own quantiles)
        from scipy import sparse

        if not states or any(s.state.edges is not None for s in states):
            return None
        first = states[0].state
        matrix = sparse.csr_matrix(np.stack([np.concatenate(
            (s.state.weight.ravel(), s.state.sum_p.ravel())) for s in states]))
        if at is not None:  # each cluster's row placed among all of them
            place = sparse.csr_matrix((np.ones(len(states)), (at, np.arange(len(states)))),
                                      shape=(n_clusters, len(states)))
            matrix = place @ matrix
        matrix.eliminate_zeros()
        return _summed_cells(matrix, first.weight.shape, metric, first.multiclass), matrix

    def pool(self, states: Sequence[CalibrationCells], metric: Metric
             ) -> tuple[Cells, list[Cells], list[np.ndarray]] | None:
        if any(s.state.edges is not None for s in states):
            return None  # equal-mass edges are each part's own quantiles: no shared bins
        pooled = states[0]
        for s in states[1:]:
            pooled = pooled.merge(s)
        found = [self.cells(s, metric) for s in states]
        whole = self.cells(pooled, metric)
        parts = [p for p in found if p is not None]
        if whole is None or len(parts) < len(found):
            return None
        # a cell is a (outcome, bin) slot, the same in every part
        slots = [cell_moments(s.state)[0] for s in (pooled, *states)]
        return whole, parts, [np.searchsorted(slots[0], s) for s in slots[1:]]


def _plain_ece(metric: Metric) -> bool:
    """Whether ``metric`` is the plain l1 error (the ECE), not debiased: the error the
    closed-form pivot and the bins' normal limit are for."""
    norm, debiased = norm_iv(metric.kwargs.get("norm", "l1"),
                             metric.kwargs.get("debiased", False))
    return norm == "l1" and not debiased


def _summed_cells(matrix: Any, shape: tuple[int, ...], metric: Metric, kind: str) -> Cells:
    """The pooled "cells" of a ``(clusters, 2 F)`` matrix of each cluster's calibration
    sums (:func:`~dartboard._kernels._clustered_calibration.cluster_sums`' columns:
    weights, then sums of confidences, of the ``F`` cells of ``shape``): sums, which
    only the bootstrap of whole clusters draws (as weighted sums of the clusters' rows);
    the error of a replicate is the error of its summed sums, exact for equal-width
    bins."""
    half = int(np.prod(shape))
    norm, debiased = norm_iv(metric.kwargs.get("norm", "l1"),
                             metric.kwargs.get("debiased", False))

    def error(sums: np.ndarray) -> np.ndarray:
        return error_from_sums(sums[:, :half].reshape(-1, *shape),
                               sums[:, half:].reshape(-1, *shape), norm, debiased, kind)

    totals = np.asarray(matrix.sum(axis=0)).ravel()
    return Cells(totals, np.zeros(totals.shape[0], dtype=np.intp), error, None,
                 8 * 4 * 2 * half)


FAMILY = CalibrationFamily()
