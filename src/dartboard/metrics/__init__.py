"""Metrics: drop-ins for the same-named ``sklearn.metrics`` functions, and more.

Same positional arguments, same keywords and same values as scikit-learn, computed
from small mergeable states (:class:`ConfusionCounts`, :class:`ScoreState`,
:class:`RegressionMoments`) so that intervals, tests, streaming and Dask reuse them.

Families live in their own private modules: ``_confusion`` (count metrics),
``_ranking`` (curves and AUC), ``_probabilistic`` (log loss, Brier),
``_regression`` (errors, R^2, error distribution) and ``_similarity``.
"""

from __future__ import annotations

from dartboard._lazy import attach

_FAMILIES = {
    "dartboard.metrics._confusion": [
        "ConfusionCounts", "confusion_matrix", "accuracy_score", "precision_score",
        "recall_score", "specificity_score", "false_positive_rate",
        "false_negative_rate", "f1_score", "fbeta_score", "matthews_corrcoef",
        "balanced_accuracy_score", "cohen_kappa_score", "selection_rate", "jaccard_score",
        "classification_report", "precision_recall_fscore_support",
        "UndefinedMetricWarning",
    ],
    "dartboard.metrics._ranking": [
        "ScoreState", "roc_curve", "roc_auc_score", "precision_recall_curve",
        "average_precision_score", "pr_auc_score",
    ],
    "dartboard.metrics._probabilistic": ["log_loss", "brier_score_loss"],
    "dartboard.metrics._regression": [
        "RegressionMoments", "mean_squared_error", "root_mean_squared_error",
        "mean_absolute_error", "r2_score", "explained_variance_score",
        "mean_absolute_percentage_error", "weighted_mean_absolute_percentage_error",
        "median_absolute_error", "median_absolute_deviation", "max_error",
        "error_distribution", "ErrorDistribution",
    ],
    "dartboard.metrics._similarity": ["cosine_similarity"],
}

__getattr__, __dir__, __all__ = attach("dartboard.metrics", _FAMILIES, namespace=globals())
