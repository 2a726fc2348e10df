"""Batched count metrics against the samples each confusion matrix describes.

The oracle shares no rule with dartboard: every replicate matrix is expanded into
the samples it counts (one weighted (true, predicted) pair per nonzero cell), and
the metric of those samples comes from sklearn.metrics. dartboard's extra rates are
sklearn recalls of relabelled samples (specificity of class c = TN / (TN + FP) is
the recall of "not c" predicted as "not c"), averaged by sklearn's own nan-average.
A value is undefined when it depends on ``zero_division`` (0 and 1 give different
numbers): that is what ``undefined="nan"`` must turn into nan.
"""

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.extmath import _nanaverage

import dartboard.metrics as dm
from dartboard.metrics import ConfusionCounts
from dartboard.metrics._batched import SCALAR_COUNT_METRICS, batch_count_metric
from dartboard.metrics._registry import get_spec, specs

SET_METRICS = sorted(s.name for s in specs(kind="count", scalar=True) if s.average)

# dartboard's rates as sklearn recalls of relabelled samples: (truth, prediction) for
# class c, or for the micro average the concatenation over the classes
_AS_RECALL = {
    "specificity_score": lambda y, p, c: (y != c, p != c),      # TN / (TN + FP)
    "false_positive_rate": lambda y, p, c: (y != c, p == c),    # FP / (FP + TN)
    "false_negative_rate": lambda y, p, c: (y == c, p != c),    # FN / (FN + TP)
    "selection_rate": lambda y, p, c: (np.ones_like(y, bool), p == c),  # (TP + FP) / N
    "negative_predictive_value": lambda y, p, c: (p != c, y != c),  # TN / (TN + FN)
}


def _samples(classes, m):
    t, p = np.nonzero(m)
    return classes[t], classes[p], m[t, p]


def _sk_set(name, y, p, w, kw):
    """sklearn's value of a set-wise metric on weighted samples."""
    if name not in _AS_RECALL:
        return getattr(skm, name)(y, p, sample_weight=w, **kw)
    average, zd = kw.get("average", "binary"), kw.get("zero_division", "warn")
    classes = [kw.get("pos_label", 1)] if average == "binary" else (
        kw["labels"] if kw.get("labels") is not None else np.unique(np.r_[y, p]))

    def recall(truth, pred, weight):
        return skm.recall_score(truth, pred, sample_weight=weight, zero_division=zd)

    pairs = [_AS_RECALL[name](y, p, c) for c in classes]
    if average == "micro":
        return recall(np.concatenate([t for t, _ in pairs]),
                      np.concatenate([q for _, q in pairs]), np.tile(w, len(pairs)))
    values = np.array([recall(t, q, w) for t, q in pairs])
    if average == "binary":
        return values[0]
    support = np.array([w[y == c].sum() for c in classes])
    return _nanaverage(values, weights=support if average == "weighted" else None)


def _quiet(f, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(f(*args, **kw))


def _stack(seed, k, sparsity, float_weights, strings, n=5):
    """n random confusion matrices, each with at least one sample, many with absent
    classes, and the classes (ints or strings) indexing them."""
    rng = np.random.default_rng(seed)
    m = rng.integers(0, 5, (n, k, k)) * (rng.random((n, k, k)) > sparsity)
    m[np.arange(n), rng.integers(0, k, n), rng.integers(0, k, n)] += 1
    m = m.astype(float)
    m[0] = 0
    m[0, k - 1, k - 1] = 3  # one class only: many ratios are 0/0
    if float_weights:
        m *= rng.choice([0.5, 1.0, 2.25], size=m.shape)
    classes = np.array(["ant", "bee", "cat", "dog"][:k]) if strings else np.arange(k) * 2
    return classes, m


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 4), name=st.sampled_from(SET_METRICS),
       average=st.sampled_from(["binary", "micro", "macro", "weighted"]),
       zero_division=st.sampled_from(["warn", 0.0, 1.0, np.nan]),
       labels=st.sampled_from([None, "subset", "with_absent"]),
       pos=st.integers(0, 2), beta=st.sampled_from([0.0, 0.5, 2.0, np.inf]),
       sparsity=st.floats(0.0, 0.9), float_weights=st.booleans(), strings=st.booleans())
def test_set_metrics_batched_equal_one_matrix_equal_sklearn(seed, k, name, average,
                                                            zero_division, labels, pos, beta,
                                                            sparsity, float_weights, strings):
    if average == "binary":
        k = min(k, 2)
    classes, m = _stack(seed, k, sparsity, float_weights, strings)
    absent = "eel" if strings else 99
    kw = {"average": average, "zero_division": zero_division}
    if name == "fbeta_score":
        kw["beta"] = beta
    if average == "binary":
        # pos_label absent from the data when there is a single class
        kw["pos_label"] = classes[pos % 2] if k == 2 else (classes[0] if pos == 0 else absent)
    elif labels is not None:
        order = np.random.default_rng(seed).permutation(k)[:max(1, k - 1)]
        kw["labels"] = list(classes[order]) + ([absent] if labels == "with_absent" else [])
    if name == "jaccard_score" and zero_division not in ("warn", 0.0, 1.0):
        return  # sklearn's jaccard takes zero_division in {"warn", 0, 1} only
    got = batch_count_metric(name, classes, m, kw)
    got_nan = batch_count_metric(name, classes, m, kw, undefined="nan")
    for r in range(m.shape[0]):
        y, p, w = _samples(classes, m[r])
        want = _quiet(_sk_set, name, y, p, w, kw)
        one = _quiet(getattr(dm, name), y, p, sample_weight=w, **kw)
        np.testing.assert_allclose([got[r], one], want, rtol=1e-9, atol=1e-12,
                                   equal_nan=True)
        # the metric is one ratio: binary, micro, or a single reported class
        whole = average in ("binary", "micro") or len(kw.get("labels", classes)) == 1
        undefined = whole and zero_division == "warn" and (
            _quiet(_sk_set, name, y, p, w, {**kw, "zero_division": 0.0})
            != _quiet(_sk_set, name, y, p, w, {**kw, "zero_division": 1.0}))
        np.testing.assert_allclose(got_nan[r], np.nan if undefined else want, rtol=1e-9,
                                   atol=1e-12, equal_nan=True)


WHOLE_CASES = [
    ("accuracy_score", {}), ("accuracy_score", {"normalize": False}),
    ("matthews_corrcoef", {}), ("balanced_accuracy_score", {}),
    ("balanced_accuracy_score", {"adjusted": True}), ("cohen_kappa_score", {}),
    ("cohen_kappa_score", {"weights": "linear"}),
    ("cohen_kappa_score", {"weights": "quadratic"}),
    ("cohen_kappa_score", {"labels": "listed"}),
    ("cohen_kappa_score", {"labels": "listed", "weights": "quadratic",
                           "replace_undefined_by": -1.0}),
]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 4), case=st.sampled_from(WHOLE_CASES),
       sparsity=st.floats(0.0, 0.9), float_weights=st.booleans(), strings=st.booleans())
def test_whole_matrix_metrics_batched_equal_one_matrix_equal_sklearn(seed, k, case, sparsity,
                                                                    float_weights, strings):
    name, kw = case
    classes, m = _stack(seed, k, sparsity, float_weights, strings)
    kw = dict(kw)
    if kw.get("labels") == "listed":  # a reversed subset plus a label absent from the data
        kw["labels"] = list(classes[::-1][:max(1, k - 1)]) + ["eel" if strings else 99]
    got = batch_count_metric(name, classes, m, kw)
    got_nan = batch_count_metric(name, classes, m, kw, undefined="nan")
    for r in range(m.shape[0]):
        y, p, w = _samples(classes, m[r])
        if name == "cohen_kappa_score" and "labels" in kw and not np.isin(kw["labels"], y).any():
            # the samples' metric refuses labels none of which is in y1; a replicate is
            # then undefined
            assert got[r] == kw.get("replace_undefined_by", np.nan) or np.isnan(got[r])
            assert np.isnan(got_nan[r])
            continue
        want = _quiet(getattr(skm, name), y, p, sample_weight=w, **kw)
        # sklearn's adjusted balanced accuracy of one class divides by 0: -inf, or nan
        # for a perfect score; dartboard gives the same (a replicate: undefined, nan)
        one_class = name == "balanced_accuracy_score" and not np.isfinite(want)
        one = _quiet(getattr(dm, name), y, p, sample_weight=w, **kw)
        np.testing.assert_allclose([got[r], one], want, rtol=1e-9, atol=1e-12,
                                   equal_nan=True)
        undefined = one_class or name == "cohen_kappa_score" and (
            _quiet(skm.cohen_kappa_score, y, p, sample_weight=w,
                   **{**kw, "replace_undefined_by": 0.0})
            != _quiet(skm.cohen_kappa_score, y, p, sample_weight=w,
                      **{**kw, "replace_undefined_by": 1.0}))
        np.testing.assert_allclose(got_nan[r], np.nan if undefined else want, rtol=1e-9,
                                   atol=1e-12, equal_nan=True)


def test_a_state_computes_what_the_stack_of_one_gives():
    # a stack of one matrix equals the state's own value (every class has samples)
    state = ConfusionCounts([0, 1, 2], [[3, 1, 0], [2, 4, 1], [0, 1, 5]])
    for name in sorted(SCALAR_COUNT_METRICS):
        kw = {"average": "macro"} if name in SET_METRICS else {}
        if name == "fbeta_score":
            kw["beta"] = 2.0
        got = batch_count_metric(name, state.classes, state.matrix[None], kw)
        assert got[0] == pytest.approx(state.compute(name, **kw), rel=1e-12)


def test_every_scalar_count_metric_is_known_to_the_state():
    state = ConfusionCounts([0, 1], [[3, 1], [2, 4]])
    for name in SCALAR_COUNT_METRICS:
        kw = {"beta": 1.0} if name == "fbeta_score" else {}
        assert np.isfinite(state.compute(name, **kw))


@pytest.mark.parametrize("kw, exc, match", [
    ({"average": None}, ValueError, "single number"),
    ({"average": "sideways"}, ValueError, "average"),
    ({"beta": -1.0}, ValueError, "beta"),
    ({"colour": "red"}, TypeError, "unexpected keyword"),
])
def test_bad_keywords(kw, exc, match):
    name = "fbeta_score" if "beta" in kw else "f1_score"
    with pytest.raises(exc, match=match):
        batch_count_metric(name, np.arange(3), np.ones((2, 3, 3)), kw)


def test_bad_keywords_of_whole_matrix_metrics():
    with pytest.raises(TypeError, match="matthews_corrcoef got unexpected keyword"):
        batch_count_metric("matthews_corrcoef", np.arange(2), np.ones((1, 2, 2)),
                           {"average": "macro"})
    with pytest.raises(ValueError, match="weights must be one of"):
        batch_count_metric("cohen_kappa_score", np.arange(2), np.ones((1, 2, 2)),
                           {"weights": "cubic"})


def test_not_a_scalar_count_metric_is_refused():
    for name in ("confusion_matrix", "roc_auc_score", "precision_recall_fscore_support"):
        with pytest.raises(ValueError, match="name must be one of"):
            batch_count_metric(name, np.arange(2), np.ones((1, 2, 2)), {})


def test_binary_average_on_three_classes_is_refused():
    with pytest.raises(ValueError, match="multiclass"):
        batch_count_metric("recall_score", np.arange(3), np.ones((2, 3, 3)), {})


def test_pos_label_not_among_two_classes_is_refused_as_by_the_metric():
    m = np.ones((2, 2, 2))
    with pytest.raises(ValueError, match="pos_label=5 is not a valid label"):
        batch_count_metric("recall_score", np.arange(2), m, {"pos_label": 5})
    with pytest.raises(ValueError, match="pos_label=5 is not a valid label"):
        skm.recall_score([0, 1], [1, 0], pos_label=5)


def test_unknown_undefined_mode():
    with pytest.raises(ValueError, match="undefined"):
        batch_count_metric("accuracy_score", np.arange(2), np.ones((1, 2, 2)), {},
                           undefined="zero")


def test_replicates_do_not_warn():
    m = np.array([[[0, 0], [0, 5]], [[5, 0], [0, 0]]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("precision_score", "cohen_kappa_score", "balanced_accuracy_score"):
            kw = {"adjusted": True} if name == "balanced_accuracy_score" else {}
            batch_count_metric(name, np.arange(2), m, kw)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([1.0, 1e-8, 1e8]),
       whole=st.booleans())
def test_two_class_counts_are_numpys_sums_bit_for_bit(seed, scale, whole):
    """The 2 x 2 path adds the cells where the general one reduces axes: the same
    (tp, fp, fn, tn) to the last bit, on weights of very different sizes too."""
    from dartboard.metrics._count_formulas import set_counts

    rng = np.random.default_rng(seed)
    m = rng.random((500, 2, 2)) * scale * rng.choice([1e-3, 1.0, 1e3], (500, 2, 2))
    if whole:
        m = np.round(m * 1000)
    counts, _ = set_counts(m, None, np.array([0, 1]), "macro")
    tp = np.diagonal(m, axis1=-2, axis2=-1)
    total = m.sum(axis=(-2, -1))[..., None]
    fp, fn = m.sum(axis=-2) - tp, m.sum(axis=-1) - tp
    for key, want in {"tp": tp, "fp": fp, "fn": fn, "tn": total - tp - fp - fn}.items():
        np.testing.assert_array_equal(counts[key], want)


def _reduced(name, classes, m, kw):
    """The metric with every class axis summed by numpy's reduction."""
    from dartboard.metrics import _count_formulas as cf

    old = cf.ADDED_SUMS_MAX
    cf.ADDED_SUMS_MAX = 0
    try:
        return batch_count_metric(name, classes, m, kw, undefined="nan")
    finally:
        cf.ADDED_SUMS_MAX = old


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 5),
       name=st.sampled_from(sorted(SCALAR_COUNT_METRICS)), zeros=st.floats(0.0, 0.6))
def test_sums_written_as_additions_are_numpys_reductions_bit_for_bit(seed, k, name, zeros):
    """Every scalar count metric of weighted matrices (1 to 5 classes, empty cells and
    classes) is the same to the last bit whether a short class axis is summed by
    additions or by numpy's reduction."""
    rng = np.random.default_rng(seed)
    m = rng.random((200, k, k)) * rng.choice([1e-3, 1.0, 1e3], (200, k, k))
    m[rng.random(m.shape) < zeros] = 0.0
    classes = np.arange(k)
    kw = {} if k == 2 or not get_spec(name).average else {"average": "macro"}
    try:
        added = batch_count_metric(name, classes, m, kw, undefined="nan")
    except (ValueError, TypeError) as exc:  # refused both ways alike
        with pytest.raises(type(exc)):
            _reduced(name, classes, m, kw)
        return
    np.testing.assert_array_equal(added, _reduced(name, classes, m, kw))
