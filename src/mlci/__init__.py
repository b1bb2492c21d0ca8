"""mlci: honest evaluation of machine-learning systems.

Confidence intervals and significance tests for any metric, on any test set.
"""

from __future__ import annotations

from .exceptions import DegenerateIntervalWarning, InvalidReplicatesWarning, MlciWarning
from .results import BootstrapResult, ConfidenceInterval, IntervalResult, TestResult

__version__ = "0.1.0"

__all__ = [
    "BootstrapResult",
    "ConfidenceInterval",
    "DegenerateIntervalWarning",
    "IntervalResult",
    "InvalidReplicatesWarning",
    "MlciWarning",
    "TestResult",
]

# --- core bootstrap (issue: mlci core) -------------------------------------------------
from .bootstrap import bootstrap_ci  # noqa: E402
from .metrics import list_metrics  # noqa: E402

__all__ += ["bootstrap_ci", "list_metrics"]
# --- classical toolbox (issue: classical toolbox) -------------------------------------
from .corrections import adjust_pvalues, reject_hypotheses  # noqa: E402
from .proportions import (  # noqa: E402
    paired_proportion_diff_ci,
    paired_table,
    proportion_ci,
    proportion_diff_ci,
)

__all__ += [
    "adjust_pvalues",
    "paired_proportion_diff_ci",
    "paired_table",
    "proportion_ci",
    "proportion_diff_ci",
    "reject_hypotheses",
]
# --- comparing systems and methods ------------------------------------------------------
# --- binary score analysis --------------------------------------------------------------
