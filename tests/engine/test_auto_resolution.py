"""One resolution of ``method="auto"`` (issue 20, item 4): the same metric and design get
the same method through every door, and every default says why (``method_reason``).

References are mlci's own other doors on the same data (the point of the test) and, for
the proportions, ``mlci.proportion_ci(k, n, method="wilson")`` (Wilson 1927; checked
against statsmodels in tests/classical).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import mlci
from mlci import Scores
from mlci.scores.confusion import ConfusionMatrix
from mlci.scores.curves import auc_ci, operating_point_ci, roc_band
from mlci.scores.verification import cllr_ci, dcf_ci, eer_ci

RNG = np.random.default_rng(0)
Y = (RNG.random(300) < 0.4).astype(int)
SCORE = RNG.normal(1.2 * Y, 1)
PRED = (SCORE > 0.5).astype(int)


@pytest.mark.parametrize(
    ("cm_name", "name"),
    [("accuracy", "accuracy"), ("tpr", "recall"), ("ppv", "precision"), ("tnr", "specificity"),
     ("fnr", "fnr"), ("npv", "npv")],
)  # fmt: skip
def test_confusion_matrix_proportion_is_bootstrap_cis_wilson(cm_name, name):
    a = ConfusionMatrix(Y, PRED, binary=True).bootstrap_ci(cm_name, rng=0)
    b = mlci.bootstrap_ci(Y, PRED, metric=name, rng=0)
    assert a.method == b.method == "wilson"
    assert tuple(a.confidence_interval) == pytest.approx(tuple(b.confidence_interval), abs=1e-14)


def test_confusion_matrix_of_counts_is_wilson():
    cm = ConfusionMatrix(matrix=[[90, 10], [90, 810]], binary=True)
    res = cm.bootstrap_ci("tpr", rng=0)
    ref = mlci.proportion_ci(90, 100, method="wilson")
    assert res.method == "wilson"
    assert tuple(res.confidence_interval) == pytest.approx(tuple(ref.confidence_interval))


def test_confusion_matrix_f1_is_studentized_like_bootstrap_ci():
    a = ConfusionMatrix(Y, PRED, binary=True).bootstrap_ci("f1", rng=0)
    assert a.method == mlci.bootstrap_ci(Y, PRED, metric="f1", rng=0).method == "studentized"


S = Scores.from_labels(Y, SCORE)
SCORE_DRIVERS = {
    "auc_ci": lambda **k: auc_ci(S, **k),
    "operating_point_ci": lambda **k: operating_point_ci(S, at=0.1, **k)[0],
    "eer_ci": lambda **k: eer_ci(S, **k).eer,
    "dcf_ci": lambda **k: dcf_ci(S, p_target=0.1, **k),
    "cllr_ci": lambda **k: cllr_ci(S, **k),
    "Scores.bootstrap_ci": lambda **k: S.bootstrap_ci("auc", **k),
}


@pytest.mark.parametrize("name", list(SCORE_DRIVERS))
def test_score_drivers_auto_is_bca_with_a_reason(name):
    f = SCORE_DRIVERS[name]
    auto = f(rng=0, n_resamples=300)
    bca = f(rng=0, n_resamples=300, method="bca")
    assert auto.method == "bca"
    # the former default (method="bca"): the same numbers
    assert tuple(auto.confidence_interval) == tuple(bca.confidence_interval)
    assert "stratified design" in auto.details["method_reason"]


def test_stratified_bootstrap_ci_gets_the_same_method_as_scores():
    # a Scores object resamples within each class: bootstrap_ci with strata=y_true is
    # the same design and gets the same method
    res = mlci.bootstrap_ci(Y, SCORE, metric="roc_auc", strata=Y, rng=0)
    assert res.method == auc_ci(S, rng=0).method == "bca"


def test_reduced_table_auto_is_bca_with_a_reason():
    pd = pytest.importorskip("pandas")
    t = mlci.reduce_table(pd.DataFrame({"y": Y, "p": PRED}), "y", "p", metric="accuracy")
    auto = t.bootstrap_ci(rng=0, n_resamples=300)
    assert auto.method == "bca" and "reduced table" in auto.details["method_reason"]
    bca = t.bootstrap_ci(rng=0, n_resamples=300, method="bca")
    assert auto.confidence_interval == bca.confidence_interval


@pytest.mark.parametrize(
    "fn", [auc_ci, operating_point_ci, eer_ci, dcf_ci, cllr_ci, ConfusionMatrix.bootstrap_ci]
)
def test_defaults_are_auto(fn):
    assert inspect.signature(fn).parameters["method"].default == "auto"


def test_bands_keep_percentile():
    # documented exception (docs/guide.md, section 2): a band's pointwise part is the
    # percentile interval, inside its simultaneous sup-t band
    assert inspect.signature(roc_band).parameters["method"].default == "percentile"
