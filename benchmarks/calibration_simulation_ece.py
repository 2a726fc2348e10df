"""Simulation (not in CI): bias of the debiased l2 calibration error against the plain
one, coverage of the 95% interval of ECE (the ``bin-pivot`` interval beside the old
``basic`` one), and the type I error and power of :func:`dartboard.calibration_test`, on
synthetic models whose true binned calibration error is known.

Models. Confidences ``p ~ Uniform(0, 1)``; outcomes ``y ~ Bernoulli(q(p))``:

- ``q(p) = p``: calibrated, true ECE 0;
- ``q(p) = p ** a``: over-forecasting, with ``a`` solved (Brent's method) for a true
  ECE of 0.020, and ``a = 1.25`` (0.056) and ``a = 2`` (0.167);
- ``q(p) = expit(k logit(p))``: a crossing miscalibration (over-confident: too high
  above 0.5, too low below), ``k`` solved for the true ECE of ``p ** 1.25``.

The truth. The binned ECE of the population with the same 15 equal-width bins
``[b/15, (b+1)/15)`` as the estimate: with ``P(b)`` the probability of bin ``b``
under the score distribution, ``c_b = E[p | b]`` and ``o_b = E[q(p) | b]``,
ECE = sum_b P(b) |o_b - c_b| and l2 = sqrt(sum_b P(b) (o_b - c_b)^2). For uniform
scores ``P(b) = 1/15`` and ``c_b`` is the bin's midpoint; ``o_b`` is the integral of
``q`` over the bin (``scipy.integrate.quad``, absolute error below 1e-10) divided
by its width. The estimate's own bins and ``c_b`` come from the data.

Coverage table: per cell, the share of data sets whose 95% interval contains the
truth, for ``basic`` (the old default) and ``bin-pivot`` (the new one), the
bin-pivot's misses below (truth under the interval) and above, the share of
bin-pivot intervals that are the one-sided ``[0, U]`` (calibration not rejected),
and mean widths.

Also the type I error and power of :func:`dartboard.calibration_test` (consistency
resampling) at alpha = 0.05: under perfect calibration with continuous forecasts
(the test's bin-level draws are then conservative) and with forecasts at the 15 bin
centres (one value per bin: exact draws), and its power against ``q(p) = p ** 2`` and the mild
``q(p) = p ** 1.25``.

Run: ``python benchmarks/calibration_simulation_ece.py [--quick] [--reps N]
[--tables bias,coverage,test]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _results import Table, output_lines
from scipy import integrate, optimize, special

from dartboard import calibration_test
from dartboard.metrics import CalibrationState, calibration_error
from dartboard.uncertainty import interval_from_calibration_state

N_BINS = 15


def population(q, n_bins=N_BINS):
    """(ECE, l2) of the model with fixed equal-width bins, by quadrature (module doc)."""
    ece = sq = 0.0
    for b in range(n_bins):
        low, high = b / n_bins, (b + 1) / n_bins
        o = integrate.quad(q, low, high, epsabs=1e-12)[0] / (high - low)
        c = (low + high) / 2.0
        ece += abs(o - c) / n_bins
        sq += (o - c) ** 2 / n_bins
    return ece, np.sqrt(sq)


def _power(a):
    return lambda p: p**a


def _crossing(k):
    return lambda p: special.expit(k * special.logit(np.clip(p, 1e-300, 1.0 - 1e-16)))


def _solve(family, target, low, high):
    return family(optimize.brentq(lambda x: population(family(x))[0] - target, low, high,
                                  xtol=1e-14))


MODELS = {"calibrated": lambda p: p, "miscalibrated": lambda p: p**2}
MILD = population(_power(1.25))[0]
COVERAGE_MODELS = {
    "calibrated": lambda p: p,
    "q = p^a (0.020)": _solve(_power, 0.02, 1.0001, 1.25),
    "q = p^1.25": _power(1.25),
    "crossing": _solve(_crossing, MILD, 0.3, 0.9999),
    "q = p^2": _power(2.0),
}


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


def coverage_table(sizes, reps, n_resamples, rng):
    print(f"\nCoverage of the 95% interval of ECE (l1, {N_BINS} bins; {reps} data sets per "
          f"cell, {n_resamples} bin-level resamples per world; Monte-Carlo s.e. near 0.95: "
          f"{np.sqrt(0.05 * 0.95 / reps):.3f})")
    print("basic: the old default (widened to contain its estimate); bin-pivot: the new "
          "one; below/above: bin-pivot intervals wholly below/above the truth; [0,U]: "
          "share one-sided (calibration not rejected)")
    print(f"{'model':<17}{'n':>7}{'true ECE':>10}{'mean est':>10}{'basic':>8}"
          f"{'bin-pivot':>11}{'below':>7}{'above':>7}{'[0,U]':>7}{'w basic':>9}"
          f"{'w pivot':>9}")
    for name, q in COVERAGE_MODELS.items():
        truth = population(q)[0]
        for n in sizes:
            est, cover, width = np.empty(reps), np.zeros((2, reps), bool), np.empty((2, reps))
            below = above = one_sided = 0
            for r in range(reps):
                y, p = draw(rng, n, q)
                state = CalibrationState(N_BINS).update(y, p, pos_label=1)
                for i, method in enumerate(("basic", "bin-pivot")):
                    iv = interval_from_calibration_state(state, method=method,
                                                         n_resamples=n_resamples,
                                                         random_state=rng)
                    cover[i, r] = iv.low <= truth <= iv.high
                    width[i, r] = iv.high - iv.low
                below += iv.high < truth
                above += iv.low > truth
                one_sided += iv.low == 0.0
                est[r] = iv.estimate
            print(f"{name:<17}{n:>7}{truth:>10.4f}{est.mean():>10.4f}"
                  f"{cover[0].mean():>8.3f}{cover[1].mean():>11.3f}{below / reps:>7.3f}"
                  f"{above / reps:>7.3f}{one_sided / reps:>7.3f}{width[0].mean():>9.4f}"
                  f"{width[1].mean():>9.4f}", flush=True)


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
                        help="data sets per cell (default 1000, 40 with --quick)")
    parser.add_argument("--tables", default="bias,coverage,test",
                        help="comma-separated subset of bias, coverage, test")
    args = parser.parse_args()
    reps = args.reps or (40 if args.quick else 1000)
    tables = set(args.tables.split(","))
    rng = np.random.default_rng(2019)
    sizes = [100, 1_000, 10_000, 100_000]
    start = time.perf_counter()
    import warnings

    warnings.simplefilter("ignore")  # degenerate-interval warnings at n = 100 are expected
    if "bias" in tables:
        bias_table(sizes, reps, rng)
    if "coverage" in tables:
        coverage_table(sizes[:3], reps, 500 if args.quick else 1000, rng)
    if "test" in tables:
        test_table(sizes, reps, 199 if args.quick else 999, rng)
    print(f"\n(total {time.perf_counter() - start:.1f} s, under load)")


def render(log: str) -> list[Table]:
    """The run's tables as printed (bias, coverage, calibration_test)."""
    return [Table("ece", "Calibration error: bias, interval coverage and calibration_test",
                  [], output_lines(log))]


if __name__ == "__main__":
    main()
