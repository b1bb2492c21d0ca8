"""Curves and bands: parity with scikit-learn, and coverage of the bands by simulation."""

import os

import numpy as np
import pytest
from scipy.stats import binomtest, norm
from sklearn import metrics as skm

import mlci
from mlci import Scores
from mlci.scores.curves import (
    auc_ci,
    det_curve,
    operating_point_ci,
    partial_auc,
    pr_curve,
    roc_band,
    roc_curve,
)

SCALE = float(os.environ["MLCI_SLOW_SCALE"])


def data(rng):
    pos = rng.integers(0, 8, 40).astype(float)
    neg = rng.integers(-2, 6, 50).astype(float)
    return pos, neg, np.r_[np.ones(40), np.zeros(50)], np.r_[pos, neg]


def test_points_match_sklearn_with_ties():
    rng = np.random.default_rng(0)
    for _ in range(20):
        pos, neg, y, s = data(rng)
        sc = Scores(pos, neg)
        f, t, th = skm.roc_curve(y, s, drop_intermediate=False)
        c = roc_curve(sc)
        np.testing.assert_allclose(c.x, f)
        np.testing.assert_allclose(c.y, t)
        np.testing.assert_allclose(c.thresholds[1:], th[1:])  # sklearn's first is inf
        prec, rec, _ = skm.precision_recall_curve(y, s, drop_intermediate=False)
        p = pr_curve(sc)
        np.testing.assert_allclose(p.x, rec[::-1])
        np.testing.assert_allclose(p.y, prec[::-1])
        d = det_curve(sc, probit=False)
        np.testing.assert_allclose(d.y, 1 - t)
        assert partial_auc(sc) == pytest.approx(skm.roc_auc_score(y, s))
        for a in (0.05, 0.2, 0.6):
            assert partial_auc(sc, a, mcclish=True) == pytest.approx(
                skm.roc_auc_score(y, s, max_fpr=a)
            )


def test_bands_and_intervals():
    rng = np.random.default_rng(1)
    sc = Scores(rng.normal(1, 1, 200), rng.normal(0, 1, 300))
    with pytest.warns(mlci.NearBoundWarning, match="simultaneous ROC band"):  # TPR near 1
        b = roc_band(sc, np.linspace(0, 1, 21), rng=0, n_resamples=300, simultaneous=True)
    assert b.critical_value > norm.ppf(0.975)
    assert np.all(b.low <= b.pointwise_low + 1e-12) and np.all(b.high >= b.pointwise_high - 1e-12)
    tb = roc_band(sc, kind="threshold", rng=0, n_resamples=200)
    assert tb.extra["fpr_low"].shape == tb.x.shape
    r = auc_ci(sc, rng=0, n_resamples=300)
    assert r.confidence_interval.low < sc.auc() < r.confidence_interval.high
    r = auc_ci(sc, max_fpr=0.2, mcclish=True, rng=0, n_resamples=200)
    assert 0.5 < r.estimate < 1
    fnr, thr = operating_point_ci(sc, "fnr", at=[0.05, 0.1], rng=0, n_resamples=300)
    assert fnr.confidence_interval.low.shape == (2,)
    np.testing.assert_allclose(thr.estimate, sc.threshold_at_fpr([0.05, 0.1]))
    with pytest.raises(TypeError, match="Scores"):
        roc_curve([1, 2, 3])
    with pytest.raises(ValueError, match="max_fpr"):
        partial_auc(sc, 1.5)


def _coverage(make_interval, truth, n_sim):
    hits = 0
    for i in range(n_sim):
        lo, hi = make_interval(np.random.default_rng(1000 + i))
        hits += bool(np.all((lo <= truth) & (truth <= hi)))
    return hits


@pytest.mark.slow
def test_coverage_operating_point_and_simultaneous_band():
    # binormal model: FNR at FPR = 10% is Phi(z_0.9 - d), TPR(f) = Phi(d - z_(1-f))
    d, n_sim = 1.5, max(40, int(200 * SCALE))
    truth_fnr = norm.cdf(norm.ppf(0.9) - d)

    def op(rng):
        s = Scores(rng.normal(d, 1, 300), rng.normal(0, 1, 300))
        r, _ = operating_point_ci(s, "fnr", at=0.1, rng=rng, n_resamples=400, method="percentile")
        return r.confidence_interval

    hits = _coverage(op, truth_fnr, n_sim)
    assert binomtest(hits, n_sim, 0.95).pvalue > 0.001, hits / n_sim

    # the grid stays away from TPR = 1, where the bootstrap collapses (every replicate
    # gives 1): no bootstrap band covers there, which the docs say
    d = 1.0
    grid = np.linspace(0.05, 0.6, 8)
    truth_tpr = norm.cdf(d - norm.ppf(1 - grid))

    def band(rng):
        s = Scores(rng.normal(d, 1, 300), rng.normal(0, 1, 300))
        b = roc_band(s, grid, simultaneous=True, rng=rng, n_resamples=400)
        return b.low, b.high

    hits = _coverage(band, truth_tpr, n_sim)
    # simultaneous coverage: at least nominal minus Monte-Carlo error
    assert hits / n_sim > 0.95 - 3 * np.sqrt(0.05 * 0.95 / n_sim), hits / n_sim


def test_joint_parts_share_replicates_and_keep_their_range():
    # a threshold band's TPR and FPR come from one run: the same numbers as two separate
    # bootstraps with the same seed (the lazy sampler draws the same counts)
    rng = np.random.default_rng(2)
    sc = Scores(rng.normal(1, 1, 150), rng.normal(0, 1, 150))
    grid = np.array([-0.5, 0.0, 0.5, 1.0])
    band = roc_band(sc, grid, kind="threshold", rng=3, n_resamples=200)
    tpr = sc.bootstrap_ci("tpr", threshold=grid, rng=3, n_resamples=200, method="percentile")
    fpr = sc.bootstrap_ci("fpr", threshold=grid, rng=3, n_resamples=200, method="percentile")
    np.testing.assert_array_equal(band.result.bootstrap_distribution, tpr.bootstrap_distribution)
    np.testing.assert_array_equal(band.extra["fpr_low"], fpr.confidence_interval.low)
    # an operating point: the rate's normal interval is clipped into [0, 1], the
    # threshold's is not (a threshold has no range)
    s = Scores(rng.normal(3.5, 1, 40), rng.normal(0, 1, 400))
    rate, thr = operating_point_ci(s, "fnr", at=0.05, method="normal", rng=0, n_resamples=300)
    se = np.std(rate.bootstrap_distribution, ddof=1)
    assert rate.estimate - 1.959964 * se < 0 and rate.confidence_interval.low == 0.0
    se_t = np.std(thr.bootstrap_distribution, ddof=1)
    assert thr.confidence_interval.low == pytest.approx(thr.estimate - 1.959963985 * se_t)
    assert rate.metric == "fnr_at_fpr" and thr.metric == "threshold_at_fpr"
    with pytest.raises(ValueError, match="`alternative`"):
        roc_band(sc, grid, simultaneous=True, alternative="greater", n_resamples=50)
    # a partial AUC lies in [0, max_fpr]
    p = auc_ci(sc, max_fpr=0.2, alternative="greater", rng=0, n_resamples=100)
    assert p.confidence_interval.high == 0.2


# ------------------------------------------------- the ROC at given points
def test_roc_curve_at_thresholds_matches_score_analysis():
    # reference: score_analysis.roc(scores, thresholds=...) (0.3.12)
    import score_analysis as sa

    rng = np.random.default_rng(3)
    pos, neg = np.round(rng.normal(1, 1, 40), 1), np.round(rng.normal(0, 1, 30), 1)
    t = np.linspace(-2, 3, 17)
    ours = roc_curve(Scores(pos, neg), thresholds=t)
    ref = sa.roc(sa.Scores(pos, neg), thresholds=t)
    np.testing.assert_allclose(np.sort(ours.x), np.sort(ref.fpr), atol=1e-12)
    np.testing.assert_allclose(np.sort(ours.y), np.sort(ref.tpr), atol=1e-12)
    assert np.all(np.diff(ours.x) >= 0)


def test_roc_curve_n_points_hits_even_fnr_and_fpr_levels():
    rng = np.random.default_rng(4)
    s = Scores(rng.normal(1, 1, 50), rng.normal(0, 1, 40))
    c = roc_curve(s, n_points=22)
    assert len(c.x) == 22
    levels = np.linspace(0, 1, 11)
    fnr = 1 - c.y
    for lv in levels:  # the continuous data attain every level k/n exactly
        assert np.min(np.abs(fnr - np.round(lv * 50) / 50)) < 1e-12
        assert np.min(np.abs(c.x - np.round(lv * 40) / 40)) < 1e-12


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"n_points": 1}, "n_points"),
        ({"n_points": "5"}, "n_points"),
        ({"thresholds": ["a"]}, "thresholds"),
        ({"thresholds": [np.nan]}, "thresholds"),
        ({"thresholds": [0.1], "n_points": 5}, "n_points"),
    ],
)
def test_roc_curve_points_bad_input(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        roc_curve(Scores([1.0, 2.0], [0.0, 1.5]), **kwargs)


def _roc_by_search(sc, **kw):
    """roc_curve's points as before issue 25: each rate searched at every threshold."""
    from mlci.scores.curves import _check_axes, _points

    x_name, y_name = _check_axes(kw.get("x_axis", "fpr"), kw.get("y_axis", "tpr"))
    thr = _points(sc)[2]
    x = np.asarray(sc.metric(x_name, thr), dtype=float).reshape(-1)
    y = np.asarray(sc.metric(y_name, thr), dtype=float).reshape(-1)
    order = np.lexsort((y, x))
    return x[order], y[order], np.asarray(thr, dtype=float)[order]


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize(
    "opts", [{}, {"score_class": "neg"}, {"equal_class": "neg"}, {"weights": True}]
)
@pytest.mark.parametrize("axes", [("fpr", "tpr"), ("fnr", "fpr"), ("tnr", "fnr")])
def test_every_operating_point_without_a_search_equals_the_search(ties, opts, axes):
    # issue 25: the full curve reads the layout's atom boundaries instead of searching
    # every threshold (0.16 s a curve at 10^6 samples): the same points, bit for bit
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 3000)
    s = y + rng.normal(size=3000)
    if ties:
        s = np.round(s, 1)
    kw = {k: v for k, v in opts.items() if k != "weights"}
    if opts.get("weights"):
        kw["sample_weight"] = rng.integers(1, 4, 3000).astype(float)
    sc = Scores.from_labels(y, s, **kw)
    c = roc_curve(sc, x_axis=axes[0], y_axis=axes[1])
    x, yy, thr = _roc_by_search(sc, x_axis=axes[0], y_axis=axes[1])
    assert np.array_equal(c.x, x) and np.array_equal(c.y, yy)
    assert np.array_equal(c.thresholds, thr)


def test_every_operating_point_with_infinite_scores():
    # an infinite score: the search (the threshold past +inf is +inf again)
    sc = Scores(pos=[1.0, 2.0, np.inf], neg=[0.5, np.inf, -np.inf])
    c = roc_curve(sc)
    x, y, thr = _roc_by_search(sc)
    assert np.array_equal(c.x, x) and np.array_equal(c.y, y)
    assert np.array_equal(c.thresholds, thr)
