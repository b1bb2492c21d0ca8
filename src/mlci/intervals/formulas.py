"""Closed-form intervals: ``estimate ± q·se`` with a normal or Student-t quantile, and
the t interval on the logit scale.

One place for the tails of a confidence level, the quantiles and the Wald interval that
the protocols (cross-validation, out-of-bag), the LLM estimators and the classical tests
(DeLong, paired t) report.

The quantiles and Student's t tail are computed here without scipy.special (its import,
0.18 s with the array-API modules it loads, was a fifth of ``mlci mt compare``):

* the normal quantile :func:`normal_quantile` is Cephes' ``ndtri`` (the rational
  approximations scipy.special.ndtri evaluates, with the C library's ``log`` and ``sqrt``
  through the math module): equal to ``scipy.special.ndtri`` (``scipy.stats.norm.ppf``)
  to the last bit (tests/test_imports.py, on a dense grid down to 1e-300);
* Student's t upper tail :func:`student_t_tail` is ``I_x(df/2, 1/2) / 2`` with ``x = df
  / (df + t^2)``, the incomplete beta function's continued fraction (modified Lentz) and
  its prefactor in extended precision (``numpy.longdouble``: the fraction loses about
  ``df`` ulps of a double when ``x`` is near 1), and :func:`student_t_quantile` its inverse
  (Newton's method on ``log t``).  Within 1e-15 (relative) of mpmath's 40-digit values
  for ``df`` in ``(0, 3e4]``, 1e-14 up to ``1e5``, from ``t = -60`` to ``60`` and ``p``
  down to 1e-250; within 5e-13 of ``scipy.special.stdtr``/``stdtrit`` (``scipy.stats.t``),
  which is scipy's own error at large ``df`` (3e-13 at 2,999 df; tests/test_imports.py).
  Other ``df`` (above 1e5, infinite), and every ``df`` on a platform whose ``long
  double`` is a double, are computed by scipy.special, imported then.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "Scale",
    "libm_expit",
    "libm_logit",
    "logit_t_interval",
    "modified_wilson_edges",
    "normal_cdf",
    "normal_quantile",
    "normal_quantile_any",
    "one_sided",
    "quantile",
    "student_t_quantile",
    "student_t_tail",
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
    return normal_quantile(p) if df is None else student_t_quantile(p, df)


#: Cephes' ``ndtri`` (Moshier, Cephes Math Library 2.8, as in scipy.special): ``sqrt(2 pi)``,
#: the bound ``exp(-2)`` and the coefficients of its three rational approximations
_S2PI = 2.50662827463100050242e0
_EXP_M2 = 0.13533528323661269189
_NDTRI_P0 = (
    -5.99633501014107895267e1,
    9.80010754185999661536e1,
    -5.66762857469070293439e1,
    1.39312609387279679503e1,
    -1.23916583867381258016e0,
)
_NDTRI_Q0 = (
    1.95448858338141759834e0,
    4.67627912898881538453e0,
    8.63602421390890590575e1,
    -2.25462687854119370527e2,
    2.00260212380060660359e2,
    -8.20372256168333339912e1,
    1.59056225126211695515e1,
    -1.18331621121330003142e0,
)
_NDTRI_P1 = (
    4.05544892305962419923e0,
    3.15251094599893866154e1,
    5.71628192246421288162e1,
    4.40805073893200834700e1,
    1.46849561928858024014e1,
    2.18663306850790267539e0,
    -1.40256079171354495875e-1,
    -3.50424626827848203418e-2,
    -8.57456785154685413611e-4,
)
_NDTRI_Q1 = (
    1.57799883256466749731e1,
    4.53907635128879210584e1,
    4.13172038254672030440e1,
    1.50425385692907503408e1,
    2.50464946208309415979e0,
    -1.42182922854787788574e-1,
    -3.80806407691578277194e-2,
    -9.33259480895457427372e-4,
)
_NDTRI_P2 = (
    3.23774891776946035970e0,
    6.91522889068984211695e0,
    3.93881025292474443415e0,
    1.33303460815807542389e0,
    2.01485389549179081538e-1,
    1.23716634817820021358e-2,
    3.01581553508235416007e-4,
    2.65806974686737550832e-6,
    6.23974539184983293730e-9,
)
_NDTRI_Q2 = (
    6.02427039364742014255e0,
    3.67983563856160859403e0,
    1.37702099489081330271e0,
    2.16236993594496635890e-1,
    1.34204006088543189037e-2,
    3.28014464682127739104e-4,
    2.89247864745380683936e-6,
    6.79019408009981274425e-9,
)


def _horner(x: Any, coefs: tuple[float, ...], monic: bool = False) -> Any:
    """Cephes' ``polevl`` (``monic=False``) and ``p1evl`` (a leading coefficient 1)."""
    r = x + coefs[0] if monic else coefs[0]
    for c in coefs[1:]:
        r = r * x + c
    return r


def _ndtri1(y0: float) -> float:
    """Cephes' ``ndtri`` of one float, operation for operation."""
    if not 0.0 < y0 < 1.0:
        return -math.inf if y0 == 0.0 else math.inf if y0 == 1.0 else math.nan
    y, upper = y0, False
    if y > 1.0 - _EXP_M2:
        y, upper = 1.0 - y, True
    if y > _EXP_M2:
        y = y - 0.5
        y2 = y * y
        x = y + y * (y2 * _horner(y2, _NDTRI_P0) / _horner(y2, _NDTRI_Q0, True))
        return x * _S2PI
    x = math.sqrt(-2.0 * math.log(y))
    x0 = x - math.log(x) / x
    z = 1.0 / x
    if x < 8.0:  # y > exp(-32)
        x1 = z * _horner(z, _NDTRI_P1) / _horner(z, _NDTRI_Q1, True)
    else:
        x1 = z * _horner(z, _NDTRI_P2) / _horner(z, _NDTRI_Q2, True)
    x = x0 - x1
    return x if upper else -x


def _libm_log(v: np.ndarray) -> np.ndarray:
    """The C library's ``log`` of every element (``math.log``, as Cephes calls it; NumPy's
    own ``log`` differs from it by an ulp on a few arguments)."""
    return np.fromiter(map(math.log, v.tolist()), dtype=float, count=v.size)


def _ndtri(y0: np.ndarray) -> np.ndarray:
    """Cephes' ``ndtri`` over a 1-d array: :func:`_ndtri1`'s operations, element for
    element, in NumPy (the same double operations in the same order, so the same bits)."""
    out = np.where(y0 == 0.0, -math.inf, np.where(y0 == 1.0, math.inf, math.nan))
    inside = (y0 > 0.0) & (y0 < 1.0)
    y = y0[inside]
    upper = y > 1.0 - _EXP_M2
    y = np.where(upper, 1.0 - y, y)
    mid = y > _EXP_M2
    res = np.empty_like(y)
    ym = y[mid] - 0.5
    y2 = ym * ym
    res[mid] = (ym + ym * (y2 * _horner(y2, _NDTRI_P0) / _horner(y2, _NDTRI_Q0, True))) * _S2PI
    x = np.sqrt(-2.0 * _libm_log(y[~mid]))
    x0 = x - _libm_log(x) / x
    z = 1.0 / x
    x1 = np.where(
        x < 8.0,  # y > exp(-32)
        z * _horner(z, _NDTRI_P1) / _horner(z, _NDTRI_Q1, True),
        z * _horner(z, _NDTRI_P2) / _horner(z, _NDTRI_Q2, True),
    )
    res[~mid] = np.where(upper[~mid], x0 - x1, x1 - x0)
    out[inside] = res
    return out


#: arrays up to this size take :func:`_ndtri1` element by element (NumPy's per-call cost
#: is larger there); longer ones :func:`_ndtri`: the same bits either way
_NDTRI_LOOP_MAX = 100


def normal_quantile(p: Any) -> Any:
    """The standard normal quantile: ``scipy.special.ndtri(p)`` (``scipy.stats.norm.ppf``)
    to the last bit, without scipy (Cephes' ``ndtri``, see the module's docstring).

    Elementwise over an array (a NumPy scalar for a scalar ``p``); NaN outside ``[0, 1]``.

    Examples
    --------
    >>> float(normal_quantile(0.975)), normal_quantile([0.0, 0.5]).tolist()
    (1.959963984540054, [-inf, 0.0])
    """
    a = np.asarray(p, dtype=float)
    if a.size <= _NDTRI_LOOP_MAX:
        out = np.array([_ndtri1(v) for v in a.ravel().tolist()], dtype=float)
    else:
        out = _ndtri(a.ravel())
    return out.reshape(a.shape)[()]


#: Student's t from here: extended precision available (x86's 80-bit ``long double``),
#: and the degrees of freedom it is computed for (above: scipy.special, see the docstring)
_LD = np.longdouble
_NATIVE_T = bool(np.finfo(_LD).eps < 1e-18)
_DF_MAX = 1e5
#: Stirling's series of ``log Gamma(z) - ((z - 1/2) log z - z + log(2 pi) / 2)``, in 1/z^2
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)


def _stirling(z: float) -> float:
    w = 1.0 / (z * z)
    s = 0.0
    for c in reversed(_STIRLING):
        s = s * w + c
    return s / z


def _half_gamma(a: float) -> float:
    """``D(a) = log Gamma(a + 1/2) - log Gamma(a) - log(a) / 2`` (to about 1e-16 absolute):
    Stirling's series of both for ``a >= 10`` (the large terms cancelled analytically),
    below that shifted up with ``Gamma(z + 1) = z Gamma(z)``."""
    if a >= 10.0:
        return a * math.log1p(0.5 / a) - 0.5 + _stirling(a + 0.5) - _stirling(a)
    k = math.ceil(10.0 - a)
    ratio = 1.0
    for j in range(k):
        ratio *= (a + j + 0.5) / (a + j)
    r = 0.5 * math.log(a + k) + _half_gamma(a + k) - math.log(ratio)
    return r - 0.5 * math.log(a)


def _beta_fraction(a: Any, b: Any, x: Any) -> Any:
    """The continued fraction of the incomplete beta function ``I_x(a, b)`` (modified
    Lentz; Press et al., *Numerical Recipes*, 3rd ed., sec. 6.4), in extended precision;
    it converges in a few dozen terms for ``x < (a + 1) / (a + b + 2)``."""
    tiny = _LD(1e-300)
    one = _LD(1.0)
    qab, qap, qam = a + b, a + one, a - one
    c = one
    d = one - qab * x / qap
    d = one / (tiny if abs(d) < tiny else d)
    h = d
    for m in range(1, 1000):
        mm = _LD(m)
        for aa in (
            mm * (b - mm) * x / ((qam + 2 * mm) * (a + 2 * mm)),
            -(a + mm) * (qab + mm) * x / ((a + 2 * mm) * (qap + 2 * mm)),
        ):
            d = one + aa * d
            d = one / (tiny if abs(d) < tiny else d)
            c = one + aa / c
            c = tiny if abs(c) < tiny else c
            h = h * d * c
        if abs(d * c - one) <= _LD(1e-19):
            return h
    raise ArithmeticError("the incomplete beta function's continued fraction did not converge")


def _t_tail1(t: float, df: float) -> Any:
    """``P(T > t)`` for ``t >= 0`` and ``0 < df <= 1e5``: ``I_x(a, 1/2) / 2`` with ``a =
    df / 2``, ``x = df / (df + t^2)``, or ``(1 - I_y(1/2, a)) / 2`` with ``y = 1 - x`` where
    ``x`` is beyond the fraction's range (``t^2`` below about 3).  The prefactor ``x^a y^(1/2)
    / B(a, 1/2)`` as ``exp(-a log1p(t^2/df) + log(a y)/2 - log(pi)/2 + D(a))``."""
    if t == 0.0:
        return _LD(0.5)
    if math.isinf(t):
        return _LD(0.0)
    a, nu = _LD(0.5 * df), _LD(df)
    t2 = _LD(t) * _LD(t)
    x, y = nu / (nu + t2), t2 / (nu + t2)
    log_pre = (
        -a * np.log1p(t2 / nu)
        + _LD(0.5) * np.log(a * y)
        - _LD(0.5) * np.log(_LD(math.pi))
        + _LD(_half_gamma(0.5 * df))
    )
    pre = np.exp(log_pre)
    half = _LD(0.5)
    if x < (a + 1) / (a + _LD(2.5)):
        return half * pre * _beta_fraction(a, half, x) / a
    return half - pre * _beta_fraction(half, a, y)


def student_t_tail(t: Any, df: Any) -> Any:
    """Student's t upper tail ``P(T > t)`` with ``df`` degrees of freedom: the survival
    function ``scipy.stats.t.sf(t, df)`` (``scipy.special.stdtr(df, -t)``), computed
    without scipy for ``0 < df <= 1e5`` (to 1e-15 relative: see the module's docstring).

    ``t`` and ``df`` broadcast; a NumPy scalar for scalars; NaN where ``df <= 0``.

    Examples
    --------
    >>> round(float(student_t_tail(2.0, 10)), 12), float(student_t_tail(0.0, 3))
    (0.036694017385, 0.5)
    """
    return _t_map(-np.asarray(t, dtype=float), df, _t_cdf1, "stdtr")


def _t_cdf1(u: float, df: float) -> float:
    """``P(T <= u)``, rounded once from the long double."""
    if math.isnan(u):
        return math.nan
    return float(_t_tail1(-u, df) if u <= 0 else 1 - _t_tail1(u, df))


def _t_map(x: Any, df: Any, one: Callable[[float, float], float], scipy_name: str) -> Any:
    """``one(x, df)`` elementwise where mlci computes Student's t (``0 < df <= 1e5``, a
    long double), ``scipy.special.<scipy_name>(df, x)`` elsewhere (imported then); ``x``
    and ``df`` broadcast, a NumPy scalar for scalars."""
    x_b, df_b = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(df, dtype=float))
    xs, dfs = x_b.ravel(), df_b.ravel()
    out = np.empty(xs.shape)
    native = np.asarray(_NATIVE_T & (dfs > 0) & (dfs <= _DF_MAX))
    for i in np.flatnonzero(native).tolist():
        out[i] = one(float(xs[i]), float(dfs[i]))
    if not native.all():
        from scipy import special

        out[~native] = getattr(special, scipy_name)(dfs[~native], xs[~native])
    return out.reshape(x_b.shape)[()]


@functools.lru_cache(maxsize=1024)  # (simulations ask for the same few, ~1 ms each)
def _t_quantile1(p: float, df: float) -> float:
    """The quantile of ``p`` (``0 < p < 1``, ``0 < df <= 1e5``): Newton's method on
    ``u = log t`` for the upper tail ``q = min(p, 1 - p)``, from the Cornish-Fisher start
    (Abramowitz & Stegun 26.7.5).  Its step, ``log(tail(t) / q) tail(t) / (t f(t))`` with
    the density ``f``, is exact for a power-law tail and small for a normal one."""
    if p == 0.5:
        return 0.0
    q = p if p < 0.5 else 1.0 - p
    z = -_ndtri1(q)
    t = z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df * df)
    t = max(t, z, 1e-300)
    a = 0.5 * df
    log_f0 = _half_gamma(a) - 0.5 * math.log(2 * math.pi)
    for _ in range(100):
        tail = _t_tail1(t, df)  # (long double: no underflow, but for a step far too long)
        if tail == 0:
            t *= 0.5
            continue
        log_f = log_f0 - (a + 0.5) * float(np.log1p(_LD(t) * _LD(t) / _LD(df)))
        ratio = math.exp(float(np.log(tail)) - math.log(t) - log_f)  # -d(log t)/d(log tail)
        r = float(tail / _LD(q) - 1)  # the tail's relative error, rounded once
        t *= math.exp(min(math.log1p(r) * ratio, 709.0))
        # a last step from |r| <= 1e-11 leaves about r^2 (Newton's quadratic convergence);
        # an infinite t: beyond the largest float (df below 1, p near 0 or 1)
        if abs(r) <= 1e-11 or math.isinf(t):
            break
    else:  # pragma: no cover - a guard: every tested (p, df) converges in < 20 steps
        raise ArithmeticError(f"Student's t quantile of {p} with {df} df did not converge")
    return -t if p < 0.5 else t


def student_t_quantile(p: Any, df: Any) -> Any:
    """Student's t quantile: ``scipy.stats.t.ppf(p, df)`` (``scipy.special.stdtrit(df,
    p)``), computed without scipy for ``0 < df <= 1e5`` (to 1e-15 relative: see the
    module's docstring).

    ``p`` and ``df`` broadcast; a NumPy scalar for scalars; ``-inf``/``inf`` at 0/1, NaN
    outside ``[0, 1]`` or where ``df <= 0``.

    Examples
    --------
    >>> round(float(student_t_quantile(0.975, 9)), 10)
    2.2621571628
    """
    return _t_map(p, df, _t_ppf1, "stdtrit")


def _t_ppf1(p: float, df: float) -> float:
    if 0.0 < p < 1.0:
        return _t_quantile1(p, df)
    return -math.inf if p == 0.0 else math.inf if p == 1.0 else math.nan


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
    flat = x.ravel()
    out = np.full(flat.shape, np.nan)  # C: log(negative or nan) = nan
    # the arithmetic in numpy (the same IEEE operations, rounded alike), the logarithms
    # with the math module, element by element (a map: about 3x faster than a loop)
    mid = (flat >= 0.3) & (flat <= 0.65)
    s = 2.0 * (flat[mid] - 0.5)
    out[mid] = np.fromiter(map(math.log1p, s.tolist()), float, s.size) - np.fromiter(
        map(math.log1p, (-s).tolist()), float, s.size
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        r = flat / (1.0 - flat)  # 1 / 0 = inf at x = 1, as C's
    pos = ~mid & (r > 0.0)
    out[pos] = np.fromiter(map(math.log, r[pos].tolist()), float, int(pos.sum()))
    out[~mid & (r == 0.0)] = -math.inf  # C: log(0) = -inf
    return out.reshape(x.shape)


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


def _ndtr1(a: float) -> float:
    """Cephes' ``ndtr`` of one float (as scipy.special's), with the math module's erf/erfc."""
    if math.isnan(a):
        return math.nan
    x = a * math.sqrt(0.5)
    z = abs(x)
    if z < math.sqrt(0.5):
        return 0.5 + 0.5 * math.erf(x)
    y = 0.5 * math.erfc(z)
    return 1.0 - y if x > 0 else y


def normal_cdf(x: Any) -> Any:
    """The standard normal distribution function ``scipy.special.ndtr(x)``
    (``scipy.stats.norm.cdf``), without scipy while scipy.special is not loaded.

    Cephes' ``ndtr`` (``0.5 + erf(x / sqrt 2) / 2`` near 0, ``erfc(|x| / sqrt 2) / 2`` in
    the tails) with the C library's ``erf``/``erfc`` through the math module: within
    2.3e-16 (absolute) and 6e-14 (relative, for ``x >= -37.5``, above the subnormal
    range) of scipy.special.ndtr (tests/test_imports.py), which computes it once loaded,
    or for more than 65,536 elements.  In the lower tail both are that far from the exact
    value (the rounding of ``x / sqrt 2``, amplified about ``x^2`` times; against mpmath
    on ``[-37, 8]``: 1.6e-13 here, 2.1e-13 for scipy).  BCa's adjusted tail probabilities
    read it, so that ``--method bca`` of the MT commands stays scipy-free.

    Examples
    --------
    >>> float(normal_cdf(1.959963984540054)), normal_cdf([-np.inf, 0.0]).tolist()
    (0.975, [0.0, 0.5])
    """
    if not _libm(x):
        from scipy.special import ndtr

        return ndtr(x)
    a = np.asarray(x, dtype=float)
    return np.array([_ndtr1(v) for v in a.ravel().tolist()], dtype=float).reshape(a.shape)[()]


def normal_quantile_any(p: Any) -> Any:
    """:func:`normal_quantile` while scipy.special is not loaded (and ``p`` has at most
    65,536 elements), else ``scipy.special.ndtri``: the same numbers to the last bit,
    whichever is cheaper (a loop of the math module against the import of scipy.special)."""
    if not _libm(p):
        from scipy.special import ndtri

        return ndtri(p)
    return normal_quantile(p)
