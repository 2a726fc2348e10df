"""Labels: the positive-class rules against scikit-learn, encoding and counting
against a plain oracle (np.unique, then np.add.at one sample at a time)."""

from __future__ import annotations

import warnings
from unittest import mock

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import dartboard.metrics as dm
from dartboard import _labels as lab

# ------------------------------------------------------------------ the positive class
# Oracles: the fraction of samples scikit-learn treats as positive, read from its
# public functions on scores of zeros. precision_recall_curve follows
# _check_pos_label_consistency (our "strict"); brier_score_loss (1/2 sum of squares
# of one-hot minus [1, 0]) is that fraction under the backward-compatible rule
# ("numbers"). "greater" is dartboard's own: the greater label, np.unique(y)[-1].

LABEL_SETS = {
    "{0, 1}": np.array([0, 1, 1]),
    "{-1, 1}": np.array([-1, 1, 1]),
    "{1, 2}": np.array([1, 2, 2]),
    "{-1, 0}": np.array([0, -1, -1]),
    "{0.0, 1.0}": np.array([0.0, 1.0, 1.0]),
    "bools": np.array([False, True, True]),
    "strings": np.array(["no", "yes", "yes"]),
    "single 0": np.array([0, 0]),
    "single 1": np.array([1, 1]),
    "single -1": np.array([-1, -1]),
    "single 2": np.array([2, 2]),
    "single string": np.array(["a", "a"]),
    "object {0, 1}": np.array([0, 1, 1], dtype=object),
}
POS_LABELS = [None, 1, 0, 2, -1, "1", "yes", "a", 1.0, True, np.int64(1), np.str_("yes"), 5]


def sklearn_fraction(rule, y, pos_label):
    """Fraction of positive samples as scikit-learn decides it; None if it raises."""
    zeros = np.zeros(y.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if rule == "strict":
                return float(skm.precision_recall_curve(y, zeros, pos_label=pos_label)[0][0])
            return skm.brier_score_loss(y, zeros, pos_label=pos_label)
        except ValueError:
            return None


def our_fraction(rule, y, pos_label):
    classes = np.unique(y)
    try:
        i = lab.positive_index(classes, pos_label, infer=rule)
    except ValueError:
        return None
    return 0.0 if i < 0 else float(np.mean(y == classes[i]))


@pytest.mark.parametrize("rule", ["strict", "numbers"])
@pytest.mark.parametrize("name", list(LABEL_SETS))
@pytest.mark.parametrize("pos_label", POS_LABELS, ids=repr)
def test_rules_equal_sklearn(rule, name, pos_label):
    y = LABEL_SETS[name]
    # scikit-learn rejects an object array of numbers whatever pos_label is; given
    # one, dartboard reads the numbers as scikit-learn reads them in an int array
    oracle_y = y.astype(np.int64) if y.dtype.kind == "O" and pos_label is not None else y
    assert our_fraction(rule, y, pos_label) == sklearn_fraction(rule, oracle_y, pos_label)


@pytest.mark.parametrize("name", list(LABEL_SETS))
def test_greater_rule_takes_the_greater_label(name):
    y = LABEL_SETS[name]
    classes = np.unique(y)
    values = classes.tolist()
    numeric = classes.dtype.kind not in "OUS" or all(isinstance(v, int) for v in values)
    # one class of {0, 1} or {-1, 1} (all-negative data): still positive class 1
    if numeric and len(values) == 1 and values[0] in (0, -1):
        assert lab.positive_label(classes, infer="greater") == 1
        assert lab.positive_index(classes, infer="greater") == -1
        return
    assert lab.positive_index(classes, infer="greater") == classes.shape[0] - 1
    assert lab.positive_label(classes, infer="greater") == values[-1]
    # a given pos_label always wins
    assert lab.positive_label(classes, "x", infer="greater") == "x"


def test_rules_in_words():
    # the three rules differ only where the labels are not {0, 1} or {-1, 1}
    for rule in lab.INFER_RULES:
        assert lab.positive_label(np.array([0, 1]), infer=rule) == 1
        assert lab.positive_label(np.array([-1, 1]), infer=rule) == 1
        assert lab.positive_label(np.array([False, True]), infer=rule) == 1
    with pytest.raises(ValueError, match=r"y_true takes value in \{1, 2\} and pos_label is "
                                         "not specified"):
        lab.positive_label(np.array([1, 2]))
    assert lab.positive_label(np.array([1, 2]), infer="numbers") == 2
    assert lab.positive_label(np.array([1, 2]), infer="greater") == 2
    with pytest.raises(ValueError, match=r"\{'no', 'yes'\} and pos_label is not specified"):
        lab.positive_label(np.array(["no", "yes"]), infer="numbers")
    assert lab.positive_label(np.array(["no", "yes"]), infer="greater") == "yes"
    # no labels at all (an empty batch): {0, 1}'s positive class
    assert [lab.positive_label((), infer=r) for r in lab.INFER_RULES] == [1, 1, 1]
    with pytest.raises(ValueError, match="dtype object: convert it to a numeric dtype"):
        lab.positive_label(np.array([0, 1], dtype=object))
    with pytest.raises(ValueError, match=r"infer must be one of \('strict', 'numbers', "
                                         r"'greater'\); got 'larger'"):
        lab.positive_index(np.array([0, 1]), infer="larger")


def test_pos_label_of_the_wrong_type_matches_nothing():
    assert lab.positive_index(np.array([0, 1]), "1") == -1
    assert lab.positive_index(np.array(["0", "1"]), 1) == -1
    assert lab.positive_index(np.array([0, 1]), 1.0) == 1
    assert lab.positive_index(np.array([0, 1]), True) == 1
    assert not lab.same_label(1, "1") and lab.same_label("a", np.str_("a"))


# Every consumer of the rule, as scikit-learn on the same input: the same value, or
# a ValueError in both.
CONSUMERS = [
    ("roc_curve", {}), ("precision_recall_curve", {}), ("roc_auc_score", {}),
    ("average_precision_score", {}), ("brier_score_loss", {}),
    ("brier_score_loss", {"pos_label": 1}), ("roc_curve", {"pos_label": 2}),
    ("average_precision_score", {"pos_label": "yes"}),
]


def outcome(fn, y, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn(y, np.array([0.2, 0.9, 0.6]), **kw)
        except ValueError:
            return "ValueError"
    return list(r) if isinstance(r, tuple) else [r]


def assert_same_outcome(ours, theirs):
    assert (ours == "ValueError") == (theirs == "ValueError"), (ours, theirs)
    if theirs != "ValueError":
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", [n for n in LABEL_SETS
                                  if not n.startswith(("single", "object"))])
@pytest.mark.parametrize("metric,kw", CONSUMERS, ids=str)
def test_metrics_decide_the_positive_class_as_sklearn(name, metric, kw):
    y = LABEL_SETS[name]
    assert_same_outcome(outcome(getattr(dm, metric), y, kw),
                        outcome(getattr(skm, metric), y, kw))


# The ranking functions and Brier asked two copies of the rule that disagreed on
# {0, 1} held in an object array: the ranking copy raised (dtype object is not
# {0, 1} to scikit-learn's rule), Brier's took 1 as positive. scikit-learn 1.9
# raises in both; so does dartboard now (with pos_label given it still accepts
# such arrays, where scikit-learn rejects them whatever pos_label is).
@pytest.mark.parametrize("metric", ["roc_curve", "precision_recall_curve",
                                    "brier_score_loss"])
def test_object_array_of_numbers_needs_pos_label_as_in_sklearn(metric):
    y = LABEL_SETS["object {0, 1}"]
    assert outcome(getattr(skm, metric), y, {}) == "ValueError"
    with pytest.raises(ValueError, match="dtype object: convert it to a numeric dtype"):
        getattr(dm, metric)(y, np.array([0.2, 0.9, 0.6]))
    assert_same_outcome(outcome(getattr(dm, metric), y, {"pos_label": 1}),
                        outcome(getattr(skm, metric), y.astype(np.int64), {"pos_label": 1}))


def test_score_state_keeps_the_inferred_label():
    state = dm.ScoreState.from_scores([-1, 1, 1], [0.1, 0.7, 0.2])
    assert state.pos_label == 1 and state.n_positive == 2
    assert dm.ScoreState.from_scores([], []).pos_label == 1
    assert dm.ScoreState.from_scores([], [], pos_label="yes").pos_label == "yes"
    with pytest.raises(ValueError, match="different pos_label"):
        state.merge(dm.ScoreState(pos_label="1"))


# ------------------------------------------------------------------ encoding and counting

def test_encode_labels():
    enc = lab.encode_labels(("a", [3, 7, 3]), ("b", [7, 9, 9]))
    assert enc.classes.tolist() == [3, 7, 9]
    assert [c.tolist() for c in enc.codes] == [[0, 1, 0], [1, 2, 2]]
    enc = lab.encode_labels(("a", ["y", "x"]), ("b", ["z", "x"]), ("c", ["x", "x"]))
    assert enc.classes.tolist() == ["x", "y", "z"]
    assert [c.tolist() for c in enc.codes] == [[1, 0], [2, 0], [0, 0]]
    enc = lab.encode_labels(("a", [0, 10**9]), ("b", [10**9, 5]))
    assert enc.classes.tolist() == [0, 5, 10**9] and enc.n_classes == 3
    assert [c.tolist() for c in enc.codes] == [[0, 2], [2, 1]]
    with pytest.raises(ValueError, match="inconsistent numbers of samples: a has 2, b has 1"):
        lab.encode_labels(("a", [0, 1]), ("b", [0]))
    with pytest.raises(ValueError, match=r"^a contains 1 missing value\(s\)"):
        lab.encode_labels(("a", np.array([0, None], dtype=object)), ("b", [0, 1]))


def test_encode_and_count_name_the_arrays_in_errors():
    with pytest.raises(ValueError, match=r"^y_true contains 1 missing value\(s\)"):
        lab.encode_labels(("y_true", np.array(["a", None], dtype=object)))
    with pytest.raises(ValueError, match="y_true and pred_b mixes string and number labels"):
        lab.encode_labels(("y_true", np.array(["a", "b"], dtype=object)),
                          ("pred_b", np.array([1, 2], dtype=object)))
    with pytest.raises(ValueError, match="pred_a mixes string and number labels"):
        lab.encode_labels(("y_true", ["a", "b"]), ("pred_a", np.array(["a", 1], dtype=object)))
    with pytest.raises(ValueError, match="y_true has string labels, y_pred has number labels"):
        lab.count_label_pairs(np.array(["a"]), np.array([1]))


@settings(max_examples=60, deadline=None)
@given(values=st.sampled_from([np.array([0, 1]), np.array([-3, 4, 9]),
                               np.array([0, 10**12]), np.array(["p", "q", "r"]),
                               np.array([False, True])]),
       picks=st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=20),
                      min_size=1, max_size=3))
def test_encode_labels_equals_sorted_unique_oracle(values, picks):
    arrays = [values[np.array(p) % len(values)] for p in picks]
    n = min(len(a) for a in arrays)
    arrays = [a[:n] for a in arrays]
    enc = lab.encode_labels(*[(f"y{i}", a) for i, a in enumerate(arrays)])
    classes = np.unique(np.concatenate(arrays))
    assert enc.classes.tolist() == classes.tolist()
    assert enc.classes.dtype.kind == values.dtype.kind
    for a, codes in zip(arrays, enc.codes):
        assert codes.tolist() == np.searchsorted(classes, a).tolist()


# Each universe of labels with the counting kernel it must take without weights
# (weights move {0, 1} labels to the direct kernel) and whether encoding hashes.
UNIVERSES = {
    "binary01": (np.array([0, 1]), "_count_binary01", False),
    "direct": (np.array([-3, 4, 9]), "_count_direct", False),
    "int8": (np.array([-7, 0, 20], dtype=np.int8), "_count_direct", False),
    "wide": (np.array([-5, 0, 10**12]), "_count_hashed", True),
    "strings": (np.array(["p", "q", "r"]), "_count_hashed", True),
    "floats": (np.array([-1.0, 0.0, 2.0]), "_count_direct", False),
    "bools": (np.array([False, True]), "_count_binary01", False),
    "uint64 small": (np.array([1, 5, 6], dtype=np.uint64), "_count_direct", False),
    "uint64 ids": (np.array([3, 2**63 + 5, 2**64 - 1], dtype=np.uint64), "_count_hashed",
                   True),
}


def oracle_counts(t, p, w):
    classes = np.unique(np.concatenate([t, p]))
    m = np.zeros((classes.shape[0],) * 2, dtype=np.float64)
    np.add.at(m, (np.searchsorted(classes, t), np.searchsorted(classes, p)),
              1.0 if w is None else w.astype(np.float64))
    return classes, m


@settings(max_examples=150, deadline=None)
@given(universe=st.sampled_from(list(UNIVERSES)),
       pairs=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1,
                      max_size=60),
       weights=st.sampled_from([None, "int", "float"]), data=st.data())
def test_count_and_encode_equal_plain_oracle(universe, pairs, weights, data):
    values, kernel, hashed = UNIVERSES[universe]
    # a (first, last) pair makes the universe's range decide the kernel
    ti, pi = (np.array(c) % values.shape[0]
              for c in zip((0, values.shape[0] - 1), *pairs))
    t, p = values[ti], values[pi]
    n = t.shape[0]
    w = None
    if weights is not None:
        draw = data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
        w = np.array(draw, dtype=np.int64) if weights == "int" else np.array(draw) / 3.0
        kernel = "_count_direct" if kernel == "_count_binary01" else kernel
    classes, expected = oracle_counts(t, p, w)

    with mock.patch.object(lab, kernel, wraps=getattr(lab, kernel)) as spy:
        got_classes, matrix = lab.count_label_pairs(t, p, w)
    assert spy.called
    assert got_classes.tolist() == classes.tolist()
    assert got_classes.dtype.kind == values.dtype.kind or values.dtype.kind == "u"
    np.testing.assert_allclose(matrix, expected, rtol=1e-13)  # float sums may reorder
    assert matrix.dtype.kind == ("f" if weights == "float" else "i")

    with mock.patch.object(lab, "_factorize", wraps=lab._factorize) as spy:
        enc = lab.encode_labels(("y_true", t), ("y_pred", p))
    assert spy.called == hashed
    assert enc.classes.tolist() == classes.tolist()
    for a, codes in zip((t, p), enc.codes):
        assert codes.tolist() == np.searchsorted(classes, a).tolist()


def test_wide_integer_counts_stay_exact_across_blocks():
    # many blocks of the direct kernel equal one pass of the oracle
    rng = np.random.default_rng(0)
    t, p = rng.integers(-50, 50, 10_000), rng.integers(-50, 50, 10_000)
    with mock.patch.object(lab, "_COUNT_BLOCK", 1000):
        classes, matrix = lab.count_label_pairs(t, p)
    expected_classes, expected = oracle_counts(t, p, None)
    assert classes.tolist() == expected_classes.tolist()
    np.testing.assert_array_equal(matrix, expected)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=60), st.sampled_from(
    [np.int64, np.int32, np.uint16, np.intp]))
def test_cluster_codes_equal_the_sorted_distinct_values(values, dtype):
    # ids that already are codes (every value of 0..C-1 present) take a fast path; it
    # must give what the general encoding gives, for dense and for gapped ids alike
    from dartboard._labels import encode_ids

    ids = np.array(values, dtype=dtype)
    before = ids.copy()
    codes, n = encode_ids(ids, "clusters")
    distinct, inverse = np.unique(ids, return_inverse=True)
    assert n == distinct.shape[0]
    np.testing.assert_array_equal(codes, inverse.reshape(-1))
    assert codes.dtype == np.intp and not np.shares_memory(codes, ids)
    np.testing.assert_array_equal(ids, before)
