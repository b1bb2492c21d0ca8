"""Rates whose bootstrap interval collapsed onto 0 or 1: the Wilson interval instead.

Issue 20, item 1, for :func:`mlci.roc_band` and the class rates of
:func:`mlci.metric_by_group` (found by ``scripts/design_search_scores.py``, seed 10).

A TPR at a fixed FPR (or threshold) that is 1 in the sample stays 1 in all but a few
replicates when no positive is near the threshold: the percentile (and BCa) band is then
the single point [1, 1], at any number of positives, with no warning (the search of
``scripts/design_search_scores.py``, seed 10: a pointwise band covering 0.000 of 150 test
sets with 19 positives and a true TPR of 0.99998).  Such a point gets the Wilson score
interval of its count instead, ``[n / (n + z^2), 1]`` (or ``[0, z^2 / (n + z^2)]`` at 0),
with ``z`` the normal quantile of the level (the sup-t critical value in a simultaneous
band): the interval of ``n`` of ``n`` successes (Wilson 1927; Brown, Cai & DasGupta 2001),
the rule of three's neighbour.  Points whose interval has any width are unchanged.

:func:`mlci.metric_by_group` under ``auto``: a group's rate with a class denominator (fnr,
fpr, tpr, tnr and their synonyms) at a threshold, without an error in that class of the
group, was a BCa interval [0, 0] with a DegenerateIntervalWarning (seed 10 #37: the fnr of
the smallest of 4 groups covered 0.016 of 62 test sets where Wilson's covered 0.984),
where :func:`mlci.operating_point_ci`'s ``auto`` gives a score interval.  It gets the
Wilson interval of its class count (:func:`group_rate_edge`), and the warning goes.
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


#: class rates per group and the class of their denominator (1: positives)
RATE_CLASS = {"tpr": 1, "fnr": 1, "recall": 1, "sensitivity": 1, "tar": 1, "frr": 1,
              "tnr": 0, "fpr": 0, "specificity": 0, "trr": 0, "far": 0}  # fmt: skip


def group_rate_edge(
    est: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    counts: np.ndarray,
    level: float,
    alternative: str = "two-sided",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rates per (group, threshold) ``est`` (G + 1, T) whose interval collapsed onto 0
    or 1, given the Wilson interval of ``counts`` (G + 1,) (the class size of each group
    and overall); also the flat indices (into the rows of ``metric_by_group``) replaced.
    One-sided (``"less"`` at 0, ``"greater"`` at 1: the sides that collapse), the
    one-sided Wilson bound, with the level's one-sided quantile: the two-sided interval
    at ``2 level - 1``'s bound on that side."""
    z = float(ndtri(0.5 + level / 2 if alternative == "two-sided" else level))
    shape = np.shape(est)
    # flat copies in row order (the rows of metric_by_group: group-major)
    e, lo, hi = (np.array(a, dtype=float).reshape(-1) for a in (est, low, high))
    n = np.broadcast_to(np.asarray(counts, dtype=float)[:, None], shape).reshape(-1)
    idx = edge_points(e, lo, hi, n <= 0)
    if idx.size:
        reach = z * z / (n[idx] + z * z)
        top = e[idx] == 1.0
        lo[idx] = np.where(top, 1.0 - reach, 0.0)
        hi[idx] = np.where(top, 1.0, reach)
    return lo.reshape(shape), hi.reshape(shape), idx
