"""The smoothed bootstrap and m-out-of-n subsampling (mlci.engine.smoothing) through
Scores.bootstrap_ci, Scores.bootstrap_sample and GroupScores.bootstrap_sample."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
from scipy import stats

import mlci
from mlci import GroupScores, Scores
from mlci.engine.smoothing import silverman_bandwidth, subsample_counts

SCALE = float(os.environ["MLCI_SLOW_SCALE"])
RNG = np.random.default_rng(0)
S = Scores(pos=RNG.normal(1, 1, 300), neg=RNG.normal(0, 1, 300))


def _width(r):
    return r.confidence_interval.high - r.confidence_interval.low


# ------------------------------------------------------------------ bandwidth
def test_silverman_bandwidth_by_hand():
    # Silverman (1986) eq. 3.31: 0.9 * min(sd, IQR / 1.34) * n^(-1/5)
    x = np.array([0.0, 1, 2, 3, 4, 5, 6, 7, 8, 30])
    sd, iqr = np.std(x, ddof=1), stats.iqr(x)
    assert silverman_bandwidth(x) == pytest.approx(0.9 * min(sd, iqr / 1.34) * 10**-0.2)
    assert silverman_bandwidth([1.0, np.inf, -np.inf]) == 0.0
    # IQR 0: the sd alone
    y = np.array([1.0] * 8 + [0.0, 5.0])
    assert silverman_bandwidth(y) == pytest.approx(0.9 * np.std(y, ddof=1) * 10**-0.2)


# ------------------------------------------------------------------ subsampling
def test_subsample_counts_draw_without_replacement_per_cell():
    cells = [np.arange(7), np.arange(7, 12)]
    fn, m, k = subsample_counts(cells, 0.6, 12)
    c = fn(np.random.default_rng(1), 50)
    assert set(np.unique(c)) <= {0.0, 1.0}
    assert (c[:, :7].sum(1) == 4).all() and (c[:, 7:].sum(1) == 3).all()
    assert m == 7 and k == pytest.approx(np.sqrt(7 / 5))
    with pytest.raises(ValueError, match="`subsample`"):
        subsample_counts([np.arange(3)], 0.2, 3)


@pytest.mark.parametrize("fraction", [0.2, 0.5, 0.8])
def test_rescaled_subsample_spread_matches_the_bootstrap(fraction):
    # a rate at a fixed threshold is a mean: after rescaling by sqrt(m / (n - m)) the
    # subsample replicates have the bootstrap's spread, whatever the fraction (unscaled,
    # they would be sqrt((1 - f) / f) times as wide: 2 at f = 0.2, 0.5 at f = 0.8)
    boot = S.bootstrap_ci("tpr", threshold=0.5, rng=3, n_resamples=2000, method="percentile")
    sub = S.bootstrap_ci(
        "tpr",
        threshold=0.5,
        resampling=mlci.Resampling(subsample=fraction),
        rng=3,
        n_resamples=2000,
    )
    assert sub.method == "basic" and sub.details["subsample"]["fraction"] == fraction
    assert sub.standard_error / boot.standard_error == pytest.approx(1.0, abs=0.1)
    assert _width(sub) / _width(boot) == pytest.approx(1.0, abs=0.12)


def test_subsample_levels_methods_and_refusals():
    r = S.bootstrap_ci(
        "eer",
        resampling=mlci.Resampling(subsample=0.5),
        rng=1,
        n_resamples=200,
        confidence_level=[0.8, 0.95],
    )
    one = S.bootstrap_ci(
        "eer",
        resampling=mlci.Resampling(subsample=0.5),
        rng=1,
        n_resamples=200,
        confidence_level=0.95,
    )
    assert r[1].confidence_interval == one.confidence_interval
    assert _width(r[0]) < _width(r[1])
    p = S.bootstrap_ci(
        "eer",
        resampling=mlci.Resampling(subsample=0.5),
        method="percentile",
        rng=1,
        n_resamples=200,
    )
    assert p.method == "percentile"
    with pytest.raises(ValueError, match="`method`='bca'"):
        S.bootstrap_ci(
            "eer", resampling=mlci.Resampling(subsample=0.5), method="bca", n_resamples=20
        )
    with pytest.raises(ValueError, match="rescaled subsamples"):
        one.interval(method="bc")
    for kw, design, name in (
        ({}, {"sampler": lambda rng, b: np.ones((b, 600))}, "`sampler`"),
        ({"conditions": np.arange(600) % 20}, {}, "`conditions`"),
        ({}, {"weights": "poisson"}, "`weights`"),
    ):
        with pytest.raises(ValueError, match=name):
            S.bootstrap_ci(
                "eer", resampling=mlci.Resampling(subsample=0.5, **design), n_resamples=20, **kw
            )
    for bad, err in ((0.0, ValueError), (1.0, ValueError), ("half", TypeError), (True, TypeError)):
        with pytest.raises(err, match="`subsample`"):
            S.bootstrap_ci("eer", resampling=mlci.Resampling(subsample=bad), n_resamples=20)


def test_subsample_within_strata():
    strata = np.arange(600) % 3
    r = S.bootstrap_ci(
        "auc", resampling=mlci.Resampling(subsample=0.5), strata=strata, rng=0, n_resamples=100
    )
    assert r.details["subsample"]["m"] == 300


def test_bootstrap_sample_subsample_is_score_analysis_proportion():
    s = Scores(pos=[1, 2, 3, 4, 5, 6], neg=[1, 2, 3, 4])
    h = s.bootstrap_sample(subsample=0.5, stratify=True, rng=0)
    assert (h.n_pos, h.n_neg) == (3, 2)
    assert set(h.pos) <= set(s.pos) and len(set(h.pos)) == 3  # without replacement
    with pytest.raises(ValueError, match="`subsample`"):
        s.bootstrap_sample(subsample=0.5, weights="poisson")


# ------------------------------------------------------------------ smoothing
def test_smoothed_sample_jitters_with_the_bandwidth():
    s = Scores(pos=np.arange(200.0), neg=np.arange(200.0) + 0.5)
    a = s.bootstrap_sample(rng=4, stratify=True, smoothing=0.25)
    # every score moved off the grid, by noise of sd 0.25
    off = np.concatenate([a.pos - np.round(a.pos), a.neg - np.round(a.neg - 0.5) - 0.5])
    assert np.std(off) == pytest.approx(0.25, rel=0.15)
    b = s.bootstrap_sample(rng=4, stratify=True)
    assert set(b.pos) <= set(s.pos)
    # easy samples (infinite scores) stay infinite; the others move
    e = Scores(pos=[1.0, 2.0, 3.0], neg=[0.0, 1.0], n_easy_pos=2)
    j = e.bootstrap_sample(rng=0, smoothing=0.5, sampler=lambda rng, b: np.ones((b, 7)))
    assert np.isposinf(j.pos).sum() == 2 and not set(j.pos[np.isfinite(j.pos)]) & {1.0, 2.0, 3.0}


def test_smoothed_interval_is_reproducible_on_any_batch_and_fills_gaps():
    with mlci.config_context(batch=7):
        a = S.bootstrap_ci("eer", resampling=mlci.Resampling(smoothing=True), rng=3, n_resamples=60)
    b = S.bootstrap_ci("eer", resampling=mlci.Resampling(smoothing=True), rng=3, n_resamples=60)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    assert a.scheme == "strata+smoothed"
    assert a.details["smoothing"]["bandwidth_pos"] == pytest.approx(silverman_bandwidth(S.pos))
    # few distinct scores: the plain bootstrap's thresholds sit on them, smoothed ones do not
    t = Scores(pos=np.repeat([1.0, 2.0, 3.0], 30), neg=np.repeat([0.0, 1.0, 2.0], 30))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the plain replicates may all be one score
        plain = t.bootstrap_ci(
            "threshold_at_fpr",
            rate=0.5,
            rng=0,
            n_resamples=100,
            resampling=mlci.Resampling(algorithm="weights"),
        )
    smooth = t.bootstrap_ci(
        "threshold_at_fpr",
        rate=0.5,
        resampling=mlci.Resampling(smoothing=0.3),
        rng=0,
        n_resamples=100,
    )
    assert len(np.unique(plain.bootstrap_distribution)) < 40
    assert len(np.unique(smooth.bootstrap_distribution)) == 100


def test_smoothing_with_a_custom_sampler_and_a_function_metric():
    def pos_only(rng, b):
        return np.c_[rng.multinomial(300, np.full(300, 1 / 300), size=b), np.ones((b, 300))]

    r = S.bootstrap_ci(
        "eer", resampling=mlci.Resampling(smoothing=True, sampler=pos_only), rng=1, n_resamples=50
    )
    assert r.scheme == "custom+smoothed"
    f = S.bootstrap_ci(
        lambda sc: sc.auc(), resampling=mlci.Resampling(smoothing=0.1), rng=1, n_resamples=50
    )
    assert np.isfinite(f.confidence_interval.low)


def test_smoothing_refusals():
    w = Scores.from_labels([0, 1, 1, 0], [0.1, 0.9, 0.6, 0.4], sample_weight=[1, 2, 1, 1])
    with pytest.raises(ValueError, match="`smoothing`"):
        w.bootstrap_ci("auc", resampling=mlci.Resampling(smoothing=True), n_resamples=20)
    with pytest.raises(ValueError, match="`smoothing`"):
        w.bootstrap_sample(smoothing=True)
    with pytest.raises(ValueError, match="`smoothing`"):
        S.bootstrap_ci(
            "eer", resampling=mlci.Resampling(smoothing=True, algorithm="lazy"), n_resamples=20
        )
    for bad, err in ((-0.1, ValueError), (np.inf, ValueError), ("silverman", TypeError)):
        with pytest.raises(err, match="`smoothing`"):
            S.bootstrap_sample(smoothing=bad)


def test_group_scores_sample_smoothing_and_subsample_by_group():
    gs = GroupScores(
        np.arange(8.0),
        np.arange(8.0) + 0.5,
        pos_groups=list("aabbaabb"),
        neg_groups=list("aabbaabb"),
    )
    h = gs.bootstrap_sample(rng=0, by_group=True, stratify=True, subsample=0.5)
    assert (h.n_pos, h.n_neg) == (4, 4) and sorted(h.neg_groups.tolist()) == ["a", "a", "b", "b"]
    j = gs.bootstrap_sample(rng=0, by_group=True, smoothing=0.2)
    assert not set(j.pos) & set(gs.pos)


# ------------------------------------------------------------------ coverage
@pytest.mark.slow
def test_subsample_interval_coverage():
    # coverage of the rescaled half-sample interval of a TPR at a fixed threshold (true
    # value 1 - Phi(-0.5) for N(1, 1) positives), n = 150 per class
    reps = max(40, int(400 * SCALE))
    rng = np.random.default_rng(11)
    truth = 1 - stats.norm.cdf(0.5 - 1.0)
    hit = 0
    for i in range(reps):
        s = Scores(pos=rng.normal(1, 1, 150), neg=rng.normal(0, 1, 150))
        r = s.bootstrap_ci(
            "tpr", threshold=0.5, resampling=mlci.Resampling(subsample=0.5), rng=i, n_resamples=400
        )
        hit += r.confidence_interval.low <= truth <= r.confidence_interval.high
    # binomial tolerance around 0.95 (3 sd)
    assert abs(hit / reps - 0.95) < 3 * np.sqrt(0.95 * 0.05 / reps) + 0.01
