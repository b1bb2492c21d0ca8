"""Tango's score interval for the paired differences of :func:`mlci.compare` under ``"auto"``.

For two proportions on the same independent samples (accuracy, an error rate, a recall:
a 0/1 success per sample over a denominator both systems share) the difference is
``(n12 - n21) / n`` of their paired 2×2 table, and Tango's (1998) score interval
(:func:`mlci.paired_proportion_diff_ci` with ``method="tango"``) is its analytic
interval: exact coverage 0.931-0.990 over n = 60-5,000 and 2-50 expected discordant
samples, where the t interval on the linearized standard error covers 0.774-0.986
(``scripts/paired_diff_study.py --exact``; docs/validation.md, section 5).  Its p-value
is Tango's score test at ``d = 0``, McNemar's ``z = (n12 - n21) / sqrt(n12 + n21)``,
so that p < alpha exactly when the interval excludes 0; its margin tests are Tango's
score tests at the margin (:mod:`mlci.comparison.margins`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..classical.proportions import paired_proportion_diff_ci

#: the exact coverage behind the rule (docs/data/paired_diff_exact.txt)
TANGO_REASON = (
    "tango (Tango's score interval of the paired 2x2 table; exact coverage 0.931-0.990 "
    "over n = 60-5,000 and 2-50 expected discordant samples, where t covers 0.774-0.986: "
    "docs/validation.md, section 5, 'Paired differences')"
)


def paired_tables(
    kernels: Sequence[Any], pairs: Sequence[tuple[int, int]], estimates: np.ndarray
) -> list[np.ndarray | None]:
    """Each pair's paired 2×2 table ``[[both, only a], [only b, neither]]`` of successes
    over the samples of the shared denominator, or None where the two kernels are not
    proportions over the same samples (or the table does not give the estimates)."""
    per_sample: list[tuple[np.ndarray, np.ndarray] | None] = []
    for k in kernels:
        prop, keys = getattr(k, "proportion", None), getattr(k, "keys", None)
        if prop is None or keys is None:
            per_sample.append(None)
            continue
        num, den = (np.asarray(x) for x in prop)
        if num.dtype != bool or den.dtype != bool:
            per_sample.append(None)
            continue
        per_sample.append((num[keys], den[keys]))
    out: list[np.ndarray | None] = []
    for i, j in pairs:
        si, sj = per_sample[i], per_sample[j]
        if si is None or sj is None or not np.array_equal(si[1], sj[1]) or not si[1].any():
            out.append(None)
            continue
        a, b = si[0][si[1]], sj[0][sj[1]]
        table = np.array([[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]])
        d = (table[0, 1] - table[1, 0]) / table.sum()
        out.append(table if abs(d - (estimates[i] - estimates[j])) <= 1e-9 else None)
    return out


def tango_interval(table: np.ndarray, confidence_level: float, alternative: str) -> Any:
    """Tango's interval of the table (an :class:`mlci.IntervalResult`)."""
    return paired_proportion_diff_ci(
        table, method="tango", confidence_level=confidence_level, alternative=alternative
    )


def tango_pvalue(table: np.ndarray, alternative: str) -> float:
    """Tango's score test of ``d = 0``: McNemar's ``z = (n12 - n21) / sqrt(n12 + n21)``
    on the normal distribution (1 without a discordant sample)."""
    n12, n21 = float(table[0, 1]), float(table[1, 0])
    if n12 + n21 == 0:
        return 1.0
    from scipy import stats  # here: `mlci.compare` imports without scipy.stats (0.35 s)

    z = (n12 - n21) / np.sqrt(n12 + n21)
    if alternative == "greater":
        return float(stats.norm.sf(z))
    if alternative == "less":
        return float(stats.norm.cdf(z))
    return float(min(1.0, 2.0 * stats.norm.sf(abs(z))))
