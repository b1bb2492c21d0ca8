"""Encoding labels as integer codes: shared by the resampling plans and the metric kernels."""

from __future__ import annotations

import numpy as np

__all__ = ["fast_unique", "unique_inverse"]


def fast_unique(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)``, in O(n) for integers of a small range.

    Integer (and boolean) arrays whose range is at most a few times their length are
    counted (``bincount``) instead of sorted: about 10x faster at n = 10^6, where the sort
    otherwise dominates a whole bootstrap of a decision metric.  Other arrays go through
    ``np.unique``.  The inverse is an ``intp`` array of shape (n,).

    Examples
    --------
    >>> u, inv = fast_unique(np.array([7, 3, 7, 9]))
    >>> u.tolist(), inv.tolist()
    ([3, 7, 9], [1, 0, 1, 2])
    """
    values = np.asarray(values)
    if values.dtype.kind in "biu" and values.ndim == 1 and values.size:
        v = values.astype(np.int64, copy=False)
        lo, hi = int(v.min()), int(v.max())
        if hi - lo <= 4 * v.size + 1024:
            shifted = v - lo if lo else v
            present = np.bincount(shifted, minlength=hi - lo + 1) > 0
            rank = np.cumsum(present, dtype=np.intp) - 1
            uniques = (np.flatnonzero(present) + lo).astype(values.dtype)
            return uniques, rank[shifted]
    uniques, inv = np.unique(values, return_inverse=True)
    return uniques, inv.reshape(-1).astype(np.intp, copy=False)


def unique_inverse(values: np.ndarray) -> np.ndarray:
    """Index of every value among the sorted distinct values (see :func:`fast_unique`).

    Examples
    --------
    >>> unique_inverse(np.array([7, 3, 7, 9])).tolist()
    [1, 0, 1, 2]
    """
    return fast_unique(values)[1]
