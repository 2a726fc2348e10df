"""The operating point and the curve bands of a binary evaluation, as JSON-ready dicts.

The engine asks for them when the caller names a threshold criterion (or asks for
bands); the faces draw and print these dicts. Arrays are rounded to 6 decimals like
the other figure points, and the bootstrap replicates are left out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["operating_extras"]


def _band_dict(band: Any) -> dict[str, Any]:
    out = {k: getattr(band, k) for k in ("curve", "axis", "confidence_level", "kind",
                                          "method", "n_resamples")}
    for k in ("grid", "estimate", "low", "high"):
        out[k] = np.round(np.asarray(getattr(band, k), dtype=float), 6).tolist()
    return out


def _point_dict(point: Any) -> dict[str, Any]:
    intervals = {name: {"estimate": iv.estimate, "low": iv.low, "high": iv.high,
                        "method": iv.method} for name, iv in point.intervals.items()}
    return {"threshold": point.threshold, "midpoint": point.midpoint,
            "criterion": point.criterion, "confidence_level": point.confidence_level,
            "n_resamples": point.n_resamples, "n_unmet": point.n_unmet,
            "intervals": intervals}


def operating_extras(y_true: np.ndarray, y_score: np.ndarray, positive: Any, *,
                     criterion: str | None, target: float | None, bands: bool,
                     confidence_level: float, n_resamples: int,
                     random_state: Any) -> dict[str, Any]:
    """``operating_point`` (when ``criterion``) and ``roc_band``/``pr_band`` (when
    ``bands``): pointwise bands at 101 specificities and 100 recalls."""
    from dartboard.uncertainty import pr_band, roc_band, select_threshold

    common = {"confidence_level": confidence_level, "n_resamples": n_resamples,
              "random_state": random_state, "pos_label": positive}
    out: dict[str, Any] = {}
    if criterion is not None:
        out["operating_point"] = _point_dict(select_threshold(
            y_true, y_score, criterion=criterion, target=target, **common))
    if bands:
        out["roc_band"] = _band_dict(roc_band(y_true, y_score, **common))
        out["pr_band"] = _band_dict(pr_band(y_true, y_score, **common))
    return out
