"""``auto``'s analytic interval of a ROC AUC with a small class or near its bound (issue 20;
:mod:`mlci.engine.auc_analytic`): the rule's thresholds on both sides, the same answer
through every door (``bootstrap_ci`` with and without ``strata``, ``auc_ci``,
``Scores.bootstrap_ci``), the result re-read at other levels and as a dict, the
invariants of tests/test_properties.py on the new interval, and a reduced coverage test.
The numbers behind the rule: docs/validation.md, "The AUC near its bound or with a small
class under auto" (``scripts/auc_auto_analytic_sweep.py``)."""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest
from scipy.stats import norm

import mlci
from _auc_doors import DOORS, auc_design, run_door
from mlci.engine.auc_analytic import (
    AUC_SCORE_EDGE_BAND,
    AUC_SCORE_METHOD,
    MIN_AUC_CLASS_SCORE_EDGE,
    auc_score_rule,
)
from mlci.exceptions import FewConditionsWarning


def _run(door: str, y, score, method: str = "auto", **kw):
    return run_door(door, y, score, "smaller class of a ROC AUC", method=method, **kw)


def test_thresholds():
    assert (AUC_SCORE_EDGE_BAND, MIN_AUC_CLASS_SCORE_EDGE) == (0.01, 501)
    # below 20 in the smaller class, at any AUC (2 or more per class)
    for est in (0.5, 0.7, 0.95, 0.05, 1.0):
        assert auc_score_rule(2, est) and auc_score_rule(19, est)
    assert not auc_score_rule(1, 0.7)  # DeLong's variance needs 2 of each class
    # the near-bound rule: 20-49 within 0.1, 20-149 within 0.02
    assert auc_score_rule(20, 0.9) and auc_score_rule(49, 0.1) and not auc_score_rule(50, 0.9)
    assert not auc_score_rule(20, 0.89) and not auc_score_rule(30, 0.11)
    assert auc_score_rule(149, 0.98) and not auc_score_rule(150, 0.98)
    # and within 0.01 with fewer than 501
    assert auc_score_rule(150, 0.99) and auc_score_rule(500, 0.01) and auc_score_rule(500, 1.0)
    assert not auc_score_rule(501, 0.99) and not auc_score_rule(300, 0.985)
    assert not auc_score_rule(30, np.nan) and not auc_score_rule(30, None)
    assert not auc_score_rule(30, np.array([0.95, 0.96]))  # a single estimate only


@pytest.mark.parametrize(
    ("n_pos", "shift", "n_neg"),
    [(8, 1.2, 150), (30, 2.4, 150), (200, 3.7, 400)],  # small class, AUC 0.96, AUC 0.99
)
def test_same_answer_through_every_door(n_pos, shift, n_neg):
    y, s = auc_design(n_pos, shift, n_neg)
    out = [_run(door, y, s) for door in DOORS]
    ref = mlci.auc_score_ci(y, s)  # the floored variant: the same numbers
    assert auc_score_rule(min(n_pos, n_neg), ref.estimate)
    for res, msgs in out:
        assert res.method == AUC_SCORE_METHOD
        np.testing.assert_allclose(tuple(res.confidence_interval), tuple(ref.confidence_interval))
        assert res.details["method_reason"].startswith(AUC_SCORE_METHOD + ": ")
        assert len(msgs) == 1 and msgs[0] == res.details["warning"]
        assert res.bootstrap_distribution.shape == (200,)  # the replicates are kept
    assert len({m[0] for _, m in out}) == 1  # one text


@pytest.mark.parametrize("door", DOORS)
def test_outside_the_rule_unchanged(door):
    # AUC about 0.8 with 30 positives; AUC 0.96 with 60 positives; 0.985 with 200
    for n_pos, shift, n_neg in ((30, 1.2, 150), (60, 2.4, 150), (200, 3.2, 400)):
        y, s = auc_design(n_pos, shift, n_neg)
        assert not auc_score_rule(n_pos, mlci.auc_score_ci(y, s).estimate)
        res, msgs = _run(door, y, s)
        assert res.method in ("bca", "studentized") and msgs == []


@pytest.mark.parametrize("door", ("bootstrap_ci", "strata"))
def test_a_method_named_keeps_the_bootstrap(door):
    y, s = auc_design(30, 2.4)
    # (the studentized interval does not model strata)
    for method in ("bca", "percentile") + (("studentized",) if door == "bootstrap_ci" else ()):
        res, msgs = _run(door, y, s, method=method)
        assert res.method == method and len(msgs) == 1


def test_conditions_and_weights_keep_the_bootstrap():
    y, s = auc_design(30, 2.4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mlci.bootstrap_ci(
            y, s, metric="roc_auc", conditions=np.arange(len(y)) % 60, rng=0, n_resamples=200
        )
        assert res.method != AUC_SCORE_METHOD
        w = np.full(len(y), 2.0)
        res = mlci.bootstrap_ci(y, s, metric="roc_auc", sample_weight=w, rng=0, n_resamples=200)
        assert res.method != AUC_SCORE_METHOD


def test_interval_and_to_dict_consistent():
    y, s = auc_design(30, 2.4)
    res, _ = _run("bootstrap_ci", y, s)
    assert tuple(res.interval().confidence_interval) == tuple(res.confidence_interval)
    r99 = res.interval(confidence_level=0.99)
    ref99 = mlci.auc_score_ci(y, s, confidence_level=0.99)
    assert r99.method == AUC_SCORE_METHOD
    np.testing.assert_allclose(tuple(r99.confidence_interval), tuple(ref99.confidence_interval))
    a, b = res.interval(confidence_level=[0.9, 0.99])
    assert a.confidence_level == 0.9 and b.confidence_level == 0.99
    one = res.interval(alternative="greater")
    ref1 = mlci.auc_score_ci(y, s, alternative="greater")
    np.testing.assert_allclose(tuple(one.confidence_interval), tuple(ref1.confidence_interval))
    # another method reads the replicates
    assert res.interval(method="percentile").method == "percentile"
    d = res.to_dict()
    assert d["method"] == AUC_SCORE_METHOD
    low, high = res.confidence_interval
    assert d["confidence_interval"] == {"low": low, "high": high}
    json.dumps(d, allow_nan=False)
    with pytest.raises(ValueError, match="method"):
        res.interval(method="auc-score-newcombe")


@pytest.mark.parametrize("n_pos", [3, 30])
def test_invariants(n_pos):
    y, s = auc_design(n_pos, 2.4)
    res, _ = _run("auc_ci", y, s)
    assert res.method == AUC_SCORE_METHOD
    lo, hi = res.confidence_interval
    assert 0.0 <= lo <= res.estimate <= hi <= 1.0
    lo99, hi99 = res.interval(confidence_level=0.99).confidence_interval
    assert lo99 <= lo and hi <= hi99
    # a strictly increasing transform of the scores: the same interval
    res_t, _ = _run("auc_ci", y, np.exp(s / 3.0))
    np.testing.assert_allclose(tuple(res_t.confidence_interval), (lo, hi))
    # the positive class swapped: AUC -> 1 - AUC, the interval reflected
    res_s, _ = _run("bootstrap_ci", 1 - y, s)
    assert res_s.method == AUC_SCORE_METHOD
    np.testing.assert_allclose(res_s.estimate, 1 - res.estimate)
    np.testing.assert_allclose(tuple(res_s.confidence_interval), (1 - hi, 1 - lo), atol=1e-9)


SCALE = float(os.environ["MLCI_SLOW_SCALE"])


@pytest.mark.slow
def test_coverage_through_auto():
    # two cells where auto gives the floored interval to every test set (8 positives and
    # 150 negatives, positives twice as spread, AUC 0.8; 12 and 20, equal spreads, AUC
    # 0.8): 0.955 pooled at 95% in tests/test_auc_class_score.py; here through auto
    # (bootstrap_ci), and its 90% re-read from the same results falls outside the band
    n = max(300, int(3000 * SCALE))
    cover95 = cover90 = 0
    for k, (m, nn, sd) in enumerate(((8, 150, 2.0), (12, 20, 1.0))):
        g = np.random.default_rng(70 + k)
        d = np.sqrt(1 + sd * sd) * norm.ppf(0.8)
        y = np.r_[np.ones(m, int), np.zeros(nn, int)]
        for _ in range(n):
            s = np.r_[g.normal(d, sd, m), g.normal(0.0, 1.0, nn)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = mlci.bootstrap_ci(y, s, metric="roc_auc", rng=0, n_resamples=20)
            assert res.method == AUC_SCORE_METHOD
            lo, hi = res.confidence_interval
            cover95 += lo <= 0.8 <= hi
            lo, hi = res.interval(confidence_level=0.9).confidence_interval
            cover90 += lo <= 0.8 <= hi
    c95, c90 = cover95 / (2 * n), cover90 / (2 * n)
    assert 0.93 <= c95 <= 0.985, c95
    assert c90 < 0.93, c90


# average precision: its auto is BCa (no closed-form derivative), a path that gave the
# coverage map's class-size warning to the ROC AUC only (engine/auto.py,
# map_without_linearization; scripts/ap_few_class_sweep.py: 3 positives in 150, BCa
# 0.875-0.885 unwarned)
@pytest.mark.parametrize("strata", [False, True])
def test_average_precision_with_few_positives_warns(strata):
    for n_pos, warned in ((3, True), (4, True), (5, False), (8, False)):
        y, s = auc_design(n_pos, 1.5)
        kw = {"strata": y} if strata else {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = mlci.bootstrap_ci(y, s, metric="average_precision", rng=0, n_resamples=200, **kw)
        texts = [str(w.message) for w in caught if issubclass(w.category, FewConditionsWarning)]
        assert res.method == "bca"
        assert bool(texts) == warned, (n_pos, texts)
        if warned:
            assert texts[0].startswith(f"Only {n_pos} samples of one class: below 5")
            assert res.details["warning"] == texts[0]


def test_placement_terms_are_delongs():
    # the analytic interval's DeLong terms from the atoms (intervals/auc_score.py) against
    # mlci.delong_ci (checked against R's pROC: tests/classical), with ties
    from mlci.intervals.auc_score import atom_placement_terms

    y, s = auc_design(12, 1.0, n_neg=40)
    s = np.round(s, 1)  # ties within and across the classes
    u_neg, c_neg = np.unique(s[y == 0], return_counts=True)
    u_pos, c_pos = np.unique(s[y == 1], return_counts=True)
    auc, v_pos, v_neg, m, n = atom_placement_terms(u_neg, c_neg, u_pos, c_pos)
    ref = mlci.delong_ci(y, s)
    assert (m, n) == (12, 40)
    np.testing.assert_allclose(auc, ref.estimate, rtol=1e-12)
    np.testing.assert_allclose(np.sqrt(v_pos + v_neg), ref.standard_error, rtol=1e-12)


def test_same_answer_with_ties():
    y, s = auc_design(10, 1.0, n_neg=60)
    s = np.round(s)  # a handful of distinct scores
    ref = mlci.auc_score_ci(y, s)
    for door in DOORS:
        res, _ = _run(door, y, s)
        assert res.method == AUC_SCORE_METHOD
        np.testing.assert_allclose(tuple(res.confidence_interval), tuple(ref.confidence_interval))


@pytest.mark.parametrize("n_pos, shift", [(8, 1.0), (12, 2.5), (40, 3.5)])
def test_compare_systems_get_the_same_interval(n_pos, shift):
    # the fifth door: each system of mlci.compare under auto gets bootstrap_ci's analytic
    # interval (a system outside the rule keeps compare's own), re-read alike at 90%,
    # without the bootstrap's near-bound warning it replaces
    y, a = auc_design(n_pos, shift)
    b = auc_design(n_pos, 0.8, seed=7)[1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mlci.compare(y, {"A": a, "B": b}, metric="roc_auc", n_resamples=200, rng=0)
    assert not any(issubclass(w.category, mlci.NearBoundWarning) for w in caught)
    for name, s in (("A", a), ("B", b)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", mlci.MlciWarning)
            one = mlci.bootstrap_ci(y, s, metric="roc_auc", n_resamples=200, rng=0)
        sys_ = res.systems[name]
        if one.method == AUC_SCORE_METHOD:
            assert sys_.method == AUC_SCORE_METHOD
            assert tuple(sys_.confidence_interval) == tuple(one.confidence_interval)
            again = sys_.interval(confidence_level=0.9).confidence_interval
            assert tuple(again) == tuple(one.interval(confidence_level=0.9).confidence_interval)
            assert "auc-score-floored" in sys_.details["method_reason"]
        else:
            assert sys_.method != AUC_SCORE_METHOD
    # a method named keeps compare's bootstrap for every system
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        named = mlci.compare(
            y, {"A": a, "B": b}, metric="roc_auc", n_resamples=200, rng=0, method="bca"
        )
    assert {s.method for s in named.systems.values()} == {"bca"}
