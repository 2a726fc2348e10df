"""Analytic intervals of :func:`dartboard.interval` outside the metric families.

The families (:mod:`dartboard.families`) form the analytic intervals of the metrics
they compute from their states (proportions, DeLong, logit, influence, t). What is
left here is the one analytic interval of inputs no family holds, the multiclass
one-vs-rest macro ROC AUC (``influence-logit``, from the rows), and the reasons an
analytic method the registry declares for a metric does not apply to the inputs at
hand (weights, keywords, multiclass scores), said in the error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dartboard._kernels import _analytic
from dartboard._kernels._methods import ROC_AUC_METHODS
from dartboard._numeric import vdot
from dartboard.exceptions import InputError
from dartboard.metrics._registry import MetricSpec

_HINT = "; use a bootstrap method (percentile, basic or bca)"


def applicable(spec: MetricSpec, method: str, y_t: np.ndarray, y_o: np.ndarray,
               w: np.ndarray | None, kwargs: dict[str, Any]) -> bool:
    """Whether ``method`` forms an interval of ``spec`` on these rows here: the
    one-vs-rest macro AUC's influence interval."""
    return _refusal(spec, method, y_t, y_o, w, kwargs) is None


def _refusal(spec: MetricSpec, method: str, y_t: np.ndarray, y_o: np.ndarray,
             w: np.ndarray | None, kwargs: dict[str, Any]) -> str | None:
    """Why ``method`` gives no interval of ``spec`` on these rows (None: it does)."""
    if w is not None:
        return f"method={method!r} does not take sample_weight"
    if kwargs.get("max_fpr") not in (None, 1, 1.0):
        # the estimate is then the standardised partial AUC, which DeLong's variance
        # of the full AUC does not describe
        return (f"method={method!r} is the interval of the full ROC AUC; "
                f"max_fpr={kwargs['max_fpr']!r} (a partial AUC) needs a bootstrap method")
    if method in ROC_AUC_METHODS and (np.ndim(y_o) == 2
                                                   or np.unique(y_t).shape[0] > 2):
        n_classes = np.unique(y_t).shape[0]
        author = "Newcombe" if method == "newcombe" else "DeLong"
        return (f"method={method!r} is {author}'s interval of a binary ROC AUC; got "
                f"{n_classes} classes in y_true and y_score of shape {np.shape(y_o)}; "
                "use a bootstrap method (percentile, basic or bca) for a multiclass AUC")
    if method == "influence-logit" and spec.multi_class_scores:
        try:
            _ovr_codes(y_t, y_o, kwargs)
        except ValueError as exc:
            return str(exc).removesuffix(_HINT)
        return None
    extra = sorted(set(kwargs) - {"pos_label"})
    if extra:
        return f"method={method!r} does not support the keyword(s) {extra} of {spec.name}"
    return f"method={method!r} does not apply to {spec.name} on these data"


def asymptotic_interval(spec: MetricSpec, method: str, estimate: float, y_t: np.ndarray,
                        y_o: np.ndarray, w: np.ndarray | None, level: float,
                        kwargs: dict[str, Any]) -> Any:
    """The ``influence-logit`` interval of a multiclass one-vs-rest macro ROC AUC, or
    the reason ``method`` does not apply (a ``ValueError``)."""
    from dartboard._kernels._result import Interval, clip_to_range

    why = _refusal(spec, method, y_t, y_o, w, kwargs)
    if why is not None:
        raise InputError(why + (_HINT if "bootstrap" not in why else ""))
    low, high, se = ovr_macro_auc_interval(estimate, y_t, y_o, level, kwargs)
    low, high, how = clip_to_range(low, high, spec.bounds, method)
    return Interval(estimate, low, high, level, how, se, None, None, spec.name)


def sample_size(spec: MetricSpec, y_t: np.ndarray) -> int:
    """The size ``auto_interval`` is keyed on for rows: the smallest class of
    ``y_true`` for ranking metrics, else the number of samples."""
    if not spec.order_only:
        return int(y_t.shape[0])
    from dartboard._labels import encode_labels

    try:
        counts = np.bincount(encode_labels(("y_true", y_t)).codes[0])
    except (ValueError, TypeError):
        return 0
    return int(counts.min()) if counts.shape[0] > 1 else 0


def _ovr_codes(y_t: np.ndarray, y_o: np.ndarray, kwargs: dict[str, Any]
               ) -> tuple[np.ndarray, np.ndarray]:
    """(class codes, probability matrix) of a one-vs-rest macro ROC AUC, or ValueError."""
    from dartboard._labels import encode_labels

    if np.ndim(y_o) != 2 or kwargs.get("multi_class") != "ovr" \
            or kwargs.get("average", "macro") != "macro":
        raise InputError("method='influence-logit' of roc_auc_score is the interval of a "
                         "multiclass one-vs-rest macro AUC (multi_class='ovr', "
                         "average='macro', an (n, K) y_score); binary scores take "
                         f"'delong' or 'delong-logit' (or 'newcombe'){_HINT}")
    enc = encode_labels(("y_true", y_t))
    proba = np.asarray(y_o, dtype=np.float64)
    if enc.n_classes != proba.shape[1] or enc.n_classes < 3:
        raise InputError(f"y_score has {proba.shape[1]} columns for {enc.n_classes} classes "
                         f"of y_true; the interval needs one column per class{_HINT}")
    return enc.codes[0], proba


def ovr_macro_auc_interval(estimate: float, y_t: np.ndarray, y_o: np.ndarray, level: float,
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
    se = float(np.sqrt(vdot(influence, influence))) / total
    spread = estimate * (1.0 - estimate)
    low, high = _analytic.logit_interval(
        estimate, se / spread if spread > 0 else float("nan"), level)
    return low, high, se
