"""compare's paired differences of a two-class decision metric over conditions warn when
the smaller class fills too few effective conditions (``warn_paired_classes``), the rule of
a single system's interval (``clustered_class_rule``).

Design s5 #11 of the design search (a paired f1 difference over 55 conditions with about
24 positives; docs/validation.md, "The search again, after Tango (seed 4)"): t 0.53-0.61,
BCa 0.67-0.69, warned in 0 of 100 test sets before and 83 of 100 after; the holding
paired f1 designs of that run (s5 #8: 191 conditions, ~815 positives; #18: 187
conditions, ~111 positives) are warned in none, #10 (30 conditions, ~155 positives filling
26 effective conditions, ICC 0.05) in 10 of 100 since the rule also reads the errors' ICC
(#11: 95 of 100; docs/validation.md, "The clustered-class warning, with the data's ICC").
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci
from mlci.engine.clustered_class import (
    CLUSTERED_ERROR_ICC,
    MIN_CLASS_CONDITIONS,
    MIN_CLASS_CONDITIONS_CLUSTERED,
    class_error_icc,
    smaller_class_conditions,
)


def _design(n_pos_conditions: int, per: int, n_conditions: int = 60, n_neg: int = 20):
    """Positives in the first ``n_pos_conditions`` conditions, ``per`` each; every
    condition has ``n_neg`` negatives.  Two systems with a few errors each."""
    gen = np.random.default_rng(0)
    y, cond = [], []
    for c in range(n_conditions):
        k = per if c < n_pos_conditions else 0
        y += [1] * k + [0] * n_neg
        cond += [c] * (k + n_neg)
    y, cond = np.array(y), np.array(cond)
    a = np.where(gen.random(len(y)) < 0.08, 1 - y, y)
    b = np.where(gen.random(len(y)) < 0.15, 1 - y, y)
    return y, a, b, cond


def test_few_effective_conditions_of_positives_warn():
    y, a, b, cond = _design(n_pos_conditions=8, per=3)  # 24 positives in 8 conditions
    keys = 2 * y + a
    assert smaller_class_conditions(keys, cond) == pytest.approx(8.0)
    with pytest.warns(mlci.FewConditionsWarning, match="effective conditions"):
        res = mlci.compare(
            y, {"a": a, "b": b}, metric="f1", conditions=cond, n_resamples=200, rng=0
        )
    assert "effective conditions" in res.details["warning"]


def test_many_effective_conditions_of_positives_do_not_warn():
    y, a, b, cond = _design(n_pos_conditions=40, per=3)  # 120 positives in 40 conditions
    assert smaller_class_conditions(2 * y + a, cond) >= MIN_CLASS_CONDITIONS
    with warnings.catch_warnings():
        warnings.simplefilter("error", mlci.FewConditionsWarning)
        res = mlci.compare(
            y, {"a": a, "b": b}, metric="f1", conditions=cond, n_resamples=200, rng=0
        )
    assert "warning" not in res.details


def test_recall_differences_are_not_subject_to_the_rule():
    y, a, b, cond = _design(n_pos_conditions=8, per=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", mlci.FewConditionsWarning)
        mlci.compare(y, {"a": a, "b": b}, metric="recall", conditions=cond, n_resamples=200, rng=0)


def test_errors_that_vary_between_conditions_warn_with_more_effective_conditions():
    # 75 positives in 25 conditions: between the two thresholds; system a errs on most
    # negatives of three conditions (its errors vary between conditions), b as before
    y, a, b, cond = _design(n_pos_conditions=25, per=3)
    assert MIN_CLASS_CONDITIONS <= smaller_class_conditions(2 * y + a, cond) == pytest.approx(25.0)
    assert 25.0 < MIN_CLASS_CONDITIONS_CLUSTERED
    a = np.where((y == 0) & np.isin(cond, [5, 30, 50]), 1, a)
    assert class_error_icc(2 * y + a, cond) >= CLUSTERED_ERROR_ICC
    with pytest.warns(mlci.FewConditionsWarning, match="its errors vary between conditions"):
        res = mlci.compare(
            y, {"a": a, "b": b}, metric="f1", conditions=cond, n_resamples=200, rng=0
        )
    assert "estimated ICC" in res.details["warning"]
