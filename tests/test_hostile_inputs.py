"""Hostile and unusual inputs: never a touched input, never a silent wrong number.

Every public metric (walked through the registry), interval, comparison, test,
stability audit and the evaluation engine is called on read-only, Fortran-ordered
and strided inputs and must give the value it gives on plain arrays while leaving
the inputs as they were. Masked arrays, pandas NA, pyarrow and polars nulls are
refused with the argument's name; every accepted dtype gives the float64 answer.

The oracle is always the same function on plain int64/float64 arrays, and the data
are chosen exactly representable in every dtype tried (scores are multiples of
1/64, weights small integers), so agreement is asserted to 1e-12.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from _layouts import LAYOUTS, assert_untouched, held, read_only
from _quiet import quiet
from sklearn import metrics as skm

import dartboard as db
import dartboard.metrics as dm
from dartboard.evaluation._engine import evaluate_predictions
from dartboard.metrics._registry import specs

N = 48
RNG = np.random.default_rng(16)
Y_BIN = RNG.integers(0, 2, N)
Y_BIN[:2] = [0, 1]
Y3 = RNG.integers(0, 3, N)
Y3[:3] = [0, 1, 2]
SCORE = RNG.integers(1, 64, N) / 64.0  # exact in float16
SCORE_B = RNG.integers(1, 64, N) / 64.0
LABEL = (SCORE >= 0.5).astype(np.int64)
LABEL3 = np.where(RNG.random(N) < 0.6, Y3, RNG.integers(0, 3, N))
PROBA3 = RNG.dirichlet([1, 1, 1], N)
Y_REG = RNG.integers(8, 64, N) / 8.0
P_REG = Y_REG + RNG.integers(-8, 8, N) / 8.0
WEIGHT = RNG.integers(1, 4, N).astype(np.float64)


def _keywords(spec):
    if spec.kind == "report":  # the text names the classes as their dtype prints them
        return {"output_dict": True}
    return dict(spec.needs)


# metrics of a 2-D y_true (relevances, label indicators), and binary-only ones
Y_ML = RNG.integers(0, 2, (N, 3))
_PER_SAMPLE_RANKING = ("ndcg_score", "dcg_score", "label_ranking_average_precision_score",
                       "label_ranking_loss", "coverage_error")
_BINARY_ONLY = ("class_likelihood_ratios",)
_ONE_OUTPUT = ("max_error", "error_distribution", "median_absolute_deviation",
               "weighted_mean_absolute_percentage_error", "mean_poisson_deviance",
               "mean_gamma_deviance", "mean_tweedie_deviance", "d2_tweedie_score")


def metric_cases(spec):
    """(y_true, second argument, keywords) the metric accepts, 2-D ones included."""
    if spec.name in _PER_SAMPLE_RANKING:
        return [(Y_ML, PROBA3, {})]
    if spec.name == "auc":
        return [(np.sort(Y_REG), P_REG, {})]
    if spec.input == "labels":
        return [(Y_BIN, LABEL, {})] + ([] if spec.name in _BINARY_ONLY else [
            (Y3, LABEL3, {"average": "macro"} if spec.average else {})])
    if spec.input == "scores":
        return [(Y_BIN, SCORE, {})] + ([(Y3, PROBA3, {"multi_class": "ovr"})]
                                       if spec.name == "roc_auc_score" else
                                       [(Y3, PROBA3, {})] if spec.name in
                                       ("top_k_accuracy_score", "hinge_loss") else [])
    if spec.input == "probabilities":
        return [(Y_BIN, SCORE, {})] + ([(Y3, PROBA3, {})] if spec.name == "log_loss" else [])
    two_d = (np.column_stack([Y_REG, Y_REG[::-1]]), np.column_stack([P_REG, P_REG[::-1]]),
             {})
    cases = [(Y_REG, P_REG, {})]
    if spec.name not in _ONE_OUTPUT:
        cases.append(two_d)
    return cases


def takes_weights(spec):
    return spec.name not in ("max_error", "error_distribution", "cosine_similarity", "auc",
                             "calibration_curve")


def flat(result):
    """Any metric output as one flat float array (text compared as text)."""
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        return np.concatenate([np.ravel(flat(v)) for _, v in sorted(result.items())])
    if isinstance(result, dm.ErrorDistribution):
        return result.errors
    if isinstance(result, pd.DataFrame):
        return result.to_numpy(dtype=np.float64).ravel()
    if dataclasses.is_dataclass(result):  # a result object: its fields
        return flat(dataclasses.asdict(result))
    if isinstance(result, tuple):
        return np.concatenate([np.ravel(np.asarray(r, dtype=np.float64)) for r in result
                               if r is not None])
    return np.ravel(np.asarray(result, dtype=np.float64))


def assert_same(got, expected):
    got, expected = flat(got), flat(expected)
    if isinstance(expected, str):
        assert got == expected
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, equal_nan=True)




METRIC_NAMES = [s.name for s in specs()]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", METRIC_NAMES)
def test_metric_never_writes_to_its_inputs(name, layout):
    spec = next(s for s in specs() if s.name == name)
    fn = functools.partial(spec.function, **_keywords(spec))
    for y_true, other, kw in metric_cases(spec):
        (t, o), copies = held(layout, y_true, other)
        assert_same(quiet(fn, t, o, **kw), quiet(fn, y_true, other, **kw))
        assert_untouched((t, o), copies)
        if takes_weights(spec):
            (w,), w_copy = held(layout, WEIGHT)
            assert_same(quiet(fn, t, o, sample_weight=w, **kw),
                        quiet(fn, y_true, other, sample_weight=WEIGHT, **kw))
            assert_untouched((t, o, w), copies + w_copy)


# ----------------------------------------------------------- engines above metrics

def test_stability_metrics_leaves_a_fortran_array_as_it_was():
    # reproducer (issue 16): a Fortran-ordered probas was sorted in place
    probas = np.asfortranarray(np.random.default_rng(0).random((5, 8)))
    before = probas.copy()
    res = db.stability_metrics(probas)
    np.testing.assert_array_equal(probas, before)
    assert_same(res.summary, db.stability_metrics(np.ascontiguousarray(before)).summary)


def test_stability_metrics_accepts_a_dataframe_and_read_only_arrays():
    # reproducer (issue 16): a DataFrame failed with "sort array is read-only"
    values = np.random.default_rng(1).random((6, 10))
    expected = db.stability_metrics(values).summary
    assert_same(db.stability_metrics(pd.DataFrame(values)).summary, expected)
    for layout in LAYOUTS:
        (p,), copies = held(layout, values)
        assert_same(db.stability_metrics(p, y_true=read_only(Y_BIN[:10])).summary,
                    db.stability_metrics(values, y_true=Y_BIN[:10]).summary)
        assert_untouched((p,), copies)
    multi = np.random.default_rng(2).dirichlet([1, 1, 1], (4, 10))
    (p,), copies = held("fortran_read_only", multi)
    assert_same(db.stability_metrics(p).summary, db.stability_metrics(multi).summary)
    assert_untouched((p,), copies)


INTERVAL_CASES = [(dm.accuracy_score, Y_BIN, LABEL), (dm.roc_auc_score, Y_BIN, SCORE),
                  (dm.log_loss, Y3, PROBA3), (dm.mean_squared_error, Y_REG, P_REG),
                  (dm.average_precision_score, Y_BIN, SCORE)]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("metric, y_true, other", INTERVAL_CASES,
                         ids=[c[0].__name__ for c in INTERVAL_CASES])
def test_interval_never_writes_to_its_inputs(metric, y_true, other, layout):
    (t, o, w), copies = held(layout, y_true, other, WEIGHT)
    for method in ("auto", "percentile"):
        kw = {"method": method, "n_resamples": 200, "random_state": 0}
        got = quiet(db.interval, metric, t, o, sample_weight=w, **kw)
        expected = quiet(db.interval, metric, y_true, other, sample_weight=WEIGHT, **kw)
        assert_same((got.estimate, got.low, got.high), (expected.estimate, expected.low,
                                                        expected.high))
    assert_untouched((t, o, w), copies)


COMPARE_CASES = [(dm.accuracy_score, Y_BIN, LABEL, (SCORE_B >= 0.5).astype(int)),
                 (dm.roc_auc_score, Y_BIN, SCORE, SCORE_B),
                 (dm.log_loss, Y_BIN, SCORE, SCORE_B),
                 (dm.mean_absolute_error, Y_REG, P_REG, P_REG[::-1].copy())]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("metric, y_true, a, b", COMPARE_CASES,
                         ids=[c[0].__name__ for c in COMPARE_CASES])
def test_compare_models_never_writes_to_its_inputs(metric, y_true, a, b, layout):
    (t, pa_, pb), copies = held(layout, y_true, a, b)
    kw = {"n_resamples": 200, "random_state": 0}
    got = quiet(db.compare_models, metric, t, pa_, pb, **kw)
    expected = quiet(db.compare_models, metric, y_true, a, b, **kw)
    assert_same((got.difference, got.pvalue), (expected.difference, expected.pvalue))
    assert_untouched((t, pa_, pb), copies)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_tests_never_write_to_their_inputs(layout):
    a, b = SCORE[:12], SCORE_B[:12]
    (ha, hb), copies = held(layout, a, b)
    for exact in (True, False):
        got = db.permutation_test(ha, hb, exact=exact, random_state=0, n_resamples=500)
        expected = db.permutation_test(a, b, exact=exact, random_state=0, n_resamples=500)
        assert_same((got.statistic, got.pvalue), (expected.statistic, expected.pvalue))
    (t, s1, s2), more = held(layout, Y_BIN, SCORE, SCORE_B)
    got, expected = db.delong_test(t, s1, s2), db.delong_test(Y_BIN, SCORE, SCORE_B)
    assert_same((got.statistic, got.pvalue), (expected.statistic, expected.pvalue))
    l1, l2 = LAYOUTS[layout](LABEL), LAYOUTS[layout](1 - LABEL)
    assert_same(db.mcnemar_test(t, l1, l2).pvalue, db.mcnemar_test(Y_BIN, LABEL, 1 - LABEL).pvalue)
    assert_untouched((ha, hb, t, s1, s2), copies + more)


def _rows(result):
    return [(r.name, r.estimate, r.low, r.high) for r in result.metrics] \
        if hasattr(result, "metrics") else result.to_dict()


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_evaluation_engine_never_writes_to_its_inputs(layout):
    cases = [dict(y_true=Y_BIN, y_score=SCORE), dict(y_true=Y3, y_pred=LABEL3),
             dict(y_true=Y3, y_proba=PROBA3),
             dict(y_true=Y_REG, y_pred=P_REG)]
    for case in cases:
        names = sorted(case)
        arrays, copies = held(layout, *(case[k] for k in names))
        kw = {"n_resamples": 100, "random_state": 0}
        got = quiet(evaluate_predictions, **dict(zip(names, arrays)), **kw)
        expected = quiet(evaluate_predictions, **case, **kw)
        assert got.to_dict() == expected.to_dict()
        assert_untouched(arrays, copies)


# ------------------------------------------------------------ missing values

def test_a_masked_weight_is_refused_not_half_honoured():
    # reproducer (issue 16): this returned 1.3125, neither the masked-out answer
    # (0.1875) nor the mask-ignored one (1.1667)
    y = np.array([1.0, 2, 3, 4, 5, 6])
    p = np.array([1.5, 2, 3, 4.5, 5, 9])
    w = np.array([1.0, 1, 1, 1, 1, 2])
    with pytest.raises(ValueError, match="sample_weight is a masked array with 1 masked"):
        dm.mean_squared_error(y, p, sample_weight=np.ma.array(w, mask=[0, 0, 0, 0, 0, 1]))
    # a mask with nothing masked is just its data
    assert dm.mean_squared_error(y, p, sample_weight=np.ma.array(w, mask=False)) == \
        pytest.approx(skm.mean_squared_error(y, p, sample_weight=w), rel=1e-12)


def _masked(a):
    mask = np.zeros(np.shape(a), dtype=bool)
    mask[3] = True
    return np.ma.array(a, mask=mask)


def _nullable(a):
    dtype = "Float64" if np.asarray(a).dtype.kind == "f" else "Int64"
    s = pd.Series(a, dtype=dtype)
    s.iloc[3] = pd.NA
    return s


def _arrow(a):
    values = np.asarray(a).tolist()
    values[3] = None
    return pa.array(values)


def _polars(a):
    values = np.asarray(a).tolist()
    values[3] = None
    return pl.Series(values)


def _category(a):
    s = pd.Series(a).astype("category")
    s.iloc[3] = np.nan
    return s


MISSING = {"masked": _masked, "pandas_nullable": _nullable, "pyarrow": _arrow,
           "polars": _polars, "pandas_category": _category}
MISSING_CASES = [(dm.accuracy_score, Y_BIN, LABEL, "y_pred"),
                 (dm.f1_score, Y3, LABEL3, "y_pred"),
                 (dm.roc_auc_score, Y_BIN, SCORE, "y_score"),
                 (dm.log_loss, Y_BIN, SCORE, "y_proba"),
                 (dm.brier_score_loss, Y_BIN, SCORE, "y_proba"),
                 (dm.mean_squared_error, Y_REG, P_REG, "y_pred"),
                 (dm.r2_score, Y_REG, P_REG, "y_pred")]


@pytest.mark.parametrize("kind", sorted(MISSING))
@pytest.mark.parametrize("metric, y_true, other, other_name", MISSING_CASES,
                         ids=[c[0].__name__ for c in MISSING_CASES])
def test_missing_values_are_refused_in_every_argument(metric, y_true, other, other_name,
                                                      kind):
    kw = {"average": "macro"} if metric is dm.f1_score else {}
    make = MISSING[kind]
    if kind == "pandas_category" and other.dtype.kind == "f":
        other_case = []  # a categorical of continuous scores is not a use
    else:
        other_case = [((y_true, make(other)), {}, other_name)]
    for args, extra, name in [((make(y_true), other), {}, "y_true"), *other_case,
                              ((y_true, other), {"sample_weight": make(WEIGHT)},
                               "sample_weight")]:
        if kind == "pandas_category" and name == "sample_weight":
            continue
        with pytest.raises(ValueError, match=rf"^{name} .*(missing|masked)"):
            quiet(metric, *args, **extra, **kw)


@pytest.mark.parametrize("metric, y_true, other, other_name", MISSING_CASES,
                         ids=[c[0].__name__ for c in MISSING_CASES])
def test_masked_arrays_without_masked_entries_are_their_data(metric, y_true, other,
                                                            other_name):
    kw = {"average": "macro"} if metric is dm.f1_score else {}
    expected = metric(y_true, other, sample_weight=WEIGHT, **kw)
    got = metric(np.ma.array(y_true, mask=False), np.ma.array(other),
                 sample_weight=np.ma.array(WEIGHT, mask=np.zeros(N, bool)), **kw)
    assert got == pytest.approx(expected, rel=1e-12)


def test_masked_inputs_are_refused_by_the_engines_too():
    masked = _masked(SCORE)
    with pytest.raises(ValueError, match="masked"):
        db.interval(dm.roc_auc_score, Y_BIN, masked)
    with pytest.raises(ValueError, match="masked"):
        db.compare_models(dm.roc_auc_score, Y_BIN, masked, SCORE_B, n_resamples=50)
    with pytest.raises(ValueError, match="masked"):
        db.delong_test(Y_BIN, SCORE, masked)
    with pytest.raises(ValueError, match="masked"):
        db.permutation_test(masked, SCORE_B)
    with pytest.raises(ValueError, match="masked"):
        evaluate_predictions(_masked(Y_BIN), y_pred=LABEL)


# ------------------------------------------------------------------ dtypes

def _nullable_of(a):
    kind = np.asarray(a).dtype.kind
    return pd.Series(a, dtype={"i": "Int64", "u": "UInt64", "b": "boolean"}.get(kind, "Float64"))


# how an array of labels (ints 0..K-1) may arrive; each keeps the values exactly
LABEL_DTYPES = {
    **{dt: (lambda dt: lambda a: a.astype(dt))(dt)
       for dt in ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
                  "float16", "float32", "longdouble")},
    "pandas_nullable": _nullable_of,
    "pandas_uint64": lambda a: pd.Series(a, dtype="UInt64"),
    "pandas_category": lambda a: pd.Series(a).astype("category"),
    "object_ints": lambda a: a.astype(object),
}
# how scores, probabilities, regression values and weights may arrive
VALUE_DTYPES = {
    **{dt: (lambda dt: lambda a: a.astype(dt))(dt)
       for dt in ("float16", "float32", "longdouble")},
    "pandas_nullable": _nullable_of,
    "object_floats": lambda a: a.astype(object),
}
WEIGHT_DTYPES = {
    **{dt: (lambda dt: lambda a: a.astype(dt))(dt)
       for dt in ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
                  "float16", "float32", "longdouble")},
    "pandas_Int64": lambda a: pd.Series(a.astype(np.int64), dtype="Int64"),
    "pandas_Float64": lambda a: pd.Series(a, dtype="Float64"),
    "object_numbers": lambda a: a.astype(object),
}
# scikit-learn refuses object labels where pos_label must be inferred; so do we
_POS_INFERRED = {"roc_curve", "precision_recall_curve", "brier_score_loss", "det_curve",
                 "d2_brier_score", "calibration_error", "brier_decomposition",
                 "calibration_curve"}


def _dtype_cases(spec):
    yield from metric_cases(spec)[:1] + [
        c for c in metric_cases(spec)[1:] if c[0].ndim == 1 and c[1].ndim == 1]


@pytest.mark.parametrize("name", METRIC_NAMES)
def test_every_accepted_dtype_gives_the_float64_answer(name):
    """uint64 labels, long double weights, float16 scores, pandas nullable and
    categorical columns: each gives what int64/float64 arrays give (reproducers of
    issue 16: uint64 labels and long double weights crashed some metrics with a
    numpy casting TypeError)."""
    spec = next(s for s in specs() if s.name == name)
    fn = functools.partial(spec.function, **_keywords(spec))
    for y_true, other, kw in _dtype_cases(spec):
        expected = quiet(fn, y_true, other, **kw)
        label_like = spec.input != "values"
        for dt, convert in (LABEL_DTYPES if label_like else VALUE_DTYPES).items():
            if dt == "object_ints" and name in _POS_INFERRED:
                continue
            if y_true.ndim == 2 and dt.startswith("pandas"):  # no 2-D pandas Series
                continue
            assert_same(quiet(fn, convert(y_true), other, **kw), expected)
        second = LABEL_DTYPES if spec.input == "labels" else VALUE_DTYPES
        for dt, convert in second.items():
            if other.ndim == 2 and dt.startswith("pandas"):
                continue
            assert_same(quiet(fn, y_true, convert(other), **kw), expected)
        if takes_weights(spec):
            weighted = quiet(fn, y_true, other, sample_weight=WEIGHT, **kw)
            for convert in WEIGHT_DTYPES.values():
                assert_same(quiet(fn, y_true, other, sample_weight=convert(WEIGHT), **kw),
                            weighted)
            boolean = WEIGHT > 1
            assert_same(quiet(fn, y_true, other, sample_weight=boolean, **kw),
                        quiet(fn, y_true, other, sample_weight=boolean.astype(float), **kw))


def test_uint64_labels_in_ranking_probability_tests_and_comparisons():
    # reproducer (issue 16): uint64 labels crashed the ranking and probability
    # metrics, delong_test and compare_models with a numpy casting TypeError
    ids = np.array([7, 2**63 + 5], dtype=np.uint64)  # beyond int64: hashed, exact
    y = ids[Y_BIN]
    pos = ids[1]
    assert dm.roc_auc_score(y, SCORE) == pytest.approx(skm.roc_auc_score(Y_BIN, SCORE), rel=1e-12)
    assert dm.average_precision_score(y, SCORE, pos_label=pos) == pytest.approx(
        skm.average_precision_score(Y_BIN, SCORE), rel=1e-12)
    assert dm.log_loss(y, SCORE) == pytest.approx(skm.log_loss(Y_BIN, SCORE), rel=1e-12)
    assert dm.brier_score_loss(y, SCORE, pos_label=pos) == pytest.approx(
        skm.brier_score_loss(Y_BIN, SCORE), rel=1e-12)
    u = Y_BIN.astype(np.uint64)
    assert_same(db.delong_test(u, SCORE, SCORE_B).pvalue,
                db.delong_test(Y_BIN, SCORE, SCORE_B).pvalue)
    for metric, a, b in [(dm.roc_auc_score, SCORE, SCORE_B), (dm.log_loss, SCORE, SCORE_B),
                         (dm.accuracy_score, LABEL.astype(np.uint64), 1 - LABEL)]:
        got = db.compare_models(metric, u, a, b, n_resamples=200, random_state=0)
        plain = db.compare_models(metric, Y_BIN, a, b, n_resamples=200, random_state=0)
        assert_same((got.difference, got.pvalue), (plain.difference, plain.pvalue))
    y3 = Y3.astype(np.uint64)
    assert dm.log_loss(y3, PROBA3) == pytest.approx(skm.log_loss(Y3, PROBA3), rel=1e-12)
    assert dm.roc_auc_score(y3, PROBA3, multi_class="ovr") == pytest.approx(
        skm.roc_auc_score(Y3, PROBA3, multi_class="ovr"), rel=1e-12)


def test_long_double_weights_are_float64_or_refused_by_name():
    # reproducer (issue 16): float128 weights worked in some metrics and crashed
    # precision_score and the other count metrics with a numpy casting TypeError
    w = WEIGHT.astype(np.longdouble)
    expected = skm.precision_score(Y_BIN, LABEL, sample_weight=WEIGHT)
    assert dm.precision_score(Y_BIN, LABEL, sample_weight=w) == pytest.approx(expected, rel=1e-12)
    huge = w.copy()
    huge[0] = np.longdouble(10) ** 400  # finite as long double, infinite as float64
    tiny = w.copy()
    tiny[0] = np.longdouble(10) ** -400  # a positive weight that float64 makes zero
    if not (np.isfinite(huge[0]) and tiny[0] > 0):
        pytest.skip("long double is float64 on this platform")
    for bad in (huge, tiny):
        for metric, other in [(dm.precision_score, LABEL), (dm.roc_auc_score, SCORE),
                              (dm.log_loss, SCORE)]:
            with pytest.raises(ValueError, match="^sample_weight holds float128 values "
                                                 "outside the range of float64"):
                metric(Y_BIN, other, sample_weight=bad)
        with pytest.raises(ValueError, match="^sample_weight holds"):
            dm.mean_squared_error(Y_REG, P_REG, sample_weight=bad)
    scores = SCORE.astype(np.longdouble)
    scores[0] = np.longdouble(10) ** 400
    with pytest.raises(ValueError, match="^y_pred holds float128 values"):
        dm.mean_squared_error(Y_REG, scores)


def _lists(n):
    arr = np.empty(n, dtype=object)
    arr[:] = [[i % 2] for i in range(n)]
    return arr


@pytest.mark.parametrize("metric, other", [(dm.accuracy_score, LABEL), (dm.f1_score, LABEL),
                                           (dm.confusion_matrix, LABEL),
                                           (dm.roc_auc_score, SCORE), (dm.log_loss, SCORE),
                                           (dm.average_precision_score, SCORE)],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_object_arrays_of_lists_are_a_value_error_naming_the_argument(metric, other):
    # reproducer (issue 16): these leaked pandas' "unhashable type: 'list'"; the class is
    # scikit-learn's ValueError (issue 14)
    with pytest.raises(ValueError, match=r"^y_true contains a list \(\[0\]\) where a class "
                                         "label is expected"):
        metric(_lists(N), other)
    with pytest.raises(ValueError):
        getattr(skm, metric.__name__)(_lists(N), other)
    if other is LABEL:
        with pytest.raises(ValueError, match=r"^y_pred contains a list"):
            metric(Y_BIN, _lists(N))
    with pytest.raises(ValueError, match="^y_true contains a list"):
        db.compare_models(metric, _lists(N), other, other, n_resamples=50)


def test_refused_dtypes_name_the_argument():
    dates = np.arange(N).astype("datetime64[D]")
    for metric, other in [(dm.accuracy_score, LABEL), (dm.roc_auc_score, SCORE)]:
        with pytest.raises(ValueError, match="^y_true"):  # scikit-learn's class
            metric(Y_BIN.astype(complex), other)
        with pytest.raises(TypeError, match="^y_true"):
            metric(dates, other)
        with pytest.raises(TypeError, match="^sample_weight"):
            metric(Y_BIN, other, sample_weight=dates)
        with pytest.raises(TypeError, match="^sample_weight"):
            metric(Y_BIN, other, sample_weight=np.array(["1"] * N, dtype=object))
    with pytest.raises(ValueError, match="^y_score"):
        dm.roc_auc_score(Y_BIN, SCORE.astype(complex))


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_fold_score_functions_never_write_to_their_inputs(layout):
    folds = np.random.default_rng(5).uniform(0.6, 0.9, (4, 6))
    (f,), copies = held(layout, folds)
    (a, b), more = held(layout, folds[0], folds[1])
    assert_same(db.dart_score(f, 1.0), db.dart_score(folds, 1.0))
    got, expected = db.dart_rank(f, 1.0), db.dart_rank(folds, 1.0)
    assert_same(got[["mean", "std", "dart", "rank"]], expected[["mean", "std", "dart", "rank"]])
    assert_same(db.rank_models(f).pvalue, db.rank_models(folds).pvalue)
    got = db.cv_interval(a, n_train=100, n_test=20)
    expected = db.cv_interval(folds[0], n_train=100, n_test=20)
    assert_same((got.low, got.high), (expected.low, expected.high))
    got = db.corrected_ttest(a, b, n_train=100, n_test=20)
    expected = db.corrected_ttest(folds[0], folds[1], n_train=100, n_test=20)
    assert_same(got.pvalue, expected.pvalue)
    assert_untouched((f, a, b), copies + more)


ENGINE_LABEL_DTYPES = {k: LABEL_DTYPES[k] for k in (
    "uint64", "uint8", "int8", "float16", "float32", "longdouble", "pandas_nullable",
    "pandas_uint64", "pandas_category")}
ENGINE_LABEL_DTYPES["bool"] = lambda a: a.astype(bool)


@pytest.mark.parametrize("dt", sorted(ENGINE_LABEL_DTYPES))
def test_engines_accept_every_label_dtype(dt):
    """Tests, comparisons, intervals, the stability audit and the evaluation
    engine give the int64 answer for labels of every accepted dtype (float16 and
    long double labels crashed stability_metrics inside pandas)."""
    convert = ENGINE_LABEL_DTYPES[dt]
    y = convert(Y_BIN)
    assert_same(db.delong_test(y, SCORE, SCORE_B).pvalue,
                db.delong_test(Y_BIN, SCORE, SCORE_B).pvalue)
    assert_same(db.mcnemar_test(y, LABEL, 1 - LABEL).pvalue,
                db.mcnemar_test(Y_BIN, LABEL, 1 - LABEL).pvalue)
    kw = {"n_resamples": 200, "random_state": 0}
    for metric, other in [(dm.roc_auc_score, SCORE), (dm.accuracy_score, LABEL)]:
        got, expected = db.interval(metric, y, other, **kw), db.interval(metric, Y_BIN, other,
                                                                         **kw)
        assert_same((got.low, got.high), (expected.low, expected.high))
    got = db.compare_models(dm.roc_auc_score, y, SCORE, SCORE_B, **kw)
    expected = db.compare_models(dm.roc_auc_score, Y_BIN, SCORE, SCORE_B, **kw)
    assert_same(got.pvalue, expected.pvalue)
    probas = np.random.default_rng(3).integers(1, 64, (5, N)) / 64.0
    groups = convert(Y3) if dt != "bool" else Y3
    got = db.stability_metrics(probas, y_true=y, groups=groups).by_group
    expected = db.stability_metrics(probas, y_true=Y_BIN, groups=Y3).by_group
    assert_same(got[["n", "value", "difference", "ratio"]],
                expected[["n", "value", "difference", "ratio"]])
    got = quiet(evaluate_predictions, y, y_score=SCORE, n_resamples=50)
    expected = quiet(evaluate_predictions, Y_BIN, y_score=SCORE, n_resamples=50)
    assert [(m.estimate, m.low, m.high) for m in got.metrics] == \
        [(m.estimate, m.low, m.high) for m in expected.metrics]


@pytest.mark.parametrize("kind", ["masked", "pandas_nullable", "pyarrow", "polars",
                                  "object_none", "float_nan"])
def test_missing_groups_are_refused_by_the_engine_and_the_audit(kind):
    # a None group leaked "'>' not supported between 'int' and 'NoneType'" and a NaN
    # group became a group of its own with no rows ("y_true is empty")
    groups = np.arange(N) % 3
    make = {**MISSING,
            "object_none": lambda a: np.array([None, *a[1:]], dtype=object),
            "float_nan": lambda a: np.r_[np.nan, a[1:]]}[kind]
    with pytest.raises(ValueError, match="^group(s| column) .*(missing|masked)"):
        evaluate_predictions(Y_BIN, y_score=SCORE, groups=make(groups), n_resamples=20)
    probas = np.random.default_rng(3).random((4, N))
    with pytest.raises(ValueError, match="^groups .*(missing|masked)"):
        db.stability_metrics(probas, y_true=Y_BIN, groups=make(groups))
