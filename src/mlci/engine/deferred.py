"""Replicates drawn when first needed, for an interval that reads none.

The ``"t"``, ``"logit_t"``, ``"korn_graubard"`` and ``"wilson"`` intervals are read off
the linearized standard error: the bootstrap replicates are not used.  When drawing them
would cost more than the data's own passes (:func:`defer_draw`), the engine
(:func:`mlci.engine.bootstrap.run_bootstrap`) does not draw them; the result keeps a
:class:`DeferredReplicates` (see :func:`mlci.results.replicates_on_demand`), which draws
them the first time a field read off them is (the bootstrap distribution, its standard
error and bias, the invalid replicates, the replicates' diagnostics) or another method's
interval is asked for.  Every replicate is a pure function of the seed, its stream and its
block (:mod:`mlci.engine.sampler`), so a late draw gives exactly the replicates the call
would have drawn at once: the values of the same call with a method that reads them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ..intervals.bootstrap import acceleration, interval_from_replicates
from ..results import (
    METHODS_WITHOUT_REPLICATES,
    BootstrapResult,
    ConfidenceInterval,
    plain,
    replicates_on_demand,
)
from .auto import replicate_diagnostics, warn_outside_map
from .plan import Plan

__all__ = [
    "DEFER_MIN_WEIGHTS_PER_SAMPLE",
    "DeferredReplicates",
    "defer_draw",
    "finish_deferred",
    "replicate_summary",
    "result_design",
]


#: a result whose interval reads no replicate leaves them undrawn when drawing them would
#: set more than this many weights per sample (``n_resamples x sampler.m / n_samples``):
#: then the draw costs more than the data's own passes (iid log loss at 1e6 samples,
#: B = 1000: 48 s of draw against a 2.8 s call).  Below it the draw is cheap (accuracy over
#: 5,000 conditions at 5e6: 0.3 s against 4.9 s) and is made at once, so that the result
#: does not keep the kernel and the plan (their per-sample arrays) alive to draw later.
DEFER_MIN_WEIGHTS_PER_SAMPLE = 16


def defer_draw(sampler: Any, n_samples: int) -> bool:
    """Whether a result that reads no replicate leaves them to be drawn on demand (see
    :data:`DEFER_MIN_WEIGHTS_PER_SAMPLE`).

    Examples
    --------
    >>> class S:
    ...     n_resamples, m = 1000, 4
    >>> defer_draw(S(), 10_000)
    False
    >>> S.m = 10_000
    >>> defer_draw(S(), 10_000)
    True
    """
    work = float(sampler.n_resamples) * float(sampler.m)
    return work > DEFER_MIN_WEIGHTS_PER_SAMPLE * max(int(n_samples), 1)


def replicate_summary(estimate: np.ndarray, dist: np.ndarray) -> dict[str, Any]:
    """``n_invalid``, ``standard_error`` and ``bias`` of a result from its replicates.

    The standard deviation (``ddof=1``) of the replicates on which the metric was defined
    (0 with fewer than 2), and their mean minus ``estimate``.

    Examples
    --------
    >>> d = replicate_summary(np.float64(0.5), np.array([0.4, 0.6, np.nan]))
    >>> d["n_invalid"], round(d["standard_error"], 4), round(d["bias"], 4)
    (1, 0.1414, 0.0)
    """
    estimate = np.asarray(estimate, dtype=float)
    n = dist.shape[0]
    invalid_rows = np.isnan(dist.reshape(n, -1)).any(axis=1)
    valid = dist[~invalid_rows]
    with np.errstate(invalid="ignore"):
        se = np.std(valid, axis=0, ddof=1) if valid.shape[0] > 1 else np.zeros(estimate.shape)
        bias = np.mean(valid, axis=0) - estimate
    conv = float if estimate.ndim == 0 else np.asarray
    return {"n_invalid": int(invalid_rows.sum()), "standard_error": conv(se), "bias": conv(bias)}


class DeferredReplicates:
    """What draws a result's replicates when first needed (thread-safe, drawn once).

    Parameters
    ----------
    draw : callable
        ``draw()`` -> ndarray, shape (B, *S): the replicates.
    estimate : ndarray, shape S
        The metric on the data.
    diagnostics : dict or None
        The result's ``details["diagnostics"]``: the replicates' entries are added to it
        when they are drawn.
    jackknife : callable
        ``jackknife()`` -> (values, multiplicities): BCa's jackknife, as
        ``method="bca"`` runs it.

    Examples
    --------
    >>> calls = []
    >>> def draw():
    ...     calls.append(1)
    ...     return np.array([0.4, 0.6])
    >>> d = DeferredReplicates(draw, np.float64(0.5), None, lambda: (np.ones(2), None))
    >>> len(calls)
    0
    >>> d.fields()["n_invalid"], d.fields()["bootstrap_distribution"].size, len(calls)
    (0, 2, 1)
    """

    def __init__(
        self,
        draw: Callable[[], np.ndarray],
        estimate: np.ndarray,
        diagnostics: dict[str, Any] | None,
        jackknife: Callable[[], tuple[np.ndarray, np.ndarray | None]],
    ) -> None:
        self._draw: Callable[[], np.ndarray] | None = draw
        self._estimate = np.asarray(estimate, dtype=float)
        self._diagnostics = diagnostics
        self._jackknife = jackknife
        self._lock = threading.Lock()
        self._fields: dict[str, Any] | None = None
        self._accel: tuple[Any, int] | None = None

    def fields(self) -> dict[str, Any]:
        """The replicates (``bootstrap_distribution``) and ``n_invalid``,
        ``standard_error``, ``bias`` read off them (drawn on the first call)."""
        with self._lock:
            if self._fields is None:
                assert self._draw is not None
                dist = self._draw()
                self._draw = None
                fields = {"bootstrap_distribution": dist}
                fields.update(replicate_summary(self._estimate, dist))
                if self._diagnostics is not None:
                    self._diagnostics.update(replicate_diagnostics(self._estimate, dist))
                self._fields = fields
            return self._fields

    def acceleration(self) -> tuple[Any, int]:
        """BCa's ``(acceleration, jackknife_size)`` (computed on the first call)."""
        with self._lock:
            if self._accel is None:
                jack, mult = self._jackknife()
                accel = acceleration(jack, mult)
                self._accel = (accel, len(mult) if mult is not None else len(jack))
            return self._accel


def finish_deferred(
    estimate: np.ndarray,
    replicates: DeferredReplicates,
    *,
    plan: Plan,
    name: str,
    method: str,
    confidence_level: float,
    alternative: str,
    details: dict[str, Any] | None,
    scheme: str | None,
    bounds: tuple[float, float] | None,
    elements: Any,
    linear: dict[str, Any] | None,
    degenerate_hint: str = "",
) -> BootstrapResult:
    """:func:`~mlci.engine.bootstrap.finish_bootstrap` for an interval that reads no
    replicate: the result draws them when asked (:func:`mlci.results.replicates_on_demand`).
    Neither the undefined replicates nor their number bear on such an interval, so nothing
    is checked or warned about them."""
    if method not in METHODS_WITHOUT_REPLICATES or linear is None:
        raise ValueError(f"method={method!r} reads the replicates: they cannot be drawn on demand.")
    info: dict[str, Any] = dict(details or {})
    if "diagnostics" in info:
        warning = warn_outside_map(info["diagnostics"], name, method)
        if warning is not None:
            info["warning"] = warning
    info["linearized"] = linear
    low, high, extra = interval_from_replicates(
        estimate,
        np.empty((0, *estimate.shape)),
        method=method,
        confidence_level=confidence_level,
        alternative=alternative,
        bounds=bounds,
        linear=linear,
        degenerate_hint=degenerate_hint,
    )
    info.update(extra)
    conv = float if estimate.ndim == 0 else np.asarray
    res = BootstrapResult(
        estimate=conv(estimate),
        confidence_interval=ConfidenceInterval(conv(low), conv(high)),
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        metric=name,
        details=info,
        bootstrap_distribution=np.empty((0, *estimate.shape)),
        **result_design(plan, scheme, bounds, elements),
    )
    return replicates_on_demand(res, replicates)


def result_design(
    plan: Plan, scheme: str | None, bounds: tuple[float, float] | None, elements: Any
) -> dict[str, Any]:
    """The fields of a :class:`~mlci.BootstrapResult` that describe what was resampled
    (from ``plan``; ``scheme`` overrides its scheme), the metric's range and elements."""
    return {
        "n_resamples": plan.n_resamples,
        "scheme": plan.scheme if scheme is None else scheme,
        "n_samples": plan.n_samples,
        "n_conditions": plan.n_conditions,
        "n_strata": plan.n_strata,
        "bounds": (-np.inf, np.inf) if bounds is None else (float(bounds[0]), float(bounds[1])),
        "elements": None if elements is None else tuple(plain(list(elements))),
    }
