"""
How large are a regression model's errors?
==========================================

An R² of 0.4 on a test set of 177 rows could be anything from mediocre to
decent: the test set is small. This example evaluates a ridge regression on
scikit-learn's diabetes data (a disease-progression score one year after
baseline) with :func:`dartboard.evaluate`: every regression metric with a
confidence interval, then the residuals and the distribution of the errors, and
finally an interval for a question of our own ("how often is the prediction
within 50 points?").
"""

# %%
# The model
# ---------

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import train_test_split

import dartboard
from dartboard.metrics import error_distribution
from dartboard.plots import (
    plot_error_distribution,
    plot_evaluation,
    plot_predicted_vs_actual,
    plot_residuals,
)

X, y = load_diabetes(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, random_state=0)
model = RidgeCV(alphas=np.logspace(-3, 3, 13)).fit(X_train, y_train)
y_pred = model.predict(X_test)

# %%
# Every metric with its interval
# ------------------------------
# Non-integer predictions beside a target with many distinct values make the
# task a regression (the evaluation says so under the table). The intervals
# come from the BCa bootstrap on 177 rows. The mean absolute error (MAE) says a
# typical prediction is off by about 45 points, somewhere between 41 and 51 for
# this population; R² says the model explains somewhere between a quarter and
# a half of the variance. The maximum error has no interval: the largest
# error of a sample is not an estimate a bootstrap can bound, and the method
# column says so.

ev = dartboard.evaluate(y_test, y_pred, random_state=0)
ev

# %%
# :func:`dartboard.plots.plot_evaluation` draws the metrics on panels by unit,
# so that an MSE of 3,000 does not squeeze the other intervals to dots.

fig, axes = plt.subplots(3, 1, figsize=(7, 6.5), layout="constrained",
                         gridspec_kw={"height_ratios": [5, 1, 4]})
plot_evaluation(ev, ax=axes)
plt.show()

# %%
# Where the errors are
# --------------------
# Predicted against actual values, and the residuals (actual - predicted)
# against the prediction. Look for structure: a curve in the residuals (a
# missing non-linearity), a funnel (errors that grow with the prediction, where
# a relative error metric would be fairer), or a few points far away (outliers
# that dominate the MSE). Here the residuals spread about evenly, from -150 to
# 150, at every prediction, without a trend: most of the error is variation the
# ten features do not explain, not a bias a more flexible model would remove.

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.5), layout="constrained")
plot_predicted_vs_actual(y_test, y_pred, ax=left, name="ridge")
plot_residuals(y_test, y_pred, ax=right, name="ridge")
plt.show()

# %%
# The distribution of the errors
# ------------------------------
# :func:`dartboard.metrics.error_distribution` keeps the sorted errors, so
# quantiles and "fraction within t" are exact. The histogram with its kernel
# density shows whether the errors are symmetric and how heavy their tails are.

errors = error_distribution(y_test, y_pred)
print(f"median error {errors.quantile(0.5):.1f}; 90% of errors lie between "
      f"{errors.quantile(0.05):.1f} and {errors.quantile(0.95):.1f}")

fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
plot_error_distribution(y_test, y_pred, ax=ax)
plt.show()

# %%
# An interval for a question of your own
# --------------------------------------
# Suppose a prediction is useful when it is within 50 points. The share of such
# predictions is a metric like any other: :func:`dartboard.interval` takes any
# callable ``f(y_true, y_pred)`` and gives its bootstrap interval.


def within_50(y_true, y_pred):
    return float(np.mean(np.abs(y_true - y_pred) <= 50))


dartboard.interval(within_50, y_test, y_pred, n_resamples=2000, random_state=0)

# %%
# About 62% of predictions are within 50 points; for the population this test
# set comes from, the share is most plausibly between about 55% and 69%.
