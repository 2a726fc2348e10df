"""Coverage of the true rates of a threshold chosen on the data, and the guarantee.

Binormal scores: negatives N(0, 1), positives N(1.5, 1) (AUC 0.86), at fixed class
sizes (positives/negatives) 10/90, 50/50, 100/900 and 500/500, the design the
stratified bootstrap assumes. At a threshold ``t`` the true rates are
``TPR(t) = 1 - Phi(t - 1.5)``, ``FPR(t) = 1 - Phi(t)``, and precision, NPV, F1
and the error rate (the default cost) at the data's class mix ``pi``.

Part 1, for every criterion of ``select_threshold`` and every cell, over
``--reps`` data sets: the share whose interval of each rate holds the true rate
*of the threshold chosen on that data set*, for four constructions:

- ``re-choose``: the previous release's, percentiles of the rates at the
  threshold re-chosen in each stratified resample;
- ``fixed boot``: percentiles of the rates at the chosen threshold held fixed in
  each resample (the conditional bootstrap);
- ``jeffreys``: Jeffreys intervals at the chosen threshold, the samples tied at it
  counted half (posterior draws for the composite rates), not widened;
- ``new``: what ``select_threshold`` reports (``jeffreys`` widened by the
  bootstrap's optimism, :mod:`dartboard.uncertainty._threshold_rates`).

Part 2, for ``min_recall`` (target 0.8), ``max_fpr`` (0.1) and ``min_precision``
(0.8 at 50% positives, 0.5 at 10%): the share of data sets whose chosen
threshold's true rate meets the target, plain and with ``guarantee=0.95`` (of the
data sets where a threshold was returned; and its theory: exact for recall, a
lower bound for FPR), the share of all data sets where a wrong threshold was
returned (what the guarantee bounds by 5%), the share where no threshold could be
guaranteed (an error), and the price: the mean change of the
threshold and the mean true value of the other rate (TNR for recall, TPR for the
others) at the plain and at the guaranteed threshold.

Usage: python benchmarks/threshold_simulation.py [--reps 1000] [--resamples 1000]
       [--criteria youden,cost] [--cells 10/90,50/50] [--part 1|2|both]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from _results import Table, markdown_tables
from scipy import stats

from dartboard import select_threshold
from dartboard.uncertainty._guarantee import critical_counts
from dartboard.uncertainty._sorted_scores import SortedScores
from dartboard.uncertainty._threshold_rates import (
    METRICS,
    choose,
    counts_at,
    point_metrics,
    rate_bounds,
)

MU = 1.5
COSTS = np.array([[0.0, 1.0], [1.0, 0.0]])
CELLS = {"10/90": (10, 90), "50/50": (50, 50), "100/900": (100, 900), "500/500": (500, 500)}
CRITERIA = ("youden", "closest_topleft", "cost", "min_precision", "min_recall", "max_fpr")
CONSTRUCTIONS = ("re-choose", "fixed boot", "jeffreys", "new")
LEVEL = 0.95


def target_of(criterion: str, n_pos: int, n_neg: int) -> float | None:
    if criterion == "min_precision":
        return 0.8 if n_pos == n_neg else 0.5
    return {"min_recall": 0.8, "max_fpr": 0.1}.get(criterion)


def true_rates(t: float, pi: float) -> np.ndarray:
    """The six rates of METRICS at threshold ``t`` in the population."""
    tpr, fpr = stats.norm.sf(t - MU), stats.norm.sf(t)
    with np.errstate(invalid="ignore", divide="ignore"):
        ppv = pi * tpr / (pi * tpr + (1 - pi) * fpr)
        npv = (1 - pi) * (1 - fpr) / ((1 - pi) * (1 - fpr) + pi * (1 - tpr))
        f1 = 2 * pi * tpr / (pi * tpr + (1 - pi) * fpr + pi)
    return np.array([tpr, 1 - fpr, ppv, npv, f1, pi * (1 - tpr) + (1 - pi) * fpr])


def _data(rng: np.random.Generator, n_pos: int, n_neg: int) -> tuple[np.ndarray, np.ndarray]:
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    return y, rng.normal(size=n_pos + n_neg) + MU * y


def other_intervals(y: np.ndarray, s: np.ndarray, criterion: str, target: float | None,
                    index: int, resamples: int, rng: np.random.Generator) -> dict:
    """(2, 6) bounds of the three constructions the library does not report."""
    path = SortedScores.build(y == 1, s, None)
    n_pos, n_neg = int(path.pos.sum()), int(path.neg.sum())
    pos = rng.multinomial(n_pos, path.pos / n_pos, size=resamples).astype(float)
    neg = rng.multinomial(n_neg, path.neg / n_neg, size=resamples).astype(float)
    tp, fp = path.cumulative(pos, neg)
    goal = np.nan if target is None else target
    chosen, met = choose(criterion, tp, fp, goal, COSTS, None)
    q = [(1 - LEVEL) / 2, (1 + LEVEL) / 2]
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        again = point_metrics(counts_at(tp, fp, chosen, pos, neg, False), COSTS, None)
        again[~met] = np.nan
        fixed = point_metrics(counts_at(tp, fp, np.full(resamples, index), pos, neg, False),
                              COSTS, None)
        out = {"re-choose": np.nanquantile(again, q, axis=0),
               "fixed boot": np.nanquantile(fixed, q, axis=0)}
        t0, f0 = path.cumulative(path.pos[None], path.neg[None])
        if index == 0:
            out["jeffreys"] = np.tile(point_metrics(counts_at(
                t0, f0, np.array([0]), path.pos[None], path.neg[None], False), COSTS,
                None), (2, 1))
        else:
            mid = counts_at(t0, f0, np.array([index]), path.pos[None], path.neg[None], True)
            low, high, _ = rate_bounds({k: float(v[0]) for k, v in mid.items()}, LEVEL, COSTS,
                                       None, rng)
            out["jeffreys"] = np.stack([low, high])
    return out


def coverage_cell(criterion: str, n_pos: int, n_neg: int, reps: int, resamples: int,
                  seed: int) -> dict:
    rng = np.random.default_rng(seed)
    target = target_of(criterion, n_pos, n_neg)
    pi = n_pos / (n_pos + n_neg)
    hits = {k: np.zeros(6) for k in CONSTRUCTIONS}
    used = {k: np.zeros(6) for k in CONSTRUCTIONS}
    unmet = at_inf = 0
    for r in range(reps):
        y, s = _data(rng, n_pos, n_neg)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                point = select_threshold(y, s, criterion=criterion, target=target,
                                         n_resamples=resamples, random_state=r)
            except ValueError:
                unmet += 1
                continue
        at_inf += point.threshold == np.inf
        truth = true_rates(point.threshold, pi)
        index = int(np.searchsorted(-np.unique(s)[::-1], -point.threshold) + 1) \
            if np.isfinite(point.threshold) else 0
        bounds = other_intervals(y, s, criterion, target, index, resamples, rng)
        bounds["new"] = np.array([[point.intervals[m].low for m in METRICS],
                                  [point.intervals[m].high for m in METRICS]])
        for name, (low, high) in bounds.items():
            ok = np.isfinite(truth) & np.isfinite(low) & np.isfinite(high)
            used[name] += ok
            hits[name] += ok & (low - 1e-12 <= truth) & (truth <= high + 1e-12)
    return {"coverage": {k: hits[k] / np.maximum(used[k], 1) for k in CONSTRUCTIONS},
            "used": used["new"], "unmet": unmet, "inf": at_inf}


def guarantee_cell(criterion: str, n_pos: int, n_neg: int, reps: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    target = target_of(criterion, n_pos, n_neg)
    pi = n_pos / (n_pos + n_neg)
    rate, other = {"min_recall": (0, 1), "max_fpr": (1, 0), "min_precision": (2, 0)}[criterion]
    out = {"plain_met": 0, "safe_met": 0, "plain_n": 0, "safe_n": 0, "none": 0,
           "safe_wrong": 0, "shift": [], "other_plain": [], "other_safe": []}
    for _ in range(reps):
        y, s = _data(rng, n_pos, n_neg)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                plain = select_threshold(y, s, criterion=criterion, target=target,
                                         n_resamples=1).threshold
            except ValueError:
                plain = None
            try:
                safe = select_threshold(y, s, criterion=criterion, target=target,
                                        guarantee=0.95, n_resamples=1).threshold
            except ValueError:
                safe = None
        truth = {k: true_rates(t, pi) for k, t in (("plain", plain), ("safe", safe))
                 if t is not None}
        for key, values in truth.items():
            value = values[rate] if criterion != "max_fpr" else 1 - values[rate]
            met = value >= target - 1e-12 if criterion != "max_fpr" else value <= target
            out[f"{key}_met"] += bool(met or np.isnan(value))  # nan: nothing positive
            out[f"{key}_n"] += 1
            out["safe_wrong"] += key == "safe" and not (met or np.isnan(value))
        if safe is None:
            out["none"] += 1
        elif plain is not None:
            if np.isfinite(safe) and np.isfinite(plain):
                out["shift"].append(safe - plain)
            out["other_plain"].append(truth["plain"][other])
            out["other_safe"].append(truth["safe"][other])
    return out


def exact_guarantee(criterion: str, n_pos: int, n_neg: int) -> str:
    """The probability that the guaranteed rate meets its target, for continuous scores,
    from the one binomial event of the nested counts
    (:mod:`dartboard.uncertainty._guarantee`): exact for recall (the threshold is the
    k-th highest positive score); for FPR a lower bound (a wrong threshold also needs a
    positive score between the negatives around it); '-' for precision and when
    nothing can be guaranteed."""
    target = target_of(criterion, n_pos, n_neg)
    if criterion == "min_recall":
        k = critical_counts(criterion, target, 0.05, n_pos, n_neg)[0]
        return _pct(stats.binom.cdf(k - 1, n_pos, target)) if k <= n_pos else "-"
    if criterion == "max_fpr":
        f = critical_counts(criterion, target, 0.05, n_pos, n_neg)[0]
        return _pct(stats.binom.sf(f, n_neg, target))
    return "-"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def part_one(criteria: list[str], cells: list[str], reps: int, resamples: int) -> None:
    print(f"Part 1: coverage (%) of the chosen threshold's true rates, {reps} data sets per "
          f"cell, {resamples} resamples, nominal {LEVEL:.0%} (Monte Carlo s.e. "
          f"{100 * np.sqrt(0.95 * 0.05 / reps):.1f} points near 95%)\n")
    print("| criterion | pos/neg | construction | " + " | ".join(METRICS) + " | notes |")
    print("|---|---|---|" + "---|" * (len(METRICS) + 1))
    for c_i, criterion in enumerate(criteria):
        for cell in cells:
            n_pos, n_neg = CELLS[cell]
            start = time.perf_counter()
            res = coverage_cell(criterion, n_pos, n_neg, reps, resamples,
                                seed=1000 * CRITERIA.index(criterion) + n_pos + n_neg)
            note = f"{time.perf_counter() - start:.0f} s"
            if res["unmet"]:
                note += f"; unmet on {res['unmet']}"
            if res["inf"]:
                note += f"; nothing positive on {res['inf']}"
            short = [int(u) for u in res["used"] if u < reps - res["unmet"]]
            if short:
                note += f"; a rate defined on {min(short)} only"
            for name in CONSTRUCTIONS:
                cov = " | ".join(_pct(v) for v in res["coverage"][name])
                print(f"| {criterion} | {cell} | {name} | {cov} | "
                      f"{note if name == 'new' else ''} |", flush=True)
    print()


def part_two(cells: list[str], reps: int) -> None:
    print(f"Part 2: the guarantee (0.95), {reps} data sets per cell\n")
    print("| criterion | target | pos/neg | true rate meets target: plain | guarantee | "
          "theory | wrong threshold returned | none guaranteed | threshold shift | "
          "other rate: plain | guaranteed |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for criterion in ("min_recall", "max_fpr", "min_precision"):
        for cell in cells:
            n_pos, n_neg = CELLS[cell]
            g = guarantee_cell(criterion, n_pos, n_neg, reps,
                               seed=7000 + 1000 * CRITERIA.index(criterion) + n_pos + n_neg)
            other = "TNR" if criterion == "min_recall" else "TPR"

            def share(key: str) -> str:
                n = g[f"{key}_n"]
                return f"{_pct(g[f'{key}_met'] / n)} (of {n})" if n else "-"

            shift = f"{np.mean(g['shift']):+.3f}" if g["shift"] else "-"
            plain_other = f"{other} {np.mean(g['other_plain']):.3f}" if g["other_plain"] \
                else "-"
            safe_other = f"{np.mean(g['other_safe']):.3f}" if g["other_safe"] else "-"
            print(f"| {criterion} | {target_of(criterion, n_pos, n_neg)} | {cell} | "
                  f"{share('plain')} | {share('safe')} | "
                  f"{exact_guarantee(criterion, n_pos, n_neg)} | "
                  f"{_pct(g['safe_wrong'] / reps)} | {_pct(g['none'] / reps)} | "
                  f"{shift} | {plain_other} | {safe_other} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--criteria", default=",".join(CRITERIA))
    ap.add_argument("--cells", default=",".join(CELLS))
    ap.add_argument("--part", default="both", choices=["1", "2", "both"])
    args = ap.parse_args()
    criteria, cells = args.criteria.split(","), args.cells.split(",")
    if args.part in ("1", "both"):
        part_one(criteria, cells, args.reps, args.resamples)
    if args.part in ("2", "both"):
        part_two(cells, args.reps)


def render(log: str) -> list[Table]:
    """Part 1 (coverage) and part 2 (the guarantee) of a run's log, as printed."""
    names = {"criterion | pos/neg | construction": ("threshold_coverage",
             "Coverage (%) of the chosen threshold's true rates, 95% intervals"),
             "criterion | target | pos/neg": ("threshold_guarantee",
             "The guarantee (0.95): share (%) of data sets whose chosen threshold meets "
             "the target")}
    tables = []
    for header, *rows in markdown_tables(log):
        for start, (name, title) in names.items():
            if " | ".join(header).startswith(start):
                tables.append(Table(name, title, header, rows))
    return tables


if __name__ == "__main__":
    main()
