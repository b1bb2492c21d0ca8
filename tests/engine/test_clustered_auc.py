"""The ROC AUC's clustered-class warning (``mlci.engine.auc_class.clustered_auc_rule``):
a ROC AUC over conditions within 0.05 of its bound whose smaller class fills fewer than 15
effective conditions (Kish) warns, the same through every door (``bootstrap_ci`` with
``conditions``, ``auc_ci``, ``Scores.bootstrap_ci``), and the result's diagnostics carry
the effective conditions.

The evidence: docs/validation.md, "The AUC over conditions with few of a class" (design
s8sc #0: auto = BCa 0.870 on 300 test sets, warned in 28% before).  Kish's effective
number of ``K`` conditions with the same count is exactly ``K`` (Kish 1965), which the
designs below use to sit on both sides of the threshold.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci
from mlci.engine.auc_class import (
    AUC_NEAR_EDGE,
    MIN_AUC_CLASS,
    MIN_AUC_CLASS_CONDITIONS,
    class_effective_conditions,
    clustered_auc_rule,
)
from mlci.engine.clustered_class import smaller_class_conditions

TEXT = "effective conditions (Kish"
DOORS = ("bootstrap_ci", "auc_ci", "Scores.bootstrap_ci")


def _design(filled: int, per: int, shift: float, n_conditions: int = 40, size: int = 15):
    """``filled`` of ``n_conditions`` conditions (``size`` samples each) with ``per``
    positives each (Kish: exactly ``filled``); binormal scores, positives ``shift`` above."""
    g = np.random.default_rng(20261128)
    cond = np.repeat(np.arange(n_conditions), size)
    y = np.zeros(n_conditions * size, dtype=int)
    for c in range(filled):
        y[c * size : c * size + per] = 1
    score = g.standard_normal(len(y)) + shift * y + 0.5 * g.standard_normal(n_conditions)[cond]
    return y, score, cond


def _run(door: str, y, score, cond, method: str = "auto"):
    common = {"conditions": cond, "n_resamples": 300, "rng": 3, "method": method}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if door == "bootstrap_ci":
            res = mlci.bootstrap_ci(y, score, metric="roc_auc", **common)
        elif door == "auc_ci":
            res = mlci.auc_ci(mlci.Scores.from_labels(y, score), **common)
        else:
            res = mlci.Scores.from_labels(y, score).bootstrap_ci("auc", **common)
    return res, caught


def test_thresholds():
    assert MIN_AUC_CLASS_CONDITIONS == 15 and AUC_NEAR_EDGE == 0.05
    # s8sc #0 as drawn (22 positives filling 13.4 effective conditions of 31, AUC 0.975)
    assert clustered_auc_rule(13.4, 0.975, 31.0)
    assert clustered_auc_rule(13.4, 0.025, 31.0)  # the other bound
    assert not clustered_auc_rule(15.0, 0.98, 31.0)  # the threshold itself: not below
    assert not clustered_auc_rule(13.4, 0.94, 31.0)  # away from the bound: held (sweep)
    assert not clustered_auc_rule(13.4, 0.98, 19.9)  # outside the sweep's range
    assert not clustered_auc_rule(None, 0.98, 31.0)


def test_effective_conditions_agree_with_the_decision_rule():
    # the same Kish number as the decision kernels' smaller_class_conditions
    g = np.random.default_rng(1)
    y = (g.random(300) < 0.1).astype(int)
    unit = g.integers(0, 30, 300)
    keys = 2 * y + g.integers(0, 2, 300)  # (true class, prediction)
    assert class_effective_conditions(y == 1, unit) == pytest.approx(
        smaller_class_conditions(keys, unit), rel=1e-12
    )
    # 12 conditions with 2 positives each: exactly 12
    y, _, cond = _design(12, 2, 3.0)
    assert class_effective_conditions(y == 1, cond) == pytest.approx(12.0, rel=1e-12)


@pytest.mark.parametrize("door", DOORS)
def test_warns_through_every_door(door):
    y, score, cond = _design(12, 2, 3.0)  # 24 positives (>= MIN_AUC_CLASS) in 12 conditions
    assert y.sum() >= MIN_AUC_CLASS
    res, caught = _run(door, y, score, cond)
    assert res.estimate >= 1 - AUC_NEAR_EDGE
    texts = [str(w.message) for w in caught if issubclass(w.category, mlci.FewConditionsWarning)]
    ours = [t for t in texts if TEXT in t]
    assert len(ours) == 1, texts
    assert "The 24 samples of the smaller class of a ROC AUC" in ours[0]
    assert "12.0 effective conditions" in ours[0]
    assert res.diagnostics["smaller_class_effective_conditions"] == pytest.approx(12.0)


def test_same_message_through_every_door():
    y, score, cond = _design(12, 2, 3.0)
    found = set()
    for door in DOORS:
        # the same method named (auto of the Scores doors is BCa; bootstrap_ci's, logit_t)
        _, caught = _run(door, y, score, cond, method="bca" if door == "bootstrap_ci" else "auto")
        found |= {str(w.message) for w in caught if TEXT in str(w.message)}
    assert len(found) == 1, found


@pytest.mark.parametrize("door", DOORS)
def test_well_spread_design_not_warned(door):
    # 24 positives, one in each of 24 conditions: Kish exactly 24
    y, score, cond = _design(24, 1, 3.0)
    # auto; bootstrap_ci's auto (logit_t) would add the near-bound warning of its own
    res, caught = _run(door, y, score, cond, method="bca" if door == "bootstrap_ci" else "auto")
    assert res.estimate >= 1 - AUC_NEAR_EDGE
    # no clustered-class warning; only the near-bound rule of 20-149 samples of a class
    # (near_edge_auc_rule: tests/engine/test_auc_near_edge.py)
    others = [
        str(w.message)
        for w in caught
        if issubclass(w.category, mlci.MlciWarning)
        and "The AUC near its bound with 20-149 of a class" not in str(w.message)
    ]
    assert not others, others
    assert res.diagnostics["smaller_class_effective_conditions"] == pytest.approx(24.0)


@pytest.mark.parametrize("door", DOORS)
def test_away_from_the_bound_not_warned(door):
    # the same clustering (Kish 12) at an AUC near 0.8: the sweep's designs held there
    y, score, cond = _design(12, 2, 1.2)
    res, caught = _run(door, y, score, cond)
    assert res.estimate < 1 - AUC_NEAR_EDGE
    assert not [w for w in caught if TEXT in str(w.message)]


def test_diagnostics_without_the_rules():
    # an explicit method: the Scores doors still carry the numbers (the warning is auto's,
    # as the few-samples warning of the AUC)
    y, score, cond = _design(12, 2, 3.0)
    for door in DOORS:
        res, _ = _run(door, y, score, cond, method="percentile")
        assert res.diagnostics["smaller_class_effective_conditions"] == pytest.approx(12.0)
