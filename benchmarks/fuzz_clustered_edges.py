"""Long run of the clustered-edges property (tests/test_clustered_edges.py,
``test_clustered_grouped_evaluation_holds_its_contract``) over many more random data
sets than the test suite draws: 1 to 200 clusters, 1 to 4 groups, one-class groups and
clusters, every label right, every label wrong or 70% right. Each case must give, per
row and per group, scikit-learn's value on the group's rows, ordered finite intervals of
positive width where an interval is given, ``effective_n <= n``, and working views; the
only refusal allowed is the documented one of a single cluster.

Usage: python benchmarks/fuzz_clustered_edges.py [CASES] [SEED]   (defaults 150, 1)
Prints each failing case and, last, ``cases N fails F``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import test_clustered_edges as edges  # noqa: E402


def main(cases: int = 150, seed: int = 1) -> int:
    check = edges.test_clustered_grouped_evaluation_holds_its_contract.hypothesis.inner_test
    rng = np.random.default_rng(seed)
    fails = 0
    for _ in range(cases):
        few, many = int(rng.integers(1, 12)), int(rng.integers(13, 200))
        case = dict(seed=int(rng.integers(0, 2**31 - 1)), n=int(rng.integers(6, 240)),
                    n_clusters=few if rng.random() < 0.5 else many,
                    n_groups=int(rng.integers(1, 5)),
                    accuracy=str(rng.choice(["all correct", "all wrong", "mixed"])),
                    one_class_group=bool(rng.integers(0, 2)),
                    one_class_cluster=bool(rng.integers(0, 2)))
        try:
            check(**case)
        except Exception as exc:  # a failure is reported with its case, then the run goes on
            fails += 1
            print("FAIL", case, type(exc).__name__, str(exc)[:300], flush=True)
    print(f"cases {cases} fails {fails}")
    return 1 if fails else 0


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    sys.exit(main(*args))
