"""The operating point and the curve bands of a binary evaluation, as JSON-ready dicts.

The engine asks for them when the caller names a threshold criterion (or asks for
bands); the faces draw and print these dicts. Arrays are rounded to 6 decimals like
the other figure points, and the bootstrap replicates are left out.
:func:`operating_frame` is the table ``Evaluation.operating_point`` shows, and
:func:`operating_lines` its text in the evaluation's ``repr``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dartboard._rng import RandomStateLike

__all__ = ["operating_extras", "operating_frame", "operating_lines", "operating_title"]

_COLUMNS = ["estimate", "low", "high", "method"]


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
            "criterion": point.criterion, "target": point.target,
            "guarantee": point.guarantee, "confidence_level": point.confidence_level,
            "n_resamples": point.n_resamples, "n_unmet": point.n_unmet,
            "intervals": intervals}


def operating_extras(y_true: np.ndarray, y_score: np.ndarray, positive: Any, *,
                     criterion: str | None, target: float | None, bands: bool,
                     confidence_level: float, n_resamples: int,
                     random_state: RandomStateLike, sample_weight: np.ndarray | None = None,
                     clusters: np.ndarray | None = None) -> dict[str, Any]:
    """``operating_point`` (when ``criterion``) and ``roc_band``/``pr_band`` (when
    ``bands``): pointwise bands at 101 specificities and 100 recalls; with
    ``clusters`` (each row's cluster), clustered."""
    from dartboard.uncertainty import pr_band, roc_band, select_threshold

    common = {"confidence_level": confidence_level, "n_resamples": n_resamples,
              "random_state": random_state, "pos_label": positive, "clusters": clusters}
    out: dict[str, Any] = {}
    if criterion is not None:
        out["operating_point"] = _point_dict(select_threshold(
            y_true, y_score, criterion=criterion, target=target,
            sample_weight=sample_weight, **common))
    if bands:
        out["roc_band"] = _band_dict(roc_band(y_true, y_score, **common))
        out["pr_band"] = _band_dict(pr_band(y_true, y_score, **common))
    return out


def operating_title(point: dict[str, Any]) -> str:
    """``operating point (youden): predict positive when score >= 0.61``, with the
    target and guarantee of a constrained criterion."""
    how = point["criterion"]
    if point.get("target") is not None:
        how += f", target {point['target']:g}"
    if point.get("guarantee") is not None:
        how += f", guaranteed with probability {point['guarantee']:g}"
    return f"operating point ({how}): predict positive when score >= {point['threshold']:.4g}"


def operating_frame(point: dict[str, Any] | None) -> Any:
    """The operating point as a DataFrame: one row per quantity (``threshold``,
    ``tpr``, ``tnr``, ``precision``, ``npv``, ``f1``, ``expected_cost``) with
    estimate, low, high and method; ``attrs`` hold the criterion, target,
    guarantee, threshold, pROC midpoint and confidence level. None without one."""
    import pandas as pd

    if point is None:
        return None
    rows = {name: [_number(iv[k]) for k in _COLUMNS[:3]] + [iv["method"]]
            for name, iv in point["intervals"].items()}
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=_COLUMNS)
    frame.index.name = "quantity"
    frame.attrs.update({k: point.get(k) for k in ("criterion", "target", "guarantee",
                                                  "threshold", "midpoint",
                                                  "confidence_level")})
    return frame


def operating_lines(point: dict[str, Any] | None) -> list[str]:
    """The repr's lines: the title, then each quantity with its interval."""
    if point is None:
        return []
    lines = [operating_title(point)]
    for name, iv in point["intervals"].items():
        est, low, high = (_number(iv[k]) for k in _COLUMNS[:3])
        interval = "" if math.isnan(low) else f"  [{low:.4g}, {high:.4g}]"
        lines.append(f"  {name:<28} {est:.4g}{interval}  {iv['method']}")
    return lines


def _number(value: Any) -> float:
    # JSON written and read back has None for nan
    return float("nan") if value is None else float(value)
