"""
What does a model cost to train and to run?
===========================================

Two models of similar accuracy can differ a hundredfold in what they cost: the
time to fit, the time to predict a batch of rows, the memory they need, and
the size of the fitted model that has to be stored and shipped.
:func:`dartboard.profile_pipeline` measures all of these for one estimator or
several, with fresh clones for every timed run, medians over the runs and
their spread.

This example profiles four classifiers on generated data and puts their costs
beside their accuracy.
"""

# %%
# Four candidates
# ---------------
# 3,000 training rows and 3,000 rows to predict. Three timed runs each (the
# default is 5); peak memory is measured in one extra, untimed run, because
# tracing memory slows the code it traces.

import matplotlib.pyplot as plt
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import dartboard
from dartboard.metrics import accuracy_score

X, y = make_classification(n_samples=6000, n_features=20, n_informative=8, random_state=0)
X_train, X_test, y_train, y_test = X[:3000], X[3000:], y[:3000], y[3000:]
models = {
    "logistic": make_pipeline(StandardScaler(), LogisticRegression()),
    "k-NN": make_pipeline(StandardScaler(), KNeighborsClassifier()),
    "forest": RandomForestClassifier(n_estimators=20, random_state=0),
    "boosting": HistGradientBoostingClassifier(max_iter=30, random_state=0),
}
profile = dartboard.profile_pipeline(models, X_train, y_train, X_test, repeats=3)

# %%
# The profile
# -----------
# Times are medians in seconds with their interquartile range; ``throughput``
# is predicted rows per second; memory peaks and the model size are in bytes.
# These numbers were measured on the machine that built this page, possibly
# while it ran other work: read the ratios between models, not the absolute
# times.

profile["accuracy"] = [accuracy_score(y_test, m.fit(X_train, y_train).predict(X_test))
                       for m in models.values()]
profile[["accuracy", "fit_time", "fit_time_iqr", "predict_time", "throughput",
         "fit_peak_python", "model_size"]]

# %%
# The trade-offs
# --------------
# k-NN fits instantly (it only stores the training rows) but pays at prediction
# time, and its "model" is the training set itself. The two ensembles are the
# most accurate (about 0.95 against 0.93) and the slowest to fit; the forest's
# fitted model is several times the size of the boosting model's. The logistic
# regression is cheap on every count, the fastest to predict and by far the
# smallest to store. Whether two points of
# accuracy are worth a model hundreds of times larger and slower is a question
# for the application; whether the two points are real is one for a paired
# comparison with an interval (see the example on comparing two models).

fig, axes = plt.subplots(1, 3, figsize=(11, 3.5), layout="constrained")
for ax, column, label in zip(
    axes,
    ["fit_time", "throughput", "model_size"],
    ["fit time (s, median)", "predicted rows per second", "fitted model (bytes)"],
):
    ax.barh(profile.index, profile[column], color="tab:blue")
    ax.set(xscale="log", xlabel=label)
axes[0].errorbar(profile["fit_time"], profile.index, xerr=profile["fit_time_iqr"] / 2,
                 fmt="none", color="black", capsize=3)
plt.show()
