"""dart_rank's uncertainty columns: fold-bootstrap intervals, P(best), nested CV.

The oracle is a plain loop over replicates: each replicate's fold scores are
written out (np.repeat of the drawn folds), its DART scores come from the public
dart_score, and its winner from a sort by the documented tie rule.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV

from dartboard import _dart_uncertainty, dart_rank, dart_score, nested_cv_interval
from dartboard._rng import child, seed_sequence, spawn


def _loop(scores, precision, seed, n_resamples, level=0.95, se=None, chance=0.5):
    """Intervals and P(best) replicate by replicate."""
    g, k = scores.shape
    rng = np.random.default_rng(child(seed_sequence(seed), 0))
    counts = rng.multinomial(k, np.full(k, 1.0 / k), size=n_resamples)
    means = np.empty((n_resamples, g))
    stds = np.empty((n_resamples, g))
    for b in range(n_resamples):
        for j in range(g):
            drawn = np.repeat(scores[j], counts[b])
            means[b, j], stds[b, j] = np.mean(drawn), np.std(drawn, ddof=1)
    base = scores.mean(axis=1)
    if se is not None:  # nested CV: each mean's deviations scaled to its standard error
        means = base + (means - base) * (np.asarray(se) / means.std(axis=0, ddof=1))
        means = np.clip(means, 0, 1)
    darts = np.empty_like(means)
    wins = np.zeros(g)
    for b in range(n_resamples):
        for j in range(g):
            darts[b, j] = _dart(means[b, j], stds[b, j], precision, chance)
        key = sorted(range(g), key=lambda j: (-darts[b, j], -means[b, j], stds[b, j]))
        first = [j for j in key if (darts[b, j], means[b, j], stds[b, j])
                 == (darts[b, key[0]], means[b, key[0]], stds[b, key[0]])]
        wins[first] += 1.0 / len(first)
    alpha = (1 - level) / 2
    return {"mean_low": np.quantile(means, alpha, axis=0),
            "mean_high": np.quantile(means, 1 - alpha, axis=0),
            "dart_low": np.quantile(darts, alpha, axis=0),
            "dart_high": np.quantile(darts, 1 - alpha, axis=0),
            "p_best": wins / n_resamples}


def _dart(a, d, p, chance):
    """DESIGN.md's DART: N / exp(p D), N = 1 - ln A / ln chance; N * exp(p D) below chance."""
    n = -math.inf if a == 0 else 1 - math.log(a) / math.log(chance)
    return n / math.exp(p * d) if n >= 0 else n * math.exp(p * d)


def _grid(seed=0, g=4, k=5):
    rng = np.random.default_rng(seed)
    return np.clip(rng.uniform(0.7, 0.9, size=(g, 1)) + rng.normal(0, 0.04, size=(g, k)),
                   0, 1)


@pytest.mark.parametrize(("precision", "level"), [(0.0, 0.95), (3.0, 0.9), (10.0, 0.8)])
def test_columns_match_a_plain_loop(precision, level):
    scores = _grid()
    frame = dart_rank(scores, precision, confidence_level=level, n_resamples=300,
                      random_state=42).sort_index()
    expected = _loop(scores, precision, 42, 300, level)
    for name, values in expected.items():
        np.testing.assert_allclose(frame[name].to_numpy(), values, rtol=1e-12, atol=1e-12,
                                   err_msg=name)


def test_replicates_equal_the_moments_of_the_drawn_folds():
    scores = _grid(seed=3, g=2, k=4)
    rng = np.random.default_rng(0)
    means, stds = _dart_uncertainty.fold_replicates(scores, 50, rng)
    counts = np.random.default_rng(0).multinomial(4, [0.25] * 4, size=50)
    for b in range(50):
        for j in range(2):
            drawn = np.repeat(scores[j], counts[b])
            np.testing.assert_allclose([means[b, j], stds[b, j]],
                                       [drawn.mean(), drawn.std(ddof=1)], atol=1e-14)


def test_the_oracle_dart_is_dart_score():
    for a, d in [(0.9, 0.05), (0.4, 0.1), (0.5, 0.2)]:
        scores = [a - d / math.sqrt(2), a + d / math.sqrt(2)]  # mean a, sd d (ddof = 1)
        assert _dart(a, d, 3.0, 0.5) == pytest.approx(dart_score(scores, 3.0), rel=1e-12)


def test_p_best_sums_to_one_and_ties_share():
    scores = _grid(seed=1, g=3)
    twins = np.vstack([scores, scores[1]])
    frame = dart_rank(twins, 2.0, n_resamples=500, random_state=0).sort_index()
    assert frame["p_best"].sum() == pytest.approx(1.0, abs=1e-12)
    assert frame.loc[1, "p_best"] == frame.loc[3, "p_best"]


def test_a_dominating_configuration_is_always_best():
    scores = np.array([[0.95, 0.96, 0.97, 0.95], [0.6, 0.7, 0.65, 0.62], [0.5, 0.55, 0.6, 0.5]])
    frame = dart_rank(scores, 1.0, n_resamples=200, random_state=0)
    assert frame["p_best"].tolist() == [1.0, 0.0, 0.0]
    assert (frame["mean_low"] <= frame["mean"]).all()
    assert (frame["mean"] <= frame["mean_high"]).all()


def test_zero_accuracy_gives_minus_infinity_bounds_without_warnings():
    frame = dart_rank({"zero": [0.0, 0.0, 0.0], "ok": [0.9, 0.8, 0.85]}, 2.0,
                      n_resamples=200, random_state=0)
    row = frame.set_index("configuration").loc["zero"]
    assert row["dart_low"] == row["dart_high"] == -np.inf and row["p_best"] == 0.0


def test_same_seed_same_table_and_batches_do_not_matter(monkeypatch):
    scores = _grid(seed=2, g=5, k=6)
    a = dart_rank(scores, 2.0, n_resamples=400, random_state=9)
    pd.testing.assert_frame_equal(a, dart_rank(scores, 2.0, n_resamples=400, random_state=9))
    monkeypatch.setattr(_dart_uncertainty, "_BATCH_CELLS", 7)
    pd.testing.assert_frame_equal(a, dart_rank(scores, 2.0, n_resamples=400, random_state=9))
    other = dart_rank(scores, 2.0, n_resamples=400, random_state=10)
    assert not np.array_equal(a["dart_low"], other["dart_low"])


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    (dict(n_resamples=10), ValueError, "n_resamples must be at least 100"),
    (dict(n_resamples=2.5), TypeError, "n_resamples must be an integer"),
    (dict(confidence_level=0), ValueError, "confidence_level"),
    (dict(estimator=LogisticRegression()), ValueError, "needs X, y and scoring"),
])
def test_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        dart_rank({"a": [0.9, 0.8], "b": [0.7, 0.75]}, 1.0, **kwargs)


def _search():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    search = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, cv=3,
                          scoring="accuracy").fit(X, y)
    return search.cv_results_, X, y


def test_nested_cv_intervals_of_each_configuration():
    cv, X, y = _search()
    frame = dart_rank(cv, 2.0, estimator=LogisticRegression(), X=X, y=y, scoring="accuracy",
                      n_repeats=2, n_resamples=300, random_state=5).sort_index()
    seeds = spawn(child(seed_sequence(5), 1), 2)
    nested = [nested_cv_interval(clone(LogisticRegression()).set_params(**params), X, y,
                                 scoring="accuracy", cv=3, n_repeats=2, random_state=s)
              for params, s in zip(cv["params"], seeds)]
    assert frame["mean_low"].tolist() == [r.low for r in nested]
    assert frame["mean_high"].tolist() == [r.high for r in nested]
    scores = np.column_stack([cv[f"split{i}_test_score"] for i in range(3)])
    expected = _loop(scores, 2.0, 5, 300, se=[r.standard_error for r in nested])
    for name in ("dart_low", "dart_high", "p_best"):
        np.testing.assert_allclose(frame[name].to_numpy(), expected[name], rtol=1e-12,
                                   atol=1e-12, err_msg=name)


def test_nested_cv_with_a_dict_of_models():
    _, X, y = _search()
    folds = {"weak": [0.7, 0.72, 0.69], "strong": [0.8, 0.82, 0.78]}
    models = {"weak": LogisticRegression(C=0.01), "strong": LogisticRegression()}
    frame = dart_rank(folds, 1.0, estimator=models, X=X, y=y, scoring="accuracy",
                      n_repeats=1, n_resamples=100, random_state=0)
    assert frame["mean_low"].notna().all()
    with pytest.raises(ValueError, match="no model for the configuration"):
        dart_rank(folds, 1.0, estimator={"weak": models["weak"]}, X=X, y=y,
                  scoring="accuracy", n_repeats=1)
    with pytest.raises(ValueError, match="needs cv_results_ with 'params'"):
        dart_rank(folds, 1.0, estimator=LogisticRegression(), X=X, y=y, scoring="accuracy")
    for scoring in ("neg_log_loss", "zero_one_loss"):
        with pytest.raises(ValueError, match="is a loss or not in \\[0, 1\\]"):
            dart_rank(folds, 1.0, estimator=models, X=X, y=y, scoring=scoring)
    with pytest.raises(TypeError, match="estimator must be a scikit-learn estimator"):
        dart_rank(folds, 1.0, estimator=3, X=X, y=y, scoring="accuracy")
