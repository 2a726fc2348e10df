"""select_threshold shows its criterion, target and guarantee, and the constrained rate
with the one-sided bound its guarantee is about (issue 38, item 5).

The bounds are recomputed here from the counts at the chosen threshold with SciPy's
beta quantiles (the exact Clopper-Pearson bounds), independently of the library's
binomial tests.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dartboard import select_threshold
from dartboard._kernels._bootstrap import IntervalWarning


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 1000)
    return y, y + rng.normal(size=2000)


def test_max_fpr_shows_the_upper_bound_the_guarantee_uses(data):
    y, s = data
    point = select_threshold(y, s, criterion="max_fpr", target=0.10, guarantee=0.95,
                             n_resamples=200, random_state=0)
    neg = s[y == 0]
    fp, n = int(np.sum(neg >= point.threshold)), neg.shape[0]
    upper = stats.beta.ppf(0.95, fp + 1, n - fp)  # Clopper-Pearson, one-sided 95%
    c = point.constraint
    assert (c.rate, c.target, c.guarantee, c.side) == ("fpr", 0.10, 0.95, "upper")
    assert c.estimate == pytest.approx(fp / n, abs=1e-15)
    assert c.bound == pytest.approx(upper, rel=1e-12)
    assert c.bound_level == 0.95
    assert c.bound <= 0.10
    # the next lower score's FP count would break the bound: the threshold is the lowest
    fp_next = int(np.sum(neg >= np.max(s[s < point.threshold])))
    assert stats.beta.ppf(0.95, fp_next + 1, n - fp_next) > 0.10 or fp_next == fp
    # FPR's two-sided interval is 1 - TNR's
    tnr = point.intervals["tnr"]
    assert (c.interval.low, c.interval.high) == pytest.approx((1 - tnr.high, 1 - tnr.low))
    text = repr(point)
    for part in ("criterion='max_fpr'", "target=0.1", "guarantee=0.95",
                 f"fpr {fp / n:.4g}, upper 95% bound {upper:.4g} <= target 0.1 (guaranteed)",
                 "the guarantee is the one-sided bound"):
        assert part in text
    html = point._repr_html_()
    assert f"upper 95% bound {upper:.4g} &lt;= target 0.1" in html
    assert "two-sided, for reading the rates" in html
    d = point.to_dict()
    assert (d["target"], d["guarantee"]) == (0.1, 0.95)
    assert d["constraint"]["bound"] == pytest.approx(upper, rel=1e-12)
    assert d["constraint"]["rate"] == "fpr"
    assert "guaranteed" in d["constraint"]["statement"]


def test_min_recall_shows_the_lower_bound(data):
    y, s = data
    point = select_threshold(y, s, criterion="min_recall", target=0.8, guarantee=0.95,
                             n_resamples=200, random_state=0)
    pos = s[y == 1]
    tp, n = int(np.sum(pos >= point.threshold)), pos.shape[0]
    lower = stats.beta.ppf(0.05, tp, n - tp + 1)
    c = point.constraint
    assert (c.rate, c.side, c.bound_level) == ("recall", "lower", 0.95)
    assert c.bound == pytest.approx(lower, rel=1e-12)
    assert c.bound >= 0.8
    assert f"recall {tp / n:.4g}, lower 95% bound {lower:.4g} >= target 0.8" in repr(point)


def test_min_precision_reports_its_sequence_level(data):
    y, s = data
    with pytest.warns(IntervalWarning, match="cannot be met in"):  # a few resamples
        point = select_threshold(y, s, criterion="min_precision", target=0.8,
                                 guarantee=0.95, n_resamples=200, random_state=0)
    above = s >= point.threshold
    tp, m = int(np.sum(y[above])), int(above.sum())
    c = point.constraint
    alpha = 1 - c.bound_level
    assert alpha <= 0.05  # a sequence's share of alpha
    assert c.bound == pytest.approx(stats.beta.ppf(alpha, tp, m - tp + 1), rel=1e-12)
    assert c.bound >= 0.8
    assert "guaranteed at 95%" in c.statement


def test_without_a_guarantee_the_rate_is_shown_without_a_bound(data):
    y, s = data
    point = select_threshold(y, s, criterion="max_fpr", target=0.10, n_resamples=200,
                             random_state=0)
    c = point.constraint
    assert c.bound is None and c.guarantee is None
    assert c.estimate <= 0.10
    assert "no guarantee" in repr(point)


def test_unconstrained_criteria_have_no_constraint(data):
    y, s = data
    point = select_threshold(y, s, n_resamples=200, random_state=0)
    assert point.constraint is None
    assert "constraint" not in repr(point)
