"""Frequency weights (mlci.frequency_weights): a count per row, the interval of repeated
rows; plain sample_weight: a weight per row resampled as one unit (issue 20, item 3).

References: Stata's ``[fweight=]`` (a row of weight k is k observations) vs ``[pweight=]``
(sampling weights; invariant to scaling), Stata User's Guide [U] 11.1.6 "weight"; the law
of the row counts of a bootstrap of N = sum(w) repeated rows is Multinomial(N, w / N)
(Efron & Tibshirani 1993, ch. 6: n draws with replacement).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd
import pytest

import mlci

G = np.random.default_rng(11)
N = 90
Y = (G.random(N) < 0.4).astype(int)
Y[:5], Y[5:10] = 1, 0
PRED = np.where(G.random(N) < 0.8, Y, 1 - Y)
SCORE = np.round(Y + G.standard_normal(N), 1)  # ties
W = G.integers(0, 4, N)  # some rows absent (count 0)
W[:10] = np.maximum(W[:10], 1)
COND = G.integers(0, 24, N)
FW = mlci.frequency_weights(W)


def rep(a: np.ndarray) -> np.ndarray:
    return np.repeat(a, W, axis=0)


@pytest.mark.parametrize(
    ("metric", "x"),
    [
        ("accuracy", PRED),
        ("f1", PRED),
        ("mcc", PRED),
        ("roc_auc", SCORE),
        ("average_precision", SCORE),
    ],
)
@pytest.mark.parametrize("design", ["iid", "conditions", "strata", "two_stage", "bca"])
def test_bootstrap_ci_equals_repeated_rows(metric: str, x: np.ndarray, design: str) -> None:
    # the gate repeats the rows: the same samples, so the same replicates and interval
    # (bit for bit), whatever the method auto picks
    kw: dict = {"rng": 4, "n_resamples": 300}
    kw_rep = dict(kw)
    if design in ("conditions", "two_stage"):
        kw["conditions"], kw_rep["conditions"] = COND, rep(COND)
        design_ = mlci.Resampling(two_stage=design == "two_stage")
        kw["resampling"] = kw_rep["resampling"] = design_
    if design == "strata":
        kw["strata"], kw_rep["strata"] = Y, rep(Y)
    if design == "bca":
        kw["method"] = kw_rep["method"] = "bca"
    # f1 and mcc over the 24 conditions: the smaller class fills 12.9 effective
    # conditions, below 20, and both forms warn (engine/auto.py, clustered_class_rule)
    warned = design == "conditions" and metric in ("f1", "mcc")
    # average precision: the negatives' score ranks vary between the conditions (ICC
    # 0.27 over 17.5 effective conditions; engine/auc_class.py, clustered_ap_rule)
    shift = design in ("conditions", "two_stage") and metric == "average_precision"
    expect = (
        pytest.warns(mlci.FewConditionsWarning, match="fill only 12.9 effective conditions")
        if warned
        else pytest.warns(mlci.FewConditionsWarning, match="ICC of their ranks 0.27")
        if shift
        else contextlib.nullcontext()
    )
    with np.errstate(all="ignore"), expect:
        r = mlci.bootstrap_ci(Y, x, metric=metric, sample_weight=FW, **kw)
        s = mlci.bootstrap_ci(rep(Y), rep(x), metric=metric, **kw_rep)
    assert r.method == s.method
    assert r.estimate == s.estimate
    np.testing.assert_array_equal(r.bootstrap_distribution, s.bootstrap_distribution)
    assert r.confidence_interval == s.confidence_interval
    assert r.n_samples == int(W.sum())


def test_compare_and_scores_equal_repeated_rows() -> None:
    systems = {"a": SCORE, "b": np.round(0.5 * Y + G.standard_normal(N), 2)}
    r = mlci.compare(Y, systems, metric="roc_auc", sample_weight=FW, rng=1, n_resamples=200)
    s = mlci.compare(
        rep(Y), {k: rep(v) for k, v in systems.items()}, metric="roc_auc", rng=1, n_resamples=200
    )
    assert r.difference("a", "b").confidence_interval == s.difference("a", "b").confidence_interval
    # Scores: conditions are given per row (as the weights), after the object is built
    sc = mlci.Scores.from_labels(Y, SCORE, sample_weight=FW)
    sr = mlci.Scores.from_labels(rep(Y), rep(SCORE))
    a = mlci.auc_ci(sc, conditions=COND, rng=2, n_resamples=200)
    b = mlci.auc_ci(sr, conditions=rep(COND), rng=2, n_resamples=200)
    assert sc == sr
    assert a.confidence_interval == b.confidence_interval


def test_row_counts_follow_the_law_of_repeated_rows() -> None:
    # the per-row counts of a replicate: Multinomial(sum w, w / sum w) for frequency
    # weights (mean w_i, variance N p_i (1 - p_i), covariance -N p_i p_j); for plain
    # weights the row is one unit: w_i times a Multinomial(n, 1/n) count
    w = np.array([1, 2, 3, 5, 9])
    n_tot, p = w.sum(), w / w.sum()
    row = np.arange(len(w))

    def counts(rows, sample_weight):
        return np.bincount(rows.astype(int), weights=sample_weight, minlength=len(w))

    b = 4000
    with np.errstate(all="ignore"):
        f = mlci.bootstrap_ci(
            row, metric=counts, sample_weight=mlci.frequency_weights(w), rng=0,
            n_resamples=b, method="percentile",
        ).bootstrap_distribution  # fmt: skip
        u = mlci.bootstrap_ci(
            row, metric=counts, sample_weight=w, rng=0, n_resamples=b, method="percentile"
        ).bootstrap_distribution
    assert (f.sum(axis=1) == n_tot).all()
    np.testing.assert_allclose(f.mean(axis=0), w, atol=4 * np.sqrt(n_tot / b))
    cov = n_tot * (np.diag(p) - np.outer(p, p))  # the multinomial's covariance
    np.testing.assert_allclose(np.cov(f.T), cov, atol=0.1 * n_tot * p.max())
    # plain weights: the largest row's count is 9 x Binomial(5, 1/5), variance 81 * 0.8
    assert u[:, 4].var() == pytest.approx(81 * 5 * 0.2 * 0.8, rel=0.1)
    assert f[:, 4].var() == pytest.approx(n_tot * p[4] * (1 - p[4]), rel=0.1)


# few positives: the AUC's class-size warning (MIN_AUC_CLASS) is tested in
# tests/engine/test_auc_few_class.py
@pytest.mark.filterwarnings(r"ignore:Only \d+ samples in the smaller class of a ROC AUC")
def test_plain_weights_are_scale_invariant() -> None:
    # survey/importance semantics: multiplying every weight by 7 changes nothing
    w = 0.5 + G.random(N)
    for metric, x in (("f1", PRED), ("roc_auc", SCORE)):
        a = mlci.bootstrap_ci(Y, x, metric=metric, sample_weight=w, rng=3, n_resamples=300)
        b = mlci.bootstrap_ci(Y, x, metric=metric, sample_weight=7 * w, rng=3, n_resamples=300)
        np.testing.assert_allclose(a.confidence_interval, b.confidence_interval, rtol=1e-9)


def test_column_name_and_dropna() -> None:
    df = pd.DataFrame({"y": Y.astype(float), "p": PRED, "n": W})
    df.loc[3, "y"] = np.nan
    r = mlci.bootstrap_ci(
        "y", "p", data=df, metric="accuracy", sample_weight=mlci.frequency_weights("n"),
        dropna=True, rng=0, n_resamples=100,
    )  # fmt: skip
    keep = np.arange(N) != 3
    s = mlci.bootstrap_ci(
        np.repeat(Y[keep], W[keep]), np.repeat(PRED[keep], W[keep]), metric="accuracy",
        rng=0, n_resamples=100,
    )  # fmt: skip
    assert r.confidence_interval == s.confidence_interval
    assert r.details["n_dropped"] == 1
    assert "frequency_weights('n')" == repr(mlci.frequency_weights("n"))


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        ([1, 2.5, 1], "whole numbers >= 0; row 1 holds 2.5"),
        ([1, -1, 1], "whole numbers >= 0; row 1 holds -1"),
        ([0, 0, 0], "all zero"),
        ([1, np.nan, 1], "missing value"),
        ([1, np.inf, 1], "infinite"),
        (["a", "b", "c"], "numbers"),
        ([True, False, True], "not booleans"),
        (None, "required"),
        ([[1, 2], [3, 4]], "1-d"),
    ],
)
def test_bad_frequency_weights_are_refused(bad, match) -> None:
    with pytest.raises((ValueError, TypeError), match=match) as err:
        mlci.frequency_weights(bad)
    assert "`sample_weight`" in str(err.value)


def test_bad_frequency_column_refused_at_the_gate() -> None:
    df = pd.DataFrame({"y": [0, 1, 1, 0], "p": [0, 1, 0, 0], "n": [1.0, 0.5, 2.0, 1.0]})
    with pytest.raises(ValueError, match=r"`sample_weight` \(frequency weights.*row 1 holds 0.5"):
        mlci.bootstrap_ci(
            "y", "p", data=df, metric="accuracy", sample_weight=mlci.frequency_weights("n")
        )
    with pytest.raises(ValueError, match=r"`sample_weight`.*has 3 samples"):
        mlci.bootstrap_ci([0, 1, 1, 0], [0, 1, 0, 0], metric="accuracy",
                          sample_weight=mlci.frequency_weights([1, 2, 3]))  # fmt: skip


def test_confusion_matrix_and_group_scores_equal_repeated_rows() -> None:
    a = mlci.ConfusionMatrix(Y, PRED, sample_weight=FW)
    b = mlci.ConfusionMatrix(rep(Y), rep(PRED))
    # the smaller class fills 12.9 effective conditions of 24: warned (engine/auto.py)
    with pytest.warns(mlci.FewConditionsWarning, match="fill only 12.9 effective conditions"):
        ra = a.bootstrap_ci("f1", rng=0, n_resamples=200, conditions=COND)
        rb = b.bootstrap_ci("f1", rng=0, n_resamples=200, conditions=rep(COND))
    np.testing.assert_array_equal(ra.confidence_interval.low, rb.confidence_interval.low)
    np.testing.assert_array_equal(ra.confidence_interval.high, rb.confidence_interval.high)
    # groups are given per row, like the weights
    groups = np.arange(N) % 3
    ga = mlci.GroupScores.from_labels(Y, SCORE, groups=groups, sample_weight=FW)
    gb = mlci.GroupScores.from_labels(rep(Y), rep(SCORE), groups=rep(groups))
    np.testing.assert_array_equal(ga.pos_groups, gb.pos_groups)
    np.testing.assert_array_equal(ga.pos, gb.pos)


def test_expansion_beyond_max_memory_is_refused_with_a_way_out():
    # 3 rows counted a million times each: 3e6 samples of two float64 columns (~69 MiB)
    # exceed a 16 MiB max_memory; the error names the argument and both ways on
    y, pred = np.array([0, 1, 1]), np.array([0, 1, 0])
    w = mlci.frequency_weights([10**6, 10**6, 10**6])
    with mlci.config_context(max_memory=16 * 2**20):
        with pytest.raises(MemoryError, match=r"`sample_weight`.*3000000 samples.*config_context"):
            mlci.bootstrap_ci(y, pred, metric="accuracy", sample_weight=w, rng=0)
    # within the limit the same call runs
    small = mlci.frequency_weights([300, 200, 100])
    res = mlci.bootstrap_ci(y, pred, metric="accuracy", sample_weight=small, rng=0, n_resamples=200)
    assert res.estimate == pytest.approx(500 / 600)
