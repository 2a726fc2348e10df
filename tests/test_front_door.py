"""One front door: ``dartboard.evaluate(data, y_true="col", ...)`` for every kind of
data gives the numbers of the arrays form on the same rows, for the same seed.

The oracle is the arrays form (itself checked against scikit-learn, statsmodels and
the rest elsewhere): a pandas, Polars (eager and lazy) and PyArrow table, Parquet
files and a Dask DataFrame must give its rows, intervals, group rows and gaps to
1e-9, with groups, clusters, weights and a threshold criterion.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from _same_rows import COLUMNS, same_rows

import dartboard
from dartboard.exceptions import InputError, InputTypeError

pl = pytest.importorskip("polars")



def _frame(n: int = 600, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({
        "label": y,
        "score": np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1),
        "region": rng.choice(["north", "south", "west"], n),
        "patient": rng.integers(0, 40, n),
        "w": rng.integers(1, 4, n).astype(np.float64),
    })


def _tables(df: pd.DataFrame, tmp_path) -> dict[str, object]:
    dd = pytest.importorskip("dask.dataframe")
    half = len(df) // 2
    pq.write_table(pa.Table.from_pandas(df.iloc[:half], preserve_index=False),
                   os.path.join(tmp_path, "part0.parquet"))
    pq.write_table(pa.Table.from_pandas(df.iloc[half:], preserve_index=False),
                   os.path.join(tmp_path, "part1.parquet"))
    return {"pandas": df, "polars": pl.from_pandas(df), "polars-lazy": pl.from_pandas(df).lazy(),
            "pyarrow": pa.Table.from_pandas(df, preserve_index=False),
            "parquet": str(tmp_path), "parquet-glob": os.path.join(tmp_path, "*.parquet"),
            "dask": dd.from_pandas(df, npartitions=3)}


@pytest.mark.parametrize("source", ["pandas", "polars", "polars-lazy", "pyarrow", "parquet",
                                    "parquet-glob", "dask"])
def test_every_source_gives_the_arrays_numbers(tmp_path, source):
    df = _frame()
    metrics = ["accuracy", "recall", "roc_auc", "log_loss"]
    expected = dartboard.evaluate(df["label"].to_numpy(), y_score=df["score"].to_numpy(),
                                  groups={"region": df["region"].to_numpy()},
                                  clusters=df["patient"].to_numpy(),
                                  sample_weight=df["w"].to_numpy(), metrics=metrics,
                                  n_resamples=200, random_state=7)
    data = _tables(df, tmp_path)[source]
    ev = dartboard.evaluate(data, y_true="label", y_score="score", groups="region",
                            clusters="patient", sample_weight="w", metrics=metrics,
                            n_resamples=200, random_state=7)
    same_rows(ev, expected)
    gaps, want = ev.difference(), expected.difference()
    np.testing.assert_allclose(gaps[COLUMNS].to_numpy(float), want[COLUMNS].to_numpy(float),
                               atol=1e-9, equal_nan=True)
    assert list(gaps["groups"]) == list(want["groups"])


@pytest.mark.parametrize("source", ["pandas", "polars", "pyarrow", "parquet"])
def test_multiclass_probability_columns_by_list_and_by_class(tmp_path, source):
    rng = np.random.default_rng(0)
    n = 300
    p = rng.dirichlet([2, 2, 2], n)
    y = np.array([rng.choice(3, p=row) for row in p])
    df = pd.DataFrame({"y": y, "p0": p[:, 0], "p1": p[:, 1], "p2": p[:, 2],
                       "team": rng.choice(["x", "y"], n)})
    expected = dartboard.evaluate(y, y_proba=p, groups={"team": df["team"].to_numpy()},
                                  metrics=["accuracy", "log_loss"], random_state=1)
    data = _tables(df, tmp_path)[source]
    for proba in (["p0", "p1", "p2"], {2: "p2", 0: "p0", 1: "p1"}):
        ev = dartboard.evaluate(data, y_true="y", y_proba=proba, groups="team",
                                metrics=["accuracy", "log_loss"], random_state=1)
        same_rows(ev, expected)


@pytest.mark.parametrize("source", ["pandas", "polars", "pyarrow", "parquet", "dask"])
def test_regression_with_weights(tmp_path, source):
    rng = np.random.default_rng(5)
    n = 200
    y = rng.normal(size=n)
    df = pd.DataFrame({"y": y, "yhat": y + rng.normal(scale=0.5, size=n),
                       "w": rng.uniform(0.5, 2, n), "site": rng.choice(["a", "b"], n)})
    metrics = ["mean_absolute_error", "mean_squared_error", "r2"]
    expected = dartboard.evaluate(df["y"].to_numpy(), df["yhat"].to_numpy(),
                                  sample_weight=df["w"].to_numpy(),
                                  groups={"site": df["site"].to_numpy()}, metrics=metrics,
                                  task="regression", n_resamples=200, random_state=2)
    data = _tables(df, tmp_path)[source]
    ev = dartboard.evaluate(data, y_true="y", y_pred="yhat", sample_weight="w", groups="site",
                            metrics=metrics, task="regression", n_resamples=200,
                            random_state=2)
    same_rows(ev, expected)


def _same_operating(ev, expected) -> None:
    """The operating point (threshold and its intervals) and the curve bands agree to
    1e-9."""
    got, want = ev.operating_point, expected.operating_point
    assert list(got.index) == list(want.index) and list(got["method"]) == list(want["method"])
    np.testing.assert_allclose(got[["estimate", "low", "high"]].to_numpy(float),
                               want[["estimate", "low", "high"]].to_numpy(float), atol=1e-9)
    assert ev.result.operating_point["threshold"] == pytest.approx(
        expected.result.operating_point["threshold"], abs=1e-12)
    for band in ("roc_band", "pr_band"):
        a, b = getattr(ev.result, band), getattr(expected.result, band)
        assert (a is None) == (b is None)
        if a is not None:
            for key in ("grid", "estimate", "low", "high"):
                np.testing.assert_allclose(a[key], b[key], atol=1e-9)


@pytest.mark.parametrize("source", ["pandas", "polars", "polars-lazy", "pyarrow", "parquet",
                                    "parquet-glob", "dask"])
def test_a_threshold_criterion_and_bands_on_every_source(tmp_path, source):
    # the operating point draws one number per row: every source reads the rows in the
    # order of their values, and so does the arrays form, so a table, its files and its
    # partitions give the arrays' operating point, bands, rows and gaps for one seed,
    # with groups, clusters and weights
    df = _frame(800)
    metrics = ["accuracy", "recall", "roc_auc"]
    asked = dict(threshold_criterion="min_recall", threshold_target=0.8, curve_bands=True,
                 metrics=metrics, n_resamples=200, random_state=4)
    expected = dartboard.evaluate(df["label"].to_numpy(), y_score=df["score"].to_numpy(),
                                  groups={"region": df["region"].to_numpy()},
                                  clusters=df["patient"].to_numpy(),
                                  sample_weight=df["w"].to_numpy(), **asked)
    ev = dartboard.evaluate(_tables(df, tmp_path)[source], y_true="label", y_score="score",
                            groups="region", clusters="patient", sample_weight="w", **asked)
    same_rows(ev, expected)
    gaps, want = ev.difference(), expected.difference()
    np.testing.assert_allclose(gaps[COLUMNS].to_numpy(float), want[COLUMNS].to_numpy(float),
                               atol=1e-9, equal_nan=True)
    _same_operating(ev, expected)
    assert "clustered" in " ".join(ev.operating_point["method"])


def test_the_operating_point_does_not_depend_on_the_row_order():
    # the arrays form sorts the rows by value before it draws: shuffled rows, the same
    # operating point and bands (before, the draws followed the row order)
    df = _frame(500, seed=8)
    order = np.random.default_rng(1).permutation(len(df))
    asked = dict(threshold_criterion="youden", curve_bands=True, metrics=["recall"],
                 n_resamples=200, random_state=9)
    results = [dartboard.evaluate(df["label"].to_numpy()[o], y_score=df["score"].to_numpy()[o],
                                  sample_weight=df["w"].to_numpy()[o],
                                  clusters=df["patient"].to_numpy()[o], **asked)
               for o in (np.arange(len(df)), order)]
    _same_operating(*results)


def test_streamed_sources_check_the_operating_point_by_name(tmp_path):
    data = _tables(_frame(100), tmp_path)["parquet"]
    with pytest.raises(InputError, match="threshold_criterion and curve_bands need binary "
                                         "scores: name their column as y_score"):
        dartboard.evaluate(data, y_true="label", y_pred="label",
                           threshold_criterion="youden")
    with pytest.raises(InputTypeError, match="curve_bands must be True or False"):
        dartboard.evaluate(data, y_true="label", y_score="score", curve_bands="yes")
    with pytest.raises(InputError, match="threshold_target needs threshold_criterion"):
        dartboard.evaluate(data, y_true="label", y_score="score", threshold_target=0.9)
    rng = np.random.default_rng(0)
    p = rng.dirichlet([1, 1, 1], 90)
    pq.write_table(pa.table({"y": rng.integers(0, 3, 90), "s": p[:, 0]}),
                   os.path.join(tmp_path, "multi.parquet"))
    with pytest.raises(InputError, match="y_score holds the scores of one class .a binary "
                                         "task.; a multiclass task needs y_proba"):
        dartboard.evaluate(os.path.join(tmp_path, "multi.parquet"), y_true="y",
                           y_score="s", task="multiclass", threshold_criterion="youden")


def test_several_group_columns_keep_their_names():
    df = _frame(400)
    df["sex"] = np.where(df["patient"] % 2 == 0, "f", "m")
    ev = dartboard.evaluate(df, y_true="label", y_score="score", groups=["region", "sex"],
                            metrics=["accuracy"], random_state=0)
    expected = dartboard.evaluate(df["label"], y_score=df["score"], groups=df[["region", "sex"]],
                                  metrics=["accuracy"], random_state=0)
    same_rows(ev, expected)


def test_the_table_is_left_as_it_was():
    df = _frame(300)
    df["region"] = df["region"].astype("category")
    before = df.copy(deep=True)
    dartboard.evaluate(df, y_true="label", y_score="score", groups="region", random_state=0,
                       metrics=["accuracy"])
    pd.testing.assert_frame_equal(df, before)


def test_a_missing_column_is_named_with_the_columns_there_are():
    df = _frame(50)
    with pytest.raises(InputError, match=r"y_score='scor' names no column of data; its "
                                         r"columns are 'label', 'score'"):
        dartboard.evaluate(df, y_true="label", y_score="scor")
    with pytest.raises(InputError, match=r"groups='nope' names no column"):
        dartboard.evaluate(pl.from_pandas(df), y_true="label", y_score="score", groups="nope")


def test_missing_values_in_a_column_are_refused_by_argument():
    df = pl.DataFrame({"label": [0, 1, None, 1], "score": [0.1, 0.9, 0.4, 0.8]})
    with pytest.raises(ValueError, match="y_true"):
        dartboard.evaluate(df, y_true="label", y_score="score")
    df = pl.DataFrame({"label": [0, 1, 0, 1], "score": [0.1, None, 0.4, 0.8]})
    with pytest.raises(ValueError, match="y_score"):
        dartboard.evaluate(df, y_true="label", y_score="score")


def test_arrays_where_columns_are_expected_are_refused():
    df = _frame(50)
    with pytest.raises(InputTypeError, match="y_score must name a column of data"):
        dartboard.evaluate(df, y_true="label", y_score=df["score"].to_numpy())
    with pytest.raises(InputTypeError, match="y_true is given twice"):
        dartboard.evaluate(df["label"].to_numpy(), y_true=df["label"].to_numpy(),
                           y_score=df["score"].to_numpy())
    with pytest.raises(InputTypeError, match="data must be a table"):
        dartboard.evaluate(np.zeros(3), y_true="label", y_score="score")
    with pytest.raises(InputTypeError, match="needs the true labels"):
        dartboard.evaluate(y_score=[0.1, 0.2])


def test_lists_of_string_labels_stay_the_arrays_form():
    # a list of strings is labels, not Parquet paths, unless y_true names a column
    ev = dartboard.evaluate(["a", "b", "a", "b"], ["a", "b", "b", "b"], pos_label="b",
                            metrics=["accuracy"])
    assert float(ev.overall.loc["accuracy", "estimate"]) == 0.75
    ev = dartboard.evaluate(y_true=["a", "b", "a", "b"], y_pred=["a", "b", "b", "b"],
                            pos_label="b", metrics=["accuracy"])
    assert float(ev.overall.loc["accuracy", "estimate"]) == 0.75


@pytest.mark.parametrize("source", ["pandas", "polars", "pyarrow", "parquet", "dask"])
def test_a_fixed_threshold_on_every_source(tmp_path, source):
    # labels are y_score >= threshold, streamed as in memory: the count metrics move
    # with the threshold, the assumptions no longer state a guessed one, and a score
    # equal to the threshold is positive
    df = _frame()
    df.loc[:9, "score"] = 0.3
    metrics = ["accuracy", "recall", "precision", "roc_auc"]
    options = dict(groups="region", clusters="patient", sample_weight="w", metrics=metrics,
                   n_resamples=200, random_state=4)
    expected = dartboard.evaluate(df["label"].to_numpy(), y_score=df["score"].to_numpy(),
                                  threshold=0.3, **{k: (df[v].to_numpy() if k != "groups"
                                                        else {"region": df[v].to_numpy()})
                                                    for k, v in options.items()
                                                    if k in ("groups", "clusters",
                                                             "sample_weight")},
                                  metrics=metrics, n_resamples=200, random_state=4)
    ev = dartboard.evaluate(_tables(df, tmp_path)[source], y_true="label", y_score="score",
                            threshold=0.3, **options)
    same_rows(ev, expected)
    recall = float(ev.overall.loc["recall", "estimate"])
    pred = df["score"] >= 0.3
    weights = df["w"][df["label"] == 1]
    assert recall == pytest.approx(float((pred[df["label"] == 1] * weights).sum()
                                         / weights.sum()), abs=1e-12)
    assert [a.what for a in ev.result.assumptions if a.what == "threshold"] == []
    usual = dartboard.evaluate(_tables(df, tmp_path)[source], y_true="label",
                               y_score="score", **options)
    assert [a.value for a in usual.result.assumptions if a.what == "threshold"] == [0.5]
    assert float(usual.overall.loc["recall", "estimate"]) < recall


def test_cluster_is_clusters_on_every_source(tmp_path):
    df = _frame(200)
    path = _tables(df, tmp_path)["parquet"]
    from dartboard.scale import evaluate_parquet

    new = evaluate_parquet(path, y_true="label", y_score="score", clusters="patient",
                           metrics=["accuracy"], random_state=0)
    with pytest.warns(FutureWarning, match="cluster= is now spelled clusters="):
        old = evaluate_parquet(path, y_true="label", y_score="score", cluster="patient",
                               metrics=["accuracy"], random_state=0)
    same_rows(old, new)
    with pytest.raises(InputTypeError, match="clusters is given twice"):
        evaluate_parquet(path, y_true="label", y_score="score", cluster="patient",
                         clusters="patient")


def test_a_rows_n_is_its_denominator_with_clusters_from_every_source(tmp_path):
    """Recall's ``n`` is the positives and precision's the predicted positives, with or
    without clusters, in memory and streamed, overall and per group (in memory with
    clusters it was every row)."""
    df = _frame()
    metrics = ["recall", "precision", "accuracy", "roc_auc"]
    path = os.path.join(tmp_path, "rows.parquet")
    df.to_parquet(path)
    kw = dict(y_true="label", y_score="score", groups="region", metrics=metrics,
              n_resamples=100, random_state=0, progress=False)
    plain = dartboard.evaluate(df, **kw)
    for data in (df, path):
        clustered = dartboard.evaluate(data, clusters="patient", **kw)
        for table in ("overall", "by_group"):
            np.testing.assert_array_equal(getattr(clustered, table)["n"],
                                          getattr(plain, table)["n"])
    positives = int((df["label"] == 1).sum())
    assert int(plain.overall.loc["recall", "n"]) == positives < len(df)
