"""A results dictionary with every section and every figure of the report, built with
dartboard's public functions (the report's tests and the hostile results.json tests
start from it)."""

from __future__ import annotations

import numpy as np

from dartboard import dart_rank, dart_sweep, evaluate, rank_models, stability_metrics
from dartboard.evaluation._engine import evaluate_predictions
from dartboard.report._inputs import rank_input, stability_input, sweep_input


def every_section(y, proba, n_resamples=300):
    """Selection, classification (with groups), stability and regression sections for
    binary labels ``y`` and probabilities ``proba`` of the positive class."""
    rng = np.random.default_rng(12)
    yr = rng.normal(size=200)
    folds = {"a": [0.90, 0.92, 0.88, 0.91, 0.90], "b": [0.95, 0.80, 0.97, 0.84, 0.93],
             "c": [0.85, 0.86, 0.84, 0.86, 0.85]}
    probas = np.clip(proba[None, :] + rng.normal(scale=0.1, size=(8, proba.size)), 0, 1)
    ranking = dart_rank(folds, 2.0)
    return {
        "title": "test <report>",
        "selection": {"precision": 2.0, "configs": list(folds),
                      "fold_scores": list(folds.values()),
                      "sweep_precisions": np.linspace(0, 10, 11).tolist(),
                      "sweep": sweep_input(dart_sweep(folds, np.linspace(0, 10, 11))),
                      "ranking": ranking[["configuration", "mean", "std"]].to_dict("records"),
                      "ranking_columns": [["configuration", "Configuration"],
                                          ["mean", "Mean"]],
                      "critical_difference": rank_input(rank_models(folds))},
        "classification": dict(evaluate(y, y_score=proba, n_resamples=n_resamples,
                                        random_state=0,
                                        groups=rng.choice(["u", "v"], y.shape[0])).to_dict(),
                               model="m"),
        "stability": {"summary": [{"quantity": "label stability", "value": 0.9}],
                      "probas": probas.tolist(), "y_true": y.tolist(),
                      "figure": stability_input(stability_metrics(probas, y_true=y))},
        "regression": evaluate_predictions(yr, y_pred=yr + rng.normal(scale=0.2, size=200),
                                           n_resamples=n_resamples).to_dict(),
    }
