"""What a progress bar costs when it is not shown (the default off a terminal, and
``progress=False``): the per-advance cost of ``dartboard._progress.Bar``, and a grouped
evaluation with its gaps with ``progress=False`` against the default.

Run: ``python benchmarks/progress_overhead.py`` (standard error not a terminal, e.g.
``2>/dev/null``, or a terminal: the default then shows bars only after a second).
"""

from __future__ import annotations

import time

import numpy as np

import dartboard
from dartboard._progress import Bar


def per_advance(n: int = 1_000_000) -> float:
    with Bar(n, "overhead", progress=False) as bar:
        start = time.perf_counter()
        for _ in range(n):
            bar.advance()
        return (time.perf_counter() - start) / n


def grouped(progress: bool | None, n: int = 100_000) -> float:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    s = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    g = rng.choice(list("abcde"), n)
    start = time.perf_counter()
    ev = dartboard.evaluate(y, y_score=s, groups=g, metrics=["accuracy", "roc_auc"],
                            n_resamples=500, random_state=0, progress=progress)
    ev.difference(progress=progress)
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"Bar.advance when not shown: {per_advance() * 1e9:.0f} ns per call")
    grouped(False)  # warm the imports
    for progress in (False, None, False, None):
        print(f"evaluate + difference, 100,000 rows, 5 groups, 500 resamples, "
              f"progress={progress}: {grouped(progress):.2f} s")
