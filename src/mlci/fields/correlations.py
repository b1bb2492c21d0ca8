"""Metric meta-evaluation: how well a metric's scores correlate with human scores.

Scores come as ``(n_systems, n_items)`` matrices (the metric's and the humans' score of
every system's output on every item), as in Deutsch, Dror & Roth (2021, "A Statistical
Analysis of Summarization Evaluation Metrics Using Resampling Methods", TACL 9).  The
correlation is taken at the ``"system"`` level (the systems' mean scores), the ``"item"``
level (across systems within each item, averaged; their "summary-level") or the
``"global"`` level (all cells; ``correlation_level=``), and its interval resamples the
``"systems"``, the ``"items"`` or ``"both"`` (their BOOT-SYSTEMS, BOOT-INPUTS, BOOT-BOTH):
resampling systems generalises to other systems, items to other items, both to both.

* :func:`correlation_ci`: the interval, through the bootstrap engine (cell weights are the
  product of the drawn systems' and items' counts; the data are never copied).
* :func:`compare_correlations`: do two metrics correlate differently with the same human
  scores?  Deutsch et al.'s paired permutation test (PERM-SYSTEMS / PERM-INPUTS /
  PERM-BOTH), or Williams' (1959) t test for dependent correlations (Steiger 1980, eq. 7).
* :func:`williams_test`: Williams' test from the three correlations and ``n``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..engine.bootstrap import run_bootstrap
from ..engine.custom import UserSampler
from ..engine.nested import plan_for_conditions
from ..exceptions import AttenuatedCorrelationWarning, FewConditionsWarning
from ..feedback import warn
from ..inputs import (
    ArgSpec,
    bootstrap_options,
    check_choice,
    check_positive_int,
    check_rng_seed,
    gather,
    knobs_in_config,
)
from ..metrics.correlation import COEFFICIENTS, LEVELS, GridCorrelationKernel
from ..results import BootstrapResult, TestResult
from .attenuation import WARN_RATIO, attenuation, attenuation_ratio
from .correlation_jackknife import with_jackknife_z
from .correlation_kendall import with_jackknife_tau

__all__ = ["compare_correlations", "correlation_ci", "williams_test"]

RESAMPLE = ("systems", "items", "both")
#: fewer systems than this at the system level: the map has no design that holds
MIN_SYSTEMS = 8
#: fewer systems than this at the global level, resampling both: under-covers (the
#: engine's threshold when systems alone are resampled; docs/correlations.md)
MIN_SYSTEMS_GLOBAL = 20
#: fewer items than this at the global level, resampling both: under-covers where the
#: items' means carry much of the covariance (the engine's threshold when items alone are
#: resampled; design search seed-12 fields #1, 36 systems x 3 items: 0.830 of 300)
MIN_ITEMS_GLOBAL = 20


_FEW_SYSTEMS_SYSTEM_LEVEL = (
    "A system-level correlation over {n} systems: below {threshold} systems, "
    "mlci's simulation (docs/correlations.md) found no interval keeping its level "
    "when systems are resampled. Treat the interval as optimistic."
)

#: The few-units warnings (``FewConditionsWarning``), one row per design in which the
#: interval falls short below ``threshold`` of ``unit``: (level, resample, unit,
#: threshold, message; ``{n}`` the count of the unit, ``{threshold}`` the row's).  Rows
#: are checked in this order and every matching row warns.
FEW_UNITS: tuple[tuple[str, str, str, int, str], ...] = (
    ("system", "systems", "systems", MIN_SYSTEMS, _FEW_SYSTEMS_SYSTEM_LEVEL),
    ("system", "both", "systems", MIN_SYSTEMS, _FEW_SYSTEMS_SYSTEM_LEVEL),
    # resampling items only, the attenuation analysis (which would speak) is too noisy
    # below MIN_SYSTEMS to read: design search seed-13 fields #49, Pearson over 4
    # systems x 220 items, 0.873 of 300, unwarned
    (
        "system",
        "items",
        "systems",
        MIN_SYSTEMS,
        "A system-level correlation over {n} systems, resampling items: below "
        "{threshold} systems the correlation of so few system means moves with every "
        "item's noise and mlci cannot tell its attenuation (the design search: 4 systems "
        "x 220 items, 0.87 of 95% intervals; docs/correlations.md). Treat the interval "
        "as optimistic, or use more systems.",
    ),
    (
        "global",
        "both",
        "systems",
        MIN_SYSTEMS_GLOBAL,
        "A global-level correlation over {n} systems, resampling systems and items: "
        "below {threshold} systems the crossed bootstrap under-covers (mlci's "
        "design search: 9 systems, 0.74-0.85 of 95% intervals; docs/correlations.md). "
        "Treat the interval as optimistic, or use more systems.",
    ),
    (
        "global",
        "both",
        "items",
        MIN_ITEMS_GLOBAL,
        "A global-level correlation over {n} items, resampling systems and items: "
        "below {threshold} items the crossed bootstrap under-covers where the "
        "items' means carry much of the covariance (mlci's design search: 36 systems x "
        "3 items, 0.83 of 95% intervals, 8-12 items 0.90; docs/correlations.md). Treat "
        "the interval as optimistic, or use more items.",
    ),
)


def _warn_few_units(level: str, resample: str, n_systems: int, n_items: int) -> None:
    """``FewConditionsWarning`` for every row of :data:`FEW_UNITS` that the design
    matches with fewer units than its threshold."""
    counts = {"systems": n_systems, "items": n_items}
    for row_level, row_resample, unit, threshold, message in FEW_UNITS:
        if row_level == level and row_resample == resample and counts[unit] < threshold:
            warn(message.format(n=counts[unit], threshold=threshold), FewConditionsWarning)


def _matrices(names: tuple[str, ...], values: tuple[Any, ...]) -> list[np.ndarray]:
    """The score matrices, validated together: 2-d, numbers, the same shape."""
    got = []
    for name, value in zip(names, values, strict=True):
        if value is None:
            raise ValueError(f"`{name}` is required; got None.")
        arr = np.asarray(value, dtype=object) if not hasattr(value, "shape") else value
        if np.ndim(arr) != 2:
            raise ValueError(
                f"`{name}` must be a 2-d matrix (n_systems, n_items): the score of every "
                f"system (row) on every item (column); got shape {np.shape(arr)}."
            )
        g = gather({name: ArgSpec("numbers", (2,), required=True)}, {name: value}, dropna_name=None)
        got.append(g.arrays[name])
    shape = got[0].shape
    for name, arr in zip(names[1:], got[1:], strict=True):
        if arr.shape != shape:
            raise ValueError(
                f"`{name}` has shape {arr.shape} but `{names[0]}` has {shape}; the matrices "
                "must pair the same systems (rows) and items (columns)."
            )
    if shape[0] < 2 or shape[1] < 1:
        raise ValueError(
            f"The score matrices need at least 2 systems (rows) and 1 item; got shape {shape}."
        )
    return got


def _crossed(n_systems: int, n_items: int) -> Any:
    """A sampler drawing systems and items independently: cell counts ``c_s * d_i``."""

    def sampler(rng: np.random.Generator, b: int) -> np.ndarray:
        c = rng.multinomial(n_systems, np.full(n_systems, 1.0 / n_systems), size=b)
        d = rng.multinomial(n_items, np.full(n_items, 1.0 / n_items), size=b)
        return (c[:, :, None] * d[:, None, :]).reshape(b, -1).astype(float)

    return sampler


@knobs_in_config
def correlation_ci(
    metric_scores: Any,
    human_scores: Any,
    *,
    coefficient: str = "kendall_tau",
    correlation_level: str = "system",
    resample: str = "both",
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: str = "auto",
    alternative: str = "two-sided",
    rng: Any = None,
) -> BootstrapResult:
    """Bootstrap interval of a metric's correlation with human scores.

    Parameters
    ----------
    metric_scores, human_scores : array-like, shape (n_systems, n_items)
        Scores of every system's output on every item, by the metric and by humans.
    coefficient : {"kendall_tau", "pearson", "spearman"}, default "kendall_tau"
        scipy.stats' definitions (Kendall's tau-b, mid-ranks for Spearman).
    correlation_level : {"system", "item", "global"}, default "system"
        What is correlated (see the module docstring).
    resample : {"systems", "items", "both"}, default "both"
        What the interval generalises over (Deutsch et al. 2021).
    n_resamples, confidence_level, method, alternative, rng
        As in :func:`mlci.bootstrap_ci`.  ``method="auto"`` is the studentized interval
        where the kernel has a derivative under the design (the global level resampling
        systems or items), else BCa; resampling both is a custom crossed scheme, always
        BCa with the delete-one-cell jackknife.  At the global level resampling systems
        or both (20-59 systems, any number of items) ``auto`` gives
        ``method="jackknife_z"`` instead, where those fell short: Fisher's z plus or minus
        Student's quantile times the jackknife standard error of z over the resampled
        systems and/or items (:mod:`mlci.fields.correlation_jackknife`; also at the item
        level over 20-29 systems, resampling systems or both;
        ``details["jackknife_z"]`` holds it and its degrees of freedom).  A Kendall's tau
        at the global level resampling 10-29 systems alone gets ``method="jackknife_tau"``
        instead: tau plus or minus Student's quantile on ``n - 1`` degrees of freedom times
        its delete-one-system jackknife standard error, on tau's own scale
        (:mod:`mlci.fields.correlation_kendall`; ``details["jackknife_tau"]``).

    Returns
    -------
    BootstrapResult
        At the system level ``details["attenuation"]`` holds the generalizability analysis
        of the two matrices (:mod:`mlci.fields.attenuation`): ``reliability_metric`` and
        ``reliability_human`` (of the systems' mean scores over these items),
        ``pearson_all_items`` (the Pearson correlation of the means over infinitely many
        items), ``attenuation`` (the coefficient at these items minus over infinitely
        many, expected), ``corrected_estimate`` (the estimate minus it: a point
        diagnostic, not calibrated as an interval) and ``ratio`` (the attenuation over the
        distance from the estimate to the interval's end on its side).

    Warns
    -----
    AttenuatedCorrelationWarning
        At the system level, resampling items or both, with at least 8 systems, when
        ``ratio`` exceeds 0.25: the item noise in the systems' means attenuates the
        correlation by a large share of the interval, which then misses the correlation
        over the items' population (docs/correlations.md, "Few items").
    FewConditionsWarning
        A system-level correlation over fewer than 8 systems (systems or items
        resampled); a global-level one over fewer than 20 systems or fewer than 20 items,
        resampling both (the engine warns below 20 resampled systems or items when only
        those are resampled).

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> system = rng.normal(size=(12, 1))
    >>> human = system + rng.normal(size=(12, 100))
    >>> metric = system + 0.5 * rng.normal(size=(12, 1)) + rng.normal(size=(12, 100))
    >>> res = mlci.correlation_ci(metric, human, correlation_level="system", resample="both",
    ...                           n_resamples=300, rng=0)
    >>> round(res.estimate, 3)
    0.788
    >>> round(res.details["attenuation"]["reliability_human"], 3)
    0.984
    """
    coefficient = check_choice("coefficient", coefficient, COEFFICIENTS)
    correlation_level = check_choice("correlation_level", correlation_level, LEVELS)
    resample = check_choice("resample", resample, RESAMPLE)
    x, y = _matrices(("metric_scores", "human_scores"), (metric_scores, human_scores))
    opts = bootstrap_options(
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
    )
    ns, ni = x.shape
    if correlation_level == "item" and ns < 3:
        raise ValueError(
            f"correlation_level='item' correlates the systems within every item; with {ns} "
            "systems every "
            "coefficient is +-1 or undefined. Use correlation_level='system' or 'global'."
        )
    if resample in ("items", "both") and ni < 2:
        raise ValueError(f"resample={resample!r} needs at least 2 items; got {ni}.")
    kernel = GridCorrelationKernel(x, y, correlation_level, coefficient)
    system_of = np.repeat(np.arange(ns), ni)
    item_of = np.tile(np.arange(ni), ns)
    method_ = opts.method
    if resample == "both" and method_ in ("auto", "studentized", "t"):
        if method_ != "auto":
            raise ValueError(
                f"method={method_!r} linearizes the metric under one resampled unit; resampling "
                "systems and items together has no linearization: use 'bca' or 'auto'."
            )
        method_ = "bca"
    conditions = {"systems": system_of, "items": item_of, "both": None}[resample]
    plan = plan_for_conditions(
        ns * ni, conditions=conditions, n_resamples=opts.n_resamples, rng=opts.seed
    )
    sampler = None
    if resample == "both":
        sampler = UserSampler(
            plan.weights_for(kernel.keys, kernel.m), _crossed(ns, ni), kernel.keys
        )
    _warn_few_units(correlation_level, resample, ns, ni)
    details: dict[str, Any] = {
        "level": correlation_level,
        "resample": resample,
        "n_systems": ns,
        "n_items": ni,
    }
    if correlation_level == "system":
        details["attenuation"] = attenuation(x, y, coefficient)
    res = run_bootstrap(
        kernel,
        plan,
        method=method_,
        confidence_level=opts.confidence_level,
        alternative=opts.alternative,
        batch=opts.engine.batch,
        n_jobs=opts.engine.n_jobs,
        max_memory=opts.engine.max_memory,
        metric_name=kernel.name,
        details=details,
        sampler=sampler,
        scheme="crossed (systems x items)" if resample == "both" else None,
    )
    if opts.method == "auto":
        new = with_jackknife_tau(res, kernel, coefficient, correlation_level, resample, ns, ni)
        res = (
            new
            if new is not res
            else with_jackknife_z(res, kernel, correlation_level, resample, ns, ni)
        )
    if correlation_level == "system":
        _warn_attenuated(res, coefficient, resample)
    return res


def _warn_attenuated(res: BootstrapResult, coefficient: str, resample: str) -> None:
    """Record the expected attenuation next to the interval (``details["attenuation"]``)
    and warn where it is large next to the interval (module :mod:`.attenuation`)."""
    att = res.details["attenuation"]
    low, high = (float(v) for v in res.confidence_interval)
    est = float(res.estimate)
    ratio = attenuation_ratio(att["attenuation"], est, low, high)
    att["ratio"] = ratio
    bias = att["attenuation"]
    att["corrected_estimate"] = max(-1.0, min(1.0, est - bias)) if math.isfinite(bias) else bias
    if resample == "systems" or res.details["n_systems"] < MIN_SYSTEMS:
        # resampling systems: the estimand is the correlation at these items; below
        # MIN_SYSTEMS the analysis is too noisy to tell (FewConditionsWarning covers both)
        return
    rel = (att["reliability_metric"], att["reliability_human"])
    n_items = res.details["n_items"]
    if ratio > WARN_RATIO:
        shift = (
            f"a shift of {ratio:.2g} times the distance from the estimate to the interval's end"
            if math.isfinite(ratio)
            else "a shift past the interval's end, which is the estimate itself"
        )
        warn(
            f"The system-level {coefficient} over {n_items} items is attenuated by the item "
            f"noise in the systems' mean scores (Spearman 1904): reliability of the means "
            f"{rel[0]:.3f} (metric) and {rel[1]:.3f} (human), so over infinitely many items "
            f"the correlation would be about {att['corrected_estimate']:.3f} instead of "
            f"{est:.3f} ({shift}). "
            f"Resampling {resample} keeps the attenuation: read the "
            f"interval as the correlation at {n_items} items, or use more items "
            "(details['attenuation'] holds the estimates).",
            AttenuatedCorrelationWarning,
        )


def williams_test(
    r12: float, r13: float, r23: float, n: int, *, alternative: str = "two-sided"
) -> TestResult:
    """Williams' test of two dependent correlations sharing a variable.

    Tests ``rho12 = rho13`` for the correlations of variable 1 (human scores) with
    variables 2 and 3 (two metrics) on the same ``n`` units, given ``r23`` between the
    metrics: ``t = (r12 - r13) sqrt((n - 1)(1 + r23) / (2 (n - 1)/(n - 3) |R| + rbar^2
    (1 - r23)^3))``, ``|R| = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23``, ``rbar = (r12 +
    r13)/2``, on ``n - 3`` degrees of freedom (Williams 1959; Steiger 1980, eq. 7; as R's
    ``psych::r.test``; Graham & Baldwin 2014 for MT metrics).  It assumes normal data and
    Pearson correlations.

    Parameters
    ----------
    r12, r13 : float
        Correlations of the two metrics with the human scores.
    r23 : float
        Correlation between the two metrics.
    n : int
        Number of units correlated (systems at the system level), at least 4.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: ``rho12 > rho13``.

    Returns
    -------
    TestResult
        ``statistic`` t, ``df`` n - 3, ``estimate`` r12 - r13, ``details["standard_error"]``
        the denominator of t (``estimate / statistic``).

    Examples
    --------
    >>> res = williams_test(0.6, 0.4, 0.5, 50)
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (1.7051, 0.0948)
    """
    for name, r in (("r12", r12), ("r13", r13), ("r23", r23)):
        if isinstance(r, bool) or not isinstance(r, int | float | np.floating | np.integer):
            raise TypeError(f"`{name}` must be a correlation (a number); got {type(r).__name__}.")
        if not -1.0 <= float(r) <= 1.0:
            raise ValueError(f"`{name}` must be a correlation in [-1, 1]; got {r!r}.")
    n = check_positive_int("n", n, minimum=4)
    alternative = check_choice("alternative", alternative, ("two-sided", "greater", "less"))
    from scipy import stats

    r12, r13, r23 = float(r12), float(r13), float(r23)
    det = 1.0 - r12**2 - r13**2 - r23**2 + 2.0 * r12 * r13 * r23
    if det < 0:
        raise ValueError(
            f"The correlations r12={r12:g}, r13={r13:g}, r23={r23:g} are not jointly possible "
            "(their correlation matrix is not positive semi-definite)."
        )
    rbar = (r12 + r13) / 2.0
    den = 2.0 * (n - 1) / (n - 3) * det + rbar**2 * (1.0 - r23) ** 3
    t = (r12 - r13) * np.sqrt((n - 1) * (1.0 + r23) / den) if den > 0 else np.nan
    df = n - 3
    if alternative == "two-sided":
        p = 2.0 * stats.t.sf(abs(t), df)
    elif alternative == "greater":
        p = stats.t.sf(t, df)
    else:
        p = stats.t.cdf(t, df)
    se = float(np.sqrt(den / ((n - 1) * (1.0 + r23)))) if den > 0 and r23 > -1 else math.nan
    return TestResult(
        statistic=float(t),
        pvalue=float(min(p, 1.0)),
        method="williams",
        alternative=alternative,
        df=float(df),
        estimate=r12 - r13,
        details={"standard_error": se},
    )


def _standardize(a: np.ndarray) -> np.ndarray:
    sd = a.std()
    if sd == 0:
        raise ValueError("A score matrix is constant: its correlation with anything is undefined.")
    return (a - a.mean()) / sd


def _unit_count(correlation_level: str, shape: tuple[int, int]) -> int:
    return {"system": shape[0], "item": shape[0], "global": shape[0] * shape[1]}[correlation_level]


def _value(kernel: GridCorrelationKernel) -> float:
    """The kernel's value on the data: every atom weighted by its count of cells (at the
    global level a correlation kernel merges cells with the same pair of scores)."""
    counts = np.bincount(kernel.keys, minlength=kernel.m).astype(float)
    return float(kernel.evaluate(counts[None, :])[0])


def compare_correlations(
    metric_a: Any,
    metric_b: Any,
    human_scores: Any,
    *,
    coefficient: str = "kendall_tau",
    correlation_level: str = "system",
    variant: str = "permutation",
    resample: str = "both",
    n_resamples: int = 1000,
    alternative: str = "two-sided",
    rng: Any = None,
) -> TestResult:
    """Do two metrics correlate differently with the same human scores?

    Parameters
    ----------
    metric_a, metric_b, human_scores : array-like, shape (n_systems, n_items)
    coefficient, correlation_level
        As in :func:`correlation_ci`.
    variant : {"permutation", "williams"}, default "permutation"
        ``"permutation"``: Deutsch et al.'s (2021) paired permutation test.  The three
        matrices are standardised (each to mean 0, sd 1 over all cells, as their
        ``nlpstats``), then under the null the two metrics are exchangeable: each
        permutation swaps the metrics' scores of every cell (``resample="both"``), of whole
        systems (``"systems"``) or of whole items (``"items"``) with probability 1/2.
        ``"williams"``: :func:`williams_test` on the three correlations at ``level``
        (Pearson only; ``n`` = systems at the system level, cells at the global level).
    resample : {"both", "systems", "items"}, default "both"
        What the permutation swaps.
    n_resamples : int, default 1000
        Permutations.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: metric A correlates more strongly than metric B.
    rng : None, int or Generator

    Returns
    -------
    TestResult
        ``estimate`` is ``r(A, human) - r(B, human)``; ``details`` holds both correlations.
        The permutation p-value is ``(1 + #{|null| >= |observed|}) / (1 + n_resamples)``
        (Phipson & Smyth 2010; nlpstats uses ``#/n_resamples``).  At the system level
        ``details["attenuation"]`` holds :func:`correlation_ci`'s generalizability analysis
        of each metric with the human scores (``"a"``, ``"b"``), ``shift`` (their
        attenuations' difference: the difference at these items minus over infinitely many,
        expected), ``corrected_estimate`` (the estimate minus it), ``half_width`` (of the
        difference's 95% interval: the 95% quantile of the permutation null's absolute
        value, or Williams' t quantile times its standard error) and ``ratio`` (``|shift|``
        over ``half_width``).

    Warns
    -----
    AttenuatedCorrelationWarning
        At the system level, permuting items or both, with at least 8 systems, when
        ``ratio`` exceeds 0.25 (the rule of :func:`correlation_ci`): the metrics' system
        means differ in reliability, and the difference is biased by a large share of its
        interval (docs/correlations.md, "Few items").  With ``variant="williams"`` by the
        same rule, the half-width Williams' own, its t quantile on ``n - 3`` degrees of
        freedom times its standard error: it takes the systems' means as its sample, and
        the item noise in them shifts the difference all the same.

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> quality = rng.normal(size=(10, 30))
    >>> human = quality + rng.normal(size=(10, 30))
    >>> good, noisy = quality + rng.normal(size=(10, 30)), quality + 3 * rng.normal(size=(10, 30))
    >>> res = mlci.compare_correlations(good, noisy, human, correlation_level="global",
    ...                                 n_resamples=999, rng=0)
    >>> res.pvalue < 0.01
    True
    """
    coefficient = check_choice("coefficient", coefficient, COEFFICIENTS)
    correlation_level = check_choice("correlation_level", correlation_level, LEVELS)
    variant = check_choice("variant", variant, ("permutation", "williams"))
    resample = check_choice("resample", resample, RESAMPLE)
    alternative = check_choice("alternative", alternative, ("two-sided", "greater", "less"))
    a, b, z = _matrices(
        ("metric_a", "metric_b", "human_scores"), (metric_a, metric_b, human_scores)
    )
    if variant == "williams":
        if coefficient != "pearson":
            raise ValueError(
                "Williams' test is derived for Pearson correlations of normal data; use "
                "coefficient='pearson', or variant='permutation' for Kendall's or Spearman's."
            )
        if correlation_level == "item":
            raise ValueError(
                "Williams' test needs one correlation over n units; the item level averages "
                "correlations. Use correlation_level='system' or 'global', or "
                "variant='permutation'."
            )

        def corr(u: np.ndarray, v: np.ndarray) -> float:
            return _value(GridCorrelationKernel(u, v, correlation_level, coefficient))

        r12, r13, r23 = corr(a, z), corr(b, z), corr(a, b)
        res = williams_test(
            r12, r13, r23, _unit_count(correlation_level, a.shape), alternative=alternative
        )
        details: dict[str, Any] = {
            "correlation_a": r12,
            "correlation_b": r13,
            "correlation_ab": r23,
        }
        if correlation_level == "system":
            from scipy import stats

            half = float(stats.t.ppf(0.975, res.df)) * res.details["standard_error"]
            details["attenuation"] = _difference_attenuation(
                a, b, z, coefficient, res.estimate, half, warn_=True
            )
        return TestResult(
            statistic=res.statistic,
            pvalue=res.pvalue,
            method="williams",
            alternative=alternative,
            df=res.df,
            estimate=res.estimate,
            details=details,
        )
    n_resamples = check_positive_int("n_resamples", n_resamples)
    gen = np.random.default_rng(check_rng_seed(rng))
    raw = (a, b, z)
    a, b, z = _standardize(a), _standardize(b), _standardize(z)
    ns, ni = a.shape

    def diff(ka: GridCorrelationKernel, kb: GridCorrelationKernel) -> float:
        return _value(ka) - _value(kb)

    observed = diff(
        GridCorrelationKernel(a, z, correlation_level, coefficient),
        GridCorrelationKernel(b, z, correlation_level, coefficient),
    )
    null = np.empty(n_resamples)
    for r in range(n_resamples):
        if resample == "both":
            swap = gen.random((ns, ni)) < 0.5
        elif resample == "systems":
            swap = np.broadcast_to(gen.random((ns, 1)) < 0.5, (ns, ni))
        else:
            swap = np.broadcast_to(gen.random((1, ni)) < 0.5, (ns, ni))
        pa, pb = np.where(swap, b, a), np.where(swap, a, b)
        null[r] = diff(
            GridCorrelationKernel(pa, z, correlation_level, coefficient),
            GridCorrelationKernel(pb, z, correlation_level, coefficient),
        )
    tol = 1e-12 * max(1.0, abs(observed))
    if alternative == "two-sided":
        count = np.sum(np.abs(null) >= abs(observed) - tol)
    elif alternative == "greater":
        count = np.sum(null >= observed - tol)
    else:
        count = np.sum(null <= observed + tol)
    # the standardisation is affine per matrix: these are the raw data's correlations
    r_a = _value(GridCorrelationKernel(a, z, correlation_level, coefficient))
    r_b = _value(GridCorrelationKernel(b, z, correlation_level, coefficient))
    details = {
        "correlation_a": r_a,
        "correlation_b": r_b,
        "n_resamples": n_resamples,
        "level": correlation_level,
        "coefficient": coefficient,
    }
    if correlation_level == "system":
        # the null is symmetric about 0 (a swap pattern and its complement negate the
        # difference): its 95% quantile of |null| is the half-width of the test-inversion
        # interval estimate +- half under a shift model
        half = float(np.quantile(np.abs(null), 0.95))
        details["attenuation"] = _difference_attenuation(
            *raw, coefficient, r_a - r_b, half, warn_=resample != "systems"
        )
    return TestResult(
        statistic=observed,
        pvalue=float((1 + count) / (1 + n_resamples)),
        method=f"permutation ({resample})",
        alternative=alternative,
        estimate=r_a - r_b,
        details=details,
    )


def _difference_attenuation(
    a: np.ndarray,
    b: np.ndarray,
    z: np.ndarray,
    coefficient: str,
    estimate: float,
    half_width: float,
    *,
    warn_: bool,
) -> dict[str, Any]:
    """The attenuation of both metrics' system-level correlations with ``z`` (module
    :mod:`.attenuation`) and the expected shift of their difference, ``shift`` (the
    difference at these items minus over infinitely many), next to ``half_width`` (of the
    difference's 95% interval); warn (``warn_``) where the shift exceeds ``WARN_RATIO``
    of it with at least ``MIN_SYSTEMS`` systems, the rule of :func:`correlation_ci`."""
    att_a, att_b = attenuation(a, z, coefficient), attenuation(b, z, coefficient)
    shift = att_a["attenuation"] - att_b["attenuation"]
    ratio = attenuation_ratio(shift, estimate, estimate - half_width, estimate + half_width)
    corrected = estimate - shift if math.isfinite(shift) else shift
    out = {
        "a": att_a,
        "b": att_b,
        "shift": shift,
        "half_width": half_width,
        "ratio": ratio,
        "corrected_estimate": corrected,
    }
    n_systems, n_items = a.shape
    if warn_ and n_systems >= MIN_SYSTEMS and ratio > WARN_RATIO:
        rel = (att_a["reliability_metric"], att_b["reliability_metric"])
        warn(
            f"The difference of the two metrics' system-level {coefficient} over {n_items} "
            f"items is shifted by the item noise in the systems' mean scores (Spearman 1904): "
            f"reliability of the means {rel[0]:.3f} (metric A), {rel[1]:.3f} (metric B) and "
            f"{att_a['reliability_human']:.3f} (human), so the two correlations are attenuated "
            f"by {att_a['attenuation']:.3f} and {att_b['attenuation']:.3f}, and over "
            f"infinitely many items the difference would be about {corrected:.3f} instead of "
            f"{estimate:.3f} (a shift of {ratio:.2g} times the half-width {half_width:.3g} of "
            "its 95% interval). Read the comparison as one at "
            f"{n_items} items, or use more items (details['attenuation'] holds the estimates).",
            AttenuatedCorrelationWarning,
        )
    return out
