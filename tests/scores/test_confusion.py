"""ConfusionMatrix against scikit-learn and the lecture's worked example."""

import numpy as np
import pytest
from sklearn import metrics as skm

from mlci import ConfusionMatrix


def test_seed_and_lecture_examples():
    cm = ConfusionMatrix(
        y_true=[2, 0, 2, 2, 0, 1, 1, 2, 2, 0, 1, 2],
        y_pred=[0, 0, 2, 1, 0, 2, 1, 0, 2, 0, 2, 2],
    )
    np.testing.assert_array_equal(cm.matrix, [[3, 0, 0], [0, 1, 2], [2, 1, 3]])
    assert ConfusionMatrix(matrix=[[1, 4], [2, 3]], binary=True).tpr() == 0.2
    np.testing.assert_allclose(ConfusionMatrix(matrix=[[1, 4], [2, 3]]).tpr(), [0.2, 0.6])
    # lecture "Trivial and random classifiers": 90/10/90/810 -> 0.90 and 0.82
    lec = ConfusionMatrix(matrix=[[90, 10], [90, 810]], binary=True)
    assert lec.trivial_accuracy() == pytest.approx(0.90)
    assert lec.random_accuracy() == pytest.approx(0.82)


def test_metrics_match_sklearn():
    rng = np.random.default_rng(0)
    y, p = rng.integers(0, 3, 300), rng.integers(0, 3, 300)
    cm = ConfusionMatrix(y, p)
    np.testing.assert_array_equal(cm.matrix, skm.confusion_matrix(y, p))
    np.testing.assert_allclose(cm.tpr(), skm.recall_score(y, p, average=None))
    np.testing.assert_allclose(cm.ppv(), skm.precision_score(y, p, average=None))
    assert cm.ppv(average="macro") == pytest.approx(skm.precision_score(y, p, average="macro"))
    assert cm.ppv(average="micro") == pytest.approx(skm.precision_score(y, p, average="micro"))
    assert cm.fbeta(2.0, average="macro") == pytest.approx(
        skm.fbeta_score(y, p, beta=2.0, average="macro")
    )
    assert cm.accuracy() == pytest.approx(skm.accuracy_score(y, p))
    assert cm.mcc() == pytest.approx(skm.matthews_corrcoef(y, p))
    assert cm.cohen_kappa() == pytest.approx(skm.cohen_kappa_score(y, p))
    assert cm.balanced_accuracy() == pytest.approx(skm.balanced_accuracy_score(y, p))
    yb, pb = (y == 1).astype(int), (p == 1).astype(int)
    b = ConfusionMatrix(yb, pb, binary=True)
    tn, fp, fn, tp = skm.confusion_matrix(yb, pb).ravel()
    assert (b.tp(), b.fn(), b.fp(), b.tn()) == (tp, fn, fp, tn)
    assert b.f1() == pytest.approx(skm.f1_score(yb, pb))
    assert b.mcc() == pytest.approx(skm.matthews_corrcoef(yb, pb))
    assert b.npv() == pytest.approx(tn / (tn + fn))
    assert b.for_() == pytest.approx(fn / (fn + tn))
    assert b.class_error_rate() + b.class_accuracy() == pytest.approx(1.0)


def test_vectorised_shapes_and_one_vs_all():
    rng = np.random.default_rng(1)
    stack = rng.integers(0, 20, (4, 5, 3, 3))
    cm = ConfusionMatrix(matrix=stack)
    assert cm.tpr().shape == (4, 5, 3)
    assert cm.accuracy().shape == (4, 5)
    ova = cm.one_vs_all()
    assert ova.matrix.shape == (4, 5, 3, 2, 2) and ova.binary
    np.testing.assert_allclose(ova.tpr(), cm.tpr())
    assert ova.pop().shape == (4, 5, 3)


def test_bootstrap_and_bad_input():
    cm = ConfusionMatrix(matrix=[[90, 10], [90, 810]], binary=True)
    res = cm.bootstrap_ci("tpr", rng=0, method="percentile", stratify=True)
    assert res.confidence_interval.low < 0.9 < res.confidence_interval.high
    with pytest.raises(ValueError, match="Unknown metric"):
        cm.metric("tpx")
    with pytest.raises(ValueError, match="negative"):
        ConfusionMatrix(matrix=[[1, -1], [0, 1]])
    with pytest.raises(ValueError, match="shape"):
        ConfusionMatrix(matrix=[1, 2, 3])
    with pytest.raises(ValueError, match="binary=True"):
        ConfusionMatrix(matrix=np.ones((3, 3)), binary=True)
    with pytest.raises(ValueError, match="pos_label"):
        ConfusionMatrix(["a", "b"], ["a", "a"], binary=True)
