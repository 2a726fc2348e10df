"""What the command line knows about a metric: it asks the registry.

A metric is named on the command line by its table label or its function name
(``f1`` or ``f1_score``, ``roc_auc`` or ``roc_auc_score``); which input it takes,
which way is better and whether it takes ``pos_label`` are the facts of its
:class:`~dartboard.metrics._registry.MetricSpec`, and the positive class is
:mod:`dartboard._labels`' ``"greater"`` rule, as ``evaluate`` reports it.
"""

from __future__ import annotations

from typing import Any


def command_line_specs() -> list[Any]:
    """Metrics a command accepts: the scalar metrics an evaluation reports.

    A metric without a default task needs more than its two arrays to mean one
    thing (``fbeta_score`` needs ``beta``), so it is not offered by name.
    """
    from dartboard.metrics._registry import specs

    return [spec for spec in specs(scalar=True) if spec.tasks]


def command_line_metric(name: str) -> Any:
    """The metric called ``name`` on the command line (a
    :class:`~dartboard.metrics._registry.ResolvedMetric`: any spelling the library
    takes, such as ``f1``, ``f1_score`` or ``f1_macro``), among the metrics a command
    accepts."""
    from dartboard.metrics._registry import resolve_metric

    known = command_line_specs()
    try:
        resolved = resolve_metric(name)
    except ValueError:
        resolved = None
    if resolved is None or resolved.spec not in known:
        choices = sorted(spec.table_label() for spec in known)
        raise ValueError(f"unknown metric {name!r}; choose one of: {', '.join(choices)}")
    return resolved


def takes_numbers(spec: Any) -> bool:
    """Whether the metric's second argument is numeric (scores, probabilities, values)."""
    return not spec.takes_labels


def takes_values(spec: Any) -> bool:
    """Whether y_true is numeric too (regression values, not labels)."""
    return not spec.classification


def takes_scores(spec: Any) -> bool:
    """Whether the metric ranks scores or probabilities (its labels are y_true's)."""
    return spec.takes_scores


def lower_is_better(spec: Any) -> bool:
    return not spec.greater_is_better


def positive_label_kwargs(spec: Any, y_true: Any, *predictions: Any,
                          kwargs: dict[str, Any] | None = None,
                          pos_label: str | None = None) -> dict[str, Any]:
    """``pos_label`` for a binary metric that takes one, by ``evaluate``'s rule: the
    label of ``--y-true`` written ``pos_label``, else 1 for labels among {0, 1} and
    {-1, 1}; other labels are refused without ``--pos-label``.

    The labels are y_true's for a score metric, else those of y_true and the
    predicted labels together; with other than two labels, or an ``average`` among
    the metric's ``kwargs`` other than binary, nothing is passed.
    """
    kwargs = kwargs or {}
    import numpy as np

    from dartboard._labels import canonical_positive

    if not spec.pos_label or kwargs.get("average", "binary") != "binary":
        return {}
    if pos_label is not None:
        return {"pos_label": label_named(y_true, pos_label)}
    seen = y_true if takes_scores(spec) else np.concatenate([y_true, *predictions])
    classes = np.unique(seen)
    if classes.size != 2:
        return {}
    positive = canonical_positive(classes)
    if positive is None:
        raise ValueError(f"the labels are {classes.tolist()}: which one is the positive "
                         f"class of {spec.name} is not known; pass --pos-label")
    return {"pos_label": positive}


def label_named(truth: Any, text: str) -> Any:
    """The label of the ``--y-true`` column written ``text`` (``--pos-label 1`` is the
    label 1 of an integer column, ``"1"`` of a text one)."""
    import pandas as pd

    found = [v for v in pd.unique(truth) if str(v) == text]
    if not found:
        shown = ", ".join(str(v) for v in sorted(pd.unique(truth).tolist(), key=str)[:10])
        raise ValueError(f"--pos-label {text!r} is not a label of the --y-true column "
                         f"(its labels: {shown})")
    value = found[0]
    return value.item() if hasattr(value, "item") else value
