"""cv="holdout" with method="corrected-skew": the per-sample held-out means against a
hand refit, Hall's (1992) skewness-corrected t interval against a numerical inversion of
his transformation as written by Zhou & Dinh (2005), and its errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, stats
from sklearn.linear_model import LinearRegression, LogisticRegression

import mlci
from mlci.engine.sampler import Stream, block_generator
from mlci.inputs import check_rng_seed
from mlci.protocols.crossval import skew_corrected_interval
from mlci.protocols.cv_statistics import mean_skewness

RNG = np.random.default_rng(11)
XR = RNG.normal(size=(50, 3))
YR = XR @ np.array([1.0, -0.5, 0.0]) + RNG.standard_t(4, size=50)


def _hall_by_root_finding(x, level, df):
    """Zhou & Dinh (2005), section 2.2: Hall's statistic
    ``T2 = √n (W + γ W²/3 + γ² W³/27 + γ/(6n))`` with ``W = (x̄ - μ)/σ̂`` and ``γ`` the
    sample skewness; the interval is where ``T2`` lies between the t quantiles, found
    here by root finding on that forward formula (not the closed-form inverse)."""
    n, xbar, sd = len(x), x.mean(), x.std(ddof=1)
    g = stats.skew(x, bias=False)
    q = stats.t.ppf(1 - (1 - level) / 2, df)

    def t2(mu):
        w = (xbar - mu) / sd
        return np.sqrt(n) * (w + g * w**2 / 3 + g**2 * w**3 / 27 + g / (6 * n))

    span = 50 * sd
    lo = optimize.brentq(lambda mu: t2(mu) - q, xbar - span, xbar + span, xtol=1e-12)
    hi = optimize.brentq(lambda mu: t2(mu) + q, xbar - span, xbar + span, xtol=1e-12)
    return lo, hi


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hall_interval_matches_the_forward_formula(seed):
    x = np.random.default_rng(seed).exponential(size=40) ** 1.5  # right-skewed
    n = len(x)
    skew = mean_skewness(x, np.full(n, 1 / n))
    assert skew == pytest.approx(stats.skew(x, bias=False) / np.sqrt(n))
    got = skew_corrected_interval(x.mean(), x.std(ddof=1) / np.sqrt(n), skew, n - 1, 0.95,
                                  "two-sided")  # fmt: skip
    ref = _hall_by_root_finding(x, 0.95, n - 1)
    np.testing.assert_allclose(got, ref, rtol=1e-9)
    assert got[1] - x.mean() > x.mean() - got[0]  # the long side is the skewed one


def test_hall_interval_without_skewness_is_the_t_interval_and_one_sided_ends_agree():
    lo, hi = skew_corrected_interval(2.0, 0.5, 0.0, 7, 0.95, "two-sided")
    q = stats.t.ppf(0.975, 7)
    assert (lo, hi) == pytest.approx((2.0 - q * 0.5, 2.0 + q * 0.5))
    two = skew_corrected_interval(2.0, 0.5, 0.2, 7, 0.90, "two-sided")
    assert skew_corrected_interval(2.0, 0.5, 0.2, 7, 0.95, "greater") == pytest.approx(
        (two[0], np.inf)
    )
    assert skew_corrected_interval(2.0, 0.5, 0.2, 7, 0.95, "less") == pytest.approx(
        (-np.inf, two[1])
    )


def test_held_out_means_against_a_hand_refit():
    r = mlci.cross_val_ci(LinearRegression(), XR, YR, metric="mse", cv="holdout",
                          n_repeats=4, test_size=0.2, method="corrected-skew", rng=3)  # fmt: skip
    seed = check_rng_seed(3)
    total, count = np.zeros(50), np.zeros(50)
    for rep in range(4):  # the splits cross_val_ci draws (stream CV_SPLITS, repetition rep)
        test = block_generator(seed, Stream.CV_SPLITS, rep).choice(50, 10, replace=False)
        train = np.setdiff1d(np.arange(50), test)
        m = LinearRegression().fit(XR[train], YR[train])
        total[test] += (m.predict(XR[test]) - YR[test]) ** 2
        count[test] += 1
    held = r.details["held_out"]
    np.testing.assert_array_equal(held["count"], count)
    ok = count > 0
    np.testing.assert_allclose(held["mean"][ok], total[ok] / count[ok], rtol=1e-12)
    assert np.isnan(held["mean"][~ok]).all()
    # the estimate is the held-out means weighted by how often each sample was held out
    assert r.estimate == pytest.approx(total.sum() / count.sum())
    w = count[ok] / count.sum()
    assert r.details["skewness"] == pytest.approx(mean_skewness(total[ok] / count[ok], w))
    se = r.standard_error
    ref = skew_corrected_interval(r.estimate, se, r.details["skewness"], 3, 0.95, "two-sided")
    assert tuple(r.confidence_interval) == pytest.approx((max(ref[0], 0.0), ref[1]))
    c = r.interval("corrected")
    assert c.standard_error == se and "skewness" not in c.details
    assert c.interval("corrected-skew").confidence_interval == r.confidence_interval


def test_accuracy_uses_the_per_sample_correctness():
    X = RNG.normal(size=(80, 2))
    y = (X[:, 0] + RNG.normal(size=80) > 0).astype(int)
    r = mlci.cross_val_ci(LogisticRegression(), X, y, cv="holdout", n_repeats=5,
                          method="corrected-skew", rng=0)  # fmt: skip
    held = r.details["held_out"]
    assert set(np.unique(held["mean"][held["count"] == 1])) <= {0.0, 1.0}
    assert 0.0 <= r.confidence_interval.low <= r.estimate <= r.confidence_interval.high <= 1.0


def test_non_per_sample_metric_falls_back_to_corrected_with_a_warning():
    X = RNG.normal(size=(80, 2))
    y = (X[:, 0] + RNG.normal(size=80) > 0).astype(int)
    with pytest.warns(UserWarning, match="skewness is unknown"):
        r = mlci.cross_val_ci(LogisticRegression(), X, y, metric="roc_auc", cv="holdout",
                              n_repeats=5, method="corrected-skew", rng=0)  # fmt: skip
    assert "held_out" not in r.details and r.details["skewness"] == 0.0
    assert r.confidence_interval == r.interval("corrected").confidence_interval


def test_corrected_skew_needs_random_splits():
    with pytest.raises(ValueError, match=r"`method`='corrected-skew'.*cv='holdout'"):
        mlci.cross_val_ci(LinearRegression(), XR, YR, metric="mse", cv=5,
                          method="corrected-skew", rng=0)  # fmt: skip
    k = mlci.cross_val_ci(LinearRegression(), XR, YR, metric="mse", cv=5, n_repeats=2, rng=0)
    with pytest.raises(ValueError, match="`method`='corrected-skew'"):
        k.interval("corrected-skew")
    with pytest.raises(ValueError, match="`method`"):
        mlci.cross_val_compare(LinearRegression(), LinearRegression(), XR, YR, metric="mse",
                               cv="holdout", method="corrected-skew", rng=0)  # fmt: skip


def test_default_method_is_the_recommended_one_per_protocol():
    x = np.random.default_rng(0).normal(size=(60, 3))
    yc = (x[:, 0] > 0).astype(int)
    holdout = mlci.cross_val_ci(LinearRegression(), XR, YR, metric="mse", cv="holdout", rng=0)
    assert holdout.method == "corrected-skew"
    # a metric without per-sample values: the corrected interval (no warning)
    auc = mlci.cross_val_ci(LogisticRegression(), x, yc, metric="roc_auc", cv="holdout", rng=0)
    assert auc.method == "corrected"
    kfold = mlci.cross_val_ci(LinearRegression(), XR, YR, metric="mse", cv=5, rng=0)
    assert kfold.method == "corrected"
    loo = mlci.cross_val_ci(LinearRegression(), XR, YR, metric="mse", cv="loo", rng=0)
    assert loo.method == "nested"
