"""The bootstrap engine and its public entry point, :func:`bootstrap_ci`.

Data flows one way: validated inputs -> resampling plan (weights over atoms) -> metric
kernel evaluated on chunks of replicates -> interval method -> immutable result.  The
loop over the chunks and the jackknife are :mod:`mlci.engine.replicate_loop`'s (their
names are handed on here for the drivers and tests that import them from this module).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..exceptions import FewResamplesWarning, InvalidReplicatesWarning
from ..feedback import reports_progress, warn
from ..inputs import (
    DEFAULT_MAX_MEMORY,
    ArgSpec,
    bootstrap_options,
    check_positive_int,
    check_strata_stratify,
    gather_design,
    knobs_in_config,
)
from ..inputs.resampling import Resampling, check_resampling, resampling_keywords
from ..intervals.bootstrap import (
    LINEARIZED_METHODS,
    MIN_TAIL_REPLICATES,
    acceleration,
    interval_from_replicates,
    tail_replicates,
)
from ..metrics import FunctionKernel, Kernel, get_kernel, metric_info, metric_params
from ..results import (
    METHODS_WITHOUT_REPLICATES,
    BootstrapResult,
    ConfidenceInterval,
    per_confidence_level,
)
from .ap_interval import ap_auto
from .auc_analytic import auc_auto
from .auto import (
    choose_method,
    design_diagnostics,
    edge_fallback_options,
    kernel_auto_method,
    map_without_linearization,
    single_unit_method,
    warn_near_bound,
    warn_no_spread,
    warn_outside_map,
)
from .clustered_edge import design_effect_one_options
from .custom import UserSampler, check_sampler
from .deferred import (
    DeferredReplicates,
    defer_draw,
    finish_deferred,
    replicate_summary,
    result_design,
)
from .kernel_analytic import kernel_analytic_auto
from .linearize import Linearization
from .method_labels import label_edge_fallback
from .nested import plan_for_conditions
from .plan import Plan
from .replicate_loop import (
    default_jackknife_groups,
    jackknife_groups,
    jackknife_values,
    kernel_jackknife,
    run_replicates,
    single_threaded_blas,
    unit_kernel,
)
from .resampling import ResamplingPlan, warn_few_conditions
from .rmse_robust import robust_se_auto
from .sampler import Sampler

__all__ = [
    "bootstrap_ci",
    "finish_bootstrap",
    "input_names",
    "jackknife_groups",
    "jackknife_values",
    "kernel_jackknife",
    "resolve_method",
    "run_bootstrap",
    "run_replicates",
    "run_with_options",
    "single_threaded_blas",
]

#: warn when more than this share of replicates had an undefined metric
INVALID_WARN_FRACTION = 0.01


def run_bootstrap(
    kernel: Kernel,
    plan: ResamplingPlan,
    *,
    method: str = "bca",
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    batch: int | None = None,
    n_jobs: int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
    jackknife_groups: int | None = None,
    metric_name: str | None = None,
    details: dict[str, Any] | None = None,
    sampler: Sampler | None = None,
    scheme: str | None = None,
) -> BootstrapResult:
    """Bootstrap a bound metric kernel under a resampling plan (the engine behind every API).

    Other modules (paired comparisons, score analysis) build their own kernels and call
    this; :func:`bootstrap_ci` is the user-facing wrapper.  ``sampler`` replaces
    ``plan.weights_for(kernel.keys, kernel.m)`` (e.g. a sampler bound to a reduced table,
    :meth:`ResamplingPlan.weights_for_table`, or a user's scheme,
    :class:`~mlci.engine.custom.UserSampler`); ``scheme`` then names it in the result.
    """
    reduced = sampler is not None
    counts = None if sampler is None else sampler.counts
    if counts is None:
        counts = np.bincount(kernel.keys, minlength=kernel.m).astype(float)
    estimate = kernel.evaluate(counts[None, :])[0]
    _check_estimate(estimate, metric_name or kernel.name)  # fail before any replicate
    if jackknife_groups is not None:
        jackknife_groups = check_positive_int("jackknife_groups", jackknife_groups, minimum=2)
    # the data's atom counts, shared (the linearization lets them go once used)
    lin = Linearization(kernel, plan, counts=None if reduced else counts)
    del counts
    method, linear, auto_reason = resolve_method(
        kernel, plan, method, reduced=reduced, linearization=lin
    )
    threads = not isinstance(kernel, FunctionKernel)
    # the replicates' kernel: an additive one on whole units when whole units are drawn
    # (bit for bit the same values at n_units instead of m atoms per replicate); the
    # jackknife keeps the groups the atoms would give (the same BCa acceleration)
    rk = kernel
    if sampler is None:
        if jackknife_groups is None:
            function = isinstance(kernel, FunctionKernel) or bool(
                getattr(kernel, "is_function", False)
            )
            jackknife_groups = default_jackknife_groups(kernel.m, function)
        rk = unit_kernel(kernel, plan) if method != "studentized" else kernel
        sampler = plan.weights_for(rk.keys, rk.m, atom_rank=rk.atom_rank)

    def run(evaluate: Any, smp: Sampler, shape: tuple[int, ...], per_row: float) -> np.ndarray:
        return run_replicates(
            evaluate,
            smp,
            shape,
            bytes_per_row=per_row,
            batch=batch,
            n_jobs=n_jobs,
            max_memory=max_memory,
            threads=threads,
        )

    def jackknife() -> tuple[np.ndarray, np.ndarray]:
        return kernel_jackknife(rk, sampler, jackknife_groups, max_memory=max_memory, n_jobs=n_jobs)

    se_dist = None
    bytes_per_row = 8.0 * rk.m * rk.work_factor + sampler.draw_bytes
    dist: np.ndarray | None = None
    if method == "studentized":
        dist, se_dist, _ = lin.run(run, sampler)
    elif method not in METHODS_WITHOUT_REPLICATES or not defer_draw(sampler, plan.n_samples):
        dist = run(rk.evaluate, sampler, rk.shape, bytes_per_row)
    info = dict(details or {})
    info.update(getattr(kernel, "details", None) or {})  # a kernel's own extras (plug-in ECE)
    if auto_reason is not None:
        info["method_reason"] = auto_reason
    info["diagnostics"] = design_diagnostics(
        kernel, plan, estimate, dist, linear, sampler.counts if reduced and scheme is None else None
    )
    replicates: np.ndarray | DeferredReplicates
    if dist is None:
        # the interval reads the linearized standard error only, and the draw would cost
        # more than the data's passes: the replicates are drawn when something reads
        # them (the same ones: a pure function of the seed)
        replicates = DeferredReplicates(
            lambda: run(rk.evaluate, sampler, rk.shape, bytes_per_row),
            estimate,
            info["diagnostics"],
            jackknife,
        )
    else:
        replicates = dist
    why = None if reduced else auto_reason  # auto's analytic intervals (AUC, AP, a kernel's)
    finish = robust_se_auto(
        kernel_analytic_auto(finish_bootstrap, kernel, plan, why), kernel, plan, why
    )
    return ap_auto(auc_auto(finish, kernel, plan, why), kernel, plan, why)(
        estimate,
        replicates,
        plan=plan,
        name=metric_name or kernel.name,
        method=method,
        confidence_level=confidence_level,
        alternative=alternative,
        jackknife=jackknife if method == "bca" else None,
        hint=_errors_hint(kernel),
        bounds=kernel.bounds,
        details=info,
        elements=getattr(kernel, "elements", None),
        linear=linear,
        se_dist=se_dist,
        scheme=scheme,
    )


def run_with_options(kernel: Kernel, plan: Any, opts: Any, **kwargs: Any) -> BootstrapResult:
    """:func:`run_bootstrap` with a call's checked options (``opts``, from
    :func:`~mlci.inputs.bootstrap_options`: the interval method, confidence level,
    alternative and the engine's knobs); ``kwargs`` are :func:`run_bootstrap`'s others."""
    return run_bootstrap(
        kernel,
        plan,
        method=opts.method,
        confidence_level=opts.confidence_level,
        alternative=opts.alternative,
        batch=opts.engine.batch,
        n_jobs=opts.engine.n_jobs,
        max_memory=opts.engine.max_memory,
        **kwargs,
    )


def resolve_method(
    kernel: Kernel,
    plan: Any,
    method: str,
    *,
    reduced: bool = False,
    linearization: Linearization | None = None,
) -> tuple[str, dict[str, Any] | None, str | None]:
    """The interval method to use, the linearization it needs, and why (for ``"auto"``).

    An explicit linearized method (``"studentized"``, ``"t"``, ``"wilson"``) that does not
    apply to the metric or design is an error naming what would.  ``reduced``: the
    replicates come from a reduced (out-of-core) table, which the linearization cannot
    use yet (``"auto"`` is then BCa).  ``linearization``: the
    :class:`~mlci.engine.linearize.Linearization` of ``kernel`` under ``plan``, when the
    caller will also run the replicates through it (its cells and its gradient at the
    data are then built once).
    """
    lin = Linearization(kernel, plan) if linearization is None else linearization
    reason = None
    if lin.units.n_units < 2 and (method == "auto" or method in LINEARIZED_METHODS):
        method, reason = single_unit_method(kernel, plan, method)
    own = kernel_auto_method(kernel, plan) if method == "auto" else None
    if own is not None and own[0] not in LINEARIZED_METHODS:
        # the metric's own rule needs no linearization (the debiased ECE, the Brier terms:
        # normal): as choose_method would give, without the gradient at the data
        method, reason = own
    elif method == "auto" or method in LINEARIZED_METHODS:
        unsupported = (
            "a reduced table (the linearization needs every sample's atom and condition)"
            if reduced
            else lin.unsupported
        )
        if method == "auto":
            method, reason = choose_method(kernel, plan, unsupported)
        elif unsupported is not None:
            raise ValueError(
                f"method={method!r} is unavailable for this metric and design: {unsupported}. "
                "Use method='bca' (or 'auto', which picks a method that applies)."
            )
        if method in ("wilson", "wilson_modified") and (
            kernel.proportion is None or kernel.shape != ()
        ):
            raise ValueError(
                f"method={method!r} applies to a single proportion (accuracy, error_rate, "
                f"recall, precision, specificity...), not to {kernel.name!r}; use "
                "'studentized', 't', 'bca' or 'auto'."
            )
    if method not in LINEARIZED_METHODS:
        return method, None, reason
    est = lin.estimate()
    linear = {
        "standard_error": est.standard_error
        if np.ndim(est.standard_error)
        else float(est.standard_error),
        "df": est.df,
        "n_units": est.n_units,
        "iid": plan.unit_of_sample is None,
        "design_effect": est.design_effect,
        "effective_n": est.effective_n,
        "standard_error_cr1": None
        if est.standard_error_cr1 is None
        else est.standard_error_cr1
        if np.ndim(est.standard_error_cr1)
        else float(est.standard_error_cr1),
    }
    linear.update(edge_fallback_options(kernel, plan))
    if method == "korn_graubard":  # a zero standard error: the design effect taken as 1
        linear.update(design_effect_one_options(kernel, plan, linear))
    return method, linear, reason


def finish_bootstrap(
    estimate: Any,
    dist: np.ndarray | DeferredReplicates,
    *,
    plan: Plan,
    name: str,
    method: str,
    confidence_level: float,
    alternative: str,
    jackknife: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None,
    details: dict[str, Any] | None = None,
    scheme: str | None = None,
    hint: str = "",
    bounds: tuple[float, float] | None = None,
    elements: Any = None,
    linear: dict[str, Any] | None = None,
    se_dist: np.ndarray | None = None,
) -> BootstrapResult:
    """The interval and the result object from an estimate and its bootstrap distribution.

    Shared by every bootstrap in mlci: counts the replicates on which the metric was
    undefined (NaN), refuses a distribution with no valid replicate, warns above
    :data:`INVALID_WARN_FRACTION`, runs ``jackknife()`` (values and multiplicities) for
    BCa's acceleration, and builds the :class:`~mlci.BootstrapResult`.

    Parameters
    ----------
    estimate : float or ndarray, shape S
    dist : ndarray, shape (B, *S), or DeferredReplicates
        The replicates, or (for a method in
        :data:`~mlci.results.METHODS_WITHOUT_REPLICATES`) what draws them when the
        result is asked for them (:mod:`mlci.engine.deferred`).
    plan : Plan
        Anything with ``n_resamples``, ``scheme``, ``n_samples``, ``n_conditions`` and
        ``n_strata`` (see :class:`~mlci.engine.plan.Plan`: a resampling plan, or a
        :class:`~mlci.engine.plan.PlanSummary`).
    name : str
        The metric's name (used in messages and in the result).
    method, confidence_level, alternative
        As in :func:`bootstrap_ci` (validated by the caller).
    jackknife : callable, optional
        Required for ``method="bca"``.
    details : dict, optional
        Extras for the result's ``details``.
    scheme : str, optional
        Overrides ``plan.scheme`` in the result.
    hint : str
        Appended to the messages about undefined replicates.
    bounds : (float, float), optional
        The range of the metric (see :func:`mlci.intervals.bootstrap.bootstrap_interval`):
        normal and basic intervals are clipped into it and one-sided intervals end at it.
    elements : sequence, optional
        Names of the elements of a vector-valued metric (e.g. the classes).
    linear : dict, optional
        The linearized standard error of the estimate (see :func:`resolve_method`),
        needed by the ``"studentized"``, ``"t"`` and ``"wilson"`` methods.
    se_dist : ndarray, shape (B, *S), optional
        Every replicate's linearized standard error (``"studentized"``).

    Returns
    -------
    BootstrapResult
    """
    estimate = np.asarray(estimate, dtype=float)
    _check_estimate(estimate, name)
    if method == "bca" and jackknife is None:
        raise ValueError("BCa needs a jackknife; pass `jackknife=` or another method.")
    if isinstance(dist, DeferredReplicates):
        return finish_deferred(
            estimate,
            dist,
            plan=plan,
            name=name,
            method=method,
            confidence_level=confidence_level,
            alternative=alternative,
            details=details,
            scheme=scheme,
            bounds=bounds,
            elements=elements,
            linear=linear,
            degenerate_hint=_degenerate_hint(name),
        )
    n_resamples = dist.shape[0]
    invalid_rows = np.isnan(dist.reshape(n_resamples, -1)).any(axis=1)
    n_invalid = int(invalid_rows.sum())
    if n_invalid == n_resamples:
        raise ValueError(
            f"The metric {name!r} was undefined on every one of the {n_invalid} replicates "
            f"(e.g. resamples with a single class); no interval can be computed. {hint}".rstrip()
        )
    # an analytic interval the engine named (MOVER, "no error") reads no replicate
    named = method == "studentized" and (linear or {}).get("analytic_method") is not None
    if n_invalid > INVALID_WARN_FRACTION * n_resamples and not named:
        warn(
            f"The metric {name!r} was undefined on {n_invalid} of {n_resamples} replicates "
            "(e.g. a resample with a single class); they are excluded, which biases the "
            "interval. Consider stratified resampling (`strata=y_true`) or more data. "
            f"{hint}".rstrip(),
            InvalidReplicatesWarning,
        )
    info: dict[str, Any] = dict(details or {})
    if linear is None:
        if plan.n_conditions is not None:
            kish = info.get("diagnostics", {}).get("effective_conditions")
            warn_few_conditions(plan.n_conditions, kish)
        if "diagnostics" in info and map_without_linearization(name, info.get("method_reason")):
            diag = {k: v for k, v in info["diagnostics"].items() if k != "n_conditions"}
            info["warning"] = warn_outside_map(diag, name, method)
    elif "diagnostics" in info:
        warning = warn_outside_map(info["diagnostics"], name, method)
        if warning is not None:
            info["warning"] = warning
    if linear is not None:
        info["linearized"] = linear
    accel = None
    if method == "bca" and jackknife is not None:
        jack, mult = jackknife()
        accel = acceleration(jack, mult)
        info["jackknife_size"] = len(mult)
    low, high, extra = interval_from_replicates(
        estimate,
        dist,
        method=method,
        confidence_level=confidence_level,
        alternative=alternative,
        accel=accel,
        bounds=bounds,
        linear=linear,
        se_dist=se_dist,
        degenerate_hint=_degenerate_hint(name),
    )
    info.update(extra)
    used = extra.get("edge_fallback_method", method) if method == "studentized" else method
    tail = tail_replicates(
        np.sum(~np.isnan(dist), axis=0), used, confidence_level, alternative, info
    )
    if tail < MIN_TAIL_REPLICATES:
        warn(
            f"{n_resamples} replicates are too few for a {confidence_level:.4g} "
            f"{used} interval of {name!r}: about {tail:.2g} replicate(s) lie beyond a "
            f"bound (fewer than {MIN_TAIL_REPLICATES:g}), so the tail probability the bound "
            "stands for has a Monte Carlo error of more than 45% of itself. Use "
            f"n_resamples >= {_advised(confidence_level)}.",
            FewResamplesWarning,
        )
    if extra.get("edge_dominated"):
        info["warning"] = warn_near_bound(extra["edge_dominated"], name, kept=True)
    elif extra.get("edge_fallback") and linear is not None and linear.get("edge_warn"):
        info["warning"] = warn_near_bound(extra["edge_fallback"], name, kept=False)
    elif extra.get("edge_fallback_method") in ("t", "logit_t") and not np.all(
        np.isfinite(bounds if bounds is not None else np.inf)
    ):
        # a metric with an unbounded end (t, or logit t on the log scale): no spread
        info["warning"] = warn_no_spread(extra["edge_fallback"], name)
    # every element near the edge: the result says the interval it holds
    method, analytic = label_edge_fallback(info, extra, method, estimate, linear, bounds)
    summary = replicate_summary(estimate, dist)
    conv = float if estimate.ndim == 0 else np.asarray
    return BootstrapResult(
        estimate=conv(estimate),
        confidence_interval=ConfidenceInterval(conv(low), conv(high)),
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        standard_error=summary["standard_error"],
        metric=name,
        details=info,
        bias=summary["bias"],
        bootstrap_distribution=dist,
        replicate_standard_errors=se_dist,
        n_invalid=n_invalid,
        analytic=analytic,
        **result_design(plan, scheme, bounds, elements),
    )


#: metrics that are one proportion k/n of the samples: an exact binomial interval exists
PROPORTIONS = ("accuracy", "error_rate")


def _advised(confidence_level: float) -> int:
    """10 replicates expected beyond each bound of a two-sided interval, at least 1,000."""
    return int(max(1000, np.ceil(10 / ((1 - confidence_level) / 2) / 100) * 100))


def _degenerate_hint(name: str) -> str:
    if name in PROPORTIONS:
        return (
            f" For {name}, an exact binomial interval is the honest report: "
            "mlci.proportion_ci(k, n, method='clopper_pearson')."
        )
    return ""


def _check_estimate(estimate: np.ndarray, name: str) -> None:
    if np.any(np.isnan(estimate)):
        raise ValueError(
            f"The metric {name!r} is undefined (NaN) on the data as given, e.g. a zero "
            "denominator (no predicted positives for precision, a single class for roc_auc) "
            "or a constant target; no interval can be computed."
        )


def _errors_hint(kernel: Kernel) -> str:
    errs = getattr(kernel, "errors", None)
    return f"First errors raised by the metric: {'; '.join(errs)}." if errs else ""


@resampling_keywords
@knobs_in_config
@reports_progress
@per_confidence_level
def bootstrap_ci(
    *arrays: Any,
    metric: str | Callable[..., Any],
    data: Any = None,
    sample_weight: Any = None,
    conditions: Any = None,
    strata: Any = None,
    resampling: Resampling | None = None,
    dropna: bool = False,
    n_resamples: int = 1000,
    confidence_level: float | list[float] = 0.95,
    method: str = "auto",
    alternative: str = "two-sided",
    rng: Any = None,
    pos_label: Any = None,
    average: Any = "default",
    metric_kwargs: dict[str, Any] | None = None,
) -> BootstrapResult | tuple[BootstrapResult, ...]:
    """Bootstrap confidence interval for any metric, with iid, condition or stratified resampling.

    Parameters
    ----------
    *arrays : array-like, each of shape (n_samples,) (scores of a multiclass ``log_loss``
        or ``brier``: (n_samples, n_classes)); column names with ``data``
        The per-sample arrays the metric takes, in its order.  Built-in metrics take
        ``(y_true, y_pred)`` (decisions, or regression predictions), ``(y_true, y_score)``
        (``roc_auc``, ``average_precision``, ``log_loss``, ``brier``), ``(values,)``
        (``mean``) or ``(weights, values)`` (``weighted_mean``).  A callable metric is called
        as ``metric(*data)`` on each resample.
    metric : str or callable
        A built-in name (see :func:`mlci.metrics.list_metrics`) or a function returning a
        number or a fixed-shape array.  A function that accepts ``sample_weight`` is given
        the replicate's counts instead of repeated samples.
    data : DataFrame or pyarrow Table, optional
        A pandas or polars DataFrame (or a pyarrow Table): the arrays, ``conditions`` and
        ``strata`` may then be its column names.
    sample_weight : array-like, shape (n_samples,), optional
        Per-sample weights of a built-in metric (as scikit-learn's ``sample_weight``), or
        of a metric function that accepts ``sample_weight``: non-negative, not all zero.
        Each replicate's counts are multiplied by them.
    conditions : array-like, shape (n_samples,), optional
        Condition of every sample (speaker, session, document): samples that share a
        condition are resampled together.  Use it whenever samples are not independent;
        an iid bootstrap on such data gives intervals that are too narrow.  Nested
        conditions are a list of such arrays, top level first (``[speaker, session]``):
        the top level is resampled and, with ``resampling=mlci.Resampling(two_stage=True)``,
        every level below it
        inside each drawn copy (see :func:`mlci.engine.nested.make_nested_plan`).
    strata : array-like, shape (n_samples,), optional
        Resample within each stratum, keeping its size (e.g. ``strata=y_true`` keeps the
        class counts fixed).
    resampling : mlci.Resampling, optional
        How the replicates are drawn beyond ``conditions`` and ``strata`` (see
        :class:`mlci.Resampling`): ``stratify`` (shorthand for ``strata=`` the first
        array, ``y_true``; default off), ``two_stage``, ``weights``, ``sampler`` (a
        custom scheme; the result's ``scheme`` is ``"custom"``), ``jackknife_groups``.
        Default: the classical bootstrap of the design.
    dropna : bool, default False
        A missing value (None, NaN, ``pd.NA``, NaT, null) in any per-sample argument is an
        error naming it; ``True`` drops those samples instead, and
        ``result.details["n_dropped"]`` says how many.
    n_resamples : int, default 1000
        Number of bootstrap replicates.
    confidence_level : float or sequence of float, default 0.95
        Several levels (``[0.9, 0.95, 0.99]``) return a tuple of results, one per level,
        from the same replicates (as :meth:`BootstrapResult.interval`).
    method : {"bca", "percentile", "basic", "normal", "bc"}, default "bca"
        BCa uses a jackknife (delete-one-condition with conditions; grouped for large n).
    alternative : {"two-sided", "less", "greater"}
        One-sided intervals: ``"less"`` bounds the metric from above, ``"greater"`` from below.
    rng : None, int, numpy.random.Generator or SeedSequence
        A seed gives the same result on every machine, chunk size and number of threads.
    pos_label, average : optional
        Options of the built-in classification metrics, as in scikit-learn.
    metric_kwargs : dict, optional
        Further options: ``beta`` (fbeta), ``weights`` (cohen_kappa), or keyword
        arguments for a callable metric.

    Returns
    -------
    BootstrapResult
        A tuple of them, one per level, when ``confidence_level`` is a sequence.

    Notes
    -----
    The engine knobs that never change a result (``batch``, ``n_jobs``, ``max_memory``,
    ``progress``) are set with :func:`mlci.config_context`, not here.

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> y_true = rng.integers(0, 2, 500)
    >>> y_pred = np.where(rng.random(500) < 0.85, y_true, 1 - y_true)
    >>> res = mlci.bootstrap_ci(y_true, y_pred, metric="accuracy", rng=1)
    >>> round(res.estimate, 3)
    0.862
    >>> low, high = res.confidence_interval
    >>> bool(low < res.estimate < high)
    True

    Samples from the same speaker are not independent: resample speakers.

    >>> speaker = rng.integers(0, 25, 500)
    >>> res = mlci.bootstrap_ci(y_true, y_pred, metric="accuracy", conditions=speaker, rng=1)
    >>> res.n_conditions, res.scheme
    (25, 'conditions')

    A custom scheme: half-sampling (each sample in or out with probability 1/2, counted
    twice when in).

    >>> def half(rng, b):
    ...     return 2.0 * (rng.random((b, 500)) < 0.5)
    >>> res = mlci.bootstrap_ci(y_true, y_pred, metric="accuracy",
    ...                         resampling=mlci.Resampling(sampler=half), rng=1)
    >>> res.scheme
    'custom'
    """
    rs = check_resampling(
        resampling,
        ("stratify", "two_stage", "weights", "sampler", "jackknife_groups"),
        "mlci.bootstrap_ci",
        stratify=False,
    )
    stratify, two_stage, weights = rs.stratify, rs.two_stage, rs.weights
    sampler, jackknife_groups = rs.sampler, rs.jackknife_groups
    if not arrays:
        raise ValueError(
            "No data given: pass the per-sample arrays positionally, e.g. "
            "bootstrap_ci(y_true, y_pred, metric='accuracy')."
        )
    opts = bootstrap_options(
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
    )
    # the Resampling's fields are checked (and their combinations) in its constructor
    check_sampler(sampler, conditions=conditions, strata=strata)
    if sampler is not None and opts.method in LINEARIZED_METHODS:
        raise ValueError(
            f"method={opts.method!r} linearizes the metric under the built-in designs; with "
            "a custom `sampler` use 'bca', 'percentile', 'basic', 'bc' or 'normal'."
        )
    g, kernel, plan = _bound(
        arrays,
        metric,
        params=metric_params(metric, pos_label, average, metric_kwargs),
        data=data,
        sample_weight=sample_weight,
        conditions=conditions,
        strata=strata,
        stratify=stratify,
        dropna=dropna,
        two_stage=two_stage,
        weights=weights,
        n_resamples=opts.n_resamples,
        seed=opts.seed,
    )
    custom = None
    if sampler is not None:
        custom = UserSampler(plan.weights_for(kernel.keys, kernel.m), sampler, kernel.keys)
    return run_with_options(
        kernel,
        plan,
        opts,
        jackknife_groups=jackknife_groups,
        metric_name=metric if isinstance(metric, str) else None,
        details={"n_dropped": g.n_dropped},
        sampler=custom,
        scheme=None if custom is None else "custom",
    )


def _bound(
    arrays: tuple[Any, ...],
    metric: Any,
    *,
    params: Any,
    data: Any,
    sample_weight: Any,
    conditions: Any,
    strata: Any,
    stratify: bool | None,
    dropna: bool,
    two_stage: bool,
    weights: str,
    n_resamples: int,
    seed: Any,
) -> tuple[Any, Kernel, ResamplingPlan]:
    """The gated inputs, the metric's kernel and the resampling plan of a
    :func:`bootstrap_ci` call (shared with :func:`auto_method`)."""
    names = input_names(metric, len(arrays))
    check_strata_stratify(strata, stratify)
    if stratify:
        strata = arrays[0]
    specs = {nm: ArgSpec("any", (1, 2, 3), required=True) for nm in names}
    specs["sample_weight"] = ArgSpec("numbers")
    g, conditions, strata = gather_design(
        specs,
        {**dict(zip(names, arrays, strict=True)), "sample_weight": sample_weight},
        conditions=conditions,
        strata=strata,
        dropna=dropna,
        data=data,
    )
    kernel = get_kernel(
        metric,
        [g.arrays[nm] for nm in names],
        params,
        names=names,
        sample_weight=g.arrays["sample_weight"],
    )
    plan = plan_for_conditions(
        g.n_samples,
        conditions=conditions,
        strata=strata,
        two_stage=two_stage,
        weights=weights,
        n_resamples=n_resamples,
        rng=seed,
    )
    return g, kernel, plan


def auto_method(
    *arrays: Any,
    metric: str,
    conditions: Any = None,
    strata: Any = None,
    pos_label: Any = None,
    average: Any = "default",
    metric_kwargs: dict[str, Any] | None = None,
) -> tuple[str, str]:
    """The interval method that :func:`bootstrap_ci` with ``method="auto"`` uses for these
    arrays and design, and its reason (``details["method_reason"]`` before any
    near-the-edge fallback), without drawing a replicate.

    For a caller that has a result of the same replicates from elsewhere (the report takes
    each system's interval from the paired comparison) and must say why its method was
    chosen, as :func:`bootstrap_ci` would.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.arange(40) % 2
    >>> auto_method(y, (np.arange(40) % 3 > 0).astype(int), metric="accuracy")[0]
    'wilson_modified'
    """
    if not isinstance(metric, str):
        raise TypeError(f"`metric` must be a metric name (str); got {type(metric).__name__}.")
    _, kernel, plan = _bound(
        arrays,
        metric,
        params=metric_params(metric, pos_label, average, metric_kwargs),
        data=None,
        sample_weight=None,
        conditions=conditions,
        strata=strata,
        stratify=False,
        dropna=False,
        two_stage=False,
        weights="multinomial",
        n_resamples=1,
        seed=None,
    )
    method, _, reason = resolve_method(kernel, plan, "auto")
    return method, reason or ""


def input_names(metric: Any, n_arrays: int) -> list[str]:
    """How the positional arrays of a metric are named in messages: the metric's inputs
    (``y_true``, ``y_pred``...) for a built-in name, ``data[i]`` for a function."""
    if isinstance(metric, str):
        info = metric_info(metric)
        if n_arrays != len(info.inputs):
            raise ValueError(
                f"Metric {info.name!r} takes {len(info.inputs)} per-sample array(s) "
                f"({', '.join(info.inputs)}); got {n_arrays}."
            )
        return list(info.inputs)
    if not callable(metric):
        raise TypeError(
            f"`metric` must be a metric name (str) or a callable; got {type(metric).__name__}."
        )
    return [f"data[{i}]" for i in range(n_arrays)]
