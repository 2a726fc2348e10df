"""The option strings of dartboard's public signatures, as ``Literal`` types.

Each option's names are written once, here; the tuple a function checks its argument
against is derived from it (``typing.get_args``), so the check and the annotation
cannot drift apart. Array inputs are :data:`numpy.typing.ArrayLike`. This module
imports only ``typing`` (the registry and the command line's help read it without
loading numpy).
"""

from __future__ import annotations

from typing import Literal, TypeAlias

__all__ = ["Alternative", "Average", "BandKind", "GapMethod", "RegistryTask", "Task",
           "ThresholdCriterion"]

#: the alternative hypothesis of a test
Alternative: TypeAlias = Literal["two-sided", "greater", "less"]
#: ``average`` of the count metrics (None: one value per class)
Average: TypeAlias = Literal["binary", "micro", "macro", "weighted", "samples"]
#: the tasks a metric is reported for
RegistryTask: TypeAlias = Literal["binary", "multiclass", "regression"]
#: ``task`` of an evaluation: a registry task, or found from the data
Task: TypeAlias = Literal["auto", RegistryTask]
#: how a gap between groups is measured (fairlearn's vocabulary)
GapMethod: TypeAlias = Literal["between_groups", "to_overall"]
#: how an operating point is chosen
ThresholdCriterion: TypeAlias = Literal["youden", "closest_topleft", "cost", "min_precision",
                                        "min_recall", "max_fpr"]
#: a confidence band that holds at each point, or at every point at once
BandKind: TypeAlias = Literal["pointwise", "simultaneous"]
