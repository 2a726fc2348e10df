"""D^2 of probabilities: the log loss and Brier score against the class frequencies.

``D^2 = 1 - L(y, p) / L(y, f)`` where the null model predicts each class's
(weighted) frequency ``f_c`` in ``y_true`` for every sample: its log loss is
``-sum_c W_c log f_c / W`` (``W_c`` the weight of class c, clipped as log loss
clips), its Brier score (unscaled, summed over classes) ``sum_c f_c (1 - f_c)``. A
multilabel-indicator ``y_true`` is one column per class, as in log loss. The
model's losses are :func:`log_loss` and :func:`brier_score_loss` themselves.
Fewer than two samples give nan with an :class:`UndefinedMetricWarning`, as
scikit-learn.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._labels import encode_labels
from dartboard._numeric import vdot
from dartboard._validation import (
    check_consistent_length,
    check_sample_weight,
    label_array,
    to_numpy,
)
from dartboard.metrics._docs import documented
from dartboard.metrics._probabilistic import (
    _binary_outcome,
    _encode_with_labels,
    _indicator_iv,
    _is_indicator,
    _proba_array,
    brier_score_loss,
    log_loss,
    renamed_y_proba,
)
from dartboard.metrics._regression_losses import _too_few

__all__ = ["d2_brier_score", "d2_log_loss_score"]


def _class_weights(y_true: Any, y_proba: Any, sample_weight: Any, labels: Any,
                   pos_label: Any = None) -> tuple[np.ndarray, float]:
    """The (weighted) number of samples of each class, and the total weight: the null
    model's frequencies are their ratio (which class is positive does not matter).

    A multilabel-indicator ``y_true`` is one column per class, as in :func:`log_loss`
    and :func:`brier_score_loss`: a class's weight is that of the samples holding it,
    and the frequencies need not sum to 1.
    """
    if _is_indicator(y_true):
        t, _, w = _indicator_iv(y_true, *_proba_array(y_proba), sample_weight)
        if w is None:
            return t.sum(axis=0), float(t.shape[0])
        w = w.astype(np.float64)
        return w @ t, float(w.sum())
    t = label_array(y_true, name="y_true")
    p = to_numpy(y_proba, name="y_proba")
    n = check_consistent_length(("y_true", t), ("y_proba", p))
    w = check_sample_weight(sample_weight, n, scale_free=True)
    if (p.ndim == 1 or p.shape[1] == 1) and pos_label is not None:
        # scikit-learn's y_true == pos_label: a pos_label absent from y_true leaves
        # every sample negative (a null model without error)
        codes, n_classes = _binary_outcome(t, pos_label).astype(np.intp), 2
    elif p.ndim == 1 or p.shape[1] == 1:
        codes, n_classes = encode_labels(("y_true", t)).codes[0], None
    else:
        classes, codes = _encode_with_labels(t, labels)
        n_classes = classes.shape[0]
    weights = np.bincount(codes, None if w is None else w.astype(np.float64),
                          minlength=n_classes or 0).astype(np.float64)
    return weights, float(weights.sum())


def _too_few_samples(y_true: Any, y_proba: Any, sample_weight: Any) -> bool:
    """Fewer than two samples (nan, with a warning), once the lengths agree: a row
    against a column is an error, as in scikit-learn, not one sample."""
    check_consistent_length(("y_true", to_numpy(y_true, name="y_true")),
                            ("y_proba", to_numpy(y_proba, name="y_proba")),
                            ("sample_weight", None if sample_weight is None else
                             to_numpy(sample_weight, name="sample_weight")))
    return _too_few(to_numpy(y_proba, name="y_proba").shape[0])


def _ratio(numerator: float, denominator: float) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(1 - np.float64(numerator) / np.float64(denominator))


@documented(
    returns="float\n    ``1 - log loss / log loss of the class frequencies``.",
    y_pred=("str",
            "Deprecated name of ``y_proba``, as in scikit-learn."),
)
def d2_log_loss_score(y_true: ArrayLike, y_proba: ArrayLike | None = None, *, sample_weight: ArrayLike | None = None,
                      labels: ArrayLike | None = None, y_pred: Any = "deprecated") -> float:
    """D^2 of the log loss: ``1 - LL(y, p) / LL(y, class frequencies)``.

    The null model predicts each class's (weighted) frequency in ``y_true``.
    Drop-in for ``sklearn.metrics.d2_log_loss_score``.

    Examples
    --------
    >>> round(d2_log_loss_score([0, 1, 1, 0], [0.1, 0.8, 0.7, 0.4]), 6)
    0.568633
    """
    y_proba = renamed_y_proba(y_pred, y_proba)
    if _too_few_samples(y_true, y_proba, sample_weight):
        return float("nan")
    numerator = log_loss(y_true, y_proba, sample_weight=sample_weight, labels=labels,
                         normalize=False)
    weights, total = _class_weights(y_true, y_proba, sample_weight, labels)
    eps = np.finfo(np.float64).eps
    prior = np.clip(weights / total, eps, 1 - eps)
    return _ratio(numerator, -float(vdot(weights, np.log(prior))))


@documented(
    returns="float\n    ``1 - Brier / Brier of the class frequencies``.",
)
def d2_brier_score(y_true: ArrayLike, y_proba: ArrayLike, *, sample_weight: ArrayLike | None = None,
                   pos_label: Any = None, labels: ArrayLike | None = None) -> float:
    """D^2 of the Brier score: ``1 - BS(y, p) / BS(y, class frequencies)``.

    The null model's Brier score is ``1 - sum_c f_c^2`` for class frequencies
    ``f``. Drop-in for ``sklearn.metrics.d2_brier_score``.

    Examples
    --------
    >>> round(d2_brier_score([0, 1, 1, 0], [0.1, 0.8, 0.7, 0.4]), 6)
    0.7
    """
    if _too_few_samples(y_true, y_proba, sample_weight):
        return float("nan")
    numerator = brier_score_loss(y_true, y_proba, sample_weight=sample_weight,
                                 pos_label=pos_label, labels=labels, scale_by_half=False)
    weights, total = _class_weights(y_true, y_proba, sample_weight, labels, pos_label)
    frequency = weights / total
    # sum_c f_c (1 - f_c): 1 - sum_c f_c^2 when the classes exclude each other
    return _ratio(numerator, float(vdot(frequency, 1.0 - frequency)))
