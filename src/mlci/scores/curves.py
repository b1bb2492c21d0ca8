"""ROC, DET and precision-recall curves with confidence bands.

Curves come from the sorted scores of a :class:`mlci.Scores` object: one point per
distinct score (every operating point), as scikit-learn's ``roc_curve`` with
``drop_intermediate=False``.  Bands are bootstrap intervals of the curve on a grid:

* ``kind="vertical"``: TPR at fixed FPR values (thresholds re-set in every replicate);
* ``kind="threshold"``: TPR and FPR at fixed thresholds (one interval per axis);
* ``simultaneous=True`` widens the pointwise band to a band that holds for the whole
  grid at once: the sup-t (max standardised deviation) quantile of the bootstrap
  distribution, ``estimate +- c * se`` with ``c`` the ``confidence_level`` quantile of
  ``max_k |theta*_k - theta_k| / se_k`` (Montiel Olea & Plagborg-Moller 2019).

The AUC and partial AUC (:mod:`mlci.scores.auc`) and an operating point's interval
(:mod:`mlci.scores.operating_point`) are handed on from here too.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import ndtri

from ..exceptions import DegenerateIntervalWarning
from ..feedback import reports_progress
from ..inputs import (
    check_choice,
    check_confidence_level,
    check_flag,
    check_positive_int,
    column,
    fill_doc,
    knobs_in_config,
)
from ..inputs.resampling import Resampling, check_resampling, resampling_keywords
from ..results import BootstrapResult, Result, format_value
from ._band_rules import sup_t as _sup_t
from ._band_rules import vertical_band_grid, widen_few_band_events
from ._edge_interval import edge_band
from ._roc import _RATE, _check_rate, _counts_at, _every_point_counts, _View
from ._specs import _operating_point_spec, _Part, _Spec
from .auc import auc_ci, partial_auc
from .confusion import binary_cm_metric
from .operating_point import operating_point_ci
from .scores import Scores, check_scores

__all__ = [
    "Curve",
    "CurveBand",
    "auc_ci",
    "det_curve",
    "operating_point_ci",
    "partial_auc",
    "pr_curve",
    "roc_band",
    "roc_curve",
    "roc_with_ci",
]


@dataclass(frozen=True, repr=False)
class Curve(Result):
    """Points of a curve: ``x``, ``y`` and the ``thresholds`` giving them (same length).

    Attributes
    ----------
    x, y : ndarray
        The points (e.g. FPR and TPR), named by ``x_name`` and ``y_name``.
    thresholds : ndarray
        The threshold of every point.
    x_name, y_name : str
        ``"fpr"``/``"tpr"`` (ROC), ``"fpr"``/``"fnr"`` or ``"probit_fpr"``/``"probit_fnr"``
        (DET), ``"recall"``/``"precision"`` (precision-recall).

    Examples
    --------
    >>> c = roc_curve(Scores(pos=[1, 2, 3], neg=[0.5, 1.5, 2.5]))
    >>> c
    Curve(tpr vs fpr, 7 points)
    >>> c.to_frame().round(3).head(3)
         fpr    tpr  threshold
    0  0.000  0.000        3.0
    1  0.000  0.333        3.0
    2  0.333  0.333        2.5
    """

    x: np.ndarray
    y: np.ndarray
    thresholds: np.ndarray
    x_name: str
    y_name: str

    def __repr__(self) -> str:
        return f"Curve({self.y_name} vs {self.x_name}, {len(self.x)} points)"

    def rows(self) -> list[dict[str, Any]]:
        """One row per point: ``x_name``, ``y_name``, ``threshold``."""
        cols = (self.x.tolist(), self.y.tolist(), self.thresholds.tolist())
        return [
            {self.x_name: x, self.y_name: y, "threshold": t} for x, y, t in zip(*cols, strict=True)
        ]


@dataclass(frozen=True, repr=False)
class CurveBand(Result):
    """A curve on a grid with a confidence band.

    Attributes
    ----------
    x : ndarray
        The grid (FPR values for a vertical ROC band, thresholds for a threshold band).
    y : ndarray
        The curve on the grid.
    low, high : ndarray
        The band (pointwise, or simultaneous when ``simultaneous``).
    pointwise_low, pointwise_high : ndarray
        The pointwise band (equal to ``low``/``high`` unless simultaneous).
    x_name, y_name : str
        ``"fpr"`` (vertical band) or ``"threshold"`` (threshold band), and ``"tpr"``;
        ``"fnr"`` and ``"fpr"`` for a horizontal band (:func:`roc_with_ci` with ``fnr=``).
    kind : {"vertical", "threshold", "horizontal"}
    simultaneous : bool
        Whether ``low``/``high`` hold for the whole grid at once (sup-t band).
    confidence_level : float
    critical_value : float or None
        The sup-t critical value of a simultaneous band.
    result : BootstrapResult
        The bootstrap behind the band (distribution of ``y`` on the grid).
    extra : dict
        A threshold band's FPR interval (``fpr``, ``fpr_low``, ``fpr_high``, ``fpr_result``);
        ``edge_points``: the grid points whose collapsed interval became Wilson's (roc_band);
        ``few_event_points``: those widened to Wilson's by the few-events rule.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = Scores(rng.normal(1, 1, 300), rng.normal(0, 1, 300))
    >>> band = roc_band(s, [0.1, 0.2, 0.5], rng=0, n_resamples=200)
    >>> band
    CurveBand(tpr vs fpr, 3 points, pointwise 95% band, max width 0.1869)
    >>> band.to_frame().round(3)
       fpr    tpr    low   high
    0  0.1  0.390  0.323  0.467
    1  0.2  0.540  0.423  0.610
    2  0.5  0.827  0.773  0.877
    """

    x: np.ndarray
    y: np.ndarray
    low: np.ndarray
    high: np.ndarray
    pointwise_low: np.ndarray
    pointwise_high: np.ndarray
    x_name: str
    y_name: str
    kind: str
    simultaneous: bool
    confidence_level: float
    critical_value: float | None = None
    result: BootstrapResult | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        sim = "simultaneous" if self.simultaneous else "pointwise"
        width = format_value(np.nanmax(self.high - self.low))
        return (
            f"CurveBand({self.y_name} vs {self.x_name}, {len(self.x)} points, {sim} "
            f"{self.confidence_level:.0%} band, max width {width})"
        )

    def rows(self) -> list[dict[str, Any]]:
        """One row per grid point: ``x_name``, ``y_name``, ``low``, ``high`` (the band);
        ``pointwise_low``, ``pointwise_high`` for a simultaneous band; ``fpr``,
        ``fpr_low``, ``fpr_high`` for a threshold band."""
        cols: dict[str, Any] = {
            self.x_name: self.x,
            self.y_name: self.y,
            "low": self.low,
            "high": self.high,
        }
        if self.simultaneous:
            cols.update(pointwise_low=self.pointwise_low, pointwise_high=self.pointwise_high)
        for k in ("fpr", "fpr_low", "fpr_high"):
            if k in self.extra:
                cols[k] = self.extra[k]
        n = len(self.x)
        lists = {k: np.broadcast_to(np.asarray(v, dtype=float), (n,)).tolist()
                 for k, v in cols.items()}  # fmt: skip
        return [{k: v[i] for k, v in lists.items()} for i in range(n)]

    def to_dict(self, *, include_result: bool = False) -> dict[str, Any]:
        """All fields as plain Python values.

        Parameters
        ----------
        include_result : bool, default False
            The bootstrap results behind the band (``result``, ``extra["fpr_result"]``)
            are left out unless asked for.
        """
        d = super().to_dict()
        if not include_result:
            d.pop("result")
            d["extra"] = {k: v for k, v in d["extra"].items() if k != "fpr_result"}
        return d


def _points(sc: Scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FPR, TPR and thresholds of every operating point, by increasing FPR."""
    lay = sc._lay
    fnr = lay.F[1][lay.bq[1]] / lay.n[1]
    tnr = lay.F[0][lay.bq[0]] / lay.n[0]
    thr = sc._sign * lay.theta
    return (1 - tnr)[::-1], (1 - fnr)[::-1], thr[::-1]


_AXES = {"far": "fpr", "frr": "fnr", "tar": "tpr", "trr": "tnr"}


def _check_axes(x_axis: Any, y_axis: Any) -> tuple[str, str]:
    x = _AXES.get(x_axis, x_axis) if isinstance(x_axis, str) else x_axis
    y = _AXES.get(y_axis, y_axis) if isinstance(y_axis, str) else y_axis
    check_choice("x_axis", x, ("fpr", "fnr", "tpr", "tnr"))
    check_choice("y_axis", y, ("fpr", "fnr", "tpr", "tnr"))
    if {x, y} in ({"tpr", "fnr"}, {"fpr", "tnr"}) or x == y:
        raise ValueError(
            f"`x_axis`={x_axis!r} and `y_axis`={y_axis!r}: a ROC plots a rate of the "
            "positives (tpr/fnr) against a rate of the negatives (fpr/tnr)."
        )
    return x, y


def roc_curve(
    scores: Scores,
    *,
    thresholds: Any = None,
    n_points: Any = None,
    fpr: Any = None,
    fnr: Any = None,
    x_axis: str = "fpr",
    y_axis: str | None = None,
) -> Curve:
    """ROC curve: TPR against FPR at every operating point, by increasing FPR.

    Parameters
    ----------
    scores : Scores
    thresholds : array_like of float, optional
        Evaluate the curve at these thresholds.
    fpr, fnr : array_like of float in [0, 1], optional
        Evaluate it (also) at the thresholds where the FPR (FNR) takes these values
        (:meth:`Scores.threshold_at_fpr`; the union with ``thresholds``, as
        score-analysis's ``roc(fnr=, fpr=, thresholds=)``).
    n_points : int, optional
        Evaluate it at ``n_points`` thresholds: half at evenly spaced FNR values in
        [0, 1], half at evenly spaced FPR values (as score-analysis's
        ``roc(nb_points=...)``), so that points follow the curve whatever the scores'
        scale; by default every operating point (the exact curve).
    x_axis : {"fpr", "fnr", "tpr", "tnr"} (or "far", "frr", "tar", "trr"), default "fpr"
        The rate on the x-axis; points are sorted by it, increasing.
    y_axis : optional
        The rate on the y-axis: a rate of the other class (default: ``"tpr"`` for a
        negative-class ``x_axis``, ``"fpr"`` for a positive-class one).

    Returns
    -------
    Curve
        ``x``, ``y`` and the ``threshold`` of every point.

    Examples
    --------
    >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
    >>> c = roc_curve(s)
    >>> c.x
    array([0.  , 0.  , 0.25, 0.25, 0.5 , 0.5 , 0.75, 0.75, 1.  ])
    >>> c.y
    array([0.  , 0.25, 0.25, 0.5 , 0.5 , 0.75, 0.75, 1.  , 1.  ])
    >>> roc_curve(s, n_points=6).x
    array([0.  , 0.  , 0.25, 0.5 , 0.75, 1.  ])
    >>> roc_curve(s, fpr=[0.25, 0.5], fnr=[0.1])
    Curve(tpr vs fpr, 3 points)
    >>> roc_curve(s, x_axis="fnr").x_name, roc_curve(s, x_axis="fnr").y_name
    ('fnr', 'fpr')
    """
    sc = check_scores(scores)
    if y_axis is None:
        xa = _AXES.get(x_axis, x_axis) if isinstance(x_axis, str) else x_axis
        y_axis = "fpr" if xa in ("tpr", "fnr") else "tpr"
    x_name, y_name = _check_axes(x_axis, y_axis)
    at_rates = fpr is not None or fnr is not None
    if thresholds is None and n_points is None and not at_rates:
        thr = _points(sc)[2]
    elif n_points is not None:
        if thresholds is not None or at_rates:
            raise ValueError(
                "Pass either `n_points` or the points (`thresholds`, `fpr`, `fnr`), not both."
            )
        n_points = check_positive_int("n_points", n_points, minimum=2)
        half = n_points // 2
        thr = np.r_[
            sc.threshold_at_fnr(np.linspace(0.0, 1.0, half)),
            sc.threshold_at_fpr(np.linspace(0.0, 1.0, n_points - half)),
        ]
    else:
        parts = []
        if thresholds is not None:
            t = np.asarray(thresholds)
            if t.dtype.kind not in "iuf" or t.ndim != 1:
                raise TypeError("`thresholds` must be a 1-d array of numbers.")
            if np.isnan(t.astype(float)).any():
                raise ValueError("`thresholds` contains NaN.")
            parts.append(t.astype(float))
        for name, r, fn in (("fpr", fpr, sc.threshold_at_fpr), ("fnr", fnr, sc.threshold_at_fnr)):
            if r is not None:
                rr = _check_rate(name, r)
                if rr.ndim != 1:
                    raise ValueError(f"`{name}` must be 1-d; got an array of shape {rr.shape}.")
                parts.append(np.asarray(fn(rr), dtype=float).reshape(-1))
        thr = np.concatenate(parts) if parts else np.empty(0)
        if thr.size == 0:
            raise ValueError("No point asked for: `thresholds`, `fpr` and `fnr` are all empty.")
    every = thresholds is None and n_points is None and not at_rates
    cm = _every_point_counts(sc._lay, sc._full_view()) if every else None  # (no search)
    x, y = (
        np.asarray(sc.metric(a, thr) if cm is None else binary_cm_metric(cm, a), dtype=float)
        for a in (x_name, y_name)
    )
    x, y, thr = x.reshape(-1), y.reshape(-1), np.asarray(thr, dtype=float).reshape(-1)
    if np.all(x[1:] >= x[:-1]) and np.all(y[1:] >= y[:-1]):  # in order (a stable lexsort)
        return Curve(x, y, thr, x_name, y_name)
    order = np.lexsort((y, x))
    return Curve(x[order], y[order], thr[order], x_name, y_name)


@resampling_keywords
@knobs_in_config
@fill_doc
def roc_with_ci(
    scores: Scores,
    *,
    fpr: Any = None,
    fnr: Any = None,
    simultaneous: bool = False,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    alternative: str = "two-sided",
    rng: Any = None,
    conditions: Any = None,
    strata: Any = None,
    resampling: Resampling | None = None,
    dropna: bool = False,
) -> CurveBand:
    """The ROC curve with a confidence band, in one call.

    A band *at fixed values of one rate*: with ``fpr`` (default: :func:`roc_band`'s grid),
    the TPR at each FPR with its interval (a vertical band, :func:`roc_band`); with
    ``fnr``, the FPR at each FNR with its interval (a horizontal band, on the DET
    curve's axes).  In every replicate the threshold is set again at the given rate, so
    the band accounts for the threshold's own uncertainty.

    Parameters
    ----------
    scores : Scores
    fpr, fnr : array-like of float in [0, 1], 1-d
        The grid of the fixed rate (one of them).
    simultaneous : bool, default False
        Sup-t band holding on the whole grid at once (see :func:`roc_band`).
    n_resamples, confidence_level, method, alternative, rng, conditions, strata, dropna
        As in :meth:`Scores.bootstrap_ci`.
    %(resampling_scores)s

    Returns
    -------
    CurveBand
        ``x`` the grid (``x_name`` ``"fpr"`` or ``"fnr"``), ``y`` the other rate
        (``"tpr"`` or ``"fpr"``) with ``low``/``high``.

    Notes
    -----
    score-analysis's ``roc_with_ci`` joins pointwise FNR and FPR intervals into a union
    of rectangles and adds 20 support points; mlci's band is the interval of one rate at
    each value of the other, at the points asked for.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = Scores(rng.normal(1, 1, 300), rng.normal(0, 1, 300))
    >>> roc_with_ci(s, fpr=[0.1, 0.2], rng=0, n_resamples=200)
    CurveBand(tpr vs fpr, 2 points, pointwise 95% band, max width 0.1...)
    >>> band = roc_with_ci(s, fnr=[0.2, 0.5], rng=0, n_resamples=200)
    >>> band.x_name, band.y_name, band.y.round(3)
    ('fnr', 'fpr', array([0.443, 0.187]))
    """
    rs = check_resampling(
        resampling, ("stratify", "two_stage", "weights"), "mlci.roc_with_ci", stratify=None
    )
    sc = check_scores(scores)
    if fpr is not None and fnr is not None:
        raise ValueError("Pass either `fpr` or `fnr` (the rate held fixed), not both.")
    bootstrap = dict(
        n_resamples=n_resamples, confidence_level=confidence_level, method=method,
        alternative=alternative, rng=rng, conditions=conditions, strata=strata,
        resampling=rs, dropna=dropna,
    )  # fmt: skip
    if fnr is None:
        if fpr is not None:
            fpr = _check_rate("fpr", fpr)
            if fpr.ndim != 1:
                raise ValueError(f"`fpr` must be 1-d; got an array of shape {fpr.shape}.")
        return roc_band(sc, fpr, kind="vertical", simultaneous=simultaneous, **bootstrap)
    level = check_confidence_level(confidence_level)
    check_flag("simultaneous", simultaneous)
    if simultaneous and alternative != "two-sided":
        raise ValueError(
            "A simultaneous band is two-sided: `alternative` must be 'two-sided' with "
            f"`simultaneous=True`; got {alternative!r}."
        )
    grid = _check_rate("fnr", fnr)
    if grid.ndim != 1:
        raise ValueError(f"`fnr` must be 1-d; got an array of shape {grid.shape}.")

    def make(s: Scores) -> _Spec:
        return _operating_point_spec(s, "fpr", "fnr", grid, "linear")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateIntervalWarning)
        res = sc._bootstrap(make, algorithm="weights", **bootstrap)[0]
    return _band(grid, res, level, bool(simultaneous), "fnr", "fpr", "horizontal")


def _band(
    x: np.ndarray,
    res: BootstrapResult,
    level: float,
    simultaneous: bool,
    x_name: str,
    y_name: str,
    kind: str,
    extra: dict[str, Any] | None = None,
    n: float = 0.0,
) -> CurveBand:
    """A CurveBand from the bootstrap of the curve on its grid (sup-t when simultaneous)."""
    est = np.asarray(res.estimate)
    crit, se = _sup_t(est, res.bootstrap_distribution, level) if simultaneous else (None, 0.0)
    plo, phi, edge = edge_band(res, x, kind, n, level, crit)  # points stuck at 0 or 1
    lo, hi = plo, phi
    if crit is not None:
        lo = np.clip(np.minimum(est - crit * se, plo), 0, 1)
        hi = np.clip(np.maximum(est + crit * se, phi), 0, 1)
    extra = {**(extra or {}), **edge}
    return CurveBand(
        x, est, lo, hi, plo, phi, x_name, y_name, kind, simultaneous, level, crit, res, extra
    )


def det_curve(scores: Scores, *, probit: bool = True) -> Curve:
    """DET curve: FNR against FPR; with ``probit=True`` both on normal-deviate axes.

    The probit of 0 and 1 is -inf/+inf; plot libraries drop those points.

    Parameters
    ----------
    scores : Scores
    probit : bool, default True
        Map both rates through the standard normal quantile (DET axes).

    Returns
    -------
    Curve
        ``x``, ``y`` and the ``threshold`` of every point.

    Examples
    --------
    >>> c = det_curve(Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5]), probit=False)
    >>> c.y[:3]
    array([1.  , 0.75, 0.75])
    """
    fpr, tpr, thr = _points(check_scores(scores))
    check_flag("probit", probit)
    fnr = 1 - tpr
    if probit:
        with np.errstate(divide="ignore"):
            return Curve(ndtri(fpr), ndtri(fnr), thr, "probit_fpr", "probit_fnr")
    return Curve(fpr, fnr, thr, "fpr", "fnr")


def pr_curve(scores: Scores) -> Curve:
    """Precision-recall curve at every operating point, by increasing recall.

    Where nothing is decided positive precision is undefined; as scikit-learn, the
    curve starts at (recall 0, precision 1).

    Parameters
    ----------
    scores : Scores

    Returns
    -------
    Curve
        ``x``, ``y`` and the ``threshold`` of every point.

    Examples
    --------
    >>> c = pr_curve(Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5]))
    >>> c.x[:3], c.y[:3]
    (array([0.  , 0.25, 0.25]), array([1. , 1. , 0.5]))
    """
    sc = check_scores(scores)
    fpr, tpr, thr = _points(sc)
    tp, fp = tpr * sc.n_pos, fpr * sc.n_neg
    with np.errstate(invalid="ignore"):
        prec = np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1), 1.0)
    return Curve(tpr, prec, thr, "recall", "precision")


# ----------------------------------------------------------------------------- bands
@resampling_keywords
@knobs_in_config
@reports_progress
def roc_band(
    scores: Scores,
    grid: Any = None,
    *,
    kind: str = "vertical",
    simultaneous: bool = False,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    alternative: str = "two-sided",
    rng: Any = None,
    conditions: Any = None,
    strata: Any = None,
    resampling: Resampling | None = None,
    dropna: bool = False,
) -> CurveBand:
    """ROC curve with a bootstrap confidence band.

    Parameters
    ----------
    scores : Scores
    grid : array-like, optional
        FPR values in [0, 1] (``kind="vertical"``; default: 101 FPRs where the curve has 10
        samples of each class on either side, ``extra["grid_rule"]``) or thresholds
        (``kind="threshold"``, default 101 quantiles of the scores).
    kind : {"vertical", "threshold"}
        Vertical: TPR at fixed FPR (the threshold is re-set in each replicate).
        Threshold: TPR at fixed thresholds; the FPR interval (same replicates) is in
        ``extra["fpr_low"]``, ``extra["fpr_high"]``.
    simultaneous : bool
        Sup-t band covering the whole curve on the grid with ``confidence_level``
        (two-sided only).
    n_resamples, confidence_level, method, alternative, rng, conditions, strata, dropna
        As in :meth:`Scores.bootstrap_ci`; a TPR whose interval collapses onto 0 or 1
        gets the Wilson interval of ``n_pos`` instead (``extra["edge_points"]``); in a
        simultaneous vertical band a point with fewer than 10 positives on the short side
        of its threshold reaches its Wilson interval at the Bonferroni level, with a
        ``NearBoundWarning`` (:mod:`mlci.scores._band_rules`).
    resampling : mlci.Resampling, optional
        How the replicates are drawn beyond ``conditions`` and ``strata``: ``stratify``,
        ``two_stage``, ``weights`` (see :class:`mlci.Resampling`; default: the classical
        bootstrap).

    Returns
    -------
    CurveBand

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = Scores(rng.normal(1, 1, 300), rng.normal(0, 1, 300))
    >>> band = roc_band(s, np.linspace(0.05, 0.6, 8), simultaneous=True, rng=0, n_resamples=200)
    >>> bool(np.all(band.low <= band.pointwise_low + 1e-12))
    True
    """
    rs = check_resampling(
        resampling, ("stratify", "two_stage", "weights"), "mlci.roc_band", stratify=None
    )
    stratify, two_stage, weights = rs.stratify, rs.two_stage, rs.weights
    sc = check_scores(scores)
    check_choice("kind", kind, ("vertical", "threshold"))
    level = check_confidence_level(confidence_level)
    check_flag("simultaneous", simultaneous)
    if simultaneous and alternative != "two-sided":
        raise ValueError(
            "A simultaneous band is two-sided: `alternative` must be 'two-sided' with "
            f"`simultaneous=True`; got {alternative!r}."
        )
    if kind == "vertical":
        fpr_grid, grid_info = vertical_band_grid(grid, lambda: roc_curve(sc), sc)
        x = fpr_grid

        def make(s: Scores) -> _Spec:
            return _operating_point_spec(s, "tpr", "fpr", fpr_grid, "linear")

        algorithm = "weights"
    else:
        if grid is None:
            x = np.quantile(np.concatenate([sc.pos, sc.neg]), np.linspace(0, 1, 101))
        else:
            x = column("grid", grid, "scores")
        thresholds = x

        def make(s: Scores) -> _Spec:
            return _threshold_rates_spec(s, thresholds)

        algorithm = "auto"
    # a fixed end (TPR = 1 at FPR = 1) is degenerate by construction: no reason to warn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateIntervalWarning)
        results = sc._bootstrap(
            make,
            algorithm=algorithm,
            n_resamples=n_resamples,
            confidence_level=level,
            method=method,
            alternative=alternative,
            rng=rng,
            conditions=conditions,
            strata=strata,
            stratify=stratify,
            two_stage=two_stage,
            weights=weights,
            dropna=dropna,
        )
    res = results[0]
    extra: dict[str, Any] = dict(grid_info) if kind == "vertical" else {}
    if kind == "threshold":
        fres = results[1]
        extra = {
            "fpr": fres.estimate,
            "fpr_low": fres.confidence_interval.low,
            "fpr_high": fres.confidence_interval.high,
            "fpr_result": fres,
        }
    x_name = "fpr" if kind == "vertical" else "threshold"
    band = _band(x, res, level, bool(simultaneous), x_name, "tpr", kind, extra, sc.n_pos)
    return widen_few_band_events(band, sc.n_pos)  # few positives at a grid point


def precision_at_recall_spec(sc: Scores, grid: np.ndarray) -> _Spec:
    """Precision at the highest threshold whose recall reaches each ``grid`` value, on a
    view of the counts (:func:`mlci.pr_band` with ``conditions``).

    The same step rule as :func:`pr_curve` read by ``searchsorted(recall, grid)``: per row
    the operating points by increasing recall, recall and precision computed as there
    (``tpr = 1 - fnr``, ``tp = tpr * n_pos``); operating points of atoms a replicate did
    not draw repeat their neighbour's point, which leaves the step function unchanged.
    """
    lay = sc._lay

    def fn(v: _View) -> np.ndarray:
        n_neg, n_pos = v.total(0)[:, None], v.total(1)[:, None]
        rows = np.arange(v.b)[:, None]
        if hasattr(v, "cuts"):  # a view that searches itself (whole conditions)
            return _precision_by_search(lay, v, grid, n_neg, n_pos)
        with np.errstate(invalid="ignore", divide="ignore"):
            tpr = (1 - v.cum_fixed(1, lay.bq[1]) / n_pos)[:, ::-1]
            fpr = (1 - v.cum_fixed(0, lay.bq[0]) / n_neg)[:, ::-1]
            k = np.empty((v.b, len(grid)), dtype=np.intp)
            for row in range(v.b):  # recall is non-decreasing along each row
                k[row] = np.searchsorted(tpr[row], grid, side="left")
            k = np.minimum(k, tpr.shape[1] - 1)
            tp, fp = tpr[rows, k] * n_pos, fpr[rows, k] * n_neg
            prec = np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1), 1.0)
        return np.where((n_pos > 0) & (n_neg > 0), prec, np.nan)

    return _Spec("precision", fn, (len(grid),), search=True, full=True, bounds=_RATE, units=True)


def _precision_by_search(
    lay: Any, v: Any, grid: np.ndarray, n_neg: np.ndarray, n_pos: np.ndarray
) -> np.ndarray:
    """:func:`precision_at_recall_spec`'s values from a view's own search: the same
    operating points and the same floating-point expressions, bit for bit, without the
    rates at every operating point.

    ``tpr = 1 - cum / n_pos`` is non-increasing in the positives' cumulative count
    ``cum``, so "the first point (from the highest threshold down) with ``tpr >= r``" is
    the last operating point whose ``cum`` is at most ``c*``, the largest count whose
    ``tpr`` (as computed) reaches ``r``.
    """
    big = lay.G  # operating points 0..G
    with np.errstate(invalid="ignore", divide="ignore"):
        safe = np.where(n_pos > 0, n_pos, 1.0)
        c0 = np.floor((1.0 - grid[None, :]) * safe)
        best = np.full(c0.shape, -1.0)
        for d in (-2.0, -1.0, 0.0, 1.0, 2.0):  # tpr as the curve computes it
            c = np.clip(c0 + d, 0.0, safe)
            ok = (1 - c / safe) >= grid[None, :]
            best = np.where(ok & (c > best), c, best)
        g = np.maximum(v.cuts(1, best, True, big + 1) - 1, 0)
        tpr = 1 - v.cum_at(1, g) / n_pos
        fpr = 1 - v.cum_at(0, g) / n_neg
        tp, fp = tpr * n_pos, fpr * n_neg
        prec = np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1), 1.0)
    return np.where((n_pos > 0) & (n_neg > 0), prec, np.nan)


def _threshold_rates_spec(sc: Scores, thresholds: np.ndarray) -> _Spec:
    """TPR and FPR at fixed thresholds, jointly (last axis: tpr, fpr)."""
    lay, sign = sc._lay, sc._sign

    def fn(v: _View) -> np.ndarray:
        cm = _counts_at(lay, v, sign * thresholds)
        return np.stack([binary_cm_metric(cm, "tpr"), binary_cm_metric(cm, "fpr")], -1)

    parts = (_Part("tpr", _RATE), _Part("fpr", _RATE))
    return _Spec("tpr", fn, (len(thresholds), 2), search=True, fixed=True, parts=parts)
