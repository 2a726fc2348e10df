"""Simulation (not in CI): bias of the debiased l2 calibration error against the plain
one, and coverage of the 95% interval of ECE, on synthetic models whose true binned
calibration error is known.

Models. Confidences ``p ~ Uniform(0, 1)``; outcomes ``y ~ Bernoulli(q(p))`` with
``q(p) = p`` (perfectly calibrated) or ``q(p) = p ** 2`` (miscalibrated: the model
over-forecasts). With 15 equal-width bins the population quantities are integrals
over each bin (computed here by fine quadrature): with ``c_b`` = E[p | b] and
``o_b`` = E[q(p) | b], ECE = sum_b P(b) |o_b - c_b| and l2 = sqrt(sum_b P(b) (o_b - c_b)^2).

Also the bootstrap interval's containment of its own estimate (the share of raw
``basic`` intervals that excluded it, before ``interval`` widens them to contain it),
and the type I error and power of :func:`dartboard.calibration_test` (consistency
resampling) at alpha = 0.05: under perfect calibration with continuous forecasts
(the test's bin-level draws are then conservative) and with forecasts at the 15 bin
centres (one value per bin: exact draws), and its power against ``q(p) = p ** 2`` and the mild
``q(p) = p ** 1.25``.

Run: ``python benchmarks/calibration_simulation_ece.py [--quick] [--reps N]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dartboard import calibration_test
from dartboard.metrics import CalibrationState, calibration_error
from dartboard.uncertainty import interval_from_calibration_state

N_BINS = 15
MODELS = {"calibrated": lambda p: p, "miscalibrated": lambda p: p**2}


def population(q, n_bins=N_BINS):
    """(ECE, l2) of the model with fixed equal-width bins, by quadrature."""
    ece = sq = 0.0
    for b in range(n_bins):
        grid = np.linspace(b / n_bins, (b + 1) / n_bins, 20_001)
        c, o = grid.mean(), q(grid).mean()
        ece += abs(o - c) / n_bins
        sq += (o - c) ** 2 / n_bins
    return ece, np.sqrt(sq)


def draw(rng, n, q):
    p = rng.random(n)
    return (rng.random(n) < q(p)).astype(np.int8), p


def bias_table(sizes, reps, rng):
    print(f"\nBias of the l2 calibration error ({reps} data sets per cell; truth by "
          "quadrature)")
    print(f"{'model':<14}{'n':>8}{'true l2':>10}{'plain':>10}{'debiased':>10}"
          f"{'bias plain':>12}{'bias debiased':>15}")
    for name, q in MODELS.items():
        truth = population(q)[1]
        for n in sizes:
            plain, debiased = np.empty(reps), np.empty(reps)
            for r in range(reps):
                y, p = draw(rng, n, q)
                plain[r] = calibration_error(y, p, norm="l2", n_bins=N_BINS)
                debiased[r] = calibration_error(y, p, norm="l2", debiased=True,
                                                n_bins=N_BINS)
            print(f"{name:<14}{n:>8}{truth:>10.4f}{plain.mean():>10.4f}"
                  f"{debiased.mean():>10.4f}{plain.mean() - truth:>12.4f}"
                  f"{debiased.mean() - truth:>15.4f}")


def coverage_table(sizes, reps, n_resamples, rng, methods=("percentile", "basic", "bca")):
    print(f"\nCoverage of the 95% interval of ECE (l1; {reps} data sets per cell, "
          f"{n_resamples} bin-level resamples each)")
    print("(every interval contains its estimate; 'raw basic' is the basic interval before "
          "that, 'excl.' the share of raw basic intervals that excluded the estimate)")
    print(f"{'model':<14}{'n':>8}{'true ECE':>10}{'mean est':>10}"
          + "".join(f"{m:>12}" for m in methods) + f"{'raw basic':>11}{'excl.':>8}"
          + f"{'width':>9}")
    for name, q in MODELS.items():
        truth = population(q)[0]
        for n in sizes:
            hits = {m: 0 for m in methods}
            raw_hits = raw_excluded = 0
            est, width = np.empty(reps), np.empty(reps)
            for r in range(reps):
                y, p = draw(rng, n, q)
                state = CalibrationState(N_BINS).update(y, p, pos_label=1)
                for m in methods:
                    iv = interval_from_calibration_state(state, method=m,
                                                         n_resamples=n_resamples,
                                                         random_state=rng)
                    hits[m] += iv.low <= truth <= iv.high
                    if m == "basic":
                        width[r] = iv.high - iv.low
                        q_lo, q_hi = np.quantile(iv.bootstrap_distribution, [0.025, 0.975])
                        raw = (max(0.0, 2 * iv.estimate - q_hi), 2 * iv.estimate - q_lo)
                        raw_hits += raw[0] <= truth <= raw[1]
                        raw_excluded += not raw[0] <= iv.estimate <= raw[1]
                est[r] = iv.estimate
            print(f"{name:<14}{n:>8}{truth:>10.4f}{est.mean():>10.4f}"
                  + "".join(f"{hits[m] / reps:>12.3f}" for m in methods)
                  + f"{raw_hits / reps:>11.3f}{raw_excluded / reps:>8.3f}"
                  + f"{width.mean():>9.4f}")


TEST_MODELS = {
    "calibrated": (lambda p: p, False),
    "calibrated, bin centres": (lambda p: p, True),
    "q = p^1.25": (lambda p: p**1.25, False),
    "q = p^2": (lambda p: p**2, False),
}


def test_table(sizes, reps, n_resamples, rng, alpha=0.05):
    print(f"\ncalibration_test (consistency resampling, {n_resamples} resamples): share of "
          f"p < {alpha} over {reps} data sets per cell (type I error on the calibrated "
          f"rows, power below; Monte-Carlo s.e. near 0.05: {np.sqrt(0.05 * 0.95 / reps):.3f})")
    print(f"{'model':<24}" + "".join(f"{'n=' + format(n, ','):>12}" for n in sizes)
          + f"{'exact bins':>12}")
    for name, (q, grid) in TEST_MODELS.items():
        rates, exact = [], True
        for n in sizes:
            rejected = 0
            for _ in range(reps):
                p = rng.random(n)
                if grid:
                    p = (np.floor(p * N_BINS) + 0.5) / N_BINS
                y = rng.random(n) < q(p)
                res = calibration_test(y, p, n_bins=N_BINS, n_resamples=n_resamples,
                                       random_state=rng)
                rejected += res.pvalue < alpha
                exact &= res.details["exact_bins"]
            rates.append(rejected / reps)
        print(f"{name:<24}" + "".join(f"{r:>12.3f}" for r in rates) + f"{str(exact):>12}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reps", type=int, default=None,
                        help="data sets per cell (default 200, 40 with --quick)")
    args = parser.parse_args()
    reps = args.reps or (40 if args.quick else 200)
    rng = np.random.default_rng(2019)
    sizes = [100, 1_000, 10_000, 100_000]
    start = time.perf_counter()
    import warnings

    warnings.simplefilter("ignore")  # BCa fallbacks are counted in the table, not printed
    bias_table(sizes, reps, rng)
    coverage_table(sizes, reps, 500 if args.quick else 1000, rng)
    test_table(sizes, reps, 199 if args.quick else 999, rng)
    print(f"\n(total {time.perf_counter() - start:.1f} s, under load)")


if __name__ == "__main__":
    main()
