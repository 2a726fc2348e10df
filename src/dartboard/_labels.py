"""Class labels: encoding and counting, and the one rule for the positive class.

Encoding
--------
:func:`encode_labels` turns label arrays into integer codes over their shared
sorted classes; :func:`count_label_pairs` counts (true, predicted) pairs into a
confusion matrix, the hot path of every count metric. Both first ask one
question (:func:`_integer_range`): are the labels numbers whose range fits in
machine integers? Then they are offsets from the smallest label and need no
hashing; otherwise (strings, objects, wide uint64 ids) they go through the one
hash path, :func:`_factorize` (``pandas.factorize``). The data are never
sorted: only the (few) distinct labels are. Classes come back with the dtype of
the input (bool, float or integer).

Counting chooses among three kernels: labels in {0, 1} without weights take
three counting passes (:func:`_count_binary01`); narrow integer ranges one
``np.bincount`` over ``true * span + pred``, block by block so that the codes
stay in cache (:func:`_count_direct`); everything else is factorized and then
counted (:func:`_count_hashed`).

The positive class
------------------
Every path that needs a positive class (ranking metrics and their states, Brier,
intervals, comparisons, streaming and Dask, the evaluation engine and the command
line) asks :func:`positive_index` or :func:`positive_label`. What happens when
``pos_label`` is not given is one of three named rules:

``"strict"``
    scikit-learn's ``_check_pos_label_consistency``: labels in {0, 1}, {-1, 1}
    (or one of them alone, or none) have positive class 1; any other labels
    (strings, {1, 2}, numbers held in an object array, ...) need ``pos_label``.
    The drop-in ranking metrics use it.
``"numbers"``
    as ``"strict"``, but numeric labels outside those sets take the greater
    label: scikit-learn's backward-compatible rule for probabilities
    (``brier_score_loss``).
``"greater"``
    the greater of the (at most two) labels, whatever they are: 1 for {0, 1}
    and {-1, 1}, ``"yes"`` for {"no", "yes"}; data holding one class of {0, 1}
    or {-1, 1} still have positive class 1 (all-negative data are not all
    positive). Ranking intervals and paired tests of scores use it.

dartboard's evaluation (the engine, streaming, the command line) guesses no
more than that: :func:`canonical_positive` is 1 for labels among {0, 1} or
{-1, 1} (numbers of any dtype, booleans, numbers held as objects), and other
labels need ``pos_label`` (:mod:`dartboard.evaluation._inputs`).

A ``pos_label`` that is given is matched by value, a string only with a string
(``1`` never matches ``"1"``). When it is not among the classes:

- with two classes present it cannot be either of them, and every function of
  dartboard's own refuses it with :func:`invalid_pos_label` (``refuse_absent=True``,
  the rule of scikit-learn's ``precision_score``): ``pos_label=5`` on 0/1 labels is
  a mistake, not data without positives. The drop-in functions whose
  scikit-learn counterpart accepts it (``brier_score_loss``, ``d2_brier_score``,
  ``roc_curve``, ``precision_recall_curve``, ``det_curve``, ``calibration_curve``)
  keep scikit-learn's answer;
- with one class present (or none) the positive class may simply be missing from
  this data (a batch of a stream, a group): the index is -1 and all its counts
  are zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dartboard._validation import (
    check_consistent_length,
    label_array,
    label_category,
    object_label_category,
)
from dartboard.exceptions import InputError, InputTypeError

__all__ = ["EncodedLabels", "INFER_RULES", "canonical_positive", "count_indicator_pairs",
           "count_label_pairs", "encode_ids", "encode_labels", "indicator_pair", "indicator_sample_counts",
           "invalid_pos_label", "is_string_labels", "positive_index", "positive_label",
           "same_label"]

INFER_RULES = ("strict", "numbers", "greater")
_CANONICAL: tuple[list[int], ...] = ([], [0, 1], [-1, 1], [0], [-1], [1])

# Integer labels whose value range is at most this wide are counted directly with
# np.bincount; wider ranges are hashed instead (see count_label_pairs).
_MAX_DIRECT_SPAN = 2048
# Pairs per block when counting directly (2 MiB of intp codes: fits in cache).
_COUNT_BLOCK = 1 << 18
# float64 holds every integer below this exactly
_EXACT_FLOAT_INT = 2.0 ** 53

Named = Sequence[tuple[str, np.ndarray]]


# ------------------------------------------------------------------ the positive class

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
    if any(isinstance(c, bytes) for c in values):  # scikit-learn's class and reason
        raise InputTypeError("Support for labels represented as bytes is not supported: y_true "
                             "holds bytes; decode them to strings or pass pos_label")
    listing = ", ".join(repr(c) for c in values)
    # {0, 1} held as Python objects is not {0, 1} to scikit-learn either: say why
    hint = (" (y_true has dtype object: convert it to a numeric dtype)"
            if classes.dtype.kind == "O" and not any(isinstance(c, str) for c in values)
            else "")
    raise InputError(f"y_true takes value in {{{listing}}} and pos_label is not "
                     "specified: either make y_true take value in {0, 1} or "
                     f"{{-1, 1}} or pass pos_label explicitly.{hint}")


def canonical_positive(classes: np.ndarray) -> int | None:
    """1 when the sorted labels lie in {0, 1} or {-1, 1} (numbers of any dtype,
    booleans, numbers held as Python objects; one of them alone too), else None.

    Examples
    --------
    >>> canonical_positive(np.array([False, True])), canonical_positive(np.array(["a", "b"]))
    (1, None)
    """
    values = [v.item() if isinstance(v, np.generic) else v for v in classes.tolist()]
    if not all(isinstance(v, (bool, int, float)) for v in values):
        return None
    return 1 if any(set(values) <= set(c) for c in _CANONICAL[1:3]) else None


def positive_label(classes: Any, pos_label: Any = None, *, infer: str = "strict") -> Any:
    """The positive class: ``pos_label`` when given, else the rule ``infer`` (module doc).

    Examples
    --------
    >>> positive_label(np.array([0, 1])), positive_label(np.array(["no", "yes"]), infer="greater")
    (1, 'yes')
    """
    if infer not in INFER_RULES:
        raise InputError(f"infer must be one of {INFER_RULES}; got {infer!r}")
    if pos_label is not None:
        return pos_label
    return _inferred(np.asarray(classes), infer)


def invalid_pos_label(pos_label: Any, classes: Any) -> ValueError:
    """The refusal of a ``pos_label`` that is not one of the classes (the message of
    scikit-learn's ``precision_score``)."""
    return InputError(f"pos_label={pos_label!r} is not a valid label. It should be one "
                      f"of {np.asarray(classes).tolist()[:10]!r}")


def positive_index(classes: Any, pos_label: Any = None, *, infer: str = "strict",
                   refuse_absent: bool = False) -> int:
    """Index of the positive class in sorted ``classes``; -1 when it is absent.

    ``refuse_absent``: a given ``pos_label`` that is not one of two (or more)
    classes is an error (module docstring), not an absent class.

    Examples
    --------
    >>> positive_index(np.array([-1, 1])), positive_index(np.array([0, 1]), pos_label=5)
    (1, -1)
    >>> positive_index(np.array([0]), pos_label=5, refuse_absent=True)
    -1
    >>> positive_index(np.array([0, 1]), pos_label=5, refuse_absent=True)
    Traceback (most recent call last):
    ...
    dartboard.exceptions.InputError: pos_label=5 is not a valid label. It should be one of [0, 1]
    """
    classes = np.asarray(classes)
    label = positive_label(classes, pos_label, infer=infer)
    for i, c in enumerate(classes.tolist()):
        if same_label(c, label):
            return i
    if refuse_absent and pos_label is not None and classes.shape[0] >= 2:
        raise invalid_pos_label(pos_label, classes)
    return -1


# ------------------------------------------------------------------ shared detection

def _common_category(named: Named) -> str:
    """'number', 'string' or (when only object arrays) 'object' for several arrays."""
    cats = {}
    for name, arr in named:
        cat = label_category(arr)
        if cat != "object":
            cats[name] = cat
    if len(set(cats.values())) > 1:
        listing = ", ".join(f"{n} has {c} labels" for n, c in cats.items())
        raise InputError(f"Mix of label input types (string and number): {listing}")
    return next(iter(cats.values()), "object")


def _as_int_labels(arr: np.ndarray) -> np.ndarray:
    kind = arr.dtype.kind
    if kind == "b":
        return arr.view(np.uint8)
    if kind == "f":
        return arr.astype(np.int64)  # label_array checked they are exact integers
    return arr


def _fits_intp(lo: int, hi: int) -> bool:
    """Whether offsets from ``lo`` can be computed in intp (uint64 ids may not)."""
    return -(2**62) <= lo and hi < 2**62


def _integer_range(named: Named) -> tuple[list[np.ndarray], int, int] | None:
    """Integer views of number labels and their range ``(lo, hi)``.

    ``None`` when the labels must be hashed instead: strings, objects, or values
    too far apart for intp offsets.
    """
    if _common_category(named) != "number" or any(a.dtype.kind == "O" for _, a in named):
        return None
    ints = [_as_int_labels(a) for _, a in named]
    # Python ints: int64 and uint64 extremes compare exactly
    lo = min(int(a.min()) for a in ints)
    hi = max(int(a.max()) for a in ints)
    return (ints, lo, hi) if _fits_intp(lo, hi) else None


def _present_classes(present: np.ndarray, lo: int, arrays: Sequence[np.ndarray]
                     ) -> np.ndarray:
    """Labels ``lo + i`` for the true entries of ``present``, in the input's dtype."""
    classes = np.flatnonzero(present) + lo
    kinds = {a.dtype.kind for a in arrays}
    if kinds == {"b"}:
        return classes.astype(bool)
    if "f" in kinds:
        return classes.astype(np.float64)
    return classes


def _factorize(arrays: Sequence[np.ndarray], names: Sequence[str]
               ) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """Codes of every array in one shared, sorted class space (one hash pass)."""
    import pandas as pd

    if len({a.dtype.kind for a in arrays}) > 1:  # e.g. int64 beside uint64: keep exact
        arrays = [a.astype(object) for a in arrays]
    both = np.concatenate(arrays)
    try:
        codes, uniques = pd.factorize(both, sort=False, use_na_sentinel=True)
    except TypeError:  # an object array holding lists, dicts, arrays...
        _raise_unhashable(arrays, names)
    uniques = np.asarray(uniques)
    bounds = np.cumsum([0] + [a.shape[0] for a in arrays])
    parts = [codes[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    for name, part in zip(names, parts):
        missing = int(np.count_nonzero(part < 0))
        if missing:
            raise InputError(f"{name} contains {missing} missing value(s) (None, NaN or "
                             "NA); class labels must all be present")
    if uniques.dtype.kind == "O":
        for name, part in zip(names, parts):
            seen = np.bincount(part, minlength=uniques.shape[0]) > 0
            object_label_category(uniques[seen], name)
        if len(names) > 1:
            object_label_category(uniques, " and ".join(names))
    try:
        order = np.argsort(uniques, kind="stable")
    except TypeError:
        raise InputError(f"{' and '.join(names)} mix label types that cannot be ordered "
                         "(e.g. strings and numbers)") from None
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    return uniques[order], tuple(rank[part] for part in parts)


def _raise_unhashable(arrays: Sequence[np.ndarray], names: Sequence[str]) -> None:
    for arr, name in zip(arrays, names):
        for value in arr:
            try:
                hash(value)
            except TypeError:
                raise InputError(f"{name} contains a {type(value).__name__} "
                                 f"({value!r:.60}) where a class label is expected; labels "
                                 "must be numbers, booleans or strings, one per sample (a "
                                 "multilabel target is a 2-D 0/1 indicator array)") from None
    raise InputError(f"{' and '.join(names)} hold values that cannot be class labels; "
                     "labels must be numbers, booleans or strings")


# ------------------------------------------------------------------ encoding

@dataclass(frozen=True)
class EncodedLabels:
    """Labels of one or more arrays as integer codes into shared sorted ``classes``."""

    classes: np.ndarray
    codes: tuple[np.ndarray, ...]

    @property
    def n_classes(self) -> int:
        return int(self.classes.shape[0])


def encode_labels(*named: tuple[str, Any]) -> EncodedLabels:
    """Encode several label arrays into codes over their shared sorted classes.

    Lengths are checked; integer labels of narrow range avoid hashing.

    Examples
    --------
    >>> enc = encode_labels(("y_true", [3, 7, 3]), ("y_pred", [7, 9, 9]))
    >>> enc.classes.tolist(), [c.tolist() for c in enc.codes]
    ([3, 7, 9], [[0, 1, 0], [1, 2, 2]])
    """
    arrays = [label_array(a, name=n) for n, a in named]
    names = [n for n, _ in named]
    check_consistent_length(*zip(names, arrays))
    found = _integer_range(list(zip(names, arrays)))
    if found is not None and found[2] - found[1] < _MAX_DIRECT_SPAN:
        ints, lo, hi = found
        present = np.zeros(hi - lo + 1, dtype=bool)
        offsets = [np.subtract(a, lo, dtype=np.intp, casting="unsafe") for a in ints]
        for off in offsets:
            present |= np.bincount(off, minlength=present.shape[0]) > 0
        if present.all():  # every value in the range occurs: the offsets are the codes
            return EncodedLabels(_present_classes(present, lo, arrays), tuple(offsets))
        lut = np.cumsum(present) - 1
        return EncodedLabels(_present_classes(present, lo, arrays),
                             tuple(lut[off] for off in offsets))
    return EncodedLabels(*_factorize(arrays, names))


def encode_ids(ids: np.ndarray, name: str) -> tuple[np.ndarray, int]:
    """Codes 0..C-1 of identifiers (from :func:`~dartboard._validation.id_array`) over
    their sorted distinct values, and C.

    Integer, boolean and string ids take :func:`encode_labels` (its order and its fast
    path); any other ids (floats such as 0.5, tuples, objects) are sorted as numpy sorts
    them, so the ids of a streamed evaluation, encoded here too, meet the same codes.

    Examples
    --------
    >>> codes, n = encode_ids(np.array([1.5, 0.5, 1.5]), "clusters")
    >>> codes.tolist(), n
    ([1, 0, 1], 2)
    """
    dense = _dense_codes(ids)
    if dense is not None:
        return dense
    if ids.dtype.kind in "iubUS":
        encoded = encode_labels((name, ids))
        return encoded.codes[0].astype(np.intp), int(encoded.classes.shape[0])
    try:
        uniques, codes = np.unique(ids, return_inverse=True)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in ids.tolist()[:1000]})
        raise InputTypeError(f"{name} mixes ids that cannot be ordered ({', '.join(kinds)}); "
                             "use one type") from None
    return codes.reshape(-1).astype(np.intp), int(uniques.shape[0])


def _dense_codes(ids: np.ndarray) -> tuple[np.ndarray, int] | None:
    """``(ids, C)`` when the ids already are codes: integers holding every value of
    ``0..C-1`` (an engine's own codes, handed on), whose sorted distinct values are
    themselves, so :func:`encode_ids` would return them unchanged; None otherwise.
    Costs two passes instead of a hash or a sort."""
    if ids.dtype.kind not in "iu" or ids.ndim != 1 or ids.shape[0] == 0:
        return None
    low, high = int(ids.min()), int(ids.max())
    if low != 0 or high >= ids.shape[0]:
        return None
    if not np.bincount(ids, minlength=high + 1).all():
        return None
    return ids.astype(np.intp), high + 1  # a copy: the codes are never the input


# ------------------------------------------------------------------ counting

def count_label_pairs(y_true: np.ndarray, y_pred: np.ndarray,
                      sample_weight: np.ndarray | None = None,
                      *, names: tuple[str, str] = ("y_true", "y_pred")
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Count (true, predicted) label pairs: return ``(classes, matrix)``.

    ``classes`` are the sorted distinct labels of both arrays; ``matrix[i, j]`` is
    the number (or total weight) of samples with true label ``classes[i]`` and
    predicted label ``classes[j]``. Inputs must come from
    :func:`~dartboard._validation.label_array`.

    Examples
    --------
    >>> classes, matrix = count_label_pairs(np.array([3, 7, 7]), np.array([3, 3, 7]))
    >>> classes.tolist(), matrix.tolist()
    ([3, 7], [[1, 0], [1, 1]])
    """
    found = _integer_range(list(zip(names, (y_true, y_pred))))
    if found is not None:
        (t, p), lo, hi = found
        span = hi - lo + 1
        if lo == 0 and hi <= 1 and sample_weight is None:
            return _count_binary01(t, p, y_true, y_pred)
        if span <= _MAX_DIRECT_SPAN and span * span <= max(4096, 4 * y_true.shape[0]):
            return _count_direct(t, p, lo, span, sample_weight, y_true, y_pred)
    return _count_hashed(y_true, y_pred, sample_weight, names)


def _count_binary01(t: np.ndarray, p: np.ndarray, y_true: np.ndarray,
                    y_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = t.shape[0]
    n_t1 = np.count_nonzero(t)
    n_p1 = np.count_nonzero(p)
    if t.dtype.itemsize >= 8 and p.dtype.itemsize >= 8:
        tp = int(np.dot(t, p))  # int64 dot cannot overflow below 2**63 samples
    else:
        tp = int(np.count_nonzero(t & p))
    matrix = np.array([[n - n_t1 - n_p1 + tp, n_p1 - tp], [n_t1 - tp, tp]], dtype=np.int64)
    present = np.array([n_t1 < n or n_p1 < n, n_t1 > 0 or n_p1 > 0])
    return _present_classes(present, 0, (y_true, y_pred)), matrix[np.ix_(present, present)]


def _count_direct(t: np.ndarray, p: np.ndarray, lo: int, span: int,
                  w: np.ndarray | None, y_true: np.ndarray,
                  y_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # Pair codes (t - lo) * span + (p - lo) are built and counted block by block:
    # the block stays in cache and no n-sized temporary is allocated.
    t, p = (a.view(np.int64) if a.dtype == np.uint64 else a for a in (t, p))  # < 2**62
    n, size = t.shape[0], span * span
    counts = np.zeros(size, dtype=np.int64)
    sums = None if w is None else np.zeros(size, dtype=np.float64)
    buf = np.empty(min(n, _COUNT_BLOCK), dtype=np.intp)
    for start in range(0, n, _COUNT_BLOCK):
        stop = min(start + _COUNT_BLOCK, n)
        joint = buf[:stop - start]
        if t.dtype == np.intp and lo == 0:
            np.multiply(t[start:stop], span, out=joint)
        else:
            joint[...] = t[start:stop]
            if lo:
                joint -= lo
            joint *= span
        joint += p[start:stop]
        if lo:
            joint -= lo
        counts += np.bincount(joint, minlength=size)
        if sums is not None and w is not None:
            sums += np.bincount(joint, weights=w[start:stop], minlength=size)
    square: np.ndarray = counts.reshape(span, span)
    # classes seen only with zero weight still get a row and column, as in sklearn
    present = (square.sum(axis=0) + square.sum(axis=1)) > 0
    if sums is not None and w is not None:
        square = _weight_totals(sums, w).reshape(span, span)
    return (_present_classes(present, lo, (y_true, y_pred)),
            square[np.ix_(present, present)])


def _weight_totals(sums: np.ndarray, w: np.ndarray) -> np.ndarray:
    # Integer weights give integer counts, as scikit-learn's confusion_matrix does,
    # while every float64 sum is exact (total |weight| below 2**53). Larger totals
    # would round, then wrap around in int64: they stay float64, as the weighted
    # sums of scikit-learn's other metrics are.
    if w.dtype.kind in "iu" and integer_counts_fit(np.abs(w, dtype=np.float64).sum()):
        return sums.astype(np.int64)
    return sums


def integer_counts_fit(total: float) -> bool:
    """Whether integer counts (or weights) adding up to ``total`` stay exact both as
    int64 and through float64 sums; larger totals are kept as float64."""
    return bool(total < _EXACT_FLOAT_INT)


def _count_hashed(y_true: np.ndarray, y_pred: np.ndarray, w: np.ndarray | None,
                  names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    classes, (t, p) = _factorize((y_true, y_pred), names)
    k = classes.shape[0]
    joint = t.astype(np.intp) * k + p
    if w is None:
        counts = np.bincount(joint, minlength=k * k)
    else:
        counts = _weight_totals(np.bincount(joint, weights=w, minlength=k * k), w)
    return classes, counts.reshape(k, k)


# ------------------------------------------------------------------ multilabel indicators

def _as_dense(y: Any, name: str) -> np.ndarray:
    from dartboard._validation import to_numpy

    if type(y).__module__.startswith("scipy.sparse"):
        y = y.toarray()  # an indicator matrix is small per row: densify it
    return to_numpy(y, name=name)


def indicator_pair(y_true: Any, y_pred: Any, *, names: tuple[str, str] = ("y_true", "y_pred")
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """Two multilabel indicator arrays of shape (n, L) as bool, or None for labels.

    An array with two dimensions and more than one column is an indicator array (a
    single column is a column of labels); it must hold only 0 and 1 (or booleans),
    and both arguments must be one, of the same shape: a mix raises ``ValueError``
    (scikit-learn's class).
    """
    arrays = [_as_dense(y, n) for y, n in zip((y_true, y_pred), names)]
    multi = [a.ndim == 2 and a.shape[1] > 1 for a in arrays]
    if not any(multi):
        return None
    if not all(multi):
        which = names[multi.index(True)]
        raise InputError(f"Classification metrics can't handle a mix of multilabel-indicator "
                         f"and single-label targets: {which} is a 2-D indicator array, the "
                         "other a column of labels")
    for a, name in zip(arrays, names):
        if not _zeros_and_ones(a):
            raise InputError(f"{name} is 2-D but not a multilabel indicator array of 0 and 1 "
                             "(multiclass-multioutput targets are not supported)")
    if arrays[0].shape != arrays[1].shape:
        raise InputError(f"{names[0]} and {names[1]} must have the same shape; got "
                         f"{arrays[0].shape} and {arrays[1].shape}")
    if arrays[0].shape[0] == 0:
        raise InputError(f"{names[0]} is empty; at least one sample is required")
    # one byte per entry: the counting passes that follow read 8x less than int64
    t, p = (a if a.dtype == bool else a.astype(bool) for a in arrays)
    return t, p


def _zeros_and_ones(a: np.ndarray) -> bool:
    kind = a.dtype.kind
    if kind == "b":
        return True
    if kind in "iu":  # as unsigned, a negative value is huge: one comparison pass
        return bool((a.view(a.dtype.newbyteorder("=").str.replace("i", "u")) <= 1).all())
    if kind in "fO":
        return bool(((a == 0) | (a == 1)).all())
    return False


def count_indicator_pairs(t: np.ndarray, p: np.ndarray, w: np.ndarray | None = None
                          ) -> np.ndarray:
    """Per-label 2 x 2 matrices ``[[TN, FP], [FN, TP]]`` of indicator arrays (n, L).

    Column sums of ``t``, ``p`` and ``t & p`` (three passes, no sort, no hashing);
    weighted: the same sums as products with ``w``.
    """
    both = t & p
    if w is None:  # column by column: numpy's count along a short axis is slow
        tp, t_sum, p_sum = (np.array([np.count_nonzero(a[:, c]) for c in range(a.shape[1])],
                                     dtype=np.int64) for a in (both, t, p))
        total = t.shape[0]
    else:
        wf = w.astype(np.float64, copy=False)
        tp, t_sum, p_sum = (wf @ a for a in (both, t, p))
        total = wf.sum()
        if w.dtype.kind in "iu" and integer_counts_fit(np.abs(wf).sum()):
            tp, t_sum, p_sum = (np.rint(a).astype(np.int64) for a in (tp, t_sum, p_sum))
            total = int(w.sum())
    fp, fn = p_sum - tp, t_sum - tp
    out = np.empty((t.shape[1], 2, 2), dtype=np.result_type(tp, fp))
    out[:, 1, 1], out[:, 0, 1], out[:, 1, 0] = tp, fp, fn
    out[:, 0, 0] = total - tp - fp - fn
    return out


def _row_counts(a: np.ndarray) -> np.ndarray:
    """Ones per row of a 0/1 array (n, L): columns added, not a reduction along the
    short axis (slow in numpy)."""
    if a.shape[1] > 64:
        return a.sum(axis=1, dtype=np.int64)
    acc = np.zeros(a.shape[0], dtype=np.int64)
    for c in range(a.shape[1]):
        np.add(acc, a[:, c], out=acc, casting="unsafe")
    return acc


def indicator_sample_counts(t: np.ndarray, p: np.ndarray, w: np.ndarray | None = None
                            ) -> tuple[np.ndarray, np.ndarray]:
    """Distinct per-sample (TP, FP, FN) triples over the labels and their total weight.

    What every sample-wise multilabel metric (``average="samples"``, subset
    accuracy) is a function of, in a form that merges by adding weights.
    """
    both = t & p
    tp, fp, fn = _row_counts(both), _row_counts(p), _row_counts(t)
    fp -= tp
    fn -= tp
    span = t.shape[1] + 1
    code = (tp * span + fp) * span + fn  # at most span**3 distinct codes: count, not sort
    if span ** 3 > max(4096, 4 * code.shape[0]):  # many labels: compact the codes first
        uniq, code = np.unique(code, return_inverse=True)
        code = code.ravel()
    else:
        uniq = None
    seen = np.bincount(code, minlength=span ** 3 if uniq is None else uniq.shape[0])
    codes = np.flatnonzero(seen)
    if w is None:
        weight = seen[codes]
    else:
        weight = np.bincount(code, weights=w, minlength=span ** 3)[codes]
        if w.dtype.kind in "iu":
            weight = np.rint(weight).astype(np.int64)
    if uniq is not None:
        codes = uniq[codes]
    triples = np.stack([codes // (span * span), codes // span % span, codes % span], axis=1)
    return triples, weight
