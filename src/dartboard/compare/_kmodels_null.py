"""The joint null distributions of k models on one test set (see ``._kmodels``).

Count metrics without sample weights: the test set is counted once as (true,
pred_1, ..., pred_k) types (:class:`JointTypes`). Holm reuses the type-reduced
sampler of :func:`compare_models` on each pair's (true, pred_a, pred_b) counts.
For max-T, a random permutation of a
sample's k predictions deals them to models 1, ..., k in turn, without replacement;
model j's prediction depends only on the sample's true class and the labels not yet
dealt. Samples in the same (true class, labels left) state are exchangeable, so a
replicate draws, model by model, how many samples of each state receive each label
(a binomial or multinomial with the labels left as probabilities). A replicate
costs O(k x states): 2 (k + 1) states for a binary task, whatever n is.

Binary ROC AUC codes every model's scores once in their union; a replicate deals
each sample's k scores to the models and counts (as :func:`compare_models`): each
model's within-model ranks without clusters, the raw scores with clusters (a
permutation of whole clusters exchanges raw scores exactly; see
:mod:`dartboard.compare._clustered`). Any other metric is called on the dealt
predictions, O(n k) per replicate.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from dartboard._labels import encode_labels
from dartboard._progress import track
from dartboard.families._paired import batch_auc
from dartboard.metrics._batched import batch_count_metric

__all__ = ["JointTypes", "auc_kway_null", "dealt_auc", "dealt_count_null",
           "generic_kway_null", "stepdown_maxt"]

_BATCH_CELLS = 1 << 22
# relative tolerance under which two statistics count as tied (as count_extreme)
_TIE_RTOL = 100 * np.finfo(np.float64).eps


class JointTypes:
    """The test set as counts of (true, pred_1, ..., pred_k) types (one counting pass)."""

    def __init__(self, y: np.ndarray, preds: list[np.ndarray], names: list[str]) -> None:
        enc = encode_labels(("y_true", y), *((f"predictions[{c!r}]", p)
                                             for c, p in zip(names, preds)))
        kc, width = enc.n_classes, len(preds) + 1
        if kc ** width < 2 ** 62:
            code = np.zeros(enc.codes[0].shape[0], dtype=np.int64)
            for c in enc.codes:
                code = code * kc + c
            if kc ** width <= max(1 << 16, 4 * code.shape[0]):
                counts = np.bincount(code, minlength=kc ** width)
                types = np.flatnonzero(counts)
                counts = counts[types]
            else:
                types, counts = np.unique(code, return_counts=True)
            digits = np.empty((types.shape[0], width), dtype=np.int64)
            for j in range(width - 1, -1, -1):
                types, digits[:, j] = np.divmod(types, kc)
        else:  # too many classes and models for one integer code
            digits, counts = np.unique(np.stack(enc.codes, axis=1), axis=0, return_counts=True)
        self.classes, self.n_classes, self.k = enc.classes, kc, width - 1
        self.true, self.pred, self.counts = digits[:, 0], digits[:, 1:], counts.astype(np.int64)

    def confusion(self) -> np.ndarray:
        """Each model's confusion matrix, shape (k, K, K)."""
        kc = self.n_classes
        cells = (np.arange(self.k)[None, :] * kc * kc + self.true[:, None] * kc + self.pred)
        out = np.bincount(cells.ravel(), weights=np.repeat(self.counts, self.k).astype(float),
                          minlength=self.k * kc * kc)
        return out.reshape(self.k, kc, kc)

    def pair(self, i: int, j: int) -> tuple[np.ndarray, np.ndarray]:
        """(true, pred_i, pred_j) type codes and counts, as :class:`~dartboard.families._paired.PairedCounts` takes."""
        kc = self.n_classes
        codes = (self.true * kc + self.pred[:, i]) * kc + self.pred[:, j]
        types, inverse = np.unique(codes, return_inverse=True)
        return types, np.bincount(inverse, weights=self.counts).astype(np.int64)

    def states(self) -> dict[tuple[int, tuple[int, ...]], int]:
        """Counts of (true class, how many models predict each class) states."""
        comp = np.stack([(self.pred == c).sum(axis=1) for c in range(self.n_classes)], axis=1)
        keys, inverse = np.unique(np.column_stack([self.true, comp]), axis=0,
                                  return_inverse=True)
        totals = np.bincount(inverse.ravel(), weights=self.counts)
        return {(int(r[0]), tuple(int(v) for v in r[1:])): int(c)
                for r, c in zip(keys, totals)}


def stepdown_maxt(observed: np.ndarray, null: np.ndarray) -> np.ndarray:
    """Westfall-Young step-down adjusted p-values of |statistics| ``observed`` (P,)
    against the joint null ``null`` (R, P); nan replicates count as not extreme."""
    order = np.argsort(-observed, kind="stable")
    # largest |null statistic| over the hypotheses from rank r on, for every r
    tail_max = np.fmax.accumulate(null[:, order[::-1]], axis=1)[:, ::-1]
    reach = observed[order] * (1.0 - _TIE_RTOL)
    counts = np.count_nonzero(tail_max >= reach, axis=0)
    p = np.maximum.accumulate((counts + 1) / (null.shape[0] + 1))
    out = np.empty_like(p)
    out[order] = np.minimum(p, 1.0)
    return out


def dealt_count_null(joint: JointTypes, name: str, kwargs: dict[str, Any],
                      n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Metric of each model (R, k) under k-way permutations, dealt state by state."""
    kc, k = joint.n_classes, joint.k
    start_states = joint.states()
    out = np.empty((n_resamples, k))
    rows = max(1, _BATCH_CELLS // (k * kc * kc + len(start_states)))
    for start in track(range(0, n_resamples, rows), f"{k}-way permutations (batches)"):
        size = min(rows, n_resamples - start)
        cm = np.zeros((size, k, kc * kc))
        level = {s: np.full(size, c, dtype=np.int64) for s, c in start_states.items()}
        for j in range(k):
            left = k - j
            dealt: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
            for (t, comp), c in level.items():
                labels = [c_ for c_, m in enumerate(comp) if m]
                if len(labels) == 1:
                    draws = [c]
                elif len(labels) == 2:
                    first = rng.binomial(c, comp[labels[0]] / left)
                    draws = [first, c - first]
                else:
                    draws = list(rng.multinomial(c, [comp[c_] / left for c_ in labels]).T)
                for label, d in zip(labels, draws):
                    cm[:, j, t * kc + label] += d
                    rest = (t, comp[:label] + (comp[label] - 1,) + comp[label + 1:])
                    dealt[rest] = dealt[rest] + d if rest in dealt else d
            level = dealt
        out[start:start + size] = batch_count_metric(
            name, joint.classes, cm.reshape(size * k, kc, kc), kwargs).reshape(size, k)
    return out


def auc_kway_null(yt: np.ndarray, preds: list[np.ndarray], n_resamples: int,
                   rng: np.random.Generator, codes: np.ndarray | None = None
                   ) -> np.ndarray:
    """Binary AUC of each model (R, k) under k-way permutations: the scores are coded
    once in their union, then each replicate only counts. With ``codes``, the cluster
    of each row, one permutation per cluster deals all its rows (the draws of
    :func:`generic_kway_null`); the scores are then the raw ones, so a replicate
    exchanges raw scores exactly."""
    uniq, inverse = np.unique(np.concatenate(preds), return_inverse=True)
    n, k = preds[0].shape[0], len(preds)
    scores = inverse.reshape(k, n).T
    units = n if codes is None else int(codes.max()) + 1
    out = np.empty((n_resamples, k))
    batch = max(1, _BATCH_CELLS // (n * k + uniq.shape[0]))
    for start in track(range(0, n_resamples, batch), f"{k}-way permutations (batches)"):
        size = min(batch, n_resamples - start)
        order = rng.permuted(np.broadcast_to(np.arange(k), (size, units, k)), axis=2)
        out[start:start + size] = dealt_auc(yt, scores, uniq.shape[0],
                                            order if codes is None else order[:, codes])
    return out


def dealt_auc(yt: np.ndarray, scores: np.ndarray, n_codes: int,
              order: np.ndarray) -> np.ndarray:
    """AUC of each model (R, k) when replicate r gives model j the score
    ``scores[i, order[r, i, j]]`` of each row i (``scores``: n x k integer codes)."""
    dealt = scores[np.arange(scores.shape[0])[None, :, None], order]
    return np.stack([batch_auc(yt, dealt[:, :, j], n_codes)
                     for j in range(scores.shape[1])], axis=1)


def generic_kway_null(metric: Callable[..., Any], y: np.ndarray, preds: list[np.ndarray],
                       w: np.ndarray | None, kwargs: dict[str, Any], n_resamples: int,
                       rng: np.random.Generator, codes: np.ndarray | None = None
                       ) -> np.ndarray:
    """Metric of each model (R, k) when each sample's k predictions are permuted (with
    ``codes``, the cluster of each row: one permutation per cluster, for all its rows)."""
    stacked = np.stack(preds, axis=1)  # (n, k, ...)
    n, k = stacked.shape[:2]
    rows = np.arange(n)[:, None]
    units = n if codes is None else int(codes.max()) + 1
    weight_kw = {} if w is None else {"sample_weight": w}
    out = np.empty((n_resamples, k))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for r in track(range(n_resamples), f"{k}-way permutations"):
            order = rng.permuted(np.broadcast_to(np.arange(k), (units, k)), axis=1)
            dealt = stacked[rows, order if codes is None else order[codes]]
            for j in range(k):
                try:
                    out[r, j] = float(metric(y, dealt[:, j], **weight_kw, **kwargs))
                except ValueError:  # e.g. undefined on this replicate
                    out[r, j] = np.nan
    return out
