"""Immutable result objects shared by every part of mlci.

An analytic interval (Wilson, DeLong, ...) and a bootstrap interval are both an
:class:`IntervalResult`; the bootstrap adds its distribution and what was resampled
(:class:`BootstrapResult`).  Significance tests return a :class:`TestResult`.  All of
them are frozen dataclasses with a short ``repr`` and a ``to_dict()`` method.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import inspect
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from .inputs import (
    INTERVAL_METHODS,
    check_alternative,
    check_choice,
    check_confidence_level,
    check_method,
    check_rng_seed,
    confidence_levels,
)

__all__ = [
    "AnalyticInterval",
    "BootstrapResult",
    "ConfidenceInterval",
    "IntervalResult",
    "Result",
    "TestResult",
    "attach_analytic",
    "format_value",
    "html_table",
    "per_confidence_level",
    "plain",
    "require_pandas",
    "strict_json",
]


class ConfidenceInterval(NamedTuple):
    """Lower and upper bound of a confidence interval (scalars or arrays of the metric's shape).

    A one-sided interval has the edge of the quantity's range as its open bound: 0 or 1 for a
    proportion or an AUC, -1 for MCC, ``-inf`` or ``+inf`` for an unbounded quantity
    (as ``scipy.stats.binomtest`` does for proportions).

    Examples
    --------
    >>> ci = ConfidenceInterval(0.81, 0.9)
    >>> low, high = ci
    >>> round(high - low, 2)
    0.09
    """

    low: Any
    high: Any


def format_value(x: Any, precision: int = 4) -> str:
    """Format a scalar or an array compactly for a repr.

    Examples
    --------
    >>> format_value(0.123456), format_value(np.array([0.5, 0.25]))
    ('0.1235', '[0.5 , 0.25]')
    """
    if x is None:
        return "None"
    arr = np.asarray(x)
    if arr.ndim == 0:
        v = arr.item()
        if isinstance(v, float | np.floating):
            return f"{v:.{precision}g}"
        return repr(v)
    return np.array2string(arr, precision=precision, separator=", ", threshold=8, edgeitems=2)


def plain(x: Any) -> Any:
    """Numpy values, intervals, mappings and sequences as plain Python values.

    Examples
    --------
    >>> plain({"a": np.float64(0.5), "b": np.arange(2)})
    {'a': 0.5, 'b': [0, 1]}
    """
    if isinstance(x, ConfidenceInterval):
        return {"low": plain(x.low), "high": plain(x.high)}
    if isinstance(x, Result | AnalyticInterval) or callable(getattr(x, "to_dict", None)):
        return plain(x.to_dict())
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, Mapping):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, tuple | list):
        return [plain(v) for v in x]
    return x


def _finite_or_none(x: Any) -> Any:
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {str(k): _finite_or_none(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_finite_or_none(v) for v in x]
    return x


def json_safe(x: Any) -> Any:
    """Plain values with NaN and infinities as ``None`` (keys kept as they are).

    What every result's ``to_dict()`` returns, so that ``json.dumps(res.to_dict(),
    allow_nan=False)`` works: an unbounded end of a one-sided interval (``inf``), an
    undefined value (``NaN``) are ``None``, as in the CLI's ``--json``.

    Examples
    --------
    >>> json_safe({"low": np.float64(0.5), "high": np.inf, "se": [np.nan, 1.0]})
    {'low': 0.5, 'high': None, 'se': [None, 1.0]}
    """
    x = plain(x)
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: json_safe(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [json_safe(v) for v in x]
    return x


def strict_json(x: Any, **kwargs: Any) -> str:
    """JSON text with NaN and infinities as ``null`` (strict JSON has no such tokens).

    Examples
    --------
    >>> strict_json({"low": 0.5, "high": float("inf")})
    '{"low": 0.5, "high": null}'
    """
    return json.dumps(_finite_or_none(plain(x)), allow_nan=False, **kwargs)


def require_pandas() -> Any:
    """The pandas module, or an ImportError saying how to install it (an optional extra)."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "This returns a pandas DataFrame: pip install pandas (or mlci[pandas])."
        ) from None
    return pd


def html_table(rows: list[dict[str, Any]], caption: str) -> str:
    """A small HTML table (no pandas needed) for notebooks: a result's rows under its
    caption (every result's ``_repr_html_``; :class:`mlci.ComparisonResult`'s two tables).

    Examples
    --------
    >>> html_table([{"metric": "f1", "estimate": 0.5}], "a caption")[:60]
    "<table><caption style='text-align:left'>a caption</caption><"
    >>> html_table([], "no rows")
    '<pre>no rows</pre>'
    """
    if not rows:
        return f"<pre>{html.escape(caption)}</pre>"
    cols = list(rows[0])
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in cols)

    def cell(v: Any) -> str:
        return html.escape(v if isinstance(v, str) else format_value(v))

    body = "".join(
        "<tr>" + "".join(f"<td>{cell(r.get(c))}</td>" for c in cols) + "</tr>" for r in rows
    )
    return (
        f"<table><caption style='text-align:left'>{html.escape(caption)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


class Result:
    """The interface every result of mlci shares.

    A result is a frozen dataclass; it implements :meth:`rows` (one dict per line of its
    table).  It then has ``to_dict()`` (plain Python values), ``to_json()`` (strict JSON),
    ``to_frame()`` (a pandas DataFrame of :meth:`rows`) and an HTML view for notebooks.
    """

    def rows(self) -> list[dict[str, Any]]:
        """The result as a table: one dict per row (the rows of :meth:`to_frame`)."""
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain Python values (lists for arrays), ready for strict JSON:
        NaN and infinite values (an unbounded end of a one-sided interval) are ``None``."""
        return {f.name: json_safe(getattr(self, f.name)) for f in dataclasses.fields(self)}  # type: ignore[arg-type]

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as strict JSON (NaN and infinities as ``null``).

        Parameters
        ----------
        **kwargs
            Passed to :func:`json.dumps` (``indent=2``...).
        """
        return strict_json(self.to_dict(), **kwargs)

    def to_frame(self) -> Any:
        """A pandas DataFrame of :meth:`rows` (requires pandas)."""
        return require_pandas().DataFrame(self.rows())

    def _repr_html_(self) -> str:
        return html_table(self.rows(), repr(self))


@dataclass(frozen=True, kw_only=True, repr=False)
class IntervalResult(Result):
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
        Method-specific extras (e.g. counts, ``n_dropped``); shown by ``to_dict()``.
    elements : tuple or None
        Names of the estimate's elements when it is a vector (e.g. the class of each
        per-class value); None for a scalar estimate or unnamed elements.

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
    elements: tuple[Any, ...] | None = None

    def _head(self) -> str:
        lvl = self.confidence_level * 100
        lvl_s = f"{lvl:.10g}%"
        low, high = self.confidence_interval
        side = "" if self.alternative == "two-sided" else f", {self.alternative}"
        parts = []
        if self.metric is not None:
            parts.append(f"metric={self.metric!r}")
        parts.append(f"estimate={format_value(self.estimate)}")
        parts.append(
            f"{lvl_s} CI [{format_value(low)}, {format_value(high)}] ({self.method}{side})"
        )
        if self.standard_error is not None:
            parts.append(f"standard_error={format_value(self.standard_error)}")
        return ", ".join(parts)

    def _tail(self) -> list[str]:
        return []

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join([self._head(), *self._tail()])})"

    def rows(self) -> list[dict[str, Any]]:
        """One row per element of the estimate: ``metric``, (``element``,) ``estimate``,
        ``low``, ``high``, ``standard_error``, ``method``, ``confidence_level``,
        ``alternative``."""
        est = np.atleast_1d(np.asarray(self.estimate, dtype=float))
        shape = est.shape

        def col(x: Any) -> np.ndarray:
            if x is None:
                return np.full(est.size, np.nan)
            return np.broadcast_to(np.asarray(x, dtype=float), shape).ravel()

        low, high = col(self.confidence_interval.low), col(self.confidence_interval.high)
        se = col(self.standard_error)
        names = (
            list(self.elements)
            if self.elements is not None and len(self.elements) == est.size
            else list(range(est.size))
        )
        out = []
        for i, v in enumerate(est.ravel()):
            row: dict[str, Any] = {"metric": self.metric}
            if np.ndim(self.estimate) > 0:
                row["element"] = plain(names[i])
            row.update(
                estimate=float(v),
                low=float(low[i]),
                high=float(high[i]),
                standard_error=float(se[i]),
                method=self.method,
                confidence_level=self.confidence_level,
                alternative=self.alternative,
            )
            out.append(row)
        return out


@dataclass(frozen=True)
class AnalyticInterval:
    """The analytic interval that ``method="auto"`` gave in place of a bootstrap interval.

    Near the bounds of a metric (a handful of errors, a small class) some bootstrap
    intervals fail, and ``auto`` gives an analytic interval instead, keeping the
    replicates: a :class:`BootstrapResult` then holds this record in its ``analytic``
    field, its ``method`` is the record's, and ``details["method_reason"]`` its reason.
    :meth:`BootstrapResult.interval` re-reads it at any confidence level and alternative
    (``method`` left out, or this ``method``); every other method reads the replicates.
    The rules and their sources: docs/guide.md, "Which interval, through which door".

    Attributes
    ----------
    method : str
        Its name, e.g. ``"korn_graubard"``, ``"logit_t"``, ``"t"`` (the studentized
        interval's near-bound fallbacks), ``"mover_wilson"`` (balanced accuracy with 0-3
        errors in a class), ``"wilson"`` (an EER's or an operating point's score
        interval), ``"auc-score-floored"`` (a ROC AUC with a small class or near its bound).
    reason : str
        Why ``auto`` gave it (the result's ``details["method_reason"]``).
    read : callable
        ``read(confidence_level, alternative)`` gives ``(low, high)`` or
        ``(low, high, details)`` at that level and alternative.

    Examples
    --------
    >>> from mlci.intervals.bootstrap import wilson_interval
    >>> rec = AnalyticInterval(
    ...     "wilson", "a proportion", lambda lv, alt: wilson_interval(0.9, 50, None,
    ...     confidence_level=lv, alternative=alt)[:2])
    >>> low, high = rec(0.95)
    >>> round(float(low), 4), round(float(high), 4)
    (0.7864, 0.9565)
    >>> rec.to_dict()
    {'method': 'wilson', 'reason': 'a proportion'}
    """

    method: str
    reason: str
    read: Callable[[float, str], tuple[Any, ...]] = field(compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.method, str) or not self.method:
            raise TypeError(f"`method` must be a non-empty str; got {self.method!r}.")
        if not isinstance(self.reason, str):
            raise TypeError(f"`reason` must be a str; got {type(self.reason).__name__}.")
        if not callable(self.read):
            raise TypeError(
                "`read` must be callable as read(confidence_level, alternative) -> "
                f"(low, high); got {type(self.read).__name__}."
            )

    def __call__(
        self, confidence_level: Any = 0.95, alternative: str = "two-sided"
    ) -> ConfidenceInterval:
        """The interval at ``confidence_level`` and ``alternative`` (:meth:`compute`'s)."""
        ci, _ = self.compute(confidence_level, alternative)
        return ci

    def compute(
        self, confidence_level: Any, alternative: str
    ) -> tuple[ConfidenceInterval, dict[str, Any]]:
        """The interval and what ``read`` adds to a result's ``details``.

        Parameters
        ----------
        confidence_level : float
        alternative : {"two-sided", "less", "greater"}

        Returns
        -------
        (ConfidenceInterval, dict)
            The dict is empty when ``read`` gives only the bounds.
        """
        level = check_confidence_level(confidence_level)
        alt = check_alternative(alternative)
        out = tuple(self.read(level, alt))
        low, high = out[0], out[1]
        extra = dict(out[2]) if len(out) > 2 and out[2] is not None else {}
        return ConfidenceInterval(low, high), extra

    def to_dict(self) -> dict[str, str]:
        """``method`` and ``reason`` (``read`` is code, not data)."""
        return {"method": self.method, "reason": self.reason}


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
    bounds : (float, float)
        The metric's range: intervals stay inside it, one-sided ones end at its edges.
    replicate_standard_errors : ndarray or None
        Every replicate's linearized standard error (``method="studentized"``).
    analytic : AnalyticInterval or None
        The analytic interval ``method="auto"`` gave in place of the bootstrap's (near the
        bounds: :class:`AnalyticInterval`), whose name ``method`` then holds, re-read by
        :meth:`interval` at any level; None when the interval is read from the replicates
        (also after :meth:`interval` with another method).

    A result of a method that reads no replicate (``"t"``, ``"logit_t"``,
    ``"korn_graubard"``, ``"wilson"``) whose draw would be costly (many atoms: see
    :func:`mlci.engine.deferred.defer_draw`) draws them when first needed: on reading
    ``bootstrap_distribution``, ``standard_error``, ``bias``, ``n_invalid`` or
    ``diagnostics`` (also through its ``repr`` and ``to_dict()``), or another method's
    interval.  They are the replicates of its seed, so every value equals the same call
    with that method; until then the result keeps what draws them (the metric's kernel).
    diagnostics : dict
        What the interval rests on (``details["diagnostics"]``): conditions and their
        sizes, effective sample size and design effect (proportions), positives and
        negatives, invalid replicates, replicates equal to the estimate, skewness.

    Examples
    --------
    >>> import mlci
    >>> res = mlci.bootstrap_ci([0, 1] * 50, [0, 1] * 40 + [1, 0] * 10,
    ...                         metric="accuracy", rng=0)
    >>> res.interval(method="percentile", confidence_level=0.9).method
    'percentile'
    """

    bias: Any = None
    bootstrap_distribution: np.ndarray = field(default_factory=lambda: np.empty(0))
    replicate_standard_errors: np.ndarray | None = None
    n_resamples: int = 0
    n_invalid: int = 0
    scheme: str = "iid"
    n_samples: int = 0
    n_conditions: int | None = None
    n_strata: int | None = None
    bounds: tuple[float, float] = (-np.inf, np.inf)
    analytic: AnalyticInterval | None = field(default=None, compare=False)

    def __getattribute__(self, name: str) -> Any:
        # a result whose interval read no replicate draws them on first use (see
        # replicates_on_demand): the fields read off them are filled in then
        if name in REPLICATE_FIELDS:
            state = object.__getattribute__(self, "__dict__")
            source = state.get("_on_demand")
            if source is not None and not state.get("_drawn", False):
                state.update(source.fields())
                state["_drawn"] = True
        return object.__getattribute__(self, name)

    def __getstate__(self) -> dict[str, Any]:
        # pickled with its replicates drawn (the source holds the kernel and the draw)
        self.n_invalid  # noqa: B018 - fills the replicate fields
        state = dict(object.__getattribute__(self, "__dict__"))
        state.pop("_on_demand", None)
        state.pop("_drawn", None)
        return state

    def _pending(self) -> Any:
        """The replicates' source of a result that has not drawn them yet, else None."""
        state = object.__getattribute__(self, "__dict__")
        return None if state.get("_drawn", False) else state.get("_on_demand")

    @property
    def diagnostics(self) -> dict[str, Any]:
        """What the interval rests on (see the class docstring); empty if not recorded."""
        self.n_invalid  # noqa: B018 - the replicates' entries, drawn on demand
        return dict(self.details.get("diagnostics", {}))

    def interval(
        self,
        method: str | None = None,
        confidence_level: Any = None,
        alternative: str | None = None,
        variant: str = "mlci",
    ) -> Any:
        """Another interval from the same replicates, without resampling again.

        Parameters
        ----------
        method : {"percentile", "basic", "normal", "bc", "bca"}, optional
            Default: this result's method; for a result whose ``analytic`` field holds the
            analytic interval ``auto`` gave (``"mover_wilson"``, ``"auc-score-floored"``,
            ...), that interval again, at the new level and alternative.  ``"bca"`` needs
            the acceleration, which a result holds when it was computed with
            ``method="bca"``, or computes (with its replicates) when its method read none
            and left them undrawn (see the class docstring).
        confidence_level : float or sequence of float, optional
            Several levels (e.g. ``[0.9, 0.95, 0.99]``) give a tuple of results, one per
            level, in the order given.
        alternative : {"two-sided", "less", "greater"}, optional
        variant : {"mlci", "boot", "survey"}, default "mlci"
            ``"boot"``: the interval R's ``boot.ci`` gives from these replicates (its
            quantile rule, BCa's bias correction counting only replicates strictly below
            the estimate, the normal interval with the bootstrap bias subtracted, the
            studentized interval on the metric's own scale).  ``"survey"`` (methods
            ``"t"`` and ``"logit_t"`` over conditions): R survey's ``svyciprop``, with
            the CR1 standard error and conditions - 1 degrees of freedom instead of CR2
            and Imbens & Kolesár's.  See :mod:`mlci.intervals.variants` and docs/r.md.

        Returns
        -------
        BootstrapResult, or tuple of BootstrapResult (one per level)
            The same replicates with the new interval.

        Examples
        --------
        >>> import mlci
        >>> res = mlci.bootstrap_ci([0, 1] * 50, [0, 1] * 40 + [1, 0] * 10,
        ...                         metric="accuracy", rng=0, method="percentile")
        >>> [r.confidence_level for r in res.interval(confidence_level=[0.9, 0.99])]
        [0.9, 0.99]
        """
        levels = confidence_levels(confidence_level)
        if levels is not None:
            return tuple(
                self.interval(
                    method=method, confidence_level=lv, alternative=alternative, variant=variant
                )
                for lv in levels
            )
        # an analytic interval auto gave (the `analytic` field): re-read by its name
        record = self.analytic
        own = None if record is None else record.method
        method = method or self.method
        if method != own or (own not in INTERVAL_METHODS and variant != "mlci"):
            method = check_method(method, INTERVAL_METHODS)
        level = check_confidence_level(
            self.confidence_level if confidence_level is None else confidence_level
        )
        alt = check_alternative(self.alternative if alternative is None else alternative)
        variant = check_choice("variant", variant, ("mlci", "boot", "survey"))
        accel = self.details.get("acceleration")
        source = object.__getattribute__(self, "__dict__").get("_on_demand")
        extra_details: dict[str, Any] = {}
        if method == "bca" and accel is None and source is not None:
            # drawn on demand: BCa's jackknife too, as method="bca" would have run it
            accel, extra_details["jackknife_size"] = source.acceleration()
        if self.details.get("subsample") and method not in ("basic", "percentile", "normal"):
            raise ValueError(
                f"`method`={method!r} cannot be read from rescaled subsamples (m-out-of-n); use "
                "'basic', 'percentile' or 'normal'."
            )
        if method == "bca" and accel is None:
            raise ValueError(
                f"This result was computed with method={self.method!r} and holds no "
                "jackknife acceleration, which BCa needs; compute it with method='bca' "
                "(every other method can then be had from its replicates)."
            )
        if method == "auto":
            raise ValueError(
                "method='auto' chooses when the interval is computed; pass the method to "
                "switch to (e.g. 'bca', 'percentile', or this result's own method)."
            )
        # here, not at the top: results (and the mt command) import without scipy.special
        from .intervals.bootstrap import interval_from_replicates

        # a method that reads no replicate leaves them undrawn (replicates_on_demand)
        reads = (method not in METHODS_WITHOUT_REPLICATES and method != own) or variant == "boot"
        dist = (
            self.bootstrap_distribution
            if reads or self._pending() is None
            else np.empty((0, *np.shape(self.estimate)))
        )
        analytic = None
        if record is not None and method == own and variant == "mlci":
            (low, high), extra = record.compute(level, alt)
            analytic = record
        else:
            low, high, extra = interval_from_replicates(
                self.estimate,
                dist,
                method=method,
                confidence_level=level,
                alternative=alt,
                accel=accel,
                bounds=self.bounds,
                linear=self.details.get("linearized"),
                se_dist=self.replicate_standard_errors,
                variant=variant,
            )
        conv = float if np.ndim(self.estimate) == 0 else np.asarray
        drop = ("z0", "fallback", "variant", "bias", "edge_fallback", "edge_fallback_method")
        details = {k: v for k, v in self.details.items() if k not in drop}
        details.update(extra_details)
        details.update(extra)
        if "binned_interval" in details:  # a binned ranking metric: widen by its bound
            details["binned_interval"] = {"low": plain(low), "high": plain(high)}
            low, high = widen_by_bound(low, high, details["error_bound"], self.bounds, alt)
        if method == "studentized" and extra.get("edge_fallback") == np.size(self.estimate):
            # near the edge every element got the fallback's interval: say so, as the
            # engine's finish step does (mlci.engine.method_labels.label_edge_fallback)
            analytic = edge_analytic(
                extra, self.estimate, self.bounds, self.details.get("linearized"),
                str(self.details.get("method_reason", "")),
            )  # fmt: skip
            if analytic is not None or extra["edge_fallback_method"] in INTERVAL_METHODS:
                method = extra["edge_fallback_method"]
        return self._replaced(
            confidence_interval=ConfidenceInterval(conv(low), conv(high)),
            confidence_level=level,
            method=method,
            alternative=alt,
            details=details,
            analytic=analytic,
        )

    def _replaced(self, **changes: Any) -> BootstrapResult:
        """``dataclasses.replace`` that keeps undrawn replicates undrawn (and their source)."""
        state = object.__getattribute__(self, "__dict__")
        source = state.get("_on_demand")
        if source is None:
            new = dataclasses.replace(self, **changes)
        else:
            kw = {f.name: state[f.name] for f in dataclasses.fields(self) if f.init}
            new = type(self)(**{**kw, **changes})
            new_state = object.__getattribute__(new, "__dict__")
            new_state["_on_demand"] = source
            new_state["_drawn"] = state.get("_drawn", False)
        return new

    def rows(self) -> list[dict[str, Any]]:
        """:meth:`IntervalResult.rows` with ``scheme``, ``n_resamples``, ``n_invalid``,
        ``n_samples`` and ``n_conditions`` (and ``error_bound`` for a binned ranking
        metric, whose interval is widened by it)."""
        extra = {
            "scheme": self.scheme,
            "n_resamples": self.n_resamples,
            "n_invalid": self.n_invalid,
            "n_samples": self.n_samples,
            "n_conditions": self.n_conditions,
        }
        if "error_bound" in self.details:
            extra["error_bound"] = self.details["error_bound"]
        return [{**r, **extra} for r in super().rows()]

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
            *(
                [f"error_bound={format_value(self.details['error_bound'])}"]
                if "error_bound" in self.details
                else []
            ),
        ]

    def to_dict(self, *, include_distribution: bool = False) -> dict[str, Any]:
        """All fields as plain Python values.

        Parameters
        ----------
        include_distribution : bool, default False
            The bootstrap distribution can be large; it is left out unless asked for.
        """
        self.n_invalid  # noqa: B018 - replicates drawn on demand fill in the diagnostics
        d = super().to_dict()
        if not include_distribution:
            d.pop("bootstrap_distribution")
            d.pop("replicate_standard_errors")
        return d


@dataclass(frozen=True, kw_only=True, repr=False)
class TestResult(Result):
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
        Test-specific extras (``n_dropped`` when missing values were dropped).

    Note: ``method`` here names the test (a result attribute); as an argument, ``method``
    is only ever the interval method (test variants are ``variant=``).

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
        parts = [f"method={self.method!r}", f"statistic={format_value(self.statistic)}"]
        if self.df is not None:
            parts.append(f"df={format_value(self.df)}")
        parts.append(f"pvalue={format_value(self.pvalue)}")
        if self.alternative != "two-sided":
            parts.append(f"alternative={self.alternative!r}")
        if self.estimate is not None:
            parts.append(f"estimate={format_value(self.estimate)}")
        if self.confidence_interval is not None:
            lvl = f"{(self.confidence_level or 0) * 100:.10g}%"
            low, high = self.confidence_interval
            parts.append(f"{lvl} CI [{format_value(low)}, {format_value(high)}]")
        return f"TestResult({', '.join(parts)})"

    def rows(self) -> list[dict[str, Any]]:
        """One row per element of the statistic: ``test``, ``statistic``, ``df``,
        ``pvalue``, ``alternative`` (and ``estimate``, ``low``, ``high`` when given)."""
        stat = np.atleast_1d(np.asarray(self.statistic, dtype=float)).ravel()
        pv = np.broadcast_to(np.asarray(self.pvalue, dtype=float), np.shape(self.statistic))
        pv = np.atleast_1d(pv).ravel()
        out = []
        for i in range(stat.size):
            row: dict[str, Any] = {"test": self.method, "statistic": float(stat[i])}
            if self.df is not None:
                row["df"] = plain(self.df)
            row["pvalue"] = float(pv[i])
            row["alternative"] = self.alternative
            if self.estimate is not None and np.ndim(self.estimate) == 0:
                row["estimate"] = float(self.estimate)
            if self.confidence_interval is not None and np.ndim(self.estimate) == 0:
                row["low"], row["high"] = (float(v) for v in self.confidence_interval)
            out.append(row)
        return out


#: the interval methods that read no replicate (the linearized standard error's): a
#: result of one draws its replicates only when asked (:func:`replicates_on_demand`)
METHODS_WITHOUT_REPLICATES = ("t", "logit_t", "korn_graubard", "wilson", "wilson_modified")
#: the fields of a :class:`BootstrapResult` read off its replicates
REPLICATE_FIELDS = frozenset({"bootstrap_distribution", "standard_error", "bias", "n_invalid"})


def replicates_on_demand(result: BootstrapResult, source: Any) -> BootstrapResult:
    """``result`` (of a method in :data:`METHODS_WITHOUT_REPLICATES`) with its replicates
    drawn from ``source`` when first read, not before.

    ``source.fields()`` gives the :data:`REPLICATE_FIELDS` (drawn once, from the result's
    seed: the values of the same call with a method that reads them) and fills in the
    replicates' entries of ``details["diagnostics"]``; ``source.acceleration()`` gives
    BCa's ``(acceleration, jackknife_size)``.  Until then the result's stored values of
    those fields are placeholders, never read.  (The engine's source is
    :class:`mlci.engine.deferred.DeferredReplicates`.)
    """
    state = object.__getattribute__(result, "__dict__")
    state["_on_demand"] = source
    state["_drawn"] = False
    return result


def attach_analytic(
    result: BootstrapResult, analytic: AnalyticInterval, details: Mapping[str, Any] | None = None
) -> BootstrapResult:
    """``result`` (its replicates kept, drawn or not) with ``auto``'s analytic interval.

    The one way an analytic interval replaces a bootstrap one: the interval is
    ``analytic`` at the result's level and alternative, ``method`` is
    ``analytic.method``, ``details["method_reason"]`` is ``analytic.reason`` (``details``
    given here replace the result's), and the ``analytic`` field holds the record, so that
    :meth:`BootstrapResult.interval` re-reads it at any level and alternative.

    Parameters
    ----------
    result : BootstrapResult
    analytic : AnalyticInterval
    details : mapping, optional
        The new result's ``details`` (default: the result's); ``method_reason`` is set.

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> import mlci
    >>> from mlci.intervals.bootstrap import wilson_interval
    >>> res = mlci.bootstrap_ci([1] * 45 + [0] * 5, [1] * 50, metric="accuracy",
    ...                         rng=0, method="percentile")
    >>> rec = AnalyticInterval("wilson", "Wilson's score interval", lambda lv, alt:
    ...     wilson_interval(0.9, 50, None, confidence_level=lv, alternative=alt)[:2])
    >>> new = attach_analytic(res, rec)
    >>> new.method, new.interval(confidence_level=0.9).method
    ('wilson', 'wilson')
    """
    if not isinstance(result, BootstrapResult):
        raise TypeError(f"`result` must be a BootstrapResult; got {type(result).__name__}.")
    if not isinstance(analytic, AnalyticInterval):
        raise TypeError(f"`analytic` must be an AnalyticInterval; got {type(analytic).__name__}.")
    (low, high), extra = analytic.compute(result.confidence_level, result.alternative)
    conv = float if np.ndim(result.estimate) == 0 else np.asarray
    info = dict(result.details if details is None else details)
    info.update(extra)  # what the read says of itself (e.g. "modified": a Poisson bound)
    info["method_reason"] = analytic.reason
    return result._replaced(
        confidence_interval=ConfidenceInterval(conv(low), conv(high)),
        method=analytic.method,
        details=info,
        analytic=analytic,
    )


def edge_analytic(
    extra: Mapping[str, Any],
    estimate: Any,
    bounds: Any,
    linear: Mapping[str, Any] | None,
    reason: str,
) -> AnalyticInterval | None:
    """The :class:`AnalyticInterval` of a studentized interval whose every element gave
    way to an analytic fallback (the dispatcher's ``extra``: ``edge_fallback`` counts
    them, ``edge_fallback_method`` names it; :data:`mlci.intervals.analytic.EDGE_READS`),
    with ``reason``; None otherwise (some elements only, or a fallback read from the
    replicates)."""
    if not extra.get("edge_fallback") or extra["edge_fallback"] != np.size(estimate):
        return None
    from .intervals.analytic import edge_read  # (results import without scipy)

    method = str(extra["edge_fallback_method"])
    read = edge_read(method, estimate, bounds, None if linear is None else dict(linear))
    return None if read is None else AnalyticInterval(method, reason, read)


def per_confidence_level(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Let a driver returning one interval take several confidence levels.

    With ``confidence_level=[0.9, 0.95, 0.99]`` the driver returns a tuple of results, one
    per level, in the order given; a single level returns the result as before.  A
    :class:`BootstrapResult` (or a tuple of them, or a result whose fields are all
    :class:`BootstrapResult`, like ``EERResult``) is computed once, at the first level, and
    re-read at the others from the same replicates (:meth:`BootstrapResult.interval`); so
    is any other interval result with an ``interval`` method (the protocols' results,
    which re-read their interval from the same fits).
    Any other result (a comparison with corrected p-values) is computed once per level
    with the same seed, so every level equals the single-level call with that ``rng``.
    """

    takes_rng = "rng" in inspect.signature(fn).parameters

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        levels = confidence_levels(kwargs.get("confidence_level"))
        if levels is None:
            return fn(*args, **kwargs)
        ss = check_rng_seed(kwargs.get("rng")) if takes_rng else None
        if ss is not None:
            # a fresh copy of the seed per call: each run draws the replicates of that seed
            kwargs["rng"] = _copy_seed(ss)
        kwargs["confidence_level"] = levels[0]
        res = fn(*args, **kwargs)
        first = _at_level(res, levels[0])
        if first is not None:
            return tuple(_at_level(res, lv) for lv in levels)
        out = [res]
        for lv in levels[1:]:
            if ss is not None:
                kwargs["rng"] = _copy_seed(ss)
            kwargs["confidence_level"] = lv
            out.append(fn(*args, **kwargs))
        return tuple(out)

    return wrapper


def widen_by_bound(
    low: Any, high: Any, bound: float, bounds: tuple[float, float], alternative: str
) -> tuple[Any, Any]:
    """An interval widened by a certified bound on the estimate's error (binned scores),
    kept inside the metric's range; a one-sided interval's open end is left alone.

    Examples
    --------
    >>> widen_by_bound(0.70, 0.80, 0.01, (0.0, 1.0), "two-sided")
    (0.69, 0.81)
    >>> widen_by_bound(0.995, 1.0, 0.01, (0.0, 1.0), "greater")
    (0.985, 1.0)
    """
    lo_edge, hi_edge = bounds
    if alternative != "less":
        low = np.maximum(np.asarray(low, dtype=float) - bound, lo_edge)
        low = float(low) if np.ndim(low) == 0 else low
    if alternative != "greater":
        high = np.minimum(np.asarray(high, dtype=float) + bound, hi_edge)
        high = float(high) if np.ndim(high) == 0 else high
    return low, high


def _copy_seed(ss: np.random.SeedSequence) -> np.random.SeedSequence:
    return np.random.SeedSequence(
        ss.entropy,
        spawn_key=ss.spawn_key,
        pool_size=ss.pool_size,
        n_children_spawned=ss.n_children_spawned,
    )


def _at_level(res: Any, level: float) -> Any:
    """``res`` re-read at ``level`` from its replicates, or None when it cannot be."""
    reread = getattr(res, "interval", None)
    if isinstance(res, IntervalResult) and callable(reread):
        # a bootstrap's replicates, or a result that re-reads its own interval (the
        # protocols' CVResult and BootstrapErrorResult)
        return reread(confidence_level=level)
    if isinstance(res, tuple) and res and all(isinstance(r, BootstrapResult) for r in res):
        return tuple(r.interval(confidence_level=level) for r in res)
    if dataclasses.is_dataclass(res) and not isinstance(res, type):
        fields = {f.name: getattr(res, f.name) for f in dataclasses.fields(res) if f.init}
        if fields and all(isinstance(v, BootstrapResult) for v in fields.values()):
            return dataclasses.replace(
                res, **{k: v.interval(confidence_level=level) for k, v in fields.items()}
            )
    return None
