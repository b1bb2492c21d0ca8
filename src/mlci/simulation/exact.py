"""Exact coverage of a proportion interval (no simulation error)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from ..classical.proportions import proportion_ci
from ..inputs import check_confidence_level, check_positive_int
from .data import _check_open_unit

__all__ = ["exact_proportion_coverage"]


def exact_proportion_coverage(
    n: int,
    p: Any,
    *,
    method: str = "wilson",
    confidence_level: float = 0.95,
    denominator_share: float | None = None,
) -> np.ndarray:
    """Exact coverage of an interval for a proportion of independent samples.

    With ``k ~ Binomial(n, p)`` the coverage of an interval ``[L(k), U(k)]`` is the
    binomial sum ``sum_k P(k) 1[L(k) <= p <= U(k)]`` (Brown, Cai & DasGupta 2001, sec.
    2): no simulation error.  With ``denominator_share=q`` the denominator is itself
    random, ``d ~ Binomial(n, q)`` (recall: the positives among ``n`` iid samples;
    precision: the predicted positives), and ``k | d ~ Binomial(d, p)``; the coverage
    is then the mixture over ``d >= 1`` (the metric is undefined at ``d = 0``).

    Parameters
    ----------
    n : int
        Samples (the denominator, or the samples the denominator is drawn from).
    p : float or array_like of float in (0, 1)
        The true proportion(s).
    method : str, default "wilson"
        Any method of :func:`mlci.proportion_ci`.
    confidence_level : float, default 0.95
    denominator_share : float in (0, 1), optional
        Probability that a sample counts in the denominator.

    Returns
    -------
    ndarray
        The coverage at every ``p`` (shape of ``p``).

    Examples
    --------
    >>> float(exact_proportion_coverage(100, 0.9).round(4))
    0.9364
    >>> float(exact_proportion_coverage(200, 0.9, denominator_share=0.3).round(4))
    0.9529
    """
    n = check_positive_int("n", n)
    cl = check_confidence_level(confidence_level)
    p_arr = np.asarray(p, dtype=float)
    if not np.all((p_arr > 0) & (p_arr < 1)):
        raise ValueError(f"`p` must be strictly between 0 and 1; got {p!r}.")
    flat = p_arr.reshape(-1)
    if denominator_share is None:
        dens, dens_w = np.array([n]), np.array([1.0])
    else:
        q = _check_open_unit("denominator_share", denominator_share)
        dens = np.arange(1, n + 1)
        dens_w = stats.binom.pmf(dens, n, q)
        keep = dens_w > 1e-15
        dens, dens_w = dens[keep], dens_w[keep] / dens_w[keep].sum()
    cover = np.zeros_like(flat)
    for d, wd in zip(dens, dens_w, strict=True):
        k = np.arange(d + 1)
        ci = proportion_ci(k, int(d), method=method, confidence_level=cl).confidence_interval
        inside = (ci.low[:, None] <= flat[None, :]) & (flat[None, :] <= ci.high[:, None])
        cover += wd * np.sum(stats.binom.pmf(k[:, None], d, flat[None, :]) * inside, axis=0)
    return cover.reshape(p_arr.shape)
