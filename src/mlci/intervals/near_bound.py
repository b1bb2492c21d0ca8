"""Korn & Graubard's interval of a proportion over conditions with few minority outcomes:
widened to hold the logit t interval (:func:`widen_few_minority`; the interval itself:
:func:`mlci.intervals.bootstrap.effective_binomial_interval`, the rule that gives it:
:mod:`mlci.engine.clustered_edge`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .formulas import logit_t_interval

__all__ = ["MIN_EFFECTIVE_MINORITY", "widen_few_minority"]


#: fewer effective minority outcomes than this (``min(p, 1 - p) n*``, ``n* = p (1 - p) /
#: se^2``) and Korn & Graubard's interval of a proportion over conditions is widened to
#: hold the logit t interval too (:func:`widen_few_minority`); the engine's near-bound
#: warning threshold (``mlci.engine.auto.MIN_EFFECTIVE_MINORITY``)
MIN_EFFECTIVE_MINORITY = 4.0


def widen_few_minority(
    estimate: Any,
    linear: dict[str, Any],
    low: Any,
    high: Any,
    info: dict[str, Any],
    *,
    confidence_level: float,
    alternative: str = "two-sided",
) -> tuple[Any, Any, dict[str, Any]]:
    """Korn & Graubard's interval ``(low, high)`` of a proportion over conditions, widened
    to the logit t interval's bounds where the estimate rests on fewer than
    :data:`MIN_EFFECTIVE_MINORITY` effective minority outcomes (``linear``: the engine's
    linearization, ``standard_error``, ``df``, ``effective_n``).

    There the two intervals miss on opposite sides: Korn & Graubard's lower bound is too
    high when a test set of clustered errors happens to hold few of them (accuracy 0.98
    over 20 conditions of 20, ICC 0.1: 0.78 on test sets with fewer than 2 effective
    errors, the logit t 1.00), the logit t's upper bound too low with one error in a
    test set (30 questions answered 3 times at p = 0.999: 0.90, Korn & Graubard's 1.00);
    their union covered as much as the better of the two in every cell compared
    (docs/validation.md, "One door for a proportion over conditions near its bound").

    Examples
    --------
    >>> lin = {"standard_error": 0.006, "df": 19.0, "effective_n": 330.0}
    >>> low, high, info = widen_few_minority(0.99, lin, 0.9771, 0.9975, {},
    ...                                      confidence_level=0.95)
    >>> round(float(low), 4), round(float(high), 4), "widened" in info
    (0.9653, 0.9975, True)
    """
    p = float(estimate)
    n_eff = linear.get("effective_n")
    se = float(linear["standard_error"])
    if n_eff is None or not (0 < p < 1 and se > 0):
        return low, high, info
    if min(p, 1 - p) * float(n_eff) >= MIN_EFFECTIVE_MINORITY:
        return low, high, info
    ll, lh, lt = logit_t_interval(
        p, se, float(linear["df"]), confidence_level=confidence_level, alternative=alternative,
        bounds=(0.0, 1.0),
    )  # fmt: skip
    if "undefined" in lt:
        return low, high, info
    info = {**info, "widened": (
        f"fewer than {MIN_EFFECTIVE_MINORITY:g} effective minority outcomes: widened to hold "
        "the logit t interval"
    )}  # fmt: skip
    return np.minimum(low, ll), np.maximum(high, lh), info
