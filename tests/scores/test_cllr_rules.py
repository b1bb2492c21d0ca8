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
from hypothesis import given, settings
from hypothesis import strategies as st

import mlci
from mlci import Scores
from mlci.scores._cllr_rules import (
    MAX_CLLR_SKEWNESS,
    MAX_CLLR_T,
    MAX_MIN_CLLR_BIAS,
    MIN_CLLR_CLASS_RATIO,
    MIN_CLLR_CLASS_TRIALS,
    MIN_CLLR_EFFECTIVE_TRIALS,
    cllr_effective_trials,
    cllr_se_rows,
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
    got = cllr_effective_trials(s._lay)
    assert got[:4] == pytest.approx(ref, rel=1e-12)
    # the estimate's skewness from the class-wise moments (Cochran 1977, sec. 2.15: the
    # skewness of a mean is G1 / sqrt(n); here of a sum of two class means)
    se = 0.5 * np.sqrt(a.var(ddof=1) / 30 + b.var(ddof=1) / 70)
    m3 = (np.mean((a - a.mean()) ** 3) / 30**2 + np.mean((b - b.mean()) ** 3) / 70**2) / 8
    assert got.skewness == pytest.approx(m3 / se**3, rel=1e-10)
    # equal costs: every trial counts; one costly target among nearly free ones: about 1
    eq = cllr_effective_trials(Scores([1.0, 1.0, 1.0], [-2.0, -2.0])._lay)
    assert eq[:4] == pytest.approx((3.0, 2.0, 3.0, 2.0))
    assert np.isnan(eq.skewness)  # no spread: no skewness (and no warning from it)
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
    assert warn_few_costly_trials(k, 50.0, 30, 60) is None
    with pytest.warns(
        mlci.NearBoundWarning, match=f"non-targets rests on {k - 0.1:.1f} effective trials of 60"
    ):
        warn_few_costly_trials(k, k - 0.1, 30, 60)


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


def _absurd_design() -> Scores:
    """A test set of scripts/cllr_sweep.py's design 10 / 10 targets / non-targets, AUC
    0.999, calibrated LLRs (truth 0.0563 bits): one misjudged target carries the targets'
    cost.  Session 9's bootstrap-t gave it [0.0014, 3.0e8] bits."""
    from scipy.special import ndtri

    e = np.sqrt(2) * ndtri(0.999)
    rng = np.random.default_rng(2)
    zp, zn = rng.standard_normal(10) + e, rng.standard_normal(10)
    return Scores(np.round(e * zp - e * e / 2, 2), np.round(e * zn - e * e / 2, 2))


def test_se_floor_by_hand():
    # cllr_se_rows on hand-made replicate weights: the two-sample standard error, raised
    # to C* |log C* - log C| / max_t where a replicate lies further than max_t of its own
    # standard errors from the estimate (log scale)
    from types import SimpleNamespace

    s = _absurd_design()
    lay = s._lay
    a, b = np.logaddexp(0, -lay.u[1]) / LN2, np.logaddexp(0, lay.u[0]) / LN2
    rng = np.random.default_rng(7)
    w_pos = rng.multinomial(10, np.full(10, 0.1), size=300).astype(float)
    w_neg = rng.multinomial(10, np.full(10, 0.1), size=300).astype(float)
    v = SimpleNamespace(w=(w_neg, w_pos))
    raw = cllr_se_rows(lay, v, max_t=None)
    th = 0.5 * (w_pos @ a / 10 + w_neg @ b / 10)
    var = lambda w, x: (w @ x**2 / 10 - (w @ x / 10) ** 2) * 10 / 9  # noqa: E731
    assert raw == pytest.approx(0.5 * np.sqrt(var(w_pos, a) / 10 + var(w_neg, b) / 10))
    est = 0.5 * (a.mean() + b.mean())
    floored = cllr_se_rows(lay, v)
    want = np.maximum(raw, th * np.abs(np.log(th) - np.log(est)) / MAX_CLLR_T)
    assert floored == pytest.approx(want, rel=1e-12)
    t = (np.log(th) - np.log(est)) / (floored / th)
    assert np.max(np.abs(t)) <= MAX_CLLR_T * (1 + 1e-12)
    assert np.any(floored > raw)  # replicates without the costly target: floored
    assert np.sum(floored > raw) < 300  # the others keep their own


def test_previously_absurd_test_set_gets_a_finite_bound(monkeypatch):
    s = _absurd_design()
    with pytest.warns(mlci.NearBoundWarning, match="cost of the targets rests on 1.0"):
        res = cllr_ci(s, rng=0, n_resamples=1000)
    assert res.method == "studentized"
    est, se0 = res.estimate, res.details["linearized"]["standard_error"]
    lo, hi = res.confidence_interval
    # the bound the floor allows at most, est exp(max_t se / est): 400 times the estimate
    # here (the costly target's cost is about the targets' whole sum: se / est about 1)
    assert hi <= est * np.exp(MAX_CLLR_T * se0 / est) * (1 + 1e-9)
    assert 10 < hi < 100  # bits; session 9: 3.0e8
    assert lo < 0.0563 < hi  # the design's true Cllr (design_search_scores.cllr_truth)
    # the same replicates without the floor: session 9's bound, 3.0e8 bits
    import mlci.scores.verification as verification

    monkeypatch.setattr(verification, "cllr_se_rows", lambda lay, v: cllr_se_rows(lay, v, None))
    with pytest.warns(mlci.NearBoundWarning):
        old = cllr_ci(s, rng=0, n_resamples=1000)
    assert old.confidence_interval.high > 1e6
    assert old.estimate == est and old.confidence_interval.low == pytest.approx(lo)


def test_skewness_warns():
    # the 50-100-target designs session 9 left unwarned: many effective trials, a skewed
    # estimate (scripts/cllr_sweep.py: 50 / 250 targets, AUC 0.999, c 0.5, median 0.40)
    g = MAX_CLLR_SKEWNESS
    assert MIN_CLLR_EFFECTIVE_TRIALS < 9.0
    assert warn_few_costly_trials(9.0, 10.0, 50, 250, g - 0.01) is None
    assert warn_few_costly_trials(9.0, 10.0, 50, 250, float("nan")) is None
    with pytest.warns(mlci.NearBoundWarning, match="skewness is 0.50, above 0.35"):
        text = warn_few_costly_trials(9.0, 10.0, 50, 250, 0.5)
    assert "targets rests on 9.0 effective trials of 50" in text


def test_bad_inputs_of_the_rules():
    s = _absurd_design()
    from types import SimpleNamespace

    v = SimpleNamespace(w=(np.ones((1, 10)), np.ones((1, 10))))
    for bad in (0, -1.0, "6", float("nan")):
        with pytest.raises(ValueError, match="`max_t` must be a number > 0, or None"):
            cllr_se_rows(s._lay, v, max_t=bad)
    with pytest.raises(ValueError, match="`n_pos` must be a number >= 0; got 'ten'"):
        warn_few_costly_trials(3.0, 5.0, "ten", 20)
    with pytest.raises(TypeError, match="`skewness` must be a number"):
        warn_few_costly_trials(3.0, 5.0, 10, 20, None)


@settings(max_examples=30, deadline=None)
@given(
    pos=st.lists(st.floats(-30, 30), min_size=2, max_size=12),
    neg=st.lists(st.floats(-30, 30), min_size=2, max_size=12),
    seed=st.integers(0, 2**16),
)
def test_floor_bounds_every_replicate(pos, neg, seed):
    # property: the floored standard error is never below the replicate's own, and every
    # replicate's t* on the log scale lies within +-MAX_CLLR_T
    from types import SimpleNamespace

    s = Scores(pos, neg)
    lay = s._lay
    rng = np.random.default_rng(seed)
    w_pos = rng.multinomial(len(pos), lay.nobs[1] / len(pos), size=50).astype(float)
    w_neg = rng.multinomial(len(neg), lay.nobs[0] / len(neg), size=50).astype(float)
    v = SimpleNamespace(w=(w_neg, w_pos))
    raw, floored = cllr_se_rows(lay, v, None), cllr_se_rows(lay, v)
    ok = ~np.isnan(raw)
    assert np.all(floored[ok] >= raw[ok])
    a, b = np.logaddexp(0, -lay.u[1]) / LN2, np.logaddexp(0, lay.u[0]) / LN2
    th = 0.5 * (w_pos @ a / len(pos) + w_neg @ b / len(neg))
    est = 0.5 * (lay.nobs[1] @ a / len(pos) + lay.nobs[0] @ b / len(neg))
    live = ok & (th > 0) & (floored > 0) & (est > 0)
    t = (np.log(th[live]) - np.log(est)) / (floored[live] / th[live])
    assert np.all(np.abs(t) <= MAX_CLLR_T * (1 + 1e-9))


def test_small_outnumbered_class_warns():
    """Session 11 (docs/validation.md, "The weighted AUC at 1 and Cllr at few targets"):
    a class below MIN_CLLR_CLASS_TRIALS trials outnumbered MIN_CLLR_CLASS_RATIO times
    warns even where its costs look benign (10 / 50 targets, AUC 0.9, c 0.5: 0.916 of 450
    test sets, unwarned before); its edges, and the mirrored class."""
    assert (MIN_CLLR_CLASS_TRIALS, MIN_CLLR_CLASS_RATIO) == (20, 3.0)
    with pytest.warns(mlci.NearBoundWarning, match="Only 10 targets against 50 non-targets"):
        warn_few_costly_trials(8.0, 34.0, 10, 50, 0.1)
    with pytest.warns(mlci.NearBoundWarning, match="Only 19 non-targets against 57 targets"):
        warn_few_costly_trials(34.0, 8.0, 57, 19, 0.1)
    assert warn_few_costly_trials(8.0, 34.0, 20, 60, 0.1) is None  # 20 is enough
    assert warn_few_costly_trials(8.0, 34.0, 10, 29, 0.1) is None  # outnumbered 2.9 times
    assert warn_few_costly_trials(8.0, 9.0, 10, 10, 0.1) is None  # balanced 10 / 10 held


def test_cllr_ci_warns_on_ten_targets_of_sixty():
    """The regression: a test set of the 10 / 50 design (AUC 0.9, LLRs scaled by 0.5, as
    scripts/cllr_sweep.py draws it) whose costs are spread and not skewed got no warning."""
    from scipy.special import ndtri

    e = float(np.sqrt(2) * ndtri(0.9))
    g = np.random.default_rng(15)  # skewness 0.10, 6.9 effective targets
    pos = 0.5 * (e * (g.standard_normal(10) + e) - e * e / 2)
    neg = 0.5 * (e * g.standard_normal(50) - e * e / 2)
    s = Scores(pos, neg)
    eff = cllr_effective_trials(s._lay)
    assert min(eff[:2]) >= MIN_CLLR_EFFECTIVE_TRIALS and not eff.skewness > MAX_CLLR_SKEWNESS
    with pytest.warns(mlci.NearBoundWarning, match="Only 10 targets against 50"):
        res = cllr_ci(s, rng=0, n_resamples=300)
    assert res.details["few_errors_warning"].startswith("Only 10 targets against 50")
    assert res.method == "studentized"
