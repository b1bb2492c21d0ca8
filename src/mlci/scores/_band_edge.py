"""Grid points of a ROC band whose interval collapsed onto 0 or 1 (issue 20, item 1).

A TPR at a fixed FPR (or threshold) that is 1 in the sample stays 1 in all but a few
replicates when no positive is near the threshold: the percentile (and BCa) band is then
the single point [1, 1], at any number of positives, with no warning (the search of
``scripts/design_search_scores.py``, seed 10: a pointwise band covering 0.000 of 150 test
sets with 19 positives and a true TPR of 0.99998).  Such a point gets the Wilson score
interval of its count instead, ``[n / (n + z^2), 1]`` (or ``[0, z^2 / (n + z^2)]`` at 0),
with ``z`` the normal quantile of the level (the sup-t critical value in a simultaneous
band): the interval of ``n`` of ``n`` successes (Wilson 1927; Brown, Cai & DasGupta 2001),
the rule of three's neighbour.  Points whose interval has any width are unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import ndtri


def edge_points(est: Any, low: Any, high: Any, fixed: np.ndarray) -> np.ndarray:
    """Indices of the grid points whose interval collapsed onto an estimate of 0 or 1
    (fewer than ``alpha / 2`` of the replicates moved off it), except the points
    ``fixed`` by construction (TPR = 1 at FPR = 1)."""
    est = np.asarray(est, dtype=float)
    at_edge = (est == 0.0) | (est == 1.0)
    collapsed = (np.asarray(low) == est) & (np.asarray(high) == est)
    return np.flatnonzero(at_edge & collapsed & ~fixed)


def wilson_at_edge(
    est: np.ndarray, low: np.ndarray, high: np.ndarray, idx: np.ndarray, n: float, z: float
) -> tuple[np.ndarray, np.ndarray]:
    """``low``/``high`` with the points ``idx`` replaced by the Wilson interval of ``n``
    of ``n`` (estimate 1) or 0 of ``n`` (estimate 0)."""
    low, high = np.array(low, dtype=float), np.array(high, dtype=float)
    reach = z * z / (n + z * z)
    top = est[idx] == 1.0
    low[idx] = np.where(top, 1.0 - reach, 0.0)
    high[idx] = np.where(top, 1.0, reach)
    return low, high


def edge_band(
    res: Any, x: np.ndarray, kind: str, n: float, level: float, crit: float | None
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The pointwise band of ``res`` (a band's BootstrapResult on the grid ``x``) with
    its points stuck at 0 or 1 given the Wilson interval of ``n`` (``z``: the sup-t
    ``crit`` of a simultaneous band, at least the level's normal quantile); a two-sided
    band only, ``n`` > 0 (the rates' count: the positives for a TPR).  Also the band's
    ``extra`` entries naming those points."""
    est = np.asarray(res.estimate, dtype=float)
    low, high = res.confidence_interval
    if n <= 0 or res.alternative != "two-sided":
        return low, high, {}
    fixed = (np.asarray(x) >= 1) if kind == "vertical" else np.zeros(est.shape, dtype=bool)
    idx = edge_points(est, low, high, fixed)
    if not idx.size:
        return low, high, {}
    # the sup-t value is at least the pointwise one (0 when no point of the grid varies)
    z = max(crit or 0.0, float(ndtri(0.5 + level / 2)))
    low, high = wilson_at_edge(est, low, high, idx, n, z)
    return low, high, {"edge_points": idx, "edge_interval": "wilson"}
