"""The jackknife Fisher-z interval of a correlation from few resampled systems.

From 20 resampled systems the bootstrap intervals of a global-level correlation (all cells
correlated: 20-59 systems resampling systems, with or without the items) and of
an item-level one (20-29 systems) fall short of their level (docs/validation.md,
"Global-level correlations from 20–40 units (session 11, corrfix)"): a bootstrap over
``n`` units sees ``(n - 1)/n`` of a mean's variance and reads normal quantiles where
Student's on ``n - 1`` degrees of freedom hold, and the crossed
bootstrap's BCa takes its acceleration from delete-one-*cell* values, which miss the
skew that few systems or items give the coefficient.  This interval works on Fisher's
``z = atanh(r)`` with the resampled units' own jackknife:

* for every resampled factor ``f`` (systems, items) with ``n_f`` units, the delete-one
  jackknife variance of z, ``V_f = (n_f - 1)/n_f sum (z_(-u) - mean)^2`` (Quenouille
  1956, Tukey 1958; the units deleted through the kernel's cell weights);
* resampling both, their sum (the two-way jackknife: the crossed design's variance
  ``V_systems + V_items``, which counts the cells' residual twice, as Owen's (2007)
  pigeonhole bootstrap does, so errs wide), on Satterthwaite's (1946) degrees of freedom
  ``(sum V_f)^2 / sum V_f^2 / (n_f - 1)``; one factor: ``n_f - 1``;
* ``tanh(z +- t_df(1 - alpha/2) sqrt(sum V_f))``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "JACKKNIFE_Z_DESIGNS",
    "JACKKNIFE_Z_METHOD",
    "FisherZJackknife",
    "delete_one_values",
    "fisher_z_jackknife",
    "jackknife_z_applies",
    "jackknife_z_reason",
    "with_jackknife_z",
]

JACKKNIFE_Z_METHOD = "jackknife_z"
#: ``auto``'s jackknife Fisher-z interval, one row per design: (level, resample) ->
#: (the resampled factors counted, from, below): it applies where the fewest units of
#: those factors number at least ``from`` and fewer than ``below``, the range where the
#: bootstrap fell short and this interval held (docs/validation.md, "Global-level
#: correlations from 20–40 units (session 11, corrfix)"; ``from`` is the few-units
#: warnings' threshold).  Not the system level: BCa held there from 20 systems (Pearson
#: 0.93-0.96, Kendall 0.96), and the jackknife of a rank coefficient over 20 system means
#: near 1 failed (Spearman, truth 0.9997: 0.64 against BCa's 0.99).  Not the global level
#: resampling items: its studentized interval held from 20 items (0.95-0.96); resampling
#: both, the systems are counted: BCa held from 20 items over 36 systems (0.947-0.953).
#: The item level over 20 systems: BCa 0.883-0.897 (Pearson, Spearman), 0.960 (Kendall),
#: held from 30 systems; this interval 0.930-0.955.
JACKKNIFE_Z_DESIGNS: dict[tuple[str, str], tuple[tuple[str, ...], int, int]] = {
    # to 59 since the design search's seed 15 (fields #34: 34 systems x 108 items, BCa
    # 0.899 of 587 test sets, this interval 0.920; #54, 36 x 150: 0.927 and 0.950)
    ("global", "both"): (("systems",), 20, 60),
    ("global", "systems"): (("systems",), 20, 60),
    ("item", "systems"): (("systems",), 20, 30),
    ("item", "both"): (("systems",), 20, 30),
}
#: rows x atoms evaluated at once
_CHUNK = 2_000_000


def delete_one_values(kernel: Any, n_systems: int, n_items: int, factor: str) -> np.ndarray:
    """The kernel's value with each system (``factor="systems"``) or item (``"items"``)
    deleted: cell weights 1, 0 on the deleted unit's cells, carried to the kernel's atoms
    (the global level merges cells with the same pair of scores)."""
    n = n_systems if factor == "systems" else n_items
    rows = max(1, _CHUNK // max(1, n_systems * n_items))
    out = np.empty(n)
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        w = np.ones((stop - start, n_systems, n_items))
        for j, unit in enumerate(range(start, stop)):
            if factor == "systems":
                w[j, unit, :] = 0.0
            else:
                w[j, :, unit] = 0.0
        cells = w.reshape(stop - start, -1)
        if kernel.m == cells.shape[1] and np.array_equal(kernel.keys, np.arange(kernel.m)):
            atoms = cells
        else:
            atoms = np.zeros((stop - start, kernel.m))
            for j in range(stop - start):
                atoms[j] = np.bincount(kernel.keys, weights=cells[j], minlength=kernel.m)
        out[start:stop] = kernel.evaluate(atoms)
    return out


@dataclass(frozen=True)
class FisherZJackknife:
    """The interval ``tanh(atanh(estimate) +- t_df se)`` (module docstring).

    Attributes
    ----------
    estimate : float
        The correlation.
    parts : tuple of (int, float)
        Every resampled factor's number of units and jackknife variance of z.
    method : str
    """

    estimate: float
    parts: tuple[tuple[int, float], ...]
    method: str = JACKKNIFE_Z_METHOD

    @property
    def variance(self) -> float:
        """The jackknife variance of z, summed over the resampled factors."""
        return float(sum(v for _, v in self.parts))

    @property
    def df(self) -> float:
        """Satterthwaite's degrees of freedom (``n - 1`` for one factor)."""
        v = self.variance
        den = sum(p**2 / (n - 1) for n, p in self.parts if n > 1)
        return float(v**2 / den) if den > 0 else math.inf

    def __call__(
        self, confidence_level: float, alternative: str
    ) -> tuple[float, float, dict[str, Any]]:
        from scipy.stats import t

        tail = (1.0 - confidence_level) / (2.0 if alternative == "two-sided" else 1.0)
        q = float(t.isf(tail, self.df))
        z = math.atanh(self.estimate)
        half = q * math.sqrt(self.variance)
        low = math.tanh(z - half) if alternative != "less" else -1.0
        high = math.tanh(z + half) if alternative != "greater" else 1.0
        extra = {"jackknife_z": {"standard_error_z": math.sqrt(self.variance), "df": self.df}}
        return low, high, extra


def fisher_z_jackknife(
    kernel: Any, estimate: float, n_systems: int, n_items: int, resample: str
) -> FisherZJackknife | None:
    """The interval's record for ``kernel`` (a
    :class:`~mlci.metrics.correlation.GridCorrelationKernel`) resampling ``resample``, or
    None where it is undefined (an estimate or a delete-one value at +-1 or undefined, or a
    zero variance)."""
    if not math.isfinite(estimate) or abs(estimate) >= 1.0:
        return None
    parts = []
    for factor, n in (("systems", n_systems), ("items", n_items)):
        if resample not in (factor, "both"):
            continue
        v = delete_one_values(kernel, n_systems, n_items, factor)
        if not np.all(np.isfinite(v)) or np.any(np.abs(v) >= 1.0):
            return None
        z = np.arctanh(v)
        parts.append((n, float((n - 1) / n * np.sum((z - z.mean()) ** 2))))
    rec = FisherZJackknife(float(estimate), tuple(parts))
    if not rec.variance > 0:
        return None
    return rec


def jackknife_z_reason(level: str, resample: str, units: str) -> str:
    """``method_reason`` of ``auto``'s jackknife Fisher-z interval."""
    return (
        f"{JACKKNIFE_Z_METHOD}: a {level}-level correlation resampling {resample} over "
        f"{units} gets Fisher's z of the estimate plus or minus Student's quantile times the "
        "jackknife standard error of z over the resampled systems and/or items (two-way: "
        "their sum, on Satterthwaite's degrees of freedom), where the bootstrap fell "
        "short (docs/validation.md, 'Global-level correlations from 20–40 units')"
    )


def jackknife_z_applies(level: str, resample: str, n_systems: int, n_items: int) -> bool:
    """Whether ``auto`` gives the jackknife Fisher-z interval (:data:`JACKKNIFE_Z_DESIGNS`).

    Examples
    --------
    >>> jackknife_z_applies("global", "both", 25, 300)
    True
    >>> jackknife_z_applies("global", "both", 60, 40), jackknife_z_applies("system", "both", 25, 25)
    (False, False)
    """
    row = JACKKNIFE_Z_DESIGNS.get((level, resample))
    if row is None:
        return False
    factors, low, high = row
    counts = {"systems": n_systems, "items": n_items}
    return low <= min(counts[f] for f in factors) < high


def with_jackknife_z(
    res: Any, kernel: Any, level: str, resample: str, n_systems: int, n_items: int
) -> Any:
    """``res`` (``auto``'s bootstrap interval) with the jackknife Fisher-z interval where
    :func:`jackknife_z_applies` and it is defined, else ``res``; ``details["jackknife_z"]``
    holds its standard error of z and degrees of freedom."""
    from ..results import AnalyticInterval, attach_analytic

    if not jackknife_z_applies(level, resample, n_systems, n_items):
        return res
    rec = fisher_z_jackknife(kernel, float(res.estimate), n_systems, n_items, resample)
    if rec is None:
        return res
    factors = JACKKNIFE_Z_DESIGNS[(level, resample)][0]
    units = " and ".join(f"{n_systems if f == 'systems' else n_items} {f}" for f in factors)
    return attach_analytic(
        res, AnalyticInterval(rec.method, jackknife_z_reason(level, resample, units), rec)
    )
