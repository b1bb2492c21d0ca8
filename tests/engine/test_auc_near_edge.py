"""The ROC AUC near its bound with 20-149 samples in the smaller class (issue 20;
:func:`mlci.engine.auc_class.near_edge_auc_rule`): the warning through every door
(``bootstrap_ci`` with and without ``strata``, ``auc_ci``, ``Scores.bootstrap_ci``), the
same text, none away from the bound or with enough samples.  The thresholds rest on the
sweep of docs/validation.md, "The AUC near its bound with 20-149 of a class"."""

from __future__ import annotations

import numpy as np
import pytest

from _auc_doors import DOORS, auc_design, run_door
from mlci.engine.auc_class import (
    AUC_CLOSE_BAND,
    AUC_EDGE_BAND,
    MIN_AUC_CLASS,
    MIN_AUC_CLASS_CLOSE,
    MIN_AUC_CLASS_NEAR_EDGE,
    near_edge_auc_rule,
)

TEXT = "The AUC near its bound with 20-149 of a class"


def test_thresholds():
    assert (MIN_AUC_CLASS, MIN_AUC_CLASS_NEAR_EDGE, MIN_AUC_CLASS_CLOSE) == (20, 50, 150)
    assert (AUC_EDGE_BAND, AUC_CLOSE_BAND) == (0.1, 0.02)
    # each side of each threshold, near 1 and near 0 (the rule is symmetric)
    for est in (0.9, 0.1, 0.95, 0.05):
        assert near_edge_auc_rule(20, est) and near_edge_auc_rule(49, est)
        assert not near_edge_auc_rule(50, est) or min(est, 1 - est) <= AUC_CLOSE_BAND
        assert not near_edge_auc_rule(19, est)  # the few-samples rule's (MIN_AUC_CLASS)
    for est in (0.98, 0.02, 0.995):
        assert near_edge_auc_rule(50, est) and near_edge_auc_rule(149, est)
        assert not near_edge_auc_rule(150, est)
    assert not near_edge_auc_rule(30, 0.89) and not near_edge_auc_rule(30, 0.11)
    assert not near_edge_auc_rule(100, 0.97)
    assert not near_edge_auc_rule(30, np.nan) and not near_edge_auc_rule(30, None)
    assert not near_edge_auc_rule(30, np.array([0.95, 0.96]))  # a single estimate only


def _run(door: str, y, score, method: str = "auto"):
    return run_door(door, y, score, TEXT, method=method)


@pytest.mark.parametrize("door", DOORS)
def test_warns_through_every_door(door):
    y, score = auc_design(30, 2.4)  # AUC about 0.96
    res, msgs = _run(door, y, score)
    assert 0.9 <= float(res.estimate) < 1.0
    assert len(msgs) == 1 and msgs[0].startswith("Only 30 samples in the smaller class")


def test_same_message_through_every_door():
    y, score = auc_design(30, 2.4)
    # auto: the analytic interval's warning (engine/auc_analytic.py), one text
    found = {_run(door, y, score)[1][0] for door in DOORS}
    assert len(found) == 1, found
    # a bootstrap method named: the near-bound warning, one text through the engine doors
    named = {_run(door, y, score, method="bca")[1][0] for door in ("bootstrap_ci", "strata")}
    assert len(named) == 1 and named != found
    assert "The bca interval may not keep its confidence level" in named.pop()


@pytest.mark.parametrize("door", DOORS)
def test_close_to_one_with_100_positives_warns(door):
    y, score = auc_design(100, 3.6, n_neg=300)  # AUC about 0.99
    res, msgs = _run(door, y, score)
    assert float(res.estimate) >= 0.98
    assert len(msgs) == 1


@pytest.mark.parametrize("door", DOORS)
def test_away_from_the_bound_or_enough_samples_not_warned(door):
    y, score = auc_design(30, 1.2)  # AUC about 0.8
    assert _run(door, y, score)[1] == []
    y, score = auc_design(200, 2.4, n_neg=400)  # AUC about 0.96, 200 positives
    assert _run(door, y, score)[1] == []
