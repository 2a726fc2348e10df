"""Rows in clusters, in memory, come from per-cluster family states (the route a
streamed evaluation takes). Their oracle is the public :func:`dartboard.interval`
with ``clusters=``, which works from the rows: every row of ``evaluate``, overall and
per group, equals it on that group's rows (estimate, interval, method), at the edges
where the routes could part -- a group of one cluster, a group or cluster of one
class, proportions at 0 or 1, weights, few clusters."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dartboard as db

#: the default metrics of binary scores, by their row labels and interval names
METRICS = {"accuracy": "accuracy", "precision": "precision", "recall": "recall",
           "f1": "f1", "selection_rate": "selection_rate", "roc_auc": "roc_auc",
           "average_precision": "average_precision", "log_loss": "log_loss",
           "brier_score_loss": "brier_score_loss", "ece": "ece",
           "matthews_corrcoef": "matthews_corrcoef"}


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def _oracle(name, y, score, w, clusters, n_resamples, seed):
    """(estimate, low, high, method) of the public interval on these rows, or None
    where it refuses."""
    pred = (score >= 0.5).astype(int)
    other = score if name in ("roc_auc", "average_precision", "log_loss",
                              "brier_score_loss", "ece") else pred
    # the evaluation's classes, as it gives them to log loss (a group may hold one)
    extra = {"labels": [0, 1]} if name == "log_loss" else {}
    try:
        iv = _quiet(db.interval, name, y, other, clusters=clusters, sample_weight=w,
                    n_resamples=n_resamples, random_state=seed, **extra)
    except ValueError:
        return None
    return iv.estimate, iv.low, iv.high, str(iv.method)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(40, 240), st.integers(2, 12), st.booleans(), st.integers(0, 2**16),
       st.sampled_from(["mixed", "one_class_group", "all_right_group", "one_cluster_group"]))
def test_every_clustered_row_equals_the_public_interval_on_its_rows(n, n_clusters, weighted,
                                                                   seed, edge):
    rng = np.random.default_rng(seed)
    c = rng.integers(0, n_clusters, n)
    c[:2] = [0, 1]  # two clusters at least
    effect = rng.normal(0, 1, n_clusters)[c]
    y = (rng.random(n) < 1 / (1 + np.exp(-effect))).astype(int)
    score = np.round(1 / (1 + np.exp(-(effect + rng.normal(0, 1, n) + y - 0.5))), 2)
    g = rng.choice(["a", "b"], n)
    if edge == "one_class_group":
        y[g == "b"] = 1
    elif edge == "all_right_group":  # accuracy, precision and recall at 1 there
        score[g == "b"] = np.where(y[g == "b"] == 1, 0.9, 0.1)
    elif edge == "one_cluster_group":
        g = np.where(c == 0, "b", "a")
    y[:2] = [0, 1]
    if len(set(y[g == "a"])) < 2:
        y[np.flatnonzero(g == "a")[:2]] = [0, 1]
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    ev = _quiet(db.evaluate, y, y_score=score, groups=g, clusters=c, sample_weight=w,
                metrics=list(METRICS), n_resamples=200, random_state=seed)
    rows = [(None, ev.overall)] + [(k, ev.by_group.xs(k, level=0)) for k in ("a", "b")
                                    if k in set(g)]
    checked = 0
    for group, frame in rows:
        at = np.ones(n, dtype=bool) if group is None else g == group
        for label, name in METRICS.items():
            row = frame.loc[label]
            if not np.isfinite(row["low"]):
                continue  # no interval: its reason is in the method
            found = _oracle(name, y[at], score[at], None if w is None else w[at], c[at],
                            200, seed)
            assert found is not None, (edge, group, label, row["method"])
            estimate, low, high, method = found
            assert row["method"] == method, (edge, group, label)
            for got, want in ((row["estimate"], estimate), (row["low"], low),
                              (row["high"], high)):
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12), \
                    (edge, group, label, row["method"])
            checked += 1
    assert checked > 0


def test_no_spread_of_the_calibration_residuals_is_a_design_effect_of_one():
    # every row of each bin at its bin's deviation (scores of 0.9 and 0.1, all right):
    # the residuals are rounding, whose ratio gave D = 1.76 from the rows and 1.00 from
    # the states on the same data; now both say 1
    y = np.array([1, 0] * 20)
    score = np.where(y == 1, 0.9, 0.1)
    clusters = np.arange(40) % 2
    iv = _quiet(db.interval, "ece", y, score, clusters=clusters, n_resamples=200,
                random_state=0)
    assert iv.method.endswith("design effect 1.00)")
    ev = _quiet(db.evaluate, y, y_score=score, clusters=clusters, metrics=["ece"],
                n_resamples=200, random_state=0)
    assert ev.overall.loc["ece", "design_effect"] == 1.0


def test_a_calibrated_bin_rounding_either_way_gives_one_design_effect():
    # a bin whose deviation is 0 exactly (two rows at 0.5, one event) sums to 0 from
    # the states and to 1e-17 from the rows: its sign decided whether its residuals
    # counted, and the rows' route said D = 1.54 where the states' said 1.12 (the
    # example hypothesis found: scores of two decimals, four clusters)
    rng = np.random.default_rng(4761)
    n = 237
    c = rng.integers(0, 4, n)
    c[:2] = [0, 1]
    effect = rng.normal(0, 1, 4)[c]
    y = (rng.random(n) < 1 / (1 + np.exp(-effect))).astype(int)
    score = np.round(1 / (1 + np.exp(-(effect + rng.normal(0, 1, n) + y - 0.5))), 2)
    y[:2] = [0, 1]
    ev = _quiet(db.evaluate, y, y_score=score, clusters=c, metrics=["ece"],
                n_resamples=200, random_state=0)
    iv = _quiet(db.interval, "ece", y, score, clusters=c, n_resamples=200, random_state=0)
    assert ev.overall.loc["ece", "method"] == iv.method
    assert iv.method.endswith("design effect 1.12)")
    assert ev.overall.loc["ece", "high"] == pytest.approx(iv.high, rel=1e-9)
    # a deviation within rounding of 0 has no sign
    from dartboard._kernels._clustered_calibration import NO_DEVIATION, deviation_sign
    assert deviation_sign(np.array([1e-17, -1e-17, 0.0, 0.1])).tolist() == [0, 0, 0, 1]
    assert NO_DEVIATION < 1e-9


@pytest.mark.parametrize("with_labels", [False, True])
def test_gaps_of_metrics_of_wide_and_narrow_cells_share_draws_without_mixing_batches(
        monkeypatch, with_labels):
    """With clusters, every metric's gaps take the same kept draws of clusters, each
    evaluated in batches that fit its cells: the count metrics' (a few cells) in one
    batch, the score metrics' (a cell per distinct score) in smaller ones. The kept
    layouts of the draws are per batch: a score metric after the count metrics once
    read the count metrics' whole-batch layout and failed ("could not broadcast input
    array from shape (300,) into shape (207,)", 20,000 rows in 400 clusters and 5
    groups). Each metric's gap equals its gap in a fresh evaluation, which draws alone."""
    from dartboard._kernels import _bootstrap

    monkeypatch.setattr(_bootstrap, "BATCH_BYTES", 1 << 16)  # batches of 300 rows' size
    rng = np.random.default_rng(5)
    n = 600
    y = rng.integers(0, 2, n)
    s = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + (2 * y - 1)))), 3)
    g, c = rng.integers(0, 5, n), rng.integers(0, 40, n)
    extra = {"y_pred": (s > 0.5).astype(int)} if with_labels else {}

    def fresh():
        return _quiet(db.evaluate, y, y_score=s, groups=g, clusters=c, n_resamples=300,
                      random_state=1, **extra)

    together = _quiet(fresh().difference)
    assert {"accuracy", "roc_auc", "average_precision"} <= set(together.index)
    for label in together.index:
        alone = _quiet(fresh().difference, metrics=label)
        assert np.isfinite(together.loc[label, "low"]), label
        for column in ("estimate", "low", "high", "method"):
            assert together.loc[label, column] == alone.loc[label, column], (label, column)
