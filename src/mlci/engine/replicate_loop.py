"""The replicate loop: a kernel's replicates and jackknife values, in memory-bounded chunks.

The one loop every driver draws its replicates through (:func:`run_replicates`: the
sampler's chunks of atom counts -> the metric's values, on threads, within a memory
bound) and the jackknife of BCa's acceleration (:func:`jackknife_values`,
:func:`kernel_jackknife`).  Neither depends on the chunks or threads: a seed gives the
same numbers.  The bootstrap engine (:mod:`mlci.engine.bootstrap`) binds them to a
kernel and a plan and finishes the interval.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..feedback import current_progress
from ..inputs import DEFAULT_MAX_MEMORY, check_positive_int
from ..inputs.config import engine_config
from ..metrics import FunctionKernel, Kernel
from .resampling import ResamplingPlan
from .sampler import Sampler

__all__ = [
    "BLAS_STARTED_SINGLE",
    "jackknife_groups",
    "jackknife_values",
    "kernel_jackknife",
    "run_replicates",
    "single_threaded_blas",
    "unit_kernel",
]

#: target number of weights (replicates x atoms) in one chunk when ``batch`` is not given
_CHUNK_WEIGHTS = 1 << 17
#: the process's BLAS started with one thread (``mlci mt``: ``mlci.cli`` set
#: ``OPENBLAS_NUM_THREADS=1``): no threadpoolctl limit needed (~3 ms of CPU a command)
BLAS_STARTED_SINGLE = False


def single_threaded_blas(active: bool = True) -> Any:
    """One BLAS thread while the engine runs its own threads.

    The engine's matrix products are small and run inside its own worker threads; a
    multi-threaded BLAS inside each of them oversubscribes the cores and, on a busy
    machine, runs many times slower.  Uses ``threadpoolctl`` when it is installed (it comes
    with scikit-learn; ``pip install threadpoolctl``), otherwise changes nothing.  The
    limit is process-wide while it lasts; none if :data:`BLAS_STARTED_SINGLE`.
    """
    if active and not BLAS_STARTED_SINGLE:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # pragma: no cover - optional
            pass
        else:
            return threadpool_limits(limits=1, user_api="blas")
    return contextlib.nullcontext()


def _n_jobs(n_jobs: int | None) -> int:
    if n_jobs is None or n_jobs == -1:
        return max(1, min(os.cpu_count() or 1, 8))
    return check_positive_int("n_jobs", n_jobs)


def run_replicates(
    evaluate: Callable[[np.ndarray], np.ndarray],
    sampler: Sampler,
    shape: tuple[int, ...],
    *,
    bytes_per_row: float,
    batch: int | None = None,
    n_jobs: int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
    threads: bool = True,
) -> np.ndarray:
    """Evaluate ``evaluate(W)`` on every replicate's atom counts, in memory-bounded chunks.

    Parameters
    ----------
    evaluate : callable
        ``(b, m)`` counts -> ``(b, *shape)`` values.
    sampler : Sampler
        Draws the replicates (see :meth:`ResamplingPlan.weights_for`).
    shape : tuple
        Shape of one value.
    bytes_per_row : float
        Working memory one replicate needs (weights and the kernel's temporaries).
    batch : int, optional
        Replicates per chunk; by default (None: :func:`mlci.get_config`'s, automatic
        unless set) as many as fit in ``max_memory / n_jobs``.
        Rounded to whole RNG blocks, so it never changes the result.
    n_jobs : int, optional
        Threads (numpy releases the GIL in the heavy loops); default: all cores up to 8,
        fewer when ``max_memory`` cannot hold one replicate per thread.
    max_memory : int
        Bound on the working memory (bytes) used to size the chunks (at its default:
        :func:`mlci.get_config`'s).
    threads : bool
        False for kernels that run Python code per replicate (user functions).

    Returns
    -------
    ndarray, shape (n_resamples, *shape)
    """
    batch, n_jobs, max_memory = engine_config(batch, n_jobs, max_memory)
    jobs = _n_jobs(n_jobs) if threads else 1
    if batch is None:
        if n_jobs is None:
            # every thread holds at least one replicate: fewer threads when rows are huge
            jobs = min(jobs, max(1, int(max_memory // max(bytes_per_row, 1.0))))
        rows = int(max_memory / max(jobs, 1) / max(bytes_per_row, 1.0))
        # no larger than needed: a chunk of about 2^17 weights (1 MiB, the size of a core's
        # L2 cache here) is already fully vectorised, stays in cache between the draw and
        # the metric, and reuses memory instead of faulting in fresh pages
        rows = max(min(rows, _CHUNK_WEIGHTS // max(sampler.m, 1)), 1)
    else:
        rows = check_positive_int("batch", batch)
    n_resamples = sampler.n_resamples
    out = np.empty((n_resamples, *shape))
    chunks = list(sampler.iter_chunks(rows, reuse=True))  # (a chunk is done before the next)
    bar = current_progress()  # inside mlci.feedback.progress_bar (the CLI): advance it
    if bar is not None:
        bar.add_total(n_resamples)

    def work(item: tuple[int, Callable[[], np.ndarray]]) -> None:
        start, make = item
        values = evaluate(make())
        out[start : start + values.shape[0]] = values
        if bar is not None:
            bar.update(values.shape[0])

    if jobs > 1 and len(chunks) > 1:
        # the threads take the next chunk from one shared iterator: a lock a chunk, not a
        # future (the same chunks and numbers, whichever thread runs them)
        pending, lock = iter(chunks), threading.Lock()

        def worker(_: int) -> None:
            while True:
                with lock:
                    item = next(pending, None)
                if item is None:
                    return
                work(item)

        with single_threaded_blas(), ThreadPoolExecutor(max_workers=jobs) as ex:
            list(ex.map(worker, range(min(jobs, len(chunks)))))
    else:
        for item in chunks:
            work(item)
    return out


def jackknife_groups(m: int, function: bool = False) -> int:
    """Largest number of jackknife rows for a kernel of ``m`` atoms.

    A user's function is called once per row: 100.  A built-in kernel: about 2e8 atom
    operations in all, between 50 and 1000 rows.  More units than this are deleted in
    random groups (grouped jackknife), so that BCa never costs O(n^2).
    """
    if function:
        return 100
    return int(np.clip(2e8 // max(m, 1), 50, 1000))


#: :func:`jackknife_groups` under a name that :func:`run_bootstrap`'s argument does not hide
default_jackknife_groups = jackknife_groups


def unit_kernel(kernel: Kernel, plan: Any) -> Kernel:
    """The kernel to draw ``plan``'s replicates with: ``kernel`` summed per unit when the
    plan draws whole units (one-stage conditions, multinomial or Poisson) and the kernel
    can be summed per unit with more atoms than units (:meth:`AdditiveKernel.by_unit`,
    the recalibration kernels' ``by_unit``); else itself.
    """
    by_unit = getattr(kernel, "by_unit", None)
    if (
        callable(by_unit)
        and isinstance(plan, ResamplingPlan)
        and plan.n_units is not None
        and plan.unit_of_sample is not None
        and not plan.two_stage
    ):
        return by_unit(plan.unit_of_sample, plan.n_units) or kernel
    return kernel


def jackknife_values(
    evaluate: Callable[[Any], np.ndarray],
    sampler: Sampler,
    max_groups: int,
    *,
    exact: Callable[[], tuple[np.ndarray, np.ndarray] | None] | None = None,
    bytes_per_row: float | None = None,
    max_memory: float = DEFAULT_MAX_MEMORY,
    n_jobs: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The engine's jackknife (for BCa's acceleration): ``(values, multiplicities)``.

    ``exact()`` (an exact delete-one-sample formula, or None if there is none) is used
    when the resampled unit is the sample and there are more atoms than ``max_groups``;
    otherwise the sampler's :meth:`~mlci.engine.sampler.Sampler.jackknife_rows` (delete
    one unit, or one random group of units) are evaluated chunk by chunk, within
    ``max_memory``, on ``n_jobs`` threads (None: all cores up to 8).  The values never
    depend on the chunks or threads.  Drivers that finish several results from one
    jackknife (a paired comparison) call it once and pass the values to
    :func:`finish_bootstrap`.
    """
    if exact is not None and sampler.unit_is_sample and sampler.m > max_groups:
        values = exact()
        if values is not None:
            return values
    g, mult, rows = sampler.jackknife_rows(max_groups)
    _, n_jobs, max_memory = engine_config(None, n_jobs, max_memory)
    jobs = _n_jobs(n_jobs)
    per_row = bytes_per_row if bytes_per_row is not None else 8.0 * sampler.m
    step = int(
        np.clip(
            min(max_memory / jobs / max(per_row, 1.0), _CHUNK_WEIGHTS / max(sampler.m, 1)), 1, 256
        )
    )
    starts = range(0, g, step)

    def part(a: int) -> np.ndarray:
        return evaluate(rows(a, min(a + step, g)))

    if jobs > 1 and len(starts) > 1:
        with single_threaded_blas(), ThreadPoolExecutor(max_workers=jobs) as ex:
            vals = list(ex.map(part, starts))
    else:
        vals = [part(a) for a in starts]
    return np.concatenate(vals, axis=0), mult


def kernel_jackknife(
    kernel: Kernel,
    sampler: Sampler,
    max_groups: int | None = None,
    *,
    max_memory: float = DEFAULT_MAX_MEMORY,
    n_jobs: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`jackknife_values` of a metric kernel (its exact delete-one formula when it
    has one; a user's function on one thread)."""
    function = isinstance(kernel, FunctionKernel) or bool(getattr(kernel, "is_function", False))
    groups = jackknife_groups(kernel.m, function) if max_groups is None else max_groups
    return jackknife_values(
        kernel.evaluate,
        sampler,
        groups,
        exact=lambda: kernel.delete_one(sampler.counts),
        bytes_per_row=8.0 * sampler.m * (kernel.work_factor + 1.0),
        max_memory=max_memory,
        n_jobs=1 if function else n_jobs,
    )
