"""The count family: every metric that is a function of the confusion matrix.

All of them are computed from one :class:`ConfusionCounts` state, built with a
single counting pass over the (true, predicted) label pairs (see
:func:`dartboard._labels.count_label_pairs`). The state is mergeable, so
bootstrap intervals, permutation tests, streaming and Dask evaluation reuse it.
The formulas themselves are written once, over stacks of confusion matrices, in
:mod:`dartboard.metrics._count_formulas`; a state is the stack of one matrix, and
the proportions (precision, recall, ..., Jaccard) are the registry's
``MetricSpec.proportion``.

Conventions (as scikit-learn): rows of the confusion matrix are true classes,
columns predicted classes. One-vs-all counts for class ``i`` are
``TP_i = C[i, i]``, ``FP_i = sum_j C[j, i] - TP_i``, ``FN_i = sum_j C[i, j] - TP_i``
and ``TN_i = N - TP_i - FP_i - FN_i``. ``average`` is ``"binary"`` (the
``pos_label`` class only), ``"micro"`` (the ratio of the summed counts),
``"macro"`` (unweighted mean over classes), ``"weighted"`` (mean weighted by the
number of true samples of each class) or ``None`` (one value per class).
A ratio whose denominator is zero takes ``zero_division`` (``"warn"`` gives 0.0
and an :class:`UndefinedMetricWarning`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dartboard._labels import (
    count_indicator_pairs,
    count_label_pairs,
    indicator_pair,
    indicator_sample_counts,
    integer_counts_fit,
)
from dartboard._typing import Average
from dartboard._validation import (
    check_bool,
    check_consistent_length,
    check_labels_argument,
    check_option,
    check_sample_weight,
    check_zero_division,
    label_array,
)
from dartboard.exceptions import InputError
from dartboard.metrics import _count_formulas as cf
from dartboard.metrics._count_formulas import UndefinedMetricWarning
from dartboard.metrics._count_formulas import (
    check_same_label_type as _check_same_label_type,
)
from dartboard.metrics._docs import documented
from dartboard.metrics._mergeable import check_same_kind
from dartboard.metrics._registry import MetricSpec, get_spec, specs

__all__ = [
    "ConfusionCounts",
    "UndefinedMetricWarning",
    "accuracy_score",
    "balanced_accuracy_score",
    "cohen_kappa_score",
    "confusion_matrix",
    "f1_score",
    "false_negative_rate",
    "false_positive_rate",
    "fbeta_score",
    "jaccard_score",
    "matthews_corrcoef",
    "multilabel_confusion_matrix",
    "negative_predictive_value",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "selection_rate",
    "specificity_score",
]


class ConfusionCounts:
    """Mergeable confusion-count state: sorted ``classes`` and a K x K ``matrix``.

    ``matrix[i, j]`` is the number (or total sample weight) of samples whose true
    class is ``classes[i]`` and whose predicted class is ``classes[j]``.

    Multilabel-indicator data (2-D 0/1 arrays of shape (n, L)) give the per-label
    form: ``classes`` are the column indices 0..L-1, ``matrix`` has shape (L, 2, 2)
    with rows ``[[TN, FP], [FN, TP]]`` per label (scikit-learn's
    ``multilabel_confusion_matrix``), and ``samples`` holds the distinct per-sample
    (TP, FP, FN) triples over the labels with their total weight, which is all that
    ``average="samples"`` and subset accuracy need. Both merge by addition.

    Parameters
    ----------
    classes : array-like of shape (K,), optional
        Sorted distinct labels. Empty when omitted.
    matrix : array-like of shape (K, K) or (L, 2, 2), optional
        Counts; zeros when omitted.
    samples : tuple of arrays (triples (T, 3), weights (T,)), optional
        The per-sample triples of the per-label form.

    Examples
    --------
    >>> state = ConfusionCounts.from_predictions([0, 1, 1, 0], [0, 1, 0, 0])
    >>> state.matrix
    array([[2, 0],
           [1, 1]])
    >>> state.update([1], [1]).compute("recall_score")
    0.6666666666666666
    """

    __slots__ = ("classes", "matrix", "samples")

    def __init__(self, classes: Any = None, matrix: Any = None, samples: Any = None) -> None:
        classes = np.asarray([] if classes is None else classes)
        k = classes.shape[0]
        matrix = np.zeros((k, k), dtype=np.int64) if matrix is None else np.asarray(matrix)
        shape = (k, 2, 2) if samples is not None else (k, k)
        if matrix.shape != shape:
            raise InputError(f"matrix must have shape {shape} to match classes; got "
                             f"{matrix.shape}")
        if k > 1 and not np.all(classes[1:] > classes[:-1]):
            raise InputError("classes must be sorted and distinct")
        self.classes = classes
        self.matrix = matrix
        self.samples = None if samples is None else (np.asarray(samples[0]),
                                                     np.asarray(samples[1]))

    @classmethod
    def _checked(cls, classes: np.ndarray, matrix: np.ndarray) -> ConfusionCounts:
        """The counts of ``classes`` (sorted, distinct) and their (K, K) ``matrix``,
        both already so (an evaluation's per-cluster matrices, by the hundred thousand:
        the constructor's checks cost ten times the object)."""
        out = cls.__new__(cls)
        out.classes, out.matrix, out.samples = classes, matrix, None
        return out

    @classmethod
    def from_indicators(cls, y_true: np.ndarray, y_pred: np.ndarray,
                        sample_weight: np.ndarray | None = None) -> ConfusionCounts:
        """The per-label form of two checked boolean indicator arrays (n, L).

        Parameters
        ----------
        y_true, y_pred : ndarray of shape (n_samples, n_labels)
            Checked 0/1 indicator arrays.
        sample_weight : ndarray of shape (n_samples,), optional
            Checked sample weights.

        Returns
        -------
        ConfusionCounts
            The per-label state.
        """
        return cls(np.arange(y_true.shape[1]),
                   count_indicator_pairs(y_true, y_pred, sample_weight),
                   indicator_sample_counts(y_true, y_pred, sample_weight))

    @property
    def multilabel(self) -> bool:
        """Whether this is the per-label (L, 2, 2) form of multilabel-indicator data."""
        return self.samples is not None

    @property
    def patterns(self) -> tuple[np.ndarray, np.ndarray]:
        """``samples`` of multilabel counts: (per-sample triples, their weights)."""
        assert self.samples is not None, "multilabel counts only"
        return self.samples

    # ---------------------------------------------------------------- building
    @classmethod
    def from_predictions(cls, y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                         sample_weight: ArrayLike | None = None,
                         names: tuple[str, str] = ("y_true", "y_pred"),
                         scale_free: bool = False) -> ConfusionCounts:
        """Count the label pairs of ``y_true`` and ``y_pred``.

        ``labels`` adds classes absent from the data (with zero counts); it does
        not drop samples (the metric functions select classes afterwards).
        ``names`` are the argument names used in error messages. ``scale_free``:
        only ratios of the counts will be read, so extreme float weights may be
        rescaled by a power of two (:func:`~dartboard._validation.check_sample_weight`);
        the counts of a state that merges with others keep their scale.

        Parameters
        ----------
        y_true, y_pred : array-like of shape (n_samples,)
            True and predicted labels .
        sample_weight : array-like of shape (n_samples,), optional
            Sample weights.
        labels : array-like, optional
            Classes to include even when absent from the data.
        names : tuple of (str, str), default=("y_true", "y_pred")
            The argument names used in error messages.
        scale_free : bool, default=False
            Whether only ratios of the counts will be read.

        Returns
        -------
        ConfusionCounts
            The state of the data.
        """
        pair = indicator_pair(y_true, y_pred, names=names)
        if pair is not None:
            w = check_sample_weight(sample_weight, pair[0].shape[0], allow_negative=True,
                                    scale_free=scale_free)
            if labels is not None:
                raise InputError("labels of multilabel targets select columns: pass them to "
                                 "the metric, not to the state")
            return cls.from_indicators(*pair, w)
        t = label_array(y_true, name=names[0])
        p = label_array(y_pred, name=names[1])
        n = check_consistent_length((names[0], t), (names[1], p))
        w = check_sample_weight(sample_weight, n, allow_negative=True, scale_free=scale_free)
        classes, matrix = count_label_pairs(t, p, w, names=names)
        state = cls(classes, matrix)
        labels = check_labels_argument(labels)
        return state if labels is None else state.with_classes(labels)

    def update(self, y_true: ArrayLike, y_pred: ArrayLike, sample_weight: ArrayLike | None = None) -> ConfusionCounts:
        """Add a batch of predictions in place and return ``self``.

        Parameters
        ----------
        y_true, y_pred : array-like of shape (n_samples,)
            True and predicted labels of the batch.
        sample_weight : array-like of shape (n_samples,), optional
            Sample weights.

        Returns
        -------
        ConfusionCounts
            ``self``, with the batch added.
        """
        merged = self.merge(ConfusionCounts.from_predictions(y_true, y_pred,
                                                             sample_weight=sample_weight))
        self.classes, self.matrix, self.samples = merged.classes, merged.matrix, merged.samples
        return self

    def merge(self, other: ConfusionCounts) -> ConfusionCounts:
        """Return a new state holding the counts of both (classes are united).

        Parameters
        ----------
        other : ConfusionCounts
            The state of other data.

        Returns
        -------
        ConfusionCounts
            The state of both.
        """
        check_same_kind(self, other)
        if other.classes.shape[0] == 0:
            return ConfusionCounts(self.classes, self.matrix.copy(), self.samples)
        if self.classes.shape[0] == 0:
            return ConfusionCounts(other.classes, other.matrix.copy(), other.samples)
        if self.multilabel or other.multilabel:
            return self._merge_indicators(other)
        out = self.with_classes(other.classes)
        dtype = np.result_type(out.matrix, other.matrix)  # counts + weights -> float
        if dtype.kind in "iu" and not integer_counts_fit(
                float(out.matrix.sum(dtype=np.float64) + other.matrix.sum(dtype=np.float64))):
            dtype = np.dtype(np.float64)  # the integer sum would wrap around
        if out.matrix.dtype != dtype:
            out.matrix = out.matrix.astype(dtype)
        idx = np.searchsorted(out.classes, other.classes)
        out.matrix[np.ix_(idx, idx)] += other.matrix
        return out

    def _merge_indicators(self, other: ConfusionCounts) -> ConfusionCounts:
        if not (self.multilabel and other.multilabel):
            raise InputError("cannot merge the counts of multilabel-indicator data with those "
                             "of single-label data")
        if self.n_classes != other.n_classes:
            raise InputError(f"cannot merge multilabel counts of {self.n_classes} and "
                             f"{other.n_classes} labels")
        triples = np.concatenate([self.patterns[0], other.patterns[0]])
        weights = np.concatenate([self.patterns[1], other.patterns[1]])
        triples, inverse = np.unique(triples, axis=0, return_inverse=True)
        summed = np.zeros(triples.shape[0], dtype=weights.dtype)
        np.add.at(summed, inverse.ravel(), weights)
        return ConfusionCounts(self.classes, self.matrix + other.matrix, (triples, summed))

    def with_classes(self, labels: ArrayLike | None) -> ConfusionCounts:
        """Return a copy whose classes include ``labels`` (new ones with zero counts).

        Parameters
        ----------
        labels : array-like
            Classes to add.

        Returns
        -------
        ConfusionCounts
            The state with the union of the classes.
        """
        if self.multilabel:
            raise InputError("the labels of multilabel counts are their columns; they cannot "
                             "be extended")
        labels = np.asarray(labels)
        if labels.shape[0] and self.classes.shape[0]:
            _check_same_label_type(self.classes, labels)
        classes = np.union1d(self.classes, labels) if self.classes.shape[0] else np.unique(labels)
        if self.classes.dtype.kind in "biuf" and classes.dtype.kind == "f" \
                and self.classes.dtype.kind != "f":
            classes = classes.astype(self.classes.dtype) if np.all(np.mod(classes, 1) == 0) \
                else classes
        k = classes.shape[0]
        dtype = self.matrix.dtype if self.matrix.size else np.int64
        matrix = np.zeros((k, k), dtype=dtype)
        if self.classes.shape[0]:
            idx = np.searchsorted(classes, self.classes)
            matrix[np.ix_(idx, idx)] = self.matrix
        return ConfusionCounts(classes, matrix)

    # ---------------------------------------------------------------- reading
    @property
    def n_classes(self) -> int:
        """Number of classes K (labels L in the per-label form)."""
        return int(self.classes.shape[0])

    @property
    def total(self) -> float:
        """Number of samples (or total sample weight)."""
        return self.patterns[1].sum() if self.multilabel else self.matrix.sum()

    def index_of(self, labels: ArrayLike | None, *, name: str = "labels") -> np.ndarray:
        """Positions of ``labels`` in ``classes``; unknown labels raise.

        Parameters
        ----------
        labels : array-like
            Classes of this state.
        name : str, default="labels"
            The argument name used in error messages.

        Returns
        -------
        ndarray of int
            Their positions in ``classes``.
        """
        labels = np.asarray(labels)
        _check_same_label_type(self.classes, labels, name=name)
        idx = np.searchsorted(self.classes, labels)
        idx = np.clip(idx, 0, max(self.n_classes - 1, 0))
        bad = self.classes[idx] != labels if self.n_classes else np.ones(labels.shape, bool)
        if np.any(bad):
            raise InputError(f"{name} {labels[bad].tolist()!r} not among the classes "
                             f"{self.classes.tolist()!r}")
        return idx

    def one_vs_all(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per-class (TP, FP, FN, TN) arrays, each of shape (K,).

        Returns
        -------
        tp, fp, fn, tn : ndarray of shape (K,)
            One-vs-all counts of each class.
        """
        m = self.matrix
        if self.multilabel:
            return m[:, 1, 1].copy(), m[:, 0, 1].copy(), m[:, 1, 0].copy(), m[:, 0, 0].copy()
        tp = np.diagonal(m).copy()
        fp = m.sum(axis=0) - tp
        fn = m.sum(axis=1) - tp
        tn = m.sum() - tp - fp - fn
        return tp, fp, fn, tn

    def compute(self, metric: str | Callable[..., Any], **kwargs: Any) -> Any:
        """Compute a count metric from this state, e.g. ``compute("f1_score", average="macro")``.

        ``metric`` is the name (or the function) of any dartboard count metric;
        keywords are those of the metric function, without the data arguments.

        Parameters
        ----------
        metric : str or callable
            A count metric's name or function.
        **kwargs
            Keywords of the metric function.

        Returns
        -------
        float or ndarray
            What the metric function returns for the counted data.
        """
        return _implementation(metric)(self, **kwargs)

    def error_bound(self, metric: str | Callable[..., Any]) -> float:
        """0.0: counts are exact, so is every metric computed from them.

        Parameters
        ----------
        metric : str or callable
            The metric (any count metric).

        Returns
        -------
        float
            Always 0.0.
        """
        _implementation(metric)
        return 0.0

    def __repr__(self) -> str:
        return (f"ConfusionCounts(classes={self.classes.tolist()!r}, "
                f"matrix={self.matrix.tolist()!r})")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ConfusionCounts)
                and np.array_equal(self.classes, other.classes)
                and np.array_equal(self.matrix, other.matrix)
                and (self.samples is None) == (other.samples is None)
                and (self.samples is None or all(
                    np.array_equal(a, b) for a, b in zip(self.samples, other.patterns))))

    __hash__ = None  # type: ignore[assignment]  # mutable state


def _counts(y_true: Any, y_pred: Any, sample_weight: Any, labels: Any = None,
            names: tuple[str, str] = ("y_true", "y_pred"),
            scale_free: bool = False) -> ConfusionCounts:
    """The counts of a metric; ``scale_free`` for metrics that are ratios of them."""
    state = ConfusionCounts.from_predictions(y_true, y_pred, labels=labels,
                                             sample_weight=sample_weight, names=names,
                                             scale_free=scale_free)
    if sample_weight is not None and not state.total:
        _all_zero_weights()
    return state


def _set_counts(y_true: Any, y_pred: Any, sample_weight: Any, labels: Any,
                average: Any, scale_free: bool = True) -> tuple[ConfusionCounts, Any]:
    """The state of a set-wise metric, and the ``labels`` left for it to select.

    With multilabel data and ``average="samples"``, ``labels`` select columns
    before the per-sample counts are taken (as scikit-learn does). ``scale_free``
    unless the counts themselves are returned (a support)."""
    pair = indicator_pair(y_true, y_pred)
    if pair is None or average != "samples" or labels is None:
        return _counts(y_true, y_pred, sample_weight, scale_free=scale_free), labels
    idx = cf.indicator_labels(labels, pair[0].shape[1])
    w = check_sample_weight(sample_weight, pair[0].shape[0], allow_negative=True,
                            scale_free=scale_free)
    state = ConfusionCounts.from_indicators(pair[0][:, idx], pair[1][:, idx], w)
    if w is not None and not state.total:
        _all_zero_weights()
    return state, None


def _all_zero_weights() -> None:
    # a metric of no weighted samples is meaningless; scikit-learn raises too
    raise InputError("sample_weight must contain at least one positive weight; got all "
                     "zeros")


# ------------------------------------------------------------------ from counts
# The one-matrix case of the formulas in _count_formulas: the state's matrix as a
# stack of one, every class of the state one of its classes, warnings on.

def _stack(state: ConfusionCounts) -> tuple[np.ndarray, np.ndarray]:
    return (state.matrix.astype(np.float64)[None],
            np.ones((1, state.n_classes), dtype=bool))


def _state_counts(state: ConfusionCounts, average: Any, labels: Any, pos_label: Any
                  ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray | None]:
    """One-vs-all counts of a state (a stack of one), their mask, and for
    ``average="samples"`` the weights of the per-sample triples (else None)."""
    if average == "samples" and state.multilabel:
        if labels is not None:
            raise InputError("average='samples' of multilabel counts takes every label; "
                             "select the columns before counting")
        counts = cf.sample_counts(state.patterns[0], state.n_classes)
        return counts, np.ones(counts["tp"].shape, bool), state.patterns[1]
    m, mask = _stack(state)
    counts, mask = cf.set_counts(m, mask, state.classes, average, labels, pos_label,
                                 single=True, multilabel=state.multilabel)
    return counts, mask, None


def _averaged(values: np.ndarray, den: np.ndarray, mask: np.ndarray, average: Any,
              support: np.ndarray, weight: np.ndarray | None, zero_division: Any) -> Any:
    if weight is not None:
        return cf.samples_average(values, den, weight, zero_division)
    return _one(cf.average_values(values, den, mask, average, support, zero_division,
                                  False), average)


def _set_value(state: ConfusionCounts, formula: Any, *, title: str, samples: str,
               average: Any, labels: Any, pos_label: Any, zero_division: Any,
               warn: bool = True) -> Any:
    """A set-wise metric of one state: ratio per class (or sample), then averaged."""
    zero_division = check_zero_division(zero_division)
    counts, mask, weight = _state_counts(state, average, labels, pos_label)
    num, den = formula(counts)
    values = cf.ratio_values(num, den, zero_division, title=title, samples=samples,
                             single=True, warn=warn, samplewise=weight is not None)
    return _averaged(values, den, mask, average, counts["tp"] + counts["fn"], weight,
                     zero_division)


def _one(values: np.ndarray, average: str | None) -> Any:
    return values[0] if average is None else float(values[0])


def _title(name: str) -> str:
    """A metric's name in scikit-learn's warnings: ``false_positive_rate`` -> ``False
    positive rate``."""
    return name.removesuffix("_score").replace("_", " ").capitalize()


def _proportion_from(state: ConfusionCounts, spec: MetricSpec, *, labels: Any = None,
                     pos_label: Any = 1, average: str | None = "binary",
                     zero_division: Any = "warn") -> Any:
    """A set-wise proportion (``spec.proportion``) of one state."""
    proportion = spec.proportion
    assert proportion is not None
    return _set_value(state, partial(cf.proportion, proportion), title=_title(spec.name),
                      samples=cf.samples_called(proportion[1]), average=average,
                      labels=labels, pos_label=pos_label, zero_division=zero_division)


def _prfs(state: ConfusionCounts, *, beta: float = 1.0, labels: Any = None,
          pos_label: Any = 1, average: str | None = None,
          warn_for: tuple[str, ...] = ("precision", "recall", "f-score"),
          zero_division: Any = "warn") -> tuple[Any, Any, Any, Any]:
    zero_division = check_zero_division(zero_division)
    beta = cf.check_beta(beta)
    counts, mask, weight = _state_counts(state, average, labels, pos_label)
    samplewise = weight is not None
    support = counts["tp"] + counts["fn"]
    out = []
    for key in ("precision", "recall"):
        formula = get_spec(f"{key}_score").proportion
        assert formula is not None  # both are proportions in the registry
        num, den = cf.proportion(formula, counts)
        values = cf.ratio_values(num, den, zero_division, title=key.capitalize(),
                                 samples=cf.samples_called(formula[1]), single=True,
                                 warn=key in warn_for, samplewise=samplewise)
        out.append(_averaged(values, den, mask, average, support, weight, zero_division))
    num, den = cf.fbeta(beta, counts)
    # beta 0 and inf are precision and recall, warned for under their own names
    values = cf.ratio_values(num, den, zero_division, title="F-score",
                             samples="true nor predicted", single=True,
                             warn="f-score" in warn_for and 0 < beta < np.inf,
                             samplewise=samplewise)
    out.append(_averaged(values, den, mask, average, support, weight, zero_division))
    true_sum = support[0].astype(state.matrix.dtype) if average is None else None
    return out[0], out[1], out[2], true_sum


def _fbeta_from(state: ConfusionCounts, *, beta: float, average: str | None = "binary",
                **kwargs: Any) -> Any:
    return _prfs(state, beta=beta, average=average, warn_for=("f-score",), **kwargs)[2]


def _f1_from(state: ConfusionCounts, **kwargs: Any) -> Any:
    return _fbeta_from(state, beta=1.0, **kwargs)


def _formula_from(state: ConfusionCounts, name: str, **kwargs: Any) -> float:
    """A whole-matrix count metric (accuracy, MCC, balanced accuracy, kappa)."""
    if state.multilabel:
        if name != "accuracy_score":
            raise InputError(f"{name}: multilabel-indicator is not supported")
        return _subset_accuracy(state, **kwargs)
    m, mask = _stack(state)
    return float(cf.FORMULAS[name](m, mask, state.classes, single=True, **kwargs)[0])


def _subset_accuracy(state: ConfusionCounts, normalize: bool = True) -> float:
    """Multilabel accuracy: the weight of the samples whose every label is right."""
    return float(cf.subset_accuracy(*state.patterns, normalize=normalize))


def _multilabel_confusion_matrix_from(state: ConfusionCounts, *, labels: Any = None
                                      ) -> np.ndarray:
    """Per-class (or per-label) ``[[TN, FP], [FN, TP]]`` of one state, shape (S, 2, 2)."""
    if state.multilabel:
        idx = slice(None) if labels is None else cf.indicator_labels(labels, state.n_classes)
        return state.matrix[idx].copy()
    if labels is not None:
        labels = check_labels_argument(labels)
        _check_same_label_type(state.classes, labels)
        known = np.isin(labels, state.classes)
        state = state.with_classes(labels[~known]) if (~known).any() else state
        idx = state.index_of(labels)
    else:
        idx = slice(None)
    tp, fp, fn, tn = (a[idx] for a in state.one_vs_all())
    return np.stack([np.stack([tn, fp], axis=-1), np.stack([fn, tp], axis=-1)], axis=-2)


def _confusion_matrix_from(state: ConfusionCounts, *, labels: Any = None,
                           normalize: str | None = None,
                           true_name: str = "y_true") -> np.ndarray:
    check_option(normalize, "normalize", ("true", "pred", "all", None))
    if state.multilabel:
        raise InputError("confusion_matrix: multilabel-indicator is not supported; use "
                         "multilabel_confusion_matrix")
    if labels is None:
        cm = state.matrix
    else:
        labels = check_labels_argument(labels)
        _check_same_label_type(state.classes, labels)
        known = np.isin(labels, state.classes)
        in_true = state.classes[state.matrix.sum(axis=1) > 0]
        if state.n_classes and not np.isin(labels, in_true).any():
            raise InputError(f"At least one label specified must be in {true_name}; "
                             f"got labels {labels.tolist()!r}")
        state = state.with_classes(labels[~known]) if (~known).any() else state
        idx = state.index_of(labels)
        cm = state.matrix[np.ix_(idx, idx)]
    if normalize is None:
        return cm.copy()
    cm = cm.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        if normalize == "true":
            cm = cm / cm.sum(axis=1, keepdims=True)
        elif normalize == "pred":
            cm = cm / cm.sum(axis=0, keepdims=True)
        else:
            cm = cm / cm.sum()
    return np.nan_to_num(cm)


# count metrics computed other than by a registry proportion or a whole-matrix formula
_SPECIAL: dict[str, Callable[..., Any]] = {
    "confusion_matrix": _confusion_matrix_from, "f1_score": _f1_from,
    "fbeta_score": _fbeta_from, "multilabel_confusion_matrix": _multilabel_confusion_matrix_from}


@cache
def _from_counts(name: str) -> Callable[..., Any] | None:
    """The one-matrix implementation of count metric ``name`` (None if not one)."""
    try:
        spec = get_spec(name)
    except ValueError:
        return None
    if not (spec.counted or spec.name in _SPECIAL):
        return None
    if spec.name in _SPECIAL:
        return _SPECIAL[spec.name]
    if spec.proportion is not None and spec.average:
        return partial(_proportion_from, spec=spec)
    return partial(_formula_from, name=spec.name)


def _implementation(metric: str | Callable[..., Any]) -> Callable[..., Any]:
    """The one-matrix implementation of a count metric given by name or function."""
    name = metric if isinstance(metric, str) else getattr(metric, "__name__", "")
    impl = _from_counts(name)
    if impl is None:
        raise InputError(f"metric must be one of {_computable()}; got {metric!r}")
    return impl


def _computable() -> list[str]:
    return sorted(s.name for s in specs(kind="count") if _from_counts(s.name))



# ------------------------------------------------------------------ public functions

def confusion_matrix(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                     sample_weight: ArrayLike | None = None, normalize: str | None = None) -> np.ndarray:
    """Confusion matrix ``C[i, j]``: samples of true class i predicted as class j.

    Drop-in for ``sklearn.metrics.confusion_matrix``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted class labels.
    labels : array-like of shape (n_classes,), optional
        Classes to index the matrix by, in this order; samples whose true or
        predicted label is not listed are left out. Default: the sorted labels
        present in either array.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; the matrix then holds weight sums.
    normalize : {"true", "pred", "all"}, optional
        Divide by row sums, column sums or the total (0/0 gives 0).

    Returns
    -------
    ndarray of shape (n_classes, n_classes)
        int64 counts (float64 with float weights or ``normalize``).

    Examples
    --------
    >>> confusion_matrix(["cat", "dog", "dog"], ["cat", "cat", "dog"])
    array([[1, 0],
           [1, 1]])
    """
    cm = _confusion_matrix_from(_counts(y_true, y_pred, sample_weight), labels=labels,
                                normalize=normalize)
    if cm.shape == (1, 1):
        cf.warn_outside("A single label was found in 'y_true' and 'y_pred'. For the confusion "
                        "matrix to have the correct shape, use the 'labels' parameter to "
                        "pass all known labels.", UserWarning)
    return cm


@documented(
    labels=("array-like",
            "Classes (or, for indicators, column indices) to report, in order; None: all."),
    samplewise=("bool",
                "One matrix per sample (multilabel data only)."),
)
def multilabel_confusion_matrix(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                                labels: ArrayLike | None = None, samplewise: bool = False) -> np.ndarray:
    """One 2 x 2 confusion matrix ``[[TN, FP], [FN, TP]]`` per label (or class).

    Multilabel-indicator input (2-D 0/1 arrays): one matrix per column (``labels``
    are column indices), or with ``samplewise=True`` one per sample over its labels.
    Labels: class i one-vs-rest. Drop-in for
    ``sklearn.metrics.multilabel_confusion_matrix``; counted in three column-sum
    passes without sorting or a sparse matrix.

    Returns
    -------
    ndarray of shape (n_outputs, 2, 2)

    Examples
    --------
    >>> multilabel_confusion_matrix([[1, 0], [0, 1], [1, 1]], [[1, 0], [1, 1], [0, 1]])
    array([[[0, 1],
            [1, 1]],
    <BLANKLINE>
           [[1, 0],
            [0, 2]]])
    """
    samplewise = check_bool(samplewise, "samplewise")
    pair = indicator_pair(y_true, y_pred)
    if samplewise:
        if pair is None:
            raise InputError("Samplewise metrics are not available outside of multilabel "
                             "classification.")
        t, p = pair
        w = check_sample_weight(sample_weight, t.shape[0], allow_negative=True)
        if labels is not None:
            chosen = cf.indicator_labels(labels, t.shape[1])
            t, p = t[:, chosen], p[:, chosen]
        # the samples' counts over their labels: the column sums of the transposes
        counts = count_indicator_pairs(t.T, p.T)
        return counts if w is None else counts * w[:, None, None]
    if pair is not None:  # per-label counts only: the per-sample triples are not needed
        w = check_sample_weight(sample_weight, pair[0].shape[0], allow_negative=True)
        idx = slice(None) if labels is None else cf.indicator_labels(labels,
                                                                     pair[0].shape[1])
        if w is not None and not np.any(w):
            _all_zero_weights()
        return count_indicator_pairs(pair[0][:, idx], pair[1][:, idx], w)
    return _multilabel_confusion_matrix_from(_counts(y_true, y_pred, sample_weight),
                                             labels=labels)


@documented(
    returns="float\n    The fraction (or number) of correctly classified samples.",
)
def accuracy_score(y_true: ArrayLike, y_pred: ArrayLike, *, normalize: bool = True,
                   sample_weight: ArrayLike | None = None) -> float:
    """Fraction (or, with ``normalize=False``, number) of correctly classified samples.

    ``accuracy = (TP + TN) / N``, the trace of the confusion matrix over its total.
    Drop-in for ``sklearn.metrics.accuracy_score``.

    Examples
    --------
    >>> accuracy_score([0, 1, 2, 3], [0, 2, 1, 3])
    0.5
    """
    normalize = check_bool(normalize, "normalize")
    pair = indicator_pair(y_true, y_pred)
    if pair is not None:  # subset accuracy: every label of a sample must be right
        w = check_sample_weight(sample_weight, pair[0].shape[0], allow_negative=True,
                                scale_free=normalize)
        if w is not None and not np.any(w):
            _all_zero_weights()
        wrong = (pair[0] != pair[1]).any(axis=1)
        if w is None:
            correct = wrong.shape[0] - np.count_nonzero(wrong)
            return float(correct / wrong.shape[0]) if normalize else float(correct)
        correct = w[~wrong].sum(dtype=np.float64)
        return float(correct / w.sum(dtype=np.float64)) if normalize else float(correct)
    t = label_array(y_true, name="y_true")
    p = label_array(y_pred, name="y_pred")
    n = check_consistent_length(("y_true", t), ("y_pred", p))
    w = check_sample_weight(sample_weight, n, allow_negative=True, scale_free=normalize)
    if w is not None and not np.any(w):
        _all_zero_weights()
    if t.dtype.kind in "biu" and p.dtype.kind in "biu":
        # Accuracy needs only the trace of C: for integer labels, counting the
        # matches directly equals trace(C) / N and skips building C.
        if w is None:
            correct = np.count_nonzero(t == p)
            return float(correct / n) if normalize else float(correct)
        # float64 sums: integer sums of large weights would wrap around
        correct = w[t == p].sum(dtype=np.float64)
        return float(correct / w.sum(dtype=np.float64)) if normalize else float(correct)
    # other labels: count the pairs of the arrays checked above (no second validation)
    state = ConfusionCounts(*count_label_pairs(t, p, w))
    return _formula_from(state, "accuracy_score", normalize=normalize)


_RETURNS = "float or ndarray of shape (n_classes,)\n    One value per class with ``average=None``."


def _proportion(name: str, y_true: ArrayLike, y_pred: ArrayLike, labels: Any, pos_label: Any,
                average: Any, sample_weight: Any, zero_division: Any) -> Any:
    """A proportion of the one-vs-all counts (the registry's ``proportion``)."""
    state, labels = _set_counts(y_true, y_pred, sample_weight, labels, average)
    return _implementation(name)(state, labels=labels, pos_label=pos_label, average=average,
                                 zero_division=zero_division)


@documented(returns=_RETURNS)
def precision_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                    pos_label: Any = 1,
                    average: Average | None = "binary", sample_weight: ArrayLike | None = None,
                    zero_division: Any = "warn") -> float | np.ndarray:
    """Precision ``TP / (TP + FP)``: the fraction of predicted positives that are positive.

    Drop-in for ``sklearn.metrics.precision_score``.

    Examples
    --------
    >>> precision_score([0, 1, 1, 0], [1, 1, 1, 0])
    0.6666666666666666
    """
    return _proportion("precision_score", y_true, y_pred, labels, pos_label, average, sample_weight,
                       zero_division)


@documented(returns=_RETURNS)
def recall_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                 pos_label: Any = 1,
                 average: Average | None = "binary", sample_weight: ArrayLike | None = None,
                 zero_division: Any = "warn") -> float | np.ndarray:
    """Recall (sensitivity, TPR) ``TP / (TP + FN)``: the fraction of positives found.

    Drop-in for ``sklearn.metrics.recall_score``.

    Examples
    --------
    >>> recall_score([0, 1, 1, 0], [1, 1, 0, 0])
    0.5
    """
    return _proportion("recall_score", y_true, y_pred, labels, pos_label, average, sample_weight,
                       zero_division)


@documented(returns=_RETURNS)
def specificity_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                      pos_label: Any = 1,
                      average: Average | None = "binary", sample_weight: ArrayLike | None = None,
                      zero_division: Any = "warn") -> float | np.ndarray:
    """Specificity (TNR) ``TN / (TN + FP)``: the fraction of negatives recognised.

    Examples
    --------
    >>> specificity_score([0, 0, 0, 1], [0, 1, 0, 1])
    0.6666666666666666
    """
    return _proportion("specificity_score", y_true, y_pred, labels, pos_label, average, sample_weight,
                       zero_division)


@documented(returns=_RETURNS)
def negative_predictive_value(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                              pos_label: Any = 1,
                              average: Average | None = "binary", sample_weight: ArrayLike | None = None,
                              zero_division: Any = "warn") -> float | np.ndarray:
    """Negative predictive value ``TN / (TN + FN)``: the share of predicted negatives that are negative.

    scikit-learn's ``precision_score`` of the negative class.

    Examples
    --------
    >>> negative_predictive_value([0, 0, 1, 1], [0, 0, 0, 1])
    0.6666666666666666
    """
    return _proportion("negative_predictive_value", y_true, y_pred, labels, pos_label, average, sample_weight,
                       zero_division)


@documented(returns=_RETURNS)
def false_positive_rate(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                        pos_label: Any = 1,
                        average: Average | None = "binary", sample_weight: ArrayLike | None = None,
                        zero_division: Any = "warn") -> float | np.ndarray:
    """False positive rate ``FP / (FP + TN) = 1 - specificity``.

    Examples
    --------
    >>> false_positive_rate([0, 0, 0, 1], [0, 1, 0, 1])
    0.3333333333333333
    """
    return _proportion("false_positive_rate", y_true, y_pred, labels, pos_label, average, sample_weight,
                       zero_division)


@documented(returns=_RETURNS)
def false_negative_rate(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                        pos_label: Any = 1,
                        average: Average | None = "binary", sample_weight: ArrayLike | None = None,
                        zero_division: Any = "warn") -> float | np.ndarray:
    """False negative rate ``FN / (FN + TP) = 1 - recall``.

    Examples
    --------
    >>> false_negative_rate([1, 1, 1, 0], [1, 0, 0, 0])
    0.6666666666666666
    """
    return _proportion("false_negative_rate", y_true, y_pred, labels, pos_label, average, sample_weight,
                       zero_division)


@documented(returns=_RETURNS)
def selection_rate(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                   pos_label: Any = 1,
                   average: Average | None = "binary", sample_weight: ArrayLike | None = None,
                   zero_division: Any = "warn") -> float | np.ndarray:
    """Selection rate ``(TP + FP) / N``: the fraction of samples predicted positive.

    With ``average='micro'`` over K classes this is 1/K by construction.

    Examples
    --------
    >>> selection_rate([0, 1, 1, 0], [1, 1, 0, 0])
    0.5
    """
    return _proportion("selection_rate", y_true, y_pred, labels, pos_label, average, sample_weight,
                       zero_division)


@documented(returns=_RETURNS)
def jaccard_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                  pos_label: Any = 1,
                  average: Average | None = "binary", sample_weight: ArrayLike | None = None,
                  zero_division: Any = "warn") -> float | np.ndarray:
    """Jaccard index ``TP / (TP + FP + FN)``: the overlap of true and predicted positives.

    Drop-in for ``sklearn.metrics.jaccard_score`` (binary and multiclass).

    Examples
    --------
    >>> jaccard_score([0, 1, 1, 0], [1, 1, 0, 0])
    0.3333333333333333
    """
    return _proportion("jaccard_score", y_true, y_pred, labels, pos_label, average, sample_weight,
                       zero_division)


@documented(returns=_RETURNS)
def f1_score(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
             pos_label: Any = 1,
             average: Average | None = "binary", sample_weight: ArrayLike | None = None,
             zero_division: Any = "warn") -> float | np.ndarray:
    """F1 score ``2 TP / (2 TP + FP + FN)``, the harmonic mean of precision and recall.

    Drop-in for ``sklearn.metrics.f1_score``. With no TP, FP or FN it is
    undefined and takes ``zero_division``.

    Examples
    --------
    >>> f1_score([0, 1, 1, 0], [1, 1, 0, 0])
    0.5
    """
    state, labels = _set_counts(y_true, y_pred, sample_weight, labels, average)
    return _f1_from(state, labels=labels, pos_label=pos_label, average=average,
                    zero_division=zero_division)


@documented(returns=_RETURNS, beta=("float", "Non-negative weight of recall."))
def fbeta_score(y_true: ArrayLike, y_pred: ArrayLike, *, beta: float, labels: Any = None,
                pos_label: Any = 1, average: Average | None = "binary",
                sample_weight: ArrayLike | None = None, zero_division: Any = "warn") -> float | np.ndarray:
    """F-beta score ``(1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)``.

    ``beta`` weighs recall beta times as much as precision (beta=0 gives
    precision, beta=inf recall). Drop-in for ``sklearn.metrics.fbeta_score``.

    Examples
    --------
    >>> fbeta_score([0, 1, 1, 0], [1, 1, 0, 0], beta=2)
    0.5
    """
    state, labels = _set_counts(y_true, y_pred, sample_weight, labels, average)
    return _fbeta_from(state, beta=beta, labels=labels, pos_label=pos_label, average=average,
                       zero_division=zero_division)


@documented(
    returns="precision, recall, fbeta_score : float or ndarray of shape (n_classes,)\n    "
            "One value per class with ``average=None``.\nsupport : None or ndarray of "
            "shape (n_classes,)\n    The number of true samples of each class; None when "
            "averaged.",
    beta=("float",
          "Weight of recall in the F-score."),
    average=("{'binary', 'micro', 'macro', 'weighted', 'samples'} or None",
             "How per-class values are combined; None returns one per class."),
    warn_for=("tuple of str",
              "Which undefined values warn."),
    zero_division=("{'warn', 0.0, 1.0, np.nan}",
                   "Value of a 0/0 ratio; 'warn' gives 0.0 and an UndefinedMetricWarning."),
)
def precision_recall_fscore_support(y_true: ArrayLike, y_pred: ArrayLike, *, beta: float = 1.0,
                                    labels: ArrayLike | None = None, pos_label: Any = 1,
                                    average: Average | None = None,
                                    warn_for: tuple[str, ...] = ("precision", "recall",
                                                                 "f-score"),
                                    sample_weight: ArrayLike | None = None,
                                    zero_division: Any = "warn") -> tuple[Any, Any, Any, Any]:
    """Precision, recall, F-beta and support in one call (support is None if averaged).

    Drop-in for ``sklearn.metrics.precision_recall_fscore_support``.

    Examples
    --------
    >>> p, r, f, s = precision_recall_fscore_support([0, 1, 1], [0, 1, 0])
    >>> s
    array([1, 2])
    """
    state, labels = _set_counts(y_true, y_pred, sample_weight, labels, average,
                                average is not None)
    return _prfs(state, beta=beta, labels=labels, pos_label=pos_label, average=average,
                 warn_for=warn_for, zero_division=zero_division)


@documented(
    returns="float\n    The correlation, between -1 and 1 (0.0 when the denominator is "
            "zero).",
)
def matthews_corrcoef(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None) -> float:
    """Matthews correlation coefficient; Gorodkin's R_K for several classes.

    Binary: ``(TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN))``. A zero
    denominator gives 0.0. Drop-in for ``sklearn.metrics.matthews_corrcoef``.

    Examples
    --------
    >>> round(matthews_corrcoef([1, 1, 1, 0], [1, 0, 1, 0]), 4)
    0.5774
    """
    return _formula_from(_counts(y_true, y_pred, sample_weight, scale_free=True),
                         "matthews_corrcoef")


@documented(
    returns="float\n    Mean recall over the classes (adjusted: 0 at chance).",
    adjusted=("bool",
              "Rescale so that chance scores 0 and perfect 1."),
)
def balanced_accuracy_score(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None,
                            adjusted: bool = False) -> float:
    """Mean per-class recall; ``adjusted=True`` rescales so that chance is 0.

    Classes present only in ``y_pred`` are left out, with a warning.
    Drop-in for ``sklearn.metrics.balanced_accuracy_score``.

    Examples
    --------
    >>> balanced_accuracy_score([0, 1, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1])
    0.625
    """
    return _formula_from(_counts(y_true, y_pred, sample_weight, scale_free=True),
                         "balanced_accuracy_score",
                         adjusted=adjusted)


@documented(
    returns="float\n    Kappa, between -1 and 1 (1: perfect agreement, 0: chance).",
    y1=("array-like of shape (n_samples,)",
        "Labels of the first rater."),
    y2=("array-like of shape (n_samples,)",
        "Labels of the second rater."),
    labels=("array-like of shape (n_classes,)",
            "Classes to index the matrix by; None: the labels present in either array."),
    weights=("{'linear', 'quadratic'} or None",
             "Weighting of disagreements by distance between classes."),
    replace_undefined_by=("float",
                          "Value of an undefined kappa (with a warning)."),
)
def cohen_kappa_score(y1: ArrayLike, y2: ArrayLike, *, labels: ArrayLike | None = None, weights: str | None = None,
                      sample_weight: ArrayLike | None = None,
                      replace_undefined_by: float = np.nan) -> float:
    """Cohen's kappa (p_o - p_e) / (1 - p_e), optionally linear/quadratic weighted.

    Undefined kappa (no shared label) gives ``replace_undefined_by`` with an
    :class:`UndefinedMetricWarning`. Drop-in for ``sklearn.metrics.cohen_kappa_score``.

    Examples
    --------
    >>> round(cohen_kappa_score([0, 1, 1, 0], [0, 1, 0, 0]), 4)
    0.5
    """
    state = _counts(y1, y2, sample_weight, names=("y1", "y2"), scale_free=True)
    return _formula_from(state, "cohen_kappa_score", labels=labels, weights=weights,
                             replace_undefined_by=replace_undefined_by)
