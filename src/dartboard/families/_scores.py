"""The scores family: ROC AUC, average precision and PR AUC of binary scores.

State (:class:`ScoreCells`): the rows grouped by (score, class, weight), sorted by
score; the map of distinct scores with the positive and negative weight at each
(a :class:`~dartboard.metrics.ScoreState`) follows from it, and so do the metrics
and both curves, exactly. A replicate's row counts per cell give per-score
weights by one sum per distinct score, and the metric follows from cumulative sums
over the scores: O(distinct scores) per replicate, no sort.

Analytic intervals (rows of weight one): ROC AUC ``delong``, ``delong-logit`` and
``newcombe`` from the distinct scores' class counts (DeLong's variance by grouped
midranks); average precision and PR AUC ``logit`` (Boyd et al. 2013) and
``influence-logit`` (the influence function of AP,
:func:`dartboard._kernels._analytic.ap_influence`). The formulas are in
:mod:`dartboard._kernels._analytic`.
``auto`` keys on the smaller class.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from dartboard._kernels import _analytic
from dartboard._kernels._analytic_rows import ovr_macro_auc_interval
from dartboard._kernels._bootstrap import split_multinomial
from dartboard._kernels._clustered_analytic import (
    ClusterTerms,
    auc_terms,
    pair_wins,
    pair_wins_fit,
)
from dartboard._kernels._methods import ROC_AUC_METHODS
from dartboard._numeric import vdot
from dartboard.exceptions import InputError
from dartboard.families._base import (
    BOOTSTRAP_METHODS,
    Batch,
    Cells,
    Family,
    Metric,
    State,
    aggregate,
    aggregate_owned,
    aggregate_placed,
    counted_runs,
    counted_runs_of,
    keep_for_states,
    kept_for_states,
    kept_matrix,
    one_pass,
    orders_within_first,
    owners,
    place,
    pooled_states,
)
from dartboard.families._paired import MulticlassAUC, PairedAUC, batched_multiclass
from dartboard.metrics._operating_points import at_fixed_point
from dartboard.metrics._ranking import (
    PRPoints,
    ScoreState,
    ap_from_groups,
    auc_from_groups,
    descending_counts,
    pr_auc_from_groups,
    pr_curve_from_groups,
    precision_recall_points,
    roc_from_groups,
)
from dartboard.metrics._sketches import BinnedScoreState

__all__ = ["FAMILY", "ScoreCells", "ScoresFamily"]


@dataclasses.dataclass(frozen=True, eq=False)
class ScoreCells(State):
    """Rows grouped by (score, positive, weight), in that order.

    Attributes
    ----------
    score, positive, weight : ndarray of shape (C,)
    size : ndarray of int64, shape (C,)
        Rows in each cell.
    """

    score: np.ndarray
    positive: np.ndarray
    weight: np.ndarray
    size: np.ndarray
    weighted: bool = False
    #: what the cells give more than once (their score map, say), computed once: an
    #: evaluation reads one state for each ranking metric and each interval
    _memo: dict[str, Any] = dataclasses.field(default_factory=dict, init=False,
                                                   repr=False, compare=False)

    @classmethod
    def from_rows(cls, positive: np.ndarray, score: np.ndarray,
                  weight: np.ndarray | None) -> ScoreCells:
        if weight is None:  # one weight: not a key to sort, gather and compare
            # single-precision scores sort as they are (half the bytes) and widen
            # exactly, in order, once distinct
            narrow = score.dtype == np.float32
            s, p, size = _class_runs(score if narrow else score.astype(np.float64),
                                     positive.astype(bool))
            s = s.astype(np.float64)
            return cls(s, p, _unit_weights(s.shape[0]), size, False)
        keys = (score.astype(np.float64), positive.astype(bool))
        ones = np.ones(score.shape[0], dtype=np.int64)
        (s, p, w), size = aggregate((*keys, weight.astype(np.float64)), ones)
        return cls(s, p, w, size, True)

    def merge(self, other: ScoreCells) -> ScoreCells:
        return ScoreCells.merged([self, other])

    @staticmethod
    def merged(states: Sequence[ScoreCells]) -> ScoreCells:
        """The cells of all ``states`` in one sort of their sorted runs: merging k
        states at once costs one pass over their cells, where merging them two at a time
        passes over the growing cells log2(k) times or more."""
        weighted = any(s.weighted for s in states)
        names = ("score", "positive", "weight") if weighted else ("score", "positive")
        # the concatenated arrays are this call's own: the merge writes over them
        found, size = aggregate_owned(
            tuple(np.concatenate([getattr(s, k) for s in states]) for k in names),
            np.concatenate([s.size for s in states]), runs=True)
        weight = found[2] if weighted else _unit_weights(size.shape[0])
        return ScoreCells(found[0], found[1], weight, size, weighted)

    @property
    def keys(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.score, self.positive, self.weight

    @property
    def unit(self) -> bool:
        """Every row weighs one (whole counts: integer kernels apply)."""
        if "unit" not in self._memo:
            self._memo["unit"] = not self.weighted or bool(np.all(self.weight == 1.0))
        return self._memo["unit"]

    @property
    def unweighted(self) -> bool:
        """Rows without weights: the analytic intervals apply."""
        return not self.weighted

    def groups(self) -> tuple[np.ndarray, np.ndarray]:
        """(C,) index of each cell's distinct score, and the first cell of each score."""
        if "groups" not in self._memo:
            starts = self.starts()
            index = np.zeros(self.score.shape[0], dtype=np.int64)
            index[starts[1:]] = 1
            self._memo["groups"] = (np.cumsum(index, out=index), starts)
        return self._memo["groups"]

    def starts(self) -> np.ndarray:
        """The first cell of each distinct score."""
        if "starts" not in self._memo:
            new = np.ones(self.score.shape[0], dtype=bool)
            np.not_equal(self.score[1:], self.score[:-1], out=new[1:])
            self._memo["starts"] = np.flatnonzero(new)
        return self._memo["starts"]

    def per_score(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(b, S) positive and negative weight per distinct score of (b, C) counts."""
        starts = self.starts()
        weighted = counts if self.unit else counts * self.weight
        pos = np.where(self.positive, weighted, 0.0)
        neg = weighted - pos
        if starts.shape[0] == self.score.shape[0]:  # one cell per score: nothing to add
            return pos, neg
        return np.add.reduceat(pos, starts, axis=-1), np.add.reduceat(neg, starts, axis=-1)

    def class_order(self) -> np.ndarray:
        """The cells' order with the negative cells first, then the positive ones, each
        in score order: counts drawn in this order are read by :meth:`auc` as two
        slices, without gathering each class's cells."""
        if "class order" not in self._memo:
            self._memo["class order"] = np.concatenate(
                [np.flatnonzero(~self.positive), np.flatnonzero(self.positive)])
        return self._memo["class order"]

    def auc(self, counts: np.ndarray, split: bool = False) -> np.ndarray:
        """(b,) ROC AUC of (b, C) draw counts of the cells, the kernel of
        :func:`_auc` without forming per-score sums: each positive cell wins the
        negative weight below its score and half the weight tied with it, read from one
        cumulative sum over the negative cells (scores ascending). ``split``: the
        counts' columns are in :meth:`class_order`."""
        if "auc" not in self._memo:
            pos, neg = np.flatnonzero(self.positive), np.flatnonzero(~self.positive)
            scores = self.score[neg]
            lo = np.searchsorted(scores, self.score[pos], "left")
            hi = np.searchsorted(scores, self.score[pos], "right")
            self._memo["auc"] = (pos, neg, lo, hi, bool(np.any(lo != hi)),
                                 self.weight[pos], self.weight[neg], self.unit)
        pos, neg, lo, hi, ties, w_pos, w_neg, unit = self._memo["auc"]
        n_neg = neg.shape[0]
        out = np.full(counts.shape[0], np.nan)
        kind = np.int64 if unit else np.float64
        # buffers written in place, a replicate at a time: fresh arrays of a million
        # rows each replicate cost more in page faults than the arithmetic; they live
        # with the cells, one set per thread
        key = f"auc buffers {threading.get_ident()}"
        if key not in self._memo:
            self._memo[key] = (np.zeros(n_neg + 1, dtype=kind),
                               *(np.empty(k.shape[0], dtype=kind) for k in (pos, neg, pos, pos)))
        cum, c_pos, c_neg, below, tied = self._memo[key]
        for r, row in enumerate(counts):  # a row at a time stays in cache
            # whole counts: an integer running sum is several times faster
            row = row if row.dtype == kind else row.astype(kind)
            if split:
                these_neg, these_pos = row[:n_neg], row[n_neg:]
            else:
                these_pos = np.take(row, pos, out=c_pos, mode="clip")  # "clip": unbuffered
                these_neg = np.take(row, neg, out=c_neg, mode="clip")
            if not unit:
                these_pos = np.multiply(these_pos, w_pos, out=c_pos)
                these_neg = np.multiply(these_neg, w_neg, out=c_neg)
            np.cumsum(these_neg, out=cum[1:])
            # twice the wins: the negatives below, and half of those tied, twice
            np.take(cum, lo, out=below, mode="clip")
            if ties:
                below += np.take(cum, hi, out=tied, mode="clip")
            else:
                below *= 2
            pairs = 2.0 * float(these_pos.sum()) * float(cum[-1])
            if pairs > 0:
                out[r] = vdot(these_pos, below) / pairs
        return out

    def state(self) -> ScoreState:
        """The map of distinct scores (positive label 1: the positives are given)."""
        if "state" not in self._memo:
            starts = self.starts()
            if self.unit:  # whole counts, summed as integers
                size = self.size.astype(np.int64, copy=False)
                if starts.shape[0] < size.shape[0]:
                    # one weight: a score has at most two cells, the negative one
                    # first, so its negatives are its first cell's and its positives
                    # its last cell's (gathers, not sums over every cell)
                    ends = np.empty(starts.shape[0], dtype=np.int64)
                    np.subtract(starts[1:], 1, out=ends[:-1])
                    ends[-1] = size.shape[0] - 1
                    positive = self.positive[ends]
                    # the sizes written over the indices ("clip": unbuffered, each
                    # index read before its place is written): one array, not two
                    pos = np.take(size, ends, out=ends, mode="clip")
                else:
                    positive, pos = self.positive, size.copy()
                # products in place: no branches, no arrays over every cell
                pos *= positive
                neg = size[starts]
                neg *= ~self.positive[starts]
            else:
                pos, neg = self.per_score(self.size.astype(np.float64))
            self._memo["state"] = ScoreState(self.score[starts], pos, neg)
        return self._memo["state"]

    def midway(self) -> tuple[np.ndarray, np.ndarray]:
        """Per distinct score, the positive weight up to it less half its own, and the
        negative weight below it plus half its own (in floating point): the ROC area and
        DeLong's terms both read them (:meth:`roc_area`, which keeps what it found from
        them, not them)."""
        st = self.state()
        if self.unit:  # an integer running sum is faster, and exact
            return _running_whole(st.pos), _running_whole(st.neg)
        up = [np.cumsum(st.pos, dtype=np.float64), np.cumsum(st.neg, dtype=np.float64)]
        up[0] -= 0.5 * st.pos
        up[1] -= 0.5 * st.neg
        return up[0], up[1]

    def roc_area(self) -> tuple[float, tuple[float, float, float, float, float] | None]:
        """The ROC AUC and, with both classes, DeLong's terms
        (:func:`~dartboard._kernels._analytic.delong_terms_grouped`), from one set of
        running sums (:meth:`midway`), which are not kept: two arrays of the distinct
        scores' length for each state an evaluation holds."""
        if "roc area" not in self._memo:
            st = self.state()
            if st.pos.shape[0] < _SHARED_SUMS:  # few scores: few calls, not memory, count
                value = auc_from_groups(st.pos, st.neg)
                terms = _analytic.delong_terms_grouped(st.pos, st.neg) \
                    if np.isfinite(value) else None
            else:
                midway = self.midway()
                value = auc_from_groups(st.pos, st.neg, None, midway[1])
                terms = _analytic.delong_terms_grouped(st.pos, st.neg, midway) \
                    if np.isfinite(value) else None  # both classes
            self._memo["roc area"] = (value, terms)
        return self._memo["roc area"]

    def pr_points(self) -> PRPoints:
        """Precision and the cumulative counts down the distinct scores, which average
        precision and the PR area both read."""
        if "pr_points" not in self._memo:
            st = self.state()
            self._memo["pr_points"] = precision_recall_points(st.pos, st.neg,
                                                              self._memo.get("descending"))
        return self._memo["pr_points"]

    def curves(self, keep: Callable[[int], np.ndarray] | None = None
               ) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """``(fpr, tpr)`` of the ROC curve (collinear points dropped) and ``(precision,
        recall)`` of the PR curve, as ``roc_curve`` and ``precision_recall_curve`` give
        them, from the cumulative counts the ranking metrics already read.

        ``keep``: of a curve's length, the indices of the points wanted (a figure's
        evenly spaced few); only those are computed, not every distinct score's."""
        if keep is None:
            st, points = self.state(), self.pr_points()
            fpr, tpr, _ = roc_from_groups(st.scores, st.pos, st.neg, True, points[1:3],
                                          thresholds=False)
            precision, recall, _ = pr_curve_from_groups(st.scores, st.pos, st.neg, False,
                                                        points, thresholds=False)
            return (fpr, tpr), (precision, recall)
        return self._roc_points(keep), self._pr_points(keep)

    def _descending_at(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
        """The cumulative (TP, FP) down the distinct scores at ``rows`` (of
        :meth:`_descending`) and their last (all positives, all negatives), bit for bit:
        with whole counts and the sums not formed yet, from sums of the counts between
        the rows (a figure's few points need no arrays of the scores' length)."""
        if not self.unit or "pr_points" in self._memo or "descending" in self._memo:
            tps, fps = self._descending()
            return tps[rows], fps[rows], tps[-1], fps[-1]
        st = self.state()
        tp, fp = (_tail_sums(c, rows) for c in (st.pos, st.neg))
        return tp, fp, float(st.pos.sum()), float(st.neg.sum())

    def _descending(self) -> tuple[np.ndarray, np.ndarray]:
        """Cumulative (TP, FP) down the distinct scores (those of :meth:`pr_points`)."""
        if "pr_points" in self._memo:
            return self._memo["pr_points"][1:3]
        if "descending" not in self._memo:
            st = self.state()
            self._memo["descending"] = descending_counts(st.pos, st.neg)
        return self._memo["descending"]

    def _roc_points(self, keep: Callable[[int], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """:func:`roc_from_groups`'s ``(fpr, tpr)`` (collinear points dropped, (0, 0)
        first) at the indices ``keep`` gives."""
        st = self.state()
        n = st.pos.shape[0]
        if n > 2:
            mask = np.ones(n, dtype=bool)
            if self.unit:  # whole counts: a second difference of the sums is a first
                # difference of the counts, exactly
                p, q = st.pos[::-1], st.neg[::-1]
                np.logical_or(p[2:] != p[1:-1], q[2:] != q[1:-1], out=mask[1:-1])
            else:
                tps, fps = self._descending()
                np.logical_or(np.diff(fps, 2), np.diff(tps, 2), out=mask[1:-1])
            at = np.flatnonzero(mask)
        else:
            at = np.arange(n)
        wanted = keep(at.shape[0] + 1)
        rows = at[np.maximum(wanted - 1, 0)]
        first = wanted == 0
        tp_at, fp_at, tp_all, fp_all = self._descending_at(rows)
        fp, tp = np.where(first, 0.0, fp_at), np.where(first, 0.0, tp_at)
        return fp / fp_all, tp / tp_all

    def _pr_points(self, keep: Callable[[int], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """:func:`pr_curve_from_groups`'s ``(precision, recall)`` (recall increasing,
        (1, 0) last) at the indices ``keep`` gives."""
        n = self.state().pos.shape[0]
        wanted = keep(n + 1)
        last = wanted == n
        rows = n - 1 - np.minimum(wanted, n - 1)
        tp, fp, tp_all, _ = self._descending_at(rows)
        ps = tp + fp
        precision = np.divide(tp, ps, out=np.zeros_like(tp), where=ps != 0)
        recall = tp / tp_all
        return np.where(last, 1.0, precision), np.where(last, 0.0, recall)

    def ap_variance(self) -> float:
        """The influence-function variance of average precision (and of the PR area,
        which takes the same interval)."""
        if "ap_variance" not in self._memo:
            st = self.state()
            self._memo["ap_variance"] = _analytic.ap_influence(st.pos, st.neg)[1]
        return self._memo["ap_variance"]

    def ap_derivatives(self) -> np.ndarray:
        """(C,) the change of average precision per row added to each cell
        (:func:`~dartboard._kernels._analytic.ap_derivatives` at the cell's score and
        class, times its rows' weight)."""
        if "ap_derivatives" not in self._memo:
            st = self.state()
            _, d_pos, d_neg = _analytic.ap_derivatives(st.pos, st.neg)
            gid, _ = self.groups()
            per = np.where(self.positive, d_pos[gid], d_neg[gid])
            self._memo["ap_derivatives"] = per if self.unit else per * self.weight
        return self._memo["ap_derivatives"]

    @property
    def n_rows(self) -> int:
        return int(self.size.sum())


@dataclasses.dataclass(frozen=True, eq=False)
class ClassTable(State):
    """Rows of a multiclass score matrix grouped by (class, score row, weight).

    A one-vs-rest or one-vs-one AUC reads each class column in its own order, so
    the rows themselves are the cells; the value and every replicate are the
    metric of the rows the counts repeat (a weighted one-vs-rest AUC takes the
    repeats as weights; one-vs-one, which takes no weights, the repeated rows).
    """

    classes: np.ndarray
    code: np.ndarray
    proba: np.ndarray
    weight: np.ndarray
    size: np.ndarray
    weighted: bool

    @classmethod
    def from_rows(cls, y: np.ndarray, proba: np.ndarray, classes: np.ndarray,
                  weight: np.ndarray | None) -> ClassTable:
        code = np.searchsorted(classes, y)
        w = np.ones(y.shape[0]) if weight is None else weight.astype(np.float64)
        keys, size = aggregate((code, *proba.T, w), np.ones(y.shape[0], dtype=np.int64))
        return cls(classes, keys[0], np.column_stack(keys[1:-1]), keys[-1], size,
                   weight is not None)

    def merge(self, other: ClassTable) -> ClassTable:
        keys, size = aggregate(tuple(np.concatenate([a, b]) for a, b in zip(
            self.keys, other.keys)), np.concatenate([self.size, other.size]), runs=True)
        return ClassTable(self.classes, keys[0], np.column_stack(keys[1:-1]), keys[-1], size,
                          self.weighted or other.weighted)

    @property
    def keys(self) -> tuple[np.ndarray, ...]:
        return (self.code, *self.proba.T, self.weight)

    def rows(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """(y_true, scores, weights) of the rows ``counts`` repeats: repeated rows when
        unweighted, else the cells with the counts times their weights."""
        if not self.weighted:
            repeat = counts.astype(np.int64)
            return (self.classes[np.repeat(self.code, repeat)],
                    np.repeat(self.proba, repeat, axis=0), None)
        keep = counts > 0
        return self.classes[self.code[keep]], self.proba[keep], \
            counts[keep] * self.weight[keep]

    def metric(self, metric: Metric, counts: np.ndarray) -> float:
        y, scores, w = self.rows(counts)
        weight = {} if w is None else {"sample_weight": w}
        try:
            return float(metric.spec.function(y, scores, **metric.kwargs, **weight))
        except ValueError:  # a class missing from a replicate
            return float("nan")


@dataclasses.dataclass(frozen=True, eq=False)
class BinnedScores(State):
    """Binned scores in bounded memory (a streamed evaluation's ``exact=False``): one
    :class:`~dartboard.metrics.BinnedScoreState` for binary scores, one per class
    (one-vs-rest, macro-averaged) for a score matrix. Estimates with a guaranteed
    error bound; no interval."""

    states: tuple[BinnedScoreState, ...]
    rows: int

    @classmethod
    def from_rows(cls, batch: Batch, scores: np.ndarray, bins: tuple[int, float, float]
                  ) -> BinnedScores:
        if scores.ndim == 1:
            positive = np.asarray(batch.y_true == batch.positive, dtype=np.int8)
            return cls((BinnedScoreState(*bins).update(positive, scores, batch.weight),),
                       scores.shape[0])
        code = np.searchsorted(np.asarray(batch.classes), batch.y_true)
        return cls(tuple(BinnedScoreState(*bins).update((code == c).astype(np.int8),
                                                        scores[:, c], batch.weight)
                         for c in range(scores.shape[1])), scores.shape[0])

    def merge(self, other: BinnedScores) -> BinnedScores:
        return BinnedScores(tuple(a.merge(b) for a, b in zip(self.states, other.states)),
                            self.rows + other.rows)

    @property
    def size(self) -> np.ndarray:
        return np.array([self.rows])

    def value(self, name: str) -> float:
        return float(np.mean([s.compute(name) for s in self.states]))

    def error_bound(self, name: str) -> float:
        return float(np.mean([s.error_bound(name) for s in self.states]))


# ------------------------------------------------------------------------ kernels

def _auc(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    below = np.cumsum(neg, axis=1) - 0.5 * neg
    wins = np.einsum("bs,bs->b", pos, below)
    pairs = pos.sum(axis=1) * neg.sum(axis=1)
    out = np.full(pos.shape[0], np.nan)
    np.divide(wins, pairs, out=out, where=pairs > 0)
    return out


def _average_precision(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    tp = np.cumsum(pos[:, ::-1], axis=1)
    fp = np.cumsum(neg[:, ::-1], axis=1)
    d = tp + fp
    precision = np.zeros_like(tp)
    np.divide(tp, d, out=precision, where=d > 0)
    total = tp[:, -1]
    out = np.full(pos.shape[0], np.nan)
    np.divide(np.einsum("bs,bs->b", pos[:, ::-1], precision), total, out=out,
              where=total > 0)
    return out


def _pr_auc(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    out = np.full(pos.shape[0], np.nan)
    for r in range(pos.shape[0]):
        if pos[r].sum() > 0:
            drawn = (pos[r] + neg[r]) > 0  # thresholds at the scores drawn
            out[r] = pr_auc_from_groups(pos[r][drawn], neg[r][drawn])
    return out


#: distinct scores from which the ROC area and DeLong's terms share their running sums
#: (:meth:`ScoreCells.midway`), which they read a piece at a time: below, the arrays
#: are small and the time is in the number of calls (a thousand groups' states, with
#: a worker thread drawing beside them), which the plain kernels keep low; the same bits
#: either way
_SHARED_SUMS = 1 << 16

#: the rows converted at a time where an array's integers become floats in place
_IN_PLACE_PIECE = 1 << 16


def _running_whole(counts: np.ndarray) -> np.ndarray:
    """Of whole counts, as floats: the running sum less half of each count, from one
    integer running sum, exactly (every partial sum is a whole number, every half sum a
    half-integer)."""
    up = np.cumsum(counts, dtype=np.int64)
    n = up.shape[0]
    up *= 2
    up -= counts
    # the half sums written over the integers, a piece at a time (numpy would copy the
    # whole array to convert it in place at once): no second array of the scores' length
    half = up.view(np.float64)
    for start in range(0, n, _IN_PLACE_PIECE):
        piece = slice(start, start + _IN_PLACE_PIECE)
        np.multiply(up[piece], 0.5, out=half[piece])
    return half


def _tail_sums(counts: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``np.cumsum(counts[::-1], dtype=float)[rows]`` of whole counts, bit for bit
    (every sum is a whole number below 2**53), without the running sum: the counts
    summed between the rows' cuts, then those sums from the last cut back."""
    n = counts.shape[0]
    cuts, back = np.unique(n - 1 - np.asarray(rows, dtype=np.intp), return_inverse=True)
    if not cuts.shape[0]:
        return np.zeros(0)
    # cuts strictly increasing and below n: reduceat sums counts[cut_i:cut_(i+1)], the
    # last from its cut to the end
    tails = np.cumsum(np.add.reduceat(counts.astype(np.int64, copy=False), cuts)[::-1])
    return tails[::-1][back.reshape(-1)].astype(np.float64)


def _one(batched: Callable[..., np.ndarray]) -> Callable[..., float]:
    """The value of one state's cells from a batched kernel."""
    def value(cells: ScoreCells, **kw: Any) -> float:
        st = cells.state()
        return float(batched(st.pos[None, :], st.neg[None, :], **kw)[0])

    return value


def _ap(cells: ScoreCells) -> float:
    st = cells.state()
    return ap_from_groups(st.pos, st.neg, cells.pr_points())


def _pr_area(cells: ScoreCells) -> float:
    st = cells.state()
    return pr_auc_from_groups(st.pos, st.neg, cells.pr_points())


#: metric -> (value from a state's cells, batched value from per-score weights, the
#: metric's keywords besides ``pos_label`` that both take)
class Kernel(NamedTuple):
    """A ranking metric's kernels: its value from the cells, its replicates from (b, C)
    draw counts, the keywords they take, and its kind, which says which of the
    family's other capabilities apply (``"auc"``: DeLong's and Obuchowski's terms, the
    joint-rank swap; ``"average_precision"``, ``"pr_area"``: the precision areas'
    influence values; ``"fixed_point"``: a rate at a fixed other rate)."""

    value: Callable[..., float]
    replicates: Callable[..., np.ndarray]
    keywords: tuple[str, ...]
    kind: str


KERNELS: dict[str, Kernel] = {
    "roc_auc_score": Kernel(lambda cells: cells.roc_area()[0],
                            _auc, (), "auc"),
    "average_precision_score": Kernel(_ap, _average_precision, (), "average_precision"),
    "pr_auc_score": Kernel(_pr_area, _pr_auc, (), "pr_area"),
    "sensitivity_at_specificity": Kernel(_one(at_fixed_point), at_fixed_point,
                                         ("specificity",), "fixed_point"),
    "specificity_at_sensitivity": Kernel(_one(at_fixed_point), at_fixed_point,
                                         ("sensitivity",), "fixed_point"),
}


def _kind(metric: Metric) -> str | None:
    """The kind of ``metric``'s kernels (:class:`Kernel`), None for a metric without."""
    found = KERNELS.get(metric.name)
    return None if found is None else found.kind


def _keywords(metric: Metric) -> dict[str, Any]:
    """The keywords ``metric``'s kernels take (a fixed point's target, say)."""
    return {k: metric.kwargs[k] for k in KERNELS[metric.name].keywords if k in metric.kwargs}


class ScoresFamily(Family):
    """Ranking metrics of binary scores (see the module docstring)."""

    key = "scores"

    def supports(self, metric: Metric) -> bool:
        # max_fpr of None or 1 is the full AUC
        kw = {k for k, v in metric.kwargs.items()
              if not (k == "max_fpr" and v in (None, 1, 1.0))}
        if "multi_class" in kw:
            return _kind(metric) == "auc" and kw <= {"multi_class", "average",
                                                             "labels"} \
                and metric.kwargs.get("average", "macro") is not None
        return metric.name in KERNELS and kw <= {"pos_label", *KERNELS[metric.name].keywords}

    def takes(self, y_true: np.ndarray, other: np.ndarray, metric: Metric) -> bool:
        if np.ndim(y_true) != 1:
            return False
        if np.ndim(other) == 2:  # a multiclass AUC of a score matrix
            return "multi_class" in metric.kwargs
        return np.ndim(other) == 1 and np.unique(y_true).shape[0] == 2

    def state_key(self, metric: Metric) -> str:
        if "multi_class" in metric.kwargs:
            return f"scores:{sorted(metric.kwargs.items())}"
        return self.key

    def paired_kind(self, y: np.ndarray, a: np.ndarray, w: np.ndarray | None,
                    metric: Metric) -> type | None:
        if w is not None or _kind(metric) != "auc":
            return None
        if a.ndim == 1 and not metric.kwargs:
            return PairedAUC
        if a.ndim == 2 and y.ndim == 1 and batched_multiclass(metric.kwargs):
            return MulticlassAUC
        return None

    def paired(self, y: np.ndarray, a: np.ndarray, b: np.ndarray, w: np.ndarray | None,
               metric: Metric) -> PairedAUC | MulticlassAUC | None:
        kind = self.paired_kind(y, a, w, metric)
        if kind is PairedAUC:
            return PairedAUC(y, a, b)
        if kind is MulticlassAUC:
            return MulticlassAUC(y, a, b, metric.kwargs)
        return None

    def rank_swappable(self, metric: Metric, pred: np.ndarray, y: np.ndarray) -> bool:
        # a multiclass AUC validates its (n, K) scores as probability rows
        return not (_kind(metric) == "auc" and pred.ndim == 2 and y.ndim == 1)

    def swaps_raw_scores(self, metric: Metric, pred: np.ndarray) -> bool:
        # every binary ranking metric: on whole clusters a swap of the raw scores (by
        # their joint ranks) is the exchange of the two models, and each model's own
        # ranks are not (benchmarks/unequal_clusters_type1.py: ROC AUC and average
        # precision rejected up to 7.0% and 7.4% of equal models at 5% with own ranks)
        return np.ndim(pred) == 1 and _kind(metric) is not None

    def build(self, batch: Batch, metric: Metric) -> ScoreCells | ClassTable | BinnedScores:
        scores = batch.of(metric)
        bins = batch.approximate.get("score_bins")
        if bins is not None:
            return BinnedScores.from_rows(batch, scores, bins)
        if scores.ndim == 2:
            classes = batch.classes if batch.classes is not None else np.unique(batch.y_true)
            return ClassTable.from_rows(batch.y_true, scores, np.asarray(classes),
                                        batch.weight)
        return ScoreCells.from_rows(np.asarray(batch.y_true == batch.positive), scores,
                                    batch.weight)

    def build_groups(self, batch: Batch, metric: Metric, members: Sequence[np.ndarray]
                     ) -> list[Any]:
        """Unweighted exact binary scores: every group's cells from each class's sorted
        runs, all groups in one pass (:func:`counted_runs_of`); else each group's rows
        built on their own."""
        scores = batch.of(metric)
        if not one_pass(members) or batch.weight is not None or scores.ndim != 1 or \
                batch.approximate.get("score_bins") is not None or \
                batch.y_true.shape != scores.shape:
            return super().build_groups(batch, metric, members)
        positive = np.asarray(batch.y_true == batch.positive).astype(bool)
        narrow = scores.dtype == np.float32
        runs = counted_runs_of(scores if narrow else scores.astype(np.float64),
                               positive.astype(np.uint8), members)
        out = []
        for classes, s, size in runs:
            s, p, size = _merged_runs(classes, s, size)
            s = s.astype(np.float64)
            out.append(ScoreCells(s, p, _unit_weights(s.shape[0]), size, False))
        return out

    def build_clusters(self, batch: Batch, metric: Metric, members: Sequence[np.ndarray]
                       ) -> list[Any]:
        """Exact binary scores: every cluster's (score, positive, weight) cells from one
        sort keyed by the cluster first, cut at the clusters' bounds (each cluster's
        cells are then those of :meth:`build` of its rows)."""
        scores = batch.of(metric)
        if scores.ndim != 1 or batch.approximate.get("score_bins") is not None:
            return super().build_clusters(batch, metric, members)
        codes = owners(members, scores.shape[0])
        w = np.ones(scores.shape[0]) if batch.weight is None \
            else batch.weight.astype(np.float64)
        keys = (codes, scores.astype(np.float64), np.asarray(batch.y_true == batch.positive), w)
        weighted = batch.weight is not None
        ones = np.ones(scores.shape[0], dtype=np.int64)
        # the rows by (cluster, score, positive, weight) and by (score, positive, weight)
        sorted_rows = orders_within_first(keys) if len(members) > 1 else None
        if sorted_rows is None:
            (owner, s, p, ww), size = aggregate(keys, ones)
        else:  # the same cells, and the pooled cells from the same sort
            (owner, s, p, ww), size, at = aggregate_placed(keys, ones, order=sorted_rows[0])
        bounds = np.searchsorted(owner, np.arange(len(members) + 1))
        states = [ScoreCells(s[a:b], p[a:b], ww[a:b], size[a:b], weighted)
                  for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist())]
        if sorted_rows is not None:
            # each cell's first row's place among the rows' (score, positive, weight)
            # cells: what pooling the clusters' cells would sort them again to find
            pooled, row_cell = _pooled_rows(keys[1:], sorted_rows[1], weighted)
            first = np.empty(size.shape[0], dtype=np.intp)
            first[at] = np.arange(at.shape[0])  # a row of each cell
            keep_for_states(_LAST_POOLED, states, (
                pooled, np.repeat(np.arange(len(states)), np.diff(bounds)),
                row_cell[first], size.astype(np.float64), {}), slots=8)
        return states

    def merge_all(self, states: Sequence[Any]) -> Any:
        if len(states) > 1 and all(isinstance(s, ScoreCells) for s in states):
            return ScoreCells.merged(states)
        return super().merge_all(states)

    def merge_many(self, pairs: Sequence[tuple[Any, Any]]) -> list[Any]:
        """Exact binary score cells: every pair's cells aggregated in one sort keyed by
        the pair first (each pair's cells are then those of its merge)."""
        if not all(isinstance(s, ScoreCells) for pair in pairs for s in pair):
            return super().merge_many(pairs)
        parts = [s for pair in pairs for s in pair]
        owner = np.repeat(np.arange(len(pairs)), [a.size.shape[0] + b.size.shape[0]
                                                  for a, b in pairs])
        (pair, s, p, w), size = aggregate(
            (owner, *(np.concatenate([getattr(x, k) for x in parts])
                      for k in ("score", "positive", "weight"))),
            np.concatenate([x.size for x in parts]))
        bounds = np.searchsorted(pair, np.arange(len(pairs) + 1))
        return [ScoreCells(s[i:j], p[i:j], w[i:j], size[i:j], a.weighted or b.weighted)
                for (i, j), (a, b) in zip(zip(bounds[:-1], bounds[1:]), pairs)]

    def n_rows(self, state: ScoreCells | ClassTable) -> int:
        return int(state.size.sum())

    def bounded(self, state: ScoreCells | ClassTable | BinnedScores) -> bool:
        return isinstance(state, BinnedScores)  # the exact map grows with the scores

    def binnable(self, metric: Metric) -> bool:
        return metric.spec.binned

    def error_bound(self, state: Any, metric: Metric) -> float | None:
        return state.error_bound(metric.name) if isinstance(state, BinnedScores) else None

    def no_cells(self, state: Any, metric: Metric) -> str:
        return (f"{metric.name} from binned scores has an error bound, not an interval "
                "(exact=True keeps the distinct scores)")

    def value(self, state: ScoreCells | ClassTable | BinnedScores, metric: Metric) -> float:
        if isinstance(state, BinnedScores):
            return state.value(metric.name)
        if isinstance(state, ClassTable):
            return state.metric(metric, state.size.astype(np.float64))
        keywords = _keywords(metric)
        key = f"value:{metric.name}:{sorted(keywords.items())}"
        if key not in state._memo:
            state._memo[key] = float(KERNELS[metric.name].value(state, **keywords))
        return state._memo[key]

    def _cells(self, state: ScoreCells | ClassTable, metric: Metric) -> Cells:
        if isinstance(state, ClassTable):
            def each(counts: np.ndarray) -> np.ndarray:
                return np.array([state.metric(metric, c) for c in counts])

            # stratified: within the class of y_true
            return Cells(state.size, state.code, each, None,
                         8 * 4 * max(int(state.size.sum()), 1) * state.proba.shape[1])
        kernel, keywords = KERNELS[metric.name].replicates, _keywords(metric)

        def evaluate(counts: np.ndarray) -> np.ndarray:
            return kernel(*state.per_score(counts), **keywords)

        if _kind(metric) == "auc":
            evaluate = state.auc  # noqa: F811  (the same values, without per-score sums)

        jack = (lambda: _auc_jackknife(state)) if _kind(metric) == "auc" else None
        # the PR area estimates the same functional as average precision (the area under
        # the PR curve), so it takes AP's influence values, as its interval does
        influence = state.ap_derivatives if _kind(metric) in _PRECISION_AREAS else None
        n_scores = int(state.starts().shape[0])
        # distinct scores are mostly one-row cells: drawn as picks among their rows,
        # the same multinomial without a binomial per cell
        return Cells(state.size, state.positive.astype(np.int64), evaluate, jack,
                     8 * 6 * max(n_scores, state.size.shape[0]), sampler=split_multinomial,
                     influence=influence)

    def cells(self, state: Any, metric: Metric) -> Cells | None:
        return None if isinstance(state, BinnedScores) else self._cells(state, metric)

    def bootstrap_cells(self, state: Any, metric: Metric) -> Cells | None:
        cells = self.cells(state, metric)
        if cells is None or not isinstance(state, ScoreCells) or \
                _kind(metric) != "auc":
            return cells
        # ROC AUC's replicates draw the cells negatives first (ScoreCells.class_order):
        # its kernel then reads each class as a slice
        order = state.class_order()
        jackknife = cells.jackknife
        assert jackknife is not None  # ROC AUC's leave-one-out is in closed form
        return dataclasses.replace(
            cells, size=cells.size[order], stratum=cells.stratum[order],
            evaluate=lambda counts: state.auc(counts, split=True),
            jackknife=lambda: jackknife()[order])

    def pool(self, states: Sequence[Any], metric: Metric
             ) -> tuple[Cells, list[Cells], list[np.ndarray]] | None:
        if isinstance(states[0], BinnedScores):
            return None
        pooled, where = pooled_states(
            states, lambda a, b: a.merge(b),
            ScoreCells.merged if all(isinstance(s, ScoreCells) for s in states) else None)
        return (self._cells(pooled, metric), [self._cells(s, metric) for s in states], where)

    def cluster_cells(self, batch: Batch, metric: Metric, clusters: np.ndarray,
                      n_clusters: int) -> tuple[Cells, Any] | None:
        # the (score, positive, weight) cells of all rows are the clusters' cells
        # pooled, so each row's cell is found once among them
        from scipy import sparse

        scores = batch.of(metric)
        if scores.ndim != 1 or batch.approximate.get("score_bins") is not None:
            return None
        positive = np.asarray(batch.y_true == batch.positive)
        full = ScoreCells.from_rows(positive, scores, batch.weight)
        w = np.ones(scores.shape[0]) if batch.weight is None \
            else batch.weight.astype(np.float64)
        at = place((scores.astype(np.float64), positive, w), full.keys)
        matrix = sparse.csr_matrix((np.ones(at.shape[0]), (clusters, at)),
                                   shape=(n_clusters, full.size.shape[0]))
        return self._cells(full, metric), matrix

    def state_cluster_cells(self, states: Sequence[Any], metric: Metric,
                            at: np.ndarray | None, n_clusters: int | None
                            ) -> tuple[Cells, Any] | None:
        """Exact binary scores: the clusters' cells pooled and each one's place among
        them from one sort of their cells end to end (the cells :meth:`pool` merges and
        places, the same arrays: a merge of sorted runs, without searching for each
        cluster's cells again or forming each cluster's own ``Cells``). Kept for the
        last few lists of states: every metric of the scores reads the same ones."""
        if not states or not all(isinstance(s, ScoreCells) for s in states):
            return None
        pooled, owner, where, size, matrices = _pooled(states)
        return self._cells(pooled, metric), kept_matrix(
            matrices, (owner, where, size), (len(states), pooled.size.shape[0]), at,
            n_clusters)

    # ---------------------------------------------------------------- analytic

    def methods(self, state: Any, metric: Metric) -> tuple[str, ...]:
        if isinstance(state, BinnedScores):
            return ()
        if isinstance(state, ClassTable):
            ovr_macro = metric.kwargs.get("multi_class") == "ovr" and \
                metric.kwargs.get("average", "macro") == "macro"
            return ("influence-logit",) if ovr_macro and not state.weighted and \
                np.unique(state.code).shape[0] >= 3 else ()
        m, n = _classes(state)
        if not state.unweighted or m == 0 or n == 0:
            return ()
        # influence-logit of ROC AUC is the multiclass macro AUC's, not a binary one's
        named = (metric.spec.default_interval, *metric.spec.asymptotic)
        return tuple(x for x in named if x is not None and x not in BOOTSTRAP_METHODS
                     and not (x == "influence-logit" and _kind(metric) == "auc"))

    def cluster_terms(self, batch: Batch, metric: Metric, codes: np.ndarray,
                      n_clusters: int) -> ClusterTerms | None:
        """Obuchowski's per-cluster placement sums of a binary ROC AUC: each row's
        placement value (the share of the other class beyond it, ties one half) from
        two sorted arrays, summed per cluster by bincount."""
        scores = batch.of(metric)
        if _kind(metric) in _PRECISION_AREAS and set(metric.kwargs) <= {"pos_label"} \
                and np.ndim(scores) == 1:
            mass = np.ones(scores.shape[0]) if batch.weight is None else \
                np.asarray(batch.weight, dtype=np.float64)
            return _precision_terms(metric, codes, n_clusters, np.asarray(scores, float),
                                    np.asarray(batch.y_true == batch.positive), mass)
        if _kind(metric) != "auc" or metric.kwargs or batch.weight is not None \
                or np.ndim(scores) != 1:
            return None
        positive = np.asarray(batch.y_true == batch.positive)
        # each row a cell of one row: the cells' placement values are the rows'
        value = _cell_placements(np.asarray(scores), positive, np.ones(scores.shape[0]))
        if value is None:
            return None

        def per(rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
            return np.bincount(codes[rows], weights=weights, minlength=n_clusters)

        wins = (lambda: pair_wins(codes, scores, positive, np.ones(scores.shape[0]),
                                  n_clusters)) \
            if pair_wins_fit(n_clusters, scores.shape[0]) else None
        return auc_terms(per(positive, value[positive]), per(~positive, value[~positive]),
                         per(positive, np.ones(int(positive.sum()))),
                         per(~positive, np.ones(int((~positive).sum()))), wins)

    def state_cluster_terms(self, states: Sequence[Any], metric: Metric
                            ) -> ClusterTerms | None:
        """Obuchowski's placement sums from each cluster's (score, positive) cells: a
        cell's placement value is that of each of its rows, so a cluster's sum is the
        cells' values times their sizes (the same terms as from the rows)."""
        if _kind(metric) in _PRECISION_AREAS and set(metric.kwargs) <= {"pos_label"} and all(
                isinstance(s, ScoreCells) for s in states):
            owner, score, positive, size, mass = _cluster_cells(states)
            return _precision_terms(metric, owner, len(states), score, positive, mass,
                                    _LAST_PRECISION, states,
                                    distinct=lambda: _distinct_scores(states))
        if _kind(metric) != "auc" or metric.kwargs or any(
                not isinstance(s, ScoreCells) or s.weighted for s in states):
            return None
        owner, score, positive, size, _ = _cluster_cells(states)
        value = _pooled_placements(states)
        if value is None:
            return None

        def per(rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
            return np.bincount(owner[rows], weights=weights, minlength=len(states))

        wins = (lambda: pair_wins(owner, score, positive, size, len(states))) \
            if pair_wins_fit(len(states), score.shape[0]) else None
        return auc_terms(per(positive, (value * size)[positive]),
                         per(~positive, (value * size)[~positive]),
                         per(positive, size[positive]), per(~positive, size[~positive]), wins)

    def why_not(self, state: ScoreCells | ClassTable, metric: Metric, method: str) -> str:
        if isinstance(state, ClassTable):
            if state.weighted:
                return f"method={method!r} does not take sample_weight"
            if method in ROC_AUC_METHODS:
                author = "Newcombe" if method == "newcombe" else "DeLong"
                return (f"method={method!r} is {author}'s interval of a binary ROC AUC; got "
                        f"{state.classes.shape[0]} classes in y_true and y_score of shape "
                        f"(n, {state.proba.shape[1]})")
            return (f"method={method!r} of a multiclass roc_auc_score is the interval of the "
                    "one-vs-rest macro AUC (multi_class='ovr', average='macro')")
        if not state.unweighted:
            return f"method={method!r} does not take sample_weight"
        if method == "influence-logit" and _kind(metric) == "auc":
            return (f"method={method!r} of roc_auc_score is the interval of a multiclass "
                    "one-vs-rest macro AUC; binary scores take 'delong' or 'delong-logit' "
                    "(or 'newcombe')")
        return f"method={method!r} needs both classes in y_true"

    def auto_size(self, state: Any, metric: Metric) -> int:
        if isinstance(state, BinnedScores):
            return 0
        if isinstance(state, ClassTable):
            return int(np.bincount(state.code, weights=state.size).min())
        return int(min(_classes(state)))

    def analytic(self, state: ScoreCells | ClassTable, metric: Metric, method: str,
                 level: float) -> tuple[float, float, float]:
        if method not in self.methods(state, metric):
            raise InputError(f"method={method!r} does not apply to {metric.name} here")
        if isinstance(state, ClassTable):
            y, scores, _ = state.rows(state.size.astype(np.float64))
            return ovr_macro_auc_interval(self.value(state, metric), y, scores, level,
                                          metric.kwargs)
        st = state.state()
        estimate = self.value(state, metric)
        if method == "newcombe":
            return _analytic.newcombe_interval(estimate, *_classes(state), level)
        if method in ("delong", "delong-logit"):
            terms = state.roc_area()[1]
            if terms is None:  # one class: the terms as they come (not finite)
                terms = _analytic.delong_terms_grouped(st.pos, st.neg)
            if method == "delong":
                return _analytic.delong_interval(terms[0], terms[1] + terms[2], level)
            return _analytic.delong_logit(*terms, level)
        spread = estimate * (1.0 - estimate)
        if method == "logit" or float(st.pos.sum()) * spread < _analytic.AT_BOUNDARY:
            # at 0 or 1 the influence function is 0 too: Boyd's binomial model's
            # Wilson interval there
            return _analytic.boyd_logit(estimate, float(st.pos.sum()), level)
        se = float(np.sqrt(state.ap_variance()))
        low, high = _analytic.logit_interval(
            estimate, se / spread if spread > 0 else float("nan"), level)
        return low, high, se


#: per thread, the last clusters' cells laid end to end (:func:`_cluster_cells`): the
#: ranking metrics of one evaluation read the same clusters' states in turn
_LAST_CELLS = threading.local()
#: per thread, the last clusters' precision terms (:func:`_precision_terms`)
_LAST_PRECISION = threading.local()


_LAST_POOLED = threading.local()


def _pooled_in_one_sort(states: Sequence[ScoreCells]
                        ) -> tuple[ScoreCells, np.ndarray, np.ndarray, np.ndarray,
                                   dict[Any, Any]]:
    """``ScoreCells.merged(states)`` (a single state: itself, as :meth:`pool` keeps it),
    the state of each cell end to end, its place among the merged cells, its rows as
    floats (a cluster matrix's entries), and room for the matrices formed from them
    (:func:`kept_matrix`)."""
    lengths = [s.size.shape[0] for s in states]
    owner = np.repeat(np.arange(len(states)), lengths)
    size = np.concatenate([s.size for s in states])
    weighted = any(s.weighted for s in states)
    names = ("score", "positive", "weight") if weighted else ("score", "positive")
    found, merged_size, where = aggregate_placed(
        tuple(np.concatenate([getattr(s, k) for s in states]) for k in names), size,
        runs=True)
    if len(states) == 1:
        pooled = states[0]
        where = np.arange(lengths[0])
    else:
        weight = found[2] if weighted else _unit_weights(merged_size.shape[0])
        pooled = ScoreCells(found[0], found[1], weight, merged_size, weighted)
    return pooled, owner, where, size.astype(np.float64), {}


def _pooled_rows(keys: Sequence[np.ndarray], order: np.ndarray, weighted: bool
                 ) -> tuple[ScoreCells, np.ndarray]:
    """The cells of all rows by (score, positive, weight) (``keys``; ``order`` sorts
    them), as :meth:`ScoreCells.merged` of the clusters' cells gives them, and each
    row's cell among them."""
    n = order.shape[0]
    new = np.zeros(n, dtype=bool)
    if n:
        new[0] = True
    for k in keys:
        k = np.asarray(k)[order]
        new[1:] |= k[1:] != k[:-1]
    starts = np.flatnonzero(new)
    size = np.diff(np.append(starts, n)).astype(np.int64)
    row_cell = np.empty(n, dtype=np.intp)
    row_cell[order] = np.cumsum(new) - 1
    first = order[starts]
    score, positive, weight = (np.asarray(k)[first] for k in keys)
    pooled = ScoreCells(score, positive, weight if weighted else _unit_weights(size.shape[0]),
                        size, weighted)
    return pooled, row_cell


def _pooled(states: Sequence[ScoreCells]
            ) -> tuple[ScoreCells, np.ndarray, np.ndarray, np.ndarray, dict[Any, Any]]:
    """:func:`_pooled_in_one_sort` of ``states``, kept for the last few lists."""
    return kept_for_states(_LAST_POOLED, states, lambda: _pooled_in_one_sort(states),
                           slots=8)


def _distinct_scores(states: Sequence[ScoreCells]) -> tuple[np.ndarray, int]:
    """The place of each cell end to end (:func:`_cluster_cells`) among the distinct
    scores, and their count: ``np.unique(score, return_inverse=True)``'s, read from the
    pooled cells, which are in score order."""
    pooled, _, where, _, _ = _pooled(states)
    score = pooled.score
    if not score.shape[0]:
        return np.zeros(0, dtype=np.intp), 0
    new = np.empty(score.shape[0], dtype=bool)
    new[0] = True
    np.not_equal(score[1:], score[:-1], out=new[1:])
    index = np.cumsum(new) - 1
    return index[where], int(index[-1]) + 1


def _pooled_placements(states: Sequence[ScoreCells]) -> np.ndarray | None:
    """:func:`_cell_placements` of the cells end to end, from the pooled cells: in
    (score, positive) order, the other class's rows below each score and up to it
    are running sums over the pooled cells (whole numbers: the same sums in any
    order), without sorting each class's cells again."""
    pooled, _, where, _, _ = _pooled(states)
    score, positive = pooled.score, pooled.positive
    size = pooled.size.astype(np.float64)
    n_pos, n_neg = float(size[positive].sum()), float(size[~positive].sum())
    if n_pos == 0 or n_neg == 0:
        return None
    c = score.shape[0]
    new = np.empty(c, dtype=bool)
    new[0] = True
    np.not_equal(score[1:], score[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    run = np.cumsum(new) - 1
    first = starts[run]  # the first cell of each cell's score
    last = np.append(starts[1:], c)[run] - 1  # and its last
    pos = np.where(positive, size, 0.0)
    neg = size - pos
    up_pos, up_neg = np.cumsum(pos), np.cumsum(neg)
    value = np.where(positive,
                     ((up_neg - neg)[first] + up_neg[last]) / (2.0 * n_neg),
                     (2 * n_pos - (up_pos - pos)[first] - up_pos[last]) / (2.0 * n_pos))
    return value[where]


def _cluster_cells(states: Sequence[ScoreCells]) -> tuple[np.ndarray, ...]:
    """The cells of all clusters' states end to end: (cluster of each cell, score,
    positive, rows as floats, rows times weight); kept for the same states."""
    return kept_for_states(_LAST_CELLS, states, lambda: _cells_end_to_end(states))


def _cells_end_to_end(states: Sequence[ScoreCells]) -> tuple[np.ndarray, ...]:
    lengths = [s.size.shape[0] for s in states]
    found = (np.repeat(np.arange(len(states)), lengths),
             np.concatenate([s.score for s in states]),
             np.concatenate([s.positive for s in states]),
             np.concatenate([s.size for s in states]).astype(np.float64),
             (np.concatenate([s.size for s in states])
              * np.concatenate([s.weight for s in states])).astype(np.float64))
    for array in found:
        array.flags.writeable = False
    return found


def _classes(state: ScoreCells) -> tuple[float, float]:
    """(positive rows, negative rows)."""
    if "classes" not in state._memo:
        if state.unit and "state" in state._memo:  # whole counts: the same sum
            m = float(state._memo["state"].pos.sum())
        else:
            m = float(state.size[state.positive].sum())
        state._memo["classes"] = (m, float(state.size.sum()) - m)
    return state._memo["classes"]


def _unit_weights(n: int) -> np.ndarray:
    """The weights of ``n`` unweighted cells: a read-only view of one 1.0, no memory
    (a stream's cells number in the millions)."""
    return np.broadcast_to(np.float64(1.0), (n,))


def _cell_placements(score: np.ndarray, positive: np.ndarray, size: np.ndarray
                     ) -> np.ndarray | None:
    """Each (score, positive) cell's placement value, the share of the other class's
    rows beyond its score (ties one half), as each of its ``size`` rows has; None
    without rows of both classes."""
    n_pos, n_neg = float(size[positive].sum()), float(size[~positive].sum())
    if n_pos == 0 or n_neg == 0:
        return None

    # each class's cells in score order: the table of its rows up to each score, and
    # the queries into the other class's table in step (sorted queries are several
    # times faster than the cells' own order, the same values)
    at_pos, at_neg = np.flatnonzero(positive), np.flatnonzero(~positive)
    at_pos = at_pos[np.argsort(score[at_pos], kind="stable")]
    at_neg = at_neg[np.argsort(score[at_neg], kind="stable")]
    s_pos, s_neg = score[at_pos], score[at_neg]
    up_pos = np.concatenate([[0.0], np.cumsum(size[at_pos])])
    up_neg = np.concatenate([[0.0], np.cumsum(size[at_neg])])
    value = np.empty(score.shape[0])
    value[at_pos] = (up_neg[np.searchsorted(s_neg, s_pos, "left")]
                     + up_neg[np.searchsorted(s_neg, s_pos, "right")]) / (2.0 * n_neg)
    value[at_neg] = (2 * n_pos - up_pos[np.searchsorted(s_pos, s_neg, "left")]
                     - up_pos[np.searchsorted(s_pos, s_neg, "right")]) / (2.0 * n_pos)
    return value


def _class_runs(score: np.ndarray, positive: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells of unweighted rows, ``aggregate((score, positive), ones)``'s: each
    class's scores sorted and counted (:func:`counted_runs`), then the two sorted runs
    merged by score, the negatives' cell first at a tie (a stable sort of two runs is a
    linear merge)."""
    return _merged_runs(*counted_runs(score, positive.astype(np.uint8)))


def _merged_runs(classes: np.ndarray | None, s: np.ndarray, size: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each class's counted runs merged by score, the negatives' cell first at a tie."""
    assert classes is not None
    p = classes.astype(bool)
    if not s.shape[0] or p[0] == p[-1]:  # no rows, or one class: one sorted run
        return s, p, size.astype(np.int64)
    order = np.argsort(s, kind="stable")
    return s[order], p[order], size[order].astype(np.int64)


#: the areas under the precision-recall curve, whose cluster-robust interval takes
#: average precision's influence values (as their influence-logit interval does)
_PRECISION_AREAS = ("average_precision", "pr_area")


def _precision_terms(metric: Metric, owner: np.ndarray, n_clusters: int, score: np.ndarray,
                     positive: np.ndarray, mass: np.ndarray,
                     kept: threading.local | None = None,
                     states: Sequence[Any] = (),
                     distinct: Callable[[], tuple[np.ndarray, int]] | None = None
                     ) -> ClusterTerms | None:
    """``influence-logit-clustered``'s terms of AP or the PR area: each row's (or
    cell's, ``mass`` its rows times weight) influence value, average precision's change
    per row added at its score and class (:func:`~dartboard._kernels._analytic.
    ap_derivatives`, the influence function over the rows), summed per cluster
    (``owner``). The CR2 variance of these sums is the sandwich variance of AP's
    linearization with the clusters' rows dependent; the interval is formed on the
    logit scale, as ``influence-logit`` without clusters. Both areas take the same
    terms: from clusters' ``states``, they are kept (in ``kept``) for the other.
    ``distinct()``: each cell's distinct score and their count, where known."""
    def build() -> tuple[Any, ...] | None:
        return _precision_influence(owner, n_clusters, score, positive, mass,
                                    None if distinct is None else distinct())

    found = build() if kept is None else kept_for_states(kept, states, build)
    if found is None:
        return None
    pos, neg, ap, terms, sizes = found
    estimate = ap if _kind(metric) == "average_precision" else pr_auc_from_groups(pos, neg)
    return ClusterTerms(float(estimate), terms[:, None], (sizes > 0)[:, None],
                        "influence-logit-clustered", float(pos.sum()), sizes=sizes[:, None])


def _precision_influence(owner: np.ndarray, n_clusters: int, score: np.ndarray,
                         positive: np.ndarray, mass: np.ndarray,
                         distinct: tuple[np.ndarray, int] | None = None
                         ) -> tuple[Any, ...] | None:
    """(positive and negative mass per distinct score, AP, per-cluster sums of the
    influence values, per-cluster mass) of :func:`_precision_terms`; None where the
    clusters' terms do not apply. ``distinct``: each score's place among the distinct
    scores and their count (else found by ``np.unique``)."""
    if distinct is None:
        values, at = np.unique(score, return_inverse=True)
        at, k = at.reshape(-1), values.shape[0]
    else:
        at, k = distinct
    pos = np.bincount(at[positive], weights=mass[positive], minlength=k)
    neg = np.bincount(at[~positive], weights=mass[~positive], minlength=k)
    if not pos.sum() > 0 or not neg.sum() > 0:
        return None
    ap, d_pos, d_neg = _analytic.ap_derivatives(pos, neg)
    psi = mass * np.where(positive, d_pos[at], d_neg[at])
    terms = np.bincount(owner, weights=psi, minlength=n_clusters)
    sizes = np.bincount(owner, weights=mass, minlength=n_clusters)
    held = np.count_nonzero(np.bincount(owner[positive], weights=mass[positive],
                                        minlength=n_clusters))
    if held < 2 or not np.all(np.isfinite(terms)):
        # positives in one cluster: how the clusters' positives vary is not seen (as
        # ROC AUC's terms need each class in two clusters); the bootstrap of clusters
        return None
    for array in (pos, neg, terms, sizes):
        array.flags.writeable = False
    return pos, neg, ap, terms, sizes


def _auc_jackknife(state: ScoreCells) -> np.ndarray:
    """ROC AUC without one row of each cell, in closed form (nan if a class empties).

    Removing a positive of weight ``w`` at score ``s`` takes ``w`` times the negative
    weight below ``s`` (ties counted half) from the pairs won; a negative, ``w``
    times the positive weight above ``s``.
    """
    gid, _ = state.groups()
    pos, neg = (a[0] for a in state.per_score(state.size[None, :].astype(np.float64)))
    m, n = pos.sum(), neg.sum()
    neg_below = (np.cumsum(neg) - 0.5 * neg)[gid]
    pos_above = (m - np.cumsum(pos) + 0.5 * pos)[gid]
    wins = float(vdot(pos, np.cumsum(neg) - 0.5 * neg))
    w = state.weight
    out = np.full(state.size.shape[0], np.nan)
    p = state.positive
    with np.errstate(divide="ignore", invalid="ignore"):
        out[p] = (wins - w[p] * neg_below[p]) / ((m - w[p]) * n)
        out[~p] = (wins - w[~p] * pos_above[~p]) / (m * (n - w[~p]))
    out[~np.isfinite(out)] = np.nan
    return out


FAMILY = ScoresFamily()
