"""Paired comparison of two models' multiclass ROC AUC (one-vs-rest or one-vs-one).

A multiclass AUC is a weighted mean of binary AUCs ("tasks"), each computed from
one class column of the score matrix over some of the samples:

* one-vs-rest (``multi_class="ovr"``): for each class c, the column c over all
  samples, class c positive; ``average="macro"`` weighs the K tasks equally,
  ``"weighted"`` by the class supports.
* one-vs-one (Hand & Till 2001, ``multi_class="ovo"``): for each pair (j, k), the
  column j over the samples of classes j and k with j positive, and the column k
  with k positive, each half of the pair's score; pairs weigh equally (macro) or
  by their prevalence (weighted).

Each task depends only on the order of the scores within one column, so each
model's columns are replaced by their midranks once, and every swapped or
resampled replicate is a counting pass (``_batch_auc``) per task, no sort. The
test is the sample-swap permutation test on those ranks (a sample's whole row
moves between the models) and the interval is the paired bootstrap of the
macro (or weighted) AUC difference, as for binary AUC. This is
``compare_models(roc_auc_score, y, proba_a, proba_b, multi_class=...)``; no
normal approximation of the covariance between the classes' AUCs is needed.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

from dartboard._labels import encode_labels
from dartboard.compare._models import _batch_auc, _batches, _within_model_ranks

__all__ = ["MulticlassAUC", "batched_multiclass"]


def batched_multiclass(kwargs: dict[str, Any]) -> bool:
    """Whether these ``roc_auc_score`` keywords are a column-wise multiclass average."""
    return (set(kwargs) <= {"multi_class", "average"}
            and kwargs.get("multi_class") in ("ovr", "ovo")
            and kwargs.get("average", "macro") in ("macro", "weighted"))


class MulticlassAUC:
    """The two models' per-column score ranks and the binary AUC tasks over them."""

    def __init__(self, y: np.ndarray, a: np.ndarray, b: np.ndarray,
                 kwargs: dict[str, Any]) -> None:
        enc = encode_labels(("y_true", y))
        self.y, self.k, self.n = enc.codes[0], enc.n_classes, y.shape[0]
        self.weighted = kwargs.get("average", "macro") == "weighted"
        self.ovo = kwargs["multi_class"] == "ovo"
        # twice the midrank of each score within its own column: integer codes
        self.ca = (2.0 * _within_model_ranks(a, axis=0)).astype(np.int64)
        self.cb = (2.0 * _within_model_ranks(b, axis=0)).astype(np.int64)
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
            out += weights[:, t] * (_batch_auc(positive, ca[..., col], self.n_codes, use)
                                    - _batch_auc(positive, cb[..., col], self.n_codes, use))
        return out

    def permutation(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        out = np.empty(n_resamples)
        y = self.y[None, :]
        for start, size in _batches(n_resamples, self.k * self.n_codes):
            swap = (rng.random((size, self.n)) < 0.5)[:, :, None]
            out[start:start + size] = self._difference(
                y, np.where(swap, self.cb, self.ca), np.where(swap, self.ca, self.cb))
        return out

    def bootstrap(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        out = np.empty(n_resamples)
        for start, size in _batches(n_resamples, self.k * self.n_codes):
            idx = rng.integers(0, self.n, size=(size, self.n))
            out[start:start + size] = self._difference(self.y[idx], self.ca[idx],
                                                       self.cb[idx])
        return out
