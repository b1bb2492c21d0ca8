"""``auto``'s logit jackknife interval of average precision (``mlci.engine.ap_interval``).

Reference values: the delete-one jackknife (independent samples) and the delete-one-
condition jackknife computed here by brute force, each deletion's AP recomputed from the
definition (scikit-learn's step-wise sum, ``sum_k (R_k - R_{k-1}) P_k``), then
``expit(logit(AP) +- q se / (AP (1 - AP)))`` with ``q`` the normal quantile
(independent) or Student's with C - 1 degrees of freedom (C conditions).  The evidence
for the rule: ``scripts/ap_interval_sweep.py`` (docs/validation.md, "Average precision:
BCa's shortfall and the logit jackknife interval").
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
    AP_LOGIT_NEAR,
    MIN_AP_LOGIT_CONDITIONS,
    MIN_AP_LOGIT_POSITIVES,
    MIN_AP_LOGIT_POSITIVES_NEAR,
    ap_logit_rule,
    jackknife_standard_error,
)


def _ap(y, s):
    """Average precision from its definition (distinct scores: one threshold each)."""
    o = np.argsort(-s, kind="stable")
    pos = np.asarray(y, bool)[o]
    tp = np.cumsum(pos)
    return float(np.sum((tp / np.arange(1, len(pos) + 1))[pos]) / pos.sum())


def _expected(estimate, values, q):
    v = np.asarray(values)
    n = len(v)
    se = np.sqrt((n - 1) / n * np.sum((v - v.mean()) ** 2))
    half = q * se / (estimate * (1 - estimate))
    return expit(logit(estimate) - half), expit(logit(estimate) + half)


def _run(y, s, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        opts = {"metric": "average_precision", "n_resamples": 200, "rng": 1}
        return mlci.bootstrap_ci(np.asarray(y, int), s, **{**opts, **kw})


def test_constants():
    assert (MIN_AP_LOGIT_POSITIVES, AP_LOGIT_NEAR) == (20, 0.9)
    assert (MIN_AP_LOGIT_POSITIVES_NEAR, AP_LOGIT_EDGE, MIN_AP_LOGIT_CONDITIONS) == (50, 0.96, 40)


def test_independent_samples_match_the_delete_one_jackknife():
    g = np.random.default_rng(7)
    n = 400
    y = g.random(n) < 0.1
    s = g.standard_normal(n) + 2.5 * y
    res = _run(y, s)
    assert res.method == AP_LOGIT_METHOD
    est = _ap(y, s)
    assert res.estimate == pytest.approx(est, abs=1e-12)
    values = [_ap(np.delete(y, i), np.delete(s, i)) for i in range(n)]
    ref = _expected(est, values, stats.norm.ppf(0.975))
    assert tuple(res.confidence_interval) == pytest.approx(ref, rel=1e-9)
    assert res.details["method_reason"].startswith(f"{AP_LOGIT_METHOD}: average precision of")
    # BCa stays readable from the same replicates
    assert res.interval(method="bca").method == "bca"


def test_conditions_match_the_delete_one_condition_jackknife_with_student_t():
    g = np.random.default_rng(8)
    n_cond = 45
    cond = np.repeat(np.arange(n_cond), 20)
    y = g.random(len(cond)) < 0.08
    s = g.standard_normal(len(cond)) + 2.5 * y + 0.3 * g.standard_normal(n_cond)[cond]
    res = _run(y, s, conditions=cond)
    assert res.method == AP_LOGIT_METHOD
    est = _ap(y, s)
    values = [_ap(y[cond != c], s[cond != c]) for c in range(n_cond)]
    ref = _expected(est, values, stats.t.ppf(0.975, n_cond - 1))
    assert tuple(res.confidence_interval) == pytest.approx(ref, rel=1e-9)


def test_reread_at_other_levels_and_one_sided():
    g = np.random.default_rng(9)
    y = g.random(500) < 0.12
    s = g.standard_normal(500) + 2.0 * y
    res = _run(y, s)
    lo95, hi95 = res.confidence_interval
    lo90, hi90 = res.interval(confidence_level=0.9).confidence_interval
    assert lo95 < lo90 < res.estimate < hi90 < hi95
    greater = res.interval(confidence_level=0.95, alternative="greater").confidence_interval
    assert tuple(greater) == pytest.approx((lo90, 1.0), abs=1e-12)


def test_rule_edges():
    assert ap_logit_rule(MIN_AP_LOGIT_POSITIVES, AP_LOGIT_NEAR)
    assert not ap_logit_rule(MIN_AP_LOGIT_POSITIVES - 1, 0.5)
    assert not ap_logit_rule(MIN_AP_LOGIT_POSITIVES, np.nextafter(AP_LOGIT_NEAR, 1))
    assert ap_logit_rule(MIN_AP_LOGIT_POSITIVES_NEAR, AP_LOGIT_EDGE)
    assert not ap_logit_rule(500, np.nextafter(AP_LOGIT_EDGE, 1))
    assert not ap_logit_rule(100, 0.0) and not ap_logit_rule(100, float("nan"))


def test_where_bca_stays():
    g = np.random.default_rng(10)
    y = g.random(400) < 0.1
    s = g.standard_normal(400) + 2.5 * y
    assert _run(y[:150], s[:150]).method == "bca"  # fewer than 20 positives
    assert _run(y, s + 4 * y).method == "bca"  # AP above 0.96
    assert _run(y, s, method="bca").method == "bca"
    assert _run(y, s, strata=y).method == "bca"
    assert _run(y, s, sample_weight=np.ones(400)).method == "bca"  # weighted: not measured
    cond = np.repeat(np.arange(20), 20)  # fewer than 40 conditions
    assert _run(y, s, conditions=cond).method == "bca"


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=12),
    st.lists(st.integers(1, 4), min_size=12, max_size=12),
)
def test_jackknife_standard_error_counts_multiplicities_as_repeated_values(values, mult):
    mult = mult[: len(values)]
    expanded = np.repeat(values, mult)
    assert jackknife_standard_error(values, mult) == pytest.approx(
        jackknife_standard_error(expanded), rel=1e-9, abs=1e-9
    )
