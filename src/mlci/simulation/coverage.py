"""Coverage studies: the repeated experiments of a list of :class:`Scenario` objects and
their empirical coverage (:class:`CoverageStudy`, :class:`CoverageRow`)."""

from __future__ import annotations

import dataclasses
import math
import time
import warnings
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from ..engine.bootstrap import bootstrap_ci
from ..exceptions import FewConditionsWarning, FewResamplesWarning, InvalidReplicatesWarning
from ..inputs import (
    INTERVAL_METHODS,
    check_confidence_level,
    check_positive_int,
    config_context,
)
from ..inputs.resampling import Resampling
from ..results import Result, format_value
from .data import SCHEMES, Simulation
from .scenarios import Scenario

__all__ = ["CoverageRow", "CoverageStudy", "coverage_study"]


@dataclass(frozen=True, repr=False)
class CoverageRow(Result):
    """Empirical coverage of one interval method under one scheme in one scenario.

    Attributes
    ----------
    scenario, metric, method, scheme : str
    n_samples : int
        Samples per experiment (of the first experiment, if sizes vary).
    n_conditions : int or None
        Conditions in the data (whatever the scheme), for clustered scenarios.
    true_value : float
        Population value of the metric (of the first experiment).
    n_experiments : int
        Experiments whose interval could be computed.
    n_covered : int
        Of those, how many intervals contained ``true_value``.
    coverage : float
        ``n_covered / n_experiments``.
    coverage_ci : tuple of float
        Exact (Clopper-Pearson) 95% interval of the coverage.
    pvalue : float
        Exact two-sided binomial test of ``coverage == confidence_level``.
    mean_width : float
        Mean interval width.
    n_failed : int
        Experiments where no interval could be computed (an error was raised).
    n_warned : int
        Experiments where mlci warned (degenerate distribution, invalid replicates).
    n_below, n_above : int
        Misses with the truth below the interval's low end / above its high end (the
        interval was too high / too low).

    Examples
    --------
    >>> from mlci.simulation import binary_classification
    >>> sc = [Scenario("acc", lambda g: binary_classification(100, 0.7, rng=g))]
    >>> study = coverage_study(sc, n_experiments=10, n_resamples=100, methods=["percentile"])
    >>> study.row("acc", "percentile")  # doctest: +NORMALIZE_WHITESPACE
    CoverageRow('acc', method='percentile', scheme='iid', coverage=0.9 [0.555, 0.9975],
                n_experiments=10, mean_width=0.1622)
    """

    scenario: str
    metric: str
    method: str
    scheme: str
    n_samples: int
    n_conditions: int | None
    true_value: float
    n_experiments: int
    n_covered: int
    coverage: float
    coverage_ci: tuple[float, float]
    pvalue: float
    mean_width: float
    n_failed: int
    n_warned: int
    n_below: int
    n_above: int

    def __repr__(self) -> str:
        low, high = self.coverage_ci
        return (
            f"CoverageRow({self.scenario!r}, method={self.method!r}, scheme={self.scheme!r}, "
            f"coverage={format_value(self.coverage)} [{format_value(low)}, "
            f"{format_value(high)}], n_experiments={self.n_experiments}, "
            f"mean_width={format_value(self.mean_width)})"
        )

    def rows(self) -> list[dict[str, Any]]:
        """One row: the fields, ``coverage_ci`` as ``coverage_low`` and ``coverage_high``."""
        row: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name == "coverage_ci":
                row["coverage_low"], row["coverage_high"] = self.coverage_ci
            else:
                row[f.name] = getattr(self, f.name)
        return [row]


@dataclass(frozen=True, repr=False)
class CoverageStudy(Result):
    """The rows of a coverage study, with its settings.

    Attributes
    ----------
    entries : tuple of CoverageRow
        One per scenario, scheme and method (``rows()`` gives them as dicts,
        ``to_frame()`` as a table).
    confidence_level : float
    n_resamples : int
    seconds : float
        Wall time of the study.

    Examples
    --------
    >>> from mlci.simulation import binary_classification
    >>> sc = [Scenario("acc", lambda g: binary_classification(100, 0.7, rng=g))]
    >>> study = coverage_study(sc, n_experiments=10, n_resamples=100, methods=["percentile"])
    >>> study  # doctest: +ELLIPSIS
    CoverageStudy(1 rows, confidence_level=0.95, n_resamples=100, seconds=...)
    >>> study.to_frame()[["scenario", "method", "coverage", "coverage_low"]].round(3)
      scenario      method  coverage  coverage_low
    0      acc  percentile       0.9         0.555
    """

    entries: tuple[CoverageRow, ...]
    confidence_level: float
    n_resamples: int
    seconds: float

    def row(self, scenario: str, method: str, scheme: str = "iid") -> CoverageRow:
        """The row of one scenario, method and scheme."""
        for r in self.entries:
            if (r.scenario, r.method, r.scheme) == (scenario, method, scheme):
                return r
        raise KeyError(f"no row for {(scenario, method, scheme)!r}")

    def __repr__(self) -> str:
        return (
            f"CoverageStudy({len(self.entries)} rows, confidence_level={self.confidence_level}, "
            f"n_resamples={self.n_resamples}, seconds={self.seconds:.1f})"
        )

    def rows(self) -> list[dict[str, Any]]:
        """One row per entry (:meth:`CoverageRow.rows`)."""
        return [row for r in self.entries for row in r.rows()]

    def to_markdown(self) -> str:
        """The rows as a markdown table."""
        head = (
            "| scenario | n | conditions | truth | method | scheme | experiments | coverage "
            "| 95% CI of coverage | binomial p | mean width | misses low / high "
            "| warned | failed |\n"
            "|---|---:|---:|---:|---|---|---:|---:|---|---:|---:|---:|---:|---:|"
        )
        lines = [head]
        for r in self.entries:
            lines.append(
                f"| {r.scenario} | {r.n_samples} | {r.n_conditions or ''} | "
                f"{r.true_value:.4f} | {r.method} | {r.scheme} | {r.n_experiments} | "
                f"{r.coverage:.3f} | [{r.coverage_ci[0]:.3f}, {r.coverage_ci[1]:.3f}] | "
                f"{r.pvalue:.2g} | {r.mean_width:.4f} | {r.n_below} / {r.n_above} | "
                f"{r.n_warned} | {r.n_failed} |"
            )
        return "\n".join(lines)


def _experiment_seed(seed: int, scenario: str, i: int) -> np.random.SeedSequence:
    # crc32 of the name: stable across runs and independent of the scenario list
    return np.random.SeedSequence(seed, spawn_key=(zlib.crc32(scenario.encode()), i))


#: the interval methods computed from the bootstrap distribution alone
_DIST = ("percentile", "basic", "normal", "bc", "bca")
#: warnings that a coverage study expects (it measures what few conditions do)
_EXPECTED = (FewConditionsWarning,)


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, list[Any]]:
    """``fn(...)`` and the warnings it raised (except the expected ones); None on ValueError."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = fn(*args, **kwargs)
        except ValueError:
            return None, []
    return res, [c for c in caught if not issubclass(c.category, _EXPECTED)]


def _experiment(
    sim: Simulation,
    methods: Sequence[str],
    kwargs: dict[str, Any],
    level: float,
    seed: np.random.SeedSequence,
) -> dict[str, tuple[float, float, bool]]:
    """``{method: (low, high, warned)}`` of one simulated test set (a method that raised
    a ValueError is missing).  Every method uses the same replicate seed."""
    out: dict[str, tuple[float, float, bool]] = {}
    if sim.y_pred_b is not None:  # a paired comparison: compare() per method
        from ..comparison.paired import compare

        second = sim.y_pred if sim.y_pred is not None else sim.y_score
        for m in methods:
            res, caught = _call(
                compare,
                sim.y_true,
                {"A": second, "B": sim.y_pred_b},
                metric=sim.metric,
                method=m,
                confidence_level=level,
                rng=seed,
                **kwargs,
            )
            if res is not None:
                d = res.difference("A", "B")
                out[m] = (*d.confidence_interval, bool(caught))
        return out
    common = {"metric": sim.metric, "confidence_level": level, "rng": seed, **kwargs}
    results: dict[str, tuple[Any, list[Any]]] = {}
    if any(m in _DIST for m in methods):
        results["bca"] = _call(bootstrap_ci, *sim.data, method="bca", **common)
    if any(m not in _DIST for m in methods):
        results["studentized"] = _call(bootstrap_ci, *sim.data, method="studentized", **common)
    chosen = None
    if "auto" in methods:  # which method "auto" picks (the same replicates as the others)
        probe, seen = _call(bootstrap_ci, *sim.data, method="auto", **{**common, "n_resamples": 2})
        chosen = None if probe is None else probe.method
        if probe is not None and chosen not in INTERVAL_METHODS:
            # an analytic interval auto returned (the ROC AUC's, mlci.engine.auc_analytic):
            # read off the data, not the replicates (the probe's too-few-replicates aside)
            seen = [c for c in seen if not issubclass(c.category, FewResamplesWarning)]
            out["auto"] = (*probe.confidence_interval, bool(seen))
            chosen = None
    for m in methods:
        target = chosen if m == "auto" else m
        if target is None:
            continue
        base, caught = results["bca" if target in _DIST else "studentized"]
        if base is None:
            continue
        if target in ("bca", "studentized"):
            out[m] = (*base.confidence_interval, bool(caught))
            continue
        res, more = _call(base.interval, method=target)
        if res is not None:
            invalid = any(issubclass(c.category, InvalidReplicatesWarning) for c in caught)
            out[m] = (*res.confidence_interval, bool(more) or invalid)
    return out


def coverage_study(
    scenarios: Iterable[Scenario],
    *,
    n_experiments: int,
    n_resamples: int = 1000,
    methods: Sequence[str] = ("percentile", "bca"),
    confidence_level: float = 0.95,
    rng: int = 0,
    n_jobs: int = 1,
    progress: Callable[[str], None] | None = None,
) -> CoverageStudy:
    """Empirical coverage of bootstrap intervals over repeated simulated experiments.

    For each scenario, ``n_experiments`` test sets are generated; on each, one
    bootstrap per scheme (:func:`mlci.bootstrap_ci` with ``method="bca"``) gives the
    BCa interval and the other distribution methods from the *same* replicates
    (exactly what ``bootstrap_ci`` with that method and seed returns); one with
    ``method="studentized"`` (the same replicates and their standard errors) gives the
    studentized, ``t`` and ``wilson`` intervals; ``"auto"`` is the interval of the method
    ``bootstrap_ci(method="auto")`` picks.  A paired scenario (``y_pred_b``) calls
    :func:`mlci.compare` once per method and takes the difference's interval.
    Experiment ``i`` of a scenario has its own seed derived from ``rng``, the scenario's
    name and ``i``: a smaller study is a prefix of a larger one, and every scheme sees the
    same test sets and replicate seeds.

    Parameters
    ----------
    scenarios : iterable of Scenario
    n_experiments : int
    n_resamples : int, default 1000
    methods : sequence of str
        Interval methods (:data:`mlci.inputs.INTERVAL_METHODS`).
    confidence_level : float, default 0.95
    rng : int, default 0
        Seed of the whole study.
    n_jobs : int, default 1
        Threads of each bootstrap.
    progress : callable, optional
        Called with a line of text after each scenario.

    Returns
    -------
    CoverageStudy

    Examples
    --------
    >>> from mlci.simulation import binary_classification
    >>> sc = [Scenario("acc", lambda g: binary_classification(100, 0.7, rng=g))]
    >>> study = coverage_study(sc, n_experiments=20, n_resamples=200, rng=1)
    >>> r = study.row("acc", "bca")
    >>> r.n_experiments, 0.7 < r.coverage <= 1.0
    (20, True)
    """
    n_exp = check_positive_int("n_experiments", n_experiments)
    n_resamples = check_positive_int("n_resamples", n_resamples, minimum=2)
    level = check_confidence_level(confidence_level)
    methods = tuple(methods)
    for m in methods:
        if m not in INTERVAL_METHODS:
            raise ValueError(
                f"`methods` must contain only {', '.join(INTERVAL_METHODS)}; got {m!r}."
            )
    start = time.perf_counter()
    rows: list[CoverageRow] = []
    for sc in scenarios:
        for s in sc.schemes:
            if s not in SCHEMES:
                raise ValueError(f"scheme {s!r} of scenario {sc.name!r} is not one of {SCHEMES}.")
        keys = [(m, s) for s in sc.schemes for m in methods]
        lows = {k: np.full(n_exp, np.nan) for k in keys}
        highs = {k: np.full(n_exp, np.nan) for k in keys}
        warned = {k: 0 for k in keys}
        truths = np.empty(n_exp)
        first: Simulation | None = None
        for i in range(n_exp):
            data_ss, boot_ss = _experiment_seed(rng, sc.name, i).spawn(2)
            sim = sc.generate(np.random.default_rng(data_ss))
            first = first or sim
            truths[i] = sim.true_value
            for s in sc.schemes:
                kwargs: dict[str, Any] = {"n_resamples": n_resamples}
                if s != "iid":
                    kwargs.update(
                        conditions=sim.conditions,
                        resampling=Resampling(two_stage=s == "two-stage"),
                    )
                with config_context(n_jobs=n_jobs):  # an engine knob: the configuration's
                    got = _experiment(sim, methods, kwargs, level, boot_ss)
                for m in methods:
                    if m in got:
                        low, high, w = got[m]
                        lows[(m, s)][i], highs[(m, s)][i] = low, high
                        warned[(m, s)] += int(w)
        assert first is not None
        for m, s in keys:
            ok = ~np.isnan(lows[(m, s)])
            lo, hi, t = lows[(m, s)][ok], highs[(m, s)][ok], truths[ok]
            k, n_ok = int(np.sum((lo <= t) & (t <= hi))), int(ok.sum())
            if n_ok:
                bt = stats.binomtest(k, n_ok, level)
                ci = bt.proportion_ci(0.95, method="exact")
                ci_t, pval = (float(ci.low), float(ci.high)), float(bt.pvalue)
            else:
                ci_t, pval = (math.nan, math.nan), math.nan
            rows.append(
                CoverageRow(
                    scenario=sc.name,
                    metric=first.metric,
                    method=m,
                    scheme=s,
                    n_samples=first.n_samples,
                    n_conditions=first.n_conditions,
                    true_value=float(first.true_value),
                    n_experiments=n_ok,
                    n_covered=k,
                    coverage=k / n_ok if n_ok else math.nan,
                    coverage_ci=ci_t,
                    pvalue=pval,
                    mean_width=float(np.mean(hi - lo)) if n_ok else math.nan,
                    n_failed=n_exp - n_ok,
                    n_warned=warned[(m, s)],
                    n_below=int(np.sum(t < lo)),
                    n_above=int(np.sum(t > hi)),
                )
            )
        if progress is not None:
            progress(f"{sc.name}: done in {time.perf_counter() - start:.1f} s")
    return CoverageStudy(
        entries=tuple(rows),
        confidence_level=level,
        n_resamples=n_resamples,
        seconds=time.perf_counter() - start,
    )
