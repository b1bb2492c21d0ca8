"""``auto``'s interval of a paired F1 difference with fewer than 5 of a class over
conditions (session 12, helper edgef1): the t interval below 16 conditions, the
percentile interval below 30 conditions or with one sample of the class, else BCa
(session 11's rule).  Numbers: ``scripts/edge_f1_study.py``, docs/validation.md
"Paired F1 with few positives over few conditions: percentile or BCa"."""

from __future__ import annotations

import json
import types
import warnings

import numpy as np
import pytest

import mlci
from _scripts import SCRIPTS, load_script
from mlci.engine.edge_bca import (
    FEW_POSITIVE_PERCENTILE_CLASS,
    FEW_POSITIVE_PERCENTILE_CONDITIONS,
    FEW_POSITIVE_T_CONDITIONS,
    few_positive_method,
    few_positive_methods,
    few_positive_pairs,
)


def kernel(positives: int, negatives: int = 100) -> types.SimpleNamespace:
    """A stand-in two-class decision kernel (what ``smaller_class`` reads)."""
    keys = np.repeat([0, 2], [positives, negatives])
    return types.SimpleNamespace(k=2, shape=(), keys=keys, m=4)


@pytest.mark.parametrize(
    ("few", "n_conditions", "method"),
    [
        (3, FEW_POSITIVE_T_CONDITIONS - 1, "t"),
        (1, FEW_POSITIVE_T_CONDITIONS - 1, "t"),
        (3, FEW_POSITIVE_T_CONDITIONS, "percentile"),
        (3, FEW_POSITIVE_PERCENTILE_CONDITIONS - 1, "percentile"),
        (3, FEW_POSITIVE_PERCENTILE_CONDITIONS, "bca"),
        (2, 150, "bca"),
        (FEW_POSITIVE_PERCENTILE_CLASS, FEW_POSITIVE_PERCENTILE_CONDITIONS, "percentile"),
        (FEW_POSITIVE_PERCENTILE_CLASS, 150, "percentile"),
    ],
)
def test_rule_boundaries(few: int, n_conditions: int, method: str) -> None:
    assert few_positive_method(few, n_conditions) == method


def test_rule_constants() -> None:
    # the study's thresholds (docs/validation.md)
    assert (FEW_POSITIVE_T_CONDITIONS, FEW_POSITIVE_PERCENTILE_CONDITIONS) == (16, 30)
    assert FEW_POSITIVE_PERCENTILE_CLASS == 1


def test_pairs_and_methods_agree() -> None:
    ks = [kernel(3), kernel(3), kernel(40)]
    ia, ib = np.array([0, 0, 2]), np.array([1, 2, 2])
    for c, m in ((8, "t"), (20, "percentile"), (69, "bca")):
        got = few_positive_methods(ks, ia, ib, "f1", c)
        # a pair with a system of 3 positives is in the class; 40 and 40 is not
        assert got.tolist() == [m, m, ""]
        assert few_positive_pairs(ks, ia, ib, "f1", c).tolist() == [m != "t", m != "t", False]
    # without n_conditions: session 11's rule (every pair of the class leaves t)
    assert few_positive_pairs(ks, ia, ib, "f1").tolist() == [True, True, False]
    assert not few_positive_methods(ks, ia, ib, "mcc", 20).any()


def paired_f1(n_conditions: int, positives: int = 3, method: str = "auto") -> mlci.Comparison:
    """A paired F1 difference of 200 samples with ``positives`` positives over
    ``n_conditions`` equal conditions."""
    g = np.random.default_rng(7)
    n = 200
    y = np.zeros(n, dtype=int)
    y[g.choice(n, positives, replace=False)] = 1
    a = y.copy()
    a[g.choice(np.flatnonzero(y == 0), 3, replace=False)] = 1
    b = a.copy()
    b[np.flatnonzero(y == 1)[0]] = 0
    b[g.choice(np.flatnonzero(y == 0), 4, replace=False)] = 1
    cond = np.arange(n) % n_conditions
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mlci.compare(
            y,
            {"a": a, "b": b},
            metric="f1",
            method=method,
            conditions=cond,
            n_resamples=300,
            rng=1,
        )


@pytest.mark.parametrize(
    ("n_conditions", "positives", "method", "clause"),
    [
        (10, 3, "t", "t kept for the difference(s) a - b"),
        (20, 3, "percentile", "percentile for the difference(s) a - b"),
        (40, 3, "bca", "bca for the difference(s) a - b"),
        (40, 1, "percentile", "percentile for the difference(s) a - b"),
    ],
)
def test_public_rule(n_conditions: int, positives: int, method: str, clause: str) -> None:
    res = paired_f1(n_conditions, positives)
    d = res.difference("a", "b")
    assert d.method == method
    assert clause in res.details["method_reason"]
    # the same interval as asking for the method
    ref = paired_f1(n_conditions, positives, method).difference("a", "b")
    np.testing.assert_allclose(d.confidence_interval, ref.confidence_interval, rtol=1e-12)


def test_reproducer_seed17_57() -> None:
    """Seed-17 decision #57 (113 samples, about 3 positives, 8 conditions, ICC 0.33), test
    set 12 of search17's confirmation (draw seed 18, 1 positive): BCa [0.692, 0.867] above
    the truth 0.466 (before); ``auto`` now keeps the t interval, which covers, and warns."""
    ds = load_script("design_search.py")
    d = ds.random_design(57, 17)
    pop = ds.Population(d)
    x = pop.draw(np.random.default_rng([18, 57, 12]))
    assert int(x["y"].sum()) == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mlci.compare(
            x["y"],
            {"a": x["a"], "b": x["b"]},
            metric="f1",
            conditions=x["conditions"],
            n_resamples=200,
            rng=0,
        )
    r = res.difference("a", "b")
    assert r.method == "t"
    assert "t kept" in res.details["method_reason"]
    assert any(issubclass(w.category, mlci.MlciWarning) for w in caught)
    lo, hi = r.confidence_interval
    assert lo <= pop.truth <= hi
    assert abs(pop.truth - 0.46623504014074885) < 1e-12


def test_fingerprint_outside_unchanged() -> None:
    """The fingerprint's rows outside the class (F1 with 5 or more positives over
    conditions, F1 with few positives iid, MCC / accuracy / precision with few positives
    over conditions) give the results of before the change
    (``scripts/edge_f1_fingerprint.py``, its JSON from the tree before)."""
    fp = load_script("edge_f1_fingerprint.py")
    with open(SCRIPTS / "data" / "edge_f1_fingerprint_before.json") as f:
        before = json.load(f)
    fp.CASES = fp.CASES[:12:2]  # every other case outside (cheap at CI scale)
    now = fp.fingerprint()
    checked = 0
    for name, *_, f1c in fp.CASES:
        for row, old in zip(now[name], before[name], strict=True):
            if fp.inside(old, f1c):
                continue
            assert row[0] == old[0], name
            np.testing.assert_allclose(row[1:], old[1:], rtol=1e-9, err_msg=name)
            checked += 1
    assert checked >= 30


def test_fingerprint_inside_follows_the_rule() -> None:
    """Inside the class the stored fingerprint (after the change) follows the rule: t
    over 8 conditions, the percentile interval over 20, BCa with 2-4 positives over 30
    or more, the percentile interval with one positive (a pair the skewness rule switched
    keeps its BCa)."""
    fp = load_script("edge_f1_fingerprint.py")
    with open(SCRIPTS / "data" / "edge_f1_fingerprint_after.json") as f:
        after = json.load(f)
    seen = set()
    for name, _, _, repl, _, f1c in fp.CASES:
        c = repl.get("n_conditions", 69 if "s15" in name or "69" in name else 8)
        for row in after[name]:
            if fp.inside(row, f1c) and row[3] > 0:
                assert row[0] in (few_positive_method(row[3], c), "bca"), (name, row)
                seen.add(row[0])
    assert seen == {"t", "bca", "percentile"}


def test_study_numbers_in_the_docs() -> None:
    """The docs' numbers come from ``scripts/data/edge_f1_study.json`` (the before run)
    and ``scripts/edge_f1_rules.py``'s scoring of it."""
    rules = load_script("edge_f1_rules.py")
    with open(SCRIPTS / "data" / "edge_f1_study.json") as f:
        run = json.load(f)["runs"]["before"]
    ev = rules.evaluate(rules.expand(run["cells"]))
    assert len(ev) == 43
    cell = ev["s17#57 C=8 icc=0.33"]
    assert (round(cell["t"], 3), round(cell["bca"], 3), round(cell["percentile"], 3)) == (
        0.909,
        0.789,
        0.876,
    )

    def score(name: str) -> tuple[int, float]:
        gaps = [e["best"] - e["rule:" + name] for e in ev.values()]
        return sum(g > 0.01 for g in gaps), round(max(gaps), 3)

    assert score("bca (s11)") == (36, 0.165)
    assert score("t below 16, else pct below 30 or with 1 positive") == (5, 0.037)
    # the rule as implemented is the rule scored
    for e in run["cells"].values():
        for r in rules.expand({"c": e})["c"]["rows"][:20]:
            if r["positives"] < 5 and 0 < r["positives"]:
                want = rules.RULES["t below 16, else pct below 30 or with 1 positive"](r)
                assert few_positive_method(r["positives"], r["conditions"]) == want
