"""The design effect of a clustered metric row: how much the clusters cost.

``design effect = SE_clustered^2 / SE_independent^2`` (Kish 1965, 8.2), the variance
of the clustered interval over that of the same kind of interval with independent
rows: the cluster-robust methods against their independent-rows forms (``wald``,
``t``, ``delong``; the delta method with each row its own cluster), the bootstrap
of whole clusters against the metric's analytic independent-rows interval where it
has one (``wald``, ``t``, ``delong``, ``influence-logit``: the same standard error as
a bootstrap of rows, without a second bootstrap over every row), else the bootstrap
of rows (the same method and resamples). A simulated interval that allows for the
clusters itself (the calibration error's bin-pivot on ``n / D`` rows) reports the
``D`` it used.
``effective n = n / design effect`` is the number of independent rows that would
measure the metric as precisely; it is at most ``n`` (a design effect below 1 is the
clusters' noise or a negative intra-cluster correlation, not rows worth more than
themselves).

A clustered interval of zero width measures nothing: every resample of whole clusters
gave the estimate (the clusters agree on the metric, or one cluster holds all of its
rows) or the cluster-robust variance is 0. Its row says so (``n/a``, no design
effect) rather than showing an interval that no sampling could have missed
(:func:`zero_width`). For a mean over clusters of ``m`` rows with
intra-cluster correlation ``rho`` the design effect is about ``1 + (m - 1) rho``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["DELTA_KINDS", "INDEPENDENT", "design_effect", "independent_forms", "se_ratio",
           "zero_width"]

#: the independent-rows form of each cluster-robust interval
INDEPENDENT = {"wald-clustered": "wald", "wilson-clustered": "wald", "t-clustered": "t",
               "delong-clustered": "delong", "delong-logit-clustered": "delong",
               "influence-logit-clustered": "influence-logit",
               "jackknife-logit-clustered": "delta-clustered"}
#: the delta method's clustered forms, whose independent-rows form is the delta method
#: with each row its own cluster
DELTA_KINDS = ("delta-clustered", "jackknife-logit-clustered")


def independent_forms(kind: str) -> tuple[str, ...]:
    """The independent-rows methods to measure a clustered interval of ``kind`` against,
    in order: the studentized bootstrap of clusters is a proportion's, a mean loss's or
    ROC AUC's, and the first of their forms that the metric takes is its own."""
    if kind == "bootstrap-t-clustered":
        return "wald", "t", "delong"
    if kind in _BOOTSTRAPS:
        # the analytic form where the metric has one: the same standard error without a
        # second bootstrap's cost (about resamples x rows) or Monte-Carlo noise
        return "wald", "t", "delong", "influence-logit", kind
    return (INDEPENDENT.get(kind, kind),)


#: the bootstraps of whole clusters (``percentile``, ``basic``, ``bca`` over clusters)
_BOOTSTRAPS = ("percentile", "basic", "bca")


def design_effect(clustered: Any, function: Callable[..., Any], y: np.ndarray,
                  other: np.ndarray, w: np.ndarray | None, kwargs: dict[str, Any],
                  n_resamples: int, random_state: Any) -> float | None:
    """The design effect of a clustered :class:`~dartboard.Interval` (None where the
    independent-rows interval cannot be formed or its standard error is 0)."""
    from dartboard.uncertainty import interval

    kind = str(clustered.method).split(" ")[0]
    # the delta method has no independent-rows form of its own: each row its own cluster
    alone = {"clusters": np.arange(y.shape[0])} if kind in DELTA_KINDS else {}
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
    """``(SE_clustered / SE_independent)^2``; None where either SE is missing or not
    finite, or either is 0: a clustered SE of 0 (clusters of one value each, two
    clusters with the same rate) shows no spread between clusters to measure, not a
    design that removes the variance."""
    if clustered is None or independent is None or not np.isfinite(independent) \
            or not np.isfinite(clustered) or independent <= 0 or clustered <= 0:
        return None
    return float((clustered / independent) ** 2)


def zero_width(iv: Any) -> str | None:
    """Why a clustered interval measures no uncertainty (its ends equal, to rounding),
    or None when it has a width."""
    low, high, estimate = float(iv.low), float(iv.high), float(iv.estimate)
    if not (np.isfinite(low) and np.isfinite(high)):
        return None
    if high - low > 1e-12 * max(1.0, abs(estimate)):
        return None
    return (f"zero width: the clusters show no spread around {estimate:.4g} for a "
            "clustered interval to measure")
