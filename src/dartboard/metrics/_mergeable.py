"""The contract every mergeable metric state follows.

A state summarises data that arrives in pieces (Parquet batches, Dask partitions,
workers of a parallel job) so that the pieces' states merge into the state of all
the data. Every state of dartboard (:class:`~dartboard.metrics.ConfusionCounts`,
:class:`~dartboard.metrics.ScoreState`, :class:`~dartboard.metrics.RegressionMoments`,
the bounded-memory :class:`~dartboard.scale.BinnedScoreState` and
:class:`~dartboard.scale.QuantileSketch`, and the streaming bundle of states) keeps
the same four promises:

``update(*batch, sample_weight=None)``
    adds one batch in place and returns ``self``. The batch's arguments are those
    of the matching metric functions (``y_true, y_pred`` or ``y_true, y_score``;
    the sketch takes the errors ``y_true - y_pred``); the streaming bundle takes
    the options and columns of a batch, the mean of losses its summed losses and
    weight.
``merge(other)``
    returns a NEW state holding both; neither operand changes. Merging is
    associative and commutative, and the empty state (the class built without
    data) is its identity, so any split of the data, merged in any order and any
    tree, gives the state of one pass over all of it. ``other`` of another class
    raises ``TypeError``; a state of the same class built with other settings
    (bins, ``pos_label``, accuracy) raises ``ValueError``.
``compute(metric, **kwargs)``
    the value of ``metric`` (its name or the function) with the metric
    function's keywords, minus the data arguments.
``error_bound(metric)``
    the largest possible ``|compute(metric) - metric(all rows)|``. ``0.0`` for
    the exact states (up to floating-point rounding of sums); for the binned and
    sketch states a bound computed from the state itself (their docstrings give
    the derivations).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from dartboard.exceptions import InputError, InputTypeError

__all__ = ["MergeableState", "check_same_kind", "resolve_metric"]


@runtime_checkable
class MergeableState(Protocol):
    """What a mergeable state provides (see the module docstring for the promises)."""

    def update(self, *batch: Any, **kwargs: Any) -> MergeableState: ...

    def merge(self, other: Any) -> MergeableState: ...

    def compute(self, metric: Any, **kwargs: Any) -> Any: ...

    def error_bound(self, metric: Any) -> float: ...


def check_same_kind(state: Any, other: Any) -> None:
    """``TypeError`` unless ``other`` can be merged into ``state`` (the same class)."""
    if not isinstance(other, type(state)):
        raise InputTypeError(f"can only merge with a {type(state).__name__}; got "
                             f"{type(other).__name__}")


def resolve_metric(table: Mapping[str, Callable[..., Any]], metric: Any) -> Callable[..., Any]:
    """The implementation of ``metric`` in a state's ``table``: a function, its name, or
    any name the metric registry gives it (the table label ``"roc_auc"``, a scorer name
    with keywords such as ``"f1_macro"``), whose keywords are then bound."""
    import functools

    from dartboard.metrics._registry import resolve_metric as resolve_name

    name = metric if isinstance(metric, str) else getattr(metric, "__name__", "")
    if name in table:
        return table[name]
    try:
        found = resolve_name(metric)
    except (InputError, InputTypeError):
        found = None
    if found is not None and found.spec is not None and found.spec.name in table:
        implementation = table[found.spec.name]
        return functools.partial(implementation, **found.kwargs) if found.kwargs \
            else implementation
    raise InputError(f"metric must be one of {sorted(table)} (or a name the registry gives "
                     f"one of them, such as its label); got {metric!r}")
