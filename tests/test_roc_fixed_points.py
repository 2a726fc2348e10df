"""A fixed point of the ROC curve (sensitivity_at_specificity, specificity_at_sensitivity),
each added by its function, a registry line and a scores-family kernel: the family gives it an interval,
streaming, group gaps and paired comparisons.

Oracles: R's pROC ``coords(roc, x, input=..., ret=...)`` through Rscript (skipped
without R and pROC) and a brute-force curve in plain Python, with a property test
that the fast kernel agrees with it.
"""

from __future__ import annotations

import functools
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dartboard as db
from dartboard.metrics import (
    UndefinedMetricWarning,
    sensitivity_at_specificity,
    specificity_at_sensitivity,
)
from dartboard.scale import evaluate_parquet

#: metric -> (the coordinate it fixes, the one it returns), in pROC's words
FIXED = {"sensitivity_at_specificity": ("specificity", "sensitivity"),
         "specificity_at_sensitivity": ("sensitivity", "specificity")}
FUNCTIONS = {"sensitivity_at_specificity": sensitivity_at_specificity,
             "specificity_at_sensitivity": specificity_at_sensitivity}


def _brute_force(y, s, w, given_name, x):
    """The curve's points from counting at every threshold; at ``x`` the greatest
    value on a point with exactly ``x``, else the largest over the segments that
    cross ``x`` of the straight line between their ends."""
    y, s = np.asarray(y), np.asarray(s, float)
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    keep = w != 0
    y, s, w = y[keep], s[keep], w[keep]
    cuts = np.concatenate([[-np.inf], np.unique(s)])  # positive when score > cut
    points = []
    for c in cuts:
        tp = sum(wi for yi, si, wi in zip(y, s, w) if yi == 1 and si > c)
        tn = sum(wi for yi, si, wi in zip(y, s, w) if yi == 0 and si <= c)
        sens, spec = tp / w[y == 1].sum(), tn / w[y == 0].sum()
        points.append((spec, sens) if given_name == "specificity" else (sens, spec))
    hits = [b for a, b in points if a == x]
    if hits:
        return max(hits)
    crossing = [b0 + (x - a0) / (a1 - a0) * (b1 - b0)
                for (a0, b0), (a1, b1) in zip(points, points[1:])
                if min(a0, a1) < x < max(a0, a1)]
    return max(crossing)


def _data(seed, n=300):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    return y, np.round(rng.random(n) + 0.5 * y, 2)  # ties between classes


def _proc(cases, given_name, ret):
    """pROC's coords for [(y, s, targets)] in one R session."""
    lines = ["suppressMessages(library(pROC))"]
    for y, s, xs in cases:
        lines.append(
            f"r <- roc(c({','.join(map(str, y))}), c({','.join(map(repr, map(float, s)))}), "
            'direction="<", levels=c(0, 1), quiet=TRUE); '
            f"v <- coords(r, x=c({','.join(map(repr, map(float, xs)))}), "
            f'input="{given_name}", ret="{ret}", transpose=FALSE)[["{ret}"]]; '
            'cat("coords", sprintf("%.17g", v), "\\n")')
    out = subprocess.run(["Rscript", "-e", "\n".join(lines)], capture_output=True, text=True,
                         timeout=120)
    if out.returncode != 0:
        pytest.skip(f"R's pROC is not available: {out.stderr.strip()[:200]}")
    # R may print its own notes to stdout: the values are on the lines marked
    return [np.array(line.split()[1:], dtype=float) for line in out.stdout.splitlines()
            if line.startswith("coords ")]


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="R is not installed")
@pytest.mark.parametrize("name", sorted(FIXED))
def test_equals_procs_coords(name):
    given_name, ret = FIXED[name]
    rng = np.random.default_rng(7)
    cases = []
    for seed in range(12):
        n = int(rng.integers(4, 60))
        y, s = _data(seed, n)
        s = np.round(s, int(rng.integers(1, 3)))
        count = y.sum() if given_name == "sensitivity" else n - y.sum()
        # every point of the curve exactly, and points between them
        xs = np.unique(np.concatenate([np.arange(count + 1) / count, rng.random(6)]))
        cases.append((y, s, xs))
    for (y, s, xs), want in zip(cases, _proc(cases, given_name, ret)):
        got = [FUNCTIONS[name](y, s, **{given_name: x}) for x in xs]
        np.testing.assert_array_equal(got, want)  # pROC's own arithmetic


@pytest.mark.parametrize("name", sorted(FIXED))
@settings(max_examples=60, deadline=None)
@given(y=st.lists(st.integers(0, 1), min_size=2, max_size=25),
       data=st.data(), x=st.floats(0, 1), weighted=st.booleans())
def test_fast_equals_brute_force(name, y, data, x, weighted):
    y = np.array(y)
    y[:2] = [0, 1]
    s = np.array(data.draw(st.lists(st.integers(0, 6), min_size=len(y), max_size=len(y))))
    w = np.array(data.draw(st.lists(st.integers(0, 3), min_size=len(y), max_size=len(y)))) \
        if weighted else None
    given_name = FIXED[name][0]
    if w is not None and w.sum() == 0:
        with pytest.raises(ValueError, match="sample_weight sums to zero"):
            FUNCTIONS[name](y, s, sample_weight=w, **{given_name: x})
        return
    if w is not None and (w[y == 0].sum() == 0 or w[y == 1].sum() == 0):
        with pytest.warns(UndefinedMetricWarning):
            assert np.isnan(FUNCTIONS[name](y, s, sample_weight=w, **{given_name: x}))
        return
    x = data.draw(st.sampled_from([x, 0.0, 1.0, 0.5]))
    got = FUNCTIONS[name](y, s, sample_weight=w, **{given_name: x})
    assert got == pytest.approx(_brute_force(y, s, w, given_name, x), abs=1e-12)


@pytest.mark.parametrize("name", sorted(FIXED))
def test_validation(name):
    f, given_name = FUNCTIONS[name], FIXED[name][0]
    y, s = _data(0, 20)
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match=given_name):
            f(y, s, **{given_name: bad})
    with pytest.raises(TypeError, match=given_name):
        f(y, s, **{given_name: "0.9"})
    with pytest.raises(TypeError, match=given_name):
        f(y, s)
    with pytest.raises(ValueError, match="3 classes"):
        f(np.arange(20) % 3, s, **{given_name: 0.5})
    with pytest.raises(ValueError, match="pos_label=5 is not a valid label"):
        f(y, s, pos_label=5, **{given_name: 0.5})
    labels = np.array(["no", "yes"])
    assert f(labels[y], s, pos_label="yes", **{given_name: 0.7}) == f(y, s, **{given_name: 0.7})
    with pytest.warns(UndefinedMetricWarning, match="one class"):
        assert np.isnan(f(np.zeros(5, int), np.arange(5.0), **{given_name: 0.5}))


@pytest.mark.parametrize("name", sorted(FIXED))
def test_engines_without_code_of_their_own(name, tmp_path):
    """interval, evaluate (groups and gaps), evaluate_parquet and compare_models take the
    metric by name with its target, through the scores family."""
    f, given_name = FUNCTIONS[name], FIXED[name][0]
    y, s = _data(3)
    kw = {given_name: 0.8}
    iv = db.interval(name, y, s, n_resamples=500, random_state=0, **kw)
    assert iv.method == "percentile" and iv.estimate == f(y, s, **kw)
    assert 0 <= iv.low < iv.estimate < iv.high <= 1
    # the family's replicates are the metric of the rows the cells' counts repeat
    boot = db.interval(functools.partial(f, **kw), y, s, n_resamples=500, random_state=0)
    assert (boot.low, boot.high) == (iv.low, iv.high)

    g = np.random.default_rng(4).choice(["a", "b", "c"], y.shape[0])
    named = f"{name}({given_name}=0.8)"
    options = dict(metrics=[named, "roc_auc"], n_resamples=300, random_state=0)
    memory = db.evaluate(y, y_score=s, groups=g, **options)
    assert memory.overall.loc[named, "estimate"] == f(y, s, **kw)
    for group in "abc":
        assert memory.by_group.loc[(group, named), "estimate"] == \
            f(y[g == group], s[g == group], **kw)
    gaps = memory.difference()
    assert gaps.loc[named, "method"].startswith("max-T")

    frame = pd.DataFrame({"y": y, "s": s, "g": g})
    frame.iloc[:120].to_parquet(tmp_path / "a.parquet")
    frame.iloc[120:].to_parquet(tmp_path / "b.parquet")
    streamed = evaluate_parquet(tmp_path, y_true="y", y_score="s", groups="g", **options)
    pd.testing.assert_frame_equal(streamed.overall, memory.overall, rtol=1e-12)
    pd.testing.assert_frame_equal(streamed.difference(), gaps, rtol=1e-12)

    other = np.round(np.random.default_rng(5).random(y.shape[0]) + 0.2 * y, 2)
    cmp = db.compare_models(name, y, s, other, n_resamples=300, random_state=0, **kw)
    assert cmp.difference == pytest.approx(f(y, s, **kw) - f(y, other, **kw))
    assert cmp.method == "sample-swap permutation of within-model score ranks"
    # a monotone transform of one model's scores changes neither the value nor the test
    again = db.compare_models(name, y, np.exp(3 * s), other, n_resamples=300,
                              random_state=0, **kw)
    assert (again.difference, again.pvalue) == (cmp.difference, cmp.pvalue)
