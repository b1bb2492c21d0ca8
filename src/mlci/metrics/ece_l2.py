"""The debiased l2 calibration error (``ece_debiased``) near 0: its signal-to-noise and
``method="auto"``'s reason by it (issue 20; design search seed 11, watch list #18).

A calibrated model's ``ece_debiased`` is 0, on the edge of its range; the debiased square
before its root (:func:`l2_signal`) is about normal around the population square with a
delta-method standard error, so ``sq / se`` says how far the estimate is from 0 in its own
noise.  Study: ``scripts/ece_l2_auto_study.py`` (the bootstrap intervals) and
``scripts/ece_l2_squared_interval.py`` (a candidate interval on the squared scale, not
adopted); docs/validation.md, "The default ROC band and the l2 ECE near 0".
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..results import AnalyticInterval
from ._base import safe_div

__all__ = [
    "L2_AUTO",
    "L2_NEAR_ZERO",
    "L2_NEAR_ZERO_REASON",
    "l2_auto_method",
    "l2_near_zero_interval",
    "l2_signal",
    "l2_squared_interval",
]


def l2_signal(total: np.ndarray, c: int, n_bins: int) -> tuple[float, float]:
    """The debiased squared l2 calibration error before its root and clip, and its
    standard error by the delta method: ``(sq, se)`` with ``sq = mean_c sum_b (n_b/n)
    ((ybar_b - pbar_b)^2 - ybar_b (1 - ybar_b) / (n_b - 1))`` (bins of at least two
    samples; the square of ``ece_debiased`` when positive) and ``se^2 = mean_c^2 sum_b
    (n_b/n)^2 (4 g_b v_b + 2 v_b^2)``, ``v_b = ybar_b (1 - ybar_b) / (n_b - 1)`` the
    variance of the bin's gap and ``g_b = max(gap_b^2 - v_b, 0)`` its debiased square
    (``Var(X^2) = 4 mu^2 s^2 + 2 s^4`` for ``X ~ N(mu, s^2)``).  ``sq / se`` measures how
    far the estimate is from 0, the calibrated model's value, in its own noise: the
    rule of :func:`l2_auto_method`.

    Examples
    --------
    >>> total = np.array([[10.0, 5.0, 4.0, 20.0, 16.0, 16.0]])  # 2 bins of (n, sum y, sum p)
    >>> sq, se = l2_signal(total, 1, 2)
    >>> round(sq, 5), round(se, 5)
    (-0.01154, 0.01531)
    """
    parts = np.asarray(total, dtype=float).reshape(-1, c, n_bins, 3)[0]
    cnt, sy, sp = parts[..., 0], parts[..., 1], parts[..., 2]
    n = cnt.sum(axis=1, keepdims=True)
    big = cnt >= 2
    ybar = safe_div(sy, cnt)
    gap2 = safe_div(sy - sp, cnt) ** 2
    v = np.where(big, ybar * (1.0 - ybar) / np.where(big, cnt - 1.0, 1.0), 0.0)
    w = np.where(big, safe_div(cnt, n), 0.0)
    term = np.where(big, gap2 - v, 0.0)  # an empty bin's gap is NaN
    sq = float(np.sum(w * term, axis=1).mean())
    var = np.sum(w * w * (4.0 * np.maximum(term, 0.0) * v + 2.0 * v * v), axis=1)
    return sq, float(np.sqrt(var.sum()) / c)


#: ``method="auto"`` of the debiased l2 calibration error: no interval held its level in
#: the coverage study, the normal interval came closest (0.89-0.99 for miscalibrated
#: models, BCa 0.59-0.89, percentile 0.81-0.93, basic 0.53-0.89; docs/calibration.md)
L2_AUTO = (
    "normal",
    "normal: the debiased l2 calibration error with its bootstrap standard error (no "
    "interval held its level in mlci's coverage study; the normal one came closest, "
    "0.89-0.99, where BCa covered 0.59-0.89; docs/calibration.md)",
)
#: ``ece_debiased`` is "near 0" when its debiased square is below this many of its
#: standard errors (``details["signal_to_noise"]``, :func:`l2_signal`): there the test sets
#: of a calibrated model (truth 0) and of slightly miscalibrated ones (truth 0.008-0.02
#: with 15 bins) are alike (median signal-to-noise -0.1 to 1.0 at n = 100-5,000), and no
#: bootstrap interval held both: the normal one covered 0.85-0.89 of a calibrated model's
#: test sets and 0.88-0.99 of the slightly miscalibrated ones, BCa 0.96-0.98 and
#: 0.55-0.61, the basic 0.95-0.98 and 0.40-0.62, the percentile 0.69-0.74 and 0.71-0.79
#: (scripts/ece_l2_auto_study.py, 300-600 test sets a cell), where the interval of the
#: square (:func:`l2_squared_interval`) covered 0.97-1.00 of both, and 0.94-0.96 from a
#: signal-to-noise of about 1 on (scripts/ece_l2_squared_interval.py, 1,000 test sets a
#: cell; docs/validation.md, "The default ROC band and the l2 ECE near 0")
L2_NEAR_ZERO = 2.0
L2_NEAR_ZERO_REASON = (
    "normal-squared: the normal interval of the debiased square of the l2 calibration "
    "error (delta-method standard error), truncated at 0 and square-rooted; the square is "
    "within {k:g} standard errors of 0 (signal-to-noise {z:.3g}), where a calibrated and a "
    "slightly miscalibrated model give alike test sets: there it covered 0.97-1.00 of both "
    "in mlci's study, where the bootstrap's normal interval covered 0.85-0.89 of a "
    "calibrated model's and BCa 0.55-0.61 of the others' (docs/validation.md, 'The "
    "default ROC band and the l2 ECE near 0')"
)


def l2_squared_interval(
    sq: float, se: float, confidence_level: float, alternative: str = "two-sided"
) -> tuple[float, float]:
    """The interval of ``ece_debiased`` from the normal interval of its debiased square
    ``sq`` (standard error ``se``, :func:`l2_signal`), truncated at 0 and square-rooted
    (at most 1): two-sided ``[sqrt(max(sq - z se, 0)), sqrt(max(sq + z se, 0))]`` with ``z``
    the normal ``(1 + level) / 2`` quantile; ``"less"`` ``[0, sqrt(max(sq + z se, 0))]``
    and ``"greater"`` ``[sqrt(max(sq - z se, 0)), 1]`` with the ``level`` quantile.  A
    monotone map of an interval of the square, so it keeps that interval's coverage; at a
    square of 0 (a calibrated model) it misses only above.

    Examples
    --------
    >>> lo, hi = l2_squared_interval(0.0004, 0.0005, 0.95)
    >>> round(lo, 4), round(hi, 4)
    (0.0, 0.0371)
    >>> l2_squared_interval(0.01, 0.001, 0.95, "greater")[1]
    1.0
    """
    lv = float(confidence_level)
    from scipy.special import ndtri  # (here: the metrics import without scipy, mt's CLI)

    z = float(ndtri(0.5 + lv / 2 if alternative == "two-sided" else lv))
    lo = float(np.sqrt(max(sq - z * se, 0.0)))
    hi = min(float(np.sqrt(max(sq + z * se, 0.0))), 1.0)
    if alternative == "less":
        return 0.0, hi
    if alternative == "greater":
        return min(lo, 1.0), 1.0
    return min(lo, hi), hi


def l2_near_zero_interval(sq: float, se: float) -> AnalyticInterval | None:
    """``auto``'s interval of ``ece_debiased`` near 0 (signal-to-noise ``sq / se`` below
    :data:`L2_NEAR_ZERO`; :func:`l2_squared_interval`), or None away from it.

    Examples
    --------
    >>> rec = l2_near_zero_interval(0.0004, 0.0005)
    >>> rec.method, [round(b, 4) for b in rec(0.95)[:2]]
    ('normal-squared', [0.0, 0.0371])
    >>> l2_near_zero_interval(0.01, 0.001) is None
    True
    """
    if not (se > 0 and np.isfinite(sq)) or sq / se >= L2_NEAR_ZERO:
        return None
    reason = L2_NEAR_ZERO_REASON.format(k=L2_NEAR_ZERO, z=sq / se)
    # a partial of a module function: the result pickles
    return AnalyticInterval("normal-squared", reason, partial(l2_squared_interval, sq, se))


def l2_auto_method(signal_to_noise: float) -> tuple[str, str]:
    """``method="auto"`` of ``ece_debiased`` from the replicates: the normal interval with
    its reason (``auto`` gives :func:`l2_near_zero_interval` in its place near 0, for one
    column of independent samples and equal-width bins, the design studied).

    Examples
    --------
    >>> l2_auto_method(9.0) == L2_AUTO
    True
    """
    return L2_AUTO
