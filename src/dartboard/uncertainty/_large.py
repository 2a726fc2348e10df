"""Large-sample intervals of :func:`dartboard.interval` from rows: which apply, and how.

The formulas are in :mod:`dartboard.uncertainty._asymptotic`; this module reads
the registry to decide whether one applies to a metric with the given inputs
(:func:`applicable`), measures the sample size ``method="auto"`` compares with
the registry's ``auto_interval`` (:func:`sample_size`), and forms the interval
(:func:`asymptotic_interval`). None of them takes ``sample_weight``: ``auto``
then uses BCa.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from dartboard.metrics._registry import MetricSpec, specs
from dartboard.uncertainty import _asymptotic

_EPS = np.finfo(np.float64).eps
_HINT = "; use a bootstrap method (percentile, basic or bca)"


def _not_applicable(method: str, name: str) -> ValueError:
    takers = ", ".join(s.name for s in specs() if method in s.asymptotic)
    return ValueError(f"method={method!r} applies to {takers} only; got "
                      f"{name or 'a user callable'}{_HINT}")


def _binary(y_t: np.ndarray, y_o: np.ndarray, pos_label: Any
            ) -> tuple[np.ndarray, np.ndarray]:
    from dartboard.uncertainty._interval import _binary_scores

    if np.ndim(y_o) != 1:
        raise ValueError(f"the logit intervals are defined for binary scores (1-D y_score); "
                         f"got shape {np.shape(y_o)}{_HINT}")
    return _binary_scores(y_t, y_o, pos_label)


def _check(spec: MetricSpec | None, method: str, w: np.ndarray | None,
           kwargs: dict[str, Any]) -> None:
    name = "" if spec is None else spec.name
    if spec is None or method not in spec.asymptotic:
        raise _not_applicable(method, name)
    if w is not None:
        raise ValueError(f"method={method!r} does not take sample_weight{_HINT}")
    allowed = _keywords(spec)
    extra = set(kwargs) - allowed
    if extra:
        raise ValueError(f"method={method!r} does not support the keyword(s) "
                         f"{sorted(extra)} of {name}{_HINT}")


def _keywords(spec: MetricSpec) -> set[str]:
    if spec.loss_terms is not None:
        return set(spec.loss_terms[1])
    if spec.family != "ranking":
        return set()
    # ROC AUC: the one-vs-rest macro average of a multiclass AUC
    return {"pos_label"} if spec.pos_label else {"multi_class", "average"}


def applicable(spec: MetricSpec, method: str, y_t: np.ndarray, y_o: np.ndarray,
               w: np.ndarray | None, kwargs: dict[str, Any]) -> bool:
    """Whether ``method`` (analytic) can form an interval of ``spec`` on these inputs."""
    from dartboard.uncertainty._interval import _binary_scores

    if method in _asymptotic.ROC_AUC_METHODS:
        if w is not None or kwargs:
            return False
        try:
            _binary_scores(y_t, y_o)
        except ValueError:
            return False
        return np.ndim(y_o) == 1
    try:
        _check(spec, method, w, kwargs)
        if spec.default_interval == "delong":
            _ovr_codes(y_t, y_o, kwargs)
        elif spec.family == "ranking":
            _binary(y_t, y_o, _pos_label(spec, kwargs))
        elif spec.mean_of is not None and (np.ndim(y_o) != 1 or np.ndim(y_t) != 1):
            return False
    except (ValueError, TypeError):
        return False
    return True


def _pos_label(spec: MetricSpec, kwargs: dict[str, Any]) -> Any:
    # the metric's own pos_label default (1) where it takes one; else the greater label
    return kwargs.get("pos_label", 1) if spec.pos_label else None


def sample_size(spec: MetricSpec, y_t: np.ndarray) -> int:
    """The size ``auto_interval`` is keyed on: the smallest class of ``y_true`` for
    ranking metrics, else the number of samples."""
    if spec.family != "ranking":
        return int(y_t.shape[0])
    from dartboard._labels import encode_labels

    try:
        counts = np.bincount(encode_labels(("y_true", y_t)).codes[0])
    except (ValueError, TypeError):
        return 0
    return int(counts.min()) if counts.shape[0] > 1 else 0


def asymptotic_interval(spec: MetricSpec | None, method: str, estimate: float,
                        y_t: np.ndarray, y_o: np.ndarray, w: np.ndarray | None,
                        level: float, kwargs: dict[str, Any]) -> Any:
    """The ``logit``, ``influence-logit`` or ``t`` interval of ``spec`` (see _asymptotic)."""
    from dartboard.uncertainty._interval import Interval

    _check(spec, method, w, kwargs)
    if method == "t":
        low, high, se = _mean_interval(spec, y_t, y_o, level, kwargs)
    elif spec.default_interval == "delong":
        low, high, se = _ovr_macro_auc_interval(estimate, y_t, y_o, level, kwargs)
    else:
        low, high, se = _precision_recall_interval(spec, method, estimate, y_t, y_o, level,
                                                   kwargs)
    if spec.bounds is not None:
        low, high = (float(v) for v in np.clip([low, high], *spec.bounds))
    return Interval(estimate, low, high, level, method, se, None, None, spec.name)


def _precision_recall_interval(spec: MetricSpec, method: str, estimate: float,
                               y_t: np.ndarray, y_o: np.ndarray, level: float,
                               kwargs: dict[str, Any]) -> tuple[float, float, float]:
    from dartboard.metrics._ranking import _group_scores

    y, scores = _binary(y_t, y_o, _pos_label(spec, kwargs))
    m = float(np.count_nonzero(y))
    if m == 0:
        raise ValueError(f"{spec.name} has no positive sample here; no interval can be formed")
    if method == "logit":
        return _asymptotic.boyd_logit(estimate, m, level)
    _, pos, neg = _group_scores(y, scores, None)
    _, variance = _asymptotic.ap_influence(pos, neg)
    se = float(np.sqrt(variance))
    spread = estimate * (1.0 - estimate)
    low, high = _asymptotic.logit_interval(
        estimate, se / spread if spread > 0 else float("nan"), level)
    return low, high, se


def _ovr_codes(y_t: np.ndarray, y_o: np.ndarray, kwargs: dict[str, Any]
               ) -> tuple[np.ndarray, np.ndarray]:
    """(class codes, probability matrix) of a one-vs-rest macro ROC AUC, or ValueError."""
    from dartboard._labels import encode_labels

    if np.ndim(y_o) != 2 or kwargs.get("multi_class") != "ovr" \
            or kwargs.get("average", "macro") != "macro":
        raise ValueError("method='influence-logit' of roc_auc_score is the interval of a "
                         "multiclass one-vs-rest macro AUC (multi_class='ovr', "
                         "average='macro', an (n, K) y_score); binary scores take "
                         f"'delong' or 'delong-logit' (or 'newcombe'){_HINT}")
    enc = encode_labels(("y_true", y_t))
    proba = np.asarray(y_o, dtype=np.float64)
    if enc.n_classes != proba.shape[1] or enc.n_classes < 3:
        raise ValueError(f"y_score has {proba.shape[1]} columns for {enc.n_classes} classes "
                         f"of y_true; the interval needs one column per class{_HINT}")
    return enc.codes[0], proba


def _ovr_macro_auc_interval(estimate: float, y_t: np.ndarray, y_o: np.ndarray, level: float,
                            kwargs: dict[str, Any]) -> tuple[float, float, float]:
    """Logit interval of the one-vs-rest macro AUC with its influence-function variance.

    Class k against the rest has DeLong's components; a sample's influence on
    that AUC is ``(V10 - A_k) N / m_k`` as a positive and ``(V01 - A_k) N / n_k``
    as a negative (for two classes, ``sum IF^2 / N^2`` is DeLong's variance with
    ddof = 0). The macro average's influence is the mean over classes, so the
    covariance between the classes' AUCs is included.
    """
    from dartboard._delong import delong_components

    codes, proba = _ovr_codes(y_t, y_o, kwargs)
    total = codes.shape[0]
    influence = np.zeros(total)
    for k in range(proba.shape[1]):
        positive = codes == k
        m = int(np.count_nonzero(positive))
        auc, v10, v01 = delong_components(positive, proba[None, :, k])
        influence[positive] += (v10[0] - auc[0]) * total / m
        influence[~positive] += (v01[0] - auc[0]) * total / (total - m)
    influence /= proba.shape[1]
    se = float(np.sqrt(np.dot(influence, influence))) / total
    spread = estimate * (1.0 - estimate)
    low, high = _asymptotic.logit_interval(
        estimate, se / spread if spread > 0 else float("nan"), level)
    return low, high, se


#: ``mean_of`` terms whose mean is the metric itself (RMSE is the root of a mean)
MEAN_TERMS = ("absolute", "squared", "absolute-percentage", "match", "mismatch")


def has_mean_terms(spec: MetricSpec | None) -> bool:
    """Whether the metric (with its default keywords) is a mean of per-sample terms
    that :func:`mean_terms` gives."""
    return spec is not None and (spec.loss_terms is not None or spec.mean_of in MEAN_TERMS)


def mean_terms(spec: MetricSpec, y_t: Any, y_o: Any, kwargs: dict[str, Any]) -> np.ndarray:
    """The per-sample terms of a mean metric (``loss_terms`` or ``mean_of``), float64.

    RMSE (``root-squared``) gives its squared errors, the terms of the mean under
    the root.
    """
    if spec.loss_terms is not None:
        terms = getattr(importlib.import_module(spec.module), spec.loss_terms[0])
        return np.asarray(terms(y_t, y_o, **kwargs)[0], dtype=np.float64)
    if spec.mean_of in ("match", "mismatch"):
        t, o = np.asarray(y_t), np.asarray(y_o)
        equal = t == o if t.ndim == 1 else np.all(t == o, axis=1)
        return (equal if spec.mean_of == "match" else ~equal).astype(np.float64)
    from dartboard._validation import as_float_array

    t = as_float_array(y_t, name="y_true")
    e = as_float_array(y_o, name="y_pred") - t
    if spec.mean_of in ("squared", "root-squared"):
        return e * e
    if spec.mean_of == "absolute":
        return np.abs(e)
    # the metric's own guard against a zero target
    return np.abs(e) / np.maximum(np.abs(t), _EPS)


def _mean_interval(spec: MetricSpec, y_t: np.ndarray, y_o: np.ndarray, level: float,
                   kwargs: dict[str, Any]) -> tuple[float, float, float]:
    _, low, high, se = _asymptotic.mean_t_interval(mean_terms(spec, y_t, y_o, kwargs), level)
    if spec.mean_of == "root-squared":
        # a square root is monotone: the bounds of MSE carry over; the SE by the delta method
        mse = max(float(spec.function(y_t, y_o)) ** 2, _EPS)
        return float(np.sqrt(max(low, 0.0))), float(np.sqrt(high)), se / (2.0 * np.sqrt(mse))
    return low, high, se
