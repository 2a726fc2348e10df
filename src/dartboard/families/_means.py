"""The means family: metrics that are a weighted mean of per-sample terms.

``metric = sum_i w_i t_i / sum_i w_i`` (RMSE and RMSLE: its square root), with the
terms ``t_i`` the metric's own per-sample losses (log loss, Brier, the regression
errors, the deviances; :data:`TERMS`). State (:class:`MeanCells`): the rows grouped
by (term, weight). A replicate is ``(c . w t) / (c . w)`` of its row counts ``c``,
and the BCa jackknife is exact in closed form: without one row of cell ``j``,
``(S - w_j t_j) / (W - w_j)``.

Analytic interval ``t`` (rows of weight one): ``mean +- t_{n-1} s / sqrt(n)``
(:func:`dartboard._kernels._analytic.mean_t_interval`); a square root (RMSE)
carries the bounds of its mean over, with the delta method's standard error.

A streamed state keeps its cells while they are at most :data:`MAX_CELLS`;
beyond, merging keeps the sums only (``sum w t``, ``sum w t^2``, ``sum w``, rows),
which give the estimate and the ``t`` interval but no bootstrap.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import special

from dartboard._kernels._bootstrap import IntervalWarning, kept_row_multinomial
from dartboard._kernels._clustered_analytic import ClusterTerms, ratio_terms
from dartboard._labels import encode_labels
from dartboard._numeric import vdot
from dartboard.exceptions import InputError
from dartboard.families._base import (
    BOOTSTRAP_METHODS,
    NO_CLASSES,
    Batch,
    Cells,
    Family,
    Metric,
    State,
    aggregate,
    counted_runs,
    counted_runs_of,
    member_rows,
    merged_pool,
    one_pass,
)
from dartboard.families._paired import PairedMeans
from dartboard.metrics._probabilistic import brier_terms, log_loss_terms
from dartboard.metrics._regression_losses import pinball_terms, squared_log_terms, tweedie_terms

__all__ = ["FAMILY", "MAX_CELLS", "MeanCells", "MeansFamily", "ROW_TERMS", "TERMS",
           "has_row_terms", "row_terms"]

#: the most (term, weight) cells a merged streamed state keeps for the bootstrap
MAX_CELLS = 2**17

#: a classification loss's size for ``ci="auto"``: at most this many times the rows of
#: its rarest class (:meth:`MeansFamily.auto_size`), so that the t-interval, taken from
#: 500 rows (the registry's ``_MEAN_AUTO``), needs 40 rows of every class
ROWS_PER_RARE_ROW = 12.5
_EPS = np.finfo(np.float64).eps


def _errors(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    return np.asarray(y_pred, dtype=np.float64) - np.asarray(y_true, dtype=np.float64)


def _absolute(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> Any:
    return np.abs(_errors(y_true, y_pred)), sample_weight


def _squared(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> Any:
    e = _errors(y_true, y_pred)
    return e * e, sample_weight


def _absolute_percentage(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> Any:
    # the metric's own guard against a zero target
    return np.abs(_errors(y_true, y_pred)) / np.maximum(
        np.abs(np.asarray(y_true, dtype=np.float64)), _EPS), sample_weight


def _tweedie(power: float) -> Callable[..., Any]:
    def terms(y_true: Any, y_pred: Any, **kwargs: Any) -> Any:
        return tweedie_terms(y_true, y_pred, power=power, **kwargs)

    return terms


#: metric -> (per-sample terms function(y_true, y_other, **kwargs) -> (terms, weights),
#: keywords it takes, whether the metric is the square root of the mean)
TERMS: dict[str, tuple[Callable[..., Any], frozenset[str], bool]] = {
    "log_loss": (log_loss_terms, frozenset({"labels", "base"}), False),
    "brier_score_loss": (brier_terms, frozenset({"pos_label", "labels", "scale_by_half"}),
                         False),
    "mean_absolute_error": (_absolute, frozenset(), False),
    "mean_squared_error": (_squared, frozenset(), False),
    "root_mean_squared_error": (_squared, frozenset(), True),
    "mean_absolute_percentage_error": (_absolute_percentage, frozenset(), False),
    "mean_squared_log_error": (squared_log_terms, frozenset(), False),
    "root_mean_squared_log_error": (squared_log_terms, frozenset(), True),
    "mean_pinball_loss": (pinball_terms, frozenset({"alpha"}), False),
    "mean_poisson_deviance": (_tweedie(1), frozenset(), False),
    "mean_gamma_deviance": (_tweedie(2), frozenset(), False),
    "mean_tweedie_deviance": (tweedie_terms, frozenset({"power"}), False),
}


def _agreement(match: bool) -> Callable[..., Any]:
    """Per-row ``1[y_pred = y]`` (``match``) or its complement; a multilabel row agrees
    when all its labels do (accuracy and the 0-1 loss of indicator arrays)."""
    def terms(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> Any:
        t, o = np.asarray(y_true), np.asarray(y_pred)
        equal = t == o if t.ndim == 1 else np.all(t == o, axis=1)
        return (equal if match else ~equal).astype(np.float64), sample_weight

    return terms


#: metrics of other families that are also means of per-row terms (cross-validation
#: inference needs each row's term): accuracy, the 0-1 loss
ROW_TERMS: dict[str, Callable[..., Any]] = {"accuracy_score": _agreement(True),
                                            "zero_one_loss": _agreement(False)}


def has_row_terms(spec: Any) -> bool:
    """Whether the metric (with its default keywords) is the mean of per-row terms that
    :func:`row_terms` gives (RMSE, a root of a mean, is not)."""
    if spec is None:
        return False
    return spec.name in ROW_TERMS or (spec.name in TERMS and not TERMS[spec.name][2])


def row_terms(spec: Any, y_true: Any, y_pred: Any, kwargs: dict[str, Any]) -> np.ndarray:
    """The per-row terms whose mean is the metric, as float64."""
    function = ROW_TERMS.get(spec.name) or TERMS[spec.name][0]
    return np.asarray(function(y_true, y_pred, **kwargs)[0], dtype=np.float64)


@dataclasses.dataclass(frozen=True, eq=False)
class MeanCells(State):
    """Rows grouped by (term, weight), and the sums that survive dropping them.

    ``term``, ``weight`` and ``size`` are None once a merge passed
    :data:`MAX_CELLS`; ``sums`` holds ``(sum w t, sum w t^2, sum w, rows)``;
    ``weighted`` whether the rows carried weights.
    """

    term: np.ndarray | None
    weight: np.ndarray | None
    size: np.ndarray | None
    sums: tuple[float, float, float, int]
    weighted: bool = False
    stratum: np.ndarray | None = None

    @classmethod
    def from_terms(cls, terms: np.ndarray, weight: np.ndarray | None,
                   stratum: np.ndarray | None = None) -> MeanCells:
        """Cells of per-sample terms; ``stratum`` the class code of each row (None for
        regression), a key of the cells so that stratified draws are possible."""
        terms = np.asarray(terms, dtype=np.float64)
        n = terms.shape[0]
        if weight is None:
            return cls.from_runs(*counted_runs(terms, stratum))
        w = weight.astype(np.float64)
        if stratum is None:
            (t, ww), size = aggregate((terms, w), np.ones(n, dtype=np.int64))
            return cls(t, ww, size, _sums(t, ww, size), weight is not None)
        (st, t, ww), size = aggregate((stratum, terms, w), np.ones(n, dtype=np.int64))
        return cls(t, ww, size, _sums(t, ww, size), weight is not None, st)

    @classmethod
    def from_runs(cls, stratum: np.ndarray | None, term: np.ndarray, size: np.ndarray
                  ) -> MeanCells:
        """Cells of unweighted rows from their counted runs (:func:`counted_runs`)."""
        ones = np.ones(term.shape[0])
        return cls(term, ones, size, _sums(term, ones, size), False, stratum)

    @property
    def kept(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(term, weight, size) of a state that keeps its cells (``term`` not None)."""
        assert self.term is not None and self.weight is not None and self.size is not None
        return self.term, self.weight, self.size

    @property
    def keys(self) -> tuple[np.ndarray, ...]:
        parts = self.kept[:2]
        return parts if self.stratum is None else (self.stratum, *parts)

    def merge(self, other: MeanCells, *, cap: bool = True) -> MeanCells:
        """Both states; past :data:`MAX_CELLS` cells (``cap``) the sums only."""
        sums = (self.sums[0] + other.sums[0], self.sums[1] + other.sums[1],
                self.sums[2] + other.sums[2], self.sums[3] + other.sums[3])
        weighted = self.weighted or other.weighted
        # each side's cells are distinct: one past the cap leaves the merge past it
        if self.term is None or other.term is None or \
                (self.stratum is None) != (other.stratum is None) or \
                (cap and max(self.kept[0].shape[0], other.kept[0].shape[0]) > MAX_CELLS):
            return MeanCells(None, None, None, sums, weighted)
        keys, size = aggregate(tuple(np.concatenate([a, b])
                                     for a, b in zip(self.keys, other.keys)),
                               np.concatenate([self.kept[2], other.kept[2]]), runs=True)
        if cap and size.shape[0] > MAX_CELLS:
            return MeanCells(None, None, None, sums, weighted)
        return MeanCells(keys[-2], keys[-1], size, sums, weighted,
                         None if self.stratum is None else keys[0])

    @staticmethod
    def merged(states: Sequence[MeanCells]) -> MeanCells:
        """All ``states`` (each keeping its cells) merged without a cap, in one sort of
        their sorted runs of cells: the cells of merging them two at a time, at the cost
        of one pass where a tree of merges passes log2(k) times."""
        if len({s.stratum is None for s in states}) > 1:  # no common keys: in turn
            out = states[0]
            for state in states[1:]:
                out = out.merge(state, cap=False)
            return out
        sums = tuple(sum(s.sums[j] for s in states) for j in range(4))
        keys, size = aggregate(tuple(np.concatenate(parts) for parts in zip(
            *(s.keys for s in states))), np.concatenate([s.kept[2] for s in states]),
            runs=True)
        stratified = states[0].stratum is not None
        return MeanCells(keys[-2], keys[-1], size,
                         (float(sums[0]), float(sums[1]), float(sums[2]), int(sums[3])),
                         any(s.weighted for s in states), keys[0] if stratified else None)

    def mean(self) -> float:
        if self.term is not None:  # from the cells: the same sum however it was split
            term, weight, size = self.kept
            total = float(vdot(size, weight))
            return float(vdot(size * weight, term) / total) if total else float("nan")
        return self.sums[0] / self.sums[2] if self.sums[2] else float("nan")


def _class_codes(batch: Batch, metric: Metric) -> np.ndarray | None:
    """The class code of each row of a classification loss, among the classes of all
    the rows when the batch knows them (a batch of a stream may lack a class); None
    for regression and for indicator targets, whose rows have no one class."""
    y = batch.y_true
    if not metric.spec.classification or np.ndim(y) != 1:
        return None
    if batch.classes is not None:
        return np.searchsorted(batch.classes, y).astype(np.int64)
    return encode_labels(("y_true", y)).codes[0].astype(np.int64)


def _sums(t: np.ndarray, w: np.ndarray, size: np.ndarray) -> tuple[float, float, float, int]:
    sw = size * w
    with np.errstate(over="ignore"):  # terms beyond 1e154 square to inf: the sums say so
        return (float(vdot(sw, t)), float(vdot(sw, t * t)), float(sw.sum()),
                int(size.sum()))


class MeansFamily(Family):
    """Means of per-sample terms (see the module docstring)."""

    key = "means"
    mean_of_terms = True

    def state_key(self, metric: Metric) -> str:
        kw = sorted((k, str(v)) for k, v in metric.kwargs.items())
        return f"{metric.name}:{kw}" if kw else metric.name

    def supports(self, metric: Metric) -> bool:
        return metric.name in TERMS and set(metric.kwargs) <= TERMS[metric.name][1]

    def takes(self, y_true: np.ndarray, other: np.ndarray, metric: Metric) -> bool:
        if metric.spec.input == "probabilities":  # (n, K) probabilities, indicator targets
            return True
        return np.ndim(y_true) == 1 and np.ndim(other) == 1

    def paired_kind(self, y: np.ndarray, a: np.ndarray, w: np.ndarray | None,
                    metric: Metric) -> type | None:
        _, keywords, root = TERMS[metric.name]
        # a root of a mean is not a mean of the rows' differences
        return None if root or not set(metric.kwargs) <= keywords else PairedMeans

    def paired(self, y: np.ndarray, a: np.ndarray, b: np.ndarray, w: np.ndarray | None,
               metric: Metric) -> PairedMeans | None:
        if self.paired_kind(y, a, w, metric) is None:
            return None
        function = TERMS[metric.name][0]
        return PairedMeans(function(y, a, **metric.kwargs)[0]
                           - function(y, b, **metric.kwargs)[0], w)

    def with_classes(self, metric: Metric, classes: np.ndarray | None) -> dict[str, Any]:
        kwargs = dict(metric.kwargs)
        if "labels" in TERMS[metric.name][1] and "labels" not in kwargs \
                and classes is not None:
            # the classes of all the rows: a batch of a stream, or a group, may lack one
            kwargs["labels"] = classes
        return kwargs

    def _row_terms(self, batch: Batch, metric: Metric) -> tuple[Any, Any]:
        """(each row's term, its weight or None) of ``metric`` on a batch, with the
        classes of all rows where the metric reads them."""
        # the batch's state and its clusters' states read the same terms: kept with
        # the batch for the same metric (held, so its id is not reused)
        kept = batch.memo.get(("row_terms", id(metric)))
        if kept is not None and kept[0] is metric:
            return kept[1]
        function = TERMS[metric.name][0]
        kwargs = self.with_classes(metric, batch.classes)
        found = function(batch.y_true, batch.of(metric), sample_weight=batch.weight, **kwargs)
        if isinstance(found[0], np.ndarray) and found[0].flags.owndata:
            found[0].flags.writeable = False  # shared: a state must copy to change them
        batch.memo[("row_terms", id(metric))] = (metric, found)
        return found

    def build(self, batch: Batch, metric: Metric) -> MeanCells:
        terms, w = self._row_terms(batch, metric)
        return MeanCells.from_terms(terms, None if w is None else np.asarray(w),
                                    _class_codes(batch, metric))

    def build_groups(self, batch: Batch, metric: Metric, members: Sequence[np.ndarray]
                     ) -> list[MeanCells]:
        """Every group's cells from the per-row terms of all rows, taken once: a row's
        term is its own, whatever the rows beside it, and its class code is among the
        batch's classes (known in memory; else each group's rows are built on their
        own, as their codes are among their own classes)."""
        if not one_pass(members) or metric.spec.classification and np.ndim(batch.y_true) == 1 and \
                batch.classes is None:
            return super().build_groups(batch, metric, members)
        terms, w = self._row_terms(batch, metric)
        terms = np.asarray(terms, dtype=np.float64)
        codes = _class_codes(batch, metric)
        if w is None:  # each group's sorted runs, all in one pass
            return [MeanCells.from_runs(*runs)
                    for runs in counted_runs_of(terms, codes, members)]
        weight = np.asarray(w)
        return [MeanCells.from_terms(terms[rows], weight[rows],
                                     None if codes is None else codes[rows])
                for rows in members]

    def cluster_cells(self, batch: Batch, metric: Metric, clusters: np.ndarray,
                      n_clusters: int) -> tuple[Cells, Any] | None:
        """One cell per cluster that has rows: a mean over whole clusters drawn ``w_c``
        times is ``sum w_c S_c / sum w_c W_c`` (``S_c``, ``W_c`` the cluster's weighted
        sum of terms and its weight), so a cluster is one cell of term ``S_c / W_c`` and
        weight ``W_c``; the matrix holds a 1 at (cluster, its cell). The replicates
        equal those of the clusters' per-row cells pooled, from C cells instead of one
        per distinct term."""
        from scipy import sparse

        terms, w = self._row_terms(batch, metric)
        terms = np.asarray(terms, dtype=np.float64)
        if terms.ndim != 1 or terms.shape[0] != clusters.shape[0]:
            return None
        weight = np.ones(terms.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
        rows = np.bincount(clusters, minlength=n_clusters)
        held = np.flatnonzero(rows)
        total = np.bincount(clusters, weights=weight, minlength=n_clusters)[held]
        summed = np.bincount(clusters, weights=weight * terms, minlength=n_clusters)[held]
        with np.errstate(divide="ignore", invalid="ignore"):
            term = np.where(total != 0, summed / total, 0.0)
        size = np.ones(held.shape[0], dtype=np.int64)
        state = MeanCells(term, total, size, _sums(term, total, size), w is not None)
        matrix = sparse.csr_matrix((np.ones(held.shape[0]), (held, np.arange(held.shape[0]))),
                                   shape=(n_clusters, held.shape[0]))
        return self._cells(state, metric), matrix

    def state_cluster_cells(self, states: Sequence[MeanCells], metric: Metric,
                            at: np.ndarray | None, n_clusters: int | None
                            ) -> tuple[Cells, Any] | None:
        """:meth:`cluster_cells` from the clusters' states: each state keeps its
        ``sum w t`` and ``sum w`` whole (cells or not), so a cluster is one cell of term
        ``S_c / W_c`` and weight ``W_c``, as from its rows; pooling the clusters' per-row
        cells instead costs a sort of every distinct term."""
        from scipy import sparse

        if not states:
            return None
        summed = np.array([s.sums[0] for s in states], dtype=np.float64)
        total = np.array([s.sums[2] for s in states], dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            term = np.where(total != 0, summed / total, 0.0)
        size = np.ones(term.shape[0], dtype=np.int64)
        state = MeanCells(term, total, size, _sums(term, total, size),
                          any(s.weighted for s in states))
        cells = np.arange(term.shape[0])
        rows, shape = (cells, (term.shape[0], term.shape[0])) if at is None else \
            (at, (int(n_clusters or 0), term.shape[0]))
        matrix = sparse.csr_matrix((np.ones(term.shape[0]), (rows, cells)), shape=shape)
        return self._cells(state, metric), matrix

    def build_clusters(self, batch: Batch, metric: Metric, members: Sequence[np.ndarray]
                       ) -> list[Any]:
        """Every cluster's sums from one pass: the per-row terms of all rows (each row's
        term is its own, whatever the rows beside it), summed per cluster. A cluster's
        state keeps its sums only, not its cells: everything clustered reads a mean
        over whole clusters from each cluster's ``sum w t`` and ``sum w`` (the
        t-clustered terms, :meth:`state_cluster_cells`), and sorting every cluster's
        distinct terms into cells was most of the time of 100,000 clusters' states.
        The sums are those of :meth:`build` of the cluster's rows, within rounding."""
        terms, w = self._row_terms(batch, metric)
        rows, owner = member_rows(members)
        count = len(members)
        terms = np.asarray(terms, dtype=np.float64)[rows]
        weight = np.ones(rows.shape[0]) if w is None else \
            np.asarray(w, dtype=np.float64)[rows]
        wt = weight * terms
        with np.errstate(over="ignore", invalid="ignore"):  # as _sums: inf says so
            sums = (np.bincount(owner, weights=wt, minlength=count),
                    np.bincount(owner, weights=wt * terms, minlength=count),
                    np.bincount(owner, weights=weight, minlength=count),
                    np.bincount(owner, minlength=count))
        weighted = w is not None
        return [MeanCells(None, None, None, (s0, s1, s2, int(n)), weighted)
                for s0, s1, s2, n in zip(sums[0].tolist(), sums[1].tolist(),
                                         sums[2].tolist(), sums[3].tolist())]

    def n_rows(self, state: MeanCells) -> int:
        return state.sums[3]

    def auto_size(self, state: MeanCells, metric: Metric) -> int:
        """The rows, or for a classification loss whose cells are kept at most
        :data:`ROWS_PER_RARE_ROW` times the rows of its rarest class: the loss of a rare
        class is a rare, large term, and the t-interval needs enough of them
        (benchmarks/mean_loss_coverage.py: at 1000 rows with 10 or 20 of one class it
        covered 92.2-93.3%, BCa 94.1-95.9%; with 40 or more, 93.3-95.0%, and at 500
        rows with 50 of the rarer class, 93.4-94.2%)."""
        rows = self.n_rows(state)
        if state.stratum is None or state.size is None or not metric.spec.classification:
            return rows
        counts = np.bincount(state.stratum, weights=state.size)
        present = counts[counts > 0]
        if present.shape[0] < 2:
            return rows
        return int(min(rows, ROWS_PER_RARE_ROW * float(present.min())))

    def bounded(self, state: MeanCells) -> bool:
        return True  # cells up to MAX_CELLS, then the sums

    def value(self, state: MeanCells, metric: Metric) -> float:
        mean = state.mean()
        return float(np.sqrt(mean)) if TERMS[metric.name][2] else mean

    def no_cells(self, state: MeanCells, metric: Metric) -> str:
        return (f"the bootstrap of {metric.name} needs its per-sample terms, which a "
                f"streamed state keeps up to {MAX_CELLS:,} distinct values only; the 't' "
                "interval applies")

    def _cells(self, state: MeanCells, metric: Metric) -> Cells:
        term, w, size = state.kept
        wt = w * term
        root = TERMS[metric.name][2]

        def evaluate(counts: np.ndarray) -> np.ndarray:
            with np.errstate(divide="ignore", invalid="ignore"):
                out = (counts @ wt) / (counts @ w)
            return np.sqrt(out) if root else out

        def jackknife() -> np.ndarray:
            s, total = float(vdot(size, wt)), float(vdot(size, w))
            with np.errstate(divide="ignore", invalid="ignore"):
                out = (s - wt) / (total - w)
            return np.sqrt(out) if root else out

        stratum = np.zeros(size.shape[0], dtype=np.int64) if state.stratum is None \
            else state.stratum
        # mostly one-row cells (distinct losses): the rows drawn, not a binomial per cell
        return Cells(size, stratum, evaluate, jackknife, 8 * 4,
                     unstratified=NO_CLASSES if state.stratum is None else None,
                     sampler=kept_row_multinomial)

    def cells(self, state: MeanCells, metric: Metric) -> Cells | None:
        return None if state.term is None else self._cells(state, metric)

    def pool(self, states: Sequence[MeanCells], metric: Metric
             ) -> tuple[Cells, list[Cells], list[np.ndarray]] | None:
        return merged_pool(self, states, metric, lambda s: s.term is not None,
                           MeanCells.merged)

    def group_normal(self, states: Sequence[MeanCells], metric: Metric, n_resamples: int,
                     rng: np.random.Generator) -> np.ndarray | None:
        """Normal replicates of unweighted means from each group's sums (a streamed
        state past its cells keeps no terms to draw): a group's mean moves by
        ``N(0, (S2 / n - m^2) / n)`` under a draw of its n rows (the influence values'
        variance, as from the cells), and the mean of all rows by the groups' moves
        weighted by their shares of the rows (it is their weighted average); a root
        (RMSE) is taken of both after. None with weights (the sums keep no squared
        weights) or a group of fewer than ``NORMAL_MIN_ROWS`` rows."""
        from dartboard.families._base import NORMAL_MIN_ROWS

        if any(s.weighted for s in states):
            return None
        sums = np.array([s.sums for s in states], dtype=np.float64)
        s1, s2, n = sums[:, 0], sums[:, 1], sums[:, 2]
        if np.any(n < NORMAL_MIN_ROWS):
            return None
        mean = s1 / n
        sd = np.sqrt(np.maximum(s2 / n - mean * mean, 0.0) / n)
        moved = rng.standard_normal((n_resamples, mean.shape[0])) * sd
        out = np.empty((n_resamples, mean.shape[0] + 1))
        out[:, :-1] = mean + moved
        out[:, -1] = s1.sum() / n.sum() + moved @ (n / n.sum())
        if TERMS[metric.name][2]:  # a root of a mean
            with np.errstate(invalid="ignore"):
                out = np.sqrt(out)
        return out

    def methods(self, state: MeanCells, metric: Metric) -> tuple[str, ...]:
        if state.weighted or state.sums[3] < 2:
            return ()
        return tuple(m for m in metric.spec.asymptotic if m not in BOOTSTRAP_METHODS)

    def cluster_terms(self, batch: Batch, metric: Metric, codes: np.ndarray,
                      n_clusters: int) -> ClusterTerms | None:
        """The mean's ``sum w t`` and ``sum w`` per cluster (a root of a mean, RMSE, is
        no ratio of sums)."""
        function, _, root = TERMS[metric.name]
        if root:
            return None
        kwargs = self.with_classes(metric, batch.classes)
        terms, w = function(batch.y_true, batch.of(metric), sample_weight=batch.weight,
                            **kwargs)
        weight = np.ones(codes.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
        return ratio_terms(np.bincount(codes, weights=weight * terms, minlength=n_clusters),
                           np.bincount(codes, weights=weight, minlength=n_clusters),
                           "t-clustered")

    def state_cluster_terms(self, states: Sequence[MeanCells], metric: Metric
                            ) -> ClusterTerms | None:
        """The clusters' ``sum w t`` and ``sum w`` (kept by every state, cells or not)."""
        if TERMS[metric.name][2]:
            return None
        return ratio_terms(np.array([s.sums[0] for s in states]),
                           np.array([s.sums[2] for s in states]), "t-clustered")

    def why_not(self, state: MeanCells, metric: Metric, method: str) -> str:
        if state.weighted:
            return f"method={method!r} does not take sample_weight"
        return f"method={method!r} needs at least 2 samples"

    def analytic(self, state: MeanCells, metric: Metric, method: str, level: float
                 ) -> tuple[float, float, float]:
        if method != "t" or method not in self.methods(state, metric):
            raise InputError(f"method={method!r} does not apply to {metric.name} here")
        mean, se = _mean_and_se(state)
        if se == 0.0:
            warnings.warn(f"all {state.sums[3]} per-sample terms are equal: the t-interval "
                          "has zero width", IntervalWarning, stacklevel=5)
        half = float(special.stdtrit(state.sums[3] - 1, 0.5 + level / 2.0)) * se
        low, high = mean - half, mean + half
        if TERMS[metric.name][2]:
            # a square root is monotone: the bounds carry over; the SE by the delta method
            return (float(np.sqrt(max(low, 0.0))), float(np.sqrt(high)),
                    se / (2.0 * np.sqrt(max(mean, _EPS))))
        return low, high, se


def _mean_and_se(state: MeanCells) -> tuple[float, float]:
    """The mean of the terms and its standard error ``s / sqrt(n)`` (ddof = 1)."""
    n = state.sums[3]
    if state.term is not None:
        # on a power-of-two scale near the largest term (exact), so that squares of
        # terms at 1e200 or 1e-200 neither overflow nor underflow
        term, _, size = state.kept
        top = float(np.abs(term).max())
        scale = 2.0 ** -np.round(np.log2(top)) if np.isfinite(top) and top > 0 else 1.0
        t = term * scale
        centre = float(vdot(size, t) / n)
        mean = float(centre / scale)
        ss = float(vdot(size, (t - centre) ** 2)) / (scale * scale)
    else:
        mean = state.sums[0] / n
        ss = max(state.sums[1] - n * mean * mean, 0.0)
    return mean, float(np.sqrt(ss / (n - 1) / n))


FAMILY = MeansFamily()
