"""The interval layer's closed forms against scipy.stats (an independent implementation)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mlci.intervals.formulas import (
    libm_expit,
    libm_logit,
    normal_quantile,
    quantile,
    t_interval,
    tails,
    wald_interval,
)


@pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.95, 0.99])
@pytest.mark.parametrize("df", [None, 1, 4.5, 30])
def test_wald_interval_is_scipys_interval(level, df):
    est, se = np.array([0.3, -1.2]), np.array([0.02, 0.5])
    # scipy.stats.{norm,t}.interval(level, loc=est, scale=se): the two-sided reference
    dist = stats.norm if df is None else stats.t(df)
    # scipy's lower end comes from the lower quantile: equal to rounding
    ref = np.asarray(dist.interval(level))[:, None] * se + est
    low, high = wald_interval(est, se, confidence_level=level, df=df)
    np.testing.assert_allclose(low, ref[0], rtol=1e-12)
    np.testing.assert_allclose(high, ref[1], rtol=1e-12)
    # one-sided: the other end at the range's edge; the quantile at the level itself
    lo, hi = wald_interval(est, se, confidence_level=level, df=df, alternative="greater",
                           bounds=(-100.0, 100.0))  # fmt: skip
    np.testing.assert_allclose(lo, est - dist.ppf(level) * se, rtol=1e-13)
    assert (hi == 100.0).all()
    lo, hi = wald_interval(est, se, confidence_level=level, df=df, alternative="less")
    np.testing.assert_allclose(hi, est + dist.ppf(level) * se, rtol=1e-13)
    assert (lo == -np.inf).all()


def test_quantiles_are_scipy_stats():
    p = np.array([0.5, 0.9, 0.975, 0.995])
    np.testing.assert_array_equal(quantile(p), stats.norm.ppf(p))  # to the last bit
    # Student's t (mlci's own, tests/test_imports.py): within an ulp of scipy; at 0.995
    # mlci's is the correctly rounded 3.4214226881240437547 (mpmath, 40 digits), scipy's
    # 3.421422688124044 the next float up
    np.testing.assert_allclose(quantile(p, 7.5), stats.t.ppf(p, 7.5), rtol=2.3e-16, atol=0)
    assert quantile(0.995, 7.5) == 3.4214226881240437
    assert tails(0.95, "two-sided")[1] == 1 - (1 - 0.95) / 2
    assert tails(0.95, "less") == (1 - 0.95, 0.95)


def test_clipped_into_the_range_and_same_as_the_t_interval():
    low, high = wald_interval(0.98, 0.05, confidence_level=0.95, bounds=(0.0, 1.0))
    assert float(high) == 1.0 and float(low) == pytest.approx(0.98 - 1.959963984540054 * 0.05)
    a = wald_interval(0.8, 0.05, confidence_level=0.9, df=11, bounds=(0, 1))
    b = t_interval(0.8, 0.05, 11, confidence_level=0.9, bounds=(0, 1))[:2]
    assert [float(v) for v in a] == [float(v) for v in b]


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


def test_libm_logit_and_expit_are_scipys_bit_for_bit():
    # the studentized interval's logit scale without importing scipy.special: scipy's
    # formulas with the C library's log, log1p and exp (the math module's), equal to
    # scipy.special.logit / expit on every value tried, both branches of scipy's logit
    # (log1p around 1/2, 0.3 <= x <= 0.65) and their edges, 0, 1, outside, inf and nan
    from scipy import special

    rng = np.random.default_rng(0)
    edges = [0.0, -0.0, 1.0, 0.5, 0.3, 0.65, -1.0, 2.0, np.inf, -np.inf, np.nan, 5e-324]
    edges += [np.nextafter(e, d) for e in (0.0, 0.3, 0.65, 1.0) for d in (-1, 2)]
    x = np.concatenate(
        [
            rng.random(200_000),
            rng.random(20_000) ** 8,
            1 - rng.random(20_000) ** 8,
            np.linspace(0.29, 0.66, 100_001),
            edges,
        ]
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        assert _same_bits(libm_logit(x), special.logit(x))
        assert _same_bits(libm_logit(x[:12].reshape(3, 4)), special.logit(x[:12].reshape(3, 4)))
        y = np.concatenate([rng.standard_normal(100_000) * 8, np.linspace(-800, 800, 20_001)])
        y = np.concatenate([y, [np.inf, -np.inf, np.nan, -0.0, 709.8, -709.8, 745.2, -745.2]])
        assert _same_bits(libm_expit(y), special.expit(y))


@pytest.mark.parametrize("size", [1, 100, 101, 5_000])
def test_normal_quantile_loop_and_vector_paths_are_scipys_bits(size):
    # up to 100 elements the per-element loop, above it the NumPy path (session 9): both
    # scipy.special.ndtri (Cephes, scipy.stats.norm.ppf) to the bit, in both tails and
    # the middle, with 0, 1 and values outside [0, 1]
    from scipy import special

    rng = np.random.default_rng(size)
    p = np.concatenate([rng.random(size), 10.0 ** -rng.uniform(1, 300, size),
                        1 - 10.0 ** -rng.uniform(1, 16, size)])[: max(size, 1)]  # fmt: skip
    p[:3] = (0.0, 1.0, -0.5)[: min(3, size)]
    got = normal_quantile(p.reshape(-1, 1))
    assert got.shape == (p.size, 1)
    np.testing.assert_array_equal(got[:, 0], special.ndtri(p))
