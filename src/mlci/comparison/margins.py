"""Decisions with a margin: non-inferiority and equivalence (TOST) of a paired difference.

A margin ``delta > 0`` turns "is there a difference?" into the questions practitioners
ask (Wellek 2010; Schuirmann 1987; EMA/FDA guidance on non-inferiority):

non-inferiority of A to B
    ``H0: A is worse than B by delta or more`` against ``H1: A is worse by less than
    delta (or better)``.  With a higher-is-better metric and ``d = metric(A) - metric(B)``
    this is ``H0: d <= -delta``; for a lower-is-better metric (an error rate, a loss)
    ``H0: d >= delta``.  One-sided, at level ``alpha = 1 - confidence_level``.
equivalence (two one-sided tests, TOST)
    ``H0: |d| >= delta`` against ``H1: -delta < d < delta``: rejected when both
    ``d <= -delta`` and ``d >= delta`` are rejected at level ``alpha``, so the
    p-value is the larger of the two one-sided p-values (an intersection-union test,
    Berger & Hsu 1996).  Its matching interval is the two-sided ``1 - 2 alpha``
    interval: equivalence is declared at level ``alpha`` exactly when that interval lies
    inside ``(-delta, delta)`` (for the ``t`` and studentized methods; up to the
    discreteness of the replicates for the shifted bootstrap p-values).

Each one-sided p-value is the same test the comparison uses for "no difference", moved
to the margin: the t test on the linearized standard error ``(d + delta) / se``, the
bootstrap-t test (:func:`mlci.intervals.bootstrap.studentized_pvalue` with ``null``),
the bootstrap distribution of the difference shifted to the null ``d* - d + theta0``, or,
for a pair that ``compare`` gave Tango's interval, Tango's score test at the margin.

References
----------
- Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the
  power approach for assessing the equivalence of average bioavailability. *Journal of
  Pharmacokinetics and Biopharmaceutics* 15, 657-680.
- Berger, R. L. & Hsu, J. C. (1996). Bioequivalence trials, intersection-union tests
  and equivalence confidence sets. *Statistical Science* 11, 283-319.
- Wellek, S. (2010). *Testing Statistical Hypotheses of Equivalence and
  Noninferiority*, 2nd ed. Chapman & Hall/CRC.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..classical.corrections import adjust_pvalues
from ..classical.proportions import paired_proportion_diff_ci, tango_statistic
from ..classical.pvalues import t_pvalues
from ..engine.bootstrap import finish_bootstrap
from ..inputs import check_nonnegative
from ..intervals.bootstrap import studentized_pvalue
from ..results import ConfidenceInterval, Result, format_value, plain

__all__ = ["MarginTest", "check_margin", "margin_tests", "shifted_pvalues"]


def check_margin(margin: Any, *, upper: float = np.inf, name: str = "margin") -> float:
    """``margin`` as a positive finite float below ``upper`` (the difference's range)."""
    value = check_nonnegative(
        name,
        margin,
        strict=True,
        hint=" (the largest difference that does not matter, on the metric's scale, e.g. 0.02)",
    )
    if value >= upper:
        raise ValueError(
            f"`{name}`={margin!r} is not smaller than the widest possible difference "
            f"({format_value(upper)}): every difference would be within the margin. Pass "
            "a margin on the metric's scale (0.02 for two points of accuracy)."
        )
    return value


def shifted_pvalues(
    d: np.ndarray, dist: np.ndarray, alternative: str, null: Any = 0.0
) -> np.ndarray:
    """p-values from the bootstrap distribution of the differences shifted to the null.

    ``dist`` (B, k), ``d`` (k,), ``null`` the value of the difference under H0 (a scalar
    or (k,)).  With ``e = d - null``: two-sided ``(1 + #{|d* - d| >= |e|}) / (1 + B_valid)``;
    ``"greater"`` (H1: d > null): ``#{d* - d >= e}``; ``"less"``: ``#{d* - d <= e}``.
    """
    centred = dist - d
    e = d - np.asarray(null, dtype=float)
    tol = 1e-12 * np.maximum(1.0, np.abs(e))
    valid = ~np.isnan(centred)
    with np.errstate(invalid="ignore"):
        if alternative == "two-sided":
            hit = np.abs(centred) >= np.abs(e) - tol
        elif alternative == "greater":
            hit = centred >= e - tol
        else:
            hit = centred <= e + tol
    count = np.sum(hit & valid, axis=0)
    return np.minimum(1.0, (1.0 + count) / (1.0 + valid.sum(axis=0)))


# --------------------------------------------------------------------------- result
@dataclass(frozen=True, kw_only=True, repr=False)
class MarginTest(Result):
    """Non-inferiority and equivalence of a difference ``d = a - b`` for a margin.

    Attributes
    ----------
    estimate : float
        The difference ``d`` (``metric(a) - metric(b)``, or the mean paired difference).
    margin : float
        ``delta``: differences within ``(-delta, delta)`` do not matter.
    higher_is_better : bool
        Direction of the metric (it decides which side non-inferiority is about).
    pvalue_lower, pvalue_upper : float
        The one-sided p-values of ``H0: d <= -delta`` and of ``H0: d >= delta``.
    pvalue_noninferiority : float
        ``H0: a is worse than b by delta or more``: ``pvalue_lower`` when higher is
        better, ``pvalue_upper`` otherwise.
    pvalue_equivalence : float
        TOST: ``max(pvalue_lower, pvalue_upper)``.
    pvalue_noninferiority_adjusted, pvalue_equivalence_adjusted : float
        After the comparison's multiple-comparison correction (equal to the unadjusted
        p-values for a single pair).
    interval : ConfidenceInterval
        The two-sided ``1 - 2 alpha`` interval of ``d`` (TOST's interval).
    confidence_level : float
        ``1 - alpha``, the level of the tests.
    noninferior, equivalent : bool
        The decisions at level ``alpha`` (on the adjusted p-values).
    hypotheses : dict
        The null hypotheses tested, written out (``"noninferiority"``,
        ``"equivalence"``).
    method : str
        How the one-sided p-values were computed.
    a, b : str
        The systems (``"a"``, ``"b"`` for a two-sample function).
    details : dict

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(1)
    >>> a, b = rng.normal(0.80, 0.02, 10), rng.normal(0.80, 0.02, 10)
    >>> r = mlci.paired_margin_test(a, b, margin=0.03)
    >>> r.equivalent, r.hypotheses["equivalence"]
    (True, 'H0: |a - b| >= 0.03 (TOST)')
    """

    a: str = "a"
    b: str = "b"
    estimate: float
    margin: float
    higher_is_better: bool
    pvalue_lower: float
    pvalue_upper: float
    pvalue_noninferiority: float
    pvalue_equivalence: float
    pvalue_noninferiority_adjusted: float
    pvalue_equivalence_adjusted: float
    interval: ConfidenceInterval
    confidence_level: float
    noninferior: bool
    equivalent: bool
    hypotheses: Mapping[str, str]
    method: str
    details: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        lvl = f"{(2 * self.confidence_level - 1) * 100:.10g}%"
        lo, hi = self.interval
        return (
            f"MarginTest({self.a!r} - {self.b!r}: {format_value(self.estimate)}, "
            f"margin={format_value(self.margin)}, {lvl} CI [{format_value(lo)}, "
            f"{format_value(hi)}], noninferior={self.noninferior} "
            f"(p={format_value(self.pvalue_noninferiority_adjusted)}), "
            f"equivalent={self.equivalent} (p={format_value(self.pvalue_equivalence_adjusted)}))"
        )

    def __str__(self) -> str:
        alpha = 1.0 - self.confidence_level
        lvl = f"{(1 - 2 * alpha) * 100:.10g}%"
        lo, hi = self.interval

        def verdict(p: float) -> str:
            return f"rejected at {alpha:g}" if p < alpha else f"not rejected at {alpha:g}"

        return "\n".join(
            [
                f"{self.a} - {self.b}: {format_value(self.estimate)}, {lvl} CI "
                f"[{format_value(lo)}, {format_value(hi)}], margin {format_value(self.margin)}",
                f"  non-inferiority  {self.hypotheses['noninferiority']}: "
                f"p={format_value(self.pvalue_noninferiority_adjusted)}, "
                f"{verdict(self.pvalue_noninferiority_adjusted)}",
                f"  equivalence      {self.hypotheses['equivalence']}: "
                f"p={format_value(self.pvalue_equivalence_adjusted)}, "
                f"{verdict(self.pvalue_equivalence_adjusted)}",
            ]
        )

    def reversed(self) -> MarginTest:
        """The same tests for ``b - a`` (non-inferiority now of ``b`` to ``a``)."""
        lo, hi = self.interval
        return build(
            a=self.b,
            b=self.a,
            estimate=-self.estimate,
            margin=self.margin,
            higher_is_better=self.higher_is_better,
            p_lower=self.pvalue_upper,
            p_upper=self.pvalue_lower,
            interval=(-hi, -lo),
            confidence_level=self.confidence_level,
            method=self.method,
            p_eq_adjusted=self.pvalue_equivalence_adjusted,
            details={**self.details, "reversed": True},
        )

    def rows(self) -> list[dict[str, Any]]:
        """One row: ``a``, ``b``, ``estimate``, ``margin``, ``low``, ``high`` (the
        ``1 - 2 alpha`` interval), the p-values, the decisions and ``method``."""
        return [
            plain(
                {
                    "a": self.a,
                    "b": self.b,
                    "estimate": self.estimate,
                    "margin": self.margin,
                    "low": self.interval.low,
                    "high": self.interval.high,
                    "interval_level": 2 * self.confidence_level - 1,
                    "pvalue_noninferiority": self.pvalue_noninferiority,
                    "pvalue_noninferiority_adjusted": self.pvalue_noninferiority_adjusted,
                    "noninferior": self.noninferior,
                    "pvalue_equivalence": self.pvalue_equivalence,
                    "pvalue_equivalence_adjusted": self.pvalue_equivalence_adjusted,
                    "equivalent": self.equivalent,
                    "method": self.method,
                    "confidence_level": self.confidence_level,
                }
            )
        ]


def hypotheses(a: str, b: str, margin: float, higher_is_better: bool) -> dict[str, str]:
    """The null hypotheses in words (for the result and the CLI)."""
    m = format_value(margin)
    ni = f"H0: {a} - {b} <= -{m}" if higher_is_better else f"H0: {a} - {b} >= {m}"
    return {
        "noninferiority": f"{ni} ({a} worse than {b} by {m} or more)",
        "equivalence": f"H0: |{a} - {b}| >= {m} (TOST)",
    }


def build(
    *,
    a: str,
    b: str,
    estimate: float,
    margin: float,
    higher_is_better: bool,
    p_lower: float,
    p_upper: float,
    interval: tuple[float, float],
    confidence_level: float,
    method: str,
    p_ni_adjusted: float | None = None,
    p_eq_adjusted: float | None = None,
    details: Mapping[str, Any] | None = None,
) -> MarginTest:
    """A :class:`MarginTest` from the two one-sided p-values."""
    p_ni = p_lower if higher_is_better else p_upper
    p_eq = max(p_lower, p_upper)
    p_ni_adj = p_ni if p_ni_adjusted is None else p_ni_adjusted
    p_eq_adj = p_eq if p_eq_adjusted is None else p_eq_adjusted
    alpha = 1.0 - confidence_level
    return MarginTest(
        a=a,
        b=b,
        estimate=float(estimate),
        margin=float(margin),
        higher_is_better=bool(higher_is_better),
        pvalue_lower=float(p_lower),
        pvalue_upper=float(p_upper),
        pvalue_noninferiority=float(p_ni),
        pvalue_equivalence=float(p_eq),
        pvalue_noninferiority_adjusted=float(p_ni_adj),
        pvalue_equivalence_adjusted=float(p_eq_adj),
        interval=ConfidenceInterval(float(interval[0]), float(interval[1])),
        confidence_level=float(confidence_level),
        noninferior=bool(p_ni_adj < alpha),
        equivalent=bool(p_eq_adj < alpha),
        hypotheses=hypotheses(a, b, margin, higher_is_better),
        method=method,
        details=dict(details or {}),
    )


# --------------------------------------------------------------------------- compare
def _maxt_adjusted(
    t_obs: np.ndarray, t_star: np.ndarray, ok: np.ndarray, p: np.ndarray
) -> np.ndarray:
    """Single-step maxT p-values ``(1 + #{max_j t*_j >= t_k}) / (1 + B)``."""
    out = p.copy()
    if t_star.size and ok.any():
        t_max = t_star.max(axis=1)
        out[ok] = (1.0 + (t_max[:, None] >= t_obs[ok][None, :] - 1e-12).sum(axis=0)) / (
            1.0 + len(t_max)
        )
    return np.maximum(out, p)


def margin_tests(
    names: list[str],
    pairs: list[tuple[int, int]],
    d_hat: np.ndarray,
    d_dist: np.ndarray,
    d_se: np.ndarray,
    pair_jobs: list[tuple[str, Any, np.ndarray, dict[str, Any]]],
    finish: Mapping[str, Any],
    *,
    margin: float,
    hib: bool,
    diff_method: str,
    linear: Mapping[str, Any] | None,
    se_values: np.ndarray | None,
    n_sys: int,
    bounds: tuple[float, float],
    correction: str,
    tables: Sequence[np.ndarray | None] | None = None,
) -> list[MarginTest]:
    """The margin tests of every pair of :func:`mlci.compare` (see the module docstring).

    ``pair_jobs``: each pair's ``(label, estimate, distribution, finish arguments)``
    and ``finish`` the common arguments of :func:`mlci.engine.bootstrap.finish_bootstrap`
    (the pairs' own intervals were finished with them, their warnings said): the same
    finish at ``1 - 2 alpha``, two-sided, gives TOST's intervals.  The correction:
    ``"maxt"`` refers each pair's one-sided t to the maximum over the pairs (signed, in
    the direction of H1, for non-inferiority; the max-|t| for the two halves of TOST,
    which keeps the family-wise error of the equivalence claims at ``alpha``);
    any other correction is :func:`mlci.adjust_pvalues` on the pairs' p-values.
    ``tables``: a pair's paired 2×2 table where ``compare`` gave it Tango's interval;
    its one-sided p-values are then Tango's score tests at the margin and its interval
    Tango's at ``1 - 2 alpha``, so that the decisions invert that interval.
    """
    tables = list(tables) if tables is not None else [None] * len(pairs)
    lower, upper = -margin, margin
    higher_is_better = hib
    confidence_level = float(finish["confidence_level"])
    level = {**finish, "confidence_level": 1.0 - 2.0 * (1.0 - confidence_level)}
    with warnings.catch_warnings():  # said once already by the pairs' own intervals
        warnings.simplefilter("ignore")
        intervals: list[Any] = [
            finish_bootstrap(e, x, **level, **{**kw, "alternative": "two-sided"})
            for _, e, x, kw in pair_jobs
        ]
    for k, table in enumerate(tables):
        if table is not None:
            intervals[k] = paired_proportion_diff_ci(
                table, method="tango", confidence_level=level["confidence_level"]
            )
    if diff_method == "t":
        assert linear is not None
        method = f"t test on the linearized standard error ({linear['df']:.3g} df)"
    elif diff_method == "studentized":
        assert linear is not None and se_values is not None
        method = "bootstrap-t test at the margin"
    else:
        method = "bootstrap distribution of the difference shifted to the margin"

    def one_sided(null: float, alternative: str) -> np.ndarray:
        if diff_method == "t":
            assert linear is not None
            with np.errstate(invalid="ignore", divide="ignore"):
                t = (d_hat - null) / linear["standard_error"][n_sys:]
            p = t_pvalues(t, linear["df"], alternative)
        elif diff_method == "studentized":
            assert linear is not None and se_values is not None
            p = studentized_pvalue(
                d_hat,
                linear["standard_error"][n_sys:],
                d_dist,
                se_values[:, n_sys:],
                null=null,
                alternative=alternative,
                bounds=bounds,
            )
        else:
            p = shifted_pvalues(d_hat, d_dist, alternative, null)
        # no spread (se = 0): the shifted bootstrap count, as for "no difference"
        p = np.where(np.isnan(p), shifted_pvalues(d_hat, d_dist, alternative, null), p)
        for k, table in enumerate(tables):  # Tango's score test at the margin
            if table is not None:
                (n11, n12), (n21, n22) = np.asarray(table, dtype=float)
                z = tango_statistic(n11, n12, n21, n22, null)
                from scipy import stats  # here: scipy.stats costs 0.35 s to import

                p[k] = stats.norm.sf(z) if alternative == "greater" else stats.norm.cdf(z)
        return p

    p_lo = one_sided(lower, "greater")
    p_hi = one_sided(upper, "less")
    p_ni = p_lo if higher_is_better else p_hi
    p_eq = np.maximum(p_lo, p_hi)
    if len(pairs) == 1:
        adj_ni, adj_eq = p_ni, p_eq
    elif correction == "maxt":
        ok = d_se > 0
        rows = ~np.isnan(d_dist).any(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            centred = (d_dist[rows][:, ok] - d_hat[ok]) / d_se[ok]
            t_lo = (d_hat - lower) / d_se
            t_hi = (upper - d_hat) / d_se
        sign = 1.0 if higher_is_better else -1.0
        adj_ni = _maxt_adjusted(t_lo if higher_is_better else t_hi, sign * centred, ok, p_ni)
        both = np.abs(centred)
        adj_eq = np.maximum(
            _maxt_adjusted(t_lo, both, ok, p_lo), _maxt_adjusted(t_hi, both, ok, p_hi)
        )
    else:
        adj_ni = adjust_pvalues(p_ni, correction=correction)
        adj_eq = adjust_pvalues(p_eq, correction=correction)
    return [
        build(
            a=names[i],
            b=names[j],
            estimate=float(d_hat[k]),
            margin=margin,
            higher_is_better=higher_is_better,
            p_lower=float(p_lo[k]),
            p_upper=float(p_hi[k]),
            interval=tuple(intervals[k].confidence_interval),
            confidence_level=confidence_level,
            method=method if tables[k] is None else "Tango's score test at the margin",
            p_ni_adjusted=float(adj_ni[k]),
            p_eq_adjusted=float(adj_eq[k]),
            details={"correction": correction, "interval_method": intervals[k].method},
        )
        for k, (i, j) in enumerate(pairs)
    ]
