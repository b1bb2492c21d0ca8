"""The additive kernels of the binned calibration metrics (ECE, MCE, the Brier terms).

:func:`_binned_kernel` builds the kernel of the per-sample vectors ``(n, C * B * 3)``
(one-hot of the bin times (1, y, p), per column) from their three non-zeros per sample
and column; :class:`_BinnedKernel` keeps those sparse atoms for the steps of its forward
differences.  The metrics themselves are in :mod:`mlci.metrics.calibration`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any, cast

import numpy as np

from ._base import AdditiveKernel, ExactSums, unique_rows

#: elements of one block of dense atoms in :meth:`_BinnedKernel._atom_blocks`
_BLOCK = 1 << 16


def _binned_kernel(
    cls: type[_BinnedKernel],
    which: np.ndarray,
    p: np.ndarray,
    y: np.ndarray,
    n_bins: int,
    g: Any,
    name: str,
) -> tuple[AdditiveKernel, np.ndarray]:
    """The additive kernel of the per-sample vectors ``(n, C * B * 3)`` (one-hot of the bin
    ``which`` times (1, y, p), per column) and their total, from their 3 non-zeros per
    sample and column: the atoms, their order, the keys and the exact sums of
    ``AdditiveKernel(phi)`` on the dense matrix (tests/test_calibration_atoms.py), whose rows
    sort as the rows ``(-bin, y, p)`` (a later bin's row is 0 where an earlier one has its 1).
    """
    from scipy import sparse  # lazily: the MT metrics import mlci.metrics without scipy

    n, c = p.shape
    width = n_bins * 3
    key = np.empty((n, 3 * c))
    key[:, 0::3] = -which
    key[:, 1::3] = y
    key[:, 2::3] = p
    rows, inverse = unique_rows(key)
    del key
    m = len(rows)
    # every atom's non-zeros (column j, bin b, part k) at j * 3B + 3b + k, sorted per row
    cols = (np.arange(c) * width)[None, :, None] + (-rows[:, 0::3, None]).astype(np.intp) * 3
    cols = (cols + np.arange(3)[None, None, :]).reshape(m, -1)
    parts = np.ones((m, c, 3))
    parts[:, :, 1:] = rows.reshape(m, c, 3)[:, :, 1:]
    atoms = sparse.csr_matrix(
        (parts.ravel(), cols.ravel(), np.arange(0, m * 3 * c + 1, 3 * c)), shape=(m, c * width)
    )
    del rows, parts, cols
    # the column sums, adding the samples in order as phi.sum(axis=0) does (bit for bit)
    total = np.zeros((c, n_bins, 3))
    for j in range(c):
        total[j, :, 0] = np.bincount(which[:, j], minlength=n_bins)
        total[j, :, 1] = np.bincount(which[:, j], weights=y[:, j], minlength=n_bins)
        total[j, :, 2] = np.bincount(which[:, j], weights=p[:, j], minlength=n_bins)
    # the dense atoms (m, C * B * 3) only for who reads them (gradients, the jackknife)
    kernel = cast(
        _BinnedKernel, cls.from_atoms(atoms.toarray, inverse, ExactSums(atoms), g, (), name)
    )
    kernel._sparse_atoms = atoms
    return kernel, total.reshape(1, -1)


class _BinnedKernel(AdditiveKernel):
    """The additive kernel of a binned calibration metric (:func:`_binned_kernel`): the
    steps of its forward differences from its sparse atoms.

    :meth:`AdditiveKernel._sum_gradient` scales every step by ``mean_k |atoms_k|`` per
    column, which on the dense (m, C * B * 3) atoms costs two arrays of the atoms' size
    (480 MiB at 10^6 samples) at every call (the method's choice, every linearized
    chunk).  Here it is summed once from the atoms' 3 non-zeros per sample and column,
    in the dense sum's order (row by row: ``np.bincount`` adds its weights in order, as
    numpy reduces a C-ordered array over its first axis), so every step, gradient and
    interval is bit for bit the dense one (tests/test_calibration_atoms.py).
    """

    _sparse_atoms: Any = None
    _abs_mean: np.ndarray | None = None
    _blocked = False

    def _mean_abs_atoms(self) -> np.ndarray:
        if self._abs_mean is None:
            a = self._sparse_atoms
            if a is None:  # (no sparse atoms: the dense mean)
                self._abs_mean = np.abs(self.atoms).mean(0)
            else:
                total = np.bincount(a.indices, weights=np.abs(a.data), minlength=a.shape[1])
                self._abs_mean = total / a.shape[0]
        return self._abs_mean

    def _atom_blocks(self) -> Iterator[tuple[int, np.ndarray]] | None:
        """The dense atoms by blocks of rows from the sparse ones, while the dense
        (m, C * B * 3) matrix is not built (issue 25: at 10^6 samples the gradient at
        the data cost 0.45 s and 360 MiB; the replicates' chunks build the matrix): the
        same rows, so :meth:`AdditiveKernel.gradient` gives the same numbers bit for bit
        (tests/engine/test_report_speed.py)."""
        a = self._sparse_atoms
        if a is None or self._atoms is not None or self._blocked:
            return None
        # once: a second gradient is a replicates' chunk (studentized), and chunks
        # of one replicate would convert the blocks again each time (at 10^6 samples,
        # B = 200: 11.5 s instead of 6.7 s); they read the dense atoms, built once
        self._blocked = True
        step = max(1, _BLOCK // max(a.shape[1], 1))
        return ((i, a[i : i + step].toarray()) for i in range(0, a.shape[0], step))

    def _sum_gradient(self, s: np.ndarray, total: np.ndarray, values: np.ndarray) -> np.ndarray:
        """:meth:`AdditiveKernel._sum_gradient` on a copy whose atoms are one row holding
        their mean magnitude (what that method reads of them: the mean of one row is the
        row itself, so the steps are the same numbers), without the dense atoms."""
        view = copy.copy(self)
        view._atoms = self._mean_abs_atoms()[None, :]
        return AdditiveKernel._sum_gradient(view, s, total, values)


class _NoGradient(_BinnedKernel):
    """An additive kernel whose metric is not differentiable (a maximum, a clipped root):
    no linearized interval, so ``method="auto"`` gives BCa."""

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray | None:
        return None
