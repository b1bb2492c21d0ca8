"""The score-type intervals of the ROC AUC (issue 20): the set of AUC values ``θ`` with
``|Â - θ| <= z·sqrt(V(θ))``, ``V`` a variance as a function of ``θ`` and the class sizes
(Newcombe 2006, part 2; mlci's ``floored`` variance).  :func:`mlci.auc_score_ci` gives them
from labels and scores; ``method="auto"`` of the ROC AUC's bootstrap drivers gives the
``floored`` one from the same numbers where the bootstrap falls short
(:mod:`mlci.engine.auc_analytic`).  The variants and their references:
:mod:`mlci.classical.auc_score`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .formulas import one_sided, quantile, tails

__all__ = [
    "atom_placement_terms",
    "auc_score_bounds",
    "first_root",
    "nstar_variance",
    "score_bounds",
]


def nstar_variance(a: np.ndarray, m: Any, n: Any) -> np.ndarray:
    """Newcombe's (2006) variance of an AUC ``a`` with ``m`` positives and ``n`` negatives
    (:func:`mlci.newcombe_variance` without the checks)."""
    star = (m + n) / 2 - 1
    return np.asarray(a * (1 - a) / (m * n) * (1 + star * ((1 - a) / (2 - a) + a / (1 + a))))


def first_root(g: Callable[[np.ndarray], np.ndarray], lo: float, hi: float) -> float:
    """The smallest ``x`` in [lo, hi] with ``g(x) <= 0`` (``g(lo) > 0``), to 1e-12."""
    from scipy.optimize import brentq

    grid = np.linspace(lo, hi, 401)
    vals = g(grid)
    k = int(np.argmax(vals <= 0))  # first grid point inside the set
    if k == 0:
        return lo
    return float(brentq(lambda x: float(g(np.array([x]))[0]), grid[k - 1], grid[k], xtol=1e-13))


def score_bounds(
    estimate: float, variance: Callable[[np.ndarray], np.ndarray], z_low: float, z_high: float
) -> tuple[float, float]:
    """``inf`` and ``sup`` of ``{θ in [0, 1] : |estimate - θ| <= z·sqrt(variance(θ))}``
    (``z_low`` below the estimate, ``z_high`` above; ``variance(0) = variance(1) = 0``).

    Examples
    --------
    >>> lo, hi = score_bounds(0.8, lambda t: t * (1 - t) / 10, 1.959964, 1.959964)
    >>> round(lo, 4), round(hi, 4)   # Wilson's interval for 8 of 10
    (0.4902, 0.9433)
    """
    a = float(estimate)

    def below(t: np.ndarray) -> np.ndarray:
        return (a - t) - z_low * np.sqrt(np.maximum(variance(t), 0.0))

    def above(t: np.ndarray) -> np.ndarray:  # reflected: the first t from 1 downwards
        u = 1.0 - t
        return (u - a) - z_high * np.sqrt(np.maximum(variance(u), 0.0))

    low = 0.0 if a <= 0 else first_root(below, 0.0, a)
    high = 1.0 if a >= 1 else 1.0 - first_root(above, 0.0, 1.0 - a)
    return low, high


def auc_score_bounds(
    auc: float,
    variance_positive: float,
    variance_negative: float,
    n_positive: int,
    n_negative: int,
    variant: str = "floored",
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
) -> tuple[float, float, float]:
    """``(low, high, V(auc))`` of :func:`auc_score_ci` from the AUC, the two terms of
    DeLong's variance (the positives' placements' variance over ``m``, the negatives' over
    ``n``) and the class sizes (arguments already checked).

    The ``"floored"`` variant carries DeLong's variance to ``θ`` as
    ``k·θ(1-θ)·V̂/(Â(1-Â))`` with ``k = (t_df / z)²``, ``df`` Welch and Satterthwaite's
    over the two terms: Korn & Graubard's (1998) degrees-of-freedom adjustment of the
    effective size (few samples of a class: few degrees of freedom).

    Examples
    --------
    >>> [round(v, 4) for v in auc_score_bounds(1.0, 0.0, 0.0, 5, 40)]
    [0.785, 1.0, 0.0]
    """
    m, n = int(n_positive), int(n_negative)
    a = float(auc)
    z = float(quantile(tails(confidence_level, alternative)[1]))
    v_delong = variance_positive + variance_negative
    ratio = v_delong / (a * (1 - a)) if 0 < a < 1 and v_delong > 0 else 0.0
    if ratio > 0:
        df = v_delong**2 / (variance_positive**2 / (m - 1) + variance_negative**2 / (n - 1))
        t = float(quantile(tails(confidence_level, alternative)[1], df))
        ratio *= (t / z) ** 2

    def var(t: np.ndarray) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        v = nstar_variance(t, m, n)
        return np.maximum(v, ratio * t * (1 - t)) if variant == "floored" else v

    v_at = float(var(np.array([a]))[0])
    if variant == "modified-wald":
        low, high = a - z * np.sqrt(v_at), a + z * np.sqrt(v_at)
    else:
        low, high = score_bounds(a, var, z, z)
    lo, hi = one_sided(low, high, alternative, (0.0, 1.0))
    return float(lo), float(hi), v_at


def atom_placement_terms(
    u_neg: Any, c_neg: Any, u_pos: Any, c_pos: Any
) -> tuple[float, float, float, int, int]:
    """``(auc, v_pos, v_neg, m, n)``: the AUC and the two terms of DeLong's variance from
    the distinct scores of each class (sorted, higher meaning positive) and their counts.

    ``v_pos`` is the variance (``ddof=1``) of the positives' placements (each one's share
    of negatives below it, ties one half) over ``m``, ``v_neg`` that of the negatives'
    (each one's share of positives above it) over ``n``: the numbers
    :func:`auc_score_bounds` reads (at least 2 samples in each class).

    Examples
    --------
    >>> auc, v_pos, v_neg, m, n = atom_placement_terms([0.0, 1.0], [2, 1], [1.0, 2.0], [1, 2])
    >>> round(auc, 6), m, n   # 8.5 of 9 pairs (one tie)
    (0.944444, 3, 3)
    """
    u_neg, u_pos = np.asarray(u_neg, dtype=float), np.asarray(u_pos, dtype=float)
    c_neg, c_pos = np.asarray(c_neg, dtype=float), np.asarray(c_pos, dtype=float)
    m, n = float(c_pos.sum()), float(c_neg.sum())
    cum_neg = np.concatenate([[0.0], np.cumsum(c_neg)])
    cum_pos = np.concatenate([[0.0], np.cumsum(c_pos)])
    lo_neg = np.searchsorted(u_neg, u_pos, side="left")
    tied_neg = cum_neg[np.searchsorted(u_neg, u_pos, side="right")] - cum_neg[lo_neg]
    place_pos = (cum_neg[lo_neg] + 0.5 * tied_neg) / n
    hi_pos = np.searchsorted(u_pos, u_neg, side="right")
    tied_pos = cum_pos[hi_pos] - cum_pos[np.searchsorted(u_pos, u_neg, side="left")]
    place_neg = (m - cum_pos[hi_pos] + 0.5 * tied_pos) / m
    auc = float(np.sum(c_pos * place_pos) / m)
    v_pos = float(np.sum(c_pos * (place_pos - auc) ** 2) / (m - 1) / m)
    v_neg = float(np.sum(c_neg * (place_neg - auc) ** 2) / (n - 1) / n)
    return auc, v_pos, v_neg, int(m), int(n)
