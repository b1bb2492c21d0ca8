"""Bayesian comparison: the correlated t-test and the signed-rank test against baycomp.

Reference: ``baycomp`` 1.0.3 (Benavoli, Corani, Demšar & Zaffalon's implementation of
"Time for a change", JMLR 2017).  Deterministic quantities (the t posterior's
parameters, the correlated t-test's probabilities) to 1e-9; the signed-rank test's
sampled probabilities within Monte Carlo error.
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

import mlci

baycomp = pytest.importorskip("baycomp")
matplotlib.use("Agg")


def _cv(seed: int, runs: int = 10, folds: int = 10, shift: float = 0.005):
    rng = np.random.default_rng(seed)
    a = rng.normal(0.85, 0.02, runs * folds)
    return a, a - rng.normal(shift, 0.01, runs * folds)


@pytest.mark.parametrize("seed, rope, runs", [(0, 0.01, 10), (1, 0.0, 10), (2, 0.005, 1),
                                              (3, 0.02, 5)])  # fmt: skip
def test_correlated_ttest_equals_baycomp(seed, rope, runs):
    a, b = _cv(seed, runs=runs)
    r = mlci.correlated_bayesian_ttest(a, b, rope=rope, n_runs=runs)
    post = baycomp.CorrelatedTTest(a, b, rope=rope, runs=runs)
    # baycomp's difference is y - x (its "left" is x better): ours is a - b
    assert r.posterior["loc"] == pytest.approx(-post.mean, abs=1e-12)
    assert r.posterior["scale"] ** 2 == pytest.approx(post.var, rel=1e-12)
    assert r.posterior["df"] == post.df
    probs = post.probs()
    if rope > 0:
        pl, pe, pr = probs
        assert r.p_rope == pytest.approx(pe, abs=1e-9)
    else:
        pl, pr = probs
        assert r.p_rope == 0.0
    assert r.p_a_better == pytest.approx(pl, abs=1e-9)
    assert r.p_b_better == pytest.approx(pr, abs=1e-9)
    assert r.p_a_better + r.p_rope + r.p_b_better == pytest.approx(1.0, abs=1e-12)


def test_correlated_ttest_two_dimensional_table_and_direction():
    a, b = _cv(4)
    flat = mlci.correlated_bayesian_ttest(a, b, rope=0.01, n_runs=10)
    table = mlci.correlated_bayesian_ttest(a.reshape(10, 10), b.reshape(10, 10), rope=0.01)
    assert table.rows() == flat.rows()
    low = mlci.correlated_bayesian_ttest(a, b, rope=0.01, n_runs=10, higher_is_better=False)
    assert (low.p_a_better, low.p_b_better) == (flat.p_b_better, flat.p_a_better)
    # rho: 0 is the plain (uncorrelated) Bayesian t-test, scale sd / sqrt(n)
    plain = mlci.correlated_bayesian_ttest(a, b, rho=0.0)
    assert plain.posterior["scale"] == pytest.approx(np.std(a - b, ddof=1) / 10, rel=1e-12)
    assert "P(a better)" in repr(flat) and flat.to_frame().loc[0, "rope"] == 0.01


def test_correlated_ttest_no_spread():
    r = mlci.correlated_bayesian_ttest([0.8, 0.8, 0.8], [0.7, 0.7, 0.7], rope=0.01)
    assert (r.p_a_better, r.p_rope, r.p_b_better) == (1.0, 0.0, 0.0)


@pytest.mark.parametrize("seed, rope", [(0, 0.01), (1, 0.0), (2, 0.03)])
def test_signed_rank_equals_baycomp_within_monte_carlo_error(seed, rope):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.7, 0.9, 15)
    b = a - rng.normal(0.01, 0.02, 15)
    n = 50_000
    r = mlci.bayesian_signed_rank_test(a, b, rope=rope, n_samples=n, rng=0)
    probs = baycomp.SignedRankTest.probs(a, b, rope=rope, nsamples=n, random_state=0)
    ours = (r.p_a_better, r.p_rope, r.p_b_better) if rope > 0 else (r.p_a_better, r.p_b_better)
    # two independent Monte Carlo estimates: their difference has standard error
    # sqrt(2 p (1 - p) / n) <= 0.0032; 4 standard errors
    for p_ours, p_ref in zip(ours, probs, strict=True):
        se = np.sqrt(2 * max(p_ref * (1 - p_ref), 1e-4) / n)
        assert abs(p_ours - p_ref) <= 4 * se + 1e-12, (ours, probs)
    assert r.posterior["samples"].shape == (n, 3)


def test_signed_rank_posterior_weights_match_baycomp_samples():
    """The posterior draws themselves: same distribution as baycomp's (their means)."""
    rng = np.random.default_rng(5)
    a = rng.uniform(0.7, 0.9, 10)
    b = a - rng.normal(0.0, 0.02, 10)
    n = 20_000
    ours = mlci.bayesian_signed_rank_test(a, b, rope=0.01, n_samples=n, rng=1)
    ref = baycomp.SignedRankTest.sample(a, b, rope=0.01, nsamples=n, random_state=1)
    # baycomp's columns: (y better, rope, x better)? No: (left = x better, rope, right)
    mean_ours = ours.posterior["samples"].mean(axis=0)
    mean_ref = ref.mean(axis=0)
    sd = ref.std(axis=0) * np.sqrt(2 / n)
    assert np.all(np.abs(mean_ours - mean_ref) <= 4 * sd + 1e-12), (mean_ours, mean_ref)


def test_signed_rank_rng_and_direction():
    rng = np.random.default_rng(6)
    a = rng.uniform(0.7, 0.9, 12)
    b = a - 0.01
    r1 = mlci.bayesian_signed_rank_test(a, b, rope=0.005, rng=3, n_samples=2000)
    r2 = mlci.bayesian_signed_rank_test(a, b, rope=0.005, rng=3, n_samples=2000)
    assert r1.rows() == r2.rows()
    assert r1.p_a_better > 0.9
    low = mlci.bayesian_signed_rank_test(a, b, rope=0.005, rng=3, n_samples=2000,
                                         higher_is_better=False)  # fmt: skip
    assert low.p_b_better == r1.p_a_better
    assert "samples" not in r1.to_dict()["posterior"]


def test_plots():
    a, b = _cv(0)
    ax = mlci.correlated_bayesian_ttest(a, b, rope=0.01, n_runs=10).plot()
    assert ax.get_xlabel() == "a - b"
    sr = mlci.bayesian_signed_rank_test(a[:15], b[:15], rope=0.01, rng=0, n_samples=500)
    ax2 = mlci.plotting.plot_posterior(sr)
    assert any("ROPE" in t.get_text() for t in ax2.texts)
    with pytest.raises(TypeError, match="BayesianComparison"):
        mlci.plotting.plot_posterior(object())
    matplotlib.pyplot.close("all")


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"rope": -0.1}, ValueError, "rope"),
        ({"rope": "x"}, TypeError, "rope"),
        ({"rope": float("nan")}, ValueError, "rope"),
        ({"n_runs": 3}, ValueError, "n_runs"),
        ({"n_runs": 0}, ValueError, "n_runs"),
        ({"rho": 1.0}, ValueError, "rho"),
        ({"rho": -0.1}, ValueError, "rho"),
        ({"higher_is_better": None}, TypeError, "higher_is_better"),
    ],
)
def test_correlated_ttest_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        mlci.correlated_bayesian_ttest([0.8, 0.82, 0.81, 0.83], [0.8, 0.8, 0.79, 0.8], **kwargs)


def test_correlated_ttest_bad_scores():
    with pytest.raises(ValueError, match="same shape"):
        mlci.correlated_bayesian_ttest([0.8, 0.82], [0.8, 0.8, 0.8])
    with pytest.raises(ValueError, match="missing"):
        mlci.correlated_bayesian_ttest([0.8, np.nan], [0.8, 0.8])
    with pytest.raises(ValueError, match="at least 2"):
        mlci.correlated_bayesian_ttest([0.8], [0.8], rho=0.1)
    with pytest.raises(ValueError, match="One fold per run"):
        mlci.correlated_bayesian_ttest([0.8, 0.7], [0.8, 0.6], n_runs=2)
    with pytest.raises(TypeError, match="numbers"):
        mlci.correlated_bayesian_ttest(["a", "b"], [0.8, 0.6])


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"prior_strength": 0}, ValueError, "prior_strength"),
        ({"prior_strength": "a"}, TypeError, "prior_strength"),
        ({"n_samples": 0}, ValueError, "n_samples"),
        ({"rope": -1}, ValueError, "rope"),
        ({"rng": "seed"}, TypeError, "rng"),
    ],
)
def test_signed_rank_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        mlci.bayesian_signed_rank_test([0.8, 0.82, 0.81], [0.8, 0.8, 0.79], **kwargs)


def test_signed_rank_needs_one_score_per_data_set():
    with pytest.raises(ValueError, match="1-D"):
        mlci.bayesian_signed_rank_test([[0.8, 0.82]], [[0.8, 0.8]])
