"""Metric kernels: a metric evaluated on many replicates at once, from atom weights.

A *kernel* is the metric bound to one data set.  It says which *atom* every sample
belongs to (``keys``, values in ``[0, m)``) and evaluates the metric for a chunk of
replicates given their atom counts ``W`` of shape ``(b, m)``.  The original data is
``W = counts`` (every atom with its number of samples); a bootstrap replicate is any
other vector of counts.  Atoms are chosen per metric so that ``m`` is as small as
possible: confusion-matrix metrics have ``m = K * K`` atoms whatever ``n``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

import numpy as np

__all__ = [
    "MAX_NUMERIC_ATOMS",
    "PROPORTION_REASON",
    "AdditiveKernel",
    "ConfusionKernel",
    "ExactSums",
    "Kernel",
    "SampleWeightedKernel",
    "UnitSumsKernel",
    "check_sample_weight",
    "numeric_gradient",
    "unique_rows",
    "with_sample_weight",
    "zero_one",
]


class Kernel:
    """Base class of metric kernels.

    Attributes
    ----------
    name : str
        The metric's name.
    keys : ndarray of intp, shape (n,)
        Atom of every sample.
    m : int
        Number of atoms.
    shape : tuple
        Shape of the metric's value (``()`` for a scalar).
    work_factor : float
        Bytes of working memory per atom and replicate, divided by 8; the engine sizes
        its chunks with it.
    bounds : (float, float)
        The metric's range (e.g. ``(0, 1)`` for a proportion): intervals are kept inside
        it and one-sided intervals end at its edges.
    elements : tuple or None
        Names of the elements of a vector-valued metric (the classes of a per-class one).

    Notes
    -----
    A kernel may also offer fused forms that the linearized intervals use when present
    (:mod:`mlci.engine.linearize`): ``influence_moments(w)`` -> ``(values, sum w g,
    sum w g^2)`` per row, and ``whole_units(cell_unit, cell_atom, cell_count, n_units)``
    -> a function of the units' draw counts giving the values and every unit's summed
    gradient (see :class:`~mlci.metrics.RocAucKernel`).
    """

    name: str = "metric"
    keys: np.ndarray
    m: int
    shape: tuple[int, ...] = ()
    work_factor: float = 6.0
    bounds: tuple[float, float] = (-np.inf, np.inf)
    elements: tuple[object, ...] | None = None
    #: ``(numerator, denominator)`` boolean masks over the atoms when the metric is one
    #: proportion ``k / n`` of counts (accuracy, recall, precision...), else None; the
    #: Wilson-type intervals need it
    proportion: tuple[np.ndarray, np.ndarray] | None = None
    #: why the kernel is a proportion when its metric is not one by name (a mean of 0/1
    #: values), appended to ``method_reason`` where ``"auto"`` gives it a proportion's
    #: interval; empty for the rates
    proportion_reason: str = ""
    #: a canonical order of the atoms, shape (m,): ``atom_rank[a]`` is atom ``a``'s place
    #: in an order defined by the data's values alone (the ranking kernels: by score,
    #: ties by the label as given).  The engine's samplers then draw through the samples
    #: in that order instead of the order of the rows, so that a seed gives the same
    #: replicates for any order of the rows (issue 20).  None keeps the draws in row order
    #: (the seeded results of the other metrics, as before)
    atom_rank: np.ndarray | None = None

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        """Metric for each row of atom counts ``w`` (b, m) -> (b, *shape); NaN if undefined."""
        raise NotImplementedError

    def delete_one(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Exact delete-one-sample jackknife, if the kernel has a fast formula.

        Returns ``(values, multiplicity)``: the metric with one sample of atom ``k``
        removed, for every atom with a positive count, and that count.  ``None`` when
        there is no shortcut (the engine then uses a grouped jackknife).
        """
        return None

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray | None:
        """Derivative of the metric with respect to each atom's weight, per replicate.

        ``w`` (b, m) are replicate weights and ``values`` (b, *shape) the metric on them;
        returns (b, m, *shape), or None when the kernel cannot (the studentized and
        t intervals are then unavailable).  The default differentiates numerically when
        there are at most :data:`MAX_NUMERIC_ATOMS` atoms; kernels with many atoms
        (ranking, additive) override it with a closed form.
        """
        if self.m > MAX_NUMERIC_ATOMS:
            return None
        return numeric_gradient(self.evaluate, w, values)


#: largest number of atoms for which the default gradient differentiates numerically
MAX_NUMERIC_ATOMS = 64
#: relative step of the forward differences (error ~1e-7 of the derivative, far below the
#: sampling error of a standard error)
_STEP = 1e-7


def numeric_gradient(
    fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray, values: np.ndarray
) -> np.ndarray:
    """Forward-difference gradient of ``fn`` (rows of ``x`` (b, d) -> (b, *S)): (b, d, *S)."""
    x = np.asarray(x, dtype=float)
    b, d = x.shape
    scale = np.abs(x).sum(axis=1)
    h = _STEP * np.where(scale > 0, scale, 1.0)
    out = np.empty((b, d, *values.shape[1:]))
    shifted = x.copy()
    hh = h.reshape((b,) + (1,) * (values.ndim - 1))
    for k in range(d):
        shifted[:, k] += h
        out[:, k] = (fn(shifted) - values) / hh
        shifted[:, k] = x[:, k]
    return out


def unique_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(a, axis=0, return_inverse=True)`` for a 2-d numeric array, fast.

    The same rows in the same (lexicographic, first column first) order and the same
    inverse; each row is the first occurrence of its value in ``a``.  numpy's ``axis=0``
    path sorts a structured view of the rows (a calibration kernel over 1e6 samples:
    1.06 s), and a lexsort of the columns still costs a stable sort per column (a mean's
    ``(value, 1)`` rows over 1e6 samples: 1.6 s on a loaded machine).  Here a constant
    column is skipped (it changes neither the order nor the identity of rows, e.g. the
    mean's column of ones), every other column is ranked by one unstable sort, and the
    ranks, whose order is the columns' lexicographic order, are combined into one integer
    key, ranked again in O(n) when the keys are dense (the mean: 0.09 s); where the next
    column would take the key past ``2**62`` combinations, the key so far is replaced by
    its dense rank first (the same order; the joint atoms of 5 roc_auc kernels over 1e6
    samples).  NaN or a non-numeric array take the lexsort path (NaN rows stay distinct
    there, as ``!=`` says).

    Examples
    --------
    >>> rows, inverse = unique_rows(np.array([[1.0, 0.5], [0.0, 2.0], [1.0, 0.5]]))
    >>> rows.tolist(), inverse.tolist()
    ([[0.0, 2.0], [1.0, 0.5]], [1, 0, 1])
    """
    a = np.asarray(a)
    n = a.shape[0]
    if n == 0:
        return a.copy(), np.zeros(0, dtype=np.intp)
    if (
        a.ndim != 2
        or a.shape[1] == 0
        or a.dtype.kind not in "biuf"
        or (a.dtype.kind == "f" and bool(np.isnan(a).any()))
    ):
        return _lexsort_unique_rows(a)
    ranks: list[np.ndarray] = []
    sizes: list[int] = []
    for j in range(a.shape[1]):
        col = a[:, j]
        if col[0] == col[-1] and bool(np.all(col == col[0])):
            continue
        rank, size = _rank(col, dense_below=4 * n)
        ranks.append(rank)
        sizes.append(size)
    if not ranks:  # every row the same
        return a[:1].copy(), np.zeros(n, dtype=np.intp)
    key, combined = ranks[0].astype(np.int64), sizes[0]
    for rank, size in zip(ranks[1:], sizes[1:], strict=True):
        if float(combined) * float(size) >= 2.0**62:
            # the prefix's dense rank orders as the prefix does (at most n values, and
            # size <= n: the next fold stays below 2**62)
            dense, combined = _rank(key, dense_below=4 * n)
            key = dense.astype(np.int64)
        key *= size
        key += rank
        combined *= size
    if len(ranks) == 1:
        inverse = ranks[0]  # already 0..size-1, every rank present
    else:
        inverse, _ = _rank(key, dense_below=4 * n)
    m = int(inverse.max()) + 1
    first = np.full(m, n, dtype=np.intp)
    np.minimum.at(first, inverse, np.arange(n, dtype=np.intp))
    # np.take, not a[first]: numpy's fancy indexing of rows is ~10x slower (0.42 s at 1e6)
    return np.take(a, first, axis=0), inverse.astype(np.intp, copy=False)


def _rank(x: np.ndarray, dense_below: int = 0) -> tuple[np.ndarray, int]:
    """Dense ranks of the values of ``x`` (0 for the smallest; equal values share their
    rank) and the number of distinct values.  Non-negative integers below
    ``dense_below`` are ranked by counting, in O(n); anything else by one sort."""
    n = len(x)
    if x.dtype.kind in "iu" and dense_below and int(x.max()) < dense_below and x.min() >= 0:
        present = np.bincount(x, minlength=int(x.max()) + 1) > 0
        rank_of = np.cumsum(present) - 1
        return rank_of[x].astype(np.intp), int(present.sum())
    order = np.argsort(x)
    s = x[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(s[1:], s[:-1], out=new[1:])
    rank = np.empty(n, dtype=np.intp)
    rank[order] = np.cumsum(new) - 1
    return rank, int(np.count_nonzero(new))


def _lexsort_unique_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`unique_rows` by a lexsort of the columns (any array with rows)."""
    order = np.lexsort(a.T[::-1])
    s = np.take(a, order, axis=0)
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    np.any(s[1:] != s[:-1], axis=1, out=new[1:])
    inverse = np.empty(len(s), dtype=np.intp)
    inverse[order] = np.cumsum(new) - 1
    return s[new], inverse


def zero_one(values: np.ndarray) -> bool:
    """Whether every value is 0 or 1 (and there is at least one): a mean of such values
    is a proportion (issue 20).

    Examples
    --------
    >>> zero_one(np.array([0.0, 1.0, 1.0])), zero_one(np.array([0.0, 0.5]))
    (True, False)
    """
    v = np.asarray(values)
    return bool(v.size) and bool(np.all((v == 0) | (v == 1)))


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with NaN where ``den == 0`` (an undefined metric), without warnings."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    ok = den != 0
    return np.where(ok, num / np.where(ok, den, 1.0), np.nan)


#: :attr:`Kernel.proportion_reason` of a mean of 0/1 values
PROPORTION_REASON = (
    " (the values are all 0 or 1: their mean is a proportion, given the interval accuracy "
    "gets; a mean's studentized interval covered 0.11-0.90 at p = 0.99-0.995 and n = "
    "20-1,000: docs/validation.md, 'The mean of 0/1 values as a proportion')"
)


class ConfusionKernel(Kernel):
    """Metrics of the confusion matrix: ``m = K*K`` atoms, one per (true, predicted) cell.

    Parameters
    ----------
    true_idx, pred_idx : ndarray of int, shape (n,)
        Class index (0..K-1) of every sample's label and prediction.
    n_classes : int
    fn : callable
        ``fn(cm)`` with ``cm`` of shape (b, K, K) (rows: true class, columns: predicted
        class) returning (b, *shape).
    shape : tuple
    name : str
    """

    work_factor = 4.0

    def __init__(
        self,
        true_idx: np.ndarray,
        pred_idx: np.ndarray,
        n_classes: int,
        fn: Callable[[np.ndarray], np.ndarray],
        shape: tuple[int, ...],
        name: str,
    ) -> None:
        self.k = int(n_classes)
        self.keys = (np.asarray(true_idx) * self.k + np.asarray(pred_idx)).astype(np.intp)
        self.m = self.k * self.k
        self.fn = fn
        self.shape = shape
        self.name = name

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        cm = np.asarray(w, dtype=float).reshape(-1, self.k, self.k)
        return self.fn(cm)


#: bits per fixed-point piece of :class:`ExactSums` (three pieces: 63 bits)
_PIECE_BITS = 21
#: elements (rows x columns) of one block of :class:`ExactSums`'s pieces
_PIECE_ROWS = 1 << 16
#: held while :attr:`AdditiveKernel.atoms` makes the dense atoms
_ATOMS_LOCK = threading.Lock()


class ExactSums:
    """Weighted column sums ``w @ values`` that are the same on any chunk of replicates.

    A matrix product's rounding depends on how BLAS splits it, so ``w @ values`` for one
    replicate can differ in its last bit between chunk sizes, thread counts and machines,
    and a seed would not give the same interval everywhere.  Here every column of
    ``values`` is written, exactly up to ``2**-63`` of its largest magnitude, as three
    integer-valued pieces of 21 bits times powers of two.  For integer weights (the
    engine's multinomial and Poisson counts) with a total below ``2**32`` every product
    and partial sum of ``w @ pieces`` is an integer below ``2**53``, hence exact in any
    order; the pieces are then recombined elementwise.  The result is bit-identical
    whatever the chunk, the thread count or the BLAS, and at least as accurate as the plain
    product.  For other weights it is an ordinary (accurate, order-dependent) product.

    Parameters
    ----------
    values : ndarray, shape (m,) or (m, d)
        Finite values per atom.

    Examples
    --------
    >>> import numpy as np
    >>> v = np.array([0.1, 0.2, 0.3])
    >>> w = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 1.0]])
    >>> ExactSums(v)(w)
    array([1.4, 0.5])
    """

    def __init__(self, values: Any) -> None:
        if hasattr(values, "tocsr"):  # a scipy sparse matrix: sparse pieces
            self._sparse_pieces(values.tocsr())
            return
        values = np.asarray(values, dtype=float)
        self.vector = values.ndim == 1
        v = values.reshape(len(values), -1)
        top = np.max(np.abs(v), axis=0, initial=0.0)
        # a power of two at or above every column's largest magnitude: |v / scale| <= 1
        self.scale = np.where(top > 0, np.exp2(np.ceil(np.log2(np.where(top > 0, top, 1.0)))), 1.0)
        self.d = d = v.shape[1]
        self.pieces: Any = np.empty((len(v), 3 * d))
        # by blocks of rows that stay in cache (the same elementwise operations)
        step = max(1, _PIECE_ROWS // max(d, 1))
        for a in range(0, len(v), step):
            rest = v[a : a + step] / self.scale
            for k, last in enumerate((False, False, True)):
                rest *= 2.0**_PIECE_BITS
                piece = self.pieces[a : a + step, k * d : (k + 1) * d]
                np.rint(rest, out=piece) if last else np.trunc(rest, out=piece)
                rest -= piece
        self._nonzero_pieces()

    def _sparse_pieces(self, v: Any) -> None:
        """Pieces of a sparse (m, d) matrix, kept sparse: the same elementwise operations
        on its stored values as the dense path, so every piece is bit for bit the dense
        one (and the zeros' pieces are zeros), at the memory of the non-zeros."""
        from scipy import sparse  # lazily: the MT metrics import this module without scipy

        self.vector = False
        self.d = d = v.shape[1]
        cols = v.indices.astype(np.intp)
        top = np.zeros(d)
        np.maximum.at(top, cols, np.abs(v.data))
        self.scale = np.where(top > 0, np.exp2(np.ceil(np.log2(np.where(top > 0, top, 1.0)))), 1.0)
        rest = np.asarray(v.data, dtype=float) / self.scale[cols]
        # row r's pieces side by side, k = 0, 1, 2: its values go to 3 indptr[r] + k L_r + q
        length = np.diff(v.indptr)
        data = np.empty(3 * len(rest))
        indices = np.empty(3 * len(rest), dtype=np.intp)
        if len(length) and bool((length == length[0]).all()):
            # every row with L values (the binned kernels' atoms): the same places as a
            # (rows, 3, L) array, written by strided copies instead of scattered writes
            rows = (len(length), 3, int(length[0]))
            data_k, indices_k = data.reshape(rows), indices.reshape(rows)
            rest2, cols2 = rest.reshape(rows[0], rows[2]), cols.reshape(rows[0], rows[2])
            for k, last in enumerate((False, False, True)):
                rest2 *= 2.0**_PIECE_BITS
                piece = np.rint(rest2) if last else np.trunc(rest2)
                rest2 -= piece
                data_k[:, k, :] = piece
                np.add(cols2, k * d, out=indices_k[:, k, :])
        else:
            at = 2 * np.repeat(v.indptr[:-1], length) + np.arange(len(rest))  # 3 indptr[r] + q
            step = np.repeat(length, length)
            for k, last in enumerate((False, False, True)):
                rest *= 2.0**_PIECE_BITS
                piece = np.rint(rest) if last else np.trunc(rest)
                rest -= piece
                data[at + k * step] = piece
                indices[at + k * step] = cols + k * d
            del at, step
        del rest
        shape = (len(length), 3 * d)
        self.pieces = sparse.csr_matrix((data, indices, 3 * v.indptr), shape=shape)
        self._nonzero_pieces()

    def _nonzero_pieces(self) -> None:
        if hasattr(self.pieces, "tocsr"):
            # sparse: the product skips the zeros already
            self._live: np.ndarray | None = None
            self._live_pieces: Any = None
            return
        # the piece columns that are not all zero (integer counts below 2^21 have only the
        # first piece): the product skips the others, whose sums are exactly 0 anyway, so
        # the result is bit for bit the same at a third of the work
        live = np.flatnonzero(np.any(self.pieces != 0, axis=0))
        self._live = None if len(live) == self.pieces.shape[1] else live
        # np.take: a fancy index of columns is several times slower on large pieces
        self._live_pieces = None if self._live is None else np.take(self.pieces, live, axis=1)

    def __call__(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        if hasattr(self.pieces, "tocsr"):
            # (pieces^T w^T)^T: integer products and sums, exact in any order as above
            w2 = w.reshape(-1, w.shape[-1])
            # (C-ordered like the dense product's: the metric's reductions then add alike)
            s = np.ascontiguousarray(np.asarray(self.pieces.T @ w2.T).T)
            s = s.reshape(*w.shape[:-1], self.pieces.shape[1])
        elif self._live is None:
            s = w @ self.pieces
        else:
            s = np.zeros((*w.shape[:-1], self.pieces.shape[1]))
            s[..., self._live] = w @ self._live_pieces
        d = self.d
        step = 2.0**-_PIECE_BITS
        out = ((s[..., 2 * d :] * step + s[..., d : 2 * d]) * step + s[..., :d]) * step
        out = out * self.scale
        return out[..., 0] if self.vector else out

    @staticmethod
    def side_by_side(parts: Sequence[tuple[ExactSums, np.ndarray]]) -> ExactSums:
        """The sums of several :class:`ExactSums` side by side, each over rows of its own
        atoms: ``parts`` holds ``(sums, rows)``, row ``k`` of the result being atom
        ``rows[k]`` of ``sums``.  Every column keeps its pieces and scale, so one product
        gives each part's sums bit for bit (e.g. several systems' statistics over their
        joint atoms)."""
        out = object.__new__(ExactSums)
        out.vector = False
        out.d = sum(e.d for e, _ in parts)
        out.scale = np.concatenate([e.scale for e, _ in parts])
        blocks = [
            e.pieces[np.asarray(rows, dtype=np.intp)][:, k * e.d : (k + 1) * e.d]
            for k in range(3)
            for e, rows in parts
        ]
        if any(hasattr(b, "tocsr") for b in blocks):
            from scipy import sparse  # lazily, as above

            out.pieces = sparse.hstack([sparse.csr_matrix(b) for b in blocks], format="csr")
        else:
            out.pieces = np.ascontiguousarray(np.hstack(blocks))
        out._nonzero_pieces()
        return out

    def grouped(self, table: Any) -> ExactSums:
        """The same sums over groups of atoms: ``table`` (g, m) holds how many times each
        atom enters each group (integer counts, dense or sparse).

        The groups' pieces are the exact (integer) sums of their atoms' pieces, with the
        same scales, so for integer weights ``u`` (g,) the result of ``u`` on the groups is
        bit for bit that of the atom weights ``u @ table`` on the atoms, as long as the
        weights' total stays below ``2**32``.
        """
        out = object.__new__(ExactSums)
        out.vector, out.scale, out.d = self.vector, self.scale, self.d
        grouped = table @ self.pieces
        if hasattr(grouped, "toarray"):
            grouped = grouped.toarray()
        out.pieces = np.ascontiguousarray(np.asarray(grouped, dtype=float))
        out._nonzero_pieces()
        return out


class AdditiveKernel(Kernel):
    """Metrics that are a function of weighted sums of per-sample vectors.

    ``metric = g(sum_i w_i * phi_i)``, with ``phi`` of shape (n, d): e.g. the mean loss
    is ``g(s) = s[0] / s[1]`` with ``phi_i = (loss_i, 1)``.  Samples with identical
    ``phi`` rows share an atom, so 0/1 losses need two atoms whatever ``n``.  The
    delete-one jackknife is exact and costs O(m): ``g(S - phi_k)``.
    """

    work_factor = 3.0

    def __init__(
        self,
        phi: np.ndarray,
        g: Callable[[np.ndarray], np.ndarray],
        shape: tuple[int, ...],
        name: str,
    ) -> None:
        phi = np.asarray(phi, dtype=float)
        if phi.ndim == 1:
            phi = phi[:, None]
        if phi.shape[1] == 1:
            atoms, keys = np.unique(phi[:, 0], return_inverse=True)
            atoms = atoms[:, None]
        else:
            atoms, keys = unique_rows(phi)
        self._setup(atoms, len(atoms), keys, ExactSums(atoms), g, shape, name)

    #: a regression kernel's signed errors ``y_true - y_pred`` per sample (metrics/additive.py),
    #: for the heavy-tail rule's skewness (engine/heavy_tail.py); None for other kernels
    signed_errors: np.ndarray | None = None

    #: the atoms, or (from :meth:`from_atoms`) None until first read, built by ``_make_atoms``
    _atoms: np.ndarray | None = None
    _make_atoms: Callable[[], np.ndarray] | None = None

    @property
    def atoms(self) -> np.ndarray:
        """The distinct per-sample vectors (m, d), made on first read when
        :meth:`from_atoms` was given a function (a condition bootstrap never reads them)."""
        if self._atoms is None and self._make_atoms is not None:
            # once, under a lock: the replicates' threads may read them first at once
            with _ATOMS_LOCK:
                if self._atoms is None and self._make_atoms is not None:
                    self._atoms = np.asarray(self._make_atoms(), dtype=float)
                    self._make_atoms = None
        return cast(np.ndarray, self._atoms)

    @atoms.setter
    def atoms(self, value: np.ndarray) -> None:
        self._atoms = value

    @classmethod
    def from_atoms(
        cls,
        atoms: np.ndarray | Callable[[], np.ndarray],
        keys: np.ndarray,
        sums: ExactSums,
        g: Callable[[np.ndarray], np.ndarray],
        shape: tuple[int, ...],
        name: str,
    ) -> AdditiveKernel:
        """The kernel of given distinct rows ``atoms`` (m, d) of the per-sample vectors
        (or a function that makes them, called on first read), the atom of every sample
        ``keys`` (n,) and their :class:`ExactSums` ``sums``: for a caller that builds them
        without the (n, d) matrix (e.g. sparse rows), in the order and with the sums the
        constructor would give."""
        out = cls.__new__(cls)
        m = int(sums.pieces.shape[0])
        if callable(atoms):
            out._make_atoms = atoms
            out._setup(None, m, keys, sums, g, shape, name)
        else:
            out._setup(np.asarray(atoms, dtype=float), m, keys, sums, g, shape, name)
        return out

    def _setup(
        self,
        atoms: np.ndarray | None,
        m: int,
        keys: np.ndarray,
        sums: ExactSums,
        g: Callable[[np.ndarray], np.ndarray],
        shape: tuple[int, ...],
        name: str,
    ) -> None:
        self._atoms = atoms
        self._sums = sums
        self.keys = np.asarray(keys).reshape(-1).astype(np.intp)
        self.m = m
        self.g = g
        self.shape = shape
        self.name = name

    def as_proportion(self, weighted: bool = False) -> AdditiveKernel:
        """This kernel as a proportion: a mean ``s[0] / s[1]`` of 0/1 values (issue 20).

        The range is ``(0, 1)``; unweighted (every ``phi`` row ``(value, 1)``), the
        numerator and denominator masks over the atoms (:attr:`Kernel.proportion`) are set
        too, so ``method="auto"`` gives it what accuracy gets: Wilson's interval of
        independent samples, the logit t over conditions, Tango's interval for a paired
        difference.  ``weighted``: a weighted mean of 0/1 values, which, as accuracy with
        ``sample_weight``, is not a binomial proportion: the range only.  Returns self.
        """
        self.bounds = (0.0, 1.0)
        if not weighted:
            atoms = self.atoms
            self.proportion = (atoms[:, 0] == 1, np.ones(len(atoms), dtype=bool))
            self.proportion_reason = PROPORTION_REASON
        return self

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        return self.g(self._sums(w))

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray | None:
        # chain rule through the d sums: d metric / d w_k = atoms[k] . grad g(s)
        s = self._sums(w)
        grad_s = self._sum_gradient(s, np.abs(w).sum(axis=1, keepdims=True), values)
        blocks = self._atom_blocks() if len(grad_s) == 1 else None
        if blocks is None:
            return np.einsum("md,bd...->bm...", self.atoms, grad_s)
        # by blocks of atoms: each row's sum is the same einsum over the same d products
        # (the block has the atoms' strides), so bit for bit the one-call result
        out = np.empty((grad_s.shape[0], self.m, *grad_s.shape[2:]))
        for start, block in blocks:
            out[:, start : start + len(block)] = np.einsum("md,bd...->bm...", block, grad_s)
        return out

    def _atom_blocks(self) -> Iterator[tuple[int, np.ndarray]] | None:
        """``(first row, dense rows)`` blocks of the atoms for :meth:`gradient` at one
        weight vector (the data's: the replicates' chunks read :attr:`atoms`, built
        once), for a subclass that holds them in another form (None: :attr:`atoms`)."""
        return None

    def _sum_gradient(self, s: np.ndarray, total: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Forward differences of ``g`` at the sums ``s`` (b, d) of replicates of total
        weight ``total`` (b, 1): (b, d, *shape)."""
        b, d = s.shape
        scale = np.abs(s) + total * np.abs(self.atoms).mean(0)
        h = _STEP * np.where(scale > 0, scale, 1.0)
        grad_s = np.empty((b, d, *values.shape[1:]))
        hh_shape = (b,) + (1,) * (values.ndim - 1)
        for j in range(d):
            shifted = s.copy()
            shifted[:, j] += h[:, j]
            grad_s[:, j] = (self.g(shifted) - values) / h[:, j].reshape(hh_shape)
        return grad_s

    def whole_units(
        self,
        cell_unit: np.ndarray,
        cell_atom: np.ndarray,
        cell_count: np.ndarray,
        n_units: int,
    ) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None:
        """The linearized intervals' fused form over whole units (conditions).

        Returns ``f(U)``: for the units' draw counts ``U`` (b, n_units), the metric (bit
        for bit :meth:`evaluate` on the atoms, from the units' exact sums) and every
        unit's summed gradient ``S_c . grad g(s)`` (b, n_units), ``S_c`` the unit's sums of
        ``phi`` (equal to the atoms' path to rounding, ~1e-16).  A replicate then costs
        ``n_units * d``, not ``m``.  None when it would not be smaller, for a scalar
        metric only, or when a subclass changes the evaluation or the gradient.
        """
        if (
            type(self).evaluate is not AdditiveKernel.evaluate
            or type(self).gradient is not AdditiveKernel.gradient
            or self.shape != ()
            or n_units >= self.m
        ):
            return None
        from scipy import sparse  # lazily: the MT metrics import this module without scipy

        table = sparse.csr_matrix(
            (np.asarray(cell_count, dtype=float), (cell_unit, cell_atom)),
            shape=(int(n_units), self.m),
        )
        table.sum_duplicates()
        sums = self._sums.grouped(table)
        unit_phi = np.asarray(table @ self.atoms)
        unit_n = np.asarray(table.sum(axis=1)).reshape(-1)

        def f(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            u = np.asarray(u, dtype=float)
            s = sums(u)
            values = self.g(s)
            grad_s = self._sum_gradient(s, (u @ unit_n)[:, None], values)
            return values, grad_s @ unit_phi.T

        return f

    def delete_one(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        present = counts > 0
        total = self._sums(counts)
        return self.g(total[None, :] - self.atoms[present]), counts[present]

    def by_unit(self, unit_of_sample: np.ndarray, n_units: int) -> Kernel | None:
        """The same metric on one atom per unit (condition), for resampling whole units.

        When every sample of a unit gets its unit's count ``u_c`` (a one-stage condition
        bootstrap), ``sum_i w_i phi_i = sum_c u_c (sum_{i in c} phi_i)``: the units' sums
        of ``phi`` are all the metric needs, and a replicate costs ``n_units`` instead of
        ``m`` atoms.  The sums are exact (:meth:`ExactSums.grouped`), so every replicate's
        value is bit for bit the one on the atoms.  The returned kernel's atoms are the
        units (``keys = unit_of_sample``); it must only be given weights in which all
        samples of a unit share their count.  None when it would not be smaller (or a
        subclass changes how the sums are evaluated).
        """
        if type(self).evaluate is not AdditiveKernel.evaluate or n_units >= self.m:
            return None
        return UnitSumsKernel(self, unit_of_sample, n_units)


def _count_table(rows: Any, cols: Any, counts: Any, shape: tuple[int, int]) -> Any:
    """The (units, atoms) table of summed ``counts`` for :meth:`ExactSums.grouped`: dense up
    to 4e6 cells (no scipy.sparse import, 0.1 s of ``mlci mt ci --documents``), else
    scipy.sparse CSR.  Its products with the integer pieces are exact either way: the same
    numbers."""
    rows, cols = np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)
    counts = np.asarray(counts, dtype=float)
    if shape[0] * shape[1] <= 4_000_000:
        table = np.zeros(shape)
        np.add.at(table, (rows, cols), counts)
        return table
    from scipy import sparse  # lazily: the MT metrics import this module without scipy

    out = sparse.csr_matrix((counts, (rows, cols)), shape=shape)
    out.sum_duplicates()
    return out


class UnitSumsKernel(Kernel):
    """An :class:`AdditiveKernel` with its atoms summed per unit (see
    :meth:`AdditiveKernel.by_unit`).

    Its atoms are the units: replicate weights ``w_c = u_c * n_c`` (the unit drawn
    ``u_c`` times, with its ``n_c`` samples) give ``g(sum_c u_c S_c)`` with ``S_c`` the
    unit's exact sums of ``phi``.  Only for weights constant within each unit (a
    one-stage condition bootstrap and its delete-one-condition jackknife); no gradient
    (the linearized intervals use the atoms).
    """

    def __init__(self, base: AdditiveKernel, unit_of_sample: np.ndarray, n_units: int) -> None:
        unit = np.asarray(unit_of_sample, dtype=np.intp)
        table = _count_table(unit, base.keys, np.ones(len(unit)), (int(n_units), base.m))
        self.base = base
        self.keys = unit
        self.m = int(n_units)
        self.n_per_unit = np.bincount(unit, minlength=self.m).astype(float)
        self._sums = base._sums.grouped(table)
        self.g = base.g
        self.name = base.name
        self.shape = base.shape
        self.bounds = base.bounds
        self.elements = base.elements
        self.work_factor = base.work_factor

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        n = self.n_per_unit
        u = np.asarray(w, dtype=float) / np.where(n > 0, n, 1.0)
        return self.g(self._sums(u))

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray | None:
        return None


def check_sample_weight(
    sample_weight: np.ndarray, n: int, name: str = "sample_weight"
) -> np.ndarray:
    """Per-sample weights (from the input gate: finite floats) checked for a metric.

    Weights must be non-negative, one per sample, and not all zero.
    """
    s = np.asarray(sample_weight, dtype=float)
    if s.ndim != 1 or len(s) != n:
        raise ValueError(f"`{name}` must have one weight per sample ({n}); got shape {s.shape}.")
    if not np.isfinite(s).all():
        raise ValueError(f"`{name}` must be finite numbers; found NaN or infinity.")
    if (s < 0).any():
        first = int(np.flatnonzero(s < 0)[0])
        raise ValueError(f"`{name}` must be non-negative; row {first} holds {s[first]:.6g}.")
    if not (s > 0).any():
        raise ValueError(f"`{name}` sums to zero: at least one sample needs a positive weight.")
    return s


class SampleWeightedKernel(Kernel):
    """A kernel with per-sample weights (scikit-learn's ``sample_weight``), on atoms.

    The atoms are the distinct ``(base atom, weight)`` pairs, so a bootstrap replicate
    stays a vector of counts over atoms: the base kernel sees ``sum over its atom of
    count * weight``, i.e. the replicate's counts multiplied by the sample weights.  Data
    with a few distinct weights (class weights, integer frequencies) keep few atoms.

    Parameters
    ----------
    base : Kernel
        The metric bound to the data, unweighted.
    sample_weight : ndarray, shape (n,)
        Checked non-negative weights (see :func:`check_sample_weight`).
    """

    def __init__(self, base: Kernel, sample_weight: np.ndarray) -> None:
        s = np.asarray(sample_weight, dtype=float)
        bk = np.asarray(base.keys, dtype=np.intp)
        order = np.lexsort((s, bk))
        bs, ss = bk[order], s[order]
        new = np.empty(len(bk), dtype=bool)
        if len(bk):
            new[0] = True
            new[1:] = (bs[1:] != bs[:-1]) | (ss[1:] != ss[:-1])
        atom_sorted = np.cumsum(new) - 1
        keys = np.empty(len(bk), dtype=np.intp)
        keys[order] = atom_sorted
        self.base = base
        self.keys = keys
        self.m = int(atom_sorted[-1]) + 1 if len(bk) else 0
        self.atom_base = bs[new]  # base atom of every weighted atom (non-decreasing)
        self.atom_weight = ss[new]
        first = np.flatnonzero(np.r_[True, self.atom_base[1:] != self.atom_base[:-1]])
        self._starts = first
        self._present = self.atom_base[first]
        self.name = base.name
        self.shape = base.shape
        self.work_factor = base.work_factor + 1.0
        self.bounds = base.bounds
        self.elements = base.elements
        self.errors = getattr(base, "errors", [])
        self.is_function = bool(getattr(base, "is_function", False))
        if base.atom_rank is not None:
            # by the base atom's rank, then by weight: canonical when the base's order is
            by_rank = np.lexsort((self.atom_weight, base.atom_rank[self.atom_base]))
            self.atom_rank = np.empty(self.m, dtype=np.intp)
            self.atom_rank[by_rank] = np.arange(self.m)

    def base_weights(self, w: np.ndarray) -> np.ndarray:
        """The base kernel's atom weights ``(b, base.m)`` of replicate counts ``w`` (b, m)."""
        ws = np.asarray(w, dtype=float) * self.atom_weight
        out = np.zeros((ws.shape[0], self.base.m))
        out[:, self._present] = np.add.reduceat(ws, self._starts, axis=1)
        return out

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        return self.base.evaluate(self.base_weights(w))

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray | None:
        # chain rule: a weighted atom moves its base atom by its weight.  A weighted
        # proportion is not a binomial one: no `proportion` (auto uses the studentized
        # interval, not Wilson's)
        g = self.base.gradient(self.base_weights(w), values)
        if g is None:
            return None
        weight = self.atom_weight.reshape((1, -1) + (1,) * (g.ndim - 2))
        return np.take(g, self.atom_base, axis=1) * weight


def with_sample_weight(kernel: Kernel, sample_weight: np.ndarray) -> Kernel:
    """``kernel`` with per-sample weights (already checked by :func:`check_sample_weight`).

    An additive kernel folds the weights into its per-sample vectors (keeping its exact
    delete-one jackknife); any other kernel is wrapped in :class:`SampleWeightedKernel`.
    """
    if isinstance(kernel, AdditiveKernel):
        phi = kernel.atoms[kernel.keys] * np.asarray(sample_weight, dtype=float)[:, None]
        out = AdditiveKernel(phi, kernel.g, kernel.shape, kernel.name)
        for attr in ("bounds", "elements", "signed_errors"):
            if attr in vars(kernel):
                setattr(out, attr, getattr(kernel, attr))
        return out
    return SampleWeightedKernel(kernel, sample_weight)
