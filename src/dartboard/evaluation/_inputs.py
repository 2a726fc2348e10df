"""What an evaluation is given, checked, and the record of what it decided alone.

An evaluation takes labels (``y_pred``), the scores of one class (``y_score``) or
class probabilities (``y_proba``). Labels may come together with scores or
probabilities: the labels then feed the count metrics (a tuned threshold, a
cost-based cut), the scores the ranking and probability metrics. ``threshold`` is
the other way to say where labels come from: ``y_score >= threshold``.

Three decisions change what the numbers mean. When the caller leaves one open,
the evaluation takes it only where the data leave no doubt and refuses otherwise,
saying what to pass; each decision it takes is kept as an :class:`Assumption`
(what, value, why) and shown with the result (repr, notebook view, JSON, report).

The task (``task="auto"``)
    ``y_score``: binary; ``y_proba``: binary with two columns, multiclass with
    more. Labels alone: regression when ``y_true`` holds non-integer numbers (or
    floats beyond 2**53, which are whole but no exact label), or when ``y_pred``
    does and ``y_true`` holds more than ``FEW_LABELS`` distinct numbers. When
    ``y_pred`` holds non-integer numbers and ``y_true`` at most ``FEW_LABELS``
    distinct integers, scores passed where labels belong
    (``evaluate(y, model.predict_proba(X)[:, 1])``) and a regression of a small
    count look alike: an error asks for ``y_score=`` or ``task="regression"``.
    Otherwise the distinct labels of both columns, after one common encoding
    (whatever their dtypes), decide: binary with at most two, multiclass with more.
The positive class (binary)
    ``pos_label``, or 1 when the labels are among {0, 1} or {-1, 1} (booleans
    included): scikit-learn's rule. Other labels (strings, {1, 2}) need
    ``pos_label`` when a number depends on it: precision, recall, F1, the rates,
    the ranking and probability metrics, scores of one class. Accuracy, balanced
    accuracy, MCC and kappa do not, and are given without it.
Labels from scores (binary ``y_score`` without ``y_pred`` or ``threshold``)
    Scores in [0, 1] are probabilities, cut at 0.5; scores on both sides of 0
    are decision values, cut at 0 (scikit-learn's ``predict``). Other scores (all
    >= 0 with some above 1, all <= 0) have no usual cut, so the metrics that need
    labels are refused until ``threshold`` or ``y_pred`` says where labels come
    from (the ranking metrics alone need none). A score equal to the threshold is
    positive. Probabilities (``y_proba``) give the most probable class, the first
    in label order on ties.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from dartboard._labels import canonical_positive, encode_labels, positive_index
from dartboard._validation import (
    as_float_array,
    check_consistent_length,
    check_option,
    check_real,
    column_1d,
    label_array,
    to_numpy,
)
from dartboard.evaluation._result import Assumption
from dartboard.exceptions import InputError
from dartboard.metrics._probabilistic import (
    check_proba_rows,
    check_range,
    proba_tolerance,
)

__all__ = ["FEW_LABELS", "LABELS_FROM_PROBABILITIES", "Labelled", "SCORES_AS_PROBABILITIES",
           "check_given", "check_positive", "check_score_labels", "classification_inputs",
           "could_be_labels", "infer_from_values", "positive_class", "usual_threshold"]

#: ``task="auto"`` with non-integer ``y_pred``: a ``y_true`` of at most this many
#: distinct integers could be class labels as well as a numeric target
FEW_LABELS = 10
# floats from here on are all whole numbers, and none is an exact class label
_EXACT = 2.0 ** 53


#: the decisions that read no data beyond the columns given (in memory and streamed)
SCORES_AS_PROBABILITIES = Assumption("scores", "probabilities", (
    "y_score lies in [0, 1]: log loss, Brier score and calibration read it as the "
    "positive class's probability"))
LABELS_FROM_PROBABILITIES = Assumption(
    "labels", "argmax of y_proba", "the most probable class (ties: the first in label order)")


@dataclasses.dataclass(frozen=True)
class Labelled:
    """Checked classification inputs: labels, and scores/probabilities when given.

    ``y_pred`` is None when labels could not be derived (scores with no usual cut)
    and ``no_labels`` says why; ``positive`` is None when the positive class is not
    known and ``no_positive`` says why. Either refusal is raised by the caller once
    a chosen metric needs what is missing.
    """

    task: str
    y_true: np.ndarray
    classes: np.ndarray   # of y_true
    labels: np.ndarray    # of y_true and y_pred
    y_pred: np.ndarray | None
    y_score: np.ndarray | None
    proba: np.ndarray | None
    positive: Any = None  # binary: the positive class
    assumptions: tuple[Assumption, ...] = ()
    no_labels: str | None = None
    no_positive: str | None = None

    @property
    def is_prob(self) -> bool:
        """Whether the scores are probabilities (all in [0, 1])."""
        return self.y_score is not None and self.y_score.min() >= 0 \
            and self.y_score.max() <= 1


def check_given(y_pred: Any, y_score: Any, y_proba: Any, threshold: Any) -> float | None:
    """Which columns were given, and ``threshold`` (a finite number or None)."""
    if y_pred is None and y_score is None and y_proba is None:
        raise InputError("give y_pred (labels, or values for regression), y_score (scores "
                         "of the positive class) or y_proba (one probability column per "
                         "class); labels may come with scores or probabilities")
    if y_score is not None and y_proba is not None:
        raise InputError("give y_score (scores of the positive class) or y_proba (one "
                         "probability column per class), not both")
    if threshold is None:
        return None
    if y_pred is not None:
        raise InputError("give y_pred (the labels) or threshold (labels are y_score >= "
                         "threshold), not both: each says where the labels come from")
    if y_score is None and y_proba is None:
        raise InputError("threshold cuts scores into labels; give y_score (or a binary "
                         "y_proba) with it")
    return check_real(threshold, "threshold")


# ------------------------------------------------------------------ the task

def _numbers(a: np.ndarray, name: str) -> np.ndarray | None:
    """The values of a column of numbers (finite, checked), or None for other labels."""
    if a.dtype.kind in "biu":
        return a
    if a.dtype.kind == "f":
        return as_float_array(a, name=name)
    if a.dtype.kind == "O" and a.size:
        import pandas as pd

        kind = pd.api.types.infer_dtype(a, skipna=False)
        if kind == "integer":
            return a  # Python ints: whole, and exact beyond float64's 2**53
        if kind in ("floating", "mixed-integer-float", "decimal"):
            return as_float_array(a, name=name)
    return None


def _non_integer(values: np.ndarray) -> float | None:
    """The first value of a column of numbers that is no class label: not a whole
    number, or a float beyond 2**53 (where every float is whole, and none exact)."""
    if values.dtype.kind != "f":
        return None
    fractional = np.flatnonzero(np.mod(values, 1) != 0)
    if fractional.size:
        return float(values[fractional[0]])
    beyond = np.flatnonzero(np.abs(values) >= _EXACT)
    return float(values[beyond[0]]) if beyond.size else None


def could_be_labels(values: np.ndarray) -> bool:
    """Whether floats could all be class labels (whole numbers below 2**53)."""
    return _non_integer(values) is None


def infer_from_values(y_true: Any, y_pred: Any) -> tuple[str, str]:
    """``(task, why)`` from ``y_true`` and ``y_pred`` alone (module notes)."""
    t = column_1d(y_true, name="y_true")
    p = column_1d(y_pred, name="y_pred")
    true_values, pred_values = _numbers(t, "y_true"), _numbers(p, "y_pred")
    if true_values is not None:
        fraction = _non_integer(true_values)
        if fraction is not None:
            return "regression", f"y_true holds non-integer values (e.g. {fraction:g})" \
                if fraction % 1 else f"y_true holds numbers too large to be labels ({fraction:g})"
        fraction = None if pred_values is None else _non_integer(pred_values)
        if fraction is not None:
            distinct = np.unique(true_values)
            if distinct.size <= FEW_LABELS:
                shown = ", ".join(f"{v:g}" for v in distinct.tolist()[:5])
                raise InputError(
                    f"task='auto' cannot tell what y_pred is: y_true holds "
                    f"{distinct.size} distinct integer(s) ({shown}), as class labels do, "
                    f"and y_pred non-integer values (e.g. {fraction:g}), as scores do. "
                    "Pass scores of the positive class as y_score= (probabilities of "
                    "every class as y_proba=), or task='regression' if y_pred predicts "
                    "a numeric target")
            return "regression", (f"y_pred holds non-integer values (e.g. {fraction:g}) "
                                  f"and y_true {distinct.size} distinct numbers")
    enc = encode_labels(("y_true", t), ("y_pred", p))
    k = enc.n_classes
    return ("binary" if k <= 2 else "multiclass",
            f"y_true and y_pred hold {k} distinct label{'s' if k != 1 else ''}")


# ------------------------------------------------------------------ the positive class

def _python(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def positive_class(labels: np.ndarray, pos_label: Any
                   ) -> tuple[Any, Assumption | None, str | None]:
    """``(positive, assumption, refusal)`` of a binary task with these sorted labels.

    ``pos_label`` when given (checked); 1 for labels among {0, 1} or {-1, 1}; else
    None with the message that asks for ``pos_label``.
    """
    if pos_label is not None:
        return check_positive(labels, pos_label), None, None
    values = [_python(v) for v in labels.tolist()]
    if canonical_positive(labels) is not None:
        return 1, Assumption("positive_class", 1, (
            f"labels {values}: scikit-learn's rule for {{0, 1}} and {{-1, 1}}")), None
    return None, None, (f"the labels are {values[:5]}{'...' if len(values) > 5 else ''}: "
                        "which one is the positive class is not known; pass pos_label= "
                        "(precision, recall, F1, the rates and the ranking metrics are "
                        "those of the positive class)")


def check_positive(labels: np.ndarray, pos_label: Any) -> Any:
    """The positive class of a binary task with these (sorted) labels.

    ``pos_label`` when it is one of them (else refused with the message of the
    metrics themselves, ``precision_score(..., pos_label=5)``); without it, 1 for
    labels among {0, 1} or {-1, 1}, and for other labels a ``ValueError`` asking
    for ``pos_label``. The in-memory evaluation and the streamed ones
    (:mod:`dartboard.scale`) both ask here.
    """
    if pos_label is None:
        positive, _, refusal = positive_class(labels, None)
        if refusal is not None:
            raise InputError(refusal)
        return positive
    if positive_index(labels, pos_label, infer="strict") < 0:
        raise InputError(f"pos_label={pos_label!r} is not a valid label. It should be one "
                         f"of {labels.tolist()[:10]!r}")
    return pos_label


def check_score_labels(classes: np.ndarray, *, one_class: bool = False) -> None:
    """Scores of one class (``y_score``) need a binary ``y_true`` (``one_class``: two
    classes exactly; a stream may hold one class only, and then AUC is undefined)."""
    if classes.size > 2 or (one_class and classes.size < 2):
        raise InputError(f"y_score needs binary y_true; y_true has {classes.size} "
                         f"classes: {classes.tolist()[:10]} (give y_proba, one column "
                         "per class, for a multiclass task)")


# ------------------------------------------------------------------ labels from scores

def _usual_threshold(y_score: np.ndarray) -> tuple[float | None, str]:
    """``(threshold, why)``, or ``(None, why there is none)`` (module notes)."""
    return usual_threshold(float(y_score.min()), float(y_score.max()))


def usual_threshold(low: float, high: float) -> tuple[float | None, str]:
    """``(threshold, why)`` of scores from ``low`` to ``high``, or ``(None, why there
    is none)`` (module notes); a streamed evaluation asks with the files' range."""
    if low >= 0 and high <= 1:
        return 0.5, "y_score lies in [0, 1]: probabilities; labels are y_score >= 0.5"
    if low < 0 < high:
        return 0.0, ("y_score has values on both sides of 0: decision values, cut where "
                     "scikit-learn's predict cuts them; labels are y_score >= 0")
    return None, (f"y_score lies in [{low:g}, {high:g}]: neither probabilities in [0, 1] nor "
                  "decision values around 0, so where to cut it into labels is not known; "
                  "give threshold= (labels are y_score >= threshold) or y_pred= (your "
                  "labels), or choose ranking metrics only (metrics=['roc_auc', ...])")


def _encoded(y_true: np.ndarray, y_pred: np.ndarray | None
             ) -> tuple[np.ndarray, np.ndarray]:
    """(classes of y_true, labels of both): one encoding of both columns. Numbers the
    encoding held as objects (int64 beside uint64) come back in a numeric dtype where
    one holds them, and the classes of y_true in y_true's dtype."""
    named = [("y_true", y_true)] + ([] if y_pred is None else [("y_pred", y_pred)])
    enc = encode_labels(*named)
    labels = enc.classes
    if labels.dtype.kind == "O" and all(a.dtype.kind in "biu" for _, a in named):
        labels = np.array(labels.tolist())  # int64, uint64, or objects spanning both
    present = np.bincount(enc.codes[0], minlength=labels.shape[0]) > 0
    classes = labels[present]
    if classes.dtype.kind == "O" and y_true.dtype.kind in "biuf":
        classes = classes.astype(y_true.dtype)  # its own values: they fit
    return classes, labels


def _scores(y_score: Any) -> np.ndarray:
    """``y_score`` as a 1-D float array; a matrix is most likely ``predict_proba``'s
    output, which belongs in ``y_proba``: the refusal says so."""
    try:
        return as_float_array(y_score, name="y_score")
    except InputError as exc:
        if np.ndim(y_score) != 2:
            raise
        raise InputError(f"{exc} (the scores of the positive class); for a matrix of class "
                         "probabilities, one column per class, pass y_proba= (or its "
                         "positive class's column, such as proba[:, 1], as y_score=)") from None


def classification_inputs(y_true: Any, y_pred: Any, y_score: Any, proba: Any, task: str,
                          pos_label: Any, threshold: float | None) -> Labelled:
    """Check the inputs of a binary or multiclass evaluation (``task`` may be "auto"
    when scores or probabilities are given) and derive what was left to derive."""
    notes: list[Assumption] = []
    y_true = label_array(y_true, name="y_true")
    if y_pred is not None:
        y_pred = label_array(y_pred, name="y_pred")
        check_consistent_length(("y_true", y_true), ("y_pred", y_pred))
    classes, labels = _encoded(y_true, y_pred)
    if proba is not None:
        proba = _probabilities(proba, y_true, classes)
    elif y_score is not None:
        y_score = _scores(y_score)
        check_consistent_length(("y_true", y_true), ("y_score", y_score))
    if task == "auto":
        task, why = ("binary", "y_score holds the scores of one class") if proba is None \
            else ("binary" if proba.shape[1] == 2 else "multiclass",
                  f"y_proba has {proba.shape[1]} columns, one per class")
        notes.append(Assumption("task", task, why))
    task = check_option(task, "task", ["binary", "multiclass"])
    _check_task(task, labels, classes, y_score, proba, pos_label, threshold)
    positive = no_positive = None
    if task == "binary":
        positive, note, no_positive = positive_class(labels, pos_label)
        notes += [note] if note is not None else []
        if no_positive is not None and (y_score is not None or proba is not None):
            raise InputError(no_positive)
    if y_score is not None and y_score.min() >= 0 and y_score.max() <= 1:
        notes.append(SCORES_AS_PROBABILITIES)
    if proba is not None and task == "binary":
        y_score = proba[:, positive_index(classes, positive, infer="strict")]
    no_labels = None
    if y_pred is None:
        y_pred, no_labels = _derived_labels(y_score, proba, classes, positive, threshold,
                                            notes)
    return Labelled(task, y_true, classes, labels, y_pred, y_score, proba, positive,
                    tuple(notes), no_labels, no_positive)


def _derived_labels(y_score: np.ndarray | None, proba: np.ndarray | None,
                    classes: np.ndarray, positive: Any, threshold: float | None,
                    notes: list[Assumption]) -> tuple[np.ndarray | None, str | None]:
    """``(labels, None)`` cut from the scores (``threshold``, or the usual cut of
    binary scores, or the most probable class of probabilities), or ``(None, why)``;
    what was decided is added to ``notes``."""
    if proba is not None and threshold is None:
        notes.append(LABELS_FROM_PROBABILITIES)
        return classes[np.argmax(proba, axis=1)], None
    assert y_score is not None  # labels come from probabilities or scores
    if threshold is None:
        threshold, why = _usual_threshold(y_score)
        if threshold is None:
            return None, why
        notes.append(Assumption("threshold", threshold, why))
    index = positive_index(classes, positive, infer="strict")
    return classes[np.where(y_score >= threshold, index, 1 - index)], None


def _probabilities(proba: Any, y_true: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """``y_proba`` checked: one column per class of ``y_true``, probabilities, rows
    summing to 1 within the tolerance of their own dtype.

    float16 and float32 matrices stay in their dtype, so that the metrics fed by them
    (log loss, Brier) check the rows with the same tolerance; others become float64.
    """
    raw = to_numpy(proba, name="y_proba")
    p = as_float_array(raw, name="y_proba", ndim=2)
    check_consistent_length(("y_true", y_true), ("y_proba", p))
    if p.shape[1] != classes.size:
        raise InputError(f"y_proba must have one column per class of y_true "
                         f"({classes.size}: {classes.tolist()}); got {p.shape[1]}")
    # the same checks as log_loss: a matrix that is not probabilities gives no AUC
    check_range(p, "y_proba")
    tolerance = proba_tolerance(raw)
    check_proba_rows(p, "y_proba", tolerance)
    return raw if raw.dtype.kind == "f" and raw.dtype.itemsize < 8 and raw.ndim == 2 else p


def _check_task(task: str, labels: np.ndarray, classes: np.ndarray, y_score: Any,
                proba: Any, pos_label: Any, threshold: float | None) -> None:
    """The task fits the columns given."""
    if task == "multiclass" and y_score is not None:
        raise InputError("y_score holds the scores of one class (a binary task); a "
                         "multiclass task needs y_proba (one column per class) or y_pred")
    if y_score is not None:
        check_score_labels(classes, one_class=True)
    if task == "binary" and labels.size > 2:
        raise InputError(f"task='binary' needs two classes; got {labels.size}: "
                         f"{labels.tolist()[:10]}")
    if task != "binary" and pos_label is not None:
        raise InputError(f"pos_label applies to a binary task; this one is {task}")
    if task != "binary" and threshold is not None:
        raise InputError(f"threshold cuts the scores of one class into labels (a binary "
                         f"task); this one is {task}: its labels are y_pred or the most "
                         "probable class of y_proba")
