"""Large-sample intervals that cost one pass over the data, not one per resample.

With ``z = Phi^{-1}(1 - alpha/2)``:

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

from dartboard.uncertainty._analytic import normal_quantile
from dartboard.uncertainty._bootstrap import IntervalWarning


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


def boyd_logit(estimate: float, n_positive: float, confidence_level: float
               ) -> tuple[float, float, float]:
    """(low, high, se) of Boyd et al.'s logit interval; ``se`` of the binomial model."""
    spread = estimate * (1.0 - estimate)
    se_logit = 1.0 / np.sqrt(n_positive * spread) if spread > 0 else float("nan")
    low, high = logit_interval(estimate, float(se_logit), confidence_level)
    return low, high, float(np.sqrt(spread / n_positive))


def ap_influence(pos: np.ndarray, neg: np.ndarray) -> tuple[float, float]:
    """(AP, variance of AP) from positive and negative counts per distinct score.

    ``pos[g]``, ``neg[g]``: samples at the g-th distinct score, scores
    increasing (as :func:`dartboard.metrics._ranking.group_scores` gives
    them). See the module docstring for the influence function.
    """
    p = np.asarray(pos, dtype=np.float64)[::-1]
    q = np.asarray(neg, dtype=np.float64)[::-1]
    tp, fp = np.cumsum(p), np.cumsum(q)
    m, n = float(tp[-1]), float(tp[-1] + fp[-1])
    d = tp + fp
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(d > 0, tp / d, 0.0)
        d2 = np.where(d > 0, d * d, 1.0)
    ap = float(np.dot(p, precision) / m)
    # suffix sums over the thresholds at or below each score
    u = np.cumsum((p * fp / d2)[::-1])[::-1]
    w = np.cumsum((p * tp / d2)[::-1])[::-1]
    scale = n / m
    if_pos = scale * (precision + u - ap)
    if_neg = -scale * w
    variance = float(np.dot(p, if_pos ** 2) + np.dot(q, if_neg ** 2)) / (n * n)
    return ap, variance


def mean_t_interval(terms: np.ndarray, confidence_level: float
                    ) -> tuple[float, float, float, float]:
    """(mean, low, high, se) of ``mean +- t_{n-1} s / sqrt(n)`` over per-sample terms."""
    n = terms.shape[0]
    mean = float(np.mean(terms))
    sd = float(np.std(terms, ddof=1)) if n > 1 else 0.0
    se = sd / np.sqrt(n)
    if se == 0.0:
        warnings.warn(f"all {n} per-sample terms are equal: the t-interval has zero width",
                      IntervalWarning, stacklevel=4)
    half = float(special.stdtrit(max(n - 1, 1), 0.5 + confidence_level / 2.0)) * se
    return mean, mean - half, mean + half, se
