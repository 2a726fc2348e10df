"""The design effect of a clustered metric row: how much the clusters cost.

``design effect = SE_clustered^2 / SE_independent^2`` (Kish 1965, 8.2), the variance
of the clustered interval over that of the same kind of interval with independent
rows: the cluster-robust methods against their independent-rows forms (``wald``,
``t``, ``delong``; the delta method with each row its own cluster), the bootstrap
of whole clusters against the bootstrap of rows (the same method and resamples).
``effective n = n / design effect`` is the number of independent rows that would
measure the metric as precisely. For a mean over clusters of ``m`` rows with
intra-cluster correlation ``rho`` the design effect is about ``1 + (m - 1) rho``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["INDEPENDENT", "design_effect", "independent_forms", "se_ratio"]

#: the independent-rows form of each cluster-robust interval
INDEPENDENT = {"wald-clustered": "wald", "wilson-clustered": "wald", "t-clustered": "t",
               "delong-clustered": "delong", "delong-logit-clustered": "delong"}


def independent_forms(kind: str) -> tuple[str, ...]:
    """The independent-rows methods to measure a clustered interval of ``kind`` against,
    in order: the studentized bootstrap of clusters is a proportion's, a mean loss's or
    ROC AUC's, and the first of their forms that the metric takes is its own."""
    if kind == "bootstrap-t-clustered":
        return "wald", "t", "delong"
    return (INDEPENDENT.get(kind, kind),)


def design_effect(clustered: Any, function: Callable[..., Any], y: np.ndarray,
                  other: np.ndarray, w: np.ndarray | None, kwargs: dict[str, Any],
                  n_resamples: int, random_state: Any) -> float | None:
    """The design effect of a clustered :class:`~dartboard.Interval` (None where the
    independent-rows interval cannot be formed or its standard error is 0)."""
    from dartboard.uncertainty import interval

    kind = str(clustered.method).split(" ")[0]
    # the delta method has no independent-rows form of its own: each row its own cluster
    alone = {"clusters": np.arange(y.shape[0])} if kind == "delta-clustered" else {}
    for method in independent_forms(kind):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rows = interval(function, y, other, method=method, n_resamples=n_resamples,
                                random_state=random_state, sample_weight=w, **alone,
                                **kwargs)
        except ValueError:
            continue
        return se_ratio(clustered.standard_error, rows.standard_error)
    return None


def se_ratio(clustered: float | None, independent: float | None) -> float | None:
    """``(SE_clustered / SE_independent)^2``; None where the independent SE is missing,
    not finite or 0."""
    if clustered is None or independent is None or not np.isfinite(independent) \
            or independent <= 0:
        return None
    return float((clustered / independent) ** 2)
