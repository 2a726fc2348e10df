"""The area under any curve, and the detection error tradeoff (DET) curve.

* ``auc(x, y)``: the trapezoid rule over points whose x is monotone (increasing
  or decreasing; a decreasing x gives the same positive area);
* ``det_curve``: false positive rate against false negative rate at every
  distinct threshold, from the same tie groups of one sort as the ROC curve
  (``._ranking``). As scikit-learn, it runs from the last threshold with no
  false positive to the first with no false negative, with the false positive
  rate decreasing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._validation import as_float_array, check_bool, check_consistent_length
from dartboard.exceptions import InputError
from dartboard.metrics._docs import documented
from dartboard.metrics._ranking import (
    binary_positive,
    descending_counts,
    group_scores,
)

__all__ = ["auc", "det_curve"]

_trapezoid = getattr(np, "trapezoid", None) or np.trapz  # type: ignore[attr-defined, unused-ignore]  # numpy < 2


@documented(
    returns="float\n    The area under the curve through the points.",
    x=("array-like of shape (n,)",
       "x coordinates, monotonic (increasing or decreasing)."),
    y=("array-like of shape (n,)",
       "y coordinates."),
)
def auc(x: ArrayLike, y: ArrayLike) -> float:
    """Area under the curve through the points (x, y) by the trapezoid rule.

    ``x`` must be monotone. For the area under a ROC curve of scores use
    :func:`roc_auc_score`. Drop-in for ``sklearn.metrics.auc``.

    Examples
    --------
    >>> auc([0, 0.5, 1], [0, 0.8, 1])
    0.65
    """
    x = as_float_array(x, name="x")
    y = as_float_array(y, name="y")
    check_consistent_length(("x", x), ("y", y))
    if x.shape[0] < 2:
        raise InputError(f"At least 2 points are needed to compute area under curve, but "
                         f"x.shape = {x.shape[0]}")
    dx = np.diff(x)
    direction = 1.0
    if np.any(dx < 0):
        if not np.all(dx <= 0):
            raise InputError(f"x is neither increasing nor decreasing : {x}.")
        direction = -1.0
    return float(direction * _trapezoid(y, x))


@documented(
    drop_intermediate=("bool",
                       "Drop thresholds that do not change the curve's shape."),
)
def det_curve(y_true: ArrayLike, y_score: ArrayLike, pos_label: Any = None, sample_weight: ArrayLike | None = None,
              drop_intermediate: bool = False
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Detection error tradeoff: false positive and false negative rates by threshold.

    Drop-in for ``sklearn.metrics.det_curve`` (positional ``pos_label`` and
    ``sample_weight`` as there). ``drop_intermediate`` drops thresholds where the
    true positives do not change from either neighbour.

    Returns
    -------
    fpr, fnr, thresholds : ndarray
        Thresholds increasing (``inf`` first is never returned: the curve starts
        at the last threshold with no false positive).

    Examples
    --------
    >>> fpr, fnr, thr = det_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr.tolist(), fnr.tolist(), thr.tolist()
    ([0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.35, 0.4, 0.8])
    """
    drop_intermediate = check_bool(drop_intermediate, "drop_intermediate")
    # scikit-learn returns nan rates for a pos_label that is not a class; this
    # function refuses one class anyway, so it names the mistake (dartboard._labels)
    positive, s, w, _ = binary_positive(y_true, y_score, pos_label, sample_weight,
                                         multiclass_ok=False, refuse_absent=True)
    if not positive.any() or positive.all():
        raise InputError("Only one class is present in y_true. Detection error tradeoff "
                         "curve is not defined in that case.")
    scores, pos, neg = group_scores(positive, s, w)
    tps, fps = descending_counts(pos, neg)
    tps = np.concatenate(([0.0], tps))
    fps = np.concatenate(([0.0], fps))
    thresholds = np.concatenate(([np.inf], scores[::-1].astype(np.float64)))
    if drop_intermediate and fps.shape[0] > 2:
        keep = np.concatenate(([True], np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:])),
                               [True]))
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    fns = tps[-1] - tps
    first = np.searchsorted(fps, fps[0], side="right") - 1
    last = np.searchsorted(tps, tps[-1]) + 1
    sl = slice(first if first >= 0 else None, last)
    return fps[sl][::-1] / fps[-1], fns[sl][::-1] / tps[-1], thresholds[sl][::-1]
