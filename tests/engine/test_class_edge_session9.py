"""Balanced accuracy's MOVER rule, session 9 (engine/class_edge.py): down to 1 sample of a
class of independent samples (seed-11 #13), and warned over conditions where a class's
rate has few effective minority outcomes (seed-11 #58).

The coverage behind both: tests/test_design_search_seed11.py and docs/validation.md,
"Design search, seed 11 (session 9)"; these tests pin the rules' doors and one interval
against a hand computation from independent references (statsmodels' Wilson bounds,
scipy's chi-square quantile for the Poisson bounds).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import mlci
from _helpers import class_errors as _data
from mlci.engine.auto import MIN_CLASS
from mlci.engine.class_edge import (
    FEW_CLASS,
    class_edge_options,
    class_rate_proportions,
    few_class_mover,
)
from mlci.engine.resampling import make_plan

sm_proportion = pytest.importorskip("statsmodels.stats.proportion")

KW = {"n_resamples": 400, "rng": 0}


def _run(y, p, **kw) -> tuple[mlci.BootstrapResult, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = mlci.bootstrap_ci(y, p, metric=kw.pop("metric", "balanced_accuracy"), **KW, **kw)
    return r, [w for w in caught if issubclass(w.category, mlci.MlciWarning)]


def _kernel(name: str, y: np.ndarray, p: np.ndarray):
    from types import SimpleNamespace

    return SimpleNamespace(name=name, k=2, m=4, shape=(), keys=2 * y + p)


def test_the_few_class_door_is_auto_min_class():
    # the percentile door of the other decision metrics and MOVER's are the same count
    assert FEW_CLASS == MIN_CLASS == 5


def test_one_positive_gets_mover_of_the_two_wilson_intervals_by_hand():
    # the seed-11 #13 test set: 1 positive (predicted right), 1 false alarm in 161
    # negatives.  Specificity 160/161: Wilson's lower bound (statsmodels proportion_confint,
    # method="wilson") and, 1 failure in n > 50, the one-sided Poisson upper bound
    # 1 - chi2_{2, 0.05} / (2 * 161); recall 1/1: 1 success (k* = 2 at n <= 50), the
    # Poisson lower bound chi2_{2, 0.05} / 2, upper 1 (Brown, Cai & DasGupta 2001, sec.
    # 4.1.1; scipy's chi2).  MOVER of their mean (Zou & Donner 2008, eq. 3; Newcombe 1998's
    # square-and-add): est -/+ sqrt(sum of squared distances to each class's bound) / 2
    y, p = _data(161, 1, 1, 0)
    r, caught = _run(y, p)
    s, rec = 160 / 161, 1.0
    s_lo, _ = sm_proportion.proportion_confint(160, 161, alpha=0.05, method="wilson")
    s_hi = 1 - stats.chi2.ppf(0.05, 2) / (2 * 161)
    r_lo, r_hi = stats.chi2.ppf(0.05, 2) / 2, 1.0
    est = (s + rec) / 2
    low = est - 0.5 * np.hypot(s - s_lo, rec - r_lo)
    high = est + 0.5 * np.hypot(s_hi - s, r_hi - rec)
    assert r.method == "mover_wilson"
    assert r.estimate == pytest.approx(est, abs=1e-14)
    assert tuple(r.confidence_interval) == pytest.approx((low, high), abs=1e-10)
    assert (round(low, 4), round(high, 4)) == (0.5223, 0.9998)  # 1 positive: wide
    assert r.details["class_counts"] == (160, 161, 1, 1)
    assert "fewer than 5 samples" in r.details["method_reason"]
    # the seed-11 design's population value (0.98086) lies inside; the percentile interval
    # of before, [0.988, 1], missed it
    assert low < 0.98086 < high
    # still warned: the class is tiny and the interval is wide
    texts = [str(w.message) for w in caught]
    assert any(t.startswith("Only 1 samples of one class") and "MOVER" in t for t in texts)
    assert any("it is wide" in t for t in texts)


@pytest.mark.parametrize(
    ("n_neg", "fp", "n_pos", "fn"),
    [
        (150, 2, 2, 1),  # 2 positives, 1 missed
        (150, 9, 4, 4),  # 4 positives all missed, 9 false alarms: beyond the 3-error door
        (3, 1, 150, 6),  # the negatives the small class
    ],
)
def test_one_to_four_of_a_class_gets_mover_whatever_the_errors(n_neg, fp, n_pos, fn):
    y, p = _data(n_neg, fp, n_pos, fn)
    assert few_class_mover(_kernel("balanced_accuracy", y, p))
    assert class_edge_options(_kernel("balanced_accuracy", y, p))["analytic_method"] == (
        "mover_wilson"
    )
    r, caught = _run(y, p)
    assert r.method == "mover_wilson"
    assert any("MOVER" in str(w.message) for w in caught)


def test_five_of_a_class_leaves_the_few_class_door():
    y, p = _data(150, 9, 5, 4)  # 4 misses and 9 false alarms: no door of class_edge applies
    assert not few_class_mover(_kernel("balanced_accuracy", y, p))
    assert class_edge_options(_kernel("balanced_accuracy", y, p)) == {}


@pytest.mark.parametrize("metric", ["f1", "mcc", "cohen_kappa"])
def test_other_decision_metrics_keep_the_percentile(metric):
    # not a mean of two classes' proportions: MOVER does not apply by their definition
    y, p = _data(150, 2, 2, 1)
    assert not few_class_mover(_kernel(metric, y, p))
    r, caught = _run(y, p, metric=metric)
    assert r.method == "percentile"
    texts = [str(w.message) for w in caught]
    assert any(t.startswith("Only 2 samples of one class") for t in texts)
    assert not any("MOVER" in t for t in texts)


def test_few_of_a_class_over_conditions_gets_mover_korn_graubard():
    # session 10 (design search seed-12 #55: 101 samples over 16 conditions, 1-4
    # positives): the percentile interval covered 0.509 of the test sets with 1-4
    # positives, MOVER of the classes' Korn & Graubard intervals 0.988
    y, p = _data(400, 6, 3, 1)
    cond = np.arange(len(y)) % 20
    plan = make_plan(len(y), conditions=cond)
    assert few_class_mover(_kernel("balanced_accuracy", y, p), plan)
    r, caught = _run(y, p, conditions=cond)
    assert r.method == "mover_korn_graubard"
    texts = [str(w.message) for w in caught]
    assert any(
        t.startswith("Only 3 samples of one class") and "Korn & Graubard" in t for t in texts
    )
    # the interval holds the estimate and is wide (3 positives)
    low, high = r.confidence_interval
    assert low < r.estimate < high and high - low > 0.2


# ------------------------------------------------------ over conditions: seed-11 #58's warning
def _conditions(n_cond: int, size: int) -> np.ndarray:
    return np.repeat(np.arange(n_cond), size)


def test_no_error_over_conditions_warns_like_recall():
    # 40 conditions of 50 samples, 5 positives in each, no error: recall and specificity
    # warn "0 effective minority outcomes"; balanced accuracy's classes now do too, with
    # the interval unchanged (MOVER of the classes' Korn & Graubard intervals)
    cond = _conditions(40, 50)
    y = (np.arange(len(cond)) % 10 == 0).astype(int)
    p = y.copy()
    texts = {}
    for metric in ("recall", "balanced_accuracy"):
        r, caught = _run(y, p, conditions=cond, metric=metric)
        assert "FewConditionsWarning" in {w.category.__name__ for w in caught}
        texts[metric] = [str(w.message) for w in caught]
    assert r.method == "mover_korn_graubard"
    assert any(
        t.startswith("The negatives' rate (specificity) of 1 over 40")
        for t in texts["balanced_accuracy"]
    )
    # the same rule and wording as the proportion's (recall's) warning
    assert any(
        "A proportion of 1 over 40 conditions with 0 effective" in t for t in texts["recall"]
    )
    assert any(
        "over 40 conditions with 0 effective minority outcomes" in t
        for t in texts["balanced_accuracy"]
    )


def test_errors_in_one_or_two_conditions_warn():
    # 2 false alarms and 1 miss, all in condition 0: rates near 1 with few effective
    # minority outcomes in each class
    cond = _conditions(40, 50)
    y = (np.arange(len(cond)) % 10 == 0).astype(int)
    p = y.copy()
    p[[1, 2]] = 1
    p[0] = 0
    r, caught = _run(y, p, conditions=cond)
    assert r.method == "mover_korn_graubard"
    assert any("rate (" in str(w.message) for w in caught)


def test_rates_away_from_the_bound_are_quiet():
    # 40 conditions of 30 samples, 1 positive in 25 of them, 3 missed (recall 0.88, not
    # within 0.1 of 1); 60 false alarms spread over the conditions (specificity 0.95 with
    # about 55 effective minority outcomes): MOVER (a class with 3 errors), no rate warning
    cond = _conditions(40, 30)
    y = np.zeros(len(cond), int)
    y[np.arange(25) * 30] = 1
    p = y.copy()
    p[[0, 30, 60]] = 0
    neg = np.flatnonzero(y == 0)
    p[neg[::19][:60]] = 1
    assert int(p[y == 0].sum()) == 60
    r, caught = _run(y, p, conditions=cond)
    assert r.method == "mover_korn_graubard"
    assert not any("rate (" in str(w.message) for w in caught)


def test_a_class_without_an_error_and_many_in_the_other_keeps_its_own_message():
    # class_edge_message's case (0 errors in the positives, more than 3 in the negatives):
    # its message alone, not the rate's as well
    diag = {
        "n_conditions": 40,
        "class_errors": (10, 0),
        "class_rates": ((0.99, 900.0), (1.0, 90.0)),
    }
    assert class_rate_proportions(diag, "balanced_accuracy") == []
    diag["class_errors"] = (2, 0)
    assert [p for _, p, _ in class_rate_proportions(diag, "balanced_accuracy")] == [0.99, 1.0]
    assert class_rate_proportions(diag, "f1") == []
