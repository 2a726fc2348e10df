"""Input validation: one path from user input to checked numpy arrays.

Every public function of dartboard calls these helpers first and works on the clean
values they return. Each misuse raises one ``ValueError`` or ``TypeError`` whose
message names the argument, what was expected and what was received.

Accepted containers: lists and tuples, numpy arrays, pandas Series/Index/DataFrame
(one column where a vector is expected), polars Series/DataFrame and pyarrow
Array/ChunkedArray. Conversion avoids copies where the input already is a numpy
array of the right kind, so nothing downstream may write into what these helpers
return: an in-place step works on its own copy.

Missing values are refused, never skipped: a metric computed on fewer rows than
the caller passed, with rows dropped from one argument and not the others, is a
wrong number. So NaN in numeric input, ``None`` among labels, pandas ``NA`` in a
nullable or categorical column, pyarrow and polars nulls, and masked entries of a
``numpy.ma.MaskedArray`` all raise ``ValueError`` naming the argument and the
count. A masked array with no masked entry is its data.

Accepted dtypes: booleans, signed and unsigned integers of any width, floats of
any width (float16/float32 are widened to float64; long double is narrowed to
float64, and a value outside float64's range is refused rather than turned into
infinity or zero), pandas nullable and categorical columns, and object arrays of
numbers (or, for labels, strings). Anything else (complex, dates, object arrays
holding lists or other containers) raises ``TypeError`` naming the argument.

Label encoding and counting live in :mod:`dartboard._labels`; :func:`label_array`
here checks what they take.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from dartboard.exceptions import InputError, InputTypeError, InvalidParameterError

__all__ = [
    "as_float_array",
    "check_confidence_level",
    "check_consistent_length",
    "check_int",
    "check_labels_argument",
    "check_option",
    "check_real",
    "check_sample_weight",
    "check_zero_division",
    "column_1d",
    "describe",
    "group_array",
    "id_array",
    "label_array",
    "label_category",
    "rescaled_weights",
    "object_label_category",
    "rows_array",
    "to_float64",
    "to_numpy",
    "WEIGHT_RANGE",
]


def describe(x: Any) -> str:
    """Short description of a value for error messages (type, dtype and shape)."""
    if isinstance(x, np.ndarray):
        return f"array of dtype {x.dtype} and shape {x.shape}"
    shape = getattr(x, "shape", None)
    if shape is not None:
        return f"{type(x).__name__} of shape {tuple(shape)}"
    if isinstance(x, (list, tuple)):
        return f"{type(x).__name__} of length {len(x)}"
    return f"{type(x).__name__} {x!r}"[:120]


def to_numpy(x: Any, *, name: str) -> np.ndarray:
    """Convert an array-like container to a numpy array without validating content.

    Raises ``TypeError`` for ``None``, scalars, strings and unknown objects, and
    ``ValueError`` for missing values (masked entries, pandas NA, nulls).
    """
    if isinstance(x, np.ma.MaskedArray):  # before ndarray: it is a subclass
        return _unmasked(x, name=name)
    if isinstance(x, np.ndarray):
        return x
    if x is None or isinstance(x, (str, bytes, numbers.Number, bool, np.generic)):
        raise InputTypeError(f"{name} must be array-like (list, numpy array, pandas, polars "
                             f"or pyarrow column); got {describe(x)}")
    module = type(x).__module__.split(".")[0]
    if module in _FRAME_READERS:
        return _FRAME_READERS[module](x, name=name)
    if isinstance(x, (set, frozenset, dict)):
        raise InputTypeError(f"{name} must be an ordered array-like (list, numpy array, pandas, "
                             f"polars or pyarrow column); got a {type(x).__name__}, which has "
                             "no sample order")
    if isinstance(x, (list, tuple)) or hasattr(x, "__array__") or isinstance(x, Iterable):
        return _sequence_to_numpy(x, name=name)
    raise InputTypeError(f"{name} must be array-like; got {describe(x)}")


def _sequence_to_numpy(x: Any, *, name: str) -> np.ndarray:
    """A list, tuple, array-like or iterable as an array; ragged rows refused, and a
    list mixing strings with other values kept as objects (so the mix is reported)."""
    try:
        arr = np.asarray(x if isinstance(x, (list, tuple)) or hasattr(x, "__array__")
                         else list(x))
    except ValueError as exc:  # ragged nested lists
        raise InputError(f"{name} could not be converted to an array: {exc}") from None
    if arr.dtype.kind == "O" and arr.ndim > 1:
        raise InputError(f"{name} is ragged (rows of different lengths)")
    if arr.dtype.kind in "US" and arr.ndim == 1 and isinstance(x, (list, tuple)) \
            and not all(isinstance(v, (str, bytes)) for v in x):
        # numpy turns [1, "a"] into strings; keep the values so mixing is reported
        arr = np.empty(len(x), dtype=object)
        arr[:] = x
    return arr


def _arrow_to_numpy(x: Any, *, name: str) -> np.ndarray:
    if hasattr(x, "null_count") and x.null_count:
        raise InputError(f"{name} contains {x.null_count} missing value(s) (nulls); "
                         "remove or impute them first")
    if hasattr(x, "column_names"):  # pyarrow Table / RecordBatch
        return np.column_stack([c.to_numpy() for c in x.columns]) if x.num_columns > 1 \
            else x.column(0).to_numpy()
    return np.asarray(x.to_numpy(zero_copy_only=False))


def _polars_to_numpy(x: Any, *, name: str) -> np.ndarray:
    if hasattr(x, "null_count"):
        nulls = x.null_count()
        nulls = int(nulls.sum_horizontal()[0]) if hasattr(nulls, "sum_horizontal") \
            else int(nulls)
        if nulls:
            raise InputError(f"{name} contains {nulls} missing value(s) (nulls); "
                             "remove or impute them first")
    return np.asarray(x.to_numpy())


def _unmasked(x: np.ma.MaskedArray, *, name: str) -> np.ndarray:
    # honouring the mask in one argument only would misalign it with the others,
    # so masked entries are refused like every other kind of missing value
    masked = int(np.ma.count_masked(x))
    if masked:
        raise InputError(f"{name} is a masked array with {masked} masked value(s); "
                         "masked entries are not skipped: drop those rows from every "
                         "argument or fill them first")
    return np.ma.getdata(x)


def _pandas_to_numpy(x: Any, *, name: str) -> np.ndarray:
    import pandas as pd

    if isinstance(x, (pd.Index, pd.api.extensions.ExtensionArray)):
        # a bare column (pd.Categorical, pd.array(...), an Index) reads as the Series of
        # the same values: the paths below ask a Series' accessors (``.cat``, ``.isna``)
        x = pd.Series(x, copy=False)
    if isinstance(x, pd.DataFrame):
        if any(isinstance(d, pd.CategoricalDtype) for d in x.dtypes):
            x = x.apply(lambda c: c.astype(c.cat.categories.dtype)
                        if isinstance(c.dtype, pd.CategoricalDtype) else c)
        missing = int(x.isna().to_numpy().sum()) if any(
            pd.api.types.is_extension_array_dtype(d) for d in x.dtypes) else 0
        if missing:
            raise InputError(f"{name} contains {missing} missing value(s) (NA); "
                             "remove or impute them first")
        return x.to_numpy()
    if isinstance(x.dtype, pd.CategoricalDtype):
        x = x.astype(x.cat.categories.dtype) if not x.isna().any() else x
    if pd.api.types.is_extension_array_dtype(x.dtype):
        missing = int(x.isna().sum())
        if missing:
            raise InputError(f"{name} contains {missing} missing value(s) (NA); "
                             "remove or impute them first")
        kind = getattr(x.dtype, "numpy_dtype", None)
        return x.to_numpy(dtype=kind) if kind is not None else x.to_numpy()
    return x.to_numpy()


#: the columns and tables of each data-frame library, by the top module of their type
_FRAME_READERS: dict[str, Callable[..., np.ndarray]] = {
    "pandas": _pandas_to_numpy, "pyarrow": _arrow_to_numpy, "polars": _polars_to_numpy}


def column_1d(x: Any, *, name: str, allow_empty: bool = False) -> np.ndarray:
    """Return ``x`` as a 1-D numpy array; a single column (n, 1) is flattened."""
    arr = to_numpy(x, name=name)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise InputError(f"{name} must be 1-D (one value per sample); got an array of "
                         f"shape {arr.shape}")
    if not allow_empty and arr.shape[0] == 0:
        raise InputError(f"{name} is empty; at least one sample is required")
    return arr


def rows_array(x: Any, *, name: str) -> np.ndarray:
    """``x`` as one row per sample (1-D, or 2-D with a column per label, class or
    output; a single column is a column of values, as in the metrics), none
    missing: what an engine hands to a metric that may be a user's callable, which
    would otherwise see NaN, ``None`` or ``pd.NA`` (skipped or propagated, depending
    on its code), an (n, 1) matrix or a 3-D array."""
    arr = to_numpy(x, name=name)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim not in (1, 2):
        raise InputError(f"{name} must be 1-D or 2-D (one row per sample); got an array "
                         f"of shape {arr.shape}")
    if arr.shape[0] == 0:
        raise InputError(f"{name} is empty; at least one sample is required")
    _refuse_complex(arr, name)
    if arr.dtype.kind == "f":
        _check_finite(arr, name)
    elif arr.dtype.kind == "O":
        import pandas as pd

        missing = int(pd.isna(arr).sum())
        if missing:
            raise InputError(f"{name} contains {missing} missing value(s) (None, NaN or NA); "
                             "remove or impute them first")
    return arr


def check_consistent_length(*named: tuple[str, Any]) -> int:
    """Check that named arrays share their first dimension; return it."""
    lengths = [(name, len(a)) for name, a in named if a is not None]
    if len({n for _, n in lengths}) > 1:
        listing = ", ".join(f"{name} has {n}" for name, n in lengths)
        raise InputError(f"inconsistent numbers of samples: {listing}")
    return lengths[0][1] if lengths else 0


def as_float_array(x: Any, *, name: str, ndim: int | tuple[int, ...] = 1,
                   allow_nan: bool = False, allow_empty: bool = False) -> np.ndarray:
    """Return ``x`` as a float64 array with the given number(s) of dimensions.

    Integer and boolean input is converted; strings and objects raise
    ``TypeError``; NaN and infinity raise ``ValueError`` unless ``allow_nan``.
    """
    arr = to_numpy(x, name=name)
    ndims = (ndim,) if isinstance(ndim, int) else ndim
    if arr.ndim == 2 and arr.shape[1] == 1 and 1 in ndims and 2 not in ndims:
        arr = arr[:, 0]
    if arr.ndim not in ndims:
        expected = " or ".join(f"{d}-D" for d in ndims)
        raise InputError(f"{name} must be {expected}; got an array of shape {arr.shape}")
    _refuse_complex(arr, name)
    if arr.dtype.kind not in "biufO":
        raise InputTypeError(f"{name} must be numeric; got dtype {arr.dtype}")
    arr = to_float64(arr, name=name)
    if not allow_empty and arr.size == 0:
        raise InputError(f"{name} is empty; at least one sample is required")
    if not allow_nan:
        _check_finite(arr, name)
    return arr


def to_float64(arr: np.ndarray, *, name: str) -> np.ndarray:
    """``arr`` (bool, integer, float or object of numbers) as float64.

    Long double values beyond float64's range would silently become infinity
    (or a positive weight zero); they raise ``ValueError`` instead.
    """
    if arr.dtype == np.float64:
        return arr
    if arr.dtype.kind == "O":
        return _object_to_float64(arr, name=name)
    if arr.dtype.kind != "f" or arr.dtype.itemsize <= 8:
        return arr.astype(np.float64)
    with np.errstate(over="ignore", under="ignore"):
        out = arr.astype(np.float64)
        lost = (np.isinf(out) & np.isfinite(arr)) | ((out == 0) & (arr != 0))
        if lost.any():
            raise InputError(f"{name} holds {arr.dtype} values outside the range of "
                             f"float64 (e.g. {arr[lost][0]!r}); scale them first")
    return out


def _object_to_float64(arr: np.ndarray, *, name: str) -> np.ndarray:
    import pandas as pd

    # numpy would parse "0.5" as a number: text among numbers is a misread column
    kind = pd.api.types.infer_dtype(arr.ravel(), skipna=True) if arr.size else "empty"
    if kind in ("string", "bytes") or (kind in ("mixed", "mixed-integer") and any(
            isinstance(v, (str, bytes)) for v in arr.ravel())):
        raise InputTypeError(f"{name} must be numeric; got dtype object holding text "
                             "(numbers read as strings?); convert it to numbers first")
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError):
        raise InputTypeError(f"{name} must be numeric; got values of dtype object "
                             "that are not numbers") from None


def _check_finite(arr: np.ndarray, name: str) -> None:
    # sum() is one fast pass; only when it is not finite do we look closer.
    if arr.dtype.kind == "f" and not np.isfinite(arr.sum()):
        n_nan = int(np.isnan(arr).sum())
        n_inf = int(np.isinf(arr).sum())
        if n_nan or n_inf:
            what = " and ".join(s for s in (f"{n_nan} NaN" if n_nan else "",
                                            f"{n_inf} infinite" if n_inf else "") if s)
            raise InputError(f"{name} contains {what} value(s); all values must be finite")


def _refuse_complex(arr: np.ndarray, name: str) -> None:
    # scikit-learn raises ValueError for complex input; so does dartboard
    if arr.dtype.kind == "c" or (arr.dtype.kind == "O" and any(
            isinstance(v, complex) for v in arr.ravel()[:1000])):
        raise InputError(f"{name} must be real numbers; got complex values (Complex data "
                         "not supported)")


def check_sample_weight(sample_weight: Any, n_samples: int, *,
                        name: str = "sample_weight", allow_negative: bool = False,
                        scale_free: bool = False) -> np.ndarray | None:
    """Validate sample weights: 1-D, finite, one per sample; non-negative unless
    ``allow_negative``.

    Returns ``None`` when ``sample_weight`` is ``None``. Integer weights keep an
    integer dtype so that weighted counts stay integers (as scikit-learn does);
    float weights of any width, and object arrays of numbers, become float64.
    The metric functions allow negative weights, as scikit-learn's do (a
    weighted sum is defined for any real weights); resampling (intervals,
    comparisons) needs weights that are masses and refuses them.

    ``scale_free``: the caller computes a ratio of weighted sums, which does not
    change when every weight is multiplied by the same number. Float weights whose
    largest magnitude lies outside [2**-100, 2**100] are then multiplied by the power
    of two that brings it into [0.5, 1): exact, and it keeps products of weighted
    sums (MCC, kappa, AUC's pair counts) from under- or overflowing. Denormal
    weights (1e-320) would otherwise give nan or 0, and weights near 1e308 inf.
    """
    if sample_weight is None:
        return None
    w = column_1d(sample_weight, name=name, allow_empty=True)
    _refuse_complex(w, name)
    if w.dtype.kind == "b":
        w = w.astype(np.int64)
    if w.dtype.kind not in "iufO":
        raise InputTypeError(f"{name} must be numeric; got dtype {w.dtype}")
    if w.dtype.kind in "fO":
        w = to_float64(w, name=name)
    if w.shape[0] != n_samples:
        raise InputError(f"{name} must have one weight per sample ({n_samples}); "
                         f"got {w.shape[0]}")
    if w.dtype.kind == "f":
        _check_finite(w, name)
    if not allow_negative and w.size and w.min() < 0:
        raise InputError(f"{name} must be non-negative; got a minimum of {w.min()}")
    return rescaled_weights(w) if scale_free else w


#: float weights whose largest magnitude lies in this range are used as they are
WEIGHT_RANGE = (2.0 ** -100, 2.0 ** 100)


def rescaled_weights(w: np.ndarray) -> np.ndarray:
    """Checked weights times the power of two that brings their largest magnitude into
    [0.5, 1) when it lies outside ``WEIGHT_RANGE`` (see :func:`check_sample_weight`);
    integer weights and weights inside the range unchanged (no copy)."""
    if w.dtype.kind != "f" or not w.size:
        return w
    largest = float(np.max(np.abs(w)))
    if largest == 0.0 or WEIGHT_RANGE[0] <= largest <= WEIGHT_RANGE[1]:
        return w
    with np.errstate(under="ignore"):  # weights 2**-1074 times the largest: no mass
        return np.ldexp(w, -np.frexp(largest)[1])


def check_option(value: Any, name: str, options: Sequence[Any]) -> Any:
    """Check that ``value`` is one of ``options`` (compared with ``==``)."""
    for opt in options:
        if (value is None and opt is None) or (value is not None and opt is not None
                                               and type(value) is type(opt) and value == opt):
            return value
    raise InputError(f"{name} must be one of {list(options)!r}; got {value!r}")


def check_int(value: Any, name: str, *, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """Check that ``value`` is an integer (not a bool) within bounds."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputTypeError(f"{name} must be an integer; got {describe(value)}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise InputError(f"{name} must be at least {minimum}; got {value}")
    if maximum is not None and value > maximum:
        raise InputError(f"{name} must be at most {maximum}; got {value}")
    return value


def check_confidence_level(confidence_level: Any) -> float:
    """Check that the confidence level is a number strictly between 0 and 1."""
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real):
        raise InputTypeError(f"confidence_level must be a number in (0, 1); got "
                             f"{describe(confidence_level)}")
    level = float(confidence_level)
    if not 0.0 < level < 1.0:
        raise InputError(f"confidence_level must be strictly between 0 and 1; got {level}")
    return level


def check_zero_division(zero_division: Any) -> Any:
    """Validate scikit-learn's ``zero_division``: "warn", 0, 1 or nan."""
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return zero_division
    elif isinstance(zero_division, numbers.Real) and not isinstance(zero_division, bool):
        if zero_division in (0, 1) or np.isnan(float(zero_division)):
            return float(zero_division)
    raise InputError(f"zero_division must be 'warn', 0.0, 1.0 or np.nan; got {zero_division!r}")


# --------------------------------------------------------------------------- labels

def label_category(arr: np.ndarray) -> str:
    """'number' or 'string' for a label array (object arrays are checked later)."""
    kind = arr.dtype.kind
    if kind in "biuf":
        return "number"
    if kind in "US":
        return "string"
    if kind == "O":
        return "object"
    raise InputTypeError(f"labels must be numbers, booleans or strings; got dtype {arr.dtype}")


def label_array(y: Any, *, name: str) -> np.ndarray:
    """Return 1-D class labels, checked: no missing values, no continuous floats.

    Integral floats (0.0, 1.0) are accepted as labels, like scikit-learn does.
    """
    arr = column_1d(y, name=name)
    kind = arr.dtype.kind
    if kind == "f":
        _check_finite(arr, name)
        if np.any(np.mod(arr, 1)):
            raise InputError(f"{name} contains continuous values (e.g. "
                             f"{arr[np.mod(arr, 1) != 0][0]!r}); classification metrics "
                             "need discrete class labels. For scores or probabilities use "
                             "the ranking metrics (roc_auc_score, ...)")
        # integral values below 2**53 are exact in float64, which pandas indexes and
        # hash tables know (float16 and long double they do not)
        with np.errstate(over="ignore"):
            wide = arr.astype(np.float64, copy=False)
        big = np.abs(wide) >= 2.0**53  # beyond this, floats are not exact integers
        if big.any():
            raise InputError(f"{name} contains float labels too large to be exact class "
                             f"labels (e.g. {arr[big][0]!r}); use integer or string labels")
        arr = wide
    elif kind == "c":  # scikit-learn's class for complex data
        raise InputError(f"{name} must hold class labels (numbers, booleans or strings); "
                         f"got dtype {arr.dtype} (Complex data not supported)")
    elif kind in "mMV":
        raise InputTypeError(f"{name} must hold class labels (numbers, booleans or strings); "
                             f"got dtype {arr.dtype}")
    else:
        label_category(arr)
    return arr


def group_array(x: Any, *, name: str) -> np.ndarray:
    """Return 1-D group labels with none missing (a point without a group would
    otherwise form a group of its own or vanish, depending on the code path) and
    each a value that can name a group (a list or a dict cannot: ``TypeError``)."""
    arr = column_1d(x, name=name)
    if arr.dtype.kind in "fO":
        import pandas as pd

        missing = int(pd.isna(arr).sum())
        if missing:
            raise InputError(f"{name} contains {missing} missing value(s) (None or NaN); "
                             "give every sample a group")
        if arr.dtype.kind == "O":
            try:
                pd.unique(arr)  # one hashing pass: lists, dicts and arrays fail it
            except TypeError:
                bad = next(v for v in arr.tolist() if not _hashable(v))
                raise InputTypeError(f"{name} holds values that cannot name a group, such as "
                                     f"{describe(bad)}; one label (number or string) per "
                                     "sample") from None
    return arr


def id_array(x: Any, *, name: str, noun: str) -> np.ndarray:
    """Return 1-D identifiers (the ``noun`` of each row: its cluster, its stratum).

    An identifier only says which rows belong together, so any hashable value is one:
    integers, strings, floats such as 0.5, tuples (a list of tuples is one id per row,
    not a matrix), booleans. Refused: a missing id (None or NaN: the row would silently
    join a cluster of the missing or leave the evaluation) and an unhashable one.

    Examples
    --------
    >>> id_array([0.5, 1.5, 0.5], name="clusters", noun="cluster").tolist()
    [0.5, 1.5, 0.5]
    >>> id_array([("a", 1), ("b", 2)], name="clusters", noun="cluster").tolist()
    [('a', 1), ('b', 2)]
    """
    if isinstance(x, (list, tuple)) and x and all(isinstance(v, tuple) for v in x):
        arr = np.empty(len(x), dtype=object)
        arr[:] = list(x)
    else:
        arr = column_1d(x, name=name)
    if arr.dtype.kind in "fcOmM":
        import pandas as pd

        missing = int(np.count_nonzero(pd.isna(arr)))
        if missing:
            raise InputError(f"{name} contains {missing} missing value(s) (None or NaN); "
                             f"give every row its {noun}")
    if arr.dtype.kind == "O":
        bad = next((v for v in arr.tolist() if not _hashable(v)), None)
        if bad is not None:
            raise InputTypeError(f"{name} holds values that cannot identify a {noun}, such "
                                 f"as {describe(bad)}; one hashable id (number, string, "
                                 "tuple) per row")
    return arr


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def object_label_category(uniques: np.ndarray, name: str) -> str:
    """'number' or 'string' for the distinct values of an object array, checked."""
    kinds = set()
    for u in uniques:
        if u is None or (isinstance(u, float) and np.isnan(u)):
            raise InputError(f"{name} contains missing values (None or NaN); class labels "
                             "must all be present")
        if isinstance(u, (str, np.str_)):
            kinds.add("string")
        elif isinstance(u, (numbers.Number, np.generic)) and not isinstance(u, complex):
            if isinstance(u, (float, np.floating)) and float(u) % 1:
                raise InputError(f"{name} contains continuous values (e.g. {u!r}); "
                                 "classification metrics need discrete class labels")
            kinds.add("number")
        else:
            raise InputError(f"{name} contains a label of unsupported type "
                             f"{type(u).__name__} ({u!r})")
    if len(kinds) > 1:
        raise InputError(f"{name} mixes string and number labels (Mix of label input types "
                         "(string and number)); use one type of label")
    return kinds.pop() if kinds else "number"


def check_labels_argument(labels: Any, *, name: str = "labels") -> np.ndarray | None:
    """Validate a user-given list of labels: 1-D, non-empty, no duplicates."""
    if labels is None:
        return None
    arr = column_1d(labels, name=name, allow_empty=True)
    if arr.shape[0] == 0:
        raise InputError(f"{name} must contain at least one label; got an empty list")
    if arr.dtype.kind == "O":
        object_label_category(arr, name)
    try:
        uniq = np.unique(arr)
    except TypeError:
        raise InputError(f"{name} mixes string and number labels") from None
    if uniq.shape[0] != arr.shape[0]:
        raise InputError(f"{name} contains duplicated labels: {arr.tolist()!r}")
    return arr


def check_real(value: Any, name: str, *, minimum: float | None = None,
               maximum: float | None = None, open_minimum: bool = False,
               open_maximum: bool = False) -> float:
    """Check that ``value`` is a finite real number (not a bool) within bounds.

    ``open_minimum``/``open_maximum`` exclude the bound itself. Returns a float.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InputTypeError(f"{name} must be a real number; got {describe(value)}")
    value = float(value)
    if not np.isfinite(value):
        raise InputError(f"{name} must be finite; got {value}")
    if minimum is not None and (value <= minimum if open_minimum else value < minimum):
        word = "greater than" if open_minimum else "at least"
        raise InputError(f"{name} must be {word} {minimum}; got {value}")
    if maximum is not None and (value >= maximum if open_maximum else value > maximum):
        word = "less than" if open_maximum else "at most"
        raise InputError(f"{name} must be {word} {maximum}; got {value}")
    return value


#: The most resamples (bootstrap replicates, random permutations) any path accepts.
#: Every path draws its replicates in memory-bounded batches, but keeps the resampled
#: statistics (the bootstrap or null distribution): at this maximum that is 800 MB of
#: float64 per distribution. Beyond it the Monte-Carlo error is negligible anyway.
MAX_RESAMPLES = 10**8


#: The most values one resampling run draws, replicates x values per replicate
#: (bins, data sets): drawn in memory-bounded batches, 10**9 draws take about a minute.
MAX_DRAWS = 10**9


def check_n_resamples(n_resamples: Any, name: str = "n_resamples", *, per_resample: int = 1,
                      per_name: str = "", held: str = "") -> int:
    """The one check of a resample count: an integer in [1, MAX_RESAMPLES], refused
    before anything is allocated.

    With ``per_resample`` (the values each replicate draws, described by
    ``per_name``) the product is at most MAX_DRAWS. A result that *holds*
    ``per_resample`` numbers for each resample (a curve band: some per grid point,
    named by ``held``) is held to the memory budget instead: ``n_resamples *
    per_resample`` float64 at most MAX_RESAMPLES.
    """
    if isinstance(n_resamples, (bool, np.bool_)) or not isinstance(n_resamples,
                                                                   numbers.Integral):
        raise InputTypeError(f"{name} must be an integer; got {describe(n_resamples)}")
    value = int(n_resamples)
    if value < 1:
        raise InputError(f"{name} must be at least 1; got {value}")
    if value > MAX_RESAMPLES:
        raise InputError(f"{name} must be at most {MAX_RESAMPLES:_} (the resampled "
                         f"statistics are kept in memory, 8 bytes each); got {value:_}")
    if held and value * per_resample > MAX_RESAMPLES:
        raise InputError(f"{name} x {held} must be at most {MAX_RESAMPLES:_} (the "
                         f"resampled statistics are kept in memory, 8 bytes each); got "
                         f"{value:_} x {per_resample:_} = {value * per_resample:_}")
    if not held and value * per_resample > MAX_DRAWS:
        raise InputError(f"{name} x {per_name} must be at most {MAX_DRAWS:_} values drawn; "
                         f"got {value:_} x {per_resample:_} = {value * per_resample:_}: "
                         f"lower {name} or {per_name}")
    return value


def check_bool(value: Any, name: str) -> bool:
    """A flag must be ``True`` or ``False`` (numpy's bools too), not any truthy object:
    ``normalize=None`` must not quietly mean ``False``."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{name} must be True or False; got {describe(value)}")
    return bool(value)


#: The most bins of a histogram (calibration bins, the binned streaming score range):
#: each bin holds a few float64 per class, allocated up front.
MAX_BINS = 10**8

#: The most members of a bootstrap ensemble (stability audits): each is a fitted model
#: with its own seed, and all their predictions are kept.
MAX_ESTIMATORS = 10**4
