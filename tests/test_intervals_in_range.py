"""Every interval lies inside its metric's range, gap intervals included.

A property test that walks the registry: for every scalar metric with a declared
range (``MetricSpec.bounds``) and random small data -- few rows, ties, one class, all
predictions right or all wrong, one to five groups, rows in clusters -- every method
of :func:`dartboard.interval` that applies, the rows of ``evaluate(...).overall`` and
``.by_group``, and the gaps of ``difference()``, ``ratio()``, ``pairwise()`` and
``fairness()`` lie inside the range the metric's definition gives them:

* a metric with range [a, b]: its interval in [a, b];
* a difference of two values of it in [-(b - a), b - a], and the largest gap
  (max - min, the largest |group - overall|) in [0, b - a];
* a ratio min / max of non-negative values in [0, 1].

The default suite runs a few examples per metric; ``pytest -m slow`` runs many more.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import special, stats

import dartboard
from dartboard._kernels._methods import METHODS
from dartboard.metrics._registry import resolve_metric, specs


def _label(spec):
    if not spec.needs:
        return spec.name
    args = ", ".join(f"{k}={v!r}" for k, v in spec.needs.items())
    return f"{spec.name}({args})"


BOUNDED = [s for s in specs(scalar=True) if s.bounds is not None]
#: binary metrics an evaluation can be asked for by name (keywords from ``needs``)
_EVAL_SPECS = [s for s in BOUNDED if s.classification and s.family is not None]
_EVAL_LABELS = [_label(s) for s in _EVAL_SPECS]
_TOL = 1e-12


@st.composite
def _data(draw, *, max_groups=5):
    """Small binary data with ties and boundary proportions, groups and clusters."""
    n = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    prevalence = draw(st.sampled_from([0.0, 0.05, 0.5, 0.95, 1.0]))
    y = (rng.random(n) < prevalence).astype(int)
    if n >= 2 and draw(st.booleans()):
        y[:2] = [0, 1]  # both classes (else one class, where allowed)
    right = draw(st.sampled_from([0.0, 0.5, 0.9, 1.0]))
    pred = np.where(rng.random(n) < right, y, 1 - y)
    separation = draw(st.sampled_from([0.0, 0.5, 1.0]))
    levels = draw(st.sampled_from([2, 3, 5, 20]))  # few levels: ties
    score = np.clip(separation * y + (1 - separation) * rng.random(n)
                    + rng.normal(0, 0.15, n), 0, 1)
    score = np.round(score * (levels - 1)) / (levels - 1)
    score = np.clip(score, 0.0, 1.0)
    g_count = draw(st.integers(1, max_groups))
    groups = rng.integers(0, g_count, n)
    clusters = None
    if draw(st.booleans()):
        clusters = rng.integers(0, draw(st.integers(1, 8)), n)
    return {"y": y, "pred": pred, "score": score, "groups": groups, "clusters": clusters,
            "seed": seed}


def _regression_data(rng, n):
    y = np.round(rng.gamma(2.0, 2.0, n), 1) + 0.1
    return y, np.round(y * np.exp(rng.normal(0, 0.5, n)), 1) + 0.1


def _inside(low, high, lo, hi, what):
    for v in (low, high):
        if v is not None and np.isfinite(v):
            assert lo - _TOL <= v <= hi + _TOL, f"{what}: [{low}, {high}] leaves [{lo}, {hi}]"


def _check_interval(spec, d):
    kw = dict(spec.needs)
    if spec.classification:
        other = d["pred"] if spec.takes_labels else d["score"]
        y = d["y"]
    else:
        y, other = _regression_data(np.random.default_rng(d["seed"]), d["y"].shape[0])
    for method in METHODS:
        for clusters in (None, d["clusters"]):
            if clusters is None and method.endswith("-clustered"):
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    iv = dartboard.interval(spec.name, y, other, method=method,
                                            n_resamples=99, random_state=0,
                                            clusters=clusters, **kw)
            except (ValueError, TypeError):
                continue  # the method does not apply, or the metric is undefined here
            _inside(iv.low, iv.high, *spec.bounds, f"{spec.name} method={method} "
                    f"clusters={clusters is not None} -> {iv.method}")


@pytest.mark.parametrize("spec", BOUNDED, ids=[s.name for s in BOUNDED])
@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(d=_data())
def test_interval_inside_the_range(spec, d):
    _check_interval(spec, d)


@pytest.mark.slow
@pytest.mark.parametrize("spec", BOUNDED, ids=[s.name for s in BOUNDED])
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(d=_data())
def test_interval_inside_the_range_long(spec, d):
    _check_interval(spec, d)


def _range_of(label):
    spec = resolve_metric(label.split("(")[0]).spec
    return None if spec is None else spec.bounds


def _check_rows(rows, what):
    """The rows of ``.overall`` or ``.by_group`` (read from the result they print)."""
    for row in rows:
        bounds = _range_of(row.metric)
        if bounds is not None:
            _inside(row.low, row.high, *bounds, f"{what} {row.metric} ({row.method})")


def _check_gaps(ev, what):
    for method in ("between_groups", "to_overall"):
        for label, row in ev.difference(method).iterrows():
            bounds = _range_of(label)
            if bounds is None:
                continue
            width = bounds[1] - bounds[0]
            low_end = 0.0 if "selection-aware" in row["method"] else -width
            _inside(row["low"], row["high"], low_end, width,
                    f"{what} difference({method}) {label} ({row['method']})")
        for label, row in ev.ratio(method).iterrows():
            bounds = _range_of(label)
            if bounds is not None and bounds[0] >= 0:
                _inside(row["low"], row["high"], 0.0, 1.0,
                        f"{what} ratio({method}) {label} ({row['method']})")
        fair = ev.fairness(method) if "__tpr" in ev._gaps.planned else None
        if fair is not None:
            for label, row in fair.iterrows():
                lo = 0.0 if label.endswith("ratio") or "selection-aware" in row["method"] \
                    else -1.0
                _inside(row["low"], row["high"], lo, 1.0,
                        f"{what} fairness({method}) {label} ({row['method']})")
    pairs = ev.pairwise()
    for label, row in pairs.iterrows():
        bounds = _range_of(label[0] if isinstance(label, tuple) else label)
        if bounds is not None:
            width = bounds[1] - bounds[0]
            _inside(row["low"], row["high"], -width, width, f"{what} pairwise {label}")


def _check_evaluation(d, metrics):
    kw = {"groups": d["groups"], "n_resamples": 99, "random_state": 0}
    if d["clusters"] is not None:
        kw["clusters"] = d["clusters"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ev = dartboard.evaluate(d["y"], d["pred"], y_score=d["score"], metrics=metrics,
                                    **kw)
        except ValueError:  # a data set the evaluation refuses (one class for ROC AUC...)
            return
        _check_rows(ev.result.metrics, "overall")
        if ev.result.groups is not None:
            _check_rows(ev.result.groups, "by_group")
            # a design effect of exactly 0 (all weight in one cluster) breaks the
            # tables' effective n: its own defect, mended apart from this one
            assume(all(r.design_effect != 0 for r in ev.result.groups))
            _check_gaps(ev, f"clusters={d['clusters'] is not None}")


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(d=_data())
def test_evaluation_rows_and_gaps_inside_the_range(d):
    _check_evaluation(d, None)


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(d=_data(), pick=st.lists(st.sampled_from(_EVAL_LABELS), min_size=1, max_size=4,
                                unique=True))
def test_evaluation_of_any_bounded_metric_inside_the_range(d, pick):
    _check_evaluation(d, pick)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(d=_data(), pick=st.lists(st.sampled_from(_EVAL_LABELS), min_size=1, max_size=6,
                                unique=True))
def test_evaluation_inside_the_range_long(d, pick):
    _check_evaluation(d, pick)


def test_the_walk_covers_the_ranged_metrics():
    names = {s.name for s in BOUNDED}
    assert {"accuracy_score", "roc_auc_score", "average_precision_score",
            "matthews_corrcoef", "calibration_error", "r2_score"} <= names
    assert all(math.isfinite(s.bounds[0]) or math.isfinite(s.bounds[1]) for s in BOUNDED)


# ------------------------------------------------------------------ the constructions

def test_cv_interval_on_the_logit_scale_matches_a_hand_computation():
    # the case: fold AUCs near 1, whose plain t interval passed 1
    folds = np.array([0.985, 1.0, 0.995, 1.0, 0.995])
    plain = dartboard.cv_interval(folds)
    assert plain.high > 1  # what the range keeps out
    m, se = folds.mean(), folds.std(ddof=1) / np.sqrt(5)
    q = stats.t.ppf(0.975, 4)
    centre, step = special.logit(m), q * se / (m * (1 - m))
    for iv in (dartboard.cv_interval(folds, metric="roc_auc"),
               dartboard.cv_interval(folds, metric=dartboard.metrics.roc_auc_score),
               dartboard.cv_interval(folds, bounds=(0, 1))):
        assert iv.method == "t, logit scale"
        assert iv.estimate == pytest.approx(m, abs=1e-15)
        assert iv.standard_error == pytest.approx(plain.standard_error, rel=1e-12)
        assert iv.low == pytest.approx(special.expit(centre - step), rel=1e-12)
        assert iv.high == pytest.approx(special.expit(centre + step), rel=1e-12)
        assert 0 < iv.low < iv.high < 1


def test_cv_interval_half_open_ranges_on_the_log_scale():
    losses = np.array([0.02, 0.001, 0.06, 0.003])
    m, se = losses.mean(), losses.std(ddof=1) / 2
    q = stats.t.ppf(0.975, 3)
    iv = dartboard.cv_interval(losses, metric="log_loss")
    assert iv.method == "t, log scale"
    assert (iv.low, iv.high) == pytest.approx((m * np.exp(-q * se / m), m * np.exp(q * se / m)))
    assert dartboard.cv_interval(losses).low < 0 < iv.low
    r2 = np.array([0.99, 0.97, 0.995, 0.98])
    m, se = r2.mean(), r2.std(ddof=1) / 2
    iv = dartboard.cv_interval(r2, metric="r2", n_train=300, n_test=100)
    se = r2.std(ddof=1) * np.sqrt(1 / 4 + 100 / 300)
    assert iv.method == "nadeau-bengio, log scale"
    assert (iv.low, iv.high) == pytest.approx(
        (1 - (1 - m) * np.exp(q * se / (1 - m)), 1 - (1 - m) * np.exp(-q * se / (1 - m))))
    assert iv.high < 1


def test_cv_interval_without_a_range_is_unchanged():
    folds = [0.81, 0.84, 0.79, 0.83, 0.80]
    iv = dartboard.cv_interval(folds)
    m, se = np.mean(folds), np.std(folds, ddof=1) / np.sqrt(5)
    half = stats.t.ppf(0.975, 4) * se
    assert (iv.method, iv.low, iv.high) == ("t", pytest.approx(m - half), pytest.approx(m + half))
    # in the middle of the range the logit scale changes little
    bounded = dartboard.cv_interval(folds, metric="accuracy")
    assert bounded.low == pytest.approx(iv.low, abs=2e-3)
    assert bounded.high == pytest.approx(iv.high, abs=2e-3)


@pytest.mark.parametrize(("kw", "match"), [
    ({"metric": "roc_auc", "bounds": (0, 1)}, "give metric .* or bounds, not both"),
    ({"metric": lambda y, p: 0.0}, "has no range in dartboard's registry; give bounds"),
    ({"bounds": (1, 0)}, "bounds must be \\(low, high\\) with low < high"),
    ({"bounds": "ab"}, "bounds must be"),
    ({"bounds": (0, 1, 2)}, "bounds must be"),
    ({"metric": "accuracy"}, "fold_scores must lie in the range of accuracy_score, \\[0, 1\\]"),
])
def test_cv_interval_refuses_a_bad_range(kw, match):
    with pytest.raises(ValueError, match=match):
        dartboard.cv_interval([0.5, 0.9, 1.2], **kw)


def test_cv_interval_names_the_negated_loss():
    with pytest.raises(ValueError, match="'neg_' scorers negate a loss"):
        dartboard.cv_interval([-0.3, -0.2, -0.25], metric="log_loss")


def test_a_clipped_interval_says_so():
    # the t interval of a mean loss on two rows reaches below 0
    y, p = [0, 1, 0], [0.4, 0.01, 0.1]
    iv = dartboard.interval("log_loss", y, p, method="t")
    terms = -np.log([0.6, 0.01, 0.9])
    half = stats.t.ppf(0.975, 2) * terms.std(ddof=1) / np.sqrt(3)
    assert terms.mean() - half < 0
    assert iv.low == 0.0
    assert iv.high == pytest.approx(terms.mean() + half)
    assert iv.method == "t, clipped to [0, inf)"
    # an interval inside its range keeps its plain name
    assert dartboard.interval("accuracy", [0, 1, 1, 0], [0, 1, 0, 0]).method == "wilson"


def test_the_gap_helpers_cut_at_the_range():
    from dartboard.evaluation._gaps import _capped, _folded

    assert _capped(0.0, 1.16, 1.0, "max-T", signed=False) == \
        (0.0, 1.0, "max-T, high capped at 1 (the range's width)")
    assert _capped(-2.3, 0.4, 2.0, "max-T", signed=True) == \
        (-2.0, 0.4, "max-T, cut at 2 (the range's width)")
    assert _capped(0.1, 0.9, 1.0, "max-T", signed=False) == (0.1, 0.9, "max-T")
    assert _capped(0.1, 9.0, np.inf, "max-T", signed=False) == (0.1, 9.0, "max-T")
    # the image of [0.8, 1.25] under r -> min(r, 1/r) is [0.8, 1]; of [0.7, 1.6], [0.625, 1]
    assert _folded(0.8, 1.25, "p") == (0.8, 1.0, "p, folded at 1: min / max")
    assert _folded(0.7, 1.6, "p")[:2] == (0.625, 1.0)
    assert _folded(1.25, 2.0, "p")[:2] == (0.5, 0.8)


def test_a_two_group_ratio_is_folded_at_one():
    # selection rates 0.50 and 0.49 (100 rows each): which group is higher is unknown
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    pred = np.r_[np.ones(50), np.zeros(50), np.ones(49), np.zeros(51)].astype(int)
    groups = np.repeat([0, 1], 100)
    ev = dartboard.evaluate(y, pred, groups=groups, n_resamples=2000, random_state=1)
    row = ev.fairness().loc["demographic_parity_ratio"]
    assert row["estimate"] == pytest.approx(0.98)
    reps = ev._gaps.replicates("__selection")
    lo, hi = np.quantile(reps[:, 1] / reps[:, 0], [0.025, 0.975])
    assert hi > 1  # the unfolded interval passes 1
    assert (row["low"], row["high"]) == pytest.approx((min(lo, 1 / hi), 1.0))
    assert row["method"].endswith("folded at 1: min / max")
    # MCC can be negative: its ratio is not min / max of non-negative values, no fold
    assert "folded" not in ev.ratio().loc["matthews_corrcoef", "method"]


def test_the_largest_gap_is_capped_at_the_range():
    # five small groups of recall: the selection-aware high end passes 1
    rng = np.random.default_rng(3)
    n = 60
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.6, y, 1 - y)
    groups = rng.integers(0, 5, n)
    ev = dartboard.evaluate(y, pred, groups=groups, metrics=["recall"], n_resamples=500,
                            random_state=0)
    row = ev.difference().loc["recall"]
    assert 0 <= row["low"] <= row["estimate"] <= row["high"] <= 1
    assert row["method"].startswith("max-T, selection-aware (10 pairs)")
