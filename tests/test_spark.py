"""A Spark DataFrame evaluated where it is gives the in-memory numbers.

A real local Spark session (``local[2]``) and a real local Spark Connect server. The
oracle is :func:`dartboard.evaluate` on the same rows in memory (itself checked
against scikit-learn, statsmodels and the rest elsewhere): rows, intervals, group
rows and gaps equal to 1e-9 for the same seed, under 4 and 13 partitions.

Spark needs pyspark and a Java runtime; ``.ci/run`` installs both, and in CI these
tests fail rather than skip when either is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from _same_rows import COLUMNS, same_rows

import dartboard
from dartboard.exceptions import InputError

_SRC = Path(__file__).resolve().parents[1] / "src"


def _need_spark() -> None:
    reason = None
    try:
        import pyspark  # noqa: F401
    except ImportError:
        reason = 'pyspark is not installed (pip install ".[spark]")'
    if reason is None and shutil.which("java") is None:
        reason = "no Java runtime on the PATH"
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the Spark tests must run in CI: {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def spark():
    _need_spark()
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (SparkSession.builder.master("local[2]").appName("dartboard-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.driver.memory", "1g").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _binary(n: int = 900, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({"y": y, "s": np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1),
                         "g": rng.choice(["a", "b", "c"], n), "c": rng.integers(0, 30, n),
                         "w": rng.integers(1, 4, n).astype(np.float64)})


def _spark_frame(spark, df: pd.DataFrame, partitions: int):
    return spark.createDataFrame(pa.Table.from_pandas(df, preserve_index=False)) \
        .repartition(partitions)


@pytest.mark.parametrize("partitions", [4, 13])
def test_binary_scores_with_groups_clusters_and_weights(spark, partitions):
    df = _binary()
    options = dict(y_true="y", y_score="s", groups="g", clusters="c", sample_weight="w",
                   metrics=["accuracy", "recall", "roc_auc", "average_precision", "log_loss"],
                   n_resamples=300, random_state=3)
    expected = dartboard.evaluate(df, **options)
    ev = dartboard.evaluate(_spark_frame(spark, df, partitions), **options)
    same_rows(ev, expected)
    assert ev.result.streamed.source == "spark"
    assert ev.result.streamed.n_rows == len(df)
    got, want = ev.difference(), expected.difference()
    np.testing.assert_allclose(got[COLUMNS].to_numpy(float), want[COLUMNS].to_numpy(float),
                               atol=1e-9, equal_nan=True)
    np.testing.assert_allclose(ev.overall["design_effect"].to_numpy(float),
                               expected.overall["design_effect"].to_numpy(float), atol=1e-9)


def test_a_second_merge_stage_gives_the_same_numbers(spark):
    # 13 partitions, at most 3 partial states on the driver: the partitions' states
    # are merged in 3 Spark tasks first (the path of clusters with many partitions);
    # an input error in one partition passes through that stage with its class
    from dartboard.scale import evaluate_spark

    df = _binary(600, seed=4)
    options = dict(y_true="y", y_score="s", groups="g", clusters="c",
                   metrics=["accuracy", "roc_auc", "log_loss"], n_resamples=200,
                   random_state=5)
    ev = evaluate_spark(_spark_frame(spark, df, 13), max_partial_states=3, **options)
    same_rows(ev, dartboard.evaluate(df, **options))
    assert ev.result.streamed.n_files == 13
    df.loc[11, "s"] = np.nan
    with pytest.raises(ValueError, match="a Spark partition: y_score column 's'"):
        evaluate_spark(_spark_frame(spark, df, 13), max_partial_states=3, **options)


@pytest.mark.parametrize("partitions", [4, 13])
def test_multiclass_probabilities(spark, partitions):
    rng = np.random.default_rng(1)
    p = rng.dirichlet([2, 2, 2], 600)
    y = np.array([rng.choice(3, p=row) for row in p])
    df = pd.DataFrame({"y": y, "p0": p[:, 0], "p1": p[:, 1], "p2": p[:, 2]})
    options = dict(y_true="y", y_proba=["p0", "p1", "p2"], metrics=["accuracy", "log_loss"],
                   random_state=0)
    same_rows(dartboard.evaluate(_spark_frame(spark, df, partitions), **options),
              dartboard.evaluate(df, **options))


@pytest.mark.parametrize("partitions", [4, 13])
def test_regression_with_weights(spark, partitions):
    rng = np.random.default_rng(2)
    y = rng.normal(size=400)
    df = pd.DataFrame({"y": y, "yhat": y + rng.normal(scale=0.4, size=400),
                       "w": rng.uniform(0.5, 2, 400)})
    options = dict(y_true="y", y_pred="yhat", sample_weight="w", task="regression",
                   metrics=["mean_absolute_error", "mean_squared_error", "r2"],
                   n_resamples=300, random_state=0)
    same_rows(dartboard.evaluate(_spark_frame(spark, df, partitions), **options),
              dartboard.evaluate(df, **options))


def test_a_fixed_threshold_gives_the_in_memory_labels(spark):
    df = _binary(500, seed=6)
    df["s"] = 3.0 + 4.0 * df["s"]  # not probabilities: no usual cut without threshold=
    options = dict(y_true="y", y_score="s", groups="g", threshold=4.5,
                   metrics=["accuracy", "recall", "roc_auc"], n_resamples=200,
                   random_state=2)
    same_rows(dartboard.evaluate(_spark_frame(spark, df, 4), **options),
              dartboard.evaluate(df, **options))


def test_a_threshold_criterion_gives_the_in_memory_operating_point(spark):
    # the operating point and the bands read the Spark rows (distinct rows and counts,
    # repeated in value order), as the in-memory evaluation orders its rows
    df = _binary(600, seed=9)
    options = dict(y_true="y", y_score="s", sample_weight="w", clusters="c",
                   threshold_criterion="youden", curve_bands=True, metrics=["recall"],
                   n_resamples=200, random_state=3)
    ev = dartboard.evaluate(_spark_frame(spark, df, 4), **options)
    expected = dartboard.evaluate(df, **options)
    same_rows(ev, expected)
    pd.testing.assert_frame_equal(ev.operating_point, expected.operating_point)
    for band in ("roc_band", "pr_band"):
        assert getattr(ev.result, band) == getattr(expected.result, band)


def test_binned_scores_say_their_bound(spark):
    df = _binary(500)
    from dartboard.scale import evaluate_spark

    ev = evaluate_spark(_spark_frame(spark, df, 4), y_true="y", y_score="s", exact=False,
                        metrics=["roc_auc"], n_bins=1000)
    exact = dartboard.evaluate(df, y_true="y", y_score="s", metrics=["roc_auc"])
    bound = ev.error_bounds["roc_auc"]
    assert 0 < bound < 0.01
    assert abs(float(ev.overall.loc["roc_auc", "estimate"]) -
               float(exact.overall.loc["roc_auc", "estimate"])) <= bound


@pytest.mark.parametrize("partitions", [4, 13])
def test_paired_comparisons_equal_the_in_memory_ones(spark, partitions):
    # compare_models and compare_k_models of columns of one Spark DataFrame: its
    # distinct rows and their counts, repeated on the driver in value order, give the
    # p-values, intervals and null distributions of the pandas table, bit for bit
    rng = np.random.default_rng(5)
    df = _binary(700)
    df["b"] = np.clip(0.2 * df["y"] + 0.8 * rng.random(len(df)), 0, 1).round(3)
    df["s"] = df["s"].round(3)
    df["pa"] = (df["s"] > 0.5).astype(int)
    df["pb"] = (df["b"] > 0.5).astype(int)
    sdf = _spark_frame(spark, df, partitions)
    for metric, a, b, extra in [("roc_auc", "s", "b", {}),
                                ("accuracy", "pa", "pb", {"clusters": "c"}),
                                ("log_loss", "s", "b", {"sample_weight": "w"}),
                                ("roc_auc", "s", "b", {"clusters": "c",
                                                       "method": "cluster-robust"})]:
        options = dict(n_resamples=300, random_state=4, **extra)
        want = dartboard.compare_models(metric, "y", a, b, data=df, **options)
        got = dartboard.compare_models(metric, "y", a, b, data=sdf, **options)
        assert (got.pvalue, got.difference) == (want.pvalue, want.difference), metric
        assert (got.interval.low, got.interval.high) == (want.interval.low,
                                                         want.interval.high)
        np.testing.assert_array_equal(got.null_distribution, want.null_distribution)
    options = dict(n_resamples=300, random_state=9, clusters="c")
    want = dartboard.compare_k_models("roc_auc", "y", ["s", "b", "pa"], data=df, **options)
    got = dartboard.compare_k_models("roc_auc", "y", ["s", "b", "pa"], data=sdf, **options)
    pd.testing.assert_frame_equal(got.pairwise, want.pairwise)


def test_paired_comparison_names_a_missing_column(spark):
    sdf = _spark_frame(spark, _binary(100), 2)
    with pytest.raises(InputError, match=r"pred_b='nope' names no column of data"):
        dartboard.compare_models("roc_auc", "y", "s", "nope", data=sdf)


def test_the_size_rule_bins_many_distinct_scores_and_says_so(spark, monkeypatch):
    # exact="auto" (the default): above MAX_EXACT_CELLS distinct (score, label, group)
    # cells the scores are binned, and the assumptions say so with the count; the
    # limit is lowered here so that 900 rows cross it
    from dartboard.evaluation import _spark

    df = _binary(900)
    sdf = _spark_frame(spark, df, 4)
    exact = dartboard.evaluate(df, y_true="y", y_score="s", metrics=["roc_auc"])
    kept = dartboard.evaluate(sdf, y_true="y", y_score="s", metrics=["roc_auc"])
    assert kept.result.streamed.mode == "exact"
    assert not [a for a in kept.result.assumptions if a.what == "exact"]
    monkeypatch.setattr(_spark, "MAX_EXACT_CELLS", 100)
    ev = dartboard.evaluate(sdf, y_true="y", y_score="s", metrics=["roc_auc"], groups="g")
    assert ev.result.streamed.mode == "binned"
    (note,) = [a for a in ev.result.assumptions if a.what == "exact"]
    assert note.value is False
    counted = int(note.why.split("about ")[1].split(" distinct")[0].replace(",", ""))
    distinct = len(df[["s", "y", "g"]].drop_duplicates())
    assert abs(counted - distinct) <= 0.15 * distinct
    bound = ev.error_bounds["roc_auc"]
    assert abs(float(ev.overall.loc["roc_auc", "estimate"])
               - float(exact.overall.loc["roc_auc", "estimate"])) <= bound
    assert "exact" in repr(ev)
    # exact=True, and clusters, keep the exact states whatever the count
    for options in ({"exact": True}, {"clusters": "c"}):
        same = dartboard.scale.evaluate_spark(sdf, y_true="y", y_score="s",
                                              metrics=["roc_auc"], **options)
        assert same.result.streamed.mode == "exact"
    with pytest.raises(TypeError, match="exact must be True, False or 'auto'"):
        dartboard.scale.evaluate_spark(sdf, y_true="y", y_score="s", exact="yes")
    # a named metric binned scores cannot bound: the refusal says why they were binned
    with pytest.raises(ValueError, match="exact='auto': about"):
        dartboard.evaluate(sdf, y_true="y", y_score="s", metrics=["pr_auc"])


def test_errors_name_the_column_and_the_partition(spark):
    df = _binary(200)
    with pytest.raises(InputError, match=r"no column\(s\) \['score'\]"):
        dartboard.evaluate(_spark_frame(spark, df, 4), y_true="y", y_score="score")
    df.loc[7, "s"] = np.nan
    with pytest.raises(ValueError, match="a Spark partition: y_score column 's'"):
        dartboard.evaluate(_spark_frame(spark, df, 4), y_true="y", y_score="s")


def test_no_rdd_in_the_source():
    # Spark Connect has no RDD API: the source may use the DataFrame API only
    src = Path(dartboard.__file__).parent
    offenders = [str(p) for p in src.rglob("*.py") if ".rdd" in p.read_text()]
    assert offenders == []


_CONNECT_SCRIPT = textwrap.dedent("""
    import json, os, sys, warnings
    import numpy as np, pandas as pd, pyarrow as pa
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    import dartboard
    spark = SparkSession.builder.remote("local[2]").getOrCreate()
    rng = np.random.default_rng(0)
    n = 600
    y = rng.integers(0, 2, n)
    df = pd.DataFrame({"y": y, "s": np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1),
                       "g": rng.choice(["a", "b"], n), "c": rng.integers(0, 25, n)})
    sdf = spark.createDataFrame(pa.Table.from_pandas(df, preserve_index=False)).repartition(4)
    options = dict(y_true="y", y_score="s", groups="g", clusters="c",
                   metrics=["accuracy", "roc_auc"], n_resamples=200, random_state=1)
    got = dartboard.evaluate(sdf, **options)
    want = dartboard.evaluate(df, **options)
    again = dartboard.evaluate(sdf.repartition(13), **options)
    cols = ["estimate", "low", "high"]

    def largest(a, b):
        return float(np.nanmax(np.abs(a.overall[cols].to_numpy(float)
                                      - b.overall[cols].to_numpy(float))))

    # multiclass probabilities and weighted regression, 13 partitions
    p = rng.dirichlet([2, 2, 2], 400)
    multi = pd.DataFrame({"y": [int(rng.choice(3, p=row)) for row in p],
                          "p0": p[:, 0], "p1": p[:, 1], "p2": p[:, 2]})
    m_options = dict(y_true="y", y_proba=["p0", "p1", "p2"], metrics=["accuracy", "log_loss"],
                     random_state=0)
    m_spark = spark.createDataFrame(pa.Table.from_pandas(multi, preserve_index=False))
    v = rng.normal(size=300)
    reg = pd.DataFrame({"y": v, "yhat": v + rng.normal(scale=0.4, size=300),
                        "w": rng.uniform(0.5, 2, 300)})
    r_options = dict(y_true="y", y_pred="yhat", sample_weight="w", task="regression",
                     metrics=["mean_absolute_error", "r2"], n_resamples=200, random_state=0)
    r_spark = spark.createDataFrame(pa.Table.from_pandas(reg, preserve_index=False))
    m_want, r_want = (dartboard.evaluate(multi, **m_options),
                      dartboard.evaluate(reg, **r_options))
    others = [largest(again, want)]
    for parts in (4, 13):
        others += [largest(dartboard.evaluate(m_spark.repartition(parts), **m_options), m_want),
                   largest(dartboard.evaluate(r_spark.repartition(parts), **r_options), r_want)]
    pair = dict(n_resamples=200, random_state=2, clusters="c")
    got_cmp = dartboard.compare_models("roc_auc", "y", "s", "s2", data=sdf.withColumn(
        "s2", (sdf["s"] * 0.5 + 0.25)), **pair)
    df["s2"] = df["s"] * 0.5 + 0.25
    want_cmp = dartboard.compare_models("roc_auc", "y", "s", "s2", data=df, **pair)
    print(json.dumps({"connect": type(spark).__module__, "others": others,
                      "compare": [got_cmp.pvalue == want_cmp.pvalue,
                                  got_cmp.interval.low == want_cmp.interval.low],
                      "overall": float(np.abs(got.overall[cols].to_numpy(float)
                                              - want.overall[cols].to_numpy(float)).max()),
                      "by_group": float(np.abs(got.by_group[cols].to_numpy(float)
                                               - want.by_group[cols].to_numpy(float)).max()),
                      "source": got.result.streamed.source}))
    spark.stop()
""")


def test_spark_connect_gives_the_same_numbers(tmp_path):
    # a local Spark Connect server in its own process: its JVM stays out of this one's
    _need_spark()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(_SRC), *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run([sys.executable, "-c", _CONNECT_SCRIPT], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["connect"].startswith("pyspark.sql.connect")
    assert result["source"] == "spark"
    assert result["overall"] <= 1e-9 and result["by_group"] <= 1e-9
    assert result["compare"] == [True, True]
    assert max(result["others"]) <= 1e-9


def test_a_worker_without_dartboard_is_named():
    """A worker whose Python lacks dartboard fails while unpickling the partition
    function; pyspark carries the worker's ModuleNotFoundError in its own exception's
    text (classic: PythonException, Connect: the same text over gRPC). It becomes an
    ImportError that says where to install dartboard; other failures pass through."""
    from dartboard.evaluation._spark import missing_on_workers

    text = ("An exception was thrown from the Python worker. Please see the stack trace "
            "below.\nTraceback (most recent call last):\n  File \"pyspark/serializers.py\", "
            "line 193, in _read_with_length\n    return self.loads(obj)\n"
            "ModuleNotFoundError: No module named 'dartboard'")
    found = missing_on_workers(RuntimeError(text))
    assert isinstance(found, ImportError)
    assert str(found).startswith("dartboard is not installed on the Spark workers")
    assert "PYSPARK_PYTHON" in str(found)
    other = missing_on_workers(RuntimeError("No module named 'pyarrow.lib'"))
    assert str(other).startswith("'pyarrow.lib' is not installed on the Spark workers")
    assert missing_on_workers(RuntimeError("Java heap space")) is None
