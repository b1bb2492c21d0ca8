"""MOVER of the two classes' modified Wilson intervals: balanced accuracy's analytic
interval (the rule that uses it: :mod:`mlci.engine.class_edge`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .formulas import one_sided

__all__ = ["mover_wilson_interval"]


def mover_wilson_interval(
    counts: Any,
    wilson: Callable[..., tuple[Any, Any, Any]],
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] | None = (0.0, 1.0),
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Balanced accuracy's MOVER interval from the two classes' counts.

    ``counts = (tn, n_neg, tp, n_pos)``: balanced accuracy is ``(s + r) / 2`` with the
    specificity ``s = tn / n_neg`` and the recall ``r = tp / n_pos``, two proportions of
    independent classes.  Each gets Brown, Cai & DasGupta's (2001, sec. 4.1.1) modified
    Wilson interval ``(l_i, u_i)`` (``wilson``: :func:`mlci.intervals.bootstrap.
    wilson_interval`, passed in by its caller there, called with ``modified=True``;
    one-sided for a one-sided ``alternative``), and the MOVER
    ("method of variance estimates recovery", Zou & Donner 2008, eq. 3; Newcombe 1998's
    square-and-add for a difference) interval of their mean is
    ``est - sqrt((s - l_s)^2 + (r - l_r)^2) / 2`` to
    ``est + sqrt((u_s - s)^2 + (u_r - r)^2) / 2``: each class's distance to its own bound
    stands for its own variance, so a class without an error still contributes its
    Wilson width (a standard error of 0 would give none).

    Examples
    --------
    >>> from mlci.intervals.bootstrap import wilson_interval
    >>> low, high, info = mover_wilson_interval(
    ...     (890, 900, 98, 100), wilson_interval, confidence_level=0.95
    ... )
    >>> round(float(low), 4), round(float(high), 4), info["edge_fallback_method"]
    (0.959, 0.993, 'mover_wilson')
    """
    tn, n_neg, tp, n_pos = (float(c) for c in counts)
    k, n = np.array([tn, tp]), np.array([n_neg, n_pos])
    rate = k / n
    lo = np.empty(2)
    hi = np.empty(2)
    for i in range(2):
        lo[i], hi[i], _ = wilson(
            float(rate[i]),
            float(n[i]),
            None,
            confidence_level=confidence_level,
            alternative=alternative,
            modified=True,
        )
    est = float(rate.mean())
    low = np.asarray(est - 0.5 * np.sqrt(np.sum((rate - lo) ** 2)))
    high = np.asarray(est + 0.5 * np.sqrt(np.sum((hi - rate) ** 2)))
    low, high = one_sided(low, high, alternative, bounds)
    info = {"edge_fallback": 1, "edge_fallback_method": "mover_wilson"}
    return low, high, info | {"class_counts": tuple(int(c) for c in counts)}
