"""
How large a test set do I need?
===============================

A comparison of two models on a test set that is too small ends in "no
significant difference" whatever the truth, and that answer is often read,
wrongly, as "the models are equally good". Before collecting and labelling a
test set, ask how many rows are needed to detect the difference you care about.

* :func:`dartboard.mcnemar_sample_size` and :func:`dartboard.mcnemar_power`:
  McNemar's test of two classifiers' accuracies on the same rows.
* :func:`dartboard.auc_sample_size` and :func:`dartboard.auc_power`: a test of
  two ROC AUCs.

The power of a test is the probability that it detects a difference of the
given size when there is one; 80% is the usual target.
"""

# %%
# What McNemar's test needs to know
# ---------------------------------
# McNemar's test only looks at the rows where exactly one model is right. So
# besides the accuracy difference to detect, it needs the share of such
# *discordant* rows. Two similar models (a tuned model against its previous
# version) disagree rarely; two different ones often. A pilot run of both models
# on a few hundred labelled rows estimates it. The more the models disagree,
# the more rows it takes to tell a given difference from noise.

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import dartboard

differences = [0.01, 0.02, 0.03, 0.04]
discordant = [0.05, 0.10, 0.20]
pd.DataFrame(
    [[dartboard.mcnemar_sample_size(d, q) for q in discordant] for d in differences],
    index=pd.Index(differences, name="accuracy difference"),
    columns=pd.Index([f"{q:.0%} discordant" for q in discordant], name="test rows needed"),
)

# %%
# Detecting a one-point accuracy difference between models that disagree on
# 10% of rows takes about 8,000 test rows; a four-point difference, about 500.
# Power grows with the number of rows, steeply in the middle:

n = np.arange(100, 6001, 50)
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
for d in [0.02, 0.03, 0.05]:
    ax.plot(n, [dartboard.mcnemar_power(k, d, 0.10) for k in n],
            label=f"difference {d:.2f}, 10% discordant")
ax.axhline(0.8, color="0.5", ls="--")
ax.set(xlabel="test rows", ylabel="power of McNemar's test", ylim=(0, 1))
ax.legend(loc="lower right")
plt.show()

# %%
# Checking the promise by simulation
# ----------------------------------
# The power is computed exactly, but it is worth seeing what it means. We
# simulate 1,000 test sets of the size :func:`dartboard.mcnemar_sample_size`
# asks for, with a true difference of 0.03 and 10% discordant rows, and count
# how often :func:`dartboard.mcnemar_test` rejects "equal accuracy" at the 5%
# level. McNemar's test takes the 2x2 table of agreement directly.

size = dartboard.mcnemar_sample_size(0.03, 0.10)
rng = np.random.default_rng(0)
p_only_a, p_only_b = (0.10 + 0.03) / 2, (0.10 - 0.03) / 2
rejected = 0
for _ in range(1000):
    only_a, only_b, rest = rng.multinomial(size, [p_only_a, p_only_b, 1 - p_only_a - p_only_b])
    table = [[rest, only_a], [only_b, 0]]
    rejected += dartboard.mcnemar_test(table).pvalue < 0.05
print(f"{size} rows: the test detected the difference in {rejected / 10:.1f}% of test sets")

# %%
# Comparing AUCs
# --------------
# For two AUCs the number of rows depends on the AUCs, on the share of
# positives (the rarer the positives, the more rows: the AUC's variance is
# driven by the smaller class), and on the correlation of the two AUC
# estimates. Two models scored on the same rows usually have correlated AUCs
# (0.3 to 0.6 is typical), which makes the comparison cheaper than two
# independent samples would be.

rows = {}
for prevalence in [0.5, 0.2, 0.05]:
    rows[f"{prevalence:.0%} positives"] = {
        f"correlation {r}": dartboard.auc_sample_size(0.85, 0.80, prevalence=prevalence,
                                                      correlation=r)
        for r in [0.0, 0.3, 0.6]
    }
table = pd.DataFrame(rows).T
table.columns.name = "rows to tell AUC 0.85 from 0.80"
table

# %%
# A rare-event model needs a test set that contains enough *positives*: with
# 5% positives, telling an AUC of 0.85 from 0.80 takes thousands of rows. If
# the test set you can afford is smaller, :func:`dartboard.auc_power` tells you
# how likely it is to detect the difference, and so whether the comparison is
# worth running at all.

n = np.arange(200, 10001, 100)
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
for prevalence in [0.5, 0.2, 0.05]:
    ax.plot(n, [dartboard.auc_power(k, 0.85, 0.80, prevalence=prevalence, correlation=0.3)
                for k in n], label=f"{prevalence:.0%} positives")
ax.axhline(0.8, color="0.5", ls="--")
ax.set(xlabel="test rows", ylabel="power (AUC 0.85 vs 0.80, correlation 0.3)", ylim=(0, 1))
ax.legend(loc="lower right")
plt.show()
