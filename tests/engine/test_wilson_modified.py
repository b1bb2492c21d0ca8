"""``method="wilson_modified"``: Brown, Cai & DasGupta's (2001, sec. 4.1.1) modified
Wilson interval, what ``method="auto"`` gives a proportion of independent samples.

References: R ``prop.test(k, n, correct = FALSE)$conf.int`` (Wilson) and ``qchisq`` (the
one-sided Poisson bound ``qchisq(alpha, 2k) / (2n)``, alpha = 1 - confidence level).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import mlci


def _ones(k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.ones(n, dtype=int), np.r_[np.ones(k, dtype=int), np.zeros(n - k, dtype=int)]


def test_auto_gives_the_modified_interval_and_says_so():
    y, pred = _ones(99, 100)
    res = mlci.bootstrap_ci(y, pred, metric="accuracy", rng=0)
    assert res.method == "wilson_modified"
    assert "Brown, Cai & DasGupta" in res.details["method_reason"]
    # R: prop.test(99, 100, correct = FALSE)$conf.int[1] = 0.9455138038212947; upper: 1
    # failure (k* = 3 at n = 100): R 1 - qchisq(0.05, 2) / 200 = 0.99948706705612
    low, high = res.confidence_interval
    assert low == pytest.approx(0.9455138038212947, abs=1e-12)
    assert high == pytest.approx(0.99948706705612, abs=1e-13)
    # plain Wilson on request: R prop.test(99, 100, correct = FALSE)$conf.int[2]
    plain = mlci.bootstrap_ci(y, pred, metric="accuracy", rng=0, method="wilson")
    assert plain.confidence_interval[0] == pytest.approx(low, abs=1e-12)
    assert plain.confidence_interval[1] == pytest.approx(0.9982325679358593, abs=1e-12)


def test_reread_at_another_level_and_to_dict_keep_the_method():
    y, pred = _ones(98, 100)
    res = mlci.bootstrap_ci(y, pred, metric="accuracy", rng=0)
    r90 = res.interval(confidence_level=0.90)
    assert r90.method == "wilson_modified"
    # R: 1 - qchisq(0.10, 4) / 200, qchisq(0.10, 4) = 1.063623216779224
    assert r90.confidence_interval[1] == pytest.approx(1 - 1.063623216779224 / 200, abs=1e-12)
    ref = mlci.bootstrap_ci(y, pred, metric="accuracy", rng=0, confidence_level=0.90)
    assert tuple(r90.confidence_interval) == tuple(ref.confidence_interval)
    d = res.to_dict()
    assert d["method"] == "wilson_modified"
    json.dumps(d, allow_nan=False)
    # the same numbers as proportion_ci's method of the same name
    pc = mlci.proportion_ci(98, 100, method="wilson_modified")
    assert tuple(pc.confidence_interval) == pytest.approx(tuple(res.confidence_interval), abs=1e-14)


def test_away_from_the_bounds_it_is_wilson():
    for k in (0, 4, 50, 96, 100):
        mod = mlci.proportion_ci(k, 100, method="wilson_modified")
        wil = mlci.proportion_ci(k, 100, method="wilson")
        assert tuple(mod.confidence_interval) == tuple(wil.confidence_interval)


def test_one_sided():
    # a one-sided 95% lower bound with 2 successes of 40: R qchisq(0.05, 4) / 80
    r = mlci.proportion_ci(2, 40, method="wilson_modified", alternative="greater")
    assert r.confidence_interval[0] == pytest.approx(0.7107230213973241 / 80, abs=1e-14)
    assert r.confidence_interval[1] == 1.0


def test_bad_input_names_the_method():
    y, pred = _ones(50, 100)
    cond = np.tile(np.arange(20), 5)
    with pytest.raises(ValueError, match=r"wilson_modified.*independent samples"):
        mlci.bootstrap_ci(y, pred, metric="accuracy", conditions=cond, method="wilson_modified")
    with pytest.raises(ValueError, match=r"wilson_modified.*single proportion"):
        mlci.bootstrap_ci(y, pred, metric="f1", method="wilson_modified")
    with pytest.raises(ValueError, match=r"wilson_modified.*not available in .compare."):
        mlci.compare(y, {"A": pred, "B": y}, metric="accuracy", method="wilson_modified")
    with pytest.raises(ValueError, match="method"):
        mlci.proportion_ci(2, 40, method="wilson_modifed")
