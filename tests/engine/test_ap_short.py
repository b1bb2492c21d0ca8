"""Average precision's near-top rule (session 12, apshort): an estimate above 0.9 from
10-49 positives, where ``auto`` keeps BCa, warns (``mlci.engine.ap_misranked``); nothing
else moves.

Evidence: ``scripts/ap_short_study.py`` (``scripts/data/ap_short_study_*.json``;
docs/validation.md, "Average precision at 0.8-0.9 with heavy-tailed scores (session 12,
apshort)").  Fingerprint: ``scripts/data/ap_short_fingerprint.json``, written by the same
script on main at 3e9ea9c (before the rule).
"""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest

import mlci
from _scripts import SCRIPTS, load_script
from mlci.engine.ap_misranked import (
    MIN_NEAR_TOP_POSITIVES,
    NEAR_TOP_ESTIMATE,
    few_positives_near_top_rule,
    warn_few_misranked_ap,
)

SCALE = float(os.environ["MLCI_SLOW_SCALE"])


@pytest.mark.parametrize(
    ("estimate", "n_pos", "fires"),
    [
        (0.9, 25, False),  # the estimate must pass 0.9
        (np.nextafter(0.9, 1.0), 25, True),
        (0.95, 49, True),
        (0.95, 50, False),  # 50 positives: the logit jackknife's range (ap_interval.py)
        (0.95, MIN_NEAR_TOP_POSITIVES, True),
        (0.95, MIN_NEAR_TOP_POSITIVES - 1, False),  # auto.py's few-positive rule's range
        (1.0, 30, True),
        (float("nan"), 30, False),
        (None, 30, False),
        (0.95, None, False),
    ],
)
def test_rule_edges(estimate, n_pos, fires):
    assert few_positives_near_top_rule(estimate, n_pos) is fires


def test_message_and_class():
    diag = {"estimate": 0.94, "misranked_positives": 6, "n_positive": 24}
    with pytest.warns(mlci.NearBoundWarning) as rec:
        text = warn_few_misranked_ap(diag, "bca")
    assert text is not None and "from 24 positives (fewer than 50, above 0.9)" in text
    assert text.endswith("treat it as optimistic, or collect more data.")
    assert len(rec) == 1
    # the misranked rule's message keeps its place above 0.96 with 20+ positives
    with pytest.warns(mlci.NearBoundWarning):
        assert "outranked" in warn_few_misranked_ap({**diag, "estimate": 0.97})
    # and 0.9 or below stays quiet
    assert warn_few_misranked_ap({**diag, "estimate": NEAR_TOP_ESTIMATE}) is None


def _t3_test_set(seed: int):
    """A test set of the study's first cell (t(3) scores, population AP 0.8, prevalence
    0.1, n = 200), as ``scripts/ap_short_study.py`` draws it."""
    study = load_script("ap_short_study.py")
    cell = study.cells()[0]
    g = np.random.default_rng(seed)
    y = g.random(cell["n"]) < study.PREVALENCE
    s = study.DISTS["t3"].rvs(size=cell["n"], random_state=g)
    return y.astype(int), s + study.shift_for(0.8, "t3") * y


def test_bootstrap_ci_and_compare_warn_alike():
    # study seed 120011: AP 0.952 from 29 positives, auto (BCa) [0.816, 0.997] misses the
    # population's 0.8 and was silent before the rule
    y, s = _t3_test_set(120_011)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mlci.bootstrap_ci(y, s, metric="average_precision", n_resamples=500, rng=120_011)
    assert res.method == "bca" and res.confidence_interval[0] > 0.8
    texts = [str(w.message) for w in caught if w.category is mlci.NearBoundWarning]
    assert len(texts) == 1 and "from 29 positives" in texts[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        other = s + np.random.default_rng(1).standard_normal(len(s))
        kw = {"metric": "average_precision", "n_resamples": 200, "rng": 0}
        mlci.compare(y, {"a": s, "b": other}, **kw)
    assert any("System 'a': Average precision of" in str(w.message) for w in caught)


def test_fingerprint_unchanged():
    """36 ``auto`` results (four score families, AP 0.5-0.99, 6-127 positives): intervals
    and methods as on main; warnings as on main outside the near-top class, and inside it
    main's warnings with the near-top message added where no earlier one spoke."""
    study = load_script("ap_short_study.py")
    with open(SCRIPTS / "data" / "ap_short_fingerprint.json") as f:
        before = json.load(f)["cases"]
    now = study.fingerprint()
    assert set(now) == set(before)
    changed = 0
    for shape, rows in before.items():
        for old, new in zip(rows, now[shape], strict=True):
            assert old[:2] == new[:2], (shape, old, new)
            np.testing.assert_allclose(old[3:], new[3:], rtol=1e-12, err_msg=str(old[:2]))
            n_pos = int(old[0].split("/")[1])
            if old[2] != new[2]:
                changed += 1
                assert few_positives_near_top_rule(old[3], n_pos), (shape, old, new)
                added = sorted(set(new[2]) - set(old[2]))
                assert set(old[2]) <= set(new[2]) and len(added) == 1
                assert added[0].startswith("NearBoundWarning: Average precision of")
    assert changed == 5  # the five in the class that main left silent (or degenerate)


@pytest.mark.slow
def test_reproducer_t3_short_cell():
    """The study's t(3) cell (AP 0.8, 20 positives): its first test sets reproduce, and
    the stored cell (300 test sets) covers 0.827 with the rule warning most misses."""
    study = load_script("ap_short_study.py")
    with open(SCRIPTS / "data" / "ap_short_study_a.json") as f:
        cell = json.load(f)[0]
    assert (cell["shape"], cell["ap"], cell["positives"]) == ("t3", 0.8, 20)
    for rep in range(max(3, int(30 * SCALE))):
        seed = 120_000 + rep
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            row = study.one(study.cells()[0], np.random.default_rng(seed), seed)
        stored = cell["rows"][rep]
        np.testing.assert_allclose(row["est"], stored["est"], rtol=1e-4)
        np.testing.assert_allclose(row["auto"], stored["auto"], rtol=1e-4)
    rows = [r for r in cell["rows"] if r]
    cov = np.array([r["auto"][0] <= 0.8 <= r["auto"][1] for r in rows])
    warned = np.array(
        [bool(r["warned"]) or few_positives_near_top_rule(r["est"], r["npos"]) for r in rows]
    )
    assert cov.mean() < 0.87
    assert warned[~cov].mean() > 0.8 and cov[~warned].mean() > 0.935


def test_study_rule_is_the_library_rule():
    """The study applies the rule to rows main's code ran: the same rule."""
    study = load_script("ap_short_study.py")
    for est in (0.85, 0.9, 0.9001, 0.95, 0.99, 1.0):
        for n_pos in (5, 9, 10, 20, 49, 50, 120):
            row = {"est": est, "npos": n_pos}
            assert study.near_top_rule(row) == few_positives_near_top_rule(est, n_pos)
