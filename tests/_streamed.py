"""Reading a streamed Evaluation by registry metric name (the tests ask for metrics by
their function names; the evaluation labels its rows as tables do: ``f1``, ``f1_macro``)."""

from __future__ import annotations

import math

from dartboard.metrics._registry import resolve_metric


def _name(label, task):
    return resolve_metric(label).spec.name


def values(ev):
    """{registry name: estimate} of the overall rows, in row order."""
    return {_name(label, ev.task): float(v) for label, v in ev.overall["estimate"].items()}


def intervals(ev):
    """{registry name: overall row (estimate, low, high, method, n)} of the rows with an
    interval."""
    return {_name(label, ev.task): row for label, row in ev.overall.iterrows()
            if not math.isnan(row["low"])}


def bounds(ev):
    """{registry name: error bound} of the approximate rows."""
    return {_name(label, ev.task): b for label, b in ev.error_bounds.items()}
