"""The exact interval of a two-class metric on a test set without a single error.

F1, F_beta, MCC and Cohen's kappa of a test set whose every sample is right are at the
top of their range, and every bootstrap replicate is too: the bootstrap distribution has
no spread and every bootstrap interval is the point ``[1, 1]``, which misses the truth
of every system that is not perfect (with one expected error in 100 samples, 37% of the
test sets have none).  What the data do say is exact: given the class sizes ``n0`` and
``n1``, the errors of each class are binomial, so a test set without an error has
probability ``(1 - a)^n1 (1 - b)^n0`` for the false-negative rate ``a`` and the
false-positive rate ``b``.  The rates not rejected by that exact test at level
``alpha / 2`` (one-sided) form the region ``-n1 log(1 - a) - n0 log(1 - b) <= lambda``
with ``lambda = -log(alpha / 2)``, as Clopper-Pearson's interval is for one rate
(whose bound for ``0`` errors in ``n`` is ``1 - (alpha / 2)^(1/n)``).  Every metric
here falls as either rate grows, so the lowest value of the metric over that region
(its boundary) is the interval's lower end; the upper end is the metric's maximum.  On
the event "no error" the interval misses only where the true rates lie outside the
region, which happens with probability at most ``alpha / 2`` (the exact test's level);
the metric is evaluated at the test set's class shares.  The rule that gives it:
:mod:`mlci.engine.no_error`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .formulas import one_sided

__all__ = ["NoErrorTable", "no_error_interval"]

#: points of the first, coarse search of the region's boundary
_GRID = 2001


@dataclass(frozen=True)
class NoErrorTable:
    """A two-class test set without an error: its class sizes ``(n0, n1)`` (negatives,
    positives: the kernel's class order) and ``evaluate``, the metric of rows of a
    confusion table ``(tn, fp, fn, tp)`` (an ``(m, 4)`` array -> ``(m,)``)."""

    class_sizes: tuple[int, int]
    evaluate: Callable[[np.ndarray], np.ndarray] = field(repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The class sizes (``evaluate`` is code, not data)."""
        return {"class_sizes": list(self.class_sizes)}


def _boundary(table: NoErrorTable, lam: float, t: np.ndarray) -> np.ndarray:
    """The metric on the region's boundary, ``t`` the share of ``lam`` taken by the
    positives' errors (``t = 1``: every error a false negative)."""
    n0, n1 = table.class_sizes
    a = -np.expm1(-t * lam / n1)
    b = -np.expm1(-(1.0 - t) * lam / n0)
    rows = np.stack([n0 * (1 - b), n0 * b, n1 * a, n1 * (1 - a)], axis=-1)
    return np.asarray(table.evaluate(rows), dtype=float).reshape(-1)


def no_error_lower(table: NoErrorTable, tail: float) -> float:
    """The lowest metric on the boundary of the rates not rejected at one-sided level
    ``tail`` (a coarse grid, then a bounded search around its lowest point)."""
    from scipy.optimize import minimize_scalar

    lam = -np.log(tail)
    t = np.linspace(0.0, 1.0, _GRID)
    values = _boundary(table, lam, t)
    i = int(np.nanargmin(values))
    lo, hi = t[max(i - 1, 0)], t[min(i + 1, _GRID - 1)]
    best = float(values[i])
    if hi > lo:
        res = minimize_scalar(
            lambda s: float(_boundary(table, lam, np.array([s]))[0]),
            bounds=(lo, hi),
            method="bounded",
            options={"xatol": 1e-10},
        )
        best = min(best, float(res.fun))
    return best


def no_error_interval(
    table: NoErrorTable,
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] | None = (0.0, 1.0),
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """``(low, high, details)`` of a metric on a test set without an error (the module's
    exact interval): ``low`` the metric's lowest value over the false-negative and
    false-positive rates an exact test of "no error" does not reject, ``high`` the
    metric's value on the test set (its maximum).

    Examples
    --------
    >>> import numpy as np
    >>> def f1(rows):  # (tn, fp, fn, tp) -> F1
    ...     tn, fp, fn, tp = np.moveaxis(rows, -1, 0)
    ...     return 2 * tp / (2 * tp + fp + fn)
    >>> table = NoErrorTable((83, 17), f1)
    >>> low, high, _ = no_error_interval(table, confidence_level=0.95)
    >>> round(float(low), 4), float(high)
    (0.8919, 1.0)

    F1 does not depend on the true negatives: its lowest point puts every error among
    the 17 positives, and ``1 - low`` is about ``-log(0.025) / (2 * 17)``.
    """
    alpha = 1.0 - confidence_level
    n0, n1 = table.class_sizes
    top = float(table.evaluate(np.array([[n0, 0.0, 0.0, n1]], dtype=float)).reshape(-1)[0])
    tail = alpha / 2 if alternative == "two-sided" else alpha
    low = no_error_lower(table, tail) if alternative != "less" else top
    lo, hi = one_sided(low, top, alternative, bounds)
    info = {"no_error": {"class_sizes": [n0, n1]}, "edge_fallback": 1}
    return lo, hi, info | {"edge_fallback_method": "exact_no_error"}
