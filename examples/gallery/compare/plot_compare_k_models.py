"""
Several models on one test set: which differences are real?
===========================================================

Comparing five models pair by pair means ten tests. Even if all five were
equally accurate, the chance that at least one of ten tests at the 5% level
comes out "significant" is far above 5%. :func:`dartboard.compare_k_models`
tests every pair on the same test set and controls the *family-wise* error:
the probability of declaring any difference that is not real stays at most 5%,
whichever pairs you look at afterwards.

The default method, step-down max-T, draws one joint permutation null for all
pairs at once (the models' predictions are exchanged row by row), so it uses
the correlation between the pairs and is less conservative than Holm's
adjustment of ten separate tests.
"""

# %%
# Five classifiers, one test set
# ------------------------------

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier

import dartboard

X, y = make_classification(n_samples=4000, n_features=20, n_informative=6, class_sep=0.8,
                           flip_y=0.05, random_state=1)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)
models = {
    "logistic": LogisticRegression(),
    "naive Bayes": GaussianNB(),
    "k-NN": KNeighborsClassifier(n_neighbors=15),
    "forest": RandomForestClassifier(n_estimators=50, random_state=0),
    "boosting": HistGradientBoostingClassifier(max_iter=50, random_state=0),
}
predictions = {name: m.fit(X_train, y_train).predict(X_test) for name, m in models.items()}

# %%
# Every pair, adjusted
# --------------------
# ``pvalue`` is each pair's own permutation p-value, valid for a pair named
# before looking at the results; ``pvalue_adjusted`` holds for all ten pairs at
# once. ``significant`` uses the adjusted p-value at ``alpha=0.05``. 2,000
# permutations are enough for p-values of this size (the default is 5,000).

comparison = dartboard.compare_k_models("accuracy", y_test, predictions, n_resamples=2000,
                                        random_state=0)
comparison.pairwise.round(4)

# %%
# The two linear models (logistic regression and naive Bayes) are clearly less
# accurate than the three non-linear ones, and boosting is more accurate than
# k-NN: these differences survive the adjustment and can be reported. Whether
# boosting beats the forest (raw p-value about 0.06, adjusted about 0.15), or
# the forest beats k-NN, this test set does not say. The adjustment raises the
# p-values of the close pairs most: exactly the pairs a naive analysis would
# over-claim.
#
# The picture
# -----------
# Left: each model's accuracy with its 95% Wilson interval (from
# :func:`dartboard.interval`). Intervals of separate models overlap more than a
# paired test would suggest, because the models make many of the same
# mistakes; that is why the decision comes from the paired, adjusted test, not
# from overlapping bars. Right: the adjusted p-value of every pair.

names = list(predictions)
intervals = {name: dartboard.interval("accuracy", y_test, pred) for name, pred in predictions.items()}
adjusted = pd.DataFrame(np.nan, index=names, columns=names)
for row in comparison.pairwise.itertuples():
    adjusted.loc[row.model_a, row.model_b] = adjusted.loc[row.model_b, row.model_a] = row.pvalue_adjusted

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
for i, ci in enumerate(intervals.values()):
    left.errorbar(ci.estimate, i, xerr=[[ci.estimate - ci.low], [ci.high - ci.estimate]],
                  fmt="o", capsize=4, color="tab:blue")
left.set(yticks=range(len(names)), yticklabels=names, xlabel="accuracy (95% interval)")
image = right.imshow(adjusted.to_numpy(), cmap="viridis_r", vmin=0, vmax=0.2)
right.set(xticks=range(len(names)), xticklabels=names, yticks=range(len(names)), yticklabels=names,
          title="family-wise adjusted p-value")
right.tick_params(axis="x", labelrotation=30)
for i in range(len(names)):
    for j in range(len(names)):
        if i != j:
            right.text(j, i, f"{adjusted.iloc[i, j]:.2g}", ha="center", va="center",
                       color="black" if adjusted.iloc[i, j] < 0.1 else "white", fontsize=8)
fig.colorbar(image, ax=right, label="adjusted p-value (capped at 0.2)")
plt.show()
