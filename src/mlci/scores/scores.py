"""Binary scores: rates at thresholds, thresholds at rates, EER, and their bootstrap intervals.

A :class:`Scores` object keeps the positive and negative scores sorted once.  Every
metric is computed from *cumulative counts* of the sorted scores: how many negatives
(positives) fall below a threshold.  That makes every statistic a function of a
"view" of the counts, and a bootstrap replicate is just another view:

* ``_WeightsView``: the replicate's counts over the atoms (distinct scores of each class,
  negatives then positives), as drawn by the core engine (:func:`mlci.engine.resampling.make_plan`);
  a rate at a fixed threshold is a gather from the cumulative sum of the weights.
* ``_LazyView``: the same multinomial (or Poisson) bootstrap, sampled lazily.  The
  cumulative count of a class at a position, given the counts already drawn at the
  nearest known positions on each side, is binomial (a multinomial bridge), so a
  search (EER, threshold at a rate) only draws the O(log n) counts it looks at instead
  of n weights per replicate.  The law of every statistic is exactly that of the
  multinomial bootstrap; it is the default when no ``conditions`` are given and the
  statistic is a search.
* ``_DeleteOneView``: the data with one sample removed, for BCa's exact jackknife.

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
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..engine.bootstrap import finish_bootstrap, run_replicates
from ..engine.intervals import INTERVAL_METHODS
from ..engine.resampling import make_plan
from ..engine.sampler import Sampler
from ..inputs.validation import (
    as_1d,
    check_alternative,
    check_choice,
    check_confidence_level,
    check_positive_int,
)
from ..metrics._base import Kernel
from ..results import BootstrapResult
from .confusion import CM_METRICS, ConfusionMatrix, binary_cm_metric

__all__ = ["EqualErrorRate", "Scores"]

_LABELS = ("pos", "neg")
_THRESHOLD_RATES = ("tpr", "fnr", "tnr", "fpr")
_RATE_ALIASES = {"tar": "tpr", "frr": "fnr", "trr": "tnr", "far": "fpr"}
#: replicates per block of the lazy sampler (each block has its own generator)
_LAZY_BLOCK = 256


class EqualErrorRate(NamedTuple):
    """The equal error rate and the threshold where FNR = FPR."""

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
    method : {{"linear", "lower", "higher"}}, default "linear"
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
def _check_scores(name: str, x: Any) -> np.ndarray:
    if isinstance(x, str | bytes):
        raise TypeError(f"`{name}` must hold numbers; got a string.")
    arr = np.asarray(x)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(f"`{name}` must hold numbers; got dtype {arr.dtype}.")
    arr = arr.astype(float).reshape(-1) if arr.ndim <= 1 else arr
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be 1-d; got an array of shape {arr.shape}.")
    if np.isnan(arr).any():
        raise ValueError(
            f"`{name}` contains {int(np.isnan(arr).sum())} NaN score(s); remove them (or give "
            "them a score) before analysing: a NaN can be neither above nor below a threshold."
        )
    return arr


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

    def __init__(self, zneg: np.ndarray, zpos: np.ndarray, side: str) -> None:
        self.side = side  # "left": z >= tau is positive; "right": z > tau
        self.u = [None, None]
        self.cnt = [None, None]
        for cls, z in ((0, zneg), (1, zpos)):
            u, c = np.unique(z, return_counts=True)
            self.u[cls], self.cnt[cls] = u, c.astype(float)
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
class _Spec:
    """A metric bound to its options: ``fn(view) -> (b, *shape)``; ``search`` marks lazy-able."""

    name: str
    fn: Callable[[_View], np.ndarray]
    shape: tuple[int, ...]
    search: bool
    full: bool = False  # needs every atom's weight (no lazy path)
    fixed: bool = False  # only counts at fixed thresholds (cheap in the lazy sampler)


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
            s = Scores(pos, neg, score_class=self.sc.score_class, equal_class=self.sc.equal_class)
            out[r] = np.asarray(self.fn(s, **self.kw), dtype=float)
        return out


# ============================================================================ Scores
class Scores:
    """Scores of a binary classifier on positive and negative samples, sorted once.

    Parameters
    ----------
    pos, neg : array-like of float, shape (n_pos,), (n_neg,)
        Scores of the positive and of the negative samples (both non-empty, no NaN).
    score_class : {"pos", "neg"}, default "pos"
        Whether a high score points to the positive class (similarity) or to the
        negative class (distance).
    equal_class : {"pos", "neg"}, default "pos"
        The class of a score exactly equal to the threshold.

    Attributes
    ----------
    pos, neg : ndarray
        The sorted scores of each class.

    Examples
    --------
    >>> s = Scores.from_labels(labels=[1, 1, 1, 0, 0], scores=[1, 2, 3, 0.5, 1.5], pos_label=1)
    >>> s.pos, s.neg
    (array([1., 2., 3.]), array([0.5, 1.5]))
    >>> s.fpr(threshold=1.2)
    0.5
    >>> s.fpr(threshold=[0.4, 1.2, 2.0])
    array([1. , 0.5, 0. ])
    >>> s.threshold_at_fnr(0.3), s.threshold_at_fnr([0.3, 0.6, 0.9])
    (1.9, array([1.9, 2.8, 3. ]))
    """

    def __init__(self, pos: Any, neg: Any, *, score_class: str = "pos", equal_class: str = "pos"):
        check_choice("score_class", score_class, _LABELS)
        check_choice("equal_class", equal_class, _LABELS)
        p = _check_scores("pos", pos)
        n = _check_scores("neg", neg)
        if len(p) == 0:
            raise ValueError(
                "`pos` is empty: there are no positive scores; both classes are needed."
            )
        if len(n) == 0:
            raise ValueError(
                "`neg` is empty: there are no negative scores; both classes are needed."
            )
        self.score_class = score_class
        self.equal_class = equal_class
        self._sign = 1.0 if score_class == "pos" else -1.0
        order_p, order_n = np.argsort(p, kind="stable"), np.argsort(n, kind="stable")
        self.pos, self.neg = p[order_p], n[order_n]
        self._raw = (n, p)
        # user order of the samples: pos then neg (the constructor's order)
        self._user_index = (len(p) + np.arange(len(n)), np.arange(len(p)))
        self._lay = _Layout(
            self._sign * n, self._sign * p, "left" if equal_class == "pos" else "right"
        )

    @classmethod
    def from_labels(
        cls,
        labels: Any,
        scores: Any,
        *,
        pos_label: Any = 1,
        score_class: str = "pos",
        equal_class: str = "pos",
    ) -> Scores:
        """Scores from per-sample labels; samples whose label is not ``pos_label`` are negative.

        The sample order of ``labels`` is remembered, so ``conditions=`` of
        :meth:`bootstrap_ci` can be given in that order.
        """
        y = as_1d("labels", labels)
        s = _check_scores("scores", scores)
        if len(y) != len(s):
            raise ValueError(
                f"Inconsistent numbers of samples: `labels` has {len(y)}, `scores` has {len(s)}."
            )
        is_pos = np.asarray(y == pos_label)
        if not is_pos.any():
            raise ValueError(
                f"No sample has `pos_label`={pos_label!r} (labels take values "
                f"{np.unique(y).tolist()[:6]}): there are no positives."
            )
        if is_pos.all():
            raise ValueError("Every sample has `pos_label`: there are no negatives.")
        obj = cls(s[is_pos], s[~is_pos], score_class=score_class, equal_class=equal_class)
        obj._user_index = (np.flatnonzero(~is_pos), np.flatnonzero(is_pos))
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

    def swap(self) -> Scores:
        """Exchange the roles of the classes (and hence of every rate)."""
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
        return ConfusionMatrix(matrix=cm.reshape(*t.shape, 2, 2).astype(np.int64), binary=True)

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

    # ---------------------------------------------------------------- rates -> thresholds
    def _threshold_at(self, rate: str, value: Any, method: str) -> Any:
        check_choice("method", method, ("linear", "lower", "higher"))
        r = _check_rate(rate, value)
        tau = _tau_at_rate(self._lay, self._full_view(), rate, r.reshape(-1), method)[0]
        return _out((self._sign * tau).reshape(r.shape))

    @_doc(_THRESHOLD_SECTIONS, rate="tpr")
    def threshold_at_tpr(self, tpr: Any, *, method: str = "linear") -> Any:
        """Threshold where TPR = ``tpr`` (any shape), interpolating between scores."""
        return self._threshold_at("tpr", tpr, method)

    @_doc(_THRESHOLD_SECTIONS, rate="fnr")
    def threshold_at_fnr(self, fnr: Any, *, method: str = "linear") -> Any:
        """Threshold where FNR = ``fnr`` (see :meth:`threshold_at_tpr`)."""
        return self._threshold_at("fnr", fnr, method)

    @_doc(_THRESHOLD_SECTIONS, rate="tnr")
    def threshold_at_tnr(self, tnr: Any, *, method: str = "linear") -> Any:
        """Threshold where TNR = ``tnr`` (see :meth:`threshold_at_tpr`)."""
        return self._threshold_at("tnr", tnr, method)

    @_doc(_THRESHOLD_SECTIONS, rate="fpr")
    def threshold_at_fpr(self, fpr: Any, *, method: str = "linear") -> Any:
        """Threshold where FPR = ``fpr`` (see :meth:`threshold_at_tpr`).

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> t = s.threshold_at_fpr(0.25)
        >>> t, s.fpr(t)
        (3.5, 0.25)
        """
        return self._threshold_at("fpr", fpr, method)

    threshold_at_tar = threshold_at_tpr
    threshold_at_frr = threshold_at_fnr
    threshold_at_trr = threshold_at_tnr
    threshold_at_far = threshold_at_fpr

    def rate_at(self, rate: str, *, at: Any, x: str = "fpr", method: str = "linear") -> Any:
        """An operating point: ``rate`` at the threshold where ``x`` equals ``at``.

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> s.rate_at("fnr", at=0.5, x="fpr")
        0.5
        """
        spec = _operating_point_spec(self, rate, x, at, method)
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

    def auc(self) -> float:
        """ROC AUC = P(random positive outscores random negative) + P(tie) / 2.

        Examples
        --------
        >>> Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5]).auc()
        0.625
        """
        return float(_resolve(self, "auc", {}).fn(self._full_view())[0])

    # ---------------------------------------------------------------- bootstrap
    def _keys(self) -> tuple[np.ndarray, np.ndarray]:
        """Atom of every internal sample (negatives sorted, then positives sorted)."""
        lay = self._lay
        kn = np.repeat(np.arange(lay.m[0]), lay.cnt[0].astype(np.intp))
        kp = lay.m[0] + np.repeat(np.arange(lay.m[1]), lay.cnt[1].astype(np.intp))
        labels = np.concatenate([np.zeros(len(kn), np.intp), np.ones(len(kp), np.intp)])
        return np.concatenate([kn, kp]), labels

    def bootstrap_ci(
        self,
        metric: str | Callable[..., Any],
        *,
        n_resamples: int = 1000,
        confidence_level: float = 0.95,
        method: str = "bca",
        alternative: str = "two-sided",
        rng: Any = None,
        stratify: bool = True,
        conditions: Any = None,
        weights: str = "multinomial",
        algorithm: str = "auto",
        batch: int | None = None,
        n_jobs: int | None = None,
        **metric_kwargs: Any,
    ) -> BootstrapResult:
        """Bootstrap confidence interval of any statistic of the scores.

        Parameters
        ----------
        metric : str or callable
            A name: any confusion-matrix metric at ``threshold=`` (``"fnr"``, ``"fpr"``,
            ``"ppv"``, ``"mcc"``, ...), ``"threshold_at_fpr"`` (and tpr/tnr/fnr) at
            ``rate=``, an operating point ``"fnr_at_fpr"`` (any ``"<rate>_at_<rate>"``) at
            ``at=``, ``"eer"``, ``"eer_threshold"``, ``"auc"``; or a function
            ``f(scores, **metric_kwargs)`` of a :class:`Scores` (called per replicate).
        n_resamples, confidence_level, method, alternative, rng
            As in :func:`mlci.bootstrap_ci`; every interval method is available.
        stratify : bool, default True
            Resample positives and negatives separately (class sizes fixed), as usual in
            ROC work.  False resamples all samples together.
        conditions : array-like, optional
            Condition (speaker, session...) of every sample, in the order of
            :meth:`from_labels`'s input (or ``pos`` then ``neg``): conditions are resampled.
        weights : {"multinomial", "poisson"}
        algorithm : {"auto", "lazy", "weights"}
            ``"lazy"`` draws only the counts a search needs (exact multinomial bootstrap,
            O(log n) per replicate); ``"weights"`` draws every sample's count through the
            core engine.  ``"auto"`` takes ``"lazy"`` for searches without conditions.
        **metric_kwargs
            ``threshold=`` (any shape), ``rate=``, ``at=``, ``method=`` (interpolation for
            thresholds at rates), ``beta=``; the output keeps their shape.

        Returns
        -------
        BootstrapResult

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
        """
        check_choice("method", method, INTERVAL_METHODS)
        confidence_level = check_confidence_level(confidence_level)
        alternative = check_alternative(alternative)
        n_resamples = check_positive_int("n_resamples", n_resamples, minimum=2)
        check_choice("algorithm", algorithm, ("auto", "lazy", "weights"))
        check_choice("weights", weights, ("multinomial", "poisson"))
        plan, keys = self._plan(
            n_resamples=n_resamples,
            rng=rng,
            stratify=stratify,
            conditions=conditions,
            weights=weights,
        )
        if callable(metric):
            kernel: Kernel = _IndexKernel(self, keys, metric, metric_kwargs)
            from ..engine.bootstrap import run_bootstrap

            return run_bootstrap(
                kernel,
                plan,
                method=method,
                confidence_level=confidence_level,
                alternative=alternative,
                batch=batch,
                n_jobs=1,
            )
        spec = _resolve(self, metric, metric_kwargs)
        return self._bootstrap_spec(
            spec,
            plan,
            keys,
            stratify=stratify,
            algorithm=algorithm,
            method=method,
            confidence_level=confidence_level,
            alternative=alternative,
            batch=batch,
            n_jobs=n_jobs,
        )

    def _plan(
        self,
        *,
        n_resamples: int,
        rng: Any,
        stratify: bool = True,
        conditions: Any = None,
        weights: str = "multinomial",
    ) -> tuple[Any, np.ndarray]:
        keys, labels = self._keys()
        cond = None
        if conditions is not None:
            c = as_1d("conditions", conditions)
            if len(c) != len(keys):
                raise ValueError(
                    f"`conditions` must have one entry per sample: {len(keys)} expected, "
                    f"got {len(c)}."
                )
            cond = c[self._internal_perm()]
        plan = make_plan(
            len(keys),
            conditions=cond,
            strata=labels if stratify else None,
            weights=weights,
            n_resamples=n_resamples,
            rng=rng,
        )
        return plan, keys

    def _bootstrap_spec(
        self,
        spec: _Spec,
        plan: Any,
        keys: np.ndarray,
        *,
        stratify: bool,
        algorithm: str,
        method: str,
        confidence_level: float,
        alternative: str,
        batch: int | None = None,
        n_jobs: int | None = None,
    ) -> BootstrapResult:
        lazy = plan.unit_of_sample is None and not spec.full
        size = int(np.prod(spec.shape)) if spec.shape else 1
        # searches cost O(b * known points) per query in the lazy sampler: keep them few
        lazy_auto = spec.search and (spec.fixed or size <= 16)
        if algorithm == "weights" or (algorithm == "auto" and not lazy_auto):
            lazy = False
        if algorithm == "lazy" and not lazy:
            raise ValueError(
                "`algorithm='lazy'` needs a statistic of the counts and no `conditions`; "
                f"{spec.name!r} with these options needs `algorithm='weights'`."
            )
        if not lazy:
            from ..engine.bootstrap import run_bootstrap

            return run_bootstrap(
                _ScoresKernel(self._lay, keys, spec),
                plan,
                method=method,
                confidence_level=confidence_level,
                alternative=alternative,
                batch=batch,
                n_jobs=n_jobs,
                metric_name=spec.name,
            )
        return _lazy_bootstrap(
            self._lay,
            spec,
            plan,
            stratified=stratify,
            method=method,
            confidence_level=confidence_level,
            alternative=alternative,
        )

    def _internal_perm(self) -> np.ndarray:
        """User index of every internal sample (oriented sorted negatives, then positives)."""
        idx_n, idx_p = self._user_index
        n, p = self._raw
        on = np.argsort(self._sign * n, kind="stable")
        op = np.argsort(self._sign * p, kind="stable")
        return np.concatenate([idx_n[on], idx_p[op]])


# ============================================================================ metric resolution
def _no_extra(name: str, kw: dict[str, Any], allowed: tuple[str, ...]) -> None:
    extra = sorted(set(kw) - set(allowed))
    if extra:
        hint = f" It takes {', '.join(repr(a) for a in allowed)}." if allowed else ""
        raise TypeError(f"Unknown option(s) {extra} for metric {name!r}.{hint}")


def _operating_point_spec(sc: Scores, rate: str, x: str, at: Any, method: str) -> _Spec:
    rate = _RATE_ALIASES.get(rate, rate)
    x = _RATE_ALIASES.get(x, x)
    check_choice("rate", rate, _THRESHOLD_RATES)
    check_choice("x", x, _THRESHOLD_RATES)
    check_choice("method", method, ("linear", "lower", "higher"))
    r = _check_rate("at", at)
    lay, shape = sc._lay, r.shape

    def fn(v: _View) -> np.ndarray:
        tau = _tau_at_rate(lay, v, x, r.reshape(-1), method)
        return _rate_at_tau_rows(lay, v, rate, tau).reshape((v.b, *shape))

    return _Spec(f"{rate}_at_{x}", fn, shape, search=True)


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

        return _Spec(name, fn_eer, (2,) if col is None else (), search=True)
    if name in ("auc", "roc_auc"):
        _no_extra(name, kw, ())
        from ..metrics.ranking import RocAucKernel

        y = np.concatenate([np.zeros(sc.n_neg), np.ones(sc.n_pos)])
        z = sign * np.concatenate([sc.neg, sc.pos])
        # the AUC depends on the order only: dense ranks keep infinite scores (LLRs) valid
        kern = RocAucKernel(y, np.unique(z, return_inverse=True)[1].astype(float))

        def fn_auc(v: _View) -> np.ndarray:
            return kern.evaluate(np.concatenate(v.w, axis=1))  # type: ignore[attr-defined]

        return _Spec("auc", fn_auc, (), search=False, full=True)
    if name.startswith("threshold_at_"):
        rate = _RATE_ALIASES.get(name[len("threshold_at_") :], name[len("threshold_at_") :])
        if rate not in _THRESHOLD_RATES:
            raise ValueError(f"Unknown metric {metric!r}; thresholds exist at tpr, fnr, tnr, fpr.")
        _no_extra(name, kw, ("rate", "method"))
        if "rate" not in kw:
            raise TypeError(f"{name!r} needs `rate=` (the target {rate}).")
        r = _check_rate("rate", kw["rate"])
        meth = check_choice("method", kw.get("method", "linear"), ("linear", "lower", "higher"))

        def fn_thr(v: _View) -> np.ndarray:
            tau = _tau_at_rate(lay, v, rate, r.reshape(-1), meth)
            return (sign * tau).reshape((v.b, *r.shape))

        return _Spec(f"threshold_at_{rate}", fn_thr, r.shape, search=True)
    if "_at_" in name:
        y, _, x = name.partition("_at_")
        if _RATE_ALIASES.get(y, y) in _THRESHOLD_RATES and _RATE_ALIASES.get(x, x) in (
            _THRESHOLD_RATES
        ):
            _no_extra(name, kw, ("at", "method"))
            if "at" not in kw:
                raise TypeError(f"{name!r} needs `at=` (the value of {x} at the operating point).")
            return _operating_point_spec(sc, y, x, kw["at"], kw.get("method", "linear"))
    if name in CM_METRICS:
        _no_extra(name, kw, ("threshold", "beta"))
        if "threshold" not in kw:
            raise TypeError(f"{name!r} is a rate at a threshold: pass `threshold=`.")
        t = _check_threshold(kw["threshold"])
        beta = float(kw.get("beta", 1.0))

        def fn_cm(v: _View) -> np.ndarray:
            cm = _counts_at(lay, v, sign * t.reshape(-1))
            return binary_cm_metric(cm, name, beta).reshape((v.b, *t.shape))

        return _Spec(name, fn_cm, t.shape, search=True, fixed=True)
    known = [
        "eer",
        "eer_threshold",
        "auc",
        "threshold_at_<tpr|fnr|tnr|fpr>",
        "<rate>_at_<rate>",
        *CM_METRICS,
    ]
    raise ValueError(f"Unknown metric {metric!r}; known metrics: {', '.join(known)}.")


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


def _lazy_bootstrap(
    lay: _Layout,
    spec: _Spec,
    plan: Any,
    *,
    stratified: bool,
    method: str,
    confidence_level: float,
    alternative: str,
) -> BootstrapResult:
    """Bootstrap a search statistic with the lazy multinomial sampler (see module docstring)."""
    sampler = _LazySampler(lay, plan, stratified)

    def evaluate(view: _LazyView) -> np.ndarray:
        return spec.fn(view).reshape((view.b, *spec.shape))

    dist = run_replicates(evaluate, sampler, spec.shape, bytes_per_row=64.0 * sum(lay.m))
    full = _WeightsView(lay, np.concatenate(lay.cnt)[None, :])
    estimate = spec.fn(full).reshape(spec.shape)
    return finish_bootstrap(
        estimate,
        dist,
        plan=plan,
        name=spec.name,
        method=method,
        confidence_level=confidence_level,
        alternative=alternative,
        jackknife=(lambda: _delete_one(lay, spec)) if method == "bca" else None,
        scheme=plan.scheme + ("+lazy" if "lazy" not in plan.scheme else ""),
    )
