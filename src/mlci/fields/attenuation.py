"""How much item noise attenuates a system-level correlation (Spearman 1904).

A system-level correlation correlates the systems' mean scores over the study's items.
Each mean is the system's score over infinitely many items plus the noise of its items
(the system x item interaction and the cell's error), so the correlation at ``n_items``
items is pulled toward 0: for Pearson's r and noise independent between the two score
matrices by the factor ``sqrt(rel_x * rel_y)``, the reliabilities of the two matrices'
system means (Spearman 1904; Lord & Novick 1968, sec. 3.9).  Resampling items (or
systems and items) keeps the number of items, so the bootstrap replicates sit around the
attenuated value and the interval misses the correlation over the items' population
(docs/correlations.md, "Few items").

The estimate here is the two-way (systems x items) generalizability analysis of both
matrices at once (Cronbach, Gleser, Nanda & Rajaratnam 1972; Brennan 2001, ch. 9 for the
multivariate case): with ``S`` the systems' and ``R`` the residual (systems x items)
mean squares and cross-products of the pair, the systems' (co)variance over infinitely many
items is ``(S - R) / n_items`` and the error (co)variance of the means ``R / n_items``.
The item main effect is common to every system and cancels.  So

* reliability of a matrix's system means: ``1 - R_xx / S_xx`` (Hoyt's coefficient, the
  consistency ICC of the means, ICC(3, k));
* the Pearson correlation of the means at these items: ``S_xy / sqrt(S_xx S_yy)``, the
  sample value exactly;
* over infinitely many items: ``(S_xy - R_xy) / sqrt((S_xx - R_xx)(S_yy - R_yy))``, the
  correction for attenuation with the residuals' covariance (a metric and humans that
  react alike to a system's output on an item share residual, which the plain
  ``sqrt(rel_x rel_y)`` would read as attenuation).

For Kendall's and Spearman's coefficients the two Pearson values are carried to the
coefficient's scale by the bivariate-normal relations ``tau = (2/pi) asin(r)`` and
``rho_s = (6/pi) asin(r/2)`` (Kendall 1948; Pearson 1907), and the expected attenuation is
their difference.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["attenuation", "attenuation_ratio"]

#: warn when the expected attenuation exceeds this fraction of the distance from the
#: estimate to the interval's end on its side: a normal 95% interval shifted by 0.18 of
#: its half-width covers 0.935, by 0.25 about 0.92; in scripts/correlation_attenuation.py
#: (docs/validation.md) it fires in at least half the misses of all 13 short designs with
#: 8 or more systems
WARN_RATIO = 0.25


def _on_scale(r: float, coefficient: str) -> float:
    """A Pearson correlation carried to ``coefficient``'s scale under bivariate normality."""
    if coefficient == "kendall_tau":
        return 2.0 / math.pi * math.asin(r)
    if coefficient == "spearman":
        return 6.0 / math.pi * math.asin(r / 2.0)
    return r


def attenuation(x: np.ndarray, y: np.ndarray, coefficient: str) -> dict[str, Any]:
    """The generalizability analysis of a pair of ``(n_systems, n_items)`` matrices.

    Returns the reliabilities of both matrices' system means, the Pearson correlation of
    the means over infinitely many items (NaN where a matrix's systems do not differ
    beyond its item noise: reliability <= 0), and the expected attenuation on the scale
    of ``coefficient`` (the coefficient at these items minus over infinitely many; NaN
    with fewer than 2 items or 3 systems).
    """
    ns, ni = x.shape
    out: dict[str, Any] = {
        "reliability_metric": math.nan,
        "reliability_human": math.nan,
        "pearson_all_items": math.nan,
        "attenuation": math.nan,
    }
    if ni < 2 or ns < 3:
        return out

    def parts(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows, cols, grand = a.mean(axis=1), a.mean(axis=0), a.mean()
        return rows - grand, a - rows[:, None] - cols[None, :] + grand

    rx, ex = parts(x)
    ry, ey = parts(y)
    df_res = (ns - 1) * (ni - 1)
    s_xx, s_yy, s_xy = (ni * float(u @ v) / (ns - 1) for u, v in ((rx, rx), (ry, ry), (rx, ry)))
    r_xx, r_yy, r_xy = (float(np.sum(u * v)) / df_res for u, v in ((ex, ex), (ey, ey), (ex, ey)))
    if s_xx <= 0 or s_yy <= 0:  # a matrix whose systems' means are all equal
        return out
    out["reliability_metric"] = 1.0 - r_xx / s_xx
    out["reliability_human"] = 1.0 - r_yy / s_yy
    if s_xx > r_xx and s_yy > r_yy:
        r_inf = (s_xy - r_xy) / math.sqrt((s_xx - r_xx) * (s_yy - r_yy))
        out["pearson_all_items"] = r_inf
        r_n = s_xy / math.sqrt(s_xx * s_yy)
        out["attenuation"] = _on_scale(max(-1.0, min(1.0, r_n)), coefficient) - _on_scale(
            max(-1.0, min(1.0, r_inf)), coefficient
        )
    return out


def attenuation_ratio(bias: float, estimate: float, low: float, high: float) -> float:
    """The expected attenuation ``bias`` (estimate minus the value over infinitely many
    items) over the distance from the estimate to the interval's end that the correction
    moves toward: the upper end when the correction raises the estimate (``bias < 0``),
    the lower end when it lowers it.  Infinite where that end is the estimate itself;
    NaN where ``bias`` is."""
    if not math.isfinite(bias):
        return math.nan
    if bias == 0:
        return 0.0
    room = (high - estimate) if bias < 0 else (estimate - low)
    if not room > 0:
        return math.inf
    return abs(bias) / room
