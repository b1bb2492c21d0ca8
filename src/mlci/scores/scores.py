"""Binary scores: rates at thresholds, thresholds at rates, EER, and their bootstrap intervals.

A :class:`Scores` object keeps the positive and negative scores sorted once.  Every
metric is computed from *cumulative counts* of the sorted scores: how many negatives
(positives) fall below a threshold.  That makes every statistic a function of a
"view" of the counts, and a bootstrap replicate is just another view:

* ``_WeightsView``: the replicate's counts over the atoms (distinct scores of each class,
  negatives then positives), as drawn by the engine's samplers (a plan from
  :func:`mlci.engine.nested.plan_for_conditions`: iid, strata, conditions, nested
  conditions); a rate at a fixed threshold is a gather from the cumulative sum of the
  weights.
* ``_LazyView``: the same multinomial (or Poisson) bootstrap, sampled lazily.  The
  cumulative count of a class at a position, given the counts already drawn at the
  nearest known positions on each side, is binomial (a multinomial bridge), so a
  search (EER, threshold at a rate) only draws the O(log n) counts it looks at instead
  of n weights per replicate.  The law of every statistic is exactly that of the
  multinomial bootstrap; it is the default when neither ``conditions`` nor ``strata``
  are given and the statistic is a search.
* ``_DeleteOneView``: the data with one sample removed, for BCa's exact jackknife.

Both samplers (:class:`_LazySampler` and the engine's) run through the one replicate loop
(:func:`mlci.engine.bootstrap.run_replicates`) and the one finish step
(:func:`mlci.engine.bootstrap.finish_bootstrap`), in :meth:`Scores._bootstrap`, the driver
behind every interval of :mod:`mlci.scores` (curves and verification metrics included).

Conventions (``score_class``, ``equal_class``) follow score-analysis:

============  ============  =========================
score_class   equal_class   decided positive when
============  ============  =========================
"pos"         "pos"         score >= threshold
"pos"         "neg"         score >  threshold
"neg"         "pos"         score <= threshold
"neg"         "neg"         score <  threshold
============  ============  =========================

Internally scores are *oriented* (``z = score`` or ``-score``) so that the rule is always
``z >= tau`` (or ``z > tau``); thresholds are mapped back on output.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from ..engine.bootstrap import (
    finish_bootstrap,
    jackknife_groups,
    jackknife_values,
    run_replicates,
)
from ..engine.custom import UserSampler, check_sampler
from ..engine.nested import plan_for_conditions
from ..engine.sampler import Sampler
from ..engine.smoothing import (
    SUBSAMPLE_METHODS,
    SmoothedSampler,
    check_smoothing,
    check_subsample,
    silverman_bandwidth,
    smooth_scores,
    subsample_counts,
)
from ..feedback import reports_progress
from ..inputs import (
    DEFAULT_MAX_MEMORY,
    ArgSpec,
    binary_target,
    bootstrap_options,
    check_choice,
    check_flag,
    check_rng_seed,
    gather,
)
from ..metrics import Kernel, RocAucKernel, check_sample_weight, with_sample_weight
from ..results import BootstrapResult, per_confidence_level
from ._design import (
    check_stratify_nested,
    design_arrays,
    strata_codes,
)
from .confusion import CM_METRICS, ConfusionMatrix, binary_cm_metric, cm_metric_bounds

__all__ = ["EqualErrorRate", "Scores", "invert_polyline", "pointwise_cm"]

_LABELS = ("pos", "neg")
_THRESHOLD_RATES = ("tpr", "fnr", "tnr", "fpr")
_INTERPOLATIONS = ("linear", "lower", "higher")
_RATE = (0.0, 1.0)
_UNBOUNDED = (-np.inf, np.inf)
_RATE_ALIASES = {"tar": "tpr", "frr": "fnr", "trr": "tnr", "far": "fpr"}
#: replicates per block of the lazy sampler (each block has its own generator)
_LAZY_BLOCK = 256


class EqualErrorRate(NamedTuple):
    """The equal error rate and the threshold where FNR = FPR.

    A named tuple (it unpacks); :func:`mlci.eer_ci` gives both with intervals
    (an :class:`~mlci.scores.verification.EERResult`).

    Examples
    --------
    >>> e = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5]).eer()
    >>> e
    EqualErrorRate(eer=0.5, threshold=2.5)
    >>> eer, threshold = e
    """

    eer: float
    threshold: float


# ============================================================================ docstrings
# Shared numpydoc sections of the one-line rate and threshold methods of Scores.
_RATE_SECTIONS = """
    Parameters
    ----------
    threshold : float or array_like of float, any shape X
        Decision threshold(s).  A sample is decided positive when its score is above the
        threshold (below it with ``score_class="neg"``); a score equal to the threshold
        goes to ``equal_class``.

    Returns
    -------
    float or ndarray of shape X
        A float for a scalar threshold; NaN where the rate is undefined (a zero
        denominator).
"""

_THRESHOLD_SECTIONS = """
    Parameters
    ----------
    {rate} : float or array_like of float in [0, 1], any shape X
        Target value(s) of the rate.
    interpolation : {{"linear", "lower", "higher"}}, default "linear"
        ``"linear"``: interpolate linearly between the two scores around the target;
        ``"lower"``/``"higher"``: the nearest score where the rate is below/above it.

    Returns
    -------
    float or ndarray of shape X
        Threshold(s) on the score scale; a float for a scalar target.
"""


def _doc(sections: str, **fields: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Insert shared numpydoc sections into a docstring, before its Examples if any.

    Documentation only: the function itself is returned unchanged.
    """

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        doc = inspect.cleandoc(fn.__doc__ or "")
        head, sep, examples = doc.partition("\nExamples\n")
        added = textwrap.dedent(sections.format(**fields)).strip("\n")
        fn.__doc__ = f"{head.rstrip()}\n\n{added}\n" + (f"\nExamples\n{examples}\n" if sep else "")
        return fn

    return deco


# ============================================================================ validation
def _check_threshold(threshold: Any) -> np.ndarray:
    if threshold is None or isinstance(threshold, str | bytes):
        raise TypeError(f"`threshold` must be a number or an array of numbers; got {threshold!r}.")
    arr = np.asarray(threshold)
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(
            f"`threshold` must be a number or an array of numbers; got dtype {arr.dtype}."
        )
    arr = arr.astype(float)
    if np.isnan(arr).any():
        raise ValueError("`threshold` contains NaN.")
    return arr


def _check_easy(n_easy_pos: Any, n_easy_neg: Any) -> tuple[int, int]:
    out = []
    for name, v in (("n_easy_pos", n_easy_pos), ("n_easy_neg", n_easy_neg)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 0:
            raise ValueError(f"`{name}` must be a non-negative integer (a count); got {v!r}.")
        out.append(int(v))
    return out[0], out[1]


def _check_rate(name: str, rate: Any) -> np.ndarray:
    if rate is None or isinstance(rate, str | bytes):
        raise TypeError(f"`{name}` must be a number or an array of numbers in [0, 1].")
    arr = np.asarray(rate)
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(f"`{name}` must be a number or an array of numbers in [0, 1].")
    arr = arr.astype(float)
    if np.isnan(arr).any() or np.any(arr < 0) or np.any(arr > 1):
        raise ValueError(f"`{name}` must lie in [0, 1]; got {arr if arr.ndim else float(arr)}.")
    return arr


def _out(x: np.ndarray) -> Any:
    x = np.asarray(x)
    return float(x) if x.ndim == 0 else x


# ============================================================================ layout
class _Layout:
    """Static description of the atoms (distinct oriented scores of each class)."""

    def __init__(
        self,
        zneg: np.ndarray,
        zpos: np.ndarray,
        side: str,
        wneg: np.ndarray | None = None,
        wpos: np.ndarray | None = None,
    ) -> None:
        self.side = side  # "left": z >= tau is positive; "right": z > tau
        self.u = [None, None]
        self.cnt = [None, None]  # per atom: number of samples, or their summed weights
        self.nobs = [None, None]  # per atom: number of samples
        for cls, z, wt in ((0, zneg, wneg), (1, zpos, wpos)):
            u, inv, c = np.unique(z, return_inverse=True, return_counts=True)
            self.u[cls], self.nobs[cls] = u, c.astype(float)
            self.cnt[cls] = (
                c.astype(float)
                if wt is None
                else np.bincount(inv.reshape(-1), weights=wt, minlength=len(u))
            )
        self.m = [len(self.u[0]), len(self.u[1])]
        self.F = [np.concatenate(([0.0], np.cumsum(c))) for c in self.cnt]
        self.n = [float(self.F[0][-1]), float(self.F[1][-1])]
        # merged grid of operating points g = 0..G: everything below grid[g] decided negative
        grid = np.unique(np.concatenate(self.u))
        self.grid = grid
        g = len(grid)
        self.G = g
        self.bq = [
            np.concatenate((np.searchsorted(self.u[c], grid, side="left"), [self.m[c]]))
            for c in (0, 1)
        ]
        if side == "left":  # operating point g: tau = grid[g] with the >= rule
            self.theta = np.concatenate((grid, [np.nextafter(grid[-1], np.inf)]))
        else:  # tau = grid[g-1] with the > rule
            self.theta = np.concatenate(([np.nextafter(grid[0], -np.inf)], grid))

    def boundary(self, cls: int, tau: np.ndarray) -> np.ndarray:
        """Atom boundary index: number of atoms of ``cls`` decided negative at ``tau``."""
        return np.searchsorted(self.u[cls], tau, side=self.side)


# ============================================================================ views
class _View:
    """Cumulative counts of one batch of ``b`` data sets (original, replicates, jackknife)."""

    b: int

    def total(self, cls: int) -> np.ndarray:  # (b,)
        raise NotImplementedError

    def cum_fixed(self, cls: int, q: np.ndarray) -> np.ndarray:  # q (k,) -> (b, k)
        raise NotImplementedError

    def cum_rows(self, cls: int, q: np.ndarray) -> np.ndarray:  # q (b,) -> (b,)
        raise NotImplementedError

    def atom_at(self, cls: int, j: np.ndarray) -> np.ndarray:
        """Atom holding element ``j`` (b,) of each row's sorted sample (bisection on counts)."""
        lo = np.zeros(self.b, dtype=np.intp)
        hi = np.full(self.b, self.m[cls], dtype=np.intp)
        while True:
            active = hi - lo > 1
            if not active.any():
                return lo
            mid = np.where(active, (lo + hi) // 2, lo)
            go = self.cum_rows(cls, mid) <= j
            lo = np.where(go, mid, lo)
            hi = np.where(go, hi, mid)


class _WeightsView(_View):
    def __init__(self, lay: _Layout, w: np.ndarray) -> None:
        w = np.asarray(w, dtype=float)
        self.b = w.shape[0]
        self.m = lay.m
        m0 = lay.m[0]
        self.w = [w[:, :m0], w[:, m0:]]
        self.cum = []
        for part in self.w:
            c = np.zeros((self.b, part.shape[1] + 1))
            np.cumsum(part, axis=1, out=c[:, 1:])
            self.cum.append(c)

    def total(self, cls: int) -> np.ndarray:
        return self.cum[cls][:, -1]

    def cum_fixed(self, cls: int, q: np.ndarray) -> np.ndarray:
        return self.cum[cls][:, q]

    def cum_rows(self, cls: int, q: np.ndarray) -> np.ndarray:
        return self.cum[cls][np.arange(self.b), q]

    def atom_at(self, cls: int, j: np.ndarray) -> np.ndarray:
        # one searchsorted over all rows: offset row r by r * (max total + 1)
        cum = self.cum[cls][:, 1:]
        step = float(cum[:, -1].max()) + 1.0
        off = np.arange(self.b)[:, None] * step
        flat = (cum + off).ravel()
        idx = np.searchsorted(flat, np.asarray(j, dtype=float) + off[:, 0], side="right")
        return np.minimum(idx - np.arange(self.b) * cum.shape[1], cum.shape[1] - 1)


class _DeleteOneView(_View):
    """Row r = the data without one sample of atom ``atom[r]`` of class ``cls[r]``."""

    def __init__(self, lay: _Layout, cls: np.ndarray, atom: np.ndarray) -> None:
        self.lay = lay
        self.m = lay.m
        self.cls = cls
        self.atom = atom
        self.b = len(cls)
        self._rep: list[np.ndarray | None] = [None, None]

    def total(self, cls: int) -> np.ndarray:
        return self.lay.n[cls] - (self.cls == cls)

    def cum_fixed(self, cls: int, q: np.ndarray) -> np.ndarray:
        hit = (self.cls == cls)[:, None] & (self.atom[:, None] < q[None, :])
        return self.lay.F[cls][q][None, :] - hit

    def cum_rows(self, cls: int, q: np.ndarray) -> np.ndarray:
        return self.lay.F[cls][q] - ((self.cls == cls) & (self.atom < q))

    def atom_at(self, cls: int, j: np.ndarray) -> np.ndarray:
        if self._rep[cls] is None:
            self._rep[cls] = np.repeat(np.arange(self.m[cls]), self.lay.cnt[cls].astype(np.intp))
        rep = self._rep[cls]
        removed = self.lay.F[cls][np.minimum(self.atom + 1, self.m[cls])] - 1
        j = np.asarray(j)
        shift = (self.cls == cls) & (j >= removed)
        return rep[np.clip(j + shift, 0, len(rep) - 1).astype(np.intp)]


class _LazyCounts:
    """Cumulative counts of one class in ``b`` multinomial replicates, drawn on demand.

    Known points (atom boundary, count) are kept per row; a new point between two known
    ones is ``C(lo) + Binomial(C(hi) - C(lo), (F(q) - F(lo)) / (F(hi) - F(lo)))`` with ``F``
    the original cumulative counts: the conditional law of a multinomial's partial sums.
    """

    def __init__(self, F: np.ndarray, totals: np.ndarray, rng: np.random.Generator) -> None:
        self.F = F
        self.m = len(F) - 1
        self.rng = rng
        b = len(totals)
        self.rows = np.arange(b)
        self.q = np.zeros((b, 32), dtype=np.intp)
        self.c = np.zeros((b, 32))
        self.q[:, 1] = self.m
        self.c[:, 1] = totals
        self.k = 2
        self.fresh = True

    def _append(self, q: np.ndarray, c: np.ndarray) -> None:
        q = q.reshape(len(self.rows), -1)
        c = c.reshape(len(self.rows), -1)
        j = q.shape[1]
        if self.k + j > self.q.shape[1]:
            grow = max(self.q.shape[1], j)
            self.q = np.concatenate([self.q, np.zeros((len(self.rows), grow), np.intp)], 1)
            self.c = np.concatenate([self.c, np.zeros((len(self.rows), grow))], 1)
        self.q[:, self.k : self.k + j] = q
        self.c[:, self.k : self.k + j] = c
        self.k += j
        self.fresh = False

    def at_rows(self, q: np.ndarray) -> np.ndarray:
        kq, kc = self.q[:, : self.k], self.c[:, : self.k]
        below = np.where(kq <= q[:, None], kq, -1)
        i_lo = below.argmax(axis=1)
        above = np.where(kq >= q[:, None], kq, self.m + 1)
        i_hi = above.argmin(axis=1)
        lo_q, lo_c = kq[self.rows, i_lo], kc[self.rows, i_lo]
        hi_q, hi_c = kq[self.rows, i_hi], kc[self.rows, i_hi]
        exact = lo_q == q
        if exact.all():
            return lo_c
        den = self.F[hi_q] - self.F[lo_q]
        ok = den > 0
        p = np.where(ok, (self.F[q] - self.F[lo_q]) / np.where(ok, den, 1.0), 0.0)
        n = np.maximum(hi_c - lo_c, 0).astype(np.int64)
        c = lo_c + self.rng.binomial(n, np.clip(p, 0.0, 1.0))
        c = np.where(exact, lo_c, c)
        self._append(q, c)
        return c

    def at_fixed(self, q: np.ndarray) -> np.ndarray:
        if not self.fresh:
            return np.stack([self.at_rows(np.full(len(self.rows), qj)) for qj in q], axis=1)
        qs, inv = np.unique(q, return_inverse=True)
        inner = qs[(qs > 0) & (qs < self.m)]
        edges = np.concatenate(([0], inner, [self.m]))
        pv = np.diff(self.F[edges]) / self.F[-1]
        draws = self.rng.multinomial(self.c[:, 1].astype(np.int64), np.clip(pv, 0, 1))
        cum = np.concatenate([np.zeros((len(self.rows), 1)), np.cumsum(draws, axis=1)], 1)
        at_edges = cum  # counts at boundaries `edges`
        self._append(np.broadcast_to(inner, (len(self.rows), len(inner))).copy(), cum[:, 1:-1])
        pos = np.searchsorted(edges, qs)
        return at_edges[:, pos][:, inv.reshape(-1)]


class _LazyView(_View):
    def __init__(
        self, lay: _Layout, totals: tuple[np.ndarray, np.ndarray], rng: np.random.Generator
    ) -> None:
        self.b = len(totals[0])
        self.m = lay.m
        self.tot = totals
        self.lazy = [_LazyCounts(lay.F[c], totals[c], rng) for c in (0, 1)]

    def total(self, cls: int) -> np.ndarray:
        return self.tot[cls].astype(float)

    def cum_fixed(self, cls: int, q: np.ndarray) -> np.ndarray:
        return self.lazy[cls].at_fixed(np.asarray(q, dtype=np.intp))

    def cum_rows(self, cls: int, q: np.ndarray) -> np.ndarray:
        return self.lazy[cls].at_rows(np.asarray(q, dtype=np.intp))


# ============================================================================ statistics on views
def _counts_at(lay: _Layout, v: _View, tau: np.ndarray) -> np.ndarray:
    """Confusion matrices (b, k, 2, 2) at oriented thresholds ``tau`` (k,)."""
    tn = v.cum_fixed(0, lay.boundary(0, tau))
    fn = v.cum_fixed(1, lay.boundary(1, tau))
    n_neg, n_pos = v.total(0)[:, None], v.total(1)[:, None]
    cm = np.empty((v.b, len(tau), 2, 2))
    cm[..., 0, 0] = n_pos - fn
    cm[..., 0, 1] = fn
    cm[..., 1, 0] = n_neg - tn
    cm[..., 1, 1] = tn
    return cm


def _value_at(lay: _Layout, v: _View, cls: int, j: np.ndarray) -> np.ndarray:
    """Oriented score of element ``j`` (b, k) of each row's sorted sample of class ``cls``."""
    out = np.empty(j.shape)
    for col in range(j.shape[1]):
        out[:, col] = lay.u[cls][v.atom_at(cls, j[:, col])]
    return out


def _tau_at_rate(lay: _Layout, v: _View, rate: str, r: np.ndarray, method: str) -> np.ndarray:
    """Oriented threshold where ``rate`` (tpr, fnr, tnr, fpr) equals ``r`` (k,) -> (b, k).

    FNR (positives) and TNR (negatives) increase with the threshold; they are inverted by
    linear interpolation between order statistics of the class's sorted scores: element
    ``r*n`` (left-continuous rule ``>=``) or ``r*n - 1`` (rule ``>``).  TPR and FPR are
    ``1 - FNR`` and ``1 - TNR`` (with ``lower``/``higher`` swapped).
    """
    cls = 1 if rate in ("tpr", "fnr") else 0
    r = np.asarray(r, dtype=float)
    if rate in ("tpr", "fpr"):
        r = 1.0 - r
        method = {"lower": "higher", "higher": "lower"}.get(method, method)
    n = v.total(cls)[:, None]
    shift = 0.0 if lay.side == "left" else 1.0
    target = r[None, :] - shift / np.where(n > 0, n, 1.0)
    pos = target * n
    # snap float noise (0.95 * 40 = 37.99999...) so attainable rates k/n are hit exactly
    near = np.round(pos)
    pos = np.where(np.abs(pos - near) < 1e-9 * np.maximum(n, 1.0), near, pos)
    lo = np.floor(pos)
    hi = np.ceil(pos)
    la = hi - pos
    top = np.maximum(n - 1, 0)
    lo = np.clip(lo, 0, top).astype(np.intp)
    hi = np.clip(hi, 0, top).astype(np.intp)
    v_lo = _value_at(lay, v, cls, lo)
    v_hi = _value_at(lay, v, cls, hi)
    if method == "linear":
        # exact ends first: an infinite score (an LLR of +-inf) must not give 0 * inf = NaN
        with np.errstate(invalid="ignore"):
            mix = la * v_lo + (1 - la) * v_hi
        tau = np.where(la <= 0, v_hi, np.where(la >= 1, v_lo, mix))
    elif method == "lower":
        tau = v_lo
    else:
        tau = v_hi
    # below the smallest score; with the ">" rule the rate 1/n is attained at the smallest
    # score itself (score-analysis returns the float just below it there)
    low_edge = target <= 0.0 if lay.side == "left" else target < -1e-12
    high_edge = target >= 1.0
    if low_edge.any():
        first = _value_at(lay, v, cls, np.zeros((v.b, 1), np.intp))
        tau = np.where(low_edge, np.nextafter(np.broadcast_to(first, tau.shape), -np.inf), tau)
    if high_edge.any():
        last = _value_at(lay, v, cls, top.astype(np.intp))
        tau = np.where(high_edge, np.nextafter(np.broadcast_to(last, tau.shape), np.inf), tau)
    return np.where(n > 0, tau, np.nan)


def _rate_at_tau_rows(lay: _Layout, v: _View, rate: str, tau: np.ndarray) -> np.ndarray:
    """``rate`` at per-row oriented thresholds ``tau`` (b, k)."""
    cls = 1 if rate in ("tpr", "fnr") else 0
    n = v.total(cls)
    out = np.empty(tau.shape)
    for col in range(tau.shape[1]):
        t = tau[:, col]
        below = v.cum_rows(cls, lay.boundary(cls, np.where(np.isnan(t), 0.0, t)))
        frac = np.where(n > 0, below / np.where(n > 0, n, 1.0), np.nan)  # FNR or TNR
        out[:, col] = np.where(np.isnan(t), np.nan, frac)
    return out if rate in ("fnr", "tnr") else 1.0 - out


def _first_cut(v: _View, pred: Callable[[np.ndarray], np.ndarray], lo: int, hi: int) -> np.ndarray:
    """Per row, the first operating point ``g`` in (lo, hi] where the monotone ``pred``
    holds (``pred(lo)`` false and ``pred(hi)`` true by assumption; neither is called)."""
    lo_r = np.full(v.b, lo, dtype=np.intp)
    hi_r = np.full(v.b, hi, dtype=np.intp)
    while True:
        active = hi_r - lo_r > 1
        if not active.any():
            return hi_r
        mid = np.where(active, (lo_r + hi_r) // 2, np.maximum(lo_r, 0))
        ok = pred(mid)
        lo_r = np.where(active & ~ok, mid, lo_r)
        hi_r = np.where(active & ok, mid, hi_r)


def _roc_rate_at(lay: _Layout, v: _View, rate: str, x: str, r: np.ndarray) -> np.ndarray:
    """``rate`` where ``x`` equals ``r`` (k,) along the ROC polyline, per row -> (b, k).

    The operating points (one per cut of the merged score grid) joined by straight lines
    are the ROC polyline, which depends on the ranks of the scores only.  Where ``x = r``
    falls inside a segment, both rates are interpolated linearly along it (pROC's
    ``coords(input = ...)``).  Where a whole run of points has ``x = r`` exactly (a
    vertical segment of the ROC: the other class's rate varies at a constant ``x``), the
    best of them is read, as pROC: the one with the highest TPR when ``x`` is a rate of
    the negatives (fpr, tnr), the highest TNR when ``x`` is a rate of the positives.
    """
    c = 1 if x in ("tpr", "fnr") else 0
    o = 1 - c
    below = np.asarray(r, dtype=float)  # the target as a rate below the cut (fnr / tnr)
    if x in ("tpr", "fpr"):
        below = 1.0 - below
    n_c, n_o = v.total(c), v.total(o)
    eps = 1e-9 * np.maximum(n_c, 1.0)
    out = np.empty((v.b, len(below)))

    def cum(cls: int, g: np.ndarray) -> np.ndarray:
        return v.cum_rows(cls, lay.bq[cls][g])

    for col, rb in enumerate(below):
        k = rb * n_c
        near = np.round(k)  # float noise (0.9 * 40 = 36.00000001) must hit k/n exactly
        k = np.where(np.abs(k - near) < eps, near, k)
        if c == 0:  # fpr/tnr: the lowest cut reaching the target (highest TPR)
            g = _first_cut(v, lambda q, k=k: cum(c, q) >= k - eps, -1, lay.G)
            f_g = cum(c, g)
            exact = f_g <= k + eps
            g_lo = np.where(exact, g, np.maximum(g - 1, 0))
            g_hi = g
        else:  # tpr/fnr: the highest cut not passing the target (highest TNR)
            g = _first_cut(v, lambda q, k=k: cum(c, q) > k + eps, -1, lay.G + 1)
            g_lo = np.maximum(g - 1, 0)
            f_lo = cum(c, g_lo)
            exact = f_lo >= k - eps
            g_hi = np.where(exact, g_lo, np.minimum(g, lay.G))
        c_lo, c_hi = cum(c, g_lo), cum(c, g_hi)
        o_lo, o_hi = cum(o, g_lo), cum(o, g_hi)
        with np.errstate(invalid="ignore", divide="ignore"):
            lam = np.where(c_hi > c_lo, (k - c_lo) / np.where(c_hi > c_lo, c_hi - c_lo, 1.0), 0.0)
            f_c = np.where(exact, c_lo, k)
            f_o = np.where(exact, o_lo, o_lo + lam * (o_hi - o_lo))
            f = f_o / n_o if (rate in ("tpr", "fnr")) == (o == 1) else f_c / n_c
        val = f if rate in ("fnr", "tnr") else 1.0 - f
        out[:, col] = np.where((n_c > 0) & (n_o > 0), val, np.nan)
    return out


def _eer(lay: _Layout, v: _View) -> np.ndarray:
    """(b, 2): EER and its oriented threshold, by a bisection over the merged score grid.

    ``d(g) = FNR(g) - FPR(g)`` is non-decreasing over the operating points g = 0..G
    (d(0) = -1, d(G) = 1); the EER is where the ROC polyline between the last point with
    ``d < 0`` and the first with ``d >= 0`` crosses FNR = FPR.
    """
    n_neg, n_pos = v.total(0), v.total(1)
    ok = (n_neg > 0) & (n_pos > 0)
    sn = np.where(n_neg > 0, n_neg, 1.0)
    sp = np.where(n_pos > 0, n_pos, 1.0)

    def d(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cp = v.cum_rows(1, lay.bq[1][g])
        cn = v.cum_rows(0, lay.bq[0][g])
        return cp / sp + cn / sn - 1.0, 1.0 - cn / sn

    lo = np.zeros(v.b, dtype=np.intp)
    hi = np.full(v.b, lay.G, dtype=np.intp)
    while True:
        active = hi - lo > 1
        if not active.any():
            break
        mid = np.where(active, (lo + hi) // 2, lo)
        dm, _ = d(mid)
        go = dm < 0
        lo = np.where(go, mid, lo)
        hi = np.where(go, hi, mid)
    d_lo, f_lo = d(lo)
    d_hi, f_hi = d(hi)
    lam = -d_lo / np.where(d_hi > d_lo, d_hi - d_lo, 1.0)
    eer = f_lo + lam * (f_hi - f_lo)
    t_lo, t_hi = lay.theta[lo], lay.theta[hi]
    with np.errstate(invalid="ignore"):  # infinite scores: pick the end, no 0 * inf
        mix = t_lo + lam * (t_hi - t_lo)
    thr = np.where((lam <= 0) | (t_lo == t_hi), t_lo, np.where(lam >= 1, t_hi, mix))
    out = np.stack([eer, thr], axis=1)
    out[~ok] = np.nan
    return out


# ============================================================================ metric registry
@dataclass(frozen=True)
class _Part:
    """One component of a joint statistic (the last axis of its value): name and range."""

    name: str
    bounds: tuple[float, float]


@dataclass(frozen=True)
class _Spec:
    """A metric bound to its options: ``fn(view) -> (b, *shape)``; ``search`` marks lazy-able.

    ``bounds`` is the statistic's range (intervals are kept inside it); a joint statistic
    (e.g. the EER and its threshold from the same replicates) has ``parts``, one per
    entry of its last axis, each with its own name and range.
    """

    name: str
    fn: Callable[[_View], np.ndarray]
    shape: tuple[int, ...]
    search: bool
    full: bool = False  # needs every atom's weight (no lazy path)
    fixed: bool = False  # only counts at fixed thresholds (cheap in the lazy sampler)
    bounds: tuple[float, float] = _UNBOUNDED
    parts: tuple[_Part, ...] | None = None


class _ScoresKernel(Kernel):
    """Engine kernel of a Scores statistic: atoms = distinct scores, negatives then positives."""

    work_factor = 8.0

    def __init__(self, lay: _Layout, keys: np.ndarray, spec: _Spec) -> None:
        self.lay = lay
        self.keys = keys
        self.m = lay.m[0] + lay.m[1]
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

    def __init__(self, sc: Scores, keys: np.ndarray, fn: Callable[..., Any], kw: dict) -> None:
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
            s = Scores._trusted(pos, neg, self.sc.score_class, self.sc.equal_class)
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
        sc: Scores,
        keys: np.ndarray,
        fn: Callable[[Scores], Any],
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
            s = Scores._trusted(pos, neg, self.sc.score_class, self.sc.equal_class)
            out[r] = np.asarray(self.fn(s), dtype=float).reshape(self.shape)
        return out


# ============================================================================ Scores
class Scores:
    """Scores of a binary classifier on positive and negative samples, sorted once.

    Parameters
    ----------
    pos, neg : array-like of float, shape (n_pos,), (n_neg,)
        Scores of the positive and of the negative samples (both non-empty; ``±inf`` is
        allowed, e.g. log-likelihood ratios).  Build one from per-sample labels with
        :meth:`from_labels`.
    score_class : {"pos", "neg"}, default "pos"
        Whether a high score points to the positive class (similarity) or to the
        negative class (distance).
    equal_class : {"pos", "neg"}, default "pos"
        The class of a score exactly equal to the threshold.
    dropna : bool, default False
        Drop missing scores (NaN, None, ``pd.NA``) instead of refusing them; their number
        is :attr:`n_dropped` and every bootstrap result reports it in
        ``details["n_dropped"]``.
    n_easy_pos, n_easy_neg : int, default 0
        "Easy" samples of each class, without a score: counted as always decided right
        (score-analysis's ``nb_easy_pos``/``nb_easy_neg``, e.g. samples a cascade's first
        stage settles).  They are samples like the others, with an infinite score on
        their class's side (shown in :attr:`pos`/:attr:`neg`): every rate counts them and
        the bootstrap resamples them; with ``conditions=``/``strata=``, each class's easy
        samples follow its scored ones.

    Attributes
    ----------
    pos, neg : ndarray
        The sorted scores of each class.
    n_dropped : int
        Samples dropped for a missing value (with ``dropna=True``).

    Notes
    -----
    The samples keep an order, used by ``conditions=`` and ``strata=`` of the bootstrap
    methods: ``pos`` then ``neg`` here, the order of the labels in :meth:`from_labels`.

    Examples
    --------
    >>> s = Scores.from_labels([1, 1, 1, 0, 0], [1, 2, 3, 0.5, 1.5])
    >>> s.pos, s.neg
    (array([1., 2., 3.]), array([0.5, 1.5]))
    >>> s.fpr(threshold=1.2)
    0.5
    >>> s.fpr(threshold=[0.4, 1.2, 2.0])
    array([1. , 0.5, 0. ])
    >>> s.threshold_at_fnr(0.3), s.threshold_at_fnr([0.3, 0.6, 0.9])
    (1.9, array([1.9, 2.8, 3. ]))

    Two more positives that are always accepted:

    >>> Scores([1, 2, 3], [0.5, 1.5], n_easy_pos=2).tpr(2.5)
    0.6
    """

    def __init__(
        self,
        pos: Any,
        neg: Any,
        *,
        score_class: str = "pos",
        equal_class: str = "pos",
        dropna: bool = False,
        n_easy_pos: int = 0,
        n_easy_neg: int = 0,
    ):
        check_choice("score_class", score_class, _LABELS)
        check_choice("equal_class", equal_class, _LABELS)
        check_flag("dropna", dropna)
        easy = _check_easy(n_easy_pos, n_easy_neg)
        parts, kept, n_input = [], [], 0
        for name, x in (("pos", pos), ("neg", neg)):
            g = gather(
                {name: ArgSpec("scores", required=True)}, {name: x}, dropna=dropna, allow_empty=True
            )
            if g.n_samples + easy[name == "neg"] == 0:
                what = "positive" if name == "pos" else "negative"
                raise ValueError(
                    f"`{name}` is empty: there are no {what} scores; both classes are needed."
                )
            # easy samples: an infinite score on their class's side, after the scored ones
            k_easy = easy[name == "neg"]
            side = 1.0 if (name == "pos") == (score_class == "pos") else -1.0
            parts.append(np.r_[g[name], np.full(k_easy, side * np.inf)])
            kept_here = np.arange(g.n_samples) if g.kept is None else g.kept
            n_given = g.n_samples + g.n_dropped
            kept.append(n_input + np.r_[kept_here, n_given + np.arange(k_easy)].astype(np.intp))
            n_input += n_given + k_easy
        p, n = parts
        is_pos = np.r_[np.ones(len(p), dtype=bool), np.zeros(len(n), dtype=bool)]
        self._init(np.r_[p, n], is_pos, score_class, equal_class, np.concatenate(kept), n_input)
        self.n_easy_pos, self.n_easy_neg = easy

    def _init(
        self,
        y_score: np.ndarray,
        is_pos: np.ndarray,
        score_class: str,
        equal_class: str,
        kept: np.ndarray | None = None,
        n_input: int | None = None,
        sample_weight: np.ndarray | None = None,
    ) -> None:
        """Set up from validated user-order scores and positives (the one constructor)."""
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
        self.n_dropped = n_input - n_samples
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
        cls, pos: np.ndarray, neg: np.ndarray, score_class: str, equal_class: str
    ) -> Scores:
        """From float arrays known to be valid (replicates of a user function), no gate."""
        obj = cls.__new__(cls)
        is_pos = np.r_[np.ones(len(pos), dtype=bool), np.zeros(len(neg), dtype=bool)]
        obj._init(np.r_[pos, neg], is_pos, score_class, equal_class)
        return obj

    def _subset(self, keep: np.ndarray) -> Scores:
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
        )
        return obj

    @classmethod
    def from_labels(
        cls,
        y_true: Any,
        y_score: Any,
        *,
        pos_label: Any = None,
        score_class: str = "pos",
        equal_class: str = "pos",
        dropna: bool = False,
        data: Any = None,
        sample_weight: Any = None,
    ) -> Scores:
        """Scores from per-sample binary labels and scores.

        Parameters
        ----------
        y_true : array-like, shape (n_samples,)
            Binary labels.  More than two classes are refused: binarise them first
            (``y_true == "angry"``), which says which class is positive.
        y_score : array-like of float, shape (n_samples,)
            Scores (``±inf`` allowed).
        pos_label : optional
            The positive class; by default 1 (True) for labels in {0, 1}, {-1, 1} or
            {False, True}, otherwise required (see :func:`mlci.inputs.positive_label`).
        score_class, equal_class : {"pos", "neg"}
            As in :class:`Scores`.
        dropna : bool, default False
            Drop the samples with a missing label or score instead of refusing them.
        data : DataFrame, optional
            A pandas or polars DataFrame (or pyarrow Table); ``y_true`` and ``y_score`` may
            then be column names.
        sample_weight : array-like of float, shape (n_samples,), optional
            Per-sample weights (non-negative, not all zero), as scikit-learn's
            ``sample_weight``: every rate, confusion matrix, curve and the AUC count a
            sample with its weight (an integer weight ``k`` gives exactly the values of the
            sample repeated ``k`` times), and :meth:`bootstrap_ci` multiplies each
            replicate's counts by the weights.

        Returns
        -------
        Scores
            The sample order of ``y_true`` is remembered: ``conditions=`` and ``strata=``
            of the bootstrap methods are given in that order (with ``dropna=True``,
            either for the samples kept or for all the samples given).

        Examples
        --------
        >>> s = Scores.from_labels(["no", "yes", "yes"], [0.2, 0.9, 0.4], pos_label="yes")
        >>> s.pos, s.neg
        (array([0.4, 0.9]), array([0.2]))
        >>> w = Scores.from_labels([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.6], sample_weight=[1, 1, 3, 1])
        >>> w.tpr(0.5), w.auc()           # the positive at 0.4 counts three times
        (0.25, 0.625)
        """
        check_choice("score_class", score_class, _LABELS)
        check_choice("equal_class", equal_class, _LABELS)
        check_flag("dropna", dropna)
        g = gather(
            {
                "y_true": ArgSpec("labels", required=True),
                "y_score": ArgSpec("scores", required=True),
                "sample_weight": ArgSpec("numbers"),
            },
            {"y_true": y_true, "y_score": y_score, "sample_weight": sample_weight},
            dropna=dropna,
            data=data,
        )
        sw = g["sample_weight"]
        if sw is not None:
            sw = check_sample_weight(sw, len(g["y_score"]))
        is_pos = binary_target(g["y_true"], pos_label, metric="Scores.from_labels")
        if not is_pos.any():
            raise ValueError("No sample is positive in `y_true`: there are no positives.")
        if is_pos.all():
            raise ValueError("Every sample is positive in `y_true`: there are no negatives.")
        if sw is not None:
            for cls_mask, what in ((is_pos, "positive"), (~is_pos, "negative")):
                if not (sw[cls_mask] > 0).any():
                    raise ValueError(
                        f"`sample_weight` is zero on every {what} sample: the {what} class "
                        "would be empty; both classes are needed."
                    )
        obj = cls.__new__(cls)
        obj._init(
            g["y_score"], is_pos, score_class, equal_class, g.kept, g.n_samples + g.n_dropped, sw
        )
        return obj

    def __repr__(self) -> str:
        return (
            f"Scores(n_pos={len(self.pos)}, n_neg={len(self.neg)}, "
            f"score_class={self.score_class!r}, equal_class={self.equal_class!r})"
        )

    @property
    def n_pos(self) -> int:
        return len(self.pos)

    @property
    def n_neg(self) -> int:
        return len(self.neg)

    def __eq__(self, other: object) -> bool:
        """Exact equality: the same sorted scores of each class (and weights), easy-sample
        counts, ``score_class`` and ``equal_class`` (no tolerance; the sample order is not
        compared).

        Examples
        --------
        >>> Scores([2, 1], [0.5]) == Scores([1, 2], [0.5])
        True
        >>> Scores([1, 2], [3, 4]).swap() == Scores([3, 4], [1, 2], score_class="neg",
        ...                                         equal_class="neg")
        True
        """
        if not isinstance(other, Scores):
            return NotImplemented
        return (
            self.score_class == other.score_class
            and self.equal_class == other.equal_class
            and self.n_easy_pos == other.n_easy_pos
            and self.n_easy_neg == other.n_easy_neg
            and bool(np.array_equal(self.pos, other.pos))
            and bool(np.array_equal(self.neg, other.neg))
            and all(map(np.array_equal, self._lay.cnt, other._lay.cnt))
            and self._eq_extra(other)
            and other._eq_extra(self)
        )

    def _eq_extra(self, other: Any) -> bool:
        """Further equality checks of subclasses (GroupScores: the groups)."""
        return True

    __hash__ = None  # type: ignore[assignment]  # mutable arrays: not hashable

    def swap(self) -> Scores:
        """Exchange the roles of the classes (and hence of every rate).

        Returns
        -------
        Scores
            Positives and negatives exchanged, ``score_class`` and ``equal_class``
            flipped, so that the FPR of the result is the FNR of the original.

        Examples
        --------
        >>> s = Scores([1, 2, 3], [0.5, 2.5])
        >>> float(s.swap().fnr(2.0)) == float(s.fpr(2.0))
        True
        """
        if self._w is not None:
            obj = Scores.__new__(Scores)
            obj._init(
                self._y_score,
                ~self._is_pos,
                "neg" if self.score_class == "pos" else "pos",
                "neg" if self.equal_class == "pos" else "pos",
                sample_weight=self._w,
            )
            return obj
        return Scores(
            self.neg,
            self.pos,
            score_class="neg" if self.score_class == "pos" else "pos",
            equal_class="neg" if self.equal_class == "pos" else "pos",
        )

    # ---------------------------------------------------------------- thresholds -> rates
    def _full_view(self) -> _WeightsView:
        return _WeightsView(self._lay, np.concatenate(self._lay.cnt)[None, :])

    def cm(self, threshold: Any) -> ConfusionMatrix:
        """Binary confusion matrices at ``threshold`` (any shape X): shape ``(X..., 2, 2)``.

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3], neg=[0.5, 1.5])
        >>> s.cm(1.2).matrix
        array([[2, 1],
               [1, 1]])
        >>> s.cm([[0, 1], [2, 3]]).matrix.shape
        (2, 2, 2, 2)
        """
        t = _check_threshold(threshold)
        cm = _counts_at(self._lay, self._full_view(), self._sign * t.reshape(-1))[0]
        cm = cm.reshape(*t.shape, 2, 2)
        return ConfusionMatrix(
            matrix=cm if self._w is not None else cm.astype(np.int64), binary=True
        )

    confusion_matrix = cm

    def metric(self, name: str, threshold: Any, **kwargs: Any) -> Any:
        """Any confusion-matrix metric (``tpr``, ``ppv``, ``mcc``, ...) at thresholds.

        Parameters
        ----------
        name : str
            A name of :data:`mlci.scores.confusion.CM_METRICS` (rates, counts, ``f1``,
            ``fbeta``, ``mcc``, ...) or ``tar``/``frr``/``trr``/``far``.
        threshold : float or array_like of float, any shape X
            Decision threshold(s) (see :meth:`tpr`).
        **kwargs
            Passed to :func:`mlci.scores.confusion.binary_cm_metric` (``beta`` for ``fbeta``).

        Returns
        -------
        float or ndarray of shape X
            NaN where the metric is undefined.

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3], neg=[0.5, 1.5])
        >>> round(s.metric("f1", 1.2), 4), s.metric("tp", [0, 2.5])
        (0.6667, array([3., 1.]))
        """
        name = _RATE_ALIASES.get(name, name)
        if name not in CM_METRICS:
            raise ValueError(f"Unknown metric {name!r}; known: {', '.join(CM_METRICS)}.")
        t = _check_threshold(threshold)
        cm = _counts_at(self._lay, self._full_view(), self._sign * t.reshape(-1))[0]
        return _out(binary_cm_metric(cm, name, **kwargs).reshape(t.shape))

    @_doc(_RATE_SECTIONS)
    def tpr(self, threshold: Any) -> Any:
        """True positive rate (recall, TAR) at ``threshold``."""
        return self.metric("tpr", threshold)

    @_doc(_RATE_SECTIONS)
    def fnr(self, threshold: Any) -> Any:
        """False negative rate (FRR) at ``threshold``."""
        return self.metric("fnr", threshold)

    @_doc(_RATE_SECTIONS)
    def tnr(self, threshold: Any) -> Any:
        """True negative rate (specificity, TRR) at ``threshold``."""
        return self.metric("tnr", threshold)

    @_doc(_RATE_SECTIONS)
    def fpr(self, threshold: Any) -> Any:
        """False positive rate (FAR) at ``threshold``."""
        return self.metric("fpr", threshold)

    @_doc(_RATE_SECTIONS)
    def topr(self, threshold: Any) -> Any:
        """Test outcome positive rate (acceptance rate) at ``threshold``."""
        return self.metric("topr", threshold)

    @_doc(_RATE_SECTIONS)
    def tonr(self, threshold: Any) -> Any:
        """Test outcome negative rate (rejection rate) at ``threshold``."""
        return self.metric("tonr", threshold)

    @_doc(_RATE_SECTIONS)
    def precision(self, threshold: Any) -> Any:
        """Precision (PPV) at ``threshold``; NaN where nothing is decided positive."""
        return self.metric("ppv", threshold)

    ppv = precision

    @_doc(_RATE_SECTIONS)
    def npv(self, threshold: Any) -> Any:
        """Negative predictive value at ``threshold``."""
        return self.metric("npv", threshold)

    @_doc(_RATE_SECTIONS)
    def accuracy(self, threshold: Any) -> Any:
        """Accuracy at ``threshold`` (with the data's class proportions)."""
        return self.metric("accuracy", threshold)

    far, frr, tar, trr = fpr, fnr, tpr, tnr
    acceptance_rate, rejection_rate = topr, tonr

    # ---------------------------------------------------------------- rates -> thresholds
    def _threshold_at(self, rate: str, value: Any, interpolation: str) -> Any:
        check_choice("interpolation", interpolation, _INTERPOLATIONS)
        r = _check_rate(rate, value)
        tau = _tau_at_rate(self._lay, self._full_view(), rate, r.reshape(-1), interpolation)[0]
        return _out((self._sign * tau).reshape(r.shape))

    @_doc(_THRESHOLD_SECTIONS, rate="tpr")
    def threshold_at_tpr(self, tpr: Any, *, interpolation: str = "linear") -> Any:
        """Threshold where TPR = ``tpr`` (any shape), interpolating between scores."""
        return self._threshold_at("tpr", tpr, interpolation)

    @_doc(_THRESHOLD_SECTIONS, rate="fnr")
    def threshold_at_fnr(self, fnr: Any, *, interpolation: str = "linear") -> Any:
        """Threshold where FNR = ``fnr`` (see :meth:`threshold_at_tpr`)."""
        return self._threshold_at("fnr", fnr, interpolation)

    @_doc(_THRESHOLD_SECTIONS, rate="tnr")
    def threshold_at_tnr(self, tnr: Any, *, interpolation: str = "linear") -> Any:
        """Threshold where TNR = ``tnr`` (see :meth:`threshold_at_tpr`)."""
        return self._threshold_at("tnr", tnr, interpolation)

    @_doc(_THRESHOLD_SECTIONS, rate="fpr")
    def threshold_at_fpr(self, fpr: Any, *, interpolation: str = "linear") -> Any:
        """Threshold where FPR = ``fpr`` (see :meth:`threshold_at_tpr`).

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> t = s.threshold_at_fpr(0.25)
        >>> t, s.fpr(t)
        (3.5, 0.25)
        """
        return self._threshold_at("fpr", fpr, interpolation)

    def _pooled(self) -> Scores:
        """Every sample as a positive: its TPR is the TOPR, its FNR the TONR."""
        if self._w is None:
            everything = np.r_[self.pos, self.neg]
            return Scores._trusted(everything, everything, self.score_class, self.equal_class)
        y, w = self._y_score, self._w
        obj = Scores.__new__(Scores)
        both = np.r_[np.ones(len(y), dtype=bool), np.zeros(len(y), dtype=bool)]
        obj._init(np.r_[y, y], both, self.score_class, self.equal_class, sample_weight=np.r_[w, w])
        return obj

    @_doc(_THRESHOLD_SECTIONS, rate="topr")
    def threshold_at_topr(self, topr: Any, *, interpolation: str = "linear") -> Any:
        """Threshold where the share of samples decided positive (TOPR, the acceptance
        rate) is ``topr``, interpolating between the pooled scores of both classes.

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> t = s.threshold_at_topr(0.25)
        >>> t, s.topr(t)
        (3.5, 0.25)
        """
        check_choice("interpolation", interpolation, _INTERPOLATIONS)
        _check_rate("topr", topr)
        return self._pooled().threshold_at_tpr(topr, interpolation=interpolation)

    @_doc(_THRESHOLD_SECTIONS, rate="tonr")
    def threshold_at_tonr(self, tonr: Any, *, interpolation: str = "linear") -> Any:
        """Threshold where the share of samples decided negative (TONR, the rejection
        rate) is ``tonr`` (see :meth:`threshold_at_topr`).

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> t = s.threshold_at_tonr(0.5)
        >>> t, s.tonr(t)
        (2.5, 0.5)
        """
        check_choice("interpolation", interpolation, _INTERPOLATIONS)
        _check_rate("tonr", tonr)
        return self._pooled().threshold_at_fnr(tonr, interpolation=interpolation)

    def threshold_at_metric(self, target: Any, metric: Any, *, points: Any = None) -> list:
        """Every threshold where a metric of the threshold equals ``target``.

        The metric is evaluated at ``points`` and joined by straight lines; each crossing
        of the polyline with the target is a solution (no monotonicity assumed).

        Parameters
        ----------
        target : float or array_like of float, shape (T,)
        metric : str or callable
            A rate method's name (``"tpr"``, ``"fpr"``, ``"precision"``, ``"accuracy"``...)
            or ``metric(scores, thresholds) -> values``.
        points : int or array_like, optional
            The thresholds to evaluate: by default every score; an int gives that many
            evenly spaced thresholds between the smallest and the largest score.

        Returns
        -------
        ndarray, or list of ndarray for an array of targets
            The increasing thresholds where the metric's polyline equals the target (one
            array per target); where it never does, the one point whose value is closest.

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> s.threshold_at_metric(0.5, "tpr")
        array([3.])
        >>> s.threshold_at_metric([0.25, 0.75], "tpr")
        [array([3.5]), array([2.])]
        """
        if isinstance(metric, str):
            fn = getattr(self, metric, None)
            if metric.startswith("_") or fn is None or not callable(fn):
                raise ValueError(f"`metric` {metric!r} is not a rate method of Scores.")
            values = fn
        elif callable(metric):

            def values(x: np.ndarray) -> Any:
                return metric(self, x)

        else:
            raise TypeError("`metric` must be a method name of Scores or a callable.")
        t = np.atleast_1d(np.asarray(target, dtype=float))
        if t.ndim != 1 or np.isnan(t).any():
            raise ValueError("`target` must be a number or a 1-d array of numbers.")
        both = np.r_[self.pos, self.neg]
        finite = both[np.isfinite(both)]
        if points is None:
            x = np.sort(finite)
        elif isinstance(points, int | np.integer) and not isinstance(points, bool):
            if points < 2:
                raise ValueError(f"`points` must be at least 2; got {points}.")
            x = np.linspace(finite.min(), finite.max(), int(points))
        else:
            x = np.sort(np.asarray(points, dtype=float).reshape(-1))
        if len(x) < 2 or x[0] == x[-1]:
            raise ValueError("`points`: at least two distinct thresholds are needed.")
        y = np.asarray(values(x), dtype=float)
        out = [invert_polyline(x, y, v) for v in t]
        return out[0] if np.ndim(target) == 0 else out

    def bootstrap_sample(
        self,
        *,
        rng: Any = None,
        stratify: bool = False,
        weights: str = "multinomial",
        sampler: Callable[[np.random.Generator, int], Any] | None = None,
        smoothing: bool | float = False,
        subsample: float | None = None,
    ) -> Scores:
        """One bootstrap resample of the samples, as a new :class:`Scores` object.

        For looking at one replicate (or writing a custom statistic); intervals come
        from :meth:`bootstrap_ci`, whose engine never builds these copies.

        Parameters
        ----------
        rng : None, int, numpy.random.Generator or SeedSequence
        stratify : bool, default False
            Keep the number of positives and of negatives (and so of easy samples) fixed;
            otherwise every sample is drawn from all of them, and a draw without a positive
            or without a negative is drawn again (a Scores object needs both classes).
        weights : {"multinomial", "poisson"}, default "multinomial"
            Draw ``n`` samples with replacement, or give every sample an independent
            Poisson(1) count (score-analysis's "single pass"; the size varies).
        sampler : callable, optional
            A custom scheme, as in :meth:`bootstrap_ci`: ``sampler(rng, 1)`` returns the
            ``(1, n_samples)`` whole-number counts of the samples (in their order).
            Replaces ``stratify`` and ``weights``.
        smoothing : bool or float, default False
            The smoothed bootstrap: add Gaussian noise to every drawn score, with
            Silverman's bandwidth of its class (``True``) or the given bandwidth (a number,
            in score units); infinite scores stay.  See :mod:`mlci.engine.smoothing` for
            what it is good for and its caveats.  Works with every scheme (and
            ``sampler``); not with ``sample_weight``.
        subsample : float in (0, 1), optional
            Draw ``floor(subsample * n)`` samples *without* replacement (per class with
            ``stratify=True``, score-analysis's "proportion"): an m-out-of-n subsample, not
            a bootstrap resample.  Replaces ``weights``.

        Returns
        -------
        Scores
            With the same ``score_class`` and ``equal_class``; easy samples keep their
            infinite scores (their numbers :attr:`n_easy_pos`/:attr:`n_easy_neg` are not
            tracked separately in the sample).

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5])
        >>> b = s.bootstrap_sample(rng=0, stratify=True)
        >>> b.n_pos, b.n_neg, set(b.pos) <= set(s.pos)
        (4, 3, True)
        >>> s.bootstrap_sample(sampler=lambda rng, b: np.ones((b, 7))) == s   # identity
        True
        >>> h = s.bootstrap_sample(rng=0, subsample=0.5, stratify=True)   # 2 of 4, 1 of 3
        >>> h.n_pos, h.n_neg
        (2, 1)
        >>> j = s.bootstrap_sample(rng=0, smoothing=0.1)    # jittered resample
        >>> bool(set(j.pos) & set(s.pos))
        False
        """
        stratify = check_flag("stratify", stratify)
        check_choice("weights", weights, ("multinomial", "poisson"))
        check_sampler(sampler)
        h = check_smoothing(smoothing)
        frac = check_subsample(subsample)
        if h is not False and self._w is not None:
            raise ValueError(
                "`smoothing` of weighted Scores is not supported (the bandwidth rule is for "
                "unweighted samples); drop `smoothing` or `sample_weight`."
            )
        gen = np.random.default_rng(check_rng_seed(rng))
        y, is_pos = self._y_score, self._is_pos
        n = len(y)
        if frac is not None and (sampler is not None or weights != "multinomial"):
            raise ValueError(
                "`subsample` is a scheme of its own (without replacement): drop `sampler` "
                "and `weights`."
            )
        if frac is not None:
            cells = (
                [np.flatnonzero(is_pos), np.flatnonzero(~is_pos)] if stratify else [np.arange(n)]
            )
            fn, _, _ = subsample_counts(cells, frac, n)
            while True:
                idx = np.flatnonzero(fn(gen, 1)[0])
                if is_pos[idx].any() and not is_pos[idx].all():
                    break
        elif sampler is not None:
            if stratify or weights != "multinomial":
                raise ValueError(
                    "`sampler` replaces the resampling design: drop `stratify` and `weights`."
                )
            c = np.asarray(sampler(gen, 1), dtype=float)
            if c.shape != (1, n):
                raise ValueError(
                    f"`sampler(rng, 1)` returned shape {c.shape}; expected (1, n_samples) = "
                    f"(1, {n})."
                )
            if not np.all(np.isfinite(c)) or np.any(c < 0) or np.any(c != np.round(c)):
                raise ValueError(
                    "`sampler(rng, 1)` must return whole, non-negative counts to build a "
                    "resample (fractional weights work in `bootstrap_ci` only)."
                )
            idx = np.repeat(np.arange(n), c[0].astype(np.intp))
            if not is_pos[idx].any() or is_pos[idx].all():
                raise ValueError(
                    "The resample drawn by `sampler` lacks a class; a Scores object needs both."
                )
        else:
            while True:
                if weights == "poisson":
                    cells = (
                        [np.flatnonzero(is_pos), np.flatnonzero(~is_pos)]
                        if stratify
                        else [np.arange(n)]
                    )
                    idx = np.concatenate([np.repeat(c, gen.poisson(1.0, len(c))) for c in cells])
                elif stratify:
                    p_idx, n_idx = np.flatnonzero(is_pos), np.flatnonzero(~is_pos)
                    idx = np.r_[gen.choice(p_idx, len(p_idx)), gen.choice(n_idx, len(n_idx))]
                else:
                    idx = gen.integers(0, n, n)
                if is_pos[idx].any() and not is_pos[idx].all():
                    break
        if h is False:
            return self._resampled(idx)
        return self._resampled(idx, smooth_scores(y[idx], is_pos[idx], self._bandwidths(h), gen))

    def _bandwidths(self, h: bool | float) -> tuple[float, float]:
        """Smoothing bandwidths (positives, negatives): Silverman's per class, or ``h``."""
        if h is True:
            return (silverman_bandwidth(self.pos), silverman_bandwidth(self.neg))
        return (float(h), float(h))

    def _resampled(self, idx: np.ndarray, y: np.ndarray | None = None) -> Scores:
        """The samples at user-order positions ``idx`` (with repeats) as a new object
        (with the scores ``y`` instead of theirs, when given: smoothing)."""
        y, is_pos = (self._y_score[idx] if y is None else y), self._is_pos[idx]
        if self._w is None:
            return type(self)._trusted(y[is_pos], y[~is_pos], self.score_class, self.equal_class)
        obj = type(self).__new__(type(self))
        obj._init(y, is_pos, self.score_class, self.equal_class, sample_weight=self._w[idx])
        return obj

    threshold_at_tar = threshold_at_tpr
    threshold_at_frr = threshold_at_fnr
    threshold_at_trr = threshold_at_tnr
    threshold_at_far = threshold_at_fpr
    threshold_at_acceptance_rate = threshold_at_topr
    threshold_at_rejection_rate = threshold_at_tonr

    def rate_at(self, rate: str, *, at: Any, x: str = "fpr", interpolation: str = "linear") -> Any:
        """An operating point: ``rate`` where ``x`` equals ``at``.

        Parameters
        ----------
        rate, x : {"tpr", "fnr", "tnr", "fpr"} (or "tar", "frr", "trr", "far")
            The rate read off, and the rate that fixes the operating point.
        at : float or array_like of float in [0, 1], any shape X
        interpolation : {"linear", "lower", "higher"}, default "linear"
            ``"linear"``: read along the ROC polyline (below).  ``"lower"``/``"higher"``:
            the rate at the threshold :meth:`threshold_at_fpr` (or ``_tpr``...) gives with
            that interpolation, a score on one side of ``x = at`` (a deterministic
            operating point, whose ``x`` may differ from ``at``).

        Returns
        -------
        float or ndarray of shape X

        Notes
        -----
        The ROC polyline joins the operating points of every threshold by straight lines;
        it depends on the ranks of the scores only, so the rate read from it is the same,
        bit for bit, under any strictly increasing transform of the scores (``exp``,
        ``s**3``, a calibration map).  Where ``x = at`` falls inside a segment of it, the
        rate is interpolated along the segment; where several operating points have
        ``x = at`` exactly (a vertical segment, the other class's rate varying at a
        constant ``x``), the best of them is read: the highest TPR when ``x`` is a rate
        of the negatives (``fpr``, ``tnr``), the highest TNR when it is a rate of the
        positives.  This is R's ``pROC::coords(roc, at, input = "specificity", ret =
        "sensitivity")`` (and ``input = "sensitivity"``), and the curve pROC's
        ``ci.se``/``ci.sp`` bootstrap; tests/r/test_r_proc.py checks it to 1e-12.  The
        threshold of that point, where :func:`mlci.operating_point_ci` reports one, is
        ``threshold_at_<x>``'s (score-analysis's convention): a score, or a linear
        interpolation between the two scores around ``at`` (which maps through a
        transform of the scores up to that interpolation: it stays between the same two
        scores).

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> s.rate_at("tpr", at=0.5, x="fpr")   # the top of the vertical segment
        0.75
        >>> s.rate_at("tpr", at=0.5, x="fpr", interpolation="higher")   # at the score 2.5
        0.5
        """
        spec = _operating_point_spec(self, rate, x, at, interpolation)
        return _out(spec.fn(self._full_view())[0])

    def eer(self) -> EqualErrorRate:
        """Equal error rate: where FNR = FPR on the ROC polyline, and its threshold.

        The ROC points are joined by straight lines (as for the trapezoidal AUC); the EER
        is the crossing with FNR = FPR and the threshold interpolates linearly between the
        scores of the two points around the crossing.

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> s.eer()
        EqualErrorRate(eer=0.5, threshold=2.5)
        """
        e, t = _eer(self._lay, self._full_view())[0]
        return EqualErrorRate(float(e), float(self._sign * t))

    def auc(
        self,
        lower: float = 0.0,
        upper: float = 1.0,
        *,
        x_axis: str = "fpr",
        y_axis: str = "tpr",
    ) -> float:
        """ROC AUC = P(random positive outscores random negative) + P(tie) / 2, or the
        area under any pair of rates between two values of the x rate.

        Parameters
        ----------
        lower, upper : float in [0, 1]
            The range of ``x_axis`` integrated over (a partial AUC on either axis).
        x_axis, y_axis : {"fpr", "tpr", "fnr", "tnr"} (or "far", "tar", "frr", "trr")
            The rates of the two axes: the area under ``y_axis`` as a function of
            ``x_axis`` along the ROC polyline (points joined by straight lines, as the
            trapezoidal AUC), e.g. ``x_axis="fnr", y_axis="fpr"`` for the area under the
            DET curve on linear axes.  ``x_axis`` and ``y_axis`` must not be the same rate
            or complements.

        Returns
        -------
        float

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> s.auc()
        0.625
        >>> s.auc(0.0, 0.5), s.auc(x_axis="fnr", y_axis="fpr")
        (0.1875, 0.375)
        """
        lower, upper = _check_rate("lower", lower), _check_rate("upper", upper)
        x_axis = _RATE_ALIASES.get(x_axis, x_axis)
        y_axis = _RATE_ALIASES.get(y_axis, y_axis)
        check_choice("x_axis", x_axis, _THRESHOLD_RATES)
        check_choice("y_axis", y_axis, _THRESHOLD_RATES)
        if {x_axis, y_axis} in ({"tpr", "fnr"}, {"fpr", "tnr"}) or x_axis == y_axis:
            raise ValueError(
                f"`x_axis`={x_axis!r} and `y_axis`={y_axis!r} are rates of the same class; "
                "pick one rate of positives (tpr, fnr) and one of negatives (fpr, tnr)."
            )
        if float(upper) < float(lower):
            raise ValueError(f"`lower` ({float(lower)}) must not exceed `upper` ({float(upper)}).")
        if (lower, upper, x_axis, y_axis) == (0.0, 1.0, "fpr", "tpr"):
            return float(_resolve(self, "auc", {}).fn(self._full_view())[0])
        lay = self._lay
        fnr = lay.F[1][lay.bq[1]] / lay.n[1]
        tnr = lay.F[0][lay.bq[0]] / lay.n[0]
        rates = {"fnr": fnr, "tpr": 1 - fnr, "tnr": tnr, "fpr": 1 - tnr}
        x, y = rates[x_axis], rates[y_axis]
        if x[0] > x[-1]:  # every rate is monotone along the curve
            x, y = x[::-1], y[::-1]
        return _polyline_area(x, y, float(lower), float(upper))

    # ---------------------------------------------------------------- bootstrap
    def _keys(self) -> tuple[np.ndarray, np.ndarray]:
        """Atom of every internal sample (negatives sorted, then positives sorted)."""
        lay = self._lay
        kn = np.repeat(np.arange(lay.m[0]), lay.nobs[0].astype(np.intp))
        kp = lay.m[0] + np.repeat(np.arange(lay.m[1]), lay.nobs[1].astype(np.intp))
        labels = np.concatenate([np.zeros(len(kn), np.intp), np.ones(len(kp), np.intp)])
        return np.concatenate([kn, kp]), labels

    def _internal_perm(self) -> np.ndarray:
        """User index of every internal sample (oriented sorted negatives, then positives)."""
        idx_n, idx_p = np.flatnonzero(~self._is_pos), np.flatnonzero(self._is_pos)
        on = np.argsort(self._sign * self._y_score[idx_n], kind="stable")
        op = np.argsort(self._sign * self._y_score[idx_p], kind="stable")
        return np.concatenate([idx_n[on], idx_p[op]])

    @reports_progress
    @per_confidence_level
    def bootstrap_ci(
        self,
        metric: str | Callable[..., Any],
        *,
        threshold: Any = None,
        rate: Any = None,
        at: Any = None,
        interpolation: str | None = None,
        metric_kwargs: dict[str, Any] | None = None,
        n_resamples: int = 1000,
        confidence_level: float | list[float] = 0.95,
        method: str = "auto",
        alternative: str = "two-sided",
        rng: Any = None,
        conditions: Any = None,
        strata: Any = None,
        stratify: bool | None = None,
        two_stage: bool = False,
        weights: str = "multinomial",
        algorithm: str = "auto",
        batch: int | None = None,
        n_jobs: int | None = None,
        max_memory: int = DEFAULT_MAX_MEMORY,
        progress: bool = False,
        dropna: bool = False,
        sampler: Callable[[np.random.Generator, int], Any] | None = None,
        smoothing: bool | float = False,
        subsample: float | None = None,
    ) -> BootstrapResult | tuple[BootstrapResult, ...]:
        """Bootstrap confidence interval of any statistic of the scores.

        Parameters
        ----------
        metric : str or callable
            A name: any confusion-matrix metric at ``threshold`` (``"fnr"``, ``"fpr"``,
            ``"ppv"``, ``"mcc"``, ...), ``"threshold_at_fpr"`` (and tpr/tnr/fnr) at
            ``rate``, an operating point ``"fnr_at_fpr"`` (any ``"<rate>_at_<rate>"``) at
            ``at``, ``"eer"``, ``"eer_threshold"``, ``"auc"``; or a function
            ``f(scores, **metric_kwargs)`` of a :class:`Scores` (called per replicate).
        threshold : float or array-like, any shape
            Threshold(s) of a confusion-matrix metric; the result keeps their shape.
        rate : float or array-like in [0, 1], any shape
            Target rate(s) of ``"threshold_at_<rate>"``.
        at : float or array-like in [0, 1], any shape
            Value(s) of the x-rate of an operating point ``"<rate>_at_<x>"``.
        interpolation : {"linear", "lower", "higher"}, default "linear"
            How a threshold at a rate is found between scores (thresholds at rates and
            operating points only).
        metric_kwargs : dict, optional
            Other options: ``beta`` (``fbeta``), or keyword arguments of a callable metric.
        n_resamples, confidence_level, method, alternative, rng
            As in :func:`mlci.bootstrap_ci`; every interval method is available.  Several
            confidence levels return a tuple of results, one per level.
            Intervals are kept inside the statistic's range (rates, EER and AUC in
            [0, 1]; thresholds unbounded).
        conditions : array-like, or list of array-like, optional
            Condition (speaker, session...) of every sample, in the samples' order (see
            :class:`Scores`): samples sharing a condition are resampled together.  A list
            of such arrays, top level first (``[speaker, session]``), is a nested design.
        strata : array-like, optional
            Stratum of every sample: resampling happens within each, keeping its size.
        stratify : bool, optional
            ``True`` is shorthand for ``strata`` = the labels (class sizes fixed, as usual
            in ROC work), combined with ``strata`` when both are given.  Default: True,
            except with nested conditions (which support no strata).
        two_stage : bool, default False
            With conditions: also resample the samples (or lower levels) inside each
            drawn condition.
        weights : {"multinomial", "poisson"}
        algorithm : {"auto", "lazy", "weights"}
            ``"lazy"`` draws only the counts a search needs (exact multinomial bootstrap,
            O(log n) per replicate; no conditions, no strata beyond the class);
            ``"weights"`` draws every sample's count through the core engine.  ``"auto"``
            takes ``"lazy"`` for searches where it applies.
        batch, n_jobs, max_memory
            Engine knobs; they never change the result.
        progress : bool, default False
            Show a progress bar on stderr while the replicates run (after about 2 seconds, on
            a terminal only, never in CI; see :mod:`mlci.feedback`).
        dropna : bool, default False
            Drop the samples with a missing condition or stratum instead of refusing them
            (``details["n_dropped"]`` counts them with those dropped by the constructor).
        sampler : callable, optional
            A custom resampling scheme ``sampler(rng, b)`` returning the ``(b, n_samples)``
            counts (non-negative weights) of every sample in ``b`` replicates, samples in
            their order (``pos`` then ``neg``, or the order of ``from_labels``), as in
            :func:`mlci.bootstrap_ci`.  It replaces ``conditions``, ``strata``,
            ``stratify`` and ``weights``; ``algorithm`` is then ``"weights"``.
        smoothing : bool or float, default False
            The smoothed bootstrap: every replicate's scores get Gaussian noise, with
            Silverman's bandwidth of each class (``True``) or the given bandwidth (score
            units), on top of any scheme (``conditions``, ``strata``, ``sampler``...).  The
            statistic is computed on a rebuilt :class:`Scores` per replicate (slower;
            ``algorithm`` is ``"weights"``).  Caveats in :mod:`mlci.engine.smoothing`: the
            replicates are drawn from a kernel density estimate, slightly wider than the
            data, and statistics at a fixed threshold are biased by it.  Not with
            ``sample_weight``.
        subsample : float in (0, 1), optional
            m-out-of-n subsampling: every replicate draws ``floor(subsample * n_c)`` samples
            without replacement from each cell (class with ``stratify``, and stratum), and
            the replicates are rescaled to the full sample size before the interval is read
            (``estimate + sqrt(m / (n - m)) * (replicate - estimate)``; Politis & Romano
            1994, see :mod:`mlci.engine.smoothing`).  ``method`` is then ``"basic"`` (the
            default), ``"percentile"`` or ``"normal"``; not with ``conditions``,
            ``sampler``, ``weights="poisson"`` or ``two_stage``.

        Returns
        -------
        BootstrapResult
            A tuple of them, one per level, when ``confidence_level`` is a sequence.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> s = Scores(pos=rng.normal(1, 1, 400), neg=rng.normal(0, 1, 600))
        >>> res = s.bootstrap_ci("fnr", threshold=[0.0, 0.5], rng=1)
        >>> res.confidence_interval.low.shape
        (2,)
        >>> res = s.bootstrap_ci("eer", rng=1)
        >>> bool(res.confidence_interval.low < res.estimate < res.confidence_interval.high)
        True

        Samples of one speaker are not independent: resample speakers (and, nested,
        their sessions).

        >>> speaker = rng.integers(0, 30, 1000)
        >>> session = rng.integers(0, 3, 1000)
        >>> res = s.bootstrap_ci("eer", conditions=[speaker, session], rng=1, n_resamples=200)
        >>> res.scheme, res.n_conditions
        ('nested(2 levels; resampled: 1)', 30)

        A custom scheme (here: the ordinary bootstrap of the positives only, negatives
        kept as they are):

        >>> def pos_only(rng, b):
        ...     return np.c_[rng.multinomial(400, np.full(400, 1 / 400), size=b),
        ...                  np.ones((b, 600))]
        >>> s.bootstrap_ci("eer", sampler=pos_only, rng=1, n_resamples=200).scheme
        'custom'

        Half-samples (m-out-of-n, rescaled) and the smoothed bootstrap:

        >>> res = s.bootstrap_ci("eer", subsample=0.5, rng=1, n_resamples=200)
        >>> res.method, res.scheme, res.details["subsample"]["scale"]
        ('basic', 'subsample(m=500 of n=1000)', 1.0)
        >>> s.bootstrap_ci("eer", smoothing=True, rng=1, n_resamples=100).scheme
        'strata+smoothed'
        """
        if not isinstance(metric_kwargs, dict | None):
            raise TypeError(f"`metric_kwargs` must be a dict; got {type(metric_kwargs).__name__}.")
        kw = dict(metric_kwargs or {})
        given = {"threshold": threshold, "rate": rate, "at": at, "interpolation": interpolation}
        given = {k: v for k, v in given.items() if v is not None}
        if callable(metric):
            if given:
                raise TypeError(
                    f"{', '.join(f'`{k}`' for k in given)} are options of the built-in "
                    "metrics; pass options of your own function in `metric_kwargs`."
                )

            make = None
            user = (metric, kw)
        else:
            clash = sorted(set(kw) & set(given))
            if clash:
                raise TypeError(f"{clash} given twice (as arguments and in `metric_kwargs`).")
            kw.update(given)
            _resolve(self, metric, dict(kw))  # validate the metric and its options now

            def make(sc: Scores) -> _Spec:
                return _resolve(sc, metric, dict(kw))

            user = None
        out = self._bootstrap(
            make,
            user=user,
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            method=method,
            alternative=alternative,
            rng=rng,
            conditions=conditions,
            strata=strata,
            stratify=stratify,
            two_stage=two_stage,
            weights=weights,
            algorithm=algorithm,
            batch=batch,
            n_jobs=n_jobs,
            max_memory=max_memory,
            dropna=dropna,
            sampler=sampler,
            smoothing=smoothing,
            subsample=subsample,
        )
        if len(out) != 1:
            raise ValueError(f"Unknown metric {metric!r}.")
        return out[0]

    def _bootstrap(
        self,
        make: Callable[[Scores], _Spec] | None,
        *,
        n_resamples: Any,
        confidence_level: Any,
        method: Any,
        alternative: Any,
        rng: Any,
        conditions: Any,
        strata: Any,
        stratify: Any,
        two_stage: Any,
        weights: Any,
        batch: Any,
        n_jobs: Any,
        max_memory: Any,
        dropna: Any,
        algorithm: Any = "auto",
        user: tuple[Callable[..., Any], dict[str, Any]] | None = None,
        sampler: Any = None,
        smoothing: Any = False,
        subsample: Any = None,
    ) -> list[BootstrapResult]:
        """The one bootstrap driver of score statistics: validate, plan, run, finish.

        ``make(scores)`` binds the statistic to the scores actually resampled (after
        samples with a missing condition or stratum are dropped); or ``user`` is a
        callable metric and its keyword arguments.  Returns one result per part of the statistic.
        """
        h = check_smoothing(smoothing)
        frac = check_subsample(subsample)
        if frac is not None:
            clash = [
                f"`{n}`"
                for n, bad in (
                    ("sampler", sampler is not None),
                    ("conditions", conditions is not None),
                    ("two_stage", two_stage is True),
                    ("weights", weights != "multinomial"),
                    ("algorithm", algorithm == "lazy"),
                )
                if bad
            ]
            if clash:
                raise ValueError(
                    "`subsample` draws samples without replacement itself: drop "
                    f"{', '.join(clash)}."
                )
            if method == "auto":
                method = "basic"
            elif method not in SUBSAMPLE_METHODS:
                raise ValueError(
                    f"`method`={method!r} cannot be read from rescaled subsamples; with "
                    f"`subsample` use one of {', '.join(repr(m) for m in SUBSAMPLE_METHODS)}."
                )
        if h is not False and self._w is not None:
            raise ValueError(
                "`smoothing` of weighted Scores is not supported (the bandwidth rule is for "
                "unweighted samples); drop `smoothing` or `sample_weight`."
            )
        if h is not False and algorithm == "lazy":
            raise ValueError("`smoothing` rebuilds every replicate: drop `algorithm='lazy'`.")
        opts = bootstrap_options(
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            method=method,
            alternative=alternative,
            rng=rng,
            batch=batch,
            n_jobs=n_jobs,
            max_memory=max_memory,
            linearized=False,
        )
        check_choice("algorithm", algorithm, ("auto", "lazy", "weights"))
        check_choice("weights", weights, ("multinomial", "poisson"))
        check_flag("two_stage", two_stage)
        check_flag("dropna", dropna)
        if stratify is not None:
            check_flag("stratify", stratify)
        check_sampler(sampler, conditions=conditions, strata=strata)
        if sampler is not None:
            if stratify or two_stage or weights != "multinomial" or algorithm == "lazy":
                raise ValueError(
                    "`sampler` replaces the resampling design: drop `stratify`, `two_stage`, "
                    "`weights` and `algorithm='lazy'` (a custom scheme draws every count)."
                )
            stratify, algorithm = False, "weights"
        design = design_arrays(
            conditions,
            strata,
            n_samples=len(self._y_score),
            dropna=dropna,
            input_kept=self._kept,
            n_input=self._n_input,
        )
        check_stratify_nested(stratify, design)
        sc = self if design.kept is None else self._subset(design.kept)
        if stratify is None:
            stratify = not design.nested
        perm = sc._internal_perm()
        keys, labels = sc._keys()
        cond = design.conditions
        if cond is not None:
            cond = [c[perm] for c in cond] if design.nested else cond[perm]
        user_strata = None if design.strata is None else design.strata[perm]
        sub = None
        if frac is not None:
            # the cells (class, stratum) in the samples' order; the scheme draws in them
            codes = sc._is_pos.astype(np.intp) if stratify else np.zeros(len(keys), np.intp)
            if design.strata is not None:
                codes = codes + 2 * np.unique(design.strata, return_inverse=True)[1].ravel()
            cells = [np.flatnonzero(codes == c) for c in np.unique(codes)]
            sampler, m_sub, scale = subsample_counts(cells, frac, len(keys))
            sub = {"fraction": frac, "m": m_sub, "n": len(keys), "scale": scale}
            stratify, user_strata, algorithm = False, None, "weights"
        plan = plan_for_conditions(
            len(keys),
            conditions=cond,
            strata=strata_codes(labels if stratify else None, user_strata),
            two_stage=two_stage,
            weights=weights,
            n_resamples=opts.n_resamples,
            rng=opts.seed,
        )
        if make is None:
            assert user is not None
            if sc._w is not None:
                raise ValueError(
                    "A function metric of weighted Scores is not supported (each replicate "
                    "would be a Scores object without weights); use a built-in metric."
                )
            kernel: Kernel = _IndexKernel(sc, keys, *user)
            spec = _Spec(kernel.name, _no_view, kernel.shape, search=False, full=True)
        else:
            spec = make(sc)
            kernel = _ScoresKernel(sc._lay, keys, spec)
        if sc._w is not None:
            if algorithm == "lazy":
                raise ValueError(
                    "`algorithm='lazy'` draws counts of distinct scores; weighted Scores need "
                    "`algorithm='weights'` (or 'auto')."
                )
            # the replicate's counts are multiplied by the weights (atoms: score x weight)
            kernel = with_sample_weight(kernel, sc._w[perm])
            keys = kernel.keys
            algorithm = "weights"
        lazy = cond is None and user_strata is None and not spec.full
        size = int(np.prod(spec.shape)) if spec.shape else 1
        # searches cost O(b * known points) per query in the lazy sampler: keep them few
        lazy_auto = spec.search and (spec.fixed or size <= 16)
        if algorithm == "lazy" and not lazy:
            raise ValueError(
                "`algorithm='lazy'` needs a statistic of the counts and neither `conditions` "
                f"nor `strata`; {spec.name!r} with these options needs `algorithm='weights'`."
            )
        if algorithm == "weights" or (algorithm == "auto" and not lazy_auto):
            lazy = False
        details: dict[str, Any] = {"n_dropped": sc.n_dropped}
        custom: Sampler | None = None
        if h is not False:
            bw = sc._bandwidths(h)
            if make is None:
                fn, fkw = user  # type: ignore[misc]

                def value(r: Scores) -> Any:
                    return fn(r, **fkw)
            else:

                def value(r: Scores) -> Any:
                    sp = make(r)
                    return sp.fn(r._full_view()).reshape(sp.shape)

            kernel = _SmoothedKernel(sc, kernel.keys, value, bw, spec.name)
            lazy = False
            details["smoothing"] = {"bandwidth_pos": bw[0], "bandwidth_neg": bw[1]}
        if sampler is not None:
            user_keys = np.empty(len(keys), dtype=np.intp)
            user_keys[perm] = kernel.keys
            custom = UserSampler(plan.weights_for(kernel.keys, kernel.m), sampler, user_keys)
        if h is not False:
            custom = SmoothedSampler(
                plan.weights_for(kernel.keys, kernel.m) if custom is None else custom
            )
        if sub is not None:
            details["subsample"] = sub
        out = _run(
            sc,
            spec,
            kernel,
            plan,
            opts,
            lazy,
            stratify,
            details,
            threads=user is None and h is False,
            custom=custom,
        )
        if h is not False:
            base = "custom" if sampler is not None and sub is None else plan.scheme
            out = [replace(r, scheme=f"{base}+smoothed") for r in out]
        if sub is not None:
            out = [_rescale_subsample(r, sub, h is not False) for r in out]
        return out


def _no_view(v: _View) -> np.ndarray:  # pragma: no cover - a callable's spec has no view path
    raise NotImplementedError


def _run(
    sc: Scores,
    spec: _Spec,
    kernel: Kernel,
    plan: Any,
    opts: Any,
    lazy: bool,
    stratified: bool,
    details: dict[str, Any],
    *,
    threads: bool,
    custom: Sampler | None = None,
) -> list[BootstrapResult]:
    """Replicates (lazy or through the engine's weights) and one result per part."""
    lay = sc._lay
    eng = opts.engine
    sampler: Sampler
    if lazy:
        sampler = _LazySampler(lay, plan, stratified)

        def evaluate(view: Any) -> np.ndarray:
            return spec.fn(view).reshape((view.b, *spec.shape))

        bytes_per_row = 64.0 * sum(lay.m)
        estimate = spec.fn(sc._full_view()).reshape(spec.shape)
        scheme = plan.scheme + ("+lazy" if "lazy" not in plan.scheme else "")
    else:
        sampler = plan.weights_for(kernel.keys, kernel.m) if custom is None else custom
        evaluate = kernel.evaluate
        bytes_per_row = 8.0 * kernel.m * kernel.work_factor + sampler.draw_bytes
        estimate = kernel.evaluate(sampler.counts[None, :])[0]
        scheme = None if custom is None else "custom"
    if np.any(np.isnan(estimate)):
        raise ValueError(
            f"The statistic {spec.name!r} is undefined (NaN) on the data as given, e.g. "
            "precision at a threshold above every score; no interval can be computed."
        )
    dist = run_replicates(
        evaluate,
        sampler,
        spec.shape,
        bytes_per_row=bytes_per_row,
        batch=eng.batch,
        n_jobs=eng.n_jobs,
        max_memory=eng.max_memory,
        threads=threads,
    )
    memo: list[tuple[np.ndarray, np.ndarray]] = []

    def jackknife() -> tuple[np.ndarray, np.ndarray]:
        if not memo:
            if lazy:
                memo.append(_delete_one(lay, spec))
            else:
                memo.append(
                    jackknife_values(
                        kernel.evaluate,
                        sampler,
                        jackknife_groups(kernel.m),
                        exact=lambda: kernel.delete_one(sampler.counts),  # type: ignore[return-value]
                        bytes_per_row=8.0 * kernel.m * (kernel.work_factor + 1.0),
                        max_memory=eng.max_memory,
                        n_jobs=eng.n_jobs if threads else 1,
                    )
                )
        return memo[0]

    parts = spec.parts or (_Part(spec.name, spec.bounds),)
    results = []
    for i, part in enumerate(parts):
        pick = (lambda a: a) if spec.parts is None else (lambda a, i=i: np.asarray(a)[..., i])

        def jack(pick: Callable[[Any], np.ndarray] = pick) -> tuple[np.ndarray, np.ndarray]:
            vals, mult = jackknife()
            return pick(vals), mult

        results.append(
            finish_bootstrap(
                pick(estimate),
                pick(dist),
                plan=plan,
                name=part.name,
                method=opts.method,
                confidence_level=opts.confidence_level,
                alternative=opts.alternative,
                jackknife=jack if opts.method == "bca" else None,
                details=details
                if opts.method_reason is None
                else {**details, "method_reason": opts.method_reason},
                scheme=scheme,
                bounds=part.bounds,
            )
        )
    return results


# ============================================================================ metric resolution
def _no_extra(name: str, kw: dict[str, Any], allowed: tuple[str, ...]) -> None:
    extra = sorted(set(kw) - set(allowed))
    if extra:
        hint = f" It takes {', '.join(repr(a) for a in allowed)}." if allowed else ""
        listed = ", ".join(f"`{e}`" for e in extra)
        raise TypeError(f"Unknown option(s) {listed} for metric {name!r}.{hint}")


def _operating_point_spec(
    sc: Scores, rate: str, x: str, at: Any, interpolation: str, *, with_threshold: bool = False
) -> _Spec:
    """``rate`` at the threshold where ``x`` equals ``at`` (and that threshold, jointly)."""
    rate = _RATE_ALIASES.get(rate, rate)
    x = _RATE_ALIASES.get(x, x)
    check_choice("rate", rate, _THRESHOLD_RATES)
    check_choice("x", x, _THRESHOLD_RATES)
    check_choice("interpolation", interpolation, _INTERPOLATIONS)
    r = _check_rate("at", at)
    lay, shape, sign = sc._lay, r.shape, sc._sign
    name = f"{rate}_at_{x}"

    def fn(v: _View) -> np.ndarray:
        if interpolation == "linear":  # along the ROC polyline: ranks only (issue 21)
            val = _roc_rate_at(lay, v, rate, x, r.reshape(-1)).reshape((v.b, *shape))
            if not with_threshold:
                return val
            tau = _tau_at_rate(lay, v, x, r.reshape(-1), interpolation)
        else:  # the rate at a real threshold, the score on one side
            tau = _tau_at_rate(lay, v, x, r.reshape(-1), interpolation)
            val = _rate_at_tau_rows(lay, v, rate, tau).reshape((v.b, *shape))
            if not with_threshold:
                return val
        return np.stack([val, (sign * tau).reshape((v.b, *shape))], -1)

    if not with_threshold:
        return _Spec(name, fn, shape, search=True, bounds=_RATE)
    parts = (_Part(name, _RATE), _Part(f"threshold_at_{x}", _UNBOUNDED))
    return _Spec(name, fn, (*shape, 2), search=True, parts=parts)


def _resolve(sc: Scores, metric: Any, kw: dict[str, Any]) -> _Spec:
    """Bind a metric name and its options to a Scores object."""
    if not isinstance(metric, str):
        raise TypeError(f"`metric` must be a metric name or a callable; got {metric!r}.")
    lay, sign = sc._lay, sc._sign
    name = _RATE_ALIASES.get(metric, metric)
    if name in ("eer", "eer_threshold", "eer_and_threshold"):
        _no_extra(name, kw, ())
        col = {"eer": 0, "eer_threshold": 1}.get(name)

        def fn_eer(v: _View) -> np.ndarray:
            out = _eer(lay, v) * np.array([1.0, sign])
            return out if col is None else out[:, col]

        if col is None:  # joint: the EER and its threshold from the same replicates
            parts = (_Part("eer", _RATE), _Part("eer_threshold", _UNBOUNDED))
            return _Spec(name, fn_eer, (2,), search=True, parts=parts)
        return _Spec(name, fn_eer, (), search=True, bounds=_RATE if col == 0 else _UNBOUNDED)
    if name in ("auc", "roc_auc"):
        _no_extra(name, kw, ())
        y = np.concatenate([np.zeros(sc.n_neg), np.ones(sc.n_pos)])
        z = sign * np.concatenate([sc.neg, sc.pos])
        # the AUC depends on the order only: dense ranks keep infinite scores (LLRs) valid
        kern = RocAucKernel(y, np.unique(z, return_inverse=True)[1].astype(float))

        def fn_auc(v: _View) -> np.ndarray:
            return kern.evaluate(np.concatenate(v.w, axis=1))  # type: ignore[attr-defined]

        return _Spec("auc", fn_auc, (), search=False, full=True, bounds=_RATE)
    if name.startswith("threshold_at_"):
        rate = _RATE_ALIASES.get(name[len("threshold_at_") :], name[len("threshold_at_") :])
        if rate not in _THRESHOLD_RATES:
            raise ValueError(f"Unknown metric {metric!r}; thresholds exist at tpr, fnr, tnr, fpr.")
        _no_extra(name, kw, ("rate", "interpolation"))
        if "rate" not in kw:
            raise TypeError(f"{name!r} needs `rate=` (the target {rate}).")
        r = _check_rate("rate", kw["rate"])
        interp = check_choice("interpolation", kw.get("interpolation", "linear"), _INTERPOLATIONS)

        def fn_thr(v: _View) -> np.ndarray:
            tau = _tau_at_rate(lay, v, rate, r.reshape(-1), interp)
            return (sign * tau).reshape((v.b, *r.shape))

        return _Spec(f"threshold_at_{rate}", fn_thr, r.shape, search=True)
    if "_at_" in name:
        y, _, x = name.partition("_at_")
        if _RATE_ALIASES.get(y, y) in _THRESHOLD_RATES and _RATE_ALIASES.get(x, x) in (
            _THRESHOLD_RATES
        ):
            _no_extra(name, kw, ("at", "interpolation"))
            if "at" not in kw:
                raise TypeError(f"{name!r} needs `at=` (the value of {x} at the operating point).")
            return _operating_point_spec(sc, y, x, kw["at"], kw.get("interpolation", "linear"))
    if name in CM_METRICS:
        _no_extra(name, kw, ("threshold", "beta"))
        if "threshold" not in kw:
            raise TypeError(f"{name!r} is a rate at a threshold: pass `threshold=`.")
        t = _check_threshold(kw["threshold"])
        beta = _check_beta(kw.get("beta", 1.0))

        def fn_cm(v: _View) -> np.ndarray:
            cm = _counts_at(lay, v, sign * t.reshape(-1))
            return binary_cm_metric(cm, name, beta).reshape((v.b, *t.shape))

        return _Spec(name, fn_cm, t.shape, search=True, fixed=True, bounds=cm_metric_bounds(name))
    known = [
        "eer",
        "eer_threshold",
        "auc",
        "threshold_at_<tpr|fnr|tnr|fpr>",
        "<rate>_at_<rate>",
        *CM_METRICS,
    ]
    raise ValueError(f"Unknown metric {metric!r}; known metrics: {', '.join(known)}.")


def _check_beta(beta: Any) -> float:
    if isinstance(beta, bool) or not isinstance(beta, int | float | np.integer | np.floating):
        raise TypeError(f"`beta` must be a number >= 0; got {beta!r}.")
    if not (np.isfinite(beta) and beta >= 0):
        raise ValueError(f"`beta` must be a number >= 0; got {beta!r}.")
    return float(beta)


# ============================================================================ lazy driver
class _LazySampler(Sampler):
    """The lazy multinomial sampler: a block is a :class:`_LazyView` of ``b`` replicates
    whose cumulative counts are drawn on demand, from the block's own generator, while the
    statistic searches them (see the module docstring)."""

    dense = False

    def __init__(self, lay: _Layout, plan: Any, stratified: bool) -> None:
        self.lay = lay
        self.seed = plan.seed
        self.n_resamples = plan.n_resamples
        self.poisson = plan.poisson
        self.stratified = stratified
        self.m = lay.m[0] + lay.m[1]
        self.block_size = _LAZY_BLOCK

    def draw(self, rng: np.random.Generator, b: int, out: Any = None) -> _LazyView:
        n_neg, n_pos = int(self.lay.n[0]), int(self.lay.n[1])
        n = n_neg + n_pos
        if self.poisson:
            totals = (rng.poisson(n_neg, b), rng.poisson(n_pos, b))
        elif self.stratified:
            totals = (np.full(b, n_neg), np.full(b, n_pos))
        else:
            tp = rng.binomial(n, n_pos / n, b)
            totals = (n - tp, tp)
        return _LazyView(self.lay, totals, rng)


def _polyline_area(x: np.ndarray, y: np.ndarray, lower: float, upper: float) -> float:
    """Area under the polyline through ``(x, y)`` (``x`` non-decreasing) over [lower, upper]."""
    x0, x1, y0, y1 = x[:-1], x[1:], y[:-1], y[1:]
    a = np.maximum(x0, lower)
    b = np.minimum(x1, upper)
    keep = b > a
    x0, x1, y0, y1, a, b = x0[keep], x1[keep], y0[keep], y1[keep], a[keep], b[keep]
    slope = (y1 - y0) / (x1 - x0)
    ya = y0 + slope * (a - x0)
    yb = y0 + slope * (b - x0)
    return float(np.sum((b - a) * (ya + yb) / 2.0))


def invert_polyline(x: np.ndarray, y: np.ndarray, target: float) -> np.ndarray:
    """Every ``x`` where the polyline through ``(x, y)`` (``x`` increasing) equals ``target``.

    A segment ``j`` holds a solution when ``y[j] <= target < y[j+1]`` or
    ``y[j] >= target > y[j+1]`` (half-open, so that a vertex is counted once), found by
    linear interpolation.  Without any solution, the ``x`` whose value is closest to the
    target is returned (score-analysis's ``invert_pl_function`` convention).

    Examples
    --------
    >>> invert_polyline(np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 0.0]), 0.5)
    array([0.5, 1.5])
    >>> invert_polyline(np.array([0.0, 1.0]), np.array([0.0, 1.0]), 2.0)
    array([1.])
    """
    a, b = y[:-1], y[1:]
    j = np.flatnonzero(((a <= target) & (b > target)) | ((a >= target) & (b < target)))
    if j.size == 0:
        return np.asarray([x[np.argmin(np.abs(y - target))]], dtype=float)
    la = (target - a[j]) / (b[j] - a[j])
    return (1 - la) * x[j] + la * x[j + 1]


def pointwise_cm(
    y_true: Any,
    y_score: Any,
    threshold: Any,
    *,
    pos_label: Any = None,
    score_class: str = "pos",
    equal_class: str = "pos",
) -> np.ndarray:
    """Which cell of the binary confusion matrix each sample falls in, at each threshold.

    Parameters
    ----------
    y_true : array-like, shape (n_samples,)
        Binary labels.
    y_score : array-like of float, shape (n_samples,)
    threshold : float or array_like of float, shape X
    pos_label : optional
        The positive class (the one default rule: 1 or True for 0/1, -1/1, bool labels).
    score_class, equal_class : {"pos", "neg"}
        As in :class:`Scores`.  The output is per sample, so a missing label or score is
        refused (there is no ``dropna``: dropping rows would misalign the output).

    Returns
    -------
    ndarray of bool, shape (n_samples, *X, 2, 2)
        ``out[i, ..., r, c]``: sample ``i`` is of true class ``r`` and decided ``c``, in
        mlci's ``[pos, neg]`` order (``[0, 0]`` true positive, ``[0, 1]`` false negative,
        ``[1, 0]`` false positive, ``[1, 1]`` true negative), as score-analysis's
        ``pointwise_cm``.  Summed over the samples it is ``Scores.cm(threshold).matrix``.

    Examples
    --------
    >>> pointwise_cm([1, 0, 1], [0.9, 0.6, 0.2], 0.5)[:, 0, 0]
    array([ True, False, False])
    """
    check_choice("score_class", score_class, _LABELS)
    check_choice("equal_class", equal_class, _LABELS)
    g = gather(
        {"y_true": ArgSpec("labels", required=True), "y_score": ArgSpec("scores", required=True)},
        {"y_true": y_true, "y_score": y_score},
    )
    pos = binary_target(g["y_true"], pos_label, metric="pointwise_cm")
    thr = _check_threshold(threshold)
    z = g["y_score"].reshape(-1, *([1] * thr.ndim))
    if score_class == "neg":
        z, thr = -z, -thr
    top = z >= thr if equal_class == "pos" else z > thr
    p = pos.reshape(-1, *([1] * thr.ndim))
    out = np.empty((len(pos), *thr.shape, 2, 2), dtype=bool)
    out[..., 0, 0] = p & top
    out[..., 0, 1] = p & ~top
    out[..., 1, 0] = ~p & top
    out[..., 1, 1] = ~p & ~top
    return out


def _rescale_subsample(
    res: BootstrapResult, sub: dict[str, Any], smoothed: bool
) -> BootstrapResult:
    """The replicates of m-out-of-n subsamples rescaled to n, and the interval from them."""
    est = np.asarray(res.estimate, dtype=float)
    dist = est + sub["scale"] * (np.asarray(res.bootstrap_distribution, dtype=float) - est)
    scheme = f"subsample(m={sub['m']} of n={sub['n']})" + ("+smoothed" if smoothed else "")
    with np.errstate(all="ignore"):
        bias = np.nanmean(dist, axis=0) - est
        se = np.nanstd(dist, axis=0, ddof=1)
    scalar = np.ndim(res.estimate) == 0
    out = replace(
        res,
        bootstrap_distribution=dist,
        scheme=scheme,
        bias=float(bias) if scalar else bias,
        standard_error=float(se) if scalar else se,
    )
    return out.interval(method=res.method, confidence_level=res.confidence_level)
