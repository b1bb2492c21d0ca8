"""A mean of 0/1 values is a proportion (issue 20): ``"auto"`` gives it accuracy's interval.

Before, ``bootstrap_ci(values, metric="mean")`` of 0/1 values got the studentized interval
(the t interval near 0 or 1, with a warning), which covered 0.11-0.87 near the bounds
where Wilson's interval held (docs/validation.md, "The mean of 0/1 values as a
proportion").  Now the kernel of such a mean carries the proportion's numerator and
denominator (:meth:`mlci.metrics.AdditiveKernel.as_proportion`) and its range ``(0, 1)``:
Wilson's interval of independent samples, the logit t interval over conditions, Tango's
interval for a paired difference, exactly what accuracy gets through the same driver.
References: statsmodels' ``proportion_confint(method="wilson")``; the accuracy of the
same 0/1 successes (``y_true=values``, ``y_pred`` all ones), itself checked against R
elsewhere (tests/r, tests/comparison/test_paired_tango.py).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

import mlci
from mlci.metrics import get_kernel
from mlci.metrics._base import PROPORTION_REASON, zero_one


def _zero_one(n: int, p: float, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).random(n) < p).astype(float)


def _as_accuracy(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return v.astype(int), np.ones(len(v), dtype=int)


def test_iid_mean_of_zero_one_values_is_wilson():
    x = np.r_[np.zeros(2), np.ones(28)]
    res = mlci.bootstrap_ci(x, metric="mean", rng=0)
    assert res.method == "wilson_modified"
    # statsmodels.stats.proportion.proportion_confint(28, 30, method="wilson")[0]; 2 failures
    # of 30 (n <= 50: k* = 2): the upper bound is Brown, Cai & DasGupta's (2001, sec. 4.1.1)
    # one-sided Poisson bound 1 - qchisq(0.05, 4) / 60 (R: 1 - qchisq(0.05, 4)/60)
    assert_allclose(
        tuple(res.confidence_interval), (0.7867654163738307, 1 - 0.7107230213973239 / 60)
    )
    assert res.bounds == (0.0, 1.0)
    assert "values are all 0 or 1" in res.details["method_reason"]
    assert res.details["method_reason"].endswith(PROPORTION_REASON)
    assert "warning" not in res.details  # filterwarnings=error: nothing warned either
    # no error at all: proportion_confint(20, 20, method="wilson") = (0.83887, 1)
    res = mlci.bootstrap_ci(np.ones(20), metric="mean", rng=0)
    assert_allclose(tuple(res.confidence_interval), (0.8388748419471804, 1.0))
    # booleans are 0/1 values too
    res_b = mlci.bootstrap_ci(x.astype(bool), metric="mean", rng=0)
    assert res_b.method == "wilson_modified"


def test_every_auto_interval_of_the_mean_is_accuracys():
    x = _zero_one(240, 0.93, seed=3)
    cond = np.repeat(np.arange(30), 8)
    y, p = _as_accuracy(x)
    for design in ({}, {"conditions": cond}):
        for side in ("two-sided", "less"):
            mean = mlci.bootstrap_ci(x, metric="mean", rng=1, alternative=side, **design)
            acc = mlci.bootstrap_ci(y, p, metric="accuracy", rng=1, alternative=side, **design)
            # 0.93 over conditions: within 0.1 of 1, Korn & Graubard's (engine/clustered_edge.py)
            assert mean.method == acc.method == ("korn_graubard" if design else "wilson_modified")
            assert tuple(mean.confidence_interval) == tuple(acc.confidence_interval)
            assert mean.details["method_reason"].startswith(acc.details["method_reason"])


def test_weighted_mean_of_zero_one_values_is_a_weighted_accuracy():
    # with weights a proportion is not a binomial one: accuracy then gets the
    # studentized interval on the logit scale, and so does the weighted mean of 0/1 values
    x = _zero_one(200, 0.9, seed=5)
    w = np.random.default_rng(6).integers(1, 4, 200).astype(float)
    y, p = _as_accuracy(x)
    acc = mlci.bootstrap_ci(y, p, metric="accuracy", sample_weight=w, rng=1)
    mean = mlci.bootstrap_ci(x, metric="mean", sample_weight=w, rng=1)
    wmean = mlci.bootstrap_ci(w, x, metric="weighted_mean", rng=1)
    assert acc.method == mean.method == wmean.method == "studentized"
    # the same replicates; the gradients differ in rounding (numerical vs additive)
    assert_allclose(tuple(mean.confidence_interval), tuple(acc.confidence_interval), rtol=1e-8)
    assert tuple(wmean.confidence_interval) == tuple(mean.confidence_interval)
    assert mean.bounds == wmean.bounds == (0.0, 1.0)


def test_compare_of_zero_one_means_is_accuracys():
    a, b = _zero_one(300, 0.9, seed=7), _zero_one(300, 0.85, seed=8)
    y = np.ones(300, dtype=int)
    cond = np.repeat(np.arange(30), 10)
    for design in ({}, {"conditions": cond}):
        mean = mlci.compare(None, {"A": a, "B": b}, metric="mean", rng=2, **design)
        acc = mlci.compare(
            y, {"A": a.astype(int), "B": b.astype(int)}, metric="accuracy", rng=2, **design
        )
        dm, da = mean.difference("A", "B"), acc.difference("A", "B")
        # independent samples: Tango's interval of the paired table; conditions: t
        assert dm.method == da.method == ("t" if design else "tango")
        # (over conditions the t interval's standard error: accuracy's numerical gradient
        # against the mean's closed form, ~1e-7 apart)
        assert_allclose(tuple(dm.confidence_interval), tuple(da.confidence_interval), atol=1e-8)
        assert_allclose(dm.pvalue, da.pvalue, rtol=1e-6)
        for s in ("A", "B"):
            assert mean.systems[s].method == acc.systems[s].method
            assert tuple(mean.systems[s].confidence_interval) == tuple(
                acc.systems[s].confidence_interval
            )
    table = mlci.paired_table(a, b)
    tango = mlci.paired_proportion_diff_ci(table, method="tango")
    dm = mlci.compare(None, {"A": a, "B": b}, metric="mean", rng=2).difference("A", "B")
    assert_allclose(tuple(dm.confidence_interval), tuple(tango.confidence_interval), rtol=1e-12)


def test_compare_of_a_zero_one_mean_and_another_mean_keeps_the_wider_range():
    # the 0/1 system's range (0, 1) must not clip the other system's mean of 1.535 (it
    # was [1, 1] when the 0/1 system came first) nor their difference
    g = np.random.default_rng(0)
    a, b = (g.random(200) < 0.9).astype(float), g.integers(0, 4, 200).astype(float)
    for systems in ({"A": a, "B": b}, {"B": b, "A": a}):
        res = mlci.compare(None, systems, metric="mean", rng=0)
        sys_b = res.systems["B"]
        assert sys_b.bounds == (-np.inf, np.inf) and sys_b.method == "studentized"
        # scipy.stats.t.interval(0.95, 199, 1.535, sem(b)) = (1.3800, 1.6900): the
        # studentized interval is within a bootstrap's error of it
        t_ref = stats.t.interval(0.95, 199, b.mean(), stats.sem(b))
        assert_allclose(tuple(sys_b.confidence_interval), t_ref, atol=0.02)
        assert res.systems["A"].method == "wilson_modified"  # its own rule: a proportion
        d = res.differences[0]
        assert d.method == "t" and d.confidence_interval[1] - d.confidence_interval[0] > 0.2


def test_other_values_keep_the_mean_rules():
    # one value that is neither 0 nor 1 and the mean is a mean: unbounded, studentized
    x = np.r_[_zero_one(99, 0.6, seed=9), 0.5]
    res = mlci.bootstrap_ci(x, metric="mean", rng=0)
    assert res.method == "studentized" and res.bounds == (-np.inf, np.inf)
    k = get_kernel("mean", (x,), {})
    assert k.proportion is None and k.proportion_reason == ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        w = mlci.bootstrap_ci(np.ones(100), x, metric="weighted_mean", rng=0)
    assert w.bounds == (-np.inf, np.inf)


def test_kernel_of_zero_one_values():
    k = get_kernel("mean", ([1.0, 0.0, 1.0, 1.0],), {})
    num, den = k.proportion
    counts = np.bincount(k.keys, minlength=k.m)
    assert (counts[num].sum(), counts[den].sum()) == (3, 4)
    assert k.bounds == (0.0, 1.0)
    # a single value: one atom, still a proportion (0 of 3, or 3 of 3)
    for v, share in ((0.0, 0), (1.0, 3)):
        k = get_kernel("mean", (np.full(3, v),), {})
        assert k.m == 1 and int(k.proportion[0].sum()) * 3 == share
    # weighted: the range only (not a binomial proportion)
    k = get_kernel("weighted_mean", ([1.0, 2.0], [0.0, 1.0]), {})
    assert k.proportion is None and k.bounds == (0.0, 1.0)
    k = get_kernel("mean", ([0.0, 1.0],), {}, sample_weight=[1.0, 2.0])
    assert k.proportion is None and k.bounds == (0.0, 1.0)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([0.0, 1.0, 1.0], True),
        ([1, 1], True),
        ([True, False], True),
        ([0.0, 0.5], False),
        ([0.0, 2.0], False),
        ([-0.0, 1.0], True),
        ([0.0, np.nan], False),
        ([], False),
    ],
)
def test_zero_one(values, expected):
    assert zero_one(np.asarray(values)) is expected


def test_bad_values_of_a_mean_are_still_refused():
    # the 0/1 check comes after the input gate: bad input keeps its error
    with pytest.raises(TypeError, match="`values` must hold numbers"):
        mlci.bootstrap_ci(["a", "b"], metric="mean")
    with pytest.raises(ValueError, match="`weights`"):
        mlci.bootstrap_ci([-1.0, 1.0], [0.0, 1.0], metric="weighted_mean")
