"""Closed-form intervals: ``estimate ± q·se`` with a normal or Student-t quantile.

One place for the tails of a confidence level, the quantiles and the Wald interval that
the protocols (cross-validation, out-of-bag), the LLM estimators and the classical tests
(DeLong, paired t) report.  The quantiles are :mod:`scipy.special`'s ``ndtri`` and
``stdtrit``: what ``scipy.stats.norm.ppf`` and ``scipy.stats.t.ppf`` evaluate, to the last
bit (tests/test_imports.py), without importing scipy.stats.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import ndtri, stdtrit

__all__ = ["one_sided", "quantile", "tails", "wald_interval"]


def tails(confidence_level: float, alternative: str) -> tuple[float, float]:
    """The lower and upper tail probabilities of an interval: ``(alpha/2, 1 - alpha/2)``
    two-sided, ``(alpha, 1 - alpha)`` one-sided, with ``alpha = 1 - confidence_level``.

    Examples
    --------
    >>> tails(0.9, "two-sided"), tails(0.9, "greater")
    ((0.04999999999999999, 0.95), (0.09999999999999998, 0.9))
    """
    alpha = 1.0 - confidence_level
    if alternative == "two-sided":
        return alpha / 2, 1 - alpha / 2
    return alpha, 1 - alpha


def quantile(p: Any, df: Any = None) -> Any:
    """The standard normal quantile at ``p`` (``df=None``), else Student's t with ``df``
    degrees of freedom (``scipy.stats.norm.ppf(p)``, ``scipy.stats.t.ppf(p, df)``).

    Examples
    --------
    >>> round(float(quantile(0.975)), 6), round(float(quantile(0.975, 9)), 6)
    (1.959964, 2.262157)
    """
    return ndtri(p) if df is None else stdtrit(df, p)


def one_sided(low: Any, high: Any, alternative: str, bounds: Any) -> tuple[np.ndarray, np.ndarray]:
    """Clip ``(low, high)`` into ``bounds``; a one-sided interval ends at the range's edge
    (``bounds=None``: the real line)."""
    lo_edge, hi_edge = (-np.inf, np.inf) if bounds is None else (float(b) for b in bounds)
    low = np.clip(np.asarray(low, dtype=float), lo_edge, hi_edge)
    high = np.clip(np.asarray(high, dtype=float), lo_edge, hi_edge)
    if alternative == "less":
        low = np.full(low.shape, lo_edge)
    elif alternative == "greater":
        high = np.full(high.shape, hi_edge)
    return low, high


def wald_interval(
    estimate: Any,
    se: Any,
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    df: Any = None,
    bounds: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``estimate ∓ q·se`` with ``q`` the normal quantile (``df=None``) or Student's t with
    ``df`` degrees of freedom; one-sided: the other end at the range's edge; clipped into
    ``bounds`` (None: unbounded).  Arrays broadcast.

    Examples
    --------
    >>> low, high = wald_interval(0.8, 0.05, confidence_level=0.95, bounds=(0, 1))
    >>> round(float(low), 4), round(float(high), 4)
    (0.702, 0.898)
    >>> low, high = wald_interval(0.8, 0.05, confidence_level=0.95, df=11, alternative="less")
    >>> float(low), round(float(high), 4)
    (-inf, 0.8898)
    """
    q = quantile(tails(confidence_level, alternative)[1], df)
    estimate = np.asarray(estimate, dtype=float)
    se = np.asarray(se, dtype=float)
    return one_sided(estimate - q * se, estimate + q * se, alternative, bounds)
