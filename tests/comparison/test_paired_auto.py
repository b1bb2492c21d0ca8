"""``method="auto"`` for a paired difference (issue 20): the skewness rule and its warning.

The ``t`` interval of a paired accuracy difference is a Wald interval; with few
discordant samples, most of them one way, it under-covers (exactly: 0.80 with 3, 0.87-0.93
with 5-20; docs/validation.md section 5, "Paired differences").  ``compare`` gives such a
difference of independent samples the bootstrap interval of
:data:`mlci.engine.paired_rules.SKEWED_PAIR_METHOD` when its effective number of discordant samples
``1 / skewness^2`` (:mod:`mlci.engine.skewness`) is below
:data:`mlci.engine.paired_rules.MIN_EFFECTIVE_DISCORDANT`, and warns below
:data:`mlci.engine.paired_rules.MIN_DISCORDANT` (``1 / kurtosis``).
"""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

import mlci
from _scripts import load_script
from mlci.engine import paired_rules
from mlci.engine.linearize import Linearization
from mlci.engine.nested import plan_for_conditions
from mlci.engine.skewness import linearized_shape
from mlci.metrics import get_kernel, metric_params


def _pair(n: int, err: float, extra: int, back: int = 0, seed: int = 1):
    """Labels and two systems: B errs wherever A does, on ``extra`` more samples, and is
    right on ``back`` of A's errors (``extra`` + ``back`` discordant samples)."""
    g = np.random.default_rng(seed)
    y = g.integers(0, 2, n)
    wa = g.random(n) < err
    wb = wa.copy()
    right = np.flatnonzero(~wa)
    wb[right[:extra]] = True
    wb[np.flatnonzero(wa)[:back]] = False
    return y, np.where(wa, 1 - y, y), np.where(wb, 1 - y, y)


# ------------------------------------------------------------------ the shape itself
def test_shape_of_a_paired_accuracy_difference_matches_scipy():
    y, a, b = _pair(300, 0.1, extra=9, back=2)
    x = (a == y).astype(float) - (b == y)  # per-sample difference of correctness
    n = len(x)
    res = mlci.compare(y, {"A": a, "B": b}, metric="accuracy", rng=0)
    d = res.difference("A", "B").details
    # the mean of n iid values: skewness skew(x) / sqrt(n), excess kurtosis kurt(x) / n
    assert_allclose(d["skewness"], stats.skew(x) / math.sqrt(n), rtol=1e-9)
    assert_allclose(d["kurtosis"], stats.kurtosis(x) / n, rtol=1e-9)
    # b + c = 11 discordant samples, 9 one way: about (c - b) / (b + c)^1.5 and 1 / (b + c)
    # (up to terms in (b + c) / n)
    assert_allclose(d["skewness"], 7 / 11**1.5, rtol=0.15)
    assert_allclose(1 / d["kurtosis"], 11, rtol=0.2)


def test_shape_over_conditions_uses_the_conditions_totals():
    g = np.random.default_rng(3)
    n = 240
    cond = np.repeat(np.arange(30), 8)
    y = g.integers(0, 2, n)
    p = np.where(g.random(n) < 0.2, 1 - y, y)
    kernel = get_kernel("accuracy", (y, p), metric_params("accuracy", None, "default", None))
    skew, kurt = linearized_shape(Linearization(kernel, plan_for_conditions(n, conditions=cond)))
    # the linearized accuracy is the mean of the correctness: the conditions' centred totals
    r = np.bincount(cond, weights=(p == y) - np.mean(p == y))
    assert_allclose(skew, np.sum(r**3) / np.sum(r**2) ** 1.5, rtol=1e-9)
    assert_allclose(kurt, np.sum(r**4) / np.sum(r**2) ** 2 - 3 / 30, rtol=1e-9)


def test_shape_refuses_a_metric_without_gradient():
    class _NoGradient:
        def at_data(self):
            return np.ones((1, 2)), np.zeros(1), None

    with pytest.raises(ValueError, match="`lin` must be the linearization"):
        linearized_shape(_NoGradient())


def _mean_of(y, a, b):
    """The same pair as the mean of a per-sample score of 0 or 2 points (``metric="mean"``):
    not a proportion, so ``auto`` keeps the t / BCa rules there.  Not 0/1 values: a mean of
    0/1 values is a proportion since issue 20 and gets Tango's interval, as accuracy does
    (tests/comparison/test_paired_tango.py); doubling them is exact in floating point and
    changes neither the skewness nor the kurtosis of the difference, so the rules see the
    same discordant samples."""
    return {"A": 2.0 * (a == y), "B": 2.0 * (b == y)}


# ------------------------------------------------------------------ the rule
def test_a_skewed_difference_gets_the_bootstrap_interval():
    # the design search's #59: n = 943, B wrong on ~16 more samples than A, none back
    y, a, b = _pair(943, 0.075, extra=16)
    res = mlci.compare(None, _mean_of(y, a, b), metric="mean", rng=0)
    d = res.difference("A", "B")
    assert 1 / d.details["skewness"] ** 2 < paired_rules.MIN_EFFECTIVE_DISCORDANT
    assert d.method == paired_rules.SKEWED_PAIR_METHOD
    assert "effective discordant samples" in res.details["method_reason"]
    explicit = mlci.compare(
        None, _mean_of(y, a, b), metric="mean", rng=0, method=paired_rules.SKEWED_PAIR_METHOD
    ).difference("A", "B")
    assert_allclose(tuple(d.confidence_interval), tuple(explicit.confidence_interval))
    # its p-value from the bootstrap distribution shifted to the null, as that method's
    assert d.pvalue == explicit.pvalue
    assert "the bootstrap distribution of the difference shifted" in res.pvalue_method


def test_a_difference_with_many_discordant_samples_keeps_t():
    # 60 discordant samples, 40 one way: 1 / skewness^2 is far above the threshold
    y, a, b = _pair(1000, 0.1, extra=40, back=20)
    res = mlci.compare(None, _mean_of(y, a, b), metric="mean", rng=0)
    d = res.difference("A", "B")
    assert d.method == "t"
    t = mlci.compare(None, _mean_of(y, a, b), metric="mean", rng=0, method="t")
    assert tuple(d.confidence_interval) == tuple(t.difference("A", "B").confidence_interval)
    assert "effective discordant" not in res.details["method_reason"]


def test_over_conditions_the_t_interval_is_kept():
    # with conditions the bootstrap under-covered (design search: 0.84 vs t 0.95 over 15
    # conditions), so the rule is for independent samples only
    y, a, b = _pair(943, 0.075, extra=16)
    cond = np.arange(943) % 40
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        res = mlci.compare(y, {"A": a, "B": b}, metric="accuracy", rng=0, conditions=cond)
    assert res.difference("A", "B").method == "t"


def test_skewed_pairs_rule():
    g = np.array([0.0, np.nan, 0.1, 0.19, 0.2, -0.5])
    expect = g**2 * paired_rules.MIN_EFFECTIVE_DISCORDANT > 1
    assert_allclose(paired_rules.skewed_pairs(g, True), np.nan_to_num(expect, nan=False))
    assert not paired_rules.skewed_pairs(g, False).any()
    assert not paired_rules.skewed_pairs(g, True, "roc_auc").any()
    assert paired_rules.skewed_pairs(np.array([-0.5]), True).all()


def test_few_discordant_samples_warn():
    y, a, b = _pair(500, 0.1, extra=2, back=1)  # 3 discordant samples
    with pytest.warns(mlci.DegenerateIntervalWarning, match="discordant samples"):
        res = mlci.compare(None, _mean_of(y, a, b), metric="mean", rng=0)
    assert res.details["few_discordant_pairs"] == ["A - B"]
    assert "tango" in res.details["few_discordant_warning"]
    # the accuracy difference gets Tango's interval there: no warning (filterwarnings=error)
    res = mlci.compare(y, {"A": a, "B": b}, metric="accuracy", rng=0)
    assert "few_discordant_pairs" not in res.details
    assert res.difference("A", "B").method == "tango"
    y, a, b = _pair(500, 0.1, extra=4, back=4)  # 8: no warning (filterwarnings=error)
    res = mlci.compare(None, _mean_of(y, a, b), metric="mean", rng=0)
    assert "few_discordant_pairs" not in res.details


# ------------------------------------------------------------------ coverage
def _study():
    return load_script("paired_diff_study.py")


SCALE = float(os.environ["MLCI_SLOW_SCALE"])
#: 400 test sets at least: the exact two-sided test at 0.001 accepts 0.915-0.98 around
#: 0.95 and rejects a 90% interval labelled 95% (p < 1e-4 at 0.90)
REPS = max(400, round(1000 * SCALE))


@pytest.mark.slow
@pytest.mark.search
@pytest.mark.parametrize(
    "level, gap, rho, n",
    [
        # search #59: ~16 discordant samples, all one way (t 0.916 with 800 test sets)
        (0.925, 0.0167, 1.0, 943),
        # ~6 discordant samples one way, n = 1000 (t 0.95-0.965, BCa 0.98-0.995)
        (0.9, 0.006, 1.0, 1000),
        # ~50 discordant samples both ways, gap 0 (auto for accuracy is now Tango's
        # interval in all three: tests/comparison/test_paired_tango.py)
        (0.9, 0.0, 0.72, 1000),
    ],
)
def test_coverage_of_auto_at_fixed_designs(level, gap, rho, n):
    ps = _study()
    d = ps.Design(2000 + n, "accuracy", n, level, gap, rho, 0.4, 0, 0.0, False)
    pop = ps.Population(d)
    hits = 0
    for i in range(REPS):
        x = pop.draw(np.random.default_rng([0, d.index, i, 5]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", mlci.MlciWarning)
            res = mlci.compare(x["y"], {"a": x["a"], "b": x["b"]}, metric="accuracy", rng=i)
        lo, hi = res.difference("a", "b").confidence_interval
        hits += lo <= pop.truth + 1e-12 and pop.truth - 1e-12 <= hi
    p = stats.binomtest(hits, REPS, 0.95).pvalue
    assert p > 0.001, f"{d.label()}: auto covers {hits / REPS:.3f} ({REPS} test sets)"


def test_systems_get_their_kernels_own_auto_rule_as_bootstrap_ci():
    """One method resolution through every door (issue 20, item 4): a system of
    ``compare`` gets its kernel family's own ``"auto"`` interval where it has one, as
    ``bootstrap_ci`` does (the calibration slope: t; corpus BLEU over documents:
    logit_t).  Before, compare gave its systems the studentized interval there
    (``mlci mt compare --documents`` and ``mlci mt ci --documents`` disagreed)."""
    import warnings

    gen = np.random.default_rng(0)
    n = 600
    p1 = gen.uniform(0.05, 0.95, n)
    y = (gen.random(n) < p1**1.2).astype(int)
    p2 = np.clip(p1 + gen.normal(0, 0.05, n), 0.01, 0.99)

    def system_and_alone(metric):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", mlci.IrregularEstimandWarning)
            res = mlci.compare(y, {"a": p1, "b": p2}, metric=metric, rng=0, n_resamples=300)
            one = mlci.bootstrap_ci(y, p1, metric=metric, rng=0, n_resamples=300)
        return res, one

    res, one = system_and_alone("calibration_slope")
    assert one.method == res.systems["a"].method == "t"
    np.testing.assert_allclose(
        res.systems["a"].confidence_interval, one.confidence_interval, rtol=1e-12
    )
    # a rule that needs no linearization (the debiased Brier reliability's normal
    # interval; the metric has no linearized standard error, so compare's own default
    # there is BCa): the system gets it too, and method_reason says so
    res, one = system_and_alone("brier_reliability")
    assert one.method == res.systems["a"].method == "normal"
    np.testing.assert_allclose(
        res.systems["a"].confidence_interval, one.confidence_interval, rtol=1e-12
    )
    assert res.details["method_reason"].startswith("systems: normal")
