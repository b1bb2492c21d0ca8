"""Interval variants that reproduce R: boot.ci (``variant="boot"``), svyciprop (``"survey"``).

mlci's bootstrap intervals (:mod:`mlci.intervals.bootstrap`) follow scipy's conventions;
Canty & Ripley's R package boot (``boot.ci``, Davison & Hinkley 1997, ch. 5) differs in
four places, each defensible.  ``variant="boot"`` gives boot's numbers to rounding
(tests/r/test_r_boot.py: to 1e-12 on the same replicates):

* **quantiles**: boot reads the ``(B + 1) alpha``-th order statistic, interpolated
  between the two neighbouring order statistics on the normal quantile scale
  (``norm.inter``); mlci (as numpy and scipy) interpolates linearly between order
  statistics at ``(B - 1) alpha``.  This moves every percentile-type bound (percentile,
  basic, BC/BCa, studentized) by up to about one order statistic.
* **BCa's bias correction**: boot counts the replicates strictly below the estimate,
  ``z0 = qnorm(#{t* < t0} / B)``; mlci (as scipy) counts ties with the estimate as
  one half.  On a discrete statistic (accuracy, whose replicates tie with the estimate
  often) the two can be a grid step apart.
* **the normal interval**: boot's ``norm.ci`` is ``t0 - bias -/+ z sd(t*)`` with the
  bootstrap bias ``mean(t*) - t0`` subtracted; mlci's is ``t0 -/+ z sd(t*)``.
* **the studentized interval**: boot uses ``t* = (t - t0) / se*`` on the statistic's own
  scale (its default ``h`` is the identity); mlci's is on the logit scale for a bounded
  metric.  Neither clips a two-sided interval into the metric's range.

The acceleration is the same (``sum L^3 / (6 (sum L^2)^1.5)`` over influence values:
mlci's jackknife values give boot's ``empinf(type = "jack")``).

``variant="survey"`` is the ``"t"`` or ``"logit_t"`` interval of a metric over conditions
as R's survey package computes it for a cluster sample (``svydesign(ids = ~condition)``,
``svyciprop(method = "mean")`` and ``method = "logit"``): the CR1-type linearization
standard error ``sqrt(G / (G - 1) sum_c z_c^2)`` and ``G - 1`` degrees of freedom, where
mlci uses the bias-reduced CR2 standard error (:mod:`mlci.engine.cr2`) and Imbens &
Kolesár's degrees of freedom (at most Kish's effective conditions minus one).  With
conditions of equal size CR1 = CR2 and the degrees of freedom agree; with unequal ones
survey's interval is narrower (tests/r/test_r_cluster.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from .formulas import logit_t_interval, t_interval
from .formulas import tails as _tails

__all__ = ["VARIANTS", "boot_interval", "boot_quantiles", "survey_interval", "variant_interval"]

#: the interval variants: mlci's own, R's boot.ci, R's survey
VARIANTS = ("mlci", "boot", "survey")
#: the methods boot.ci has (BC is BCa without acceleration)
BOOT_METHODS = ("percentile", "basic", "normal", "bc", "bca", "studentized")


def _norm_inter(t: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """boot's ``norm.inter`` on the finite values of one element's replicates ``t``."""
    t = np.sort(t[np.isfinite(t)])
    r = len(t)
    out = np.full(alpha.shape, np.nan)
    if r == 0:
        return out
    for i, a in enumerate(alpha):
        if not np.isfinite(a):
            continue
        rk = (r + 1) * a
        k = int(np.trunc(rk))
        if k <= 0:
            out[i] = t[0]
        elif k >= r:
            out[i] = t[-1]
        elif k == rk:
            out[i] = t[k - 1]
        else:  # between the k-th and (k+1)-th order statistics, on the normal scale
            z, zk, zk1 = ndtri(a), ndtri(k / (r + 1)), ndtri((k + 1) / (r + 1))
            out[i] = t[k - 1] + (z - zk) / (zk1 - zk) * (t[k] - t[k - 1])
    return out


def boot_quantiles(dist: np.ndarray, probs: Any) -> np.ndarray:
    """Quantiles as R's boot (``norm.inter``) of ``dist`` (B, *S) at ``probs`` (*S or (P, *S)).

    Non-finite replicates are left out, as boot does.

    Examples
    --------
    >>> t = np.arange(1.0, 1000.0)   # 999 replicates: the 25th is exact at 2.5%
    >>> float(boot_quantiles(t, 0.025))
    25.0
    """
    dist = np.asarray(dist, dtype=float)
    shape = dist.shape[1:]
    p = np.asarray(probs, dtype=float)
    lead = p.shape[: p.ndim - len(shape)] if p.ndim > len(shape) else ()
    p = np.broadcast_to(p, (*lead, *shape))
    flat_t = dist.reshape(dist.shape[0], -1)
    flat_p = p.reshape(*lead, -1) if lead else p.reshape(1, -1)
    out = np.empty(flat_p.shape)
    for j in range(flat_t.shape[1]):
        out[:, j] = _norm_inter(flat_t[:, j], flat_p[:, j])
    return out.reshape((*lead, *shape)) if lead else out.reshape(shape)


def boot_interval(
    theta_hat: Any,
    dist: np.ndarray,
    *,
    method: str,
    confidence_level: float,
    alternative: str = "two-sided",
    accel: Any = None,
    bounds: tuple[float, float] | None = None,
    se_hat: Any = None,
    se_dist: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The interval R's ``boot.ci`` gives from the same replicates (module docstring).

    Parameters
    ----------
    theta_hat : float or ndarray, shape S
        ``t0``.
    dist : ndarray, shape (B, *S)
        ``t``, the replicates (non-finite ones left out, as boot does).
    method : {"percentile", "basic", "normal", "bc", "bca", "studentized"}
        boot.ci's ``"perc"``, ``"basic"``, ``"norm"``, BCa without acceleration,
        ``"bca"``, ``"stud"``.
    confidence_level : float
    alternative : {"two-sided", "less", "greater"}
        One-sided: the two-sided interval of level ``2 * confidence_level - 1`` with one
        end at the edge of ``bounds`` (boot.ci itself is two-sided only).
    accel : float or ndarray, optional
        The acceleration (``"bca"``).
    bounds : (float, float), optional
        Only the open end of a one-sided interval uses it; nothing is clipped.
    se_hat, se_dist : optional
        The estimate's and the replicates' standard errors (``"studentized"``; boot's
        ``var.t0`` and ``var.t`` are their squares).

    Returns
    -------
    low, high : ndarray, shape S
    info : dict
        ``z0`` and ``acceleration`` for BC/BCa, ``bias`` for the normal interval.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> t = rng.normal(1.1, 0.1, 999)
    >>> low, high, info = boot_interval(1.0, t, method="normal", confidence_level=0.95)
    >>> round(float(info["bias"]), 3), round(float(low), 3), round(float(high), 3)
    (0.095, 0.713, 1.096)
    """
    if method not in BOOT_METHODS:
        raise ValueError(
            f"`variant`='boot' reproduces R's boot.ci, which has no {method!r} interval; "
            f"use one of {', '.join(repr(m) for m in BOOT_METHODS)}, or variant='mlci'."
        )
    theta_hat = np.asarray(theta_hat, dtype=float)
    dist = np.asarray(dist, dtype=float)
    shape = theta_hat.shape
    p_lo, p_hi = _tails(confidence_level, alternative)
    probs = np.stack([np.full(shape, p_lo), np.full(shape, p_hi)])
    info: dict[str, Any] = {"variant": "boot"}
    finite = np.isfinite(dist)
    if method == "percentile":
        low, high = boot_quantiles(dist, probs)
    elif method == "basic":
        q_lo, q_hi = boot_quantiles(dist, probs)
        low, high = 2 * theta_hat - q_hi, 2 * theta_hat - q_lo
    elif method == "normal":
        with np.errstate(invalid="ignore"):
            n = finite.sum(axis=0)
            t = np.where(finite, dist, 0.0)
            mean = t.sum(axis=0) / n
            sd = np.sqrt(np.where(finite, (dist - mean) ** 2, 0.0).sum(axis=0) / (n - 1))
        bias = mean - theta_hat
        z = ndtri(p_hi)
        low, high = theta_hat - bias - z * sd, theta_hat - bias + z * sd
        info["bias"] = bias if bias.ndim else float(bias)
    elif method in ("bc", "bca"):
        n = finite.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            z0 = ndtri(np.sum(finite & (dist < theta_hat), axis=0) / n)  # strictly below
        a = np.zeros(shape) if method == "bc" else np.broadcast_to(np.asarray(accel), shape)
        za, zb = ndtri(p_lo), ndtri(p_hi)
        with np.errstate(invalid="ignore", divide="ignore"):
            q_lo = ndtr(z0 + (z0 + za) / (1 - a * (z0 + za)))
            q_hi = ndtr(z0 + (z0 + zb) / (1 - a * (z0 + zb)))
        if not np.all(np.isfinite(z0)):
            raise ValueError(
                "boot.ci's BCa is undefined here: every replicate lies on one side of the "
                "estimate (its 'estimated adjustment w is infinite'); use variant='mlci', "
                "which counts ties half and falls back to the percentile interval."
            )
        low, high = boot_quantiles(dist, np.stack([q_lo, q_hi]))
        info["z0"] = z0 if z0.ndim else float(z0)
        info["acceleration"] = a if np.ndim(a) else float(a)
    else:  # studentized, on the statistic's own scale
        if se_hat is None or se_dist is None:
            raise ValueError(
                "method='studentized' needs the standard errors of the estimate and of "
                "every replicate."
            )
        se_hat = np.broadcast_to(np.asarray(se_hat, dtype=float), shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            t_star = (dist - theta_hat) / np.asarray(se_dist, dtype=float)
        q_lo, q_hi = boot_quantiles(t_star, probs)
        low, high = theta_hat - se_hat * q_hi, theta_hat - se_hat * q_lo
    lo_edge, hi_edge = (-np.inf, np.inf) if bounds is None else (float(b) for b in bounds)
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    if alternative == "less":
        low = np.full(shape, lo_edge)
    elif alternative == "greater":
        high = np.full(shape, hi_edge)
    return low, high, info


def survey_interval(
    theta_hat: Any,
    linear: dict[str, Any] | None,
    *,
    method: str,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] | None = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The ``"t"``/``"logit_t"`` interval with R survey's CR1 standard error and G - 1 df.

    ``linear`` is a result's ``details["linearized"]`` (it holds ``standard_error_cr1``
    and ``n_units``).  See the module docstring.

    Examples
    --------
    >>> lin = {"standard_error_cr1": 0.05, "n_units": 12}
    >>> low, high, info = survey_interval(0.8, lin, method="t", confidence_level=0.95)
    >>> round(float(low), 4), round(float(high), 4), info["df"]
    (0.69, 0.91, 11.0)
    """
    if method not in ("t", "logit_t"):
        raise ValueError(
            "`variant`='survey' reproduces R's svyciprop, the 't' (method = \"mean\") and "
            f"'logit_t' (method = \"logit\") intervals; got method={method!r}."
        )
    if linear is None or linear.get("standard_error_cr1") is None:
        raise ValueError(
            "`variant`='survey' needs the linearized standard error, which this result does "
            "not hold; compute it with method='t' or 'logit_t'."
        )
    df = float(max(int(linear["n_units"]) - 1, 1))
    fn = t_interval if method == "t" else logit_t_interval
    low, high, info = fn(
        theta_hat,
        linear["standard_error_cr1"],
        df,
        confidence_level=confidence_level,
        alternative=alternative,
        bounds=bounds,
    )
    info["variant"] = "survey"
    return low, high, info


def variant_interval(
    variant: str,
    estimate: Any,
    dist: np.ndarray,
    *,
    method: str,
    confidence_level: float,
    alternative: str,
    accel: Any = None,
    bounds: tuple[float, float] | None = None,
    linear: dict[str, Any] | None = None,
    se_dist: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The interval of ``variant`` ("boot" or "survey"; the module docstring)."""
    if variant == "survey":
        return survey_interval(
            estimate,
            linear,
            method=method,
            confidence_level=confidence_level,
            alternative=alternative,
            bounds=bounds,
        )
    if variant != "boot":
        raise ValueError(f"`variant` must be one of {VARIANTS}; got {variant!r}.")
    return boot_interval(
        estimate,
        dist,
        method=method,
        confidence_level=confidence_level,
        alternative=alternative,
        accel=accel,
        bounds=bounds,
        se_hat=None if linear is None else linear.get("standard_error"),
        se_dist=se_dist,
    )
