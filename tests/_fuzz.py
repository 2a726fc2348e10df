"""Hostile-input fuzzing shared by tests/test_fuzz.py and benchmarks/fuzz_profile.py.

One case is: a registry metric, data of the kind it takes, and one way of handing the
data over (container, dtype, memory layout, extreme scale). ``run_case`` calls the
metric on the plain float64/int64 numpy form and on the variant and sorts the outcome:

- ``ok``: a number (or nan by the documented convention) equal to the plain answer;
- ``refused``: a ValueError or TypeError (the documented way to say no) where the
  plain form gave a number; ``refused by both`` when the plain form was refused too;
- ``crash``: any other exception;
- ``mutated``: the variant's input changed during the call;
- ``differs``: the variant gave another number than the plain form;
- ``sklearn``: the plain form disagrees with scikit-learn's same-named function where
  both return a number.
"""

from __future__ import annotations

import inspect
import math
import warnings
from typing import Any

import numpy as np

from dartboard.metrics._registry import specs

#: the evaluation metrics: every scalar metric a task reports by default
METRICS = [s for s in specs() if s.scalar and s.tasks]

CONTAINERS = ("list", "numpy", "readonly", "fortran2d", "strided", "masked", "pandas",
              "polars", "pyarrow")
WEIGHTS = ("none", "int", "float", "big", "tiny", "huge")
DTYPES = ("int8", "int32", "int64", "uint8", "uint64", "float16", "float32", "float64",
          "bool", "object")


#: words a clear refusal names: the argument at fault (or the option that decides it)
ARGUMENTS = ("y_true", "y_pred", "y_score", "y_proba", "y_prob", "sample_weight", "pos_label",
             "labels", "average", "multi_class", "y1", "y2", "class", "label")


def relabel(a: np.ndarray, how: str) -> np.ndarray:
    """Labels 0..K-1 moved to other values of the same order ("big": beyond 2**62)."""
    if how == "big":
        return a.astype(np.int64) + 2**62
    if how == "negative":
        return a.astype(np.int64) - 7
    if how == "huge":  # uint64 ids beyond the int64 range
        return a.astype(np.uint64) + np.uint64(2**63)
    return a


def weights(n: int, how: str, rng: np.random.Generator) -> np.ndarray | None:
    """Sample weights: none, small integers, floats, integers near the int64 range, or
    floats at the ends of float64's range (denormal, near its largest)."""
    if how == "int":
        return rng.integers(1, 5, n)
    if how == "float":
        return rng.random(n) + 0.1
    if how == "big":
        return np.full(n, 2**60, dtype=np.int64)
    if how == "tiny":
        return (rng.integers(1, 5, n) * 1e-321).astype(np.float64)  # denormal
    if how == "huge":
        return (rng.random(n) + 0.1) * 1e300
    return None


def unit_weights(w: np.ndarray | None) -> np.ndarray | None:
    """``w`` as float64 times the power of two bringing its largest value near 1: exact,
    and what a ratio of weighted sums cannot notice (scikit-learn's sums of denormal or
    huge weights under- or overflow, dartboard rescales: the oracle gets them rescaled)."""
    if w is None:
        return None
    w = np.asarray(w, dtype=np.float64)
    largest = float(np.max(np.abs(w))) if w.size else 0.0
    if largest == 0.0 or 2.0**-100 <= largest <= 2.0**100:
        return w
    return np.ldexp(w, -int(np.frexp(largest)[1]))


def make_data(spec: Any, rng: np.random.Generator, n: int, n_classes: int
              ) -> tuple[np.ndarray, np.ndarray]:
    """Plain (y_true, other) for ``spec``: labels, scores, probabilities or values."""
    if spec.input == "values":
        y = rng.normal(size=n) * 10 + 5
        return y, y + rng.normal(size=n)
    k = n_classes if spec.input == "labels" and "multiclass" in spec.tasks else 2
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    if spec.input == "labels":
        return y, np.where(rng.random(n) < 0.7, y, rng.integers(0, k, n))
    if spec.input == "scores":
        return y, np.round(rng.random(n) + 0.3 * y, 3)
    return y, np.clip(np.round(rng.random(n) * 0.6 + 0.4 * y, 3), 0.0, 1.0)


def _cast(a: np.ndarray, dtype: str) -> np.ndarray | None:
    """``a`` as ``dtype`` when that loses nothing, else None (the case does not apply)."""
    if dtype == "object":
        return a.astype(object)
    if dtype == "bool":
        return a.astype(bool) if np.isin(a, (0, 1)).all() else None
    target = np.dtype(dtype)
    if target.kind in "iu":
        if a.dtype.kind == "f" and np.any(np.mod(a, 1)):
            return None
        info = np.iinfo(target)
        if a.min() < info.min or a.max() > info.max:
            return None
    with np.errstate(over="ignore", invalid="ignore"):
        out = a.astype(target)
        back = out.astype(a.dtype)
    return out if np.array_equal(back, a) else None


def wrap(a: np.ndarray, container: str) -> Any:
    """``a`` handed over in ``container`` (the same values)."""
    if container == "list":
        return a.tolist()
    if container == "numpy":
        return a.copy()
    if container == "readonly":
        b = a.copy()
        b.setflags(write=False)
        return b
    if container == "fortran2d":
        return np.asfortranarray(np.stack([a, a], axis=1))[:, 0]
    if container == "strided":
        b = np.repeat(a, 2)
        return b[::2]
    if container == "masked":
        return np.ma.array(a.copy(), mask=False)
    if container == "pandas":
        import pandas as pd

        return pd.Series(a)
    if container == "polars":
        import polars as pl

        return pl.Series(a.tolist()) if a.dtype.kind == "O" else pl.Series(a)
    import pyarrow as pa

    return pa.array(a.tolist()) if a.dtype.kind == "O" else pa.array(a)


def _snapshot(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, list):
        return list(x)
    return None


def _same_input(before: Any, after: Any) -> bool:
    if before is None:
        return True
    if isinstance(before, np.ndarray):
        return before.dtype == after.dtype and np.array_equal(before, after, equal_nan=True) \
            if before.dtype.kind == "f" else np.array_equal(before, after)
    return before == after


def _equal(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def call(func: Any, *args: Any, **kw: Any) -> tuple[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = func(*args, **kw)
        except (ValueError, TypeError) as exc:
            return "refused", exc
        except Exception as exc:  # noqa: BLE001 - the point is to catch every crash
            return "crash", exc
    try:
        return "ok", float(value)
    except (TypeError, ValueError) as exc:
        return "crash", exc


def run_case(spec: Any, y: np.ndarray, other: np.ndarray, container: str, dtype: str,
             scale: float = 1.0, labels: str = "none", w: np.ndarray | None = None
             ) -> tuple[str, str]:
    """The outcome of one case and a short description of it."""
    func = spec.function
    if spec.input != "values":
        y = relabel(y, labels)
        if spec.input == "labels":
            other = relabel(other, labels)
    kw = dict(spec.multiclass) if len(np.unique(y)) > 2 else {}
    if w is not None and "sample_weight" in inspect.signature(func).parameters:
        kw["sample_weight"] = w
    if spec.input in ("scores", "values") and scale != 1.0:
        other = other * scale
        if spec.input == "values":
            y = y * scale
    plain_status, plain = call(func, y, other, **kw)
    if plain_status == "crash":
        return "crash", f"{spec.name} on plain numpy: {type(plain).__name__}: {plain}"
    cast_y = _cast(y, dtype) if spec.input != "values" else y
    cast_o = _cast(other, dtype) if spec.input == "labels" else other
    if cast_y is None or cast_o is None:
        return "skip", ""
    try:
        ty, to = wrap(cast_y, container), wrap(cast_o, container)
    except (OverflowError, TypeError, ValueError):
        return "skip", ""  # the container cannot hold these values (pyarrow and 2**63 ids)
    before = (_snapshot(ty), _snapshot(to))
    status, value = call(func, ty, to, **kw)
    where = (f"{spec.name}({container}, {dtype}, scale={scale:g}, labels={labels}, "
             f"weights={'none' if w is None else w.dtype})")
    if not (_same_input(before[0], ty) and _same_input(before[1], to)):
        return "mutated", where
    if status == "crash":
        return "crash", f"{where}: {type(value).__name__}: {value}"
    if status == "refused" and not any(word in str(value) for word in ARGUMENTS):
        return "crash", f"{where}: a refusal that names no argument: {value}"
    if status == "refused":
        return ("refused" if plain_status == "ok" else "refused by both"), f"{where}: {value}"
    if plain_status == "ok" and not _equal(value, plain):
        return "differs", f"{where}: {value!r} != plain {plain!r}"
    return "ok", where


def sklearn_agrees(spec: Any, y: np.ndarray, other: np.ndarray,
                   w: np.ndarray | None = None) -> tuple[bool, str]:
    """Whether scikit-learn's same-named function gives the same number (when both do).

    scikit-learn gets the weights as float64 (it sums in float64 anyway).
    """
    import sklearn.metrics as skm

    sk = getattr(skm, spec.name, None)
    if sk is None:
        return True, ""
    if "sample_weight" not in inspect.signature(sk).parameters:
        w = None
    kw = dict(spec.multiclass) if len(np.unique(y)) > 2 else {}
    if w is not None:
        kw["sample_weight"] = w
    ours_status, ours = call(spec.function, y, other, **kw)
    if w is not None:
        kw["sample_weight"] = unit_weights(w)
    theirs_status, theirs = call(sk, y, other, **kw)
    if ours_status == theirs_status == "ok" and not _equal(ours, theirs):
        return False, f"{spec.name}: dartboard {ours!r}, sklearn {theirs!r}"
    return True, ""
