"""Extreme but valid numbers give right answers; absurd ones a clear error (issue 16).

Each test names the reproducer of the issue it pins. Oracles: scikit-learn (which
computes weighted counts in float64), plain Python integers (exact at any size) and
the scale invariance of the quantity itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sklearn.metrics as skm
from scipy import stats

import dartboard as db
import dartboard.metrics as dm
from dartboard.metrics._classification_report import _classification_table

# ------------------------------------------------------------------ weights near 2**63

Y_TRUE = np.array([0, 1, 1, 0, 1, 0, 1, 1, 2, 2])
Y_PRED = np.array([0, 1, 0, 0, 1, 1, 1, 1, 2, 0])


def _big_weights() -> np.ndarray:
    w = np.full(Y_TRUE.shape[0], 2**62, dtype=np.int64)
    w[::3] = 2**61 + 12345
    return w


def _exact_matrix(w: np.ndarray) -> list[list[int]]:
    """The weighted confusion matrix in Python integers (no overflow, no rounding)."""
    m = [[0] * 3 for _ in range(3)]
    for t, p, wi in zip(Y_TRUE.tolist(), Y_PRED.tolist(), w.tolist()):
        m[t][p] += wi
    return m


def test_confusion_matrix_int_weights_near_int64_do_not_wrap():
    # reproducer: sample_weight=np.full(8, 2**62) made the counts wrap around int64
    w = _big_weights()
    got = dm.confusion_matrix(Y_TRUE, Y_PRED, sample_weight=w)
    exact = np.array(_exact_matrix(w), dtype=object)
    assert np.all(got >= 0)
    np.testing.assert_allclose(got.astype(float), exact.astype(float), rtol=1e-15)


@pytest.mark.parametrize("name, kwargs", [
    ("precision_score", {"average": "weighted"}),
    ("recall_score", {"average": "macro"}),
    ("f1_score", {"average": "micro"}),
    ("matthews_corrcoef", {}),
    ("cohen_kappa_score", {}),
    ("balanced_accuracy_score", {}),
    ("accuracy_score", {}),
    ("accuracy_score", {"normalize": False}),
    ("jaccard_score", {"average": "weighted"}),
])
def test_count_metrics_int_weights_near_int64_match_sklearn(name, kwargs):
    # reproducer: precision_score(average="weighted", sample_weight=np.full(8, 2**62))
    # returned 2.0 and matthews_corrcoef 3.0
    w = _big_weights()
    got = getattr(dm, name)(Y_TRUE, Y_PRED, sample_weight=w, **kwargs)
    want = getattr(skm, name)(Y_TRUE, Y_PRED, sample_weight=w.astype(np.float64), **kwargs)
    assert got == pytest.approx(want, rel=1e-12)


def test_precision_and_mcc_int_weights_match_python_integers():
    # reproducer: precision_score / matthews_corrcoef with 2**62 integer weights
    y, p = Y_TRUE[:8] % 2, Y_PRED[:8] % 2
    w = np.full(8, 2**62, dtype=np.int64)
    m = [[0, 0], [0, 0]]
    for t, q, wi in zip(y.tolist(), p.tolist(), w.tolist()):
        m[t][q] += wi
    (tn, fp), (fn, tp) = m
    assert dm.precision_score(y, p, sample_weight=w) == pytest.approx(tp / (tp + fp))
    mcc = (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    assert dm.matthews_corrcoef(y, p, sample_weight=w) == pytest.approx(mcc)
    assert -1 <= dm.matthews_corrcoef(y, p, sample_weight=w) <= 1


def test_ordinary_int_weights_keep_integer_counts():
    w = np.arange(1, Y_TRUE.shape[0] + 1)
    got = dm.confusion_matrix(Y_TRUE, Y_PRED, sample_weight=w)
    want = skm.confusion_matrix(Y_TRUE, Y_PRED, sample_weight=w)
    assert got.dtype.kind == "i"
    np.testing.assert_array_equal(got, want)


def test_merged_counts_near_int64_do_not_wrap():
    # the same rule for a streaming state: merged integer counts stay integers only
    # while exact, then become float64 instead of wrapping around
    from dartboard.metrics import ConfusionCounts
    big = [[2**62, 2**61], [2**60, 2**62]]
    merged = ConfusionCounts([0, 1], big).merge(ConfusionCounts([0, 1], big))
    np.testing.assert_allclose(merged.matrix, np.array([[2 * v for v in row] for row in big],
                                                       dtype=float), rtol=1e-15)
    (tn, fp), (fn, tp) = big
    assert merged.compute("accuracy_score") == pytest.approx((tp + tn) / (tn + fp + fn + tp))
    small = ConfusionCounts([0, 1], [[3, 1], [2, 5]])
    assert small.merge(small).matrix.dtype.kind == "i"


@pytest.mark.parametrize("name", ["mean_squared_error", "mean_absolute_error", "r2_score",
                                  "explained_variance_score"])
def test_regression_int_weights_near_int64_match_float_weights(name):
    rng = np.random.default_rng(3)
    y, p = rng.random(12) + 1, rng.random(12) + 1
    w = np.full(12, 2**62, dtype=np.int64)
    w[::4] = 2**61
    got = getattr(dm, name)(y, p, sample_weight=w)
    want = getattr(skm, name)(y, p, sample_weight=w.astype(np.float64))
    assert got == pytest.approx(want, rel=1e-12)


# ------------------------------------------------------------------ cosine at 1e+-200

@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e-100, 1.0, 1e100, 1e200, 1e300])
def test_cosine_similarity_is_invariant_to_scale(scale):
    # reproducer: cosine_similarity(x * 1e200, y) returned 0.0 (the squares overflowed)
    x, y = np.array([1.0, 2.0, 3.0]), np.array([3.0, 1.0, 2.0])
    want = float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))
    assert dm.cosine_similarity(x * scale, y) == pytest.approx(want, rel=1e-14)
    assert dm.cosine_similarity(x, y * scale) == pytest.approx(want, rel=1e-14)
    rows = dm.cosine_similarity(np.vstack([x * scale, y]), np.vstack([y, x / scale]))
    np.testing.assert_allclose(rows, [want, want], rtol=1e-14)


def test_cosine_similarity_zero_vector_still_refused_after_scaling():
    with pytest.raises(ValueError, match="a is a zero vector"):
        dm.cosine_similarity([0.0, 0.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="b has 1 zero vector"):
        dm.cosine_similarity([[1.0, 2.0], [1.0, 1.0]], [[0.0, 0.0], [1.0, 1.0]])


# ------------------------------------------------------------------ degenerate tests

def test_delong_two_samples_refuses_zero_variance():
    # reproducer: delong_test on n = 2 returned statistic inf and p = 0
    with pytest.raises(ValueError, match="variance of the difference is 0"):
        db.delong_test([0, 1], [0.2, 0.8], [0.8, 0.2])


def test_delong_separable_scores_refuse_zero_variance():
    # one model ranks every positive first, the other every positive last: all
    # placements are constant, so DeLong's variance is 0 at any n
    y = np.repeat([0, 1], 50)
    s = np.arange(100.0)
    with pytest.raises(ValueError, match="compare_models"):
        db.delong_test(y, s, -s)


def test_delong_zero_variance_equal_aucs_is_no_evidence():
    res = db.delong_test([0, 1], [0.2, 0.8], [0.3, 0.6])
    assert res.statistic == 0.0 and res.pvalue == 1.0


def test_corrected_ttest_two_equal_differences_refused():
    # the same failure as DeLong's: constant differences gave t = inf, p = 0
    with pytest.raises(ValueError, match="permutation_test"):
        db.corrected_ttest([0.8, 0.8], [0.7, 0.7], n_train=10, n_test=5)


def test_other_asymptotic_tests_never_give_p0_from_no_spread():
    # McNemar's chi-square with one discordant pair: (|1 - 0| - 1)^2 / 1 = 0
    res = db.mcnemar_test([[5, 1], [0, 5]], exact=False)
    assert res.statistic == 0.0 and res.pvalue == 1.0
    res = db.mcnemar_test([[5, 0], [0, 5]], exact=False)
    assert res.pvalue == 1.0
    # Friedman with every row tied: no evidence, p = 1 (scipy refuses this table)
    res = db.rank_models(np.ones((2, 3)))
    assert res.pvalue == 1.0
    # the smallest Friedman table: p from the chi-square with 1 df, as scipy's formula
    res = db.rank_models(np.array([[1.0, 0.0], [1.0, 0.0]]))
    assert res.pvalue == pytest.approx(float(stats.chi2.sf(2.0, 1)))


# ------------------------------------------------------------------ n_resamples bounds

def _resampling_calls(tmp_path):
    """Every public path that takes n_resamples, as call(n_resamples)."""
    import pandas as pd

    from dartboard.evaluation._engine import evaluate_predictions
    from dartboard.metrics import ConfusionCounts
    from dartboard.scale import evaluate_parquet
    from dartboard.uncertainty import interval_from_counts

    y = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    p = np.array([0, 1, 0, 0, 1, 1, 1, 1])
    q = np.array([1, 1, 0, 0, 1, 0, 1, 0])
    path = tmp_path / "preds.parquet"
    pd.DataFrame({"y": y, "p": p}).to_parquet(path)
    counts = ConfusionCounts([0, 1], [[3, 1], [1, 5]])
    return {
        "interval": lambda r: db.interval(dm.f1_score, y, p, n_resamples=r, method="bca"),
        "interval_from_counts": lambda r: interval_from_counts(
            "f1_score", counts, n_resamples=r),
        "compare_models": lambda r: db.compare_models(dm.accuracy_score, y, p, q,
                                                      n_resamples=r),
        "permutation_test": lambda r: db.permutation_test(
            np.arange(30.0), np.arange(30.0)[::-1], n_resamples=r),
        "evaluate_predictions": lambda r: evaluate_predictions(y, y_pred=p, n_resamples=r),
        "evaluate_parquet": lambda r: evaluate_parquet(
            str(path), y_true="y", y_pred="p", confidence_level=0.95,
            ci="bca", n_resamples=r),
    }


@pytest.mark.parametrize("name", ["interval", "interval_from_counts", "compare_models",
                                  "permutation_test", "evaluate_predictions",
                                  "evaluate_parquet"])
def test_huge_n_resamples_refused_before_allocation(name, tmp_path):
    # reproducer: interval(n_resamples=10**12) tried to allocate 7 TiB
    call = _resampling_calls(tmp_path)[name]
    with pytest.raises(ValueError, match=r"n_resamples must be at most 100_000_000"):
        call(10**12)
    with pytest.raises(TypeError, match="n_resamples must be an integer"):
        call(1e4)


@pytest.mark.parametrize("name", ["interval", "interval_from_counts", "compare_models",
                                  "permutation_test", "evaluate_predictions",
                                  "evaluate_parquet"])
@pytest.mark.filterwarnings("ignore:the metric is undefined on")
def test_n_resamples_limit_lives_in_one_place(name, tmp_path, monkeypatch):
    # lowering the one documented maximum moves the limit of every path
    import dartboard._validation as validation
    call = _resampling_calls(tmp_path)[name]
    monkeypatch.setattr(validation, "MAX_RESAMPLES", 40)
    call(40)
    with pytest.raises(ValueError, match="n_resamples must be at most 40"):
        call(41)


def test_huge_n_bins_refused_before_allocation(tmp_path):
    # the same failure as n_resamples: n_bins=10**12 tried to allocate 7 TiB
    import pandas as pd

    from dartboard.evaluation import calibration_points
    from dartboard.scale import evaluate_parquet
    with pytest.raises(ValueError, match="n_bins must be at most 100000000"):
        calibration_points([0, 1, 1, 0], [0.1, 0.8, 0.7, 0.3], n_bins=10**12)
    path = tmp_path / "scores.parquet"
    pd.DataFrame({"y": [0, 1, 1, 0], "s": [0.1, 0.8, 0.7, 0.3]}).to_parquet(path)
    with pytest.raises(ValueError, match="n_bins must be at most 100000000"):
        evaluate_parquet(str(path), y_true="y", y_score="s", exact=False, n_bins=10**12,
                         metrics=["roc_auc_score"])


def test_huge_stability_ensemble_refused_before_seeding():
    # n_estimators=10**12 spawned seeds for hours instead of saying no
    from sklearn.linear_model import LogisticRegression
    x = np.random.default_rng(0).random((20, 2))
    y = np.array([0, 1] * 10)
    with pytest.raises(ValueError, match="n_estimators must be at most 10000"):
        db.stability_audit(LogisticRegression(), x, y, x, y, n_estimators=10**12)


# ------------------------------------------------------------------ absurd option values

def test_cv_interval_huge_n_train_is_a_number_not_a_ufunc_error():
    # reproducer: cv_interval(n_train=10**30) leaked numpy's ufunc TypeError
    scores = [0.8, 0.9, 0.85]
    huge = db.cv_interval(scores, n_train=10**30, n_test=10)
    # n_test / n_train = 1e-29: the correction vanishes, leaving the plain t interval
    plain = db.cv_interval(scores)
    assert huge.method == "nadeau-bengio"
    assert (huge.low, huge.high) == pytest.approx((plain.low, plain.high), rel=1e-12)
    with pytest.raises(ValueError, match="n_train must be a positive, finite number"):
        db.cv_interval(scores, n_train=10**400, n_test=10)
    with pytest.raises(TypeError, match="n_test must be a positive number of samples"):
        db.cv_interval(scores, n_train=100, n_test="10")


def test_compare_models_string_scores_name_the_argument():
    # reproducer: compare_models with scores given as strings leaked a comparison
    # TypeError ('<' not supported between instances of 'float' and 'str')
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    s = np.array([0.1, 0.9, 0.4, 0.3, 0.8, 0.6, 0.7, 0.65])
    with pytest.raises(TypeError, match="pred_a must be numeric"):
        db.compare_models(dm.roc_auc_score, y, s.astype(str), s, n_resamples=20)
    with pytest.raises(TypeError, match="pred_b must be numeric"):
        db.compare_models(dm.roc_auc_score, y, s, [f"x{v}" for v in s], n_resamples=20)
    with pytest.raises(TypeError, match="pred_a must be numeric"):
        db.compare_models(dm.roc_auc_score, y, np.array(["a"] * 8, dtype=object), s,
                          n_resamples=20)
    with pytest.raises(TypeError, match="pred_a has string labels but pred_b has number"):
        db.compare_models(dm.accuracy_score, y, y.astype(str), y, n_resamples=20)


@pytest.mark.filterwarnings("ignore:the metric is undefined on")
def test_compare_models_numeric_object_scores_match_float_scores():
    # an object column of numbers is the same scores: the same answer as floats
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    a = np.array([0.1, 0.9, 0.4, 0.3, 0.8, 0.6, 0.7, 0.65])
    b = np.array([0.2, 0.3, 0.5, 0.1, 0.9, 0.4, 0.6, 0.8])
    got = db.compare_models(dm.roc_auc_score, y, a.astype(object), b, n_resamples=200,
                            random_state=0)
    want = db.compare_models(dm.roc_auc_score, y, a, b, n_resamples=200, random_state=0)
    assert got.difference == want.difference == pytest.approx(
        skm.roc_auc_score(y, a) - skm.roc_auc_score(y, b))
    assert got.pvalue == want.pvalue


# ------------------------------------------------------------------ option checks

def test_accuracy_normalize_none_refused_like_sklearn():
    # reproducer: accuracy_score(normalize=None) returned a count. scikit-learn 1.9
    # raises InvalidParameterError, both a ValueError and a TypeError.
    from sklearn.utils._param_validation import InvalidParameterError as SkInvalid
    y, p = [0, 1, 1, 0], [0, 1, 0, 0]
    for bad in (None, "x", 1, 0):
        with pytest.raises(SkInvalid):
            skm.accuracy_score(y, p, normalize=bad)
        with pytest.raises(ValueError, match="normalize must be True or False"):
            dm.accuracy_score(y, p, normalize=bad)
        with pytest.raises(TypeError, match="normalize must be True or False"):
            dm.accuracy_score(["a", "b", "b", "a"], ["a", "b", "a", "a"], normalize=bad)
    assert dm.accuracy_score(y, p, normalize=np.False_) == skm.accuracy_score(
        y, p, normalize=False)


@pytest.mark.parametrize("name, args, flag", [
    ("accuracy_score", ([0, 1, 1], [0, 1, 0]), "normalize"),
    ("balanced_accuracy_score", ([0, 1, 1], [0, 1, 0]), "adjusted"),
    ("roc_curve", ([0, 1, 1], [0.2, 0.7, 0.4]), "drop_intermediate"),
    ("precision_recall_curve", ([0, 1, 1], [0.2, 0.7, 0.4]), "drop_intermediate"),
    ("log_loss", ([0, 1, 1], [0.2, 0.7, 0.4]), "normalize"),
    ("r2_score", ([1.0, 2.0, 3.0], [1.5, 2.0, 2.5]), "force_finite"),
    ("explained_variance_score", ([1.0, 2.0, 3.0], [1.5, 2.0, 2.5]), "force_finite"),
])
def test_boolean_flags_refuse_non_booleans(name, args, flag):
    # reproducer: "x" was accepted as a boolean flag (truthy, so silently True)
    for bad in ("x", None):
        with pytest.raises(ValueError, match=f"{flag} must be True or False"):
            getattr(dm, name)(*args, **{flag: bad})
        with pytest.raises((ValueError, TypeError)):  # scikit-learn refuses it too
            getattr(skm, name)(*args, **{flag: bad})


@pytest.mark.parametrize("digits, exc", [(-1, ValueError), ("x", TypeError),
                                         (2.0, TypeError), (True, TypeError)])
def test_classification_report_digits_checked(digits, exc):
    # reproducer: digits=-1 was accepted and digits="x" leaked a pandas error
    with pytest.raises(exc, match="digits must be an integer >= 0"):
        dm.classification_report([0, 1, 1], [0, 1, 0], digits=digits)
    report = _classification_table([0, 1, 1], [0, 1, 0], digits=0)
    assert set(report["precision"]) <= {0.0, 1.0}
    with pytest.raises(exc, match="digits must be None or an integer >= 0"):
        _classification_table([0, 1, 1], [0, 1, 0], digits=digits)


def test_exact_permutation_test_checks_random_state():
    # reproducer: random_state="seed" was accepted by the exact permutation test
    a, b = [1.0, 2.0, 3.0], [2.0, 1.0, 1.5]
    with pytest.raises(TypeError, match="random_state must be"):
        db.permutation_test(a, b, random_state="seed")
    with pytest.raises(ValueError, match="random_state must be non-negative"):
        db.permutation_test(a, b, random_state=-1)
    # a legacy RandomState is valid and the exact test leaves its stream alone
    legacy = np.random.RandomState(0)
    res = db.permutation_test(a, b, random_state=legacy)
    assert res.exact
    assert legacy.randint(1000) == np.random.RandomState(0).randint(1000)


# ------------------------------------------------------------------ dart_rank input

def _cv_results(split1):
    return {"params": [{"a": 1}, {"a": 2}, {"a": 3}],
            "split0_test_score": np.array([0.8, 0.7, 0.9]),
            "split1_test_score": split1,
            "mean_test_score": np.array([0.81, 0.7, 0.9])}


@pytest.mark.parametrize("split1", [np.array([0.82, 0.71]), np.array([0.8, 0.7, 0.9, 0.5])])
def test_dart_rank_split_column_of_wrong_length(split1):
    # reproducer: a short split column leaked numpy's concatenate error
    with pytest.raises(ValueError, match="every split column must hold one score per "
                                         "configuration.*split1_test_score: "):
        db.dart_rank(_cv_results(split1), 1.0)


def test_dart_rank_nested_split_column_refused():
    # a (3, 2) column was silently read as two more folds
    with pytest.raises(ValueError, match=r"results\['split1_test_score'\] must be 1-D"):
        db.dart_rank(_cv_results([[0.8, 0.7], [0.1, 0.2], [0.3, 0.4]]), 1.0)
    with pytest.raises(TypeError, match=r"results\['split1_test_score'\] must be numeric"):
        db.dart_rank(_cv_results(["a", "b", "c"]), 1.0)


def test_dart_rank_well_formed_results_unchanged():
    split1 = np.array([0.82, 0.71, 0.88])
    frame = db.dart_rank(_cv_results(split1), 1.0)
    scores = np.column_stack([[0.8, 0.7, 0.9], split1])
    # DART = (1 + log2(mean)) / exp(p * sd), sd with ddof = 1 (plain formula)
    dart = (1 + np.log2(scores.mean(axis=1))) / np.exp(scores.std(axis=1, ddof=1))
    np.testing.assert_allclose(frame.sort_index()["dart"].to_numpy(), dart, rtol=1e-12)
