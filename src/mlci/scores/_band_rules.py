"""The few-events rule of :func:`mlci.roc_band`'s simultaneous (sup-t) band.

The sup-t band (``est +- c se``, ``c`` the level-quantile of the replicates' largest
standardised deviation over the grid) falls short where a grid point's TPR rests on few
positives on one side of its threshold: the replicates of that point move in steps of
``1 / n_pos`` and their standard error understates the curve's, so the studentized
deviation of the true curve there has heavier tails than the replicates'.  Design search
seed 10, #129 (1,432 scores, about 90 positives, AUC 0.885, 8 FPRs in 0.07-0.66: at most
2 positives below the threshold at the top FPRs) held the whole true curve in 0.888 of
2,000 test sets, unwarned.  The check (binormal, 8 FPRs, B = 500, 13 designs of 60-1,000
positives and 300-10,656 negatives, AUC 0.76-0.96, 400 test sets each, 5,200 in all,
``scripts/data`` not kept; docs/validation.md, "The simultaneous ROC band with few
events at a grid point"): binned by the fewest positives on the short side of any grid
point (``n_pos min(TPR, 1 - TPR)``, points with a TPR of exactly 0 or 1 left to the Wilson
edge interval), the band covered 0.761 (below 2, 268 test sets), 0.908 (2-4, 728), 0.893
(4-6, 411), 0.906 (6-8, 531), 0.928 (8-10, 471), and 0.954-0.973 from 10 on (2,791 test
sets); below :data:`MIN_BAND_EVENTS` (0.892 of the 2,409 such test sets, 0.965 of the others)
those points' band reaches at least the Wilson interval of their count of ``n_pos`` at
the Bonferroni level ``1 - (1 - level) / k`` over the ``k`` grid points, with a warning
(:func:`widen_few_band_events`): in 6 of those designs (300 other test sets each) the
band then covered 0.943-0.963 where the sup-t band alone covered 0.893-0.943 (#129's
design, 90 positives: 0.903 -> 0.963), 1-12% wider; a design without such points
(300 + 300, AUC 0.76) is unchanged (0.940).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..exceptions import NearBoundWarning
from ..feedback import warn
from ..intervals.bootstrap import wilson_interval
from ._roc import _check_rate

__all__ = [
    "DEFAULT_GRID_POINTS",
    "MIN_BAND_EVENTS",
    "band_events",
    "default_band_grid",
    "few_band_events_text",
    "sup_t",
    "vertical_band_grid",
    "widen_few_band_events",
]

#: a simultaneous ROC band one of whose grid points has fewer positives than this on the
#: short side of its threshold (``n_pos min(TPR, 1 - TPR)``, TPR strictly inside (0, 1))
#: warns (:func:`warn_few_band_events`); the check in this module's docstring
MIN_BAND_EVENTS = 10.0


#: points of :func:`mlci.roc_band`'s default vertical grid
DEFAULT_GRID_POINTS = 101


def default_band_grid(
    curve: Any, n_pos: float, n_neg: float, events: float = MIN_BAND_EVENTS
) -> tuple[np.ndarray, dict[str, Any]]:
    """The default FPR grid of a vertical ROC band: :data:`DEFAULT_GRID_POINTS` equally
    spaced FPRs between the first and the last FPR of the empirical curve (``curve``:
    its ``x`` FPRs by increasing value, ``y`` TPRs) at which both rates have at least ``events``
    samples on either side of the threshold: ``n_neg min(FPR, 1 - FPR) >= events`` and
    ``n_pos min(TPR, 1 - TPR) >= events``.  Also a dict for the band's ``extra``
    (``"grid_rule"``, and ``"grid_warning"`` when no FPR has that many; the grid is then
    the one with at least one sample of each class on either side, or ``[0.5]``, after a
    :class:`~mlci.exceptions.NearBoundWarning`).

    Outside that range the vertical band cannot hold its level: at FPR 0 the estimate is
    the share of positives above the largest negative (the truth of a continuous model
    is 0), below ``1/n_neg`` the threshold is an extreme order statistic, and a TPR within
    a few positives of 0 or 1 moves in steps of ``1/n_pos`` in the replicates, whose
    standard error understates its own (docs/validation.md, "The default grid of the
    simultaneous ROC band").

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> f = np.linspace(0, 1, 201)
    >>> x, info = default_band_grid(SimpleNamespace(x=f, y=np.sqrt(f)), 300, 300)
    >>> len(x), round(float(x[0]), 4), round(float(x[-1]), 4)
    (101, 0.035, 0.93)
    >>> info["grid_rule"].split(":")[0]
    'at least 10 samples of each class on either side of every threshold'
    """
    f, t = np.asarray(curve.x, dtype=float), np.asarray(curve.y, dtype=float)
    # the band reads the top of a vertical step (the highest TPR at an FPR)
    top = np.r_[f[1:] != f[:-1], True] if f.size else np.zeros(0, dtype=bool)
    f, t = f[top], t[top]

    def span(m: float) -> tuple[float, float] | None:
        ok = (n_neg * np.minimum(f, 1 - f) >= m - 1e-9) & (n_pos * np.minimum(t, 1 - t) >= m - 1e-9)
        if not ok.any():
            return None
        lo, hi = float(f[ok].min()), float(f[ok].max())
        return lo, hi

    rule = (
        f"at least {events:g} samples of each class on either side of every threshold: "
        f"n_neg min(FPR, 1 - FPR) >= {events:g} and n_pos min(TPR, 1 - TPR) >= {events:g} "
        "on the empirical curve"
    )
    found = span(events)
    if found is not None:
        lo, hi = found
        return np.linspace(lo, hi, DEFAULT_GRID_POINTS if hi > lo else 1), {"grid_rule": rule}
    text = (
        f"No FPR of this ROC curve ({n_pos:.4g} positives, {n_neg:.4g} negatives) has "
        f"{events:g} samples of each class on either side of its threshold, where mlci's "
        "simultaneous band held its level (docs/validation.md, 'The default grid of the "
        "simultaneous ROC band'); the default grid spans the FPRs with at least one, and "
        "the band may fall short of its level there. Collect more samples of the rarer "
        "class, or pass a `grid`."
    )
    found = span(1.0)
    lo, hi = found if found is not None else (0.5, 0.5)
    x = np.linspace(lo, hi, DEFAULT_GRID_POINTS if hi > lo else 1)
    warn(text, NearBoundWarning)
    return x, {"grid_rule": rule, "grid_warning": text}


def vertical_band_grid(grid: Any, curve: Any, scores: Any) -> tuple[np.ndarray, dict[str, Any]]:
    """:func:`mlci.roc_band`'s FPR grid: ``grid`` checked (1-d, in [0, 1]), or without one
    :func:`default_band_grid` of ``curve()`` (the empirical ROC curve of ``scores``)."""
    if grid is None:
        return default_band_grid(curve(), scores.n_pos, scores.n_neg)
    x = _check_rate("grid", grid)
    if x.ndim != 1:
        raise ValueError(f"`grid` must be 1-d; got an array of shape {x.shape}.")
    return x, {}


def band_events(tpr: Any, n_pos: float) -> float | None:
    """The fewest positives on the short side of any grid point's threshold,
    ``n_pos min(TPR, 1 - TPR)`` over the points whose estimated TPR lies strictly inside
    (0, 1) (a point at 0 or 1 gets the Wilson edge interval), or None without such a point.

    Examples
    --------
    >>> band_events([0.5, 0.9, 0.98, 1.0], 90)  # 90 x 0.02 below the last inner point
    1.8
    >>> band_events([1.0, 1.0], 90) is None
    True
    """
    t = np.asarray(tpr, dtype=float)
    t = t[np.isfinite(t) & (t > 1e-12) & (t < 1 - 1e-12)]
    if not t.size or not n_pos > 0:
        return None
    return float(round(float(n_pos) * float(np.min(np.minimum(t, 1.0 - t))), 9))


def sup_t(est: np.ndarray, dist: np.ndarray, level: float) -> tuple[float, np.ndarray]:
    """Sup-t critical value and standard errors from a bootstrap distribution (B, k)."""
    se = np.nanstd(dist, axis=0, ddof=1)
    ok = se > 0
    dev = np.abs(dist[:, ok] - est[ok]) / se[ok]
    t = np.nanmax(dev, axis=1) if dev.shape[1] else np.zeros(dist.shape[0])
    return float(np.quantile(t[np.isfinite(t)], level)), se


def few_band_events_text(events: float, n_pos: float, points: int) -> str:
    """The warning of :func:`widen_few_band_events`.

    Examples
    --------
    >>> few_band_events_text(1.8, 90, 2).split(":")[0]
    'A simultaneous ROC band over 90 positives with 1.8 of them on the short side of a grid point'
    """
    return (
        f"A simultaneous ROC band over {n_pos:.4g} positives with {events:.2g} of them on the "
        f"short side of a grid point: below {MIN_BAND_EVENTS:g} (n_pos x min(TPR, 1 - TPR)), "
        "the sup-t band held the whole curve in only 0.76-0.93 of mlci's test sets (0.888 in "
        "design search seed 10, #129; docs/validation.md, 'The simultaneous ROC band with "
        f"few events at a grid point'), so the band at those {points} point(s) reaches at "
        "least their Wilson interval at the Bonferroni level over the grid "
        "(extra['few_event_points']; 8-point grids inside (0, 1) then held 0.943-0.963, "
        "grids reaching FPR 0 or 1 still fell short). Drop grid points near TPR 0 or 1, "
        "or collect more positives, for a narrower band."
    )


def widen_few_band_events(band: Any, n_pos: float) -> Any:
    """``band`` (a :class:`~mlci.scores.curves.CurveBand` over ``n_pos`` positives) as it
    is, or, for a simultaneous vertical band with grid points of fewer than
    :data:`MIN_BAND_EVENTS` positives on the short side of their threshold
    (``n_pos min(TPR, 1 - TPR)``, TPR inside (0, 1)), the band with those points reaching
    at least the Wilson interval of ``round(TPR n_pos)`` of ``n_pos`` at the level
    ``1 - (1 - level) / k`` (``k`` grid points), after a
    :class:`~mlci.exceptions.NearBoundWarning` (:func:`few_band_events_text`, also in
    ``extra["few_events_warning"]``; the points in ``extra["few_event_points"]``)."""
    if not band.simultaneous or band.kind != "vertical" or not n_pos > 0:
        return band
    t = np.asarray(band.y, dtype=float)
    inner = np.isfinite(t) & (t > 1e-12) & (t < 1 - 1e-12)
    few = np.flatnonzero(inner & (n_pos * np.minimum(t, 1.0 - t) < MIN_BAND_EVENTS - 1e-9))
    if not few.size:
        return band
    events = band_events(t, n_pos)
    assert events is not None
    level = 1.0 - (1.0 - band.confidence_level) / len(t)
    low, high = np.array(band.low, dtype=float), np.array(band.high, dtype=float)
    for i in few:
        p = float(np.round(t[i] * n_pos) / n_pos)
        w_low, w_high, _ = wilson_interval(p, n_pos, None, confidence_level=level)
        low[i], high[i] = min(low[i], float(w_low)), max(high[i], float(w_high))
    text = few_band_events_text(events, n_pos, len(few))
    warn(text, NearBoundWarning)
    extra = {**band.extra, "few_event_points": few, "few_events_warning": text}
    return replace(band, low=low, high=high, extra=extra)
