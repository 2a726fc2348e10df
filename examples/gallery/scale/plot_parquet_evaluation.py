"""
Evaluating predictions stored in Parquet files
==============================================

Predictions of a model in production often live in files, one per day or per
partition, together more than fits in memory. :func:`dartboard.scale.evaluate_parquet`
reads such files in record batches of only the needed columns, turns each batch
into small mergeable states (confusion counts, the distinct scores, calibration
bins, per-group states), merges them, and finishes exactly as
:func:`dartboard.evaluate` does in memory. The result is the same
:class:`dartboard.Evaluation`, with the same estimates *and* the same intervals
for the same ``random_state``, however the rows are spread over files and
batches.

This example writes a week of predictions to a temporary directory, evaluates
the directory, and checks that the numbers equal the in-memory evaluation of
the same rows.
"""

# %%
# A week of predictions
# ---------------------
# Seven Parquet files of 1,000 rows each (small, to keep this example fast; the
# streamed path is meant for millions): the true label, the model's score
# and the channel each request came from.

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

import dartboard
from dartboard.plots import plot_evaluation
from dartboard.scale import evaluate_parquet

X, y = make_classification(n_samples=11000, n_features=10, n_informative=4, class_sep=0.7,
                           random_state=0)
model = LogisticRegression().fit(X[:4000], y[:4000])
rng = np.random.default_rng(0)
rows = pd.DataFrame({
    "label": y[4000:],
    "score": model.predict_proba(X[4000:])[:, 1],
    "channel": rng.choice(["web", "app", "phone"], size=len(y) - 4000, p=[0.5, 0.35, 0.15]),
})

folder = Path(tempfile.mkdtemp())
for day in range(7):
    rows.iloc[day * 1000:(day + 1) * 1000].to_parquet(folder / f"day={day}.parquet", index=False)
sorted(p.name for p in folder.iterdir())

# %%
# Evaluate the files
# ------------------
# The arguments are :func:`dartboard.evaluate`'s, with column names instead of
# arrays. ``batch_size`` bounds the memory: here 300 rows at a time, so that
# even these small files are read in several pieces. 500 bootstrap resamples
# (the default is 2,000) are enough to show that both routes give the same
# intervals.

streamed = evaluate_parquet(folder, y_true="label", y_score="score", groups="channel",
                            batch_size=300, n_resamples=500, random_state=0)
print(f"{streamed.n_rows} rows from {streamed.n_files} files")
streamed

# %%
# The same as in memory
# ---------------------
# The in-memory evaluation of the concatenated rows, with the same seed. The
# largest absolute difference over every estimate and interval end, overall and
# per group, is 0 up to rounding of float sums (in the last digits of a
# float64).

in_memory = dartboard.evaluate(rows["label"], y_score=rows["score"], groups=rows["channel"],
                               n_resamples=500, random_state=0)
numbers = ["estimate", "low", "high"]
pd.Series({
    "overall": (streamed.overall[numbers] - in_memory.overall[numbers]).abs().max().max(),
    "by group": (streamed.by_group[numbers] - in_memory.by_group[numbers]).abs().max().max(),
    "largest gaps": (streamed.difference()[numbers] - in_memory.difference()[numbers])
    .abs().max().max(),
}, name="largest absolute difference")

# %%
# Every method of the in-memory result works on the streamed one: the gaps
# between channels, the fairness summaries, the report, the plot.

fig, ax = plt.subplots(figsize=(7, 5.5), layout="constrained")
plot_evaluation(streamed, ax=ax, metrics=["accuracy", "precision", "recall", "roc_auc"])
plt.show()

# %%
# For files too large even for the map of distinct scores, ``exact=False`` bins
# the scores into a fixed number of bins: constant memory, and
# ``error_bounds`` states how far each approximate metric can be from the exact
# value.
