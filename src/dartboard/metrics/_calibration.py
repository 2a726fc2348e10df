"""Calibration: is a predicted probability of 0.8 right 80% of the time?

Confidences and outcomes. A 1-D ``y_proba`` is the probability of the positive
class (``pos_label``; the rule of :func:`~dartboard.metrics.brier_score_loss`):
the confidence is ``p`` and the outcome "the row is positive". A 2-D
``y_proba`` (one column per sorted class) is judged by ``multiclass``:

- ``"top_label"``: the confidence is the largest probability of the row, the
  outcome "the arg-max class is the true class" (Guo et al. 2017; torchmetrics'
  ``multiclass_calibration_error``);
- ``"classwise"``: every class ``k`` is a binary problem (confidence ``p_k``,
  outcome ``y == k``); the error is the mean of the K per-class errors
  (Kull et al. 2019);
- ``"marginal"``: the same K problems pooled into one norm (Kumar, Liang and
  Ma 2019): ``(mean_k sum_b w_kb |d_kb|^q)^(1/q)``, the largest ``|d_kb|`` for
  ``max``. For ``l1`` it equals ``classwise``.

Bins of the confidence (:mod:`dartboard.metrics._calibration_state`): equal
width (``strategy="uniform"``, left-closed ``[b/B, (b+1)/B)``, ``p = 1`` in a bin
of its own, as torchmetrics) or equal mass (``"quantile"``: edges at the
quantiles of the confidences, ``numpy.quantile``'s linear rule, unweighted).
With ``n_b`` rows (weights) in bin ``b`` of ``n``, observed frequency ``o_b`` and
mean confidence ``c_b``, ``d_b = o_b - c_b``:

- ``l1`` (ECE): ``sum_b (n_b / n) |d_b|``;
- ``l2`` (RMS calibration error): ``sqrt(sum_b (n_b / n) d_b^2)``;
- ``max`` (MCE): ``max_b |d_b|`` over non-empty bins;
- ``l2`` with ``debiased=True`` (Kumar, Liang and Ma 2019, "Verified
  uncertainty calibration", NeurIPS, their ``unbiased_l2_ce``):
  ``sqrt(max(0, sum_b (n_b / n) (d_b^2 - o_b (1 - o_b) / (n_b - 1))))`` where a
  bin of fewer than 2 rows contributes 0: ``o_b (1 - o_b) / (n_b - 1)`` is the
  unbiased estimate of the variance of ``o_b``, which inflates ``d_b^2``.

These equal torchmetrics' ``binary_calibration_error`` and
``multiclass_calibration_error`` (``norm`` l1, l2, max) for the uniform
strategy; torchmetrics computes multiclass confidences in float32 and its bin
edges with ``torch.linspace``, so a confidence within a float32 rounding of a
bin edge may fall in the neighbouring bin there.

Brier decomposition (Murphy 1973, "A new vector partition of the probability
score", J. Appl. Meteor. 12:595-600), per bin as above with base rate ``o``:
``REL = sum_b (n_b/n) (c_b - o_b)^2``, ``RES = sum_b (n_b/n) (o_b - o)^2``,
``UNC = o (1 - o)``. When forecasts within a bin differ, two within-bin terms
complete it (Stephenson, Coelho and Jolliffe 2008, Weather and Forecasting
23:752-757): ``WBV = (1/n) sum_b sum_i (p_i - c_b)^2`` and
``WBC = (2/n) sum_b sum_i (p_i - c_b)(o_i - o_b)``, and then exactly
``BS = REL - RES + UNC + WBV - WBC``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from dartboard._labels import positive_index
from dartboard._results import Result
from dartboard._validation import (
    MAX_BINS,
    check_bool,
    check_consistent_length,
    check_int,
    check_option,
    check_sample_weight,
    column_1d,
    label_array,
    rescaled_weights,
    to_numpy,
)
from dartboard.metrics._calibration_state import CalibrationState, Scratch
from dartboard.metrics._probabilistic import (
    _binary_outcome,
    _check_range,
    _encode_with_labels,
    _proba_array,
    check_proba_rows,
    proba_tolerance,
)
from dartboard.metrics._top_label import (
    NotColumnIndices,
    matrix_error,
    top_label,
    top_label_blocks,
)

__all__ = ["BrierDecomposition", "CalibrationState", "brier_decomposition",
           "calibration_curve", "calibration_error"]

#: calibration_error's bins (torchmetrics' default); figures that quote an ECE use them
DEFAULT_N_BINS = 15
STRATEGIES = ("uniform", "quantile")
NORMS = ("l1", "l2", "max")
MULTICLASS = ("top_label", "classwise", "marginal")


@dataclasses.dataclass(frozen=True, repr=False)
class BrierDecomposition(Result):
    """Murphy's decomposition of the Brier score, with the two within-bin terms.

    ``brier = reliability - resolution + uncertainty + within_bin_variance
    - within_bin_covariance`` (exactly, up to rounding).

    Attributes
    ----------
    brier : float
        The Brier score (as :func:`~dartboard.metrics.brier_score_loss`).
    reliability, resolution, uncertainty : float
    within_bin_variance, within_bin_covariance : float
        Zero when all forecasts within each bin are equal.
    n_bins : int
    """

    brier: float
    reliability: float
    resolution: float
    uncertainty: float
    within_bin_variance: float
    within_bin_covariance: float
    n_bins: int


# ---------------------------------------------------------------------- input

def norm_iv(norm: Any, debiased: Any) -> tuple[str, bool]:
    norm = check_option(norm, "norm", NORMS)
    debiased = check_bool(debiased, "debiased")
    if debiased and norm != "l2":
        raise ValueError(f"debiased=True is the debiased l2 estimator (Kumar, Liang and Ma "
                         f"2019) and needs norm='l2'; got norm={norm!r}")
    return norm, debiased


def _codes_of_batch(t: np.ndarray, k: int, labels: Any) -> np.ndarray:
    """Column of each label of a batch, which may lack some classes."""
    if labels is not None:
        classes = np.asarray(labels)
        order = np.argsort(classes, kind="stable")
        pos = np.clip(np.searchsorted(classes[order], t), 0, k - 1)
        if classes.shape[0] != k or np.any(classes[order][pos] != t):
            raise ValueError(f"labels must list the {k} classes of the y_proba columns and "
                             "hold every label of y_true")
        return order[pos]
    if t.dtype.kind not in "iub" or (t.size and (t.min() < 0 or t.max() >= k)):
        raise ValueError(f"without labels, y_true must hold the column index (0 .. {k - 1}) "
                         "of each row's class; pass labels to name the columns' classes")
    return t.astype(np.intp)


def _outcome(t: np.ndarray, pos_label: Any) -> np.ndarray:
    """Boolean "row is positive" of binary labels (the rule of brier_score_loss).

    Integer labels find their (at most two) classes from the minimum and maximum
    in a few passes, without encoding every row; others go through the encoder.
    """
    if t.dtype.kind not in "iub" or t.size == 0:
        return _binary_outcome(t, pos_label) > 0.5
    lo, hi = t.min(), t.max()
    # integers one apart have nothing between them (0/1 labels skip the search)
    if int(hi) - int(lo) > 1 and np.any((t != lo) & (t != hi)):
        return _binary_outcome(t, pos_label) > 0.5  # three or more classes: its error
    classes = np.unique(np.array([lo, hi], dtype=t.dtype))
    code = positive_index(classes, pos_label, infer="numbers")
    return t == classes[code] if code >= 0 else np.zeros(t.shape[0], dtype=bool)


def _class_codes(t: np.ndarray, k: int, labels: Any, batch: bool) -> np.ndarray:
    """Column index of each row's class: the sorted classes of y_true (or ``labels``)."""
    if batch:
        return _codes_of_batch(t, k, labels)
    if labels is None and t.dtype.kind in "iu" and t.size and t.min() >= 0 \
            and t.max() < k and np.all(np.bincount(t, minlength=k) > 0):
        return t  # the classes are 0 .. K-1: each label is its own column
    classes, codes = _encode_with_labels(t, labels)
    if classes.shape[0] != k:
        raise ValueError(f"y_proba has {k} probability columns but y_true has "
                         f"{classes.shape[0]} classes {classes.tolist()!r}; pass one "
                         "column per class (or labels naming them all)")
    return codes


def _float_matrix(raw: np.ndarray) -> bool:
    """Whether the top-label kernel takes ``raw`` as it is (other inputs are
    converted and checked by the general path)."""
    return raw.ndim == 2 and raw.shape[1] > 1 and raw.dtype in (np.float32, np.float64)


def _with_codes(run: Callable[..., Any], p: np.ndarray, t: np.ndarray, labels: Any,
                batch: bool, tolerance: float) -> Any:
    """``run(codes, verify=...)`` of the top-label kernel with each row's true column.

    Integer labels without ``labels`` are first taken as the column indices,
    checked block by block inside the kernel (three passes over the labels cost
    as much as the kernel's work on a 10-class matrix); if they are not, they
    are encoded and the kernel runs again.
    """
    if labels is None and t.dtype.kind in "iu":
        try:
            return run(t, verify="range" if batch else "all")
        except NotColumnIndices:
            pass
    try:
        codes = _class_codes(t, p.shape[1], labels, batch)
    except ValueError as exc:
        # a matrix that is not one of probabilities is the first thing to report
        raise (matrix_error(p, tolerance) or exc) from None
    return run(codes, verify=None)


def _top_label_state(p: np.ndarray, t: np.ndarray, w: np.ndarray | None, labels: Any,
                     n_bins: int, second_moment: bool) -> CalibrationState:
    """Equal-width top-label state, binned block by block as the kernel produces
    the confidences (no array of all of them)."""
    tolerance = proba_tolerance(p)

    def run(codes: np.ndarray, verify: str | None) -> CalibrationState:
        state = CalibrationState(n_bins, 1, multiclass="top_label")
        scratch = None
        for start, conf, hit in top_label_blocks(p, codes, tolerance, verify):
            scratch = scratch or Scratch(conf.shape[0])
            state.add(conf, hit, None if w is None else w[start:start + conf.shape[0]],
                      second_moment=second_moment, scratch=scratch)
        return state

    return _with_codes(run, p, t, labels, False, tolerance)


def confidences(y_true: Any, y_proba: Any, sample_weight: Any, pos_label: Any,
                multiclass: str, *, labels: Any = None, batch: bool = False
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, str]:
    """Checked (confidence, outcome, weights, kind): (n,) arrays, or (n, K) for
    classwise and marginal; ``kind`` is ``multiclass``, or ``"binary"`` for 1-D input.

    ``batch``: the rows are one batch of a stream, whose classes are given by
    ``labels`` (or are the column indices), not read from the batch.
    """
    raw = to_numpy(y_proba, name="y_proba")
    t = label_array(y_true, name="y_true")
    if _float_matrix(raw) and multiclass == "top_label":
        if pos_label is not None:
            raise _pos_label_2d()
        n = check_consistent_length(("y_true", t), ("y_proba", raw))
        w = check_sample_weight(sample_weight, n)
        p, tolerance = np.ascontiguousarray(raw), proba_tolerance(raw)
        conf, hit = _with_codes(partial(top_label, p, tolerance=tolerance), p, t, labels,
                                batch, tolerance)
        return conf, hit, w, multiclass
    p, tolerance = _proba_array(raw)
    n = check_consistent_length(("y_true", t), ("y_proba", p))
    w = check_sample_weight(sample_weight, n)
    _check_range(p, "y_proba")
    if p.ndim == 1:
        return p, _outcome(t, pos_label), w, "binary"
    if pos_label is not None:
        raise _pos_label_2d()
    k = p.shape[1]
    check_proba_rows(p, "y_proba", tolerance)
    codes = _class_codes(t, k, labels, batch)
    if multiclass == "top_label":
        pred = np.argmax(p, axis=1)
        return p[np.arange(n), pred], pred == codes, w, multiclass
    return p, codes[:, None] == np.arange(k), w, multiclass


def _pos_label_2d() -> ValueError:
    return ValueError("pos_label applies to a 1-D y_proba (the probability of the positive "
                      "class); a 2-D y_proba has one column per class")


def quantile_edges(conf: np.ndarray, n_bins: int) -> np.ndarray:
    """(groups, n_bins + 1) equal-mass edges of each column of ``conf`` (in float64,
    whatever the confidences' dtype)."""
    conf = np.asarray(conf, dtype=np.float64)
    conf = conf[:, None] if conf.ndim == 1 else conf
    return np.quantile(conf, np.linspace(0.0, 1.0, n_bins + 1), axis=0).T


def _state(y_true: Any, y_proba: Any, n_bins: Any, strategy: Any, multiclass: Any,
           sample_weight: Any, pos_label: Any, second_moment: bool,
           labels: Any = None) -> CalibrationState:
    n_bins = check_int(n_bins, "n_bins", minimum=1, maximum=MAX_BINS)
    strategy = check_option(strategy, "strategy", STRATEGIES)
    multiclass = check_option(multiclass, "multiclass", MULTICLASS)
    if strategy == "uniform" and multiclass == "top_label" and pos_label is None:
        raw = to_numpy(y_proba, name="y_proba")
        if _float_matrix(raw):
            t = label_array(y_true, name="y_true")
            n = check_consistent_length(("y_true", t), ("y_proba", raw))
            return _top_label_state(np.ascontiguousarray(raw), t,
                                    check_sample_weight(sample_weight, n, scale_free=True),
                                    labels, n_bins, second_moment)
    conf, hit, w, kind = confidences(y_true, y_proba, sample_weight, pos_label, multiclass,
                                     labels=labels)
    w = None if w is None else rescaled_weights(w)  # the metrics are ratios of its sums
    groups = 1 if conf.ndim == 1 else conf.shape[1]
    edges = quantile_edges(conf, n_bins) if strategy == "quantile" else None
    return CalibrationState(n_bins, groups, edges=edges, multiclass=kind).add(
        conf, hit, w, second_moment=second_moment)


# ---------------------------------------------------------------------- kernels

def error_from_sums(weight: np.ndarray, sum_p: np.ndarray, norm: str, debiased: bool,
                    multiclass: str) -> np.ndarray:
    """Calibration error from (..., G, 2, S) sums; leading axes are replicates."""
    count = weight.sum(-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        freq = weight[..., 1, :] / count
        d = np.where(count > 0, freq - sum_p.sum(-2) / count, 0.0)
        prop = count / count.sum(-1, keepdims=True)
    if norm == "l1":
        per_group = np.sum(prop * np.abs(d), axis=-1)
    elif norm == "max":
        per_group = np.max(np.abs(d), axis=-1)
    else:
        sq = prop * d * d
        if debiased:
            with np.errstate(invalid="ignore", divide="ignore"):
                sq = np.where(count >= 2, sq - prop * freq * (1.0 - freq) / (count - 1.0), 0.0)
        per_group = np.sum(sq, axis=-1)
        if multiclass == "marginal":
            return np.sqrt(np.maximum(per_group.mean(-1), 0.0))
        per_group = np.sqrt(np.maximum(per_group, 0.0))
    if multiclass == "marginal" and norm == "max":
        return per_group.max(-1)
    return per_group.mean(-1)


def decomposition_from_sums(weight: np.ndarray, sum_p: np.ndarray,
                            sum_p2: np.ndarray) -> BrierDecomposition:
    """Murphy's terms summed over the groups (halved for a 2-column y_proba, as the
    Brier score of two columns is)."""
    count, pos = weight.sum(-2), weight[:, 1]
    sp, sp2, sp_hit = sum_p.sum(-2), sum_p2.sum(-2), sum_p[:, 1]
    n = count.sum(-1, keepdims=True)
    base = pos.sum(-1, keepdims=True) / n
    with np.errstate(invalid="ignore", divide="ignore"):
        fbar = np.where(count > 0, sp / count, 0.0)
        obar = np.where(count > 0, pos / count, 0.0)
    terms = {
        "brier": (sp2 - 2.0 * sp_hit + pos) / n,
        "reliability": count * (fbar - obar) ** 2 / n,
        "resolution": count * (obar - base) ** 2 / n,
        "within_bin_variance": (sp2 - count * fbar**2) / n,
        "within_bin_covariance": 2.0 * (sp_hit - count * fbar * obar) / n,
    }
    scale = 0.5 if weight.shape[0] == 2 else 1.0
    out = {k: scale * float(v.sum()) for k, v in terms.items()}
    out["uncertainty"] = scale * float(np.sum(base * (1.0 - base)))
    return BrierDecomposition(n_bins=weight.shape[-1] - 1, **out)


# ---------------------------------------------------------------------- public

def calibration_error(y_true: Any, y_proba: Any, *, n_bins: int = DEFAULT_N_BINS,
                      strategy: str = "uniform", norm: str = "l1",
                      multiclass: str = "top_label", debiased: bool = False,
                      sample_weight: Any = None, pos_label: Any = None,
                      labels: Any = None) -> float:
    """Calibration error: ECE (``norm="l1"``), RMS (``"l2"``) or MCE (``"max"``).

    See the module docstring for the confidences, bins and formulas.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of the positive class, or one column per sorted class.
    n_bins : int, default=15
    strategy : {"uniform", "quantile"}, default="uniform"
    norm : {"l1", "l2", "max"}, default="l1"
    multiclass : {"top_label", "classwise", "marginal"}, default="top_label"
        How a 2-D ``y_proba`` is judged (ignored for 1-D).
    debiased : bool, default=False
        The debiased l2 estimator of Kumar, Liang and Ma (2019); ``norm="l2"``.
    sample_weight : array-like of shape (n_samples,), optional
    pos_label : int, float, bool or str, optional
        Positive class of a 1-D ``y_proba``.
    labels : array-like, optional
        The classes of the columns of a 2-D ``y_proba`` (as in
        :func:`~dartboard.metrics.log_loss`), when ``y_true`` lacks some.

    Returns
    -------
    float

    Notes
    -----
    Reading it near 0. The estimate is biased upward: even perfectly calibrated
    probabilities show a positive error on a finite test set (about 0.039 for
    1,000 rows and 15 bins, 0.012 for 10,000; ``benchmarks/calibration_simulation_ece.py``),
    because each bin's observed frequency is noisy and the error takes its
    absolute value. So a bootstrap interval, ``dartboard.interval(calibration_error,
    ...)``, is an interval for a quantity that is never exactly 0 on data, and
    percentile or BCa intervals do not cover a true error of 0 (the default
    ``basic`` interval reaches 0 only in part of the cases; every interval
    contains its estimate). To ask "is this error more than noise?", test it:
    :func:`dartboard.calibration_test` compares it with the errors that
    calibrated probabilities give on the same forecasts (consistency
    resampling). To estimate the size of the miscalibration with less bias, use
    ``norm="l2", debiased=True`` (Kumar, Liang and Ma 2019), which subtracts
    each bin's sampling variance.

    Examples
    --------
    Bins [0, 0.5) and [0.5, 1): confidences 0.3 (2 rows, 1 positive) and
    0.8 (2 rows, 2 positive): ECE = 0.5 * |0.5 - 0.3| + 0.5 * |1 - 0.8| = 0.2.

    >>> round(calibration_error([0, 1, 1, 1], [0.3, 0.3, 0.8, 0.8], n_bins=2), 6)
    0.2
    """
    norm, debiased = norm_iv(norm, debiased)
    state = _state(y_true, y_proba, n_bins, strategy, multiclass, sample_weight, pos_label,
                   second_moment=False, labels=labels)
    return float(error_from_sums(state.weight, state.sum_p, norm, debiased,
                                 state.multiclass))


def brier_decomposition(y_true: Any, y_proba: Any, *, n_bins: int = 10,
                        strategy: str = "uniform", sample_weight: Any = None,
                        pos_label: Any = None, labels: Any = None) -> BrierDecomposition:
    """Brier score = reliability - resolution + uncertainty (+ within-bin terms).

    Murphy (1973) with the bins of :func:`calibration_error`; the within-bin
    variance and covariance of Stephenson, Coelho and Jolliffe (2008) make the
    sum exact when forecasts within a bin differ. A 2-D ``y_proba`` sums the
    terms of its classes (one-vs-rest), halved for two columns, so that
    ``brier`` equals :func:`~dartboard.metrics.brier_score_loss`.

    Examples
    --------
    Forecasts 0.2 (5 times, 1 event) and 0.8 (5 times, 3 events), two bins:
    REL = (0.5 * 0^2 + 0.5 * 0.2^2) = 0.02, RES = 0.5 * 0.2^2 + 0.5 * 0.2^2 = 0.04,
    UNC = 0.4 * 0.6 = 0.24; BS = 0.02 - 0.04 + 0.24 = 0.22.

    >>> d = brier_decomposition([1, 0, 0, 0, 0, 1, 1, 1, 0, 0], [0.2] * 5 + [0.8] * 5,
    ...                         n_bins=2)
    >>> [round(v, 6) for v in (d.brier, d.reliability, d.resolution, d.uncertainty)]
    [0.22, 0.02, 0.04, 0.24]
    """
    state = _state(y_true, y_proba, n_bins, strategy, "classwise", sample_weight, pos_label,
                   second_moment=True, labels=labels)
    return decomposition_from_sums(state.weight, state.sum_p, state.sum_p2)


def calibration_curve(y_true: Any, y_prob: Any, *, pos_label: Any = None, n_bins: int = 5,
                      strategy: str = "uniform") -> tuple[np.ndarray, np.ndarray]:
    """Observed frequency and mean predicted probability per non-empty bin.

    Drop-in for :func:`sklearn.calibration.calibration_curve`, with its bins:
    edges ``linspace(0, 1, n_bins + 1)`` (or the percentiles of ``y_prob``), and
    bin ``b`` holds ``edges[b] < p <= edges[b + 1]`` (right-closed; ``p = 0`` in
    the first bin). :func:`calibration_error` uses torchmetrics' left-closed
    bins instead (see the module docstring); the two differ only for
    probabilities on an edge. Per-bin counts and intervals:
    :func:`dartboard.uncertainty.calibration_bins`.

    Returns
    -------
    prob_true, prob_pred : ndarray

    Examples
    --------
    >>> calibration_curve([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9], n_bins=2)
    (array([0., 1.]), array([0.15, 0.85]))
    """
    from dartboard._labels import encode_labels, positive_index

    t = column_1d(y_true, name="y_true")
    p, _ = _proba_array(y_prob)
    if p.ndim != 1:
        raise ValueError(f"y_prob must be 1-D (the probability of the positive class); got "
                         f"shape {p.shape}")
    check_consistent_length(("y_true", t), ("y_prob", p))
    n_bins = check_int(n_bins, "n_bins", minimum=1, maximum=MAX_BINS)
    strategy = check_option(strategy, "strategy", STRATEGIES)
    enc = encode_labels(("y_true", t))
    if enc.n_classes > 2:
        raise ValueError(f"Only binary classification is supported. Provided labels "
                         f"{enc.classes}.")
    code = positive_index(enc.classes, pos_label, infer="strict")
    _check_range(p, "y_prob")
    positive = (enc.codes[0] == code).astype(np.float64)
    edges = np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100) if strategy == "quantile" \
        else np.linspace(0.0, 1.0, n_bins + 1)
    ids = np.searchsorted(edges[1:-1], p)
    total = np.bincount(ids, minlength=n_bins)
    keep = total != 0
    return (np.bincount(ids, weights=positive, minlength=n_bins)[keep] / total[keep],
            np.bincount(ids, weights=p, minlength=n_bins)[keep] / total[keep])
