"""DeLong's covariance of correlated ROC AUCs by the fast midrank algorithm.

Shared by :func:`dartboard.interval` (the ``delong`` interval of one AUC) and
:func:`dartboard.delong_test` (two correlated AUCs on the same test set).

DeLong, DeLong & Clarke-Pearson (1988) write the AUC of ``m`` positive scores
``X`` and ``n`` negative scores ``Y`` as the mean of
``psi(x, y) = 1 if x > y, 1/2 if x == y, 0 otherwise`` over all pairs, with
structural components ``V10(X_i) = mean_j psi(X_i, Y_j)`` and
``V01(Y_j) = mean_i psi(X_i, Y_j)``. The covariance of the AUC estimates of
``k`` models is ``S10 / m + S01 / n``, where ``S10`` and ``S01`` are the
(k, k) sample covariances (ddof = 1) of the components.

Sun & Xu (2014, IEEE Signal Processing Letters 21(11)) compute the components
from midranks in O(k n log n) instead of O(k m n):
``V10_i = (Tz_i - Tx_i) / n`` and ``V01_j = 1 - (Tz_{m+j} - Ty_j) / m``, with
``Tx``, ``Ty``, ``Tz`` the midranks of a score among the positives, among the
negatives and among all scores. Midranks give ties exactly half a pair.
"""

from __future__ import annotations

import numpy as np

from dartboard.exceptions import InputError

__all__ = ["delong_auc_covariance", "delong_components", "delong_terms"]


def _midranks(x: np.ndarray) -> np.ndarray:
    """Midranks (1-based, ties averaged) along the last axis of a 2-D array."""
    k, n = x.shape
    order = np.argsort(x, axis=1, kind="stable")
    xs = np.take_along_axis(x, order, axis=1)
    out = np.empty((k, n), dtype=np.float64)
    rows = np.arange(k)[:, None]
    # Each tie group [start, end) gets the midrank (start + 1 + end) / 2.
    new_group = np.ones((k, n), dtype=bool)
    new_group[:, 1:] = xs[:, 1:] != xs[:, :-1]
    pos = np.arange(n)
    start = np.maximum.accumulate(np.where(new_group, pos, 0), axis=1)
    end_flag = np.ones((k, n), dtype=bool)
    end_flag[:, :-1] = new_group[:, 1:]
    end = np.minimum.accumulate(np.where(end_flag, pos, n - 1)[:, ::-1], axis=1)[:, ::-1]
    out[rows, order] = (start + end + 2) / 2.0
    return out


def delong_auc_covariance(y_true: np.ndarray, scores: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """AUCs of ``k`` models and DeLong's (k, k) covariance of those AUCs.

    Parameters
    ----------
    y_true : ndarray of bool, shape (n_samples,)
        True for positive samples.
    scores : ndarray of float64, shape (k, n_samples)
        One row of scores per model (higher = more likely positive).

    Returns
    -------
    aucs : ndarray of shape (k,)
        ``P(score+ > score-) + 0.5 P(tie)`` per model.
    covariance : ndarray of shape (k, k)
        ``S10 / m + S01 / n`` (see the module docstring). A class with a single
        sample has no sample covariance (ddof = 1); its term is taken as 0.

    Raises
    ------
    ValueError
        When there is no positive or no negative sample (AUC undefined), or the
        shapes do not match.

    Examples
    --------
    >>> y = np.array([True, True, False, False, True])
    >>> s = np.array([[0.9, 0.4, 0.35, 0.1, 0.8]])
    >>> aucs, cov = delong_auc_covariance(y, s)
    >>> float(aucs[0])
    1.0
    >>> float(cov[0, 0])
    0.0
    """
    y_true = np.asarray(y_true, dtype=bool)
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 1:
        scores = scores[None, :]
    if y_true.ndim != 1 or scores.ndim != 2 or scores.shape[1] != y_true.shape[0]:
        raise InputError(f"scores must have shape (k, {y_true.shape[0]}) to match y_true; "
                         f"got {scores.shape}")
    m = int(np.count_nonzero(y_true))
    n = y_true.shape[0] - m
    if m == 0 or n == 0:
        raise InputError("ROC AUC is undefined when y_true holds only one class "
                         f"({m} positive and {n} negative samples)")
    aucs, v10, v01 = delong_components(y_true, scores)
    cov = _sample_cov(v10) / m + _sample_cov(v01) / n
    return aucs, cov


def delong_terms(y_true: np.ndarray, scores: np.ndarray
                 ) -> tuple[float, float, float, int, int]:
    """``(AUC, S10 / m, S01 / n, m, n)`` of one model: DeLong's variance is the sum of
    the two terms, each from one class's components (a class with one sample: 0)."""
    aucs, v10, v01 = delong_components(np.asarray(y_true, dtype=bool),
                                       np.asarray(scores, dtype=np.float64).reshape(1, -1))
    m, n = v10.shape[1], v01.shape[1]
    return (float(aucs[0]), float(_sample_cov(v10)[0, 0]) / m,
            float(_sample_cov(v01)[0, 0]) / n, m, n)


def delong_components(y_true: np.ndarray, scores: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """AUCs and DeLong's structural components ``V10`` (k, m) and ``V01`` (k, n).

    ``V10[:, i]`` belongs to the i-th positive and ``V01[:, j]`` to the j-th
    negative, in the order of ``y_true``. The caller has checked the shapes and
    that both classes are present.
    """
    m = int(np.count_nonzero(y_true))
    n = y_true.shape[0] - m
    x = scores[:, y_true]
    y = scores[:, ~y_true]
    tx = _midranks(x)
    ty = _midranks(y)
    tz = _midranks(np.concatenate([x, y], axis=1))
    aucs = tz[:, :m].sum(axis=1) / (m * n) - (m + 1.0) / (2.0 * n)
    v10 = (tz[:, :m] - tx) / n
    v01 = 1.0 - (tz[:, m:] - ty) / m
    return aucs, v10, v01


def _sample_cov(v: np.ndarray) -> np.ndarray:
    k, size = v.shape
    if size < 2:
        return np.zeros((k, k))
    centred = v - v.mean(axis=1, keepdims=True)
    return centred @ centred.T / (size - 1)
