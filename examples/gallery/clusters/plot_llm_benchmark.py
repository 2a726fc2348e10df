"""
Error bars for an LLM benchmark: naive, clustered and paired
============================================================

A benchmark of reading comprehension asks five questions about each of 150
passages, and each model answers every question three times (three epochs at a
temperature above 0). Two models are scored. The tools that run such benchmarks
report each model's accuracy with a standard error that treats the 750 questions as
independent and compares models by looking at two separate intervals.

:mod:`dartboard.evals` reads the same scores (here from plain data frames; from
lm-evaluation-harness sample files, Inspect logs or HELM per-instance stats the same
way) and gives, side by side:

* the naive interval and the one clustered by passage (questions about one passage
  share what makes them hard), with the design effect;
* what the three answers per question contribute, and what more would buy;
* the paired comparison of the two models on the same questions, against the
  unpaired one;
* how many questions a benchmark needs to detect a 3-point difference.

Nothing is downloaded: the benchmark is simulated.
"""

# %%
# The synthetic benchmark
# -----------------------
# Question ``i`` of passage ``c`` has a difficulty shared by both models (part of it
# the passage's); each model adds its own skill on the passage and on the question.
# Each answer is right with probability ``sigmoid(skill - difficulty)``.

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dartboard import evals

rng = np.random.default_rng(3)
n_passages, per_passage, epochs = 150, 5, 3
n = n_passages * per_passage
passage = np.repeat(np.arange(n_passages), per_passage)
difficulty = 1.2 * rng.normal(size=n_passages)[passage] + rng.normal(size=n)


def answers(skill):
    own = 0.5 * rng.normal(size=n_passages)[passage] + 0.5 * rng.normal(size=n)
    p = 1 / (1 + np.exp(-(skill + own - difficulty)))
    right = rng.random((epochs, n)) < p
    return pd.DataFrame({"question": np.tile(np.arange(n), epochs),
                         "epoch": np.repeat(np.arange(epochs), n),
                         "passage": np.tile(passage, epochs),
                         "score": right.ravel().astype(float)})


run_a = evals.load(answers(0.6), cluster="passage", name="model A")
run_b = evals.load(answers(0.35), cluster="passage", name="model B")
print(run_a)

# %%
# Naive and clustered intervals side by side
# ------------------------------------------
# ``interval`` averages each question's three answers first (the question is the
# unit), then gives the naive standard error (what lm-evaluation-harness reports as
# ``acc_stderr``) and the cluster-robust one over the 150 passages.

rows = []
for run in (run_a, run_b):
    res = evals.interval(run)
    q = (res.high - res.low) / 2 / res.standard_error
    rows.append({"model": run.name, "accuracy": round(res.estimate, 4),
                 "naive se": round(res.naive_standard_error, 4),
                 "naive interval": f"[{res.estimate - q * res.naive_standard_error:.3f}, "
                                   f"{res.estimate + q * res.naive_standard_error:.3f}]",
                 "clustered se": round(res.standard_error, 4),
                 "clustered interval": f"[{res.low:.3f}, {res.high:.3f}]",
                 "design effect": round(res.design_effect, 2),
                 "answer noise share": round(res.within_share, 2)})
table = pd.DataFrame(rows)
print(table.to_string(index=False))

# %%
# The passages inflate the variance by the design effect: the 750 questions are
# worth about 750 / design effect independent ones, and the honest interval is
# ``sqrt(design effect)`` times as wide as the naive one.
#
# More answers per question
# -------------------------
# Part of the variance of each question's mean is the answers' own noise. Three
# answers already average some of it away; ``more_answers`` says what 1 to 20 would
# give. The between-question (and between-passage) part stays whatever the number
# of answers.

res_a = evals.interval(run_a)
print(res_a.more_answers.round(4).to_string(index=False))

fig, ax = plt.subplots(figsize=(5.6, 3.0))
ax.plot(res_a.more_answers["answers"], res_a.more_answers["half_width"], "o-")
ax.axvline(epochs, color="grey", linestyle=":", label="answers in this run")
ax.set_xscale("log")
ax.set_xlabel("answers per question")
ax.set_ylabel("half width of the 95% interval")
ax.legend(fontsize="small")
fig.tight_layout()

# %%
# Is A better than B? Paired, clustered
# -------------------------------------
# Both models answered the same questions. ``compare`` pairs them on the question
# ids, takes each question's difference and gives its clustered interval and
# p-value. Beside it: the unpaired standard error, what two separate intervals use.

cmp = evals.compare(run_a, run_b)
print(f"difference {cmp.difference:+.4f}, 95% interval [{cmp.low:.4f}, {cmp.high:.4f}], "
      f"p = {cmp.pvalue:.4f}")
print(pd.DataFrame({
    "standard error of the difference": ["unpaired (two separate intervals)",
                                         "paired, questions independent",
                                         "paired, clustered by passage"],
    "value": [round(cmp.unpaired_standard_error, 4), round(cmp.naive_standard_error, 4),
              round(cmp.standard_error, 4)]}).to_string(index=False))

fig, ax = plt.subplots(figsize=(5.6, 2.6))
errors = {"unpaired": cmp.unpaired_standard_error, "paired": cmp.naive_standard_error,
          "paired, clustered": cmp.standard_error}
quantile = (cmp.high - cmp.low) / 2 / cmp.standard_error  # t on 149 df
for y, se in enumerate(errors.values()):
    ax.errorbar(cmp.difference, y, xerr=quantile * se, fmt="o", capsize=3)
ax.axvline(0, color="grey", linestyle=":")
ax.set_yticks(range(3), list(errors))
ax.set_xlabel("accuracy of A - accuracy of B, 95% interval")
fig.tight_layout()

# %%
# The models find the same questions hard (their question means correlate), so the
# paired standard error is smaller than the unpaired one; the passages make the
# paired one larger again. The paired, clustered interval is the honest one.
#
# How many questions to detect 3 points?
# --------------------------------------
# This benchmark serves as a pilot: ``sample_size`` measures the sd of the paired
# question differences, their correlation within a passage and the answers' noise,
# and finds the questions (in passages of five) a comparison needs for 80% power.

plan = evals.sample_size(0.03, pilot=(run_a, run_b))
print(f"{plan.questions} questions in {plan.clusters} passages with {plan.answers} "
      f"answers each (power {plan.power:.3f}); question sd {plan.sd:.3f}, design effect "
      f"{plan.design_effect:.2f}, answer sd {plan.within_sd:.3f}")
print(plan.alternatives.round(3).to_string(index=False))

# %%
# Most of the paired difference's variance is the answers' noise here, so more
# answers per question save many questions: with ten answers each, over a third
# fewer questions than with three reach the same power. (The question-level part is small
# and its within-passage correlation poorly measured by one pilot; the plan keeps
# the pilot's own clustered variance.)
