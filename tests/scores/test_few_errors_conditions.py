"""The EER and the rates at a fixed rate with few errors over conditions (issue 20;
mlci.engine.scores_clustered), and the same rule through metric_by_group.

References: the design effect against R's survey package (``svymean`` over ``ids =
~condition``, its variance over the binomial one; survey 4.x, R 4.x); the score interval
at one threshold against statsmodels' Wilson interval at the effective size with the
normal level matched to Student's quantile; the profile interval's definition solved by
brute force; error counts by direct comparison of every score.
"""

from __future__ import annotations

import os
import pickle
import warnings
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr, ndtri

import mlci
from mlci.engine.scores_clustered import (
    EER_CLUSTER_REASON,
    MIN_EER_CLUSTER_ERRORS,
    OP_CLUSTER_REASON,
    ClusteredScoreInterval,
    clustered_eer_interval,
    clustered_error_counts,
    clustered_rate_interval,
)
from mlci.engine.scores_rules import (
    EER_SCORE_REASON,
    eer_score_interval,
    error_counts,
    rate_score_interval,
)

sm_prop = pytest.importorskip("statsmodels.stats.proportion")


# ------------------------------------------------------------------------ references
def test_design_effect_is_survey_svymean_over_the_binomial():
    # R: y <- c(1,1,1,1,0,0,0,0,1,1,0,0,0,0,0,1,0,0,0,0,1,1)
    #    cl <- c(1,1,1,1,2,2,2,3,3,3,3,4,4,5,5,5,5,5,6,6,7,7)
    #    m <- svymean(~y, svydesign(ids=~cl, data=data.frame(y, cl)))
    #    vcov(m) / (coef(m) * (1 - coef(m)) / 22) = 2.424889924889925
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1])
    cl = np.array([1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 5, 5, 5, 5, 5, 6, 6, 7, 7])
    # the misses at threshold 1: the positives scored 0
    cc = clustered_error_counts([5.0, 6.0, 7.0], [1, 2, 3], np.where(y == 1, 0.0, 1.0), cl)
    at = np.flatnonzero(cc.fn == 9)
    assert len(at) > 0
    assert cc.deff_fn[at] == pytest.approx(2.424889924889925, abs=1e-12)
    # the false alarms, the same indicators of the negatives scored 2 (above threshold 1.5)
    cc = clustered_error_counts(np.where(y == 1, 2.0, 0.0), cl, [1.5, 9.0], [1, 2])
    at = np.flatnonzero(cc.fp == 9)
    assert cc.deff_fp[at] == pytest.approx(2.424889924889925, abs=1e-12)
    # df: the conditions of the rarer class, minus one
    assert cc.df == 1


def test_clustered_counts_are_the_error_counts():
    rng = np.random.default_rng(1)
    zn = np.round(rng.normal(size=300), 1)
    zp = np.round(rng.normal(size=80) + 2, 1)
    cc = clustered_error_counts(zn, rng.integers(0, 12, 300), zp, rng.integers(0, 12, 80))
    un, nn = np.unique(zn, return_counts=True)
    up, npp = np.unique(zp, return_counts=True)
    fn, fp = error_counts(un, nn.astype(float), up, npp.astype(float))
    assert np.array_equal(cc.fn, fn) and np.array_equal(cc.fp, fp)
    assert np.all(cc.deff_fn >= 1) and np.all(cc.deff_fp >= 1)


def _direct_deff(z, cond, t, cls):
    y = (z < t) if cls else (z >= t)
    p = y.mean()
    if p in (0.0, 1.0):
        return 1.0
    codes = np.unique(cond, return_inverse=True)[1]
    yc, nc = np.bincount(codes, weights=y), np.bincount(codes)
    c = len(nc)
    v = c / (c - 1) * np.sum((yc - p * nc) ** 2)
    return max(v / (len(z) * p * (1 - p)), 1.0)


def test_design_effects_at_every_threshold_by_direct_computation():
    rng = np.random.default_rng(2)
    cn, cp = rng.integers(0, 12, 300), rng.integers(0, 12, 80)
    u = rng.normal(size=12)
    zn = np.round(rng.normal(size=300) + u[cn], 1)
    zp = np.round(rng.normal(size=80) + 2 + u[cp], 1)
    cc = clustered_error_counts(zn, cn, zp, cp)
    thr = np.r_[np.union1d(zn, zp), np.inf]
    want_fn = [_direct_deff(zp, cp, t, 1) for t in thr]
    want_fp = [_direct_deff(zn, cn, t, 0) for t in thr]
    assert cc.deff_fn[: len(thr)] == pytest.approx(want_fn, rel=1e-10)
    assert cc.deff_fp[: len(thr)] == pytest.approx(want_fp, rel=1e-10)
    assert cc.deff_fn.max() > 2 and cc.deff_fp.max() > 5  # clustered: effects above 1


def test_clustered_interval_at_one_threshold_is_wilson_at_the_effective_size():
    # FN = FP = 5 of 50 a class, both design effects 2, 9 degrees of freedom: Wilson's
    # interval of 10 / 2 = 5 in 100 / 2 = 50 at the normal level whose quantile is
    # Student's t(9) 0.975 quantile (statsmodels proportion_confint(..., "wilson"))
    one = np.ones(1)
    cc = clustered_error_counts([0.0, 1.0], [0, 1], [0.0, 1.0], [0, 1])
    cc = replace(cc, fn=5 * one, fp=5 * one, deff_fn=2 * one, deff_fp=2 * one,
                 n_pos=50.0, n_neg=50.0, df=9)  # fmt: skip
    alpha = 2 * (1 - ndtr(stats.t.ppf(0.975, 9)))
    ref = sm_prop.proportion_confint(5, 50, alpha=alpha, method="wilson")
    assert clustered_eer_interval(cc) == pytest.approx(ref, abs=1e-12)
    # the rate at a known threshold (the other class exactly at its rate): Wilson's
    cc = replace(cc, fn=4 * one, fp=10 * one, deff_fn=2 * one, n_pos=40.0, n_neg=100.0)
    ref = sm_prop.proportion_confint(2, 20, alpha=alpha, method="wilson")
    assert clustered_rate_interval(cc, "fnr", 0.1) == pytest.approx(ref, abs=1e-12)
    # every design effect 1 and infinitely many conditions: the iid score interval
    rng = np.random.default_rng(3)
    zn, zp = rng.normal(size=200), rng.normal(size=40) + 2.5
    cc = clustered_error_counts(zn, rng.integers(0, 5, 200), zp, rng.integers(0, 5, 40))
    flat = replace(cc, deff_fn=np.ones_like(cc.fn), deff_fp=np.ones_like(cc.fp), df=10**9)
    assert clustered_eer_interval(flat, 0.9) == pytest.approx(
        eer_score_interval(cc.fn, cc.fp, 40, 200, 0.9), abs=1e-8
    )
    assert clustered_rate_interval(flat, "fpr", 0.2) == pytest.approx(
        rate_score_interval(cc.fp, 200, cc.fn, 40, 0.2), abs=1e-8
    )


def test_clustered_interval_matches_a_brute_force_inversion():
    rng = np.random.default_rng(4)
    cn, cp = rng.integers(0, 8, 230), rng.integers(0, 8, 30)
    u = rng.normal(size=8)
    cc = clustered_error_counts(rng.normal(size=230) + u[cn], cn,
                                rng.normal(size=30) + 2 + u[cp], cp)  # fmt: skip
    c = stats.t.ppf(0.975, cc.df) ** 2
    grid = np.linspace(1e-5, 1 - 1e-5, 10_001)

    def eer_ok(e):
        x2 = (cc.fn - 30 * e) ** 2 / (30 * e * (1 - e) * cc.deff_fn) + (
            cc.fp - 230 * e
        ) ** 2 / (230 * e * (1 - e) * cc.deff_fp)
        return x2.min() <= c

    ok = np.array([eer_ok(e) for e in grid])
    assert clustered_eer_interval(cc) == pytest.approx((grid[ok].min(), grid[ok].max()), abs=2e-4)

    def op_ok(p):
        d = (cc.fp - 230 * 0.05) ** 2 / (230 * 0.05 * 0.95 * cc.deff_fp)
        x2 = d + (cc.fn - 30 * p) ** 2 / (30 * p * (1 - p) * cc.deff_fn)
        return x2.min() <= c

    ok = np.array([op_ok(p) for p in grid])
    assert clustered_rate_interval(cc, "fnr", 0.05) == pytest.approx(
        (grid[ok].min(), grid[ok].max()), abs=2e-4
    )
    # one-sided: the two-sided interval at twice the tail
    lo90, hi90 = clustered_eer_interval(cc, 0.90)
    assert clustered_eer_interval(cc, 0.95, "less") == pytest.approx((0.0, hi90), abs=1e-12)
    assert clustered_eer_interval(cc, 0.95, "greater") == pytest.approx((lo90, 1.0), abs=1e-12)


# ------------------------------------------------------------------------ bad input
def _cc():
    return clustered_error_counts([0.0, 1.0, 2.0], [0, 1, 1], [1.5, 3.0], [0, 1])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"z_neg": []}, "z_neg"),
        ({"z_pos": [1.0, np.nan]}, "z_pos"),
        ({"z_neg": "abc"}, "z_neg"),
        ({"cond_neg": [0, 1]}, "cond_neg"),
        ({"cond_pos": [0.0, np.nan]}, "cond_pos"),
        ({"cond_pos": [0, 0]}, "at least 2 conditions"),
    ],
)
def test_clustered_error_counts_bad_input(kwargs, match):
    args = {"z_neg": [0.0, 1.0, 2.0], "cond_neg": [0, 1, 1], "z_pos": [1.5, 3.0],
            "cond_pos": [0, 1]}  # fmt: skip
    with pytest.raises((ValueError, TypeError), match=match):
        clustered_error_counts(**{**args, **kwargs})


@pytest.mark.parametrize(
    ("fn", "kwargs", "match"),
    [
        (clustered_eer_interval, {"counts": (1, 2)}, "counts"),
        (clustered_eer_interval, {"confidence_level": 1.2}, "confidence_level"),
        (clustered_eer_interval, {"alternative": "both"}, "alternative"),
        (clustered_rate_interval, {"rate": "tpr"}, "rate"),
        (clustered_rate_interval, {"at": 0.0}, "at"),
        (clustered_rate_interval, {"at": "x"}, "at"),
        (clustered_rate_interval, {"counts": None}, "counts"),
    ],
)
def test_clustered_intervals_bad_input(fn, kwargs, match):
    args = {"counts": _cc()}
    if fn is clustered_rate_interval:
        args.update(rate="fnr", at=0.1)
    with pytest.raises((ValueError, TypeError), match=match):
        fn(**{**args, **kwargs})
