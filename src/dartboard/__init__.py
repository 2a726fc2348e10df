"""dartboard: how good a model really is, and which one to pick.

Fast drop-in metrics (:mod:`dartboard.metrics`), confidence intervals for each of
them, significance tests between models, DART ranking of hyper-parameter
configurations, stability audits of bootstrap ensembles, pipeline profiles and
streaming evaluation.

Public names are imported lazily, so ``import dartboard`` (and the command line)
stays fast and heavy modules load only when used.
"""

from dartboard._lazy import attach as _attach

__version__ = "0.1.0"

# module -> the public names it defines
_FAMILIES = {
    "dartboard.evaluation": ["evaluate", "Evaluation"],
    "dartboard.uncertainty": ["interval", "cv_interval", "interval_from_counts", "Interval",
                              "IntervalWarning", "roc_band", "pr_band", "CurveBand",
                              "select_threshold", "evaluate_threshold", "OperatingPoint",
                              "nested_cv_interval", "CVInterval"],
    "dartboard.compare": ["permutation_test", "compare_models", "mcnemar_test", "delong_test",
                          "corrected_ttest", "rank_models", "TestResult", "Comparison",
                          "RankResult", "adjust_pvalues", "cochran_q", "compare_k_models",
                          "KModelComparison", "friedman_test", "compare_with_control",
                          "ControlResult", "wilcoxon_test", "paired_ttest_5x2cv",
                          "combined_ftest_5x2cv", "bayesian_correlated_ttest",
                          "bayesian_signed_rank_test", "rank_equivalence", "BayesResult",
                          "mcnemar_power", "mcnemar_sample_size", "auc_power",
                          "auc_sample_size", "calibration_test"],
    "dartboard.selection": ["dart_score", "dart_rank", "dart_sweep", "dart_refit",
                            "dart_equivalence", "DartSweepResult"],
    "dartboard.stability": ["stability_metrics", "stability_audit", "StabilityResult"],
    "dartboard.profiling": ["profile_pipeline", "Profile"],
}

__getattr__, __dir__, _names = _attach("dartboard", _FAMILIES, namespace=globals(),
                                      submodules=("metrics", "scale", "plots", "report", "exceptions"))
__all__ = ["__version__", *_names]
