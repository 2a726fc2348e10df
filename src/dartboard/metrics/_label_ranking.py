"""Ranking of labels per sample: top-k accuracy, DCG/NDCG and the multilabel ranking metrics.

Each sample i has scores ``s_i[c]`` over L labels (or classes) and the metrics ask
where its relevant labels land in the order of its scores:

* top-k accuracy: the true class is among the k highest scores. Ties follow
  scikit-learn (a stable ascending sort, reversed): among equal scores the later
  class ranks first, so the true class c is a hit when
  ``#{j: s_j > s_c} + #{j > c: s_j = s_c} < k``. That count is one comparison
  per cell, with no sort;
* DCG ``sum_r gain_(r) / log_b(r + 1)`` over ranks r (up to k), tied scores
  sharing the average gain of their group (``ignore_ties=False``); NDCG divides
  by the DCG of the ideal order (0 when no label is relevant);
* label ranking average precision: per relevant label j, the fraction of labels
  scored at least ``s_j`` that are relevant, averaged (1 when all or no labels
  are relevant);
* label ranking loss: the fraction of (relevant, irrelevant) pairs ordered
  wrongly (``s_irrelevant >= s_relevant``);
* coverage error: how far down the ranking one must go to cover all relevant
  labels (``#{j: s_j >= min over relevant of s}``; 0 without relevant labels).

Everything is vectorised over samples in row blocks of bounded memory (the pair
counts are O(L^2) per sample, fine for the tens of labels these metrics are for).
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from dartboard._labels import encode_labels
from dartboard._numeric import vdot
from dartboard._validation import (
    InvalidParameterError,
    as_float_array,
    check_bool,
    check_consistent_length,
    check_labels_argument,
    check_sample_weight,
    describe,
    label_array,
)
from dartboard.exceptions import InputError
from dartboard.metrics._classification_losses import _average, _dense, _target_kind
from dartboard.metrics._confusion import UndefinedMetricWarning
from dartboard.metrics._docs import documented
from dartboard.metrics._probabilistic import _encode_with_labels

__all__ = ["coverage_error", "dcg_score", "label_ranking_average_precision_score",
           "label_ranking_loss", "ndcg_score", "top_k_accuracy_score"]

_CELLS = 1 << 21  # cells of an (rows, L, L) or (rows, K) block held at once


#: cells of a transposed row block of top-k accuracy (8 bytes each: 512 KB stays in cache)
_TOP_K_BLOCK = 65536


def _row_blocks(n: int, per_row: int) -> list[tuple[int, int]]:
    """(start, stop) of row blocks holding about _CELLS cells each."""
    step = max(1, _CELLS // max(per_row, 1))
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)]


# ------------------------------------------------------------------ top-k accuracy

@overload
def _check_k(k: Any, name: str = ..., allow_none: Literal[False] = ...) -> int: ...


@overload
def _check_k(k: Any, name: str = ..., *, allow_none: bool) -> int | None: ...


def _check_k(k: Any, name: str = "k", allow_none: bool = False) -> int | None:
    if k is None and allow_none:
        return None
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1:
        raise InvalidParameterError(f"{name} must be an integer >= 1"
                                    f"{' or None' if allow_none else ''}; got {describe(k)}")
    return int(k)


def _top_k_classes(t: np.ndarray, labels: Any, s: np.ndarray
                   ) -> tuple[np.ndarray, int, np.ndarray]:
    """Codes of y_true among the classes (of ``labels`` if given), their number, and
    the scores (a binary problem's (n, 1) scores as 1-D), checked against each other
    as scikit-learn does."""
    labels = check_labels_argument(labels)
    enc = encode_labels(("y_true", t)) if labels is None else None
    n_given = enc.n_classes if enc is not None else labels.shape[0]
    if n_given <= 2 and s.ndim == 2:  # binary: one score per sample
        if s.shape[1] != 1:
            raise InputError(f"y_true is binary while y_score is 2-D with {s.shape[1]} "
                             "classes. If y_true does not contain all the labels, labels "
                             "must be provided.")
        s = s[:, 0]
    if n_given > 2 and s.ndim == 1:
        raise InputError("y_score must be of shape (n_samples, n_classes) as there are "
                         f"{n_given} classes; got shape {s.shape}")
    n_columns = s.shape[1] if s.ndim == 2 else 2
    if enc is not None:
        if enc.n_classes != n_columns:
            raise InputError(f"Number of classes in y_true ({enc.n_classes}) not equal to "
                             f"the number of classes in y_score ({n_columns}). You can "
                             "provide a list of all known classes by assigning it to the "
                             "labels parameter.")
        return enc.codes[0], enc.n_classes, s
    if not np.array_equal(np.sort(labels), labels):
        raise InputError("Parameter 'labels' must be ordered.")
    if labels.shape[0] != n_columns:
        raise InputError(f"Number of given labels ({labels.shape[0]}) not equal to the "
                         f"number of classes in y_score ({n_columns}).")
    classes, codes = _encode_with_labels(t, labels)
    return codes, classes.shape[0], s


def _top_k_hits(s: np.ndarray, codes: np.ndarray, k: int) -> np.ndarray:
    """Whether fewer than k classes rank ahead of the true one (module docstring).

    Row blocks that stay in cache are copied transposed, so each class's scores
    are contiguous; one comparison of the block with the true class's scores and
    one sum over the classes count the classes scored above the true one
    (``gt``) and at least as high (``ge``, itself included), in reused buffers.
    Only rows with a tie (``ge - gt > 1``, rare for real-valued scores) are
    recounted with scikit-learn's order among equal scores.
    """
    n, n_classes = s.shape
    hits = np.empty(n, dtype=bool)
    block = max(1024, _TOP_K_BLOCK // n_classes)
    transposed = np.empty((n_classes, block))
    above = np.empty((n_classes, block), dtype=bool)
    own, index = np.empty(block), np.empty(block, dtype=np.intp)
    base = np.arange(block, dtype=np.intp) * n_classes
    gt, ge = np.empty(block, dtype=np.int32), np.empty(block, dtype=np.int32)
    flat = np.ascontiguousarray(s).ravel()
    for lo in range(0, n, block):
        hi = min(n, lo + block)
        m = hi - lo
        t, a, o, g, e = transposed[:, :m], above[:, :m], own[:m], gt[:m], ge[:m]
        np.copyto(t, s[lo:hi].T)
        np.add(base[:m], codes[lo:hi], out=index[:m])
        index[:m] += lo * n_classes
        np.take(flat, index[:m], out=o)
        np.greater(t, o, out=a)
        np.add.reduce(a, axis=0, dtype=np.int32, out=g)
        np.greater_equal(t, o, out=a)
        np.add.reduce(a, axis=0, dtype=np.int32, out=e)
        hit = hits[lo:hi]
        np.less(g, k, out=hit)
        e -= g
        tied = np.flatnonzero(e > 1)
        if tied.shape[0]:
            c = codes[lo:hi][tied]
            ahead = g[tied]
            for j in range(n_classes):  # a tie ranks ahead when its class comes later
                ahead += (t[j, tied] == o[tied]) & (c < j)
            hit[tied] = ahead < k
    return hits


@documented(
    returns="float\n    The fraction (or number) of samples whose true label is among the "
            "k best scored.",
    k=("int",
       "How many of the best-scored classes count."),
    labels=("array-like of shape (n_classes,)",
            "The classes, in the order of the columns of ``y_score``; None: the sorted "
            "labels of ``y_true``."),
)
def top_k_accuracy_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int = 2, normalize: bool = True,
                         sample_weight: ArrayLike | None = None, labels: ArrayLike | None = None) -> float:
    """Fraction of samples whose true class is among the k highest scores.

    ``y_score`` is (n_samples, n_classes) in the order of the sorted classes (or of
    ``labels``); for two classes it may be 1-D (the greater class's score), where
    k=1 thresholds it at 0.5 for scores in [0, 1] and at 0 otherwise. Ties follow
    scikit-learn (module docstring). Drop-in for
    ``sklearn.metrics.top_k_accuracy_score``.

    Examples
    --------
    >>> top_k_accuracy_score([0, 1, 2, 2], [[0.5, 0.2, 0.2], [0.3, 0.4, 0.2],
    ...                                     [0.2, 0.4, 0.3], [0.7, 0.2, 0.1]], k=2)
    0.75
    """
    k = _check_k(k)
    normalize = check_bool(normalize, "normalize")
    t = label_array(y_true, name="y_true")
    s = as_float_array(y_score, name="y_score", ndim=(1, 2))
    n = check_consistent_length(("y_true", t), ("y_score", s))
    w = check_sample_weight(sample_weight, n, scale_free=normalize)
    codes, n_classes, s = _top_k_classes(t, labels, s)
    if k >= n_classes:
        warnings.warn(f"'k' ({k}) greater than or equal to 'n_classes' ({n_classes}) will "
                      "result in a perfect score and is therefore meaningless.",
                      UndefinedMetricWarning, stacklevel=2)
    if s.ndim == 1:
        if k == 1:
            threshold = 0.5 if s.min() >= 0 and s.max() <= 1 else 0.0
            hits = (s > threshold) == (codes == 1)
        else:
            hits = np.ones(n, dtype=bool)
    else:
        hits = _top_k_hits(s, codes, k)
    if normalize:
        return _average(hits, w)
    return float(np.count_nonzero(hits)) if w is None else float(vdot(hits, w))


# ------------------------------------------------------------------ DCG and NDCG

def _numbers(x: Any, name: str) -> np.ndarray:
    """A 1-D or 2-D float array; text or other non-numbers are a ``ValueError`` here, as
    scikit-learn raises for these metrics (labels as strings are not relevances), so
    ``except ValueError`` keeps working."""
    arr = _dense(x, name)
    try:
        return as_float_array(arr, name=name, ndim=(1, 2))
    except TypeError as error:
        raise InputError(str(error)) from None


def _relevance_iv(y_true: Any, y_score: Any, sample_weight: Any, name: str
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    t, s = _numbers(y_true, "y_true"), _numbers(y_score, "y_score")
    n = check_consistent_length(("y_true", t), ("y_score", s))
    w = check_sample_weight(sample_weight, n, scale_free=True)
    if t.ndim != 2:
        raise InputError(f"{name} needs y_true of shape (n_samples, n_labels): one row of "
                         f"relevance per sample; got shape {t.shape}")
    if s.shape != t.shape:
        raise InputError(f"y_true and y_score have different shapes: {t.shape} and "
                         f"{s.shape}")
    return t, s, w


def _discount(n_labels: int, k: int | None, log_base: float) -> np.ndarray:
    discount = 1 / (np.log(np.arange(n_labels) + 2) / np.log(log_base))
    if k is not None:
        discount[k:] = 0
    return discount


def _dcg(t: np.ndarray, s: np.ndarray, discount: np.ndarray, ignore_ties: bool
         ) -> np.ndarray:
    """Per-sample DCG; with ties, each tie group shares its mean gain."""
    n, n_labels = t.shape
    if ignore_ties:
        ranking = np.argsort(s)[:, ::-1]
        return np.take_along_axis(t, ranking, axis=1) @ discount
    order = np.argsort(-s, axis=1, kind="stable")
    ranked_s = np.take_along_axis(s, order, axis=1)
    ranked_t = np.take_along_axis(t, order, axis=1)
    starts = np.ones((n, n_labels), dtype=np.int64)
    starts[:, 1:] = ranked_s[:, 1:] != ranked_s[:, :-1]
    group = np.cumsum(starts, axis=1) - 1 + (np.arange(n) * n_labels)[:, None]
    group = group.ravel()
    size = n * n_labels
    gain = np.bincount(group, ranked_t.ravel(), minlength=size)
    count = np.bincount(group, minlength=size)
    disc = np.bincount(group, np.broadcast_to(discount, (n, n_labels)).ravel(),
                       minlength=size)
    used = count > 0
    per_group = np.zeros(size)
    per_group[used] = gain[used] / count[used] * disc[used]
    return per_group.reshape(n, n_labels).sum(axis=1)


@documented(
    returns="float\n    Mean discounted cumulative gain over the samples.",
    k=("int",
       "Only the k highest scores count; None: all."),
    log_base=("float",
              "Base of the logarithm of the discount."),
    ignore_ties=("bool",
                 "Assume no ties in ``y_score`` (faster)."),
)
def dcg_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None, log_base: float = 2,
              sample_weight: ArrayLike | None = None, ignore_ties: bool = False) -> float:
    """Discounted cumulative gain, averaged over samples (module docstring).

    Drop-in for ``sklearn.metrics.dcg_score``.

    Examples
    --------
    >>> round(dcg_score([[10, 0, 0, 1, 5]], [[.1, .2, .3, 4, 70]]), 6)
    9.499458
    """
    k = _check_k(k, allow_none=True)
    if isinstance(log_base, bool) or not isinstance(log_base, numbers.Real) \
            or not log_base > 0 or log_base == 1:
        raise InvalidParameterError(f"log_base must be a positive number other than 1; got "
                                    f"{describe(log_base)}")
    ignore_ties = check_bool(ignore_ties, "ignore_ties")
    t, s, w = _relevance_iv(y_true, y_score, sample_weight, "dcg_score")
    return _average(_dcg(t, s, _discount(t.shape[1], k, log_base), ignore_ties), w)


@documented(
    returns="float\n    Mean normalized discounted cumulative gain over the samples, in "
            "[0, 1].",
    k=("int",
       "Only the k highest scores count; None: all."),
    ignore_ties=("bool",
                 "Assume no ties in ``y_score`` (faster)."),
)
def ndcg_score(y_true: ArrayLike, y_score: ArrayLike, *, k: int | None = None, sample_weight: ArrayLike | None = None,
               ignore_ties: bool = False) -> float:
    """Normalised DCG in [0, 1]: DCG over the DCG of the ideal order, averaged.

    ``y_true`` holds non-negative relevances. A sample with no relevant label
    scores 0. Drop-in for ``sklearn.metrics.ndcg_score``.

    Examples
    --------
    >>> round(ndcg_score([[10, 0, 0, 1, 5]], [[.1, .2, .3, 4, 70]]), 6)
    0.695694
    """
    k = _check_k(k, allow_none=True)
    ignore_ties = check_bool(ignore_ties, "ignore_ties")
    t, s, w = _relevance_iv(y_true, y_score, sample_weight, "ndcg_score")
    if t.min() < 0:
        raise InputError("ndcg_score should not be used on negative y_true values.")
    if t.shape[1] <= 1:
        raise InputError("Computing NDCG is only meaningful when there is more than 1 "
                         f"document. Got {t.shape[1]} instead.")
    discount = _discount(t.shape[1], k, 2)
    gain = _dcg(t, s, discount, ignore_ties)
    ideal = _dcg(t, t, discount, True)
    relevant = ideal != 0
    gain[~relevant] = 0
    gain[relevant] /= ideal[relevant]
    return _average(gain, w)


# ------------------------------------------------------------------ multilabel rankings

def _multilabel_iv(y_true: Any, y_score: Any, sample_weight: Any, name: str
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Boolean indicator (n, L), scores (n, L) and weights."""
    t, s = _numbers(y_true, "y_true"), _numbers(y_score, "y_score")
    n = check_consistent_length(("y_true", t), ("y_score", s))
    w = check_sample_weight(sample_weight, n, scale_free=True)
    if t.ndim != 2 or (t.shape[1] > 1 and _target_kind(t) != "multilabel-indicator"):
        raise InputError(f"{name} needs y_true as a multilabel indicator (a 2-D array of "
                         f"0/1); got an array of shape {t.shape} and dtype {t.dtype}")
    if t.shape != s.shape:
        raise InputError(f"y_true and y_score have different shape: {t.shape} and {s.shape}")
    return t != 0, s, w


def _pairs(s: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """ge[i, j, m] = s_i[m] >= s_i[j] for the rows of a block."""
    block = s[lo:hi]
    return block[:, None, :] >= block[:, :, None]


@documented(
    returns="float\n    Label ranking average precision, in (0, 1].",
)
def label_ranking_average_precision_score(y_true: ArrayLike, y_score: ArrayLike, *,
                                          sample_weight: ArrayLike | None = None) -> float:
    """Label ranking average precision (LRAP), in (0, 1] (module docstring).

    Drop-in for ``sklearn.metrics.label_ranking_average_precision_score``.

    Examples
    --------
    >>> round(label_ranking_average_precision_score([[1, 0, 0], [0, 0, 1]],
    ...                                             [[0.75, 0.5, 1], [1, 0.2, 0.1]]), 6)
    0.416667
    """
    t, s, w = _multilabel_iv(y_true, y_score, sample_weight,
                             "label_ranking_average_precision_score")
    n, n_labels = t.shape
    out = np.ones(n)
    n_relevant = t.sum(axis=1)
    for lo, hi in _row_blocks(n, n_labels * n_labels):
        ge = _pairs(s, lo, hi)
        rank = ge.sum(axis=2)
        relevant_above = (ge & t[lo:hi, None, :]).sum(axis=2)
        ratio = np.where(t[lo:hi], relevant_above / rank, 0.0).sum(axis=1)
        counted = (n_relevant[lo:hi] > 0) & (n_relevant[lo:hi] < n_labels)
        out[lo:hi][counted] = ratio[counted] / n_relevant[lo:hi][counted]
    return _average(out, w)


@documented(
    returns="float\n    Mean fraction of wrongly ordered (true, false) label pairs.",
)
def label_ranking_loss(y_true: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike | None = None) -> float:
    """Fraction of (relevant, irrelevant) label pairs ranked wrongly, averaged.

    A pair counts as wrong when the irrelevant label scores at least as high as the
    relevant one; samples with all or no labels relevant count 0. Drop-in for
    ``sklearn.metrics.label_ranking_loss``.

    Examples
    --------
    >>> label_ranking_loss([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    0.75
    """
    t, s, w = _multilabel_iv(y_true, y_score, sample_weight, "label_ranking_loss")
    n, n_labels = t.shape
    loss = np.zeros(n)
    n_relevant = t.sum(axis=1)
    for lo, hi in _row_blocks(n, n_labels * n_labels):
        ge = _pairs(s, lo, hi)  # ge[i, j, m]: label m scores at least label j
        wrong = ge & t[lo:hi, :, None] & ~t[lo:hi, None, :]
        loss[lo:hi] = wrong.sum(axis=(1, 2))
    pairs = (n_labels - n_relevant) * n_relevant
    ranked = pairs > 0
    loss[ranked] /= pairs[ranked]
    loss[~ranked] = 0.0
    return _average(loss, w)


@documented(
    returns="float\n    Mean number of top-ranked labels needed to cover all true labels.",
)
def coverage_error(y_true: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike | None = None) -> float:
    """Mean number of top-scored labels needed to cover all relevant ones.

    Ties count against the model (all labels tied with the lowest-scored relevant
    one are included); a sample without relevant labels counts 0. Drop-in for
    ``sklearn.metrics.coverage_error``.

    Examples
    --------
    >>> coverage_error([[1, 0, 0], [0, 1, 1]], [[1, 0, 0], [0, 1, 1]])
    1.5
    """
    t, s, w = _multilabel_iv(y_true, y_score, sample_weight, "coverage_error")
    lowest = np.where(t, s, np.inf).min(axis=1)
    coverage = np.count_nonzero(s >= lowest[:, None], axis=1).astype(np.float64)
    return _average(coverage, w)
