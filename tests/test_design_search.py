"""The reduced design-space search (issue 20, item 2): fixed designs, issue 20's targets.

``scripts/design_search.py`` draws random designs (metric, n, prevalence, performance
from chance to a single error, conditions and ICC, paired differences) and reports where
``method="auto"`` misses its targets; docs/validation.md shows its worst designs.  This
test runs the script's fixed designs (``CELLS``: the worst it found, the near-bound cases
of issue 20, and ordinary designs) with ``reps`` test sets each (1000 at
``MLCI_SLOW_SCALE=1``, 100 at CI's 0.1) and asserts, for every design with n >= 30:

* where another method (BCa, percentile, or the analytic interval) holds 0.95 +- 0.015,
  ``auto`` is not significantly outside that band;
* where none does, ``auto`` is not significantly below the best method minus 0.01, and it
  warned in at least half as many test sets as it missed;
* ``auto``'s median width is at most 1.5 times BCa's where BCa is not significantly
  below the band (a BCa interval that falls short is no yardstick of width: auto's
  analytic AUC interval covers 1.000 at 16x the width of a BCa covering 0.55);
* no ``auto`` interval reaches the far end of the metric's range (f1 0.99 with a lower
  end at 0).

"Significantly" is an exact binomial test at level 0.01 (one-sided), so that 100 test
sets still reject the near-bound collapses (coverage and width ratios far off) without
flagging simulation noise.  The designs that fail on main are ``xfail(strict=True)``
naming the defect; they flip when issue 20's fix of ``auto`` near the bounds is merged,
and the marker is then removed.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from scipy import stats

from _scripts import load_script

SCALE = float(os.environ["MLCI_SLOW_SCALE"])
REPS = max(100, round(1000 * SCALE))
RESAMPLES = max(400, round(1000 * SCALE))
SIG = 0.01

pytestmark = [pytest.mark.slow, pytest.mark.search]


def _script():
    return load_script("design_search.py")


ds = _script()

# wt-defaults (the near-bound rule, intervals/bootstrap.py edge_dominated) fixed the
# far-end collapse of f1 1/100, f1 4/200, mcc 3/300, balanced_accuracy 3/300, kappa 4/500
# over 50 conditions and roc_auc 3 mis-ordered pairs: they pass and are no longer xfail
# average_precision 0.97 n=64 (fewer than 10 positives in a fifth of its test sets) passes
# since AP falls back to logit_t near the edge whatever the class sizes (engine/auto.py)
# the seed-7 search's auc_ci cell (4.5 positives, no method holds, warned in 1 of 100)
# passes since the AUC's class-size warning (MIN_AUC_CLASS, engine/auc_class.py)
# seed 9's balanced accuracy with 2-3 misses in 100 positives (#80 and its neighbour)
# passes since the class-edge rule (engine/class_edge.py: MOVER-Wilson, now also the
# script's analytic interval for balanced accuracy), and its precision over one dominant
# condition (#149) since the IK df floor (engine/dominant_condition.py); "roc_auc 3
# mis-ordered pairs in 200" and "auc_ci 4.5 positives, AUC 0.85" since auto's analytic AUC
# interval (engine/auc_analytic.py: 1.000 and 0.970 where BCa covers 0.55 and 0.69)
XFAIL: dict[str, str] = {}


def _significantly(cov: float, k: int, bound: float, side: str) -> bool:
    hits = round(cov * k)
    if side == "below":
        return cov < bound and stats.binom.cdf(hits, k, bound) < SIG
    return cov > bound and stats.binom.sf(hits - 1, k, bound) < SIG


def check_targets(res: dict) -> list[str]:
    """Issue 20's targets on one design's results; the list of what was missed."""
    ms, missed = res["methods"], []
    auto = ms["auto"]
    k, cov = auto["n"], auto["coverage"]
    lo, hi = ds.TARGET - ds.TOLERANCE, ds.TARGET + ds.TOLERANCE
    others = {m: v for m, v in ms.items() if m != "auto"}
    holding = [
        m
        for m, v in others.items()
        if not _significantly(v["coverage"], v["n"], lo, "below")
        and not _significantly(v["coverage"], v["n"], hi, "above")
    ]
    auto_holds = not _significantly(cov, k, lo, "below") and not _significantly(cov, k, hi, "above")
    if holding:
        if not auto_holds:
            missed.append(f"auto covers {cov:.3f} where {holding} hold")
    elif not auto_holds:  # auto holding where no other method does needs no warning
        best = max(others.values(), key=lambda v: -abs(v["coverage"] - ds.TARGET))
        if _significantly(cov, k, best["coverage"] - 0.01, "below"):
            missed.append(f"auto covers {cov:.3f}, the best method {best['coverage']:.3f}")
        misses = auto["misses_low"] + auto["misses_high"]
        if res["warned"] < 0.5 * misses:
            missed.append(f"no method holds and auto warned in {res['warned']} of {k}")
    bca = ms["bca"]
    short = _significantly(bca["coverage"], bca["n"], lo, "below")
    if (
        not short
        and bca["median_width"] > 0
        and auto["median_width"] > ds.WIDTH_RATIO * bca["median_width"]
    ):
        missed.append(f"median width {auto['median_width'] / bca['median_width']:.2f}x BCa's")
    if auto["far_edge"]:
        missed.append(f"{auto['far_edge']} of {k} intervals reach the far end of the range")
    if res["failed"] > 0.05 * res["reps"]:
        missed.append(f"{res['failed']} test sets refused")
    return missed


def _param(name: str):
    marks = [pytest.mark.xfail(strict=True, reason=XFAIL[name])] if name in XFAIL else []
    return pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", [_param(n) for n in ds.CELLS])
def test_auto_meets_the_targets(name: str) -> None:
    design = ds.CELLS[name]
    assert design.n >= 30
    res = ds.run_design(design, REPS, RESAMPLES, seed=0)
    missed = check_targets(res)
    table = ds.table([res])
    assert not missed, f"{name}: {'; '.join(missed)}\n{table}"


def test_targets_check_flags_a_collapse() -> None:
    # the check itself: a design whose auto reaches the far end of the range, too wide
    res = {
        "reps": 100,
        "failed": 0,
        "warned": 0,
        "methods": {
            "auto": {"n": 100, "coverage": 0.95, "median_width": 0.9, "misses_low": 2,
                     "misses_high": 3, "far_edge": 60},
            "bca": {"n": 100, "coverage": 0.94, "median_width": 0.05, "misses_low": 3,
                    "misses_high": 3, "far_edge": 0},
        },
    }  # fmt: skip
    missed = check_targets(res)
    assert any("width" in m for m in missed) and any("far end" in m for m in missed)
    res["methods"]["auto"].update(coverage=0.80, median_width=0.05, far_edge=0)
    assert check_targets(res) == ["auto covers 0.800 where ['bca'] hold"]
    # a BCa that falls short is no yardstick of width: 16x its width, auto holding
    res["methods"]["auto"].update(coverage=0.96, median_width=0.8, misses_low=4, misses_high=0)
    res["methods"]["bca"].update(coverage=0.55)
    res["warned"] = 100
    assert check_targets(res) == []
    res["methods"]["bca"].update(coverage=0.93)  # not significantly short: the width counts
    assert check_targets(res) == ["median width 16.00x BCa's"]
    assert math.isclose(ds.TARGET - ds.TOLERANCE, 0.935)


def test_a_refused_analytic_interval_keeps_the_test_set() -> None:
    # the seed-4 search's #18 (a paired roc_auc difference, n = 32, 3 expected positives):
    # DeLong refuses a test set with one positive; auto, BCa and percentile serve it, so
    # the test set counts for them (before: the whole test set was dropped as refused)
    design = ds.Design(0, "paired", "roc_auc", 32, 0.094, 0.094, 1.0, 0, 0.0, False, gap=0.35)
    y = [1] + [0] * 31
    a = [10.0] + [0.1 * i for i in range(31)]  # A ranks the positive first: AUC 1
    b = [0.55] + [0.1 * i for i in range(31)]  # B above 6 of the 31 negatives: AUC 6/31
    x = {"y": np.array(y), "a": np.array(a), "b": np.array(b), "conditions": None}
    with pytest.raises(ValueError, match="at least 2 positives"):
        ds.mlci.delong_test(x["y"], x["a"], x["b"])
    out = ds.intervals(design, x, seed=0, B=50)
    assert {"auto", "bca", "percentile"} <= set(out) and "analytic" not in out
    assert out["estimate"] == pytest.approx(1.0 - 6 / 31)


def test_a_refused_bca_keeps_autos_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    # the same defect one method further: a BCa refusal (its jackknife, a replicate
    # distribution it cannot serve) dropped the whole test set, auto's interval with it,
    # so auto's coverage was judged on the test sets BCa served.  Now BCa (and the
    # percentile interval of its replicates) is dropped for that test set only, counted
    # in ``refused`` and flagged when more than 5% of the test sets
    original = ds.mlci.bootstrap_ci

    def refuse_bca(*args, **kwargs):
        if kwargs.get("method") == "bca":
            raise ValueError("BCa needs a jackknife")
        return original(*args, **kwargs)

    monkeypatch.setattr(ds.mlci, "bootstrap_ci", refuse_bca)
    design = ds.Design(0, "decision", "accuracy", 60, 0.5, 0.2, 1.0, 0, 0.0, False)
    res = ds.run_design(design, reps=4, B=50)
    assert res["failed"] == 0 and res["methods"]["auto"]["n"] == 4
    assert "bca" not in res["methods"] and "percentile" not in res["methods"]
    assert res["methods"]["analytic"]["n"] == 4  # Wilson, unaffected
    assert res["refused"] == {"bca": 4, "percentile": 4}
    assert res["refusals"][0] == "bca: ValueError: BCa needs a jackknife"
    assert "bca refused 4/4 test sets auto served" in res["verdict"]["flags"]
    # auto's own refusal still refuses the test set, for every method
    monkeypatch.setattr(ds.mlci, "bootstrap_ci", lambda *a, **k: 1 / 0)
    res = ds.run_design(design, reps=2, B=50)
    assert res["failed"] == 2 and res["methods"] == {} and res["refused"] == {}


def test_auc_doors_compares_the_same_test_sets() -> None:
    # the seed-6 section's door comparison: auc_ci and bootstrap_ci(strata=y) are the same
    # stratified design (BCa, the same intervals), bootstrap_ci's roc_auc resamples samples
    design = ds.Design(1, "scores", "auc", 120, 0.3, 0.15, 1.0, 0, 0.0, False)
    out = ds.auc_doors(design, reps=3, B=50)
    assert set(out) == set(ds.AUC_DOORS) and all(o["n"] == 3 for o in out.values())
    strat, auc = out["bootstrap_ci strata=y"], out["auc_ci"]
    assert strat["mean_width"] == pytest.approx(auc["mean_width"], abs=1e-12)
    assert auc["methods"] == {"bca": 3} and "bca" not in out["bootstrap_ci"]["methods"]
    with pytest.raises(ValueError, match="needs an AUC design"):
        ds.auc_doors(ds.CELLS["eer 0.18 n=400"], reps=1)


def test_saved_searches_draw_the_same_designs() -> None:
    # seed 9 added focuses, Design.apportion and new families outside FAMILIES: the saved
    # runs of seeds 6 and 8 (every focus they used) are still the designs drawn
    here = os.path.dirname(os.path.abspath(__file__))
    for seed in (6, 8):
        path = os.path.join(here, "..", "scripts", "data", f"design_search_seed{seed}.json")
        runs = ds.load(path)["runs"]
        for key, results in runs.items():
            s, _, focus = key.partition("-")
            for r in results[:5]:
                d = ds.random_design(r["design"]["index"], int(s[4:]), focus or None)
                # seed 13 added Design.analytic_clustered (False before seed 13)
                saved = {**r["design"], "apportion": False, "analytic_clustered": False}
                assert ds.dataclasses.asdict(d) == saved


def test_condition_sizes_apportioned_from_seed_10() -> None:
    # seed 9 #149: 2,634 "equal" samples in 462 conditions were 461 of 5 and one of 329
    old = ds.random_design(149, 9)
    assert not old.apportion and ds.condition_sizes(old).max() == 329
    new = ds.dataclasses.replace(old, apportion=True)
    sizes = ds.condition_sizes(new)
    assert sizes.sum() == 2634 and set(sizes) == {5, 6}
    d = ds.random_design(3, 10, "conditions")
    assert d.apportion and d.n_conditions and ds.condition_sizes(d).sum() == d.n
    unequal = ds.dataclasses.replace(
        ds.CELLS["accuracy 0.8, 20 unequal conditions"], apportion=True
    )
    quota = ds.condition_sizes(unequal)
    assert quota.sum() == 400 and quota.min() >= 1


def test_focuses_draw_their_families() -> None:
    cond = [ds.random_design(i, 9, "conditions") for i in range(40)]
    assert all(d.n_conditions >= 5 and d.n >= 40 for d in cond)
    metrics = {ds.random_design(i, 9, "metrics").metric for i in range(60)}
    assert metrics == {*ds.RATES, "brier"}
    llm = {ds.random_design(i, 9, "llm").family for i in range(20)}
    assert llm == {"llm", "llm-paired"}
    assert ds.random_design(0, 9) == ds.random_design(0, 9, None)  # default unchanged


def test_rate_and_brier_truths() -> None:
    # the complements from the cells (tp, fp, fn, tn) = (0.04, 0.019, 0.01, 0.931)
    cells = (0.04, 0.019, 0.01, 0.931)
    assert ds.decision_truth("fnr", *cells) == pytest.approx(0.01 / 0.05)
    assert ds.decision_truth("fpr", *cells) == pytest.approx(0.019 / 0.95)
    assert ds.decision_truth("error_rate", *cells) == pytest.approx(0.029)
    assert ds.decision_truth("npv", *cells) == pytest.approx(0.931 / 0.941)
    assert ds.decision_truth("fdr", *cells) == pytest.approx(0.019 / 0.059)
    # the Brier score by quadrature against a Monte Carlo mean of 2 million draws
    g = np.random.default_rng(5)
    a, slope, su = -1.2, 1.5, 0.6
    z, u = g.standard_normal(2_000_000), su * g.standard_normal(2_000_000)
    p = 1 / (1 + np.exp(-(a + slope * z)))
    q = 1 / (1 + np.exp(-(a + slope * z + u)))
    mc = float(np.mean(q * (1 - p) ** 2 + (1 - q) * p**2))
    assert ds.logloss_truth(a, slope, su, "brier") == pytest.approx(mc, abs=5e-4)
    # a confident system (slope 11.9, as seed 9's #90), where Gauss-Hermite nodes in z were
    # 14% off: the Brier score and the log loss within 3 Monte Carlo standard errors
    a, slope, su = -6.0, 11.9, 0.3
    z, u = g.standard_normal(2_000_000), su * g.standard_normal(2_000_000)
    eta = a + slope * z
    p, q = 1 / (1 + np.exp(-eta)), 1 / (1 + np.exp(-(eta + u)))
    for metric, loss in (
        ("brier", q * (1 - p) ** 2 + (1 - q) * p**2),
        ("log_loss", q * np.logaddexp(0, -eta) + (1 - q) * np.logaddexp(0, eta)),
    ):
        se = float(loss.std() / np.sqrt(loss.size))
        assert ds.logloss_truth(a, slope, su, metric) == pytest.approx(loss.mean(), abs=3 * se)


def test_llm_designs_run() -> None:
    # llm_ci and llm_compare through the search: iid their analytic interval is Wilson's
    # (Newcombe's for the difference), over conditions the CR2 t
    for i in (0, 1, 4):
        d = ds.random_design(i, 9, "llm")
        res = ds.run_design(d, reps=3, B=50)
        assert res["failed"] == 0 and res["methods"]["auto"]["n"] == 3
    d = ds.random_design(4, 9, "llm")  # llm_compare, iid
    x = ds.Population(d).draw(np.random.default_rng(0))
    table = ds.mlci.paired_table(x["a"] == 1, x["b"] == 1)
    expected = ds.mlci.paired_proportion_diff_ci(table).confidence_interval
    assert ds._analytic(d, x) == pytest.approx(tuple(expected))
