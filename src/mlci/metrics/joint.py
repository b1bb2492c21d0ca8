"""Several additive metrics on the same samples, linearized together over their joint atoms.

A paired comparison scores every system on the same replicates and needs, for the
studentized and t intervals, the linearized standard error of every system and of every
difference on every replicate.  For additive metrics (``g(sum_i w_i phi_i)``: corpus
BLEU and chrF, WER, means) the influence of a sample in system ``s`` is
``phi_s . grad g_s(S_s)``, a ``d``-vector per replicate, so the moments that the
standard errors need come from one product of the joint counts with the systems'
statistics side by side and one ``(b x d) @ (d x m)`` product per system: no
``(b, m, n_systems)`` gradient.  :class:`JointAdditive` holds that; the comparison's
contrast kernel (:class:`mlci.comparison.common.ContrastKernel`) offers it to the
linearization (:mod:`mlci.engine.linearize`) as its fused forms.

The values are bit for bit those of the systems' own kernels (exact sums,
:class:`~mlci.metrics.ExactSums`); the gradients are the kernels' own forward
differences (:meth:`AdditiveKernel.gradient`'s steps), so the standard errors equal the
generic path's to rounding (about 1e-16 relative: the sums over the atoms are taken in
another order).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._base import AdditiveKernel, ExactSums, Kernel

__all__ = ["JointAdditive", "joint_additive"]

#: elements of one (rows, atoms) array in the passes over the atoms (128 KiB)
_CACHE_ELEMENTS = 1 << 14


def _plain_additive(kernel: Kernel) -> bool:
    """A scalar :class:`AdditiveKernel` whose value and gradient are the class's own (the
    fused forms reproduce exactly those)."""
    return (
        isinstance(kernel, AdditiveKernel)
        and type(kernel).evaluate is AdditiveKernel.evaluate
        and type(kernel).gradient is AdditiveKernel.gradient
        and kernel.shape == ()
    )


def joint_additive(
    kernels: Sequence[Kernel], rows: Sequence[np.ndarray], ia: Any, ib: Any
) -> JointAdditive | None:
    """:class:`JointAdditive` of ``kernels`` if every one is a plain scalar additive
    kernel, else None.

    Parameters
    ----------
    kernels : list of Kernel
        One per system, over the same samples.
    rows : list of ndarray of int, shape (m_joint,)
        ``rows[s][k]``: system ``s``'s atom in joint atom ``k``.
    ia, ib : array-like of int
        The differences ``value[ia] - value[ib]`` that follow the systems' values.

    Examples
    --------
    >>> import numpy as np
    >>> from mlci.metrics import get_kernel
    >>> a = get_kernel("mean", (np.array([1.0, 2.0, 4.0]),), {})
    >>> b = get_kernel("mean", (np.array([1.0, 1.0, 1.0]),), {})
    >>> j = joint_additive([a, b], [np.arange(3), np.zeros(3, dtype=int)], [0], [1])
    >>> j.values(np.ones((1, 3)))  # the two means and their difference
    array([[2.33333333, 1.        , 1.33333333]])
    """
    if not all(_plain_additive(k) for k in kernels):
        return None
    return JointAdditive([k for k in kernels if isinstance(k, AdditiveKernel)], rows, ia, ib)


class JointAdditive:
    """Plain scalar additive kernels of several systems over their joint atoms.

    Build it with :func:`joint_additive`.  Values are ``(b, n_systems + n_pairs)``: every
    system, then every difference ``value[ia] - value[ib]``.
    """

    def __init__(
        self, kernels: Sequence[AdditiveKernel], rows: Sequence[np.ndarray], ia: Any, ib: Any
    ) -> None:
        self.kernels = list(kernels)
        self.ia = np.asarray(ia, dtype=np.intp)
        self.ib = np.asarray(ib, dtype=np.intp)
        rows = [np.asarray(r, dtype=np.intp) for r in rows]
        self.m = len(rows[0])
        # every system's statistics over the joint atoms, (m, d_s), and transposed for the
        # (b x d) @ (d x m) products of the influence values
        self.phi = [k.atoms[r] for k, r in zip(self.kernels, rows, strict=True)]
        self.phi_t = [np.ascontiguousarray(p.T) for p in self.phi]
        self.sums = ExactSums.side_by_side(
            [(k._sums, r) for k, r in zip(self.kernels, rows, strict=True)]
        )
        widths = [p.shape[1] for p in self.phi]
        self.bounds = np.cumsum([0, *widths])

    def without_pairs(self) -> JointAdditive:
        """The same systems without the differences (values and moments of the systems'
        columns alone: each column is computed apart, so they are those of ``self`` bit
        for bit)."""
        out = copy.copy(self)
        out.ia = self.ia[:0]
        out.ib = self.ib[:0]
        return out

    def _contrast(self, per_system: np.ndarray) -> np.ndarray:
        """``per_system`` (b, ..., n_systems) followed by the differences' columns."""
        return np.concatenate(
            [per_system, per_system[..., self.ia] - per_system[..., self.ib]], axis=-1
        )

    def _systems(
        self, sums: np.ndarray, total: np.ndarray, gradients: bool = True
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
        """``(sums, values, gradient of g at the sums)`` of every system.

        Kernels that give their values and forward differences as rows to score
        (:meth:`~mlci.metrics.mt.CorpusKernel.gradient_rows`) and share a score function
        (equal ``score_key``: the same metric and options) are scored in one call of it
        for all systems: a score depends on its row only, so the numbers are those of one
        call per system and quantity, without their per-call overhead (about 100 small
        array operations each for BLEU, at about 40 replicates a chunk)."""
        parts = [
            np.ascontiguousarray(sums[:, self.bounds[s] : self.bounds[s + 1]])
            for s in range(len(self.kernels))
        ]
        out: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = {}
        groups: dict[Any, list[tuple[int, Callable[..., Any]]]] = {}
        for s, k in enumerate(self.kernels):
            key = getattr(k, "score_key", None)
            rows_of = getattr(k, "gradient_rows", None)
            if gradients and key is not None and rows_of is not None:
                groups.setdefault(key, []).append((s, rows_of))
            else:
                values = k.g(parts[s])
                grad = k._sum_gradient(parts[s], total, values) if gradients else None
                out[s] = (parts[s], values, grad)
        for members in groups.values():
            pending = [rows_of(parts[s], total) for s, rows_of in members]
            scores = self.kernels[members[0][0]].g(np.concatenate([rows for rows, _ in pending]))
            at = 0
            for (s, _), (rows, finish) in zip(members, pending, strict=True):
                values, grad = finish(scores[at : at + len(rows)])
                at += len(rows)
                out[s] = (parts[s], values, grad)
        return [out[s] for s in range(len(parts))]

    def values(self, w: np.ndarray) -> np.ndarray:
        """Every system's value and every difference, for joint counts ``w`` (b, m):
        bit for bit the kernels' :meth:`~AdditiveKernel.evaluate` on their own atoms."""
        w = np.asarray(w, dtype=float)
        parts = self._systems(self.sums(w), np.empty((0, 1)), gradients=False)
        return self._contrast(np.stack([v for _, v, _ in parts], axis=1))

    def influence_moments(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(values, sum_k w_k z_k, sum_k w_k z_k^2)``, each (b, n_systems + n_pairs),
        ``z_k`` the influence of joint atom ``k`` in a system (``phi_k . grad g``) or a
        difference (the two systems' influences subtracted)."""
        w = np.asarray(w, dtype=float)
        # the replicate's size (AdditiveKernel.gradient's sum of |w|: the same for counts)
        total = w.sum(axis=1, keepdims=True)
        parts = self._systems(self.sums(w), total)
        b = w.shape[0]
        n_sys = len(self.kernels)
        n_out = n_sys + len(self.ia)
        values = self._contrast(np.stack([v for _, v, _ in parts], axis=1))
        s1 = np.empty((b, n_out))
        s2 = np.empty((b, n_out))
        grads: list[np.ndarray] = []
        for s, (part, _, grad) in enumerate(parts):
            assert grad is not None  # (asked for)
            grads.append(grad)
            # sum_k w_k phi_k . grad = S . grad (no pass over the atoms)
            s1[:, s] = np.einsum("bd,bd->b", part, grad)
        for p, (a, c) in enumerate(zip(self.ia, self.ib, strict=True)):
            s1[:, n_sys + p] = s1[:, a] - s1[:, c]
        # the passes over the atoms by blocks of rows whose (rows, m) arrays stay in the
        # cache together (the replicate chunk's own arrays do not: 3x slower on a busy machine)
        step = max(1, _CACHE_ELEMENTS // max(self.m, 1))
        for r in range(0, b, step):
            rows = slice(r, min(r + step, b))
            wr = w[rows]
            z = [grad[rows] @ phi_t for grad, phi_t in zip(grads, self.phi_t, strict=True)]
            for s in range(n_sys):
                s2[rows, s] = np.einsum("bm,bm->b", wr * z[s], z[s])
            for p, (a, c) in enumerate(zip(self.ia, self.ib, strict=True)):
                diff = z[a] - z[c]
                s2[rows, n_sys + p] = np.einsum("bm,bm->b", wr * diff, diff)
        return values, s1, s2

    def _unit_table(
        self, cell_unit: np.ndarray, cell_atom: np.ndarray, cell_count: np.ndarray, n_units: int
    ) -> Any:
        """The (n_units, m) table of every unit's atom counts (dense, or sparse when large)."""
        c = int(n_units)
        unit = np.asarray(cell_unit, dtype=np.intp)
        atom = np.asarray(cell_atom, dtype=np.intp)
        count = np.asarray(cell_count, dtype=float)
        table: Any
        if c * self.m <= 4_000_000:
            table = np.zeros((c, self.m))
            np.add.at(table, (unit, atom), count)
        else:
            from scipy import sparse  # lazily: the MT commands import this without scipy

            table = sparse.csr_matrix((count, (unit, atom)), shape=(c, self.m))
            table.sum_duplicates()
        return table

    def whole_units(
        self,
        cell_unit: np.ndarray,
        cell_atom: np.ndarray,
        cell_count: np.ndarray,
        n_units: int,
    ) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """``f(U)``: for the units' draw counts ``U`` (b, n_units), the values (b, n_out)
        and every unit's summed influence (b, n_units, n_out), from the units' exact
        sums of the statistics (a replicate costs ``n_units * d``, not ``m``)."""
        table = self._unit_table(cell_unit, cell_atom, cell_count, n_units)
        sums = self.sums.grouped(table)
        unit_phi_t = [np.ascontiguousarray(np.asarray(table @ p).T) for p in self.phi]
        unit_n = np.asarray(table.sum(axis=1), dtype=float).reshape(-1)

        def f(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            u = np.asarray(u, dtype=float)
            parts = self._systems(sums(u), (u @ unit_n)[:, None])
            values = self._contrast(np.stack([v for _, v, _ in parts], axis=1))
            inner = np.stack(
                [g @ unit_phi_t[s] for s, (_, _, g) in enumerate(parts) if g is not None],
                axis=2,
            )
            return values, self._contrast(inner)

        return f

    def whole_unit_values(
        self,
        cell_unit: np.ndarray,
        cell_atom: np.ndarray,
        cell_count: np.ndarray,
        n_units: int,
    ) -> Callable[[np.ndarray], np.ndarray]:
        """``f(U)``: :meth:`whole_units`'s values alone (b, n_out), without the
        gradients, for the intervals that read no replicate's standard error (the
        ``t`` and ``logit_t`` intervals, the percentile family): bit for bit
        :meth:`values` of the atoms' counts that ``U`` expands into (exact sums)."""
        sums = self.sums.grouped(self._unit_table(cell_unit, cell_atom, cell_count, n_units))
        empty = np.empty((0, 1))

        def f(u: np.ndarray) -> np.ndarray:
            parts = self._systems(sums(np.asarray(u, dtype=float)), empty, gradients=False)
            return self._contrast(np.stack([v for _, v, _ in parts], axis=1))

        return f
