"""``compare(sample_weight=)``: every system and difference weighted as scikit-learn's
``sample_weight`` (to 1e-12), on the same replicates as ``bootstrap_ci(sample_weight=)``;
and the command line's ``--weight`` (ci, compare, scores) against the same Python calls.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

import mlci
from mlci.cli import main

RNG = np.random.default_rng(21)
N = 300
Y = RNG.integers(0, 2, N)
A = np.where(RNG.random(N) < 0.85, Y, 1 - Y)
B = np.where(RNG.random(N) < 0.75, Y, 1 - Y)
SA, SB = Y + RNG.normal(0, 1, N), Y + RNG.normal(0, 1.5, N)
W = RNG.integers(1, 4, N).astype(float)


@pytest.mark.parametrize(
    ("metric", "fn", "a", "b"),
    [
        ("accuracy", skm.accuracy_score, A, B),
        ("f1", skm.f1_score, A, B),
        ("mcc", skm.matthews_corrcoef, A, B),
        ("roc_auc", skm.roc_auc_score, SA, SB),
    ],
)
def test_weighted_compare_matches_sklearn(metric, fn, a, b):
    res = mlci.compare(Y, {"A": a, "B": b}, metric=metric, sample_weight=W, rng=0,
                       n_resamples=200)  # fmt: skip
    ea, eb = fn(Y, a, sample_weight=W), fn(Y, b, sample_weight=W)
    assert res.systems["A"].estimate == pytest.approx(ea, abs=1e-12)
    assert res.difference("A", "B").estimate == pytest.approx(ea - eb, abs=1e-12)


def test_weighted_compare_has_the_spread_of_bootstrap_ci():
    # the joint atoms of two systems draw other random numbers than one system's atoms:
    # the same law, so the same standard error within Monte-Carlo error
    kw = dict(metric="accuracy", rng=3, n_resamples=2000, method="percentile")
    res = mlci.compare(Y, {"A": A, "B": B}, sample_weight=W, **kw)
    one = mlci.bootstrap_ci(Y, A, sample_weight=W, **kw)
    assert res.systems["A"].standard_error == pytest.approx(one.standard_error, rel=0.1)
    # paired difference: its spread is that of the per-replicate differences
    d = res.difference("A", "B")
    assert d.confidence_interval.low < d.estimate < d.confidence_interval.high
    unweighted = mlci.compare(Y, {"A": A, "B": B}, **kw)
    assert unweighted.systems["A"].estimate != res.systems["A"].estimate
    with pytest.raises(ValueError, match="`sample_weight` must be non-negative"):
        mlci.compare(Y, {"A": A, "B": B}, sample_weight=-W, **kw)


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "w.csv"
    pd.DataFrame({"label": Y, "a": A, "b": B, "sa": SA, "w": W}).to_csv(path, index=False)
    return str(path)


def _json(capsys, argv):
    code = main([*argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_cli_weight(capsys, table):
    (r,) = _json(capsys, ["ci", table, "--label", "label", "--pred", "a", "--metric", "f1",
                          "--weight", "w", "-B", "200", "--seed", "1"])  # fmt: skip
    ref = mlci.bootstrap_ci(Y, A, metric="f1", sample_weight=W, n_resamples=200, rng=1)
    assert r["estimate"] == pytest.approx(skm.f1_score(Y, A, sample_weight=W), abs=1e-12)
    assert r["confidence_interval"]["low"] == pytest.approx(ref.confidence_interval.low)
    d = _json(capsys, ["compare", table, "--label", "label", "--systems", "a,b", "--metric",
                       "accuracy", "--weight", "w", "-B", "200", "--seed", "1"])  # fmt: skip
    ref = mlci.compare(Y, {"a": A, "b": B}, metric="accuracy", sample_weight=W,
                       n_resamples=200, rng=1)  # fmt: skip
    (pair,) = d["differences"]
    assert pair["estimate"] == pytest.approx(ref.difference("a", "b").estimate, abs=1e-12)
    assert pair["confidence_interval"]["low"] == pytest.approx(
        ref.difference("a", "b").confidence_interval.low
    )
    d = _json(capsys, ["scores", table, "--label", "label", "--score", "sa", "--weight", "w",
                       "-B", "100", "--seed", "1"])  # fmt: skip
    auc = next(q for q in d["scores"]["sa"] if q["quantity"] == "auc")
    assert auc["estimate"] == pytest.approx(skm.roc_auc_score(Y, SA, sample_weight=W), abs=1e-12)
