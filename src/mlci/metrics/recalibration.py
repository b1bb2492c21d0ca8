"""Logistic recalibration refitted on many replicates from per-unit moments.

The calibration slope and intercept (:class:`~mlci.metrics.calibration.RecalibrationKernel`)
are the roots of the logistic score equations ``S(beta) = sum_i w_i x_i (y_i -
mu_i(beta)) = 0`` with ``x_i = (1, z_i)``, ``z_i = logit(p_i)`` (the intercept: ``x_i = 1``,
offset ``z_i``).  A replicate's root is close to the fit on the data, ``beta_0``: with
``d = beta - beta_0`` and ``t_i = d_0 + d_1 z_i``, Taylor's formula at ``eta_0i = x_i .
beta_0`` gives

    S_j(d) = sum_i w_i x_ij (y_i - mu_0i)
             - sum_{k=1..K} 1/k! sum_i w_i x_ij mu^(k)(eta_0i) t_i^k + R_j,

a polynomial in ``(d_0, d_1)`` whose coefficients are *linear in the weights*: sums
``sum_i w_i mu^(k)(eta_0i) z_i^q``.  When whole units (conditions) are resampled, every
sample of unit ``c`` has the weight ``u_c``, so these sums are ``sum_c u_c M_cq`` with
``M`` the units' moments, built once: a replicate costs ``n_units x columns``, not a pass
over the samples per Newton iteration.  The polynomial's root is found by Newton's method
to the kernel's tolerance; the remainder is bounded by Lagrange's form,
``|R_j| <= sup|mu^(K+1)| / (K+1)! sum_i w_i |x_ij| (|d_0| + |d_1| |z_i|)^(K+1)`` (also a
sum of per-unit moments, of ``|z|^q``), and the root's error by ``|H^-1| |R|``.  A
replicate whose certified error exceeds :data:`CERTIFIED` (relative to ``1 + |beta|``),
or whose polynomial Newton does not converge, is refitted on its samples exactly (small
test sets, far-off replicates).  A replicate's moments are exact sums of the units'
(:class:`~mlci.metrics._base.ExactSums`), so a seed gives the same values on any chunk of
replicates.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from math import comb, factorial
from typing import Any

import numpy as np

from ._base import ExactSums

__all__ = ["CERTIFIED", "ORDER", "UnitMoments", "sigmoid_derivatives"]

#: order K of the Taylor polynomial of the sigmoid
ORDER = 8
#: largest certified error of a replicate's coefficients, relative to ``1 + max|beta|``,
#: for the polynomial's root to be used (else the replicate is refitted exactly)
CERTIFIED = 1e-12
#: atoms per block when the units' moments are built (bounds their working memory)
_BLOCK = 8192


def _derivative_polys(order: int) -> list[np.ndarray]:
    """Coefficients (ascending powers of ``s = mu``) of ``mu^(k) = P_k(mu)``, k = 0..order:
    ``P_0(s) = s`` and ``P_{k+1}(s) = P_k'(s) s (1 - s)``."""
    polys = [np.array([0.0, 1.0])]
    for _ in range(order):
        der = np.polynomial.polynomial.polyder(polys[-1])
        polys.append(np.polynomial.polynomial.polymul(der, [0.0, 1.0, -1.0]))
    return polys


_POLYS = _derivative_polys(ORDER + 1)


@functools.cache
def _sup_next() -> float:
    """``sup |mu^(ORDER + 1)|`` over the real line (the maximum on a fine grid of mu),
    plus 1% (the grid's maximum is at most that far below it); computed on first use
    (20 ms: importing :mod:`mlci.metrics` need not pay it)."""
    grid = np.linspace(0.0, 1.0, 200_001)
    return 1.01 * float(np.abs(np.polynomial.polynomial.polyval(grid, _POLYS[-1])).max())


def __getattr__(name: str) -> Any:
    """``SUP_NEXT``, the bound of :func:`_sup_next`, as a module constant."""
    if name == "SUP_NEXT":
        return _sup_next()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def sigmoid_derivatives(mu: np.ndarray, order: int = ORDER) -> np.ndarray:
    """Derivatives ``mu^(k)(eta)``, k = 0..order, of the sigmoid at ``mu = sigmoid(eta)``:
    shape ``(order + 1, *mu.shape)``.

    Examples
    --------
    >>> d = sigmoid_derivatives(np.array([0.5]), 3)
    >>> d[:, 0].round(6).tolist()   # sigmoid, its slope 1/4, 0, -1/8 at eta = 0
    [0.5, 0.25, 0.0, -0.125]
    """
    if order > ORDER + 1:
        raise ValueError(f"`order` must be at most {ORDER + 1}; got {order}.")
    return np.stack([np.polynomial.polynomial.polyval(mu, c) for c in _POLYS[: order + 1]])


class UnitMoments:
    """The moments of the logistic score at the data's fit, summed per unit.

    Parameters
    ----------
    y, z : ndarray, shape (m,)
        Outcome (0/1) and logit forecast of every atom.
    beta0 : ndarray, shape (2,)
        The fit on the data ``(a, b)`` (``b`` = 1 for the intercept).
    slope : bool
        Fit the slope and intercept (else the intercept with the slope fixed at 1).
    cell_unit, cell_atom, cell_count : ndarray
        The design's cells: how many samples of atom ``cell_atom`` unit ``cell_unit`` holds.
    n_units : int
    """

    def __init__(
        self,
        y: np.ndarray,
        z: np.ndarray,
        beta0: np.ndarray,
        slope: bool,
        cell_unit: np.ndarray,
        cell_atom: np.ndarray,
        cell_count: np.ndarray,
        n_units: int,
    ) -> None:
        self.beta0 = np.asarray(beta0, dtype=float)
        self.slope = slope
        self.n_units = int(n_units)
        k = ORDER
        # columns: the residuals x_j (y - mu0); A[k][q] = mu^(k) z^q (q <= k + 1 for the
        # slope, q = 0 for the intercept); |z|^q for the remainder's bound
        top_q = k + 1 if slope else 0
        self._a = [[0] * (top_q + 1) for _ in range(k + 1)]
        col = 2 if slope else 1
        for kk in range(1, k + 1):
            for q in range((kk + 2) if slope else 1):
                self._a[kk][q] = col
                col += 1
        self._b0 = col
        col += (k + 3) if slope else 1
        self.n_cols = col
        # the cells in the order of the units, in blocks: every block's columns, times the
        # cells' counts, summed per unit
        cell_unit = np.asarray(cell_unit)
        order = np.argsort(cell_unit, kind="stable")
        unit, atom = cell_unit[order], np.asarray(cell_atom)[order]
        count = np.asarray(cell_count, dtype=float)[order]
        sums = np.zeros((self.n_units, self.n_cols))
        for a in range(0, len(unit), _BLOCK):
            blk = slice(a, a + _BLOCK)
            zz, cnt = z[atom[blk]], count[blk, None]
            eta = self.beta0[0] + self.beta0[1] * zz
            der = sigmoid_derivatives(0.5 * (1.0 + np.tanh(0.5 * eta)), k)
            cols = np.empty((len(zz), self.n_cols))
            cols[:, 0] = y[atom[blk]] - der[0]
            if slope:
                cols[:, 1] = cols[:, 0] * zz
            zq = np.ones_like(zz)
            for q in range(k + 2 if slope else 1):
                for kk in range(max(1, q - 1), k + 1):
                    np.multiply(der[kk], zq, out=cols[:, self._a[kk][q]])
                zq = zq * zz
            aq, az = np.ones_like(zz), np.abs(zz)
            for q in range(self.n_cols - self._b0):
                cols[:, self._b0 + q] = aq
                aq = aq * az
            cols *= cnt
            ub = unit[blk]
            starts = np.flatnonzero(np.r_[True, ub[1:] != ub[:-1]])
            sums[ub[starts]] += np.add.reduceat(cols, starts, axis=0)
        #: sums over the units: ``u`` (b, n_units) -> (b, n_cols), exact for the units'
        #: (floating-point) moments, so the same on any chunk of replicates
        self.sums: Callable[[np.ndarray], np.ndarray] = ExactSums(sums)
        #: every unit's moments (n_units, n_cols), in floating point
        self.unit_cols = sums

    def _coefficients(self, d0: np.ndarray, d1: np.ndarray) -> tuple[np.ndarray, ...]:
        """The score polynomial's coefficient vectors at ``d``: ``S_j = s . c_j`` and the
        Jacobian ``-dS_j/dd_l = s . h_jl`` for sums ``s`` (b, n_cols)."""
        b = len(d0)
        k = ORDER
        p0 = np.stack([d0**i for i in range(k + 2)], axis=1)  # d0^i
        p1 = np.stack([d1**i for i in range(k + 2)], axis=1)
        nj = 2 if self.slope else 1
        c = np.zeros((nj, b, self.n_cols))
        h = np.zeros((nj, 2, b, self.n_cols))
        for j in range(nj):
            c[j, :, j] = 1.0
        for kk in range(1, k + 1):
            for j in range(nj):
                for l in range(kk + 1 if self.slope else 1):
                    col = self._a[kk][l + j]
                    # d0^(kk-l) d1^l / ((kk-l)! l!)
                    c[j, :, col] -= p0[:, kk - l] * p1[:, l] / (factorial(kk - l) * factorial(l))
                    if kk - l >= 1:
                        h[j, 0, :, col] += (
                            p0[:, kk - l - 1] * p1[:, l] / (factorial(kk - l - 1) * factorial(l))
                        )
                    if l >= 1:
                        h[j, 1, :, col] += (
                            p0[:, kk - l] * p1[:, l - 1] / (factorial(kk - l) * factorial(l - 1))
                        )
        return c, h

    def solve(
        self, s: np.ndarray, max_iter: int = 50, tol: float = 1e-13
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The replicates' coefficients from their sums ``s`` (b, n_cols).

        Returns ``beta`` (b, 2), the certified mask (b,) and the inverse Hessian (b, 2, 2)
        at the root (``[[1/H, 0], [0, 0]]`` for the intercept).
        """
        b = s.shape[0]
        d0, d1 = np.zeros(b), np.zeros(b)
        done = np.zeros(b, dtype=bool)
        inv = np.full((b, 2, 2), np.nan)
        with np.errstate(all="ignore"):
            for _ in range(max_iter):
                c, h = self._coefficients(d0, d1)
                g = np.einsum("jbc,bc->jb", c, s)
                hh = np.einsum("jlbc,bc->jlb", h, s)
                if self.slope:
                    det = hh[0, 0] * hh[1, 1] - hh[0, 1] * hh[1, 0]
                    inv = (
                        np.stack(
                            [
                                np.stack([hh[1, 1], -hh[0, 1]], -1),
                                np.stack([-hh[1, 0], hh[0, 0]], -1),
                            ],
                            1,
                        )
                        / det[:, None, None]
                    )
                    step0 = inv[:, 0, 0] * g[0] + inv[:, 0, 1] * g[1]
                    step1 = inv[:, 1, 0] * g[0] + inv[:, 1, 1] * g[1]
                else:
                    inv = np.zeros((b, 2, 2))
                    inv[:, 0, 0] = 1.0 / hh[0, 0]
                    step0, step1 = g[0] * inv[:, 0, 0], np.zeros(b)
                step0 = np.where(done, 0.0, step0)
                step1 = np.where(done, 0.0, step1)
                d0, d1 = d0 + step0, d1 + step1
                big = np.maximum(np.abs(self.beta0[0] + d0), np.abs(self.beta0[1] + d1))
                small = np.maximum(np.abs(step0), np.abs(step1)) <= tol * (1.0 + big)
                done |= small & np.isfinite(d0) & np.isfinite(d1)
                if (done | ~(np.isfinite(d0) & np.isfinite(d1))).all():
                    break
            ok = done & self._certified(s, d0, d1, inv)
        beta = np.stack([self.beta0[0] + d0, self.beta0[1] + d1], axis=1)
        return beta, ok, inv

    def _certified(self, s: np.ndarray, d0: np.ndarray, d1: np.ndarray, inv: np.ndarray) -> Any:
        """Rows whose root is within :data:`CERTIFIED` of the exact fit's (Lagrange's
        remainder of the score through the inverse Hessian)."""
        k1 = ORDER + 1
        a0, a1 = np.abs(d0), np.abs(d1)
        const = _sup_next() / factorial(k1)
        if self.slope:
            err = []
            for j in range(2):
                e = np.zeros(len(d0))
                for l in range(k1 + 1):
                    e += comb(k1, l) * a0 ** (k1 - l) * a1**l * s[:, self._b0 + l + j]
                err.append(const * e)
            e0, e1 = err
            dev = np.maximum(
                np.abs(inv[:, 0, 0]) * e0 + np.abs(inv[:, 0, 1]) * e1,
                np.abs(inv[:, 1, 0]) * e0 + np.abs(inv[:, 1, 1]) * e1,
            )
        else:
            dev = np.abs(inv[:, 0, 0]) * const * a0**k1 * s[:, self._b0]
        big = np.maximum(np.abs(self.beta0[0] + d0), np.abs(self.beta0[1] + d1))
        return np.isfinite(dev) & (dev <= CERTIFIED * (1.0 + big))

    def unit_scores(self, d0: np.ndarray, d1: np.ndarray, inv: np.ndarray) -> np.ndarray:
        """Every unit's summed gradient of the coefficient (one copy of the unit):
        ``e' H^-1 S_c(d)`` (b, n_units), the slope's (``e`` = (0, 1)) or the intercept's."""
        c, _ = self._coefficients(d0, d1)
        per = np.einsum("jbc,uc->jbu", c, self.unit_cols)
        if self.slope:
            return inv[:, 1, 0, None] * per[0] + inv[:, 1, 1, None] * per[1]
        return inv[:, 0, 0, None] * per[0]
