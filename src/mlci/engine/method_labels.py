"""The label of a studentized interval that gave way to an analytic one near the edge.

:func:`mlci.engine.bootstrap.finish_bootstrap` reads the dispatcher's ``edge_fallback``
(how many elements fell back) and ``edge_fallback_method`` (to what): ``method_reason``
gets the reason (:func:`mlci.engine.auto.edge_reason`), and where every element got an
analytic interval (Korn & Graubard's, the logit t or t interval, balanced accuracy's
MOVER), the result's ``method`` names it and its ``analytic`` field holds it
(:class:`mlci.results.AnalyticInterval`), re-read at any level.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..intervals.bootstrap import INTERVAL_METHODS
from ..results import AnalyticInterval, edge_analytic
from .auto import edge_reason

__all__ = ["label_edge_fallback"]


def label_edge_fallback(
    info: dict[str, Any],
    extra: dict[str, Any],
    method: str,
    estimate: Any,
    linear: dict[str, Any] | None,
    bounds: Any,
) -> tuple[str, AnalyticInterval | None]:
    """``(method, analytic)`` of a finished interval: ``method`` as it was unless every
    element fell back, then the fallback's name and its :class:`AnalyticInterval` (None
    for the percentile fallback, read from the replicates); ``info["method_reason"]``
    gets the fallback's reason (in place)."""
    if "edge_fallback" not in extra:
        return method, None
    fb = extra["edge_fallback_method"]
    clause = edge_reason(extra["edge_fallback"], fb, int(np.size(estimate)))
    info["method_reason"] = (
        info["method_reason"] + "; " if "method_reason" in info else ""
    ) + clause
    analytic = edge_analytic(extra, estimate, bounds, linear, info["method_reason"])
    if extra["edge_fallback"] == np.size(estimate) and (
        analytic is not None or fb in INTERVAL_METHODS
    ):
        # the result says the interval it holds (a percentile fallback: a method= too)
        method = fb
    return method, analytic
