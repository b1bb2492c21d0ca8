"""Resampling plans: bootstrap replicates as weights, never as copies of the data.

A replicate is a vector of counts: how many times each sample (or each condition) is
drawn.  Metrics only ever see those counts, aggregated over *atoms*: groups of samples
that are interchangeable for the metric (e.g. every sample whose (label, prediction)
pair is (1, 0) is the same atom for a confusion-matrix metric).  Drawing the atoms'
counts is exactly the same bootstrap as drawing the samples, at a cost that grows
with the number of atoms instead of the number of samples:

* iid: the counts of ``m`` atoms holding ``c_1..c_m`` samples follow
  ``Multinomial(n, c / n)``, the law of the counts when ``n`` samples are drawn with
  replacement;
* conditions (speakers, sessions, documents): conditions are drawn with replacement
  and a drawn condition brings all its samples, so the atom counts are
  ``U @ T`` with ``U`` the condition counts and ``T`` the per-condition atom table;
* two-stage conditions: inside each drawn copy of a condition its samples are drawn
  again with replacement;
* strata: the above inside each stratum, keeping every stratum's size;
* Poisson(1) weights (``weights="poisson"``): every sample (or condition) gets an
  independent Poisson(1) count; atom counts are then Poisson(c_k).

Reproducibility: replicates are generated in fixed *blocks*; block ``j`` has its own
random generator seeded by ``(seed, stream, j)``.  The block size depends only on the
data, so a seed gives the same replicates whatever the chunk size or number of threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import FewConditionsWarning
from ..feedback import warn
from ..inputs import (
    ArgSpec,
    check_choice,
    check_flag,
    check_positive_int,
    check_rng_seed,
    gather,
)
from ..inputs.encoding import fast_unique, unique_inverse
from .effective_conditions import few_effective_conditions, few_effective_conditions_text
from .sampler import Sampler, block_generator, issparse

__all__ = [
    "FEW_CONDITIONS",
    "AtomSampler",
    "ResamplingPlan",
    "fast_unique",
    "make_plan",
    "resampling_plan",
    "scheme_name",
    "table_plan",
    "unique_inverse",
    "warn_few_conditions",
]

#: below this many conditions, a bootstrap over conditions warns (FewConditionsWarning)
FEW_CONDITIONS = 20


def warn_few_conditions(n_conditions: int, effective: float | None = None) -> None:
    """Warn when conditions are resampled but fewer than :data:`FEW_CONDITIONS`, or when
    they weigh like fewer than
    :data:`~mlci.engine.effective_conditions.MIN_EFFECTIVE_CONDITIONS` (Kish's
    ``effective`` number of conditions, None: unknown)."""
    if n_conditions >= FEW_CONDITIONS and few_effective_conditions(effective):
        warn(
            few_effective_conditions_text(float(effective or 0.0), n_conditions)
            + ". Treat this bootstrap interval as optimistic.",
            FewConditionsWarning,
        )
    if n_conditions < FEW_CONDITIONS:
        warn(
            f"Only {n_conditions} conditions are resampled: with fewer than about "
            f"{FEW_CONDITIONS} this bootstrap interval is too narrow (95% intervals cover "
            "about 90% of the time with 10-12 conditions, docs/validation.md). "
            "method='auto' (the default) picks an interval that holds from 8 conditions on; "
            "otherwise treat it as optimistic, or collect more conditions.",
            FewConditionsWarning,
        )


#: elements drawn per RNG block; sets the block size from the per-replicate cost
_BLOCK_ELEMENTS = 1 << 17
_MAX_BLOCK = 512


@dataclass(frozen=True, eq=False)
class ResamplingPlan:
    """What is resampled and how; generates replicate weights over atoms, block by block.

    Build one with :func:`make_plan`.  ``weights_for(keys, m)`` binds the plan to an atom
    assignment (``keys[i]`` is the atom of sample ``i``) and returns an
    :class:`AtomSampler` that yields ``(b, m)`` count matrices.

    Attributes
    ----------
    n_samples : int
    n_resamples : int
    scheme : str
        ``"iid"``, ``"strata"``, ``"conditions"``, ``"conditions-within-strata"``, with
        ``"-two-stage"`` and ``"+poisson"`` marking the options.
    unit_of_sample : ndarray of int or None
        Index of each sample's resampled unit (condition, or (stratum, condition) pair).
    n_units : int or None
        Number of units (conditions) when conditions are given.
    stratum_of_sample : ndarray of int or None
    n_strata : int or None
    n_conditions : int or None
        Number of distinct condition labels.
    two_stage : bool
    poisson : bool
    seed : numpy.random.SeedSequence
    """

    n_samples: int
    n_resamples: int
    scheme: str
    unit_of_sample: np.ndarray | None
    n_units: int | None
    stratum_of_unit: np.ndarray | None
    stratum_of_sample: np.ndarray | None
    n_strata: int | None
    n_conditions: int | None
    two_stage: bool
    poisson: bool
    seed: np.random.SeedSequence

    def generator(self, stream: int, block: int) -> np.random.Generator:
        """The random generator of one block of one stream (a pure function of the seed)."""
        return block_generator(self.seed, stream, block)

    def weights_for(
        self,
        keys: np.ndarray | None = None,
        m: int | None = None,
        *,
        atom_rank: np.ndarray | None = None,
    ) -> AtomSampler:
        """Bind the plan to atoms: ``keys[i]`` in ``[0, m)`` is the atom of sample ``i``.

        ``keys=None`` means every sample is its own atom (per-sample weights).
        ``atom_rank`` (shape (m,)): a canonical order of the atoms (``Kernel.atom_rank``,
        e.g. the ranking kernels' order by score).  The draws that go through the samples
        (iid or within strata below the multinomial threshold, the second stage of
        two-stage plans, the grouped jackknife) then go through them in that order
        instead of the rows', so that a seed gives the same replicates for any order of
        the rows.  The law of the counts is the same either way (the samples of one atom
        are exchangeable).
        """
        return AtomSampler(self, *bind_atoms(self.n_samples, keys, m), atom_rank=atom_rank)

    def weights_for_table(
        self, group: np.ndarray | None, keys: np.ndarray, counts: np.ndarray, m: int
    ) -> AtomSampler:
        """Bind the plan to a reduced table: row ``r`` holds ``counts[r]`` samples of atom
        ``keys[r]`` in unit (with conditions) or stratum (without) ``group[r]``.

        The table is what a data engine computes with one ``GROUP BY`` (see
        :mod:`mlci.backends`).  Replicates are the same as :meth:`weights_for` on the
        per-sample arrays would draw whenever those are drawn from the table's counts
        alone: with conditions (any size), and iid or within strata when ``16 * m <= n``
        (the multinomial draw); below that, the iid draw from a table is the multinomial
        one (same law, other numbers).  Two-stage plans need the samples' order and are
        refused.
        """
        if self.two_stage:
            raise ValueError(
                "`two_stage=True` resamples the samples inside each condition, which needs "
                "every sample; a reduced table holds only counts. Load the data in memory."
            )
        return AtomSampler(self, None, int(m), table=(group, keys, counts))


def bind_atoms(n_samples: int, keys: Any, m: int | None) -> tuple[np.ndarray, int]:
    """Validated atom keys and their count (``keys=None``: one atom per sample)."""
    if keys is None:
        return np.arange(n_samples, dtype=np.intp), n_samples
    keys = np.asarray(keys, dtype=np.intp)
    return keys, int(keys.max()) + 1 if m is None else int(m)


#: cells counted at once by :func:`local_uniform_counts` (int64 counts: 256 KiB, in cache)
_LOCAL_CELLS = 1 << 15
#: above this many cells, one bincount over all of them misses the cache: count by blocks
_GLOBAL_CELLS = 1 << 19


def local_uniform_counts(
    rng: np.random.Generator, b: int, n: int, out: np.ndarray | None = None
) -> np.ndarray:
    """Counts ``(b, n)`` (float) of ``n`` draws with replacement among ``n`` cells, per row.

    The draws are split by blocks of :data:`_LOCAL_CELLS` cells: the number of draws in
    each block is multinomial (probabilities the blocks' sizes over ``n``), then each
    block's draws are counted with a bincount of the block alone.  This is exactly the
    law of one bincount of ``n`` uniform draws (a multinomial's counts, grouped and then
    split), but every scatter stays inside a block that fits in cache, where one
    bincount over ``n`` cells misses the cache (and the TLB) on nearly every draw: 3-4x
    faster at ``n = 2 * 10^6``.

    Examples
    --------
    >>> c = local_uniform_counts(np.random.default_rng(0), 2, 100_000)
    >>> c.shape, c.sum(axis=1).tolist()
    ((2, 100000), [100000.0, 100000.0])
    """
    starts = np.arange(0, n, _LOCAL_CELLS)
    sizes = np.diff(np.append(starts, n))
    if out is None:
        out = np.empty((b, n))
    for r in range(b):
        per_block = rng.multinomial(n, sizes / n)
        for a, size, k in zip(starts, sizes, per_block, strict=True):
            out[r, a : a + size] = np.bincount(
                rng.integers(0, size, k, dtype=np.intp), minlength=size
            )
    return out


class AtomSampler(Sampler):
    """Replicate counts over ``m`` atoms for one plan (see :meth:`ResamplingPlan.weights_for`).

    Attributes
    ----------
    counts : ndarray, shape (m,)
        Number of samples in each atom (the weights of the original data).
    block_size : int
        Replicates per RNG block.
    """

    #: (every scheme's draw writes into a given ``out``)
    fills_out = True

    def __init__(
        self,
        plan: ResamplingPlan,
        keys: np.ndarray | None,
        m: int,
        *,
        table: tuple[np.ndarray | None, np.ndarray, np.ndarray] | None = None,
        atom_rank: np.ndarray | None = None,
    ) -> None:
        self.plan = plan
        self.seed = plan.seed
        self.n_resamples = plan.n_resamples
        self.keys = keys
        self.m = m
        n = plan.n_samples
        # the per-sample arrays, or a reduced table: rows (group, atom, count), where the
        # group is the unit (with conditions) or the stratum; per-sample: one row a sample
        if table is None:
            assert keys is not None
            group = plan.unit_of_sample if plan.n_units is not None else plan.stratum_of_sample
            row_keys, row_counts = keys, None
        else:
            group, row_keys, row_counts = table
            row_keys = np.asarray(row_keys, dtype=np.intp)
            row_counts = np.asarray(row_counts, dtype=float)
        self.counts = np.bincount(row_keys, weights=row_counts, minlength=m).astype(float)
        # the atoms in their canonical order (atom_rank inverted), for per-sample draws
        # (found when a draw or the jackknife needs them: over units, only the jackknife)
        self._atom_rank = atom_rank if table is None else None
        self._tls = threading.local()
        self._table: Any = None
        self._table_args: Any = None
        self._table_lock = threading.Lock()
        # atoms that each lie inside a single unit: replicate counts are then a gather
        self._atom_unit: np.ndarray | None = None
        if plan.n_units is not None:
            # per-unit atom table T (n_units, m): dense when small, sparse otherwise
            n_units = plan.n_units
            assert group is not None
            # an atom whose samples all share one unit: w[:, a] = u[:, unit(a)] * c_a, a
            # gather instead of a product (the (condition, cell) atoms of the linearized
            # methods are all of this kind, however many)
            atom_unit = np.full(m, -1, dtype=np.intp)
            atom_unit[row_keys] = group
            gather = bool((atom_unit[row_keys] == group).all())
            if gather and (m >= n_units or n_units * m > 4_000_000):
                self._atom_unit = atom_unit
                self._atom_single = bool((self.counts == 1).all())
            if n_units * m <= 4_000_000 and self._atom_unit is None:
                t = np.bincount(group * m + row_keys, weights=row_counts, minlength=n_units * m)
                self._table = t.astype(float).reshape(n_units, m)
            else:
                table_args = (row_counts, group, row_keys, n_units, m)
                if self._atom_unit is None:
                    self._table = _sparse_table(*table_args)
                else:
                    # the gather draws without it: only the jackknife needs it (built
                    # on first use, once; 57 MiB at 5e6 samples)
                    self._table_args = table_args
            if plan.two_stage:
                # samples grouped by unit, for drawing inside each drawn unit (two-stage
                # plans have per-sample arrays: weights_for_table refuses them)
                assert keys is not None and plan.unit_of_sample is not None
                order = (
                    np.argsort(plan.unit_of_sample, kind="stable")
                    if atom_rank is None
                    else np.lexsort((np.asarray(atom_rank)[keys], plan.unit_of_sample))
                )
                self._unit_order_keys = keys[order]
            sizes = np.bincount(group, weights=row_counts, minlength=n_units).astype(np.intp)
            self._unit_sizes = sizes
            self._unit_starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
            # the block size depends on the plan only (not on the atoms), so that samplers
            # of one plan with different keys see the same condition draws
            # (x8: a block may be cut into row ranges, each drawing the block's units again)
            cost = 8 * n_units + (n if plan.two_stage else 0)
            self._mode = "units"
        else:
            self._strata: list[np.ndarray | None]
            if group is not None:
                self._strata = [np.flatnonzero(group == j) for j in range(plan.n_strata or 0)]
            else:
                self._strata = [None]
            # multinomial over atoms is cheaper than drawing n indices when atoms are few
            # (and the only draw a reduced table allows)
            self._use_multinomial = plan.poisson or 16 * m <= n or table is not None
            self._stratum_counts = [
                np.bincount(
                    row_keys if idx is None else row_keys[idx],
                    weights=None if row_counts is None or idx is None else row_counts[idx],
                    minlength=m,
                ).astype(float)
                if row_counts is None or idx is not None
                else self.counts
                for idx in self._strata
            ]
            self._stratum_sizes = [round(float(c.sum())) for c in self._stratum_counts]
            # atom of each sample of each stratum; None where it is the sample itself
            identity = table is None and m == n and bool((row_keys == np.arange(n)).all())
            self._stratum_keys: list[np.ndarray | None] = [
                (None if identity else keys) if idx is None else row_keys[idx]
                for idx in self._strata
            ]
            # every atom holds one sample (e.g. distinct scores) and there are many: draw in
            # atom order, cache-locally (local_uniform_counts).  n draws over the samples,
            # mapped to atoms by a bijection, have the law of n draws over the atoms; the
            # draws then no longer say which *sample* was drawn (a kernel with other atoms
            # on the same plan sees other replicates), but a random gather and a random
            # n-cell scatter per replicate are spared: 2-3x faster at n >= 10^6.
            self._atom_order = (
                table is None
                and self._strata == [None]
                and m == n > _LOCAL_CELLS
                and bool((self.counts == 1).all())
            )
            if self._atom_order:
                self._stratum_keys = [None]
            elif self._atom_rank is not None:
                ranked = self._ranked()
                # a stratum's samples in the atoms' canonical order: n uniform draws over
                # them mapped to atoms have the same law as over the rows as given, and do
                # not depend on the rows' order (the atoms in rank order, each repeated by
                # its count: O(n + m), no sort of the samples)
                self._stratum_keys = [
                    np.repeat(ranked, c[ranked].astype(np.intp)) for c in self._stratum_counts
                ]
            cost = m * len(self._strata) if self._use_multinomial else n
            self._mode = "samples"
        self.block_size = int(np.clip(_BLOCK_ELEMENTS // max(cost, 1), 1, _MAX_BLOCK))
        self.unit_is_sample = plan.unit_of_sample is None
        # drawing n sample indices per replicate (iid without the multinomial, two-stage)
        draws_indices = not self._use_multinomial if self._mode == "samples" else plan.two_stage
        self.draw_bytes = 8.0 * 5 * n * draws_indices

    def _ranked(self) -> np.ndarray:
        """The atoms in their canonical order (``atom_rank`` inverted)."""
        assert self._atom_rank is not None
        ranked = np.empty(self.m, dtype=np.intp)
        ranked[np.asarray(self._atom_rank, dtype=np.intp)] = np.arange(self.m)
        return ranked

    @property
    def _jack_keys(self) -> np.ndarray | None:
        """The samples' atoms the grouped jackknife deals into groups (canonical order;
        found when asked: an array of the samples' size)."""
        if self.keys is None or self._atom_rank is None:
            return self.keys
        ranked = self._ranked()
        return np.repeat(ranked, self.counts[ranked].astype(np.intp))

    @property
    def atom_unit(self) -> np.ndarray | None:
        """The unit of every atom when each atom's samples lie in one unit and the
        replicates' counts are a gather of the units' (else None); -1 for an atom without
        samples.  Read-only use: it is the sampler's own."""
        return self._atom_unit

    # ------------------------------------------------------------------ drawing
    @property
    def splits_blocks(self) -> bool:  # type: ignore[override]
        # one-stage conditions: a row range redraws only the block's condition counts
        return self._mode == "units" and not self.plan.two_stage

    def draw_rows(
        self,
        rng: np.random.Generator,
        b: int,
        rows: tuple[int, int],
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        """Counts (r1 - r0, m), float, of rows ``r0:r1`` of the block of ``b`` replicates
        drawn from ``rng`` (the whole block: the inherited :meth:`draw`)."""
        r0, r1 = rows
        if out is None:
            out = np.empty((r1 - r0, self.m))
        if self.splits_blocks:
            self._draw_units(rng, b, out, r0, r1)
        elif (r0, r1) != (0, b):
            out[...] = self.draw(rng, b)[r0:r1]
        elif self._mode == "samples":
            self._draw_samples(rng, b, out)
        else:
            self._draw_units(rng, b, out, 0, b)
        return out

    def _draw_samples(self, rng: np.random.Generator, b: int, out: np.ndarray) -> None:
        m = self.m
        if self.plan.poisson:
            # a sum of c independent Poisson(1) counts is Poisson(c)
            out[...] = rng.poisson(self.counts, size=(b, m))
            return
        if self._use_multinomial:
            total: np.ndarray | None = None
            for cnt, n_s in zip(self._stratum_counts, self._stratum_sizes, strict=True):
                part = rng.multinomial(n_s, cnt / n_s, size=b)
                if total is None:
                    total = part
                else:
                    total += part
            out[...] = total
            return
        # the counts of the index draws, added in place (floats: exact integers)
        in_place = out.flags.c_contiguous
        counts = out.reshape(-1) if in_place else np.empty(b * m)
        counts.fill(0.0)
        for keys, n_s in zip(self._stratum_keys, self._stratum_sizes, strict=True):
            if keys is None and n_s > _GLOBAL_CELLS:
                # one atom per sample, more than a cache can count at once: block by block
                local_uniform_counts(rng, b, n_s, out)
                return
            # n_s sample indices per replicate, mapped to atoms and counted in one scatter
            # (intp draws: no cast before the gather and the count)
            flat = rng.integers(0, n_s, size=(b, n_s), dtype=np.intp)
            if keys is not None:
                # np.take is faster than keys[flat]; into a per-thread scratch buffer, as
                # fresh multi-megabyte arrays cost page faults on every replicate
                # (mode="wrap": the indices are in range, and "raise" copies into `out`)
                flat = np.take(keys, flat, out=self._scratch(b * n_s).reshape(b, n_s), mode="wrap")
            if b > 1:
                flat += (np.arange(b, dtype=np.intp) * m)[:, None]
            # np.add.at straight into the float counts: the numbers of a bincount, without
            # its integer array, its pass for the largest index and the copy into `out`
            # (0.10 -> 0.085 s of CPU for 10,000 replicates of 3,000 samples in 2,865
            # atoms, mlci mt ci)
            np.add.at(counts, flat.reshape(-1), 1.0)
        if not in_place:
            out[...] = counts.reshape(b, m)

    def unit_counts(self, rng: np.random.Generator, b: int) -> np.ndarray:
        """Counts of the units (conditions) in ``b`` replicates, shape (b, n_units)."""
        plan = self.plan
        n_units = plan.n_units
        assert n_units is not None
        if plan.poisson:
            return rng.poisson(1.0, size=(b, n_units)).astype(float)
        u = np.zeros((b, n_units))
        groups = (
            [np.arange(n_units)]
            if plan.stratum_of_unit is None
            else [np.flatnonzero(plan.stratum_of_unit == s) for s in range(plan.n_strata or 0)]
        )
        rows = np.arange(b)[:, None]
        for members in groups:
            k = len(members)
            draws = rng.integers(0, k, size=(b, k))
            cnt = np.bincount((draws + rows * k).ravel(), minlength=b * k).reshape(b, k)
            u[:, members] = cnt
        return u

    def _draw_units(
        self, rng: np.random.Generator, b: int, out: np.ndarray, r0: int, r1: int
    ) -> None:
        u = self.unit_counts(rng, b)
        m = self.m
        if not self.plan.two_stage:
            self.atoms_of_units(u[r0:r1], out)
            return
        # two-stage: each drawn copy of a unit resamples that unit's samples with
        # replacement; all the block's replicates are drawn in one vectorised pass
        sizes, starts = self._unit_sizes, self._unit_starts
        copies = u.astype(np.intp)
        reps = (copies * sizes).ravel()
        unit_rep = np.repeat(np.tile(np.arange(len(sizes)), b), reps)
        row = np.repeat(np.arange(b, dtype=np.intp), reps.reshape(b, -1).sum(axis=1))
        pos = starts[unit_rep] + rng.integers(0, sizes[unit_rep])
        flat = np.take(self._unit_order_keys, pos)
        flat += row * m
        out[...] = np.bincount(flat, minlength=b * m).reshape(b, m)

    def atoms_of_units(self, u: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Atom counts (b, m) of replicates that draw whole units ``u`` times, ``u`` of
        shape (b, n_units) (one-stage conditions: what :meth:`draw` returns for the unit
        counts :meth:`unit_counts` draws)."""
        if out is None:
            out = np.empty((u.shape[0], self.m))
        if self._atom_unit is not None:
            # every atom inside one unit: a gather instead of a product ("wrap": the
            # indices are in range, -1 (an atom without samples) the last unit as in
            # "raise", which would gather into a temporary copy of `out` first)
            np.take(u, self._atom_unit, axis=1, out=out, mode="wrap")
            if not self._atom_single:
                out *= self.counts
        elif not issparse(self._table):
            np.matmul(u, self._table, out=out)
        else:
            out[...] = (self._table.T @ u.T).T
        return out

    def _unit_table(self) -> Any:
        """The (n_units, m) counts of every atom in every unit (built once, thread-safe)."""
        if self._table is None:
            with self._table_lock:
                if self._table is None:
                    self._table = _sparse_table(*self._table_args)
                    self._table_args = None
        return self._table

    def _scratch(self, size: int) -> np.ndarray:
        """A reusable intp buffer of at least ``size`` elements, private to this thread."""
        buf = getattr(self._tls, "buf", None)
        if buf is None or buf.size < size:
            buf = np.empty(size, dtype=np.intp)
            self._tls.buf = buf
        return buf[:size]

    # ---------------------------------------------------------------- jackknife
    def jackknife_weights(self, max_groups: int) -> tuple[np.ndarray, np.ndarray]:
        """Delete-one (or delete-one-group) jackknife weights over atoms.

        Returns ``(W, mult)``: ``W`` (g, m) counts with one unit (or group) removed and
        ``mult`` (g,) how many jackknife replicates each row stands for (atoms with the
        same content give identical delete-one replicates, so they are evaluated once).

        With conditions, units are conditions; otherwise samples.  When there are more
        units than ``max_groups``, units are split at random into ``max_groups`` groups
        of (nearly) equal size and one group is deleted at a time (grouped jackknife),
        so that BCa never costs O(n^2).  :meth:`jackknife_rows` gives the same rows
        chunk by chunk, without holding the (g, m) matrix.
        """
        n_rows, mult, rows = self.jackknife_rows(max_groups)
        return rows(0, n_rows), mult

    def jackknife_rows(
        self, max_groups: int
    ) -> tuple[int, np.ndarray, Callable[[int, int], np.ndarray]]:
        """The rows of :meth:`jackknife_weights`, made on demand.

        Returns ``(g, mult, rows)`` where ``rows(a, b)`` is the dense ``(b - a, m)``
        block of jackknife weights; the removed counts are held sparse, so memory is
        O(n + (b - a) * m) whatever the number of rows.
        """
        from scipy import sparse  # here: 0.11 s to import

        plan = self.plan
        counts = self.counts
        removed: Any
        if self._mode == "units":
            n_units = plan.n_units
            assert n_units is not None
            table = self._unit_table()
            if n_units <= max_groups:
                removed = table
            else:
                group = self.random_groups(n_units, max_groups)
                ind = sparse.csr_matrix(
                    (np.ones(n_units), (group, np.arange(n_units))), shape=(max_groups, n_units)
                )
                removed = ind @ table
            g = removed.shape[0]
            mult = np.ones(g)
        elif self.m <= max_groups or self.keys is None:
            # (a reduced table has no samples to deal into groups: the exact delete-one
            # jackknife, one row per present atom)
            present = np.flatnonzero(counts > 0)
            g = len(present)

            def rows_present(a: int, b: int) -> np.ndarray:
                w = np.repeat(counts[None, :], b - a, axis=0)
                w[np.arange(b - a), present[a:b]] -= 1.0
                return w

            return g, counts[present], rows_present
        else:
            group = self.random_groups(plan.n_samples, max_groups)
            removed = sparse.csr_matrix(
                (np.ones(plan.n_samples), (group, self._jack_keys)), shape=(max_groups, self.m)
            )
            g = max_groups
            mult = np.ones(g)

        def rows(a: int, b: int) -> np.ndarray:
            part = removed[a:b]
            part = part.toarray() if issparse(part) else np.asarray(part)
            return counts[None, :] - part

        return g, mult, rows


def _sparse_table(
    data: np.ndarray | None, group: np.ndarray, keys: np.ndarray, n_units: int, m: int
) -> Any:
    """CSR (n_units, m) sums of ``data`` (None: ones) by (group, key), duplicates summed."""
    from scipy import sparse  # here: 0.11 s to import

    if data is None:
        data = np.ones(len(keys))
    table = sparse.csr_matrix((data, (group, keys)), shape=(n_units, m))
    table.sum_duplicates()
    return table


def scheme_name(conditions: bool, strata: bool, two_stage: bool, weights: str) -> str:
    """The name of a resampling scheme (``ResamplingPlan.scheme``)."""
    if conditions:
        scheme = "conditions-within-strata" if strata else "conditions"
        if two_stage:
            scheme += "-two-stage"
    else:
        scheme = "strata" if strata else "iid"
    return scheme + ("+poisson" if weights == "poisson" else "")


def table_plan(
    n_samples: int,
    *,
    n_units: int | None = None,
    stratum_of_unit: np.ndarray | None = None,
    n_strata: int | None = None,
    n_conditions: int | None = None,
    weights: str = "multinomial",
    n_resamples: int = 1000,
    rng: Any = None,
) -> ResamplingPlan:
    """A :class:`ResamplingPlan` for a reduced table (no per-sample arrays).

    The design is given by its codes, as :func:`make_plan` would compute them from the
    samples: ``n_units`` units (conditions, or (stratum, condition) pairs) in the sorted
    order of (stratum, condition), ``stratum_of_unit`` their strata, ``n_strata`` strata in
    sorted order.  Bind it with :meth:`ResamplingPlan.weights_for_table`.

    Examples
    --------
    >>> plan = table_plan(10, n_units=3, n_conditions=3, n_resamples=5, rng=0)
    >>> s = plan.weights_for_table(np.array([0, 0, 1, 2]), np.array([0, 1, 0, 1]),
    ...                            np.array([3, 1, 4, 2]), 2)
    >>> s.counts.tolist(), s.all_replicates().sum(axis=1).shape
    ([7.0, 3.0], (5,))
    """
    n_resamples = check_positive_int("n_resamples", n_resamples)
    check_choice("weights", weights, ("multinomial", "poisson"))
    if n_conditions is not None and n_conditions < 2:
        raise ValueError(
            "`conditions` has a single distinct value: resampling conditions needs at "
            "least two (ideally dozens). Drop `conditions` for an iid bootstrap."
        )
    return ResamplingPlan(
        n_samples=int(n_samples),
        n_resamples=n_resamples,
        scheme=scheme_name(n_units is not None, n_strata is not None, False, weights),
        unit_of_sample=None,
        n_units=n_units,
        stratum_of_unit=stratum_of_unit,
        stratum_of_sample=None,
        n_strata=n_strata,
        n_conditions=n_conditions,
        two_stage=False,
        poisson=weights == "poisson",
        seed=check_rng_seed(rng),
    )


def make_plan(
    n_samples: int,
    *,
    conditions: Any = None,
    strata: Any = None,
    two_stage: bool = False,
    weights: str = "multinomial",
    n_resamples: int = 1000,
    rng: Any = None,
) -> ResamplingPlan:
    """Validate the resampling options and build a :class:`ResamplingPlan`.

    Parameters
    ----------
    n_samples : int
        Number of samples.
    conditions : array-like, shape (n_samples,), optional
        Condition of every sample (speaker, session, document...).  Samples that share a
        condition are drawn together.
    strata : array-like, shape (n_samples,), optional
        Stratum of every sample (e.g. the class).  Resampling happens inside each
        stratum and keeps its size (its number of samples, or of conditions).  With
        conditions, a condition that spans several strata is split into one unit per
        stratum.
    two_stage : bool, default False
        With conditions: also resample the samples inside every drawn copy of a condition.
    weights : {"multinomial", "poisson"}
        ``"poisson"`` gives every unit an independent Poisson(1) count instead.
    n_resamples : int
        Number of replicates.
    rng : None, int, SeedSequence or numpy.random.Generator

    Returns
    -------
    ResamplingPlan

    Examples
    --------
    >>> plan = make_plan(6, conditions=[0, 0, 1, 1, 2, 2], n_resamples=4, rng=0)
    >>> plan.scheme, plan.n_units
    ('conditions', 3)
    >>> w = plan.weights_for().block(0)   # per-sample counts of the first replicates
    >>> w.shape, bool((w.sum(axis=1) == 6).all())
    ((4, 6), True)
    """
    n_resamples = check_positive_int("n_resamples", n_resamples)
    check_choice("weights", weights, ("multinomial", "poisson"))
    two_stage = check_flag("two_stage", two_stage)
    # the design through the input gate (the drivers gather it themselves and call
    # mlci.engine.nested.plan_for_conditions, which does not gather it again)
    given = {k: v for k, v in (("strata", strata), ("conditions", conditions)) if v is not None}
    design = gather({k: ArgSpec("groups") for k in given}, given).arrays if given else {}
    return resampling_plan(
        n_samples,
        conditions=design.get("conditions"),
        strata=design.get("strata"),
        two_stage=two_stage,
        weights=weights,
        n_resamples=n_resamples,
        seed=check_rng_seed(rng),
    )


def resampling_plan(
    n_samples: int,
    *,
    conditions: np.ndarray | None,
    strata: np.ndarray | None,
    two_stage: bool,
    weights: str,
    n_resamples: int,
    seed: np.random.SeedSequence,
) -> ResamplingPlan:
    """The :class:`ResamplingPlan` of validated arguments: ``conditions`` and ``strata`` as
    the input gate returns them (one array each, no missing value), the options checked,
    the seed the driver's.  :func:`make_plan` validates, then calls this."""
    unit_of_sample = stratum_of_unit = stratum_of_sample = None
    n_units = n_strata = n_conditions = None
    for name, arr in (("strata", strata), ("conditions", conditions)):
        if arr is not None and len(arr) != n_samples:
            raise ValueError(
                f"`{name}` must have one entry per sample: {n_samples} expected, got {len(arr)}."
            )
    if strata is not None:
        stratum_of_sample = unique_inverse(strata)
        n_strata = int(stratum_of_sample.max()) + 1
    if conditions is not None:
        cond = unique_inverse(conditions)
        n_conditions = int(cond.max()) + 1
        if stratum_of_sample is not None:
            pair = stratum_of_sample.astype(np.int64) * n_conditions + cond
            uniq, unit_of_sample = np.unique(pair, return_inverse=True)
            stratum_of_unit = uniq // n_conditions
        else:
            unit_of_sample = cond
        n_units = int(unit_of_sample.max()) + 1
        if n_conditions < 2:  # with strata too: one unit per stratum, every replicate alike
            raise ValueError(
                "`conditions` has a single distinct value: resampling conditions needs at "
                "least two (ideally dozens). Drop `conditions` for an iid bootstrap."
            )
    elif two_stage:
        raise ValueError("`two_stage=True` needs `conditions`; got conditions=None.")
    return ResamplingPlan(
        n_samples=int(n_samples),
        n_resamples=n_resamples,
        scheme=scheme_name(conditions is not None, strata is not None, two_stage, weights),
        unit_of_sample=None if unit_of_sample is None else unit_of_sample.astype(np.intp),
        n_units=n_units,
        stratum_of_unit=stratum_of_unit,
        stratum_of_sample=stratum_of_sample,
        n_strata=n_strata,
        n_conditions=n_conditions,
        two_stage=bool(two_stage),
        poisson=weights == "poisson",
        seed=seed,
    )
