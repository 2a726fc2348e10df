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
:func:`dartboard.uncertainty._asymptotic.ap_influence`). The formulas are in
:mod:`dartboard.uncertainty._asymptotic` and :mod:`dartboard.uncertainty._analytic`.
``auto`` keys on the smaller class.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from dartboard.families._base import (
    BOOTSTRAP_METHODS,
    Batch,
    Cells,
    Family,
    Metric,
    aggregate,
    place,
)
from dartboard.families._paired import MulticlassAUC, PairedAUC, batched_multiclass
from dartboard.metrics._ranking import (
    ScoreState,
    _ap_from_groups,
    _auc_from_groups,
    _pr_auc_from_groups,
)
from dartboard.uncertainty import _analytic, _asymptotic

__all__ = ["FAMILY", "ScoreCells", "ScoresFamily"]


@dataclasses.dataclass(frozen=True)
class ScoreCells:
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

    @classmethod
    def from_rows(cls, positive: np.ndarray, score: np.ndarray,
                  weight: np.ndarray | None) -> ScoreCells:
        w = np.ones(score.shape[0]) if weight is None else weight.astype(np.float64)
        (s, p, ww), size = aggregate((score.astype(np.float64), positive.astype(bool), w),
                                     np.ones(score.shape[0], dtype=np.int64))
        return cls(s, p, ww, size, weight is not None)

    def merge(self, other: ScoreCells) -> ScoreCells:
        (s, p, w), size = aggregate(
            tuple(np.concatenate([getattr(self, k), getattr(other, k)])
                  for k in ("score", "positive", "weight")),
            np.concatenate([self.size, other.size]))
        return ScoreCells(s, p, w, size, self.weighted or other.weighted)

    @property
    def keys(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.score, self.positive, self.weight

    @property
    def unweighted(self) -> bool:
        """Rows without weights: the analytic intervals apply."""
        return not self.weighted

    def groups(self) -> tuple[np.ndarray, np.ndarray]:
        """(C,) index of each cell's distinct score, and the first cell of each score."""
        new = np.ones(self.score.shape[0], dtype=bool)
        new[1:] = self.score[1:] != self.score[:-1]
        return np.cumsum(new) - 1, np.flatnonzero(new)

    def per_score(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(b, S) positive and negative weight per distinct score of (b, C) counts."""
        _, starts = self.groups()
        weighted = counts * self.weight
        pos = np.add.reduceat(np.where(self.positive, weighted, 0.0), starts, axis=-1)
        neg = np.add.reduceat(np.where(self.positive, 0.0, weighted), starts, axis=-1)
        return pos, neg

    def state(self) -> ScoreState:
        """The map of distinct scores (positive label 1: the positives are given)."""
        pos, neg = self.per_score(self.size.astype(np.float64))
        _, starts = self.groups()
        if np.all(self.weight == 1.0):
            pos, neg = pos.astype(np.int64), neg.astype(np.int64)
        return ScoreState(self.score[starts], pos, neg)

    @property
    def n_rows(self) -> int:
        return int(self.size.sum())


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
            out[r] = _pr_auc_from_groups(pos[r][drawn], neg[r][drawn])
    return out


#: metric -> (value from the score map, batched value from per-score weights)
KERNELS: dict[str, tuple[Callable[..., float], Callable[..., np.ndarray]]] = {
    "roc_auc_score": (lambda st: _auc_from_groups(st.pos, st.neg, None), _auc),
    "average_precision_score": (lambda st: _ap_from_groups(st.pos, st.neg),
                                _average_precision),
    "pr_auc_score": (lambda st: _pr_auc_from_groups(st.pos, st.neg), _pr_auc),
}


class ScoresFamily(Family):
    """Ranking metrics of binary scores (see the module docstring)."""

    key = "scores"

    def supports(self, metric: Metric) -> bool:
        # max_fpr of None or 1 is the full AUC
        kw = {k for k, v in metric.kwargs.items()
              if not (k == "max_fpr" and v in (None, 1, 1.0))}
        return metric.name in KERNELS and kw <= {"pos_label"}

    def takes(self, y_true: np.ndarray, other: np.ndarray, metric: Metric) -> bool:
        return np.ndim(y_true) == 1 and np.ndim(other) == 1 and \
            np.unique(y_true).shape[0] == 2

    def paired(self, y: np.ndarray, a: np.ndarray, b: np.ndarray, w: np.ndarray | None,
               metric: Metric) -> PairedAUC | MulticlassAUC | None:
        if w is not None or metric.name != "roc_auc_score":
            return None
        if a.ndim == 1 and not metric.kwargs:
            return PairedAUC(y, a, b)
        if a.ndim == 2 and y.ndim == 1 and batched_multiclass(metric.kwargs):
            return MulticlassAUC(y, a, b, metric.kwargs)
        return None

    def rank_swappable(self, metric: Metric, pred: np.ndarray, y: np.ndarray) -> bool:
        # a multiclass AUC validates its (n, K) scores as probability rows
        return not (metric.name == "roc_auc_score" and pred.ndim == 2 and y.ndim == 1)

    def build(self, batch: Batch, metric: Metric) -> ScoreCells:
        return ScoreCells.from_rows(np.asarray(batch.y_true == batch.positive),
                                    batch.of(metric), batch.weight)

    def n_rows(self, state: ScoreCells) -> int:
        return state.n_rows

    def value(self, state: ScoreCells, metric: Metric) -> float:
        return float(KERNELS[metric.name][0](state.state()))

    def _cells(self, state: ScoreCells, metric: Metric) -> Cells:
        kernel = KERNELS[metric.name][1]

        def evaluate(counts: np.ndarray) -> np.ndarray:
            return kernel(*state.per_score(counts))

        jack = (lambda: _auc_jackknife(state)) if metric.name == "roc_auc_score" else None
        n_scores = int(state.groups()[1].shape[0])
        return Cells(state.size, state.positive.astype(np.int64), evaluate, jack,
                     8 * 6 * max(n_scores, state.size.shape[0]))

    def cells(self, state: ScoreCells, metric: Metric) -> Cells:
        return self._cells(state, metric)

    def pool(self, states: Sequence[ScoreCells], metric: Metric
             ) -> tuple[Cells, list[Cells], list[np.ndarray]]:
        pooled = states[0]
        for s in states[1:]:
            pooled = pooled.merge(s)
        return (self._cells(pooled, metric), [self._cells(s, metric) for s in states],
                [place(s.keys, pooled.keys) for s in states])

    # ---------------------------------------------------------------- analytic

    def methods(self, state: ScoreCells, metric: Metric) -> tuple[str, ...]:
        m, n = _classes(state)
        if not state.unweighted or m == 0 or n == 0:
            return ()
        # influence-logit of ROC AUC is the multiclass macro AUC's, not a binary one's
        named = (metric.spec.default_interval, *metric.spec.asymptotic)
        return tuple(x for x in named if x is not None and x not in BOOTSTRAP_METHODS
                     and not (x == "influence-logit" and metric.name == "roc_auc_score"))

    def why_not(self, state: ScoreCells, metric: Metric, method: str) -> str:
        if not state.unweighted:
            return f"method={method!r} does not take sample_weight"
        if method == "influence-logit" and metric.name == "roc_auc_score":
            return (f"method={method!r} of roc_auc_score is the interval of a multiclass "
                    "one-vs-rest macro AUC; binary scores take 'delong' or 'delong-logit' "
                    "(or 'newcombe')")
        return f"method={method!r} needs both classes in y_true"

    def auto_size(self, state: ScoreCells, metric: Metric) -> int:
        return int(min(_classes(state)))

    def analytic(self, state: ScoreCells, metric: Metric, method: str, level: float
                 ) -> tuple[float, float, float]:
        if method not in self.methods(state, metric):
            raise ValueError(f"method={method!r} does not apply to {metric.name} here")
        st = state.state()
        estimate = self.value(state, metric)
        if method == "newcombe":
            return _asymptotic.newcombe_interval(estimate, *_classes(state), level)
        if method == "delong":
            terms = _analytic.delong_terms_grouped(st.pos, st.neg)
            return _analytic.delong_interval(terms[0], terms[1] + terms[2], level)
        if method == "delong-logit":
            return _asymptotic.delong_logit(*_analytic.delong_terms_grouped(st.pos, st.neg),
                                            level)
        if method == "logit":
            return _asymptotic.boyd_logit(estimate, float(st.pos.sum()), level)
        _, variance = _asymptotic.ap_influence(st.pos, st.neg)
        spread = estimate * (1.0 - estimate)
        se = float(np.sqrt(variance))
        low, high = _asymptotic.logit_interval(
            estimate, se / spread if spread > 0 else float("nan"), level)
        return low, high, se


def _classes(state: ScoreCells) -> tuple[float, float]:
    m = float(state.size[state.positive].sum())
    return m, float(state.size.sum()) - m


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
    wins = float(np.dot(pos, np.cumsum(neg) - 0.5 * neg))
    w = state.weight
    out = np.full(state.size.shape[0], np.nan)
    p = state.positive
    with np.errstate(divide="ignore", invalid="ignore"):
        out[p] = (wins - w[p] * neg_below[p]) / ((m - w[p]) * n)
        out[~p] = (wins - w[~p] * pos_above[~p]) / (m * (n - w[~p]))
    out[~np.isfinite(out)] = np.nan
    return out


FAMILY = ScoresFamily()
