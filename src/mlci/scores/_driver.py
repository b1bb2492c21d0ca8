"""The bootstrap driver of :mod:`mlci.scores`: the one driver behind every interval of score
statistics (curves and verification metrics included): validate, plan, run the replicates
(lazy or through the engine's weights), finish.

The data flow one way into it: a statistic bound to its options (:mod:`mlci.scores._specs`),
its engine kernel over the atoms (:mod:`mlci.scores._kernels`), the samplers beside the
engine's (:mod:`mlci.scores._samplers`).  Both samplers (the lazy one and the engine's) run
through the one replicate loop (:func:`mlci.engine.bootstrap.run_replicates`) and the one
finish step (:func:`mlci.engine.bootstrap.finish_bootstrap`), in :func:`bootstrap_scores`.
The statistics themselves are functions of a view of the counts (:mod:`mlci.scores._roc`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ..engine.auc_analytic import scores_auc_score, with_auc_score
from ..engine.auc_class import clustered_auc_check, warn_few_auc_class, warn_near_edge_auc
from ..engine.auc_misranked import misranked_counts, warn_few_misranked_auc
from ..engine.bootstrap import finish_bootstrap
from ..engine.custom import UserSampler, check_sampler
from ..engine.nested import plan_for_conditions
from ..engine.replicate_loop import jackknife_groups, jackknife_values, run_replicates
from ..engine.sampler import Sampler
from ..engine.scores_rules import scores_auto_method
from ..engine.smoothing import (
    SUBSAMPLE_METHODS,
    SmoothedSampler,
    check_smoothing,
    check_subsample,
    subsample_counts,
)
from ..engine.weighted_auc_edge import (
    WeightedAucInterval,
    scores_weighted_auc,
    with_weighted_auc,
)
from ..inputs import (
    bootstrap_options,
    check_choice,
    check_flag,
    check_strata_stratify,
)
from ..metrics import Kernel, with_sample_weight
from ..results import BootstrapResult
from ._cluster_rules import outer_conditions
from ._data import PositivesFirst, ScoreData
from ._design import (
    check_stratify_nested,
    design_arrays,
    strata_codes,
    warn_strata_class_mix,
)
from ._kernels import (
    _delete_one,
    _IndexKernel,
    _ScoresKernel,
    _SmoothedKernel,
    atom_keys,
    internal_perm,
)
from ._point_rules import quiet_under, score_rule, with_score_interval
from ._roc import (
    _View,
)
from ._samplers import _LazySampler, _rescale_subsample, _units_path
from ._specs import _Part, _resolve, _Spec


def scores_ci(
    sc: ScoreData,
    metric: str | Callable[..., Any],
    metric_kwargs: dict[str, Any] | None,
    options: dict[str, Any],
    **engine: Any,
) -> BootstrapResult:
    """:meth:`Scores.bootstrap_ci` of one confidence level: bind the metric (a name and its
    ``options``, or a callable and ``metric_kwargs``) and run :func:`bootstrap_scores`."""
    if not isinstance(metric_kwargs, dict | None):
        raise TypeError(f"`metric_kwargs` must be a dict; got {type(metric_kwargs).__name__}.")
    kw = dict(metric_kwargs or {})
    given = {k: v for k, v in options.items() if v is not None}
    if callable(metric):
        if given:
            raise TypeError(
                f"{', '.join(f'`{k}`' for k in given)} are options of the built-in "
                "metrics; pass options of your own function in `metric_kwargs`."
            )

        make = None
        user = (metric, kw)
    else:
        clash = sorted(set(kw) & set(given))
        if clash:
            raise TypeError(f"{clash} given twice (as arguments and in `metric_kwargs`).")
        kw.update(given)
        _resolve(sc, metric, dict(kw))  # validate the metric and its options now

        def make(data: ScoreData) -> _Spec:
            return _resolve(data, metric, dict(kw))

        user = None
    out = bootstrap_scores(sc, make, user=user, **engine)
    if len(out) != 1:
        raise ValueError(f"Unknown metric {metric!r}.")
    return out[0]


def bootstrap_scores(
    sc: ScoreData,
    make: Callable[[Any], _Spec] | None,
    *,
    n_resamples: Any,
    confidence_level: Any,
    method: Any,
    alternative: Any,
    rng: Any,
    conditions: Any,
    strata: Any,
    stratify: Any,
    two_stage: Any,
    weights: Any,
    dropna: Any,
    algorithm: Any = "auto",
    user: tuple[Callable[..., Any], dict[str, Any]] | None = None,
    sampler: Any = None,
    smoothing: Any = False,
    subsample: Any = None,
) -> list[BootstrapResult]:
    """The one bootstrap driver of score statistics: validate, plan, run, finish.

    ``make(scores)`` binds the statistic to the scores actually resampled (after
    samples with a missing condition or stratum are dropped); or ``user`` is a
    callable metric and its keyword arguments.  Returns one result per part of the statistic.
    """
    h = check_smoothing(smoothing)
    frac = check_subsample(subsample)
    # auto's per-statistic rule (engine/auto.py, SCORES_AUTO) is for the built-in
    # statistics under the ordinary bootstrap; smoothed, subsampled and custom schemes
    # keep BCa
    rules = method == "auto" and make is not None and frac is None and h is False
    rules = rules and sampler is None
    if frac is not None:
        clash = [
            f"`{n}`"
            for n, bad in (
                ("sampler", sampler is not None),
                ("conditions", conditions is not None),
                ("two_stage", two_stage is True),
                ("weights", weights != "multinomial"),
                ("algorithm", algorithm == "lazy"),
            )
            if bad
        ]
        if clash:
            raise ValueError(
                f"`subsample` draws samples without replacement itself: drop {', '.join(clash)}."
            )
        if method == "auto":
            method = "basic"
        elif method not in SUBSAMPLE_METHODS:
            raise ValueError(
                f"`method`={method!r} cannot be read from rescaled subsamples; with "
                f"`subsample` use one of {', '.join(repr(m) for m in SUBSAMPLE_METHODS)}."
            )
    if h is not False and sc._w is not None:
        raise ValueError(
            "`smoothing` of weighted Scores is not supported (the bandwidth rule is for "
            "unweighted samples); drop `smoothing` or `sample_weight`."
        )
    if h is not False and algorithm == "lazy":
        raise ValueError("`smoothing` rebuilds every replicate: drop `algorithm='lazy'`.")
    opts = bootstrap_options(
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
        linearized=False,
    )
    check_choice("algorithm", algorithm, ("auto", "lazy", "weights"))
    check_choice("weights", weights, ("multinomial", "poisson"))
    check_flag("two_stage", two_stage)
    check_flag("dropna", dropna)
    if stratify is not None:
        check_flag("stratify", stratify)
    check_strata_stratify(strata, stratify, "the labels")
    check_sampler(sampler, conditions=conditions, strata=strata)
    if sampler is not None:
        if stratify or two_stage or weights != "multinomial" or algorithm == "lazy":
            raise ValueError(
                "`sampler` replaces the resampling design: drop `stratify`, `two_stage`, "
                "`weights` and `algorithm='lazy'` (a custom scheme draws every count)."
            )
        stratify, algorithm = False, "weights"
    design = design_arrays(
        conditions,
        strata,
        n_samples=len(sc._y_score),
        dropna=dropna,
        input_kept=sc._kept,
        n_input=sc._n_input,
    )
    check_stratify_nested(stratify, design)
    sc = sc if design.kept is None else sc._subset(design.kept)
    stratify_default = stratify is None
    if stratify is None:
        stratify = not design.nested
    perm = internal_perm(sc)
    keys, labels = atom_keys(sc)
    cond = design.conditions
    if cond is not None:
        cond = [c[perm] for c in cond] if design.nested else cond[perm]
    user_strata = None if design.strata is None else design.strata[perm]
    sub = None
    if frac is not None:
        # the cells (class, stratum) in the samples' order; the scheme draws in them
        codes = (sc._is_pos ^ sc._positives_first).astype(np.intp) if stratify else 0 * keys
        if design.strata is not None:
            codes = codes + 2 * np.unique(design.strata, return_inverse=True)[1].ravel()
        cells = [np.flatnonzero(codes == c) for c in np.unique(codes)]
        sampler, m_sub, scale = subsample_counts(cells, frac, len(keys))
        sub = {"fraction": frac, "m": m_sub, "n": len(keys), "scale": scale}
        stratify, user_strata, algorithm = False, None, "weights"
    if stratify and stratify_default and user_strata is not None:
        # the class mix of the user's strata, fixed in every replicate (scores/_design.py)
        warn_strata_class_mix(labels ^ sc._positives_first, user_strata)
    plan = plan_for_conditions(
        len(keys),
        conditions=cond,
        strata=strata_codes(labels ^ sc._positives_first if stratify else None, user_strata),
        two_stage=two_stage,
        weights=weights,
        n_resamples=opts.n_resamples,
        rng=opts.seed,
    )
    if make is None:
        assert user is not None
        if sc._w is not None:
            raise ValueError(
                "A function metric of weighted Scores is not supported (each replicate "
                "would be a Scores object without weights); use a built-in metric."
            )
        kernel: Kernel = _IndexKernel(sc, keys, *user)
        spec = _Spec(kernel.name, _no_view, kernel.shape, search=False, full=True)
    else:
        spec = make(sc)
        kernel = _ScoresKernel(sc._lay, keys, spec)
    if sc._w is not None:
        if algorithm == "lazy":
            raise ValueError(
                "`algorithm='lazy'` draws counts of distinct scores; weighted Scores need "
                "`algorithm='weights'` (or 'auto')."
            )
        # the replicate's counts are multiplied by the weights (atoms: score x weight)
        kernel = with_sample_weight(kernel, sc._w[perm])
        keys = kernel.keys
        algorithm = "weights"
    # auto's interval of a weighted AUC near its bound (engine/weighted_auc_edge.py)
    wauc = None
    if rules and sc._w is not None and user_strata is None and not two_stage:
        if weights == "multinomial" and not design.nested:
            wauc = (sc._sign * sc._y_score[perm], sc._is_pos[perm], sc._w[perm], cond)
    lazy = cond is None and user_strata is None and not spec.full
    size = int(np.prod(spec.shape)) if spec.shape else 1
    # searches cost O(b * known points) per query in the lazy sampler: keep them few
    lazy_auto = spec.search and (spec.fixed or size <= 16)
    if algorithm == "lazy" and not lazy:
        raise ValueError(
            "`algorithm='lazy'` needs a statistic of the counts and neither `conditions` "
            f"nor `strata`; {spec.name!r} with these options needs `algorithm='weights'`."
        )
    if algorithm == "weights" or (algorithm == "auto" and not lazy_auto):
        lazy = False
    details: dict[str, Any] = {"n_dropped": sc.n_dropped}
    custom: Sampler | None = None
    if h is not False:
        bw = sc._bandwidths(h)
        if make is None:
            fn, fkw = user  # type: ignore[misc]

            def value(r: Any) -> Any:
                return fn(r, **fkw)
        else:

            def value(r: Any) -> Any:
                sp = make(r)
                return sp.fn(r._full_view()).reshape(sp.shape)

        kernel = _SmoothedKernel(sc, kernel.keys, value, bw, spec.name)
        lazy = False
        details["smoothing"] = {"bandwidth_pos": bw[0], "bandwidth_neg": bw[1]}
    if sampler is not None:
        user_keys = np.empty(len(keys), dtype=np.intp)
        user_keys[perm] = kernel.keys
        custom = UserSampler(plan.weights_for(kernel.keys, kernel.m), sampler, user_keys)
    if h is not False:
        custom = SmoothedSampler(
            plan.weights_for(kernel.keys, kernel.m) if custom is None else custom
        )
    if sub is not None:
        details["subsample"] = sub
    out = _run(
        sc,
        spec,
        kernel,
        plan,
        opts,
        lazy,
        stratify,
        details,
        threads=user is None and h is False,
        custom=custom,
        rules=rules,
        iid=cond is None
        and user_strata is None
        and sc._w is None
        and not two_stage
        and weights == "multinomial",
        clusters=outer_conditions(cond)
        if user_strata is None and sc._w is None and not two_stage and weights == "multinomial"
        else None,
        weighted_auc=wauc,
    )
    if h is not False:
        base = "custom" if sampler is not None and sub is None else plan.scheme
        out = [replace(r, scheme=f"{base}+smoothed") for r in out]
    if sub is not None:
        out = [_rescale_subsample(r, sub, h is not False) for r in out]
    return out


def _clustered_auc(
    plan: Any,
    kernel: Kernel,
    lay: Any,
    estimate: Any,
    n_pos: Any,
    n_neg: Any,
    method: str,
    extra: dict[str, Any],
    rules: bool,
) -> str | None:
    """The ROC AUC's clustered-class rule of ``bootstrap_ci``'s roc_auc over conditions
    (:func:`mlci.engine.auc_class.clustered_auc_check`): the numbers to
    ``extra["diagnostics"]``; under ``rules`` (``method="auto"``, as the few-samples
    warning) the warning's text, or None.  The built-in AUC only (class atoms as keys)."""
    if not isinstance(kernel, (_ScoresKernel, _SmoothedKernel)):
        return None
    return clustered_auc_check(
        np.asarray(kernel.keys) >= lay.m[0], plan, estimate, n_pos, n_neg, method, extra, rules
    )


def _no_view(v: _View) -> np.ndarray:  # pragma: no cover - a callable's spec has no view path
    raise NotImplementedError


def _run(
    sc: ScoreData,
    spec: _Spec,
    kernel: Kernel,
    plan: Any,
    opts: Any,
    lazy: bool,
    stratified: bool,
    details: dict[str, Any],
    *,
    threads: bool,
    custom: Sampler | None = None,
    rules: bool = False,
    iid: bool = False,
    clusters: Any = None,
    weighted_auc: Any = None,
) -> list[BootstrapResult]:
    """Replicates (lazy or through the engine's weights) and one result per part.

    ``rules``: ``method="auto"`` resolved per part by
    :func:`mlci.engine.scores_rules.scores_auto_method` (e.g. the EER and its threshold
    from the same replicates, each with its own method); with ``iid`` (independent
    unweighted trials), or ``clusters`` (their conditions), the few-errors rules may give
    an ROC point's score interval (:func:`mlci.scores._point_rules.score_rule`).
    """
    lay = sc._lay
    eng = opts.engine
    sampler: Sampler
    evaluate: Callable[[Any], np.ndarray]
    if lazy:
        sampler = _LazySampler(lay, plan, stratified)

        def evaluate(view: Any) -> np.ndarray:
            return spec.fn(view).reshape((view.b, *spec.shape))

        bytes_per_row = 64.0 * sum(lay.m)
        estimate = spec.fn(sc._full_view()).reshape(spec.shape)
        scheme = plan.scheme + ("+lazy" if "lazy" not in plan.scheme else "")
    else:
        if custom is None and sc._positives_first and getattr(plan, "n_units", 1) is None:
            # the classes drawn by label; with sample weights the atoms are (score, weight)
            # pairs, the negatives' first (metrics.SampleWeightedKernel)
            base = getattr(kernel, "atom_base", None)
            m_neg = lay.m[0] if base is None else int(np.sum(np.asarray(base) < lay.m[0]))
            kernel = PositivesFirst(kernel, m_neg)
        sampler = (
            plan.weights_for(kernel.keys, kernel.m, atom_rank=kernel.atom_rank)
            if custom is None
            else custom
        )
        evaluate = kernel.evaluate
        bytes_per_row = 8.0 * kernel.m * kernel.work_factor + sampler.draw_bytes
        estimate = kernel.evaluate(sampler.counts[None, :])[0]
        scheme = None if custom is None else "custom"
        by_units = _units_path(sc, spec, kernel, plan, opts, custom)
        if by_units is not None:
            sampler, evaluate, bytes_per_row = by_units
    if np.any(np.isnan(estimate)):
        raise ValueError(
            f"The statistic {spec.name!r} is undefined (NaN) on the data as given, e.g. "
            "precision at a threshold above every score; no interval can be computed."
        )
    dist = run_replicates(
        evaluate,
        sampler,
        spec.shape,
        bytes_per_row=bytes_per_row,
        batch=eng.batch,
        n_jobs=eng.n_jobs,
        max_memory=eng.max_memory,
        threads=threads,
    )
    memo: list[tuple[np.ndarray, np.ndarray]] = []

    def jackknife() -> tuple[np.ndarray, np.ndarray]:
        if not memo:
            if lazy:
                memo.append(_delete_one(lay, spec))
            else:
                memo.append(
                    jackknife_values(
                        kernel.evaluate,
                        sampler,
                        jackknife_groups(kernel.m),
                        exact=lambda: kernel.delete_one(sampler.counts),
                        bytes_per_row=8.0 * kernel.m * (kernel.work_factor + 1.0),
                        max_memory=eng.max_memory,
                        n_jobs=eng.n_jobs if threads else 1,
                    )
                )
        return memo[0]

    parts = spec.parts or (_Part(spec.name, spec.bounds),)

    def picker(j: Any) -> Callable[[Any], np.ndarray]:
        return lambda a: np.asarray(a) if j is None else np.asarray(a)[..., j]

    picks = [picker(None if spec.parts is None else i) for i in range(len(parts))]
    if spec.segments is not None:
        ends = np.cumsum([k for _, _, k in spec.segments])
        parts = tuple(_Part(nm, bd) for nm, bd, _ in spec.segments)
        picks = [
            picker(slice(int(e) - k, int(e)))
            for (_, _, k), e in zip(spec.segments, ends, strict=True)
        ]
    results = []
    for part, pick in zip(parts, picks, strict=True):

        def jack(pick: Callable[[Any], np.ndarray] = pick) -> tuple[np.ndarray, np.ndarray]:
            vals, mult = jackknife()
            return pick(vals), mult

        method, reason = scores_auto_method(part.name) if rules else (None, None)
        method, reason = method or opts.method, reason or opts.method_reason
        extra = dict(details)
        score, auc_score = None, None
        weighted: WeightedAucInterval | None = None
        if rules and (part.name == "eer" or (spec.point is not None and part is parts[0])):
            score = score_rule(lay, spec.point, part.name, pick(estimate), iid, extra, clusters)
        if part.name == "auc":
            n_neg, n_pos = (c.sum() for c in lay.nobs)
            # auto's analytic interval (engine/auc_analytic.py) gives its own warning
            auc_score = scores_auc_score(lay, pick(estimate), iid) if rules else None
            if rules and weighted_auc is not None:  # (engine/weighted_auc_edge.py)
                weighted = scores_weighted_auc(*weighted_auc)
            warns = rules and auc_score is None and weighted is None
            few = warn_few_auc_class(n_pos, n_neg, method) if warns else None
            if few is None:  # the diagnostics always; the warning under the rules
                few = _clustered_auc(
                    plan, kernel, lay, pick(estimate), n_pos, n_neg, method, extra, warns
                )
            if few is None and warns:  # near the bound with 20-149 of a class
                few = warn_near_edge_auc(n_pos, n_neg, pick(estimate), method)
            if few is None and warns and lay.nobs[0] is not None:
                # near 1 with few misranked samples (engine/auc_misranked.py)
                mis = misranked_counts(lay.u[0], lay.nobs[0], lay.u[1], lay.nobs[1])
                few = warn_few_misranked_auc(pick(estimate), mis, method, few=min(n_pos, n_neg))
            if few is not None:
                extra["few_samples_warning"] = few
        with warnings.catch_warnings():
            for quiet in quiet_under(score, auc_score or weighted):  # an interval replaces it
                warnings.simplefilter("ignore", quiet)
            res = finish_bootstrap(
                pick(estimate),
                pick(dist),
                plan=plan,
                name=part.name,
                method=method,
                confidence_level=opts.confidence_level,
                alternative=opts.alternative,
                jackknife=jack if method == "bca" else None,
                details=extra if reason is None else {**extra, "method_reason": reason},
                scheme=scheme,
                bounds=part.bounds,
            )
        if weighted is not None:  # auto's interval of a weighted AUC near its bound
            res = with_weighted_auc(res, weighted)
        elif auc_score is not None:  # auto's analytic AUC interval
            res = with_auc_score(res, auc_score)
        results.append(res if score is None else with_score_interval(res, score, opts))
    return results
