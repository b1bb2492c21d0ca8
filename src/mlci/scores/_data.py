"""The data of a :class:`~mlci.scores.scores.Scores` object: the samples in the user's order
(scores, classes, weights), the sorted scores of each class and their layout of cumulative
counts (:class:`~mlci.scores._roc._Layout`), and the private constructors every Scores
object is built through.  The public methods live on :class:`~mlci.scores.scores.Scores`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from ..engine.smoothing import silverman_bandwidth
from ..metrics import Kernel
from ._roc import _Layout, _WeightsView

_D = TypeVar("_D", bound="ScoreData")


class ScoreData:
    """Base of :class:`~mlci.scores.scores.Scores`: its data and private constructors."""

    n_easy_pos: int
    n_easy_neg: int
    #: the bootstrap draws the positives before the negatives (the class whose label
    #: sorts first is drawn first, whichever is positive: ``from_labels``; ``swap``
    #: turns it around), so that swapping ``pos_label`` mirrors the replicates
    #: (:class:`PositivesFirst`)
    _positives_first: bool = False

    def _init(
        self,
        y_score: np.ndarray,
        is_pos: np.ndarray,
        score_class: str,
        equal_class: str,
        kept: np.ndarray | None = None,
        n_input: int | None = None,
        sample_weight: np.ndarray | None = None,
        n_dropped: int | None = None,
    ) -> None:
        """Set up from validated user-order scores and positives (the one constructor).

        ``n_dropped``: the rows left out for a missing value, when ``n_input - n_samples``
        is not that count (frequency weights repeat rows: ``kept`` has repeats).
        """
        self._w = sample_weight
        self.score_class = score_class
        self.equal_class = equal_class
        self.n_easy_pos = self.n_easy_neg = 0
        self._sign = 1.0 if score_class == "pos" else -1.0
        # the samples in the user's order: conditions= and strata= follow it
        self._y_score = y_score
        self._is_pos = is_pos
        n_samples = len(y_score)
        n_input = n_samples if n_input is None else n_input
        self._n_input = n_input
        self._kept = None if kept is None or n_input == n_samples else kept
        self.n_dropped = n_input - n_samples if n_dropped is None else n_dropped
        p, n = y_score[is_pos], y_score[~is_pos]
        self.pos = np.sort(p, kind="stable")
        self.neg = np.sort(n, kind="stable")
        w = sample_weight
        self._lay = _Layout(
            self._sign * n,
            self._sign * p,
            "left" if equal_class == "pos" else "right",
            None if w is None else w[~is_pos],
            None if w is None else w[is_pos],
        )

    @classmethod
    def _trusted(
        cls: type[_D], pos: np.ndarray, neg: np.ndarray, score_class: str, equal_class: str
    ) -> _D:
        """From float arrays known to be valid (replicates of a user function), no gate."""
        obj = cls.__new__(cls)
        is_pos = np.r_[np.ones(len(pos), dtype=bool), np.zeros(len(neg), dtype=bool)]
        obj._init(np.r_[pos, neg], is_pos, score_class, equal_class)
        return obj

    def _subset(self: _D, keep: np.ndarray) -> _D:
        """The samples at positions ``keep`` (user order) as a new Scores object."""
        is_pos = self._is_pos[keep]
        if is_pos.all() or not is_pos.any():
            raise ValueError(
                "After dropping the samples with a missing value there are no "
                f"{'negatives' if is_pos.all() else 'positives'} left; both classes are needed."
            )
        obj = type(self).__new__(type(self))
        kept = keep if self._kept is None else self._kept[keep]
        obj._init(
            self._y_score[keep],
            is_pos,
            self.score_class,
            self.equal_class,
            kept,
            self._n_input,
            None if self._w is None else self._w[keep],
            n_dropped=self.n_dropped + len(self._y_score) - len(keep),
        )
        return obj

    def _full_view(self) -> _WeightsView:
        return _WeightsView(self._lay, np.concatenate(self._lay.cnt)[None, :])

    def _bandwidths(self, h: bool | float) -> tuple[float, float]:
        """Smoothing bandwidths (positives, negatives): Silverman's per class, or ``h``."""
        if h is True:
            return (silverman_bandwidth(self.pos), silverman_bandwidth(self.neg))
        return (float(h), float(h))

    def _eq_extra(self, other: Any) -> bool:
        """Further equality checks of subclasses (GroupScores: the groups)."""
        return True

    def _resampled(self: _D, idx: np.ndarray, y: np.ndarray | None = None) -> _D:
        """The samples at user-order positions ``idx`` (with repeats) as a new object
        (with the scores ``y`` instead of theirs, when given: smoothing)."""
        y, is_pos = (self._y_score[idx] if y is None else y), self._is_pos[idx]
        if self._w is None:
            return type(self)._trusted(y[is_pos], y[~is_pos], self.score_class, self.equal_class)
        obj = type(self).__new__(type(self))
        obj._init(y, is_pos, self.score_class, self.equal_class, sample_weight=self._w[idx])
        return obj

    def _plain(self, pos: np.ndarray, neg: np.ndarray) -> ScoreData:
        """A plain :class:`~mlci.scores.scores.Scores` of the given (user-scale) scores, with
        these conventions (a replicate handed to a user's function); Scores defines it."""
        raise NotImplementedError


class PositivesFirst(Kernel):
    """``kernel`` (atoms: the negatives' distinct scores, then the positives') seen by the
    sampler with the positives' atoms first: the keys and weights of the engine's draws
    in that order, handed back to ``kernel`` in its own.  A Scores object whose
    positives' label sorts first (``pos_label=0``) is drawn as the mirrored object, so
    that the replicates, and every interval, are the mirror of the other labelling
    (both classes' draws in the same order, with the same atoms in each).

    Examples
    --------
    >>> class Two(Kernel):
    ...     keys, m = np.array([0, 1, 2]), 3
    ...     def evaluate(self, w):
    ...         return w[:, :1]  # the weight of the one negative atom
    >>> k = PositivesFirst(Two(), 1)
    >>> k.keys.tolist(), k.evaluate(np.array([[5.0, 6.0, 7.0]])).tolist()
    ([2, 0, 1], [[7.0]])

    ``m_neg`` may be blocks of ``(negatives, positives)`` atoms, one per group
    (:func:`mlci.metric_by_group`): each block's positives first.

    >>> PositivesFirst(Two(), [(1, 1), (0, 1)]).col.tolist()  # atom 0 -> column 1, ...
    [1, 0, 2]
    """

    def __init__(self, kernel: Kernel, m_neg: int | Sequence[tuple[int, int]]) -> None:
        self.kernel = kernel
        m = int(kernel.m)
        # blocks of (negatives, positives) atoms, one per group (metric_by_group's): each
        # block's positives first, the blocks in their order
        blocks = [(int(m_neg), m - int(m_neg))] if np.ndim(m_neg) == 0 else list(m_neg)  # type: ignore[arg-type]
        cols, start = [], 0
        for neg, pos in blocks:
            cols += [np.arange(neg) + start + pos, np.arange(pos) + start]
            start += neg + pos
        # the sampler's column of each of kernel's atoms
        self.col = np.concatenate(cols).astype(np.intp)
        self.keys = self.col[np.asarray(kernel.keys)]
        self.m, self.atom_rank = m, np.arange(m, dtype=np.intp)
        self.shape, self.name, self.bounds = kernel.shape, kernel.name, kernel.bounds
        self.work_factor, self.elements = kernel.work_factor, kernel.elements

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        return self.kernel.evaluate(np.asarray(w)[:, self.col])

    def delete_one(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        return self.kernel.delete_one(np.asarray(counts)[self.col])
