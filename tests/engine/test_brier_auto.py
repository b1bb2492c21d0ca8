"""``method="auto"`` of the Brier score over few conditions: the logit t interval
(:mod:`mlci.metrics.brier_auto`; docs/validation.md, "Few errors over conditions: the EER
at a high ICC, and the Brier score")."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit, logit

import mlci
from mlci.metrics.brier_auto import (
    BRIER_CONDITIONS_REASON,
    BRIER_LOGIT_T_CONDITIONS,
    brier_auto_method,
)


def _data(n_cond, seed=0, n=300):
    g = np.random.default_rng(seed)
    cond = g.integers(0, n_cond, n)
    p = expit(3.0 * g.normal(size=n))  # a confident system
    y = (g.random(n) < expit(logit(p) + 0.8 * g.normal(size=n_cond)[cond])).astype(int)
    return y, p, cond


def test_rule_by_plan():
    def plan(**kw):
        base = {"unit_of_sample": np.arange(3), "n_conditions": 12, "scheme": "conditions"}
        return SimpleNamespace(**{**base, **kw})

    assert brier_auto_method(plan()) == ("logit_t", BRIER_CONDITIONS_REASON)
    assert brier_auto_method(plan(n_conditions=BRIER_LOGIT_T_CONDITIONS - 1))[0] == "logit_t"
    assert brier_auto_method(plan(n_conditions=BRIER_LOGIT_T_CONDITIONS)) is None
    assert brier_auto_method(plan(unit_of_sample=None)) is None  # independent samples
    assert brier_auto_method(plan(stratum_of_sample=np.zeros(3))) is None
    assert brier_auto_method(plan(two_stage=True)) is None
    assert brier_auto_method(plan(poisson=True)) is None
    assert brier_auto_method(plan(scheme="nested conditions")) is None
    assert brier_auto_method(plan(n_conditions=None)) is None


def test_auto_over_few_conditions_is_the_logit_t_interval():
    y, p, cond = _data(12)
    res = mlci.bootstrap_ci(y, p, metric="brier", conditions=cond, rng=0, n_resamples=300)
    assert res.method == "logit_t"
    assert res.details["method_reason"] == BRIER_CONDITIONS_REASON
    named = mlci.bootstrap_ci(y, p, metric="brier", conditions=cond, rng=0, n_resamples=300,
                              method="logit_t")  # fmt: skip
    assert tuple(res.confidence_interval) == tuple(named.confidence_interval)
    # reference: scikit-learn's Brier score; the CR2 standard error of a mean over
    # conditions, sqrt(sum_c (sum_i e_i)^2 / (1 - n_c / N)) / N (intercept-only CR2,
    # Bell & McCaffrey 2002); Student's t on the logit scale with the result's degrees of
    # freedom (Imbens & Kolesar), by scipy
    from sklearn.metrics import brier_score_loss

    est = brier_score_loss(y, p)
    assert res.estimate == pytest.approx(est, rel=1e-12)
    loss = (y - p) ** 2
    sums = np.bincount(cond, weights=loss - loss.mean())
    size = np.bincount(cond)
    se = np.sqrt(np.sum(sums**2 / (1 - size / len(y)))) / len(y)
    lin = res.details["linearized"]
    assert lin["standard_error"] == pytest.approx(se, rel=1e-6)
    q = stats.t.ppf(0.975, res.details["df"])
    half = q * se / (est * (1 - est))
    lo, hi = expit(logit(est) - half), expit(logit(est) + half)
    assert tuple(res.confidence_interval) == pytest.approx((lo, hi), rel=1e-6)
    # re-read at 90%: the same pivot
    r90 = res.interval(confidence_level=0.9)
    half90 = stats.t.ppf(0.95, res.details["df"]) * se / (est * (1 - est))
    assert r90.confidence_interval[1] == pytest.approx(expit(logit(est) + half90), rel=1e-6)


def test_auto_elsewhere_unchanged():
    # 30 conditions, independent samples, strata, a named method: the engine's rules
    y, p, cond = _data(30)
    res = mlci.bootstrap_ci(y, p, metric="brier", conditions=cond, rng=0, n_resamples=300)
    stud = mlci.bootstrap_ci(y, p, metric="brier", conditions=cond, rng=0, n_resamples=300,
                             method="studentized")  # fmt: skip
    assert res.method == "studentized"
    assert tuple(res.confidence_interval) == tuple(stud.confidence_interval)
    iid = mlci.bootstrap_ci(y, p, metric="brier", rng=0, n_resamples=300)
    assert iid.method == "studentized"
    y, p, cond = _data(12)
    strata = np.arange(len(y)) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        st = mlci.bootstrap_ci(y, p, metric="brier", conditions=cond, strata=strata, rng=0,
                               n_resamples=300)  # fmt: skip
    assert st.method != "logit_t"
    with pytest.warns(mlci.FewConditionsWarning, match="12 conditions"):
        bca = mlci.bootstrap_ci(y, p, metric="brier", conditions=cond, rng=0, n_resamples=300,
                                method="bca")  # fmt: skip
    assert bca.method == "bca"


def test_multiclass_brier_keeps_the_engine_rule():
    g = np.random.default_rng(2)
    n = 240
    cond = g.integers(0, 10, n)
    prob = g.dirichlet([1, 1, 1], n)
    y = np.array([g.choice(3, p=row) for row in prob])
    res = mlci.bootstrap_ci(y, prob, metric="brier", conditions=cond, rng=0, n_resamples=200)
    assert res.method == "studentized"


def test_compare_gives_each_system_the_same_interval():
    y, p, cond = _data(12)
    q = expit(logit(p) * 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.FewConditionsWarning)
        cmp = mlci.compare(y, {"a": p, "b": q}, metric="brier", conditions=cond, rng=0,
                           n_resamples=300)  # fmt: skip
    one = mlci.bootstrap_ci(y, p, metric="brier", conditions=cond, rng=0, n_resamples=300)
    sys_a = cmp.systems["a"]
    assert sys_a.method == "logit_t"
    assert tuple(sys_a.confidence_interval) == pytest.approx(
        tuple(one.confidence_interval), rel=1e-9
    )
