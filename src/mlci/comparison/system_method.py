"""Each system's interval method in :func:`mlci.compare`: :func:`mlci.bootstrap_ci`'s.

Under ``method="auto"`` a system of ``compare`` gets the method a single metric gets
through :func:`mlci.bootstrap_ci`: :func:`system_auto_method` runs the same resolution
(:func:`mlci.engine.bootstrap.resolve_method`, hence
:func:`mlci.engine.auto.choose_method` and every rule of it: a kernel family's own rule,
Wilson, logit t or Korn-Graubard for a proportion, BCa for an average precision of fewer
than 10 positives, the percentile interval for a two-class decision metric with fewer
than 5 of a class, BCa for a ROC AUC near 1 with many misordered pairs on few conditions,
otherwise studentized), not a copy of its rules.  The interval is then computed from
``compare``'s shared replicate matrix (one draw over the systems' joint atoms) by the same
finish step (:func:`mlci.engine.bootstrap.finish_bootstrap`); where that draw is the one
``bootstrap_ci`` makes for the system alone (over whole conditions, per-sample atoms, or a
method that reads no replicate), the interval is equal too.
"""

from __future__ import annotations

from typing import Any

from ..engine.bootstrap import resolve_method

__all__ = ["system_auto_method", "system_standard_errors"]


def system_auto_method(
    kernel: Any, plan: Any, linear: dict[str, Any] | None
) -> tuple[str, dict[str, Any] | None, str | None] | None:
    """``(method, linearization, method_reason)`` of one system under ``"auto"``, as
    :func:`mlci.bootstrap_ci` resolves it for that system's kernel; None where it is
    studentized and the differences have no linearization (the system then keeps the
    differences' method: without their linearization no replicate standard errors are
    drawn).

    ``linear`` is the differences' linearization (None when they have none).  A
    studentized system returns no linearization of its own: it reads its column of the
    differences' (the same standard error, with every replicate's, which the shared
    replicates give), ``compare`` adding the kernel's near-edge fallback as
    ``bootstrap_ci`` does.

    Examples
    --------
    >>> import numpy as np
    >>> from mlci.engine.nested import plan_for_conditions
    >>> from mlci.comparison.common import kernel_data
    >>> from mlci.metrics import get_kernel, metric_params
    >>> y = np.r_[np.ones(3, int), np.zeros(97, int)]
    >>> p = y.copy(); p[50] = 1  # 3 positives, one false alarm
    >>> k = get_kernel("f1", kernel_data(y, p), metric_params("f1", None, "default", None))
    >>> system_auto_method(k, plan_for_conditions(100), None)[0]
    'percentile'
    """
    method, own_linear, reason = resolve_method(kernel, plan, "auto")
    if method == "studentized":
        return None if linear is None else (method, None, reason)
    return method, own_linear, reason


def system_standard_errors(
    kernels: Any, plan: Any, sys_methods: Any, linear: dict[str, Any] | None
) -> bool:
    """Whether the replicates' linearized standard errors are drawn for a system with a
    bootstrap interval of ``choose_method``'s rules (percentile with few of a class, BCa
    for an average precision of few positives): the differences' near-edge rule
    (:func:`mlci.comparison.paired_auto.pair_switches`) reads every system's, as it did
    when those systems were studentized (the differences' intervals are unchanged)."""
    if linear is None:
        return False
    for kernel, method in zip(kernels, sys_methods, strict=True):
        own = getattr(kernel, "auto_method", None)
        if method in ("percentile", "bca") and own is None:
            return True
    return False
