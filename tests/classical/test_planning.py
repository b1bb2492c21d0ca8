"""Sample size and power, checked against statsmodels, the formulas' sources and simulation."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from scipy import stats

from mlci.classical.auc import delong_test, delong_test_independent, hanley_mcneil_se
from mlci.classical.planning import (
    PlanResult,
    power_auc,
    power_auc_difference,
    power_mcnemar,
    sample_size_auc,
    sample_size_auc_difference,
    sample_size_mcnemar,
    sample_size_proportion,
)
from mlci.classical.proportions import proportion_ci

SCALE = float(os.environ["MLCI_SLOW_SCALE"])

sm_prop = pytest.importorskip("statsmodels.stats.proportion")


@pytest.mark.parametrize("p", [0.5, 0.8, 0.9, 0.97])
@pytest.mark.parametrize("half", [0.01, 0.02, 0.05])
def test_wald_matches_statsmodels(p, half):
    # Reference: statsmodels.stats.proportion.samplesize_confint_proportion (normal method),
    # which returns the unrounded n; we round up.
    ref = sm_prop.samplesize_confint_proportion(p, half, alpha=0.05, method="normal")
    r = sample_size_proportion(2 * half, expected=p, method="wald")
    assert r.n_samples == math.ceil(ref - 1e-9)


def test_wald_textbook_385():
    # The classic survey figure: ±5 points at 95% for p = 0.5 needs 385 samples
    # (1.96² · 0.25 / 0.05² = 384.1).
    r = sample_size_proportion(0.1, expected=0.5, method="wald")
    assert r.n_samples == 385
    assert isinstance(r, PlanResult)
    assert "independent" in r.assumptions


@pytest.mark.parametrize("p", [0.0, 0.5, 0.9, 0.99])
@pytest.mark.parametrize("width", [0.02, 0.05, 0.1])
def test_wilson_is_smallest_n(p, width):
    # Checked with proportion_ci itself (Wilson bounds from scipy-verified code): the
    # interval at k = p·n has width <= target at n and > target at n - 1.
    r = sample_size_proportion(width, expected=p, method="wilson")
    n = r.n_samples

    def wilson_width(n):
        z = stats.norm.ppf(0.975)
        c = 1 + z * z / n
        return 2 * z / c * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))

    assert wilson_width(n) <= width < wilson_width(n - 1)
    if p in (0.5,) and n * p == int(n * p):
        ci = proportion_ci(int(n * p), n, method="wilson").confidence_interval
        assert ci.high - ci.low == pytest.approx(wilson_width(n))


def test_connor_formula_by_hand():
    # Connor (1987), Biometrics 43, p. 209: n = (z_{a/2} sqrt(psi) + z_b sqrt(psi - d²))² / d².
    d, psi = 0.05, 0.15
    za, zb = stats.norm.ppf(0.975), stats.norm.ppf(0.8)
    n = (za * math.sqrt(psi) + zb * math.sqrt(psi - d * d)) ** 2 / d**2
    r = sample_size_mcnemar(d, psi, power=0.8)
    assert r.n_samples == math.ceil(n)
    assert r.power >= 0.8
    assert power_mcnemar(r.n_samples - 1, d, psi).power < 0.8
    one = sample_size_mcnemar(d, psi, alternative="greater")
    assert one.n_samples < r.n_samples


def test_mcnemar_power_by_simulation():
    # Independent check: simulate test sets of size n with discordant probabilities
    # p10 = 0.09, p01 = 0.05 and run the asymptotic McNemar test (scipy chi2).
    d, psi = 0.04, 0.14
    r = sample_size_mcnemar(d, psi, power=0.8)
    rng = np.random.default_rng(0)
    n_sim = 4000
    cells = rng.multinomial(r.n_samples, [(psi + d) / 2, (psi - d) / 2, 1 - psi], size=n_sim)
    b, c = cells[:, 0], cells[:, 1]
    chi2 = (b - c) ** 2 / (b + c)
    rejected = stats.chi2.sf(chi2, 1) < 0.05
    assert rejected.mean() == pytest.approx(0.8, abs=0.03)


def test_auc_hanley_mcneil_exponential_simulation():
    # Hanley & McNeil's (1982) variance is exact for exponential scores: negatives ~ Exp(1),
    # positives ~ Exp(rate l) give AUC = P(pos > neg) = 1/(1 + l).  Simulate the planned
    # study and compare the spread of the empirical AUC with the target width.
    auc = 0.8
    r = sample_size_auc(auc, width=0.1, ratio=2.0)
    m, n = r.details["n_positive"], r.details["n_negative"]
    assert n == 2 * m
    rng = np.random.default_rng(1)
    lam = 1 / auc - 1
    pos = rng.exponential(1 / lam, (2000, m))
    neg = rng.exponential(1.0, (2000, n))
    ranks = stats.rankdata(np.hstack([pos, neg]), axis=1)
    aucs = (ranks[:, :m].sum(axis=1) - m * (m + 1) / 2) / (m * n)
    sd = aucs.std(ddof=1)
    assert 2 * stats.norm.ppf(0.975) * sd == pytest.approx(0.1, rel=0.06)


def test_auc_test_planning():
    # Power check against the Hanley–McNeil z-test, computed by hand at the planned sizes.
    from mlci.classical.auc import hanley_mcneil_se

    r = sample_size_auc(0.75, auc_null=0.65, power=0.9, alpha=0.05, alternative="greater")
    m, n = r.details["n_positive"], r.details["n_negative"]
    za, zb = stats.norm.ppf(0.95), stats.norm.ppf(0.9)
    assert za * hanley_mcneil_se(0.65, m, n) + zb * hanley_mcneil_se(0.75, m, n) <= 0.1
    assert (
        za * hanley_mcneil_se(0.65, m - 1, n - 1) + zb * hanley_mcneil_se(0.75, m - 1, n - 1) > 0.1
    )
    assert r.n_samples == m + n
    assert "0.65" in r.assumptions


def test_bad_input():
    with pytest.raises(ValueError, match=r"`width` must lie in \(0, 1\)"):
        sample_size_proportion(0)
    with pytest.raises(ValueError, match=r"`expected` must lie in \[0, 1\]"):
        sample_size_proportion(0.1, expected=1.2)
    with pytest.raises(ValueError, match="zero width"):
        sample_size_proportion(0.1, expected=1.0, method="wald")
    with pytest.raises(ValueError, match=r"`discordance` .* must be at least"):
        sample_size_mcnemar(0.1, 0.05)
    with pytest.raises(ValueError, match=r"`difference` .* must be non-zero"):
        sample_size_mcnemar(0.0, 0.05)
    with pytest.raises(ValueError, match=r"`power` must lie in \(0, 1\)"):
        sample_size_mcnemar(0.05, 0.2, power=80)
    with pytest.raises(TypeError, match="`n_samples` must be an integer"):
        power_mcnemar(100.5, 0.05, 0.2)
    with pytest.raises(ValueError, match="exactly one of `width`"):
        sample_size_auc(0.8)
    with pytest.raises(ValueError, match="`ratio`"):
        sample_size_auc(0.8, width=0.1, ratio=0)
    with pytest.raises(ValueError, match="`auc_null` must differ"):
        sample_size_auc(0.8, auc_null=0.8)


# ----------------------------------------------------------------------------------------
# power of an AUC study; two AUCs
# ----------------------------------------------------------------------------------------
def _mc_tol(p, n_sim, extra=0.0):
    """4 Monte Carlo standard errors of a rejection rate, plus a model allowance."""
    return 4 * math.sqrt(p * (1 - p) / n_sim) + extra


def test_power_auc_formula_by_hand():
    # Obuchowski (1998): power = Φ((|θ1 - θ0| - z_α SE0) / SE1), SE0 and SE1 Hanley–McNeil
    # standard errors at θ0 and θ1 (Hanley & McNeil 1982, eq. 2 with their Q1, Q2).
    m, n = 40, 90
    se0, se1 = hanley_mcneil_se(0.5, m, n), hanley_mcneil_se(0.72, m, n)
    za = stats.norm.ppf(0.95)
    r = power_auc(0.72, m, n, alternative="greater")
    assert r.power == pytest.approx(stats.norm.cdf((0.22 - za * se0) / se1), rel=1e-12)
    assert r.n_samples == m + n
    assert r.details["se_null"] == pytest.approx(se0)
    za2 = stats.norm.ppf(0.975)
    two = power_auc(0.72, m, n, alternative="two-sided").power
    ref = stats.norm.cdf((0.22 - za2 * se0) / se1) + stats.norm.cdf((-0.22 - za2 * se0) / se1)
    assert two == pytest.approx(ref, rel=1e-12)
    assert "0.72" in r.assumptions and "Hanley" in r.assumptions


@pytest.mark.parametrize("m, n", [(5, 7), (30, 30), (100, 400)])
def test_auc_null_variance_is_mann_whitney(m, n):
    # At AUC = 0.5 the Hanley–McNeil variance is exactly the null variance of the
    # Mann–Whitney U statistic divided by (m n)²: m n (m + n + 1) / 12 (no ties), the
    # variance scipy.stats.mannwhitneyu uses for its normal approximation.
    var_u = m * n * (m + n + 1) / 12
    assert hanley_mcneil_se(0.5, m, n) == pytest.approx(math.sqrt(var_u) / (m * n), rel=1e-12)
    assert power_auc(0.7, m, n).details["se_null"] == pytest.approx(math.sqrt(var_u) / (m * n))


@pytest.mark.parametrize(
    "auc, auc_null, ratio, power, alternative",
    [(0.7, 0.5, 1.0, 0.8, "greater"), (0.8, 0.7, 3.0, 0.9, "greater"),
     (0.9, 0.85, 0.5, 0.8, "two-sided"), (0.62, 0.5, 10.0, 0.95, "two-sided")],
)  # fmt: skip
def test_sample_size_auc_matches_power_auc(auc, auc_null, ratio, power, alternative):
    # The planned size is the smallest with power_auc >= target.
    r = sample_size_auc(auc, auc_null=auc_null, ratio=ratio, power=power,
                        alternative=alternative)  # fmt: skip
    m, n = r.details["n_positive"], r.details["n_negative"]
    assert n == math.ceil(ratio * m - 1e-9)
    p = power_auc(auc, m, n, auc_null=auc_null, alternative=alternative).power
    assert p >= power and r.power == pytest.approx(p)
    n_less = max(1, math.ceil(ratio * (m - 1) - 1e-9))
    assert power_auc(auc, m - 1, n_less, auc_null=auc_null, alternative=alternative).power < power


def test_sample_size_auc_one_sided_unchanged():
    # The power-based search equals the closed criterion z_α SE0 + z_β SE1 <= gap.
    r = sample_size_auc(0.75, auc_null=0.65, power=0.9, alpha=0.05, alternative="greater")
    m, n = r.details["n_positive"], r.details["n_negative"]
    za, zb = stats.norm.ppf(0.95), stats.norm.ppf(0.9)
    assert za * hanley_mcneil_se(0.65, m, n) + zb * hanley_mcneil_se(0.75, m, n) <= 0.1
    assert r.power >= 0.9


def test_power_auc_mann_whitney_simulation():
    # Independent check of power_auc at AUC0 = 0.5: exponential scores (for which the
    # Hanley–McNeil variance is exact; negatives ~ Exp(1), positives ~ Exp(λ), AUC =
    # 1/(1+λ)) and scipy's one-sided asymptotic Mann–Whitney test, at the planned size.
    auc = 0.7
    r = sample_size_auc(auc, auc_null=0.5, power=0.8, ratio=2.0, alternative="greater")
    m, n = r.details["n_positive"], r.details["n_negative"]
    target = power_auc(auc, m, n, alternative="greater").power
    rng = np.random.default_rng(3)
    n_sim = 3000
    lam = 1 / auc - 1
    pos = rng.exponential(1 / lam, (n_sim, m))
    neg = rng.exponential(1.0, (n_sim, n))
    res = stats.mannwhitneyu(pos, neg, alternative="greater", method="asymptotic",
                             use_continuity=False, axis=1)  # fmt: skip
    rate = (res.pvalue < 0.05).mean()
    assert rate == pytest.approx(target, abs=_mc_tol(target, n_sim, 0.01))


def _binormal_auc_correlation(mu_a, mu_b, rho, m, n):
    """Correlation of the two Mann–Whitney AUCs of correlated binormal scores.

    Negatives ~ N(0, I), positives ~ N((mu_a, mu_b), I), correlation rho between the two
    scores within each class.  DeLong et al. (1988): Var(Â) = ξ10/m + ξ01/n with ξ the
    covariances of the placement values; here every ξ is a bivariate normal orthant
    probability minus the product of AUCs: E[Φ(X_a) Φ(X_b)] = P(X_a - Y_a > 0,
    X_b - Y_b' > 0), and the differences are N((mu_a, mu_b), [[2, rho], [rho, 2]]).
    """

    def xi(h1, h2, c):
        return stats.multivariate_normal(cov=[[1, c], [c, 1]]).cdf([h1, h2])

    ha, hb = mu_a / math.sqrt(2), mu_b / math.sqrt(2)
    aa, ab = stats.norm.cdf(ha), stats.norm.cdf(hb)
    var_a = (xi(ha, ha, 0.5) - aa * aa) * (1 / m + 1 / n)
    var_b = (xi(hb, hb, 0.5) - ab * ab) * (1 / m + 1 / n)
    cov = (xi(ha, hb, rho / 2) - aa * ab) * (1 / m + 1 / n)
    return cov / math.sqrt(var_a * var_b)


def test_auc_difference_formula_by_hand():
    # Hanley & McNeil (1983) eq. 2: SE² = V1 + V2 - 2 r SE1 SE2; under H0 both AUCs at
    # their mean (Obuchowski & McClish 1997): SE0² = 2 V(Ā)(1 - r).
    m, n, r = 80, 120, 0.4
    s1, s2, s0 = (hanley_mcneil_se(a, m, n) for a in (0.78, 0.86, 0.82))
    se1 = math.sqrt(s1**2 + s2**2 - 2 * r * s1 * s2)
    se0 = math.sqrt(2 * s0**2 * (1 - r))
    za = stats.norm.ppf(0.975)
    ref = stats.norm.cdf((0.08 - za * se0) / se1) + stats.norm.cdf((-0.08 - za * se0) / se1)
    p = power_auc_difference(0.78, 0.86, m, n, correlation=r)
    assert p.power == pytest.approx(ref, rel=1e-12)
    assert p.details["se_alternative"] == pytest.approx(se1)
    # order of the two AUCs is irrelevant
    assert power_auc_difference(0.86, 0.78, m, n, correlation=r).power == pytest.approx(ref)
    # independent test sets: r = 0, twice the samples
    q = power_auc_difference(0.78, 0.86, m, n, paired=False)
    se1 = math.hypot(s1, s2)
    se0 = math.sqrt(2) * s0
    one = stats.norm.cdf((0.08 - za * se0) / se1) + stats.norm.cdf((-0.08 - za * se0) / se1)
    assert q.power == pytest.approx(one, rel=1e-12)
    assert q.n_samples == 2 * (m + n) and q.details["n_test_sets"] == 2


@pytest.mark.parametrize("paired", [True, False])
@pytest.mark.parametrize("ratio", [1.0, 2.5])
def test_sample_size_auc_difference_is_smallest(paired, ratio):
    kw = {"correlation": 0.6} if paired else {"paired": False}
    r = sample_size_auc_difference(0.8, 0.88, ratio=ratio, power=0.85, **kw)
    m, n = r.details["n_positive"], r.details["n_negative"]
    assert power_auc_difference(0.8, 0.88, m, n, **kw).power >= 0.85
    n_less = math.ceil(ratio * (m - 1) - 1e-9)
    assert power_auc_difference(0.8, 0.88, m - 1, n_less, **kw).power < 0.85
    assert r.n_samples == (1 if paired else 2) * (m + n)
    # a higher correlation needs fewer samples; one-sided needs fewer than two-sided
    if paired:
        more = sample_size_auc_difference(0.8, 0.88, ratio=ratio, power=0.85, correlation=0.8)
        assert more.n_samples < r.n_samples
    one = sample_size_auc_difference(0.8, 0.88, ratio=ratio, power=0.85,
                                     alternative="less", **kw)  # fmt: skip
    assert one.n_samples < r.n_samples


def test_auc_difference_closed_form_large_n():
    # Without the finite-sample terms of Hanley–McNeil's variance the one-sided size is
    # n₊ = (z_α √(2V̄(1-r)) + z_β √(V1 + V2 - 2r√(V1V2)))² / Δ² with V = (Q1 - A²) +
    # (Q2 - A²)/κ per positive (Obuchowski 1998, eq. for two tests); the exact search
    # agrees within a few samples.
    def v(a, kappa=1.0):
        return (a / (2 - a) - a * a) + (2 * a * a / (1 + a) - a * a) / kappa

    a1, a2, r = 0.75, 0.85, 0.5
    za, zb = stats.norm.ppf(0.95), stats.norm.ppf(0.8)
    v1, v2, v0 = v(a1), v(a2), v((a1 + a2) / 2)
    n = (za * math.sqrt(2 * v0 * (1 - r)) + zb * math.sqrt(v1 + v2 - 2 * r * math.sqrt(v1 * v2))
         ) ** 2 / 0.1**2  # fmt: skip
    res = sample_size_auc_difference(a1, a2, correlation=r, alternative="less")
    assert abs(res.details["n_positive"] - n) <= 3


@pytest.mark.slow
@pytest.mark.parametrize("paired", [True, False])
def test_auc_difference_power_by_delong_simulation(paired):
    # Binormal scores with known AUCs (Φ(μ/√2)): AUC 0.75 and 0.85, score correlation 0.6
    # within each class.  The true correlation of the two AUC estimates comes from the
    # binormal orthant probabilities (not from mlci); at the planned size, DeLong's test
    # (mlci.delong_test / delong_test_independent) should reject with the planned power,
    # up to Monte Carlo error and the Hanley–McNeil-vs-binormal variance gap (~4 %).
    a1, a2, rho = 0.75, 0.85, 0.6
    mu1, mu2 = math.sqrt(2) * stats.norm.ppf(a1), math.sqrt(2) * stats.norm.ppf(a2)
    if paired:
        r_auc = _binormal_auc_correlation(mu1, mu2, rho, 1, 1)  # same for any m = n
        plan = sample_size_auc_difference(a1, a2, correlation=r_auc, power=0.8)
    else:
        plan = sample_size_auc_difference(a1, a2, paired=False, power=0.8)
    m, n = plan.details["n_positive"], plan.details["n_negative"]
    rng = np.random.default_rng(11 + paired)
    n_sim = max(200, int(1500 * SCALE))
    cov = [[1, rho], [rho, 1]]
    y = np.r_[np.ones(m, int), np.zeros(n, int)]
    rejected = 0
    for _ in range(n_sim):
        pos = rng.multivariate_normal([mu1, mu2], cov, m)
        neg = rng.multivariate_normal([0, 0], cov, n)
        s = np.vstack([pos, neg])
        if paired:
            p = delong_test(y, s[:, 0], s[:, 1]).pvalue
        else:
            pos2 = rng.multivariate_normal([mu1, mu2], cov, m)
            neg2 = rng.multivariate_normal([0, 0], cov, n)
            s2 = np.vstack([pos2, neg2])
            p = delong_test_independent(y, s[:, 0], y, s2[:, 1]).pvalue
        rejected += p < 0.05
    rate = rejected / n_sim
    assert rate == pytest.approx(0.8, abs=_mc_tol(0.8, n_sim, 0.03))


@pytest.mark.slow
@pytest.mark.parametrize("auc, auc_null", [(0.8, 0.5), (0.85, 0.75)])
def test_power_auc_binormal_simulation(auc, auc_null):
    # Binormal scores (equal variances, AUC = Φ(μ/√2)) at the planned size; the test
    # statistic is (Â - AUC0) / SE0 with Hanley–McNeil's SE0 at AUC0 (the test power_auc
    # describes; at AUC0 = 0.5 it is the Mann–Whitney test).  Allowance for the
    # Hanley–McNeil-vs-binormal variance gap.
    plan = sample_size_auc(auc, auc_null=auc_null, power=0.8, ratio=1.5, alternative="greater")
    m, n = plan.details["n_positive"], plan.details["n_negative"]
    target = plan.power
    mu = math.sqrt(2) * stats.norm.ppf(auc)
    rng = np.random.default_rng(5)
    n_sim = max(400, int(4000 * SCALE))
    pos = rng.normal(mu, 1, (n_sim, m))
    neg = rng.normal(0, 1, (n_sim, n))
    ranks = stats.rankdata(np.hstack([pos, neg]), axis=1)
    a_hat = (ranks[:, :m].sum(axis=1) - m * (m + 1) / 2) / (m * n)
    z = (a_hat - auc_null) / hanley_mcneil_se(auc_null, m, n)
    rate = (z > stats.norm.ppf(0.95)).mean()
    assert rate == pytest.approx(target, abs=_mc_tol(target, n_sim, 0.03))


def test_auc_planning_bad_input():
    with pytest.raises(ValueError, match=r"`auc` must lie in \[0.5, 1\)"):
        power_auc(0.4, 10, 10)
    with pytest.raises(ValueError, match=r"`auc` must lie in \(0, 1\)"):
        power_auc(1.0, 10, 10)
    with pytest.raises(ValueError, match=r"`auc_null` must lie in \[0.5, 1\)"):
        power_auc(0.8, 10, 10, auc_null=0.3)
    with pytest.raises(ValueError, match="`auc_null` must differ"):
        power_auc(0.8, 10, 10, auc_null=0.8)
    with pytest.raises(ValueError, match="`n_positive` must be an integer >= 1"):
        power_auc(0.8, 0, 10)
    with pytest.raises(TypeError, match="`n_negative` must be an integer"):
        power_auc(0.8, 10, 10.5)
    with pytest.raises(ValueError, match=r"`alpha` must lie in \(0, 1\)"):
        power_auc(0.8, 10, 10, alpha=5)
    with pytest.raises(ValueError, match=r"`alternative` must be one of .* Say which side"):
        power_auc(0.8, 10, 10, alternative="one-sided")
    with pytest.raises(ValueError, match="`alternative`='less' tests H1: AUC < auc_null"):
        sample_size_auc(0.8, auc_null=0.5, alternative="less")
    with pytest.raises(ValueError, match="`correlation` is required"):
        sample_size_auc_difference(0.8, 0.85)
    with pytest.raises(ValueError, match=r"`correlation` must lie in \(-1, 1\)"):
        sample_size_auc_difference(0.8, 0.85, correlation=1.0)
    with pytest.raises(TypeError, match="`correlation` must be a number"):
        power_auc_difference(0.8, 0.85, 50, 50, correlation="0.5")
    with pytest.raises(ValueError, match="`correlation` must be None"):
        sample_size_auc_difference(0.8, 0.85, correlation=0.5, paired=False)
    with pytest.raises(TypeError, match="`paired` must be True or False"):
        sample_size_auc_difference(0.8, 0.85, correlation=0.5, paired="yes")
    with pytest.raises(ValueError, match="`auc1` and `auc2` must differ"):
        sample_size_auc_difference(0.8, 0.8, correlation=0.5)
    with pytest.raises(ValueError, match=r"`auc2` must lie in \[0.5, 1\)"):
        sample_size_auc_difference(0.8, 0.2, correlation=0.5)
    with pytest.raises(ValueError, match=r"`power` must lie in \(0, 1\)"):
        sample_size_auc_difference(0.8, 0.85, correlation=0.5, power=1.0)
    with pytest.raises(ValueError, match="`ratio`"):
        sample_size_auc_difference(0.8, 0.85, correlation=0.5, ratio=-1)
    with pytest.raises(ValueError, match="`ratio`"):
        sample_size_auc(0.8, width=0.1, ratio=float("nan"))


# ----------------------------------------------------------------------------------------
# issue 8: alternative in {"two-sided", "less", "greater"} (was "one-sided")
# ----------------------------------------------------------------------------------------
def test_power_auc_less_mirrors_greater():
    # H1: AUC < auc_null, by hand: Φ((auc_null - auc - z_α SE0) / SE1) (Obuchowski 1998).
    m, n = 60, 80
    se0, se1 = hanley_mcneil_se(0.8, m, n), hanley_mcneil_se(0.7, m, n)
    ref = stats.norm.cdf((0.1 - stats.norm.ppf(0.95) * se0) / se1)
    r = power_auc(0.7, m, n, auc_null=0.8, alternative="less")
    assert r.power == pytest.approx(ref, rel=1e-12)
    assert "H1: AUC < auc_null" in r.assumptions
    assert "H1: AUC > auc_null" in power_auc(0.8, m, n, auc_null=0.7,
                                             alternative="greater").assumptions  # fmt: skip
    # the default is two-sided (the glossary's default; pROC's power.roc.test default
    # alternative = "two.sided"): z_{α/2}, both tails
    z2 = stats.norm.ppf(0.975)
    two = stats.norm.cdf((0.1 - z2 * se0) / se1) + stats.norm.cdf((-0.1 - z2 * se0) / se1)
    r = power_auc(0.7, m, n, auc_null=0.8)
    assert r.power == pytest.approx(two, rel=1e-12) and "two-sided" in r.assumptions


def test_one_sided_against_the_expected_effect_is_refused():
    # Before: "one-sided" meant "in the direction of the expected value"; with an explicit
    # direction, a hypothesis the expected values contradict has power < alpha: refused.
    with pytest.raises(ValueError, match=r"`alternative`='greater' tests H1: AUC > auc_null, "
                                         r"but the expected `auc`=0.7 is below"):  # fmt: skip
        power_auc(0.7, 50, 50, auc_null=0.8, alternative="greater")
    with pytest.raises(ValueError, match="Use `alternative`='greater'"):
        sample_size_mcnemar(0.05, 0.15, alternative="less")
    with pytest.raises(ValueError, match=r"`alternative`='greater' tests H1: A more accurate"):
        power_mcnemar(500, -0.05, 0.15, alternative="greater")
    with pytest.raises(ValueError, match=r"H1: AUC of system 1 > AUC of system 2"):
        sample_size_auc_difference(0.75, 0.85, correlation=0.5, alternative="greater")
    calls = [
        (power_auc, {"auc": 0.8, "n_positive": 50, "n_negative": 50}),
        (sample_size_mcnemar, {"difference": 0.05, "discordance": 0.15}),
        (sample_size_auc_difference, {"auc1": 0.75, "auc2": 0.85, "correlation": 0.5}),
    ]
    for fn, kw in calls:
        with pytest.raises(ValueError, match=r"got 'one-sided'\. Say which side"):
            fn(**kw, alternative="one-sided")


def test_one_sided_directions_keep_the_math():
    g = sample_size_mcnemar(0.05, 0.15, alternative="greater")
    less = sample_size_mcnemar(-0.05, 0.15, alternative="less")
    assert g.n_samples == less.n_samples == 369  # Connor (1987) one-sided: 368.85 -> 369
    assert g.power == pytest.approx(less.power)
    assert power_mcnemar(400, -0.05, 0.15, alternative="less").power == pytest.approx(
        power_mcnemar(400, 0.05, 0.15, alternative="greater").power
    )
    a = sample_size_auc_difference(0.85, 0.75, correlation=0.5, alternative="greater")
    b = sample_size_auc_difference(0.75, 0.85, correlation=0.5, alternative="less")
    assert a.n_samples == b.n_samples
    assert a.power == pytest.approx(b.power)
    # two-sided stays symmetric in the sign of the difference
    assert sample_size_mcnemar(-0.05, 0.15).n_samples == sample_size_mcnemar(0.05, 0.15).n_samples


def test_mcnemar_assumptions_keep_the_sign_of_the_difference():
    # Before: the shares of the two kinds of discordant samples were written from
    # |difference|, so a negative difference described the wrong system as better.
    r = sample_size_mcnemar(-0.04, 0.14)
    assert "A is right and B wrong on a share 0.05" in r.assumptions
    assert "B right and A wrong on 0.09" in r.assumptions
    assert r.details["difference"] == -0.04


def test_sample_size_auc_validates_every_option():
    # every option is validated, also those of the question not asked
    with pytest.raises(ValueError, match="confidence_level"):
        sample_size_auc(0.8, auc_null=0.7, confidence_level=95)
    with pytest.raises(ValueError, match="`power`"):
        sample_size_auc(0.8, width=0.1, power=80)
