"""k models on one test set: Cochran's Q and all pairwise comparisons of a metric.

Cochran's Q tests whether k classifiers have the same accuracy. With ``C_j``
the samples model j gets right, ``R_i`` the models that get sample i right and
``T = sum_j C_j``::

    Q = (k - 1) (k sum_j C_j^2 - T^2) / (k T - sum_i R_i^2),

chi-square with k - 1 degrees of freedom (as mlxtend's ``cochrans_q``).

:func:`compare_k_models` compares every pair of k models on any metric and
controls the family-wise error over the ``k (k - 1) / 2`` comparisons:

* ``method="holm"``: each pair gets its own sample-swap permutation test (as
  :func:`compare_models`, the two models' predictions exchanged sample by sample),
  and the p-values are Holm-adjusted (:func:`adjust_pvalues`).
* ``method="maxt"``: the step-down max-T method of Westfall and Young (1993).
  Under the null hypothesis the k predictions of each sample are exchangeable, so
  each replicate gives every sample a random permutation of its k predictions; the
  adjusted p-value of the pair with the r-th largest ``|difference|`` counts the
  replicates whose largest ``|difference|`` over the pairs from r on reaches it,
  made monotone. It uses the correlation between the comparisons, so it is never
  more conservative than Bonferroni and usually less than Holm.

Family-wise error under the complete null at alpha = 5% (exchangeable models on
300 rows, 999 resamples; ``benchmarks/kmodels_calibration.py``; Monte-Carlo
standard error in brackets, in points)::

    metric    k  test sets  maxt         holm
    F1        4  2000       4.80 (0.48)  4.05 (0.44)
    F1        6  2000       4.60 (0.47)  3.30 (0.40)
    F1       10  2000       4.50 (0.46)  not run
    accuracy  4  2000       3.90 (0.43)  3.40 (0.41)
    ROC AUC   4  1000       5.40 (0.71)  4.70 (0.67)

Holm's shortfall is Holm's own. It uses each pair's p-value alone, and the
``k (k - 1) / 2`` comparisons are positively correlated (two pairs that share a
model), so its first step, Bonferroni's union bound, is loose. With continuous,
normal pair statistics of exchangeable models its family-wise error under the
complete null is exactly ``P(range of k standard normals >= sqrt(2) z)`` with
``z = Phi^-1(1 - alpha / (k (k - 1)))``: 4.1%, 3.9% and 3.7% for k = 4, 6, 10
(``scipy.stats.studentized_range``). The discreteness of permutation
p-values of a count metric takes a little more (max-T loses about a point for
accuracy too). Max-T uses the joint law of the comparisons and stays within
5 +- 1.5 points, so it is the default.

For count metrics without sample weights neither method touches the rows after
one counting pass, and binary ROC AUC only counts pre-ranked scores (see
``._kmodels_null``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from dartboard._progress import takes_progress, track
from dartboard._results import Result
from dartboard._rng import RandomStateLike, check_random_state, spawn, spawn_generators
from dartboard._validation import (
    as_float_array,
    check_consistent_length,
    check_n_resamples,
    check_option,
    check_sample_weight,
    describe,
    label_array,
    rows_array,
)
from dartboard.compare._adjust import adjust_pvalues
from dartboard.compare._clustered import MIXED_SCALES, warn_mixed_scales
from dartboard.compare._kmodels_null import (
    JointTypes,
    auc_kway_null,
    dealt_count_null,
    generic_kway_null,
    stepdown_maxt,
)
from dartboard.compare._models import _scalar, columns_of, compare_models, refuse_strata
from dartboard.compare._permutation import count_extreme
from dartboard.compare._results import TestResult, _check_alpha
from dartboard.exceptions import InputError, InputTypeError
from dartboard.families import Metric, family_of
from dartboard.families._paired import PairedAUC, PairedCounts, binary_truth
from dartboard.metrics._batched import batch_count_metric
from dartboard.metrics._registry import resolve_metric, spec_for

__all__ = ["KModelComparison", "cochran_q", "compare_k_models"]

_METHODS = ("maxt", "holm")


@dataclass(frozen=True, repr=False)
class KModelComparison(Result):
    """k models compared pair by pair on one test set, with family-wise control.

    Parameters
    ----------
    metric : str
        Name of the metric.
    estimates : pandas.Series
        The metric of each model, in the order given.
    pairwise : pandas.DataFrame
        One row per pair (i < j in the order given): ``model_a``, ``model_b``,
        ``difference`` (a - b), ``pvalue`` (the pair's own permutation p-value),
        ``pvalue_adjusted`` (family-wise) and ``significant`` (adjusted < alpha).
    method : str
        ``"maxt"`` or ``"holm"``.
    alpha : float
        Family-wise significance level of ``significant``.
    n_resamples : int
        Permutation replicates (per pair for Holm, joint for max-T).
    sampler : str
        How the null distribution was drawn.

    Examples
    --------
    >>> from dartboard import compare_k_models
    >>> preds = {'a': [0, 1, 1, 0, 1, 1, 1, 1], 'b': [0, 1, 0, 0, 0, 1, 1, 0],
    ...          'c': [1, 1, 1, 0, 1, 0, 0, 1]}
    >>> res = compare_k_models('accuracy_score', [0, 1, 1, 0, 1, 0, 1, 1], preds, n_resamples=999, random_state=0)
    >>> res.estimates
    a    0.875
    b    0.500
    c    0.750
    Name: accuracy_score, dtype: float64
    """

    metric: str
    estimates: Any
    pairwise: Any
    method: str
    alpha: float
    n_resamples: int
    sampler: str


# ---------------------------------------------------------------- input

def _predictions_iv(predictions: Any, names: Any) -> tuple[list[np.ndarray], list[str]]:
    """The k prediction arrays and their names, from a dict, a frame, a 2-D array
    (columns are models) or a sequence of arrays."""
    if isinstance(predictions, Mapping):
        columns, arrays = [str(c) for c in predictions], list(predictions.values())
    elif hasattr(predictions, "columns") and hasattr(predictions, "to_numpy"):
        columns = [str(c) for c in predictions.columns]
        arrays = [predictions[c] for c in predictions.columns]
    elif isinstance(predictions, np.ndarray):
        if predictions.ndim != 2:
            raise InputError("predictions as an array must be 2-D (samples x models); got "
                             f"shape {predictions.shape}")
        columns, arrays = None, list(predictions.T)
    elif isinstance(predictions, (list, tuple)):
        columns, arrays = None, list(predictions)
    else:
        raise InputTypeError("predictions must be a dict of name -> predictions, a DataFrame, "
                             f"a 2-D array or a list of arrays; got {describe(predictions)}")
    if len(arrays) < 2:
        raise InputError(f"predictions must hold at least 2 models; got {len(arrays)}")
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != len(arrays):
            raise InputError(f"names must give one name per model ({len(arrays)}); got "
                             f"{len(names)}")
        columns = names
    columns = columns or [f"model {i}" for i in range(len(arrays))]
    if len(set(columns)) != len(columns):
        raise InputError(f"model names must be distinct; got {columns!r}")
    arrays = [rows_array(a, name=f"predictions[{c!r}]") for a, c in zip(arrays, columns)]
    return arrays, columns


# ---------------------------------------------------------------- Cochran's Q

def cochran_q(y_true: ArrayLike, predictions: ArrayLike, *, names: Any = None) -> TestResult:
    """Cochran's Q test of equal accuracy of k classifiers on the same samples.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels of the test rows, the same rows for every model.
    predictions : dict, DataFrame, 2-D array (samples x models) or list of arrays
        The predicted labels of k >= 2 models.
    names : sequence of str, optional
        Model names (default: the dict keys or columns, else ``"model 0"``, ...).

    Returns
    -------
    TestResult
        ``statistic`` Q, ``pvalue`` (chi-square, ``df = k - 1``); ``details`` holds
        each model's number of correct predictions. When no sample is right for
        some models and wrong for others there is no evidence of a difference:
        Q = 0 and p = 1. With k = 2, Q is McNemar's statistic without correction.

    Examples
    --------
    >>> y = [0, 1, 1, 0, 1, 0, 1, 1]
    >>> res = cochran_q(y, {"a": [0, 1, 1, 0, 1, 0, 1, 0], "b": [1, 0, 1, 0, 0, 1, 1, 1],
    ...                     "c": [0, 1, 0, 0, 1, 0, 1, 1]})
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (3.0, 0.2231)
    """
    preds, columns = _predictions_iv(predictions, names)
    y = label_array(y_true, name="y_true")
    preds = [label_array(p, name=f"predictions[{c!r}]") for p, c in zip(preds, columns)]
    check_consistent_length(("y_true", y), *zip(columns, preds))
    joint = JointTypes(y, preds, columns)
    k = joint.k
    correct = joint.pred == joint.true[:, None]
    per_model = (correct * joint.counts[:, None]).sum(axis=0).astype(float)
    per_row = correct.sum(axis=1).astype(float)
    total = per_model.sum()
    denominator = k * total - float((joint.counts * per_row ** 2).sum())
    if denominator <= 0.0:
        q, pvalue = 0.0, 1.0
    else:
        q = (k - 1) * (k * float((per_model ** 2).sum()) - total ** 2) / denominator
        pvalue = float(stats.chi2.sf(q, k - 1))
    return TestResult(statistic=float(q), pvalue=pvalue, alternative="two-sided",
                      method="Cochran's Q test", df=float(k - 1),
                      details={"n_correct": dict(zip(columns, per_model.tolist())),
                               "n_samples": int(joint.counts.sum())})


# ---------------------------------------------------------------- k-model comparison

def _from_data(data: Any, y_true: Any, predictions: Any, sample_weight: Any,
               clusters: Any) -> tuple[Any, dict[str, Any], Any, Any]:
    """``compare_k_models(..., data=)``: the named columns read (see
    :func:`dartboard.compare._models.columns_of`); the models keep their column names
    or the dict's keys."""
    if isinstance(predictions, Mapping):
        models = {str(k): v for k, v in predictions.items()}
    elif isinstance(predictions, (list, tuple)) and all(isinstance(p, str)
                                                        for p in predictions):
        models = {p: p for p in predictions}
    else:
        raise InputTypeError("with data=, predictions must be a list of column names or a "
                             f"dict model name -> column name; got {describe(predictions)}")
    roles = {f"predictions[{name!r}]": column for name, column in models.items()}
    read = columns_of(data, y_true=y_true, sample_weight=sample_weight, clusters=clusters,
                      **roles)
    preds = {name: read[f"predictions[{name!r}]"] for name in models}
    return read["y_true"], preds, read["sample_weight"], read["clusters"]


def _compare_k_iv(metric: Any, y_true: Any, predictions: Any, method: Any, n_resamples: Any,
                  alpha: Any, names: Any, sample_weight: Any) -> tuple:
    check_option(method, "method", _METHODS)
    n_resamples = check_n_resamples(n_resamples)
    alpha = _check_alpha(alpha)
    preds, columns = _predictions_iv(predictions, names)
    y = rows_array(y_true, name="y_true")
    n = check_consistent_length(("y_true", y), *zip(columns, preds))
    if n < 2:
        raise InputError(f"y_true and the predictions must hold at least 2 samples; got {n}")
    shapes = {p.shape for p in preds}
    if len(shapes) > 1:
        raise InputError(f"every model's predictions must have the same shape; got {shapes}")
    spec = spec_for(metric)
    if spec is not None and not spec.takes_labels:
        preds = [as_float_array(p, name=f"predictions[{c!r}]", ndim=(1, 2))
                 for p, c in zip(preds, columns)]
    return y, preds, columns, n_resamples, alpha, check_sample_weight(sample_weight, n,
                                                                       scale_free=True)


@takes_progress
def compare_k_models(metric: str | Callable[..., Any], y_true: ArrayLike, predictions: ArrayLike, *,
                     method: str = "maxt", n_resamples: int = 5000, alpha: float = 0.05,
                     random_state: RandomStateLike = None, names: Any = None, sample_weight: ArrayLike | None = None,
                     clusters: Any = None, progress: bool | None = None, data: Any = None,
                     **metric_kwargs: Any) -> KModelComparison:
    """Compare k models pair by pair on one test set, controlling the family-wise error.

    Parameters
    ----------
    metric : str or callable
        A dartboard metric (e.g. ``dartboard.metrics.f1_score``), its name or
        alias (``"f1"``, ``"f1_macro"``, ``"roc_auc"``) or any
        ``f(y_true, y_pred, **metric_kwargs) -> float``.
    y_true : array-like of shape (n,)
        True labels (or values) of the test rows, the same rows for every model.
    predictions : dict, DataFrame, 2-D array (samples x models) or list of arrays
        The predictions (labels, scores or probabilities) of k >= 2 models.
    method : {"maxt", "holm"}
        Step-down max-T over one joint permutation null, or Holm over each pair's
        own sample-swap test (see the module docstring).
    n_resamples : int, default 5000
        Number of permutation replicates of the null distribution.
    alpha : float, default 0.05
        Family-wise level of the ``significant`` column.
    random_state : None, int, SeedSequence or Generator
        A seed (int), a ``SeedSequence``, a ``Generator``, or None for fresh entropy.
    names : sequence of str, optional
        Model names (default: the dict keys or columns, else ``"model 0"``, ...).
    sample_weight : array-like of shape (n,), optional
        Passed to the metric; each weight travels with its sample. Float weights
        whose largest magnitude lies outside [2**-100, 2**100] are first multiplied
        by a power of two (exact, and invisible to a weighted average).
    clusters : array-like of shape (n,), optional
        The cluster of each row when rows of one cluster are not independent: the
        k-way permutations deal the models on whole clusters (``maxt``), and each
        pair's test is ``compare_models(..., clusters=)`` (``holm``). For the
        ranking metrics of binary scores (ROC AUC, average precision, the PR area)
        the models' raw scores are dealt (see Notes), so they must share one scale:
        a ``UserWarning`` names the models whose scores all lie in [0, 1] when
        others' do not (probabilities against logits or decision values).
    progress : bool, optional
        A progress bar over the permutations on standard error: None (the default)
        shows it when standard error is a terminal and the work lasts more than a
        second; True always; False never.
    data : data frame, Parquet path or glob, Dask or Spark DataFrame, optional
        A table of predictions, as in :func:`compare_models`: then ``y_true``,
        ``sample_weight`` and ``clusters`` name its columns, and ``predictions`` is
        a list of column names (the models' names unless ``names`` is given) or a
        dict model name -> column name. The rows are read into memory sorted by their
        values, so the numbers are the same from every source; a Spark DataFrame
        sends its distinct rows and their counts.
    **metric_kwargs
        Passed to the metric (e.g. ``average="macro"``); ``strata`` is refused with
        a ``TypeError`` (the models are exchanged within each row, which needs none).

    Returns
    -------
    KModelComparison
        ``estimates`` per model and the ``pairwise`` table with raw and adjusted
        p-values.

    See Also
    --------
    dartboard.compare_models : Two models.
    dartboard.cochran_q : Are k classifiers' accuracies equal?
    dartboard.rank_models : k models over folds or data sets.

    Notes
    -----
    Score metrics of the ranking family (ROC AUC, average precision) depend only on
    the order of each model's scores, so each model's scores are replaced by their
    ranks before predictions are exchanged: models on different scales are then
    compared on a common one, and the estimates do not change. With ``clusters``
    these metrics of binary scores deal the raw scores instead, the exact exchange on
    whole clusters, where each model's own ranks are not exchangeable between models
    (ROC AUC by counting, the others recomputed on each permutation). With 30 or 50
    clusters of very unequal sizes and an intra-cluster correlation of 0.5, the
    family-wise error over three equally good models at ``alpha=0.05`` was 6.8-8.1%
    when ranks were dealt and is 4.2-5.6% with raw scores (3.9-4.8% at a correlation
    of 0.2; 1000 data sets per cell; benchmarks/unequal_clusters_type1.py,
    :mod:`dartboard.compare._clustered`). A monotone map applied to every model's
    scores leaves the test unchanged; one applied to a single model does not.

    Examples
    --------
    >>> from dartboard.metrics import accuracy_score
    >>> y = [0, 1, 1, 0, 1, 0, 1, 1, 0, 0] * 20
    >>> preds = {"a": [0, 1, 1, 0, 1, 0, 1, 0, 0, 0] * 20,
    ...          "b": [0, 1, 0, 0, 1, 1, 1, 0, 0, 1] * 20,
    ...          "c": [0, 1, 1, 0, 1, 0, 1, 0, 0, 1] * 20}
    >>> res = compare_k_models(accuracy_score, y, preds, random_state=0)
    >>> res.pairwise[["model_a", "model_b", "significant"]].values.tolist()
    [['a', 'b', True], ['a', 'c', True], ['b', 'c', True]]
    """
    import pandas as pd

    refuse_strata(metric_kwargs, "compare_k_models")
    if data is not None:
        y_true, from_data, sample_weight, clusters = _from_data(
            data, y_true, predictions, sample_weight, clusters)
        predictions = from_data  # type: ignore[assignment]
    resolved = resolve_metric(metric)
    metric, metric_kwargs = resolved.function, {**resolved.kwargs, **metric_kwargs}
    y, preds, columns, n_resamples, alpha, w = _compare_k_iv(
        metric, y_true, predictions, method, n_resamples, alpha, names, sample_weight)
    name = getattr(metric, "__name__", type(metric).__name__)
    spec = spec_for(metric)
    family = family_of(spec)
    # which paired sampler the family has (the k models count their rows their own way)
    paired = None if family is None or spec is None or not spec.scalar else \
        family.paired_kind(y, preds[0], w, Metric(spec, dict(metric_kwargs)))
    k = len(preds)
    left, right = np.triu_indices(k, 1)
    codes = None
    # a binary ranking metric on whole clusters exchanges the raw scores (each model's
    # own ranks are not exchangeable there; compare._clustered)
    raw_scores = (clusters is not None and spec is not None and family is not None
                  and family.swaps_raw_scores(Metric(spec, dict(metric_kwargs)), preds[0]))
    counted_auc = raw_scores and paired is PairedAUC
    if clusters is not None:  # rows move with their clusters: the generic samplers
        from dartboard._kernels._clustered import cluster_index

        codes = cluster_index(clusters, y.shape[0]).codes
        paired = None
        if raw_scores:
            warn_mixed_scales([(repr(c), p) for c, p in zip(columns, preds)],
                              "compare_k_models", "compare_models(..., clusters=, "
                              "method='cluster-robust') on each pair", stacklevel=3)
    joint = JointTypes(y, preds, columns) if paired is PairedCounts else None
    estimates, preds = _estimates(metric, name, spec, y, preds, w, metric_kwargs, joint,
                                  raw_scores)
    if not np.isfinite(estimates).all():
        raise InputError(f"{name} is undefined on these data for some model "
                         f"({dict(zip(columns, estimates.tolist()))}), so the models "
                         "cannot be compared with it")
    observed = estimates[left] - estimates[right]
    if method == "holm":
        raw = _pairwise_pvalues(metric, y, preds, joint, w, metric_kwargs, left, right,
                                observed, n_resamples, random_state, clusters)
        adjusted = adjust_pvalues(raw, "holm")
        sampler = ("Holm over pairwise " + ("cluster-swap" if codes is not None
                                             else "sample-swap") + " permutation tests"
                   + (" (type-reduced)" if joint is not None else ""))
    else:
        values, sampler = _kway_null(metric, name, y, preds, w, metric_kwargs, joint,
                                     paired, counted_auc, codes, n_resamples,
                                     check_random_state(random_state))
        null = values[:, left] - values[:, right]
        raw = np.array([(count_extreme(null[:, p], observed[p], "two-sided") + 1)
                        / (n_resamples + 1) for p in range(observed.shape[0])])
        adjusted = stepdown_maxt(np.abs(observed), np.abs(null))
    pairwise = pd.DataFrame({
        "model_a": [columns[i] for i in left], "model_b": [columns[j] for j in right],
        "difference": observed, "pvalue": np.minimum(raw, 1.0),
        "pvalue_adjusted": adjusted, "significant": adjusted < alpha})
    return KModelComparison(metric=name, estimates=pd.Series(estimates, index=columns,
                                                             name=name),
                            pairwise=pairwise, method=method, alpha=alpha,
                            n_resamples=n_resamples, sampler=sampler)


def _estimates(metric: Callable[..., Any], name: str, spec: Any, y: np.ndarray,
               preds: list[np.ndarray], w: np.ndarray | None, kwargs: dict[str, Any],
               joint: JointTypes | None, raw_scores: bool
               ) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each model's estimate, and the predictions the null exchanges: a score metric
    of the ranking family reads each model's ranks (unless the raw scores are dealt on
    whole clusters); counted types give every estimate from their confusion matrices."""
    if joint is not None:
        return batch_count_metric(name, joint.classes, joint.confusion(), kwargs), preds
    if spec is not None and spec.order_only and preds[0].ndim == 1 and not raw_scores:
        preds = [stats.rankdata(p) / p.shape[0] for p in preds]
    weight_kw = {} if w is None else {"sample_weight": w}
    return np.array([_scalar(metric(y, p, **weight_kw, **kwargs), name)
                     for p in preds]), preds


def _kway_null(metric: Callable[..., Any], name: str, y: np.ndarray,
               preds: list[np.ndarray], w: np.ndarray | None, kwargs: dict[str, Any],
               joint: JointTypes | None, paired: Any, counted_auc: bool,
               codes: np.ndarray | None, n_resamples: int, rng: np.random.Generator
               ) -> tuple[np.ndarray, str]:
    """(R, k) replicates of every model's metric under k-way permutations, and how
    they were drawn: dealt type counts, ROC AUC by counting ranks (raw scores on whole
    clusters), or the metric on each permutation."""
    if joint is not None:
        return (dealt_count_null(joint, name, kwargs, n_resamples, rng),
                "step-down max-T over k-way permutations (dealt type counts)")
    if paired is PairedAUC:
        return (auc_kway_null(binary_truth(y), preds, n_resamples, rng),
                "step-down max-T over k-way permutations (AUC by counting score ranks)")
    if counted_auc and codes is not None:
        return (auc_kway_null(binary_truth(y), preds, n_resamples, rng, codes),
                "step-down max-T over k-way permutations of whole clusters "
                f"({int(codes.max()) + 1} clusters; AUC of the raw scores by counting)")
    values = generic_kway_null(metric, y, preds, w, kwargs, n_resamples, rng, codes)
    return values, "step-down max-T over k-way " + (
        "sample permutations" if codes is None else
        f"permutations of whole clusters ({int(codes.max()) + 1} clusters)")


def _pairwise_pvalues(metric: Callable[..., Any], y: np.ndarray, preds: list[np.ndarray],
                      joint: JointTypes | None, w: np.ndarray | None,
                      kwargs: dict[str, Any], left: np.ndarray, right: np.ndarray,
                      observed: np.ndarray, n_resamples: int, random_state: Any,
                      clusters: Any = None) -> np.ndarray:
    """Each pair's own two-sided sample-swap permutation p-value: pair p's equals
    ``compare_models(..., random_state=spawn(random_state, P)[p]).pvalue`` (with
    ``clusters`` too)."""
    seeds = spawn(random_state, left.shape[0])
    out = np.empty(left.shape[0])
    for p, (i, j) in track(enumerate(zip(left, right)), "pairwise permutation tests",
                           total=len(left)):
        if joint is None:
            with warnings.catch_warnings():  # compare_k_models warned of the scales
                warnings.filterwarnings("ignore", MIXED_SCALES, UserWarning)
                out[p] = compare_models(metric, y, preds[i], preds[j],
                                        n_resamples=n_resamples, random_state=seeds[p],
                                        sample_weight=w, clusters=clusters,
                                        **kwargs).pvalue
            continue
        types, counts = joint.pair(i, j)
        sampler = PairedCounts.from_types(getattr(metric, "__name__", ""), joint.classes,
                                         types, counts, kwargs)
        # compare_models' permutation stream is the first of two spawned from its seed
        null = sampler.permutation(n_resamples, spawn_generators(seeds[p], 2)[0])
        out[p] = (count_extreme(null, observed[p], "two-sided") + 1) / (n_resamples + 1)
    return out
