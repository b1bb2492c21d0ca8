"""What re-reads, at any confidence level and alternative, an analytic interval that
``method="auto"`` gave in place of the studentized one (the ``read`` of a result's
:class:`mlci.results.AnalyticInterval`).

Near the edge of a metric's range the studentized interval gives way to an analytic one
(:func:`mlci.intervals.bootstrap.studentized_interval`): Korn & Graubard's, the logit t
or the t interval of the same linearized standard error (:class:`EdgeFallbackRead`),
or, for balanced accuracy with 0-3 errors in a class, MOVER of the two classes' modified
Wilson intervals (:class:`MoverWilsonRead`; over conditions, of their Korn & Graubard
intervals, :class:`MoverKornGraubardRead`).  Each read calls the very function the
interval came from, so a result re-read at its own level gives its own bounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .bootstrap import edge_interval, effective_binomial_interval, wilson_interval
from .mover import mover_korn_graubard_interval, mover_wilson_interval
from .no_error import NoErrorTable, no_error_interval

__all__ = [
    "EDGE_READS",
    "EdgeFallbackRead",
    "MoverKornGraubardRead",
    "MoverWilsonRead",
    "NoErrorRead",
    "edge_read",
]

#: the near-bound fallbacks of the studentized interval that are analytic (read no
#: replicate): a result whose every element got one holds it as its ``analytic`` record
EDGE_READS = (
    "korn_graubard", "logit_t", "t", "mover_wilson", "mover_korn_graubard", "exact_no_error",
)  # fmt: skip


@dataclass(frozen=True)
class EdgeFallbackRead:
    """``(low, high, details)`` of the studentized interval's analytic fallback ``method``
    (``"korn_graubard"``, ``"logit_t"`` or ``"t"``) of ``estimate`` with the linearized
    ``standard_error`` and ``df`` (:func:`mlci.intervals.bootstrap.edge_interval`)."""

    method: str
    estimate: Any
    standard_error: Any
    df: Any
    iid: bool
    bounds: tuple[float, float] | None
    #: a proportion's nominal size (Korn & Graubard's widening and edge rules read it)
    effective_n: float | None = None

    def __call__(
        self, confidence_level: float, alternative: str
    ) -> tuple[Any, Any, dict[str, Any]]:
        low, high = edge_interval(
            self.method, np.asarray(self.estimate, dtype=float),
            np.broadcast_to(np.asarray(self.standard_error, dtype=float),
                            np.shape(self.estimate)),
            self.df, self.iid, confidence_level=confidence_level, alternative=alternative,
            bounds=self.bounds, linear={"effective_n": self.effective_n},
        )  # fmt: skip
        info = {"edge_fallback": int(np.size(self.estimate)), "edge_fallback_method": self.method}
        return low, high, info


@dataclass(frozen=True)
class MoverWilsonRead:
    """``(low, high, details)`` of balanced accuracy's MOVER interval from the classes' counts
    ``(tn, n_neg, tp, n_pos)`` (:func:`mlci.intervals.mover.mover_wilson_interval`)."""

    counts: tuple[int, int, int, int]
    bounds: tuple[float, float] | None = (0.0, 1.0)

    def __call__(
        self, confidence_level: float, alternative: str
    ) -> tuple[Any, Any, dict[str, Any]]:
        return mover_wilson_interval(
            self.counts, wilson_interval, confidence_level=confidence_level,
            alternative=alternative, bounds=self.bounds,
        )  # fmt: skip


@dataclass(frozen=True)
class MoverKornGraubardRead:
    """``(low, high, details)`` of balanced accuracy's MOVER interval over conditions from
    the two classes' rates with their CR2 standard errors, degrees of freedom and
    effective sizes (:func:`mlci.intervals.mover.mover_korn_graubard_interval`)."""

    rates: tuple[dict[str, float], ...]
    bounds: tuple[float, float] | None = (0.0, 1.0)

    def __call__(
        self, confidence_level: float, alternative: str
    ) -> tuple[Any, Any, dict[str, Any]]:
        return mover_korn_graubard_interval(
            self.rates, effective_binomial_interval, wilson_interval,
            confidence_level=confidence_level, alternative=alternative, bounds=self.bounds,
        )  # fmt: skip


@dataclass(frozen=True)
class NoErrorRead:
    """``(low, high, details)`` of the exact interval of a two-class metric on a test set
    without an error (:func:`mlci.intervals.no_error.no_error_interval`)."""

    table: NoErrorTable
    bounds: tuple[float, float] | None = (0.0, 1.0)

    def __call__(
        self, confidence_level: float, alternative: str
    ) -> tuple[Any, Any, dict[str, Any]]:
        return no_error_interval(
            self.table, confidence_level=confidence_level, alternative=alternative,
            bounds=self.bounds,
        )  # fmt: skip


def edge_read(
    method: str, estimate: Any, bounds: Any, linear: dict[str, Any] | None
) -> EdgeFallbackRead | MoverWilsonRead | MoverKornGraubardRead | NoErrorRead | None:
    """What re-reads the studentized interval's fallback ``method`` (the dispatcher's
    ``edge_fallback_method``) given to every element of ``estimate``, from the
    linearization ``linear``; None for a fallback that reads the replicates (the
    percentile interval, without degrees of freedom) or without a linearization.

    Examples
    --------
    >>> read = edge_read("korn_graubard", 0.98, (0.0, 1.0),
    ...                  {"standard_error": 0.014, "df": 99, "iid": True})
    >>> low, high, _ = read(0.95, "two-sided")
    >>> bool(0.9 < low < 0.98 < high <= 1)
    True
    """
    if method not in EDGE_READS or linear is None:
        return None
    if method == "mover_wilson":
        counts = linear.get("class_counts")
        return None if counts is None else MoverWilsonRead(tuple(counts), bounds)
    if method == "exact_no_error":
        table = linear.get("no_error")
        return None if table is None else NoErrorRead(table, bounds)
    if method == "mover_korn_graubard":
        rates = linear.get("class_rates")
        return None if rates is None else MoverKornGraubardRead(tuple(rates), bounds)
    return EdgeFallbackRead(
        method, estimate, linear["standard_error"], linear.get("df"), bool(linear.get("iid")),
        None if bounds is None else tuple(bounds), linear.get("effective_n"),
    )  # fmt: skip
