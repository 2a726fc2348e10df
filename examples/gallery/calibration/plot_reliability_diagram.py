"""
Can I trust the predicted probabilities?
========================================

A classifier is *calibrated* when, among the rows it gives a probability of 0.8,
about 80% are positive. Good ranking (a high ROC AUC) does not imply it: naive
Bayes, for instance, ranks well but pushes its probabilities towards 0 and 1.
When a probability is used as a probability (a risk shown to a doctor, an
expected cost, a threshold chosen on a price), calibration matters.

This example draws reliability diagrams with an interval for every bin, gives
the expected calibration error (ECE) with its interval, and tests "the
probabilities are calibrated" with :func:`dartboard.calibration_test`, for naive
Bayes before and after isotonic recalibration.
"""

# %%
# Two models
# ----------
# Generated data with many redundant features, which naive Bayes (it assumes
# the features are independent) double-counts: its probabilities come out too
# extreme. scikit-learn's ``CalibratedClassifierCV`` learns a monotone map that
# corrects them.

import matplotlib.pyplot as plt
import pandas as pd
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

import dartboard
from dartboard.metrics import brier_decomposition, calibration_error, roc_auc_score
from dartboard.plots import plot_reliability_diagram

X, y = make_classification(n_samples=8000, n_features=20, n_informative=2,
                           n_redundant=10, random_state=42)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=42)

models = {
    "naive Bayes": GaussianNB(),
    "naive Bayes + isotonic": CalibratedClassifierCV(GaussianNB(), cv=3, method="isotonic"),
}
proba = {name: m.fit(X_train, y_train).predict_proba(X_test)[:, 1] for name, m in models.items()}

# %%
# Reliability diagrams with per-bin intervals
# -------------------------------------------
# :func:`dartboard.plots.plot_reliability_diagram` bins the probabilities (15
# equal-width bins), and plots in each bin the observed share of positives
# against the mean predicted probability. A calibrated model lies on the
# diagonal. Each point carries the Wilson interval of its share: a bin with few
# rows has a long bar, and a point off the diagonal whose bar still crosses it
# is noise, not evidence of miscalibration. The histogram below shows how many
# predictions fall in each bin; the title gives the ECE with its interval.

fig = plt.figure(figsize=(10, 5.6), layout="constrained")
left, right = fig.subfigures(1, 2)
plot_reliability_diagram(y_test, proba["naive Bayes"], fig=left, name="naive Bayes")
plot_reliability_diagram(y_test, proba["naive Bayes + isotonic"], fig=right,
                         name="naive Bayes + isotonic")
plt.show()

# %%
# Naive Bayes is too sure of itself. Almost all its probabilities lie near 0 or
# 1 (the histogram), yet about 12% of the rows in its top bin are negative and
# about 7% of those in its bottom bin are positive: both points are off the
# diagonal by far more than their short bars. The bins in between hold few rows,
# and their long bars say so. After recalibration the points follow the
# diagonal within their intervals.
#
# The calibration test
# --------------------
# :func:`dartboard.calibration_test` asks whether the observed ECE is larger than
# calibrated probabilities would give on this many rows in these bins (even
# perfect probabilities show an ECE above 0 on a finite test set; ``null_mean``
# is that floor). It draws labels from the predicted probabilities themselves
# ("consistency resampling"); 2,000 draws are plenty for p-values of this size
# (the default is 9,999).
#
# The test and the interval answer different questions. The p-value says
# whether *any* miscalibration is detectable; the interval of the ECE (from
# :func:`dartboard.interval`) says how large it can be. The Brier score's
# decomposition (:func:`dartboard.metrics.brier_decomposition`) separates the
# calibration part (reliability, lower is better) from the ranking part
# (resolution, higher is better): recalibration moves the first and leaves the
# second, and the AUC, almost untouched.

rows = {}
for name, p in proba.items():
    test = dartboard.calibration_test(y_test, p, n_resamples=2000, random_state=0)
    ece = dartboard.interval(calibration_error, y_test, p, random_state=0)
    brier = brier_decomposition(y_test, p)
    rows[name] = {
        "ECE": ece.estimate, "ECE low": ece.low, "ECE high": ece.high,
        "ECE if calibrated": test.details["null_mean"], "p-value": test.pvalue,
        "reliability": brier.reliability, "resolution": brier.resolution,
        "ROC AUC": roc_auc_score(y_test, p),
    }
pd.DataFrame(rows).T.round(4)

# %%
# What to conclude: naive Bayes' probabilities are off by about 0.1 on average
# (ECE), far beyond what chance gives, and should not be used as
# probabilities. After recalibration the ECE is about 0.03, with an interval
# whose upper end is about 0.04; the test may still call a deviation of that
# size detectable on 2,000 rows. Whether an error of at most 0.04 matters is a
# question about the application, which the interval lets you answer.
