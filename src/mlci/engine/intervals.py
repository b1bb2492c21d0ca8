"""Bootstrap interval methods: they only see a distribution (and, for BCa, a jackknife).

All functions work elementwise on metrics of any shape: the bootstrap distribution has
shape ``(B, *shape)`` and may contain NaN for replicates where the metric was undefined;
those are excluded element by element.

References
----------
Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 12-14 (percentile,
BCa eq. 14.9-14.15); Davison & Hinkley (1997), *Bootstrap Methods and their
Application*, sec. 5.2-5.3 (basic and normal intervals).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from ..exceptions import DegenerateIntervalWarning
from ..feedback import warn
from ..inputs.options import INTERVAL_METHODS

__all__ = ["INTERVAL_METHODS", "acceleration", "bootstrap_interval", "quantiles"]


def quantiles(dist: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Quantiles of ``dist`` (B, *S) at per-element probabilities ``probs`` (*S), NaN-aware.

    Linear interpolation between order statistics (numpy's default ``"linear"`` method,
    as in ``scipy.stats.bootstrap``).
    """
    s = np.sort(dist, axis=0)  # NaN sort last
    n_valid = np.sum(~np.isnan(dist), axis=0)
    pos = np.asarray(probs) * (n_valid - 1)
    lo = np.clip(np.floor(pos).astype(np.intp), 0, np.maximum(n_valid - 1, 0))
    hi = np.clip(lo + 1, 0, np.maximum(n_valid - 1, 0))
    frac = pos - np.floor(pos)
    v_lo = np.take_along_axis(s, lo[None, ...], axis=0)[0]
    v_hi = np.take_along_axis(s, hi[None, ...], axis=0)[0]
    # written as lo + frac*(hi-lo) would give NaN for lo = hi = inf; handle equal values
    out = np.where(v_hi == v_lo, v_lo, v_lo + frac * (v_hi - v_lo))
    return np.where(n_valid > 0, out, np.nan)


def acceleration(jack: np.ndarray, mult: np.ndarray | None = None) -> np.ndarray:
    """BCa acceleration from jackknife values (Efron & Tibshirani 1993, eq. 14.15).

    ``a = sum(d^3) / (6 * sum(d^2)^(3/2))`` with ``d = mean(jack) - jack``; ``mult``
    gives each jackknife value a multiplicity (identical delete-one replicates are
    computed once).  NaN jackknife values are left out.
    """
    jack = np.asarray(jack, dtype=float)
    m = np.ones(jack.shape[0]) if mult is None else np.asarray(mult, dtype=float)
    m = m.reshape((-1,) + (1,) * (jack.ndim - 1))
    valid = ~np.isnan(jack)
    mw = np.where(valid, m, 0.0)
    jz = np.where(valid, jack, 0.0)
    total = mw.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (mw * jz).sum(axis=0) / total
        d = np.where(valid, mean - jz, 0.0)
        num = (mw * d**3).sum(axis=0)
        den = 6.0 * (mw * d**2).sum(axis=0) ** 1.5
        a = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return a


def _z0(dist: np.ndarray, theta_hat: np.ndarray) -> np.ndarray:
    """Bias correction z0 = Phi^-1(share of replicates below the estimate, ties counted half)."""
    valid = ~np.isnan(dist)
    n_valid = valid.sum(axis=0)
    below = np.sum(dist < theta_hat, axis=0) + 0.5 * np.sum(dist == theta_hat, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return ndtri(below / n_valid)


def bootstrap_interval(
    theta_hat: Any,
    dist: np.ndarray,
    *,
    method: str,
    confidence_level: float,
    alternative: str = "two-sided",
    accel: Any = None,
    bounds: tuple[float, float] | None = None,
    degenerate_hint: str = "",
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Confidence interval from a bootstrap distribution.

    Parameters
    ----------
    theta_hat : float or ndarray, shape S
        The estimate on the original data.
    dist : ndarray, shape (B, *S)
        Bootstrap replicates, NaN where undefined.
    method : {"percentile", "basic", "normal", "bc", "bca"}
    confidence_level : float
    alternative : {"two-sided", "less", "greater"}
        ``"less"`` gives ``[lower edge, high]``, ``"greater"`` gives ``[low, upper edge]``.
    accel : float or ndarray, optional
        BCa acceleration (see :func:`acceleration`); required for ``"bca"``.
    bounds : (float, float), optional
        The range of the quantity (``(0, 1)`` for a proportion, ``(-1, 1)`` for MCC).
        Bounds of ``"normal"`` and ``"basic"`` intervals, which can leave the range, are
        clipped into it, and the open end of a one-sided interval is the range's edge.
        Default: the whole real line.
    degenerate_hint : str
        Appended to the warning about a distribution without spread (what to use instead
        for this metric).

    Returns
    -------
    low, high : ndarray, shape S
    info : dict
        ``{"z0": ..., "acceleration": ...}`` for bc/bca, and ``"fallback"`` when an
        element's BC/BCa interval was undefined and the percentile interval was used.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> dist = rng.normal(0.5, 0.1, size=4000)
    >>> low, high, _ = bootstrap_interval(0.5, dist, method="percentile", confidence_level=0.95)
    >>> round(float(low), 2), round(float(high), 2)
    (0.31, 0.7)
    """
    theta_hat = np.asarray(theta_hat, dtype=float)
    dist = np.asarray(dist, dtype=float)
    alpha = 1.0 - confidence_level
    if alternative == "two-sided":
        p_lo, p_hi = alpha / 2, 1 - alpha / 2
    else:
        p_lo, p_hi = alpha, 1 - alpha
    info: dict[str, Any] = {}
    valid = ~np.isnan(dist)
    n_valid = valid.sum(axis=0)
    with np.errstate(invalid="ignore"):
        spread = np.nanmax(np.where(valid, dist, -np.inf), axis=0) - np.nanmin(
            np.where(valid, dist, np.inf), axis=0
        )
    degenerate = (n_valid > 0) & (spread == 0)
    if np.any(degenerate):
        warn(
            "The bootstrap distribution has no spread for "
            f"{int(np.sum(degenerate))} element(s) (every replicate gives the same value, "
            "e.g. a system without a single error); the interval collapses to that value, "
            "which shows no precision, only that the test set holds no counter-example."
            f"{degenerate_hint}",
            DegenerateIntervalWarning,
        )
    shape = theta_hat.shape
    p_lo_a = np.full(shape, p_lo)
    p_hi_a = np.full(shape, p_hi)
    if method == "percentile":
        low, high = quantiles(dist, p_lo_a), quantiles(dist, p_hi_a)
    elif method == "basic":
        low = 2 * theta_hat - quantiles(dist, p_hi_a)
        high = 2 * theta_hat - quantiles(dist, p_lo_a)
    elif method == "normal":
        se = np.nanstd(dist, axis=0, ddof=1) if dist.shape[0] > 1 else np.zeros(shape)
        z = ndtri(p_hi)
        low, high = theta_hat - z * se, theta_hat + z * se
    elif method in ("bc", "bca"):
        z0 = _z0(dist, theta_hat)
        a = np.zeros(shape) if method == "bc" else np.broadcast_to(np.asarray(accel), shape)
        za, zb = ndtri(p_lo), ndtri(p_hi)
        with np.errstate(invalid="ignore", divide="ignore"):
            q_lo = ndtr(z0 + (z0 + za) / (1 - a * (z0 + za)))
            q_hi = ndtr(z0 + (z0 + zb) / (1 - a * (z0 + zb)))
        undefined = ~(np.isfinite(q_lo) & np.isfinite(q_hi))
        bad = undefined | degenerate
        # a degenerate element was warned about above; warn here only for the others
        n_bad = int(np.sum(undefined & ~degenerate & (n_valid > 0)))
        if n_bad:
            info["fallback"] = (
                f"{method} undefined for {n_bad} element(s) "
                "(the estimate lies outside the bootstrap distribution); percentile used there"
            )
            warn(
                f"The {method.upper()} interval is undefined for {n_bad} element(s) because "
                "the estimate lies outside (or at the edge of) every bootstrap replicate; the "
                "percentile interval was used there.",
                DegenerateIntervalWarning,
            )
        q_lo = np.where(bad, p_lo_a, q_lo)
        q_hi = np.where(bad, p_hi_a, q_hi)
        low, high = quantiles(dist, q_lo), quantiles(dist, q_hi)
        info["z0"] = z0 if z0.ndim else float(z0)
        info["acceleration"] = a if np.ndim(a) else float(a)
    else:  # pragma: no cover - validated by callers
        raise ValueError(f"unknown interval method {method!r}")
    lo_edge, hi_edge = (-np.inf, np.inf) if bounds is None else (float(b) for b in bounds)
    low = np.clip(np.asarray(low, dtype=float), lo_edge, hi_edge)
    high = np.clip(np.asarray(high, dtype=float), lo_edge, hi_edge)
    if alternative == "less":
        low = np.full(shape, lo_edge)
    elif alternative == "greater":
        high = np.full(shape, hi_edge)
    return low, high, info
