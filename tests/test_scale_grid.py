"""cross_validate_grid gives GridSearchCV's fold scores in cv_results_ layout."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from dartboard.scale import cross_validate_grid


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:250], y[:250]


def _compare(ours, theirs, metrics):
    assert ours["params"] == theirs["params"]
    for m in metrics:
        for key in [k for k in theirs if k.endswith(f"_test_{m}")]:
            np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)


def test_single_metric_equals_grid_search(data):
    X, y = data
    grid = {"n_neighbors": [1, 5, 15], "weights": ["uniform", "distance"]}
    theirs = GridSearchCV(KNeighborsClassifier(), grid, cv=4).fit(X, y).cv_results_
    ours = cross_validate_grid(KNeighborsClassifier(), grid, X, y, cv=4)
    _compare(ours, theirs, ["score"])
    assert list(ours["param_n_neighbors"]) == list(theirs["param_n_neighbors"])


def test_multi_metric_and_list_of_grids_equal_grid_search(data):
    X, y = data
    grid = [{"max_depth": [1, 3]}, {"min_samples_leaf": [5, 20]}]
    scoring = ["accuracy", "f1", "roc_auc"]
    est = DecisionTreeClassifier(random_state=0)
    theirs = GridSearchCV(est, grid, cv=3, scoring=scoring, refit=False).fit(X, y).cv_results_
    ours = cross_validate_grid(est, grid, X, y, cv=3, scoring=scoring)
    _compare(ours, theirs, scoring)
    # params absent from a configuration are masked, as in scikit-learn
    assert ours["param_max_depth"].mask.tolist() == theirs["param_max_depth"].mask.tolist()


def test_regression_with_splitter_and_dict_scoring():
    X, y = load_diabetes(return_X_y=True)
    cv = KFold(5, shuffle=True, random_state=1)
    scoring = {"mse": "neg_mean_squared_error", "r2": "r2"}
    grid = {"alpha": [0.1, 1.0, 10.0]}
    theirs = GridSearchCV(Ridge(), grid, cv=cv, scoring=scoring, refit=False).fit(X, y)
    ours = cross_validate_grid(Ridge(), grid, X, y, cv=cv, scoring=scoring)
    _compare(ours, theirs.cv_results_, ["mse", "r2"])


def test_feeds_dart_rank(data):
    from dartboard.selection import dart_rank

    X, y = data
    res = cross_validate_grid(KNeighborsClassifier(), {"n_neighbors": [1, 9, 25]}, X, y, cv=5)
    table = dart_rank(res, 1.0)
    assert len(table) == 3


def test_seeds_make_random_estimators_reproducible(data):
    X, y = data
    est = DecisionTreeClassifier(max_features=0.3)
    a = cross_validate_grid(est, {"max_depth": [3, None]}, X, y, cv=3, random_state=5)
    b = cross_validate_grid(est, {"max_depth": [3, None]}, X, y, cv=3, random_state=5)
    np.testing.assert_array_equal(a["split0_test_score"], b["split0_test_score"])


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"param_grid": []}, ValueError, "no configuration"),
    ({"param_grid": {"n_neighbors": 3}}, TypeError, "param_grid"),
    ({"scoring": 3}, TypeError, "scoring"),
    ({"scoring": []}, ValueError, "scoring"),
    ({"random_state": 0}, ValueError, "no random_state parameter"),
    ({"estimator": "knn"}, TypeError, "estimator"),
])
def test_bad_arguments(data, kwargs, exc, match):
    X, y = data
    args = {"estimator": KNeighborsClassifier(), "param_grid": {"n_neighbors": [3]}, **kwargs}
    with pytest.raises(exc, match=match):
        cross_validate_grid(args.pop("estimator"), args.pop("param_grid"), X, y, **args)
