"""Long fuzz profile: N hostile cases per evaluation metric, outcomes counted.

Usage: python benchmarks/fuzz_profile.py [N_PER_METRIC] [SEED]   (defaults 2000, 0)

Each case draws a metric's kind of data (1-40 rows, 2-4 classes), a container (list,
numpy, read-only, Fortran column, strided view, masked array without a mask, pandas,
polars, pyarrow), a dtype (narrow, unsigned, float16/32/64, bool, object), a scale
(1, 1e-200, 1e200 for scores and values), labels moved beyond 2**62, below zero or
beyond the int64 range (uint64 ids), and weights (none, integers, floats, 2**60
each). The rules are those of tests/test_fuzz.py (see tests/_fuzz.py): a crash, a
changed input, another number for the same values in another container, or a number
other than scikit-learn's is a failure; a ValueError/TypeError naming the argument is
a refusal. The table counts each outcome per metric; exit code 1 on any failure.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _fuzz import (  # noqa: E402
    CONTAINERS,
    DTYPES,
    METRICS,
    WEIGHTS,
    make_data,
    relabel,
    run_case,
    sklearn_agrees,
    weights,
)

FAILURES = ("crash", "mutated", "differs", "sklearn")


def main(argv: list[str]) -> int:
    n_cases = int(argv[1]) if len(argv) > 1 else 2000
    rng = np.random.default_rng(int(argv[2]) if len(argv) > 2 else 0)
    columns = ("ok", "refused", "refused by both", "skip", *FAILURES)
    print(f"{'metric':34s}" + "".join(f"{c:>16s}" for c in columns))
    totals: Counter = Counter()
    first: list[str] = []
    for spec in METRICS:
        counts: Counter = Counter()
        for _ in range(n_cases):
            n_classes = int(rng.integers(2, 5))
            y, other = make_data(spec, rng, max(int(rng.integers(1, 41)), n_classes), n_classes)
            labels = str(rng.choice(["none", "big", "negative", "huge"]))
            w = weights(y.shape[0], str(rng.choice(WEIGHTS)), rng)
            outcome, where = run_case(spec, y, other, str(rng.choice(CONTAINERS)),
                                      str(rng.choice(DTYPES)),
                                      float(rng.choice([1.0, 1e-200, 1e200])), labels, w)
            if outcome == "refused" and "object" not in where:
                outcome = "crash"  # an accepted kind of value refused in one container
            counts[outcome] += 1
            agrees, why = sklearn_agrees(spec, relabel(y, labels), relabel(other, labels)
                                         if spec.input == "labels" else other, w)
            if not agrees:
                counts["sklearn"] += 1
                where = why
            if (outcome in FAILURES or not agrees) and len(first) < 10:
                first.append(where)
        totals.update(counts)
        print(f"{spec.name:34s}" + "".join(f"{counts[c]:16d}" for c in columns))
    print(f"{'all':34s}" + "".join(f"{totals[c]:16d}" for c in columns))
    for line in first:
        print("failure:", line)
    return 1 if any(totals[c] for c in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
