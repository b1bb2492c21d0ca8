"""mlci: honest evaluation of machine-learning systems.

Confidence intervals and significance tests for any metric, on any test set.
"""

from __future__ import annotations

from .exceptions import (
    DegenerateIntervalWarning,
    FewConditionsWarning,
    InvalidReplicatesWarning,
    MlciWarning,
)
from .results import BootstrapResult, ConfidenceInterval, IntervalResult, TestResult

__version__ = "0.1.0"

__all__ = [
    "BootstrapResult",
    "ConfidenceInterval",
    "DegenerateIntervalWarning",
    "FewConditionsWarning",
    "IntervalResult",
    "InvalidReplicatesWarning",
    "MlciWarning",
    "TestResult",
]

# --- core bootstrap (issue: mlci core) -------------------------------------------------
from .engine.bootstrap import bootstrap_ci
from .metrics import list_metrics

__all__ += ["bootstrap_ci", "list_metrics"]
from .compat import evaluate_with_conf_int  # noqa: E402

__all__ += ["evaluate_with_conf_int"]
# --- classical toolbox (issue: classical toolbox) -------------------------------------
from .classical.auc import (  # noqa: E402
    delong_ci,
    delong_test,
    delong_test_independent,
    hanley_mcneil_ci,
    hanley_mcneil_se,
)
from .classical.corrections import adjust_pvalues, reject_hypotheses  # noqa: E402
from .classical.multiple_datasets import (  # noqa: E402
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
from .classical.planning import (  # noqa: E402
    PlanResult,
    power_auc,
    power_auc_difference,
    power_mcnemar,
    sample_size_auc,
    sample_size_auc_difference,
    sample_size_mcnemar,
    sample_size_proportion,
)
from .classical.proportions import (  # noqa: E402
    paired_proportion_diff_ci,
    paired_table,
    proportion_ci,
    proportion_diff_ci,
)
from .classical.significance import (  # noqa: E402
    compare_estimators,
    corrected_resampled_ttest,
    cv_5x2_ftest,
    cv_5x2_ttest,
    kfold_cv_ttest,
    mcnemar_test,
    paired_cv_scores,
    paired_ttest_chunks,
)

__all__ += [
    "CriticalDifference",
    "PlanResult",
    "PostHocResult",
    "adjust_pvalues",
    "bonferroni_dunn_test",
    "compare_estimators",
    "corrected_resampled_ttest",
    "critical_difference",
    "cv_5x2_ftest",
    "cv_5x2_ttest",
    "delong_ci",
    "delong_test",
    "delong_test_independent",
    "friedman_test",
    "hanley_mcneil_ci",
    "hanley_mcneil_se",
    "holm_test",
    "kfold_cv_ttest",
    "mcnemar_test",
    "nemenyi_test",
    "paired_cv_scores",
    "paired_proportion_diff_ci",
    "paired_table",
    "paired_ttest_chunks",
    "power_mcnemar",
    "proportion_ci",
    "proportion_diff_ci",
    "reject_hypotheses",
    "sample_size_auc",
    "sample_size_mcnemar",
    "sample_size_proportion",
    "sign_test",
    "wilcoxon_test",
]
__all__ += ["power_auc", "power_auc_difference", "sample_size_auc_difference"]
# --- comparing systems and methods ------------------------------------------------------
from .comparison.paired import ComparisonResult, PairDifference, compare  # noqa: E402
from .comparison.permutation import permutation_test  # noqa: E402

__all__ += ["ComparisonResult", "PairDifference", "compare", "permutation_test"]
from .comparison.methods import PooledResult, compare_methods, evaluate_method, pooled_ci  # noqa: E402
from .engine.nested import make_nested_plan  # noqa: E402
from .scores.trials import trial_bootstrap_ci  # noqa: E402

__all__ += [
    "PooledResult",
    "compare_methods",
    "evaluate_method",
    "make_nested_plan",
    "pooled_ci",
    "trial_bootstrap_ci",
]
# --- binary score analysis --------------------------------------------------------------
from .scores.confusion import ConfusionMatrix  # noqa: E402
from .scores.scores import EqualErrorRate, Scores  # noqa: E402
from .scores.verification import cllr_ci, dcf_ci, eer_ci  # noqa: E402

__all__ += ["ConfusionMatrix", "EqualErrorRate", "Scores", "cllr_ci", "dcf_ci", "eer_ci"]
from .scores.curves import (  # noqa: E402
    auc_ci,
    det_curve,
    operating_point_ci,
    partial_auc,
    pr_curve,
    roc_band,
    roc_curve,
)
from .scores.groups import metric_by_group  # noqa: E402
from .scores.verification import cllr, detection_cost, min_cllr, min_detection_cost  # noqa: E402

__all__ += [
    "auc_ci",
    "cllr",
    "det_curve",
    "detection_cost",
    "metric_by_group",
    "min_cllr",
    "min_detection_cost",
    "operating_point_ci",
    "partial_auc",
    "pr_curve",
    "roc_band",
    "roc_curve",
]
