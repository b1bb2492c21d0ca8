"""Comparing classifiers over many data sets (Demšar 2006).

The unit of observation is the *data set*: each method gets one score per data set
(e.g. its cross-validated accuracy), and the tests ask whether one method is
consistently better than another across data sets.

Two methods
    :func:`sign_test` (count of wins, ties split) and :func:`wilcoxon_test`
    (signed ranks).
Several methods
    :func:`friedman_test` (with the Iman–Davenport F correction), then the post-hoc
    tests :func:`nemenyi_test` (all pairs), :func:`bonferroni_dunn_test` and
    :func:`holm_test` (each method against a control), and :func:`critical_difference`
    (the data for a critical-difference diagram).

``scores`` is an array of shape (n_datasets, n_methods), or a pandas DataFrame with one
column per method (the column names are then used).  Higher is better unless
``higher_is_better=False`` (e.g. for error rates).

References
----------
- Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets.
  *Journal of Machine Learning Research* 7, 1–30.
- Iman, R. L. & Davenport, J. M. (1980). Approximations of the critical region of the
  Friedman statistic. *Communications in Statistics* 9, 571–595.
- Nemenyi, P. B. (1963). *Distribution-free multiple comparisons*. PhD thesis,
  Princeton University.
- Wilcoxon, F. (1945). Individual comparisons by ranking methods. *Biometrics Bulletin*
  1, 80–83.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from ..inputs import check_alternative, check_choice, check_flag, fill_doc, renamed, warn_at_caller
from ..results import Result, TestResult, format_value
from .checks import check_alpha, number_array
from .corrections import adjust_pvalues
from .pvalues import normal_pvalue

__all__ = [
    "CriticalDifference",
    "PostHocResult",
    "bonferroni_dunn_test",
    "critical_difference",
    "friedman_test",
    "holm_test",
    "nemenyi_test",
    "sign_test",
    "wilcoxon_test",
]


# ----------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------
def _two_methods(scores_a: Any, scores_b: Any) -> tuple[np.ndarray, np.ndarray]:
    a = number_array("scores_a", scores_a, what="data-set scores")
    b = number_array("scores_b", scores_b, what="data-set scores")
    if a.shape != b.shape:
        raise ValueError(
            f"`scores_a` and `scores_b` must have one score per data set each, for the same "
            f"data sets; got {a.size} and {b.size} scores."
        )
    if a.size < 2:
        raise ValueError(
            f"`scores_a` and `scores_b` need one score per data set for at least 2 data "
            f"sets; got {a.size}."
        )
    return a, b


def _column_names(scores: Any) -> list[str] | None:
    """Column names of a pyarrow Table or a pandas/polars DataFrame, else None."""
    cols = getattr(scores, "column_names", None)  # pyarrow
    if cols is None:
        cols = getattr(scores, "columns", None)  # pandas, polars
    return None if cols is None else [str(c) for c in cols]


def _score_matrix(scores: Any, names: Sequence[str] | None) -> tuple[np.ndarray, list[str]]:
    cols = _column_names(scores)
    arr = number_array("scores", scores, ndim=(2,), what="data-set scores")
    n, k = arr.shape
    if n < 2:
        raise ValueError(
            f"`scores` must have one row per data set and at least 2 data sets; got {n} "
            f"row(s). (Shape is (n_datasets, n_methods).)"
        )
    if k < 2:
        raise ValueError(
            f"`scores` must have one column per method and at least 2 methods; got {k} "
            f"column(s). (Shape is (n_datasets, n_methods).)"
        )
    if names is None:
        names = cols if cols is not None else [f"method {j}" for j in range(k)]
    else:
        if isinstance(names, str) or not hasattr(names, "__len__"):
            raise TypeError(
                f"`names` must be a sequence of method names, one per column of `scores`; "
                f"got {names!r}."
            )
        names = [str(x) for x in names]
        if len(names) != k:
            raise ValueError(
                f"`names` must have one entry per method (column of `scores`): expected {k}, "
                f"got {len(names)}."
            )
    if len(set(names)) != len(names):
        dup = sorted({x for x in names if names.count(x) > 1})
        raise ValueError(f"`names` must be distinct; {dup} appear more than once.")
    return arr, list(names)


def _average_ranks(arr: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Rank 1 = best on each data set, ties get the average rank."""
    return stats.rankdata(-arr if higher_is_better else arr, axis=1).mean(axis=0)


# ----------------------------------------------------------------------------------------
# two methods
# ----------------------------------------------------------------------------------------
@fill_doc
def sign_test(
    scores_a: Any,
    scores_b: Any,
    *,
    ties: str = "split",
    alternative: str = "two-sided",
    higher_is_better: bool = True,
) -> TestResult:
    """Sign test over data sets: does method A win more often than chance?

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (n_datasets,)
        One score per data set for each method.
    ties : {"split", "drop"}, default "split"
        ``"split"`` (Demšar 2006, sec. 3.1.3): ties count half for each method; with an
        odd number of ties one is ignored.  ``"drop"``: ties are discarded.
    %(alternative_test)s
    higher_is_better : bool, default True
        Set False for losses or error rates.

    Returns
    -------
    TestResult
        ``statistic``: the wins of A (after splitting ties); exact binomial p-value.
        ``details`` hold wins, losses and ties.

    Notes
    -----
    Exact differences decide a win: round the scores first if small differences
    should count as ties.

    Examples
    --------
    >>> r = sign_test([0.9, 0.8, 0.7, 0.95, 0.85, 0.6], [0.85, 0.8, 0.65, 0.9, 0.8, 0.5])
    >>> r.statistic, round(r.pvalue, 4)
    (5.0, 0.0625)
    """
    ties = check_choice("ties", ties, ("split", "drop"))
    alternative = check_alternative(alternative)
    higher_is_better = check_flag("higher_is_better", higher_is_better)
    a, b = _two_methods(scores_a, scores_b)
    d = (a - b) if higher_is_better else (b - a)
    wins, losses, n_ties = int((d > 0).sum()), int((d < 0).sum()), int((d == 0).sum())
    if ties == "split":
        half = n_ties // 2
        w, n = wins + half, wins + losses + 2 * half
    else:
        w, n = wins, wins + losses
    pvalue = 1.0 if n == 0 else float(stats.binomtest(w, n, 0.5, alternative=alternative).pvalue)
    return TestResult(
        statistic=float(w),
        pvalue=pvalue,
        method=f"sign-test-ties-{ties}",
        alternative=alternative,
        estimate=w / n if n else float("nan"),
        details={"wins": wins, "losses": losses, "ties": n_ties, "n_counted": n},
    )


def _wilcoxon_exact_sf(t: float, n: int) -> float:
    """P(T+ >= t) for the exact null distribution of the signed-rank sum (no ties)."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for r in range(1, n + 1):
        counts[r:] = counts[r:] + counts[:-r].copy()
    counts /= counts.sum()
    idx = int(np.ceil(t - 1e-9))
    return float(counts[idx:].sum())


@fill_doc
def wilcoxon_test(
    scores_a: Any,
    scores_b: Any,
    *,
    zero_method: str = "zsplit",
    variant: str = "auto",
    continuity: bool = True,
    alternative: str = "two-sided",
    higher_is_better: bool = True,
) -> TestResult:
    """Wilcoxon signed-rank test over data sets (Demšar 2006, sec. 3.1.3).

    The differences are ranked by absolute value (average ranks for ties); ``R+`` sums
    the ranks where A is better, ``R-`` where B is.

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (n_datasets,)
    zero_method : {"zsplit", "wilcox", "pratt"}, default "zsplit"
        Zero differences: ``"zsplit"`` ranks them and splits their ranks evenly between
        ``R+`` and ``R-`` (Demšar's recommendation); ``"wilcox"`` discards them;
        ``"pratt"`` ranks them and then discards them.
    variant : {"auto", "exact", "approx"}, default "auto"
        ``"exact"``: exact null distribution (only without ties or zeros among the
        differences); ``"approx"``: normal approximation with the tie correction of the
        variance (and the continuity correction, see ``continuity``); ``"auto"``: exact
        when n ≤ 50 and there are no ties or zeros, else approximate (scipy's rule; R's
        ``wilcox.test`` is exact for n < 50: at n = 50 without ties, pass
        ``variant="approx"`` to reproduce R).
    continuity : bool, default True
        The normal approximation's continuity correction: ``R+ - E[R+]`` is moved half a
        unit towards 0 (two-sided; by 0.5 in the alternative's direction one-sided), as
        R's ``wilcox.test(correct=TRUE)`` (its default) and
        ``scipy.stats.wilcoxon(correction=True)``.  ``False``: no correction (scipy's
        default).  Unused by the exact variant.
    %(alternative_test)s
    higher_is_better : bool, default True

    Returns
    -------
    TestResult
        ``statistic``: ``T = min(R+, R-)`` for two-sided, ``R+`` for one-sided
        alternatives (as in ``scipy.stats.wilcoxon``); ``details`` hold ``R+``, ``R-``,
        the variant used (``"exact"`` or ``"approx"``) and, for the approximation, ``z``.

    Examples
    --------
    >>> a = [0.763, 0.599, 0.954, 0.628, 0.882, 0.936, 0.661, 0.583, 0.775, 1.0,
    ...      0.94, 0.619, 0.972, 0.957]
    >>> b = [0.768, 0.591, 0.971, 0.661, 0.888, 0.931, 0.668, 0.583, 0.838, 1.0,
    ...      0.962, 0.666, 0.981, 0.978]
    >>> wilcoxon_test(b, a).details["r_plus"]   # Demšar (2006), Table 2: R+ = 93
    93.0
    """
    zero_method = check_choice("zero_method", zero_method, ("zsplit", "wilcox", "pratt"))
    variant = check_choice("variant", variant, ("auto", "exact", "approx"))
    continuity = check_flag("continuity", continuity)
    alternative = check_alternative(alternative)
    higher_is_better = check_flag("higher_is_better", higher_is_better)
    a, b = _two_methods(scores_a, scores_b)
    d = (a - b) if higher_is_better else (b - a)
    zeros = d == 0
    if zero_method == "wilcox":
        d = d[~zeros]
        zeros = zeros[~zeros]
    n = d.size
    if n == 0 or (zero_method == "pratt" and zeros.all()):
        return TestResult(
            statistic=0.0, pvalue=1.0, method="wilcoxon-signed-rank", alternative=alternative,
            details={"r_plus": 0.0, "r_minus": 0.0, "n": int(n), "zero_method": zero_method},
        )  # fmt: skip
    ranks = stats.rankdata(np.abs(d))
    r_plus = float(ranks[d > 0].sum())
    r_minus = float(ranks[d < 0].sum())
    r_zero = float(ranks[zeros].sum())
    if zero_method == "zsplit":
        r_plus += r_zero / 2
        r_minus += r_zero / 2
    has_ties = np.unique(np.abs(d)).size < n
    if variant == "exact" and (has_ties or zeros.any()):
        raise ValueError(
            "`variant`='exact' needs differences without ties or zeros; use "
            "`variant`='approx' (or 'auto')."
        )
    use_exact = variant == "exact" or (
        variant == "auto" and n <= 50 and not has_ties and not zeros.any()
    )
    details: dict[str, Any] = {"r_plus": r_plus, "r_minus": r_minus, "n": int(n),
                               "zero_method": zero_method}  # fmt: skip
    if use_exact:
        if alternative == "greater":
            p = _wilcoxon_exact_sf(r_plus, n)
        elif alternative == "less":
            p = _wilcoxon_exact_sf(n * (n + 1) / 2 - r_plus, n)
        else:
            p = min(1.0, 2 * _wilcoxon_exact_sf(max(r_plus, r_minus), n))
        details["variant"] = "exact"
    else:
        # mean and variance of R+ under H0 (Cureton's adjustment for Pratt's zeros) with
        # the usual tie correction, as in scipy.stats.wilcoxon
        n0 = int(zeros.sum()) if zero_method == "pratt" else 0
        mean = n * (n + 1) / 4 - n0 * (n0 + 1) / 4
        var = n * (n + 1) * (2 * n + 1) - n0 * (n0 + 1) * (2 * n0 + 1)
        abs_d = np.abs(d[~zeros]) if zero_method == "pratt" else np.abs(d)
        _, t = np.unique(abs_d, return_counts=True)
        var = (var - (t**3 - t).sum() / 2) / 24
        # continuity correction as R's wilcox.test (correct=TRUE) and scipy.stats.wilcoxon
        # (correction=True): half a unit towards the null (two-sided), or against the
        # alternative's direction (one-sided)
        shift = r_plus - mean
        if continuity:
            if alternative == "two-sided":
                shift -= 0.5 * np.sign(shift)
            else:
                shift -= 0.5 if alternative == "greater" else -0.5
        z = shift / np.sqrt(var) if var > 0 else 0.0
        p = normal_pvalue(z, alternative)
        details["variant"] = "approx"
        details["z"] = float(z)
        details["continuity"] = bool(continuity)
    stat = min(r_plus, r_minus) if alternative == "two-sided" else r_plus
    return TestResult(
        statistic=float(stat),
        pvalue=float(min(p, 1.0)),
        method="wilcoxon-signed-rank",
        alternative=alternative,
        details=details,
    )


# ----------------------------------------------------------------------------------------
# several methods
# ----------------------------------------------------------------------------------------
def friedman_test(
    scores: Any,
    *,
    variant: str = "iman-davenport",
    tie_correction: bool = True,
    higher_is_better: bool = True,
    names: Sequence[str] | None = None,
) -> TestResult:
    """Friedman's test: do k methods have the same average rank over N data sets?

    ``χ²_F = 12N/(k(k+1)) · (Σ_j R_j² - k(k+1)²/4)`` with ``R_j`` the average ranks
    (rank 1 = best, ties averaged), divided by the tie correction
    ``1 - Σ(t³ - t) / (N k (k² - 1))`` (``t``: the sizes of the groups of tied scores
    within a data set), as R's ``friedman.test`` and ``scipy.stats.friedmanchisquare``;
    without ties the correction is 1 and this is Demšar's (2006) formula.  Iman &
    Davenport's ``F_F = (N-1)χ²_F / (N(k-1) - χ²_F)`` follows F(k-1, (k-1)(N-1)) and is
    less conservative (Demšar 2006, sec. 3.2.2); computed from the tie-corrected χ²_F it
    is exactly the two-way analysis of variance of the ranks, ties included.  (The
    post-hoc tests use the variance of the average ranks without ties,
    ``k(k+1)/(6N)``, as Demšar: with ties they are conservative.)

    Parameters
    ----------
    scores : array_like or DataFrame, shape (n_datasets, n_methods)
    variant : {"iman-davenport", "chi2"}, default "iman-davenport"
        Which statistic gives the p-value.
    tie_correction : bool, default True
        Divide χ²_F by the tie correction (R, scipy).  ``False``: Demšar's formula as
        printed, which ignores ties (smaller χ²_F when scores tie; Demšar's worked example
        gives χ²_F = 9.28 this way, 10.23 with the correction).
    higher_is_better : bool, default True
    names : sequence of str, optional
        Method names (default: DataFrame columns or ``"method j"``).

    Returns
    -------
    TestResult
        ``details`` hold the average ranks (``average_ranks``), ``chi2``, ``chi2_pvalue``,
        ``f``, ``f_pvalue``, ``tie_correction`` (the divisor, 1 without ties),
        ``n_datasets``, ``n_methods`` and ``names``.

    Examples
    --------
    >>> scores = [[0.9, 0.8, 0.7], [0.85, 0.8, 0.75], [0.7, 0.72, 0.6], [0.9, 0.85, 0.8]]
    >>> r = friedman_test(scores)
    >>> r.details["average_ranks"]
    array([1.25, 1.75, 3.  ])
    """
    variant = check_choice("variant", variant, ("iman-davenport", "chi2"))
    tie_correction = check_flag("tie_correction", tie_correction)
    higher_is_better = check_flag("higher_is_better", higher_is_better)
    arr, names = _score_matrix(scores, names)
    n, k = arr.shape
    ranks = _average_ranks(arr, higher_is_better)
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(ranks**2) - k * (k + 1) ** 2 / 4)
    # ties within a data set shrink the variance of the ranks: 1 - sum(t^3 - t) / (N k
    # (k^2 - 1)) over the groups of tied scores (Hollander & Wolfe 1999, sec. 7.1; R's
    # friedman.test, scipy.stats.friedmanchisquare)
    srt = np.sort(arr, axis=1)
    starts = np.concatenate([np.ones((n, 1), bool), srt[:, 1:] != srt[:, :-1]], axis=1)
    t = np.diff(np.append(np.flatnonzero(starts.ravel()), arr.size)).astype(float)
    ties = 1.0 - np.sum(t**3 - t) / (n * k * (k * k - 1))
    if tie_correction and ties > 0:
        chi2 = chi2 / ties
    chi2_p = float(stats.chi2.sf(chi2, k - 1))
    denom = n * (k - 1) - chi2
    f = (n - 1) * chi2 / denom if denom > 0 else np.inf
    df_f = (k - 1, (k - 1) * (n - 1))
    f_p = float(stats.f.sf(f, *df_f)) if np.isfinite(f) else 0.0
    details = {
        "average_ranks": ranks,
        "names": names,
        "chi2": float(chi2),
        "chi2_pvalue": chi2_p,
        "f": float(f),
        "f_pvalue": f_p,
        "tie_correction": float(ties) if tie_correction else 1.0,
        "n_datasets": n,
        "n_methods": k,
    }
    if variant == "chi2":
        return TestResult(statistic=float(chi2), pvalue=chi2_p, method="friedman-chi2",
                          df=k - 1, details=details)  # fmt: skip
    return TestResult(statistic=float(f), pvalue=f_p, method="friedman-iman-davenport",
                      df=df_f, details=details)  # fmt: skip


def _nemenyi_q(alpha: float, k: int) -> float:
    return float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2))


def _bonferroni_dunn_q(alpha: float, k: int) -> float:
    return float(stats.norm.ppf(1 - alpha / (2 * (k - 1))))


@dataclass(frozen=True, kw_only=True, repr=False)
class PostHocResult(Result):
    """Post-hoc comparisons after a Friedman test.

    Attributes
    ----------
    method : str
        ``"nemenyi"``, ``"bonferroni-dunn"`` or ``"holm"``.
    names : list of str
        Method names, in the order of the columns of ``scores``.
    average_ranks : ndarray, shape (k,)
        Rank 1 = best.
    statistic : ndarray
        z statistics ``(R_i - R_j) / sqrt(k(k+1)/(6N))``: a (k, k) matrix for Nemenyi,
        a (k,) vector against the control otherwise (0 for the control itself).
    pvalues : ndarray
        Adjusted p-values, same shape (family-wise error controlled).
    significant : ndarray of bool
        ``pvalues <= alpha``.
    alpha : float
    critical_difference : float or None
        The difference of average ranks needed for significance (Nemenyi and
        Bonferroni–Dunn; None for Holm, which has no single CD).
    control : str or None
        The control method (Bonferroni–Dunn and Holm).
    n_datasets : int
    details : dict
        ``unadjusted_pvalues`` for Holm.

    Examples
    --------
    >>> scores = [[0.9, 0.8, 0.7], [0.85, 0.8, 0.75], [0.7, 0.72, 0.6], [0.9, 0.85, 0.8]]
    >>> r = nemenyi_test(scores, names=["A", "B", "C"])
    >>> r  # doctest: +NORMALIZE_WHITESPACE
    PostHocResult(method='nemenyi', average_ranks=[1.25, 1.75, 3. ], critical_difference=1.657,
                  significant_pairs=[('A', 'C')], alpha=0.05)
    >>> r.to_frame().round(2)
       a  b  rank_difference  statistic  pvalue  significant
    0  A  B            -0.50      -0.71    0.76        False
    1  A  C            -1.75      -2.47    0.04         True
    2  B  C            -1.25      -1.77    0.18        False
    """

    method: str
    names: list[str]
    average_ranks: np.ndarray
    statistic: np.ndarray
    pvalues: np.ndarray
    significant: np.ndarray
    alpha: float
    critical_difference: float | None = None
    control: str | None = None
    n_datasets: int = 0
    details: dict[str, Any] = field(default_factory=dict)

    def _pairs(self) -> list[tuple[int, int]]:
        """``(a, b)`` column indices of each comparison: all pairs ``a < b`` for a
        matrix, every method against the control otherwise."""
        k = len(self.names)
        if np.ndim(self.pvalues) == 2:
            return [(i, j) for i in range(k) for j in range(i + 1, k)]
        c = self.names.index(self.control) if self.control in self.names else -1
        return [(i, c) for i in range(k) if i != c]

    def __repr__(self) -> str:
        parts = [f"method={self.method!r}", f"average_ranks={format_value(self.average_ranks)}"]
        if self.critical_difference is not None:
            parts.append(f"critical_difference={format_value(self.critical_difference)}")
        if self.control is not None:
            parts.append(f"control={self.control!r}")
        if np.ndim(self.pvalues) == 2:  # all pairs: the significant ones (a matrix is long)
            sig = [(self.names[i], self.names[j]) for i, j in self._pairs()
                   if self.significant[i, j]]  # fmt: skip
            shown = repr(sig) if len(sig) <= 6 else f"{repr(sig[:6])[:-1]}, ... {len(sig)} pairs]"
            parts.append(f"significant_pairs={shown}")
        else:
            parts.append(f"pvalues={format_value(self.pvalues)}")
        parts.append(f"alpha={self.alpha:g}")
        return f"PostHocResult({', '.join(parts)})"

    def rows(self) -> list[dict[str, Any]]:
        """One row per comparison ``a`` vs ``b`` (all pairs, or each method against the
        control): ``a``, ``b``, ``rank_difference`` (``R_a - R_b``), ``statistic``,
        ``pvalue`` (adjusted), ``significant`` (and ``pvalue_unadjusted`` for Holm)."""
        raw = self.details.get("unadjusted_pvalues")
        out = []
        for i, j in self._pairs():
            at = (i, j) if np.ndim(self.pvalues) == 2 else i
            row: dict[str, Any] = {
                "a": self.names[i],
                "b": self.names[j],
                "rank_difference": float(self.average_ranks[i] - self.average_ranks[j]),
                "statistic": float(self.statistic[at]),
                "pvalue": float(self.pvalues[at]),
                "significant": bool(self.significant[at]),
            }
            if raw is not None:
                row["pvalue_unadjusted"] = float(np.asarray(raw)[at])
            out.append(row)
        return out


def _control_index(control: Any, names: list[str]) -> int:
    if isinstance(control, str):
        if control not in names:
            raise ValueError(f"`control`={control!r} is not one of the methods {names}.")
        return names.index(control)
    if isinstance(control, int | np.integer) and not isinstance(control, bool):
        if not 0 <= control < len(names):
            raise ValueError(
                f"`control` must be a column index in [0, {len(names) - 1}] or a method name; "
                f"got {control}."
            )
        return int(control)
    raise TypeError(f"`control` must be a method name or a column index; got {control!r}.")


def _prep_posthoc(
    scores: Any, alpha: float, higher_is_better: bool, names: Sequence[str] | None
) -> tuple[float, list[str], int, int, np.ndarray, float]:
    alpha = check_alpha(alpha)
    higher_is_better = check_flag("higher_is_better", higher_is_better)
    arr, names = _score_matrix(scores, names)
    n, k = arr.shape
    ranks = _average_ranks(arr, higher_is_better)
    se = np.sqrt(k * (k + 1) / (6 * n))
    return alpha, names, n, k, ranks, se


def nemenyi_test(
    scores: Any,
    *,
    alpha: float = 0.05,
    higher_is_better: bool = True,
    names: Sequence[str] | None = None,
) -> PostHocResult:
    """Nemenyi's post-hoc test: all pairs of methods (Demšar 2006, sec. 3.2.2).

    Two methods differ significantly when their average ranks differ by at least
    ``CD = q_α · sqrt(k(k+1)/(6N))``, with ``q_α`` the studentized range quantile for
    ``k`` groups and infinite df divided by √2 (Demšar's Table 5a).  The p-values are
    adjusted for the ``k(k-1)/2`` comparisons (studentized range distribution).

    Parameters
    ----------
    scores : array_like or DataFrame, shape (n_datasets, n_methods)
    alpha : float, default 0.05
    higher_is_better : bool, default True
    names : sequence of str, optional

    Returns
    -------
    PostHocResult
        (k, k) matrices of z statistics and adjusted p-values.

    Examples
    --------
    >>> r = nemenyi_test(np.random.default_rng(0).random((14, 4)))
    >>> round(r.critical_difference, 3)   # Demšar (2006): k = 4, N = 14 -> CD = 1.25
    1.254
    """
    alpha, names, n, k, ranks, se = _prep_posthoc(scores, alpha, higher_is_better, names)
    z = (ranks[:, None] - ranks[None, :]) / se
    p = stats.studentized_range.sf(np.abs(z) * np.sqrt(2), k, np.inf)
    p = np.clip(p, 0.0, 1.0)
    np.fill_diagonal(p, 1.0)
    cd = _nemenyi_q(alpha, k) * se
    return PostHocResult(
        method="nemenyi", names=names, average_ranks=ranks, statistic=z, pvalues=p,
        significant=p <= alpha, alpha=alpha, critical_difference=float(cd), n_datasets=n,
    )  # fmt: skip


def bonferroni_dunn_test(
    scores: Any,
    *,
    control: int | str = 0,
    alpha: float = 0.05,
    higher_is_better: bool = True,
    names: Sequence[str] | None = None,
) -> PostHocResult:
    """Bonferroni–Dunn post-hoc test: every method against a control (Demšar 2006).

    ``z = (R_i - R_c) / sqrt(k(k+1)/(6N))``; the two-sided normal p-values are
    multiplied by ``k - 1``; ``CD = z_{1-α/(2(k-1))} · sqrt(k(k+1)/(6N))``.

    Parameters
    ----------
    scores : array_like or DataFrame, shape (n_datasets, n_methods)
    control : int or str, default 0
        Column index or name of the control method (e.g. a new method).
    alpha : float, default 0.05
    higher_is_better : bool, default True
    names : sequence of str, optional

    Returns
    -------
    PostHocResult

    Examples
    --------
    >>> r = bonferroni_dunn_test(np.random.default_rng(0).random((14, 4)), control=0)
    >>> round(r.critical_difference, 3)   # Demšar (2006): q = 2.394 for k = 4
    1.168
    """
    alpha, names, n, k, ranks, se = _prep_posthoc(scores, alpha, higher_is_better, names)
    c = _control_index(control, names)
    z = (ranks - ranks[c]) / se
    p = np.minimum(2 * stats.norm.sf(np.abs(z)) * (k - 1), 1.0)
    p[c] = 1.0
    cd = _bonferroni_dunn_q(alpha, k) * se
    return PostHocResult(
        method="bonferroni-dunn", names=names, average_ranks=ranks, statistic=z, pvalues=p,
        significant=p <= alpha, alpha=alpha, critical_difference=float(cd),
        control=names[c], n_datasets=n,
    )  # fmt: skip


def holm_test(
    scores: Any,
    *,
    control: int | str = 0,
    alpha: float = 0.05,
    higher_is_better: bool = True,
    names: Sequence[str] | None = None,
) -> PostHocResult:
    """Holm's step-down post-hoc test: every method against a control (Demšar 2006).

    Same z statistics as :func:`bonferroni_dunn_test`, but the ``k - 1`` p-values are
    adjusted with Holm's procedure, which is uniformly more powerful.

    Parameters
    ----------
    scores : array_like or DataFrame, shape (n_datasets, n_methods)
    control : int or str, default 0
    alpha : float, default 0.05
    higher_is_better : bool, default True
    names : sequence of str, optional

    Returns
    -------
    PostHocResult
        ``details["unadjusted_pvalues"]`` holds the raw normal p-values.

    Examples
    --------
    >>> scores = [[0.9, 0.8, 0.7], [0.85, 0.8, 0.75], [0.7, 0.72, 0.6], [0.9, 0.85, 0.8]]
    >>> holm_test(scores, control=2).pvalues
    array([0.02665666, 0.07709987, 1.        ])
    """
    alpha, names, n, k, ranks, se = _prep_posthoc(scores, alpha, higher_is_better, names)
    c = _control_index(control, names)
    z = (ranks - ranks[c]) / se
    raw = 2 * stats.norm.sf(np.abs(z))
    others = np.arange(k) != c
    p = np.ones(k)
    p[others] = adjust_pvalues(raw[others], correction="holm")
    raw[c] = 1.0
    return PostHocResult(
        method="holm", names=names, average_ranks=ranks, statistic=z, pvalues=p,
        significant=p <= alpha, alpha=alpha, control=names[c], n_datasets=n,
        details={"unadjusted_pvalues": raw},
    )  # fmt: skip


# ----------------------------------------------------------------------------------------
# critical-difference diagram data
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True, repr=False)
class CriticalDifference(Result):
    """What a critical-difference diagram (Demšar 2006, Fig. 1–2) shows.

    Attributes
    ----------
    names : list of str
        Methods sorted from best (lowest average rank) to worst.
    average_ranks : ndarray
        Their average ranks, in the same order.
    critical_difference : float
        The CD (drawn as a bar of that length on the rank axis).
    cliques : list of list of str
        Maximal groups of methods whose average ranks differ by less than the CD
        (drawn as thick lines); singletons omitted.
    variant : str
        The test: ``"nemenyi"`` or ``"bonferroni-dunn"`` (``test`` is the deprecated
        name of this attribute).
    alpha : float
    n_datasets : int
    control : str or None
        For Bonferroni–Dunn, the control; cliques then only contain the control.

    Examples
    --------
    >>> scores = [[0.9, 0.8, 0.7], [0.85, 0.8, 0.75], [0.7, 0.72, 0.6], [0.9, 0.85, 0.8]]
    >>> cd = critical_difference(scores, names=["A", "B", "C"])
    >>> cd  # doctest: +NORMALIZE_WHITESPACE
    CriticalDifference(variant='nemenyi', critical_difference=1.657,
                       ranks={A: 1.25, B: 1.75, C: 3}, cliques=[['A', 'B'], ['B', 'C']])
    >>> cd.to_frame()
      name  average_rank
    0    A          1.25
    1    B          1.75
    2    C          3.00
    """

    names: list[str]
    average_ranks: np.ndarray
    critical_difference: float
    cliques: list[list[str]]
    variant: str
    alpha: float
    n_datasets: int
    control: str | None = None

    def __repr__(self) -> str:
        ranks = ", ".join(f"{n}: {r:.3g}" for n, r in zip(self.names, self.average_ranks,
                                                          strict=True))  # fmt: skip
        return (
            f"CriticalDifference(variant={self.variant!r}, critical_difference="
            f"{self.critical_difference:.4g}, ranks={{{ranks}}}, cliques={self.cliques})"
        )

    @property
    def test(self) -> str:
        """Deprecated name of :attr:`variant`."""
        warn_at_caller(
            "`CriticalDifference.test` is deprecated; it is spelled `variant` now "
            "(docs/glossary.md).",
            FutureWarning,
        )
        return self.variant

    def rows(self) -> list[dict[str, Any]]:
        """One row per method, best first: ``name``, ``average_rank``."""
        return [
            {"name": n, "average_rank": float(r)}
            for n, r in zip(self.names, self.average_ranks, strict=True)
        ]


# the field `test` is now `variant`: the old keyword still builds one (FutureWarning)
CriticalDifference.__init__ = renamed(test="variant")(CriticalDifference.__init__)  # type: ignore[method-assign]


@renamed(test="variant")
def critical_difference(
    scores: Any,
    *,
    alpha: float = 0.05,
    variant: str = "nemenyi",
    control: int | str | None = None,
    higher_is_better: bool = True,
    names: Sequence[str] | None = None,
) -> CriticalDifference:
    """The data for a critical-difference diagram: average ranks, CD and cliques.

    Parameters
    ----------
    scores : array_like or DataFrame, shape (n_datasets, n_methods)
    alpha : float, default 0.05
    variant : {"nemenyi", "bonferroni-dunn"}, default "nemenyi"
        The post-hoc test whose critical difference is drawn.
    control : int or str, optional
        Required for ``"bonferroni-dunn"``: the method compared with all others.
    higher_is_better : bool, default True
    names : sequence of str, optional

    Returns
    -------
    CriticalDifference

    Examples
    --------
    >>> scores = [[0.9, 0.8, 0.7, 0.6], [0.85, 0.8, 0.75, 0.7], [0.7, 0.72, 0.6, 0.5],
    ...           [0.9, 0.85, 0.8, 0.6], [0.8, 0.7, 0.75, 0.6]]
    >>> cd = critical_difference(scores, names=["A", "B", "C", "D"])
    >>> cd.names, cd.cliques
    (['A', 'B', 'C', 'D'], [['A', 'B', 'C'], ['B', 'C', 'D']])
    """
    test = check_choice("variant", variant, ("nemenyi", "bonferroni-dunn"))
    if test == "nemenyi" and control is not None:
        raise ValueError("`control` is only used with `variant`='bonferroni-dunn'.")
    if test == "bonferroni-dunn" and control is None:
        raise ValueError(
            "`control` is required with `variant`='bonferroni-dunn' (the method that is "
            "compared with all others); pass its column index or name."
        )
    alpha, names, n, k, ranks, se = _prep_posthoc(scores, alpha, higher_is_better, names)
    order = np.argsort(ranks, kind="stable")
    sorted_names = [names[i] for i in order]
    sorted_ranks = ranks[order]
    if test == "nemenyi":
        cd = _nemenyi_q(alpha, k) * se
        cliques: list[list[str]] = []
        last_end = -1
        for i in range(k):
            j = i
            while j + 1 < k and sorted_ranks[j + 1] - sorted_ranks[i] < cd:
                j += 1
            if j > i and j > last_end:
                cliques.append(sorted_names[i : j + 1])
                last_end = j
        control_name = None
    else:
        c = _control_index(control, names)
        cd = _bonferroni_dunn_q(alpha, k) * se
        control_name = names[c]
        close = [nm for nm, r in zip(sorted_names, sorted_ranks, strict=True)
                 if abs(r - ranks[c]) < cd]  # fmt: skip
        cliques = [close] if len(close) > 1 else []
    return CriticalDifference(
        names=sorted_names, average_ranks=sorted_ranks, critical_difference=float(cd),
        cliques=cliques, variant=test, alpha=alpha, n_datasets=n, control=control_name,
    )  # fmt: skip
