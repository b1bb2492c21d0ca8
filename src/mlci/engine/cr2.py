"""The CR2 variance of a ratio of cluster totals: one computation for every caller.

A proportion ``k / n`` over clusters (conditions, LLM questions grouped by a cluster
variable), or the weighted mean ``sum T_g / sum W_g`` of cluster totals ``T_g`` with
cluster weights ``W_g``, is the least-squares coefficient of a regression of the
per-sample values on a constant (one constant per stratum when strata are given, the
estimate then being the weighted mean over every sample).  Its bias-reduced
linearization (CR2) variance (Bell & McCaffrey 2002) has a closed form: the leverage of
cluster ``g`` in its stratum ``s`` is ``h_g = W_g / W_s``, the adjustment matrix of its
block is ``(I - H_gg)^(-1/2)`` whose only non-trivial eigenvalue acts on the constant
direction, and the variance is

    V = sum_g z_g^2 / (1 - h_g),    z_g = (T_g - ybar_s W_g) / W,

with ``ybar_s`` the stratum's mean and ``W`` the total weight.  This is what R's
``clubSandwich::vcovCR(lm(y ~ 1, weights = w), cluster, type = "CR2")`` gives (to
rounding, tests/r/test_r_cluster.py); with equal clusters it equals the CR1 variance
``G / (G - 1) sum_g z_g^2``.

The engine's linearized standard error of a proportion over conditions
(:mod:`mlci.engine.linearize`) and the LLM estimands' (:mod:`mlci.llm.linear`) both
call :func:`ratio_influence` and :func:`cr2_variance`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["cr2_factor", "cr2_variance", "ratio_influence"]


def cr2_factor(leverage: np.ndarray) -> np.ndarray:
    """``1 / (1 - h)``, and 0 where ``h = 1`` (the only cluster of its stratum: its
    influence is 0 and it contributes nothing).

    Examples
    --------
    >>> cr2_factor(np.array([0.5, 0.25, 1.0]))
    array([2.        , 1.33333333, 0.        ])
    """
    h = np.asarray(leverage, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(h < 1.0 - 1e-12, 1.0 / (1.0 - h), 0.0)


def ratio_influence(totals: Any, weights: Any, strata: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Influence ``z`` and leverage ``h`` of every cluster in ``sum T / sum W``.

    Parameters
    ----------
    totals : array_like, shape (..., G)
        ``T_g``, the cluster totals (e.g. correct answers per cluster); leading axes are
        several estimates over the same clusters (e.g. models).
    weights : array_like, shape (G,)
        ``W_g``, the cluster weights (e.g. samples per cluster, the proportion's
        denominator).
    strata : array_like of int, shape (G,), optional
        Stratum of every cluster (0-based codes); the means are then taken per stratum.

    Returns
    -------
    z : ndarray, shape (..., G)
        ``(T_g - ybar_s W_g) / W``.
    leverage : ndarray, shape (G,)
        ``W_g / W_s``.

    Examples
    --------
    >>> z, h = ratio_influence([3.0, 1.0], [4.0, 4.0])
    >>> z, h
    (array([ 0.125, -0.125]), array([0.5, 0.5]))
    """
    T = np.asarray(totals, dtype=float)
    Wg = np.asarray(weights, dtype=float)
    W = float(Wg.sum())
    s = np.zeros(Wg.shape, dtype=np.intp) if strata is None else np.asarray(strata, np.intp)
    n_strata = int(s.max()) + 1 if s.size else 1
    Ws = np.bincount(s, weights=Wg, minlength=n_strata)
    flat = T.reshape(-1, T.shape[-1])
    Ts = np.stack([np.bincount(s, weights=t, minlength=n_strata) for t in flat])
    with np.errstate(invalid="ignore", divide="ignore"):
        ybar = np.where(Ws > 0, Ts / np.where(Ws > 0, Ws, 1.0), 0.0)
        lev = np.where(Ws[s] > 0, Wg / np.where(Ws[s] > 0, Ws[s], 1.0), 0.0)
    z = (flat - ybar[:, s] * Wg) / W
    return z.reshape(T.shape), lev


def cr2_variance(totals: Any, weights: Any, strata: Any = None) -> np.ndarray | float:
    """The CR2 variance of ``sum T / sum W`` over clusters (the module docstring).

    Parameters
    ----------
    totals, weights, strata
        As in :func:`ratio_influence`.

    Returns
    -------
    float or ndarray of shape (...)
        One variance per estimate (a float for 1-d ``totals``).

    Examples
    --------
    A proportion over three clusters of sizes 2, 3 and 5:

    >>> v = cr2_variance([1.0, 3.0, 2.0], [2.0, 3.0, 5.0])
    >>> round(float(v) ** 0.5, 6)
    0.202661
    """
    z, lev = ratio_influence(totals, weights, strata)
    v = (z**2 * cr2_factor(lev)).sum(axis=-1)
    return float(v) if np.ndim(v) == 0 else v
