"""``classification_report``: scikit-learn's per-class text (or dict) report.

Every row comes from one :class:`~dartboard.metrics.ConfusionCounts` and the
count formulas of :mod:`dartboard.metrics._confusion`: precision, recall and F1
per class, then the micro (``accuracy`` when every class is reported), macro,
weighted and, for multilabel-indicator input, samples averages. The richer
table with specificity (:func:`_classification_table`) is what
``dartboard.evaluate`` builds on.
"""

from __future__ import annotations

import numbers
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._validation import (
    InvalidParameterError,
    check_bool,
    check_labels_argument,
    describe,
)
from dartboard.exceptions import InputError
from dartboard.metrics import _count_formulas as cf
from dartboard.metrics._confusion import (
    _counts,
    _prfs,
    _proportion_from,
    _set_counts,
)
from dartboard.metrics._docs import documented
from dartboard.metrics._registry import get_spec

__all__ = ["classification_report"]


def _classification_table(y_true: Any, y_pred: Any, *, labels: Any = None,
                          target_names: Any = None, sample_weight: Any = None,
                          digits: int | None = None, zero_division: Any = "warn"):
    """Per-class precision, recall, specificity, F1 and support as a DataFrame.

    dartboard's richer table (``dartboard.evaluate`` reports it with intervals);
    :func:`classification_report` is scikit-learn's text or dict.

    Rows: one per class (named by ``target_names`` when given), then ``micro avg``,
    ``macro avg`` and ``weighted avg``. The ``support`` column holds the number
    (or weight) of true samples. ``digits`` rounds the values when given.

    Examples
    --------
    >>> report = _classification_table([0, 1, 1, 2], [0, 1, 2, 2], zero_division=0.0)
    >>> report.round(3)  # doctest: +NORMALIZE_WHITESPACE
                  precision  recall  specificity  f1-score  support
    class
    0                 1.000   1.000        1.000     1.000        1
    1                 1.000   0.500        1.000     0.667        2
    2                 0.500   1.000        0.667     0.667        1
    micro avg         0.750   0.750        0.875     0.750        4
    macro avg         0.833   0.833        0.889     0.778        4
    weighted avg      0.875   0.750        0.917     0.750        4
    """
    import pandas as pd

    _check_digits(digits, optional=True)
    state = _counts(y_true, y_pred, sample_weight)
    if labels is None:
        labels = state.classes
    else:
        labels = check_labels_argument(labels)
        missing = ~np.isin(labels, state.classes)
        if missing.any():
            state = state.with_classes(labels[missing])
    if target_names is not None:
        target_names = [str(t) for t in target_names]
        if len(target_names) != len(labels):
            raise InputError(f"target_names must name each of the {len(labels)} labels; got "
                             f"{len(target_names)} names")
    names = target_names if target_names is not None else [str(c) for c in labels]
    kw = dict(labels=labels, zero_division=zero_division)
    p, r, f, support = _prfs(state, average=None, **kw)
    specificity = partial(_proportion_from, spec=get_spec("specificity_score"))
    spec = specificity(state, average=None, **kw)
    rows = {"precision": p, "recall": r, "specificity": spec, "f1-score": f}
    frame = pd.DataFrame(rows, index=pd.Index(names, name="class"))
    frame["support"] = support
    for avg in ("micro", "macro", "weighted"):
        pa, ra, fa, _ = _prfs(state, average=avg, **kw)
        sa = specificity(state, average=avg, **kw)
        frame.loc[f"{avg} avg"] = [pa, ra, sa, fa, support.sum()]
    frame["support"] = frame["support"].astype(support.dtype)
    if digits is not None:
        frame[["precision", "recall", "specificity", "f1-score"]] = \
            frame[["precision", "recall", "specificity", "f1-score"]].round(digits)
    return frame


def _check_digits(digits: Any, *, optional: bool) -> None:
    if (digits is None and optional) or (
            digits is not None and not isinstance(digits, (bool, np.bool_))
            and isinstance(digits, numbers.Integral) and int(digits) >= 0):
        return
    raise InvalidParameterError(f"digits must be {'None or ' if optional else ''}an integer "
                                f">= 0; got {describe(digits)}")


@documented(
    returns="str or dict\n    The text table, or with ``output_dict=True`` a dict of the "
            "same numbers.",
    target_names=("list of str",
                  "Names shown for the classes, in the order of ``labels``."),
    digits=("int",
            "Digits of the numbers in the text table."),
    output_dict=("bool",
                 "Return a dict instead of text."),
    zero_division=("{'warn', 0.0, 1.0, np.nan}",
                   "Value of a 0/0 ratio; 'warn' gives 0.0 and an UndefinedMetricWarning."),
)
def classification_report(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                          target_names: Any = None, sample_weight: ArrayLike | None = None,
                          digits: int = 2, output_dict: bool = False,
                          zero_division: Any = "warn") -> str | dict[str, Any]:
    """Text report of per-class precision, recall, F1 and support, and their averages.

    Drop-in for ``sklearn.metrics.classification_report``: the same text, or with
    ``output_dict=True`` the same dict (``{"<class>": {"precision": ...}, "accuracy":
    ..., "macro avg": {...}, ...}``). The micro average is labelled ``accuracy`` when
    every class is reported; multilabel-indicator input adds ``samples avg``. All rows
    come from one counting pass. ``dartboard.evaluate`` gives the richer table, with
    specificity and intervals.

    Examples
    --------
    >>> print(classification_report([0, 1, 1, 2], [0, 1, 2, 2]))
                  precision    recall  f1-score   support
    <BLANKLINE>
               0       1.00      1.00      1.00         1
               1       1.00      0.50      0.67         2
               2       0.50      1.00      0.67         1
    <BLANKLINE>
        accuracy                           0.75         4
       macro avg       0.83      0.83      0.78         4
    weighted avg       0.88      0.75      0.75         4
    <BLANKLINE>
    """
    _check_digits(digits, optional=False)
    output_dict = check_bool(output_dict, "output_dict")
    state = _counts(y_true, y_pred, sample_weight)
    labels_given = labels is not None
    checked = check_labels_argument(labels) if labels_given else None
    chosen = state.classes if checked is None else checked
    names = _row_names(chosen, target_names, labels_given)
    kw = dict(zero_division=zero_division)
    p, r, f, s = _prfs(state, labels=chosen if labels_given else None, average=None, **kw)
    # weighted supports are weight sums, printed as floats (as scikit-learn's)
    rows = list(zip(names, p, r, f, s if sample_weight is None else s.astype(np.float64)))
    support = np.sum([row[4] for row in rows])
    micro_is_accuracy = not state.multilabel and (
        not labels_given or set(chosen.tolist()) >= set(state.classes.tolist()))
    averages = ("micro", "macro", "weighted") + (("samples",) if state.multilabel else ())
    summary = []
    for average in averages:
        heading = "accuracy" if average == "micro" and micro_is_accuracy else f"{average} avg"
        samples_state, left = (_set_counts(y_true, y_pred, sample_weight, chosen, "samples")
                               if average == "samples" and labels_given
                               else (state, chosen if labels_given else None))
        p, r, f, _ = _prfs(samples_state, labels=left, average=average, **kw)
        summary.append((heading, p, r, f, support))
    if output_dict:
        return _report_dict(rows, summary)
    return _report_text(rows, summary, names, digits)


def _row_names(chosen: np.ndarray, target_names: Any, labels_given: bool) -> list[str]:
    """The report's class rows: ``target_names`` (as many as the classes: refused when
    the classes were found, a warning when ``labels`` chose them, as scikit-learn
    does), else the classes."""
    if target_names is not None and len(chosen) != len(target_names):
        if not labels_given:
            raise InputError(f"Number of classes, {len(chosen)}, does not match size of "
                             f"target_names, {len(target_names)}. Try specifying the labels "
                             "parameter")
        cf.warn_outside(f"labels size, {len(chosen)}, does not match size of target_names, "
                        f"{len(target_names)}", UserWarning)
    return [str(t) for t in target_names] if target_names is not None else \
        [str(c) for c in chosen]


_HEADERS = ("precision", "recall", "f1-score", "support")


def _report_dict(rows: list[tuple], summary: list[tuple]) -> dict[str, Any]:
    out: dict[str, Any] = {row[0]: dict(zip(_HEADERS, (float(v) for v in row[1:])))
                           for row in rows}
    for heading, *values in summary:
        out[heading] = float(values[0]) if heading == "accuracy" else \
            dict(zip(_HEADERS, (float(v) for v in values)))
    return out


def _report_text(rows: list[tuple], summary: list[tuple], names: list[str],
                 digits: int) -> str:
    # scikit-learn's layout, character for character
    width = max(max(len(n) for n in names), len("weighted avg"), digits)
    text = ("{:>{width}s} " + " {:>9}" * 4).format("", *_HEADERS, width=width) + "\n\n"
    row_fmt = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + " {:>9}\n"
    for row in rows:
        text += row_fmt.format(*row, width=width, digits=digits)
    text += "\n"
    for heading, p, r, f, support in summary:
        if heading == "accuracy":
            text += ("{:>{width}s} " + " {:>9.{digits}}" * 2 + " {:>9.{digits}f}"
                     + " {:>9}\n").format(heading, "", "", f, support, width=width,
                                          digits=digits)
        else:
            text += row_fmt.format(heading, p, r, f, support, width=width, digits=digits)
    return text
