"""
Ranking a grid search with DART
===============================

A grid search keeps the configuration with the best mean cross-validated score.
But two configurations with nearly the same mean can behave very differently from
fold to fold, and the one that swings more is the riskier choice: its score on
the next data set is less predictable. DART (Definitely-Agnostic Ranked
Trade-off) ranks configurations by

.. math::

   \\mathrm{DART} = \\frac{1 + \\log_2 A}{e^{p D}},

where :math:`A` is the mean fold accuracy, :math:`D` the standard deviation of
the fold accuracies and :math:`p \\geq 0` the *precision*: how much stability is
worth to you. At :math:`p = 0` DART ranks by the mean alone, as the grid search
does; as :math:`p` grows, steadier configurations move up.

This example ranks a grid of decision trees with :func:`dartboard.dart_rank`
(with intervals and the probability that each configuration is truly best) and
shows with :func:`dartboard.dart_sweep` at which precisions the winner changes.
"""

# %%
# A grid search
# -------------
# Eighteen decision trees on scikit-learn's breast-cancer data, 10-fold
# stratified cross-validation. ``cv_results_`` holds every fold's score, which
# is what DART needs (scikit-learn's ``std_test_score`` uses ``ddof=0``; DART
# recomputes it from the folds with ``ddof=1``).

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

import dartboard
from dartboard.plots import plot_dart_sweep, plot_fold_scores

X, y = load_breast_cancer(return_X_y=True)
grid = {"max_depth": [1, 2, 3, 4, 6, None], "min_samples_leaf": [1, 5, 20]}
cv = StratifiedKFold(n_splits=10, shuffle=True, random_state=0)
search = GridSearchCV(DecisionTreeClassifier(random_state=0), grid, cv=cv).fit(X, y)

# %%
# The ranking at one precision
# ----------------------------
# :func:`dartboard.dart_rank` returns one row per configuration, best first.
# ``rank_by_mean`` is the grid search's ranking, for contrast. ``mean_low`` and
# ``mean_high`` bound the mean accuracy, ``dart_low`` and ``dart_high`` the DART
# score (from a bootstrap over folds), and ``p_best`` is the share of bootstrap
# replicates in which the configuration ranks first. 1,000 replicates are enough
# here (the default is 2,000).

ranking = dartboard.dart_rank(search.cv_results_, precision=2, n_resamples=1000,
                              random_state=0)
columns = ["configuration", "mean", "std", "dart", "rank", "rank_by_mean",
           "dart_low", "dart_high", "p_best"]
ranking[columns].head(8).round(3)

# %%
# Read ``p_best`` before trusting the top row: here the first three
# configurations share almost all of the probability of being best. Their
# intervals overlap almost entirely, so the data do not single out one winner;
# any of the three is a defensible choice, and the simplest (the shallowest tree)
# is a good tie-breaker. A configuration with ``p_best`` near 0 is one you can
# drop with confidence.
#
# Fold scores
# -----------
# The means and the spread behind the table: each bar is the mean fold accuracy
# plus and minus one standard deviation.

fig, ax = plt.subplots(figsize=(7, 6), layout="constrained")
plot_fold_scores(ranking, ax=ax)
plt.show()

# %%
# Where does the winner change?
# -----------------------------
# :func:`dartboard.dart_sweep` ranks at every precision of a grid (0 to 20 by
# default) and solves exactly for the precisions where the winner changes. Up
# to the first crossing the best mean wins; beyond it, a steadier configuration
# with a slightly lower mean does. If your choice of precision lies far from a
# crossing, the choice of the winner does not hinge on it.

sweep = dartboard.dart_sweep(search.cv_results_)
sweep.winners

# %%
# Each line is one configuration's DART score against the precision; the shaded
# ranges show who wins where, and the dots mark the crossings.

fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
plot_dart_sweep(sweep, ax=ax)
plt.show()

# %%
# Using the winner
# ----------------
# To make a search keep the DART winner rather than the best mean, pass
# ``refit=dartboard.dart_refit(p)`` to ``GridSearchCV``; the function it returns
# picks the index from ``cv_results_``, as it does here.

best = dartboard.dart_refit(2)(search.cv_results_)
print(search.cv_results_["params"][best])
