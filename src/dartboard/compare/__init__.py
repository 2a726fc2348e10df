"""Comparing models: paired permutation tests, McNemar, DeLong, corrected t-test, ranking.

Each public function validates its arguments first and returns a frozen result
(:class:`TestResult`, :class:`Comparison`, :class:`RankResult`).
"""

from __future__ import annotations

from dartboard.compare._adjust import adjust_pvalues
from dartboard.compare._analytic import corrected_ttest, delong_test, mcnemar_test
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
from dartboard.compare._ranking import rank_models
from dartboard.compare._results import Comparison, RankResult, TestResult

__all__ = ["Comparison", "ControlResult", "KModelComparison", "RankResult", "TestResult",
           "adjust_pvalues", "cochran_q", "combined_ftest_5x2cv", "compare_k_models",
           "compare_models", "compare_with_control", "friedman_test", "paired_ttest_5x2cv",
           "wilcoxon_test",
           "corrected_ttest", "delong_test", "mcnemar_test", "permutation_test", "rank_models"]
