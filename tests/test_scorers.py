"""dartboard's scorers are scikit-learn's scorers with dartboard's metrics inside.

For each name: the same response method, sign and keywords as scikit-learn's scorer
of that name, and the same ``cross_validate`` scores on a small dataset of the kind
the metric is for; ``GridSearchCV`` and ``check_scoring`` take them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from sklearn.datasets import (
    load_iris,
    make_classification,
    make_multilabel_classification,
)
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import PoissonRegressor
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.multioutput import MultiOutputClassifier

import dartboard.metrics as dm
from dartboard.metrics._registry import specs

NAMES = dm.get_scorer_names()
# the scorers dartboard computes (the others, the clustering scores, are scikit-learn's)
OURS = [name for name in NAMES
        if dm.get_scorer(name)._score_func.__module__.startswith("dartboard.")]


def _data_for(name):
    """(estimator, X, y) the scorer applies to, chosen by the metric's own facts."""
    scorer = skm.get_scorer(name)
    kwargs = scorer._kwargs
    function = scorer._score_func.__name__
    if kwargs.get("average") == "samples":
        X, y = make_multilabel_classification(n_samples=60, n_classes=3, random_state=0)
        return MultiOutputClassifier(LinearDiscriminantAnalysis()), X, y
    spec = {s.name: s for s in specs()}.get(function)
    if spec is not None and spec.kind == "regression":
        rng = np.random.default_rng(0)
        X = rng.random((60, 3))
        y = np.exp(X @ [1.0, -0.5, 0.3]) + rng.random(60)  # positive targets
        return PoissonRegressor(), X, y
    multiclass = "multi_class" in kwargs or kwargs.get("average") in (
        "macro", "micro", "weighted") or function in ("top_k_accuracy_score", "log_loss",
                                                      "d2_log_loss_score")
    if multiclass:
        X, y = load_iris(return_X_y=True)
        return LinearDiscriminantAnalysis(), X, y
    X, y = make_classification(n_samples=80, n_features=5, random_state=0)
    return LinearDiscriminantAnalysis(), X, y


def test_every_sklearn_scorer_is_offered_computed_by_dartboard_where_it_can():
    assert NAMES == skm.get_scorer_names()
    for name in NAMES:
        function = skm.get_scorer(name)._score_func
        known = function.__name__ in {s.name for s in specs()} or function.__name__ in (
            "positive_likelihood_ratio", "negative_likelihood_ratio")
        ours = dm.get_scorer(name)._score_func
        # dartboard's metric where it has one, else scikit-learn's (the clustering scores)
        assert (ours.__module__.startswith("dartboard.")) == known, name
        assert known or ours is function, name
    assert {"accuracy", "f1", "f1_macro", "roc_auc", "neg_log_loss",
            "neg_mean_squared_error", "r2", "top_k_accuracy"} <= set(NAMES)


@pytest.mark.parametrize("name", OURS)
def test_scorer_facts_are_sklearns(name):
    ours, theirs = dm.get_scorer(name), skm.get_scorer(name)
    assert ours._response_method == theirs._response_method
    assert ours._sign == theirs._sign
    assert ours._kwargs == theirs._kwargs
    assert ours._score_func is getattr(dm, ours._score_func.__name__, None) or \
        ours._score_func.__module__ == "dartboard.metrics._scorers"


@pytest.mark.parametrize("name", OURS)
def test_cross_validate_scores_equal_sklearns(name):
    estimator, X, y = _data_for(name)
    cv = KFold(2, shuffle=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = cross_validate(estimator, X, y, cv=cv, scoring=dm.get_scorer(name),
                              error_score="raise")["test_score"]
        theirs = cross_validate(estimator, X, y, cv=cv, scoring=name,
                                error_score="raise")["test_score"]
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_grid_search_and_check_scoring_take_them():
    from sklearn.metrics import check_scoring

    X, y = load_iris(return_X_y=True)
    model = LinearDiscriminantAnalysis()
    grid = {"solver": ["svd", "lsqr"]}
    ours = GridSearchCV(model, grid, cv=3, scoring=dm.get_scorer("f1_macro")).fit(X, y)
    theirs = GridSearchCV(model, grid, cv=3, scoring="f1_macro").fit(X, y)
    assert ours.best_params_ == theirs.best_params_
    assert ours.best_score_ == pytest.approx(theirs.best_score_, rel=1e-12)
    multi = {"acc": dm.get_scorer("accuracy"), "ll": dm.get_scorer("neg_log_loss")}
    result = cross_validate(model, X, y, cv=3, scoring=multi)
    assert {"test_acc", "test_ll"} <= set(result)
    assert check_scoring(model, scoring=dm.get_scorer("accuracy"))(
        model.fit(X, y), X, y) == pytest.approx(skm.accuracy_score(y, model.predict(X)))


def test_make_scorer_with_keywords():
    X, y = make_classification(n_samples=150, random_state=1)
    model = LinearDiscriminantAnalysis()
    ours = dm.make_scorer(dm.fbeta_score, beta=2)
    theirs = skm.make_scorer(skm.fbeta_score, beta=2)
    cv = KFold(3, shuffle=True, random_state=0)
    np.testing.assert_allclose(cross_validate(model, X, y, cv=cv, scoring=ours)["test_score"],
                               cross_validate(model, X, y, cv=cv, scoring=theirs)["test_score"],
                               rtol=1e-12)
    loss = dm.make_scorer(dm.hamming_loss, greater_is_better=False)
    assert cross_validate(model, X, y, cv=cv, scoring=loss)["test_score"].max() <= 0


def test_get_scorer_lookups_and_errors():
    assert dm.get_scorer(None) is None
    scorer = dm.get_scorer("accuracy")
    assert dm.get_scorer(scorer) is scorer
    assert dm.get_scorer("accuracy") is not dm.get_scorer("accuracy")  # fresh copies
    with pytest.raises(ValueError, match="not a valid scoring value"):
        dm.get_scorer("accuracy_score")
    with pytest.raises(TypeError, match="scoring"):
        dm.get_scorer(3)
