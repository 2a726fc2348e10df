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

Bins of the confidence (:mod:`dartboard.metrics._calibration`): equal
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
from numpy.typing import ArrayLike

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
from dartboard.exceptions import InputError
from dartboard.metrics._docs import documented
from dartboard.metrics._mergeable import check_same_kind, resolve_metric
from dartboard.metrics._probabilistic import (
    _binary_outcome,
    _encode_with_labels,
    _proba_array,
    check_proba_rows,
    check_range,
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

    Parameters
    ----------
    brier : float
        The Brier score (as :func:`~dartboard.metrics.brier_score_loss`).
    reliability, resolution, uncertainty : float
        The three terms of Murphy's decomposition, ``brier = reliability - resolution +
        uncertainty`` when forecasts within each bin are equal.
    within_bin_variance, within_bin_covariance : float
        Zero when all forecasts within each bin are equal.
    n_bins : int
        Number of bins of the forecasts.

    Examples
    --------
    >>> y_true = [0, 1, 1, 0, 1, 0, 1, 1]
    >>> y_proba = [0.2, 0.9, 0.6, 0.3, 0.8, 0.55, 0.7, 0.4]
    >>> dec = brier_decomposition(y_true, y_proba, n_bins=2)
    >>> round(dec.brier, 4), round(dec.reliability, 4), round(dec.resolution, 4)
    (0.1366, 0.0055, 0.051)
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
        raise InputError(f"debiased=True is the debiased l2 estimator (Kumar, Liang and Ma "
                         f"2019) and needs norm='l2'; got norm={norm!r}")
    return norm, debiased


def _codes_of_batch(t: np.ndarray, k: int, labels: Any) -> np.ndarray:
    """Column of each label of a batch, which may lack some classes."""
    if labels is not None:
        classes = np.asarray(labels)
        order = np.argsort(classes, kind="stable")
        pos = np.clip(np.searchsorted(classes[order], t), 0, k - 1)
        if classes.shape[0] != k or np.any(classes[order][pos] != t):
            raise InputError(f"labels must list the {k} classes of the y_proba columns and "
                             "hold every label of y_true")
        return order[pos]
    if t.dtype.kind not in "iub" or (t.size and (t.min() < 0 or t.max() >= k)):
        raise InputError(f"without labels, y_true must hold the column index (0 .. {k - 1}) "
                         "of each row's class; pass labels to name the columns' classes")
    return t.astype(np.intp)


def _outcome(t: np.ndarray, pos_label: Any) -> np.ndarray:
    """Boolean "row is positive" of binary labels (the rule of brier_score_loss, and a
    ``pos_label`` that is not one of two classes refused: :mod:`dartboard._labels`).

    Integer labels find their (at most two) classes from the minimum and maximum
    in a few passes, without encoding every row; others go through the encoder.
    """
    if t.dtype.kind not in "iub" or t.size == 0:
        return _binary_outcome(t, pos_label, refuse_absent=True) > 0.5
    lo, hi = t.min(), t.max()
    # integers one apart have nothing between them (0/1 labels skip the search)
    if int(hi) - int(lo) > 1 and np.any((t != lo) & (t != hi)):
        return _binary_outcome(t, pos_label) > 0.5  # three or more classes: its error
    classes = np.unique(np.array([lo, hi], dtype=t.dtype))
    code = positive_index(classes, pos_label, infer="numbers", refuse_absent=True)
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
        raise InputError(f"y_proba has {k} probability columns but y_true has "
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


def confidences(y_true: ArrayLike, y_proba: ArrayLike, sample_weight: ArrayLike | None, pos_label: Any,
                multiclass: str, *, labels: ArrayLike | None = None, batch: bool = False
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
    check_range(p, "y_proba")
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
    return InputError("pos_label applies to a 1-D y_proba (the probability of the positive "
                      "class); a 2-D y_proba has one column per class")


def quantile_edges(conf: np.ndarray, n_bins: int) -> np.ndarray:
    """(groups, n_bins + 1) equal-mass edges of each column of ``conf`` (in float64,
    whatever the confidences' dtype)."""
    conf = np.asarray(conf, dtype=np.float64)
    conf = conf[:, None] if conf.ndim == 1 else conf
    return np.quantile(conf, np.linspace(0.0, 1.0, n_bins + 1), axis=0).T


def binned_state(y_true: ArrayLike, y_proba: ArrayLike, n_bins: Any, strategy: Any, multiclass: Any,
           sample_weight: ArrayLike | None, pos_label: Any, second_moment: bool,
           labels: ArrayLike | None = None) -> CalibrationState:
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

def calibration_error(y_true: ArrayLike, y_proba: ArrayLike, *, n_bins: int = DEFAULT_N_BINS,
                      strategy: str = "uniform", norm: str = "l1",
                      multiclass: str = "top_label", debiased: bool = False,
                      sample_weight: ArrayLike | None = None, pos_label: Any = None,
                      labels: ArrayLike | None = None) -> float:
    """Calibration error: ECE (``norm="l1"``), RMS (``"l2"``) or MCE (``"max"``).

    See the module docstring for the confidences, bins and formulas.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of the positive class, or one column per sorted class.
    n_bins : int, default=15
        Number of bins of the confidences.
    strategy : {"uniform", "quantile"}, default="uniform"
        Bins of equal width (``"uniform"``) or of equal numbers of rows
        (``"quantile"``).
    norm : {"l1", "l2", "max"}, default="l1"
        How the bins' gaps are summed: ``"l1"`` (ECE, weighted mean of the absolute
        gaps), ``"l2"`` (root mean square) or ``"max"`` (largest gap, MCE).
    multiclass : {"top_label", "classwise", "marginal"}, default="top_label"
        How a 2-D ``y_proba`` is judged (ignored for 1-D).
    debiased : bool, default=False
        The debiased l2 estimator of Kumar, Liang and Ma (2019); ``norm="l2"``.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each sample; None weighs every sample one.
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
    absolute value, by an amount that depends on the truth. The percentile, basic
    and BCa intervals of the bootstrap misjudge that bias and lie above a small
    true error too often; the default interval, ``dartboard.interval(calibration_error,
    ...)`` with ``method="bin-pivot"``, takes it from bin-level worlds and is the
    one-sided ``[0, U]`` when calibration is not rejected
    (:mod:`dartboard._kernels._calibration`; it may lie below the estimate).
    To ask "is this error more than noise?", test it:
    :func:`dartboard.calibration_test` compares it with the errors that
    calibrated probabilities give on the same forecasts (consistency
    resampling). To estimate the size of the miscalibration with less bias, use
    ``norm="l2", debiased=True`` (Kumar, Liang and Ma 2019), which subtracts
    each bin's sampling variance.

    Examples
    --------
    Bins [0, 0.5) and [0.5, 1): confidences 0.3 (2 rows, 1 positive) and
    0.8 (2 rows, 2 positive): ``ECE = 0.5 * |0.5 - 0.3| + 0.5 * |1 - 0.8| = 0.2``.

    >>> round(calibration_error([0, 1, 1, 1], [0.3, 0.3, 0.8, 0.8], n_bins=2), 6)
    0.2
    """
    norm, debiased = norm_iv(norm, debiased)
    state = binned_state(y_true, y_proba, n_bins, strategy, multiclass, sample_weight, pos_label,
                   second_moment=False, labels=labels)
    return float(error_from_sums(state.weight, state.sum_p, norm, debiased,
                                 state.multiclass))


@documented(
    returns="BrierDecomposition\n    Reliability, resolution, uncertainty and the Brier "
            "score.",
    n_bins=("int",
            "Number of probability bins."),
    strategy=("{'uniform', 'quantile'}",
              "Bins of equal width or of equal mass."),
)
def brier_decomposition(y_true: ArrayLike, y_proba: ArrayLike, *, n_bins: int = 10,
                        strategy: str = "uniform", sample_weight: ArrayLike | None = None,
                        pos_label: Any = None, labels: ArrayLike | None = None) -> BrierDecomposition:
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
    state = binned_state(y_true, y_proba, n_bins, strategy, "classwise", sample_weight, pos_label,
                   second_moment=True, labels=labels)
    return decomposition_from_sums(state.weight, state.sum_p, state.sum_p2)


@documented(
    y_prob=("array-like of shape (n_samples,)",
            "Predicted probabilities of the positive class."),
    n_bins=("int",
            "Number of probability bins."),
    strategy=("{'uniform', 'quantile'}",
              "Bins of equal width or of equal mass."),
)
def calibration_curve(y_true: ArrayLike, y_prob: ArrayLike, *, pos_label: Any = None, n_bins: int = 5,
                      strategy: str = "uniform") -> tuple[np.ndarray, np.ndarray]:
    """Observed frequency and mean predicted probability per non-empty bin.

    Drop-in for ``sklearn.calibration.calibration_curve``, with its bins:
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
        raise InputError(f"y_prob must be 1-D (the probability of the positive class); got "
                         f"shape {p.shape}")
    check_consistent_length(("y_true", t), ("y_prob", p))
    n_bins = check_int(n_bins, "n_bins", minimum=1, maximum=MAX_BINS)
    strategy = check_option(strategy, "strategy", STRATEGIES)
    enc = encode_labels(("y_true", t))
    if enc.n_classes > 2:
        raise InputError(f"Only binary classification is supported. Provided labels "
                         f"{enc.classes}.")
    code = positive_index(enc.classes, pos_label, infer="strict")
    check_range(p, "y_prob")
    positive = (enc.codes[0] == code).astype(np.float64)
    edges = np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100) if strategy == "quantile" \
        else np.linspace(0.0, 1.0, n_bins + 1)
    ids = np.searchsorted(edges[1:-1], p)
    total = np.bincount(ids, minlength=n_bins)
    keep = total != 0
    return (np.bincount(ids, weights=positive, minlength=n_bins)[keep] / total[keep],
            np.bincount(ids, weights=p, minlength=n_bins)[keep] / total[keep])


# ------------------------------------------------------------------ the state
#
# The binned calibration state: what every calibration number is computed from.
#
# Rows are put in bins of their confidence (the predicted probability the
# calibration is judged on, see :mod:`dartboard.metrics._calibration`) and
# counted per class group ``g``, outcome ``o`` (0 or 1: did the event happen)
# and bin ``b``:
#
# - ``weight[g, o, b]``: number (sum of weights) of rows,
# - ``sum_p[g, o, b]``: sum of (weighted) confidences,
# - ``sum_p2[g, o, b]``: sum of (weighted) squared confidences.
#
# The bin's count is ``weight[g, 0, b] + weight[g, 1, b]``, its observed
# frequency ``weight[g, 1, b] / count`` and its mean confidence
# ``(sum_p[g, 0, b] + sum_p[g, 1, b]) / count``. Keeping the two outcomes apart
# costs nothing and gives the bootstrap the joint law of (bin, outcome) counts;
# the squared sums give within-bin variances (the Brier decomposition's two
# within-bin terms, the bootstrap's second moment).
#
# Bins. Equal width (``edges=None``): bin ``b = floor(n_bins * p)`` computed in
# float64, so bin ``b`` holds ``b / n_bins <= p < (b + 1) / n_bins`` (left-closed,
# as ``torch.bucketize(..., right=True) - 1`` in torchmetrics), and ``p = 1``
# exactly falls in an extra bin ``n_bins`` of its own, as in torchmetrics (whose
# bin arrays have ``n_bins + 1`` entries): a confidence of exactly 1 is judged on
# those rows alone. Given ``edges`` (per group, ``n_bins + 1`` increasing values,
# equal-mass bins), bin ``b`` holds ``edges[b] <= p < edges[b + 1]`` for the inner
# edges, and the outer bins are open-ended; the extra bin stays empty.

#: rows binned at a time (their float64 confidences and keys stay in cache)
CHUNK_ROWS = 2**16


class Scratch:
    """Buffers for binning ``rows`` rows at a time, reused chunk after chunk.

    A fresh float64 array per chunk of 2**16 rows costs page faults on its first
    touch, and on a virtual machine they cost more than the binning itself.
    """

    __slots__ = ("real", "key")

    def __init__(self, rows: int) -> None:
        self.real = np.empty(rows)
        self.key = np.empty(rows, dtype=np.intp)


def bin_keys(conf: np.ndarray, hit: np.ndarray, n_bins: int,
             edges: np.ndarray | None, scratch: Scratch | None = None) -> np.ndarray:
    """Flat cell index ``o * (n_bins + 1) + b`` of each row (one pass each step);
    in ``scratch.key`` when given."""
    slots = n_bins + 1
    m = conf.shape[0]
    scratch = scratch if scratch is not None and scratch.key.shape[0] >= m else Scratch(m)
    key = scratch.key[:m]
    if edges is None:
        # in float64 whatever conf's dtype (exact for float32 conf); cast before adding
        # the outcome's offset: n p + S can round up to the next integer
        np.copyto(key, np.multiply(conf, n_bins, out=scratch.real[:m], dtype=np.float64),
                  casting="unsafe")
    else:
        key[...] = np.searchsorted(edges[1:-1], conf, side="right")
    # the outcome's offset as a product of small integers: numpy's masked add
    # (``where=hit``) is a branch per row, several times slower on random outcomes
    hit = np.asarray(hit, dtype=bool)
    key += hit.view(np.uint8) * np.min_scalar_type(slots).type(slots)
    return key


class CalibrationState:
    """Mergeable per-bin sums of calibration (see the module docstring).

    Parameters
    ----------
    n_bins : int
        Number of bins of the confidences.
    n_groups : int
        1 for binary and top-label calibration, the number of classes for
        classwise and marginal calibration.
    edges : ndarray of shape (n_groups, n_bins + 1), optional
        Equal-mass edges; None for equal-width bins.
    multiclass : str
        What the groups are (``"top_label"``, ``"classwise"``, ``"marginal"``;
        ``"binary"`` for a 1-D probability of the positive class); states of
        different kinds do not merge.

    Examples
    --------
    >>> state = CalibrationState(2).add([0.2, 0.4, 0.7, 0.9], [False, True, True, True])
    >>> round(state.compute("calibration_error"), 6)
    0.2
    """

    __slots__ = ("n_bins", "n_groups", "edges", "multiclass", "weight", "sum_p", "sum_p2")

    def __init__(self, n_bins: int = 15, n_groups: int = 1, *, edges: Any = None,
                 multiclass: str = "binary") -> None:
        self.n_bins = int(n_bins)
        self.n_groups = int(n_groups)
        self.edges = None if edges is None else np.asarray(edges, dtype=np.float64)
        self.multiclass = multiclass
        shape = (self.n_groups, 2, self.n_bins + 1)
        self.weight = np.zeros(shape)
        self.sum_p = np.zeros(shape)
        self.sum_p2 = np.zeros(shape)

    @classmethod
    def _of(cls, n_bins: int, multiclass: str, weight: np.ndarray, sum_p: np.ndarray,
            sum_p2: np.ndarray) -> CalibrationState:
        """An equal-width state of these (n_groups, 2, n_bins + 1) sums, already
        formed (an evaluation's per-cluster states, by the hundred thousand)."""
        out = cls.__new__(cls)
        out.n_bins, out.n_groups, out.edges = n_bins, weight.shape[0], None
        out.multiclass, out.weight, out.sum_p, out.sum_p2 = multiclass, weight, sum_p, sum_p2
        return out

    # ------------------------------------------------------------------ data in

    def add(self, conf: Any, hit: Any, sample_weight: ArrayLike | None = None, *,
            second_moment: bool = True, scratch: Scratch | None = None
            ) -> CalibrationState:
        """Add checked confidences and outcomes in place; return ``self``.

        ``conf`` and ``hit`` are (n,) for one group or (n, n_groups); ``hit`` is
        boolean. ``second_moment=False`` skips the squared sums (a one-shot
        metric that does not need them). ``scratch``: buffers to reuse (a caller
        that adds many small batches passes the same one each time).

        Parameters
        ----------
        conf : array-like of shape (n,) or (n, n_groups)
            Checked confidences.
        hit : array-like of bool, same shape
            Whether each prediction was right.
        sample_weight : array-like of shape (n,), optional
            Sample weights.
        second_moment : bool, default=True
            Whether to keep the squared sums.
        scratch : Scratch, optional
            Buffers to reuse.

        Returns
        -------
        CalibrationState
            ``self``, with the batch added.
        """
        conf = np.asarray(conf)
        if conf.dtype.kind != "f":
            conf = conf.astype(np.float64)
        hit = np.asarray(hit, dtype=bool)
        if conf.ndim == 1:
            conf, hit = conf[:, None], hit[:, None]
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        size = 2 * (self.n_bins + 1)
        # chunks that stay in cache (and widen float32 to float64 only there); with
        # many bins, long enough that the per-chunk bin counts are a small cost
        step = max(CHUNK_ROWS, 4 * size)
        if scratch is None or scratch.key.shape[0] < min(step, conf.shape[0]):
            scratch = Scratch(min(step, conf.shape[0]))
        for start in range(0, conf.shape[0], step):
            rows = slice(start, start + step)
            for g in range(self.n_groups):
                self._add_group(g, conf[rows, g], hit[rows, g],
                                None if w is None else w[rows], second_moment, scratch)
        return self

    def _add_group(self, g: int, conf: np.ndarray, hit: np.ndarray, w: np.ndarray | None,
                   second_moment: bool, scratch: Scratch) -> None:
        c = np.ascontiguousarray(conf)
        m = c.shape[0]
        key = bin_keys(c, hit, self.n_bins, None if self.edges is None else self.edges[g],
                       scratch)
        size = 2 * (self.n_bins + 1)
        # bincount's weights are float64: a float32 chunk is widened into the scratch
        # buffer (exactly), after the keys are done with it
        c64 = c
        if c.dtype != np.float64:
            c64 = scratch.real[:m]
            np.copyto(c64, c)
        wc = c64 if w is None else c64 * w
        self.weight[g] += np.bincount(key, weights=w, minlength=size).reshape(2, -1)
        self.sum_p[g] += np.bincount(key, weights=wc, minlength=size).reshape(2, -1)
        if second_moment:
            self.sum_p2[g] += np.bincount(key, weights=wc * c64,
                                          minlength=size).reshape(2, -1)

    def update(self, y_true: ArrayLike, y_proba: ArrayLike, sample_weight: ArrayLike | None = None, *,
               pos_label: Any = None, labels: ArrayLike | None = None) -> CalibrationState:
        """Add a batch of labels and probabilities in place; return ``self``.

        The batch is read as :func:`~dartboard.metrics.calibration_error` reads
        it (1-D: probability of ``pos_label``; 2-D: one column per class of
        ``labels``, or per integer label 0 .. K-1 when ``labels`` is None).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels.
        y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
            Predicted probabilities.
        sample_weight : array-like of shape (n_samples,), optional
            Sample weights.
        pos_label : int, float, bool or str, optional
            The positive class of 1-D probabilities.
        labels : array-like of shape (n_classes,), optional
            The classes of the columns of 2-D probabilities.

        Returns
        -------
        CalibrationState
            ``self``, with the batch added.
        """
        multiclass = "top_label" if self.multiclass == "binary" else self.multiclass
        conf, hit, w, kind = confidences(y_true, y_proba, sample_weight, pos_label,
                                         multiclass, labels=labels, batch=True)
        if kind != self.multiclass:
            raise InputError(f"this state holds {self.multiclass} calibration; the batch's "
                             f"y_proba gives {kind} (1-D: binary, 2-D: multiclass)")
        return self.add(conf, hit, w)

    def merge(self, other: CalibrationState) -> CalibrationState:
        """Return a new state holding both (the same bins and kind required).

        Parameters
        ----------
        other : CalibrationState
            The state of other data.

        Returns
        -------
        CalibrationState
            The state of both.
        """
        check_same_kind(self, other)
        same_edges = (self.edges is None and other.edges is None) or (
            self.edges is not None and other.edges is not None
            and np.array_equal(self.edges, other.edges))
        if (self.n_bins, self.n_groups, self.multiclass) != \
                (other.n_bins, other.n_groups, other.multiclass) or not same_edges:
            raise InputError("cannot merge calibration states with different bins or kinds: "
                             f"{self.n_bins} bins x {self.n_groups} {self.multiclass} and "
                             f"{other.n_bins} bins x {other.n_groups} {other.multiclass}")
        out = CalibrationState(self.n_bins, self.n_groups, edges=self.edges,
                               multiclass=self.multiclass)
        out.weight = self.weight + other.weight
        out.sum_p = self.sum_p + other.sum_p
        out.sum_p2 = self.sum_p2 + other.sum_p2
        return out

    # ------------------------------------------------------------------ numbers out

    def compute(self, metric: Any = "calibration_error", **kwargs: Any) -> Any:
        """``calibration_error`` (keywords ``norm``, ``debiased``) or ``brier_decomposition``.

        The keywords fixed by the state (``n_bins``, ``strategy``, ``multiclass``)
        may be repeated; another value than the state's is an error.

        Parameters
        ----------
        metric : str or callable, default="calibration_error"
            The metric's name or function.
        **kwargs
            Its keywords.

        Returns
        -------
        float or BrierDecomposition
            The metric of the data seen.
        """
        found = resolve_metric({"calibration_error": calibration_error,
                                "brier_decomposition": brier_decomposition}, metric)
        name = getattr(found, "func", found).__name__  # an alias ("ece") names its function
        kwargs = {**getattr(found, "keywords", {}), **kwargs}
        fixed = {"n_bins": self.n_bins,
                 "multiclass": None if self.multiclass == "binary" else self.multiclass}
        for key, value in fixed.items():
            if key in kwargs and kwargs.pop(key) != value and value is not None:
                raise InputError(f"{key}={value!r} is fixed by this state; got another value")
        kwargs.pop("strategy", None)
        if self.weight.sum() == 0:
            raise InputError("CalibrationState is empty; update it with data first")
        if name == "brier_decomposition":
            if kwargs:
                raise InputError(f"brier_decomposition takes no keywords here; got "
                                 f"{sorted(kwargs)}")
            return decomposition_from_sums(self.weight, self.sum_p, self.sum_p2)
        norm, debiased = norm_iv(kwargs.pop("norm", "l1"), kwargs.pop("debiased", False))
        if kwargs:
            raise InputError(f"unknown keyword(s) {sorted(kwargs)} for calibration_error")
        return float(error_from_sums(self.weight, self.sum_p, norm, debiased,
                                         self.multiclass))

    def error_bound(self, metric: Any) -> float:
        """0.0: the sums are exact (up to rounding); the bins are the metric's own.

        Parameters
        ----------
        metric : str or callable
            The metric.

        Returns
        -------
        float
            Always 0.0.
        """
        return 0.0

    def bins(self, group: int = 0) -> dict[str, np.ndarray]:
        """Per-bin arrays of one group: ``count``, ``positives``, ``sum_p``, ``low``, ``high``
        (the bin's edges; the extra bin of ``p = 1`` is ``[1, 1]``).

        Parameters
        ----------
        group : int, default=0
            The group.

        Returns
        -------
        dict of str to ndarray
            The per-bin arrays.
        """
        n = self.n_bins
        if self.edges is None:
            low = np.append(np.arange(n) / n, 1.0)
            high = np.append(np.arange(1, n + 1) / n, 1.0)
        else:
            e = self.edges[group]
            low, high = np.append(e[:-1], e[-1]), np.append(e[1:], e[-1])
        return {"count": self.weight[group].sum(0), "positives": self.weight[group, 1],
                "sum_p": self.sum_p[group].sum(0), "low": low, "high": high}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CalibrationState) and self.n_bins == other.n_bins \
            and self.multiclass == other.multiclass and all(
                np.array_equal(getattr(self, k), getattr(other, k))
                for k in ("weight", "sum_p", "sum_p2")) and (
                (self.edges is None) == (other.edges is None))

    __hash__ = None  # type: ignore[assignment]  # mutable state: unhashable

    def __repr__(self) -> str:
        return (f"CalibrationState(n_bins={self.n_bins}, n_groups={self.n_groups}, "
                f"multiclass={self.multiclass!r}, rows={self.weight.sum() / self.n_groups:g})")
