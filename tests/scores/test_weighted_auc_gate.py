"""auto's interval of a weighted ROC AUC with few effective samples in a class, away from
its bound (mlci.engine.weighted_auc_edge.weighted_auc_few_rule; docs/validation.md, "The
weighted AUC with few effective positives: the score interval (session 12, wauc150)").

References: Kish's (1965, sec. 11.7) effective size ``(sum w)^2 / sum w^2`` by hand (unit
weights: the count); the interval itself is :func:`weighted_auc_interval` (checked in
tests/engine/test_weighted_auc_edge.py against the unweighted score interval and
scikit-learn); the fingerprint's values are main's (wt-int 78e830c, before the gate).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.special import ndtr, ndtri

import mlci
from mlci.engine.weighted_auc_edge import (
    WEIGHTED_AUC_FEW_ROWS,
    WEIGHTED_AUC_METHOD,
    WeightedAucTerms,
    weighted_auc_few_rule,
    weighted_auc_interval,
    weighted_auc_rule,
    weighted_auc_terms,
)


def _weighted_sample(seed: int, n: int, prev: float, error: float, q: float):
    """design_search_scores' ``weighted`` family (as tests/engine/test_weighted_auc_edge.py):
    binormal scores with 1 - AUC = ``error``, the easy negatives (below 0) kept with
    probability q and weighted 1/q; the positives weigh 1."""
    g = np.random.default_rng(seed)
    e = math.sqrt(2) * float(ndtri(1 - error))
    y = (g.random(n) < prev).astype(int)
    z = g.standard_normal(n) + e * y
    easy = (y == 0) & (z < 0)
    keep = ~easy | (g.random(n) < q)
    w = np.where(easy, 1 / q, 1.0)[keep]
    return y[keep], z[keep], w, float(ndtr(e / math.sqrt(2)))


def _boundary_sample(n_pos: int):
    """``n_pos`` positives of weight 1 (Kish's size: ``n_pos`` rows) and 600 negatives
    weighted 1 or 2.5: AUC about 0.86, far from the edge rule's band."""
    g = np.random.default_rng(5)
    s = np.r_[g.normal(1.5, 1, n_pos), g.normal(0, 1, 600)]
    y = np.r_[np.ones(n_pos, int), np.zeros(600, int)]
    w = np.r_[np.ones(n_pos), np.where(g.random(600) < 0.5, 2.5, 1.0)]
    return y, s, w


def _quiet_auc(sc, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mlci.auc_ci(sc, n_resamples=200, rng=3, **kw)
    return res, [w.category for w in caught if issubclass(w.category, mlci.MlciWarning)]


@pytest.mark.parametrize(("n_pos", "fires"), [(119, True), (120, False)])
def test_the_gate_is_at_120_rows_of_the_smaller_class(n_pos, fires):
    assert WEIGHTED_AUC_FEW_ROWS == 120
    y, s, w = _boundary_sample(n_pos)
    t = weighted_auc_terms(s, y == 1, w)
    assert t.m_eff == pytest.approx(n_pos, abs=1e-9)  # unit weights: Kish's size is the count
    assert (t.pos_rows, t.neg_rows) == (n_pos, 600)
    assert 0.8 < t.auc < 0.92
    assert not weighted_auc_rule(t) and weighted_auc_few_rule(t) is fires
    res, warned = _quiet_auc(mlci.Scores.from_labels(y, s, sample_weight=w))
    if fires:
        assert res.method == WEIGHTED_AUC_METHOD
        assert res.confidence_interval == pytest.approx(weighted_auc_interval(t), abs=1e-12)
        reason = res.details["method_reason"]
        assert f"holds {n_pos} rows, fewer than 120" in reason
        assert "wauc150" in reason
        assert warned == []  # the interval holds there: no warning
        # re-read at another level and alternative: the same rule
        low = res.interval(confidence_level=0.9, alternative="greater").confidence_interval
        assert low[0] == pytest.approx(weighted_auc_interval(t, 0.9, "greater")[0], abs=1e-12)
        assert low[1] == 1.0
    else:
        assert res.method == "bca"


def test_the_gate_counts_rows_not_kish_sizes():
    # session 11's 500 rows at 30% (q 0.2): 150 positives against 210 negative rows of
    # Kish's size ~117, where BCa held (0.940-0.957): a class of many rows whose weights
    # vary is outside the gate
    g = np.random.default_rng(11)
    y = np.r_[np.ones(150, int), np.zeros(210, int)]
    s = np.r_[g.normal(1.5, 1, 150), g.normal(0, 1, 210)]
    w = np.r_[np.ones(150), np.where(np.arange(210) < 35, 5.0, 1.0)]
    t = weighted_auc_terms(s, y == 1, w)
    assert t.n_eff < WEIGHTED_AUC_FEW_ROWS < t.neg_rows  # Kish: 350^2 / 1050 = 116.7
    assert t.n_eff == pytest.approx(350**2 / 1050)
    assert not weighted_auc_few_rule(t)
    res, _ = _quiet_auc(mlci.Scores.from_labels(y, s, sample_weight=w))
    assert res.method == "bca"
    # either class: the negatives the fewer
    t = WeightedAucTerms(0.9, 1e-4, 1e-4, 900.0, 100.0, pos_rows=1000, neg_rows=119)
    assert weighted_auc_few_rule(t)
    t = WeightedAucTerms(0.9, 1e-4, 1e-4, 1.5, 900.0, pos_rows=10, neg_rows=1000)
    assert not weighted_auc_few_rule(t)  # fewer than 2 effective positives
    t = WeightedAucTerms(float("nan"), 1e-4, 1e-4, 50.0, 900.0, pos_rows=50, neg_rows=1000)
    assert not weighted_auc_few_rule(t)


def test_conditions_and_equal_weights_are_outside_the_gate():
    y, s, w = _boundary_sample(60)
    cond = np.arange(len(y)) % 23
    t = weighted_auc_terms(s, y == 1, w, cond)
    assert t.n_conditions == 23 and not weighted_auc_few_rule(t)
    res, _ = _quiet_auc(mlci.Scores.from_labels(y, s, sample_weight=w), conditions=cond)
    assert res.method == "bca"
    equal = np.full(len(y), 2.0)
    assert weighted_auc_terms(s, y == 1, equal).equal_weights
    res, _ = _quiet_auc(mlci.Scores.from_labels(y, s, sample_weight=equal))
    assert res.method == "bca"


def test_a_test_set_bca_missed_is_now_covered():
    # scripts/weighted_auc_away.py's cell 300's population (AUC 0.98, about 50 positives,
    # q 0.4), where BCa covered 0.880 of 300 test sets; this one (52 positives) BCa misses
    y, s, w, truth = _weighted_sample(43, 2000, 0.025, 0.02, 0.4)
    assert int(y.sum()) == 52 and truth == pytest.approx(0.98)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mlci.auc_ci(mlci.Scores.from_labels(y, s, sample_weight=w), n_resamples=500, rng=43)
        low, high = res.interval(method="bca").confidence_interval
    assert not low <= truth <= high  # BCa: [0.9826, 0.9948]
    assert res.method == WEIGHTED_AUC_METHOD
    low, high = res.confidence_interval
    assert low <= truth <= high  # [0.9627, 0.9972]


def _fingerprint_data(seed, n_pos, n_neg, shift, kind):
    g = np.random.default_rng(seed)
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    s = np.r_[g.normal(shift, 1, n_pos), g.normal(0, 1, n_neg)]
    if kind == "none":
        w = None
    elif kind == "ones":
        w = np.ones(n_pos + n_neg)
    elif kind == "neg":
        w = np.r_[np.ones(n_pos), np.where(g.random(n_neg) < 0.5, 2.5, 1.0)]
    else:
        w = g.uniform(0.5, 3.0, n_pos + n_neg)
    return y, s, w


#: (seed, positives, negatives, shift, weights, over 23 conditions, main's (low, high,
#: method)); weighted_few_50 enters the gate, the others keep main's interval to 1e-12
#: (weighted_few_100: 120 positive rows of Kish's size ~103, just outside)
FINGERPRINT = {
    "unweighted_40": (
        1,
        40,
        200,
        1.5,
        "none",
        False,
        (0.8020967210869262, 0.9432907507004334, "bca"),
    ),
    "unweighted_300": (
        2,
        300,
        300,
        1.0,
        "none",
        False,
        (0.7216201541425317, 0.7959562879221647, "bca"),
    ),
    "ones_60": (3, 60, 300, 2.0, "ones", False, (0.8575946819794016, 0.942732847571484, "bca")),
    "weighted_400": (
        4,
        400,
        600,
        1.0,
        "uniform",
        False,
        (0.7253045791272732, 0.7910670309885333, "bca"),
    ),
    "weighted_neg_250": (
        5,
        250,
        800,
        2.0,
        "neg",
        False,
        (0.8968806585563776, 0.9359060087221007, "bca"),
    ),
    "weighted_cond_60": (
        6,
        60,
        400,
        1.5,
        "uniform",
        True,
        (0.788795714421486, 0.9183179520644118, "bca"),
    ),
    "weighted_edge_40": (
        7,
        40,
        300,
        6.0,
        "uniform",
        False,
        (0.9667766533144008, 1.0, "auc-score-floored"),
    ),
    "weighted_few_50": (
        8,
        50,
        1000,
        2.5,
        "neg",
        False,
        (0.9018337266201756, 0.9645322556872207, "bca"),
    ),
    "weighted_few_100": (
        9,
        120,
        500,
        1.5,
        "uniform",
        False,
        (0.815867478345592, 0.8882135932720847, "bca"),
    ),
}
GATED = {"weighted_few_50"}


@pytest.mark.parametrize("name", sorted(FINGERPRINT))
def test_fingerprint_outside_the_gate_is_unchanged(name):
    seed, p, n, shift, kind, over, (lo, hi, method) = FINGERPRINT[name]
    y, s, w = _fingerprint_data(seed, p, n, shift, kind)
    cond = np.arange(len(y)) % 23 if over else None
    sc = mlci.Scores.from_labels(y, s, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mlci.auc_ci(sc, n_resamples=300, rng=seed, conditions=cond)
    if name in GATED:
        t = weighted_auc_terms(s, y == 1, w)
        assert t.pos_rows is not None and t.pos_rows < WEIGHTED_AUC_FEW_ROWS
        assert res.method == WEIGHTED_AUC_METHOD != method
        assert res.confidence_interval == pytest.approx(weighted_auc_interval(t), abs=1e-12)
        assert res.confidence_interval[1] - res.confidence_interval[0] > hi - lo
    else:
        assert res.method == method
        assert tuple(res.confidence_interval) == pytest.approx((lo, hi), abs=1e-12)
