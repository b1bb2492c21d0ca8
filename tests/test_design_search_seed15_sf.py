"""The seed-15 search of the score drivers and the fields' drivers (session 11).

``scripts/design_search_scores.py`` (40 designs) and ``scripts/design_search_fields.py``
(60 designs, 12 of them drawn by ``scripts/design_search_sf_corr15.py``: correlations at
the global and item level over 20-60 systems, where corrfix's jackknife Fisher-z interval
applies) ran with seed 15; the designs the merged fixes touch were run again on the merged
tree (the first run's results in ``*_premerge.json``).  These tests pin that the saved
designs are the ones the scripts draw (seeds 0-14 unchanged by the seed-15 draws), and
what the search showed on its own test sets.

Numbers, designs and verdicts: docs/validation.md, "Design search, seed 15: score drivers
and fields (session 11)"; results in ``scripts/data/design_search_{scores,fields}_seed15*.json``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from _scripts import SEARCH_KW, assert_drawn_as_saved, load_script, saved_runs, search_set, warned

pytestmark = [pytest.mark.slow, pytest.mark.search]

dss = load_script("design_search_scores.py")
dsf = load_script("design_search_fields.py")
corr15 = load_script("design_search_sf_corr15.py")
probe = load_script("design_search_sf_probe15.py")
mlci = dss.mlci


def _caught(call: Callable[[], Any]) -> tuple[Any, list[str]]:
    """``call()``'s result and the mlci warnings it emitted (:func:`_scripts.warned`)."""
    out: list[Any] = []
    names = warned(lambda: out.append(call()))
    return out[0], names


def _saved(script: str, seed: int = 15) -> list[dict]:
    """A search's results, its first (pre-merge) run and its confirmations."""
    return saved_runs(script, seed)


# ------------------------------------------------------------------ the designs as saved
def test_saved_scores_designs_are_drawn_as_saved() -> None:
    assert len(assert_drawn_as_saved(dss, _saved("scores"), 15)) == 40


def test_saved_fields_designs_are_drawn_as_saved() -> None:
    assert len(assert_drawn_as_saved(dsf, _saved("fields"), 15)) == 60


def test_seed14_fields_designs_still_draw_as_saved() -> None:
    # the seed-15 correlations come from their own stream, gated on seed >= 15
    saved = _saved("fields", 14)
    assert len(saved) >= 60
    for r in saved:
        assert dsf.random_design(r["design"]["index"], 14).label() == r["label"]
    assert all(corr15.maybe(i, s) is None for i in range(200) for s in range(15))


def test_seed15_correlations_are_global_or_item_over_20_to_60_systems(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn = [dsf.random_design(i, 15) for i in range(60)]
    c15 = [d for d in drawn if d.p.get("s15")]
    assert [d.index for d in c15] == [9, 13, 34, 35, 39, 40, 45, 49, 50, 54, 55, 57]
    for d in c15:
        assert d.family == "correlation" and d.p["level"] in ("global", "item")
        assert 20 <= d.n <= 60 and d.p["items"] >= 15
        if d.metric == "kendall_tau":
            assert d.n * d.p["items"] <= 900 or d.p["items"] == 15
    assert {d.metric for d in c15} == {"pearson", "spearman", "kendall_tau"}
    # the other designs of the seed are drawn as they would be without the share
    monkeypatch.setattr(dsf.sf_corr15, "SHARE", 0.0)
    for d in drawn:
        if not d.p.get("s15"):
            assert dsf.random_design(d.index, 15) == d


# ------------------------------------------------- corrfix's interval, met by the search
def test_global_correlation_over_21_systems_gets_the_jackknife_interval() -> None:
    # s15f #13: global Pearson, 21 systems x 238 items, both resampled; auto 0.960 of
    # 100 with method "jackknife_z" in every test set (the search's test set 0 here)
    d, pop, x = search_set(dsf, 15, 13, 0, 24)
    assert d.p["level"] == "global" and d.n == 21 and d.p["resample"] == "both"
    with mlci.config_context(n_jobs=1):
        r = mlci.correlation_ci(
            x["x"], x["z"], coefficient="pearson", correlation_level="global",
            resample="both", **SEARCH_KW,
        )  # fmt: skip
    assert r.method == "jackknife_z"
    lo, hi = r.confidence_interval
    assert lo <= pop.truth <= hi


# ------------------------------------- strata= designs: the conditional estimand, read
def test_conditional_truth_at_the_expected_mix_is_the_population_truth() -> None:
    # design_search_sf_probe15.conditional_truth weights each site's classes by the test
    # set's counts; at counts proportional to the population's it is the pooled truth
    d = dss.random_design(36, 15)
    pop = dss.Population(d)
    site = np.repeat(np.arange(d.groups), pop.site_n * 1000)
    pos_share = pop.site_prev[site]
    y = np.zeros(len(site), dtype=np.int64)
    for s in range(d.groups):  # exactly round(n_s * prev_s) positives in each site
        idx = np.flatnonzero(site == s)
        y[idx[: round(len(idx) * pop.site_prev[s])]] = 1
    assert abs(np.mean(y) - np.mean(pos_share)) < 1e-3
    cond = probe.conditional_truth(d, pop, {"strata": site, "y": y})
    assert cond == pytest.approx(pop.truth, rel=2e-3)


def test_strata_min_dcf_with_few_errors_warns_in_its_misses() -> None:
    # s15sc #1 (dcf_ci min DCF, 4 sites, 197 trials, about 12 targets): auto 0.660 of
    # 100, 0.72 against the conditional truth, stratify=False 0.85; warned in 33 of its
    # 34 misses: the minimum is reached with fewer than 5 misses or false alarms
    d, _, x = search_set(dss, 15, 1, 0)
    sc = mlci.Scores.from_labels(x["y"], x["s"])
    names = warned(lambda: mlci.dcf_ci(sc, d.param, kind="min", strata=x["strata"], **SEARCH_KW))
    assert "NearBoundWarning" in names


def test_strata_auc_with_a_few_positives_warns() -> None:
    # s15sc #38 (auc_ci, strata= 3 sites, 34 trials, about 3 positives): auto 0.344 of
    # 96, warned in all 96.  With strata= auto stays BCa (the AUC's score interval is
    # gated to samples without strata: section "The weighted AUC at 1 and Cllr at few
    # targets"), [1, 1] on the search's test set 0 (5 positives), warned; without strata
    # the same test set gets the score interval (iid 0.938 of the same 96 test sets)
    _, pop, x = search_set(dss, 15, 38, 0)
    sc = mlci.Scores.from_labels(x["y"], x["s"])
    r, names = _caught(lambda: mlci.auc_ci(sc, strata=x["strata"], **SEARCH_KW))
    assert r.method == "bca" and tuple(r.confidence_interval) == (1.0, 1.0) and pop.truth < 1
    assert {"FewConditionsWarning", "DegenerateIntervalWarning"} <= set(names)
    iid, _ = _caught(lambda: mlci.auc_ci(sc, **SEARCH_KW))
    assert iid.method == "auc-score-floored"
    assert iid.confidence_interval[0] <= pop.truth <= iid.confidence_interval[1]


# ------------------------------------------------------- Cllr designs, before and after
def test_cllr_of_a_dozen_targets_over_conditions_warns_since_the_merge() -> None:
    # s15sc #12 (actual Cllr, calibrated, 440 trials over 28 conditions, about 15
    # targets): auto (BCa) 0.880 of 100 and 0.847 of 300, warned in 63 of 100 before the
    # merged fixes, 93 (and 285 of 300) after: cllrwauc's class-count rule (a class of
    # fewer than 20 trials outnumbered 3 times).  The search's test set 23 (12 targets)
    # missed unwarned before; it misses, warned, now
    d, pop, x = search_set(dss, 15, 12, 23)
    assert d.family == "cllr" and int(x["y"].sum()) == 12
    res, names = _caught(lambda: dss.run_driver(d, pop, x, None, dict(SEARCH_KW)))
    assert not res.confidence_interval[0] <= pop.truth <= res.confidence_interval[1]
    assert "NearBoundWarning" in names


# --------------- new: the global level over 30-60 systems, both resampled (s15f #34)
def _s15f_34() -> tuple:
    d, pop, x = search_set(dsf, 15, 34, 22, 24)  # the search's test set 22
    assert d.p["level"] == "global" and d.p["resample"] == "both"
    assert x["x"].shape == (34, 108)
    return pop.truth, x


def test_global_correlation_over_34_systems_gets_jackknife_z() -> None:
    # found (seed-15 fields #34): correlation_ci at the global level, Pearson, resampling
    # systems and items, 34 systems x 108 items: auto (BCa, above corrfix's jackknife_z
    # row of 20-29 systems) 0.880 of 100, 0.907 of 300 and 0.892 of 287 other test sets
    # (0.899 of 587, p < 0.001 below 0.935), never warned; corrfix's jackknife Fisher-z
    # interval on the same test sets 0.920 of 587 (p = 0.08, not short; 1.10 times BCa's
    # width), s15f #54 (36 x 150) BCa 0.927, jackknife_z 0.950 of 300.  Fixed (session
    # 11, lead): the row (global, both) runs to 59 systems.  This test set (22) stays a
    # miss of the new interval too (one of its 8%), below the truth.
    truth, x = _s15f_34()
    r, names = _caught(
        lambda: mlci.correlation_ci(
            x["x"], x["z"], coefficient="pearson", correlation_level="global",
            resample="both", **SEARCH_KW,
        )
    )  # fmt: skip
    assert r.method == "jackknife_z" and names == []
    assert r.confidence_interval[1] < truth
