"""Weighted Scores (``Scores.from_labels(sample_weight=)``) and the new curve calls.

References: scikit-learn's ``roc_auc_score``, ``roc_curve``, ``confusion_matrix`` and
classification metrics with ``sample_weight`` (to 1e-12); an integer weight ``k`` equals
the sample repeated ``k`` times (every statistic, also those scikit-learn lacks).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import mlci
from mlci import Scores
from mlci.scores.curves import roc_curve, roc_with_ci
from mlci.scores.verification import cllr, detection_cost, min_detection_cost

RNG = np.random.default_rng(11)
N = 400
Y = RNG.integers(0, 2, N)
S = np.round(Y + RNG.normal(0, 1, N), 1)  # ties
W = RNG.uniform(0, 3, N)
K = RNG.integers(0, 4, N)  # integer weights, zeros included


def test_weighted_rates_match_sklearn():
    s = Scores.from_labels(Y, S, sample_weight=W)
    assert s.auc() == pytest.approx(skm.roc_auc_score(Y, S, sample_weight=W), abs=1e-12)
    for t in (-0.5, 0.3, 1.2):
        d = (S >= t).astype(int)
        ref = skm.confusion_matrix(Y, d, sample_weight=W, labels=[1, 0])
        np.testing.assert_allclose(s.cm(t).matrix, ref, atol=1e-12)
        for name, fn in (
            ("tpr", skm.recall_score),
            ("ppv", skm.precision_score),
            ("f1", skm.f1_score),
            ("mcc", skm.matthews_corrcoef),
            ("accuracy", skm.accuracy_score),
            ("balanced_accuracy", skm.balanced_accuracy_score),
        ):
            assert s.metric(name, t) == pytest.approx(fn(Y, d, sample_weight=W), abs=1e-12)
    fpr, tpr, _ = skm.roc_curve(Y, S, sample_weight=W, drop_intermediate=False)
    c = roc_curve(s)
    ours = {(round(x, 12), round(y, 12)) for x, y in zip(c.x, c.y, strict=True)}
    theirs = {(round(x, 12), round(y, 12)) for x, y in zip(fpr, tpr, strict=True)}
    assert theirs <= ours and ours - theirs <= {(0.0, 0.0)}


def test_integer_weights_equal_repeated_samples():
    s = Scores.from_labels(Y, S, sample_weight=K)
    r = Scores.from_labels(np.repeat(Y, K), np.repeat(S, K))
    assert s.eer() == pytest.approx(r.eer(), abs=1e-12)
    np.testing.assert_allclose(s.threshold_at_fpr([0.05, 0.3]), r.threshold_at_fpr([0.05, 0.3]))
    np.testing.assert_allclose(s.threshold_at_topr(0.4), r.threshold_at_topr(0.4))
    assert s.auc(0, 0.3) == pytest.approx(r.auc(0, 0.3), abs=1e-12)
    assert s.rate_at("fnr", at=0.1) == pytest.approx(r.rate_at("fnr", at=0.1), abs=1e-12)
    assert cllr(s) == pytest.approx(cllr(r), abs=1e-12)
    assert min_detection_cost(s, 0.1) == pytest.approx(min_detection_cost(r, 0.1), abs=1e-12)
    assert detection_cost(s, 0.1, threshold=0.5) == pytest.approx(
        detection_cost(r, 0.1, threshold=0.5), abs=1e-12
    )
    np.testing.assert_allclose(s.swap().fnr([0.2, 0.8]), r.swap().fnr([0.2, 0.8]))


@pytest.mark.filterwarnings(
    "ignore::mlci.FewResamplesWarning"
)  # few replicates: a fast check of equality, not of a level
# few positives: the AUC's class-size warning (MIN_AUC_CLASS) is tested in
# tests/engine/test_auc_few_class.py
@pytest.mark.filterwarnings(r"ignore:Only \d+ samples in the smaller class of a ROC AUC")
def test_weighted_bootstrap_multiplies_the_counts():
    s = Scores.from_labels(Y, S, sample_weight=W)
    res = s.bootstrap_ci("auc", rng=0, n_resamples=300)
    assert res.estimate == pytest.approx(skm.roc_auc_score(Y, S, sample_weight=W), abs=1e-12)
    assert res.confidence_interval.low < res.estimate < res.confidence_interval.high
    # the same replicates as the engine's built-in roc_auc with sample_weight
    ref = mlci.bootstrap_ci(Y, S, metric="roc_auc", sample_weight=W, rng=0,
                            resampling=mlci.Resampling(stratify=True),
                            n_resamples=300, method="percentile")  # fmt: skip
    own = s.bootstrap_ci("auc", rng=0, n_resamples=300, method="percentile")
    assert own.standard_error == pytest.approx(ref.standard_error, rel=0.2)
    eer = s.bootstrap_ci("eer", rng=0, n_resamples=200)
    assert eer.estimate == pytest.approx(s.eer().eer)
    # identity scheme: every replicate is the weighted statistic itself
    with pytest.warns(mlci.DegenerateIntervalWarning):
        ones = mlci.Resampling(sampler=lambda rng, b: np.ones((b, N)))
        one = s.bootstrap_ci("fnr", threshold=0.5, n_resamples=20, method="percentile",
                             resampling=ones)  # fmt: skip
    np.testing.assert_allclose(one.bootstrap_distribution, 1 - skm.recall_score(
        Y, S >= 0.5, sample_weight=W))  # fmt: skip


def test_weighted_scores_refusals_and_dropna():
    with pytest.raises(ValueError, match="`sample_weight` is zero on every positive"):
        Scores.from_labels([0, 1, 1], [0.1, 0.5, 0.7], sample_weight=[1, 0, 0])
    with pytest.raises(ValueError, match="`sample_weight` must be non-negative"):
        Scores.from_labels([0, 1], [0.1, 0.5], sample_weight=[1, -1])
    s = Scores.from_labels([0, 1, 1, 0], [0.1, 0.5, 0.7, 0.2], sample_weight=[1, 1, 1, 1])
    with pytest.raises(ValueError, match="function metric of weighted Scores"):
        s.bootstrap_ci(lambda x: x.auc())
    with pytest.raises(ValueError, match="`algorithm='lazy'`"):
        s.bootstrap_ci("eer", resampling=mlci.Resampling(algorithm="lazy"))
    # weights take part in equality
    assert s != Scores.from_labels([0, 1, 1, 0], [0.1, 0.5, 0.7, 0.2], sample_weight=[1, 2, 1, 1])
    assert s == Scores.from_labels([0, 1, 1, 0], [0.1, 0.5, 0.7, 0.2])
    d = Scores.from_labels([0, 1, 1, 0, 1], [0.1, np.nan, 0.7, 0.2, 0.4],
                           sample_weight=[1, 5, 2, 1, 1], dropna=True)  # fmt: skip
    assert d.n_dropped == 1
    assert d.tpr(0.5) == pytest.approx(2 / 3)  # weights follow their samples


def test_roc_curve_at_rates_and_axes():
    s = Scores.from_labels(Y, S)
    c = roc_curve(s, fpr=[0.1, 0.5], fnr=[0.2], thresholds=[0.0])
    assert len(c.x) == 4 and np.all(np.diff(c.x) >= 0)
    np.testing.assert_allclose(np.sort(c.thresholds),
                               np.sort(np.r_[0.0, s.threshold_at_fpr([0.1, 0.5]),
                                             s.threshold_at_fnr(0.2)]))  # fmt: skip
    for x_axis in ("fnr", "tpr", "tnr", "far", "frr"):
        c = roc_curve(s, x_axis=x_axis)
        assert np.all(np.diff(c.x) >= 0)
    c = roc_curve(s, x_axis="fnr", y_axis="tnr")
    np.testing.assert_allclose(c.y, s.tnr(c.thresholds))
    with pytest.raises(ValueError, match="`x_axis`"):
        roc_curve(s, x_axis="tpr", y_axis="fnr")
    with pytest.raises(ValueError, match="either `n_points`"):
        roc_curve(s, n_points=10, fpr=[0.1])


def test_roc_with_ci_is_the_operating_point_band():
    s = Scores.from_labels(Y, S)
    kw = dict(rng=2, n_resamples=200, method="percentile")
    band = roc_with_ci(s, fnr=[0.1, 0.3], **kw)
    # the engine's weights sampler (operating_point_ci's default is the lazy one)
    rate = s.bootstrap_ci(
        "fpr_at_fnr", at=[0.1, 0.3], resampling=mlci.Resampling(algorithm="weights"), **kw
    )
    np.testing.assert_allclose(band.y, rate.estimate)
    np.testing.assert_allclose(band.low, rate.confidence_interval.low)
    np.testing.assert_allclose(band.high, rate.confidence_interval.high)
    assert (band.x_name, band.y_name, band.kind) == ("fnr", "fpr", "horizontal")
    vert = roc_with_ci(s, fpr=[0.1, 0.3], **kw)
    ref = mlci.roc_band(s, [0.1, 0.3], **kw)
    np.testing.assert_allclose(vert.low, ref.low)
    sim = roc_with_ci(s, fnr=np.linspace(0.05, 0.9, 8), simultaneous=True, **kw)
    assert np.all(sim.low <= sim.pointwise_low + 1e-12)
    with pytest.raises(ValueError, match="either `fpr` or `fnr`"):
        roc_with_ci(s, fpr=[0.1], fnr=[0.1])


def test_confusion_matrix_stack_indexing_and_equality():
    cm = mlci.ConfusionMatrix(matrix=np.arange(24).reshape(2, 3, 2, 2), binary=True)
    assert cm[1].shape == (3,)
    assert cm[1, 2] == mlci.ConfusionMatrix(matrix=[[20, 21], [22, 23]], binary=True)
    assert cm[1, 2] != mlci.ConfusionMatrix(matrix=[[20, 21], [22, 23]])  # binary differs
    with pytest.raises(TypeError, match="single confusion matrix"):
        cm[0, 0][0]
    with pytest.raises(IndexError, match="`index` has 3 entries"):
        cm[0, 0, 0]
