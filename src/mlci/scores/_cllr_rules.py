"""``method="auto"`` of :func:`mlci.cllr_ci`: the actual Cllr's bootstrap-t interval, and
the warnings where no interval held (issue 20; ``scripts/cllr_sweep.py``,
docs/validation.md, "Cllr intervals (session 9)").

* **The actual Cllr of independent unweighted trials: the studentized (bootstrap-t)
  interval on the log scale** (:data:`CLLR_T_REASON`).  Cllr is
  ``(mean_pos phi_pos + mean_neg phi_neg) / 2`` of per-trial costs
  ``phi = log2(1 + e^(-+s))``; every replicate's standard error is the two-sample one,
  ``sqrt(var_pos / n_pos + var_neg / n_neg) / 2`` (:func:`cllr_se_rows`), and
  ``t* = (log C* - log C) / (se* / C*)`` (Efron & Tibshirani 1993, ch. 12.5; Hall 1992,
  sec. 3.5; the log scale: DiCiccio & Efron 1996, sec. 4).  The costs of a strong system
  are right-skewed (most trials cost almost nothing, a few misjudged ones cost several
  bits), so the estimate's spread grows with it: BCa and the percentile interval,
  which read only the spread of the replicates, miss high, while t* carries that
  relation.  Over conditions, with weights, strata or another resampling design BCa
  stays (the two-sample standard error assumes independent trials).
* **A warning where the costs are too skewed for any interval**
  (:func:`warn_skewed_cllr`): the skewness of the estimate read off the class-wise third
  moments, ``gamma = (m3_pos / n_pos^2 + m3_neg / n_neg^2) / 8 / se^3``
  (:func:`cllr_skewness`), at least :data:`MAX_CLLR_SKEWNESS`.  For one mean ``gamma``
  is ``G1 / sqrt(n)``, and Cochran's rule for a normal-theory interval of a skewed mean,
  ``n > 25 G1^2`` (Cochran 1977, *Sampling Techniques*, 3rd ed., sec. 2.15), is
  ``gamma < 0.2``.
* **The minimum Cllr: BCa, with a warning of PAV's optimism** (:func:`warn_min_cllr_bias`)
  where the replicates' mean lies below the estimate by more than
  :data:`MAX_MIN_CLLR_BIAS` of their standard deviation (Efron & Tibshirani 1993, sec.
  10.6: a bias under a quarter of the standard error can be ignored).  PAV fits the
  calibration to the test set itself, so the minimum Cllr is biased down, and the
  bootstrap sees only part of it (its replicates are PAV fits too).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import IrregularEstimandWarning, NearBoundWarning
from ..feedback import warn
from ._roc import _Layout

__all__ = [
    "CLLR_T_REASON",
    "MAX_CLLR_SKEWNESS",
    "MAX_MIN_CLLR_BIAS",
    "cllr_costs",
    "cllr_se_rows",
    "cllr_skewness",
    "warn_min_cllr_bias",
    "warn_skewed_cllr",
]

_LN2 = float(np.log(2.0))

#: Cochran's rule (Cochran 1977, sec. 2.15: ``n > 25 G1^2`` for a mean of skewed values),
#: applied to the estimate's skewness ``gamma`` (``G1 / sqrt(n)`` for one mean)
MAX_CLLR_SKEWNESS = 0.2
#: Efron & Tibshirani (1993, sec. 10.6): a bootstrap bias under 0.25 standard errors can
#: be ignored
MAX_MIN_CLLR_BIAS = 0.25

CLLR_T_REASON = "studentized: placeholder"


def cllr_costs(lay: _Layout) -> tuple[np.ndarray, np.ndarray]:
    """Per-atom costs in bits: the targets' ``log2(1 + e^-s)`` and the non-targets'
    ``log2(1 + e^s)`` (the atoms: distinct scores of each class)."""
    return np.logaddexp(0.0, -lay.u[1]) / _LN2, np.logaddexp(0.0, lay.u[0]) / _LN2


def _class_moments(w: np.ndarray, phi: np.ndarray) -> tuple[np.ndarray, ...]:
    """Weights ``w`` (r, m) of the atoms: count, mean, unbiased variance per row."""
    n = w.sum(1)
    safe = np.where(n > 0, n, 1.0)
    mean = w @ phi / safe
    second = w @ (phi * phi) / safe
    var = np.maximum(second - mean * mean, 0.0) * n / np.where(n > 1, n - 1, np.nan)
    return n, mean, var


def cllr_se_rows(lay: _Layout, v: Any) -> np.ndarray:
    """Every replicate's two-sample standard error of Cllr,
    ``sqrt(var_pos / n_pos + var_neg / n_neg) / 2`` (unbiased class variances; NaN with
    fewer than 2 trials of a class)."""
    w_neg, w_pos = v.w
    phi_pos, phi_neg = cllr_costs(lay)
    n_p, _, v_p = _class_moments(w_pos, phi_pos)
    n_n, _, v_n = _class_moments(w_neg, phi_neg)
    with np.errstate(invalid="ignore", divide="ignore"):
        return 0.5 * np.sqrt(v_p / n_p + v_n / n_n)


def cllr_skewness(lay: _Layout) -> float:
    """Skewness of the Cllr estimate from the class-wise central moments of the costs:
    ``(m3_pos / n_pos^2 + m3_neg / n_neg^2) / 8 / se^3`` with
    ``se^2 = (m2_pos / n_pos + m2_neg / n_neg) / 4`` (the third and second cumulants of a
    sum of two independent means; plug-in moments).  0 when the costs do not vary.
    """
    out = []
    for phi, c in zip(cllr_costs(lay)[::-1], lay.nobs, strict=True):
        n = c.sum()
        d = phi - (c @ phi) / n
        out.append((n, (c @ d**2) / n, (c @ d**3) / n))
    (n0, m2_0, m3_0), (n1, m2_1, m3_1) = out
    var = (m2_0 / n0 + m2_1 / n1) / 4
    if not var > 0:
        return 0.0
    return float((m3_0 / n0**2 + m3_1 / n1**2) / 8 / var**1.5)


def warn_skewed_cllr(gamma: float, n_pos: float, n_neg: float) -> str | None:
    """Warn (and return the message) when the actual Cllr's estimate is too skewed for
    its interval to hold (``gamma >= MAX_CLLR_SKEWNESS``)."""
    if not gamma >= MAX_CLLR_SKEWNESS:
        return None
    text = (
        f"Cllr's per-trial costs are very skewed (skewness of the estimate {gamma:.2f}, "
        f"at least {MAX_CLLR_SKEWNESS:g}; {n_pos:.0f} targets, {n_neg:.0f} non-targets): a "
        "few misjudged trials carry most of the cost, and a test set this small often holds "
        "too few of them. No interval held its level there in mlci's coverage study "
        "(docs/validation.md, 'Cllr intervals (session 9)'); treat the interval as "
        "optimistic (its upper bound too low), or collect more trials of the smaller class."
    )
    warn(text, NearBoundWarning)
    return text


def warn_min_cllr_bias(estimate: float, dist: np.ndarray) -> str | None:
    """Warn (and return the message) when the replicates of the minimum Cllr lie below the
    estimate by more than :data:`MAX_MIN_CLLR_BIAS` of their standard deviation."""
    d = np.asarray(dist, dtype=float)
    d = d[np.isfinite(d)]
    sd = float(d.std(ddof=1)) if len(d) > 1 else 0.0
    if not sd > 0:
        return None
    ratio = (estimate - float(d.mean())) / sd
    if not ratio > MAX_MIN_CLLR_BIAS:
        return None
    text = (
        f"The minimum Cllr is optimistic: PAV calibrates on the test set itself, and its "
        f"replicates lie {ratio:.2f} standard deviations below the estimate (a bias beyond "
        f"{MAX_MIN_CLLR_BIAS:g} of them cannot be ignored). The true bias is larger than the "
        "bootstrap's, so the interval sits too low: in mlci's coverage study "
        "(docs/validation.md, 'Cllr intervals (session 9)') placeholder. Read the "
        "estimate and its interval as a lower limit, or report the actual Cllr of scores "
        "calibrated on separate data."
    )
    warn(text, IrregularEstimandWarning)
    return text
