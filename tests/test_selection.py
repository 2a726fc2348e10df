"""Tests of DART model selection (dartboard.selection) and its figures."""

from __future__ import annotations

import doctest
import json
import math
import pickle
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import dartboard  # noqa: E402
from dartboard import (  # noqa: E402
    dart_rank,
    dart_refit,
    dart_score,
    dart_sweep,
    selection,  # noqa: E402
)
from dartboard.plots import plot_dart_sweep, plot_fold_scores  # noqa: E402

LN2 = math.log(2.0)


def plain_dart(scores, p, chance=0.5):
    """Slow oracle: the definition with math, one configuration at a time."""
    k = len(scores)
    a = sum(scores) / k
    d = math.sqrt(sum((x - a) ** 2 for x in scores) / (k - 1))
    if a == 0:
        return -math.inf
    n = 1.0 - math.log(a) / math.log(chance)
    return n / math.exp(p * d) if n >= 0 else n * math.exp(p * d)


def fold_grid(min_size=2, max_size=6, k=(2, 8)):
    unit = st.floats(0.0, 1.0, allow_nan=False, width=64)
    return st.integers(*k).flatmap(lambda kk: st.lists(
        st.lists(unit, min_size=kk, max_size=kk), min_size=min_size, max_size=max_size))


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --------------------------------------------------------------------------- formula

def test_public_names_resolve():
    assert dartboard.dart_score is dart_score
    assert dartboard.plots.plot_dart_sweep is plot_dart_sweep


def test_numerator_is_one_at_perfect_zero_at_chance_negative_below():
    frame = dart_rank({"perfect": [1.0, 1.0, 1.0], "chance": [0.5, 0.5, 0.5],
                       "below": [0.25, 0.25, 0.25]}, 3.0).set_index("configuration")
    assert frame.loc["perfect", "numerator"] == 1.0
    assert frame.loc["chance", "numerator"] == 0.0
    # 1 + log2(0.25) = 1 - 2 = -1
    assert frame.loc["below", "numerator"] == pytest.approx(-1.0, abs=1e-15)
    # the published constant 1.4427 is the rounding of the exact 1/ln 2 used here
    assert round(1 / LN2, 4) == 1.4427
    assert frame.loc["below", "numerator"] == pytest.approx(1 + 1.4427 * math.log(0.25),
                                                            abs=1e-4)


def test_chance_level_moves_the_zero():
    # three balanced classes: guessing scores 1/3
    assert dart_score([0.25, 0.25], 0.0, chance_level=0.25) == 0.0
    assert dart_score([1.0, 1.0], 0.0, chance_level=0.1) == 1.0
    # 1 - ln(0.6)/ln(0.2) by hand: 1 - (-0.5108256)/(-1.6094379) = 0.6826062
    assert dart_score([0.6, 0.6], 0.0, chance_level=0.2) == pytest.approx(0.6826061944859854,
                                                                        rel=1e-12)


def test_denominator_is_one_without_variance():
    frame = dart_rank(np.array([[0.8] * 5, [0.3] * 5]), 7.0)
    assert (frame["std"] == 0.0).all()
    assert (frame["denominator"] == 1.0).all()
    np.testing.assert_array_equal(frame["dart"], frame["numerator"])


def test_hand_computed_table():
    # Numbers computed by hand with math.log/math.exp at p = 4, chance 0.5:
    # a: A = 0.85, D = sqrt((0.05^2 + 0.05^2) / 3) = 0.0408248, N = 1 + ln(0.85)/ln 2
    #    = 0.7655347, exp(4 D) = 1.1773890, DART = 0.7655347 / 1.1773890 = 0.6501969
    # b: A = 0.83, D = sqrt((0.01^2 + 0.01^2) / 3) = 0.0081650, N = 0.7311832,
    #    exp(4 D) = 1.0331991, DART = 0.7076887
    # c: A = 0.40, D = sqrt((0.1^2 + 0.1^2) / 3) = 0.0816497, N = 1 + ln(0.4)/ln 2
    #    = -0.3219281 (below chance: multiplied), exp(4 D) = 1.3862450,
    #    DART = -0.3219281 * 1.3862450 = -0.4462712
    table = {"a": [0.90, 0.80, 0.85, 0.85], "b": [0.82, 0.84, 0.83, 0.83],
             "c": [0.40, 0.50, 0.30, 0.40]}
    frame = dart_rank(table, 4.0)
    assert frame["configuration"].tolist() == ["b", "a", "c"]
    assert frame["rank"].tolist() == [1, 2, 3]
    assert frame.set_index("configuration")["rank_by_mean"].to_dict() == {"a": 1, "b": 2,
                                                                           "c": 3}
    got = frame.set_index("configuration")
    expected = {"a": (0.85, 0.0408248, 0.7655347, 1.1773890, 0.6501969),
                "b": (0.83, 0.0081650, 0.7311832, 1.0331991, 0.7076887),
                "c": (0.40, 0.0816497, -0.3219281, 1.3862450, -0.4462712)}
    for name, values in expected.items():
        row = got.loc[name, ["mean", "std", "numerator", "denominator", "dart"]]
        np.testing.assert_allclose(row.to_numpy(dtype=float), values, atol=5e-8)
    np.testing.assert_allclose(dart_score(np.array(list(table.values())), 4.0),
                               [0.6501969, 0.7076887, -0.4462712], atol=5e-8)


@settings(max_examples=60, deadline=None)
@given(fold_grid(min_size=1, max_size=5), st.floats(0.0, 30.0),
       st.floats(0.05, 0.95))
def test_matches_plain_oracle(rows, p, chance):
    got = dart_score(np.array(rows), p, chance_level=chance)
    expected = np.array([plain_dart(r, p, chance) for r in rows])
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def test_zero_accuracy_is_minus_infinity_and_last():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dart_score([0.0, 0.0, 0.0], 2.0) == -math.inf
        frame = dart_rank({"zero": [0.0, 0.0], "bad": [0.1, 0.0], "ok": [0.9, 0.8]}, 2.0)
    assert frame["configuration"].tolist() == ["ok", "bad", "zero"]
    assert frame["rank"].iloc[-1] == 3


def test_scalar_and_grid_shapes():
    assert isinstance(dart_score([0.9, 0.8], 1.0), float)
    out = dart_score([[0.9, 0.8], [0.7, 0.7], [0.6, 0.5]], 1.0)
    assert isinstance(out, np.ndarray) and out.shape == (3,)


@settings(max_examples=60, deadline=None)
@given(fold_grid(min_size=2, max_size=8))
def test_precision_zero_ranks_by_mean(rows):
    frame = dart_rank(np.array(rows), 0.0)
    np.testing.assert_array_equal(frame["rank"], frame["rank_by_mean"])
    means = frame["mean"].to_numpy()
    assert np.all(np.diff(means) <= 0)


@settings(max_examples=100, deadline=None)
@given(st.floats(0.01, 0.99), st.floats(0.0, 0.2), st.floats(0.0, 0.2),
       st.floats(0.1, 20.0))
def test_equal_mean_lower_std_ranks_higher(mean, d1, d2, p):
    # Above AND below chance: the below-chance convention keeps variance harmful.
    spread_hi, spread_lo = max(d1, d2), min(d1, d2)
    assume(spread_hi - spread_lo >= 1e-3 and 0 <= mean - spread_hi and mean + spread_hi <= 1)
    wide = [mean - spread_hi, mean + spread_hi]
    narrow = [mean - spread_lo, mean + spread_lo]
    frame = dart_rank({"wide": wide, "narrow": narrow}, p)
    assert frame["configuration"].tolist() == ["narrow", "wide"]
    if abs(mean - 0.5) > 1e-9:  # exactly at chance DART is 0 whatever D: the tie-break
        assert dart_score(narrow, p) > dart_score(wide, p)


def test_below_chance_variance_hurts_by_design():
    # With the plain formula N / exp(pD) the noisy bad model would score higher:
    steady, noisy = [0.3, 0.3, 0.3, 0.3], [0.1, 0.5, 0.1, 0.5]
    n = 1 + math.log(0.3) / LN2                      # -0.7369656
    d = math.sqrt(4 * 0.2 ** 2 / 3)                  # 0.2309401
    plain_noisy = n / math.exp(5 * d)
    assert plain_noisy > n                           # what the plain formula would do
    assert dart_score(noisy, 5.0) == pytest.approx(n * math.exp(5 * d), rel=1e-12)
    assert dart_score(noisy, 5.0) < dart_score(steady, 5.0) == pytest.approx(n, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(fold_grid(min_size=1, max_size=5), st.floats(0.0, 20.0), st.randoms())
def test_invariant_to_fold_order(rows, p, rnd):
    arr = np.array(rows)
    shuffled = arr.copy()
    for row in shuffled:
        rnd.shuffle(row)
    np.testing.assert_array_equal(dart_score(arr, p), dart_score(shuffled, p))


def test_ties_share_rank_and_break_by_mean_then_std():
    frame = dart_rank({"x": [0.8, 0.9], "y": [0.9, 0.8], "z": [0.7, 0.7]}, 0.0)
    assert frame.set_index("configuration")["rank"].to_dict() == {"x": 1, "y": 1, "z": 3}
    # equal numerators at p = 0 (equal means): lower std first
    frame = dart_rank({"noisy": [0.7, 0.9], "calm": [0.79, 0.81]}, 0.0)
    assert frame["configuration"].tolist() == ["calm", "noisy"]


# --------------------------------------------------------------------------- the precision

@pytest.mark.parametrize("chance", [0.5, 0.2])
def test_exchange_rate_of_std_against_mean(chance):
    # d ln DART = dA / (A ln(A/c)) - p dD, so raising D by eps and A by
    # eps * p * A * ln(A/c) leaves DART unchanged to first order.
    a, d, p, eps = 0.9, 0.05, 5.0, 1e-6
    z = np.array([-1.0, 1.0, -1.0, 1.0]) * math.sqrt(3) / 2  # mean 0, sample std 1
    rate = p * a * math.log(a / chance)
    base = dart_score(a + d * z, p, chance_level=chance)
    traded = dart_score(a + rate * eps + (d + eps) * z, p, chance_level=chance)
    untraded = dart_score(a + (d + eps) * z, p, chance_level=chance)
    assert abs(traded - base) < 1e-10
    assert abs(untraded - base) > 1e-7


def test_guidance_table_values():
    # user guide (docs/user_guide/selection.rst) / module docstring: at A = 0.9, 0.01 of
    # std is worth 0.0053, 0.0265 and 0.0529 of mean accuracy at p = 1, 5, 10
    # (0.01 * p * 0.9 * ln 1.8).
    worth = [round(0.01 * p * 0.9 * math.log(1.8), 4) for p in (1, 5, 10)]
    assert worth == [0.0053, 0.0265, 0.0529]
    assert round(1 / (0.9 * math.log(1.8)), 2) == 1.89


# --------------------------------------------------------------------------- inputs

def test_input_kinds_agree():
    arr = np.array([[0.9, 0.8, 0.85], [0.7, 0.75, 0.72], [0.88, 0.86, 0.87]])
    names = ["a", "b", "c"]
    from_array = dart_rank(arr, 3.0)
    from_dict = dart_rank(dict(zip(names, arr.tolist())), 3.0)
    from_frame = dart_rank(pd.DataFrame(arr, index=names, columns=["f0", "f1", "f2"]), 3.0)
    cv = {"params": [{"name": n} for n in names],
          **{f"split{i}_test_score": arr[:, i] for i in range(3)}}
    from_cv = dart_rank(cv, 3.0)
    from_cv_frame = dart_rank(pd.DataFrame(cv), 3.0)
    for frame in (from_dict, from_frame, from_cv, from_cv_frame):
        np.testing.assert_array_equal(frame.index, from_array.index)
        np.testing.assert_array_equal(frame["dart"], from_array["dart"])
    assert from_frame["configuration"].tolist() == [names[i] for i in from_array.index]
    assert from_cv["configuration"].iloc[0] == f"name={names[from_array.index[0]]!r}"
    assert from_cv["params"].iloc[0] == {"name": names[from_array.index[0]]}
    assert list(from_array.columns) == ["configuration", "mean", "std", "numerator",
                                        "denominator", "dart", "rank", "rank_by_mean",
                                        "mean_low", "mean_high", "dart_low", "dart_high",
                                        "p_best"]


def test_numpy_scalar_params_are_labelled_by_value():
    # RandomizedSearchCV with scipy distributions gives numpy scalars; numpy >= 2 would
    # label them "C=np.float64(0.5)"
    cv = {"params": [{"C": np.float64(0.5), "k": np.int64(3)}, {"C": 2.0, "k": 1}],
          "split0_test_score": [0.8, 0.9], "split1_test_score": [0.82, 0.88]}
    assert dart_rank(cv, 1.0).sort_index()["configuration"].tolist() == \
        ["C=0.5, k=3", "C=2.0, k=1"]


def test_nan_folds_are_dropped_with_a_warning():
    cv = {"params": [{"C": 1}, {"C": 2}, {"C": 3}],
          "split0_test_score": np.array([0.9, np.nan, 0.8]),
          "split1_test_score": np.array([0.85, np.nan, 0.82])}
    with pytest.warns(UserWarning, match=r"1 configuration\(s\) with NaN.*C=2"):
        frame = dart_rank(cv, 1.0)
    assert sorted(frame.index.tolist()) == [0, 2]
    cv["split0_test_score"] = np.array([np.nan] * 3)
    with pytest.raises(ValueError, match="every configuration in results has a NaN"):
        dart_rank(cv, 1.0)


@pytest.mark.parametrize("scores, match", [
    ([0.5, 1.2], r"scores must lie in \[0, 1\].*0\.5 to 1\.2"),
    ([-0.1, 0.5], r"scores must lie in \[0, 1\]"),
    ([0.9], r"at least 2 fold scores.*k = 1"),
    ([[0.9], [0.8]], r"at least 2 fold scores.*k = 1"),
    ([0.9, np.nan], r"scores contains 1 NaN"),
    ([0.9, np.inf], r"scores contains 1 infinite"),
    ("abc", r"scores must be array-like"),
])
def test_bad_scores(scores, match):
    with pytest.raises((ValueError, TypeError), match=match):
        dart_score(scores, 1.0)


@pytest.mark.parametrize("precision, error, match", [
    (-1.0, ValueError, r"precision must be at least 0.0; got -1.0"),
    (np.nan, ValueError, r"precision must be finite; got nan"),
    (np.inf, ValueError, r"precision must be finite"),
    (True, TypeError, r"precision must be a real number; got bool"),
    ("2", TypeError, r"precision must be a real number"),
])
def test_bad_precision(precision, error, match):
    with pytest.raises(error, match=match):
        dart_score([0.9, 0.8], precision)
    with pytest.raises(error, match=match):
        dart_rank({"a": [0.9, 0.8]}, precision)
    with pytest.raises(error, match=match):
        dart_refit(precision)


@pytest.mark.parametrize("chance", [0.0, 1.0, 1.5, -0.2])
def test_bad_chance_level(chance):
    with pytest.raises(ValueError, match="chance_level must be"):
        dart_score([0.9, 0.8], 1.0, chance_level=chance)


def test_bad_results():
    with pytest.raises(ValueError, match=r"no 'split\{k\}_test_<metric>' columns"):
        dart_rank({"params": [{"C": 1}], "mean_test_score": [0.9], "std_test_score": [0.01]},
                  1.0)
    multi = {"params": [{"C": 1}, {"C": 2}],
             **{f"split{i}_test_{m}": np.array([0.8, 0.9]) for i in range(3)
                for m in ("acc", "f1")}}
    with pytest.raises(ValueError, match=r"several metrics \['acc', 'f1'\].*metric="):
        dart_rank(multi, 1.0)
    with pytest.raises(ValueError, match=r"metric 'auc' is not in results; available "
                                         r"metrics: \['acc', 'f1'\]"):
        dart_rank(multi, 1.0, metric="auc")
    with pytest.raises(ValueError, match="metric selects a metric of scikit-learn"):
        dart_rank({"a": [0.9, 0.8]}, 1.0, metric="acc")
    with pytest.raises(ValueError, match=r"same number of fold scores.*'a': 2, 'b': 3"):
        dart_rank({"a": [0.9, 0.8], "b": [0.9, 0.8, 0.7]}, 1.0)
    with pytest.raises(ValueError, match="results must be 2-D"):
        dart_rank([0.9, 0.8], 1.0)
    with pytest.raises(ValueError, match=r"results must lie in \[0, 1\]"):
        dart_rank({"a": [-0.2, -0.1]}, 1.0)
    with pytest.raises(ValueError, match="iteration=2 needs successive-halving"):
        dart_rank(multi, 1.0, metric="acc", iteration=2)
    with pytest.raises(ValueError, match="results is an empty dict"):
        dart_rank({}, 1.0)
    with pytest.raises(ValueError, match="precisions must be >= 0"):
        dart_sweep({"a": [0.9, 0.8]}, [-1.0, 1.0])


# --------------------------------------------------------------------------- sklearn

@pytest.fixture(scope="module")
def cancer():
    from sklearn.datasets import load_breast_cancer

    return load_breast_cancer(return_X_y=True)


GRID = {"max_depth": [1, 2, 3, 5, None], "min_samples_leaf": [1, 10]}


def _tree():
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(random_state=0)


def test_cv_results_use_sample_std(cancer):
    from sklearn.model_selection import GridSearchCV

    X, y = cancer
    search = GridSearchCV(_tree(), GRID, cv=5).fit(X, y)
    cv = search.cv_results_
    folds = np.column_stack([cv[f"split{i}_test_score"] for i in range(5)])
    frame = dart_rank(cv, 2.0).sort_index()
    np.testing.assert_allclose(frame["std"], np.std(folds, axis=1, ddof=1), rtol=1e-12)
    np.testing.assert_allclose(frame["mean"], cv["mean_test_score"], rtol=1e-12)
    # sklearn's std_test_score is the population std (ddof = 0): smaller by sqrt(4/5)
    assert not np.allclose(frame["std"], cv["std_test_score"])
    np.testing.assert_allclose(frame["std"] * math.sqrt(4 / 5), cv["std_test_score"],
                               rtol=1e-10)


def test_gridsearch_refit_picks_the_dart_winner(cancer):
    from sklearn.model_selection import GridSearchCV

    X, y = cancer
    p = 2.0
    search = GridSearchCV(_tree(), GRID, cv=5, refit=dart_refit(p)).fit(X, y)
    frame = dart_rank(search.cv_results_, p)
    assert search.best_index_ == frame.index[0]
    assert search.best_params_ == frame["params"].iloc[0]
    assert search.best_estimator_.get_params()["max_depth"] == frame["params"].iloc[0][
        "max_depth"]
    # not the trivial choice: on this grid the mean alone picks another configuration
    assert search.best_index_ != int(np.argmax(search.cv_results_["mean_test_score"]))
    assert pickle.loads(pickle.dumps(search)).best_index_ == search.best_index_


def test_multimetric_refit(cancer):
    from sklearn.model_selection import GridSearchCV

    X, y = cancer
    scoring = {"acc": "accuracy", "bal": "balanced_accuracy"}
    search = GridSearchCV(_tree(), GRID, cv=5, scoring=scoring,
                          refit=dart_refit(1.0, metric="bal")).fit(X, y)
    frame = dart_rank(search.cv_results_, 1.0, metric="bal")
    assert search.best_index_ == frame.index[0]
    folds = np.column_stack([search.cv_results_[f"split{i}_test_bal"] for i in range(5)])
    np.testing.assert_allclose(frame.sort_index()["std"], folds.std(axis=1, ddof=1))
    with pytest.raises(ValueError, match=r"several metrics \['acc', 'bal'\]"):
        GridSearchCV(_tree(), GRID, cv=5, scoring=scoring, refit=dart_refit(1.0)).fit(X, y)


def test_randomized_and_halving_searches(cancer):
    from sklearn.experimental import enable_halving_search_cv  # noqa: F401
    from sklearn.model_selection import HalvingGridSearchCV, RandomizedSearchCV

    X, y = cancer
    rs = RandomizedSearchCV(_tree(), GRID, n_iter=6, cv=4, random_state=0,
                            refit=dart_refit(3.0)).fit(X, y)
    assert rs.best_index_ == dart_rank(rs.cv_results_, 3.0).index[0]

    hs = HalvingGridSearchCV(_tree(), GRID, cv=4, factor=3, random_state=0,
                             refit=dart_refit(3.0)).fit(X, y)
    cv = hs.cv_results_
    last = np.flatnonzero(cv["iter"] == cv["iter"].max())
    frame = dart_rank(cv, 3.0)
    assert sorted(frame.index.tolist()) == last.tolist()
    assert hs.best_index_ == frame.index[0]
    first = dart_rank(cv, 3.0, iteration=0)
    assert sorted(first.index.tolist()) == np.flatnonzero(cv["iter"] == 0).tolist()
    with pytest.raises(ValueError, match="iteration must be 'last' or one of"):
        dart_rank(cv, 3.0, iteration=99)


def test_refit_rejects_non_cv_results_and_has_repr():
    refit = dart_refit(2.5, metric="bal")
    assert repr(refit) == "dart_refit(precision=2.5, metric='bal', chance_level=0.5)"
    with pytest.raises(TypeError, match="dart_refit expects scikit-learn cv_results_"):
        refit({"a": [0.9, 0.8]})
    with pytest.raises(TypeError, match="metric must be a metric name"):
        dart_refit(1.0, metric=3)


# --------------------------------------------------------------------------- sweep

@settings(max_examples=80, deadline=None)
@given(fold_grid(min_size=2, max_size=7, k=(2, 6)), st.floats(0.5, 40.0))
def test_sweep_crossings_are_exact_and_envelope_matches_brute_force(rows, p_max):
    arr = np.array(rows)
    sweep = dart_sweep(arr, np.linspace(0.0, p_max, 41))
    for c in sweep.crossings.itertuples(index=False):
        a = dart_score(arr[c.from_index], c.p)
        b = dart_score(arr[c.to_index], c.p)
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(a, c.dart, rel_tol=1e-9, abs_tol=1e-9)
    w = sweep.winners
    assert w["p_start"].iloc[0] == 0.0 and w["p_end"].iloc[-1] == p_max
    np.testing.assert_array_equal(w["p_start"].to_numpy()[1:], w["p_end"].to_numpy()[:-1])
    np.testing.assert_array_equal(w["p_start"].to_numpy()[1:], sweep.crossings["p"])
    # slow oracle: the best curve at many precisions away from the crossings
    p = np.linspace(0.0, p_max, 301)
    if len(sweep.crossings):
        p = p[np.min(np.abs(sweep.crossings["p"].to_numpy()[:, None] - p), axis=0) > 1e-7]
    brute = np.array([[plain_dart(r, q) for r in rows] for q in p])
    segment = np.searchsorted(w["p_end"].to_numpy(), p, side="left")
    winner_rows = np.searchsorted(sweep.configurations.index, w["index"].to_numpy()[segment])
    np.testing.assert_allclose(brute[np.arange(p.shape[0]), winner_rows], brute.max(axis=1),
                               rtol=1e-12, atol=1e-12)
    # the grid rankings agree with dart_rank at every grid precision
    for p in sweep.precisions[::10]:
        grid = sweep.rankings[sweep.rankings["p"] == p]
        np.testing.assert_array_equal(grid["index"], dart_rank(arr, p).index)


def test_sweep_worked_example_and_result_object():
    # deep: A = 0.89, D = 0.0828654; shallow: A = 0.88, D = 0.0081650.
    # p* = ln(N_deep / N_shallow) / (D_deep - D_shallow)
    #    = ln(0.8318772 / 0.8155754) / 0.0747004 = 0.2649...
    folds = {"deep": [0.95, 0.80, 0.97, 0.84], "shallow": [0.88, 0.87, 0.89, 0.88]}
    sweep = dart_sweep(folds, [0, 1, 2, 5])
    n_deep, n_shallow = 1 + math.log(0.89) / LN2, 1 + math.log(0.88) / LN2
    d_deep = math.sqrt((0.06 ** 2 + 0.09 ** 2 + 0.08 ** 2 + 0.05 ** 2) / 3)
    d_shallow = math.sqrt(2 * 0.01 ** 2 / 3)
    p_star = math.log(n_deep / n_shallow) / (d_deep - d_shallow)
    assert sweep.crossings["p"].iloc[0] == pytest.approx(p_star, rel=1e-9)
    assert sweep.winners["configuration"].tolist() == ["deep", "shallow"]
    assert sweep.rankings.shape == (8, 5)
    assert list(sweep.rankings.columns) == ["p", "index", "configuration", "dart", "rank"]
    json.dumps(sweep.to_dict())
    assert repr(sweep).startswith("DartSweepResult(precisions=[0., 1., 2., 5.], "
                                  "configurations=DataFrame(shape=(2, 4))")
    default = dart_sweep(folds)
    np.testing.assert_array_equal(default.precisions, np.linspace(0, 20, 201))


def test_sweep_below_chance_and_degenerate_grids():
    # all below chance: curves -|N| e^{pD}; the steady one takes over
    folds = {"noisy": [0.45, 0.05, 0.45, 0.05], "steady": [0.2, 0.2, 0.2, 0.2]}
    sweep = dart_sweep(folds, np.linspace(0, 10, 11))
    assert sweep.winners["configuration"].tolist() == ["noisy", "steady"]
    c = sweep.crossings.iloc[0]
    assert dart_score(folds["noisy"], c.p) == pytest.approx(dart_score(folds["steady"], c.p),
                                                            rel=1e-9)
    # one configuration above chance wins everywhere
    sweep = dart_sweep({"good": [0.6, 0.9], "bad": [0.2, 0.2]}, [0, 50])
    assert sweep.winners["configuration"].tolist() == ["good"] and sweep.crossings.empty
    # a single precision: a single point interval
    sweep = dart_sweep({"a": [0.6, 0.9], "b": [0.7, 0.7]}, [3.0])
    assert sweep.winners[["p_start", "p_end"]].to_numpy().tolist() == [[3.0, 3.0]]
    # all at exactly zero accuracy
    sweep = dart_sweep({"a": [0.0, 0.0], "b": [0.0, 0.0]}, [0, 1])
    assert sweep.winners["configuration"].tolist() == ["a"]


def test_module_doctests():
    result = doctest.testmod(selection, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# --------------------------------------------------------------------------- plots

def test_plot_dart_sweep():
    folds = {"deep": [0.95, 0.80, 0.97, 0.84], "shallow": [0.88, 0.87, 0.89, 0.88],
             "mid": [0.80, 0.85, 0.82, 0.83]}
    sweep = dart_sweep(folds, np.linspace(0, 5, 11))
    ax = plot_dart_sweep(sweep)
    assert isinstance(ax, matplotlib.axes.Axes)
    assert len(ax.lines) == 3
    assert len(ax.patches) == len(sweep.winners) == 2
    assert len(ax.collections) == 1  # the crossing markers
    labelled = [line.get_label() for line in ax.lines if not line.get_label().startswith("_")]
    assert labelled == sweep.winners["configuration"].tolist() == ["deep", "shallow"]
    np.testing.assert_allclose(ax.collections[0].get_offsets(),
                               sweep.crossings[["p", "dart"]].to_numpy())
    _, given_ax = plt.subplots()
    assert plot_dart_sweep(sweep, ax=given_ax) is given_ax
    with pytest.raises(TypeError, match="sweep_result must be the result of"):
        plot_dart_sweep(folds)


def test_plot_fold_scores():
    folds = {"a": [0.9, 0.8, 0.85], "b": [0.7, 0.75, 0.72], "c": [0.88, 0.86, 0.87]}
    frame = dart_rank(folds, 5.0)
    ax = plot_fold_scores(frame)
    assert isinstance(ax, matplotlib.axes.Axes)
    assert len(ax.containers) == 1
    data_line = ax.containers[0].lines[0]
    np.testing.assert_allclose(data_line.get_xdata(), frame["mean"])
    assert [t.get_text() for t in ax.get_yticklabels()] == frame["configuration"].tolist()
    ax2 = plot_fold_scores(folds)  # raw results: ordered by mean
    assert [t.get_text() for t in ax2.get_yticklabels()] == ["c", "a", "b"]
