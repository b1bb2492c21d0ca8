"""Plots of curves and intervals: thin shells over the API (no statistics here).

matplotlib is imported when a function is called; install it with ``pip install mlci[plot]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.special import ndtri

from .inputs import check_choice

__all__ = ["plot_det", "plot_intervals", "plot_pr", "plot_roc"]


def _plt() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("Plotting needs matplotlib: `pip install mlci[plot]`.") from None
    return plt


def _axes(ax: Any) -> Any:
    return _plt().gca() if ax is None else ax


def _plot_curve(
    curve: Any, band: Any, ax: Any, label: str | None, kwargs: dict, xlabel: str, ylabel: str
) -> Any:
    """A curve on linear axes, with its band (``x``, ``low``, ``high``) in the line's colour."""
    ax = _axes(ax)
    (line,) = ax.plot(curve.x, curve.y, label=label, **kwargs)
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
    if band is not None:  # a vertical band of TPR at FPR: FNR = 1 - TPR on probit axes
        with np.errstate(divide="ignore"):
            x, lo, hi = ndtri(band.x), ndtri(1 - band.high), ndtri(1 - band.low)
        keep = np.isfinite(x)
        ax.fill_between(
            x[keep],
            np.clip(lo[keep], -8, 8),
            np.clip(hi[keep], -8, 8),
            alpha=0.25,
            color=line.get_color(),
            lw=0,
        )
    ticks = np.array([0.001, 0.01, 0.05, 0.2, 0.5])
    ax.set_xticks(ndtri(ticks), [f"{t:g}" for t in ticks])
    ax.set_yticks(ndtri(ticks), [f"{t:g}" for t in ticks])
    ax.set_xlabel("False positive rate")
    ax.set_ylabel("False negative rate")
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
