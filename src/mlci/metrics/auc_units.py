"""The ROC AUC over whole units (conditions) from the units' draw counts alone.

When whole units are resampled, unit ``c`` drawn ``u_c`` times, the Mann-Whitney
numerator of a replicate is the quadratic form ``u' M u`` of the units' pair matrix
``M[c, c'] = #{positive of c above negative of c'} (+ 1/2 per tie)``, and the sum of
the placement values of unit ``c``'s samples is ``(M u)_c + (M' u)_c``
(:meth:`mlci.metrics.RocAucKernel.whole_units`).  This module builds ``2 M`` once,
exactly in integers, and evaluates replicates from it.

Two ways to build it, the cheaper one chosen from the data's shape:

* **by thresholds** (few distinct scores): each positive cell's threshold among the
  negatives is one of ``K`` distinct ``(negative atoms below, tied)`` pairs, so
  ``2 M = P H'`` with ``P[c, k]`` the positives of unit ``c`` at threshold ``k`` and
  ``H[c', k]`` twice the negatives of unit ``c'`` below it plus the tied ones: one
  dense ``n_units x K x n_units`` product (BLAS);
* **by blocks of negatives** (:func:`_dominance`, any scores): the whole blocks below
  a threshold as a sparse product with the blocks' cumulative histograms, the rest of
  the block cell pair by cell pair.

Both give every entry as an exact integer (sums of products of counts below ``2^53``),
so the matrix, and everything computed from it, is the same whichever way it was built.
A replicate then costs one product of its draw counts with the symmetric ``2 (M + M')``
(the numerator and both placement sums from it, exact in integers) instead of two
products with ``2 M`` and ``2 M'``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._base import safe_div

__all__ = ["MAX_PAIR_UNITS", "auc_unit_form", "pair_matrix"]

#: most units for :func:`auc_unit_form` (its n_units x n_units matrices: 32 MiB each at
#: 2048)
MAX_PAIR_UNITS = 2048
#: pairs of cells enumerated at once when building the pair matrix by blocks
PAIR_CHUNK = 1 << 19
#: elements of block histograms per product of the build by blocks in float32 (8 MiB;
#: measured at 1e6 samples x 2,000 units: 2^20-2^21 best)
SINGLE_CHUNK = 1 << 21
#: largest (units x thresholds) array of the build by thresholds (64 MiB)
_DENSE_ELEMENTS = 1 << 23
#: the build by thresholds is chosen while its dense product has at most this many
#: multiply-adds per (threshold cell x unit) of the build by blocks' sparse product (BLAS
#: runs ~7x more multiply-adds a second than the sparse product, which also has its
#: histograms and cell pairs to do: 4 is on the safe side)
_DENSE_PER_SPARSE = 4
#: sums of products of counts below this are exact in float64, in any order
_EXACT = 2.0**53


def _integral(x: np.ndarray) -> bool:
    """Whether every element of ``x`` is a non-negative integer."""
    return bool(np.all(x >= 0) and np.array_equal(x, np.floor(x)))


def pair_matrix(
    kernel: Any,
    cell_unit: np.ndarray,
    cell_atom: np.ndarray,
    cell_count: np.ndarray,
    n_units: int,
) -> np.ndarray:
    """``2 M``: twice the units' pair matrix of a ROC AUC kernel, shape (n_units, n_units).

    ``2 M[c, c']`` is twice the number of (positive of unit ``c``, negative of unit
    ``c'``) pairs with the positive above, plus the tied pairs (each counted once).

    Parameters
    ----------
    kernel : RocAucKernel
        Its atoms: negatives first (``kernel.m_neg`` of them), then positives, each by
        increasing score; ``kernel.below`` and ``kernel.tie`` place every positive atom
        among the negative ones.
    cell_unit, cell_atom, cell_count : ndarray, shape (n_cells,)
        The (unit, atom) cells of the data and their numbers of samples.
    n_units : int

    Returns
    -------
    ndarray, shape (n_units, n_units)
        Exact integers (as floats) when the counts are integers whose pair total is
        below ``2^53``.

    Examples
    --------
    >>> import numpy as np
    >>> from mlci.metrics import RocAucKernel
    >>> k = RocAucKernel(np.array([0, 1, 0, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    >>> unit = np.array([0, 0, 1, 1])  # unit 0: scores 0.1 (neg), 0.4 (pos); unit 1: 0.35, 0.8
    >>> pair_matrix(k, unit, k.keys, np.ones(4), 2)  # 0.4 > 0.1, 0.4 > 0.35; 0.8 > both
    array([[2., 2.],
           [2., 2.]])
    """
    return _pair_matrix(kernel, _Cells(kernel, cell_unit, cell_atom, cell_count), int(n_units))


class _Cells:
    """The positive and negative cells of a ROC AUC kernel's (unit, atom) cells."""

    def __init__(
        self, kernel: Any, cell_unit: np.ndarray, cell_atom: np.ndarray, cell_count: np.ndarray
    ) -> None:
        cell_unit = np.asarray(cell_unit, dtype=np.intp)
        cell_atom = np.asarray(cell_atom, dtype=np.intp)
        cell_count = np.asarray(cell_count, dtype=float)
        neg = cell_atom < kernel.m_neg
        self.na, self.nu, self.nw = cell_atom[neg], cell_unit[neg], cell_count[neg]
        self.pa = cell_atom[~neg] - kernel.m_neg
        self.pu, self.pw = cell_unit[~neg], cell_count[~neg]
        self.integral = _integral(cell_count)
        self.by_atom = False  # whether the negatives are sorted by atom (stable)

    def sort_negatives(self) -> None:
        """The negative cells by atom (a stable sort: the blocks' order)."""
        if not self.by_atom:
            order = np.argsort(self.na, kind="stable")
            self.na, self.nu, self.nw = self.na[order], self.nu[order], self.nw[order]
            self.by_atom = True


def _pair_matrix(kernel: Any, cells: _Cells, c: int) -> np.ndarray:
    """:func:`pair_matrix` of the split cells: by thresholds when that is exact and
    cheaper, else by blocks of negatives."""
    pa, pu, pw = cells.pa, cells.pu, cells.pw
    # the products in float32 when every sum in them is an integer below 2^24 (an entry
    # is at most twice a unit's positives times a unit's negatives): the same integers,
    # with half the memory read per multiply-add (twice BLAS's speed)
    single = (
        cells.integral and 2.0 * _largest(pu, pw, c) * _largest(cells.nu, cells.nw, c) < 2.0**24
    )
    if cells.integral and 2.0 * float(pw.sum()) * max(float(cells.nw.sum()), 1.0) < _EXACT:
        # the thresholds: (negative atoms below, tied) of every positive cell, as one key
        key = 2 * kernel.below[pa].astype(np.int64) + kernel.tie[pa]
        present = np.bincount(key, minlength=2 * kernel.m_neg + 2) > 0
        n_keys = int(present.sum())
        n_thresholds = len(key) * (2 if kernel.has_ties else 1)  # the blocks' cells
        if c * n_keys <= min(_DENSE_ELEMENTS, _DENSE_PER_SPARSE * n_thresholds):
            return _by_thresholds(kernel.m_neg, key, present, cells, c, single=single)
    cells.sort_negatives()
    nu, nw = cells.nu, cells.nw
    # first negative cell of every negative atom (and the end): the negative cells
    # below a positive atom are those before first[below]
    first = np.searchsorted(cells.na, np.arange(kernel.m_neg + 1))
    below = kernel.below[pa]
    if kernel.has_ties:
        # (strictly below + at or below) / 2 counts a tie one half: both thresholds of
        # every positive cell in one pass (integer sums, exact in any order)
        t2 = np.concatenate((first[below], first[below + kernel.tie[pa]]))
        pu2, pw2 = np.concatenate((pu, pu)), np.concatenate((pw, pw))
        return _dominance(t2, pu2, pw2, nu, nw, c, single=single)
    pairs2 = _dominance(first[below], pu, pw, nu, nw, c, single=single)
    pairs2 *= 2.0
    return pairs2


def _largest(unit: np.ndarray, weight: np.ndarray, c: int) -> float:
    """The largest total weight of one unit."""
    return float(np.bincount(unit, weights=weight, minlength=c).max(initial=0.0))


def _by_thresholds(
    m_neg: int,
    key: np.ndarray,
    present: np.ndarray,
    cells: _Cells,
    c: int,
    *,
    single: bool = False,
) -> np.ndarray:
    """``2 M = P H'`` over the ``K`` distinct thresholds ``key = 2 * below + tied`` of the
    positive cells (module docstring): ``P`` (c, K) the positives at each threshold,
    ``H`` (c, K) twice the negatives below it plus the tied ones.  ``single``: the
    product in float32 (integer sums below ``2^24``: the same integers)."""
    pu, pw, na, nu, nw = cells.pu, cells.pw, cells.na, cells.nu, cells.nw
    keys = np.flatnonzero(present)
    n_keys = len(keys)
    col = np.cumsum(present) - 1  # the column of every present key
    p = np.bincount(pu * n_keys + col[key], weights=pw, minlength=c * n_keys).reshape(c, n_keys)
    below, tied = keys >> 1, (keys & 1).astype(bool)
    # negatives below each distinct `below` value: a histogram of the negative cells by
    # how many of those values are at or below their atom, summed cumulatively
    bounds = np.unique(below)
    nb = len(bounds) + 1
    bin_of = np.searchsorted(bounds, na, side="right")
    hist = np.bincount(nu * nb + bin_of, weights=nw, minlength=c * nb).reshape(c, nb)
    cum = np.cumsum(hist, axis=1)  # cum[:, i]: the negatives below bounds[i]
    del hist, bin_of
    h = 2.0 * np.take(cum, np.searchsorted(bounds, below), axis=1)
    del cum
    if tied.any():
        # the negatives at the tied atom itself, once (each tied pair counts one half)
        atoms = below[tied]  # (negative atoms: a tie is with one of them)
        index = np.full(m_neg, -1, dtype=np.intp)
        index[atoms] = np.arange(len(atoms))
        at = index[na]
        sel = at >= 0
        n_tied = len(atoms)
        h[:, tied] += np.bincount(
            nu[sel] * n_tied + at[sel], weights=nw[sel], minlength=c * n_tied
        ).reshape(c, n_tied)
    if single:
        return (p.astype(np.float32) @ h.T.astype(np.float32)).astype(np.float64)
    return p @ h.T


def _dominance(
    t: np.ndarray,
    pu: np.ndarray,
    pw: np.ndarray,
    nu: np.ndarray,
    nw: np.ndarray,
    c: int,
    *,
    single: bool = False,
) -> np.ndarray:
    """``D[c, c'] = sum_i pw_i * (weight of the negative cells of unit c' before t_i)``.

    ``i`` runs over positive cells (unit ``pu``, weight ``pw``, threshold ``t``: a
    position in the negative cells, which have units ``nu`` and weights ``nw``).  The
    negative cells are cut into blocks of ``s``: the whole blocks below ``t_i`` are one
    matrix product of block histograms (O(n_cells / s * c^2)), the rest of ``t_i``'s
    block is enumerated cell pair by cell pair (fewer than ``s`` per positive cell).
    With integer weights every entry is an exact integer.  ``single``: the block
    products in float32 (for integer weights whose every sum is below ``2^24``: the
    same integers), in chunks of :data:`SINGLE_CHUNK` elements of block histograms.
    """
    n_neg = len(nu)
    s = int(np.clip(np.sqrt(c), 8, 256))
    n_blocks = n_neg // s + 1
    blk = t // s
    from scipy import sparse  # here: `import mlci.metrics` stays without scipy

    out = np.zeros((c, c))
    # whole blocks, a few block rows at a time: out[pu_i] += pw_i * (negatives of the
    # blocks before blk_i), a sparse (units x blocks) by dense (blocks x units) product
    order = np.argsort(blk, kind="stable")
    dtype = np.float32 if single else np.float64
    bs, us, ws = blk[order], pu[order], pw[order].astype(dtype)
    rows = max(1, (SINGLE_CHUNK if single else PAIR_CHUNK) // max(c, 1))
    below = np.zeros(c)
    for k0 in range(0, n_blocks, rows):
        k1 = min(k0 + rows, n_blocks)
        lo, hi = k0 * s, min(k1 * s, n_neg)
        hist = np.bincount(
            (np.arange(lo, hi) // s - k0) * c + nu[lo:hi],
            weights=nw[lo:hi],
            minlength=(k1 - k0) * c,
        ).reshape(k1 - k0, c)
        cum = np.cumsum(hist, axis=0, dtype=float)  # (float already: weighted counts)
        cum -= hist  # exclusive: the blocks before each one
        cum += below
        below = below + hist.sum(axis=0)
        a, b = np.searchsorted(bs, [k0, k1])
        if b > a:
            h = sparse.csr_matrix((ws[a:b], (us[a:b], bs[a:b] - k0)), shape=(c, k1 - k0))
            out += h @ cum.astype(dtype, copy=False)
    # the rest of each threshold's block, pair by pair
    start = blk * s
    length = t - start
    flat = out.reshape(-1)
    ends = np.cumsum(length)
    # each chunk adds a c x c histogram: chunks of at least c * c / 4 pairs keep that
    # addition below the chunk's own work
    chunk = max(PAIR_CHUNK, c * c // 4)
    # cells of one sample each (e.g. distinct scores): every pair weighs 1, counted
    ones = bool((pw == 1.0).all() and (nw == 1.0).all())
    row = pu * c
    i0 = 0
    while i0 < len(t):
        i1 = int(np.searchsorted(ends, ends[i0] - length[i0] + chunk, side="right"))
        i1 = max(i1, i0 + 1)
        ln = length[i0:i1]
        tot = int(ln.sum())
        if tot:
            # pair k of positive cell i: negative cell start_i + (k - first pair of i)
            q = np.arange(tot) + np.repeat(start[i0:i1] - (np.cumsum(ln) - ln), ln)
            index = np.repeat(row[i0:i1], ln) + nu[q]
            weights = None if ones else np.repeat(pw[i0:i1], ln) * nw[q]
            flat += np.bincount(index, weights=weights, minlength=c * c)
        i0 = i1
    return out


class AucUnitForm:
    """``f(U)``: the AUC of every row of units' draw counts ``U`` (b, n_units) and every
    unit's summed influence (b, n_units), from the pair matrix (built by
    :func:`auc_unit_form`).

    Attributes
    ----------
    pairs2 : ndarray, shape (n_units, n_units)
        ``2 M`` (:func:`pair_matrix`).
    both : ndarray or None
        ``2 (M + M')``, when its sums are exact (integer entries below ``2^52``).
    pos_of, neg_of : ndarray, shape (n_units,)
        Every unit's positive and negative samples.
    """

    def __init__(self, pairs2: np.ndarray, pos_of: np.ndarray, neg_of: np.ndarray) -> None:
        self.pairs2 = pairs2
        self.pos_of, self.neg_of = pos_of, neg_of
        self.size_of = pos_of + neg_of
        # the largest unit: every entry of 2 M is at most 2 pos_c neg_c'
        self._largest = float(self.size_of.max(initial=0.0))
        self.both: np.ndarray | None = None
        if _integral(pairs2) and 4.0 * self._largest**2 < _EXACT:
            self.both = pairs2 + pairs2.T  # exact: integers below 2^53

    def _exact_rows(self, u: np.ndarray) -> bool:
        """Whether the one symmetric product gives the two products' numbers bit for bit:
        non-negative integer draw counts whose sums are all exact.  With ``T`` a row's
        samples (``u . size_of``), the numerator's sums are at most ``T^2`` and a unit's
        placement sums at most ``2 T max_c size_c``, on both ways (sums of non-negative
        terms: every partial sum below its total)."""
        if self.both is None or not _integral(u):
            return False
        total = float((u @ self.size_of).max(initial=0.0))
        return total * max(total, 2.0 * self._largest) < _EXACT

    def __call__(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        u = np.asarray(u, dtype=float)
        if self._exact_rows(u):
            assert self.both is not None
            # 2 (M u) + 2 (M' u), the placement sums, and u' (2 M + 2 M') u = 4 u' M u,
            # every sum an exact integer: the numbers of the two products below
            both = u @ self.both
            num = 0.25 * np.einsum("ij,ij->i", u, both)
        else:
            above = u @ self.pairs2.T  # 2 (M u): twice the positives' placement sums
            under = u @ self.pairs2  # 2 (M' u): the negatives'
            num = 0.5 * np.einsum("ij,ij->i", u, above)
            both = above + under
        pos_of, neg_of = self.pos_of, self.neg_of
        n_pos, n_neg = u @ pos_of, u @ neg_of
        den = n_neg * n_pos
        values = safe_div(num, den)
        with np.errstate(invalid="ignore", divide="ignore"):
            inner = both / (2.0 * den)[:, None] - values[:, None] * (
                pos_of / n_pos[:, None] + neg_of / n_neg[:, None]
            )
        return values, inner


def auc_unit_form(
    kernel: Any,
    cell_unit: np.ndarray,
    cell_atom: np.ndarray,
    cell_count: np.ndarray,
    n_units: int,
) -> AucUnitForm | None:
    """:class:`AucUnitForm` of a ROC AUC kernel over whole units, or None when there are
    too many units for the pair matrix to pay off (more than :data:`MAX_PAIR_UNITS`, or
    more than 32 units squared per cell).

    Parameters
    ----------
    kernel : RocAucKernel
    cell_unit, cell_atom, cell_count : ndarray, shape (n_cells,)
        The (unit, atom) cells of the data and their numbers of samples.
    n_units : int

    Examples
    --------
    >>> import numpy as np
    >>> from mlci.metrics import RocAucKernel
    >>> k = RocAucKernel(np.array([0, 1, 0, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    >>> f = auc_unit_form(k, np.array([0, 0, 1, 1]), k.keys, np.ones(4), 2)
    >>> values, inner = f(np.array([[1.0, 1.0], [2.0, 0.0]]))
    >>> values  # the data (every pair ordered), then unit 0 twice (0.4 > 0.1)
    array([1., 1.])
    """
    c = int(n_units)
    if c > MAX_PAIR_UNITS or c * c > 32 * len(cell_atom):
        return None
    cells = _Cells(kernel, cell_unit, cell_atom, cell_count)
    pairs2 = _pair_matrix(kernel, cells, c)
    pos_of = np.bincount(cells.pu, weights=cells.pw, minlength=c)
    if not cells.integral:  # (fractional counts: summed in the order of the blocks)
        cells.sort_negatives()
    neg_of = np.bincount(cells.nu, weights=cells.nw, minlength=c)
    return AucUnitForm(pairs2, pos_of, neg_of)
