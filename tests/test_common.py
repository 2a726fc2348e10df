"""Invariances every count metric must have, written once over a registry.

In the manner of scikit-learn's ``metrics/tests/test_common.py``: each metric is
registered with the keywords it is called with; each property is one test
parametrised over the registry.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import dartboard.metrics as dm

RATIO_METRICS = ["precision_score", "recall_score", "f1_score", "specificity_score",
                 "false_positive_rate", "false_negative_rate", "selection_rate",
                 "jaccard_score", "negative_predictive_value"]

# name -> (function, keywords); "binary" metrics get pos_label from the label set
BINARY_METRICS = {
    **{f"{name}[binary]": (getattr(dm, name), {"average": "binary"})
       for name in RATIO_METRICS},
    "fbeta_score[binary]": (dm.fbeta_score, {"beta": 2.0, "average": "binary"}),
}
MULTICLASS_METRICS = {
    "confusion_matrix": (dm.confusion_matrix, {}),
    "confusion_matrix[normalize=true]": (dm.confusion_matrix, {"normalize": "true"}),
    "accuracy_score": (dm.accuracy_score, {}),
    "accuracy_score[count]": (dm.accuracy_score, {"normalize": False}),
    "matthews_corrcoef": (dm.matthews_corrcoef, {}),
    "balanced_accuracy_score": (dm.balanced_accuracy_score, {}),
    "balanced_accuracy_score[adjusted]": (dm.balanced_accuracy_score, {"adjusted": True}),
    "cohen_kappa_score": (dm.cohen_kappa_score, {}),
    "cohen_kappa_score[quadratic]": (dm.cohen_kappa_score, {"weights": "quadratic"}),
    "classification_report": (dm.classification_report, {"zero_division": 0.0,
                                                         "output_dict": True}),
    "multilabel_confusion_matrix": (dm.multilabel_confusion_matrix, {}),
    "precision_recall_fscore_support": (dm.precision_recall_fscore_support,
                                        {"zero_division": 0.0}),
    **{f"{name}[{avg}]": (getattr(dm, name), {"average": avg, "zero_division": 0.0})
       for name in RATIO_METRICS for avg in ("micro", "macro", "weighted", None)},
    "fbeta_score[macro]": (dm.fbeta_score, {"beta": 0.5, "average": "macro"}),
}
ALL_METRICS = {**BINARY_METRICS, **MULTICLASS_METRICS}

# swapping y_true and y_pred leaves these unchanged
SYMMETRIC = {"accuracy_score", "accuracy_score[count]", "matthews_corrcoef",
             "cohen_kappa_score", "cohen_kappa_score[quadratic]", "f1_score[binary]",
             "f1_score[micro]", "precision_score[micro]", "recall_score[micro]",
             "jaccard_score[binary]", "jaccard_score[micro]"}
# swapping them changes these on generic data
NOT_SYMMETRIC = {"confusion_matrix", "balanced_accuracy_score", "precision_score[binary]",
                 "recall_score[binary]", "specificity_score[binary]",
                 "precision_score[macro]", "fbeta_score[binary]", "selection_rate[binary]"}


def data(n_classes, n=300, seed=0):
    """Integer codes 0..K-1 with ~70 % agreement; every class present in y_true."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, n_classes, n)
    y_true[:n_classes] = np.arange(n_classes)
    y_pred = np.where(rng.random(n) < 0.7, y_true, rng.integers(0, n_classes, n))
    return y_true, y_pred


def cases():
    """(name, number of classes) of every metric: a list, as pytest's parametrize wants
    (a generator is deprecated)."""
    out = []
    for name in ALL_METRICS:
        out.append(pytest.param(name, 2, id=f"{name}-binary"))
        if name in MULTICLASS_METRICS:
            out.append(pytest.param(name, 4, id=f"{name}-4classes"))
    return out


def call(name, y_true, y_pred, pos_label=1, **extra):
    fn, kw = ALL_METRICS[name]
    kw = {**kw, **extra}
    if kw.get("average") == "binary":
        kw["pos_label"] = pos_label
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(y_true, y_pred, **kw)


def values(result):
    """A metric's output as one flat float array (None parts dropped)."""
    if isinstance(result, pd.DataFrame):
        return result.to_numpy(dtype=np.float64).ravel()
    if isinstance(result, dict):
        return np.concatenate([values(r) for r in result.values()])
    if isinstance(result, tuple):
        return np.concatenate([values(r) for r in result if r is not None])
    return np.atleast_1d(np.asarray(result, dtype=np.float64)).ravel()


def assert_same(a, b):
    np.testing.assert_allclose(values(a), values(b), rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name, k", cases())
def test_sample_order_invariance(name, k):
    y_true, y_pred = data(k)
    order = np.random.default_rng(1).permutation(len(y_true))
    w = np.random.default_rng(2).uniform(0.5, 2, len(y_true))
    assert_same(call(name, y_true, y_pred), call(name, y_true[order], y_pred[order]))
    assert_same(call(name, y_true, y_pred, sample_weight=w),
                call(name, y_true[order], y_pred[order], sample_weight=w[order]))


CONTAINERS = {
    "list": lambda a: a.tolist(),
    "tuple": lambda a: tuple(a.tolist()),
    "pandas": pd.Series,
    "pandas_nullable": lambda a: pd.Series(a, dtype={"i": "Int64", "u": "UInt64",
                                                     "f": "Float64", "b": "boolean",
                                                     "U": "string"}[a.dtype.kind]),
    "pandas_category": lambda a: pd.Series(a).astype("category"),
    "pandas_frame_column": lambda a: pd.DataFrame({"y": a}),
    "polars": pl.Series,
    "pyarrow": pa.array,
    "pyarrow_chunked": lambda a: pa.chunked_array([a[:100], a[100:]]),
    "numpy_column": lambda a: a.reshape(-1, 1),
    "numpy_masked_nothing_masked": lambda a: np.ma.array(a, mask=np.zeros(a.shape, bool)),
}


@pytest.mark.parametrize("container", sorted(CONTAINERS))
@pytest.mark.parametrize("name, k", cases())
def test_input_container_invariance(name, k, container):
    y_true, y_pred = data(k)
    convert = CONTAINERS[container]
    expected = call(name, y_true, y_pred)
    assert_same(call(name, convert(y_true), convert(y_pred)), expected)
    w = np.random.default_rng(3).uniform(0.5, 2, len(y_true))
    assert_same(call(name, convert(y_true), convert(y_pred), sample_weight=convert(w)),
                call(name, y_true, y_pred, sample_weight=w))
    # string labels travel through every container too
    s_true, s_pred = np.array(["a", "b", "c", "d"])[y_true], np.array(["a", "b", "c", "d"])[y_pred]
    assert_same(call(name, convert(s_true), convert(s_pred), pos_label="b"), expected)


def _read_only(a):
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


LAYOUTS = {
    "read_only": _read_only,
    "fortran_column": lambda a: np.asfortranarray(a.reshape(-1, 1)),
    "read_only_fortran_column": lambda a: _read_only(np.asfortranarray(a.reshape(-1, 1))),
    "strided": lambda a: np.repeat(a, 2)[::2],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name, k", cases())
def test_memory_layout_invariance_and_inputs_untouched(name, k, layout):
    """Read-only, Fortran-ordered and strided inputs give the same value and are
    left exactly as they were (issue 16: no public function writes to its inputs)."""
    y_true, y_pred = data(k)
    w = np.random.default_rng(3).uniform(0.5, 2, len(y_true))
    w_int = np.random.default_rng(4).integers(1, 4, len(y_true))
    s_true, s_pred = (np.array(["a", "b", "c", "d"])[y] for y in (y_true, y_pred))
    convert = LAYOUTS[layout]
    for t, p, weight, pos_label in [(y_true, y_pred, None, 1), (y_true, y_pred, w, 1),
                                    (y_true, y_pred, w_int, 1), (s_true, s_pred, w, "b")]:
        held = [convert(a) for a in (t, p) + ((weight,) if weight is not None else ())]
        copies = [a.copy() for a in held]
        flags = [(a.flags.f_contiguous, a.flags.writeable) for a in held]
        expected = call(name, t, p, pos_label=pos_label, sample_weight=weight)
        assert_same(call(name, *held[:2], pos_label=pos_label,
                         sample_weight=held[2] if weight is not None else None), expected)
        for a, c, f in zip(held, copies, flags):
            assert a.dtype == c.dtype and (a.flags.f_contiguous, a.flags.writeable) == f
            np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("name, k", cases())
def test_unit_weights_equal_no_weights(name, k):
    y_true, y_pred = data(k)
    expected = call(name, y_true, y_pred)
    for ones in (np.ones(len(y_true)), np.ones(len(y_true), dtype=np.int64),
                 [1] * len(y_true)):
        assert_same(call(name, y_true, y_pred, sample_weight=ones), expected)


@pytest.mark.parametrize("name, k", cases())
def test_integer_weights_equal_repeated_samples(name, k):
    y_true, y_pred = data(k, n=120)
    w = np.random.default_rng(4).integers(0, 4, len(y_true))
    w[:k] = 1  # keep every class present
    assert_same(call(name, y_true, y_pred, sample_weight=w),
                call(name, np.repeat(y_true, w), np.repeat(y_pred, w)))


@pytest.mark.parametrize("name, k", cases())
def test_label_renaming_invariance(name, k):
    """An order-preserving renaming of the classes changes no value."""
    y_true, y_pred = data(k)
    expected = call(name, y_true, y_pred)
    renamings = [np.array([-7, 3, 40, 10**6]), np.array([5, 6, 7, 8]),
                 np.array(["ant", "bee", "cat", "dog"]),
                 np.array([10**12, 10**12 + 1, 10**13, 10**14])]
    for names in renamings:
        assert_same(call(name, names[y_true], names[y_pred], pos_label=names[1]), expected)
    if k == 2:
        boolean = np.array([False, True])
        assert_same(call(name, boolean[y_true], boolean[y_pred], pos_label=True), expected)
        pm = np.array([-1, 1])
        assert_same(call(name, pm[y_true], pm[y_pred], pos_label=1), expected)


@pytest.mark.parametrize("name, k", cases())
def test_integral_float_labels_equal_integer_labels(name, k):
    y_true, y_pred = data(k)
    assert_same(call(name, y_true.astype(float), y_pred.astype(float), pos_label=1.0),
                call(name, y_true, y_pred))
    assert_same(call(name, y_true.astype(np.float32), y_pred.astype(np.int8)),
                call(name, y_true, y_pred))
    assert_same(call(name, y_true.astype(np.uint16), y_pred.astype(np.int32)),
                call(name, y_true, y_pred))


@pytest.mark.parametrize("name", sorted(SYMMETRIC | NOT_SYMMETRIC))
def test_symmetry(name):
    y_true, y_pred = data(3 if name in MULTICLASS_METRICS else 2, seed=5)
    forward, backward = call(name, y_true, y_pred), call(name, y_pred, y_true)
    if name in SYMMETRIC:
        assert_same(forward, backward)
    else:
        assert not np.allclose(values(forward), values(backward))


def test_registry_covers_every_count_metric():
    from dartboard.metrics import _classification_report, _confusion

    registered = {fn.__name__ for fn, _ in ALL_METRICS.values()}
    public = {n for n in _confusion.__all__ + _classification_report.__all__
              if n[0].islower()}
    assert public == registered
