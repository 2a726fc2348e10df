"""``interval`` and ``cv_interval``: the public face of dartboard's intervals."""

from __future__ import annotations

import dataclasses
import numbers
import reprlib
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from dartboard._kernels import _bootstrap
from dartboard._kernels._analytic_rows import applicable, asymptotic_interval, sample_size
from dartboard._kernels._bootstrap import IntervalWarning
from dartboard._kernels._clustered import (
    CLUSTER_METHODS,
    ClusterIndex,
    cluster_index,
    cluster_matrix,
    cluster_replicates,
    generic_cluster_replicates,
    studentized_interval,
)
from dartboard._kernels._clustered_analytic import (
    ANALYTIC_BELOW_CLUSTERS,
    AUTO_METHODS,
    AUTO_MIN_CLUSTERS,
    AUTO_MIN_ROWS,
    CLUSTERED_ANALYTIC_METHODS,
    JACKKNIFE_LOGIT,
    STUDENTIZED_BELOW_CLUSTERS,
    STUDENTIZED_MIN_CLUSTERS,
    ClusterTerms,
    clustered_interval,
    unequal_sizes,
    warn_few_clusters,
)
from dartboard._kernels._methods import (
    LOGIT_CLUSTERED,
    METHODS,
    PIVOT,
    STUDENTIZED,
    IntervalMethod,
)
from dartboard._kernels._result import Interval, clip_to_range
from dartboard._labels import encode_ids, encode_labels, positive_index
from dartboard._rng import RandomStateLike, check_random_state
from dartboard._validation import (
    as_float_array,
    check_confidence_level,
    check_consistent_length,
    check_n_resamples,
    check_option,
    check_sample_weight,
    column_1d,
    describe,
    id_array,
    rows_array,
)
from dartboard.exceptions import InputError, InputTypeError
from dartboard.families import Batch, Family, Metric, family_of
from dartboard.families._base import (
    BOOTSTRAP_METHODS,
    Cells,
    NoCells,
    choose_method,
    declared,
    interval_of,
    not_declared,
)
from dartboard.metrics._registry import MetricSpec, get_spec, resolve_metric
from dartboard.uncertainty._bounded import bounded_t_interval, scale_name

__all__ = ["Interval", "IntervalWarning", "clustered_cells", "cv_interval", "interval",
           "interval_from_clusters", "simulated_interval",
           "interval_from_calibration_state"]


def interval(metric: str | Callable[..., Any], y_true: ArrayLike, y_other: ArrayLike, *,
             method: IntervalMethod = "auto",
             confidence_level: float = 0.95, n_resamples: int = 10_000,
             stratified: bool = False, random_state: RandomStateLike = None, sample_weight: ArrayLike | None = None,
             clusters: Any = None, strata: ArrayLike | None = None,
             **metric_kwargs: Any) -> Interval:
    """Confidence interval of any metric: analytic where exact theory exists, else bootstrap.

    Parameters
    ----------
    metric : str or callable
        A dartboard metric (``dartboard.metrics.f1_score``...), its name or alias
        (``"f1"``, ``"f1_macro"``, ``"roc_auc"``; see
        :func:`~dartboard.metrics._registry.resolve_metric`) or any callable
        ``f(y_true, y_other, **metric_kwargs) -> float`` (it must accept
        ``sample_weight=`` when weights are given).
    y_true, y_other : array-like of shape (n_samples,) or (n_samples, k)
        True values and predictions (labels or scores, as ``metric`` expects).
    method : str, default="auto"
        ``"wald"``, ``"wilson"``, ``"clopper-pearson"``, ``"agresti-coull"``,
        ``"jeffreys"`` (proportion metrics), ``"delong"``, ``"delong-logit"`` and
        ``"newcombe"`` (binary ROC AUC), ``"logit"`` (Boyd et al. 2013) and
        ``"influence-logit"`` (binary average precision and PR AUC), ``"t"`` (a mean of per-sample
        losses: log loss, Brier, MAE, MSE, RMSE, MAPE; see
        :mod:`dartboard._kernels._analytic`), ``"percentile"``, ``"basic"``,
        ``"bca"`` (bootstrap, any metric), ``"bin-pivot"`` (the calibration error:
        bin-level worlds that account for its bias, see
        :mod:`dartboard._kernels._calibration`). ``"auto"`` picks wilson for
        proportions, bca for other count metrics and generic callables, and for
        the rest the registry's choice by sample size (``auto_interval``,
        measured by coverage in ``benchmarks/interval_choice.py``): binary ROC
        AUC newcombe below 30 samples in the smaller class, delong-logit from 30
        and delong from 100, multiclass (ovr macro) AUC influence-logit, AP and PR AUC logit
        below 100 in the smaller class and influence-logit from 100, mean
        losses t from 1000 samples (a classification loss with 40 of its rarest
        class too: ``benchmarks/mean_loss_coverage.py``) and bca below, the
        registry's bootstrap method
        where it names one, and bin-pivot for calibration_error (basic with
        weights, ``stratified=True`` or classwise errors). Analytic methods take no
        ``sample_weight``; with weights ``auto`` uses bca.
    confidence_level : float, default=0.95
        Strictly between 0 and 1.
    n_resamples : int, default=10_000
        Bootstrap resamples (bootstrap methods only), at most
        ``dartboard._validation.MAX_RESAMPLES`` (10**8); drawn in memory-bounded
        batches.
    stratified : bool, default=False
        Resample within each class of ``y_true`` so that every resample keeps
        every class (bootstrap methods only; analytic methods ignore it).
    random_state : None, int, SeedSequence or Generator
        Seed of the bootstrap; the same seed gives the same interval.
    sample_weight : array-like of shape (n_samples,), optional
        Row weights. The bootstrap resamples rows, each keeping its weight.
        Analytic proportion intervals accept integer weights only (as frequency
        counts); DeLong does not take weights. ``"auto"`` then uses BCa. Float
        weights whose largest magnitude lies outside [2**-100, 2**100] are first
        multiplied by a power of two (exact; a metric that is a weighted average
        does not notice, and denormal or huge weights no longer under- or
        overflow), and ``metric`` receives them so.
    clusters : array-like of shape (n_samples,), optional
        The cluster of each row (a patient, a user, the passage a benchmark question
        comes from) when rows of one cluster are not independent. ``method`` is then
        a bootstrap of whole clusters (``"percentile"``, ``"basic"``, ``"bca"``;
        :mod:`dartboard._kernels._clustered`) or the metric's cluster-robust
        interval (``"wald-clustered"`` for a ratio of counts such as accuracy,
        recall or precision, ``"wilson-clustered"``, Wilson's interval at the
        proportion's effective size, which keeps a positive width at 0 and 1,
        ``"t-clustered"`` for a mean loss such as log loss,
        Brier or MAE, ``"delong-clustered"`` for binary ROC AUC and
        ``"delong-logit-clustered"``, its variance on the logit scale, ``"delta-clustered"``
        (the delta method) for the other count metrics such as F1, MCC or kappa,
        ``"jackknife-logit-clustered"`` for those of them in [0, 1] (F-scores): the
        delta method's terms on the logit scale with the CR3 (jackknife) variance,
        ``"influence-logit-clustered"`` for average precision and the PR area (AP's
        influence values summed per cluster, on the logit scale);
        :mod:`dartboard._kernels._clustered_analytic`), or
        ``"bootstrap-t-clustered"``, the symmetric studentized bootstrap of whole
        clusters of a ratio, a mean loss or ROC AUC (up to 200 clusters for ROC AUC;
        :func:`dartboard._kernels._clustered.studentized_interval`). The
        cluster-robust intervals take the CR2 (Bell-McCaffrey) standard error on
        Student's t with small-sample degrees of freedom (``I - 1`` for ``I``
        clusters of equal sizes, fewer for unequal ones;
        :func:`~dartboard._kernels._clustered_analytic.small_sample_df`).
        ``"auto"`` takes from 2 clusters on the cluster-robust interval:
        ``"wilson-clustered"`` for a proportion of whole counts,
        ``"delta-clustered"`` for the other count metrics (for F-scores
        ``"jackknife-logit-clustered"`` where the clusters' sizes are unequal: their
        cluster-effect degrees of freedom below half of clusters - 1),
        ``"influence-logit-clustered"`` for average precision and the PR area, and for
        mean losses and ROC AUC ``"bootstrap-t-clustered"`` from 10 to 199 clusters of
        similar
        sizes, else ``"t-clustered"`` and ``"delong-logit-clustered"``. With 10
        clusters or more,
        ROC AUC with fewer than 50 rows of a class and the delta method with fewer
        than 50 rows (``AUTO_MIN_ROWS``) take BCa with a leave-one-cluster-out
        jackknife instead, as does a metric without a cluster-robust form. With
        fewer than 30 clusters (``FEW_CLUSTERS``) a
        :class:`~dartboard.exceptions.FewClustersWarning` says the interval may
        cover less than its level (in simulation ``auto``'s intervals kept 93% of
        nominal 95% for accuracy, F1, ROC AUC and log loss at every intra-cluster
        correlation from 0 to 0.5 only from 30 clusters on), and a bootstrap of
        fewer than 10 clusters says in its method string that its coverage is not
        known;
        for the calibration error its ``"bin-pivot"`` on ``n / D`` rows, ``D`` the
        error's design effect (:mod:`dartboard._kernels._clustered_calibration`;
        with weights or classwise errors the basic bootstrap of whole clusters, drawn
        from per-cluster bin sums). The method string says it is clustered. The
        independent-rows analytic methods are refused.
    strata : array-like of shape (n_samples,), optional
        A label per row (a site, a time period, a stratum of the test set's
        design): the bootstrap resamples rows within each stratum, so every
        resample keeps each stratum's size, as a test set drawn stratum by stratum
        would (``stratified=True`` is the special case of the classes of
        ``y_true``). Bootstrap methods only; ``"auto"`` takes BCa. The rows of every
        metric are resampled (the family fast paths stratify by class only), and
        the method string says how many strata there were. Not with ``clusters``
        or ``stratified``.
    **metric_kwargs
        Passed to ``metric`` (``pos_label``, ``average``, ``beta``...).

    Returns
    -------
    Interval

    See Also
    --------
    dartboard.evaluate : Every metric of a task with its interval, per group too.
    dartboard.cv_interval : An interval from cross-validation fold scores.
    dartboard.compare_models : The interval of a difference between two models.

    Notes
    -----
    Proportion metrics are ``x / n`` with ``n`` the metric's own denominator:
    accuracy ``N``, precision ``TP + FP``, recall ``TP + FN``, specificity and
    FPR ``TN + FP``, FNR ``FN + TP``, selection rate ``N`` (binary, with
    ``pos_label``; multiclass only for accuracy). When ``n = 0`` the metric is
    undefined: the interval is the whole [0, 1], with a warning and a ``nan``
    standard error. DeLong's interval is ``AUC +- z sqrt(var)`` clipped to
    [0, 1] (no transform); ``delong-logit`` carries the same variance to the
    logit scale, which keeps coverage when one class is small.

    Bootstrap: rows are resampled with replacement (``stratified``: within each
    class of ``y_true``). Count metrics draw the resampled confusion matrix as a
    multinomial (O(K^2) per resample), binary ROC AUC and average precision reuse
    one sort, other metrics resample indices in batches of at most 64 MB. A
    resample on which the metric is undefined (a 0/0 ratio with
    ``zero_division="warn"``, no positive sample for AUC, a callable returning
    nan or raising ``ValueError``, e.g. a multiclass AUC or log loss missing a
    class) is dropped, with an :class:`IntervalWarning` giving how many; if all are
    undefined a ``ValueError`` is raised. All replicates equal gives a zero-width
    interval with a warning. BCa returns the percentile interval, with a warning,
    when its bias correction is infinite or the jackknife values are all equal.
    The BCa jackknife is exact leave-one-out up to 1000 rows and a
    delete-a-group jackknife over 1000 random groups beyond (count metrics and
    ROC AUC: always exact, in closed form). Warnings raised by a callable during
    resampling are summarised in one warning.

    ``max_error`` gets its bootstrap interval with an :class:`IntervalWarning`: the
    bootstrap of a sample maximum is inconsistent (no resample exceeds the observed
    maximum, so the upper end is the estimate).

    Examples
    --------
    >>> from dartboard.metrics import accuracy_score
    >>> y_true = [0, 1, 1, 0, 1, 1, 0, 1, 0, 1]
    >>> y_pred = [0, 1, 0, 0, 1, 1, 1, 1, 0, 1]
    >>> iv = interval(accuracy_score, y_true, y_pred)
    >>> iv.method, round(iv.estimate, 2), round(iv.low, 4), round(iv.high, 4)
    ('wilson', 0.8, 0.4902, 0.9433)

    Rows in clusters (four questions on each of four passages; so few clusters warn):

    >>> import warnings
    >>> from dartboard.exceptions import FewClustersWarning
    >>> y = [1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 0, 1, 0, 0]
    >>> p = [1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FewClustersWarning)
    ...     iv = interval("accuracy", y, p, clusters=[0] * 4 + [1] * 4 + [2] * 4 + [3] * 4,
    ...                   method="wald-clustered")
    >>> iv.method, iv.estimate, round(iv.low, 4), round(iv.high, 4)
    ('wald-clustered (4 clusters), clipped to [0, 1]', 0.75, 0.4252, 1.0)

    Rows from two sites, each resample keeping each site's number of rows:

    >>> iv = interval("accuracy", y, p, strata=["a"] * 10 + ["b"] * 6, n_resamples=500,
    ...               random_state=0)
    >>> iv.method
    'bca (stratified: 2 strata)'
    """
    resolved = resolve_metric(metric)
    metric, metric_kwargs = resolved.function, {**resolved.kwargs, **metric_kwargs}
    iv = _interval_iv(metric, method, confidence_level, n_resamples, stratified)
    spec = resolved.spec
    name = "" if spec is None else spec.name
    if spec is not None and spec.scalar and spec.default_interval is None:
        warnings.warn(f"a bootstrap interval of {name} is not reliable: it is a sample "
                      "maximum, which no resample can exceed, so the interval's upper end is "
                      "the estimate itself and the true maximum error is under-covered",
                      IntervalWarning, stacklevel=2)
    y_t = rows_array(y_true, name="y_true")
    y_o = rows_array(y_other, name="y_other")
    n = check_consistent_length(("y_true", y_t), ("y_other", y_o))
    w = check_sample_weight(sample_weight, n, scale_free=True)
    kwargs = dict(metric_kwargs)
    if w is not None:
        kwargs["sample_weight"] = w
    estimate = _bootstrap.as_float(metric(y_t, y_o, **kwargs), name or "metric")
    kwargs.pop("sample_weight", None)
    if not np.isfinite(estimate):
        raise InputError(f"{name or 'the metric'} is undefined on this data (it returned "
                         f"{estimate}); no interval can be formed")
    how = iv["method"]
    level = iv["confidence_level"]
    rng = check_random_state(random_state)
    if clusters is None and how in CLUSTERED_ANALYTIC_METHODS:
        raise InputError(f"method={how!r} is a cluster-robust interval and needs "
                         "clusters=; without clusters use its independent-rows method")
    if clusters is not None:
        if strata is not None:
            raise InputError("strata= resamples rows within strata; with clusters the "
                             "bootstrap resamples whole clusters (give one of them)")
        index = cluster_index(clusters, n)
        warn_few_clusters(index.n_clusters)
        return _clustered_interval(metric, spec, name, estimate, y_t, y_o, w, metric_kwargs,
                                   index, how, level,
                                   iv["n_resamples"], stratified, rng)
    if strata is not None:
        codes = _strata_codes(strata, n, stratified, how)
        reps = _generic(metric, name, y_t, y_o, w, metric_kwargs, iv["n_resamples"], codes,
                        rng, how in ("auto", "bca"))
        return _from_replicates(spec, name, metric, estimate, reps, level,
                                "bca" if how == "auto" else how, iv["n_resamples"],
                                f" (stratified: {int(codes.max()) + 1} strata)")
    state = _family_state(spec, y_t, y_o, w, metric_kwargs)
    if state is not None:
        family, m, built, _ = state
        chosen = choose_method(family, built, m, how)
        if chosen not in BOOTSTRAP_METHODS or family.cells(built, m) is not None:
            return interval_of(family, built, m, method=how, level=level,
                               n_resamples=iv["n_resamples"], stratified=stratified, rng=rng,
                               estimate=estimate)
        how = chosen  # a state without cells (weighted calibration): resample rows
    if how == "auto":
        how = _auto_method(spec, y_t, y_o, w, metric_kwargs)
    if how not in BOOTSTRAP_METHODS:
        return _generic_analytic(spec, how, estimate, y_t, y_o, w, level, metric_kwargs)
    reps = _generic(metric, name, y_t, y_o, w, metric_kwargs, iv["n_resamples"],
                    _class_codes(y_t) if stratified else None, rng, how == "bca")
    return _from_replicates(spec, name, metric, estimate, reps, level, how,
                            iv["n_resamples"])


def _from_replicates(spec: MetricSpec | None, name: str, metric: Callable[..., Any],
                     estimate: float, reps: _bootstrap.Replicates, level: float, how: str,
                     n_resamples: int, note: str = "") -> Interval:
    """The bootstrap interval of ``how`` from replicates of rows (``note`` follows the
    method's name)."""
    low, high, se, used, dist = _bootstrap.bootstrap_interval(
        estimate, reps, level, how, None if spec is None else spec.bounds)
    if spec is not None and spec.covers_estimate:
        low, high = min(low, estimate), max(high, estimate)
    return Interval(estimate, low, high, level, used + note, se, dist, n_resamples,
                    name or getattr(metric, "__name__", "metric"))


def _strata_codes(strata: Any, n: int, stratified: bool, method: str) -> np.ndarray:
    """The stratum of each row (codes 0..S-1), checked: one per row, none missing, and
    a bootstrap method (``auto`` takes BCa)."""
    if stratified:
        raise InputError("give stratified=True (within the classes of y_true) or strata= "
                         "(within any labels), not both")
    if method not in ("auto", *BOOTSTRAP_METHODS):
        raise InputError(f"strata= resamples rows within strata, which only the bootstrap "
                         f"does; got method={method!r} (use 'percentile', 'basic' or 'bca')")
    ids = id_array(strata, name="strata", noun="stratum")
    check_consistent_length(("rows", np.empty(n)), ("strata", ids))
    return encode_ids(ids, "strata")[0]


def _class_codes(y_t: np.ndarray) -> np.ndarray:
    """The class of each row (``stratified=True``)."""
    try:
        return encode_labels(("y_true", y_t)).codes[0]
    except (TypeError, ValueError) as exc:
        raise InputError("stratified=True resamples within each class of y_true and needs "
                         f"class labels there: {exc}") from None


def _clustered_interval(metric: Callable[..., Any], spec: MetricSpec | None, name: str,
                        estimate: float, y_t: np.ndarray, y_o: np.ndarray,
                        w: np.ndarray | None, kwargs: dict[str, Any], index: ClusterIndex,
                        method: str, level: float, n_resamples: int, stratified: bool,
                        rng: np.random.Generator) -> Interval:
    """The bootstrap of whole clusters: from the clusters' family cells where the
    metric's family pools them, else from the rows of each replicate's clusters."""
    if stratified:
        raise InputError("stratified=True resamples rows within classes; with clusters the "
                         "bootstrap resamples whole clusters (leave stratified=False)")
    family = family_of(spec)
    simulated = () if family is None else family.simulated
    if method not in (*CLUSTER_METHODS, *CLUSTERED_ANALYTIC_METHODS, *simulated, "auto"):
        raise InputError(f"method={method!r} assumes independent rows; with clusters use "
                         f"one of {list(CLUSTER_METHODS)} (a bootstrap of whole clusters) "
                         f"or {list(CLUSTERED_ANALYTIC_METHODS)} (cluster-robust)")
    if simulated and (method == "auto" or method in simulated):
        found = _clustered_simulated(family, spec, y_t, y_o, w, kwargs, index, method,
                                     level, n_resamples, rng, estimate)
        if found is not None:
            return found
    terms = cluster_terms_of(spec, y_t, y_o, w, kwargs, index)

    def cells() -> tuple[Cells, Any] | None:
        return clustered_cells(spec, y_t, y_o, w, kwargs, index)

    def rows(jackknife: bool) -> _bootstrap.Replicates:
        def statistic(rows: np.ndarray) -> float:
            weights = {} if w is None else {"sample_weight": w[rows]}
            return float(metric(y_t[rows], y_o[rows], **kwargs, **weights))

        return generic_cluster_replicates(statistic, index, n_resamples, rng, jackknife)

    return interval_from_clusters(
        spec, name or getattr(metric, "__name__", "metric"), estimate, terms, cells,
        index.n_clusters, method, level, n_resamples, rng, kwargs, rows,
        "bca" if family is None else family.fallback)


def interval_from_clusters(spec: MetricSpec | None, name: str, estimate: float,
                           terms: ClusterTerms | None,
                           cells: Callable[[], tuple[Cells, Any] | None],
                           n_clusters: int, method: str, level: float, n_resamples: int,
                           rng: np.random.Generator | Callable[[], np.random.Generator],
                           kwargs: dict[str, Any],
                           rows: Callable[[bool], _bootstrap.Replicates] | None = None,
                           fallback: str = "bca") -> Interval:
    """A clustered interval from what the clusters give, however it was found (from the
    rows in memory, from per-cluster states in a streamed evaluation): ``terms`` (the
    cluster-robust interval's, None without one), ``cells()`` (the pooled cells and
    their ``(clusters, cells)`` matrix, None where no family's cells hold the metric)
    and ``rows(jackknife)`` (replicates from the rows of each replicate's clusters;
    None: refused, a streamed evaluation keeps no rows); ``fallback`` the bootstrap
    ``auto`` takes where no cluster-robust interval applies."""
    if terms is not None and not terms.defined:
        raise InputError(_one_cluster(terms, name))
    # accuracy with normalize=False is a count, outside the proportion's range
    bounds = None if spec is None or not kwargs.get("normalize", True) else spec.bounds
    method = _clustered_method(method, terms, name, n_clusters, fallback, bounds)
    if method in CLUSTERED_ANALYTIC_METHODS:
        assert terms is not None and spec is not None  # _clustered_method checked it
        drawn = n_resamples if method == STUDENTIZED else None
        low, high, se = studentized_interval(terms, level, None, n_resamples,
                                             rng() if callable(rng) else rng) \
            if drawn else clustered_interval(
                terms, level, None, logit=method in LOGIT_CLUSTERED,
                wilson=method == "wilson-clustered",
                correction="CR3" if method == JACKKNIFE_LOGIT else "CR2")
        low, high, how = clip_to_range(low, high, bounds, f"{method} ({n_clusters} clusters)")
        return Interval(estimate, low, high, level, how, se, None, drawn, name)
    jackknife = method == "bca"
    found = cells()
    if found is not None:
        reps = cluster_replicates(found[1], found[0], n_resamples,
                                  rng() if callable(rng) else rng, jackknife)
    elif rows is not None:
        reps = rows(jackknife)
    else:
        raise NoCells(f"the bootstrap of whole clusters of {name} needs the rows of "
                      "each cluster; a streamed evaluation keeps family states")
    undefined = int(np.count_nonzero(~np.isfinite(reps.values)))
    if undefined == n_resamples:
        raise InputError(f"{name} is undefined on all {n_resamples} "
                         "cluster resamples; no interval can be formed")
    if undefined:
        warnings.warn(f"{name} is undefined on {undefined} of {n_resamples} "
                      "cluster resamples (a resample without a class, say); they are left "
                      "out", IntervalWarning, stacklevel=4)
        keep = np.isfinite(reps.values)
        jack = reps.jackknife
        if jack is not None:  # BCa's acceleration leaves out undefined leave-outs
            jack = np.where(np.isfinite(jack), jack, np.nan)
        reps = _bootstrap.Replicates(reps.values[keep], jack)
    low, high, se, used, dist = _bootstrap.bootstrap_interval(
        estimate, reps, level, method, None if spec is None else spec.bounds)
    if spec is not None and spec.covers_estimate:
        low, high = min(low, estimate), max(high, estimate)
    return Interval(estimate, low, high, level,
                    f"{used} (clustered: {n_clusters} clusters{_unmeasured(n_clusters)})",
                    se, dist, n_resamples, name)


def _unmeasured(n_clusters: int) -> str:
    """What a bootstrap of whole clusters says of its coverage with fewer than
    ``ANALYTIC_BELOW_CLUSTERS`` clusters, where no simulation vouches for it (the
    metrics that have a cluster-robust form take it there; BCa over 2 to 5 clusters
    covered 31-85%). The :class:`~dartboard.exceptions.FewClustersWarning` (below
    ``FEW_CLUSTERS``) comes on top."""
    return "" if n_clusters >= ANALYTIC_BELOW_CLUSTERS else \
        f"; coverage not known with fewer than {ANALYTIC_BELOW_CLUSTERS} clusters"


def _one_cluster(terms: ClusterTerms, name: str) -> str:
    """Why no clustered interval of ``terms`` can be formed: a part of the metric (its
    denominator's rows; ROC AUC's positives or negatives) lies in fewer than two
    clusters, so how its clusters vary -- what a clustered interval measures -- is not
    seen (a bootstrap of whole clusters would repeat that one cluster, giving the same
    value in every resample, and the cluster-robust variance is 0/0)."""
    held = np.count_nonzero(terms.present, axis=0)
    parts = ("positives", "negatives") if held.shape[0] == 2 else \
        ("rows of its denominator",)
    j = int(np.argmin(held))
    return (f"{name or 'the metric'}: the {parts[j]} are in {int(held[j])} cluster"
            f"{'' if held[j] == 1 else 's'} (a clustered interval needs at least two)")


def _clustered_simulated(family: Any, spec: MetricSpec | None, y_t: np.ndarray,
                         y_o: np.ndarray, w: np.ndarray | None, kwargs: dict[str, Any],
                         index: ClusterIndex, method: str, level: float, n_resamples: int,
                         rng: np.random.Generator, estimate: float) -> Interval | None:
    """A family's simulated interval (the calibration error's bin-pivot) adapted to
    clusters; None where it does not apply to these rows and ``method`` is ``auto``
    (which then takes the family's bootstrap of whole clusters)."""
    asked, method = method, family.simulated[0] if method == "auto" else method
    found = _family_batch(spec, y_t, y_o, w, kwargs)
    out = None if found is None else family.cluster_simulate(
        found[2], found[1], method, index.codes, index.n_clusters, level, n_resamples, rng,
        estimate)
    if out is None or found is None:
        if asked == "auto":
            return None
        raise InputError(f"method={method!r} with clusters needs unweighted rows and a "
                         "binary or top-label error; use a bootstrap of whole clusters "
                         "(percentile, basic or bca)")
    return simulated_interval(out, estimate, level, method, index.n_clusters, n_resamples,
                              found[1].name)


def simulated_interval(out: tuple[float, float, float, np.ndarray | None, str, float],
                       estimate: float, level: float, method: str, n_clusters: int,
                       n_resamples: int, name: str) -> Interval:
    """The Interval of a family's clustered simulated interval (``Family.cluster_simulate``
    or ``cluster_simulate_states``: low, high, standard error, draws, the note the
    method's name carries and the design effect), from rows in memory or from the
    clusters' states."""
    low, high, se, draws, note, _ = out
    return Interval(estimate, low, high, level,
                    f"{method} (clustered: {n_clusters} clusters, {note})", se, draws,
                    None if draws is None else n_resamples, name)


def clustered_cells(spec: MetricSpec | None, y_t: np.ndarray, y_o: np.ndarray,
                    w: np.ndarray | None, kwargs: dict[str, Any], index: ClusterIndex
                    ) -> tuple[Cells, Any] | None:
    """(pooled cells, ``(clusters, cells)`` matrix of each cluster's rows in them) of a
    family's metric, from the family's one pass over the rows where it has one, else
    from one state per cluster pooled; None for a metric no family's cells hold (its
    replicates come from the rows of each replicate's clusters)."""
    state = _family_state(spec, y_t, y_o, w, kwargs, lazy=True)
    if state is None:
        return None
    family, m, _, batch = state
    cells = family.cluster_cells(batch, m, index.codes, index.n_clusters)
    if cells is None:
        cells = _pooled_clusters(family, m, m.spec, y_t, y_o, w, kwargs, index)
    return cells if cells is not None and cells[0].extra is None else None


def _pooled_clusters(family: Family, m: Metric, spec: MetricSpec, y_t: np.ndarray,
                     y_o: np.ndarray, w: np.ndarray | None, kwargs: dict[str, Any],
                     index: ClusterIndex) -> tuple[Any, Any] | None:
    """(pooled cells, cluster matrix) from one state per cluster, pooled; None when a
    cluster's rows have no state alone or the states do not pool. A cluster without
    rows here (a group's rows, indexed among all clusters for the gaps' shared draws)
    has no state: its row of the matrix stays empty."""
    held = np.flatnonzero([rows.shape[0] > 0 for rows in index.members])
    parts = _cluster_states(spec, y_t, y_o, w, kwargs, [index.members[c] for c in held])
    if any(p is None for p in parts):
        return None
    pooled = family.pool([p[2] for p in parts], m)
    if pooled is None:
        return None
    return pooled[0], cluster_matrix(pooled[1], pooled[2], pooled[0].size.shape[0], held,
                                     index.n_clusters)


def cluster_terms_of(metric: Any, y_t: np.ndarray, y_o: np.ndarray, w: np.ndarray | None,
                     kwargs: dict[str, Any], index: ClusterIndex) -> ClusterTerms | None:
    """The per-cluster linearized terms of a metric (its family's; None for a metric
    or data without a cluster-robust interval)."""
    spec = metric if isinstance(metric, MetricSpec) or metric is None \
        else resolve_metric(metric).spec
    found = _family_batch(spec, y_t, y_o, w, kwargs)
    if found is None:
        return None
    family, m, batch = found
    if m.spec.classification and np.ndim(batch.y_true) == 1:
        # the sorted classes (np.unique's), by the encoding's bincount path for labels
        # of a narrow integer range
        batch = dataclasses.replace(batch, classes=encode_labels(
            ("y_true", batch.y_true)).classes)
    return family.cluster_terms(batch, m, index.codes, index.n_clusters)


def _clustered_method(method: str, terms: ClusterTerms | None, name: str,
                      n_clusters: int, fallback: str = "bca",
                      bounds: tuple[float, float] | None = None) -> str:
    """``auto`` with clusters: the metric's cluster-robust interval with at least
    ``AUTO_MIN_CLUSTERS`` clusters (benchmarks/clustered_coverage.py and
    benchmarks/unequal_clusters_coverage.py), else the family's bootstrap (``fallback``) over
    whole clusters: BCa, or the basic interval for a calibration error the clustered
    bin-pivot does not take (BCa and the percentile interval keep its upward bias:
    benchmarks/clustered_calibration_coverage.py); a cluster-robust method asked for
    must be the metric's (``bounds``: the metric's range, which says whether the delta
    method's terms take the logit scale)."""
    forms = _clustered_forms(terms, bounds)
    if method == "auto":
        chosen = _auto_form(terms, forms, n_clusters)
        # below ANALYTIC_BELOW_CLUSTERS the bootstrap of whole clusters covered 31-85%
        # (ROC AUC from 2 to 5 clusters, F1 with 2) where the analytic forms on the
        # small-sample df covered 90.9-100% (benchmarks/unequal_clusters_coverage.py,
        # few): the rows rule (AUTO_MIN_ROWS, measured with 30 clusters) does not hold
        # there
        return chosen if terms is not None and chosen in AUTO_METHODS and \
            terms.defined and n_clusters >= AUTO_MIN_CLUSTERS and \
            (terms.smallest >= AUTO_MIN_ROWS or n_clusters < ANALYTIC_BELOW_CLUSTERS) \
            else fallback
    if method in CLUSTERED_ANALYTIC_METHODS and method not in forms:
        offered = "none" if terms is None else repr(terms.method)
        raise InputError(f"method={method!r} is not a cluster-robust interval of "
                         f"{name or 'a user callable'} (its own: {offered}); use a "
                         "bootstrap of whole clusters (percentile, basic or bca)")
    return method


def _auto_form(terms: ClusterTerms | None, forms: tuple[str, ...], n_clusters: int) -> str:
    """``auto``'s cluster-robust form: the last of ``forms``, but the analytic form
    (CR2 with the small-sample degrees of freedom) instead of the studentized bootstrap
    below ``STUDENTIZED_MIN_CLUSTERS`` clusters and where the clusters' sizes are
    unequal (:func:`unequal_sizes`): there the bootstrap-t of ROC AUC and log loss
    covered 90.5-92.3% (benchmarks/unequal_clusters_coverage.py); from
    ``STUDENTIZED_BELOW_CLUSTERS`` clusters on, where the two agree and the bootstrap's
    draws grow with the clusters; and for the delta method's terms of a metric in [0, 1]
    ``jackknife-logit-clustered`` where the sizes are unequal: with lognormal sizes
    where the large clusters were harder, ``delta-clustered`` covered F1 89.0-90.8% at
    ICC 0.5, this one 92.9-93.7% (benchmarks/informative_size_coverage.py,
    :data:`JACKKNIFE_LOGIT`)."""
    if not forms:
        return ""
    if JACKKNIFE_LOGIT in forms and terms is not None:
        return JACKKNIFE_LOGIT if unequal_sizes(terms) else terms.method
    if forms[-1] == STUDENTIZED and terms is not None and \
            (n_clusters < STUDENTIZED_MIN_CLUSTERS or n_clusters >= STUDENTIZED_BELOW_CLUSTERS
             or unequal_sizes(terms)):
        return "delong-logit-clustered" if terms.method == "delong-clustered" \
            else terms.method
    return forms[-1]


def _clustered_forms(terms: ClusterTerms | None,
                     bounds: tuple[float, float] | None = None) -> tuple[str, ...]:
    """The cluster-robust intervals ``terms`` give, ``auto``'s choice last (but see
    :func:`_auto_form`).

    The delta method's terms of a metric in [0, 1] (F-scores: ``bounds`` ``(0, 1)``)
    give ``jackknife-logit-clustered`` too.

    ROC AUC's terms give DeLong's clustered variance on either scale (with 30 clusters
    the logit one covered 91.6-97.1% against 88.0-96.6%) and, up to
    ``PAIR_WINS_MAX_CLUSTERS`` clusters, the studentized bootstrap of whole clusters,
    auto's choice there. A ratio's sums give the studentized bootstrap too; auto takes
    it for a mean loss and the analytic interval for a proportion (``wald-clustered``
    covered as well there; benchmarks/clustered_coverage.py has the figures)."""
    if terms is None:
        return ()
    if terms.method == "delong-clustered":
        return (terms.method, "delong-logit-clustered") if terms.pair_wins is None else \
            (terms.method, "delong-logit-clustered", STUDENTIZED)
    if terms.sums is None:
        if terms.method == "delta-clustered" and bounds is not None and \
                tuple(bounds) == (0.0, 1.0) and terms.sizes is not None:
            return JACKKNIFE_LOGIT, terms.method
        return (terms.method,)
    if terms.method == "t-clustered":
        return terms.method, STUDENTIZED
    if terms.method == "wald-clustered" and bool(np.all(terms.sums[:, 1] ==
                                                        np.round(terms.sums[:, 1]))):
        return STUDENTIZED, terms.method, "wilson-clustered"
    return STUDENTIZED, terms.method


def _family_state(spec: MetricSpec | None, y_t: np.ndarray, y_o: np.ndarray,
                  w: np.ndarray | None, kwargs: dict[str, Any], lazy: bool = False
                  ) -> tuple[Family, Metric, Any, Batch] | None:
    """(family, metric, state, batch) of rows that a metric family takes; None for a
    generic metric or inputs its family does not cover (multiclass scores). ``lazy``:
    the state is a function that builds it, for a caller that may not need it."""
    found = _family_batch(spec, y_t, y_o, w, kwargs)
    if found is None:
        return None
    family, m, batch = found
    return family, m, (lambda: family.build(batch, m)) if lazy else family.build(batch, m), \
        batch


def _family_batch(spec: MetricSpec | None, y_t: np.ndarray, y_o: np.ndarray,
                  w: np.ndarray | None, kwargs: dict[str, Any]
                  ) -> tuple[Family, Metric, Batch] | None:
    family = family_of(spec)
    if family is None or spec is None:
        return None
    m = Metric(spec, dict(kwargs))
    if not family.supports(m) or not family.takes(y_t, y_o, m):
        return None
    positive: Any = None
    if spec.takes_scores and not spec.takes_probabilities and y_o.ndim == 1:
        # the metric's own pos_label default (1) where it takes one; else the greater label
        y_t, _ = _binary_scores(y_t, y_o, kwargs.get("pos_label", 1) if spec.pos_label
                                else None)
        positive = True
    return family, m, Batch(y_t, {spec.input: y_o}, w, positive)


def _cluster_states(spec: MetricSpec, y_t: np.ndarray, y_o: np.ndarray,
                    w: np.ndarray | None, kwargs: dict[str, Any],
                    members: list[np.ndarray]) -> list[Any]:
    """Each cluster's ``(family, metric, state)`` (``members``: the rows of each),
    built from the batch of all rows (the positive class and the classes of all rows:
    a cluster may hold one class); ``[None]`` when a cluster's rows are refused alone."""
    found = _family_batch(spec, y_t, y_o, w, kwargs)
    if found is None:
        return [None]
    family, m, batch = found
    if spec.classification and np.ndim(batch.y_true) == 1:
        # the sorted classes (np.unique's), by the encoding's bincount path for labels
        # of a narrow integer range
        batch = dataclasses.replace(batch, classes=encode_labels(
            ("y_true", batch.y_true)).classes)
    try:
        return [(family, m, state) for state in family.build_clusters(batch, m, members)]
    except ValueError:
        return [None]


def _interval_iv(metric: Any, method: Any, confidence_level: Any, n_resamples: Any,
                 stratified: Any, *, check_metric: bool = True) -> dict[str, Any]:
    if check_metric and not callable(metric):
        raise InputTypeError(f"metric must be a callable f(y_true, y_other, **kwargs) -> float; "
                             f"got {type(metric).__name__}")
    check_option(method, "method", METHODS)
    if not isinstance(stratified, (bool, np.bool_)):
        raise InputTypeError(f"stratified must be True or False; got {stratified!r}")
    return {"method": method, "confidence_level": check_confidence_level(confidence_level),
            "n_resamples": check_n_resamples(n_resamples),
            "stratified": bool(stratified)}


def _auto_method(spec: MetricSpec | None, y_t: np.ndarray, y_o: np.ndarray,
                 w: np.ndarray | None, kwargs: dict[str, Any]) -> str:
    """``method="auto"`` for rows no family holds: the registry's ``auto_interval`` (by
    size) and ``default_interval`` where they apply here, else BCa."""
    if spec is None:
        return "bca"
    size = sample_size(spec, y_t) if spec.auto_interval else 0
    candidates = [spec.default_interval or "bca"] + \
        [choice for minimum, choice in spec.auto_interval if size >= minimum]
    for method in reversed(candidates):
        if method in BOOTSTRAP_METHODS or (method in declared(spec) and applicable(
                spec, method, y_t, y_o, w, kwargs)):
            return method
    return "bca"


def _generic_analytic(spec: MetricSpec | None, method: str, estimate: float,
                      y_t: np.ndarray, y_o: np.ndarray, w: np.ndarray | None, level: float,
                      kwargs: dict[str, Any]) -> Interval:
    """An analytic interval of rows no family holds, or why there is none."""
    name = "" if spec is None else spec.name
    if spec is None or method not in declared(spec):
        raise not_declared(method, name)
    return asymptotic_interval(spec, method, estimate, y_t, y_o, w, level, kwargs)


# --------------------------------------------------------------------- ranking

def _binary_scores(y_t: np.ndarray, y_o: np.ndarray, pos_label: Any = None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(bool positives, float scores) for a binary ranking metric.

    The positive class is ``pos_label``, or the greater of the two labels.
    """
    scores = as_float_array(y_o, name="y_score")
    labels = column_1d(y_t, name="y_true")
    classes = np.unique(labels)
    if classes.shape[0] != 2:
        raise InputError(f"a binary y_true (two classes) is needed; got {classes.shape[0]} "
                         f"class(es) {classes.tolist()!r}")
    code = positive_index(classes, pos_label, infer="greater")
    return labels == (classes[code] if code >= 0 else pos_label), scores


def _generic(metric: Callable[..., Any], name: str, y_t: np.ndarray, y_o: np.ndarray,
             w: np.ndarray | None, kwargs: dict[str, Any], n_resamples: int,
             codes: np.ndarray | None, rng: np.random.Generator,
             jackknife: bool) -> _bootstrap.Replicates:
    """Replicates of the metric on resampled rows (within each stratum of ``codes``)."""
    n = y_t.shape[0]
    if codes is not None:
        order = np.argsort(codes, kind="stable")
        strata = np.bincount(codes)
        strata = strata[strata > 0]
    else:
        order, strata = None, np.array([n])
    label = name or getattr(metric, "__name__", "metric")
    caught: list[warnings.WarningMessage] = []
    refused: list[ValueError] = []

    def statistic(idx: np.ndarray) -> float:
        kw = kwargs if w is None else {**kwargs, "sample_weight": w[idx]}
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            try:
                value = metric(y_t[idx], y_o[idx], **kw)
            except ValueError as exc:
                # the metric accepted the full data, so a resample or leave-one-out
                # subset it rejects (e.g. a class missing) is one where it is undefined
                refused.append(exc)
                value = np.nan
        if record:
            caught.append(record[0])
        return _bootstrap.as_float(value, label)

    reps = _bootstrap.generic_replicates(statistic, n, order, strata, n_resamples, rng,
                                         jackknife)
    if caught:
        warnings.warn(f"{label} warned on {len(caught)} bootstrap or jackknife evaluations; "
                      f"the first: {caught[0].category.__name__}: {caught[0].message}",
                      IntervalWarning, stacklevel=4)
    if refused:
        warnings.warn(f"{label} raised ValueError on {len(refused)} bootstrap or jackknife "
                      f"evaluations, which count as undefined; the first: {refused[0]}",
                      IntervalWarning, stacklevel=4)
    return reps


# --------------------------------------------------------------------- folds

def check_sample_size(value: Any, name: str) -> float:
    """A positive, finite number of samples as a float (huge Python ints included:
    numpy's ufuncs cannot take an int beyond int64)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InputTypeError(f"{name} must be a positive number of samples; got "
                             f"{describe(value)}")
    try:
        size = float(value)
    except OverflowError:
        size = np.inf
    if not 0.0 < size < np.inf:
        raise InputError(f"{name} must be a positive, finite number of samples; got "
                         f"{reprlib.repr(value)}")
    return size


def cv_interval(fold_scores: ArrayLike, *, n_train: Any = None, n_test: Any = None,
                confidence_level: float = 0.95, metric: Any = None,
                bounds: tuple[float, float] | None = None) -> Interval:
    """t-interval of the mean score over k cross-validation folds.

    ``mean +- t_{k-1, 1-alpha/2} s sqrt(c)`` with ``s`` the sample standard
    deviation (ddof = 1) of the fold scores and ``c = 1/k``. Fold training sets
    overlap, so the scores are correlated and ``1/k`` understates the variance;
    given ``n_train`` and ``n_test`` (samples per training and test split), the
    Nadeau-Bengio correction ``c = 1/k + n_test/n_train`` is used (Nadeau &
    Bengio 2003, Machine Learning 52:239-281).

    A metric has a range (an AUC lies in [0, 1]) that the plain interval can pass
    when the folds score near an end of it (fold AUCs of 0.985 to 1 give
    [0.9874, 1.0026]). Given the range -- ``metric`` (the registry's range of that
    metric) or ``bounds`` -- the same t interval is formed on a scale that maps the
    range onto the whole line and carried back, so it stays inside by construction:
    ``g^-1(g(mean) +- t s sqrt(c) g'(mean))`` with ``g`` the logit of
    ``(x - a) / (b - a)`` for a range [a, b], ``log(x - a)`` for [a, inf) and
    ``-log(b - x)`` for (-inf, b] (:mod:`dartboard.uncertainty._bounded`); those
    fold AUCs then give [0.9774, 0.9989], and ``method`` says the scale
    (``"t, logit scale"``). Without a range it is the plain interval.

    All fold scores equal gives a zero-width interval with a warning.

    When it undercovers: always a little, and badly for small data. The folds of
    one K-fold CV share training points (any two training sets share ``(K-2)/(K-1)``
    of theirs) and every point tests a model trained on the others, so the fold
    scores are positively correlated and ``s^2 / k`` understates the variance of
    their mean (Bates, Hastie and Tibshirani 2024). The interval is then too narrow
    for the error of the model fit on the data at hand (``Err_XY``), and for the
    average error over training sets too. In ``benchmarks/nested_cv_coverage.py``
    (n = 100, 10 folds, 500 data sets per setting) the plain t-interval covered
    ``Err_XY`` 80.6% and 86.6% at 90% and 95% for least squares with 20 features,
    and 83.2-85.4% and 90.6-94.0% for logistic regression (0-1 loss, 10 and 20
    features). The Nadeau-Bengio factor (derived for random train/test splits, not
    K-fold) widened it enough there (91.4-96.4% at 90%), but nothing bounds it;
    with the estimator at hand, :func:`nested_cv_interval` estimates the variance
    itself (89.8-91.0% at 90%, 93.8-95.6% at 95%).

    Parameters
    ----------
    fold_scores : array-like of shape (k,), k >= 2
        The score of each of the k folds (e.g. ``cross_val_score``'s output).
    n_train, n_test : int, optional
        Both or neither.
    confidence_level : float, default=0.95
        Confidence level of the interval, in (0, 1).
    metric : str or callable, optional
        The metric the folds scored (a name, an alias such as ``"roc_auc"`` or a
        dartboard metric function): its range, from the registry, keeps the
        interval inside it. Not with ``bounds``.
    bounds : tuple of (float, float), optional
        The range ``(low, high)`` of the fold scores (``-inf``/``inf`` for an open
        end), for a metric the registry does not know. Not with ``metric``.

    Returns
    -------
    Interval
        ``method`` is ``"t"`` or ``"nadeau-bengio"``, with ``", logit scale"`` or
        ``", log scale"`` when a range was given.

    See Also
    --------
    nested_cv_interval : the interval of Bates, Hastie and Tibshirani's nested CV.

    Examples
    --------
    >>> iv = cv_interval([0.81, 0.84, 0.79, 0.83, 0.80])
    >>> round(iv.estimate, 3), round(iv.low, 4), round(iv.high, 4)
    (0.814, 0.7883, 0.8397)
    >>> cv_interval([0.81, 0.84, 0.79, 0.83, 0.80], n_train=800, n_test=200).method
    'nadeau-bengio'
    >>> iv = cv_interval([0.985, 1.0, 0.995, 1.0, 0.995], metric="roc_auc")
    >>> iv.method, round(iv.low, 4), round(iv.high, 4)
    ('t, logit scale', 0.9774, 0.9989)
    """
    level = check_confidence_level(confidence_level)
    scores = as_float_array(fold_scores, name="fold_scores")
    k = scores.shape[0]
    if k < 2:
        raise InputError(f"fold_scores needs at least 2 folds for a t-interval; got {k}")
    scale = _fold_range(scores, metric, bounds)
    if (n_train is None) != (n_test is None):
        raise InputError("give both n_train and n_test (the Nadeau-Bengio correction), or "
                         f"neither; got n_train={n_train!r}, n_test={n_test!r}")
    factor, method = 1.0 / k, "t"
    if n_train is not None:
        n_train, n_test = check_sample_size(n_train, "n_train"), check_sample_size(n_test, "n_test")
        factor, method = 1.0 / k + n_test / n_train, "nadeau-bengio"
    # equal scores: mean and sd exactly (np.std of [0.8] * 3 is 1.4e-16: the mean rounds)
    flat = bool(scores.min() == scores.max())
    mean = float(scores[0]) if flat else float(scores.mean())
    sd = 0.0 if flat else float(scores.std(ddof=1))
    se = sd * float(np.sqrt(factor))
    if sd == 0.0:
        warnings.warn(f"all {k} fold scores are equal; the interval has zero width",
                      IntervalWarning, stacklevel=2)
    half = float(special.stdtrit(k - 1, 0.5 + level / 2.0)) * se
    if scale is None:
        return Interval(mean, mean - half, mean + half, level, method, se, None, None,
                        "cv_interval")
    low, high = bounded_t_interval(mean, half, scale)
    return Interval(mean, low, high, level, f"{method}, {scale_name(scale)} scale", se, None,
                    None, "cv_interval")


def _fold_range(scores: np.ndarray, metric: Any, bounds: Any) -> tuple[float, float] | None:
    """The range of the fold scores from ``metric`` or ``bounds`` (checked), None for
    none (or an unbounded one); the scores must lie in it."""
    if metric is not None and bounds is not None:
        raise InputError("give metric (its range comes from the registry) or bounds, not "
                         f"both; got metric={metric!r}, bounds={bounds!r}")
    if metric is not None:
        spec = resolve_metric(metric, argument="metric").spec
        if spec is None or spec.bounds is None:
            raise InputError(f"metric={metric!r} has no range in dartboard's registry; "
                             "give bounds=(low, high) instead")
        found, name = spec.bounds, f"the range of {spec.name}"
    elif bounds is not None:
        try:
            found = (float(bounds[0]), float(bounds[1]))
            ok = len(bounds) == 2 and found[0] < found[1] and not np.isnan(found).any()
        except (TypeError, ValueError, IndexError):
            ok = False
        if not ok:
            raise InputError("bounds must be (low, high) with low < high (-inf or inf for "
                             f"an open end); got {reprlib.repr(bounds)}")
        name = "bounds"
    else:
        return None
    low, high = found
    outside = scores[(scores < low) | (scores > high)]
    if outside.size:
        hint = (" (scikit-learn's 'neg_' scorers negate a loss: pass the loss itself, "
                "-scores)" if low >= 0 and np.all(scores <= 0) else "")
        raise InputError(f"fold_scores must lie in {name}, [{low:g}, {high:g}]; got "
                         f"{outside.size} outside, e.g. {float(outside[0])!r}{hint}")
    if not (np.isfinite(low) or np.isfinite(high)):
        return None
    return low, high


def interval_from_calibration_state(state: Any, *, norm: str = "l1", debiased: bool = False,
                                    method: IntervalMethod = "auto", confidence_level: float = 0.95,
                                    n_resamples: int = 10_000, stratified: bool = False,
                                    random_state: RandomStateLike = None) -> Interval:
    """Interval of the calibration error from a (merged) CalibrationState.

    ``method`` is ``bin-pivot`` (``auto``, the registry's default; see the module
    docstring: it starts at 0 exactly when calibration is not rejected at level
    ``1 - confidence_level``), or a bootstrap of the state's cells,
    ``percentile``, ``basic`` or ``bca``: the same replicates as
    ``interval(calibration_error, ...)`` on the rows the state counts. Those three
    intervals are widened to contain the estimate (the registry's
    ``covers_estimate``; near 0 all replicates can lie above it), and at small
    true errors they lie above the truth too often (basic covered a true ECE of
    0.02 in 51-90% of data sets, module docstring). Whether the error is more than noise is a
    test, :func:`dartboard.calibration_test`. The state must hold one group
    (binary or top-label) and counts of rows (no fractional weights).

    Parameters
    ----------
    state : CalibrationState
        A state of one group, counting rows.
    norm : {"l1", "l2", "max"}, default="l1"
        As :func:`dartboard.metrics.calibration_error`.
    debiased : bool, default=False
        As :func:`dartboard.metrics.calibration_error`.
    method : {"auto", "bin-pivot", "percentile", "basic", "bca"}, default="auto"
        The interval method.
    confidence_level : float, default=0.95
        The confidence level.
    n_resamples : int, default=10000
        Bootstrap replicates.
    stratified : bool, default=False
        Resample within each class.
    random_state : None, int, SeedSequence or Generator
        Seed of the replicates.

    Returns
    -------
    Interval
        The calibration error with its interval.

    Examples
    --------
    >>> import numpy as np
    >>> from dartboard.metrics import CalibrationState
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(2000)
    >>> state = CalibrationState(15).update(rng.random(2000) < p ** 2, p)
    >>> iv = interval_from_calibration_state(state, n_resamples=2000, random_state=0)
    >>> iv.method, 0.1 < iv.low < 0.167 < iv.high < 0.25
    ('bin-pivot', True)
    """
    from dartboard._kernels._calibration import check_draws
    from dartboard.families._calibration import CalibrationCells
    from dartboard.metrics._calibration import norm_iv

    iv = _interval_iv(None, method, confidence_level, n_resamples, stratified,
                      check_metric=False)
    if iv["method"] not in ("auto", PIVOT, "percentile", "basic", "bca"):
        raise InputError(f"method must be {PIVOT!r}, 'percentile', 'basic', 'bca' or 'auto' "
                         f"for the calibration error; got {iv['method']!r}")
    norm, debiased = norm_iv(norm, debiased)
    check_draws(iv["n_resamples"], state.n_bins)
    if state.n_groups != 1 or not np.all(state.weight == np.round(state.weight)):
        raise InputError("a bin-level bootstrap needs a binary or top-label state of whole "
                         "row counts (no classwise groups, no fractional sample weights)")
    spec = get_spec("calibration_error")
    family = family_of(spec)
    assert family is not None  # the calibration family
    return interval_of(family, CalibrationCells(state, False),
                       Metric(spec, {"norm": norm, "debiased": debiased}), method=iv["method"],
                       level=iv["confidence_level"], n_resamples=iv["n_resamples"],
                       stratified=iv["stratified"], rng=check_random_state(random_state))
