"""Regression metrics, the mergeable :class:`RegressionMoments` and the error distribution.

Errors are ``e = y_true - y_pred`` (positive when the model under-predicts).

Speed: the moment-based metrics (MSE, RMSE, MAE, R^2, explained variance, MAPE,
WMAPE, max error) read the data once, in cache-sized blocks: each block's error
is written into a small reused buffer and reduced there (``vdot(e, e)`` for sums
of squares), so no array of the data's size is allocated. Means and second moments
are combined over blocks with Chan's parallel formula, which is also how
:class:`RegressionMoments` merges, so the functions and the state share one
kernel (:func:`_block_moments`). Finiteness is checked for free: a NaN or infinite
input makes the result non-finite, and only then are the inputs inspected to name
the culprit.

``multioutput`` (2-D targets) is "raw_values", "uniform_average",
"variance_weighted" (R^2 and explained variance) or an array of output weights,
as scikit-learn.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._numeric import vdot
from dartboard._results import Result
from dartboard._validation import (
    as_float_array,
    check_bool,
    check_consistent_length,
    check_sample_weight,
    describe,
)
from dartboard.exceptions import InputError, InputTypeError
from dartboard.metrics._confusion import UndefinedMetricWarning
from dartboard.metrics._docs import documented
from dartboard.metrics._mergeable import check_same_kind, resolve_metric

__all__ = [
    "ErrorDistribution",
    "RegressionMoments",
    "error_distribution",
    "explained_variance_score",
    "max_error",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "median_absolute_deviation",
    "median_absolute_error",
    "r2_score",
    "root_mean_squared_error",
    "weighted_mean_absolute_percentage_error",
]

_EPS = np.finfo(np.float64).eps
_BLOCK = 1 << 15  # 256 KiB of float64 per buffer: two buffers stay in L2 cache
_MULTIOUTPUT = ("raw_values", "uniform_average", "variance_weighted")
# sums of squares below this may hold squares that underflowed (float64's normal
# range ends at 2^-1022; a margin for sums of many small squares)
_TINY_SQUARES = 2.0 ** -600

# Quantities the block kernel can produce (weighted by sample_weight when given).
_ALL = frozenset({"sse", "sae", "sape", "sat", "max", "moments_true", "moments_error"})


# ------------------------------------------------------------------ validation

def _regression_iv(y_true: Any, y_pred: Any, sample_weight: Any, multioutput: Any, *,
                   positive_weight: bool = True, allow_negative: bool = True,
                   scale_free: bool = True
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, Any]:
    """Float64 targets of shape (n,) or (n, k), weights and checked ``multioutput``.

    Finiteness is not checked here (see :func:`_finite_or_raise`).
    ``positive_weight``: all-zero weights are an error (a metric of no weighted
    sample is meaningless); a state's batch may have them. ``allow_negative``:
    negative weights are accepted, as scikit-learn's regression metrics accept
    them (the mergeable state refuses them: its parts' weights must be positive).
    """
    t = as_float_array(y_true, name="y_true", ndim=(1, 2), allow_nan=True)
    p = as_float_array(y_pred, name="y_pred", ndim=(1, 2), allow_nan=True)
    if t.ndim == 2 and t.shape[1] == 1:
        t = t[:, 0]
    if p.ndim == 2 and p.shape[1] == 1:
        p = p[:, 0]
    n = check_consistent_length(("y_true", t), ("y_pred", p))
    k_true = 1 if t.ndim == 1 else t.shape[1]
    k_pred = 1 if p.ndim == 1 else p.shape[1]
    if k_true != k_pred:
        raise InputError(f"y_true and y_pred have different numbers of outputs "
                         f"({k_true} != {k_pred}); shapes {t.shape} and {p.shape}")
    w = check_sample_weight(sample_weight, n, allow_negative=allow_negative,
                            scale_free=scale_free)
    if w is not None and w.dtype.kind in "iu":
        w = w.astype(np.float64)  # integer sums of large weights would wrap around
    if positive_weight and w is not None and not np.any(w):
        _check_weight_sum({"weight": 0.0})
    if isinstance(multioutput, str):
        if multioutput not in _MULTIOUTPUT:
            raise InputError(f"multioutput must be one of {list(_MULTIOUTPUT)!r} or an "
                             f"array of output weights; got {multioutput!r}")
    elif multioutput is not None:
        multioutput = as_float_array(multioutput, name="multioutput")
        if k_true == 1:
            raise InputError("multioutput weights are useful only with several outputs; "
                             "y_true has one")
        if multioutput.shape[0] != k_true:
            raise InputError(f"multioutput must have one weight per output ({k_true}); got "
                             f"{multioutput.shape[0]}")
    return t, p, w, multioutput


def _finite_or_raise(t: np.ndarray, p: np.ndarray) -> None:
    """Called when a result is not finite: name the input that holds NaN/inf."""
    as_float_array(t, name="y_true", ndim=t.ndim)
    as_float_array(p, name="y_pred", ndim=p.ndim)


def _columns(a: np.ndarray) -> list[np.ndarray]:
    return [a] if a.ndim == 1 else [np.ascontiguousarray(a[:, j]) for j in range(a.shape[1])]


# ------------------------------------------------------------------ the block kernel

def _combine_moments(weight: np.ndarray, mean: np.ndarray, m2: np.ndarray
                     ) -> tuple[float, float, float]:
    """Chan et al.'s parallel combination of (weight, mean, M2) of several parts."""
    total = float(weight.sum())
    if total == 0:
        return 0.0, 0.0, 0.0
    grand = float((weight * mean).sum() / total)
    delta = mean - grand
    return total, grand, float(m2.sum() + (weight * delta * delta).sum())


# Sums of squares use np.dot on chunks of at most _DOT_CHUNK elements: OpenBLAS
# runs a dot product of more than 10,000 elements on several threads, whose start-up
# latency varies wildly on a busy machine; below that it runs on the calling thread
# and is about twice as fast as squaring into a buffer and summing.
_DOT_CHUNK = 8192


# row-wise dot products in one call (numpy >= 2.0), each row a single-threaded BLAS dot
_rows_dot = getattr(np, "vecdot", None) or (lambda a, b: np.einsum("ij,ij->i", a, b))


def _dot(x: np.ndarray, y: np.ndarray) -> float:
    n = x.shape[0]
    if n <= _DOT_CHUNK:
        return float(vdot(x, y))
    rows = n // _DOT_CHUNK
    cut = rows * _DOT_CHUNK
    total = float(_rows_dot(x[:cut].reshape(rows, _DOT_CHUNK),
                            y[:cut].reshape(rows, _DOT_CHUNK)).sum())
    if cut < n:
        total += float(vdot(x[cut:], y[cut:]))
    return total


def _weighted_sum(x: np.ndarray, w: np.ndarray, out: np.ndarray) -> float:
    return np.multiply(x, w, out=out).sum()


def _weighted_square_sum(x: np.ndarray, w: np.ndarray | None, out: np.ndarray) -> float:
    """sum w x^2 (sum x^2 without weights); ``out`` is scratch and must not alias ``x``."""
    if w is None:
        return _dot(x, x)
    return _dot(np.multiply(x, w, out=out), x)


def _block_moments(t: np.ndarray, p: np.ndarray, w: np.ndarray | None,
                   need: frozenset[str]) -> dict[str, float]:
    """Sums over 1-D data, computed block by block in two small reused buffers.

    Keys (all weighted by ``w`` when given): ``n``, ``weight``; ``sse`` sum e^2,
    ``sae`` sum |e|, ``sape`` sum |e| / max(|y|, eps), ``sat`` sum |y|, ``max``
    max |e|; ``moments_true`` / ``moments_error`` add ``mean_true, m2_true`` /
    ``mean_error, m2_error`` (M2 = sum w (x - mean)^2).
    """
    n = t.shape[0]
    n_blocks = max(1, -(-n // _BLOCK))
    size = min(_BLOCK, n)
    buf, tmp = np.empty(size), np.empty(size)
    acc = {key: np.zeros(n_blocks) for key in _BLOCK_KEYS}
    block_weight = np.zeros(n_blocks)
    do_sse, do_sat = "sse" in need, "sat" in need
    do_true, do_error = "moments_true" in need, "moments_error" in need
    do_abs = bool(need & {"sae", "sape", "max"})
    for b in range(n_blocks):
        lo = b * _BLOCK
        hi = min(n, lo + _BLOCK)
        m = hi - lo
        tb = t[lo:hi]
        e = np.subtract(tb, p[lo:hi], out=buf[:m])
        scratch = tmp[:m]
        wb = None if w is None else w[lo:hi]
        wsum = float(m) if wb is None else float(wb.sum())
        block_weight[b] = wsum
        if do_error and wsum > 0:
            acc["mean_error"][b], acc["m2_error"][b] = _mean_m2(e, wb, wsum, scratch)
        if do_sse:
            acc["sse"][b] = _weighted_square_sum(e, wb, scratch)
        if do_true and wsum > 0:
            acc["mean_true"][b], acc["m2_true"][b] = _mean_m2(tb, wb, wsum, scratch)
        if do_abs:
            _absolute_sums(acc, b, np.abs(e, out=e), tb, wb, scratch, need)
        if do_sat:
            a = np.abs(tb, out=buf[:m])
            acc["sat"][b] = a.sum() if wb is None else _weighted_sum(a, wb, scratch)
    return _block_totals(acc, block_weight, n, need)


#: the per-block sums of :func:`_block_moments`
_BLOCK_KEYS = ("sse", "sae", "sape", "sat", "max", "mean_true", "m2_true", "mean_error",
               "m2_error")


def _absolute_sums(acc: dict[str, np.ndarray], b: int, a: np.ndarray, tb: np.ndarray,
                   wb: np.ndarray | None, scratch: np.ndarray, need: frozenset[str]) -> None:
    """Block ``b``'s max, sum and relative sum of the absolute errors ``a``."""
    if "max" in need:
        acc["max"][b] = a.max()
    if "sae" in need:
        acc["sae"][b] = a.sum() if wb is None else _weighted_sum(a, wb, scratch)
    if "sape" in need:
        ratio = np.abs(tb, out=scratch)
        np.maximum(ratio, _EPS, out=ratio)
        np.divide(a, ratio, out=ratio)
        acc["sape"][b] = ratio.sum() if wb is None else _weighted_sum(ratio, wb, ratio)


def _block_totals(acc: dict[str, np.ndarray], block_weight: np.ndarray, n: int,
                  need: frozenset[str]) -> dict[str, float]:
    """The blocks' sums added up (the moments combined) into :func:`_block_moments`'s
    keys."""
    out: dict[str, float] = {"n": float(n), "weight": float(block_weight.sum())}
    for key in ("sse", "sae", "sape", "sat"):
        if key in need:
            out[key] = float(acc[key].sum())
    if "max" in need:
        out["max"] = float(acc["max"].max())
    if "moments_true" in need:
        _, out["mean_true"], out["m2_true"] = _combine_moments(
            block_weight, acc["mean_true"], acc["m2_true"])
    if "moments_error" in need:
        _, out["mean_error"], out["m2_error"] = _combine_moments(
            block_weight, acc["mean_error"], acc["m2_error"])
    return out


def _signed_weight_sums(t: np.ndarray, p: np.ndarray, w: np.ndarray,
                        need: frozenset[str]) -> dict[str, float]:
    """The sums of :func:`_block_moments` over whole arrays, for weights of any sign."""
    e = t - p
    a = np.abs(e)
    weight = float(w.sum())
    out: dict[str, float] = {"n": float(t.shape[0]), "weight": weight,
                             "sse": float(vdot(w * e, e)), "sae": float(vdot(w, a)),
                             "sape": float(vdot(w, a / np.maximum(np.abs(t), _EPS))),
                             "sat": float(vdot(w, np.abs(t))), "max": float(a.max())}
    for key, x in (("true", t), ("error", e)):
        if weight == 0:
            _check_weight_sum(out)
        mean = float(vdot(w, x)) / weight
        d = x - mean
        out[f"mean_{key}"], out[f"m2_{key}"] = mean, float(vdot(w * d, d))
    return out


def _mean_m2(x: np.ndarray, wb: np.ndarray | None, wsum: float, out: np.ndarray
             ) -> tuple[float, float]:
    """Weighted mean and M2 = sum w (x - mean)^2 of one block (wsum > 0)."""
    # multiply-then-sum (not dot) so that a constant x gives its mean exactly
    mean = (x.sum() if wb is None else np.multiply(x, wb, out=out).sum()) / wsum
    d = np.subtract(x, mean, out=out)
    if wb is None:
        return mean, _dot(d, d)
    return mean, _dot(d * wb, d)


def _per_output(t: np.ndarray, p: np.ndarray, w: np.ndarray | None,
                need: frozenset[str]) -> list[dict[str, float]]:
    """Kernel sums for each output column; raises on NaN/inf inputs."""
    # blocks' weights must be positive for their moments to combine: negative weights
    # take whole-array sums (scikit-learn's formulas, rare enough for the temporaries)
    if w is not None and w.min() < 0:
        results = [_signed_weight_sums(tc, pc, w, need)
                   for tc, pc in zip(_columns(t), _columns(p))]
    else:
        results = [_block_moments(tc, pc, w, need) for tc, pc in zip(_columns(t), _columns(p))]
    for r in results:
        if not all(math.isfinite(v) for v in r.values()):
            _finite_or_raise(t, p)
    return results


def _aggregate(values: np.ndarray, multioutput: Any) -> Any:
    if isinstance(multioutput, str):
        if multioutput == "raw_values":
            return values
        return float(np.mean(values))
    return float(np.average(values, weights=multioutput))


def _check_weight_sum(r: dict[str, float]) -> float:
    if r["weight"] == 0:
        raise InputError("sample_weight sums to zero; at least one sample needs a "
                         "positive weight")
    return r["weight"]


# ------------------------------------------------------------------ formulas on sums

def _mse(r: dict[str, float]) -> float:
    return r["sse"] / _check_weight_sum(r)


def _mae(r: dict[str, float]) -> float:
    return r["sae"] / _check_weight_sum(r)


def _mape(r: dict[str, float]) -> float:
    return r["sape"] / _check_weight_sum(r)


def _wmape(r: dict[str, float]) -> float:
    if r["sat"] == 0:
        warnings.warn("weighted_mean_absolute_percentage_error: sum |y_true| is 0; the "
                      "denominator is replaced by machine epsilon (as MAPE does per "
                      "sample), so the value is 0 for perfect predictions and huge "
                      "otherwise", UndefinedMetricWarning, stacklevel=4)
    return r["sae"] / max(r["sat"], _EPS)


def _explained_fraction(numerator: np.ndarray, denominator: np.ndarray, multioutput: Any,
                        force_finite: bool) -> Any:
    """scikit-learn's assembly of 1 - numerator / denominator over outputs."""
    force_finite = check_bool(force_finite, "force_finite")
    nonzero_den = denominator != 0
    if not force_finite:
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = 1 - numerator / denominator
    else:
        nonzero_num = numerator != 0
        scores = np.ones(numerator.shape[0])
        valid = nonzero_den & nonzero_num
        scores[valid] = 1 - numerator[valid] / denominator[valid]
        scores[nonzero_num & ~nonzero_den] = 0.0
    if isinstance(multioutput, str):
        if multioutput == "raw_values":
            return scores
        weights = None
        if multioutput == "variance_weighted" and nonzero_den.any():
            weights = denominator
    else:
        weights = multioutput
    return float(np.average(scores, weights=weights))


def _r2_parts(results: list[dict[str, float]]) -> tuple[np.ndarray, np.ndarray]:
    return (np.array([r["sse"] for r in results]), np.array([r["m2_true"] for r in results]))


def _ev_parts(results: list[dict[str, float]]) -> tuple[np.ndarray, np.ndarray]:
    return (np.array([r["m2_error"] for r in results]),
            np.array([r["m2_true"] for r in results]))


def _scaled_parts(t: np.ndarray, p: np.ndarray, w: np.ndarray | None, need: frozenset[str],
                  parts: Callable[[list[dict[str, float]]], tuple[np.ndarray, np.ndarray]],
                  multioutput: Any, name: str) -> tuple[np.ndarray, np.ndarray, Any]:
    """(numerator, denominator) sums of squares of R^2 or explained variance, and the
    ``multioutput`` to combine them with, immune to the scale of the data.

    Squares of values beyond about 1e154 overflow and those below about 1e-154
    underflow (R^2 of data at 1e200 would be nan, at 1e-200 a made-up 1.0). The
    ratio does not depend on the scale, so when a sum is not finite or so small
    that its squares lost precision, each output (and the weights) is divided by a
    power of two near its largest magnitude, which is exact, and summed again;
    ``variance_weighted`` then weighs the outputs by their denominators brought
    back to one common scale. The common case pays nothing: the check reads two
    numbers per output.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # detected below
        numerator, denominator = parts(_per_output(t, p, w, need))
    sums = np.concatenate([numerator, denominator])
    if np.all(np.isfinite(sums)) and np.all(denominator >= _TINY_SQUARES) \
            and not np.any((numerator > 0) & (numerator < _TINY_SQUARES)):
        return numerator, denominator, multioutput
    if w is not None and np.any(w):
        w = np.ldexp(w, -np.frexp(np.max(np.abs(w)))[1])
    exponents, scaled = [], []
    for tc, pc in zip(_columns(t), _columns(p)):
        exponent = int(np.frexp(max(np.max(np.abs(tc)), np.max(np.abs(pc))))[1])
        exponents.append(exponent)
        with np.errstate(under="ignore"):  # values far below the output's largest
            scaled.append(parts(_per_output(np.ldexp(tc, -exponent),
                                            np.ldexp(pc, -exponent), w, need)))
    numerator = np.concatenate([n for n, _ in scaled])
    denominator = np.concatenate([d for _, d in scaled])
    if not np.all(np.isfinite(np.concatenate([numerator, denominator]))):
        raise InputError(f"{name} cannot be computed in float64: its sums of squares "
                         "overflow even after rescaling each output")
    if isinstance(multioutput, str) and multioutput == "variance_weighted":
        relative = np.ldexp(denominator, 2 * (np.array(exponents) - max(exponents)))
        multioutput = relative if np.any(relative) else "uniform_average"
    return numerator, denominator, multioutput


def _too_few_for_r2(n: float) -> bool:
    if n < 2:
        warnings.warn("R^2 score is not well-defined with less than two samples.",
                      UndefinedMetricWarning, stacklevel=4)
        return True
    return False


# ------------------------------------------------------------------ RegressionMoments

class RegressionMoments:
    """Mergeable sufficient statistics of 1-D regression data (Chan/Welford).

    Holds, with weights ``w`` (1 without ``sample_weight``) and errors
    ``e = y_true - y_pred``: ``n`` (samples), ``weight`` (sum w), ``mean_true`` and
    ``m2_true`` (weighted mean and sum w (y - mean)^2 of y_true), ``mean_error``
    and ``m2_error`` (same for e), ``sum_abs_error`` (``sum w |e|``),
    ``sum_sq_error`` (``sum w e^2``), ``sum_abs_true`` (``sum w |y|``), ``max_abs_error``
    and ``sum_ape`` (``sum w |e| / max(|y|, eps)``). :meth:`merge` combines means and
    M2 with Chan et al.'s parallel formula, so any split of the data merges to the
    statistics of one pass (up to rounding). Median-based metrics are not
    moment-based and are not available here.

    Parameters
    ----------
    **fields : float
        Values of the statistics above (a state from :meth:`to_dict`); those not
        given are those of no data (0; ``max_abs_error`` too).

    Examples
    --------
    >>> a = RegressionMoments.from_predictions([3.0, -0.5], [2.5, 0.0])
    >>> b = RegressionMoments().update([2.0, 7.0], [2.0, 8.0])
    >>> a.merge(b).compute("mean_squared_error")
    0.375
    >>> round(a.merge(b).compute("r2_score"), 6)
    0.948608
    """

    _FIELDS = ("n", "weight", "mean_true", "m2_true", "mean_error", "m2_error",
               "sum_abs_error", "sum_sq_error", "sum_abs_true", "max_abs_error", "sum_ape")
    __slots__ = _FIELDS
    n: float
    weight: float
    mean_true: float
    m2_true: float
    mean_error: float
    m2_error: float
    sum_abs_error: float
    sum_sq_error: float
    sum_abs_true: float
    max_abs_error: float
    sum_ape: float

    def __init__(self, **fields: float) -> None:
        unknown = set(fields) - set(self._FIELDS)
        if unknown:
            raise InputTypeError(f"unknown RegressionMoments field(s): {sorted(unknown)}")
        for name in self._FIELDS:
            setattr(self, name, float(fields.get(name, 0.0)))

    @classmethod
    def from_predictions(cls, y_true: ArrayLike, y_pred: ArrayLike, *,
                         sample_weight: ArrayLike | None = None) -> RegressionMoments:
        """Statistics of one batch of 1-D targets (an empty batch gives an empty state).

        Parameters
        ----------
        y_true, y_pred : array-like of shape (n_samples,)
            True and predicted values.
        sample_weight : array-like of shape (n_samples,), optional
            Sample weights.

        Returns
        -------
        RegressionMoments
            The statistics of the batch.
        """
        if (as_float_array(y_true, name="y_true", ndim=(1, 2), allow_empty=True,
                           allow_nan=True).size == 0
                and as_float_array(y_pred, name="y_pred", ndim=(1, 2), allow_empty=True,
                                   allow_nan=True).size == 0):
            return cls()
        t, p, w, _ = _regression_iv(y_true, y_pred, sample_weight, "uniform_average",
                                    positive_weight=False, allow_negative=False,
                                    scale_free=False)
        if t.ndim != 1:
            raise InputError(f"RegressionMoments holds 1-D targets; got y_true of shape "
                             f"{t.shape} (keep one state per output)")
        r = _per_output(t, p, w, _ALL)[0]
        return cls(n=r["n"], weight=r["weight"], mean_true=r["mean_true"],
                   m2_true=r["m2_true"], mean_error=r["mean_error"], m2_error=r["m2_error"],
                   sum_abs_error=r["sae"], sum_sq_error=r["sse"], sum_abs_true=r["sat"],
                   max_abs_error=r["max"], sum_ape=r["sape"])

    def update(self, y_true: ArrayLike, y_pred: ArrayLike, sample_weight: ArrayLike | None = None
               ) -> RegressionMoments:
        """Add a batch in place and return ``self``.

        Parameters
        ----------
        y_true, y_pred : array-like of shape (n_samples,)
            True and predicted values.
        sample_weight : array-like of shape (n_samples,), optional
            Sample weights.

        Returns
        -------
        RegressionMoments
            ``self``, with the batch added.
        """
        merged = self.merge(RegressionMoments.from_predictions(
            y_true, y_pred, sample_weight=sample_weight))
        for name in self._FIELDS:
            setattr(self, name, getattr(merged, name))
        return self

    def merge(self, other: RegressionMoments) -> RegressionMoments:
        """Return the statistics of both parts (Chan's parallel formula for M2).

        Parameters
        ----------
        other : RegressionMoments
            The statistics of other data.

        Returns
        -------
        RegressionMoments
            The statistics of both.
        """
        check_same_kind(self, other)
        weight = np.array([self.weight, other.weight])
        out = {name: getattr(self, name) + getattr(other, name)
               for name in ("n", "sum_abs_error", "sum_sq_error", "sum_abs_true", "sum_ape")}
        out["max_abs_error"] = max(self.max_abs_error, other.max_abs_error)
        for part in ("true", "error"):
            mean = np.array([getattr(self, f"mean_{part}"), getattr(other, f"mean_{part}")])
            m2 = np.array([getattr(self, f"m2_{part}"), getattr(other, f"m2_{part}")])
            out["weight"], out[f"mean_{part}"], out[f"m2_{part}"] = \
                _combine_moments(weight, mean, m2)
        return RegressionMoments(**out)

    def _sums(self) -> dict[str, float]:
        return {"n": self.n, "weight": self.weight, "sse": self.sum_sq_error,
                "sae": self.sum_abs_error, "sape": self.sum_ape, "sat": self.sum_abs_true,
                "max": self.max_abs_error, "m2_true": self.m2_true,
                "m2_error": self.m2_error}

    def compute(self, metric: str | Callable[..., Any], **kwargs: Any) -> float:
        """Compute a moment-based metric, e.g. ``compute("r2_score", force_finite=False)``.

        ``metric``: "mean_squared_error", "root_mean_squared_error",
        "mean_absolute_error", "r2_score", "explained_variance_score" (keyword
        ``force_finite``), "mean_absolute_percentage_error",
        "weighted_mean_absolute_percentage_error" or "max_error".

        Parameters
        ----------
        metric : str or callable
            The metric's name or function.
        **kwargs
            Its keywords (``force_finite``).

        Returns
        -------
        float
            The metric of the data seen.
        """
        impl = resolve_metric(_FROM_MOMENTS, metric)
        if self.n == 0:
            raise InputError("RegressionMoments is empty; update it with data first")
        return impl(self._sums(), **kwargs)

    def error_bound(self, metric: str | Callable[..., Any]) -> float:
        """0.0: the moments are exact (up to the rounding of Chan's merge formula).

        Parameters
        ----------
        metric : str or callable
            The metric.

        Returns
        -------
        float
            Always 0.0.
        """
        resolve_metric(_FROM_MOMENTS, metric)
        return 0.0

    def __repr__(self) -> str:
        return (f"RegressionMoments(n={self.n:g}, weight={self.weight:g}, "
                f"mean_true={self.mean_true:.6g}, sum_sq_error={self.sum_sq_error:.6g})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RegressionMoments) and all(
            getattr(self, f) == getattr(other, f) for f in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable state

    def to_dict(self) -> dict[str, float]:
        """The statistics as a plain dict (for JSON or transport between workers).

        Returns
        -------
        dict
            Statistic name -> value.
        """
        return {name: getattr(self, name) for name in self._FIELDS}


def _r2_from(r: dict[str, float], force_finite: bool = True) -> float:
    if _too_few_for_r2(r["n"]):
        return float("nan")
    return _explained_fraction(np.array([r["sse"]]), np.array([r["m2_true"]]),
                               "uniform_average", force_finite)


def _ev_from(r: dict[str, float], force_finite: bool = True) -> float:
    return _explained_fraction(np.array([r["m2_error"]]), np.array([r["m2_true"]]),
                               "uniform_average", force_finite)


_FROM_MOMENTS: dict[str, Callable[..., float]] = {
    "mean_squared_error": _mse,
    "root_mean_squared_error": lambda r: math.sqrt(_mse(r)),
    "mean_absolute_error": _mae,
    "r2_score": _r2_from,
    "explained_variance_score": _ev_from,
    "mean_absolute_percentage_error": _mape,
    "weighted_mean_absolute_percentage_error": _wmape,
    "max_error": lambda r: r["max"],
}


# ------------------------------------------------------------------ metric functions

def _simple(name: str, need: str, formula: Callable[[dict[str, float]], float],
            y_true: Any, y_pred: Any, sample_weight: Any, multioutput: Any,
            transform: Callable[[np.ndarray], np.ndarray] | None = None) -> Any:
    t, p, w, multioutput = _regression_iv(y_true, y_pred, sample_weight, multioutput)
    if isinstance(multioutput, str) and multioutput == "variance_weighted":
        raise InputError(f"multioutput='variance_weighted' is not available for {name}; "
                         "use 'raw_values', 'uniform_average' or an array of weights")
    values = np.array([formula(r) for r in _per_output(t, p, w, frozenset({need}))])
    if transform is not None:
        values = transform(values)
    return _aggregate(values, multioutput)


@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The mean squared error; one per "
            "output with ``multioutput='raw_values'``.",
)
def mean_squared_error(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                       multioutput: Any = "uniform_average") -> float | np.ndarray:
    """Mean squared error ``sum_i w_i e_i^2 / sum_i w_i``.

    Drop-in for ``sklearn.metrics.mean_squared_error``; ``multioutput`` is
    "raw_values", "uniform_average" or an array of output weights.

    Examples
    --------
    >>> mean_squared_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.375
    """
    return _simple("mean_squared_error", "sse", _mse, y_true, y_pred, sample_weight,
                   multioutput)


@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The root mean squared error; one "
            "per output with ``multioutput='raw_values'``.",
)
def root_mean_squared_error(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                            multioutput: Any = "uniform_average") -> float | np.ndarray:
    """Root mean squared error, per output ``sqrt(MSE)`` (then averaged over outputs).

    Drop-in for ``sklearn.metrics.root_mean_squared_error``.

    Examples
    --------
    >>> round(root_mean_squared_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 6)
    0.612372
    """
    return _simple("root_mean_squared_error", "sse", _mse, y_true, y_pred, sample_weight,
                   multioutput, transform=np.sqrt)


@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The mean absolute error; one per "
            "output with ``multioutput='raw_values'``.",
)
def mean_absolute_error(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                        multioutput: Any = "uniform_average") -> float | np.ndarray:
    """Mean absolute error ``sum_i w_i |e_i| / sum_i w_i``.

    Drop-in for ``sklearn.metrics.mean_absolute_error``.

    Examples
    --------
    >>> mean_absolute_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    """
    return _simple("mean_absolute_error", "sae", _mae, y_true, y_pred, sample_weight,
                   multioutput)


@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The MAPE, a fraction; one per "
            "output with ``multioutput='raw_values'``.",
)
def mean_absolute_percentage_error(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                                   multioutput: Any = "uniform_average") -> float | np.ndarray:
    """MAPE ``mean_i |e_i| / max(|y_i|, eps)`` as a fraction (not percent).

    ``eps = np.finfo(np.float64).eps``: a zero target gives a huge but finite term,
    as scikit-learn. Drop-in for ``sklearn.metrics.mean_absolute_percentage_error``.

    Examples
    --------
    >>> round(mean_absolute_percentage_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 6)
    0.327381
    """
    return _simple("mean_absolute_percentage_error", "sape", _mape, y_true, y_pred,
                   sample_weight, multioutput)


@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The WMAPE, a fraction; one per "
            "output with ``multioutput='raw_values'``.",
)
def weighted_mean_absolute_percentage_error(y_true: ArrayLike, y_pred: ArrayLike, *,
                                            sample_weight: ArrayLike | None = None,
                                            multioutput: Any = "uniform_average") -> float | np.ndarray:
    """WMAPE ("modified MAPE") ``sum_i w_i |e_i| / sum_i w_i |y_i|``, a fraction.

    Unlike MAPE, small targets do not blow the value up: it is the total absolute
    error relative to the total absolute target. If ``sum |y| = 0`` the denominator
    is replaced by machine epsilon (0 for perfect predictions, huge otherwise) with
    an :class:`UndefinedMetricWarning`.

    Examples
    --------
    >>> weighted_mean_absolute_percentage_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.16
    """
    t, p, w, multioutput = _regression_iv(y_true, y_pred, sample_weight, multioutput)
    if isinstance(multioutput, str) and multioutput == "variance_weighted":
        raise InputError("multioutput='variance_weighted' is not available for "
                         "weighted_mean_absolute_percentage_error")
    values = np.array([_wmape(r) for r in _per_output(t, p, w, frozenset({"sae", "sat"}))])
    return _aggregate(values, multioutput)


@documented(
    returns="float\n    The largest absolute error.",
)
def max_error(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Largest absolute error ``max_i |e_i|`` (1-D targets only).

    Drop-in for ``sklearn.metrics.max_error``.

    Examples
    --------
    >>> max_error([3, 2, 7, 1], [4, 2, 7, 1])
    1.0
    """
    t, p, _, _ = _regression_iv(y_true, y_pred, None, "uniform_average")
    if t.ndim != 1:
        raise InputError(f"max_error does not support multioutput targets; got y_true of "
                         f"shape {t.shape}")
    return _per_output(t, p, None, frozenset({"max"}))[0]["max"]


@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The R^2; one per output with "
            "``multioutput='raw_values'``.",
    force_finite=("bool",
                  "Replace the NaN or -inf of a constant ``y_true`` by 1.0 (perfect) or "
                  "0.0."),
)
def r2_score(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
             multioutput: Any = "uniform_average", force_finite: bool = True) -> float | np.ndarray:
    """Coefficient of determination ``R^2 = 1 - SS_res / SS_tot``.

    ``SS_res = sum w e^2``, ``SS_tot = sum w (y - mean_w(y))^2``. With
    ``force_finite`` (default, as scikit-learn) a constant ``y_true`` gives 1.0 for
    perfect predictions and 0.0 otherwise instead of nan/-inf. Fewer than two
    samples: nan with an UndefinedMetricWarning. Drop-in for
    ``sklearn.metrics.r2_score``.

    Examples
    --------
    >>> round(r2_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 6)
    0.948608
    """
    t, p, w, multioutput = _regression_iv(y_true, y_pred, sample_weight, multioutput)
    if _too_few_for_r2(t.shape[0]):
        return float("nan")
    numerator, denominator, multioutput = _scaled_parts(
        t, p, w, frozenset({"sse", "moments_true"}), _r2_parts, multioutput, "r2_score")
    return _explained_fraction(numerator, denominator, multioutput, force_finite)


@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The explained variance; one per "
            "output with ``multioutput='raw_values'``.",
    force_finite=("bool",
                  "Replace the NaN or -inf of a constant ``y_true`` by 1.0 (perfect) or "
                  "0.0."),
)
def explained_variance_score(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                             multioutput: Any = "uniform_average",
                             force_finite: bool = True) -> float | np.ndarray:
    """Explained variance ``1 - Var_w(e) / Var_w(y_true)``.

    Equals R^2 when the errors have mean zero. ``force_finite`` as in
    :func:`r2_score`. Drop-in for ``sklearn.metrics.explained_variance_score``.

    Examples
    --------
    >>> round(explained_variance_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 6)
    0.957173
    """
    t, p, w, multioutput = _regression_iv(y_true, y_pred, sample_weight, multioutput)
    numerator, denominator, multioutput = _scaled_parts(
        t, p, w, frozenset({"moments_error", "moments_true"}), _ev_parts, multioutput,
        "explained_variance_score")
    return _explained_fraction(numerator, denominator, multioutput, force_finite)


# ------------------------------------------------------------------ medians

def _weighted_median(a: np.ndarray, w: np.ndarray) -> float:
    """scikit-learn's weighted 50th percentile with ``average=True``."""
    return weighted_quantile(a, w, 0.5)


def weighted_quantile(a: np.ndarray, w: np.ndarray | None, alpha: float) -> float:
    """scikit-learn's weighted ``100 alpha``-th percentile with ``average=True``.

    Sorted values ``a_(i)`` with cumulative weights ``C_i`` and total ``W``: the
    first ``i`` with ``C_i >= alpha W`` (a target of 0 is nudged up, so leading
    zero weights are skipped); if ``C_i`` equals the target (within eps) the mean
    of ``a_(i)`` and the next value of positive weight. Without weights
    (``w=None``, all ones) ``C_i = i + 1``: two order statistics found by
    selection, without a sort.
    """
    if w is None:
        n = a.shape[0]
        target = (alpha * 100) / 100 * n
        if target == 0:
            target = np.nextafter(target, 1.0)
        i = min(max(math.ceil(target) - 1, 0), n - 1)
        j = min(i + 1, n - 1)
        if (i + 1) - target > _EPS:
            return float(np.partition(a, i)[i])
        low, high = np.partition(a, (i, j))[[i, j]]
        return float((low + high) / 2)
    w = w.astype(np.float64, copy=False)
    if not np.any(w):
        return float("nan")
    order = np.argsort(a)
    sorted_a, sorted_w = a[order], w[order]
    cdf = np.cumsum(sorted_w)
    target = (alpha * 100) / 100 * cdf[-1]  # scikit-learn's rounding of the rank
    if target == 0:
        target = np.nextafter(target, 1.0)
    last = a.shape[0] - 1
    i = min(int(np.searchsorted(cdf, target)), last)
    if cdf[i] - target > _EPS:
        return float(sorted_a[i])
    j = min(i + 1, last)
    if sorted_w[j] == 0:
        j = int(np.searchsorted(cdf, cdf[i], side="right"))
        if j > last:
            j = i
    return float((sorted_a[i] + sorted_a[j]) / 2)


def _median(a: np.ndarray, w: np.ndarray | None) -> float:
    return float(np.median(a)) if w is None else _weighted_median(a, w)


def _median_metric(y_true: Any, y_pred: Any, sample_weight: Any, multioutput: Any,
                   per_column: Callable[[np.ndarray, np.ndarray | None], float]) -> Any:
    t, p, w, multioutput = _regression_iv(y_true, y_pred, sample_weight, multioutput)
    if isinstance(multioutput, str) and multioutput == "variance_weighted":
        raise InputError("multioutput='variance_weighted' is only available for r2_score "
                         "and explained_variance_score")
    e = t - p
    if not np.isfinite(e.sum()):
        _finite_or_raise(t, p)
    values = np.array([per_column(col, w) for col in _columns(e)])
    return _aggregate(values, multioutput)


@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The median absolute error; one "
            "per output with ``multioutput='raw_values'``.",
)
def median_absolute_error(y_true: ArrayLike, y_pred: ArrayLike, *, multioutput: Any = "uniform_average",
                          sample_weight: ArrayLike | None = None) -> float | np.ndarray:
    """Median absolute error ``median_i |e_i|`` (weighted median with weights).

    Drop-in for ``sklearn.metrics.median_absolute_error``; the weighted median
    follows scikit-learn (midpoint when the cumulative weight hits exactly half).

    Examples
    --------
    >>> median_absolute_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    """
    return _median_metric(y_true, y_pred, sample_weight, multioutput,
                          lambda e, w: _median(np.abs(e), w))


@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The median absolute deviation of "
            "the errors; one per output with ``multioutput='raw_values'``.",
)
def median_absolute_deviation(y_true: ArrayLike, y_pred: ArrayLike, *,
                              multioutput: Any = "uniform_average",
                              sample_weight: ArrayLike | None = None) -> float | np.ndarray:
    """Median absolute deviation of the errors ``median_i |e_i - median(e)|``.

    A robust spread of the errors around their own median (so a constant bias
    does not count, unlike :func:`median_absolute_error`). Not scaled to a
    normal standard deviation (multiply by 1.4826 for that). With weights both
    medians are weighted.

    Examples
    --------
    >>> median_absolute_deviation([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    """
    def mad(e: np.ndarray, w: np.ndarray | None) -> float:
        center = _median(e, w)
        return _median(np.abs(e - center), w)
    return _median_metric(y_true, y_pred, sample_weight, multioutput, mad)


# ------------------------------------------------------------------ error distribution

@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class ErrorDistribution(Result):
    """Empirical distribution of the errors ``e = y_true - y_pred``.

    ``errors`` is sorted ascending, so every query is a binary search:
    :meth:`cdf`, :meth:`quantile`, :meth:`fraction_within` ("99% of the errors
    are within 0.1"), :meth:`histogram` and :meth:`kde` (binned, FFT-based, for
    millions of points). ``to_dict()`` gives a summary, not the errors.

    Parameters
    ----------
    errors : ndarray of shape (n_samples,)
        The errors, sorted ascending.

    Examples
    --------
    >>> dist = error_distribution([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0])
    >>> dist.errors.tolist()
    [-1.0, -0.5, 0.0, 0.5]
    >>> dist.fraction_within(0.5), dist.quantile(0.5)
    (0.75, -0.25)
    """

    errors: np.ndarray

    _repr_fields = ("n",)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ErrorDistribution) and np.array_equal(self.errors,
                                                                       other.errors)

    __hash__ = None  # type: ignore[assignment]  # holds an array

    @property
    def n(self) -> int:
        """Number of errors."""
        return int(self.errors.shape[0])

    def cdf(self, x: Any) -> Any:
        """Fraction of errors ``<= x`` (the empirical CDF); scalar or array.

        Parameters
        ----------
        x : float or array-like
            Error values.

        Returns
        -------
        float or ndarray
            The fractions.
        """
        x = np.asarray(x, dtype=np.float64)
        values = np.searchsorted(self.errors, x, side="right") / self.n
        return float(values) if values.ndim == 0 else values

    def quantile(self, q: Any) -> Any:
        """Quantiles of the errors, linear interpolation (``np.quantile``'s default).

        Parameters
        ----------
        q : float or array-like
            Probabilities in [0, 1].

        Returns
        -------
        float or ndarray
            The quantiles.
        """
        q = np.asarray(q, dtype=np.float64)
        if np.any(~np.isfinite(q)) or np.any((q < 0) | (q > 1)):
            raise InputError(f"q must lie in [0, 1]; got {q.tolist()!r}")
        h = (self.n - 1) * q
        lo = np.floor(h).astype(np.intp)
        hi = np.minimum(lo + 1, self.n - 1)
        lo_v, hi_v = self.errors[lo], self.errors[hi]
        values = lo_v + (h - lo) * (hi_v - lo_v)
        return float(values) if values.ndim == 0 else values

    def fraction_within(self, t: Any) -> Any:
        """Fraction of errors with ``|e| <= t``; scalar or array of tolerances.

        Parameters
        ----------
        t : float or array-like
            Tolerances (>= 0).

        Returns
        -------
        float or ndarray
            The fractions.
        """
        t = np.asarray(t, dtype=np.float64)
        if np.any(~(t >= 0)):
            raise InputError(f"t must be non-negative; got {t.tolist()!r}")
        inside = (np.searchsorted(self.errors, t, side="right")
                  - np.searchsorted(self.errors, -t, side="left"))
        values = inside / self.n
        return float(values) if values.ndim == 0 else values

    def histogram(self, bins: Any = "auto", *, range: Any = None,
                  density: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """``(values, edges)`` of a histogram (``np.histogram``; density by default).

        Parameters
        ----------
        bins : int, sequence or str, default="auto"
            As ``numpy.histogram``.
        range : tuple of (float, float), optional
            The lower and upper range of the bins.
        density : bool, default=True
            A density (area 1) rather than counts.

        Returns
        -------
        values : ndarray
            Density or count per bin.
        edges : ndarray
            The bin edges.
        """
        return np.histogram(self.errors, bins=bins, range=range, density=density)

    def bandwidth(self, method: Any = "scott") -> float:
        """Gaussian KDE bandwidth: "scott" ``s n^(-1/5)``, "silverman" ``s (3n/4)^(-1/5)``
        (s the sample standard deviation, as ``scipy.stats.gaussian_kde``), or a
        positive number used as is.

        Parameters
        ----------
        method : {"scott", "silverman"} or float, default="scott"
            The rule, or a bandwidth.

        Returns
        -------
        float
            The bandwidth h.
        """
        if isinstance(method, numbers.Real) and not isinstance(method, bool):
            if not float(method) > 0:
                raise InputError(f"bandwidth must be positive; got {method!r}")
            return float(method)
        if method not in ("scott", "silverman"):
            raise InputError(f"bandwidth must be 'scott', 'silverman' or a positive "
                             f"number; got {method!r}")
        if self.n < 2:
            raise InputError("a KDE needs at least two errors")
        std = float(np.std(self.errors, ddof=1))
        if std == 0:
            raise InputError("all errors are equal: the KDE bandwidth would be 0; pass "
                             "bandwidth=<positive number>")
        factor = self.n ** -0.2 if method == "scott" else (0.75 * self.n) ** -0.2
        return std * factor

    def kde(self, grid: Any = 512, *, bandwidth: Any = "scott"
            ) -> tuple[np.ndarray, np.ndarray]:
        """Gaussian kernel density of the errors: ``(x, density)``.

        ``grid`` is the number of equally spaced points over
        ``[min - 3h, max + 3h]`` or an array of points. The density is computed
        exactly on a fine regular grid of the linearly binned errors by FFT
        convolution (kernel truncated at 6h; bin width at most h/8 while the grid
        has at most 2^20 points) and interpolated to ``grid``; the binning error
        is O((bin width / h)^2) relative, far below sampling noise.

        Parameters
        ----------
        grid : int or array-like, default=512
            Number of points, or the points.
        bandwidth : {"scott", "silverman"} or float, default="scott"
            As :meth:`bandwidth`.

        Returns
        -------
        x, density : ndarray
            The points and the density there.
        """
        h = self.bandwidth(bandwidth)
        lo, hi = float(self.errors[0]), float(self.errors[-1])
        if isinstance(grid, numbers.Integral) and not isinstance(grid, bool):
            if grid < 2:
                raise InputError(f"grid must be at least 2 points; got {grid}")
            x = np.linspace(lo - 3 * h, hi + 3 * h, int(grid))
        else:
            x = as_float_array(grid, name="grid")
        return x, self._binned_density(x, h)

    def _binned_density(self, x: np.ndarray, h: float) -> np.ndarray:
        a = min(float(self.errors[0]), float(x.min())) - 6 * h
        b = max(float(self.errors[-1]), float(x.max())) + 6 * h
        m = int(min(1 << 20, max(1 << 10, math.ceil(8 * (b - a) / h))))
        delta = (b - a) / (m - 1)
        position = (self.errors - a) / delta
        left = np.minimum(position.astype(np.intp), m - 2)
        frac = position - left
        counts = (np.bincount(left, weights=1.0 - frac, minlength=m)
                  + np.bincount(left + 1, weights=frac, minlength=m))
        half = int(min(m - 1, math.ceil(6 * h / delta)))
        offsets = np.arange(-half, half + 1) * delta
        kernel = np.exp(-0.5 * (offsets / h) ** 2) / (h * math.sqrt(2 * math.pi))
        size = 1 << int(math.ceil(math.log2(m + 2 * half)))  # linear, not circular
        spectrum = np.fft.rfft(counts, size) * np.fft.rfft(kernel, size)
        density = np.fft.irfft(spectrum, size)[half:half + m] / self.n
        np.maximum(density, 0.0, out=density)  # FFT round-off can dip below zero
        return np.interp(x, a + delta * np.arange(m), density, left=0.0, right=0.0)

    def to_dict(self) -> dict[str, Any]:
        """Summary of the distribution (n, mean, std, extremes, quantiles, MAE).

        Returns
        -------
        dict
            Summary name -> value.
        """
        qs = (0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99)
        e = self.errors
        return {"n": self.n, "mean": float(e.mean()),
                "std": float(e.std(ddof=1)) if self.n > 1 else 0.0,
                "min": float(e[0]), "max": float(e[-1]),
                "mean_absolute": float(np.abs(e).mean()),
                "quantiles": {str(q): float(v) for q, v in zip(qs, self.quantile(qs))}}


@documented(
    returns="ErrorDistribution\n    The sorted errors with their CDF, quantiles and "
            "density.",
)
def error_distribution(y_true: ArrayLike, y_pred: ArrayLike) -> ErrorDistribution:
    """The distribution of the errors ``e = y_true - y_pred`` (1-D targets).

    Examples
    --------
    >>> d = error_distribution([1.0, 2.0, 3.0, 4.0], [1.1, 1.8, 3.0, 3.5])
    >>> d.fraction_within(0.2)
    0.75
    >>> d.cdf(0.0), round(d.quantile(0.5), 6)
    (0.5, 0.1)
    """
    t, p, _, _ = _regression_iv(y_true, y_pred, None, "uniform_average")
    if t.ndim != 1:
        raise InputError(f"error_distribution needs 1-D targets; got y_true of shape "
                         f"{t.shape} ({describe(y_true)})")
    e = np.subtract(t, p)
    if not np.isfinite(e.sum()):
        _finite_or_raise(t, p)
    e.sort()
    return ErrorDistribution(e)
