"""The calibration error's gap between two groups: the groups' bin-pivot intervals
combined (MOVER, ``evaluation/_gaps.py``, ``_pivot_pair``), where the percentile
interval of the bootstrap's differences carried the plug-in error's bias (its
coverage: ``benchmarks/ece_pair_coverage.py``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dartboard


def _data(n_per_group: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    p = 1 / (1 + np.exp(-rng.normal(-0.5, 1.2, 2 * n_per_group)))
    g = np.repeat(["a", "b"], n_per_group)
    y = (rng.random(p.shape[0]) < np.where(g == "a", p**1.25, p**2)).astype(int)
    return y, p, g


def _evaluate(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dartboard.evaluate(n_resamples=300, random_state=0, progress=False, **kw)


@pytest.mark.parametrize("n_per_group", [60, 300])
def test_two_groups_ece_gap_combines_their_bin_pivot_intervals(n_per_group):
    """d -+ sqrt((t_a - l_a)^2 + (u_b - t_b)^2) with t_a the higher group's error, from
    the groups' own rows (Zou and Donner 2008), by hand."""
    y, p, g = _data(n_per_group)
    ev = _evaluate(y_true=y, y_score=p, groups=g)
    row = ev.difference().loc["ece"]
    rows = ev.by_group.reset_index()
    rows = rows[rows["metric"] == "ece"].set_index("group")
    assert set(rows["method"]) == {"bin-pivot"}
    hi, lo = ("b", "a") if rows.loc["b", "estimate"] >= rows.loc["a", "estimate"] \
        else ("a", "b")
    ta, tb = rows.loc[hi, "estimate"], rows.loc[lo, "estimate"]
    want_low = ta - tb - np.sqrt((ta - rows.loc[hi, "low"]) ** 2
                                 + (rows.loc[lo, "high"] - tb) ** 2)
    want_high = ta - tb + np.sqrt((rows.loc[hi, "high"] - ta) ** 2
                                  + (tb - rows.loc[lo, "low"]) ** 2)
    assert row["method"] == "mover (the groups' bin-pivot intervals)"
    assert row["estimate"] == pytest.approx(ta - tb, abs=1e-15)
    assert row["low"] == pytest.approx(want_low, abs=1e-12)
    assert row["high"] == pytest.approx(want_high, abs=1e-12)
    assert row["low"] <= row["estimate"] <= row["high"]


def test_newcombe_is_the_same_combination_of_wilson_intervals():
    """Newcombe's interval of two proportions (1998, method 10) is the combination with
    Wilson's: the worked example 56/70 - 48/80 gives 0.0524 to 0.3339 (Newcombe 1998,
    Statistics in Medicine 17, 873-890, Table II, example (a))."""
    from dartboard._kernels._analytic import proportion_interval
    from dartboard.evaluation._gaps import _mover

    a, b = proportion_interval(56, 70, 0.95, "wilson"), proportion_interval(48, 80, 0.95,
                                                                            "wilson")
    low, high = _mover(56 / 70, a, 48 / 80, b)
    assert (round(low, 4), round(high, 4)) == (0.0524, 0.3339)


@pytest.mark.parametrize("extra", ["weights", "clusters"])
def test_weighted_or_clustered_ece_gap_keeps_the_bootstrap(extra):
    """Weighted rows have no bin-pivot interval, and clustered groups may share
    clusters: their gap keeps the interval of the bootstrap's differences."""
    y, p, g = _data()
    kw = {"sample_weight": np.full(y.shape[0], 2.0)} if extra == "weights" else \
        {"clusters": np.arange(y.shape[0]) // 3}
    row = _evaluate(y_true=y, y_score=p, groups=g, **kw).difference(metrics=["ece"]).loc["ece"]
    assert str(row["method"]).startswith("percentile")


def test_more_groups_keep_the_selection_aware_interval():
    y, p, _ = _data(300)
    g = np.repeat(["a", "b", "c"], 200)
    row = _evaluate(y_true=y, y_score=p, groups=g).difference(metrics=["ece"]).loc["ece"]
    assert str(row["method"]).startswith("max-T")
