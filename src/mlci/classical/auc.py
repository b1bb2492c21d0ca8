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
from scipy import stats

from ..inputs.validation import (
    as_1d,
    binary_labels,
    check_alternative,
    check_confidence_level,
    check_finite,
    check_same_length,
)
from ..results import ConfidenceInterval, IntervalResult, TestResult
from .pvalues import normal_pvalue

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
def _prepare(y_true, scores: dict[str, Any], pos_label, y_name="y_true"):
    y = as_1d(y_name, y_true)
    pos = binary_labels(y_name, y, pos_label)
    arrs = []
    for name, s in scores.items():
        a = as_1d(name, s, dtype=float)
        check_finite(name, a)
        arrs.append(a)
    check_same_length(**{y_name: y}, **dict(zip(scores, arrs, strict=True)))
    m, n = int(pos.sum()), int((~pos).sum())
    if m < 2 or n < 2:
        raise ValueError(
            f"`{y_name}` must contain at least 2 positives and 2 negatives for a variance of "
            f"the AUC; got {m} positive(s) and {n} negative(s)."
        )
    s = np.vstack(arrs)
    return s[:, pos], s[:, ~pos]


def _delong(pos: np.ndarray, neg: np.ndarray):
    """AUCs and their DeLong covariance matrix (Sun & Xu 2014, midrank algorithm).

    pos: (k, m) scores of the positives for k classifiers; neg: (k, n).
    """
    m, n = pos.shape[1], neg.shape[1]
    tx = stats.rankdata(pos, axis=1)
    ty = stats.rankdata(neg, axis=1)
    tz = stats.rankdata(np.hstack([pos, neg]), axis=1)
    auc = (tz[:, :m].sum(axis=1) - m * (m + 1) / 2) / (m * n)
    v10 = (tz[:, :m] - tx) / n  # placement of each positive among the negatives
    v01 = 1.0 - (tz[:, m:] - ty) / m  # 1 - placement of each negative among the positives
    s10 = np.atleast_2d(np.cov(v10))
    s01 = np.atleast_2d(np.cov(v01))
    return auc, s10 / m + s01 / n


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
    a = np.asarray(auc, dtype=float)
    npos = np.asarray(n_positive, dtype=float)
    nneg = np.asarray(n_negative, dtype=float)
    check_finite("auc", a)
    if ((a < 0) | (a > 1)).any():
        raise ValueError(f"`auc` must lie in [0, 1]; got {a[(a < 0) | (a > 1)].ravel()[0]:g}.")
    for name, v in (("n_positive", npos), ("n_negative", nneg)):
        check_finite(name, v)
        if (v < 1).any():
            raise ValueError(f"`{name}` must be at least 1; got {v[v < 1].ravel()[0]:g}.")
    q1 = a / (2 - a)
    q2 = 2 * a * a / (1 + a)
    var = (a * (1 - a) + (npos - 1) * (q1 - a * a) + (nneg - 1) * (q2 - a * a)) / (npos * nneg)
    se = np.sqrt(np.maximum(var, 0.0))
    return float(se) if se.ndim == 0 else se


def _interval(est, se, confidence_level, alternative, lo, hi):
    a = 1 - confidence_level
    if alternative == "two-sided":
        z = stats.norm.ppf(1 - a / 2)
        return max(est - z * se, lo), min(est + z * se, hi)
    z = stats.norm.ppf(1 - a)
    if alternative == "greater":
        return max(est - z * se, lo), hi
    return lo, min(est + z * se, hi)


def _auc_result(est, se, method, pos, neg, confidence_level, alternative) -> IntervalResult:
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
        details={"n_positive": pos.shape[1], "n_negative": neg.shape[1]},
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
def delong_ci(
    y_true: Any,
    y_score: Any,
    *,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    pos_label: Any = None,
) -> IntervalResult:
    """DeLong confidence interval for the ROC AUC.

    ``AUC ± z·SE`` with DeLong's nonparametric standard error, clipped to [0, 1].  The
    normal approximation is poor for small samples or an AUC near 1 (the interval may
    then reach the bound); a bootstrap is an alternative there.

    Parameters
    ----------
    y_true : array_like, shape (n_samples,)
        Binary labels ({0, 1}, {-1, 1}, booleans, or any two values with ``pos_label``).
    y_score : array_like, shape (n_samples,)
        Scores, higher meaning more likely positive.
    confidence_level : float, default 0.95
    alternative : {"two-sided", "less", "greater"}
        One-sided intervals have 0 or 1 as their open bound.
    pos_label : optional
        The positive label.

    Returns
    -------
    IntervalResult
        ``metric="roc_auc"``, ``method="delong"``, with ``standard_error``; details hold
        the numbers of positives and negatives.

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
    pos, neg = _prepare(y_true, {"y_score": y_score}, pos_label)
    auc, cov = _delong(pos, neg)
    est, se = float(auc[0]), float(np.sqrt(max(cov[0, 0], 0.0)))
    return _auc_result(est, se, "delong", pos, neg, confidence_level, alternative)


def hanley_mcneil_ci(
    y_true: Any,
    y_score: Any,
    *,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    pos_label: Any = None,
) -> IntervalResult:
    """Hanley–McNeil (1982) confidence interval for the ROC AUC.

    ``AUC ± z·SE`` with the standard error of :func:`hanley_mcneil_se`, clipped to
    [0, 1].  The SE assumes exponential-like score distributions (a binormal model gives
    similar values); prefer :func:`delong_ci`, which makes no such assumption.

    Parameters
    ----------
    y_true, y_score, confidence_level, alternative, pos_label
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
    pos, neg = _prepare(y_true, {"y_score": y_score}, pos_label)
    auc, _ = _delong(pos, neg)
    est = float(auc[0])
    se = float(hanley_mcneil_se(est, pos.shape[1], neg.shape[1]))
    return _auc_result(est, se, "hanley-mcneil", pos, neg, confidence_level, alternative)


def delong_test(
    y_true: Any,
    score_a: Any,
    score_b: Any,
    *,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    pos_label: Any = None,
) -> TestResult:
    """DeLong's test for two correlated AUCs (two scorers on the same samples).

    ``z = (AUC_a - AUC_b) / sqrt(V_a + V_b - 2 C_ab)`` with DeLong's covariance matrix.

    Parameters
    ----------
    y_true : array_like, shape (n_samples,)
        Binary labels.
    score_a, score_b : array_like, shape (n_samples,)
        Scores of the two systems on the same samples.
    confidence_level : float, default 0.95
        Level of the interval for ``AUC_a - AUC_b`` (clipped to [-1, 1]).
    alternative : {"two-sided", "less", "greater"}
        ``"greater"``: AUC of A is larger.
    pos_label : optional

    Returns
    -------
    TestResult
        ``statistic`` z; ``estimate`` ``AUC_a - AUC_b``; ``details`` hold both AUCs,
        their standard errors, the correlation and the SE of the difference.

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
    pos, neg = _prepare(y_true, {"score_a": score_a, "score_b": score_b}, pos_label)
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
    }
    return _difference_test(diff, se, "delong-paired", details, confidence_level, alternative)


def delong_test_independent(
    y_true_a: Any,
    score_a: Any,
    y_true_b: Any,
    score_b: Any,
    *,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    pos_label: Any = None,
) -> TestResult:
    """Test of two AUCs measured on independent samples (different test sets).

    ``z = (AUC_a - AUC_b) / sqrt(V_a + V_b)`` with each variance from DeLong's method
    (as in pROC's unpaired DeLong test).

    Parameters
    ----------
    y_true_a, score_a : array_like
        Labels and scores of system A on its test set.
    y_true_b, score_b : array_like
        Labels and scores of system B on its (independent) test set.
    confidence_level : float, default 0.95
    alternative : {"two-sided", "less", "greater"}
    pos_label : optional

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
    confidence_level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    pa, na = _prepare(y_true_a, {"score_a": score_a}, pos_label, "y_true_a")
    pb, nb = _prepare(y_true_b, {"score_b": score_b}, pos_label, "y_true_b")
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
    }
    return _difference_test(diff, se, "delong-unpaired", details, confidence_level, alternative)
