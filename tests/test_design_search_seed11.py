"""What the design search's seed 11 found (session 9), as strict xfails naming each defect.

The three searches (``scripts/design_search.py``, ``design_search_scores.py``,
``design_search_fields.py``) ran with seed 11 on session 9's main; the watch list of
seed 10 was re-run on 400-2,000 fresh test sets (draw seed 12).  Each confirmed defect
that is new (not a class already known or being fixed this round) is stated here on one
fixed-seed test set of its design, as a property that fails on main (a warning that does
not fire, an interval that misses where another holds), cheap at CI scale (one
interval each, B = 200).  A companion test pins what makes the comparison fair (the
sibling metric or interval on the same test set does warn, or does cover).  When a fix
lands, its xfail flips (strict) and the marker goes.  Numbers, designs and verdicts:
docs/validation.md, "Design search, seed 11 (session 9)"; results in
``scripts/data/design_search*_seed11.json``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from _scripts import SEARCH_KW as KW
from _scripts import load_script, search_set, warned

pytestmark = [pytest.mark.slow, pytest.mark.search]

ds = load_script("design_search.py")
dss = load_script("design_search_scores.py")
dsf = load_script("design_search_fields.py")
mlci = ds.mlci


# ------------------------------------------------- balanced accuracy: errors in few conditions
def _s11_58() -> tuple:
    d, _, x = search_set(ds, 11, 58, 5)
    assert d.metric == "balanced_accuracy" and d.n_conditions == 40 and round(d.icc, 2) == 0.42
    y, a = x["y"], x["a"]
    assert np.all(y == a)  # no error in either class (the design: about 9 expected, ICC 0.42)
    return y, a, x["conditions"]


def test_accuracy_without_errors_over_conditions_warns() -> None:
    # the comparison the xfail below rests on: accuracy, recall and specificity of the same
    # 2,861 samples (40 conditions, no error) warn "0 effective minority outcomes"
    y, a, c = _s11_58()
    for metric in ("accuracy", "recall", "specificity"):
        assert "FewConditionsWarning" in warned(
            lambda m=metric: mlci.bootstrap_ci(y, a, metric=m, conditions=c, **KW)
        )


# found (seed-11 #58): balanced accuracy over 40 conditions (ICC 0.42, 2,861 samples, 0.6%
# errors that fall in 1-3 conditions) got MOVER of the classes' Korn & Graubard intervals
# without a warning where a class or both have 0-3 errors: auto 0.767 of 300 test sets (BCa
# 0.723, percentile 0.687), warned in 83; here no error, [0.99694, 1].  Warned since session
# 9 by recall's and specificity's rule applied to each class's rate (few effective minority
# outcomes near the bound; engine/class_edge.py, class_rate_proportions).
def test_balanced_accuracy_with_few_errors_over_conditions_warns() -> None:
    y, a, c = _s11_58()
    assert warned(lambda: mlci.bootstrap_ci(y, a, metric="balanced_accuracy", conditions=c, **KW))


# ------------------------------------------------------- one dominant condition (Kish 1.9)
# (seed-11 #31: MCC over 12 conditions of log-normal sizes, one holding 823 of 1,132
# samples, Kish's effective number 1.86, ICC 0.26: auto 0.847 of 300 test sets, BCa
# 0.823, percentile 0.883; fixed: the few-conditions warning reads Kish's number too,
# engine/effective_conditions.py)
def test_mcc_over_one_dominant_condition_warns() -> None:
    d, _, x = search_set(ds, 11, 31)
    assert d.metric == "mcc" and d.n_conditions == 12
    sizes = np.bincount(x["conditions"])
    assert sizes.sum() ** 2 / (sizes**2).sum() < 2  # Kish's effective number of conditions
    assert warned(
        lambda: mlci.bootstrap_ci(x["y"], x["a"], metric="mcc", conditions=x["conditions"], **KW)
    )


# ------------------------------------------- average precision over conditions at a high ICC
def _s11_23() -> dict:
    d, _, x = search_set(ds, 11, 23)
    assert d.metric == "average_precision" and d.n_conditions == 42 and d.icc > 0.49
    return x


def test_roc_auc_of_the_same_ranking_warns() -> None:
    # the comparison the xfail below rests on: the AUC of the same scores (58 positives
    # over 42 conditions of unequal size, ICC 0.50) warns of its positives' few effective
    # conditions
    x = _s11_23()
    assert "FewConditionsWarning" in warned(
        lambda: mlci.bootstrap_ci(
            x["y"], x["a"], metric="roc_auc", conditions=x["conditions"], **KW
        )
    )


def test_average_precision_over_clustered_positives_warns() -> None:
    x = _s11_23()
    assert warned(
        lambda: mlci.bootstrap_ci(
            x["y"], x["a"], metric="average_precision", conditions=x["conditions"], **KW
        )
    )


# --------------------------------------------- balanced accuracy with 1-4 positives, iid
def _s11_13() -> tuple:
    d, pop, x = search_set(ds, 11, 13)
    y, a = x["y"], x["a"]
    assert d.metric == "balanced_accuracy" and not d.n_conditions
    # 1 positive (predicted right), 1 false alarm among 161 negatives
    assert int(y.sum()) == 1 and int((a[y == 1] == 0).sum()) == 0 and int(a[y == 0].sum()) == 1
    return pop.truth, y, a


def test_mover_wilson_covers_balanced_accuracy_with_one_positive() -> None:
    # the comparison the xfail below rests on: MOVER of the classes' modified Wilson
    # intervals (auto's interval from 5 positives on) covers the population value 0.98086
    from mlci.intervals.bootstrap import wilson_interval
    from mlci.intervals.mover import mover_wilson_interval

    truth, y, a = _s11_13()
    tn, n_neg = int(((y == 0) & (a == 0)).sum()), int((y == 0).sum())
    tp, n_pos = int(((y == 1) & (a == 1)).sum()), int((y == 1).sum())
    counts = (tn, n_neg, tp, n_pos)
    lo, hi, _ = mover_wilson_interval(counts, wilson_interval, confidence_level=0.95)
    assert float(lo) <= truth <= float(hi)


# found (seed-11 #13): balanced accuracy of 162 independent samples with about 3 positives
# (1-6 per test set): below 5 of a class auto took the percentile interval with a warning
# (0.565 of 299 test sets; BCa 0.676) where MOVER of the classes' modified Wilson intervals
# covers 0.983 (at 13 times BCa's width, the honest width of 1-4 positives); here 1 positive
# and 1 false alarm: the percentile [0.988, 1] (B = 200) missed 0.98086.  Since session 9
# auto gives that MOVER with 1-4 of a class too (engine/class_edge.py, few_class_mover).
def test_balanced_accuracy_with_one_positive_covers() -> None:
    truth, y, a = _s11_13()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Only 1 samples of one class"
        r = mlci.bootstrap_ci(y, a, metric="balanced_accuracy", **KW)
    lo, hi = r.confidence_interval
    assert lo <= truth <= hi


# ------------------------------------------------- watch list of seed 10, resolved: defects
def test_simultaneous_band_with_few_positives_warns() -> None:
    d, pop, x = search_set(dss, 10, 129, 0)
    assert d.family == "band" and d.metric == "simultaneous" and int(x["y"].sum()) == 91
    sc = dss._scores(d, pop, x)
    assert warned(lambda: mlci.roc_band(sc, pop.grid, simultaneous=True, **KW))


# found (seed-10 #28, #78, seed-11 #12; the watch list resolved): a global-level correlation
# over 8-9 systems resampled with the items is biased toward 0 (the system effect's spread
# over S systems has expectation (S - 1) / S of the population's, and the coefficient is a
# ratio of it): Kendall 0.723 of 9 systems x 114 items, the mean estimate 0.689 (0.60
# standard errors low; Spearman #78: 0.36), every method covers 0.74-0.85 (auto 0.743 and
# 0.850 of 400 fresh test sets; s11 #12, 8 systems: 0.810 of 300).  Warned since session 9:
# resampling both below 20 systems gives a FewConditionsWarning (fields/correlations.py;
# docs/correlations.md), no method being known to hold there.
def test_global_correlation_over_few_systems_warns() -> None:
    d = dsf.random_design(28, 10)
    x = dsf.Population(d).draw(np.random.default_rng(0))
    assert d.p["level"] == "global" and d.n == 9
    assert warned(
        lambda: mlci.correlation_ci(
            x["x"],
            x["z"],
            coefficient=d.metric,
            correlation_level="global",
            resample="both",
            **KW,
        )
    )


# ------------------------------------------------- trial_bootstrap_ci's AUC near its bound
def _s11sc_40() -> tuple:
    d, pop, x = search_set(dss, 11, 40, 0)
    assert d.family == "trial" and d.metric == "roc_auc" and pop.speakers == 47 and pop.m == 2
    assert int(x["y"].sum()) == 47  # one target trial per speaker, 4,324 non-targets
    return x


def test_auc_ci_of_the_same_trials_warns() -> None:
    # the comparison the xfail below rests on: auc_ci of the same 4,371 trial scores
    # (47 targets, AUC 0.9985) switches to the AUC's score interval and says so
    x = _s11sc_40()
    assert "FewConditionsWarning" in warned(
        lambda: mlci.auc_ci(mlci.Scores.from_labels(x["y"], x["s"]), **KW)
    )


def test_trial_auc_near_its_bound_warns() -> None:
    x = _s11sc_40()
    assert warned(
        lambda: mlci.trial_bootstrap_ci(
            x["y"],
            x["s"],
            enroll_ids=x["enroll"],
            test_ids=x["test"],
            speaker_of=x["speaker_of"],
            metric="roc_auc",
            **KW,
        )
    )
