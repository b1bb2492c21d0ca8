"""``method="auto"``'s analytic interval offered by a metric's kernel
(``kernel.near_zero_interval``, an :class:`~mlci.results.AnalyticInterval` or None), for
independent samples: the debiased l2 calibration error near 0
(:func:`mlci.metrics.ece_l2.l2_near_zero_interval`; issue 20).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..results import AnalyticInterval, BootstrapResult, attach_analytic

__all__ = ["kernel_analytic_auto"]


def kernel_analytic_auto(
    finish: Callable[..., BootstrapResult], kernel: Any, plan: Any, reason: str | None
) -> Callable[..., BootstrapResult]:
    """``finish`` as it is, or, under ``auto`` (a ``reason``) for a kernel offering an
    analytic interval and a plan of independent samples (no ``conditions``, one stage),
    a ``finish`` whose result holds that interval (its replicates kept: every other
    ``method`` of :meth:`~mlci.results.BootstrapResult.interval` reads them)."""
    rec = getattr(kernel, "near_zero_interval", None) if reason is not None else None
    iid = getattr(plan, "unit_of_sample", None) is None and not getattr(plan, "two_stage", False)
    if not isinstance(rec, AnalyticInterval) or not iid:
        return finish

    def finish_analytic(*args: Any, **kwargs: Any) -> BootstrapResult:
        res = finish(*args, **kwargs)
        drop = ("z0", "edge_fallback", "edge_fallback_method", "edge_dominated")
        details = {k: v for k, v in res.details.items() if k not in drop}
        return attach_analytic(res, rec, details)

    return finish_analytic
