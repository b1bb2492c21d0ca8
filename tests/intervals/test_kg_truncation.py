"""Korn & Graubard's interval with the design effect truncated at 1 (session 10).

Where the conditions vary less than binomially the estimated design effect is below 1
and Korn & Graubard's effective sample size ``n_KG = p (1 - p) / se^2`` exceeds the
nominal ``n``.  mlci reads ``n* = min(n, n_KG (z / t_df)^2)``: the rule NCHS applies
(Parker et al. 2017; CDC's R package surveytable, ``svyciprop_adjusted``:
``min(nrow(design), n.eff * rat.squ)``).  The references below are scipy's beta
quantiles at those counts (Clopper & Pearson 1934), written out; the coverage study
behind the rule is scripts/kg_truncation_study.py (docs/validation.md, "Korn &
Graubard's design effect truncated at 1 (session 10)").
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import mlci
from mlci.intervals.bootstrap import edge_interval, effective_binomial_interval, wilson_interval
from mlci.intervals.mover import mover_korn_graubard_interval
from mlci.intervals.near_bound import korn_graubard_interval, nominal_size


def _cp(p: float, ne: float, level: float = 0.95) -> tuple[float, float]:
    """Clopper-Pearson at the (non-integer) counts ``p ne`` of ``ne``."""
    a = 1 - level
    return (
        float(stats.beta.ppf(a / 2, ne * p, ne * (1 - p) + 1)),
        float(stats.beta.ppf(1 - a / 2, ne * p + 1, ne * (1 - p))),
    )


def _n_kg(p: float, se: float, df: float, level: float = 0.95) -> float:
    q = 1 - (1 - level) / 2
    return p * (1 - p) / se**2 * (stats.norm.ppf(q) / stats.t.ppf(q, df)) ** 2


def _linear(p: float, n: float, deff: float, df: float) -> dict:
    """A proportion's linearization (mlci.engine.linearize) with design effect ``deff``."""
    se = float(np.sqrt(deff * p * (1 - p) / n))
    return {"standard_error": se, "df": df, "iid": False, "design_effect": deff,
            "effective_n": n / deff}  # fmt: skip


def _even_errors() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """20 conditions of 50, one error in each but 2 in the first and 0 in the second:
    accuracy 0.98, the CR2 standard error a third of the binomial one (design effect
    0.107)."""
    k_err = np.ones(20, int)
    k_err[0], k_err[1] = 2, 0
    correct = np.concatenate([np.r_[np.zeros(e), np.ones(50 - e)] for e in k_err]).astype(int)
    return np.ones(1000, int), correct, np.repeat(np.arange(20), 50)


def test_design_effect_below_one_gives_the_exact_interval_of_n():
    # p = 0.98 of n = 400 with design effect 0.5 over 30 conditions: n_KG (z/t)^2 = 749
    # > 400, so n* = 400: binomtest(392, 400)'s exact interval
    p, n = 0.98, 400.0
    lin = _linear(p, n, 0.5, 29.0)
    assert _n_kg(p, lin["standard_error"], 29.0) > n
    low, high, info = korn_graubard_interval(p, lin, confidence_level=0.95)
    ref = stats.binomtest(392, 400).proportion_ci(confidence_level=0.95, method="exact")
    assert (float(low), float(high)) == pytest.approx((ref.low, ref.high), abs=1e-12)
    assert info["design_effect_truncated"] == 1
    assert "truncated at 1" in info["truncation"]
    # untruncated (mlci before session 10, R survey's svyciprop(method = "beta")): n_KG
    lo0, hi0, info0 = korn_graubard_interval(p, lin, confidence_level=0.95, truncate=False)
    ne = _n_kg(p, lin["standard_error"], 29.0)
    assert (float(lo0), float(hi0)) == pytest.approx(_cp(p, ne), abs=1e-12)
    assert "truncation" not in info0
    assert low < lo0 and high > hi0  # wider on both sides


@pytest.mark.parametrize(
    ("deff", "df"),
    [(1.6, 29.0), (1.0, 29.0), (0.95, 4.0)],  # above 1; 1; below 1 but the df factor
)
def test_unchanged_where_the_adjusted_size_is_at_most_n(deff, df):
    # 0.95 over 5 conditions (df 4): n_KG (z/t_4)^2 = n/0.95 * 0.498 < n, nothing to cut
    p, n = 0.97, 500.0
    lin = _linear(p, n, deff, df)
    assert _n_kg(p, lin["standard_error"], df) <= n + 1e-9
    got = korn_graubard_interval(p, lin, confidence_level=0.95)
    old = korn_graubard_interval(p, lin, confidence_level=0.95, truncate=False)
    assert (float(got[0]), float(got[1])) == (float(old[0]), float(old[1]))
    assert "truncation" not in got[2]
    assert (float(got[0]), float(got[1])) == pytest.approx(
        _cp(p, _n_kg(p, lin["standard_error"], df)), abs=1e-12
    )


def test_independent_samples_are_not_truncated():
    # iid: no df factor and n_KG = n from the binomial standard error; nothing to truncate
    p, n = 0.99, 300.0
    lin = {"standard_error": np.sqrt(p * (1 - p) / n), "df": 299.0, "iid": True,
           "design_effect": 1.0, "effective_n": n}  # fmt: skip
    low, high, info = korn_graubard_interval(p, lin, confidence_level=0.95)
    assert (float(low), float(high)) == pytest.approx(_cp(p, n), abs=1e-12)
    assert "truncation" not in info


@pytest.mark.parametrize("method", ["korn_graubard", "auto"])
def test_every_door_of_a_proportion_truncates(method):
    # named, and auto's rule for a proportion over conditions near 1: the exact interval
    # of the 1000 answers, binomtest(980, 1000)
    y, correct, cond = _even_errors()
    res = mlci.bootstrap_ci(y, correct, metric="accuracy", conditions=cond, method=method,
                            rng=0, n_resamples=200)  # fmt: skip
    lin = res.details["linearized"]
    assert res.method == "korn_graubard"
    assert lin["design_effect"] == pytest.approx(0.1074, abs=1e-4)
    ref = stats.binomtest(980, 1000).proportion_ci(confidence_level=0.95, method="exact")
    assert tuple(res.confidence_interval) == pytest.approx((ref.low, ref.high), abs=1e-12)
    assert "truncated at 1" in res.details["truncation"]
    # another level from the same result: the same rule
    r90 = res.interval(confidence_level=0.9)
    ref90 = stats.binomtest(980, 1000).proportion_ci(confidence_level=0.9, method="exact")
    assert tuple(r90.confidence_interval) == pytest.approx((ref90.low, ref90.high), abs=1e-12)


def test_studentized_near_edge_fallback_of_a_proportion_truncates():
    # the studentized interval's analytic fallback reads the same linearization
    p, n = 0.98, 400.0
    lin = _linear(p, n, 0.5, 29.0)
    low, high = edge_interval("korn_graubard", p, lin["standard_error"], 29.0, False,
                              confidence_level=0.95, bounds=(0.0, 1.0), linear=lin)  # fmt: skip
    ref = stats.binomtest(392, 400).proportion_ci(confidence_level=0.95, method="exact")
    assert (float(low), float(high)) == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_mover_caps_each_class_at_its_size():
    # balanced accuracy over conditions: each class's rate at most its size; the recall
    # (design effect 0.5) gets binomtest(98, 100)'s interval, the specificity (1.4) its own
    rates = (
        {"estimate": 0.9, **_linear(0.9, 600.0, 1.4, 20.0), "nominal_n": 600.0},
        {"estimate": 0.98, **_linear(0.98, 100.0, 0.5, 15.0), "nominal_n": 100.0},
    )
    low, high, _ = mover_korn_graubard_interval(
        rates, effective_binomial_interval, wilson_interval, confidence_level=0.95
    )
    s_lo, s_hi = _cp(0.9, _n_kg(0.9, rates[0]["standard_error"], 20.0))
    r = stats.binomtest(98, 100).proportion_ci(confidence_level=0.95, method="exact")
    est = np.array([0.9, 0.98])
    lo, hi = np.array([s_lo, r.low]), np.array([s_hi, r.high])
    ref = (est.mean() - np.sqrt(np.sum((est - lo) ** 2)) / 2,
           est.mean() + np.sqrt(np.sum((hi - est) ** 2)) / 2)  # fmt: skip
    assert (float(low), float(high)) == pytest.approx(ref, abs=1e-12)


def test_balanced_accuracy_door_passes_the_class_sizes():
    from types import SimpleNamespace

    from mlci.engine.clustered_edge import clustered_class_rates
    from mlci.engine.resampling import make_plan

    y = np.repeat([0, 1], [60, 40])
    a = y.copy()
    a[:6] = 1
    a[60] = 0
    plan = make_plan(100, conditions=np.repeat(np.arange(10), 10))
    neg, pos = clustered_class_rates(SimpleNamespace(keys=2 * y + a), plan)
    assert (neg["nominal_n"], pos["nominal_n"]) == pytest.approx((60.0, 40.0), rel=1e-12)


def test_nominal_size_of_other_metrics_from_the_independent_standard_error():
    # no proportion: u (1 - u) / se_iid^2 on the range; neither known: None
    lin = {"standard_error_iid": 0.02}
    assert float(nominal_size(np.asarray(0.6), lin, (-1.0, 1.0))) == pytest.approx(
        0.8 * 0.2 / 0.01**2
    )
    assert nominal_size(np.asarray(0.6), {"effective_n": 50.0}, (0.0, 1.0)) is None


@settings(max_examples=60, deadline=None)
@given(
    p=st.floats(0.005, 0.995),
    n=st.integers(20, 5000),
    deff=st.floats(0.05, 4.0),
    df=st.floats(1.0, 200.0),
    level=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_truncation_only_widens(p, n, deff, df, level):
    # n* = min(n, n_KG): Clopper-Pearson at a smaller size holds the one at the larger
    lin = _linear(p, float(n), deff, df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        new = korn_graubard_interval(p, lin, confidence_level=level)
        old = korn_graubard_interval(p, lin, confidence_level=level, truncate=False)
    assert float(new[0]) <= float(old[0]) + 1e-12
    assert float(new[1]) >= float(old[1]) - 1e-12
    if "truncation" not in new[2]:
        assert (float(new[0]), float(new[1])) == (float(old[0]), float(old[1]))
