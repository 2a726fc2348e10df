"""Analytic intervals: binomial proportions, DeLong's interval of ROC AUC and the
large-sample intervals that cost one pass over the data, not one per resample.

A proportion metric is ``x / n`` with ``n`` its own denominator, read from the
confusion counts (binary with ``pos_label``):

=====================  ==============  =======================
metric                 x               n
=====================  ==============  =======================
accuracy_score         TP + TN (trace) N (binary or multiclass)
precision_score        TP              TP + FP
recall_score           TP              TP + FN
specificity_score      TN              TN + FP
false_positive_rate    FP              FP + TN
false_negative_rate    FN              FN + TP
selection_rate         TP + FP         N
=====================  ==============  =======================

With ``z = Phi^{-1}(1 - alpha/2)`` and ``p = x / n``:

- ``wald``: ``p +- z sqrt(p (1 - p) / n)``, clipped to [0, 1] (zero width at
  ``p = 0`` or 1, with an :class:`IntervalWarning`).
- ``wilson``: ``(p + z^2/(2n) +- z sqrt(p(1-p)/n + z^2/(4n^2))) / (1 + z^2/n)``.
- ``agresti-coull``: Wald around ``(x + z^2/2) / (n + z^2)`` with ``n + z^2``
  trials, clipped to [0, 1].
- ``clopper-pearson``: Beta quantiles ``B(alpha/2; x, n-x+1)`` and
  ``B(1-alpha/2; x+1, n-x)``, with 0 at ``x = 0`` and 1 at ``x = n``.
- ``jeffreys``: Beta(x + 1/2, n - x + 1/2) quantiles, with 0 at ``x = 0`` and
  1 at ``x = n`` (Brown, Cai & DasGupta 2001).

These are the formulas of ``statsmodels.stats.proportion.proportion_confint``
(which keeps the Beta quantiles of ``jeffreys`` at ``x = 0`` and ``x = n``).

DeLong's variance of ROC AUC from samples is :func:`dartboard._delong.delong_auc_covariance`;
:func:`delong_variance_grouped` gives the same variance from the distinct scores
with their positive and negative counts (a :class:`~dartboard.metrics.ScoreState`).

Large-sample intervals, with ``z = Phi^{-1}(1 - alpha/2)``:

- ``delong-logit`` (ROC AUC): DeLong's variance ``V = S10/m + S01/n`` carried
  to the logit scale by the delta method, ``logit(A) +- q sqrt(V) / (A (1 - A))``,
  and back through the logistic function, with ``q`` Student's quantile at the
  Welch-Satterthwaite degrees of freedom of the two terms,
  ``V^2 / ((S10/m)^2 / (m - 1) + (S01/n)^2 / (n - 1))`` (about ``m - 1`` when
  the ``m`` positives are few; ``z`` as both classes grow). The interval stays
  inside (0, 1) and is asymmetric near 1. DeLong's symmetric interval
  under-covers when one class is small (6 positives, AUC 0.86: 83%); the logit
  scale alone brings it to 91%, the t quantile to 94%
  (``benchmarks/interval_choice.py``; Qin & Hotilovac 2008, Stat. Methods Med.
  Res. 17:207-221, compare transformed AUC intervals).
- ``newcombe`` (ROC AUC): Newcombe's (2006, Stat. Med. 25:559-573) method 5,
  a score-type interval with the Hanley-McNeil variance of an AUC ``theta``
  from ``m`` positives and ``n`` negatives,
  ``V(theta) = theta (1 - theta) [1 + N* ((1 - theta) / (2 - theta) + theta / (1 + theta))] / (m n)``,
  where Hanley and McNeil's ``m - 1`` and ``n - 1`` are both replaced by
  ``N* = (m + n) / 2 - 1``. The bounds are the ``theta`` in [0, 1] with
  ``(AUC - theta)^2 = z^2 V(theta)``, the roots of a quartic (multiply by
  ``(2 - theta)(1 + theta) > 0``). The variance is evaluated at the candidate
  ``theta``, not at the estimate, as Wilson's interval of a proportion does, so
  an AUC of 1 from 3 positives still gets a lower bound well below 1; and
  ``N*`` borrows the larger class's size for the smaller one, which is what
  keeps coverage when one class has a handful of samples (DeLong's estimated
  variance is then itself noisy, or 0 when the classes separate).
- ``logit`` (average precision, PR AUC): Boyd, Eng & Page (2013, ECML PKDD,
  LNCS 8190:451-466), section 4.2: ``logit(theta) +- z / sqrt(m theta (1 - theta))``
  with ``m`` the number of positives, as if ``theta`` were a proportion of them.
- ``influence-logit`` (average precision, PR AUC): the same logit interval
  with the variance of the estimate from its influence function (below),
  which, unlike Boyd's binomial heuristic, accounts for the negatives.
- ``t`` (means of per-sample losses: log loss, Brier, MAE, MSE, MAPE; RMSE as
  the square root of MSE's bounds): ``mean +- t_{n-1} s / sqrt(n)``.

Influence function of average precision. With the distinct scores in
decreasing order ``g = 1..G``, ``p_g``, ``q_g`` the positives and negatives at
score ``g``, ``TP_g``, ``FP_g`` their cumulative sums, ``D_g = TP_g + FP_g``,
precision ``P_g = TP_g / D_g``, ``m = TP_G`` positives of ``n`` samples and
``AP = sum_g p_g P_g / m``, one more sample at score ``k`` moves the precision
of every threshold at or below ``k``. Its influence on AP is

- a positive: ``(n / m) (P_k + U_k - AP)``, ``U_k = sum_{g >= k} p_g FP_g / D_g^2``;
- a negative: ``-(n / m) W_k``, ``W_k = sum_{g >= k} p_g TP_g / D_g^2``;

(the influence function of the ratio ``E[Y P(S)] / P(Y = 1)``; the values sum
to 0). The variance of the estimate is ``sum_i IF_i^2 / n^2``. The trapezoidal
PR AUC differs from AP by O(1/m), less than its standard error, so it uses the
same variance.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy import special

from dartboard._kernels._bootstrap import IntervalWarning
from dartboard._numeric import vdot, vdot_of
from dartboard.exceptions import InputError


def normal_quantile(confidence_level: float) -> float:
    """``z`` with ``P(|Z| <= z) = confidence_level`` for a standard normal ``Z``."""
    return float(-special.ndtri((1.0 - confidence_level) / 2.0))


def proportion_interval(x: float, n: float, confidence_level: float,
                        method: str) -> tuple[float, float]:
    """Two-sided interval for a binomial proportion ``x / n`` (``n > 0``)."""
    alpha = 1.0 - confidence_level
    z = normal_quantile(confidence_level)
    p = x / n
    if method == "wald":
        half = z * np.sqrt(p * (1.0 - p) / n)
        low, high = p - half, p + half
        if half == 0.0:
            warnings.warn(f"the Wald interval of a proportion of {p:g} ({x:g} of {n:g}) has "
                          "zero width, which understates the uncertainty; use 'wilson'",
                          IntervalWarning, stacklevel=5)
    elif method == "wilson":
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
        low, high = centre - half, centre + half
        # exactly 0 at x = 0 and 1 at x = n, where rounding left the bound a hair
        # inside the estimate (6.9e-18 for 0 of 50)
        low = 0.0 if x == 0 else low
        high = 1.0 if x == n else high
    elif method == "agresti-coull":
        n_c = n + z * z
        p_c = (x + z * z / 2.0) / n_c
        half = z * np.sqrt(p_c * (1.0 - p_c) / n_c)
        low, high = p_c - half, p_c + half
    elif method == "clopper-pearson":
        low = 0.0 if x == 0 else special.betaincinv(x, n - x + 1.0, alpha / 2.0)
        high = 1.0 if x == n else special.betaincinv(x + 1.0, n - x, 1.0 - alpha / 2.0)
    elif method == "jeffreys":
        # Brown, Cai & DasGupta (2001, Statist. Sci. 16:101-133, section 4.1.3) set
        # the bounds to 0 at x = 0 and 1 at x = n, as Clopper-Pearson has them
        low = 0.0 if x == 0 else special.betaincinv(x + 0.5, n - x + 0.5, alpha / 2.0)
        high = 1.0 if x == n else special.betaincinv(x + 0.5, n - x + 0.5, 1.0 - alpha / 2.0)
    else:  # pragma: no cover - guarded by the caller
        raise InputError(f"unknown proportion method {method!r}")
    if method in ("clopper-pearson", "jeffreys") and n > 2.0**53:
        # counts beyond 2**53 (huge integer weights) are past betaincinv's accuracy:
        # its bounds came out up to 2e-9 on the wrong side of the estimate, low above
        # high; the interval then is the estimate within rounding, so it holds it
        low, high = min(low, p), max(high, p)
    return float(np.clip(low, 0.0, 1.0)), float(np.clip(high, 0.0, 1.0))


def proportion_counts(proportion: tuple[str, tuple[str, ...]], matrix: np.ndarray,
                      pos_index: int | None) -> tuple[Any, Any]:
    """``(x, n)`` of a proportion from its confusion matrix (or a stack of them,
    shape ``(..., K, K)``: then arrays of shape ``(...)``).

    ``proportion`` is the metric's registry fact ``(numerator, denominator terms)``
    over the one-vs-all counts ``tp``, ``fp``, ``fn``, ``tn`` of the positive
    class (``sel = tp + fp``), or ``("correct", ("total",))`` for accuracy.
    ``pos_index`` is the row of the positive class in a 2 x 2 (or 1 x 1) matrix,
    ``None`` when the metric is multiclass accuracy. ``pos_index == -1`` means the
    positive class is absent from the data (all its counts are zero).
    """
    m = np.asarray(matrix, dtype=np.float64)
    total = m.sum(axis=(-2, -1))
    counts = {"total": total, "correct": np.trace(m, axis1=-2, axis2=-1)}
    if pos_index is not None:
        tp = fp = fn = np.zeros_like(total)
        if pos_index >= 0:
            tp = m[..., pos_index, pos_index]
            fp = m[..., :, pos_index].sum(axis=-1) - tp
            fn = m[..., pos_index, :].sum(axis=-1) - tp
        counts.update(tp=tp, fp=fp, fn=fn, tn=total - tp - fp - fn, sel=tp + fp)
    numerator, denominator = proportion
    x, n = counts[numerator], sum(counts[d] for d in denominator)
    return (float(x), float(n)) if m.ndim == 2 else (x, n)


def delong_interval(auc: float, variance: float, confidence_level: float
                    ) -> tuple[float, float, float]:
    """``auc +- z sqrt(variance)`` clipped to [0, 1]; returns (low, high, se).

    A zero variance (perfect separation, or one sample per class) gives a
    zero-width interval, with an :class:`IntervalWarning`.
    """
    se = float(np.sqrt(max(variance, 0.0)))
    if se == 0.0:
        warnings.warn(f"DeLong's variance of this ROC AUC ({auc:g}) is 0 (the scores "
                      "separate the classes perfectly, or a class has a single sample): "
                      "the interval has zero width, which understates the uncertainty",
                      IntervalWarning, stacklevel=4)
    z = normal_quantile(confidence_level)
    return float(max(auc - z * se, 0.0)), float(min(auc + z * se, 1.0)), se


def delong_variance_grouped(pos: np.ndarray, neg: np.ndarray) -> tuple[float, float]:
    """(AUC, DeLong's variance) from counts per distinct score (see delong_terms_grouped)."""
    auc, term_pos, term_neg, _, _ = delong_terms_grouped(pos, neg)
    return auc, term_pos + term_neg


def delong_terms_grouped(pos: np.ndarray, neg: np.ndarray,
                         midway: tuple[np.ndarray, np.ndarray] | None = None
                         ) -> tuple[float, float, float, float, float]:
    """(AUC, S10 / m, S01 / n, m, n) from counts of positives and negatives per score:
    DeLong's variance is the sum of the two terms.

    ``pos[g]`` and ``neg[g]`` count the positive and negative samples at the
    g-th distinct score, scores increasing. DeLong's structural components are
    constant within a tie group (grouped midranks): a positive at score ``s``
    has ``V10 = (neg below s + neg at s / 2) / n`` and a negative
    ``V01 = (pos above s + pos at s / 2) / m``; the variance is
    ``S10 / m + S01 / n`` with the sample variances (ddof = 1) over the ``m``
    positives and ``n`` negatives, so no raw score is needed. As in
    :func:`dartboard._delong.delong_auc_covariance`, a class with a single
    sample contributes 0. The caller checks ``m > 0`` and ``n > 0``.

    ``midway``: ``(pos up to - pos at / 2, neg below + neg at / 2)`` per score in
    floating point, when at hand (they are not changed).
    """
    if midway is not None:
        return _delong_terms_piecewise(np.asarray(pos), np.asarray(neg), midway)
    pos = np.asarray(pos, dtype=np.float64)
    neg = np.asarray(neg, dtype=np.float64)
    m, n = float(pos.sum()), float(neg.sum())
    # in place, a few passes over the scores: V10 = (neg below + neg at / 2) / n,
    # V01 = (pos above + pos at / 2) / m = (m - pos up to + pos at / 2) / m
    half = np.multiply(neg, 0.5)
    v10 = np.cumsum(neg)
    v10 -= half
    v10 /= n
    auc = float(vdot(pos, v10) / m)
    np.multiply(pos, 0.5, out=half)
    v01 = np.cumsum(pos)
    v01 -= half
    np.subtract(m, v01, out=v01)
    v01 /= m
    s10 = s01 = 0.0
    if m > 1:
        v10 -= auc
        np.square(v10, out=v10)
        s10 = float(vdot(pos, v10) / (m - 1))
    if n > 1:
        v01 -= auc
        np.square(v01, out=v01)
        s01 = float(vdot(neg, v01) / (n - 1))
    return auc, s10 / m, s01 / n, m, n


def _delong_terms_piecewise(pos: np.ndarray, neg: np.ndarray,
                            midway: tuple[np.ndarray, np.ndarray]
                            ) -> tuple[float, float, float, float, float]:
    """:func:`delong_terms_grouped` from the running sums at hand, the same bits, with no
    array of the scores' length formed (a stream's millions of distinct scores): each
    term a piece at a time (:func:`~dartboard._numeric.vdot_of`)."""
    m, n = float(pos.sum()), float(neg.sum())
    up, below = midway
    # V10 = (neg below + neg at / 2) / n, V01 = (pos above + pos at / 2) / m =
    # (m - (pos up to - pos at / 2)) / m
    auc = vdot_of(pos, below, lambda w, out: np.divide(w, n, out=out)) / m
    s10 = s01 = 0.0
    if m > 1:
        def v10(w: np.ndarray, out: np.ndarray) -> np.ndarray:
            np.divide(w, n, out=out)
            out -= auc
            return np.square(out, out=out)

        s10 = vdot_of(pos, below, v10) / (m - 1)
    if n > 1:
        def v01(w: np.ndarray, out: np.ndarray) -> np.ndarray:
            np.subtract(m, w, out=out)
            out /= m
            out -= auc
            return np.square(out, out=out)

        s01 = vdot_of(neg, up, v01) / (n - 1)
    return auc, s10 / m, s01 / n, m, n


def logit_interval(estimate: float, se_logit: float, confidence_level: float,
                   df: float = float("inf")) -> tuple[float, float]:
    """``expit(logit(estimate) +- q se_logit)``; the estimate itself at 0 or 1.

    ``q`` is the normal quantile, or Student's with ``df`` degrees of freedom.

    An estimate of exactly 0 or 1 has no logit; the interval is then the point,
    with an :class:`IntervalWarning`, as DeLong's zero variance gives.
    """
    if not 0.0 < estimate < 1.0 or not np.isfinite(se_logit):
        warnings.warn(f"a logit interval needs an estimate strictly between 0 and 1; got "
                      f"{estimate:g}: the interval has zero width, which understates the "
                      "uncertainty", IntervalWarning, stacklevel=4)
        return float(estimate), float(estimate)
    eta = special.logit(estimate)
    q = normal_quantile(confidence_level) if not np.isfinite(df) else \
        float(special.stdtrit(df, 0.5 + confidence_level / 2.0))
    half = q * se_logit
    return float(special.expit(eta - half)), float(special.expit(eta + half))


def delong_logit(auc: float, term_pos: float, term_neg: float, m: float, n: float,
                 confidence_level: float) -> tuple[float, float, float]:
    """(low, high, se) of ``delong-logit``; ``se`` on the AUC's own scale.

    ``term_pos = S10 / m`` and ``term_neg = S01 / n`` are DeLong's two variance
    terms; their Welch-Satterthwaite degrees of freedom give the t quantile.
    """
    variance = max(term_pos + term_neg, 0.0)
    se = float(np.sqrt(variance))
    spread = auc * (1.0 - auc)
    se_logit = se / spread if spread > 0 else float("nan")
    low, high = logit_interval(auc, se_logit, confidence_level,
                               welch_df(term_pos, term_neg, m, n))
    return low, high, se


def newcombe_variance(theta: Any, m: float, n: float) -> Any:
    """Newcombe's (2006) method-5 variance of an AUC ``theta`` (see the module docstring)."""
    star = (m + n) / 2.0 - 1.0
    return theta * (1.0 - theta) * (1.0 + star * ((1.0 - theta) / (2.0 - theta)
                                                  + theta / (1.0 + theta))) / (m * n)


def newcombe_interval(auc: float, m: float, n: float, confidence_level: float
                      ) -> tuple[float, float, float]:
    """(low, high, se) of Newcombe's method 5; ``se = sqrt(V(auc))``.

    ``(auc - theta)^2 (2 - theta)(1 + theta) m n - z^2 theta (1 - theta)
    [(2 - theta)(1 + theta) + N* (1 + 2 theta - 2 theta^2)]`` is positive at 0
    and 1 (unless ``auc`` is there) and negative at ``auc``: the bounds are its
    outermost roots on either side of ``auc``.
    """
    z = normal_quantile(confidence_level)
    star = (m + n) / 2.0 - 1.0
    poly = np.polynomial.Polynomial
    t = poly([0.0, 1.0])
    spread = poly([2.0, 1.0, -1.0])  # (2 - theta)(1 + theta)
    quartic = m * n * (auc - t) ** 2 * spread \
        - z * z * t * (1.0 - t) * (spread + star * poly([1.0, 2.0, -2.0]))
    roots = quartic.roots()
    real = np.sort(roots[np.abs(roots.imag) <= 1e-9 * (1.0 + np.abs(roots.real))].real)
    tol = 1e-12
    below = real[(real >= -tol) & (real <= auc + tol)]
    above = real[(real >= auc - tol) & (real <= 1.0 + tol)]
    low = float(np.clip(below[0], 0.0, auc)) if below.size and auc > 0 else 0.0
    high = float(np.clip(above[-1], auc, 1.0)) if above.size and auc < 1 else 1.0
    return low, high, float(np.sqrt(newcombe_variance(auc, m, n)))


def welch_df(term_pos: float, term_neg: float, m: float, n: float) -> float:
    """``(a + b)^2 / (a^2 / (m - 1) + b^2 / (n - 1))``; a one-sample class adds nothing."""
    den = (term_pos ** 2 / (m - 1) if m > 1 else 0.0) + \
        (term_neg ** 2 / (n - 1) if n > 1 else 0.0)
    return (term_pos + term_neg) ** 2 / den if den > 0 else float("inf")


#: n p (1 - p) below which an AP or PR AUC counts as 0 or 1 (float sums of a perfect
#: ranking land within a few ulps of 1, where the logit's scale explodes)
AT_BOUNDARY = 1e-9


def boyd_logit(estimate: float, n_positive: float, confidence_level: float
               ) -> tuple[float, float, float]:
    """(low, high, se) of Boyd et al.'s logit interval; ``se`` of the binomial model.

    At 0 or 1 (a perfect ranking), where the logit has no value, the same binomial
    model (the estimate as a proportion of the ``n_positive`` positives) gives
    Wilson's score interval, which is defined there and is not the point.
    """
    spread = estimate * (1.0 - estimate)
    if n_positive * spread < AT_BOUNDARY:
        edge = float(round(estimate))
        low, high = proportion_interval(edge * n_positive, n_positive, confidence_level,
                                        "wilson")
        return low, high, 0.0
    se_logit = 1.0 / np.sqrt(n_positive * spread) if spread > 0 else float("nan")
    low, high = logit_interval(estimate, float(se_logit), confidence_level)
    return low, high, float(np.sqrt(spread / n_positive))


def ap_influence(pos: np.ndarray, neg: np.ndarray) -> tuple[float, float]:
    """(AP, variance of AP) from positive and negative counts per distinct score.

    ``pos[g]``, ``neg[g]``: samples at the g-th distinct score, scores
    increasing (as :func:`dartboard.metrics._ranking.group_scores` gives
    them). See the module docstring for the influence function.
    """
    # ap_derivatives' formulas, in place: a few arrays of the distinct scores, not a
    # dozen (a stream's map holds millions)
    p = np.array(pos[::-1], dtype=np.float64)
    q = np.array(neg[::-1], dtype=np.float64)
    tp, fp = np.cumsum(p), np.cumsum(q)
    m = float(tp[-1])
    d = np.add(tp, fp)
    if not (d.shape[0] and d[0] > 0):  # thresholds without rows: as ap_derivatives
        ap, if_pos, if_neg = ap_derivatives(pos, neg)
        return ap, float(vdot(np.asarray(pos, dtype=np.float64), if_pos * if_pos)
                         + vdot(np.asarray(neg, dtype=np.float64), if_neg * if_neg))
    precision = np.divide(tp, d)
    ap = float(vdot(p, precision) / m)
    weight = np.divide(p, d)
    weight /= d  # p / d^2
    # suffix sums over the thresholds at or below each score, in place
    u = np.multiply(weight, fp, out=fp)
    np.cumsum(u[::-1], out=u[::-1])
    w = np.multiply(weight, tp, out=tp)
    np.cumsum(w[::-1], out=w[::-1])
    precision += u
    precision -= ap  # m times the influence of a positive; w: of a negative, negated
    np.square(precision, out=precision)
    np.square(w, out=w)
    return ap, float((vdot(p, precision) + vdot(q, w)) / (m * m))


def ap_derivatives(pos: np.ndarray, neg: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(AP, dAP/dpos, dAP/dneg): the change of AP per positive (negative) added at each
    distinct score (scores increasing, as :func:`ap_influence` takes them), the
    influence function divided by the rows. They sum to 0 over the rows (AP does not
    change when every count is scaled), and ``sum pos dpos^2 + sum neg dneg^2`` is
    AP's influence-function variance."""
    p = np.asarray(pos, dtype=np.float64)[::-1]
    q = np.asarray(neg, dtype=np.float64)[::-1]
    tp, fp = np.cumsum(p), np.cumsum(q)
    m = float(tp[-1])
    d = tp + fp
    if d.shape[0] and d[0] > 0:  # d grows: no threshold without rows (the usual case)
        precision = tp / d
        weight = p / d
        weight /= d  # p / d^2
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            precision = np.where(d > 0, tp / d, 0.0)
            weight = p / np.where(d > 0, d * d, 1.0)
    ap = float(vdot(p, precision) / m)
    # suffix sums over the thresholds at or below each score
    u = np.cumsum((weight * fp)[::-1])[::-1]
    w = np.cumsum((weight * tp)[::-1])[::-1]
    # influence of a positive: (n / m) (precision + u - ap); of a negative: -(n / m) w
    if_pos = precision + u
    if_pos -= ap
    return ap, (if_pos / m)[::-1], (-w / m)[::-1]
