"""
How stable are a model's predictions?
=====================================

Train the same model on a slightly different sample of the same data and some
predictions flip. For a point where they do, the label the deployed model gives
is partly an accident of which rows happened to be in the training set. A
stability audit measures this: :func:`dartboard.stability_audit` trains the
model on bootstrap samples of the training data and reports, per test point and
on average, how much the models agree, with the uncertainty split into the part
the data cannot resolve (aleatoric) and the part more data could (the models'
disagreement).

This example audits a logistic regression and a fully grown decision tree on
scikit-learn's breast-cancer data, overall and for two groups of tumours.
"""

# %%
# Two models, thirty bootstrap copies each
# ----------------------------------------
# Thirty models per audit are enough to see the difference here (the default is
# 50; more give smoother per-point numbers).

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import dartboard
from dartboard.plots import plot_stability

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, random_state=0)
size = np.where(X_test["mean radius"] > 14, "large", "small")

models = {
    "logistic regression": make_pipeline(StandardScaler(), LogisticRegression()),
    "decision tree": DecisionTreeClassifier(random_state=0),
}
audits = {
    name: dartboard.stability_audit(model, X_train, y_train, X_test, y_test, n_estimators=30,
                                    groups=size, random_state=0)
    for name, model in models.items()
}

# %%
# The summary
# -----------
# * ``label_stability``: per point, ``|#models saying 1 - #models saying 0| / m``
#   (1: all agree; 0: an even split), averaged over points.
# * ``jitter``: the share of points on which two models drawn at random disagree.
# * ``std``: the spread of the predicted probability across models.
# * ``aleatoric``, ``mutual_information`` and ``total``: entropies in bits;
#   aleatoric is the uncertainty each model expresses itself, mutual
#   information the part due to the models' disagreement, total their sum.
# * ``accuracy``: of the ensemble's mean prediction, for reference.

columns = ["label_stability", "jitter", "std", "aleatoric", "mutual_information",
           "total", "accuracy"]
pd.DataFrame({name: audit.summary for name, audit in audits.items()}).T[columns].round(3)

# %%
# Two models drawn from the logistic regression's bootstrap disagree on about 3%
# of the test points; two trees disagree on about 10%. A single tree is
# therefore a noticeably less reproducible model, even before asking whether it
# is less accurate. Note also that a fully grown tree is always sure of itself
# (its leaves are pure, so its aleatoric entropy is 0): all its uncertainty is
# disagreement between trees, which one tree alone would never show.
#
# By group
# --------
# Large tumours are the harder cases: both models are less stable on them. The
# ``difference`` column is each group's value minus the reference group's (the
# largest group, here ``small``).

by_group = pd.concat({name: audit.by_group for name, audit in audits.items()}, names=["model"])
by_group = by_group[by_group["metric"].isin(["label_stability", "jitter", "accuracy"])]
by_group.reset_index(level=0).pivot_table(index=["model", "group"], columns="metric",
                                          values="value").round(3)

# %%
# The distributions
# -----------------
# :func:`dartboard.plots.plot_stability` shows the per-point label stability
# (left; most points at 1, the unstable ones to the left) and the per-point
# entropies (right). The points at low stability are the ones whose label you
# should not trust without more data or a more stable model.

fig, axes = plt.subplots(2, 2, figsize=(10, 7), layout="constrained")
for row, (name, audit) in zip(axes, audits.items()):
    plot_stability(audit, ax=row)
    row[0].set_title(f"{name}: {row[0].get_title()}")
plt.show()

# %%
# The least stable points
# -----------------------
# ``per_point`` has one row per test point. The points where the trees split
# most evenly are where a deployed tree's answer is closest to a coin flip.

audits["decision tree"].per_point.sort_values("label_stability").head(8).round(3)
