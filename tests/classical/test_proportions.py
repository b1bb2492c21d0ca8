"""Binomial intervals and differences of proportions, checked against references."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mlci import IntervalResult
from mlci.classical.proportions import (
    PROPORTION_METHODS,
    paired_proportion_diff_ci,
    paired_table,
    proportion_ci,
    proportion_diff_ci,
)

sm_prop = pytest.importorskip("statsmodels.stats.proportion")


def bounds(r):
    return np.array([r.confidence_interval.low, r.confidence_interval.high], dtype=float)


# ----------------------------------------------------------------------------------------
# single proportion
# ----------------------------------------------------------------------------------------
# Newcombe, R. G. (1998a). Two-sided confidence intervals for the single proportion:
# comparison of seven methods. Stat Med 17, 857-872, Table II (4 decimals).  Method 1 (Wald)
# is clipped at 0 here (the default clip=True).  An earlier note here said Newcombe prints
# the overshoot as -0.0321 for 1/29; p - 1.96 sqrt(p(1-p)/n) is -0.0319 (what clip=False
# returns, the formula checked against statsmodels below); the printed value could not be
# re-checked against the paper.
NEWCOMBE_1998A = {
    "wald": {(81, 263): (0.2522, 0.3638), (15, 148): (0.0527, 0.1500), (1, 29): (0.0, 0.1009)},
    "wilson": {
        (81, 263): (0.2553, 0.3662),
        (15, 148): (0.0624, 0.1605),
        (0, 20): (0.0, 0.1611),
        (1, 29): (0.0061, 0.1718),
    },
    "wilson_cc": {
        (81, 263): (0.2535, 0.3682),
        (15, 148): (0.0598, 0.1644),
        (0, 20): (0.0, 0.2005),
        (1, 29): (0.0018, 0.1963),
    },
    "clopper_pearson": {
        (81, 263): (0.2527, 0.3676),
        (15, 148): (0.0578, 0.1617),
        (0, 20): (0.0, 0.1684),
        (1, 29): (0.0009, 0.1776),
    },
    "mid_p": {
        (81, 263): (0.2544, 0.3658),
        (15, 148): (0.0601, 0.1581),
        (0, 20): (0.0, 0.1391),
        (1, 29): (0.0017, 0.1585),
    },
}


@pytest.mark.parametrize("method", list(NEWCOMBE_1998A))
def test_newcombe_1998a_table(method):
    for (k, n), expected in NEWCOMBE_1998A[method].items():
        r = proportion_ci(k, n, method=method)
        np.testing.assert_allclose(bounds(r), expected, atol=5e-5, err_msg=f"{k}/{n}")


# Fagerland, Lydersen & Laake (2017), Statistical Analysis of Contingency Tables, ch. 2,
# X = 13 of n = 16 (Ligarden et al. 2010); the values as printed by the authors' R
# package `contingencytables` (tests/testthat/test-ch2.R; `LR_CI_1x2` for the likelihood
# ratio interval).
FAGERLAND_13_16 = {
    "wilson": (0.5699, 0.9341),
    "wilson_cc": (0.5369, 0.9503),
    "clopper_pearson": (0.5435, 0.9595),
    "mid_p": (0.5699, 0.9500),
    "jeffreys": (0.5792, 0.9442),
    "likelihood_ratio": (0.5828, 0.9497),
}


@pytest.mark.parametrize("method", list(FAGERLAND_13_16))
def test_fagerland_13_of_16(method):
    np.testing.assert_allclose(
        bounds(proportion_ci(13, 16, method=method)), FAGERLAND_13_16[method], atol=5e-5
    )


def test_fagerland_edge_cases():
    # contingencytables tests/testthat/test-ch2.R: LR_CI_1x2(0, 10) = (0, 0.1748),
    # LR_CI_1x2(10, 10) = (0.8252, 1); Wald_CI_CC_1x2(13, 16, alpha = 0.1) = (0.6207, 1)
    # (their Wald-cc interval is truncated to [0, 1], our default clip=True).
    lr = proportion_ci([0, 10], 10, method="likelihood_ratio")
    np.testing.assert_allclose(lr.confidence_interval.low, [0.0, 0.8252], atol=5e-5)
    np.testing.assert_allclose(lr.confidence_interval.high, [0.1748, 1.0], atol=5e-5)
    cc = proportion_ci(13, 16, method="wald_cc", confidence_level=0.9)
    np.testing.assert_allclose(bounds(cc), (0.6207, 1.0), atol=5e-5)


# ----------------------------------------------------------------------------------------
# the likelihood-ratio interval (Brown, Cai & DasGupta 2001, section 4.1.2)
# ----------------------------------------------------------------------------------------
def _lr_statistic(k, n, p):
    """2 [l(k/n) - l(p)] from scipy's binomial log-pmf (the binomial coefficient cancels)."""
    return 2 * (stats.binom.logpmf(k, n, k / n) - stats.binom.logpmf(k, n, p))


@pytest.mark.parametrize("level", [0.8, 0.95, 0.999])
def test_likelihood_ratio_definition(level):
    # At each limit inside (0, 1) the statistic equals the chi-square quantile
    # (two-sided) or z_(1-alpha)^2, the square of the one-sided normal quantile (a
    # one-sided bound of the signed root).  k = 0 (k = n) has the lower (upper) limit 0
    # (1) exactly.  Large n and extreme k check the precision of tiny limits (there the
    # statistic, a difference of two log-pmfs of n = 10^7, is itself known to ~1e-9).
    crit2 = stats.chi2.ppf(level, 1)
    crit1 = stats.norm.ppf(level) ** 2
    cases = [(0, 20), (1, 29), (15, 148), (81, 263), (20, 20), (3, 10**7), (10**7 - 1, 10**7)]
    for k, n in cases:
        rel = 1e-9 if n < 10**6 else 1e-7
        r = proportion_ci(k, n, method="likelihood_ratio", confidence_level=level)
        lo, hi = bounds(r)
        assert (lo == 0.0) == (k == 0) and (hi == 1.0) == (k == n)
        for b in (lo, hi)[int(k == 0) : 2 - int(k == n)]:
            assert _lr_statistic(k, n, b) == pytest.approx(crit2, rel=rel)
        g = proportion_ci(k, n, method="likelihood_ratio", confidence_level=level,
                          alternative="greater")  # fmt: skip
        assert g.confidence_interval.high == 1.0
        if k > 0:
            assert _lr_statistic(k, n, g.confidence_interval.low) == pytest.approx(crit1, rel=rel)


def test_likelihood_ratio_brute_force_grid():
    # An independent computation with no root finding and no closed form: evaluate the
    # LR statistic (scipy's binomial log-pmf) on a grid of 10^6 + 1 values of p and take
    # the smallest and largest grid points it accepts at the 95% level.  The limits lie
    # within one grid step (1e-6) of those points.
    grid = np.linspace(0.0, 1.0, 10**6 + 1)
    crit = stats.chi2.ppf(0.95, 1)
    for k, n in [(0, 20), (1, 29), (15, 148), (81, 263), (13, 16), (7, 7), (2, 5)]:
        with np.errstate(divide="ignore"):
            accepted = grid[_lr_statistic(k, n, grid) <= crit]
        lo, hi = bounds(proportion_ci(k, n, method="likelihood_ratio"))
        assert accepted.min() - 1e-6 <= lo <= accepted.min() + 1e-12
        assert accepted.max() - 1e-12 <= hi <= accepted.max() + 1e-6


# ----------------------------------------------------------------------------------------
# Wald with continuity correction, and the unclipped Wald / Agresti-Coull
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["wald", "wald_cc", "agresti_coull"])
def test_unclipped_against_statsmodels(method):
    # statsmodels' proportion_confint clips "normal" and "agresti_coull" to [0, 1]: where
    # its bound lies strictly inside, ours with clip=False is the same number (Wald-cc:
    # the Wald bound moved out by 1/(2n), Newcombe 1998a method 2); where it sits at 0
    # or 1, ours lies beyond it.  clip=True is the unclipped interval clipped.
    rng = np.random.default_rng(5)
    n = rng.integers(1, 60, 300)
    k = rng.binomial(n, rng.choice([0.02, 0.5, 0.98], 300))
    sm_method = "normal" if method.startswith("wald") else "agresti_coull"
    cc = 0.5 / n if method == "wald_cc" else 0.0
    lo, hi = sm_prop.proportion_confint(k, n, alpha=0.05, method=sm_method)
    r = proportion_ci(k, n, method=method, clip=False)
    low, high = r.confidence_interval
    inside_lo, inside_hi = lo > 0, hi < 1
    np.testing.assert_allclose(low[inside_lo], (lo - cc)[inside_lo], atol=1e-12)
    np.testing.assert_allclose(high[inside_hi], (hi + cc)[inside_hi], atol=1e-12)
    assert (low[~inside_lo] <= 0).all() and (high[~inside_hi] >= 1).all()
    assert (low < 0).any() and (high > 1).any()  # the draw does overshoot
    c = proportion_ci(k, n, method=method)
    np.testing.assert_array_equal(c.confidence_interval.low, np.clip(low, 0, 1))
    np.testing.assert_array_equal(c.confidence_interval.high, np.clip(high, 0, 1))


def test_wald_cc_formula_and_standard_error():
    # Newcombe (1998a) method 2: p ± (z sqrt(p(1-p)/n) + 1/(2n)), e.g. 0 of 20 gives
    # ± 1/40 around 0 (a zero-width Wald interval widened by the correction).
    r = proportion_ci(0, 20, method="wald_cc", clip=False)
    assert bounds(r).tolist() == [-0.025, 0.025]
    assert bounds(proportion_ci(0, 20, method="wald_cc")).tolist() == [0.0, 0.025]
    r = proportion_ci(90, 100, method="wald_cc")
    assert r.standard_error == pytest.approx(0.03)
    assert r.confidence_interval.high == pytest.approx(0.9 + stats.norm.ppf(0.975) * 0.03 + 0.005)


def test_clip_has_no_effect_on_bounded_methods():
    for method in set(PROPORTION_METHODS) - {"wald", "wald_cc", "agresti_coull"}:
        a = proportion_ci([0, 3, 10], 10, method=method)
        b = proportion_ci([0, 3, 10], 10, method=method, clip=False)
        np.testing.assert_array_equal(a.confidence_interval.low, b.confidence_interval.low)
        np.testing.assert_array_equal(a.confidence_interval.high, b.confidence_interval.high)


SM_METHOD = {
    "wald": "normal",
    "wilson": "wilson",
    "agresti_coull": "agresti_coull",
    "clopper_pearson": "beta",
    "jeffreys": "jeffreys",
}


@pytest.mark.parametrize("method", list(SM_METHOD))
def test_matches_statsmodels_proportion_confint(method):
    # Reference: statsmodels.stats.proportion.proportion_confint.  statsmodels' Jeffreys
    # does not set the bound to 0 (1) at k = 0 (k = n), so those are compared elsewhere.
    rng = np.random.default_rng(1)
    n = rng.integers(1, 400, 200)
    k = rng.binomial(n, rng.uniform(0, 1, 200))
    if method == "jeffreys":
        keep = (k > 0) & (k < n)
        k, n = k[keep], n[keep]
    for level in (0.8, 0.95, 0.99):
        lo, hi = sm_prop.proportion_confint(k, n, alpha=1 - level, method=SM_METHOD[method])
        r = proportion_ci(k, n, method=method, confidence_level=level)
        np.testing.assert_allclose(r.confidence_interval.low, lo, atol=1e-10)
        np.testing.assert_allclose(r.confidence_interval.high, hi, atol=1e-10)


@pytest.mark.parametrize(
    ("method", "scipy_method"),
    [("clopper_pearson", "exact"), ("wilson", "wilson"), ("wilson_cc", "wilsoncc")],
)
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_matches_scipy_binomtest(method, scipy_method, alternative):
    # Reference: scipy.stats.binomtest(k, n).proportion_ci, including one-sided intervals.
    for k, n in [(0, 7), (3, 7), (7, 7), (45, 100), (1, 1000)]:
        ref = stats.binomtest(k, n, alternative=alternative).proportion_ci(
            confidence_level=0.9, method=scipy_method
        )
        r = proportion_ci(k, n, method=method, confidence_level=0.9, alternative=alternative)
        np.testing.assert_allclose(bounds(r), [ref.low, ref.high], atol=1e-9)


def test_mid_p_definition():
    # The mid-p limits solve P(X > k) + P(X = k)/2 = alpha/2 (lower) and
    # P(X < k) + P(X = k)/2 = alpha/2 (upper); checked with scipy's binomial directly.
    k, n = 7, 31
    lo, hi = bounds(proportion_ci(k, n, method="mid_p"))
    assert stats.binom.sf(k, n, lo) + 0.5 * stats.binom.pmf(k, n, lo) == pytest.approx(0.025)
    assert stats.binom.cdf(k - 1, n, hi) + 0.5 * stats.binom.pmf(k, n, hi) == pytest.approx(0.025)


def test_result_object_and_scalars():
    r = proportion_ci(90, 100, metric="accuracy")
    assert isinstance(r, IntervalResult)
    assert isinstance(r.estimate, float)
    assert r.metric == "accuracy"
    assert r.method == "wilson"
    assert "95% CI" in repr(r)
    assert r.to_dict()["details"] == {"k": 90.0, "n": 100.0}
    assert proportion_ci(90, 100, method="wald").standard_error == pytest.approx(0.03)


def test_one_sided_bounds():
    r = proportion_ci(95, 100, alternative="greater")
    assert r.confidence_interval.high == 1.0
    r2 = proportion_ci(95, 100, alternative="less")
    assert r2.confidence_interval.low == 0.0
    two = proportion_ci(95, 100, confidence_level=0.9)
    assert r.confidence_interval.low == pytest.approx(two.confidence_interval.low)
    assert r2.confidence_interval.high == pytest.approx(two.confidence_interval.high)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
    st.sampled_from(PROPORTION_METHODS),
)
def test_properties(kn, method):
    k, n = kn
    r90 = proportion_ci(k, n, method=method, confidence_level=0.9)
    r99 = proportion_ci(k, n, method=method, confidence_level=0.99)
    lo90, hi90 = bounds(r90)
    lo99, hi99 = bounds(r99)
    assert 0.0 <= lo99 <= lo90 + 1e-12
    assert hi90 <= hi99 + 1e-12 <= 1.0 + 1e-12
    if method != "agresti_coull":  # its centre is shifted, so k/n may fall outside
        assert lo90 - 1e-12 <= k / n <= hi90 + 1e-12


@pytest.mark.parametrize("method", PROPORTION_METHODS)
def test_vectorised_equals_loop(method):
    k = np.array([[0, 3, 10], [5, 7, 1]])
    n = np.array([10, 12, 10])
    r = proportion_ci(k, n, method=method)
    assert r.confidence_interval.low.shape == (2, 3)
    for idx in np.ndindex(k.shape):
        s = proportion_ci(int(k[idx]), int(n[idx[1]]), method=method)
        assert r.confidence_interval.low[idx] == pytest.approx(s.confidence_interval.low)
        assert r.confidence_interval.high[idx] == pytest.approx(s.confidence_interval.high)


@pytest.mark.parametrize(
    ("k", "n", "match"),
    [
        (11, 10, "`k` cannot exceed `n`"),
        (-1, 10, "`k` must be non-negative"),
        (1, 0, "`n` must be at least 1"),
        (1.5, 10, "`k` must hold whole numbers"),
        (np.nan, 10, "`k` is missing"),
        ([1, 2], [3, 4, 5], "broadcastable"),
    ],
)
def test_bad_counts(k, n, match):
    with pytest.raises(ValueError, match=match):
        proportion_ci(k, n)


def test_bad_options():
    with pytest.raises(ValueError, match="`method` must be one of"):
        proportion_ci(1, 2, method="exact")
    with pytest.raises(ValueError, match="`method` must be one of"):
        proportion_ci(1, 2, method="lrt")
    for fn, args in ((proportion_ci, (1, 2)), (proportion_diff_ci, (1, 2, 1, 3)),
                     (paired_proportion_diff_ci, ([[1, 2], [3, 4]],))):  # fmt: skip
        with pytest.raises(TypeError, match="`clip` must be True or False"):
            fn(*args, clip="no")
        with pytest.raises(TypeError, match="`clip` must be True or False"):
            fn(*args, clip=None)
    with pytest.raises(ValueError, match="`method` must be one of"):
        paired_proportion_diff_ci([[1, 2], [3, 4]], method="newcombe_adjusted")
    with pytest.raises(ValueError, match="looks like a percentage"):
        proportion_ci(1, 2, confidence_level=95)
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        proportion_ci(1, 2, alternative="both")


# ----------------------------------------------------------------------------------------
# two independent proportions
# ----------------------------------------------------------------------------------------
# Newcombe (1998b), Interval estimation for the difference between independent
# proportions: comparison of eleven methods. Stat Med 17, 873-890, Table II, method 10.
NEWCOMBE_1998B = {
    (56, 70, 48, 80): (0.0524, 0.3339),
    (9, 10, 3, 10): (0.1705, 0.8090),
    (6, 7, 2, 7): (0.0582, 0.8062),
    (5, 56, 0, 29): (-0.0381, 0.1926),
    (0, 10, 0, 20): (-0.1611, 0.2775),
    (10, 10, 0, 20): (0.6791, 1.0000),
}


def test_newcombe_1998b_table():
    for args, expected in NEWCOMBE_1998B.items():
        np.testing.assert_allclose(bounds(proportion_diff_ci(*args)), expected, atol=5e-5)


@pytest.mark.parametrize(("method", "sm_method"), [("newcombe", "newcomb"), ("wald", "wald")])
def test_diff_matches_statsmodels(method, sm_method):
    # Reference: statsmodels.stats.proportion.confint_proportions_2indep(compare="diff").
    rng = np.random.default_rng(3)
    for _ in range(50):
        n1, n2 = rng.integers(5, 300, 2)
        k1, k2 = rng.integers(1, n1), rng.integers(1, n2)
        lo, hi = sm_prop.confint_proportions_2indep(
            k1, n1, k2, n2, method=sm_method, compare="diff", alpha=0.1
        )
        r = proportion_diff_ci(k1, n1, k2, n2, method=method, confidence_level=0.9)
        # our Wald interval is clipped to [-1, 1] (statsmodels' is not) unless clip=False
        np.testing.assert_allclose(bounds(r), np.clip([lo, hi], -1, 1), atol=1e-10)
        u = proportion_diff_ci(k1, n1, k2, n2, method=method, confidence_level=0.9, clip=False)
        np.testing.assert_allclose(bounds(u), [lo, hi], atol=1e-10)


def test_diff_wald_unclipped_overshoots():
    # 9/10 - 1/10: statsmodels' Wald interval (not clipped) reaches above 1
    lo, hi = sm_prop.confint_proportions_2indep(9, 10, 1, 10, method="wald", compare="diff")
    assert hi > 1
    np.testing.assert_allclose(bounds(proportion_diff_ci(9, 10, 1, 10, method="wald",
                                                         clip=False)), [lo, hi])  # fmt: skip
    assert bounds(proportion_diff_ci(9, 10, 1, 10, method="wald"))[1] == 1.0


def test_diff_vectorised_and_one_sided():
    r = proportion_diff_ci([56, 9], [70, 10], [48, 3], [80, 10])
    np.testing.assert_allclose(r.confidence_interval.low, [0.0524, 0.1705], atol=5e-5)
    g = proportion_diff_ci(56, 70, 48, 80, alternative="greater")
    assert g.confidence_interval.high == 1.0
    assert g.confidence_interval.low > 0.0524


def test_diff_bad_input():
    with pytest.raises(ValueError, match="`k2` cannot exceed `n2`"):
        proportion_diff_ci(1, 10, 12, 11)
    with pytest.raises(ValueError, match="`n1` must be at least 1"):
        proportion_diff_ci(0, 0, 1, 2)


# ----------------------------------------------------------------------------------------
# two paired proportions
# ----------------------------------------------------------------------------------------
# Fagerland, Lydersen & Laake (2017), ch. 8, Cavo et al. (2012) data [[59, 6], [16, 80]];
# values printed by the authors' R package `contingencytables` (tests/testthat/test-ch8.R).
CAVO = [[59, 6], [16, 80]]
CAVO_EXPECTED = {
    "wald": (-0.1184, -0.0058),
    "newcombe": (-0.1186, -0.0046),
    "tango": (-0.1240, -0.0054),
}


# Newcombe (1998c), the worked example [[20, 12], [2, 16]] (n = 50): method 10 (adjusted
# phi) 0.0562 to 0.3292, method 8 (plain phi) 0.0618 to 0.3242, as reproduced by the R
# package ratesci (tests/testthat/test3.R, moverpairci(x = c(20, 12, 2, 16), type =
# "wilson", corc = TRUE / FALSE), "against Newcombe's method 10 / method 8 result").
# Fagerland, Lydersen & Laake (2014), Stat Med 33:2850, Bentur et al. data
# [[1, 1], [7, 12]]: Newcombe square-and-add (method 10) -0.507 to -0.026 (ratesci test3.R).
NEWCOMBE_1998C = {
    ("newcombe", ((20, 12), (2, 16))): ((0.0562, 0.3292), 5e-5),
    ("newcombe_unadjusted", ((20, 12), (2, 16))): ((0.0618, 0.3242), 5e-5),
    ("newcombe", ((1, 1), (7, 12))): ((-0.507, -0.026), 5e-4),
}


@pytest.mark.parametrize(("method", "table"), list(NEWCOMBE_1998C))
def test_paired_newcombe_published(method, table):
    expected, atol = NEWCOMBE_1998C[method, table]
    np.testing.assert_allclose(bounds(paired_proportion_diff_ci(table, method=method)),
                               expected, atol=atol)  # fmt: skip


def test_paired_newcombe_unadjusted_is_mover_with_pearson_phi():
    # Independent recomputation of method 8: the phi coefficient is the Pearson
    # correlation of the two per-sample 0/1 vectors (numpy.corrcoef on the expanded
    # table), the Wilson limits come from statsmodels, combined by square-and-add with
    # the correlation term (Newcombe 1998c, method 8).  The adjusted method 10
    # equals it when n11 n22 <= n12 n21 (no adjustment) and is wider otherwise.
    rng = np.random.default_rng(11)
    for _ in range(40):
        t = rng.integers(0, 15, (2, 2))
        t[0, 0] += 1
        t[1, 1] += 1
        n = t.sum()
        a = np.repeat([1, 1, 0, 0], t.ravel())
        b = np.repeat([1, 0, 1, 0], t.ravel())
        phi = 0.0 if a.std() == 0 or b.std() == 0 else np.corrcoef(a, b)[0, 1]
        p1, p2 = a.mean(), b.mean()
        l1, u1 = sm_prop.proportion_confint(a.sum(), n, method="wilson")
        l2, u2 = sm_prop.proportion_confint(b.sum(), n, method="wilson")
        low = p1 - p2 - np.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
        high = p1 - p2 + np.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
        r = paired_proportion_diff_ci(t, method="newcombe_unadjusted")
        np.testing.assert_allclose(bounds(r), [low, high], atol=1e-10)
        adj = bounds(paired_proportion_diff_ci(t, method="newcombe"))
        if t[0, 0] * t[1, 1] <= t[0, 1] * t[1, 0]:
            np.testing.assert_allclose(adj, [low, high], atol=1e-12)
        else:
            assert adj[0] <= low + 1e-12 and adj[1] >= high - 1e-12


def test_paired_wald_unclipped():
    # [[0, 9], [0, 1]]: d = 0.9, SE = sqrt(9 - 8.1)/10, d + z SE = 1.086 > 1
    se = np.sqrt(9 - 81 / 10) / 10
    z = stats.norm.ppf(0.975)
    u = paired_proportion_diff_ci([[0, 9], [0, 1]], method="wald", clip=False)
    np.testing.assert_allclose(bounds(u), [0.9 - z * se, 0.9 + z * se])
    c = paired_proportion_diff_ci([[0, 9], [0, 1]], method="wald")
    np.testing.assert_allclose(bounds(c), [0.9 - z * se, 1.0])


@pytest.mark.parametrize("method", list(CAVO_EXPECTED))
def test_paired_cavo(method):
    r = paired_proportion_diff_ci(CAVO, method=method)
    assert r.estimate == pytest.approx(-10 / 161)
    np.testing.assert_allclose(bounds(r), CAVO_EXPECTED[method], atol=5e-5)


def test_tango_is_score_inversion():
    # At the Tango limits the score statistic equals ±z (Tango 1998, eq. 3): recompute it
    # from the constrained MLE by a direct numerical maximisation (independent of the
    # closed form used in the module).
    from scipy.optimize import minimize_scalar

    n11, n12, n21, n22 = 30, 9, 3, 8
    n = n11 + n12 + n21 + n22
    r = paired_proportion_diff_ci([[n11, n12], [n21, n22]], method="tango")
    z = stats.norm.ppf(0.975)
    for delta, sign in ((r.confidence_interval.low, 1), (r.confidence_interval.high, -1)):

        def negloglik(q21, delta=delta):
            q12 = q21 + delta
            return -(n12 * np.log(q12) + n21 * np.log(q21) + (n11 + n22) * np.log(1 - q12 - q21))

        lo = max(0.0, -delta) + 1e-12
        hi = (1 - delta) / 2 - 1e-12
        q21 = minimize_scalar(negloglik, bounds=(lo, hi), method="bounded",
                              options={"xatol": 1e-12}).x  # fmt: skip
        t = (n12 - n21 - n * delta) / np.sqrt(n * (2 * q21 + delta * (1 - delta)))
        assert t == pytest.approx(sign * z, abs=1e-4)


@pytest.mark.parametrize("method", ["wald", "newcombe", "newcombe_unadjusted", "tango"])
def test_paired_edge_tables(method):
    for table in ([[10, 0], [0, 5]], [[0, 7], [0, 0]], [[0, 0], [7, 0]], [[3, 4], [0, 0]]):
        r = paired_proportion_diff_ci(table, method=method)
        lo, hi = bounds(r)
        assert -1.0 <= lo <= r.estimate + 1e-12
        assert r.estimate - 1e-12 <= hi <= 1.0


def test_paired_table_from_correctness():
    y = np.array([0, 1, 1, 0, 1, 1])
    a = np.array([0, 1, 0, 0, 1, 0])
    b = np.array([1, 1, 1, 0, 0, 0])
    t = paired_table(a == y, b == y)
    np.testing.assert_array_equal(t, [[2, 2], [1, 1]])
    r = paired_proportion_diff_ci(t)
    assert r.estimate == pytest.approx((a == y).mean() - (b == y).mean())


def test_paired_bad_input():
    with pytest.raises(ValueError, match=r"`table` must be a 2×2 table"):
        paired_proportion_diff_ci([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError, match="`table` must be non-negative"):
        paired_proportion_diff_ci([[1, -2], [3, 4]])
    with pytest.raises(ValueError, match="`table` is all zeros"):
        paired_proportion_diff_ci([[0, 0], [0, 0]])
    with pytest.raises(ValueError, match="`correct_a` must be boolean"):
        paired_table([0, 2, 1], [1, 1, 0])
    with pytest.raises(ValueError, match="`correct_b` has 2 samples but `correct_a` has 3"):
        paired_table([0, 1, 1], [1, 1])


# ----------------------------------------------------------------------------------------
# issue 8: the input gate
# ----------------------------------------------------------------------------------------
def test_paired_table_missing_values():
    # Before: None in an object array reached np.unique (a numpy TypeError).
    a = np.array([True, False, None, True, True], dtype=object)
    b = [True, True, False, False, True]
    with pytest.raises(ValueError, match=r"`correct_a` has 1 missing value.*row 2.*dropna"):
        paired_table(a, b)
    t = paired_table(a, b, dropna=True)
    np.testing.assert_array_equal(t, paired_table([1, 0, 1, 1], [1, 1, 0, 1]))
    assert t.sum() == 4  # one sample dropped


def test_paired_table_from_pandas_and_polars():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    ref = paired_table([1, 0, 1, 1], [1, 1, 0, 1])
    np.testing.assert_array_equal(
        paired_table(pd.Series([True, False, True, True]), pl.Series([True, True, False, True])),
        ref,
    )
    df = pd.DataFrame({"a": [1, 0, 1, 1], "b": [1, 1, 0, 1]})
    np.testing.assert_array_equal(paired_table("a", "b", data=df), ref)
    with pytest.raises(ValueError, match="`correct_a` must be boolean"):
        paired_table(["yes", "no"], [True, False])


def test_counts_from_any_library_and_missing():
    pd = pytest.importorskip("pandas")
    r = proportion_ci(pd.Series([8, 3]), pd.Series([10, 10]))
    np.testing.assert_allclose(r.estimate, [0.8, 0.3])
    with pytest.raises(ValueError, match=r"`k` has 1 missing value.*row 1.*counts"):
        proportion_ci(pd.Series([8, pd.NA], dtype="Int64"), 10)
    with pytest.raises(ValueError, match="`n2` is missing"):
        proportion_diff_ci(1, 10, 2, np.nan)
    with pytest.raises(ValueError, match="`n2` is required"):
        proportion_diff_ci(1, 10, 2, None)
    with pytest.raises(TypeError, match="`k` must hold numbers"):
        proportion_ci(["8"], 10)
    with pytest.raises(TypeError, match="`metric` must be a name"):
        proportion_ci(8, 10, metric=1)
    with pytest.raises(ValueError, match="`table` has 1 missing value"):
        paired_proportion_diff_ci([[5, None], [2, 10]])


@pytest.mark.slow
def test_paired_newcombe_exact_coverage():
    # Exact coverage (no simulation): every 2x2 table of n = 20 pairs, weighted by its
    # multinomial probability, at 200 random cell probabilities (Dirichlet(1,1,1,1)).
    # Both square-and-add intervals hold 0.95 on average; Newcombe's adjustment of phi
    # (method 10) is what keeps the worst points near nominal (about 0.93 here), while
    # the plain phi (method 8) drops to about 0.88: why method 10 is the default.
    n = 20
    tables = np.array(
        [(a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n + 1 - a)
         for c in range(n + 1 - a - b)]
    )  # fmt: skip
    probs = np.random.default_rng(0).dirichlet([1, 1, 1, 1], 200)
    pmf = np.array([stats.multinomial.pmf(tables, n, p) for p in probs])
    delta = probs[:, 1] - probs[:, 2]
    cov = {}
    for method in ("newcombe", "newcombe_unadjusted"):
        ci = np.array([bounds(paired_proportion_diff_ci(t.reshape(2, 2), method=method))
                       for t in tables])  # fmt: skip
        held = (ci[:, 0] <= delta[:, None]) & (delta[:, None] <= ci[:, 1])
        cov[method] = (pmf * held).sum(axis=1)
    assert abs(cov["newcombe"].mean() - 0.95) < 0.01
    assert abs(cov["newcombe_unadjusted"].mean() - 0.95) < 0.015
    assert cov["newcombe"].min() > 0.92
    assert cov["newcombe"].min() > cov["newcombe_unadjusted"].min() + 0.03


@pytest.mark.parametrize("table", [[[5, 0], [4, 40]], [[5, 1], [16, 0]], [[20, 13], [2, 10]]])
def test_tango_one_sided_50_percent_is_the_estimate(table):
    # a one-sided 50% bound is where Tango's statistic is 0: the estimate (n12 - n21) / n.
    # Before, rounding of the statistic at the estimate left brentq's bracket without a
    # sign change ("f(a) and f(b) must have different signs"; found by the hypothesis test
    # of tests/comparison/test_paired_reread.py with a random seed)
    t = np.array(table)
    d = (t[0, 1] - t[1, 0]) / t.sum()
    less = paired_proportion_diff_ci(t, method="tango", confidence_level=0.5, alternative="less")
    greater = paired_proportion_diff_ci(
        t, method="tango", confidence_level=0.5, alternative="greater"
    )
    assert less.confidence_interval.low == -1.0 and less.confidence_interval.high == d
    assert greater.confidence_interval.low == d and greater.confidence_interval.high == 1.0
    # and it is the limit of the bounds just above 50%
    near = paired_proportion_diff_ci(t, method="tango", confidence_level=0.5001, alternative="less")
    assert near.confidence_interval.high == pytest.approx(d, abs=1e-3)
