"""The few-conditions warning reads Kish's effective number of conditions as well as
their count (engine/effective_conditions.py; seed-11 #31 of the design search)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci
from mlci.engine.effective_conditions import (
    MIN_EFFECTIVE_CONDITIONS,
    effective_conditions,
    few_effective_conditions,
)

KW = {"n_resamples": 200, "rng": 0}


def _caught(call) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w for w in caught if issubclass(w.category, mlci.MlciWarning)]


def _design(sizes: list[int], seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Accuracy-like decisions, about 75% right, over conditions of ``sizes``."""
    g = np.random.default_rng(seed)
    cond = np.repeat(np.arange(len(sizes)), sizes)
    y = g.integers(0, 2, cond.size)
    right = g.random(cond.size) < 0.75
    return y, np.where(right, y, 1 - y), cond


# ----------------------------------------------------------- Kish's number by hand
def test_effective_conditions_by_hand() -> None:
    # sizes 3, 1, 1, 1: (3 + 1 + 1 + 1)^2 / (9 + 1 + 1 + 1) = 36 / 12 = 3 (hand)
    assert effective_conditions([0, 0, 0, 1, 2, 3]) == pytest.approx(3.0)
    # seed-11 #31's shape, one condition of 200 and 11 of 5: 255^2 / (200^2 + 11 * 25)
    # = 65025 / 40275 = 1.61452... (hand)
    unit = np.repeat(np.arange(12), [200] + [5] * 11)
    assert effective_conditions(unit) == pytest.approx(65025 / 40275)
    # equal sizes: the number of conditions
    assert effective_conditions(np.repeat(np.arange(9), 7)) == pytest.approx(9.0)
    # weights: W = (3, 1, 1, 1) again (weights 1 + 2 in condition 0): 36 / 12 = 3 (hand)
    w = [1.0, 2.0, 1.0, 1.0, 1.0]
    assert effective_conditions([0, 0, 1, 2, 3], weight=w) == pytest.approx(3.0)
    # integer frequency weights count like repeated samples
    assert effective_conditions([0, 1], weight=[3, 1]) == effective_conditions([0, 0, 0, 1])


def test_few_effective_conditions_threshold() -> None:
    assert MIN_EFFECTIVE_CONDITIONS == 4.0
    assert few_effective_conditions(3.99) and not few_effective_conditions(4.0)
    assert not few_effective_conditions(None)


# ------------------------------------------------------------------- the warning
def test_dominant_condition_warns_with_both_numbers() -> None:
    y, a, c = _design([200] + [5] * 11)  # 12 conditions weighing like 1.61
    caught = _caught(lambda: mlci.bootstrap_ci(y, a, metric="accuracy", conditions=c, **KW))
    few = [w for w in caught if w.category is mlci.FewConditionsWarning]
    assert len(few) == 1
    text = str(few[0].message)
    assert "1.61 effective conditions" in text and "the 12 resampled" in text
    assert "collect more samples in the other conditions" in text


@pytest.mark.parametrize("metric", ["accuracy", "mcc", "f1"])
def test_equal_sizes_are_quiet(metric: str) -> None:
    y, a, c = _design([40] * 12)  # 12 conditions weighing like 12
    caught = _caught(lambda: mlci.bootstrap_ci(y, a, metric=metric, conditions=c, **KW))
    assert not [w for w in caught if "effective conditions (Kish" in str(w.message)]


def test_unequal_sizes_above_the_threshold_are_quiet() -> None:
    sizes = [60, 40, 30, 20, 20, 15, 10, 10, 10, 5]  # 220^2 / 7450 = 6.50 (hand)
    y, a, c = _design(sizes)
    assert effective_conditions(c) == pytest.approx(220**2 / 7450)
    caught = _caught(lambda: mlci.bootstrap_ci(y, a, metric="accuracy", conditions=c, **KW))
    assert not caught


def test_sample_weights_enter_kish_number() -> None:
    # equal sizes (12 of 40) but one condition's samples weigh 50 times the others':
    # W = (2000, 40 x 11): 2440^2 / (2000^2 + 11 * 1600) = 1.48 effective conditions
    y, a, c = _design([40] * 12)
    w = np.where(c == 0, 50.0, 1.0)
    assert effective_conditions(c, w) == pytest.approx(2440**2 / (2000**2 + 11 * 1600))
    caught = _caught(
        lambda: mlci.bootstrap_ci(y, a, metric="accuracy", conditions=c, sample_weight=w, **KW)
    )
    assert any("1.48 effective conditions" in str(x.message) for x in caught)
    # the same samples unweighted: quiet
    caught = _caught(lambda: mlci.bootstrap_ci(y, a, metric="accuracy", conditions=c, **KW))
    assert not caught


def test_bootstrap_without_linearization_warns_too() -> None:
    # a callable metric takes the plain bootstrap's path (its warning counts 20
    # conditions): 24 conditions, one of 400 samples and 23 of 4
    y, a, c = _design([400] + [4] * 23)
    assert effective_conditions(c) == pytest.approx(492**2 / (400**2 + 23 * 16))

    def hit_rate(y_true: np.ndarray, y_pred: np.ndarray) -> float:
        return float(np.mean(y_true == y_pred))

    caught = _caught(lambda: mlci.bootstrap_ci(y, a, metric=hit_rate, conditions=c, **KW))
    texts = [str(w.message) for w in caught if w.category is mlci.FewConditionsWarning]
    assert any("1.51 effective conditions" in t and "the 24 resampled" in t for t in texts)
    # equal sizes over 24 conditions: quiet
    y, a, c = _design([20] * 24)
    caught = _caught(lambda: mlci.bootstrap_ci(y, a, metric=hit_rate, conditions=c, **KW))
    assert not caught
