"""A proportion over fewer than 8 conditions near its bound, and Wilson over conditions
with the design effect truncated at 1 (session 11, kgfew).

Below 8 conditions ``auto`` gave the logit t interval of a proportion within 0.1 of 0 or
1, and ``method="korn_graubard"`` Korn & Graubard's; at ICC 0.05 over 5 conditions each
missed where the other covered (scripts/kg_few_conditions_study.py; docs/validation.md,
"Proportions over few conditions at ICC 0.05 under auto").  Both now give Korn &
Graubard's interval widened to hold the logit t interval (their union).  The references
are written out: Clopper & Pearson's beta quantiles (scipy) at Korn & Graubard's
effective size from the engine's CR2 standard error, the logit t interval
``expit(logit p -/+ t_df se / (p (1 - p)))``, and statsmodels' Wilson interval.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit, logit

import mlci
from mlci.engine.clustered_edge import FEW_CONDITIONS_REASON, KORN_GRAUBARD_REASON
from mlci.exceptions import FewConditionsWarning
from mlci.intervals.near_bound import UNION_BELOW_CONDITIONS, wilson_size


def _five_conditions() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """1,000 answers over 5 conditions of 200, 15 wrong: 5, 1, 3, 6, 0 (accuracy 0.985,
    design effect 2.2, 6.8 effective minority outcomes)."""
    wrong = [5, 1, 3, 6, 0]
    correct = np.concatenate([np.r_[np.zeros(w), np.ones(200 - w)] for w in wrong]).astype(int)
    return np.ones(1000, int), correct, np.repeat(np.arange(5), 200)


def _kg(p: float, se: float, df: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Korn & Graubard's interval, written out: Clopper-Pearson at n* = min(n, p (1 - p) /
    se^2 (z / t_df)^2)."""
    q = 1 - (1 - level) / 2
    ne = min(n, p * (1 - p) / se**2 * (stats.norm.ppf(q) / stats.t.ppf(q, df)) ** 2)
    a = 1 - level
    return (
        float(stats.beta.ppf(a / 2, ne * p, ne * (1 - p) + 1)),
        float(stats.beta.ppf(1 - a / 2, ne * p + 1, ne * (1 - p))),
    )


def _logit_t(p: float, se: float, df: float, level: float = 0.95) -> tuple[float, float]:
    half = stats.t.ppf(1 - (1 - level) / 2, df) * se / (p * (1 - p))
    return float(expit(logit(p) - half)), float(expit(logit(p) + half))


@pytest.mark.parametrize("method", ["auto", "korn_graubard"])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_fewer_than_8_conditions_give_the_union(method, level):
    y, correct, cond = _five_conditions()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FewConditionsWarning)
        res = mlci.bootstrap_ci(y, correct, metric="accuracy", conditions=cond, method=method,
                                confidence_level=level, rng=0, n_resamples=200)  # fmt: skip
    lin = res.details["linearized"]
    se, df = lin["standard_error"], lin["df"]
    assert res.method == "korn_graubard"
    assert lin["n_units"] == 5 < UNION_BELOW_CONDITIONS
    kg, lt = _kg(0.985, se, df, 1000.0, level), _logit_t(0.985, se, df, level)
    # 6.8 effective minority outcomes: the few-minority widening alone would not apply
    assert 0.015 * lin["effective_n"] > 4
    if level == 0.95:  # the union is neither alone: the logit t's lower bound, KG's upper
        assert lt[0] < kg[0] and kg[1] > lt[1]
    ref = (min(kg[0], lt[0]), max(kg[1], lt[1]))
    assert tuple(res.confidence_interval) == pytest.approx(ref, abs=1e-10)
    assert "fewer than 8 conditions" in res.details["widened"]
    if method == "auto":
        assert res.details["method_reason"] == FEW_CONDITIONS_REASON


def test_before_session_11_auto_gave_the_logit_t():
    # regression: the logit t interval alone is what auto gave; the union holds it
    y, correct, cond = _five_conditions()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FewConditionsWarning)
        auto = mlci.bootstrap_ci(y, correct, metric="accuracy", conditions=cond, rng=0,
                                 n_resamples=200)  # fmt: skip
        lt = mlci.bootstrap_ci(y, correct, metric="accuracy", conditions=cond, rng=0,
                               n_resamples=200, method="logit_t")  # fmt: skip
    a, b = tuple(auto.confidence_interval), tuple(lt.confidence_interval)
    assert a[0] <= b[0] and a[1] > b[1]  # widened above: Korn & Graubard's upper bound


def test_the_few_conditions_warning_still_fires_and_eight_are_unchanged():
    y, correct, cond = _five_conditions()
    with pytest.warns(FewConditionsWarning, match="Only 5 conditions are resampled"):
        mlci.bootstrap_ci(y, correct, metric="accuracy", conditions=cond, rng=0,
                          n_resamples=200)  # fmt: skip
    # 8 conditions of 125 with the same 15 errors spread 5, 1, 3, 6, 0, 0, 0, 0: the rule
    # of 8 or more (Korn & Graubard's interval, widened only for few minority outcomes)
    wrong = [5, 1, 3, 6, 0, 0, 0, 0]
    correct8 = np.concatenate([np.r_[np.zeros(w), np.ones(125 - w)] for w in wrong]).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mlci.bootstrap_ci(np.ones(1000, int), correct8, metric="accuracy",
                                conditions=np.repeat(np.arange(8), 125), rng=0,
                                n_resamples=200)  # fmt: skip
    assert res.details["method_reason"] == KORN_GRAUBARD_REASON
    lin = res.details["linearized"]
    ne = 0.015 * lin["effective_n"]
    assert (ne >= 4) == ("widened" not in res.details)


def test_a_proportion_over_30_conditions_away_from_the_bound_is_silent():
    g = np.random.default_rng(4)
    cond = np.repeat(np.arange(30), 20)
    correct = (g.random(600) < 0.8).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewConditionsWarning)
        res = mlci.bootstrap_ci(np.ones(600, int), correct, metric="accuracy",
                                conditions=cond, rng=0, n_resamples=200)  # fmt: skip
    assert res.method == "logit_t"


def _even_errors() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """20 conditions of 50, one error in each but 2 in the first and 0 in the second:
    accuracy 0.98, design effect 0.107 (tests/intervals/test_kg_truncation.py)."""
    k_err = np.ones(20, int)
    k_err[0], k_err[1] = 2, 0
    correct = np.concatenate([np.r_[np.zeros(e), np.ones(50 - e)] for e in k_err]).astype(int)
    return np.ones(1000, int), correct, np.repeat(np.arange(20), 50)


@pytest.mark.parametrize("level", [0.9, 0.95])
def test_wilson_over_conditions_truncates_below_design_effect_1(level):
    from statsmodels.stats.proportion import proportion_confint

    y, correct, cond = _even_errors()
    res = mlci.bootstrap_ci(y, correct, metric="accuracy", conditions=cond, method="wilson",
                            confidence_level=level, rng=0, n_resamples=200)  # fmt: skip
    assert res.details["linearized"]["design_effect"] == pytest.approx(0.1074, abs=1e-4)
    # statsmodels' Wilson interval of 980 of 1000: the samples as independent
    ref = proportion_confint(980, 1000, alpha=1 - level, method="wilson")
    assert tuple(res.confidence_interval) == pytest.approx(ref, abs=1e-12)
    assert "truncated at 1" in res.details["truncation"]


def test_wilson_over_conditions_unchanged_above_design_effect_1():
    # the design effect above 1: Wilson on n_eff (z / t_df)^2, as before session 11
    y, correct, cond = _five_conditions()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FewConditionsWarning)
        res = mlci.bootstrap_ci(y, correct, metric="accuracy", conditions=cond,
                                method="wilson", rng=0, n_resamples=200)  # fmt: skip
    lin = res.details["linearized"]
    assert lin["design_effect"] > 1
    z, t = stats.norm.ppf(0.975), stats.t.ppf(0.975, lin["df"])
    n = lin["effective_n"] * (z / t) ** 2
    p = 0.985
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert tuple(res.confidence_interval) == pytest.approx((center - half, center + half),
                                                           abs=1e-12)  # fmt: skip
    assert "truncation" not in res.details


def test_wilson_size_only_widens():
    # n* at most the untruncated one, for any design effect and df
    for deff in (0.05, 0.3, 0.9, 1.0, 2.5):
        for df in (1.0, 4.0, 29.0):
            lin = {"effective_n": 500.0 / deff, "design_effect": deff, "df": df, "iid": False}
            n, d, _ = wilson_size(lin, confidence_level=0.95)
            z, t = stats.norm.ppf(0.975), stats.t.ppf(0.975, df)
            adjusted = n * (z / t) ** 2 if d is not None else n
            assert adjusted <= 500.0 / deff * (z / t) ** 2 + 1e-9


@pytest.mark.slow
def test_union_covers_as_often_as_either_over_5_conditions():
    # scripts/kg_few_conditions_study.py's cell: 5 equal conditions of 400, ICC 0.05,
    # accuracy 0.98 (its 400 test sets: logit t 0.932, Korn & Graubard 0.938, union
    # 0.940); here 400 * MLCI_SLOW_SCALE test sets (40 at CI scale): auto is the union on
    # every one, so it covers whenever either covers
    reps = max(int(400 * float(os.environ.get("MLCI_SLOW_SCALE", "1"))), 20)
    g = np.random.default_rng(2026)
    s = 1 / 0.05 - 1
    cond = np.repeat(np.arange(5), 400)
    hits = {"auto": 0, "korn_graubard": 0, "logit_t": 0}
    for r in range(reps):
        pc = g.beta(0.98 * s, 0.02 * s, 5)
        correct = (g.random(2000) < pc[cond]).astype(int)
        out = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for m in hits:
                res = mlci.bootstrap_ci(
                    np.ones(2000, int), correct, metric="accuracy", conditions=cond, method=m,
                    rng=r, n_resamples=50,
                )  # fmt: skip
                out[m] = tuple(res.confidence_interval)
        est = correct.mean()
        if 0 < min(est, 1 - est) < 0.1 and len(set(correct.reshape(5, -1).mean(1))) > 1:
            union = (min(out["korn_graubard"][0], out["logit_t"][0]),
                     max(out["korn_graubard"][1], out["logit_t"][1]))  # fmt: skip
            assert out["auto"] == pytest.approx(union, abs=1e-12)
        for m in hits:
            hits[m] += out[m][0] <= 0.98 <= out[m][1]
    assert hits["auto"] >= max(hits["korn_graubard"], hits["logit_t"])
