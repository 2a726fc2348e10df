"""The metric registry: every public metric's facts, declared once.

Each public function of :mod:`dartboard.metrics` has one :class:`MetricSpec` here
saying what kind of metric it is, which family computes it (:mod:`dartboard.families`:
its state, replicates, pooled groups and analytic intervals), which input it takes,
which way is better, whether it is a proportion (and of which counts), which
keywords it takes, and which interval ``auto`` picks. Every engine that needs such a
fact (intervals, comparisons, streaming and Dask, the evaluation engine, the command
line, the stability audit) asks :func:`spec_for` or :func:`specs`; none of them
re-derives it from a name list or from ``metric.__module__``.

A spec is found by the function itself (``spec_for(dartboard.metrics.f1_score)``)
or by its name (``get_spec("f1_score")``); a user's callable has no spec, and the
engines treat it as a generic metric.

Examples
--------
>>> from dartboard.metrics import recall_score
>>> spec = spec_for(recall_score)
>>> spec.kind, spec.family, spec.input, spec.proportion, spec.default_interval
('count', 'counts', 'labels', ('tp', ('tp', 'fn')), 'wilson')
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
from collections.abc import Callable, Iterable
from functools import cache
from types import ModuleType
from typing import Any, get_args

from dartboard._typing import RegistryTask
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["FAMILIES", "INPUTS", "KINDS", "TASKS", "MetricSpec", "ResolvedMetric", "get_spec",
           "resolve_metric", "spec_for", "specs"]

#: what a metric is
KINDS = ("count", "ranking", "probabilistic", "calibration", "regression", "similarity",
         "curve", "report")
#: the families that compute metrics from mergeable states (:mod:`dartboard.families`)
FAMILIES = ("counts", "scores", "means", "rows", "errors", "calibration")
#: what the second argument of a metric holds
INPUTS = ("labels", "scores", "probabilities", "values")
#: the tasks an evaluation reports on
TASKS: tuple[str, ...] = get_args(RegistryTask)


@dataclasses.dataclass(frozen=True)
class MetricSpec:
    """The declared facts of one public metric.

    Attributes
    ----------
    name : str
        The function's name in :mod:`dartboard.metrics`.
    module : str
        The module that defines it (used to import the function, never to dispatch).
    kind : str
        One of :data:`KINDS`: ``count`` (a function of the confusion matrix),
        ``ranking`` (of sorted scores), ``probabilistic`` (a mean per-sample loss
        of probabilities), ``regression``, ``similarity``, ``curve`` (returns
        arrays) or ``report`` (returns a table).
    family : str or None
        One of :data:`FAMILIES`: the family whose state computes it, and with it
        its fast intervals, paired comparisons, group gaps and streaming. None: a
        generic metric (intervals resample rows; it does not stream).
    input : str
        One of :data:`INPUTS`.
    greater_is_better : bool or None
        Whether a greater value is better; None where neither is (the selection
        rate: being selected is a benefit or a burden depending on what is
        predicted), so no group or model is called the better one.
    scalar : bool
        Whether it returns one number (with its default keywords, or with an
        ``average`` other than None).
    proportion : tuple or None
        ``(numerator, denominator terms)`` over one-vs-all counts (``tp``, ``fp``,
        ``fn``, ``tn``; accuracy: ``("correct", ("total",))``) for a proportion,
        whose analytic binomial intervals then apply; None otherwise.
    pos_label, average : bool
        Whether it takes these keywords.
    default_interval : str or None
        ``method="auto"``'s choice when ``auto_interval`` gives none: ``wilson``,
        ``delong``, ``bca`` or ``basic``; None when no interval is valid (a sample
        maximum).
    binned : bool
        Whether a binned score state bounds its error (streaming with
        ``exact=False``).
    tasks : tuple of str
        Tasks whose evaluation reports it by default.
    multiclass : dict
        Keywords it gets in a multiclass evaluation (``average="macro"``).
    label : str
        Its name in tables and JSON when that is not the name without ``_score``.
    rate : str or None
        The rate of the positive class a binary count metric is, in the fairness
        summaries' vocabulary: ``selection`` (selection rate), ``tpr`` (true positive
        rate), ``fpr`` (false positive rate); None otherwise.
    bounds : tuple of float or None
        ``(lowest, highest)`` value the metric can take (``-inf``/``inf`` for an
        open end); intervals are clipped to it (a ``basic`` bootstrap interval
        can otherwise leave the range). None when not declared.
    auto_interval : tuple of (int, str)
        ``method="auto"``'s choice by sample size, measured by coverage
        (``benchmarks/interval_choice.py``): pairs ``(minimum size, method)``;
        the last pair whose minimum the data reach and whose method applies to
        the inputs (binary or multiclass scores, no weights...) wins, else
        ``default_interval`` where it applies, else ``bca``. The size is the
        smallest class for ranking metrics and the number of samples
        otherwise. Empty: ``default_interval`` always.
    asymptotic : tuple of str
        Large-sample interval methods (:mod:`dartboard._kernels._analytic`)
        that apply besides ``default_interval``: ``delong-logit`` and
        ``newcombe`` (binary ROC AUC), ``influence-logit`` (multiclass one-vs-rest macro ROC AUC; AP and
        PR AUC), ``logit`` (AP and PR AUC), ``t`` (a mean of per-sample terms).
    covers_estimate : bool
        Whether its bootstrap intervals are widened to contain the estimate: an
        estimator biased away from a bound (the calibration error, biased upward
        near 0) can have all bootstrap replicates on one side of it, and the
        percentile and basic intervals then exclude it. (Its ``bin-pivot`` interval
        is not widened: it corrects the bias and may lie below the estimate.)
    needs : dict
        Keywords the metric cannot go without (``fbeta_score``'s ``beta``, a fixed
        point's target), each with a customary value for examples and the common
        tests; a caller names them (``"fbeta_score(beta=2)"``).
    unit : str
        What the value is measured in, so that a figure never puts metrics of
        different units on one axis: ``"none"`` (a proportion, a score, a
        correlation, a loss of probabilities, R^2, a percentage error as a
        fraction), ``"target"`` (the unit of ``y_true``: MAE, RMSE, the median and
        maximum errors), ``"target^2"`` (MSE) or ``"depends"`` (on a keyword: the
        Tweedie deviance on its power).
    """

    name: str
    module: str
    kind: str
    input: str
    family: str | None = None
    greater_is_better: bool | None = True
    scalar: bool = True
    proportion: tuple[str, tuple[str, ...]] | None = None
    pos_label: bool = False
    average: bool = False
    default_interval: str | None = "bca"
    binned: bool = False
    tasks: tuple[str, ...] = ()
    multiclass: dict[str, Any] = dataclasses.field(default_factory=dict)
    label: str = ""
    rate: str | None = None
    bounds: tuple[float, float] | None = None
    auto_interval: tuple[tuple[int, str], ...] = ()
    asymptotic: tuple[str, ...] = ()
    covers_estimate: bool = False
    unit: str = "none"
    needs: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def function(self) -> Callable[..., Any]:
        """The metric function itself (the package :mod:`dartboard.metrics` imports every
        metric module and hands their functions to :func:`_register_functions`)."""
        return _FUNCTIONS[self.name]

    @property
    def order_only(self) -> bool:
        """Whether its value depends on each model's scores only through their order
        (a ranking metric): a monotone transform of the scores leaves it unchanged."""
        return self.kind == "ranking"

    @property
    def classification(self) -> bool:
        """Whether it judges classifiers (labels, scores or probabilities)."""
        return self.input != "values"

    @property
    def regression(self) -> bool:
        """Whether it judges regression predictions (a regression metric)."""
        return self.kind == "regression"

    @property
    def takes_labels(self) -> bool:
        """Whether its second argument is predicted labels."""
        return self.input == "labels"

    @property
    def takes_scores(self) -> bool:
        """Whether its second argument is scores or probabilities (numbers it ranks)."""
        return self.input in ("scores", "probabilities")

    @property
    def takes_probabilities(self) -> bool:
        """Whether its second argument must be probabilities (one column per class)."""
        return self.input == "probabilities"

    @property
    def counted(self) -> bool:
        """Whether it is one number of the confusion counts (the counts family)."""
        return self.family == "counts" and self.scalar

    @property
    def set_wise(self) -> bool:
        """Whether it is a ratio of one-vs-all counts per class, averaged (``average``)."""
        return self.average and self.kind == "count"

    @property
    def multi_class_scores(self) -> bool:
        """Whether a multiclass evaluation gives it a score matrix (``multi_class``)."""
        return "multi_class" in self.multiclass

    def table_label(self, task: str = "binary") -> str:
        """Name in tables: ``label``, with ``_macro`` when a multiclass average is used."""
        base = self.label or self.name.removesuffix("_score")
        return f"{base}_{self.multiclass['average']}" if task == "multiclass" \
            and "average" in self.multiclass else base


_CONF = "dartboard.metrics._confusion"
_RANK = "dartboard.metrics._ranking"
_PROB = "dartboard.metrics._probabilistic"
_REG = "dartboard.metrics._regression"
_SIM = "dartboard.metrics._similarity"
_CLS_LOSS = "dartboard.metrics._classification_losses"
_LR = "dartboard.metrics._label_ranking"
_CUR = "dartboard.metrics._curves"
_REG_LOSS = "dartboard.metrics._regression_losses"
_D2P = "dartboard.metrics._d2_probabilities"
_CAL = "dartboard.metrics._calibration"
_OP = "dartboard.metrics._operating_points"

_BOTH = ("binary", "multiclass")
_MACRO = {"average": "macro"}
_UNIT = (0.0, 1.0)
_SIGNED = (-1.0, 1.0)
_NONNEGATIVE = (0.0, float("inf"))
# method="auto" by sample size (the smaller class for ranking metrics), from the coverage
# measured by benchmarks/interval_choice.py (auc3, auc3edge: AUC 0.70/0.86/0.95): binary
# ROC AUC newcombe below 30 samples in the smaller class (95.0-97.5% from 6 to 20, where
# delong-logit falls to 89-92.5% at AUC 0.95), delong-logit from 30 (92.3-96.1%; newcombe
# over-covers there, 97.4-97.9% at AUC 0.95), delong from 100 (92.5-95.1%, as pROC); the
# multiclass macro AUC takes its influence interval (binary scores skip it); AP and PR
# AUC: below 100 the influence interval and the bootstrap under-cover (89-90% with 6
# positives) while Boyd et al.'s binomial logit interval over-covers (96-99%)
_AUC_AUTO = ((0, "newcombe"), (0, "influence-logit"), (30, "delong-logit"), (100, "delong"))
_PR_METHODS = ("logit", "influence-logit")
_PR_AUTO = ((0, "logit"), (100, "influence-logit"))
# a mean of per-row terms: Student's t from 500 rows (and 40 of each class for a
# classification loss, families/_means.py), BCa below: from 500 rows t covered
# 93.4-95.8% in benchmarks/mean_loss_coverage.py's grid (log loss and Brier at 50% and
# 10% positives, MAE and MSE of normal errors), against BCa's 93.3-95.8%; a bootstrap per
# group is most of an evaluation's time with many groups of a few hundred rows
_MEAN_AUTO = ((500, "t"),)


def _count(name: str, *, proportion: Any = None, averaged: bool = True,
           tasks: tuple[str, ...] = (), greater: bool | None = True,
           bounds: tuple[float, float] = _UNIT, **kw: Any) -> MetricSpec:
    return MetricSpec(
        name, _CONF, "count", "labels", family="counts", greater_is_better=greater,
        proportion=proportion, pos_label=averaged, average=averaged,
        default_interval="wilson" if proportion else "bca", tasks=tasks,
        multiclass=_MACRO if averaged and "multiclass" in tasks else {}, bounds=bounds, **kw)


def _regression_loss(name: str, *, mean: bool = False, greater: bool = False,
                     unit: str = "none") -> MetricSpec:
    """A regression loss, not reported by default (``tasks=()``); a mean of
    per-sample losses is computed by the means family."""
    return MetricSpec(name, _REG_LOSS, "regression", "values", family="means" if mean else None,
                      greater_is_better=greater, unit=unit)


def _regression(name: str, *, family: str | None = "rows", greater: bool = False,
               **kw: Any) -> MetricSpec:
    # errors are non-negative; the explained fractions (R^2, explained variance) at most 1
    bounds = (float("-inf"), 1.0) if greater else _NONNEGATIVE
    if family == "means":
        kw.update(asymptotic=("t",), auto_interval=_MEAN_AUTO)
    return MetricSpec(name, _REG, "regression", "values", family=family,
                      greater_is_better=greater, tasks=("regression",), bounds=bounds, **kw)


_SPECS: tuple[MetricSpec, ...] = (
    # ---------------------------------------------------------------- count family
    _count("accuracy_score", proportion=("correct", ("total",)), averaged=False,
           tasks=_BOTH),
    # adjusted=True reaches down to -1 / (K - 1)
    _count("balanced_accuracy_score", averaged=False, tasks=_BOTH, bounds=_SIGNED),
    _count("precision_score", proportion=("tp", ("tp", "fp")), tasks=_BOTH),
    _count("recall_score", proportion=("tp", ("tp", "fn")), tasks=_BOTH, rate="tpr"),
    _count("specificity_score", proportion=("tn", ("tn", "fp")), tasks=("binary",)),
    # asked for by name (metrics=[...]); not among the binary defaults
    _count("negative_predictive_value", proportion=("tn", ("tn", "fn"))),
    _count("f1_score", tasks=_BOTH),
    _count("fbeta_score", needs={"beta": 2.0}),  # needs beta: no default task
    _count("matthews_corrcoef", averaged=False, tasks=_BOTH, bounds=_SIGNED),
    _count("cohen_kappa_score", averaged=False, tasks=("multiclass",), bounds=_SIGNED),
    _count("false_positive_rate", proportion=("fp", ("fp", "tn")), tasks=("binary",),
           greater=False, rate="fpr"),
    _count("false_negative_rate", proportion=("fn", ("fn", "tp")), tasks=("binary",),
           greater=False),
    _count("selection_rate", proportion=("sel", ("total",)), tasks=("binary",),
           greater=None, rate="selection"),
    _count("jaccard_score", proportion=("tp", ("tp", "fp", "fn"))),
    MetricSpec("hamming_loss", _CLS_LOSS, "count", "labels", family="counts",
               greater_is_better=False),
    MetricSpec("zero_one_loss", _CLS_LOSS, "count", "labels", family="counts",
               greater_is_better=False),
    MetricSpec("class_likelihood_ratios", _CLS_LOSS, "count", "labels", scalar=False,
               default_interval=None),
    MetricSpec("confusion_matrix", _CONF, "count", "labels", scalar=False,
               default_interval=None),
    MetricSpec("multilabel_confusion_matrix", _CONF, "count", "labels", scalar=False,
               default_interval=None),
    MetricSpec("precision_recall_fscore_support", _CONF, "count", "labels", scalar=False,
               pos_label=True, average=True, default_interval=None),
    MetricSpec("classification_report", "dartboard.metrics._classification_report", "report", "labels", scalar=False,
               default_interval=None),
    # ---------------------------------------------------------------- ranking family
    MetricSpec("roc_auc_score", _RANK, "ranking", "scores", family="scores", average=True,
               default_interval="delong", binned=True,
               tasks=_BOTH, multiclass={"multi_class": "ovr"}, bounds=_UNIT,
               asymptotic=("delong-logit", "newcombe", "influence-logit"),
               auto_interval=_AUC_AUTO),
    MetricSpec("average_precision_score", _RANK, "ranking", "scores", family="scores",
               pos_label=True, average=True, binned=True,
               tasks=("binary",), bounds=_UNIT, asymptotic=_PR_METHODS,
               auto_interval=_PR_AUTO),
    MetricSpec("pr_auc_score", _RANK, "ranking", "scores", family="scores", pos_label=True,
               average=True, tasks=("binary",), bounds=_UNIT,
               asymptotic=_PR_METHODS, auto_interval=_PR_AUTO),
    # a point of the ROC curve (pROC's coords); percentile bootstrap, as pROC's ci.coords
    MetricSpec("sensitivity_at_specificity", _OP, "ranking", "scores", family="scores",
               pos_label=True, default_interval="percentile", bounds=_UNIT,
               needs={"specificity": 0.9}),
    MetricSpec("specificity_at_sensitivity", _OP, "ranking", "scores", family="scores",
               pos_label=True, default_interval="percentile", bounds=_UNIT,
               needs={"sensitivity": 0.9}),
    MetricSpec("roc_curve", _RANK, "curve", "scores", scalar=False, pos_label=True,
               default_interval=None),
    MetricSpec("precision_recall_curve", _RANK, "curve", "scores", scalar=False,
               pos_label=True, default_interval=None),
    MetricSpec("det_curve", _CUR, "curve", "scores", scalar=False, pos_label=True,
               default_interval=None),
    # the area under given points: no data to resample
    MetricSpec("auc", _CUR, "curve", "values", default_interval=None),
    MetricSpec("top_k_accuracy_score", _LR, "ranking", "scores"),
    MetricSpec("ndcg_score", _LR, "ranking", "scores"),
    MetricSpec("dcg_score", _LR, "ranking", "scores"),
    MetricSpec("label_ranking_average_precision_score", _LR, "ranking", "scores"),
    MetricSpec("label_ranking_loss", _LR, "ranking", "scores", greater_is_better=False),
    MetricSpec("coverage_error", _LR, "ranking", "scores", greater_is_better=False),
    # ---------------------------------------------------------------- probabilities
    MetricSpec("log_loss", _PROB, "probabilistic", "probabilities", family="means",
               greater_is_better=False, tasks=_BOTH, bounds=_NONNEGATIVE, asymptotic=("t",),
               auto_interval=_MEAN_AUTO),
    MetricSpec("brier_score_loss", _PROB, "probabilistic", "probabilities", family="means",
               greater_is_better=False, pos_label=True, tasks=("binary",),
               bounds=_NONNEGATIVE, asymptotic=("t",),
               auto_interval=_MEAN_AUTO),
    MetricSpec("hinge_loss", _CLS_LOSS, "probabilistic", "scores", greater_is_better=False),
    MetricSpec("d2_log_loss_score", _D2P, "probabilistic", "probabilities"),
    MetricSpec("d2_brier_score", _D2P, "probabilistic", "probabilities", pos_label=True),
    # ---------------------------------------------------------------- calibration
    # bin-pivot: the estimate is biased upward by an amount that depends on the truth,
    # which basic and bca misjudge below a few standard errors per bin
    # (benchmarks/calibration_simulation_ece.py); where it does not apply, basic
    MetricSpec("calibration_error", _CAL, "calibration", "probabilities",
               family="calibration", greater_is_better=False, pos_label=True,
               default_interval="bin-pivot", tasks=_BOTH, label="ece",
               bounds=_UNIT, covers_estimate=True),
    MetricSpec("brier_decomposition", _CAL, "calibration", "probabilities", scalar=False,
               pos_label=True, default_interval=None),
    MetricSpec("calibration_curve", _CAL, "curve", "probabilities", scalar=False,
               pos_label=True, default_interval=None),
    # ---------------------------------------------------------------- regression
    _regression("mean_absolute_error", family="means", unit="target"),
    _regression("mean_squared_error", family="means", unit="target^2"),
    _regression("root_mean_squared_error", family="means", unit="target"),
    _regression("r2_score", greater=True),
    _regression("explained_variance_score", greater=True),
    _regression("mean_absolute_percentage_error", family="means"),
    _regression("weighted_mean_absolute_percentage_error"),
    _regression("median_absolute_error", family="errors", unit="target"),
    _regression("median_absolute_deviation", family="errors", unit="target"),
    # a sample maximum has no valid bootstrap interval
    _regression("max_error", default_interval=None, unit="target"),
    MetricSpec("error_distribution", _REG, "regression", "values", scalar=False,
               default_interval=None),
    _regression_loss("mean_squared_log_error", mean=True),
    _regression_loss("root_mean_squared_log_error", mean=True),
    _regression_loss("mean_pinball_loss", mean=True, unit="target"),
    _regression_loss("mean_poisson_deviance", mean=True, unit="target"),
    _regression_loss("mean_gamma_deviance", mean=True),
    _regression_loss("mean_tweedie_deviance", mean=True, unit="depends"),
    _regression_loss("d2_absolute_error_score", greater=True),
    _regression_loss("d2_pinball_score", greater=True),
    _regression_loss("d2_tweedie_score", greater=True),
    # ---------------------------------------------------------------- similarity
    MetricSpec("cosine_similarity", _SIM, "similarity", "values", default_interval="bca",
               bounds=_SIGNED),
)

_BY_NAME: dict[str, MetricSpec] = {s.name: s for s in _SPECS}

#: each metric's function by its name. The registry imports no metric module (they
#: read its facts); :mod:`dartboard.metrics` imports them all and hands them to
#: :func:`register_functions` once, before any function is asked for.
_FUNCTIONS: dict[str, Callable[..., Any]] = {}


def register_functions(modules: Iterable[ModuleType]) -> None:
    """Record the function of every spec from ``modules``, the modules the specs name."""
    by_name = {module.__name__: module for module in modules}
    missing = sorted({s.module for s in _SPECS} - set(by_name))
    if missing:
        raise RuntimeError(f"the metric modules {missing} were not registered")
    _FUNCTIONS.update({s.name: getattr(by_name[s.module], s.name) for s in _SPECS})


@cache
def _by_function() -> dict[int, MetricSpec]:
    return {id(s.function): s for s in _SPECS}


def get_spec(name: str) -> MetricSpec:
    """The spec of the public metric called ``name`` (a ``ValueError`` when none)."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise InputError(f"unknown metric {name!r}; dartboard's metrics are "
                         f"{', '.join(sorted(_BY_NAME))}") from None


def spec_for(metric: Any) -> MetricSpec | None:
    """The spec of a dartboard metric function, or None for any other callable."""
    spec = _by_function().get(id(metric))
    return spec if spec is not None and spec.function is metric else None


# ---------------------------------------------------------------- one way to name a metric

#: the averages a set-wise metric's alias may carry, as scikit-learn's scorer names do
_AVERAGES = ("micro", "macro", "weighted", "samples")
#: scikit-learn's multiclass ROC AUC scorer names: suffix -> keywords
_MULTI_CLASS = {"ovr": {"multi_class": "ovr"}, "ovo": {"multi_class": "ovo"},
                "ovr_weighted": {"multi_class": "ovr", "average": "weighted"},
                "ovo_weighted": {"multi_class": "ovo", "average": "weighted"}}


@dataclasses.dataclass(frozen=True)
class ResolvedMetric:
    """A metric as a caller named it: its spec, function, keywords and table label.

    Attributes
    ----------
    spec : MetricSpec or None
        None for a user's callable (no registry facts: the engines treat it as a
        generic metric, resampling rows).
    function : callable
    kwargs : dict
        Keywords the name carries (``"f1_macro"`` carries ``average="macro"``).
    label : str
        The name its rows print under; accepted back by :func:`resolve_metric`.
    """

    spec: MetricSpec | None
    function: Callable[..., Any]
    kwargs: dict[str, Any]
    label: str


def _short(spec: MetricSpec) -> str:
    return spec.label or spec.name.removesuffix("_score")


@cache
def _aliases() -> dict[str, tuple[MetricSpec, tuple[tuple[str, Any], ...]]]:
    """Every name a metric answers to: its function name, its table label, and the
    label with an average (``f1_macro``) or a multiclass scheme (``roc_auc_ovr``), as
    scikit-learn's scorer names spell them."""
    out: dict[str, tuple[MetricSpec, tuple[tuple[str, Any], ...]]] = {}
    for spec in _SPECS:
        short = _short(spec)
        out.setdefault(spec.name, (spec, ()))
        out.setdefault(short, (spec, ()))
        if spec.average and spec.kind == "count":
            for average in _AVERAGES:
                out.setdefault(f"{short}_{average}", (spec, (("average", average),)))
        if spec.multiclass.get("multi_class"):
            for suffix, kw in _MULTI_CLASS.items():
                out.setdefault(f"{short}_{suffix}", (spec, tuple(kw.items())))
    return out


def resolve_metric(metric: Any, *, argument: str = "metric") -> ResolvedMetric:
    """The one way every entry point reads a metric argument.

    ``metric`` is a dartboard metric function, the same-named function of
    ``sklearn.metrics`` (computed by dartboard's, whose values are the same), a
    name (the function's name ``"f1_score"``, its table label ``"f1"``, ``"ece"``,
    or a label with keywords as scikit-learn's scorer names spell them:
    ``"f1_macro"``, ``"precision_weighted"``, ``"roc_auc_ovr"``), or any other
    callable ``f(y_true, y_other, **kwargs) -> float``. ``argument`` names the
    parameter in error messages.

    Examples
    --------
    >>> r = resolve_metric("f1_macro")
    >>> r.spec.name, r.kwargs, r.label
    ('f1_score', {'average': 'macro'}, 'f1_macro')
    >>> resolve_metric("ece").spec.name
    'calibration_error'
    """
    if isinstance(metric, str):
        found = _aliases().get(metric)
        if found is None:
            return _with_keywords(metric, argument)
        spec, kw = found
        label = metric if kw else _short(spec)
        return ResolvedMetric(spec, spec.function, dict(kw), label)
    if isinstance(metric, functools.partial) and not metric.args:
        inner = resolve_metric(metric.func, argument=argument)
        if inner.spec is not None:  # a dartboard metric with keywords bound
            return _bound(inner, metric.keywords)
    if not callable(metric):
        raise InputTypeError(f"{argument} must be a metric name or a callable "
                        f"f(y_true, y_other, **kwargs) -> float; got "
                        f"{type(metric).__name__} ({metric!r:.40})")
    found_spec = spec_for(metric)
    if found_spec is None and getattr(metric, "__module__", "").startswith("sklearn.metrics"):
        # scikit-learn's own function: dartboard's computes the same values, fast
        found_spec = _BY_NAME.get(getattr(metric, "__name__", ""))
    if found_spec is not None:
        return ResolvedMetric(found_spec, found_spec.function, {}, _short(found_spec))
    name = getattr(metric, "__name__", None) or type(metric).__name__
    return ResolvedMetric(None, metric, {}, name)


def _bound(inner: ResolvedMetric, keywords: dict[str, Any]) -> ResolvedMetric:
    """A metric with keywords bound, labelled as a call (``f1(beta=2)``), which names it
    back: the engines keep its family (its fast intervals, gaps and streaming)."""
    kw = {**inner.kwargs, **keywords}
    args = ", ".join(f"{k}={v!r}" for k, v in keywords.items())
    return ResolvedMetric(inner.spec, inner.function, kw, f"{inner.label}({args})")


def _with_keywords(name: str, argument: str) -> ResolvedMetric:
    """A name with literal keywords, ``"sensitivity_at_specificity(specificity=0.9)"``."""
    match = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*\((.*)\)\s*", name, flags=re.DOTALL)
    if match is None or match.group(1) not in _aliases():
        raise InputError(_unknown(name, argument))
    refused = InputError(f"{argument}: {name!r} is not a metric name with keywords as "
                         "name(keyword=value, ...), the values literals")
    try:
        call = ast.parse(f"f({match.group(2)})", mode="eval").body
        keywords = {k.arg: ast.literal_eval(k.value) for k in getattr(call, "keywords", ())}
    except (SyntaxError, ValueError):
        raise refused from None
    if not isinstance(call, ast.Call) or call.args or None in keywords:
        raise refused
    return _bound(resolve_metric(match.group(1), argument=argument), keywords)


def _unknown(name: str, argument: str) -> str:
    if name.startswith("neg_") and name[4:] in _aliases():
        return (f"unknown metric {name!r} in {argument}: scikit-learn's 'neg_' scorers "
                f"negate a loss so that greater is better; dartboard reports the metric "
                f"itself, name it {name[4:]!r}")
    known = sorted({_short(s) for s in _SPECS if s.scalar})
    return (f"unknown metric {name!r} in {argument}; dartboard's metrics are "
            f"{', '.join(known)} (or their function names, e.g. 'f1_score', or with an "
            "average as in 'f1_macro'), or pass a callable")


def specs(*, kind: str | Iterable[str] | None = None, task: str | None = None,
          scalar: bool | None = None, **facts: Any) -> list[MetricSpec]:
    """Specs in declaration order, filtered by kind, default task and other facts.

    Examples
    --------
    >>> [s.name for s in specs(task="regression")][:3]
    ['mean_absolute_error', 'mean_squared_error', 'root_mean_squared_error']
    """
    kinds = {kind} if isinstance(kind, str) else (set(kind) if kind is not None else None)
    out = []
    for s in _SPECS:
        if kinds is not None and s.kind not in kinds:
            continue
        if task is not None and task not in s.tasks:
            continue
        if scalar is not None and s.scalar != scalar:
            continue
        if any(getattr(s, k) != v for k, v in facts.items()):
            continue
        out.append(s)
    return out
