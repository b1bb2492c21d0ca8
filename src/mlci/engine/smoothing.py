"""Two other ways of drawing replicates: the smoothed bootstrap and m-out-of-n subsampling.

**Smoothed bootstrap** (Efron 1979 §5; Silverman & Young 1987; Davison & Hinkley 1997,
§3.4).  A replicate is an ordinary resample whose scores each get independent Gaussian
noise ``h * N(0, 1)``: a draw from the kernel density estimate of each class instead of
from its empirical distribution.  It fills the gaps between tied or sparse scores, which
helps statistics that jump between scores (thresholds at a rate, the EER threshold) on
small data.  Caveats: the kernel estimate has variance ``s^2 + h^2``, not ``s^2`` (the
replicates are slightly more spread; ``h`` is O(n^-1/5), so this fades with n), and a
statistic at a fixed threshold is biased by the smoothing (a rate at ``t`` of the density
estimate is not the empirical rate at ``t``).  The bandwidth is fixed per class from the
data (Silverman's rule of thumb, ``0.9 min(sd, IQR/1.34) n^-1/5``, Silverman 1986 eq. 3.31)
so that every replicate is a draw from the same distribution; score-analysis recomputes it
on every resample.  Infinite scores (easy samples) stay infinite.

**m-out-of-n subsampling** (Politis & Romano 1994; Bickel, Götze & van Zwet 1997).  A
replicate draws ``m = floor(fraction * n_c)`` samples *without* replacement from every
cell ``c`` (the class, and the strata).  The spread of a statistic on ``m`` samples is
not the spread on ``n``, so the replicates cannot be read as they are: for a statistic
converging at rate sqrt(n), mlci rescales every replicate's deviation from the estimate,
``theta + k (theta*_m - theta)`` with ``k = sqrt(m / (n - m))``.  Under sampling without
replacement the variance of a mean of ``m`` samples is ``(1 - m/n) s^2 / m``, so ``k``
gives back ``s^2 / n`` exactly for a mean (it is the delete-d jackknife's factor, Shao & Wu
1989, with ``d = n - m``); as ``m/n -> 0`` it is Politis & Romano's ``sqrt(m / n)``.  The
interval is then read from the rescaled replicates: ``"basic"`` (Politis & Romano's, the
default), ``"percentile"`` or ``"normal"``; BC and BCa have no justification here and are
refused.  Validity needs the sqrt(n) rate (true for rates, AUC, and, for continuous
scores, thresholds at rates and the EER) and, for non-smooth statistics, both ``m`` and
``n - m`` large.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..inputs.resampling import check_smoothing, check_subsample
from .sampler import Sampler

__all__ = [
    "SUBSAMPLE_METHODS",
    "SmoothedSampler",
    "check_smoothing",
    "check_subsample",
    "silverman_bandwidth",
    "smooth_scores",
    "subsample_counts",
]

#: interval methods that read the rescaled subsample replicates correctly
SUBSAMPLE_METHODS = ("basic", "percentile", "normal")


def silverman_bandwidth(x: np.ndarray) -> float:
    """Silverman's rule of thumb ``0.9 min(sd, IQR/1.34) n^(-1/5)`` on the finite values
    (Silverman 1986, eq. 3.31; the sd alone when the IQR is 0); 0 with fewer than 2.

    Examples
    --------
    >>> round(silverman_bandwidth(np.arange(10.0)), 4)
    1.7193
    """
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if len(x) < 2:
        return 0.0
    sd = float(np.std(x, ddof=1))
    q75, q25 = np.quantile(x, [0.75, 0.25])
    iqr = float(q75 - q25) / 1.34
    spread = min(sd, iqr) if iqr > 0 else sd
    return 0.9 * spread * len(x) ** -0.2


def smooth_scores(
    y: np.ndarray, is_pos: np.ndarray, h: tuple[float, float], rng: np.random.Generator
) -> np.ndarray:
    """``y`` plus ``N(0, h_pos^2)`` noise on the positives and ``N(0, h_neg^2)`` on the
    negatives (infinite scores stay as they are)."""
    noise = rng.standard_normal(len(y)) * np.where(is_pos, h[0], h[1])
    out = np.asarray(y, dtype=float) + noise
    inf = ~np.isfinite(y)
    out[inf] = y[inf]
    return out


def subsample_counts(
    cells: list[np.ndarray], fraction: float, n: int, name: str = "subsample"
) -> tuple[Callable[[np.random.Generator, int], np.ndarray], int, float]:
    """The scheme ``fn(rng, b) -> (b, n)`` 0/1 counts drawing ``floor(fraction * n_c)``
    samples without replacement from every cell, the subsample size ``m`` and the
    rescaling factor ``sqrt(m / (n - m))``.

    Examples
    --------
    >>> fn, m, k = subsample_counts([np.arange(6), np.arange(6, 10)], 0.5, 10)
    >>> c = fn(np.random.default_rng(0), 3)
    >>> c[:, :6].sum(axis=1).tolist(), c[:, 6:].sum(axis=1).tolist(), m, k
    ([3.0, 3.0, 3.0], [2.0, 2.0, 2.0], 5, 1.0)
    """
    sizes = [(c, int(np.floor(fraction * len(c)))) for c in cells]
    for c, m_c in sizes:
        if m_c < 1 or m_c >= len(c):
            raise ValueError(
                f"`{name}`={fraction:g} draws {m_c} of the {len(c)} samples of a cell (a class, "
                "or a stratum within it); every cell needs 1 <= floor(fraction * size) < size "
                "(a larger cell, or another fraction)."
            )
    m = sum(m_c for _, m_c in sizes)

    def fn(rng: np.random.Generator, b: int) -> np.ndarray:
        out = np.zeros((b, n))
        rows = np.arange(b)[:, None]
        for c, m_c in sizes:
            pick = np.argsort(rng.random((b, len(c))), axis=1)[:, :m_c]
            out[rows, c[pick]] = 1.0
        return out

    return fn, m, float(np.sqrt(m / (n - m)))


class SmoothedSampler(Sampler):
    """Another sampler's replicates, each with a seed for its smoothing noise.

    ``draw(rng, b)`` returns ``(b, m + 1)``: the inner sampler's counts, then one seed per
    replicate drawn from the same block generator (so a seed gives the same noise on any
    chunk size or core count).  The kernel adds the noise; rows of width ``m`` (the full
    data, the jackknife) are evaluated without noise.
    """

    dense = True

    def __init__(self, inner: Sampler) -> None:
        self.inner = inner
        self.plan = getattr(inner, "plan", None)
        self.seed = inner.seed
        self.n_resamples = inner.n_resamples
        self.block_size = inner.block_size
        self.stream = inner.stream
        self.m = inner.m + 1
        self.counts = inner.counts
        self.unit_is_sample = getattr(inner, "unit_is_sample", False)
        self.draw_bytes = getattr(inner, "draw_bytes", 0.0)

    def draw(self, rng: np.random.Generator, b: int, out: np.ndarray | None = None) -> np.ndarray:
        w = self.inner.draw(rng, b)
        if hasattr(w, "toarray"):
            w = w.toarray()
        seeds = rng.integers(0, 2**53, size=b).astype(float)
        full = np.concatenate([np.asarray(w, dtype=float), seeds[:, None]], axis=1)
        if out is None:
            return full
        out[...] = full
        return out

    def jackknife_rows(self, max_groups: int) -> Any:
        return self.inner.jackknife_rows(max_groups)

    def __getattr__(self, name: str) -> Any:
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)
