"""Error bars for LLM benchmarks: read the files lm-evaluation-harness, Inspect and
HELM write, and give clustered intervals, paired comparisons and sample sizes.

- :func:`load` (a samples file, an Inspect log, HELM per-instance stats, a plain
  table) -> :class:`Run`, one row per (question, answer);
- :func:`interval` (run) -> :class:`EvalInterval`: the mean with naive and clustered
  standard errors, the design effect and what more answers per question would buy;
- :func:`compare` (run_a, run_b, ...) -> :class:`EvalComparison` (two runs, paired on
  the questions) or :class:`EvalKComparison` (k runs, max-T over every pair);
- :func:`sample_size` (difference, pilot=...) -> :class:`SampleSizePlan`.
"""

from dartboard.evals._compare import EvalComparison, EvalKComparison, compare
from dartboard.evals._interval import EvalInterval, interval
from dartboard.evals._load import load
from dartboard.evals._plan import SampleSizePlan, sample_size
from dartboard.evals._run import Run

__all__ = ["EvalComparison", "EvalInterval", "EvalKComparison", "Run", "SampleSizePlan",
           "compare", "interval", "load", "sample_size"]
