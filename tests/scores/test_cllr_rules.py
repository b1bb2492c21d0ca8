"""``cllr_ci``'s auto (scores/_cllr_rules.py): the bootstrap-t interval of the actual Cllr,
the few-costly-trials and PAV-optimism warnings, and their bad inputs.

References: the effective number of trials against hand-computed costs (Kish 1965, sec.
11.7: ``(sum c)^2 / sum c^2``; ``n`` for equal costs, 1 for one costly trial among free
ones); the standard error against numpy's two-sample formula; the bootstrap-t bounds
recomputed by hand from the result's replicates and their standard errors (Efron &
Tibshirani 1993, eq. 12.22, on the log scale).  The bias threshold: Efron & Tibshirani
(1993, sec. 10.6; a bias below 0.25 standard errors can be ignored); the effective-trials
threshold: scripts/cllr_sweep.py (docs/validation.md, "Cllr intervals (session 9)").
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci
from mlci import Scores
from mlci.scores._cllr_rules import (
    MAX_MIN_CLLR_BIAS,
    MIN_CLLR_EFFECTIVE_TRIALS,
    cllr_effective_trials,
    warn_few_costly_trials,
    warn_min_cllr_bias,
)
from mlci.scores.verification import cllr_ci

LN2 = np.log(2.0)


def _costs(s: Scores) -> tuple[np.ndarray, np.ndarray]:
    return np.logaddexp(0, -np.asarray(s.pos)) / LN2, np.logaddexp(0, np.asarray(s.neg)) / LN2


def test_effective_trials_by_hand():
    rng = np.random.default_rng(1)
    s = Scores(rng.normal(2, 2, 30).round(1), rng.normal(-2, 2, 70).round(1))  # ties too
    a, b = _costs(s)
    ref = (a.sum() ** 2 / (a * a).sum(), b.sum() ** 2 / (b * b).sum(), 30.0, 70.0)
    assert cllr_effective_trials(s._lay) == pytest.approx(ref, rel=1e-12)
    # equal costs: every trial counts; one costly target among nearly free ones: about 1
    eq = cllr_effective_trials(Scores([1.0, 1.0, 1.0], [-2.0, -2.0])._lay)
    assert eq == pytest.approx((3.0, 2.0, 3.0, 2.0))
    one = cllr_effective_trials(Scores([-6.0, 30.0, 30.0, 30.0], [-30.0, -30.0])._lay)
    assert one[0] == pytest.approx(1.0, abs=1e-9)


def test_bootstrap_t_by_hand():
    rng = np.random.default_rng(2)
    s = Scores(rng.normal(1, 1.5, 60), rng.normal(-1, 1.5, 80))
    res = cllr_ci(s, rng=0, n_resamples=400)
    assert res.method == "studentized"
    a, b = _costs(s)
    se0 = 0.5 * np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    assert res.details["linearized"]["standard_error"] == pytest.approx(se0, rel=1e-12)
    th, se = res.bootstrap_distribution, res.replicate_standard_errors
    assert se.shape == th.shape and np.all(se > 0)
    # the replicates' spread is about the standard error (a loose check of se*)
    assert np.median(se) == pytest.approx(np.std(th), rel=0.25)
    t = (np.log(th) - np.log(res.estimate)) / (se / th)
    for level in (0.9, 0.95):
        q = np.quantile(t, [(1 - level) / 2, (1 + level) / 2])
        lo = res.estimate * np.exp(-q[1] * se0 / res.estimate)
        hi = res.estimate * np.exp(-q[0] * se0 / res.estimate)
        got = res.interval(confidence_level=level).confidence_interval
        assert tuple(got) == pytest.approx((lo, hi), rel=1e-10)


def test_few_costly_trials_warn():
    # 6 targets, one scored -4 (4.1 bits), the rest 5-7 (0.001-0.01 bits): about 1
    # effective target
    s = Scores([-4.0, 5.0, 6.0, 7.0, 5.5, 6.5], np.linspace(-9.0, -4.0, 30))
    assert cllr_effective_trials(s._lay)[0] < MIN_CLLR_EFFECTIVE_TRIALS
    with pytest.warns(mlci.NearBoundWarning, match="cost of the targets rests on 1.0"):
        res = cllr_ci(s, rng=0, n_resamples=300)
    assert res.method == "studentized"  # the interval that held best there too
    assert "effective trials" in res.details["few_errors_warning"]
    # an explicit method says nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cllr_ci(s, rng=0, n_resamples=300, method="percentile")


def test_no_warning_where_the_cost_is_spread():
    rng = np.random.default_rng(3)
    s = Scores(rng.normal(1, 1.5, 300), rng.normal(-1, 1.5, 300))
    assert min(cllr_effective_trials(s._lay)[:2]) > 100
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = cllr_ci(s, rng=0, n_resamples=300)
    assert res.method == "studentized" and "few_errors_warning" not in res.details


def test_warn_few_costly_trials_threshold():
    k = MIN_CLLR_EFFECTIVE_TRIALS
    assert warn_few_costly_trials(k, 50.0, 10, 60) is None
    with pytest.warns(
        mlci.NearBoundWarning, match="non-targets rests on 3.9 effective trials of 60"
    ):
        warn_few_costly_trials(k, k - 0.1, 10, 60)


def test_warn_min_cllr_bias_threshold():
    # replicates 0.2 and 0.3 standard deviations below the estimate
    d = np.random.default_rng(4).standard_normal(1000)
    d = (d - d.mean()) / d.std(ddof=1)
    assert warn_min_cllr_bias(0.2, d) is None
    assert warn_min_cllr_bias(-5.0, d) is None  # above the estimate: not PAV's optimism
    assert warn_min_cllr_bias(0.0, np.zeros(10)) is None  # no spread (its own warning)
    with pytest.warns(mlci.IrregularEstimandWarning, match="0.30 standard deviations"):
        warn_min_cllr_bias(MAX_MIN_CLLR_BIAS + 0.05, d)


def test_min_cllr_warns_of_pav_optimism():
    rng = np.random.default_rng(5)
    s = Scores(rng.normal(2, 1, 30), rng.normal(0, 1, 100))
    with pytest.warns(mlci.IrregularEstimandWarning, match="optimistic"):
        res = cllr_ci(s, kind="min", rng=0, n_resamples=300)
    assert res.method == "bca" and "PAV" in res.details["optimism_warning"]


def test_studentized_refuses_what_it_cannot_read():
    rng = np.random.default_rng(6)
    s = Scores(rng.normal(2, 1, 30), rng.normal(0, 1, 40))
    kw = {"rng": 0, "n_resamples": 50, "method": "studentized"}
    for bad in (
        {"kind": "min"},
        {"conditions": np.arange(70) % 7},
        {"strata": np.arange(70) % 2},
        {"resampling": mlci.Resampling(weights="poisson")},
    ):
        with pytest.raises(ValueError, match="`method`='studentized' of Cllr"):
            cllr_ci(s, **kw, **bad)
    w = Scores.from_labels(np.r_[np.ones(30), np.zeros(40)], np.r_[s.pos, s.neg],
                           sample_weight=np.full(70, 2.0))  # fmt: skip
    with pytest.raises(ValueError, match="`sample_weight`"):
        cllr_ci(w, **kw)


def test_collapse_warns_once_through_the_bootstrap_t():
    # every target and every non-target alike: no spread, no standard error; the
    # studentized read falls back to the (collapsed) percentile interval, warned once
    s = Scores([1.0, 1.0, 1.0], [-1.0, -1.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = cllr_ci(s, rng=0, n_resamples=200)
    kinds = [w.category for w in caught]
    assert kinds.count(mlci.DegenerateIntervalWarning) == 1
    assert kinds.count(mlci.NearBoundWarning) == 1  # 2 non-targets: below 4 effective
    assert res.confidence_interval.low == res.confidence_interval.high == res.estimate
