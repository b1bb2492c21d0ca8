"""mlci: honest evaluation of machine-learning systems.

Confidence intervals and significance tests for any metric, on any test set.  The public
API is flat: everything below is importable as ``mlci.<name>``; the subpackages show the
architecture (see docs/glossary.md): ``inputs`` (the input gate) -> ``engine`` (resampling
plans, samplers, the replicate loop, intervals) -> ``metrics`` (kernels) -> results, with
``scores``, ``comparison``, ``classical`` and ``llm`` built on them.
"""

from __future__ import annotations

from .backends import AtomTable, reduce_ci, reduce_table
from .classical.auc import (
    delong_ci,
    delong_test,
    delong_test_independent,
    hanley_mcneil_ci,
    hanley_mcneil_se,
)
from .classical.corrections import adjust_pvalues, reject_hypotheses
from .classical.multiple_datasets import (
    CriticalDifference,
    PostHocResult,
    bonferroni_dunn_test,
    critical_difference,
    friedman_test,
    holm_test,
    nemenyi_test,
    sign_test,
    wilcoxon_test,
)
from .classical.planning import (
    PlanResult,
    power_auc,
    power_auc_difference,
    power_mcnemar,
    sample_size_auc,
    sample_size_auc_difference,
    sample_size_mcnemar,
    sample_size_proportion,
)
from .classical.proportions import (
    paired_proportion_diff_ci,
    paired_table,
    proportion_ci,
    proportion_diff_ci,
)
from .classical.significance import (
    compare_estimators,
    corrected_resampled_ttest,
    cv_5x2_ftest,
    cv_5x2_ttest,
    kfold_cv_ttest,
    mcnemar_test,
    paired_cv_scores,
    paired_ttest_chunks,
)
from .comparison.methods import (
    PooledResult,
    compare_methods,
    evaluate_method,
    pooled_ci,
)
from .comparison.paired import (
    ComparisonResult,
    PairDifference,
    compare,
)
from .comparison.permutation import permutation_test
from .compat import evaluate_with_conf_int
from .engine.bootstrap import bootstrap_ci
from .engine.custom import bca_ci
from .engine.nested import make_nested_plan
from .exceptions import (
    DegenerateIntervalWarning,
    FewConditionsWarning,
    InvalidReplicatesWarning,
    MlciWarning,
)
from .llm.compare import LeaderboardEntry, LLMComparison, llm_compare
from .llm.estimands import LLMEstimates, llm_ci
from .llm.log import EvalLog, eval_log
from .llm.planning import llm_sample_size
from .llm.readers import read_eval_logs
from .metrics import list_metrics
from .protocols.bootstrap632 import BootstrapErrorResult, bootstrap632_ci
from .protocols.crossval import CVResult, cross_val_ci, cross_val_compare
from .protocols.oob import oob_ci
from .results import (
    BootstrapResult,
    ConfidenceInterval,
    IntervalResult,
    TestResult,
)
from .scores.confusion import ConfusionMatrix
from .scores.curves import (
    auc_ci,
    det_curve,
    operating_point_ci,
    partial_auc,
    pr_curve,
    roc_band,
    roc_curve,
    roc_with_ci,
)
from .scores.group_scores import GroupScores
from .scores.groups import GroupResult, metric_by_group
from .scores.identification import identification_scores
from .scores.scores import EqualErrorRate, Scores, pointwise_cm
from .scores.trials import trial_bootstrap_ci
from .scores.verification import (
    cllr,
    cllr_ci,
    dcf_ci,
    detection_cost,
    eer_ci,
    min_cllr,
    min_detection_cost,
)

__version__ = "0.1.0"

__all__ = [
    "AtomTable",
    "BootstrapErrorResult",
    "BootstrapResult",
    "CVResult",
    "ComparisonResult",
    "ConfidenceInterval",
    "ConfusionMatrix",
    "CriticalDifference",
    "DegenerateIntervalWarning",
    "EqualErrorRate",
    "EvalLog",
    "FewConditionsWarning",
    "GroupResult",
    "GroupScores",
    "IntervalResult",
    "InvalidReplicatesWarning",
    "LLMComparison",
    "LLMEstimates",
    "LeaderboardEntry",
    "MlciWarning",
    "PairDifference",
    "PlanResult",
    "PooledResult",
    "PostHocResult",
    "Scores",
    "TestResult",
    "adjust_pvalues",
    "auc_ci",
    "bca_ci",
    "bonferroni_dunn_test",
    "bootstrap632_ci",
    "bootstrap_ci",
    "cllr",
    "cllr_ci",
    "compare",
    "compare_estimators",
    "compare_methods",
    "corrected_resampled_ttest",
    "critical_difference",
    "cross_val_ci",
    "cross_val_compare",
    "cv_5x2_ftest",
    "cv_5x2_ttest",
    "dcf_ci",
    "delong_ci",
    "delong_test",
    "delong_test_independent",
    "det_curve",
    "detection_cost",
    "eer_ci",
    "eval_log",
    "evaluate_method",
    "evaluate_with_conf_int",
    "friedman_test",
    "hanley_mcneil_ci",
    "hanley_mcneil_se",
    "holm_test",
    "identification_scores",
    "kfold_cv_ttest",
    "list_metrics",
    "llm_ci",
    "llm_compare",
    "llm_sample_size",
    "make_nested_plan",
    "mcnemar_test",
    "metric_by_group",
    "min_cllr",
    "min_detection_cost",
    "nemenyi_test",
    "oob_ci",
    "operating_point_ci",
    "paired_cv_scores",
    "paired_proportion_diff_ci",
    "paired_table",
    "paired_ttest_chunks",
    "partial_auc",
    "permutation_test",
    "pointwise_cm",
    "pooled_ci",
    "power_auc",
    "power_auc_difference",
    "power_mcnemar",
    "pr_curve",
    "proportion_ci",
    "proportion_diff_ci",
    "read_eval_logs",
    "reduce_ci",
    "reduce_table",
    "reject_hypotheses",
    "roc_band",
    "roc_curve",
    "roc_with_ci",
    "sample_size_auc",
    "sample_size_auc_difference",
    "sample_size_mcnemar",
    "sample_size_proportion",
    "sign_test",
    "trial_bootstrap_ci",
    "wilcoxon_test",
]
