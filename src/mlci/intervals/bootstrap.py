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

from ..exceptions import DegenerateIntervalWarning
from ..feedback import warn
from ..inputs.options import INTERVAL_METHODS
from .formulas import Scale as _Scale
from .formulas import logit_t_interval, modified_wilson_edges, t_interval
from .formulas import normal_cdf as ndtr
from .formulas import normal_quantile_any as ndtri
from .formulas import one_sided as _one_sided
from .formulas import quantile as _t_quantile
from .formulas import tails as _tails
from .near_bound import (
    TRUNCATION_TEXT,
    effective_binomial_interval,
    korn_graubard_interval,
    wilson_size,
)

__all__ = [
    "INTERVAL_METHODS",
    "LINEARIZED_METHODS",
    "acceleration",
    "bootstrap_interval",
    "edge_dominated",
    "edge_interval",
    "effective_binomial_interval",
    "interval_from_replicates",
    "logit_t_interval",
    "quantiles",
    "studentized_interval",
    "studentized_pvalue",
    "t_interval",
    "tail_replicates",
    "wilson_interval",
]

#: interval methods that need the linearized standard error (engine/linearize.py)
LINEARIZED_METHODS = ("studentized", "t", "logit_t", "korn_graubard", "wilson", "wilson_modified")


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
    # written as lo + frac*(hi-lo) would give NaN for lo = hi = inf, and for lo = -inf
    # below a finite hi (a bootstrap-t tail holding infinite t*): the interpolation between
    # an infinite order statistic and a finite one is that infinity
    with np.errstate(invalid="ignore"):
        out = np.where((v_hi == v_lo) | (frac == 0), v_lo, v_lo + frac * (v_hi - v_lo))
        out = np.where(np.isneginf(v_lo) & np.isfinite(v_hi), -np.inf, out)
        out = np.where(np.isposinf(v_hi) & np.isfinite(v_lo) & (frac > 0), np.inf, out)
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
        return ndtri(below / n_valid)  # (scipy-free while scipy.special is not loaded)


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

    Notes
    -----
    Conventions (scipy's; R's boot.ci differs, and ``variant="boot"`` of
    :meth:`mlci.BootstrapResult.interval` and :func:`mlci.bca_ci` reproduces it, see
    :mod:`mlci.intervals.variants` and docs/r.md): quantiles interpolate linearly between
    order statistics (R's ``quantile(type = 7)``); BC/BCa's ``z0`` counts replicates tied
    with the estimate as one half (boot: strictly below only, one grid step apart on a
    discrete metric); the normal interval is ``theta_hat -/+ z sd`` (boot's ``norm.ci``
    subtracts the bootstrap bias ``mean(dist) - theta_hat``).

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
    p_lo, p_hi = _tails(confidence_level, alternative)
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
        z = _t_quantile(p_hi)
        low, high = theta_hat - z * se, theta_hat + z * se
    elif method in ("bc", "bca"):
        z0 = _z0(dist, theta_hat)
        a = np.zeros(shape) if method == "bc" else np.broadcast_to(np.asarray(accel), shape)
        za, zb = _t_quantile(p_lo), _t_quantile(p_hi)
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
    low, high = _one_sided(low, high, alternative, bounds)
    return low, high, info


#: fewer replicates than this expected beyond a bound read from the replicates
#: (percentile, basic, BC, BCa, studentized): :class:`~mlci.FewResamplesWarning`.
#:
#: A bound read at the tail probability ``p`` from ``B`` replicates is an order
#: statistic with about ``k = B p`` replicates beyond it; the tail probability it stands
#: for is Beta-distributed with a relative Monte Carlo standard deviation of about
#: ``1 / sqrt(k)``.  With ``k = 5`` that is 0.45: the nominal 2.5% tail is in fact
#: between about 1.4% and 3.6% (one standard deviation), the most that still says
#: something about the level.  ``k >= 5`` is ``B >= 10 / alpha`` for a two-sided
#: interval (200 at 95%, 1,000 at 99%), Efron & Tibshirani's (1993, sec. 19.3) order of
#: magnitude for percentile intervals.  BCa and the studentized interval need more for a
#: *stable* bound (BCa's bias correction ``z0`` is itself estimated from the replicates,
#: with a standard deviation of ``1.25 / sqrt(B)``, which moves both adjusted levels;
#: the t* quantiles have heavier tails): Davison & Hinkley (1997, sec. 5.2.3) advise
#: ``B >= 999`` for a 95% interval (25 per tail), which the default of 1,000 meets.  The
#: warning is given at the same ``k`` for every method: a larger one for BCa and the
#: studentized interval would warn about every default 99% interval (1,000 replicates
#: give exactly 5 per tail); the warning's advice (``_advised``) asks for at least 10
#: per tail and 1,000 replicates.
MIN_TAIL_REPLICATES = 5.0


def tail_replicates(
    n_valid: Any, method: str, confidence_level: float, alternative: str, info: dict[str, Any]
) -> float:
    """The fewest replicates expected beyond a bound the interval reads from the replicates.

    ``n_valid * tail`` for the tails that are read (``alpha / 2`` each two-sided,
    ``alpha`` one-sided), at the nominal level also for BC/BCa (whose adjusted levels
    depend on the data: counting them would make the warning data-dependent at the
    default ``n_resamples``; ``info`` is kept for such a rule).  Infinite for the
    methods that read no quantile (``"normal"``, ``"t"``, ``"logit_t"``, ``"wilson"``).
    Compared with :data:`MIN_TAIL_REPLICATES` (5).

    Examples
    --------
    >>> round(tail_replicates(10, "percentile", 0.95, "two-sided", {}), 6)
    0.25
    """
    if method not in ("percentile", "basic", "bc", "bca", "studentized"):
        return float("inf")
    p_lo, p_hi = _tails(confidence_level, alternative)
    lo, hi = np.asarray(p_lo, dtype=float), np.asarray(1.0 - p_hi, dtype=float)
    tails = []
    if alternative != "less":
        tails.append(lo)  # the lower bound
    if alternative != "greater":
        tails.append(hi)
    share = np.nanmin(np.stack([np.broadcast_to(t, np.shape(n_valid)) for t in tails]))
    return float(np.min(n_valid) * share) if np.isfinite(share) else float("inf")


# ----------------------------------------------------------------- linearized methods
def studentized_interval(
    theta_hat: Any,
    se_hat: Any,
    dist: np.ndarray,
    se_dist: np.ndarray,
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] | None = None,
    df: float | None = None,
    edge_fallback: bool = True,
    edge_method: str = "logit_t",
    iid: bool = False,
    linear: dict[str, Any] | None = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Bootstrap-t interval (Efron & Tibshirani 1993, ch. 12.5; Hall 1992, sec. 3.5).

    Each replicate gives ``t* = (phi(theta*) - phi(theta)) / (se* phi'(theta*))``, with
    ``se*`` the replicate's own (linearized) standard error and ``phi`` a transformation
    to an unbounded scale (logit for a metric in a bounded range; see :class:`_Scale`),
    which keeps the interval inside the range and makes ``t*`` closer to pivotal
    (DiCiccio & Efron 1996, sec. 4).  The interval is
    ``phi^-1(phi(theta) - t*_(1-a/2) se phi'(theta)), phi^-1(phi(theta) - t*_(a/2) ...)``.
    A replicate at the edge of the range (phi infinite) has an infinite t* of the same
    sign; a replicate without spread (se* = 0 at the estimate) is left out.  Elements
    whose estimate lies on the edge, or whose standard error is 0, get the percentile
    interval instead (``info["fallback"]``).

    Near the edge of the range (a strong system with a handful of errors) many
    replicates have no error at all: their t* is infinite, and once they fill the tail
    the t quantile is infinite and the bound is the range's edge (F1 0.99 from 1 error in
    100 gave [0, 0.999]).  An element where the replicates with an infinite t* make up at
    least :data:`EDGE_TAIL_SHARE` (half) of a tail (of the level's tail, or of a 99%
    interval's, 0.005, whichever is smaller: the same decision at every level up to 99%,
    so that the intervals nest; see :func:`edge_dominated`) gets the analytic
    interval of the same pivot instead: :func:`logit_t_interval`, the same scale and
    standard error with Student's t (``df`` degrees of freedom) in place of the t*
    quantiles (the percentile interval when ``df`` is None).  In the near-bound
    simulation (docs/validation.md, "Near the bounds") it covered 0.98-1.00 on those
    test sets where BCa covered 0.90-0.99; ``info["edge_fallback"]`` counts them.
    With ``edge_method="korn_graubard"`` (the decision metrics: :func:`mlci.engine.auto.
    edge_fallback_options`) the analytic interval is instead
    :func:`effective_binomial_interval`, Clopper-Pearson on the effective sample size of
    the same standard error (``df`` adjusts it unless ``iid``; the one function that gives
    ``method="korn_graubard"``, :func:`mlci.intervals.near_bound.korn_graubard_interval`,
    reading the rest of the linearization ``linear``): it covered as much or
    more in every design of that simulation, and is narrower than the logit t interval,
    whose far bound with one or two errors is 1.3-1.7 times BCa's width for MCC and
    kappa (Clopper-Pearson: 1.1-1.4).
    With ``edge_fallback=False`` (the ranking metrics, where neither held) the
    studentized interval is kept and ``info["edge_dominated"]`` counts those elements.
    With no infinite t* (every design away from the edge) nothing changes.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> dist = rng.normal(0.5, 0.1, size=4000)
    >>> se = np.full(4000, 0.1)
    >>> low, high, _ = studentized_interval(0.5, 0.1, dist, se, confidence_level=0.95)
    >>> round(float(low), 2), round(float(high), 2)
    (0.3, 0.69)
    """
    theta_hat = np.asarray(theta_hat, dtype=float)
    se_hat = np.broadcast_to(np.asarray(se_hat, dtype=float), theta_hat.shape)
    dist = np.asarray(dist, dtype=float)
    se_dist = np.asarray(se_dist, dtype=float)
    p_lo, p_hi = _tails(confidence_level, alternative)
    scale, phi_hat, se_phi, t = _t_stats(theta_hat, se_hat, dist, se_dist, bounds)
    shape = theta_hat.shape
    q_lo = quantiles(t, np.full(shape, p_lo))
    q_hi = quantiles(t, np.full(shape, p_hi))
    with np.errstate(invalid="ignore"):
        low = scale.back(phi_hat - q_hi * se_phi)
        high = scale.back(phi_hat - q_lo * se_phi)
    info: dict[str, Any] = {"scale": scale.kind}
    bad = ~np.isfinite(phi_hat) | ~(se_phi > 0) | np.isnan(q_lo) | np.isnan(q_hi)
    edge = _edge_dominated_t(t, p_lo, p_hi, alternative) & ~bad
    if np.any(edge) and not edge_fallback:
        info["edge_dominated"] = int(np.sum(edge))
    elif np.any(edge):
        finite = bounds is not None and bool(np.all(np.isfinite(bounds)))
        if df is not None:
            fb = "korn_graubard" if edge_method == "korn_graubard" and finite else "logit_t"
            # on an unbounded metric's identity scale the logit t interval is the t one;
            # with one bound (mse, log loss) it is on the log scale: "logit_t", the
            # method= that gives it again
            one = bounds is not None and bool(np.any(np.isfinite(bounds)))
            fb = fb if finite else "logit_t" if one else "t"
            el, eh = edge_interval(
                fb, theta_hat, se_hat, df, iid, confidence_level=confidence_level,
                alternative=alternative, bounds=bounds, linear=linear,
            )  # fmt: skip
        else:
            fb = "percentile"
            el, eh, _ = bootstrap_interval(
                theta_hat,
                dist,
                method=fb,
                confidence_level=confidence_level,
                alternative=alternative,
                bounds=bounds,
            )
        low, high = np.where(edge, el, low), np.where(edge, eh, high)
        info["edge_fallback"] = int(np.sum(edge))
        info["edge_fallback_method"] = fb
    if np.any(bad):
        pl, ph, _ = bootstrap_interval(  # its own no-spread warning, if any
            theta_hat,
            dist,
            method="percentile",
            confidence_level=confidence_level,
            alternative=alternative,
            bounds=bounds,
        )
        low, high = np.where(bad, pl, low), np.where(bad, ph, high)
        info["fallback"] = (
            f"studentized undefined for {int(np.sum(bad))} element(s) (the estimate on the "
            "edge of its range, or no spread); percentile used there"
        )
    low, high = _one_sided(low, high, alternative, bounds)
    return low, high, info


#: share of a tail's replicates with an infinite t* at which the bootstrap-t bound is
#: no longer read from the t* distribution (:func:`edge_dominated`)
EDGE_TAIL_SHARE = 0.5
#: the tail the share is taken of, at most: a two-sided 99% interval's (0.005)
EDGE_REFERENCE_TAIL = 0.005


def edge_interval(
    method: str,
    theta_hat: Any,
    se_hat: Any,
    df: Any,
    iid: bool,
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] | None = None,
    linear: dict[str, Any] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The analytic interval the studentized one gives way to near the edge
    (:func:`studentized_interval`), from the estimate's linearized standard error:
    ``"korn_graubard"`` (:func:`mlci.intervals.near_bound.korn_graubard_interval`, what
    ``method="korn_graubard"`` gives: ``df`` over conditions only, and the rest of the
    linearization ``linear``, e.g. a proportion's ``effective_n``), ``"logit_t"`` or
    ``"t"`` (the logit t interval, on the identity scale of an unbounded metric).  What
    re-reads it at another level (:mod:`mlci.intervals.analytic`) calls this too.

    Examples
    --------
    >>> low, high = edge_interval("logit_t", 0.99, 0.01, 99, True, confidence_level=0.95,
    ...                           bounds=(0.0, 1.0))
    >>> bool(low < 0.99 < high < 1)
    True
    """
    if method == "korn_graubard":
        lin = {**(linear or {}), "standard_error": se_hat, "df": df, "iid": iid}
        low, high, _ = korn_graubard_interval(
            theta_hat, lin, confidence_level=confidence_level, alternative=alternative,
            bounds=bounds,  # type: ignore[arg-type]
        )  # fmt: skip
        return low, high
    low, high, _ = logit_t_interval(
        theta_hat,
        se_hat,
        df,
        confidence_level=confidence_level,
        alternative=alternative,
        bounds=bounds,
    )
    return low, high


def _edge_dominated_t(t: np.ndarray, p_lo: float, p_hi: float, alternative: str) -> np.ndarray:
    valid = ~np.isnan(t)
    n = np.maximum(valid.sum(axis=0), 1)
    pos = np.sum(t == np.inf, axis=0) / n  # these fill the upper tail: the lower bound
    neg = np.sum(t == -np.inf, axis=0) / n  # the lower tail: the upper bound
    # the tail of the level, but never more than a 99% interval's: the same decision at
    # every level up to 99%, so that a 99% interval contains the 95% one
    lower_bad = pos >= EDGE_TAIL_SHARE * min(1.0 - p_hi, EDGE_REFERENCE_TAIL)
    upper_bad = neg >= EDGE_TAIL_SHARE * min(p_lo, EDGE_REFERENCE_TAIL)
    # one-sided too: either tail (a one-sided interval's tails are alpha and 1 - alpha),
    # so that its bound is the two-sided interval's at 1 - 2 alpha, whose decision reads
    # both tails: a one-sided bound that kept the studentized value while the two-sided
    # interval fell back lay outside it (tests/test_properties_edge.py)
    del alternative
    return lower_bad | upper_bad


def edge_dominated(
    theta_hat: Any,
    se_hat: Any,
    dist: np.ndarray,
    se_dist: np.ndarray,
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] | None = None,
) -> np.ndarray:
    """Elements whose bootstrap-t bound would rest on infinite t* (boolean, shape S).

    A replicate on the edge of the range (F1 = 1: no error in the resample), or one with
    no spread (se* = 0), has an infinite t*.  When such replicates make up at least
    :data:`EDGE_TAIL_SHARE` of the tail a bound is read from (``alpha / 2`` of the
    replicates for a two-sided interval; at most :data:`EDGE_REFERENCE_TAIL`, a 99%
    interval's, so that every level up to 99% decides alike and the intervals nest),
    that bound is infinite, or close to one of the few
    largest finite t* (in a simulation of F1, MCC and ROC AUC near 1 at n = 300-500,
    studentized bounds 70-290 times wider than BCa's from a share of 0.02 of 0.025 on;
    docs/validation.md, "Near the bounds").  :func:`studentized_interval` then gives
    the logit t interval there.  With 1 error in 100 samples, 0.99^100 = 37% of the
    replicates have no error.

    Examples
    --------
    >>> dist = np.r_[np.full(40, 1.0), np.linspace(0.9, 0.99, 960)]
    >>> se = np.where(dist == 1.0, 0.0, 0.01)
    >>> bool(edge_dominated(0.99, 0.01, dist, se, confidence_level=0.95, bounds=(0, 1)))
    True
    """
    theta_hat = np.asarray(theta_hat, dtype=float)
    se_hat = np.broadcast_to(np.asarray(se_hat, dtype=float), theta_hat.shape)
    p_lo, p_hi = _tails(confidence_level, alternative)
    t = _t_stats(theta_hat, se_hat, np.asarray(dist, dtype=float), se_dist, bounds)[3]
    return _edge_dominated_t(t, p_lo, p_hi, alternative)


#: a replicate's standard error below this share of the data's is zero up to rounding: the
#: linearized variance of a replicate without spread (a weighted mean whose resample holds
#: one distinct weighted sample) comes out as ~1e-16 from cancellation, its square root
#: ~1e-8, and t* ~1e7 instead of infinite (:func:`_t_stats`)
ZERO_SE_SHARE = 1e-4


def _t_stats(theta_hat, se_hat, dist, se_dist, bounds):
    scale = _Scale(bounds)
    se_dist = np.asarray(se_dist, dtype=float)
    with np.errstate(invalid="ignore"):
        se_dist = np.where(se_dist <= ZERO_SE_SHARE * np.abs(se_hat), 0.0, se_dist)
    phi_hat = scale.forward(theta_hat)
    phi = scale.forward(dist)
    with np.errstate(divide="ignore", invalid="ignore"):
        se_phi = se_hat * scale.slope(theta_hat)
        t = (phi - phi_hat) / (se_dist * scale.slope(dist))
    at_edge = ~np.isfinite(phi) & ~np.isnan(dist)
    t = np.where(at_edge & (dist > theta_hat), np.inf, t)
    t = np.where(at_edge & (dist < theta_hat), -np.inf, t)
    t = np.where(at_edge & (dist == theta_hat), np.nan, t)
    return scale, phi_hat, se_phi, t


def studentized_pvalue(
    theta_hat: Any,
    se_hat: Any,
    dist: np.ndarray,
    se_dist: np.ndarray,
    *,
    null: float = 0.0,
    alternative: str = "two-sided",
    bounds: tuple[float, float] | None = None,
) -> np.ndarray:
    """The bootstrap-t test of ``theta = null``, the inversion of :func:`studentized_interval`.

    ``t0 = (phi(theta) - phi(null)) / (se phi'(theta))`` is referred to the replicates'
    ``t*``: ``p = (1 + #{t* >= t0}) / (1 + B)`` for ``"greater"`` (H1: theta > null),
    ``#{t* <= t0}`` for ``"less"``, twice the smaller of the two (at most 1) two-sided.
    A level-``alpha`` test rejects exactly when the interval of level ``1 - alpha``
    excludes ``null`` (up to the discreteness of the replicates).  NaN where the
    studentized interval is undefined.
    """
    theta_hat = np.asarray(theta_hat, dtype=float)
    se_hat = np.broadcast_to(np.asarray(se_hat, dtype=float), theta_hat.shape)
    scale, phi_hat, se_phi, t = _t_stats(
        theta_hat, se_hat, np.asarray(dist, float), se_dist, bounds
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = (phi_hat - scale.forward(np.asarray(null, dtype=float))) / se_phi
    valid = ~np.isnan(t)
    n = valid.sum(axis=0)
    upper = (1.0 + np.sum(valid & (t >= t0), axis=0)) / (1.0 + n)
    lower = (1.0 + np.sum(valid & (t <= t0), axis=0)) / (1.0 + n)
    if alternative == "greater":
        p = upper
    elif alternative == "less":
        p = lower
    else:
        p = np.minimum(1.0, 2.0 * np.minimum(upper, lower))
    return np.where(np.isfinite(t0) | np.isinf(t0) & (se_phi > 0), p, np.nan)


def wilson_interval(
    p_hat: float,
    n_eff: float,
    df: float | None,
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    modified: bool = False,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Wilson's score interval for a proportion, with a design effect.

    ``n_eff`` is the effective sample size (the denominator over the design effect; the
    denominator itself for independent samples).  With clustered samples (``df`` =
    conditions - 1) the effective size is further multiplied by ``(z / t_df)^2``, Korn &
    Graubard's (1998) degrees-of-freedom adjustment, which widens the interval as a t
    reference would.  With ``df=None`` it is Wilson's (1927) interval exactly, as in
    :func:`mlci.proportion_ci` (Brown, Cai & DasGupta 2001, eq. 4).  ``modified=True``
    (independent samples only, ``df=None``) replaces the bounds for 1 to 2-3 successes
    (or failures) by the one-sided Poisson bound, Brown, Cai & DasGupta's modified Wilson
    interval (:func:`mlci.intervals.formulas.modified_wilson_edges`): Wilson's coverage
    dips to 0.85 there (exact, 95%, any n); the modified interval's least coverage is
    0.92-0.93 (scripts/wilson_modified_exact.py).

    Examples
    --------
    >>> low, high, _ = wilson_interval(0.8, 100, None, confidence_level=0.95)
    >>> round(float(low), 4), round(float(high), 4)
    (0.7112, 0.8666)
    """
    p_hi = _tails(confidence_level, alternative)[1]
    z = float(_t_quantile(p_hi))
    n = float(n_eff)
    info: dict[str, Any] = {"effective_n": n}
    if df is not None:
        n = n * (z / float(_t_quantile(p_hi, df))) ** 2
        info["effective_n_df_adjusted"] = n
    p = float(p_hat)
    denom = 1.0 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z / denom * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low, high = np.asarray(center - half), np.asarray(center + half)
    if modified and df is None:
        low, high, changed = modified_wilson_edges(
            low, high, p * n, n, confidence_level=confidence_level
        )
        if bool(changed):
            info["modified"] = "the one-sided Poisson bound near the range's edge"
    low, high = _one_sided(low, high, alternative, (0, 1))
    return low, high, info


def _warn_zero_standard_error(se: Any, hint: str) -> None:
    """Warn where a t interval collapses to the estimate: a standard error of exactly 0.

    The t interval ``theta -/+ t se`` has no width there, like a bootstrap distribution
    without spread (:func:`bootstrap_interval` warns about that one): e.g. a paired
    difference of two systems that agree on every sample (no discordant pair; in the
    design search, 21% of the test sets of an accuracy difference of 0.0037 over 350
    samples, where the [0, 0] interval never covered).
    """
    zero = np.asarray(se, dtype=float) == 0
    if np.any(zero):
        warn(
            f"The standard error is 0 for {int(np.sum(zero))} element(s) (every sample "
            "contributes the same value, e.g. two systems that agree on every sample: no "
            "discordant pair); the t interval collapses to the estimate, which shows no "
            "precision, only that the test set holds no counter-example. For a paired "
            "accuracy difference, mlci.paired_proportion_diff_ci(mlci.paired_table(...)) "
            f"gives an interval from the discordant counts.{hint}",
            DegenerateIntervalWarning,
        )


def interval_from_replicates(
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
    degenerate_hint: str = "",
    variant: str = "mlci",
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The one dispatcher from a method name to its interval.

    ``linear`` is the linearization of the estimate (``standard_error``, ``df``,
    ``effective_n``, ``iid``; see :mod:`mlci.engine.linearize`), needed by the
    ``"studentized"``, ``"t"`` and ``"wilson"`` methods; ``se_dist`` the replicates'
    standard errors (``"studentized"``).  ``variant="boot"`` (R's ``boot.ci``) or
    ``"survey"`` (R's ``svyciprop``): :func:`mlci.intervals.variants.variant_interval`.
    """
    if variant != "mlci":
        from .variants import variant_interval  # R's variants: loaded only when asked

        return variant_interval(
            variant,
            estimate,
            dist,
            method=method,
            confidence_level=confidence_level,
            alternative=alternative,
            accel=accel,
            bounds=bounds,
            linear=linear,
            se_dist=se_dist,
        )
    if method in LINEARIZED_METHODS:
        if linear is None or (method == "studentized" and se_dist is None):
            raise ValueError(
                f"method={method!r} needs the linearized standard error, which this result "
                "does not hold; recompute it with that method."
            )
        if method == "studentized" and linear.get("analytic_method") is not None:
            # the engine chose an analytic interval in place of the studentized one
            # (balanced accuracy's MOVER, mlci.engine.class_edge; F1, MCC, kappa without
            # an error, mlci.engine.no_error): read by its name
            from .mover import mover_interval

            return mover_interval(
                linear["analytic_method"], linear, wilson_interval, effective_binomial_interval,
                confidence_level=confidence_level, alternative=alternative, bounds=bounds,
            )  # fmt: skip
        if method == "studentized":
            return studentized_interval(
                estimate,
                linear["standard_error"],
                dist,
                se_dist,  # type: ignore[arg-type]
                confidence_level=confidence_level,
                alternative=alternative,
                bounds=bounds,
                df=linear.get("df"),
                edge_fallback=linear.get("edge_fallback", True),
                edge_method=linear.get("edge_method", "logit_t"),
                iid=bool(linear.get("iid")),
                linear=linear,
            )
        if method == "t":
            low, high, info = t_interval(
                estimate,
                linear["standard_error"],
                linear["df"],
                confidence_level=confidence_level,
                alternative=alternative,
                bounds=bounds,
            )
            _warn_zero_standard_error(linear["standard_error"], degenerate_hint)
            return low, high, info
        if method == "korn_graubard":
            return korn_graubard_interval(  # one function, every door
                estimate, linear, confidence_level=confidence_level, alternative=alternative,
                bounds=bounds,  # type: ignore[arg-type]
            )  # fmt: skip
        if method == "logit_t":
            low, high, info = logit_t_interval(
                estimate,
                linear["standard_error"],
                linear["df"],
                confidence_level=confidence_level,
                alternative=alternative,
                bounds=bounds,
            )
            if "undefined" not in info:
                return low, high, info
            if linear.get("effective_n") is not None:
                # a proportion of 0 or 1 (or without variation between conditions): no
                # logit; Wilson on the nominal size, which the linearization gives there
                wl, wh, _ = wilson_interval(
                    float(estimate),
                    linear["effective_n"],
                    None if linear.get("iid") else linear["df"],
                    confidence_level=confidence_level,
                    alternative=alternative,
                )
                info["fallback"] = (
                    "logit_t undefined (the estimate on the edge of its range, or no "
                    "spread); wilson used"
                )
                return wl, wh, info
            tl, th, _ = t_interval(
                estimate,
                linear["standard_error"],
                linear["df"],
                confidence_level=confidence_level,
                alternative=alternative,
                bounds=bounds,
            )
            bad = np.isnan(low)
            _warn_zero_standard_error(
                np.where(bad, linear["standard_error"], np.nan), degenerate_hint
            )
            info["fallback"] = (
                f"logit_t undefined for {int(np.sum(bad))} element(s) (the estimate on the "
                "edge of its range, or no spread); t used there"
            )
            return np.where(bad, tl, low), np.where(bad, th, high), info
        if linear.get("effective_n") is None:
            raise ValueError(
                f"method={method!r} applies to a proportion (accuracy, error_rate, recall, "
                "precision, specificity...) only; use 'studentized', 't' or 'bca'."
            )
        if method == "wilson_modified" and not linear.get("iid"):
            raise ValueError(
                "method='wilson_modified' applies to a proportion of independent samples; "
                "over conditions use 'wilson' (on the effective sample size), 'logit_t' or "
                "'auto'."
            )
        n_w, df_w, truncated = wilson_size(  # over conditions: design effect truncated at 1
            linear, confidence_level=confidence_level, alternative=alternative
        )
        low, high, info = wilson_interval(
            float(estimate),
            n_w,
            df_w,
            confidence_level=confidence_level,
            alternative=alternative,
            modified=method == "wilson_modified",
        )
        return low, high, info | ({"truncation": TRUNCATION_TEXT} if truncated else {})
    return bootstrap_interval(
        estimate,
        dist,
        method=method,
        confidence_level=confidence_level,
        alternative=alternative,
        accel=accel,
        bounds=bounds,
        degenerate_hint=degenerate_hint,
    )
