"""negative_predictive_value, added by its function and one registry line: the count
family gives it the Wilson interval, streaming, group gaps and paired comparisons.

Oracles: scikit-learn's precision of the negative class, statsmodels' Wilson interval,
the in-memory evaluation for the streamed one."""

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from statsmodels.stats.proportion import proportion_confint

import dartboard as db
from dartboard.metrics import negative_predictive_value
from dartboard.scale import evaluate_parquet


def _data(seed=0, n=400):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, np.where(rng.random(n) < 0.8, y, 1 - y), rng.integers(1, 4, n)


@pytest.mark.parametrize("seed", range(5))
def test_equals_sklearns_precision_of_the_negative_class(seed):
    y, p, w = _data(seed)
    assert negative_predictive_value(y, p) == skm.precision_score(y, p, pos_label=0)
    assert negative_predictive_value(y, p, sample_weight=w) == pytest.approx(
        skm.precision_score(y, p, pos_label=0, sample_weight=w), rel=1e-12)
    labels = np.array(["no", "yes"])
    assert negative_predictive_value(labels[y], labels[p], pos_label="yes") == \
        skm.precision_score(y, p, pos_label=0)


def test_wilson_interval_of_its_counts():
    y, p, _ = _data(1)
    tn, fn = int(((y == 0) & (p == 0)).sum()), int(((y == 1) & (p == 0)).sum())
    iv = db.interval("negative_predictive_value", y, p)
    low, high = proportion_confint(tn, tn + fn, method="wilson")
    assert iv.method == "wilson"
    assert (iv.low, iv.high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))


def test_streamed_groups_and_comparison(tmp_path):
    y, p, _ = _data(2)
    g = np.random.default_rng(3).choice(["a", "b", "c"], y.shape[0])
    frame = pd.DataFrame({"y": y, "p": p, "g": g})
    frame.iloc[:150].to_parquet(tmp_path / "a.parquet")
    frame.iloc[150:].to_parquet(tmp_path / "b.parquet")
    kw = dict(metrics=["negative_predictive_value", "accuracy"], n_resamples=300,
              random_state=0)
    memory = db.evaluate(y, p, groups=g, **kw)
    streamed = evaluate_parquet(tmp_path, y_true="y", y_pred="p", groups="g", **kw)
    pd.testing.assert_frame_equal(streamed.overall, memory.overall, rtol=1e-12)
    pd.testing.assert_frame_equal(streamed.difference(), memory.difference(), rtol=1e-12)
    assert memory.difference().loc["negative_predictive_value", "method"].startswith("max-T")
    other = np.where(np.random.default_rng(4).random(y.shape[0]) < 0.7, y, 1 - y)
    cmp = db.compare_models("negative_predictive_value", y, p, other, n_resamples=300,
                            random_state=0)
    assert cmp.difference == pytest.approx(skm.precision_score(y, p, pos_label=0)
                                           - skm.precision_score(y, other, pos_label=0))
