"""The counts family: every metric of a confusion matrix.

State: the :class:`~dartboard.metrics.ConfusionCounts` of the rows and, when rows
carry weights, the rows grouped by (true class, predicted class, weight)
(:class:`~dartboard._kernels._bootstrap.CountGroups`): a bootstrap resamples
rows, each keeping its weight, so the groups -- not the weighted matrix -- are its
cells. Without weights the cells are the matrix's non-empty cells.

A replicate's metric is the metric's formula over the stack of resampled matrices
(:func:`dartboard.metrics._batched.batch_count_metric`), O(K^2) whatever the number
of rows. Analytic intervals: the binomial proportion intervals (wilson, wald,
clopper-pearson, agresti-coull, jeffreys) of a proportion metric (the registry's
``proportion``) with whole counts, binary or unaveraged.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from dartboard._kernels._analytic import proportion_counts
from dartboard._kernels._bootstrap import BATCH_BYTES, CountGroups, split_multinomial
from dartboard._kernels._clustered_analytic import ClusterTerms, delta_terms, ratio_terms
from dartboard._kernels._methods import PROPORTION_METHODS
from dartboard._kernels._multilabel import IndicatorPatterns
from dartboard._labels import (
    encode_labels,
    indicator_pair,
    integer_counts_fit,
    positive_index,
)
from dartboard.exceptions import InputError
from dartboard.families._base import (
    SLICE_ROWS,
    Batch,
    Cells,
    Family,
    Metric,
    State,
    aggregate,
    kept_for_states,
    kept_matrix,
    one_pass,
    owners,
    place,
    place_parts,
    proportion_interval,
)
from dartboard.families._paired import PairedCounts
from dartboard.metrics._batched import (
    SCALAR_COUNT_METRICS,
    batch_count_metric,
    batch_multilabel_metric,
)
from dartboard.metrics._confusion import ConfusionCounts
from dartboard.metrics._count_formulas import indicator_labels

__all__ = ["CountsFamily", "CountsState", "FAMILY"]


@dataclasses.dataclass(frozen=True, eq=False)
class CountsState(State):
    """Confusion counts and, with weights, the (cell, weight) groups of the rows.

    ``groups`` index cells ``true * K + predicted`` over ``counts.classes``; None
    when every row counts once (the matrix's cells are then the groups).
    """

    counts: ConfusionCounts
    groups: CountGroups | None = None
    #: what a row asks of the state several times (a proportion's counts: for the
    #: methods that apply, the denominator and the interval), found once per metric
    _memo: dict[Any, Any] = dataclasses.field(default_factory=dict, init=False, repr=False,
                                              compare=False)

    @property
    def classes(self) -> np.ndarray:
        return self.counts.classes

    @property
    def n_rows(self) -> int:
        if self.groups is not None:
            return int(self.groups.size.sum())
        return int(np.asarray(self.counts.matrix).sum())

    def cell_groups(self) -> CountGroups:
        """The rows' groups (the matrix's non-empty cells when unweighted)."""
        if self.groups is not None:
            return self.groups
        return CountGroups.from_matrix(np.asarray(self.counts.matrix))

    def on(self, classes: np.ndarray) -> CountGroups:
        """The groups over a larger set of sorted ``classes``."""
        groups = self.cell_groups()
        k_old, k = self.classes.shape[0], classes.shape[0]
        if k_old == k:
            return groups
        at = np.searchsorted(classes, self.classes)
        cell = at[groups.cell // k_old] * k + at[groups.cell % k_old]
        order = np.argsort(cell, kind="stable")
        return CountGroups(k, cell[order], groups.weight[order], groups.size[order])

    def merge(self, other: CountsState) -> CountsState:
        counts = self.counts.merge(other.counts)
        if self.groups is None and other.groups is None:
            return CountsState(counts)
        a, b = self.on(counts.classes), other.on(counts.classes)
        return CountsState(counts, _regroup(counts.classes.shape[0],
                                            np.concatenate([a.cell, b.cell]),
                                            np.concatenate([a.weight, b.weight]),
                                            np.concatenate([a.size, b.size])))

    @property
    def whole(self) -> bool:
        """Whether the weights are whole numbers (frequency counts)."""
        return self.groups is None or bool(np.all(np.mod(self.groups.weight, 1) == 0))


def _regroup(k: int, cell: np.ndarray, weight: np.ndarray, size: np.ndarray) -> CountGroups:
    """Groups with equal (cell, weight) summed, in (cell, weight) order."""
    (c, w), s = aggregate((cell, weight), size)
    return CountGroups(k, c, w, s)


def counts_state(y_true: np.ndarray, y_pred: np.ndarray, w: np.ndarray | None,
                 names: tuple[str, str] = ("y_true", "y_pred")) -> CountsState:
    """The state of labelled rows: one count (weighted rows: one encoding, then one count)."""
    if w is None:  # the metric functions' own count (0/1 labels without an encoding)
        return CountsState(ConfusionCounts.from_predictions(y_true, y_pred, names=names))
    enc = encode_labels((names[0], y_true), (names[1], y_pred))
    t, p = (c.astype(np.int64) for c in enc.codes)
    k = enc.classes.shape[0]
    cells = t * k + p
    matrix = np.bincount(cells, weights=w, minlength=k * k).reshape(k, k)
    if w.dtype.kind in "iu" and integer_counts_fit(float(np.abs(w, dtype=np.float64).sum())):
        matrix = matrix.astype(np.int64)
    return CountsState(ConfusionCounts(enc.classes, matrix),
                       CountGroups.from_codes(t, p, k, w))


@dataclasses.dataclass(frozen=True, eq=False)
class IndicatorState(State):
    """Multilabel-indicator rows as per-sample patterns (labels move together when a
    row is resampled; :mod:`dartboard._kernels._multilabel`)."""

    patterns: IndicatorPatterns
    value: float


class CountsFamily(Family):
    """Metrics of the confusion matrix (see the module docstring)."""

    key = "counts"

    def takes(self, y_true: np.ndarray, other: np.ndarray, metric: Metric) -> bool:
        return np.ndim(y_true) == np.ndim(other) and np.ndim(y_true) in (1, 2)

    def paired_kind(self, y: np.ndarray, a: np.ndarray, w: np.ndarray | None,
                    metric: Metric) -> type | None:
        # a weighted row is not a count of a type: its weight travels with it
        return PairedCounts if w is None and np.ndim(a) == 1 else None

    def paired(self, y: np.ndarray, a: np.ndarray, b: np.ndarray, w: np.ndarray | None,
               metric: Metric) -> PairedCounts | None:
        if self.paired_kind(y, a, w, metric) is None:
            return None
        return PairedCounts(metric.name, y, a, b, metric.kwargs)

    def build(self, batch: Batch, metric: Metric) -> CountsState | IndicatorState:
        other = batch.of(metric)
        pair = indicator_pair(batch.y_true, other, names=("y_true", "y_pred")) \
            if np.ndim(batch.y_true) == 2 else None
        if pair is None:
            return counts_state(batch.y_true, other, batch.weight)
        t, p = pair
        kw = dict(metric.kwargs)
        weight = {} if batch.weight is None else {"sample_weight": batch.weight}
        value = float(metric.spec.function(batch.y_true, other, **kw, **weight))
        if metric.spec.average and kw.get("average") == "samples" \
                and kw.get("labels") is not None:
            # labels select the columns before the per-sample counts (as the metric does)
            idx = indicator_labels(kw["labels"], t.shape[1])
            t, p = t[:, idx], p[:, idx]
        return IndicatorState(IndicatorPatterns.build(t, p, batch.weight), value)

    def build_groups(self, batch: Batch, metric: Metric, members: Sequence[np.ndarray]
                     ) -> list[Any]:
        # a cluster's state is built as its rows' own (tests/test_build_groups.py)
        if not one_pass(members):
            return super().build_groups(batch, metric, members)
        return self.build_clusters(batch, metric, members)

    def build_clusters(self, batch: Batch, metric: Metric, members: Sequence[np.ndarray]
                       ) -> list[Any]:
        """Unweighted labels: every cluster's confusion matrix from one bincount of
        (cluster, true, predicted), each over the classes its rows hold (as
        :meth:`build` of its rows counts them)."""
        other = batch.of(metric)
        if batch.weight is not None or np.ndim(batch.y_true) != 1 or np.ndim(other) != 1:
            return super().build_clusters(batch, metric, members)
        enc = encode_labels(("y_true", batch.y_true), ("y_pred", other))
        k, n = enc.classes.shape[0], len(members)
        t, p = (c.astype(np.int64) for c in enc.codes)
        codes = owners(members, t.shape[0])
        matrices = np.bincount((codes * k + t) * k + p,
                               minlength=n * k * k).reshape(n, k, k)
        present = (matrices.sum(axis=2) > 0) | (matrices.sum(axis=1) > 0)
        every = present.all(axis=1)
        out = []
        classes, checked = enc.classes, ConfusionCounts._checked
        for c, whole in enumerate(every.tolist()):
            if whole:
                out.append(CountsState(checked(classes, matrices[c])))
            else:  # the classes its rows hold, still sorted
                at = np.flatnonzero(present[c])
                out.append(CountsState(checked(classes[at], matrices[c][np.ix_(at, at)])))
        return out

    def n_rows(self, state: CountsState | IndicatorState) -> int:
        if isinstance(state, IndicatorState):
            return int(state.patterns.size.sum())
        return state.n_rows

    def bounded(self, state: CountsState | IndicatorState) -> bool:
        # K x K cells; weighted rows keep a group per distinct weight, and indicator
        # rows their distinct patterns
        return isinstance(state, CountsState) and state.groups is None

    def value(self, state: CountsState | IndicatorState, metric: Metric) -> float:
        if isinstance(state, IndicatorState):
            return state.value
        found = self.proportion(state, metric)
        if found is not None and found[1] > 0 and _checked_binary(state, metric):
            # whole counts x of n (n > 0) of two classes, the positive one of them: the
            # division the metric function makes, past checks it would pass (a thousand
            # groups' rows ask it once each)
            return found[0] / found[1]
        return float(state.counts.compute(metric.name, **metric.kwargs))

    def no_cells(self, state: Any, metric: Metric) -> str:
        return (f"{metric.name} of multilabel-indicator data is resampled by per-sample "
                "patterns, which do not pool into groups")

    def _evaluate(self, metric: Metric, classes: np.ndarray, groups: CountGroups):
        def evaluate(counts: np.ndarray) -> np.ndarray:
            return batch_count_metric(metric.name, classes, groups.matrices(counts),
                                      metric.kwargs, undefined="nan")

        return evaluate

    def stack(self, metric: Metric, parts: Sequence[tuple[Any, Sequence[np.ndarray]]]
              ) -> list[list[np.ndarray]] | None:
        # every state's draws as confusion matrices over the same classes, one formula
        # call for all (the formulas read each matrix on its own: the same bits)
        if not parts or any(not isinstance(state, CountsState) for state, _ in parts):
            return None
        classes = parts[0][0].classes
        if any(not np.array_equal(state.classes, classes) or
               state.classes.dtype != classes.dtype for state, _ in parts):
            return None
        # a slice of the states' draws per call, whose temporary arrays are reused from
        # the heap (fresh pages for millions of rows at once cost more than the formula)
        pending: list[np.ndarray] = []
        slots: list[tuple[list[np.ndarray], int]] = []
        rows = 0

        def evaluate() -> None:
            values = batch_count_metric(metric.name, classes, np.concatenate(pending),
                                        metric.kwargs, undefined="nan")
            at = 0
            for found, size in slots:
                found.append(values[at:at + size])
                at += size
            pending.clear()
            slots.clear()

        out: list[list[np.ndarray]] = []
        for state, calls in parts:
            found: list[np.ndarray] = []
            out.append(found)
            groups = state.cell_groups()
            for counts in calls:
                pending.append(groups.matrices(counts))
                slots.append((found, counts.shape[0]))
                rows += counts.shape[0]
                if rows >= SLICE_ROWS:
                    evaluate()
                    rows = 0
        if pending:
            evaluate()
        return out

    def cells(self, state: CountsState | IndicatorState, metric: Metric) -> Cells:
        if isinstance(state, IndicatorState):
            return _indicator_cells(state.patterns, metric)
        return self._cells(metric, state.classes, state.cell_groups())

    def pool(self, states: Sequence[CountsState], metric: Metric
             ) -> tuple[Cells, list[Cells], list[np.ndarray]] | None:
        if any(isinstance(s, IndicatorState) for s in states):
            return None
        # over the pooled classes: a class absent from a group's replicate is not one
        # of its classes (the formulas read a zero row and column as absent)
        classes = np.unique(np.concatenate([s.classes for s in states]))
        parts = [s.on(classes) for s in states]
        k = classes.shape[0]
        pooled = _regroup(k, np.concatenate([p.cell for p in parts]),
                          np.concatenate([p.weight for p in parts]),
                          np.concatenate([p.size for p in parts]))
        return (self._cells(metric, classes, pooled),
                [self._cells(metric, classes, p) for p in parts],
                place_parts([(p.cell, p.weight) for p in parts], (pooled.cell, pooled.weight)))

    def state_cluster_cells(self, states: Sequence[Any], metric: Metric,
                            at: np.ndarray | None, n_clusters: int | None
                            ) -> tuple[Cells, Any] | None:
        """Unweighted counts: the clusters' confusion matrices (over the classes of all
        of them, as their terms read them) are the matrix of each cluster's rows in each
        non-empty cell of the pooled matrix, the cells :meth:`pool` forms (one group
        per non-empty cell, in cell order), without regrouping every cluster's cells."""
        if not states or any(isinstance(s, IndicatorState) or s.groups is not None
                             for s in states):
            return None
        classes, pooled, cluster, cell, size, matrices = kept_for_states(
            _LAST_CELLS, states, lambda: _cluster_cells(states), slots=8)
        return self._cells(metric, classes, pooled), kept_matrix(
            matrices, (cluster, cell, size), (len(states), pooled.cell.shape[0]), at,
            n_clusters)

    def cluster_cells(self, batch: Batch, metric: Metric, clusters: np.ndarray,
                      n_clusters: int) -> tuple[Cells, Any] | None:
        # the pooled (cell, weight) groups of all rows are those of the clusters'
        # states pooled (same classes, same keys, same sums), so the bootstrap draws
        # the same cells as from per-cluster states, without building C states
        from scipy import sparse

        other = batch.of(metric)
        if np.ndim(batch.y_true) != 1 or np.ndim(other) != 1:
            return None
        enc = encode_labels(("y_true", batch.y_true), ("y_pred", other))
        t, p = (c.astype(np.int64) for c in enc.codes)
        k = enc.classes.shape[0]
        cell = t * k + p
        pooled = CountGroups.from_codes(t, p, k, batch.weight)
        if batch.weight is None:
            at = np.searchsorted(pooled.cell, cell)
        else:
            at = place((cell, np.asarray(batch.weight, dtype=np.float64)),
                       (pooled.cell, pooled.weight))
        matrix = sparse.csr_matrix((np.ones(cell.shape[0]), (clusters, at)),
                                   shape=(n_clusters, pooled.cell.shape[0]))
        return self._cells(metric, enc.classes, pooled), matrix

    def _cells(self, metric: Metric, classes: np.ndarray, groups: CountGroups) -> Cells:
        k = classes.shape[0]
        return Cells(groups.size.astype(np.int64), groups.cell // k,
                     self._evaluate(metric, classes, groups), None, 8 * 2 * k * k)

    # ---------------------------------------------------------------- analytic

    def methods(self, state: CountsState | IndicatorState, metric: Metric
                ) -> tuple[str, ...]:
        return PROPORTION_METHODS if self.proportion(state, metric) is not None else ()

    def why_not(self, state: CountsState | IndicatorState, metric: Metric,
                method: str) -> str:
        if isinstance(state, IndicatorState):
            return (f"method={method!r} does not apply to {metric.name} of "
                    "multilabel-indicator data (analytic intervals are for one binary "
                    "proportion)")
        if not state.whole:
            return ("analytic proportion intervals need counts; sample_weight has "
                    "non-integer values")
        return (f"analytic intervals of {metric.name} are defined for the binary case "
                "(average='binary', one pos_label) without other keywords only")

    def proportion(self, state: CountsState | IndicatorState, metric: Metric
                    ) -> tuple[float, float] | None:
        """``(x, n)`` of a proportion metric on whole counts, binary or unaveraged."""
        if isinstance(state, IndicatorState):
            return None
        try:
            key = ("proportion", metric.name, tuple(sorted(metric.kwargs.items())))
            hash(key)
        except TypeError:  # a keyword without a hash (labels as a list): not kept
            return self._proportion(state, metric)
        if key not in state._memo:
            state._memo[key] = self._proportion(state, metric)
        return state._memo[key]

    @staticmethod
    def _proportion(state: CountsState, metric: Metric) -> tuple[float, float] | None:
        if not state.whole:
            return None
        found = _proportion_of(metric, state.classes)
        if found is None:
            return None
        assert metric.spec.proportion is not None  # _proportion_of found one
        return proportion_counts(metric.spec.proportion, np.asarray(state.counts.matrix),
                                 found[0])

    def denominator(self, state: CountsState | IndicatorState, metric: Metric) -> int | None:
        """A proportion's own denominator in rows: unweighted counts only."""
        if isinstance(state, IndicatorState) or state.groups is not None:
            return None
        found = self.proportion(state, metric)
        return None if found is None else int(round(found[1]))

    def cluster_terms(self, batch: Batch, metric: Metric, codes: np.ndarray,
                      n_clusters: int) -> ClusterTerms | None:
        """A proportion's per-cluster ``(x_c, n_c)``: one bincount of (cluster, true,
        predicted) gives every cluster's confusion matrix (weights may be fractional:
        the ratio's linearization does not need whole counts)."""
        y, other = batch.y_true, batch.of(metric)
        if np.ndim(y) != 1 or np.ndim(other) != 1:
            return None
        enc = encode_labels(("y_true", y), ("y_pred", other))
        k = enc.classes.shape[0]
        t, p = (c.astype(np.int64) for c in enc.codes)
        matrices = np.bincount((codes * k + t) * k + p, weights=batch.weight,
                               minlength=n_clusters * k * k).reshape(n_clusters, k, k)
        return _matrix_terms(metric, enc.classes, matrices)

    def state_cluster_terms(self, states: Sequence[Any], metric: Metric
                            ) -> ClusterTerms | None:
        """The clusters' confusion matrices, over the classes of all of them."""
        if any(isinstance(s, IndicatorState) for s in states):
            return None
        classes, matrices = _cluster_matrices(states)
        return _matrix_terms(metric, classes, matrices)

    def row_terms(self, state: CountsState, metric: Metric
                  ) -> tuple[ClusterTerms, np.ndarray] | None:
        """The terms with each row its own cluster (the independent-rows form of the
        delta method, which a design effect compares with), as the terms of the state's
        (cell, weight) groups of alike rows and the rows of each: a row's term is its
        group's over its rows (the delta method's terms are linear in the counts), so
        :func:`~dartboard._kernels._clustered_analytic.single_rows_se` gives the rows'
        standard error from K^2 groups (unweighted) instead of one matrix per row."""
        groups, k = state.cell_groups(), state.classes.shape[0]
        size = groups.size.astype(np.float64)
        matrices = np.zeros((size.shape[0], k * k))
        matrices[np.arange(size.shape[0]), groups.cell] = size * groups.weight
        terms = _matrix_terms(metric, state.classes, matrices.reshape(-1, k, k))
        return None if terms is None else (terms, size)

    def analytic(self, state: CountsState, metric: Metric, method: str, level: float
                 ) -> tuple[float, float, float]:
        found = self.proportion(state, metric)
        if method not in PROPORTION_METHODS or found is None:
            raise InputError(f"method={method!r} does not apply to {metric.name} here")
        return proportion_interval(*found, level, method, metric.name)


#: per thread, the last clusters' matrices (:func:`_cluster_matrices`): the count
#: metrics of one evaluation read the same clusters' states, one metric after another
_LAST_MATRICES = threading.local()


def _cluster_matrices(states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """The classes of all ``states`` and each state's ``(C, K, K)`` confusion matrix
    over them; kept for the same states (read-only; the last few lists: a gap reads
    each group's clusters and all of them in turn, metric after metric)."""
    return kept_for_states(_LAST_MATRICES, states, lambda: _matrices_of(states), slots=8)


_LAST_CELLS = threading.local()


def _cluster_cells(states: Sequence[Any]) -> tuple[np.ndarray, CountGroups, np.ndarray,
                                                   np.ndarray, np.ndarray, dict[Any, Any]]:
    """(classes, the pooled groups, each cluster's rows in each pooled cell as
    (cluster, cell, rows as floats) in row-major order, and room for the matrices
    formed from them, :func:`kept_matrix`) of unweighted counts."""
    classes, matrices = _cluster_matrices(states)
    flat = matrices.reshape(len(states), -1)
    pooled = CountGroups.from_matrix(flat.sum(axis=0).reshape(matrices.shape[1:]))
    cluster, cell = np.nonzero(flat[:, pooled.cell])
    return classes, pooled, cluster, cell, flat[cluster, pooled.cell[cell]], {}


def _matrices_of(states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    classes = np.unique(np.concatenate([s.classes for s in states]))
    k = classes.shape[0]
    matrices = np.zeros((len(states), k, k))
    for c, s in enumerate(states):
        if s.classes.shape[0] == k:  # a cluster of every class (sorted: the same)
            matrices[c] = s.counts.matrix
            continue
        at = np.searchsorted(classes, s.classes)
        matrices[c][np.ix_(at, at)] = np.asarray(s.counts.matrix, dtype=np.float64)
    matrices.flags.writeable = False
    return classes, matrices


def _matrix_terms(metric: Metric, classes: np.ndarray, matrices: np.ndarray
                  ) -> ClusterTerms | None:
    """The cluster-robust terms of a count metric from the clusters' ``(C, K, K)``
    confusion matrices: a proportion's ``(x_c, n_c)``, else the delta method's."""
    found = _proportion_of(metric, classes)
    if found is not None:
        assert metric.spec.proportion is not None  # _proportion_of found one
        x, d = proportion_counts(metric.spec.proportion, matrices, found[0])
        return ratio_terms(x, d, "wald-clustered")
    if not metric.kwargs.get("normalize", True) or \
            metric.name not in SCALAR_COUNT_METRICS:
        return None  # a count (normalize=False) is no smooth function of shares
    return delta_terms(lambda stack: batch_count_metric(
        metric.name, classes, stack, metric.kwargs, undefined="nan"), matrices)


def _checked_binary(state: CountsState, metric: Metric) -> bool:
    """Whether the metric function would take a proportion's counts as they are:
    accuracy, or two classes holding the positive one (else it may refuse them)."""
    if not metric.spec.average:
        return True
    classes = state.classes
    return classes.shape[0] == 2 and \
        positive_index(classes, metric.kwargs.get("pos_label", 1)) >= 0


def _proportion_of(metric: Metric, classes: np.ndarray) -> tuple[int | None] | None:
    """``(pos_index,)`` of a proportion metric over ``classes`` (None in it: multiclass
    accuracy); None when the metric with these keywords is no one proportion."""
    spec, kw = metric.spec, metric.kwargs
    if spec.proportion is None:
        return None
    allowed = {"pos_label", "average", "zero_division", "labels"} if spec.average \
        else {"normalize"}
    if set(kw) - allowed or not kw.get("normalize", True):
        return None
    if not spec.average:
        return (None,)
    if kw.get("average", "binary") != "binary" or kw.get("labels") is not None:
        return None
    return (positive_index(classes, kw.get("pos_label", 1)),)


def _indicator_cells(patterns: IndicatorPatterns, metric: Metric) -> Cells:
    """The per-sample patterns as cells (:mod:`dartboard._kernels._multilabel`)."""
    name, triples = metric.name, patterns.triples
    kw = {k: v for k, v in metric.kwargs.items()
          if not (k == "labels" and metric.kwargs.get("average") == "samples")}
    g, labels = patterns.size.shape[0], patterns.n_labels

    def evaluate(counts: np.ndarray) -> np.ndarray:
        matrices, weights = patterns.states(counts)
        return batch_multilabel_metric(name, matrices, triples, weights, kw, undefined="nan")

    def jackknife() -> np.ndarray:
        batch = max(1, BATCH_BYTES // (8 * (4 * labels + triples.shape[0])))
        out = []
        for s in range(0, g, batch):
            matrices, weights = patterns.leave_one_out(s, min(s + batch, g))
            out.append(batch_multilabel_metric(name, matrices, triples, weights, kw,
                                               undefined="nan"))
        return np.concatenate(out)

    return Cells(patterns.size, np.zeros(g, dtype=np.int64), evaluate, jackknife,
                 8 * (2 * g + 8 * labels + 2 * triples.shape[0]),
                 sampler=split_multinomial,
                 unstratified="stratified=True resamples within each class of y_true and "
                              "needs class labels there: y_true is a multilabel indicator "
                              "array")


FAMILY = CountsFamily()
