"""The smaller things of the first-day trial (issue 38, item 11), each checked: the
gaps in ``print(ev)``, a proportion's own denominator as ``n``, the permutation
floor said, errors that speak of what was passed, and a license setuptools reads
without a deprecation."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import confusion_matrix

import dartboard
import dartboard.metrics as dm

ROOT = Path(__file__).resolve().parents[1]


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    return y, pred, rng.random(n), rng.choice(["a", "b", "c"], n)


def test_print_shows_the_largest_gaps_and_where_the_rest_are():
    y, pred, _, g = _data()
    ev = dartboard.evaluate(y, pred, groups=g, random_state=0,
                            metrics=["accuracy", "recall", "f1"])
    text = repr(ev)
    assert "largest gap between groups (higher - lower):" in text
    gaps = ev.difference()
    for metric in ("accuracy", "recall"):
        line = next(line for line in text.splitlines()[text.splitlines().index(
            "largest gap between groups (higher - lower):"):] if line.split()[:1] == [metric])
        higher, lower = gaps.loc[metric, "groups"].split(" vs ")
        assert f"{higher} > {lower}" in line
        assert f"{gaps.loc[metric, 'estimate']:.4f}" in line
    assert ".difference() and .ratio()" in text


def test_print_without_groups_shows_no_gaps():
    y, pred, _, _ = _data()
    assert "gap" not in repr(dartboard.evaluate(y, pred, random_state=0))


def test_n_is_a_proportions_own_denominator():
    y, pred, _, g = _data()
    ev = dartboard.evaluate(y, pred, groups=g, random_state=0)
    tn, fp, fn, tp = confusion_matrix(y, pred).ravel()  # scikit-learn's counts
    expected = {"accuracy": len(y), "recall": tp + fn, "precision": tp + fp,
                "specificity": tn + fp, "false_positive_rate": tn + fp,
                "false_negative_rate": tp + fn, "selection_rate": len(y),
                "f1": len(y), "matthews_corrcoef": len(y)}  # not proportions: the rows
    n = ev.overall["n"]
    assert {k: int(n[k]) for k in expected} == expected
    by = ev.by_group.reset_index()
    for group in "abc":
        tn, fp, fn, tp = confusion_matrix(y[g == group], pred[g == group]).ravel()
        rows = by[by["group"] == group].set_index("metric")["n"]
        assert int(rows["recall"]) == tp + fn and int(rows["precision"]) == tp + fp
        assert int(rows["accuracy"]) == (g == group).sum()


def test_n_of_a_streamed_proportion_is_the_same_denominator(tmp_path):
    from dartboard.scale import evaluate_parquet

    y, pred, _, _ = _data()
    pd.DataFrame({"y": y, "p": pred}).to_parquet(tmp_path / "rows.parquet")
    streamed = evaluate_parquet(tmp_path, y_true="y", y_pred="p", random_state=0)
    in_memory = dartboard.evaluate(y, pred, random_state=0)
    assert streamed.overall["n"].to_dict() == in_memory.overall["n"].to_dict()
    assert int(streamed.overall.loc["recall", "n"]) == int(y.sum())


def test_a_p_value_at_the_permutation_floor_says_so():
    y, pred, _, _ = _data()
    res = dartboard.compare_models("accuracy", y, pred, y, n_resamples=999, random_state=0)
    assert res.pvalue == pytest.approx(1 / 1000) and res.pvalue_floor == pytest.approx(1 / 1000)
    said = "p <= 1/1000, the smallest a permutation test of 999 resamples can give"
    assert said in repr(res) and said.replace("<", "&lt;") in res._repr_html_()
    test = dartboard.permutation_test(np.arange(40.0) + 5, np.arange(40.0), n_resamples=99,
                                      random_state=0)
    assert not test.exact and "p <= 1/100, the smallest" in repr(test)
    # above the floor, or exact: no such words
    close = dartboard.compare_models("accuracy", y, pred, np.where(np.arange(len(y)) < 3,
                                                                   1 - pred, pred),
                                     n_resamples=999, random_state=0)
    assert close.pvalue_floor is None and "smallest" not in repr(close)
    exact = dartboard.permutation_test([0.81, 0.79, 0.84, 0.80, 0.83],
                                       [0.78, 0.77, 0.80, 0.79, 0.80])
    assert exact.exact and exact.pvalue_floor is None and "smallest" not in repr(exact)


def test_string_labels_without_pos_label_are_told_what_was_passed():
    y, pred, _, _ = _data()
    ys, ps = np.array(["cat", "dog"])[y], np.array(["cat", "dog"])[pred]
    for call in (lambda: dartboard.interval("f1", ys, ps), lambda: dm.f1_score(ys, ps)):
        with pytest.raises(ValueError) as err:
            call()
        message = str(err.value)
        assert "pos_label are numbers" not in message
        assert message.startswith("pos_label=1 is not a valid label. It should be one of "
                                  "['cat', 'dog']; pos_label (1 unless given) names the "
                                  "positive class")
        assert "pos_label='dog'" in message
    # scikit-learn refuses the same call (its words begin the same way)
    from sklearn.metrics import f1_score

    with pytest.raises(ValueError, match="pos_label=1 is not a valid label"):
        f1_score(ys, ps)


@pytest.mark.parametrize("make", [lambda s: np.column_stack([1 - s, s]),
                                  lambda s: pd.DataFrame({"p0": 1 - s, "p1": s})])
def test_a_probability_matrix_as_y_score_points_to_y_proba(make):
    y, _, s, _ = _data()
    with pytest.raises(ValueError, match=r"y_score must be 1-D; got an array of shape "
                                         r"\(300, 2\) .*pass y_proba="):
        dartboard.evaluate(y, y_score=make(s))
    # what the hint says works, and gives the same AUC as the positive column
    by_proba = dartboard.evaluate(y, y_proba=make(s), metrics=["roc_auc"], random_state=0)
    by_score = dartboard.evaluate(y, y_score=s, metrics=["roc_auc"], random_state=0)
    assert by_proba.overall.loc["roc_auc", "estimate"] == pytest.approx(
        by_score.overall.loc["roc_auc", "estimate"], abs=1e-15)


def test_license_is_an_spdx_expression():
    # setuptools >= 77 reads an SPDX string; the TOML table it deprecates printed its
    # warning twice on every `pip install -e .`
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "BSD-3-Clause"
    requires = project["build-system"]["requires"]
    assert any(r.replace(" ", "").startswith("setuptools>=") and
               tuple(int(x) for x in r.split(">=")[1].split(".")[:1]) >= (77,)
               for r in requires)
    assert not any("License ::" in c for c in project["project"].get("classifiers", []))


def test_the_command_line_says_the_permutation_floor(tmp_path):
    import json

    from typer.testing import CliRunner

    from dartboard.cli import app

    y, pred, _, _ = _data()
    pd.DataFrame({"y": y, "a": pred, "b": y}).to_csv(tmp_path / "two.csv", index=False)
    args = ["compare", str(tmp_path / "two.csv"), "--y-true", "y", "--a", "a", "--b", "b",
            "--n-resamples", "999"]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    assert "p <= 1/1000 is the smallest p-value 999 permutations can give" in out.output
    payload = json.loads(CliRunner().invoke(app, [*args, "--json"]).output)
    assert payload["pvalue"] == payload["pvalue_floor"] == pytest.approx(1 / 1000)


def test_weighted_rows_keep_n_as_the_rows():
    # a weighted proportion's denominator counts weight, not rows: n stays the rows
    y, pred, _, _ = _data()
    ev = dartboard.evaluate(y, pred, sample_weight=np.arange(len(y)) % 3 + 1, random_state=0,
                            metrics=["accuracy", "recall"])
    assert ev.overall["n"].tolist() == [len(y), len(y)]
