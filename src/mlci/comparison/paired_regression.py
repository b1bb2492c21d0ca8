"""``method="auto"`` for a paired RMSE difference: the symmetric bootstrap-t interval.

The difference of two systems' RMSEs on the same samples, ``sqrt(MSE_a) - sqrt(MSE_b)``,
is a non-linear function of two means of squared errors.  Its t interval on the
linearized (delta-method) standard error, :func:`mlci.compare`'s ``"auto"`` for a
difference, and the BCa interval that ``"auto"`` switched to where the linearized
difference looked skewed (:func:`mlci.engine.paired_rules.skewed_pairs`) covered
0.825-0.920 with Laplace errors and 0.890-0.963 with normal ones at n = 20-100
(``scripts/paired_rmse_study.py``, docs/validation.md, "Paired RMSE differences at small n
(session 11, rmsepair)"): the studentized difference is heavier-tailed than t (the squared
errors' kurtosis enters the standard error), which the equal-tailed intervals do not
correct at these sizes (BCa 0.82-0.95, percentile 0.87-0.95, the equal-tailed bootstrap-t
0.87-0.96).  The symmetric bootstrap-t
interval (Hall 1988, "On symmetric bootstrap confidence intervals", JRSS B 50: 35-45;
Hall 1992, *The Bootstrap and Edgeworth Expansion*, sec. 3.6), ``d +- q SE`` with ``q`` the
``confidence_level`` point of ``|d* - d| / SE*`` over the replicates, covered 0.935-0.975
there.

Two-sided intervals of independent samples only (no conditions): a one-sided interval
keeps the t interval.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..results import ConfidenceInterval

__all__ = [
    "SYMMETRIC_T_METHOD",
    "SYMMETRIC_T_METRICS",
    "SYMMETRIC_T_REASON",
    "symmetric_t_intervals",
    "symmetric_t_pairs",
    "symmetric_t_pvalues",
    "unflagged_few_discordant",
]

#: metrics whose paired differences get the symmetric bootstrap-t interval under ``"auto"``
SYMMETRIC_T_METRICS = frozenset({"rmse"})
#: the interval's name (``PairDifference.method``)
SYMMETRIC_T_METHOD = "symmetric_studentized"
#: the ``method_reason`` clause
SYMMETRIC_T_REASON = (
    "symmetric_studentized (d +- the confidence level's point of |d* - d| / SE* times the "
    "linearized SE; Hall 1988) for the RMSE difference(s) {pairs}: the t and BCa intervals of "
    "a paired RMSE difference covered 0.825-0.920 with Laplace errors at n = 20-100 (normal: "
    "0.890-0.963), the symmetric bootstrap-t 0.935-0.975 (docs/validation.md, 'Paired RMSE "
    "differences at small n (session 11, rmsepair)')"
)


def symmetric_t_pairs(
    *,
    requested: str,
    diff_method: str,
    linear: dict[str, Any] | None,
    conditions: Any,
    metric: str,
    alternative: str,
    n_pairs: int,
) -> np.ndarray:
    """Which differences get the symmetric bootstrap-t interval under ``"auto"``: all of an
    RMSE comparison of independent samples (no conditions) with a two-sided alternative,
    where ``"auto"`` gave the differences the t interval; else none.

    Examples
    --------
    >>> symmetric_t_pairs(requested="auto", diff_method="t", linear={"iid": True},
    ...                   conditions=None, metric="rmse", alternative="two-sided", n_pairs=2)
    array([ True,  True])
    >>> symmetric_t_pairs(requested="auto", diff_method="t", linear={"iid": True},
    ...                   conditions=None, metric="mae", alternative="two-sided", n_pairs=1)
    array([False])
    """
    on = (
        requested == "auto"
        and diff_method == "t"
        and linear is not None
        and bool(linear["iid"])
        and conditions is None
        and metric in SYMMETRIC_T_METRICS
        and alternative == "two-sided"
    )
    return np.full(n_pairs, on, dtype=bool)


#: an RMSE pair with the symmetric bootstrap-t is not warned by the few-discordant rule
#: (:func:`mlci.engine.paired_rules.few_discordant`) where at least this many samples'
#: squared errors differ between the systems: with heavy-ish errors (Laplace errors) the
#: rule flagged 26-39% of the test sets at n = 30-50, all samples differing, and those
#: covered 0.979-1.000 (the symmetric interval; t 0.95-0.98), more than the others
#: (0.926-0.953; scripts/data/paired_rmse_few_discordant.json).  Two
#: systems that differ on a handful of samples keep the warning.
MIN_DIFFERING_SAMPLES = 20


def unflagged_few_discordant(
    pairs: np.ndarray, kernels: Any, index_a: np.ndarray, index_b: np.ndarray
) -> np.ndarray:
    """The pairs of ``pairs`` (a mask) whose systems' squared errors (``signed_errors`` of
    the kernels) differ on at least :data:`MIN_DIFFERING_SAMPLES` samples: the
    few-discordant warning does not apply to them."""
    out = np.zeros(len(pairs), dtype=bool)
    for k in np.flatnonzero(pairs):
        ea = getattr(kernels[index_a[k]], "signed_errors", None)
        eb = getattr(kernels[index_b[k]], "signed_errors", None)
        if ea is None or eb is None or len(ea) != len(eb):
            continue
        differing = int(np.sum(np.asarray(ea) ** 2 != np.asarray(eb) ** 2))
        out[k] = differing >= MIN_DIFFERING_SAMPLES
    return out


def _abs_t(
    d_hat: np.ndarray, se: np.ndarray, d_dist: np.ndarray, se_dist: np.ndarray
) -> np.ndarray:
    """``|d* - d| / SE*`` per replicate (rows) and pair (columns); NaN where undefined."""
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(d_dist - d_hat[None, :]) / se_dist
    return np.where(np.isfinite(t) & (se_dist > 0), t, np.nan)


def symmetric_t_intervals(
    pairs: np.ndarray,
    d_hat: np.ndarray,
    se: np.ndarray,
    d_dist: np.ndarray,
    se_dist: np.ndarray,
    confidence_level: float,
    bounds: tuple[float, float],
) -> dict[int, ConfidenceInterval]:
    """The symmetric bootstrap-t interval ``d +- q SE`` of each pair in ``pairs`` (a mask),
    by pair index; ``q`` is the ``confidence_level`` quantile of ``|d* - d| / SE*`` (the
    replicates' linearized standard errors ``se_dist``), the interval clipped to
    ``bounds``.  A pair without a finite ``q`` or ``SE`` keeps its own interval (absent).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> d_dist = rng.normal(0.1, 0.05, (2000, 1))
    >>> ci = symmetric_t_intervals(np.array([True]), np.array([0.1]), np.array([0.05]),
    ...                            d_dist, np.full((2000, 1), 0.05), 0.95, (-2.0, 2.0))
    >>> round(ci[0].low, 2), round(ci[0].high, 2)  # about 0.1 -+ 1.96 x 0.05
    (0.0, 0.2)
    """
    out: dict[int, ConfidenceInterval] = {}
    if not np.any(pairs):
        return out
    t = _abs_t(d_hat, se, d_dist, se_dist)
    for k in np.flatnonzero(pairs):
        col = t[:, k][~np.isnan(t[:, k])]
        if len(col) == 0 or not np.isfinite(se[k]):
            continue
        q = float(np.quantile(col, confidence_level))
        low = max(float(d_hat[k] - q * se[k]), bounds[0])
        high = min(float(d_hat[k] + q * se[k]), bounds[1])
        out[int(k)] = ConfidenceInterval(low, high)
    return out


def symmetric_t_pvalues(
    pairs: np.ndarray,
    pvals: np.ndarray,
    d_hat: np.ndarray,
    se: np.ndarray,
    d_dist: np.ndarray,
    se_dist: np.ndarray,
) -> np.ndarray:
    """``pvals`` with each pair of ``pairs`` (a mask) given the symmetric bootstrap-t test's
    two-sided p-value ``(1 + #{|d* - d| / SE* >= |d| / SE}) / (1 + B')`` over the ``B'``
    replicates with a defined statistic: the inversion of :func:`symmetric_t_intervals`
    (the interval excludes 0 at level ``1 - alpha`` where the p-value is below about
    ``alpha``)."""
    out = np.array(pvals, dtype=float)
    if not np.any(pairs):
        return out
    t = _abs_t(d_hat, se, d_dist, se_dist)
    for k in np.flatnonzero(pairs):
        col = t[:, k][~np.isnan(t[:, k])]
        if len(col) == 0 or not (np.isfinite(se[k]) and se[k] > 0):
            continue
        t_obs = abs(float(d_hat[k])) / float(se[k])
        out[k] = (1.0 + float(np.sum(col >= t_obs))) / (1.0 + len(col))
    return out
