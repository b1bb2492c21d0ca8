"""Korn & Graubard's interval from a linearization: one function for every door.

:func:`korn_graubard_interval` is what ``method="korn_graubard"`` gives, whether named
(:func:`mlci.intervals.bootstrap.interval_from_replicates`) or chosen by ``"auto"``
(the rule for a proportion over conditions, :mod:`mlci.engine.clustered_edge`, and the
studentized interval's near-bound fallback,
:func:`mlci.intervals.bootstrap.edge_interval`): Clopper-Pearson on the effective sample
size of the linearized standard error
(:func:`effective_binomial_interval`), widened to hold the
logit t interval where a proportion over conditions rests on few minority outcomes
(:func:`widen_few_minority`), the exact interval of the nominal size on the edge of the
range, the design effect truncated at 1 where it is estimated below 1, and taken as 1
where the standard error over the conditions is 0 (:func:`korn_graubard_interval`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import DegenerateIntervalWarning
from ..feedback import warn
from .formulas import logit_t_interval
from .formulas import one_sided as _one_sided
from .formulas import quantile as _t_quantile
from .formulas import tails as _tails

__all__ = [
    "MIN_EFFECTIVE_MINORITY",
    "TRUNCATION_TEXT",
    "UNION_BELOW_CONDITIONS",
    "ZERO_SE",
    "effective_binomial_interval",
    "korn_graubard_interval",
    "nominal_size",
    "widen_few_minority",
    "wilson_size",
]

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

#: over fewer conditions than this (``linear["n_units"]``) Korn & Graubard's interval of
#: a proportion is widened to hold the logit t interval whatever its minority outcomes:
#: there neither holds and each misses where the other covers (5 conditions at ICC 0.05,
#: ``scripts/kg_few_conditions_study.py``: Korn & Graubard 0.69-1.00, the logit t
#: 0.79-1.00, their union 0.80-1.00 at 0-4% more median width; docs/validation.md,
#: "Proportions over few conditions at ICC 0.05 under auto"); the engine's
#: ``mlci.engine.clustered_edge.MIN_CONDITIONS``
UNION_BELOW_CONDITIONS = 8


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
    :data:`MIN_EFFECTIVE_MINORITY` effective minority outcomes, or on fewer than
    :data:`UNION_BELOW_CONDITIONS` conditions (``linear``: the engine's linearization,
    ``standard_error``, ``df``, ``effective_n``, ``n_units``).

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
    units = linear.get("n_units")
    few_conditions = units is not None and int(units) < UNION_BELOW_CONDITIONS
    if min(p, 1 - p) * float(n_eff) >= MIN_EFFECTIVE_MINORITY and not few_conditions:
        return low, high, info
    ll, lh, lt = logit_t_interval(
        p, se, float(linear["df"]), confidence_level=confidence_level, alternative=alternative,
        bounds=(0.0, 1.0),
    )  # fmt: skip
    if "undefined" in lt:
        return low, high, info
    why = (
        f"fewer than {UNION_BELOW_CONDITIONS} conditions"
        if few_conditions
        else f"fewer than {MIN_EFFECTIVE_MINORITY:g} effective minority outcomes"
    )
    info = {**info, "widened": f"{why}: widened to hold the logit t interval"}
    return np.minimum(low, ll), np.maximum(high, lh), info


def effective_binomial_interval(
    theta_hat: Any,
    se_hat: Any,
    df: float | None,
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] = (0.0, 1.0),
    nominal_n: Any = None,
    max_n: Any = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Clopper-Pearson's interval on the effective sample size (Korn & Graubard 1998).

    The metric is rescaled to ``u`` in [0, 1] on its range (``bounds``); the effective
    sample size ``n* = u (1 - u) / se_u^2`` is the binomial size with the same standard
    error, times ``(z / t_df)^2`` with ``df`` degrees of freedom (conditions), and
    ``k* = u n*`` the effective count.  The bounds are Clopper & Pearson's (1934) beta
    quantiles at those (non-integer) counts: ``Beta(a/2; k*, n* - k* + 1)`` and
    ``Beta(1 - a/2; k* + 1, n* - k*)``.  Korn & Graubard (1998, "Confidence intervals for
    proportions with small expected number of positive counts estimated from survey
    data", *Survey Methodology* 24, 193-201) propose it for a proportion from a complex
    survey with few events, where Wald-type intervals fail; for a proportion of ``n``
    independent samples (``n* = n``) it is the exact interval.  mlci uses it where the
    bootstrap-t interval of a decision metric is edge-dominated (:func:`edge_dominated`):
    a handful of errors.  NaN (``info["undefined"]``) where the estimate is on the edge
    of the range or the standard error is 0; with ``nominal_n`` (the sample size) an
    estimate on the edge gets instead the exact interval of ``k = n`` or ``k = 0`` of that
    size (``info["edge_exact"]`` counts them): no error at all, no effective size to read.
    With ``max_n`` (the size of the samples as independent) the effective size is at most
    that, ``n* = min(max_n, n*)``: the design effect truncated at 1, after the degrees of
    freedom factor, as NCHS computes it (Parker et al. 2017; CDC's R package surveytable,
    ``svyciprop_adjusted``); ``info["design_effect_truncated"]`` counts the elements.

    Examples
    --------
    >>> low, high, _ = effective_binomial_interval(0.99, np.sqrt(0.99 * 0.01 / 100), None,
    ...                                            confidence_level=0.95)
    >>> round(float(low), 4), round(float(high), 4)  # scipy binomtest(99, 100): exact
    (0.9455, 0.9997)
    """
    from scipy.stats import beta

    theta_hat = np.asarray(theta_hat, dtype=float)
    se_hat = np.asarray(se_hat, dtype=float)
    lo, hi = float(bounds[0]), float(bounds[1])
    p_lo, p_hi = _tails(confidence_level, alternative)
    with np.errstate(invalid="ignore", divide="ignore"):
        u = (theta_hat - lo) / (hi - lo)
        se_u = se_hat / (hi - lo)
        n = u * (1 - u) / se_u**2
        if df is not None:
            z = float(_t_quantile(p_hi))
            n = n * (z / float(_t_quantile(p_hi, df))) ** 2
        capped = None
        if max_n is not None:  # the design effect truncated at 1: n* = min(n, n_KG)
            cap = np.asarray(max_n, dtype=float)
            capped = np.isfinite(n) & (n > cap) & (cap > 0)
            n = np.where(capped, cap, n)
        k = u * n
        bad = ~((u > 0) & (u < 1) & (se_u > 0) & np.isfinite(n))
        kk, nn = np.where(bad, 0.5, k), np.where(bad, 1.0, n)
        low = lo + (hi - lo) * beta.ppf(p_lo, kk, nn - kk + 1)
        high = lo + (hi - lo) * beta.ppf(p_hi, kk + 1, nn - kk)
    info: dict[str, Any] = {"effective_n": n if np.ndim(n) else float(n)}
    if capped is not None and np.any(capped & ~bad):
        info["design_effect_truncated"] = int(np.sum(capped & ~bad))
    if nominal_n is not None:
        size = np.asarray(nominal_n, dtype=float)
        top, bottom = u >= 1, u <= 0
        edge = (top | bottom) & bad
        if np.any(edge):
            low = np.where(top, lo + (hi - lo) * beta.ppf(p_lo, size, 1), np.where(bottom, lo, low))
            high = np.where(
                bottom, lo + (hi - lo) * beta.ppf(p_hi, 1, size), np.where(top, hi, high)
            )
            bad = bad & ~edge
            info["edge_exact"] = int(np.sum(edge))
    if np.any(bad):
        info["undefined"] = int(np.sum(bad))
        low, high = np.where(bad, np.nan, low), np.where(bad, np.nan, high)
    low, high = _one_sided(np.asarray(low), np.asarray(high), alternative, bounds)
    return low, high, info


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


def nominal_size(
    estimate: np.ndarray, linear: dict[str, Any], bounds: tuple[float, float]
) -> np.ndarray | None:
    """The size of the samples as independent (design effect 1) in Korn & Graubard's
    terms: a proportion's nominal ``n`` (``effective_n * design_effect`` of the
    linearization, :mod:`mlci.engine.linearize`), else ``u (1 - u) / se_iid^2`` from the
    standard error of the samples as independent (``standard_error_iid``) on the range;
    None where neither is known."""
    eff, deff = linear.get("effective_n"), linear.get("design_effect")
    if eff is not None and deff is not None:
        return np.asarray(float(eff) * float(deff))
    se_iid = linear.get("standard_error_iid")
    if se_iid is None:
        return None
    lo, hi = float(bounds[0]), float(bounds[1])
    u = np.clip((estimate - lo) / (hi - lo), 0.0, 1.0)
    se_u = np.asarray(se_iid, dtype=float) / (hi - lo)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(se_u > 0, u * (1.0 - u) / se_u**2, np.nan)


#: ``info["truncation"]`` of an interval whose design effect was truncated at 1
TRUNCATION_TEXT = (
    "the estimated design effect is below 1 (the conditions vary less than binomially): "
    "truncated at 1, the effective sample size at most the nominal n (NCHS's rule for "
    "Korn & Graubard's interval)"
)


def wilson_size(
    linear: dict[str, Any], *, confidence_level: float, alternative: str = "two-sided"
) -> tuple[float, float | None, bool]:
    """``(n, df, truncated)`` for ``method="wilson"`` of a proportion
    (:func:`mlci.intervals.bootstrap.wilson_interval`'s ``n_eff`` and ``df``): the
    linearization's effective size and degrees of freedom, unless over conditions the
    estimated design effect is below 1 so far that the effective size after the degrees
    of freedom factor, ``n_eff (z / t_df)^2``, exceeds the nominal size ``n``
    (``effective_n * design_effect``): then ``(n, None, True)``, Wilson's interval of the
    ``n`` samples as independent, the design effect truncated at 1 as for Korn &
    Graubard's interval (:func:`korn_graubard_interval`; NCHS's ``n* = min(n, n_KG
    (z / t_df)^2)``).  On the session-10 grid's test sets
    (``scripts/kg_wilson_truncation.py``; docs/validation.md, "Proportions over few
    conditions at ICC 0.05 under auto") it lifted the test sets with a design effect below
    1 at ICC 0 from 0.934 to 0.949 and the cells short of 0.935 there from 5 to 2 of 80,
    no cell lower.

    Examples
    --------
    >>> lin = {"effective_n": 800.0, "design_effect": 0.5, "df": 29.0, "iid": False}
    >>> wilson_size(lin, confidence_level=0.95)  # n_KG (z/t)^2 = 734.6 > 400
    (400.0, None, True)
    >>> wilson_size({**lin, "design_effect": 1.2}, confidence_level=0.95)
    (800.0, 29.0, False)
    """
    eff, df = float(linear["effective_n"]), linear.get("df")
    deff = linear.get("design_effect")
    if linear.get("iid") or df is None or deff is None or not np.isfinite(float(deff)):
        return eff, None if linear.get("iid") else df, False
    p_hi = _tails(confidence_level, alternative)[1]
    adjusted = eff * (float(_t_quantile(p_hi)) / float(_t_quantile(p_hi, float(df)))) ** 2
    nominal = eff * float(deff)
    if 0 < nominal < adjusted:
        return nominal, None, True
    return eff, float(df), False


def korn_graubard_interval(
    estimate: Any,
    linear: dict[str, Any],
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] = (0.0, 1.0),
    truncate: bool = True,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """``method="korn_graubard"`` of ``estimate`` from its linearization ``linear``
    (``standard_error``, ``df``, ``iid``; ``effective_n`` for a proportion;
    ``standard_error_iid`` where the standard error over conditions is 0), by every door.

    * Clopper-Pearson on the effective sample size ``n* = u (1 - u) / se^2`` of the metric
      rescaled to ``u`` on its range, times ``(z / t_df)^2`` over conditions (Korn &
      Graubard 1998; :func:`effective_binomial_interval`);
    * an estimated design effect below 1 (``n_KG = u (1 - u) / se^2`` above the nominal
      size ``n``: the conditions vary less than binomially, on about half the test sets
      where they do not vary at all): truncated at 1 (``truncate``, the default),
      ``n* = min(n, n_KG (z / t_df)^2)`` as NCHS computes it (Parker et al. 2017; CDC's
      R package surveytable, ``svyciprop_adjusted``; Stata's ``svypd, truncate`` sets
      ``n* = n`` before the df factor), the minority outcomes below counted on ``min(n,
      n_KG)`` too; ``info["truncation"]`` says so.  ``n`` is a proportion's
      (:func:`nominal_size`: ``effective_n * design_effect`` of the linearization), or
      another metric's ``u (1 - u) / se_iid^2`` where its standard error as independent
      samples (``standard_error_iid``) is known; else none is read and nothing changes.
      The truncation only widens, where the design effect is below 1.  R's
      ``survey::svyciprop(method = "beta")`` does not truncate (``truncate=False``).
      In the coverage study (``scripts/kg_truncation_study.py``; docs/validation.md,
      "Korn & Graubard's design effect truncated at 1 (session 10)": accuracy over 5-100
      conditions, ICC 0-0.05, 240 cells) the test sets with a design effect below 1
      covered 0.959, 0.947, 0.929 untruncated (ICC 0, 0.01, 0.05) and 0.975, 0.956, 0.934
      truncated; no cell fell, the changed intervals 1.065 times as wide (median);
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
    >>> below = {"standard_error": 0.00495, "df": 29.0, "effective_n": 800.0,
    ...          "design_effect": 0.5, "iid": False}  # 392 of 400, design effect 0.5
    >>> low, high, info = korn_graubard_interval(0.98, below, confidence_level=0.95)
    >>> round(float(low), 4), round(float(high), 4), "truncation" in info  # binomtest
    (0.961, 0.9913, True)
    >>> low, high, _ = korn_graubard_interval(0.98, below, confidence_level=0.95,
    ...                                       truncate=False)  # n* = 734.6: R survey
    >>> round(float(low), 4), round(float(high), 4)
    (0.9671, 0.9888)
    """
    if bounds is None or not np.all(np.isfinite(bounds)):
        raise ValueError(
            "method='korn_graubard' (Clopper-Pearson on the effective sample size) needs a "
            "metric with a bounded range; this one is unbounded: use method='t' or "
            "'studentized'."
        )
    estimate = np.asarray(estimate, dtype=float)
    se = np.broadcast_to(np.asarray(linear["standard_error"], dtype=float), estimate.shape)
    iid = bool(linear.get("iid"))
    cap = nominal_size(estimate, linear, bounds) if truncate and not iid else None
    low, high, info = effective_binomial_interval(
        estimate, se, None if iid else linear["df"], confidence_level=confidence_level,
        alternative=alternative, bounds=bounds, nominal_n=linear.get("effective_n"),
        max_n=cap,
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
        eff = float(linear["effective_n"])
        if cap is not None and float(cap) < eff:  # minority outcomes on the truncated size
            linear = {**linear, "effective_n": float(cap)}
            p = float(estimate)
            if min(p, 1 - p) * float(cap) < MIN_EFFECTIVE_MINORITY <= min(p, 1 - p) * eff:
                info["design_effect_truncated"] = 1  # widened for it
        low, high, info = widen_few_minority(
            estimate, linear, low, high, info, confidence_level=confidence_level,
            alternative=alternative,
        )  # fmt: skip
    if info.get("design_effect_truncated"):
        info["truncation"] = TRUNCATION_TEXT
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
