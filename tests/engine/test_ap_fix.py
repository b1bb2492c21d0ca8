"""Average precision above 0.96 with few misranked positives gets the logit jackknife
interval under ``auto`` (session 11, ``mlci.engine.ap_interval``), and every door gives
the same interval.

Evidence: ``scripts/ap_fix_study.py`` (``scripts/data/ap_fix_study_*.json``;
docs/validation.md, "Average precision: heavy-tailed scores, few positives near 1, and its
doors").  Reference values: the delete-one jackknife computed here by brute force (each
deletion's AP from its definition), then ``expit(logit(AP) +- z se / (AP (1 - AP)))``;
the unchanged intervals below 0.96 were printed by main at 0299c34 (before the change).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.special import expit, logit

import mlci
from mlci.engine.ap_interval import (
    AP_LOGIT_EDGE,
    AP_LOGIT_METHOD,
    MAX_AP_LOGIT_MISRANKED,
    MIN_AP_LOGIT_POSITIVES,
    ap_logit_rule,
)
from mlci.engine.ap_misranked import MIN_MISRANKED_POSITIVES


def _ap(pos: np.ndarray) -> float:
    """AP of labels sorted by decreasing (distinct) score, from its definition."""
    tp = np.cumsum(pos)
    return float(np.sum((tp / np.arange(1, len(pos) + 1))[pos]) / pos.sum())


def _design(seed: int, npos: int = 50, delta: float = 3.8) -> tuple[np.ndarray, np.ndarray]:
    """Binormal scores, prevalence 0.1 (``scripts/ap_fix_study.py``'s cells)."""
    g = np.random.default_rng([77, seed])
    n = 10 * npos
    y = (g.random(n) < 0.1).astype(int)
    return y, g.standard_normal(n) + delta * y


def _run(y, s, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opts = {"metric": "average_precision", "n_resamples": 300, "rng": 9}
        res = mlci.bootstrap_ci(y, s, **{**opts, **kw})
    return res, [w.category for w in caught]


def test_threshold_is_the_warning_rule_s():
    # the new region is the misranked warning's (engine/ap_misranked.py): one threshold
    assert MAX_AP_LOGIT_MISRANKED == MIN_MISRANKED_POSITIVES == 120
    assert AP_LOGIT_EDGE == 0.96


def test_rule_boundaries():
    e = float(np.nextafter(AP_LOGIT_EDGE, 1))
    assert ap_logit_rule(MIN_AP_LOGIT_POSITIVES, e, MAX_AP_LOGIT_MISRANKED - 1)
    assert not ap_logit_rule(MIN_AP_LOGIT_POSITIVES, e, MAX_AP_LOGIT_MISRANKED)
    assert not ap_logit_rule(MIN_AP_LOGIT_POSITIVES - 1, e, 0)
    assert not ap_logit_rule(500, 1.0, 0)  # AP 1: no logit (BCa and the edge rules)
    assert not ap_logit_rule(500, e)  # without the count: as before (BCa)
    # below the edge the count changes nothing (intervals there unchanged)
    for n_pos, est in ((20, 0.85), (20, 0.95), (50, 0.95), (19, 0.5)):
        assert ap_logit_rule(n_pos, est, 0) == ap_logit_rule(n_pos, est)


@settings(max_examples=200, deadline=None)
@given(
    n_pos=st.integers(0, 5000),
    est=st.floats(0.0, 1.0),
    mis=st.integers(0, 1000),
    fewer=st.integers(0, 1000),
)
def test_rule_monotone_in_the_misranked_count(n_pos, est, mis, fewer):
    # fewer misranked positives never take the interval away; AP 1 never gets it
    if ap_logit_rule(n_pos, est, mis):
        assert ap_logit_rule(n_pos, est, min(mis, fewer))
        assert est < 1.0


def test_above_the_edge_independent_samples_get_the_logit_jackknife():
    y, s = _design(9)  # AP 0.9723 with 50 positives (main 0299c34: bca [0.9316, 0.9903])
    res, caught = _run(y, s)
    assert res.method == AP_LOGIT_METHOD
    assert "outranked by some negative" in res.details["method_reason"]
    # still warned: no interval holds its level there
    assert mlci.NearBoundWarning in caught
    # reference: the brute-force delete-one jackknife
    pos = y[np.argsort(-s, kind="stable")].astype(bool)
    est = _ap(pos)
    vals = np.array([_ap(np.delete(pos, i)) for i in range(len(pos))])
    n = len(vals)
    se = np.sqrt((n - 1) / n * np.sum((vals - vals.mean()) ** 2))
    half = stats.norm.isf(0.025) * se / (est * (1 - est))
    lo, hi = expit(logit(est) - half), expit(logit(est) + half)
    assert res.estimate == pytest.approx(est, abs=1e-12) and est > AP_LOGIT_EDGE
    np.testing.assert_allclose(res.confidence_interval, (lo, hi), rtol=1e-9)
    # BCa re-read from the same replicates: the interval main gave before the change
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        bca = res.interval(method="bca")
    assert bca.method == "bca"


@pytest.mark.parametrize(
    ("seed", "npos", "delta", "method", "expected"),
    [
        # printed by main at 0299c34 (before the change) for these arguments
        (1, 100, 2.9, "logit_jackknife", (0.8670207582301671, 0.9429417624669952)),
        (7, 30, 3.1, "bca", (0.8214310634048276, 0.9784546531362779)),
        (8, 30, 3.3, "bca", (0.8189995821299118, 0.9562311636323901)),
    ],
)
def test_below_the_edge_unchanged(seed, npos, delta, method, expected):
    y, s = _design(seed, npos, delta)
    res, _ = _run(y, s)
    assert res.estimate <= AP_LOGIT_EDGE
    assert res.method == method
    np.testing.assert_allclose(res.confidence_interval, expected, rtol=1e-12)


def test_many_misranked_positives_keep_bca():
    # AP about 0.97 with 1,000 positives: hundreds misranked, BCa held there (0.94-0.97)
    g = np.random.default_rng(5)
    n = 2000
    y = (g.random(n) < 0.5).astype(int)
    s = g.standard_normal(n) + 3.3 * y
    res, caught = _run(y, s, n_resamples=200)
    assert res.estimate > AP_LOGIT_EDGE
    assert res.diagnostics["misranked_positives"] >= MAX_AP_LOGIT_MISRANKED
    assert res.method == "bca" and mlci.NearBoundWarning not in caught


def test_over_conditions_keeps_bca_above_the_edge():
    y, s = _design(9)
    cond = np.random.default_rng(1).integers(0, 45, len(y))
    res, _ = _run(y, s, conditions=cond)
    assert res.estimate > AP_LOGIT_EDGE and res.method == "bca"


def test_doors_agree_above_the_edge():
    pd = pytest.importorskip("pandas")
    y, s = _design(9)
    other = s + 0.3 * np.random.default_rng(2).standard_normal(len(s))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        opts = {"metric": "average_precision", "n_resamples": 300, "rng": 9}
        solo = mlci.bootstrap_ci(y, s, **opts)
        red = mlci.reduce_ci(pd.DataFrame({"y": y, "s": s}), "y", "s", **opts)
        cmp = mlci.compare(y, {"a": s, "b": other}, **opts)
    assert solo.method == red.method == cmp.systems["a"].method == AP_LOGIT_METHOD
    assert tuple(red.confidence_interval) == tuple(solo.confidence_interval)
    assert tuple(cmp.systems["a"].confidence_interval) == tuple(solo.confidence_interval)
    assert cmp.systems["a"].details["method_reason"] == solo.details["method_reason"]


def test_compare_warns_for_a_system_as_bootstrap_ci_does():
    # the misranked rule (engine/ap_misranked.py) now speaks through compare's systems
    y, s = _design(9)
    other = s + 0.3 * np.random.default_rng(2).standard_normal(len(s))
    _, solo = _run(y, s)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mlci.compare(y, {"a": s, "b": other}, metric="average_precision", n_resamples=200, rng=9)
    texts = [str(w.message) for w in caught if w.category is mlci.NearBoundWarning]
    assert mlci.NearBoundWarning in solo
    assert any(t.startswith("System 'a': Average precision of 0.972273") for t in texts)


def test_compare_quiet_where_bootstrap_ci_is():
    y, s = _design(1, 100, 2.9)  # AP 0.912: below the rule's range
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mlci.compare(y, {"a": s, "b": s[::-1]}, metric="average_precision", n_resamples=200, rng=9)
    assert not [w for w in caught if "outranked by some negative" in str(w.message)]
