"""Weighted samples per group: GroupScores(sample_weight=) and metric_by_group(sample_weight=)
against scikit-learn's weighted metrics on each group (to 1e-12), and the CLI's
``--weight`` with ``--group``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import precision_score, recall_score, roc_auc_score

import mlci
from mlci.cli import main

RNG = np.random.default_rng(3)
N = 400
Y = RNG.integers(0, 2, N)
S = Y + RNG.normal(0, 1.2, N)
G = RNG.choice(["x", "y", "z"], N)
W = RNG.uniform(0, 3, N)
T = 0.4
FAST = {"rng": 0, "n_resamples": 60}

# reference (scikit-learn, weighted): decided positive when score >= T
REF = {
    "tpr": lambda y, s, w: recall_score(y, s >= T, sample_weight=w),
    "fpr": lambda y, s, w: 1 - recall_score(1 - y, s < T, sample_weight=w),
    "ppv": lambda y, s, w: precision_score(y, s >= T, sample_weight=w),
}


def _by_group(fn):
    vals = [fn(Y[G == g], S[G == g], W[G == g]) for g in ("x", "y", "z")]
    return np.array([*vals, fn(Y, S, W)])


@pytest.mark.parametrize("metric", sorted(REF))
def test_metric_by_group_weighted_matches_sklearn(metric):
    res = mlci.metric_by_group(
        Y, S, groups=G, metric=metric, threshold=T, sample_weight=W, **FAST
    ).to_frame()
    np.testing.assert_allclose(res["estimate"], _by_group(REF[metric]), rtol=0, atol=1e-12)
    gs = mlci.GroupScores.from_labels(Y, S, groups=G, sample_weight=W)
    np.testing.assert_allclose(
        gs.group_metric(metric, T), _by_group(REF[metric])[:3], rtol=0, atol=1e-12
    )


def test_weighted_auc_per_group_matches_sklearn():
    res = mlci.metric_by_group(Y, S, groups=G, metric="auc", sample_weight=W, **FAST).to_frame()
    ref = _by_group(lambda y, s, w: roc_auc_score(y, s, sample_weight=w))
    np.testing.assert_allclose(res["estimate"], ref, rtol=0, atol=1e-12)
    gs = mlci.GroupScores.from_labels(Y, S, groups=G, sample_weight=W)
    res2 = gs.metric_ci("auc", **FAST).to_frame()
    np.testing.assert_allclose(res2[["estimate", "low", "high"]], res[["estimate", "low", "high"]])


def test_constant_weights_change_nothing():
    # every replicate's counts are multiplied by the weights: a constant weight cancels
    a = mlci.metric_by_group(Y, S, groups=G, threshold=T, **FAST).to_frame()
    b = mlci.metric_by_group(Y, S, groups=G, threshold=T, sample_weight=np.full(N, 2.5), **FAST)
    np.testing.assert_allclose(
        b.to_frame()[["estimate", "low", "high"]], a[["estimate", "low", "high"]], atol=1e-12
    )


def test_weights_change_the_interval_and_zero_weight_drops_a_sample():
    keep = np.ones(N, dtype=bool)
    keep[:40] = False
    w = keep.astype(float)
    a = mlci.metric_by_group(Y, S, groups=G, threshold=T, sample_weight=w, **FAST).to_frame()
    b = mlci.metric_by_group(Y[keep], S[keep], groups=G[keep], threshold=T, **FAST).to_frame()
    np.testing.assert_allclose(a["estimate"], b["estimate"], atol=1e-12)


def test_weighted_group_scores_resample_and_swap_keep_weights():
    gs = mlci.GroupScores.from_labels(Y, S, groups=G, sample_weight=W)
    b = gs.bootstrap_sample(rng=1, by_group=True)
    assert b._w is not None and len(b._w) == N
    np.testing.assert_allclose(gs.swap().group_metric("tnr", T), gs.group_metric("tpr", T))


def test_bad_weights_are_refused():
    with pytest.raises(ValueError, match="`sample_weight`"):
        mlci.metric_by_group(Y, S, groups=G, threshold=T, sample_weight=-W, **FAST)
    with pytest.raises(ValueError, match="`sample_weight`"):
        mlci.metric_by_group(Y, S, groups=G, threshold=T, sample_weight=W[:-1], **FAST)
    gs = mlci.GroupScores.from_labels(Y, S, groups=G, sample_weight=np.where(Y == 1, G != "x", 1.0))
    with pytest.raises(ValueError, match="`sample_weight` is zero on every positive"):
        gs["x"]
    with pytest.raises(TypeError, match="`sample_weight`"):
        gs.metric_ci("fnr", threshold=T, sample_weight=W)


def test_cli_weight_with_group(tmp_path, capsys):
    f = tmp_path / "w.csv"
    f.write_text(
        "y,s,g,w\n"
        + "".join(
            f"{a},{float(b)!r},{c},{float(d)!r}\n" for a, b, c, d in zip(Y, S, G, W, strict=True)
        )
    )
    argv = ["scores", str(f), "--label", "y", "--score", "s", "--group", "g", "--weight", "w"]
    code = main([*argv, "--group-metric", "auc", "-B", "60", "--seed", "0", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    rows = out["data"]["groups"]["s"] if "data" in out else out["groups"]["s"]
    ref = _by_group(lambda y, s, w: roc_auc_score(y, s, sample_weight=w))
    np.testing.assert_allclose([r["estimate"] for r in rows], ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("metric", ["fnr", "eer"])
def test_frequency_weights_are_the_repeated_rows(metric):
    # mlci.frequency_weights: row i is c[i] samples (a count of 0 leaves it out); the
    # groups are repeated with the rows.  It used to fail ("must have one weight per
    # sample ... got shape ()"): the gate had already expanded the rows
    c = RNG.integers(0, 3, N)
    kw = {"metric": metric, **FAST, **({"threshold": T} if metric == "fnr" else {})}
    got = mlci.metric_by_group(Y, S, groups=G, sample_weight=mlci.frequency_weights(c), **kw)
    ref = mlci.metric_by_group(np.repeat(Y, c), np.repeat(S, c), groups=np.repeat(G, c), **kw)
    assert got.rows() == ref.rows()
