"""Pipeline profiles: times, throughput, memory and size checked on known workloads."""

import json
import pickle
import time
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_breast_cancer
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from dartboard import Profile, profile_pipeline

MB = 1 << 20


class KnownCost(BaseEstimator, ClassifierMixin):
    """Sleeps and allocates known amounts, so the profile can be checked exactly."""

    def __init__(self, fit_sleep=0.02, predict_sleep=0.005, fit_mb=64, predict_mb=8):
        self.fit_sleep = fit_sleep
        self.predict_sleep = predict_sleep
        self.fit_mb = fit_mb
        self.predict_mb = predict_mb

    def fit(self, X, y):
        buf = np.ones(self.fit_mb * MB // 8)  # written, so resident
        time.sleep(self.fit_sleep)
        self.total_ = float(buf[:10].sum())
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        buf = np.ones(self.predict_mb * MB // 8)
        time.sleep(self.predict_sleep)
        return np.full(len(X), self.classes_[0]) + 0 * buf[0]


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:400], y[:400], X[400:]


def test_known_workload_times_memory_and_size(data):
    X, y, Xt = data
    prof = profile_pipeline(KnownCost(), X, y, Xt, repeats=3)
    assert isinstance(prof, Profile)
    assert prof.fit_times.shape == (3,) and prof.predict_times.shape == (3,)
    # the sleeps bound the times from below; a shared machine bounds them loosely above
    assert 0.02 <= prof.fit_time < 2.0
    assert 0.005 <= prof.predict_time < 2.0
    assert prof.fit_time == np.median(prof.fit_times)
    q = np.quantile(prof.fit_times, [0.25, 0.75])
    assert prof.fit_time_iqr == pytest.approx(q[1] - q[0])
    assert prof.throughput == pytest.approx(len(Xt) / prof.predict_time)
    assert prof.throughput <= len(Xt) / 0.005
    # tracemalloc sees numpy's buffers: 64 MB in fit, 8 MB in predict
    assert 64 * MB <= prof.fit_peak_python < 72 * MB
    assert 8 * MB <= prof.predict_peak_python < 12 * MB
    # the 64 MB buffer is written during a 20 ms sleep: the RSS sampler sees it
    assert prof.fit_peak_rss >= 48 * MB
    fitted = KnownCost().fit(X, y)
    assert prof.model_size == len(pickle.dumps(fitted, protocol=pickle.HIGHEST_PROTOCOL))
    assert (prof.n_train, prof.n_test, prof.repeats, prof.method) == (400, 169, 3, "predict")
    assert json.loads(json.dumps(prof.to_dict()))["name"] == "KnownCost"


def test_logistic_regression_values_positive_and_sane(data):
    X, y, Xt = data
    pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    prof = profile_pipeline(pipe, X, y, Xt, repeats=3, method="predict_proba")
    assert prof.name == "Pipeline"
    assert 0 < prof.fit_time < 10 and 0 < prof.predict_time < 1
    assert prof.throughput > 1000  # rows/s; LR predicts ~1e6 rows/s on one core
    assert prof.fit_peak_python > 0 and prof.predict_peak_python > 0
    assert prof.fit_peak_rss >= 0 and prof.predict_peak_rss >= 0
    # the pickled pipeline holds 30 means, 30 scales, 30 coefficients: a few kB
    assert 1000 < prof.model_size < 100_000
    assert not tracemalloc.is_tracing()


def test_memory_off_and_existing_tracing_is_kept(data):
    X, y, Xt = data
    prof = profile_pipeline(KnownCost(fit_mb=1, predict_mb=1), X, y, Xt, repeats=1,
                            memory=False)
    assert prof.fit_peak_python == prof.fit_peak_rss == 0
    tracemalloc.start()
    try:
        prof = profile_pipeline(KnownCost(fit_mb=4, predict_mb=1), X, y, Xt, repeats=1)
        assert tracemalloc.is_tracing()
        assert prof.fit_peak_python >= 4 * MB
    finally:
        tracemalloc.stop()


def test_several_estimators_side_by_side(data):
    X, y, Xt = data
    table = profile_pipeline({"slow": KnownCost(fit_sleep=0.05, fit_mb=1, predict_mb=1),
                              "fast": KnownCost(fit_sleep=0.0, fit_mb=1, predict_mb=1)},
                             X, y, Xt, repeats=2)
    assert isinstance(table, pd.DataFrame)
    assert list(table.index) == ["slow", "fast"]
    assert {"fit_time", "fit_time_iqr", "predict_time", "throughput", "fit_peak_python",
            "fit_peak_rss", "predict_peak_rss", "model_size"} <= set(table.columns)
    assert table.loc["slow", "fit_time"] >= 0.05 > table.loc["fast", "fit_time"]
    listed = profile_pipeline([KnownCost(fit_mb=1, predict_mb=1),
                               KnownCost(fit_mb=1, predict_mb=1),
                               DummyClassifier()],
                              X, y, Xt, repeats=1, memory=False, n_jobs=2,
                              backend="threading")
    assert list(listed.index) == ["KnownCost", "KnownCost#2", "DummyClassifier"]
    assert (listed["fit_time"] > 0).all()


def test_bad_input(data):
    X, y, Xt = data
    with pytest.raises(ValueError, match="repeats must be at least 1"):
        profile_pipeline(KnownCost(), X, y, Xt, repeats=0)
    with pytest.raises(TypeError, match=r"estimator 'str' \(str\) has no fit method"):
        profile_pipeline("model", X, y, Xt)
    with pytest.raises(TypeError, match=r"estimator 'SVC' \(SVC\) has no predict_proba"):
        profile_pipeline(SVC(), X, y, Xt, method="predict_proba")
    with pytest.raises(ValueError, match="method must be one of"):
        profile_pipeline(KnownCost(), X, y, Xt, method="transform")
    with pytest.raises(ValueError, match="X_test is empty"):
        profile_pipeline(KnownCost(), X, y, Xt[:0])
    with pytest.raises(ValueError, match="X_train has 400, y_train has 399"):
        profile_pipeline(KnownCost(), X, y[:-1], Xt)
    with pytest.raises(ValueError, match="empty collection"):
        profile_pipeline({}, X, y, Xt)
    with pytest.raises(TypeError, match="memory must be True or False"):
        profile_pipeline(KnownCost(), X, y, Xt, memory="yes")
