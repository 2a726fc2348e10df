"""Which class is positive: the one rule, in one place.

Every path that needs a positive class (ranking metrics and their states, Brier,
intervals, comparisons, streaming and Dask, the evaluation engine and the command
line) asks :func:`positive_index` or :func:`positive_label`. What happens when
``pos_label`` is not given is one of three named rules:

``"strict"``
    scikit-learn's ``_check_pos_label_consistency``: labels in {0, 1}, {-1, 1}
    (or one of them alone) have positive class 1; any other labels (strings,
    {1, 2}, ...) need ``pos_label``. The drop-in ranking metrics use it.
``"numbers"``
    as ``"strict"``, but numeric labels outside those sets take the greater
    label: scikit-learn's backward-compatible rule for probabilities
    (``brier_score_loss``).
``"greater"``
    the greater of the (at most two) labels, whatever they are: 1 for {0, 1}
    and {-1, 1}, ``"yes"`` for {"no", "yes"}; data holding one class of {0, 1}
    or {-1, 1} still have positive class 1 (all-negative data are not all
    positive). dartboard's evaluation (the engine, streaming, the command line)
    uses it so that any binary data works.

A ``pos_label`` that is given is matched by value, a string only with a string
(``1`` never matches ``"1"``); when it is not among the classes the index is -1
(the positive class is absent from the data: all its counts are zero).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["INFER_RULES", "is_string_labels", "positive_index", "positive_label",
           "same_label"]

INFER_RULES = ("strict", "numbers", "greater")
_CANONICAL = ([0, 1], [-1, 1], [0], [-1], [1])


def is_string_labels(classes: np.ndarray) -> bool:
    """Whether sorted distinct labels are strings (or other objects)."""
    return classes.dtype.kind in "OUS"


def same_label(a: Any, b: Any) -> bool:
    """``a == b`` for labels, where a string never equals a number."""
    return isinstance(a, str) == isinstance(b, str) and bool(a == b)


def _inferred(classes: np.ndarray, infer: str) -> Any:
    values = classes.tolist()
    canonical = not is_string_labels(classes) and any(values == c for c in _CANONICAL)
    if canonical or not values:
        return 1
    if infer == "greater":
        return values[-1]
    if infer == "numbers" and not is_string_labels(classes):
        return values[-1]
    listing = ", ".join(repr(c) for c in values)
    raise ValueError(f"y_true takes value in {{{listing}}} and pos_label is not "
                     "specified: either make y_true take value in {0, 1} or "
                     "{-1, 1} or pass pos_label explicitly.")


def positive_label(classes: Any, pos_label: Any = None, *, infer: str = "strict") -> Any:
    """The positive class: ``pos_label`` when given, else the rule ``infer`` (module doc).

    Examples
    --------
    >>> positive_label(np.array([0, 1])), positive_label(np.array(["no", "yes"]), infer="greater")
    (1, 'yes')
    """
    if infer not in INFER_RULES:
        raise ValueError(f"infer must be one of {INFER_RULES}; got {infer!r}")
    if pos_label is not None:
        return pos_label
    return _inferred(np.asarray(classes), infer)


def positive_index(classes: Any, pos_label: Any = None, *, infer: str = "strict") -> int:
    """Index of the positive class in sorted ``classes``; -1 when it is absent.

    Examples
    --------
    >>> positive_index(np.array([-1, 1])), positive_index(np.array([0, 1]), pos_label=5)
    (1, -1)
    """
    classes = np.asarray(classes)
    label = positive_label(classes, pos_label, infer=infer)
    for i, c in enumerate(classes.tolist()):
        if same_label(c, label):
            return i
    return -1
