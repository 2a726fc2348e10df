"""interval(): input containers, dispatch, lazy import, large-n jackknife."""

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from dartboard import Interval, IntervalWarning, interval
from dartboard.metrics import f1_score, roc_auc_score


def test_import_is_light():
    code = ("import sys, dartboard.uncertainty as u; "
            "print(any(m.startswith('dartboard.uncertainty._') for m in sys.modules)); "
            "u.interval; print('dartboard.uncertainty._interval' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "True"]


def test_pandas_and_string_labels():
    rng = np.random.default_rng(0)
    y = pd.Series(rng.choice(["spam", "ham"], 300))
    p = pd.Series(np.where(rng.random(300) < 0.8, y, "spam"))
    iv = interval(f1_score, y, p, pos_label="spam", n_resamples=500, random_state=0)
    assert isinstance(iv, Interval) and iv.method == "bca"
    assert iv.estimate == pytest.approx(f1_score(y, p, pos_label="spam"))
    assert iv.low < iv.estimate < iv.high
    d = iv.to_dict()
    assert d["metric"] == "f1_score" and len(d["bootstrap_distribution"]) == 500


def test_auto_reports_chosen_method():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    s = rng.normal(size=200) + y
    # Newcombe's interval below 30 samples in the smaller class, DeLong on the logit
    # scale from 30, DeLong from 100
    smaller = min(np.bincount(y))
    assert interval(roc_auc_score, y, s).method == ("delong" if smaller >= 100
                                                    else "delong-logit" if smaller >= 30
                                                    else "newcombe")
    assert interval(roc_auc_score, np.r_[y, y], np.r_[s, s]).method == "delong"
    assert interval(roc_auc_score, y[:40], s[:40]).method == "newcombe"
    assert interval(roc_auc_score, y, s, sample_weight=np.ones(200), n_resamples=300,
                    random_state=0).method == "bca"
    assert interval(lambda a, b: float(np.mean(a == (b > 0.5))), y, s, n_resamples=200,
                    random_state=0).method == "bca"


def test_grouped_jackknife_above_limit_matches_exact():
    # n > JACKKNIFE_MAX: the generic path uses a delete-a-group jackknife; its BCa
    # interval stays within Monte-Carlo error of the count path (exact jackknife).
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 1500)
    p = np.where(rng.random(1500) < 0.7, y, 1 - y)
    fast = interval(f1_score, y, p, n_resamples=1500, random_state=0)
    slow = interval(lambda a, b: f1_score(a, b), y, p, n_resamples=1500, random_state=1)
    assert slow.method == "bca"
    assert abs(fast.low - slow.low) < 0.3 * fast.standard_error
    assert abs(fast.high - slow.high) < 0.3 * fast.standard_error


def test_regression_metric_and_stratified_needs_labels():
    rng = np.random.default_rng(3)
    y = rng.normal(size=100)
    yhat = y + rng.normal(scale=0.5, size=100)

    def mae(a, b):
        return float(np.mean(np.abs(a - b)))
    iv = interval(mae, y, yhat, method="percentile", n_resamples=500, random_state=0)
    assert iv.low < iv.estimate < iv.high
    with pytest.raises(ValueError, match="stratified=True .* needs class labels"):
        interval(mae, y, yhat, stratified=True, n_resamples=10)


def test_metric_undefined_on_the_data():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="undefined on this data"):
            interval(roc_auc_score, [1, 1, 1], [0.1, 0.2, 0.3], n_resamples=10)


def test_max_error_interval_warns_that_a_maximum_is_not_bootstrappable():
    from dartboard.metrics import max_error

    rng = np.random.default_rng(0)
    y = rng.normal(size=200)
    p = y + rng.normal(size=200)
    with pytest.warns(IntervalWarning, match="sample maximum"):
        iv = interval(max_error, y, p, method="percentile", n_resamples=200, random_state=0)
    assert iv.high == pytest.approx(iv.estimate)  # the defect the warning describes
