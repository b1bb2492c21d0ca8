"""P-values of a z or t statistic for a two-sided or one-sided alternative.

``"greater"`` is the upper tail, ``"less"`` the lower tail and ``"two-sided"`` twice
the tail beyond ``|statistic|``.
"""

from __future__ import annotations

from scipy import stats


def normal_pvalue(z: float, alternative: str) -> float:
    """P-value of a standard normal statistic ``z``."""
    if alternative == "two-sided":
        return float(2 * stats.norm.sf(abs(z)))
    if alternative == "greater":
        return float(stats.norm.sf(z))
    return float(stats.norm.cdf(z))


def t_pvalue(t: float, df: float, alternative: str) -> float:
    """P-value of a Student t statistic with ``df`` degrees of freedom."""
    if alternative == "two-sided":
        return float(2 * stats.t.sf(abs(t), df))
    if alternative == "greater":
        return float(stats.t.sf(t, df))
    return float(stats.t.cdf(t, df))
