"""Comparing models: paired tests, k models on one test set, tests over folds or data sets,
Bayesian decisions with a ROPE, adjusted p-values and ranking.

Each public function validates its arguments first and returns a frozen result
(:class:`TestResult`, :class:`Comparison`, :class:`RankResult`).
"""

from dartboard.compare._adjust import adjust_pvalues
from dartboard.compare._analytic import corrected_ttest, delong_test, mcnemar_test
from dartboard.compare._bayes import (
    BayesResult,
    bayesian_correlated_ttest,
    bayesian_signed_rank_test,
    rank_equivalence,
)
from dartboard.compare._calibration import calibration_test
from dartboard.compare._folds import (
    ControlResult,
    combined_ftest_5x2cv,
    compare_with_control,
    friedman_test,
    paired_ttest_5x2cv,
    wilcoxon_test,
)
from dartboard.compare._kmodels import KModelComparison, cochran_q, compare_k_models
from dartboard.compare._models import compare_models
from dartboard.compare._permutation import permutation_test
from dartboard.compare._power import (
    auc_power,
    auc_sample_size,
    mcnemar_power,
    mcnemar_sample_size,
)
from dartboard.compare._ranking import rank_models
from dartboard.compare._results import Comparison, RankResult, TestResult

__all__ = ["BayesResult", "Comparison", "ControlResult", "KModelComparison", "RankResult",
           "TestResult", "adjust_pvalues", "auc_power", "auc_sample_size",
           "bayesian_correlated_ttest", "bayesian_signed_rank_test", "calibration_test",
           "cochran_q",
           "combined_ftest_5x2cv", "compare_k_models", "compare_models", "compare_with_control",
           "corrected_ttest", "delong_test", "friedman_test", "mcnemar_power",
           "mcnemar_sample_size", "mcnemar_test", "paired_ttest_5x2cv", "permutation_test",
           "rank_equivalence", "rank_models", "wilcoxon_test"]
