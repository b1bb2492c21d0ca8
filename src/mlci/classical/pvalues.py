"""P-values of a z or t statistic for a two-sided or one-sided alternative.

``"greater"`` is the upper tail, ``"less"`` the lower tail and ``"two-sided"`` twice
the tail beyond ``|statistic|``.

Computed with scipy.special (``ndtr``, ``stdtr``), which is what scipy.stats.norm and
scipy.stats.t evaluate: the same numbers to the last bit (tests/test_imports.py),
without scipy.stats' import time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import ndtr, stdtr


def normal_pvalue(z: float, alternative: str) -> float:
    """P-value of a standard normal statistic ``z``."""
    if alternative == "two-sided":
        return float(2 * ndtr(-abs(z)))
    if alternative == "greater":
        return float(ndtr(-z))
    return float(ndtr(z))


def t_pvalues(t: Any, df: float, alternative: str) -> np.ndarray:
    """P-values of Student t statistics ``t`` (any shape) with ``df`` degrees of freedom."""
    t = np.asarray(t, dtype=float)
    if alternative == "two-sided":
        return 2 * stdtr(df, -np.abs(t))
    if alternative == "greater":
        return stdtr(df, -t)
    return stdtr(df, t)


def t_pvalue(t: float, df: float, alternative: str) -> float:
    """P-value of a Student t statistic with ``df`` degrees of freedom."""
    return float(t_pvalues(t, df, alternative))
