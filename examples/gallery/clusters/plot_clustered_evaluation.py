"""
When rows are not independent: clustered intervals and paired tests
===================================================================

Benchmarks of language models often ask several questions about one passage of
text. Questions about the same passage share what makes them easy or hard: a
model that misreads the passage gets most of its questions wrong. The 1,000
answers are then worth fewer than 1,000 independent ones, and an interval that
treats every row as independent is too narrow (Miller 2024, "Adding error bars to
evals", arXiv:2411.00640).

Passing ``clusters=`` (the passage of each question) to :func:`dartboard.evaluate`,
:func:`dartboard.interval` and :func:`dartboard.compare_models` makes every
interval and test account for it:

* ratios of counts (accuracy, recall, ...) and mean losses (log loss, Brier) get a
  cluster-robust (sandwich) standard error, ROC AUC Obuchowski's clustered DeLong
  variance, and other metrics the bootstrap of whole clusters;
* each row of the table reports its **design effect**, the clustered variance over
  the independent-rows variance, and the **effective sample size** ``n / design
  effect``: how many independent questions the 1,000 are worth.
"""

# %%
# A benchmark of 100 passages with 10 questions each
# --------------------------------------------------
# Each question has a yes/no answer; each model gives its probability of "yes".
# A passage has its own difficulty for each model (``skill_a``, ``skill_b``),
# shared by its ten questions. Model A is a little better on average.

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import dartboard

rng = np.random.default_rng(7)
n_passages, per_passage = 100, 10
passage = np.repeat(np.arange(n_passages), per_passage)
n = passage.shape[0]
answer = (rng.normal(size=n_passages)[passage] + rng.normal(size=n) > 0).astype(int)


def model(mean_skill):
    skill = mean_skill + 1.2 * rng.normal(size=n_passages)[passage]
    margin = (2 * answer - 1) * (skill + rng.normal(size=n))
    return 1 / (1 + np.exp(-margin))


proba_a, proba_b = model(1.0), model(0.8)

# %%
# Naive and clustered intervals side by side
# ------------------------------------------
# The same call with and without ``clusters``. With 100 clusters ``ci="auto"``
# takes the cluster-robust interval of each metric, and the method column says so;
# ``deff`` is the design effect (below).

metrics = ["accuracy", "roc_auc", "log_loss"]
naive = dartboard.evaluate(answer, y_score=proba_a, metrics=metrics, random_state=0)
clustered = dartboard.evaluate(answer, y_score=proba_a, metrics=metrics, random_state=0,
                               clusters=passage)
table = pd.DataFrame({
    "estimate": naive.overall["estimate"].round(3),
    "naive": [f"[{lo:.3f}, {hi:.3f}]" for lo, hi in naive.overall[["low", "high"]].values],
    "clustered": [f"[{lo:.3f}, {hi:.3f}]" for lo, hi in
                  clustered.overall[["low", "high"]].values],
    "clustered method": clustered.overall["method"],
    "deff": clustered.overall["design_effect"].round(2),
    "effective n": clustered.overall["effective_n"].round(0),
})
print(table.to_string())

# %%
# The design effect
# -----------------
# For a mean over clusters of ``m`` rows whose outcomes correlate by ``rho``
# within a cluster, the variance grows by ``1 + (m - 1) rho`` (Kish 1965). Here
# the ten questions of a passage share the model's skill on it, so the design
# effect of accuracy is several times 1: the 1,000 questions measure it as
# precisely as a few hundred independent ones would, and the honest interval is
# ``sqrt(design effect)`` times as wide as the naive one.

deff = clustered.overall.loc["accuracy", "design_effect"]
print(f"accuracy: design effect {deff:.2f}, so the 1,000 questions are worth "
      f"{n / deff:.0f} independent ones\nand the interval is {np.sqrt(deff):.2f} times "
      "as wide")

fig, ax = plt.subplots(figsize=(6.4, 3.6))
for offset, (label, ev) in zip((-0.12, 0.12), (("independent rows", naive),
                                               ("clustered by passage", clustered))):
    frame = ev.overall
    y_pos = np.arange(len(metrics)) + offset
    ax.errorbar(frame["estimate"], y_pos,
                xerr=[frame["estimate"] - frame["low"], frame["high"] - frame["estimate"]],
                fmt="o", capsize=3, label=label)
ax.set_yticks(np.arange(len(metrics)), metrics)
ax.set_xlabel("estimate with 95% interval (model A)")
# the legend above the axes, where it cannot cover an interval
ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False,
          fontsize="small")
fig.tight_layout()

# %%
# Is model A better? A paired test within clusters
# ------------------------------------------------
# Both models answered the same questions, so they are compared pair by pair.
# Without ``clusters`` the test treats the 1,000 differences as independent; with
# ``clusters`` the cluster-robust test uses the passages' summed differences, and
# the permutation test swaps the two models on whole passages.

rows = []
pred_a, pred_b = (proba_a >= 0.5).astype(int), (proba_b >= 0.5).astype(int)
for metric, a, b in (("accuracy", pred_a, pred_b), ("roc_auc", proba_a, proba_b)):
    for how, kwargs in (("independent rows (permutation)", {}),
                        ("clustered (cluster-robust)", {"clusters": passage,
                                                        "method": "cluster-robust"}),
                        ("clustered (cluster-swap permutation)", {"clusters": passage})):
        res = dartboard.compare_models(metric, answer, a, b, n_resamples=500, random_state=0,
                                       **kwargs)
        rows.append({"metric": metric, "test": how, "difference": round(res.difference, 4),
                     "interval": f"[{res.interval.low:.4f}, {res.interval.high:.4f}]",
                     "p-value": round(res.pvalue, 4)})
print(pd.DataFrame(rows).to_string(index=False))

# %%
# The independent-rows test is more confident than the data allow: its interval
# of the difference is narrower and its p-value smaller. With the passages taken
# into account, the evidence that A is better is weaker. On simulated pairs of
# equally good models with 50 passages of 10 questions the independent-rows tests
# reject far more often than their 5% (``benchmarks/clustered_type1.py``); the
# clustered ones stay near 5%.
