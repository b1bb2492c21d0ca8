"""The p-values of :func:`mlci.compare`'s differences, each the inversion of its interval,
and the simultaneous intervals with their single-step maxT p-values (:func:`max_t`).

A difference's p-value follows its interval: the bootstrap-t test for a studentized
difference, the t test on the linearized standard error for ``"auto"``'s t interval,
the bootstrap distribution shifted to the null for the bootstrap intervals (Efron &
Tibshirani 1993, sec. 16.4), Tango's score test (McNemar's z) for Tango's interval and
the MOVER inversion for MOVER's (:func:`pair_pvalues`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..classical.pvalues import t_pvalues
from ..engine.paired_rules import warn_paired, warn_paired_classes
from ..intervals.bootstrap import quantiles, studentized_pvalue
from .margins import shifted_pvalues
from .paired_auc_edge import mover_pvalues
from .tango import tango_pvalue

__all__ = ["inverted_pvalues", "max_t", "pair_pvalues"]


def inverted_pvalues(
    method: str, d_hat: np.ndarray, d_se: np.ndarray, d_dist: np.ndarray, alternative: str
) -> tuple[np.ndarray, str]:
    """P-values that invert a kernel family's paired interval
    (:func:`mlci.comparison.paired_auto.paired_auto_rule`): the z test on the bootstrap
    standard error for ``"normal"``; for ``"percentile"`` the share of replicates on the
    far side of 0, ``(1 + #{d* <= 0}) / (1 + B)`` for ``"greater"`` (twice the smaller of
    the two for two-sided), so that p < alpha exactly when the percentile interval
    excludes 0 (up to the replicates' +1)."""
    if method == "normal":
        with np.errstate(invalid="ignore", divide="ignore"):
            p = t_pvalues(d_hat / d_se, np.inf, alternative)
        return p, "z test on the bootstrap standard error (the normal interval's)"
    valid = ~np.isnan(d_dist)
    b = valid.sum(axis=0)
    with np.errstate(invalid="ignore"):
        low = (1.0 + np.sum(valid & (d_dist <= 0.0), axis=0)) / (1.0 + b)
        high = (1.0 + np.sum(valid & (d_dist >= 0.0), axis=0)) / (1.0 + b)
    if alternative == "greater":
        p = low
    elif alternative == "less":
        p = high
    else:
        p = np.minimum(1.0, 2.0 * np.minimum(low, high))
    return p, "the replicates beyond 0 (the percentile interval's inversion)"


def pair_pvalues(
    *,
    diff_method: str,
    linear: dict[str, Any] | None,
    se_values: np.ndarray | None,
    d_hat: np.ndarray,
    d_dist: np.ndarray,
    d_se: np.ndarray,
    bounds: tuple[float, float],
    alternative: str,
    inverted: bool,
    kernels: Sequence[Any],
    plan: Any,
    metric: str,
    bca_pairs: np.ndarray,
    tables: Sequence[np.ndarray | None],
    mover: Any,
    details: dict[str, Any],
) -> tuple[np.ndarray, str]:
    """Each difference's p-value and how it was computed (``pvalue_method``).

    ``inverted``: the differences' method is a kernel family's own paired rule
    (:func:`mlci.comparison.paired_auto.paired_auto_rule`), whose normal or percentile
    interval :func:`inverted_pvalues` inverts.  The t interval's few-conditions warnings
    (:func:`mlci.engine.paired_rules.warn_paired`, ``warn_paired_classes``) go to
    ``details["warning"]``.
    """
    n_sys = len(kernels)
    tango_pairs = np.array([t is not None for t in tables], dtype=bool)
    if diff_method == "studentized":
        assert linear is not None and se_values is not None  # a linearized method
        pvals = studentized_pvalue(
            d_hat,
            linear["standard_error"][n_sys:],
            d_dist,
            se_values[:, n_sys:],
            alternative=alternative,
            bounds=bounds,
        )
        pvalue_method = "bootstrap-t test (the inversion of the studentized interval)"
    elif inverted and diff_method in ("normal", "percentile"):
        pvals, pvalue_method = inverted_pvalues(diff_method, d_hat, d_se, d_dist, alternative)
    elif diff_method == "t":
        assert linear is not None  # a linearized method
        if not linear["iid"]:
            warning = warn_paired(linear["df"] + 1.0) or warn_paired_classes(kernels, plan, metric)
            if warning is not None:
                details["warning"] = warning
        with np.errstate(invalid="ignore", divide="ignore"):
            t_obs = d_hat / linear["standard_error"][n_sys:]
        pvals = t_pvalues(t_obs, linear["df"], alternative)
        if bca_pairs.any():  # the BCa pairs: the shifted bootstrap distribution
            pvals = np.where(bca_pairs, shifted_pvalues(d_hat, d_dist, alternative), pvals)
        pvalue_method = f"t test on the linearized standard error ({linear['df']:.3g} df)"
        if bca_pairs.any():
            pvalue_method += (
                "; for the pairs with a bootstrap interval, the bootstrap distribution of the "
                "difference shifted to the null"
            )
    else:
        pvals = shifted_pvalues(d_hat, d_dist, alternative)
        pvalue_method = "bootstrap distribution of the difference shifted to the null"
    if tango_pairs.any():  # Tango's score test at 0 (McNemar's z), its interval's inversion
        pvals = np.array(
            [
                tango_pvalue(t, alternative) if t is not None else p
                for t, p in zip(tables, pvals, strict=True)
            ]
        )
        if tango_pairs.all():
            pvalue_method = "Tango's score test at 0 (McNemar's z; the inversion of its interval)"
        else:
            pvalue_method += (
                "; for the pairs with Tango's interval, Tango's score test at 0 (McNemar's z)"
            )
    pvals, pvalue_method = mover_pvalues(mover, pvals, pvalue_method, alternative)
    # a pair without any spread: no evidence of a difference
    pvals = np.where(np.isnan(pvals), shifted_pvalues(d_hat, d_dist, alternative), pvals)
    return pvals, pvalue_method


def max_t(
    d_hat: np.ndarray,
    d_dist: np.ndarray,
    d_se: np.ndarray,
    pvals: np.ndarray,
    alternative: str,
    confidence_level: float,
    bounds: tuple[float, float],
) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """Simultaneous max-|t| intervals and single-step maxT p-values (Westfall & Young 1993).

    One-sided alternatives use the signed max-t in the direction of H1 (a one-sided
    bound each, the open end at the edge of the difference's range).  Returns the
    critical value, the intervals' bounds and the maxT p-values.
    """
    ok = d_se > 0
    valid_rows = ~np.isnan(d_dist).any(axis=1)
    sign = {"two-sided": 0.0, "greater": 1.0, "less": -1.0}[alternative]
    with np.errstate(invalid="ignore", divide="ignore"):
        centred = (d_dist[valid_rows][:, ok] - d_hat[ok]) / d_se[ok]
        t_star = np.abs(centred) if sign == 0.0 else sign * centred
        t_obs = np.abs(d_hat[ok]) / d_se[ok] if sign == 0.0 else sign * d_hat[ok] / d_se[ok]
    p_maxt = pvals.copy()  # pairs with no spread keep their own p-value
    if t_star.size and ok.any():
        t_max = t_star.max(axis=1)
        crit = float(quantiles(t_max[:, None], np.array([confidence_level]))[0])
        p_maxt[ok] = (1.0 + (t_max[:, None] >= t_obs[None, :] - 1e-12).sum(axis=0)) / (
            1.0 + len(t_max)
        )
    else:
        crit = 0.0
    lo_edge, hi_edge = bounds
    sim_low = np.clip(d_hat - crit * d_se, lo_edge, hi_edge)
    sim_high = np.clip(d_hat + crit * d_se, lo_edge, hi_edge)
    if alternative == "less":
        sim_low = np.full_like(d_hat, lo_edge)
    elif alternative == "greater":
        sim_high = np.full_like(d_hat, hi_edge)
    return crit, sim_low, sim_high, p_maxt
