"""Curve statistics over whole conditions from the conditions' draw counts (issue 25).

When whole conditions are resampled, a replicate is the vector ``u`` of every
condition's draw count (b, C), and a class's cumulative count at a sample position ``p``
(the samples of the class sorted by score) is ``sum_c u_c F_c(p)``, ``F_c(p)`` the
number of condition ``c``'s samples among the first ``p``.  :class:`_UnitsView` keeps
``F`` at every ``L``-th position (a dense (C, n / L + 1) table, one matrix product per
chunk of replicates) and adds, where a search needs a position between two of them, the
draw counts of the (fewer than ``L``) samples in between.  Every count is an exact integer
(below 2**53), so the view answers exactly what the atoms' weights
(:class:`mlci.scores._roc._WeightsView`) answer, without the (b, n) weights or their
cumulative sums: the curve bands' operating points are the same, bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._roc import _Layout, _View

#: largest (conditions x blocks) table per class (float64: 32 MiB)
_MAX_TABLE = 4_000_000
#: most samples between two stored positions (the in-block gathers are (b, k, L))
_MAX_BLOCK = 1024


class _UnitsLayout:
    """The samples of each class sorted by atom, their conditions, and the conditions'
    cumulative counts at every ``L``-th sample; ``None`` from :meth:`make` when the table
    would be too large (the weights path is then used)."""

    def __init__(self, block: int, n_units: int, parts: list[tuple[Any, ...]]) -> None:
        self.block = block
        self.n_units = n_units
        # per class: sample units in atom order, the sample position of every atom
        # boundary, and the (C, J + 1) cumulative table at positions min(j * L, n_c)
        self.unit, self.start, self.table = (list(x) for x in zip(*parts, strict=True))
        self.n = [len(x) for x in self.unit]

    @classmethod
    def make(
        cls, lay: _Layout, keys: np.ndarray, unit_of_sample: np.ndarray, n_units: int
    ) -> _UnitsLayout | None:
        m0 = lay.m[0]
        n_max = max(int(np.sum(keys < m0)), int(np.sum(keys >= m0)), 1)
        block = max(64, -(-n_max * n_units // _MAX_TABLE))
        if block > _MAX_BLOCK:
            return None
        parts = []
        for c, lo, hi in ((0, 0, m0), (1, m0, m0 + lay.m[1])):
            own = np.flatnonzero((keys >= lo) & (keys < hi))
            atom = keys[own] - lo
            order = np.argsort(atom, kind="stable")
            unit = np.ascontiguousarray(unit_of_sample[own][order], dtype=np.intp)
            start = np.searchsorted(atom[order], np.arange(lay.m[c] + 1), side="left")
            n_c = len(unit)
            n_blocks = -(-n_c // block)
            counts = np.bincount(
                unit * n_blocks + np.arange(n_c) // block, minlength=n_units * n_blocks
            ).reshape(n_units, n_blocks)
            # (float32: the counts are integers below 2**24 wherever the product runs in
            # float32, see _exact_product; half the memory)
            dtype = np.float32 if n_max < 2**24 else np.float64
            table = np.zeros((n_units, n_blocks + 1), dtype=dtype)
            np.cumsum(counts, axis=1, out=table[:, 1:])
            parts.append((unit, start, table))
        return cls(block, n_units, parts)


class _UnitsView(_View):
    """Cumulative counts of ``b`` replicates given by the conditions' draw counts ``u``."""

    def __init__(self, lay: _Layout, ul: _UnitsLayout, u: np.ndarray) -> None:
        self.lay, self.ul = lay, ul
        self.u = np.ascontiguousarray(u, dtype=float)
        self.b = self.u.shape[0]
        self.m = lay.m
        # the stored positions' cumulative counts, exact integers (b, J + 1)
        self.coarse = [_exact_product(self.u, t, ul.n[c]) for c, t in enumerate(ul.table)]
        self._sp: list[np.ndarray | None] = [None, None]

    def total(self, cls: int) -> np.ndarray:
        return self.coarse[cls][:, -1]

    def _between(self, cls: int, j: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Draw counts of the samples at positions ``j*L + 0..L-1`` (b, k, L), zero past
        ``k`` samples (k, j: (b, k))."""
        return self._window(cls, j * self.ul.block, k, self.ul.block)

    def _window(self, cls: int, start: np.ndarray, k: np.ndarray, width: int) -> np.ndarray:
        """Draw counts of the samples at positions ``start + 0..width-1`` (b, k, width),
        zero past ``k`` samples (start, k: (b, k))."""
        unit = self.ul.unit[cls]
        offs = np.arange(width, dtype=np.intp)
        idx = np.take(unit, start[..., None] + offs, mode="clip")
        # (the row's offset into the flattened counts: one gather of every row at once)
        idx += (np.arange(self.b, dtype=np.intp) * self.u.shape[1]).reshape(
            (-1,) + (1,) * (idx.ndim - 1)
        )
        out = np.take(self.u.reshape(-1), idx)
        out *= offs < k[..., None]
        return out

    def cum_pos(self, cls: int, p: np.ndarray) -> np.ndarray:
        """Cumulative count of the first ``p`` samples of the class (b, k).

        From the nearer stored position: the one at or before ``p`` plus the samples in
        between, or the next one minus the samples from ``p`` to it; half a block's
        samples gathered at most.  Every count is an exact integer, so both ways give
        the same number.
        """
        block = self.ul.block
        coarse = self.coarse[cls]
        last = coarse.shape[1] - 1
        j = p // block
        after = p - j * block  # samples from the stored position j*L to p
        end = np.minimum((j + 1) * block, len(self.ul.unit[cls]))
        before = end - p  # samples from p to the next stored position
        back = (before < after) & (j < last)
        rows = np.arange(self.b)[:, None]
        base = coarse[rows, np.where(back, j + 1, j)]
        width = -(-block // 2)
        start = np.where(back, p, j * block)
        inner = self._window(cls, start, np.where(back, before, after), width).sum(axis=-1)
        return np.where(back, base - inner, base + inner)

    def sample_pos(self, cls: int) -> np.ndarray:
        """Sample position of every operating point's atom boundary (G + 1,)."""
        sp = self._sp[cls]
        if sp is None:
            sp = self.ul.start[cls][self.lay.bq[cls]]
            self._sp[cls] = sp
        return sp

    def cum_fixed(self, cls: int, q: np.ndarray) -> np.ndarray:
        p = np.broadcast_to(self.ul.start[cls][q], (self.b, len(q)))
        return self.cum_pos(cls, p)

    def cum_rows(self, cls: int, q: np.ndarray) -> np.ndarray:
        return self.cum_pos(cls, self.ul.start[cls][q][:, None])[:, 0]

    def cum_at(self, cls: int, g: np.ndarray) -> np.ndarray:
        """Cumulative count at operating points ``g`` (b, k)."""
        return self.cum_pos(cls, self.sample_pos(cls)[g])

    def cuts(self, cls: int, target: np.ndarray, strict: bool, hi: int) -> np.ndarray:
        """:func:`mlci.scores._roc._cuts` on this view: the first operating point whose
        cumulative count reaches ``target`` (``>``: ``strict``), ``hi`` where none does."""
        block = self.ul.block
        coarse = self.coarse[cls]
        side: Any = "right" if strict else "left"
        j = np.empty(target.shape, dtype=np.intp)
        for row in range(self.b):  # the first stored position reaching the target
            j[row] = np.searchsorted(coarse[row], target[row], side=side)
        last = coarse.shape[1] - 1
        n_c = len(self.ul.unit[cls])
        inside = (j > 0) & (j <= last)
        jb = np.clip(j - 1, 0, max(last - 1, 0))
        start = jb * block
        counts = np.minimum(block, n_c - start)
        run = np.cumsum(self._between(cls, jb, counts), axis=-1)
        run += coarse[np.arange(self.b)[:, None], jb][..., None]
        t = target[..., None]
        reach = run > t if strict else run >= t
        # the first sample whose count makes the target: position start + index + 1
        p = start + np.argmax(reach, axis=-1) + 1
        p = np.where(j == 0, 0, np.where(inside, p, n_c + 1))
        return np.minimum(np.searchsorted(self.sample_pos(cls), p, side="left"), hi)


def _exact_product(u: np.ndarray, table: np.ndarray, n: int) -> np.ndarray:
    """``u @ table`` in float64, exact: in float32 (twice as fast) when every partial sum
    is an integer below 2**24 (at most the largest draw count times the class's samples),
    else in float64 (exact below 2**53)."""
    if table.dtype == np.float32 and float(u.max(initial=0.0)) * n < 2.0**24:
        return (u.astype(np.float32) @ table).astype(float)
    return u @ table.astype(float, copy=False)
