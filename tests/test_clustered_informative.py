"""``jackknife-logit-clustered``: F-scores on the logit scale with the CR3 variance, and
``auto``'s rule that takes it where the clusters' sizes are unequal.

Oracles written out here: each cluster's confusion counts from Python loops, F1's
linearized term ``(x_c - F1 d_c) / sum d`` (``x = 2 TP``, ``d = 2 TP + FP + FN``),
the CR3 variance ``(I - 1) / I sum (t_c / (1 - h_c))^2`` with ``h_c`` the cluster's
share of the rows, and the cluster-effect Satterthwaite degrees of freedom of
``Q' Omega Q`` with dense N x N matrices.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import special, stats

import dartboard as db
from dartboard._kernels._clustered_analytic import UNEQUAL_DF_SHARE, small_sample_df
from dartboard._kernels._methods import CLUSTERED_ANALYTIC_METHODS
from dartboard.exceptions import InputError


def _data(seed, sizes):
    """Rows in clusters of ``sizes``; the larger a cluster, the worse the model on it."""
    rng = np.random.default_rng(seed)
    cluster = np.repeat(np.arange(sizes.shape[0]), sizes)
    n = cluster.shape[0]
    a, u = rng.normal(size=(2, sizes.shape[0]))
    z = (np.log(sizes) - np.log(sizes).mean()) / max(np.log(sizes).std(), 1e-12)
    b = -0.6 * z + 0.8 * u
    y = (np.sqrt(0.5) * a[cluster] + np.sqrt(0.5) * rng.normal(size=n) > 0).astype(int)
    t = (2 * y - 1) + 1.5 * (np.sqrt(0.5) * b[cluster] + np.sqrt(0.5) * rng.normal(size=n))
    return cluster, y, (t > 0).astype(int)


def _lognormal(seed, n_clusters=30):
    rng = np.random.default_rng(seed)
    return np.maximum(1, np.round(np.exp(np.log(20) - 1.125 + 1.5 * rng.normal(
        size=n_clusters)))).astype(int)


def _df_oracle(m):
    """Satterthwaite's df of the CR2 variance of an intercept when the rows of a
    cluster share one effect (``Omega`` the blocks of ones), with N x N matrices."""
    n = int(m.sum())
    cluster = np.repeat(np.arange(m.shape[0]), m)
    maker = np.eye(n) - np.ones((n, n)) / n
    q = np.column_stack([maker @ (cluster == g) / np.sqrt(1 - m[g] / n)
                         for g in range(m.shape[0])])
    omega = (cluster[:, None] == cluster[None, :]).astype(float)
    c = q.T @ omega @ q
    return np.trace(c) ** 2 / np.trace(c @ c)


def _oracle(y, pred, cluster, level=0.95):
    """The interval written out: counts by loops, F1's terms, CR3, the logit scale."""
    g = int(cluster.max()) + 1
    tp, fp, fn, rows = np.zeros(g), np.zeros(g), np.zeros(g), np.zeros(g)
    for c, truth, guess in zip(cluster, y, pred):
        rows[c] += 1
        if truth == 1 and guess == 1:
            tp[c] += 1
        elif truth == 0 and guess == 1:
            fp[c] += 1
        elif truth == 1 and guess == 0:
            fn[c] += 1
    x, d = 2 * tp, 2 * tp + fp + fn
    f1 = x.sum() / d.sum()
    t = (x - f1 * d) / d.sum()
    h = rows / rows.sum()
    v3 = (g - 1) / g * sum((t[c] / (1 - h[c])) ** 2 for c in range(g))
    q = stats.t.ppf(0.5 + level / 2, _df_oracle(rows.astype(int)))
    half = q * np.sqrt(v3) / (f1 * (1 - f1))
    centre = np.log(f1 / (1 - f1))
    return f1, np.sqrt(v3), special.expit(centre - half), special.expit(centre + half)


def _interval(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fewer than 30 clusters warn
        return db.interval(*args, **kwargs)


def test_the_method_is_a_public_name_auto_may_take():
    from dartboard._kernels._clustered_analytic import AUTO_METHODS, JACKKNIFE_LOGIT

    assert JACKKNIFE_LOGIT == "jackknife-logit-clustered"
    assert JACKKNIFE_LOGIT in CLUSTERED_ANALYTIC_METHODS
    assert JACKKNIFE_LOGIT in AUTO_METHODS


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_jackknife_logit_is_cr3_on_the_logit_scale_written_out(seed):
    sizes = np.random.default_rng(seed).integers(1, 60, 14)
    cluster, y, pred = _data(seed, sizes)
    f1, se, low, high = _oracle(y, pred, cluster)
    iv = _interval("f1", y, pred, clusters=cluster, method="jackknife-logit-clustered")
    assert iv.estimate == pytest.approx(f1, rel=1e-12)
    assert iv.standard_error == pytest.approx(se, rel=1e-6)
    assert (iv.low, iv.high) == pytest.approx((low, high), rel=1e-6)
    assert iv.method == "jackknife-logit-clustered (14 clusters)"


def test_cr3_is_wider_than_cr2_by_the_largest_clusters_leverage():
    # one cluster of most rows: CR3 divides its term by 1 - h where CR2 takes the root
    sizes = np.array([400, 5, 8, 3, 12, 6, 9, 4, 7, 10, 5, 6])
    cluster, y, pred = _data(4, sizes)
    cr2 = _interval("f1", y, pred, clusters=cluster, method="delta-clustered")
    cr3 = _interval("f1", y, pred, clusters=cluster, method="jackknife-logit-clustered")
    assert cr3.standard_error > 1.2 * cr2.standard_error


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_auto_takes_it_for_f1_where_the_sizes_are_unequal(seed):
    sizes = _lognormal(seed)
    cluster, y, pred = _data(seed, sizes)
    rows = np.bincount(cluster).astype(float)
    # the rule: the cluster-effect df below UNEQUAL_DF_SHARE of I - 1
    assert small_sample_df(rows, working="cluster") < UNEQUAL_DF_SHARE * (sizes.shape[0] - 1)
    auto = db.interval("f1", y, pred, clusters=cluster)
    asked = db.interval("f1", y, pred, clusters=cluster, method="jackknife-logit-clustered")
    assert auto.method == "jackknife-logit-clustered (30 clusters)"
    assert (auto.low, auto.high) == (asked.low, asked.high)
    # the other F-scores too, but not a metric outside [0, 1] (MCC: the delta method)
    assert db.interval("fbeta_score", y, pred, clusters=cluster, beta=2).method \
        .startswith("jackknife-logit-clustered")
    assert db.interval("matthews_corrcoef", y, pred, clusters=cluster).method \
        .startswith("delta-clustered")
    # accuracy keeps wilson-clustered
    assert db.interval("accuracy", y, pred, clusters=cluster).method \
        .startswith("wilson-clustered")


def test_auto_keeps_the_delta_method_with_clusters_of_equal_size():
    cluster, y, pred = _data(5, np.full(30, 20))
    assert db.interval("f1", y, pred, clusters=cluster).method == \
        "delta-clustered (30 clusters)"


def test_a_metric_outside_zero_one_refuses_it():
    cluster, y, pred = _data(6, _lognormal(6))
    with pytest.raises(InputError, match="not a cluster-robust interval"):
        db.interval("matthews_corrcoef", y, pred, clusters=cluster,
                    method="jackknife-logit-clustered")
    with pytest.raises(InputError, match="not a cluster-robust interval"):
        db.interval("accuracy", y, pred, clusters=cluster, method="jackknife-logit-clustered")


def test_evaluate_takes_the_same_interval():
    cluster, y, pred = _data(7, _lognormal(7))
    one = db.interval("f1", y, pred, clusters=cluster)
    ev = db.evaluate(y, pred, metrics=["f1"], clusters=cluster)
    row = ev.overall.loc["f1"]
    assert row["method"] == one.method == "jackknife-logit-clustered (30 clusters)"
    assert (row["estimate"], row["low"], row["high"]) == (one.estimate, one.low, one.high)
