"""compare's system rows get bootstrap_ci's method, interval and warnings (issue 20, item 4:
"the same question gets the same default interval through every door").

Each system of :func:`mlci.compare` resolves its ``method="auto"`` through
:func:`mlci.engine.bootstrap.resolve_method`, the resolution :func:`mlci.bootstrap_ci`
runs (comparison/system_method.py).  compare draws one replicate matrix for every system
(the joint atoms); with the same ``rng`` and ``n_resamples`` a system's column is the
replicates ``bootstrap_ci`` draws for that system alone, so the method label and the
interval are equal, not only alike.  Before, compare's systems skipped ``choose_method``'s
few-class percentile rule and its few-positive average-precision BCa rule: F1 with 3
positives in 100 and one false alarm got ``korn_graubard`` (0.38-1.00) where
``bootstrap_ci`` gives ``percentile`` (0.00-1.00), an average precision of 1 from 6
positives in 64 got ``logit_t`` (0.655-0.993) where ``bootstrap_ci`` gives BCa
(0.226-1.00), and a ROC AUC of 0.999 over 40 conditions whose misordered pairs rest on
one negative got ``logit_t`` where ``bootstrap_ci`` gives BCa (engine/auc_misranked.py)
(review12, docs/validation.md); and a calibrated model's debiased l2 ECE near 0 got the
bootstrap's ``normal`` where ``bootstrap_ci`` gives ``normal-squared`` (the lead).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import mlci

#: a warning about system A in compare: "System 'A': ...", "Systems 'A', 'B': ...",
#: "System: 'A'. ..." (the finish step's), "Systems: 'A', 'B'. ..."
NAMES_A = re.compile(r"^Systems?:? ('[^']*', )*'A'")


def _caught(call: Callable[[], Any]) -> tuple[Any, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with mlci.config_context(n_jobs=1):
            out = call()
    return out, list(w)


def _cases() -> dict[str, tuple[Any, ...]]:
    g = np.random.default_rng(12)
    n = 300
    y = (g.random(n) < 0.3).astype(int)
    a = np.where(g.random(n) < 0.9, y, 1 - y)
    b = np.where(g.random(n) < 0.8, y, 1 - y)
    cond12, cond30 = g.integers(0, 12, n), g.integers(0, 30, n)
    strata = g.integers(0, 3, n)
    w = g.uniform(0.5, 2.0, n)
    two = y.copy()
    two[g.choice(n, 2, replace=False)] ^= 1  # 2 errors
    # 3 positives in 100, one false alarm (review12's table)
    y3 = np.r_[np.ones(3, int), np.zeros(97, int)]
    a3, b3 = y3.copy(), np.where(g.random(100) < 0.9, y3, 1 - y3)
    a3[50] = 1
    # average precision from 6 positives in 64 (review12 had 1 of them; here 0.96)
    y6 = np.r_[np.ones(6, int), np.zeros(58, int)]
    s6, t6 = y6 * 5.0 + g.normal(size=64), y6 + g.normal(size=64)
    s6[0] = np.sort(s6[6:])[-2] - 1e-6  # one positive below two negatives: AP about 0.96
    # 8 positives in 80, AP about 0.9; 30 positives, AP 1 / AUC 1; ordinary scores
    y8 = np.r_[np.ones(8, int), np.zeros(72, int)]
    s8, t8 = y8 * 2.5 + g.normal(size=80), y8 + g.normal(size=80)
    y30 = np.r_[np.ones(30, int), np.zeros(170, int)]
    s30, t30 = y30 * 4.5 + g.normal(size=200), y30 + g.normal(size=200)
    c12 = g.integers(0, 12, 200)
    so, to = y * 1.2 + g.normal(size=n), y * 0.8 + g.normal(size=n)
    # a ROC AUC of 0.999 over 40 conditions whose misordered pairs rest on one negative
    # (engine/auc_misranked.py's BCa rule; session 12, aucedge)
    ym = np.r_[np.zeros(200, int), np.ones(200, int)]
    sm = np.r_[np.linspace(0, 1, 200), np.linspace(2, 3, 200)]
    sm[0] = 2.2  # one negative outranks 40 positives
    tm, c40 = sm + g.normal(scale=0.8, size=400), np.arange(400) % 40
    # a calibrated model's debiased l2 ECE near 0 (engine/kernel_analytic.py's interval;
    # the lead, session 12: compare's systems had the bootstrap's "normal" there)
    pe = g.random(2000)
    ye = (g.random(2000) < pe).astype(int)
    qe = np.clip(pe + g.normal(scale=0.02, size=2000), 0.001, 0.999)
    # regression
    yr = g.normal(size=50)
    ra, rb = yr + g.normal(scale=0.5, size=50), yr + g.normal(scale=0.7, size=50)
    return {
        # (y, system A, system B, metric, keywords)
        "f1, 3 positives, 1 false alarm": (y3, a3, b3, "f1", {}),
        "mcc, 3 positives, 1 false alarm": (y3, a3, b3, "mcc", {}),
        "kappa, 3 positives, 1 false alarm": (y3, a3, b3, "cohen_kappa", {}),
        "balanced accuracy, 3 positives": (y3, a3, b3, "balanced_accuracy", {}),
        "ap 0.96 from 6 positives in 64": (y6, s6, t6, "average_precision", {}),
        "ap from 8 positives in 80": (y8, s8, t8, "average_precision", {}),
        "ap 1, 30 positives": (y30, s30, t30, "average_precision", {}),
        "roc auc 1, 30 positives": (y30, s30, t30, "roc_auc", {}),
        "roc auc 1 over 12 conditions": (y30, s30, t30, "roc_auc", {"conditions": c12}),
        "roc auc 0.999 misranked on 1 of 40 conditions": (
            ym,
            sm,
            tm,
            "roc_auc",
            {"conditions": c40},
        ),
        "roc auc, 8 positives": (y8, s8, t8, "roc_auc", {}),
        "roc auc ordinary": (y, so, to, "roc_auc", {}),
        "ap ordinary": (y, so, to, "average_precision", {}),
        "accuracy iid": (y, a, b, "accuracy", {}),
        "accuracy over 12 conditions": (y, a, b, "accuracy", {"conditions": cond12}),
        "accuracy 0.993 over 30 conditions": (y, two, b, "accuracy", {"conditions": cond30}),
        "accuracy with strata": (y, a, b, "accuracy", {"strata": strata}),
        "accuracy with weights": (y, a, b, "accuracy", {"sample_weight": w}),
        "f1 ordinary": (y, a, b, "f1", {}),
        "f1 over 12 conditions": (y, a, b, "f1", {"conditions": cond12}),
        "f1 with weights": (y, a, b, "f1", {"sample_weight": w}),
        "mcc, errors in 2 of 30 conditions": (y, two, b, "mcc", {"conditions": cond30}),
        "balanced accuracy with strata": (y, a, b, "balanced_accuracy", {"strata": strata}),
        "ece_debiased near 0": (ye, qe, pe, "ece_debiased", {}),
        "rmse": (yr, ra, rb, "rmse", {}),
        "mae": (yr, ra, rb, "mae", {}),
    }


CASES = _cases()
#: the cases whose replicates compare draws apart from bootstrap_ci's (see the test)
APART = ("accuracy with strata", "f1 ordinary", "balanced accuracy with strata")


@pytest.mark.parametrize("case", list(CASES))
def test_compare_system_row_is_bootstrap_ci(case: str) -> None:
    y, a, b, metric, kw = CASES[case]
    single, solo = _caught(
        lambda: mlci.bootstrap_ci(y, a, metric=metric, rng=0, n_resamples=400, **kw)
    )
    res, both = _caught(
        lambda: mlci.compare(y, {"A": a, "B": b}, metric=metric, rng=0, n_resamples=400, **kw)
    )
    row = res.systems["A"]
    assert row.method == single.method, case
    assert row.estimate == pytest.approx(single.estimate, abs=1e-12)
    # the same replicates where compare's draw over the joint atoms is bootstrap_ci's over
    # the system's (whole conditions, one atom per sample, sample weights); with strata
    # or a decision metric's few atoms on independent samples the two draw the same
    # distribution apart: the interval then agrees to Monte Carlo error only
    d1, d2 = single.bootstrap_distribution, row.bootstrap_distribution
    shared = d1 is not None and d2 is not None and np.array_equal(d1, d2, equal_nan=True)
    tol = 1e-12 if shared or case not in APART else 0.02
    assert tuple(row.confidence_interval) == pytest.approx(
        tuple(single.confidence_interval), abs=tol
    ), case
    # the kinds of warning: bootstrap_ci's for A, compare's naming A (compare's warnings
    # about the whole comparison, e.g. few conditions, name no system)
    # (drawn apart, the undefined replicates' and the tails' warnings are the draw's)
    drawn = () if shared else (mlci.InvalidReplicatesWarning, mlci.FewResamplesWarning)
    kinds_solo = {x.category for x in solo} - set(drawn)
    kinds_a = {x.category for x in both if NAMES_A.match(str(x.message))} - set(drawn)
    unnamed = {x.category for x in both if not re.match(r"^(Systems?|Pairs?)\b", str(x.message))}
    assert kinds_a <= kinds_solo, (case, kinds_a, kinds_solo)
    assert kinds_solo <= kinds_a | unnamed, (case, kinds_a, kinds_solo, unnamed)
