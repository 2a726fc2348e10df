"""Regression losses: log errors, the pinball loss, Tweedie deviances and D^2 scores.

Each metric is a weighted mean of a per-sample loss ``l(y, y_hat)``:

* squared log error ``(log1p(y) - log1p(y_hat))^2`` (targets > -1);
* pinball loss ``max(alpha e, (alpha - 1) e)`` with ``e = y - y_hat``;
* Tweedie deviance of power ``p`` (``p <= 0`` or ``p >= 1``): ``p = 0`` squared
  error, ``p = 1`` Poisson ``2 (y log(y / y_hat) - y + y_hat)``, ``p = 2`` gamma
  ``2 (log(y_hat / y) + y / y_hat - 1)``, otherwise
  ``2 (max(y, 0)^(2-p) / ((1-p)(2-p)) - y y_hat^(1-p) / (1-p) + y_hat^(2-p) / (2-p))``.

The D^2 scores are ``1 - D(y, y_hat) / D(y, null)``: the mean loss of the model over
that of the best constant (the weighted mean of ``y`` for Tweedie deviances, the
weighted ``alpha``-quantile for the pinball loss; D^2 of probabilities is in
``._d2_probabilities``). As scikit-learn's D^2 pinball score, a zero denominator gives 1.0
for perfect predictions and 0.0 otherwise; scikit-learn's Tweedie D^2 raises
``ZeroDivisionError`` there, dartboard follows the pinball convention instead.

Speed: the data are read once, in cache-sized blocks; each block's losses are
written into a small reused buffer and summed there (a dot product with the
weights), so no array of the data's size is allocated. The domain of each loss
(positive targets, ...) is checked from each block's minimum on the way.
``*_terms`` functions return the per-sample losses themselves: paired model
comparisons and streaming sums reuse them, so every route uses the same formula.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._validation import (
    InvalidParameterError,
    describe,
)
from dartboard.exceptions import InputError
from dartboard.metrics._confusion import UndefinedMetricWarning
from dartboard.metrics._docs import documented
from dartboard.metrics._regression import (
    _BLOCK,
    _aggregate,
    _columns,
    _explained_fraction,
    _finite_or_raise,
    _regression_iv,
    _weighted_sum,
    weighted_quantile,
)

__all__ = [
    "d2_absolute_error_score",
    "d2_pinball_score",
    "d2_tweedie_score",
    "mean_gamma_deviance",
    "mean_pinball_loss",
    "mean_poisson_deviance",
    "mean_squared_log_error",
    "mean_tweedie_deviance",
    "root_mean_squared_log_error",
]

# a per-sample loss written into ``out`` (the length of t); ``scratch`` is free. The
# prediction p is an array like t, or one number (the constant null model of D^2)
Term = Callable[[np.ndarray, Any, np.ndarray, np.ndarray], np.ndarray]


# ------------------------------------------------------------------ per-sample losses

def _squared_log(t: np.ndarray, p: np.ndarray, out: np.ndarray, scratch: np.ndarray
                 ) -> np.ndarray:
    np.log1p(t, out=out)
    out -= np.log1p(p, out=scratch)
    return np.square(out, out=out)


def _pinball(alpha: float) -> Term:
    def term(t: np.ndarray, p: np.ndarray, out: np.ndarray, scratch: np.ndarray
             ) -> np.ndarray:
        e = np.subtract(t, p, out=out)
        np.multiply(e, alpha - 1.0, out=scratch)
        e *= alpha
        return np.maximum(e, scratch, out=out)
    return term


def _tweedie(power: float) -> Term:
    def term(t: np.ndarray, p: np.ndarray, out: np.ndarray, scratch: np.ndarray
             ) -> np.ndarray:
        if power == 0:
            e = np.subtract(t, p, out=out)
            return np.square(e, out=e)
        if power == 1:
            # y log(y / y_hat) as scipy's xlogy: 0 where y = 0; np.log is several times
            # faster than xlogy, and the product is the same
            np.divide(t, p, out=out)
            np.log(out, out=out)
            out *= t
            if np.ndim(t) and t.min() == 0:
                out[t == 0] = 0.0
            out -= t
            out += p
        elif power == 2:
            # log(y_hat / y) + y / y_hat - 1 with r = y / y_hat: -log(r) + r - 1, one
            # division instead of two
            np.divide(t, p, out=scratch)
            np.log(scratch, out=out)
            np.subtract(scratch, out, out=out)
            out -= 1.0
        else:
            if power < 0:
                np.maximum(t, 0.0, out=out)
            else:
                out[...] = t
            np.power(out, 2 - power, out=out)
            out /= (1 - power) * (2 - power)
            if np.ndim(p) == 0:  # a constant prediction: its powers once
                q = p ** (1 - power)
                out -= t * q / (1 - power)
                out += q * p / (2 - power)
            else:  # y_hat^(2-p) = y_hat^(1-p) y_hat: one power fewer (the slow part)
                np.power(p, 1 - power, out=scratch)
                out -= t * scratch / (1 - power)
                scratch *= p
                scratch /= 2 - power
                out += scratch
        out *= 2.0
        return out
    return term


# ------------------------------------------------------------------ the block kernel

def _block_loss(t: np.ndarray, p: Any, w: np.ndarray | None, term: Term
                ) -> tuple[float, float, float, float]:
    """(sum of w l, sum of w, min y_true, min y_pred) over 1-D data, block by block."""
    n = t.shape[0]
    size = min(_BLOCK, n)
    out, scratch = np.empty(size), np.empty(size)
    total = weight = 0.0
    low_t = low_p = math.inf
    for lo in range(0, n, _BLOCK):
        hi = min(n, lo + _BLOCK)
        m = hi - lo
        tb, pb = t[lo:hi], (p if np.ndim(p) == 0 else p[lo:hi])
        low_t, low_p = min(low_t, tb.min()), min(low_p, np.min(pb))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            loss = term(tb, pb, out[:m], scratch[:m])
        if w is None:
            total += loss.sum()
            weight += m
        else:
            wb = w[lo:hi]
            total += _weighted_sum(loss, wb, loss)
            weight += wb.sum()
    return float(total), float(weight), float(low_t), float(low_p)


def _mean_losses(t: np.ndarray, p: Any, w: np.ndarray | None, term: Term,
                 domain: Callable[[float, float], None]) -> np.ndarray:
    """Weighted mean loss of each output (``p`` may be one number); checks the domain,
    then finiteness."""
    means = []
    columns = _columns(t)
    for tc, pc in zip(columns, [p] * len(columns) if np.ndim(p) == 0 else _columns(p)):
        total, weight, low_t, low_p = _block_loss(tc, pc, w, term)
        if math.isnan(low_t) or math.isnan(low_p):
            _finite_or_raise(t, np.asarray(p))
        domain(low_t, low_p)
        if not math.isfinite(total):
            _finite_or_raise(t, np.asarray(p))
        means.append(total / weight)
    return np.array(means)


def _checked_terms(t: np.ndarray, p: np.ndarray, term: Term,
                   domain: Callable[[float, float], None]) -> np.ndarray:
    """Per-sample losses of 1-D data as one array (for paired tests and streaming)."""
    low_t, low_p = float(t.min()), float(p.min())
    if math.isnan(low_t) or math.isnan(low_p):
        _finite_or_raise(t, p)
    domain(low_t, low_p)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        terms = term(t, p, np.empty(t.shape), np.empty(t.shape))
    if not np.isfinite(terms.sum()):
        _finite_or_raise(t, p)
    return terms


# ------------------------------------------------------------------ validation

def _no_variance_weighted(name: str, multioutput: Any) -> None:
    if isinstance(multioutput, str) and multioutput == "variance_weighted":
        raise InputError(f"multioutput='variance_weighted' is not available for {name}; "
                         "use 'raw_values', 'uniform_average' or an array of weights")


def _one_output(name: str, t: np.ndarray) -> None:
    if t.ndim != 1:
        raise InputError(f"Multioutput not supported in {name}; got y_true of shape "
                         f"{t.shape}")


def _check_alpha(alpha: Any, name: str) -> float:
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, numbers.Real) \
            or not 0 <= float(alpha) <= 1:
        raise InvalidParameterError(f"alpha of {name} must be a number in [0, 1]; got "
                                    f"{describe(alpha)}")
    return float(alpha)


def _check_power(power: Any, name: str) -> float:
    if isinstance(power, (bool, np.bool_)) or not isinstance(power, numbers.Real) \
            or not (float(power) <= 0 or float(power) >= 1) or not math.isfinite(power):
        raise InvalidParameterError(f"power of {name} must be a number <= 0 or >= 1; got "
                                    f"{describe(power)}")
    return float(power)


def _log_domain_of(title: str) -> Callable[[float, float], None]:
    def check(low_t: float, low_p: float) -> None:
        if low_t <= -1 or low_p <= -1:
            # scikit-learn's sentence first: its tests (and users' scorer error
            # dicts) look for it verbatim
            raise InputError(f"{title} cannot be used when targets contain values less "
                             f"than or equal to -1. The minimum of y_true is {low_t!r}, "
                             f"of y_pred {low_p!r}.")
    return check


_log_domain = _log_domain_of("Mean Squared Logarithmic Error")
_root_log_domain = _log_domain_of("Root Mean Squared Logarithmic Error")


def _tweedie_domain(power: float) -> Callable[[float, float], None]:
    def check(low_t: float, low_p: float) -> None:
        message = f"Mean Tweedie deviance error with power={power:g} can only be used on "
        if power < 0 and low_p <= 0:
            raise InputError(message + f"strictly positive y_pred (minimum {low_p!r})")
        if 1 <= power < 2 and (low_t < 0 or low_p <= 0):
            raise InputError(message + "non-negative y_true and strictly positive y_pred "
                             f"(minima {low_t!r} and {low_p!r})")
        if power >= 2 and (low_t <= 0 or low_p <= 0):
            raise InputError(message + "strictly positive y_true and y_pred (minima "
                             f"{low_t!r} and {low_p!r})")
    return check


def _anywhere(low_t: float, low_p: float) -> None:
    return None


# ------------------------------------------------------------------ per-sample terms

def squared_log_terms(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
                      ) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-sample squared log errors (1-D targets) and the checked weights."""
    t, p, w, _ = _regression_iv(y_true, y_pred, sample_weight, "uniform_average")
    _one_output("squared_log_terms", t)
    return _checked_terms(t, p, _squared_log, _log_domain), w


def pinball_terms(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                  alpha: float = 0.5) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-sample pinball losses (1-D targets) and the checked weights."""
    alpha = _check_alpha(alpha, "mean_pinball_loss")
    t, p, w, _ = _regression_iv(y_true, y_pred, sample_weight, "uniform_average")
    _one_output("pinball_terms", t)
    return _checked_terms(t, p, _pinball(alpha), _anywhere), w


def tweedie_terms(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                  power: float = 0) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-sample Tweedie deviances of ``power`` and the checked weights."""
    power = _check_power(power, "mean_tweedie_deviance")
    t, p, w, _ = _regression_iv(y_true, y_pred, sample_weight, "uniform_average")
    _one_output("mean_tweedie_deviance", t)
    return _checked_terms(t, p, _tweedie(power), _tweedie_domain(power)), w


# ------------------------------------------------------------------ mean losses

@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The mean squared logarithmic "
            "error; one per output with ``multioutput='raw_values'``.",
)
def mean_squared_log_error(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                           multioutput: Any = "uniform_average") -> float | np.ndarray:
    """Mean squared logarithmic error ``mean_i (log1p(y_i) - log1p(y_hat_i))^2``.

    Values <= -1 are an error. Drop-in for ``sklearn.metrics.mean_squared_log_error``.

    Examples
    --------
    >>> round(mean_squared_log_error([3, 5, 2.5, 7], [2.5, 5, 4, 8]), 6)
    0.03973
    """
    t, p, w, multioutput = _regression_iv(y_true, y_pred, sample_weight, multioutput)
    _no_variance_weighted("mean_squared_log_error", multioutput)
    return _aggregate(_mean_losses(t, p, w, _squared_log, _log_domain), multioutput)


@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The root mean squared logarithmic "
            "error; one per output with ``multioutput='raw_values'``.",
)
def root_mean_squared_log_error(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                                multioutput: Any = "uniform_average") -> float | np.ndarray:
    """Root mean squared logarithmic error: per output ``sqrt(MSLE)``, then averaged.

    Drop-in for ``sklearn.metrics.root_mean_squared_log_error``.

    Examples
    --------
    >>> round(root_mean_squared_log_error([3, 5, 2.5, 7], [2.5, 5, 4, 8]), 6)
    0.199324
    """
    t, p, w, multioutput = _regression_iv(y_true, y_pred, sample_weight, multioutput)
    _no_variance_weighted("root_mean_squared_log_error", multioutput)
    return _aggregate(np.sqrt(_mean_losses(t, p, w, _squared_log, _root_log_domain)),
                      multioutput)


@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The mean pinball loss; one per "
            "output with ``multioutput='raw_values'``.",
    alpha=("float",
           "The quantile level: under-predictions weigh ``alpha``, over-predictions ``1 - "
           "alpha``."),
)
def mean_pinball_loss(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                      alpha: float = 0.5, multioutput: Any = "uniform_average") -> float | np.ndarray:
    """Mean pinball (quantile) loss ``mean_i max(alpha e_i, (alpha - 1) e_i)``.

    ``e = y_true - y_pred``; ``alpha=0.5`` gives half the mean absolute error.
    Drop-in for ``sklearn.metrics.mean_pinball_loss``.

    Examples
    --------
    >>> mean_pinball_loss([1, 2, 3], [0, 2, 3], alpha=0.1)
    0.03333333333333333
    """
    alpha = _check_alpha(alpha, "mean_pinball_loss")
    t, p, w, multioutput = _regression_iv(y_true, y_pred, sample_weight, multioutput)
    _no_variance_weighted("mean_pinball_loss", multioutput)
    return _aggregate(_mean_losses(t, p, w, _pinball(alpha), _anywhere), multioutput)


@documented(
    returns="float\n    The mean Tweedie deviance.",
    power=("float",
           "Tweedie power (0 normal, 1 Poisson, 2 gamma; none in (0, 1))."),
)
def mean_tweedie_deviance(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                          power: float = 0) -> float:
    """Mean Tweedie deviance of ``power`` (module docstring), 1-D targets.

    ``power`` <= 0 or >= 1: 0 normal (squared error), 1 Poisson, 2 gamma, 3
    inverse Gaussian, (1, 2) compound Poisson-gamma. Drop-in for
    ``sklearn.metrics.mean_tweedie_deviance``.

    Examples
    --------
    >>> round(mean_tweedie_deviance([2, 0, 1, 4], [0.5, 0.5, 2., 2.], power=1), 6)
    1.426015
    """
    power = _check_power(power, "mean_tweedie_deviance")
    t, p, w, _ = _regression_iv(y_true, y_pred, sample_weight, "uniform_average")
    _one_output("mean_tweedie_deviance", t)
    return float(_mean_losses(t, p, w, _tweedie(power), _tweedie_domain(power))[0])


@documented(
    returns="float\n    The mean Poisson deviance.",
)
def mean_poisson_deviance(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None) -> float:
    """Mean Poisson deviance: :func:`mean_tweedie_deviance` with ``power=1``.

    Examples
    --------
    >>> round(mean_poisson_deviance([2, 0, 1, 4], [0.5, 0.5, 2., 2.]), 6)
    1.426015
    """
    return mean_tweedie_deviance(y_true, y_pred, sample_weight=sample_weight, power=1)


@documented(
    returns="float\n    The mean gamma deviance.",
)
def mean_gamma_deviance(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None) -> float:
    """Mean gamma deviance: :func:`mean_tweedie_deviance` with ``power=2``.

    Examples
    --------
    >>> round(mean_gamma_deviance([2, 0.5, 1, 4], [0.5, 0.5, 2., 2.]), 6)
    1.056853
    """
    return mean_tweedie_deviance(y_true, y_pred, sample_weight=sample_weight, power=2)


# ------------------------------------------------------------------ D^2 scores

def _too_few(n: int) -> bool:
    if n < 2:
        warnings.warn("D^2 score is not well-defined with less than two samples.",
                      UndefinedMetricWarning, stacklevel=3)
        return True
    return False


def _unit_scale(t: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``t`` and ``p`` times one power of two bringing their largest magnitude near 1,
    when it is extreme.

    The Tweedie unit deviance is homogeneous (of degree ``2 - power``), so D^2 does
    not change with the scale, while the deviances of values near 1e200 overflow and
    those near 1e-200 underflow. A power of two scales exactly.
    """
    with np.errstate(invalid="ignore"):
        largest = float(max(np.max(np.abs(t)), np.max(np.abs(p))))
    if not math.isfinite(largest) or largest == 0.0 or 2.0 ** -300 < largest < 2.0 ** 300:
        return t, p
    factor = math.ldexp(1.0, -math.frexp(largest)[1])
    return t * factor, p * factor


@documented(
    returns="float\n    D^2 score of the Tweedie deviance (1 is perfect, 0 the mean's).",
    power=("float",
           "Tweedie power (0 normal, 1 Poisson, 2 gamma)."),
)
def d2_tweedie_score(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                     power: float = 0) -> float:
    """D^2 of the Tweedie deviance: ``1 - D(y, y_hat) / D(y, mean_w(y))``.

    ``power=0`` gives R^2. A constant ``y_true`` (zero denominator) gives 1.0 for
    perfect predictions and 0.0 otherwise (scikit-learn raises ZeroDivisionError).
    Drop-in for ``sklearn.metrics.d2_tweedie_score``.

    Examples
    --------
    >>> round(d2_tweedie_score([2, 0, 1, 4], [0.5, 0.5, 2., 2.], power=1), 6)
    0.05379
    """
    power = _check_power(power, "d2_tweedie_score")
    t, p, w, _ = _regression_iv(y_true, y_pred, sample_weight, "uniform_average")
    _one_output("d2_tweedie_score", t)
    if _too_few(t.shape[0]):
        return float("nan")
    term, domain = _tweedie(power), _tweedie_domain(power)
    t, p = _unit_scale(t, p)
    numerator = _mean_losses(t, p, w, term, domain)
    mean = float(np.average(t, weights=w))
    denominator = _mean_losses(t, mean, w, term, _anywhere)
    return float(_explained_fraction(numerator, denominator, "uniform_average", True))


@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The D^2 score (1 is perfect, 0 "
            "the alpha-quantile's); one per output with ``multioutput='raw_values'``.",
    alpha=("float",
           "The quantile level of the pinball loss."),
)
def d2_pinball_score(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                     alpha: float = 0.5, multioutput: Any = "uniform_average") -> float | np.ndarray:
    """D^2 of the pinball loss: ``1 - L(y, y_hat) / L(y, q_alpha(y))``.

    ``q_alpha`` is the weighted ``alpha``-quantile of each output (scikit-learn's
    averaged inverse CDF). A zero denominator gives 1.0 for perfect predictions and
    0.0 otherwise. Drop-in for ``sklearn.metrics.d2_pinball_score``.

    Examples
    --------
    >>> round(d2_pinball_score([1, 2, 3], [1, 3, 3], alpha=0.9), 6)
    0.666667
    """
    alpha = _check_alpha(alpha, "d2_pinball_score")
    t, p, w, multioutput = _regression_iv(y_true, y_pred, sample_weight, multioutput)
    if _too_few(t.shape[0]):
        return float("nan")
    term = _pinball(alpha)
    numerator = _mean_losses(t, p, w, term, _anywhere)
    denominator = np.array([
        _mean_losses(c, weighted_quantile(c, w, alpha), w, term, _anywhere)[0]
        for c in _columns(t)])
    return _explained_fraction(numerator, denominator, multioutput, True)


@documented(
    returns="float or ndarray of shape (n_outputs,)\n    The D^2 score (1 is perfect, 0 "
            "the median's); one per output with ``multioutput='raw_values'``.",
)
def d2_absolute_error_score(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                            multioutput: Any = "uniform_average") -> float | np.ndarray:
    """D^2 of the absolute error: :func:`d2_pinball_score` with ``alpha=0.5``.

    Examples
    --------
    >>> round(d2_absolute_error_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 6)
    0.764706
    """
    return d2_pinball_score(y_true, y_pred, sample_weight=sample_weight, alpha=0.5,
                            multioutput=multioutput)
