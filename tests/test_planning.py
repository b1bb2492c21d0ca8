"""Sample size and power, checked against statsmodels, the formulas' sources and simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from mlci.planning import (
    PlanResult,
    power_mcnemar,
    sample_size_auc,
    sample_size_mcnemar,
    sample_size_proportion,
)
from mlci.proportions import proportion_ci

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
    one = sample_size_mcnemar(d, psi, alternative="one-sided")
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
    from mlci.auc_analytic import hanley_mcneil_se

    r = sample_size_auc(0.75, auc_null=0.65, power=0.9, alpha=0.05)
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
