"""Simulated data (mlci.simulate): the population values they claim, checked by large samples.

References: binormal AUC = Phi(d / sqrt(2)) (e.g. Pepe 2003, *The Statistical Evaluation of
Medical Tests*, sec. 4.4); the one-way ANOVA estimator of the intra-class correlation
(Donner 1986, Int. Stat. Rev. 54:67-82); beta-binomial ICC = 1 / (a + b + 1).
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import expit
from scipy.stats import norm
from sklearn.metrics import roc_auc_score

import mlci
from mlci import simulate
from mlci.intervals.bootstrap import bootstrap_interval
from mlci.simulation.data import _binormal_grid_auc


def anova_icc(correct: np.ndarray, conditions: np.ndarray) -> float:
    """One-way ANOVA estimator of the ICC for equal condition sizes."""
    c = np.unique(conditions).size
    m = correct.size // c
    y = correct.reshape(c, m).astype(float)  # conditions are contiguous, equal sizes
    means = y.mean(axis=1)
    msb = m * np.sum((means - y.mean()) ** 2) / (c - 1)
    msw = np.sum((y - means[:, None]) ** 2) / (c * (m - 1))
    return (msb - msw) / (msb + (m - 1) * msw)


def test_binary_classification_accuracy():
    sim = simulate.binary_classification(400_000, 0.83, prevalence=0.3, rng=0)
    acc = np.mean(sim.y_true == sim.y_pred)
    se = np.sqrt(0.83 * 0.17 / 400_000)
    assert abs(acc - sim.true_value) < 4 * se
    assert abs(sim.y_true.mean() - 0.3) < 0.005
    assert sim.metric == "accuracy" and sim.data[1] is sim.y_pred


@pytest.mark.parametrize("auc", [0.6, 0.8, 0.95])
def test_binormal_auc(auc):
    sim = simulate.binormal_scores(200_000, auc, rng=1)
    assert sim.y_true.sum() == 100_000
    # the Mann-Whitney AUC of 1e5 x 1e5 scores has SE below 0.002
    assert abs(roc_auc_score(sim.y_true, sim.y_score) - auc) < 0.004
    assert_allclose(sim.details["d"], np.sqrt(2) * norm.ppf(auc), rtol=1e-12)


@pytest.mark.parametrize("step", [0.25, 0.5, 1.0])
def test_binormal_auc_with_ties(step):
    sim = simulate.binormal_scores(200_000, 0.8, step=step, rng=2)
    assert len(np.unique(sim.y_score)) < 100  # heavy ties
    # sklearn counts ties one half, as the exact grid formula does
    assert abs(roc_auc_score(sim.y_true, sim.y_score) - sim.true_value) < 0.004
    assert sim.true_value < 0.8  # ties between classes pull the AUC towards 1/2


def test_binormal_grid_formula_tends_to_the_continuous_auc():
    d = np.sqrt(2) * 0.8416212335729143  # AUC 0.8
    assert abs(_binormal_grid_auc(d, 0.001) - 0.8) < 1e-6


@pytest.mark.parametrize("model", ["beta", "logit-normal"])
def test_clustered_accuracy_and_icc(model):
    sim = simulate.clustered_classification(20_000, 10, 0.8, 0.2, model=model, rng=3)
    correct = sim.y_true == sim.y_pred
    assert abs(correct.mean() - 0.8) < 0.005
    assert_allclose(sim.details["icc"], 0.2, atol=1e-9)
    assert abs(anova_icc(correct, sim.conditions) - 0.2) < 0.015
    assert_allclose(sim.details["design_effect"], 1 + 9 * 0.2)
    assert sim.n_conditions == 20_000


def test_logit_normal_parameters_by_monte_carlo():
    mu, sigma = simulate.logit_normal_parameters(0.7, 0.3)
    p = expit(mu + sigma * np.random.default_rng(4).standard_normal(2_000_000))
    assert abs(p.mean() - 0.7) < 0.001
    assert abs(p.var() / (0.7 * 0.3) - 0.3) < 0.003


def test_clustered_unequal_sizes():
    sizes = np.arange(1, 11)
    sim = simulate.clustered_classification(10, sizes, 0.8, 0.1, rng=5)
    assert sim.n_samples == sizes.sum()
    assert_allclose(np.bincount(sim.conditions), sizes)


def test_same_seed_same_data_and_repr():
    a = simulate.clustered_classification(5, 4, 0.8, 0.2, rng=7)
    b = simulate.clustered_classification(5, 4, 0.8, 0.2, rng=np.random.default_rng(7))
    assert np.array_equal(a.y_pred, b.y_pred)
    assert "icc=0.2" in repr(a) and "n_conditions=5" in repr(a)
    d = a.to_dict()
    assert d["true_value"] == 0.8 and isinstance(d["y_true"], list)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: simulate.binary_classification(0, 0.8), "`n_samples`"),
        (lambda: simulate.binary_classification(10, 1.0), "`accuracy`"),
        (lambda: simulate.binary_classification(10, 0.8, prevalence=0), "`prevalence`"),
        (lambda: simulate.binormal_scores(1, 0.8), "`n_samples`"),
        (lambda: simulate.binormal_scores(10, 0.0), "`auc`"),
        (lambda: simulate.binormal_scores(10, 0.8, step=0.0), "`step`"),
        (lambda: simulate.clustered_classification(1, 5, 0.8, 0.2), "`n_conditions`"),
        (lambda: simulate.clustered_classification(3, [1, 2], 0.8, 0.2), "samples_per_cond"),
        (lambda: simulate.clustered_classification(3, 5, 0.8, 1.0), "`icc`"),
        (lambda: simulate.clustered_classification(3, 5, 0.8, 0.2, model="x"), "`model`"),
        (lambda: simulate.binary_classification(10, 0.8, rng="a"), "`rng`"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


# ---------------------------------------------------------------- coverage loop
def _tiny():
    return [
        simulate.Scenario(
            "tiny clustered",
            lambda g: simulate.clustered_classification(8, 5, 0.8, 0.2, rng=g),
            schemes=simulate.SCHEMES,
        )
    ]


def test_coverage_study_is_deterministic_and_prefix_stable():
    a = simulate.coverage_study(_tiny(), n_experiments=12, n_resamples=100, rng=3)
    b = simulate.coverage_study(_tiny(), n_experiments=12, n_resamples=100, rng=3)
    assert [r.to_dict() for r in a.entries] == [r.to_dict() for r in b.entries]
    assert len(a.entries) == 6 and len(a.rows()) == 6
    assert {r.scheme for r in a.entries} == set(simulate.SCHEMES)
    r = a.row("tiny clustered", "bca", "conditions")
    assert r.n_experiments + r.n_failed == 12
    assert r.n_covered + r.n_below + r.n_above == r.n_experiments
    assert r.coverage_ci[0] <= r.coverage <= r.coverage_ci[1]
    # experiment i is seeded by (rng, scenario, i): 6 experiments are a prefix of 12
    c = simulate.coverage_study(_tiny(), n_experiments=6, n_resamples=100, rng=3)
    for short, full in zip(c.entries, a.entries, strict=True):
        assert short.n_covered <= full.n_covered <= short.n_covered + 6
    md = a.to_markdown()
    assert md.startswith("| scenario |") and md.count("\n") == 7
    assert "CoverageStudy(6 rows" in repr(a)
    with pytest.raises(KeyError):
        a.row("nope", "bca")


@pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")
def test_other_methods_from_the_bca_run_equal_bootstrap_ci():
    # the study computes percentile & co. from the BCa run's replicates: that is exactly
    # what bootstrap_ci returns for that method with the same seed
    sim = simulate.clustered_classification(12, 6, 0.8, 0.2, rng=8)
    kw = {"metric": "accuracy", "conditions": sim.conditions, "n_resamples": 300, "rng": 4}
    bca = mlci.bootstrap_ci(*sim.data, method="bca", **kw)
    for m in ("percentile", "basic", "normal", "bc"):
        direct = mlci.bootstrap_ci(*sim.data, method=m, **kw)
        assert tuple(bca.interval(method=m).confidence_interval) == tuple(
            direct.confidence_interval
        )
        low, high, _ = bootstrap_interval(
            bca.estimate, bca.bootstrap_distribution, method=m, confidence_level=0.95
        )
        # the same interval before it is kept inside the metric's range [0, 1]
        assert (max(float(low), 0.0), min(float(high), 1.0)) == tuple(direct.confidence_interval)


def test_coverage_study_bad_input():
    with pytest.raises(ValueError, match="`methods`"):
        simulate.coverage_study(_tiny(), n_experiments=2, methods=["nope"])
    with pytest.raises(ValueError, match="`n_experiments`"):
        simulate.coverage_study(_tiny(), n_experiments=0)
    bad = [simulate.Scenario("x", _tiny()[0].generate, schemes=("strata",))]
    with pytest.raises(ValueError, match="scheme"):
        simulate.coverage_study(bad, n_experiments=2)


@pytest.mark.parametrize(
    ("method", "sm_method"),
    [
        ("wilson", "wilson"),
        ("jeffreys", "jeffreys"),
        ("agresti_coull", "agresti_coull"),
        ("clopper_pearson", "beta"),
    ],
)
def test_exact_proportion_coverage_is_the_binomial_sum(method, sm_method):
    # reference: the binomial sum with statsmodels' intervals (an independent implementation)
    from scipy.stats import binom
    from statsmodels.stats.proportion import proportion_confint

    n, ps = 100, np.array([0.8, 0.9, 0.935, 0.97])
    k = np.arange(n + 1)
    low, high = proportion_confint(k, n, alpha=0.05, method=sm_method)
    if method == "jeffreys":  # Brown, Cai & DasGupta's ends at k = 0 and k = n
        low[0], high[-1] = 0.0, 1.0
    ref = [np.sum(binom.pmf(k, n, p) * ((low <= p) & (p <= high))) for p in ps]
    assert_allclose(simulate.exact_proportion_coverage(n, ps, method=method), ref, atol=1e-12)


def test_exact_proportion_coverage_with_a_binomial_denominator():
    from scipy.stats import binom

    n, q, p = 60, 0.3, 0.85
    d = np.arange(1, n + 1)
    w = binom.pmf(d, n, q)
    per_d = [float(simulate.exact_proportion_coverage(int(m), p)) for m in d]
    ref = np.sum(w * per_d) / w.sum()
    got = simulate.exact_proportion_coverage(n, p, denominator_share=q)
    assert float(got) == pytest.approx(ref, abs=1e-12)
    # and a Monte Carlo check of the mixture: recall of iid samples, Wilson's interval
    rng = np.random.default_rng(0)
    dd = rng.binomial(n, q, 20000)
    dd = dd[dd > 0]
    kk = rng.binomial(dd, p)
    ci = mlci.proportion_ci(kk, dd).confidence_interval
    mc = np.mean((ci.low <= p) & (p <= ci.high))
    assert abs(mc - float(got)) < 4 * np.sqrt(got * (1 - got) / len(dd))
    with pytest.raises(ValueError, match="`p`"):
        simulate.exact_proportion_coverage(10, 1.0)
