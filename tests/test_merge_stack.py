"""How a stream merges its bundles (``evaluation._bundle.MergeStack``): bounded states
fold into one accumulator, growing ones wait and merge several at once, their merges
in a balanced tree, and all give the states of all the rows at once."""

import numpy as np
import pytest

from dartboard.evaluation._bundle import MergeStack, build_bundle, plan_metrics
from dartboard.evaluation._groups import encode_groups
from dartboard.families import Batch
from dartboard.metrics._registry import get_spec

NAMES = ("accuracy_score", "log_loss", "roc_auc_score", "calibration_error")


def _batch(rng, n, binned):
    y = rng.integers(0, 2, n)
    s = np.clip(0.3 * y + 0.7 * rng.random(n), 0.0, 1.0)
    inputs = {"labels": (s >= 0.5).astype(np.int64), "scores": s, "probabilities": s}
    approximate = {"score_bins": (1000, 0.0, 1.0)} if binned else {}
    return Batch(y, inputs, positive=1, classes=np.array([0, 1]), approximate=approximate), \
        rng.integers(0, 3, n)


def _bundles(binned, sizes=(300, 500, 200, 400, 100)):
    rng = np.random.default_rng(0)
    batches = [_batch(rng, n, binned) for n in sizes]
    planned = plan_metrics([(name, get_spec(name), {}) for name in NAMES])
    parts = [build_bundle(b, planned, encode_groups({"g": g}, g.shape[0])) for b, g in batches]
    whole = Batch(np.concatenate([b.y_true for b, _ in batches]),
                  {k: np.concatenate([b.inputs[k] for b, _ in batches])
                   for k in batches[0][0].inputs},
                  positive=1, classes=np.array([0, 1]),
                  approximate=batches[0][0].approximate)
    groups = np.concatenate([g for _, g in batches])
    return planned, parts, build_bundle(whole, planned, encode_groups({"g": groups},
                                                                      groups.shape[0]))


@pytest.mark.parametrize("at_once, stacked, waiting", [(1, 2, 0), (2, 1, 1), (16, 0, 5)])
@pytest.mark.parametrize("binned", [True, False])
def test_the_stream_merges_to_the_bundle_of_all_rows(binned, at_once, stacked, waiting,
                                                     monkeypatch):
    monkeypatch.setattr(MergeStack, "AT_ONCE", at_once)
    planned, parts, whole = _bundles(binned)
    stack = MergeStack(planned)
    for part in parts:
        stack.push(part)
    # bounded bundles (binned scores) are folded as they come; exact score maps grow,
    # so they wait for AT_ONCE of them and those merges meet as a binary counter (one
    # at a time: 5 pushes leave ranks 2 and 0; two at a time: rank 1 and one waiting)
    assert len(stack._stack) == (0 if binned else stacked)
    assert len(stack._waiting) == (0 if binned else waiting)
    merged = stack.result()
    families = {p.computed[2]: p.computed[0] for p in planned}
    for key, state in whole.states.items():
        assert families[key].bounded(state) is (binned or key != "scores")
        for p in planned:
            if p.key == key:
                family, metric, _ = p.computed
                assert family.value(merged.states[key], metric) == pytest.approx(
                    family.value(state, metric), rel=1e-12, abs=1e-15)
    assert merged.groups is not None and whole.groups is not None
    assert sorted(merged.groups) == sorted(whole.groups)
    for g, bundle in whole.groups.items():
        assert merged.groups[g].n_rows == bundle.n_rows
        assert merged.groups[g].states["scores"] == bundle.states["scores"]


@pytest.mark.parametrize("weights", ["none", "some", "all"])
def test_score_cells_merged_at_once_equal_the_cells_of_all_rows(weights):
    """k states' cells merged in one pass are :func:`aggregate`'s cells of all their
    cells, and, unweighted, the cells of all their rows: ties across states and
    classes included (scores on a coarse grid), empty states and one-class states."""
    from dartboard.families._base import aggregate
    from dartboard.families._scores import ScoreCells

    rng = np.random.default_rng(3)
    states, rows = [], []
    for k in range(7):
        n = 0 if k == 2 else int(rng.integers(1, 400))
        score = rng.integers(0, 50, n) / 49.0
        positive = rng.random(n) < (1.0 if k == 4 else 0.4)
        weighted = weights == "all" or (weights == "some" and k % 2 == 1)
        weight = rng.random(n) * 3 if weighted else None
        states.append(ScoreCells.from_rows(positive, score, weight))
        rows.append((positive, score, np.ones(n) if weight is None else weight))
    at_once = ScoreCells.merged(states)
    (s, p, w), size = aggregate(
        tuple(np.concatenate([getattr(x, k) for x in states])
              for k in ("score", "positive", "weight")),
        np.concatenate([x.size for x in states]))
    for got, want in ((at_once.score, s), (at_once.positive, p), (at_once.weight, w)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(at_once.size, size, rtol=1e-15)
    assert at_once.weighted is (weights != "none")
    if weights == "none":
        whole = ScoreCells.from_rows(np.concatenate([r[0] for r in rows]),
                                     np.concatenate([r[1] for r in rows]), None)
        for key in ("score", "positive", "weight", "size"):
            np.testing.assert_array_equal(getattr(at_once, key), getattr(whole, key))
        assert at_once.size.dtype == whole.size.dtype
    # two at a time gives the same cells
    chained = states[0]
    for state in states[1:]:
        chained = chained.merge(state)
    np.testing.assert_array_equal(chained.score, at_once.score)
    np.testing.assert_allclose(chained.size, at_once.size, rtol=1e-15)
