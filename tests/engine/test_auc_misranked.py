"""The ROC AUC near 1 resting on few misranked samples warns (mlci.engine.auc_misranked).

The counts are checked against a brute-force count of the definition; the rule's range
(within 0.01 of the bound, at least 501 in the smaller class, fewer than 100 misranked
samples of either class) on both doors, ``bootstrap_ci(metric="roc_auc")`` and
``auc_ci``.  Calibration: scripts/auc_misranked_study.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mlci
from mlci.engine.auc_misranked import (
    MIN_MISRANKED_AUC,
    few_misranked_auc_rule,
    misranked_counts,
)


def brute(y: np.ndarray, s: np.ndarray) -> tuple[int, int]:
    neg, pos = s[y == 0], s[y == 1]
    return int(sum(p <= neg.max() for p in pos)), int(sum(n >= pos.min() for n in neg))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=4, max_size=40), st.integers(0, 2**31))
def test_counts_match_the_definition(scores: list[int], seed: int) -> None:
    s = np.asarray(scores, dtype=float)
    y = np.random.default_rng(seed).integers(0, 2, len(s))
    if y.min() == y.max():
        return
    un, cn = np.unique(s[y == 0], return_counts=True)
    up, cp = np.unique(s[y == 1], return_counts=True)
    assert misranked_counts(un, cn, up, cp) == brute(y, s)


def near_one(n: int, misranked: int, rng: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` of each class, separated but for ``misranked`` of each overlapping."""
    g = np.random.default_rng(rng)
    neg = g.normal(0, 1, n)
    pos = g.normal(20, 1, n)
    pos[:misranked] = g.normal(1.5, 0.3, misranked)  # a few positives among the top negatives
    y = np.r_[np.zeros(n, int), np.ones(n, int)]
    return y, np.r_[neg, pos]


def test_rule_bounds() -> None:
    assert few_misranked_auc_rule(0.9995, (MIN_MISRANKED_AUC - 1, 500), few=600)
    assert not few_misranked_auc_rule(0.9995, (MIN_MISRANKED_AUC, 500), few=600)
    assert not few_misranked_auc_rule(0.9895, (10, 10), few=600)  # outside the band
    assert not few_misranked_auc_rule(0.9995, (10, 10), few=500)  # the score rule's range
    assert few_misranked_auc_rule(0.0005, (10, 10), few=600)  # near 0, read alike
    assert not few_misranked_auc_rule(np.array([0.9995, 0.9]), (10, 10), few=600)


@pytest.mark.parametrize("door", ["bootstrap_ci", "auc_ci"])
def test_both_doors_warn_near_one(door: str) -> None:
    y, s = near_one(700, 15)
    with pytest.warns(mlci.NearBoundWarning, match="misranked|outranked by some negative"):
        if door == "bootstrap_ci":
            res = mlci.bootstrap_ci(y, s, metric="roc_auc", n_resamples=200, rng=0)
        else:
            res = mlci.auc_ci(mlci.Scores.from_labels(y, s), n_resamples=200, rng=0)
    assert res.estimate > 0.99


@pytest.mark.parametrize(
    ("n", "misranked"),
    [(300, 15), (700, 400)],  # the score interval's range; many misranked
)
def test_quiet_outside_the_rule(n: int, misranked: int) -> None:
    y, s = near_one(n, misranked)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        mlci.bootstrap_ci(y, s, metric="roc_auc", n_resamples=200, rng=0)
    assert not any("outranked by some negative" in str(w.message) for w in rec)


def test_average_precision_with_few_positives_gets_bca() -> None:
    # fewer than 10 positives: BCa (engine/auto.few_positive_ap; seed-14 #34), not the
    # studentized interval with its logit t fallback
    g = np.random.default_rng(3)
    y = np.zeros(34, int)
    y[:6] = 1
    s = g.normal(0, 1, 34) + y
    res = mlci.bootstrap_ci(y, s, metric="average_precision", n_resamples=300, rng=0)
    assert res.method == "bca"
    assert res.details["method_reason"].startswith("bca: an average precision of 6 positives")
    bca = mlci.bootstrap_ci(y, s, metric="average_precision", method="bca", n_resamples=300, rng=0)
    assert res.confidence_interval == bca.confidence_interval
    y[:10] = 1  # 10 positives: the rule no longer applies
    res10 = mlci.bootstrap_ci(y, s, metric="average_precision", n_resamples=300, rng=0)
    assert not res10.details["method_reason"].startswith("bca: an average precision")
