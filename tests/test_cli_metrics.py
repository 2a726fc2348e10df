"""The command line's metric facts come from the registry: every metric an evaluation
reports is named by its table label or its function name, computes what sklearn (or a
plain formula) computes, points the right way, and an unknown name fails in one line
listing the registry's choices."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm
from typer.testing import CliRunner

from dartboard.cli import app
from dartboard.cli._metrics import command_line_metric, command_line_specs
from dartboard.metrics._registry import specs

runner = CliRunner()
SPECS = command_line_specs()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _pr_auc(y, s):
    precision, recall, _ = skm.precision_recall_curve(y, s)
    return skm.auc(recall, precision)


# metrics sklearn does not have, by their definitions (DESIGN.md section 3)
ORACLES = {
    "specificity_score": lambda y, p: skm.recall_score(y, p, pos_label=0),
    "false_positive_rate": lambda y, p: 1 - skm.recall_score(y, p, pos_label=0),
    "false_negative_rate": lambda y, p: 1 - skm.recall_score(y, p),
    "selection_rate": lambda y, p: np.mean(p == 1),
    "pr_auc_score": _pr_auc,
    "weighted_mean_absolute_percentage_error":
        lambda y, p: np.abs(y - p).sum() / np.abs(y).sum(),
    "median_absolute_deviation":
        lambda y, p: np.median(np.abs((y - p) - np.median(y - p))),
    "calibration_error": lambda y, p: _ece(np.asarray(y), np.asarray(p, dtype=float)),
}


def _ece(y, p, n_bins=15):
    """torchmetrics' binned ECE: bins [b/15, (b+1)/15), p == 1 alone."""
    bins = np.floor(p * n_bins)
    return sum(np.mean(bins == b) * abs(y[bins == b].mean() - p[bins == b].mean())
               for b in np.unique(bins))


def oracle(name):
    return ORACLES.get(name) or getattr(skm, name)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Model a is perfect, model b is noisy: labels, scores and regression values."""
    rng = np.random.default_rng(7)
    n = 240
    y = rng.integers(0, 2, n)
    flip = rng.random(n) < 0.3
    yr = rng.normal(3.0, 1.0, n)
    frame = pd.DataFrame({
        "y": y, "yr": yr,
        "pred_a": y, "pred_b": np.where(flip, 1 - y, y),
        "score_a": np.where(y == 1, 0.9, 0.1),
        "score_b": np.clip(0.5 + 0.2 * (2 * y - 1) + rng.normal(0, 0.25, n), 0.01, 0.99),
        "val_a": yr, "val_b": yr + rng.normal(0, 0.5, n),
    })
    path = tmp_path_factory.mktemp("metrics") / "preds.csv"
    frame.to_csv(path, index=False)
    return path, frame


def columns(spec):
    prefix = {"labels": "pred", "scores": "score", "probabilities": "score",
              "values": "val"}[spec.input]
    return ("yr" if spec.input == "values" else "y"), f"{prefix}_a", f"{prefix}_b"


def test_the_metrics_offered_are_the_registrys_evaluation_metrics():
    # every scalar metric an evaluation reports, and no other
    assert [s.name for s in SPECS] == \
        [s.name for s in specs(scalar=True) if s.tasks]
    assert len(SPECS) >= 25


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_both_spellings_resolve(spec):
    assert command_line_metric(spec.name).spec is spec
    assert command_line_metric(spec.table_label()).spec is spec


@pytest.mark.parametrize("spelling", ["name", "label"])
@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_compare_computes_each_metric_by_either_spelling(data, spec, spelling):
    path, frame = data
    truth, a, b = columns(spec)
    metric = spec.name if spelling == "name" else spec.table_label()
    res = run("compare", path, "--y-true", truth, "--a", a, "--b", b, "--metric", metric,
              "--n-resamples", "30", "--json")
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    assert payload["metric"] == spec.table_label()
    func = oracle(spec.name)
    assert payload["estimate_a"] == pytest.approx(func(frame[truth], frame[a]), abs=1e-12)
    assert payload["estimate_b"] == pytest.approx(func(frame[truth], frame[b]), abs=1e-12)


# the selection rate has no best value, only a level, and a perfect classifier that
# says 0.9 is not calibrated: both are left out here
_NO_BEST = ("selection_rate", "calibration_error")


@pytest.mark.parametrize("spec", [s for s in SPECS if s.name not in _NO_BEST],
                         ids=[s.name for s in SPECS if s.name not in _NO_BEST])
def test_lower_is_better_points_the_way_a_perfect_model_wins(data, spec):
    # model a is perfect
    path, frame = data
    truth, a, b = columns(spec)
    func = oracle(spec.name)
    perfect, noisy = func(frame[truth], frame[a]), func(frame[truth], frame[b])
    assert perfect != noisy
    res = run("compare", path, "--y-true", truth, "--a", a, "--b", b, "--metric", spec.name,
              "--n-resamples", "30", "--json")
    assert json.loads(res.stdout)["lower_is_better"] == (perfect < noisy)


def test_unknown_metric_one_line_listing_the_registrys_choices(data):
    path, _ = data
    for name in ("awesomeness", "fbeta", "fbeta_score", "confusion_matrix", "F1"):
        res = run("compare", path, "--y-true", "y", "--a", "pred_a", "--b", "pred_b",
                  "--metric", name)
        assert res.exit_code == 2, res.output
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in res.output
        assert lines[0].startswith(f"error: unknown metric {name!r}; choose one of: ")
        listed = lines[0].split("choose one of: ", 1)[1].split(", ")
        assert listed == sorted(listed)
        assert set(listed) == {s.table_label() for s in SPECS}
        assert res.stdout == ""


@pytest.mark.parametrize("labels, positive", [([1, 2], 2), ([-1, 1], 1),
                                              (["no", "yes"], "yes")])
def test_positive_class_is_named_unless_0_1_or_minus_1_1(tmp_path, labels, positive):
    # sklearn's default pos_label=1 would score class 1 of {1, 2}; the greater label was
    # then guessed, which a {1 = yes, 2 = no} coding turns around: now it is named
    rng = np.random.default_rng(11)
    y = rng.choice(labels, 200)
    frame = pd.DataFrame({"y": y, "a": np.where(rng.random(200) < 0.75, y, labels[0]),
                          "b": np.where(rng.random(200) < 0.6, y, labels[1]),
                          "s": rng.random(200)})
    frame.to_csv(tmp_path / "p.csv", index=False)
    for metric, col, expected in [
            ("recall", "a", skm.recall_score(frame.y, frame.a, pos_label=positive)),
            ("average_precision", "s",
             skm.average_precision_score(frame.y == positive, frame.s))]:
        args = ("compare", tmp_path / "p.csv", "--y-true", "y", "--a", col, "--b",
                "b" if col == "a" else "s", "--metric", metric, "--n-resamples", "30", "--json")
        if labels != [-1, 1]:
            assert run(*args).exit_code == 2
            args += ("--pos-label", str(positive))
        res = run(*args)
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["estimate_a"] == pytest.approx(expected, abs=1e-12)
