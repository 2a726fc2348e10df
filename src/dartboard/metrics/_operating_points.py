"""A fixed point of the ROC curve: the sensitivity at a given specificity, and back.

The empirical ROC curve has one point per threshold between distinct scores (a
sample is positive when its score is above the threshold), from (specificity 0,
sensitivity 1) to (1, 0), with consecutive points joined by straight lines (ties
between classes give the diagonal segments). At a specificity ``x`` the curve
gives the largest sensitivity it reaches there:

* ``x`` equal to the specificity of some points: the greatest sensitivity among
  them (the top of a vertical segment);
* otherwise: linear interpolation between the last point below ``x`` and the
  first above it, ``se = se_hi + (x - sp_hi) / (sp_lo - sp_hi) * (se_lo - se_hi)``.

That is what R's pROC (1.18) returns for ``coords(roc, x, input="specificity",
ret="sensitivity")`` on a ``roc(..., direction="<")`` curve, and symmetrically for
``input="sensitivity", ret="specificity"`` (the greatest specificity at an exact
sensitivity, else the interpolation). Specificities are ``TN / N`` and
sensitivities ``TP / P`` as pROC computes them, so an exact match is found where
pROC finds one. Weighted rows weigh the counts.

Everything follows from the map of distinct scores with the positive and negative
weight at each (:class:`~dartboard.metrics.ScoreState`), one cumulative sum per
class; :func:`at_fixed_point` computes a stack of such maps at once (the scores
family's bootstrap replicates).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._validation import check_real
from dartboard.metrics._confusion import UndefinedMetricWarning
from dartboard.metrics._ranking import binary_positive, group_scores

__all__ = ["at_fixed_point", "sensitivity_at_specificity", "specificity_at_sensitivity"]


def _curve(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(b, S + 1) specificity (ascending) and sensitivity (descending) at thresholds
    from below the lowest score to above the highest; nan where a class is empty."""
    tn = np.cumsum(neg, axis=1, dtype=np.float64)
    below = np.cumsum(pos, axis=1, dtype=np.float64)
    n, p = tn[:, -1:], below[:, -1:]
    zero = np.zeros((pos.shape[0], 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        spec = np.concatenate([zero, tn], axis=1) / n
        sens = (p - np.concatenate([zero, below], axis=1)) / p
    return spec, sens


def _interpolate(x: float, given: np.ndarray, other: np.ndarray, match: np.ndarray,
                 step: int) -> np.ndarray:
    """``other`` where ``given == x`` at index ``match``; else pROC's interpolation
    between its ``nxt``, the first point past ``x`` (``match + step``), and ``nxt - 1``:
    ``other[nxt] + (x - given[nxt]) / (given[nxt - 1] - given[nxt]) * (other[nxt - 1]
    - other[nxt])``."""
    rows = np.arange(given.shape[0])
    last = given.shape[1] - 1
    exact = given[rows, np.clip(match, 0, last)] == x
    nxt = np.clip(match + step, 1, last)
    g, g_prev = given[rows, nxt], given[rows, nxt - 1]
    o, o_prev = other[rows, nxt], other[rows, nxt - 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        proportion = (x - g) / (g_prev - g)
        out = np.where(exact, other[rows, np.clip(match, 0, last)],
                       o + proportion * (o_prev - o))
    out[~(np.isfinite(given[:, -1]) & np.isfinite(other[:, -1]))] = np.nan
    return out


def at_fixed_point(pos: np.ndarray, neg: np.ndarray, *, specificity: float | None = None,
                   sensitivity: float | None = None) -> np.ndarray:
    """Sensitivity at ``specificity`` (or specificity at ``sensitivity``) of a stack of
    score maps.

    Parameters
    ----------
    pos, neg : ndarray of shape (b, S)
        Positive and negative weight at each of S ascending distinct scores.
    specificity, sensitivity : float
        Exactly one: the fixed coordinate, in [0, 1].

    Returns
    -------
    ndarray of shape (b,)
        nan where a map lacks positives or negatives.
    """
    if (specificity is None) == (sensitivity is None):
        raise TypeError("give exactly one of specificity and sensitivity")
    spec, sens = _curve(np.atleast_2d(pos), np.atleast_2d(neg))
    if specificity is not None:
        x = _target(specificity, "specificity")
        # the first point at or above x: the greatest sensitivity there (pROC's first match)
        return _interpolate(x, spec, sens, np.count_nonzero(spec < x, axis=1), 0)
    x = _target(sensitivity, "sensitivity")
    # sensitivity descends: the last point at or above x, the greatest specificity there
    return _interpolate(x, sens, spec, np.count_nonzero(sens >= x, axis=1) - 1, 1)


def _target(value: Any, name: str) -> float:
    return check_real(value, name, minimum=0.0, maximum=1.0)


def _fixed_point(y_true: Any, y_score: Any, pos_label: Any, sample_weight: Any,
                 **target: float) -> float:
    ((name, value),) = target.items()
    _target(value, name)
    positive, s, w, _ = binary_positive(y_true, y_score, pos_label, sample_weight,
                                        multiclass_ok=False, refuse_absent=True)
    _, pos, neg = group_scores(positive, s, w)
    if not (pos.sum() > 0 and neg.sum() > 0):
        warnings.warn("Only one class is present in y_true. The ROC curve, and its "
                      f"{'sensitivity' if name == 'specificity' else 'specificity'} at a "
                      f"fixed {name}, is not defined in that case.",
                      UndefinedMetricWarning, stacklevel=3)
        return float("nan")
    return float(at_fixed_point(pos[None, :], neg[None, :], **target)[0])


def sensitivity_at_specificity(y_true: ArrayLike, y_score: ArrayLike, *, specificity: float,
                               pos_label: Any = 1,
                               sample_weight: ArrayLike | None = None) -> float:
    """Sensitivity (TPR) of the empirical ROC curve at a fixed specificity.

    The curve's points are ``(TN_t / N, TP_t / P)`` at every threshold ``t`` between
    distinct scores (a sample is positive when its score is above ``t``), joined by
    straight lines. At ``specificity = x`` the result is the greatest sensitivity
    of a point with specificity exactly ``x``; otherwise the linear interpolation

        se(x) = se_hi + (x - sp_hi) / (sp_lo - sp_hi) * (se_lo - se_hi)

    between the last point with specificity below ``x`` (``sp_lo, se_lo``) and the
    first above it (``sp_hi, se_hi``). This is R pROC's
    ``coords(roc(y_true, y_score, direction="<"), x, input="specificity",
    ret="sensitivity")``, interpolation included (checked against pROC 1.18). The
    interpolated value is a point of the curve, not of a threshold: no single
    threshold may reach it.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels; labels without 1 need ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive. Only their order matters.
    specificity : float
        The fixed specificity (TNR), in [0, 1].
    pos_label : label, default=1
        The positive class (as :func:`average_precision_score`).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; the counts TP, TN, P and N are weighted.

    Returns
    -------
    float
        In [0, 1]; ``specificity=0`` gives 1.0, ``specificity=1`` the sensitivity
        at the lowest threshold that passes no negative. nan with an
        :class:`~dartboard.metrics.UndefinedMetricWarning` when ``y_true`` holds
        one class only.

    See Also
    --------
    specificity_at_sensitivity, roc_curve

    Notes
    -----
    :func:`dartboard.interval` gives it the percentile bootstrap (as pROC's
    ``ci.coords``). ``benchmarks/fixed_point_coverage.py`` measured 95% intervals
    covering 95-97% of 1000 binormal sets at a target of 0.8 (40 and 200 rows) and
    at 0.95 with 200 rows, but 86-88% at 0.95 with 40 rows, where about one row of
    the fixed class lies beyond the cut (BCa and stratified draws do no better).

    Examples
    --------
    >>> y = [0, 0, 1, 1, 0, 1]
    >>> s = [0.1, 0.4, 0.35, 0.8, 0.5, 0.9]
    >>> round(sensitivity_at_specificity(y, s, specificity=1.0), 6)
    0.666667
    >>> sensitivity_at_specificity([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], specificity=0.25)
    1.0
    >>> # a tie between classes: the curve's diagonal from (0.5, 1) to (1, 0.5)
    >>> sensitivity_at_specificity([0, 1, 0, 1], [0.1, 0.5, 0.5, 0.9], specificity=0.75)
    0.75
    """
    return _fixed_point(y_true, y_score, pos_label, sample_weight, specificity=specificity)


def specificity_at_sensitivity(y_true: ArrayLike, y_score: ArrayLike, *, sensitivity: float,
                               pos_label: Any = 1,
                               sample_weight: ArrayLike | None = None) -> float:
    """Specificity (TNR) of the empirical ROC curve at a fixed sensitivity.

    The mirror of :func:`sensitivity_at_specificity`: the greatest specificity of a
    point of the curve with sensitivity exactly ``x``; otherwise the linear
    interpolation

        sp(x) = sp_lo + (x - se_lo) / (se_hi - se_lo) * (sp_hi - sp_lo)

    between the last point with sensitivity above ``x`` (``se_hi, sp_hi``) and the
    first below it (``se_lo, sp_lo``). This is R pROC's
    ``coords(roc(y_true, y_score, direction="<"), x, input="sensitivity",
    ret="specificity")``, interpolation included (checked against pROC 1.18).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels; labels without 1 need ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive. Only their order matters.
    sensitivity : float
        The fixed sensitivity (TPR), in [0, 1].
    pos_label : label, default=1
        The positive class (as :func:`average_precision_score`).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; the counts TP, TN, P and N are weighted.

    Returns
    -------
    float
        In [0, 1]; ``sensitivity=0`` gives 1.0, ``sensitivity=1`` the specificity
        at the highest threshold that passes every positive. nan with an
        :class:`~dartboard.metrics.UndefinedMetricWarning` when ``y_true`` holds
        one class only.

    See Also
    --------
    sensitivity_at_specificity, roc_curve

    Notes
    -----
    :func:`dartboard.interval` gives it the percentile bootstrap (as pROC's
    ``ci.coords``). ``benchmarks/fixed_point_coverage.py`` measured 95% intervals
    covering 95-97% of 1000 binormal sets at a target of 0.8 (40 and 200 rows) and
    at 0.95 with 200 rows, but 86-88% at 0.95 with 40 rows, where about one row of
    the fixed class lies beyond the cut (BCa and stratified draws do no better).

    Examples
    --------
    >>> y = [0, 0, 1, 1, 0, 1]
    >>> s = [0.1, 0.4, 0.35, 0.8, 0.5, 0.9]
    >>> round(specificity_at_sensitivity(y, s, sensitivity=1.0), 6)
    0.333333
    >>> specificity_at_sensitivity([0, 1, 0, 1], [0.1, 0.5, 0.5, 0.9], sensitivity=0.75)
    0.75
    """
    return _fixed_point(y_true, y_score, pos_label, sample_weight, sensitivity=sensitivity)
