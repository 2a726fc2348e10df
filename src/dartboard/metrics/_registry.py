"""The metric registry: every public metric's facts, declared once.

Each public function of :mod:`dartboard.metrics` has one :class:`MetricSpec` here
saying what family it belongs to, which input it takes, which way is better,
whether it is a proportion (and of which counts), which keywords it takes, and how
intervals, comparisons and streaming handle it fast. Every engine that needs such a
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
>>> spec.family, spec.input, spec.proportion, spec.default_interval
('count', 'labels', ('tp', ('tp', 'fn')), 'wilson')
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

__all__ = ["FAMILIES", "INPUTS", "TASKS", "MetricSpec", "get_spec", "spec_for", "specs"]

#: what a metric is computed from: its family
FAMILIES = ("count", "ranking", "probabilistic", "regression", "similarity", "curve",
            "report")
#: what the second argument of a metric holds
INPUTS = ("labels", "scores", "probabilities", "values")
#: the tasks an evaluation reports on
TASKS = ("binary", "multiclass", "regression")


@dataclasses.dataclass(frozen=True)
class MetricSpec:
    """The declared facts of one public metric.

    Attributes
    ----------
    name : str
        The function's name in :mod:`dartboard.metrics`.
    module : str
        The module that defines it (used to import the function, never to dispatch).
    family : str
        One of :data:`FAMILIES`: ``count`` (a function of the confusion matrix),
        ``ranking`` (of sorted scores), ``probabilistic`` (a mean per-sample loss
        of probabilities), ``regression``, ``similarity``, ``curve`` (returns
        arrays) or ``report`` (returns a table).
    input : str
        One of :data:`INPUTS`.
    greater_is_better : bool
    scalar : bool
        Whether it returns one number (with its default keywords, or with an
        ``average`` other than None).
    proportion : tuple or None
        ``(numerator, denominator terms)`` over one-vs-all counts (``tp``, ``fp``,
        ``fn``, ``tn``; accuracy: ``("correct", ("total",))``) for a proportion,
        whose analytic binomial intervals then apply; None otherwise.
    pos_label, average : bool
        Whether it takes these keywords.
    interval_fast : str or None
        The fast bootstrap path: ``counts`` (multinomial draws of the confusion
        matrix), ``roc`` or ``ap`` (re-weighted tie groups of one sort), None
        (resample the rows).
    compare_fast : str or None
        The fast paired path of :func:`dartboard.compare_models`: ``counts``,
        ``auc`` or ``mean_loss``; None resamples the rows.
    loss_terms : tuple or None
        For a mean of per-sample losses: ``(function name in module, keywords the
        per-sample decomposition handles)``; the function returns the per-sample
        losses and weights.
    default_interval : str or None
        ``method="auto"``'s choice: ``wilson``, ``delong`` or ``bca``; None when no
        interval is valid (a sample maximum).
    state : str or None
        The mergeable state streaming evaluation computes it from: ``counts``,
        ``scores``, ``losses``, ``moments`` or ``errors``; None when it does not
        stream (it returns no single number, or needs a keyword such as ``beta``).
    binned : bool
        Whether a binned score state bounds its error (streaming with
        ``exact=False``).
    tasks : tuple of str
        Tasks whose evaluation reports it by default.
    multiclass : dict
        Keywords it gets in a multiclass evaluation (``average="macro"``).
    label : str
        Its name in tables and JSON when that is not the name without ``_score``.
    """

    name: str
    module: str
    family: str
    input: str
    greater_is_better: bool = True
    scalar: bool = True
    proportion: tuple[str, tuple[str, ...]] | None = None
    pos_label: bool = False
    average: bool = False
    interval_fast: str | None = None
    compare_fast: str | None = None
    loss_terms: tuple[str, tuple[str, ...]] | None = None
    default_interval: str | None = "bca"
    state: str | None = None
    binned: bool = False
    tasks: tuple[str, ...] = ()
    multiclass: dict[str, Any] = dataclasses.field(default_factory=dict)
    label: str = ""

    @property
    def function(self) -> Callable[..., Any]:
        """The metric function itself."""
        return getattr(importlib.import_module(self.module), self.name)

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

_BOTH = ("binary", "multiclass")
_MACRO = {"average": "macro"}


def _count(name: str, *, proportion: Any = None, averaged: bool = True,
           tasks: tuple[str, ...] = (), greater: bool = True, state: str | None = "counts",
           **kw: Any) -> MetricSpec:
    return MetricSpec(
        name, _CONF, "count", "labels", greater_is_better=greater, proportion=proportion,
        pos_label=averaged, average=averaged, interval_fast="counts", compare_fast="counts",
        default_interval="wilson" if proportion else "bca", state=state, tasks=tasks,
        multiclass=_MACRO if averaged and "multiclass" in tasks else {}, **kw)


def _regression(name: str, *, state: str | None = "moments", greater: bool = False,
                **kw: Any) -> MetricSpec:
    return MetricSpec(name, _REG, "regression", "values", greater_is_better=greater,
                      state=state, tasks=("regression",), **kw)


_SPECS: tuple[MetricSpec, ...] = (
    # ---------------------------------------------------------------- count family
    _count("accuracy_score", proportion=("correct", ("total",)), averaged=False,
           tasks=_BOTH),
    _count("balanced_accuracy_score", averaged=False, tasks=_BOTH),
    _count("precision_score", proportion=("tp", ("tp", "fp")), tasks=_BOTH),
    _count("recall_score", proportion=("tp", ("tp", "fn")), tasks=_BOTH),
    _count("specificity_score", proportion=("tn", ("tn", "fp")), tasks=("binary",)),
    _count("f1_score", tasks=_BOTH),
    _count("fbeta_score", state=None),  # needs beta
    _count("matthews_corrcoef", averaged=False, tasks=_BOTH),
    _count("cohen_kappa_score", averaged=False, tasks=("multiclass",)),
    _count("false_positive_rate", proportion=("fp", ("fp", "tn")), tasks=("binary",),
           greater=False),
    _count("false_negative_rate", proportion=("fn", ("fn", "tp")), tasks=("binary",),
           greater=False),
    _count("selection_rate", proportion=("sel", ("total",)), tasks=("binary",)),
    _count("jaccard_score", proportion=("tp", ("tp", "fp", "fn"))),
    MetricSpec("confusion_matrix", _CONF, "count", "labels", scalar=False,
               default_interval=None),
    MetricSpec("multilabel_confusion_matrix", _CONF, "count", "labels", scalar=False,
               default_interval=None),
    MetricSpec("precision_recall_fscore_support", _CONF, "count", "labels", scalar=False,
               pos_label=True, average=True, default_interval=None),
    MetricSpec("classification_report", _CONF, "report", "labels", scalar=False,
               default_interval=None),
    # ---------------------------------------------------------------- ranking family
    MetricSpec("roc_auc_score", _RANK, "ranking", "scores", average=True, interval_fast="roc",
               compare_fast="auc", default_interval="delong", state="scores", binned=True,
               tasks=_BOTH, multiclass={"multi_class": "ovr"}),
    MetricSpec("average_precision_score", _RANK, "ranking", "scores", pos_label=True,
               average=True, interval_fast="ap", state="scores", binned=True,
               tasks=("binary",)),
    MetricSpec("pr_auc_score", _RANK, "ranking", "scores", pos_label=True, average=True,
               state="scores",
               tasks=("binary",)),
    MetricSpec("roc_curve", _RANK, "curve", "scores", scalar=False, pos_label=True,
               default_interval=None),
    MetricSpec("precision_recall_curve", _RANK, "curve", "scores", scalar=False,
               pos_label=True, default_interval=None),
    # ---------------------------------------------------------------- probabilities
    MetricSpec("log_loss", _PROB, "probabilistic", "probabilities", greater_is_better=False,
               compare_fast="mean_loss", loss_terms=("log_loss_terms", ("labels", "base")),
               state="losses", tasks=_BOTH),
    MetricSpec("brier_score_loss", _PROB, "probabilistic", "probabilities",
               greater_is_better=False, pos_label=True, compare_fast="mean_loss",
               loss_terms=("brier_terms", ("pos_label", "labels", "scale_by_half")),
               state="losses", tasks=("binary",)),
    # ---------------------------------------------------------------- regression
    _regression("mean_absolute_error"),
    _regression("mean_squared_error"),
    _regression("root_mean_squared_error"),
    _regression("r2_score", greater=True),
    _regression("explained_variance_score", greater=True),
    _regression("mean_absolute_percentage_error"),
    _regression("weighted_mean_absolute_percentage_error"),
    _regression("median_absolute_error", state="errors"),
    _regression("median_absolute_deviation", state="errors"),
    # a sample maximum has no valid bootstrap interval
    _regression("max_error", default_interval=None),
    MetricSpec("error_distribution", _REG, "regression", "values", scalar=False,
               default_interval=None),
    # ---------------------------------------------------------------- similarity
    MetricSpec("cosine_similarity", _SIM, "similarity", "values", default_interval="bca"),
)

_BY_NAME: dict[str, MetricSpec] = {s.name: s for s in _SPECS}


@cache
def _by_function() -> dict[int, MetricSpec]:
    return {id(s.function): s for s in _SPECS}


def get_spec(name: str) -> MetricSpec:
    """The spec of the public metric called ``name`` (a ``ValueError`` when none)."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown metric {name!r}; dartboard's metrics are "
                         f"{', '.join(sorted(_BY_NAME))}") from None


def spec_for(metric: Any) -> MetricSpec | None:
    """The spec of a dartboard metric function, or None for any other callable."""
    spec = _by_function().get(id(metric))
    return spec if spec is not None and spec.function is metric else None


def specs(*, family: str | Iterable[str] | None = None, task: str | None = None,
          scalar: bool | None = None, **facts: Any) -> list[MetricSpec]:
    """Specs in declaration order, filtered by family, default task and other facts.

    Examples
    --------
    >>> [s.name for s in specs(task="regression")][:3]
    ['mean_absolute_error', 'mean_squared_error', 'root_mean_squared_error']
    """
    families = {family} if isinstance(family, str) else \
        (set(family) if family is not None else None)
    out = []
    for s in _SPECS:
        if families is not None and s.family not in families:
            continue
        if task is not None and task not in s.tasks:
            continue
        if scalar is not None and s.scalar != scalar:
            continue
        if any(getattr(s, k) != v for k, v in facts.items()):
            continue
        out.append(s)
    return out
