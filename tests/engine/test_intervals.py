"""Interval methods (mlci.intervals) against scipy.stats.bootstrap and the textbook formulas.

The exact check: ``scipy.stats.bootstrap`` returns the replicate distribution it used
(``res.bootstrap_distribution``).  We feed that very distribution, the estimate and the
delete-one jackknife values of the same statistic into ``mlci.intervals`` and require
scipy's interval to 1e-12: the same replicates must give the same interval, so any
difference would be a difference of formula (quantile interpolation, the tie rule of
z0, the acceleration, the one-sided levels), not of Monte Carlo error.
Reference: scipy/stats/_resampling.py (``bootstrap``, ``_bca_interval``,
``_percentile_of_score``); Efron & Tibshirani (1993) eq. 14.9-14.15.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats
from scipy.special import ndtri

import mlci
from mlci.inputs import DISTRIBUTION_METHODS
from mlci.intervals.bootstrap import acceleration, bootstrap_interval, quantiles

_RNG_KW = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"
SCIPY_METHOD = {"percentile": "percentile", "basic": "basic", "bca": "BCa"}


def _scipy(x, method, level=0.95, alternative="two-sided", B=2000, seed=0):
    return stats.bootstrap(
        (x,),
        np.mean,
        axis=-1,
        n_resamples=B,
        method=SCIPY_METHOD[method],
        confidence_level=level,
        alternative=alternative,
        **{_RNG_KW: np.random.default_rng(seed)},
    )


def _jackknife_means(x):
    """Delete-one means along the last axis: shape (n, ...)."""
    n = x.shape[-1]
    return np.moveaxis((x.sum(axis=-1, keepdims=True) - x) / (n - 1), -1, 0)


def _mlci(x, dist, method, level=0.95, alternative="two-sided"):
    accel = acceleration(_jackknife_means(x)) if method == "bca" else None
    low, high, _ = bootstrap_interval(
        np.mean(x, axis=-1),
        dist,
        method=method,
        confidence_level=level,
        alternative=alternative,
        accel=accel,
    )
    return low, high


# skewed data so that BCa's z0 and acceleration are far from 0
X = np.random.default_rng(42).exponential(size=40) ** 1.5


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_same_distribution_as_scipy(method, alternative, level):
    res = _scipy(X, method, level, alternative)
    low, high = _mlci(X, res.bootstrap_distribution, method, level, alternative)
    assert_allclose([low, high], list(res.confidence_interval), rtol=1e-12, atol=0)
    if alternative == "less":
        assert low == -np.inf
    if alternative == "greater":
        assert high == np.inf


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_same_distribution_as_scipy_vector_statistic(method):
    # elementwise over a metric of shape (3,): scipy vectorises along axis=-1 and keeps
    # the replicates last; mlci keeps them first
    x = np.random.default_rng(1).gamma([[0.5], [2.0], [8.0]], size=(3, 30))
    res = _scipy(x, method, B=1500, seed=3)
    low, high = _mlci(x, res.bootstrap_distribution.T, method)
    assert_allclose(low, res.confidence_interval.low, rtol=1e-12)
    assert_allclose(high, res.confidence_interval.high, rtol=1e-12)


def test_ties_in_distribution_match_scipy_z0():
    # a discrete statistic: many replicates equal the estimate; scipy and mlci both count
    # ties one half in z0 (scipy's _percentile_of_score, kind="mean")
    x = np.random.default_rng(5).integers(0, 2, 25).astype(float)
    res = _scipy(x, "bca", B=999, seed=7)
    dist = res.bootstrap_distribution
    assert np.sum(dist == x.mean()) > 50
    low, high = _mlci(x, dist, "bca")
    assert_allclose([low, high], list(res.confidence_interval), rtol=1e-12)


def test_acceleration_formula_and_multiplicity():
    # Efron & Tibshirani (1993) eq. 14.15 with d = mean(jack) - jack
    jack = _jackknife_means(X)
    d = jack.mean() - jack
    expected = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    assert_allclose(acceleration(jack), expected, rtol=1e-13)
    # scipy's U-statistic form (n-1)(mean - jack) gives the same value
    u = (len(X) - 1) * d
    n = len(X)
    assert_allclose(acceleration(jack), (np.sum(u**3) / n**3) / (6 * (np.sum(u**2) / n**2) ** 1.5))
    # identical jackknife values given once with a multiplicity
    vals, mult = np.unique(np.round(jack, 1), return_counts=True)
    assert_allclose(acceleration(vals, mult), acceleration(np.repeat(vals, mult)), rtol=1e-13)
    # NaN values are left out
    assert_allclose(acceleration(np.append(jack, np.nan)), acceleration(jack), rtol=1e-13)
    # symmetric jackknife: no skewness, a = 0; constant: a = 0 (not NaN)
    assert acceleration(np.array([-1.0, 0.0, 1.0])) == 0
    assert acceleration(np.ones(5)) == 0


def test_engine_acceleration_is_the_delete_one_jackknife():
    # mlci.bootstrap_ci's BCa for the mean uses the exact delete-one jackknife at small n
    res = mlci.bootstrap_ci(X, metric="mean", method="bca", n_resamples=500, rng=0)
    assert_allclose(res.details["acceleration"], acceleration(_jackknife_means(X)), rtol=1e-10)


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_engine_agrees_with_scipy_at_large_B(method):
    # different random draws, so only Monte Carlo agreement: at B = 20000 a 2.5% quantile
    # has a standard error of about 0.02 bootstrap SE; allow 0.15 SE (~7 standard errors)
    ref = _scipy(X, method, B=20000, seed=11)
    res = mlci.bootstrap_ci(X, metric="mean", method=method, n_resamples=20000, rng=12)
    se = ref.standard_error
    assert abs(res.confidence_interval.low - ref.confidence_interval.low) < 0.15 * se
    assert abs(res.confidence_interval.high - ref.confidence_interval.high) < 0.15 * se
    assert_allclose(res.standard_error, se, rtol=0.03)


# ---------------------------------------------------------------- normal, bc, NaN
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_normal_method_formula(alternative):
    dist = np.random.default_rng(3).gamma(2.0, size=3000)
    theta = 1.7
    level = 0.9
    low, high, _ = bootstrap_interval(
        theta, dist, method="normal", confidence_level=level, alternative=alternative
    )
    se = np.std(dist, ddof=1)
    z = ndtri(1 - (1 - level) / 2) if alternative == "two-sided" else ndtri(level)
    exp_low = -np.inf if alternative == "less" else theta - z * se
    exp_high = np.inf if alternative == "greater" else theta + z * se
    assert_allclose([low, high], [exp_low, exp_high], rtol=1e-13)


def test_bc_is_bca_without_acceleration():
    dist = np.random.default_rng(4).gamma(2.0, size=2001)
    bc = bootstrap_interval(1.8, dist, method="bc", confidence_level=0.95)
    bca = bootstrap_interval(1.8, dist, method="bca", confidence_level=0.95, accel=0.0)
    assert_allclose(bc[:2], bca[:2], rtol=0)
    # z0 = Phi^-1(share below the estimate)
    assert_allclose(bc[2]["z0"], ndtri(np.mean(dist < 1.8)), rtol=1e-12)


@pytest.mark.parametrize("method", DISTRIBUTION_METHODS)
def test_nan_replicates_are_left_out(method):
    rng = np.random.default_rng(6)
    dist = rng.normal(0.3, 0.1, size=(1000, 2))
    theta = np.array([0.31, 0.28])
    with_nan = dist.copy()
    # column 0: 80 undefined replicates; column 1: 5 others
    with_nan[rng.choice(1000, 80, replace=False), 0] = np.nan
    with_nan[rng.choice(1000, 5, replace=False), 1] = np.nan
    kw = {"method": method, "confidence_level": 0.95, "accel": np.array([0.02, -0.01])}
    low, high, _ = bootstrap_interval(theta, with_nan, **kw)
    for j in range(2):
        col = with_nan[:, j]
        kwj = dict(kw, accel=kw["accel"][j])
        lo_j, hi_j, _ = bootstrap_interval(theta[j], col[~np.isnan(col)], **kwj)
        assert_allclose([low[j], high[j]], [lo_j, hi_j], rtol=1e-13)
    assert np.all(np.isfinite(low)) and np.all(np.isfinite(high))


def test_nan_column_gives_nan_interval():
    dist = np.column_stack([np.linspace(0, 1, 100), np.full(100, np.nan)])
    low, high, _ = bootstrap_interval(
        np.array([0.5, 0.5]), dist, method="percentile", confidence_level=0.95
    )
    assert np.isfinite(low[0]) and np.isnan(low[1]) and np.isnan(high[1])


# ---------------------------------------------------------------- degenerate
@pytest.mark.parametrize("method", DISTRIBUTION_METHODS)
def test_constant_distribution_warns_and_collapses(method):
    dist = np.ones(500)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        low, high, _ = bootstrap_interval(
            1.0, dist, method=method, confidence_level=0.95, accel=0.0
        )
    assert (low, high) == (1.0, 1.0)
    # exactly one warning, which says what happened (no "estimate outside" fallback note)
    assert len(caught) == 1
    assert issubclass(caught[0].category, mlci.DegenerateIntervalWarning)
    assert "no spread" in str(caught[0].message)


def test_engine_accuracy_of_one_warns():
    y = np.array([0, 1] * 50)
    with pytest.warns(mlci.DegenerateIntervalWarning):
        res = mlci.bootstrap_ci(y, y, metric="accuracy", method="percentile", rng=0)
    assert tuple(res.confidence_interval) == (1.0, 1.0)


def test_bca_estimate_outside_distribution_falls_back_to_percentile():
    dist = np.random.default_rng(8).uniform(0.2, 0.4, size=1000)
    with pytest.warns(mlci.DegenerateIntervalWarning, match="percentile"):
        low, high, info = bootstrap_interval(
            0.9, dist, method="bca", confidence_level=0.95, accel=0.0
        )
    p_low, p_high, _ = bootstrap_interval(0.9, dist, method="percentile", confidence_level=0.95)
    assert (low, high) == (p_low, p_high)
    assert "fallback" in info


def test_no_warning_on_a_regular_distribution():
    dist = np.random.default_rng(9).normal(size=1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for m in DISTRIBUTION_METHODS:
            bootstrap_interval(0.0, dist, method=m, confidence_level=0.95, accel=0.01)


# ---------------------------------------------------------------- quantiles, properties
@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=60),
    st.floats(0, 1),
)
def test_quantiles_match_numpy_linear(values, p):
    a = np.array(values)
    assert_allclose(quantiles(a, np.array(p)), np.quantile(a, p), rtol=1e-12, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-10, 10), min_size=2, max_size=80),
    st.sampled_from(["percentile", "basic", "normal", "bc"]),
    st.floats(0.5, 0.99),
)
def test_interval_properties(values, method, level):
    # low <= high; one-sided bounds use the one-sided level; a higher level is wider
    dist = np.array(values)
    theta = float(np.median(dist))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.DegenerateIntervalWarning)
        low, high, _ = bootstrap_interval(theta, dist, method=method, confidence_level=level)
        low2, high2, _ = bootstrap_interval(
            theta, dist, method=method, confidence_level=min(level + 0.009, 0.999)
        )
        _, up, _ = bootstrap_interval(
            theta, dist, method=method, confidence_level=level, alternative="less"
        )
    assert low <= high + 1e-9
    if method in ("percentile", "basic", "normal"):
        assert low2 <= low + 1e-9 and high2 >= high - 1e-9
        assert up <= high + 1e-9  # the one-sided bound is at the 1 - alpha level
