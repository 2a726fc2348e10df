"""
Is model A better than model B?
===============================

Two models scored on the same test set almost never have exactly the same
accuracy. The question is whether the difference is larger than what the luck
of this particular test set could produce. Because both models saw the *same*
rows, the right tool is a paired test: it looks at the rows where the models
disagree, which is far more sensitive than comparing two separate intervals.

This example compares a logistic regression with a shallow decision tree on
scikit-learn's breast-cancer data with three tools:

* :func:`dartboard.compare_models`: any metric, a paired permutation test and a
  paired bootstrap interval of the difference;
* :func:`dartboard.mcnemar_test`: the classic test for two classifiers' labels;
* :func:`dartboard.delong_test`: two correlated ROC AUCs.
"""

# %%
# Two models, one test set
# ------------------------

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import dartboard

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=1)
logreg = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_train, y_train)
tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X_train, y_train)

labels_a, labels_b = logreg.predict(X_test), tree.predict(X_test)
scores_a, scores_b = logreg.predict_proba(X_test)[:, 1], tree.predict_proba(X_test)[:, 1]

# %%
# A paired test of accuracy
# -------------------------
# :func:`dartboard.compare_models` exchanges the two models' predictions row by
# row at random (which is what "the models are equally good" would allow) and
# counts how often the exchanged difference is at least as large as the one
# observed. That fraction is the p-value: the probability of a difference this
# large if the models were in truth equally accurate. The interval is a paired
# bootstrap interval of the difference A - B.

acc = dartboard.compare_models("accuracy", y_test, labels_a, labels_b, random_state=0)
acc

# %%
# McNemar's test reads the same thing off two numbers: how many rows only A got
# right and how many only B got right. Only those discordant rows carry
# information about which model is better; with few of them the exact binomial
# test is used.

right_a, right_b = labels_a == y_test, labels_b == y_test
print(f"only A right: {np.sum(right_a & ~right_b)}, only B right: {np.sum(~right_a & right_b)}")
dartboard.mcnemar_test(y_test, labels_a, labels_b)

# %%
# Both p-values are small and the interval of the difference lies above 0: on
# this data the logistic regression is more accurate than the depth-3 tree, by
# somewhere between the interval's two ends. A p-value above 0.05 would *not*
# mean the models are equal; it would mean this test set is too small to tell
# (see the sample-size example to plan a test set that can).
#
# Comparing AUCs
# --------------
# The AUC looks at the scores, not at the labels. :func:`dartboard.delong_test`
# estimates the variance of the difference of two AUCs measured on the same rows
# (their correlation included) and gives a z-test and an interval of the
# difference. The permutation route of :func:`dartboard.compare_models` gives a
# second opinion; it exchanges within-model ranks, so a model's scale does not
# matter.

delong = dartboard.delong_test(y_test, scores_a, scores_b)
delong

# %%

auc = dartboard.compare_models("roc_auc", y_test, scores_a, scores_b, random_state=0)
auc

# %%
# The picture
# -----------
# The left panel is the permutation null distribution of the accuracy difference
# with the observed difference: the p-value is the share of the null beyond the
# red lines. The right panel sets the two AUC differences and their intervals
# side by side: the two methods agree.

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
left.hist(acc.null_distribution, bins=30, color="0.7")
for sign in (-1, 1):
    left.axvline(sign * acc.difference, color="tab:red")
left.set(xlabel="accuracy difference A - B under the null", ylabel="resamples",
         title=f"permutation p = {acc.pvalue:.4f}")

rows = {"DeLong": (delong.estimate, delong.interval), "permutation": (auc.difference, auc.interval)}
for i, (est, ci) in enumerate(rows.values()):
    right.errorbar(est, i, xerr=[[est - ci.low], [ci.high - est]], fmt="o", capsize=4)
right.axvline(0, color="0.5", ls="--")
right.set(yticks=range(len(rows)), yticklabels=list(rows), ylim=(-0.7, 1.7),
          xlabel="ROC AUC difference A - B (95% interval)")
plt.show()
