"""The bootstrap driver of :mod:`mlci.scores`: a metric bound to a Scores object, its kernels,
and the one driver behind every interval of score statistics (curves and verification
metrics included): validate, plan, run the replicates (lazy or through the engine's
weights), finish.

Both samplers (:class:`_LazySampler` and the engine's) run through the one replicate loop
(:func:`mlci.engine.bootstrap.run_replicates`) and the one finish step
(:func:`mlci.engine.bootstrap.finish_bootstrap`), in :func:`bootstrap_scores`.  The
statistics themselves are functions of a view of the counts (:mod:`mlci.scores._roc`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..engine.auc_analytic import scores_auc_score, with_auc_score
from ..engine.auc_class import clustered_auc_check, warn_few_auc_class, warn_near_edge_auc
from ..engine.bootstrap import (
    finish_bootstrap,
    jackknife_groups,
    jackknife_values,
    run_replicates,
)
from ..engine.custom import UserSampler, check_sampler
from ..engine.nested import plan_for_conditions
from ..engine.resampling import ResamplingPlan
from ..engine.sampler import RootStreamSampler, Sampler, UnitDraws
from ..engine.scores_rules import scores_auto_method
from ..engine.smoothing import (
    SUBSAMPLE_METHODS,
    SmoothedSampler,
    check_smoothing,
    check_subsample,
    smooth_scores,
    subsample_counts,
)
from ..inputs import (
    bootstrap_options,
    check_choice,
    check_flag,
    check_rng_seed,
    check_strata_stratify,
)
from ..metrics import Kernel, RocAucKernel, with_sample_weight
from ..results import BootstrapResult
from ._cluster_rules import outer_conditions
from ._data import _D, PositivesFirst, ScoreData
from ._design import (
    check_stratify_nested,
    design_arrays,
    strata_codes,
)
from ._point_rules import quiet_under, score_rule, with_score_interval
from ._roc import (
    _INTERPOLATIONS,
    _LAZY_BLOCK,
    _RATE,
    _RATE_ALIASES,
    _THRESHOLD_RATES,
    _UNBOUNDED,
    _check_rate,
    _check_threshold,
    _counts_at,
    _DeleteOneView,
    _eer,
    _Layout,
    _LazyView,
    _rate_at_tau_rows,
    _roc_rate_at,
    _tau_at_rate,
    _View,
    _WeightsView,
)
from ._units import _UnitsLayout, _UnitsView
from .confusion import CM_METRICS, binary_cm_metric, cm_metric_bounds


@dataclass(frozen=True)
class _Part:
    """One component of a joint statistic (the last axis of its value): name and range."""

    name: str
    bounds: tuple[float, float]


@dataclass(frozen=True)
class _Spec:
    """A metric bound to its options: ``fn(view) -> (b, *shape)``; ``search`` marks lazy-able.

    ``bounds`` is the statistic's range (intervals are kept inside it); a joint statistic
    (e.g. the EER and its threshold from the same replicates) has ``parts``, one per
    entry of its last axis, each with its own name and range.
    """

    name: str
    fn: Callable[[_View], np.ndarray]
    shape: tuple[int, ...]
    search: bool
    full: bool = False  # needs every atom's weight (no lazy path)
    fixed: bool = False  # only counts at fixed thresholds (cheap in the lazy sampler)
    bounds: tuple[float, float] = _UNBOUNDED
    parts: tuple[_Part, ...] | None = None
    # several statistics side by side on one flat axis, each its own result: (name,
    # bounds, length) of each (curve bands from one set of replicates, issue 25)
    segments: tuple[tuple[str, tuple[float, float], int], ...] | None = None
    # the statistic reads the counts through the view's searches only (cuts, cum_at,
    # total): over whole conditions its replicates may be the conditions' draw counts
    # (:mod:`mlci.scores._units`) instead of every atom's weight
    units: bool = False
    # a rate at a fixed other rate: (rate, x, at), for auto's score interval and its
    # few-events warning (mlci.engine.scores_rules)
    point: tuple[str, str, np.ndarray] | None = None


class _ScoresKernel(Kernel):
    """Engine kernel of a Scores statistic: atoms = distinct scores, negatives then positives."""

    work_factor = 8.0

    def __init__(self, lay: _Layout, keys: np.ndarray, spec: _Spec) -> None:
        self.lay = lay
        self.keys = keys
        self.m = lay.m[0] + lay.m[1]
        # atoms: distinct scores of each class, sorted, as the samples (canonical order)
        self.atom_rank = np.arange(self.m, dtype=np.intp)
        self.spec = spec
        self.shape = spec.shape
        self.name = spec.name
        self.bounds = spec.bounds

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        return self.spec.fn(_WeightsView(self.lay, w)).reshape((-1, *self.shape))

    def delete_one(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        if self.spec.full:
            return None
        return _delete_one(self.lay, self.spec)


def _delete_one(lay: _Layout, spec: _Spec) -> tuple[np.ndarray, np.ndarray]:
    """Exact delete-one jackknife: one value per atom, weighted by its count."""
    cls = np.concatenate([np.zeros(lay.m[0], np.intp), np.ones(lay.m[1], np.intp)])
    atom = np.concatenate([np.arange(lay.m[0]), np.arange(lay.m[1])])
    mult = np.concatenate(lay.cnt)
    size = int(np.prod(spec.shape)) if spec.shape else 1
    step = max(1, 2_000_000 // max(size, 1) // 8)
    vals = [
        spec.fn(_DeleteOneView(lay, cls[i : i + step], atom[i : i + step])).reshape(
            (-1, *spec.shape)
        )
        for i in range(0, len(cls), step)
    ]
    return np.concatenate(vals, axis=0), mult


class _IndexKernel(Kernel):
    """A user function of a Scores object, called on every replicate (the index path)."""

    work_factor = 2.0

    def __init__(
        self, sc: ScoreData, keys: np.ndarray, fn: Callable[..., Any], kw: dict[str, Any]
    ) -> None:
        self.sc = sc
        self.lay = sc._lay
        self.keys = keys
        self.m = self.lay.m[0] + self.lay.m[1]
        self.fn = fn
        self.kw = kw
        est = np.asarray(fn(sc, **kw), dtype=float)
        self.shape = est.shape
        self.name = getattr(fn, "__name__", "metric")

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        lay, sign = self.lay, self.sc._sign
        out = np.empty((w.shape[0], *self.shape))
        m0 = lay.m[0]
        for r in range(w.shape[0]):
            cnt = np.round(w[r]).astype(np.intp)
            neg = sign * np.repeat(lay.u[0], cnt[:m0])
            pos = sign * np.repeat(lay.u[1], cnt[m0:])
            if len(neg) == 0 or len(pos) == 0:
                out[r] = np.nan
                continue
            s = self.sc._plain(pos, neg)
            out[r] = np.asarray(self.fn(s, **self.kw), dtype=float)
        return out


class _SmoothedKernel(_IndexKernel):
    """A statistic of a Scores object on smoothed replicates (the smoothed bootstrap).

    A row of ``m + 1`` values is a replicate's atom counts and the seed of its noise (see
    :class:`~mlci.engine.smoothing.SmoothedSampler`); a row of ``m`` counts (the data, a
    jackknife row) is evaluated without noise.
    """

    def __init__(
        self,
        sc: ScoreData,
        keys: np.ndarray,
        fn: Callable[[Any], Any],
        h: tuple[float, float],
        name: str,
    ) -> None:
        super().__init__(sc, keys, fn, {})
        self.h = h
        self.name = name

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        lay, sign = self.lay, self.sc._sign
        out = np.empty((w.shape[0], *self.shape))
        m0 = lay.m[0]
        for r in range(w.shape[0]):
            cnt = np.round(w[r, : self.m]).astype(np.intp)
            neg = sign * np.repeat(lay.u[0], cnt[:m0])
            pos = sign * np.repeat(lay.u[1], cnt[m0 : self.m])
            if len(neg) == 0 or len(pos) == 0:
                out[r] = np.nan
                continue
            if w.shape[1] > self.m:
                gen = np.random.default_rng(int(w[r, self.m]))
                y = smooth_scores(
                    np.r_[pos, neg], np.arange(len(pos) + len(neg)) < len(pos), self.h, gen
                )
                pos, neg = y[: len(pos)], y[len(pos) :]
            s = self.sc._plain(pos, neg)
            out[r] = np.asarray(self.fn(s), dtype=float).reshape(self.shape)
        return out


def atom_keys(sc: ScoreData) -> tuple[np.ndarray, np.ndarray]:
    """Atom of every internal sample (negatives sorted, then positives sorted), and its class."""
    lay = sc._lay
    kn = np.repeat(np.arange(lay.m[0]), lay.nobs[0].astype(np.intp))
    kp = lay.m[0] + np.repeat(np.arange(lay.m[1]), lay.nobs[1].astype(np.intp))
    labels = np.concatenate([np.zeros(len(kn), np.intp), np.ones(len(kp), np.intp)])
    return np.concatenate([kn, kp]), labels


def internal_perm(sc: ScoreData) -> np.ndarray:
    """User index of every internal sample (oriented sorted negatives, then positives)."""
    idx_n, idx_p = np.flatnonzero(~sc._is_pos), np.flatnonzero(sc._is_pos)
    on = np.argsort(sc._sign * sc._y_score[idx_n], kind="stable")
    op = np.argsort(sc._sign * sc._y_score[idx_p], kind="stable")
    return np.concatenate([idx_n[on], idx_p[op]])


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
    )
    if h is not False:
        base = "custom" if sampler is not None and sub is None else plan.scheme
        out = [replace(r, scheme=f"{base}+smoothed") for r in out]
    if sub is not None:
        out = [_rescale_subsample(r, sub, h is not False) for r in out]
    return out


def resample_scores(
    sc: _D,
    *,
    rng: Any,
    stratify: bool,
    weights: str,
    sampler: Callable[[np.random.Generator, int], Any] | None,
    smoothing: bool | float,
    subsample: float | None,
) -> _D:
    """One bootstrap resample of ``sc`` (:meth:`Scores.bootstrap_sample`, validated here)."""
    stratify = check_flag("stratify", stratify)
    check_choice("weights", weights, ("multinomial", "poisson"))
    check_sampler(sampler)
    h = check_smoothing(smoothing)
    frac = check_subsample(subsample)
    if h is not False and sc._w is not None:
        raise ValueError(
            "`smoothing` of weighted Scores is not supported (the bandwidth rule is for "
            "unweighted samples); drop `smoothing` or `sample_weight`."
        )
    seed = check_rng_seed(rng)
    if frac is not None and (sampler is not None or weights != "multinomial"):
        raise ValueError(
            "`subsample` is a scheme of its own (without replacement): drop `sampler` "
            "and `weights`."
        )
    if sampler is not None and (stratify or weights != "multinomial"):
        raise ValueError("`sampler` replaces the resampling design: drop `stratify` and `weights`.")
    y, is_pos = sc._y_score, sc._is_pos
    n = len(y)
    cells = [np.flatnonzero(is_pos), np.flatnonzero(~is_pos)] if stratify else [np.arange(n)]
    scheme = CellResampler(cells, n, root=seed, weights=weights, subsample=frac, user=sampler)
    gen = scheme.generator(scheme.stream, 0)
    idx = scheme.resample(gen, is_pos)
    if h is False:
        return sc._resampled(idx)
    return sc._resampled(idx, smooth_scores(y[idx], is_pos[idx], sc._bandwidths(h), gen))


class CellResampler(RootStreamSampler):
    """One resample of the samples as their user-order indices (with repeats, in the order
    drawn): the scheme of :meth:`Scores.bootstrap_sample` and
    :meth:`GroupScores.bootstrap_sample`.

    Every cell (all the samples, the classes, the groups, or group x class) is resampled
    on its own: ``n_c`` draws with replacement (``weights="multinomial"``), a Poisson(1)
    count per sample (``"poisson"``), ``floor(subsample * n_c)`` without replacement, or
    the whole-number counts of a user's ``sampler(rng, 1)`` (then one cell, all samples).
    :meth:`resample` draws from one generator until the resample has both classes (a
    user's draw without one is refused).  The generator is the seed's own,
    ``numpy.random.default_rng(root)`` (:class:`~mlci.engine.sampler.RootStreamSampler`),
    not a block stream keyed by ``(seed, stream, block)``: a seed gives the same resample
    as before the schemes moved here.
    """

    dense = False
    block_size = 1
    n_resamples = 1

    def __init__(
        self,
        cells: list[np.ndarray],
        n: int,
        *,
        root: Any = None,
        weights: str = "multinomial",
        subsample: float | None = None,
        user: Callable[[np.random.Generator, int], Any] | None = None,
    ) -> None:
        self.cells, self.m, self.weights, self.user = cells, n, weights, user
        self.root = root
        self._sub = None if subsample is None else subsample_counts(cells, subsample, n)[0]

    def draw(self, rng: np.random.Generator, b: int, out: Any = None) -> list[np.ndarray]:
        return [self._one(rng) for _ in range(b)]

    def _one(self, rng: np.random.Generator) -> np.ndarray:
        if self._sub is not None:
            return np.flatnonzero(self._sub(rng, 1)[0])
        if self.user is not None:
            c = np.asarray(self.user(rng, 1), dtype=float)
            if c.shape != (1, self.m):
                raise ValueError(
                    f"`sampler(rng, 1)` returned shape {c.shape}; expected (1, n_samples) = "
                    f"(1, {self.m})."
                )
            if not np.all(np.isfinite(c)) or np.any(c < 0) or np.any(c != np.round(c)):
                raise ValueError(
                    "`sampler(rng, 1)` must return whole, non-negative counts to build a "
                    "resample (fractional weights work in `bootstrap_ci` only)."
                )
            return np.repeat(np.arange(self.m), c[0].astype(np.intp))
        if self.weights == "poisson":
            return np.concatenate([np.repeat(c, rng.poisson(1.0, len(c))) for c in self.cells])
        return np.concatenate([rng.choice(c, len(c)) for c in self.cells])

    def resample(self, rng: np.random.Generator, is_pos: np.ndarray) -> np.ndarray:
        """One resample with both classes (drawn again while a class is missing)."""
        while True:
            idx = self.draw(rng, 1)[0]
            if is_pos[idx].any() and not is_pos[idx].all():
                return idx
            if self.user is not None:
                raise ValueError(
                    "The resample drawn by `sampler` lacks a class; a Scores object needs both."
                )


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
            kernel = PositivesFirst(kernel, lay.m[0])  # the classes drawn by label
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
        if rules and (part.name == "eer" or (spec.point is not None and part is parts[0])):
            score = score_rule(lay, spec.point, part.name, pick(estimate), iid, extra, clusters)
        if part.name == "auc":
            n_neg, n_pos = (c.sum() for c in lay.nobs)
            # auto's analytic interval (engine/auc_analytic.py) gives its own warning
            auc_score = scores_auc_score(lay, pick(estimate), iid) if rules else None
            warns = rules and auc_score is None
            few = warn_few_auc_class(n_pos, n_neg, method) if warns else None
            if few is None:  # the diagnostics always; the warning under the rules
                few = _clustered_auc(
                    plan, kernel, lay, pick(estimate), n_pos, n_neg, method, extra, warns
                )
            if few is None and warns:  # near the bound with 20-149 of a class
                few = warn_near_edge_auc(n_pos, n_neg, pick(estimate), method)
            if few is not None:
                extra["few_samples_warning"] = few
        with warnings.catch_warnings():
            for quiet in quiet_under(score, auc_score):  # an interval that replaces it
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
        if auc_score is not None:  # auto's analytic AUC interval
            res = with_auc_score(res, auc_score)
        results.append(res if score is None else with_score_interval(res, score, opts))
    return results


# ============================================================================ metric resolution
def _no_extra(name: str, kw: dict[str, Any], allowed: tuple[str, ...]) -> None:
    extra = sorted(set(kw) - set(allowed))
    if extra:
        hint = f" It takes {', '.join(repr(a) for a in allowed)}." if allowed else ""
        listed = ", ".join(f"`{e}`" for e in extra)
        raise TypeError(f"Unknown option(s) {listed} for metric {name!r}.{hint}")


def _operating_point_spec(
    sc: ScoreData, rate: str, x: str, at: Any, interpolation: str, *, with_threshold: bool = False
) -> _Spec:
    """``rate`` at the threshold where ``x`` equals ``at`` (and that threshold, jointly)."""
    rate = _RATE_ALIASES.get(rate, rate)
    x = _RATE_ALIASES.get(x, x)
    check_choice("rate", rate, _THRESHOLD_RATES)
    check_choice("x", x, _THRESHOLD_RATES)
    check_choice("interpolation", interpolation, _INTERPOLATIONS)
    r = _check_rate("at", at)
    lay, shape, sign = sc._lay, r.shape, sc._sign
    name = f"{rate}_at_{x}"

    def fn(v: _View) -> np.ndarray:
        if interpolation == "linear":  # along the ROC polyline: ranks only (issue 21)
            val = _roc_rate_at(lay, v, rate, x, r.reshape(-1)).reshape((v.b, *shape))
            if not with_threshold:
                return val
            tau = _tau_at_rate(lay, v, x, r.reshape(-1), interpolation)
        else:  # the rate at a real threshold, the score on one side
            tau = _tau_at_rate(lay, v, x, r.reshape(-1), interpolation)
            val = _rate_at_tau_rows(lay, v, rate, tau).reshape((v.b, *shape))
            if not with_threshold:
                return val
        return np.stack([val, (sign * tau).reshape((v.b, *shape))], -1)

    point = (rate, x, r)
    if not with_threshold:
        return _Spec(name, fn, shape, search=True, bounds=_RATE, point=point)
    parts = (_Part(name, _RATE), _Part(f"threshold_at_{x}", _UNBOUNDED))
    return _Spec(name, fn, (*shape, 2), search=True, parts=parts, point=point)


def _resolve(sc: ScoreData, metric: Any, kw: dict[str, Any]) -> _Spec:
    """Bind a metric name and its options to a Scores object."""
    if not isinstance(metric, str):
        raise TypeError(f"`metric` must be a metric name or a callable; got {metric!r}.")
    lay, sign = sc._lay, sc._sign
    name = _RATE_ALIASES.get(metric, metric)
    if name in ("eer", "eer_threshold", "eer_and_threshold"):
        _no_extra(name, kw, ())
        col = {"eer": 0, "eer_threshold": 1}.get(name)

        def fn_eer(v: _View) -> np.ndarray:
            out = _eer(lay, v) * np.array([1.0, sign])
            return out if col is None else out[:, col]

        if col is None:  # joint: the EER and its threshold from the same replicates
            parts = (_Part("eer", _RATE), _Part("eer_threshold", _UNBOUNDED))
            return _Spec(name, fn_eer, (2,), search=True, parts=parts)
        return _Spec(name, fn_eer, (), search=True, bounds=_RATE if col == 0 else _UNBOUNDED)
    if name in ("auc", "roc_auc"):
        _no_extra(name, kw, ())
        labels = np.concatenate([np.zeros(len(sc.neg)), np.ones(len(sc.pos))])
        z = sign * np.concatenate([sc.neg, sc.pos])
        # the AUC depends on the order only: dense ranks keep infinite scores (LLRs) valid
        kern = RocAucKernel(labels, np.unique(z, return_inverse=True)[1].astype(float))

        def fn_auc(v: _View) -> np.ndarray:
            return kern.evaluate(np.concatenate(v.w, axis=1))  # type: ignore[attr-defined]

        return _Spec("auc", fn_auc, (), search=False, full=True, bounds=_RATE)
    if name.startswith("threshold_at_"):
        rate = _RATE_ALIASES.get(name[len("threshold_at_") :], name[len("threshold_at_") :])
        if rate not in _THRESHOLD_RATES:
            raise ValueError(f"Unknown metric {metric!r}; thresholds exist at tpr, fnr, tnr, fpr.")
        _no_extra(name, kw, ("rate", "interpolation"))
        if "rate" not in kw:
            raise TypeError(f"{name!r} needs `rate=` (the target {rate}).")
        r = _check_rate("rate", kw["rate"])
        interp = check_choice("interpolation", kw.get("interpolation", "linear"), _INTERPOLATIONS)

        def fn_thr(v: _View) -> np.ndarray:
            tau = _tau_at_rate(lay, v, rate, r.reshape(-1), interp)
            return (sign * tau).reshape((v.b, *r.shape))

        return _Spec(f"threshold_at_{rate}", fn_thr, r.shape, search=True)
    if "_at_" in name:
        y, _, x = name.partition("_at_")
        if _RATE_ALIASES.get(y, y) in _THRESHOLD_RATES and _RATE_ALIASES.get(x, x) in (
            _THRESHOLD_RATES
        ):
            _no_extra(name, kw, ("at", "interpolation"))
            if "at" not in kw:
                raise TypeError(f"{name!r} needs `at=` (the value of {x} at the operating point).")
            return _operating_point_spec(sc, y, x, kw["at"], kw.get("interpolation", "linear"))
    if name in CM_METRICS:
        _no_extra(name, kw, ("threshold", "beta"))
        if "threshold" not in kw:
            raise TypeError(f"{name!r} is a rate at a threshold: pass `threshold=`.")
        t = _check_threshold(kw["threshold"])
        beta = _check_beta(kw.get("beta", 1.0))

        def fn_cm(v: _View) -> np.ndarray:
            cm = _counts_at(lay, v, sign * t.reshape(-1))
            return binary_cm_metric(cm, name, beta).reshape((v.b, *t.shape))

        return _Spec(name, fn_cm, t.shape, search=True, fixed=True, bounds=cm_metric_bounds(name))
    known = [
        "eer",
        "eer_threshold",
        "auc",
        "threshold_at_<tpr|fnr|tnr|fpr>",
        "<rate>_at_<rate>",
        *CM_METRICS,
    ]
    raise ValueError(f"Unknown metric {metric!r}; known metrics: {', '.join(known)}.")


def _check_beta(beta: Any) -> float:
    if isinstance(beta, bool) or not isinstance(beta, int | float | np.integer | np.floating):
        raise TypeError(f"`beta` must be a number >= 0; got {beta!r}.")
    if not (np.isfinite(beta) and beta >= 0):
        raise ValueError(f"`beta` must be a number >= 0; got {beta!r}.")
    return float(beta)


def _units_path(
    sc: ScoreData, spec: _Spec, kernel: Kernel, plan: Any, opts: Any, custom: Any
) -> tuple[Sampler, Callable[[Any], np.ndarray], float] | None:
    """The replicates as the conditions' draw counts (:mod:`mlci.scores._units`): for a
    statistic that only searches the counts (``spec.units``), whole conditions drawn in
    one stage, unweighted scores and a method without a jackknife.  The same draws and
    the same values as the atoms' weights; None where it does not apply."""
    if not (
        spec.units
        and custom is None
        and sc._w is None
        and opts.method in ("percentile", "basic")
        and isinstance(plan, ResamplingPlan)
        and plan.n_units is not None
        and plan.unit_of_sample is not None
        and not plan.two_stage
        and isinstance(kernel, _ScoresKernel)
    ):
        return None
    lay = sc._lay
    ul = _UnitsLayout.make(lay, kernel.keys, plan.unit_of_sample, plan.n_units)
    atoms = plan.weights_for(kernel.keys, kernel.m, atom_rank=kernel.atom_rank)
    if ul is None or not callable(getattr(atoms, "unit_counts", None)):
        return None
    shape = spec.shape

    def evaluate(u: np.ndarray) -> np.ndarray:
        return spec.fn(_UnitsView(lay, ul, u)).reshape((-1, *shape))

    size = int(np.prod(shape)) if shape else 1
    per_row = 8.0 * (plan.n_units + sum(t.shape[1] for t in ul.table) + 8.0 * size * ul.block)
    return UnitDraws(atoms, plan.n_units), evaluate, per_row


# ============================================================================ lazy driver
class _LazySampler(Sampler):
    """The lazy multinomial sampler: a block is a :class:`_LazyView` of ``b`` replicates
    whose cumulative counts are drawn on demand, from the block's own generator, while the
    statistic searches them (see the module docstring)."""

    dense = False

    def __init__(self, lay: _Layout, plan: Any, stratified: bool) -> None:
        self.lay = lay
        self.seed = plan.seed
        self.n_resamples = plan.n_resamples
        self.poisson = plan.poisson
        self.stratified = stratified
        self.m = lay.m[0] + lay.m[1]
        self.block_size = _LAZY_BLOCK

    def draw(self, rng: np.random.Generator, b: int, out: Any = None) -> _LazyView:
        n_neg, n_pos = int(self.lay.n[0]), int(self.lay.n[1])
        n = n_neg + n_pos
        if self.poisson:
            totals = (rng.poisson(n_neg, b), rng.poisson(n_pos, b))
        elif self.stratified:
            totals = (np.full(b, n_neg), np.full(b, n_pos))
        else:
            tp = rng.binomial(n, n_pos / n, b)
            totals = (n - tp, tp)
        return _LazyView(self.lay, totals, rng)


def _rescale_subsample(
    res: BootstrapResult, sub: dict[str, Any], smoothed: bool
) -> BootstrapResult:
    """The replicates of m-out-of-n subsamples rescaled to n, and the interval from them."""
    est = np.asarray(res.estimate, dtype=float)
    dist = est + sub["scale"] * (np.asarray(res.bootstrap_distribution, dtype=float) - est)
    scheme = f"subsample(m={sub['m']} of n={sub['n']})" + ("+smoothed" if smoothed else "")
    with np.errstate(all="ignore"):
        bias = np.nanmean(dist, axis=0) - est
        se = np.nanstd(dist, axis=0, ddof=1)
    scalar = np.ndim(res.estimate) == 0
    out = replace(
        res,
        bootstrap_distribution=dist,
        scheme=scheme,
        bias=float(bias) if scalar else bias,
        standard_error=float(se) if scalar else se,
    )
    return out.interval(method=res.method, confidence_level=res.confidence_level)
