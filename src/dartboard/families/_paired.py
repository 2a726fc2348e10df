"""Paired replicates: two models on the same rows.

What :func:`dartboard.compare_models` and :func:`dartboard.compare_k_models` draw for
a metric of a family (:meth:`dartboard.families._base.Family.paired`): the
sample-swap permutation null of the difference and its paired bootstrap, at the
cost of the family's cells, not of the rows.

- counts (:class:`PairedCounts`): the rows reduced to (true, pred_a, pred_b) types;
  a swap moves only rows where the models disagree, so a permutation replicate
  draws how many of each disagreeing type swap, Binomial(count, 1/2), and a
  bootstrap replicate the type counts, a multinomial: O(types) each.
- binary ROC AUC (:class:`PairedAUC`) and the multiclass one-vs-rest or one-vs-one
  AUC (:class:`MulticlassAUC`): each model's scores are replaced by their own
  midranks once (a monotone transform of one model's scores changes nothing, and
  the two models share one scale), and a replicate's AUC is a counting pass over
  the ranks (:func:`batch_auc`), no sort. The clustered permutations, where a swap of
  each model's own ranks is not an exchange of the models, code the scores by their
  ranks among all the models' scores instead (:func:`joint_score_codes`): the raw
  scores swapped, counted the same way.
- means of per-sample terms (:class:`PairedMeans`): a swap flips the sign of a
  row's loss difference, so the null is the sign-flip permutation of the
  differences (:func:`sign_flip_null`) and the bootstrap resamples them.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
from scipy import stats

from dartboard._labels import encode_labels, positive_index
from dartboard.exceptions import InputError
from dartboard.metrics._batched import batch_count_metric

__all__ = ["MulticlassAUC", "PairedAUC", "PairedCounts", "PairedMeans", "batch_auc",
           "batched_multiclass", "batches", "binary_truth", "joint_score_codes",
           "sign_flip_null", "within_model_ranks"]

# Cells (replicates x samples or x types) handled at once, so memory stays bounded.
_BATCH_CELLS = 1 << 22


# ---------------------------------------------------------------- counts

class PairedCounts:
    """The test set reduced to counts of (true, pred_a, pred_b) types."""

    how = "type-reduced sample-swap permutation (Binomial per disagreeing type)"

    def __init__(self, name: str, y: np.ndarray, a: np.ndarray, b: np.ndarray,
                 kwargs: dict[str, Any]) -> None:
        enc = encode_labels(("y_true", y), ("pred_a", a), ("pred_b", b))
        t, pa, pb = enc.codes
        k = enc.n_classes
        codes = (t.astype(np.int64) * k + pa) * k + pb
        if k ** 3 <= max(4096, 4 * codes.shape[0]):
            counts = np.bincount(codes, minlength=k ** 3)
            types = np.flatnonzero(counts)
            counts = counts[types]
        else:  # many classes: only the types that occur
            types, counts = np.unique(codes, return_counts=True)
        self._set_types(name, kwargs, enc.classes, types, counts)

    @classmethod
    def from_types(cls, name: str, classes: np.ndarray, types: np.ndarray,
                   counts: np.ndarray, kwargs: dict[str, Any]) -> PairedCounts:
        """A sampler of already counted type codes ``(true * k + pred_a) * k + pred_b``
        (k = len(classes)); k models compared pair by pair count their rows once."""
        self = cls.__new__(cls)
        self._set_types(name, kwargs, np.asarray(classes), np.asarray(types),
                        np.asarray(counts))
        return self

    def _set_types(self, name: str, kwargs: dict[str, Any], classes: np.ndarray,
                   types: np.ndarray, counts: np.ndarray) -> None:
        k = classes.shape[0]
        self.name, self.kwargs, self.classes, self.k = name, kwargs, classes, k
        self.counts = counts
        true, rest = np.divmod(types, k * k)
        pred_a, pred_b = np.divmod(rest, k)
        # confusion cell of each type for model a and for model b
        self.cell_a = true * k + pred_a
        self.cell_b = true * k + pred_b
        self.moving = pred_a != pred_b
        # replicates per batch, so that batch * (types + cells) stays bounded
        self.rows = max(1, _BATCH_CELLS // (types.shape[0] + k * k))

    def _matrices(self, type_counts: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """Confusion matrices (rows, k, k) from per-type counts (rows, types)."""
        rows = type_counts.shape[0]
        kk = self.k * self.k
        flat = (np.arange(rows)[:, None] * kk + cells[None, :]).ravel()
        out = np.bincount(flat, weights=type_counts.ravel(), minlength=rows * kk)
        return out.reshape(rows, self.k, self.k)

    def _difference(self, ma: np.ndarray, mb: np.ndarray) -> np.ndarray:
        return (batch_count_metric(self.name, self.classes, ma, self.kwargs)
                - batch_count_metric(self.name, self.classes, mb, self.kwargs))

    def permutation(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        out = np.empty(n_resamples)
        moving = self.moving
        for start in range(0, n_resamples, self.rows):
            rows = min(self.rows, n_resamples - start)
            swapped = rng.binomial(self.counts[moving], 0.5,
                                   size=(rows, int(moving.sum()))).astype(np.float64)
            kept = np.tile(self.counts.astype(np.float64), (rows, 1))
            kept[:, moving] -= swapped
            # a swapped sample of type (t, a, b) counts in cell (t, b) for model a
            # and in cell (t, a) for model b
            ma = (self._matrices(kept, self.cell_a)
                  + self._matrices(swapped, self.cell_b[moving]))
            mb = (self._matrices(kept, self.cell_b)
                  + self._matrices(swapped, self.cell_a[moving]))
            out[start:start + rows] = self._difference(ma, mb)
        return out

    def bootstrap(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        out = np.empty(n_resamples)
        total = int(self.counts.sum())
        freq = self.counts / total
        for start in range(0, n_resamples, self.rows):
            rows = min(self.rows, n_resamples - start)
            draws = rng.multinomial(total, freq, size=rows).astype(np.float64)
            out[start:start + rows] = self._difference(self._matrices(draws, self.cell_a),
                                                       self._matrices(draws, self.cell_b))
        return out


# ---------------------------------------------------------------- ROC AUC

def binary_truth(y: np.ndarray) -> np.ndarray:
    """Positives of a binary ``y_true``: the greater label, as roc_auc_score reads scores."""
    enc = encode_labels(("y_true", y))
    if enc.n_classes != 2:
        raise InputError(f"roc_auc_score in compare_models needs binary y_true; got "
                         f"{enc.n_classes} classes")
    return enc.codes[0] == positive_index(enc.classes, infer="greater")


def within_model_ranks(x: np.ndarray, axis: int | None = None) -> np.ndarray:
    """Midranks of one model's scores (1..n, ties averaged), over all entries by default.

    A monotone increasing transform of the scores leaves them unchanged, and both
    models' ranks share one scale, so swapping them mixes no scales."""
    return stats.rankdata(x, axis=axis).reshape(x.shape)


def score_codes(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Integer codes of each model's own midranks (twice the midrank: ties give halves),
    computed once, before any replicate."""
    n = a.shape[0]
    return ((2.0 * within_model_ranks(a)).astype(np.int64),
            (2.0 * within_model_ranks(b)).astype(np.int64), 2 * n + 1)


def joint_score_codes(*scores: np.ndarray) -> tuple[list[np.ndarray], int]:
    """Integer codes of every model's scores ranked together: twice the midrank of each
    score among all the models' scores (ties give halves), and the number of codes.

    One increasing map shared by all the models keeps each model's AUC, so a replicate
    that exchanges codes between models is a replicate that exchanges their raw scores:
    the clustered permutations, where a swap of each model's own ranks is not exact."""
    n = scores[0].shape[0]
    codes = (2.0 * stats.rankdata(np.concatenate(scores))).astype(np.int64)
    return [codes[i * n:(i + 1) * n] for i in range(len(scores))], 2 * n * len(scores) + 1


def batch_auc(yt: np.ndarray, codes: np.ndarray, n_codes: int,
               use: np.ndarray | None = None) -> np.ndarray:
    """Binary AUC of each row of ``codes`` (rows x n integer score ranks); nan if undefined.

    Counting, not sorting: per row the positives and negatives at each score rank
    (one bincount), then ``sum_c pos_c (neg_below_c + neg_c / 2) / (m n0)``, which
    gives ties exactly half a pair. ``use`` (broadcast to the rows) keeps only the
    samples it marks, e.g. the two classes of a one-vs-one AUC.
    """
    rows = codes.shape[0]
    yt = np.broadcast_to(yt, codes.shape)
    flat = (np.arange(rows)[:, None] * n_codes + codes).ravel()
    keep = None if use is None else np.broadcast_to(use, codes.shape).ravel().astype(np.float64)
    total = np.bincount(flat, weights=keep, minlength=rows * n_codes).reshape(rows, n_codes)
    hits = yt.ravel().astype(np.float64)
    pos = np.bincount(flat, weights=hits if keep is None else hits * keep,
                      minlength=rows * n_codes).reshape(rows, n_codes)
    neg = total - pos
    neg_below = np.cumsum(neg, axis=1) - neg
    m = pos.sum(axis=1)
    n0 = neg.sum(axis=1)
    ok = (m > 0) & (n0 > 0)
    out = np.full(rows, np.nan)
    pairs = (pos * (neg_below + 0.5 * neg)).sum(axis=1)
    out[ok] = pairs[ok] / (m[ok] * n0[ok])
    return out


def batches(n_resamples: int, width: int):
    rows = max(1, _BATCH_CELLS // width)
    for start in range(0, n_resamples, rows):
        yield start, min(rows, n_resamples - start)


class PairedAUC:
    """Binary ROC AUC of two models' scores on the same rows, by within-model ranks."""

    how = "batched sample-swap permutation of within-model score ranks"

    def __init__(self, y: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        self.yt, self.a, self.b = binary_truth(y), a, b

    def permutation(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        yt, a, b = self.yt, self.a, self.b
        ca, cb, n_codes = score_codes(a, b)
        out = np.empty(n_resamples)
        for start, size in batches(n_resamples, max(a.shape[0], n_codes)):
            swap = rng.random((size, a.shape[0])) < 0.5
            out[start:start + size] = (batch_auc(yt, np.where(swap, cb, ca), n_codes)
                                       - batch_auc(yt, np.where(swap, ca, cb), n_codes))
        return out

    def bootstrap(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        yt, a, b = self.yt, self.a, self.b
        ca, cb, n_codes = score_codes(a, b)
        n = a.shape[0]
        out = np.empty(n_resamples)
        for start, size in batches(n_resamples, max(n, n_codes)):
            idx = rng.integers(0, n, size=(size, n))
            out[start:start + size] = (batch_auc(yt[idx], ca[idx], n_codes)
                                       - batch_auc(yt[idx], cb[idx], n_codes))
        return out


def batched_multiclass(kwargs: dict[str, Any]) -> bool:
    """Whether these ``roc_auc_score`` keywords are a column-wise multiclass average."""
    return (set(kwargs) <= {"multi_class", "average"}
            and kwargs.get("multi_class") in ("ovr", "ovo")
            and kwargs.get("average", "macro") in ("macro", "weighted"))


class MulticlassAUC:
    """The two models' per-column score ranks and the binary AUC tasks over them."""

    how = "batched sample-swap permutation of within-model score ranks, per class"

    def __init__(self, y: np.ndarray, a: np.ndarray, b: np.ndarray,
                 kwargs: dict[str, Any]) -> None:
        enc = encode_labels(("y_true", y))
        self.y, self.k, self.n = enc.codes[0], enc.n_classes, y.shape[0]
        self.weighted = kwargs.get("average", "macro") == "weighted"
        self.ovo = kwargs["multi_class"] == "ovo"
        # twice the midrank of each score within its own column: integer codes
        self.ca = (2.0 * within_model_ranks(a, axis=0)).astype(np.int64)
        self.cb = (2.0 * within_model_ranks(b, axis=0)).astype(np.int64)
        self.n_codes = 2 * self.n + 1
        # (column, positive class, the other class of a one-vs-one pair or -1)
        if self.ovo:
            self.tasks = [t for j, k in combinations(range(self.k), 2)
                          for t in ((j, j, k), (k, k, j))]
        else:
            self.tasks = [(c, c, -1) for c in range(self.k)]

    def _weights(self, y: np.ndarray) -> np.ndarray:
        """Task weights per row of ``y`` (rows x n class codes): rows x tasks, summing to 1."""
        if not self.weighted:
            return np.full((y.shape[0], len(self.tasks)), 1.0 / len(self.tasks))
        support = np.stack([(y == c).sum(axis=1) for c in range(self.k)], axis=1)
        w = np.stack([support[:, pos] + (support[:, other] if other >= 0 else 0)
                      for _, pos, other in self.tasks], axis=1).astype(np.float64)
        return w / w.sum(axis=1, keepdims=True)

    def _difference(self, y: np.ndarray, ca: np.ndarray, cb: np.ndarray) -> np.ndarray:
        """Multiclass AUC of a minus b per row (rows x n codes per column)."""
        out = np.zeros(ca.shape[0])
        weights = self._weights(y)
        for t, (col, pos, other) in enumerate(self.tasks):
            positive = y == pos
            use = None if other < 0 else positive | (y == other)
            out += weights[:, t] * (batch_auc(positive, ca[..., col], self.n_codes, use)
                                    - batch_auc(positive, cb[..., col], self.n_codes, use))
        return out

    def permutation(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        out = np.empty(n_resamples)
        y = self.y[None, :]
        for start, size in batches(n_resamples, self.k * self.n_codes):
            swap = (rng.random((size, self.n)) < 0.5)[:, :, None]
            out[start:start + size] = self._difference(
                y, np.where(swap, self.cb, self.ca), np.where(swap, self.ca, self.cb))
        return out

    def bootstrap(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        out = np.empty(n_resamples)
        for start, size in batches(n_resamples, self.k * self.n_codes):
            idx = rng.integers(0, self.n, size=(size, self.n))
            out[start:start + size] = self._difference(self.y[idx], self.ca[idx],
                                                       self.cb[idx])
        return out


# ---------------------------------------------------------------- means

def sign_flip_null(d: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    n = d.shape[0]
    out = np.empty(n_resamples, dtype=np.float64)
    dsum = d.sum()
    rows = max(1, (1 << 22) // n)  # about 4M flip cells per batch
    for start in range(0, n_resamples, rows):
        size = min(rows, n_resamples - start)
        flips = rng.random((size, n)) < 0.5
        out[start:start + size] = (dsum - 2.0 * (flips @ d)) / n
    return out


class PairedMeans:
    """Means of per-sample terms of two models: the per-row differences ``d``."""

    how = "sign-flip permutation of per-sample loss differences"

    def __init__(self, d: np.ndarray, w: np.ndarray | None) -> None:
        self.d, self.w = d, w

    def permutation(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        d, w = self.d, self.w
        if w is not None:  # sum(w s d) / sum(w) = mean(s d') with d' = w d / mean(w)
            d = d * (w / w.mean())
        return sign_flip_null(d, n_resamples, rng)

    def bootstrap(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        d, w = self.d, self.w
        n = d.shape[0]
        out = np.empty(n_resamples)
        for start, size in batches(n_resamples, n):
            idx = rng.integers(0, n, size=(size, n))
            if w is None:
                out[start:start + size] = d[idx].mean(axis=1)
            else:
                wi = w[idx].astype(np.float64)
                total = wi.sum(axis=1)
                with np.errstate(invalid="ignore", divide="ignore"):
                    out[start:start + size] = (wi * d[idx]).sum(axis=1) / total
        return out
