"""
Evaluate a classifier overall and by group
==========================================

A single accuracy number hides two things: how sure we are of it, and whether it
holds for every part of the population. :func:`dartboard.evaluate` answers both at
once. It gives every metric of the task with a 95% confidence interval, the same
table for each group, the largest gap between groups with an interval of its own,
and the usual fairness summaries (demographic parity, equalized odds, equal
opportunity).

Here a classifier is trained on generated data with three regions. In region
``"C"`` some features are measured with much more noise, so the model is worse
there. We check that the evaluation finds this gap, and that it does not report
gaps it cannot support.
"""

# %%
# Data and model
# --------------
# 4,000 rows, three regions of unequal size. The noise added to region C's
# features stands in for a cheaper sensor or a sloppier data-entry process.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

import dartboard
from dartboard.plots import plot_evaluation, plot_group_gaps

X, y = make_classification(
    n_samples=4000, n_features=10, n_informative=5, class_sep=0.8, random_state=0
)
rng = np.random.default_rng(0)
region = rng.choice(["A", "B", "C"], size=len(y), p=[0.5, 0.3, 0.2])
X[region == "C", :5] += rng.normal(scale=1.5, size=((region == "C").sum(), 5))

X_train, X_test, y_train, y_test, _, region_test = train_test_split(
    X, y, region, test_size=0.5, random_state=0
)
model = LogisticRegression().fit(X_train, y_train)
proba = model.predict_proba(X_test)

# %%
# Every metric with its interval
# ------------------------------
# Given ``y_proba``, :func:`dartboard.evaluate` takes the labels as the most
# probable class and computes the count metrics from them (accuracy, recall...)
# and the ranking and probability metrics from the scores (ROC AUC, log loss,
# calibration error). Each interval method is chosen per metric and sample
# size, by the coverage it keeps: Wilson for proportions, DeLong for the AUC,
# the BCa bootstrap or a t interval for the others (the ``method`` column says
# which). What the
# evaluation had to assume (the task, the positive class, where the labels come
# from) is printed under the table, so nothing that changes the meaning of a
# number is decided silently.

ev = dartboard.evaluate(y_test, y_proba=proba, groups=region_test, random_state=0)
ev

# %%
# ``ev.overall`` is the same table as a DataFrame. An interval of
# [0.80, 0.84] for accuracy says that on a new test set drawn the same way, the
# accuracy we would measure is most plausibly in that range: two models whose
# intervals overlap this much are not told apart by this test set (to compare two
# models on the same rows, use a paired test: see the next example).

ev.overall

# %%
# The same metrics per group
# --------------------------
# ``ev.by_group`` has one row per (group, metric). The smaller the group, the wider
# its intervals: region C has about 400 test rows, region A about 1,000.

ev.by_group.loc[(slice(None), ["accuracy", "recall", "roc_auc"]), :]

# %%
# The largest gap between groups
# ------------------------------
# ``ev.difference()`` (a method of :class:`dartboard.Evaluation`) gives, per
# metric, the largest gap between two groups (the highest group minus the lowest), which pair it is, and
# which group is better. With three groups the pair was picked by looking at the
# data, so a naive interval for "A minus C" would find gaps in data where the
# groups are equal. The interval here is that of the *true* largest gap, and
# accounts for that choice: a lower end of 0 means the data do not show a gap.

gaps = ev.difference()
gaps[["estimate", "low", "high", "groups", "better"]]

# %%
# The fairness summaries follow fairlearn's definitions (and equal fairlearn's
# numbers), each with an interval. Demographic parity compares how often each
# group is predicted positive; equalized odds takes the worse of the
# true-positive-rate and false-positive-rate gaps.

ev.fairness()[["estimate", "low", "high", "groups"]]

# %%
# Drawing it
# ----------
# :func:`dartboard.plots.plot_evaluation` draws each metric with its interval,
# overall and per group; :func:`dartboard.plots.plot_group_gaps` draws the
# largest gaps. The accuracy, AUC and log loss gaps stay clear of 0: region C is
# measurably worse. A gap whose bar reaches 0 (the selection rate, for instance)
# is one this test set cannot distinguish from no gap at all, however large the
# point estimate looks.

fig, axes = plt.subplots(1, 2, figsize=(11, 5.5), layout="constrained")
plot_evaluation(ev, ax=axes[0], metrics=["accuracy", "recall", "specificity", "roc_auc"])
plot_group_gaps(gaps, ax=axes[1])
plt.show()
