"""What users bring: a resampling scheme (``sampler=``) and their own replicates (``bca_ci``);
several confidence levels in one call.

References: scipy.stats.bootstrap (BCa from the same replicates and the delete-one
jackknife, to 1e-12); the ordinary bootstrap written as a custom sampler has the law of the
built-in one (standard errors agree within Monte-Carlo error).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import mlci

RNG = np.random.default_rng(0)
N = 300
Y = RNG.integers(0, 2, N)
P = np.where(RNG.random(N) < 0.8, Y, 1 - Y)


def _multinomial(rng, b):
    return rng.multinomial(N, np.full(N, 1 / N), size=b)


def test_custom_sampler_has_the_law_of_the_builtin_bootstrap():
    kw = dict(metric="accuracy", n_resamples=2000, rng=1, method="percentile")
    own = mlci.bootstrap_ci(Y, P, resampling=mlci.Resampling(sampler=_multinomial), **kw)
    ref = mlci.bootstrap_ci(Y, P, **kw)
    assert own.scheme == "custom"
    assert own.estimate == ref.estimate
    assert own.standard_error == pytest.approx(ref.standard_error, rel=0.1)


def test_custom_sampler_is_reproducible_across_chunks():
    a = mlci.bootstrap_ci(
        Y, P, metric="f1", resampling=mlci.Resampling(sampler=_multinomial), rng=3, n_resamples=300
    )
    with mlci.config_context(batch=7, n_jobs=1):
        b = mlci.bootstrap_ci(
            Y,
            P,
            metric="f1",
            resampling=mlci.Resampling(sampler=_multinomial),
            rng=3,
            n_resamples=300,
        )
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    assert a.confidence_interval == b.confidence_interval


def test_identity_sampler_collapses_and_weights_multiply_counts():
    with pytest.warns(mlci.DegenerateIntervalWarning):
        res = mlci.bootstrap_ci(
            Y,
            P,
            metric="accuracy",
            resampling=mlci.Resampling(sampler=lambda rng, b: np.ones((b, N))),
            method="percentile",
        )
    assert res.confidence_interval.low == res.confidence_interval.high == res.estimate
    # counts 2 on the first half: the weighted accuracy (sklearn's sample_weight)
    from sklearn.metrics import accuracy_score

    w = np.r_[np.full(N // 2, 2.0), np.ones(N - N // 2)]
    with pytest.warns(mlci.DegenerateIntervalWarning):
        res = mlci.bootstrap_ci(
            Y,
            P,
            metric="accuracy",
            resampling=mlci.Resampling(sampler=lambda rng, b: np.tile(w, (b, 1))),
            method="bc",
        )
    assert res.bootstrap_distribution[0] == pytest.approx(accuracy_score(Y, P, sample_weight=w))


def test_custom_sampler_bad_output_refused():
    for fn, msg in (
        (lambda rng, b: np.ones((b, N - 1)), "expected \\(b, n_samples\\)"),
        (lambda rng, b: -np.ones((b, N)), "negative or non-finite"),
        (lambda rng, b: np.full((b, N), np.nan), "negative or non-finite"),
        (lambda rng, b: "x", "numeric array"),
    ):
        with pytest.raises((ValueError, TypeError), match=msg):
            mlci.bootstrap_ci(
                Y, P, metric="accuracy", resampling=mlci.Resampling(sampler=fn), n_resamples=20
            )
    for kw in ({"stratify": True}, {"weights": "poisson"}, {"two_stage": True}):
        with pytest.raises(ValueError, match="`sampler` replaces"):  # refused when built
            mlci.Resampling(sampler=_multinomial, **kw)
    for kw in ({"conditions": np.arange(N) % 10}, {"strata": np.arange(N) % 2}):
        with pytest.raises(ValueError, match="`sampler` replaces"):
            mlci.bootstrap_ci(
                Y, P, metric="accuracy", resampling=mlci.Resampling(sampler=_multinomial), **kw
            )
    with pytest.raises(ValueError, match="linearizes"):
        mlci.bootstrap_ci(
            Y,
            P,
            metric="accuracy",
            resampling=mlci.Resampling(sampler=_multinomial),
            method="studentized",
        )


@pytest.mark.filterwarnings(
    "ignore::mlci.FewResamplesWarning"
)  # few replicates: a fast check of equality, not of a level
def test_scores_custom_sampler_in_the_samples_order():
    rng = np.random.default_rng(5)
    s = mlci.Scores.from_labels(Y, Y + rng.normal(0, 1, N))
    ones = lambda rng, b: np.ones((b, N))  # noqa: E731
    for metric, kw in (("eer", {}), ("fnr", {"threshold": 0.5}), ("auc", {})):
        with pytest.warns(mlci.DegenerateIntervalWarning):
            res = s.bootstrap_ci(
                metric,
                resampling=mlci.Resampling(sampler=ones),
                method="percentile",
                n_resamples=20,
                **kw,
            )
        assert res.scheme == "custom"
        np.testing.assert_allclose(res.bootstrap_distribution, res.estimate)
    # dropping every positive of the user order leaves FNR undefined: the sampler sees
    # the samples in the order of `y_true`
    drop_pos = lambda rng, b: np.tile((Y == 0).astype(float), (b, 1))  # noqa: E731
    with pytest.raises(ValueError, match="undefined on every one"):
        s.bootstrap_ci(
            "fnr", threshold=0.5, resampling=mlci.Resampling(sampler=drop_pos), n_resamples=20
        )
    own = s.bootstrap_ci(
        "auc", resampling=mlci.Resampling(sampler=_multinomial), rng=2, n_resamples=1000
    )
    ref = s.bootstrap_ci("auc", resampling=mlci.Resampling(stratify=False), rng=2, n_resamples=1000)
    assert own.standard_error == pytest.approx(ref.standard_error, rel=0.15)
    with pytest.raises(ValueError, match="`sampler` replaces"):
        s.bootstrap_ci("auc", resampling=mlci.Resampling(sampler=_multinomial, stratify=True))


def test_bca_ci_matches_scipy_bootstrap():
    # scipy.stats.bootstrap(method="BCa") with the same replicates and scipy's own
    # delete-one jackknife
    x = np.random.default_rng(1).exponential(size=80)
    for level in (0.9, 0.95):
        ref = stats.bootstrap((x,), np.mean, method="BCa", n_resamples=3000,
                              random_state=2, confidence_level=level)  # fmt: skip
        got = mlci.bca_ci(ref.bootstrap_distribution, data=x, statistic=np.mean,
                          confidence_level=level)  # fmt: skip
        assert got.confidence_interval.low == pytest.approx(ref.confidence_interval.low, abs=1e-12)
        assert got.confidence_interval.high == pytest.approx(
            ref.confidence_interval.high, abs=1e-12
        )
    # two aligned arrays: a difference of means
    y = np.random.default_rng(4).normal(size=80)
    ref = stats.bootstrap((x, y), lambda a, b: np.mean(a - b), paired=True, method="BCa",
                          n_resamples=2000, random_state=3)  # fmt: skip
    got = mlci.bca_ci(ref.bootstrap_distribution, data=(x, y),
                      statistic=lambda a, b: np.mean(a - b))  # fmt: skip
    assert got.confidence_interval.low == pytest.approx(ref.confidence_interval.low, abs=1e-12)
    assert got.confidence_interval.high == pytest.approx(ref.confidence_interval.high, abs=1e-12)


def test_bca_ci_jackknife_given_vector_statistic_and_other_methods():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(50, 2))
    reps = np.stack([x[rng.integers(0, 50, 50)].mean(axis=0) for _ in range(1000)])
    jack = np.stack([np.delete(x, i, axis=0).mean(axis=0) for i in range(50)])
    a = mlci.bca_ci(reps, x.mean(axis=0), jackknife=jack)
    b = mlci.bca_ci(reps, data=x, statistic=lambda d: d.mean(axis=0))
    np.testing.assert_allclose(a.confidence_interval.low, b.confidence_interval.low, atol=1e-12)
    assert a.scheme == "user" and a.n_samples == 50
    pct = a.interval(method="percentile")
    np.testing.assert_allclose(pct.confidence_interval.low, np.quantile(reps, 0.025, axis=0))
    # NaN replicates are undefined ones: counted and left out
    reps[:3] = np.nan
    assert mlci.bca_ci(reps, x.mean(axis=0), jackknife=jack).n_invalid == 3


def test_bca_ci_bounds_and_bad_input():
    reps = np.random.default_rng(7).uniform(0.6, 0.9, 500)
    jack = np.linspace(0.7, 0.8, 30)
    res = mlci.bca_ci(reps, 0.75, jackknife=jack, alternative="greater", bounds=(0, 1))
    assert res.confidence_interval.high == 1.0
    with pytest.raises(ValueError, match="`bootstrap_distribution` must hold B >= 2"):
        mlci.bca_ci([0.5], 0.5, jackknife=jack)
    with pytest.raises(ValueError, match="`estimate` has shape"):
        mlci.bca_ci(reps, [0.5, 0.6], jackknife=jack)
    with pytest.raises(ValueError, match="either `jackknife`"):
        mlci.bca_ci(reps, 0.75)
    with pytest.raises(ValueError, match="`statistic` needs `data`"):
        mlci.bca_ci(reps, statistic=np.mean)
    with pytest.raises(ValueError, match="contains inf"):
        mlci.bca_ci(np.r_[reps, np.inf], 0.75, jackknife=jack)


def test_vector_confidence_level_gives_one_result_per_level():
    levels = [0.8, 0.9, 0.99]
    for method in ("percentile", "bca", "auto"):
        many = mlci.bootstrap_ci(Y, P, metric="f1", rng=0, n_resamples=300, method=method,
                                 confidence_level=levels)  # fmt: skip
        assert isinstance(many, tuple) and [r.confidence_level for r in many] == levels
        for lv, r in zip(levels, many, strict=True):
            one = mlci.bootstrap_ci(Y, P, metric="f1", rng=0, n_resamples=300, method=method,
                                    confidence_level=lv)  # fmt: skip
            assert r.confidence_interval.low == pytest.approx(one.confidence_interval.low)
            assert r.confidence_interval.high == pytest.approx(one.confidence_interval.high)
    s = mlci.Scores.from_labels(Y, Y + np.random.default_rng(1).normal(size=N))
    a, b = s.bootstrap_ci("eer", rng=0, n_resamples=200, confidence_level=(0.5, 0.95))
    assert a.confidence_interval.high - a.confidence_interval.low < (
        b.confidence_interval.high - b.confidence_interval.low
    )
    r1, r2 = mlci.bca_ci(np.linspace(0, 1, 101), 0.5, jackknife=np.linspace(0.4, 0.6, 20),
                         confidence_level=[0.5, 0.9])  # fmt: skip
    assert r1.confidence_level == 0.5 and r2.confidence_level == 0.9
    for bad in ([], [0.9, 95], [[0.9]]):
        with pytest.raises(ValueError, match="`confidence_level`"):
            mlci.bootstrap_ci(Y, P, metric="accuracy", confidence_level=bad)
