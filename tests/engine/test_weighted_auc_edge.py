"""auto's interval of a weighted ROC AUC near its bound (mlci.engine.weighted_auc_edge;
docs/validation.md, "The weighted AUC at 1 and Cllr at few targets (session 11, cllrwauc)").

References: scikit-learn's ``roc_auc_score(sample_weight=...)`` for the weighted AUC;
the unweighted rule's interval (:func:`mlci.intervals.auc_score.auc_score_bounds`,
``floored``; itself checked against Newcombe 2006 in tests/classical) for unit weights;
Kish's (1965, sec. 11.7) effective size ``(sum w)^2 / sum w^2`` by hand; the bootstrap's
own variance (mlci's replicates) for the weighted DeLong variance.
"""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest
from scipy.special import ndtr, ndtri

import mlci
from mlci.engine.weighted_auc_edge import (
    MAX_MISORDERED_PAIRS,
    WEIGHTED_AUC_CLOSE_BAND,
    WEIGHTED_AUC_EDGE_BAND,
    WeightedAucTerms,
    misordered_pairs,
    weighted_auc_interval,
    weighted_auc_rule,
    weighted_auc_terms,
)
from mlci.intervals.auc_score import atom_placement_terms, auc_score_bounds

skm = pytest.importorskip("sklearn.metrics")


def _weighted_sample(seed: int, n: int, prev: float, error: float, q: float, conditions=None):
    """design_search_scores' ``weighted`` family: binormal scores (1 - AUC = ``error``),
    the easy negatives (below 0) kept with probability q and weighted 1/q; over
    ``conditions`` (count, icc) a shift per condition in the pooled units."""
    g = np.random.default_rng(seed)
    e = math.sqrt(2) * float(ndtri(1 - error))
    y = (g.random(n) < prev).astype(int)
    cond = None
    if conditions is None:
        z = g.standard_normal(n) + e * y
    else:
        c, icc = conditions
        s2 = icc / (1 - icc)
        cond = np.arange(n) % c
        u = math.sqrt(s2) * g.standard_normal(c)[cond]
        z = (g.standard_normal(n) + u) / math.sqrt(1 + s2) + e * y
    easy = (y == 0) & (z < 0)
    keep = ~easy | (g.random(n) < q)
    w = np.where(easy, 1 / q, 1.0)[keep]
    truth = float(ndtr(e / math.sqrt(2)))
    return y[keep], z[keep], w, None if cond is None else cond[keep], truth


def test_terms_match_sklearn_and_kish_by_hand():
    y, s, w, _, _ = _weighted_sample(1, 400, 0.3, 0.05, 0.2)
    t = weighted_auc_terms(s, y == 1, w)
    assert t.auc == pytest.approx(skm.roc_auc_score(y, s, sample_weight=w), abs=1e-12)
    wn = w[y == 0]
    assert t.n_eff == pytest.approx(wn.sum() ** 2 / (wn**2).sum())
    assert t.m_eff == pytest.approx(float((y == 1).sum()))  # the positives all weigh 1
    assert t.deff == 1.0 and t.n_conditions is None


def test_unit_weights_give_the_unweighted_rule():
    """With unit weights of independent rows the terms are DeLong's and the interval is
    the unweighted rule's (auc_score_bounds, floored), ties included."""
    g = np.random.default_rng(2)
    y = np.r_[np.ones(40, int), np.zeros(120, int)]
    s = np.round(g.normal(size=160) + 3.0 * y, 1)  # ties
    t = weighted_auc_terms(s, y == 1, np.ones(160))
    u_neg, c_neg = np.unique(s[y == 0], return_counts=True)
    u_pos, c_pos = np.unique(s[y == 1], return_counts=True)
    auc, vp, vn, m, n = atom_placement_terms(u_neg, c_neg, u_pos, c_pos)
    assert (t.auc, t.v_pos, t.v_neg) == pytest.approx((auc, vp, vn), rel=1e-12)
    for level, alt in ((0.95, "two-sided"), (0.9, "greater")):
        ref = auc_score_bounds(auc, vp, vn, m, n, "floored", level, alt)[:2]
        assert weighted_auc_interval(t, level, alt) == pytest.approx(ref, abs=1e-12)


def test_weighted_delong_variance_is_the_bootstraps():
    """The linearized variance of the weighted AUC against the variance of mlci's own
    replicates (class-stratified, the rows drawn with their weights): within 15%."""
    y, s, w, _, _ = _weighted_sample(3, 1500, 0.3, 0.05, 0.2)
    t = weighted_auc_terms(s, y == 1, w)
    sc = mlci.Scores.from_labels(y, s, sample_weight=w)
    res = mlci.auc_ci(sc, n_resamples=2000, rng=0, method="percentile")
    boot = float(np.var(res.bootstrap_distribution, ddof=1))
    assert t.v_pos + t.v_neg == pytest.approx(boot, rel=0.15)


def test_conditions_design_effect():
    # one row per condition: the conditions' variance is the rows' (deff about 1)
    y, s, w, _, _ = _weighted_sample(4, 800, 0.3, 0.05, 0.3)
    t = weighted_auc_terms(s, y == 1, w, conditions=np.arange(len(y)))
    assert t.deff == pytest.approx(1.0, abs=0.02)
    # strong clustering: deff well above 1, and the interval wider than iid
    y, s, w, cond, _ = _weighted_sample(5, 2000, 0.3, 0.05, 0.3, conditions=(20, 0.5))
    tc = weighted_auc_terms(s, y == 1, w, conditions=cond)
    ti = weighted_auc_terms(s, y == 1, w)
    assert tc.deff > 2 and tc.n_conditions == 20
    lo_c, hi_c = weighted_auc_interval(tc)
    lo_i, hi_i = weighted_auc_interval(ti)
    assert lo_c < lo_i and hi_c - lo_c > hi_i - lo_i
    # at the bound the rows' variance is 0: deff 1 (Korn & Graubard; NCHS)
    at1 = WeightedAucTerms(1.0, 0.0, 0.0, 50.0, 200.0, 0.0, 30)
    assert at1.deff == 1.0


def test_rule_band_pairs_and_refusals():
    # within the band with fewer than MAX_MISORDERED_PAIRS effective mis-ordered pairs
    assert MAX_MISORDERED_PAIRS == 10.0
    edge = 1 - WEIGHTED_AUC_EDGE_BAND
    assert weighted_auc_rule(WeightedAucTerms(edge, 0, 0, 30.0, 30.0))  # 9 pairs
    assert not weighted_auc_rule(WeightedAucTerms(edge, 0, 0, 30.0, 40.0))  # 12 pairs
    assert not weighted_auc_rule(WeightedAucTerms(edge - 1e-4, 0, 0, 3.0, 3.0))  # band
    # within WEIGHTED_AUC_CLOSE_BAND whatever the pairs (135 here)
    assert WEIGHTED_AUC_CLOSE_BAND == 0.001
    assert weighted_auc_rule(WeightedAucTerms(0.9995, 1e-7, 1e-7, 300.0, 900.0))
    assert not weighted_auc_rule(WeightedAucTerms(0.9985, 1e-7, 1e-7, 300.0, 900.0))
    assert misordered_pairs(WeightedAucTerms(0.999, 0, 0, 100.0, 50.0)) == pytest.approx(5.0)
    # over conditions the pairs are counted at the sizes the interval reads (deff, t)
    clustered = WeightedAucTerms(0.999, 1e-6, 1e-6, 100.0, 50.0, 4e-6, 10)
    assert misordered_pairs(clustered) < 5.0 / 2  # deff 2, and t(9) > z
    assert not weighted_auc_rule(WeightedAucTerms(0.9, 1e-4, 1e-4, 30.0, 90.0))
    assert weighted_auc_rule(WeightedAucTerms(0.0, 0, 0, 30.0, 90.0))  # the lower bound
    assert not weighted_auc_rule(WeightedAucTerms(1.0, 0, 0, 1.5, 90.0))  # < 2 effective
    assert not weighted_auc_rule(WeightedAucTerms(1.0, 0, 0, 30.0, 90.0, 0.0, 1))


def test_auc_ci_weighted_at_1_gets_the_interval_and_warns():
    """s12sc #24's regression, as a fixed test set: 1 - AUC 1e-5, weighted, over 400
    conditions, a test set without a mis-ordered pair (seed 20); BCa collapses to [1, 1]
    (the truth below it), auto covers and warns."""
    y, s, w, cond, truth = _weighted_sample(20, 1669, 0.23, 1.04e-5, 0.2, conditions=(400, 0.4))
    sc = mlci.Scores.from_labels(y, s, sample_weight=w)
    with pytest.warns(mlci.FewConditionsWarning, match="weighted ROC AUC"):
        res = mlci.auc_ci(sc, conditions=cond, n_resamples=300, rng=0)
    assert res.method == "auc-score-floored"
    assert "Kish's effective class sizes" in res.details["method_reason"]
    low, high = res.confidence_interval
    assert low < truth <= high <= 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bca = res.interval(method="bca").confidence_interval
    assert bca.low == bca.high == 1.0 > truth  # the collapse the rule replaces
    # re-read at another level: nested
    lo90, hi90 = res.interval(confidence_level=0.9).confidence_interval
    assert low < lo90 and hi90 <= high
    # the same through Scores.bootstrap_ci
    with pytest.warns(mlci.FewConditionsWarning):
        again = sc.bootstrap_ci("auc", conditions=cond, n_resamples=300, rng=0)
    assert again.confidence_interval == pytest.approx(tuple(res.confidence_interval))


def test_unit_weights_through_auc_ci_match_the_unweighted_door():
    g = np.random.default_rng(7)
    y = np.r_[np.ones(60, int), np.zeros(200, int)]
    s = g.normal(size=260) + 4.0 * y
    with pytest.warns(mlci.FewConditionsWarning):
        plain = mlci.auc_ci(y, s, n_resamples=200, rng=0)
    with pytest.warns(mlci.FewConditionsWarning):
        unit = mlci.auc_ci(mlci.Scores.from_labels(y, s, sample_weight=np.ones(260)),
                           n_resamples=200, rng=0)  # fmt: skip
    assert plain.method == unit.method == "auc-score-floored"
    assert tuple(unit.confidence_interval) == pytest.approx(tuple(plain.confidence_interval))


@pytest.mark.filterwarnings("ignore::mlci.FewResamplesWarning")
def test_away_from_the_bound_unchanged():
    """The fingerprint: a weighted AUC of 0.9 keeps BCa (no new warning, the interval
    auto gave before the rule)."""
    y, s, w, cond, _ = _weighted_sample(8, 600, 0.3, 0.1, 0.3, conditions=(30, 0.2))
    sc = mlci.Scores.from_labels(y, s, sample_weight=w)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mlci.auc_ci(sc, conditions=cond, n_resamples=200, rng=0)
    assert res.method == "bca"
    assert not any("weighted ROC AUC" in str(c.message) for c in caught)
    bca = mlci.auc_ci(sc, conditions=cond, n_resamples=200, rng=0, method="bca")
    assert tuple(res.confidence_interval) == tuple(bca.confidence_interval)


@pytest.mark.slow
def test_weighted_auc_at_1_coverage():
    """Coverage at s10sc #66's population (514 rows, 1 - AUC 4e-5, q 0.21, 59 conditions,
    ICC 0.27): BCa covered 0.44 (design search), auto's interval covers every test set
    (it errs wide).  60 test sets at scale 1 (6 at CI's 0.1); a miss is a failure: the
    interval's lower bound sits about 100 times the distance of the truth below 1."""
    k = max(6, round(60 * float(os.environ.get("MLCI_SLOW_SCALE", "0.1"))))
    covered = 0
    for i in range(k):
        y, s, w, cond, truth = _weighted_sample(
            100 + i, 514, 0.35, 3.95e-5, 0.21, conditions=(59, 0.27)
        )
        sc = mlci.Scores.from_labels(y, s, sample_weight=w)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = mlci.auc_ci(sc, conditions=cond, n_resamples=200, rng=i)
        covered += res.confidence_interval.low <= truth <= res.confidence_interval.high
    assert covered == k
