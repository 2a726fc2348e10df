"""Bootstrap of a count metric of multilabel-indicator data, by per-sample patterns.

A sample of indicator arrays (n, L) enters every count metric only through its
*pattern*: the cell of each label, ``2 t + p`` (0 TN, 1 FP, 2 FN, 3 TP). Rows are
grouped by (pattern, weight); a resample of the n rows draws
``Multinomial(n, size / n)`` rows from the G groups, and from those draw counts
``c`` follow, as sums over the groups,

- the per-label matrices ``[[TN, FP], [FN, TP]]`` (what micro, macro, weighted and
  per-label averages read): ``M[l, cell] = sum_g c_g w_g [pattern_g[l] = cell]``;
- the weight of each distinct per-sample (TP, FP, FN) triple (what
  ``average="samples"``, subset accuracy and the zero-one loss read).

A replicate costs O(G L) instead of O(n L), and it equals the metric on the
resampled rows themselves (the tests feed both the same draw counts). Labels of a
row move together, so correlations between labels are kept. The BCa jackknife is
exact in closed form: leaving out one row of group g subtracts that row's cells.
The saving depends on how many distinct patterns the data hold (G <= min(n, 4^L)):
few for sparse labels and good predictions, close to n for noisy dense ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse

from dartboard._kernels import _bootstrap
from dartboard._rng import RandomStateLike, check_random_state
from dartboard.exceptions import InputError
from dartboard.metrics import _count_formulas as cf
from dartboard.metrics._batched import batch_multilabel_metric
from dartboard.metrics._registry import MetricSpec

__all__ = ["IndicatorPatterns", "multilabel_count_interval"]

_BOOTSTRAP = ("percentile", "basic", "bca")


@dataclass(frozen=True)
class IndicatorPatterns:
    """Rows of indicator arrays grouped by (per-label cells, weight).

    Groups are ordered by their per-sample triple, so each triple's groups are
    contiguous.

    Attributes
    ----------
    cells : ndarray of shape (G, L)
        The cell ``2 t + p`` of each label in the group's rows (int8).
    weight, size : ndarray of shape (G,)
        The weight of each row of the group and the number of rows.
    triple : ndarray of shape (G,)
        Index of the group's per-sample (TP, FP, FN) into ``triples`` (non-decreasing).
    triples : ndarray of shape (T, 3)
    row_group : ndarray of shape (n,)
        The group of each row (the tests use it to turn row draws into counts).
    indicator : sparse matrix of shape (G, 3 L)
        A 1 at (g, 3 l + cell - 1) for each FP, FN or TP cell of group g.
    """

    cells: np.ndarray
    weight: np.ndarray
    size: np.ndarray
    triple: np.ndarray
    triples: np.ndarray
    row_group: np.ndarray
    indicator: sparse.csr_matrix

    @property
    def n_labels(self) -> int:
        return self.cells.shape[1]

    @classmethod
    def build(cls, t: np.ndarray, p: np.ndarray, w: np.ndarray | None) -> IndicatorPatterns:
        """Group the rows of two boolean indicator arrays (n, L), with optional weights."""
        n = t.shape[0]
        cells = _cells(t, p)
        _, first, pattern = np.unique(_pattern_keys(cells), return_index=True,
                                      return_inverse=True)
        pattern = pattern.ravel()
        if w is None:
            size = np.bincount(pattern)
            row_group, rep, weight = pattern, first, np.ones(size.shape[0])
        else:
            w = np.asarray(w, dtype=np.float64)
            order = np.lexsort((w, pattern))
            g, ww = pattern[order], w[order]
            new = np.ones(n, dtype=bool)
            new[1:] = (g[1:] != g[:-1]) | (ww[1:] != ww[:-1])
            starts = np.flatnonzero(new)
            size = np.diff(np.append(starts, n))
            row_group = np.empty(n, dtype=np.intp)
            row_group[order] = np.cumsum(new) - 1
            rep, weight = order[starts], ww[starts]
        group_cells = cells[rep]
        per_sample = np.stack([np.count_nonzero(group_cells == c, axis=1) for c in (3, 1, 2)],
                              axis=1)
        triples, triple = np.unique(per_sample, axis=0, return_inverse=True)
        triple = triple.ravel()
        by_triple = np.argsort(triple, kind="stable")
        rank = np.empty_like(by_triple)
        rank[by_triple] = np.arange(by_triple.shape[0])
        group_cells = group_cells[by_triple]
        return cls(group_cells, weight[by_triple], size[by_triple].astype(np.int64),
                   triple[by_triple], triples, rank[row_group], _indicator(group_cells))

    def states(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-label matrices (b, L, 2, 2) and triple weights (b, T) of (b, G) draws."""
        weighted = counts * self.weight
        starts = np.flatnonzero(np.diff(self.triple, prepend=-1))
        return _label_sums(weighted, self.indicator), np.add.reduceat(weighted, starts, axis=1)

    def leave_one_out(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """The states without one row of each group ``start:stop``, in closed form."""
        full_m, full_t = self.states(self.size[None, :].astype(np.float64))
        rows = np.arange(start, stop)
        one = np.zeros((rows.shape[0], self.n_labels, 4))
        np.put_along_axis(one, self.cells[rows, :, None].astype(np.intp), 1.0, axis=2)
        matrices = full_m - (one * self.weight[rows, None, None]).reshape(
            -1, self.n_labels, 2, 2)
        triple_weights = np.repeat(full_t, rows.shape[0], axis=0)
        triple_weights[np.arange(rows.shape[0]), self.triple[rows]] -= self.weight[rows]
        return matrices, triple_weights


def _label_sums(weighted: np.ndarray, indicator: sparse.csr_matrix) -> np.ndarray:
    """``M[b, l, cell] = sum_g weighted[b, g] [cells[g, l] = cell]`` as (b, L, 2, 2).

    FP, FN and TP are a product with a sparse (G, 3 L) indicator (most cells of
    sparse labels are TN, so its nonzeros are few); TN is the rest of the total.
    """
    n_labels = indicator.shape[1] // 3
    out = np.empty((weighted.shape[0], n_labels, 4))
    out[:, :, 1:] = (weighted @ indicator).reshape(-1, n_labels, 3)
    out[:, :, 0] = weighted.sum(axis=1)[:, None] - out[:, :, 1:].sum(axis=2)
    return out.reshape(-1, n_labels, 2, 2)


def _indicator(cells: np.ndarray) -> sparse.csr_matrix:
    """(G, 3 L) with a 1 at (g, 3 l + cell - 1) for each non-TN cell of group g."""
    g, label = np.nonzero(cells)
    return sparse.csr_matrix((np.ones(g.shape[0]), (g, 3 * label + cells[g, label] - 1)),
                             shape=(cells.shape[0], 3 * cells.shape[1]))


def _cells(t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Per (row, label) cell ``2 t + p`` as int8: 0 TN, 1 FP, 2 FN, 3 TP."""
    cells = t.astype(np.int8)
    cells <<= 1
    cells += p
    return cells


def _pattern_keys(cells: np.ndarray) -> np.ndarray:
    """One sortable key per row: two bits per label in an integer up to 31 labels,
    else the packed bits as raw bytes."""
    n, n_labels = cells.shape
    if n_labels <= 31:
        key = np.zeros(n, dtype=np.uint64)
        for label in range(n_labels):
            key |= cells[:, label].astype(np.uint64) << np.uint64(2 * label)
        return key
    bits = np.concatenate([cells >> 1, cells & 1], axis=1).astype(bool)
    packed = np.ascontiguousarray(np.packbits(bits, axis=1))
    return packed.view(np.dtype((np.void, packed.shape[1]))).ravel()


def multilabel_count_interval(spec: MetricSpec, t: np.ndarray, p: np.ndarray,
                              w: np.ndarray | None, estimate: float, method: str,
                              level: float, n_resamples: int, stratified: bool,
                              random_state: RandomStateLike, kwargs: dict[str, Any]) -> Any:
    """Bootstrap interval of count metric ``spec`` of indicator arrays (module docstring)."""
    from dartboard._kernels._result import Interval

    name = spec.name
    if method == "auto":
        method = "bca"
    if method not in _BOOTSTRAP:
        raise InputError(f"method={method!r} does not apply to {name} of multilabel-indicator "
                         "data (analytic intervals are for one binary proportion); use "
                         "'percentile', 'basic' or 'bca'")
    if stratified:
        raise InputError("stratified=True resamples within each class of y_true and needs "
                         "class labels there: y_true is a multilabel indicator array")
    kw = dict(kwargs)
    if spec.average and kw.get("average") == "samples" and kw.get("labels") is not None:
        # labels select the columns before the per-sample counts (as the metric does)
        idx = cf.indicator_labels(kw.pop("labels"), t.shape[1])
        t, p = t[:, idx], p[:, idx]
    patterns = IndicatorPatterns.build(t, p, w)
    triples = patterns.triples

    def evaluate(counts: np.ndarray) -> np.ndarray:
        return _metric(name, triples, kw, *patterns.states(counts))

    g, labels = patterns.size.shape[0], patterns.n_labels

    def jackknife() -> np.ndarray:
        # leave-one-out states of a batch of groups: (batch, L, 2, 2) and (batch, T)
        batch = max(1, _bootstrap.BATCH_BYTES // (8 * (4 * labels + triples.shape[0])))
        return np.concatenate([
            _metric(name, triples, kw, *patterns.leave_one_out(s, min(s + batch, g)))
            for s in range(0, g, batch)])

    reps = _bootstrap.multinomial_replicates(
        evaluate, patterns.size, np.zeros(g, dtype=np.int64),
        8 * (2 * g + 8 * labels + 2 * triples.shape[0]), n_resamples, False,
        check_random_state(random_state), method == "bca", jackknife,
        draw=_bootstrap.split_multinomial)
    bounds = spec.bounds if kw.get("normalize", True) else None
    low, high, se, used, dist = _bootstrap.bootstrap_interval(estimate, reps, level, method,
                                                              bounds)
    return Interval(estimate, low, high, level, used, se, dist, n_resamples, name)


def _metric(name: str, triples: np.ndarray, kw: dict[str, Any], matrices: np.ndarray,
            triple_weights: np.ndarray) -> np.ndarray:
    return batch_multilabel_metric(name, matrices, triples, triple_weights, kw,
                                   undefined="nan")
