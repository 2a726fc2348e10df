"""compare_models: a paired test and a paired bootstrap interval for any metric.

Three samplers share one contract (R null differences, R bootstrap differences):

* count metrics (the confusion-matrix family) without sample weights: the
  type-reduced sampler. Samples are grouped by their (true, pred_a, pred_b)
  type. Swapping the predictions of a sample where both models agree changes
  nothing, so each replicate only draws how many samples of each disagreeing type
  are swapped, ``Binomial(group size, 1/2)``, and the two confusion matrices follow
  from those counts. The paired bootstrap draws the type counts as
  ``Multinomial(n, type frequencies)``. A replicate costs O(K^3), not O(n).
* binary ROC AUC: each model's scores are ranked once; each replicate (a row of
  a batch of swapped or resampled ranks) then needs only a counting pass, no sort.
  Multiclass one-vs-rest and one-vs-one AUC (:mod:`._multiclass_auc`) do the same
  per class column.
* any other metric or callable: swap masks and resample indices drawn per
  replicate, the metric called on the swapped predictions (O(n) per replicate).

Score metrics (registry input ``"scores"``: ROC AUC, average precision, PR AUC)
depend only on the order of one model's scores, so a monotone transform of that
model's scores must leave the test unchanged. Swapping raw scores between two
models on different scales (a 1-5 rating and a 0-2 lab value) mixes the scales
and widens the null distribution. What is swapped is therefore each model's
midranks (``1..n``, ties averaged; over the whole score matrix for 2-D scores),
which are on one scale for both models and keep each model's metric exactly.
Probabilities (log loss, Brier) keep their values: there the scale is what the
metric measures, and swapping raw probabilities is the right exchange. The one
score metric that demands probabilities, multiclass ROC AUC (rows summing to 1),
is ranked per class column by its batched path; with sample weights, ``labels``
or a micro average it falls back to swapping the raw probability rows.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import stats

from dartboard._labels import encode_labels, positive_index
from dartboard._rng import spawn_generators
from dartboard._validation import (
    as_float_array,
    check_confidence_level,
    check_consistent_length,
    check_n_resamples,
    check_option,
    check_sample_weight,
    describe,
    label_category,
    rows_array,
)
from dartboard.compare._permutation import ALTERNATIVES, count_extreme
from dartboard.compare._results import Comparison
from dartboard.metrics._batched import batch_count_metric
from dartboard.metrics._registry import MetricSpec, spec_for
from dartboard.uncertainty import Interval

__all__ = ["compare_models"]

_METHODS = ("permutation",)
# Cells (replicates x samples or x types) handled at once, so memory stays bounded.
_BATCH_CELLS = 1 << 22


def _metric_kind(spec: MetricSpec | None, sample_weight: Any,
                 metric_kwargs: dict[str, Any], pred: np.ndarray, y: np.ndarray) -> str:
    """The paired path for this call: the metric's fast path when the call allows it."""
    from dartboard.compare._multiclass_auc import batched_multiclass

    fast = None if spec is None or not spec.scalar else spec.compare_fast
    if fast == "counts":
        return "counts" if sample_weight is None else "generic"
    if fast == "auc" and sample_weight is None and not metric_kwargs and pred.ndim == 1:
        return "auc"
    if fast == "auc" and sample_weight is None and pred.ndim == 2 and y.ndim == 1 \
            and batched_multiclass(metric_kwargs):
        return "multiclass_auc"
    if fast == "mean_loss" and set(metric_kwargs) <= set(spec.loss_terms[1]):
        return "mean_loss"
    return "generic"


def _prediction_values(spec: MetricSpec | None, a: np.ndarray,
                       b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scores, probabilities and values are numbers (named by argument, before the
    two models' scores are ranked together); labels are numbers or strings alike."""
    if spec is not None and spec.input != "labels":
        return (as_float_array(a, name="pred_a", ndim=(1, 2), allow_nan=True),
                as_float_array(b, name="pred_b", ndim=(1, 2), allow_nan=True))
    kinds = {name: label_category(arr) for name, arr in (("pred_a", a), ("pred_b", b))}
    if "object" not in kinds.values() and kinds["pred_a"] != kinds["pred_b"]:
        raise TypeError(f"pred_a has {kinds['pred_a']} labels but pred_b has "
                        f"{kinds['pred_b']} labels; both models must predict the same "
                        "kind of label")
    return a, b


def _compare_models_iv(metric: Any, y_true: Any, pred_a: Any, pred_b: Any, method: Any,
                       n_resamples: Any, alternative: Any, confidence_level: Any,
                       sample_weight: Any) -> tuple:
    if not callable(metric):
        raise TypeError("metric must be a dartboard metric function or a callable "
                        f"f(y_true, y_pred, **kw) -> float; got {describe(metric)}")
    check_option(method, "method", _METHODS)
    n_resamples = check_n_resamples(n_resamples)
    check_option(alternative, "alternative", ALTERNATIVES)
    confidence_level = check_confidence_level(confidence_level)
    # a one-column frame or (n, 1) array is a column of labels or scores, as in the
    # metrics; squeezed, it pairs with a Series and takes the fast paths
    y, a, b = (rows_array(y_true, name="y_true"), rows_array(pred_a, name="pred_a"),
               rows_array(pred_b, name="pred_b"))
    n = check_consistent_length(("y_true", y), ("pred_a", a), ("pred_b", b))
    if a.shape != b.shape:
        raise ValueError(f"pred_a and pred_b must have the same shape; got {a.shape} "
                         f"and {b.shape}")
    if n < 2:
        raise ValueError(f"y_true, pred_a and pred_b must hold at least 2 samples; got {n}")
    a, b = _prediction_values(spec_for(metric), a, b)
    for name, arr in (("pred_a", a), ("pred_b", b)):
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            raise ValueError(f"{name} contains NaN or infinite values; all predictions "
                             "must be finite")
    w = check_sample_weight(sample_weight, n, scale_free=True)
    return y, a, b, n, n_resamples, confidence_level, w


def compare_models(metric: Callable[..., Any], y_true: Any, pred_a: Any, pred_b: Any, *,
                   method: str = "permutation", n_resamples: int = 5000,
                   alternative: str = "two-sided", confidence_level: float = 0.95,
                   random_state: Any = None, sample_weight: Any = None,
                   **metric_kwargs: Any) -> Comparison:
    """Test whether two models score differently on the same test set.

    Under the null hypothesis the two models are exchangeable: for each sample,
    its two predictions could have come from either model. The null distribution
    of ``metric(y, a*) - metric(y, b*)`` is drawn by swapping the two predictions
    of each sample with probability 1/2 (``n_resamples`` times), and the p-value is
    ``(S + 1) / (R + 1)`` with S the swapped differences at least as extreme as the
    observed one (``|t*| >= |t|`` two-sided, ``t* >= t`` for "greater" = a scores
    higher, ``t* <= t`` for "less"). The interval is the percentile interval of the
    paired bootstrap: the test set is resampled with replacement (the same indices
    for both models) and the difference recomputed.

    Count metrics (accuracy, precision, recall, F-beta, specificity, MCC, kappa,
    ...) without sample weights use the type-reduced sampler (see the module
    docstring): only samples where the models disagree move, so a million samples
    cost about as much as a thousand. Score metrics (ROC AUC, average precision,
    PR AUC) depend only on the order of each model's scores, so what is swapped is
    each model's midranks: a monotone transform of one model's scores (a rescaling,
    a log) leaves the test unchanged, and two models on different scales are not
    mixed (see the module docstring). Binary ROC AUC and multiclass one-vs-rest or
    one-vs-one ROC AUC (``multi_class=...``, ``average="macro"`` or
    ``"weighted"``) are batched. Log loss and the
    binary Brier score are means of per-sample losses, so swapping a sample's
    predictions flips the sign of its loss difference: a batched sign-flip test.
    Other metrics and callables are called once per replicate and model.

    Parameters
    ----------
    metric : callable
        A dartboard metric (e.g. ``dartboard.metrics.f1_score``) or any
        ``f(y_true, y_pred, **metric_kwargs) -> float``.
    y_true : array-like of shape (n,)
    pred_a, pred_b : array-like of shape (n,) or (n, n_classes)
        Predictions (labels, scores or probabilities) of the two models.
    method : {"permutation"}
        How the null distribution is drawn.
    n_resamples : int, default 5000
        Number of permutation replicates and of bootstrap replicates, at most
        10**8 (``dartboard._validation.MAX_RESAMPLES``); drawn in batches.
    alternative : {"two-sided", "greater", "less"}
    confidence_level : float, default 0.95
        Level of the bootstrap interval of the difference.
    random_state : None, int, SeedSequence or Generator
        Seed; the permutation and the bootstrap get independent spawned streams.
    sample_weight : array-like of shape (n,), optional
        Passed to the metric; each weight travels with its sample. Float weights
        whose largest magnitude lies outside [2**-100, 2**100] are first multiplied
        by a power of two (exact, and invisible to a weighted average).
    **metric_kwargs
        Passed to the metric (e.g. ``average="macro"``). A metric that returns
        one value per class (``average=None``) is an error: a test needs one number.

    Returns
    -------
    Comparison
        ``estimate_a``, ``estimate_b``, ``difference``, ``interval``, ``pvalue``,
        ``null_distribution`` and ``significant(alpha)``.

    Notes
    -----
    A metric undefined on the data (nan) is an error. Bootstrap replicates in
    which it is undefined (e.g. an AUC of a resample holding one class) are
    dropped with a warning; permutation replicates in which it is undefined count
    as not extreme, with a warning.

    Examples
    --------
    >>> from dartboard.metrics import accuracy_score
    >>> y = [0, 1, 1, 0, 1, 0, 1, 1, 0, 0] * 20
    >>> a = [0, 1, 1, 0, 1, 0, 1, 0, 0, 0] * 20
    >>> b = [0, 1, 0, 0, 1, 1, 1, 0, 0, 1] * 20
    >>> res = compare_models(accuracy_score, y, a, b, random_state=0)
    >>> round(res.difference, 2), res.pvalue < 0.001, res.interval.low > 0
    (0.3, True, True)
    """
    y, a, b, n, n_resamples, level, w = _compare_models_iv(
        metric, y_true, pred_a, pred_b, method, n_resamples, alternative,
        confidence_level, sample_weight)
    name = getattr(metric, "__name__", type(metric).__name__)
    weight_kw = {} if w is None else {"sample_weight": w}
    estimate_a = _scalar(metric(y, a, **weight_kw, **metric_kwargs), name)
    estimate_b = _scalar(metric(y, b, **weight_kw, **metric_kwargs), name)
    observed = estimate_a - estimate_b
    if not np.isfinite(observed):
        raise ValueError(f"{name} is undefined (estimate_a={estimate_a}, estimate_b="
                         f"{estimate_b}) on these data, so the two models cannot be "
                         "compared with it")
    perm_seed, boot_seed = spawn_generators(random_state, 2)
    spec = spec_for(metric)
    kind = _metric_kind(spec, w, metric_kwargs, a, y)
    ranked = kind == "generic" and _rank_invariant(spec, y, a)
    if ranked:
        a, b = _within_model_ranks(a), _within_model_ranks(b)
    losses = None
    if kind == "mean_loss":
        losses = _per_sample_losses(spec, y, a, b, metric_kwargs)
    if kind == "counts":
        sampler = _TypeCounts(name, y, a, b, metric_kwargs)
        null = sampler.permutation(n_resamples, perm_seed)
        boot = sampler.bootstrap(n_resamples, boot_seed)
        how = "type-reduced sample-swap permutation (Binomial per disagreeing type)"
    elif kind == "mean_loss":
        null = _loss_permutation(losses, w, n_resamples, perm_seed)
        boot = _loss_bootstrap(losses, w, n_resamples, boot_seed)
        how = "sign-flip permutation of per-sample loss differences"
    elif kind == "auc":
        yt = _binary_truth(y)
        null = _auc_permutation(yt, a, b, n_resamples, perm_seed)
        boot = _auc_bootstrap(yt, a, b, n_resamples, boot_seed)
        how = "batched sample-swap permutation of within-model score ranks"
    elif kind == "multiclass_auc":
        from dartboard.compare._multiclass_auc import MulticlassAUC

        sampler = MulticlassAUC(y, a, b, metric_kwargs)
        null = sampler.permutation(n_resamples, perm_seed)
        boot = sampler.bootstrap(n_resamples, boot_seed)
        how = "batched sample-swap permutation of within-model score ranks, per class"
    else:
        null = _generic_permutation(metric, y, a, b, w, metric_kwargs, n_resamples, perm_seed)
        boot = _generic_bootstrap(metric, y, a, b, w, metric_kwargs, n_resamples, boot_seed)
        how = ("sample-swap permutation of within-model score ranks" if ranked
               else "sample-swap permutation")
    undefined = int(np.count_nonzero(~np.isfinite(null)))
    if undefined:
        warnings.warn(f"{name} was undefined in {undefined} of {n_resamples} permutation "
                      "replicates; they count as not extreme", UserWarning, stacklevel=2)
    pvalue = (count_extreme(null, observed, alternative) + 1) / (n_resamples + 1)
    interval = _percentile_interval(boot, observed, level, name)
    return Comparison(metric=name, estimate_a=estimate_a, estimate_b=estimate_b,
                      difference=observed, interval=interval, pvalue=float(min(pvalue, 1.0)),
                      method=how, alternative=alternative, n_resamples=n_resamples,
                      null_distribution=null)


def _scalar(value: Any, name: str) -> float:
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise ValueError(f"metric {name} returned {describe(value)}; compare_models needs "
                         "one number per model (e.g. pass average='macro')")
    return float(arr)


def _percentile_interval(boot: np.ndarray, observed: float, level: float,
                         name: str) -> Interval:
    """The percentile interval of the paired bootstrap, by the interval engine."""
    from dartboard.uncertainty._bootstrap import Replicates, bootstrap_interval

    low, high, se, _, kept = bootstrap_interval(observed, Replicates(boot), level,
                                                "percentile")
    return Interval(estimate=observed, low=low, high=high, confidence_level=level,
                    method="paired bootstrap percentile", standard_error=se,
                    bootstrap_distribution=kept, n_resamples=int(boot.shape[0]),
                    metric=f"difference in {name}")


# ---------------------------------------------------------------- count metrics

class _TypeCounts:
    """The test set reduced to counts of (true, pred_a, pred_b) types."""

    def __init__(self, name: str, y: np.ndarray, a: np.ndarray, b: np.ndarray,
                 kwargs: dict[str, Any]) -> None:
        enc = encode_labels(("y_true", y), ("pred_a", a), ("pred_b", b))
        t, pa, pb = enc.codes
        k = enc.n_classes
        codes = (t.astype(np.int64) * k + pa) * k + pb
        if k ** 3 <= max(4096, 4 * codes.shape[0]):
            counts = np.bincount(codes, minlength=k ** 3)
            types = np.flatnonzero(counts)
            counts = counts[types]
        else:  # many classes: only the types that occur
            types, counts = np.unique(codes, return_counts=True)
        self._set_types(name, kwargs, enc.classes, types, counts)

    @classmethod
    def from_types(cls, name: str, classes: np.ndarray, types: np.ndarray,
                   counts: np.ndarray, kwargs: dict[str, Any]) -> _TypeCounts:
        """A sampler of already counted type codes ``(true * k + pred_a) * k + pred_b``
        (k = len(classes)); k models compared pair by pair count their rows once."""
        self = cls.__new__(cls)
        self._set_types(name, kwargs, np.asarray(classes), np.asarray(types),
                        np.asarray(counts))
        return self

    def _set_types(self, name: str, kwargs: dict[str, Any], classes: np.ndarray,
                   types: np.ndarray, counts: np.ndarray) -> None:
        k = classes.shape[0]
        self.name, self.kwargs, self.classes, self.k = name, kwargs, classes, k
        self.counts = counts
        true, rest = np.divmod(types, k * k)
        pred_a, pred_b = np.divmod(rest, k)
        # confusion cell of each type for model a and for model b
        self.cell_a = true * k + pred_a
        self.cell_b = true * k + pred_b
        self.moving = pred_a != pred_b
        # replicates per batch, so that batch * (types + cells) stays bounded
        self.rows = max(1, _BATCH_CELLS // (types.shape[0] + k * k))

    def _matrices(self, type_counts: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """Confusion matrices (rows, k, k) from per-type counts (rows, types)."""
        rows = type_counts.shape[0]
        kk = self.k * self.k
        flat = (np.arange(rows)[:, None] * kk + cells[None, :]).ravel()
        out = np.bincount(flat, weights=type_counts.ravel(), minlength=rows * kk)
        return out.reshape(rows, self.k, self.k)

    def _difference(self, ma: np.ndarray, mb: np.ndarray) -> np.ndarray:
        return (batch_count_metric(self.name, self.classes, ma, self.kwargs)
                - batch_count_metric(self.name, self.classes, mb, self.kwargs))

    def permutation(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        out = np.empty(n_resamples)
        moving = self.moving
        for start in range(0, n_resamples, self.rows):
            rows = min(self.rows, n_resamples - start)
            swapped = rng.binomial(self.counts[moving], 0.5,
                                   size=(rows, int(moving.sum()))).astype(np.float64)
            kept = np.tile(self.counts.astype(np.float64), (rows, 1))
            kept[:, moving] -= swapped
            # a swapped sample of type (t, a, b) counts in cell (t, b) for model a
            # and in cell (t, a) for model b
            ma = (self._matrices(kept, self.cell_a)
                  + self._matrices(swapped, self.cell_b[moving]))
            mb = (self._matrices(kept, self.cell_b)
                  + self._matrices(swapped, self.cell_a[moving]))
            out[start:start + rows] = self._difference(ma, mb)
        return out

    def bootstrap(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        out = np.empty(n_resamples)
        total = int(self.counts.sum())
        freq = self.counts / total
        for start in range(0, n_resamples, self.rows):
            rows = min(self.rows, n_resamples - start)
            draws = rng.multinomial(total, freq, size=rows).astype(np.float64)
            out[start:start + rows] = self._difference(self._matrices(draws, self.cell_a),
                                                       self._matrices(draws, self.cell_b))
        return out


# ---------------------------------------------------------------- binary ROC AUC

def _binary_truth(y: np.ndarray) -> np.ndarray:
    """Positives of a binary ``y_true``: the greater label, as roc_auc_score reads scores."""
    enc = encode_labels(("y_true", y))
    if enc.n_classes != 2:
        raise ValueError(f"roc_auc_score in compare_models needs binary y_true; got "
                         f"{enc.n_classes} classes")
    return enc.codes[0] == positive_index(enc.classes, infer="greater")


def _rank_invariant(spec: MetricSpec | None, y: np.ndarray, pred: np.ndarray) -> bool:
    """Whether the generic path swaps ranks: a score metric, except multiclass ROC AUC,
    whose validation demands probability rows (the registry's ``auc`` fast path on 2-D
    scores of a 1-D multiclass ``y_true``)."""
    if spec is None or spec.input != "scores":
        return False
    return not (spec.compare_fast == "auc" and pred.ndim == 2 and y.ndim == 1)


def _within_model_ranks(x: np.ndarray, axis: int | None = None) -> np.ndarray:
    """Midranks of one model's scores (1..n, ties averaged), over all entries by default.

    A monotone increasing transform of the scores leaves them unchanged, and both
    models' ranks share one scale, so swapping them mixes no scales."""
    return stats.rankdata(x, axis=axis).reshape(x.shape)


def _score_codes(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Integer codes of each model's own midranks (twice the midrank: ties give halves),
    computed once, before any replicate."""
    n = a.shape[0]
    return ((2.0 * _within_model_ranks(a)).astype(np.int64),
            (2.0 * _within_model_ranks(b)).astype(np.int64), 2 * n + 1)


def _batch_auc(yt: np.ndarray, codes: np.ndarray, n_codes: int,
               use: np.ndarray | None = None) -> np.ndarray:
    """Binary AUC of each row of ``codes`` (rows x n integer score ranks); nan if undefined.

    Counting, not sorting: per row the positives and negatives at each score rank
    (one bincount), then ``sum_c pos_c (neg_below_c + neg_c / 2) / (m n0)``, which
    gives ties exactly half a pair. ``use`` (broadcast to the rows) keeps only the
    samples it marks, e.g. the two classes of a one-vs-one AUC.
    """
    rows = codes.shape[0]
    yt = np.broadcast_to(yt, codes.shape)
    flat = (np.arange(rows)[:, None] * n_codes + codes).ravel()
    keep = None if use is None else np.broadcast_to(use, codes.shape).ravel().astype(np.float64)
    total = np.bincount(flat, weights=keep, minlength=rows * n_codes).reshape(rows, n_codes)
    hits = yt.ravel().astype(np.float64)
    pos = np.bincount(flat, weights=hits if keep is None else hits * keep,
                      minlength=rows * n_codes).reshape(rows, n_codes)
    neg = total - pos
    neg_below = np.cumsum(neg, axis=1) - neg
    m = pos.sum(axis=1)
    n0 = neg.sum(axis=1)
    ok = (m > 0) & (n0 > 0)
    out = np.full(rows, np.nan)
    pairs = (pos * (neg_below + 0.5 * neg)).sum(axis=1)
    out[ok] = pairs[ok] / (m[ok] * n0[ok])
    return out


def _batches(n_resamples: int, width: int):
    rows = max(1, _BATCH_CELLS // width)
    for start in range(0, n_resamples, rows):
        yield start, min(rows, n_resamples - start)


def _auc_permutation(yt: np.ndarray, a: np.ndarray, b: np.ndarray, n_resamples: int,
                     rng: np.random.Generator) -> np.ndarray:
    ca, cb, n_codes = _score_codes(a, b)
    out = np.empty(n_resamples)
    for start, size in _batches(n_resamples, max(a.shape[0], n_codes)):
        swap = rng.random((size, a.shape[0])) < 0.5
        out[start:start + size] = (_batch_auc(yt, np.where(swap, cb, ca), n_codes)
                                   - _batch_auc(yt, np.where(swap, ca, cb), n_codes))
    return out


def _auc_bootstrap(yt: np.ndarray, a: np.ndarray, b: np.ndarray, n_resamples: int,
                   rng: np.random.Generator) -> np.ndarray:
    ca, cb, n_codes = _score_codes(a, b)
    n = a.shape[0]
    out = np.empty(n_resamples)
    for start, size in _batches(n_resamples, max(n, n_codes)):
        idx = rng.integers(0, n, size=(size, n))
        out[start:start + size] = (_batch_auc(yt[idx], ca[idx], n_codes)
                                   - _batch_auc(yt[idx], cb[idx], n_codes))
    return out


# ---------------------------------------------------------------- mean losses

def _per_sample_losses(spec: MetricSpec, y: np.ndarray, a: np.ndarray, b: np.ndarray,
                       kwargs: dict[str, Any]) -> np.ndarray:
    """Loss differences l_a - l_b per sample, from the metric's own per-sample terms."""
    terms = getattr(importlib.import_module(spec.module), spec.loss_terms[0])
    return terms(y, a, **kwargs)[0] - terms(y, b, **kwargs)[0]


def _loss_permutation(d: np.ndarray, w: np.ndarray | None, n_resamples: int,
                      rng: np.random.Generator) -> np.ndarray:
    from dartboard.compare._permutation import _random_null

    if w is not None:  # sum(w s d) / sum(w) = mean(s d') with d' = w d / mean(w)
        d = d * (w / w.mean())
    return _random_null(d, n_resamples, rng)


def _loss_bootstrap(d: np.ndarray, w: np.ndarray | None, n_resamples: int,
                    rng: np.random.Generator) -> np.ndarray:
    n = d.shape[0]
    out = np.empty(n_resamples)
    for start, size in _batches(n_resamples, n):
        idx = rng.integers(0, n, size=(size, n))
        if w is None:
            out[start:start + size] = d[idx].mean(axis=1)
        else:
            wi = w[idx].astype(np.float64)
            total = wi.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[start:start + size] = (wi * d[idx]).sum(axis=1) / total
    return out


# ---------------------------------------------------------------- any metric

def _call(metric: Callable[..., Any], y: np.ndarray, pred: np.ndarray, w: np.ndarray | None,
          kwargs: dict[str, Any]) -> float:
    if w is not None:
        return float(metric(y, pred, sample_weight=w, **kwargs))
    return float(metric(y, pred, **kwargs))


def _generic_permutation(metric: Callable[..., Any], y: np.ndarray, a: np.ndarray,
                         b: np.ndarray, w: np.ndarray | None, kwargs: dict[str, Any],
                         n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    n = a.shape[0]
    out = np.empty(n_resamples)
    mask_shape = (n,) + (1,) * (a.ndim - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for r in range(n_resamples):
            swap = (rng.random(n) < 0.5).reshape(mask_shape)
            out[r] = (_call(metric, y, np.where(swap, b, a), w, kwargs)
                      - _call(metric, y, np.where(swap, a, b), w, kwargs))
    return out


def _generic_bootstrap(metric: Callable[..., Any], y: np.ndarray, a: np.ndarray,
                       b: np.ndarray, w: np.ndarray | None, kwargs: dict[str, Any],
                       n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    n = a.shape[0]
    out = np.empty(n_resamples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for r in range(n_resamples):
            idx = rng.integers(0, n, size=n)
            wi = None if w is None else w[idx]
            try:
                out[r] = (_call(metric, y[idx], a[idx], wi, kwargs)
                          - _call(metric, y[idx], b[idx], wi, kwargs))
            except ValueError:  # e.g. a resample holding one class only
                out[r] = np.nan
    return out
