"""ConfusionMatrix against scikit-learn and the lecture's worked example."""

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

import mlci
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
    res = cm.bootstrap_ci(
        "tpr", rng=0, method="percentile", resampling=mlci.Resampling(stratify=True)
    )
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


# --- issue 8: silent wrong numbers
def test_duplicate_classes_refused_and_classes_checked_against_the_data():
    # classes=[1, 1, 0] used to build a 3x3 matrix with class 1 twice (a wrong matrix)
    with pytest.raises(ValueError, match=r"`classes` repeats \{1\}"):
        ConfusionMatrix([1, 1, 0], [1, 0, 0], classes=[1, 1, 0])
    # reference: scikit-learn's confusion_matrix with labels= (class order as given)
    cm = ConfusionMatrix([1, 1, 0], [1, 0, 0], classes=[1, 0])
    np.testing.assert_array_equal(
        cm.matrix, skm.confusion_matrix([1, 1, 0], [1, 0, 0], labels=[1, 0])
    )
    # a class absent from the data is a row and a column of zeros, as in scikit-learn
    cm = ConfusionMatrix([1, 1, 0], [1, 0, 0], classes=[0, 1, 2])
    np.testing.assert_array_equal(
        cm.matrix, skm.confusion_matrix([1, 1, 0], [1, 0, 0], labels=[0, 1, 2])
    )
    # a label of the data missing from `classes` is refused, naming it
    with pytest.raises(ValueError, match=r"`y_pred` takes \{2\}, which is not among `classes`"):
        ConfusionMatrix([1, 1, 0], [1, 2, 0], classes=[0, 1])
    with pytest.raises(TypeError, match=r"`y_true` holds numbers .* `classes` holds strings"):
        ConfusionMatrix([1, 1, 0], [1, 0, 0], classes=["0", "1"])


def test_bootstrap_ci_level_and_alternative():
    cm = ConfusionMatrix(matrix=[[90, 10], [90, 810]], binary=True)
    # confidence_level=95 printed a "9500% CI"
    with pytest.raises(ValueError, match=r"`confidence_level` .* use 0\.95"):
        cm.bootstrap_ci("tpr", confidence_level=95)
    # alternative="one-sided" returned a two-sided 90% interval labelled one-sided
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        cm.bootstrap_ci("tpr", alternative="one-sided")
    # one-sided percentile bounds: the ends of the two-sided interval at 2 * alpha (the
    # percentile method, Efron & Tibshirani 1993, sec. 13.3); the open end is the
    # metric's range, [0, 1] for a rate
    kw = dict(rng=3, n_resamples=500, method="percentile")
    two = cm.bootstrap_ci("tpr", confidence_level=0.90, **kw)
    less = cm.bootstrap_ci("tpr", alternative="less", **kw)
    greater = cm.bootstrap_ci("tpr", alternative="greater", **kw)
    assert tuple(less.confidence_interval) == (0.0, two.confidence_interval.high)
    assert tuple(greater.confidence_interval) == (two.confidence_interval.low, 1.0)
    assert less.alternative == "less" and greater.alternative == "greater"
    mcc = cm.bootstrap_ci("mcc", alternative="less", **kw)
    assert mcc.confidence_interval.low == -1.0
    tp = cm.bootstrap_ci("tp", alternative="greater", **kw)
    assert tp.confidence_interval.high == np.inf


def test_normal_interval_kept_in_range():
    # a rate near 1: the normal interval est + 1.96 se crosses 1 and is clipped there
    cm = ConfusionMatrix(matrix=[[59, 1], [3, 37]], binary=True)
    res = cm.bootstrap_ci("tpr", method="normal", rng=0, n_resamples=400)
    se = np.std(res.bootstrap_distribution, ddof=1)
    assert res.estimate + 1.959964 * se > 1
    assert res.confidence_interval.high == 1.0
    assert res.confidence_interval.low == pytest.approx(res.estimate - 1.959963985 * se)


def test_binary_from_labels_needs_two_classes():
    # more than two values with pos_label used to be one-vs-rest, silently
    with pytest.raises(ValueError, match=r"`binary=True` needs two classes.* \{0, 1, 2\}"):
        ConfusionMatrix([0, 1, 2, 1], [0, 1, 1, 2], binary=True, pos_label=1)
    cm = ConfusionMatrix(["no", "yes", "yes"], ["no", "yes", "no"], binary=True, pos_label="yes")
    assert cm.classes == ["yes", "no"]
    assert (cm.tp(), cm.fn(), cm.fp(), cm.tn()) == (1, 1, 0, 1)


def test_labels_with_missing_values():
    # object labels with NaN: np.unique gave duplicate classes; the gate refuses them, or
    # drops them with dropna=True (reference: scikit-learn on the rows kept)
    y = np.array([0, 1, 1, 0, 1, 0], dtype=object)
    p = np.array([0, 1, 0, 0, 1, 1], dtype=object)
    y[2] = np.nan
    with pytest.raises(ValueError, match="`y_true` has 1 missing value"):
        ConfusionMatrix(y, p)
    cm = ConfusionMatrix(y, p, dropna=True)
    keep = [0, 1, 3, 4, 5]
    np.testing.assert_array_equal(
        cm.matrix, skm.confusion_matrix(y[keep].astype(int), p[keep].astype(int))
    )
    assert cm.n_dropped == 1 and cm.classes == [0, 1]
    res = cm.bootstrap_ci("accuracy", rng=0, n_resamples=50, method="percentile")
    assert res.details["n_dropped"] == 1
    s = pd.Series(["a", "b", None, "a"], dtype="string")
    with pytest.raises(ValueError, match="`y_pred` has 1 missing value"):
        ConfusionMatrix(["a", "b", "b", "a"], s)
    df = pd.DataFrame({"t": ["a", "b", "b", "a"], "p": s})
    assert ConfusionMatrix("t", "p", data=df, dropna=True).n_dropped == 1


def test_bootstrap_conditions_in_sample_order():
    # conditions follow y_true's order; the same data in another order gives the same
    # replicates (the kernel's atoms are the matrix cells)
    rng = np.random.default_rng(5)
    y, p = rng.integers(0, 3, 300), rng.integers(0, 3, 300)
    spk = rng.integers(0, 20, 300)
    a = ConfusionMatrix(y, p).bootstrap_ci("accuracy", conditions=spk, rng=1, n_resamples=100)
    order = rng.permutation(300)
    b = ConfusionMatrix(y[order], p[order]).bootstrap_ci(
        "accuracy", conditions=spk[order], rng=1, n_resamples=100
    )
    assert a.n_conditions == 20
    np.testing.assert_allclose(np.sort(a.bootstrap_distribution), np.sort(b.bootstrap_distribution))


# ------------------------------------------------- weights, dicts and DataFrames
def test_confusion_matrix_sample_weight_matches_sklearn():
    # reference: sklearn.metrics.confusion_matrix(sample_weight=...)
    from sklearn.metrics import confusion_matrix, recall_score

    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    p = np.where(rng.random(200) < 0.7, y, rng.integers(0, 3, 200))
    w = rng.uniform(0.1, 2, 200)
    cm = ConfusionMatrix(y, p, sample_weight=w)
    np.testing.assert_allclose(cm.matrix, confusion_matrix(y, p, sample_weight=w), atol=1e-12)
    np.testing.assert_allclose(
        cm.tpr(), recall_score(y, p, average=None, sample_weight=w), atol=1e-12
    )
    res = cm.bootstrap_ci("accuracy", rng=0, n_resamples=200)
    assert res.estimate == pytest.approx(np.sum(w * (y == p)) / w.sum(), abs=1e-12)
    low, high = res.confidence_interval
    assert low < res.estimate < high


@pytest.mark.filterwarnings(
    "ignore::mlci.FewResamplesWarning"
)  # few replicates: a fast check of equality, not of a level
def test_confusion_matrix_weighted_bootstrap_is_the_weighted_metric_of_each_replicate():
    import mlci

    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 120)
    p = np.where(rng.random(120) < 0.8, y, 1 - y)
    w = rng.uniform(0.1, 2, 120)
    a = ConfusionMatrix(y, p, sample_weight=w).bootstrap_ci(
        "accuracy", rng=3, n_resamples=30, method="percentile"
    )
    b = mlci.bootstrap_ci(
        y, p, metric="accuracy", sample_weight=w, rng=3, n_resamples=30, method="percentile"
    )
    np.testing.assert_allclose(a.bootstrap_distribution, b.bootstrap_distribution, atol=1e-12)


def test_confusion_matrix_from_dict_and_dataframe_keeps_class_names():
    d = {"cat": {"cat": 8, "dog": 2}, "dog": {"cat": 1, "dog": 9, "eel": 1}}
    cm = ConfusionMatrix(matrix=d)
    assert cm.classes == ["cat", "dog", "eel"]
    np.testing.assert_array_equal(cm.matrix, [[8, 2, 0], [1, 9, 1], [0, 0, 0]])
    cm2 = ConfusionMatrix(matrix=d, classes=["eel", "dog", "cat"])
    np.testing.assert_array_equal(cm2.matrix, [[0, 0, 0], [1, 9, 1], [0, 2, 8]])
    df = pd.DataFrame([[5, 1], [2, 7]], index=["a", "b"], columns=["a", "b"])
    cm3 = ConfusionMatrix(matrix=df[["b", "a"]])  # columns reordered to the index
    assert cm3.classes == ["a", "b"]
    np.testing.assert_array_equal(cm3.matrix, [[5, 1], [2, 7]])
    assert cm3.bootstrap_ci("accuracy", average=None, rng=0, n_resamples=50).estimate == (
        pytest.approx(12 / 15)
    )


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"matrix": {"a": [1, 2]}}, "matrix"),
        ({"matrix": {"a": {"a": 1, "b": 2}}, "classes": ["a"]}, "classes"),
        ({"matrix": pd.DataFrame([[1, 2]], index=["a"], columns=["a", "b"])}, "matrix"),
        ({"matrix": [[1, 2], [3, 4]], "sample_weight": [1, 2]}, "sample_weight"),
        ({"y_true": [0, 1, 1], "y_pred": [0, 1, 0], "sample_weight": [1, -1, 1]}, "sample_weight"),
        ({"y_true": [0, 1, 1], "y_pred": [0, 1, 0], "sample_weight": [1, 1]}, "sample_weight"),
        (
            {"y_true": [0, 1, 1], "y_pred": [0, 1, 0], "sample_weight": [1, np.nan, 1]},
            "sample_weight",
        ),
    ],
)
def test_confusion_matrix_new_inputs_bad(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        ConfusionMatrix(**kwargs)
