"""The engine kernels of :mod:`mlci.scores`: a statistic's spec (:mod:`mlci.scores._specs`)
over the atoms of a Scores object (the distinct scores, negatives then positives), a
user's function of a Scores object, and the smoothed bootstrap's replicates; with the
atoms' keys of the samples (:func:`atom_keys`, :func:`internal_perm`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine.smoothing import smooth_scores
from ..metrics import Kernel
from ._data import ScoreData
from ._roc import _DeleteOneView, _Layout, _WeightsView
from ._specs import _Spec


class _ScoresKernel(Kernel):
    """Engine kernel of a Scores statistic: atoms = distinct scores, negatives then positives."""

    work_factor = 8.0

    def __init__(self, lay: _Layout, keys: np.ndarray, spec: _Spec) -> None:
        self.lay = lay
        self.keys = keys
        self.m = lay.m[0] + lay.m[1]
        # atoms: distinct scores of each class, sorted, as the samples (canonical order)
        self.atom_rank = np.arange(self.m, dtype=np.intp)
        self.spec = spec
        self.shape = spec.shape
        self.name = spec.name
        self.bounds = spec.bounds

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        return self.spec.fn(_WeightsView(self.lay, w)).reshape((-1, *self.shape))

    def delete_one(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        if self.spec.full:
            return None
        return _delete_one(self.lay, self.spec)


def _delete_one(lay: _Layout, spec: _Spec) -> tuple[np.ndarray, np.ndarray]:
    """Exact delete-one jackknife: one value per atom, weighted by its count."""
    cls = np.concatenate([np.zeros(lay.m[0], np.intp), np.ones(lay.m[1], np.intp)])
    atom = np.concatenate([np.arange(lay.m[0]), np.arange(lay.m[1])])
    mult = np.concatenate(lay.cnt)
    size = int(np.prod(spec.shape)) if spec.shape else 1
    step = max(1, 2_000_000 // max(size, 1) // 8)
    vals = [
        spec.fn(_DeleteOneView(lay, cls[i : i + step], atom[i : i + step])).reshape(
            (-1, *spec.shape)
        )
        for i in range(0, len(cls), step)
    ]
    return np.concatenate(vals, axis=0), mult


class _IndexKernel(Kernel):
    """A user function of a Scores object, called on every replicate (the index path)."""

    work_factor = 2.0

    def __init__(
        self, sc: ScoreData, keys: np.ndarray, fn: Callable[..., Any], kw: dict[str, Any]
    ) -> None:
        self.sc = sc
        self.lay = sc._lay
        self.keys = keys
        self.m = self.lay.m[0] + self.lay.m[1]
        self.fn = fn
        self.kw = kw
        est = np.asarray(fn(sc, **kw), dtype=float)
        self.shape = est.shape
        self.name = getattr(fn, "__name__", "metric")

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        lay, sign = self.lay, self.sc._sign
        out = np.empty((w.shape[0], *self.shape))
        m0 = lay.m[0]
        for r in range(w.shape[0]):
            cnt = np.round(w[r]).astype(np.intp)
            neg = sign * np.repeat(lay.u[0], cnt[:m0])
            pos = sign * np.repeat(lay.u[1], cnt[m0:])
            if len(neg) == 0 or len(pos) == 0:
                out[r] = np.nan
                continue
            s = self.sc._plain(pos, neg)
            out[r] = np.asarray(self.fn(s, **self.kw), dtype=float)
        return out


class _SmoothedKernel(_IndexKernel):
    """A statistic of a Scores object on smoothed replicates (the smoothed bootstrap).

    A row of ``m + 1`` values is a replicate's atom counts and the seed of its noise (see
    :class:`~mlci.engine.smoothing.SmoothedSampler`); a row of ``m`` counts (the data, a
    jackknife row) is evaluated without noise.
    """

    def __init__(
        self,
        sc: ScoreData,
        keys: np.ndarray,
        fn: Callable[[Any], Any],
        h: tuple[float, float],
        name: str,
    ) -> None:
        super().__init__(sc, keys, fn, {})
        self.h = h
        self.name = name

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        lay, sign = self.lay, self.sc._sign
        out = np.empty((w.shape[0], *self.shape))
        m0 = lay.m[0]
        for r in range(w.shape[0]):
            cnt = np.round(w[r, : self.m]).astype(np.intp)
            neg = sign * np.repeat(lay.u[0], cnt[:m0])
            pos = sign * np.repeat(lay.u[1], cnt[m0 : self.m])
            if len(neg) == 0 or len(pos) == 0:
                out[r] = np.nan
                continue
            if w.shape[1] > self.m:
                gen = np.random.default_rng(int(w[r, self.m]))
                y = smooth_scores(
                    np.r_[pos, neg], np.arange(len(pos) + len(neg)) < len(pos), self.h, gen
                )
                pos, neg = y[: len(pos)], y[len(pos) :]
            s = self.sc._plain(pos, neg)
            out[r] = np.asarray(self.fn(s), dtype=float).reshape(self.shape)
        return out


def atom_keys(sc: ScoreData) -> tuple[np.ndarray, np.ndarray]:
    """Atom of every internal sample (negatives sorted, then positives sorted), and its class."""
    lay = sc._lay
    kn = np.repeat(np.arange(lay.m[0]), lay.nobs[0].astype(np.intp))
    kp = lay.m[0] + np.repeat(np.arange(lay.m[1]), lay.nobs[1].astype(np.intp))
    labels = np.concatenate([np.zeros(len(kn), np.intp), np.ones(len(kp), np.intp)])
    return np.concatenate([kn, kp]), labels


def internal_perm(sc: ScoreData) -> np.ndarray:
    """User index of every internal sample (oriented sorted negatives, then positives)."""
    idx_n, idx_p = np.flatnonzero(~sc._is_pos), np.flatnonzero(sc._is_pos)
    on = np.argsort(sc._sign * sc._y_score[idx_n], kind="stable")
    op = np.argsort(sc._sign * sc._y_score[idx_p], kind="stable")
    return np.concatenate([idx_n[on], idx_p[op]])
