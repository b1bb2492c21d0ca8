"""``method="auto"``'s interval of average precision: the logit jackknife interval where
BCa fell short (issue 20).

Average precision has no closed-form derivative, so ``auto`` gave it BCa.  With 20-300
positives BCa covered 0.895-0.97 (docs/validation.md, "Average precision: BCa's
shortfall and the logit jackknife interval"; ``scripts/ap_interval_sweep.py``): the
resampling standard errors of AP vary much from one test set to the next (they rest on
the few negatives that outscore the top positives), and where they come out small the
interval misses.  The interval of the jackknife standard error on the logit scale,

``expit(logit(AP) +- q se_J / (AP (1 - AP)))``,

with ``se_J`` the engine's jackknife (the one BCa's acceleration reads: delete one sample,
one random group of samples, or one condition) and ``q`` the normal quantile for
independent samples, Student's with ``J - 1`` degrees of freedom over conditions (``J``
jackknife rows), covered 0.935-0.965 in 12 of the 16 cells of 42 conditions at an ICC of
0-0.15 (0.92-0.99 in all) where BCa covered 0.895-0.96 (10 below 0.935), and 0.941-0.970
on independent samples with binormal scores (1,000 test sets a cell).  With heavy-tailed
scores neither holds (docs/validation.md).  ``auto`` gives it (:func:`ap_auto`) to a
single unweighted average precision with the class counts and estimate of
:func:`ap_logit_rule`, independent or over at least :data:`MIN_AP_LOGIT_CONDITIONS`
conditions resampled in one stage, inside the bootstrap result (its replicates kept;
``interval(method="bca")`` re-reads BCa).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..results import AnalyticInterval, BootstrapResult, attach_analytic

__all__ = [
    "AP_LOGIT_EDGE",
    "AP_LOGIT_METHOD",
    "AP_LOGIT_NEAR",
    "MIN_AP_LOGIT_CONDITIONS",
    "MIN_AP_LOGIT_POSITIVES",
    "MIN_AP_LOGIT_POSITIVES_NEAR",
    "ApLogitInterval",
    "ap_auto",
    "ap_logit_reason",
    "ap_logit_rule",
    "jackknife_standard_error",
    "with_ap_logit",
]

#: the ``method`` of ``auto``'s average precision interval
AP_LOGIT_METHOD = "logit_jackknife"
#: ``auto`` gives the logit jackknife interval to an average precision with at least this
#: many positives and an estimate of at most :data:`AP_LOGIT_NEAR`: with 20 positives
#: (iid, AP 0.6-0.9) it covered 0.954-0.970, BCa 0.925-0.970
MIN_AP_LOGIT_POSITIVES = 20
#: ... the estimate up to which :data:`MIN_AP_LOGIT_POSITIVES` suffice: at AP 0.96 with 20
#: positives it covered 0.909 (BCa 0.895), at 0.99 0.595 (BCa 0.615): neither holds there
AP_LOGIT_NEAR = 0.9
#: the positives from which an estimate up to :data:`AP_LOGIT_EDGE` gets it: AP 0.96
#: with 50 positives 0.941 (iid), 0.935-0.99 over 42 conditions (BCa 0.90-0.95)
MIN_AP_LOGIT_POSITIVES_NEAR = 50
#: the estimate above which ``auto`` keeps BCa (not measured there)
AP_LOGIT_EDGE = 0.96
#: over conditions, the interval applies from this many conditions (the sweep's 42)
MIN_AP_LOGIT_CONDITIONS = 40


def ap_logit_rule(n_pos: int, estimate: float) -> bool:
    """Whether ``auto`` gives an average precision of ``n_pos`` positives the logit
    jackknife interval: at least :data:`MIN_AP_LOGIT_POSITIVES` positives and the
    ``estimate`` at most :data:`AP_LOGIT_NEAR`, or at least
    :data:`MIN_AP_LOGIT_POSITIVES_NEAR` and at most :data:`AP_LOGIT_EDGE` (and above 0).

    Examples
    --------
    >>> ap_logit_rule(20, 0.85), ap_logit_rule(20, 0.95), ap_logit_rule(50, 0.95)
    (True, False, True)
    >>> ap_logit_rule(19, 0.5), ap_logit_rule(300, 0.97)
    (False, False)
    """
    if not np.isfinite(estimate) or estimate <= 0.0:
        return False
    if n_pos >= MIN_AP_LOGIT_POSITIVES_NEAR and estimate <= AP_LOGIT_EDGE:
        return True
    return bool(n_pos >= MIN_AP_LOGIT_POSITIVES and estimate <= AP_LOGIT_NEAR)


def jackknife_standard_error(values: Any, mult: Any = None) -> float:
    """The jackknife standard error ``sqrt((N - 1) / N sum_i m_i (v_i - vbar)^2)`` of the
    values ``v_i`` with multiplicities ``m_i`` (``N = sum m_i``, ``vbar`` their weighted
    mean): delete-one with each atom's value counted once per sample, or delete-a-group
    (one row per group); NaN values are left out.

    Examples
    --------
    >>> round(jackknife_standard_error([1.0, 2.0, 3.0]), 6)  # sqrt(2/3 * 2)
    1.154701
    >>> jackknife_standard_error([1.0, 3.0], [2, 1]) == jackknife_standard_error([1.0, 1.0, 3.0])
    True
    """
    v = np.asarray(values, dtype=float).ravel()
    m = np.ones_like(v) if mult is None else np.asarray(mult, dtype=float).ravel()
    keep = np.isfinite(v) & (m > 0)
    v, m = v[keep], m[keep]
    n = float(m.sum())
    if n < 2:
        return float("nan")
    mean = float(np.sum(m * v) / n)
    return float(np.sqrt((n - 1.0) / n * np.sum(m * (v - mean) ** 2)))


@dataclass(frozen=True)
class ApLogitInterval:
    """The logit jackknife interval of an average precision (module docstring): the
    ``estimate``, its jackknife standard error ``se`` and the degrees of freedom ``df``
    of Student's quantile (None: the normal one)."""

    estimate: float
    se: float
    df: int | None = None
    method: str = AP_LOGIT_METHOD

    def __call__(self, confidence_level: float, alternative: str) -> tuple[float, float]:
        from scipy.special import expit, logit
        from scipy.stats import norm, t

        tail = (1.0 - confidence_level) / (2.0 if alternative == "two-sided" else 1.0)
        q = float(norm.isf(tail) if self.df is None else t.isf(tail, self.df))
        p = self.estimate
        half = q * self.se / (p * (1.0 - p))
        low = float(expit(logit(p) - half)) if alternative != "less" else 0.0
        high = float(expit(logit(p) + half)) if alternative != "greater" else 1.0
        return low, high


def ap_logit_reason(n_pos: int, df: int | None) -> str:
    """``method_reason`` of ``auto``'s logit jackknife interval of average precision."""
    design = "independent samples" if df is None else f"{df + 1} jackknife rows of conditions"
    return (
        f"{AP_LOGIT_METHOD}: average precision of {n_pos} positives ({design}) gets the "
        "interval of its jackknife standard error on the logit scale, expit(logit(AP) +- q "
        "se_J / (AP (1 - AP))) (q normal, or Student's over conditions), where BCa fell "
        "short: in mlci's sweep (scripts/ap_interval_sweep.py; docs/validation.md, 'Average "
        "precision: BCa's shortfall and the logit jackknife interval') BCa covered "
        "0.895-0.96 over 42 conditions at an ICC of 0-0.15 with 50-207 positives (10 of 16 "
        "cells below 0.935) where this interval covered 0.92-0.99 (12 within 0.935-0.965), "
        "and 0.941-0.970 on independent samples with 20-300 positives; BCa is kept above "
        f"AP {AP_LOGIT_NEAR:g} with fewer than {MIN_AP_LOGIT_POSITIVES_NEAR} positives and "
        f"above {AP_LOGIT_EDGE:g} (neither held near 1 with few positives)"
    )


def _plan_applies(plan: Any) -> tuple[bool, bool]:
    """``(applies, clustered)``: a plan without strata, resampling samples, or conditions
    in one stage (at least :data:`MIN_AP_LOGIT_CONDITIONS`)."""
    if getattr(plan, "n_strata", None) is not None or getattr(plan, "two_stage", False):
        return False, False
    unit = getattr(plan, "unit_of_sample", None)
    if unit is None:
        return True, False
    n_cond = getattr(plan, "n_conditions", None)
    return bool(n_cond is not None and n_cond >= MIN_AP_LOGIT_CONDITIONS), True


def ap_auto(
    finish: Callable[..., BootstrapResult], kernel: Any, plan: Any, reason: str | None
) -> Callable[..., BootstrapResult]:
    """``finish`` (:func:`mlci.engine.bootstrap.finish_bootstrap`, or what wraps it) as it
    is, or, for ``auto`` (a ``reason``) on a single unweighted average precision where
    :func:`ap_logit_rule` and the plan's conditions (:data:`MIN_AP_LOGIT_CONDITIONS`, no
    strata, one stage) allow, a ``finish`` whose result holds the logit jackknife interval
    (the jackknife BCa's acceleration reads, computed once)."""
    if reason is None or not _ap_kernel(kernel) or not _plan_applies(plan)[0]:
        return finish

    def finish_with_logit(*args: Any, **kwargs: Any) -> BootstrapResult:
        jackknife = kwargs.get("jackknife")
        if kwargs.get("method") != "bca" or jackknife is None:
            return finish(*args, **kwargs)
        memo: list[Any] = []

        def once() -> Any:
            if not memo:
                memo.append(jackknife())
            return memo[0]

        kwargs["jackknife"] = once
        return with_ap_logit(finish(*args, **kwargs), kernel, plan, once)

    return finish_with_logit


def _ap_kernel(kernel: Any) -> bool:
    from ..metrics import AveragePrecisionKernel

    return type(kernel) is AveragePrecisionKernel and kernel.shape == ()


def with_ap_logit(
    res: BootstrapResult, kernel: Any, plan: Any, jackknife: Callable[[], Any]
) -> BootstrapResult:
    """``res`` (BCa of a single average precision under ``auto``) with the logit jackknife
    interval where :func:`ap_logit_rule` and the plan allow (:func:`ap_auto`'s rule, also
    for :func:`mlci.compare`'s systems), else ``res``; ``jackknife()`` gives the
    delete-one values and their multiplicities (BCa's acceleration reads them)."""
    if not _ap_kernel(kernel):
        return res
    applies, clustered = _plan_applies(plan)
    if not applies:
        return res
    counts = np.bincount(kernel.keys, minlength=kernel.m)
    n_pos = int(counts[kernel.m_neg :].sum())
    estimate = float(np.asarray(res.estimate))
    if not ap_logit_rule(n_pos, estimate) or estimate >= 1.0:
        return res
    values, mult = jackknife()
    se = jackknife_standard_error(values, mult)
    if not np.isfinite(se) or se <= 0.0:
        return res
    df = int(np.count_nonzero(np.isfinite(values))) - 1 if clustered else None
    score = ApLogitInterval(estimate, se, df)
    drop = ("z0", "edge_fallback", "edge_fallback_method", "edge_dominated")
    details = {k: v for k, v in res.details.items() if k not in drop}
    details["jackknife_standard_error"] = se
    record = AnalyticInterval(score.method, ap_logit_reason(n_pos, df), score)
    return attach_analytic(res, record, details)
