"""dartboard: how good a model really is, and which one to pick.

dartboard judges machine-learning models with honest uncertainty: every
``sklearn.metrics`` metric as a faster drop-in, a confidence interval for each,
significance tests between models, per-group evaluation with gaps, calibration,
curves with bands, DART ranking of cross-validated configurations, stability
audits, profiles and streaming evaluation.

Subpackages
-----------
metrics      drop-in metrics and their mergeable states (``dartboard.metrics``)
uncertainty  confidence intervals, curve bands, operating points
compare      paired and k-model tests, Bayesian decisions, power, p-value adjustment
evaluation   ``evaluate`` and ``Evaluation``: every metric with its interval, by group
selection    DART score, ranking, precision sweep and refit
stability    stability and uncertainty of bootstrap ensembles
profiling    time and memory of a pipeline
scale        streaming Parquet, Dask and parallel grids
plots        matplotlib figures
report       the self-contained HTML report
evals        LLM benchmark runs (lm-eval, Inspect, HELM): clustered and paired error bars
exceptions   the input errors every check raises (ValueError and TypeError subclasses)

Main entry points (at the top level, ``dartboard.<name>``)
----------------------------------------------------------
evaluate(y_true, y_pred, ...)                   every metric, its interval, by group
interval(metric, y_true, y_other, ...)          one metric's confidence interval
compare_models(metric, y_true, pred_a, pred_b)  test and interval of a difference
select_threshold(y_true, y_score, ...)          an operating point with its intervals
dart_rank(results, precision)                   rank a CV grid by mean and stability
stability_audit(estimator, X_train, ...)        stability of a bootstrap ensemble
profile_pipeline(estimator, X_train, ...)       time and memory of fit and predict

``dir(dartboard)`` lists every top-level name; they load on first use, so
``import dartboard`` (and the ``dartboard`` command) stays fast. ``__all__`` names
the subpackages, as scikit-learn's and SciPy's do, so that ``help(dartboard)`` is
this map rather than every docstring of the package.

Documentation: the API reference, user guide and examples are built from
``docs/`` (``sphinx-build docs docs/_build/html``); each function's docstring
carries its formula, edge cases and an example (``help(dartboard.evaluate)``).
"""

# the dartboard command imports this package before its own code can answer a
# Ctrl-C (dartboard.__main__): an interrupt while it loads ends the command as one
# during a command does, and is left alone when a program imports dartboard
try:
    from dartboard._lazy import attach as _attach
    from dartboard._version import __version__ as __version__

    # module -> the public names it defines, re-exported here
    _FAMILIES = {
        "dartboard.evaluation": ["evaluate", "Evaluation", "EvaluationOptions"],
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
    _SUBPACKAGES = ("metrics", "uncertainty", "compare", "evaluation", "selection", "stability",
                    "profiling", "scale", "plots", "report", "evals", "exceptions")

    __getattr__, __dir__, _PUBLIC = _attach("dartboard", _FAMILIES, namespace=globals(),
                                            submodules=_SUBPACKAGES)
    # pydoc renders every name of __all__ in full (3,000 lines for the re-exports), so
    # __all__ names the subpackages; the re-exports (_PUBLIC) are in dir() and the map above
    __all__ = list(_SUBPACKAGES)
except KeyboardInterrupt:
    import sys as _sys

    _launcher = getattr(_sys.modules.get("__main__"), "__file__", None) or ""
    if _launcher.replace("\\", "/").rsplit("/", 1)[-1].split(".")[0] not in (
            "dartboard", "dartboard-script"):
        raise
    _sys.stderr.write("interrupted\n")
    raise SystemExit(130) from None

