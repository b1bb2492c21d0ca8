"""What a finished bootstrap reports about the resampling behind it.

:func:`~mlci.engine.bootstrap.finish_bootstrap` turns replicates into a result; of the
plan that drew them it reads five facts only, named by the :class:`Plan` protocol.  The
resampling plans (:class:`~mlci.engine.resampling.ResamplingPlan`,
:class:`~mlci.engine.nested.NestedPlan`) satisfy it; replicates drawn without one (a
user's statistic, the joint bootstrap of verification trials) are described by a
:class:`PlanSummary`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["Plan", "PlanSummary"]


class Plan(Protocol):
    """The facts about a resampling that a result states (read-only)."""

    @property
    def n_resamples(self) -> int:
        """Number of replicates."""
        ...

    @property
    def scheme(self) -> str:
        """Name of the resampling scheme (``"iid"``, ``"conditions"``...)."""
        ...

    @property
    def n_samples(self) -> int:
        """Number of samples resampled."""
        ...

    @property
    def n_conditions(self) -> int | None:
        """Number of conditions resampled whole (None without conditions)."""
        ...

    @property
    def n_strata(self) -> int | None:
        """Number of strata (None without strata)."""
        ...


@dataclass(frozen=True)
class PlanSummary:
    """A :class:`Plan` for replicates drawn without a resampling plan.

    Attributes
    ----------
    n_resamples : int
    scheme : str
    n_samples : int
    n_conditions : int or None
    n_strata : int or None
    """

    n_resamples: int
    scheme: str
    n_samples: int
    n_conditions: int | None = None
    n_strata: int | None = None
