"""The design effect's upper bound under Korn & Graubard's interval (session 12, deffrule).

Numbers: docs/validation.md, "Proportions over few conditions whose design effect is
uncertain"; study ``scripts/deff_uncertain_study.py`` and ``scripts/deff_uncertain_rules.py``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import mlci
from mlci.engine.deff_uncertain import (
    UNCERTAIN_MINORITY,
    design_effect_upper,
    uncertain_design_effect_rule,
    uncertain_minority,
)
from mlci.exceptions import FewConditionsWarning

#: the clause's message, by its words
CLAUSE = "may be as large as"


def _design(errors: list[int], sizes: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Accuracy over conditions of ``sizes`` with ``errors`` wrong samples in each."""
    cond = np.repeat(np.arange(len(sizes)), sizes)
    right = np.ones(cond.size, bool)
    for c, e in enumerate(errors):
        right[np.flatnonzero(cond == c)[:e]] = False
    y = np.ones(cond.size, int)
    return y, np.where(right, 1, 0), cond


def _auto(errors: list[int], sizes: list[int]) -> tuple[object, list[str]]:
    y, a, cond = _design(errors, sizes)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with mlci.config_context(n_jobs=1):
            r = mlci.bootstrap_ci(y, a, metric="accuracy", conditions=cond, n_resamples=200, rng=0)
    return r, [str(w.message) for w in caught if issubclass(w.category, FewConditionsWarning)]


#: seed-16 decision #60's confirmation test set 30 (np.random.default_rng([17, 60, 30])):
#: 55 errors in 10 of 14 conditions of 2,984 samples, estimate 0.982 against the truth
#: 0.9377 (docs/validation.md, "Design search, seed 16")
S60_ERRORS = [12, 13, 0, 0, 7, 0, 4, 0, 1, 1, 2, 4, 7, 4]
S60_SIZES = [214, 214] + [213] * 12
S60_TRUTH = 0.9377187581157396


def test_design_effect_upper_against_chi_square_tables() -> None:
    # chi2_{0.05}(13) = 5.8919 and chi2_{0.05}(7) = 2.1673 (Abramowitz & Stegun, table
    # 26.8; scipy.stats.chi2.ppf(0.05, 13) = 5.891864, (0.05, 7) = 2.167350)
    assert design_effect_upper(4.95, 14) == pytest.approx(1 + 3.95 * 13 / 5.891864, rel=1e-6)
    assert design_effect_upper(3.0, 8) == pytest.approx(1 + 2.0 * 7 / 2.167350, rel=1e-6)
    # chi2_{0.01}(13) = 4.106915
    assert design_effect_upper(2.0, 14, alpha=0.01) == pytest.approx(1 + 13 / 4.106915, rel=1e-6)
    # no between-condition part: the bound is 1
    assert design_effect_upper(0.7, 14) == 1.0
    # the bound shrinks toward the estimate with more conditions
    assert design_effect_upper(5.0, 8) > design_effect_upper(5.0, 30) > 5.0


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"design_effect": 2.0, "n_conditions": 1}, "n_conditions must be at least 2"),
        ({"design_effect": 2.0, "n_conditions": 14, "alpha": 0.0}, "alpha must be in (0, 1)"),
        ({"design_effect": 2.0, "n_conditions": 14, "alpha": 1.5}, "alpha must be in (0, 1)"),
        ({"design_effect": math.nan, "n_conditions": 14}, "design_effect must be finite"),
    ],
)
def test_design_effect_upper_bad_input_names_the_argument(kwargs: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        design_effect_upper(**kwargs)


def test_seed16_60_test_set_30_warns_with_the_interval_unchanged() -> None:
    r, msgs = _auto(S60_ERRORS, S60_SIZES)
    lo, hi = r.confidence_interval
    # the interval is the one main gave (Korn & Graubard's, above the truth): unchanged
    assert r.method == "korn_graubard"
    assert (lo, hi) == pytest.approx((0.9654594973, 0.9914779947), abs=1e-9)
    assert lo > S60_TRUTH
    # ... and now warns: design effect 4.95 from 13 df, bounded at 9.7, 5.7 effective errors
    assert any(CLAUSE in m for m in msgs)
    diag = r.details["diagnostics"]
    assert diag["design_effect"] == pytest.approx(4.954, abs=1e-3)
    assert uncertain_minority(diag) == pytest.approx(0.018432 * 2984 / 9.7155, rel=1e-3)
    assert uncertain_minority(diag) < UNCERTAIN_MINORITY


@pytest.mark.parametrize(
    ("name", "errors", "sizes", "method", "interval", "warned"),
    [
        # values from main 3e9ea9c (before the clause); none of these is in its class
        ("errors alike over 30", [2] * 30, [100] * 30, "logit_t",
         (0.9740650335, 0.9845982817), False),
        ("away from the bound", [40, 45, 50, 38, 42, 60, 35, 41, 44, 39, 47, 52, 36, 43],
         [213] * 14, "logit_t", (0.7757258175, 0.8125851509), False),
        ("7 conditions", [12, 13, 0, 0, 7, 0, 4], [213] * 7, "korn_graubard",
         (0.9342859467, 0.9939692311), True),
        ("3 errors: the near-bound clause", [3] + [0] * 13, [213] * 14, "korn_graubard",
         (0.9913214674, 0.9999871895), True),
        ("many clustered errors", [60, 2, 0, 80, 5, 1, 0, 0, 40, 3, 0, 0, 1, 9], [213] * 14,
         "korn_graubard", (0.8180321936, 0.9845859582), True),
    ],
)  # fmt: skip
def test_results_outside_the_class_unchanged(
    name: str, errors: list[int], sizes: list[int], method: str, interval: tuple, warned: bool
) -> None:
    r, msgs = _auto(errors, sizes)
    assert r.method == method, name
    assert tuple(r.confidence_interval) == pytest.approx(interval, abs=1e-9), name
    assert bool(msgs) == warned, name
    assert not any(CLAUSE in m for m in msgs), name


def test_clause_rule_edges() -> None:
    base = {"estimate": 0.9816, "design_effect": 4.95, "effective_n": 602.4, "n_conditions": 14}
    assert uncertain_design_effect_rule(base)
    # below 8 conditions every result warns already; the clause stays out
    assert not uncertain_design_effect_rule({**base, "n_conditions": 7})
    # from 20 conditions on, neither (the range of engine/few_conditions_class.py)
    wide = {**base, "design_effect": 9.0, "effective_n": 331.4}
    assert uncertain_design_effect_rule({**wide, "n_conditions": 19})
    assert not uncertain_design_effect_rule({**wide, "n_conditions": 20})
    # errors that do not cluster (design effect below 1.5)
    assert not uncertain_design_effect_rule({**base, "design_effect": 1.2, "effective_n": 2487.0})
    # away from the bound
    assert not uncertain_design_effect_rule({**base, "estimate": 0.85})
    # already fewer than 4 effective minority outcomes: the near-bound clause says so
    assert not uncertain_design_effect_rule({**base, "effective_n": 150.0, "design_effect": 19.9})
    # many errors: 0.06 x 2984 / deff_U(4.95) = 18 effective errors
    assert not uncertain_design_effect_rule({**base, "estimate": 0.94, "effective_n": 602.4})
    # missing diagnostics
    assert not uncertain_design_effect_rule({"estimate": 0.98, "n_conditions": 14})


def test_only_korn_graubards_interval_gets_the_clause() -> None:
    y, a, cond = _design(S60_ERRORS, S60_SIZES)
    for method, expected in (("korn_graubard", True), ("bca", False), ("logit_t", False)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mlci.bootstrap_ci(y, a, metric="accuracy", conditions=cond, method=method,
                              n_resamples=200, rng=0)  # fmt: skip
        assert any(CLAUSE in str(w.message) for w in caught) == expected, method
