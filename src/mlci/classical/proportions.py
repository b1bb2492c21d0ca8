"""Analytic confidence intervals for proportions and differences of proportions.

An accuracy, an error rate, a recall ... measured on ``n`` test samples is a
proportion ``k / n``.  This module gives the classical binomial intervals for it
(:func:`proportion_ci`), for the difference between two systems evaluated on
*different* test sets (:func:`proportion_diff_ci`) and on the *same* test set
(:func:`paired_proportion_diff_ci`).  Every function returns an
:class:`~mlci.results.IntervalResult`, like the bootstrap.

References
----------
- Newcombe, R. G. (1998a). Two-sided confidence intervals for the single proportion:
  comparison of seven methods. *Statistics in Medicine* 17, 857–872.
- Newcombe, R. G. (1998b). Interval estimation for the difference between independent
  proportions: comparison of eleven methods. *Statistics in Medicine* 17, 873–890.
- Newcombe, R. G. (1998c). Improved confidence intervals for the difference between
  binomial proportions based on paired data. *Statistics in Medicine* 17, 2635–2650.
- Tango, T. (1998). Equivalence test and confidence interval for the difference in
  proportions for the paired-sample design. *Statistics in Medicine* 17, 891–908.
- Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a binomial
  proportion. *Statistical Science* 16, 101–133.
- Agresti, A. & Coull, B. A. (1998). Approximate is better than "exact" for interval
  estimation of binomial proportions. *The American Statistician* 52, 119–126.
- Fagerland, M. W., Lydersen, S. & Laake, P. (2014). Recommended tests and confidence
  intervals for paired binomial proportions. *Statistics in Medicine* 33, 2850–2875.
- Fagerland, M. W., Lydersen, S. & Laake, P. (2017). *Statistical Analysis of
  Contingency Tables*. CRC Press (chapters 2 and 8).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..inputs import (
    ArgSpec,
    check_alternative,
    check_choice,
    check_confidence_level,
    check_flag,
    fill_doc,
    gather,
    show_values,
)
from ..intervals.formulas import modified_wilson_edges, quantile, tails
from ..results import ConfidenceInterval, IntervalResult
from .checks import count_array, number_array, require

__all__ = [
    "PROPORTION_METHODS",
    "paired_proportion_diff_ci",
    "paired_table",
    "proportion_ci",
    "proportion_diff_ci",
]

#: Methods accepted by :func:`proportion_ci`.
PROPORTION_METHODS = (
    "wilson",
    "wilson_cc",
    "wilson_modified",
    "wald",
    "wald_cc",
    "agresti_coull",
    "jeffreys",
    "clopper_pearson",
    "mid_p",
    "likelihood_ratio",
)

# The methods of proportion_ci whose formula can leave [0, 1]: `clip` applies to them.
_UNBOUNDED = ("wald", "wald_cc", "agresti_coull")

# Methods accepted by paired_proportion_diff_ci.
_PAIRED_METHODS = ("newcombe", "newcombe_unadjusted", "tango", "wald")


# ----------------------------------------------------------------------------------------
# validation helpers
# ----------------------------------------------------------------------------------------
def _check_k_n(
    k: Any, n: Any, k_name: str = "k", n_name: str = "n"
) -> tuple[np.ndarray, np.ndarray]:
    k_arr = count_array(k_name, k)
    n_arr = count_array(n_name, n)
    try:
        k_arr, n_arr = np.broadcast_arrays(k_arr, n_arr)
    except ValueError:
        raise ValueError(
            f"`{k_name}` and `{n_name}` must have broadcastable shapes; got "
            f"{k_arr.shape} and {n_arr.shape}."
        ) from None
    if (n_arr < 1).any():
        raise ValueError(f"`{n_name}` must be at least 1 (the number of trials); got 0.")
    if (k_arr > n_arr).any():
        i = np.flatnonzero((k_arr > n_arr).ravel())[0]
        raise ValueError(
            f"`{k_name}` cannot exceed `{n_name}`: got {k_name}={k_arr.ravel()[i]:g} > "
            f"{n_name}={n_arr.ravel()[i]:g}. `{k_name}` counts the successes among "
            f"`{n_name}` trials."
        )
    return k_arr.astype(float), n_arr.astype(float)


def _check_metric(metric: Any) -> str | None:
    if metric is not None and not isinstance(metric, str):
        raise TypeError(f"`metric` must be a name (a string) or None; got {metric!r}.")
    return metric


def _out(x: np.ndarray, scalar: bool) -> Any:
    return float(x) if scalar else x


def _z(confidence_level: float, alternative: str) -> float:
    # the interval layer's normal quantile (scipy.special.ndtri: scipy.stats.norm.ppf to
    # the last bit); scipy.stats and scipy.optimize are imported only by the methods that
    # need them (start-up time)
    return float(quantile(tails(confidence_level, alternative)[1]))


def _tail_alpha(confidence_level: float, alternative: str) -> float:
    a = 1.0 - confidence_level
    return a / 2 if alternative == "two-sided" else a


def _one_sided(low, high, alternative: str, lo_bound: float, hi_bound: float):
    low = np.asarray(low, dtype=float)
    high = np.asarray(high, dtype=float)
    if alternative == "less":
        low = np.full_like(low, lo_bound)
    elif alternative == "greater":
        high = np.full_like(high, hi_bound)
    return low, high


# ----------------------------------------------------------------------------------------
# single proportion
# ----------------------------------------------------------------------------------------
def _wilson(k, n, z):
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low = np.where(k == 0, 0.0, centre - half)
    high = np.where(k == n, 1.0, centre + half)
    return np.clip(low, 0, 1), np.clip(high, 0, 1)


def _wilson_cc(k, n, z):
    # Newcombe (1998a), method 4.
    p = k / n
    q = 1 - p
    denom = 2 * (n + z * z)
    with np.errstate(invalid="ignore"):
        root_lo = np.sqrt(z * z - 2 - 1 / n + 4 * p * (n * q + 1))
        root_hi = np.sqrt(z * z + 2 - 1 / n + 4 * p * (n * q - 1))
        low = (2 * n * p + z * z - 1 - z * root_lo) / denom
        high = (2 * n * p + z * z + 1 + z * root_hi) / denom
    low = np.where(k == 0, 0.0, low)
    high = np.where(k == n, 1.0, high)
    return np.clip(low, 0, 1), np.clip(high, 0, 1)


def _mid_p(k, n, a):
    """Mid-p exact limits (Newcombe 1998a, method 6), by vectorised bisection."""
    from scipy import stats

    def bisect(f, increasing):
        lo = np.zeros_like(k)
        hi = np.ones_like(k)
        for _ in range(64):
            mid = (lo + hi) / 2
            above = f(mid) > a
            go_left = above if increasing else ~above
            hi = np.where(go_left, mid, hi)
            lo = np.where(go_left, lo, mid)
        return (lo + hi) / 2

    # lower: P(X > k) + P(X = k)/2 = a, increasing in p
    low = bisect(lambda p: stats.binom.sf(k, n, p) + 0.5 * stats.binom.pmf(k, n, p), True)
    # upper: P(X < k) + P(X = k)/2 = a, decreasing in p
    high = bisect(lambda p: stats.binom.cdf(k - 1, n, p) + 0.5 * stats.binom.pmf(k, n, p), False)
    low = np.where(k == 0, 0.0, low)
    high = np.where(k == n, 1.0, high)
    return low, high


def _lr_limits(k: float, n: float, half_crit: float) -> tuple[float, float]:
    """The likelihood-ratio limits for one count k of n.

    The set {p : 2 [l(k/n) - l(p)] <= 2 * half_crit}, with l(p) = k log p + (n-k) log(1-p)
    the binomial log-likelihood, is an interval around k/n: each limit solves
    l(k/n) - l(p) = half_crit, below and above k/n.  Solved by Brent's method in
    t = log p, with log(1 - p) = log(-expm1(t)), so that a limit near 0 or near 1 keeps
    its precision.  The lower limit is 0 at k = 0 and the upper is 1 at k = n; at k = n
    (k = 0) the other limit is exp(-half_crit / n) (1 - exp(-half_crit / n)) exactly.
    """
    if k == 0:
        return 0.0, float(-np.expm1(-half_crit / n))
    if k == n:
        return float(np.exp(-half_crit / n)), 1.0
    t_hat = np.log(k / n)
    l_max = k * t_hat + (n - k) * np.log1p(-k / n)

    def excess(t: float) -> float:  # l(k/n) - l(e^t) - half_crit: 0 at both limits
        return l_max - k * t - (n - k) * np.log(-np.expm1(t)) - half_crit

    # At p = e^-700 (1 - p = 1e-300) the excess is at least k (700 - log(n/k) - 1) -
    # half_crit > 0 (resp. (n-k) (690 - log(n/(n-k)) - 1) - half_crit > 0): the brackets
    # hold for any n below ~e^600.
    from scipy import optimize

    tol = {"xtol": 1e-300, "rtol": 4 * np.finfo(float).eps}
    low = optimize.brentq(excess, -700.0, t_hat, **tol)
    high = optimize.brentq(excess, t_hat, np.log1p(-1e-300), **tol)
    return float(np.exp(low)), float(np.exp(high))


def _likelihood_ratio(k: np.ndarray, n: np.ndarray, z: float):
    """Profile likelihood-ratio interval (Brown, Cai & DasGupta 2001, section 4.1.2).

    Two-sided: the p with 2 [l(k/n) - l(p)] <= chi2_1(1 - alpha) = z², z = z_(1-alpha/2);
    a one-sided bound uses z = z_(1-alpha) (the signed root of the statistic).  Each
    distinct (k, n) pair is solved once.
    """
    kn = np.stack([k.ravel(), n.ravel()], axis=1)
    pairs, inverse = np.unique(kn, axis=0, return_inverse=True)
    limits = np.array([_lr_limits(kk, nn, z * z / 2) for kk, nn in pairs]).reshape(-1, 2)
    inverse = inverse.reshape(-1)
    return limits[inverse, 0].reshape(k.shape), limits[inverse, 1].reshape(k.shape)


def _proportion_bounds(k, n, method, confidence_level, alternative, clip=True):
    z = _z(confidence_level, alternative)
    a = _tail_alpha(confidence_level, alternative)
    p = k / n
    se = None
    if method in ("wald", "wald_cc"):
        se = np.sqrt(p * (1 - p) / n)
        # Newcombe (1998a) method 2 adds 1/(2n) to the half-width of method 1 (Wald)
        half = z * se + (0.5 / n if method == "wald_cc" else 0.0)
        low, high = p - half, p + half
    elif method == "wilson":
        low, high = _wilson(k, n, z)
    elif method == "wilson_cc":
        low, high = _wilson_cc(k, n, z)
    elif method == "wilson_modified":
        low, high = _wilson(k, n, z)
        low, high, _ = modified_wilson_edges(low, high, k, n, confidence_level=confidence_level)
    elif method == "agresti_coull":
        nt = n + z * z
        pt = (k + z * z / 2) / nt
        se = np.sqrt(pt * (1 - pt) / nt)
        low, high = pt - z * se, pt + z * se
    elif method == "jeffreys":
        from scipy import special  # here: `mlci mt compare` imports this module without it

        low = np.where(k == 0, 0.0, special.betaincinv(k + 0.5, n - k + 0.5, a))
        high = np.where(k == n, 1.0, special.betaincinv(k + 0.5, n - k + 0.5, 1 - a))
    elif method == "clopper_pearson":
        from scipy import special  # (as above)

        with np.errstate(invalid="ignore"):
            low = np.where(k == 0, 0.0, special.betaincinv(k, n - k + 1, a))
            high = np.where(k == n, 1.0, special.betaincinv(k + 1, n - k, 1 - a))
    elif method == "likelihood_ratio":
        low, high = _likelihood_ratio(k, n, z)
    else:  # mid_p
        low, high = _mid_p(k, n, a)
    if clip and method in _UNBOUNDED:
        low, high = np.clip(low, 0, 1), np.clip(high, 0, 1)
    low, high = _one_sided(low, high, alternative, 0.0, 1.0)
    return p, low, high, se


@fill_doc
def proportion_ci(
    k: Any,
    n: Any,
    *,
    method: str = "wilson",
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    clip: bool = True,
    metric: str | None = None,
) -> IntervalResult:
    """Confidence interval for a proportion (accuracy, error rate, recall ...) from k of n.

    Parameters
    ----------
    k : int or array_like of int
        Number of successes (e.g. correctly classified test samples).
    n : int or array_like of int
        Number of trials (test samples); broadcast against ``k``.
    method : str, default "wilson"
        ``"wilson"`` (score interval; the recommended default),
        ``"wilson_cc"`` (Wilson with continuity correction, Newcombe 1998a method 4),
        ``"wilson_modified"`` (Brown, Cai & DasGupta's 2001, sec. 4.1.1, modified Wilson:
        for 1 to 2 successes (``n <= 50``; 3 above) the lower bound is the one-sided
        Poisson bound ``chi2_{2k, alpha} / (2n)``, and symmetrically the upper one for
        as few failures: it removes Wilson's coverage dip to 0.85 next to 0 and 1;
        what ``method="auto"`` gives a proportion of independent samples),
        ``"wald"`` (normal approximation ``p ± z·sqrt(p(1-p)/n)``, Newcombe 1998a method 1;
        poor for small ``n`` or ``p`` near 0 or 1),
        ``"wald_cc"`` (Wald with continuity correction ``p ± (z·sqrt(p(1-p)/n) + 1/(2n))``,
        Newcombe 1998a method 2),
        ``"agresti_coull"`` (add z²/2 successes and failures),
        ``"jeffreys"`` (equal-tailed Beta(k+½, n-k+½) interval, with the lower bound set
        to 0 at k = 0 and the upper to 1 at k = n, as in Brown, Cai & DasGupta 2001),
        ``"clopper_pearson"`` (exact, conservative),
        ``"mid_p"`` (exact mid-p, Newcombe 1998a method 6),
        ``"likelihood_ratio"`` (profile likelihood-ratio interval, Brown, Cai & DasGupta
        2001 section 4.1.2, Newcombe 1998a method 7: the ``p`` with
        ``2·[l(k/n) - l(p)] <= χ²₁(confidence_level)``, ``l`` the binomial
        log-likelihood; found by root finding; 0 (1) is its lower (upper) end at k = 0
        (k = n)).
    confidence_level : float, default 0.95
    %(alternative_interval)s
    clip : bool, default True
        Clip the bounds of ``"wald"``, ``"wald_cc"`` and ``"agresti_coull"`` to [0, 1].
        ``clip=False`` returns their formulas as published (e.g. Wald's 1 of 29 starts at
        -0.032), which is what tables comparing methods show.  The other methods never
        leave [0, 1], so ``clip`` does not change them.
    metric : str, optional
        Name of the proportion, shown in the result.

    Returns
    -------
    IntervalResult
        ``estimate = k / n``; scalars for scalar input, arrays of the broadcast shape
        otherwise.  ``standard_error`` is set for ``"wald"``, ``"wald_cc"`` (both
        ``sqrt(p(1-p)/n)``) and ``"agresti_coull"``.

    Examples
    --------
    >>> r = proportion_ci(81, 263, method="wilson")
    >>> round(r.confidence_interval.low, 4), round(r.confidence_interval.high, 4)
    (0.2553, 0.3662)
    >>> proportion_ci([0, 5], 10, method="clopper_pearson").confidence_interval.high
    array([0.30849711, 0.81291397])
    >>> r = proportion_ci(13, 16, method="likelihood_ratio")
    >>> [round(b, 4) for b in r.confidence_interval]
    [0.5828, 0.9497]
    >>> r = proportion_ci(1, 29, method="wald_cc", clip=False)   # as published
    >>> [round(b, 4) for b in r.confidence_interval]
    [-0.0492, 0.1181]
    >>> [round(b, 4) for b in proportion_ci(1, 29, method="wald_cc").confidence_interval]
    [0.0, 0.1181]
    """
    method = check_choice("method", method, PROPORTION_METHODS)
    confidence_level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    clip = check_flag("clip", clip)
    metric = _check_metric(metric)
    k_arr, n_arr = _check_k_n(k, n)
    scalar = k_arr.ndim == 0
    p, low, high, se = _proportion_bounds(k_arr, n_arr, method, confidence_level, alternative, clip)
    return IntervalResult(
        estimate=_out(p, scalar),
        confidence_interval=ConfidenceInterval(_out(low, scalar), _out(high, scalar)),
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        standard_error=None if se is None else _out(se, scalar),
        metric=metric,
        details={"k": _out(k_arr, scalar), "n": _out(n_arr, scalar)},
    )


# ----------------------------------------------------------------------------------------
# difference of two independent proportions
# ----------------------------------------------------------------------------------------
def proportion_diff_ci(
    k1: Any,
    n1: Any,
    k2: Any,
    n2: Any,
    *,
    method: str = "newcombe",
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    clip: bool = True,
    metric: str | None = None,
) -> IntervalResult:
    """Confidence interval for ``k1/n1 - k2/n2``, two proportions from independent samples.

    Use it for two systems evaluated on *different* test sets.  For two systems on the
    same test set use :func:`paired_proportion_diff_ci`, which is narrower.

    Parameters
    ----------
    k1, n1 : int or array_like of int
        Successes and trials of the first sample.
    k2, n2 : int or array_like of int
        Successes and trials of the second sample.
    method : {"newcombe", "wald"}, default "newcombe"
        ``"newcombe"``: Newcombe's hybrid score interval (1998b, method 10), built from
        the two Wilson intervals; good coverage even for small samples.
        ``"wald"``: ``d ± z·sqrt(p1 q1/n1 + p2 q2/n2)``; anti-conservative for small
        samples or proportions near 0 or 1.
    confidence_level : float, default 0.95
    alternative : {"two-sided", "less", "greater"}
        One-sided intervals have -1 or 1 as their open bound.
    clip : bool, default True
        Clip the ``"wald"`` interval to [-1, 1]; ``clip=False`` returns the formula as
        published (as statsmodels' ``confint_proportions_2indep`` does).  The Newcombe
        interval never leaves [-1, 1].
    metric : str, optional
        Name of the proportion, shown in the result.

    Returns
    -------
    IntervalResult
        ``estimate = k1/n1 - k2/n2``.

    Examples
    --------
    >>> r = proportion_diff_ci(56, 70, 48, 80)   # Newcombe (1998b), example (a)
    >>> [round(float(b), 4) for b in r.confidence_interval]
    [0.0524, 0.3339]
    """
    method = check_choice("method", method, ("newcombe", "wald"))
    confidence_level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    clip = check_flag("clip", clip)
    metric = _check_metric(metric)
    k1a, n1a = _check_k_n(k1, n1, "k1", "n1")
    k2a, n2a = _check_k_n(k2, n2, "k2", "n2")
    scalar = k1a.ndim == 0 and k2a.ndim == 0
    try:
        k1a, n1a, k2a, n2a = np.broadcast_arrays(k1a, n1a, k2a, n2a)
    except ValueError:
        raise ValueError(
            "`k1`, `n1`, `k2` and `n2` must have broadcastable shapes; got "
            f"{k1a.shape}, {n1a.shape}, {k2a.shape}, {n2a.shape}."
        ) from None
    z = _z(confidence_level, alternative)
    p1, p2 = k1a / n1a, k2a / n2a
    d = p1 - p2
    se = np.sqrt(p1 * (1 - p1) / n1a + p2 * (1 - p2) / n2a)
    if method == "wald":
        low, high = d - z * se, d + z * se
        if clip:
            low, high = np.clip(low, -1, 1), np.clip(high, -1, 1)
    else:
        l1, u1 = _wilson(k1a, n1a, z)
        l2, u2 = _wilson(k2a, n2a, z)
        low = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
        high = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    low, high = _one_sided(low, high, alternative, -1.0, 1.0)
    return IntervalResult(
        estimate=_out(d, scalar),
        confidence_interval=ConfidenceInterval(_out(low, scalar), _out(high, scalar)),
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        standard_error=_out(se, scalar) if method == "wald" else None,
        metric=metric,
        details={
            "k1": _out(k1a, scalar),
            "n1": _out(n1a, scalar),
            "k2": _out(k2a, scalar),
            "n2": _out(n2a, scalar),
        },
    )


# ----------------------------------------------------------------------------------------
# difference of two paired proportions
# ----------------------------------------------------------------------------------------
def paired_table(
    correct_a: Any, correct_b: Any, *, dropna: bool = False, data: Any = None
) -> np.ndarray:
    """The 2×2 table of agreement between two systems on the same test samples.

    Parameters
    ----------
    correct_a, correct_b : array_like of bool, shape (n_samples,)
        Whether system A (resp. B) got each sample right (booleans or 0/1).  To build
        them from predictions: ``correct_a = y_pred_a == y_true``.
    dropna : bool, default False
        Drop the samples where either argument is missing (None, NaN, ``pd.NA``) instead
        of refusing them.  The table then counts the samples kept: ``len(correct_a) -
        table.sum()`` were dropped.
    data : DataFrame, optional
        A pandas/polars DataFrame or pyarrow Table; ``correct_a`` and ``correct_b`` may
        then be column names.

    Returns
    -------
    ndarray of int, shape (2, 2)
        ``[[both right, only A right], [only B right, both wrong]]``: rows are A
        (right, wrong), columns are B (right, wrong).

    Examples
    --------
    >>> paired_table([1, 1, 0, 1, 0], [1, 0, 1, 1, 0])
    array([[2, 1],
           [1, 1]])
    """
    dropna = check_flag("dropna", dropna)
    require(correct_a=correct_a, correct_b=correct_b)
    g = gather(
        {"correct_a": ArgSpec("labels"), "correct_b": ArgSpec("labels")},
        {"correct_a": correct_a, "correct_b": correct_b},
        dropna=dropna,
        data=data,
    )
    return _table_from_correct(g["correct_a"], g["correct_b"])


def _table_from_correct(
    a: np.ndarray, b: np.ndarray, names: tuple[str, str] = ("correct_a", "correct_b")
) -> np.ndarray:
    """The 2×2 table of validated per-sample correctness (booleans or 0/1)."""
    for name, arr in zip(names, (a, b), strict=True):
        vals = np.unique(arr)
        if arr.dtype.kind not in "biuf" or not set(vals.tolist()) <= {0, 1}:
            raise ValueError(
                f"`{name}` must be boolean (or 0/1): whether each sample was classified "
                f"correctly; got values {show_values(vals)}. Pass `y_pred == y_true`."
            )
    a = a.astype(bool)
    b = b.astype(bool)
    return np.array([[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]], dtype=int)


def _check_table(table: Any, name: str = "table") -> np.ndarray:
    if table is None:
        raise ValueError(f"`{name}` is required; got None.")
    t = number_array(name, table, ndim=(1, 2), what="counts")
    if t.shape != (2, 2):
        raise ValueError(
            f"`{name}` must be a 2×2 table of counts [[both right, only A right], "
            f"[only B right, both wrong]]; got shape {t.shape}. Build one from per-sample "
            f"correctness with `mlci.paired_table(correct_a, correct_b)`."
        )
    t = count_array(name, t)
    if t.sum() < 1:
        raise ValueError(f"`{name}` is all zeros; at least one paired sample is needed.")
    return t


def tango_statistic(n11: float, n12: float, n21: float, n22: float, delta: float) -> float:
    """Tango's (1998) score statistic of ``H0: p1 - p2 = delta`` for the paired table
    ``[[n11, n12], [n21, n22]]`` (``(n12 - n21 - n delta) / sqrt(n (2 p21~ + delta (1 -
    delta)))`` with the restricted MLE ``p21~``); decreasing in ``delta``, McNemar's
    ``(n12 - n21) / sqrt(n12 + n21)`` at ``delta = 0``."""
    n = n11 + n12 + n21 + n22
    m = n11 + n22
    b = n12 * (1 - delta) + n21 * (1 - 3 * delta) - 2 * m * delta
    disc = b * b + 8 * n * n21 * delta * (1 - delta)
    p21 = (b + np.sqrt(max(disc, 0.0))) / (4 * n)
    var = n * (2 * p21 + delta * (1 - delta))
    num = n12 - n21 - n * delta
    if var <= 0:
        return float(np.sign(num) * np.inf) if num != 0 else 0.0
    return float(num / np.sqrt(var))


def _tango_bounds(n11, n12, n21, n22, z_lo, z_hi):
    from scipy import optimize

    n = n11 + n12 + n21 + n22
    d_hat = (n12 - n21) / n

    def stat(delta):
        return tango_statistic(n11, n12, n21, n22, delta)

    eps = 1e-12
    # a one-sided 50% bound (z = 0) is the estimate itself, where the decreasing statistic
    # is 0: rounding of stat(d_hat) would leave brentq's bracket without a sign change
    if d_hat <= -1 or z_lo is None:
        low = -1.0
    elif z_lo == 0:
        low = d_hat
    else:
        low = optimize.brentq(lambda d: stat(d) - z_lo, -1 + eps, d_hat, xtol=1e-12)
    if d_hat >= 1 or z_hi is None:
        high = 1.0
    elif z_hi == 0:
        high = d_hat
    else:
        high = optimize.brentq(lambda d: stat(d) + z_hi, d_hat, 1 - eps, xtol=1e-12)
    return low, high


def paired_proportion_diff_ci(
    table: Any,
    *,
    method: str = "newcombe",
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    clip: bool = True,
    metric: str | None = None,
) -> IntervalResult:
    """Confidence interval for the difference of two proportions on the same samples.

    E.g. the accuracy of system A minus the accuracy of system B, both on one test set.

    Parameters
    ----------
    table : array_like, shape (2, 2)
        ``[[n11, n12], [n21, n22]]`` with rows = A right/wrong and columns = B
        right/wrong (see :func:`paired_table`); the difference is
        ``(n12 - n21) / n``.
    method : {"newcombe", "newcombe_unadjusted", "tango", "wald"}, default "newcombe"
        ``"newcombe"``: Newcombe's square-and-add (MOVER) interval from the two Wilson
        intervals of the marginal proportions, corrected for their correlation by the
        phi coefficient ``φ = (n11 n22 - n12 n21) / sqrt(n1+ n2+ n+1 n+2)`` with
        Newcombe's adjustment (a positive ``n11 n22 - n12 n21`` is reduced by ``n/2``,
        not below 0): Newcombe (1998c) method 10, the one he recommends, and the
        interval of Fagerland, Lydersen & Laake (2014, 2017).
        ``"newcombe_unadjusted"``: the same with the plain phi coefficient (Newcombe
        1998c method 8); slightly narrower when the two systems agree more than chance.
        ``"tango"``: Tango's (1998) asymptotic score interval, found by root finding.
        ``"wald"``: ``d ± z·sqrt((n12 + n21) - (n12 - n21)²/n) / n``; degenerate (zero
        width) when there are no discordant pairs.
    confidence_level : float, default 0.95
    alternative : {"two-sided", "less", "greater"}
        One-sided intervals have -1 or 1 as their open bound.
    clip : bool, default True
        Clip the ``"wald"`` interval to [-1, 1]; ``clip=False`` returns the formula as
        published.  The other methods never leave [-1, 1].
    metric : str, optional
        Name of the proportion, shown in the result.

    Returns
    -------
    IntervalResult

    Examples
    --------
    >>> table = [[59, 6], [16, 80]]   # Fagerland et al. (2017), Cavo et al. data
    >>> r = paired_proportion_diff_ci(table, method="tango")
    >>> round(r.estimate, 4), [round(b, 4) for b in r.confidence_interval]
    (-0.0621, [-0.124, -0.0054])
    >>> table = [[20, 12], [2, 16]]   # Newcombe (1998c), methods 10 and 8
    >>> [round(b, 4) for b in paired_proportion_diff_ci(table).confidence_interval]
    [0.0562, 0.3292]
    >>> r = paired_proportion_diff_ci(table, method="newcombe_unadjusted")
    >>> [round(b, 4) for b in r.confidence_interval]
    [0.0618, 0.3242]
    """
    method = check_choice("method", method, _PAIRED_METHODS)
    confidence_level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    clip = check_flag("clip", clip)
    metric = _check_metric(metric)
    t = _check_table(table)
    (n11, n12), (n21, n22) = t
    n = t.sum()
    d = (n12 - n21) / n
    z = _z(confidence_level, alternative)
    se = np.sqrt(max((n12 + n21) - (n12 - n21) ** 2 / n, 0.0)) / n
    if method == "wald":
        low, high = d - z * se, d + z * se
        if clip:
            low, high = max(low, -1.0), min(high, 1.0)
    elif method in ("newcombe", "newcombe_unadjusted"):
        p1, p2 = (n11 + n12) / n, (n11 + n21) / n
        (l1, u1) = (float(x) for x in _wilson(np.float64(n11 + n12), np.float64(n), z))
        (l2, u2) = (float(x) for x in _wilson(np.float64(n11 + n21), np.float64(n), z))
        # Correlation between the two marginal proportions: the phi coefficient, with
        # Newcombe's (1998c) adjustment for method 10 (as in Fagerland et al. 2017,
        # section 8.5): a positive n11 n22 - n12 n21 is reduced by n/2, not below 0.
        denom = (n11 + n12) * (n21 + n22) * (n11 + n21) * (n12 + n22)
        cross = n11 * n22 - n12 * n21
        if method == "newcombe" and cross > 0:
            cross = max(cross - n / 2, 0.0)
        phi = 0.0 if denom == 0 else cross / np.sqrt(denom)
        dl1, du1, dl2, du2 = p1 - l1, u1 - p1, p2 - l2, u2 - p2
        low = d - np.sqrt(max(dl1**2 - 2 * phi * dl1 * du2 + du2**2, 0.0))
        high = d + np.sqrt(max(du1**2 - 2 * phi * du1 * dl2 + dl2**2, 0.0))
    else:
        low, high = _tango_bounds(n11, n12, n21, n22, z, z)
    low, high = (float(x) for x in _one_sided(low, high, alternative, -1.0, 1.0))
    return IntervalResult(
        estimate=float(d),
        confidence_interval=ConfidenceInterval(low, high),
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        standard_error=float(se) if method == "wald" else None,
        metric=metric,
        details={"table": t.astype(int).tolist(), "n": int(n)},
    )
