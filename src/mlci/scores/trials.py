"""The joint bootstrap for verification trials (speaker, face, signature verification).

A verification trial compares an enrollment side with a test side, and each side
belongs to a speaker (and a session).  Trials are therefore correlated through *both*
sides, and resampling trials, or conditions of one side only, gives intervals that
are too narrow.  The joint bootstrap (Poh & Bengio 2007, "Estimating the confidence
interval of expected performance curve in biometric authentication using joint
bootstrap", ICASSP) resamples the speakers, and a trial enters a replicate as many
times as its two sides are drawn.  The DCA-PLDA code cited by the seed README
(``dca_plda/scores.py``, ``compute_performance_with_confidence_intervals``) does the
same with Python dictionaries, replicate by replicate: it draws speakers, then sessions
among the drawn speakers' sessions, then ids, gives every id the product of its
speaker's, session's and own multiplicities, and keeps every (enroll copy, test copy)
pair of the key, so a trial's weight is the product of its two sides' multiplicities.

Here the same weights are computed for all replicates of a block at once:

* speakers ``K`` (b, n_speakers): counts of ``n_speakers`` draws with replacement;
* optionally sessions within each speaker and ids within each session (or speaker):
  factors ``F`` (b, n_ids) drawn once per unit (weights multiply down the tree);
* trial weight = ``K[spk(e)] F[e] * K[spk(t)] F[t]`` gathered for all trials at once.

With speakers the only resampled level and the EER (the common case), a replicate is
fully described by its speaker counts ``K`` and no (b, n_trials) weight matrix is made
(:class:`SpeakerEer`): the trials are sorted by score once, only those in a window of
cuts around the data's EER crossing are gathered and summed per replicate, and the
weight below and above the window is a quadratic form ``K N K'`` in the speaker-pair
counts ``N`` (one small matrix product per block of replicates).  Rows whose crossing
leaves the window are redone on wider windows; sums are of integers, so the result is
exact and identical to the weight-matrix path.

A trial whose two sides share a speaker (every target trial, and same-speaker
non-target trials in some protocols): with ``same_speaker="once"`` (default) it gets
the speaker's multiplicity once, ``K[s] F[e] F[t]``; with ``"product"`` it gets ``K[s]^2
F[e] F[t]``, as in the DCA-PLDA code.  "once" is the condition bootstrap of the target
trials: a speaker drawn ``k`` times brings its target trials ``k`` times (each copy
pairs its own enrollment with its own test side).  "product" also counts the pairs
(copy 1's enrollment, copy 2's test side) as target trials, so a speaker drawn twice
counts four times: the weights' variance grows (E[K^2] = 2, Var[K^2] ~ 10 instead of
Var[K] ~ 1) and the target-side intervals get wider than those of the cluster
bootstrap, with no sampling model that produces them.  Different-speaker trials get
``K[s1] K[s2]`` in both cases: every copy of one speaker meets every copy of the other
(Owen 2007, "The pigeonhole bootstrap", the bootstrap for crossed random effects).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np
from scipy import sparse

from ..engine.auc_class import warn_few_auc_class, warn_near_edge_auc
from ..engine.bootstrap import finish_bootstrap
from ..engine.plan import PlanSummary
from ..engine.replicate_loop import jackknife_values, run_replicates, single_threaded_blas
from ..engine.sampler import Sampler
from ..engine.scores_rules import scores_auto_method, warn_few_eer_errors
from ..feedback import reports_progress
from ..inputs import (
    ArgSpec,
    binary_target,
    bootstrap_options,
    check_choice,
    check_flag,
    check_positive_int,
    check_rng_seed,
    gather,
    knobs_in_config,
    missing_mask,
    native_values,
)
from ..metrics import FunctionKernel, Kernel, get_kernel
from ..results import BootstrapResult, per_confidence_level
from ._cluster_rules import trial_cluster_rule
from ._point_rules import quiet_under, with_score_interval

__all__ = ["EerKernel", "trial_bootstrap_ci", "trial_weights"]

LEVELS = ("speaker", "session", "id")
#: built-in metrics of the trials whose values lie in [0, 1]
_UNIT_RANGE = ("eer", "roc_auc", "average_precision")


# --------------------------------------------------------------------------- EER kernel
def _eer_crossing(
    p_miss: np.ndarray, p_fa: np.ndarray, at_first_cut: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crossing of ``P_miss = P_fa`` along consecutive cuts, row by row.

    ``d = P_miss - P_fa`` is non-decreasing along the cuts.  Returns the EER (linear
    interpolation between the two cuts that bracket the crossing), the index of the first
    cut with ``d >= 0`` and whether the crossing is inside the given cuts (the first
    cut must have ``d < 0`` unless it is the first cut of all, ``at_first_cut``; the
    last must have ``d >= 0``).
    """
    d = p_miss - p_fa
    pos = d >= 0
    i = np.argmax(pos, axis=1)
    inside = pos[:, -1] & (~pos[:, 0] | at_first_cut)
    i = np.where(pos[:, 0], 0, i)
    rows = np.arange(d.shape[0])
    i0 = np.maximum(i - 1, 0)
    d0, d1 = d[rows, i0], d[rows, i]
    m0, m1 = p_miss[rows, i0], p_miss[rows, i]
    step = d1 - d0
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = np.where(step > 0, -d0 / np.where(step > 0, step, 1.0), 0.0)
    return m0 + lam * (m1 - m0), i, inside


class EerKernel(Kernel):
    """Weighted equal error rate, vectorised over replicates.

    Atoms are the distinct non-target scores (increasing), then the distinct target
    scores (increasing), as in :class:`mlci.metrics.ranking.RocAucKernel`.  At the cut
    below each distinct score ``g`` (trials scoring below ``g`` rejected),
    ``P_miss`` = target weight below ``g`` / total target weight and ``P_fa`` = non-target
    weight at or above ``g`` / total non-target weight.  The EER is where the
    piecewise-linear curve through those operating points crosses ``P_miss = P_fa``
    (linear interpolation between the two cuts that bracket the crossing): the crossing
    of scikit-learn's ``roc_curve`` polyline with the line ``fnr = fpr``.

    Cumulative sums are only taken in a window of cuts around the crossing on the data
    as given (replicates move it little); a row whose crossing leaves the window is
    recomputed over every cut, so the value is always exact.
    """

    work_factor = 4.0

    def __init__(self, y_true: Any, y_score: Any, pos_label: Any = None) -> None:
        g = gather(
            {"y_true": ArgSpec("labels"), "y_score": ArgSpec("scores")},
            {"y_true": y_true, "y_score": y_score},
        )
        s = g["y_score"]
        tar = binary_target(g["y_true"], pos_label, metric="eer")
        if tar.all() or not tar.any():
            raise ValueError("'eer' needs both target and non-target trials.")
        u_neg, inv_neg = np.unique(s[~tar], return_inverse=True)
        u_pos, inv_pos = np.unique(s[tar], return_inverse=True)
        self.m_neg = len(u_neg)
        keys = np.empty(len(s), dtype=np.intp)
        keys[~tar] = inv_neg.reshape(-1)
        keys[tar] = self.m_neg + inv_pos.reshape(-1)
        self.keys = keys
        self.m = self.m_neg + len(u_pos)
        grid = np.union1d(u_neg, u_pos)
        # atoms below each cut (cut c rejects scores < grid[c]; the last cut rejects all)
        self.i_pos = np.r_[np.searchsorted(u_pos, grid, side="left"), len(u_pos)]
        self.i_neg = np.r_[np.searchsorted(u_neg, grid, side="left"), self.m_neg]
        self.n_cuts = len(grid) + 1
        self.name = "eer"
        self.shape = ()
        self.window = (0, self.n_cuts - 1)
        counts = np.bincount(keys, minlength=self.m)[None, :].astype(float)
        c0 = int(self._crossing(counts, 0, self.n_cuts - 1)[1][0])
        half = max(2000, self.n_cuts // 16)
        self.window = (max(0, c0 - half), min(self.n_cuts - 1, c0 + half))

    def _crossing(self, w: np.ndarray, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, Any]:
        """EER of each row from the cuts ``lo..hi``; also the first cut past the crossing
        and whether the crossing lies inside the window."""
        b = w.shape[0]
        wn, wp = w[:, : self.m_neg], w[:, self.m_neg :]
        n_tot, p_tot = wn.sum(axis=1), wp.sum(axis=1)
        a_p, b_p = self.i_pos[lo], self.i_pos[hi]
        a_n, b_n = self.i_neg[lo], self.i_neg[hi]
        cp = np.empty((b, b_p - a_p + 1))
        cp[:, 0] = wp[:, :a_p].sum(axis=1)
        np.cumsum(wp[:, a_p:b_p], axis=1, out=cp[:, 1:])
        cp[:, 1:] += cp[:, :1]
        cn = np.empty((b, b_n - a_n + 1))
        cn[:, 0] = wn[:, :a_n].sum(axis=1)
        np.cumsum(wn[:, a_n:b_n], axis=1, out=cn[:, 1:])
        cn[:, 1:] += cn[:, :1]
        cuts = np.arange(lo, hi + 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            p_miss = cp[:, self.i_pos[cuts] - a_p] / p_tot[:, None]
            p_fa = 1.0 - cn[:, self.i_neg[cuts] - a_n] / n_tot[:, None]
        eer, i, inside = _eer_crossing(p_miss, p_fa, lo == 0)
        bad = (p_tot <= 0) | (n_tot <= 0)
        return np.where(bad, np.nan, eer), lo + i, inside | bad

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        lo, hi = self.window
        eer, _, inside = self._crossing(w, lo, hi)
        if not inside.all():
            redo = np.flatnonzero(~inside)
            eer[redo] = self._crossing(w[redo], 0, self.n_cuts - 1)[0]
        return eer


class _PairForm:
    """``sum_i K[a_i] K[b_i]`` over a fixed set of trials, for many rows ``K`` at once.

    Trials only matter through their (enrollment speaker, test speaker) pair, so the sum
    is the quadratic form ``K N K'`` with ``N`` the pair counts: one matrix product per
    block of replicates (BLAS), whatever the number of trials.  Only the columns of
    ``N`` that hold trials are kept (same-speaker trials under "once" all sit in the
    column of ones); ``N`` is sparse when the speakers are too many for a dense matrix.
    """

    def __init__(self, a: np.ndarray, b: np.ndarray, n_cols: int) -> None:
        self.empty = len(a) == 0
        if self.empty:
            return
        cols, b_local = np.unique(b, return_inverse=True)
        self.cols = cols
        flat = a.astype(np.int64) * len(cols) + b_local.reshape(-1)
        counts = np.bincount(flat, minlength=n_cols * len(cols)).astype(float)
        if n_cols * len(cols) <= 1 << 22:  # dense up to 32 MiB
            self.mat: Any = counts.reshape(n_cols, len(cols))
        else:
            nz = np.flatnonzero(counts)
            self.mat = sparse.csr_matrix(
                (counts[nz], (nz // len(cols), nz % len(cols))), shape=(n_cols, len(cols))
            ).T.tocsr()  # (cols, n_cols): product with K' below

    def __call__(self, k: np.ndarray) -> np.ndarray:
        if self.empty:
            return np.zeros(k.shape[0])
        if isinstance(self.mat, np.ndarray):
            kn = k @ self.mat
        else:
            kn = (self.mat @ k.T).T
        return np.einsum("ij,ij->i", kn, k[:, self.cols])


class _WindowLevel:
    """Cuts ``lo..hi`` of the EER search: the trials inside are summed one by one, those
    below and above through :class:`_PairForm`."""

    def __init__(
        self,
        side: dict[str, np.ndarray],
        i_pos: np.ndarray,
        i_neg: np.ndarray,
        lo: int,
        hi: int,
        n_cols: int,
    ) -> None:
        self.lo, self.hi = lo, hi
        self.first = lo == 0
        a_p, b_p, a_n, b_n = i_pos[lo], i_pos[hi], i_neg[lo], i_neg[hi]
        te, tt, ne, nt = side["te"], side["tt"], side["ne"], side["nt"]
        self.win_t = (te[a_p:b_p], tt[a_p:b_p])
        self.win_n = (ne[a_n:b_n], nt[a_n:b_n])
        self.below_t = _PairForm(te[:a_p], tt[:a_p], n_cols)
        self.above_t = _PairForm(te[b_p:], tt[b_p:], n_cols)
        self.below_n = _PairForm(ne[:a_n], nt[:a_n], n_cols)
        self.above_n = _PairForm(ne[b_n:], nt[b_n:], n_cols)
        self.cut_p = i_pos[lo : hi + 1] - a_p
        self.cut_n = i_neg[lo : hi + 1] - a_n
        self.size = (b_p - a_p) + (b_n - a_n)

    @staticmethod
    def _cum(k: np.ndarray, win: tuple[np.ndarray, np.ndarray], below: np.ndarray) -> np.ndarray:
        w = np.take(k, win[0], axis=1)
        w *= np.take(k, win[1], axis=1)
        out = np.empty((k.shape[0], w.shape[1] + 1))
        out[:, 0] = below
        np.cumsum(w, axis=1, out=out[:, 1:])
        out[:, 1:] += below[:, None]
        return out

    def crossing(self, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cp = self._cum(k, self.win_t, self.below_t(k))
        cn = self._cum(k, self.win_n, self.below_n(k))
        p_tot = cp[:, -1] + self.above_t(k)
        n_tot = cn[:, -1] + self.above_n(k)
        with np.errstate(invalid="ignore", divide="ignore"):
            p_miss = cp[:, self.cut_p] / p_tot[:, None]
            p_fa = 1.0 - cn[:, self.cut_n] / n_tot[:, None]
        eer, _, inside = _eer_crossing(p_miss, p_fa, self.first)
        bad = (p_tot <= 0) | (n_tot <= 0)
        return np.where(bad, np.nan, eer), inside | bad


class SpeakerEer:
    """Weighted EER of joint-bootstrap replicates given by their speaker counts.

    With speakers the only resampled level, a trial's weight is ``K[a] K[b]`` (``a``, ``b``
    its sides' speakers; ``b`` is a column of ones for same-speaker trials under "once"),
    so a replicate is fully described by its ``n_speakers + 1`` counts.  The trials are
    sorted by score once.  The EER crossing of a replicate lies near that of the data, so
    only the trials in a window of cuts around it are gathered and summed; the weight
    below and above the window is a quadratic form in the counts (:class:`_PairForm`,
    one matrix product per block).  Rows whose crossing leaves the window are redone on
    wider windows, the last being every cut.  All sums are of integers (exact in float64),
    so the result does not depend on the window, chunk size or thread count, and equals
    :class:`EerKernel` on the trial weights.
    """

    def __init__(self, trials: _Trials, tar: np.ndarray, s: np.ndarray) -> None:
        """``tar``: boolean target of every trial; ``s``: its score (validated by the caller)."""
        if tar.all() or not tar.any():
            raise ValueError("'eer' needs both target and non-target trials.")
        order = np.argsort(s, kind="stable")
        t_idx, n_idx = order[tar[order]], order[~tar[order]]
        s_t, s_n = s[t_idx], s[n_idx]
        side = {
            "te": trials.spk_e[t_idx],
            "tt": trials.spk_t[t_idx],
            "ne": trials.spk_e[n_idx],
            "nt": trials.spk_t[n_idx],
        }
        grid = np.unique(s)
        # trials below each cut (cut c rejects scores < grid[c]; the last cut rejects all)
        i_pos = np.r_[np.searchsorted(s_t, grid, side="left"), len(s_t)]
        i_neg = np.r_[np.searchsorted(s_n, grid, side="left"), len(s_n)]
        n_cuts = len(grid) + 1
        self.n_cols = trials.n_spk + 1
        p_miss = i_pos / len(s_t)
        p_fa = 1.0 - i_neg / len(s_n)
        d = p_miss - p_fa  # on the data as given, non-decreasing from -1 to 1
        self.levels: list[_WindowLevel] = []
        for delta in (0.02, 0.08, 0.3):
            lo = max(int(np.searchsorted(d, -delta, side="left")) - 1, 0)
            hi = min(int(np.searchsorted(d, delta, side="right")), n_cuts - 1)
            if hi - lo > n_cuts // 2:
                break
            self.levels.append(_WindowLevel(side, i_pos, i_neg, lo, hi, self.n_cols))
        self.levels.append(_WindowLevel(side, i_pos, i_neg, 0, n_cuts - 1, self.n_cols))
        self.window_trials = self.levels[0].size

    def evaluate(self, k: np.ndarray) -> np.ndarray:
        """EER of each row of speaker counts ``k`` (b, n_speakers + 1), last column ones."""
        k = np.asarray(k, dtype=float)
        out = np.empty(k.shape[0])
        rows = np.arange(k.shape[0])
        for level in self.levels:
            eer, inside = level.crossing(k if len(rows) == k.shape[0] else k[rows])
            out[rows[inside]] = eer[inside]
            rows = rows[~inside]
            if not len(rows):
                break
        return out


# --------------------------------------------------------------------------- the trials
def _lookup(name: str, mapping: Any, ids: np.ndarray) -> np.ndarray:
    if hasattr(mapping, "to_dict") and not isinstance(mapping, Mapping):
        mapping = mapping.to_dict()  # a pandas Series indexed by id
    if not isinstance(mapping, Mapping):
        raise TypeError(
            f"`{name}` must map every enrollment and test id to its value (a dict or a "
            f"pandas Series indexed by id); got {type(mapping).__name__}."
        )
    missing = [i for i in ids.tolist() if i not in mapping]
    if missing:
        shown = ", ".join(repr(v) for v in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise ValueError(
            f"{len(missing)} id(s) of the trials are missing from `{name}`: {shown}{more}. "
            "Every enrollment and test id needs an entry."
        )
    out = np.empty(len(ids), dtype=object)
    out[:] = [mapping[i] for i in ids.tolist()]
    bad = missing_mask(out)
    if bad.any():
        shown = ", ".join(repr(v) for v in ids[bad][:5].tolist())
        raise ValueError(
            f"`{name}` gives a missing value (None, NaN, NA) for {int(bad.sum())} id(s): "
            f"{shown}. Every id needs a {name.removesuffix('_of')}."
        )
    return native_values(out, name)


def _factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct ids and each value's index among them (as ``np.unique`` with
    ``return_inverse``); Python objects (strings) go through a dictionary first, which
    is much faster than sorting millions of objects."""
    try:
        if values.dtype != object:
            ids, inv = np.unique(values, return_inverse=True)
            return ids, inv.reshape(-1)
        as_list = values.tolist()
        distinct = list(dict.fromkeys(as_list))  # first-appearance order, hashing in C
        code = {v: i for i, v in enumerate(distinct)}
        first = np.fromiter(map(code.__getitem__, as_list), dtype=np.intp, count=len(as_list))
        uniq = np.empty(len(distinct), dtype=object)
        uniq[:] = distinct
        ids, rank = np.unique(uniq, return_inverse=True)
        return ids, rank.reshape(-1)[first]
    except TypeError:
        raise TypeError("`enroll_ids` and `test_ids` must hold ids of one type.") from None


class _Trials:
    """Integer structure of the trials: ids, speakers, sessions, and each trial's sides."""

    def __init__(
        self,
        enroll_ids: Any,
        test_ids: Any,
        speaker_of: Any,
        session_of: Any,
        resample: tuple[str, ...],
        same_speaker: str,
    ) -> None:
        # validated by the gate: 1-d, one type each, no missing value, same length
        e, t = np.asarray(enroll_ids), np.asarray(test_ids)
        if (e.dtype.kind in "US") != (t.dtype.kind in "US"):
            raise TypeError(
                f"`enroll_ids` holds {'strings' if e.dtype.kind in 'US' else 'numbers'} but "
                f"`test_ids` holds {'strings' if t.dtype.kind in 'US' else 'numbers'}; the ids "
                "of both sides must be of one type."
            )
        ids, inv = _factorize(np.concatenate([e, t]))
        n = len(e)
        self.n_trials = n
        self.e, self.t = inv[:n].astype(np.intp), inv[n:].astype(np.intp)
        self.n_ids = len(ids)
        spk_raw = _lookup("speaker_of", speaker_of, ids)
        _, spk = np.unique(spk_raw, return_inverse=True)
        self.spk = spk.reshape(-1).astype(np.intp)
        self.n_spk = int(self.spk.max()) + 1
        if self.n_spk < 2:
            raise ValueError(
                "The trials (`enroll_ids`, `test_ids`) involve a single speaker of "
                "`speaker_of`; resampling needs several."
            )
        self.ses = None
        self.n_ses = None
        if session_of is not None:
            ses_raw = _lookup("session_of", session_of, ids)
            _, ses_lab = np.unique(ses_raw, return_inverse=True)
            pair = self.spk.astype(np.int64) * (int(ses_lab.max()) + 1) + ses_lab.reshape(-1)
            _, ses = np.unique(pair, return_inverse=True)  # sessions are paths speaker/session
            self.ses = ses.reshape(-1).astype(np.intp)
            self.n_ses = int(self.ses.max()) + 1
        self.resample = resample
        # resampling groups: sessions inside speakers, ids inside sessions (or speakers)
        self.groups: list[tuple[np.ndarray, int, np.ndarray]] = []
        if "session" in resample:
            assert self.ses is not None and self.n_ses is not None
            ses_spk = np.zeros(self.n_ses, dtype=np.intp)
            ses_spk[self.ses] = self.spk
            self.groups.append(_grouping(ses_spk, self.n_spk))
        if "id" in resample:
            parent = self.ses if self.ses is not None else self.spk
            n_par = self.n_ses if self.n_ses is not None else self.n_spk
            self.groups.append(_grouping(parent, int(n_par)))
        se, st = self.spk[self.e], self.spk[self.t]
        same = se == st
        self.n_same = int(same.sum())
        self.spk_e = se
        # the test side's speaker column; same-speaker trials point at a column of ones
        self.spk_t = np.where(same & (same_speaker == "once"), self.n_spk, st).astype(np.intp)

    def reorder(self, order: np.ndarray) -> None:
        self.e, self.t = self.e[order], self.t[order]
        self.spk_e, self.spk_t = self.spk_e[order], self.spk_t[order]


def _grouping(parent: np.ndarray, n_par: int) -> tuple[np.ndarray, int, np.ndarray]:
    order = np.argsort(parent, kind="stable")
    k = np.bincount(parent, minlength=n_par)
    start = np.concatenate(([0], np.cumsum(k)[:-1]))
    # for each child slot (children grouped by parent): its parent's start and size
    slot_start = np.repeat(start, k)
    slot_k = np.repeat(k, k)
    return order, len(parent), np.stack([slot_start, slot_k])


def _draw_within(rng: np.random.Generator, b: int, grouping: Any) -> np.ndarray:
    """Each parent draws its ``k`` children with replacement: counts (b, n_children)."""
    order, n_child, slots = grouping
    slot_start, slot_k = slots
    pick = slot_start[None, :] + (rng.random((b, n_child)) * slot_k[None, :]).astype(np.intp)
    child = order[pick]
    flat = (child + np.arange(b)[:, None] * n_child).ravel()
    return np.bincount(flat, minlength=b * n_child).reshape(b, n_child).astype(float)


class _TrialSampler(Sampler):
    """The joint speaker bootstrap: a block is ``(b, n_trials)`` trial weights (or, for the
    fast EER path, the ``(b, n_spk + 1)`` speaker multiplicities they are made from)."""

    def __init__(
        self,
        trials: _Trials,
        n_resamples: int,
        seed: np.random.SeedSequence,
        speaker_counts: bool = False,
    ) -> None:
        self.trials = trials
        self.speaker_counts = speaker_counts  # blocks of speaker counts, not trial weights
        self.seed = seed
        self.n_resamples = n_resamples
        self.m = trials.n_spk + 1 if speaker_counts else trials.n_trials
        self.block_size = int(np.clip((1 << 23) // max(trials.n_trials, 1), 1, 64))

    def draw(self, rng: np.random.Generator, b: int, out: np.ndarray | None = None) -> np.ndarray:
        if self.speaker_counts:  # the same draws as the trial weights' first step
            w = _speaker_counts(rng, b, self.trials.n_spk)
        else:
            w = trial_weights_block(self.trials, rng, b)
        if out is None:
            return w
        out[...] = w
        return out

    def jackknife_rows(
        self, max_groups: int
    ) -> tuple[int, np.ndarray, Callable[[int, int], np.ndarray]]:
        """Delete-one-speaker (or group of speakers) jackknife rows, in the blocks'
        representation: a trial is removed with either side's speaker."""
        trials = self.trials
        n_spk = trials.n_spk
        if n_spk <= max_groups:
            group = np.arange(n_spk)
            g = n_spk
        else:
            group = self.random_groups(n_spk, max_groups)
            g = max_groups
        if self.speaker_counts:  # rows of speaker counts: the deleted group's speakers are 0

            def rows_k(a: int, b: int) -> np.ndarray:
                k = np.ones((b - a, n_spk + 1))
                gone = (group[None, :] == np.arange(a, b)[:, None]).nonzero()
                k[gone] = 0.0
                return k

            return g, np.ones(g), rows_k
        ge = group[trials.spk[trials.e]]
        gt = group[trials.spk[trials.t]]

        def rows_w(a: int, b: int) -> np.ndarray:
            r = np.arange(a, b)[:, None]
            return ((ge[None, :] != r) & (gt[None, :] != r)).astype(float)

        return g, np.ones(g), rows_w


def _speaker_counts(rng: np.random.Generator, b: int, n_spk: int) -> np.ndarray:
    """Multiplicities (b, n_spk + 1) of ``n_spk`` speakers drawn with replacement; the
    last column is ones (the test side of a same-speaker trial under "once")."""
    draws = rng.integers(0, n_spk, size=(b, n_spk))
    k = np.bincount((draws + np.arange(b)[:, None] * n_spk).ravel(), minlength=b * n_spk)
    k_ext = np.ones((b, n_spk + 1))
    k_ext[:, :n_spk] = k.reshape(b, n_spk)
    return k_ext


def trial_weights_block(trials: _Trials, rng: np.random.Generator, b: int) -> np.ndarray:
    """Weights (b, n_trials) of ``b`` joint-bootstrap replicates."""
    k_ext = _speaker_counts(rng, b, trials.n_spk)
    w = np.take(k_ext, trials.spk_e, axis=1)
    w *= np.take(k_ext, trials.spk_t, axis=1)
    if trials.groups:
        f = np.ones((b, trials.n_ids))
        level = 0
        if "session" in trials.resample:
            f_ses = _draw_within(rng, b, trials.groups[0])
            f *= f_ses[:, trials.ses]
            level = 1
        if "id" in trials.resample:
            f *= _draw_within(rng, b, trials.groups[level])
        w *= np.take(f, trials.e, axis=1)
        w *= np.take(f, trials.t, axis=1)
    return w


def trial_weights(
    enroll_ids: Any,
    test_ids: Any,
    *,
    speaker_of: Any,
    session_of: Any = None,
    resample: Any = ("speaker",),
    same_speaker: str = "once",
    n_resamples: int = 1000,
    rng: Any = None,
) -> np.ndarray:
    """Joint-bootstrap weights of every trial in every replicate, shape (n_resamples, n_trials).

    For use with any weighted metric (``sample_weight=weights[r]``); see
    :func:`trial_bootstrap_ci` for the parameters.

    Examples
    --------
    >>> from mlci.scores.trials import trial_weights
    >>> w = trial_weights(["a", "a", "b"], ["b", "c", "c"],
    ...                   speaker_of={"a": 1, "b": 1, "c": 2}, n_resamples=4, rng=0)
    >>> w.shape
    (4, 3)
    """
    n_resamples = check_positive_int("n_resamples", n_resamples)
    seed = check_rng_seed(rng)
    g = gather(
        {"enroll_ids": ArgSpec("groups"), "test_ids": ArgSpec("groups")},
        {"enroll_ids": enroll_ids, "test_ids": test_ids},
    )
    trials, _ = _prepare(
        g["enroll_ids"], g["test_ids"], speaker_of, session_of, resample, same_speaker
    )
    return _TrialSampler(trials, n_resamples, seed).all_replicates()


def _prepare(
    enroll_ids: Any,
    test_ids: Any,
    speaker_of: Any,
    session_of: Any,
    resample: Any,
    same_speaker: str,
) -> tuple[_Trials, tuple[str, ...]]:
    if isinstance(resample, str):
        resample = (resample,)
    resample = tuple(resample)
    for r in resample:
        check_choice("resample", r, LEVELS)
    if "speaker" not in resample:
        raise ValueError(
            "`resample` must include 'speaker' (the joint bootstrap draws speakers first); "
            f"got {resample!r}."
        )
    if "session" in resample and session_of is None:
        raise ValueError("`resample` includes 'session' but `session_of` is None.")
    check_choice("same_speaker", same_speaker, ("once", "product"))
    trials = _Trials(enroll_ids, test_ids, speaker_of, session_of, resample, same_speaker)
    return trials, resample


# --------------------------------------------------------------------------- public API
@knobs_in_config
@reports_progress
@per_confidence_level
def trial_bootstrap_ci(
    y_true: Any,
    y_score: Any,
    *,
    enroll_ids: Any,
    test_ids: Any,
    speaker_of: Mapping[Any, Any],
    session_of: Mapping[Any, Any] | None = None,
    data: Any = None,
    metric: str | Callable[..., Any] = "eer",
    pos_label: Any = None,
    resample: Any = ("speaker",),
    same_speaker: str = "once",
    n_resamples: int = 1000,
    confidence_level: float | list[float] = 0.95,
    method: str = "auto",
    alternative: str = "two-sided",
    rng: Any = None,
    dropna: bool = False,
) -> BootstrapResult:
    """Confidence interval for a verification metric with the joint (speaker) bootstrap.

    Parameters
    ----------
    y_true : array-like, shape (n_trials,)
        Target (1/True) or non-target (0/False) trial; other pairs of values need
        ``pos_label``, more than two values are refused.
    y_score : array-like of float, shape (n_trials,)
        Higher means more likely the same speaker.
    enroll_ids, test_ids : array-like, shape (n_trials,)
        The two sides of every trial (ids of one type).
    speaker_of : dict or pandas Series
        Speaker of every enrollment and test id.
    session_of : dict or pandas Series, optional
        Session of every id (needed to resample sessions).
    data : DataFrame, optional
        A pandas or polars DataFrame (or pyarrow Table): ``y_true``, ``y_score``,
        ``enroll_ids`` and ``test_ids`` may then be column names.
    metric : "eer", "roc_auc", "average_precision", another (y_true, y_score) metric, or
        callable ``metric(y_true, y_score, sample_weight=...)``
    pos_label : optional
        The target label of a built-in metric (see :func:`mlci.inputs.positive_label`).
    resample : tuple of {"speaker", "session", "id"}, default ("speaker",)
        Levels drawn with replacement, from the top: speakers, then sessions within each
        speaker, then ids within each session (or speaker).  Speakers only is usually
        right (see :mod:`mlci.engine.nested` for why adding lower levels widens the interval).
        These are the trials' conditions: the joint bootstrap takes no ``conditions=``.
    same_speaker : {"once", "product"}, default "once"
        Weight of a trial whose two sides share a speaker: that speaker's multiplicity
        once (condition bootstrap of the target trials), or squared (the DCA-PLDA code).
    n_resamples, confidence_level, method, alternative, rng
        As in :func:`mlci.bootstrap_ci` (BCa uses a delete-one-speaker jackknife).
        ``method="auto"`` (the default) is the statistic's rule of the score drivers
        (:func:`mlci.engine.scores_rules.scores_auto_method`): percentile for ``"eer"``
        (with a warning below 5 errors among the target or non-target trials), BCa
        otherwise (docs/validation.md, section 5, "The Scores statistics" and
        "metric_by_group and trial_bootstrap_ci").  Trials that share speakers are not
        independent, so the score interval :func:`mlci.eer_ci` gives independent trials
        below one error does not apply; an EER below 5 errors in its smaller class (with
        ``resample=("speaker",)`` and ``same_speaker="once"``) gets the score interval
        over conditions (:mod:`mlci.engine.scores_clustered`) with each trial counted in
        both its speakers: a non-target trial belongs to its enrollment's and its test's
        speaker, a crossed (dyadic) design whose variance also sums the pairs of trials
        sharing either speaker (Fafchamps & Gubert 2007), the linearized variance of this
        joint bootstrap (docs/validation.md, "EER and operating points with few errors
        over conditions").  The intervals of ``"eer"``,
        ``"roc_auc"`` and ``"average_precision"`` stay in [0, 1].  A list of levels
        returns a tuple of results, one per level (same replicates).
    dropna : bool, default False
        Drop the trials with a missing label, score or id instead of refusing them
        (``details["n_dropped"]`` says how many).

    Returns
    -------
    BootstrapResult
        ``scheme`` names the resampled levels; ``n_conditions`` is the number of speakers.

    Examples
    --------
    >>> import numpy as np
    >>> from mlci.scores.trials import trial_bootstrap_ci
    >>> rng = np.random.default_rng(0)
    >>> spk = np.repeat(np.arange(30), 4)                 # 120 recordings, 4 per speaker
    >>> ids = np.array([f"r{i}" for i in range(120)])
    >>> e, t = np.triu_indices(120, k=1)
    >>> lab = spk[e] == spk[t]
    >>> sc = rng.normal(2.0 * lab, 1.0)
    >>> res = trial_bootstrap_ci(lab, sc, enroll_ids=ids[e], test_ids=ids[t], metric="eer",
    ...                          speaker_of=dict(zip(ids, spk)), n_resamples=200, rng=0)
    >>> res.scheme, res.n_conditions, bool(res.confidence_interval.low < res.estimate)
    ('joint(speaker)', 30, True)
    """
    opts = bootstrap_options(
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
        linearized=False,
    )
    check_flag("dropna", dropna)
    if not (callable(metric) or isinstance(metric, str)):
        raise TypeError(f"`metric` must be a metric name or a callable; got {metric!r}.")
    if method == "auto" and isinstance(metric, str):  # the statistic's own rule (eer_ci's)
        auto, reason = scores_auto_method(metric.lower())
        opts = replace(opts, method=auto, method_reason=reason)
    if callable(metric) and pos_label is not None:
        raise ValueError(
            "`pos_label` is an option of the built-in metrics; a callable metric gets "
            "`y_true` as given."
        )
    g = gather(
        {
            "y_true": ArgSpec("labels", required=True),
            "y_score": ArgSpec("scores", required=True),
            "enroll_ids": ArgSpec("groups", required=True),
            "test_ids": ArgSpec("groups", required=True),
        },
        {"y_true": y_true, "y_score": y_score, "enroll_ids": enroll_ids, "test_ids": test_ids},
        dropna=bool(dropna),
        data=data,
    )
    s, lab = g["y_score"], g["y_true"]
    name = metric if isinstance(metric, str) else getattr(metric, "__name__", "metric")
    if not callable(metric):
        # built-in metrics see the binary target (one rule for the positive label)
        lab = binary_target(lab, pos_label, metric=name)
    trials, resample = _prepare(
        g["enroll_ids"], g["test_ids"], speaker_of, session_of, resample, same_speaker
    )
    sides = (trials.spk[trials.e], trials.spk[trials.t])  # before any reordering
    is_eer = isinstance(metric, str) and metric.lower() == "eer"
    fast = is_eer and resample == ("speaker",)
    batch = opts.engine.batch
    evaluate: Callable[[np.ndarray], np.ndarray]
    if fast:
        speaker_eer = SpeakerEer(trials, lab, s)
        evaluate = speaker_eer.evaluate
        sampler = _TrialSampler(trials, opts.n_resamples, opts.seed, speaker_counts=True)
        n_win = max(speaker_eer.window_trials, 1)
        bytes_per_row = 8.0 * (8 * n_win + 4 * trials.n_spk)
        if batch is None:  # chunks of a few MiB stay in cache and feed every thread
            batch = int(np.clip((4 << 20) // (8 * n_win), 16, 256))
        threads = True
        bounds = (0.0, 1.0)
    else:
        evaluate, threads, bounds = _trial_evaluator(trials, metric, lab, s)
        sampler = _TrialSampler(trials, opts.n_resamples, opts.seed)
        bytes_per_row = 8.0 * trials.n_trials * 7
    estimate = float(evaluate(np.ones((1, sampler.m)))[0])
    if np.isnan(estimate):
        raise ValueError(f"The metric {name!r} is undefined (NaN) on the trials as given.")
    with single_threaded_blas(fast):
        dist = run_replicates(
            evaluate,
            sampler,
            (),
            bytes_per_row=bytes_per_row,
            n_jobs=opts.engine.n_jobs,
            max_memory=opts.engine.max_memory,
            threads=threads,
        )
    details: dict[str, Any] = {
        "n_trials": trials.n_trials,
        "n_ids": trials.n_ids,
        "same_speaker_trials": trials.n_same,
        "same_speaker": same_speaker,
        "n_dropped": g.n_dropped,
    }
    if opts.method_reason is not None:
        details["method_reason"] = opts.method_reason
    score = None  # the score interval over speakers (mlci.scores._cluster_rules)
    if is_eer and method == "auto" and resample == ("speaker",) and same_speaker == "once":
        score = trial_cluster_rule(lab, s, *sides, estimate)
    if is_eer and method == "auto" and score is None:
        n_target = float(np.sum(lab))
        few = warn_few_eer_errors(estimate, n_target, len(lab) - n_target)
        if few is not None:
            details["few_errors_warning"] = few
    if isinstance(metric, str) and metric.lower() == "roc_auc":  # auc_ci's class rules
        n_target = int(np.sum(lab))
        few = warn_few_auc_class(n_target, len(lab) - n_target, opts.method) or warn_near_edge_auc(
            n_target, len(lab) - n_target, estimate, opts.method
        )
        if few is not None:
            details["few_samples_warning"] = few

    def jackknife() -> tuple[np.ndarray, np.ndarray]:
        with single_threaded_blas(fast):
            return jackknife_values(
                evaluate,
                sampler,
                max_groups=100 if not threads else 200,
                bytes_per_row=bytes_per_row,
                max_memory=opts.engine.max_memory,
            )

    plan = PlanSummary(
        n_resamples=opts.n_resamples,
        scheme=f"joint({', '.join(resample)})",
        n_samples=trials.n_trials,
        n_conditions=trials.n_spk,
        n_strata=None,
    )
    with warnings.catch_warnings():
        for quiet in quiet_under(score):  # a score interval replaces it
            warnings.simplefilter("ignore", quiet)
        res = finish_bootstrap(
            estimate,
            dist,
            plan=plan,
            name=name,
            method=opts.method,
            confidence_level=opts.confidence_level,
            alternative=opts.alternative,
            jackknife=jackknife if opts.method == "bca" else None,
            details=details,
            hint="(No target or no non-target trial drawn.)",
            bounds=bounds,
        )
    return res if score is None else with_score_interval(res, score, opts)


def _trial_evaluator(
    trials: _Trials, metric: Any, lab: np.ndarray, s: np.ndarray
) -> tuple[Callable[[np.ndarray], np.ndarray], bool, tuple[float, float]]:
    """The metric on trial weights (b, n_trials): ``evaluate``, whether it may run in
    threads, and the metric's range.  Reorders ``trials`` into the kernel's atom order.

    ``lab`` is the boolean target for a built-in metric, the labels as given for a
    callable."""
    kernel: Kernel
    if isinstance(metric, str) and metric.lower() == "eer":
        kernel = EerKernel(lab, s)
        kernel.bounds = (0.0, 1.0)
    else:
        kernel = get_kernel(metric, (lab, s), {})
    if kernel.shape != ():
        raise ValueError("`trial_bootstrap_ci` needs a scalar metric.")
    # put the trials in atom order, so a replicate's atom counts are contiguous sums
    order = np.argsort(kernel.keys, kind="stable")
    trials.reorder(order)
    sorted_keys = kernel.keys[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    if isinstance(kernel, FunctionKernel):
        inv = np.empty_like(order)
        inv[order] = np.arange(len(order))

        def to_atoms(w: np.ndarray) -> np.ndarray:
            return w[:, inv]  # back to the user's trial order
    elif len(starts) == len(sorted_keys):

        def to_atoms(w: np.ndarray) -> np.ndarray:
            return w
    else:

        def to_atoms(w: np.ndarray) -> np.ndarray:
            return np.add.reduceat(w, starts, axis=1)

    def evaluate(w: np.ndarray) -> np.ndarray:
        return kernel.evaluate(to_atoms(w))

    bounds = tuple(kernel.bounds)
    if isinstance(metric, str) and metric.lower() in _UNIT_RANGE:
        bounds = (0.0, 1.0)
    return evaluate, not isinstance(kernel, FunctionKernel), bounds  # type: ignore[return-value]
