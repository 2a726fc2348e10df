"""Input validation: every misuse raises one clear error that names the argument."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
import sklearn.exceptions as skm_exceptions
import sklearn.metrics as skm

import dartboard
import dartboard.metrics as dm
from dartboard import _validation as v
from dartboard._rng import check_random_state

Y = [0, 1, 1, 0]


# ------------------------------------------------------------------ bad label input

def test_nan_in_labels():
    with pytest.raises(ValueError, match=r"y_true contains 1 NaN value\(s\)"):
        dm.accuracy_score([0, np.nan, 1], [0, 1, 1])
    with pytest.raises(ValueError, match=r"y_pred contains 1 NaN value\(s\)"):
        dm.f1_score([0, 1, 1], [0, np.nan, 1])


def test_infinite_labels():
    with pytest.raises(ValueError, match=r"y_true contains 1 infinite value\(s\)"):
        dm.accuracy_score([0, np.inf], [0, 1])


def test_mismatched_lengths():
    with pytest.raises(ValueError, match="inconsistent numbers of samples: y_true has 3, "
                                         "y_pred has 2"):
        dm.f1_score([0, 1, 1], [0, 1])


def test_empty_arrays():
    with pytest.raises(ValueError, match="y_true is empty; at least one sample"):
        dm.confusion_matrix([], [])
    with pytest.raises(ValueError, match="y_pred is empty"):
        dm.accuracy_score(np.array([0]), np.array([]))


def test_two_dimensional_y():
    # a 2-D 0/1 array is a multilabel indicator; beside a column of labels it is a mix
    with pytest.raises(ValueError, match=r"y_true is a 2-D indicator array"):
        dm.f1_score(np.zeros((4, 3)), np.zeros(4))
    with pytest.raises(ValueError, match=r"y_pred is a 2-D indicator array"):
        dm.confusion_matrix(np.zeros(4), np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"y_true is a 2-D indicator array"):
        dm.f1_score(pd.DataFrame({"a": [0, 1], "b": [1, 0]}), [0, 1])
    with pytest.raises(ValueError, match=r"y_true is 2-D but not a multilabel indicator"):
        dm.f1_score(np.full((4, 3), 2), np.zeros((4, 3)), average="macro")


def test_single_column_is_accepted():
    assert dm.accuracy_score(np.array([[0], [1]]), pd.DataFrame({"y": [0, 1]})) == 1.0


def test_negative_weights():
    # the metric functions accept them as scikit-learn does; resampling refuses them
    with pytest.raises(ValueError, match="sample_weight must be non-negative; got a minimum "
                                         "of -1"):
        v.check_sample_weight([1, -1, 1, 1], 4)
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        dartboard.interval(dm.f1_score, Y, Y, sample_weight=[1, -1, 1, 1])
    w = [1, -1, 2, 1]
    for metric in (skm.accuracy_score, skm.confusion_matrix,
                   skm.roc_auc_score, skm.log_loss, skm.brier_score_loss):
        y_other = [0.2, 0.7, 0.6, 0.4] if metric in (skm.roc_auc_score, skm.log_loss,
                                                     skm.brier_score_loss) else [0, 1, 0, 0]
        np.testing.assert_allclose(getattr(dm, metric.__name__)(Y, y_other, sample_weight=w),
                                   metric(Y, y_other, sample_weight=w))
    # the weights cancel the one true positive (1 - 1): F1 is 0/0, and both say so
    for module in (dm, skm):
        with pytest.warns(skm_exceptions.UndefinedMetricWarning, match="F-score is ill-defined"):
            assert module.f1_score(Y, [0, 1, 0, 0], sample_weight=w) == 0.0


def test_weights_of_wrong_length():
    with pytest.raises(ValueError, match=r"sample_weight must have one weight per sample "
                                         r"\(4\); got 3"):
        dm.precision_score(Y, Y, sample_weight=[1, 1, 1])


@pytest.mark.parametrize("bad, what", [(np.inf, "infinite"), (np.nan, "NaN")])
def test_non_finite_weights(bad, what):
    with pytest.raises(ValueError, match=f"sample_weight contains 1 {what} value"):
        dm.recall_score(Y, Y, sample_weight=[1, bad, 1, 1])


def test_non_numeric_weights():
    with pytest.raises(TypeError, match="sample_weight must be numeric; got dtype <U1"):
        dm.confusion_matrix(Y, Y, sample_weight=list("abcd"))
    with pytest.raises(ValueError, match=r"sample_weight must be 1-D"):
        dm.confusion_matrix(Y, Y, sample_weight=np.ones((4, 2)))


def test_unknown_pos_label():
    with pytest.raises(ValueError, match=r"pos_label=2 is not a valid label. It should be "
                                         r"one of \[0, 1\]"):
        dm.f1_score(Y, Y, pos_label=2)
    with pytest.raises(ValueError, match="pos_label='c' is not a valid label"):
        dm.specificity_score(["a", "b"], ["a", "b"], pos_label="c")
    with pytest.raises(ValueError, match=r"pos_label=1 is not a valid label. It should be one "
                                         r"of \['a', 'b'\]; pos_label \(1 unless given\)"):
        dm.recall_score(["a", "b"], ["a", "b"])


def test_average_misspelled():
    with pytest.raises(ValueError, match=r"average must be one of \['binary', 'micro', "
                                         r"'macro', 'weighted', None\]; got 'macor'"):
        dm.f1_score(Y, Y, average="macor")
    with pytest.raises(ValueError, match="average must be one of"):
        dm.selection_rate(Y, Y, average="Macro")


def test_average_binary_on_multiclass():
    with pytest.raises(ValueError, match=r"Target is multiclass \(3 classes: \[0, 1, 2\]\) "
                                         r"but average='binary'"):
        dm.precision_score([0, 1, 2], [0, 1, 2])


def test_strings_mixed_with_numbers_within_one_array():
    with pytest.raises(ValueError, match="y_true mixes string and number labels"):
        dm.f1_score(["a", 1, "b"], ["a", "a", "b"], average="macro")
    with pytest.raises(ValueError, match="y_pred mixes string and number labels"):
        dm.confusion_matrix(["a", "b", "b"], ["a", 1, "b"])
    with pytest.raises(ValueError, match="y_true mixes string and number labels"):
        dm.accuracy_score(pd.Series(["a", 2, "b"]), ["a", "a", "b"])


def test_strings_mixed_with_numbers_across_arrays():
    with pytest.raises(ValueError, match="y_true has string labels, y_pred has number labels"):
        dm.f1_score(["a", "b"], [0, 1], average="macro")
    with pytest.raises(ValueError, match="y_true has number labels, y_pred has string labels"):
        dm.accuracy_score([True, False], ["a", "b"])


def test_continuous_float_labels():
    with pytest.raises(ValueError, match="y_true contains continuous values .* discrete "
                                         "class labels"):
        dm.accuracy_score([0.5, 1.0], [0, 1])
    with pytest.raises(ValueError, match="y_pred contains continuous values"):
        dm.confusion_matrix([0, 1], [0.2, 0.9])


def test_labels_with_duplicates():
    with pytest.raises(ValueError, match=r"labels contains duplicated labels: \[0, 0, 1\]"):
        dm.confusion_matrix(Y, Y, labels=[0, 0, 1])
    with pytest.raises(ValueError, match="labels contains duplicated labels"):
        dm.f1_score(Y, Y, labels=[1, 1], average="macro")


def test_labels_of_the_wrong_type():
    with pytest.raises(ValueError, match="labels are strings but the class labels in the "
                                        "data are numbers"):
        dm.f1_score(Y, Y, labels=["a", "b"], average="macro")
    with pytest.raises(ValueError, match="labels are strings but the class labels"):
        dm.confusion_matrix(Y, Y, labels=["a", "b"])
    with pytest.raises(ValueError, match="labels are numbers but the class labels in the "
                                        "data are strings"):
        dm.recall_score(["a", "b"], ["a", "b"], labels=[0], average="macro")


def test_labels_empty_or_2d():
    with pytest.raises(ValueError, match="labels must contain at least one label"):
        dm.confusion_matrix(Y, Y, labels=[])
    with pytest.raises(ValueError, match="labels must be 1-D"):
        dm.confusion_matrix(Y, Y, labels=[[0, 1], [1, 0]])


def test_labels_none_present_in_data():
    with pytest.raises(ValueError, match="At least one label specified must be in y_true"):
        dm.confusion_matrix(Y, Y, labels=[5, 6])
    # as sklearn: a label seen only in y_pred does not count
    with pytest.raises(ValueError, match=r"must be in y_true; got labels \[1\]"):
        dm.confusion_matrix([0, 0], [1, 1], labels=[1])
    with pytest.raises(ValueError, match="must be in y1"):
        dm.cohen_kappa_score([0, 0], [1, 1], labels=[1])


@pytest.mark.parametrize("fn", [dm.f1_score, dm.accuracy_score, dm.confusion_matrix])
def test_none_input(fn):
    with pytest.raises(TypeError, match="y_true must be array-like .* got NoneType None"):
        fn(None, Y)
    with pytest.raises(TypeError, match="y_pred must be array-like"):
        fn(Y, None)


@pytest.mark.parametrize("scalar", [1, 2.0, "ab", np.int64(3), True])
def test_scalar_input(scalar):
    with pytest.raises(TypeError, match="y_true must be array-like"):
        dm.accuracy_score(scalar, Y)


@pytest.mark.parametrize("unordered", [{0, 1}, {"a": 0, "b": 1}])
def test_unordered_containers(unordered):
    with pytest.raises(TypeError, match="y_true must be an ordered array-like .* no sample "
                                        "order"):
        dm.accuracy_score(unordered, [0, 1])


@pytest.mark.parametrize("series", [
    pd.Series([0, 1, None], dtype="Int64"),
    pd.Series(["a", "b", None], dtype="string"),
    pd.Series([True, False, None], dtype="boolean"),
])
def test_pandas_nullable_with_na(series):
    with pytest.raises(ValueError, match=r"y_true contains 1 missing value\(s\) \(NA\)"):
        dm.accuracy_score(series, series.fillna(series.dropna().iloc[0]))


def test_object_missing_values():
    with pytest.raises(ValueError, match=r"^y_true contains 1 missing value\(s\)"):
        dm.accuracy_score(np.array([0, None], dtype=object), [0, 1])
    with pytest.raises(ValueError, match=r"^y_pred contains 1 missing value\(s\)"):
        dm.accuracy_score([0, 1], np.array([None, 1], dtype=object))
    with pytest.raises(ValueError, match="missing value"):
        dm.accuracy_score(pd.Series(["a", None, "b"]), ["a", "a", "b"])


def test_polars_and_pyarrow_nulls():
    with pytest.raises(ValueError, match=r"y_true contains 1 missing value\(s\) \(nulls\)"):
        dm.f1_score(pl.Series([0, 1, None]), [0, 1, 1])
    with pytest.raises(ValueError, match=r"y_pred contains 1 missing value\(s\) \(nulls\)"):
        dm.f1_score([0, 1, 1], pa.array([0, 1, None]))


@pytest.mark.parametrize("zd", [0.5, "ignore", True, None, -1])
def test_zero_division_invalid(zd):
    with pytest.raises(ValueError, match="zero_division must be 'warn', 0.0, 1.0 or np.nan; "
                                         f"got {zd!r}"):
        dm.precision_score(Y, Y, zero_division=zd)


def test_other_options():
    with pytest.raises(ValueError, match=r"normalize must be one of \['true', 'pred', "
                                         r"'all', None\]; got 'rows'"):
        dm.confusion_matrix(Y, Y, normalize="rows")
    with pytest.raises(ValueError, match="beta must be a non-negative number; got -1"):
        dm.fbeta_score(Y, Y, beta=-1)
    with pytest.raises(ValueError, match="beta must be a non-negative number; got nan"):
        dm.fbeta_score(Y, Y, beta=float("nan"))
    with pytest.raises(TypeError, match="beta must be a non-negative number; got '2'"):
        dm.fbeta_score(Y, Y, beta="2")
    with pytest.raises(ValueError, match="weights must be one of"):
        dm.cohen_kappa_score(Y, Y, weights="cubic")


def test_unsupported_label_dtypes():
    with pytest.raises(ValueError, match="y_true must hold class labels .* complex128"):
        dm.accuracy_score(np.array([1j, 2j]), [0, 1])
    dates = np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]")
    with pytest.raises(TypeError, match="y_pred must hold class labels .* datetime64"):
        dm.accuracy_score([0, 1], dates)


def test_kappa_names_its_own_arguments():
    with pytest.raises(ValueError, match="inconsistent numbers of samples: y1 has 2, y2 has 1"):
        dm.cohen_kappa_score([0, 1], [0])


# ------------------------------------------------------------------ helpers directly

def test_to_numpy_containers_agree():
    expected = np.array([3, 1, 2])
    for x in ([3, 1, 2], (3, 1, 2), np.array([3, 1, 2]), pd.Series([3, 1, 2]),
              pd.Series([3, 1, 2], dtype="Int64"), pd.Series([3, 1, 2]).astype("category"),
              pl.Series([3, 1, 2]), pa.array([3, 1, 2]),
              pa.chunked_array([[3], [1, 2]]), range(3, 0, -1)):
        got = v.column_1d(x, name="x")
        if isinstance(x, range):
            assert got.tolist() == [3, 2, 1]
        else:
            assert got.tolist() == expected.tolist(), type(x)


def test_to_numpy_does_not_copy_numpy():
    a = np.arange(5)
    assert v.to_numpy(a, name="a") is a


def test_as_float_array():
    assert v.as_float_array([1, 2], name="s").dtype == np.float64
    with pytest.raises(TypeError, match="s must be numeric; got dtype <U1"):
        v.as_float_array(["a"], name="s")
    with pytest.raises(ValueError, match="s contains 1 NaN"):
        v.as_float_array([1.0, np.nan], name="s")
    assert np.isnan(v.as_float_array([1.0, np.nan], name="s", allow_nan=True)[1])
    with pytest.raises(ValueError, match=r"s must be 2-D; got an array of shape \(2,\)"):
        v.as_float_array([1, 2], name="s", ndim=2)


def test_check_helpers():
    assert v.check_int(3, "n", minimum=1) == 3
    with pytest.raises(TypeError, match="n must be an integer; got bool"):
        v.check_int(True, "n")
    with pytest.raises(ValueError, match="n must be at least 1; got 0"):
        v.check_int(0, "n", minimum=1)
    assert v.check_confidence_level(0.9) == 0.9
    with pytest.raises(ValueError, match="confidence_level must be strictly between 0 and 1"):
        v.check_confidence_level(1.0)
    with pytest.raises(TypeError, match="confidence_level must be a number"):
        v.check_confidence_level("0.9")
    assert v.check_option(None, "avg", ["a", None]) is None
    with pytest.raises(ValueError, match=r"avg must be one of \['a'\]; got 1"):
        v.check_option(1, "avg", ["a"])


def test_check_random_state_reproducible():
    a = check_random_state(7).random(3)
    b = check_random_state(np.random.SeedSequence(7)).random(3)
    assert np.array_equal(a, b)
    g = np.random.default_rng(1)
    assert check_random_state(g) is g
    assert isinstance(check_random_state(np.random.RandomState(0)), np.random.Generator)
    with pytest.raises(TypeError, match="random_state must be None, an int"):
        check_random_state("seed")
    with pytest.raises(ValueError, match="random_state must be non-negative"):
        check_random_state(-1)


def test_describe_is_short():
    assert v.describe(np.zeros((2, 3))) == "array of dtype float64 and shape (2, 3)"
    assert v.describe([1, 2]) == "list of length 2"
    assert len(v.describe("x" * 1000)) <= 120


@pytest.mark.parametrize("fn", [dm.accuracy_score, dm.f1_score, dm.matthews_corrcoef,
                                dm.balanced_accuracy_score, dm.cohen_kappa_score,
                                dm.confusion_matrix, dm.classification_report])
def test_all_zero_weights(fn):
    # scikit-learn raises too ("Sample weights must contain at least one non-zero number")
    with pytest.raises(ValueError, match="sample_weight must contain at least one positive "
                                         "weight; got all zeros"):
        fn(Y, Y, sample_weight=[0, 0, 0, 0])


def test_float_labels_too_large_to_be_exact():
    # 1e20 and 1e20 + 1 are the same float: such labels cannot name classes
    with pytest.raises(ValueError, match="y_true contains float labels too large"):
        dm.confusion_matrix([1e20, 2e20], [1e20, 1e20])


# ------------------------------------------------ masked arrays and wide dtypes

def test_to_numpy_refuses_masked_entries_and_unwraps_an_unmasked_array():
    data = np.arange(6.0)
    with pytest.raises(ValueError, match=r"^w is a masked array with 2 masked value\(s\)"):
        v.to_numpy(np.ma.array(data, mask=[1, 0, 0, 1, 0, 0]), name="w")
    got = v.to_numpy(np.ma.array(data, mask=False), name="w")
    assert type(got) is np.ndarray and got.tolist() == data.tolist()
    assert type(v.to_numpy(np.ma.array(data), name="w")) is np.ndarray
    with pytest.raises(ValueError, match="^y is a masked array"):
        v.column_1d(np.ma.masked_invalid([1.0, np.nan]), name="y")


def test_every_missing_marker_gives_the_same_kind_of_error():
    """NaN, None, pandas NA, pyarrow/polars nulls and masked entries: one ValueError
    naming the argument, for labels, values and weights alike."""
    missing = [np.array([0.0, np.nan, 1.0]), np.array([0, None, 1], dtype=object),
               pd.Series([0, None, 1], dtype="Int64"), pd.Series([0, None, 1], dtype="Float64"),
               pd.Series([0, 1, None]).astype("category"), pa.array([0, None, 1]),
               pa.chunked_array([[0], [None, 1]]), pl.Series([0, None, 1]),
               np.ma.array([0, 5, 1], mask=[0, 1, 0])]
    for x in missing:
        with pytest.raises(ValueError, match="^y_true .*(missing|NaN|masked)"):
            dm.accuracy_score(x, [0, 1, 1])
        with pytest.raises(ValueError, match="^y_true .*(missing|NaN|masked)"):
            dm.mean_squared_error(x, [0.0, 1.0, 1.0])
        with pytest.raises(ValueError, match="^sample_weight .*(missing|NaN|masked)"):
            dm.mean_squared_error([0.0, 1.0, 1.0], [0.0, 1.0, 1.0], sample_weight=x)


def test_to_float64_widens_and_checks_long_double_range():
    for dt in (np.float16, np.float32, np.int8, np.uint64, np.bool_):
        got = v.to_float64(np.array([0, 1], dtype=dt), name="x")
        assert got.dtype == np.float64 and got.tolist() == [0.0, 1.0]
    a = np.arange(3.0)
    assert v.to_float64(a, name="x") is a  # float64 is not copied
    ld = np.array([0.5, 3.0], dtype=np.longdouble)
    assert v.to_float64(ld, name="x").tolist() == [0.5, 3.0]
    if np.finfo(np.longdouble).max > np.finfo(np.float64).max:
        with pytest.raises(ValueError, match="^x holds float128 values outside the range"):
            v.to_float64(np.array([1, np.longdouble(10) ** 400]), name="x")
        with pytest.raises(ValueError, match="^x holds float128"):
            v.to_float64(np.array([1, np.longdouble(10) ** -400]), name="x")
    with pytest.raises(TypeError, match="^x must be numeric; got dtype object holding text"):
        v.to_float64(np.array([1, "2"], dtype=object), name="x")
    with pytest.raises(TypeError, match="^x must be numeric; got values of dtype object"):
        v.to_float64(np.array([1, [2]], dtype=object), name="x")


def test_check_sample_weight_dtypes():
    assert v.check_sample_weight(np.ones(3, np.int8), 3).dtype.kind == "i"  # counts stay ints
    assert v.check_sample_weight([True, False, True], 3).dtype == np.int64
    for w in (np.ones(3, np.float16), np.ones(3, np.float32), np.ones(3, np.longdouble),
              np.array([1, 2.5, 3], dtype=object), pd.Series([1.0, 2.0, 3.0], dtype="Float64")):
        assert v.check_sample_weight(w, 3).dtype == np.float64
    with pytest.raises(TypeError, match="^sample_weight must be numeric"):
        v.check_sample_weight(np.array(["1", "2", "3"], dtype=object), 3)
    with pytest.raises(ValueError, match="^sample_weight must be real numbers; got complex"):
        v.check_sample_weight(np.array([1 + 1j, 1, 1]), 3)
