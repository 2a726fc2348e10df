"""Benchmark: bootstrap intervals of dartboard against confidenceinterval and scipy.

1. 95% BCa interval of F1, 10,000 resamples, n = 1,000,000 (target: under 1 s).
2. The same interval at n = 100,000 with 1,000 resamples: dartboard, the
   ``confidenceinterval`` package (``f1_score(..., method="bootstrap_...")``) and
   ``scipy.stats.bootstrap`` over ``sklearn.metrics.f1_score``; per-resample time
   ratios (target: at least 1000x). The peers resample indices and call the metric
   once per resample; their BCa adds a jackknife of n more metric calls, so by
   default the peers run the percentile method and the BCa cost is extrapolated
   from the measured time of one metric call (``--peer-bca`` runs it for real).
3. Bootstrap (BCa) interval of ROC AUC, 2,000 resamples, n = 1,000,000 (target:
   under 20 s).

Usage: python benchmarks/bench_intervals.py [--n-large 1000000] [--n-peer 100000]
       [--resamples 10000] [--peer-resamples 1000] [--auc-resamples 2000] [--peer-bca]
"""

from __future__ import annotations

import argparse
import re

import numpy as np
from _results import Table
from _timing import best_time


def binary_data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.8, y, 1 - y)
    s = rng.normal(size=n) + y
    return y, p, s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-large", type=int, default=1_000_000)
    ap.add_argument("--n-peer", type=int, default=100_000)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--peer-resamples", type=int, default=1_000)
    ap.add_argument("--auc-resamples", type=int, default=2_000)
    ap.add_argument("--peer-bca", action="store_true")
    args = ap.parse_args()

    import dartboard as db
    from dartboard.metrics import f1_score, roc_auc_score

    rows = []
    print("dartboard interval benchmark (timings on this machine; best of the runs)\n")

    # 1. BCa of F1 at n_large
    y, p, s = binary_data(args.n_large)
    db.interval(f1_score, y[:1000], p[:1000], n_resamples=10, random_state=0)  # warm up
    t1, iv1 = best_time(lambda: db.interval(f1_score, y, p, method="bca",
                                        n_resamples=args.resamples, random_state=0), 3)
    rows.append((f"F1 BCa, n={args.n_large:,}, R={args.resamples:,}", t1, "< 1 s",
                 t1 < 1.0, f"[{iv1.low:.5f}, {iv1.high:.5f}]"))

    # 2. peers at n_peer
    from confidenceinterval import f1_score as ci_f1
    from scipy import stats
    from sklearn.metrics import f1_score as sk_f1

    yq, pq, _ = binary_data(args.n_peer, seed=1)
    r_peer = args.peer_resamples
    peer_method = "bca" if args.peer_bca else "percentile"
    t_db, iv_db = best_time(lambda: db.interval(f1_score, yq, pq, method="bca",
                                            n_resamples=r_peer, random_state=0), 3)
    t_call, _ = best_time(lambda: sk_f1(yq, pq), 5)
    t_ci, res_ci = best_time(lambda: ci_f1(list(yq), list(pq), method=f"bootstrap_{peer_method}",
                                       n_resamples=r_peer, random_state=0, average="binary"))
    t_sp, res_sp = best_time(lambda: stats.bootstrap(
        (np.arange(args.n_peer),), lambda i: sk_f1(yq[i], pq[i]), n_resamples=r_peer,
        method=peer_method, vectorized=False, random_state=0))
    # a BCa jackknife of the peers costs n metric calls on n - 1 rows
    extra = 0.0 if args.peer_bca else args.n_peer * t_call
    per_db = t_db / r_peer
    ci_low, ci_high = res_ci[1]
    sp_low, sp_high = res_sp.confidence_interval
    agree = (abs(ci_low - iv_db.low) < 0.2 * iv_db.standard_error + 1e-3
             and abs(sp_high - iv_db.high) < 0.2 * iv_db.standard_error + 1e-3)
    print(f"[2] n={args.n_peer:,}, R={r_peer:,}: one sklearn f1 call takes {t_call * 1e3:.2f} ms")
    print(f"    dartboard BCa           {t_db:9.3f} s  {per_db * 1e6:9.2f} us/resample  "
          f"[{iv_db.low:.5f}, {iv_db.high:.5f}]")
    for name, t, low, high in (("confidenceinterval", t_ci, ci_low, ci_high),
                               ("scipy.stats.bootstrap", t_sp, sp_low, sp_high)):
        per = t / r_peer
        print(f"    {name:<22}  {t:9.3f} s  {per * 1e6:9.2f} us/resample  [{low:.5f}, {high:.5f}]"
              f"  ({peer_method}) -> ratio {per / per_db:,.0f}x per resample")
        if extra:
            print(f"    {'':<22}  + BCa jackknife ~{extra:,.0f} s (n x one call): "
                  f"ratio incl. jackknife {(t + extra) / t_db:,.0f}x")
        rows.append((f"{name} vs dartboard per resample, n={args.n_peer:,}", per / per_db,
                     ">= 1000x", per / per_db >= 1000, f"[{low:.5f}, {high:.5f}]"))
    print(f"    intervals agree within Monte-Carlo error: {agree}\n")

    # 3. AUC bootstrap at n_large
    t3, iv3 = best_time(lambda: db.interval(roc_auc_score, y, s, method="bca",
                                        n_resamples=args.auc_resamples, random_state=0))
    dl = db.interval(roc_auc_score, y, s, method="delong")
    rows.append((f"ROC AUC BCa, n={args.n_large:,}, R={args.auc_resamples:,}", t3, "< 20 s",
                 t3 < 20.0, f"[{iv3.low:.5f}, {iv3.high:.5f}] (DeLong [{dl.low:.5f}, "
                 f"{dl.high:.5f}])"))

    print(f"{'case':<52} {'value':>12}  {'target':<9} {'met':<5} interval")
    for case, value, target, met, text in rows:
        shown = f"{value:,.0f}x" if target.endswith("x") else f"{value:.3f} s"
        print(f"{case:<52} {shown:>12}  {target:<9} {str(met):<5} {text}")


_ROW = re.compile(r"^(.*?)\s+(\S+ s|\S+x)\s+(< \S+ s|>= \S+)\s+(True|False)\s+(\[.*)$")


def render(log: str) -> list[Table]:
    """The summary table of a run's log, with the peers' lines as notes."""
    lines = log.splitlines()
    rows = [list(m.groups()) for m in map(_ROW.match, lines) if m]
    notes = [line.strip() for line in lines
             if line.startswith("[2]") or "intervals agree" in line or "jackknife" in line]
    return [Table("speed_intervals", "Bootstrap intervals: dartboard against "
                  "confidenceinterval and scipy.stats.bootstrap",
                  ["case", "value", "target", "met", "interval"], rows, notes)]


if __name__ == "__main__":
    main()
