"""``correction="maxt"`` for the pairs of ``compare`` whose interval and p-value are not
the bootstrap's (Tango's interval, the MOVER interval of a ROC AUC pair near the edge).

The single-step maxT adjusted p-value of a pair (Westfall & Young 1993, alg. 2.8) is
``P*(max_j |T*_j| >= |t_k|)``, ``T*_j`` the bootstrap's studentized differences: it is at
least the pair's bootstrap-t p-value ``P*(|T*_k| >= |t_k|)`` because the maximum is at
least the pair's own ``|T*_k|``.  A pair with its own test has no such bound: its
unadjusted p-value is that test's (MOVER's inversion, Tango's score test), and near the
edge, where the own test replaced the bootstrap because the bootstrap distribution is too
narrow, the maxT p-value read from ``|t_k|`` came out *below* it (a single MOVER pair:
adjusted 0.0050, unadjusted 0.0055; tests/comparison/test_paired_auc_edge.py).

Here the own p-value ``p_k`` is carried to the max-|t| scale through the pair's own
bootstrap distribution: at ``t_k'``, the ``1 - p_k`` quantile of ``|T*_k|``, the adjusted
p-value is ``p_k · P*(max_j |T*_j| >= t_k') / P*(|T*_k| >= t_k')`` (at most 1): the own
p-value times the factor by which the maximum over the pairs exceeds the pair's own tail
there, at least 1 (the maximum is at least ``|T*_k|``) and exactly 1 with a single pair,
so the adjusted p-value is never below the unadjusted one and equals it for one pair.
The pair's simultaneous interval is likewise its own interval at the marginal level the
simultaneous critical value ``c`` gives it, ``max(level, P*(|T*_k| <= c))``: with one
pair, its interval (a wider one with more pairs).  One-sided alternatives use the
signed ``T*`` in the direction of H1, as :func:`mlci.compare`'s maxT does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..intervals.bootstrap import quantiles

__all__ = ["own_pair_maxt"]


def _t_star(d_hat: np.ndarray, d_dist: np.ndarray, d_se: np.ndarray, alternative: str) -> Any:
    """The bootstrap's studentized differences on the maxT scale (rows with a NaN and
    pairs without spread left out, as ``compare``'s ``_max_t``) and the pairs kept."""
    ok = d_se > 0
    rows = ~np.isnan(d_dist).any(axis=1)
    sign = {"two-sided": 0.0, "greater": 1.0, "less": -1.0}[alternative]
    with np.errstate(invalid="ignore", divide="ignore"):
        centred = (d_dist[rows][:, ok] - d_hat[ok]) / d_se[ok]
    return (np.abs(centred) if sign == 0.0 else sign * centred), ok


def own_pair_maxt(
    own: Mapping[int, Callable[[float], tuple[float, float]] | None],
    pvals: np.ndarray,
    p_maxt: np.ndarray,
    sim: tuple[np.ndarray, np.ndarray],
    boot: tuple[np.ndarray, np.ndarray, np.ndarray],
    crit: float,
    confidence_level: float,
    alternative: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The maxT p-values and simultaneous bounds of ``compare`` with the pairs of ``own``
    (pair index: its interval at a given level, or None to keep the bootstrap's
    simultaneous bounds) carried as the module says.

    ``pvals`` are the unadjusted p-values (the own pairs' from their own tests),
    ``p_maxt`` and ``sim = (low, high)`` the maxT p-values and simultaneous bounds read
    from the bootstrap, ``boot = (d_hat, d_dist, d_se)`` the differences, their bootstrap
    replicates (B, pairs) and standard errors, ``crit`` the simultaneous critical value.

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> dist = 0.1 + 0.02 * g.standard_normal((999, 1))
    >>> p, lo, hi = own_pair_maxt({0: lambda lev: (0.03, 0.2)}, np.array([0.004]),
    ...                           np.array([0.002]), (np.array([0.05]), np.array([0.15])),
    ...                           (np.array([0.1]), dist, np.array([0.02])), 1.96, 0.95,
    ...                           "two-sided")
    >>> float(p[0]), float(lo[0]), float(hi[0])  # one pair: its own p-value and interval
    (0.004, 0.03, 0.2)
    """
    p_out = np.array(p_maxt, dtype=float)
    low, high = np.array(sim[0], dtype=float), np.array(sim[1], dtype=float)
    if not own:
        return p_out, low, high
    d_hat, d_dist, d_se = boot
    t_star, ok = _t_star(d_hat, d_dist, d_se, alternative)
    col = np.cumsum(ok) - 1  # a kept pair's column of t_star
    t_max = t_star.max(axis=1) if t_star.size else np.empty(0)
    for k, interval in own.items():
        p_k = float(pvals[k])
        if ok[k] and t_max.size and np.isfinite(p_k):
            mine = t_star[:, col[k]]
            t_eq = float(quantiles(mine[:, None], np.array([1.0 - p_k]))[0])
            tail = np.sum(mine >= t_eq - 1e-12)
            factor = np.sum(t_max >= t_eq - 1e-12) / tail if tail else 1.0
            p_out[k] = min(1.0, p_k * max(1.0, float(factor)))
        else:
            p_out[k] = max(p_k, float(p_out[k]))
        if interval is not None:
            level = confidence_level
            if ok[k] and t_max.size:
                level = max(level, float(np.mean(t_star[:, col[k]] <= crit)))
            low[k], high[k] = interval(min(level, 1.0 - 1e-9))
    return p_out, low, high
