"""dartboard.evals with passages of unequal sizes: coverage, Type I error, family-wise error.

The benchmarks of ``benchmarks/evals_simulation.py`` (its law of answers: a passage
effect of intra-passage correlation ``rho`` shared by the models, each model's own
passage and question effects), with passages of unequal sizes, as real benchmarks
have them (a reading-comprehension passage with 2 questions beside one with 60):

* ``uniform``: 2 to 60 questions per passage, uniformly;
* ``lognormal``: ``max(1, round(exp(mu + 1.5 z)))`` questions, mean 20 (about 16% of
  passages hold one question, the largest some hundreds).

Per cell (passages 30 or 50, ICC 0.25 or 0.5, one answer per question) ``n_sim``
benchmarks, each through the public path (``load`` of a data frame with
``cluster="passage"``, ``interval``, ``compare``):

* coverage of model a's 95% interval (the truth 0.5: every model's mean is
  ``Phi(0)``);
* Type I error at 5% of ``compare(a, b)`` (equal models);
* family-wise error at 5% of ``compare(a, b, c, d)`` (four equal models, max-T, 2000
  draws): any of the six pairs called significant.

Beside each, the earlier form on the same benchmark (computed here): CR1 on ``G - 1``
degrees of freedom (statsmodels' ``cov_type="cluster"`` and Inspect's
``stderr(cluster=)`` variance), for the interval and the two-run test.

Usage: python benchmarks/evals_unequal_passages.py [n_sim] (default 1000).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import pandas as pd
from scipy import stats

from dartboard.evals import compare, interval, load

MU20 = np.log(20.0) - 1.5 ** 2 / 2
CELLS = [(shape, g, rho) for shape in ("uniform", "lognormal") for g in (30, 50)
         for rho in (0.25, 0.5)]


def passage_sizes(rng: np.random.Generator, shape: str, g: int) -> np.ndarray:
    if shape == "uniform":
        return rng.integers(2, 61, g)
    return np.maximum(1, np.round(np.exp(MU20 + 1.5 * rng.normal(size=g)))).astype(int)


def draw(rng: np.random.Generator, sizes: np.ndarray, rho: float, models: int
         ) -> tuple[np.ndarray, np.ndarray]:
    """(passage of each question, answers (models, n)) of equally good models."""
    g = sizes.shape[0]
    passage = np.repeat(np.arange(g), sizes)
    n = passage.shape[0]
    shared = rng.normal(0, np.sqrt(rho), g)[passage] + rng.normal(0, np.sqrt(1 - rho), n)
    out = np.empty((models, n))
    for j in range(models):
        own = rng.normal(0, np.sqrt(0.5 * rho), g)[passage] + rng.normal(
            0, np.sqrt(0.5 * (1 - rho)), n)
        out[j] = rng.random(n) < stats.norm.cdf(shared + own)
    return passage, out


def cr1_t(values: np.ndarray, passage: np.ndarray) -> tuple[float, float, int]:
    """(mean, CR1 standard error, G - 1): the earlier form."""
    g = int(passage.max()) + 1
    n = values.shape[0]
    sums = np.bincount(passage, weights=values - values.mean(), minlength=g)
    return float(values.mean()), float(np.sqrt(g / (g - 1) * np.sum(sums ** 2)) / n), g - 1


def run(n_sim: int) -> None:
    print(f"dartboard.evals with passages of unequal sizes; {n_sim} benchmarks per cell; "
          "one answer per question; 95% intervals, tests at 5%")
    print("| passages | sizes | ICC | coverage (CR2, small-sample df) | coverage (CR1, G-1) | "
          "type I compare(a, b) | type I (CR1, G-1) | FWER compare(4 runs) | "
          "median df of compare(a, b) |")
    print("|---|---|---|---|---|---|---|---|---|")
    seeds = np.random.SeedSequence(20261207).spawn(len(CELLS))
    for (shape, g, rho), seed in zip(CELLS, seeds):
        start = time.perf_counter()
        rng = np.random.default_rng(seed)
        hit = hit_old = rej = rej_old = fwer = 0
        dofs = []
        for r in range(n_sim):
            sizes = passage_sizes(rng, shape, g)
            passage, answers = draw(rng, sizes, rho, 4)
            question = np.arange(passage.shape[0])
            runs = [load(pd.DataFrame({"question": question, "passage": passage,
                                       "score": answers[j]}), cluster="passage",
                         name=f"m{j}") for j in range(4)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = interval(runs[0])
                two = compare(runs[0], runs[1])
                many = compare(*runs, n_draws=2000, random_state=r)
            hit += res.low <= 0.5 <= res.high
            rej += two.pvalue < 0.05
            fwer += bool(many.pairwise["significant"].any())
            dofs.append(two.degrees_of_freedom)
            theta, se, dof = cr1_t(answers[0], passage)
            q = float(stats.t.ppf(0.975, dof))
            hit_old += max(theta - q * se, 0.0) <= 0.5 <= min(theta + q * se, 1.0)
            diff, se_d, dof = cr1_t(answers[0] - answers[1], passage)
            rej_old += se_d > 0 and 2 * stats.t.sf(abs(diff / se_d), dof) < 0.05
        pct = [100 * v / n_sim for v in (hit, hit_old, rej, rej_old, fwer)]
        print(f"| {g} | {shape} | {rho:g} | {pct[0]:.1f}% | {pct[1]:.1f}% | {pct[2]:.1f}% | "
              f"{pct[3]:.1f}% | {pct[4]:.1f}% | {np.median(dofs):.1f} |", flush=True)
        print(f"<!-- {shape}/{g}/{rho:g}: {time.perf_counter() - start:.0f} s -->",
              flush=True)


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
