"""Immutable result objects shared by every part of mlci.

An analytic interval (Wilson, DeLong, ...) and a bootstrap interval are both an
:class:`IntervalResult`; the bootstrap adds its distribution and what was resampled
(:class:`BootstrapResult`).  Significance tests return a :class:`TestResult`.  All of
them are frozen dataclasses with a short ``repr`` and a ``to_dict()`` method.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "BootstrapResult",
    "ConfidenceInterval",
    "IntervalResult",
    "TestResult",
]


class ConfidenceInterval(NamedTuple):
    """Lower and upper bound of a confidence interval (scalars or arrays of the metric's shape).

    A one-sided interval has the edge of the quantity's range as its open bound: ``-inf``
    or ``+inf`` for bootstrap intervals and t-based intervals, 0 or 1 for analytic
    intervals of a proportion or an AUC (as ``scipy.stats.binomtest`` does).

    Examples
    --------
    >>> ci = ConfidenceInterval(0.81, 0.9)
    >>> low, high = ci
    >>> round(high - low, 2)
    0.09
    """

    low: Any
    high: Any


def _fmt(x: Any, precision: int = 4) -> str:
    """Format a scalar or an array compactly for a repr."""
    if x is None:
        return "None"
    arr = np.asarray(x)
    if arr.ndim == 0:
        v = arr.item()
        if isinstance(v, float | np.floating):
            return f"{v:.{precision}g}"
        return repr(v)
    return np.array2string(arr, precision=precision, separator=", ", threshold=8, edgeitems=2)


def _plain(x: Any) -> Any:
    """Convert numpy values to plain Python values (for ``to_dict``)."""
    if isinstance(x, ConfidenceInterval):
        return {"low": _plain(x.low), "high": _plain(x.high)}
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, Mapping):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, tuple | list):
        return [_plain(v) for v in x]
    return x


@dataclass(frozen=True, kw_only=True, repr=False)
class IntervalResult:
    """A point estimate with a confidence interval.

    Attributes
    ----------
    estimate : float or ndarray
        The metric (or difference, or parameter) on the data as given.
    confidence_interval : ConfidenceInterval
        ``(low, high)``; for a one-sided interval one bound is the edge of the range
        (``±inf``, or 0/1 for a proportion).
    confidence_level : float
        E.g. 0.95.
    method : str
        How the interval was built (``"bca"``, ``"wilson"``, ``"delong"`` ...).
    alternative : str
        ``"two-sided"``, ``"less"`` (upper bound only) or ``"greater"`` (lower bound only).
    standard_error : float or ndarray or None
        Standard error of the estimate, when the method provides one.
    metric : str or None
        Name of what was estimated.
    details : Mapping
        Method-specific extras (e.g. counts); shown by ``to_dict()``.

    Examples
    --------
    >>> r = IntervalResult(estimate=0.8, confidence_interval=ConfidenceInterval(0.7, 0.88),
    ...                    confidence_level=0.95, method="wilson", metric="accuracy")
    >>> r
    IntervalResult(metric='accuracy', estimate=0.8, 95% CI [0.7, 0.88] (wilson))
    >>> r.to_dict()["confidence_interval"]
    {'low': 0.7, 'high': 0.88}
    """

    estimate: Any
    confidence_interval: ConfidenceInterval
    confidence_level: float
    method: str
    alternative: str = "two-sided"
    standard_error: Any = None
    metric: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def _head(self) -> str:
        lvl = self.confidence_level * 100
        lvl_s = f"{lvl:.10g}%"
        low, high = self.confidence_interval
        side = "" if self.alternative == "two-sided" else f", {self.alternative}"
        parts = []
        if self.metric is not None:
            parts.append(f"metric={self.metric!r}")
        parts.append(f"estimate={_fmt(self.estimate)}")
        parts.append(f"{lvl_s} CI [{_fmt(low)}, {_fmt(high)}] ({self.method}{side})")
        if self.standard_error is not None:
            parts.append(f"standard_error={_fmt(self.standard_error)}")
        return ", ".join(parts)

    def _tail(self) -> list[str]:
        return []

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join([self._head(), *self._tail()])})"

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain Python values (lists for arrays), ready for JSON."""
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def to_frame(self) -> Any:
        """A pandas DataFrame with one row per element of the estimate.

        Columns: ``metric``, ``estimate``, ``low``, ``high``, ``standard_error``,
        ``method``, ``confidence_level`` (plus ``element`` for vector-valued metrics).
        Requires pandas (``pip install "mlci[pandas]"``).
        """
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError(
                "`to_frame()` needs pandas: pip install pandas (or mlci[pandas])."
            ) from None
        est = np.atleast_1d(np.asarray(self.estimate, dtype=float))
        n = est.size
        se = self.standard_error
        cols: dict[str, Any] = {
            "metric": [self.metric] * n,
            "estimate": est.ravel(),
            "low": np.broadcast_to(
                np.asarray(self.confidence_interval.low, float), est.shape
            ).ravel(),
            "high": np.broadcast_to(
                np.asarray(self.confidence_interval.high, float), est.shape
            ).ravel(),
            "standard_error": (
                np.full(n, np.nan)
                if se is None
                else np.broadcast_to(np.asarray(se, float), est.shape).ravel()
            ),
            "method": [self.method] * n,
            "confidence_level": [self.confidence_level] * n,
        }
        frame = pd.DataFrame(cols)
        if np.ndim(self.estimate) > 0:
            frame.insert(1, "element", np.arange(n))
        return frame


@dataclass(frozen=True, kw_only=True, repr=False)
class BootstrapResult(IntervalResult):
    """A bootstrap confidence interval, with the distribution it came from.

    Attributes (in addition to :class:`IntervalResult`'s)
    ------------------------------------------------------
    bias : float or ndarray
        Mean of the valid bootstrap replicates minus the estimate.
    bootstrap_distribution : ndarray, shape (n_resamples, *metric_shape)
        The metric on every replicate; NaN where it was undefined.
    n_resamples : int
        Number of replicates drawn.
    n_invalid : int
        Replicates on which the metric was undefined (e.g. one class only for
        ``roc_auc``); they are excluded from the interval.
    scheme : str
        What was resampled: ``"iid"``, ``"conditions"``, ``"conditions-two-stage"``,
        ``"strata"``, ``"conditions-within-strata"``; ``"+poisson"`` marks Poisson(1) weights.
    n_samples : int
        Number of samples.
    n_conditions : int or None
        Number of distinct conditions (the resampled units), when conditions were given.
    n_strata : int or None
        Number of strata, when strata were given.
    """

    bias: Any = None
    bootstrap_distribution: np.ndarray = field(default_factory=lambda: np.empty(0))
    n_resamples: int = 0
    n_invalid: int = 0
    scheme: str = "iid"
    n_samples: int = 0
    n_conditions: int | None = None
    n_strata: int | None = None

    def _tail(self) -> list[str]:
        what = f"{self.n_samples} samples"
        if self.n_conditions is not None:
            what += f" in {self.n_conditions} conditions"
        if self.n_strata is not None:
            what += f", {self.n_strata} strata"
        return [
            f"n_resamples={self.n_resamples}",
            f"n_invalid={self.n_invalid}",
            f"scheme={self.scheme!r}",
            f"resampled {what}",
        ]

    def to_dict(self, *, include_distribution: bool = False) -> dict[str, Any]:
        """All fields as plain Python values.

        Parameters
        ----------
        include_distribution : bool, default False
            The bootstrap distribution can be large; it is left out unless asked for.
        """
        d = super().to_dict()
        if not include_distribution:
            d.pop("bootstrap_distribution")
        return d


@dataclass(frozen=True, kw_only=True, repr=False)
class TestResult:
    """The outcome of a significance test.

    Attributes
    ----------
    statistic : float or ndarray
        The test statistic.
    pvalue : float or ndarray
        Its p-value under the null hypothesis.
    method : str
        The test's name (e.g. ``"mcnemar-exact"``).
    alternative : str
        ``"two-sided"``, ``"less"`` or ``"greater"``.
    df : float or tuple or None
        Degrees of freedom, for t, chi-square and F tests.
    estimate : float or ndarray or None
        The effect the test is about (e.g. a mean difference), when there is one.
    confidence_interval : ConfidenceInterval or None
        An interval for ``estimate`` when the test provides one.
    confidence_level : float or None
        Level of that interval.
    details : Mapping
        Test-specific extras.

    Examples
    --------
    >>> TestResult(statistic=2.5, pvalue=0.0124, method="z-test")
    TestResult(method='z-test', statistic=2.5, pvalue=0.0124)
    """

    __test__ = False  # not a pytest test class

    statistic: Any
    pvalue: Any
    method: str
    alternative: str = "two-sided"
    df: Any = None
    estimate: Any = None
    confidence_interval: ConfidenceInterval | None = None
    confidence_level: float | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        parts = [f"method={self.method!r}", f"statistic={_fmt(self.statistic)}"]
        if self.df is not None:
            parts.append(f"df={_fmt(self.df)}")
        parts.append(f"pvalue={_fmt(self.pvalue)}")
        if self.alternative != "two-sided":
            parts.append(f"alternative={self.alternative!r}")
        if self.estimate is not None:
            parts.append(f"estimate={_fmt(self.estimate)}")
        if self.confidence_interval is not None:
            lvl = f"{(self.confidence_level or 0) * 100:.10g}%"
            low, high = self.confidence_interval
            parts.append(f"{lvl} CI [{_fmt(low)}, {_fmt(high)}]")
        return f"TestResult({', '.join(parts)})"

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain Python values (lists for arrays), ready for JSON."""
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
