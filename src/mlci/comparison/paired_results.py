"""The results of :func:`mlci.compare`: every system, every paired difference, the ranking.

:class:`ComparisonResult` holds each system's :class:`~mlci.BootstrapResult`, each pair's
:class:`PairDifference` (an interval result with raw, adjusted and simultaneous
inferences) and, when every pair is compared, the ranking (:class:`RankEntry`).  The
driver that computes them is :mod:`mlci.comparison.paired`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..inputs import (
    check_alternative,
    check_choice,
    check_confidence_level,
    confidence_levels,
)
from ..results import (
    BootstrapResult,
    ConfidenceInterval,
    IntervalResult,
    Result,
    format_value,
    html_table,
    plain,
    require_pandas,
)
from .margins import MarginTest
from .tango import tango_interval, tango_pvalue

__all__ = [
    "ComparisonResult",
    "PairDifference",
    "RankEntry",
]


@dataclass(frozen=True, kw_only=True, repr=False)
class PairDifference(IntervalResult):
    """One paired difference ``metric(a) - metric(b)``: an interval result with p-values.

    Attributes (in addition to :class:`~mlci.IntervalResult`'s: ``estimate``,
    ``confidence_interval``, ``confidence_level``, ``method``, ``alternative``,
    ``standard_error``, ``metric``, ``details``)
    ----------------------------------------------------------------------------
    a, b : str
        The two systems; the difference is ``a - b``.
    pvalue : float
        Unadjusted p-value for "no difference".
    pvalue_adjusted : float
        After the multiple-comparison correction.
    simultaneous_interval : ConfidenceInterval
        Max-|t| interval: all such intervals hold together with the confidence level.
    significant : bool
        ``pvalue_adjusted < 1 - confidence_level``.

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> a = np.where(rng.random(400) < 0.85, y, 1 - y)
    >>> b = np.where(rng.random(400) < 0.75, y, 1 - y)
    >>> d = mlci.compare(y, {"A": a, "B": b}, metric="accuracy", rng=0).difference("A", "B")
    >>> d.a, d.b, d.method, bool(d.pvalue < 0.01)
    ('A', 'B', 'tango', True)
    >>> sorted(d.to_frame().columns)[:4]
    ['a', 'alternative', 'b', 'confidence_level']
    """

    a: str
    b: str
    pvalue: float
    pvalue_adjusted: float
    simultaneous_interval: ConfidenceInterval
    significant: bool
    margin_test: MarginTest | None = None

    def interval(
        self, confidence_level: Any = None, alternative: str | None = None
    ) -> IntervalResult | tuple[IntervalResult, ...]:
        """The pair's interval at another level or ``alternative``, without resampling.

        Only Tango's interval (``method`` ``"tango"``: :func:`mlci.compare`'s ``"auto"``
        for two proportions on the same independent samples) can be re-read: it is a
        function of the paired 2x2 table (``details["paired_table"]``), re-solved here,
        so the result equals the interval (and ``pvalue``, Tango's score test at 0) of
        ``compare(..., confidence_level=level, alternative=alternative)`` for this pair.
        A bootstrap or t interval needs the replicates, which a ``PairDifference`` does
        not keep; the adjusted p-values, the simultaneous interval and the margin test
        depend on the other pairs: for these, call ``compare`` again with a list of
        levels.

        Parameters
        ----------
        confidence_level : float or sequence of float, optional
            Default: this result's level.  Several levels give a tuple of results.
        alternative : {"two-sided", "less", "greater"}, optional
            Default: this result's.

        Returns
        -------
        IntervalResult, or tuple of IntervalResult (one per level)
            ``estimate``, ``standard_error`` and ``metric`` of this pair, Tango's interval
            at the level, ``method`` ``"tango"``, and in ``details`` the table and
            ``pvalue`` (Tango's score test of no difference for that ``alternative``).

        Examples
        --------
        >>> import numpy as np, mlci
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 400)
        >>> a = np.where(rng.random(400) < 0.85, y, 1 - y)
        >>> b = np.where(rng.random(400) < 0.75, y, 1 - y)
        >>> d = mlci.compare(y, {"A": a, "B": b}, metric="accuracy", rng=0).difference("A", "B")
        >>> r = d.interval(confidence_level=0.99)
        >>> r.method, r.confidence_level, r.confidence_interval.low < d.confidence_interval.low
        ('tango', 0.99, True)
        """
        levels = confidence_levels(confidence_level)
        if levels is not None:
            return tuple(self.interval(lv, alternative) for lv in levels)  # type: ignore[misc]
        if self.method != "tango" or "paired_table" not in self.details:
            raise ValueError(
                f"This pair's interval ({self.method!r}) cannot be re-read: only Tango's "
                "interval (method 'tango', from details['paired_table']) is re-solved "
                "without the replicates. Call mlci.compare again with "
                "confidence_level=[...] (a list of levels) or another `alternative`."
            )
        level = check_confidence_level(
            self.confidence_level if confidence_level is None else confidence_level
        )
        alt = check_alternative(self.alternative if alternative is None else alternative)
        table = np.asarray(self.details["paired_table"])
        low, high = tango_interval(table, level, alt).confidence_interval
        return IntervalResult(
            estimate=self.estimate,
            confidence_interval=ConfidenceInterval(float(low), float(high)),
            confidence_level=level,
            method="tango",
            alternative=alt,
            standard_error=self.standard_error,
            metric=self.metric,
            details={"paired_table": table.tolist(), "pvalue": tango_pvalue(table, alt)},
        )

    def _tail(self) -> list[str]:
        return [
            f"pvalue={format_value(self.pvalue)}",
            f"pvalue_adjusted={format_value(self.pvalue_adjusted)}",
        ]

    def __repr__(self) -> str:
        body = ", ".join([self._head(), *self._tail()])
        return f"PairDifference({self.a!r} - {self.b!r}, {body})"

    def reversed(self) -> PairDifference:
        """The same comparison as ``b - a`` (estimate and intervals negated)."""
        lo, hi = self.confidence_interval
        slo, shi = self.simultaneous_interval
        alt = {"less": "greater", "greater": "less"}.get(self.alternative, self.alternative)
        return dataclasses.replace(
            self,
            a=self.b,
            b=self.a,
            estimate=-self.estimate,
            confidence_interval=ConfidenceInterval(-hi, -lo),
            simultaneous_interval=ConfidenceInterval(-shi, -slo),
            alternative=alt,
            margin_test=None if self.margin_test is None else self.margin_test.reversed(),
        )

    def rows(self) -> list[dict[str, Any]]:
        """One row (a row of :meth:`ComparisonResult.to_frame`): ``a``, ``b``, ``metric``,
        ``estimate``, ``low``, ``high``, ``standard_error``, ``pvalue``,
        ``pvalue_adjusted``, ``simultaneous_low``, ``simultaneous_high``, ``significant``,
        ``method``, ``alternative``, ``confidence_level``."""
        row = {
            "a": self.a,
            "b": self.b,
            "metric": self.metric,
            "estimate": self.estimate,
            "low": self.confidence_interval.low,
            "high": self.confidence_interval.high,
            "standard_error": self.standard_error,
            "pvalue": self.pvalue,
            "pvalue_adjusted": self.pvalue_adjusted,
            "simultaneous_low": self.simultaneous_interval.low,
            "simultaneous_high": self.simultaneous_interval.high,
            "significant": self.significant,
            "method": self.method,
            "alternative": self.alternative,
            "confidence_level": self.confidence_level,
        }
        if self.margin_test is not None:  # the margin's columns (see MarginTest.rows)
            row.update({f"margin_{k}": v for k, v in self.margin_test.rows()[0].items()})
        return [plain(row)]


@dataclass(frozen=True, kw_only=True, repr=False)
class RankEntry(Result):
    """A system's place: ``rank = 1 + number of systems significantly better than it``.

    Systems with the same rank are not separated by the data; ``tied_with`` lists the
    systems that are not significantly different from this one.

    Examples
    --------
    >>> e = RankEntry(system="A", estimate=0.85, rank=1, tied_with=("B",))
    >>> e
    RankEntry(1: 'A' 0.85, tied_with=('B',))
    >>> e.to_dict()
    {'system': 'A', 'estimate': 0.85, 'rank': 1, 'tied_with': ['B']}
    """

    system: str
    estimate: float
    rank: int
    tied_with: tuple[str, ...]

    def __repr__(self) -> str:
        tied = f", tied_with={tuple(self.tied_with)!r}" if self.tied_with else ""
        return f"RankEntry({self.rank}: {self.system!r} {format_value(self.estimate)}{tied})"

    def rows(self) -> list[dict[str, Any]]:
        """One row: ``system``, ``estimate``, ``rank``, ``tied_with``."""
        return [self.to_dict()]


@dataclass(frozen=True, kw_only=True, repr=False)
class ComparisonResult(Result):
    """Paired comparison of several systems on the same bootstrap replicates.

    ``repr`` is one line; ``print(result)`` shows every system's interval, every pair's
    difference and the ranking.  :meth:`to_frame` gives the differences (or, with
    ``what="systems"``, the systems) as a table.

    Attributes
    ----------
    metric : str
    systems : dict of str -> BootstrapResult
        Each system's estimate and (two-sided) interval; its bootstrap distribution is
        the corresponding column of the paired replicates.
    differences : tuple of PairDifference
        All pairs ``(a, b)`` with ``a`` before ``b`` in the input order, or every system
        against ``reference`` (``a = system``, ``b = reference``).
    reference : str or None
    correction : str
        Multiple-comparison adjustment of the p-values (``"holm"``, ``"maxt"``, ...).
    pvalue_method : str
        How the unadjusted p-values were computed.
    simultaneous_critical_value : float
        ``c`` of the max-|t| intervals ``d +- c * se`` (for a one-sided ``alternative``,
        the quantile of the signed max-t in the direction of H1, and one-sided bounds).
    ranking : tuple of RankEntry or None
        Only when all pairs are compared.
    higher_is_better : bool
    confidence_level, method, n_resamples, scheme, n_samples, n_conditions, n_strata
        As in :class:`~mlci.BootstrapResult`.
    alternative : str
        Of the differences' intervals and p-values.
    details : dict
        ``n_dropped`` (samples dropped with ``dropna=True``), ``joint_atoms``, and
        ``no_spread_pairs`` / ``no_spread_systems`` when some have no bootstrap spread
        (a pair without spread, two systems without a discordant sample, is also warned
        about: :class:`~mlci.DegenerateIntervalWarning`, its text in
        ``no_spread_warning``).

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> systems = {"A": np.where(rng.random(400) < 0.85, y, 1 - y),
    ...            "B": np.where(rng.random(400) < 0.75, y, 1 - y)}
    >>> res = mlci.compare(y, systems, metric="accuracy", rng=0, n_resamples=500)
    >>> res  # doctest: +NORMALIZE_WHITESPACE
    ComparisonResult(metric='accuracy', 2 systems, 400 samples, n_resamples=500,
                     scheme='iid', 95% CI (auto), correction='holm')
    >>> print(res)  # doctest: +ELLIPSIS
    ComparisonResult(metric='accuracy', 2 systems, ...)
      A  0.86  [0.8226, 0.8906]
      B  0.7425  [0.6975, 0.7829]
      A - B: 0.1175  [0.0606, 0.1743]  p=6.706e-05  p_adj=6.706e-05 *
      ranking: 1. A, 2. B
    >>> res.to_frame()[["a", "b", "estimate", "pvalue"]]
       a  b  estimate    pvalue
    0  A  B    0.1175  0.000067
    >>> res.to_frame("systems")[["estimate", "rank"]]  # doctest: +NORMALIZE_WHITESPACE
            estimate  rank
    system
    A         0.8600     1
    B         0.7425     2
    """

    metric: str
    systems: dict[str, BootstrapResult]
    differences: tuple[PairDifference, ...]
    reference: str | None
    correction: str
    pvalue_method: str
    simultaneous_critical_value: float
    ranking: tuple[RankEntry, ...] | None
    higher_is_better: bool
    confidence_level: float
    method: str
    alternative: str = "two-sided"
    n_resamples: int
    n_invalid: int
    scheme: str
    n_samples: int
    n_conditions: int | None = None
    n_strata: int | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def difference(self, a: str, b: str) -> PairDifference:
        """The pair ``a - b`` (the reversed pair is returned negated).

        Parameters
        ----------
        a, b : str
            Names of two of the systems.
        """
        for d in self.differences:
            if (d.a, d.b) == (a, b):
                return d
            if (d.a, d.b) == (b, a):
                return d.reversed()
        raise KeyError(f"No comparison of {a!r} with {b!r} in this result.")

    def __repr__(self) -> str:
        lvl = f"{self.confidence_level * 100:.10g}%"
        side = "" if self.alternative == "two-sided" else f", {self.alternative}"
        return (
            f"ComparisonResult(metric={self.metric!r}, {len(self.systems)} systems, "
            f"{self.n_samples} samples, n_resamples={self.n_resamples}, "
            f"scheme={self.scheme!r}, {lvl} CI ({self.method}{side}), "
            f"correction={self.correction!r})"
        )

    def __str__(self) -> str:
        lines = [repr(self)]
        width = max(len(s) for s in self.systems)
        for name, r in self.systems.items():
            lo, hi = r.confidence_interval
            lines.append(
                f"  {name:<{width}}  {format_value(r.estimate)}  "
                f"[{format_value(lo)}, {format_value(hi)}]"
            )
        for d in self.differences:
            lo, hi = d.confidence_interval
            star = " *" if d.significant else ""
            lines.append(
                f"  {d.a} - {d.b}: {format_value(d.estimate)}  "
                f"[{format_value(lo)}, {format_value(hi)}]  "
                f"p={format_value(d.pvalue)}  p_adj={format_value(d.pvalue_adjusted)}{star}"
            )
            if d.margin_test is not None:
                lines.extend("  " + line for line in str(d.margin_test).splitlines()[1:])
        if self.ranking is not None:
            lines.append("  ranking: " + ", ".join(f"{e.rank}. {e.system}" for e in self.ranking))
        return "\n".join(lines)

    def rows(self, what: str = "differences") -> list[dict[str, Any]]:
        """The ``"differences"`` (one row per pair, the row of
        :meth:`PairDifference.rows`) or the ``"systems"`` (``system``, ``estimate``,
        ``low``, ``high``, ``standard_error``, ``rank``).

        Parameters
        ----------
        what : {"differences", "systems"}, default "differences"
        """
        check_choice("what", what, ("differences", "systems"))
        if what == "differences":
            return [d.rows()[0] for d in self.differences]
        ranks = {} if self.ranking is None else {e.system: e.rank for e in self.ranking}
        return [
            plain(
                {
                    "system": k,
                    "estimate": v.estimate,
                    "low": v.confidence_interval.low,
                    "high": v.confidence_interval.high,
                    "standard_error": v.standard_error,
                    "rank": ranks.get(k),
                }
            )
            for k, v in self.systems.items()
        ]

    def to_frame(self, what: str = "differences") -> Any:
        """A pandas DataFrame of :meth:`rows`: the ``"differences"`` (one row per pair)
        or the ``"systems"`` (indexed by system).

        Parameters
        ----------
        what : {"differences", "systems"}, default "differences"
        """
        frame = require_pandas().DataFrame(self.rows(what))
        return frame.set_index("system") if what == "systems" else frame

    def _repr_html_(self) -> str:
        return html_table(self.rows("systems"), repr(self)) + html_table(
            self.rows("differences"), "Differences a - b"
        )


# --------------------------------------------------------------------------- ranking
def _ranking(
    names: list[str], estimates: np.ndarray, diffs: Sequence[PairDifference], hib: bool
) -> tuple[RankEntry, ...]:
    """Rank = 1 + number of systems significantly better (adjusted p-values)."""
    idx = {nm: i for i, nm in enumerate(names)}
    better = np.zeros(len(names), dtype=int)
    tied: dict[str, list[str]] = {nm: [] for nm in names}
    for d in diffs:
        if not d.significant:
            tied[d.a].append(d.b)
            tied[d.b].append(d.a)
            continue
        a_better = (d.estimate > 0) == hib
        better[idx[d.b] if a_better else idx[d.a]] += 1
    sign = -1.0 if hib else 1.0
    order = sorted(range(len(names)), key=lambda i: (better[i], sign * estimates[i]))
    return tuple(
        RankEntry(
            system=names[i],
            estimate=float(estimates[i]),
            rank=int(better[i]) + 1,
            tied_with=tuple(tied[names[i]]),
        )
        for i in order
    )
