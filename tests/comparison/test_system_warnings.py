"""compare's systems get bootstrap_ci's design warnings (warn_outside_map) for the same data
(comparison/system_warnings.py): before, compare gave only average precision's misranked
warning, so e.g. an accuracy near 1 over 30 conditions or errors in 2 of 30 conditions were
warned by bootstrap_ci and not by compare for the same system and the same interval."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import mlci

MAP = (mlci.FewConditionsWarning, mlci.NearBoundWarning)
PREFIX = re.compile(r"^Systems? '[^:]*': ")


def _caught(call: Callable[[], Any]) -> tuple[Any, list[tuple[type, str]]]:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with mlci.config_context(n_jobs=1):
            out = call()
    return out, [(x.category, str(x.message)) for x in w if issubclass(x.category, MAP)]


def _cases() -> dict[str, tuple[Any, ...]]:
    g = np.random.default_rng(3)
    n = 300
    y = (g.random(n) < 0.3).astype(int)
    cond5, cond30 = g.integers(0, 5, n), g.integers(0, 30, n)
    a = np.where(g.random(n) < 0.9, y, 1 - y)
    b = np.where(g.random(n) < 0.8, y, 1 - y)
    two = y.copy()
    two[g.choice(n, 2, replace=False)] ^= 1  # 2 errors
    y3 = np.r_[np.ones(3, int), np.zeros(97, int)]
    a3, b3 = y3.copy(), np.where(g.random(100) < 0.9, y3, 1 - y3)
    a3[50] = 1
    y5 = np.r_[np.ones(30, int), np.zeros(170, int)]
    s5, t5 = y5 * 4.5 + g.normal(size=200), y5 + g.normal(size=200)
    c12 = g.integers(0, 12, 200)
    return {
        # (y, system A, system B, metric, keywords): near-bound designs where compare's
        # system A gets bootstrap_ci's interval (method and limits)
        "f1 over 5 conditions": (y, a, b, "f1", {"conditions": cond5}),
        "accuracy 0.993 over 30 conditions": (y, two, b, "accuracy", {"conditions": cond30}),
        "mcc, errors in 2 of 30 conditions": (y, two, b, "mcc", {"conditions": cond30}),
        "balanced accuracy, 3 positives": (y3, a3, b3, "balanced_accuracy", {}),
        "average precision 1, 30 positives": (y5, s5, t5, "average_precision", {}),
        "roc auc 1 over 12 conditions": (y5, s5, t5, "roc_auc", {"conditions": c12}),
    }


CASES = _cases()


@pytest.mark.parametrize("case", list(CASES))
def test_compare_gives_each_system_the_warnings_of_bootstrap_ci(case: str) -> None:
    y, a, b, metric, kw = CASES[case]
    single, solo = _caught(
        lambda: mlci.bootstrap_ci(y, a, metric=metric, rng=0, n_resamples=200, **kw)
    )
    res, both = _caught(
        lambda: mlci.compare(y, {"A": a, "B": b}, metric=metric, rng=0, n_resamples=200, **kw)
    )
    row = res.systems["A"]
    assert row.method == single.method
    assert tuple(row.confidence_interval) == pytest.approx(tuple(single.confidence_interval))
    # bootstrap_ci's rule fires here (the case is near a bound), and compare says the same
    # message for system A, naming it; each once
    assert solo, case
    named = [(c, PREFIX.sub("", t)) for c, t in both if "'A'" in t.split(":")[0]]
    for category, text in solo:
        if text.startswith("Only 12 conditions are resampled"):  # finish_bootstrap's own
            continue
        assert (category, text) in named, (case, text[:80])
    assert len(both) == len(set(both))


def test_the_average_precision_misranked_warning_is_unchanged() -> None:
    # the one compare gave before session 12 (its per-system AP rule's text, now the shared one)
    y, a, b, metric, _ = CASES["average precision 1, 30 positives"]
    _, both = _caught(lambda: mlci.compare(y, {"A": a, "B": b}, metric=metric, rng=0,
                                           n_resamples=200))  # fmt: skip
    texts = [t for c, t in both if c is mlci.NearBoundWarning]
    assert len(texts) == 1
    assert texts[0].startswith("System 'A': Average precision of 1 whose error rests on 0 ")
    assert "The bca interval of average precision may not keep" in texts[0]
