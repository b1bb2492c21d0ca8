"""The statistics of :mod:`mlci.scores` bound to their options: a :class:`_Spec` is a
function of a view of the counts (:mod:`mlci.scores._roc`) with its shape, range and the
paths it allows; :func:`_resolve` binds a metric name and its options to a Scores object.

Every interval of score statistics draws its replicates through
:func:`mlci.scores._driver.bootstrap_scores`, which reads the statistic from its spec.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..inputs import check_choice
from ..metrics import RocAucKernel
from ._data import ScoreData
from ._roc import (
    _INTERPOLATIONS,
    _RATE,
    _RATE_ALIASES,
    _THRESHOLD_RATES,
    _UNBOUNDED,
    _check_rate,
    _check_threshold,
    _counts_at,
    _eer,
    _rate_at_tau_rows,
    _roc_rate_at,
    _tau_at_rate,
    _View,
)
from .confusion import CM_METRICS, binary_cm_metric, cm_metric_bounds


@dataclass(frozen=True)
class _Part:
    """One component of a joint statistic (the last axis of its value): name and range."""

    name: str
    bounds: tuple[float, float]


@dataclass(frozen=True)
class _Spec:
    """A metric bound to its options: ``fn(view) -> (b, *shape)``; ``search`` marks lazy-able.

    ``bounds`` is the statistic's range (intervals are kept inside it); a joint statistic
    (e.g. the EER and its threshold from the same replicates) has ``parts``, one per
    entry of its last axis, each with its own name and range.
    """

    name: str
    fn: Callable[[_View], np.ndarray]
    shape: tuple[int, ...]
    search: bool
    full: bool = False  # needs every atom's weight (no lazy path)
    fixed: bool = False  # only counts at fixed thresholds (cheap in the lazy sampler)
    bounds: tuple[float, float] = _UNBOUNDED
    parts: tuple[_Part, ...] | None = None
    # several statistics side by side on one flat axis, each its own result: (name,
    # bounds, length) of each (curve bands from one set of replicates, issue 25)
    segments: tuple[tuple[str, tuple[float, float], int], ...] | None = None
    # the statistic reads the counts through the view's searches only (cuts, cum_at,
    # total): over whole conditions its replicates may be the conditions' draw counts
    # (:mod:`mlci.scores._units`) instead of every atom's weight
    units: bool = False
    # a rate at a fixed other rate: (rate, x, at), for auto's score interval and its
    # few-events warning (mlci.engine.scores_rules)
    point: tuple[str, str, np.ndarray] | None = None


def _no_extra(name: str, kw: dict[str, Any], allowed: tuple[str, ...]) -> None:
    extra = sorted(set(kw) - set(allowed))
    if extra:
        hint = f" It takes {', '.join(repr(a) for a in allowed)}." if allowed else ""
        listed = ", ".join(f"`{e}`" for e in extra)
        raise TypeError(f"Unknown option(s) {listed} for metric {name!r}.{hint}")


def _operating_point_spec(
    sc: ScoreData, rate: str, x: str, at: Any, interpolation: str, *, with_threshold: bool = False
) -> _Spec:
    """``rate`` at the threshold where ``x`` equals ``at`` (and that threshold, jointly)."""
    rate = _RATE_ALIASES.get(rate, rate)
    x = _RATE_ALIASES.get(x, x)
    check_choice("rate", rate, _THRESHOLD_RATES)
    check_choice("x", x, _THRESHOLD_RATES)
    check_choice("interpolation", interpolation, _INTERPOLATIONS)
    r = _check_rate("at", at)
    lay, shape, sign = sc._lay, r.shape, sc._sign
    name = f"{rate}_at_{x}"

    def fn(v: _View) -> np.ndarray:
        if interpolation == "linear":  # along the ROC polyline: ranks only (issue 21)
            val = _roc_rate_at(lay, v, rate, x, r.reshape(-1)).reshape((v.b, *shape))
            if not with_threshold:
                return val
            tau = _tau_at_rate(lay, v, x, r.reshape(-1), interpolation)
        else:  # the rate at a real threshold, the score on one side
            tau = _tau_at_rate(lay, v, x, r.reshape(-1), interpolation)
            val = _rate_at_tau_rows(lay, v, rate, tau).reshape((v.b, *shape))
            if not with_threshold:
                return val
        return np.stack([val, (sign * tau).reshape((v.b, *shape))], -1)

    point = (rate, x, r)
    if not with_threshold:
        return _Spec(name, fn, shape, search=True, bounds=_RATE, point=point)
    parts = (_Part(name, _RATE), _Part(f"threshold_at_{x}", _UNBOUNDED))
    return _Spec(name, fn, (*shape, 2), search=True, parts=parts, point=point)


def _resolve(sc: ScoreData, metric: Any, kw: dict[str, Any]) -> _Spec:
    """Bind a metric name and its options to a Scores object."""
    if not isinstance(metric, str):
        raise TypeError(f"`metric` must be a metric name or a callable; got {metric!r}.")
    lay, sign = sc._lay, sc._sign
    name = _RATE_ALIASES.get(metric, metric)
    if name in ("eer", "eer_threshold", "eer_and_threshold"):
        _no_extra(name, kw, ())
        col = {"eer": 0, "eer_threshold": 1}.get(name)

        def fn_eer(v: _View) -> np.ndarray:
            out = _eer(lay, v) * np.array([1.0, sign])
            return out if col is None else out[:, col]

        if col is None:  # joint: the EER and its threshold from the same replicates
            parts = (_Part("eer", _RATE), _Part("eer_threshold", _UNBOUNDED))
            return _Spec(name, fn_eer, (2,), search=True, parts=parts)
        return _Spec(name, fn_eer, (), search=True, bounds=_RATE if col == 0 else _UNBOUNDED)
    if name in ("auc", "roc_auc"):
        _no_extra(name, kw, ())
        labels = np.concatenate([np.zeros(len(sc.neg)), np.ones(len(sc.pos))])
        z = sign * np.concatenate([sc.neg, sc.pos])
        # the AUC depends on the order only: dense ranks keep infinite scores (LLRs) valid
        kern = RocAucKernel(labels, np.unique(z, return_inverse=True)[1].astype(float))

        def fn_auc(v: _View) -> np.ndarray:
            return kern.evaluate(np.concatenate(v.w, axis=1))  # type: ignore[attr-defined]

        return _Spec("auc", fn_auc, (), search=False, full=True, bounds=_RATE)
    if name.startswith("threshold_at_"):
        rate = _RATE_ALIASES.get(name[len("threshold_at_") :], name[len("threshold_at_") :])
        if rate not in _THRESHOLD_RATES:
            raise ValueError(f"Unknown metric {metric!r}; thresholds exist at tpr, fnr, tnr, fpr.")
        _no_extra(name, kw, ("rate", "interpolation"))
        if "rate" not in kw:
            raise TypeError(f"{name!r} needs `rate=` (the target {rate}).")
        r = _check_rate("rate", kw["rate"])
        interp = check_choice("interpolation", kw.get("interpolation", "linear"), _INTERPOLATIONS)

        def fn_thr(v: _View) -> np.ndarray:
            tau = _tau_at_rate(lay, v, rate, r.reshape(-1), interp)
            return (sign * tau).reshape((v.b, *r.shape))

        return _Spec(f"threshold_at_{rate}", fn_thr, r.shape, search=True)
    if "_at_" in name:
        y, _, x = name.partition("_at_")
        if _RATE_ALIASES.get(y, y) in _THRESHOLD_RATES and _RATE_ALIASES.get(x, x) in (
            _THRESHOLD_RATES
        ):
            _no_extra(name, kw, ("at", "interpolation"))
            if "at" not in kw:
                raise TypeError(f"{name!r} needs `at=` (the value of {x} at the operating point).")
            return _operating_point_spec(sc, y, x, kw["at"], kw.get("interpolation", "linear"))
    if name in CM_METRICS:
        _no_extra(name, kw, ("threshold", "beta"))
        if "threshold" not in kw:
            raise TypeError(f"{name!r} is a rate at a threshold: pass `threshold=`.")
        t = _check_threshold(kw["threshold"])
        beta = _check_beta(kw.get("beta", 1.0))

        def fn_cm(v: _View) -> np.ndarray:
            cm = _counts_at(lay, v, sign * t.reshape(-1))
            return binary_cm_metric(cm, name, beta).reshape((v.b, *t.shape))

        return _Spec(name, fn_cm, t.shape, search=True, fixed=True, bounds=cm_metric_bounds(name))
    known = [
        "eer",
        "eer_threshold",
        "auc",
        "threshold_at_<tpr|fnr|tnr|fpr>",
        "<rate>_at_<rate>",
        *CM_METRICS,
    ]
    raise ValueError(f"Unknown metric {metric!r}; known metrics: {', '.join(known)}.")


def _check_beta(beta: Any) -> float:
    if isinstance(beta, bool) or not isinstance(beta, int | float | np.integer | np.floating):
        raise TypeError(f"`beta` must be a number >= 0; got {beta!r}.")
    if not (np.isfinite(beta) and beta >= 0):
        raise ValueError(f"`beta` must be a number >= 0; got {beta!r}.")
    return float(beta)
