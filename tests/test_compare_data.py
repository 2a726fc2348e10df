"""``compare_models`` and ``compare_k_models`` with ``data=``: any source, one order.

The oracle is the arrays form on the same rows sorted by their values (itself checked
against scikit-learn, statsmodels and plain loops elsewhere): every source (pandas in
any row order, Polars, PyArrow, Parquet files, Dask) gives bit-identical p-values,
intervals and null distributions for the same seed. The Spark source is in
``tests/test_spark.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import dartboard
from dartboard.exceptions import InputError, InputTypeError


def _frame(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({
        "y": y, "a": np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1).round(2),
        "b": rng.random(n).round(2), "pa": (rng.random(n) < 0.6 + 0.2 * y).astype(int),
        "pb": rng.integers(0, 2, n), "c": rng.integers(0, 25, n),
        "w": rng.integers(1, 4, n).astype(float)})


def _sorted(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    return df.sort_values(columns, kind="stable").reset_index(drop=True)


def _same(got, want) -> None:
    assert got.pvalue == want.pvalue
    assert (got.interval.low, got.interval.high) == (want.interval.low, want.interval.high)
    np.testing.assert_array_equal(got.null_distribution, want.null_distribution)
    assert got.difference == want.difference


CASES = [
    ("roc_auc", ["y", "a", "b"], {}),
    ("accuracy", ["y", "pa", "pb", "c"], {"clusters": "c"}),
    ("log_loss", ["y", "a", "b", "w"], {"sample_weight": "w"}),
    ("f1", ["y", "pa", "pb"], {}),
]


@pytest.mark.parametrize(("metric", "columns", "extra"), CASES)
@pytest.mark.filterwarnings("ignore::dartboard.exceptions.FewClustersWarning")
def test_every_table_source_equals_the_arrays_on_the_sorted_rows(metric, columns, extra,
                                                                 tmp_path):
    import polars as pl

    df = _frame()
    a, b = ("pa", "pb") if "pa" in columns else ("a", "b")
    ordered = _sorted(df, columns)
    want = dartboard.compare_models(
        metric, ordered["y"].to_numpy(), ordered[a].to_numpy(), ordered[b].to_numpy(),
        n_resamples=400, random_state=7,
        **{k: ordered[v].to_numpy() for k, v in extra.items()})
    shuffled = df.sample(frac=1.0, random_state=11)
    half = len(df) // 2
    pq.write_table(pa.Table.from_pandas(shuffled.iloc[:half], preserve_index=False),
                   tmp_path / "p0.parquet")
    pq.write_table(pa.Table.from_pandas(shuffled.iloc[half:], preserve_index=False),
                   tmp_path / "p1.parquet")
    sources = [df, shuffled, pl.from_pandas(shuffled), pa.Table.from_pandas(df),
               str(tmp_path / "*.parquet")]
    for data in sources:
        got = dartboard.compare_models(metric, "y", a, b, data=data, n_resamples=400,
                                       random_state=7, **extra)
        _same(got, want)


def test_dask_partitions_give_the_same_comparison():
    dd = pytest.importorskip("dask.dataframe")
    df = _frame()
    want = dartboard.compare_models("roc_auc", "y", "a", "b", data=df, n_resamples=300,
                                    random_state=2)
    got = dartboard.compare_models("roc_auc", "y", "a", "b",
                                   data=dd.from_pandas(df.sample(frac=1.0, random_state=1),
                                                       npartitions=3),
                                   n_resamples=300, random_state=2)
    _same(got, want)


def test_k_models_from_a_table_equal_the_arrays_on_the_sorted_rows():
    import polars as pl

    df = _frame()
    columns = ["y", "pa", "pb", "c"]
    ordered = _sorted(df, columns)
    preds = {"first": ordered["pa"].to_numpy(), "second": ordered["pb"].to_numpy(),
             "truth": ordered["y"].to_numpy()}
    want = dartboard.compare_k_models("accuracy", ordered["y"].to_numpy(), preds,
                                      clusters=ordered["c"].to_numpy(), n_resamples=300,
                                      random_state=5)
    got = dartboard.compare_k_models(
        "accuracy", "y", {"first": "pa", "second": "pb", "truth": "y"}, clusters="c",
        data=pl.from_pandas(df.sample(frac=1.0, random_state=4)), n_resamples=300,
        random_state=5)
    pd.testing.assert_frame_equal(got.pairwise, want.pairwise)
    named = dartboard.compare_k_models("roc_auc", "y", ["a", "b"], data=df,
                                       n_resamples=200, random_state=0)
    assert list(named.pairwise[["model_a", "model_b"]].iloc[0]) == ["a", "b"]


def test_probabilities_as_lists_of_columns():
    rng = np.random.default_rng(3)
    pa_ = rng.dirichlet([2, 2, 2], 300)
    pb_ = rng.dirichlet([1, 1, 1], 300)
    y = np.array([rng.choice(3, p=row) for row in pa_])
    df = pd.DataFrame({"y": y, **{f"a{i}": pa_[:, i] for i in range(3)},
                       **{f"b{i}": pb_[:, i] for i in range(3)}})
    cols_a, cols_b = [f"a{i}" for i in range(3)], [f"b{i}" for i in range(3)]
    ordered = _sorted(df, ["y", *cols_a, *cols_b])
    want = dartboard.compare_models("log_loss", ordered["y"].to_numpy(),
                                    ordered[cols_a].to_numpy(), ordered[cols_b].to_numpy(),
                                    n_resamples=300, random_state=1)
    got = dartboard.compare_models("log_loss", "y", cols_a, cols_b, data=df,
                                   n_resamples=300, random_state=1)
    _same(got, want)


def test_data_refuses_what_is_not_a_column_name():
    df = _frame(50)
    with pytest.raises(InputError, match=r"pred_b='zz' names no column of data"):
        dartboard.compare_models("roc_auc", "y", "a", "zz", data=df)
    with pytest.raises(InputTypeError, match="with data=, y_true must name a column"):
        dartboard.compare_models("roc_auc", df["y"], "a", "b", data=df)
    with pytest.raises(InputTypeError, match="data must be a data frame"):
        dartboard.compare_models("roc_auc", "y", "a", "b", data=np.ones((50, 3)))
    with pytest.raises(InputTypeError, match="predictions must be a list of column names"):
        dartboard.compare_k_models("roc_auc", "y", np.ones((50, 2)), data=df)
    with pytest.raises(InputError, match=r"predictions\['m'\]='nope' names no column"):
        dartboard.compare_k_models("roc_auc", "y", {"m": "nope", "n": "a"}, data=df)
    with pytest.raises(InputError, match="matches no file"):
        dartboard.compare_models("roc_auc", "y", "a", "b", data="/nonexistent/*.parquet")


def test_data_is_not_touched_and_missing_values_are_refused_by_name():
    df = _frame(80)
    before = df.copy()
    dartboard.compare_models("accuracy", "y", "pa", "pb", data=df, n_resamples=50,
                             random_state=0)
    pd.testing.assert_frame_equal(df, before)
    df.loc[3, "a"] = np.nan
    with pytest.raises(ValueError, match="pred_a"):
        dartboard.compare_models("roc_auc", "y", "a", "b", data=df)
