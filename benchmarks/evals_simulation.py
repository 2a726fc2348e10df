"""Validation of dartboard.evals on simulated LLM benchmarks with passages.

A benchmark holds ``G`` passages of 5 questions; each model answers each question
``k`` times (epochs). Model ``j``'s latent ability on question ``i`` of passage ``c``
is ``eta = mu_j + u_c + v_i + w_jc + e_ji`` with ``u_c ~ N(0, rho)``, ``v_i ~ N(0,
1 - rho)`` (shared by the models: what makes them correlated, latent correlation 2/3),
``w_jc ~ N(0, 0.5 rho)``, ``e_ji ~ N(0, 0.5 (1 - rho))`` (the model's own), and each
answer is right with probability ``Phi(eta)``: ``rho`` is the intra-passage
correlation of the latent ability (the ICC), ``k`` answers share a question's
``Phi(eta)``. A model's true mean score is ``Phi(mu_j / sqrt(2.5))``.

Three checks, each cell 1000 simulated benchmarks (``N_SIM``). Each benchmark's
numbers come from the engine the public functions call
(:func:`dartboard.evals._interval.clustered_se` on the question means, Student's t on
``G - 1``), without building a data frame per benchmark, so that the grid fits a
shared machine; on the first benchmark of every cell the public path (``load`` of a
data frame, ``interval``, ``compare``) is asserted to give the same bounds and p-value
to 1e-12:

1. coverage of ``interval(run)`` (95%, clustered by passage) of model a's true mean;
2. type I error of ``compare(run_a, run_b)`` at 5% when the two models have equal
   means (``mu_a = mu_b = 0``, still correlated);
3. power of the sample-size plan: ``sample_size(difference, pilot=(a, b))`` from a
   pilot of 2000 passages (``mu_a = 0.1``, ``mu_b = 0``), then ``N_SIM`` benchmarks of
   the planned size; the share where ``compare`` rejects at 5% against the power the
   plan promised.

4. family-wise error of ``compare(*runs)`` over four equally good models (six pairs,
   max-T) at 5%, 30 and 100 passages, answers 1 and 3.

Printed as Markdown tables (``render`` turns a log into the validation page's tables;
``python benchmarks/regenerate.py --only evals``).

Usage: nice python benchmarks/evals_simulation.py [n_sim] > out.txt
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd
from scipy import stats

from dartboard.evals import compare, interval, load, sample_size
from dartboard.evals._interval import clustered_se

#: simulated benchmarks per cell (the first argument when run as a script)
N_SIM = 1000
PER = 5
ICCS = (0.0, 0.1, 0.25, 0.5)
ANSWERS = (1, 3, 5)
PASSAGES = (30, 100)
POWER_CELLS = [(rho, k) for rho in (0.0, 0.25, 0.5) for k in (1, 3)]
SCALE = np.sqrt(2.5)


def draw(rng: np.random.Generator, passages: int, k: int, rho: float,
         mus: tuple[float, ...]) -> np.ndarray:
    """Answers of the models, shape (models, k, n): 1 right, 0 wrong (module docstring)."""
    n = passages * PER
    shared = rng.normal(0, np.sqrt(rho), passages).repeat(PER) + rng.normal(
        0, np.sqrt(1 - rho), n)
    out = np.empty((len(mus), k, n))
    for j, mu in enumerate(mus):
        own = rng.normal(0, np.sqrt(0.5 * rho), passages).repeat(PER) + rng.normal(
            0, np.sqrt(0.5 * (1 - rho)), n)
        p = stats.norm.cdf(mu + shared + own)
        out[j] = rng.random((k, n)) < p
    return out


def runs(answers: np.ndarray) -> list:
    """The public path's runs of the models' answers."""
    models, k, n = answers.shape
    question = np.tile(np.arange(n), k)
    return [load(pd.DataFrame({"question": question, "epoch": np.arange(k).repeat(n),
                               "passage": question // PER, "score": answers[j].ravel()}),
                 cluster="passage", name=f"m{j}") for j in range(models)]


def fast(answers: np.ndarray, level: float = 0.95) -> tuple[float, float, float, float]:
    """(low, high) of model a's clustered interval, its naive half-width's centre
    check, and the paired p-value, from the engine (module docstring)."""
    means = answers.mean(axis=1)
    n = means.shape[1]
    cluster = np.arange(n) // PER
    g = n // PER
    q = float(stats.t.ppf(0.5 + level / 2, g - 1))
    theta = float(means[0].mean())
    se = clustered_se(means[0], cluster, g)
    low, high = max(theta - q * se, 0.0), min(theta + q * se, 1.0)
    naive = float(np.std(means[0], ddof=1) / np.sqrt(n))
    d = means[0] - means[1]
    se_d = clustered_se(d, cluster, g)
    t = float(d.mean()) / se_d if se_d > 0 else 0.0
    return low, high, naive, float(2 * stats.t.sf(abs(t), g - 1))


def checked(answers: np.ndarray) -> tuple[float, float, float, float]:
    """:func:`fast`, asserted equal to the public path."""
    out = fast(answers)
    a, b = runs(answers)
    res, cmp = interval(a), compare(a, b)
    assert abs(res.low - out[0]) < 1e-12 and abs(res.high - out[1]) < 1e-12
    assert abs(res.naive_standard_error - out[2]) < 1e-12
    assert abs(cmp.pvalue - out[3]) < 1e-12
    return out


def coverage_and_type1(rng: np.random.Generator) -> pd.DataFrame:
    truth = stats.norm.cdf(0.0)
    rows = []
    for passages in PASSAGES:
        for rho in ICCS:
            for k in ANSWERS:
                start = time.perf_counter()
                hit = rejected = naive_hit = 0
                q = stats.t.ppf(0.975, passages * PER - 1)
                for r in range(N_SIM):
                    answers = draw(rng, passages, k, rho, (0.0, 0.0))
                    low, high, naive, pvalue = (checked if r == 0 else fast)(answers)
                    hit += low <= truth <= high
                    naive_hit += abs(answers[0].mean() - truth) <= q * naive
                    rejected += pvalue < 0.05
                rows.append({"passages": passages, "icc": rho, "answers": k,
                             "coverage %": 100 * hit / N_SIM,
                             "naive coverage %": 100 * naive_hit / N_SIM,
                             "type I %": 100 * rejected / N_SIM,
                             "seconds": round(time.perf_counter() - start, 1)})
                print(f"<!-- {rows[-1]} -->", flush=True)
    return pd.DataFrame(rows)


def power(rng: np.random.Generator) -> pd.DataFrame:
    mus = (0.1, 0.0)
    difference = float(stats.norm.cdf(mus[0] / SCALE) - stats.norm.cdf(mus[1] / SCALE))
    rows = []
    for rho, k in POWER_CELLS:
        plan = sample_size(difference, pilot=tuple(runs(draw(rng, 2000, k, rho, mus))))
        rejected = 0
        for r in range(N_SIM):
            answers = draw(rng, plan.clusters, k, rho, mus)
            rejected += (checked if r == 0 else fast)(answers)[3] < 0.05
        rows.append({"icc": rho, "answers": k, "difference": round(difference, 4),
                     "planned questions": plan.questions, "passages": plan.clusters,
                     "measured icc": round(plan.icc, 3), "promised %": 100 * plan.power,
                     "achieved %": 100 * rejected / N_SIM})
        print(f"<!-- {rows[-1]} -->", flush=True)
    return pd.DataFrame(rows)


def family_wise(rng: np.random.Generator) -> pd.DataFrame:
    """Share of benchmarks where max-T calls any of the six pairs of four equal models
    significant (the public ``compare``, 20,000 draws of max |T| each)."""
    rows = []
    for passages in PASSAGES:
        for k in (1, 3):
            found = 0
            for r in range(N_SIM):
                res = compare(*runs(draw(rng, passages, k, 0.25, (0.0,) * 4)),
                              n_draws=20_000, random_state=r)
                found += bool(res.pairwise["significant"].any())
            rows.append({"passages": passages, "icc": 0.25, "answers": k, "models": 4,
                         "family-wise error %": 100 * found / N_SIM})
            print(f"<!-- {rows[-1]} -->", flush=True)
    return pd.DataFrame(rows)


def markdown(frame: pd.DataFrame) -> str:
    cells = [[f"{v:g}" if isinstance(v, float) else str(v) for v in row]
             for row in frame.itertuples(index=False)]
    lines = ["| " + " | ".join(frame.columns) + " |",
             "|" + "---|" * frame.shape[1]]
    return "\n".join(lines + ["| " + " | ".join(c) + " |" for c in cells])


def render(log: str) -> list:
    from _results import Table, markdown_tables

    titles = [("evals_coverage", "Coverage of interval(run) (95%) and type I error of "
               "compare(a, b) at 5%, passages of 5 questions"),
              ("evals_power", "Power of sample_size plans (target 80%) measured on "
               "benchmarks of the planned size"),
              ("evals_family_wise", "Family-wise error of compare() of several runs, four equal "
               "models, max-T at 5%")]
    return [Table(name, title, header, rows) for (name, title), (header, *rows)
            in zip(titles, markdown_tables(log))]


if __name__ == "__main__":
    N_SIM = int(sys.argv[1]) if len(sys.argv) > 1 else N_SIM
    rng = np.random.default_rng(20240611)
    print(f"{N_SIM} simulated benchmarks per cell; 95% intervals, tests at 5%\n")
    table = coverage_and_type1(rng).drop(columns="seconds")
    rates = ["coverage %", "naive coverage %", "type I %"]
    table[rates] = table[rates].round(1)
    print("\ncoverage of interval(run) and type I error of compare(a, b):\n")
    print(markdown(table))
    plans = power(rng)
    plans["promised %"] = plans["promised %"].round(1)
    print("\npower of sample_size(difference, pilot=...) plans:\n")
    print(markdown(plans))
    print("\nfamily-wise error of compare(*runs) over four equal models:\n")
    print(markdown(family_wise(rng)))
