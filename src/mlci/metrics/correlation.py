"""Correlation coefficients on replicate weights: Pearson, Spearman, Kendall's tau-b.

A replicate with counts ``w`` gives exactly scipy's coefficient on the data with every
sample repeated ``w`` times: a repeated sample is a tie with itself, so Spearman uses the
mid-ranks of the repeated data and Kendall's tau-b (Kendall 1945; ``scipy.stats.kendalltau``)
counts the pairs of copies as tied in both variables:

``tau_b = sum_{j,k} w_j w_k sign(x_j - x_k) sign(y_j - y_k) / sqrt((N^2 - sum_g T_g^2)(N^2 -
sum_h U_h^2))``, with ``N = sum w`` and ``T_g``, ``U_h`` the weights of the groups of tied
``x`` and of tied ``y`` values (the ``- N`` terms of the usual pair counts cancel).

:class:`GridCorrelationKernel` is the meta-evaluation form of Deutsch, Dror & Roth (2021,
"A Statistical Analysis of Summarization Evaluation Metrics Using Resampling Methods",
TACL): metric and human scores in ``(n_systems, n_items)`` matrices, one atom per cell,
correlated at the system level (the systems' mean scores), the item level (across systems
within each item, averaged over items; their "summary-level") or globally (all cells).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._base import AdditiveKernel, Kernel, safe_div

__all__ = [
    "COEFFICIENTS",
    "LEVELS",
    "GridCorrelationKernel",
    "KendallKernel",
    "SpearmanKernel",
    "correlation_kernel",
    "weighted_correlation",
]

COEFFICIENTS = ("pearson", "spearman", "kendall_tau")
LEVELS = ("system", "item", "global")
#: columns of the sign matrix built at a time by the Kendall kernel (memory bound)
_BLOCK = 512
#: up to this many atoms the Kendall kernel keeps its (m, m) sign matrix (72 MB at most)
_CACHE_ATOMS = 3000
_STEP = 1e-7


def _pearson_last(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted Pearson correlation along the last axis (NaN when a variance is zero)."""
    tot = w.sum(axis=-1, keepdims=True)
    mx = safe_div((w * x).sum(axis=-1, keepdims=True), tot)
    my = safe_div((w * y).sum(axis=-1, keepdims=True), tot)
    dx, dy = x - mx, y - my
    sxy = (w * dx * dy).sum(axis=-1)
    sxx = (w * dx * dx).sum(axis=-1)
    syy = (w * dy * dy).sum(axis=-1)
    # a variance at rounding level (constant values) leaves the coefficient undefined
    scale = np.maximum(np.abs(mx[..., 0]), np.abs(my[..., 0])) ** 2 * tot[..., 0] + 1e-300
    ok = (sxx > 1e-24 * scale) & (syy > 1e-24 * scale) & (sxx > 0) & (syy > 0)
    r = safe_div(sxy, np.sqrt(np.where(ok, sxx * syy, 0.0)))
    return np.clip(r, -1.0, 1.0)


def _midranks_last(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted mid-ranks along the last axis: ``sum_k w_k ([x_k < x_j] + [x_k = x_j] / 2)``."""
    below = (x[..., None, :] < x[..., :, None]).astype(float)
    same = (x[..., None, :] == x[..., :, None]).astype(float)
    return ((below + 0.5 * same) * w[..., None, :]).sum(axis=-1)


def _kendall_last(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    sx = np.sign(x[..., :, None] - x[..., None, :])
    sy = np.sign(y[..., :, None] - y[..., None, :])
    ww = w[..., :, None] * w[..., None, :]
    num = (ww * sx * sy).sum(axis=(-2, -1))
    tot = w.sum(axis=-1) ** 2
    tx = (ww * (sx == 0)).sum(axis=(-2, -1))
    ty = (ww * (sy == 0)).sum(axis=(-2, -1))
    return np.clip(safe_div(num, np.sqrt(np.maximum((tot - tx) * (tot - ty), 0.0))), -1.0, 1.0)


def weighted_correlation(
    coefficient: str, x: np.ndarray, y: np.ndarray, w: np.ndarray
) -> np.ndarray:
    """A coefficient along the last axis of ``x``, ``y`` with weights ``w`` (broadcast):
    scipy's value on the data with every entry repeated its weight's number of times.

    Examples
    --------
    >>> x, y = np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0])
    >>> float(weighted_correlation("kendall_tau", x, y, np.ones(3)))  # scipy: 1/3
    0.3333333333333333
    """
    x, y, w = np.broadcast_arrays(x, y, w)
    if coefficient == "pearson":
        return _pearson_last(x, y, w)
    if coefficient == "spearman":
        return _pearson_last(_midranks_last(x, w), _midranks_last(y, w), w)
    return _kendall_last(x, y, w)


def _tie_groups(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(order, starts, group of every sample)`` of the sorted values' tie groups."""
    order = np.argsort(v, kind="stable")
    sv = v[order]
    new = np.r_[True, sv[1:] != sv[:-1]]
    starts = np.flatnonzero(new)
    group_sorted = np.cumsum(new) - 1
    group = np.empty(len(v), dtype=np.intp)
    group[order] = group_sorted
    return order, starts, group


def _indicator(group: np.ndarray) -> Any:
    """Sparse (n, n_groups) indicator of every sample's group."""
    from scipy import sparse

    n = len(group)
    return sparse.csr_matrix((np.ones(n), (np.arange(n), group)), shape=(n, int(group.max()) + 1))


def _pearson_g(s: np.ndarray) -> np.ndarray:
    sx, sy, sxx, syy, sxy, sw = (s[:, j] for j in range(6))
    cxy = sxy - safe_div(sx * sy, sw)
    cxx = sxx - safe_div(sx * sx, sw)
    cyy = syy - safe_div(sy * sy, sw)
    ok = (cxx > 1e-13 * np.abs(sxx)) & (cyy > 1e-13 * np.abs(syy))
    return np.clip(safe_div(cxy, np.sqrt(np.where(ok, cxx * cyy, 0.0))), -1.0, 1.0)


class SpearmanKernel(Kernel):
    """Spearman's rho of two per-sample arrays (one atom per sample).

    The derivative goes through the ranks exactly (``g``'s six partial derivatives are
    central differences): with ``rho = g(S)`` of the weighted sums ``S`` of ``(R, Q,
    R^2, Q^2, RQ, 1)`` and mid-ranks ``R_j = sum_k w_k ([x_k < x_j] + [x_k = x_j]/2) + 1/2``,
    ``d rho / d w_k = grad g . phi_k + sum_j w_j a_j dR_j/dw_k + (same for Q)``, where
    ``a_j = dg/dS_R + 2 R_j dg/dS_RR + Q_j dg/dS_RQ``; the sum over ``j`` is a sum over the
    tie groups above ``k``'s plus half of its own (suffix sums: O(n) per replicate).
    """

    work_factor = 14.0

    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        self.x, self.y = x, y
        self.keys = np.arange(len(x), dtype=np.intp)
        self.m = len(x)
        self.name = "spearman"
        self.bounds = (-1.0, 1.0)
        self._gx = _tie_groups(x)
        self._gy = _tie_groups(y)

    @staticmethod
    def _ranks(w: np.ndarray, groups: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
        order, starts, group = groups
        gsum = np.add.reduceat(w[:, order], starts, axis=1)
        before = np.cumsum(gsum, axis=1) - gsum
        return (before + 0.5 * gsum + 0.5)[:, group]

    def _sums(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r = self._ranks(w, self._gx)
        q = self._ranks(w, self._gy)
        s = np.stack(
            [
                (w * r).sum(1),
                (w * q).sum(1),
                (w * r * r).sum(1),
                (w * q * q).sum(1),
                (w * r * q).sum(1),
                w.sum(1),
            ],
            axis=1,
        )
        return s, r, q

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        s, _, _ = self._sums(w)
        return _pearson_g(s)

    @staticmethod
    def _above(wa: np.ndarray, groups: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
        """``sum_j wa_j ([x_j > x_k] + [x_j = x_k] / 2)`` for every sample ``k``."""
        order, starts, group = groups
        gsum = np.add.reduceat(wa[:, order], starts, axis=1)
        after = gsum.sum(axis=1, keepdims=True) - np.cumsum(gsum, axis=1)
        return (after + 0.5 * gsum)[:, group]

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        s, r, q = self._sums(w)
        b = s.shape[0]
        scale = np.abs(s) + 1.0
        dg = np.empty((b, 6))
        for j in range(6):
            h = _STEP * scale[:, j]
            up, down = s.copy(), s.copy()
            up[:, j] += h
            down[:, j] -= h
            dg[:, j] = (_pearson_g(up) - _pearson_g(down)) / (2 * h)
        g = dg[:, :, None]
        direct = (
            g[:, 0] * r
            + g[:, 1] * q
            + g[:, 2] * r * r
            + g[:, 3] * q * q
            + g[:, 4] * r * q
            + g[:, 5]
        )
        a = g[:, 0] + 2 * r * g[:, 2] + q * g[:, 4]
        c = g[:, 1] + 2 * q * g[:, 3] + r * g[:, 4]
        return direct + self._above(w * a, self._gx) + self._above(w * c, self._gy)


class KendallKernel(Kernel):
    """Kendall's tau-b of two per-sample arrays (one atom per sample; O(n^2) per replicate,
    in blocks of :data:`_BLOCK` columns).  The derivative is exact: ``tau = A / sqrt(Bx By)``
    with ``A = w'Mw`` (``M = sign dx sign dy``) and ``Bx = N^2 - sum_g T_g^2``, so
    ``d tau / d w_k = 2 (Mw)_k / sqrt(Bx By) - tau (N - T_g(k)) (1/Bx) - tau (N - U_h(k)) / By``.
    """

    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        self.x, self.y = x, y
        self.keys = np.arange(len(x), dtype=np.intp)
        self.m = len(x)
        self.name = "kendall_tau"
        self.bounds = (-1.0, 1.0)
        self.work_factor = 6.0 + min(len(x), _BLOCK) / 8.0
        self._gx = _tie_groups(x)[2]
        self._gy = _tie_groups(y)[2]
        self._m_matrix: np.ndarray | None = None
        # group indicator matrices: the tie groups' weights of every replicate by one product
        self._hx = _indicator(self._gx)
        self._hy = _indicator(self._gy)

    def _mw(self, w: np.ndarray) -> np.ndarray:
        if self.m <= _CACHE_ATOMS:
            if self._m_matrix is None:
                self._m_matrix = np.sign(self.x[:, None] - self.x[None, :]) * np.sign(
                    self.y[:, None] - self.y[None, :]
                )
            return w @ self._m_matrix
        out = np.empty_like(w)
        for lo in range(0, self.m, _BLOCK):
            hi = min(lo + _BLOCK, self.m)
            sgn = np.sign(self.x[lo:hi, None] - self.x[None, :]) * np.sign(
                self.y[lo:hi, None] - self.y[None, :]
            )
            out[:, lo:hi] = w @ sgn.T
        return out

    def _parts(self, w: np.ndarray) -> tuple[np.ndarray, ...]:
        mw = self._mw(w)
        num = (mw * w).sum(axis=1)
        tot = w.sum(axis=1)
        tg = np.asarray(self._hx.T @ w.T).T
        ug = np.asarray(self._hy.T @ w.T).T
        bx = tot**2 - (tg**2).sum(axis=1)
        by = tot**2 - (ug**2).sum(axis=1)
        return mw, num, tot, tg, ug, bx, by

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        _, num, _, _, _, bx, by = self._parts(w)
        return np.clip(safe_div(num, np.sqrt(np.maximum(bx * by, 0.0))), -1.0, 1.0)

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        mw, num, tot, tg, ug, bx, by = self._parts(w)
        root = np.sqrt(np.maximum(bx * by, 0.0))
        tau = safe_div(num, root)[:, None]
        dbx = 2.0 * (tot[:, None] - tg[:, self._gx])
        dby = 2.0 * (tot[:, None] - ug[:, self._gy])
        return (
            safe_div(2.0 * mw, root[:, None])
            - 0.5 * tau * safe_div(dbx, bx[:, None])
            - 0.5 * tau * safe_div(dby, by[:, None])
        )


def _check_variation(name: str, x: np.ndarray, label: str) -> None:
    if len(x) < 2:
        raise ValueError(f"{name!r} needs at least 2 samples; got {len(x)}.")
    if np.all(x == x[0]):
        raise ValueError(
            f"{name!r} is undefined: `{label}` is constant (every value {x[0]:.6g}); a "
            "correlation needs variation in both arrays."
        )


def correlation_kernel(coefficient: str, x: Any, y: Any) -> Kernel:
    """Kernel of ``pearson``, ``spearman`` or ``kendall_tau`` between two per-sample arrays
    (e.g. a metric's scores and human scores), equal to scipy's on the data."""
    x = np.asarray(x, dtype=float).reshape(-1)
    y = np.asarray(y, dtype=float).reshape(-1)
    _check_variation(coefficient, x, "x")
    _check_variation(coefficient, y, "y")
    if coefficient == "pearson":
        cx, cy = x - x.mean(), y - y.mean()  # centring keeps the sums well conditioned
        phi = np.column_stack([cx, cy, cx * cx, cy * cy, cx * cy, np.ones_like(cx)])
        kernel: Kernel = AdditiveKernel(phi, _pearson_g, (), "pearson")
        kernel.bounds = (-1.0, 1.0)
        return kernel
    if coefficient == "spearman":
        return SpearmanKernel(x, y)
    return KendallKernel(x, y)


class GridCorrelationKernel(Kernel):
    """A correlation between two ``(n_systems, n_items)`` score matrices at one level.

    One atom per cell (row-major: system, then item).  A replicate's cell weights are the
    product of the drawn systems' and items' counts (BOOT-SYSTEMS, BOOT-INPUTS, BOOT-BOTH of
    Deutsch et al. 2021): the kernel reads a system's weight as its cells' mean weight and
    an item's likewise, which recovers the counts of each scheme exactly.

    * ``"system"``: every system's mean score over items (weighted by the items' counts),
      correlated across systems (weighted by the systems' counts).
    * ``"item"``: within every item, the correlation across systems; the mean over items
      (weighted by their counts) of those that are defined (scipy gives NaN for a
      constant item; Deutsch et al.'s ``input_level`` skips them too).
    * ``"global"``: all cells.
    """

    def __init__(self, x: np.ndarray, y: np.ndarray, level: str, coefficient: str) -> None:
        self.x, self.y = x, y
        self.ns, self.ni = x.shape
        self.level = level
        self.coefficient = coefficient
        self.m = self.ns * self.ni
        self.keys = np.arange(self.m, dtype=np.intp)
        self.name = f"{coefficient} ({level} level)"
        self.bounds = (-1.0, 1.0)
        inner = {"system": self.ns, "item": self.ns * self.ni, "global": self.m}[level]
        self.work_factor = 8.0 + (inner if coefficient != "pearson" else 0) * 2.0
        self._flat = None
        if level == "global":
            self._flat = correlation_kernel(coefficient, x.reshape(-1), y.reshape(-1))
            self.keys, self.m = self._flat.keys, self._flat.m

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        if self._flat is not None:
            return self._flat.evaluate(w)
        b = w.shape[0]
        cells = w.reshape(b, self.ns, self.ni)
        if self.level == "system":
            sw = cells.sum(axis=2)
            xs = safe_div((cells * self.x).sum(axis=2), sw)
            ys = safe_div((cells * self.y).sum(axis=2), sw)
            keep = sw > 0
            xs, ys = np.where(keep, xs, 0.0), np.where(keep, ys, 0.0)
            return weighted_correlation(self.coefficient, xs, ys, sw / self.ni)
        # item level: correlate across systems inside every item
        per = np.swapaxes(cells, 1, 2)  # (b, items, systems)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = weighted_correlation(self.coefficient, self.x.T[None], self.y.T[None], per)
        iw = per.sum(axis=2) / self.ns
        ok = np.isfinite(r) & (iw > 0)
        return safe_div(np.where(ok, r * iw, 0.0).sum(axis=1), np.where(ok, iw, 0.0).sum(axis=1))

    def gradient(self, w: np.ndarray, values: np.ndarray) -> np.ndarray | None:
        if self._flat is not None:
            return self._flat.gradient(w, values)
        return super().gradient(w, values)
