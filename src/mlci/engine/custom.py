"""What users bring themselves: a resampling scheme, or bootstrap replicates (BCa).

Every scheme of the engine is a :class:`~mlci.engine.sampler.Sampler` whose
:meth:`~mlci.engine.sampler.Sampler.draw` gives ``b`` replicates as counts.  A user's
scheme is the same thing written as a plain function::

    sampler(rng, b) -> array of shape (b, n_samples)

returning how many times (or with which non-negative weight) each sample enters each of
``b`` replicates, samples in the order the user gave them.  :class:`UserSampler` binds such
a function to a metric's atoms: the engine's blocks and seeds stay in charge (block ``j``
is drawn from its own generator, so a seed gives the same replicates on any chunk size or
core count), the counts are summed over each atom, and BCa's acceleration uses the
delete-one-sample jackknife of the data (the scheme only changes the replicates).

:func:`mlci.bca_ci` (:mod:`mlci.engine.replicates`) is the other way round: the
replicates come from the user, mlci adds the interval.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .sampler import Sampler

__all__ = ["UserSampler", "check_sampler"]


def check_sampler(sampler: Any, *, conditions: Any = None, strata: Any = None) -> Any:
    """Validate the ``sampler`` argument of a driver (None passes through).

    A custom scheme replaces the resampling design, so it cannot be combined with
    ``conditions``/``strata`` (write them into the function instead).
    """
    if sampler is None:
        return None
    if not callable(sampler):
        raise TypeError(
            "`sampler` must be a function `sampler(rng, b)` returning the (b, n_samples) "
            f"counts of b replicates; got {type(sampler).__name__}."
        )
    given = [n for n, v in (("conditions", conditions), ("strata", strata)) if v is not None]
    if given:
        raise ValueError(
            f"`sampler` replaces the resampling design: drop {', '.join(f'`{g}`' for g in given)} "
            "(a custom scheme draws the counts of every sample itself)."
        )
    return sampler


class UserSampler(Sampler):
    """Replicates from a user's function ``fn(rng, b) -> (b, n_samples)`` counts.

    Parameters
    ----------
    base : AtomSampler
        The plan's iid sampler bound to the same atoms: gives the seed, the number and
        blocking of replicates, the full-data counts and the delete-one jackknife.
    fn : callable
        The user's scheme.
    keys : ndarray of int, shape (n_samples,)
        Atom of every sample, in the user's order.
    """

    dense = True

    def __init__(self, base: Any, fn: Callable[..., Any], keys: np.ndarray) -> None:
        self.base = base
        self.fn = fn
        self.plan = base.plan
        self.seed = base.seed
        self.n_resamples = base.n_resamples
        self.m = base.m
        self.block_size = base.block_size
        self.counts = base.counts
        self.unit_is_sample = True
        keys = np.asarray(keys, dtype=np.intp)
        self.n_samples = len(keys)
        from scipy import sparse  # here: 0.11 s to import

        self._to_atoms = sparse.csr_matrix(
            (np.ones(len(keys)), (np.arange(len(keys)), keys)), shape=(len(keys), self.m)
        )

    def draw(self, rng: np.random.Generator, b: int, out: np.ndarray | None = None) -> np.ndarray:
        w = self.fn(rng, b)
        try:
            w = np.asarray(w, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(
                "`sampler(rng, b)` must return a numeric array of shape (b, n_samples); got "
                f"{type(w).__name__}."
            ) from None
        if w.shape != (b, self.n_samples):
            raise ValueError(
                f"`sampler(rng, b)` returned shape {w.shape}; expected (b, n_samples) = "
                f"({b}, {self.n_samples}): one count per sample for each of the b replicates."
            )
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError(
                "`sampler(rng, b)` returned a negative or non-finite count; counts (weights) "
                "must be finite and >= 0."
            )
        atoms = np.asarray((self._to_atoms.T @ w.T).T)
        if out is None:
            return atoms
        out[...] = atoms
        return out

    def jackknife_rows(
        self, max_groups: int
    ) -> tuple[int, np.ndarray, Callable[[int, int], np.ndarray]]:
        return self.base.jackknife_rows(max_groups)
