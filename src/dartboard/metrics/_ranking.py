"""The score family: ROC and precision-recall curves, ROC AUC and average precision.

Everything here is computed from one representation of binary scored data: the
sorted distinct scores with the total positive and negative weight at each
(a :class:`ScoreState`). It is built by sorting the scores once: the positives'
and the negatives' scores are sorted separately (``np.sort``, vectorised, several
times faster than ``np.argsort``; with weights an argsort), each run is grouped
into ties, and the two maps are united by a linear merge (:func:`_union`, the same
routine that merges states). The curves are cumulative sums of these tie-group
totals in decreasing score order, so sample order inside a tie is irrelevant and
every result is exact under ties:

* ROC AUC (trapezoid rule) ``= P(s+ > s-) + 0.5 P(s+ = s-)`` (weighted);
* average precision is scikit-learn's step sum ``sum_k (R_k - R_{k-1}) P_k``;
* :func:`pr_auc_score` is the trapezoidal area under the same PR curve.

The metric functions and :meth:`ScoreState.compute` call the same routines on the
same grouped data, so there is one implementation. Conventions follow
scikit-learn 1.9: samples of zero weight are ignored; a ROC AUC with a single
class in ``y_true`` is ``nan`` with an :class:`UndefinedMetricWarning`; an average
precision without positives is 0.0 with a warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._labels import encode_labels, positive_index, positive_label, same_label
from dartboard._numeric import sum_of, vdot
from dartboard._typing import Average
from dartboard._validation import (
    as_float_array,
    check_bool,
    check_consistent_length,
    check_option,
    check_sample_weight,
    to_numpy,
)
from dartboard.exceptions import InputError
from dartboard.metrics._confusion import UndefinedMetricWarning
from dartboard.metrics._docs import documented
from dartboard.metrics._mergeable import check_same_kind, resolve_metric

__all__ = [
    "ScoreState",
    "average_precision_score",
    "pr_auc_score",
    "precision_recall_curve",
    "roc_auc_score",
    "roc_curve",
]


# ------------------------------------------------------------------ core routines
# Grouped data: ``scores`` ascending and distinct, ``pos``/``neg`` the positive and
# negative weight at each score (int64 counts without weights, float64 with).

def _tie_groups(sorted_scores: np.ndarray, sorted_weights: np.ndarray | None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of a sorted array and the count (or weight) of each."""
    n = sorted_scores.shape[0]
    if n == 0:
        return np.empty(0), np.zeros(0, np.int64 if sorted_weights is None else np.float64)
    is_last = np.empty(n, dtype=bool)
    np.not_equal(sorted_scores[1:], sorted_scores[:-1], out=is_last[:-1])
    is_last[-1] = True
    ends = np.flatnonzero(is_last)
    if sorted_weights is None:
        return sorted_scores[ends], np.diff(ends, prepend=-1)
    starts = np.concatenate(([0], ends[:-1] + 1))
    return sorted_scores[ends], np.add.reduceat(sorted_weights, starts)


def _union(scores_a: np.ndarray, pos_a: np.ndarray, neg_a: np.ndarray,
           scores_b: np.ndarray, pos_b: np.ndarray, neg_b: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Union of two score maps (each sorted and distinct), summing equal scores.

    The stable sort of the concatenation is a linear merge of two runs (timsort).
    As each map is distinct, a score occurs at most twice in the union, once from
    each map, in adjacent positions: those pairs are added and the second dropped.
    """
    scores = np.concatenate((scores_a, scores_b))
    order = np.argsort(scores, kind="stable")
    v = scores[order]
    pos = np.concatenate((pos_a, pos_b))[order]
    neg = np.concatenate((neg_a, neg_b))[order]
    first_of_pair = np.flatnonzero(v[1:] == v[:-1])
    if first_of_pair.shape[0]:
        second = first_of_pair + 1
        pos[first_of_pair] += pos[second]
        neg[first_of_pair] += neg[second]
        keep = np.ones(v.shape[0], dtype=bool)
        keep[second] = False
        v, pos, neg = v[keep], pos[keep], neg[keep]
    return v.astype(np.float64, copy=False), pos, neg


def group_scores(positive: np.ndarray, score: np.ndarray, weight: np.ndarray | None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct ascending scores with the positive and negative weight at each.

    The scores of the positives and of the negatives are sorted separately
    (without weights by ``np.sort``, several times faster than an argsort), grouped
    into ties, and the two maps are united by :func:`_union`, the routine that
    also merges :class:`ScoreState` objects.
    """
    if weight is not None:
        keep = weight != 0
        if not keep.all():  # zero-weight samples must not create thresholds (sklearn)
            positive, score, weight = positive[keep], score[keep], weight[keep]
    negative = ~positive
    parts = []
    for mask in (positive, negative):
        s = score[mask]
        if weight is None:
            parts.append(_tie_groups(np.sort(s), None))
        else:
            order = np.argsort(s)
            parts.append(_tie_groups(s[order], weight[mask][order].astype(np.float64)))
    (sp, cp), (sn, cn) = parts
    return _union(sp, cp, np.zeros_like(cp), sn, np.zeros_like(cn), cn)


def descending_counts(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative (TP, FP) with the threshold moving down through the distinct scores."""
    if pos.dtype.kind in "iub" and neg.dtype.kind in "iub":  # counts: an integer sum is faster
        return np.cumsum(pos[::-1]).astype(np.float64), np.cumsum(neg[::-1]).astype(np.float64)
    return np.cumsum(pos[::-1], dtype=np.float64), np.cumsum(neg[::-1], dtype=np.float64)


def auc_from_groups(pos: np.ndarray, neg: np.ndarray, max_fpr: float | None = None,
                    below: np.ndarray | None = None) -> float:
    """Trapezoidal ROC AUC; nan (with a warning) without both classes. ``below``: the
    negative weight below each score plus half its own, in floating point, when at
    hand (it is not changed)."""
    n_pos, n_neg = float(pos.sum()), float(neg.sum())
    if n_pos <= 0 or n_neg <= 0:
        warnings.warn("Only one class is present in y_true. ROC AUC score is not "
                      "defined in that case.", UndefinedMetricWarning, stacklevel=4)
        return float("nan")
    if max_fpr is None or max_fpr == 1:
        # each positive scores against the negatives strictly below it, plus half
        # of the negatives tied with it: the trapezoid area, exact under ties
        if below is None:
            below = np.cumsum(neg, dtype=np.float64)
            below -= 0.5 * neg
        return float(vdot(pos, below) / (n_pos * n_neg))
    tps, fps = descending_counts(pos, neg)
    fpr = np.concatenate(([0.0], fps / fps[-1]))
    tpr = np.concatenate(([0.0], tps / tps[-1]))
    stop = int(np.searchsorted(fpr, max_fpr, "right"))
    x_interp = [fpr[stop - 1], fpr[stop]]
    y_interp = [tpr[stop - 1], tpr[stop]]
    tpr = np.append(tpr[:stop], np.interp(max_fpr, x_interp, y_interp))
    fpr = np.append(fpr[:stop], max_fpr)
    partial = float(np.trapezoid(tpr, fpr))
    # McClish correction: 0.5 for a non-discriminant, 1 for a perfect classifier
    min_area = 0.5 * max_fpr ** 2
    return 0.5 * (1 + (partial - min_area) / (max_fpr - min_area))


def _warn_no_positive() -> None:
    warnings.warn("No positive class found in y_true, recall is set to one for all "
                  "thresholds.", UserWarning, stacklevel=5)


#: (precision, tps, fps, total positives) at decreasing thresholds
PRPoints = tuple[np.ndarray, np.ndarray, np.ndarray, float]


def precision_recall_points(pos: np.ndarray, neg: np.ndarray,
                            counts: tuple[np.ndarray, np.ndarray] | None = None) -> PRPoints:
    """(precision, tps, fps, total positives) at decreasing thresholds; ``counts``:
    :func:`descending_counts` of the same counts, when at hand."""
    tps, fps = counts if counts is not None else descending_counts(pos, neg)
    ps = tps + fps
    precision = np.divide(tps, ps, out=np.zeros_like(tps), where=ps != 0)
    return precision, tps, fps, float(tps[-1]) if tps.shape[0] else 0.0


def ap_from_groups(pos: np.ndarray, neg: np.ndarray,
                   points: PRPoints | None = None) -> float:
    """Average precision, sum_k (R_k - R_{k-1}) P_k (scikit-learn's step sum).
    ``points``: :func:`precision_recall_points` of the same counts, when at hand."""
    precision, tps, _, total = points or precision_recall_points(pos, neg)
    if total <= 0:
        _warn_no_positive()
        return 0.0
    return float(max(0.0, vdot(pos[::-1], precision) / total))


def pr_auc_from_groups(pos: np.ndarray, neg: np.ndarray,
                       points: PRPoints | None = None) -> float:
    """Trapezoidal area under the PR curve that starts at (recall 0, precision 1).
    ``points``: :func:`precision_recall_points` of the same counts, when at hand."""
    precision, tps, _, total = points or precision_recall_points(pos, neg)
    if total <= 0:
        _warn_no_positive()
        return 0.0
    return float(max(0.0, _pr_trapezoid(precision, tps, total)))


def _pr_trapezoid(precision: np.ndarray, tps: np.ndarray, total: float) -> float:
    """``np.trapezoid`` of the PR curve from (recall 0, precision 1), bit for bit, a
    piece at a time (:func:`~dartboard._numeric.sum_of`): a stream's millions of
    distinct scores would otherwise form seven arrays of their length."""
    n = precision.shape[0]

    def terms(lo: int, hi: int) -> np.ndarray:
        # recall and precision at the points lo .. hi of the curve with its first point
        x, y = np.empty(hi - lo + 1), np.empty(hi - lo + 1)
        start = lo
        if lo == 0:
            x[0], y[0] = 0.0, 1.0
            start = 1
        np.divide(tps[start - 1:hi], total, out=x[start - lo:])
        y[start - lo:] = precision[start - 1:hi]
        # np.trapezoid's (d * (y[1:] + y[:-1]) / 2.0), term by term
        d = np.subtract(x[1:], x[:-1])
        d *= np.add(y[1:], y[:-1])
        d /= 2.0
        return d

    return sum_of(n, terms)


def roc_from_groups(scores: np.ndarray, pos: np.ndarray, neg: np.ndarray,
                    drop_intermediate: bool,
                    counts: tuple[np.ndarray, np.ndarray] | None = None,
                    thresholds: bool = True
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """ROC curve of per-score counts (scores increasing). ``counts``: their cumulative
    (TP, FP) down the scores, when at hand (:func:`precision_recall_points`);
    ``thresholds=False`` leaves the thresholds out (None), for a figure."""
    drop_intermediate = check_bool(drop_intermediate, "drop_intermediate")
    tps, fps = counts if counts is not None else descending_counts(pos, neg)
    cuts = scores[::-1].astype(np.float64) if thresholds else None
    if drop_intermediate and fps.shape[0] > 2:
        # drop points collinear with their neighbours: they do not change the curve
        keep = np.concatenate(([True], np.logical_or(np.diff(fps, 2), np.diff(tps, 2)),
                               [True]))
        idx = np.flatnonzero(keep)
        fps, tps = fps[idx], tps[idx]
        cuts = None if cuts is None else cuts[idx]
    tps = np.concatenate(([0.0], tps))
    fps = np.concatenate(([0.0], fps))
    cuts = None if cuts is None else np.concatenate(([np.inf], cuts))
    if fps[-1] <= 0:
        warnings.warn("No negative samples in y_true, false positive value should be "
                      "meaningless", UndefinedMetricWarning, stacklevel=4)
        fpr = np.full(fps.shape, np.nan)
    else:
        fpr = fps / fps[-1]
    if tps[-1] <= 0:
        warnings.warn("No positive samples in y_true, true positive value should be "
                      "meaningless", UndefinedMetricWarning, stacklevel=4)
        tpr = np.full(tps.shape, np.nan)
    else:
        tpr = tps / tps[-1]
    return fpr, tpr, cuts


def pr_curve_from_groups(scores: np.ndarray, pos: np.ndarray, neg: np.ndarray,
                         drop_intermediate: bool, points: PRPoints | None = None,
                         thresholds: bool = True
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Precision-recall curve of per-score counts; ``points``: their
    :func:`precision_recall_points`, when at hand; ``thresholds`` as
    :func:`roc_from_groups`."""
    drop_intermediate = check_bool(drop_intermediate, "drop_intermediate")
    precision, tps, fps, _ = points if points is not None \
        else precision_recall_points(pos, neg)
    cuts = scores[::-1] if thresholds else None
    if drop_intermediate and fps.shape[0] > 2:
        # keep only the first and last point of each run of equal recall
        keep = np.concatenate(([True], np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:])),
                               [True]))
        idx = np.flatnonzero(keep)
        precision, tps = precision[idx], tps[idx]
        cuts = None if cuts is None else cuts[idx]
    if tps.shape[0] == 0 or tps[-1] == 0:
        _warn_no_positive()
        recall = np.ones(tps.shape)
    else:
        recall = tps / tps[-1]
    return (np.concatenate((precision[::-1], [1.0])), np.concatenate((recall[::-1], [0.0])),
            None if cuts is None else cuts[::-1].copy())


# ------------------------------------------------------------------ validation

def _positive_weight(w: np.ndarray | None) -> np.ndarray | None:
    # a metric of no weighted sample is meaningless (scikit-learn raises too)
    if w is not None and w.size and not np.any(w):
        raise InputError("sample_weight sums to zero; at least one sample needs a positive "
                         "weight")
    return w


def _scores_iv(y_true: Any, y_score: Any, sample_weight: Any, *, score_ndim: Any = 1,
               positive_weight: bool = True
               ) -> tuple[Any, np.ndarray, np.ndarray | None]:
    """Encoded ``y_true``, float scores and weights, checked for consistency.

    ``positive_weight``: all-zero weights are an error (a state's batch may have them).
    """
    s = as_float_array(y_score, name="y_score", ndim=score_ndim)
    if s.ndim == 2 and s.shape[1] == 1:
        s = s[:, 0]
    t = to_numpy(y_true, name="y_true")
    if t.ndim == 2 and t.shape[1] == 1:
        t = t[:, 0]
    if t.ndim == 2:
        return t, s, None  # multilabel: checked by the caller
    enc = encode_labels(("y_true", t))
    n = check_consistent_length(("y_true", enc.codes[0]), ("y_score", s))
    w = check_sample_weight(sample_weight, n, allow_negative=True, scale_free=True)
    return enc, s, _positive_weight(w) if positive_weight else w


def binary_positive(y_true: ArrayLike, y_score: ArrayLike, pos_label: Any, sample_weight: ArrayLike | None,
                     *, multiclass_ok: bool, positive_weight: bool = True,
                     refuse_absent: bool = False
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, Any]:
    """Positive-sample mask, scores, weights and the positive label (rule "strict";
    ``refuse_absent`` as :func:`~dartboard._labels.positive_index`)."""
    enc, s, w = _scores_iv(y_true, y_score, sample_weight, positive_weight=positive_weight)
    if not hasattr(enc, "classes"):
        raise InputError("y_true must be 1-D (binary labels) here; got a 2-D array")
    if enc.n_classes > 2 and not (multiclass_ok and pos_label is not None):
        raise InputError(f"y_true has {enc.n_classes} classes; this curve is binary. Pass "
                         "pos_label to treat one class as positive and the rest as "
                         "negative")
    label = positive_label(enc.classes, pos_label)
    code = positive_index(enc.classes, label, refuse_absent=refuse_absent)
    return enc.codes[0] == code, s, w, label


# ------------------------------------------------------------------ ScoreState

def _is_empty(x: Any, name: str) -> bool:
    return to_numpy(x, name=name).shape[0] == 0


class ScoreState:
    """Exact, mergeable state of binary scored data: a map score -> (pos, neg) weight.

    Holds the sorted distinct scores with the total weight of positive and of
    negative samples at each. Every ranking metric of a binary problem is a
    function of this map, so two states merge exactly (the union of the maps) and
    ROC AUC, average precision, the PR area and both curves computed from the
    merged state equal one pass over all the data. Memory is proportional to the
    number of distinct scores. Binary problems only: for multiclass AUC keep one
    state per class (one-vs-rest).

    Parameters
    ----------
    scores : array-like of shape (m,), optional
        Distinct scores, strictly increasing.
    pos, neg : array-like of shape (m,), optional
        Positive and negative weight at each score.
    pos_label : label, default=1
        The positive class used by :meth:`from_scores` and :meth:`update`.

    Examples
    --------
    >>> a = ScoreState.from_scores([0, 1, 1], [0.1, 0.4, 0.35])
    >>> b = ScoreState.from_scores([0, 1], [0.8, 0.4])
    >>> a.merge(b).compute("roc_auc_score")
    0.5
    >>> roc_auc_score([0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.4])
    0.5
    """

    __slots__ = ("scores", "pos", "neg", "pos_label")

    def __init__(self, scores: Any = None, pos: Any = None, neg: Any = None, *,
                 pos_label: Any = 1) -> None:
        self.scores = np.asarray([] if scores is None else scores, dtype=np.float64)
        m = self.scores.shape[0]
        self.pos = np.zeros(m, np.int64) if pos is None else np.asarray(pos)
        self.neg = np.zeros(m, np.int64) if neg is None else np.asarray(neg)
        if self.pos.shape != (m,) or self.neg.shape != (m,):
            raise InputError(f"pos and neg must have shape ({m},) to match scores; got "
                             f"{self.pos.shape} and {self.neg.shape}")
        if m > 1 and not np.all(self.scores[1:] > self.scores[:-1]):
            raise InputError("scores must be strictly increasing (sorted and distinct)")
        self.pos_label = pos_label

    @classmethod
    def from_scores(cls, y_true: ArrayLike, y_score: ArrayLike, *, pos_label: Any = None,
                    sample_weight: ArrayLike | None = None) -> ScoreState:
        """Build the state of one batch (``pos_label`` inferred as in :func:`roc_curve`).

        An empty batch gives an empty state (the identity of :meth:`merge`).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True binary labels.
        y_score : array-like of shape (n_samples,)
            Scores, higher for the positive class.
        pos_label : int, float, bool or str, optional
            The positive class; inferred as in :func:`roc_curve` when None.
        sample_weight : array-like of shape (n_samples,), optional
            Sample weights.

        Returns
        -------
        ScoreState
            The state of the batch.
        """
        if _is_empty(y_true, "y_true") and _is_empty(y_score, "y_score"):
            return cls(pos_label=positive_label((), pos_label))
        positive, s, w, label = binary_positive(y_true, y_score, pos_label, sample_weight,
                                                 multiclass_ok=True, positive_weight=False)
        distinct, pos, neg = group_scores(positive, s, w)
        return cls(distinct, pos, neg, pos_label=label)

    def update(self, y_true: ArrayLike, y_score: ArrayLike, sample_weight: ArrayLike | None = None) -> ScoreState:
        """Add a batch in place (with this state's ``pos_label``) and return ``self``.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True binary labels of the batch.
        y_score : array-like of shape (n_samples,)
            Its scores.
        sample_weight : array-like of shape (n_samples,), optional
            Sample weights.

        Returns
        -------
        ScoreState
            ``self``, with the batch added.
        """
        batch = ScoreState.from_scores(y_true, y_score, pos_label=self.pos_label,
                                       sample_weight=sample_weight)
        merged = self.merge(batch)
        self.scores, self.pos, self.neg = merged.scores, merged.pos, merged.neg
        return self

    def merge(self, other: ScoreState) -> ScoreState:
        """Return the state of both batches: the union of the two score maps.

        Parameters
        ----------
        other : ScoreState
            The state of other data (same positive class).

        Returns
        -------
        ScoreState
            The state of both.
        """
        check_same_kind(self, other)
        if not same_label(other.pos_label, self.pos_label):
            raise InputError(f"cannot merge states with different pos_label "
                             f"({self.pos_label!r} and {other.pos_label!r})")
        scores, pos, neg = _union(self.scores, self.pos, self.neg,
                                  other.scores, other.pos, other.neg)
        return ScoreState(scores, pos, neg, pos_label=self.pos_label)

    @property
    def n_positive(self) -> float:
        """Total positive weight."""
        return self.pos.sum()

    @property
    def n_negative(self) -> float:
        """Total negative weight."""
        return self.neg.sum()

    def compute(self, metric: str | Callable[..., Any], **kwargs: Any) -> Any:
        """Compute a ranking metric from the state, e.g. ``compute("roc_auc_score", max_fpr=0.1)``.

        ``metric`` is one of "roc_auc_score" (keyword ``max_fpr``),
        "average_precision_score", "pr_auc_score", "roc_curve" (keyword
        ``drop_intermediate``, default True) and "precision_recall_curve"
        (``drop_intermediate``, default False), or the function itself.

        Parameters
        ----------
        metric : str or callable
            The metric's name or function.
        **kwargs
            Its keywords (``max_fpr``, ``drop_intermediate``).

        Returns
        -------
        float or tuple of ndarray
            The metric, or the curve's arrays.
        """
        return resolve_metric(_FROM_STATE, metric)(self, **kwargs)

    def error_bound(self, metric: str | Callable[..., Any]) -> float:
        """0.0: the map of distinct scores is exact.

        Parameters
        ----------
        metric : str or callable
            The metric.

        Returns
        -------
        float
            Always 0.0.
        """
        resolve_metric(_FROM_STATE, metric)
        return 0.0

    def __repr__(self) -> str:
        return (f"ScoreState(n_scores={self.scores.shape[0]}, n_positive={self.n_positive}, "
                f"n_negative={self.n_negative}, pos_label={self.pos_label!r})")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ScoreState) and same_label(other.pos_label, self.pos_label)
                and np.array_equal(self.scores, other.scores)
                and np.array_equal(self.pos, other.pos)
                and np.array_equal(self.neg, other.neg))

    __hash__ = None  # type: ignore[assignment]  # mutable state


def _check_max_fpr(max_fpr: Any) -> float | None:
    if max_fpr is None:
        return None
    if isinstance(max_fpr, bool) or not isinstance(max_fpr, (int, float, np.number)) \
            or not 0 < max_fpr <= 1:
        raise InputError(f"Expected max_fpr in range (0, 1], got: {max_fpr!r}")
    return float(max_fpr)


_FROM_STATE: dict[str, Callable[..., Any]] = {
    "roc_auc_score": lambda st, max_fpr=None: auc_from_groups(st.pos, st.neg,
                                                               _check_max_fpr(max_fpr)),
    "average_precision_score": lambda st: ap_from_groups(st.pos, st.neg),
    "pr_auc_score": lambda st: pr_auc_from_groups(st.pos, st.neg),
    "roc_curve": lambda st, drop_intermediate=True: roc_from_groups(
        st.scores, st.pos, st.neg, drop_intermediate),
    "precision_recall_curve": lambda st, drop_intermediate=False: pr_curve_from_groups(
        st.scores, st.pos, st.neg, drop_intermediate),
}


# ------------------------------------------------------------------ curves

def roc_curve(y_true: ArrayLike, y_score: ArrayLike, *, pos_label: Any = None, sample_weight: ArrayLike | None = None,
              drop_intermediate: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Receiver operating characteristic: FPR and TPR at every distinct threshold.

    Drop-in for ``sklearn.metrics.roc_curve``. Thresholds are the distinct
    scores in decreasing order, preceded by ``inf`` (the point (0, 0)); a sample
    is predicted positive when its score is ``>=`` the threshold.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels; with other labels than {0, 1} or {-1, 1} pass ``pos_label``
        (then several classes are allowed: the rest is negative).
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive. NaN is an error.
    pos_label : label, optional
        The positive class (default 1 for {0, 1} and {-1, 1} labels).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; zero-weight samples are ignored.
    drop_intermediate : bool, default=True
        Drop thresholds whose point is collinear with its neighbours.

    Returns
    -------
    fpr, tpr, thresholds : ndarray
        Without negatives (positives) fpr (tpr) is nan, with an UndefinedMetricWarning.

    Examples
    --------
    >>> fpr, tpr, thr = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    positive, s, w, _ = binary_positive(y_true, y_score, pos_label, sample_weight,
                                         multiclass_ok=True)
    fpr, tpr, thresholds = roc_from_groups(*group_scores(positive, s, w), drop_intermediate)
    assert thresholds is not None  # asked for
    return fpr, tpr, thresholds


@documented(
    returns="precision, recall : ndarray of shape (n_thresholds + 1,)\n    Precision and "
            "recall at each threshold, ending at (1, 0).\nthresholds : ndarray of shape "
            "(n_thresholds,)\n    The distinct scores, increasing.",
    drop_intermediate=("bool",
                       "Drop thresholds that do not change the curve's shape."),
)
def precision_recall_curve(y_true: ArrayLike, y_score: ArrayLike, *, pos_label: Any = None,
                           sample_weight: ArrayLike | None = None, drop_intermediate: bool = False
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision and recall at every distinct threshold (increasing thresholds).

    Drop-in for ``sklearn.metrics.precision_recall_curve``: the last point is
    (precision 1, recall 0) and has no threshold. Without positives recall is set
    to 1 everywhere, with a warning (as scikit-learn).

    Examples
    --------
    >>> p, r, t = precision_recall_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> p.tolist(), r.tolist(), t.tolist()
    ([0.5, 0.6666666666666666, 0.5, 1.0, 1.0], [1.0, 1.0, 0.5, 0.5, 0.0], [0.1, 0.35, 0.4, 0.8])
    """
    positive, s, w, _ = binary_positive(y_true, y_score, pos_label, sample_weight,
                                         multiclass_ok=True)
    precision, recall, thresholds = pr_curve_from_groups(*group_scores(positive, s, w),
                                                         drop_intermediate)
    assert thresholds is not None  # asked for
    return precision, recall, thresholds


# ------------------------------------------------------------------ averaged scores

_AVERAGES = ("micro", "macro", "weighted", "samples", None)


# average="samples" scores each row over its labels. With few labels per row the
# pairwise (rank) form of the same quantities is cheapest: it is evaluated on
# memory-bounded batches of rows (at most _PAIR_BUDGET label pairs at a time).
_PAIR_BUDGET = 1 << 22


def _row_batches(n: int, k: int) -> range:
    return range(0, n, max(1, _PAIR_BUDGET // (k * k)))


def _rowwise_auc(onehot: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Per-row ROC AUC ``(wins + ties / 2) / (P N)`` over the row's labels."""
    n, k = s.shape
    n_pos = onehot.sum(axis=1)
    n_pairs = (n_pos * (k - n_pos)).astype(np.float64)
    wins = np.empty(n)
    step = _row_batches(n, k).step
    for start in _row_batches(n, k):
        y, x = onehot[start:start + step], s[start:start + step]
        pair = y[:, :, None] & ~y[:, None, :]  # [row, positive j, negative k]
        wins[start:start + step] = (
            (pair & (x[:, :, None] > x[:, None, :])).sum(axis=(1, 2))
            + 0.5 * (pair & (x[:, :, None] == x[:, None, :])).sum(axis=(1, 2)))
    undefined = n_pairs == 0
    if undefined.any():
        warnings.warn("Only one class is present in y_true. ROC AUC score is not defined "
                      f"in that case ({int(undefined.sum())} row(s)).",
                      UndefinedMetricWarning, stacklevel=5)
    return np.divide(wins, n_pairs, out=np.full(n, np.nan), where=~undefined)


def _rowwise_partial_auc(max_fpr: float) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Per-row standardised partial ROC AUC over FPR in [0, max_fpr] (McClish), a row's
    labels being its samples: scikit-learn's binary partial AUC of every row at once.

    Each row is sorted once (descending); the curve's points are the cumulative
    counts at the ends of tie groups (a position inside a group takes its group's
    end, so it repeats a point and adds no area), and the trapezoids are cut at
    ``max_fpr``, the last one by linear interpolation as scikit-learn cuts it.
    """
    def partial(onehot: np.ndarray, s: np.ndarray) -> np.ndarray:
        n, k = s.shape
        order = np.argsort(-s, axis=1, kind="stable")
        ranked = np.take_along_axis(s, order, axis=1)
        tps = np.cumsum(np.take_along_axis(onehot, order, axis=1), axis=1, dtype=np.float64)
        fps = np.arange(1, k + 1, dtype=np.float64) - tps
        last = np.ones((n, k), dtype=bool)
        last[:, :-1] = ranked[:, :-1] != ranked[:, 1:]
        end = np.minimum.accumulate(np.where(last, np.arange(k), k)[:, ::-1], axis=1)[:, ::-1]
        tps, fps = np.take_along_axis(tps, end, axis=1), np.take_along_axis(fps, end, axis=1)
        n_pos, n_neg = tps[:, -1:], fps[:, -1:]
        undefined = (n_pos[:, 0] == 0) | (n_neg[:, 0] == 0)
        if undefined.any():
            warnings.warn("Only one class is present in y_true. ROC AUC score is not "
                          f"defined in that case ({int(undefined.sum())} row(s)).",
                          UndefinedMetricWarning, stacklevel=5)
        with np.errstate(invalid="ignore", divide="ignore"):
            fpr = np.hstack([np.zeros((n, 1)), fps / n_neg])
            tpr = np.hstack([np.zeros((n, 1)), tps / n_pos])
            x0, x1, y0, y1 = fpr[:, :-1], fpr[:, 1:], tpr[:, :-1], tpr[:, 1:]
            right = np.minimum(x1, max_fpr)
            width = np.clip(right - x0, 0.0, None)
            y_right = np.where(x1 > x0, y0 + (y1 - y0) * (right - x0) / (x1 - x0), y1)
            area = (width * (y0 + y_right) / 2).sum(axis=1)
        low = 0.5 * max_fpr ** 2
        out = 0.5 * (1 + (area - low) / (max_fpr - low))
        out[undefined] = np.nan
        return out
    return partial


def _rowwise_ap(onehot: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Per-row average precision ``(1/P) sum_{j positive} precision(s >= s_j)``."""
    n, k = s.shape
    n_pos = onehot.sum(axis=1)
    total = np.empty(n)
    step = _row_batches(n, k).step
    for start in _row_batches(n, k):
        y, x = onehot[start:start + step], s[start:start + step]
        at_least = x[:, None, :] >= x[:, :, None]  # [row, j, k]: s_k >= s_j
        precision = (at_least & y[:, None, :]).sum(axis=2) / at_least.sum(axis=2)
        total[start:start + step] = (precision * y).sum(axis=1)
    if (n_pos == 0).any():
        _warn_no_positive()
    return np.divide(total, n_pos, out=np.zeros(n), where=n_pos > 0)


def _average_columns(binary: Callable[[np.ndarray, np.ndarray, np.ndarray | None], float],
                     onehot: np.ndarray, s: np.ndarray, w: np.ndarray | None,
                     average: str | None,
                     rowwise: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
                     ) -> Any:
    """scikit-learn's ``_average_binary_score`` over the columns of a 0/1 matrix."""
    if average == "samples":
        if rowwise is None:
            raise InputError("average='samples' is not available here (nor with max_fpr); "
                             "use 'micro', 'macro', 'weighted' or None")
        return float(np.average(rowwise(onehot, s), weights=w))
    if average == "micro":
        ww = None if w is None else np.repeat(w, onehot.shape[1])
        return binary(onehot.ravel(), s.ravel(), ww)
    support = None
    if average == "weighted":
        support = (onehot.sum(axis=0) if w is None
                   else (onehot * w[:, None]).sum(axis=0)).astype(np.float64)
        if np.isclose(support.sum(), 0.0):
            return 0
    scores = np.array([binary(onehot[:, c], s[:, c], w) for c in range(onehot.shape[1])])
    if average is None:
        return scores
    if support is not None:
        scores[support == 0] = 0.0
        return float(np.average(scores, weights=support))
    return float(np.mean(scores))


def _multilabel_iv(t: np.ndarray, s: np.ndarray, sample_weight: Any
                   ) -> tuple[np.ndarray, np.ndarray | None]:
    if s.ndim != 2 or s.shape != t.shape:
        raise InputError(f"y_score must have the shape of the 2-D (multilabel) y_true "
                         f"{t.shape}; got {s.shape}")
    if t.dtype.kind not in "biuf" or not np.isin(t, (0, 1)).all():
        raise InputError("a 2-D y_true must be a multilabel indicator matrix of 0 and 1")
    w = _positive_weight(check_sample_weight(sample_weight, t.shape[0],
                                              allow_negative=True, scale_free=True))
    return t.astype(bool), w


def _binary_auc(max_fpr: float | None) -> Callable[..., float]:
    def auc(positive: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> float:
        _, pos, neg = group_scores(positive.astype(bool, copy=False), s, w)
        return auc_from_groups(pos, neg, max_fpr)
    return auc


def _binary_ap(positive: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> float:
    _, pos, neg = group_scores(positive.astype(bool, copy=False), s, w)
    return ap_from_groups(pos, neg)


def _binary_pr_auc(positive: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> float:
    _, pos, neg = group_scores(positive.astype(bool, copy=False), s, w)
    return pr_auc_from_groups(pos, neg)


def _multiclass_auc(enc: Any, s: np.ndarray, w: np.ndarray | None, labels: Any,
                    multi_class: str, average: str | None) -> Any:
    if s.ndim != 2:
        raise InputError("`y_score` needs to be of shape `(n_samples, n_classes)`, since "
                         "`y_true` contains multiple classes. Got "
                         f"`y_score.shape={s.shape}`.")
    if not np.allclose(1, s.sum(axis=1)):
        raise InputError("Target scores need to be probabilities for multiclass roc_auc, "
                         "i.e. they should sum up to 1.0 over classes")
    options: tuple[str | None, ...] = ("macro", "weighted", None)
    if multi_class == "ovr":
        options = ("micro",) + options
    if average not in options:
        raise InputError(f"average must be one of {options} for multiclass problems")
    if average is None and multi_class == "ovo":
        raise NotImplementedError("average=None is not implemented for multi_class='ovo'.")
    classes, codes = enc.classes, enc.codes[0]
    if labels is not None:
        labels = np.asarray(to_numpy(labels, name="labels")).ravel()
        uniq = np.unique(labels)
        if uniq.shape[0] != labels.shape[0]:
            raise InputError("Parameter 'labels' must be unique")
        if not np.array_equal(uniq, labels):
            raise InputError("Parameter 'labels' must be ordered")
        if labels.shape[0] != s.shape[1]:
            raise InputError(f"Number of given labels, {labels.shape[0]}, not equal to the "
                             f"number of columns in 'y_score', {s.shape[1]}")
        if not np.isin(classes, labels).all():
            raise InputError("'y_true' contains labels not in parameter 'labels'")
        codes = np.searchsorted(labels, classes)[codes]
        classes = labels
    elif classes.shape[0] != s.shape[1]:
        raise InputError(f"Number of classes in y_true ({classes.shape[0]}) not equal to "
                         f"the number of columns in 'y_score' ({s.shape[1]})")
    auc = _binary_auc(None)
    if multi_class == "ovo":
        if w is not None:
            raise InputError("sample_weight is not supported for multiclass one-vs-one ROC "
                             "AUC, 'sample_weight' must be None in this case.")
        # Hand & Till (2001): mean over class pairs of the two one-vs-one AUCs
        present = np.flatnonzero(np.bincount(codes, minlength=classes.shape[0]))
        pairs = list(combinations(present.tolist(), 2))
        pair_scores = np.empty(len(pairs))
        prevalence = np.empty(len(pairs))
        for i, (a, b) in enumerate(pairs):
            a_mask, b_mask = codes == a, codes == b
            ab = a_mask | b_mask
            prevalence[i] = ab.mean()
            pair_scores[i] = (auc(a_mask[ab], s[ab, a], None)
                              + auc(b_mask[ab], s[ab, b], None)) / 2
        return float(np.average(pair_scores,
                                weights=prevalence if average == "weighted" else None))
    onehot = np.zeros(s.shape, dtype=bool)
    onehot[np.arange(codes.shape[0]), codes] = True
    return _average_columns(auc, onehot, s, w, average)


@documented(
    average=("{'micro', 'macro', 'samples', 'weighted'} or None",
             "How per-class (or per-label) AUCs are combined; None returns one per class."),
    multi_class=("{'raise', 'ovr', 'ovo'}", "Multiclass scheme: one-vs-rest or one-vs-one; "
                 "'raise' refuses multiclass data."),
    labels=("array-like of shape (n_classes,)",
            "The classes, in the order of the columns of ``y_score``; None: the sorted "
            "labels of ``y_true``."))
def roc_auc_score(y_true: ArrayLike, y_score: ArrayLike, *, average: Average | None = "macro",
                  sample_weight: ArrayLike | None = None, max_fpr: float | None = None,
                  multi_class: str = "raise", labels: ArrayLike | None = None) -> float | np.ndarray:
    """Area under the ROC curve, exact under ties: ``P(s+ > s-) + 0.5 P(s+ = s-)``.

    Drop-in for ``sklearn.metrics.roc_auc_score``. Binary ``y_true`` with 1-D
    scores (the larger label is positive); multiclass with ``y_score`` of shape
    (n_samples, n_classes) summing to 1 per row and ``multi_class="ovr"``
    (one-vs-rest, ``average`` micro/macro/weighted/None) or ``"ovo"`` (Hand & Till
    2001, macro/weighted); a 2-D 0/1 ``y_true`` is multilabel (column-wise, or
    ``average="samples"``: the mean over rows of each row's AUC over its labels).

    Parameters
    ----------
    max_fpr : float in (0, 1], optional
        Standardised partial AUC over FPR in [0, max_fpr] (McClish correction),
        binary and multilabel (``average="samples"`` too: each row's partial AUC).

    Returns
    -------
    float or ndarray of shape (n_classes,)
        One value per class with ``average=None``. With a single class in
        ``y_true`` the AUC is undefined: nan with an UndefinedMetricWarning.

    Examples
    --------
    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc_score([0, 1, 1], [0.5, 0.5, 0.9])  # a tie counts one half
    0.75
    """
    check_option(average, "average", _AVERAGES)
    check_option(multi_class, "multi_class", ("raise", "ovr", "ovo"))
    max_fpr = _check_max_fpr(max_fpr)
    enc, s, w = _scores_iv(y_true, y_score, sample_weight, score_ndim=(1, 2))
    if not hasattr(enc, "classes"):
        onehot, w = _multilabel_iv(enc, s, sample_weight)
        rowwise = _rowwise_auc if max_fpr is None or max_fpr == 1.0 \
            else _rowwise_partial_auc(max_fpr)
        return _average_columns(_binary_auc(max_fpr), onehot, s, w, average, rowwise)
    if enc.n_classes > 2 or (s.ndim == 2 and s.shape[1] > 2):
        if max_fpr is not None and max_fpr != 1.0:
            raise InputError("Partial AUC computation not available in multiclass setting, "
                             f"'max_fpr' must be set to `None`, received `max_fpr={max_fpr}` "
                             "instead")
        if multi_class == "raise":
            raise InputError("multi_class must be in ('ovo', 'ovr')")
        return _multiclass_auc(enc, s, w, labels, multi_class, average)
    if s.ndim == 2:
        raise InputError(f"y_score must be 1-D for binary y_true (the score of the positive "
                         f"class, e.g. y_proba[:, 1]); got shape {s.shape}")
    # sklearn binarizes sorted classes: the greater label is positive, whatever it is
    return _binary_auc(max_fpr)(enc.codes[0] == positive_index(enc.classes, infer="greater"),
                                s, w)


def _precision_score_iv(y_true: Any, y_score: Any, pos_label: Any, sample_weight: Any,
                        average: str | None, binary: Callable[..., float],
                        rowwise: Callable[..., np.ndarray] | None) -> Any:
    check_option(average, "average", _AVERAGES)
    enc, s, w = _scores_iv(y_true, y_score, sample_weight, score_ndim=(1, 2))
    if not hasattr(enc, "classes"):
        if pos_label != 1:
            raise InputError("Parameter pos_label is fixed to 1 for multilabel-indicator "
                             "y_true. Do not set pos_label or set pos_label to 1.")
        onehot, w = _multilabel_iv(enc, s, sample_weight)
        return _average_columns(binary, onehot, s, w, average, rowwise)
    if enc.n_classes > 2:
        if pos_label != 1:
            raise InputError("Parameter pos_label is fixed to 1 for multiclass y_true. Do "
                             "not set pos_label or set pos_label to 1.")
        if s.shape != (enc.codes[0].shape[0], enc.n_classes):
            raise InputError("`y_score` needs to be of shape `(n_samples, n_classes)`, "
                             "since `y_true` contains multiple classes. Got "
                             f"`y_score.shape={s.shape}`.")
        onehot = np.zeros(s.shape, dtype=bool)
        onehot[np.arange(s.shape[0]), enc.codes[0]] = True
        return _average_columns(binary, onehot, s, w, average, rowwise)
    if s.ndim == 2:
        raise InputError(f"y_score must be 1-D for binary y_true; got shape {s.shape}")
    code = positive_index(enc.classes, pos_label, refuse_absent=True)
    return binary(enc.codes[0] == code, s, w)


@documented(
    returns="float or ndarray of shape (n_classes,)\n    Average precision; one per class "
            "with ``average=None``.",
    average=("{'micro', 'macro', 'samples', 'weighted'} or None",
             "How per-class values of multilabel or multiclass data are combined; None "
             "returns one per class."),
)
def average_precision_score(y_true: ArrayLike, y_score: ArrayLike, *, average: Average | None = "macro",
                            pos_label: Any = 1, sample_weight: ArrayLike | None = None) -> float | np.ndarray:
    """Average precision ``AP = sum_k (R_k - R_{k-1}) P_k``, the step-wise PR area.

    Drop-in for ``sklearn.metrics.average_precision_score`` (no interpolation).
    Multiclass ``y_true`` with (n_samples, n_classes) scores is one-vs-rest with
    ``average`` micro/macro/weighted/samples/None; a 2-D 0/1 ``y_true`` is
    multilabel.
    No positive sample gives 0.0 with a warning. See :func:`pr_auc_score` for the
    trapezoidal area of the same curve.

    Examples
    --------
    >>> round(average_precision_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 6)
    0.833333
    """
    return _precision_score_iv(y_true, y_score, pos_label, sample_weight, average,
                               _binary_ap, _rowwise_ap)


@documented(
    returns="float or ndarray of shape (n_classes,)\n    Trapezoidal area under the "
            "precision-recall curve; one per class with\n    ``average=None``.",
    average=("{'micro', 'macro', 'samples', 'weighted'} or None",
             "How per-class values of multilabel or multiclass data are combined; None "
             "returns one per class."),
)
def pr_auc_score(y_true: ArrayLike, y_score: ArrayLike, *, average: Average | None = "macro",
                 pos_label: Any = 1, sample_weight: ArrayLike | None = None) -> float | np.ndarray:
    """Trapezoidal area under the precision-recall curve.

    The curve is :func:`precision_recall_curve`'s, starting at (recall 0,
    precision 1); consecutive points are joined by straight lines, equal to
    ``sklearn.metrics.auc(recall, precision)``. Linear interpolation in PR space is
    optimistic (Davis & Goadrich 2006), which is why :func:`average_precision_score`
    (a step sum) is usually preferred; both are offered. Arguments and averaging as
    :func:`average_precision_score` except ``average="samples"``; no positive
    sample gives 0.0 with a warning.

    Examples
    --------
    >>> round(pr_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 6)
    0.791667
    """
    return _precision_score_iv(y_true, y_score, pos_label, sample_weight, average,
                               _binary_pr_auc, None)
