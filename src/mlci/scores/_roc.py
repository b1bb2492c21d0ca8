"""Thresholds and rates along the ROC: rates at thresholds, thresholds at rates, EER.

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
(:func:`mlci.engine.bootstrap.finish_bootstrap`), in
:func:`mlci.scores._driver.bootstrap_scores`, the driver behind every interval of
:mod:`mlci.scores` (curves and verification metrics included).

The conventions (``score_class``, ``equal_class``) are those of :mod:`mlci.scores.scores`.
Internally scores are *oriented* (``z = score`` or ``-score``) so that the rule is always
``z >= tau`` (or ``z > tau``); thresholds are mapped back on output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from ..inputs import check_choice

_LABELS = ("pos", "neg")
_THRESHOLD_RATES = ("tpr", "fnr", "tnr", "fpr")
_INTERPOLATIONS = ("linear", "lower", "higher")
_RATE = (0.0, 1.0)
_UNBOUNDED = (-np.inf, np.inf)
_RATE_ALIASES = {"tar": "tpr", "frr": "fnr", "trr": "tnr", "far": "fpr"}
#: replicates per block of the lazy sampler (each block has its own generator)
_LAZY_BLOCK = 256


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
        self.u: list[Any] = [None, None]
        self.cnt: list[Any] = [None, None]  # per atom: number of samples, or their summed weights
        self.nobs: list[Any] = [None, None]  # per atom: number of samples
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
        side: Literal["left", "right"] = "left" if self.side == "left" else "right"
        return np.searchsorted(self.u[cls], tau, side=side)


# ============================================================================ views
class _View:
    """Cumulative counts of one batch of ``b`` data sets (original, replicates, jackknife)."""

    b: int
    m: list[int]

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
        # one searchsorted over all rows: offset row r by r * (max total + 1); ``j`` of
        # shape (b,) or (b, k): every grid point of every row in the same one call
        cum = self.cum[cls][:, 1:]
        step = float(cum[:, -1].max()) + 1.0
        off = np.arange(self.b)[:, None] * step
        flat = (cum + off).ravel()
        j = np.asarray(j, dtype=float)
        shift = off if j.ndim == 2 else off[:, 0]
        idx = np.searchsorted(flat, j + shift, side="right")
        first = np.arange(self.b) * cum.shape[1]
        return np.minimum(idx - (first[:, None] if j.ndim == 2 else first), cum.shape[1] - 1)


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
        rep = self._rep[cls]
        if rep is None:
            rep = np.repeat(np.arange(self.m[cls]), self.lay.cnt[cls].astype(np.intp))
            self._rep[cls] = rep
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
def _counts_at(
    lay: _Layout,
    v: _View,
    tau: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Confusion matrices (b, k, 2, 2) at oriented thresholds ``tau`` (k,); ``bounds``:
    the two classes' atom boundaries at ``tau`` (:meth:`_Layout.boundary`), when the
    caller knows them (the operating points: ``lay.bq``)."""
    q0, q1 = bounds if bounds is not None else (lay.boundary(0, tau), lay.boundary(1, tau))
    tn = v.cum_fixed(0, q0)
    fn = v.cum_fixed(1, q1)
    n_neg, n_pos = v.total(0)[:, None], v.total(1)[:, None]
    cm = np.empty((v.b, len(q0), 2, 2))
    cm[..., 0, 0] = n_pos - fn
    cm[..., 0, 1] = fn
    cm[..., 1, 0] = n_neg - tn
    cm[..., 1, 1] = tn
    return cm


def _every_point_counts(lay: _Layout, v: _View) -> np.ndarray | None:
    """Confusion matrices (k, 2, 2) of the full view ``v`` at every operating point, by
    decreasing threshold (a curve's order), from the layout's atom boundaries ``lay.bq``
    instead of a search of every threshold: the same matrices where the scores are
    finite (past an infinite score the search finds another boundary): None there."""
    if not np.all(np.isfinite(lay.grid[[0, -1]])):
        return None
    return _counts_at(lay, v, lay.theta[::-1], (lay.bq[0][::-1], lay.bq[1][::-1]))[0]


def _value_at(lay: _Layout, v: _View, cls: int, j: np.ndarray) -> np.ndarray:
    """Oriented score of element ``j`` (b, k) of each row's sorted sample of class ``cls``."""
    if isinstance(v, _WeightsView):  # every column in one search (issue 25: roc_band)
        return lay.u[cls][v.atom_at(cls, j)]
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


def _first_cut(v: _View, pred: Callable[..., np.ndarray], lo: int, hi: int) -> np.ndarray:
    """Per row, the first operating point ``g`` in (lo, hi] where the monotone ``pred``
    holds (``pred(lo)`` false and ``pred(hi)`` true by assumption; neither is called).
    ``pred(g)`` takes one argument (``...``: the callers' lambdas bind loop values as
    defaults, which mypy cannot infer against a one-argument Callable)."""
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


def _cuts(
    lay: _Layout, v: _View, cls: int, target: np.ndarray, strict: bool, hi: int
) -> np.ndarray:
    """Per row and target, the first operating point ``g`` in [0, hi] where the class's
    cumulative count reaches ``target`` (b, k): ``cum >= target``, or ``cum > target``
    when ``strict``; ``hi`` where no point before it does.

    With every atom's count at hand (:class:`_WeightsView`) the cumulative counts of a
    row are sorted: one ``searchsorted`` per row finds, for every target at once, the
    first atom boundary ``q`` that reaches it, and the first operating point whose
    boundary ``bq[g]`` is at or past ``q`` is the answer (``cum(bq[g])`` is monotone in
    ``g``).  The same comparisons as the bisection of :func:`_first_cut`, so the same
    points; other views (lazy counts, jackknife rows) are bisected, target by target.
    """
    fast = getattr(v, "cuts", None)  # a view with its own search (over conditions)
    if fast is not None:
        return fast(cls, target, strict, hi)
    if isinstance(v, _WeightsView):
        side: Literal["left", "right"] = "right" if strict else "left"
        cum = v.cum[cls]
        q = np.empty(target.shape, dtype=np.intp)
        for row in range(v.b):  # exact: no offsets added to the counts
            q[row] = np.searchsorted(cum[row], target[row], side=side)
        return np.minimum(np.searchsorted(lay.bq[cls], q, side="left"), hi)
    out = np.empty(target.shape, dtype=np.intp)
    for col in range(target.shape[1]):
        t = target[:, col]
        if strict:
            out[:, col] = _first_cut(v, lambda g, t=t: v.cum_rows(cls, lay.bq[cls][g]) > t, -1, hi)
        else:
            out[:, col] = _first_cut(v, lambda g, t=t: v.cum_rows(cls, lay.bq[cls][g]) >= t, -1, hi)
    return out


def _cum_at(lay: _Layout, v: _View, cls: int, g: np.ndarray) -> np.ndarray:
    """Cumulative count of ``cls`` at operating points ``g`` (b, k), row by row."""
    fast = getattr(v, "cum_at", None)
    if fast is not None:
        return fast(cls, g)
    q = lay.bq[cls][g]
    if isinstance(v, _WeightsView):
        return v.cum[cls][np.arange(v.b)[:, None], q]
    out = np.empty(g.shape)
    for col in range(g.shape[1]):
        out[:, col] = v.cum_rows(cls, q[:, col])
    return out


def _roc_rate_at(lay: _Layout, v: _View, rate: str, x: str, r: np.ndarray) -> np.ndarray:
    """``rate`` where ``x`` equals ``r`` (k,) along the ROC polyline, per row -> (b, k).

    The operating points (one per cut of the merged score grid) joined by straight lines
    are the ROC polyline, which depends on the ranks of the scores only.  Where ``x = r``
    falls inside a segment, both rates are interpolated linearly along it (pROC's
    ``coords(input = ...)``).  Where a whole run of points has ``x = r`` exactly (a
    vertical segment of the ROC: the other class's rate varies at a constant ``x``), the
    best of them is read, as pROC: the one with the highest TPR when ``x`` is a rate of
    the negatives (fpr, tnr), the highest TNR when ``x`` is a rate of the positives.
    Every grid point of every row at once (:func:`_cuts`; issue 25: ``roc_band``).
    """
    c = 1 if x in ("tpr", "fnr") else 0
    o = 1 - c
    below = np.asarray(r, dtype=float)  # the target as a rate below the cut (fnr / tnr)
    if x in ("tpr", "fpr"):
        below = 1.0 - below
    n_c, n_o = v.total(c)[:, None], v.total(o)[:, None]
    eps = 1e-9 * np.maximum(n_c, 1.0)
    k = below[None, :] * n_c
    near = np.round(k)  # float noise (0.9 * 40 = 36.00000001) must hit k/n exactly
    k = np.where(np.abs(k - near) < eps, near, k)
    # (each count read once: the one that decides ``exact`` is also an end's)
    if c == 0:  # fpr/tnr: the lowest cut reaching the target (highest TPR)
        g = _cuts(lay, v, c, k - eps, False, lay.G)
        c_hi = _cum_at(lay, v, c, g)
        exact = c_hi <= k + eps
        g_lo = np.where(exact, g, np.maximum(g - 1, 0))
        g_hi = g
        c_lo = _cum_at(lay, v, c, g_lo)
    else:  # tpr/fnr: the highest cut not passing the target (highest TNR)
        g = _cuts(lay, v, c, k + eps, True, lay.G + 1)
        g_lo = np.maximum(g - 1, 0)
        c_lo = _cum_at(lay, v, c, g_lo)
        exact = c_lo >= k - eps
        g_hi = np.where(exact, g_lo, np.minimum(g, lay.G))
        c_hi = _cum_at(lay, v, c, g_hi)
    o_lo, o_hi = _cum_at(lay, v, o, g_lo), _cum_at(lay, v, o, g_hi)
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = np.where(c_hi > c_lo, (k - c_lo) / np.where(c_hi > c_lo, c_hi - c_lo, 1.0), 0.0)
        f_c = np.where(exact, c_lo, k)
        f_o = np.where(exact, o_lo, o_lo + lam * (o_hi - o_lo))
        f = f_o / n_o if (rate in ("tpr", "fnr")) == (o == 1) else f_c / n_c
    val = f if rate in ("fnr", "tnr") else 1.0 - f
    return np.where((n_c > 0) & (n_o > 0), val, np.nan)


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


def check_area(lower: Any, upper: Any, x_axis: str, y_axis: str) -> tuple[float, float, str, str]:
    """The range and the two rates of an area under the ROC polyline (:meth:`Scores.auc`)."""
    lower, upper = float(_check_rate("lower", lower)), float(_check_rate("upper", upper))
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
    return lower, upper, x_axis, y_axis


def roc_area(lay: _Layout, lower: float, upper: float, x_axis: str, y_axis: str) -> float:
    """Area under ``y_axis`` as a function of ``x_axis`` along the ROC polyline, between
    ``lower`` and ``upper`` (checked by :func:`check_area`)."""
    fnr = lay.F[1][lay.bq[1]] / lay.n[1]
    tnr = lay.F[0][lay.bq[0]] / lay.n[0]
    rates = {"fnr": fnr, "tpr": 1 - fnr, "tnr": tnr, "fpr": 1 - tnr}
    x, y = rates[x_axis], rates[y_axis]
    if x[0] > x[-1]:  # every rate is monotone along the curve
        x, y = x[::-1], y[::-1]
    return _polyline_area(x, y, float(lower), float(upper))


def metric_crossings(
    both: np.ndarray, values: Callable[[np.ndarray], Any], target: Any, points: Any
) -> np.ndarray | list[np.ndarray]:
    """Every threshold where the polyline of ``values`` (a metric of the threshold, at
    ``points`` or at every score of ``both``) equals ``target``
    (:meth:`Scores.threshold_at_metric`)."""
    t = np.atleast_1d(np.asarray(target, dtype=float))
    if t.ndim != 1 or np.isnan(t).any():
        raise ValueError("`target` must be a number or a 1-d array of numbers.")
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


def _point_rates_rows(lay: _Layout, v: _View) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """TNR and FNR (b, G) at every operating point of every row, and the rows (b,) that
    hold both classes (elsewhere the rates are 0 and the caller returns NaN)."""
    n_neg, n_pos = v.total(0)[:, None], v.total(1)[:, None]
    tnr = v.cum_fixed(0, lay.bq[0]) / np.where(n_neg > 0, n_neg, 1)
    fnr = v.cum_fixed(1, lay.bq[1]) / np.where(n_pos > 0, n_pos, 1)
    return tnr, fnr, (n_neg[:, 0] > 0) & (n_pos[:, 0] > 0)
