"""Validation of dartboard.evals on simulated LLM benchmarks with passages.

A benchmark holds ``G`` passages of 5 questions; each model answers each question
``k`` times (epochs). Model ``j``'s latent ability on question ``i`` of passage ``c``
is ``eta = mu_j + u_c + v_i + w_jc + e_ji`` with ``u_c ~ N(0, rho)``, ``v_i ~ N(0,
1 - rho)`` (shared by the models: what makes them correlated, latent correlation 2/3),
``w_jc ~ N(0, 0.5 rho)``, ``e_ji ~ N(0, 0.5 (1 - rho))`` (the model's own), and each
answer is right with probability ``Phi(eta)``: ``rho`` is the intra-passage
correlation of the latent ability (the ICC), ``k`` answers share a question's
``Phi(eta)``. A model's true mean score is ``Phi(mu_j / sqrt(2.5))``.

Three checks, each cell 1000 simulated benchmarks (``N_SIM``) run through the public
functions (``load`` of a data frame, ``interval``, ``compare``, ``sample_size``):

1. coverage of ``interval(run)`` (95%, clustered by passage) of model a's true mean;
2. type I error of ``compare(run_a, run_b)`` at 5% when the two models have equal
   means (``mu_a = mu_b = 0``, still correlated);
3. power of the sample-size plan: ``sample_size(difference, pilot=(a, b))`` from a
   pilot of 2000 passages (``mu_a = 0.1``, ``mu_b = 0``), then ``N_SIM`` benchmarks of
   the planned size; the share where ``compare`` rejects at 5% against the power the
   plan promised.

Usage: nice python benchmarks/evals_simulation.py [n_sim] > out.txt
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd
from scipy import stats

from dartboard.evals import compare, interval, load, sample_size

N_SIM = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
PER = 5
ICCS = (0.0, 0.1, 0.25, 0.5)
ANSWERS = (1, 3, 5)
PASSAGES = (30, 100)
POWER_CELLS = [(rho, k) for rho in (0.0, 0.25, 0.5) for k in (1, 3)]
SCALE = np.sqrt(2.5)


def benchmark(rng: np.random.Generator, passages: int, k: int, rho: float,
              mus: tuple[float, float]) -> list:
    n = passages * PER
    u = rng.normal(0, np.sqrt(rho), passages).repeat(PER)
    v = rng.normal(0, np.sqrt(1 - rho), n)
    question = np.tile(np.arange(n), k)
    epoch = np.arange(k).repeat(n)
    passage = question // PER
    runs = []
    for j, mu in enumerate(mus):
        w = rng.normal(0, np.sqrt(0.5 * rho), passages).repeat(PER)
        e = rng.normal(0, np.sqrt(0.5 * (1 - rho)), n)
        p = stats.norm.cdf(mu + u + v + w + e)
        right = (rng.random((k, n)) < p).ravel().astype(np.float64)
        runs.append(load(pd.DataFrame({"question": question, "epoch": epoch,
                                       "passage": passage, "score": right}),
                         cluster="passage", name=f"m{j}"))
    return runs


def coverage_and_type1(rng: np.random.Generator) -> pd.DataFrame:
    truth = stats.norm.cdf(0.0)
    rows = []
    for passages in PASSAGES:
        for rho in ICCS:
            for k in ANSWERS:
                start = time.perf_counter()
                hit = rejected = 0
                naive_hit = 0
                for _ in range(N_SIM):
                    a, b = benchmark(rng, passages, k, rho, (0.0, 0.0))
                    res = interval(a)
                    hit += res.low <= truth <= res.high
                    q = stats.t.ppf(0.975, res.n_questions - 1)
                    naive_hit += abs(res.estimate - truth) <= q * res.naive_standard_error
                    rejected += compare(a, b).pvalue < 0.05
                rows.append({"passages": passages, "icc": rho, "answers": k,
                             "coverage %": 100 * hit / N_SIM,
                             "naive coverage %": 100 * naive_hit / N_SIM,
                             "type I %": 100 * rejected / N_SIM,
                             "seconds": round(time.perf_counter() - start, 1)})
                print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def power(rng: np.random.Generator) -> pd.DataFrame:
    mus = (0.1, 0.0)
    difference = float(stats.norm.cdf(mus[0] / SCALE) - stats.norm.cdf(mus[1] / SCALE))
    rows = []
    for rho, k in POWER_CELLS:
        pilot = benchmark(rng, 2000, k, rho, mus)
        plan = sample_size(difference, pilot=tuple(pilot))
        rejected = sum(compare(*benchmark(rng, plan.clusters, k, rho, mus)).pvalue < 0.05
                       for _ in range(N_SIM))
        rows.append({"icc": rho, "answers": k, "difference": round(difference, 4),
                     "planned questions": plan.questions, "passages": plan.clusters,
                     "measured icc": round(plan.icc, 3), "promised %": 100 * plan.power,
                     "achieved %": 100 * rejected / N_SIM})
        print(rows[-1], flush=True)
    return pd.DataFrame(rows)


if __name__ == "__main__":
    rng = np.random.default_rng(20240611)
    pd.set_option("display.width", 200)
    print(f"{N_SIM} simulated benchmarks per cell; 95% intervals, tests at 5%\n")
    table = coverage_and_type1(rng)
    print("\ncoverage of interval(run) and type I error of compare(a, b):")
    print(table.round(1).to_string(index=False))
    plans = power(rng)
    print("\npower of sample_size(difference, pilot=...) plans:")
    print(plans.round(1).to_string(index=False))
