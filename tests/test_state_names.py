"""The public mergeable states compute every metric of their table by any name the
metric registry gives it (its function name, its label, a scorer-style name with
keywords): a walk over the registry's aliases, each against the metric function on
the same rows."""

from __future__ import annotations

import numpy as np
import pytest

import dartboard.metrics as dm
from dartboard.metrics._calibration import CalibrationState
from dartboard.metrics._ranking import _FROM_STATE, ScoreState
from dartboard.metrics._registry import _aliases
from dartboard.metrics._regression import _FROM_MOMENTS, RegressionMoments

RNG = np.random.default_rng(0)
Y = RNG.integers(0, 2, 300)
S = np.clip(0.3 * Y + 0.7 * RNG.random(300), 0.01, 0.99)
T = RNG.normal(size=300)
P = T + RNG.normal(scale=0.5, size=300)

STATES = {
    "scores": (ScoreState().update(Y, S), set(_FROM_STATE), (Y, S)),
    "regression": (RegressionMoments().update(T, P), set(_FROM_MOMENTS), (T, P)),
    "calibration": (CalibrationState().update(Y, S), {"calibration_error"}, (Y, S)),
}


def _names():
    out = []
    for kind, (_, table, _) in STATES.items():
        for alias, (spec, kw) in _aliases().items():
            if spec.name in table and not kw and not spec.name.endswith("_curve"):
                out.append((kind, alias, spec.name))
    return out


@pytest.mark.parametrize(("kind", "alias", "name"), _names())
def test_every_registry_name_of_a_state_metric_computes_it(kind, alias, name):
    state, _, rows = STATES[kind]
    want = getattr(dm, name)(*rows)
    assert state.compute(alias) == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert state.compute(name) == state.compute(alias)


def test_the_walk_covers_each_states_labels():
    # labels that are not function names, so the walk is not the names alone
    found = {alias for _, alias, name in _names() if alias != name}
    assert {"roc_auc", "average_precision", "pr_auc", "r2", "explained_variance", "ece"} <= found


def test_a_name_outside_the_state_says_what_it_takes():
    with pytest.raises(ValueError, match=r"metric must be one of \['average_precision_score'"):
        STATES["scores"][0].compute("log_loss")
