"""Nested conditions: resample the top level of a hierarchy, and optionally the levels below.

Data are often nested: recordings within sessions within speakers, sentences within
documents within sources.  A replicate draws the top-level units with replacement;
each drawn *copy* of a unit then either brings all its children (the level is not
resampled) or draws its children again with replacement, independently for every copy
(the level is resampled: the two-stage bootstrap of Davison & Hinkley 1997, sec. 3.8,
generalised to any depth).  A sample's weight is its bottom-level unit's multiplicity,
so weights multiply down the tree.  Drawing ``k_p`` children for each of ``U_p`` copies
of parent ``p`` is the same as drawing ``U_p * k_p`` children at once, which is how it is
vectorised over replicates.

Which levels to resample
------------------------
Resample the **top level only** (the default) when the units you want to generalise
to are the top-level ones (new speakers) and the lower levels are sampled within them
as in your data: the variance of a statistic under top-level resampling already
contains the lower levels' variance (Davison & Hinkley 1997, sec. 3.8; Field & Welsh
2007; Ren et al. 2010).  Resampling the lower levels as well counts their variance a
second time: intervals get wider (conservative), most visibly when the top-level
effect is small (see ``tests/test_nested.py``, a two-level coverage study, and
``docs/compare.md``).  Resample a lower level too only when the top level has very few
units (say fewer than 10: the top-level bootstrap then under-covers) and you accept a
conservative interval, or when the lower-level units themselves are a random draw you
want to generalise over and the top level is fixed (``resample_levels=(False, True)``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..inputs import (
    ArgSpec,
    check_choice,
    check_flag,
    check_positive_int,
    check_rng_seed,
    gather,
    is_nested,
    unique_inverse,
)
from .resampling import bind_atoms, resampling_plan
from .sampler import Sampler, block_generator, issparse

__all__ = ["NestedPlan", "is_nested", "make_nested_plan", "nested_plan", "plan_for_conditions"]


@dataclass(frozen=True, eq=False)
class NestedPlan:
    """A resampling plan over nested conditions, usable wherever a ``ResamplingPlan`` is.

    Build one with :func:`make_nested_plan`.  ``weights_for(keys, m)`` returns a sampler
    with the engine's interface (``block(j)``, ``iter_chunks``, ``jackknife_weights``...).

    Attributes
    ----------
    n_samples, n_resamples : int
    scheme : str
        E.g. ``"nested(3 levels; resampled: 1)"`` (levels numbered from the top, 1-based).
    unit_of_level : tuple of ndarray
        For each level, the unit index of every sample (units are paths from the top).
    parent_of_unit : tuple of ndarray
        For each level below the top, the parent unit of every unit.
    n_units_per_level : tuple of int
    resample : tuple of bool
    unit_of_sample : ndarray
        Bottom-level unit of every sample (what the engine aggregates over).
    n_units : int
        Number of bottom-level units.
    n_conditions : int
        Number of top-level units (reported as the conditions).
    """

    n_samples: int
    n_resamples: int
    scheme: str
    unit_of_level: tuple[np.ndarray, ...]
    parent_of_unit: tuple[np.ndarray, ...]
    n_units_per_level: tuple[int, ...]
    resample: tuple[bool, ...]
    seed: np.random.SeedSequence
    # the ResamplingPlan attributes the engine reads
    unit_of_sample: np.ndarray
    n_units: int
    n_conditions: int
    n_strata: None = None
    stratum_of_unit: None = None
    stratum_of_sample: None = None
    poisson: bool = False

    @property
    def two_stage(self) -> bool:
        """True when a level below the top is resampled (the engine sizes chunks with it)."""
        return any(self.resample[1:])

    def generator(self, stream: int, block: int) -> np.random.Generator:
        """The random generator of one block of one stream (a pure function of the seed)."""
        return block_generator(self.seed, stream, block)

    def weights_for(
        self,
        keys: np.ndarray | None = None,
        m: int | None = None,
        *,
        atom_rank: np.ndarray | None = None,
    ) -> NestedSampler:
        """Bind the plan to atoms (``keys[i]`` the atom of sample ``i``; None: one per sample).

        ``atom_rank`` is accepted for the interface of
        :meth:`~mlci.engine.resampling.ResamplingPlan.weights_for`: nested units are
        numbered from their sorted labels and drawn whole, so the draws never depend on
        the rows' order."""
        return NestedSampler(self, *bind_atoms(self.n_samples, keys, m))


class NestedSampler(Sampler):
    """Replicate counts over atoms for a :class:`NestedPlan`.

    Same interface as :class:`mlci.engine.resampling.AtomSampler`: ``counts``, ``m``, ``block(j)``,
    ``block_size``, ``n_blocks``, ``iter_chunks(rows)``, ``jackknife_weights(g)``,
    ``jackknife_rows(g)``.
    """

    def __init__(self, plan: NestedPlan, keys: np.ndarray, m: int) -> None:
        self.plan = plan
        self.seed = plan.seed
        self.n_resamples = plan.n_resamples
        self.keys = keys
        self.m = m
        n = plan.n_samples
        self.counts = np.bincount(keys, minlength=m).astype(float)
        bottom = plan.unit_of_sample
        if plan.n_units * m <= 4_000_000:
            t = np.bincount(bottom * m + keys, minlength=plan.n_units * m).astype(float)
            self._table: Any = t.reshape(plan.n_units, m)
        else:
            from scipy import sparse  # here: 0.11 s to import

            self._table = sparse.csr_matrix((np.ones(n), (bottom, keys)), shape=(plan.n_units, m))
            self._table.sum_duplicates()
        # children of every parent, contiguous: order, start, count
        self._children = []
        for lvl in range(1, len(plan.n_units_per_level)):
            parent = plan.parent_of_unit[lvl - 1]
            n_par = plan.n_units_per_level[lvl - 1]
            order = np.argsort(parent, kind="stable")
            k = np.bincount(parent, minlength=n_par)
            start = np.concatenate(([0], np.cumsum(k)[:-1]))
            self._children.append((order, start, k))
        n_units = sum(plan.n_units_per_level)
        table_cost = min(plan.n_units * m, n + m)
        draws = sum(plan.n_units_per_level[1:]) if plan.two_stage else 0
        cost = n_units + table_cost + 3 * draws
        self.block_size = int(np.clip((1 << 17) // max(cost, 1), 1, 512))
        self.draw_bytes = 8.0 * 5 * n * plan.two_stage
        # atom table of the highest resampled level, for the delete-one-unit jackknife
        lvl = plan.resample.index(True)
        self._jk_units = plan.n_units_per_level[lvl]
        from scipy import sparse

        self._top_table = sparse.csr_matrix(
            (np.ones(n), (plan.unit_of_level[lvl], keys)), shape=(self._jk_units, m)
        )

    def draw(self, rng: np.random.Generator, b: int, out: np.ndarray | None = None) -> np.ndarray:
        """Counts (b, m) of ``b`` replicates drawn from ``rng``."""
        plan = self.plan
        n_top = plan.n_units_per_level[0]
        if plan.resample[0]:
            draws = rng.integers(0, n_top, size=(b, n_top))
            u = np.bincount((draws + np.arange(b)[:, None] * n_top).ravel(), minlength=b * n_top)
            u = u.reshape(b, n_top)
        else:
            u = np.ones((b, n_top), dtype=np.int64)
        for lvl in range(1, len(plan.n_units_per_level)):
            if plan.resample[lvl]:
                u = self._draw_children(rng, u, lvl)
            else:
                u = u[:, plan.parent_of_unit[lvl - 1]]
        u = u.astype(float)
        table = self._table
        w = np.asarray(table.T @ u.T).T if issparse(table) else u @ table
        if out is not None:
            out[...] = w
            return out
        return w

    def _draw_children(self, rng: np.random.Generator, u: np.ndarray, lvl: int) -> np.ndarray:
        """Each of the ``u[r, p]`` copies of parent ``p`` draws its ``k_p`` children with
        replacement: ``u[r, p] * k_p`` uniform draws among them, in one vectorised pass."""
        order, start, k = self._children[lvl - 1]
        b, n_par = u.shape
        n_child = self.plan.n_units_per_level[lvl]
        reps = (u * k[None, :]).ravel()
        cell = np.repeat(np.arange(b * n_par), reps)
        par = cell % n_par
        row = cell // n_par
        offset = (rng.random(len(cell)) * k[par]).astype(np.intp)
        child = order[start[par] + offset]
        out = np.bincount(row * n_child + child, minlength=b * n_child)
        return out.reshape(b, n_child)

    def jackknife_weights(self, max_groups: int) -> tuple[np.ndarray, np.ndarray]:
        """Delete-one-unit jackknife weights (see :meth:`jackknife_rows`)."""
        g, mult, rows = self.jackknife_rows(max_groups)
        return rows(0, g), mult

    def jackknife_rows(
        self, max_groups: int
    ) -> tuple[int, np.ndarray, Callable[[int, int], np.ndarray]]:
        """The jackknife rows made on demand: ``(g, mult, rows(a, b))``.

        One unit of the highest resampled level (the top level by default) is deleted at
        a time; above ``max_groups`` units, random groups of units.
        """
        n_top = self._jk_units
        removed = self._top_table
        if n_top > max_groups:
            from scipy import sparse

            group = self.random_groups(n_top, max_groups)
            ind = sparse.csr_matrix(
                (np.ones(n_top), (group, np.arange(n_top))), shape=(max_groups, n_top)
            )
            removed = ind @ removed
        g = removed.shape[0]

        def rows(a: int, b: int) -> np.ndarray:
            return self.counts[None, :] - removed[a:b].toarray()

        return g, np.ones(g), rows


def make_nested_plan(
    n_samples: int,
    levels: Sequence[Any],
    *,
    resample_levels: Any = ("top",),
    n_resamples: int = 1000,
    rng: Any = None,
) -> NestedPlan:
    """Build a resampling plan over nested conditions (top level first).

    Parameters
    ----------
    n_samples : int
    levels : sequence of array-like, each of shape (n_samples,)
        The condition of every sample at each level, from the top (e.g.
        ``[speaker, session, recording]``).  Units are paths from the top, so a session
        label reused by two speakers is two different sessions.
    resample_levels : ("top",), "all", or tuple of bool
        Which levels are resampled.  ``("top",)`` (default): only the top level; lower
        levels come whole with their drawn parent.  ``"all"``: every level, each drawn
        copy of a unit resampling its children.  A tuple of booleans (one per level)
        chooses freely; a level not resampled is inherited whole from its parent.
    n_resamples : int, default 1000
    rng : None, int, Generator or SeedSequence

    Returns
    -------
    NestedPlan
        Pass it to :func:`mlci.engine.bootstrap.run_bootstrap` like a ``ResamplingPlan``.

    Examples
    --------
    >>> import numpy as np
    >>> from mlci.engine.nested import make_nested_plan
    >>> from mlci.engine.bootstrap import run_bootstrap
    >>> from mlci.metrics import get_kernel
    >>> rng = np.random.default_rng(0)
    >>> speaker = np.repeat(np.arange(20), 10)
    >>> session = np.tile(np.repeat([0, 1], 5), 20)
    >>> loss = rng.normal(1.0, 0.3, 200) + 0.3 * rng.normal(size=20)[speaker]
    >>> plan = make_nested_plan(200, [speaker, session], n_resamples=500, rng=1)
    >>> res = run_bootstrap(get_kernel("mean", (loss,), {}), plan, method="percentile")
    >>> res.scheme, res.n_conditions
    ('nested(2 levels; resampled: 1)', 20)
    """
    n_samples = check_positive_int("n_samples", n_samples)
    n_resamples = check_positive_int("n_resamples", n_resamples)
    if isinstance(levels, np.ndarray) and levels.ndim == 1:
        levels = [levels]
    if not isinstance(levels, Sequence | np.ndarray) or len(levels) == 0:
        raise ValueError(
            "`levels` must be a list of per-sample condition arrays, top level first, e.g. "
            "[speaker, session]."
        )
    n_lv = len(levels)
    if isinstance(resample_levels, str):
        resample_levels = (resample_levels,)
    rl = tuple(resample_levels)
    if rl == ("top",):
        resample = (True,) + (False,) * (n_lv - 1)
    elif rl == ("all",):
        resample = (True,) * n_lv
    elif len(rl) == n_lv and all(isinstance(v, bool | np.bool_) for v in rl):
        resample = tuple(bool(v) for v in rl)
    else:
        raise ValueError(
            f"`resample_levels` must be ('top',), 'all' or a tuple of {n_lv} booleans (one per "
            f"level); got {resample_levels!r}."
        )
    if not any(resample):
        raise ValueError("`resample_levels` resamples no level; at least one must be True.")
    # the levels through the input gate: aligned, one type each, no missing value
    g = gather(
        {f"levels[{i}]": ArgSpec("groups", required=True) for i in range(n_lv)},
        {f"levels[{i}]": lv for i, lv in enumerate(levels)},
    )
    if g.n_samples != n_samples:
        raise ValueError(
            f"`levels[0]` must have one entry per sample: {n_samples} expected, got {g.n_samples}."
        )
    return nested_plan(
        n_samples, list(g.arrays.values()), resample, n_resamples, check_rng_seed(rng)
    )


def nested_plan(
    n_samples: int,
    levels: list[np.ndarray],
    resample: tuple[bool, ...],
    n_resamples: int,
    seed: np.random.SeedSequence,
) -> NestedPlan:
    """The :class:`NestedPlan` of validated arguments: the levels as the input gate returns
    them (aligned arrays, top level first), which levels are resampled (one bool each),
    the seed (the driver's).  :func:`make_nested_plan` validates, then calls this."""
    n_lv = len(levels)
    units: list[np.ndarray] = []
    parents: list[np.ndarray] = []
    counts: list[int] = []
    prev = np.zeros(n_samples, dtype=np.int64)
    for i, arr in enumerate(levels):
        lab = unique_inverse(arr).astype(np.int64)
        path = prev * (int(lab.max()) + 1) + lab
        uniq, unit = np.unique(path, return_inverse=True)
        unit = unit.reshape(-1).astype(np.intp)
        if i > 0:
            par = np.zeros(len(uniq), dtype=np.intp)
            par[unit] = units[-1]
            parents.append(par)
        units.append(unit)
        counts.append(len(uniq))
        prev = unit.astype(np.int64)
    if counts[0] < 2 and resample[0]:
        raise ValueError(
            "`levels[0]` (the top level) has a single distinct value: resampling it needs at "
            "least two units (ideally dozens)."
        )
    which = ", ".join(str(i + 1) for i, r in enumerate(resample) if r)
    return NestedPlan(
        n_samples=n_samples,
        n_resamples=n_resamples,
        scheme=f"nested({n_lv} levels; resampled: {which})",
        unit_of_level=tuple(units),
        parent_of_unit=tuple(parents),
        n_units_per_level=tuple(counts),
        resample=resample,
        seed=seed,
        unit_of_sample=units[-1],
        n_units=counts[-1],
        n_conditions=counts[0],
    )


def plan_for_conditions(
    n_samples: int,
    *,
    conditions: Any = None,
    strata: Any = None,
    two_stage: bool = False,
    weights: str = "multinomial",
    n_resamples: int = 1000,
    rng: Any = None,
) -> Any:
    """The resampling plan of a driver's validated design, nested conditions included.

    ``conditions`` (one array, or a list of arrays for nested conditions, top level first)
    and ``strata`` are the arrays the input gate returned (:func:`mlci.inputs.gather_design`:
    aligned, no missing value): they are not gathered again.  ``rng`` is the driver's
    seed (``BootstrapOptions.seed``; converted here once otherwise).  Nested
    ``conditions`` give a :class:`NestedPlan` resampling the top level (every level with
    ``two_stage=True``); anything else a :class:`~mlci.engine.resampling.ResamplingPlan`.
    """
    two_stage = check_flag("two_stage", two_stage)
    n_resamples = check_positive_int("n_resamples", n_resamples)
    seed = check_rng_seed(rng)
    if not is_nested(conditions):
        check_choice("weights", weights, ("multinomial", "poisson"))
        return resampling_plan(
            n_samples,
            conditions=None if conditions is None else np.asarray(conditions),
            strata=None if strata is None else np.asarray(strata),
            two_stage=two_stage,
            weights=weights,
            n_resamples=n_resamples,
            seed=seed,
        )
    if strata is not None or weights != "multinomial":
        raise ValueError(
            "Nested `conditions` (a list of per-sample arrays, top level first) support "
            "neither `strata` nor `weights='poisson'`; drop those options or pass a single "
            "level of conditions."
        )
    levels = [np.asarray(c) for c in conditions]
    # the top level only, or every level (two-stage): one bool per level
    resample = (True,) + (two_stage,) * (len(levels) - 1)
    if levels[0].shape[0] != n_samples:  # the gate aligned the levels with each other
        raise ValueError(
            f"`conditions` must have one entry per sample: {n_samples} expected, got "
            f"{levels[0].shape[0]}."
        )
    return nested_plan(n_samples, levels, resample, n_resamples, seed)
