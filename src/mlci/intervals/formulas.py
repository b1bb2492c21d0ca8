"""Closed-form intervals: ``estimate ± q·se`` with a normal or Student-t quantile, and
the t interval on the logit scale.

One place for the tails of a confidence level, the quantiles and the Wald interval that
the protocols (cross-validation, out-of-bag), the LLM estimators and the classical tests
(DeLong, paired t) report.  The quantiles are :mod:`scipy.special`'s ``ndtri`` and
``stdtrit``: what ``scipy.stats.norm.ppf`` and ``scipy.stats.t.ppf`` evaluate, to the last
bit (tests/test_imports.py), without importing scipy.stats.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

__all__ = [
    "Scale",
    "libm_expit",
    "libm_logit",
    "logit_t_interval",
    "modified_wilson_edges",
    "one_sided",
    "quantile",
    "t_interval",
    "tails",
    "wald_interval",
]


def tails(confidence_level: float, alternative: str) -> tuple[float, float]:
    """The lower and upper tail probabilities of an interval: ``(alpha/2, 1 - alpha/2)``
    two-sided, ``(alpha, 1 - alpha)`` one-sided, with ``alpha = 1 - confidence_level``.

    Examples
    --------
    >>> tails(0.9, "two-sided"), tails(0.9, "greater")
    ((0.04999999999999999, 0.95), (0.09999999999999998, 0.9))
    """
    alpha = 1.0 - confidence_level
    if alternative == "two-sided":
        return alpha / 2, 1 - alpha / 2
    return alpha, 1 - alpha


def quantile(p: Any, df: Any = None) -> Any:
    """The standard normal quantile at ``p`` (``df=None``), else Student's t with ``df``
    degrees of freedom (``scipy.stats.norm.ppf(p)``, ``scipy.stats.t.ppf(p, df)``).

    Examples
    --------
    >>> round(float(quantile(0.975)), 6), round(float(quantile(0.975, 9)), 6)
    (1.959964, 2.262157)
    """
    # scipy.special imported here: 0.16 s of a command that needs no quantile (mlci mt ci)
    from scipy.special import ndtri, stdtrit

    return ndtri(p) if df is None else stdtrit(df, p)


def one_sided(low: Any, high: Any, alternative: str, bounds: Any) -> tuple[np.ndarray, np.ndarray]:
    """Clip ``(low, high)`` into ``bounds``; a one-sided interval ends at the range's edge
    (``bounds=None``: the real line)."""
    lo_edge, hi_edge = (-np.inf, np.inf) if bounds is None else (float(b) for b in bounds)
    low = np.clip(np.asarray(low, dtype=float), lo_edge, hi_edge)
    high = np.clip(np.asarray(high, dtype=float), lo_edge, hi_edge)
    if alternative == "less":
        low = np.full(low.shape, lo_edge)
    elif alternative == "greater":
        high = np.full(high.shape, hi_edge)
    return low, high


def wald_interval(
    estimate: Any,
    se: Any,
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    df: Any = None,
    bounds: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``estimate ∓ q·se`` with ``q`` the normal quantile (``df=None``) or Student's t with
    ``df`` degrees of freedom; one-sided: the other end at the range's edge; clipped into
    ``bounds`` (None: unbounded).  Arrays broadcast.

    Examples
    --------
    >>> low, high = wald_interval(0.8, 0.05, confidence_level=0.95, bounds=(0, 1))
    >>> round(float(low), 4), round(float(high), 4)
    (0.702, 0.898)
    >>> low, high = wald_interval(0.8, 0.05, confidence_level=0.95, df=11, alternative="less")
    >>> float(low), round(float(high), 4)
    (-inf, 0.8898)
    """
    q = quantile(tails(confidence_level, alternative)[1], df)
    estimate = np.asarray(estimate, dtype=float)
    se = np.asarray(se, dtype=float)
    return one_sided(estimate - q * se, estimate + q * se, alternative, bounds)


#: up to this many elements, :func:`_logit` / :func:`_expit` compute with the math module
#: when scipy.special is not loaded yet (1 ms for 10,000 elements; its import: 0.13 s)
_SMALL = 1 << 16


def _libm(x: Any) -> bool:
    """Compute elementwise with the math module: scipy.special not loaded, ``x`` small."""
    return "scipy.special" not in sys.modules and np.size(x) <= _SMALL


def libm_logit(x: Any) -> np.ndarray:
    """``scipy.special.logit(x)`` with the math module, bit for bit (tests/intervals).

    scipy's formula (``xsf::logit``): ``log1p(s) - log1p(-s)``, ``s = 2 (x - 1/2)``, for
    ``0.3 <= x <= 0.65``, else ``log(x / (1 - x))``, here with the math module's ``log``
    and ``log1p``: the C library's functions that scipy's compiled code calls (numpy's
    vectorised ``log`` differs from them in the last bit on some CPUs).

    Examples
    --------
    >>> libm_logit([0.5, 0.9, 1.0]).tolist()
    [0.0, 2.1972245773362196, inf]
    """
    x = np.asarray(x, dtype=float)
    out = []
    for v in x.ravel().tolist():
        if 0.3 <= v <= 0.65:
            s = 2.0 * (v - 0.5)
            out.append(math.log1p(s) - math.log1p(-s))
        elif v == 1.0:  # C: log(1 / 0) = inf
            out.append(math.inf)
        else:  # C: log(0) = -inf, log(negative or nan) = nan
            r = v / (1.0 - v)
            out.append(math.log(r) if r > 0.0 else -math.inf if r == 0.0 else math.nan)
    return np.array(out).reshape(x.shape)


def libm_expit(y: Any) -> np.ndarray:
    """``scipy.special.expit(y)`` = ``1 / (1 + exp(-y))`` with the math module, bit for
    bit (as :func:`libm_logit`).

    Examples
    --------
    >>> libm_expit([0.0, -800.0]).tolist()
    [0.5, 0.0]
    """
    y = np.asarray(y, dtype=float)
    out = []
    for v in y.ravel().tolist():
        try:
            e = math.exp(-v)
        except OverflowError:  # C: exp(709.8...) = inf
            e = math.inf
        out.append(1.0 / (1.0 + e))
    return np.array(out).reshape(y.shape)


def _logit(x: Any) -> Any:
    """``scipy.special.logit``: :func:`libm_logit` while scipy.special is not loaded (a
    command whose only use of it is this, ``mlci mt ci``'s studentized interval of BLEU
    on the logit scale, then never imports it), else scipy's ufunc."""
    if _libm(x):
        return libm_logit(x)[()]
    from scipy.special import logit

    return logit(x)


def _expit(y: Any) -> Any:
    """``scipy.special.expit`` (as :func:`_logit`)."""
    if _libm(y):
        return libm_expit(y)[()]
    from scipy.special import expit

    return expit(y)


class Scale:
    """The transformation to an unbounded scale used by the studentized interval.

    ``(lo, hi)`` finite: logit of ``(x - lo) / (hi - lo)`` (Fisher's z for a correlation in
    ``(-1, 1)`` is the same up to a factor); one finite bound: the log of the distance to
    it; no bound: the identity.
    """

    def __init__(self, bounds: tuple[float, float] | None) -> None:
        lo, hi = (-np.inf, np.inf) if bounds is None else (float(bounds[0]), float(bounds[1]))
        self.lo, self.hi = lo, hi
        self.kind = (
            "logit"
            if np.isfinite(lo) and np.isfinite(hi)
            else "log"
            if np.isfinite(lo)
            else "neglog"
            if np.isfinite(hi)
            else "identity"
        )

    def forward(self, x: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.kind == "logit":
                return _logit((x - self.lo) / (self.hi - self.lo))
            if self.kind == "log":
                return np.log(x - self.lo)
            if self.kind == "neglog":
                return -np.log(self.hi - x)
            return np.asarray(x, dtype=float)

    def slope(self, x: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.kind == "logit":
                return (self.hi - self.lo) / ((x - self.lo) * (self.hi - x))
            if self.kind == "log":
                return 1.0 / (x - self.lo)
            if self.kind == "neglog":
                return 1.0 / (self.hi - x)
            return np.ones_like(np.asarray(x, dtype=float))

    def back(self, y: np.ndarray) -> np.ndarray:
        if self.kind == "logit":
            return self.lo + (self.hi - self.lo) * _expit(y)
        if self.kind == "log":
            return self.lo + np.exp(y)
        if self.kind == "neglog":
            return self.hi - np.exp(-y)
        return y


def t_interval(
    theta_hat: Any,
    se_hat: Any,
    df: float,
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] | None = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """``estimate -/+ t_(df) * se``: the cluster-robust t interval with ``df`` = units - 1.

    With the linearized (CR1) standard error over conditions this is the textbook
    "t on condition means with C - 1 degrees of freedom" (Cameron & Miller 2015, sec.
    VI.B); over independent samples, the delta-method Wald interval with n - 1 degrees
    of freedom.  Clipped into ``bounds``.

    Examples
    --------
    >>> low, high, _ = t_interval(0.8, 0.05, 11, confidence_level=0.95, bounds=(0, 1))
    >>> round(float(low), 4), round(float(high), 4)
    (0.69, 0.91)
    """
    theta_hat = np.asarray(theta_hat, dtype=float)
    se_hat = np.asarray(se_hat, dtype=float)
    p_hi = tails(confidence_level, alternative)[1]
    q = quantile(p_hi, df)
    low, high = theta_hat - q * se_hat, theta_hat + q * se_hat
    low, high = one_sided(low, high, alternative, bounds)
    return low, high, {"df": float(df)}


def logit_t_interval(
    theta_hat: Any,
    se_hat: Any,
    df: float,
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] | None = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The t interval on the logit scale: ``phi^-1(phi(theta) -/+ t_(df) se phi'(theta))``.

    ``phi`` maps the metric's range to the real line (the logit for a proportion; see
    :class:`Scale`), so the interval stays inside the range and is asymmetric near its
    edges, as the sampling distribution of a proportion over few conditions is; the
    standard error is carried to that scale by the delta method.  This is the "logit"
    interval for a proportion from a complex survey (Korn & Graubard 1999, *Analysis of
    Health Surveys*; ``svyciprop(method = "logit")`` in R's survey package, Lumley 2010),
    with the t reference of the cluster-robust (CR2) standard error (survey itself uses
    the CR1-type linearization and conditions - 1 degrees of freedom, the same with
    conditions of equal size; ``variant="survey"`` of
    :meth:`mlci.BootstrapResult.interval` gives survey's with unequal ones).  Undefined
    (``info["undefined"]``, NaN) where the estimate lies on the edge of the range or the
    standard error is 0; with no bounds it is :func:`t_interval`.

    Examples
    --------
    >>> low, high, _ = logit_t_interval(0.8, 0.05, 11, confidence_level=0.95, bounds=(0, 1))
    >>> round(float(low), 4), round(float(high), 4)
    (0.6679, 0.8884)
    """
    theta_hat = np.asarray(theta_hat, dtype=float)
    se_hat = np.asarray(se_hat, dtype=float)
    p_hi = tails(confidence_level, alternative)[1]
    q = float(quantile(p_hi, df))
    scale = Scale(bounds)
    phi = scale.forward(theta_hat)
    with np.errstate(invalid="ignore"):
        se_phi = se_hat * scale.slope(theta_hat)
        low, high = scale.back(phi - q * se_phi), scale.back(phi + q * se_phi)
    info: dict[str, Any] = {"df": float(df), "scale": scale.kind}
    bad = ~np.isfinite(phi) | ~(se_phi > 0)
    if np.any(bad):
        info["undefined"] = int(np.sum(bad))
        low, high = np.where(bad, np.nan, low), np.where(bad, np.nan, high)
    low, high = one_sided(low, high, alternative, bounds)
    return low, high, info


def modified_wilson_edges(
    low: Any, high: Any, k: Any, n: Any, *, confidence_level: float
) -> tuple[Any, Any, Any]:
    """Brown, Cai & DasGupta's (2001, sec. 4.1.1) modification of Wilson's interval near
    the bounds: ``(low, high, modified)``, elementwise over ``k`` and ``n``.

    Wilson's interval misses ``p`` just above 0 (and below 1) when ``k`` is small: with
    ``k = 1`` its lower bound is about ``0.18 / n`` at 95%, so for ``p`` below it only
    ``k = 0`` covers and the coverage falls to ``exp(-0.18) = 0.84``, at every ``n``.
    For ``1 <= k <= k*`` the lower bound is replaced by the one-sided Poisson bound
    ``chi2_{2k, alpha} / (2n)`` (``alpha = 1 - confidence_level``: the same tail
    probability for a two-sided as for a one-sided interval, as in the paper and in R's
    DescTools::BinomCI ``"modified wilson"``), and symmetrically the upper bound for
    ``1 <= n - k <= k*``; ``k* = 2`` for ``n <= 50`` and 3 above (the paper gives
    ``k* = 3`` for ``51 <= n <= 100``; the Poisson limit of the dip does not depend on
    ``n``, so 3 is kept above 100, as DescTools does since 2017).  ``chi2_{2k, alpha} / 2``
    is the Gamma(k) quantile, ``scipy.special.gammaincinv(k, alpha)``.  Elsewhere the
    interval is Wilson's (``low``, ``high`` returned unchanged); ``modified`` says where
    a bound was replaced.

    Examples
    --------
    >>> low, high, modified = modified_wilson_edges(0.0018, 0.0545, 1, 100, confidence_level=0.95)
    >>> round(float(low), 6), float(high), bool(modified)
    (0.000513, 0.0545, True)
    """
    from scipy.special import gammaincinv

    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    low = np.array(np.broadcast_to(low, k.shape), dtype=float)
    high = np.array(np.broadcast_to(high, k.shape), dtype=float)
    k_star = np.where(n <= 50, 2.0, 3.0)
    alpha = 1.0 - float(confidence_level)
    tol = 1e-9 * np.maximum(n, 1.0)
    safe_n = np.where(n > 0, n, 1.0)
    at_low = (k > tol) & (k <= k_star + tol)
    at_high = (n - k > tol) & (n - k <= k_star + tol)
    low = np.where(at_low, gammaincinv(np.where(at_low, k, 1.0), alpha) / safe_n, low)
    high = np.where(at_high, 1.0 - gammaincinv(np.where(at_high, n - k, 1.0), alpha) / safe_n, high)
    return low, high, at_low | at_high
