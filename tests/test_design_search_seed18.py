"""The design searches' seed 18 (session 12): what they drew.

Seed 18 ran the three searches (``scripts/design_search.py``,
``scripts/design_search_scores.py``, ``scripts/design_search_fields.py``) on the
integration branch (wt-int 5ebb7d5, this session's fixes) with their generators
unchanged, so these tests pin that every saved seed-18 design (and confirmation) is what
the scripts draw now.  Numbers, designs and verdicts:
docs/validation.md, "Design search, seed 18 (session 12)"; results in
``scripts/data/design_search{,_scores,_fields}_seed18*.json``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from _scripts import SEARCH_KW as KW
from _scripts import assert_seed_drawn_as_saved, load_script, warned

pytestmark = [pytest.mark.slow, pytest.mark.search]

ds = load_script("design_search.py")
dss = load_script("design_search_scores.py")
dsf = load_script("design_search_fields.py")
mlci = ds.mlci

SEED = 18


@pytest.mark.parametrize(
    ("stem", "script", "least"),
    [
        ("design_search", ds, 1),
        ("design_search_scores", dss, 1),
        ("design_search_fields", dsf, 1),
    ],
)
def test_saved_seed18_designs_are_drawn_as_saved(stem: str, script: ModuleType, least: int) -> None:
    assert_seed_drawn_as_saved(stem, script, SEED, least)


# ---- new: a paired ROC AUC difference near 1, the t interval's upper end short (s18 #24, #66)
def _s18_auc(index: int, i: int, method: str = "auto") -> tuple[Any, ...]:
    # seed-18 decision #24 (2,608 independent samples, about 164 positives, A's 1 - AUC
    # 4.9e-6, gap 0.0012) and #66 (3,029 samples, about 48 positives, over 73 unequal
    # conditions at ICC 0.08, A's 1 - AUC 7.6e-5, gap 0.0021); pairs test set i (draw seed 19)
    d = ds.random_design(index, SEED)
    pop = ds.Population(d)
    x = pop.draw(np.random.default_rng([SEED + 1, index, i]))
    assert d.family == "paired" and d.metric == "roc_auc"
    kw = {} if x.get("conditions") is None else {"conditions": x["conditions"]}
    out: dict[str, object] = {}

    def call() -> None:
        res = mlci.compare(
            x["y"], {"a": x["a"], "b": x["b"]}, metric="roc_auc", method=method, **kw, **KW
        )
        out["r"] = res.difference("a", "b")

    names = warned(call)
    return pop.truth, out["r"], names


def test_paired_auc_near_1_iid_covers_where_bca_does() -> None:
    # Fixed (session 12, aucpair18): engine/auc_misranked.py few_misordered_pairs_iid gives
    # BCa here (B has fewer than 2 misordered pairs per positive); 21 test sets gained, none
    # lost (scripts/auc_pair18_study.py)
    # found (seed-18 decision #24): auto 0.800 of 100, 241 of 300 other test sets (0.803;
    # the t interval in 185, BCa in 115), BCa 259 (0.863), percentile 249: only auto 3,
    # only BCa 21 (McNemar p 3e-4), all on auto's t test sets; warned in all 300.  BCa
    # wins where the worse system B has few misordered pairs (135-312, median 265; 463 on
    # the test sets both cover): the difference underestimated, the t interval's upper end
    # short.  Test set 2: t [0.000219, 0.001216] below the truth 0.001231, BCa
    # [0.000347, 0.001293] covers it; auto should cover where BCa does
    truth, r, _ = _s18_auc(24, 2)
    lo, hi = r.confidence_interval
    assert lo <= truth <= hi


@pytest.mark.xfail(strict=True, reason="seed-18 #66: paired AUC near 1 over 73 conditions")
def test_paired_auc_near_1_over_73_conditions_covers_where_bca_does() -> None:
    # found (seed-18 decision #66): auto 0.720 of 100, 212 of 300 other test sets (0.707;
    # t in 202, BCa in 98), BCa 226 (0.753), percentile 202: only auto 5, only BCa 19
    # (McNemar p 0.007), all on auto's t test sets; warned in all 300.  aucedge's paired
    # rule (BCa where the worse system has fewer than 50 misordered pairs) does not reach
    # these: B has 64-170 (median 126) misordered pairs on the test sets only BCa covers.
    # Test set 21: t [0.000222, 0.001928] below the truth 0.002056, BCa [0.000485,
    # 0.002369] covers it
    truth, r, _ = _s18_auc(66, 21)
    lo, hi = r.confidence_interval
    assert lo <= truth <= hi


@pytest.mark.parametrize("index", [66])
def test_paired_auc_near_1_t_misses_below_here_bca_covers(index: int) -> None:
    # the companion: auto gives the t interval, warned, its upper end below the truth;
    # BCa covers the same test set (#24 left: auto gives BCa there since session 12,
    # aucpair18)
    i = {24: 2, 66: 21}[index]
    truth, r, names = _s18_auc(index, i)
    assert r.method == "t" and names
    assert r.confidence_interval[1] < truth
    _, b, _ = _s18_auc(index, i, "bca")
    lo, hi = b.confidence_interval
    assert lo <= truth <= hi
