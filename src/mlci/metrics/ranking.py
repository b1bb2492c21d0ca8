"""Metrics from scores: ROC AUC and average precision, from weights over sorted atoms.

The scores are sorted once.  Atoms are the distinct (class, score) pairs: negatives
first (by increasing score), then positives (by increasing score), so a replicate's
negative and positive counts are two contiguous slices of its weight row and each
replicate costs one O(m) pass (a cumulative sum and a gather), with no sorting.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..inputs import binary_target
from ._base import Kernel, safe_div


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
        self.name = name
        self.shape = ()


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
        self.tie_idx = tie_idx
        self.has_ties = bool(self.tie.any())
        # positive atoms tied with a negative atom, and that negative atom
        self._tie_pos = np.flatnonzero(self.tie)
        self._tie_neg = tie_idx[self._tie_pos]
        # for each negative atom: positive atoms at or below / strictly below its score
        self._le = np.searchsorted(self.u_pos, self.u_neg, side="right")
        self._lt = np.searchsorted(self.u_pos, self.u_neg, side="left")

    def _num(self, wn: np.ndarray, wp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mann-Whitney numerator and total negative weight of each row."""
        b = wn.shape[0]
        # cum[:, k] = weight of the negative atoms below atom k.  Bootstrap weights are
        # counts: an integer cumulative sum is exact and several times faster than a
        # floating-point one (no add latency chain); fractional weights take the float path.
        cum = np.empty((b, self.m_neg + 1), dtype=np.int64)
        cum[:, 0] = 0
        np.cumsum(wn, axis=1, dtype=np.int64, out=cum[:, 1:])  # truncates: checked below
        n_neg = wn.sum(axis=1)
        if np.array_equal(cum[:, -1], n_neg):  # exact for non-negative weights
            lower = np.take(cum, self.below, axis=1).astype(float)
        else:
            cumf = np.empty((b, self.m_neg + 1))
            cumf[:, 0] = 0.0
            np.cumsum(wn, axis=1, out=cumf[:, 1:])
            lower = np.take(cumf, self.below, axis=1)
        num = np.einsum("ij,ij->i", wp, lower)
        if self.has_ties:
            # a tie counts one half: only the tied positive atoms need a correction
            num += 0.5 * np.einsum(
                "ij,ij->i",
                np.take(wp, self._tie_pos, axis=1),
                np.take(wn, self._tie_neg, axis=1),
            )
        return num, n_neg

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        wn, wp = w[:, : self.m_neg], w[:, self.m_neg :]
        num, n_neg = self._num(wn, wp)
        return safe_div(num, n_neg * wp.sum(axis=1))

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Placement values (DeLong et al. 1988) as derivatives, per replicate.

        ``d AUC / d w`` is ``(V_p / N0 - AUC) / N1`` at a positive atom, with ``V_p`` its
        negatives below (ties one half), and ``(V_n / N1 - AUC) / N0`` at a negative atom,
        with ``V_n`` its positives above: the influence values whose variance is DeLong's.
        """
        w = np.asarray(w, dtype=float)
        wn, wp = w[:, : self.m_neg], w[:, self.m_neg :]
        b = w.shape[0]
        n_neg = wn.sum(axis=1, keepdims=True)
        n_pos = wp.sum(axis=1, keepdims=True)
        cum_n = np.zeros((b, self.m_neg + 1))
        np.cumsum(wn, axis=1, out=cum_n[:, 1:])
        v_pos = np.take(cum_n, self.below, axis=1)
        if self.has_ties:
            v_pos[:, self._tie_pos] += 0.5 * np.take(wn, self._tie_neg, axis=1)
        cum_p = np.zeros((b, wp.shape[1] + 1))
        np.cumsum(wp, axis=1, out=cum_p[:, 1:])
        c_le = np.take(cum_p, self._le, axis=1)
        v_neg = (n_pos - c_le) + 0.5 * (c_le - np.take(cum_p, self._lt, axis=1))
        auc = values.reshape(b, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            g_neg = (v_neg / n_pos - auc) / n_neg
            g_pos = (v_pos / n_neg - auc) / n_pos
        return np.concatenate([g_neg, g_pos], axis=1)

    def delete_one(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # placement values (DeLong et al. 1988): removing one positive at atom a removes
        # its count of negatives below (+ half the tied ones) from the numerator, and
        # removing one negative removes the positives above it (+ half the tied ones).
        cn, cp = counts[: self.m_neg], counts[self.m_neg :]
        n_neg, n_pos = cn.sum(), cp.sum()
        cum_n = np.concatenate(([0.0], np.cumsum(cn)))
        v_pos = cum_n[self.below] + 0.5 * np.where(self.tie, cn[self.tie_idx], 0.0)
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
    """

    work_factor = 10.0

    def __init__(self, y_true: Any, y_score: Any, pos_label: Any = None) -> None:
        super().__init__(y_true, y_score, pos_label, "average_precision")
        grid, inv = np.unique(np.concatenate([self.u_neg, self.u_pos]), return_inverse=True)
        g = len(grid)
        # descending threshold order: group index counted from the highest score
        self.g = g
        self.gn = (g - 1 - inv[: self.m_neg]).astype(np.intp)
        self.gp = (g - 1 - inv[self.m_neg :]).astype(np.intp)

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        b = w.shape[0]
        tp = np.zeros((b, self.g))
        fp = np.zeros((b, self.g))
        tp[:, self.gp] = w[:, self.m_neg :]
        fp[:, self.gn] = w[:, : self.m_neg]
        ctp = _cumsum_counts(tp)
        cfp = _cumsum_counts(fp)
        seen = ctp + cfp
        prec = np.where(seen > 0, ctp / np.where(seen > 0, seen, 1.0), 0.0)
        return safe_div(np.einsum("ij,ij->i", tp, prec), ctp[:, -1])


def _cumsum_counts(a: np.ndarray) -> np.ndarray:
    """Row-wise cumulative sum, in integers when the (non-negative) weights are counts.

    An integer cumulative sum is exact and several times faster than a floating-point
    one; rows with fractional weights make the whole block take the float path.
    """
    c = np.cumsum(a.astype(np.int64), axis=1)
    if np.array_equal(c[:, -1], a.sum(axis=1)):
        return c
    return np.cumsum(a, axis=1)
