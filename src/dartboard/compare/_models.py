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
  Multiclass one-vs-rest and one-vs-one AUC (:mod:`dartboard.families._paired`) do the same
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
or a micro average it falls back to swapping the raw probability rows. With
``clusters`` binary ROC AUC swaps the raw scores instead (by their joint ranks over
both models), the exact exchange on whole clusters, and warns when one model's scores
lie in [0, 1] and the other's do not (:mod:`dartboard.compare._clustered`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._frames import rows_in_order
from dartboard._kernels._result import Interval
from dartboard._rng import RandomStateLike, spawn_generators
from dartboard._typing import Alternative
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
from dartboard.exceptions import InputError, InputTypeError
from dartboard.families import Metric, family_of
from dartboard.families._paired import PairedAUC, within_model_ranks
from dartboard.metrics._registry import MetricSpec, resolve_metric, spec_for

__all__ = ["compare_models"]

_METHODS = ("permutation", "cluster-robust")
# Cells (replicates x samples or x types) handled at once, so memory stays bounded.
_BATCH_CELLS = 1 << 22


def _prediction_values(spec: MetricSpec | None, a: np.ndarray,
                       b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scores, probabilities and values are numbers (named by argument, before the
    two models' scores are ranked together); labels are numbers or strings alike."""
    if spec is not None and not spec.takes_labels:
        return (as_float_array(a, name="pred_a", ndim=(1, 2), allow_nan=True),
                as_float_array(b, name="pred_b", ndim=(1, 2), allow_nan=True))
    kinds = {name: label_category(arr) for name, arr in (("pred_a", a), ("pred_b", b))}
    if "object" not in kinds.values() and kinds["pred_a"] != kinds["pred_b"]:
        raise InputTypeError(f"pred_a has {kinds['pred_a']} labels but pred_b has "
                             f"{kinds['pred_b']} labels; both models must predict the same "
                             "kind of label")
    return a, b


def refuse_strata(metric_kwargs: dict[str, Any], who: str) -> None:
    """``strata=`` is an argument of the intervals, not of a paired comparison: taken
    for a metric keyword it would reach the metric (an error that blames the metric,
    or a callable's ``**kwargs`` that drop it silently), so it is refused by name."""
    if "strata" in metric_kwargs:
        raise InputTypeError(
            f"{who} does not take strata: its permutation test swaps the models within "
            "each row, which holds whatever the strata, and its paired resamples draw "
            "rows (or whole clusters, with clusters=) from the whole test set; "
            "dartboard.interval(..., strata=) gives a stratified interval of one model")


def columns_of(data: Any, **roles: Any) -> dict[str, Any]:
    """The arrays that ``data``'s named columns hold, per role, for a paired comparison
    (``compare_models(..., data=)``): each role names one column, or several
    (probabilities, one column per class, stacked as a 2-D array); None is not given.
    The rows come in the order :func:`dartboard._frames.rows_in_order` fixes by their
    values, the same from every source."""
    for role, value in roles.items():
        several = isinstance(value, (list, tuple)) and value and \
            all(isinstance(v, str) for v in value)
        if value is not None and not isinstance(value, str) and not several:
            raise InputTypeError(f"with data=, {role} must name a column of data (a string)"
                                 f"{' or a list of them' if role.startswith('pred') else ''}; "
                                 f"got {describe(value)}")
    read = rows_in_order(data, roles)
    return {role: np.column_stack(value) if isinstance(value, list) else value
            for role, value in read.items()}


def _compare_models_iv(metric: Any, y_true: Any, pred_a: Any, pred_b: Any, method: Any,
                       n_resamples: Any, alternative: Any, confidence_level: Any,
                       sample_weight: Any) -> tuple:
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
        raise InputError(f"pred_a and pred_b must have the same shape; got {a.shape} "
                         f"and {b.shape}")
    if n < 2:
        raise InputError(f"y_true, pred_a and pred_b must hold at least 2 samples; got {n}")
    a, b = _prediction_values(spec_for(metric), a, b)
    for name, arr in (("pred_a", a), ("pred_b", b)):
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            raise InputError(f"{name} contains NaN or infinite values; all predictions "
                             "must be finite")
    w = check_sample_weight(sample_weight, n, scale_free=True)
    return y, a, b, n, n_resamples, confidence_level, w


def compare_models(metric: str | Callable[..., Any], y_true: ArrayLike, pred_a: ArrayLike, pred_b: ArrayLike, *,
                   method: str = "permutation", n_resamples: int = 5000,
                   alternative: Alternative = "two-sided", confidence_level: float = 0.95,
                   random_state: RandomStateLike = None, sample_weight: ArrayLike | None = None,
                   clusters: Any = None, data: Any = None, **metric_kwargs: Any) -> Comparison:
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
    metric : str or callable
        A dartboard metric (e.g. ``dartboard.metrics.f1_score``), its name or
        alias (``"f1"``, ``"f1_macro"``, ``"roc_auc"``) or any
        ``f(y_true, y_pred, **metric_kwargs) -> float``.
    y_true : array-like of shape (n,)
        True labels (or values) of the test rows, the same rows for both models.
    pred_a, pred_b : array-like of shape (n,) or (n, n_classes)
        Predictions (labels, scores or probabilities) of the two models.
    method : {"permutation", "cluster-robust"}
        How the null distribution is drawn. ``"cluster-robust"`` (with
        ``clusters``): a z-test of the difference over its cluster-robust standard
        error (ratios of counts, mean losses, binary ROC AUC;
        :mod:`dartboard.compare._clustered`).
    n_resamples : int, default 5000
        Number of permutation replicates and of bootstrap replicates, at most
        10**8 (``dartboard._validation.MAX_RESAMPLES``); drawn in batches.
    alternative : {"two-sided", "greater", "less"}
        The alternative hypothesis about the difference ``a - b``: ``"two-sided"`` (they
        differ), ``"greater"`` or ``"less"``.
    confidence_level : float, default 0.95
        Level of the bootstrap interval of the difference.
    random_state : None, int, SeedSequence or Generator
        Seed; the permutation and the bootstrap get independent spawned streams.
    sample_weight : array-like of shape (n,), optional
        Passed to the metric; each weight travels with its sample. Float weights
        whose largest magnitude lies outside [2**-100, 2**100] are first multiplied
        by a power of two (exact, and invisible to a weighted average).
    clusters : array-like of shape (n,), optional
        The cluster of each row (a passage, a patient) when rows of one cluster are
        not independent: the permutation swaps the models on whole clusters and the
        bootstrap draws whole clusters (both models' rows together), and
        ``method="cluster-robust"`` is available (:mod:`dartboard.compare._clustered`).
        For binary ROC AUC the permutation swaps the raw scores (not each model's own
        ranks, as without clusters): the exact exchange when the models are
        exchangeable within clusters. With 30 or 50 clusters of very unequal sizes it
        rejected 4.5-6.4% of equal models at 5% (intra-cluster correlation 0.2 and
        0.5; the cluster-robust test 3.7-5.8%; the validation page "Clustered rows"
        has the table). The two models' scores must then share one scale: a
        ``UserWarning`` says so when the scores of one all lie in [0, 1] and the
        other's do not (probabilities against logits or decision values). Put both
        on one scale, or use ``method="cluster-robust"``, which depends only on each
        model's order of scores.
    data : data frame, Parquet path or glob, Dask or Spark DataFrame, optional
        A table of predictions (pandas, Polars, PyArrow and any other library
        narwhals reads; Parquet files; a Dask or a Spark DataFrame, classic or
        Connect). Then ``y_true``, ``pred_a``, ``pred_b``, ``sample_weight`` and
        ``clusters`` name its columns (``pred_a``/``pred_b`` a list of columns for
        probabilities of each class). The resamples draw one number per row, so the
        rows are read into memory, sorted by their values: the numbers are the same
        whatever the source, the order of the rows or the partitioning. A Spark
        DataFrame is first reduced where it is to its distinct rows and their counts,
        so identical rows cross to the driver once.
    **metric_kwargs
        Passed to the metric (e.g. ``average="macro"``). A metric that returns
        one value per class (``average=None``) is an error: a test needs one number.
        ``strata`` is refused with a ``TypeError``: the swap within each row needs
        no strata, and the paired bootstrap is not stratified.

    Returns
    -------
    Comparison
        ``estimate_a``, ``estimate_b``, ``difference``, ``interval``, ``pvalue``,
        ``null_distribution`` and ``significant(alpha)``.

    See Also
    --------
    dartboard.compare_k_models : Every pair of k models, adjusted.
    dartboard.mcnemar_test : Two classifiers' accuracies, exactly.
    dartboard.delong_test : Two ROC AUCs on the same rows.
    dartboard.interval : One model's interval.

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
    refuse_strata(metric_kwargs, "compare_models")
    if data is not None:
        read = columns_of(data, y_true=y_true, pred_a=pred_a, pred_b=pred_b,
                          sample_weight=sample_weight, clusters=clusters)
        y_true, pred_a, pred_b = read["y_true"], read["pred_a"], read["pred_b"]
        sample_weight, clusters = read["sample_weight"], read["clusters"]
    resolved = resolve_metric(metric)
    metric, metric_kwargs = resolved.function, {**resolved.kwargs, **metric_kwargs}
    y, a, b, n, n_resamples, level, w = _compare_models_iv(
        metric, y_true, pred_a, pred_b, method, n_resamples, alternative,
        confidence_level, sample_weight)
    name = getattr(metric, "__name__", type(metric).__name__)
    weight_kw = {} if w is None else {"sample_weight": w}
    estimate_a = _scalar(metric(y, a, **weight_kw, **metric_kwargs), name)
    estimate_b = _scalar(metric(y, b, **weight_kw, **metric_kwargs), name)
    observed = estimate_a - estimate_b
    if not np.isfinite(observed):
        raise InputError(f"{name} is undefined (estimate_a={estimate_a}, estimate_b="
                         f"{estimate_b}) on these data, so the two models cannot be "
                         "compared with it")
    spec = spec_for(metric)
    family = family_of(spec)
    m = None if spec is None else Metric(spec, dict(metric_kwargs))
    if clusters is not None or method == "cluster-robust":
        return _with_clusters(metric, name, y, a, b, w, metric_kwargs, clusters,
                              (estimate_a, estimate_b), method, n_resamples, alternative,
                              level, random_state, spec, family, m)
    perm_seed, boot_seed = spawn_generators(random_state, 2)
    paired = family.paired(y, a, b, w, m) \
        if family is not None and m is not None and m.spec.scalar else None
    if paired is not None:
        null = paired.permutation(n_resamples, perm_seed)
        boot = paired.bootstrap(n_resamples, boot_seed)
        how = paired.how
    else:
        ranked = m is not None and m.spec.order_only and (
            family is None or family.rank_swappable(m, a, y))
        if ranked:
            a, b = within_model_ranks(a), within_model_ranks(b)
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


def _with_clusters(metric: Callable[..., Any], name: str, y: np.ndarray, a: np.ndarray,
                   b: np.ndarray, w: np.ndarray | None, kwargs: dict[str, Any],
                   clusters: Any, estimates: tuple[float, float], method: str,
                   n_resamples: int, alternative: str, level: float, random_state: Any,
                   spec: MetricSpec | None, family: Any, m: Metric | None) -> Comparison:
    from dartboard._kernels._clustered import cluster_index
    from dartboard.compare._clustered import clustered_comparison

    if clusters is None:
        raise InputError("method='cluster-robust' needs clusters= (the cluster of each row)")
    swap = "values"
    if spec is not None and spec.order_only and (
            family is None or family.rank_swappable(m, a, y)):
        # a binary ranking metric exchanges the raw scores (exact on whole clusters,
        # where each model's own ranks are not); ROC AUC's swaps are then counted
        swap = "ranks"
        if family is not None and family.swaps_raw_scores(m, a):
            swap = "auc" if family.paired_kind(y, a, w, m) is PairedAUC else "scores"
    return clustered_comparison(metric, name, y, a, b, w, kwargs,
                                cluster_index(clusters, y.shape[0]), estimates, method,
                                n_resamples, alternative, level, random_state, swap)


def _scalar(value: Any, name: str) -> float:
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise InputError(f"metric {name} returned {describe(value)}; compare_models needs "
                         "one number per model (e.g. pass average='macro')")
    return float(arr)


def _percentile_interval(boot: np.ndarray, observed: float, level: float,
                         name: str) -> Interval:
    """The percentile interval of the paired bootstrap, by the interval engine."""
    from dartboard._kernels._bootstrap import Replicates, bootstrap_interval

    low, high, se, _, kept = bootstrap_interval(observed, Replicates(boot), level,
                                                "percentile")
    return Interval(estimate=observed, low=low, high=high, confidence_level=level,
                    method="paired bootstrap percentile", standard_error=se,
                    bootstrap_distribution=kept, n_resamples=int(boot.shape[0]),
                    metric=f"difference in {name}")


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
            swap = np.reshape(rng.random(n) < 0.5, mask_shape)
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
