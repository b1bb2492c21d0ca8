"""A proportion over conditions near 0 or 1: Korn & Graubard's interval there.

The mean of 0/1 outcomes resampled by condition (a question answered several times, or
questions in clusters) gets the t interval on the logit scale (``"logit_t"``: CR2
standard error, Imbens & Kolesar's degrees of freedom) from :func:`mlci.bootstrap_ci`
under ``"auto"``.  Within :data:`NEAR_BOUND` of 0 or 1 that interval fell short in
cells of ``scripts/llm_coverage.py --bounds candidates`` (400 test sets): 30 questions
answered 3 times at p = 0.999, 0.910 (0.9075 with 1,200: the test sets with one error,
whose logit t ends below 0.999 as Wilson's interval does, Brown, Cai & DasGupta 2001,
sec. 4.1.1); 100 clusters of 400 questions at p = 0.99, 0.925 (0.940 with 1,200), its
misses mostly test sets with many errors: the error count over clusters is skewed, with
a longer tail away from the bound than the logit t allows.

There :func:`clustered_proportion_interval` gives **Clopper-Pearson's interval on the
effective sample size** (Korn & Graubard 1998, "Confidence intervals for proportions
with small expected number of positive counts estimated from survey data", *Survey
Methodology* 24, 193-201; R survey's ``svyciprop(method = "beta")``), the engine's
``method="korn_graubard"`` (:func:`mlci.intervals.bootstrap.effective_binomial_interval`):
``n* = p (1 - p) / se^2`` from the same CR2 standard error, times ``(z / t_df)^2``.
Of the candidates compared on the 85 designs over repeated answers or clusters
(Wilson, modified Wilson and Jeffreys on ``n*``; switches to Korn & Graubard's below a
count of effective minority outcomes; the logit t with the one-sided Poisson bound), it
is the only one that never fell below 0.935 (lowest 0.940, 0.932 as the switch near the
bound); the others' lowest 0.910-0.930 (Jeffreys', recommended with Wilson's by Franco,
Little, Louis & Slud 2019 for complex surveys, 0.910-0.933 in five cells, four of them
with ICC 0.3-0.5), docs/validation.md, "LLM evals: the cells left short".  Its price:
11 of 85 cells over-cover (0.970-1.0) that the logit t held, with median widths at
most 4% wider.  Away from the bound (``min(p, 1 - p) >= NEAR_BOUND``) and on the bound
(``p`` 0 or 1: no effective size to read) the logit t interval is kept, Wilson where it
is undefined, as the engine gives them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .bootstrap import effective_binomial_interval, wilson_interval
from .formulas import logit_t_interval
from .near_bound import MIN_EFFECTIVE_MINORITY, widen_few_minority

__all__ = [
    "MIN_EFFECTIVE_MINORITY",
    "NEAR_BOUND",
    "clustered_proportion_interval",
    "clustered_proportion_method",
    "widen_few_minority",
]

#: a proportion over conditions within this of 0 or 1 (not on it) gets Korn & Graubard's
#: interval; the engine's near-bound distance (``mlci.engine.auto.NEAR_BOUND``) too
NEAR_BOUND = 0.1


def _check_proportion(estimate: Any) -> float:
    if isinstance(estimate, bool) or not isinstance(estimate, (int, float, np.number)):
        raise TypeError(
            f"`estimate` must be a number (a proportion in [0, 1]); got {type(estimate).__name__}."
        )
    p = float(estimate)
    if not 0.0 <= p <= 1.0:  # NaN fails too
        raise ValueError(f"`estimate` must be a proportion in [0, 1]; got {estimate!r}.")
    return p


def clustered_proportion_method(estimate: float) -> str:
    """The interval of a proportion over conditions: ``"korn_graubard"`` where the
    estimate lies within :data:`NEAR_BOUND` of 0 or 1 but not on it, else ``"logit_t"``.

    Parameters
    ----------
    estimate : float
        The proportion, in [0, 1].

    Returns
    -------
    str
        ``"korn_graubard"`` or ``"logit_t"`` (:func:`mlci.bootstrap_ci`'s method names).

    Raises
    ------
    ValueError
        ``estimate`` outside [0, 1] or NaN.

    Examples
    --------
    >>> clustered_proportion_method(0.97), clustered_proportion_method(0.85)
    ('korn_graubard', 'logit_t')
    >>> clustered_proportion_method(1.0)  # on the bound: the logit t's Wilson fallback
    'logit_t'
    """
    p = _check_proportion(estimate)
    return "korn_graubard" if 0.0 < min(p, 1.0 - p) < NEAR_BOUND else "logit_t"


def clustered_proportion_interval(
    estimate: float,
    standard_error: float,
    df: float,
    *,
    effective_n: float,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
) -> tuple[float, float, str]:
    """The interval of a proportion over conditions (module doc): ``(low, high, method)``.

    Parameters
    ----------
    estimate : float
        The proportion, in [0, 1].
    standard_error : float
        Its standard error over the conditions (the engine's CR2 one), at least 0.
    df : float
        The degrees of freedom of the t reference (Imbens & Kolesar's), positive.
    effective_n : float
        The sample size over the design effect (the engine's ``effective_n``); used
        only on the bound, where Wilson's interval of that size is given.
    confidence_level : float, default 0.95
        In (0, 1).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        A one-sided interval ends at 0 (``"greater"``) or 1 (``"less"``).

    Returns
    -------
    low, high : float
        The bounds.
    method : str
        ``"korn_graubard"`` (Clopper-Pearson on the effective sample size ``n* = p (1 -
        p) / se^2``, times ``(z / t_df)^2``: Korn & Graubard 1998) within
        :data:`NEAR_BOUND` of 0 or 1, else ``"logit_t"`` (Wilson of ``effective_n``
        where the logit t is undefined: the estimate 0 or 1, or no standard error).

    Raises
    ------
    ValueError
        An argument outside its range (named in the message).

    Examples
    --------
    >>> low, high, method = clustered_proportion_interval(0.98, 0.008, 39.0, effective_n=300)
    >>> method, round(low, 4), round(high, 4)
    ('korn_graubard', 0.9563, 0.9928)
    """
    p = _check_proportion(estimate)
    for name, value, ok, what in (
        ("standard_error", standard_error, lambda v: v >= 0, "at least 0"),
        ("df", df, lambda v: v > 0, "positive"),
        ("effective_n", effective_n, lambda v: v > 0, "positive"),
        ("confidence_level", confidence_level, lambda v: 0 < v < 1, "in (0, 1)"),
    ):
        v = float(value) if isinstance(value, (int, float, np.number)) else math.nan
        if isinstance(value, bool) or not (math.isfinite(v) and ok(v)):
            raise ValueError(f"`{name}` must be a finite number {what}; got {value!r}.")
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(
            f"`alternative` must be one of 'two-sided', 'greater', 'less'; got {alternative!r}."
        )
    method = clustered_proportion_method(p)
    level, df = float(confidence_level), float(df)
    if method == "korn_graubard" and standard_error > 0:
        low, high, info = effective_binomial_interval(
            p, standard_error, df, confidence_level=level, alternative=alternative
        )
        lin = {"standard_error": standard_error, "df": df, "effective_n": effective_n}
        low, high, _ = widen_few_minority(
            p, lin, low, high, info, confidence_level=level, alternative=alternative
        )
        return float(low), float(high), method
    low, high, info = logit_t_interval(
        p, standard_error, df, confidence_level=level, alternative=alternative, bounds=(0.0, 1.0)
    )
    if "undefined" in info:
        low, high, _ = wilson_interval(
            p, float(effective_n), df, confidence_level=level, alternative=alternative
        )
    return float(low), float(high), "logit_t"
