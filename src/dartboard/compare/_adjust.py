"""Adjusted p-values for a family of m tests.

With the p-values sorted, ``p_(1) <= ... <= p_(m)``, the adjusted p-value of
the i-th smallest is (each clipped to 1):

* ``bonferroni``: ``m p_(i)``;
* ``holm`` (step-down, family-wise error): ``max_{j <= i} (m - j + 1) p_(j)``;
* ``hochberg`` (step-up, family-wise error under independence or positive
  dependence): ``min_{j >= i} (m - j + 1) p_(j)``;
* ``fdr_bh`` (Benjamini-Hochberg, false discovery rate): ``min_{j >= i} m p_(j) / j``;
* ``fdr_by`` (Benjamini-Yekutieli, false discovery rate under any dependence):
  ``fdr_bh`` times ``c_m = sum_{j=1}^m 1/j``.

A hypothesis is rejected at level alpha when its adjusted p-value is below
alpha. Tied p-values get the same adjusted value, whatever order a sort puts
them in. The values equal ``statsmodels.stats.multitest.multipletests``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._validation import as_float_array, describe
from dartboard.exceptions import InputError

__all__ = ["ADJUST_METHODS", "adjust_pvalues"]

#: accepted names -> canonical name
_ALIASES = {
    "bonferroni": "bonferroni",
    "holm": "holm",
    "hochberg": "hochberg",
    "fdr_bh": "fdr_bh",
    "benjamini-hochberg": "fdr_bh",
    "fdr_by": "fdr_by",
    "benjamini-yekutieli": "fdr_by",
}
#: the names :func:`adjust_pvalues` accepts
ADJUST_METHODS = tuple(_ALIASES)


def _adjust_iv(pvalues: Any, method: Any) -> tuple[np.ndarray, str]:
    if not isinstance(method, str) or method.lower() not in _ALIASES:
        raise InputError(f"method must be one of {', '.join(map(repr, ADJUST_METHODS))}; "
                         f"got {describe(method) if not isinstance(method, str) else repr(method)}")
    p = as_float_array(pvalues, name="pvalues", allow_nan=True, allow_empty=True)
    if np.isnan(p).any():
        raise InputError("pvalues contains NaN; every p-value must be a number in [0, 1]")
    if ((p < 0.0) | (p > 1.0)).any():
        bad = p[(p < 0.0) | (p > 1.0)]
        raise InputError(f"pvalues must lie in [0, 1]; got {float(bad[0])!r}"
                         + (f" and {bad.shape[0] - 1} more" if bad.shape[0] > 1 else ""))
    return p, _ALIASES[method.lower()]


def adjust_pvalues(pvalues: ArrayLike, method: str = "holm") -> np.ndarray:
    """Adjust the p-values of a family of tests for multiplicity.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Unadjusted p-values in [0, 1].
    method : {"holm", "bonferroni", "hochberg", "fdr_bh", "fdr_by"}
        ``"benjamini-hochberg"`` and ``"benjamini-yekutieli"`` name the two
        false-discovery-rate methods too. See the module docstring for formulas.

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the order given.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.2], "holm").tolist()
    [0.04, 0.09, 0.09, 0.2]
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.2], "fdr_bh").round(4).tolist()
    [0.04, 0.0533, 0.0533, 0.2]
    """
    p, method = _adjust_iv(pvalues, method)
    m = p.shape[0]
    if method == "bonferroni" or m == 0:
        return np.minimum(1.0, m * p)
    order = np.argsort(p, kind="stable")
    ps = p[order]
    j = np.arange(1, m + 1)
    if method == "holm":
        adj = np.maximum.accumulate((m - j + 1) * ps)
    elif method == "hochberg":
        adj = np.minimum.accumulate(((m - j + 1) * ps)[::-1])[::-1]
    else:
        scale = 1.0 if method == "fdr_bh" else float((1.0 / j).sum())
        adj = np.minimum.accumulate((ps * m * scale / j)[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(1.0, adj)
    return out
