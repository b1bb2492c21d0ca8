"""Plots of curves and intervals: thin shells over the API (no statistics here).

matplotlib is imported when a function is called; install it with ``pip install matplotlib``
(or ``pip install ".[plot]"`` in mlci's repository).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from .classical.proportions import proportion_ci
from .inputs import ArgSpec, check_choice, check_confidence_level, check_positive_int, gather

__all__ = [
    "det_grid",
    "plot_band",
    "plot_bootstrap_distribution",
    "plot_comparison_matrix",
    "plot_critical_difference",
    "plot_det",
    "plot_differences",
    "plot_forest",
    "plot_intervals",
    "plot_operating_point",
    "plot_posterior",
    "plot_pr",
    "plot_reliability",
    "plot_roc",
]


def _plt() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Plotting needs matplotlib: `pip install matplotlib` (or `pip install '.[plot]'` "
            "in mlci's repository)."
        ) from None
    return plt


def _axes(ax: Any) -> Any:
    return _plt().gca() if ax is None else ax


#: cells per axis of :func:`_display_points` (a 5-inch figure at 90 dpi is 450 pixels)
_DISPLAY_CELLS = 10_000


def _display_points(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points of a long polyline that a figure can show: of every run of consecutive
    points in one cell of a ``_DISPLAY_CELLS`` x ``_DISPLAY_CELLS`` grid over the data's
    range, the first and the last.

    The points left out lie in the cell of the segment that replaces them, so the line
    moves by less than a cell's diagonal (1.4e-4 of the axes, a 70th of a pixel at 450
    pixels); at most ``2 * 2 * _DISPLAY_CELLS`` points stay for a monotone curve.  A ROC
    curve of 10^6 samples has 10^6 points, which matplotlib draws, simplifies and
    writes (SVG, PNG) at about 0.25 s a curve (issue 25, the report).  Shorter lines,
    and lines with a non-finite value, are returned as they are.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 1 or x.shape != y.shape or len(x) <= 4 * _DISPLAY_CELLS:
        return x, y
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return x, y
    cell = []
    for v in (x, y):
        lo, span = v.min(), v.max() - v.min()
        cell.append(np.floor((v - lo) * (_DISPLAY_CELLS / span)) if span > 0 else np.zeros(len(v)))
    new = (cell[0][1:] != cell[0][:-1]) | (cell[1][1:] != cell[1][:-1])
    keep = np.zeros(len(x), dtype=bool)
    keep[0] = keep[-1] = True
    keep[1:] |= new  # the first point of a run
    keep[:-1] |= new  # the last point of a run
    return x[keep], y[keep]


def _plot_curve(
    curve: Any,
    band: Any,
    ax: Any,
    label: str | None,
    kwargs: dict[str, Any],
    xlabel: str,
    ylabel: str,
) -> Any:
    """A curve on linear axes, with its band (``x``, ``low``, ``high``) in the line's
    colour; a long curve drawn through the points a figure can show
    (:func:`_display_points`)."""
    ax = _axes(ax)
    (line,) = ax.plot(*_display_points(curve.x, curve.y), label=label, **kwargs)
    if band is not None:
        ax.fill_between(band.x, band.low, band.high, alpha=0.25, color=line.get_color(), lw=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return ax


def plot_roc(
    curve: Any, band: Any = None, *, ax: Any = None, label: str | None = None, **kwargs: Any
) -> Any:
    """Plot a ROC :class:`~mlci.scores.curves.Curve` and, optionally, its band.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from mlci import Scores
    >>> from mlci.scores.curves import roc_curve
    >>> ax = plot_roc(roc_curve(Scores([1, 2, 3], [0.5, 1.5])))
    """
    return _plot_curve(curve, band, ax, label, kwargs, "False positive rate", "True positive rate")


def plot_det(
    curve: Any, band: Any = None, *, ax: Any = None, label: str | None = None, **kwargs: Any
) -> Any:
    """Plot a DET curve (``det_curve(..., probit=True)``) on normal-deviate axes.

    Parameters
    ----------
    curve : Curve
        From :func:`mlci.scores.curves.det_curve` with ``probit=True`` (FPR and FNR as normal
        deviates).
    band : CurveBand, optional
        A vertical ROC band (:func:`mlci.scores.curves.roc_band`, TPR at fixed FPR), drawn as
        FNR = 1 - TPR on the same axes.
    ax : matplotlib Axes, optional
        Default: the current axes.
    label : str, optional
        Legend label of the curve.
    **kwargs
        Passed to ``ax.plot``.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")  # no window
    >>> import numpy as np
    >>> from mlci import Scores
    >>> from mlci.scores.curves import det_curve, roc_band
    >>> rng = np.random.default_rng(0)
    >>> s = Scores(rng.normal(2, 1, 300), rng.normal(0, 1, 300))
    >>> band = roc_band(s, n_resamples=200, rng=0)
    >>> ax = plot_det(det_curve(s), band, label="system")
    >>> ax.get_ylabel()
    'False negative rate'
    """
    ax = _axes(ax)
    ok = np.isfinite(curve.x) & np.isfinite(curve.y)
    (line,) = ax.plot(curve.x[ok], curve.y[ok], label=label, **kwargs)
    lo, hi = _det_limits(np.concatenate([curve.x[ok], curve.y[ok]]), ax)
    if band is not None:
        plot_band(band, ax=ax, probit=True, color=line.get_color())
    _det_axes(ax, lo, hi)
    return ax


#: the rates DET axes are labelled with (those inside the limits are shown)
_DET_TICKS = np.array([0.0001, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 0.9, 0.99])
#: the widest DET axes: 0.01% to 99.5%, in normal deviates
_DET_RANGE = (float(ndtri(1e-4)), float(ndtri(0.995)))


def _det_limits(values: np.ndarray, ax: Any) -> tuple[float, float]:
    """DET axis limits (normal deviates) from the finite curve points, kept from earlier
    curves on the same axes, within 0.01% .. 99.5%."""
    finite = values[np.isfinite(values)]
    lo = float(finite.min()) - 0.2 if finite.size else float(ndtri(0.001))
    hi = float(finite.max()) + 0.2 if finite.size else float(ndtri(0.5))
    lo = max(min(lo, float(ndtri(0.01))), _DET_RANGE[0])
    hi = min(max(hi, float(ndtri(0.5))), _DET_RANGE[1])
    old = getattr(ax, "_mlci_det_limits", None)
    if old is not None:
        lo, hi = min(lo, old[0]), max(hi, old[1])
    ax._mlci_det_limits = (lo, hi)
    return lo, hi


def _det_axes(ax: Any, lo: float, hi: float) -> None:
    kept: list[float] = []
    for t in _DET_TICKS[(ndtri(_DET_TICKS) >= lo) & (ndtri(_DET_TICKS) <= hi)]:
        if not kept or ndtri(t) - ndtri(kept[-1]) >= 0.09 * (hi - lo):  # no overlaps
            kept.append(t)
    ticks = np.array(kept)
    labels = [f"{t * 100:g}%" for t in ticks]
    ax.set_xticks(ndtri(ticks), labels, rotation=45)
    ax.set_yticks(ndtri(ticks), labels)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.grid(alpha=0.3)
    ax.set_xlabel("False positive rate")
    ax.set_ylabel("False negative rate")


def det_grid(n: int = 60, low: float = 1e-3, high: float = 0.99) -> np.ndarray:
    """FPR values equally spaced on the DET's probit axis, for :func:`~mlci.roc_band`.

    A band on a linear grid (0, 0.01, ...) has few points where a DET plot spends most of
    its width (FPR below 5%); this grid spaces them as the axis does.

    Examples
    --------
    >>> g = det_grid(5, 0.01, 0.5)
    >>> np.round(g, 4).tolist()
    [0.01, 0.0405, 0.1224, 0.2804, 0.5]
    """
    return ndtr(np.linspace(ndtri(low), ndtri(high), n))


def plot_band(
    band: Any, *, ax: Any = None, probit: bool = False, alpha: float = 0.25, **kwargs: Any
) -> Any:
    """Shade a curve band (a :class:`~mlci.scores.curves.CurveBand` or anything with ``x``,
    ``low``, ``high``).

    With ``probit=True`` the band is a vertical ROC band (TPR at fixed FPR) drawn on DET
    axes: FNR = 1 - TPR, both axes in normal deviates, each end clipped to the axes'
    limits (an end at FNR = 0 is at minus infinity on a probit axis).  Draw pointwise
    and simultaneous bands of one curve with two calls (a lighter ``alpha`` for the
    wider one).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from types import SimpleNamespace
    >>> band = SimpleNamespace(x=np.array([0, 0.5, 1]), low=np.array([0.1, 0.6, 1.0]),
    ...                        high=np.array([0.3, 0.8, 1.0]))
    >>> ax = plot_band(band)
    >>> len(ax.collections)
    1
    """
    ax = _axes(ax)
    x, low, high = (np.asarray(v, dtype=float) for v in (band.x, band.low, band.high))
    if probit:
        with np.errstate(divide="ignore"):
            x, low, high = ndtri(x), ndtri(1 - high), ndtri(1 - low)
        lo, hi = getattr(ax, "_mlci_det_limits", (_DET_RANGE[0], _DET_RANGE[1]))
        keep = np.isfinite(x) & (x >= lo - 1) & (x <= hi + 1)
        x, low, high = (
            x[keep],
            np.clip(low[keep], lo - 1, hi + 1),
            np.clip(high[keep], lo - 1, hi + 1),
        )
    kwargs.setdefault("lw", 0)
    ax.fill_between(x, low, high, alpha=alpha, **kwargs)
    return ax


def plot_operating_point(
    x: float, result: Any, *, ax: Any = None, probit: bool = False, **kwargs: Any
) -> Any:
    """An operating point with its interval: the rate ``result`` (a bootstrap result of
    :func:`mlci.operating_point_ci`, e.g. FNR) at the fixed rate ``x`` (e.g. FPR = 0.01).

    With ``probit=True`` both are drawn on DET axes (normal deviates).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from mlci import proportion_ci
    >>> fig, ax = plt.subplots()
    >>> ax = plot_operating_point(0.05, proportion_ci(30, 100), ax=ax)
    >>> len(ax.containers)
    1
    >>> plt.close(fig)
    """
    ax = _axes(ax)
    est, low, high = _bounds(result)
    if probit:
        x, est, low, high = (float(ndtri(v)) for v in (x, est, low, high))
    kwargs.setdefault("fmt", "o")
    kwargs.setdefault("capsize", 4)
    ax.errorbar([x], [est], yerr=[[est - low], [high - est]], **kwargs)
    return ax


def plot_pr(
    curve: Any, band: Any = None, *, ax: Any = None, label: str | None = None, **kwargs: Any
) -> Any:
    """Plot a precision-recall curve (``pr_curve``), with an optional band.

    Parameters
    ----------
    curve : Curve
        From :func:`mlci.scores.curves.pr_curve` (precision against recall).
    band : CurveBand, optional
        Any band with ``x``, ``low`` and ``high`` on the recall axis.
    ax : matplotlib Axes, optional
        Default: the current axes.
    label : str, optional
        Legend label of the curve.
    **kwargs
        Passed to ``ax.plot``.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")  # no window
    >>> import numpy as np
    >>> from mlci import Scores
    >>> from mlci.scores.curves import pr_curve
    >>> rng = np.random.default_rng(0)
    >>> s = Scores(rng.normal(1, 1, 100), rng.normal(0, 1, 400))
    >>> ax = plot_pr(pr_curve(s), label="system")
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('Recall', 'Precision')
    """
    return _plot_curve(curve, band, ax, label, kwargs, "Recall", "Precision")


def plot_intervals(
    results: Sequence[Any],
    labels: Sequence[str] | None = None,
    *,
    ax: Any = None,
    kind: str = "bar",
    **kwargs: Any,
) -> Any:
    """Bars (or points) with error bars for several interval results (scalar estimates).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from mlci.results import ConfidenceInterval, IntervalResult
    >>> r = [IntervalResult(estimate=0.8, confidence_interval=ConfidenceInterval(0.7, 0.9),
    ...                     confidence_level=0.95, method="wilson")] * 2
    >>> ax = plot_intervals(r, ["a", "b"])
    """
    check_choice("kind", kind, ("bar", "point"))
    ax = _axes(ax)
    est = np.array([float(r.estimate) for r in results])
    low = np.array([float(r.confidence_interval.low) for r in results])
    high = np.array([float(r.confidence_interval.high) for r in results])
    x = np.arange(len(results))
    err = np.vstack([est - low, high - est])
    if kind == "bar":
        ax.bar(x, est, yerr=err, capsize=4, **kwargs)
    else:
        ax.errorbar(x, est, yerr=err, fmt="o", capsize=4, **kwargs)
    ax.set_xticks(x, list(labels) if labels is not None else [str(i) for i in x])
    return ax


def _named_results(results: Any, labels: Sequence[str] | None) -> tuple[list[str], list[Any]]:
    """(labels, results) from a mapping ``label -> result`` or a sequence (+ ``labels``)."""
    if isinstance(results, Mapping):
        names, values = [str(k) for k in results], list(results.values())
    else:
        values = list(results)
        names = (
            list(labels)
            if labels is not None
            else [str(getattr(r, "metric", None) or i) for i, r in enumerate(values)]
        )
    if len(names) != len(values):
        raise ValueError(f"`labels` has {len(names)} names for {len(values)} results.")
    if not values:
        raise ValueError("`results` is empty: nothing to draw.")
    return names, values


def _bounds(r: Any) -> tuple[float, float, float]:
    ci = r.confidence_interval
    return float(r.estimate), float(ci.low), float(ci.high)


def plot_forest(
    results: Any,
    labels: Sequence[str] | None = None,
    *,
    ax: Any = None,
    metric: str | None = None,
    **kwargs: Any,
) -> Any:
    """A forest plot: one row per interval result, the estimate and its interval.

    The value axis spans the data (not from 0) and is labelled with the metric and the
    confidence level; the first result is at the top.

    Parameters
    ----------
    results : mapping of label -> result, or sequence of results
        Interval results with scalar estimates (:class:`mlci.BootstrapResult`,
        :class:`mlci.IntervalResult`, ...).
    labels : sequence of str, optional
        Row labels when ``results`` is a sequence (default: each result's metric).
    ax : matplotlib Axes, optional
    metric : str, optional
        Axis label (default: the results' metric, if they share one).
    **kwargs
        Passed to ``ax.errorbar``.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from mlci import proportion_ci
    >>> ax = plot_forest({"system A": proportion_ci(81, 100), "system B": proportion_ci(70, 100)})
    >>> ax.get_xlabel()
    'value (95% CI)'
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['system A', 'system B']
    """
    names, values = _named_results(results, labels)
    ax = _axes(ax)
    est, low, high = (np.array(v) for v in zip(*(_bounds(r) for r in values), strict=True))
    y = np.arange(len(values))[::-1]
    ax.errorbar(est, y, xerr=np.vstack([est - low, high - est]), fmt="o", capsize=4, **kwargs)
    ax.set_yticks(y, names)
    if metric is None:
        found = {getattr(r, "metric", None) for r in values}
        metric = found.pop() if len(found) == 1 and None not in found else "value"
    levels = {getattr(r, "confidence_level", None) for r in values}
    level = levels.pop() if len(levels) == 1 else None
    ax.set_xlabel(f"{metric} ({level * 100:.10g}% CI)" if level else metric)
    span = np.nanmax(high) - np.nanmin(low)
    pad = 0.08 * span if np.isfinite(span) and span > 0 else 0.05
    ax.set_xlim(np.nanmin(low) - pad, np.nanmax(high) + pad)
    ax.grid(axis="x", alpha=0.3)
    return ax


def _difference_rows(result: Any) -> list[dict[str, Any]]:
    if hasattr(result, "differences"):
        return [
            {
                "a": d.a,
                "b": d.b,
                "estimate": float(d.estimate),
                "low": float(d.confidence_interval.low),
                "high": float(d.confidence_interval.high),
                "pvalue_adjusted": float(d.pvalue_adjusted),
                "significant": bool(d.significant),
            }
            for d in result.differences
        ]
    return [dict(r) for r in result]


def plot_differences(result: Any, *, ax: Any = None, **kwargs: Any) -> Any:
    """Paired differences (A - B) with their intervals, the zero line and adjusted p-values.

    Parameters
    ----------
    result : ComparisonResult, or sequence of mappings
        :func:`mlci.compare`'s result, or rows with keys ``a``, ``b``, ``estimate``,
        ``low``, ``high`` (None when a test gives no interval), ``pvalue_adjusted``.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to ``ax.errorbar``.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> rows = [{"a": "A", "b": "B", "estimate": 0.05, "low": 0.01, "high": 0.09,
    ...          "pvalue_adjusted": 0.02}]
    >>> ax = plot_differences(rows)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['A - B  (p adj. 0.02)']
    """
    rows = _difference_rows(result)
    if not rows:
        raise ValueError("`result` has no differences to draw.")
    ax = _axes(ax)
    y = np.arange(len(rows))[::-1]
    est = np.array([r["estimate"] for r in rows], dtype=float)
    low = np.array([np.nan if r.get("low") is None else r["low"] for r in rows], dtype=float)
    high = np.array([np.nan if r.get("high") is None else r["high"] for r in rows], dtype=float)
    err = np.vstack([est - low, high - est])
    err = np.where(np.isfinite(err), err, 0.0)
    ax.errorbar(est, y, xerr=err, fmt="o", capsize=4, **kwargs)
    ax.axvline(0.0, color="0.3", lw=1, ls="--")
    labels = [f"{r['a']} - {r['b']}  (p adj. {r['pvalue_adjusted']:.2g})" for r in rows]
    ax.set_yticks(y, labels)
    ax.set_xlabel("difference A - B")
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_comparison_matrix(result: Any, *, ax: Any = None, cmap: str = "RdBu_r") -> Any:
    """A matrix of pairwise differences (row minus column), annotated with adjusted p-values.

    Parameters
    ----------
    result : ComparisonResult
        From :func:`mlci.compare` (all pairs).
    ax : matplotlib Axes, optional
    cmap : str
        A diverging colour map; the colour scale is symmetric around 0.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0); y = rng.integers(0, 2, 200)
    >>> systems = {k: np.where(rng.random(200) < p, y, 1 - y) for k, p in
    ...            [("A", 0.9), ("B", 0.8), ("C", 0.7)]}
    >>> res = mlci.compare(y, systems, metric="accuracy", n_resamples=200, rng=0)
    >>> ax = plot_comparison_matrix(res)
    >>> len(ax.images)
    1
    """
    names = list(result.systems)
    k = len(names)
    diff = np.full((k, k), np.nan)
    text = [["" for _ in range(k)] for _ in range(k)]
    for d in result.differences:
        i, j = names.index(d.a), names.index(d.b)
        diff[i, j], diff[j, i] = d.estimate, -d.estimate
        mark = "*" if d.significant else ""
        text[i][j] = text[j][i] = f"p={d.pvalue_adjusted:.2g}{mark}"
    ax = _axes(ax)
    lim = np.nanmax(np.abs(diff)) if np.isfinite(diff).any() else 1.0
    im = ax.imshow(diff, cmap=cmap, vmin=-lim, vmax=lim)
    for i in range(k):
        for j in range(k):
            if text[i][j]:
                dark = abs(diff[i, j]) > 0.6 * lim  # white text on the dark cells
                ax.text(
                    j,
                    i,
                    f"{diff[i, j]:+.3g}\n{text[i][j]}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if dark else "black",
                )
    ax.set_xticks(range(k), names)
    ax.set_yticks(range(k), names)
    ax.figure.colorbar(im, ax=ax, label="row - column")
    return ax


def plot_critical_difference(cd: Any, *, ax: Any = None) -> Any:
    """Demšar's critical-difference diagram of a :class:`mlci.CriticalDifference`.

    The rank axis runs from 1 (best, left); each method hangs from its average rank;
    thick bars join methods whose ranks differ by less than the CD (the cliques); the
    CD itself is drawn above the axis.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import mlci
    >>> cd = mlci.critical_difference([[0.9, 0.8, 0.7], [0.85, 0.8, 0.75],
    ...                                [0.7, 0.72, 0.6], [0.9, 0.85, 0.8]], names=["A", "B", "C"])
    >>> ax = plot_critical_difference(cd)
    >>> sorted(t.get_text() for t in ax.texts if t.get_text() in "ABC")
    ['A', 'B', 'C']
    """
    names = list(cd.names)
    ranks = np.asarray(cd.average_ranks, dtype=float)
    k = len(names)
    ax = _axes(ax)
    lo, hi = 1, max(k, int(np.ceil(ranks.max())))
    ax.set_xlim(lo - 0.3, hi + 0.3)
    ax.hlines(0, lo, hi, color="k", lw=1)
    for r in range(lo, hi + 1):
        ax.vlines(r, 0, 0.08, color="k", lw=1)
        ax.text(r, 0.12, str(r), ha="center", va="bottom", fontsize=9)
    half = (k + 1) // 2
    for i, (name, r) in enumerate(zip(names, ranks, strict=True)):
        left = i < half
        depth = -0.35 - 0.25 * (i if left else k - 1 - i)
        end = lo - 0.2 if left else hi + 0.2
        ax.plot([r, r, end], [0, depth, depth], color="k", lw=0.8)
        ax.text(end, depth, name, ha="right" if left else "left", va="center", fontsize=9)
    for n, clique in enumerate(cd.cliques):
        rs = ranks[[names.index(c) for c in clique]]
        ax.plot([rs.min() - 0.03, rs.max() + 0.03], [-0.12 - 0.08 * n] * 2, color="k", lw=4)
    cdv = float(cd.critical_difference)
    ax.plot([lo, lo + cdv], [0.45, 0.45], color="k", lw=1.5)
    ax.text(lo + cdv / 2, 0.5, f"CD = {cdv:.3g}", ha="center", va="bottom", fontsize=9)
    ax.set_ylim(-0.45 - 0.25 * half, 0.75)
    ax.axis("off")
    ax.set_title(
        f"average ranks ({cd.variant}, alpha={cd.alpha:g}, {cd.n_datasets} data sets)", fontsize=9
    )
    return ax


def plot_reliability(
    y_true: Any,
    y_prob: Any,
    *,
    n_bins: int = 10,
    confidence_level: float = 0.95,
    ax: Any = None,
    label: str | None = None,
) -> Any:
    """A reliability (calibration) diagram: observed frequency of positives per bin of
    predicted probability, with a Wilson interval per bin, and the diagonal.

    Parameters
    ----------
    y_true : array-like of 0/1 (or bool)
    y_prob : array-like of float in [0, 1]
        Predicted probability of the positive class.
    n_bins : int, default 10
        Equal-width bins of ``y_prob``.
    confidence_level : float, default 0.95
        Of each bin's interval (:func:`mlci.proportion_ci`, Wilson).
    ax : matplotlib Axes, optional
    label : str, optional

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> rng = np.random.default_rng(0); p = rng.random(500)
    >>> ax = plot_reliability(rng.random(500) < p, p)
    >>> ax.get_xlabel()
    'Predicted probability'
    """
    got = gather({"y_true": ArgSpec("labels"), "y_prob": ArgSpec("numbers")},
                 {"y_true": y_true, "y_prob": y_prob})  # fmt: skip
    y, p = got.arrays["y_true"], got.arrays["y_prob"]
    n_bins = check_positive_int("n_bins", n_bins)
    confidence_level = check_confidence_level(confidence_level)
    if p.size == 0:
        raise ValueError("`y_prob` is empty: nothing to draw.")
    if np.any((p < 0) | (p > 1)):
        raise ValueError("`y_prob` must hold probabilities in [0, 1].")
    values = set(np.unique(y).tolist())
    if not values <= {0, 1}:
        raise ValueError(
            f"`y_true` must be 0/1 or boolean; got values {sorted(values, key=str)[:5]}."
        )
    y = y.astype(bool)
    edges = np.linspace(0, 1, n_bins + 1)
    which = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, n_bins - 1)
    k = np.bincount(which, weights=y, minlength=n_bins)
    n = np.bincount(which, minlength=n_bins)
    mean_p = np.bincount(which, weights=p, minlength=n_bins)
    keep = n > 0
    ci = proportion_ci(k[keep].astype(int), n[keep], confidence_level=confidence_level)
    x = mean_p[keep] / n[keep]
    freq = k[keep] / n[keep]
    ax = _axes(ax)
    ax.plot([0, 1], [0, 1], color="0.5", ls="--", lw=1)
    low, high = np.asarray(ci.confidence_interval.low), np.asarray(ci.confidence_interval.high)
    (line,) = ax.plot(x, freq, "o-", label=label)
    ax.fill_between(x, low, high, alpha=0.25, color=line.get_color(), lw=0)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("Predicted probability")
    ax.set_ylabel("Observed frequency")
    return ax


def plot_bootstrap_distribution(result: Any, *, ax: Any = None, bins: int = 40) -> Any:
    """Histogram of a bootstrap result's replicates with the estimate and the interval.

    Parameters
    ----------
    result : BootstrapResult
        With its replicates (``bootstrap_distribution``), scalar estimate.
    ax : matplotlib Axes, optional
    bins : int, default 40

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import mlci
    >>> rng = np.random.default_rng(0); y = rng.integers(0, 2, 300)
    >>> res = mlci.bootstrap_ci(y, np.where(rng.random(300) < 0.8, y, 1 - y),
    ...                         metric="accuracy", n_resamples=300, rng=0)
    >>> ax = plot_bootstrap_distribution(res)
    >>> len(ax.lines)  # the estimate and the two ends of the interval
    3
    """
    dist = getattr(result, "bootstrap_distribution", None)
    if dist is None or np.ndim(result.estimate) != 0:
        raise ValueError(
            "`result` must be a BootstrapResult of a scalar metric with its replicates."
        )
    dist = np.asarray(dist, dtype=float).ravel()
    dist = dist[np.isfinite(dist)]
    ax = _axes(ax)
    ax.hist(dist, bins=bins, color="0.7")
    ax.axvline(float(result.estimate), color="k", lw=1.5)
    low, high = result.confidence_interval
    for v in (low, high):
        if np.isfinite(v):
            ax.axvline(float(v), color="C3", ls="--", lw=1.2)
        else:
            ax.axvline(np.nan)
    ax.set_xlabel(
        f"{result.metric or 'statistic'} "
        f"({result.method}, {result.confidence_level * 100:.10g}% CI)"
    )
    ax.set_ylabel("replicates")
    return ax


def plot_posterior(result: Any, *, ax: Any = None) -> Any:
    """The posterior of a Bayesian comparison (:class:`mlci.BayesianComparison`).

    Correlated t-test: the Student t density of the mean difference, the ROPE shaded.
    Signed-rank: the posterior draws on the probability simplex (corners: A better,
    practically equivalent, B better), each region labelled with its probability.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import mlci
    >>> r = mlci.correlated_bayesian_ttest([0.8, 0.82, 0.81, 0.83], [0.8, 0.8, 0.8, 0.8], rope=0.01)
    >>> ax = plot_posterior(r)
    """
    test = getattr(result, "variant", None)
    if test not in ("correlated t", "signed-rank") or not hasattr(result, "p_rope"):
        raise TypeError(
            "`result` must be a BayesianComparison (from mlci.correlated_bayesian_ttest or "
            f"mlci.bayesian_signed_rank_test); got {type(result).__name__}."
        )
    ax = _axes(ax)
    a, b, rope = result.a, result.b, result.rope
    if test == "correlated t":
        from scipy import stats

        post = result.posterior
        args = (post["df"], post["loc"], max(post["scale"], 1e-12))
        lo = min(stats.t.ppf(0.001, *args), -1.5 * rope)
        hi = max(stats.t.ppf(0.999, *args), 1.5 * rope)
        xs = np.linspace(lo, hi, 400)
        ys = stats.t.pdf(xs, *args)
        ax.plot(xs, ys, color="C0")
        ax.fill_between(xs, 0, ys, where=np.abs(xs) <= rope, color="C1", alpha=0.4,
                        label=f"ROPE [-{rope:g}, {rope:g}]: {result.p_rope:.3f}")  # fmt: skip
        ax.axvline(0.0, color="0.5", lw=0.8)
        ax.set_xlabel(f"{a} - {b}")
        ax.set_ylabel("posterior density")
        ax.set_title(
            f"P({a} better) = {result.p_a_better:.3f}, P({b} better) = {result.p_b_better:.3f}"
        )
        if rope > 0:
            ax.legend(loc="upper left")
        return ax
    pts = np.asarray(result.posterior["samples"])
    # barycentric -> plane: A better at (0, 0), B better at (1, 0), rope at the top
    corners = np.array([[0.0, 0.0], [0.5, np.sqrt(3) / 2], [1.0, 0.0]])
    xy = pts @ corners
    ax.plot(*np.vstack([corners, corners[:1]]).T, color="0.3", lw=1)
    ax.scatter(xy[:, 0], xy[:, 1], s=2, alpha=0.05, color="C0", rasterized=True)
    ax.text(0.0, -0.05, f"{a} better\n{result.p_a_better:.3f}", ha="center", va="top")
    ax.text(0.5, np.sqrt(3) / 2 + 0.03, f"ROPE {result.p_rope:.3f}", ha="center", va="bottom")
    ax.text(1.0, -0.05, f"{b} better\n{result.p_b_better:.3f}", ha="center", va="top")
    centre = corners.mean(axis=0)
    for mid in (corners[[0, 1]].mean(0), corners[[1, 2]].mean(0), corners[[0, 2]].mean(0)):
        ax.plot([centre[0], mid[0]], [centre[1], mid[1]], color="C1", lw=1)
    ax.set_xlim(-0.2, 1.2)
    ax.set_ylim(-0.25, 1.05)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax
