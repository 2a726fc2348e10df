"""Count metrics of a whole stack of confusion matrices at once.

Bootstrap intervals and permutation tests produce R resampled confusion matrices
(an array of shape (R, K, K) over the classes of the full data). This module turns
them into R metric values with the formulas of ``._count_formulas`` -- the same
ones :meth:`ConfusionCounts.compute` runs on a stack of one. Each value equals the
metric computed on the resampled samples themselves, which means:

- a class absent from a replicate (zero row and column) is not one of its classes,
  as it would not be when the labels of the resampled data are counted; classes
  listed in ``labels`` always are (with zero counts when absent);
- 0/0 takes ``zero_division`` ("warn" gives 0.0; replicates never warn).

With ``undefined="nan"`` a replicate on which the metric *as a whole* is undefined
under ``zero_division="warn"`` (a 0/0 binary or micro ratio, an empty matrix, an
undefined kappa) is ``nan`` instead of the stand-in 0.0, so a bootstrap can drop it
and say so rather than count a made-up value. Per-class 0/0 inside a macro or
weighted average still follow the metric exactly.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from dartboard._validation import check_option, check_zero_division
from dartboard.exceptions import InputError, InputTypeError
from dartboard.metrics import _count_formulas as cf
from dartboard.metrics._registry import MetricSpec, get_spec, specs

__all__ = ["SCALAR_COUNT_METRICS", "batch_count_metric", "batch_multilabel_metric"]

#: Count metrics that return one number (with a non-None ``average``).
SCALAR_COUNT_METRICS = frozenset(s.name for s in specs(kind="count", scalar=True))

_UNDEFINED = ("zero_division", "nan")
_SET_KEYWORDS = ("average", "labels", "pos_label", "zero_division")


def _checked(name: str, undefined: str, matrices: Any) -> tuple[Any, np.ndarray]:
    """The registry entry of a count metric and its stack of matrices as float64."""
    check_option(undefined, "undefined", _UNDEFINED)
    check_option(name, "name", sorted(SCALAR_COUNT_METRICS))
    return get_spec(name), np.asarray(matrices, dtype=np.float64)


def batch_count_metric(name: str, classes: np.ndarray, matrices: np.ndarray,
                       kwargs: dict[str, Any], *,
                       undefined: str = "zero_division") -> np.ndarray:
    """Metric ``name`` of each confusion matrix of an (R, K, K) stack.

    Parameters
    ----------
    name : str
        A scalar count metric (see ``SCALAR_COUNT_METRICS``).
    classes : ndarray of shape (K,)
        Sorted labels indexing the matrices.
    matrices : array of shape (R, K, K)
        Counts (or weight sums), rows true, columns predicted.
    kwargs : dict
        Keywords of the metric (``average``, ``pos_label``, ``labels``, ...).
    undefined : {"zero_division", "nan"}
        What a replicate on which the metric is undefined gets (module docstring).

    Returns
    -------
    ndarray of shape (R,)
    """
    spec, m = _checked(name, undefined, matrices)
    classes = np.asarray(classes)
    kw = dict(kwargs)
    as_nan = undefined == "nan"
    if not spec.average:
        formula = cf.FORMULAS[name]
        _check_keywords(name, kw, _keywords_of(formula))
        return formula(m, None, classes, as_nan=as_nan, **kw)
    ratio, title, samples = _set_formula(spec, kw)
    _check_keywords(name, kw, _SET_KEYWORDS)
    average = kw.get("average", "binary")
    check_option(average, "average", cf.AVERAGES)
    if average is None:
        raise InputError(f"{name} with average=None returns one value per class; a "
                         "resampled statistic needs a single number (choose an average)")
    return cf.set_metric(m, None, classes, formula=ratio, title=title, samples=samples,
                         as_nan=as_nan, **kw)


@functools.cache
def _keywords_of(formula: Callable[..., np.ndarray]) -> tuple[str, ...]:
    """The keywords a whole-matrix formula takes from the caller (read once per formula:
    a bootstrap evaluates its replicates batch after batch)."""
    return tuple(p for p in inspect.signature(formula).parameters
                 if p not in ("m", "mask", "classes", "single", "as_nan"))


#: whole-target count metrics of multilabel indicators: from per-label stacks ("labels")
#: or from the per-sample (TP, FP, FN) triples' weights ("samples")
_MULTILABEL: dict[str, tuple[str, Callable[..., np.ndarray]]] = {"accuracy_score": ("samples", cf.subset_accuracy),
               "zero_one_loss": ("samples", cf.subset_error),
               "hamming_loss": ("labels", cf.label_error_rate)}


def batch_multilabel_metric(name: str, matrices: np.ndarray, triples: np.ndarray,
                            weights: np.ndarray, kwargs: dict[str, Any], *,
                            undefined: str = "zero_division") -> np.ndarray:
    """Metric ``name`` of each state of a stack of multilabel-indicator states.

    Parameters
    ----------
    name : str
        A scalar count metric that takes multilabel-indicator input.
    matrices : array of shape (R, L, 2, 2)
        Per-label ``[[TN, FP], [FN, TP]]`` of each state.
    triples : array of shape (T, 3)
        The distinct per-sample (TP, FP, FN) triples over the labels.
    weights : array of shape (R, T)
        The total weight of each triple in each state (``average="samples"``,
        subset accuracy and the zero-one loss read these).
    kwargs, undefined
        As :func:`batch_count_metric`.

    Returns
    -------
    ndarray of shape (R,)
    """
    spec, m = _checked(name, undefined, matrices)
    kw = dict(kwargs)
    if not spec.average:
        if name not in _MULTILABEL:
            raise InputError(f"{name}: multilabel-indicator is not supported")
        source, formula = _MULTILABEL[name]
        _check_keywords(name, kw, [p for p in inspect.signature(formula).parameters
                                   if p not in ("m", "triples", "weights")])
        return formula(m, **kw) if source == "labels" else formula(triples, weights, **kw)
    ratio, title, samples = _set_formula(spec, kw)
    _check_keywords(name, kw, _SET_KEYWORDS)
    average = kw.get("average", "binary")
    if average != "samples":
        check_option(average, "average", cf.AVERAGES)
        if average is None:
            raise InputError(f"{name} with average=None returns one value per label; a "
                             "resampled statistic needs a single number (choose an average)")
        return cf.set_metric(m, None, np.arange(m.shape[-3]), formula=ratio, title=title,
                             samples=samples, as_nan=undefined == "nan", multilabel=True,
                             **kw)
    if kw.get("labels") is not None:
        raise InputError("average='samples' of multilabel counts takes every label; select "
                         "the columns before counting")
    zero_division = check_zero_division(kw.get("zero_division", "warn"))
    num, den = ratio(cf.sample_counts(triples, m.shape[-3]))
    values = cf.ratio_values(num, den, zero_division, title=title, samples=samples,
                             single=False, samplewise=True)
    # a sample's 0/0 takes zero_division inside the mean, as in the metric itself
    weights = np.asarray(weights, dtype=np.float64)
    return cf.average_values(np.broadcast_to(values, weights.shape), den,
                             np.ones(weights.shape, bool), "weighted", weights,
                             zero_division, False)


def _set_formula(spec: MetricSpec, kw: dict[str, Any]) -> tuple[Any, str, str]:
    """The per-class ratio of a set-wise metric: its registry proportion, or F-beta
    (``beta`` taken out of ``kw``)."""
    if spec.proportion is not None:
        return (partial(cf.proportion, spec.proportion), spec.name,
                cf.samples_called(spec.proportion[1]))
    beta = cf.check_beta(kw.pop("beta", 1.0)) if "beta" in \
        inspect.signature(spec.function).parameters else 1.0
    return partial(cf.fbeta, beta), spec.name, ""


def _check_keywords(name: str, kw: dict[str, Any], allowed: Any) -> None:
    extra = set(kw) - set(allowed)
    if extra:
        raise InputTypeError(f"{name} got unexpected keyword argument(s) {sorted(extra)}")
