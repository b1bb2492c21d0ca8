"""The seed-14 search of the score drivers and the fields' drivers (session 11), and the
two harness fixes it ran with.

``scripts/design_search_scores.py`` (40 designs) and ``scripts/design_search_fields.py``
(60 designs) ran with seed 14 on session 11's main.  These tests pin that the saved
designs are the ones the scripts draw, and the two fixes of the scripts' classification
(not of their draws):

* the scores' script counts a test set whose estimate is undefined (``metric_by_group``'s
  NaN row of a group without a positive) apart from the misses: coverage over the defined
  test sets, ``res["undefined"]`` with how many of those warned (seed 12's #29 and seed
  13's #22 were short only by counting NaN rows as misses);
* the fields' script counts the units a design resamples for issue 20's n >= 30 gate
  (``scripts/design_search_sf_units.py``): a correlation resampling items counts its
  items (seed 13's #49, 4 systems x 220 items, had been read as "4 units").

Numbers, designs and verdicts: docs/validation.md, "Design search, seed 14: score drivers
and fields (session 11)"; results in ``scripts/data/design_search_{scores,fields}_seed14*.json``.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest

from _scripts import assert_drawn_as_saved, load_script, saved_runs

pytestmark = [pytest.mark.slow, pytest.mark.search]

dss = load_script("design_search_scores.py")
dsf = load_script("design_search_fields.py")
units = load_script("design_search_sf_units.py")
summary = load_script("design_search_sf_summary.py")
mlci = dss.mlci


def _saved(script: str) -> list[dict]:
    """The seed-14 search's results and its confirmations (300 other test sets)."""
    return saved_runs(script, 14)


# ------------------------------------------------------------------ the designs as saved
def test_saved_scores_designs_are_drawn_as_saved() -> None:
    assert len(assert_drawn_as_saved(dss, _saved("scores"), 14)) >= 30


def test_saved_fields_designs_are_drawn_as_saved() -> None:
    assert len(assert_drawn_as_saved(dsf, _saved("fields"), 14)) >= 50


# -------------------------------------------- fix 1: undefined group rows are not misses
def test_undefined_group_rows_are_counted_apart() -> None:
    # s13sc #22 (metric_by_group's FNR, 52 samples, the judged group with about 1.6
    # expected positives): the search's test set 2 has no positive in the judged group,
    # so its row is NaN (DegenerateIntervalWarning naming the group).  Counted as a miss
    # before (0.800 of 100 where 80 of the 82 defined rows covered); now apart.
    d = dss.random_design(22, 13)
    res = dss.run_design(d, 3, B=100, seed=13)
    und = res["undefined"]
    assert und["n"] >= 1 and und["warned"] == und["n"]
    auto = res["methods"]["auto"]
    assert auto["n"] == res["reps"] - res["failed"] - und["n"]
    assert any(f.startswith(f"undefined in {und['n']}/") for f in res["verdict"]["flags"])


def test_unwarned_undefined_rows_are_flagged() -> None:
    method = {"n": 90, "coverage": 0.95, "median_width": 0.1, "misses_low": 2,
              "misses_high": 2, "far_edge": 0}  # fmt: skip
    base = {
        "design": {"n": 100},
        "reps": 100,
        "failed": 0,
        "warned": 0,
        "refused": {},
        "errors": [],
        "methods": {"auto": dict(method), "bca": dict(method)},
    }
    warned = dss.assess({**base, "undefined": {"n": 10, "warned": 10}})
    assert not any(f.startswith("unwarned") for f in warned["verdict"]["flags"])
    silent = dss.assess({**base, "undefined": {"n": 10, "warned": 7}})
    assert "unwarned undefined rows: 3" in silent["verdict"]["flags"]
    assert silent["verdict"]["score"] > warned["verdict"]["score"]
    # a result saved before the fix (no "undefined") is judged as before
    old = dss.assess(dict(base))
    assert old["verdict"]["flags"] == []


# ---------------------------------- fix 2: the n >= 30 gate counts the units resampled
def test_correlation_resampling_items_counts_its_items() -> None:
    d = dataclasses.asdict(dsf.random_design(49, 13))  # 4 systems x 220 items, items
    assert d["n"] == 4 and d["p"]["resample"] == "items" and d["p"]["items"] == 220
    assert units.units(d) == (220, "220 items resampled (4 systems fixed)")
    by_systems = {**d, "p": {**d["p"], "resample": "systems"}}
    assert units.units(by_systems)[0] == 4
    both = {**d, "n": 36, "p": {**d["p"], "resample": "both", "items": 3}}
    assert units.units(both)[0] == 3  # the crossed bootstrap's 3 item clusters (s12f #1)
    assert units.units({"family": "regression", "n": 22, "p": {}})[0] == 22


def test_fields_verdict_and_summary_use_the_units_resampled() -> None:
    method = {"n": 100, "coverage": 0.86, "median_width": 0.01, "misses_low": 14,
              "misses_high": 0, "far_edge": 0}  # fmt: skip
    d = dataclasses.asdict(dsf.random_design(49, 13))
    res = {
        "design": d,
        "reps": 100,
        "failed": 0,
        "refused": {},
        "errors": [],
        "warned": 0,
        "warned_misses": 0,
        "methods": {"auto": dict(method), "bca": dict(method)},
    }
    r = dsf.assess(res)
    assert r["units"] == {"n": 220, "what": "220 items resampled (4 systems fixed)"}
    assert not any("below issue 20" in f for f in r["verdict"]["flags"])
    assert r["unwarned"] and summary.n_units(r, "fields") == 220
    r = dsf.assess({**res, "design": {**d, "p": {**d["p"], "resample": "systems"}}})
    assert any(f.startswith("(4 systems resampled") for f in r["verdict"]["flags"])
    assert summary.n_units(r, "fields") == 4
    assert summary.n_units({"design": {"n": 4}}, "scores") == 4


def test_saved_seed14_fields_results_carry_the_units() -> None:
    for r in _saved("fields"):
        k, what = units.units(r["design"])
        assert r["units"] == {"n": k, "what": what}, r["label"]
        below = any("below issue 20" in f for f in r["verdict"]["flags"])
        assert below == (k < 30), r["label"]


def test_saved_seed14_scores_results_count_undefined_rows() -> None:
    for r in _saved("scores"):
        und = r["undefined"]
        assert und["n"] >= und["warned"] >= 0
        if "auto" in r["methods"]:
            assert r["methods"]["auto"]["n"] <= r["reps"] - r["failed"] - und["n"]
        assert math.isfinite(r["methods"].get("auto", {}).get("coverage", 0.0))


# ------------------------------------------------------ what the seed-14 designs showed
KW = {"n_resamples": 500, "rng": 1}


def _warned(call) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with mlci.config_context(n_jobs=1):
            res = call()
    return res, [w.category.__name__ for w in caught if issubclass(w.category, mlci.MlciWarning)]


def _scores_set(index: int, draw: int, seed: int = 14) -> tuple:
    """Design ``index`` of the scores' search with ``seed`` and its test set ``draw``, as
    the search drew it (``np.random.default_rng([seed, index, draw])``)."""
    d = dss.random_design(index, 14)
    pop = dss.Population(d)
    return d, pop, pop.draw(np.random.default_rng([seed, index, draw]))


def test_f1_without_an_error_gets_the_exact_interval() -> None:
    # s14sc #2 (reduce_ci's f1, iid, 1,614 samples, about 17 positives and 0.8 expected
    # errors): auto 0.510 of 100, warned in 47.  The misses are the test sets without an
    # error (F1 = 1, [1, 1], DegenerateIntervalWarning), as s8nb #9, s11 #2 and s13 #41.
    d, pop, x = _scores_set(2, 0)
    assert d.family == "reduce" and d.metric == "f1"
    res, names = _warned(lambda: dss.run_driver(d, pop, x, None, {"n_resamples": 200, "rng": 0}))
    # since the lead's fix (session 11, engine/no_error.py) the test set without an error
    # gets the exact interval of "no error" instead of the point [1, 1], through reduce_ci
    # too; here it covers the truth, without a "no spread" warning
    assert res.method == "exact_no_error" and pop.truth < 1
    lo, hi = res.confidence_interval
    assert lo <= pop.truth <= hi == 1.0
    assert "DegenerateIntervalWarning" not in names


# ------------------------- eer_ci with strata= over sites that differ (s14sc #13, new)
def _s14sc_13() -> tuple:
    d, pop, x = _scores_set(13, 2)  # the search's test set 2
    assert d.family == "strata" and d.metric == "eer" and d.groups == 4
    assert len(x["y"]) == 3863 and int(x["y"].sum()) == 145
    return pop.truth, mlci.Scores.from_labels(x["y"], x["s"]), x["strata"]


def test_strata_eer_over_sites_misses_here() -> None:
    # the comparison the xfail below rests on: on this test set the search's call (sites
    # as strata; by default the classes are then resampled within each site, every site's
    # number of targets fixed in every replicate) misses the truth (0.11304, the pooled
    # EER of the 4 sites), silently, while the iid bootstrap and the sites without the
    # class stratification cover it with wider intervals
    truth, sc, site = _s14sc_13()
    r, names = _warned(lambda: mlci.eer_ci(sc, strata=site, **KW).eer)
    # warned since the lead's fix (scores/_design.warn_strata_class_mix, session 11)
    assert r.method == "percentile" and names == ["FewConditionsWarning"]
    assert r.confidence_interval[0] > truth
    iid = mlci.eer_ci(sc, **KW).eer
    free = mlci.eer_ci(sc, strata=site, resampling=mlci.Resampling(stratify=False), **KW).eer
    for other in (iid, free):
        lo, hi = other.confidence_interval
        assert lo <= truth <= hi
        assert hi - lo > r.confidence_interval[1] - r.confidence_interval[0]


# found (seed-14 scores #13): eer_ci with strata= (4 sites of fixed size, each with its
# own prevalence, shift and separation; 3,863 trials, about 176 targets, pooled EER
# 0.113): auto (percentile) 0.890 of 100 and of 300 other test sets, never warned.
# With strata= the default class stratification resamples the classes within each
# site, so each site's number of targets is fixed in every replicate; in the population
# it is not, and with sites whose scores differ the pooled EER's variance from that mix
# is lost (bootstrap SE 0.012 against the estimate's sampling SD 0.014; the iid bootstrap
# on the same test sets 0.923; the sites without the classes 0.917).  auc_ci with strata=
# (s14sc #37, 2 sites) is the same: 0.880 of 300, its misses unwarned.  docs/validation.md,
# "Design search, seed 14: score drivers and fields (session 11)";
# scripts/design_search_sf_probe14.py.
# Fixed (session 11, lead): the class mix differing between the strata warns.
def test_strata_eer_over_sites_covers_or_warns() -> None:
    truth, sc, site = _s14sc_13()
    r, names = _warned(lambda: mlci.eer_ci(sc, strata=site, **KW).eer)
    lo, hi = r.confidence_interval
    assert lo <= truth <= hi or names
