"""``compare``'s near-edge switch (a pair with an edge-dominated system gets BCa for its
difference under ``"auto"``): for an AUC it needs fewer than ``EDGE_PAIR_MISORDERED``
mis-ordered pairs in that system (issue 20; docs/validation.md, the sweep after
"(1) #14": with more, BCa fell short where t held)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import mlci
from mlci.comparison import paired_auc_edge, paired_auto


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


def test_few_misordered_pairs_switch_to_bca(monkeypatch):
    # 20 positives, 4 raised negatives: 4 + 3 + 2 + 1 = 10 mis-ordered pairs of 20 x 180,
    # AUC 1 - 10/3600 = 0.99722 (scikit-learn's roc_auc_score): fewer than
    # EDGE_PAIR_MISORDERED, BCa.  (B, about 500 mis-ordered pairs, is a clearly weaker
    # system: the pair gets the MOVER interval, tests/comparison/test_paired_auc_edge.py;
    # here the MOVER rule is switched off to see the BCa switch beneath it)
    monkeypatch.setattr(paired_auc_edge, "EDGE_MOVER_RATIO", np.inf)
    y, a, b = _near_perfect(4)
    assert roc_auc_score(y, a) == pytest.approx(1 - 10 / 3600, abs=1e-12)
    res = _compare(y, a, b)
    assert res.systems["A"].estimate == pytest.approx(roc_auc_score(y, a), abs=1e-12)
    assert 10 < paired_auto.EDGE_PAIR_MISORDERED
    assert res.difference("A", "B").method == "bca"
    reason = res.details["method_reason"]
    assert "near the edge" in reason
    assert f"fewer than {paired_auto.EDGE_PAIR_MISORDERED:.0f} mis-ordered pairs" in reason
    # the same system with its scores negated: AUC 10/3600, near the low edge, alike
    assert _compare(y, -a, b).difference("A", "B").method == "bca"


def test_many_misordered_pairs_keep_t(monkeypatch):
    # 20 positives, 7 raised negatives: 28 mis-ordered pairs, AUC 1 - 28/3600 = 0.99222.
    # The system is edge-dominated (at least half of the 99% tail, 0.25% of the
    # replicates, is at AUC 1: an infinite bootstrap-t statistic) but has
    # EDGE_PAIR_MISORDERED mis-ordered pairs or more: the difference keeps t
    y, a, b = _near_perfect(7)
    assert roc_auc_score(y, a) == pytest.approx(1 - 28 / 3600, abs=1e-12)
    res = _compare(y, a, b)
    assert res.systems["A"].estimate == pytest.approx(roc_auc_score(y, a), abs=1e-12)
    assert 28 >= paired_auto.EDGE_PAIR_MISORDERED
    assert _share(res) >= 0.0025
    assert res.difference("A", "B").method == "t"
    assert "near the edge" not in res.details["method_reason"]
    assert _compare(y, -a, b).difference("A", "B").method == "t"  # AUC 28/3600
    # the threshold is the only reason: without it the same replicates switch
    monkeypatch.setattr(paired_auto, "EDGE_PAIR_MISORDERED", np.inf)
    res0 = _compare(y, a, b)
    assert res0.difference("A", "B").method == "bca"
    assert tuple(res0.systems["A"].bootstrap_distribution) == tuple(
        res.systems["A"].bootstrap_distribution
    )


def test_other_metrics_keep_the_switch():
    # f1 of a system with 1 error in 200: edge-dominated, its pairs get BCa as before
    g = np.random.default_rng(3)
    y = np.r_[np.ones(60, int), np.zeros(140, int)]
    a = y.copy()
    a[0] = 0
    b = np.where(g.random(200) < 0.85, y, 1 - y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        res = mlci.compare(y, {"A": a, "B": b}, metric="f1", rng=0)
    assert paired_auto.switches_near_edge(object(), 0.5)
    assert "near the edge" in res.details["method_reason"]
