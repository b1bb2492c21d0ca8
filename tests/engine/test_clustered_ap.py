"""Average precision over conditions whose scores shift between them
(``mlci.engine.auc_class.clustered_ap_rule``): the estimated ICC of the negatives' score
ranks (``negative_score_icc``) at least 0.15 over fewer than 100 effective conditions (at
least 0.35 over more) warns, and the result's diagnostics carry that ICC.

The evidence (the constants' comments in ``mlci/engine/auc_class.py``): the design
search's seed-11 #23 (52 positives over 42 conditions at ICC 0.50: auto = BCa 0.887 of
300 test sets, warned in 1) and a sweep of its variants (0.83-0.91 at ICC 0.2-0.5; held
over 150 conditions at ICC 0.08-0.3 and iid).  The ICC is the one-way ANOVA estimator
(Fleiss 1981), checked here against scipy's one-way ANOVA F: ``(MSB - MSW) / (MSB + (n0
- 1) MSW) = (F - 1) / (F + n0 - 1)``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import mlci
from mlci.engine.auc_class import (
    AP_MANY_CONDITIONS,
    AP_SCORE_ICC,
    AP_SCORE_ICC_MANY,
    clustered_ap_rule,
    negative_score_icc,
)

TEXT = "scores shift between the conditions of this average precision"


def _design(shift_sd: float, n_conditions: int = 40, size: int = 40, prevalence: float = 0.06):
    """Binormal scores (positives 2.5 above) over ``n_conditions`` equal conditions, each
    condition's scores shifted by a normal effect of sd ``shift_sd`` (ICC ``s^2 / (1 +
    s^2)``)."""
    g = np.random.default_rng(20261128)
    cond = np.repeat(np.arange(n_conditions), size)
    y = (g.random(len(cond)) < prevalence).astype(int)
    score = g.standard_normal(len(y)) + 2.5 * y + shift_sd * g.standard_normal(n_conditions)[cond]
    return y, score, cond


def _run(y, score, cond, metric: str = "average_precision", method: str = "auto"):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mlci.bootstrap_ci(
            y, score, metric=metric, conditions=cond, n_resamples=300, rng=3, method=method
        )
    return res, [str(w.message) for w in caught if issubclass(w.category, mlci.MlciWarning)]


def test_thresholds():
    assert (AP_SCORE_ICC, AP_MANY_CONDITIONS, AP_SCORE_ICC_MANY) == (0.15, 100.0, 0.35)


def test_negative_score_icc_matches_the_anova_f_of_scipy():
    g = np.random.default_rng(5)
    sizes = np.array([3, 9, 4, 12, 7, 5])
    unit = np.repeat(np.arange(len(sizes)), sizes)
    score = g.standard_normal(len(unit)) + 0.8 * g.standard_normal(len(sizes))[unit]
    negative = g.random(len(unit)) < 0.8
    rank = stats.rankdata(score[negative])  # mid-ranks among the negatives
    groups = [rank[unit[negative] == c] for c in np.unique(unit[negative])]
    f = stats.f_oneway(*groups).statistic
    n_c = np.array([len(x) for x in groups], float)
    n0 = (n_c.sum() - np.sum(n_c**2) / n_c.sum()) / (len(n_c) - 1)
    expected = max((f - 1) / (f + n0 - 1), 0.0)  # scipy.stats.f_oneway, ICC(1) from F
    assert expected > 0
    key = np.searchsorted(np.unique(score), score)  # any key increasing with the score
    assert negative_score_icc(negative, key, unit) == pytest.approx(expected, rel=1e-12)


def test_negative_score_icc_gives_ties_their_mid_rank():
    # tied scores (keys) across conditions: the mid-ranks of scipy's rankdata
    key = np.array([0, 0, 1, 1, 2, 2, 3, 3, 0, 3])
    unit = np.array([0, 1, 0, 1, 0, 1, 0, 1, 2, 2])
    negative = np.ones(len(key), bool)
    rank = stats.rankdata(key)
    f = stats.f_oneway(*[rank[unit == c] for c in range(3)]).statistic
    n_c = np.array([4.0, 4.0, 2.0])
    n0 = (10 - np.sum(n_c**2) / 10) / 2
    assert negative_score_icc(negative, key, unit) == pytest.approx(
        max((f - 1) / (f + n0 - 1), 0.0), abs=1e-12
    )


def test_negative_score_icc_reads_only_the_negatives_and_degenerate_input():
    unit = np.repeat([0, 1], 4)
    key = np.array([0, 7, 1, 2, 4, 5, 3, 6])
    # the negatives' ranks 1, 4 | 2, 3 (alike); with the positives, condition 1 is higher
    negative = np.array([1, 1, 0, 0, 1, 1, 0, 0], bool)
    assert negative_score_icc(negative, key, unit) == 0.0
    assert negative_score_icc(np.ones(8, bool), key, unit) > 0.05
    assert negative_score_icc(negative, key, np.zeros(8, int)) == 0.0  # one condition
    assert negative_score_icc(np.zeros(8, bool), key, unit) == 0.0  # no negative


def test_rule_edges():
    assert clustered_ap_rule(AP_SCORE_ICC, 26.2)
    assert not clustered_ap_rule(np.nextafter(AP_SCORE_ICC, 0), 26.2)
    assert not clustered_ap_rule(0.3, AP_MANY_CONDITIONS)
    assert clustered_ap_rule(AP_SCORE_ICC_MANY, AP_MANY_CONDITIONS)
    assert not clustered_ap_rule(None, 26.2) and not clustered_ap_rule(0.5, None)


def test_warns_where_scores_shift_between_conditions():
    # ICC 0.5 over 40 conditions, as seed-11 #23 (where auto covered 0.887)
    y, score, cond = _design(1.0)
    for method in ("auto", "percentile"):
        res, caught = _run(y, score, cond, method=method)
        assert res.diagnostics["negative_score_icc"] > AP_SCORE_ICC
        assert any(TEXT in m and "per condition" in m for m in caught), caught


def test_quiet_where_the_conditions_do_not_shift_the_scores():
    # the same design without a condition effect: the interval held (Kish 26, ICC 0:
    # 0.927; 150 conditions at ICC 0.08-0.15: 0.953-0.960), and nothing warns
    y, score, cond = _design(0.0)
    res, caught = _run(y, score, cond)
    assert res.diagnostics["negative_score_icc"] < AP_SCORE_ICC
    assert caught == []


def test_iid_and_the_auc_are_outside_the_rule():
    y, score, cond = _design(1.0)
    res, caught = _run(y, score, None)
    assert "negative_score_icc" not in res.diagnostics and caught == []
    _, caught = _run(y, score, cond, metric="roc_auc")  # the AUC keeps its own rules
    assert not any(TEXT in m for m in caught)
