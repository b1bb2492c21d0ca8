"""mlci: honest evaluation of machine-learning systems.

Confidence intervals and significance tests for any metric, on any test set.  The public
API is flat: everything below is importable as ``mlci.<name>``; the subpackages show the
architecture (see docs/glossary.md): ``inputs`` (the input gate) -> ``engine`` (resampling
plans, samplers, the replicate loop, intervals) -> ``metrics`` (kernels) -> results, with
``scores``, ``comparison``, ``classical`` and ``llm`` built on them.

The names are imported when first used (PEP 562 ``__getattr__``), so ``import mlci`` and
the ``mlci`` command start without scipy.stats, pandas, pyarrow or matplotlib; ``from mlci
import X``, ``mlci.X``, ``dir(mlci)`` and ``__all__`` behave as with eager imports.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: submodule (relative to ``mlci``) -> the public names it defines, imported on first use
_EXPORTS: dict[str, tuple[str, ...]] = {
    "backends": ("AtomTable", "reduce_ci", "reduce_table"),
    "classical.auc": (
        "delong_ci",
        "delong_test",
        "delong_test_independent",
        "hanley_mcneil_ci",
        "hanley_mcneil_se",
    ),
    "classical.auc_score": ("auc_score_ci", "newcombe_variance"),
    "classical.corrections": ("adjust_pvalues", "reject_hypotheses"),
    "classical.multiple_datasets": (
        "CriticalDifference",
        "PostHocResult",
        "bonferroni_dunn_test",
        "critical_difference",
        "friedman_test",
        "holm_test",
        "nemenyi_test",
        "sign_test",
        "wilcoxon_test",
    ),
    "classical.planning": (
        "PlanResult",
        "power_auc",
        "power_auc_difference",
        "power_mcnemar",
        "sample_size_auc",
        "sample_size_auc_difference",
        "sample_size_mcnemar",
        "sample_size_proportion",
    ),
    "classical.proportions": (
        "paired_proportion_diff_ci",
        "paired_table",
        "proportion_ci",
        "proportion_diff_ci",
    ),
    "classical.significance": ("mcnemar_test", "paired_ttest_chunks"),
    "comparison.bayesian": (
        "BayesianComparison",
        "correlated_bayesian_ttest",
        "bayesian_signed_rank_test",
    ),
    "comparison.equivalence": ("mcnemar_margin_test", "paired_margin_test"),
    "comparison.margins": ("MarginTest",),
    "comparison.paired": ("compare",),
    "comparison.paired_results": ("ComparisonResult", "PairDifference"),
    "comparison.permutation": ("permutation_test",),
    "compat": ("evaluate_with_conf_int",),
    "engine.bootstrap": ("bootstrap_ci",),
    "inputs.config": ("config_context", "get_config", "set_config"),
    "inputs.resampling": ("Resampling",),
    "inputs.weights": ("FrequencyWeights", "frequency_weights"),
    "engine.nested": ("make_nested_plan",),
    "engine.replicates": ("bca_ci",),
    "fields.agreement": ("agreement_ci",),
    "fields.correlations": ("compare_correlations", "correlation_ci", "williams_test"),
    "exceptions": (
        "AttenuatedCorrelationWarning",
        "DegenerateIntervalWarning",
        "FewConditionsWarning",
        "FewResamplesWarning",
        "HeavyTailWarning",
        "InvalidReplicatesWarning",
        "IrregularEstimandWarning",
        "MlciWarning",
        "NearBoundWarning",
    ),
    "llm.compare": ("LeaderboardEntry", "LLMComparison", "llm_compare"),
    "llm.estimands": ("LLMEstimates", "llm_ci"),
    "llm.log": ("EvalLog", "eval_log"),
    "llm.planning": ("llm_sample_size",),
    "llm.readers": ("read_eval_logs",),
    "metrics": ("list_metrics",),
    "protocols.bootstrap632": ("BootstrapErrorResult", "bootstrap632_ci"),
    "protocols.crossval": ("CVResult", "cross_val_ci", "cross_val_compare"),
    "protocols.cv_tests": (
        "compare_estimators",
        "corrected_resampled_ttest",
        "cv_5x2_ftest",
        "cv_5x2_ttest",
        "kfold_cv_ttest",
        "paired_cv_scores",
    ),
    "protocols.learners": ("PooledResult", "compare_methods", "evaluate_method", "pooled_ci"),
    "protocols.oob": ("OOBResult", "oob_ci"),
    "results": (
        "BootstrapResult",
        "ConfidenceInterval",
        "IntervalResult",
        "TestResult",
        "AnalyticInterval",
    ),
    "scores.auc": ("auc_ci", "partial_auc"),
    "scores.confusion": ("ConfusionMatrix", "pointwise_cm"),
    "scores.curves": (
        "det_curve",
        "pr_curve",
        "roc_band",
        "roc_curve",
        "roc_with_ci",
    ),
    "scores.decisions": ("OptimalThreshold", "optimal_threshold_ci", "pr_band"),
    "scores.group_result": ("GroupResult",),
    "scores.group_scores": ("GroupScores",),
    "scores.groups": ("metric_by_group",),
    "scores.identification": ("identification_scores",),
    "scores.operating_point": ("operating_point_ci",),
    "scores.scores": ("EqualErrorRate", "Scores"),
    "scores.trials": ("trial_bootstrap_ci",),
    "scores.verification": (
        "cllr",
        "cllr_ci",
        "dcf_ci",
        "detection_cost",
        "eer_ci",
        "min_cllr",
        "min_detection_cost",
    ),
    # the fields' own inputs (issue 24): corpus MT metrics, IR runs and qrels
    "mt.api": ("mt_ci", "mt_compare"),
    "mt.readers": ("read_segments",),
    "mt.significance": ("MTPairedTest",),
    "ir.api": ("IRComparison", "ir_ci", "ir_compare"),
    "ir.readers": ("read_qrels", "read_run"),
}

#: public name -> the submodule that defines it
_SOURCE: dict[str, str] = {name: module for module, names in _EXPORTS.items() for name in names}

#: the subpackages and modules reachable as attributes (``mlci.scores``, ``mlci.io``, ...)
_SUBMODULES = frozenset(
    {
        "backends",
        "classical",
        "cli",
        "comparison",
        "compat",
        "data",
        "engine",
        "exceptions",
        "feedback",
        "fields",
        "inputs",
        "intervals",
        "io",
        "ir",
        "llm",
        "metrics",
        "mt",
        "plotting",
        "protocols",
        "report",
        "results",
        "scores",
        "simulate",
        "simulation",
    }
)

__all__ = sorted(_SOURCE)


def __getattr__(name: str) -> Any:
    """Import a public name (or a subpackage) of mlci the first time it is used."""
    module = _SOURCE.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_SUBMODULES})
