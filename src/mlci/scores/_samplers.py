"""The samplers of :mod:`mlci.scores` beside the engine's: one resample of the samples
(:class:`CellResampler`, :func:`resample_scores`), the lazy multinomial sampler
(:class:`_LazySampler`), the conditions' draw counts (:func:`_units_path`), and the
rescaling of m-out-of-n subsamples (:func:`_rescale_subsample`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ..engine.custom import check_sampler
from ..engine.resampling import ResamplingPlan
from ..engine.sampler import RootStreamSampler, Sampler, UnitDraws
from ..engine.smoothing import check_smoothing, check_subsample, smooth_scores, subsample_counts
from ..inputs import check_choice, check_flag, check_rng_seed
from ..metrics import Kernel
from ..results import BootstrapResult
from ._data import _D, ScoreData
from ._kernels import _ScoresKernel
from ._roc import _LAZY_BLOCK, _Layout, _LazyView
from ._specs import _Spec
from ._units import _UnitsLayout, _UnitsView


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


class _LazySampler(Sampler):
    """The lazy multinomial sampler: a block is a :class:`_LazyView` of ``b`` replicates
    whose cumulative counts are drawn on demand, from the block's own generator, while the
    statistic searches them (:class:`~mlci.scores._roc._LazyView`)."""

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
