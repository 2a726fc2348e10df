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


def _engine_case(case):
    n, n_classes, container, dtype, scale, seed, labels, how = case
    rng = np.random.default_rng(seed)
    spec = METRICS[int(rng.integers(len(METRICS)))]
    y, other = make_data(spec, rng, max(n, n_classes, 4), n_classes)
    return spec, y, other, container, dtype, labels, weights(y.shape[0], how, rng)


def _same_numbers(plain, variant):
    return all(np.isclose(a, b, rtol=1e-9, equal_nan=True) for a, b in zip(plain, variant))


@pytest.mark.parametrize("engine", ["interval", "compare_models"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases)
def test_fuzz_interval_and_comparison(engine, case):
    # the engines over the metrics: same answer in every container, inputs untouched,
    # a ValueError/TypeError naming the argument or a result, never another exception
    from _fuzz import _cast, call, wrap

    import dartboard as db

    spec, y, other, container, dtype, labels, w = _engine_case(case)
    y = relabel(y, labels)
    if spec.input == "labels":
        other = relabel(other, labels)
    kw = dict(spec.multiclass) if len(np.unique(y)) > 2 else {}
    if w is not None and "sample_weight" in __import__("inspect").signature(
            spec.function).parameters:
        kw["sample_weight"] = w

    def run(yy, oo):
        if engine == "interval":
            res = db.interval(spec.function, yy, oo, n_resamples=60, random_state=0, **kw)
            return (res.estimate, res.low, res.high)
        shifted = other[::-1].copy()
        res = db.compare_models(spec.function, yy, oo, wrap(shifted, container)
                                if not isinstance(oo, np.ndarray) else shifted,
                                n_resamples=60, random_state=0, **kw)
        return (res.difference, res.pvalue)

    plain_status, plain = call(lambda: float(np.sum(run(y, other))))
    if plain_status == "crash":
        raise AssertionError(f"{engine}({spec.name}) on plain numpy: {plain!r}")
    cy = _cast(y, dtype) if spec.input != "values" else y
    co = _cast(other, dtype) if spec.input == "labels" else other
    if cy is None or co is None:
        return
    try:
        ty, to = wrap(cy, container), wrap(co, container)
    except (OverflowError, TypeError, ValueError):
        return
    before = [np.copy(a) if isinstance(a, np.ndarray) else None for a in (ty, to)]
    status, value = call(lambda: float(np.sum(run(ty, to))))
    assert status != "crash", f"{engine}({spec.name}, {container}, {dtype}): {value!r}"
    for b, a in zip(before, (ty, to)):
        if b is not None:
            assert np.array_equal(b, a), f"{engine}({spec.name}) changed its input"
    if status == "ok" and plain_status == "ok":
        assert np.isclose(value, plain, rtol=1e-6, equal_nan=True), (engine, spec.name,
                                                                      value, plain)
