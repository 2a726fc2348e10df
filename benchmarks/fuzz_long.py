"""Long fuzz profile: every public scalar metric and every engine above them
(interval, compare_models, delong_test, mcnemar_test, permutation_test, cv_interval,
corrected_ttest, evaluate, stability_metrics), and the surfaces that touch files and
stores (streamed Parquet and Dask over hostile folders, the writers over FIFOs and links,
MLflow keys, ``dartboard report`` over hand-edited results: tests/_fuzz_files.py),
hostile cases until a time budget is spent. ``evaluate`` is drawn over its input
surfaces: labels, scores (probabilities, decision values, risk scores with
``threshold=``), labels with scores or probabilities, float32 probabilities, groups as
one column, a dict or a list of columns, weights; its reference is scikit-learn on the
labels and scores the documented rules give, and a plain loop over each group's rows.
``hostile_inputs`` hands evaluate, interval, compare_models and stability_metrics
inputs that must be refused by name (missing or mixed labels, NaN scores, lists as
labels or groups, probability rows off 1, negative weights, NA or 3-D rows for a
user's callable): an accepted one is a crash.

Usage: python benchmarks/fuzz_long.py [SECONDS_PER_FUNCTION] [MAX_CASES] [SEED] [NAMES]
(defaults 20, 5000, 0, every function; NAMES is a comma-separated subset)

The cases and rules are those of tests/test_fuzz.py and tests/test_fuzz_engines.py
(tests/_fuzz.py, tests/_fuzz_engines.py): containers (list, numpy, read-only,
Fortran column, strided, masked without a mask, pandas, polars, pyarrow), dtypes,
scales 1e-200 and 1e200, labels moved beyond 2**62, below zero or beyond the int64
range, weights up to 2**60, denormal (1e-321) or near 1e300. Per function the table
prints the examples run and how they ended: ``crash`` (an exception other than a deliberate ValueError/TypeError),
``mutated`` (an input changed), ``differs`` (another number for the same values in
another container, or an accepted value refused in one container), ``reference``
(the plain answer disagrees with scikit-learn, SciPy, statsmodels or a plain-loop
oracle) and ``known`` (a defect already pinned by a strict xfail test). Exit code 1
on any crash, mutation, difference or disagreement that is not known.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _fuzz import (  # noqa: E402
    CONTAINERS,
    DTYPES,
    WEIGHTS,
    make_data,
    relabel,
    run_case,
    sklearn_agrees,
    weights,
)
from _fuzz_engines import CONTAINERS as ENGINE_CONTAINERS  # noqa: E402
from _fuzz_engines import ENGINES, Case, known_defect, run_engine  # noqa: E402
from _fuzz_files import SURFACES, run_surface  # noqa: E402

from dartboard.metrics._registry import specs  # noqa: E402

FAILURES = ("crash", "mutated", "differs", "reference")
COLUMNS = ("examples", "ok", "refused", "refused by both", "skip", *FAILURES, "known")
LABELS = ("none", "big", "negative", "huge")

#: metrics whose input is a 2-D relevance or indicator matrix (or a monotone x):
#: the 1-D cases below do not apply (tests/test_hostile_inputs.py walks them)
TWO_D = {"ndcg_score", "dcg_score", "label_ranking_average_precision_score",
         "label_ranking_loss", "coverage_error", "auc"}
#: keywords a metric needs beyond the data
NEEDS = {"fbeta_score": {"beta": 2.0}}


class _Metric:
    """A registry spec with the keywords its cases need bound in."""

    def __init__(self, spec: Any) -> None:
        self._spec = spec
        self.function = partial(spec.function, **NEEDS.get(spec.name, {}))
        # metrics that no evaluation reports take positive values (log errors,
        # Poisson and Gamma deviances are undefined at or below zero)
        self.positive = spec.input == "values" and not spec.tasks

    def __getattr__(self, name: str) -> Any:
        return getattr(self._spec, name)


def metric_case(metric: _Metric, rng: np.random.Generator) -> tuple[str, str, bool, str]:
    n_classes = int(rng.integers(2, 5))
    y, other = make_data(metric, rng, max(int(rng.integers(1, 41)), n_classes), n_classes)
    if metric.positive:
        y, other = np.abs(y) + 0.5, np.abs(other) + 0.5
    labels = str(rng.choice(LABELS))
    w = weights(y.shape[0], str(rng.choice(WEIGHTS)), rng)
    container, dtype = str(rng.choice(CONTAINERS)), str(rng.choice(DTYPES))
    outcome, where = run_case(metric, y, other, container, dtype,
                              float(rng.choice([1.0, 1e-200, 1e200])), labels, w)
    if outcome == "refused" and dtype != "object":
        outcome = "differs"  # an accepted kind of value refused in one container
    agrees, why = sklearn_agrees(metric, relabel(y, labels), relabel(other, labels)
                                 if metric.input == "labels" else other, w)
    return outcome, where, agrees, why


def engine_case(name: str, rng: np.random.Generator) -> tuple[str, str, bool, str]:
    case = Case(int(rng.integers(1, 41)), int(rng.integers(2, 5)),
                str(rng.choice(ENGINE_CONTAINERS)), str(rng.choice(DTYPES)),
                float(rng.choice([1.0, 1e-200, 1e200])), int(rng.integers(2**32)),
                str(rng.choice(LABELS)), str(rng.choice(WEIGHTS)))
    outcome, where, disagreement = run_engine(ENGINES[name], case)
    if outcome == "refused" and case.dtype != "object":
        outcome = "differs"
    return outcome, where, disagreement is None, disagreement or ""


def surface_case(name: str, rng: np.random.Generator) -> tuple[str, str, bool, str]:
    """A case of a file or store surface (tests/_fuzz_files.py); its oracle is part
    of the outcome ("differs" when the answer is not the oracle's)."""
    outcome, where = run_surface(name, rng)
    return outcome, where, True, ""


def main(argv: list[str]) -> int:
    seconds = float(argv[1]) if len(argv) > 1 else 20.0
    max_cases = int(argv[2]) if len(argv) > 2 else 5000
    rng = np.random.default_rng(int(argv[3]) if len(argv) > 3 else 0)
    functions: list[tuple[str, Any]] = [
        (s.name, partial(metric_case, _Metric(s))) for s in specs()
        if s.scalar and s.name not in TWO_D]
    functions += [(name, partial(engine_case, name)) for name in ENGINES]
    functions += [(name, partial(surface_case, name)) for name in SURFACES]
    if len(argv) > 4:
        chosen = set(argv[4].split(","))
        functions = [(name, run) for name, run in functions if name in chosen]
    print(f"{'function':40s}" + "".join(f"{c:>10s}" for c in
                                         (c.replace("refused by both", "by both")
                                          for c in COLUMNS)), flush=True)
    totals: Counter = Counter()
    first: list[str] = []
    for name, run in functions:
        counts: Counter = Counter()
        start = time.perf_counter()
        while counts["examples"] < max_cases and time.perf_counter() - start < seconds:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                outcome, where, agrees, why = run(rng)
            counts["examples"] += 1
            if known_defect(where if outcome in ("crash", "differs") else None) \
                    or known_defect(why):
                counts["known"] += 1
                continue
            counts[outcome] += 1
            if not agrees:
                counts["reference"] += 1
            if (outcome in FAILURES or not agrees) and len(first) < 40 \
                    and sum(line.startswith(name) for line in first) < 2:
                first.append(f"{name}: " + (why if not agrees and outcome not in FAILURES
                                            else where))
        totals.update(counts)
        print(f"{name:40s}" + "".join(f"{counts[c]:10d}" for c in COLUMNS), flush=True)
    print(f"{'all':40s}" + "".join(f"{totals[c]:10d}" for c in COLUMNS))
    for line in first:
        print("failure:", line[:400])
    return 1 if any(totals[c] for c in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
