"""Metrics from scores: ROC AUC and average precision, from weights over sorted atoms.

The scores are sorted once.  Atoms are the distinct (class, score) pairs: negatives
first (by increasing score), then positives (by increasing score), so a replicate's
negative and positive counts are two contiguous slices of its weight row and each
replicate costs one O(m) pass (a cumulative sum and a gather), with no sorting.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ..inputs import binary_target
from ._base import Kernel, safe_div
from .auc_units import auc_unit_form


class _SortedScores(Kernel):
    """Atoms of a binary score data set (shared by the ranking kernels)."""

    def __init__(self, y_true: Any, y_score: Any, pos_label: Any, name: str) -> None:
        # arrays from the input gate: aligned, no missing value, y_score finite floats
        if np.ndim(y_score) == 2:
            raise ValueError(
                f"{name!r} takes one score per sample (1-d `y_score`); got shape "
                f"{np.shape(y_score)}. For class probabilities, pass the positive class's "
                "column, e.g. y_score[:, 1]."
            )
        pos = binary_target(y_true, pos_label, metric=name)
        n_pos = int(pos.sum())
        if n_pos == 0 or n_pos == len(pos):
            only = "positive" if n_pos else "negative"
            raise ValueError(
                f"{name!r} needs both classes in `y_true`, but every sample is {only}. "
                "It is undefined on a single class."
            )
        self.u_neg, inv_neg = np.unique(y_score[~pos], return_inverse=True)
        self.u_pos, inv_pos = np.unique(y_score[pos], return_inverse=True)
        self.m_neg = len(self.u_neg)
        keys = np.empty(len(pos), dtype=np.intp)
        keys[~pos] = inv_neg.reshape(-1)
        keys[pos] = self.m_neg + inv_pos.reshape(-1)
        self.keys = keys
        self.m = self.m_neg + len(self.u_pos)
        # the atoms in order of score, ties by the label as given (not by the class's
        # role): the samplers draw through the samples in this order, so the replicates
        # depend neither on the rows' order nor on pos_label (a swapped positive class
        # sees the same draws: AUC -> 1 - AUC replicate by replicate)
        self.atom_rank = _merged_rank(self.u_neg, self.u_pos, _negatives_first(y_true, pos))
        self.name = name
        self.shape = ()


def _negatives_first(y_true: Any, pos: np.ndarray) -> bool:
    """Whether a negative sorts before a positive of the same score: the negative's label
    is the smaller one as given (so that swapping ``pos_label`` keeps the order), or, with
    several negative labels, by class."""
    y = np.asarray(y_true)
    neg_values = y[~pos]
    if not (neg_values == neg_values[0]).all():
        return True
    return bool(neg_values[0] < y[pos][0])


def _merged_rank(u_neg: np.ndarray, u_pos: np.ndarray, neg_first: bool) -> np.ndarray:
    """Place of every atom (negatives, then positives, each sorted) in the merged order
    by score, ties negatives first when ``neg_first``: a merge of two sorted arrays."""
    if neg_first:  # a positive tied with a negative comes after it
        below_neg = np.searchsorted(u_pos, u_neg, side="left")
        below_pos = np.searchsorted(u_neg, u_pos, side="right")
    else:
        below_neg = np.searchsorted(u_pos, u_neg, side="right")
        below_pos = np.searchsorted(u_neg, u_pos, side="left")
    rank_neg = np.arange(len(u_neg)) + below_neg
    rank_pos = np.arange(len(u_pos)) + below_pos
    return np.concatenate([rank_neg, rank_pos]).astype(np.intp)


class RocAucKernel(_SortedScores):
    """ROC AUC = P(score of a random positive > that of a random negative) + 0.5 P(tie).

    With weights: ``sum_p w_p (W_neg below p + 0.5 W_neg tied with p) / (W_pos W_neg)``,
    the Mann-Whitney form, which equals the trapezoidal area under the ROC curve.
    """

    work_factor = 8.0

    def __init__(self, y_true: Any, y_score: Any, pos_label: Any = None) -> None:
        super().__init__(y_true, y_score, pos_label, "roc_auc")
        # for each positive atom: number of negative atoms strictly below, and a tied one
        self.below = np.searchsorted(self.u_neg, self.u_pos, side="left")
        tie_idx = np.minimum(self.below, self.m_neg - 1)
        self.tie = self.u_neg[tie_idx] == self.u_pos
        self.has_ties = bool(self.tie.any())
        # positive atoms tied with a negative atom, and that negative atom
        self._tie_pos = np.flatnonzero(self.tie)
        self._tie_neg = tie_idx[self._tie_pos]
        del tie_idx
        # for each negative atom: positive atoms at or below / strictly below its score
        # (the same array when no score is tied: one array of the negatives' size, not two)
        self._le = np.searchsorted(self.u_pos, self.u_neg, side="right")
        self._lt = (
            np.searchsorted(self.u_pos, self.u_neg, side="left") if self.has_ties else self._le
        )
        self._tls = threading.local()  # scratch buffers of influence_moments

    def _num(self, wn: np.ndarray, wp: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Mann-Whitney numerator and total negative weight of each row, and the weight of
        the negatives strictly below each positive atom, shape (b, m_pos)."""
        # cum[:, k] = weight of the negative atoms below atom k.  Bootstrap weights are
        # counts: an integer cumulative sum is exact and several times faster than a
        # floating-point one (no add latency chain); fractional weights take the float path.
        n_neg = wn.sum(axis=1)
        lower = np.take(_cumulative(wn, n_neg), self.below, axis=1).astype(float, copy=False)
        num = np.einsum("ij,ij->i", wp, lower)
        if self.has_ties:
            # a tie counts one half: only the tied positive atoms need a correction
            num += 0.5 * np.einsum(
                "ij,ij->i",
                np.take(wp, self._tie_pos, axis=1),
                np.take(wn, self._tie_neg, axis=1),
            )
        return num, n_neg, lower

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        wn, wp = w[:, : self.m_neg], w[:, self.m_neg :]
        num, n_neg, _ = self._num(wn, wp)
        return safe_div(num, n_neg * wp.sum(axis=1))

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Placement values (DeLong et al. 1988) as derivatives, per replicate.

        ``d AUC / d w`` is ``(V_p / N0 - AUC) / N1`` at a positive atom, with ``V_p`` its
        negatives below (ties one half), and ``(V_n / N1 - AUC) / N0`` at a negative atom,
        with ``V_n`` its positives above: the influence values whose variance is DeLong's.
        """
        w = np.asarray(w, dtype=float)
        mn = self.m_neg
        wn, wp = w[:, :mn], w[:, mn:]
        b = w.shape[0]
        n_neg = wn.sum(axis=1, keepdims=True)
        n_pos = wp.sum(axis=1, keepdims=True)
        # written into the result's two halves, one cumulative-sum buffer shared by the
        # classes (two (b, m) arrays at most, not a dozen temporaries); the same
        # operations in the same order as the formulas above
        out = np.empty((b, self.m))
        g_neg, g_pos = out[:, :mn], out[:, mn:]
        cum = np.empty((b, max(mn, wp.shape[1]) + 1))
        cum_n = cum[:, : mn + 1]
        cum_n[:, 0] = 0.0
        np.cumsum(wn, axis=1, out=cum_n[:, 1:])
        # (mode="wrap": the indices are in range; "raise" would gather into a copy first)
        v_pos = np.take(cum_n, self.below, axis=1, out=g_pos, mode="wrap")
        if self.has_ties:
            v_pos[:, self._tie_pos] += 0.5 * np.take(wn, self._tie_neg, axis=1)
        cum_p = cum[:, : wp.shape[1] + 1]
        cum_p[:, 0] = 0.0
        np.cumsum(wp, axis=1, out=cum_p[:, 1:])
        c_le = np.take(cum_p, self._le, axis=1, out=g_neg, mode="wrap")
        if self.has_ties:
            v_neg = (n_pos - c_le) + 0.5 * (c_le - np.take(cum_p, self._lt, axis=1))
            g_neg[...] = v_neg
            del v_neg
        else:  # c_le - c_lt is 0: (n_pos - c_le) + 0.0 is n_pos - c_le, bit for bit
            np.subtract(n_pos, c_le, out=g_neg)
        del cum, cum_n, cum_p
        auc = values.reshape(b, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            # g_neg = (v_neg / n_pos - auc) / n_neg, g_pos = (v_pos / n_neg - auc) / n_pos
            for g, n_other, n_own in ((g_neg, n_pos, n_neg), (g_pos, n_neg, n_pos)):
                g /= n_other
                g -= auc
                g /= n_own
        return out

    def influence_moments(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The AUC of each row and the first two moments of its influence values, fused.

        Returns ``(values, s1, s2)`` with ``s1 = sum_a w_a g_a`` and ``s2 = sum_a w_a g_a^2``
        over the atoms, ``g`` being :meth:`gradient` (DeLong's placement values, centred
        and scaled): what the linearized variance of independent samples needs, from two
        cumulative sums and no (b, m) gradient.  ``values`` are :meth:`evaluate`'s, bit for
        bit.  The (b, m) temporaries live in per-thread buffers reused from call to call
        (fresh multi-megabyte arrays cost page faults on every replicate).
        """
        w = np.asarray(w, dtype=float)
        b = w.shape[0]
        wn, wp = w[:, : self.m_neg], w[:, self.m_neg :]
        n_neg = wn.sum(axis=1)
        n_pos = wp.sum(axis=1)
        mp, mn = self.m - self.m_neg, self.m_neg
        buf = _buffers(self._tls, b, max(mn, mp) + 1)
        # negatives below every positive atom (ties: one half of the tied negative atom)
        cum = _cumulative(wn, n_neg, buf("ci"))
        v_pos = buf("vp", float)[:, :mp]
        if cum.dtype == np.int64:
            low = np.take(cum, self.below, axis=1, out=buf("ti", cols=mp), mode="wrap")
            v_pos[...] = low
        else:
            np.take(cum, self.below, axis=1, out=v_pos)  # (v_pos: a column slice)
        # the numerator exactly as in evaluate (same operands, same order)
        num = np.einsum("ij,ij->i", wp, v_pos)
        tmp = buf("tf", float)
        if self.has_ties:
            tied_n = np.take(wn, self._tie_neg, axis=1)
            num += 0.5 * np.einsum("ij,ij->i", np.take(wp, self._tie_pos, axis=1), tied_n)
            v_pos[:, self._tie_pos] += 0.5 * tied_n
        values = safe_div(num, n_neg * n_pos)
        s2p = np.einsum("ij,ij->i", np.multiply(wp, v_pos, out=tmp[:, :mp]), v_pos)
        # positives above every negative atom (ties one half)
        cum_p = _cumulative(wp, n_pos, buf("ci"))
        v_neg = buf("vp", float)[:, :mn]
        if cum_p.dtype == np.int64:
            c_le = np.take(cum_p, self._le, axis=1, out=buf("ti", cols=mn), mode="wrap")
        else:
            c_le = np.take(cum_p, self._le, axis=1)
        np.subtract(n_pos[:, None], c_le, out=v_neg)
        if self.has_ties:
            v_neg += 0.5 * (c_le - np.take(cum_p, self._lt, axis=1))
        s1n = np.einsum("ij,ij->i", wn, v_neg)
        s2n = np.einsum("ij,ij->i", np.multiply(wn, v_neg, out=tmp[:, :mn]), v_neg)
        with np.errstate(invalid="ignore", divide="ignore"):
            # g = (v_p / N0 - A) / N1 at a positive atom, (v_n / N1 - A) / N0 at a negative
            a = values
            s1 = (num / n_neg - a * n_pos) / n_pos + (s1n / n_pos - a * n_neg) / n_neg
            s2 = (s2p / n_neg**2 - 2.0 * a * num / n_neg + a**2 * n_pos) / n_pos**2 + (
                s2n / n_pos**2 - 2.0 * a * s1n / n_pos + a**2 * n_neg
            ) / n_neg**2
        return values, s1, s2

    def placements(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The AUC of each row and every atom's placement value, fused: ``(values, v,
        n_neg, n_pos)`` with ``v`` of shape (b, m) (per-thread buffer: use it before the
        next call): at a negative atom the positive weight above it, at a positive atom
        the negative weight below it (ties one half), so that :meth:`gradient` is
        ``v / (n_neg n_pos) - values / n_pos`` at a positive atom and ``- values / n_neg``
        at a negative one.  Sums of ``v`` over groups of atoms (the conditions' cells)
        give the groups' influence without the (b, m) gradient; integer cumulative sums
        (bootstrap counts) and the negatives' one shared with the AUC itself.  ``values``
        are :meth:`evaluate`'s, bit for bit.
        """
        w = np.asarray(w, dtype=float)
        b = w.shape[0]
        wn, wp = w[:, : self.m_neg], w[:, self.m_neg :]
        n_neg = wn.sum(axis=1)
        n_pos = wp.sum(axis=1)
        mp, mn = self.m - self.m_neg, self.m_neg
        buf = _buffers(self._tls, b, max(mn, mp) + 1)
        v = _buffers(self._tls, b, self.m)("pv", float)
        v_neg, v_pos = v[:, :mn], v[:, mn:]
        cum = _cumulative(wn, n_neg, buf("ci"))
        if cum.dtype == np.int64:
            v_pos[...] = np.take(cum, self.below, axis=1, out=buf("ti", cols=mp), mode="wrap")
        else:
            np.take(cum, self.below, axis=1, out=v_pos)
        num = np.einsum("ij,ij->i", wp, v_pos)
        if self.has_ties:
            tied_n = np.take(wn, self._tie_neg, axis=1)
            num += 0.5 * np.einsum("ij,ij->i", np.take(wp, self._tie_pos, axis=1), tied_n)
            v_pos[:, self._tie_pos] += 0.5 * tied_n
        values = safe_div(num, n_neg * n_pos)
        cum_p = _cumulative(wp, n_pos, buf("ci"))
        if cum_p.dtype == np.int64:
            c_le = np.take(cum_p, self._le, axis=1, out=buf("ti", cols=mn), mode="wrap")
        else:
            c_le = np.take(cum_p, self._le, axis=1)
        np.subtract(n_pos[:, None], c_le, out=v_neg)
        if self.has_ties:
            v_neg += 0.5 * (c_le - np.take(cum_p, self._lt, axis=1))
        return values, v, n_neg, n_pos

    def whole_units(
        self,
        cell_unit: np.ndarray,
        cell_atom: np.ndarray,
        cell_count: np.ndarray,
        n_units: int,
    ) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None:
        """The AUC and every unit's influence from the units' draw counts alone.

        When whole units (conditions) are resampled, unit ``c`` drawn ``u_c`` times, the
        Mann-Whitney numerator is the quadratic form ``u' M u`` of the units' pair matrix
        ``M[c, c'] = #{positive of c above negative of c'} (+ 1/2 per tie)``, and the
        sum of the placement values of unit ``c``'s samples is ``(M u)_c + (M' u)_c``.
        ``M`` is built once (exactly, in integers: :mod:`mlci.metrics.auc_units`); a
        replicate then costs one product with the symmetric ``n_units x n_units`` matrix
        ``2 (M + M')`` instead of passes over the atoms.

        Parameters
        ----------
        cell_unit, cell_atom, cell_count : ndarray, shape (n_cells,)
            The (unit, atom) cells of the data and their numbers of samples.
        n_units : int

        Returns
        -------
        callable or None
            ``f(U)``, ``U`` of shape (b, n_units) -> ``(values, inner)``: the AUC of every
            row (:meth:`evaluate`'s values on the same replicates, bit for bit) and
            ``inner`` (b, n_units), the sum of :meth:`gradient` over one copy of each unit's
            samples.  None when there are too many units for the matrix to pay off.
        """
        return auc_unit_form(self, cell_unit, cell_atom, cell_count, n_units)

    def delete_one(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # placement values (DeLong et al. 1988): removing one positive at atom a removes
        # its count of negatives below (+ half the tied ones) from the numerator, and
        # removing one negative removes the positives above it (+ half the tied ones).
        cn, cp = counts[: self.m_neg], counts[self.m_neg :]
        n_neg, n_pos = cn.sum(), cp.sum()
        cum_n = np.concatenate(([0.0], np.cumsum(cn)))
        tie_idx = np.minimum(self.below, self.m_neg - 1)
        v_pos = cum_n[self.below] + 0.5 * np.where(self.tie, cn[tie_idx], 0.0)
        num = float(cp @ v_pos)
        # positives strictly above each negative atom, and tied ones
        cum_p = np.concatenate(([0.0], np.cumsum(cp)))
        le = np.searchsorted(self.u_pos, self.u_neg, side="right")
        lt = np.searchsorted(self.u_pos, self.u_neg, side="left")
        above = n_pos - cum_p[le]
        tied = cum_p[le] - cum_p[lt]
        v_neg = above + 0.5 * tied
        vals_neg = safe_div(num - v_neg, n_pos * (n_neg - 1))
        vals_pos = safe_div(num - v_pos, (n_pos - 1) * n_neg)
        vals = np.concatenate([vals_neg, vals_pos])
        mult = counts
        present = mult > 0
        return vals[present], mult[present]


class AveragePrecisionKernel(_SortedScores):
    """Average precision as scikit-learn defines it: ``sum_k (R_k - R_{k-1}) P_k``.

    The sum runs over distinct score thresholds from the highest down (no interpolation).
    Only the thresholds holding a positive atom add to it, each with the precision at its
    score (the negatives tied with it counted): ``sum_p w_p T_p / S_p / T``, with ``T_p``
    the positive weight at or above positive atom ``p``, ``S_p`` all the weight there and
    ``T`` the positive weight in all.  A replicate costs two cumulative sums over the
    classes' atoms, one gather and one division per positive atom.
    """

    work_factor = 4.0

    def __init__(self, y_true: Any, y_score: Any, pos_label: Any = None) -> None:
        super().__init__(y_true, y_score, pos_label, "average_precision")
        # for each positive atom from the highest score down (each class's atoms are
        # distinct and sorted up: read in reverse), the number of negative atoms at or
        # above its score (the negatives counted in its precision, ties included)
        below = np.searchsorted(self.u_neg, self.u_pos[::-1], side="left")
        self._neg_seen = (self.m_neg - below).astype(np.intp)
        self._tls = threading.local()  # per-thread scratch buffers of _ap_value

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        mn = self.m_neg
        out = np.empty(w.shape[0])
        get = _ap_buffers(self._tls, self.m - mn, mn)
        for i, row in enumerate(w):
            # each class's atoms from the highest score down: reversed views, no copies
            wp, wn = row[: mn - 1 : -1], row[mn - 1 :: -1]
            # bootstrap weights are counts: integer cumulative sums are exact and several
            # times faster than floating-point ones (truncating a fraction: checked)
            ctp = np.cumsum(wp, dtype=np.int64, out=get("ctp", np.int64))
            cfn = get("cfn", np.int64)
            cfn[0] = 0
            np.cumsum(wn, dtype=np.int64, out=cfn[1:])
            if ctp[-1] != wp.sum() or cfn[-1] != wn.sum():  # fractional weights
                ctp, cfn = np.cumsum(wp), np.concatenate(([0.0], np.cumsum(wn)))
            out[i] = _ap_value(wp, ctp, cfn, self._neg_seen, get)
        return out

    def by_unit(self, unit_of_sample: np.ndarray, n_units: int) -> Kernel | None:
        """The same metric on the units' (conditions') draw counts, for resampling whole
        units (see :meth:`mlci.metrics.AdditiveKernel.by_unit`).

        A replicate that draws unit ``c`` ``u_c`` times weighs atom ``a`` by
        ``sum_c u_c n_ac`` (``n_ac`` of its samples in unit ``c``): ``u_c n_a`` when all
        its samples lie in one unit (a gather of the units' counts), a short sparse
        product for the atoms of tied scores in several units.  The weights are made one
        replicate at a time, in 32-bit integers where they fit, instead of the engine's
        ``(b, m)`` floating-point ones.  Every value is :meth:`evaluate`'s on those
        weights, bit for bit (the same integers through the same operations).  None when
        there are no fewer units than atoms (no gain).
        """
        unit = np.asarray(unit_of_sample, dtype=np.intp)
        if n_units >= self.m or len(unit) != len(self.keys):
            return None
        return _APUnitsKernel(self, unit, int(n_units))


class _APUnitsKernel(Kernel):
    """:class:`AveragePrecisionKernel` on whole units' draw counts (its ``by_unit``).

    Its atoms are the units (``keys = unit_of_sample``): a replicate's weights are
    ``w_c = u_c n_c`` (unit ``c`` drawn ``u_c`` times, with its ``n_c`` samples), as the
    engine's samplers give them; only weights constant within each unit (a one-stage
    condition bootstrap and its delete-units jackknife).  No gradient (the linearized
    intervals use the atoms).
    """

    def __init__(self, base: AveragePrecisionKernel, unit: np.ndarray, n_units: int) -> None:
        from scipy import sparse  # here: `import mlci.metrics` stays without scipy

        mn, keys = base.m_neg, base.keys
        self.keys = unit
        self.m = n_units
        self.name, self.shape, self.bounds = base.name, base.shape, base.bounds
        self.work_factor = base.work_factor
        self.n_per_unit = np.bincount(unit, minlength=n_units).astype(float)
        count = np.bincount(keys, minlength=base.m)
        # the unit of every atom (any one of its samples'); the atoms with samples in
        # several units (tied scores across conditions) get their weights from a sparse
        # (atoms x units) table instead
        atom_unit = np.zeros(base.m, dtype=np.intp)
        atom_unit[keys] = unit
        spread = atom_unit[keys] != unit
        several = np.zeros(base.m, dtype=bool)
        several[keys[spread]] = True
        # each class's atoms from the highest score down: their units and sample counts
        # (None where every atom holds one sample: the usual case of continuous scores)
        self._unit_pos = np.ascontiguousarray(atom_unit[: mn - 1 : -1])
        self._unit_neg = np.ascontiguousarray(atom_unit[mn - 1 :: -1])
        cp, cn = count[: mn - 1 : -1], count[mn - 1 :: -1]
        self._count_pos = None if (cp == 1).all() else np.ascontiguousarray(cp, dtype=np.int32)
        self._count_neg = None if (cn == 1).all() else np.ascontiguousarray(cn, dtype=np.int32)
        self._spread: list[tuple[np.ndarray, Any] | None] = []
        for lo, hi, place in ((mn, base.m, base.m - 1), (0, mn, mn - 1)):
            atoms = np.flatnonzero(several[lo:hi]) + lo
            if not len(atoms):
                self._spread.append(None)
                continue
            row_of = np.full(base.m, -1, dtype=np.intp)
            row_of[atoms] = np.arange(len(atoms))
            sel = np.flatnonzero(row_of[keys] >= 0)
            table = sparse.csr_matrix(
                (np.ones(len(sel), dtype=np.int64), (row_of[keys[sel]], unit[sel])),
                shape=(len(atoms), n_units),
            )
            table.sum_duplicates()
            # their places in the class's weights from the highest score down
            self._spread.append((place - atoms, table))
        self._max_count = float(count.max())
        self._neg_seen = base._neg_seen
        self._tls = threading.local()

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        n = self.n_per_unit
        u = w / np.where(n > 0, n, 1.0)
        out = np.empty(w.shape[0])
        get = _ap_buffers(self._tls, len(self._unit_pos), len(self._unit_neg))
        dtype: Any = np.float64
        if u.size and np.array_equal(np.floor(u), u) and (u >= 0).all():
            # counts: the atoms' weights, their cumulative sums and every product
            # ``T_p w_p`` in 32-bit integers when the largest product fits (the usual
            # case), else in 64-bit ones; the same integers either way
            big = float(w.sum(axis=1).max()) * float(u.max()) * self._max_count
            dtype = np.int32 if big < 2.0**31 else np.int64
            u = u.astype(dtype)
        for i, row in enumerate(u):
            wp = np.take(row, self._unit_pos, out=get("wp", dtype), mode="wrap")
            if self._count_pos is not None:
                wp *= self._count_pos
            _spread_weights(wp, self._spread[0], row)
            ctp = np.cumsum(wp, out=get("ctp", dtype))
            # the negatives' weights gathered into their cumulative sums' buffer and
            # summed in place (one array of the negatives' size, not two)
            cfn = get("cfn", dtype)
            cfn[0] = 0
            wn = np.take(row, self._unit_neg, out=cfn[1:], mode="wrap")
            if self._count_neg is not None:
                wn *= self._count_neg
            _spread_weights(wn, self._spread[1], row)
            np.cumsum(wn, out=wn)
            out[i] = _ap_value(wp, ctp, cfn, self._neg_seen, get, scratch=True)
        return out

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray | None:
        return None


def _spread_weights(w: np.ndarray, spread: tuple[np.ndarray, Any] | None, u: np.ndarray) -> None:
    """Set the weights of the atoms with samples in several units: ``table @ u`` (exact
    integer counts with integer draws) at their places ``spread[0]``."""
    if spread is not None:
        place, table = spread
        w[place] = table @ u


def _ap_value(
    wp: np.ndarray,
    ctp: np.ndarray,
    cfn: np.ndarray,
    neg_seen: np.ndarray,
    get: Callable[[str, Any], np.ndarray],
    scratch: bool = False,
) -> float:
    """Average precision of one replicate: ``sum_p wp ctp / seen / ctp[-1]``.

    ``wp`` are the positive atoms' weights from the highest score down, ``ctp`` their
    cumulative sums, ``cfn`` the negatives' (from the highest score down, with a leading
    zero), ``seen`` the weight at or above each positive atom.  Each term is the product
    ``ctp wp`` rounded once (exact in integers, then converted; or a floating-point
    product) divided by ``seen``: with counts the value depends on the integers alone,
    not on their dtype or on which path gathered them.  The terms before the first
    positive weight (zero) are left out.  ``scratch``: ``wp`` is the caller's scratch
    array, which the products may overwrite.
    """
    total = ctp[-1]
    if not total > 0:  # no positive weight
        return float("nan")
    # (ctp: non-decreasing; a key of its dtype, or numpy converts the whole array)
    s0 = int(np.searchsorted(ctp, ctp.dtype.type(0), side="right"))
    k = len(ctp) - s0
    c, ws = ctp[s0:], wp[s0:]
    integer = ctp.dtype.kind == "i"
    # mode="wrap": every index is in range (0..len(cfn) - 1); numpy's default "raise"
    # gathers into a temporary and copies it to ``out`` (0.76 -> 0.15 ms at 5e5 positives)
    out = get("seen", ctp.dtype)[:k] if integer else None
    seen = np.take(cfn, neg_seen[s0:], out=out, mode="wrap")
    seen += c
    terms = get("terms", np.float64)[:k]
    if integer and wp.dtype == ctp.dtype:
        # (the caller chose a dtype that holds every product ctp wp exactly)
        prod = ws if scratch else get("prod", ctp.dtype)[:k]
        np.divide(np.multiply(c, ws, out=prod), seen, out=terms)
    else:
        np.multiply(c, ws, out=terms, dtype=np.float64)
        np.divide(terms, seen, out=terms)
    return float(terms.sum()) / float(total)


def _ap_buffers(tls: threading.local, mp: int, mn: int) -> Callable[[str, Any], np.ndarray]:
    """``get(name, dtype)``: a scratch array of this thread for one replicate of average
    precision, made on first use and reused from call to call (fresh multi-megabyte
    arrays cost page faults on every replicate): of the negatives' size plus one for
    ``cfn``, else of the positives'."""
    bufs = getattr(tls, "ap", None)
    if bufs is None:
        bufs = tls.ap = {}

    def get(name: str, dtype: Any) -> np.ndarray:
        key = (name, np.dtype(dtype).str)
        buf = bufs.get(key)
        if buf is None:
            size = mn + 1 if name == "cfn" else mp
            buf = bufs[key] = np.empty(size, dtype=dtype)
        return buf

    return get


def _cumulative(a: np.ndarray, total: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Row-wise cumulative sums with a leading zero, shape (b, k + 1): ``out[:, j]`` is
    the weight of columns ``< j``.  In integers when the non-negative weights are counts
    (``total``: the row sums, to check that), else in floating point.  ``out``: an int64
    buffer of at least (b, k + 1) to write the integer sums into."""
    b, k = a.shape
    if out is None:
        cum = np.empty((b, k + 1), dtype=np.int64)
    else:
        cum = out[:, : k + 1]
    cum[:, 0] = 0
    np.cumsum(a, axis=1, dtype=np.int64, out=cum[:, 1:])  # truncates: checked below
    if np.array_equal(cum[:, -1], total):  # exact for non-negative counts
        return cum
    cumf = np.empty((b, k + 1))
    cumf[:, 0] = 0.0
    np.cumsum(a, axis=1, out=cumf[:, 1:])
    return cumf


def _buffers(tls: threading.local, b: int, width: int) -> Callable[..., np.ndarray]:
    """``get(name, dtype=np.int64, cols=width)``: a (b, cols) C-contiguous scratch array
    of this thread, reused from call to call while large enough (C-contiguous, so that
    ``np.take(..., out=, mode="wrap")`` gathers straight into it, with no copy)."""

    def get(name: str, dtype: Any = np.int64, cols: int | None = None) -> np.ndarray:
        size = b * width
        buf = getattr(tls, name, None)
        if buf is None or buf.size < size:
            buf = np.empty(size, dtype=dtype)
            setattr(tls, name, buf)
        c = width if cols is None else cols
        return buf[: b * c].reshape(b, c)

    return get
