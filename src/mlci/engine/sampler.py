"""The one interface every resampling scheme implements, and the table of random streams.

A :class:`Sampler` draws the replicates of a bootstrap (or the rearrangements of a
permutation test) in fixed *blocks*: block ``j`` of stream ``s`` is drawn from its own
generator, a pure function of ``(seed, s, j)``.  The block size depends only on the data,
so a seed gives the same replicates whatever the chunk size, the number of threads or the
machine.  A scheme implements one method, :meth:`Sampler.draw` (``b`` replicates from a
generator); blocks, chunks and seeding are inherited.  The replicate loop
(:func:`mlci.engine.bootstrap.run_replicates`) and the finish step
(:func:`mlci.engine.bootstrap.finish_bootstrap`) are the same for every scheme.

Implementations: :class:`~mlci.engine.resampling.AtomSampler` (iid, strata, conditions,
conditions within strata, two-stage, Poisson), :class:`~mlci.engine.nested.NestedSampler`
(nested conditions), the joint speaker bootstrap of verification trials
(:mod:`mlci.scores.trials`), the lazy threshold sampler of :class:`mlci.Scores`, the
swaps of the paired permutation test (:mod:`mlci.comparison.permutation`) and the
``confidence_intervals``-compatible two-stage sampler (:mod:`mlci.compat`).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from enum import IntEnum
from typing import Any

import numpy as np

__all__ = [
    "RootStreamSampler",
    "Sampler",
    "Stream",
    "UnitDraws",
    "block_generator",
    "issparse",
    "stream_seed",
]


def issparse(x: Any) -> bool:
    """``scipy.sparse.issparse(x)``, without importing scipy.sparse (0.11 s) before a
    sparse matrix exists: the engine builds its tables sparse only when they are large,
    and imports scipy.sparse there (a run that needs none never loads it)."""
    mod = sys.modules.get("scipy.sparse")
    return mod is not None and bool(mod.issparse(x))


class Stream(IntEnum):
    """The random streams of a seed: draws for different purposes never share numbers.

    Every generator mlci uses is ``block_generator(seed, stream, block)`` (but those of
    the :class:`RootStreamSampler` schemes); this table is the only place stream numbers
    are defined.
    """

    #: bootstrap replicates (every scheme)
    REPLICATES = 0
    #: the random grouping of the grouped jackknife (BCa's acceleration)
    JACKKNIFE = 1
    #: swaps of the paired permutation test
    PERMUTATION = 3
    #: the shuffle of :func:`mlci.paired_ttest_chunks`
    CHUNKS = 4
    #: the training-set resamples of :func:`mlci.evaluate_method`
    TRAINING = 5
    #: the training seeds :func:`mlci.evaluate_method` draws when given a count
    RUN_SEEDS = 6
    #: the two-stage draws of :mod:`mlci.compat` (confidence_intervals-compatible)
    COMPAT = 7
    #: the seed of the cross-validation splits of :func:`mlci.paired_cv_scores`
    CV_SPLITS = 8


def stream_seed(seed: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """A child of ``seed`` identified by ``key`` (a pure function: no hidden counter).

    Unlike ``seed.spawn()``, which advances a counter on the caller's object, passing the
    same seed twice gives the same children.
    """
    return np.random.SeedSequence(entropy=seed.entropy, spawn_key=(*seed.spawn_key, *key))


def block_generator(seed: np.random.SeedSequence, stream: int, block: int) -> np.random.Generator:
    """The generator of one block of one stream: a pure function of ``(seed, stream, block)``."""
    return np.random.Generator(np.random.PCG64(stream_seed(seed, int(stream), int(block))))


class _ChunkBuffer:
    """One float buffer per thread for the chunks of one :meth:`Sampler.iter_chunks`
    (grown to the largest chunk; a thread's next chunk overwrites it)."""

    def __init__(self, m: int) -> None:
        self.m = m
        self._local = threading.local()

    def get(self, rows: int) -> np.ndarray:
        size = rows * self.m
        buf = getattr(self._local, "buf", None)
        if buf is None or buf.size < size:
            buf = self._local.buf = np.empty(size)
        return buf[:size].reshape(rows, self.m)


class Sampler:
    """Draws blocks of replicates; a scheme implements :meth:`draw`, or :meth:`draw_rows`
    (a row range of a block), whose whole range is then the default :meth:`draw`.

    Attributes
    ----------
    seed : numpy.random.SeedSequence
    n_resamples : int
        Number of replicates.
    m : int
        Width of one replicate (atoms, trials or units): sizes the engine's chunks.
    block_size : int
        Replicates per block (fixed by the data, never by the chunking).
    dense : bool
        True when a block is a ``(b, m)`` float array (blocks can then be stacked into
        one chunk); False for samplers whose replicates are another object (the lazy
        threshold sampler), which are evaluated one block at a time.
    splits_blocks : bool
        True when :meth:`draw_rows` draws a row range of a block cheaply, so that the
        engine may cut a block that is larger than its chunk.
    draw_bytes : float
        Working memory (bytes) the draw itself needs per replicate, beyond the ``(b, m)``
        weights (e.g. the sample indices of a replicate drawn index by index).
    unit_is_sample : bool
        True when the resampled unit is the sample (iid or strata): the kernel's exact
        delete-one-sample jackknife then applies.
    stream : int
        The stream (see :class:`Stream`) the replicates are drawn from by default.
    fills_out : bool
        True when :meth:`draw` given a float ``out`` of shape (b, m) writes into it the
        numbers it would return (and returns it): :meth:`iter_chunks` may then reuse one
        buffer per thread.
    counts : ndarray, shape (m,)
        The weight of every atom in the data as observed (set by the schemes that
        evaluate a kernel on it; declared here for the type checker).
    """

    seed: np.random.SeedSequence
    n_resamples: int
    m: int
    block_size: int
    stream: int = Stream.REPLICATES
    dense: bool = True
    splits_blocks: bool = False
    draw_bytes: float = 0.0
    unit_is_sample: bool = False
    fills_out: bool = False
    counts: np.ndarray

    # ------------------------------------------------------------ the extension point
    def draw(self, rng: np.random.Generator, b: int, out: np.ndarray | None = None) -> Any:
        """``b`` replicates drawn from ``rng`` (into ``out``, shape (b, m), when given): by
        default the whole block from :meth:`draw_rows`, for a scheme that implements that."""
        if type(self).draw_rows is Sampler.draw_rows:
            name = type(self).__name__
            raise NotImplementedError(f"{name} implements neither draw nor draw_rows")
        return self.draw_rows(rng, b, (0, b), out)

    def draw_rows(
        self,
        rng: np.random.Generator,
        b: int,
        rows: tuple[int, int],
        out: np.ndarray | None = None,
    ) -> Any:
        """Rows ``r0:r1`` of the block :meth:`draw` would give (by default, by drawing it)."""
        r0, r1 = rows
        w = self.draw(rng, b)[r0:r1]
        if out is None:
            return w
        out[...] = w
        return out

    # ------------------------------------------------------------ inherited machinery
    def generator(self, stream: int, block: int) -> np.random.Generator:
        """The generator of one block of one stream (see :class:`Stream`)."""
        return block_generator(self.seed, stream, block)

    @property
    def n_blocks(self) -> int:
        return -(-self.n_resamples // self.block_size)

    def block_rows(self, j: int) -> int:
        """Number of replicates in block ``j``."""
        b = min(self.block_size, self.n_resamples - j * self.block_size)
        if b <= 0:
            raise IndexError(f"block {j} is past the last replicate")
        return b

    def block(
        self,
        j: int,
        stream: int | None = None,
        out: np.ndarray | None = None,
        rows: tuple[int, int] | None = None,
    ) -> Any:
        """Replicates ``[j*block_size, (j+1)*block_size)`` (only ``rows=(r0, r1)`` of them
        if given: the same values as slicing the whole block)."""
        b = self.block_rows(j)
        rng = self.generator(self.stream if stream is None else stream, j)
        if rows is None or tuple(rows) == (0, b):
            return self.draw(rng, b, out)
        return self.draw_rows(rng, b, (int(rows[0]), int(rows[1])), out)

    def iter_chunks(
        self, rows_per_chunk: int, stream: int | None = None, *, reuse: bool = False
    ) -> Iterator[tuple[int, Callable[[], Any]]]:
        """Yield ``(start_replicate, make)`` for chunks of replicates: the one chunking rule.

        ``make()`` draws the chunk when called (so that threads draw in parallel).  A chunk
        holds ``rows_per_chunk`` replicates rounded up to whole blocks; a sampler that
        :attr:`splits_blocks` has a block larger than that cut into row ranges.  Either way
        the values do not depend on ``rows_per_chunk``.

        ``reuse=True`` (for a caller that is done with a chunk before the same thread
        draws the next, as the engine's replicate loop): a sampler that
        :attr:`fills_out` draws every chunk of a thread into one buffer of that thread,
        which its next chunk overwrites; the same numbers.  A fresh chunk of a megabyte
        or more is fresh memory, a page fault every 4 KiB when it is first written (the
        allocator gives such blocks back to the system when they are freed): on 3,000
        segments (~1 MiB chunks), 0.05-0.09 s of CPU of ``mlci mt compare -B 10000``.
        """
        rows_per_chunk = max(1, int(rows_per_chunk))
        buffer = _ChunkBuffer(self.m) if reuse and self.dense and self.fills_out else None

        def into(rows: int) -> np.ndarray | None:
            return None if buffer is None else buffer.get(rows)

        if rows_per_chunk < self.block_size and self.splits_blocks:
            for j in range(self.n_blocks):
                b = self.block_rows(j)
                for r0 in range(0, b, rows_per_chunk):
                    r1 = min(r0 + rows_per_chunk, b)

                    def make_rows(j: int = j, r0: int = r0, r1: int = r1) -> Any:
                        return self.block(j, stream, out=into(r1 - r0), rows=(r0, r1))

                    yield j * self.block_size + r0, make_rows
            return
        per = max(1, rows_per_chunk // self.block_size) if self.dense else 1
        for first in range(0, self.n_blocks, per):
            blocks = range(first, min(first + per, self.n_blocks))

            def make(blocks: range = blocks) -> Any:
                if len(blocks) == 1:
                    return self.block(blocks[0], stream, out=into(self.block_rows(blocks[0])))
                start = blocks[0] * self.block_size
                last = min(blocks[-1] * self.block_size + self.block_size, self.n_resamples)
                out = into(last - start)
                if out is None:
                    out = np.empty((last - start, self.m))
                for j in blocks:
                    a = j * self.block_size - start
                    self.block(j, stream, out=out[a : a + self.block_rows(j)])
                return out

            yield first * self.block_size, make

    def all_replicates(self, stream: int | None = None) -> np.ndarray:
        """Every replicate as one ``(n_resamples, m)`` array (for small problems and tests)."""
        out = np.empty((self.n_resamples, self.m))
        for j in range(self.n_blocks):
            a = j * self.block_size
            self.block(j, stream, out=out[a : a + self.block_rows(j)])
        return out

    def random_groups(self, n_units: int, n_groups: int) -> np.ndarray:
        """Group of every unit for the grouped jackknife: ``n_units`` units dealt at random
        into ``n_groups`` groups of (nearly) equal size, from the seed's jackknife stream."""
        rng = self.generator(Stream.JACKKNIFE, 0)
        return rng.permutation(np.arange(n_units) % n_groups)

    def jackknife_rows(
        self, max_groups: int
    ) -> tuple[int, np.ndarray, Callable[[int, int], np.ndarray]]:
        """Delete-one (or delete-one-group) jackknife rows, made on demand.

        Returns ``(g, mult, rows)``: ``rows(a, b)`` gives jackknife rows ``a:b`` in the
        replicates' representation, ``mult`` how many jackknife replicates each row
        stands for.  Schemes without a jackknife raise NotImplementedError.
        """
        raise NotImplementedError(f"{type(self).__name__} has no jackknife")


class RootStreamSampler(Sampler):
    """A scheme drawn from the generator of its seed itself, ``numpy.random.default_rng(root)``,
    in one block (``block_size == n_resamples``), instead of the block streams keyed by
    ``(seed, stream, block)``.

    The draws made before the block streams existed keep their numbers this way (a seed
    gives the resamples it always gave): one resample of :meth:`mlci.Scores.bootstrap_sample`
    and :meth:`mlci.GroupScores.bootstrap_sample`
    (:class:`~mlci.scores._samplers.CellResampler`) and the member bootstrap of
    :func:`mlci.oob_ci` (:class:`~mlci.protocols.oob.MemberSampler`).  A scheme
    implements :meth:`draw` as any other; this class only overrides :meth:`generator`.
    New schemes use the block streams.

    Attributes
    ----------
    root : None, int, numpy.random.SeedSequence or numpy.random.Generator
        What ``numpy.random.default_rng`` takes (a Generator is used as it is, so that
        its draws continue it).
    """

    root: Any = None

    def generator(self, stream: int, block: int) -> np.random.Generator:
        """The generator of the seed itself (the one block; ``stream`` plays no part)."""
        if block != 0:
            raise IndexError(f"{type(self).__name__} draws one block; got block {block}")
        return np.random.default_rng(self.root)


class UnitDraws(Sampler):
    """The units' (conditions') draw counts ``(b, n_units)`` of an atom sampler's
    one-stage replicates: the numbers ``base`` expands into atom counts (its
    ``unit_counts``; the same seed, blocks and streams, so a kernel evaluated on the
    units' counts sees the replicates the atoms' weights would give).

    ``counts`` are ``base``'s (the data's atom counts), for the estimate and the
    jackknife of the kernel that ``base`` serves.

    Examples
    --------
    >>> from mlci.engine.nested import plan_for_conditions
    >>> plan = plan_for_conditions(6, conditions=[0, 0, 1, 1, 2, 2], n_resamples=4, rng=0)
    >>> draws = UnitDraws(plan.weights_for(plan.unit_of_sample, plan.n_units), plan.n_units)
    >>> draws.all_replicates().sum(axis=1).tolist()  # each replicate draws 3 conditions
    [3.0, 3.0, 3.0, 3.0]
    """

    splits_blocks = True
    fills_out = True

    def __init__(self, base: Any, n_units: int) -> None:
        self._base = base
        self.seed = base.seed
        self.n_resamples = base.n_resamples
        self.m = int(n_units)
        self.block_size = base.block_size
        self.counts = base.counts

    def draw_rows(
        self,
        rng: np.random.Generator,
        b: int,
        rows: tuple[int, int],
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        u = self._base.unit_counts(rng, b)[rows[0] : rows[1]]
        if out is None:
            return u
        out[...] = u
        return out
