"""``method="auto"``'s BCa for the ROC AUC near 1 over conditions (session 12, aucedge):
:func:`mlci.engine.auc_misranked.misordered_few_conditions_bca` (one AUC) and
:func:`mlci.engine.auc_misranked.few_misordered_pairs` (a paired difference), and the
results they must leave alone.

The study is ``scripts/auc_edge_study.py`` (docs/validation.md, "The ROC AUC near 1 over
conditions: BCa or t"); its fingerprint (``scripts/data/auc_edge_study_fingerprint.json``)
was computed on main 3e9ea9c, before the rules.
"""

from __future__ import annotations

import json
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

import mlci
from _scripts import SCRIPTS, load_script
from mlci.engine.auc_misranked import (
    MAX_BCA_MISRANKED_CONDITIONS,
    MAX_PAIRED_MISORDERED,
    MIN_BCA_CONDITIONS,
    MIN_BCA_MISORDERED,
    MIN_PAIRED_AUC_CONDITIONS,
    MIN_PAIRED_SMALLER_CLASS,
    PAIRED_AUC_BAND,
    few_misordered_pairs,
    misordered_few_conditions_bca,
    misordered_pair_count,
    misranked_conditions,
)
from mlci.metrics.ranking import RocAucKernel


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.integers(0, 6)), min_size=2, max_size=40).filter(
        lambda v: 0 < sum(p for p, _ in v) < len(v)
    )
)
def test_misordered_pair_count_is_sklearns(v: list[tuple[bool, int]]) -> None:
    y = np.array([int(p) for p, _ in v])
    s = np.array([float(x) for _, x in v])
    # reference: (1 - AUC) n_pos n_neg with scikit-learn's AUC (ties count half)
    ref = (1.0 - roc_auc_score(y, s)) * y.sum() * (len(y) - y.sum())
    assert misordered_pair_count(RocAucKernel(y, s)) == pytest.approx(ref, abs=1e-9)


def outlier_set(
    n_bad: int = 1, overlap: float = 0.01, n_cond: int = 40, per_class: int = 2000
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``per_class`` negatives in [0, 1] and positives in [2, 3]; ``n_bad`` negatives (in
    conditions 0, 1, ...) raised to ``2 + overlap``, above the lowest positives; samples
    assigned to conditions in turn."""
    y = np.r_[np.zeros(per_class, dtype=int), np.ones(per_class, dtype=int)]
    s = np.r_[np.linspace(0, 1, per_class), np.linspace(2, 3, per_class)]
    s[:n_bad] = 2.0 + overlap
    return y, s, np.arange(2 * per_class) % n_cond


def single_rule(y: np.ndarray, s: np.ndarray, cond: np.ndarray, few: int = 10) -> str | None:
    return misordered_few_conditions_bca(
        RocAucKernel(y, s), SimpleNamespace(unit_of_sample=cond), few
    )


def test_single_rule_pairs_edge() -> None:
    # one negative above k positives: k misordered pairs (positives 1/1999 apart)
    step = 1.0 / 1999
    below = single_rule(*outlier_set(overlap=(MIN_BCA_MISORDERED - 1.5) * step))
    at = single_rule(*outlier_set(overlap=(MIN_BCA_MISORDERED - 0.5) * step))
    assert below is None
    assert at is not None and at.startswith("bca")


def test_single_rule_conditions_edges() -> None:
    # misranked negatives in 3 conditions switch, in 4 do not (the positives they outrank
    # lie in ~20 conditions)
    y, s, c = outlier_set(n_bad=MAX_BCA_MISRANKED_CONDITIONS)
    assert min(misranked_conditions(RocAucKernel(y, s), c)) == MAX_BCA_MISRANKED_CONDITIONS
    assert single_rule(y, s, c) is not None
    assert single_rule(*outlier_set(n_bad=MAX_BCA_MISRANKED_CONDITIONS + 1)) is None
    # over fewer than MIN_BCA_CONDITIONS conditions: never
    assert single_rule(*outlier_set(n_cond=MIN_BCA_CONDITIONS)) is not None
    assert single_rule(*outlier_set(n_cond=MIN_BCA_CONDITIONS - 1)) is None
    # independent samples: never
    y, s, _ = outlier_set()
    assert (
        misordered_few_conditions_bca(RocAucKernel(y, s), SimpleNamespace(unit_of_sample=None), 10)
        is None
    )


def test_single_rule_band_and_class_size() -> None:
    # 100 per class: one negative above every positive is 100 of 10,000 pairs, 1 - AUC =
    # 0.01, outside the band; above 60 of them (0.006) inside
    assert single_rule(*outlier_set(overlap=1.5, per_class=100)) is None
    assert single_rule(*outlier_set(overlap=0.6, per_class=100)) is not None
    # a smaller class below the caller's size: never
    assert single_rule(*outlier_set(overlap=0.6, per_class=100), few=101) is None


def paired_kernels(worse: int, per_neg: int = 1000, n_pos: int = 80) -> list[RocAucKernel]:
    """System a: 1 misordered pair; system b: ``worse`` (one negative above ``worse``
    positives)."""
    y = np.r_[np.zeros(per_neg, dtype=int), np.ones(n_pos, dtype=int)]
    base = np.r_[np.linspace(0, 1, per_neg), np.arange(n_pos, dtype=float) + 2.0]
    a, b = base.copy(), base.copy()
    a[0] = 2.5  # above 1 positive
    b[0] = 2.0 + worse - 0.5  # above `worse` positives
    return [RocAucKernel(y, a), RocAucKernel(y, b)]


def test_paired_rule_edges() -> None:
    one, zero = np.array([0]), np.array([1])
    n = int(MAX_PAIRED_MISORDERED)
    # 80 x 1000 pairs: band 0.002 is 160 pairs; the worse system's count decides
    assert few_misordered_pairs(paired_kernels(n - 1), one, zero, 20)[0].tolist() == [True]
    assert few_misordered_pairs(paired_kernels(n), one, zero, 20)[0].tolist() == [False]
    # 80 x 300 pairs: 49 misordered pairs is 1 - AUC = 0.0020 >= PAIRED_AUC_BAND
    ks = paired_kernels(n - 1, per_neg=300)
    assert (n - 1) >= PAIRED_AUC_BAND * 300 * 80
    assert few_misordered_pairs(ks, one, zero, 20)[0].tolist() == [False]
    # a kernel that is not a ROC AUC: never
    other = SimpleNamespace(name="average_precision", m_neg=1, keys=np.zeros(3, dtype=int), m=2)
    assert few_misordered_pairs([other, ks[0]], one, zero, 20)[0].tolist() == [False]
    # fewer conditions than MIN_PAIRED_AUC_CONDITIONS, or none known: never
    ok = paired_kernels(n - 1)
    assert few_misordered_pairs(ok, one, zero, MIN_PAIRED_AUC_CONDITIONS)[0].tolist() == [True]
    assert not few_misordered_pairs(ok, one, zero, MIN_PAIRED_AUC_CONDITIONS - 1)[0].any()
    assert not few_misordered_pairs(ok, one, zero, None)[0].any()
    # a smaller class below MIN_PAIRED_SMALLER_CLASS: never
    small = paired_kernels(3, n_pos=MIN_PAIRED_SMALLER_CLASS - 1, per_neg=5000)
    assert not few_misordered_pairs(small, one, zero, 20)[0].any()


def test_public_single_gets_bca_and_warns() -> None:
    y, s, c = outlier_set(overlap=0.02)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = mlci.bootstrap_ci(y, s, metric="roc_auc", conditions=c, n_resamples=200, rng=0)
    assert r.method == "bca"
    assert "misordered" in r.details["method_reason"]
    assert any(issubclass(x.category, mlci.MlciWarning) for x in w)
    # the same data without conditions: not this rule
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iid = mlci.bootstrap_ci(y, s, metric="roc_auc", n_resamples=200, rng=0)
    assert "misordered (positive, negative) pairs" not in str(iid.details.get("method_reason"))


def test_public_paired_gets_bca() -> None:
    g = np.random.default_rng(3)
    n_neg, n_pos = 1500, 40
    y = np.r_[np.zeros(n_neg, dtype=int), np.ones(n_pos, dtype=int)]
    a = np.r_[g.normal(0, 1, n_neg), g.normal(6, 0.5, n_pos)]
    b = a.copy()
    b[np.argsort(a[:n_neg])[-3:]] += 2.5  # three negatives among the top positives
    a[np.argmax(a[:n_neg])] = a[n_neg:].min() + 1e-3  # a: one negative above one positive
    cond = g.integers(0, 40, n_neg + n_pos)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mlci.compare(
            y, {"a": a, "b": b}, metric="roc_auc", conditions=cond, n_resamples=200, rng=1
        )
    ks = [RocAucKernel(y, a), RocAucKernel(y, b)]
    mask, worse = few_misordered_pairs(ks, np.array([0]), np.array([1]), 40)
    assert mask.tolist() == [True] and 1 <= worse[0] < MAX_PAIRED_MISORDERED
    assert res.difference("a", "b").method == "bca"
    assert "misordered (positive, negative) pairs" in res.details["method_reason"]


S16_57_RESCUED = [0, 1, 16, 53]  # before: t missed, BCa covered (draw seed 17, B = 500)
S16_57_KEPT = [2, 15]  # the worse system with 118 and 61 misordered pairs: t kept


@pytest.mark.slow
@pytest.mark.parametrize("i", S16_57_RESCUED + S16_57_KEPT)
def test_regression_seed16_57(i: int) -> None:
    """Seed-16 #57 (a paired ROC AUC difference near 1 over 29 conditions), the test sets
    of ``scripts/data/design_search_seed16_pairs57.json``: where the rule switches, ``auto``
    is BCa and covers (the t interval missed); where the worse system has 50 misordered
    pairs or more it keeps t, as before.  Every one still warns."""
    ds = load_script("design_search.py")
    d = ds.random_design(57, 16)
    pop = ds.Population(d)
    g = np.random.default_rng([17, 57, i])
    x = pop.draw(g)
    r = ds.intervals(d, x, seed=int(g.integers(2**31)), B=500)
    assert r["warned"]
    with open(SCRIPTS / "data" / "design_search_seed16_pairs57.json") as f:
        before = {row["i"]: row for row in json.load(f)["pairs"]["s16#57@17"]["rows"]}[i]
    if i in S16_57_RESCUED:
        assert before["method"] == "t" and not before["auto"] and before["bca"]
        assert r["auto_method"] == "bca" and r["auto"] == r["bca"]
        assert r["auto"][0] <= pop.truth <= r["auto"][1]
    else:
        assert r["auto_method"] == before["method"] == "t"
        assert (r["auto"][0] <= pop.truth <= r["auto"][1]) == before["auto"]


@pytest.mark.slow
def test_fingerprint_unchanged() -> None:
    """33 results outside the classes (iid AUC near 1, AUC 0.9-0.999 over conditions or
    over 10 conditions, paired AUC 0.9-0.99, paired AUC iid) as on main before the rules."""
    study = load_script("auc_edge_study.py")
    with open(SCRIPTS / "data" / "auc_edge_study_fingerprint.json") as f:
        before = json.load(f)["cases"]
    now = study.fingerprint()
    assert set(now) == set(before)
    for name, rows in before.items():
        assert [r[0] for r in now[name]] == [r[0] for r in rows], name
        np.testing.assert_allclose(
            [r[1:] for r in now[name]], [r[1:] for r in rows], rtol=1e-9, err_msg=name
        )
