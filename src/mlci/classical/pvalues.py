"""P-values of a z or t statistic for a two-sided or one-sided alternative.

``"greater"`` is the upper tail, ``"less"`` the lower tail and ``"two-sided"`` twice
the tail beyond ``|statistic|``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats


def normal_pvalue(z: float, alternative: str) -> float:
    """P-value of a standard normal statistic ``z``."""
    if alternative == "two-sided":
        return float(2 * stats.norm.sf(abs(z)))
    if alternative == "greater":
        return float(stats.norm.sf(z))
    return float(stats.norm.cdf(z))


def t_pvalues(t: Any, df: float, alternative: str) -> np.ndarray:
    """P-values of Student t statistics ``t`` (any shape) with ``df`` degrees of freedom."""
    t = np.asarray(t, dtype=float)
    if alternative == "two-sided":
        return 2 * stats.t.sf(np.abs(t), df)
    if alternative == "greater":
        return stats.t.sf(t, df)
    return stats.t.cdf(t, df)


def t_pvalue(t: float, df: float, alternative: str) -> float:
    """P-value of a Student t statistic with ``df`` degrees of freedom."""
    return float(t_pvalues(t, df, alternative))
