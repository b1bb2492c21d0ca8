"""The scalar checks of mlci.inputs.validation shared by several drivers."""

from __future__ import annotations

import numpy as np
import pytest

import mlci
from mlci.inputs import check_nonnegative


@pytest.mark.parametrize(
    ("value", "strict", "expected"),
    [(0, False, 0.0), (2, False, 2.0), (np.float32(0.5), True, 0.5), (np.int64(3), True, 3.0)],
)
def test_check_nonnegative_accepts(value, strict, expected):
    got = check_nonnegative("x", value, strict=strict)
    assert got == expected and type(got) is float


@pytest.mark.parametrize(
    ("value", "strict", "error", "message"),
    [
        (-0.1, False, ValueError, "`x` must be a finite number >= 0 (hint); got -0.1."),
        (np.nan, False, ValueError, "`x` must be a finite number >= 0 (hint); got nan."),
        (np.inf, True, ValueError, "`x` must be a positive finite number (hint); got inf."),
        (0.0, True, ValueError, "`x` must be a positive finite number (hint); got 0.0."),
        ("1", False, TypeError, "`x` must be a number >= 0 (hint); got '1'."),
        (True, True, TypeError, "`x` must be a positive number (hint); got True."),
        (None, False, TypeError, "`x` must be a number >= 0 (hint); got None."),
    ],
)
def test_check_nonnegative_refuses(value, strict, error, message):
    with pytest.raises(error) as info:
        check_nonnegative("x", value, strict=strict, hint=" (hint)")
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: mlci.correlated_bayesian_ttest([0.8, 0.82, 0.81], [0.8, 0.8, 0.79], rope=-1),
            "`rope` must be a finite number >= 0 (on the scores' scale, e.g. 0.01); got -1.",
        ),
        (
            lambda: mlci.paired_margin_test([0.8, 0.82, 0.81], [0.8, 0.8, 0.79], margin=0),
            "`margin` must be a positive finite number (the largest difference that does not "
            "matter, on the metric's scale, e.g. 0.02); got 0.",
        ),
    ],
)
def test_the_drivers_say_what_the_number_means(call, message):
    # the three drivers' checks are this one check; each keeps its own hint
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message
