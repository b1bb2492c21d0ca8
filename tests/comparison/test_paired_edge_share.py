"""``compare``'s near-edge switch (a pair with an edge-dominated system gets BCa for its
difference under ``"auto"``): for a ranking metric it needs ``EDGE_PAIR_CLASS`` samples
in the smaller class or ``EDGE_PAIR_SHARE`` of the system's replicates at the edge of
the range (issue 20; docs/validation.md, the sweep after "(1) #14": with few positives
and a few replicates at the edge BCa fell short where t held)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import mlci
from mlci.comparison import paired
from mlci.intervals.bootstrap import edge_dominated


def _near_perfect(k: int, n_pos: int = 20, n_neg: int = 180):
    """Labels, system A (scores separating the classes but for ``k`` positives placed
    below ``k`` raised negatives: k (k + 1) / 2 mis-ordered pairs, fewer resamples
    without one as ``k`` grows) and a weaker system B (binormal, AUC about 0.86)."""
    g = np.random.default_rng(0)
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    a = np.r_[np.linspace(10, 20, n_pos), np.linspace(-10, 0, n_neg)]
    for i in range(k):
        a[n_pos + n_neg - 1 - i] = 5.0 + i  # a raised negative
        a[i] = 4.5 + i  # a positive below it
    b = 1.5 * y + g.standard_normal(n_pos + n_neg)
    return y, a, b


def _compare(y, a, b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        return mlci.compare(y, {"A": a, "B": b}, metric="roc_auc", rng=0)


def _share(res) -> float:
    dist = np.asarray(res.systems["A"].bootstrap_distribution)
    return float(np.mean(dist == 1.0))


def test_many_replicates_at_the_edge_switch_to_bca():
    # 20 positives, 2 raised negatives: 2 + 1 mis-ordered pairs of 20 x 180, AUC
    # 1 - 3/3600 = 0.99917 (scikit-learn's roc_auc_score), a third of the 1,000
    # replicates at AUC 1
    y, a, b = _near_perfect(2)
    res = _compare(y, a, b)
    assert roc_auc_score(y, a) == pytest.approx(1 - 3 / 3600, abs=1e-12)
    assert res.systems["A"].estimate == pytest.approx(roc_auc_score(y, a), abs=1e-12)
    assert paired.EDGE_PAIR_CLASS > 20
    assert _share(res) >= paired.EDGE_PAIR_SHARE
    assert res.difference("A", "B").method == "bca"
    reason = res.details["method_reason"]
    assert "near the edge" in reason
    assert f"{paired.EDGE_PAIR_SHARE:.0%} of the replicates at the edge" in reason


def test_few_positives_and_few_edge_replicates_keep_t(monkeypatch):
    # 20 positives, 5 raised negatives: 15 mis-ordered pairs, AUC 1 - 15/3600 = 0.99583,
    # 2% of the replicates at AUC 1.  The system is edge-dominated (at least half of the
    # 99% tail, 0.25% of the replicates, has an infinite bootstrap-t statistic) but
    # below both floors: the difference keeps t
    y, a, b = _near_perfect(5)
    assert roc_auc_score(y, a) == pytest.approx(1 - 15 / 3600, abs=1e-12)
    res = _compare(y, a, b)
    assert res.systems["A"].estimate == pytest.approx(roc_auc_score(y, a), abs=1e-12)
    assert 0.0025 <= _share(res) < paired.EDGE_PAIR_SHARE
    assert res.difference("A", "B").method == "t"
    assert "near the edge" not in res.details["method_reason"]
    # the floors are the only reason: without them the same replicates switch
    monkeypatch.setattr(paired, "EDGE_PAIR_SHARE", 0.0)
    res0 = _compare(y, a, b)
    assert res0.difference("A", "B").method == "bca"
    assert tuple(res0.systems["A"].bootstrap_distribution) == tuple(
        res.systems["A"].bootstrap_distribution
    )
    monkeypatch.setattr(paired, "EDGE_PAIR_SHARE", 0.1)
    monkeypatch.setattr(paired, "EDGE_PAIR_CLASS", 20)
    assert _compare(y, a, b).difference("A", "B").method == "bca"


def test_more_positives_switch_whatever_the_share():
    # 40 positives (at least EDGE_PAIR_CLASS), the same 5 raised negatives: AUC
    # 1 - 15/6400, 2% of the replicates at AUC 1, BCa
    y, a, b = _near_perfect(5, n_pos=40, n_neg=160)
    assert roc_auc_score(y, a) == pytest.approx(1 - 15 / 6400, abs=1e-12)
    res = _compare(y, a, b)
    assert _share(res) < paired.EDGE_PAIR_SHARE
    assert 40 >= paired.EDGE_PAIR_CLASS
    assert res.difference("A", "B").method == "bca"


def test_edge_dominated_by_a_few_replicates():
    # the engine's own criterion (intervals/bootstrap.py) fires on 3 replicates of 1,000
    # at the edge, which is why the pair rule needs a share of its own
    dist = np.r_[np.full(3, 1.0), np.linspace(0.99, 0.999, 997)]
    se = np.where(dist == 1.0, 0.0, 0.002)
    assert bool(edge_dominated(0.995, 0.002, dist, se, confidence_level=0.95, bounds=(0, 1)))
    assert paired._edge_share(dist, (0.0, 1.0)) == pytest.approx(0.003)
    assert paired._edge_share(np.array([np.nan, np.nan]), (0.0, 1.0)) == 0.0
