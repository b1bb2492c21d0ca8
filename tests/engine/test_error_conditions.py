"""Decision metrics over conditions whose errors sit in a handful of conditions warn
(mlci.engine.error_conditions; the decision search's seed-14 #53)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci
from mlci.engine.error_conditions import (
    MAX_ERROR_CONDITIONS,
    error_conditions,
    error_conditions_rule,
)


def test_counts_the_conditions_holding_an_error() -> None:
    keys = np.array([0, 1, 3, 2, 1, 0, 3])
    unit = np.array([0, 0, 1, 2, 2, 3, 3])
    assert error_conditions(keys, unit) == 2  # the errors (keys 1, 2) in conditions 0, 2
    assert error_conditions(np.array([0, 3]), np.array([0, 1])) == 0


def test_rule_edges() -> None:
    assert error_conditions_rule(302, MAX_ERROR_CONDITIONS)
    assert not error_conditions_rule(302, MAX_ERROR_CONDITIONS + 1)
    assert not error_conditions_rule(302, 0)  # no error: engine/no_error.py's message
    assert not error_conditions_rule(7, 2)  # below 8 conditions: the few-conditions rule
    assert not error_conditions_rule(None, 2)


def data(spread: int, rng: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """1,200 samples over 100 conditions, 12 false alarms spread over ``spread`` of them."""
    g = np.random.default_rng(rng)
    cond = np.repeat(np.arange(100), 12)
    y = (g.random(1200) < 0.2).astype(int)
    p = y.copy()
    negatives = np.flatnonzero(y == 0)
    first = {c: negatives[cond[negatives] == c] for c in range(spread)}
    flips = [first[c][k] for k in range(12 // spread) for c in range(spread)]
    p[np.asarray(flips[:12])] = 1
    return y, p, cond


@pytest.mark.parametrize("metric", ["f1", "mcc", "cohen_kappa", "balanced_accuracy"])
def test_errors_in_few_conditions_warn(metric: str) -> None:
    y, p, cond = data(3)
    with pytest.warns(mlci.FewConditionsWarning, match="errors fall in 3 conditions of 100"):
        mlci.bootstrap_ci(y, p, metric=metric, conditions=cond, n_resamples=200, rng=0)


def test_errors_spread_over_conditions_do_not() -> None:
    y, p, cond = data(12)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        mlci.bootstrap_ci(y, p, metric="mcc", conditions=cond, n_resamples=200, rng=0)
    assert not any("errors fall in" in str(w.message) for w in rec)


def test_accuracy_keeps_its_own_rule() -> None:
    # a proportion has its own near-bound rule over conditions (effective minority outcomes)
    y, p, cond = data(3)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        mlci.bootstrap_ci(y, p, metric="accuracy", conditions=cond, n_resamples=200, rng=0)
    assert not any("errors fall in" in str(w.message) for w in rec)
