"""Speed of dartboard.evals at benchmark scale: 100,000 questions x 5 answers x 10 runs.

The script writes each run as a plain Parquet file (``question``, ``epoch``,
``passage``, ``score``: 500,000 rows; passages of 5 questions) or JSONL file, then
times, from the files: ``load`` of the ten runs, ``interval`` of each (clustered by
passage) and ``compare`` of all ten (45 pairs, max-T over 100,000 draws). The target
is under 10 s in all. Writing the files is not timed.

Usage: python benchmarks/bench_evals.py [parquet|jsonl] [questions] [answers] [runs]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from dartboard.evals import compare, interval, load

FORMAT = sys.argv[1] if len(sys.argv) > 1 else "parquet"
QUESTIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
ANSWERS = int(sys.argv[3]) if len(sys.argv) > 3 else 5
RUNS = int(sys.argv[4]) if len(sys.argv) > 4 else 10


def write(folder: Path) -> list[Path]:
    rng = np.random.default_rng(0)
    question = np.tile(np.arange(QUESTIONS), ANSWERS)
    ability = rng.normal(size=QUESTIONS)
    paths = []
    for j in range(RUNS):
        p = 1 / (1 + np.exp(-(ability + 0.05 * j + rng.normal(0, 0.5, QUESTIONS))))
        frame = pd.DataFrame({"question": question,
                              "epoch": np.arange(ANSWERS).repeat(QUESTIONS),
                              "passage": question // 5,
                              "score": (rng.random(question.shape[0]) < p[question]) * 1.0})
        path = folder / f"run{j}.{FORMAT}"
        if FORMAT == "parquet":
            frame.to_parquet(path, index=False)
        else:
            frame.to_json(path, orient="records", lines=True)
        paths.append(path)
    return paths


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = write(Path(tmp))
        start = time.perf_counter()
        runs = [load(path, cluster="passage") for path in paths]
        loaded = time.perf_counter()
        intervals = [interval(run) for run in runs]
        bounded = time.perf_counter()
        res = compare(*runs, random_state=0)
        done = time.perf_counter()
    print(f"{QUESTIONS:,} questions x {ANSWERS} answers x {RUNS} runs ({FORMAT}): "
          f"{RUNS * QUESTIONS * ANSWERS:,} rows")
    print(f"load        {loaded - start:6.2f} s")
    print(f"intervals   {bounded - loaded:6.2f} s")
    print(f"max-T       {done - bounded:6.2f} s  ({len(res.pairwise)} pairs, "
          f"{res.n_draws:,} draws)")
    print(f"total       {done - start:6.2f} s  (target: under 10 s)")
    print(f"first run: {intervals[0].estimate:.4f} [{intervals[0].low:.4f}, "
          f"{intervals[0].high:.4f}], design effect {intervals[0].design_effect:.2f}")


if __name__ == "__main__":
    main()
