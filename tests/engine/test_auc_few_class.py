"""The ROC AUC's class-size warning (issue 20; :data:`mlci.engine.auc_class.MIN_AUC_CLASS`).

The seed-7 design search found the stratified AUC door (``auc_ci``) under-covering with
3-10 positives and unwarned; the sweep of ``scripts/auc_few_class_sweep.py`` (150
negatives, 3-50 positives x AUC 0.8-0.99, 200 test sets; docs/validation.md, "The AUC
with few samples in a class") found every door under-covering below 20 positives: the
warning is given through each of them, whatever the method.
"""

import warnings

import numpy as np
import pytest

import mlci
from mlci.engine.auc_class import MIN_AUC_CLASS


def _data(n_pos: int, n_neg: int = 150, seed: int = 1):
    g = np.random.default_rng(seed)
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    s = np.r_[g.normal(1.5, 1, n_pos), g.normal(0, 1, n_neg)]
    return y, s


DOORS = {
    "auc_ci": lambda y, s: mlci.auc_ci(y, s, rng=0, n_resamples=200),
    "bootstrap_ci strata": lambda y, s: mlci.bootstrap_ci(
        y, s, metric="roc_auc", strata=y, rng=0, n_resamples=200
    ),
    "bootstrap_ci": lambda y, s: mlci.bootstrap_ci(y, s, metric="roc_auc", rng=0, n_resamples=200),
    "bootstrap_ci percentile": lambda y, s: mlci.bootstrap_ci(
        y, s, metric="roc_auc", method="percentile", rng=0, n_resamples=200
    ),
}


@pytest.mark.parametrize("door", list(DOORS))
def test_every_door_warns_below_the_class_size(door):
    y, s = _data(MIN_AUC_CLASS - 1)
    with pytest.warns(mlci.FewConditionsWarning, match="smaller class of a ROC AUC"):
        DOORS[door](y, s)


@pytest.mark.parametrize("door", list(DOORS))
def test_no_warning_from_the_class_size_on(door):
    y, s = _data(MIN_AUC_CLASS)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        DOORS[door](y, s)
    # (the near-bound rule of 20-149 samples, near_edge_auc_rule, is another rule's:
    # tests/engine/test_auc_near_edge.py)
    assert not [
        x
        for x in w
        if "smaller class of a ROC AUC" in str(x.message) and "near its bound" not in str(x.message)
    ]


def test_the_negatives_count_too():
    # the smaller class is the negatives here
    y, s = _data(150, n_neg=12)
    with pytest.warns(mlci.FewConditionsWarning, match="Only 12 samples"):
        mlci.auc_ci(y, s, rng=0, n_resamples=200)


def test_the_interval_is_unchanged_by_the_warning():
    # a method named: a warning, not another interval (the same numbers as with the
    # warning silenced); auto: the analytic interval (engine/auc_analytic.py)
    y, s = _data(8)
    with pytest.warns(mlci.FewConditionsWarning):
        loud = mlci.bootstrap_ci(y, s, metric="roc_auc", method="bca", rng=0, n_resamples=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quiet = mlci.bootstrap_ci(y, s, metric="roc_auc", method="bca", rng=0, n_resamples=200)
        auto = mlci.auc_ci(y, s, rng=0, n_resamples=200)
    assert tuple(loud.confidence_interval) == tuple(quiet.confidence_interval)
    assert loud.method == "bca" and auto.method == "auc-score-floored"


def test_a_weighted_auc_counts_its_samples_of_nonzero_weight():
    # sample_weight: the classes are counted over the samples (not the weights), those
    # of zero weight left out: 8 positives, 2 of weight 0 -> "Only 6 samples"
    y, s = _data(8)
    w = np.r_[0.0, 0.0, np.full(6, 3.0), np.ones(150)]
    with pytest.warns(mlci.FewConditionsWarning, match="Only 6 samples"):
        res = mlci.bootstrap_ci(y, s, metric="roc_auc", sample_weight=w, rng=0, n_resamples=200)
    assert res.details["diagnostics"]["n_positive"] == 6
    # many positives with class weights: no warning (docs/metrics.md's example)
    y, s = _data(60)
    w = np.where(y == 1, 3.0, 1.0)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = mlci.bootstrap_ci(y, s, metric="roc_auc", sample_weight=w, rng=0, n_resamples=200)
    assert not [x for x in rec if "smaller class of a ROC AUC" in str(x.message)]
    assert res.details["diagnostics"]["n_positive"] == 60
