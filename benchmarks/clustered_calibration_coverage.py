"""Coverage of the calibration intervals when rows come in clusters.

Data: ``C`` clusters of ``m`` rows. A row's predicted probability is ``p ~ U(0, 1)``,
independent of its cluster, or (cells marked "shared") ``p = (v_c + w) mod 1`` with
``v_c ~ U(0, 1)`` per cluster and ``w ~ U(-0.1, 0.1)`` per row: still uniform, but
a cluster's rows fall in a few neighbouring bins, as a patient's predictions do;
its label is ``Bernoulli(expit(logit(p^1.25) + u_c))`` with a cluster effect
``u_c ~ N(0, s^2)``, ``s^2 = rho / (1 - rho) * pi^2 / 3`` (``rho`` the intra-cluster
correlation of the latent logistic variable). The model is miscalibrated twice over:
``p^1.25`` instead of ``p``, and the cluster effect pulls the rows' frequencies towards
one half. The truth of each of the 15 equal-width bins is its frequency under the data
law, ``pi_b = E[y | p in bin b]``, by quadrature (a 4000-point grid in the bin times
80 Gauss-Hermite nodes over ``u``); the truth of the calibration error is the binned
error of the population, ``sum_b |pi_b - c_b| / 15`` with ``c_b`` the bin's mid-point
(what the estimator estimates with these bins). ``--check`` compares both with a
4,000,000-row draw.

Per cell and data set, 95% intervals:

- per bin (the reliability diagram's points): Wilson with independent rows, and the
  cluster-robust ``wilson-clustered`` and ``wald-clustered``
  (``dartboard.uncertainty.calibration_bins(..., clusters=)``). Coverage over the data
  sets in which the bin has rows: the mean over bins and the worst bin;
- the calibration error (ECE): ``bin-pivot`` with independent rows (the default
  without clusters), ``bin-pivot`` with clusters (on ``n / D`` rows, ``D`` the design
  effect of the error; :mod:`dartboard._kernels._clustered_calibration`) and the
  bootstrap of whole clusters, ``percentile``, ``basic``, ``bca``
  (``dartboard.interval("calibration_error", ..., clusters=)``).

Usage: ``nice -n 10 python benchmarks/clustered_calibration_coverage.py [n_sim]
[n_resamples] [--check]`` (defaults 1000 1000); ``CELLS`` picks cells by number
(``CELLS=0,1``). Each finished cell prints its row of the Markdown table.

Findings (1000 data sets a cell, 1000 resamples; the table is in
``docs/validation/clustered.rst``). Where coverage falls short of 95%:

- per bin, ``wilson-clustered`` (the default with clusters) covers 94.8-99.0% on
  average over the bins and 93.7-97.9% in its worst bin: just short in the worst bin
  with 100 clusters sharing predictions at ICC 0.5, conservative (99.0%) with one row
  per cluster. ``wald-clustered`` falls short in the end bins (worst bin 16-86%: a
  bin whose rows all agree has width 0). Independent Wilson falls to 85% (worst bin
  81%) when clusters share bins at ICC 0.5;
- the clustered ``bin-pivot`` (auto's choice with clusters) covers 93.6-98.5%: 93.6%
  with one row per cluster, where it is the independent pivot exactly. The
  independent ``bin-pivot`` falls to 71-74% when clusters share bins at ICC 0.5;
- the bootstrap of whole clusters of the error does not keep the promise: basic
  75-91%, BCa 0.4-84%, percentile 0-71% (the error's upward bias).
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np
from _results import Table, markdown_tables
from scipy import special

import dartboard as db
from dartboard.uncertainty import calibration_bins

N_BINS = 15
LEVEL = 0.95
#: (rho, clusters, rows per cluster, whether a cluster's rows share their predictions)
CELLS = ((0.0, 30, 10, False), (0.2, 30, 10, False), (0.5, 30, 10, False),
         (0.0, 100, 10, False), (0.2, 100, 10, False), (0.5, 100, 10, False),
         (0.2, 100, 1, False), (0.2, 30, 10, True), (0.5, 30, 10, True),
         (0.2, 100, 10, True), (0.5, 100, 10, True))
#: half-width of a row's prediction around its cluster's (shared p)
SPREAD = 0.1
BIN_COLUMNS = ("wilson", "wilson-clustered", "wald-clustered")
#: the ECE's intervals: the independent bin-pivot, then with clusters
ECE_COLUMNS = ("bin-pivot", "bin-pivot-clustered", "percentile", "basic", "bca")


def _scale(rho: float) -> float:
    return float(np.sqrt(rho / (1.0 - rho) * np.pi ** 2 / 3.0))


def _q(p: np.ndarray) -> np.ndarray:
    return p ** 1.25


def truth(rho: float) -> tuple[np.ndarray, float]:
    """Per-bin frequencies and the binned error of the population (module docstring)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    weights = weights / weights.sum()
    grid = (np.arange(4000) + 0.5) / 4000
    freq = np.empty(N_BINS)
    for b in range(N_BINS):
        p = (b + grid) / N_BINS
        logit = special.logit(np.clip(_q(p), 1e-300, 1.0 - 1e-16))
        freq[b] = np.mean(special.expit(logit[:, None] + _scale(rho) * nodes) @ weights)
    mid = (np.arange(N_BINS) + 0.5) / N_BINS
    return freq, float(np.mean(np.abs(freq - mid)))


def draw(rng: np.random.Generator, rho: float, c: int, m: int, shared: bool = False
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cluster = np.repeat(np.arange(c), m)
    p = rng.uniform(size=c * m)
    if shared:
        p = np.mod(rng.uniform(size=c)[cluster] + SPREAD * (2.0 * p - 1.0), 1.0)
    u = rng.normal(0.0, _scale(rho), c)[cluster]
    logit = special.logit(np.clip(_q(p), 1e-300, 1.0 - 1e-16))
    y = (rng.uniform(size=c * m) < special.expit(logit + u)).astype(np.int64)
    return y, p, cluster


def check(rho: float, rng: np.random.Generator) -> str:
    """The quadrature's truth against 4,000,000 rows (clusters of 1000)."""
    freq, ece = truth(rho)
    y, p, _ = draw(rng, rho, 4000, 1000)
    b = np.minimum((p * N_BINS).astype(np.int64), N_BINS - 1)
    drawn = np.bincount(b, weights=y, minlength=N_BINS) / np.bincount(b, minlength=N_BINS)
    conf = np.bincount(b, weights=p, minlength=N_BINS) / np.bincount(b, minlength=N_BINS)
    share = np.bincount(b, minlength=N_BINS) / b.shape[0]
    return (f"rho {rho}: max |pi_b - draw| = {np.max(np.abs(freq - drawn)):.4f}, ECE "
            f"{ece:.4f} vs draw {np.sum(share * np.abs(drawn - conf)):.4f}")


def one(rng: np.random.Generator, cell: tuple[float, int, int, bool], n_resamples: int,
        freq: np.ndarray, ece: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(bin columns x bins) covered (nan: empty bin), ECE columns covered, and the mean
    design effect of the bins."""
    y, p, cluster = draw(rng, *cell)
    bins = np.full((len(BIN_COLUMNS), N_BINS), np.nan)
    found = [calibration_bins(y, p, n_bins=N_BINS)] + \
        [calibration_bins(y, p, n_bins=N_BINS, clusters=cluster, method=k)
         for k in BIN_COLUMNS[1:]]
    for j, f in enumerate(found):
        at = np.minimum((f.bin_low * N_BINS).round().astype(np.int64), N_BINS - 1)
        bins[j, at] = (f.low <= freq[at]) & (freq[at] <= f.high)
    seed = int(rng.integers(2**63))
    covered = np.empty(len(ECE_COLUMNS))
    for j, column in enumerate(ECE_COLUMNS):
        kw = {} if column == "bin-pivot" else {"clusters": cluster}
        iv = db.interval("calibration_error", y, p, method=column.removesuffix("-clustered"),
                         n_resamples=n_resamples, random_state=seed, **kw)
        covered[j] = iv.low <= ece <= iv.high
    deff = found[1].design_effect
    assert deff is not None
    return bins, covered, np.array([np.nanmean(deff)])


def run(cell: tuple[float, int, int, bool], n_sim: int, n_resamples: int, seed: int
        ) -> list[object]:
    rho, c, m, shared = cell
    freq, ece = truth(rho)
    rng = np.random.default_rng(seed)
    bins, eces, deffs = [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n_sim):
            b, e, d = one(rng, cell, n_resamples, freq, ece)
            bins.append(b)
            eces.append(e)
            deffs.append(d)
    stack = np.stack(bins)  # (sets, columns, bins)
    per_bin = np.nanmean(stack, axis=0)  # coverage per column and bin
    out: list[object] = [rho, c, m, "shared" if shared else "independent", n_sim,
                         f"{ece:.3f}", f"{np.nanmean(deffs):.2f}"]
    for j in range(len(BIN_COLUMNS)):
        out.append(f"{np.nanmean(per_bin[j]):.3f} / {np.nanmin(per_bin[j]):.3f}")
    out += [f"{v:.3f}" for v in np.mean(np.stack(eces), axis=0)]
    return out


HEADER = ["ICC", "clusters", "rows each", "p", "data sets", "true ECE", "mean deff",
          *(f"bin {k} (mean / worst)" for k in BIN_COLUMNS),
          *(f"ECE {k}" + ("" if k.startswith("bin-pivot") else " (clustered)")
            for k in ECE_COLUMNS)]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n_sim = int(args[0]) if args else 1000
    n_resamples = int(args[1]) if len(args) > 1 else 1000
    if "--check" in sys.argv:
        rng = np.random.default_rng(7)
        for rho in (0.0, 0.2, 0.5):
            print(check(rho, rng), flush=True)
    picked = os.environ.get("CELLS")
    chosen = [CELLS[int(i)] for i in picked.split(",")] if picked else list(CELLS)
    print(f"{n_sim} data sets a cell, {n_resamples} resamples, {N_BINS} bins, "
          f"95% intervals\n", flush=True)
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "---|" * len(HEADER), flush=True)
    for k, chosen_cell in enumerate(chosen):
        start = time.perf_counter()
        row = run(chosen_cell, n_sim, n_resamples, seed=1000 + CELLS.index(chosen_cell))
        print("| " + " | ".join(str(v) for v in row) + " |", flush=True)
        print(f"<!-- cell {k} took {time.perf_counter() - start:.0f} s -->", flush=True)


def render(log: str) -> list[Table]:
    """The coverage table of a run's log (its rows, split by the cells' timing lines)."""
    tables = markdown_tables(log)
    header, *rows = tables[0]
    rows += [row for table in tables[1:] for row in table]
    return [Table("clustered_calibration",
                  "Coverage of 95% calibration intervals with clustered rows", header, rows)]


if __name__ == "__main__":
    main()
