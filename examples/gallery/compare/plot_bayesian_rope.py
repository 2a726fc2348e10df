"""
Is the difference large enough to matter? A Bayesian ROPE decision
==================================================================

A p-value answers "is there any difference at all?". With enough data, a
difference of 0.001 in accuracy becomes "significant", and with little data a
large one does not. The question a practitioner usually has is different: is
one model better by an amount I care about, are the two *practically
equivalent*, or can the data not tell yet?

Benavoli et al. (2017, JMLR) answer it with a region of practical equivalence
(ROPE): a difference within ``+-rope`` counts as no difference. The Bayesian
tests give three posterior probabilities that sum to 1: A better by more than
the ROPE, the two equivalent, B better by more than the ROPE.

* :func:`dartboard.bayesian_correlated_ttest` compares two models on the folds
  of (repeated) cross-validation on one data set, with the Nadeau-Bengio
  correction for the overlap of the training sets.
* :func:`dartboard.bayesian_signed_rank_test` compares two models over several
  data sets.
"""

# %%
# Two models on one data set
# --------------------------
# A logistic regression and a support vector machine on scikit-learn's
# breast-cancer data, with 5 repetitions of 10-fold cross-validation on the
# same folds for both. We decide in advance that a difference of accuracy below
# 0.01 does not matter.

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import dartboard

X, y = load_breast_cancer(return_X_y=True)
cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=5, random_state=0)
logistic = make_pipeline(StandardScaler(), LogisticRegression())
svm = make_pipeline(StandardScaler(), SVC())
scores_a = cross_val_score(logistic, X, y, cv=cv)
scores_b = cross_val_score(svm, X, y, cv=cv)
print(f"mean accuracy: logistic {scores_a.mean():.4f}, SVM {scores_b.mean():.4f}")

# %%
# The correlated t-test
# ---------------------
# ``runs=5`` tells the test that the 50 scores are 5 repetitions of 10-fold
# cross-validation, so that the correlation between folds is ``1 / 10``.

bayes = dartboard.bayesian_correlated_ttest(scores_a, scores_b, rope=0.01, runs=5)
bayes

# %%
# With a probability of about 0.85 the two models are within 0.01 of each
# other; the logistic regression is better by more than 0.01 with probability
# about 0.12 and the SVM with about 0.03. ``decision()`` returns a verdict only
# when one of the three reaches 0.95; here it is ``"undecided"``, leaning
# towards equivalence: more repetitions or more data would settle it.

print(bayes.decision())

# %%
# The frequentist counterpart, the Nadeau-Bengio corrected t-test
# (:func:`dartboard.corrected_ttest`), gives a large p-value. That only says
# "no difference detected"; unlike the ROPE posterior, it cannot say that the
# models are equivalent.

n = len(y)
dartboard.corrected_ttest(scores_a, scores_b, n_train=0.9 * n, n_test=0.1 * n)

# %%
# The posterior of the difference is a Student t distribution
# (``details`` holds its location, scale and degrees of freedom). The three
# probabilities are its areas left of the ROPE, inside it and right of it.

d = bayes.details
posterior = stats.t(df=d["df"], loc=d["location"], scale=d["scale"])
grid = np.linspace(d["location"] - 5 * d["scale"], d["location"] + 5 * d["scale"], 400)
fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
ax.plot(grid, posterior.pdf(grid), color="black")
for lo, hi, colour, label in [
    (grid[0], -0.01, "tab:orange", f"SVM better: {bayes.p_b_better:.2f}"),
    (-0.01, 0.01, "0.7", f"equivalent: {bayes.p_equivalent:.2f}"),
    (0.01, grid[-1], "tab:blue", f"logistic better: {bayes.p_a_better:.2f}"),
]:
    part = grid[(grid >= lo) & (grid <= hi)]
    ax.fill_between(part, posterior.pdf(part), color=colour, alpha=0.6, label=label)
ax.set(xlabel="accuracy difference, logistic - SVM", ylabel="posterior density")
ax.legend(loc="upper left")
plt.show()

# %%
# Over several data sets
# ----------------------
# To ask whether one algorithm is better *in general*, compare the mean
# cross-validated scores on several data sets with the Bayesian signed-rank
# test. Here: a logistic regression against a random forest on ten generated
# data sets of different shapes, with a ROPE of 0.01 again. 5-fold
# cross-validation per data set keeps the example fast.

rows = {}
for seed in range(10):
    X_d, y_d = make_classification(n_samples=200, n_features=10, n_informative=2 + seed % 5,
                                   class_sep=0.8, flip_y=0.03, random_state=seed)
    rows[f"data set {seed}"] = {
        "logistic": cross_val_score(logistic, X_d, y_d, cv=5).mean(),
        "forest": cross_val_score(RandomForestClassifier(n_estimators=30, random_state=0),
                                  X_d, y_d, cv=5).mean(),
    }
table = pd.DataFrame(rows).T
signed_rank = dartboard.bayesian_signed_rank_test(table["forest"], table["logistic"], rope=0.01,
                                                  random_state=0)
signed_rank

# %%
# The forest wins on seven of the ten data sets by more than the ROPE; the test
# turns this into the probability that it is the better algorithm on data sets
# like these, beside the probabilities of equivalence and of the opposite. A
# bar per data set shows where the evidence comes from.

difference = (table["forest"] - table["logistic"]).sort_values()
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
ax.barh(difference.index, difference, color=np.where(difference > 0, "tab:green", "tab:red"))
ax.axvspan(-0.01, 0.01, color="0.85", label="ROPE", zorder=0)
ax.set(xlabel="accuracy difference, forest - logistic",
       title=f"P(forest better) = {signed_rank.p_a_better:.2f}, "
             f"P(equivalent) = {signed_rank.p_equivalent:.2f}, "
             f"P(logistic better) = {signed_rank.p_b_better:.2f}")
ax.legend()
plt.show()
