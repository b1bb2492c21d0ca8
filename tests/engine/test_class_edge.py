"""A class's own few errors (engine/class_edge.py) and one dominant condition
(engine/dominant_condition.py): the seed-9 design search's #80 and #149.

The coverage behind both rules is in docs/validation.md, "A class's own few errors, and
one dominant condition (seed-9 #80, #149)" (scripts/class_edge_sweep.py); these tests pin
the rules' doors and the intervals against independent references.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import mlci
from _helpers import class_errors as _data
from mlci.engine.class_edge import MAX_CLASS_ERRORS, class_edge_options
from mlci.engine.dominant_condition import MIN_IK_DF, bounded_df
from mlci.engine.linearize import icc_anova, random_effects_df

sm_proportion = pytest.importorskip("statsmodels.stats.proportion")


def test_mover_wilson_against_statsmodels_and_the_poisson_bound():
    # 10 false alarms in 900 negatives, 2 misses in 100 positives (the seed-9 #80
    # neighbour): specificity 890/900 gets Wilson's interval (statsmodels
    # proportion_confint, method="wilson"); recall 98/100 Wilson's lower bound and, with 2
    # failures (1-3 above n = 50), the one-sided Poisson upper bound
    # 1 - chi2_{4, 0.05} / 200 (Brown, Cai & DasGupta 2001, sec. 4.1.1; scipy's chi2)
    y, p = _data(900, 10, 100, 2)
    r = mlci.bootstrap_ci(y, p, metric="balanced_accuracy", rng=0, n_resamples=400)
    s_lo, s_hi = sm_proportion.proportion_confint(890, 900, alpha=0.05, method="wilson")
    r_lo, _ = sm_proportion.proportion_confint(98, 100, alpha=0.05, method="wilson")
    r_hi = 1 - stats.chi2.ppf(0.05, 4) / 200
    s, rec = 890 / 900, 0.98
    est = (s + rec) / 2
    low = est - 0.5 * np.hypot(s - s_lo, rec - r_lo)  # MOVER: Zou & Donner 2008, eq. 3
    high = est + 0.5 * np.hypot(s_hi - s, r_hi - rec)
    assert r.estimate == pytest.approx(est, abs=1e-14)
    assert tuple(r.confidence_interval) == pytest.approx((low, high), abs=1e-10)
    assert (round(low, 3), round(high, 3)) == (0.959, 0.993)
    assert r.details["edge_fallback_method"] == "mover_wilson"
    assert r.details["class_counts"] == (890, 900, 98, 100)
    assert "mover_wilson: a class with at most 3 errors" in r.details["method_reason"]
    # BCa on the same data, for scale: the studentized lower end was 0.90 (seed-9 #80's
    # failure), BCa's 0.958
    bca = mlci.bootstrap_ci(y, p, metric="balanced_accuracy", rng=0, method="bca")
    assert abs(bca.confidence_interval[0] - low) < 0.01


def test_a_class_without_an_error_still_gets_its_wilson_width():
    # no miss in 100 positives: the recall's standard error is 0, its Wilson interval
    # [0.963, 1] (statsmodels) still counts in the lower bound
    y, p = _data(900, 10, 100, 0)
    r = mlci.bootstrap_ci(y, p, metric="balanced_accuracy", rng=0, n_resamples=400)
    s_lo, _ = sm_proportion.proportion_confint(890, 900, alpha=0.05, method="wilson")
    r_lo, _ = sm_proportion.proportion_confint(100, 100, alpha=0.05, method="wilson")
    est = (890 / 900 + 1) / 2
    assert r.confidence_interval[0] == pytest.approx(
        est - 0.5 * np.hypot(890 / 900 - s_lo, 1 - r_lo), abs=1e-10
    )
    assert r.confidence_interval[0] < est - 0.015  # BCa's is est - 0.006 here


def test_levels_nest_and_one_sided_ends_at_the_bound():
    y, p = _data(900, 10, 100, 1)
    r = mlci.bootstrap_ci(y, p, metric="balanced_accuracy", rng=0, n_resamples=400)
    wide = r.interval(confidence_level=0.99)
    assert wide.confidence_interval[0] < r.confidence_interval[0]
    assert wide.confidence_interval[1] > r.confidence_interval[1]
    assert wide.details["edge_fallback_method"] == "mover_wilson"
    greater = mlci.bootstrap_ci(
        y, p, metric="balanced_accuracy", rng=0, n_resamples=400, alternative="greater"
    )
    assert greater.confidence_interval[1] == 1.0
    assert r.confidence_interval[0] < greater.confidence_interval[0] < r.estimate


@pytest.mark.parametrize(
    ("fp", "fn", "applies"),
    [(10, 3, True), (3, 10, True), (10, 4, False), (0, 2, True), (20, 0, True), (5, 4, False)],
)
def test_the_rule_reads_each_class_own_errors(fp: int, fn: int, applies: bool):
    y, p = _data(900, fp, 100, fn)
    r = mlci.bootstrap_ci(y, p, metric="balanced_accuracy", rng=0, n_resamples=400)
    assert ("class_counts" in r.details) is applies
    assert (r.details.get("edge_fallback_method") == "mover_wilson") is applies
    assert MAX_CLASS_ERRORS == 3


def test_other_metrics_and_weighted_kernels_keep_their_interval():
    # F1 and MCC held in the sweep (0.95-0.99): no class-edge rule; a survey weight
    # (plain sample_weight) has no class counts to read
    y, p = _data(900, 10, 100, 2)
    for metric in ("f1", "mcc", "cohen_kappa"):
        r = mlci.bootstrap_ci(y, p, metric=metric, rng=0, n_resamples=400)
        assert "class_counts" not in r.details
    w = np.linspace(0.5, 1.5, len(y))
    r = mlci.bootstrap_ci(y, p, metric="balanced_accuracy", rng=0, sample_weight=w)
    assert "class_counts" not in r.details


def test_class_edge_options_needs_both_classes():
    from types import SimpleNamespace

    keys = np.repeat([0, 1], [90, 10])  # no positive at all
    k = SimpleNamespace(name="balanced_accuracy", k=2, m=4, shape=(), keys=keys)
    assert class_edge_options(k) == {}


def test_over_conditions_a_class_without_an_error_warns():
    y, p = _data(900, 10, 100, 0)
    cond = np.arange(1000) % 50
    with pytest.warns(mlci.FewConditionsWarning, match="positives have no error"):
        r = mlci.bootstrap_ci(y, p, metric="balanced_accuracy", conditions=cond, rng=0)
    # MOVER of the classes' Korn & Graubard intervals, labelled as such (still warned)
    assert r.method == "mover_korn_graubard" and r.analytic is not None
    assert r.details["diagnostics"]["class_errors"] == (10, 0)
    # one miss: not that warning, but since session 9 recall's own (0.99 effective minority
    # outcomes over 50 conditions), as recall of the same data warns
    # (tests/engine/test_class_edge_session9.py)
    y, p = _data(900, 10, 100, 1)
    for metric, start in (("recall", "A proportion"), ("balanced_accuracy", "The positives'")):
        with pytest.warns(mlci.FewConditionsWarning, match=f"^{start}") as caught:
            mlci.bootstrap_ci(y, p, metric=metric, conditions=cond, rng=0)
        assert not any("have no error" in str(w.message) for w in caught)


def test_dominant_condition_df_floor():
    # seed-9 #149's layout: 461 conditions of 5 samples and one of 329, the errors
    # clustered (ICC about 0.4): Imbens-Kolesar's df is below 2, Kish's is 56.9
    rng = np.random.default_rng(5)
    sizes = np.r_[np.full(461, 5), 329]
    cond = np.repeat(np.arange(len(sizes)), sizes)
    rate = rng.beta(0.4 / 0.6 * 1.5, 0.6 / 0.6 * 1.5, len(sizes))[cond]
    y = np.ones(len(cond), int)
    p = (rng.random(len(cond)) > rate).astype(int)
    k, n = np.bincount(cond, weights=p), sizes.astype(float)
    ik = random_effects_df(n, icc_anova(k, n))
    assert ik < MIN_IK_DF
    kish = sizes.sum() ** 2 / np.sum(sizes.astype(float) ** 2) - 1
    r = mlci.bootstrap_ci(y, p, metric="accuracy", conditions=cond, rng=0, n_resamples=200)
    assert r.method == "logit_t"
    assert r.details["linearized"]["df"] == pytest.approx(kish, rel=1e-12)
    assert bounded_df(ik, kish) == pytest.approx(kish)
    assert bounded_df(2.5, 56.9) == 2.5 and bounded_df(0.5, 0.2) == 1.0


def test_compare_system_rows_get_the_same_interval():
    # one method resolution: a system's row in compare is its bootstrap_ci interval
    y, p = _data(900, 10, 100, 2)
    q = y.copy()
    q[:20], q[900:905] = 1, 0
    single = mlci.bootstrap_ci(y, p, metric="balanced_accuracy", rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)  # the difference's own rules
        rows = mlci.compare(y, {"A": p, "B": q}, metric="balanced_accuracy", rng=0)
    assert tuple(rows.systems["A"].confidence_interval) == pytest.approx(
        tuple(single.confidence_interval), abs=1e-12
    )
    assert rows.systems["A"].details["edge_fallback_method"] == "mover_wilson"


def test_the_engine_chooses_mover_the_dispatcher_reads_its_name():
    # session 9: the choice of balanced accuracy's MOVER is the engine's
    # (class_edge_options names it in the linearization); the interval layer's
    # studentized branch has no metric-specific test: without the name, the same
    # linearization (class counts and all) gives the studentized interval itself
    from mlci.intervals.bootstrap import interval_from_replicates

    y, p = _data(900, 10, 100, 2)
    r = mlci.bootstrap_ci(y, p, metric="balanced_accuracy", rng=0, n_resamples=400,
                          method="studentized")  # fmt: skip
    lin = dict(r.details["linearized"])
    assert lin["analytic_method"] == "mover_wilson" and r.method == "mover_wilson"
    kw = {"method": "studentized", "confidence_level": 0.95, "alternative": "two-sided",
          "bounds": r.bounds, "se_dist": r.replicate_standard_errors}  # fmt: skip
    low, high, info = interval_from_replicates(
        r.estimate, r.bootstrap_distribution, linear=lin, **kw
    )
    assert (float(low), float(high)) == tuple(r.confidence_interval)
    assert info["edge_fallback_method"] == "mover_wilson"
    del lin["analytic_method"]
    low, high, info = interval_from_replicates(
        r.estimate, r.bootstrap_distribution, linear=lin, **kw
    )
    assert "edge_fallback_method" not in info and info["scale"] == "logit"
    assert (float(low), float(high)) != tuple(r.confidence_interval)
    with pytest.raises(ValueError, match="`analytic_method` must be 'mover_wilson' or"):
        interval_from_replicates(
            r.estimate, r.bootstrap_distribution, linear=lin | {"analytic_method": "x"}, **kw
        )
