"""Bounded-memory mergeable states: a binned score state and a quantile sketch.

Both are used where the exact states of :mod:`dartboard.metrics` would grow with
the data: :class:`BinnedScoreState` replaces the exact map of distinct scores when
``exact=False``, and :class:`QuantileSketch` holds the distribution of regression
errors for the median-based metrics. Each reports a guaranteed bound on its own
error, computed from the state itself.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._numeric import vdot
from dartboard.exceptions import InputError
from dartboard.metrics._mergeable import check_same_kind, resolve_metric

__all__ = ["BinnedScoreState", "QuantileSketch"]

# Float rounding in log() can put a value on the wrong side of a bucket edge; the
# edges used for guaranteed bounds are widened by this relative amount to cover it.
_EDGE_SLACK = 1e-9


def _undefined(metric: str, why: str, value: float = float("nan")) -> float:
    from dartboard.metrics import UndefinedMetricWarning

    warnings.warn(f"{metric} is undefined ({why}); returning {value}", UndefinedMetricWarning,
                  stacklevel=3)
    return value


class BinnedScoreState:
    """Positive and negative weight per fixed score bin: ROC AUC and AP with a bound.

    The score range ``[low, high]`` is cut into ``n_bins`` equal bins; scores
    outside the range fall into the first or last bin. Memory is ``8 * n_bins``
    numbers whatever the number of rows, and merging adds the arrays (and takes
    minima and maxima).

    Error bounds. Binning only loses the order of pairs inside one bin.

    * ROC AUC = P(s+ > s-) + P(s+ = s-)/2. Pairs in different bins keep their
      order; a positive-negative pair in the same bin counts 1/2 here but 0, 1/2
      or 1 on the raw scores. Hence ``|AUC_binned - AUC| <= sum_b pos_b neg_b /
      (2 P N)``.
    * Average precision = (1/P) sum over positives of their weight times the
      precision at their threshold. Let ``A``, ``B`` be the positive and negative
      weight above bin ``b``, ``p = pos_b``, ``D = B + neg_b``. On the raw scores
      the j-th positive of the bin (cumulative positive weight ``c_j`` within the
      bin) sees a precision between ``(A + c_j) / (A + c_j + D)`` and
      ``(A + c_j) / (A + c_j + B)``; both are increasing in ``c``, so the bin's
      contribution lies between the integral ``L_b = p - D ln(1 + p / (A + D))``
      and ``U_b = p (A + p) / (A + p + B)``. Binned, it is
      ``C_b = p (A + p) / (A + B + p + neg_b)``. Hence ``|AP_binned - AP| <=
      sum_b max(U_b - C_b, C_b - L_b) / P``.

    Exact ties cost nothing. The state also keeps, per bin, the smallest and
    largest raw score and the positive and negative weight AT each of them, so a
    bin splits into three ordered groups: its minimum value, the values strictly
    inside, its maximum value. The two end groups are exact tie groups (a point
    mass such as probabilities clipped to 0 or 1 loses no order); only the inside
    group counts as a bin in the bounds above (and a bin of a single distinct
    score has none).

    Both bounds are computed from the state (:meth:`error_bound`) and shrink as
    the bins get finer; they are zero when no bin mixes what the raw scores
    would separate.

    Parameters
    ----------
    n_bins : int
        Number of bins.
    low, high : float
        Score range; ``low < high``.

    Examples
    --------
    >>> state = BinnedScoreState(4, 0.0, 1.0)
    >>> state = state.update([0, 0, 1, 1], [0.1, 0.6, 0.35, 0.8])
    >>> state.compute("roc_auc_score"), state.error_bound("roc_auc_score")
    (0.75, 0.0)
    """

    __slots__ = ("n_bins", "low", "high", "pos", "neg", "smin", "smax", "min_pos", "min_neg",
                 "max_pos", "max_neg")

    def __init__(self, n_bins: int, low: float, high: float) -> None:
        if not (math.isfinite(low) and math.isfinite(high)) or not low < high:
            raise InputError(f"the score range must be finite with low < high; got "
                             f"[{low}, {high}]")
        self.n_bins = int(n_bins)
        self.low = float(low)
        self.high = float(high)
        self.pos = np.zeros(self.n_bins, dtype=np.float64)
        self.neg = np.zeros(self.n_bins, dtype=np.float64)
        self.smin = np.full(self.n_bins, np.inf)
        self.smax = np.full(self.n_bins, -np.inf)
        # positive and negative weight AT the smallest and at the largest score of each bin
        self.min_pos = np.zeros(self.n_bins)
        self.min_neg = np.zeros(self.n_bins)
        self.max_pos = np.zeros(self.n_bins)
        self.max_neg = np.zeros(self.n_bins)

    def bin_index(self, scores: np.ndarray) -> np.ndarray:
        """Bin of each score (0 .. n_bins - 1), out-of-range scores clipped.

        Parameters
        ----------
        scores : ndarray
            Scores.

        Returns
        -------
        ndarray of int
            Their bins.
        """
        scale = self.n_bins / (self.high - self.low)
        idx = np.floor((np.asarray(scores, dtype=np.float64) - self.low) * scale)
        return np.clip(idx, 0, self.n_bins - 1).astype(np.intp)

    def update(self, y_true: ArrayLike, y_score: ArrayLike, sample_weight: ArrayLike | None = None) -> BinnedScoreState:
        """Add a batch (``y_true`` in {0, 1}, 1 = positive) in place; return ``self``.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Labels in {0, 1}.
        y_score : array-like of shape (n_samples,)
            Scores.
        sample_weight : array-like of shape (n_samples,), optional
            Sample weights.

        Returns
        -------
        BinnedScoreState
            ``self``, with the batch added.
        """
        y = np.asarray(y_true).astype(bool, copy=False)
        scores = np.asarray(y_score, dtype=np.float64)
        idx = self.bin_index(scores)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        batch = BinnedScoreState(self.n_bins, self.low, self.high)
        np.minimum.at(batch.smin, idx, scores)
        np.maximum.at(batch.smax, idx, scores)
        # one counting pass over 8 kinds of rows: positive?, at the bin minimum?, at the maximum?
        kind = y.astype(np.intp)
        kind += 2 * (scores == batch.smin[idx])
        kind += 4 * (scores == batch.smax[idx])
        kind *= self.n_bins
        kind += idx
        counts = np.bincount(kind, weights=w, minlength=8 * self.n_bins).astype(np.float64)
        counts = counts.reshape(8, self.n_bins)
        positive, at_min, at_max = (np.arange(8) & 1) > 0, (np.arange(8) & 2) > 0, \
            (np.arange(8) & 4) > 0
        batch.pos, batch.neg = counts[positive].sum(0), counts[~positive].sum(0)
        batch.min_pos = counts[positive & at_min].sum(0)
        batch.min_neg = counts[~positive & at_min].sum(0)
        batch.max_pos = counts[positive & at_max].sum(0)
        batch.max_neg = counts[~positive & at_max].sum(0)
        merged = self.merge(batch)
        for name in self.__slots__[3:]:
            setattr(self, name, getattr(merged, name))
        return self

    def merge(self, other: BinnedScoreState) -> BinnedScoreState:
        """Return a new state with the weights of both (same bins required).

        Parameters
        ----------
        other : BinnedScoreState
            The state of other data (same bins).

        Returns
        -------
        BinnedScoreState
            The state of both.
        """
        check_same_kind(self, other)
        if (other.n_bins, other.low, other.high) != (self.n_bins, self.low, self.high):
            raise InputError("cannot merge binned score states with different bins: "
                             f"{self.n_bins} on [{self.low}, {self.high}] and "
                             f"{other.n_bins} on [{other.low}, {other.high}]")
        out = BinnedScoreState(self.n_bins, self.low, self.high)
        out.pos = self.pos + other.pos
        out.neg = self.neg + other.neg
        out.smin = np.minimum(self.smin, other.smin)
        out.smax = np.maximum(self.smax, other.smax)
        # weight at the merged extreme: from each side whose extreme it is
        mine, theirs = self.smin == out.smin, other.smin == out.smin
        out.min_pos = np.where(mine, self.min_pos, 0.0) + np.where(theirs, other.min_pos, 0.0)
        out.min_neg = np.where(mine, self.min_neg, 0.0) + np.where(theirs, other.min_neg, 0.0)
        mine, theirs = self.smax == out.smax, other.smax == out.smax
        out.max_pos = np.where(mine, self.max_pos, 0.0) + np.where(theirs, other.max_pos, 0.0)
        out.max_neg = np.where(mine, self.max_neg, 0.0) + np.where(theirs, other.max_neg, 0.0)
        return out

    def _totals(self, metric: str) -> tuple[float, float] | None:
        p, n = float(self.pos.sum()), float(self.neg.sum())
        if metric == "roc_auc_score" and (p == 0 or n == 0):
            return None
        if metric == "average_precision_score" and p == 0:
            return None
        return p, n

    def _groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Ordered groups (ascending): per bin its minimum, its inside, its maximum.

        Returns positive weight, negative weight and 1.0 for groups whose order
        is unknown (the inside), 0.0 for exact tie groups.
        """
        single = self.smin == self.smax  # one distinct score (or an empty bin)
        low_pos = np.where(single, 0.0, self.min_pos)
        low_neg = np.where(single, 0.0, self.min_neg)
        top_pos = np.where(single, self.pos, self.max_pos)
        top_neg = np.where(single, self.neg, self.max_neg)
        mid_pos = np.maximum(self.pos - low_pos - top_pos, 0.0)
        mid_neg = np.maximum(self.neg - low_neg - top_neg, 0.0)
        pos = np.column_stack([low_pos, mid_pos, top_pos]).ravel()
        neg = np.column_stack([low_neg, mid_neg, top_neg]).ravel()
        mixed = np.zeros((self.n_bins, 3))
        mixed[:, 1] = 1.0
        return pos, neg, mixed.ravel()

    @staticmethod
    def _ap_parts(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per group (from the top): binned AP contribution and its raw-score range."""
        p, neg = pos[::-1], neg[::-1]
        a = np.cumsum(p) - p  # positive weight above the group
        b = np.cumsum(neg) - neg
        d = b + neg
        has = p > 0
        safe = np.where(has, 1.0, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            binned = np.where(has, p * (a + p) / (a + b + p + neg + (1 - safe)), 0.0)
            upper = np.where(has, p * (a + p) / (a + p + b + (1 - safe)), 0.0)
            # integral of (A + c) / (A + c + D) over c in [0, p]; = p when A + D = 0
            ratio = np.where(a + d > 0, p / np.where(a + d > 0, a + d, 1.0), 0.0)
            lower = np.where(has, p - d * np.log1p(ratio), 0.0)
        return binned, upper, lower

    def compute(self, metric: str) -> float:
        """``"roc_auc_score"`` or ``"average_precision_score"`` of the binned scores.

        As :class:`~dartboard.metrics.ScoreState`: ROC AUC with one class only
        warns and gives nan; average precision without positives warns and gives 0.

        Parameters
        ----------
        metric : {"roc_auc_score", "average_precision_score"}
            The metric.

        Returns
        -------
        float
            Its value on the binned scores.
        """
        totals = self._totals(metric)
        if metric not in ("roc_auc_score", "average_precision_score"):
            raise InputError("the binned score state computes 'roc_auc_score' and "
                             f"'average_precision_score'; got {metric!r}")
        if totals is None and metric == "average_precision_score":
            return _undefined(metric, "no positive samples", 0.0)
        if totals is None:
            return _undefined(metric, "only one class present")
        p, n = totals
        pos, neg, _ = self._groups()
        if metric == "roc_auc_score":
            below = np.cumsum(neg) - neg
            return float(vdot(pos, below + 0.5 * neg) / (p * n))
        binned, _, _ = self._ap_parts(pos, neg)
        return float(binned.sum() / p)

    def error_bound(self, metric: str) -> float:
        """Largest possible ``|binned - exact|`` for ``metric`` given this state.

        Parameters
        ----------
        metric : {"roc_auc_score", "average_precision_score"}
            The metric.

        Returns
        -------
        float
            The bound.
        """
        totals = self._totals(metric)
        if totals is None:
            return float("nan")
        p, n = totals
        pos, neg, mixed = self._groups()
        if metric == "roc_auc_score":
            return float(vdot(pos * neg, mixed) / (2.0 * p * n))
        if metric == "average_precision_score":
            binned, upper, lower = self._ap_parts(pos, neg)
            gap = np.maximum(np.maximum(upper - binned, binned - lower), 0.0)
            return float(vdot(gap, mixed[::-1]) / p)
        raise InputError("the binned score state bounds 'roc_auc_score' and "
                         f"'average_precision_score'; got {metric!r}")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, BinnedScoreState)
                and (self.n_bins, self.low, self.high) == (other.n_bins, other.low, other.high)
                and np.array_equal(self.pos, other.pos) and np.array_equal(self.neg, other.neg)
                and all(np.array_equal(getattr(self, k), getattr(other, k))
                        for k in self.__slots__[5:]))

    __hash__ = None  # type: ignore[assignment]  # mutable state: unhashable

    def __repr__(self) -> str:
        return (f"BinnedScoreState(n_bins={self.n_bins}, range=[{self.low:g}, {self.high:g}], "
                f"positives={self.pos.sum():g}, negatives={self.neg.sum():g})")


class QuantileSketch:
    """Mergeable relative-accuracy quantile sketch (log-spaced buckets, as DDSketch).

    A value ``x != 0`` goes to bucket ``i = ceil(log_gamma |x|)`` of its sign,
    which covers ``(gamma^(i-1), gamma^i]`` in absolute value, with
    ``gamma = (1 + alpha) / (1 - alpha)``; zeros are counted apart. Buckets hold
    the summed weight of their values, so merging adds weights bucket by bucket
    and any split of the data gives the same sketch. The number of buckets grows
    with the logarithm of the data's dynamic range (about ``ln(max/min) /
    (2 alpha)`` per sign), not with the number of rows.

    Error bound. A quantile (with the "averaged inverted CDF" rule of
    ``numpy.median`` and scikit-learn's weighted median) is the mean of two
    order statistics; each lies in a known bucket, so the exact value lies in the
    interval given by :meth:`quantile_interval`. The estimate is the mean of the
    bucket representatives ``2 gamma^i / (gamma + 1)``, within a relative
    distance ``alpha`` of any value of the bucket: for a quantile of ``|x|`` the
    error is at most ``alpha`` times the exact value. The median absolute
    deviation ``median |x - m|`` is bounded the same way from the bucket edges
    and the interval of ``m`` (see :meth:`median_abs_deviation`).

    Parameters
    ----------
    relative_accuracy : float
        ``alpha`` in (0, 0.5); default 1e-3.

    Examples
    --------
    >>> sketch = QuantileSketch(0.01).update([1.0, -2.0, 3.0, 10.0, 0.0])
    >>> round(sketch.quantile(0.5), 3)  # exact: 1.0, within 1%
    0.99
    >>> lo, hi = sketch.quantile_interval(0.5)
    >>> bool(lo <= 1.0 <= hi)
    True
    """

    __slots__ = ("alpha", "gamma", "_log_gamma", "pos_keys", "pos_weights", "neg_keys",
                 "neg_weights", "zero_weight")

    def __init__(self, relative_accuracy: float = 1e-3) -> None:
        alpha = float(relative_accuracy)
        if not 0.0 < alpha < 0.5:
            raise InputError(f"relative_accuracy must be in (0, 0.5); got {relative_accuracy!r}")
        self.alpha = alpha
        self.gamma = (1.0 + alpha) / (1.0 - alpha)
        self._log_gamma = math.log(self.gamma)
        self.pos_keys = np.zeros(0, dtype=np.int64)
        self.pos_weights = np.zeros(0, dtype=np.float64)
        self.neg_keys = np.zeros(0, dtype=np.int64)
        self.neg_weights = np.zeros(0, dtype=np.float64)
        self.zero_weight = 0.0

    # ------------------------------------------------------------- building
    @staticmethod
    def _add(keys: np.ndarray, weights: np.ndarray, new_keys: np.ndarray,
             new_weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Merge bucket keys and weights (new_weights None: one per key)."""
        if new_keys.size == 0:
            return keys, weights
        if new_weights is None:
            new_weights = np.ones(new_keys.shape[0], dtype=np.float64)
        all_keys = np.concatenate([keys, new_keys])
        all_weights = np.concatenate([weights, new_weights])
        lo, hi = int(all_keys.min()), int(all_keys.max())
        span = hi - lo + 1
        if span <= 4 * all_keys.shape[0] + 65536:
            # bincount over the key range: no sort of the batch
            summed = np.bincount(all_keys - lo, weights=all_weights, minlength=span)
            present = np.bincount(all_keys - lo, minlength=span) > 0
            out_keys = np.flatnonzero(present).astype(np.int64) + lo
            return out_keys, summed[present]
        out_keys, inverse = np.unique(all_keys, return_inverse=True)
        return out_keys, np.bincount(inverse, weights=all_weights,
                                     minlength=out_keys.shape[0])

    def update(self, values: Any, sample_weight: ArrayLike | None = None) -> QuantileSketch:
        """Add finite values (and optional non-negative weights) in place; return ``self``.

        Parameters
        ----------
        values : array-like
            Finite values.
        sample_weight : array-like, optional
            Non-negative weights.

        Returns
        -------
        QuantileSketch
            ``self``, with the values added.
        """
        x = np.asarray(values, dtype=np.float64).ravel()
        w = None if sample_weight is None else np.asarray(sample_weight, np.float64).ravel()
        nonzero = x != 0
        self.zero_weight += float(x.size - np.count_nonzero(nonzero)) if w is None \
            else float(w[~nonzero].sum())
        with np.errstate(divide="ignore"):
            keys = np.ceil(np.log(np.abs(x[nonzero])) / self._log_gamma).astype(np.int64)
        xs = x[nonzero]
        ws = None if w is None else w[nonzero]
        positive = xs > 0
        self.pos_keys, self.pos_weights = self._add(
            self.pos_keys, self.pos_weights, keys[positive],
            None if ws is None else ws[positive])
        self.neg_keys, self.neg_weights = self._add(
            self.neg_keys, self.neg_weights, keys[~positive],
            None if ws is None else ws[~positive])
        return self

    def merge(self, other: QuantileSketch) -> QuantileSketch:
        """Return a new sketch holding both (same ``relative_accuracy`` required).

        Parameters
        ----------
        other : QuantileSketch
            A sketch of other data.

        Returns
        -------
        QuantileSketch
            The sketch of both.
        """
        check_same_kind(self, other)
        if other.alpha != self.alpha:
            raise InputError("cannot merge quantile sketches of different relative accuracy: "
                             f"{self.alpha} and {other.alpha}")
        out = QuantileSketch(self.alpha)
        out.pos_keys, out.pos_weights = self._add(self.pos_keys, self.pos_weights,
                                                  other.pos_keys, other.pos_weights)
        out.neg_keys, out.neg_weights = self._add(self.neg_keys, self.neg_weights,
                                                  other.neg_keys, other.neg_weights)
        out.zero_weight = self.zero_weight + other.zero_weight
        return out

    # ------------------------------------------------------------- reading
    @property
    def total_weight(self) -> float:
        """Total weight of the values sketched."""
        return float(self.pos_weights.sum() + self.neg_weights.sum() + self.zero_weight)

    @property
    def n_buckets(self) -> int:
        """Number of non-empty buckets (the sketch's size)."""
        return int(self.pos_keys.shape[0] + self.neg_keys.shape[0] + (self.zero_weight > 0))

    def _layout(self, absolute: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Buckets in increasing value order: (lower edge, upper edge, representative, weight).

        ``absolute=True`` folds negative buckets onto positive ones (the sketch of |x|).
        """
        g = self.gamma
        if absolute:
            keys, weights = self._add(self.pos_keys, self.pos_weights,
                                      self.neg_keys, self.neg_weights)
            neg_keys = np.zeros(0, dtype=np.int64)
            neg_weights = np.zeros(0)
        else:
            keys, weights = self.pos_keys, self.pos_weights
            neg_keys, neg_weights = self.neg_keys[::-1], self.neg_weights[::-1]
        up = np.power(g, keys.astype(np.float64))
        pos_lo, pos_hi = up / g * (1 - _EDGE_SLACK), up * (1 + _EDGE_SLACK)
        pos_rep = 2.0 * up / (g + 1.0)
        nup = np.power(g, neg_keys.astype(np.float64))
        neg_lo, neg_hi = -nup * (1 + _EDGE_SLACK), -nup / g * (1 - _EDGE_SLACK)
        neg_rep = -2.0 * nup / (g + 1.0)
        zero = np.zeros(1 if self.zero_weight > 0 else 0)
        return (np.concatenate([neg_lo, zero, pos_lo]),
                np.concatenate([neg_hi, zero, pos_hi]),
                np.concatenate([neg_rep, zero, pos_rep]),
                np.concatenate([neg_weights, zero + self.zero_weight, weights]))

    @staticmethod
    def _middle_buckets(weights: np.ndarray, q: float) -> tuple[int, int]:
        """Buckets of the lower and upper order statistics of quantile ``q``."""
        cum = np.cumsum(weights)
        target = q * cum[-1]
        lower = int(np.searchsorted(cum, target, side="left"))
        upper = int(np.searchsorted(cum, target, side="right"))
        last = weights.shape[0] - 1
        return min(lower, last), min(upper, last)

    def _check_q(self, q: float) -> float:
        q = float(q)
        if not 0.0 <= q <= 1.0:
            raise InputError(f"q must be in [0, 1]; got {q}")
        if self.total_weight <= 0:
            raise InputError("the sketch is empty; add values before asking for quantiles")
        return q

    def quantile(self, q: float, *, absolute: bool = False) -> float:
        """Estimate of the ``q`` quantile (of ``|x|`` when ``absolute``).

        Parameters
        ----------
        q : float
            Probability in [0, 1].
        absolute : bool, default=False
            Quantile of the absolute values.

        Returns
        -------
        float
            The estimate.
        """
        q = self._check_q(q)
        _, _, rep, w = self._layout(absolute)
        lower, upper = self._middle_buckets(w, q)
        return float((rep[lower] + rep[upper]) / 2.0)

    def quantile_interval(self, q: float, *, absolute: bool = False) -> tuple[float, float]:
        """Interval guaranteed to hold the exact ``q`` quantile.

        Parameters
        ----------
        q : float
            Probability in [0, 1].
        absolute : bool, default=False
            Quantile of the absolute values.

        Returns
        -------
        low, high : float
            The interval.
        """
        q = self._check_q(q)
        lo, hi, _, w = self._layout(absolute)
        lower, upper = self._middle_buckets(w, q)
        return float((lo[lower] + lo[upper]) / 2.0), float((hi[lower] + hi[upper]) / 2.0)

    def median_abs_deviation(self) -> tuple[float, float]:
        """``median |x - median(x)|``: estimate and guaranteed error bound.

        With ``m`` only known to lie in ``[m_lo, m_hi]`` (centre ``c``, half-width
        ``h``), every ``|x - m|`` is within ``h`` of ``|x - c|`` and the median is
        1-Lipschitz in such perturbations. For a bucket ``[a, b]`` the values
        ``|x - c|`` lie between the distance of ``c`` to ``[a, b]`` and
        ``max(|a - c|, |b - c|)``, which bounds the median of ``|x - c|`` below and
        above. Estimate: the midpoint; bound: half the width plus ``h``.

        Returns
        -------
        estimate, bound : float
            The estimate and its guaranteed error bound.
        """
        m_lo, m_hi = self.quantile_interval(0.5)
        c, h = (m_lo + m_hi) / 2.0, (m_hi - m_lo) / 2.0
        lo, hi, _, w = self._layout(False)
        near = np.maximum(np.maximum(lo - c, c - hi), 0.0)
        far = np.maximum(np.abs(lo - c), np.abs(hi - c))
        low = self._weighted_median(near, w)
        high = self._weighted_median(far, w)
        return (low + high) / 2.0, (high - low) / 2.0 + h

    def compute(self, metric: str) -> float:
        """Estimate of ``metric`` over the sketched errors ``x``.

        ``"median_absolute_error"`` is the median of ``|x|``,
        ``"median_absolute_deviation"`` is ``median |x - median(x)|``.

        Parameters
        ----------
        metric : {"median_absolute_error", "median_absolute_deviation"}
            The metric.

        Returns
        -------
        float
            Its estimate.
        """
        return resolve_metric(_SKETCH_METRICS, metric)(self)[0]

    def error_bound(self, metric: str) -> float:
        """Guaranteed ``|compute(metric) - exact|``, from the buckets of the order statistics.

        Parameters
        ----------
        metric : {"median_absolute_error", "median_absolute_deviation"}
            The metric.

        Returns
        -------
        float
            The bound.
        """
        return resolve_metric(_SKETCH_METRICS, metric)(self)[1]

    def _median_abs(self) -> tuple[float, float]:
        est = self.quantile(0.5, absolute=True)
        lo, hi = self.quantile_interval(0.5, absolute=True)
        return est, max(est - lo, hi - est)

    def _weighted_median(self, values: np.ndarray, weights: np.ndarray) -> float:
        order = np.argsort(values, kind="stable")
        v, w = values[order], weights[order]
        lower, upper = self._middle_buckets(w, 0.5)
        return float((v[lower] + v[upper]) / 2.0)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, QuantileSketch) and self.alpha == other.alpha
                and np.array_equal(self.pos_keys, other.pos_keys)
                and np.array_equal(self.neg_keys, other.neg_keys)
                and np.allclose(self.pos_weights, other.pos_weights, rtol=1e-12, atol=0)
                and np.allclose(self.neg_weights, other.neg_weights, rtol=1e-12, atol=0)
                and math.isclose(self.zero_weight, other.zero_weight, rel_tol=1e-12))

    __hash__ = None  # type: ignore[assignment]  # mutable state: unhashable

    def __repr__(self) -> str:
        return (f"QuantileSketch(relative_accuracy={self.alpha:g}, buckets={self.n_buckets}, "
                f"total_weight={self.total_weight:g})")


# the metrics a sketch of errors gives, each as (estimate, error bound)
_SKETCH_METRICS = {"median_absolute_error": QuantileSketch._median_abs,
                   "median_absolute_deviation": QuantileSketch.median_abs_deviation}
