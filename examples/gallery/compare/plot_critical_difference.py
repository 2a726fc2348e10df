"""
Comparing several models over many data sets
============================================

Is one learning algorithm better than others *in general*, not just on one data
set? Demšar (2006) recommends ranking the algorithms on each of N data sets,
averaging the ranks, testing "all are equivalent" with Friedman's test, and
drawing a critical-difference diagram: two algorithms whose average ranks differ
by less than the critical difference are not told apart by these data sets.

:func:`dartboard.rank_models` does all of this from a table of scores (rows are
data sets, columns are models); :func:`dartboard.plots.plot_critical_difference`
draws the diagram.
"""

# %%
# A small benchmark
# -----------------
# Five classifiers, twenty data sets: three that ship with scikit-learn and seventeen
# generated ones of different difficulty. Each cell is a 5-fold cross-validated
# accuracy. (A real benchmark would use more data sets; twenty keep this example
# fast and already show the method.)

import matplotlib.pyplot as plt
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_iris, load_wine, make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import dartboard
from dartboard.plots import plot_critical_difference

datasets = {
    "breast cancer": load_breast_cancer(return_X_y=True),
    "iris": load_iris(return_X_y=True),
    "wine": load_wine(return_X_y=True),
}
for seed in range(17):
    datasets[f"generated {seed}"] = make_classification(
        n_samples=150, n_features=12, n_informative=3 + seed % 4,
        class_sep=0.6 + 0.05 * seed, flip_y=0.03, random_state=seed,
    )

models = {
    "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
    "k-NN": make_pipeline(StandardScaler(), KNeighborsClassifier()),
    "naive Bayes": GaussianNB(),
    "tree": DecisionTreeClassifier(max_depth=4, random_state=0),
    "forest": RandomForestClassifier(n_estimators=30, random_state=0),
}

scores = pd.DataFrame(
    {name: [cross_val_score(model, X, y, cv=5).mean() for X, y in datasets.values()]
     for name, model in models.items()},
    index=list(datasets),
)
scores.round(3)

# %%
# Ranks and tests
# ---------------
# In each row the best model gets rank 1. The summary lists the average ranks,
# best first. Friedman's test (and Iman and Davenport's less conservative F)
# asks whether the ranks differ more than chance would make them. The column
# ``significantly_worse`` marks the models that are worse than the best one by a
# procedure that stays valid although "the best" was chosen by looking at these
# same results.

ranks = dartboard.rank_models(scores)
print(f"Friedman chi2 p = {ranks.pvalue:.2g}, Iman-Davenport F p = {ranks.f_pvalue:.2g}, "
      f"critical difference = {ranks.critical_difference:.2f}")
ranks.summary

# %%
# The critical-difference diagram
# -------------------------------
# The axis is the average rank (1 is best). Models joined by a thick bar are
# within the critical difference of each other: these data sets do not separate
# them. Here Friedman's test rejects "all five are equivalent"; the forest ranks
# first, the tree and the logistic regression are significantly worse than it,
# and k-NN and naive Bayes are not separated from it. "Not separated" is not
# "equal": with twenty data sets the critical difference is more than one rank
# wide, and more data sets would narrow it.

fig, ax = plt.subplots(figsize=(6.5, 3.3), layout="constrained")
plot_critical_difference(ranks, ax=ax)
plt.show()
