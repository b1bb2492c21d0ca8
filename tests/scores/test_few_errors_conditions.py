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
    EER_CLUSTER_RATE_REASON,
    EER_CLUSTER_REASON,
    MIN_EER_CLUSTER_ERRORS,
    OP_CLUSTER_REASON,
    ClusteredScoreInterval,
    clustered_eer_interval,
    clustered_error_counts,
    clustered_rate_interval,
    score_icc,
    warn_clustered_few_errors,
)
from mlci.engine.scores_rules import (
    EER_SCORE_REASON,
    MIN_EER_SCORE_ERRORS,
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
    # the rate at a known threshold (the other class exactly at its rate): Wilson's,
    # with Brown, Cai & DasGupta's Poisson lower bound for the 2 effective events in 20
    # (k* = 2 for n <= 50): Gamma(2) quantile at alpha (the t(9) level's) over 20
    cc = replace(cc, fn=4 * one, fp=10 * one, deff_fn=2 * one, n_pos=40.0, n_neg=100.0)
    ref = sm_prop.proportion_confint(2, 20, alpha=alpha, method="wilson")
    assert clustered_rate_interval(cc, "fnr", 0.1, poisson_edge=False) == pytest.approx(
        ref, abs=1e-12
    )
    lo, hi = clustered_rate_interval(cc, "fnr", 0.1)
    assert hi == pytest.approx(ref[1], abs=1e-12)
    assert lo == pytest.approx(stats.chi2.ppf(alpha, 4) / 40, abs=1e-12) and lo < ref[0]
    # 5 effective events in 20 (beyond k*): Wilson's alone
    cc5 = replace(cc, fn=10 * one)
    ref5 = sm_prop.proportion_confint(5, 20, alpha=alpha, method="wilson")
    assert clustered_rate_interval(cc5, "fnr", 0.1) == pytest.approx(ref5, abs=1e-12)
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


def _brute_force(cc, n_pos=30, n_neg=230):
    """The EER's and the FNR's (at FPR 0.05) intervals by inverting the statistic on a
    grid: the thresholds with their design effects, and each segment's points (its ends
    too) with the larger of its ends'."""
    c = stats.t.ppf(0.975, cc.df) ** 2
    grid = np.linspace(1e-5, 1 - 1e-5, 10_001)
    o = np.lexsort((-cc.fp, cc.fn))
    t = np.linspace(0.0, 1.0, 21)[:, None]
    inner = [(a[o][:-1] + t * np.diff(a[o])).ravel() for a in (cc.fn, cc.fp)]
    dmax = [(np.maximum(a[o][:-1], a[o][1:]) + 0 * t).ravel() for a in (cc.deff_fn, cc.deff_fp)]
    fn, fp = np.r_[cc.fn, inner[0]], np.r_[cc.fp, inner[1]]
    dfn, dfp = np.r_[cc.deff_fn, dmax[0]], np.r_[cc.deff_fp, dmax[1]]

    def eer_ok(e):
        x2 = (fn - n_pos * e) ** 2 / (n_pos * e * (1 - e) * dfn) + (fp - n_neg * e) ** 2 / (
            n_neg * e * (1 - e) * dfp
        )
        return x2.min() <= c

    def op_ok(p):
        d = (fp - n_neg * 0.05) ** 2 / (n_neg * 0.05 * 0.95 * dfp)
        x2 = d + (fn - n_pos * p) ** 2 / (n_pos * p * (1 - p) * dfn)
        return x2.min() <= c

    out = []
    for accept in (eer_ok, op_ok):
        ok = np.array([accept(e) for e in grid])
        out.append((grid[ok].min(), grid[ok].max()))
    return out


@pytest.mark.parametrize("tied", [False, True])
def test_clustered_interval_matches_a_brute_force_inversion(tied):
    rng = np.random.default_rng(4)
    cn, cp = rng.integers(0, 8, 230), rng.integers(0, 8, 30)
    u = rng.normal(size=8)
    zn, zp = rng.normal(size=230) + u[cn], rng.normal(size=30) + 2 + u[cp]
    if tied:  # a grid of 0.5: segments that cross several errors of both classes
        zn, zp = np.round(2 * zn) / 2, np.round(2 * zp) / 2
    cc = clustered_error_counts(zn, cn, zp, cp)
    # the profile runs along the ROC polyline (session 9): inside a segment, the larger
    # of its ends' design effects (kept in session 10: interpolating them under-covered,
    # scripts/scores_clustered_segment_study.py)
    eer, op = _brute_force(cc)
    assert clustered_eer_interval(cc) == pytest.approx(eer, abs=2e-4)
    assert clustered_rate_interval(cc, "fnr", 0.05, poisson_edge=False) == pytest.approx(
        op, abs=2e-4
    )  # (the brute force inverts Wilson's statistic; the Poisson edge only widens)
    lo_e, hi_e = clustered_rate_interval(cc, "fnr", 0.05)
    assert lo_e <= op[0] + 2e-4 and hi_e >= op[1] - 2e-4
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


# ------------------------------------------------------------------------ the doors
def _clustered_scores(seed=0, n_cond=20, mu=4.6, n=1000, n_pos=100, icc=0.3):
    """Few errors over conditions (speaker shifts of variance ``icc`` out of 1)."""
    g = np.random.default_rng(seed)
    y = np.r_[np.ones(n_pos, int), np.zeros(n - n_pos, int)]
    cond = g.integers(0, n_cond, n)
    u = g.normal(size=(2, n_cond))
    shift = np.where(y == 1, u[0][cond], u[1][cond])
    s = g.normal(size=n) * np.sqrt(1 - icc) + np.sqrt(icc) * shift
    return y, s + mu * y, cond


def _counts(y, s, cond):
    return clustered_error_counts(s[y == 0], cond[y == 0], s[y == 1], cond[y == 1])


def test_eer_auto_over_conditions_gives_the_clustered_score_interval():
    y, s, cond = _clustered_scores()
    sc = mlci.Scores.from_labels(y, s)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the interval holds: no few-errors warning
        res = mlci.eer_ci(sc, conditions=cond, rng=0, n_resamples=200)
    e = res.eer
    assert e.estimate * 100 < MIN_EER_CLUSTER_ERRORS
    assert e.method == "wilson" and e.details["method_reason"] == EER_CLUSTER_REASON
    cc = _counts(y, s, cond)
    assert tuple(e.confidence_interval) == clustered_eer_interval(cc)
    assert res.threshold.method == "bca"
    # the other door of the driver, the same interval
    other = sc.bootstrap_ci("eer", conditions=cond, rng=0, n_resamples=200)
    assert tuple(other.confidence_interval) == tuple(e.confidence_interval)
    # re-read at another level, one-sided, pickled, a list of levels
    assert tuple(e.interval(confidence_level=0.9).confidence_interval) == clustered_eer_interval(
        cc, 0.9
    )
    less = mlci.eer_ci(sc, conditions=cond, rng=0, n_resamples=200, alternative="less").eer
    assert tuple(less.confidence_interval) == clustered_eer_interval(cc, 0.95, "less")
    again = pickle.loads(pickle.dumps(e)).interval(confidence_level=0.8)
    assert tuple(again.confidence_interval) == clustered_eer_interval(cc, 0.8)
    both = mlci.eer_ci(sc, conditions=cond, rng=0, n_resamples=200, confidence_level=[0.9, 0.95])
    assert tuple(both[1].eer.confidence_interval) == tuple(e.confidence_interval)
    assert e.interval(method="percentile").method == "percentile"  # replicates kept
    # nested conditions: the top level's design effect
    nested = mlci.eer_ci(sc, conditions=[cond, np.arange(1000)], rng=0, n_resamples=200).eer
    assert tuple(nested.confidence_interval) == tuple(e.confidence_interval)
    # without conditions the iid rule (score interval below one error): 1.8 errors,
    # percentile and warned
    with pytest.warns(mlci.NearBoundWarning, match="errors in its smaller class"):
        iid = mlci.eer_ci(sc, rng=0, n_resamples=200).eer
    assert iid.method == "percentile"
    # an explicit method is the user's, and weights or strata keep the bootstrap (warned)
    assert mlci.eer_ci(sc, conditions=cond, rng=0, n_resamples=200,
                       method="percentile").eer.method == "percentile"  # fmt: skip
    with pytest.warns(mlci.NearBoundWarning, match="errors in its smaller class"):
        st = mlci.eer_ci(sc, conditions=cond, strata=cond % 2, rng=0, n_resamples=200).eer
    assert st.method == "percentile"
    # over fewer than 20 conditions the engine's FewConditionsWarning (a bootstrap too
    # narrow) is the threshold's only: the EER's interval counts the conditions itself
    few = np.asarray(cond) % 10
    for method, n_warned in (("auto", 1), ("percentile", 2)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mlci.eer_ci(sc, conditions=few, rng=0, n_resamples=200, method=method)
        kinds = [type(c.message) for c in caught]
        assert kinds.count(mlci.FewConditionsWarning) == n_warned, (method, kinds)
    # strongly clustered scores over 20 conditions: the design effect at the tested rate
    # (tests/scores/test_clustered_rate_deff.py), which held there; not warned
    y, s, cond = _clustered_scores(icc=0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        strong = mlci.eer_ci(mlci.Scores.from_labels(y, s), conditions=cond, rng=0,
                             n_resamples=200).eer  # fmt: skip
    assert strong.method == "wilson" and "few_errors_warning" not in strong.details
    assert strong.details["method_reason"] == EER_CLUSTER_RATE_REASON
    rate = clustered_eer_interval(_counts(y, s, cond), deff="rate")
    assert tuple(strong.confidence_interval) == rate
    assert rate[1] > clustered_eer_interval(_counts(y, s, cond))[1]
    assert score_icc(s[y == 1], cond[y == 1]) == pytest.approx(0.9, abs=0.1)
    # ... over 10 conditions, where even that fell short: warned
    y, s, cond = _clustered_scores(icc=0.9, n_cond=10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # (the threshold's BCa over 10 conditions warns too)
        warned = mlci.eer_ci(mlci.Scores.from_labels(y, s), conditions=cond, rng=0,
                             n_resamples=200).eer  # fmt: skip
    near = [str(c.message) for c in caught if c.category is mlci.NearBoundWarning]
    assert len(near) == 1 and "within a condition" in near[0]
    assert warned.method == "wilson" and "collect" in warned.details["few_errors_warning"]
    assert "design effect at the tested rate" in warned.details["few_errors_warning"]
    rate = clustered_eer_interval(_counts(y, s, cond), deff="rate")
    assert tuple(warned.confidence_interval) == rate


def test_eer_auto_over_conditions_many_errors_unchanged():
    y, s, cond = _clustered_scores(seed=1, mu=2.5)  # about 10 errors in 100 targets
    sc = mlci.Scores.from_labels(y, s)
    auto = mlci.eer_ci(sc, conditions=cond, rng=0, n_resamples=200).eer
    pct = mlci.eer_ci(sc, conditions=cond, rng=0, n_resamples=200, method="percentile").eer
    assert auto.estimate * 100 >= MIN_EER_CLUSTER_ERRORS
    assert auto.method == "percentile"
    assert tuple(auto.confidence_interval) == tuple(pct.confidence_interval)


def test_operating_point_over_conditions():
    y, s, cond = _clustered_scores(seed=2, mu=3.8)
    sc = mlci.Scores.from_labels(y, s)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fnr, thr = mlci.operating_point_ci(sc, "fnr", at=0.05, conditions=cond, rng=0,
                                           n_resamples=200)  # fmt: skip
        tpr = mlci.operating_point_ci(sc, "tpr", at=0.05, conditions=cond, rng=0,
                                      n_resamples=200)[0]  # fmt: skip
    assert fnr.method == "wilson" and fnr.details["method_reason"] == OP_CLUSTER_REASON
    assert thr.method == "bca"
    cc = _counts(y, s, cond)
    assert tuple(fnr.confidence_interval) == clustered_rate_interval(cc, "fnr", 0.05)
    door = sc.bootstrap_ci("fnr_at_fpr", at=0.05, conditions=cond, rng=0, n_resamples=200)
    assert door.method == "wilson" and tuple(door.confidence_interval) == tuple(
        fnr.confidence_interval
    )
    lo, hi = fnr.confidence_interval
    assert tuple(tpr.confidence_interval) == pytest.approx((1 - hi, 1 - lo), abs=1e-15)
    # the FPR at a fixed FNR, and the TNR at a TPR (FNR = 1 - TPR)
    fpr = mlci.operating_point_ci(sc, "fpr", at=0.5, x="fnr", conditions=cond, rng=0,
                                  n_resamples=200)[0]  # fmt: skip
    if fpr.method == "wilson":
        assert tuple(fpr.confidence_interval) == clustered_rate_interval(cc, "fpr", 0.5)
    # a score interval that flips one-sided alternatives with the complement
    one = ClusteredScoreInterval("rate", cc, "fnr", 0.05, flip=True)
    less = clustered_rate_interval(cc, "fnr", 0.05, 0.95, "less")
    assert one(0.95, "greater")[0] == pytest.approx(1 - less[1])


# ------------------------------------------------------------------------ metric_by_group
def _two_groups(seed=3, n=600):
    g = np.random.default_rng(seed)
    y = (g.random(n) < 0.3).astype(int)
    grp = g.choice(["a", "b"], n)
    s = g.normal(size=n) + np.where(grp == "a", 5.0, 2.0) * y  # a: few errors, b: many
    return y, s, grp, g.integers(0, 20, n)


@pytest.mark.parametrize("over_conditions", [False, True])
def test_metric_by_group_gives_each_group_eer_ci_answer(over_conditions):
    y, s, grp, cond = _two_groups()
    kw = {"rng": 0, "n_resamples": 300}
    if over_conditions:
        kw["conditions"] = cond
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a's collapse is replaced: neither warning
        res = mlci.metric_by_group(y, s, groups=grp, metric="eer", **kw)
    rows = {r["group"]: r for r in res.rows()}
    given = []
    for name, m in (("a", grp == "a"), ("b", grp == "b"), ("(overall)", np.ones(len(y), bool))):
        sub = dict(kw)
        if over_conditions:
            sub["conditions"] = cond[m]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", mlci.NearBoundWarning)
            e = mlci.eer_ci(mlci.Scores.from_labels(y[m], s[m]), **sub).eer
        assert rows[name]["estimate"] == pytest.approx(e.estimate, abs=1e-12)
        if e.method == "wilson":  # the score interval: the same numbers
            given.append(name)
            assert (rows[name]["low"], rows[name]["high"]) == pytest.approx(
                tuple(e.confidence_interval), abs=1e-12
            )
    assert given == ["a"]  # few errors in a; b and all data have dozens
    assert res.details["score_interval_rows"] == [0]
    want = EER_CLUSTER_REASON if over_conditions else EER_SCORE_REASON
    assert res.details["score_interval_reason"] == want
    assert rows["a"]["high"] > 0.01 and rows["a"]["estimate"] * 60 < MIN_EER_SCORE_ERRORS


def test_metric_by_group_keeps_the_bootstrap_where_the_rule_does_not_apply():
    y, s, grp, cond = _two_groups()
    kw = {"rng": 0, "n_resamples": 300}
    w = np.ones(len(y))
    w[0] = 2.0
    # weights, or strata: the percentile interval, its collapse and the warning stay
    for extra in ({"sample_weight": w}, {"strata": cond % 2, "resampling": mlci.Resampling(
            stratify=False)}):  # fmt: skip
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = mlci.metric_by_group(y, s, groups=grp, metric="eer", **kw, **extra)
        kinds = {type(c.message) for c in caught}
        assert kinds == {mlci.NearBoundWarning, mlci.DegenerateIntervalWarning}, kinds
        assert "score_interval_rows" not in res.details
    # an explicit method: the user's, no rule
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mlci.metric_by_group(y, s, groups=grp, metric="eer", method="percentile", **kw)
    assert "score_interval_rows" not in res.details and res.rows()[0]["high"] == 0.0


def test_score_icc_is_the_anova_estimator_of_the_normal_scores():
    # balanced: ICC = (F - 1) / (F + k - 1) with scipy's one-way ANOVA F of the van der
    # Waerden scores (k samples per condition)
    rng = np.random.default_rng(6)
    cond = np.repeat(np.arange(15), 8)
    z = rng.normal(size=15)[cond] * 0.8 + rng.normal(size=120)
    x = ndtri((stats.rankdata(z) - 0.5) / 120)
    f = stats.f_oneway(*[x[cond == c] for c in range(15)]).statistic
    assert score_icc(z, cond) == pytest.approx((f - 1) / (f + 8 - 1), abs=1e-12)
    # ranks only: a strictly increasing transform changes nothing
    assert score_icc(np.exp(z), cond) == pytest.approx(score_icc(z, cond), abs=1e-15)
    assert score_icc(rng.normal(size=120), cond) < 0.2
    assert np.isnan(score_icc([1.0, 2.0], [0, 1]))  # one sample per condition
    assert warn_clustered_few_errors(0.9, 150) is None  # many conditions: no warning
    with pytest.raises(ValueError, match="cond"):
        score_icc([1.0, 2.0, 3.0], [0, 1])


# ------------------------------------------------------------------------ coverage
@pytest.mark.slow
def test_coverage_of_eer_auto_over_conditions_with_few_errors():
    # scripts/scores_clustered_eer_sweep.py's design 41: EER 0.01 (1 expected error in
    # 100 targets), 1,000 trials over 20 conditions of unequal sizes, speaker shifts of
    # variance 0.69 (an ICC of the errors of 0.25).  The sweep: auto's score interval
    # over conditions 0.967, percentile 0.567, BCa 0.607 (150 test sets).  1,000 test sets
    # at MLCI_SLOW_SCALE=1, 100 at 0.1: auto's coverage from below (the exact binomial
    # 0.001 quantile at 0.95), and the percentile interval of the same results rejected
    # by that bound (the test can fail)
    n_sets = max(int(1000 * float(os.environ.get("MLCI_SLOW_SCALE", "1"))), 100)
    mu, rho, n_cond = -2 * ndtri(0.01), 0.69, 20
    hits = pct_hits = 0
    for i in range(n_sets):
        g = np.random.default_rng([2033, i])
        y = np.r_[np.ones(100, bool), np.zeros(900, bool)]
        share = g.lognormal(0, 0.6, n_cond)
        cond = g.choice(n_cond, 1000, p=share / share.sum())
        u = g.normal(size=(2, n_cond))
        shift = np.where(y, u[0][cond], u[1][cond])
        s = g.normal(size=1000) * np.sqrt(1 - rho) + np.sqrt(rho) * shift + mu * y
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", mlci.NearBoundWarning)
            warnings.simplefilter("ignore", mlci.DegenerateIntervalWarning)
            res = mlci.eer_ci(mlci.Scores.from_labels(y.astype(int), s), conditions=cond,
                              rng=i, n_resamples=200).eer  # fmt: skip
            pct = res.interval(method="percentile").confidence_interval
        clustered = res.estimate * 100 < MIN_EER_CLUSTER_ERRORS
        assert res.method == ("wilson" if clustered else "percentile")
        lo, hi = res.confidence_interval
        hits += bool(lo <= 0.01 <= hi)
        lo, hi = pct
        pct_hits += bool(lo <= 0.01 <= hi)
    bound = stats.binom.ppf(0.001, n_sets, 0.95)
    assert bound <= hits, hits / n_sets
    assert pct_hits < bound, pct_hits / n_sets
    print(f"auto covered {hits / n_sets:.3f}, percentile {pct_hits / n_sets:.3f} of {n_sets}")


def test_group_scores_metric_ci_is_metric_by_group():
    from mlci.scores.group_scores import GroupScores

    y, s, grp, cond = _two_groups()
    gs = GroupScores.from_labels(y, s, groups=grp)
    a = gs.metric_ci("eer", rng=0, n_resamples=300, conditions=cond)
    b = mlci.metric_by_group(y, s, groups=grp, metric="eer", rng=0, n_resamples=300,
                             conditions=cond)  # fmt: skip
    assert a.rows() == b.rows() and a.details["score_interval_rows"] == [0]


def test_cli_scores_over_conditions_gives_the_same_interval(tmp_path, capsys):
    import json

    from mlci.cli import main

    y, s, cond = _clustered_scores()
    path = tmp_path / "trials.csv"
    lines = ["label,score,speaker"] + [
        f"{a},{float(b)!r},spk{c}" for a, b, c in zip(y, s, cond, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n")
    argv = [str(path), "--label", "label", "--score", "score", "--condition", "speaker"]
    code = main(["scores", *argv, "-B", "200", "--seed", "0", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code in (0, None)
    rows = {(q["quantity"], q["at"]): q for q in out["scores"]["score"]}
    eer = rows[("eer", "")]
    assert eer["method"] == "wilson"
    want = clustered_eer_interval(_counts(y, s, cond))
    got = (eer["confidence_interval"]["low"], eer["confidence_interval"]["high"])
    assert got == pytest.approx(want, abs=1e-12)


# ------------------------------------------------------------------------ trials of two speakers
def _trials(seed=0, n_spk=20, r=3, k=1.0, rho=0.3):
    g = np.random.default_rng(seed)
    spk = np.repeat(np.arange(n_spk), r)
    ids = np.array([f"r{i}" for i in range(len(spk))])
    e, t = np.triu_indices(len(spk), k=1)
    lab = spk[e] == spk[t]
    mu = -2 * ndtri(k / lab.sum())
    a, b = g.normal(size=n_spk) * np.sqrt(rho), g.normal(size=n_spk) * np.sqrt(rho / 2)
    s = np.where(lab, mu + a[spk[e]], b[spk[e]] + b[spk[t]])
    s = s + g.normal(size=len(e)) * np.sqrt(1 - rho)
    return lab, s, ids[e], ids[t], dict(zip(ids, spk, strict=True)), spk[e], spk[t]


def test_two_speakers_a_trial_is_the_dyadic_variance():
    lab, s, _, _, _, se, st = _trials(seed=1, rho=0.6)
    neg = ~lab
    both = np.stack([se, st], axis=1)
    cc = clustered_error_counts(s[neg], both[neg], s[lab], both[lab])
    thr = np.r_[np.union1d(s[neg], s[lab]), np.inf]
    for j in (len(thr) // 2, len(thr) - 40):
        y = (s[neg] >= thr[j]).astype(float)  # false alarms
        p = y.mean()
        # h_c: every trial's residual in each of its two speakers (both differ here)
        h = np.bincount(se[neg], weights=y - p, minlength=20)
        h += np.bincount(st[neg], weights=y - p, minlength=20)
        c = len(np.unique(both[neg]))
        v = c / (c - 1) * np.sum(h**2)
        want = max(v / (neg.sum() * p * (1 - p)), 1.0) if 0 < p < 1 else 1.0
        assert cc.fp[j] == y.sum() and cc.deff_fp[j] == pytest.approx(want, rel=1e-10)
        # the joint speaker bootstrap (a trial weighs the product of its speakers'
        # multiplicities): its variance of the false-alarm rate, by Monte Carlo
        rng = np.random.default_rng(2)
        m = rng.multinomial(20, np.full(20, 1 / 20), size=4000).astype(float)
        w = m[:, se[neg]] * m[:, st[neg]]
        boot = np.var((w @ y) / w.sum(axis=1))
        assert boot == pytest.approx(v / neg.sum() ** 2, rel=0.25)
    # targets have one speaker on both sides: counted once (the one-way effect)
    one = clustered_error_counts(s[neg], both[neg], s[lab], se[lab])
    assert np.array_equal(one.deff_fn, cc.deff_fn)


def test_trial_bootstrap_ci_eer_over_speakers():
    from mlci.scores.trials import trial_bootstrap_ci

    lab, s, e, t, so, se, st = _trials()
    kw = {"enroll_ids": e, "test_ids": t, "speaker_of": so, "n_resamples": 200, "rng": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = trial_bootstrap_ci(lab, s, **kw)
    assert res.estimate * lab.sum() < MIN_EER_CLUSTER_ERRORS
    assert res.method == "wilson" and res.details["method_reason"] == EER_CLUSTER_REASON
    both = np.stack([se, st], axis=1)
    cc = clustered_error_counts(s[~lab], both[~lab], s[lab], both[lab])
    assert tuple(res.confidence_interval) == clustered_eer_interval(cc)
    assert cc.df == 19
    assert tuple(res.interval(confidence_level=0.9).confidence_interval) == (
        clustered_eer_interval(cc, 0.9)
    )
    two = trial_bootstrap_ci(lab, s, **kw, confidence_level=[0.9, 0.95])
    assert tuple(two[1].confidence_interval) == tuple(res.confidence_interval)
    assert res.interval(method="percentile").method == "percentile"
    # the squared weight of same-speaker trials, or sessions resampled: the bootstrap
    with pytest.warns(mlci.NearBoundWarning, match="errors in its smaller class"):
        prod = trial_bootstrap_ci(lab, s, **kw, same_speaker="product")
    assert prod.method == "percentile"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pct = trial_bootstrap_ci(lab, s, **kw, method="percentile")
    assert pct.method == "percentile"
    # many errors: unchanged
    lab, s, e, t, so, _, _ = _trials(k=12.0)
    kw.update(enroll_ids=e, test_ids=t, speaker_of=so)
    auto = trial_bootstrap_ci(lab, s, **kw)
    assert auto.method == "percentile"
    assert tuple(auto.confidence_interval) == tuple(
        trial_bootstrap_ci(lab, s, **kw, method="percentile").confidence_interval
    )
