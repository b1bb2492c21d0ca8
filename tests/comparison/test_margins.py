"""Non-inferiority and equivalence (TOST): compare(margin=), paired_margin_test,
mcnemar_margin_test.

References: statsmodels ``ttost_paired`` (paired means, the same TOST), scipy's
``binomtest`` (exact conditional McNemar), a numerical restricted maximum-likelihood fit
(scipy.optimize) for the Tango/Nam score statistic.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from scipy import optimize, stats
from statsmodels.stats.weightstats import DescrStatsW, ttost_paired

import mlci
from mlci.comparison.equivalence import tango_statistic
from mlci.comparison.margins import shifted_pvalues

SLOW_SCALE = float(os.environ["MLCI_SLOW_SCALE"])


def _paired(seed: int, n: int = 40, shift: float = 0.01):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.6, 0.2, n)
    return x, x + rng.normal(shift, 0.05, n)


# --------------------------------------------------------------------------- paired t
@pytest.mark.parametrize("seed, margin", [(0, 0.03), (1, 0.01), (2, 0.05), (3, 0.2)])
def test_paired_margin_test_equals_statsmodels_ttost_paired(seed, margin):
    x, y = _paired(seed, n=12 + seed)
    r = mlci.paired_margin_test(x, y, margin=margin)
    p, lower, upper = ttost_paired(x, y, -margin, margin)  # statsmodels 0.15
    assert r.pvalue_lower == pytest.approx(lower[1], abs=1e-10)
    assert r.pvalue_upper == pytest.approx(upper[1], abs=1e-10)
    assert r.pvalue_equivalence == pytest.approx(p, abs=1e-10)
    assert r.pvalue_noninferiority == pytest.approx(lower[1], abs=1e-10)
    lo, hi = DescrStatsW(x - y).tconfint_mean(alpha=0.10)  # TOST's 1 - 2 alpha interval
    assert r.interval.low == pytest.approx(lo, abs=1e-12)
    assert r.interval.high == pytest.approx(hi, abs=1e-12)
    # the decision is the interval's: equivalent <=> the 90% interval inside the margins
    assert r.equivalent == (-margin < lo and hi < margin)


def test_paired_margin_test_lower_is_better_and_reversal():
    x, y = _paired(4)
    hi = mlci.paired_margin_test(x, y, margin=0.02)
    lo = mlci.paired_margin_test(x, y, margin=0.02, higher_is_better=False)
    assert lo.pvalue_noninferiority == hi.pvalue_upper
    assert lo.pvalue_equivalence == hi.pvalue_equivalence
    assert "H0: a - b >= 0.02" in lo.hypotheses["noninferiority"]
    rev = hi.reversed()
    back = mlci.paired_margin_test(y, x, margin=0.02)
    assert rev.pvalue_lower == pytest.approx(back.pvalue_lower, abs=1e-14)
    assert rev.interval.low == pytest.approx(back.interval.low, abs=1e-14)
    assert "non-inferiority" in str(hi) and "MarginTest(" in repr(hi)
    assert hi.to_frame().loc[0, "margin"] == 0.02


def test_paired_margin_test_constant_differences():
    r = mlci.paired_margin_test([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], margin=0.1)
    assert (r.pvalue_lower, r.pvalue_upper, r.equivalent) == (0.0, 0.0, True)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"margin": -0.1}, ValueError, "positive"),
        ({"margin": 0.0}, ValueError, "positive"),
        ({"margin": float("nan")}, ValueError, "positive"),
        ({"margin": "0.1"}, TypeError, "margin"),
        ({"margin": True}, TypeError, "margin"),
        ({"margin": 0.1, "confidence_level": 0.4}, ValueError, "exceed 0.5"),
        ({"margin": 0.1, "confidence_level": 1.5}, ValueError, "confidence_level"),
        ({"margin": 0.1, "higher_is_better": "yes"}, TypeError, "higher_is_better"),
    ],
)
def test_paired_margin_test_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        mlci.paired_margin_test([0.1, 0.2, 0.3], [0.1, 0.25, 0.3], **kwargs)


def test_paired_margin_test_bad_scores():
    with pytest.raises(ValueError, match="same length"):
        mlci.paired_margin_test([0.1, 0.2], [0.1, 0.2, 0.3], margin=0.1)
    with pytest.raises(ValueError, match="at least 2"):
        mlci.paired_margin_test([0.1], [0.2], margin=0.1)
    with pytest.raises(ValueError, match="missing"):
        mlci.paired_margin_test([0.1, np.nan], [0.2, 0.3], margin=0.1)
    with pytest.raises(ValueError, match="1-d"):
        mlci.paired_margin_test([[0.1, 0.2]], [[0.2, 0.3]], margin=0.1)
    with pytest.raises(TypeError, match="numbers"):
        mlci.paired_margin_test(["a", "b"], [0.2, 0.3], margin=0.1)


# --------------------------------------------------------------------------- McNemar
TABLES = [[[420, 18], [22, 40]], [[59, 6], [16, 80]], [[30, 9], [2, 9]], [[100, 0], [3, 7]]]


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("margin", [0.02, 0.05, 0.1])
def test_mcnemar_margin_exact_equals_binomtest(table, margin):
    r = mlci.mcnemar_margin_test(table, margin=margin, variant="exact")
    (_, b), (c, _) = table
    n, m = np.sum(table), b + c
    pi_lo = max((1 - margin * n / m) / 2, 0.0)
    pi_hi = min((1 + margin * n / m) / 2, 1.0)
    # scipy.stats.binomtest: exact binomial on the discordant pairs
    ref_lo = stats.binomtest(b, m, pi_lo, alternative="greater").pvalue if pi_lo > 0 else 0.0
    ref_hi = stats.binomtest(b, m, pi_hi, alternative="less").pvalue if pi_hi < 1 else 0.0
    if b == 0 and pi_lo == 0:
        ref_lo = 1.0
    assert r.pvalue_lower == pytest.approx(ref_lo, abs=1e-12)
    assert r.pvalue_upper == pytest.approx(ref_hi, abs=1e-12)
    assert r.pvalue_equivalence == pytest.approx(max(ref_lo, ref_hi), abs=1e-12)


def _score_reference(b, c, n, d0):
    """The score statistic from a numerical restricted MLE (independent of the closed
    form): maximise the multinomial likelihood with p12 = p21 + d0."""
    n11_22 = n - b - c

    def nll(p21):
        p12 = p21 + d0
        rest = 1 - p12 - p21
        return -(b * np.log(p12) + c * np.log(p21) + n11_22 * np.log(rest))

    lo = max(0.0, -d0) + 1e-12
    hi = (1 - d0) / 2 - 1e-12
    p21 = optimize.minimize_scalar(nll, bounds=(lo, hi), method="bounded",
                                   options={"xatol": 1e-14}).x  # fmt: skip
    var = (2 * p21 + d0 - d0**2) / n
    return ((b - c) / n - d0) / np.sqrt(var)


@pytest.mark.parametrize("table", TABLES[:3])
@pytest.mark.parametrize("d0", [-0.1, -0.03, 0.0, 0.04])
def test_tango_statistic_equals_numerical_restricted_mle(table, d0):
    (_, b), (c, _) = table
    n = float(np.sum(table))
    assert tango_statistic(b, c, n, d0) == pytest.approx(_score_reference(b, c, n, d0), abs=1e-5)


def test_tango_at_zero_is_mcnemar_and_interval_inverts_the_test():
    table = [[59, 6], [16, 80]]
    r0 = mlci.mcnemar_test(table, variant="asymptotic", alternative="greater")
    assert tango_statistic(6, 16, 161, 0.0) == pytest.approx(r0.statistic, abs=1e-12)
    r = mlci.mcnemar_margin_test(table, margin=0.1)
    z = stats.norm.ppf(0.95)
    # the interval is mlci.paired_proportion_diff_ci(method="tango") at 90%, an
    # independent root finding: our closed-form statistic is +-z at its ends
    ref = mlci.paired_proportion_diff_ci(table, method="tango", confidence_level=0.9)
    assert tuple(r.interval) == tuple(ref.confidence_interval)
    assert tango_statistic(6, 16, 161, r.interval.low) == pytest.approx(z, abs=1e-8)
    assert tango_statistic(6, 16, 161, r.interval.high) == pytest.approx(-z, abs=1e-8)
    # score p-values: one-sided normal tail of the statistic at -margin and +margin
    assert r.pvalue_lower == pytest.approx(stats.norm.sf(tango_statistic(6, 16, 161, -0.1)))
    assert r.pvalue_upper == pytest.approx(stats.norm.cdf(tango_statistic(6, 16, 161, 0.1)))
    # the decision agrees with the interval (the score test inverted)
    assert r.noninferior == (r.interval.low > -0.1)


def test_mcnemar_margin_from_predictions_equals_table():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 300)
    a = np.where(rng.random(300) < 0.8, y, (y + 1) % 3)
    b = np.where(rng.random(300) < 0.78, y, (y + 2) % 3)
    t = mlci.paired_table(a == y, b == y)
    r1 = mlci.mcnemar_margin_test(y_true=y, y_pred_a=a, y_pred_b=b, margin=0.05)
    r2 = mlci.mcnemar_margin_test(t, margin=0.05)
    assert r1.rows() == r2.rows()


def test_mcnemar_margin_no_discordant_pair():
    r = mlci.mcnemar_margin_test([[50, 0], [0, 50]], margin=0.05, variant="exact")
    assert r.pvalue_lower == r.pvalue_upper == 1.0
    s = mlci.mcnemar_margin_test([[50, 0], [0, 50]], margin=0.05)
    assert s.estimate == 0.0 and s.interval.low < 0 < s.interval.high


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        ([[[1, 2], [3, 4]]], {"margin": 1.2}, ValueError, "widest"),
        ([[[1, 2], [3, 4]]], {"margin": 0.1, "variant": "mid-p"}, ValueError, "variant"),
        ([[[1, 2, 3]]], {"margin": 0.1}, ValueError, "2×2"),
        ([[[1, -2], [3, 4]]], {"margin": 0.1}, ValueError, "non-negative"),
        ([[[1.5, 2], [3, 4]]], {"margin": 0.1}, ValueError, "whole"),
        ([[[0, 0], [0, 0]]], {"margin": 0.1}, ValueError, "all zeros"),
        ([], {"margin": 0.1, "y_true": [1, 0]}, ValueError, "all of"),
        ([[[1, 2], [3, 4]]], {"margin": 0.1, "y_true": [1]}, ValueError, "not both"),
        (
            [],
            {"margin": 0.1, "y_true": [1, 0], "y_pred_a": [1], "y_pred_b": [1, 0]},
            ValueError,
            "has 1 samples",
        ),
        ([[[1, 2], [3, 4]]], {"margin": 0.1, "confidence_level": 0.5}, ValueError, "0.5"),
    ],
)
def test_mcnemar_margin_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        mlci.mcnemar_margin_test(*args, **kwargs)


# --------------------------------------------------------------------------- compare
def test_compare_margin_on_paired_means_equals_ttost_paired():
    for seed, margin in [(0, 0.03), (5, 0.01), (6, 0.1)]:
        x, y = _paired(seed, n=60)
        r = mlci.compare(None, {"A": x, "B": y}, metric="mean", rng=0, margin=margin)
        m = r.differences[0].margin_test
        p, lower, upper = ttost_paired(x, y, -margin, margin)  # statsmodels 0.15
        assert r.differences[0].method == "t"
        # 1e-9: the engine's linearized standard error of a mean comes from a numerical
        # gradient (relative error ~1e-10; compare's own "no difference" p-value is off
        # by as much); paired_margin_test above meets 1e-10
        assert m.pvalue_lower == pytest.approx(lower[1], abs=1e-9)
        assert m.pvalue_upper == pytest.approx(upper[1], abs=1e-9)
        assert m.pvalue_equivalence == pytest.approx(p, abs=1e-9)
        lo, hi = DescrStatsW(x - y).tconfint_mean(alpha=0.10)
        assert m.interval.low == pytest.approx(lo, abs=1e-10)
        assert m.interval.high == pytest.approx(hi, abs=1e-10)


def test_compare_without_margin_unchanged():
    x, y = _paired(0, n=60)
    r = mlci.compare(None, {"A": x, "B": y}, metric="mean", rng=0)
    assert r.differences[0].margin_test is None
    assert "margin_low" not in r.to_frame().columns


def _systems(seed=0, n=400, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    acc = [0.85, 0.84, 0.80, 0.86][:k]
    return y, {f"S{i}": np.where(rng.random(n) < a, y, 1 - y) for i, a in enumerate(acc)}


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "none"])
def test_compare_margin_many_systems_correction(correction):
    y, systems = _systems()
    r = mlci.compare(y, systems, metric="accuracy", rng=0, margin=0.05, correction=correction)
    mts = [d.margin_test for d in r.differences]
    p_ni = np.array([m.pvalue_noninferiority for m in mts])
    p_eq = np.array([m.pvalue_equivalence for m in mts])
    adj = mlci.adjust_pvalues(p_ni, correction=correction)
    assert np.allclose([m.pvalue_noninferiority_adjusted for m in mts], adj, atol=0)
    assert np.allclose(
        [m.pvalue_equivalence_adjusted for m in mts],
        mlci.adjust_pvalues(p_eq, correction=correction),
        atol=0,
    )
    for d, m in zip(r.differences, mts, strict=True):
        assert (m.a, m.b) == (d.a, d.b) and m.estimate == d.estimate
        assert m.noninferior == (m.pvalue_noninferiority_adjusted < 0.05)
        # t method: the one-sided tests are the 90% interval's ends against the margin
        lo, hi = m.interval
        assert (m.pvalue_lower < 0.05) == (lo > -0.05)
        assert (m.pvalue_upper < 0.05) == (hi < 0.05)
    frame = r.to_frame()
    assert {"margin_pvalue_equivalence", "margin_equivalent", "margin_low"} <= set(frame)
    assert "equivalence" in str(r)


def test_compare_margin_maxt_and_reversal():
    y, systems = _systems(1, k=4)
    r = mlci.compare(y, systems, metric="accuracy", rng=0, margin=0.05, correction="maxt")
    for d in r.differences:
        m = d.margin_test
        assert m.pvalue_noninferiority_adjusted >= m.pvalue_noninferiority
        assert m.pvalue_equivalence_adjusted >= m.pvalue_equivalence
        assert m.pvalue_equivalence_adjusted <= 1.0
    d = r.difference("S1", "S0")
    base = r.difference("S0", "S1")
    assert d.margin_test.estimate == -base.margin_test.estimate
    assert d.margin_test.pvalue_lower == base.margin_test.pvalue_upper
    assert d.margin_test.interval.low == -base.margin_test.interval.high


@pytest.mark.parametrize("method", ["percentile", "bca", "studentized"])
def test_compare_margin_bootstrap_methods(method):
    y, systems = _systems(2, k=2)
    r = mlci.compare(y, systems, metric="accuracy", rng=0, margin=0.06, method=method,
                     n_resamples=400)  # fmt: skip
    m = r.differences[0].margin_test
    assert r.differences[0].method == method and m.details["interval_method"] == method
    d = r.differences[0]
    assert m.pvalue_equivalence == max(m.pvalue_lower, m.pvalue_upper)
    # the 90% interval lies inside the 95% interval of the same method
    assert d.confidence_interval.low <= m.interval.low <= m.interval.high
    assert m.interval.high <= d.confidence_interval.high
    if method == "percentile":  # the shifted bootstrap p-value, by hand
        assert "shifted" in m.method


def test_compare_margin_with_conditions_and_strata_lower_is_better():
    rng = np.random.default_rng(7)
    n = 600
    cond = rng.integers(0, 30, n)
    strata = cond % 2
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.85, y, 1 - y)
    b = np.where(rng.random(n) < 0.84, y, 1 - y)
    r = mlci.compare(y, {"A": a, "B": b}, metric="error_rate", conditions=cond, strata=strata,
                     rng=0, margin=0.05)  # fmt: skip
    m = r.differences[0].margin_test
    assert r.n_conditions == 30 and not m.higher_is_better
    assert m.pvalue_noninferiority == m.pvalue_upper  # H0: error(A) - error(B) >= 0.05
    assert "H0: A - B >= 0.05" in m.hypotheses["noninferiority"]


def test_shifted_pvalues_at_a_null():
    dist = np.array([[0.0], [0.1], [0.2], [0.3]])
    d = np.array([0.15])
    # H1: d > -0.1: count d* - d >= d + 0.1 = 0.25: none -> 1 / 5
    assert shifted_pvalues(d, dist, "greater", -0.1)[0] == pytest.approx(0.2)
    assert shifted_pvalues(d, dist, "greater")[0] == pytest.approx(0.4)  # d* - d >= 0.15: 1
    assert shifted_pvalues(d, dist, "less", 0.3)[0] == pytest.approx(0.4)


@pytest.mark.parametrize(
    "margin, error, match",
    [
        (-0.1, ValueError, "positive"),
        (2.0, ValueError, "widest"),
        ("a", TypeError, "margin"),
        (float("inf"), ValueError, "positive"),
    ],
)
def test_compare_margin_bad_input(margin, error, match):
    y, systems = _systems(k=2)
    with pytest.raises(error, match=match):
        mlci.compare(y, systems, metric="accuracy", rng=0, margin=margin, n_resamples=50)


# --------------------------------------------------------------------------- simulation
def _clustered(rng, margin, n_cond=40, per=25):
    """Two systems with a known accuracy difference ``margin`` (A better), conditions."""
    p_b = rng.uniform(0.6, 0.85, n_cond)
    p_a = p_b + margin
    cond = np.repeat(np.arange(n_cond), per)
    u = rng.random(cond.size)
    shared = rng.random(cond.size) < 0.5  # half the samples: the same draw for both
    v = np.where(shared, u, rng.random(cond.size))
    correct_a = u < p_a[cond]
    correct_b = v < p_b[cond]
    return cond, correct_a.astype(int), correct_b.astype(int)


def tost_simulation(reps: int, seed: int = 0, margin: float = 0.05) -> dict[str, float]:
    """At the margin (true difference A - B = margin): how often the 90% TOST interval's
    upper end covers the truth, the two-sided 90% coverage, and the rejection rate of
    equivalence (its size)."""
    rng = np.random.default_rng(seed)
    upper_cover = two_sided = reject = 0
    for r in range(reps):
        cond, ca, cb = _clustered(rng, margin)
        ones = np.ones_like(ca)
        res = mlci.compare(ones, {"A": ca, "B": cb}, metric="accuracy", conditions=cond,
                           rng=r, margin=margin, n_resamples=200)  # fmt: skip
        m = res.differences[0].margin_test
        upper_cover += m.interval.high >= margin
        two_sided += m.interval.low <= margin <= m.interval.high
        reject += m.equivalent
    return {
        "upper_coverage": upper_cover / reps,
        "coverage_90": two_sided / reps,
        "size": reject / reps,
    }


@pytest.mark.slow
def test_tost_coverage_and_size_with_conditions():
    reps = max(100, int(2000 * SLOW_SCALE))
    out = tost_simulation(reps)
    se_cov = np.sqrt(0.95 * 0.05 / reps)
    se_size = np.sqrt(0.05 * 0.95 / reps)
    # targets: one-sided coverage 0.95 +- 0.015, size 0.05 +- 0.01 (at reps = 2000);
    # with fewer repetitions the tolerance is 3 Monte Carlo standard errors
    assert abs(out["upper_coverage"] - 0.95) <= max(0.015, 3 * se_cov), out
    assert abs(out["size"] - 0.05) <= max(0.01, 3 * se_size), out
