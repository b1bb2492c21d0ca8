"""The jackknife interval of Kendall's tau on its own scale over few resampled systems.

A global-level Kendall's tau resampling 10-29 systems: session 11's jackknife Fisher-z
interval (``correlation_jackknife``) covered 0.92 and BCa 0.87 of 400 test sets at 20
systems (0.955 at 30), the studentized interval 0.927 and BCa 0.77 at 10
(docs/validation.md, "Kendall's tau over few systems (session 12, kendall)").  Two things
move it:

* Fisher's z is Pearson's variance-stabilizing transform (the variance of r shrinks like
  ``(1 - rho^2)^2``), not tau's (the variance of tau shrinks more slowly near the
  bounds): back from z, the interval of a positive tau has a short upper arm, and the
  truth falls above it;
* the coefficient over all cells counts the pairs of cells within one system (which the
  items alone order), about ``1/n`` of its pairs: over 20 systems its expectation sits
  about 0.016 below the truth (over every population system), and the misses fall below.

This interval is symmetric on the scale of tau, with the delete-one-system jackknife
standard error and Student's quantile on ``n - 1`` degrees of freedom (Quenouille 1956,
Tukey 1958):

* ``tau_(-s)``: the coefficient with system ``s`` deleted (its cells' weights 0);
* ``V = (n - 1)/n sum_s (tau_(-s) - mean)^2``;
* ``tau +- t_{n-1}(1 - alpha/2) sqrt(V)``, clipped to [-1, 1].

Quenouille's bias correction of tau (``tau - (n - 1)(mean_s tau_(-s) - tau)``) moved the
misses above the truth instead (0.923 of 400) and is not used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .correlation_jackknife import delete_one_values

__all__ = [
    "JACKKNIFE_TAU_DESIGNS",
    "JACKKNIFE_TAU_METHOD",
    "TauJackknife",
    "jackknife_tau_applies",
    "tau_jackknife",
    "with_jackknife_tau",
]

JACKKNIFE_TAU_METHOD = "jackknife_tau"
#: ``auto``'s jackknife interval of tau, one row per design:
#: (coefficient, level, resample) -> (from, below) systems (docs/validation.md,
#: "Kendall's tau over few systems (session 12, kendall)").
JACKKNIFE_TAU_DESIGNS: dict[tuple[str, str, str], tuple[int, int]] = {
    ("kendall_tau", "global", "systems"): (10, 30),
}


@dataclass(frozen=True)
class TauJackknife:
    """The interval ``tau +- t_{n-1} sqrt(V)`` (module docstring).

    Attributes
    ----------
    estimate : float
        The coefficient.
    variance : float
        The delete-one jackknife variance ``V``.
    n : int
        The number of systems.
    method : str
    """

    estimate: float
    variance: float
    n: int
    method: str = JACKKNIFE_TAU_METHOD

    def __call__(
        self, confidence_level: float, alternative: str
    ) -> tuple[float, float, dict[str, Any]]:
        from scipy.stats import t

        tail = (1.0 - confidence_level) / (2.0 if alternative == "two-sided" else 1.0)
        half = float(t.isf(tail, self.n - 1)) * math.sqrt(self.variance)
        low = max(-1.0, self.estimate - half) if alternative != "less" else -1.0
        high = min(1.0, self.estimate + half) if alternative != "greater" else 1.0
        extra = {
            "jackknife_tau": {
                "standard_error": math.sqrt(self.variance),
                "df": float(self.n - 1),
            }
        }
        return low, high, extra


def tau_jackknife(
    kernel: Any, estimate: float, n_systems: int, n_items: int
) -> TauJackknife | None:
    """The interval's record for ``kernel`` (a
    :class:`~mlci.metrics.correlation.GridCorrelationKernel`) resampling systems, or None
    where it is undefined (an estimate or a delete-one value undefined, or no spread)."""
    if not math.isfinite(estimate) or n_systems < 3:
        return None
    v = delete_one_values(kernel, n_systems, n_items, "systems")
    if not np.all(np.isfinite(v)):
        return None
    n = n_systems
    var = float((n - 1) / n * np.sum((v - v.mean()) ** 2))
    if not var > 0:
        return None
    return TauJackknife(float(estimate), var, n)


def jackknife_tau_applies(
    coefficient: str, level: str, resample: str, n_systems: int, n_items: int
) -> bool:
    """Whether ``auto`` gives the jackknife interval of tau
    (:data:`JACKKNIFE_TAU_DESIGNS`).

    Examples
    --------
    >>> jackknife_tau_applies("kendall_tau", "global", "systems", 10, 50)
    True
    >>> jackknife_tau_applies("kendall_tau", "global", "systems", 60, 50)
    False
    >>> jackknife_tau_applies("pearson", "global", "systems", 30, 50)
    False
    """
    row = JACKKNIFE_TAU_DESIGNS.get((coefficient, level, resample))
    return row is not None and row[0] <= n_systems < row[1]


def with_jackknife_tau(
    res: Any, kernel: Any, coefficient: str, level: str, resample: str, n_systems: int,
    n_items: int,
) -> Any:  # fmt: skip
    """``res`` with the jackknife interval of tau where
    :func:`jackknife_tau_applies` and it is defined, else ``res``;
    ``details["jackknife_tau"]`` holds its standard error and degrees of freedom."""
    from ..results import AnalyticInterval, attach_analytic

    if not jackknife_tau_applies(coefficient, level, resample, n_systems, n_items):
        return res
    rec = tau_jackknife(kernel, float(res.estimate), n_systems, n_items)
    if rec is None:
        return res
    reason = (
        f"{JACKKNIFE_TAU_METHOD}: a {level}-level Kendall's tau resampling {n_systems} "
        "systems gets the estimate plus or minus Student's quantile "
        "(n - 1 degrees of freedom) times the delete-one-system jackknife standard error, "
        "on tau's own scale, where the bootstrap and the Fisher-z jackknife fell short "
        "(docs/validation.md, 'Kendall's tau over few systems')"
    )
    return attach_analytic(res, AnalyticInterval(rec.method, reason, rec))
