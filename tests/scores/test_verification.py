"""EER, DCF and Cllr against independent references; EER interval coverage (slow)."""

import os

import numpy as np
import pytest
from scipy.stats import binomtest, norm
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import roc_curve

from mlci import Scores
from mlci.scores.verification import (
    cllr,
    cllr_ci,
    dcf_ci,
    detection_cost,
    eer_ci,
    min_cllr,
    min_detection_cost,
)

SCALE = float(os.environ["MLCI_SLOW_SCALE"])


def test_min_dcf_matches_brute_force():
    rng = np.random.default_rng(0)
    pos, neg = rng.normal(1, 1, 80).round(1), rng.normal(-1, 1, 120).round(1)
    s = Scores(pos, neg)
    y, x = np.r_[np.ones(80), np.zeros(120)], np.r_[pos, neg]
    fpr, tpr, _ = roc_curve(y, x, drop_intermediate=False)
    for p, cm, cf in [(0.5, 1, 1), (0.01, 10, 1), (0.2, 1, 3)]:
        ref = np.min(cm * p * (1 - tpr) + cf * (1 - p) * fpr) / min(cm * p, cf * (1 - p))
        assert min_detection_cost(s, p, c_miss=cm, c_fa=cf) == pytest.approx(ref)
        t = np.log(cf * (1 - p) / (cm * p))
        act = (cm * p * np.mean(pos < t) + cf * (1 - p) * np.mean(neg >= t)) / min(
            cm * p, cf * (1 - p)
        )
        assert detection_cost(s, p, c_miss=cm, c_fa=cf) == pytest.approx(act)


def test_cllr_and_min_cllr_match_references():
    rng = np.random.default_rng(1)
    for _ in range(5):
        pos, neg = rng.normal(1, 2, 150).round(1), rng.normal(-1, 2, 200).round(1)
        s = Scores(pos, neg)
        ref = 0.5 * (np.mean(np.log2(1 + np.exp(-pos))) + np.mean(np.log2(1 + np.exp(neg))))
        assert cllr(s) == pytest.approx(ref)
        # min Cllr: scikit-learn's isotonic regression (PAV) of the labels on the scores
        y, x = np.r_[np.ones(150), np.zeros(200)], np.r_[pos, neg]
        post = IsotonicRegression().fit_transform(x, y)
        with np.errstate(divide="ignore"):
            llr = np.log(post) - np.log1p(-post) - np.log(150 / 200)
        ref = 0.5 * (np.mean(np.logaddexp(0, -llr[:150])) + np.mean(np.logaddexp(0, llr[150:])))
        assert min_cllr(s) == pytest.approx(ref / np.log(2))
        assert min_cllr(s) <= cllr(s) + 1e-12
    assert min_cllr(Scores([1.0, 2.0], [-1.0, 0.0])) == 0.0


def test_intervals_run_and_refuse_bad_input():
    rng = np.random.default_rng(2)
    s = Scores(rng.normal(2, 2, 300), rng.normal(-2, 2, 400))
    e = eer_ci(s, rng=0, n_resamples=300)
    assert e.eer.estimate == pytest.approx(s.eer().eer)
    assert e.threshold.estimate == pytest.approx(s.eer().threshold)
    for kind in ("min", "actual"):
        r = dcf_ci(s, 0.05, kind=kind, rng=0, n_resamples=200, method="percentile")
        assert r.confidence_interval.low <= r.estimate <= r.confidence_interval.high
    r = cllr_ci(s, kind="min", rng=0, n_resamples=100, method="percentile")
    assert r.estimate == pytest.approx(min_cllr(s))
    with pytest.raises(ValueError, match="p_target"):
        min_detection_cost(s, 1.5)
    with pytest.raises(ValueError, match="log-likelihood"):
        cllr(Scores([1.0], [0.0], score_class="neg"))
    # a threshold with the minimum DCF was silently ignored
    with pytest.raises(ValueError, match="`threshold` applies to the actual DCF"):
        dcf_ci(s, 0.05, kind="min", threshold=0.0, n_resamples=50)
    with pytest.raises(ValueError, match="`kind`"):
        dcf_ci(s, 0.05, kind="average", n_resamples=50)


@pytest.mark.slow
def test_eer_interval_coverage():
    # binormal, equal variances, separation d: EER = Phi(-d/2), threshold d/2
    d, n_sim = 2.0, max(40, int(200 * SCALE))
    hits_e = hits_t = 0
    for i in range(n_sim):
        rng = np.random.default_rng(500 + i)
        s = Scores(rng.normal(d, 1, 400), rng.normal(0, 1, 400))
        r = eer_ci(s, rng=i, n_resamples=500, method="percentile")
        hits_e += (
            r.eer.confidence_interval.low <= norm.cdf(-d / 2) <= r.eer.confidence_interval.high
        )
        lo, hi = r.threshold.confidence_interval
        hits_t += lo <= d / 2 <= hi
    for hits in (hits_e, hits_t):
        assert binomtest(hits, n_sim, 0.95).pvalue > 0.001, hits / n_sim
