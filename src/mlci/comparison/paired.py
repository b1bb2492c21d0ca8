"""Comparing systems on one test set: paired bootstrap and multiple comparisons.

Every system is scored on the *same* bootstrap replicates, so the interval of a difference
reflects how correlated the systems are (two systems that make the same mistakes have a much
narrower difference interval than their separate intervals suggest). The engine's atoms make
this cheap: each system's metric kernel has its own atoms (e.g. the (label, prediction) cells of
a confusion matrix); the *joint* atoms are the distinct combinations of every system's atom, one
replicate draw over the joint atoms serves every system, and each system's counts are a sum of
joint counts. For 2-class accuracy, ten systems have at most 2^11 joint atoms.

The replicates come from the engine's replicate loop and every interval (each system's,
each difference's) from its finish step (:func:`mlci.engine.bootstrap.finish_bootstrap`:
invalid replicates, BCa's jackknife, the interval, bounded to the metric's range).

p-values for "no difference" come from the bootstrap distribution of the difference
shifted to the null (Efron & Tibshirani 1993, sec. 16.4; Hall & Wilson 1991): two-sided
``p = (1 + #{|d* - d| >= |d|}) / (1 + B)``.  The paired permutation test is
:func:`mlci.permutation_test` (:mod:`mlci.comparison.permutation`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from ..classical.corrections import CORRECTION_METHODS, adjust_pvalues
from ..engine.ap_interval import with_ap_logit
from ..engine.auc_analytic import kernel_auc_score, with_auc_score
from ..engine.auto import (
    edge_fallback_options,
)
from ..engine.bootstrap import finish_bootstrap, resolve_method
from ..engine.heavy_tail import heavy_tail_systems
from ..engine.kernel_analytic import with_kernel_analytic
from ..engine.linearize import Linearization
from ..engine.nested import plan_for_conditions
from ..engine.paired_rules import (
    SKEWED_PAIR_METHOD,
    few_discordant,
    warn_few_discordant,
    warn_no_spread_pairs,
)
from ..engine.replicate_loop import kernel_jackknife, run_replicates, single_threaded_blas
from ..engine.rmse_robust import with_robust_se
from ..engine.skewness import linearized_shape
from ..exceptions import (
    DegenerateIntervalWarning,
    InvalidReplicatesWarning,
    IrregularEstimandWarning,
    NearBoundWarning,
)
from ..feedback import reports_progress, warn
from ..inputs import (
    bootstrap_options,
    check_choice,
    check_positive_int,
    fill_doc,
    knobs_in_config,
)
from ..inputs.resampling import Resampling, check_resampling, resampling_keywords
from ..intervals.bootstrap import LINEARIZED_METHODS
from ..metrics import METRICS, SCORE_STATISTICS, get_kernel, metric_params
from ..metrics import higher_is_better as metric_direction
from ..results import BootstrapResult, ConfidenceInterval, per_confidence_level
from .common import (
    ContrastKernel,
    JointKernel,
    gather_paired,
    kernel_data,
    metric_name,
    run_joint,
    run_unit_values,
)
from .margins import MarginTest, check_margin, margin_tests
from .paired_auc_edge import mover_intervals, mover_maxt
from .paired_auto import pair_switches, paired_auto_rule, system_methods
from .paired_pvalues import max_t, pair_pvalues
from .paired_regression import (
    SYMMETRIC_T_METHOD,
    symmetric_t_intervals,
    symmetric_t_pairs,
    symmetric_t_pvalues,
    unflagged_few_discordant,
)
from .paired_results import ComparisonResult, PairDifference, _ranking
from .system_method import system_standard_errors
from .system_warnings import warn_systems_outside_map
from .tango import tango_interval

__all__ = ["compare"]

#: metrics for which a lower value is better (the ranking needs the direction), as
#: MetricInfo.higher_is_better says (registered metrics and score statistics, no aliases)
LOWER_IS_BETTER = frozenset(
    name for name in (*METRICS, *SCORE_STATISTICS) if metric_direction(name) is False
)


# --------------------------------------------------------------------------- validation
def check_systems(systems: Any, *, minimum: int = 2) -> tuple[list[str], list[Any]]:
    """The names and outputs of ``systems`` (a dict of at least ``minimum`` entries)."""
    if not isinstance(systems, Mapping):
        raise TypeError(
            "`systems` must be a dict mapping each system's name to its per-sample outputs, "
            f"e.g. {{'A': y_pred_a, 'B': y_pred_b}}; got {type(systems).__name__}."
        )
    if len(systems) < minimum:
        raise ValueError(f"`systems` must hold at least {minimum} systems; got {len(systems)}.")
    names = [str(k) for k in systems]
    if len(set(names)) != len(names):
        raise ValueError("`systems` has names that are equal once converted to str.")
    return names, list(systems.values())


def _higher_is_better(metric: Any, higher_is_better: bool | None) -> bool:
    if higher_is_better is not None:
        if not isinstance(higher_is_better, bool | np.bool_):
            raise TypeError(
                f"`higher_is_better` must be True, False or None; got {higher_is_better!r}."
            )
        return bool(higher_is_better)
    if isinstance(metric, str):
        return metric.lower().replace("-", "_") not in LOWER_IS_BETTER
    return True


def _finish_each(
    jobs: Sequence[tuple[str, Any, np.ndarray, dict[str, Any]]],
    *,
    kind: str,
    common: dict[str, Any],
    hint: str = "",
    quiet: set[str] | frozenset[str] = frozenset(),
    replaced: set[str] | frozenset[str] = frozenset(),
) -> tuple[list[BootstrapResult], set[str]]:
    """``finish_bootstrap`` for every ``(label, estimate, dist, arguments)`` job, its
    warnings said once.

    The finish step's warnings (undefined replicates) are grouped by message and each is
    said once, naming the systems (or pairs) it concerns; no-spread warnings are dropped
    (the caller lists those in details), as are the undefined-replicates warnings of the
    ``quiet`` labels, and the near-bound warnings of the ``replaced`` labels (whose
    interval an analytic one replaces).  Returns the results and the labels that were
    warned about.
    """
    results = []
    said: dict[tuple[type, str], list[str]] = {}
    for label, estimate, dist, kw in jobs:
        tag = f"{kind}: {label}."
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results.append(
                finish_bootstrap(estimate, dist, hint=f"{tag} {hint}".rstrip(), **common, **kw)
            )
        for w in caught:
            if issubclass(w.category, DegenerateIntervalWarning):
                continue
            if issubclass(w.category, InvalidReplicatesWarning) and label in quiet:
                continue
            if issubclass(w.category, NearBoundWarning) and label in replaced:
                continue
            text = str(w.message).replace(tag, "\x00")
            said.setdefault((w.category, text), []).append(label)
    warned = set()
    for (category, text), labels in said.items():
        plural = "s" if len(labels) > 1 else ""
        warn(
            text.replace("\x00", f"{kind}{plural}: {', '.join(labels)}."),
            category,
        )
        warned.update(labels)
    return results, warned


# --------------------------------------------------------------------------- compare
@resampling_keywords
@knobs_in_config
@reports_progress
@per_confidence_level
@fill_doc
def compare(
    y_true: Any,
    systems: Mapping[str, Any],
    *,
    metric: str | Callable[..., Any],
    conditions: Any = None,
    strata: Any = None,
    resampling: Resampling | None = None,
    reference: str | None = None,
    n_resamples: int = 1000,
    confidence_level: float | list[float] = 0.95,
    method: str = "auto",
    alternative: str = "two-sided",
    correction: str = "holm",
    rng: Any = None,
    pos_label: Any = None,
    average: Any = "default",
    metric_kwargs: dict[str, Any] | None = None,
    higher_is_better: bool | None = None,
    dropna: bool = False,
    sample_weight: Any = None,
    margin: float | None = None,
) -> ComparisonResult:
    """Compare two or more systems on the same test set with a paired bootstrap.

    Every system is scored on the *same* replicates, so each difference's interval
    accounts for the correlation between the systems.

    Parameters
    ----------
    y_true : array-like, shape (n_samples,), or None
        Labels (or targets).  ``None`` for metrics that take one per-sample array, e.g.
        ``metric="mean"`` on per-sample losses.  For ``metric="weighted_mean"`` the
        first array is the per-sample **weights** (e.g. word counts for a WER), passed
        as ``y_true``, and each system's per-sample values go in ``systems``.
    systems : dict of str -> array-like, shape (n_samples,) (or (n_samples, n_classes))
        Each system's decisions, scores or per-sample losses, aligned with ``y_true``.
    metric : str or callable
        Any built-in metric (:func:`mlci.list_metrics`) or a function
        ``metric(y_true, y_pred)`` (with ``sample_weight`` if it accepts it).
    conditions, strata
        Resampling options, as in :func:`mlci.bootstrap_ci`; ``conditions`` may be a list
        of nested levels (top first, e.g. ``[speaker, session]``).
    resampling : mlci.Resampling, optional
        How the replicates are drawn beyond ``conditions`` and ``strata``: ``two_stage``,
        ``weights``, ``jackknife_groups`` (see :class:`mlci.Resampling`; default: the classical
        bootstrap).
    reference : str, optional
        Compare every system with this one only (``system - reference``); by default
        every pair ``(a, b)``, ``a - b``, with ``a`` before ``b`` in ``systems``.
    n_resamples : int, default 1000
    confidence_level : float, default 0.95
        A list of levels returns a tuple of results, one per level (each run with the
        same seed, so it equals the single-level call).
    method : {"bca", "percentile", "basic", "normal", "bc"}
        Interval method for each system and each difference (BCa's acceleration comes
        from the jackknife of the difference itself).
    alternative : {"two-sided", "less", "greater"}
        For the intervals and p-values of the differences (the systems' own intervals
        are two-sided).  One-sided intervals end at the edge of the difference's range
        (``[-1, 1]`` for a proportion).
    correction : str, default "holm"
        Multiple-comparison adjustment: ``"holm"``, ``"bonferroni"``, ``"hochberg"``,
        ``"bh"``, ``"by"``, ``"none"`` (see :func:`mlci.adjust_pvalues`) or ``"maxt"``
        (single-step max-|t|, Westfall & Young 1993, the p-values matching the
        simultaneous intervals).
    rng : None, int, Generator or SeedSequence
    pos_label, average, metric_kwargs
        Metric options, as in :func:`mlci.bootstrap_ci`.
    higher_is_better : bool, optional
        Direction of the metric for the ranking; inferred for built-in names (error
        rates and losses are lower-is-better), True for callables.
    dropna : bool, default False
        Drop the samples with a missing value in any argument (their number is in
        ``details["n_dropped"]``) instead of refusing them.
    sample_weight : array-like, shape (n_samples,), optional
        Per-sample weights of the metric (as scikit-learn's ``sample_weight``), the same
        for every system: each replicate's counts are multiplied by them.
    margin : float, optional
        A margin ``delta > 0`` on the metric's scale: every difference also gets a
        :class:`~mlci.MarginTest` (``PairDifference.margin_test``) with the
        non-inferiority p-value (``H0: a worse than b by delta or more``), the
        equivalence (TOST, ``H0: |a - b| >= delta``) p-value, both adjusted by
        ``correction``, the decisions at ``1 - confidence_level`` and the two-sided
        ``1 - 2 alpha`` interval (:mod:`mlci.comparison.margins`; docs/decisions.md).

    Returns
    -------
    ComparisonResult

    Notes
    -----
    p-value of a difference ``d``: the bootstrap distribution of ``d*`` is shifted to
    the null (``d* - d``) and ``p = (1 + #{|d* - d| >= |d|}) / (1 + B)`` (two-sided;
    one-sided counts one tail).  It agrees with the paired permutation test
    (:func:`mlci.permutation_test`) and is close to uniform under the null.

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> a = np.where(rng.random(400) < 0.85, y, 1 - y)
    >>> b = np.where(rng.random(400) < 0.75, y, 1 - y)
    >>> res = mlci.compare(y, {"A": a, "B": b}, metric="accuracy", rng=0)
    >>> d = res.difference("A", "B")
    >>> round(d.estimate, 3), bool(d.confidence_interval.low > 0), d.pvalue < 0.01
    (0.117, True, True)
    """
    rs = check_resampling(resampling, ("two_stage", "weights", "jackknife_groups"), "mlci.compare")
    two_stage, weights, jackknife_groups = rs.two_stage, rs.weights, rs.jackknife_groups
    names, outputs = check_systems(systems)
    opts = bootstrap_options(
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
    )
    if reference is not None and str(reference) not in names:
        raise ValueError(
            f"`reference`={reference!r} is not among the systems {names}; pass one of their "
            "names, or None to compare every pair."
        )
    check_choice("correction", correction, (*CORRECTION_METHODS, "maxt"))
    check_choice("weights", weights, ("multinomial", "poisson"))
    if jackknife_groups is not None:
        jackknife_groups = check_positive_int("jackknife_groups", jackknife_groups, minimum=2)
    hib = _higher_is_better(metric, higher_is_better)
    params = metric_params(metric, pos_label, average, metric_kwargs)
    labels = [f"systems[{nm!r}]" for nm in names]
    data = gather_paired(
        y_true,
        dict(zip(labels, outputs, strict=True)),
        metric=metric,
        conditions=conditions,
        strata=strata,
        dropna=dropna,
        sample_weight=sample_weight,
    )
    kernels = [
        get_kernel(metric, kernel_data(data.y_true, o), params, sample_weight=data.sample_weight)
        for o in data.outputs.values()
    ]
    if any(k.shape != () for k in kernels):
        raise ValueError(
            "`compare` needs a scalar metric; this one returns an array per resample "
            "(e.g. average=None). Compare one class at a time, or average."
        )
    plan = plan_for_conditions(
        data.n_samples,
        conditions=data.conditions,
        strata=data.strata,
        two_stage=two_stage,
        weights=weights,
        n_resamples=opts.n_resamples,
        rng=opts.seed,
    )
    mname = metric_name(metric)
    jk = JointKernel(kernels, mname)
    # (the sampler's counts: the joint atoms' numbers of samples)
    estimates = jk.evaluate(np.bincount(jk.keys, minlength=jk.m).astype(float)[None, :])[0]
    samplers: list[Any] = []

    def sampler() -> Any:
        """The plan's sampler over the joint atoms, made when first needed (the
        replicates of whole conditions draw the conditions' counts without it)."""
        if not samplers:
            samplers.append(plan.weights_for(jk.keys, jk.m, atom_rank=jk.atom_rank))
        return samplers[0]

    undefined = [nm for nm, e in zip(names, estimates, strict=True) if np.isnan(e)]
    if undefined:
        raise ValueError(
            f"The metric {mname!r} is undefined (NaN) on the data as given for "
            f"system(s) {undefined}; no interval can be computed."
        )
    # pairs: index arrays, difference a - b
    if reference is None:
        pairs = list(combinations(range(len(names)), 2))
    else:
        r = names.index(str(reference))
        pairs = [(i, r) for i in range(len(names)) if i != r]
    ia = np.array([p[0] for p in pairs])
    ib = np.array([p[1] for p in pairs])
    d_hat = estimates[ia] - estimates[ib]
    if opts.method in ("wilson", "wilson_modified"):
        raise ValueError(
            f"`method`={opts.method!r} is not available in `compare`: a difference of "
            "proportions is not a proportion. Use 'auto', 'studentized', 't' or 'bca'."
        )
    contrast = ContrastKernel(jk, ia, ib)
    # the gradient on the data serves the method's choice, the standard errors and the
    # differences' shape (computed once; let go before the replicates)
    lin = Linearization(contrast, plan, keep_data=True)
    method, linear, auto_reason = resolve_method(contrast, plan, opts.method, linearization=lin)
    n_sys = len(names)
    d_skew = d_kurt = np.full(len(pairs), np.nan)
    if linear is not None:
        d_skew, d_kurt = (x[n_sys:] for x in linearized_shape(lin))
    lin.release()
    sys_methods, sys_linear, sys_why, diff_method, auto_reason = system_methods(
        kernels, plan, opts.method, method, linear, auto_reason
    )
    # a kernel family's own paired rule, read off its coverage study (the debiased ECE:
    # each system by its normal interval, each difference by the percentile interval,
    # with a warning; docs/calibration.md, "Paired ECE differences")
    paired_rule = paired_auto_rule(kernels, plan) if opts.method == "auto" else None
    if paired_rule is not None:
        sys_methods, diff_method, auto_reason = paired_rule
        linear = None
        if "bca" not in (*sys_methods, diff_method):
            method = diff_method  # no BCa: no jackknife
        for text in sorted({getattr(k, "paired_warning", "") for k in kernels} - {""}):
            warn(text, IrregularEstimandWarning)
    # "auto" for a paired RMSE difference: the symmetric bootstrap-t (paired_regression.py),
    # which reads the differences' replicate standard errors
    sym_pairs = symmetric_t_pairs(
        requested=opts.method,
        diff_method=diff_method,
        linear=linear,
        conditions=data.conditions,
        metric=mname,
        alternative=opts.alternative,
        n_pairs=len(pairs),
    )
    sym_se = "studentized" if sym_pairs.any() else diff_method
    # (the systems' replicate standard errors, which the pairs' near-edge rule reads)
    sys_se = opts.method == "auto" and system_standard_errors(kernels, plan, sys_methods, linear)
    dist, d_dist, se_values = _replicates(
        jk,
        contrast,
        lin,
        plan,
        opts.engine,
        methods=(*sys_methods, diff_method, sym_se, "studentized" if sys_se else ""),
        diff_method=sym_se,
        linear=linear,
        ia=ia,
        ib=ib,
        sampler=sampler,
    )
    n_invalid = int(np.isnan(dist).any(axis=1).sum())
    # one jackknife of the joint kernel serves every system and every difference
    details: dict[str, Any] = {"joint_atoms": jk.m, "n_dropped": data.n_dropped}
    if auto_reason is not None:
        details["method_reason"] = auto_reason
    tables, mover, own_pairs, edge_pairs, skew_pairs, pct_pairs = pair_switches(
        requested=opts.method,
        diff_method=diff_method,
        linear=linear,
        data=data,
        kernels=kernels,
        names=names,
        pairs=pairs,
        estimates=estimates,
        contrast=contrast,
        dist=dist,
        se_values=se_values,
        sys_linear=sys_linear,
        d_skew=d_skew,
        bounds=jk.bounds,
        confidence_level=opts.confidence_level,
        metric=mname,
        auto_reason=auto_reason,
        details=details,
        symmetric=sym_pairs,
    )
    sym_pairs = sym_pairs & ~edge_pairs & ~own_pairs  # (near the edge: BCa, as before)
    bca_pairs = edge_pairs | skew_pairs  # the pairs with a bootstrap interval under auto
    pair_method = np.where(pct_pairs, "percentile", np.where(skew_pairs, SKEWED_PAIR_METHOD, "bca"))

    def linear_of(e: int) -> dict[str, Any]:
        if e < n_sys and sys_linear[e] is not None:
            return {"linear": sys_linear[e], "method": sys_methods[e]}
        if e < n_sys and sys_methods[e] not in LINEARIZED_METHODS:  # as bootstrap_ci's
            return {"method": sys_methods[e]}
        if e >= n_sys and bca_pairs[e - n_sys]:
            return {"method": str(pair_method[e - n_sys])}
        this = sys_methods[e] if e < n_sys else diff_method
        if linear is None:
            return {"method": this}
        lin: dict[str, Any] = {**linear, "standard_error": float(linear["standard_error"][e])}
        if e < n_sys:  # near the edge, a system falls back as a single metric would
            lin.update(edge_fallback_options(kernels[e], plan))
        out: dict[str, Any] = {"linear": lin, "method": this}
        if se_values is not None and e < se_values.shape[1]:
            out["se_dist"] = se_values[:, e]
        return out

    jack_memo: list[tuple[np.ndarray, np.ndarray]] = []

    def jack() -> tuple[np.ndarray, np.ndarray]:
        if not jack_memo:
            jack_memo.append(
                kernel_jackknife(
                    jk,
                    sampler(),
                    jackknife_groups,
                    max_memory=opts.engine.max_memory,
                    n_jobs=opts.engine.n_jobs,
                )
            )
            details["jackknife_size"] = len(jack_memo[0][1])
        return jack_memo[0]

    bca = method == "bca"
    finish = {
        "plan": plan,
        "name": mname,
        "confidence_level": opts.confidence_level,
    }
    errors = jk.errors_hint()
    # every system, then every difference, through the engine's finish step; a result
    # with no spread (a system always right, two systems that agree on every atom that
    # matters) is listed in details instead of warned about
    # "auto": a single AUC's analytic interval (engine/auc_analytic.py) where its rule
    # holds; the bootstrap's near-bound warning of that system is then moot
    auc_scores = {
        nm: sc
        for s_, nm in enumerate(names if opts.method == "auto" else ())
        if (sc := kernel_auc_score(kernels[s_], plan)) is not None
    }
    sys_list, warned = _finish_each(
        [
            (
                repr(nm),
                estimates[s],
                dist[:, s],
                {
                    "alternative": "two-sided",
                    "jackknife": (lambda s=s: (jack()[0][:, s], jack()[1]))
                    if bca or sys_methods[s] == "bca"
                    else None,
                    "bounds": jk.bounds,
                    "details": sys_why[s],
                    **linear_of(s),
                },
            )
            for s, nm in enumerate(names)
        ],
        kind="System",
        common=finish,
        hint=errors,
        replaced={repr(nm) for nm in auc_scores},
    )
    sys_results = dict(zip(names, sys_list, strict=True))
    for nm, auc_score in auc_scores.items():  # as bootstrap_ci gives it
        sys_results[nm] = with_auc_score(sys_results[nm], auc_score)
    if opts.method == "auto":  # each system's own analytic intervals, as bootstrap_ci's
        for s, nm in enumerate(names):
            res = sys_results[nm]
            if sys_methods[s] == "bca":  # a single AP's logit jackknife

                def column(s: int = s) -> tuple[Any, Any]:
                    return jack()[0][:, s], jack()[1]

                res = with_ap_logit(res, kernels[s], plan, column)
            # a single RMSE's robust SE (engine/rmse_robust.py); a kernel's own analytic
            # interval (the debiased l2 ECE near 0: engine/kernel_analytic.py)
            res = with_robust_se(res, kernels[s], plan, "auto")
            sys_results[nm] = with_kernel_analytic(res, kernels[s], plan, "auto")
    # each system's design warnings, as bootstrap_ci's (the AUCs' score interval: its own)
    warn_systems_outside_map(
        kernels,
        plan,
        names,
        mname,
        estimates,
        dist,
        [{"details": sys_why[s], **linear_of(s)} for s in range(n_sys)],
        skip={repr(nm) for nm in auc_scores},
    )
    lo_edge, hi_edge = jk.bounds
    d_bounds = (lo_edge - hi_edge, hi_edge - lo_edge)
    if margin is not None:
        margin = check_margin(margin, upper=d_bounds[1])
    # a pair's undefined replicates are its systems': said once, for the systems (a
    # pair is named only when neither of its systems was)
    pair_jobs = [
        (
            f"{names[i]} - {names[j]}",
            d_hat[k],
            d_dist[:, k],
            {
                "alternative": opts.alternative,
                "jackknife": (
                    (lambda i=i, j=j: (jack()[0][:, i] - jack()[0][:, j], jack()[1]))
                    if bca or (bca_pairs[k] and pair_method[k] == "bca")
                    else None
                ),
                "bounds": d_bounds,
                **linear_of(n_sys + k),
            },
        )
        for k, (i, j) in enumerate(pairs)
    ]
    pair_results, _ = _finish_each(
        pair_jobs,
        kind="Pair",
        common=finish,
        hint=errors,
        quiet={
            f"{names[i]} - {names[j]}"
            for i, j in pairs
            if repr(names[i]) in warned or repr(names[j]) in warned
        },
    )

    _spread_details(
        details,
        kernels=kernels,
        names=names,
        metric=mname,
        diff_method=diff_method,
        dist=dist,
        d_dist=d_dist,
        ia=ia,
        ib=ib,
        own_pairs=own_pairs,
        few_rule=opts.method == "auto" and linear is not None and bool(linear["iid"]),
        d_kurt=d_kurt,
        pairs=pairs,
        symmetric=sym_pairs,
        # each sample's condition: the systems' heavy-tail rule reads within them too
        units=data.conditions
        if isinstance(data.conditions, np.ndarray) and data.conditions.ndim == 1
        else None,
    )
    fallback = [
        f"{names[i]} - {names[j]}"
        for (i, j), r in zip(pairs, pair_results, strict=True)
        if "fallback" in r.details
    ]
    if fallback:
        details["fallback"] = (
            f"{method} undefined for the pair(s) {', '.join(fallback)} (the estimate "
            "lies outside the bootstrap distribution); percentile used there"
        )
    d_se = np.array([r.standard_error for r in pair_results], dtype=float)
    pvals, pvalue_method = pair_pvalues(
        diff_method=diff_method,
        linear=linear,
        se_values=se_values,
        d_hat=d_hat,
        d_dist=d_dist,
        d_se=d_se,
        bounds=d_bounds,
        alternative=opts.alternative,
        inverted=paired_rule is not None,
        kernels=kernels,
        plan=plan,
        metric=mname,
        bca_pairs=bca_pairs,
        tables=tables,
        mover=mover,
        details=details,
    )
    if sym_pairs.any():
        assert linear is not None and se_values is not None  # (symmetric_t_pairs)
        sym_args = (d_hat, linear["standard_error"][n_sys:], d_dist, se_values[:, n_sys:])
        pvals = symmetric_t_pvalues(sym_pairs, pvals, *sym_args)
        pvalue_method += "; for the RMSE pairs, the symmetric bootstrap-t test"
    maxt = max_t(d_hat, d_dist, d_se, pvals, opts.alternative, opts.confidence_level, d_bounds)
    crit, sim_low, sim_high, p_maxt = mover_maxt(mover, pvals, maxt, (d_hat, d_dist, d_se), opts)
    p_adj = p_maxt if correction == "maxt" else adjust_pvalues(pvals, correction=correction)
    alpha = 1.0 - opts.confidence_level
    margins: list[MarginTest | None] = [None] * len(pairs)
    if margin is not None:  # non-inferiority and TOST (see mlci.comparison.margins)
        margins = list(
            margin_tests(
                names,
                pairs,
                d_hat,
                d_dist,
                d_se,
                pair_jobs,
                finish,
                margin=margin,
                hib=hib,
                diff_method=diff_method,
                linear=linear,
                se_values=se_values,
                n_sys=n_sys,
                bounds=d_bounds,
                correction=correction,
                tables=tables,
            )
        )
    tango_ci = {
        k: tango_interval(t, opts.confidence_level, opts.alternative).confidence_interval
        for k, t in enumerate(tables)
        if t is not None
    } | mover_intervals(mover, opts.confidence_level, opts.alternative)
    if sym_pairs.any():
        tango_ci |= symmetric_t_intervals(sym_pairs, *sym_args, opts.confidence_level, d_bounds)
    diffs = tuple(
        PairDifference(
            a=names[i],
            b=names[j],
            estimate=float(d_hat[k]),
            confidence_interval=tango_ci.get(k, r.confidence_interval),
            confidence_level=opts.confidence_level,
            method=SYMMETRIC_T_METHOD
            if sym_pairs[k] and k in tango_ci
            else "mover"
            if k in mover
            else "tango"
            if k in tango_ci
            else str(pair_method[k])
            if bca_pairs[k]
            else diff_method,
            alternative=opts.alternative,
            standard_error=float(d_se[k]),
            metric=mname,
            details={
                **r.details,
                "n_invalid": r.n_invalid,
                **({"paired_table": tango_table.tolist()} if tango_table is not None else {}),
                **(
                    {}
                    if np.isnan(d_skew[k])
                    else {"skewness": float(d_skew[k]), "kurtosis": float(d_kurt[k])}
                ),
            },
            pvalue=float(pvals[k]),
            pvalue_adjusted=float(p_adj[k]),
            simultaneous_interval=ConfidenceInterval(float(sim_low[k]), float(sim_high[k])),
            significant=bool(p_adj[k] < alpha),
            margin_test=margins[k],
        )
        for k, ((i, j), r, tango_table) in enumerate(zip(pairs, pair_results, tables, strict=True))
    )
    ranking = None
    if reference is None:
        ranking = _ranking(names, estimates, diffs, hib)
    return ComparisonResult(
        metric=mname,
        systems=sys_results,
        differences=diffs,
        reference=None if reference is None else str(reference),
        correction=correction,
        pvalue_method=pvalue_method,
        simultaneous_critical_value=crit,
        ranking=ranking,
        higher_is_better=hib,
        confidence_level=opts.confidence_level,
        method="auto" if opts.method == "auto" else method,
        alternative=opts.alternative,
        n_resamples=opts.n_resamples,
        n_invalid=n_invalid,
        scheme=plan.scheme,
        n_samples=data.n_samples,
        n_conditions=plan.n_conditions,
        n_strata=plan.n_strata,
        details=details,
    )


def _replicates(
    jk: JointKernel,
    contrast: ContrastKernel,
    lin: Linearization,
    plan: Any,
    engine: Any,
    *,
    methods: Sequence[str],
    diff_method: str,
    linear: dict[str, Any] | None,
    ia: np.ndarray,
    ib: np.ndarray,
    sampler: Callable[[], Any],
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Every system's replicates and every difference's (``a - b`` of the index arrays
    ``ia``, ``ib``), with the replicates' linearized standard errors where a method reads
    them (studentized: ``methods`` are the systems' and the differences'); ``sampler()``
    makes the plan's sampler over the joint atoms."""
    n_sys = len(jk.kernels)
    se_values = None
    if "studentized" in methods:

        def run(evaluate: Any, smp: Any, shape: tuple[int, ...], per_row: float) -> np.ndarray:
            return run_replicates(
                evaluate,
                smp,
                shape,
                bytes_per_row=per_row,
                batch=engine.batch,
                n_jobs=engine.n_jobs,
                max_memory=engine.max_memory,
                threads=not jk.is_function,
            )

        # the differences' replicate standard errors are read by a studentized difference
        # only (its interval, p-value and margin tests; a PairDifference keeps none):
        # otherwise the systems' columns alone, where they are computed apart
        run_lin = lin
        if diff_method != "studentized" and (alone := contrast.systems_only()) is not None:
            run_lin = Linearization(alone, plan, counts=lin.counts)
        with single_threaded_blas(not jk.is_function):
            values, se_values, _ = run_lin.run(run)
        dist = values[:, :n_sys]
        d_dist = values[:, n_sys:] if run_lin is lin else dist[:, ia] - dist[:, ib]
    else:
        # over whole conditions with intervals that read no replicate's standard error
        # (auto's logit_t systems and t differences): the replicates' values from the
        # conditions' sums, as the studentized path gets them, without its gradients
        values = None
        if linear is not None and not linear["iid"]:
            values = run_unit_values(contrast, lin.units, plan, engine)
        if values is not None:
            dist, d_dist = values[:, :n_sys], values[:, n_sys:]
        else:
            dist = run_joint(jk, sampler(), engine)
            d_dist = dist[:, ia] - dist[:, ib]
    return dist, d_dist, se_values


def _no_spread(x: np.ndarray) -> np.ndarray:
    """The columns of ``x`` (replicates x elements) without spread."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmax(x, axis=0) == np.nanmin(x, axis=0)


def _spread_details(
    details: dict[str, Any],
    *,
    kernels: list[Any],
    names: list[str],
    metric: str,
    diff_method: str,
    dist: np.ndarray,
    d_dist: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    own_pairs: np.ndarray,
    few_rule: bool,
    d_kurt: np.ndarray,
    pairs: list[tuple[int, int]],
    symmetric: np.ndarray | None = None,
    units: np.ndarray | None = None,
) -> None:
    """To ``details``: the systems' heavy tails, the systems and pairs without spread, and
    (``few_rule``: auto over independent samples) the pairs with a handful of discordant
    samples, each warned about but the pairs with their own interval (``own_pairs``) and
    of the ``symmetric`` pairs (an RMSE pair with the symmetric bootstrap-t whose systems differ
    on many samples: its test sets that the rule flags covered more, 0.979-1.000, not less;
    comparison/paired_regression.py)."""
    # (regression metrics; the RMSE pairs with the symmetric bootstrap-t: no pair warning)
    details.update(heavy_tail_systems(kernels, names, metric, diff_method, pairs, symmetric, units))
    quiet_few = None if symmetric is None else unflagged_few_discordant(symmetric, kernels, ia, ib)
    flat_sys = _no_spread(dist)
    if flat_sys.any():
        details["no_spread_systems"] = [names[s] for s in np.flatnonzero(flat_sys)]
    flat = _no_spread(d_dist)
    if flat.any():  # (a pair with Tango's interval has one without a discordant sample)
        details["no_spread_pairs"] = [
            f"{names[ia[k]]} - {names[ib[k]]}" for k in np.flatnonzero(flat)
        ]
        if (flat & ~own_pairs).any():
            details["no_spread_warning"] = warn_no_spread_pairs(
                [f"{names[ia[k]]} - {names[ib[k]]}" for k in np.flatnonzero(flat & ~own_pairs)],
                metric,
            )
    if few_rule:
        few = few_discordant(d_kurt) & ~flat & ~own_pairs
        if quiet_few is not None:
            few &= ~quiet_few
        if few.any():
            details["few_discordant_pairs"] = [
                f"{names[ia[k]]} - {names[ib[k]]}" for k in np.flatnonzero(few)
            ]
            details["few_discordant_warning"] = warn_few_discordant(
                details["few_discordant_pairs"], d_kurt[few], metric
            )
