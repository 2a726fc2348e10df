"""Fuzz every evaluation metric with hostile containers, dtypes, layouts and scales.

A small profile runs in the default suite; ``pytest -m slow`` runs many more examples,
and ``python benchmarks/fuzz_profile.py N`` counts the outcomes of N cases per metric.
The rules (see tests/_fuzz.py): a number equal to the plain numpy answer, or a
ValueError/TypeError; never another exception, never a changed input, never a
different number for the same values in another container.
"""

from __future__ import annotations

import numpy as np
import pytest
from _fuzz import (
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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

cases = st.tuples(st.integers(1, 40), st.integers(2, 4), st.sampled_from(CONTAINERS),
                  st.sampled_from(DTYPES), st.sampled_from([1.0, 1e-200, 1e200]),
                  st.integers(0, 2**32 - 1), st.sampled_from(["none", "big", "negative", "huge"]),
                  st.sampled_from(WEIGHTS))


def check(spec, case):
    n, n_classes, container, dtype, scale, seed, labels, how = case
    rng = np.random.default_rng(seed)
    y, other = make_data(spec, rng, max(n, n_classes), n_classes)
    w = weights(y.shape[0], how, rng)
    outcome, where = run_case(spec, y, other, container, dtype, scale, labels, w)
    assert outcome not in ("crash", "mutated", "differs"), where
    if outcome == "refused":
        # an accepted kind of value must be accepted in every container; object arrays
        # of numbers may be refused (scikit-learn refuses them as labels too)
        assert dtype == "object", where
    agrees, why = sklearn_agrees(spec, relabel(y, labels), relabel(other, labels)
                                 if spec.input == "labels" else other, w)
    assert agrees, why


@pytest.mark.parametrize("spec", METRICS, ids=lambda s: s.name)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases)
def test_fuzz_metric(spec, case):
    check(spec, case)


@pytest.mark.slow
@pytest.mark.parametrize("spec", METRICS, ids=lambda s: s.name)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases)
def test_fuzz_metric_long(spec, case):
    check(spec, case)
