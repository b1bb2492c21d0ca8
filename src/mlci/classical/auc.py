"""Analytic intervals and tests for the area under the ROC curve.

:func:`delong_ci` (DeLong, DeLong & Clarke-Pearson 1988, computed with the
O(n log n) algorithm of Sun & Xu 2014), :func:`hanley_mcneil_ci` (Hanley & McNeil 1982)
and DeLong's tests of the difference of two AUCs measured on the same samples
(:func:`delong_test`) or on independent samples (:func:`delong_test_independent`).

The DeLong variance is the nonparametric (U-statistic) variance of the Mann–Whitney
AUC; ties between a positive and a negative count one half.  The Hanley–McNeil
standard error assumes exponential-like score distributions and is mainly useful for
planning (see :mod:`mlci.classical.planning`).

References
----------
- DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas
  under two or more correlated receiver operating characteristic curves: a
  nonparametric approach. *Biometrics* 44, 837–845.
- Sun, X. & Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the
  areas under correlated receiver operating characteristic curves. *IEEE Signal
  Processing Letters* 21, 1389–1393.
- Hanley, J. A. & McNeil, B. J. (1982). The meaning and use of the area under a
  receiver operating characteristic (ROC) curve. *Radiology* 143, 29–36.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..inputs import (
    ArgSpec,
    binary_target,
    check_alternative,
    check_choice,
    check_confidence_level,
    check_flag,
    fill_doc,
    gather,
)
from ..intervals.formulas import wald_interval
from ..results import ConfidenceInterval, IntervalResult, TestResult
from .checks import ANY_NDIM, number_array, require
from .pvalues import normal_pvalue, t_pvalues

__all__ = [
    "delong_ci",
    "delong_test",
    "delong_test_independent",
    "hanley_mcneil_ci",
    "hanley_mcneil_se",
]


# ----------------------------------------------------------------------------------------
# core computations
# ----------------------------------------------------------------------------------------
def _prepare(
    y_true: Any,
    scores: dict[str, Any],
    pos_label: Any,
    *,
    dropna: bool,
    data: Any = None,
    y_name: str = "y_true",
    metric: str,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Scores of the positives (k, m) and negatives (k, n), through the input gate.

    Labels must be binary: more than two classes are refused (binarise first), never
    scored one-vs-rest silently.
    """
    require(**{y_name: y_true}, **scores)
    specs = {y_name: ArgSpec("labels"), **{name: ArgSpec("scores") for name in scores}}
    g = gather(specs, {y_name: y_true, **scores}, dropna=dropna, data=data)
    pos = binary_target(g[y_name], pos_label, name=y_name, metric=metric)
    m, n = int(pos.sum()), int((~pos).sum())
    if m < 2 or n < 2:
        raise ValueError(
            f"`{y_name}` must contain at least 2 positives and 2 negatives for a variance of "
            f"the AUC; got {m} positive(s) and {n} negative(s)."
        )
    s = np.vstack([g[name] for name in scores])
    return s[:, pos], s[:, ~pos], g.n_dropped


def _delong(pos: np.ndarray, neg: np.ndarray):
    """AUCs and their DeLong covariance matrix (Sun & Xu 2014, midrank algorithm).

    pos: (k, m) scores of the positives for k classifiers; neg: (k, n).
    """
    m, n = pos.shape[1], neg.shape[1]
    auc, v10, v01 = _placements(pos, neg)
    s10 = np.atleast_2d(np.cov(v10))
    s01 = np.atleast_2d(np.cov(v01))
    return auc, s10 / m + s01 / n


def _placements(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, ...]:
    """AUCs (k,), the positives' placements among the negatives (k, m) and one minus the
    negatives' placements among the positives (k, n), by midranks (ties one half)."""
    from scipy.stats import rankdata  # here: scipy.stats takes ~0.5 s to import

    m, n = pos.shape[1], neg.shape[1]
    tx = rankdata(pos, axis=1)
    ty = rankdata(neg, axis=1)
    tz = rankdata(np.hstack([pos, neg]), axis=1)
    auc = (tz[:, :m].sum(axis=1) - m * (m + 1) / 2) / (m * n)
    v10 = (tz[:, :m] - tx) / n  # placement of each positive among the negatives
    v01 = 1.0 - (tz[:, m:] - ty) / m  # 1 - placement of each negative among the positives
    return auc, v10, v01


def _delong_parts(pos: np.ndarray, neg: np.ndarray) -> tuple[float, float, float]:
    """The AUC of one scorer and the two terms of DeLong's variance: the positives' part
    ``var(placements) / m`` and the negatives' ``var / n`` (pos: (1, m), neg: (1, n))."""
    auc, v10, v01 = _placements(pos, neg)
    return (
        float(auc[0]),
        float(np.var(v10, ddof=1) / v10.size),
        float(np.var(v01, ddof=1) / v01.size),
    )


def hanley_mcneil_se(auc: Any, n_positive: Any, n_negative: Any) -> Any:
    """Hanley & McNeil's (1982) standard error of an AUC.

    ``SE² = (A(1-A) + (n₊-1)(Q₁-A²) + (n₋-1)(Q₂-A²)) / (n₊ n₋)`` with
    ``Q₁ = A/(2-A)`` and ``Q₂ = 2A²/(1+A)`` (exponential score distributions).

    Parameters
    ----------
    auc : float or array_like in [0, 1]
    n_positive, n_negative : int or array_like
        Numbers of positive and negative samples (≥ 1).

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(hanley_mcneil_se(0.893, 51, 58), 4)   # Hanley & McNeil (1982), Table 1
    0.0325
    """
    a = number_array("auc", auc, ndim=ANY_NDIM, what="AUCs")
    npos = number_array("n_positive", n_positive, ndim=ANY_NDIM, what="counts")
    nneg = number_array("n_negative", n_negative, ndim=ANY_NDIM, what="counts")
    if ((a < 0) | (a > 1)).any():
        raise ValueError(f"`auc` must lie in [0, 1]; got {a[(a < 0) | (a > 1)].ravel()[0]:g}.")
    for name, v in (("n_positive", npos), ("n_negative", nneg)):
        if (v < 1).any():
            raise ValueError(f"`{name}` must be at least 1; got {v[v < 1].ravel()[0]:g}.")
    try:
        a, npos, nneg = np.broadcast_arrays(a, npos, nneg)
    except ValueError:
        raise ValueError(
            f"`auc`, `n_positive` and `n_negative` must have broadcastable shapes; got "
            f"{a.shape}, {npos.shape} and {nneg.shape}."
        ) from None
    q1 = a / (2 - a)
    q2 = 2 * a * a / (1 + a)
    var = (a * (1 - a) + (npos - 1) * (q1 - a * a) + (nneg - 1) * (q2 - a * a)) / (npos * nneg)
    se = np.sqrt(np.maximum(var, 0.0))
    return float(se) if se.ndim == 0 else se


def _interval(est, se, confidence_level, alternative, lo, hi):
    low, high = wald_interval(
        est, se, confidence_level=confidence_level, alternative=alternative, bounds=(lo, hi)
    )
    return float(low), float(high)


def _auc_result(
    est, se, method, pos, neg, confidence_level, alternative, n_dropped
) -> IntervalResult:
    """``est ± z·se`` clipped to [0, 1], as the result of an AUC interval."""
    low, high = _interval(est, se, confidence_level, alternative, 0.0, 1.0)
    return IntervalResult(
        estimate=est,
        confidence_interval=ConfidenceInterval(float(low), float(high)),
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        standard_error=se,
        metric="roc_auc",
        details={
            "n_positive": pos.shape[1],
            "n_negative": neg.shape[1],
            "n_dropped": n_dropped,
        },
    )


def _difference_test(diff, se, method, details, confidence_level, alternative) -> TestResult:
    """z test of an AUC difference with its normal interval clipped to [-1, 1]."""
    z = diff / se if se > 0 else (0.0 if diff == 0 else float(np.sign(diff) * np.inf))
    low, high = _interval(diff, se, confidence_level, alternative, -1.0, 1.0)
    return TestResult(
        statistic=float(z),
        pvalue=normal_pvalue(z, alternative),
        method=method,
        alternative=alternative,
        estimate=diff,
        confidence_interval=ConfidenceInterval(float(low), float(high)),
        confidence_level=confidence_level,
        details=details,
    )


# ----------------------------------------------------------------------------------------
# public functions
# ----------------------------------------------------------------------------------------
@fill_doc
def delong_ci(
    y_true: Any,
    y_score: Any,
    *,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    pos_label: Any = None,
    dropna: bool = False,
    data: Any = None,
) -> IntervalResult:
    """DeLong confidence interval for the ROC AUC.

    ``AUC ± z·SE`` with DeLong's nonparametric standard error, clipped to [0, 1].  The
    normal approximation is poor for small samples or an AUC near 1 (the interval may
    then reach the bound); a bootstrap is an alternative there.

    Parameters
    ----------
    y_true : array_like, shape (n_samples,)
        Binary labels ({0, 1}, {-1, 1}, booleans, or any two values with ``pos_label``).
        More than two classes are refused: to score one class against the rest, binarise
        the labels first (``y_true == "cat"``).
    y_score : array_like, shape (n_samples,)
        Scores, higher meaning more likely positive (``±inf`` allowed).
    confidence_level : float, default 0.95
    %(alternative_interval)s
    pos_label : optional
        The positive label; required unless the labels are {0, 1}, {-1, 1} or booleans.
    dropna : bool, default False
        Drop the samples with a missing label or score (None, NaN, ``pd.NA``) instead of
        refusing them; ``details["n_dropped"]`` says how many.
    data : DataFrame, optional
        A pandas/polars DataFrame or pyarrow Table; ``y_true`` and ``y_score`` may then be
        column names.

    Returns
    -------
    IntervalResult
        ``metric="roc_auc"``, ``method="delong"``, with ``standard_error``; details hold
        the numbers of positives and negatives and ``n_dropped``.

    Examples
    --------
    >>> y = [0, 0, 0, 0, 1, 1, 1, 1]
    >>> s = [0.1, 0.4, 0.35, 0.8, 0.7, 0.6, 0.9, 0.3]
    >>> r = delong_ci(y, s)
    >>> r.estimate, round(r.standard_error, 4)
    (0.6875, 0.2224)
    """
    confidence_level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    dropna = check_flag("dropna", dropna)
    pos, neg, n_dropped = _prepare(
        y_true, {"y_score": y_score}, pos_label, dropna=dropna, data=data, metric="delong_ci"
    )
    auc, cov = _delong(pos, neg)
    est, se = float(auc[0]), float(np.sqrt(max(cov[0, 0], 0.0)))
    return _auc_result(est, se, "delong", pos, neg, confidence_level, alternative, n_dropped)


def hanley_mcneil_ci(
    y_true: Any,
    y_score: Any,
    *,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    pos_label: Any = None,
    dropna: bool = False,
    data: Any = None,
) -> IntervalResult:
    """Hanley–McNeil (1982) confidence interval for the ROC AUC.

    ``AUC ± z·SE`` with the standard error of :func:`hanley_mcneil_se`, clipped to
    [0, 1].  The SE assumes exponential-like score distributions (a binormal model gives
    similar values); prefer :func:`delong_ci`, which makes no such assumption.

    Parameters
    ----------
    y_true, y_score, confidence_level, alternative, pos_label, dropna, data
        As in :func:`delong_ci`.

    Returns
    -------
    IntervalResult

    Examples
    --------
    >>> y = [0, 0, 0, 0, 1, 1, 1, 1]
    >>> s = [0.1, 0.4, 0.35, 0.8, 0.7, 0.6, 0.9, 0.3]
    >>> round(hanley_mcneil_ci(y, s).standard_error, 4)
    0.1986
    """
    confidence_level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    dropna = check_flag("dropna", dropna)
    pos, neg, n_dropped = _prepare(
        y_true, {"y_score": y_score}, pos_label, dropna=dropna, data=data,
        metric="hanley_mcneil_ci",
    )  # fmt: skip
    auc, _ = _delong(pos, neg)
    est = float(auc[0])
    se = float(hanley_mcneil_se(est, pos.shape[1], neg.shape[1]))
    return _auc_result(est, se, "hanley-mcneil", pos, neg, confidence_level, alternative, n_dropped)


@fill_doc
def delong_test(
    y_true: Any,
    y_score_a: Any,
    y_score_b: Any,
    *,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    pos_label: Any = None,
    dropna: bool = False,
    data: Any = None,
) -> TestResult:
    """DeLong's test for two correlated AUCs (two scorers on the same samples).

    ``z = (AUC_a - AUC_b) / sqrt(V_a + V_b - 2 C_ab)`` with DeLong's covariance matrix.

    Parameters
    ----------
    y_true : array_like, shape (n_samples,)
        Binary labels (more than two classes are refused; binarise first).
    y_score_a, y_score_b : array_like, shape (n_samples,)
        Scores of the two systems on the same samples.
    confidence_level : float, default 0.95
        Level of the interval for ``AUC_a - AUC_b`` (clipped to [-1, 1]).
    %(alternative_test)s
    pos_label : optional
    dropna : bool, default False
        Drop the samples with a missing label or score (in any of the three arguments)
        instead of refusing them; ``details["n_dropped"]`` says how many.
    data : DataFrame, optional
        A table whose columns ``y_true``, ``y_score_a``, ``y_score_b`` may name.

    Returns
    -------
    TestResult
        ``statistic`` z; ``estimate`` ``AUC_a - AUC_b``; ``details`` hold both AUCs,
        their standard errors, the correlation, the SE of the difference and
        ``n_dropped``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> a = y + rng.normal(0, 1, 300)
    >>> b = y + rng.normal(0, 1.5, 300)
    >>> r = delong_test(y, a, b)
    >>> round(r.estimate, 3), round(r.pvalue, 3)
    (0.073, 0.055)
    """
    confidence_level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    dropna = check_flag("dropna", dropna)
    pos, neg, n_dropped = _prepare(
        y_true, {"y_score_a": y_score_a, "y_score_b": y_score_b}, pos_label, dropna=dropna,
        data=data, metric="delong_test",
    )  # fmt: skip
    auc, cov = _delong(pos, neg)
    diff = float(auc[0] - auc[1])
    var = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    se = float(np.sqrt(max(var, 0.0)))
    sa, sb = np.sqrt(max(cov[0, 0], 0.0)), np.sqrt(max(cov[1, 1], 0.0))
    corr = float(cov[0, 1] / (sa * sb)) if sa > 0 and sb > 0 else float("nan")
    details = {
        "auc_a": float(auc[0]),
        "auc_b": float(auc[1]),
        "se_a": float(sa),
        "se_b": float(sb),
        "correlation": corr,
        "se_difference": se,
        "n_positive": pos.shape[1],
        "n_negative": neg.shape[1],
        "n_dropped": n_dropped,
    }
    return _difference_test(diff, se, "delong-paired", details, confidence_level, alternative)


@fill_doc
def delong_test_independent(
    y_true_a: Any,
    y_score_a: Any,
    y_true_b: Any,
    y_score_b: Any,
    *,
    variant: str = "z",
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    pos_label: Any = None,
    dropna: bool = False,
) -> TestResult:
    """Test of two AUCs measured on independent samples (different test sets).

    ``z = (AUC_a - AUC_b) / sqrt(V_a + V_b)`` with each variance from DeLong's method,
    referred to the standard normal (``variant="z"``, the default), or to Student's t
    with Welch–Satterthwaite degrees of freedom
    ``(V_a + V_b)^2 / (V_a^2 / (N_a - 1) + V_b^2 / (N_b - 1))`` (``N``: the samples of
    each test set) as R's ``pROC::roc.test(roc_a, roc_b, method = "delong",
    paired = FALSE)`` does (``variant="welch-t"``; a slightly larger p-value, e.g. 0.6168
    vs 0.6158).

    Parameters
    ----------
    y_true_a, y_score_a : array_like
        Labels and scores of system A on its test set.
    y_true_b, y_score_b : array_like
        Labels and scores of system B on its (independent) test set.
    variant : {"z", "welch-t"}, default "z"
        The reference distribution of the statistic (and the interval's quantile):
        normal, or pROC's t with Welch's degrees of freedom (``details["df"]``).
    confidence_level : float, default 0.95
    %(alternative_test)s
    pos_label : optional
        The positive label of both test sets.
    dropna : bool, default False
        Drop the samples with a missing label or score instead of refusing them;
        ``details["n_dropped"]`` (both sets), ``"n_dropped_a"`` and ``"n_dropped_b"``
        say how many.

    Returns
    -------
    TestResult

    Examples
    --------
    >>> r = delong_test_independent([0, 0, 1, 1, 0, 1], [0.1, 0.3, 0.7, 0.9, 0.2, 0.4],
    ...                             [0, 1, 0, 1, 0, 1], [0.5, 0.4, 0.2, 0.8, 0.6, 0.3])
    >>> round(r.estimate, 4)
    0.4444
    """
    variant = check_choice("variant", variant, ("z", "welch-t"))
    confidence_level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    dropna = check_flag("dropna", dropna)
    name = "delong_test_independent"
    pa, na, drop_a = _prepare(
        y_true_a, {"y_score_a": y_score_a}, pos_label, dropna=dropna, y_name="y_true_a",
        metric=name,
    )  # fmt: skip
    pb, nb, drop_b = _prepare(
        y_true_b, {"y_score_b": y_score_b}, pos_label, dropna=dropna, y_name="y_true_b",
        metric=name,
    )  # fmt: skip
    auc_a, cov_a = _delong(pa, na)
    auc_b, cov_b = _delong(pb, nb)
    diff = float(auc_a[0] - auc_b[0])
    se_a, se_b = np.sqrt(max(cov_a[0, 0], 0.0)), np.sqrt(max(cov_b[0, 0], 0.0))
    se = float(np.hypot(se_a, se_b))
    details = {
        "auc_a": float(auc_a[0]),
        "auc_b": float(auc_b[0]),
        "se_a": float(se_a),
        "se_b": float(se_b),
        "se_difference": se,
        "n_dropped": drop_a + drop_b,
        "n_dropped_a": drop_a,
        "n_dropped_b": drop_b,
    }
    if variant == "z":
        return _difference_test(diff, se, "delong-unpaired", details, confidence_level, alternative)
    # pROC's delong.unpaired.test: Welch-Satterthwaite df over each test set's size
    va, vb = se_a**2, se_b**2
    size_a, size_b = pa.shape[1] + na.shape[1], pb.shape[1] + nb.shape[1]
    df = float((va + vb) ** 2 / (va**2 / (size_a - 1) + vb**2 / (size_b - 1)))
    details["df"] = df
    t = diff / se if se > 0 else (0.0 if diff == 0 else float(np.sign(diff) * np.inf))
    low, high = (
        float(v)
        for v in wald_interval(
            diff, se, confidence_level=confidence_level, alternative=alternative, df=df,
            bounds=(-1.0, 1.0),
        )
    )  # fmt: skip
    return TestResult(
        statistic=float(t),
        pvalue=float(t_pvalues(t, df, alternative)),
        method="delong-unpaired-welch-t",
        alternative=alternative,
        estimate=diff,
        df=df,
        confidence_interval=ConfidenceInterval(float(low), float(high)),
        confidence_level=confidence_level,
        details=details,
    )
