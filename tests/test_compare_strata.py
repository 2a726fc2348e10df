"""``strata=`` is refused by name by the paired comparisons (issue 36, item 14): it
went on to the metric, so the error blamed ``accuracy_score``, and a callable taking
``**kwargs`` dropped it without a word."""

import numpy as np
import pytest

import dartboard as db
from dartboard.exceptions import InputTypeError


def _data():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 60)
    a = np.where(rng.random(60) < 0.8, y, 1 - y)
    b = np.where(rng.random(60) < 0.7, y, 1 - y)
    return y, a, b, rng.choice(["s1", "s2"], 60)


def _accuracy_any_kwargs(y_true, y_pred, **kwargs):
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


@pytest.mark.parametrize("metric", ["accuracy", db.metrics.accuracy_score, _accuracy_any_kwargs])
def test_compare_models_refuses_strata_by_name(metric):
    y, a, b, strata = _data()
    with pytest.raises(InputTypeError, match="^compare_models does not take strata: ") as err:
        db.compare_models(metric, y, a, b, strata=strata, n_resamples=99, random_state=0)
    assert "accuracy_score" not in str(err.value)
    assert isinstance(err.value, TypeError)


@pytest.mark.parametrize("method", ["maxt", "holm"])
@pytest.mark.parametrize("metric", ["accuracy", _accuracy_any_kwargs])
def test_compare_k_models_refuses_strata_by_name(metric, method):
    y, a, b, strata = _data()
    with pytest.raises(InputTypeError, match="^compare_k_models does not take strata: "):
        db.compare_k_models(metric, y, {"a": a, "b": b, "c": y}, strata=strata,
                            method=method, n_resamples=99, random_state=0)


def test_without_strata_the_callable_and_the_registry_metric_agree():
    # the refusal changed nothing else: the same numbers as before, by either route
    y, a, b, _ = _data()
    by_name = db.compare_models("accuracy", y, a, b, n_resamples=99, random_state=0)
    by_callable = db.compare_models(_accuracy_any_kwargs, y, a, b, n_resamples=99,
                                    random_state=0)
    assert by_name.difference == by_callable.difference == pytest.approx(
        np.mean(a == y) - np.mean(b == y), abs=1e-15)
