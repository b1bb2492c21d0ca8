"""``method="auto"``'s analytic interval offered by a metric's kernel
(``kernel.near_zero_interval``, an :class:`~mlci.results.AnalyticInterval` or None), for
independent samples: the debiased l2 calibration error near 0
(:func:`mlci.metrics.ece_l2.l2_near_zero_interval`; issue 20).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..results import AnalyticInterval, BootstrapResult, attach_analytic

__all__ = ["kernel_analytic_auto", "with_kernel_analytic"]


def _record(kernel: Any, plan: Any, reason: str | None) -> AnalyticInterval | None:
    """The kernel's analytic interval where ``auto`` (a ``reason``) gives it: a kernel
    offering one and a plan of independent samples (no ``conditions``, one stage)."""
    rec = getattr(kernel, "near_zero_interval", None) if reason is not None else None
    iid = getattr(plan, "unit_of_sample", None) is None and not getattr(plan, "two_stage", False)
    return rec if isinstance(rec, AnalyticInterval) and iid else None


def with_kernel_analytic(
    res: BootstrapResult, kernel: Any, plan: Any, reason: str | None
) -> BootstrapResult:
    """``res`` holding the kernel's analytic interval where ``auto`` gives it
    (:func:`kernel_analytic_auto`'s rule; its replicates kept), else ``res``: for
    :func:`mlci.compare`'s systems, so that each gets :func:`mlci.bootstrap_ci`'s interval.

    Examples
    --------
    >>> import numpy as np, warnings, mlci
    >>> g = np.random.default_rng(0)
    >>> p = g.random(2000)
    >>> y = (g.random(2000) < p).astype(int)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     c = mlci.compare(y, {"a": p, "b": p[::-1]}, metric="ece_debiased",
    ...                      n_resamples=200, rng=0)
    >>> c.systems["a"].method
    'normal-squared'
    """
    rec = _record(kernel, plan, reason)
    if rec is None:
        return res
    drop = ("z0", "edge_fallback", "edge_fallback_method", "edge_dominated")
    details = {k: v for k, v in res.details.items() if k not in drop}
    return attach_analytic(res, rec, details)


def kernel_analytic_auto(
    finish: Callable[..., BootstrapResult], kernel: Any, plan: Any, reason: str | None
) -> Callable[..., BootstrapResult]:
    """``finish`` as it is, or, under ``auto`` (a ``reason``) for a kernel offering an
    analytic interval and a plan of independent samples (no ``conditions``, one stage),
    a ``finish`` whose result holds that interval (its replicates kept: every other
    ``method`` of :meth:`~mlci.results.BootstrapResult.interval` reads them)."""
    if _record(kernel, plan, reason) is None:
        return finish

    def finish_analytic(*args: Any, **kwargs: Any) -> BootstrapResult:
        return with_kernel_analytic(finish(*args, **kwargs), kernel, plan, reason)

    return finish_analytic
