"""
Evaluating a Spark DataFrame where it is
========================================

Predictions scored on a Spark cluster stay there: :func:`dartboard.evaluate` takes
the Spark DataFrame and the names of its columns. Each partition becomes the same
small mergeable states every other source builds (confusion counts, the distinct
scores, calibration bins, per group), the states travel to the driver and merge, and
the numbers are those of the in-memory evaluation of the same rows, intervals
included, for the same ``random_state``, however the DataFrame is partitioned.

This example starts a local Spark session (two worker threads; a Spark Connect
session, ``SparkSession.builder.remote(...)``, works the same), evaluates a table of
predictions by region, compares two models on it, and sets the exact ROC AUC beside
Spark's own binned one.
"""

# %%
# A Spark table of predictions
# ----------------------------
# 20,000 scored rows of two models, with the region each customer is in. The
# workers run dartboard's code on their partitions, so they use this Python
# (``PYSPARK_PYTHON``; on a cluster, dartboard is installed on every node).

import os
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
from pyspark.sql import SparkSession

import dartboard

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
spark = (SparkSession.builder.master("local[2]").appName("dartboard-example")
         .config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.shuffle.partitions", "4").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")

rng = np.random.default_rng(0)
n = 20_000
region = rng.choice(["north", "south", "east", "west"], size=n, p=[0.4, 0.3, 0.2, 0.1])
label = rng.binomial(1, np.where(region == "west", 0.35, 0.25))
signal = label + rng.normal(0, np.where(region == "west", 1.6, 1.0))
rows = pd.DataFrame({
    "label": label,
    "score_v1": np.round(1 / (1 + np.exp(-(signal - 0.9))), 4),
    "score_v2": np.round(1 / (1 + np.exp(-(0.8 * signal + rng.normal(0, 0.6, n) - 0.8))), 4),
    "region": region,
})
predictions = spark.createDataFrame(pa.Table.from_pandas(rows, preserve_index=False)) \
    .repartition(8)
predictions.printSchema()

# %%
# Evaluate it where it is
# -----------------------
# The call is the in-memory one, with column names. Every default metric comes with
# its interval, per region too, and the largest gap between regions.

ev = dartboard.evaluate(predictions, y_true="label", y_score="score_v1",
                        groups="region", n_resamples=500, random_state=0)
ev.overall[["estimate", "low", "high", "method"]].round(4)

# %%
# Per region, ROC AUC:

ev.by_group.xs("roc_auc", level="metric")[["estimate", "low", "high", "n"]].round(4)

# %%
# The largest gap between regions, with an interval that accounts for picking the
# largest of six pairs:

ev.difference(metrics=["roc_auc", "accuracy"])

# %%
# The same numbers as in memory
# -----------------------------
# The in-memory evaluation of the same rows, with the same seed, gives the same
# estimates and intervals, digit for digit; so would any other partitioning.

in_memory = dartboard.evaluate(rows, y_true="label", y_score="score_v1", groups="region",
                               n_resamples=500, random_state=0)
columns = ["estimate", "low", "high"]
gap = np.abs(ev.overall[columns].to_numpy(float) - in_memory.overall[columns].to_numpy(float))
print("largest difference from the in-memory evaluation:", np.nanmax(gap))

# %%
# Is the second model better?
# ---------------------------
# :func:`dartboard.compare_models` takes the DataFrame as ``data=``. The paired test
# draws one number per row, so Spark sends the distinct rows of the named columns
# and their counts (a ``groupBy``), and the driver takes them in the order of their
# values: the p-value does not depend on the partitioning.

comparison = dartboard.compare_models("roc_auc", "label", "score_v2", "score_v1",
                                      data=predictions, random_state=0)
comparison

# %%
# Exact, where Spark's evaluator bins
# -----------------------------------
# ``BinaryClassificationEvaluator`` computes ROC AUC on 1,000 score bins by default.
# dartboard's value is the exact one (scikit-learn's on the same rows).

from pyspark.ml.evaluation import BinaryClassificationEvaluator  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

spark_auc = BinaryClassificationEvaluator(rawPredictionCol="score_v1",
                                          labelCol="label").evaluate(
    predictions.withColumn("label", predictions["label"].cast("double")))
exact = roc_auc_score(rows["label"], rows["score_v1"])
print(f"scikit-learn  {exact:.10f}")
print(f"dartboard     {ev.overall.loc['roc_auc', 'estimate']:.10f}")
print(f"Spark binned  {spark_auc:.10f}")

# %%
# The by-group figure
# -------------------

ev.plot()

spark.stop()
