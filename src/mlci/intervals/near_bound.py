"""Korn & Graubard's interval from a linearization: one function for every door.

:func:`korn_graubard_interval` is what ``method="korn_graubard"`` gives, whether named
(:func:`mlci.intervals.bootstrap.interval_from_replicates`) or chosen by ``"auto"``
(the rule for a proportion over conditions, :mod:`mlci.engine.clustered_edge`, and the
studentized interval's near-bound fallback,
:func:`mlci.intervals.bootstrap.edge_interval`): Clopper-Pearson on the effective sample
size of the linearized standard error
(:func:`mlci.intervals.bootstrap.effective_binomial_interval`), widened to hold the
logit t interval where a proportion over conditions rests on few minority outcomes
(:func:`widen_few_minority`), the exact interval of the nominal size on the edge of the
range, and the design effect taken as 1 where the standard error over the conditions
is 0 (:func:`korn_graubard_interval`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import DegenerateIntervalWarning
from ..feedback import warn
from .formulas import logit_t_interval

__all__ = ["MIN_EFFECTIVE_MINORITY", "ZERO_SE", "korn_graubard_interval", "widen_few_minority"]

#: a standard error below this fraction of the metric's range counts as 0 (no design
#: effect to read): an effective size above ``1e16 u (1 - u)``, more than any test set
#: holds; what the numerical gradient leaves of a zero (1.9e-10 for balanced accuracy in
#: tests/_edge_designs.py's ZERO_SE)
ZERO_SE = 1e-8


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


def _design_effect_one(
    estimate: np.ndarray, linear: dict[str, Any], bounds: tuple[float, float]
) -> np.ndarray | None:
    """The standard error with the design effect taken as 1 (the samples as independent),
    where the one over the conditions is 0: ``sqrt(u (1 - u) / n)`` on the range of a
    proportion of ``n`` (``linear["effective_n"]``, the nominal size there: Korn &
    Graubard's ``n* = n``), else the linearization of the samples as independent
    (``linear["standard_error_iid"]``); None where neither is known."""
    n = linear.get("effective_n")
    if n is not None:
        lo, hi = float(bounds[0]), float(bounds[1])
        u = np.clip((estimate - lo) / (hi - lo), 0.0, 1.0)
        return (hi - lo) * np.sqrt(u * (1.0 - u) / float(n))
    se_iid = linear.get("standard_error_iid")
    return None if se_iid is None else np.asarray(se_iid, dtype=float)


def korn_graubard_interval(
    estimate: Any,
    linear: dict[str, Any],
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] = (0.0, 1.0),
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """``method="korn_graubard"`` of ``estimate`` from its linearization ``linear``
    (``standard_error``, ``df``, ``iid``; ``effective_n`` for a proportion;
    ``standard_error_iid`` where the standard error over conditions is 0), by every door.

    * Clopper-Pearson on the effective sample size ``n* = u (1 - u) / se^2`` of the metric
      rescaled to ``u`` on its range, times ``(z / t_df)^2`` over conditions (Korn &
      Graubard 1998; :func:`mlci.intervals.bootstrap.effective_binomial_interval`);
    * a proportion over conditions with fewer than :data:`MIN_EFFECTIVE_MINORITY`
      effective minority outcomes: widened to hold the logit t interval
      (:func:`widen_few_minority`);
    * an estimate on the edge of the range: the exact interval of the nominal size
      (``effective_n``), ``info["fallback"]`` says so;
    * a standard error of 0 over the conditions (every condition the same share, or a
      single varying one): no design effect to read (0 is below 1), so it is taken as 1,
      as Korn & Graubard's effective sample size is used in practice (``n* = min(n,
      n_KG)``, the design effect truncated at 1: NCHS's implementation for its data
      presentation standards, CDC's R package surveytable ``svyciprop_adjusted``, Parker
      et al. 2017; Stata's ``svypd`` sets ``n* = n`` where the standard error is 0): the
      exact interval of ``n`` for a proportion, else Clopper-Pearson on the standard
      error of the samples as independent (``standard_error_iid``), without the degrees
      of freedom factor; ``info["design_effect_one"]`` counts them.  R's
      ``survey::svyciprop(method = "beta")`` reads ``n* = p (1 - p) / 0``: infinite, its
      interval ``[0.5, 0.5]`` for any ``p``;
    * anything else undefined (no standard error for design effect 1 either): both
      bounds NaN, with a :class:`~mlci.DegenerateIntervalWarning`.

    Examples
    --------
    >>> lin = {"standard_error": 0.0287, "df": 19.0, "effective_n": 80.0, "iid": False}
    >>> low, high, _ = korn_graubard_interval(0.9375, lin, confidence_level=0.95)
    >>> round(float(low), 4), round(float(high), 4)
    (0.8461, 0.9831)
    >>> zero = {"standard_error": 0.0, "df": 9.0, "effective_n": 100.0, "iid": False}
    >>> low, high, info = korn_graubard_interval(0.9, zero, confidence_level=0.95)
    >>> round(float(low), 4), round(float(high), 4), info["design_effect_one"]  # binomtest
    (0.8238, 0.951, 1)
    """
    from .bootstrap import effective_binomial_interval  # (bootstrap imports this module)

    if bounds is None or not np.all(np.isfinite(bounds)):
        raise ValueError(
            "method='korn_graubard' (Clopper-Pearson on the effective sample size) needs a "
            "metric with a bounded range; this one is unbounded: use method='t' or "
            "'studentized'."
        )
    estimate = np.asarray(estimate, dtype=float)
    se = np.broadcast_to(np.asarray(linear["standard_error"], dtype=float), estimate.shape)
    iid = bool(linear.get("iid"))
    low, high, info = effective_binomial_interval(
        estimate, se, None if iid else linear["df"], confidence_level=confidence_level,
        alternative=alternative, bounds=bounds, nominal_n=linear.get("effective_n"),
    )  # fmt: skip
    lo, hi = float(bounds[0]), float(bounds[1])
    zero = (se <= ZERO_SE * (hi - lo)) & (estimate > lo) & (estimate < hi)
    se_one = _design_effect_one(estimate, linear, bounds) if np.any(zero) else None
    if se_one is not None:
        ol, oh, _ = effective_binomial_interval(
            estimate, np.where(zero, se_one, 1.0), None, confidence_level=confidence_level,
            alternative=alternative, bounds=bounds,
        )  # fmt: skip
        use = zero & np.isfinite(ol) & np.isfinite(oh)
        if np.any(use):
            low, high = np.where(use, ol, low), np.where(use, oh, high)
            info["design_effect_one"] = int(np.sum(use))
            info["fallback"] = (
                "the standard error over the conditions is 0 (no design effect to read): "
                "the design effect taken as 1, Clopper-Pearson on the samples as independent"
            )
    if not iid and linear.get("effective_n") is not None:
        low, high, info = widen_few_minority(
            estimate, linear, low, high, info, confidence_level=confidence_level,
            alternative=alternative,
        )  # fmt: skip
    if "edge_exact" in info:
        info["fallback"] = (
            "korn_graubard undefined (the estimate on the edge of its range); the exact "
            "interval of the nominal size used"
        )
    # undefined (no standard error at all, no exact interval): both bounds NaN, said so
    undefined = np.isnan(low) | np.isnan(high)
    if np.any(undefined):
        low, high = np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)
        warn(
            f"method='korn_graubard' is undefined for {int(np.sum(undefined))} element(s): "
            "the standard error is 0 and the samples' own (design effect 1) is unknown or 0 "
            "too, so there is no effective sample size to read; the bounds are NaN. "
            "method='auto' gives an interval there, or use method='percentile'.",
            DegenerateIntervalWarning,
        )
    return np.asarray(low), np.asarray(high), info
