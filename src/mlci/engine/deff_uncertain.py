"""A proportion over few conditions whose design effect is uncertain (session 12).

Korn & Graubard's interval of a proportion over conditions (``auto``'s near the bound,
:mod:`mlci.engine.clustered_edge`) rests on the design effect, which over ``K``
conditions is read from a between-condition variance with ``K - 1`` degrees of freedom.
Where the conditions' error rates are skewed (the errors fall in a few conditions), the
test sets that happen to draw few of the heavy conditions estimate a small design effect
and a small error rate together, and their interval lies above the truth: seed-16
decision #60 (accuracy 0.938 of 2,984 samples over 14 conditions, ICC 0.27, true design
effect about 58) covered 0.880 of 300 test sets, its misses estimating a design effect
near 6, and only 2 of its 36 misses warned.  The near-bound clause of
:func:`mlci.engine.auto.warn_outside_map` warns below
:data:`mlci.engine.auto.MIN_EFFECTIVE_MINORITY` effective minority outcomes
(``min(p, 1 - p) n / deff``); it reads the design effect as estimated.  This clause
reads it at an upper confidence bound of its between-condition part,
``deff_U = 1 + (deff - 1)_+ (K - 1) / chi2_{alpha}(K - 1)`` (the one-sided ``1 - alpha``
bound of a variance on ``K - 1`` degrees of freedom), and warns where the effective
minority outcomes on that bound, ``min(p, 1 - p) n / deff_U``, fall below
:data:`UNCERTAIN_MINORITY`: the data cannot rule out a design effect that leaves
too few effective errors for any method to hold (docs/validation.md, "Proportions over
few conditions whose design effect is uncertain").
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "UNCERTAIN_ALPHA",
    "UNCERTAIN_MINORITY",
    "UNCERTAIN_MIN_DEFF",
    "UNCERTAIN_RANGE",
    "design_effect_upper",
    "uncertain_design_effect_message",
    "uncertain_design_effect_rule",
    "uncertain_minority",
]

#: the one-sided level of the design effect's upper bound: ``chi2_{alpha}(K - 1)``
UNCERTAIN_ALPHA = 0.05
#: fewer effective minority outcomes than this on the design effect's upper bound warns
#: (``scripts/deff_uncertain_rules.py``: at ``alpha`` 0.05, 4 / 5 / 6 / 8 warned 0.39 /
#: 0.61 / 0.69 / 0.81 of seed-16 #60's misses, and added 7 / 10 / 13 / 16 points of
#: warnings on the grid's test sets where ``auto`` held)
UNCERTAIN_MINORITY = 6.0
#: ... where the errors cluster: an estimated design effect at least this (below, the
#: clause would only repeat the near-bound clause's count of few errors with a higher
#: threshold: at ICC 0 it warned 7.2% of the test sets where ``auto`` held, 1.1% with it)
UNCERTAIN_MIN_DEFF = 1.5
#: the conditions it applies over: from the coverage map's 8 (below, every interval
#: warns) to 19, as :data:`mlci.engine.few_conditions_class.FEW_CONDITIONS_RANGE` (over
#: 20 and 30 conditions the clause added 0.07 of the misses warned in the short cells at
#: 0.11-0.12 more warnings where ``auto`` held, and warned on the coverage map's cell
#: of accuracy 0.95 over 20 conditions of 20 at ICC 0.1, where the interval holds)
UNCERTAIN_RANGE = (8, 20)
#: within this of 0 or 1 (``mlci.engine.clustered_edge.NEAR_BOUND``)
_NEAR_BOUND = 0.1
#: the near-bound clause's threshold (``mlci.engine.auto.MIN_EFFECTIVE_MINORITY``)
_NEAR_BOUND_MINORITY = 4.0


def design_effect_upper(
    design_effect: float, n_conditions: int, alpha: float = UNCERTAIN_ALPHA
) -> float:
    """The design effect with its between-condition part, ``deff - 1``, at the one-sided
    ``1 - alpha`` upper confidence bound of a variance on ``n_conditions - 1`` degrees of
    freedom: ``1 + max(deff - 1, 0) (K - 1) / chi2_{alpha}(K - 1)``.

    Examples
    --------
    >>> round(design_effect_upper(4.95, 14), 2)  # seed-16 #60, test set 30
    9.72
    >>> design_effect_upper(0.8, 14)  # no between-condition part
    1.0
    """
    from scipy.stats import chi2

    k = int(n_conditions)
    if k < 2:
        raise ValueError(f"n_conditions must be at least 2 to bound a design effect, got {k}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if not math.isfinite(design_effect):
        raise ValueError(f"design_effect must be finite, got {design_effect!r}")
    factor = (k - 1) / float(chi2.ppf(alpha, k - 1))
    return 1.0 + max(float(design_effect) - 1.0, 0.0) * factor


def uncertain_minority(diag: dict[str, Any]) -> float | None:
    """The effective minority outcomes on the design effect's upper bound of a
    proportion's diagnostics (``estimate``, ``design_effect``, ``effective_n``,
    ``n_conditions``), or None where the clause does not apply."""
    p, deff, eff = diag.get("estimate"), diag.get("design_effect"), diag.get("effective_n")
    k = diag.get("n_conditions")
    if p is None or deff is None or eff is None or k is None:
        return None
    lo, hi = UNCERTAIN_RANGE
    q = min(float(p), 1.0 - float(p))
    deff, eff = float(deff), float(eff)
    if not (lo <= int(k) < hi and 0.0 < q < _NEAR_BOUND and math.isfinite(eff) and eff > 0):
        return None
    if not (math.isfinite(deff) and deff >= UNCERTAIN_MIN_DEFF):
        return None
    n = eff * deff  # the samples the effective size was read from
    return q * n / design_effect_upper(deff, int(k))


def uncertain_design_effect_rule(diag: dict[str, Any]) -> bool:
    """Whether a proportion's diagnostics lie where the clause warns: over
    :data:`UNCERTAIN_RANGE` conditions, within 0.1 of 0 or 1, a design effect of at least
    :data:`UNCERTAIN_MIN_DEFF`, fewer than :data:`UNCERTAIN_MINORITY` effective minority
    outcomes on the design effect's upper bound (:func:`design_effect_upper`), and not
    already fewer than 4 on the design effect as estimated (the near-bound clause of
    :func:`mlci.engine.auto.warn_outside_map` says so there).

    Examples
    --------
    >>> s60 = {"estimate": 0.9816, "design_effect": 4.95, "effective_n": 602.4,
    ...        "n_conditions": 14}  # seed-16 #60, test set 30
    >>> uncertain_design_effect_rule(s60)
    True
    >>> uncertain_design_effect_rule({**s60, "n_conditions": 7})  # every result warns
    False
    """
    m = uncertain_minority(diag)
    if m is None or m >= UNCERTAIN_MINORITY:
        return False
    q = min(float(diag["estimate"]), 1.0 - float(diag["estimate"]))
    return q * float(diag["effective_n"]) >= _NEAR_BOUND_MINORITY


def uncertain_design_effect_message(diag: dict[str, Any]) -> str:
    """The clause's sentence.

    Examples
    --------
    >>> s60 = {"estimate": 0.9816, "design_effect": 4.95, "effective_n": 602.4,
    ...        "n_conditions": 14}
    >>> uncertain_design_effect_message(s60)[:46]
    'A proportion of 0.982 over 14 conditions whose'
    """
    k = int(diag["n_conditions"])
    upper = design_effect_upper(float(diag["design_effect"]), k)
    m = uncertain_minority(diag)
    return (
        f"A proportion of {float(diag['estimate']):.3g} over {k} conditions whose design "
        f"effect, {float(diag['design_effect']):.3g} as estimated from {k - 1} degrees of "
        f"freedom, may be as large as {upper:.3g} ({1 - UNCERTAIN_ALPHA:g} upper bound of "
        f"its between-condition part), leaving {m:.2g} effective minority outcomes (below "
        f"{UNCERTAIN_MINORITY:g}): where the errors fall in a few conditions, the test sets "
        "that drew few of them understate the design effect and their interval lies above "
        "the truth (accuracy over 14 conditions at ICC 0.27: no method held, 0.81-0.88, "
        "docs/validation.md, 'Proportions over few conditions whose design effect is "
        "uncertain')"
    )
