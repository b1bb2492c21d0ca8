"""``method="auto"`` of the Brier score over few conditions: the logit t interval.

The engine's rule for a metric with a derivative is the studentized (bootstrap-t)
interval (:func:`mlci.engine.auto.choose_method`).  Over few conditions the bootstrap-t
statistic of a Brier score is drawn from few, skewed condition sums (a confident system's
score is carried by its few confident mistakes), and the interval fell short: the seed-9
design search's s9m #195 and #90 (10 and 24 conditions, logit slope 7-12) covered
0.895-0.905.  ``scripts/brier_conditions_study.py`` (docs/validation.md, "Few errors over
conditions: the EER at a high ICC, and the Brier score"; 96 designs, n 150 or 1,000,
prevalence 0.05 or 0.2, slope 0.2-10, 10-50 unequal conditions at ICC 0.1 or 0.3, 200
test sets each) gave the numbers in :data:`BRIER_CONDITIONS_REASON`: below
:data:`BRIER_LOGIT_T_CONDITIONS` conditions the logit t interval of the CR2 standard
error with Imbens & Kolesar's degrees of freedom (the proportion's rule over conditions)
was nearer the level; over 50 the studentized interval was, and stays.  (The search's
s9m #90, 24 conditions, was a defect of the search's truth: its 80-node quadrature is 14%
high at a logit slope of 11.9; with the truth on a fine grid the studentized interval
covered 0.947.)
"""

from __future__ import annotations

from typing import Any

__all__ = ["BRIER_CONDITIONS_REASON", "BRIER_LOGIT_T_CONDITIONS", "brier_auto_method"]

#: a binary Brier score over fewer conditions than this gets the logit t interval under
#: ``auto`` (one-stage resampling of whole conditions, no strata); from this many on the
#: engine's studentized interval.  The study's grid has 10, 16, 24 and 50 conditions: the
#: logit t interval was nearer the level over 10 and 16 (mean |coverage - 0.95| 0.018
#: and 0.014 against 0.027 and 0.021), alike over 24 (0.017, 0.018), farther over 50
#: (0.013, 0.014); 20 is also where the engine's few-conditions warning starts
BRIER_LOGIT_T_CONDITIONS = 20
#: why (``method_reason``)
BRIER_CONDITIONS_REASON = (
    "logit_t: the Brier score over fewer than 20 conditions (t interval on the logit "
    "scale with the CR2 standard error and Imbens & Kolesar's degrees of freedom): in "
    "mlci's study (scripts/brier_conditions_study.py; docs/validation.md, 'Few errors over "
    "conditions: the EER at a high ICC, and the Brier score'; 48 designs over 10-16 "
    "conditions, 200 test sets each) it covered 0.930-1.000 (mean 0.957, below 0.935 in "
    "6) where the studentized interval covered 0.855-0.985 (mean 0.932, below 0.935 in 21) "
    "and BCa 0.820-0.950 (44 below), at 1.1-2.8 times BCa's median width (median 1.3); "
    "the seed-9 search's s9m #195 (10 conditions, a confident system): 0.990 against the "
    "studentized 0.890 (300 test sets).  Over 24 conditions the two were alike, over 50 "
    "the studentized interval was nearer, and is kept"
)


def brier_auto_method(plan: Any) -> tuple[str, str] | None:
    """``(method, reason)`` of ``method="auto"`` for a binary Brier score under ``plan``:
    the logit t interval (:data:`BRIER_CONDITIONS_REASON`) over fewer than
    :data:`BRIER_LOGIT_T_CONDITIONS` whole conditions resampled in one stage, without
    strata or Poisson weights; otherwise None (the engine's rules).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> plan = SimpleNamespace(unit_of_sample=[0, 0, 1], n_conditions=12, scheme="conditions")
    >>> brier_auto_method(plan)[0]
    'logit_t'
    >>> brier_auto_method(SimpleNamespace(unit_of_sample=None, n_conditions=None)) is None
    True
    """
    if (
        getattr(plan, "unit_of_sample", None) is None
        or getattr(plan, "two_stage", False)
        or getattr(plan, "poisson", False)
        or getattr(plan, "stratum_of_sample", None) is not None
        or str(getattr(plan, "scheme", "")).startswith("nested")
    ):
        return None
    n_cond = getattr(plan, "n_conditions", None)
    if n_cond is None or n_cond >= BRIER_LOGIT_T_CONDITIONS:
        return None
    return "logit_t", BRIER_CONDITIONS_REASON
