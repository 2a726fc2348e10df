"""Squared log errors, the pinball loss, Tweedie deviances and D^2 scores against
scikit-learn: randomised targets, the domains and options of
sklearn/metrics/tests/test_regression.py, and the streaming and paired engines that
reach them through their per-sample terms.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
from _against_sklearn import SEEDS, both

import dartboard as db
import dartboard.metrics as dm


def _targets(seed, n=500, outputs=1):
    rng = np.random.default_rng(seed)
    shape = (n,) if outputs == 1 else (n, outputs)
    return rng, rng.gamma(2.0, size=shape), rng.gamma(2.0, size=shape), rng.random(n)


@pytest.mark.parametrize("seed", SEEDS)
def test_regression_losses_equal_sklearn(seed):
    _, t, p, w = _targets(seed)
    t[:10] = 0.0  # zeros are in the domain of the log and Poisson losses
    for weight in (None, w):
        both("mean_squared_log_error", t, p, sample_weight=weight)
        both("root_mean_squared_log_error", t, p, sample_weight=weight)
        both("mean_poisson_deviance", t, p, sample_weight=weight)
        both("d2_absolute_error_score", t, p, sample_weight=weight)
        for alpha in (0.0, 0.1, 0.5, 0.9, 1.0):
            both("mean_pinball_loss", t, p, alpha=alpha, sample_weight=weight)
            both("d2_pinball_score", t, p, alpha=alpha, sample_weight=weight)
        for power in (-1.5, 0, 1, 1.2, 1.5):
            both("mean_tweedie_deviance", t, p, power=power, sample_weight=weight)
            both("d2_tweedie_score", t, p, power=power, sample_weight=weight)
    t[:10] = 0.5  # strictly positive for the gamma and power >= 2 deviances
    for weight in (None, w):
        both("mean_gamma_deviance", t, p, sample_weight=weight)
        for power in (2, 3, 2.5):
            both("mean_tweedie_deviance", t, p, power=power, sample_weight=weight)
            both("d2_tweedie_score", t, p, power=power, sample_weight=weight)


@pytest.mark.parametrize("seed", SEEDS)
def test_multioutput_regression_losses_equal_sklearn(seed):
    _, t, p, w = _targets(seed, outputs=3)
    for mo in ("raw_values", "uniform_average", [0.2, 0.5, 0.3]):
        for weight in (None, w):
            both("mean_squared_log_error", t, p, multioutput=mo, sample_weight=weight)
            both("root_mean_squared_log_error", t, p, multioutput=mo, sample_weight=weight)
            both("mean_pinball_loss", t, p, alpha=0.3, multioutput=mo, sample_weight=weight)
            both("d2_pinball_score", t, p, alpha=0.7, multioutput=mo, sample_weight=weight)
            both("d2_absolute_error_score", t, p, multioutput=mo, sample_weight=weight)


def test_more_blocks_than_one_equal_sklearn():
    # the block kernel's boundaries (2^15 samples) must not change the sums
    _, t, p, w = _targets(0, n=100_003)
    for weight in (None, w):
        both("mean_squared_log_error", t, p, sample_weight=weight)
        both("mean_tweedie_deviance", t, p, power=1.5, sample_weight=weight)
        both("mean_pinball_loss", t, p, alpha=0.2, sample_weight=weight)


def test_log_domain_error_holds_sklearn_sentence():
    # test_score_objects.py::test_multimetric_scorer_exception_handling looks for
    # scikit-learn's sentence in the text a failing scorer leaves in its result
    for name in ("mean_squared_log_error", "root_mean_squared_log_error"):
        for y, p in (([-1.0, 2.0], [1.0, 2.0]), ([0.0, 2.0], [-3.0, 2.0])):
            with pytest.raises(ValueError) as theirs:
                getattr(skm, name)(y, p)
            with pytest.raises(ValueError) as ours:
                getattr(dm, name)(y, p)
            assert str(theirs.value) in str(ours.value)
            assert "y_true" in str(ours.value)


def test_regression_domains_and_options_as_sklearn():
    with pytest.raises(ValueError, match="less than or equal to -1"):
        dm.mean_squared_log_error([-1.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="strictly positive y_pred"):
        dm.mean_poisson_deviance([1.0, 2.0], [0.0, 2.0])
    with pytest.raises(ValueError, match="non-negative y_true"):
        dm.mean_poisson_deviance([-1.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="strictly positive y_true"):
        dm.mean_gamma_deviance([0.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="strictly positive y_pred"):
        dm.mean_tweedie_deviance([1.0, 2.0], [-1.0, 2.0], power=-1)
    for bad in (0.5, "a", np.nan):
        with pytest.raises(ValueError, match="power"):
            dm.mean_tweedie_deviance([1.0, 2.0], [1.0, 2.0], power=bad)
    with pytest.raises(ValueError, match="alpha"):
        dm.mean_pinball_loss([1.0, 2.0], [1.0, 2.0], alpha=1.5)
    with pytest.raises(ValueError, match="Multioutput"):
        dm.mean_tweedie_deviance(np.ones((3, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="y_pred"):
        dm.mean_pinball_loss([1.0, 2.0], [1.0, np.nan])


def test_d2_tweedie_of_a_constant_target_follows_the_d2_convention():
    # deliberate deviation: scikit-learn raises ZeroDivisionError here; dartboard gives
    # D^2 pinball's answer (1.0 for perfect predictions, else 0.0)
    with pytest.raises(ZeroDivisionError):
        skm.d2_tweedie_score([1.0, 1.0], [1.0, 2.0])
    assert dm.d2_tweedie_score([1.0, 1.0], [1.0, 2.0]) == 0.0
    assert dm.d2_tweedie_score([1.0, 1.0], [1.0, 1.0]) == 1.0
    assert skm.d2_pinball_score([1.0, 1.0], [1.0, 2.0]) == \
        dm.d2_pinball_score([1.0, 1.0], [1.0, 2.0]) == 0.0



def test_regression_losses_stream_and_compare_through_their_terms(tmp_path):
    import pandas as pd

    from dartboard.scale import evaluate_parquet

    _, t, p, _ = _targets(3, n=3000)
    for i in range(3):
        pd.DataFrame({"y": t[i::3], "p": p[i::3]}).to_parquet(tmp_path / f"{i}.parquet")
    names = ["mean_squared_log_error", "mean_pinball_loss", "mean_poisson_deviance",
             "mean_gamma_deviance"]
    from _streamed import values

    got = values(evaluate_parquet(tmp_path, y_true="y", y_pred="p", metrics=names))
    for name in names:
        assert got[name] == pytest.approx(getattr(skm, name)(t, p), rel=1e-12)
    result = db.compare_models(dm.mean_poisson_deviance, t, p, p * 1.1, n_resamples=200,
                               random_state=0)
    assert "per-sample loss" in result.method
    assert result.estimate_a == pytest.approx(skm.mean_poisson_deviance(t, p), rel=1e-12)
